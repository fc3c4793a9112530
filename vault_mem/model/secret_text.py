"""The forms of a text the secret rules read: normalised, re-joined and decoded, each mapped back.

A credential does not stop being one when it is disguised, so before the rules run a text is
brought to the form a person would read or a program would use:

- :func:`normalise`: NFKC (full-width ``：`` and ``ｇｈｐ`` become ``:`` and ``ghp``), format
  characters dropped (zero-width space and joiner, word joiner, BOM, soft hyphen, bidi marks) and
  Cyrillic and Greek letters that look like Latin ones folded to them.
- :func:`join_wrapped`: a token wrapped over lines (a JWT broken every 64 characters, a key split
  into ``"abc" +`` / ``"def"`` string pieces, a ``\\`` line continuation) joined back. Only breaks
  between token-like runs are joined, so prose keeps its lines.
- :func:`encoded_runs`: base64 (gzipped or not) and URL-encoded runs that decode to mostly
  printable text, for the caller to scan again (bounded in depth and size by the caller).
The disguises a person uses (spelled out, character codes, backwards, rot13) are undone in
:mod:`vault_mem.model.secret_disguises`. Each form is a :class:`View` that maps a span of its text back to the text it came from, so a
finding points at the original characters (a wrapped token's span covers its line breaks).
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
import string
import unicodedata
import zlib
from collections.abc import Callable, Iterator
from functools import lru_cache
from urllib.parse import unquote

from vault_mem.model.lazy_patterns import lazy

__all__ = ["View", "encoded_runs", "join_wrapped", "last_match_start", "lines_holding", "long_words",
           "normalise"]

class View:
    """A text derived from another, with the map from its offsets to the other's.

    The map is a list of pieces: piece ``i`` starts at ``outs[i]`` in this text and came from
    ``origs[i]`` (``olens[i]`` characters) in the source; a verbatim piece maps character for
    character, any other maps as a whole. No pieces means the identity.
    """

    __slots__ = ("build", "olens", "origs", "outs", "parent", "text", "verbatim")

    def __init__(self, text: str, parent: View | None = None,
                 build: Callable[[View], None] | None = None) -> None:
        self.text = text
        self.parent = parent
        self.build = build  # fills the map when first needed (most texts hold no finding)
        self.outs: list[int] = []
        self.origs: list[int] = []
        self.olens: list[int] = []
        self.verbatim: list[bool] = []

    def add(self, out: str, orig: int, olen: int, *, verbatim: bool, at: int) -> None:
        """Record that ``out`` (placed at offset ``at`` of this text) came from ``orig``."""
        if not out:
            return
        if (verbatim and self.verbatim and self.verbatim[-1] and self.origs[-1] + self.olens[-1] == orig
                and self.outs[-1] + self.olens[-1] == at):
            self.olens[-1] += olen  # extend the previous verbatim piece
            return
        self.outs.append(at)
        self.origs.append(orig)
        self.olens.append(olen)
        self.verbatim.append(verbatim)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """``text[start:end]`` as a span of the root text (the one with no parent)."""
        if self.build:
            self.build(self)
            self.build = None
        if self.outs:
            i = max(0, bisect.bisect_right(self.outs, start) - 1)
            start = self.origs[i] + (start - self.outs[i] if self.verbatim[i] else 0)
            j = max(0, bisect.bisect_right(self.outs, end - 1) - 1)
            end = self.origs[j] + (end - self.outs[j] if self.verbatim[j] else self.olens[j])
        return self.parent.span(start, end) if self.parent else (start, end)


# --- normalising ---------------------------------------------------------------------------

# Letters of other scripts drawn like Latin ones (Unicode's confusables for these scripts,
# the ones a font renders the same); folding them makes `АKIA` with a Cyrillic А an AWS key.
_HOMOGLYPHS = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i", "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q",
    "ԝ": "w", "ү": "y", "ɡ": "g", "ӏ": "l",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "У": "Y", "Ѕ": "S", "І": "I", "Ј": "J", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
    # Greek
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X", "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "i", "κ": "k",
    "υ": "u", "χ": "x", "τ": "t", "ϲ": "c", "ϳ": "j",
    # quotation marks of other typographies quote a value as ASCII quotes do: French « X »,
    # German „X“, typographers' “X” and ‘X’, Japanese 「X」 (an apostrophe stays one: "it’s")
    "«": '"', "»": '"', "“": '"', "”": '"', "„": '"', "‟": '"', "‹": "'", "›": "'", "「": '"', "」": '"',
    "『": '"', "』": '"', "‘": "'", "’": "'", "‚": "'", "‛": "'",
})
_NON_ASCII = lazy(r"[^\x00-\x7f]+")
# Format characters (Unicode category Cf) and the homoglyphs: text already NFKC without any of
# these is its own normal form, and skips the per-character pass.
_FORMAT_RANGES = ((0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
                  (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x2064),
                  (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD), (0x110CD, 0x110CD),
                  (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F))
_FOLD_CANDIDATES = tuple(
    [chr(c) for lo, hi in _FORMAT_RANGES for c in range(lo, hi + 1)] + [chr(c) for c in _HOMOGLYPHS]
)
_CHANGED_BY_FOLD = lazy("[" + "".join(re.escape(ch) for ch in _FOLD_CANDIDATES) + "]")


@lru_cache(maxsize=8192)
def _fold(ch: str) -> str:
    if unicodedata.category(ch) == "Cf":
        return ""  # zero-width space/joiners, word joiner, BOM, soft hyphen, bidi controls
    return unicodedata.normalize("NFKC", ch).translate(_HOMOGLYPHS)


def fold(text: str) -> str:
    """``text`` folded as :func:`normalise` folds it, without the map back (for word tables)."""
    return "".join(_fold(ch) for ch in text)


def _map_folds(view: View, text: str, changed: set[str]) -> None:
    """The map of ``normalise(text)`` back to ``text``: each folded character as a piece."""
    n = pos = 0
    for i, ch in enumerate(text):
        if ch in changed:
            if i > pos:
                view.add(text[pos:i], pos, i - pos, verbatim=True, at=n)
                n += i - pos
            folded = _fold(ch)
            view.add(folded, i, 1, verbatim=False, at=n)
            n += len(folded)
            pos = i + 1
    if pos < len(text):
        view.add(text[pos:], pos, len(text) - pos, verbatim=True, at=n)


def normalise(text: str) -> View:
    """``text`` as NFKC with format characters dropped and homoglyphs folded (see the docstring),
    character by character (so each maps back); the map is built only if a span is asked for.
    ASCII text, and text with nothing to fold, is returned as is.
    """
    if text.isascii():
        return View(text)
    nfkc = unicodedata.is_normalized("NFKC", text)
    if nfkc and not _CHANGED_BY_FOLD.search(text):
        return View(text)
    # Fold each distinct character that changes once, then replace it throughout with
    # str.replace, which runs in C (a translate table or a regex over the whole text costs far
    # more). NFKC text (Cyrillic or Greek prose) can only hold the few characters listed above.
    if nfkc:
        changed = {ch for ch in _FOLD_CANDIDATES if ch in text}
    else:
        changed = {ch for ch in set("".join(_NON_ASCII.findall(text))) if _fold(ch) != ch}
    if not changed:
        return View(text)
    folded = text
    for ch in changed:
        folded = folded.replace(ch, _fold(ch))
    return View(folded, build=lambda view: _map_folds(view, text, changed))


# --- where a pattern can match ----------------------------------------------------------------


def lines_holding(text: str, words: tuple[str, ...], also: tuple[str, ...] = ()) -> list[tuple[int, int]]:
    """``(start, end)`` of each line of ``text`` that holds one of ``words`` (and, if ``also`` is
    given, one of those too), in order, each once: the only places a pattern that stays on one
    line and needs those words can match. Run it on the lowercased text for words of any case.

    A pattern that starts with a look-behind or an alternation of words in any case gives the
    regex engine no literal to skip to, so a pass over an 80 KB memory tries every position
    (3-15 ms a pattern); a substring search runs in C and is over 100 times cheaper, and the
    pattern then reads only the few lines that hold its words (``pattern.finditer(text, start,
    end)``: a look-behind still sees the line break before ``start``). Each line is found once
    per word, so a text that holds a word on every line costs one search per line.
    """
    starts: set[int] = set()
    for word in words:
        at = text.find(word)
        while at >= 0:
            starts.add(text.rfind("\n", 0, at) + 1)
            nl = text.find("\n", at + len(word))
            at = text.find(word, nl) if nl >= 0 else -1
    spans = []
    for start in sorted(starts):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if not also or any(w in text[start:end] for w in also):
            spans.append((start, end))
    return spans


def long_words(text: str, min_len: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each word of ``text`` (a run between white space) of ``min_len``
    characters or more, in order: where a token pattern that holds no white space can match.
    ``text.split()`` runs in C, where a regex for long runs tried at every position of a page of
    prose would not (0.5-1 ms for 80 KB against 2-4 ms)."""
    spans = []
    cursor = 0
    for word in text.split():
        if len(word) >= min_len:
            at = text.find(word, cursor)
            cursor = at + len(word)
            spans.append((at, cursor))
    return spans


