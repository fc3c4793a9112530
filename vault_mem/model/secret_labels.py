"""Values named as credentials by the label beside them: assignments, flags, prose, split fields.

A credential is often recognisable only by its place: ``password=...``, ``pw: ...``,
``--token X``, "the token for staging is X", or a memory whose description says "staging DB
password" and whose body is the value alone. The label (the key name, or the words before the
value) says what kind of value it is; the value is then judged by its shape
(:mod:`vault_mem.model.secret_values`):

- ``password`` labels (password, passwd, passphrase, passcode, pwd, pw, pass): after ``=`` or
  in quotes any non-placeholder counts. After a bare ``Label:``, ``is`` or a ``--flag`` the value
  must look made to be hard to guess, or be a plain password that ends the sentence: a
  lowercase word of 8 letters or more that is not an English adjective or participle
  ("my password: correcthorsebatterystaple" counts, "the password is expired." does not), or
  three words or more joined by ``-``/``_``/``.`` (a diceware passphrase).
- ``secret`` labels (secret, token, api key, credential(s), auth, PAT): a value that looks made to
  be hard to guess, of 8 characters or more.
- ``key`` labels (any other ``*_key``, ``private_key_id``): a high-entropy value only, because
  most ``key:`` fields hold names, not secrets; public, lookup and cache keys pass.

- the word for password in other languages (``Passwort``, ``contraseña``, ``пароль``, ``密码``)
  is a ``password`` label, but a value of letters alone does not count after it (its language's
  states are not known here); ``login`` counts only with ``user / password`` after it; and a
  value may come before its label ("use X as the password").

The signs a label takes: ``=``, ``:``, ``=>``, ``->``, a spaced dash, "is" in several languages, the particles
of Japanese, Chinese and Korean written against the label (``パスワードは X``, ``密码是X``), and
``to`` ("set the admin password to X"; a value that looks like a credential only, never after the
verb "pass"). Other places a value sits: after a ``-flag`` ending in ``pass`` (``-storepass X``)
or a snake_case name and a space (``key_secret X``); after ``pw``/``password`` with no sign when
no word could be it (a symbol, or long and of three character classes); a scheme and a token
(``"Splunk X"``); a UUID after a token or secret label; a passphrase of words right after the
label ("GPG passphrase: amber crisp lotus violin", no word of a sentence among them); alone on the
line below a label line ending in ``:``; recovery codes and grouped TOTP seeds under their label
(:mod:`vault_mem.model.secret_codes`); the field beside the name (``<add key="ApiSecret" value="X"/>``, a
Kubernetes ``- name:``/``value:`` entry, Terraform ``variable "db_password" { default = "X" }``:
:func:`~vault_mem.model.secret_fields.named_values`). A Wi-Fi or network key is judged as a password.

A value also stands after a string type (``password: str = "X"``, Bicep's ``param adminPassword
string = 'X'``), inside a conversion (``[]byte("X")``), as a call's only argument when the call is
named for it (``.bearer_auth("X")``), and alone after its name on a config file's line of its own
(``requirepass X``, ``LicenseKey X``: :func:`~vault_mem.model.secret_near.config_directive`); a plist's ``<key>``/``<string>``, a
``<entry key=...>``, a JSON ``"name": {"value": X}`` and a call's ``"NAME", "X"`` pair name it
beside it (:func:`~vault_mem.model.secret_fields.named_values`); a sign-in call's literals hold the password after the user
(:mod:`vault_mem.model.secret_commands`); a user line above it makes a lone line a password (:func:`~vault_mem.model.secret_places.values_below`).

Assignments are found from the keyword outwards (cheaper than trying a key pattern at every
position); the keyword must end the key name, so ``api_key_env``, ``tokens``, ``password_file``
pass. Each finder yields ``(kind, start, end)``.

The finders here: :func:`assignments` (a label and its sign, the entry), :func:`app_passwords`,
and the values a memory's description or key names (:func:`labelled_value`,
:func:`key_named_value`, :func:`says_not_secret`). What a label is lives in
:mod:`vault_mem.model.secret_names`, how the value after it is judged in
:mod:`vault_mem.model.secret_judge`, and a value near its label in any syntax in
:mod:`vault_mem.model.secret_near`.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_judge import (
    CODES_LABEL, COMMON_WORDS, address_word_before, digest_input, granted_uuid, grants, name_before, name_like, passphrase, password_shaped, plain_password,
    prose_key, public_word_before, quoted_words, sentence_passphrase, strong_unlabelled, two_words_number, word_and_number,
)
from vault_mem.model.secret_names import (
    ASSIGN_TAIL, COMPOUND, FOREIGN_PASSWORD_LABEL, NEXT_LINE, PASSWORD_KEYS, PROSE_TAIL, PROSE_WORDS, PUSH_WORDS,
    LOCKING_KEY_END, SCRIPT_PASSWORD_END, Span, WIFI, WIFI_REACH, below_mark, key_class, label_keywords, manager_label,
    public_name, snmp_community,
)
from vault_mem.model.secret_near import (
    ASIDE, ASIDE_STOP, COMMA_LITERAL, FLOW_MEMBER, ID_WORDS, LOGIN_NOUN, NAME_EQUALS, SAID_LAST, SET_VARIABLE,
    SIGIL_LITERAL, TUPLE_OPEN, config_directive, in_arn, judged_value, label_sign, names_a_property,
    near_value, own_name, stated_default, under_encrypted, value_before,
)
from vault_mem.model.secret_public import analytics_cookies, in_web_config, public_by_design
from vault_mem.model.secret_values import (
    ENV_NAME, NAMED, UUID, credential_like, high_entropy, identifier_like, is_placeholder, looks_fake,
    push_address, random_hex, random_token, unguessable,
)

__all__ = ["MAX_LABELS", "TOO_MANY_LABELS", "app_passwords", "assignments", "key_named_value",
           "labelled_value", "push_addresses"]

# Google's app password (four groups of four lower-case letters) after an app password's label on
# its line, whatever words stand between ("App password the CI job uses to send reports: X")
_HEX_SERIAL = lazy(r"[0-9A-F]{8,64}|[0-9a-f]{8,64}|[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){3,31}")  # a serial number in hex
_APP_LABEL = lazy(r"(?i:(?<![\w-])app(?:lication)?[ _-]?passwords?(?![\w-]))")
# (four letters each, as Google and Apple print them; or letters and digits, as other providers do)
_APP_GROUPS = lazy(r"(?<![\w-])[a-z0-9]{4}(?:[ -]?[a-z0-9]{4}){3}(?![\w-])")


# a push address's name and its value (`device_token=X`, `"fcm_token": "X"`, "APNs device token: X",
# `THINGSBOARD_DEVICE_TOKEN=X`), read on the lower-cased text
_PUSH_NAMED = lazy(rf"(?<![a-z0-9])(?:{'|'.join(PUSH_WORDS)})(?:[ _-]?registration)?[ _-]?token[\"'`]?[ \t]{{0,4}}"
                   r"(?::|=>?|is)[ \t]{0,4}[\"'`]?(?P<value>[^\s\"'`,;)]{8,400})")


def push_addresses(text: str, low: str) -> Iterator[Span]:
    """A random value under a push address's name that has no push address's shape
    (:func:`~vault_mem.model.secret_values.push_address`): the name passes a value elsewhere
    (``key_class``, ``address_word_before``), so FCM's and APNs' tokens raise no alarm; a
    device's access token (``THINGSBOARD_DEVICE_TOKEN=<20 random>``) or Pushover's app token
    ("Pushover push token: X") is a credential all the same (sec51 passed them by the name)."""
    if "token" not in low or not any(w in low for w in PUSH_WORDS):
        return
    for m in _PUSH_NAMED.finditer(low):
        value = text[m.start("value"):m.end("value")]
        if high_entropy(value) and not push_address(value) and not is_placeholder(value, quoted=False):
            yield "secret assignment", m.start("value"), m.end("value")


def app_passwords(text: str) -> Iterator[Span]:
    """Four groups of four lower-case letters within 120 characters after an app password's label
    on its line, three groups at least no common or prose word."""
    if "pass" not in text and "PASS" not in text and "Pass" not in text:
        return
    for m in _APP_LABEL.finditer(text):
        end = text.find("\n", m.end())
        g = _APP_GROUPS.search(text, m.end(), min(m.end() + 120, len(text) if end < 0 else end))
        if g is None:
            continue
        joined = g.group().replace(" ", "").replace("-", "")
        groups = [joined[i:i + 4] for i in range(0, 16, 4)]
        if any(c.isdigit() for c in joined) and (sum(c.isalpha() for c in joined) < 6 or all(c in "0123456789abcdef" for c in joined)):
            continue  # (a number, a date or hex: no app password's draw)
        if sum(w not in COMMON_WORDS and w not in PROSE_WORDS for w in groups) >= 3:
            yield "app password", g.start(), g.end()


# Judging one label costs ~0.1-0.5 ms, so a text made of labels (`key=key=key=...`, 20,000 of them
# in an 80 KB file) would cost seconds per file, and a peer's push of such files hours of CPU on
# every clone. A memory is a short note: one with more labels than this is refused whole as one
# that cannot be checked (the person splits it), which bounds the gate's work per file.
_PUBLIC_ON_LINE = lazy(r"public[ _-]?key")
MAX_LABELS = 1000
TOO_MANY_LABELS = "too many credential labels to check"

# psql's interpolation of a variable as a literal (`:'name'`, `:"name"`) or as is (`:name`): a
# space before the colon, none after it, a name
_PSQL_VARIABLE = lazy(r"[ \t]{1,4}:(?:'[A-Za-z_]\w{0,62}'|\"[A-Za-z_]\w{0,62}\"|[A-Za-z_]\w{0,62})(?![\w'\"])")


def assignments(text: str, low: str) -> Iterator[Span]:
    """``password=...``, ``secret: ...``, ``--token X``, ``the password is X``, ``the token for
    staging is X``, ``api key X`` with a literal value (``low``: ``text`` lowercased, same length).
    A text with more than :data:`MAX_LABELS` labels is one finding over the whole text."""
    skip_to = 0
    n = 0
    snmp = "snmp" in low  # (the bare word `community` is a label only in a text about SNMP)
    for kw in label_keywords(low):
        if not snmp and kw.group() == "community":
            continue  # "community call recap", a forum's community: neither counted nor judged
        n += 1
        if n > MAX_LABELS:
            yield (TOO_MANY_LABELS, 0, len(text))
            return
        if kw.start() < skip_to:
            continue  # inside a value already reported: it is one token, judged whole
        start = name_before(text, kw.start())
        if start is None:
            continue
        name = text[start:kw.end()]
        cls = key_class(name)
        community = cls is None and snmp_community(name, low, start)
        if community:
            cls = "password"  # `community: X` in an SNMP poller's config: the v1/v2c password
        if cls == "password" and manager_label(low, start, kw.end()):
            cls = "network"  # "Proton Pass: X", "Google Password Manager: X": an item's name follows (key_class)
        if cls == "key" and start == kw.start() and (prose_key(text, start, "key", PASSWORD_KEYS)
                                                     or WIFI.search(low, max(0, start - WIFI_REACH), start)):
            cls = "password"  # a Wi-Fi or network key is a password a person chose, judged as one
        if cls == "key" and start == kw.start() and public_word_before(low, start):
            continue  # "cache key: linux-<hash>", "S3 object key: ...": names the key's use, a public one
        hashed = digest_input(low, start)
        if hashed == "of":
            continue  # "SHA-256 of \"password\" is X": the word is what was hashed, X its digest
        if cls == "secret" and start == kw.start() and kw.group() == "token" and address_word_before(low, start):
            continue  # "FCM registration token: X", "APNs device token X": where a push is sent, no credential
        if cls == "key" and name.lower() == "key" and _PUBLIC_ON_LINE.search(low, low.rfind("\n", 0, start) + 1, start):
            continue  # GitHub's `.../secrets/public-key` answer, `{"key_id": ..., "key": X}`: the line names it public
        if name.lower().endswith(("license", "licence", "serial")):
            # a licence or serial key: only a random or grouped value near it ("License: MIT" and
            # SPDX names are names), read by the value-near-its-label rule alone
            found = near_value(text, low, kw.end(), "secret", kw.start() if start == kw.start() else None)
            if found and not (name.lower().endswith("serial") and _HEX_SERIAL.fullmatch(text, found[1], found[2])):
                # (hex under a bare "serial" is a certificate's or a device's serial number, as
                # `openssl x509 -serial` prints it: a licence's serial is grouped or base 32)
                skip_to = max(skip_to, found[2])
                yield found
            continue
        if not cls and name[-1:] in "sS" and kw.group().endswith("s") and key_class(name[:-1]) in ("password", "secret", "key"):
            # a list of them (`api_tokens:`, "passwords for the lab: X and Y"): a value near counts
            # only by its look, as no sign says where one value ends
            found = near_value(text, low, kw.end(), "password" if key_class(name[:-1]) == "password" else "secret",
                          kw.start() if start == kw.start() else None)
            if found:
                skip_to = max(skip_to, found[2])
                yield found
            continue
        before = text[max(0, start - 1):start]
        # (a sigil's variable given a quoted literal is an assignment: PowerShell's and PHP's
        # `$ApiKey = "X"`, Perl's `my $api_key = "X";`; elsewhere `$NAME` reads a variable)
        sigil_literal = before == "$" and SIGIL_LITERAL.match(text, kw.end()) is not None
        if not cls or (before in ("$", "%") and not sigil_literal) or (before == "{" and not COMMA_LITERAL.match(text, kw.end())
                                                                       and not FLOW_MEMBER.match(text, kw.end())):
            continue  # ${SECRET_KEY:?missing}, %PASSWORD%, {password}: a reference to a variable, a template's field
        if low[max(0, start - 5):start] == "$env:" and SIGIL_LITERAL.match(text, kw.end()) is None:
            continue  # PowerShell's `$env:DB_PASSWORD` read: a reference, as `$DB_PASSWORD` is (`$env:X = 'Y'` assigns)
        if text[max(0, start - 1):start] == ":" and in_arn(text, start):
            continue  # `arn:aws:secretsmanager:...:secret:prod/db`: a resource type, not a label
        # (an aside in parentheses between the label and its sign leaves the label where it was:
        # "master password (do not lose): X", "api token (staging): X")
        aside = ASIDE.match(text, kw.end())
        if aside and (ASIDE_STOP.search(low, aside.start(), aside.end()) or says_not_secret(aside.group())):
            continue  # "site key (public, goes in the HTML): X", "api key (example): X": the aside says what it is
        tail = ASSIGN_TAIL.match(text, aside.end() if aside else kw.end())
        op = label_sign(tail) if tail else ""
        if tail and op == ":" and _PSQL_VARIABLE.match(text, tail.start("op")):
            continue  # psql's `PASSWORD :'pw'`: the variable `pw` interpolated (set by `\set pw ...`), no literal
        if op == "," and not TUPLE_OPEN.search(text, max(0, start - 3), start):
            tail, op = None, ""  # a name and a literal after a comma are a tuple's only after its brace
        # `--token X` and fish's `set -x API_SECRET X` pass a value without a sign, like a flag
        flag = name.startswith("-") or (ENV_NAME.fullmatch(name) is not None and (cls != "key" or SET_VARIABLE.search(
            text, max(0, start - 16), start) is not None))
        # `key_secret X`: a snake_case name is a field's name, so a bare value after it is its value
        # (`add-authtoken X`: a subcommand named for what it takes, the same)
        snake = ("_" in name.strip("_") or "-" in name.strip("-")) and name.islower()
        # Groovy/Gradle `storePassword 'X'`: a camelCase name then a quoted literal is a call's argument
        camel = name[:1].islower() and not name.islower() and name.isalnum()
        flag = flag or bool(tail and op == "" and camel and tail.group("value")[:1] in "\"'")
        # SQL's keyword in capitals then a quoted literal (`CREATE ROLE r LOGIN PASSWORD 'X'`,
        # `ALTER USER u WITH PASSWORD 'X'`): the statement's argument, as after a sign
        flag = flag or bool(tail and op == "" and cls == "password" and name.isupper() and name.isalpha()
                            and tail.group("value")[:1] == "'")
        # a config file's `Directive value` line (redis.conf `requirepass X`, msmtprc `password X`,
        # GeoIP.conf `LicenseKey X`): the name starts the line and the value ends it
        flag = flag or bool(tail and op == "" and config_directive(text, start, tail))
        # a password's word then a quoted literal ("with password 'X'", fetchmail's `password 'X'`):
        # the quotes mark a literal as a flag would, when it looks like a credential by itself
        # (not after the verb "pass": `pass "callback=" explicitly`, "Cannot pass 'force=True'")
        literal = tail.group("value").strip("\"'") if tail else ""
        flag = flag or bool(tail and op == "" and cls == "password" and tail.group("value")[:1] in "\"'"
                            and kw.group() != "pass" and " " not in literal and credential_like(literal)
                            and any(c.isdigit() for c in literal) and any(c.isalpha() for c in literal))
        # (a CJK word for password written against a word, "root密码 X", is a prose label as the word alone is)
        script = cls == "password" and SCRIPT_PASSWORD_END.search(name.lower()) is not None
        if tail and op == "" and not flag and not snake and not script and not (start == kw.start() and prose_key(text, start, cls)) \
                and not (cls == "password" and passphrase(tail.group("value"), signed=tail.group("value")[:1] in "\"'")) \
                and not (cls == "password" and two_words_number(tail.group("value"))) \
                and not (cls == "password" and tail.group("value")[:1] in "\"'" and quoted_words(tail.group("value"))):
            tail = None  # (words made into a password need no sign: "senha" then words run together)
        if tail and op == "is" and cls == "key" and not prose_key(text, start, cls):
            tail = None
        found = judged_value(text, tail, cls, flag=flag) if tail else None
        if not found and tail and "phrase" in kw.group() and tail.group("value")[:1] in "\"'`" \
                and label_sign(tail) not in ("", "(") and sentence_passphrase(tail.group("value")):
            # a passphrase's own label and words quoted after its sign: the phrase, a sentence by design
            found = "password assignment", tail.start("value"), tail.end("value")
        if not found and cls == "key" and tail and (label_sign(tail) in ("=", ":", ":=", "=>", "is") or (flag and label_sign(tail) == "")) \
                and (grants(name) or (start == kw.start() and grants(low[max(0, start - 24):kw.end()]))):
            # an access, private or master key given a UUID (Sauce Labs' and MongoDB Atlas's keys
            # are UUIDs): a key that grants what it names is no record's id, as after "secret"
            found = granted_uuid(tail)
        if not found and cls == "key" and tail and label_sign(tail) in ("=", ":", ":=", "=>") and LOCKING_KEY_END.search(name.lower()):
            # `ENCRYPTION_KEY=<a person's password>`: a key that locks or opens what it names, given a
            # password a person made (both cases, a digit and a symbol inside): what opens it, as a
            # password's name's value is (a cipher's name, `aes-256-gcm`, has no such shape)
            raw = tail.group("value")
            value = raw[1:-1] if raw[:1] in "\"'`" and raw[-1:] == raw[:1] and len(raw) > 1 else raw
            # (a product's, an alias's or a volume's name, `Ledger-Nano-S2`, `Alias-Prod-EU1`: name_like)
            if password_shaped(value) and any(c.isupper() for c in value) and any(c.islower() for c in value) \
                    and not is_placeholder(value, quoted=True) and not name_like(value):
                at = tail.start("value") + (len(raw) != len(value))
                found = "password assignment", at, at + len(value)
        # (a compound written as prose writes it, "the WLAN-Passwort im Büro lautet X", "wifi-password
        # in the office is X", is read as prose too)
        spoken_name = start == kw.start() or (cls != "key" and COMPOUND.fullmatch(name) is not None)
        if not found and spoken_name and (cls != "key" or prose_key(text, start, cls)):
            prose = PROSE_TAIL.match(text, kw.end())
            if prose and text[kw.end():prose.start("op")].split()[-1].strip("()[]").lower() in ID_WORDS:
                prose = None  # "Secret ID: <uuid>", "token name: deploy": what names the secret, not it
            if prose and names_a_property(text[kw.end():prose.start("op")].split(), prose.group("op")):
                prose = None  # "the password hashing scheme is Argon2id": what the label's nouns name
            found = judged_value(text, prose, cls) if prose else None
            if not found and prose and cls == "key" and label_sign(prose) in (":", "is") and grants(low[max(0, start - 24):kw.end()]):
                found = granted_uuid(prose)  # "the acme integration key is <uuid>"
        if not found and (cls != "key" or prose_key(text, start, cls)):
            below = NEXT_LINE.match(text, kw.end())
            if below and not below_mark(text, kw.start(), below):
                below = None  # (`password:` then a comment's `# <word>`: a note below, not the value)
            found = judged_value(text, below, cls, flag=True) if below else None
            if found and (text[found[1]:found[2]].endswith(":") or "\n" in text[kw.end():below.start("value")].strip(" \t:\r\n")):
                found = None  # a YAML mapping (`password:` then `secretKeyRef:`), or prose lines
            if found and name_like(text[found[1]:found[2]]):
                found = None  # a rule, a version or a date below (`Min-12-chars,1-digit`): a note's, not the value
        if not found and (start == kw.start() or name.replace("_", "").replace("-", "").isalpha()) and cls != "key":
            # (a label of one word, the credential's word run into it: "X <- ngrok authtoken",
            # "X <- google refresh_token")
            found = value_before(text, start, cls, kw.end())
        if cls == "key" and name.lower().endswith("encrypt") and not (tail and label_sign(tail) in ("=", ":", ":=")):
            continue  # "encrypt to X", "Encrypt backups to the recipient: X": a public key follows, not a secret
        if not found and hashed != "call":  # (after `login` only a token: `quarryctl login X`; a user's name is no secret)
            # (`HMAC-SHA256(key="key", msg=...) = X`: a value far after a word inside a digest's call is the digest)
            found = near_value(text, low, kw.end(), "secret" if cls == "login" else cls,
                          kw.start() if start == kw.start() else None)
        if found and FOREIGN_PASSWORD_LABEL.match(kw.group()) and text[found[1]:found[2]].isalpha() and not passphrase(text[found[1]:found[2]]):
            # another language's word for password: its states ("abgelaufen", "incorrecta") are
            # not known here, so a value of letters alone does not count after it
            found = None
        if found and ("encrypted" in name.lower() or "ciphertext" in name.lower()):
            found = None  # `ENCRYPTED_DB_PASSWORD=AQICAH...`: the name says the value is ciphertext
        if found and under_encrypted(text, start):
            found = None  # a SealedSecret's or SOPS file's encryptedData: ciphertext, not the secret
        if found and community and (name_like(text[found[1]:found[2]]) or "/" in text[found[1]:found[2]]):
            found = None  # an SNMP community's tag or an image (`Region-EU-West-1`, `docker.io/prom/...`): names
        if found and own_name(text[found[1]:found[2]], name):
            found = None  # `POSTGRES_PASSWORD: postgres`, `ADMIN_PASSWORD=admin`: the image's default
        if found and stated_default(text, low, start, found):
            found = None  # "MinIO's documented defaults: ... PASSWORD=minioadmin": a default, said so
        if found and name.lower().replace("_", "").endswith(("apikey", "appid")) and in_web_config(text, found[1], found[2]):
            found = None  # a Firebase config's `apiKey` and `appId`: public by design (not a secret beside them)
        if found:
            skip_to = max(skip_to, found[2])
            yield found


# A label that says its value is not a credential ("non-secret", "not a secret", "nothing sensitive")
# or that the thing it names has none ("mongo url, no password", "without credentials", "passwordless")
_NOT_SECRET = lazy(r"(?<![a-z])(?:non[- ]?(?:secret|sensitive|confidential)|not (?:a |very |really )?(?:secret|sensitive|confidential)"
                   r"|nothing (?:secret|sensitive|confidential)|no (?:secrets?|credentials?)(?: in (?:it|here|this))?"
                   r"|(?:no|without(?: an?| any)?)[ -](?:passwords?|cred(?:ential)?s?|auth(?:entication)?|secrets?|tokens?|logins?)"
                   r"(?=[ \t]*(?:\Z|[,.;:)(\]]|(?:needed|required|set|at all|in it)(?![a-z])))"
                   r"|password-?less|unauthenticated)(?![a-z])")


def says_not_secret(label: str) -> bool:
    """Does ``label`` (one of a memory's key, description or tags, read alone: a label made of
    them all runs one into the next) say its value is no credential or has none?"""
    return _NOT_SECRET.search(label.lower()) is not None


_USER_NAME = lazy(r"[A-Za-z][\w.@\\-]{1,63}")
_NAMED_ROW = lazy(r"[A-Za-z][\w.-]{0,30}:[ \t]{1,4}(\S{8,200})")
_PLURAL_LABEL = lazy(r"(?i)\b((?:api[ _-]?)?(?:key|token|secret|password))s\b")


def labelled_value(label: str, value: str) -> str | None:
    """The finding's kind when ``label`` (a memory's key and description) names a credential and
    ``value`` (its body, or a field) holds just one: "Staging DB password" over ``hunter2hunter``.
    ``value`` counts when its first paragraph is one token that looks like the named credential.
    A label that says its value is no credential is the caller's to read, part by part
    (:func:`says_not_secret`, in ``model/policy.py``)."""
    paras = value.strip().split("\n\n", 2)
    first = paras[0].strip()
    rows = first.split("\n")
    if len(paras) >= 2 and len(rows) <= 6 and all(_IDENT_ROW.fullmatch(r.strip()) for r in rows):
        # the login's user, host and port as rows, then the password alone in the next paragraph
        # ("user: deploy" / "host: 10.0.4.2" / blank / X): the value is judged as the body alone
        first = paras[1].strip()
        rows = first.split("\n")
    if 2 <= len(rows) <= 20 and all(_NAMED_ROW.fullmatch(r.strip()) for r in rows):
        # one value to a named row ("sonarr: X" / "radarr: Y") under a label naming them in the
        # plural ("API keys for the dashboard"): each row is judged as the body alone, under the
        # label made singular; every row must hold one
        one = _PLURAL_LABEL.sub(lambda m: m.group(1), label)
        kinds = [labelled_value(one, _NAMED_ROW.fullmatch(r.strip()).group(1)) for r in rows]
        return kinds[0] if all(kinds) else None
    if 2 <= len(rows) <= 4 and all(_HOST_ROW.fullmatch(r.strip()) or _IDENT_ROW.fullmatch(r.strip()) for r in rows[:-1]):
        # the host it signs in to on the lines above ("vpn.example.pt" / "second box: X"): the
        # last line is the value, judged as the body alone would be
        first = rows[-1].strip()
    if "=" in first and analytics_cookies(first):
        return None  # a page's analytics or consent cookies under "cookie": a visitor id, no session
    parts = first.split()
    said = SAID_LAST.search(first) if len(parts) > 1 and "\n" not in first and len(first) <= 200 else None
    lines = first.split("\n")
    cookie = _COOKIE_ROW.fullmatch(first) if len(lines) == 1 and "cookie" in label.lower() else None
    if cookie and (random_token(cookie.group(1), min_len=40) or random_hex(cookie.group(1), min_len=64)) \
            and not looks_fake(cookie.group(1)) and not _plain_json_b64(cookie.group(1)):
        # one cookie, `name=value` or `name: value`, under a description naming a cookie: a long
        # random value is the session it carries (`.ASPXAUTH=<hex>`, `li_at: <token>`)
        return "session cookie named by the memory's description"
    if len(lines) == 2 and len(parts) == 2 and _USER_NAME.fullmatch(parts[0]) and parts[1] != parts[0] \
            and credential_like(parts[1]) and len(parts[1]) >= 8 and not is_placeholder(parts[1], quoted=False):
        # a user on the first line and a password on the second, as OpenVPN's `auth-user-pass`
        # file and other login files hold them, under a label naming a login or a credential
        low = label.lower()
        for kw in label_keywords(low):
            if key_class(kw.group()) in ("password", "secret", "login"):
                return "credential named by the memory's description"
        return None
    if len(parts) == 3 and parts[1] == "/":
        first = parts[2]  # "admin / S3cr3t" under "Jenkins admin credentials"
    elif said and strong_unlabelled(said.group(1)):
        # one line of prose that ends in a value no word could be ("same as the old one with the
        # year bumped: X"): under a description naming a credential or a login, the value
        first = said.group(1)
        low = label.lower()
        for kw in label_keywords(low):
            cls = key_class(kw.group())
            # ("login for the panel", "login:" name a login; "login page bug" a page)
            if cls in ("password", "secret") or (cls == "login" and LOGIN_NOUN.match(low, kw.end())):
                return "credential named by the memory's description"
        if _ACCOUNT_OF.search(low) and _account_password(low, first):
            # "VPN account ana.ferreira" over "second box: X" (an account's noun as a noun: "described
            # as X" gives no user, a "login page bug" names a page)
            return "password of the login the description names"
        return None
    elif len(parts) >= 3 and parts[1] in ("...", "\u2026", "\u2014", "\u2013", "--") and len(first) <= 200:
        first = parts[0]  # "jvF9I88N ... second half is in the chat": the value, then where the rest is
    elif not first or len(parts) != 1 or len(first) > 200:
        return None
    named = NAME_EQUALS.match(first)
    if named and public_name(first[:named.end() - 1]):
        # the value's own name says what it is (`GOOGLE_CLIENT_ID=...`, `AZURE_TENANT_ID=<uuid>`): an
        # id under a description that names the login it belongs to ("sign-in", tag `auth`)
        return None
    low = label.lower()
    if _account_password(low, first):
        return "password of the login the description names"
    if CODES_LABEL.search(low):
        low += " password"  # a 2FA recovery or backup code is a password by another name
    classes = []
    for kw in label_keywords(low):
        start = name_before(low, kw.start())
        name = low[kw.start() if start is None else start:kw.end()]
        cls = key_class(name)
        # "Notes from the session", "Cache key for the build": in a description these are words,
        # so a bare key needs its qualifier ("API key") and sessions and cookies do not count
        if cls and not name.endswith("session") and (name != "key" or prose_key(low, kw.start(), cls)):
            classes.append(cls)
        elif name == "key" and not public_word_before(low, kw.start()):
            classes.append("bare key")  # "Stripe restricted key for reporting": only a random token counts
    if public_by_design(first[named.end():].strip("\"'") if named else first):
        return None  # a public key under its name (`DKIM_KEY=<SubjectPublicKeyInfo>`): no credential
    if _plain_json_b64(first[named.end():].strip("\"'") if named else first):
        return None  # settings in base64 (a `prefs` cookie's `{"theme":"dark"}`): what it decodes to is read as text
    for cls in dict.fromkeys(classes):
        if is_placeholder(first, quoted=False) or NAMED.fullmatch(first):
            return None
        if cls == "password" and (credential_like(first) or plain_password(first)):
            return "credential named by the memory's description"
        if cls == "secret" and ((credential_like(first) and len(first) >= 12) or high_entropy(first)):
            return "credential named by the memory's description"
        if cls == "key" and high_entropy(first):
            return "credential named by the memory's description"
        if cls == "bare key" and random_token(first, min_len=24):
            return "credential named by the memory's description"
        if cls == "network" and unguessable(first):
            return "credential named by the memory's description"  # "Office wifi" over `Xk9#mQ2vL8pR`
    return None


# A login named by a memory's description, its password the body's one token: the user given
# ("NAS admin account (user: kim)", "login for user admin", "signed in as mara") or an account or a
# login as the noun ("router login", "Jira account"); a label naming what identifies the account
# ("username for the NAS", "account id", "login email") names the body as that, not a password.
# a host name or address on a line of its own, with a port or a path (the place a login is for)
# a row naming who or where a login is, not its secret ("user: deploy", "host = 10.0.4.2", "port: 22")
_IDENT_ROW = lazy(r"(?i:user(?:[ _]?name)?|login|host(?:[ _]?name)?|server|ip|port|address|url|account|e-?mail|db|database)"
                  r"[ \t]{0,4}[:=][ \t]{0,4}[^\s]{1,200}")
_HOST_ROW = lazy(r"(?:[a-z][a-z0-9+.-]{1,10}://)?[\w-]{1,63}(?:\.[\w-]{1,63}){1,6}(?::[0-9]{1,5})?(?:/\S{0,200})?")
_GIVEN_USER = lazy(r"(?<![a-z])(?:user(?:name)?|login|as)[ \t]*[:=]?[ \t]+([a-z][\w.@\\-]{1,40})")
_ACCOUNT_NOUN = lazy(r"(?<![a-z])(?:log[ -]?in|sign[ -]?in|account)s?(?![a-z])")
# an account's or a login's noun as the thing itself: then "for", "to", a colon, the end, or its user's handle
_ACCOUNT_OF = lazy(r"(?<![a-z])(?:log[ -]?in|sign[ -]?in|account)s?(?:[ \t]{1,4}(?:for|to|of|on|at)(?![a-z])|[ \t]{0,2}[:,(]"
                   r"|[ \t]*\Z|[ \t]{1,4}[a-z][\w-]{0,30}[.@_][\w.@-]{1,40})")
_ACCOUNT_IDENTITY = lazy(r"(?<![a-z])(?:user[ _-]?name|user[ _-]?id|account[ _-]?(?:id|number|no|name)|e-?mail|handle|"
                         r"login[ _-]?(?:name|id|email)|uid|sid|arn|owner)(?![a-z])")


def _account_password(low: str, value: str) -> bool:
    """Is ``value`` (a body's one token) the password of the login ``low`` (a memory's key and
    description, lower case) names: a login's noun or a user given, no word naming the account's
    identifier, and a value made as a password (:func:`password_shaped`, or a word and a number of
    ten characters or more), not the user's own name, an id, hex or a placeholder?"""
    given = _GIVEN_USER.search(low)
    if not given and not _ACCOUNT_NOUN.search(low):
        return False
    if _ACCOUNT_IDENTITY.search(low) or value.lower() in low or UUID.fullmatch(value) or random_hex(value, min_len=16):
        return False
    if is_placeholder(value, quoted=False) or looks_fake(value) or len(value) > 64:
        return False
    if len(value) >= 10 and word_and_number(value):
        return True  # (`Winterorage1960`: a word and a year, which a name has too, but the user is given)
    # (lower case, digits and `_-.` alone are an id's alphabet: `u_8f3a9b2c1d`)
    idish = value.islower() and all(c.isalnum() or c in "_-." for c in value)
    return password_shaped(value) and not idish and not identifier_like(value)


