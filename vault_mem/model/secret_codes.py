"""Recovery codes, one-time password seeds, recovery keys and PINs.

- :func:`listed_codes`: recovery codes listed under their label, a TOTP seed in groups or in its file.
- :func:`one_codes`: one code or seed on its label's line ("Okta recovery code: X").
- :func:`labelled_codes` and :func:`code_list`: a memory whose description names codes, its body the codes.
- :func:`recovery_keys`: BitLocker's recovery key (by its checksum) and other recovery keys.
- :func:`pin_codes`: PINs, PUKs, passcodes and door codes of four digits or more.

Each finder yields ``(kind, start, end)``; values are judged with
:mod:`vault_mem.model.secret_judge` and :mod:`vault_mem.model.secret_values`.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_commands import HOST_OR_MAIL
from vault_mem.model.secret_judge import CODES_LABEL, CODE_KINDS, near_stop
from vault_mem.model.secret_names import Span
from vault_mem.model.secret_near import ASIDE_STOP

from vault_mem.model.secret_phrases import PHRASE_LABEL, word_phrase
from vault_mem.model.secret_text import lines_holding
from vault_mem.model.secret_values import is_wordy, looks_fake, shannon_entropy

__all__ = ["code_list", "labelled_codes", "listed_codes", "one_codes", "pin_codes", "recovery_keys"]

# --- codes listed under their label -----------------------------------------------------------

# "Recovery codes:" then codes; "2FA seed: abcd efgh ..." (a TOTP secret in base32, grouped).
# In a memory's description, the label makes its body a password by another name.
_OTP_WORDS = ("otp", "2fa", "mfa", "authenticator", "oath", "setup key")
# ("setup key" alone: what an authenticator app calls the seed typed in instead of a QR code)
_OTP_LABEL = lazy(r"(?:t?(?:otp|2fa|mfa|authenticator|oath)(?:tool)?)(?:[ _-]?(?:secret|seed|key|setup key))?(?![a-z])"
                  r"|(?<![a-z])setup[ _-]key(?![a-z])")
# (up to four groups, as Cloudflare's `oy4n-8s83-88l0`; a group up to 16, as GitLab's hex codes)
_CODE = lazy(r"(?<![\w-])(?=[a-z-]{0,24}[0-9])(?=[0-9-]{0,24}[a-z])[a-z0-9]{4,16}(?:-[a-z0-9]{4,12}){0,3}(?![\w-])")
# a code alone on its line (numbered or bulleted or not): letters, digits, or up to four groups of them
# (`wxgjo-chqps`, `4989 9420`, `84215371`, `oy4n-8s83-88l0`), or hex up to 64 (npm's recovery codes),
# so codes of letters alone count when listed
_CODE_LINE = lazy(r"[ \t]{0,8}(?:[-*•]|[0-9]{1,2}[.)])?[ \t]{0,4}(?P<code>[a-z0-9]{4,16}(?:[- ][a-z0-9]{3,10}){0,3}|[0-9a-f]{17,64})[ \t,;]*\r?$",
                  re.MULTILINE)
_BASE32_GROUPS = lazy(r"(?<![a-z0-9])[a-z2-7]{4,8}(?:[ -][a-z2-7]{4,8}){3,15}(?![a-z0-9])")
# a TOTP secret written whole (`totp_seed: 37NB...`, `oathtool --totp -b X`): base32 of 16 to 128
_BASE32_RUN = lazy(r"(?<![a-z0-9+/_-])[a-z2-7]{16,128}={0,6}(?![a-z0-9+/_-])")
# the sign between an OTP label and its seed, on the label's line: a colon, `=`, or "is"/"was"
_OTP_SIGN = lazy(r"[^\n]{0,40}?(?::|=|(?<![a-z])(?:is|was)(?= ))")
_BARE_CODES_LABEL = lazy(r"(?<![a-z])(?:recovery|backup)[ \t]{0,2}:")  # "MFA recovery:", with no word "codes"
# a seed alone on its line, and on the next an authenticator's option behind `" ` (a seed file's layout)
_SEED_FILE = lazy(r'(?m)^(?P<seed>[A-Z2-7]{16,128})[ \t]*\r?\n" [A-Z_]{4,30}(?![A-Za-z])')
_OTP_REACH = 64  # the seed follows its label on its line within this many characters
_CODES_SPAN = 400  # the codes follow their label within this many characters


def _code_shape(code: str) -> tuple[str, ...]:
    """A code's layout (``wxgjo-chqps`` -> ``a5-a5``; ``4989 9420`` -> ``d4 d4``): the codes of one
    list share it."""
    return tuple(("d" if part.isdigit() else "a") + str(len(part)) for part in re.split(r"[- ]", code)) + \
        tuple(c for c in code if c in "- ")


def _listed_lines(low: str, start: int, end: int) -> list[re.Match[str]]:
    """The codes alone on their lines right below ``start`` (blank lines allowed), of one shape."""
    nl = low.find("\n", start, end)
    out: list[re.Match[str]] = []
    at = nl + 1 if nl >= 0 else end
    account = True  # (the account the codes are for may head them: Google prints its address first)
    while at < end:
        m = _CODE_LINE.match(low, at)
        if not m:
            line = low[at:low.find("\n", at) if low.find("\n", at) >= 0 else len(low)].strip()
            if line and not (account and not out and HOST_OR_MAIL.fullmatch(line) and "@" in line):
                break
            account = account and not line
        elif out and _code_shape(m.group("code")) != _code_shape(out[0].group("code")):
            break
        else:
            out.append(m)
        nxt = low.find("\n", at)
        if nxt < 0:
            break
        at = nxt + 1
    return out


# one code after its label ("Recovery code:" and four groups of letters and digits, "backup code is"
# two groups of four digits)
# (the account it is for may stand between in brackets: "recovery code (Microsoft account): X")
_ONE_CODE = lazy(r"(?:[ \t]{0,4}\([^()\n]{1,40}\))?[ \t]{0,4}(?:[:=]|is|was)?[ \t]{0,4}[`'\"]?(?P<code>[a-z0-9]{3,8}(?:[- ][a-z0-9]{3,8}){1,7})(?![\w-])")


# Codes written on one line after their label, or as a field of their own: split at commas,
# semicolons, runs of two spaces or more, or line breaks (`50542207, 85845438, ...`, Google's
# `9187 8931  9124 7460`, GitHub's `64734-d7d01` one to a line)
_CODE_SPLIT = lazy(r"[ \t]*[,;|][ \t]*|[ \t]{2,}|[ \t]*\r?\n[ \t]*(?:[-*•][ \t]{1,4}|[0-9]{1,2}[.)][ \t]{1,4})?")
# (or hex of 16 to 64 digits alone: npm's and GitLab's codes)
_ONE_OF_CODES = lazy(r"[a-z0-9]{4,12}(?:[- ][a-z0-9]{3,12})?|[0-9a-f]{16,64}")
_FIRST_BULLET = lazy(r"\A(?:[-*•][ \t]{1,4}|[0-9]{1,2}[.)][ \t]{1,4})")
# (whose codes they are may stand before the colon: "backup codes for ana@corp.dev: X, Y, Z", or
# an aside in parentheses: "backup codes (shared admin): X, Y, Z")
_CODES_HEAD = lazy(r"(?:[ \t]{1,4}(?:for|of|on|from)[ \t][^\n:]{1,80}?(?=:)|[ \t]{0,4}(?P<aside>\([^\n()]{1,80}\))(?=[ \t]{0,4}[:=]))?[ \t]{0,4}(?:[:=]|are|were)?[ \t]{0,4}(?:\r?\n[ \t]{0,8})?")


def code_list(value: str) -> bool:
    """Is ``value`` (lowercased, trimmed) three codes or more of one layout and nothing else, random
    ones (see :func:`_random_codes`)? Codes are judged by their lengths, not by their letters: a
    hex code's groups are digits in one and letters in the next."""
    value = _FIRST_BULLET.sub("", value.strip(" \t\r\n."))  # (the list's first bullet: "- 7nvd-vadz\n- ...")
    codes = [c for c in _CODE_SPLIT.split(value) if c]
    if len(codes) < 3 or not all(_ONE_OF_CODES.fullmatch(c) for c in codes):
        # (codes of one length apart by single spaces, "1369106d7363a2cc b55c2f58001d7358 ...")
        codes = value.split()
        if len(codes) < 4 or len({len(c) for c in codes}) != 1 or len(codes[0]) < 8 \
                or not all(_ONE_OF_CODES.fullmatch(c) for c in codes):
            return False
    layout = {tuple(len(g) for g in re.split(r"[- ]", c)) for c in codes}
    if len(layout) != 1:
        return False
    # (hex codes, GitHub's `64734-d7d01`: a group may be all digits, the list is letters and digits)
    joined = "".join(codes).replace("-", "").replace(" ", "")
    hexed = all(c in "0123456789abcdef" for c in joined) and 5 * sum(c.isalpha() for c in joined) >= len(joined) \
        and len(set(codes)) == len(codes) and len(codes[0]) >= 8
    return hexed or _random_codes(codes)


