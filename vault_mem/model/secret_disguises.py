"""Disguises a person uses to get a value past a scanner, each undone in a view of its own.

A value spelled out a character at a time (:func:`spelled_out`), given as character codes
(:func:`char_code_runs`), as bytes between dots or colons (:func:`separated_bytes`), built
from variables or anchors defined above it (:func:`composed_values`), cut into a list of
strings (:func:`joined_lists`), written backwards (:func:`reversed_words`) or in rot13
(:func:`rot13`). :func:`substituted` makes the view an edit list describes.

Each returns an edit list (or a :class:`~vault_mem.model.secret_text.View`) for the caller to
scan again; the view maps a finding back to the original characters.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_text import View, long_words

__all__ = ["char_code_runs", "composed_values", "joined_lists", "phonetic_values", "reversed_words", "rot13", "separated_bytes",
           "spelled_out", "substituted"]

# --- disguises ------------------------------------------------------------------------------
#
# Each finder below returns edits, ``(start, end, replacement)``: what the characters at
# ``text[start:end]`` say once the disguise is undone. :func:`substituted` applies them to one view
# whose map sends a span inside a replacement back to the disguised characters as a whole.

Edit = tuple[int, int, str]


def substituted(text: str, edits: list[Edit]) -> tuple[View, list[tuple[int, int]]]:
    """``text`` with each edit applied (edits sorted; one that overlaps the one before is left
    out), mapped back to ``text``, and where each replacement stands in the view's text."""
    view = View("")
    parts: list[str] = []
    placed = []
    n = pos = 0
    for start, end, replacement in edits:
        if start < pos:
            continue
        view.add(text[pos:start], pos, start - pos, verbatim=True, at=n)
        parts.append(text[pos:start])
        n += start - pos
        view.add(replacement, start, end - start, verbatim=False, at=n)
        parts.append(replacement)
        placed.append((n, n + len(replacement)))
        n += len(replacement)
        pos = end
    view.add(text[pos:], pos, len(text) - pos, verbatim=True, at=n)
    parts.append(text[pos:])
    view.text = "".join(parts)
    return view, placed


# A value spelled out a character at a time ("s a f f r o n - F a l c o n 5 5"): eight single
# characters or more, each alone between single spaces
_SPELLED = lazy(r"(?<!\S)\S(?: \S){7,199}(?!\S)")
_SPELLED_HINT = lazy(r" \S \S \S \S ")  # (a search for a space first: the pattern above has no literal to skip to)
# the same listed with commas ("letter by letter: W, h, c, t, $, x, k, 3"): eight characters or more,
# each alone after a comma
_SPELLED_LIST = lazy(r"(?<![^\s:(\[])[^\s,](?:,[ \t]?[^\s,]){7,199}(?![^\s,.;)\]])")
_SPELLED_LIST_HINT = lazy(r"(?<![^\s,])\S, ?\S, ?\S, ?\S,")
# (a list of single characters is a list of flags, grades or options as often, "tar flags we pass:
# x, v, z, f, C, 2, j, J": read as one value only where the words before it say it is spelled)
_SPELLED_SAID = lazy(r"(?i:letter[ -]by[ -]letter|char(?:acter)?[ -]by[ -]char(?:acter)?|spell|one[ -]by[ -]one)")

# the phonetic alphabet's words and the digits' names, each for its character
_NATO = {w: w[0] for w in ("alfa alpha bravo charlie delta echo foxtrot golf hotel india juliet juliett kilo lima mike"
                           " november oscar papa quebec romeo sierra tango uniform victor whiskey whisky x-ray xray"
                           " yankee zulu").split()}
_NATO.update(zip("zero one two three four five six seven eight nine".split(), "0123456789"))
_NATO["niner"] = "9"
_NATO_ALT = "|".join(sorted(_NATO, key=len, reverse=True)).replace("-", "\\-")
_NATO_WORD = lazy(rf"(?i:{_NATO_ALT})")
# eight such words or more in a row, apart by spaces, commas or dashes
_NATO_RUN = lazy(rf"(?<![\w-])(?i:{_NATO_ALT})(?:(?:,?[ \t]{{1,2}}|[ \t]?-[ \t]?)(?i:{_NATO_ALT})){{7,63}}(?![\w-])")
# (a run of eight holds one of these; plain substring searches of the lowered text, a regex of
# them all cost 0.13 s on a 1 MB table)
_NATO_HINTS = ("kilo", "bravo", "tango", "victor", "zulu", "quebec", "yankee", "whisk", "foxtrot", "sierra", "juliet",
               "oscar", "romeo", "charlie", "hotel")