_COOKIE_ROW = lazy(r"[.A-Za-z_][\w.-]{0,40}[ \t]{0,2}[:=][ \t]{0,2}(\S{40,4096})")
_JSON_CREDENTIAL_NAME = lazy(r"(?i)pass|secret|token|key|auth|sess|sid|jwt|cred|sig|nonce|\"sub\"|\"iat\"|\"exp\"")


def _plain_json_b64(value: str) -> bool:
    """Is ``value`` base64 of a JSON object of settings: printable, and no member named for a
    credential or a token's claims (``{"theme":"dark","lang":"de"}``, not ``{"sub":..,"exp":..}``)?"""
    if not value.startswith("eyJ") or len(value) > 4096 or "." in value:
        return False
    try:
        raw = base64.urlsafe_b64decode(value.replace("+", "-").replace("/", "_") + "=" * (-len(value) % 4))
        decoded = raw.decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return False
    return decoded.startswith("{") and decoded.rstrip().endswith("}") and decoded.isprintable() \
        and _JSON_CREDENTIAL_NAME.search(decoded) is None


# a run of letters and digits in a memory's key (its file name) long enough to be a token
_KEY_RUN = lazy(r"(?<![A-Za-z0-9])[A-Za-z0-9]{20,200}(?![A-Za-z0-9])")


def key_named_value(key: str, description: str) -> str | None:
    """The finding's kind when a memory's key (its file name) holds a random run and its
    description is the name of a credential ("deploy hook token", "signing secret"): the
    description's last word names a password or a secret, so the value in the name is it. A
    description that only mentions one ("token refresh bug") ends on another word; a key's run
    of hex (a commit's id) counts only under a word naming a password or a secret, not a "key"."""
    runs = _KEY_RUN.findall(key.rsplit("/", 1)[-1])
    if not runs:
        return None  # (the common case, a name of words: no run to judge, no label to read)
    words = description.strip().rstrip(".:").split()
    cls = key_class(words[-1]) if words else None
    if cls not in ("password", "secret", "key") or says_not_secret(description):
        return None
    for run in runs:
        if random_token(run, min_len=20) or (cls != "key" and random_hex(run, min_len=32)):
            if not looks_fake(run) and not UUID.fullmatch(run):
                return "credential named by the memory's description"
    return None