def _inline_codes(low: str, at: int) -> tuple[int, int] | None:
    """The codes after a codes label at ``at`` on its line, or alone on the line below it."""
    head = _CODES_HEAD.match(low, at)
    if head and head.group("aside") and ASIDE_STOP.search(head.group("aside")):
        return None  # "backup codes (example from the docs): ...": the aside says what they are, as after any label
    start = head.end() if head else at
    end = low.find("\n", start)
    end = len(low) if end < 0 else end
    if end - start > _CODES_SPAN:
        return None
    value = low[start:end].rstrip(" \t\r.")
    return (start, start + len(value)) if value and code_list(value) else None


def labelled_codes(label: str, value: str) -> str | None:
    """The finding's kind when ``label`` (a memory's key, description and tags) names recovery or
    backup codes, a recovery key, a recovery phrase or a one-time password's seed and ``value``
    (its body, or a field) holds them alone: a list of codes, one grouped key
    (``Q9YS-OWKX-2ON5-...``), a phrase's words in any language, a base32 seed in groups."""
    low = label.lower()
    # (substring tests first, in C: most labels name none of these)
    codes = "code" in low and CODES_LABEL.search(low)
    key = any(w in low for w in _RECOVERY_WORDS) and _RECOVERY_KEY.search(low)
    phrase = any(w in low for w in _PHRASE_STEMS) and PHRASE_LABEL.search(low)
    if not (codes or key or phrase or any(w in low for w in _OTP_WORDS)):
        return None  # (the label is short; the value may be a whole body)
    value = value.strip()
    first = value[:value.find("\n\n")].strip() if "\n\n" in value else value
    if not first:
        return None
    if codes and code_list(first.lower()):
        return "recovery codes named by the memory's description"
    if key and _KEY_GROUPS.fullmatch(first) and _grouped_key(first):
        return "recovery key named by the memory's description"
    if key and _DIGIT_KEY.fullmatch(first) and len(set(first.split("-"))) >= 6:
        # BitLocker's recovery key: eight groups of six digits (a date or a phone number has no six groups)
        return "recovery key named by the memory's description"
    if phrase and word_phrase(first):
        return "seed phrase named by the memory's description"
    if any(w in low for w in _OTP_WORDS) and _OTP_LABEL.search(low):
        seed = _BASE32_GROUPS.fullmatch(first.lower())
        joined = first.lower().replace(" ", "").replace("-", "")
        if seed and len(joined) >= 16 and any(c.isdigit() for c in joined) and not is_wordy(first) \
                and _base32_secret(joined):
            return "TOTP secret named by the memory's description"
    return None


