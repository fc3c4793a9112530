"""A credential known by its partner: a user and its password, a key id and its secret.

- :func:`credential_pairs`: a user and a password given as a pair (``u: X p: Y``, "bot account:
  jira-bot / X", "user sam, password X"), a Wi-Fi network and its password, an API and an app key.
- :func:`key_id_pairs`: an access key's id and its secret side by side.
- :func:`login_rows` and :func:`two_line_logins`: a header-less table of logins, a user's line then
  the password's.
- :func:`unlabelled_passwords` and :func:`sentence_passwords`: a password named by its use ("log in
  ... with X", "use X to unlock", "X gets you in", a ``user:X`` handed to base64) or standing in a
  sentence, only a value no word could be.

Each finder yields ``(kind, start, end)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vault_mem.model import secret_words
from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_judge import (
    gives_example, judge, name_like, near_stop, passphrase, password_shaped, strong_unlabelled, symbol_word_number,
    two_words_number, unsigned_password, word_and_number,
)
from vault_mem.model.secret_names import DIGEST, SEP, Span
from vault_mem.model.secret_near import NEAR_ID_PREFIXES
from vault_mem.model.secret_public import public_by_design
from vault_mem.model.secret_text import lines_holding
from vault_mem.model.secret_values import (
    UUID, high_entropy, is_placeholder, looks_fake, random_hex, random_token, reference_token,
    stored_not_secret, unguessable,
)

__all__ = ["credential_pairs", "key_id_pairs", "login_rows", "person_password", "sentence_passwords",
           "two_line_logins", "unlabelled_passwords"]

# Rows of a header-less table, one login to a row: a user's name in a column, the password in the
# next (`floor2<TAB>admin<TAB>!2GusUR7P4`); tabs, commas, semicolons or pipes between the cells
# (an account's usual name, an e-mail address or a first.last name: not any word, since code's
# comma-separated arguments are words too)
_ROW_USER = lazy(r"(?:admin|administrator|root|sa|ops|user|guest|operator|service|svc[a-z0-9_-]{0,20}|deploy|support|backup"
                 r"|postgres|mysql|oracle|ubnt|pi|monitor|manager|supervisor|tech|install|maint|readonly|viewer)[0-9]{0,3}"
                 r"|[a-z0-9][a-z0-9._-]{0,40}@[a-z0-9.-]{1,60}|[a-z]{2,20}[._][a-z]{2,20}[0-9]{0,3}", re.IGNORECASE)
_ROW_CELL = lazy(r"[^\s()\[\]{}<>\"'`=,;|\\]{1,64}")
# (or any lower-case name in the column after a host's, `kiosk-01<TAB>kiosk<TAB>X`: a host, its user,
# its password, when the password is a value no word or name could be on every row)
_ROW_HOST = lazy(r"(?=[^\s]*[0-9.])[a-z0-9][a-z0-9.-]{0,62}", re.IGNORECASE)
_ROW_NAME = lazy(r"[a-z][a-z0-9._-]{1,30}")
# (a value that names its kind, `sha256:...`, or a version, `1.25.3-alpine`, `v2.4.1+build.7`)
_TYPED = lazy(r"[a-z0-9-]{2,12}:|v?[0-9]{1,4}\.[0-9]", re.IGNORECASE)


_LINE = lazy(r"[^\n]+")
# One row is enough when its value is strong by itself (secret_judge.strong_unlabelled): names
# and then a password, with no header (`pg | ledger | X`) or an arrow from the user (`svc-etl => X`)
_NAMES_ROW = lazy(r"^[ \t]{0,8}\|?[ \t]{0,4}[\w.@-]{1,64}(?:[ \t]{1,4}\|[ \t]{1,4}[\w.@-]{1,64}){0,3}"
                  r"[ \t]{1,4}(?:\||=>|->|→)[ \t]{1,4}(?P<value>[^\s|\"'`]{8,200})[ \t]{0,4}\|?[ \t]*\r?$", re.MULTILINE)
_HEADER_RULE = lazy(r"^[ \t|:+-]{0,8}-{3,}", re.MULTILINE)


# A line that says a login follows ("NAS admin login", "the file
# auth-user-pass reads:"), then a user's name alone on its line, then the password alone on the next
_LOGIN_LINE = lazy(r"(?i:(?<![\w-])(?:log-?in|sign-?in|credentials|creds|auth-user-pass|account)(?![\w-]))")
_SITE_LINE = lazy(r"[ \t]*https?://[^\s/]{3,200}(?:/[^\s]{0,300})?[ \t]*")
_USER_LINE = lazy(r"[ \t]*[\w.@+\\-]{2,64}[ \t]*")
_PW_LINE = lazy(r"[ \t]*(?P<pw>[^\s]{6,200})[ \t]*")


def two_line_logins(text: str) -> Iterator[Span]:
    """The password on the line below a user's name, both alone under a line that names a login:
    a value no word or name could be, or letters and a number of four digits or more. A site's
    address alone on its line names a login too when the user's line is an e-mail address (a
    password manager's entry copied out: the site, the address, the password)."""
    if not _LOGIN_LINE.search(text) and "://" not in text:
        return
    lines = text.split("\n")
    offset = 0
    for i, line in enumerate(lines):
        site = _SITE_LINE.fullmatch(line.rstrip("\r")) is not None
        if i + 2 < len(lines) and len(line) <= 240 and (site or _LOGIN_LINE.search(line)):
            user, pw_line = lines[i + 1].rstrip("\r"), lines[i + 2].rstrip("\r")
            m = _PW_LINE.fullmatch(pw_line)
            if m and _USER_LINE.fullmatch(user) and m.group("pw") != user.strip() and (not site or "@" in user):
                pw = m.group("pw")
                # (letters run together and a year: twelve long at least, so `footer2024` is a name)
                # (or words and a number joined as a person joins them: `Vpn-Harbor-1988`)
                made = unguessable(pw) or (len(pw) >= 12 and pw.isalnum() and pw.rstrip("0123456789").isalpha()
                                           and len(pw) - len(pw.rstrip("0123456789")) >= 4) \
                    or (len(SEP.split(pw)) >= 2 and word_and_number(pw, joined=True))
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
        for j in range(1, width - 1):
            if all(_ROW_HOST.fullmatch(cells[j - 1]) and _ROW_NAME.fullmatch(cells[j]) and strong_unlabelled(cells[j + 1]) and password_shaped(cells[j + 1])
                   and not _TYPED.match(cells[j + 1]) and not is_placeholder(cells[j + 1], quoted=False) for _, cells in rows):
                at, line = lines[0]
                start = at + line.find(rows[0][1][j + 1])
                at, line = lines[-1]
                yield "logins in a table", start, at + line.rfind(rows[-1][1][j + 1]) + len(rows[-1][1][j + 1])
                return
    if ("|" in text or "=>" in text or "->" in text or "→" in text) and not _HEADER_RULE.search(text):
        for m in _NAMES_ROW.finditer(text):  # (a table with a header is judged by its column: table_cells)
            value = m.group("value")
            if strong_unlabelled(value) and not stored_not_secret(value) and not _TYPED.match(value):
                yield "logins in a table", m.start("value"), m.end("value")


