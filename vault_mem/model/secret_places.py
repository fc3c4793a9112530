"""Credentials known by the place that holds them: a column, a sibling field, a call, a command, a file.

:mod:`vault_mem.model.secret_labels` reads a value beside the label that names it
(``password=X``, "the token is X"); the finders here read values whose place names them instead,
each judged by the label rules' :func:`~vault_mem.model.secret_labels.judge` and
:func:`~vault_mem.model.secret_labels.key_class` or by its look alone
(:mod:`vault_mem.model.secret_values`):

- :func:`listed_codes`: recovery codes listed under their label, a TOTP seed in groups.
- :func:`named_values`: the field beside the name (``<add key="ApiSecret" value="X"/>``, a
  Kubernetes ``- name:``/``value:`` entry, Terraform's ``variable`` default, a plist's
  ``<key>``/``<string>``, a call's ``"NAME", "X"`` pair, a resource typed or named for a
  credential and its generated ``result``).
- :func:`table_cells`: a credential column of a Markdown, org-mode, reStructuredText or HTML table;
  :func:`csv_exports`: of a CSV export with a header row.
- :func:`xml_elements`: an element named for a credential (namespaced ones too).
- :func:`pin_codes`: PINs, PUKs and passcodes of four digits or more.
- :func:`unlabelled_passwords`: a password named by its use ("log in ... with X", "use X to
  unlock", "X gets you in", a ``user:X`` handed to base64), only a value no word could be.
- :func:`call_credentials`: a password among a sign-in call's or a constructor's literals.
- :func:`command_credentials`: a password given to a command after its user; :func:`protocol_logins`:
  ``USER``/``PASS`` and IMAP ``LOGIN`` transcripts.
- :func:`header_lists` and :func:`request_headers`: random values in a ``*_HEADERS`` setting and in a
  request header of any name.
- :func:`credential_files`: cookie jars and quoted user lists.
- :func:`values_below`: a random token alone below a label line or a command that prints it.
- :func:`written_credentials`: a value ``echo``'d into a file named for a key, secret or token, or
  into a command's flag for one; :func:`mail_pairs`: an e-mail address, a slash and a password.

Each finder yields ``(kind, start, end)``; every pattern stays on a line or a bounded reach, and
each finder first checks for its marker with a substring search.
"""

from __future__ import annotations

import base64
import binascii
import csv
import itertools
import re
from collections.abc import Iterator
from urllib.parse import unquote

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_labels import (
    CODE_KINDS,
    CODES_LABEL,
    DIGEST,
    NAME_EQUALS,
    NEAR_ID_PREFIXES,
    PUBLIC_KEY_NAMES,
    SEP,
    Span,
    judge,
    key_class,
    own_name,
    passphrase,
    password_shaped,
    near_stop,
    gives_example,
    grants,
    strong_unlabelled,
    symbol_word_number,
    word_and_number,
)
from vault_mem.model import secret_words
from vault_mem.model.secret_shapes import PHRASE_LABEL, word_phrase
from vault_mem.model.secret_text import last_match_start, lines_holding
from vault_mem.model.secret_values import (
    credential_like,
    high_entropy,
    identifier_like,
    is_placeholder,
    is_wordy,
    looks_fake,
    public_by_design,
    reference_token,
    random_hex,
    random_token,
    shannon_entropy,
    stored_not_secret,
    UUID,
    unguessable,
)

__all__ = ["credential_pairs", "key_id_pairs", "listed_parts", "new_values", "grouped_values", "sentence_passwords", "call_credentials", "code_list", "command_credentials", "labelled_codes", "login_rows", "two_line_logins", "one_codes", "credential_files", "csv_exports", "directive_logins", "keyword_credentials", "flag_credentials", "header_lists", "listed_codes",
           "named_values", "pin_codes", "protocol_logins", "recovery_keys", "request_headers", "split_parts", "mail_pairs", "table_cells", "unlabelled_passwords", "written_credentials",
           "values_below", "xml_elements"]


# --- codes listed under their label, and values named by a sibling field ----------------------

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
            if line and not (account and not out and _HOST_OR_MAIL.fullmatch(line) and "@" in line):
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
_CODES_HEAD = lazy(r"[ \t]{0,4}(?:[:=]|are|were)?[ \t]{0,4}(?:\r?\n[ \t]{0,8})?")


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


# A value cut into labelled parts on lines of their own ("first half: X" / "second half: Y",
# "part 1: X" / "part 2: Y"): each part alone is short, the parts together a token
_PART_WORDS = ("half", "part", "piece", "chunk", "segment")
_PART_LINE = lazy(r"[ \t]{0,8}(?:[-*•][ \t]{1,4})?(?:first|second|third|fourth|last|other|1st|2nd|3rd|4th|[0-9]{1,2}(?:/[0-9])?)?"
                  r"[ \t]{0,2}(?:half|part|piece|chunk|segment)s?(?:[ \t]{0,2}(?:[0-9]{1,2}|one|two|three|a|b))?"
                  r"(?:[ \t]{1,4}[a-z]{1,12}){0,3}[ \t]{0,4}[:=][ \t]{0,4}[`'\"]?(?P<value>[A-Za-z0-9+/_=.~-]{6,200})[`'\"]?[ \t]*\r?\Z",
                  re.IGNORECASE)


def split_parts(text: str, low: str) -> Iterator[Span]:
    """Two parts or more of one value, each on its own labelled line ("first half:", "part 2:"),
    that read together make a random token (:func:`random_token` or random hex)."""
    # (only the lines holding a part's word and a sign: "part" alone is in every other text)
    parts = [m for start, end in lines_holding(low, _PART_WORDS, (":", "="))
             if (m := _PART_LINE.match(text, start, end))]
    if len(parts) < 2:
        return
    values = [m.group("value") for m in parts]
    if any(len(v) == 40 and random_hex(v) or UUID.fullmatch(v) for v in values):
        return  # commit ids and UUIDs, one to a part: ids of parts, whole each
    joined = "".join(values)
    if (random_token(joined, min_len=32) or random_hex(joined, min_len=32)) and not looks_fake(joined):
        yield "token split into parts", parts[0].start("value"), parts[-1].end("value")


# A list of a value's parts under a name saying so (`"key_parts": ["zHAP8a5o", "scJy6QKG", ...]`,
# `token_chunks = ['...', '...']`, YAML's flow list): three short strings or more that read together
# make a random token
_PARTS_LIST = lazy(r"(?i:(?:key|token|secret|password|passphrase|pass|pw|pwd|credential|api[_-]?key)s?[_ -]?"
                   r"(?:half|halves|parts?|pieces?|chunks?|segments?|fragments?|shards?))[\"']?[ \t]{0,4}[:=][ \t]{0,4}[\[(]"
                   r"(?P<items>(?:[ \t\r\n]{0,8}[\"'][A-Za-z0-9+/_=.~!@#$%^&*-]{3,64}[\"'][ \t]{0,4},?){3,16})[ \t\r\n]{0,8}[\])]")
_PART_ITEM = lazy(r"[\"']([^\"']{3,64})[\"']")


def listed_parts(text: str, low: str) -> Iterator[Span]:
    """A token given as a list of its parts under a name that says so (see :data:`_PARTS_LIST`)."""
    if "[" not in text and "(" not in text:
        return
    if not any(w in low for w in ("half", "halves", "part", "piece", "chunk", "segment", "fragment", "shard")):
        return
    for m in _PARTS_LIST.finditer(text):
        items = _PART_ITEM.findall(m.group("items"))
        joined = "".join(items)
        if any(UUID.fullmatch(v) or (len(v) == 40 and random_hex(v)) for v in items):
            continue  # ids of parts, whole each
        if (random_token(joined, min_len=24) or random_hex(joined, min_len=32) or _person_password(joined, inner=True)) \
                and not looks_fake(joined):
            yield "token split into parts", m.start("items"), m.end("items")


# Rows of a header-less table, one login to a row: a user's name in a column, the password in the
# next (`floor2<TAB>admin<TAB>!2GusUR7P4`); tabs, commas, semicolons or pipes between the cells
# (an account's usual name, an e-mail address or a first.last name: not any word, since code's
# comma-separated arguments are words too)
_ROW_USER = lazy(r"(?:admin|administrator|root|sa|ops|user|guest|operator|service|svc[a-z0-9_-]{0,20}|deploy|support|backup"
                 r"|postgres|mysql|oracle|ubnt|pi|monitor|manager|supervisor|tech|install|maint|readonly|viewer)[0-9]{0,3}"
                 r"|[a-z0-9][a-z0-9._-]{0,40}@[a-z0-9.-]{1,60}|[a-z]{2,20}[._][a-z]{2,20}[0-9]{0,3}", re.IGNORECASE)
_ROW_CELL = lazy(r"[^\s()\[\]{}<>\"'`=,;|\\]{1,64}")


_LINE = lazy(r"[^\n]+")


# A line that says a login follows ("NAS admin login", "the file
# auth-user-pass reads:"), then a user's name alone on its line, then the password alone on the next
_LOGIN_LINE = lazy(r"(?i:(?<![\w-])(?:log-?in|sign-?in|credentials|creds|auth-user-pass|account)(?![\w-]))")
_USER_LINE = lazy(r"[ \t]*[\w.@+\\-]{2,64}[ \t]*")
_PW_LINE = lazy(r"[ \t]*(?P<pw>[^\s]{6,200})[ \t]*")


def two_line_logins(text: str) -> Iterator[Span]:
    """The password on the line below a user's name, both alone under a line that names a login:
    a value no word or name could be, or letters and a number of four digits or more."""
    if not _LOGIN_LINE.search(text):
        return
    lines = text.split("\n")
    offset = 0
    for i, line in enumerate(lines):
        if i + 2 < len(lines) and len(line) <= 240 and _LOGIN_LINE.search(line):
            user, pw_line = lines[i + 1].rstrip("\r"), lines[i + 2].rstrip("\r")
            m = _PW_LINE.fullmatch(pw_line)
            if m and _USER_LINE.fullmatch(user) and m.group("pw") != user.strip():
                pw = m.group("pw")
                # (letters run together and a year: twelve long at least, so `footer2024` is a name)
                made = unguessable(pw) or (len(pw) >= 12 and pw.isalnum() and pw.rstrip("0123456789").isalpha()
                                           and len(pw) - len(pw.rstrip("0123456789")) >= 4)
                if made and not is_placeholder(pw, quoted=False) and not _LOGIN_LINE.search(pw):
                    start = offset + len(line) + 1 + len(lines[i + 1]) + 1 + m.start("pw")
                    yield "password assignment", start, start + len(pw)
        offset += len(line) + 1


def login_rows(text: str) -> Iterator[Span]:
    """Two rows or more of a table without a header whose cells in one column are user names and
    in the next a value no word or name could be (:func:`password_shaped`), on every row."""
    for sep in ("\t", ",", ";", "|"):
        if text.count(sep) < 2:
            continue
        lines = [(m.start(), m.group()) for m in _LINE.finditer(text) if sep in m.group()]
        rows = [(at, [c.strip() for c in line.rstrip("\r").split(sep)]) for at, line in lines]
        if len(rows) < 2 or len({len(cells) for _, cells in rows}) != 1:
            continue
        if not all(_ROW_CELL.fullmatch(c) for _, cells in rows for c in cells):
            continue  # (a row is cells of one word each: no code, no sentences)
        width = len(rows[0][1])
        for j in range(width - 1):
            if all(_ROW_USER.fullmatch(cells[j]) and not password_shaped(cells[j]) and password_shaped(cells[j + 1])
                   for _, cells in rows):
                at, line = lines[0]
                start = at + line.find(rows[0][1][j + 1])
                at, line = lines[-1]
                yield "logins in a table", start, at + line.rfind(rows[-1][1][j + 1]) + len(rows[-1][1][j + 1])
                return


