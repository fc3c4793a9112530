"""Tokens known by their shape, not a vendor's prefix: a prefix and a random tail, three parts.

The rule table (:mod:`vault_mem.model.secret_rules`) knows the formats of vendors it lists; a
token from one it does not list still has a shape:

- :func:`prefixed_tokens`: a short prefix and a long random tail (``dckr_pat_...``,
  ``figd_...``, ``ntn_...``, ``tskey-auth-...``, ``HRKU-...``): the tail must be random (upper
  and lower case and digits, high entropy, not CamelCase words), and prefixes of public object
  ids (``msg_``, ``toolu_``, ``call_``, ``cus_``, ``pi_``, ...) pass, because agents' notes are
  full of them. A tail of 20 to 29 characters (the length of public ids) counts after a prefix
  that says what it is, or with a credential word before it on its line ("Fireworks key: fw_...").
- :func:`lower_prefixed_tokens`: a prefix that says it is a key (``csk-``, ``napi_``) and a long
  tail of lower-case letters and digits mixed through it (base36), not hex and not a slug.
- :func:`hex_prefixed_tokens`: a short abbreviation and a hex tail (``pul-`` + 40 hex), which the
  case test above cannot judge; words (``linux-node-``, ``commit-``, ``sha256-``) are not prefixes.
- :func:`dotted_tokens`: three random base64url parts of a bot token's lengths (Discord's
  shape, whatever the first part decodes to), and ``id.secret`` pairs of token-like parts, one
  long and random (``pat<id>.<hex>``).
- :func:`byte_arrays`: a JSON array of 64 bytes, a keypair file pasted as numbers.
- :func:`cipher_keys` and :func:`named_bytes`: a key handed to a cipher, bytes named for a key.

:func:`token_words` lists a text's long words once, for the finders that take ``words``.
Each yields ``(kind, start, end)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_disguises import separated_bytes
from vault_mem.model.secret_text import long_words
from vault_mem.model.secret_names import public_name
from vault_mem.model.secret_public import public_by_design
from vault_mem.model.secret_values import (
    UUID, documented_example, looks_fake, random_hex, random_token, shannon_entropy,
)

__all__ = ["Span", "Words", "base36_tail", "byte_arrays", "cipher_keys", "dotted_tokens", "public_setting_value",
           "hex_prefixed_tokens", "lower_prefixed_tokens", "named_bytes", "prefixed_tokens", "token_words"]

Span = tuple[str, int, int]
Words = list[tuple[int, int]]

#: the shortest token the token finders below match (a two-letter prefix, a separator and a
#: 20-character tail); they read only the words of a text this long (:func:`token_words`)
_SHORTEST_TOKEN = 23


def token_words(text: str) -> Words:
    """The spans of the words of ``text`` long enough to hold a token: found once per text, then
    the only places :func:`prefixed_tokens`, :func:`lower_prefixed_tokens`,
    :func:`hex_prefixed_tokens` and :func:`dotted_tokens` read. Their patterns hold no white
    space and start with a look-behind, which gives the regex engine nothing to skip to, so a
    pass over a whole 80 KB memory costs 2-5 ms a pattern; most of a text is short words."""
    return long_words(text, _SHORTEST_TOKEN)


def _in_words(pattern: re.Pattern[str], text: str, words: Words) -> Iterator[re.Match[str]]:
    """The matches of a token ``pattern`` inside ``words`` (a look-behind still sees the white
    space before a word, and a look-ahead at a word's end sees none of it: both as over the text)."""
    for start, end in words:
        yield from pattern.finditer(text, start, end)

# --- prefix + random tail ------------------------------------------------------------------

# A token starts a word: one to three short lowercase segments, then the tail.
# (The look-ahead wants a capital in the tail, so a lowercase slug is dropped inside the engine.)
_PREFIXED = lazy(r"(?<![A-Za-z0-9_.+/-])[a-z][a-z0-9]{1,11}[_-](?=[a-z0-9_-]{0,250}[A-Z])"
                       r"[A-Za-z0-9_-]{20,250}(?![A-Za-z0-9_+/=-])")
_SECRET_WORD = lazy(r"pat|key|sk|tok|secret|pw|pass|api|auth|cred")
# A prefix before a standard-base64 tail (Svix's ``whsec_<base64>``: `+` and `/` in it, `=` padding):
# a path or a URL has words between its slashes, a key's base64 has random runs
_PREFIXED_BASE64 = lazy(r"(?<![A-Za-z0-9_.+/-])[a-z][a-z0-9]{1,11}_(?=[A-Za-z0-9]{0,250}[+/])"
                        r"[A-Za-z0-9+/]{24,250}={0,2}(?![A-Za-z0-9_+/=.-])")
_SEGMENT = lazy(r"[a-z][a-z0-9]{0,11}[_-]")
# Public identifiers that share the shape: agent and API object ids, digests, build names (in
# either case: ``SHA256-``, ``UUID_`` and ``msg_`` alike).
_ID_PREFIXES = frozenset(["msg", "toolu", "call", "chatcmpl", "cmpl", "run", "thread", "asst", "file", "org", "user", "batch", "req", "request", "resp", "evt", "cus", "pi", "ch", "prod", "price", "sub", "in", "txn", "acct", "seti", "pm", "src", "cs", "po", "py", "ii", "il", "job", "task", "id", "uid", "ref", "step", "vs", "ft", "ftjob", "modr", "img", "asset", "srv", "conv", "session", "sess", "proj", "prj", "project", "team", "dpl", "dep", "usr", "cust", "ord", "order", "inv", "invoice", "ws", "wrkspc", "msgbatch", "doc", "page", "node", "obj", "item", "ver", "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3", "crc32", "uuid", "guid", "ulid", "commit", "build", "release", "test", "tests", "pk", "sig", "trace", "span"])


# Upper-case prefixes (``HRKU-``, ``NRAK-``, ``CCIPAT_``): the tail must be long, since upper-case
# abbreviations before a dash start many ids (``JIRA-``, ``INC-``) and those tails are short.
_PREFIXED_UPPER = lazy(r"(?<![A-Za-z0-9_.+/-])[A-Z][A-Z0-9]{1,9}[_-][A-Za-z0-9_-]{30,250}(?![A-Za-z0-9_+/=-])")
# A UUID after an upper-case vendor prefix (``HRKU-<uuid>``, ``RGAPI-<uuid>``): the prefix says a
# vendor minted it as a key, since ids that carry a UUID are bare or lower-case (``pvc-<uuid>``,
# ``urn:uuid:``); unless the prefix names a kind of record (``INC-``, ``ORDER-``) or an id's label
# stands before it on its line ("request id REQX-<uuid>").
_RECORD_PREFIXES = frozenset(["inc", "case", "bug", "ticket", "tkt", "issue", "pvc", "pv", "vol", "vm", "pod", "dev",
                              "device", "host", "evt", "event", "log", "tx", "corr", "cid", "rid", "tid", "sid",
                              "urn", "tenant", "tnt", "acc", "account", "client", "app", "env", "ns", "pr", "mr",
                              "ws", "lic", "license", "sn", "serial", "ord", "po", "rma", "tr", "trc", "x"])
_ID_WORD_BEFORE = lazy(r"(?i:(?<![a-z])(?:ids?|identifier|uuid|guid|ticket|trace|request|correlation|reference|ref|order"
                       r"|serial|case|record|incident|number|no\.?)(?![a-z]))")
# A credential word before a token on its line: the place that makes a short tail a secret.
_CREDENTIAL_WORD = lazy(r"(?i:(?<![a-z])(?:api|keys?|tokens?|secrets?|pat|passwords?|passwd|pw|auth|creds?"
                              r"|credentials?|apikey|access)(?![a-z]))")
_CONTEXT = 48  # characters before the token, on its line, where that word may stand


def _named_before(text: str, start: int) -> bool:
    """Does a credential word stand before ``start`` on its line (within :data:`_CONTEXT`)?"""
    line_start = text.rfind("\n", max(0, start - _CONTEXT), start) + 1
    return _CREDENTIAL_WORD.search(text, max(line_start, start - _CONTEXT), start) is not None


# A dotted prefix (``sl.``, ``relay.v2.``): a tail of 40 or more random characters after one or
# two short dotted parts; file names (``main.<hex>.js``) and host names have no such tail.
_PREFIXED_DOTTED = lazy(r"(?<![A-Za-z0-9_.+/-])[a-z][a-z0-9]{1,9}(?:\.[a-z0-9]{1,4})?\.(?=[a-z0-9_-]{0,1000}[A-Z])"
                        r"[A-Za-z0-9_-]{40,1000}(?:\.[A-Za-z0-9_-]{8,1000})?(?![A-Za-z0-9_+/=.-])")


# `name=` or `name: ` right before a value, on its line (a query's parameter, a setting)
_SETTING_BEFORE = lazy(r"(?P<name>[A-Za-z][A-Za-z0-9_.-]{0,40})[ \t]{0,2}[=:][ \t]{0,2}[\"']?\Z")


def public_setting_value(text: str, start: int) -> bool:
    """Is the value at ``start`` given to a name that says it is public, an id or a digest
    (:func:`~vault_mem.model.secret_names.public_name`: OAuth's ``code_challenge=``, ``nonce=``,
    ``integrity:``)? Such a value's shape says nothing: a PKCE challenge is a SHA-256 in base64url,
    sent in the clear by design."""
    m = _SETTING_BEFORE.search(text, max(0, start - 48), start)
    return m is not None and public_name(m.group("name"))


def prefixed_tokens(text: str, words: Words) -> Iterator[Span]:
    """``prefix_`` + a long random tail: an API token of a vendor the rule table does not list;
    not a value a public name is given (:func:`public_setting_value`)."""
    return ((kind, start, end) for kind, start, end in _prefixed_tokens(text, words) if not public_setting_value(text, start))


def _prefixed_tokens(text: str, words: Words) -> Iterator[Span]:
    dotted = [(start, end) for start, end in words if text.find(".", start, end) > 0]
    for m in _in_words(_PREFIXED_DOTTED, text, dotted):
        token = m.group()
        first, tail = token.split(".", 1)[0], max(token.split(".")[1:], key=len)
        if first not in _ID_PREFIXES and random_token(tail, min_len=40) and not looks_fake(token):
            yield "API token", m.start(), m.end()
    for m in _in_words(_PREFIXED_UPPER, text, words):
        token = m.group()
        first = re.split(r"[_-]", token, maxsplit=1)[0]
        if UUID.fullmatch(token[len(first) + 1:]):
            line_start = text.rfind("\n", max(0, m.start() - _CONTEXT), m.start()) + 1
            if (first.isalpha() and first.lower() not in _ID_PREFIXES and first.lower() not in _RECORD_PREFIXES
                    and not looks_fake(token)
                    and _ID_WORD_BEFORE.search(text, max(line_start, m.start() - _CONTEXT), m.start()) is None):
                yield "API token", m.start(), m.end()
            continue
        if (first.lower() not in _ID_PREFIXES and random_token(token[len(first) + 1:], min_len=30) and not looks_fake(token)
                and not _public_jwk_member(text, m.start()) and not public_by_design(token)):
            yield "API token", m.start(), m.end()  # (a public key's base64url may hold a `_` or `-` early)
    for m in _in_words(_PREFIXED_BASE64, text, words):
        first, tail = m.group().split("_", 1)
        parts = tail.rstrip("=").replace("+", "/").split("/")
        if (first not in _ID_PREFIXES and random_token(tail.rstrip("="), min_len=24) and max(map(len, parts)) >= 8
                and not any(p.isalpha() and p.islower() and len(p) >= 3 for p in parts)
                and not public_by_design(m.group()) and not looks_fake(m.group())):
            yield "API token", m.start(), m.end()
    for m in _in_words(_PREFIXED, text, words):
        token = m.group()
        first = token[:_SEGMENT.match(token).end() - 1]
        if first in _ID_PREFIXES or public_by_design(token) or _public_jwk_member(text, m.start()):
            continue
        at = 0
        for _ in range(3):  # up to three lowercase segments are prefix: dckr_pat_, tskey-auth-
            seg = _SEGMENT.match(token, at)
            if not seg or not (seg.group()[:-1].isalpha() or at == 0) or len(token) - seg.end() < 20:
                break
            at = seg.end()
        tail = token[at:]
        # Public object ids (Stripe's, Clerk's, OpenAI's, Anthropic's) have tails of 14 to 29
        # characters; a shorter tail counts only after a prefix of two segments or one that says
        # what it is (dckr_pat_, pscale_pw_, ..._key_).
        if len(tail) < 30 and not (token.count("_", 0, at) + token.count("-", 0, at) >= 2 or _SECRET_WORD.search(token[:at])
                                   or _named_before(text, m.start())):
            continue
        if random_token(tail) and not looks_fake(token):
            yield "API token", m.start(), m.end()


# A lower-case tail of letters and digits (base36: ``csk-...``, ``napi_...``): random_token's case
# test cannot judge it, so the prefix must say it is a key (``sk``, ``api``, ``key``, ``tok``, ...)
# and the tail must be long, not hex, and letters and digits mixed through it.
# A prefix of three or four segments (OneSignal's `os_v2_app_` + 113 base32) says it is a vendor's
# format by its make alone, like the mixed-case prefixes of two segments: there the tail must be 48 long.
_PREFIXED_LOWER = lazy(r"(?<![A-Za-z0-9_.+/-])[a-z][a-z0-9]{1,11}(?:_[a-z0-9]{1,8}){0,3}[_-][a-z0-9]{32,250}(?![A-Za-z0-9_+/=-])")


def base36_tail(tail: str) -> bool:
    """Letters and digits mixed through the tail, as a random draw of base36 mixes them: a tenth
    of it at least is digits and a tenth letters, and they alternate often. (Random base36 has
    28% digits; the bounds of a fifth and the changes of a quarter of its length that stood here
    missed 1 random tail in 10 to 25, by the luck of the draw.)"""
    n = len(tail)
    letters = sum(c.isalpha() for c in tail)
    changes = sum(a.isdigit() != b.isdigit() for a, b in zip(tail, tail[1:]))
    return (n // 10 <= letters <= n - n // 10 and changes >= n // 6
            and not _HEX.fullmatch(tail) and shannon_entropy(tail) >= 3.8 and not looks_fake(tail))


def lower_prefixed_tokens(text: str, words: Words) -> Iterator[Span]:
    """``<abbrev with sk/api/key/tok>_`` + 32 or more random lower-case letters and digits, or a
    prefix of three segments or more + 48 of them."""
    for m in _in_words(_PREFIXED_LOWER, text, words):
        token = m.group()
        sep = max(token.rfind("_"), token.rfind("-"))
        prefix, tail = token[:sep], token[sep + 1:]
        first = prefix.split("_", 1)[0]
        if first not in _ID_PREFIXES and (_SECRET_WORD.search(prefix) or prefix.count("_") >= 2 and len(tail) >= 48) \
                and base36_tail(tail):
            yield "API token", m.start(), m.end()


# A vendor's short prefix and a hex tail (``pul-`` + 40 hex, ``lsv2_pt_`` + 32 hex + ``_`` + 10 hex):
# random, but hex, so random_token's case test cannot judge it. The first part must be a short
# abbreviation (not a word such as ``linux-node-`` or ``build-`` in a cache key or a digest's
# label), and the token must stand alone (not inside a path, URL or file name).
# (after a variable's `NAME=` the token starts its value: `SONAR_LOGIN=squ_<40 hex>` in a CI step)
_HEX_PREFIXED = lazy(r"(?:(?<=[A-Z0-9_]=)|(?<![A-Za-z0-9_.+/:@#=-]))[a-z][a-z0-9]{1,4}(?:_[a-z][a-z0-9]{0,3})?[_-]"
                           r"[0-9a-f]{32,64}(?:_[0-9a-f]{6,16})?(?![A-Za-z0-9_+/=.-])")
_CREDENTIAL_VARIABLE = lazy(r"(?<![A-Za-z0-9])[A-Z0-9_]{0,40}(?:LOGIN|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PAT|AUTH|CREDENTIALS?"
                            r"|API_?KEY|ACCESS_KEY|PRIVATE_KEY)=\Z")
_HEX_PREFIX_WORDS = frozenset(["hash", "git", "key", "tree", "blob", "node", "npm", "pip", "go", "deb", "rpm",
                               "apt", "cache", "hex", "digest", "etag", "nix", "pr", "mr", "rev", "tag", "tx", "txid",
                               "block", "addr", "uuid", "guid", "dev", "prod", "main", "data", "img", "app",
                               "web", "api", "repo", "pkg", "lib", "mod", "src", "dist", "bin", "tmp", "run"])


# A capital prefix glued to a long hex tail (Trello's `ATTA` + 64 hex + an 8-digit check in capitals):
# no separator, so the prefix is a vendor's mark, not a word; a digest's algorithm (`SHA256...`) is not
_CAPS_HEX = lazy(r"(?<![A-Za-z0-9_+/=.-])(?P<prefix>[A-Z]{3,6})(?P<tail>[0-9a-f]{56,128})[0-9A-F]{0,8}(?![A-Za-z0-9_+/=.-])")
_DIGEST_NAMES = ("SHA", "MD", "BLAKE", "HMAC", "CRC", "HEX", "KECCAK", "RIPEMD", "SUM", "XXH", "TIGER", "WHIRLPOOL")


def hex_prefixed_tokens(text: str, words: Words) -> Iterator[Span]:
    """``abbrev-`` or ``abbrev_kind_`` + 32 to 64 random hex digits: a vendor token with a hex
    tail; or a capital prefix glued to 56 hex digits or more (see :data:`_CAPS_HEX`)."""
    for m in _in_words(_CAPS_HEX, text, words):
        if not m.group("prefix").startswith(_DIGEST_NAMES) and random_hex(m.group("tail"), min_len=56):
            yield "API token", m.start(), m.end()
    for m in _in_words(_HEX_PREFIXED, text, words):
        if text[m.start() - 1:m.start()] == "=" and not _CREDENTIAL_VARIABLE.search(text, max(0, m.start() - 64), m.start()):
            continue  # `CACHE_KEY=linux-<hex>`: after `=` only a variable named for a credential gives a token
        token = m.group()
        first = re.split(r"[_-]", token, maxsplit=1)[0]
        tail = token[len(first) + 1:].rsplit("_", 1)[0] if token.count("_") > 1 else token[len(first) + 1:]
        tail = tail.rsplit("_", 1)[-1] if "_" in tail else tail
        if first in _ID_PREFIXES or first in _HEX_PREFIX_WORDS or first.rstrip("0123456789") in _ID_PREFIXES:
            continue
        if random_hex(tail):
            yield "API token", m.start(), m.end()


# --- byte arrays of a keypair's length -----------------------------------------------------

_BYTE_ARRAY = lazy(r"\[[ \t\r\n]{0,4}(?:[0-9]{1,3}[ \t\r\n]{0,4},[ \t\r\n]{0,4}){63}[0-9]{1,3}[ \t\r\n]{0,4}\]")


# A key's bytes under its name: an array of 16 to 64 numbers, decimal or hex (`network_key: [73, 46,
# ...]`, `uint8_t psk_key[32] = {0x1f, ...}`), or a string of escaped bytes (`SECRET_KEY = b"\xda\xd5..."`)
# (a cast before each number allowed: Java's and C#'s `(byte)0x1f`)
_NUMBER_ARRAY = lazy(r"[\[{(][ \t\r\n]{0,4}(?:(?:\((?:byte|sbyte|u8|uint8_t|char)\)[ \t]{0,2})?(?:0x[0-9a-fA-F]{1,2}|[0-9]{1,3})"
                     r"[ \t\r\n]{0,4},[ \t\r\n]{0,4}){15,63}(?:\((?:byte|sbyte|u8|uint8_t|char)\)[ \t]{0,2})?"
                     r"(?:0x[0-9a-fA-F]{1,2}|[0-9]{1,3})[ \t\r\n]{0,4},?[ \t\r\n]{0,4}[\]})]")
_ESCAPED_BYTES = lazy(r"(?:\\x[0-9a-fA-F]{2}){16,}")
_KEY_NAME_REACH = 48
_CAMEL_KEY_WORD = lazy(r"[a-z0-9](?:Key|Secret|Psk|Token)(?![a-z])")  # `hmacKey`, `aesSecret`
_NOT_KEY_NAME = lazy(r"(?i:public|pub|ext_pan|_id\b|iv\b|nonce|salt|magic|sbox|table|lookup)")


def _named_key_bytes(text: str, start: int) -> bool:
    """Does a key's or secret's name stand before ``start`` on its line, not a public key's or an id's?"""
    line_start = text.rfind("\n", max(0, start - _KEY_NAME_REACH), start) + 1
    before = text[max(line_start, start - _KEY_NAME_REACH):start]
    return (_CREDENTIAL_WORD.search(before) is not None or _CAMEL_KEY_WORD.search(before) is not None) \
        and _NOT_KEY_NAME.search(before) is None


def byte_arrays(text: str) -> Iterator[Span]:
    """A JSON array of 64 bytes (0-255), most of them different: a keypair file (Solana's
    ``id.json``, an ed25519 seed and public key) pasted as numbers. And a key's bytes under a
    key's or secret's name (:func:`_named_key_bytes`): an array of 16 to 64 numbers, or escaped
    bytes in a string, most of them different."""
    commas = text.count(",")
    if commas >= 63:
        for m in _BYTE_ARRAY.finditer(text):
            values = [int(v) for v in re.findall(r"[0-9]+", m.group())]
            if max(values) <= 255 and len(set(values)) >= 40 and values != sorted(values):  # not a range
                yield "private key bytes", m.start(), m.end()
    if commas >= 15:
        for m in _NUMBER_ARRAY.finditer(text):
            values = [int(v, 16) if v.startswith("0x") else int(v) for v in re.findall(r"0x[0-9a-fA-F]{1,2}|[0-9]{1,3}", m.group())]
            if max(values) <= 255 and len(set(values)) >= 3 * len(values) // 4 and values != sorted(values) \
                    and _named_key_bytes(text, m.start()):
                yield "key bytes", m.start(), m.end()
    if "\\x" in text:
        for m in _ESCAPED_BYTES.finditer(text):
            values = m.group().split("\\x")[1:]
            if len(set(values)) >= 3 * len(values) // 4 and _named_key_bytes(text, m.start()):
                yield "key bytes", m.start(), m.end()


# What bytes between dots or colons are when no key: a certificate's serial or fingerprint, a MAC
_BYTES_NAMED = lazy(r"(?i:serial|fingerprint|thumbprint|mac|hw ?addr|ether|hash|digest|checksum|sha[0-9-]{0,4}|md5|ids?|uuid"
                    r"|public|pub)(?![a-z])")


def named_bytes(text: str) -> list[tuple[int, int, str]]:
    """Edits (:mod:`vault_mem.model.secret_text`) that join a key's bytes written between dots,
    colons or dashes (:func:`separated_bytes`) under a key's or a secret's name on their line
    (:func:`_named_key_bytes`), none naming them a digest, a fingerprint, a serial or an address."""
    edits = []
    for start, end, joined in separated_bytes(text):
        line = text[text.rfind("\n", 0, start) + 1:start]
        if _named_key_bytes(text, start) and not _BYTES_NAMED.search(line):
            edits.append((start, end, joined))
    return edits


# A literal handed to a cipher's or a MAC's constructor (`Fernet(b'...')`, `AESGCM(bytes.fromhex("..."))`,
# `SecretBox(base64.b64decode("..."))`, `crypto.createCipheriv("aes-256-gcm", "...", iv)`): its key
_CIPHER_CALL = lazy(r"(?<![\w])(?:Fernet|MultiFernet|AESGCM|AESCCM|AESSIV|AESOCB3|ChaCha20Poly1305|XChaCha20Poly1305"
                    r"|SecretBox|Aead|AES\.new|ChaCha20\.new|Salsa20\.new|createCipheriv|createHmac|hmac\.new|HMAC)"
                    r"[ \t]{0,4}\(")
_CIPHER_LITERAL = lazy(r"b?(?P<q>[\"'])(?P<value>[A-Za-z0-9+/=_-]{16,400})(?P=q)")


def cipher_keys(text: str) -> Iterator[Span]:
    """A random literal in the first 160 characters of a cipher's or MAC's constructor call:
    hex of 32 digits or more, or high-entropy base64 of 20 characters or more."""
    if "(" not in text:
        return
    for m in _CIPHER_CALL.finditer(text):
        end = text.find("\n", m.end(), m.end() + 160)
        for lit in _CIPHER_LITERAL.finditer(text, m.end(), end if end >= 0 else m.end() + 160):
            value = lit.group("value")
            if (random_hex(value, min_len=32) or random_token(value.rstrip("="), min_len=20)) and not looks_fake(value):
                yield "key handed to a cipher", lit.start("value"), lit.end("value")
                break


# --- three-part bot tokens -----------------------------------------------------------------

_DOTTED = lazy(r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_.-])")