# A user and a password given as a pair: under the letters that abbreviate them (`u: X p: Y`,
# `usr=X pw=Y`), or after a label naming an account or a login, the user, then `/` or `,` and the
# password to the end of the sentence ("bot account: jira-bot / X", "login to the NAS: admin, X")
# (the names and values may be quoted, as an object or a call's keywords hold them: `{"u": "svc", "p": "X"}`,
# `login(usr='deploy', psw='X')`)
_LETTER_PAIR = lazy(r"(?<![\w-])[\"']?(?:u|usr|user)[\"']?[ \t]{0,2}[:=][ \t]{0,4}[\"']?(?P<user>[^\s,;|\"']{1,64})[\"']?"
                    r"[ \t]{0,4}[,;|/]?[ \t]{1,4}[\"']?(?:p|pw|pwd|psw)[\"']?[ \t]{0,2}[:=][ \t]{0,4}[\"']?"
                    r"(?P<pw>[^\s,;|\"']{4,200})", re.IGNORECASE)
# (the pair joined as Basic auth joins it too, `user:X`, or by "and": "creds are admin and X";
# the sign may be "is"/"are" or a space after "basic auth")
_ACCOUNT_PAIR = lazy(r"(?<![\w-])(?:account|acct|login|log-?in|sign[ -]?in|creds|credentials|basic[ -]?auth)"
                     r"(?:[ \t]{1,4}[\w.-]{1,30}){0,4}?(?:[ \t]{0,2}(?::|->|→|=)|[ \t]{1,4}(?:is|are)|(?<=auth))[ \t]{1,4}"
                     r"(?P<user>[\w.@+-]{2,64})(?:[ \t]{0,2}[/,][ \t]{1,4}|(?P<colon>:)|[ \t]{1,4}and[ \t]{1,4})"
                     r"(?P<pw>[^\s,;]{6,200}?)[.,;]?(?=[ \t]*(?:\r?\n|\Z)|[ \t]{1,4}(?:[(\[]|--|—)|[ \t]{1,4}[A-Z]"
                     r"|[ \t]{1,4}(?:on|for|at|to|in)[ \t])", re.IGNORECASE)


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