# A user and a password given as a pair: under the letters that abbreviate them (`u: X p: Y`,
# `usr=X pw=Y`), or after a label naming an account or a login, the user, then `/` or `,` and the
# password to the end of the sentence ("bot account: jira-bot / X", "login to the NAS: admin, X")
_LETTER_PAIR = lazy(r"(?<![\w-])(?:u|usr|user)[ \t]{0,2}[:=][ \t]{0,4}(?P<user>[^\s,;|]{1,64})[ \t]{0,4}[,;|/]?[ \t]{1,4}"
                    r"(?:p|pw|pwd)[ \t]{0,2}[:=][ \t]{0,4}(?P<pw>[^\s,;|]{4,200})", re.IGNORECASE)
_ACCOUNT_PAIR = lazy(r"(?<![\w-])(?:account|acct|login|log-?in|sign[ -]?in|creds|credentials)"
                     r"(?:[ \t]{1,4}[\w.-]{1,30}){0,4}?[ \t]{0,2}(?::|->|→)[ \t]{1,4}(?P<user>[\w.@+-]{2,64})[ \t]{0,2}[/,][ \t]{1,4}"
                     r"(?P<pw>[^\s,;]{6,200}?)[.,;]?(?=[ \t]*(?:\r?\n|\Z)|[ \t]{1,4}(?:[(\[]|--|—)|[ \t]{1,4}[A-Z])", re.IGNORECASE)


# An API key and an application key side by side under their short names (`api <hex> app <hex>`,
# `api=<key>, app=<key>`): two random values, each after its word
_API_APP_PAIR = lazy(r"(?<![\w-])api(?:[ _-]?key)?[ \t]{0,2}[:=]?[ \t]{0,4}(?P<api>[A-Za-z0-9_-]{20,100})[ \t]{0,2}[,;/|]?[ \t]{1,4}"
                     r"(?:app|application)(?:[ _-]?key)?[ \t]{0,2}[:=]?[ \t]{0,4}(?P<app>[A-Za-z0-9_-]{20,100})(?![\w-])",
                     re.IGNORECASE)


_DEPLOY_WORDS = lazy(r"(?<![a-z])(?:deploy\w*|release\w*|rolled|rollout|ship\w*|tag\w*|image|versions?|pinned|built)(?![a-z])")


# An access key's id and its secret side by side, as a console shows them and a note keeps them
# (`<ID> <secret>`, `<ID>:<secret>`): the id in capitals and digits (`SCWS7A2...`, a Kafka API key)
# or a short prefix and a random tail (`ak-...`, `AKID...`), the secret a random token or a UUID (not the
# parts of a stored hash after its `$`: `SCRAM-SHA-256$4096:<salt>$<key>:<key>`)
_KEY_ID_SECRET = lazy(r"(?<![\w/+=.@:$*-])(?P<id>[A-Z][A-Z0-9]{15,35}|[A-Za-z]{2,5}[-_]?[A-Za-z0-9]{16,40})(?:[ \t]{1,2}|:)"
                      r"(?P<secret>[A-Za-z0-9+/_-]{20,100}={0,2})(?![\w/+=.@:-])")


def _key_id(value: str) -> bool:
    """An access key's id: capitals and digits interleaved (four letters and two digits at least,
    not hex), or a short prefix and a random tail."""
    if value.isupper() or value.isdigit() or not any(c.islower() for c in value):
        letters = sum(c.isalpha() for c in value)
        # (letters and digits interleaved: `INV2026120400123`, a word then a number, is a reference)
        changes = sum(a.isdigit() != b.isdigit() for a, b in zip(value, value[1:]))
        return (letters >= 4 and sum(c.isdigit() for c in value) >= 2 and changes >= 4 and not DIGEST.fullmatch(value)
                and any(c not in "ABCDEF" for c in value if c.isalpha()) and not looks_fake(value))
    cut = next((i for i, c in enumerate(value[:6]) if c in "-_"), None)
    if cut is not None and value[:cut].lower() in NEAR_ID_PREFIXES:
        return False  # a request's, a message's or an event's id (`req_...`, `msg_...`): an id beside an id
    return random_token(value[cut + 1:] if cut is not None else value[2:], min_len=16)


def key_id_pairs(text: str) -> Iterator[Span]:
    """An access key's id then its secret (see :data:`_KEY_ID_SECRET`): neither alone says what it
    is, the pair does."""
    for m in _KEY_ID_SECRET.finditer(text):
        key_id, secret = m.group("id"), m.group("secret")
        if key_id == secret or not _key_id(key_id):
            continue
        if UUID.fullmatch(secret) or random_token(secret.rstrip("="), min_len=20) or (
                len(secret) >= 32 and ("+" in secret or "/" in secret) and high_entropy(secret)):
            yield "access key id and secret", m.start("id"), m.end("secret")


# A user's word and name, then a password's word and its value, no sign needed in any of them
# ("user sam, password X", "användare drift, lösenord X", "login root, hasło X", "user ops@host,
# app password X"): the pair says what the value is, so it is judged as after a `Password:` label.
_USER_WORDS = (r"user(?:[ _-]?name)?|login|usu[áa]rio|usuario|utilisateur|benutzer(?:name)?|anv[äa]ndar(?:e|namn)"
               r"|u[żz]ytkownik|gebruiker(?:snaam)?|utente|brukernavn|brugernavn|k[äa]ytt[äa]j[äa](?:tunnus)?|kullan[ıi]c[ıi]"
               r"|ユーザー?名?|用户名?|用戶名?|사용자|아이디|логин|пользователь")
_NAMED_PAIR = lazy(rf"(?<![\w-])(?:{_USER_WORDS})[ \t]{{0,2}}[:=]?[ \t]{{0,4}}(?P<user>[\w.@+\\-]{{1,64}})[ \t]{{0,2}}[,;/、][ \t]{{0,4}}"
                   rf"(?:[a-z]{{2,12}}[ \t]{{1,2}})?(?:pass(?:word|wd|phrase)?|pwd|pw|{secret_words.PASSWORD}|{secret_words.SCRIPT_PASSWORD})"
                   rf"[ \t]{{0,2}}(?:[:=][ \t]{{0,4}}|[ \t]{{1,4}})(?P<pw>[^\s,;、。，]{{4,200}})(?P<end>[.;]?[ \t]*(?:\r?\n|\Z))?",
                   re.IGNORECASE)


# A network's name and its password after a Wi-Fi label, split by a slash ("wifi: Cabin-2G / X")
_NETWORK_PAIR = lazy(r"(?<![\w-])(?:wi-?fi|wlan|wireless|ssid)[ \t]{0,2}:[ \t]{0,4}[^\s/]{1,64}[ \t]{0,2}/[ \t]{0,2}"
                     r"(?P<pw>[^\s/]{8,63})(?![^\s])", re.IGNORECASE)


# One code on the line of a recovery code's or a one-time password seed's label ("Okta recovery
# code: X", "OTP secret: X", "the authenticator's setup key is X"): base32 of sixteen characters or
# more, or upper-case letters and digits of twenty or more; hex is left to the digest rules
_ONE_CODE_LABEL = lazy(r"(?i:(?<![\w-])(?:(?:recovery|backup|emergency)[ _-]?(?:code|key)|totp|otp|2fa|mfa|authenticator"
                       r"|setup[ _-]?key)(?![\w-]))")
_SEED_RUN_UPPER = lazy(r"(?<![\w-])[A-Z0-9]{16,64}(?![\w-])")
_HEX_UPPER = lazy(r"[0-9A-F]+")


def one_codes(text: str) -> Iterator[Span]:
    """A single recovery code or one-time password seed on its label's line (see above)."""
    for m in _ONE_CODE_LABEL.finditer(text):
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        if end - start > 400:
            continue
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


def credential_pairs(text: str) -> Iterator[Span]:
    """A user's name and a password given as a pair (see :data:`_LETTER_PAIR`): under ``u:`` and
    ``p:`` the password is judged as after its label; after an account's or a login's label and a
    user, only a value no word or name could be, a person's word and number, or words a generator
    joined (`/` and `,` join names too: "account: billing, invoices")."""
    low = text.lower()
    if "p" in low and ("u:" in low or "u=" in low or "u :" in low or "usr" in low or "user" in low):
        for m in _LETTER_PAIR.finditer(text):
            pw = m.group("pw").rstrip(".,;:!?)]}>") if not m.group("pw")[-1:] in "!?" or len(m.group("pw")) < 5 else m.group("pw")
            if m.group("user") != pw and judge("password", ":", pw, quoted=False, code=False, ends=True):
                yield "password assignment", m.start("pw"), m.start("pw") + len(pw)
    if "/" in low and ("wi" in low or "wlan" in low or "ssid" in low):
        for m in _NETWORK_PAIR.finditer(text):
            pw = m.group("pw").rstrip(".,;)")
            if judge("network", ":", pw, quoted=False, code=False, ends=True) or word_and_number(pw) or passphrase(pw) \
                    or symbol_word_number(pw):
                yield "password assignment", m.start("pw"), m.start("pw") + len(pw)
    if "p" in low or not low.isascii():
        for m in _NAMED_PAIR.finditer(text):
            pw = m.group("pw").rstrip(".)")
            if pw.lower() != m.group("user").lower() and judge("password", ":", pw, quoted=False, code=False,
                                                             ends=m.group("end") is not None):
                yield "password assignment", m.start("pw"), m.start("pw") + len(pw)
    if "api" in low and "app" in low:
        for m in _API_APP_PAIR.finditer(text):
            api, app = m.group("api"), m.group("app")
            if len(api) == len(app) and len(api) in (40, 64) and DIGEST.fullmatch(api.lower()):
                continue  # two services' commits or image digests ("api <sha> app <sha>" in a deploy note)
            line = max(text.rfind("\n", 0, m.start()) + 1, m.start() - 80)
            if near_stop(low, line, m.start()) or _DEPLOY_WORDS.search(low, line, m.start()):
                continue
            if all(random_hex(v, min_len=32) or random_token(v, min_len=20) for v in (api, app)):
                yield "API key and application key", m.start("api"), m.end("app")
    if "acc" in low or "log" in low or "sign" in low or "cred" in low:
        for m in _ACCOUNT_PAIR.finditer(text):
            pw = m.group("pw")
            if pw != m.group("user") and (password_shaped(pw) or word_and_number(pw) or passphrase(pw)):
                yield "password assignment", m.start("pw"), m.end("pw")


# The value of a credential named before it in the sentence, introduced as its new or current
# value ("Service account password rotated; new value X", "the token changed, current one: X")
_NEW_VALUE = lazy(r"(?<![a-z])(?:new|current|updated|latest|rotated)[ \t]{1,4}(?:value|one)[ \t]{0,4}(?:is[ \t]{1,4}|[:=][ \t]{0,4}|[ \t])"
                  r"[ \t]{0,4}[`'\"]?(?P<value>[^\s,;\"'`]{6,200})", re.IGNORECASE)
_NEW_VALUE_REACH = 120  # how far before, on its line, the credential's word stands
_CREDENTIAL_WORD = lazy(r"(?<![a-z])(?:pass(?:word|wd|phrase|code)?|pwd|pw|secret|token|api[ _-]?key|credentials?)(?![a-z])")


def new_values(text: str, low: str) -> Iterator[Span]:
    """A value given as a credential's new or current value (see :data:`_NEW_VALUE`), judged as
    after the credential's own label; a value no label names stays unjudged."""
    if "value" not in low and "one" not in low:
        return
    for m in _NEW_VALUE.finditer(text):
        line = max(text.rfind("\n", 0, m.start()) + 1, m.start() - _NEW_VALUE_REACH)
        word = None
        for word in _CREDENTIAL_WORD.finditer(low, line, m.start()):
            pass  # (the nearest before the value)
        if word is None:
            continue
        cls = key_class(word.group().replace(" ", "_"))
        value = m.group("value").rstrip(".:!?)")
        kind = judge(cls, "is", value, quoted=False, code=False, ends=False) if cls in ("password", "secret") else None
        if kind:
            yield kind, m.start("value"), m.start("value") + len(value)


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


