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
(:func:`listed_codes`); the field beside the name (``<add key="ApiSecret" value="X"/>``, a
Kubernetes ``- name:``/``value:`` entry, Terraform ``variable "db_password" { default = "X" }``:
:func:`named_values`). A Wi-Fi or network key is judged as a password.

A value also stands after a string type (``password: str = "X"``, Bicep's ``param adminPassword
string = 'X'``), inside a conversion (``[]byte("X")``), as a call's only argument when the call is
named for it (``.bearer_auth("X")``), and alone after its name on a config file's line of its own
(``requirepass X``, ``LicenseKey X``: :func:`_directive`); a plist's ``<key>``/``<string>``, a
``<entry key=...>``, a JSON ``"name": {"value": X}`` and a call's ``"NAME", "X"`` pair name it
beside it (:func:`named_values`); a sign-in call's literals hold the password after the user
(:func:`call_credentials`); a user line above it makes a lone line a password (:func:`values_below`).

Where no sign or syntax above holds the value, a value made to be hard to guess *near* the label
counts whatever lies between (:func:`_near`): on its line within 80 characters, on the lines below a
label line that ends in ``:``, ``?`` or the label itself, or right before it with only "is"/"as"/a
sign between ("X (that's the api secret)"). Call arguments, dictionaries, Makefile ``?=``, SQL
options, positional arguments and prose in any language are read by this one rule; only random
tokens, random hex, high-entropy runs, or after a password's word a value no word could be count,
and a word between that names it an id, a digest, a ciphertext or an example stops it. The words
for password, key, token and secret in ~40 languages are one table
(:mod:`vault_mem.model.secret_words`).

Assignments are found from the keyword outwards (cheaper than trying a key pattern at every
position); the keyword must end the key name, so ``api_key_env``, ``tokens``, ``password_file``
pass. Each finder yields ``(kind, start, end)``.

