"""Find credentials in text before they reach a memory file or a commit.

Why our own rules and not ``detect-secrets`` (1.5.0, the maintained library that fits best):
measured on the corpus in ``tests/test_policy.py`` it caught 57 of 77 positives (any kind counted)
and left 61 of 85 look-alikes clean when run the intended way (files on disk, default plugins and
filters). Its string API (``scan_line``) flags nearly every line of prose as a high-entropy string.
It took 270-400 ms on a 64 KB body (these rules: about 2 ms), it has no rules for Anthropic,
Hugging Face or Google keys, and it pulls in ``requests``. The rules below are specific (a vendor
prefix, or a keyword plus a literal) and reject look-alikes on purpose: placeholders, variable
references, commit hashes, UUIDs, digests, paths, versions, type hints and prose.

Decisions a reader may look for:

- ``changeme``, ``password``, ``secret`` and the like as *values* are placeholders. They are what
  templates and docs put where a value goes. A well-known default is public knowledge, and
  refusing it would only teach agents to dodge the gate. For the same reason a URL whose password
  equals its user (``guest:guest``) or is ``pass`` passes.
- Values containing ``EXAMPLE`` (AWS's documented sample keys), ``xxxxx`` or ``REDACTED``, or made
  of words only (``xoxb-your-token-here``) are placeholders too, and so are references to where a
  secret lives (``$VAR``, ``${{ secrets.X }}``, ``os.environ[...]``, ``op://...``, "1Password").
- Publishable keys (Stripe ``pk_``, Mapbox ``pk.``, PostHog ``phc_``), public keys and
  certificates are public by design and pass, and so does the jwt.io documentation JWT.
- A quoted value or ``=`` assigns a literal, so any non-placeholder counts (``PASSWORD=sunshine``),
  except a bare lowercase word in code position (``user, password = split``, ``f(password=pw)``).
  After a bare ``Key:`` (prose, YAML, type hints), ``is`` or a ``--flag``, the value must look like
  a credential by itself (letters and digits, a symbol, inner capitals), so ``Token: expires soon``
  and ``password: SecretStr`` pass.
- Bare ``*_key`` names (``signing_key``, ``ENCRYPTION_KEY``) count only with a high-entropy value,
  because most ``key:`` fields hold names, not secrets.
- Known misses, traded for fewer false alarms: a password given with no keyword and no use
  ("unlock code X"; "log in ... with X" and "use X to unlock" count when X has a symbol and
  three character classes), a plain dictionary word after ``password:`` in prose unless it ends
  the sentence and is not a state ("my password: correcthorsebatterystaple" counts), a numeric
  PIN without its label (``PIN``/``PUK``/passcode/door code and four digits count). A value
  whose label comes after it counts when the label follows a sign, an arrow or "is the"
  ("X (that's the api secret)", "X <- ngrok authtoken", "X is the keystore password for ...");
  not when the label goes on as a noun ("X is the password policy"). A UUID alone on a hook host (``webhook.site/<uuid>``) is a public test inbox.
- An armoured block is judged by its armour: a private or secret key's armour is refused whole;
  any other's payload (a PGP *message*, a signature, a public key, a certificate) passes, even
  under a label naming a key ("encrypted to Mira's key:"). A PGP message is ciphertext that only
  its recipient's private key (or, for ``gpg -c``, its passphrase) opens; the secret is that key
  or passphrase, not the message, and refusing ciphertext would only teach people to paste it
  elsewhere, as for SOPS and sealed secrets (``encryptedData``), which pass the same way.
- A value that is a word of its own key's name (``POSTGRES_PASSWORD: postgres``, ``ADMIN_PASSWORD=admin``)
  is the default an image or template ships with, like ``guest:guest``. A Firebase web config's
  ``apiKey`` and ``appId`` ship in every page, and so do ``client-`` keys (Statsig's); RFC 7617's
  ``Aladdin:open sesame`` is documented for everyone. They pass.
- A literal handed to a call is judged by its look alone (``getpass("Password: ")`` is a prompt):
  a conversion (``[]byte("X")``, ``SecretStr("X")``), a call named for the credential
  (``.bearer_auth("X")``), a name and its value side by side (``define('DB_PASSWORD', 'X')``,
  ``Cookie("JSESSIONID", "X")``), the literals after the first of a sign-in call
  (``NetworkCredential("svc", "X")``, ``auth=("admin", "X")``).
- A random-looking value near a credential word counts in any syntax or language (secret_labels'
  ``_near``), so a new tool's positional argument or a new language's word needs no row; what stops
  it is a word between naming the value an id, digest, ciphertext or example, or the value's own
  shape (UUID, ``0x`` hex, digest lengths, base58/bech32 addresses, dotted code names).
- ``user:password@host`` counts without a scheme too (``admin:X@10.0.0.5``), before an IP address
  or a dotted host name, so image references (``node:20-alpine@sha256:...``) pass.

The provider formats are one table, :data:`vault_mem.model.secret_rules.RULES`; the URL and PEM
rules below are code because they judge values; credentials known by shape (prefixed tokens,
key blocks that are not PEM, ``.pgpass``, seed phrases, webhook URLs, wallet keys) are
:mod:`vault_mem.model.secret_shapes`,
values named by a label (assignments, prose, split fields) :mod:`vault_mem.model.secret_labels`,
values named by their place (tables, sibling fields, calls, commands, cookie jars) :mod:`vault_mem.model.secret_places`,
and what a value looks like :mod:`vault_mem.model.secret_values`. Every text is also read in
its disguised forms (:mod:`vault_mem.model.secret_text`): normalised, re-joined, decoded.

Every pattern is linear-time. Matches start only at the start of a token (a look-behind), and each
repeat is a single character class, bounded where a later part could fail. So a megabyte of near
matches costs one pass, not a backtracking storm.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import itertools
import json
import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_labels import PUBLIC_KEY_NAMES, app_passwords, assignments, key_named_value, labelled_value, says_not_secret, warned_values
from vault_mem.model.secret_places import (
    call_credentials,
    command_credentials,
    credential_files,
    labelled_codes,
    credential_pairs,
    key_id_pairs,
    listed_parts,
    login_rows,
    two_line_logins,
    one_codes,
    new_values,
    csv_exports,
    flag_credentials,
    positional_passwords,
    grouped_values,
    sentence_passwords,
    header_lists,
    listed_codes,
    mail_pairs,
    named_values,
    pin_codes,
    protocol_logins,
    directive_logins,
    keyword_credentials,
    recovery_keys,
    split_parts,
    request_headers,
    table_cells,
    unlabelled_passwords,
    values_below,
    written_credentials,
    xml_elements,
)
from vault_mem.model.secret_rules import RULES, Rule
from vault_mem.model.secret_shapes import (
    byte_arrays,
    cipher_keys,
    der_private_keys,
    bearer_blobs,
    dotted_tokens,
    hex_prefixed_tokens,
    key_blocks,
    labelled_phrases,
    lower_prefixed_tokens,
    monero_seeds,
    driver_dsns,
    pgpass_lines,
    prefixed_tokens,
    scheme_urls,
    seed_phrases,
    named_bytes,
    seed_word,
    signed_urls,
    token_words,
    wallet_keys,
    webhook_urls,
)
from vault_mem.model.secret_text import (
    View,
    char_code_runs,
    composed_values,
    encoded_runs,
    join_wrapped,
    joined_lists,
    lines_holding,
    normalise,
    reversed_words,
    rot13,
    spelled_out,
    substituted,
)
from vault_mem.model.secret_values import (
    UUID,
    credential_like,
    high_entropy,
    identifier_like,
    in_crypt_hash,
    in_web_config,
    is_placeholder,
    looks_fake,
    public_by_design,
    random_hex,
    random_letters,
    random_token,
    shannon_entropy,
    unguessable,
)

__all__ = ["SecretFinding", "find_secrets", "key_named_value", "labelled_codes", "labelled_value", "says_not_secret", "scattered_phrase", "seam_secrets",
           "shannon_entropy", "slug_secrets"]


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """One suspected credential: what kind, and where (``text[start:end]``); never the value."""

    kind: str
    start: int
    end: int


# --- the rules -----------------------------------------------------------------------------
# The provider formats are data (vault_mem.model.secret_rules.RULES); here each row's ``check``
# name is given its meaning and its pattern is compiled once.

Check = Callable[[re.Match[str], str, int], bool]


def _value(m: re.Match[str], text: str, group: int = 0) -> str:
    """The original characters of a match group (rules that ran on lowercased text see these)."""
    return text[m.start(group):m.end(group)]


def _not_fake(m: re.Match[str], text: str, group: int) -> bool:
    return not looks_fake(_value(m, text, group))


def _has_digit(m: re.Match[str], text: str, group: int) -> bool:
    value = _value(m, text, group)
    return any(c.isdigit() for c in value) and not looks_fake(value)


def _digit_or_letters(m: re.Match[str], text: str, group: int) -> bool:
    """:func:`_has_digit`, or a tail of random letters of both cases after the prefix (a vendor
    whose tokens hold no digit: Hugging Face's ``hf_`` and 34 letters)."""
    value = _value(m, text, group)
    return _has_digit(m, text, group) or random_letters(value.split("_", 1)[-1])


# what a scheme named `<Word>Key`/`<Word>Token` may name that is no credential: a public or
# lookup key's kind, a page's or a sync's cursor
_NOT_AUTH_SCHEMES = PUBLIC_KEY_NAMES + ("page", "next", "continuation", "cursor", "resume", "sync", "change", "csrf")


def _scheme_token(m: re.Match[str], text: str, group: int) -> bool:
    """A token after a scheme named for a key or a token (``GenieKey <uuid>``): :func:`_token`,
    unless the scheme names a public or lookup key or a cursor (``PartitionKey``, ``NextToken``)."""
    scheme = m.group(1).lower()
    return not any(w in scheme for w in _NOT_AUTH_SCHEMES) and _token(m, text, group)


def _b64_text(part: str) -> str | None:
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return None


def _jwt_header(m: re.Match[str], text: str, group: int) -> bool:
    """A JWT's first part is base64url JSON naming its algorithm; other dotted triples are not."""
    header = _b64_text(m.group(0).split(".", 1)[0])
    try:
        parsed = json.loads(header) if header else None
    except ValueError:
        return False
    return isinstance(parsed, dict) and "alg" in parsed and not looks_fake(m.group(0))


def _numeric_id(m: re.Match[str], text: str, group: int) -> bool:
    """Discord: the first part of a bot token is the base64 of the bot's numeric id."""
    first = _b64_text(m.group(0).split(".", 1)[0])
    return bool(first) and first.isdigit() and not looks_fake(m.group(0))


def _is_value(m: re.Match[str], text: str, group: int) -> bool:
    value = _value(m, text, group).strip("\"'")
    return bool(value) and not is_placeholder(value, quoted=True) and not looks_fake(value)


def _password_value(m: re.Match[str], text: str, group: int) -> bool:
    """After an explicit ``password`` keyword any literal of 4 characters or more is one, words
    included (``.netrc``'s ``password marmalade-engine-river``)."""
    value = _value(m, text, group).strip("\"'")
    return len(value) >= 4 and not is_placeholder(value, quoted=True)


def _literal_credential(m: re.Match[str], text: str, group: int) -> bool:
    value = _value(m, text, group)
    # (a public key given by flag is no password: `minisign -Vm file -P <public key>`)
    return credential_like(value) and not is_placeholder(value, quoted=True) and not public_by_design(value)


def _token(m: re.Match[str], text: str, group: int) -> bool:
    """A token after its scheme: a literal credential, or a UUID (Splunk HEC, Postmark, Heroku
    tokens are UUIDs; after ``Authorization: <Scheme>`` a UUID is no object's id)."""
    if UUID.fullmatch(_value(m, text, group)):
        return not is_placeholder(_value(m, text, group), quoted=True)
    return _literal_credential(m, text, group)


def _entropy(m: re.Match[str], text: str, group: int) -> bool:
    """A random-looking literal (:func:`high_entropy`): for places a name could stand too."""
    value = _value(m, text, group)
    return high_entropy(value) and not is_placeholder(value, quoted=True) and not looks_fake(value)


def _random_name(m: re.Match[str], text: str, group: int) -> bool:
    """:func:`_entropy`, and not a name made of words and numbers (``data-platform-staging-eu1``,
    ``orders_service_v2``): where a resource's name stands as often as a key."""
    return _entropy(m, text, group) and not identifier_like(_value(m, text, group))


def _not_web_config(m: re.Match[str], text: str, group: int) -> bool:
    """A Google API key, unless it sits in a Firebase web or app config (:func:`in_web_config`)."""
    return _not_fake(m, text, group) and not in_web_config(text, m.start(), m.end())


def _basic_auth(m: re.Match[str], text: str, group: int) -> bool:
    """Docker's ``"auth"``: the base64 of ``user:password`` with a real password."""
    decoded = _b64_text(_value(m, text, group).replace("+", "-").replace("/", "_").rstrip("="))
    if not decoded or ":" not in decoded:
        return False
    user, _, pw = decoded.partition(":")
    return bool(pw) and pw != user and not is_placeholder(pw, quoted=True)


def _mixed(m: re.Match[str], text: str, group: int) -> bool:
    """Random-looking (:func:`random_token`), for prefixes short enough to occur by chance."""
    value = _value(m, text, group)
    return random_token(value.split(".", 1)[-1], min_len=0) and not looks_fake(value)


CHECKS: dict[str, Check] = {
    "not_fake": _not_fake, "has_digit": _has_digit, "digit_or_letters": _digit_or_letters, "jwt": _jwt_header, "numeric_id": _numeric_id,
    "value": _is_value, "password": _password_value, "scheme_token": _scheme_token, "literal": _literal_credential, "token": _token, "basic_auth": _basic_auth, "mixed": _mixed,
    "entropy": _entropy, "random_name": _random_name, "not_web_config": _not_web_config,
}


@dataclass(frozen=True)
class _Compiled:
    kind: str
    pattern: re.Pattern[str]
    check: Check
    group: int
    lower: bool
    markers: tuple[str, ...]


def _r(pattern: str) -> re.Pattern[str]:
    return lazy(pattern)


def _leading_literal(pattern: str) -> str:
    """The literal a pattern starts with, look-behinds skipped: ``g(?<![a-z]g)lpat-`` gives
    ``gl`` (the alternation stops it). A rule is skipped on a text without it."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith(("(?<!", "(?<="), i):
            in_class = False
            while i < len(pattern) and (in_class or pattern[i] != ")"):
                in_class = (pattern[i] == "[") or (in_class and pattern[i] != "]")
                i += 1
            i += 1
            continue
        ch, nxt = pattern[i], pattern[i + 1:i + 2]
        if ch == "\\" and nxt and not nxt.isalnum():
            ch, i = nxt, i + 1
        elif not (ch.isalnum() or ch in "_-:\"'= "):
            break
        if pattern[i + 1:i + 2] in ("*", "+", "?", "{"):
            break  # a repeated character is not a required literal
        out.append(ch)
        i += 1
    return "".join(out)


def _compile(rule: Rule) -> _Compiled:
    literal = _leading_literal(rule.pattern)
    markers = rule.markers or ((literal,) if len(literal) >= 2 else ())
    # compiled at its first use: most rules wait behind a marker a typical text does not hold
    return _Compiled(rule.name, lazy(rule.pattern), CHECKS[rule.check], rule.group, rule.lower, markers)


_RULES: tuple[_Compiled, ...] = tuple(_compile(rule) for rule in RULES)

_DB_SCHEMES = frozenset({"postgres", "postgresql", "mysql", "mariadb", "mongodb", "redis", "rediss",
                         "amqp", "amqps", "mssql", "sqlserver", "oracle", "cockroachdb", "clickhouse",
                         "couchdb", "neo4j", "cassandra", "memcached", "sqlalchemy", "db2"})
# (a user may hold an `@`: vSphere's and Windows' `administrator@vsphere.local`, an e-mail address)
_URL_CREDS = _r(r"://(?P<user>[^\s:/?#\"'<>`]{0,128}):(?P<pw>[^\s/@\"'<>`]{1,256})@(?=[A-Za-z0-9\[])")
_SCHEME = _r(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}\Z")

_PRIVATE_KEY = _r(r"-{4,5} ?BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}")  # PEM, PGP, SSH2 (4 dashes)
_KEY_BODY = _r(r"[A-Za-z0-9+/=]{20,}")
_KEY_END = _r(r"-{4,5} ?END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)? ?-{4,5}")
_MAX_KEY_CHARS = 64 * 1024  # larger than any armoured private key
# Any other armour that names a key (`-----BEGIN OpenVPN Static key V1-----`, a tool's `SECRET KEY`,
# `SYMMETRIC KEY`): a key that is not said to be public is a secret, whoever's format it is
# (certificates, signatures, messages and parameters name no key)
_ARMOURED_KEY = _r(r"-{5} ?BEGIN (?P<label>[A-Za-z0-9 -]{0,40}?(?i:key)(?![a-z])[A-Za-z0-9 -]{0,20}?) ?-{5}")

# `admin:<password>@10.0.0.5`: userinfo without a scheme, before an IP address or a dotted host name
# (`node:20-alpine@sha256:...` has no dot after its `@`; `git@github.com:org/repo` no colon before).
_BARE_USERINFO = _r(r"(?<![\w/:.@%+-])(?P<user>[A-Za-z0-9][\w.-]{0,63}):(?P<pw>[^\s:/@\"'<>`]{4,128})@"
                    r"(?=(?:[0-9]{1,3}\.){3}[0-9]{1,3}(?![0-9])|[A-Za-z0-9-]{1,63}\.[A-Za-z][A-Za-z0-9.-]{1,200}(?![\w.-]*:[0-9a-f]{32}))")


# Oracle's `user/password@//host:1521/service` (EZConnect) and `user/password@host:1521/SID`: the
# `@//` or the port before the service says it is a connect string, not a path with an `@` in it.
# (in a JDBC URL too: `jdbc:oracle:thin:user/password@//host:1521/service`)
_ORACLE_CONNECT = _r(r"(?:(?<=:thin:)|(?<=:oci:)|(?<=:oci8:)|(?<![\w/:.@%+-]))(?P<user>[A-Za-z][\w$#]{0,29})/(?P<pw>[^\s/@\"'<>`]{4,128})@"
                     r"(?://[A-Za-z0-9.-]{1,200}|[A-Za-z0-9.-]{1,200}:[0-9]{2,5}/)")


#: userinfo written without a scheme, the sign its line must hold beside the ``@``, and the kind
_SCHEMELESS = ((_BARE_USERINFO, ":", "URL with password"), (_ORACLE_CONNECT, "/", "database URL with password"))


def _schemeless_passwords(text: str) -> Iterator[SecretFinding]:
    """``user:password@host`` written without a scheme (a note of how to reach a box) and
    ``user/password@//host/service`` (an Oracle connect string): the password, unless it is the
    user's name again or a placeholder. Both patterns stay on one line and start with a
    look-behind, so only the lines holding an ``@`` and the sign are read."""
    for pattern, sign, kind in _SCHEMELESS:
        for start, end in lines_holding(text, ("@",), (sign,)):
            for m in pattern.finditer(text, start, end):
                pw = m.group("pw")
                if pw != m.group("user") and credential_like(pw) and not is_placeholder(pw, quoted=True):
                    yield SecretFinding(kind, m.start("pw"), m.end("pw"))


# a token as a URL's user, no password after it (`https://<token>@git.corp.example/team/app.git`)
_URL_TOKEN_USER = _r(r"://(?P<token>[A-Za-z0-9_~-]{20,400})@(?=[A-Za-z0-9\[])")
_DSN_PATH = _r(r"@[^\s/@\"'<>`]{1,253}/[0-9]{1,20}(?![^\s\"'<>`])")  # Sentry's `key@host/<project number>`


def _url_passwords(text: str) -> Iterator[SecretFinding]:
    """``scheme://user:password@host``; database schemes get their own kind. A random token as
    the user, with no password, is the credential itself (a forge's ``https://<token>@host``)."""
    if "@" in text:
        for m in _URL_TOKEN_USER.finditer(text):
            token = m.group("token")
            # (hex as the user is a Sentry DSN's public key, sent from every page: a DSN's path is its
            # project's number alone; before any other path, hex is a forge's or an API's token)
            hex_token = random_hex(token, min_len=32) and not _DSN_PATH.match(text, m.end("token"))
            if (random_token(token, min_len=20) or hex_token) and not is_placeholder(token, quoted=True):
                yield SecretFinding("URL with token", m.start("token"), m.end("token"))
    for m in _URL_CREDS.finditer(text):
        scheme = _SCHEME.search(text, max(0, m.start() - 31), m.start())
        pw = m.group("pw")
        if not scheme or pw == m.group("user") or pw.lower() in ("pass", "pwd", "pw"):
            continue  # user == password (guest:guest) is a published default, not a secret
        if is_placeholder(pw, quoted=True):
            continue
        db = scheme.group(0).lower().split("+")[0].removeprefix("jdbc:") in _DB_SCHEMES
        kind = "database URL with password" if db else "URL with password"
        yield SecretFinding(kind, m.start("pw"), m.end("pw"))


def _private_keys(text: str) -> Iterator[SecretFinding]:
    """Armoured private key blocks, from BEGIN to END (or to the end of the key material), and
    armour of any other name that says it holds a key and not a public one."""
    if "BEGIN" in text:
        for m in _ARMOURED_KEY.finditer(text):
            label = m.group("label").upper()
            if "PRIVATE KEY" in label or "PUBLIC" in label or "PUB " in label + " ":
                continue
            body = _KEY_BODY.search(text, m.end(), m.end() + 400)
            if body and shannon_entropy(body.group()) >= 3.0:
                yield SecretFinding("secret key block", m.start(), body.end())
    if "PRIVATE KEY" not in text:
        return
    ends = [m.end() for m in _KEY_END.finditer(text)]
    for m in _PRIVATE_KEY.finditer(text):
        body = _KEY_BODY.search(text, m.end(), m.end() + 400)
        if not body:
            continue  # a header named in prose leaks nothing
        i = bisect.bisect_left(ends, m.end())
        end = ends[i] if i < len(ends) and ends[i] - m.start() <= _MAX_KEY_CHARS else body.end()
        yield SecretFinding("private key block", m.start(), end)


def _ascii_lower(text: str) -> str:
    """Lowercase without changing length, so offsets found in it are offsets in ``text``."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


_MAX_DEPTH = 2  # base64 inside base64 inside the text; deeper nesting is not a way people write keys
_DECODE_BUDGET = 256 * 1024  # decoded characters scanned per call: bounds a text made of runs
_AFTER_RULES = len(_RULES) + 1


def _rule_findings(text: str, low: str) -> Iterator[tuple[int, SecretFinding]]:
    """(priority, finding) for the private-key blocks and every provider format in ``text``."""
    yield from ((0, f) for f in _private_keys(text))
    for prio, rule in enumerate(_RULES, start=1):
        subject = low if rule.lower else text
        if rule.markers:
            # a plain loop, not any(genexpr): this runs for every rule on every text read;
            # find_secrets over 3,000 memory files and their lines took 0.60 CPU-s with the
            # generators, 0.37 without (a first index reads every file through it)
            for mk in rule.markers:
                if mk in subject:
                    break
            else:
                continue
        for m in rule.pattern.finditer(subject):
            if rule.check(m, text, rule.group):
                yield prio, SecretFinding(rule.kind, m.start(rule.group), m.end(rule.group))


def _by_shape(text: str, low: str) -> Iterator[tuple[str, int, int]]:
    """Credentials known by shape and place, not by a vendor's prefix: key blocks that are not
    PEM, ``.pgpass`` lines, prefixed and three-part tokens, seed phrases, then labelled values
    (:mod:`vault_mem.model.secret_shapes`, :mod:`vault_mem.model.secret_labels`,
    :mod:`vault_mem.model.secret_places`)."""
    if len(text) >= 16:  # shorter than any key block, .pgpass line, token or phrase
        yield from key_blocks(text)
        yield from pgpass_lines(text)
        yield from driver_dsns(text)
        words = token_words(text)  # (the token finders read only these)
        yield from prefixed_tokens(text, words)
        yield from hex_prefixed_tokens(text, words)
        yield from lower_prefixed_tokens(text, words)
        yield from byte_arrays(text)
        yield from cipher_keys(text)
        yield from der_private_keys(text, words)
        yield from bearer_blobs(text, words)
        yield from dotted_tokens(text, words)
        yield from webhook_urls(text)
        yield from signed_urls(text)
        yield from scheme_urls(text)
        yield from wallet_keys(text)
        yield from seed_phrases(text)
        if ":" in text:
            yield from labelled_phrases(text)
        yield from monero_seeds(text)
        yield from listed_codes(text, low)
        yield from recovery_keys(text)
        yield from split_parts(text, low)
        yield from listed_parts(text, low)
        if "\n" in text:
            yield from login_rows(text)
            yield from two_line_logins(text)
        yield from credential_pairs(text)
        yield from one_codes(text)
        yield from app_passwords(text)
        yield from key_id_pairs(text)
        yield from new_values(text, low)
        yield from named_values(text, low)
        yield from table_cells(text, low)
        yield from csv_exports(text, low)
        yield from header_lists(text, low)
        yield from request_headers(text)
        yield from credential_files(text)
        yield from xml_elements(text)
        yield from unlabelled_passwords(text, low)
        yield from call_credentials(text, low)
        yield from command_credentials(text, low)
        yield from flag_credentials(text, low)
        yield from positional_passwords(text)
        yield from protocol_logins(text)
        yield from directive_logins(text)
        yield from keyword_credentials(text)
        yield from values_below(text, low)
        yield from grouped_values(text, low)
        yield from written_credentials(text, low)
        yield from mail_pairs(text)
        yield from warned_values(text, low)
    yield from pin_codes(text, low)
    yield from assignments(text, low)
    if len(text) >= 16:
        # (last: where a label names the value too, the label's finding names its kind)
        yield from sentence_passwords(text)


def _mapped(view: View, found: Iterator[tuple[int, SecretFinding]]) -> Iterator[tuple[int, SecretFinding]]:
    for prio, f in found:
        start, end = view.span(f.start, f.end)
        yield prio, SecretFinding(f.kind, start, end)


def _candidates(text: str, depth: int, budget: list[int]) -> list[tuple[int, SecretFinding]]:
    """Every (priority, finding) in ``text`` and in its normalised, joined and decoded forms,
    with spans in ``text``; overlaps are resolved by the caller."""
    view = normalise(text)
    norm = view.text
    low = _ascii_lower(norm)
    found = list(_rule_findings(norm, low))
    found.extend((_AFTER_RULES, f) for f in _url_passwords(norm))
    found.extend((_AFTER_RULES, f) for f in _schemeless_passwords(norm))
    # (a shape's span inside a crypt-format hash is the hash's salt or digest: secret_values.in_crypt_hash)
    found.extend((_AFTER_RULES + 1, SecretFinding(*span)) for span in _by_shape(norm, low) if not in_crypt_hash(norm, span[1]))
    out = list(_mapped(view, iter(found)))
    # A wrapped token is judged by the provider rules only: assignments and URLs are line-based,
    # and prose joined across lines would read as values.
    joined = join_wrapped(norm)
    if joined:
        joined.parent = view
        out.extend(_mapped(joined, _rule_findings(joined.text, _ascii_lower(joined.text))))
    if depth == 0:
        out.extend(_disguised(norm, view, budget))
    if depth < _MAX_DEPTH:
        source = joined or view
        for start, end, decoded, encoding in encoded_runs(source.text):
            if len(decoded) > budget[0]:
                break
            budget[0] -= len(decoded)
            inner = _resolve(_candidates(decoded, depth + 1, budget))
            if not inner and decoded[:1] == "{" and source.text[end:end + 1] != "." and source.text[start - 1:start] != ".":
                inner = _json_secrets(decoded)
            if not inner and ":" in decoded:
                inner = _user_pass(decoded, source.text, start, end)
            if inner:
                span = source.span(start, end)
                out.append((_AFTER_RULES + 2, SecretFinding(f"{encoding}-encoded {inner[0].kind}", *span)))
    return out


def _disguised(norm: str, view: View, budget: list[int]) -> Iterator[tuple[int, SecretFinding]]:
    """Findings in the text's disguises undone (:mod:`vault_mem.model.secret_text`), with spans
    in the root text: every rule reads a value spelled out, given as character codes, as bytes
    between dots under a key's name or built from literals defined around it; the provider formats
    read a list of strings joined and the long words reversed; the label rules read rot13."""
    if len(norm) < 16:
        return  # (shorter than any disguise: most keys, tags and field values stop here)
    edits = sorted(spelled_out(norm) + char_code_runs(norm) + named_bytes(norm) + composed_values(norm))
    if edits:
        sub, placed = substituted(norm, edits)
        sub.parent = view
        for prio, f in _candidates(sub.text, 1, budget):
            if any(f.start < end and f.end > start for start, end in placed):
                yield _AFTER_RULES + 2, SecretFinding(f.kind, *sub.span(f.start, f.end))
        for start, end, replacement in edits:
            word = replacement.strip('"')
            if replacement[:1] == '"' and norm[start:end].count(",") >= 7 and (random_token(word, min_len=12) or unguessable(word)):
                # (a random string written as character codes: nothing but hiding it makes anyone write one so)
                yield _AFTER_RULES + 2, SecretFinding("secret in character codes", *view.span(start, end))
    lists = joined_lists(norm)
    if lists:
        sub, placed = substituted(norm, lists)
        sub.parent = view
        for _, f in _rule_findings(sub.text, _ascii_lower(sub.text)):
            if any(f.start < end and f.end > start for start, end in placed):
                yield _AFTER_RULES + 2, SecretFinding(f"{f.kind} cut into a list", *sub.span(f.start, f.end))
    backwards = reversed_words(norm)
    if backwards:
        backwards.parent = view
        for _, f in _rule_findings(backwards.text, _ascii_lower(backwards.text)):
            yield _AFTER_RULES + 2, SecretFinding(f"{f.kind} written backwards", *backwards.span(f.start, f.end))
    rotated = rot13(norm)
    if rotated:
        rotated.parent = view
        for kind, start, end in assignments(rotated.text, _ascii_lower(rotated.text)):
            yield _AFTER_RULES + 2, SecretFinding(f"{kind} in rot13", *rotated.span(start, end))


# The members of a JSON object that name an id, a digest or a public part, not a secret
_JSON_PUBLIC_MEMBER = _r(r"(?i:(?:id|uuid|guid|hash|sha|md5|digest|etag|integrity|checksum|nonce|iv|salt|pub|public|sig"
                         r"|signature|thumbprint|fingerprint|kid|x5t)(?:[_-]?[a-z0-9]{0,12})?|n|e|x|y)")


# `user:password` in base64 (a Basic credential's value) where its line says it is decoded or used
# as one ("echo X | base64 -d  # creds", `atob("X")` for the login): the pair alone, no label in it
_USER_PASS = _r(r"[\w.@+-]{1,64}:(?P<pw>[^\s:]{6,200})")
_DECODE_CUE = _r(r"(?i:base64[ \t]{1,4}(?:-d|-D|--decode)|b64decode|atob|from_?base64|frombase64string|cred|auth|login|passw)")


def _user_pass(decoded: str, text: str, start: int, end: int) -> list[SecretFinding]:
    """``user:password`` decoded from a run whose line tells it is decoded or used as credentials,
    with a password no word or name could be (:func:`unguessable`)."""
    m = _USER_PASS.fullmatch(decoded)
    if m is None or not unguessable(m.group("pw")) or looks_fake(m.group("pw")):
        return []
    line = text[text.rfind("\n", 0, start) + 1:(text.find("\n", end) + 1 or len(text) + 1) - 1]
    return [SecretFinding("user and password", 0, len(decoded))] if _DECODE_CUE.search(line[:400]) else []


def _json_secrets(decoded: str) -> list[SecretFinding]:
    """A JSON object decoded from base64 whose member holds a random value of 32 characters or
    more (a tunnel's or a registry's token is the base64 of ``{"a": ..., "t": ..., "s": <secret>}``):
    the object is the token. Members named for an id, a digest or a public part pass; a JWT's
    parts (dotted) are not read here."""
    try:
        obj = json.loads(decoded)
    except ValueError:
        return []
    if not isinstance(obj, dict) or len(obj) > 16:
        return []
    for name, value in obj.items():
        if isinstance(value, str) and len(value) >= 32 and high_entropy(value) and not _JSON_PUBLIC_MEMBER.fullmatch(name) \
                and not UUID.fullmatch(value) and not is_placeholder(value, quoted=True) and not looks_fake(value):
            return [SecretFinding("token object", 0, len(decoded))]
    return []


def _resolve(candidates: list[tuple[int, SecretFinding]]) -> list[SecretFinding]:
    """The highest-priority finding wherever spans overlap, in order of position. ``taken`` stays
    sorted and disjoint, so checking the two neighbours is enough (no quadratic pass)."""
    taken: list[SecretFinding] = []
    starts: list[int] = []
    for _, f in sorted(candidates, key=lambda pf: (pf[0], pf[1].start)):
        i = bisect.bisect_right(starts, f.start)
        if (i and taken[i - 1].end > f.start) or (i < len(taken) and taken[i].start < f.end):
            continue
        taken.insert(i, f)
        starts.insert(i, f.start)
    return taken


def find_secrets(text: str) -> list[SecretFinding]:
    """Every suspected credential in ``text``, in order, without overlaps; spans are in ``text``.

    The text is read as written and in its disguised forms (:mod:`vault_mem.model.secret_text`):
    normalised (NFKC, zero-width characters dropped, homoglyphs folded), with wrapped tokens
    re-joined, and with base64 and URL-encoded runs decoded and read again. Where two findings
    overlap, the more specific names the kind (a GitHub token assigned to ``token=`` is a
    "GitHub token"; a direct match beats a decoded one).
    """
    if not text:
        return []
    return _resolve(_candidates(text, 0, [_DECODE_BUDGET]))


_SLUG_RUN = _r(r"(?<![A-Za-z0-9])[A-Za-z0-9]{32,200}(?![A-Za-z0-9])")
_SLUG_TOKEN = _r(r"[A-Za-z]{0,40}[0-9][A-Za-z0-9]{0,40}[A-Za-z]|[A-Za-z][0-9]")  # letters and digits side by side


def slug_secrets(key: str) -> list[SecretFinding]:
    """Provider tokens in a memory's key read as a slug: words joined by ``-``, ``_`` and ``/``,
    which a token's own look-behind takes for part of a longer name (``notes/gitlab-glpat-<token>``).
    Each part from a separator on is read by the provider formats (spans in ``key``)."""
    if not _SLUG_TOKEN.search(key):
        return []  # (a slug of words: every token holds a run of letters and digits mixed)
    cuts = [i + 1 for i, c in enumerate(key) if c in "-_/"][:64]
    if not cuts:
        return []
    pieces = [key[i:] for i in cuts]
    text = "\n".join(pieces)
    starts = list(itertools.accumulate([0] + [len(p) + 1 for p in pieces[:-1]]))
    out = []
    for _, f in _rule_findings(text, _ascii_lower(text)):
        i = bisect.bisect_right(starts, f.start) - 1
        out.append(SecretFinding(f.kind, cuts[i] + f.start - starts[i], cuts[i] + f.end - starts[i]))
    for m in _SLUG_RUN.finditer(key):
        # a random run of both cases and digits, 32 long or more: no name is written so (a hash is
        # hex of one case, an id a UUID); the credential itself, put in the key to pass the gate
        run = m.group()
        if random_token(run, min_len=32) and run != run.lower() and run != run.upper() and not looks_fake(run):
            out.append(SecretFinding("random token", m.start(), m.end()))
    return _resolve([(0, f) for f in out])


_SEAM = 240  # a credential split between two fields sits where they meet (half a 24-word phrase: ~100)


def seam_secrets(first: str, second: str) -> list[SecretFinding]:
    """Credentials that run from the end of ``first`` into the start of ``second`` (half a seed
    phrase in a memory's description, half in its body; a label in one and its value in the
    other): the seed-phrase and label detectors over the two joined, findings across the seam
    only. Each field alone is read by :func:`find_secrets`; tokens and key blocks are not read
    again, since one cut in two is two fields each judged whole."""
    head, tail = first[-_SEAM // 2:].split(), second[:_SEAM].split()
    if not head or not tail:
        return []
    view = normalise(f"{first[-_SEAM // 2:]}\n{second[:_SEAM]}")
    seam = len(first[-_SEAM // 2:])
    out = []
    text = view.text
    # a phrase across the seam has list words on both sides of it (most fields stop here)
    phrases = seed_phrases(text) if seed_word(head[-1]) and seed_word(tail[0]) else iter(())
    for kind, start, end in itertools.chain(phrases, assignments(text, _ascii_lower(text))):
        start, end = view.span(start, end)
        if start < seam < end:
            out.append(SecretFinding(kind, start, end))
    return out


def scattered_phrase(fields: list[str]) -> bool:
    """A seed phrase cut into fields of one memory (six words in the body, six in a frontmatter
    field): the fields made only of list words, three or more each, read together in order as
    :func:`seed_phrases` reads one text. A field that is anything else is not a piece."""
    # (a piece is 3 to 21 words of eight letters at most: a longer field is no piece, and is not split)
    # (a piece may follow its own label on its field's line: "words 1-6: <six words>", "rest: ...")
    fields = [f.split(":", 1)[1] if 0 < f.find(":") <= 40 and "\n" not in f[:f.find(":")] else f for f in fields]
    pieces = [f.strip() for f in fields if len(f) <= 220 and 3 <= len(f.split()) and all(seed_word(w) for w in f.split())]
    if len(pieces) < 2:
        return False
    return any(True for _ in seed_phrases(" ".join(pieces)))