# `<add key="ApiSecret" value="..."/>`, `{"name": "DB_PASSWORD", "value": "..."}`, a Kubernetes env
# entry (`- name: API_TOKEN` / `value: ...`): the label is one field's value, the secret the next's.
_NAME_VALUE = lazy(r"(?:key|name)[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"']?(?P<name>[\w.-]{1,64})[\"']?[ \t]{0,4},?"
                         r"(?:[ \t]{0,4}\r?\n[ \t]{0,24})?[ \t]{0,4}[\"']?value[\"']?[ \t]{0,4}[=:][ \t]{0,4}"
                         r"(?P<value>\"[^\"\n]{1,2000}\"|'[^'\n]{1,2000}'|[^\s\"'`,;}]{1,200})")
# A plist's `<key>password</key>` then `<string>X</string>`, a Java properties file in XML
# (`<entry key="db.password">X</entry>`), JSON's `"spring.datasource.password": {"value": "X"}`
# (Spring Boot's /actuator/env): the name, then its value in the next element or member.
_NAME_THEN_VALUE = lazy(r"<key>(?P<name>[\w .-]{1,64})</key>[ \t]{0,8}(?:\r?\n[ \t]{0,24})?<string>(?P<value>[^<>\n]{1,2000})</string>"
                        r"|<entry[ \t]{1,4}key=[\"'](?P<name2>[\w.-]{1,64})[\"']>(?P<value2>[^<>\n]{1,2000})</entry>"
                        # (other members may come first: Tink's `"keyData": {"typeUrl": ..., "value": X}`)
                        r"|\"(?P<name3>[\w.-]{1,64})\"[ \t]{0,4}:[ \t]{0,4}\{[^{}]{0,400}?\"value\"[ \t]{0,4}:[ \t]{0,4}"
                        r"\"(?P<value3>[^\"\n]{1,2000})\"")
# A call's two first literals, a name and its value: `SetEnvironmentVariable("NUGET_API_KEY", "X")`,
# `define('DB_PASSWORD', 'X')`, `Cookie("JSESSIONID", "X")`, `setItem("token", "X")`
_NAME_COMMA_VALUE = lazy(r"(?P<q>[\"'])(?P<name>[\w.-]{1,64})(?P=q)[ \t]{0,4},[ \t]{0,4}"
                         r"(?P<value>\"[^\"\n]{1,2000}\"|'[^'\n]{1,2000}')")


_PAIR_WORDS = ("pass", "pwd", "pw", "secret", "token", "key", "auth", "cred", "sess", "login")
# Terraform: `variable "db_password" {` then `default = "..."` inside the block.
_HCL_DEFAULT = lazy(r"variable[ \t]{1,4}\"(?P<name>[\w.-]{1,64})\"[ \t]{0,4}\{[^}]{0,200}?default[ \t]{0,4}=[ \t]{0,4}"
                          r"(?P<value>\"[^\"\n]{1,200}\")")


# A resource whose type names a credential, and its generated value (Terraform state's
# `"type": "random_password"` ... `"result": "X"`, a `tls_private_key`'s or `random_string`'s)
# (or named for one: a `random_string` resource named `api_secret`)
_TYPED_RESOURCE = lazy(r"\"(?:type|name)\"[ \t]{0,4}:[ \t]{0,4}\"(?P<type>[\w.-]{0,40}(?:password|secret|token|key)[\w.-]{0,20})\"")
_RESULT = lazy(r"\"(?:result|value|plaintext|secret)\"[ \t]{0,4}:[ \t]{0,4}\"(?P<value>[^\"\n]{6,400})\"")
_RESOURCE_REACH = 800


def named_values(text: str, low: str) -> Iterator[Span]:
    """A value whose name is in the field beside it: judged as ``name=value`` would be (a call's
    literal pair as ``name("value")``: by the value's look); a generated value under a resource
    whose type names a credential (:data:`_TYPED_RESOURCE`)."""
    if ('"type"' in text or '"name"' in text) and ('"result"' in text or '"value"' in text):
        for m in _TYPED_RESOURCE.finditer(text):
            res = _RESULT.search(text, m.end(), m.end() + _RESOURCE_REACH)
            cls = key_class(m.group("type").replace("-", "_")) or "secret"
            if res and "public" not in m.group("type").lower() and not is_placeholder(res.group("value"), quoted=True):
                value = res.group("value").replace("\\n", "\n")
                if judge("password" if cls == "password" else "key", "=", value, quoted=True, code=False, ends=True):
                    yield "generated credential in a state file", res.start("value"), res.end("value")
    if "value" in low or "default" in low:
        pairs = _NAME_VALUE.finditer(text) if "value" in low else iter(())
        blocks = _HCL_DEFAULT.finditer(text) if "variable" in low else iter(())
        for m in (*pairs, *blocks):
            name = m.group("name")
            if name == "value" and "apikey" in low[max(0, m.start() - 200):m.start()]:
                name = "apikey"  # Postman's API-key auth: `{"key": "value", "value": "<the key>"}`
            yield from _named(text, name, m.start("value"), m.group("value"), "=")
    if "</key>" in text or "</entry>" in text or '"value"' in text:
        for m in _NAME_THEN_VALUE.finditer(text):
            n = next(i for i in ("", "2", "3") if m.group("name" + i))
            if n == "3" and "public" in low[m.start():m.end() + 200]:
                continue  # a public key's data (`"typeUrl": "...EcdsaPublicKey"`, `ASYMMETRIC_PUBLIC`)
            yield from _named(text, m.group("name" + n).replace(" ", "_"), m.start("value" + n),
                              f'"{m.group("value" + n)}"', "=", offset=-1)
    # (only lines holding a credential word and a quoted pair: the pattern starts at any quote)
    pairs = '",' in text or "'," in text  # (a substring test first: most texts hold no quoted pair)
    for start, end in lines_holding(low, _PAIR_WORDS, ('",', "',")) if pairs else ():
        for m in _NAME_COMMA_VALUE.finditer(text, start, end):
            yield from _named(text, m.group("name"), m.start("value"), m.group("value"), "(")


def _named(text: str, name: str, at: int, raw: str, op: str, offset: int = 0) -> Iterator[Span]:
    """The finding for ``raw`` (at ``at``; quoted or not) as the value of ``name``, if it is one."""
    cls = key_class(name)
    if not cls or cls == "login":
        return
    quoted = raw[0] in "\"'"
    value = raw[1:-1] if quoted else raw
    # (a call's literal pair is judged by the value's look: `("passwd", "passphrase")` is a tuple of names)
    kind = judge(cls, op if quoted else ":", value, quoted=quoted, code=False, ends=op != "(")
    if not kind and cls == "key" and op != "(" and grants(name) and UUID.fullmatch(value) and not is_placeholder(value, quoted=True):
        kind = "secret assignment"  # a UUID given to a key named for what it grants (`- name: SAUCE_ACCESS_KEY`)
    if kind and not own_name(value, name):
        vstart = at + (1 if quoted else 0) + offset
        yield kind, vstart, vstart + len(value)


# --- values in a column or an element named for them, PINs, and passwords given by their use ----

#: matched against a line stripped of its blanks: blank runs side by side at its ends made a
#: long line of spaces cost time quadratic in its length (85 s for one 80 KB line)
# (any text table's rule: Markdown's `|---|---|`, org-mode's `|---+---|`, reStructuredText's grid
# `+----+----+` and its header rule `+====+====+`)
_TABLE_RULE = lazy(r"[|+]?[ \t]*:?(?:-{3,}|={3,}):?[ \t]*(?:[|+][ \t]*:?(?:-{3,}|={3,}):?[ \t]*)+[|+]?")
# An HTML table's rows and their cells (a header row of `<th>`, then rows of `<td>`)
_HTML_ROW = lazy(r"<tr(?:[ \t][^<>]{0,200})?>(?P<row>(?:(?!</?tr\b)[^\n]|\n){0,2000}?)</tr>", re.IGNORECASE)
_HTML_CELL = lazy(r"<t(?P<h>[hd])(?:[ \t][^<>]{0,200})?>[ \t\r\n]{0,8}(?P<cell>[^<>]{0,200}?)[ \t\r\n]{0,8}</t[hd]>",
                  re.IGNORECASE)
# `<password>X</password>` (Maven's settings.xml, .NET config): the element's name is the label
# (attributes allowed: FileZilla's `<Pass encoding="base64">` holds the password in base64)
_XML_ELEMENT = lazy(r"<(?P<name>(?:[A-Za-z][\w.-]{0,30}:)?[A-Za-z][\w.-]{0,63})(?:[ \t][^<>\n]{0,200})?>"
                   r"(?P<value>[^<>\s][^<>\n]{0,199})</(?P=name)>")
# a value in a child element that says only "the value" (Windows unattend.xml's
# `<AdministratorPassword><Value>X</Value>`): the parent's name labels it
_XML_PARENT_VALUE = lazy(r"<(?P<name>(?:[A-Za-z][\w.-]{0,30}:)?[A-Za-z][\w.-]{0,63})(?:[ \t][^<>\n]{0,200})?>[ \t\r\n]{0,200}"
                         r"<(?P<child>(?i:value|val|data|string|text))>(?P<value>[^<>\s][^<>\n]{0,199})</(?P=child)>")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _column_class(header: str) -> str | None:
    cls = key_class(header.strip("*_` ").lower().replace(" ", "_"))
    return cls if cls in ("password", "secret", "key") else None


def _table_cell(cls: str, value: str) -> bool:
    return bool(value) and " " not in value and judge(cls, "is", value, quoted=False, code=False, ends=True) is not None


def table_cells(text: str, low: str) -> Iterator[Span]:
    """A text table whose header names a credential column (``| user | password |`` in Markdown,
    org-mode or a reStructuredText grid; an HTML table's ``<th>``): each cell below is judged as
    the value of that label, so ``(ask Lea)`` and ``-`` pass."""
    if "<t" in low and "</t" in low:
        yield from _html_cells(text)
    if "|" not in text or ("---" not in text and "===" not in text):
        return
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    i = 1
    while i < len(lines):
        if not ("|" in lines[i - 1] and _TABLE_RULE.fullmatch(lines[i].strip(" \t"))):
            i += 1
            continue
        columns = {n: cls for n, h in enumerate(_cells(lines[i - 1])) if (cls := _column_class(h))}
        i += 1
        while i < len(lines) and ("|" in lines[i] or _TABLE_RULE.fullmatch(lines[i].strip(" \t"))):
            cells = _cells(lines[i]) if "|" in lines[i] else []  # (a grid's rule between its rows)
            for n, cls in columns.items():
                value = cells[n].strip("`") if n < len(cells) else ""
                if _table_cell(cls, value):
                    at = offsets[i] + lines[i].find(value)
                    yield "credential in a table", at, at + len(value)
            i += 1


def _html_cells(text: str) -> Iterator[Span]:
    """The cells below an HTML table's header cell that names a credential."""
    columns: dict[int, str] = {}
    for row in _HTML_ROW.finditer(text):
        cells = list(_HTML_CELL.finditer(text, row.start("row"), row.end("row")))
        if cells and all(c.group("h").lower() == "h" for c in cells):
            columns = {n: cls for n, c in enumerate(cells) if (cls := _column_class(c.group("cell")))}
            continue
        for n, cls in columns.items():
            if n < len(cells) and _table_cell(cls, cells[n].group("cell")):
                yield "credential in a table", cells[n].start("cell"), cells[n].end("cell")


def xml_elements(text: str) -> Iterator[Span]:
    """``<password>X</password>``: an element named for a credential holding a literal."""
    if "</" not in text:
        return
    for m in itertools.chain(_XML_ELEMENT.finditer(text), _XML_PARENT_VALUE.finditer(text)):
        cls = key_class(m.group("name").rsplit(":", 1)[-1])  # (`wsse:Password`: the local name)
        if cls in ("password", "secret", "key"):
            kind = judge(cls, "=", m.group("value"), quoted=True, code=False, ends=True)
            if kind:
                yield kind, m.start("value"), m.end("value")