# A network's name and its password after a Wi-Fi label, split by a slash ("wifi: Cabin-2G / X"), in
# any language ("Red: Oficina-2G / clave: X", "Réseau : Bureau / clé : X"): a one-word label before the
# password may stand after the slash
_NETWORK_WORDS = r"wi-?fi|wlan|wireless|ssid|network|red|r[ée]seau|rede|netz(?:werk)?|rete|sie[ćc]|netwerk|n[äa]tverk"
_NETWORK_PAIR = lazy(rf"(?<![\w-])(?:{_NETWORK_WORDS})[ \t]{{0,2}}:[ \t]{{0,4}}[^\s/]{{1,64}}[ \t]{{0,2}}/[ \t]{{0,2}}"
                     r"(?:(?P<label>[^\W\d_]{2,20}(?:[- ][^\W\d_]{2,12}){0,2})[ \t]{0,2}:[ \t]{0,4})?(?P<pw>[^\s/]{8,63})(?![^\s])",
                     re.IGNORECASE)
# ... or by a comma, the password's label then standing before it with or without a colon ("guest
# network OfficeGuest, key X", "WLAN Werkstatt; Schlüssel X", "ssid cabin5g, psk: X")
_NETWORK_LISTED = lazy(rf"(?<![\w-])(?:{_NETWORK_WORDS})[ \t]{{0,2}}:?[ \t]{{1,4}}[^\s/,;]{{1,64}}[ \t]{{0,2}}[,;][ \t]{{0,4}}"
                       r"(?P<label>[^\W\d_]{2,20}(?:[- ][^\W\d_]{2,12}){0,1})[ \t]{0,2}(?::[ \t]{0,4}|[ \t]{1,4})(?P<pw>[^\s/]{8,63})(?![^\s])",
                       re.IGNORECASE)
# (the label after the slash names the password or the network's key, in any language)
_NETWORK_KEY = lazy(rf"(?i:(?:[^\W\d_]{{2,6}}[- ])?(?:pass\w*|pw|pwd|psk|wpa\w*|keys?|code|{secret_words.PASSWORD}|{secret_words.SECRET}))")
# (words that name a network's kind or part, never a passphrase's: "network -> docker-default-bridge")
_NETWORK_PARTS = frozenset(["default", "bridge", "host", "overlay", "net", "network", "vlan", "lan", "wan", "subnet",
                            "docker", "compose", "internal", "external", "public", "private", "guest", "wifi", "office",
                            "home", "mesh", "band", "channel", "local"])
# A network's label, an arrow and a generator's words ("Guest network -> X", "office wifi => X"): what
# an arrow gives a network is its password; a network's name is not four words joined
_NETWORK_ARROW = lazy(rf"(?<![\w-])(?:{_NETWORK_WORDS})[ \t]{{0,2}}(?:->|=>|→|⇒)[ \t]{{0,4}}(?P<pw>[^\s/]{{8,63}})(?![^\s])",
                      re.IGNORECASE)