# Two or three parts joined by dots, one of them long and random: a vendor's ``id.secret`` pair
# (``pat<id>.<64 hex>``, ``<id>.atlasv1.<secret>``). Every part must be token-like (a digit or
# inner capitals), so file names, host names and ``main.<hash>.js`` bundles pass.
_DOTTED_PAIR = lazy(r"(?<![A-Za-z0-9_.:/@#=+-])[A-Za-z0-9_-]{6,100}(?:\.[A-Za-z0-9_-]{6,100}){1,2}"
                          r"(?![A-Za-z0-9_.+/=-])")
# A dotted key name, a colon and its secret (Ably's ``<app>.<key id>:<secret>``): both name parts
# token-like and the secret long and random, so `host.name:port` and `image.tag:digest` pass
_DOTTED_NAMED = lazy(r"(?<![A-Za-z0-9_.:/@#=+-])(?P<name>[A-Za-z0-9_-]{4,16}\.[A-Za-z0-9_-]{4,16}):"
                     r"(?P<secret>[A-Za-z0-9_-]{30,100})(?![A-Za-z0-9_.:+/=@-])")
_HEX = lazy(r"[0-9a-f]{32,}")
# Kubernetes' bootstrap token (`kubeadm join --token`, a kubeconfig's `token:`): `<6>.<16>` lower-case
# letters and digits, the format the API server checks; kubeadm's documented sample passes (secret_values._DOCUMENTED)
_BOOTSTRAP = lazy(r"[a-z0-9]{6}\.[a-z0-9]{16}")
_TOKEN_BEFORE = lazy(r"(?i:token)[\"'\]]?[ \t]{0,4}(?:[:=]|is)?[ \t]{0,4}[\"']?\Z")