_RECOVERY_WORDS = ("recover", "rescue", "backup", "restore", "wiederh", "cup")
# (stems of PHRASE_LABEL's words)
_PHRASE_STEMS = ("seed", "mnem", "mném", "phrase", "frase", "semil", "semen", "graine", "palabr", "mots", "wiederh", "wört",
                 "woord", "parole", "herstel", "слов", "фраз")
# "recovery key", "rescue key", "backup key", "Wiederherstellungsschlüssel": a key to get an account back
_RECOVERY_KEY = lazy(r"(?:recovery|rescue|backup|restore|wiederherstellung\w{0,10}|r[ée]cup[ée]ration|recuperaci[óo]n)"
                     r"[ _-]?(?:key|schl[üu]ssel|cl[ée]|clave)")


# One code on the line of a recovery code's or a one-time password seed's label ("Okta recovery
# code: X", "OTP secret: X", "the authenticator's setup key is X"): base32 of sixteen characters or
# more, or upper-case letters and digits of twenty or more; hex is left to the digest rules
_ONE_CODE_LABEL = lazy(r"(?i:(?<![\w-])(?:(?:recovery|backup|emergency|revocation|rescue)[ _-]?(?:code|key)|totp|otp|2fa|mfa|authenticator"
                       r"|setup[ _-]?key)(?![\w-]))")