def credential_pairs(text: str) -> Iterator[Span]:
    """A user's name and a password given as a pair (see :data:`_LETTER_PAIR`): under ``u:`` and
    ``p:`` the password is judged as after its label; after an account's or a login's label and a
    user, only a value no word or name could be, a person's word and number, or words a generator
    joined (`/` and `,` join names too: "account: billing, invoices")."""
    low = text.lower()
    if "p" in low and ("u:" in low or "u=" in low or "u :" in low or "u\":" in low or "u':" in low or "usr" in low
                       or "user" in low):
        for m in _LETTER_PAIR.finditer(text):
            pw = m.group("pw").rstrip(".,;:!?)]}>") if not m.group("pw")[-1:] in "!?" or len(m.group("pw")) < 5 else m.group("pw")
            if m.group("user") != pw and judge("password", ":", pw, quoted=False, code=False, ends=True):
                yield "password assignment", m.start("pw"), m.start("pw") + len(pw)
    if "/" in low:
        for m in _NETWORK_PAIR.finditer(text):
            pw = m.group("pw").rstrip(".,;)")
            if m.group("label") and not _NETWORK_KEY.fullmatch(m.group("label")):
                continue
            if judge("network", ":", pw, quoted=False, code=False, ends=True) or word_and_number(pw) or passphrase(pw) \
                    or symbol_word_number(pw):
                yield "password assignment", m.start("pw"), m.start("pw") + len(pw)
    if "," in text or ";" in text:
        for m in _NETWORK_LISTED.finditer(text):
            pw = m.group("pw").rstrip(".,;)")
            if _NETWORK_KEY.fullmatch(m.group("label")) and (
                    judge("network", ":", pw, quoted=False, code=False, ends=True) or word_and_number(pw)
                    or passphrase(pw) or symbol_word_number(pw)
                    or (pw[-1:].isdigit() and passphrase(pw.rstrip("0123456789").rstrip("-_.")))):
                # (words and a number: EFF's generator's `saddle-meadow-harbor47`)
                yield "password assignment", m.start("pw"), m.start("pw") + len(pw)
    if ">" in text or "→" in text or "⇒" in text:
        for m in _NETWORK_ARROW.finditer(text):
            pw = m.group("pw").rstrip(".,;)")
            parts = SEP.split(pw.lower())
            if len(parts) >= 4 and passphrase(pw) and not _NETWORK_PARTS.intersection(parts):
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
    if "acc" in low or "log" in low or "sign" in low or "cred" in low or "auth" in low:
        for m in _ACCOUNT_PAIR.finditer(text):
            pw = m.group("pw")
            if m.group("colon") and (":" in pw or "/" in pw or pw.isdigit()):
                continue  # an ARN's, a URL's or a port's colon (`aws:iam::123...`, `host:8443`), no user's
            if pw != m.group("user") and (password_shaped(pw) or word_and_number(pw) or passphrase(pw)):
                yield "password assignment", m.start("pw"), m.end("pw")


# A password given by its use, with no label: "log in as deploy with X", "use X to unlock the
# keystore". Only a value no word or name could be counts (see strong_unlabelled).
_SIGN_IN = r"log[ \t]?in|log[ \t]on|sign[ \t]?in"
# (or an account named by its address, "use demo@corp.example with X": the address signs in)
_USED_WITH = lazy(rf"(?i:{_SIGN_IN}|authenticate|ssh|connect|(?<![a-z])use[ \t]{{1,4}}[\w.+-]{{1,64}}@[\w-]{{1,63}}(?:\.[\w-]{{1,63}})+)"
                  r"(?![a-z])[^\n]{0,60}?[ \t]with"
                  r"[ \t]{1,4}[`'\"]?(?P<value>[^\s`'\"]{8,64})")
_USE_TO = lazy(r"(?<![a-z])(?i:use)[ \t]{1,4}[`'\"]?(?P<value>[^\s`'\"]{8,64})[`'\"]?[ \t]{1,4}(?i:to|for)[ \t]{1,4}"
                     rf"(?i:unlock|{_SIGN_IN}|decrypt|open|access|authenticate|sudo|get[ \t]in(?:to)?|enter)(?![a-z])")
# "to log in to grafana: X", "for unlocking the vault -> X": a value after a colon (or an arrow) that
# the words before it on its line name as what signs in or unlocks
_TO_SIGN_IN = lazy(rf"(?<![a-z])(?i:to|for)[ \t]{{1,4}}(?i:{_SIGN_IN}|logging[ \t]?in|signing[ \t]?in|unlock(?:ing)?"
                   r"|decrypt(?:ing)?|authenticat(?:e|ing))(?![a-z])[^\n:]{0,60}?(?::|->|→)[ \t]{1,4}[`'\"]?(?P<value>[^\s`'\"]{8,64})")
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
_USER_SLASH = lazy(r"(?<![^\s:(,])(?P<user>[A-Za-z0-9][\w.@+-]{0,63})[ \t]{1,3}[/—–][ \t]{1,3}(?P<value>[^\s/`'\"]{8,64})(?=[\s.,;)]|\Z)")
# the accounts every box or service has (one list: a name alone, and `NAME:value`)
_ACCOUNTS = ("(?i:root|admin|administrator|ubuntu|pi|postgres|sa|elastic|oracle|ec2-user|sysadmin|superuser"
             "|guest|operator|support)")