def _phonetic_runs(text: str) -> Iterator[Edit]:
    """Each run of the phonetic alphabet's words (see :data:`_NATO_RUN`) as the value it reads
    out: a word's capital gives its letter's case, as a person reading a password aloud says it
    (a capital on the first word alone is the sentence's)."""
    if text.count(" ") < 7:
        return
    low = text.lower()
    for hint in _NATO_HINTS:
        if hint in low:  # (a plain loop: most texts hold none)
            break
    else:
        return
    for m in _NATO_RUN.finditer(text):
        words = _NATO_WORD.findall(m.group())
        # (a capital on the first word alone is the sentence's, "Serial read out: Hotel seven kilo
        # two ...": a case said word by word changes after the first word)
        said = any(w[0].isupper() for w in words[1:])
        word = "".join(_NATO[w.lower()].upper() if w[0].isupper() and said else _NATO[w.lower()] for w in words)
        yield m.start(), m.end(), word


def phonetic_values(text: str) -> Iterator[tuple[str, int, int]]:
    """A value read out in the phonetic alphabet with its case said word by word ("Kilo seven
    Victor hotel Bravo nine ..."): letters of both cases and a digit, eight or more. Nobody
    reads out a name or a booking code so; only a value where each character counts, a password."""
    for start, end, word in _phonetic_runs(text):
        if len(word) >= 8 and any(c.isdigit() for c in word) and any(c.isupper() for c in word) \
                and any(c.islower() for c in word):
            yield "password read out in the phonetic alphabet", start, end


def spelled_out(text: str) -> list[Edit]:
    """Each run of single characters between spaces or after commas (said to be spelled), as the word it spells; not a run of one
    kind of character alone (``1 2 3 4 5 6 7 8``, ``a b c d e f g h``: a list, a scale)."""
    runs = []
    if text.count(" ") >= 7 and _SPELLED_HINT.search(text):
        runs.extend(_SPELLED.finditer(text))
    if text.count(",") >= 7 and _SPELLED_LIST_HINT.search(text):
        runs.extend(m for m in _SPELLED_LIST.finditer(text) if _SPELLED_SAID.search(text, max(0, m.start() - 80), m.start()))
    edits = [(start, end, word) for start, end, word in _phonetic_runs(text)
             if any(c.isdigit() for c in word) and any(c.isalpha() for c in word) and len(set(word)) >= 6]
    for m in runs:
        word = "".join(m.group().split()).replace(",", "") if "," in m.group() else m.group().replace(" ", "")
        if any(c.isdigit() for c in word) + any(c.isalpha() for c in word) + any(not c.isalnum() for c in word) >= 2 \
                and len(set(word)) >= 6:
            edits.append((m.start(), m.end(), word))
    return edits


# Character codes of printable ASCII, eight or more: `String.fromCharCode(82,53,...)`, `chr(82)+chr(53)...`,
# `bytes([82, 53, ...])`, `new byte[]{82, 53, ...}`
_CHAR_CODES = lazy(r"(?<![\w.])(?:[0-9]{2,3}[ \t]{0,2},[ \t]{0,2}){7,255}[0-9]{2,3}(?![\w.])")
_CHR_CALLS = lazy(r"chr\([0-9]{2,3}\)(?:[ \t]{0,2}\+[ \t]{0,2}chr\([0-9]{2,3}\)){7,255}")
_CODE_NUMBER = lazy(r"[0-9]{2,3}")


# the same in hex: `0x67, 0x68, ...`, and a string of escapes (`"\x67\x68..."`, `"\u0067\u0068..."`)
_HEX_CODES = lazy(r"(?<![\w.])(?:0x[0-9a-fA-F]{2}[ \t]{0,2},[ \t]{0,2}){7,255}0x[0-9a-fA-F]{2}(?![\w.])")
_ESCAPES = lazy(r"(?:\\x[0-9a-fA-F]{2}|\\u00[0-9a-fA-F]{2}){8,256}")
_HEX_NUMBER = lazy(r"(?:0x|\\x|\\u00)([0-9a-fA-F]{2})")