Credentials known by the field, column, call, command or file that holds them rather than by a
label beside them (tables, CSV exports, sibling fields, sign-in calls, commands, protocol
transcripts, request headers, cookie jars, PINs, passwords named by their use) are
:mod:`vault_mem.model.secret_places`, which judges their values with :func:`judge` and
:func:`key_class` here.
"""

from __future__ import annotations

import base64
import heapq
import re
import string
from functools import lru_cache
from collections.abc import Iterator

from vault_mem.model import secret_words
from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_values import (
    ENV_NAME,
    NAMED,
    key_chord,
    PASSWORD_SYMBOLS,
    UUID,
    credential_like,
    high_entropy,
    identifier_like,
    in_web_config,
    is_placeholder,
    is_wordy,
    looks_fake,
    public_by_design,
    random_hex,
    random_token,
    shannon_entropy,
    spoken,
    stored_not_secret,
    type_name,
    unguessable,
)
from vault_mem.model.seed_words import BIP39_ENGLISH

__all__ = ["CODES_LABEL", "CODE_KINDS", "DIGEST", "MAX_LABELS", "gives_example", "grants", "NAME_EQUALS", "NEAR_ID_PREFIXES", "NEAR_STOP", "near_stop",
           "PUBLIC_KEY_NAMES", "SEP", "Span", "TOO_MANY_LABELS", "assignments", "judge", "key_class", "key_named_value", "labelled_value",
           "own_name", "password_shaped", "plain_password", "word_and_number", "strong_unlabelled", "symbol_word_number", "app_passwords", "warned_values"]

Span = tuple[str, int, int]

# "password" in the languages people write notes in, as the text reads after normalisation
# (secret_text.normalise folds Cyrillic letters that look Latin: "пароль" is read as "пapoль").
# (with the endings a noun takes where it is written against it: Swedish "lösenordet", Turkish
# "şifresi", Indonesian "kata sandinya")
_FOREIGN_PASSWORD = rf"{secret_words.PASSWORD}|{secret_words.SCRIPT_PASSWORD}"
# a token, a key or a secret in another language ("la clave de la API", "Ключ API", "APIキー");
# in scripts written without spaces the word stands against what comes before it, no separator
_FOREIGN_SECRET = secret_words.SECRET
_SCRIPT_SECRET = secret_words.SCRIPT_SECRET
_SCRIPT_PASSWORD = secret_words.SCRIPT_PASSWORD
_FOREIGN = lazy(rf"(?:{_FOREIGN_PASSWORD})")
# (an `id` after the word is read with it, so `SecretID`, `secret_id`, `JSESSIONID` are judged
# as names: key_class says which of them hold a secret and which name an id)
_END = r"(?:[_-]?id|_base)?(?![a-z0-9_.-])"
# A variable named for the credential and then for its environment or its place in a rotation
# (`DOTENV_PRIVATE_KEY_PRODUCTION`, `DB_PASSWORD_STAGING`, `API_TOKEN_2`): the credential word is
# the name's last but one part, so the English keywords may end in one of these (key_class drops it)
# (one of several numbered, `key1`, `password-2`, `DB_PASS_PART1`: a storage account's two keys, a
# credential kept in parts)
_QUALIFIER = (r"(?:_(?:prod|production|staging|stage|stg|dev|develop|development|test|testing|qa|uat|local|live"
              r"|sandbox|preview|primary|secondary|old|new|next|prev|previous|backup|main|default|ci|v?[0-9]{1,2}"
              r"|(?:part|half|piece)_?[0-9]{1,2})|-?[0-9]{1,2})")
_CAMEL_AUTH_END = lazy(r"(?<=[a-z0-9]{2})Auth(?:[_-]?[0-9]{1,2})?$")
_NUMBERED_END = lazy(r"(?<=[a-z])(?:[_-]?(?:part|half|piece)[_-]?|[_-]?v?)[0-9]{1,2}$")
_QUALIFIER_END = lazy(_QUALIFIER + "$")
# A name for what a credential holds (`keyData`, "Key Content" in netsh's report, `secret_value`,
# `keyMaterial`), or for its encoding (`db_pass_hex`, `secret_b64`): the credential itself, as much
# as its plain name is
_CONTENT = r"(?:[ _.-]?(?:data|material|content|value|bytes|hex|b64|base64|base32|encoded))"
_CONTENT_END = lazy(_CONTENT + "$")
_ENGLISH = lazy(r"(?:pass(?:word|wd|phrase|code|[_-]phrase)?|pwd|pw|psk|secret|token|apikey|key|credentials?|creds?"
                      r"|auth|pat|session|sess|login|logon|wif|appid|encrypt|licen[cs]e|serial|seed"
                      # a session cookie by its name (`.AspNetCore.Cookies`, `sid`, Google's `__Secure-3PSID`)
                      r"|cookies?|sid|[0-9]?psid|sapisid|apisid"
                      # a network named for its password ("the wifi is X", "guest wlan: X"; see key_class)
                      r"|wi-?fi|wlan|wireless|hotspot"
                      # plurals name a list of them (`api_tokens:`, "passwords for the lab: X and Y"):
                      # only the value-near-its-label rule reads after them (_PLURAL)
                      r"|(?:password|passphrase|secret|token|key|apikey)s)(?:[_-]?id|_base|" + _CONTENT + ")?" + _QUALIFIER
                      + "?(?![a-z0-9_.-])")
_FOREIGN_WORDS = rf"{_FOREIGN_PASSWORD}|{_FOREIGN_SECRET}|{_SCRIPT_SECRET}"
# each foreign word and the stems that find it: a text is read for the words whose stems it holds
# only (one regex of all ~150 words costs ~10 ms on 4 KB of non-ASCII prose; of the few there, ~1)
_FOREIGN_ALTS = secret_words.alternatives(_FOREIGN_WORDS)
# Substrings one of which every foreign word above holds once normalised (a plain search each;
# a regex of all the words costs five times the English one at every position of every text).
_ALL_STEMS = secret_words.stems(_FOREIGN_WORDS)
_FOREIGN_STEMS = tuple(s for s in _ALL_STEMS if s.isascii())
_FOREIGN_SCRIPT_STEMS = tuple(s for s in _ALL_STEMS if not s.isascii())


def _keywords(low: str) -> Iterator[re.Match[str]]:
    """Every credential keyword in ``low`` in order: the English ones, and the foreign ones when
    a stem of one is there."""
    english = _ENGLISH.finditer(low)
    for stem in _FOREIGN_STEMS if low.isascii() else _ALL_STEMS:
        if stem in low:  # (a plain loop: this runs on every text the gate reads)
            break
    else:
        return english
    present = tuple(alt for alt, stems in _FOREIGN_ALTS if any(s in low for s in stems))
    return heapq.merge(english, _foreign_keyword(present).finditer(low), key=lambda m: m.start())


@lru_cache(maxsize=256)
def _foreign_keyword(alternatives: tuple[str, ...]) -> re.Pattern[str]:
    """The regex of the foreign words ``alternatives`` (the ones a text's stems point to)."""
    return re.compile(rf"(?:{'|'.join(alternatives) or '(?!)'}){_END}")


# "is" before a value, in English and the languages above ("la contraseña es X", "Kennwort ist X",
# "Das Passwort lautet X"): every one reads as the sign ``is``
# (Catalan's "és"; Greek's "είναι" as the gate reads it, its Latin look-alikes folded)
_COPULA = (r"(?:is|was|es|és|ist|lautet|est|era|war|é|è|är|er|je|jest|on|ni|adalah|là|este|ay|هي|هو|היא|הוא|"
           + secret_words.folded("είναι") + ")")
# The words that stand as a sign: "is", and "to" ("set the admin password to X", "changed to X"),
# which stays the sign ``to`` (only a value that looks like a credential follows it; see _judged)
_SIGN_WORD = rf"(?:{_COPULA}|to)"
# the words that may stand between the sign word and the value ("is still X", "is now X")
_COMPOUND = lazy(r"[^\W\d_]{2,20}(?:-[^\W\d_]{2,20}){1,2}")  # "WLAN-Passwort", "wi-fi-password"
# the words after a credential's label that say whose or which it is ("for", "of", "(", "on the")
_OWNER = lazy(r"[ \t]{1,4}(?:[(\[~/]|(?:for|of|on|to|at|in|from|with|im|am|für|vom|der|des|du|de|del|della|di|da|do|dla"
              r"|på|för|till|til|van|voor|akun|untuk|ของ|is|was|es|ist|lautet|est|è|é|är|er|on"
              # Czech and Slovak ("Heslo k serveru"), Greek ("του διακομιστή", its Latin look-alikes
              # folded as the gate reads it)
              r"|k|ke|ku|pro|na|za|" + "|".join(secret_words.folded(w) for w in ("του", "της", "των", "για", "στο", "στον")) +
              # Hebrew writes "to", "in" and "of" against the noun ("הסיסמה לשרת": the server's password)
              r")(?![^\W\d_])|(?:ל|ב|של)(?=[\u05d0-\u05ea]))", re.IGNORECASE)
_ADVERB = r"(?:still|now|currently|always|also|just|again|actually|jetzt|noch|ahora|todav[ií]a|maintenant|toujours|ora|ancora|sekarang|nu|nog)"
# Japanese, Chinese and Korean mark "is" with a particle written against the label ("パスワードは X")
_CJK_COPULA = r"(?:は|是|为|為|는|은)"
# Thai writes "is" (คือ) against the words before it too, with no space: "รหัสผ่านเราเตอร์คือ X"
_THAI_COPULA = r"[\u0e00-\u0e7f]{0,30}?คือ"
_COPULA_WORD = lazy(rf"{_COPULA}|{_CJK_COPULA}|{_THAI_COPULA}")
_CJK = lazy(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
# The conversions a literal is wrapped in where a string will not do (not a method of a variable:
# `password.encode("latin1")` passes an argument, not the value)
_CONVERSION = r"(?:\[\][a-z]{1,8}|bytes|str|String|Buffer\.from|Secret(?:Str|String|Bytes)?|Some|Optional\.of)"
_TYPED_SIGN = (r"|[ \t]{0,4}:?[ \t]{0,4}(?:&(?:'static[ \t]{1,2})?)?(?:str|string|String|SecretStr|SecretString|bytes|Text)\??"
               r"[ \t]{0,4}=[ \t]{0,8}")
_VALUE = r"(?P<value>\"[^\"\n]{1,200}\"|'[^'\n]{1,200}'|`[^`\n]{1,200}`|[^\s\"'`,;]{1,200})"
# compiled now: a match's ``.re`` is compared with it (``tail.re is _ASSIGN_TAIL``)
_ASSIGN_TAIL = re.compile(r"[*_`'\"\]]{0,3}"
                          # a YAML block scalar (`k: >-`, the value on the next line), then signs
                          r"(?P<op>[ \t]{0,8}:[ \t]{0,4}[>|][-+]?[ \t]{0,4}\r?\n[ \t]{1,16}"
                          # a string type between the name and the sign (`password: str = "X"`,
                          # Bicep's `param adminPassword string = 'X'`, Rust's `KEY: &str = "X"`)
                          + _TYPED_SIGN +
                          r"|[ \t]{0,8}(?::=|=>|==|=|:|->|→)[ \t]{0,24}|[ \t]{9,40}:[ \t]{1,8}|[ \t]{1,4}[-–—][ \t]{1,4}|[ \t]{1,8}" + _SIGN_WORD + r"[ \t]{1,8}|[ \t]{0,2}" + _CJK_COPULA
                          + r"[ \t]{0,8}|" + _THAI_COPULA + r"[ \t]{0,8}"
                          # a call named for the credential, given a literal (`.bearer_auth("X")`)
                          + r"|[ \t]{0,4}\((?=[ \t]{0,4}[\"'`])[ \t]{0,4}"
                          # COBOL's picture clause between a data item and its value (`PIC X(16) VALUE 'X'`)
                          + r"|[ \t]{1,8}PIC(?:TURE)?[ \t]{1,4}[XA9](?:\([0-9]{1,4}\))?[ \t]{1,8}VALUE[ \t]{1,8}"
                          # a tuple's name and its literal (Erlang's `{db_password, "X"}`, `<<"X">>`; Elixir's
                          # `{:api_secret, "X"}`): only after a tuple's opening brace (see assignments)
                          + r"|[ \t]{0,2},[ \t]{0,8}(?:<<)?(?=[\"'])"
                          # a relative clause as the sign ("the admin account's password, which is X")
                          + r"|[ \t]{0,2},[ \t]{1,4}which[ \t]{1,4}(?:is|was)[ \t]{1,8}"
                          + r"|[ \t]{1,8})"
                          # Markdown's bold closed after the colon (`**Password:** X`, `__pw:__ X`)
                          + r"(?:(?<=:)(?:\*\*|__)[ \t]{1,4})?"
                          # a literal wrapped in a conversion (`[]byte("X")`, `SecretStr("X")`)
                          + r"(?P<wrap>" + _CONVERSION + r"\([ \t]{0,4}(?=[\"'`]))?" + _VALUE)
# Prose: "the token for staging is X", "pw for the router: X" (up to four words between).
# Words of any script, a parenthesis around one ("encryption key (AES-256): X") allowed, and an
# abbreviation inflected after a colon as Swedish and Finnish write it ("Lösenordet till NAS:en är X").
# (up to seven words, paths among them: "the root password on the old build box (10.0.3.14) is X",
# "the passphrase for ~/.ssh/id_work is X"; an adverb may
# follow the sign word: "is still X", "lautet jetzt X")
_PROSE_TAIL = lazy(r"(?:[ \t]{1,4}[(\[]?(?:[^\W_]|[~/.](?=[\w/.]))[\w@/.+'’~-]{0,30}(?::[^\W\d_]{1,3}(?![\w:]))?[)\]]?){1,7}?"
                         r"(?P<op>[ \t]{0,4}(?::|->|→)[ \t]{1,8}|[ \t]{1,4}[-–—][ \t]{1,4}|[ \t]{1,4}" + _SIGN_WORD
                         + r"(?:[ \t]{1,4}" + _ADVERB + r")?[ \t]{1,8})" + _VALUE)
# The value alone on a line below its label line ("client secret for billing:", a blank line, X).
_NEXT_LINE = lazy(r"(?:[ \t]{1,4}[(\[]?[^\W_][\w@/.+-]{0,30}[)\]]?){0,8}?(?P<op>[ \t]{0,4}:)[ \t]{0,4}\r?\n"
                        r"(?:[ \t]{0,8}\r?\n){0,2}[ \t]{0,8}(?P<value>[^\s\"'`]{8,200})[ \t]{0,4}(?=\r?\n|\Z)")
_DIGIT_GROUPS = lazy(r"[0-9]{4,8}(?:[ \t]{1,2}[0-9]{4,8}){3,11}[ \t]{0,4}\.?[ \t]{0,4}(?=\r?\n|\Z)")
_APP_PASSWORD = lazy(r"[a-z]{4}(?:[ -][a-z]{4}){3}(?![\w-])")
# A passphrase of words to the end of its line ("GPG passphrase: amber crisp lotus violin").
# (a number may stand among the words: "glacier harbor falcon orbit 99")
_QUOTED_WORDS = lazy(r"[a-z]{3,12}(?:[ \t]{1,2}[a-z]{3,12}){2,7}(?:[ \t]{1,2}[0-9]{1,6})?"
                     r"|[a-z]{3,12}(?:[ \t]{1,2}(?:[a-z]{3,12}|[0-9]{1,6})){3,8}")
_WORD_RUN = lazy(r"[a-z]{3,12}(?:[ \t]{1,2}[a-z]{3,12}){2,7}(?:[ \t]{1,2}[0-9]{1,6})?[ \t]{0,4}\.?[ \t]{0,4}(?=\r?\n|\Z)")
# Words of sentences, not of a random passphrase: "password: see the vault entry", "use any four words".
_PROSE_WORDS = frozenset("""
the and for with from that this these those then than into onto over under your our their his her its you
they them are was were will would should could can may might must not all any each every some none one two three
four five six seven eight nine ten use used see set get ask check change changed rotate rotated stored kept lives
live saved found here there where when what which who why how via per only also just like same new old more most
less least very too same other another have has had been being does did done doing make made keep please note
characters chars words letters digits numbers symbols length least minimum maximum least at in on of to is be by
as or if it an a no yes ok need needs needed goes went sent send given give given ask asked team admin user users
""".split())
# The prose words a passphrase's word list holds too ("you", "like", "any", "also", "old": 52 of
# BIP-39's 2,048): four random words hold one of them one time in ten, so they make a sentence
# only as most of its words; the others ("the", "see", "with") make one alone.
_LIST_PROSE_WORDS = _PROSE_WORDS & frozenset(BIP39_ENGLISH)


def _sentence(said: list[str]) -> bool:
    """Are the words after a password label a sentence ("see the vault entry", "use any four
    words") rather than a passphrase ("ticket oppose like any")? A state word may be one of four
    random words ("correct horse battery staple"), not of three."""
    if any(w in _PROSE_WORDS and w not in _LIST_PROSE_WORDS for w in said):
        return True
    if len(said) == 3 and any(w in _STATE_WORDS for w in said):
        return True
    return 2 * sum(w in _LIST_PROSE_WORDS for w in said) > len(said)


PUBLIC_KEY_NAMES = ("public", "pub", "primary", "foreign", "partition", "sort", "cache", "idempot",
                     "dedup", "lookup", "fingerprint", "checksum", "hash", "host", "ssh", "authorized",
                     "gpg", "pgp", "publishable", "object", "routing", "index", "unique", "row", "verif")
# Words before "key" that make a bare "key <value>" in prose a credential's label.
_KEY_QUALIFIERS = ("api", "access", "secret", "private", "auth", "encryption", "decryption", "signing", "wifi", "wi-fi",
                   "wpa", "wpa2", "wlan", "network", "license", "licence", "activation",
                   "master", "hmac", "aes", "unseal", "wallet", "deploy", "service", "bot",
                   "integration", "admin", "write", "ingest", "instrumentation", "management", "subscription")
# A value after a spaced dash: one token of key characters, not starting with a digit.
_DASHED_VALUE = lazy(rf"[A-Za-z{re.escape(PASSWORD_SYMBOLS)}_][A-Za-z0-9{re.escape(PASSWORD_SYMBOLS)}_.-]{{7,199}}")
_PASSWORD_KEYS = ("wifi", "wi-fi", "wpa", "wpa2", "wlan", "network")
# a text about a wireless network above a bare "key" (netsh's "Key Content", a router's "Key:"): its password
_WIFI = lazy(r"(?<![a-z])(?:wpa2?|wpa3|wlan|ssid|wi-?fi|wireless)(?![a-z])")
_WIFI_REACH = 600
SEP = lazy(r"[-_.]")
_PAIR = lazy(r"[ \t]{1,4}/[ \t]{1,4}(?P<pw>[^\s\"'`,;]{1,200})")  # after `creds: user`
_AND_PAIR = lazy(r"[ \t]{1,4}(?i:and|&|with)[ \t]{1,4}(?P<pw>[^\s\"'`,;]{1,200})")  # "login is admin and X"
_PAIR_AFTER_WORD = lazy(r"[ \t]{1,4}[^\s/]{1,64}[ \t]{1,4}/[ \t]{1,4}(?P<pw>[^\s\"'`,;]{1,200})")
# An f-string's replacement field: a name, then a conversion or a format spec (`{password!r}`, `{pw:>8}`)
_CALL_END = lazy(r"[ \t]{0,4}\)")  # the call's only argument ends here
_FSTRING_FIELD = lazy(r"[A-Za-z_][\w.]{0,60}(?:![rsa](?::[^{}]{0,20})?|:[^{}]{0,20})")
_BARE_TOKEN = lazy(r"[A-Za-z0-9_+/=.~!-]+")  # (`!`: a Salesforce session id is `<org id>!<token>`)
# Without a sign, upper-case hex and hex of a digest's length are fingerprints and digests.
# Ten capitals and digits or fewer after a flag or a bare label: an id (App Store Connect's and
# Apple's key and team ids, `--apiKey 2X9R4HUZ3L`, name the key whose .p8 file holds the secret);
# a token is longer, and a short one assigned with a sign or quotes is still judged.
_SHORT_ID = lazy(r"[A-Z0-9]{6,10}")
DIGEST = lazy(r"[0-9A-F]{16,}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{128}")
# Words a sentence ends on after "password is": states, not passwords.
_STATE_WORDS = frozenset(["wrong", "weak", "strong", "empty", "blank", "missing", "invalid", "correct", "incorrect", "expired", "needed", "required", "mandatory", "optional", "unknown", "unchanged", "reset", "same", "different", "secure", "insecure", "stored", "hidden", "long", "short", "simple", "complex", "known", "unique", "forgotten", "locked", "unlocked", "rotated", "revoked", "disabled", "enabled", "compromised", "leaked", "shared", "saved", "encrypted", "hashed", "mandatory", "sensitive", "important", "protected", "temporary", "permanent", "generated", "random"])
_STATE_SUFFIXES = ("ed", "ing", "able", "ible", "ive", "ful", "less", "ous", "ly", "tion", "ment", "ness")


def _is_key_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch in "_.-")


# The name endings key_class reads (compiled at first use, like every pattern of the gate)
_PASS_END = lazy(r"[_.-]pass$")
# `adminpass`, `requirepass` (redis.conf), `smtppass`: a word that says whose password, run
# together with "pass" (not "bypass", "compass", "surpass")
_WHOSE_PASS = lazy(r"(?:^|[_.-])(?:admin|root|db|user|mail|smtp|imap|pop|ftp|sftp|ssh|require|master|store|key|app|api"
                   r"|web|sql|ldap|bind|proxy|redis|vnc|rcon|wifi|login|sasl|sa"
                   # (Java's and TLS stores': Tomcat's `keystorePass`, `truststorePass`, `pfxPass`)
                   r"|keystore|truststore|trust|pfx|p12|jks|cert|ssl|tls|signing|sudo|vpn)pass$|(?:^|[_.-])masterauth$")
_PSK_END = lazy(r"(?:^|[_.-])psk$")
_PW_END = lazy(r"(?:^|[_.-]|bind|root|admin|master|ldap|db|smtp|mail|ftp|vnc)pw$")  # `bindpw`, `rootpw` (ldap.conf, slapd.conf): whose pw
_FOREIGN_END = lazy(rf"[_.-](?:{_FOREIGN_PASSWORD})$")
# a CJK or Thai word for password or token written against the word before it ("root密码")
_SCRIPT_PASSWORD_END = lazy(rf"(?:{_SCRIPT_PASSWORD})$")
_SCRIPT_SECRET_END = lazy(rf"(?:{_SCRIPT_SECRET})$")
_SCRIPT_KEY_END = lazy(r"(?:キー|키)$")
_FOREIGN_SECRET_NAME = lazy(rf"(?:^|[_.\s-])(?:{_FOREIGN_SECRET})$|(?:{_SCRIPT_SECRET})$")
_SECRET_ID = lazy(r"(?:^|[_.-])secret[_-]?id$")  # Consul's SecretID, Vault AppRole's secret_id (not "Secret ID")
_SESSION_ID = lazy(r"(?:session|sess)[_-]?id$")  # JSESSIONID, PHPSESSID, sessionid: a session cookie
# a session cookie's name (`.AspNetCore.Cookies`, `connect.sid`, Google's `SAPISID`, `__Secure-3PSID`);
# not a bare "SID" (Twilio's Account SID, a Windows SID: ids) nor a network's SSID
_COOKIE_NAME = lazy(r"(?:^|[.])[a-z]{0,20}cookies?$|[.]sid$|^(?:__secure-|__host-)?[0-9]?(?:psid|sapisid|apisid|papisid)$")
_AUTH_PAT_END = lazy(r"(?:^|[_.-])(?:auth|pat)$")
_SITE_KEY_END = lazy(r"(?:^|[_.-])site[_-]?key$")
# a key named for what it grants (an API's, an account's access, an integration's or a service's
# use, writes to an ingest endpoint, a licence): a credential whatever its value's shape; not a key
# named for what it indexes (`CORRELATION_KEY`, `PARTITION_KEY`, `CACHE_KEY`)
_GRANTING_KEY_END = lazy(r"(?:api|access|private|master|integration|service|admin|write|ingest|ingestion|instrumentation"
                         r"|management|subscription|license|licence|enterprise|sdk|server|signing|auth)[_.-]?key$")
_SECRET_KEY_NAME = lazy(r"secret|api[_-]?key$|(?:^|[_.-])auth[_.-]?key$")


def key_class(name: str) -> str | None:
    """'password', 'secret' or 'key' (high-entropy values only) for an assignment's key name."""
    if _CAMEL_AUTH_END.search(name):
        # `pmaAuth-1` (phpMyAdmin's cookie), `sessAuth`: a camelCase name ending in Auth holds an
        # authenticator when its value is random (`requireAuth: true`, `useAuth = isProd` pass)
        return "key"
    low = name.lower().lstrip("-")
    if "_" in low.rstrip("_").rsplit("_", 1)[0]:
        low = _QUALIFIER_END.sub("", low)  # `DB_PASSWORD_STAGING`: the password's name, for one environment
    content = _CONTENT_END.search(low)
    if content and content.start() > 0:
        return key_class(low[:content.start()])  # `keyData`, "Key Content": what the key holds is the key
    low = _NUMBERED_END.sub("", low)  # `key1`, `DB_PASS_PART1`: one of several, named as they all are
    if "public" in low:
        return None  # publicKeyToken and public_key are shared by design
    if low.endswith(("password", "passwd", "passphrase", "pass_phrase", "pass-phrase", "passcode", "pwd")) \
            or _PASS_END.search(low) or _WHOSE_PASS.search(low):
        return "password"  # (`PWD=/home/x`, the shell's directory, is a path: a placeholder)
    if _PSK_END.search(low):
        return "password"  # a Wi-Fi pre-shared key (wpa_supplicant `psk=`, `WIFI_PSK`): the network's password
    if name.startswith("-") and low.endswith("pass"):
        return "password"  # a command's flag: keytool -storepass, -keypass, --db-pass
    if low == "pass" and name != "PASS":
        return "password"  # `pass: X` in a login block; `PASS: test-name` is a test log
    if _PW_END.search(low):
        return "password"
    if _FOREIGN.fullmatch(low) or _FOREIGN_END.search(low) or _SCRIPT_PASSWORD_END.search(low):
        return "password"  # a whole word: "Passwort", "db_senha", "root密码"; not "enclave"
    if _FOREIGN_SECRET_NAME.search(low):
        return "secret"  # "clave", "api-schlüssel", "ключ", "APIキー": a value after it must look random
    if low in ("login", "logon"):
        return "login"  # counts only with "user / password" after it (see _judged)
    if low in ("wifi", "wi-fi", "wlan", "wireless", "hotspot"):
        return "network"  # "the wifi is X": a password only when no network's name could be it (see judge)
    if low.endswith(("secret", "token", "apikey", "credential", "credentials", "secret_key_base", "creds")) \
            or _SECRET_ID.search(low) or _SCRIPT_SECRET_END.search(low):
        return "secret"
    if _AUTH_PAT_END.search(low):
        return "secret"  # npm's _auth, GH_PAT; not oauth or compat
    # (a seed's name, `node_key_seed`, `wallet_seed`: random bytes a key is made from; a number
    # for a random generator, `seed: 42`, is no high-entropy value)
    if low.endswith(("private_key_id", "session", "wif", "appid", "encrypt", "license", "licence", "serial", "seed")) \
            or _SESSION_ID.search(low) or _COOKIE_NAME.search(low) \
            or _SCRIPT_KEY_END.search(low):
        return "key"  # a session cookie is a credential when its value is random
    if low.endswith("key"):
        # (a routing key is a queue's topic name, `orders.created`, or an alerting service's
        # integration secret, PagerDuty's: the "key" class judges it by its value, random or not)
        # (the word right before "key" says what it is: `GEM_HOST_API_KEY` is an API key whatever
        # names its host, `SSH_PRIVATE_KEY` a private one; `SSH_HOST_KEY` a public one)
        granted = _GRANTING_KEY_END.search(low)
        if not granted and (any(w in low for w in PUBLIC_KEY_NAMES if w != "routing") or _SITE_KEY_END.search(low)):
            # (a CAPTCHA's site key, reCAPTCHA's or Turnstile's, goes in every page; its secret does not)
            return None  # public keys, fingerprints and lookup keys are meant to be shared
        return "secret" if _SECRET_KEY_NAME.search(low) else "key"
    return None


def plain_password(value: str) -> bool:
    """A password with no digits or symbols that still reads as one after a password label: a
    lowercase word of 8 letters or more that is not a state ("expired", "incorrect"), or a
    passphrase of three words or more joined by ``-``, ``_`` or ``.``."""
    if value.isalpha() and value.islower():
        # a long run of letters is words run together (a state word is rarely 14 letters long)
        return (len(value) >= 8 and value not in _STATE_WORDS
                and (len(value) >= 14 or not value.endswith(_STATE_SUFFIXES)))
    parts = [p for p in SEP.split(value) if p]
    alpha = sum(p.isalpha() and len(p) >= 3 for p in parts)
    return (len(parts) >= 3 and len(value) >= 12 and (alpha >= 3 or (alpha == 2 and any(p.isdigit() for p in parts)))
            and all(p.isalnum() for p in parts) and not any(p.lower() in _STATE_WORDS for p in parts))


# A password as people make one: a word, a joint, a number ("Juniper_4658", "Rhubarb-4904",
# "Nimbus@4675", "Sparrow2927!"). is_wordy reads `Word-1234` as a name (`Release-2024`, `X-Access-Token`),
# which it is anywhere but after a password's label.
# (or two words joined, then the number: "quartz.walnut29", "meadow-Lark482")
_WORD_NUMBER = lazy(r"(?P<word>[A-Za-z]{4,14}|[A-Za-z]{3,14}[-_.][A-Za-z]{3,14})(?P<joint>[-_.@#!$%&*+=]{0,2})(?P<number>[0-9]{2,8})[!?#@$%&*]{0,2}")


def word_and_number(value: str, *, joined: bool = False) -> bool:
    """A word of four letters or more and a number of three digits or more, or two words joined
    and a number of two digits or more, as a person writes a password (``Juniper_4658``,
    ``quartz.walnut29``); ``joined``: only with a joint or symbol between (``Rhubarb-4904``,
    not ``Summer2024``), where no sign before the value says it is one. A state word
    ("expired-2024") or an all-capital tag (``HTTP-404``) is no password."""
    m = _WORD_NUMBER.fullmatch(value)
    if not m:
        return False
    word, parts = m.group("word"), SEP.split(m.group("word"))
    if len(m.group("number")) < (2 if len(parts) == 2 else 3):
        return False  # (one word needs three digits: `Route66` is a name; two words and two digits are made)
    return (not word.isupper() and all(p.islower() or p.istitle() for p in parts)
            and not any(p.lower() in _STATE_WORDS for p in parts)
            and (not joined or bool(m.group("joint")) or len(parts) == 2 or value[-1] in "!?#@$%&*"))


# A word, a number and a symbol at either end ("!Lantern52", "#quokka13", "Marmot95*"): a password a
# person made, where a name or an issue reference has no symbol after its number or before its word
_SYMBOL_WORD_NUMBER = lazy(r"(?P<lead>[!#$%&*?@^~+=]{1,2})?(?P<word>[A-Za-z]{4,14})[0-9]{2,6}(?P<tail>[!#$%&*?@^~+=]{1,2})?")


def symbol_word_number(value: str) -> bool:
    """A word of four letters or more, a number of two digits or more, and a symbol before or after
    them (``!Lantern52``, ``Marmot95*``), not a state word: a password after its word with no sign."""
    m = _SYMBOL_WORD_NUMBER.fullmatch(value)
    return bool(m and (m.group("lead") or m.group("tail")) and not m.group("word").isupper()
                and m.group("word").lower() not in _STATE_WORDS)


_KIND_RUN = lazy(r"[A-Z]+|[a-z]+|[0-9]+")


def scrambled(value: str) -> bool:
    """Eight letters and digits or more of both cases whose kind changes at most characters
    (``REb7C6ZgWF``: eight runs in ten), as a generator draws them; names and models change
    kind a few times (``iPhone15Pro``, ``OAuth2Flow``: five or six runs in ten or eleven)."""
    if not 8 <= len(value) <= 64 or not value.isascii() or not value.isalnum():
        return False
    runs = _KIND_RUN.findall(value)
    return (any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)
            and 10 * len(runs) >= 7 * len(value))