# A PIN, PUK, passcode or door code and its digits (a YubiKey's PIN "is" six digits, a keypad
# code written with spaces between the digits). "pin" in lower case is a hardware pin ("pin 13", "GPIO pin 4"), so only the
# upper-case PIN and PUK count, with four digits or more. A lock's or an alarm's code in the
# languages the gate reads (Spanish "código de la alarma", French "digicode", German "Türcode",
# Polish "kod do drzwi", Swedish "portkod"), whose or which one after it ("der Firmenkarte", "at
# the warehouse"), then "is" in those languages; a safe's combination written as a lock's dial
# numbers (`12-34-56`).
_CODE_OF = (r"alarm[ae]?|allarme|alarmu|puerta|porte|porta|portal|portail|acceso|acc[eè]s|accesso|seguridad|s[eé]curit[eé]"
            r"|caja[ \t]fuerte|coffre|cassaforte|entrada|entr[eé]e|ingresso|candado|cadenas|garaje|garage|port[oó]n|cancello"
            r"|drzwi|skrytki|sejfu|bramy|domofonu|furtki|szafki|gara[zż]u|dost[eę]pu|wej[sś]cia")
_PIN = lazy(r"(?<![A-Za-z0-9_-])(?:PIN|PUK|PIN2|(?i:pin[ \t]code|(?:card|bank|debit|credit|atm|sim|phone|visa|mastercard)[ \t]{1,2}pin"
            r"|passcode|pass[ \t]code|(?:keypad|door|alarm|gate|safe|disarm|arming|security|building|lockbox|locker|padlock"
            r"|lock|unlock|entry|access|garage)[ \t]code|digicode|portkod|d[oø]rkode"
            r"|(?:t[üu]r|haust[üu]r|alarm|zugangs|tresor|tor|schloss|garagen)code"
            rf"|(?:c[oó]digo|clave|code|codice|kod)[ \t]{{1,2}}(?:(?:de|del|de[ \t]la|de[ \t]l'|della|dell'|di|du|do|d')[ \t]?(?:la[ \t])?)?(?:{_CODE_OF})"
            r"))(?:[ \t]{1,4}(?i:for|of|at|on|in|to|der|des|von|f[üu]r|am|im|de|del|da|do|dla|w|we|na|till|f[öo]r|p[åa]|di|du)"
            r"[ \t]{1,4}[^\n:]{1,40}?)?"
            r"[ \t]{0,4}(?::|=|is|was|-|(?i:es|ist|lautet|est|[eèé]|to|jest|[äa]r|er|on))?[ \t]{0,4}"
            r"(?P<value>[0-9](?:[ \t-]?[0-9]){3,11})(?![\w.,:/-]?[0-9])"
            # a safe's or a padlock's combination: its dial numbers, two digits apart by dashes
            r"|(?<![A-Za-z])(?i:safe|padlock|lock|locker|tresor|caja[ \t]fuerte)(?![a-z])[^\n]{0,40}?(?i:combination|combo|kombination|combinaci[oó]n)"
            r"[ \t]{0,4}(?::|=|is|-)?[ \t]{0,4}(?P<dial>[0-9]{1,2}(?:[ \t]?[-–][ \t]?[0-9]{1,2}){2,3})(?![\w.,:/-]?[0-9])")
# a year or a count after a word that dates it ("door code at the gate changed in 2024")
_DATED = lazy(r"(?<![^\W\d_])(?i:in|since|until|by|from|before|after|seit|desde|depuis|od|w)[ \t]{1,4}\Z")


_FOUR_DIGITS = lazy(r"[0-9](?:[ \t-]?[0-9]){3}")


def pin_codes(text: str, low: str) -> Iterator[Span]:
    """A PIN, PUK or passcode named by its label and given as four to twelve digits (``low``:
    ``text`` lowercased). The pattern stays on one line: only lines holding a label's word and
    four digits are read (most memories say "code" somewhere, few beside a number)."""
    lines = sorted(set(lines_holding(text, ("PIN", "PUK"))) | set(lines_holding(low, (
        "code", " pin ", " pin:", " pin=", "digo", "clave", "codice", "kod", "combin", "combo"))))
    for start, end in lines:
        if not _FOUR_DIGITS.search(text, start, end) and not ("comb" in low[start:end] and "-" in text[start:end]):
            continue
        for m in _PIN.finditer(text, start, end):
            group = "value" if m.group("value") else "dial"
            if _DATED.search(text, max(0, m.start(group) - 12), m.start(group)):
                continue
            digits = re.sub(r"[ \t–-]", "", m.group(group))
            if len(set(digits)) > 1:  # `0000` is a default, a mask
                yield "PIN or passcode", m.start(group), m.end(group)


# A password given by its use, with no label: "log in as deploy with X", "use X to unlock the
# keystore". Only a value no word or name could be counts (see strong_unlabelled).
_SIGN_IN = r"log[ \t]?in|log[ \t]on|sign[ \t]?in"
_USED_WITH = lazy(rf"(?i:{_SIGN_IN}|authenticate|ssh|connect)(?![a-z])[^\n]{{0,60}}?[ \t]with"
                        r"[ \t]{1,4}[`'\"]?(?P<value>[^\s`'\"]{8,64})")
_USE_TO = lazy(r"(?<![a-z])(?i:use)[ \t]{1,4}[`'\"]?(?P<value>[^\s`'\"]{8,64})[`'\"]?[ \t]{1,4}(?i:to|for)[ \t]{1,4}"
                     rf"(?i:unlock|{_SIGN_IN}|decrypt|open|access|authenticate|sudo|get[ \t]in(?:to)?|enter)(?![a-z])")
# "X gets you in", "X lets you into the NAS": a value named by what it opens
_GETS_IN = lazy(r"(?<![^\s(:])[`'\"]?(?P<value>[^\s`'\"]{8,64})[`'\"]?[ \t]{1,4}(?i:gets|will[ \t]get|lets)[ \t]{1,4}"
                r"(?i:you|us|me|them|anyone|people)[ \t]{1,4}(?i:in|into)(?![a-z])")
# "sudo on the build box takes X": an account or a prompt that takes a value
_TAKES = lazy(r"(?<![a-z])(?i:sudo|su|root|login|ssh|admin|console|prompt)(?![a-z])[^\n]{0,40}?[ \t](?i:takes|accepts|wants)"
                    r"[ \t]{1,4}[`'\"]?(?P<value>[^\s`'\"]{8,64})")
# The words each pattern needs, lowercased, and the lines holding them are all it reads (every
# pattern stays on one line): the first group, and one of the second if there is one.
_SIGN_IN_WORDS = ("log", "sign")
# "grafana: admin / X", "wifi: MyHome / X": a name, a spaced slash, a value no word could be
# (or a spaced em or en dash, as notes set a user apart from its password: "admin — X")
_USER_SLASH = lazy(r"(?<![^\s:(,])[A-Za-z0-9][\w.@+-]{0,63}[ \t]{1,3}[/—–][ \t]{1,3}(?P<value>[^\s/`'\"]{8,64})(?=[\s.,;)]|\Z)")
# `root:X`, `admin:X on the router`: an account every box has, a colon, a value no word could be
_DEFAULT_ACCOUNT = lazy(r"(?<![\w/@:.-])(?i:root|admin|administrator|ubuntu|pi|postgres|sa|elastic|oracle|ec2-user|sysadmin"
                        r"|superuser|guest|operator|support):(?P<value>[^\s:/@`'\"]{8,64})(?=[\s.,;)]|\Z)")
# `echo X | docker login --password-stdin`, `echo X | sudo -S ...`, `echo 'u:X' | chpasswd`: a value
# piped into a command that reads a password from its input
_PIPED = lazy(r"(?<![\w-])(?:echo|printf)(?:[ \t]{1,4}-[ne]{1,2})?[ \t]{1,4}[\"']?(?P<value>[^\s\"'|$`]{6,200})[\"']?[ \t]{0,4}\|"
              r"[^\n]{0,160}?(?:-stdin|sudo[ \t]{1,4}-[a-z]{0,4}S|chpasswd|-passin[ \t]{1,4}stdin)")
# `printf '%s' 'id:X' | base64`, `btoa('api:X')`, `b64encode(b"svc:X")`: a user and its password
# joined by a colon and handed to base64 (HTTP Basic's form): the part after the colon
# (the call may wrap the literal first: Go's `EncodeToString([]byte("u:X"))`, .NET's `ToBase64String(...GetBytes("u:X"))`)
_ENCODED_PAIR = lazy(r"(?:(?:echo|printf)(?:[ \t]{1,4}-[ne]{1,2})?(?:[ \t]{1,4}'%s')?[ \t]{1,4}|(?i:btoa|b64encode|base64_encode"
                     r"|encodetostring|tobase64string|base64\.encode|buffer\.from|tobase64)[ \t]{0,4}\([^\"'\n]{0,60}?b?)"
                     r"[\"'][^\"'\s:$]{1,64}:(?P<value>[^\"'\s$]{8,200})[\"']")
_UNLABELLED = ((_USER_SLASH, (" / ", " — ", " – "), ()),
               (_ENCODED_PAIR, ("base64", "btoa", "b64encode", "encodetostring"), ()),
               (_PIPED, ("|",), ("stdin", "sudo", "chpasswd")),
               (_DEFAULT_ACCOUNT, ("root:", "admin", "ubuntu:", "pi:", "postgres:", "sa:", "elastic:", "oracle:", "ec2-user:",
                                   "superuser:", "guest:", "operator:", "support:"), ()),
               (_USED_WITH, ("with",), _SIGN_IN_WORDS + ("authenticate", "ssh", "connect")),
               (_USE_TO, ("use",), _SIGN_IN_WORDS + ("unlock", "decrypt", "open", "access", "authenticate", "sudo", "get in",
                                                 "enter")),
               (_TAKES, ("takes", "accepts", "wants"), ()),
               (_GETS_IN, (" in",), ("gets", "get ", "lets")))




def unlabelled_passwords(text: str, low: str) -> Iterator[Span]:
    """A password named by what it does ("log in ... with X", "use X to unlock"), no label
    (``low``: ``text`` lowercased, same length)."""
    for pattern, words, also in _UNLABELLED:
        for start, end in lines_holding(low, words, also):
            for m in pattern.finditer(text, start, end):
                value = m.group("value").rstrip(".,;:!?)")
                if strong_unlabelled(value) and SEP.split(value, 1)[0].lower() not in NEAR_ID_PREFIXES:
                    yield "password given by its use", m.start("value"), m.start("value") + len(value)


# A password as a person makes one, standing in a sentence with no label and no use named ("I went
# with X as the superuser's password", "the zip opens with X", "Tom uses X for everything"): upper
# and lower case, a digit or a second symbol, and a symbol inside it that no name, path, address,
# setting or expression holds there. Code has such runs only in expressions (`2**n`, `cond?a:b`,
# `beta**0.5`), which are single-case; prose has them only as passwords. Lines of code are skipped.
_PERSON_SYMBOLS = "!#$%^&*~?@"
_SENTENCE_TOKEN = lazy(r"(?<![^\s(\"'`])[A-Za-z0-9!#$%^&*~?@=+_-]{8,64}(?=[\s.,;:!?)\"'`]|\Z)")
_SETTING = lazy(r"[A-Za-z_][\w.-]{2,}=")  # `HF_DEBUG=1`, `as_hex=1`: a name and its value
_SENTENCE_REACH = 160
_TEMPLATE = lazy(r"@[A-Za-z_]{2,}@")  # a build template's `@TYPE@`
_QUOTE_MARKS = ("\"", "'", "`")
_DOTTED_ON = lazy(r"\.[A-Za-z0-9]")
_MAIL_HOST = lazy(r"@[\w-]{1,63}\.[A-Za-z]")
_PROSE_WORD = lazy(r"(?<![\w$@#%&*=+/.-])[^\W\d_]{2,}(?![\w$@#%&*=+/-])")
_CODE_LINE_SIGNS = lazy(r"[{}\[\]<>]|\w\(|==|:=|=>|;[ \t]*$")  # (a call; prose opens brackets after a space)


def _person_password(value: str, *, inner: bool) -> bool:
    """Eight characters or more with upper and lower case, a digit (or three symbols) and a symbol
    of :data:`_PERSON_SYMBOLS` (``inner``: inside it, not at an end)."""
    return (len(value) >= 8 and any(c in _PERSON_SYMBOLS for c in (value[1:-1] if inner else value))
            and any(c.isupper() for c in value) and any(c.islower() for c in value)
            and (any(c.isdigit() for c in value) or sum(not c.isalnum() for c in value) >= 3))