def char_code_runs(text: str) -> list[Edit]:
    """Lists of eight numbers or more (decimal, ``0x`` hex, or ``\\x``/``\\u`` escapes in a
    string), each a printable ASCII character's code (33 to 126), as the quoted string they spell
    (a list of small numbers, sizes or ports, spells control characters and digits, not a token of
    letters and digits: the caller judges the string)."""
    if text.count(",") < 7 and "chr(" not in text and "\\x" not in text and "\\u00" not in text:
        return []
    edits = []
    hexes = (*_HEX_CODES.finditer(text), *_ESCAPES.finditer(text)) if "0x" in text or "\\" in text else ()
    for m in hexes:
        codes = [int(v, 16) for v in _HEX_NUMBER.findall(m.group())]
        if all(32 < c < 127 for c in codes):
            word = "".join(map(chr, codes))
            if any(c.isalpha() for c in word) and any(c.isdigit() for c in word):
                edits.append((m.start(), m.end(), '"' + word.replace('"', "'") + '"'))
    for m in (*_CHAR_CODES.finditer(text), *(_CHR_CALLS.finditer(text) if "chr(" in text else ())):
        codes = [int(v) for v in _CODE_NUMBER.findall(m.group())]
        if all(32 < c < 127 for c in codes):
            word = "".join(map(chr, codes))
            if any(c.isalpha() for c in word) and any(c.isdigit() for c in word):
                edits.append((m.start(), m.end(), '"' + word.replace('"', "'") + '"'))
    return sorted(edits)


# Bytes of a key in hex between one separator (`42.a6.63.4f...`, `42:a6:63:...`, `42-a6-...`): 16 or more
_SEPARATED_BYTES = lazy(r"(?<![\w:.-])[0-9a-fA-F]{2}(?P<sep>[.:-])[0-9a-fA-F]{2}(?:(?P=sep)[0-9a-fA-F]{2}){14,63}(?![\w:.-])")


def separated_bytes(text: str) -> list[Edit]:
    """Each run of 16 to 65 hex bytes between one separator, as the hex it spells; the caller
    reads the line's label (a fingerprint, a serial number and a MAC address are written so too)."""
    if text.count(".") < 15 and text.count(":") < 15 and text.count("-") < 15:
        return []
    return [(m.start(), m.end(), m.group().replace(m.group("sep"), "")) for m in _SEPARATED_BYTES.finditer(text)]


# A name given a literal on a line of its own (shell, .env, YAML with an anchor, code), and the
# ways a later line builds a value from such names: `$A$B`, `${A}${B}`, `[*a, *b]`, `a + b`
_DEFINED = lazy(r"^[ \t]{0,16}(?:export[ \t]{1,4}|const[ \t]{1,4}|let[ \t]{1,4}|var[ \t]{1,4}|\$env:|\$)?(?P<name>[A-Za-z_][\w]{0,40})"
                r"[ \t]{0,4}[:=][ \t]{0,4}(?:&(?P<anchor>[\w-]{1,40})[ \t]{1,4})?(?P<q>[\"']?)(?P<value>[A-Za-z0-9_+/=.~-]{2,200})(?P=q)"
                r"[ \t]{0,4};?[ \t]{0,4}\r?$", re.MULTILINE)
_SHELL_REFS = lazy(r"(?:\$\{?[A-Za-z_]\w{0,40}\}?){2,8}(?![\w{])")
_SHELL_REF = lazy(r"\$\{?([A-Za-z_]\w{0,40})")
_ALIAS_LIST = lazy(r"\[[ \t]{0,4}\*[\w-]{1,40}(?:[ \t]{0,4},[ \t]{0,4}\*[\w-]{1,40}){1,8}[ \t]{0,4}\]")
_ALIAS = lazy(r"\*([\w-]{1,40})")
_SUM = lazy(r"(?<![\w.$\"'])[A-Za-z_]\w{0,40}(?:[ \t]{0,4}\+[ \t]{0,4}[A-Za-z_]\w{0,40}){1,8}(?![\w(\"'])")
_SUMMAND = lazy(r"[A-Za-z_]\w{0,40}")
_BRACE_REFS = lazy(r"(?<!\$)(?:\{[A-Za-z_]\w{0,40}\}){2,8}")  # an f-string's `{a}{b}`
_BRACE_REF = lazy(r"\{([A-Za-z_]\w{0,40})\}")
# `"".join([a, b])`, `[a, b].join("")`, `strings.Join([]string{a, b}, "")`
_JOIN_CALL = lazy(r"join\([ \t]{0,4}(?:\[\]string\{|[\[(])?[ \t]{0,4}(?P<names>[A-Za-z_]\w{0,40}(?:[ \t]{0,4},[ \t]{0,4}[A-Za-z_]\w{0,40}){1,8})"
                  r"[ \t]{0,4}[\])}]?")