def _two_words_number(value: str) -> bool:
    """Two words joined and a number (``saffron.Orbit36``, ``meadow-lark482``): a password a person
    made, which no sign needs to name (``password <word>.<Word><digits>``); one word and a number
    (``password Reset2024``, ``pw Route66``) may be a name."""
    value = value.rstrip(".,;:!?)")
    return len(SEP.split(value)) == 2 and word_and_number(value) and not any(p.lower() in _CODE_PARTS for p in SEP.split(value))


# A passphrase a generator or a person made of common words: joined by one separator
# (`<word>-<word>-<word>`, `<word>.<word>.<word>.<word>`), or run together (`<word><word><word>`).
# The words are BIP-39's English list (2,048 common words, the one the gate ships); a run of them
# is no state ("expired"), name or code reference in any language, so it counts after a password's
# label in any language and with no sign between ("password" then four words joined by dashes).
_COMMON_WORDS = frozenset(w for w in BIP39_ENGLISH if len(w) >= 3)
_JOINED_WORDS = lazy(r"[a-z]{3,12}(?P<sep>[-._])[a-z]{3,12}(?:(?P=sep)[a-z]{3,12}){1,9}")
_CODE_PARTS = frozenset(["self", "this", "env", "config", "settings", "secrets", "vault", "com", "org", "net", "io", "dev",
                         "local", "internal", "example", "password", "passwd", "secret", "token", "key", "value", "prod"])


def _run_of_words(value: str, least: int) -> bool:
    """Is ``value`` (lowercase letters) ``least`` or more common words run together?"""
    n = len(value)
    best = [0] + [-1] * n  # best[i]: most words covering value[:i] (-1: no cover)
    for i in range(3, n + 1):
        for j in range(max(0, i - 8), i - 2):
            if best[j] >= 0 and value[j:i] in _COMMON_WORDS:
                best[i] = max(best[i], best[j] + 1)
    return best[n] >= least


_DICE_VOWEL = lazy(r"[aeiouy]")
_DICE_CLUSTER = lazy(r"[b-df-hj-np-tv-xz]{4}")


def _dice_word(part: str) -> bool:
    """A word a diceware list could hold (EFF's 7,776 reach past BIP-39's 2,048: ``thistle``,
    ``tundra``): 3 to 9 letters with a vowel and no run of four consonants, so a syllable, not an
    abbreviation or a random run."""
    return 3 <= len(part) <= 9 and _DICE_VOWEL.search(part) is not None and _DICE_CLUSTER.search(part) is None


def passphrase(value: str, *, signed: bool = True) -> bool:
    """Common words made into a password (see above): three or more joined by ``-`` or ``_``,
    four or more by ``.``, or run together; with no sign before it (``signed=False``), four or
    more, every one common. After a sign, four to eight different words joined by ``-`` or ``_``
    count as well when every one reads as a word (:func:`_dice_word`): a diceware passphrase drawn
    from a longer list than BIP-39's."""
    value = value.strip("\"'`").rstrip(".,;:!?)")
    m = _JOINED_WORDS.fullmatch(value)
    if m:
        parts = value.split(m.group("sep"))
        # (with no sign before it, four words, every one common: `pw release-notes-draft` names a file)
        least, common = (4 if m.group("sep") == "." or not signed else 3), (len(parts) - 1 if signed else len(parts))
        # (a state word among five generated words or more is chance: "liberty-short-try-language-steel")
        states = sum(p in _STATE_WORDS for p in parts)
        if len(parts) < least or states > (len(parts) >= 5) or any(p in _CODE_PARTS for p in parts) or _sentence(parts):
            return False
        n_common = sum(p in _COMMON_WORDS for p in parts)
        return n_common >= common or (
            signed and m.group("sep") != "." and 4 <= len(parts) <= 8 and len(set(parts)) == len(parts)
            and all(map(_dice_word, parts)))
    return 14 <= len(value) <= 60 and value.isascii() and value.isalpha() and value.islower() \
        and not NAMED.fullmatch(value) and _run_of_words(value, 3 if signed else 4)  # (not `currentpassword`)


_CASE_DIGIT_CASE = lazy(r"(?<![A-Za-z])[a-z][A-Z]{1,2}[a-z]?[0-9]|[0-9][a-z]+[A-Z]|[A-Z][0-9]+[a-z]{2}")


def _letter_noise(value: str) -> bool:
    """Twelve to 64 lower-case ASCII letters with a run of four consonants (no English syllable
    has one; ``strengths`` has three) that are not common words run together."""
    return 12 <= len(value) <= 64 and value.isascii() and value.isalpha() and value.islower() \
        and _DICE_CLUSTER.search(value.replace("y", "a")) is not None and not _run_of_words(value, 2)