_ACCOUNT_NAME = lazy(_ACCOUNTS)
# `root:X`, `admin:X on the router`: an account every box has, a colon, a value no word could be
# (or a slash, as a login is read out with no spaces: "admin/X at 192.168.0.1")
_DEFAULT_ACCOUNT = lazy(r"(?<![\w/@:.-])" + _ACCOUNTS + r"[:/](?P<value>[^\s:/@`'\"]{8,64})(?=[\s.,;)]|\Z)")
# `echo X | docker login --password-stdin`, `echo X | sudo -S ...`, `echo 'u:X' | chpasswd`: a value
# piped into a command that reads a password from its input
_PIPED = lazy(r"(?<![\w-])(?:echo|printf)(?:[ \t]{1,4}-[ne]{1,2})?[ \t]{1,4}[\"']?(?P<value>[^\s\"'|$`]{6,200})[\"']?[ \t]{0,4}\|"
              r"[^\n]{0,160}?(?:-stdin|sudo[ \t]{1,4}-[a-z]{0,4}S|chpasswd|-passin[ \t]{1,4}stdin"
              # (or a file for a password read from the input: `--from-file=password=/dev/stdin`)
              r"|(?i:pass\w{0,10}|secret|token)[=:]/dev/stdin)")
# `printf '%s' 'id:X' | base64`, `btoa('api:X')`, `b64encode(b"svc:X")`: a user and its password
# joined by a colon and handed to base64 (HTTP Basic's form): the part after the colon
# (the call may wrap the literal first: Go's `EncodeToString([]byte("u:X"))`, .NET's `ToBase64String(...GetBytes("u:X"))`)
_ENCODED_PAIR = lazy(r"(?:(?:echo|printf)(?:[ \t]{1,4}-[ne]{1,2})?(?:[ \t]{1,4}'%s')?[ \t]{1,4}|(?i:btoa|b64encode|base64_encode"
                     r"|encodetostring|tobase64string|base64\.encode|buffer\.from|tobase64)[ \t]{0,4}\([^\"'\n]{0,60}?b?)"
                     r"[\"'][^\"'\s:$]{1,64}:(?P<value>[^\"'\s$]{8,200})[\"']")
# A key named by what it does: "webhooks are signed HMAC-SHA256 with X", "we sign the JWTs with X",
# "decrypt the backup with X", "HMAC ... using X": what a thing is signed or decrypted *with* is its key
# (a digest is what signing gives, "the HMAC of the body is X", never what it is done with)
_SIGNED_WITH = lazy(r"(?<![a-z])(?i:sign(?:ed|s|ing)?|hmac[\w-]{0,12}|decrypt(?:ed|s|ing)?|encrypt(?:ed|s|ing)?)(?![a-z])"
                    r"[^\n]{0,60}?[ \t](?i:with|using)[ \t]{1,4}[`'\"]?(?P<value>[^\s`'\"]{16,200})")
# (the words between that say the value is no secret: "signed with the public key X", "key id X";
# not a digest's name, which names the MAC there: "signed HMAC-SHA256 with X")
_SIGN_STOP = lazy(r"(?<![a-z])(?:ids?|fingerprint|thumbprint|public|pub|example|sample|dummy|fake|placeholder)(?![a-z])")
_UNLABELLED = ((_USER_SLASH, (" / ", " — ", " – "), ()),
               (_ENCODED_PAIR, ("base64", "btoa", "b64encode", "encodetostring"), ()),
               (_PIPED, ("|",), ("stdin", "sudo", "chpasswd")),
               (_DEFAULT_ACCOUNT, ("root:", "admin", "ubuntu:", "pi:", "postgres:", "sa:", "elastic:", "oracle:", "ec2-user:",
                                   "superuser:", "guest:", "operator:", "support:", "root/", "ubuntu/", "pi/", "postgres/",
                                   "sa/", "elastic/", "oracle/", "superuser/", "guest/", "operator/", "support/"), ()),
               (_USED_WITH, ("with",), _SIGN_IN_WORDS + ("authenticate", "ssh", "connect", "use")),
               (_USE_TO, ("use",), _SIGN_IN_WORDS + ("unlock", "decrypt", "open", "access", "authenticate", "sudo", "get in",
                                                 "enter")),
               (_SIGNED_WITH, ("with", "using"), ("sign", "hmac", "crypt")),
               (_TAKES, ("takes", "accepts", "wants"), ()),
               (_GETS_IN, (" in",), ("gets", "get ", "lets")),
               (_TO_SIGN_IN, _SIGN_IN_WORDS + ("unlock", "decrypt", "authenticat"), ("to ", "for ")))