# --- re-joining wrapped tokens -------------------------------------------------------------

_TOKEN_CHAR = "A-Za-z0-9_+/=.-"
# Where a token may be broken: a line break (and the indentation after it), with a `\` before it
# or a string literal closed before it and reopened after (`"abc" +\n "def"`, `'abc'\n'def'`), or
# `"abc" + "def"` on one line. Each search starts at a mandatory character (a newline, a quote),
# so the engine skips between them; what precedes a newline is read from the reversed text.
_NEWLINE = lazy(r"\n[ \t]{0,64}")
_BEFORE_NEWLINE = lazy(r"\r?(?:\\|[ \t]{0,8}\+?[ \t]{0,8}([\"']))?")  # matched on the reversed text
_BEFORE_BREAK = frozenset("\\\r\"' \t+")
_REOPEN = lazy(r"\+?[ \t]{0,8}[\"']")
_CONCAT = lazy(r"[\"'][ \t]{0,8}\+[ \t]{0,8}[\"']")
_RUN = lazy(rf"[{_TOKEN_CHAR}]{{1,64}}")
_IS_TOKEN_CHAR = frozenset(string.ascii_letters + string.digits + "_+/=.-")
_KEYISH = lazy(r"[0-9_+/=-]|.[A-Z]")


def _token_like(run: str, *, tail: bool = False) -> bool:
    """A run that could be part of a key: digits, key punctuation, inner capitals or length (the
    last piece of a wrapped token may be short)."""
    return (tail or len(run) >= 4) and (len(run) >= 20 or _KEYISH.search(run) is not None)