_SEED_RUN_UPPER = lazy(r"(?<![\w-])[A-Z0-9]{16,64}(?![\w-])")
_HEX_UPPER = lazy(r"[0-9A-F]+")


# one lower-case code of letters and digits after its label, whose account may stand between
# ("backup code for @acme_ops: 26lfh6o4mu1s", X's and Dropbox's twelve characters): after a sign, alone
# to the sentence's end, letters and digits mixed through it, not hex (a commit's short id); the words
# between may name only its account ("for @x", "(personal)")
_LOWER_CODE = lazy(r"(?:[ \t]{1,4}(?:for|of|on|at|to)[ \t]{1,4}[^\s:]{1,40}|[ \t]{0,4}\([^()\n]{1,40}\))?"
                   r"[ \t]{0,4}(?:[:=]|(?<![a-z])(?:is|was)(?![a-z]))[ \t]{0,4}[`'\"]?(?P<code>[a-z0-9]{8,16})[`'\"]?"
                   r"(?=[ \t]*(?:[.,;)]|\r?$|\Z)|[ \t]{1,4}\()", re.MULTILINE)
_HEX_LOWER = lazy(r"[0-9a-f]+")
# one short code of capitals and digits straight after a recovery or revocation code's label, sign or
# none ("Steam Guard revocation code R19002 — needed to remove it"): a letter and four digits at least
_SHORT_CODE = lazy(r"[ \t]{0,4}(?:[:=]|is(?![a-z]))?[ \t]{0,4}[`'\"]?(?P<code>[A-Z0-9]{5,12})(?![\w-])")


def one_codes(text: str) -> Iterator[Span]:
    """A single recovery code or one-time password seed on its label's line (see above)."""
    for m in _ONE_CODE_LABEL.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        if end - start > 400:
            continue
        short = _SHORT_CODE.match(text, m.end(), end)
        if short and "code" in m.group().lower():
            code = short.group("code")
            if sum(ch.isdigit() for ch in code) >= 4 and any(ch.isalpha() for ch in code) and not looks_fake(code):
                yield "one-time password seed or recovery code", short.start("code"), short.end("code")
                return
        low = _LOWER_CODE.match(text, m.end(), end)
        if low:
            code = low.group("code")
            letters, digits = sum(ch.isalpha() for ch in code), sum(ch.isdigit() for ch in code)
            # (letters and digits mixed through it, not a word and a number: `release2024`)
            mixed = len(re.findall(r"[a-z]+", code)) >= 2 and len(re.findall(r"[0-9]+", code)) >= 2
            if letters >= 3 and digits >= 3 and mixed and not _HEX_LOWER.fullmatch(code) \
                    and not looks_fake(code):
                yield "one-time password seed or recovery code", low.start("code"), low.end("code")
                return
        for c in _SEED_RUN_UPPER.finditer(text, start, end):
            code = c.group()
            letters, digits = sum(ch.isalpha() for ch in code), sum(ch.isdigit() for ch in code)
            # (a random draw of base32 holds a vowel one time in six, words in capitals near half the time)
            base32 = all(ch.isalpha() or ch in "234567" for ch in code) and len(set(code)) * 2 >= len(code) \
                and 4 * sum(ch in "AEIOU" for ch in code) < len(code)
            mixed = len(code) >= 20 and letters >= 6 and digits >= 4
            steps = [ord(b) - ord(a) for a, b in zip(code, code[1:])]
            counted = any(steps[i:i + 3] == [1, 1, 1] for i in range(len(steps) - 2))  # `ABCDEFG...`: an alphabet
            if (base32 or mixed) and not counted and not _HEX_UPPER.fullmatch(code) and not code.isdigit() \
                    and not looks_fake(code):
                yield "one-time password seed or recovery code", c.start(), c.end()
                return