def _scrambled_part(value: str) -> bool:
    """Does one part of a dotted value change case next to digits as no name does: a lone lower-case
    letter starting a run of capitals and digits (``iL03tcha``, ``mWq9``), digits then lower case then a capital, or a
    capital, digits and lower case (names write ``V2Async``, ``s3Bucket``, ``ec2``)?"""
    return any(_CASE_DIGIT_CASE.search(p) and not identifier_like(p) for p in value.rstrip(".,;)").split("."))


def _quoted_words(value: str) -> bool:
    """Four to eight words of lower-case letters, all but one of them common words, quoted after a
    password's label: a passphrase, not a sentence (no word of prose, a state word at most one of five)."""
    parts = value.strip("\"'`").split(" ")
    return (4 <= len(parts) <= 8 and all(p.isalpha() and p.islower() and 3 <= len(p) <= 12 for p in parts)
            and sum(p in _COMMON_WORDS for p in parts) >= len(parts) - 1 and len(set(parts)) == len(parts)
            and not _sentence(parts) and sum(p in _STATE_WORDS for p in parts) <= len(parts) // 5
            and not any(p in _CODE_PARTS for p in parts))


# Google's app password (four groups of four lower-case letters) after an app password's label on
# its line, whatever words stand between ("App password the CI job uses to send reports: X")
_APP_LABEL = lazy(r"(?i:(?<![\w-])app(?:lication)?[ _-]?passwords?(?![\w-]))")
_APP_GROUPS = lazy(r"(?<![\w-])[a-z]{4}(?:[ -]?[a-z]{4}){3}(?![\w-])")


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
        groups = [g.group().replace(" ", "").replace("-", "")[i:i + 4] for i in range(0, 16, 4)]
        if sum(w not in _COMMON_WORDS and w not in _PROSE_WORDS for w in groups) >= 3:
            yield "app password", g.start(), g.end()


def judge(cls: str, op: str, value: str, *, quoted: bool, code: bool, ends: bool, hint: bool = True) -> str | None:
    """The finding's kind if ``name <op> value`` assigns a literal credential, else None.

    ``code`` marks an unquoted lowercase word in code position (``user, password = split``,
    ``connect(password=pw)``): a variable, not a value. ``ends``: the value ends its sentence
    or line (a plain password after a label, not the first word of a clause). ``hint``: the
    value could be a type hint; one written with a ``!`` or ``?`` right after it is not.
    """
    if cls == "password" and quoted and op != "(" and _quoted_words(value):
        return "password assignment"  # `passphrase "<word> <word> <word> <word> <word>"`: words quoted as the value
    if cls in ("password", "network") and op != "(" and (not code or op == "") and passphrase(value, signed=op != "" or quoted):
        # words made into a password: a dotted run is no code reference here (quotes sign it as a
        # value as a sign does: `password "<word>-<word>-<word>-<word>"`)
        return "password assignment"
    if cls == "password" and op in ("is", ":", "", "--") and not code and "." in value and word_and_number(value, joined=op == "") \
            and not any(p.lower() in _CODE_PARTS for p in SEP.split(value)):
        # two words and a number joined by a dot after a password's label in prose or a `Label:`
        # ("Heslo ... je <word>.<word><digits>"): a person's password, not a dotted name in code, which
        # an `=` assigns (`password = settings.pass12`) and whose parts a program names (`self.`)
        return "password assignment"
    if cls == "password" and (op == "--" or (op in (":", "=", "is") and not code)) and _letter_noise(value):
        # twelve lower-case letters or more that no words make (`vdmiezgdejwjkioy`, a generated app
        # password written whole): after a password's name in a config line, a directive or prose
        return "password assignment"
    if cls in ("password", "network") and op == "is" and not code and "." in value.strip(".") and unguessable(value) \
            and _scrambled_part(value):
        # a dotted value after "the wifi password ... is" whose part mixes cases around digits no name
        # mixes so (`IIH.iL03tcha`): a password with a dot in it; a program's dotted name keeps each
        # part an identifier (`settings.dbPass2`, `AppConfig.V2`)
        return "password assignment"
    if code or is_placeholder(value, quoted=quoted) or NAMED.fullmatch(value) or value.startswith("--") or key_chord(value):
        return None  # (`creds = " --username=" + auth` builds a command line)
    if cls == "password" and op == "" and scrambled(value):
        return "password assignment"  # (before the type-name test: `O2R8UziJdi` is no type a hint names)
    if cls == "network":
        # a network's name after its word is an SSID (`Office-5G`, `Linksys-0422`, `TP-Link_2354`):
        # only a value no name could be, three kinds of character and a symbol or twelve long
        return "password assignment" if op != "(" and " " not in value.strip() and unguessable(value) else None
    if public_by_design(value) and cls != "password" and not (cls == "secret" and value.startswith("client-")):
        # a public key's prefix under a password's label proves nothing, and `client-` (a common
        # word) proves nothing under a secret's: `API_SECRET=client-...` is judged as any value
        return None
    # A quoted value or `=` assigns a literal; after a bare `Word:` (prose, YAML, type hints),
    # `is` or a --flag, the value must look like a credential by itself.
    if op == "(" and " " in value.strip():
        return None  # a literal passed to a call with a space in it is a prompt: `getpass("DB password: ")`
    # (a literal passed to a call is judged by its look alone)
    strong = (quoted and op != "(") or op in ("=", ":=", "=>", "==")
    if not strong and hint and type_name(value):
        return None
    words = len(value.split())
    if cls != "password" and words == 2 and (quoted or strong):
        # a scheme and a token, as an Authorization value is written: "Bearer X", "FlyV1 fm2_X"
        scheme, token = value.split()
        return "secret assignment" if len(scheme) <= 12 and scheme.isalnum() and high_entropy(token) else None
    if (cls != "password" and words > 1) or words >= 5:
        return None  # tokens and keys have no spaces; a passphrase of five words or more is prose
    if op == "" and cls == "password":
        # `pw X` with no sign: only a value no word or name could be
        return "password assignment" if unguessable(value) or word_and_number(value, joined=True) \
            or symbol_word_number(value) else None
    if op == "--" and cls == "secret" and not quoted and passphrase(value, signed=False):
        # `--token <word>-<word>-<word>-<word>`: a token a generator made of common words, given
        # to the flag that takes it (four words or more, every one common: no resource's name)
        return "secret assignment"
    if op == "":  # `token X`, `api key X`: no sign, so the value must be unmistakable
        # a digest's hex after a bare "key" is a fingerprint; after "secret" or "token", a secret
        if cls != "password" and not quoted and _BARE_TOKEN.fullmatch(value) and high_entropy(value) \
                and not (cls == "key" and DIGEST.fullmatch(value)):
            return "secret assignment" if cls != "key" else "high-entropy string in assignment"
        return None
    if cls == "key":
        return "high-entropy string in assignment" if high_entropy(value) else None
    if cls == "password":
        hit = credential_like(value) or (strong and len(value) >= 4 and not value.isdigit())
        hit = hit or (ends and words == 1 and plain_password(value)) or (words == 1 and word_and_number(value))
        return "password assignment" if hit or (strong and value.isdigit() and len(value) >= 6) else None
    if not strong and _SHORT_ID.fullmatch(value):
        return None  # `--apiKey 2X9R4HUZ3L`: a key's id, no sign or quote that assigns a secret
    hit = credential_like(value) and len(value) >= 8
    hit = hit or (strong and len(value) >= 16 and not is_wordy(value))
    hit = hit or UUID.fullmatch(value) is not None  # tokens that are UUIDs: Postmark, Consul, Heroku, Railway
    return "secret assignment" if hit else None


def grants(name: str) -> bool:
    """Is ``name`` a key's named for what it grants (:data:`_GRANTING_KEY_END`), so that a UUID
    given to it is a credential (``SAUCE_ACCESS_KEY``, ``PD_INTEGRATION_KEY``)?"""
    return _GRANTING_KEY_END.search(name.lower().replace(" ", "_")) is not None


def _granted_uuid(tail: re.Match[str]) -> Span | None:
    """The UUID an assignment's tail gives, if that is all it gives and no placeholder."""
    raw = tail.group("value")
    value = raw.strip("\"'`")
    if not UUID.fullmatch(value) or is_placeholder(value, quoted=True):
        return None
    at = tail.start("value") + raw.index(value)
    return "secret assignment", at, at + len(value)


def _random_groups(groups: list[str]) -> bool:
    """Number groups drawn, not listed: neither a series (years, versions, ids in order) nor repeats."""
    numbers = [int(g) for g in groups]
    return len(set(groups)) == len(groups) and numbers != sorted(numbers) and numbers != sorted(numbers, reverse=True)


def _name_before(text: str, at: int) -> int | None:
    """Where the key name ending at ``at`` starts; None for a name longer than any real one."""
    start, limit = at, max(0, at - 42)
    while start > limit and _is_key_char(text[start - 1]):
        start -= 1
    if start == limit and start > 0 and _is_key_char(text[start - 1]):
        return None
    return start


def _public_word_before(low: str, start: int) -> bool:
    """Does the word before a bare ``key`` say it is a public or lookup key ("cache key")?"""
    before = low[max(0, start - 16):start].rstrip(" \t-_")
    word = re.split(r"[^a-z0-9]", before)[-1] if before else ""
    # (a routing key is a queue's topic or an alerting service's integration secret: its value says which)
    return bool(word) and word.startswith(PUBLIC_KEY_NAMES) and word != "routing"


def _prose_key(text: str, start: int, cls: str, qualifiers: tuple[str, ...] = _KEY_QUALIFIERS) -> bool:
    """Is a bare ``key`` (class 'key') here the end of "api key", "secret key", ...?"""
    before = text[max(0, start - 12):start].rstrip(" \t-_").lower()
    return cls != "key" or before.endswith(qualifiers)


# Judging one label costs ~0.1-0.5 ms, so a text made of labels (`key=key=key=...`, 20,000 of them
# in an 80 KB file) would cost seconds per file, and a peer's push of such files hours of CPU on
# every clone. A memory is a short note: one with more labels than this is refused whole as one
# that cannot be checked (the person splits it), which bounds the gate's work per file.
MAX_LABELS = 1000
TOO_MANY_LABELS = "too many credential labels to check"