def _token_part(part: str) -> bool:
    return any(c.isdigit() for c in part) or (any(c.isupper() for c in part[1:]) and any(c.islower() for c in part))


def dotted_tokens(text: str, words: Words) -> Iterator[Span]:
    """Three random base64url parts of a Discord bot token's lengths (24-28, 6-7, 27-40), and
    ``id.secret`` pairs whose parts all look like tokens and one is long and random."""
    words = [(start, end) for start, end in words if text.find(".", start, end) >= 0]
    for m in _in_words(_DOTTED, text, words):
        first, _, last = m.group().split(".")
        if random_token(first, min_len=20) and random_token(last, min_len=20):
            yield "bot token", m.start(), m.end()
    for m in _in_words(_DOTTED_NAMED, text, words):
        if all(_token_part(p) for p in m.group("name").split(".")) and random_token(m.group("secret"), min_len=30) \
                and not looks_fake(m.group()):
            yield "API token", m.start(), m.end()
    for m in _in_words(_DOTTED_PAIR, text, words):
        parts = m.group().split(".")
        # (the id part with a digit, or right after a token's label: `models.resnet50backbone` is a name)
        if _BOOTSTRAP.fullmatch(m.group()) and sum(c.isdigit() for c in parts[1]) >= 2 \
                and sum(c.isalpha() for c in parts[1]) >= 4 and not documented_example(m.group()) \
                and (any(c.isdigit() for c in parts[0])
                     or _TOKEN_BEFORE.search(text, max(0, m.start() - 24), m.start()) is not None):
            yield "bootstrap token", m.start(), m.end()
            continue
        if len(m.group()) < 48 or not all(_token_part(p) for p in parts):
            continue
        if any(random_token(p, min_len=27) or random_hex(p) for p in parts) and not looks_fake(m.group()):
            yield "API token", m.start(), m.end()


# The public members of a JSON Web Key (an EC point's "x" and "y", an RSA modulus "n" and exponent
# "e"), right before a value: random base64url, public by design
_JWK_PUBLIC_BEFORE = lazy(r"\"(?:x|y|n|e)\"[ \t]{0,8}:[ \t]{0,8}\"\Z")


def _public_jwk_member(text: str, start: int) -> bool:
    """Is the value at ``start`` a public member of a JSON Web Key?"""
    return '"kty"' in text and _JWK_PUBLIC_BEFORE.search(text, max(0, start - 24), start) is not None