# a key in groups of one length, one case (Apple's `Q9YS-OWKX-...`, a Microsoft account's)
_KEY_GROUPS = lazy(r"[A-Z0-9]{4,6}(?:-[A-Z0-9]{4,6}){3,11}|[a-z0-9]{4,6}(?:-[a-z0-9]{4,6}){3,11}")


_DIGIT_KEY = lazy(r"[0-9]{6}(?:-[0-9]{6}){5,7}")


def _grouped_key(key: str) -> bool:
    """Groups of one length holding letters and digits (two digits and three letters at least), no
    date or serial number of words."""
    groups = key.split("-")
    joined = "".join(groups)
    return (len({len(g) for g in groups}) == 1 and sum(c.isdigit() for c in joined) >= 2
            and sum(c.isalpha() for c in joined) >= 3 and shannon_entropy(joined) >= 3.0)


def _grouped_code(code: str) -> bool:
    """A code in groups no date, version or phone number is: letters and digits mixed through it,
    or groups of digits all of one length (four or more)."""
    groups = re.split(r"[- ]", code)
    joined = "".join(groups)
    if len(joined) < 8:
        return False
    if joined.isdigit():
        return len({len(g) for g in groups}) == 1 and len(groups[0]) >= 4
    mixed = sum(any(c.isdigit() for c in g) and any(c.isalpha() for c in g) for g in groups)
    return 2 * mixed >= len(groups) and shannon_entropy(joined) >= 3.0


def _random_codes(codes: list[str]) -> bool:
    """Are these listed codes random ones, not a list of words or of small numbers? Digits (six
    or more to a code) or letters in two groups (``wxgjo-chqps``) that no word is."""
    if len(set(codes)) < 3 or len(set(codes)) < len(codes) - 1:
        return False
    if all(c.replace(" ", "").replace("-", "").isdigit() for c in codes):
        return len(codes[0].replace(" ", "").replace("-", "")) >= 6
    if all(any(ch.isdigit() for ch in c) and any(ch.isalpha() for ch in c) for c in codes):
        return True
    # letters alone: random ones (a word is two fifths vowels or more; 26 letters drawn at random, under a third)
    joined = "".join(c for code in codes for c in code if c.isalpha())
    vowels = sum(c in "aeiouy" for c in joined)
    return all("-" in c or " " in c for c in codes) and 3 * vowels < len(joined) and shannon_entropy(joined) >= 3.8


