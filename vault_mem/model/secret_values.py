"""What a value looks like: placeholder, word, or something made to be hard to guess.

The secret rules (:mod:`vault_mem.model.secrets` and the finders of shapes, labels and places) find
a value by its place (after ``password=``, in a URL's password, in a ``.pgpass`` line) and then
judge it here by its shape: its length, its character classes and its entropy. The decisions
about what is *not* a secret (``changeme``, ``$VAR``, ``<your-token>``, paths, versions, UUIDs,
type names) are recorded in the docstring of :mod:`vault_mem.model.secrets`.
Values public by design (publishable and public keys, a web app's config, analytics cookies) are
:mod:`vault_mem.model.secret_public`.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import json
import math
import re
from collections import Counter
from urllib.parse import unquote

from vault_mem.model.lazy_patterns import lazy

__all__ = ["CONSONANT_RUN", "ENV_NAME", "NAMED", "PASSWORD_SYMBOLS", "UUID", "credential_like",
           "documented_example", "has_symbol", "high_entropy", "identifier_like", "in_crypt_hash",
           "is_placeholder", "is_wordy", "key_chord", "looks_fake", "push_address", "random_hex", "random_letters",
           "random_token", "record_id", "reference_token", "run_at_read", "sample_jwt", "sayable", "script_prose", "shannon_entropy",
           "spoken", "stored_not_secret", "type_name", "unguessable", "unguessable_unworded"]

def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (0 for an empty string)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


#: the symbols a password holds to be hard to guess (a ``-``, ``_`` or ``.`` joins words in names too)
PASSWORD_SYMBOLS = "!@#$%^&*+=~?"


def has_symbol(value: str) -> bool:
    """Does ``value`` hold one of :data:`PASSWORD_SYMBOLS`?"""
    return any(c in PASSWORD_SYMBOLS for c in value)


# --- what is not a secret ------------------------------------------------------------------

_NON_VALUE_WORDS = """
none null nil true false yes no undefined empty unset blank required optional hidden masked redacted
secret secrets password passwd pass pwd passphrase token key apikey api_key string str bytes int n/a na
tbd todo fixme default env changeme change_me changeit letmein test dummy
"""
_NON_VALUES = frozenset(_NON_VALUE_WORDS.split())
_PLACEHOLDER_WORDS = ("your", "placeholder", "example", "redacted", "changeme", "dummy", "replace_me",
                      "replace-me", "insert", "sample")
# words a test fixture's value says itself with (a passphrase of random words has none of them)
# (and "test": `test-password`, `test_secret`, a fixture's words, where a person's password of words would not say "test")
_DENIAL_WORDS = frozenset({"fake", "not", "dummy", "mock", "bogus", "fixture", "notreal", "invalid", "wrong", "test"})
# Pointers to where a secret lives are exactly what a memory should hold instead of the value.
_REFERENCE_WORDS = ("os.environ", "getenv", "process.env", "env(", "env[", "secrets.", "op://",
                    "1password", "keychain", "bitwarden", "lastpass", "keepass", "vault:", "ssm:",
                    "secretsmanager", "arn:aws")
_SAME_CHAR = lazy(r"(.)\1*", re.DOTALL)
#: a variable with a default (shell `${X:-d}`, Spring `${x:d}`); the default is judged as the value
_SHELL_DEFAULT = lazy(r"\$\{[A-Za-z_][\w.]{0,80}:[-=]?(?![?+])([^{}$\s]{1,200})\}")  # (not `:?error`, `:+alt`)
# (x's of one case: a mask is typed `xxx` or `XXX`; a random tail holds `xXx` by chance)
_MASK = lazy(r"\*{3,}|\.{3}|…|•{2,}")
#: x's stand for characters left out (`sk_live_xxxx`, `abcd-XXX-efgh`) at an edge of the value or
#: of one of its parts, or four and more in a row; three inside a random tail are chance
_X_RUN = lazy(r"x{3,}|X{3,}")
#: underscores and dashes stand for characters left out the same way (`sk_live_____`, `token: ---`);
#: three between letters or digits are chance in a base64url tail (about one 40-100-character token
#: in 1,300-3,500 holds such a run)
_LINE_RUN = lazy(r"_{3,}|-{3,}")
# (Ruby's and Elixir's names end in `!` or `?`: `System.fetch_env!("DB_PASSWORD")`, `ENV.fetch!(...)`)
_CALL = lazy(r"[A-Za-z_][!?]?\(")
# What stands before a call in a value that reads a secret at run time (`os.environ.get(`,
# `config["db"].get(`, `System.fetch_env!(`, `"Basic " + b64(`): names, dots, brackets, quotes,
# spaces and joins; a run of symbols no code holds there (`e^3&4q&eu)4c%s@i-...1i(h`, Django's
# generated key) is a random value with a bracket in it
_CALL_PREFIX = lazy(r"[!@=&*]?[\w.:>\[\]\"'$ +!?-]{0,200}")
#: a command run for its output in backticks (mutt's `` `pass show mail/corp` ``, like `$(...)`): a program
#: that hands out a secret, or a script named by its path, then its arguments
_COMMAND_OUTPUT = lazy(r"`[ \t]{0,4}(?:(?:pass|gopass|gpg2?|security|secret-tool|op|bw|rbw|lpass|keepassxc-cli|kpcli|vault"
                       r"|aws|gcloud|az|cat|head|sops|age|doppler|pass-cli|kwallet-query|systemd-creds|sudo|sh|bash)"
                       r"|(?:~|\.{1,2})?/[\w.@/-]{1,200})(?:[ \t]{1,4}[^`\n]{1,300})?`"
                       # (or a variable's value printed, psql's `\set pw `echo $APP_PW``: a reference as `$APP_PW` is)
                       r"|`[ \t]{0,4}(?:echo|printf)(?:[ \t]{1,4}-[a-z]{1,3})?[ \t]{1,4}[\"']?\$\{?[A-Za-z_]\w{0,80}\}?[\"']?[ \t]{0,4}`")
_DOTTED_REF = lazy(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\[.*)?")
#: an environment variable's name (`DB_PASSWORD`): a reference, not a value
ENV_NAME = lazy(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_IDENT_REF = lazy(r"_?[a-z]+(?:_[a-z]+)+|[a-z]+(?:[A-Z][a-z]+)+|[A-Za-z_]\w*\[.*")
_PATH = lazy(r"(?:~|\.{1,2})?/[\w.@-]+(?:/[\w.@-]*)*|[A-Za-z]:\\.*")
_URL = lazy(r"[a-z][a-z0-9+.-]*://", re.IGNORECASE)
UUID = lazy(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
# What names a record, not a secret, under a key's name (:func:`record_id`): a ULID
# (`idempotency_key: 01J8ZK4M...`, a time and randomness in Crockford's base32, an id as a UUID is)
# and a single-table design's composite key (DynamoDB's `SK: ORDER#2026-12-04#01HZX...`: an
# entity's name in capitals, `#`, its parts)
_ULID = lazy(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")
_COMPOSITE = lazy(r"[A-Z][A-Z0-9_]{1,30}#[^\s]{1,200}")
# CamelCase type names after a colon are type hints (`token: TokenOpt`, `password: SecretStr`).
# (bounded runs of capitals and digits: "HTTPClient", "TokenV2"; "EzaRH6KK7UGD" is random, not a name)
_TYPE_NAME = lazy(r"[A-Z0-9]{0,6}(?:[A-Z][a-z]{2,})+[A-Z0-9]{0,4}(?:\[.*)?")
# A word one could say: a vowel and no four consonants in a row ("Client", "password"; not "Hqs",
# "Jheidqwf", "Pmmfp")
_VOWEL = lazy(r"[aeiouy]")
CONSONANT_RUN = lazy(r"[b-df-hj-np-tv-xz]{4}")
# An identifier that names the thing (`"challengePassword"`, `mypassword`) is a name, not a value.
NAMED = lazy(r"[A-Za-z_]*(?i:pass(?:word|wd)|secret|token|auth)[A-Za-z_]*")
# (a directive is a letter after `%` that no lower-case letter follows: in `Amber%raven66` the `%r`
# begins a word, a person's symbol between two words of a password, not a format's `%r`)
_FORMAT = lazy(r"%[-+0 #]*\d*(?:[sdrfx](?![a-z])|\()|\{\d*\}|\{[A-Za-z_]\w*\}")
_VERSION = lazy(r"v?\d+(?:\.\d+)+(?:[-+.][0-9A-Za-z.-]+)?")
_SEGMENTS = lazy(r"[_.\-/: ]+")


# Keys their vendors print in their own documentation and tools, the same for everyone: Stripe's
# API reference test keys, and the Azurite (storage) and Cosmos DB emulators' well-known account
# keys. Public knowledge, like AWS's EXAMPLE keys. (Split so no scanner flags this file.)
_DOCUMENTED = frozenset({
    "sk_" + "test_4eC39HqLyjWDarjtT1zdp7dc",
    "sk_" + "test_BQokikJOvBiI2HlWgH4olfQ2",
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq" + "/K1SZFPTOtr/KBHBeksoGMGw==",
    "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw" + "/Jw==",
    "QWxhZGRpbjpvcGVuIHNlc2FtZQ==",  # RFC 7617's Basic example, "Aladdin:open sesame"
    "5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jv" + "hTVqvbTLvyTJ",  # the Bitcoin wiki's WIF example
    "KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJ" + "wYvP98617",  # and its compressed form
    "abcdef." + "0123456789abcdef",  # kubeadm's sample bootstrap token (`kubeadm join --token`)
    # one-time password seeds every TOTP tutorial and library README uses: Google Authenticator's
    # wiki sample ("Hello!" and 0xDEADBEEF) and RFC 6238's test seed ("12345678901234567890")
    "JBSWY3DP" + "EHPK3PXP",
    "GEZDGNBVGY3TQOJQ" + "GEZDGNBVGY3TQOJQ",
})


def documented_example(value: str) -> bool:
    """Is ``value`` a key its vendor documents for everyone (see :data:`_DOCUMENTED`)?"""
    return value in _DOCUMENTED


# The claims of the sample token on jwt.io and in countless tutorials (signed with the documented
# secret `your-256-bit-secret`): public knowledge, not a credential.
_SAMPLE_JWT_CLAIMS = ({"sub": "1234567890", "name": "John Doe", "iat": 1516239022},
                      {"sub": "1234567890", "name": "John Doe", "admin": True, "iat": 1516239022},
                      {"sub": "1234567890", "name": "John Doe", "admin": True})


#: the role claim of a JWT its vendor publishes to every browser: Supabase's and PostgREST's
#: anon key (their service_role key, which bypasses row policies, stays a credential)
_PUBLIC_JWT_ROLES = frozenset({"anon", "anonymous"})


def sample_jwt(value: str) -> bool:
    """Is ``value`` a JWT that is no secret: the documentation sample (its payload is jwt.io's
    well-known claims), or a token for an anonymous role (:data:`_PUBLIC_JWT_ROLES`)?"""
    parts = value.split(".")
    if len(parts) != 3 or not value.startswith("eyJ") or not parts[1].startswith("eyJ"):
        return False
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (binascii.Error, ValueError):
        return False
    return claims in _SAMPLE_JWT_CLAIMS or (isinstance(claims, dict) and claims.get("role") in _PUBLIC_JWT_ROLES)


def _jwt_header(value: str) -> bool:
    """Is ``value`` the base64url of a JSON object naming an algorithm or a type (a JWT's header)?"""
    try:
        header = json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except (binascii.Error, ValueError):
        return False
    return isinstance(header, dict) and ("alg" in header or "typ" in header)


def type_name(value: str) -> bool:
    """A CamelCase type name (``SecretStr``, ``HTTPClient``, ``TokenV2``, ``Optional[str]``): two
    capitals or more, a letter first, and words of three letters or more that one could say
    (a vowel, no four consonants in a row) make half of it at least.
    A random value of that pattern ("JRBRY6HqsP", "Jheidqwf0H") has short words, or words no
    one could say, between its capitals."""
    if not _TYPE_NAME.fullmatch(value) or sum(c.isupper() for c in value) < 2 or value[0].isdigit():
        return False  # (a name starts with a letter)
    return spoken(value.split("[", 1)[0])


def spoken(name: str) -> bool:
    """Do words of three letters or more that one could say (a vowel, no four consonants in a
    row) make half of ``name`` at least? Names are made of words (``dbPassword``, ``SecretStr``);
    a random value of letters and digits has short chunks or ones no one could say between its
    capitals and digits (``FllyrPmmfp072z``)."""
    words = [c for c in _CHUNK.findall(name)  # (a run of capitals is an acronym or chance, no word)
             if len(c) >= 3 and c[-1].islower() and sayable(c.lower())]
    return 2 * sum(map(len, words)) >= len(name)


def sayable(word: str) -> bool:
    """Could one say ``word`` (lower case): a vowel and no four consonants in a row (a syllable,
    not an abbreviation or a random run)?"""
    return _VOWEL.search(word) is not None and CONSONANT_RUN.search(word) is None


def is_placeholder(value: str, *, quoted: bool) -> bool:
    """True for values that stand for a secret without being one (see the module docstring)."""
    default = _SHELL_DEFAULT.fullmatch(value)
    if default:  # `${MAIL_PW:X}`, `${DB_PASSWORD:-X}`: a reference with a literal to fall back on
        return is_placeholder(default.group(1), quoted=quoted)
    low = value.lower()
    if not value or value[0] in "$<[{(" or low in _NON_VALUES or (value[0] == value[-1] == "%"):
        return True
    if value[0] == "*" and (value[-1] == "*" or value[1:2] in ("", "*", ".", "/", " ") or _MYSQL_HASH.fullmatch(value)):
        return True  # `*required*`, `**`, `*.corp.example`, `*/5`, MySQL's `*<hash>`; a password may start with a `*`
    if stored_not_secret(value):
        return True  # a password's stored hash or a ciphertext: what a server or a file keeps instead of it
    if value[0] == "!" and value[1:].replace("_", "").isalpha():
        return True  # a YAML tag: `!vault |` (Ansible's ciphertext follows), `!secret db_pw`, `!env_var DB_PW`
    if "{{" in value or "${" in value or _SAME_CHAR.fullmatch(value) or _masked(value):
        return True
    if counted_hex(value) or MAC_ADDRESS.fullmatch(value):
        return True  # a test vector's counting bytes (`000102...0f`), a network card's address: no secret
    if _FORMAT.search(value) and not _random_rest(_FORMAT.sub("", value)):
        # a format string: '%s:%s', '{password}', 'pass_%d'; a password that holds `%d` by
        # chance ('r!%d7Gv3IWTx') keeps a random rest once its "directives" are gone
        return True
    if _placeholder_word(value, low) or any(w in low for w in _REFERENCE_WORDS):
        return True
    if is_wordy(value) and not _DENIAL_WORDS.isdisjoint(p for p in _SEGMENTS.split(low) if p):
        return True  # words that say the value is not real: `not-a-real-password`, `fake_secret`, `mock-token`
    if "%" in value and is_wordy(unquote(value)):
        return True  # words URL-encoded: `username%3Apassword` in a doc's example
    if value.startswith("eyJ") and "." not in value and _jwt_header(value):
        return True  # a JWT's header alone, as docs cut a token short: no token
    if _call(value) or run_at_read(value) or _URL.match(value) or sample_jwt(value) or documented_example(value):
        return True
    if _PATH.fullmatch(value) and (value[0] in "~.\\" or value.count("/") >= 2 or value[1:2] == ":"
                                   or (value[0] == "/" and value[1:].isalpha() and value[1:].islower())):
        return True  # a file path (`/home`); one leading slash alone could be the start of base64
    if _relative_path(value):
        return True
    # Unquoted identifiers in code are references: `password = settings.DB_PASSWORD`,
    # `connect(password=db_pass)`, `token: Optional[str]`.
    if ENV_NAME.fullmatch(value):
        return True  # the name of the variable that holds it, quoted or not
    if not quoted and _DOTTED_REF.fullmatch(value):
        # `settings.DB_PASSWORD`, `self.api_key2`: names; a part no name could be (`W9.oNx1yzd9Yds5elbK2`,
        # random letters and digits of both cases) makes it a value with a dot in it
        return not any(_random_part(p) for p in value.split("."))
    return not quoted and _IDENT_REF.fullmatch(value) is not None


# a network card's (or a Bluetooth device's) address: six bytes in hex, split by colons or dashes
MAC_ADDRESS = lazy(r"[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:\1[0-9A-Fa-f]{2}){4}")
_EVEN_HEX = lazy(r"(?:[0-9a-f]{2}){8,}|(?:[0-9A-F]{2}){8,}")


def counted_hex(value: str) -> bool:
    """Hex of 8 bytes or more that count up or down by one step (``000102030405060708090a0b0c0d0e0f``,
    ``00112233445566778899aabbccddeeff``, ``0f0e0d...``): the pattern standards' test vectors use for
    a key or a plaintext (FIPS-197, RFC 3610), chosen to be read, not to be secret."""
    if _EVEN_HEX.fullmatch(value) is None:
        return False
    b = bytes.fromhex(value)
    step = (b[1] - b[0]) % 256
    return step != 0 and all((b[i + 1] - b[i]) % 256 == step for i in range(len(b) - 1))


def run_at_read(value: str) -> bool:
    """Is ``value`` a command in backticks (:data:`_COMMAND_OUTPUT`), whose output is read when the
    program runs? The secret is in the store it reads, as behind `$(pass ...)` and `os.environ`."""
    return _COMMAND_OUTPUT.fullmatch(value.strip()) is not None


def _placeholder_word(value: str, low: str) -> bool:
    """Does ``value`` hold a placeholder's word (:data:`_PLACEHOLDER_WORDS`) as a person writes one,
    in one case or capitalised (``your-token``, ``YOUR_KEY``, ``InsertKeyHere``)? Drawn by chance
    inside a random token it comes in mixed case (``...2wyoUr48...``): four letters of a 62-letter
    alphabet fall into one case one time in eight."""
    for w in _PLACEHOLDER_WORDS:
        at = low.find(w)
        while at >= 0:
            written = value[at:at + len(w)]
            if written.islower() or written.isupper() or written.istitle():
                return True
            at = low.find(w, at + 1)
    return False


def _random_part(part: str) -> bool:
    """Is one part of a dotted value a random token of 12 characters or more, with digits in three
    places or more and no word of five letters? A name has a version or a size in one place
    (`getApiKeyV2Async`, `AwsS3Bucket`), or words between its numbers (`Ec2S3Route53Client`)."""
    return len(part) >= 12 and len(_DIGIT_RUN.findall(part)) >= 3 and random_token(part, min_len=12) \
        and not identifier_like(part) and max(map(len, _CHUNK.findall(part))) < 5


_DIGIT_RUN = lazy(r"[0-9]+")


def _call(value: str) -> bool:
    """Does ``value`` call something to get the secret (``config('API_KEY')``,
    ``os.environ.get("X")``, ``hashlib.sha256(x.encode()).hexdigest()``)? A call's name is a name
    (one case, or words: not ``AM9hFf7``) and it is a method's (after a ``.``) or what stands
    before it is code (:data:`_CALL_PREFIX`); a random value that holds a ``(`` after a letter
    (Django's generated keys) is a value."""
    for n, m in enumerate(_CALL.finditer(value)):
        if n == 8:
            break  # (the first calls say it: a value of calls is read no further)
        start = m.start()
        while start > 0 and m.start() - start < 80 and (value[start - 1].isalnum() or value[start - 1] == "_"):
            start -= 1
        if value[start].isdigit():
            continue  # no name starts with a digit: `0uk5u(` is a random run with a bracket after it
        word = value[start:m.start() + 1]
        if not (word.islower() or word.isupper() or identifier_like(word) or spoken(word) or len(word) <= 3):
            continue
        if value[start - 1:start] == "." or _CALL_PREFIX.fullmatch(value, 0, start) is not None:
            return True
    return False


def _masked(value: str) -> bool:
    """Does ``value`` hide characters behind a mask (``****``, ``…``, ``sk_live_xxxx``, ``_____``)?"""
    if _MASK.search(value):
        return True
    for m in itertools.chain(_X_RUN.finditer(value), _LINE_RUN.finditer(value)):
        before = value[m.start() - 1] if m.start() else ""
        after = value[m.end()] if m.end() < len(value) else ""
        if len(m.group()) >= 4 or not before.isalnum() or not after.isalnum():
            return True
    return False


def _random_rest(rest: str) -> bool:
    """Is what a value's format directives leave still made to be hard to guess?"""
    if len(rest) < 8 or " " in rest or not credential_like(rest):
        return False  # '%s:%s', 'pass_%d', 'Hello %s, welcome!'
    return has_symbol(rest.replace("%", "")) or not identifier_like(rest)  # (a `%` left is the format's)


def _relative_path(value: str) -> bool:
    """``uploads/2024/05/x.png``, ``secret/data/prod/db#password``: three parts or more split by
    ``/``, at least two of them words or numbers. (Base64 has slashes too, but its parts are
    random mixed case, and it has ``+`` and ``=``.)"""
    if value.count("/") < 2 or "+" in value or value.endswith("="):
        return False
    parts = [p for p in value.split("/") if p]
    # (a random part makes it a token with slashes: Asana's `2/<id>/<id>:<hex32>`)
    return (len(parts) >= 3 and sum(p.isdigit() or (p.isalpha() and p.islower()) for p in parts) >= 2
            and not any(high_entropy(p) for p in parts))


def is_wordy(value: str) -> bool:
    """Words and plain numbers joined by separators: ``expires-in-3-days``, ``X-Access-Token``."""
    parts = [p for p in _SEGMENTS.split(value) if p]
    return all(p.isdigit() or (p.isalpha() and (p.islower() or p.istitle())) for p in parts)


# Prose in a script written without spaces (Chinese, Japanese, Thai) is one "word" to a split on
# white space: a sentence's punctuation (、。，！？；：「」) or a run of four letters of such a
# script in it makes it text, not a value ("パスワードは12文字以上、..." states a policy), unless
# it holds a run of 8 Latin letters, digits or symbols: the value the sentence wraps
# ("DBのパスワードは「X」です", "APIキー：X（本番用）").
_SCRIPT_PROSE = lazy(r"[\u3001\u3002\u300c\u300d\u300e\u300f\uff01\uff0c\uff1a\uff1b\uff1f]"
                     r"|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u0e00-\u0e7f]{4}")
_LATIN_RUN = lazy(r"[!-~]{8}")


def script_prose(value: str) -> bool:
    """Is ``value`` text in a script written without spaces, not a value (see :data:`_SCRIPT_PROSE`)?"""
    return not value.isascii() and _SCRIPT_PROSE.search(value) is not None and _LATIN_RUN.search(value) is None


def credential_like(value: str) -> bool:
    """Does a free-text value look made to be hard to guess, rather than like a word?"""
    if len(value) < 6 or is_wordy(value) or UUID.fullmatch(value) or _VERSION.fullmatch(value) or script_prose(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    symbol = has_symbol(value)
    inner_caps = any(c.isupper() for c in value[1:]) and any(c.islower() for c in value)
    return (has_digit and has_alpha) or symbol or inner_caps


def unguessable(value: str) -> bool:
    """A value no word or name could be, so a password even with no sign or label before it
    (``pw X``, "log in with X"): 8 characters or more of three classes (upper case, lower case,
    digits, any other character), with a symbol (:data:`PASSWORD_SYMBOLS`) or 12 characters long,
    and not words run together."""
    classes = sum(map(any, ((c.isupper() for c in value), (c.islower() for c in value),
                            (c.isdigit() for c in value), (not c.isalnum() for c in value))))
    return (len(value) >= 8 and classes >= 3 and (len(value) >= 12 or has_symbol(value))
            and not identifier_like(value) and not script_prose(value))


def unguessable_unworded(value: str) -> bool:
    """A short value drawn at random (``z6fiOk*+qtZE2w``), not a name's or a note's words with a
    digit and a sign (``K8sSecretStore``, ``Node18+Yarn3``, ``done@15:30``, ``2FA+TOTP``): it is
    :func:`unguessable`, words one could say make less than half of it (:func:`spoken`), and no
    run of four letters or more in it is one."""
    return unguessable(value) and not spoken(value) and not any(
        len(c) >= 4 and c.isalpha() and sayable(c.lower()) for c in _CHUNK.findall(value))


#: the entropy bar of a random-looking string, per character: 3.5 bits for mixed alphabets;
#: hex has 16 symbols, and 1 random 32-character hex string in 5 scores under 3.5 (under 3.0:
#: 1 in 1,000 at 24 characters), so a hex key after its label passed by the luck of its draw
_ENTROPY_BAR, _HEX_ENTROPY_BAR = 3.5, 3.0


_PUSH_SHAPE = lazy(r"[0-9a-fA-F]{64}|Expo(?:nent)?PushToken\[[^\]\s]{1,200}\]")


def push_address(value: str) -> bool:
    """Has ``value`` a push address's shape: a platform's long token (FCM's ``<id>:APA91b...``,
    Huawei's, 60 characters or more), APNs' 64 hex, a UUID (OneSignal's subscription id) or Expo's
    ``ExponentPushToken[...]``? A short random token is none of them (a device's access token)."""
    return len(value) >= 60 or _PUSH_SHAPE.fullmatch(value) is not None or UUID.fullmatch(value) is not None


def record_id(value: str) -> bool:
    """A value that names a record, not a secret, under a key's name: a ULID, or a composite key
    (``ORDER#2026-12-04#<ULID>``) whose parts after the entity's name name things: no part is a
    random token or random hex (``ENC#<random hex>``, ``SK#<random token>`` are a secret behind a
    name; sec51 passed them)."""
    if _ULID.fullmatch(value):
        return True
    if not _COMPOSITE.fullmatch(value):
        return False
    return not any(random_token(part) or random_hex(part) for part in value.split("#")[1:])


def random_hex(value: str, *, min_len: int = 32) -> bool:
    """Random hex of ``min_len`` digits or more (either case): letters and digits both make up a
    fair share of it (4 of each at least) and it reaches hex's entropy bar. The one test of a hex
    key or URL part; a run of digits or a repeated letter is not one."""
    if len(value) < min_len or _HEX_RUN.fullmatch(value) is None:
        return False
    letters = sum(c.isalpha() for c in value)
    return 4 <= letters <= len(value) - 4 and shannon_entropy(value) >= _HEX_ENTROPY_BAR


_HEX_RUN = lazy(r"[0-9a-f]+|[0-9A-F]+")
_MYSQL_HASH = lazy(r"\*[0-9A-F]{40}")  # mysql_native_password's stored hash
# What a server or a repository keeps in place of a secret, named by its own prefix: a password's
# hash in the common formats (Django's `pbkdf2_sha256$`, `argon2$`, `bcrypt_sha256$`; Werkzeug's
# `pbkdf2:sha256:N$`, `scrypt:N:N:N$`; PostgreSQL's and pgbouncer's `SCRAM-SHA-256$` verifiers and
# `md5` + 32 hex; crypt's `$2b$`, `$argon2id$`, `$6$` start with `$`, a reference's sign, already),
# and a ciphertext named so (dotenvx's `encrypted:`, SOPS's `ENC[AES256_GCM,...]`, Vault
# Transit's `vault:v1:`). Whoever reads one still needs the password or the key.
_STORED = lazy(r"(?:pbkdf2_sha(?:1|256|512)|argon2|bcrypt(?:_sha256)?|scrypt|sha1|md5|unsalted_md5|crypt)\$[^\s]{8,}"
               r"|(?:pbkdf2:sha(?:1|256|512):[0-9]{1,8}|scrypt:[0-9]{1,8}:[0-9]{1,3}:[0-9]{1,3})\$[^\s]{8,}"
               r"|SCRAM-SHA-(?:1|256)\$[0-9]{1,8}:[^\s]{8,}|md5[0-9a-f]{32}"
               r"|encrypted:[^\s]{8,}|ENC\[[A-Za-z0-9_]{2,20},[^\s]{8,}|vault:v[0-9]{1,4}:[^\s]{8,}")


def stored_not_secret(value: str) -> bool:
    """Is ``value`` a password's stored hash or a ciphertext, named by its format's prefix
    (see :data:`_STORED`)? A hash or a ciphertext is written where the secret is not."""
    return _STORED.match(value) is not None


# A crypt(3)-format hash up to a point in it: `$2b$12$` (bcrypt), `$argon2id$v=19$m=65536,t=3,p=4$`,
# `$6$<salt>$`, `$y$j9T$<salt>$`: its algorithm's id between `$` signs, then its parameters and salt
_CRYPT_BEFORE = lazy(r"\$(?:2[abxy]?|1|5|6|7|y|gy|sha1|md5|argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha(?:1|256|512))?)\$"
                     r"[^\s$]{0,120}(?:\$[^\s$]{0,120}){0,4}\Z")


def in_crypt_hash(text: str, at: int) -> bool:
    """Does ``at`` fall in a crypt(3)-format password hash (``$2b$12$<53 characters>``, see
    :data:`_CRYPT_BEFORE`), whose salt and digest parts look random?

    Such a hash is not refused, as no stored hash is (:func:`stored_not_secret`): the gate refuses
    what opens something as written, and a bcrypt, argon2 or sha512-crypt hash opens nothing; to
    use it one must guess the password, at its cost factor per guess. The risk that remains (a
    weak password guessed offline from its hash) is the same for the Django, Werkzeug and SCRAM
    hashes this gate has always passed, and documentation shows these hashes often ("e.g.
    `$2b$12$...`"); refusing them would refuse every note about how passwords are stored."""
    return _CRYPT_BEFORE.search(text, max(0, at - 400), at) is not None


# A keyboard shortcut (`Cmd+Shift+H`, `Ctrl+Alt+Del`, `Alt+F4`): modifier keys then one key,
# joined by `+`; credential_like reads it as a symbol-holding value after a label ("the key
# binding for 'toggle secret values' is Cmd+Shift+H")
_KEY_CHORD = lazy(r"(?i:(?:cmd|command|ctrl|control|alt|option|opt|shift|meta|super|win|mod|hyper|fn|⌘|⌥|⇧|⌃)\+){1,4}"
                  r"(?i:[a-z0-9]|f[0-9]{1,2}|enter|return|tab|space|esc|escape|del|delete|backspace|home|end|up|down"
                  r"|left|right|pageup|pagedown|insert|ins|[`~,./;'\[\]\\=-])")


def key_chord(value: str) -> bool:
    """Is ``value`` a keyboard shortcut (see :data:`_KEY_CHORD`), not a password?"""
    return _KEY_CHORD.fullmatch(value.strip("\"'`.,;")) is not None


# A reference written with a symbol, not a password: a numbered thing (`Build#2041`, `Issue#4411`),
# a package at a major version as Homebrew and npm name them (`OpenSSL@3`, `Node@20`), a ticket's
# anchor (`JIRA-4411#comment-9912`), a class's method in Ruby's and Javadoc's notation with a
# number in the class's name (`Vector3#Normalize`, `Base64#encode64`). A person's `Tangerine#9258`
# or `Nimbus@4675` is none of these: its word numbers nothing and its digits are no major version.
_NUMBERED = frozenset((
    "build", "run", "job", "pr", "mr", "issue", "ticket", "bug", "task", "story", "case", "item", "step",
    "release", "version", "commit", "change", "changeset", "order", "invoice", "incident", "test", "rule",
    "page", "revision", "rev", "patch", "sprint", "milestone", "epic", "phase", "round", "iteration",
    "attempt", "batch", "pipeline", "workflow", "deploy", "deployment", "node", "worker", "shard",
    "replica", "pod", "room", "row", "line", "column", "slot", "port", "team", "group", "section",
    "chapter", "part", "episode", "lesson", "exercise", "problem", "question", "comment", "note", "thread",
    "post", "message", "reply", "request", "review", "check", "action", "discussion", "alert", "event",
    "frame", "track", "block", "cell", "record", "entry", "ref", "host", "server", "rack", "vm", "device",
))
_REFERENCE = lazy(r"(?P<noun>[A-Za-z]{2,12})#[0-9]{1,9}|[A-Za-z][A-Za-z0-9+-]{1,30}@[0-9]{1,2}"
                  r"|[A-Z][A-Z0-9]{1,9}-[0-9]{1,7}#[\w-]{1,40}|[A-Z][a-z]{1,15}[0-9]{1,3}#[a-z_]*[A-Za-z][a-z_]{5,30}[0-9]{0,3}")


def reference_token(value: str) -> bool:
    """Is ``value`` a reference written with a symbol (see :data:`_REFERENCE`), not a password?"""
    m = _REFERENCE.fullmatch(value)
    return m is not None and (m.group("noun") is None or m.group("noun").lower() in _NUMBERED)


def high_entropy(value: str) -> bool:
    """A random-looking string of at least 20 characters (keys, not names or digests in prose)."""
    bar = _HEX_ENTROPY_BAR if all(c in "0123456789abcdefABCDEF" for c in value) else _ENTROPY_BAR
    return (
        len(value) >= 20
        and shannon_entropy(value) >= bar
        and any(c.isdigit() for c in value)
        and any(c.isalpha() for c in value)
        and not is_wordy(value)
        and not UUID.fullmatch(value)
        and not script_prose(value)
    )


def looks_fake(token: str) -> bool:
    """Vendor-prefixed placeholders: AWS's ``...EXAMPLE``, ``XXXXX``, ``xoxb-your-token-here``."""
    low = token.lower()
    # (x's are judged as in is_placeholder's _masked: `sk_live_xxxx`, not `xXxXx` drawn by chance)
    if any(w in low for w in ("example", "placeholder", "redacted", "0000000000")) or _masked(token) or sample_jwt(token) \
            or documented_example(token):
        return True
    return is_wordy(token)


# The chunks an identifier is read in: words (`Token`, `refresh`, `HTTP`) and numbers. In a random
# base62 tail they average under 2 characters (3.1 at the 99.9th percentile for 40 characters);
# in CamelCase and snake_case names, over 3.2.
_CHUNK = lazy(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_SEPARATOR = lazy(r"[-_]")


_NAMELESS_SYMBOL = lazy(r"[A-Za-z][!%^*~][A-Za-z]")  # (not `&`: a query string joins names with it)
# a person's password: a capitalised word, a symbol, a word and digits (`Saffron#glade976?`, `Maple&stone42`);
# a name joins words with `#` or `&` (`String#format`, `a=1&b=2`), but not a capital's word to a word and a number
_PERSON_PASSWORD = lazy(r"[A-Z][a-z]{2,15}[#$&][A-Za-z]{2,15}[0-9]{2,6}[!?.#$%&*]?")


def identifier_like(value: str) -> bool:
    """Words run together (``TIFFClampDoubleToUInt32``, ``EVHTTP_CON_READ_ON_WRITE``) or a slug of
    words (``adjust-for-new-path-in-run``): a name, not a random token. A symbol no name holds
    (``!%^*~``) between letters makes it a password of syllables (``KelanDVPt*vypw``), not a name."""
    if _NAMELESS_SYMBOL.search(value) or _PERSON_PASSWORD.fullmatch(value):
        return False
    # (a number counts as two characters at most, as a size in a name does (`UInt32`): a long one
    # is an id, such as the one that starts a Notion token's random tail, and no word)
    chunks = [min(len(c), 2) if c.isdigit() else len(c) for c in _CHUNK.findall(value)]
    if chunks and sum(chunks) / len(chunks) >= 3.2:
        return True
    parts = [p for p in _SEPARATOR.split(value) if p]
    words = sum(p.isdigit() or (p.isalpha() and (p.islower() or p.isupper() or p.istitle())) for p in parts)
    return len(parts) >= 3 and 4 * words >= 3 * len(parts)  # three in four parts are words or numbers


def random_token(value: str, *, min_len: int = 20) -> bool:
    """A random-looking token of at least ``min_len`` characters: upper and lower case and digits,
    high entropy, and not CamelCase words, snake_case words, hex or a UUID (the tail of a
    ``prefix_`` token, a part of a bot token)."""
    if len(value) < min_len:
        return False
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    digits = sum(c.isdigit() for c in value)
    if upper < 2 or lower < 2 or digits < 1:
        return False
    if shannon_entropy(value) < _random_bar(len(value)) or identifier_like(value) or is_wordy(value):
        return False
    return not looks_fake(value)


def random_letters(value: str, *, min_len: int = 30) -> bool:
    """A random token of letters alone, both cases mixed through it (a Hugging Face token's tail,
    ``rLjaXDfrv...``: 34 letters, no digit by design), not words run together in CamelCase, whose
    chunks between capitals are words of a word's length."""
    if len(value) < min_len or not value.isascii() or not value.isalpha():
        return False
    upper = sum(c.isupper() for c in value)
    if 5 * upper < len(value) or 5 * (len(value) - upper) < len(value):
        return False
    # (words run together are both: chunks of a word's length, and words one could say; either
    # alone holds for one random run of 34 letters in 13, both for one in 80)
    return shannon_entropy(value) >= 4.0 and not (identifier_like(value) and spoken(value)) and not looks_fake(value)


def _random_bar(n: int) -> float:
    """The entropy a random token of ``n`` characters reaches: 3.7 bits, or one bit under the
    most ``n`` characters can hold (log2 n) when that is less. A fixed 3.7 missed 3 random
    20-character tails in 100 and 1 digit-rich 24-character tail in 30 (Fireworks' ``fw_``)."""
    return min(3.7, math.log2(max(n, 2)) - 1.0)