def assignments(text: str, low: str) -> Iterator[Span]:
    """``password=...``, ``secret: ...``, ``--token X``, ``the password is X``, ``the token for
    staging is X``, ``api key X`` with a literal value (``low``: ``text`` lowercased, same length).
    A text with more than :data:`MAX_LABELS` labels is one finding over the whole text."""
    skip_to = 0
    for n, kw in enumerate(_keywords(low)):
        if n == MAX_LABELS:
            yield (TOO_MANY_LABELS, 0, len(text))
            return
        if kw.start() < skip_to:
            continue  # inside a value already reported: it is one token, judged whole
        start = _name_before(text, kw.start())
        if start is None:
            continue
        name = text[start:kw.end()]
        cls = key_class(name)
        if cls == "key" and start == kw.start() and (_prose_key(text, start, "key", _PASSWORD_KEYS)
                                                     or _WIFI.search(low, max(0, start - _WIFI_REACH), start)):
            cls = "password"  # a Wi-Fi or network key is a password a person chose, judged as one
        if cls == "key" and start == kw.start() and _public_word_before(low, start):
            continue  # "cache key: linux-<hash>", "S3 object key: ...": names the key's use, a public one
        if name.lower().endswith(("license", "licence", "serial")):
            # a licence or serial key: only a random or grouped value near it ("License: MIT" and
            # SPDX names are names), read by the value-near-its-label rule alone
            found = _near(text, low, kw.end(), "secret", kw.start() if start == kw.start() else None)
            if found:
                skip_to = max(skip_to, found[2])
                yield found
            continue
        if not cls and name[-1:] in "sS" and kw.group().endswith("s") and key_class(name[:-1]) in ("password", "secret", "key"):
            # a list of them (`api_tokens:`, "passwords for the lab: X and Y"): a value near counts
            # only by its look, as no sign says where one value ends
            found = _near(text, low, kw.end(), "password" if key_class(name[:-1]) == "password" else "secret",
                          kw.start() if start == kw.start() else None)
            if found:
                skip_to = max(skip_to, found[2])
                yield found
            continue
        before = text[max(0, start - 1):start]
        # (a sigil's variable given a quoted literal is an assignment: PowerShell's and PHP's
        # `$ApiKey = "X"`, Perl's `my $api_key = "X";`; elsewhere `$NAME` reads a variable)
        sigil_literal = before == "$" and _SIGIL_LITERAL.match(text, kw.end()) is not None
        if not cls or (before in ("$", "%") and not sigil_literal) or (before == "{" and not _COMMA_LITERAL.match(text, kw.end())
                                                                       and not _FLOW_MEMBER.match(text, kw.end())):
            continue  # ${SECRET_KEY:?missing}, %PASSWORD%, {password}: a reference to a variable, a template's field
        if text[max(0, start - 1):start] == ":" and _in_arn(text, start):
            continue  # `arn:aws:secretsmanager:...:secret:prod/db`: a resource type, not a label
        # (an aside in parentheses between the label and its sign leaves the label where it was:
        # "master password (do not lose): X", "api token (staging): X")
        aside = _ASIDE.match(text, kw.end())
        if aside and (_ASIDE_STOP.search(low, aside.start(), aside.end()) or says_not_secret(aside.group())):
            continue  # "site key (public, goes in the HTML): X", "api key (example): X": the aside says what it is
        tail = _ASSIGN_TAIL.match(text, aside.end() if aside else kw.end())
        op = _op(tail) if tail else ""
        if op == "," and not _TUPLE_OPEN.search(text, max(0, start - 3), start):
            tail, op = None, ""  # a name and a literal after a comma are a tuple's only after its brace
        # `--token X` and fish's `set -x API_SECRET X` pass a value without a sign, like a flag
        flag = name.startswith("-") or (ENV_NAME.fullmatch(name) is not None and (cls != "key" or _SET_VARIABLE.search(
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
        flag = flag or bool(tail and op == "" and _directive(text, start, tail))
        # (a CJK word for password written against a word, "root密码 X", is a prose label as the word alone is)
        script = cls == "password" and _SCRIPT_PASSWORD_END.search(name.lower()) is not None
        if tail and op == "" and not flag and not snake and not script and not (start == kw.start() and _prose_key(text, start, cls)) \
                and not (cls == "password" and passphrase(tail.group("value"), signed=tail.group("value")[:1] in "\"'")) \
                and not (cls == "password" and _two_words_number(tail.group("value"))):
            tail = None  # (words made into a password need no sign: "senha" then words run together)
        if tail and op == "is" and cls == "key" and not _prose_key(text, start, cls):
            tail = None
        found = _judged(text, tail, cls, flag=flag) if tail else None
        if not found and cls == "key" and tail and (_op(tail) in ("=", ":", ":=", "=>", "is") or (flag and _op(tail) == "")) \
                and (grants(name) or (start == kw.start() and grants(low[max(0, start - 24):kw.end()]))):
            # an access, private or master key given a UUID (Sauce Labs' and MongoDB Atlas's keys
            # are UUIDs): a key that grants what it names is no record's id, as after "secret"
            found = _granted_uuid(tail)
        # (a compound written as prose writes it, "the WLAN-Passwort im Büro lautet X", "wifi-password
        # in the office is X", is read as prose too)
        spoken_name = start == kw.start() or (cls != "key" and _COMPOUND.fullmatch(name) is not None)
        if not found and spoken_name and (cls != "key" or _prose_key(text, start, cls)):
            prose = _PROSE_TAIL.match(text, kw.end())
            if prose and text[kw.end():prose.start("op")].split()[-1].strip("()[]").lower() in _ID_WORDS:
                prose = None  # "Secret ID: <uuid>", "token name: deploy": what names the secret, not it
            if prose and _names_a_property(text[kw.end():prose.start("op")].split(), prose.group("op")):
                prose = None  # "the password hashing scheme is Argon2id": what the label's nouns name
            found = _judged(text, prose, cls) if prose else None
            if not found and prose and cls == "key" and _op(prose) in (":", "is") and grants(low[max(0, start - 24):kw.end()]):
                found = _granted_uuid(prose)  # "the acme integration key is <uuid>"
        if not found and (cls != "key" or _prose_key(text, start, cls)):
            below = _NEXT_LINE.match(text, kw.end())
            found = _judged(text, below, cls, flag=True) if below else None
            if found and (text[found[1]:found[2]].endswith(":") or "\n" in text[kw.end():below.start("value")].strip(" \t:\r\n")):
                found = None  # a YAML mapping (`password:` then `secretKeyRef:`), or prose lines
        if not found and (start == kw.start() or name.replace("_", "").replace("-", "").isalpha()) and cls != "key":
            # (a label of one word, the credential's word run into it: "X <- ngrok authtoken",
            # "X <- google refresh_token")
            found = _value_before(text, start, cls, kw.end())
        if cls == "key" and name.lower().endswith("encrypt") and not (tail and _op(tail) in ("=", ":", ":=")):
            continue  # "encrypt to X", "Encrypt backups to the recipient: X": a public key follows, not a secret
        if not found:  # (after `login` only a token: `quarryctl login X`; a user's name is no secret)
            found = _near(text, low, kw.end(), "secret" if cls == "login" else cls,
                          kw.start() if start == kw.start() else None)
        if found and _FOREIGN.match(kw.group()) and text[found[1]:found[2]].isalpha() and not passphrase(text[found[1]:found[2]]):
            # another language's word for password: its states ("abgelaufen", "incorrecta") are
            # not known here, so a value of letters alone does not count after it
            found = None
        if found and ("encrypted" in name.lower() or "ciphertext" in name.lower()):
            found = None  # `ENCRYPTED_DB_PASSWORD=AQICAH...`: the name says the value is ciphertext
        if found and _under_encrypted(text, start):
            found = None  # a SealedSecret's or SOPS file's encryptedData: ciphertext, not the secret
        if found and own_name(text[found[1]:found[2]], name):
            found = None  # `POSTGRES_PASSWORD: postgres`, `ADMIN_PASSWORD=admin`: the image's default
        if found and _stated_default(text, low, start, found):
            found = None  # "MinIO's documented defaults: ... PASSWORD=minioadmin": a default, said so
        if found and name.lower().replace("_", "").endswith(("apikey", "appid")) and in_web_config(text, found[1], found[2]):
            found = None  # a Firebase config's `apiKey` and `appId`: public by design (not a secret beside them)
        if found:
            skip_to = max(skip_to, found[2])
            yield found


# --- a random value near its word, in any syntax ---------------------------------------------

# A credential stands near the word that names it whatever the syntax between them: a call's
# arguments (`setSecret(realm, "X")`), a dictionary (`kSecValueData: "X"`), a Makefile's `?=`,
# prose ("the signing secret Mia sent over X"), a positional argument ("quarryctl login X").
# Any word on the same line within reach after the label is judged by its look alone, and only
# a value made to be hard to guess counts (secret_values.random_token, random_hex, unguessable).
_NEAR_REACH = 80
# (a value is a run of token characters after any other, `=` included: `「X」`, `"X\r"`, `(X)`)
# (possessive, and never starting inside a run: `key=key=...` over 80 KB is one run, tried once
# per label, not once per `=` with a thousand steps back each)
_NEAR_VALUE = lazy(r"(?<![A-Za-z0-9+/_.~!@#$%^&*?{=-])[A-Za-z0-9+/_.~!@#$%^&*?=-]{8,1000}+(?![A-Za-z0-9+/_.~!@#$%^&*?=-])")
_NEAR_RUN = lazy(r"[A-Za-z0-9+/_.~!@#$%^&*?=-]{8,1000}+(?![A-Za-z0-9+/_.~!@#$%^&*?=-])")
_NEAR_START = lazy(r"(?<![A-Za-z0-9+/_.~!@#$%^&*?{=-])[A-Za-z0-9+/_.~!@#$%^&*?=-]{8}")
# a label's line that points to the value below it ("password: see below", "the token follows:")
_POINTS_BELOW = lazy(r"(?<![a-z])(?:below|beneath|underneath|follows|(?:on )?the next line)[ \t.:)\]*_]{0,8}\r?\Z")
# the rest of a label's line that leaves the value to the lines below: a sign, a quote, nothing
_LABEL_LINE_END = lazy(r"[ \t\"'`*_)\]>]{0,8}[:?]?[ \t\"'`*_)\]>]{0,8}\r?")
# What the value between is named as, when not the credential: an id, a digest, a ciphertext, a
# public key ("fixed in commit X", "key id X", "token sha256: X", "secret: ENC[...]", "ssh-ed25519 X")
NEAR_STOP = lazy(r"(?<![a-z])(?:ids?|identifier|commit|sha[0-9]{0,3}|md5|hash(?:ed|es)?|digest|checksum|fingerprint"
                  r"|integrity|etag|nonce|txid|tx|rev|revision|build|version|uuid|guid|trace|request|req|object|names?"
                  r"|file|path|url|link|public|pub|salt|iv|encrypt[a-z]*|enc|cipher[a-z]*|sealed[a-z]*|signature|sig|hint|length"
                  r"|count|ref|arn|published|documented|sample|well-known|dummy|fake|cache|primary|foreign|partition|sort"
                  r"|idempotency|dedup|lookup|index|routing|ssh-[a-z0-9-]+|ecdsa-[a-z0-9-]+|vault|secure|kms|hmac-sha[0-9]+|sha-?[0-9]+"
                  r"|kty|e\.g|example|for instance|such as|like|data:[a-z-]{1,30}/[a-z0-9.+-]{1,40}"
                  # "example" in the languages of secret_words (a policy's sample is no password)
                  r"|ejemplo|p\.ej|exemplo|exemple|beispiel|z\.b|esempio|voorbeeld|bijvoorbeeld|przyk[łl]ad|örnek|ornek"
                  r"|ví dụ|vi du|contoh|misalnya|exempel|esimerkki|příklad|priklad|példa|exemplu|пример|例えば|例如|예시|예를)(?![a-z])"
                  # (a word naming a machine it runs on is no id: "the token for the build server X")
                  r"(?![- ](?:server|host|box|machine|agent|node|vm|runner|bot)s?(?![a-z]))")


# "like" and "such as" compare: "a password like 'hunter2' is weak" gives an example, as "for example"
# does, but "password like Xk9#mQ2vL8pR for staging" gives the value. They stop the value only in an
# example's sentence: a general label (an article, "any", a plural: "a password like", "passwords such
# as") or words that judge or rule on passwords ("weak", "avoid", "policy", "never use").
_LIKE = frozenset(("like", "such as"))
_EXAMPLE_REACH = 160
_EXAMPLE_LINE = lazy(r"(?<![\w])(?:an?|any|some|every|e\.g|eg|weak|strong|bad|good|poor|easy|easily|hard|guess\w*|common"
                     r"|obvious|simple|trivial|insecure|secure|polic(?:y|ies)|rules?|guidelines?|requirements?|avoid|never"
                     r"|don'?t|do not|choose|pick|should|example|instance|crack\w*|brute[ -]?forc\w*|dictionary"
                     r"|rejects?|accepts?|allows?|forbids?|blocks?|fields?|forms?|formats?|valid\w*)(?![\w])")
# a plural before "like" speaks of a kind ("values like X", "strings such as X")
_LABEL_PLURAL = lazy(r"[a-z]{2,}[^s\W]s[ \t]{1,4}\Z")


# A sentence that gives a sample value or rules on what one may be ("e.g. X is weak", "por ejemplo
# X", "z.B. X", "the policy rejects X", "never use X"): the value in it is a sample, no credential.
_EXAMPLE_SAYING = lazy(r"(?<![\w])(?:e\.g|eg|z\.b|p\.ej|i\.e|example|exemple|ejemplo|exemplo|beispiel|esempio|voorbeeld"
                       r"|bijvoorbeeld|przyk[łl]ad|örnek|příklad|пример|例えば|例如|예시|예를|for instance|such as|weak|strong"
                       r"|guess\w*|obvious|insecure|polic(?:y|ies)|rules?|requirements?|avoid|never|don'?t|do not|crack\w*"
                       r"|brute[ -]?forc\w*|dictionary|rejects?|forbids?|must|muss|debe|doit|deve|sample|dummy|fake|made[ -]up"
                       r"|format|pattern|regex|pick|choose|like)(?![\w])")


def gives_example(low: str) -> bool:
    """Does the sentence ``low`` (lowercased) give a password as an example or rule on passwords
    (:data:`_EXAMPLE_SAYING`)? A value in it is a sample, where no label names it."""
    return _EXAMPLE_SAYING.search(low) is not None


# an owner named after the label ("the key for the encrypted volume", "the password of an
# encrypted archive"): the word before "encrypted" makes it the owner's, not the value's
_OWNER_BEFORE = lazy(r"(?:for|of|on|to|unlocks?|opens?)[ \t]{1,4}(?:(?:the|my|our|this|that|an?|its|their)[ \t]{1,4})?\Z")


def near_stop(low: str, start: int, end: int) -> bool:
    """Does a word between ``start`` and ``end`` of ``low`` name the value after it an id, a digest,
    a ciphertext or an example (:data:`NEAR_STOP`)? "like" and "such as" do only in an example's
    sentence (see :data:`_EXAMPLE_LINE`); "encrypted" does not where it names the label's owner
    ("the key for the encrypted volume is X": the volume is encrypted, X opens it)."""
    for m in NEAR_STOP.finditer(low, start, end):
        if m.group().startswith("encrypt") and _OWNER_BEFORE.search(low, max(start, m.start() - 24), m.start()):
            continue
        if m.group() not in _LIKE:
            return True
        # (the sentence around it, within reach: a line of 80 KB made of labels is not read once per label)
        line_start = max(low.rfind("\n", max(0, m.start() - _EXAMPLE_REACH), m.start()) + 1, m.start() - _EXAMPLE_REACH)
        line_end = low.find("\n", m.end(), m.end() + _EXAMPLE_REACH)
        line = low[line_start:min(len(low), m.end() + _EXAMPLE_REACH) if line_end < 0 else line_end]
        if _EXAMPLE_LINE.search(line) or _LABEL_PLURAL.search(low, max(line_start, m.start() - 16), m.start()):
            return True
    return False


# a flow mapping's or an object literal's first member (`{api_key: X}`), not a template's `{password}`
_FLOW_MEMBER = lazy(r"[\"']?[ \t]{0,2}:[ \t]{1,4}[^\s{}]")
_SIGIL_LITERAL = lazy(r"[ \t]{0,4}=(?![=~>])[ \t]{0,8}[\"']")
# an aside that says the value is public or a sample, or names it an id or a digest
# a shell's command that gives a variable its value with no sign (fish's `set -gx NAME X`, csh's `setenv NAME X`)
_SET_VARIABLE = lazy(r"(?:(?<![\w-])set[ \t]{1,4}(?:-[a-zA-Z]{1,4}[ \t]{1,4}){1,3}|(?<![\w-])setenv[ \t]{1,4})\Z")
_ASIDE_STOP = lazy(r"(?<![a-z])(?:public|published|pub|example|e\.g|sample|placeholder|dummy|fake|ids?|identifier|hash|digest"
                   r"|fingerprint|checksum|uuid)(?![a-z])")
_ASIDE = lazy(r"[ \t]{1,4}\([^()\n]{1,60}\)(?=[ \t]{0,4}:)")
_TUPLE_OPEN = lazy(r"[{(][ \t]{0,1}:?\Z")
_COMMA_LITERAL = lazy(r"[ \t]{0,2},[ \t]{0,8}(?:<<)?[\"']")
NAME_EQUALS = lazy(r"[A-Za-z_][\w.-]{0,40}=(?!=)")


def _near(text: str, low: str, at: int, cls: str, kw_start: int | None = None) -> Span | None:
    """A value made to be hard to guess near its label (``at``: the label's end), with nothing
    between them that names it an id, a digest or a ciphertext (:data:`NEAR_STOP`): on the label's
    line within :data:`_NEAR_REACH` after it; on the lines below a label line that ends in ``:`` or
    ``?`` (a code block under "the admin key:", a chat's reply to "can you send the api token?");
    or right before the label (``X (that's the api secret)``, ``X is the api token``)."""
    end = text.find("\n", at, at + _NEAR_REACH + 1000)  # (a value starts within reach; it may run on)
    line_end = len(text) if end < 0 and len(text) - at <= _NEAR_REACH + 1000 else end
    end = min(len(text), at + _NEAR_REACH + 1000) if end < 0 else end
    # (a random value holds a digit, a password a digit or a symbol: most labels have none near)
    near = _NEAR_SIGN.search(text, at, min(end, at + _NEAR_REACH + 40)) is not None
    # (the starts are found within reach only, each value then read to its end: a search for the
    # values themselves would scan the whole line for every label)
    if near and text[at:at + 1] in ("=", ":"):
        # right after the label's sign (`CARGO_REGISTRY_TOKENS=<token>@host`): the run after it
        m = _NEAR_RUN.match(text, at + 1, end)
        found = _near_value(text, m, cls) if m else None
        if found:
            return found
    for start in _NEAR_START.finditer(text, at, min(end, at + _NEAR_REACH + 8)) if near else ():
        if near_stop(low, at, start.start()) or low.find("public", at, start.start()) >= 0:
            return None  # (also inside a name: `EcdsaPublicKey`, `ASYMMETRIC_PUBLIC`)
        m = _NEAR_VALUE.match(text, start.start(), end)
        found = _near_value(text, m, cls) if m else None
        if found:
            return found
    if line_end > 0 and end == line_end and (text[at:line_end].rstrip(" \t\r")[-1:] in (":", "?")
                                             or (kw_start is not None and _LABEL_LINE_END.fullmatch(text, at, line_end))
                                             or _POINTS_BELOW.search(low, max(at, line_end - 40), line_end)):
        # the lines below (three at most, a fence or a speaker's name between) when the label
        # line ends in a sign or with the label (`expect "password:"`, "send me the admin pw"):
        # a random token, or after a password's word a value no word could be
        below_end = line_end
        for _ in range(3):
            nxt = text.find("\n", below_end + 1)
            below_end = len(text) if nxt < 0 else nxt
        below_end = min(below_end, line_end + 1 + 3 * _NEAR_REACH)
        for m in _NEAR_VALUE.finditer(text, line_end + 1, below_end):
            if near_stop(low, at, m.start()):
                return None
            found = _near_value(text, m, "password" if cls == "password" else "token")
            if found:
                return found
    if kw_start is not None and _DIGIT.search(text, max(0, kw_start - _BEFORE_REACH), kw_start):
        # before the label, on its line, ending within reach of it: a random token only (a value
        # before a word is as often an id the sentence goes on to describe: "3f9a... fixes the token")
        last = None
        for last in _TOKEN_END.finditer(text, max(0, kw_start - _BEFORE_REACH), kw_start):
            pass  # (the last token end before the label: the regex reads 48 characters, not the line)
        if last and _VALUE_THEN_LABEL.fullmatch(low, last.end(), kw_start):
            start = last.start()
            while start > 0 and start > last.start() - 1000 and text[start - 1] in _TOKEN_CHARS:
                start -= 1
            value = _NEAR_VALUE.match(text, start)
            if value and value.end() == last.end() and not _ID_LABEL_BEFORE.search(text, max(0, start - 32), start):
                return _near_value(text, value, "before")
    return None


# A value that warns it is not to be shared (a session cookie's own `_|WARNING:-DO-NOT-SHARE-THIS...|_`,
# a file's "DO NOT share"): the text names it a secret as a label would
_WARNING = lazy(r"(?<![a-z])(?:do[ _-]?not|don'?t|never)[ _-]{1,2}(?:share|commit|publish|post|paste|leak)(?![a-z])")
_WARNING_REACH = 240


def warned_values(text: str, low: str) -> Iterator[Span]:
    """A random value within reach after a warning not to share it (see :data:`_WARNING`)."""
    if "share" not in low and "commit" not in low and "publish" not in low and "post" not in low \
            and "paste" not in low and "leak" not in low:
        return
    done = 0
    for m in _WARNING.finditer(low):
        if m.start() < done:
            continue
        done = m.end() + _WARNING_REACH
        for run in _NEAR_VALUE.finditer(text, m.end(), min(len(text), done)):
            found = _near_value(text, run, "secret")
            if found:
                yield "secret marked not to share", found[1], found[2]
                break


_BEFORE_REACH = 48
_FILE_LINE_KEY = lazy(r"[A-Za-z][A-Za-z0-9_.-]{0,40}")  # a key alone at a line's start, as a credentials file writes it
# A value's own label right before it that names it an id (Twilio's "account SID AC...", "account
# id", "tenant ID:"): the label after it ("(the auth token is in the vault)") names something else
_ID_LABEL_BEFORE = lazy(r"(?<![A-Za-z0-9])(?i:sid|id|uuid|guid|identifier|account|acct|tenant|client[ _-]?id|app[ _-]?id"
                        r"|user[ _-]?id|project[ _-]?id)[ \t]{0,4}(?:[:=#][ \t]{0,4})?[\"'`]?\Z")
# What stands between a value and the label after it: a sign or "is"/"as"/"that's", then up to
# three words ("X (that's the api secret)", "X is the api token", "X = staging token"); not a
# clause ("X and the token exchange failed" says what else happened, not what X is)
_VALUE_THEN_LABEL = lazy(r"[\"'`)\]]?[ \t]{0,4}(?:[(=:-][ \t]{0,4}|[(,-]?[ \t]{0,4}(?:that'?s|this is|it'?s|is|was|as)[ \t]{1,4})"
                         r"(?:(?:the|my|our|a|an|your|new)[ \t]{1,4})?(?:[\w-]{1,20}[ \t]{1,4}){0,2}")
_NEAR_SIGN = lazy(r"[0-9!@#$%^&*+=~?]")
_DIGIT = lazy(r"[0-9]")
_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "+/_.~!@#$%^&*?=-")
# the last eight characters of a run of token characters (where a value before a label ends)
_TOKEN_END = lazy(r"[A-Za-z0-9+/_.~!@#$%^&*?=-]{8}(?![A-Za-z0-9+/_.~!@#$%^&*?=-])")


# An armour's first line (`-----BEGIN PGP MESSAGE-----`, `-----BEGIN CERTIFICATE-----`) and its
# last: the lines between are its payload, which the armour names
_ARMOUR_BEGIN = lazy(r"-{5} ?BEGIN (?P<label>[A-Z0-9 ]{1,40}?) ?-{5}")
_ARMOUR_REACH = 64 * 1024  # larger than any armoured block a note holds


def in_armour(text: str, at: int) -> bool:
    """Is ``at`` on a payload line of an armoured block (between its ``-----BEGIN X-----`` and
    ``-----END X-----`` lines)? The armour says what the payload is: a private key's armour is
    refused as a key block (:mod:`vault_mem.model.secrets`), and any other (a PGP *message*, which
    is ciphertext only its recipient's private key opens, a signature, a public key, a
    certificate) holds no secret, so a label near it (the message "encrypted to Mira's key") does
    not make its base64 one."""
    line = text.rfind("\n", 0, at) + 1
    if line == 0 or text[line:at].strip(" \t"):
        return False  # (a payload line is the run alone; most values sit in a line of text)
    begin = text.rfind("-----BEGIN", max(0, at - _ARMOUR_REACH), at)
    if begin < 0:
        return False
    m = _ARMOUR_BEGIN.match(text, begin)
    return m is not None and text.find("-----END", m.end(), at) < 0


def _near_value(text: str, m: re.Match[str], cls: str) -> Span | None:
    value = m.group().rstrip(".,;:!?*")
    if in_armour(text, m.start()):
        return None  # an armoured block's payload: judged by its armour (a PGP message is ciphertext)
    at_host = _TOKEN_AT_HOST.fullmatch(value)
    if at_host and random_token(at_host.group(1), min_len=20):
        # a token as the user of a host (`DENO_AUTH_TOKENS=<token>@esm.corp.dev`): the part before the `@`
        return "secret near its label", m.start(), m.start() + len(at_host.group(1))
    named = NAME_EQUALS.match(value)  # `AccountKey=X` within the reach: the value is X
    at_value = m.start() + (named.end() if named else 0)
    value = value[named.end():] if named else value
    if text[at_value + len(value):at_value + len(value) + 1] == "<":
        return None  # a template's literal part (`pypi-AgE<rest>`)
    if stored_not_secret(text[m.start():m.start() + 200].split(None, 1)[0].strip("\"'`")):
        return None  # a password's stored hash or a ciphertext (`SCRAM-SHA-256$4096:...` in a userlist)
    if text[at_value + len(value):at_value + len(value) + 1] == "(" and value.isalnum():
        return None  # a function's name, called: `urlBase64ToUint8Array(...)`, `decodeKey(...)`
    if _random_value(value, cls):
        return "secret near its label", at_value, at_value + len(value)
    return None


def _random_value(value: str, cls: str) -> bool:
    """Is ``value`` made to be hard to guess, so that no word or name could be it: a random token
    of letters and digits, random hex of a key's length, a high-entropy base64 run, or (after a
    password's word) a value of three character classes (secret_values.unguessable)? Ids and
    digests of known shapes, placeholders and references are not."""
    if value.isalpha() or len(value) < (8 if cls == "password" else 16):
        return False  # (the common case, words: a random token holds a digit; a password, a digit or a symbol)
    if len(value) < 20 and not (random_token(value, min_len=16) or (cls == "password" and password_shaped(value))):
        return False  # (before the slower tests of what it is not)
    if is_placeholder(value, quoted=True) or looks_fake(value) or public_by_design(value) or key_chord(value) \
            or value.startswith(("0x", "-", "$", "/", "sha", "SHA", "AAAA")) or _EMAIL_LIKE.search(value):
        return False
    first = SEP.split(value, 1)[0].lower()
    if first in NEAR_ID_PREFIXES or UUID.fullmatch(value) or _DIGEST_SHAPE.fullmatch(value):
        return False
    bech = _BECH32.fullmatch(value)
    if bech and not any(w in bech.group(1) for w in ("sec", "priv", "prv", "sk")):
        return False  # a bech32 address or public key (age1, npub1, bc1); its secret forms say so (nsec1)
    if _RANGE.search(value) or (len(value) >= 30 and len(set(value)) == len(value)):
        return False  # a regex's class (`A-Za-z0-9_`) or an alphabet (bech32's), in code or docs
    if "." in value and all(_name_part(p) for p in value.split(".")):
        return False  # a dotted name in code (`ed25519.Ed25519PrivateKey`, `win32api.RegEnumKey`)
    if random_token(value, min_len=16 if cls != "before" else 20):
        return True
    if cls != "before" and _GROUPED_KEY.fullmatch(value) and shannon_entropy(value.replace("-", "")) >= 3.5 \
            and 2 * sum(any(c.isdigit() for c in g) and any(c.isalpha() for c in g) for g in value.split("-")) >= value.count("-") + 1:
        return True  # a product or licence key in groups (five of five): letters and digits mixed through
    if cls == "before":
        return False  # (hex or lower case before a label: a commit id, a digest the line describes)
    if random_hex(value, min_len=32):
        return True
    if len(value) >= 20 and high_entropy(value) and not identifier_like(value) and not is_wordy(value) \
            and max(map(len, SEP.split(value))) >= 16:
        return True  # (a random run of 16 or more: `sk-ecdsa-sha2-nistp256` is a name made of short parts)
    return cls == "password" and password_shaped(value) and not _EXPRESSION.fullmatch(value)


def _name_part(part: str) -> bool:
    """Could ``part`` be one part of a dotted name in code: a word or identifier (``RegEnumKey``),
    one case with digits (``ed25519``, ``V2``), or short? A part of mixed case and digits that
    is no identifier (``AMar9GGD``) is a password's, whatever its length."""
    return (len(part) < 16 and (len(part) <= 4 or part.islower() or part.isupper() or part.isalpha() or spoken(part))) \
        or identifier_like(part)


_RANGE = lazy(r"A-Z|a-z|0-9")
_TOKEN_AT_HOST = lazy(r"([A-Za-z0-9_~-]{20,400})@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+(?::[0-9]{1,5})?")
_GROUPED_KEY = lazy(r"[A-Z0-9]{4,8}(?:-[A-Z0-9]{4,8}){3,7}")
# an expression in code (`total+n-1`, `MAX_LEN*2`): single-case names and small numbers joined by operators
_EXPRESSION = lazy(r"(?:[a-z_]{1,40}|[A-Z_]{1,40}|[0-9]{1,3})(?:[-+*/%^&|<>=!]{1,2}(?:[a-z_]{1,40}|[A-Z_]{1,40}|[0-9]{1,3}))+")
_BECH32 = lazy(r"([a-z]{1,15})1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{20,}")
_EMAIL_LIKE = lazy(r"[\w.+-]@[\w-]{1,63}\.[A-Za-z]{2,}")  # an e-mail address or user@host
#: the prefixes of public ids (an API's object ids, a request's) and of digests
NEAR_ID_PREFIXES = frozenset({"req", "request", "msg", "evt", "cus", "sub", "txn", "pi", "ch", "in", "id", "run", "job",
                               "file", "org", "user", "proj", "prj", "trace", "span", "sha1", "sha256", "sha512", "md5",
                               "h1", "git", "commit", "build", "img", "chatcmpl", "toolu", "call"})
#: hex of a git object's or a digest's length in upper case, a base58 address, a CID
_DIGEST_SHAPE = lazy(r"[0-9A-F]{40}|[0-9A-F]{64}|[13][1-9A-HJ-NP-Za-km-z]{25,34}|bc1[a-z0-9]{20,80}|Qm[1-9A-HJ-NP-Za-km-z]{44}"
                     r"|baf[a-z2-7]{50,}")


_ID_WORDS = frozenset({"id", "ids", "identifier", "name", "names", "arn", "uri", "url", "path", "accessor",
                       # what a tracker numbers ("the password reset ticket is OPS-4521")
                       "ticket", "issue", "case", "incident", "bug", "pr", "version", "release"})


# Words that tie a label to a value said about the secret itself: "the password *for* prod is X",
# "the root password *on* db1 is X", "the password *we* use is X", "the password *now* is X"
_LINKING = frozenset({
    "for", "of", "to", "on", "at", "in", "from", "with", "into", "onto", "under", "behind", "via", "per",
    "the", "a", "an", "this", "that", "these", "those", "my", "our", "your", "his", "her", "its", "their",
    "i", "we", "you", "he", "she", "they", "it", "me", "us", "them", "one", "which", "who", "whose",
    "now", "still", "currently", "today", "tonight", "again", "also", "here", "there", "then", "today's",
    "temporarily", "always", "usually", "probably", "actually", "really", "finally", "just", "only",
    "everywhere", "anywhere", "too", "as", "well", "both", "all", "same", "new", "old", "current", "default",
})
# Nouns that make a compound name a secret of its own: "the password reset *token* is X"
_SECRET_NOUNS = frozenset({"password", "passwd", "pw", "pwd", "pass", "passphrase", "secret", "token", "key",
                           "pin", "code", "credential", "credentials", "cookie", "otp", "seed", "phrase"})


# Nouns that make "<password> <noun>" a property or a tool of passwords, not the password: what
# "to" then reaches is that property's new value ("password hashing ... to argon2id", "password
# manager to Bitwarden", "password policy to 14 characters")
_PROPERTY_NOUNS = frozenset({"hashing", "hash", "hashes", "policy", "policies", "manager", "managers", "storage",
                             "algorithm", "scheme", "format", "length", "rules", "rotation", "requirements",
                             "complexity", "strength", "expiry", "expiration", "history", "field", "column",
                             "encoding", "encryption", "derivation", "kdf", "prompt", "validation", "validator"})


def _names_a_property(words: list[str], op: str) -> bool:
    """Is "<label> <words> is X" a property of the secret named in English, not the secret:
    "the password hashing scheme is Argon2id", "the password policy is Policy_v2", "password
    column type is Varchar255"? One to three lower-case English words right after the label, none
    of them a word that ties the value to the secret itself (a preposition, a determiner or a
    pronoun, an adverb of time: :data:`_LINKING`) nor a secret's own noun ("reset token"); only
    before "is"/"are"/"was" (a colon or another language's sign word keeps its reading)."""
    if op.strip().lower() not in ("is", "are", "was") or not 1 <= len(words) <= 3:
        return False
    return all(w.isascii() and w.isalpha() and w.islower() and w not in _LINKING and w not in _SECRET_NOUNS
               for w in words)


def _in_arn(text: str, at: int) -> bool:
    """Is the name at ``at`` a part of an ARN (``arn:aws:...:secret:...``)?"""
    word_start = max(text.rfind(c, max(0, at - 200), at) for c in " \t\n\"'=(") + 1
    return text.startswith("arn:", word_start)


def _directive(text: str, start: int, tail: re.Match[str]) -> bool:
    """Is this ``Name value`` a line of its own: the name first on its line, the value last? A
    directive is a word (``password``, ``requirepass``, ``LicenseKey``); ``pw X`` is a note's
    shorthand, where the value must be unguessable (:func:`judge`)."""
    if tail.start() - start < 6:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip(" \t"):
        return False
    end = text.find("\n", tail.end())
    return not text[tail.end():len(text) if end < 0 else end].strip()


def own_name(value: str, name: str) -> bool:
    """Is ``value`` a word of its own key's name (``POSTGRES_PASSWORD: postgres``)? Such a value is
    the default an image or a template ships with, like a password equal to its user."""
    return value.isalpha() and value.lower() in _NAME_WORDS.split(name.lower())


_DEFAULT_WORD = lazy(r"(?<![a-z])defaults?(?![a-z])")
_DEFAULT_REACH = 200
_REPLACED = lazy(r"(?<![a-z])(?:chang[a-z]*|new|replac[a-z]*|rotat[a-z]*|reset|instead|override[a-z]*|overrid[a-z]*)(?![a-z])")


def _stated_default(text: str, low: str, start: int, found: Span) -> bool:
    """Is the value a word (letters alone) that the text calls a default within reach before its
    label or on its line ("the image's default login", "MinIO's documented defaults:")? A vendor's
    default credential is in its documentation, the same for everyone; a chosen password has a
    digit or a symbol in it, or is not called a default."""
    value = text[found[1]:found[2]]
    if not value.isalpha():
        return False
    # (on its line within reach: an 80 KB line of labels is not read to its end once per label)
    end = text.find("\n", found[2], found[2] + _DEFAULT_REACH)
    said = _DEFAULT_WORD.search(low, max(0, start - _DEFAULT_REACH), min(len(text), found[2] + _DEFAULT_REACH) if end < 0 else end)
    # ("changed the default password: X", "instead of the default, X": X is the new one)
    return said is not None and _REPLACED.search(low, max(0, start - _DEFAULT_REACH), found[1]) is None


_NAME_WORDS = lazy(r"[^a-z0-9]+|(?<=[a-z])(?=password|passwd|pass|pwd|secret|token)")


# The value before its label: "use hunter2hunter2 as the password", "X as the new admin token".
_AS_BEFORE = lazy(r"(?<![^\s(])(?P<value>[^\s\"'`,;()]{4,200})[ \t]{1,4}as[ \t]{1,4}"
                        r"(?:(?:the|a|an|my|our|your|his|her|their|new)[ \t]{1,4}){0,2}(?:[\w-]{1,20}[ \t]{1,4})?\Z")


_ENCRYPTED_PARENTS = ("encrypteddata:", "encrypted_data:", "sops:")


def _under_encrypted(text: str, at: int) -> bool:
    """Is the YAML key at ``at`` a field of an ``encryptedData:`` mapping (found by indentation,
    within 64 lines above)?"""
    line_start = text.rfind("\n", 0, at) + 1
    indent = len(text[line_start:at]) - len(text[line_start:at].lstrip(" "))
    if indent == 0:
        return False
    end = line_start - 1
    for _ in range(64):
        if end <= 0:
            return False
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        stripped = line.lstrip(" ")
        if stripped.strip() and len(line) - len(stripped) < indent:
            return stripped.strip().lower().startswith(_ENCRYPTED_PARENTS)
        end = start - 1
    return False


# "X is the keystore password", "X <- ngrok authtoken": the value, then "is" and an article (or an
# arrow pointing at it), then at most two words before the label
_IS_BEFORE = lazy(r"(?<![^\s(:>])(?P<value>[^\s\"'`,;()]{6,200})[ \t]{1,4}(?:(?:is|was)[ \t]{1,4}(?:the|my|our|your|his|her|their)"
                  r"|<-{1,2}|←)[ \t]{1,4}(?:[\w-]{1,20}[ \t]{1,4}){0,2}\Z")
# what may follow a label named after its value: the sentence's end, or who or what it is for
# ("X is the keystore password for the release build"), not a noun it qualifies ("X is the
# password policy": the label is then "password policy", no credential's)
_LABEL_THEN = lazy(r"[ \t]*(?:\r?$|\Z|[.,;:!?)(\]]|(?:for|of|on|to|at|in|we|you|i|that|which|and|from|—|-)(?![\w]))",
                   re.IGNORECASE | re.MULTILINE)


def _value_before(text: str, start: int, cls: str, end: int | None = None) -> Span | None:
    """``X as the password``, ``X is the keystore password``, ``X <- api token``: the value named
    by a label that follows it (``start``/``end``: the label's)."""
    if text.find(" as ", max(0, start - 48), start) >= 0:  # (a plain search first: most labels have no "as" before them)
        m = _AS_BEFORE.search(text, max(0, start - 260), start)
        if m:
            kind = judge(cls, "is", m.group("value"), quoted=False, code=False, ends=True)
            if kind:
                return kind, m.start("value"), m.end("value")
    if end is None or not _LABEL_THEN.match(text, end):
        return None
    window = text[max(0, start - 48):start]
    if " is " not in window and " was " not in window and "<-" not in window and "←" not in window:
        return None
    m = _IS_BEFORE.search(text, max(0, start - 260), start)
    if not m:
        return None
    # (the value as "is" names it: words run together count only after "is", a value of one
    # word only when it looks made to be hard to guess)
    value = m.group("value").rstrip(".,;:!?")
    kind = judge(cls, "is", value, quoted=False, code=False, ends=False)
    return (kind, m.start("value"), m.start("value") + len(value)) if kind else None


def _op(tail: re.Match[str]) -> str:
    """The sign of an assignment's tail, stripped; every language's "is" reads as ``is``, a typed
    assignment (``: str =``) as ``=``, and a literal passed to a call (named for the credential,
    or a conversion around the literal) as ``(``."""
    op = tail.group("op").strip()
    if "wrap" in tail.re.groupindex and tail.group("wrap"):
        return "("
    if op.endswith("VALUE"):
        return "="  # COBOL: `PIC X(16) VALUE 'X'` gives the data item its value
    if op.startswith(",") and op.endswith(("is", "was")):
        return "is"  # ", which is X": the clause's "is" is the sign
    if op.startswith(","):
        return ","
    if op.endswith("=") and any(c.isalpha() for c in op):
        return "="
    op = op.split()[0] if " " in op else op  # "is still": the adverb says nothing of the value
    return "is" if _COPULA_WORD.fullmatch(op) else op


def _name_of(text: str, end: int) -> str:
    """The name that ends at ``end`` (a variable's, before its tail)."""
    start = end
    while start > 0 and end - start < 64 and _is_key_char(text[start - 1]):
        start -= 1
    return text[start:end]


def _judged(text: str, tail: re.Match[str], cls: str, *, flag: bool = False) -> Span | None:
    """The finding for a matched ``op value`` tail after a key of class ``cls``, if it is one."""
    op = _op(tail)
    if op[:1] == ":" and op.rstrip("-+")[-1:] in (">", "|"):
        op = "="  # `key: >-` then the value on the next line: a YAML literal
    raw = tail.group("value")
    quoted = raw[0] in "\"'`"
    if op == "(" and not _CALL_END.match(text, tail.end()):
        return None  # a literal among a call's arguments is judged by the call (call_credentials)
    value = raw[1:-1].strip().strip("\"'") if quoted else _value_end(raw)  # `"X"` in Markdown is X
    if not quoted and value.startswith("{") and "}" in raw:
        value = raw[1:raw.index("}")]  # ODBC quotes a value in braces: `Pwd={X};`
        if not credential_like(value) or _FSTRING_FIELD.fullmatch(value) or (identifier_like(value) and spoken(value)):
            return None  # `{password}`, `{db_pass}`, f"{password!r}": a template's field
    if not quoted and _CJK.search(value):
        value = _CJK.split(value, 1)[0]  # "パスワードはX123です": the sentence goes on after the value
        value = value.rstrip("([,") if value[-1:] in "([," else value  # "X（社外秘）": a note in brackets after it
    if not value:
        return None
    if cls == "password" and not quoted and op in (":", "is", "=", "->", "→", ""):
        # an app password as Google shows it: four groups of four random letters ("qwpz xkrt mvbn lsdf"),
        # after a sign or none (msmtprc's `password qwpz xkrt mvbn lsdf`)
        app = _APP_PASSWORD.match(text, tail.start("value"))
        if app and 3 * sum(c in "aeiouy" for c in app.group()) < 16 and len(set(app.group().replace(" ", ""))) >= 9:
            return "password assignment", app.start(), app.end()
    phrase_named = text[max(0, tail.start() - 6):tail.start()].lower() == "phrase"
    if cls == "password" and not quoted and op in (":", "is", "=", "->", "→", "-", "–", "—") and (tail.re is _ASSIGN_TAIL or phrase_named):
        # right after the label ("passphrase: amber crisp lotus violin"), not after prose
        # ("password manager: bitwarden vault entries" names a tool), except after a passphrase's
        # word, which names words ("the passphrase for ~/.ssh/id_work is salon shed dream 90")
        phrase = _WORD_RUN.match(text, tail.start("value"))
        said = phrase.group().split() if phrase else []
        if said and not _sentence(said):
            return "password assignment", phrase.start(), phrase.start() + len(phrase.group().rstrip(" \t."))
    if cls == "password" and not quoted and op in (":", "is", "=", "->", "→"):
        # a passphrase of number groups (diceware's rolls, "35152 16152 24464 15246", or a numeric
        # passphrase in fours) to the end of its line: four groups or more, no year or size among words
        groups = _DIGIT_GROUPS.match(text, tail.start("value"))
        if groups and _random_groups(groups.group().split()):
            return "password assignment", groups.start(), groups.start() + len(groups.group().rstrip(" \t."))
    if cls == "password" and not quoted and op == "" and tail.re is _ASSIGN_TAIL:
        # no sign, the words to the end of the line ("cms admin: bakery, pass next exotic embark digital"):
        # four or more, every one of them a generator's common word and no sentence
        phrase = _WORD_RUN.match(text, tail.start("value"))
        said = [w for w in phrase.group().split() if not w.isdigit()] if phrase else []
        if len(said) >= 4 and all(w in _COMMON_WORDS for w in said) and not _sentence(said):
            return "password assignment", phrase.start(), phrase.start() + len(phrase.group().rstrip(" \t."))
    if cls == "password" and quoted and op in (":", "is", "=", "->", "→") and _QUOTED_WORDS.fullmatch(value) \
            and not _sentence(value.split()):
        # a passphrase in quotes ("passphrase is \"tape shop little opera foam\""): words, but no sentence
        at = tail.start("value") + raw.index(value)
        return "password assignment", at, at + len(value)
    if cls == "password" and not quoted and op == "=" and "." in value and _FILE_LINE_KEY.fullmatch(text, text.rfind("\n", 0, tail.start()) + 1, tail.start()) \
            and text[tail.start():tail.start() + 1] == "=" and text[tail.start("value") + len(raw):][:1] in ("", "\n", "\r") \
            and word_and_number(value, joined=False) and not any(p.lower() in _CODE_PARTS for p in SEP.split(value)):
        # `password=walnut.Harbor99` as a line of a credentials file (Samba's `credentials=`, an .ini,
        # a .env): the key at the line's start, `=` with no space, the value to the line's end; code
        # writes `password = settings.pass12` spaced, indented or inside a call
        at = tail.start("value")
        return "password assignment", at, at + len(value)
    pair = _PAIR.match(text, tail.end()) if cls in ("secret", "login") and not quoted else None
    if not pair and cls == "login" and op in ("is", ":", "=") and not quoted:
        pair = _AND_PAIR.match(text, tail.end())  # "login is admin and X": the user, then the password
    if not pair and cls == "login" and op == "" and not quoted:
        pair = _PAIR_AFTER_WORD.match(text, tail.end())  # "login with alice@corp / X": a word, the user, the slash
    if pair:  # "creds: deploy / S3cr3t": the part after the user is the password
        value_start = pair.start("pw")
        pw = pair.group("pw").rstrip(".,;:!?)]}>")
        kind = judge("password", ":", pw, quoted=False, code=False, ends=True)
        return (kind, value_start, value_start + len(pw)) if kind else None
    if cls == "login":
        return None  # "login: admin" names a user; only "login: admin / S3cret" holds a password
    spaced = tail.group("op")[:1] in " \t" and tail.group("op")[-1:] in " \t"
    after = text[tail.end():tail.end() + 2]
    code = not quoted and value.isalpha() and value.islower() and (
        (spaced and op != "is") or after[:1] in (",", ")")
    )
    # the value ends its line or sentence: "my password: correcthorsebatterystaple."
    ends = len(raw) > len(value) or after[:1] in ("", "\n", "\r") or after in (". ", ".\n")
    # ("set SNYK_TOKEN to <uuid>": a variable named for a token set to a UUID, as `=` would)
    env_uuid = op == "to" and cls == "secret" and UUID.fullmatch(value) is not None \
        and ENV_NAME.fullmatch(_name_of(text, tail.start())) is not None
    if op == "to" and not env_uuid and (quoted or text[tail.start() - 4:tail.start()].lower() == "pass" or not credential_like(value)):
        return None  # "pass to fs.open" is the verb; "changed to 'X'" quotes a name, not a value
    if op == "to" and text[tail.start():tail.start("op")].split()[:1] and \
            text[tail.start():tail.start("op")].split()[0].lower() in _PROPERTY_NOUNS:
        return None  # "we moved password hashing from bcrypt to argon2id": the label names the hashing
    if op in ("-", "–", "—") and not (high_entropy(value) or (_DASHED_VALUE.fullmatch(value) and credential_like(value))):
        return None  # "Acme secret - X"; not arithmetic in code (`token - 1].content`)
    kind = judge(cls, "--" if flag and op == "" else op, value, quoted=quoted, code=code, ends=ends,
                  hint=quoted or raw[len(value):len(value) + 1] not in ("!", "?"))
    if not kind and cls == "password" and not quoted and raw[len(value):len(value) + 1] == "!" \
            and any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        # a `!` after letters and digits may be the value's last character, put there to meet a
        # policy ("login admin, password Marble8510!"); after a word it ends a sentence ("is wrong!")
        value += "!"
        kind = judge(cls, "--" if flag and op == "" else op, value, quoted=False, code=code, ends=ends, hint=False)
    if not kind:
        return None
    if tail.re is not _ASSIGN_TAIL and not quoted and not credential_like(value) and not _OWNER.match(text, tail.start()):
        # a word-and-number value after prose that makes the label a modifier ("the password
        # rotation runbook is Runbook-2291" names a runbook); "the password for the NAS is X" or
        # "the WLAN-Passwort im Büro lautet X" name whose password it is
        return None
    vstart = tail.start("value") + (raw.index(value) if quoted or raw.startswith("{") else 0)
    return kind, vstart, vstart + len(value)


_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
_LOGIN_NOUN = lazy(r"s?(?:[ \t]{1,4}(?:for|to|of|on|at)(?![a-z])|[ \t]{0,2}[:,(]|[ \t]*\Z)")
_SAID_LAST = lazy(r"[:=][ \t]{1,4}[`'\"]?([^\s`'\"]{8,200})[`'\"]?[.]?\Z")


def _value_end(raw: str) -> str:
    """An unquoted value without the punctuation that ends its sentence or closes what holds it;
    a closer whose opener is inside the value stays (`${DB_PASSWORD:X}` is a reference with a
    default, judged whole, not `${DB_PASSWORD:X`, a reference cut open)."""
    value = raw
    while value and value[-1] in ".,;:!?)]}>":
        opener = _CLOSERS.get(value[-1])
        if opener and value.count(opener) >= value.count(value[-1]):
            break
        value = value[:-1]
    return value


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
    first = value.strip().split("\n\n", 1)[0].strip()
    rows = first.split("\n")
    if 2 <= len(rows) <= 20 and all(_NAMED_ROW.fullmatch(r.strip()) for r in rows):
        # one value to a named row ("sonarr: X" / "radarr: Y") under a label naming them in the
        # plural ("API keys for the dashboard"): each row is judged as the body alone, under the
        # label made singular; every row must hold one
        one = _PLURAL_LABEL.sub(lambda m: m.group(1), label)
        kinds = [labelled_value(one, _NAMED_ROW.fullmatch(r.strip()).group(1)) for r in rows]
        return kinds[0] if all(kinds) else None
    parts = first.split()
    said = _SAID_LAST.search(first) if len(parts) > 1 and "\n" not in first and len(first) <= 200 else None
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
        for kw in _keywords(low):
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
        for kw in _keywords(low):
            cls = key_class(kw.group())
            # ("login for the panel", "login:" name a login; "login page bug" a page)
            if cls in ("password", "secret") or (cls == "login" and _LOGIN_NOUN.match(low, kw.end())):
                return "credential named by the memory's description"
        return None
    elif not first or len(parts) != 1 or len(first) > 200:
        return None
    low = label.lower()
    if _account_password(low, first):
        return "password of the login the description names"
    if CODES_LABEL.search(low):
        low += " password"  # a 2FA recovery or backup code is a password by another name
    classes = []
    for kw in _keywords(low):
        start = _name_before(low, kw.start())
        name = low[kw.start() if start is None else start:kw.end()]
        cls = key_class(name)
        # "Notes from the session", "Cache key for the build": in a description these are words,
        # so a bare key needs its qualifier ("API key") and sessions and cookies do not count
        if cls and not name.endswith("session") and (name != "key" or _prose_key(low, kw.start(), cls)):
            classes.append(cls)
        elif name == "key" and not _public_word_before(low, kw.start()):
            classes.append("bare key")  # "Stripe restricted key for reporting": only a random token counts
    named = NAME_EQUALS.match(first)
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
_GIVEN_USER = lazy(r"(?<![a-z])(?:user(?:name)?|login|as)[ \t]*[:=]?[ \t]+([a-z][\w.@\\-]{1,40})")
_ACCOUNT_NOUN = lazy(r"(?<![a-z])(?:log[ -]?in|sign[ -]?in|account)s?(?![a-z])")
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


# --- shared with the finders of places (secret_places) ---------------------------------------

#: the kinds of codes that are a password by another name (a 2FA recovery code under its label)
CODE_KINDS = ("recovery", "backup", "2fa", "mfa", "otp", "scratch", "emergency")
# (Google prints its list under "BACKUP VERIFICATION CODES")
CODES_LABEL = lazy(rf"(?:{'|'.join(CODE_KINDS)})[ _-]?(?:verification[ _-])?codes?(?![a-z])")


def strong_unlabelled(value: str) -> bool:
    """A value that needs no label to be a password (:func:`unguessable`), not a path, flag or
    placeholder."""
    value = value.rstrip(".,;:!?)")
    return (unguessable(value) and not value.startswith(("-", "/", ".", "~"))
            and "/" not in value and not is_placeholder(value, quoted=True))


def password_shaped(value: str) -> bool:
    """A value no word or name could be (:func:`strong_unlabelled`), or a person's password made
    of a word, a symbol and digits (``Quartz!2023map``): a symbol between letters and digits is
    no identifier's, path's or address's."""
    if strong_unlabelled(value):
        return True
    core = value.rstrip(".,;)")
    symbol = any(c in _PERSON_SYMBOLS for c in core[1:-1]) or _DOLLAR_DIGIT.search(core) is not None \
        or (core[-1:] in _LAST_SYMBOLS and _WORD_DIGITS.fullmatch(core[:-1]) is not None)
    return (len(core) >= 8 and symbol and any(c.isdigit() for c in core)
            and any(c.isalpha() for c in core) and not is_placeholder(core, quoted=True) and "/" not in core
            and "\\" not in core)


# a word and digits and then a symbol no sentence ends with (`Copper6285$`, `TULI7336mango^`): the
# symbol put last to meet a policy (`!` and `?` end sentences; `Gopher2024!` in prose is spoken of)
_LAST_SYMBOLS = "$^%*~#&"
_WORD_DIGITS = lazy(r"[A-Za-z]{3,}[0-9]{2,}[A-Za-z]*|[0-9]{2,}[A-Za-z]{3,}[0-9]*")
_PERSON_SYMBOLS = "!#%^&*~?"  # (not `@`, `$`, `=`, `+`: addresses, variables, settings, sums)
_DOLLAR_DIGIT = lazy(r"[A-Za-z]\$[0-9]")  # `Harbor$0407`: a `$` before a digit names no variable