def _breaks(text: str, backwards: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each place a token may be broken: a newline after a token character, or
    after a backslash, a carriage return or a closed string literal (reopened after it)."""
    n = len(text)
    for m in _NEWLINE.finditer(text):
        start, end = m.start(), m.end()
        if not start:
            continue
        last = text[start - 1]
        if last in _BEFORE_BREAK:
            before = _BEFORE_NEWLINE.match(backwards, n - start)
            start = n - before.end()
            if before.group(1):  # a closed string: it must reopen after the break
                reopen = _REOPEN.match(text, end)
                if not reopen:
                    continue
                end = reopen.end()
        elif last not in _IS_TOKEN_CHAR:
            continue
        yield start, end
    if "+" in text:
        yield from ((m.start(), m.end()) for m in _CONCAT.finditer(text))


def join_wrapped(text: str) -> View | None:
    """``text`` with wrapped tokens joined, mapped back to ``text``; None if nothing was joined.

    Only a break between two token-like runs is joined (the one before at least 4 characters,
    both with a digit, key punctuation or inner capitals), so prose keeps its lines.
    """
    if "\n" not in text and "+" not in text:
        return None
    backwards = text[::-1]  # the run before a break is the run after it, reversed
    joined: list[str] = []
    view = View("")
    n = pos = 0
    for start, end in sorted(_breaks(text, backwards)):
        if start < pos or not start or text[start - 1] not in _IS_TOKEN_CHAR:
            continue
        after = _RUN.match(text, end)
        if not after or len(after.group()) < 2 or not _token_like(after.group(), tail=True):
            continue
        before = _RUN.match(backwards, len(text) - start)
        if not before or not _token_like(before.group()):
            continue
        joined.append(text[pos:start])
        view.add(joined[-1], pos, start - pos, verbatim=True, at=n)
        n += start - pos
        pos = end
    if not joined:
        return None
    joined.append(text[pos:])
    view.add(joined[-1], pos, len(text) - pos, verbatim=True, at=n)
    view.text = "".join(joined)
    return view


# --- decoding ------------------------------------------------------------------------------

# finditer tries a run at its first character and, if it is too short, at each later one: every
# suffix is shorter still, so no look-behind is needed to start at a run's start.
_B64_RUN = lazy(r"[A-Za-z0-9+/]{16,}={0,2}")
_B64URL_RUN = lazy(r"[A-Za-z0-9_-]{16,}")
_MIXED = lazy(r"(?=[^0-9]*[0-9])(?=[^A-Z]*[A-Z])[^a-z]*[a-z]")
_PCT = lazy(r"%[0-9A-Fa-f]{2}")
_RUN_END = lazy(r"[\s\"'<>`]")
_NOT_IN_RUN = frozenset(" \t\r\n\v\f\"'<>`")
_UNPRINTABLE = lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufffd]")
_MAX_RUN = 64 * 1024  # longer runs are data (an embedded image), not a wrapped credential


def _printable(decoded: str) -> bool:
    """Mostly printable text: what an encoded credential or config decodes to, unlike a hash."""
    return len(decoded) >= 8 and len(_UNPRINTABLE.findall(decoded)) <= len(decoded) // 20


def _b64decode(run: str, *, urlsafe: bool) -> str | None:
    body = run.rstrip("=")
    if len(body) % 4 == 1:
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if urlsafe else base64.b64decode(padded, validate=True)
        decoded = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return decoded if _printable(decoded) else None


def encoded_runs(text: str) -> Iterator[tuple[int, int, str, str]]:
    """(start, end, decoded text, encoding) for each base64 or URL-encoded run of ``text`` that
    decodes to mostly printable text; the caller scans the decoded text again."""
    # Runs are looked for only inside words of 16 characters or more: text.split() runs in C,
    # where a regex tried at every position of a page of prose would not.
    for start, end in long_words(text, 16):
        yield from _base64_runs(text, start, end)
    yield from _url_encoded(text)


def _gunzip(run: str) -> str | None:
    """The text a gzip+base64 run (``H4sI...``, how a ``.env`` is passed through a CI variable)
    holds, read up to :data:`_MAX_RUN` characters (a small bomb stops there)."""
    try:
        raw = base64.b64decode(run + "=" * (-len(run.rstrip("=")) % 4), validate=False)
        inflated = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(raw, _MAX_RUN)
        decoded = inflated.decode("utf-8", errors="replace")
    except (binascii.Error, ValueError, zlib.error):
        return None
    return decoded if _printable(decoded) else None


def _base64_runs(text: str, lo: int, hi: int) -> Iterator[tuple[int, int, str, str]]:
    for m in _B64_RUN.finditer(text, lo, hi):
        run = m.group()
        if run.startswith("H4sI") and len(run) <= _MAX_RUN:
            decoded = _gunzip(run)
            if decoded is not None:
                yield m.start(), m.end(), decoded, "gzip+base64"
                continue
        # Words and identifiers are runs too; base64 of text shorter than 32 has a digit or symbol.
        if len(run) <= _MAX_RUN and not (len(run) < 32 and run.isalpha()):
            decoded = _b64decode(run, urlsafe=False)
            if decoded is not None:
                yield m.start(), m.end(), decoded, "base64"
    for m in _B64URL_RUN.finditer(text, lo, hi):
        run = m.group()
        # Only runs the plain alphabet split ('-' or '_' inside), and not snake_case names.
        if ("-" in run or "_" in run) and len(run) <= _MAX_RUN and _MIXED.match(run):
            decoded = _b64decode(run, urlsafe=True)
            if decoded is not None:
                yield m.start(), m.end(), decoded, "base64"


def _url_encoded(text: str) -> Iterator[tuple[int, int, str, str]]:
    """Runs (between spaces and quotes) holding %XX escapes, found from each escape outwards."""
    done = 0
    for m in _PCT.finditer(text):
        if m.start() < done:
            continue
        start = m.start()
        limit = max(done, start - _MAX_RUN)
        while start > limit and text[start - 1] not in _NOT_IN_RUN:
            start -= 1
        stop = _RUN_END.search(text, m.end())
        end = stop.start() if stop else len(text)
        done = end
        if end - start <= _MAX_RUN:
            run = text[start:end]
            decoded = unquote(run, errors="replace")
            # (an escape that decodes to no character of UTF-8 is no URL-encoding: Windows'
            # `%DB_PASSWORD%` reads as the byte 0xDB, a variable's name, not a value)
            if "\ufffd" not in decoded and _printable(decoded):
                yield start, end, decoded, "URL"


def last_match_start(pattern, text: str, start: int, end: int) -> int:
    """The last position in ``[start, end)`` where ``pattern`` matches inside ``text[:end]``, or -1:
    ``pattern.search(text, pos, end)`` finds a match exactly when ``pos`` is at most that. One
    pass over the span instead of one search per ``pos``. For a pattern with no look-behind and
    no anchor (a match at a position does not depend on where the search began)."""
    last = None
    for last in pattern.finditer(text, start, end):
        pass
    if last is None:
        return -1
    # no match starts at or after the last one's end (finditer would have found it); one that
    # starts inside it, overlapping it, may
    for pos in range(last.end() - 1, last.start(), -1):
        if pattern.match(text, pos, end):
            return pos
    return last.start()