def composed_values(text: str) -> list[Edit]:
    """Each value a line builds from two literals or more defined on lines of their own above
    or below it (``API_TOKEN=$PART_A$PART_B``, YAML's ``token: [*prefix, *rest]``, ``key = a + b``),
    as the literal it makes; every name it reads must be such a literal."""
    edits = []
    if "join(" in text:
        # a literal list joined in place (`"".join(["ab", "cd"])`, `["ab", "cd"].join("")`): the string it makes
        edits.extend((m.start(), m.end(), '"' + "".join(_LIST_ITEM.findall(m.group("items"))) + '"')
                     for pattern in _JOINED_LITERALS for m in pattern.finditer(text))
    if text.count("\n") < 2:
        return sorted(edits)
    literals: dict[str, str] = {}
    anchors: dict[str, str] = {}
    for m in _DEFINED.finditer(text):
        literals.setdefault(m.group("name"), m.group("value"))
        if m.group("anchor"):
            anchors.setdefault(m.group("anchor"), m.group("value"))
    if len(literals) < 2:
        return sorted(edits)
    if "$" in text:
        for m in _SHELL_REFS.finditer(text):
            names = _SHELL_REF.findall(m.group())
            if all(n in literals for n in names):
                edits.append((m.start(), m.end(), "".join(literals[n] for n in names)))
    if anchors and "*" in text:
        for m in _ALIAS_LIST.finditer(text):
            names = _ALIAS.findall(m.group())
            if all(n in anchors for n in names):
                edits.append((m.start(), m.end(), "".join(anchors[n] for n in names)))
    if "{" in text:
        for m in _BRACE_REFS.finditer(text):
            names = _BRACE_REF.findall(m.group())
            if all(n in literals for n in names):
                edits.append((m.start(), m.end(), "".join(literals[n] for n in names)))
    if "join(" in text:
        for m in _JOIN_CALL.finditer(text):
            names = _SUMMAND.findall(m.group("names"))
            if all(n in literals for n in names):
                edits.append((m.start(), m.end(), '"' + "".join(literals[n] for n in names) + '"'))
    if "+" in text:
        for m in _SUM.finditer(text):
            names = _SUMMAND.findall(m.group())
            if all(n in literals for n in names):
                edits.append((m.start(), m.end(), '"' + "".join(literals[n] for n in names) + '"'))
    return sorted(edits)


# A list of three strings or more, each a piece of a token (no blank in it)
_PIECE_LINE = (r"[ \t]{0,8}(?:[-*][ \t]{1,4})?[A-Za-z][\w .-]{0,30}:[ \t]{1,4}(?:&[\w-]{1,40}[ \t]{1,4})?[`\"']?"
               r"[A-Za-z0-9+/_=.~-]{2,200}[`\"']?[ \t]{0,4}")
_PIECE_LINES = lazy(r"(?m)^" + _PIECE_LINE + r"(?:\r?\n" + _PIECE_LINE + r"){1,7}$")
_PIECE_VALUE = lazy(r":[ \t]{1,4}(?:&[\w-]{1,40}[ \t]{1,4})?[`\"']?([A-Za-z0-9+/_=.~-]{2,200})")
_STRING_LIST = lazy(r"\[(?:[ \t\r\n]{0,8}(?P<q>[\"'])[A-Za-z0-9+/_=.~-]{2,64}(?P=q)[ \t]{0,4},){2,31}"
                    r"[ \t\r\n]{0,8}[\"'][A-Za-z0-9+/_=.~-]{2,64}[\"'][ \t\r\n]{0,8},?[ \t\r\n]{0,8}\]")