def listed_codes(text: str, low: str) -> Iterator[Span]:
    """Account recovery codes listed under their label (three or more codes with digits, or codes
    of one shape alone on their lines below it), and a TOTP secret after an OTP label, written
    in groups ("2FA seed: k7ho 3pbx ...") or whole (``totp_seed: X``, ``oathtool --totp -b X``).
    Each code is short, so only the label and the list together make them a credential."""
    labels = CODES_LABEL.finditer(low) if "code" in low and any(w in low for w in CODE_KINDS) else ()
    done = 0  # each stretch of text is read under one label (a text made of labels costs one pass)
    for m in labels:
        if m.start() < done:
            continue
        done = m.end() + _CODES_SPAN
        codes = list(_CODE.finditer(low, m.end(), done))
        if len({c.group() for c in codes}) >= 3:
            yield "recovery codes", codes[0].start(), codes[-1].end()
            continue
        lines = _listed_lines(low, m.end(), min(len(low), m.end() + 2 * _CODES_SPAN))
        if len(lines) >= 3 and _random_codes([c.group("code") for c in lines]):
            yield "recovery codes", lines[0].start("code"), lines[-1].end("code")
            continue
        inline = _inline_codes(low, m.end())
        if inline:
            yield "recovery codes", *inline
            continue
        one = _ONE_CODE.match(low, m.end())
        if one and _grouped_code(one.group("code")):
            yield "recovery code", one.start("code"), one.end("code")
    read_to = 0
    for m in _BARE_CODES_LABEL.finditer(low) if "recover" in low or "backup" in low else ():
        # "root recovery: X, Y, Z, W": no word "codes", so four codes or more on the label's line,
        # of one shape, each eight long or more with letters and digits mixed, random (not `node01ab, node02ab`)
        if m.start() < read_to:
            continue  # (each line is read under its first label: a line of labels costs one pass)
        line_end = low.find("\n", m.end())
        read_to = len(low) if line_end < 0 else line_end
        codes = [c.group() for c in _CODE.finditer(low, m.end(), len(low) if line_end < 0 else line_end)]
        if len(set(codes)) >= 4 and len({_code_shape(c) for c in codes}) == 1 and all(
                len(c) >= 8 and sum(ch.isalpha() for ch in c) >= 2 for c in codes) \
                and shannon_entropy("".join(codes)) >= 4.0:
            first = _CODE.search(low, m.end())
            yield "recovery codes", first.start(), first.start() + low[first.start():].find(codes[-1]) + len(codes[-1])
    for m in _SEED_FILE.finditer(text) if '\n" ' in text else ():
        # pam_google_authenticator's `~/.google_authenticator`: the seed on the first line, then the
        # options each behind `" ` (`" TOTP_AUTH`, `" RATE_LIMIT 3 30`) and the scratch codes
        if _base32_secret(m.group("seed")):
            yield "TOTP secret", m.start("seed"), m.end("seed")
    done = searched = 0
    for m in _OTP_LABEL.finditer(low) if any(w in low for w in _OTP_WORDS) else ():
        if m.start() >= done:
            done = m.end() + 48
            yield from _grouped_seed(text, low, m)
        line_end = low.find("\n", m.end(), m.end() + _OTP_REACH)
        reach = m.end() + _OTP_REACH if line_end < 0 else line_end
        # (each stretch is searched once, whatever number of labels stand before it)
        whole = _BASE32_RUN.search(low, max(m.end(), searched), reach)
        searched = max(searched, reach)
        if whole and _base32_secret(text[whole.start():whole.end()]) \
                and not near_stop(low, m.end(), whole.start()):
            yield "TOTP secret", whole.start(), whole.end()


def _grouped_seed(text: str, low: str, m: re.Match[str]) -> Iterator[Span]:
    """A TOTP secret in groups after an OTP label and its colon or "is" ("2FA seed: k7ho 3pbx ...",
    "the TOTP seed is k7ho 3pbx ...")."""
    sign = _OTP_SIGN.search(low, m.end(), min(len(low), m.end() + 48))
    colon = sign.end() - 1 if sign else -1
    groups = _BASE32_GROUPS.search(low, colon + 1, colon + 200) if colon >= 0 else None
    if groups and groups.start() - colon <= 4:
        joined = groups.group().replace(" ", "").replace("-", "")
        if len(joined) >= 16 and any(c.isdigit() for c in joined) and not is_wordy(groups.group()):
            yield "TOTP secret", groups.start(), groups.end()


def _base32_secret(value: str) -> bool:
    """A TOTP secret as base32 writes it: one case, letters and the digits 2-7 mixed through it."""
    body = value.rstrip("=")
    digits = sum(c.isdigit() for c in body)
    # (no test of words run together: 26 letters against 6 digits make long runs of letters)
    if not ((body.isupper() or body.islower()) and 2 <= digits <= len(body) - 8
            and shannon_entropy(body) >= (3.5 if len(body) >= 24 else 3.0)):
        return False
    # a seed is random bytes; one that decodes to text is a test vector (RFC 6238's
    # "12345678901234567890", a tutorial's "Hello!")
    try:
        raw = base64.b32decode(body.upper() + "=" * (-len(body) % 8))
    except (binascii.Error, ValueError):
        return True
    # (text throughout, or words first: "Hello!" then four bytes; random bytes start so 1 time in 4,000)
    printable = [32 <= b < 127 for b in raw]
    return 10 * sum(printable) < 9 * len(raw) and not all(chr(b).isalnum() or chr(b) in " !.,-_" for b in raw[:6])


# BitLocker's recovery key: eight groups of six digits, each group a multiple of 11 below 720,896
# (the format says so: each holds 16 bits of the key, times 11). A list of numbers passes that one
# time in 11^8.
_BITLOCKER = lazy(r"(?<![0-9-])[0-9]{6}(?:-[0-9]{6}){7}(?![0-9-])")