def sentence_passwords(text: str) -> Iterator[Span]:
    """A person's strong password (see :data:`_SENTENCE_TOKEN`'s comment) in a line of prose: three
    words or more around it, and no brackets, operators or statement ends that make the line code."""
    if not any(c in text for c in _PERSON_SYMBOLS):
        return
    for m in _SENTENCE_TOKEN.finditer(text):
        value = m.group().rstrip(".,;:!?")
        if (not _person_password(value, inner=True) or "**" in value
                or value[0] in "-_=+" + _PERSON_SYMBOLS or _SETTING.match(value) or _MAIL_HOST.search(value)
                or _TEMPLATE.search(value) or is_placeholder(value, quoted=True) or stored_not_secret(value)
                or reference_token(value)):
            continue
        # (a value quoted on its own is a string spoken of, an example in a rule's or a tool's
        # docs: a label before it is what makes it a credential, read by the label rules)
        if text[m.start() - 1:m.start()] in _QUOTE_MARKS and text[m.end():m.end() + 1] in _QUOTE_MARKS and m.start():
            continue
        # (the head of a dotted word, which the token stops at: `Python@3.12`, `OpenSSL@3.0.13`
        # from Homebrew, `Foo#bar2.baz`; a sentence's full stop has a space or the end after it)
        if _DOTTED_ON.match(text, m.start() + len(value)):
            continue
        # (the sentence within reach on its line: a line of 80 KB is not read once per token)
        start = max(text.rfind("\n", max(0, m.start() - _SENTENCE_REACH), m.start()) + 1, m.start() - _SENTENCE_REACH)
        end = text.find("\n", m.end(), m.end() + _SENTENCE_REACH)
        end = min(len(text), m.end() + _SENTENCE_REACH) if end < 0 else end
        rest = text[start:m.start()] + " " + text[m.end():end]
        if (len(_PROSE_WORD.findall(rest)) >= 3 and not _CODE_LINE_SIGNS.search(rest)
                and not gives_example(rest.lower())):
            yield "password in a sentence", m.start(), m.start() + len(value)


# --- a user and a password passed to a call -------------------------------------------------

# A call named for signing in, or requests' `auth=(...)` tuple: `NetworkCredential("svc", "X")`,
# `PasswordAuthenticator('app', 'X')`, `authenticate("svc", "X")`, `DBI->connect(dsn, "u", "X")`
# (a database client's constructor or connect call takes host, user, password: PHP's `new mysqli(...)`,
# `mysqli_connect(...)`, `new PDO($dsn, "u", "X")`, `pg_connect` takes one string)
_CRED_CALL = lazy(r"(?:credentials?|authenticat[a-z]{0,8}|auth|login|logon|sign_?in|connect|mysqli|pdo)[a-z_]{0,20}"
                  # (or applied to its arguments with spaces: Haskell's and Elm's `basicAuth "u" "X"`)
                  r"(?:[ \t]{0,4}=?[ \t]{0,4}\(|[ \t]{1,4}(?=[\"']))")
_SPACED_ARG = lazy(r"[ \t]{0,4}(?P<q>[\"'])(?P<value>[^\"'\n]{0,200})(?P=q)(?P<sep>[ \t]|\)|$)", re.MULTILINE)
_CALL_WORDS = ("credential", "auth", "login", "logon", "signin", "sign_in", "connect", "mysqli", "pdo")
_LITERAL_ARG = lazy(r"[ \t]{0,4}(?:[A-Za-z_]\w{0,30}[ \t]{0,2}=[ \t]{0,2})?(?P<q>[\"'])(?P<value>[^\"'\n]{0,200})(?P=q)"
                    r"[ \t]{0,4}(?P<sep>[,)])")