_LIST_ITEM = lazy(r"[\"']([^\"'\s]{1,64})[\"']")
_ITEMS = r"(?P<items>(?:[ \t]{0,4}[\"'][^\"'\s]{1,64}[\"'][ \t]{0,4},){1,31}[ \t]{0,4}[\"'][^\"'\s]{1,64}[\"'][ \t]{0,4},?[ \t]{0,4})"
_JOINED_LITERALS = (lazy(r"[\"']{2}[ \t]{0,2}\.join\([ \t]{0,4}[\[(]" + _ITEMS + r"[\])][ \t]{0,4}\)"),
                    lazy(r"\[" + _ITEMS + r"\]\.join\([ \t]{0,4}(?:[\"']{2})?[ \t]{0,4}\)"))


# a JWT pasted one part a line (a chat or a terminal broke it at its dots): header, payload, signature
_JWT_LINES = lazy(r"e(?<![A-Za-z0-9_-]e)(yJ[A-Za-z0-9_-]{8,1000})[ \t]{0,4}\r?\n[ \t]{0,8}(eyJ[A-Za-z0-9_-]{2,8000})[ \t]{0,4}\r?\n"
                  r"[ \t]{0,8}([A-Za-z0-9_-]{8,1000})(?![A-Za-z0-9_-])")


def joined_lists(text: str) -> list[Edit]:
    """Each list of three short strings or more, as the strings joined: the caller reads the join
    with the provider formats only (a list of names or ids joined is no credential, a Stripe key
    cut into pieces is one). A JWT's three parts on three lines are joined at their dots."""
    edits = []
    if "[" in text and text.count(",") >= 2:
        edits = [(m.start(), m.end(), '"' + "".join(_LIST_ITEM.findall(m.group())) + '"') for m in _STRING_LIST.finditer(text)]
    if text.count("\n") >= 1 and text.count(":") >= 2:
        # the values of labelled lines in a row, each one token (`- prefix: `glpat-`` then `- body: `...``)
        for m in _PIECE_LINES.finditer(text):
            values = _PIECE_VALUE.findall(m.group())
            edits.append((m.start(), m.end(), "".join(values)))
    if "eyJ" in text and "\n" in text:
        edits.extend((m.start(), m.end(), "e" + ".".join(m.groups())) for m in _JWT_LINES.finditer(text))
    return sorted(edits)


# a word a token could be written backwards in: token characters, a letter and a digit among them
# (three changes between letters and digits at least: a random token's, not a slug's `notes-2024`)
_TOKEN_WORD = lazy(r"(?=[^0-9]*[0-9])(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9_=-]+")
_CLASS_CHANGE = lazy(r"[0-9][A-Za-z]|[A-Za-z][0-9]")


def reversed_words(text: str, min_len: int = 20) -> View | None:
    """The words of ``text`` of ``min_len`` characters or more made of token characters, each
    written backwards, one to a line (a Slack token reversed ends in ``bxox``); a span in a word
    maps to the whole word."""
    if len(text) < min_len:
        return None
    spans = [(start, end) for start, end in long_words(text, min_len)
             if _TOKEN_WORD.fullmatch(text, start, end) and len(_CLASS_CHANGE.findall(text, start, end)) >= 3]
    if not spans:
        return None
    view = View("")
    parts = []
    n = 0
    for start, end in spans:
        word = text[start:end][::-1]
        view.add(word, start, end - start, verbatim=False, at=n)
        parts.append(word + "\n")
        n += len(word) + 1
    view.text = "".join(parts)
    return view


_ROT13 = str.maketrans(string.ascii_lowercase + string.ascii_uppercase,
                       string.ascii_lowercase[13:] + string.ascii_lowercase[:13]
                       + string.ascii_uppercase[13:] + string.ascii_uppercase[:13])
# credential words as rot13 writes them ("cnffjbeq" is "password"), no word of any language
_ROT13_WORDS = tuple(w.translate(_ROT13) for w in ("passw", "passphrase", "secret", "token", "apikey", "api_key",
                                                   "api-key", "private_key", "credential"))


def rot13(text: str) -> View | None:
    """``text`` in rot13 when it holds a credential's word in rot13 (the view maps one to one)."""
    low = text.lower()
    for w in _ROT13_WORDS:  # (a plain loop: this runs on every text the gate reads)
        if w in low:
            break
    else:
        return None
    return View(text.translate(_ROT13))