_RECOVERY_KEY_LABEL = lazy(r"(?i:recovery[ _-]?(?:key|password)|bitlocker)")
_RECOVERY_KEY_REACH = 120


def recovery_keys(text: str) -> Iterator[Span]:
    """A BitLocker recovery key by its checked shape, whatever names it, or in its shape under
    its label ("Recovery key: X", a BitLocker note) when the groups do not check: a key retyped
    by hand, a digit wrong, is still the key a person meant to keep."""
    if text.count("-") >= 7:
        for m in _BITLOCKER.finditer(text):
            if all(int(g) % 11 == 0 and int(g) < 720896 for g in m.group().split("-")) \
                    or _RECOVERY_KEY_LABEL.search(text, max(0, m.start() - _RECOVERY_KEY_REACH), m.start()):
                yield "recovery key", m.start(), m.end()


# A PIN, PUK, passcode or door code and its digits (a YubiKey's PIN "is" six digits, a keypad
# code written with spaces between the digits). "pin" in lower case is a hardware pin ("pin 13", "GPIO pin 4"), so only the
# upper-case PIN and PUK count, with four digits or more. A lock's or an alarm's code in the
# languages the gate reads (Spanish "código de la alarma", French "digicode", German "Türcode",
# Polish "kod do drzwi", Swedish "portkod"; an alarm panel's "master", "installer" or "admin" code),
# whose or which one after it ("der Firmenkarte", "at the warehouse", "during the call"), then "is"
# in those languages; a safe's combination written as a lock's dial
# numbers (`12-34-56`).
_CODE_OF = (r"alarm[ae]?|allarme|alarmu|puerta|porte|porta|portal|portail|acceso|acc[eè]s|accesso|seguridad|s[eé]curit[eé]"
            r"|caja[ \t]fuerte|coffre|cassaforte|entrada|entr[eé]e|ingresso|candado|cadenas|garaje|garage|port[oó]n|cancello"
            r"|drzwi|skrytki|sejfu|bramy|domofonu|furtki|szafki|gara[zż]u|dost[eę]pu|wej[sś]cia")
_PIN = lazy(r"(?<![A-Za-z0-9_-])(?:PIN|PUK|PIN2|(?i:pin[ \t]code|(?:card|bank|debit|credit|atm|sim|phone|visa|mastercard)[ \t]{1,2}pin"
            # (the PIN's name in Dutch, Danish, Norwegian, Swedish, Finnish and German: "pincode NNNN")
            r"|pin-?code|pin-?kode|pin-?kod|pin-?koodi|pin-?nummer|geheimzahl|tunnusluku"
            r"|passcode|pass[ \t]code|(?:keypad|door|alarm|gate|safe|disarm|arming|security|building|lockbox|locker|padlock"
            r"|lock|unlock|entry|access|garage|admin|master|installer|staff)[ \t]code|digicode|portkod|d[oø]rkode"
            r"|(?:t[üu]r|haust[üu]r|alarm|zugangs|tresor|tor|schloss|garagen)code"
            rf"|(?:c[oó]digo|clave|code|codice|kod)[ \t]{{1,2}}(?:(?:de|del|de[ \t]la|de[ \t]l'|della|dell'|di|du|do|d')[ \t]?(?:la[ \t])?)?(?:{_CODE_OF})"
            r"))(?:[ \t]{1,4}(?i:for|of|at|on|in|to|during|der|des|von|f[üu]r|am|im|de|del|da|do|dla|w|we|na|till|f[öo]r|p[åa]|di|du)"
            r"[ \t]{1,4}[^\n:]{1,40}?)?"
            # (where it was read, in parentheses: "WPS PIN (from the status page): X")
            r"(?:[ \t]{0,2}\([^()\n]{1,40}\))?"
            r"[ \t]{0,4}(?::|=|is|was|-|(?i:es|ist|lautet|est|[eèé]|to|jest|[äa]r|er|on))?[ \t]{0,4}"
            r"(?P<value>[0-9](?:[ \t-]?[0-9]){3,11})(?![\w.,:/-]?[0-9])"
            # a safe's or a padlock's combination: its dial numbers, two digits apart by dashes
            r"|(?<![A-Za-z])(?i:safe|padlock|lock|locker|tresor|caja[ \t]fuerte)(?![a-z])[^\n]{0,40}?(?i:combination|combo|kombination|combinaci[oó]n)"
            r"[ \t]{0,4}(?::|=|is|-)?[ \t]{0,4}(?P<dial>[0-9]{1,2}(?:[ \t]?[-–][ \t]?[0-9]{1,2}){2,3})(?![\w.,:/-]?[0-9])")