_HOST_OR_MAIL = lazy(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+|[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+(?::[0-9]{1,5})?")


def call_credentials(text: str, low: str) -> Iterator[Span]:
    """A password among the literal arguments of a call that signs in (``low``: ``text``
    lowercased): every literal after the first (the user or the data source) that looks made to
    be hard to guess, and is not a host name or an e-mail address. A ``connect`` needs three
    literals (source, user, password), since ``connect("db", "shop")`` names a database. Only the
    lines holding a call word and a quote are read (the pattern stays on one line). A function
    named so may take its literals with spaces (``basicAuth "u" "X"``); a constructor's literals
    hold a secret after the first with no sign-in word (:func:`_constructor_secrets`)."""
    parens = "(" in text and ('",' in text or "'," in text)  # (two literals at least)
    if parens:
        yield from _constructor_secrets(text, low)
    if parens or '" "' in text or "' '" in text:
        yield from _sign_in_calls(text, low)


def _sign_in_calls(text: str, low: str) -> Iterator[Span]:
    for start, end in lines_holding(low, _CALL_WORDS, ("\"", "'")):
        for m in _CRED_CALL.finditer(low, start, end):
            literals = []
            at = m.end()
            spaced = not m.group().endswith("(")
            while len(literals) < 5:
                arg = (_SPACED_ARG if spaced else _LITERAL_ARG).match(text, at, end)
                if not arg:
                    break
                literals.append(arg)
                at = arg.end()
                if arg.group("sep") in (")", ""):
                    break
            if len(literals) < (3 if m.group().startswith(("connect", "mysqli")) else 2):
                continue
            for arg in literals[1:]:
                value = arg.group("value")
                if (credential_like(value) and not is_placeholder(value, quoted=True)
                        and not _HOST_OR_MAIL.fullmatch(value) and " " not in value):
                    yield "password passed to a sign-in call", arg.start("value"), arg.end("value")
                    break


# A constructor given a service's literals positionally, one of them made to be hard to guess:
# `new Sequelize('shop', 'shop_app', 'X', {...})`, `new BraintreeGateway(Environment.PRODUCTION,
# "merchant", "public", "X")`: a client built with its account, its user and its secret
_CONSTRUCTOR = lazy(r"(?:(?<![\w.])new[ \t]{1,4}[A-Za-z_][\w.]{0,60}|(?<![\w.])[A-Z][A-Za-z0-9]{2,60})[ \t]{0,4}\(")
_CALL_LITERAL = lazy(r"(?P<q>[\"'])(?P<value>[^\"'\n]{1,200})(?P=q)")
_ARGS_REACH = 400


def _constructor_secrets(text: str, low: str) -> Iterator[Span]:
    """A literal after a constructor's first that is random hex of a key's length or no word
    could be, among one-word literals, with no word between naming it an id or a digest."""
    for m in _CONSTRUCTOR.finditer(text):
        stop = len(text)
        for ch in ")({":
            i = text.find(ch, m.end(), m.end() + _ARGS_REACH)
            stop = min(stop, i if i >= 0 else stop)
        stop = min(stop, m.end() + _ARGS_REACH)
        literals = list(_CALL_LITERAL.finditer(text, m.end(), stop))
        if len(literals) < 2 or not all(_PLAIN_ARG.fullmatch(a.group("value")) for a in literals):
            continue
        for arg in literals[1:]:
            value = arg.group("value")
            # (hex of a git object's length is a commit: `new Release("app", "2026.12.1", "<sha>")`)
            if ((random_hex(value, min_len=32) and len(value) != 40) or (len(value) >= 12 and strong_unlabelled(value))) \
                    and not _HOST_OR_MAIL.fullmatch(value) and not is_placeholder(value, quoted=True) \
                    and not near_stop(between := _HOST_OR_MAIL.sub("", low[m.start():arg.start()]), 0, len(between)):  # (`smtp.corp.example`: a host)
                yield "password passed to a sign-in call", arg.start("value"), arg.end("value")
                break


_PLAIN_ARG = lazy(r"[\w.@+/=:!#%&*^~?-]{1,200}")  # one word each: names, ids, keys (no sentence, no template)


# --- a user and a password as a command's arguments, or a protocol's ---------------------------

# A command that names a user takes the password positionally: right after the user
# (`rabbitmqctl add_user deploy X`, `net user svc X /add`, `htpasswd -b file admin X`,
# `poetry config http-basic.corp deployer X`), anywhere on a line with a Windows `/user:` flag
# (`net use Z: \\fs\share X /user:CORP\svc`), or after `-p` once `-u` gave the user
# (`docker login -u ci -p X`, `altool -u me -p X`, `mysql -u root -pX`).
_USER_VERB = lazy(r"(?i:(?:[a-z0-9]+[_-])?(?:add|del|change|set|create|update|new)?[_-]?users?(?:[_-]?(?:add|mod|new|create|password))?"
                  # (a command named for passwords: htpasswd, mosquitto_passwd, change_password; not the word)
                  r"|[a-z0-9]{1,20}[_-]?passwd|(?:change|set|reset|update)[_-]password|http-basic(?:\.[\w-]{1,40})?|basic-auth)")
_USER_FLAG = lazy(r"(?i:-u|-U|--user(?:name)?|--login|--apple-id|--email|/u(?:ser)?:.{0,64})")
_PASSWORD_FLAG = lazy(r"-p(?P<attached>.{0,200})")
_COMMAND_WORDS = ("user", "passwd", "password", "http-basic", "basic-auth", "-u", "/user:")
_SHELL_TOKEN = lazy(r"[^\s]+")


def _positional(token: str) -> bool:
    """Is ``token`` a command's positional argument (not a flag, a path, a share or a setting)?"""
    return not token.startswith(("-", "/", "\\", "\"", "'", "$", "%", "<", "|", ">", "&", "(")) and not NAME_EQUALS.match(token) \
        and not token.endswith(":") and "/" not in token and "\\" not in token and "`" not in token \
        and not _HOST_OR_MAIL.fullmatch(token.rstrip(".,;)"))


def command_credentials(text: str, low: str) -> Iterator[Span]:
    """A password given to a command as an argument after the user it is for (see above): a
    value that looks like a password (after ``-p``), or no word or name could be (positional)."""
    for start, end in lines_holding(low, _COMMAND_WORDS):
        tokens = list(_SHELL_TOKEN.finditer(text, start, end))
        words = [t.group() for t in tokens]
        user_flag = -1
        for i, word in enumerate(words):
            if _USER_FLAG.fullmatch(word) and user_flag < 0:
                user_flag = i
                if word.lower().startswith(("/user:", "/u:")):
                    # Windows: the password is a positional argument anywhere on the line
                    for t in tokens[1:i]:
                        if _positional(t.group()) and password_shaped(t.group()):
                            yield "password given to a command", t.start(), t.end()
                            return
                continue
            flag = _PASSWORD_FLAG.fullmatch(word)
            if flag and user_flag >= 0:
                value, at = flag.group("attached"), tokens[i].start() + 2
                if not value and i + 1 < len(tokens):
                    value, at = words[i + 1], tokens[i + 1].start()
                value = value.strip("\"'")
                at += words[i + 1 if not flag.group("attached") else i].find(value) if value else 0
                if value and judge("password", "--", value, quoted=False, code=False, ends=True):
                    yield "password given to a command", at, at + len(value)
                    return
            if _USER_VERB.fullmatch(word) and i + 2 < len(words):
                j = i + 1
                while j < len(words) and (words[j].startswith("-") or "/" in words[j] or "\\" in words[j]):
                    j += 1  # flags and the file or share it works on (`htpasswd -b /etc/.htpasswd`)
                # (a command named for passwords, `htpasswd -b file ops X`, takes nothing but one
                # there: a person's `Juniper_4658` counts, as after a password's label)
                named = "passw" in word.lower()
                if j + 1 < len(words) and _positional(words[j]) and _positional(words[j + 1]) \
                        and (strong_unlabelled(words[j + 1]) or (named and word_and_number(words[j + 1], joined=True))) \
                        and words[j + 1] != words[j]:
                    yield "password given to a command", tokens[j + 1].start(), tokens[j + 1].end()
                    return


# A password or token as the value of any command's flag for one, whatever the command: attached
# to `-p` (`7z x a.7z -pX`, `unrar x -pX`, `mysql -pX`), Windows' `/p:X` and `/password:X`
# (`xfreerdp /p:X`, `rdesktop`, `psexec`), or after `-p`/`-P` (`zip -P X`, `sshpass -p X`), or after a one-letter flag for a token, key, secret or
# auth (`influx ... -t X`, `-k X`, `-a X`: a long random token only), and a token as `-u`'s user
# with the password left empty (`curl -u <key>:`: an API key sent as basic auth's user).
_FLAG_WORDS = (" -p", "\t-p", " /p", " -t", " -k", " -a", " -s", " -u", " /pass", "\t/p", " --pass", " --user", " -x")
_ATTACHED_P = lazy(r"-p(?P<value>[^\s\-][^\s]{5,200})")
_WINDOWS_P = lazy(r"(?i:[/-](?:p|pw|pwd|pass|password|passwd)):(?P<value>[^\s]{1,200})")
_TOKEN_FLAG = lazy(r"-[tkasTKAS]")
# Commands whose every password flag takes a password a person made (`sshpass -p X`, `openssl enc -k X`,
# `openssl ... -pass pass:X`): there a person's `Juniper_4658` counts, as after a password's label
_PASSWORD_COMMANDS = lazy(r"sshpass|openssl|htpasswd|[a-z0-9_-]{0,20}passwd|7za?|zip|unzip|unrar|rar|gpg2?")
_OPENSSL_PASS = lazy(r"-(?:pass|passin|passout|k)")
_PATTERN = lazy(r"[\[\]{}()]|\.\*|\]#")  # a glob's or regex's (zsh's `#compdef -P pip[0-9.]#`), not a password's
_USER_AND_PASSWORD = lazy(r"[\w.@\\-]{1,64}[:,](?P<value>[^\s'\"]{6,200})")
_KEY_AS_USER = lazy(r"(?P<value>[^\s:'\"]{16,200}):['\"]?")


# Commands whose one-letter flags other than `-p` take passphrases: net-snmp's v3 tools (`-A` the
# authentication passphrase, `-X` the privacy one); elsewhere `-A` and `-X` are an agent or a method
_PASSPHRASE_FLAGS = ("-A", "-X")
_PASSPHRASE_COMMANDS = lazy(r"snmp[a-z]{0,12}")


def _command_named(tokens: list[re.Match[str]], i: int, command: re.Pattern[str],
                   first: dict[int, int] | None = None) -> bool:
    """Is a token before the ``i``-th one the name of a ``command`` (after `sudo`, a path)?
    ``first`` caches, per command pattern, the index of its first token on the line (a line of
    ten thousand flags is read once, not once per flag)."""
    if first is None:
        return any(command.fullmatch(t.group().rsplit("/", 1)[-1]) for t in tokens[:i])
    key = id(command)
    if key not in first:
        first[key] = next((n for n, t in enumerate(tokens) if command.fullmatch(t.group().rsplit("/", 1)[-1])), len(tokens))
    return first[key] < i


joined_words = passphrase  # (flag_credentials names a flag's kind `passphrase`)


def flag_credentials(text: str, low: str) -> Iterator[Span]:
    """A password or token given to a command's flag for one (see above): after ``-p`` or
    ``/p:`` a value that looks like a password, after ``-t``/``-k``/``-a``/``-s`` a long random
    token, after ``-u`` a random token with an empty password."""
    for start, end in lines_holding(low, _FLAG_WORDS):
        tokens = list(_SHELL_TOKEN.finditer(text, start, end))
        first: dict[int, int] = {}
        for i, t in enumerate(tokens[1:], start=1):  # (a flag follows a command's name)
            word = t.group()
            windows = _WINDOWS_P.fullmatch(word)
            m = _ATTACHED_P.fullmatch(word) or windows
            if m:
                raw = m.group("value")
                value = raw.strip("\"'")
                quoted = raw[:1] in ("'", '"') and raw[-1:] == raw[:1]
                # (`/p:` names a password whatever the command: a person's `Pelican@9430` counts there,
                # and a mixed run of letters and digits; so does `-p` attached to a command that takes
                # a password, `7z a -p'Word2024!'`)
                named = windows is not None or _command_named(tokens, i, _PASSWORD_COMMANDS, first)
                shaped = password_shaped(value) or (named and (word_and_number(value, joined=True) or joined_words(value) or (
                    len(value) >= 8 and credential_like(value) and not identifier_like(value)
                    and not is_placeholder(value, quoted=True))))
                # (a quoted value is the password even with a `=` in it; `/p:Configuration=Release`
                # unquoted sets a property)
                if shaped and not (NAME_EQUALS.match(value) and not quoted) and not _PATTERN.search(value):
                    at = t.start() + word.find(value)
                    yield "password given to a command", at, at + len(value)
                continue
            if i + 1 >= len(tokens):
                continue
            nxt = tokens[i + 1].group()
            passphrase = word in _PASSPHRASE_FLAGS and _command_named(tokens, i, _PASSPHRASE_COMMANDS, first)
            person = (word in ("-p", "-P", "--pass") or _OPENSSL_PASS.fullmatch(word) is not None) \
                and _command_named(tokens, i, _PASSWORD_COMMANDS, first)
            if word in ("-p", "-P", "--pass") or passphrase or person:
                value = nxt.strip("\"'")  # (`zip -P X`, `sshpass -p X`: a port or a path is no password)
                if person and value.startswith("pass:"):
                    value = value[5:]  # openssl's `-pass pass:X`; `env:NAME` and `file:path` name where it lives
                # (snmp's `-A`/`-X` take nothing but a passphrase: any literal of its minimum length, 8)
                shaped = password_shaped(value) or (passphrase and len(value) >= 8 and credential_like(value)
                                                    and not is_placeholder(value, quoted=True))
                shaped = shaped or (person and word_and_number(value, joined=True))
                # (`minisign -Vm file -P <key>`, `signify -p <key>`: a public key, which verifies)
                if shaped and not _PATTERN.search(value) and not public_by_design(value):
                    at = tokens[i + 1].start() + nxt.find(value)
                    yield "password given to a command", at, at + len(value)
            elif _TOKEN_FLAG.fullmatch(word):
                value = nxt.strip("\"'")
                # (or a UUID after `-t`: the token of the CLIs whose tokens are UUIDs, Codecov's, Heroku's)
                if _random_flag_value(value) or (word == "-t" and UUID.fullmatch(value) is not None):
                    at = tokens[i + 1].start() + nxt.find(value)
                    yield "token given to a command", at, at + len(value)
            elif word in ("-u", "--user") and nxt.rstrip("'\"").endswith(":"):
                m = _KEY_AS_USER.fullmatch(nxt.strip("'\""))
                if m and _random_flag_value(m.group("value")):
                    at = tokens[i + 1].start() + nxt.find(m.group("value"))
                    yield "token given to a command", at, at + len(m.group("value"))
            elif word in ("-u", "--user", "-U"):
                # the user and the password in one argument (`curl -u ops:X`, `lftp -u ops,X`)
                m = _USER_AND_PASSWORD.fullmatch(nxt.strip("'\""))
                if m and password_shaped(m.group("value")) and not _PATTERN.search(m.group("value")):
                    at = tokens[i + 1].start() + nxt.find(m.group("value"))
                    yield "password given to a command", at, at + len(m.group("value"))


# Commands that take a password as a positional argument: `htpasswd -b[c] <file> <user> <password>`,
# `net use <drive> <share> <password> /user:<name>` (the arguments that are not flags, counted)
_POSITIONAL = lazy(r"(?<![\w-])(?:htpasswd[ \t]{1,4}-[a-zA-Z]{0,4}b[a-zA-Z]{0,4}(?:[ \t]{1,4}-[a-zA-Z]{1,4})*"
                   r"(?P<hargs>(?:[ \t]{1,4}[^\s-][^\s]{0,300}){3})"
                   r"|(?i:net)[ \t]{1,4}(?i:use)(?P<nargs>(?:[ \t]{1,4}[^\s/][^\s]{0,300}){2,3})(?=[ \t]{1,4}/(?i:user|u):))")


def positional_passwords(text: str) -> Iterator[Span]:
    """The password a command takes as a positional argument (see :data:`_POSITIONAL`): the last
    argument, a literal that is not a variable, a prompt's `*` or a placeholder."""
    if "htpasswd" not in text and "net use" not in text.lower():
        return
    for m in _POSITIONAL.finditer(text):
        group = "hargs" if m.group("hargs") else "nargs"
        args = list(_SHELL_TOKEN.finditer(text, m.start(group), m.end(group)))
        if group == "nargs" and (len(args) < 2 or not args[-2].group().startswith("\\\\")):
            continue  # `net use Z: \\host\share <password>`: the password after the share
        last = args[-1]
        value = last.group().strip("\"'")
        if len(value) >= 6 and not value.startswith(("$", "%", "*", "<", "{")) and not is_placeholder(value, quoted=True) \
                and not looks_fake(value):
            at = last.start() + last.group().find(value)
            yield "password given to a command", at, at + len(value)


def _random_flag_value(value: str) -> bool:
    """A token after a bare one-letter flag: random enough that no name, path or id could be it."""
    return (random_token(value, min_len=24) or random_hex(value, min_len=32) or (len(value) >= 32 and high_entropy(value)
            and not identifier_like(value))) and not DIGEST.fullmatch(value) and not is_placeholder(value, quoted=True) \
        and not looks_fake(value) and not value.lower().startswith(("sha", "md5", "0x")) and "/" not in value.rstrip("=")


# A value written into a file named for a credential (`echo 'X' > /etc/wireguard/private.key`,
# `printf %s X | sudo tee ~/.config/app/token`): the file's name labels what goes into it
_WRITTEN = lazy(r"(?<![\w-])(?:echo|printf)(?:[ \t]{1,4}-[a-z]{1,3})*(?:[ \t]{1,4}[\"']?%s(?:\\n)?[\"']?)?[ \t]{1,4}"
                r"(?P<q>[\"']?)(?P<value>[^\s\"'<>|;]{8,400})(?P=q)[ \t]{0,4}"
                r"(?:>{1,2}|\|[ \t]{0,4}(?:sudo[ \t]{1,4})?tee(?:[ \t]{1,4}-a)?)[ \t]{0,4}[\"']?(?P<path>[^\s\"';&|]{1,300})")
_FILE_WORDS = lazy(r"(?i:key|secret|token|pass|pwd|cred|psk|auth|cookie)")
_PUBLIC_FILE = lazy(r"(?i:pub|public|cert|\.crt|\.pem\.pub|known_hosts|authorized)")


# ... or handed to a command's flag for one through a pipe or a process substitution
# (`echo X | docker login --password-stdin`, `--vault-password-file <(echo X)`, restic's
# `--password-command "echo X"`)
_ECHOED = lazy(r"(?<![\w-])(?:echo|printf)(?:[ \t]{1,4}-[a-z]{1,3})*(?:[ \t]{1,4}[\"']?%s(?:\\n)?[\"']?)?[ \t]{1,4}"
               r"(?P<q>[\"']?)(?P<value>[^\s\"'<>|;()]{8,400})(?P=q)[ \t]{0,4}(?P<to>\||\)|[\"'](?=[ \t]|$))")
_CREDENTIAL_FLAG = lazy(r"(?i:--?[\w-]{0,30}(?:pass|secret|token|key|cred)[\w-]{0,30}|chpasswd|passwd)")


def _written_value(value: str) -> bool:
    return (random_token(value, min_len=16) or random_hex(value, min_len=32) or (len(value) >= 20 and high_entropy(value))
            or password_shaped(value)) and not is_placeholder(value, quoted=True) and not looks_fake(value)


def written_credentials(text: str, low: str) -> Iterator[Span]:
    """A value ``echo``'d or ``printf``'d into a file whose name says it holds a key, a secret, a
    token or a password, or into a command's flag for one: random, or a person's password
    (:func:`password_shaped`)."""
    for start, end in lines_holding(low, ("echo", "printf"), (">", "tee", "|", "<(", "\"echo", "'echo")):
        last_flag: int | None = None  # where the line's last credential flag starts, found once per line
        for m in _WRITTEN.finditer(text, start, end):
            name = m.group("path").rstrip("/").rsplit("/", 1)[-1]
            value = m.group("value")
            if not _FILE_WORDS.search(name) or _PUBLIC_FILE.search(name) or value.startswith(("$", "-", "/")):
                continue
            if _written_value(value):
                yield "secret written to a key file", m.start("value"), m.end("value")
        for m in _ECHOED.finditer(text, start, end):
            value = m.group("value")
            # (a pipe hands it to the flag after it; a process substitution to the flag before it)
            if m.group("to") == "|":
                # a flag anywhere after the pipe on the line: found once per line (a search to the
                # line's end from each pipe took time quadratic in a long line of pipes)
                if last_flag is None:
                    last_flag = last_match_start(_CREDENTIAL_FLAG, text, start, end)
                flag = last_flag >= m.end()
            else:
                flag = _CREDENTIAL_FLAG.search(text, max(start, m.start() - 80), m.start()) is not None
            if flag and not value.startswith(("$", "-", "/")) and _written_value(value):
                yield "secret handed to a command", m.start("value"), m.end("value")


# An account's e-mail address, a slash and its password ("Netflix: ana@mail.example / X"): a login
# written as a pair, wherever it stands
_MAIL_PAIR = lazy(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+[ \t]{0,4}(?:/|\||::)[ \t]{0,4}(?P<pw>[^\s\"'`,;|]{6,200})")


def mail_pairs(text: str) -> Iterator[Span]:
    """The password after an e-mail address and a slash, when it looks like a password by itself."""
    for start, end in lines_holding(text, ("@",), ("/", "|", "::")):
        for m in _MAIL_PAIR.finditer(text, start, end):
            pw = m.group("pw").rstrip(".,;:!?)")
            if password_shaped(pw) and "@" not in pw:
                yield "password after its login", m.start("pw"), m.start("pw") + len(pw)


# FTP's and POP3's `USER name` then `PASS X`, IMAP's `a1 LOGIN name X`: a protocol's sign-in, as a
# transcript, a packet capture or a debug log shows it
_PROTOCOL_PASS = lazy(r"^[ \t]{0,8}(?:[<>]{1,2}[ \t]{0,2})?USER[ \t]{1,4}[^\s]{1,64}[ \t]*\r?\n(?:[^\n]{0,200}\n){0,3}?"
                      r"[ \t]{0,8}(?:[<>]{1,2}[ \t]{0,2})?PASS[ \t]{1,4}(?P<value>[^\s]{4,200})[ \t]*\r?$", re.MULTILINE)
_IMAP_LOGIN = lazy(r"^[ \t]{0,8}(?:[<>]{1,2}[ \t]{0,2})?[A-Za-z0-9.]{1,12}[ \t]{1,4}LOGIN[ \t]{1,4}[^\s]{1,64}[ \t]{1,4}"
                   r"(?P<value>[^\s]{4,200})[ \t]*\r?$", re.MULTILINE)


# A server's config directive that takes a user and a password in the clear: HAProxy's `stats auth
# user:X` and a userlist's `user name insecure-password X` (its `password` takes a hash: passes)
_DIRECTIVE_LOGIN = lazy(r"^[ \t]{0,24}(?:stats[ \t]{1,4}auth[ \t]{1,4}[^\s:]{1,64}:|user[ \t]{1,4}[^\s]{1,64}[ \t]{1,4}insecure-password[ \t]{1,4})"
                        r"(?P<value>[^\s]{1,200})", re.MULTILINE)


# A command whose arguments are keyword/value pairs, a network's password among them: NetworkManager's
# `nmcli dev wifi connect SSID password X`, `nmcli con modify c wifi-sec.psk X`, wpa_cli's `set_network 0
# psk` with the value quoted twice. Any literal of 8 characters or more counts there (WPA's shortest).
_KEYWORD_COMMAND = lazy(r"^[ \t$#>]{0,8}(?:sudo[ \t]{1,4})?(?:nmcli|wpa_cli)(?=[ \t])[^\n]{0,400}?(?<![\w.-])"
                        r"(?:password|psk|wifi-sec\.psk|802-1x\.password|wep-key0)[ \t]{1,4}['\"]{0,2}"
                        r"(?P<value>[^\s\"']{8,200})['\"]{0,2}(?![^\s])", re.MULTILINE)


def keyword_credentials(text: str) -> Iterator[Span]:
    """A network's password as a keyword argument's value (see :data:`_KEYWORD_COMMAND`)."""
    if "nmcli" in text or "wpa_cli" in text:
        for m in _KEYWORD_COMMAND.finditer(text):
            value = m.group("value")
            if not is_placeholder(value, quoted=True):
                yield "password given to a command", m.start("value"), m.end("value")


def directive_logins(text: str) -> Iterator[Span]:
    """The password of a server's user given in a config directive (see :data:`_DIRECTIVE_LOGIN`)."""
    if "stats" in text or "insecure-password" in text:
        for m in _DIRECTIVE_LOGIN.finditer(text):
            value = m.group("value").strip("\"'")
            if len(value) >= 4 and not is_placeholder(value, quoted=True):
                yield "password in a config directive", m.start("value"), m.end("value")


def protocol_logins(text: str) -> Iterator[Span]:
    """The password of a protocol's sign-in in a transcript (``USER`` then ``PASS``; IMAP ``LOGIN``)."""
    for pattern, word in ((_PROTOCOL_PASS, "PASS "), (_IMAP_LOGIN, " LOGIN ")):
        if word in text:
            for m in pattern.finditer(text):
                value = m.group("value").strip("\"")
                if not is_placeholder(value, quoted=True) and not value.isdigit():
                    yield "password in a sign-in transcript", m.start("value"), m.end("value")


# --- header lists and CSV exports ------------------------------------------------------------

# `OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=KEY,x-other=v`: headers as `name=value` pairs in one
# setting, where the header's name says nothing (any vendor's), so the value is judged by itself.
_HEADER_LIST = lazy(r"(?<![A-Za-z0-9])(?i:[a-z0-9_]{0,60}headers)[\"']?[ \t]{0,4}[=:][ \t]{0,4}[\"']?"
                    r"(?P<list>[^\s\"'`]{3,2000})")


def header_lists(text: str, low: str) -> Iterator[Span]:
    """A random value in a ``*_HEADERS`` setting's ``name=value,name2=value2`` list (URL-encoded
    as OpenTelemetry writes it: ``Authorization=Bearer%20X``)."""
    if "headers" not in low:
        return
    for m in _HEADER_LIST.finditer(text):
        at = m.start("list")
        for pair in m.group("list").split(","):
            name, sign, value = pair.partition("=")
            words = unquote(value).split()
            if sign and name and words and high_entropy(words[-1]) and not is_placeholder(words[-1], quoted=True):
                start = at + len(name) + 1
                yield "secret assignment", start, start + len(value)
            at += len(pair) + 1


# A request header given on a command line or in a client's pane (`-H 'Grpc-Metadata-macaroon: <hex>'`,
# `--header "X-Corp-Auth: X"`): whatever its name, a long random value is a credential unless the
# name says it is an id, a digest, a trace or a content's property (etag, request id, traceparent, ...)
_REQUEST_HEADER = lazy(r"(?:-H|--header)(?:[ \t]{1,4}|=)[\"'](?P<name>[A-Za-z][A-Za-z0-9_-]{1,60})[ \t]{0,4}:[ \t]{0,4}"
                       r"(?P<value>[^\"'\n]{1,4000})[\"']")
_NOT_SECRET_HEADER = lazy(r"(?i:match|etag|trace|span|request|correlation|(?<![a-z])id$|-id(?![a-z])|digest|sha|md5|checksum"
                          r"|signature|content|nonce|idempotency|range|accept|type|agent|encoding|version|length|date|cache"
                          r"|origin|referer|host|forwarded|baggage|sentry|b3|session-affinity|modified)")


def request_headers(text: str) -> Iterator[Span]:
    """A long random value in a request header of any name (see :data:`_REQUEST_HEADER`): the
    last word of the value, random letters and digits (20 or more), random hex (32 or more) or a
    high-entropy run (32 or more)."""
    if "-H" not in text and "--header" not in text:
        return
    for m in _REQUEST_HEADER.finditer(text):
        if _NOT_SECRET_HEADER.search(m.group("name")):
            continue
        value = m.group("value").split()[-1] if m.group("value").split() else ""
        if (random_token(value, min_len=20) or random_hex(value, min_len=32) or (len(value) >= 32 and high_entropy(value))) \
                and not is_placeholder(value, quoted=True) and not looks_fake(value):
            at = m.start("value") + m.group("value").rfind(value)
            yield "secret in a request header", at, at + len(value)


_CSV_NAME = lazy(r"[a-z][a-z0-9_]{0,29}(?: [a-z0-9_]{1,20}){0,2}")  # a column's name, not prose
_CSV_PASSWORD = frozenset({"password", "passwd", "pass", "pwd", "login_password", "secret"})
_CSV_WORDS = ("pass", "pwd", "secret", "token", "key")


def _csv_class(cell: str) -> str | None:
    """The class of a column named for a credential: a password's, or a secret's or token's
    (``client_secret``, ``api_key``, ``access_token``; a random value only, judged as one)."""
    if cell in _CSV_PASSWORD:
        return "password"
    cls = key_class(cell.replace(" ", "_"))
    return cls if cls in ("password", "secret") else None


def csv_exports(text: str, low: str) -> Iterator[Span]:
    """The password column of a CSV export (a password manager's ``name,url,username,password``)
    or of a sheet copied as tab-separated values: a header row naming the column, then rows whose
    cell in it is judged as a password."""
    if ("," not in text and "\t" not in text) or not any(w in low for w in _CSV_WORDS):
        return
    lines = text.splitlines(keepends=True)
    offset, column, width, sep, cls = 0, -1, 0, ",", "password"
    for line in lines:
        if column < 0 and not any(w in line.lower() for w in _CSV_WORDS):
            offset += len(line)
            continue  # (only a header row starts a table: the other lines are not parsed)
        if column < 0:
            sep = "\t" if "\t" in line else ","
        row = next(csv.reader([line], delimiter=sep), [])
        cells = [c.strip().strip("\"'").lower() for c in row]
        named = [_csv_class(c) for c in cells]
        if len(cells) >= 3 and any(named) and all(_CSV_NAME.fullmatch(c) for c in cells):
            # (a password column first; else a secret's or a token's: `client_secret`, `api_key`)
            column = next((i for i, c in enumerate(named) if c == "password"), None)
            column = next(i for i, c in enumerate(named) if c) if column is None else column
            width, cls = len(cells), named[column]
        elif column >= 0 and len(row) == width:
            value = row[column].strip()
            if value and judge(cls, "=", value, quoted=True, code=False, ends=True):
                start = line.find(value)
                yield f"{cls} assignment", offset + start, offset + start + len(value)
        elif not line.strip():
            column = -1
        offset += len(line)


# --- files of credentials: cookie jars, user lists ---------------------------------------------

# A Netscape cookie jar's line (curl's cookies.txt, a browser export, ``.gitcookies``): domain, a flag,
# path, secure, expiry, name, value, tab-separated; the value is a session's credential when random
_COOKIE_LINE = lazy(r"^(?:#HttpOnly_)?[^\s#][^\t\n]{0,252}\t(?i:true|false)\t[^\t\n]{1,200}\t(?i:true|false)\t[0-9]{1,12}"
                    r"\t(?P<name>[^\t\n]{1,200})\t(?P<value>[^\t\r\n]{8,4000})\r?$", re.MULTILINE)
# A user list of quoted pairs (pgbouncer's ``userlist.txt``: ``"user" "password"``), a line each
_QUOTED_PAIR = lazy(r"^[ \t]{0,8}\"(?P<user>[^\"\s]{1,64})\"[ \t]{1,8}\"(?P<value>[^\"\n]{4,200})\"[ \t]*\r?$", re.MULTILINE)


_COOKIE_MEMBER = lazy(r"[\"']?value[\"']?[ \t]{0,4}:[ \t]{0,4}[\"']?(?P<value>[^\"'\s,{}]{8,4000})")
_MEMBER_NAME = lazy(r"[{,\s][\"']?([A-Za-z]{1,20})[\"']?[ \t]{0,4}:")
_COOKIE_REACH = 1000  # an exported cookie's object, around its value
_COOKIE_ATTRIBUTES = frozenset({"path", "expires", "expirationDate", "httpOnly", "secure", "sameSite", "hostOnly",
                                "session", "storeId", "maxAge"})


def _object_around(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the object a member at ``start:end`` sits in: its braces (JSON, a JS literal),
    else its YAML list item (from the line that opens it with ``-`` to the next item or a blank
    line), within :data:`_COOKIE_REACH`; an empty span when neither holds it."""
    opened = text.rfind("{", max(0, start - _COOKIE_REACH), start)
    if opened >= 0 and text.find("}", opened, start) < 0:
        closed = text.find("}", end, end + _COOKIE_REACH)
        return (opened, closed) if closed >= 0 else (0, 0)
    last = None
    for last in _YAML_ITEM.finditer(text, max(0, start - _COOKIE_REACH), start):
        pass  # (the item that opens last before the member)
    if not last or text.find("\n\n", last.start(), start) >= 0:
        return 0, 0
    nxt = _YAML_ITEM.search(text, end, end + _COOKIE_REACH)
    blank = text.find("\n\n", end, end + _COOKIE_REACH)
    stops = [p for p in ((nxt.start() if nxt else -1), blank) if p >= 0]
    return last.start(), min(stops) if stops else min(len(text), end + _COOKIE_REACH)


# A cookie as a browser's developer tools copy its row: name, value, domain, path, then its expiry
# ("Session", a date or an epoch), tab-separated
_COOKIE_ROW = lazy(r"^(?P<name>[^\t\n]{1,200})\t(?P<value>[^\t\n]{8,4000})\t\.?[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+"
                   r"\t/[^\t\n]{0,200}\t(?:Session|[0-9]{4}-[0-9]{2}-[0-9]{2}[^\t\n]{0,30}|[0-9]{9,13})(?:\t|\r?$)", re.MULTILINE)
_YAML_ITEM = lazy(r"(?m)^[ \t]{0,16}-[ \t]")


def _cookie_value(value: str) -> bool:
    """A cookie's value that is a session's credential: a random run in it, or random as a whole."""
    run = max(re.split(r"[^A-Za-z0-9_-]", value), key=len)
    return (random_token(run, min_len=16) or random_hex(run, min_len=32) or high_entropy(value)) \
        and not is_placeholder(value, quoted=True)


def credential_files(text: str) -> Iterator[Span]:
    """A random value in a cookie jar's line, and a password no word could be in a user list's
    quoted pair (a stored hash there is not one: secret_values.stored_not_secret)."""
    if "\t" in text and text.count("\t") >= 6:
        for m in _COOKIE_LINE.finditer(text):
            if _cookie_value(m.group("value")):
                yield "session cookie", m.start("value"), m.end("value")
    if text.count("\t") >= 4:
        for m in _COOKIE_ROW.finditer(text):
            if _cookie_value(m.group("value")):
                yield "session cookie", m.start("value"), m.end("value")
    if "domain" in text and "value" in text:
        # a cookie as an object (a browser extension's JSON export, Playwright's storage state in
        # JSON or YAML, Puppeteer's `setCookie({name, value, domain, path})`): its `value` member, its object
        # holding a `domain`, a `name` and a cookie's attribute (a DNS record's object, `name`,
        # `value` and `domain` alone, holds a verification token that is published)
        for m in _COOKIE_MEMBER.finditer(text):
            opened, closed = _object_around(text, m.start(), m.end())
            members = {k.group(1) for k in _MEMBER_NAME.finditer(text, opened, closed)}
            if "domain" in members and "name" in members and members & _COOKIE_ATTRIBUTES and _cookie_value(m.group("value")):
                yield "session cookie", m.start("value"), m.end("value")
    if '" "' in text or '"\t"' in text:
        for m in _QUOTED_PAIR.finditer(text):
            value = m.group("value")
            if value != m.group("user") and (strong_unlabelled(value) or random_token(value, min_len=16)) \
                    and not stored_not_secret(value):
                yield "password in a user list", m.start("value"), m.end("value")


# --- a value written in pieces for reading ------------------------------------------------------

# A key printed in groups for reading ("1a89fa64 d3804673 ...", "ca75 863a b1c5 ..."), as a
# provisioning sheet, a key file or a person copying one writes it: groups of hex digits of one
# length (4 to 8), 32 digits or more in all and not 40 (a PGP fingerprint's size), random, with a
# word naming a key, secret, token or password before them on their line or the line above and no
# word naming them an id, a digest or a fingerprint. (A hex dump's lines start with an offset.)
_HEX_GROUPS = lazy(r"(?<![\w:./-])[0-9a-fA-F]{4,8}(?:[ \t][0-9a-fA-F]{4,8}){3,31}(?![\w:./-])")
_GROUPS_NAMED = lazy(r"(?<![a-z])(?:ids?|identifier|fingerprint|hash(?:es)?|digest|checksum|sha-?[0-9]{0,3}|md5|commit"
                     r"|uuid|guid|serial|public|pub|address|example|sample|hint)(?![a-z])")  # what hex groups are when no secret
_GROUPS_REACH = 200  # how far before the groups, on their line and the line above, their name may stand
_HEX_DUMP_LINE = lazy(r"[ \t]*[0-9a-fA-F]{4,16}:")
# A password spelled out one character at a time ("letter by letter: M o s a i c 2 ..."): eight
# characters or more, each alone between spaces, read together as a person's strong password
_SPELLED = lazy(r"(?<![^\s:])(?:[^\s][ \t]){7,63}[^\s](?![^\s])")
_SPELLED_REACH = 40  # how far before a spelled-out random token, on its line, the word naming it may stand


def grouped_values(text: str, low: str) -> Iterator[Span]:
    """A key in hex groups after a word naming it, and a password spelled out character by
    character (see :data:`_HEX_GROUPS` and :data:`_SPELLED`)."""
    for m in _HEX_GROUPS.finditer(text):
        groups = m.group().split()
        joined = "".join(groups)
        # (or decimal groups, as Signal prints its 30-digit backup passphrase: five groups or more,
        # 24 digits or more, of many digits; no phone, card or account number is that long in groups)
        digits = joined.isdigit() and len(groups) >= 5 and len(joined) >= 24 and len(set(joined)) >= 7
        if len({len(g) for g in groups}) != 1 or len(joined) == 40 or not (
                digits or (len(joined) >= 32 and random_hex(joined, min_len=32))):
            continue
        # (within reach: a line of 80 KB of groups is not read back once per run)
        line = max(text.rfind("\n", max(0, m.start() - _GROUPS_REACH), m.start()) + 1, m.start() - _GROUPS_REACH)
        if _HEX_DUMP_LINE.match(text, line):
            continue  # `00000010: 1a89 fa64 ...`: a dump of a file's bytes
        above = max(text.rfind("\n", max(0, line - 1 - _GROUPS_REACH), max(0, line - 1)) + 1, line - _GROUPS_REACH, 0)
        head = low[above:m.start()]
        if _HEAD_WORD.search(head) and not _GROUPS_NAMED.search(head):
            yield "key written in groups", m.start(), m.end()
    if text.count(" ") >= 7:
        for m in _SPELLED.finditer(text):
            joined = m.group().replace(" ", "").replace("\t", "")
            if _person_password(joined, inner=False) and not is_placeholder(joined, quoted=True):
                yield "password spelled out", m.start(), m.end()
            elif random_token(joined, min_len=16) and _HEAD_WORD.search(low, max(text.rfind("\n", 0, m.start()) + 1,
                                                                                  m.start() - _SPELLED_REACH), m.start()):
                # a random token spelled out after a word naming it on its line ("pass = 9 y V j ..."):
                # letters of both cases and digits, sixteen or more, no sentence is
                yield "password spelled out", m.start(), m.end()


# --- a value alone on the line below what names it -------------------------------------------

# A line that names a credential and ends in ":" ("config/master.key for billing (to edit X):"), or
# a shell command that prints one ("$ argocd admin initial-password -n argocd"), then a line that is
# one random token and nothing else. (A command that prints a file, `cat .vault_pass`, without a
# prompt's sign: what it printed is the file's content.)
_BELOW = lazy(r"^[ \t]{0,8}(?P<head>(?:[$#%>][ \t]{1,4}[^\n]{1,300}|(?i:cat|type|more|less|head|tail|bat|batcat|get-content|gc)"
              r"[ \t]{1,4}[^\s|;&<>]{1,200}|[^\n]{1,300}:))[ \t]*\r?\n"
              r"[ \t]{0,8}(?P<value>[^\s]{12,8000})[ \t]*\r?$", re.MULTILINE)  # (a registry's login token: ~2 KB)
_USER_THEN_VALUE = lazy(r"[ \t]{0,8}(?i:user(?:[ _]?name)?|login)[ \t]{0,4}[:=][ \t]{0,4}[^\s]{1,64}[ \t]*\r?\n"
                        r"[ \t]{0,8}(?P<value>[^\s]{8,64})[ \t]*(?=\r?\n|\Z)")
# a command that signs in as a user (`ssh ops@10.20.0.5`, `su - deploy`, `mysql -u app`), then a line
# that is only a value: the password it asks for, written below it
_SIGN_IN_THEN_VALUE = lazy(r"[ \t]{0,8}(?:[$#>][ \t]{1,4})?(?:ssh|sftp|scp|telnet|ftp|su|mysql|psql|mongosh|smbclient|rdesktop"
                           r"|xfreerdp|kinit|login)(?:[ \t]{1,4}[^\s]{1,200}){0,8}?[ \t]{1,4}(?:[\w.-]{1,64}@[^\s]{1,200}|-u[ \t]?[^\s]{1,64}"
                           r"|-U[ \t]?[^\s]{1,64}|-[ \t]{1,4}[\w.-]{1,64}|[\w.-]{1,64})[ \t]*\r?\n"
                           r"[ \t]{0,8}(?P<value>[^\s]{8,64})[ \t]*(?=\r?\n|\Z)")
_SIGN_IN_COMMANDS = ("ssh", "sftp", "scp", "telnet", "ftp", "su ", "mysql", "psql", "mongosh", "smbclient", "rdesktop",
                     "xfreerdp", "kinit", "login")
_HEAD_WORD = lazy(r"(?<![a-z])(?:pass(?:word|wd|phrase)?|secret|token|credentials?|(?:[a-z]{2,12}[ ._-])?key)(?![a-z])")


def values_below(text: str, low: str) -> Iterator[Span]:
    """A random token alone on the line below a label line ending in ``:`` or below a shell
    command (``$ ...``) whose words name a password, secret, token or key: what the command
    printed, or the value the line announces."""
    if "\n" not in text:
        return
    for start, _ in lines_holding(low, ("user", "login")):
        m = _USER_THEN_VALUE.match(text, start)
        # "user: deploy" then a line that is only a password: the pair a login is written as
        if m and strong_unlabelled(m.group("value")):
            yield "password on the line below its user", m.start("value"), m.end("value")
    for start, _ in lines_holding(low, _SIGN_IN_COMMANDS):
        m = _SIGN_IN_THEN_VALUE.match(text, start)
        if m and strong_unlabelled(m.group("value")):
            yield "password on the line below its sign-in", m.start("value"), m.end("value")
    if not any(w in low for w in ("pass", "secret", "token", "key", "credential")):
        return
    for m in _BELOW.finditer(text):
        head = low[m.start("head"):m.end("head")]
        words = _HEAD_WORD.findall(head)
        if not words or any(p in head for p in PUBLIC_KEY_NAMES if p not in ("host", "object", "row", "index")):
            continue
        value = m.group("value")
        if is_placeholder(value, quoted=True) or DIGEST.fullmatch(value) or identifier_like(value):
            continue
        if high_entropy(value) or random_token(value, min_len=12) or (len(value) >= 12 and unguessable(value)):
            yield "secret on the line below its label", m.start("value"), m.end("value")