def unlabelled_passwords(text: str, low: str) -> Iterator[Span]:
    """A password named by what it does ("log in ... with X", "use X to unlock"), no label
    (``low``: ``text`` lowercased, same length)."""
    for pattern, words, also in _UNLABELLED:
        for start, end in lines_holding(low, words, also):
            for m in pattern.finditer(text, start, end):
                value = m.group("value").rstrip(".,;:!?)")
                if pattern is _SIGNED_WITH:
                    if _signing_key(value) and not _SIGN_STOP.search(low, m.start(), m.start("value")):
                        yield "key named by what it signs", m.start("value"), m.start("value") + len(value)
                    continue
                if pattern is _TO_SIGN_IN:
                    # (the words say what it is for, not that it is one: a name, a path or an address
                    # after them is where or how one signs in, so only a drawn value or a person's
                    # password with a symbol counts)
                    # (nor a time, a URL's or a port's colon, or a digest's hex: a commit's id)
                    # (a name, a version or a method joined by dashes, `OAuth2-PKCE-flow`, is how: name_like)
                    if unsigned_password(value) and ":" not in value and not DIGEST.fullmatch(value) and not name_like(value) \
                            and SEP.split(value, 1)[0].lower() not in NEAR_ID_PREFIXES:
                        yield "password given by its use", m.start("value"), m.start("value") + len(value)
                    continue
                if strong_unlabelled(value) and SEP.split(value, 1)[0].lower() not in NEAR_ID_PREFIXES:
                    yield "password given by its use", m.start("value"), m.start("value") + len(value)
                elif pattern is _DEFAULT_ACCOUNT and password_shaped(value):
                    # an account every box has, then a person's password with a symbol in it (`admin/X`)
                    yield "password given by its use", m.start("value"), m.start("value") + len(value)
                elif pattern is _PIPED and (word_and_number(value, joined=True) or passphrase(value)) \
                        and not is_placeholder(value, quoted=True):
                    # what a command reads as its password takes a person's words and number too
                    yield "password given by its use", m.start("value"), m.start("value") + len(value)
                elif pattern in (_USED_WITH, _USER_SLASH, _USE_TO) and two_words_number(value) \
                        and SEP.split(value, 1)[0].lower() not in NEAR_ID_PREFIXES \
                        and sum(c.isalpha() for c in SEP.split(value)[-1]) >= 3:  # (a word's number, `release.2026`, passes)
                    # two words joined and a number, as a person makes a password ("log in as root with
                    # <word>.<word><digits>", "jdoe / <word>-<word><digits>"): no name is given so to a sign-in
                    yield "password given by its use", m.start("value"), m.start("value") + len(value)
                elif pattern is _USER_SLASH and _ACCOUNT_NAME.fullmatch(m.group("user")) \
                        and (passphrase(value) or _factory_password(value) or word_and_number(value, joined=True)):
                    # an account every box has, then a generator's words ("admin / ember-cobalt-saffron-orbit"
                    # in a chat log) or a factory's printed password ("Administrator / J37H9HHK" on a
                    # server's tag): a slash after a user's name, as a login is read out
                    yield "password given by its use", m.start("value"), m.start("value") + len(value)


def _signing_key(value: str) -> bool:
    """A key as one signs or decrypts with it: random hex of 32 digits or more but not 40 (a PGP
    fingerprint's or a key id's size), or a random token of both cases (not a public key's
    base64, which starts ``AAAA``); no public key by design, no placeholder."""
    if value.startswith("AAAA") or ":" in value or public_by_design(value) or looks_fake(value) or is_placeholder(value, quoted=True):
        return False
    return (random_hex(value, min_len=32) and len(value) != 40) or random_token(value, min_len=24)


def _factory_password(value: str) -> bool:
    """Capitals and digits mixed through 8 to 16 characters, as a device's factory password is
    printed on its label (HPE iLO's, a router's): letters and digits change places three times or
    more, so an id of a word and a number (``INC12345``, ``PROD2024``) is none."""
    if not 8 <= len(value) <= 16 or not all(c.isdigit() or "A" <= c <= "Z" for c in value):
        return False
    changes = sum(a.isdigit() != b.isdigit() for a, b in zip(value, value[1:]))
    return changes >= 3 and sum(c.isdigit() for c in value) >= 2


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


def person_password(value: str, *, inner: bool) -> bool:
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
        if (not person_password(value, inner=True) or "**" in value
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