# A lock's or an alarm's name first on the line, then its code a few words on ("Alarmanlage: beim
# Reinkommen Code NNNN und dann #", "front gate — the keypad takes code NNNNN"): the place names what
# the code opens, whatever the words between
_PLACE_CODE = lazy(r"(?<![^\W\d_])(?i:alarm\w{0,12}|keypad|t[üu]r|haust[üu]r|tresor|safe|gate|door|portal|portail|porte|puerta"
                   r"|portone|cancello|garage|garaje|lockbox|schlie[ßs]fach)(?![^\W\d_])[^\n]{1,50}?(?<![^\W\d_])"
                   r"(?i:code|c[oó]digo|codice|kod|pin)[ \t]{0,4}[:=]?[ \t]{0,4}"
                   r"(?P<value>[0-9](?:[ \t-]?[0-9]){3,7})(?![\w.,:/-]?[0-9])")
# a code that names something else: a postal, area or country code, an error's, a product's
_OTHER_CODE = lazy(r"(?i:postal|post|zip|area|country|dialling|dialing|status|error|exit|return|source|qr|bar|promo|discount"
                   r"|coupon|voucher|tracking|airport|iata|language|currency|sort|swift|bic|branch|product|reference"
                   r"|booking|confirmation|order|postleit|vorwahl|fehler|c[oó]digo[ \t]postal)[ \t-]{0,2}(?:code|c[oó]digo|codice|kod|pin)"
                   r"[ \t]{0,4}[:=]?[ \t]{0,4}\Z|(?i:postleitzahl|plz|cep|cap)[ \t]{0,4}[:=]?[ \t]{0,4}\Z")
# a year or a count after a word that dates it ("door code at the gate changed in 2024")
_DATED = lazy(r"(?<![^\W\d_])(?i:in|since|until|by|from|before|after|seit|desde|depuis|od|w)[ \t]{1,4}\Z")


_FOUR_DIGITS = lazy(r"[0-9](?:[ \t-]?[0-9]){3}")


def pin_codes(text: str, low: str) -> Iterator[Span]:
    """A PIN, PUK or passcode named by its label and given as four to twelve digits (``low``:
    ``text`` lowercased). The pattern stays on one line: only lines holding a label's word and
    four digits are read (most memories say "code" somewhere, few beside a number)."""
    lines = sorted(set(lines_holding(text, ("PIN", "PUK"))) | set(lines_holding(low, (
        "code", " pin ", " pin:", " pin=", "digo", "clave", "codice", "kod", "combin", "combo", "geheimzahl", "tunnusluku"))))
    for start, end in lines:
        if not _FOUR_DIGITS.search(text, start, end) and not ("comb" in low[start:end] and "-" in text[start:end]):
            continue
        found = False
        for m in _PIN.finditer(text, start, end):
            group = "value" if m.group("value") else "dial"
            if _DATED.search(text, max(0, m.start(group) - 12), m.start(group)):
                continue
            digits = re.sub(r"[ \t–-]", "", m.group(group))
            if len(set(digits)) > 1:  # `0000` is a default, a mask
                found = True
                yield "PIN or passcode", m.start(group), m.end(group)
        if not found:
            for m in _PLACE_CODE.finditer(text, start, end):
                if not _DATED.search(text, max(0, m.start("value") - 12), m.start("value")) \
                        and not _OTHER_CODE.search(text, max(start, m.start("value") - 40), m.start("value")) \
                        and len(set(re.sub(r"[ \t-]", "", m.group("value")))) > 1:
                    yield "PIN or passcode", m.start("value"), m.end("value")
