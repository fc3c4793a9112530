"""Credentials recognised by their shape and their place, not by a vendor's prefix.

The rule table (:mod:`vault_mem.model.secret_rules`) knows the formats of vendors it lists; a
credential from one it does not list still has a shape. These detectors find them:

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
- :func:`webhook_urls`: a URL whose host or path says it is a hook (``hooks.<vendor>``,
  ``/webhooks/``, ``webhook.office.com``) and whose path holds a random part: whoever has the URL
  can post to the channel, so the path is the secret.
- :func:`signed_urls`: a URL whose query names its signature or token (``sig=``, ``X-Amz-Signature=``,
  ``token=``, ``key=``) with a random value, or a secret address's ``/private-<hex>/`` part.
- :func:`wallet_keys`: bech32 secret keys (``nsec1...``, a human-readable part naming a secret),
  BIP-32 extended private keys (``xprv``, ``tprv``, ``yprv``, ``zprv``) and WIF private keys (by
  their version byte and checksum).
- :func:`key_blocks`: private keys that are not PEM: PuTTY ``.ppk`` files, minisign and signify
  secret keys, age identities (any length, plugin identities too) and the private members of a
  JSON Web Key (``"d"``, ``"p"``, ``"k"``, ... beside ``"kty"``).
  Cardano ``.skey`` files (a ``cborHex`` under a ``...SigningKey...`` type) and Kerberos keytabs
  in base64 (``BQI...``: the file's ``0x0502`` magic) are key material too.
- :func:`der_private_keys`: a private key in base64 DER without its armour, by its ASN.1 start
  (a version number first: PKCS#1, PKCS#8, SEC1, PKCS#12); certificates and public keys pass.
- :func:`pgpass_lines`: ``host:port:database:user:password`` lines of a ``.pgpass`` file.
- :func:`seed_phrases`: 12 or more words of the BIP-39 English list in a row (a wallet's
  recovery phrase), optionally numbered; the list is :mod:`vault_mem.model.seed_words` (MIT).
  Under a list label ("Shopping list:") or a sentence naming them as something else ("Release
  codenames for 2027, in order:") the words count only with a valid BIP-39 checksum.

Each yields ``(kind, start, end)`` spans in the text it is given; :func:`vault_mem.model.secrets.find_secrets`
runs them on the normalised text beside the rule table. Every pattern is linear-time (single
character classes, bounded repeats, a literal or a look-behind at the start), and each detector
first checks for a marker with a substring search, so a text without one costs next to nothing.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import itertools
import re
import unicodedata
import zlib
from collections.abc import Iterator
from urllib.parse import unquote

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_text import long_words, separated_bytes
from vault_mem.model.secret_values import (
    der_key,
    documented_example,
    is_placeholder,
    looks_fake,
    public_by_design,
    random_hex,
    random_token,
    shannon_entropy,
    spoken,
    UUID,
)
from vault_mem.model.seed_words import BIP39_ENGLISH
from vault_mem.model.seed_words_other import LANGUAGES, other_lists

__all__ = ["PHRASE_LABEL", "Words", "bearer_blobs", "byte_arrays", "cipher_keys", "der_private_keys", "dotted_tokens", "hex_prefixed_tokens", "key_blocks", "labelled_phrases", "lower_prefixed_tokens", "named_bytes", "pgpass_lines", "driver_dsns", "prefixed_tokens",
           "monero_seeds", "scheme_urls", "seed_phrases", "seed_word", "token_words", "valid_mnemonic", "signed_urls", "wallet_keys", "webhook_urls",
           "word_phrase"]

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
_SEGMENT = lazy(r"[a-z][a-z0-9]{0,11}[_-]")
# Public identifiers that share the shape: agent and API object ids, digests, build names (in
# either case: ``SHA256-``, ``UUID_`` and ``msg_`` alike).
_ID_PREFIXES = frozenset(["msg", "toolu", "call", "chatcmpl", "cmpl", "run", "thread", "asst", "file", "org", "user", "batch", "req", "request", "resp", "evt", "cus", "pi", "ch", "prod", "price", "sub", "in", "txn", "acct", "seti", "pm", "src", "cs", "po", "py", "ii", "il", "job", "task", "id", "uid", "ref", "step", "vs", "ft", "ftjob", "modr", "img", "asset", "srv", "conv", "session", "sess", "proj", "prj", "project", "team", "dpl", "dep", "usr", "cust", "ord", "order", "inv", "invoice", "ws", "wrkspc", "msgbatch", "doc", "page", "node", "obj", "item", "ver", "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3", "crc32", "uuid", "guid", "ulid", "commit", "build", "release", "test", "tests", "pk", "sig", "trace", "span"])


# Upper-case prefixes (``HRKU-``, ``NRAK-``, ``CCIPAT_``): the tail must be long, since upper-case
# abbreviations before a dash start many ids (``JIRA-``, ``INC-``) and those tails are short.
_PREFIXED_UPPER = lazy(r"(?<![A-Za-z0-9_.+/-])[A-Z][A-Z0-9]{1,9}[_-][A-Za-z0-9_-]{30,250}(?![A-Za-z0-9_+/=-])")
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


def prefixed_tokens(text: str, words: Words) -> Iterator[Span]:
    """``prefix_`` + a long random tail: an API token of a vendor the rule table does not list."""
    dotted = [(start, end) for start, end in words if text.find(".", start, end) > 0]
    for m in _in_words(_PREFIXED_DOTTED, text, dotted):
        token = m.group()
        first, tail = token.split(".", 1)[0], max(token.split(".")[1:], key=len)
        if first not in _ID_PREFIXES and random_token(tail, min_len=40) and not looks_fake(token):
            yield "API token", m.start(), m.end()
    for m in _in_words(_PREFIXED_UPPER, text, words):
        token = m.group()
        first = re.split(r"[_-]", token, maxsplit=1)[0]
        if (first.lower() not in _ID_PREFIXES and random_token(token[len(first) + 1:], min_len=30) and not looks_fake(token)
                and not _public_jwk_member(text, m.start()) and not public_by_design(token)):
            yield "API token", m.start(), m.end()  # (a public key's base64url may hold a `_` or `-` early)
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
_PREFIXED_LOWER = lazy(r"(?<![A-Za-z0-9_.+/-])[a-z][a-z0-9]{1,11}[_-][a-z0-9]{32,250}(?![A-Za-z0-9_+/=-])")


def _base36_tail(tail: str) -> bool:
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
    """``<abbrev with sk/api/key/tok>_`` + 32 or more random lower-case letters and digits."""
    for m in _in_words(_PREFIXED_LOWER, text, words):
        token = m.group()
        sep = min(i for i in (token.find("_"), token.find("-")) if i > 0)
        prefix, tail = token[:sep], token[sep + 1:]
        if prefix not in _ID_PREFIXES and _SECRET_WORD.search(prefix) and _base36_tail(tail):
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


# --- webhook URLs ---------------------------------------------------------------------------

# A URL, from its scheme to the first character a URL cannot hold unescaped.
_URL_RUN = lazy(r"h(?<![A-Za-z0-9]h)ttps?://[^\s\"'<>`]{8,600}")
_HOOK_PART = lazy(r"[^/?#&=@]+")


def _secret_part(part: str, *, hook_host: bool) -> bool:
    """A path part that only its owner could know: random, hex of 20 digits or more (a build
    hook's 24), a long random base36 id (Mattermost's ``/hooks/<26 characters>``), or (on a hook
    host, where the whole path is the key) a short interleaving of letters and digits
    (``/catch/675/f1pa6v``).
    A UUID alone is not enough: ``webhook.site/<uuid>`` is a public test inbox in many docs."""
    if random_token(part, min_len=16) or random_hex(part, min_len=20):
        return True
    if len(part) >= 20 and part.isalnum() and part.islower() and _base36_tail(part):
        return True
    if hook_host:
        # letters and digits interleaved (`f1pa6v`, `yy2mm70`), not a name with a number
        # (`usedebounce2`); seven characters of which some repeat hold 2.2 bits each, so the
        # interleaving, not the entropy, says it is made (a bar of 2.3 missed Zapier's catch keys)
        changes = sum(a.isdigit() != b.isdigit() for a, b in zip(part, part[1:]))
        digits = sum(c.isdigit() for c in part)
        return (6 <= len(part) <= 64 and part.isalnum() and changes >= 3 and 2 <= digits < len(part) - 1
                and shannon_entropy(part) >= 2.0 and not looks_fake(part))
    return False


# A path segment that says the rest of the path triggers something (a deploy hook's `/deploy/<id>/<key>`,
# an automation's `/trigger/<event>/with/key/<key>`): whoever has the URL can run it
# (an alerting service's `/integration/<key>/enqueue`, `/integrations/v1/<kind>/<key>/`: the integration's key)
_TRIGGER_SEGMENT = lazy(r"/(?:deploy|deploys|trigger|triggers|build_hooks|deploy_hooks|integration|integrations)/")
# the key in such a URL's query may be short (a deploy hook's `?key=` is 11 characters)
_TRIGGER_KEY = lazy(r"[?&](?i:key|token|secret|sig)=(?P<value>[A-Za-z0-9_-]{10,200})(?![A-Za-z0-9_-])")


def _short_key(value: str) -> bool:
    """A short key (10 characters or more) no name could be: random, or of both cases and digits
    with no word one could say in it (``vNtFQSzFL14``; not ``deployDocs2``)."""
    if random_token(value, min_len=10):
        return True
    return (any(c.isupper() for c in value) and any(c.islower() for c in value) and any(c.isdigit() for c in value)
            and not spoken(value) and shannon_entropy(value) >= 3.0 and not looks_fake(value))


def webhook_urls(text: str) -> Iterator[Span]:
    """An incoming-webhook URL: its host or a path part names a hook (or a path segment a deploy
    or trigger), and a part after that is secret (:func:`_secret_part`; a key in its query of
    10 characters or more). Documentation URLs (``/webhooks/creating``), numeric ids
    (``/settings/hooks/412``) and templates (``/hooks/{id}``) have no such part."""
    if "hook" not in text and "Hook" not in text and "/deploy" not in text and "/trigger" not in text \
            and "/integration" not in text:
        return
    for m in _URL_RUN.finditer(text):
        url = m.group()
        low = url.lower()
        path_at = low.find("/", low.find("://") + 3)
        if path_at < 0 or "{" in url or "xxxx" in low:
            continue  # no path, or a template (`/hooks/{id}`, `/XXXXXXXX`)
        trigger = _TRIGGER_SEGMENT.search(low, path_at)
        if "hook" not in low and not trigger:
            continue
        hook_host = "hook" in low[:path_at]
        at = path_at if hook_host else low.find("hook", path_at)
        if trigger and (at < 0 or trigger.start() < at):
            at = trigger.start()
        if at < 0:
            continue
        query = url.find("?", at)
        parts = list(_HOOK_PART.finditer(url, at, len(url) if query < 0 else query))
        key = _TRIGGER_KEY.search(url, at)
        if any(_secret_part(p.group(), hook_host=hook_host) for p in parts) or (key and _short_key(key.group("value"))) \
                or _uuid_after_hook(url, path_at):
            yield "webhook URL", m.start(), m.end()


def _uuid_after_hook(url: str, path_at: int) -> bool:
    """A UUID as the path part right after a segment named for one hook, ending the path (Feishu's
    and Lark's ``/bot/v2/hook/<uuid>``, a ``/webhook/<uuid>`` trigger): the hook's only key. A
    UUID alone on a host named for hooks is a public test inbox's (``webhook.site/<uuid>``); after a plural (``/v1/webhooks/<uuid>``) it is a REST collection's record, and after another
    segment a record too (``/hooks/subscriptions/<uuid>``)."""
    query = url.find("?", path_at)
    parts = url[path_at:len(url) if query < 0 else query].rstrip("/").split("/")
    return len(parts) >= 3 and parts[-2].lower().endswith("hook") and UUID.fullmatch(parts[-1]) is not None


# --- stream keys and credentials in a non-web scheme's authority ------------------------------

# A streaming ingest URL's last path part is its stream key (`rtmp://host/live2/<key>`)
_STREAM_URL = lazy(r"(?<![A-Za-z0-9+.-])(?i:rtmps?|rtmpt|rtsp|srt)://[^\s/\"'<>`]{1,200}(?:/[^\s/\"'<>`?#]{1,200})*"
                   r"/(?P<key>[^\s/\"'<>`?#]{8,200})")
_GROUPED_LOWER = lazy(r"[a-z0-9]{3,8}(?:-[a-z0-9]{3,8}){3,7}")
# A URL of any scheme, its authority: where a notification URL keeps its credentials
# (`tgram://<bot id>:<token>/<chat>`, `pover://<user key>@<token>`)
_AUTHORITY = lazy(r"(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{1,20}://(?P<auth>[^\s/?#\"'<>`\[\]]{8,400})")


def _stream_key(key: str) -> bool:
    """Random (a token, hex), or random groups of letters and digits (``3hcx-9v3k-miu5-llw8``)."""
    if random_token(key, min_len=16) or random_hex(key, min_len=20):
        return True
    if not _GROUPED_LOWER.fullmatch(key):
        return False
    joined = key.replace("-", "")
    return (any(c.isdigit() for c in joined) and sum(c.isalpha() for c in joined) >= 4
            and shannon_entropy(joined) >= 3.3 and not looks_fake(key))


def scheme_urls(text: str) -> Iterator[Span]:
    """A stream key at the end of a streaming ingest URL, and a credential in a URL's authority
    where a host cannot be: a token after the host's colon where a port would stand
    (``tgram://<id>:<token>/``), or a random name after the ``@`` where a host would stand
    (``pover://<user>@<token>``)."""
    if "://" not in text:
        return
    low = text.lower()
    if "rtmp" in low or "rtsp" in low or "srt://" in low:
        for m in _STREAM_URL.finditer(text):
            if _stream_key(m.group("key")):
                yield "stream key", m.start("key"), m.end("key")
    for m in _AUTHORITY.finditer(text):
        auth = m.group("auth")
        if "@" in auth:
            host = auth.rsplit("@", 1)[1]
            if "." not in host and ":" not in host and (random_token(host, min_len=20) or
                                                         (len(host) >= 24 and host.isalnum() and host.islower() and _base36_tail(host))):
                yield "credential in a URL", m.start("auth"), m.end("auth")
        elif ":" in auth:
            port = auth.split(":", 1)[1]
            if not port.isdigit() and random_token(port, min_len=20):
                yield "credential in a URL", m.start("auth"), m.end("auth")


# --- signed and secret URLs ------------------------------------------------------------------

# A query parameter that carries the URL's authority (a workflow's or blob's `sig`, a presigned
# `X-Amz-Signature`, `?token=`, `&key=`), and a calendar's secret address (`/private-<hex32>/`).
# (and what signs one in or lets one in: a magic link's `code=`, an invite's `invite=`, `auth=`, `pass=`)
_AUTH_PARAM = lazy(r"[?&;](?i:[a-z0-9-]{0,16}(?:sig|signature|token|access_token|key|api_key|apikey|secret|code|auth"
                   r"|pass|password|pwd|otp|ticket|invite|magic))"
                   r"=(?P<value>[^&#\s\"'<>`]{16,600})")
_PRIVATE_PART = lazy(r"/private-(?P<value>[0-9a-f]{32,64})/")
# A path segment named for a token, then the token: a conda channel's `/t/<token>/`, `/token/<x>`,
# a push monitor's `/push/<key>`, an invite's or a magic link's `/invite/<code>`, `/magic/<code>`
_TOKEN_PART = lazy(r"/(?i:t|tokens?|api[_-]?keys?|secrets?|keys?|auth|push|invites?|magic|access|login|signin|unlock)"
                   r"/(?P<value>[^/?#&\s\"'<>`]{10,200})")
# A path segment that is a bot's id and its secret (`/bot<digits>:<secret>/`): the token in the path
_ID_SECRET_PART = lazy(r"/[A-Za-z]{0,8}[0-9]{5,20}:(?P<value>[A-Za-z0-9_-]{20,200})(?=[/?#]|$)")


# A hook's URL (its path names a webhook or a deploy hook: WeCom's `/cgi-bin/webhook/send?key=`,
# Render's `/deploy/srv-...?key=`) whose `key=` or `token=` is the hook's secret: a UUID there, or
# a short key of both cases no word could be (no digit needed), counts
_HOOK_PATH = lazy(r"(?i:/[\w-]{0,20}(?:web)?hooks?[\w-]{0,20}/|/deploy/)")
_HOOK_KEY = lazy(r"[?&](?i:key|token|secret)=(?P<value>[^&#\s\"'<>`]{10,200})")


_CASE_CHUNK = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def _hook_key(value: str) -> bool:
    """A hook's key: a UUID, a short key (:func:`_short_key`), or letters whose case changes every
    few characters (no run of four: a camelCase name's words are longer, `productionDeploy`)."""
    return UUID.fullmatch(value) is not None or _short_key(value) or (
        value.isalpha() and sum(c.isupper() for c in value) >= 3 and any(c.islower() for c in value)
        and max(map(len, _CASE_CHUNK.findall(value))) <= 3 and shannon_entropy(value) >= 3.0 and not looks_fake(value))


def signed_urls(text: str) -> Iterator[Span]:
    """A URL whose query names its signature or token with a random value (a Power Automate or
    Logic Apps workflow's ``&sig=``, a presigned object URL), or whose path holds a secret
    address's ``private-<hex>`` part or a random part after a segment named for a token (a
    conda channel's ``/t/<token>/``): whoever has the URL has the access."""
    if "://" not in text:
        return
    for m in _URL_RUN.finditer(text):
        url = m.group()
        if "{" in url or "xxxx" in url.lower():
            continue  # a template
        hook_key = _HOOK_KEY.search(url) if _HOOK_PATH.search(url) else None
        if hook_key and _hook_key(unquote(hook_key.group("value"))):
            yield "secret URL", m.start(), m.end()
            continue
        parts = itertools.chain(_AUTH_PARAM.finditer(url), _PRIVATE_PART.finditer(url), _ID_SECRET_PART.finditer(url))
        named = ((p, True) for p in _TOKEN_PART.finditer(url))
        for p, after_word in itertools.chain(((p, False) for p in parts), named):
            value = unquote(p.group("value"))
            # (after a path word a short key counts: a push monitor's is 10 characters)
            if random_token(value, min_len=16) or random_hex(value) or (after_word and _short_key(value)):
                yield "secret URL", m.start(), m.end()
                break


# --- wallet keys -----------------------------------------------------------------------------

# bech32 with a human-readable part that names a secret (Nostr's nsec1, a wallet's ...sec1, ...prv1)
_BECH32_SECRET_HRPS = ("sec", "secret", "priv", "prv", "sk")  # how the human-readable part ends
_BECH32_SECRET = lazy(rf"(?<![a-z0-9])[a-z]{{0,8}}(?:{'|'.join(_BECH32_SECRET_HRPS)})1"
                            r"[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{50,}(?![a-z0-9])")
_BECH32_MARKS = tuple(hrp + "1" for hrp in _BECH32_SECRET_HRPS)
# BIP-32 extended private keys: base58 of 82 bytes, 111 characters
_XPRV = lazy(r"(?<![A-Za-z0-9])[xyztuvXYZUV]prv[1-9A-HJ-NP-Za-km-z]{100,112}(?![A-Za-z0-9])")


# A private key in Wallet Import Format: base58 of a version byte (0x80 main net, 0xef test net), 32
# key bytes, 0x01 for a compressed key, and a 4-byte checksum (the double SHA-256 of the rest)
_WIF = lazy(r"(?<![A-Za-z0-9])[59KLc][1-9A-HJ-NP-Za-km-z]{50,51}(?![A-Za-z0-9])")
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _valid_wif(run: str) -> bool:
    """Does ``run`` decode to a private key with the format's version byte and checksum? A random
    run of base58 passes it one time in four billion."""
    n = 0
    for c in run:
        n = n * 58 + _B58.index(c)
    raw = n.to_bytes(38 if len(run) == 52 else 37, "big") if n.bit_length() <= 8 * 38 else b""
    if len(raw) not in (37, 38) or raw[0] not in (0x80, 0xEF) or (len(raw) == 38 and raw[33] != 0x01):
        return False
    return hashlib.sha256(hashlib.sha256(raw[:-4]).digest()).digest()[:4] == raw[-4:]


def wallet_keys(text: str) -> Iterator[Span]:
    """Wallet secret keys written in a format that says it: bech32 ``nsec1...``, BIP-32 ``xprv...``
    and a private key in Wallet Import Format (by its checksum)."""
    for m in _WIF.finditer(text) if len(text) >= 51 else ():
        if _valid_wif(m.group()) and not is_placeholder(m.group(), quoted=True):
            yield "wallet private key", m.start(), m.end()
    if any(mark in text for mark in _BECH32_MARKS):  # (a substring search, not a regex pass over every text)
        for m in _BECH32_SECRET.finditer(text):
            yield "wallet secret key", m.start(), m.end()
    if "prv" in text:
        for m in _XPRV.finditer(text):
            yield "wallet extended private key", m.start(), m.end()
    if "accounts" in text:
        for m in _ACCOUNT_KEYS.finditer(text):
            key = m.group("key")
            if random_hex(key.removeprefix("0x"), min_len=64):
                yield "wallet private key", m.start("key"), m.end("key")


# An Ethereum network's `accounts: ["<64 hex>", ...]` in a Hardhat or Truffle config: the list
# takes private keys (an account's address is 40 hex; a mnemonic is an object there)
_ACCOUNT_KEYS = lazy(r"(?<![\w-])[\"']?accounts[\"']?[ \t]{0,4}[:=][ \t]{0,4}\[[ \t\r\n]{0,40}"
                     r"(?:[\"'](?:0x)?[0-9a-fA-F]{64}[\"'][ \t]{0,4},[ \t\r\n]{0,40}){0,20}"
                     r"[\"'](?P<key>(?:0x)?[0-9a-fA-F]{64})[\"']")


# --- three-part bot tokens -----------------------------------------------------------------

_DOTTED = lazy(r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_.-])")


# Two or three parts joined by dots, one of them long and random: a vendor's ``id.secret`` pair
# (``pat<id>.<64 hex>``, ``<id>.atlasv1.<secret>``). Every part must be token-like (a digit or
# inner capitals), so file names, host names and ``main.<hash>.js`` bundles pass.
_DOTTED_PAIR = lazy(r"(?<![A-Za-z0-9_.:/@#=+-])[A-Za-z0-9_-]{6,100}(?:\.[A-Za-z0-9_-]{6,100}){1,2}"
                          r"(?![A-Za-z0-9_.+/=-])")
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


# --- private keys that are not PEM ---------------------------------------------------------

_PUTTY = lazy(r"PuTTY-User-Key-File-[0-9]{1,2}:")
_PUTTY_PRIVATE = lazy(r"Private-Lines:[ \t]{0,8}[0-9]{1,4}[ \t]{0,8}\r?\n[ \t]{0,8}[A-Za-z0-9+/=]{16,}")
_SECRET_KEY_COMMENT = lazy(r"(?i:secret key)[^\n]{0,80}\r?\n[ \t]{0,8}([A-Za-z0-9+/]{40,}={0,2})")
# age's identities and any tool's of their form (`<TOOL>-SECRET-KEY-1` and bech32): the name says it
_AGE = lazy(r"(?<![A-Za-z0-9_-])(?:AGE-PLUGIN-[A-Z0-9]{1,30}|[A-Z][A-Z0-9]{0,15}(?:-[A-Z0-9]{1,15}){0,2}-SECRET-KEY)"
            r"-1[A-Za-z0-9]{20,}")
_JWK_PRIVATE = lazy(r"\"(?:d|p|q|dp|dq|qi|k)\"[ \t]{0,8}:[ \t]{0,8}\"([A-Za-z0-9_-]{16,})\"")
# The public members of a JSON Web Key (an EC point's "x" and "y", an RSA modulus "n" and exponent
# "e"), right before a value: random base64url, public by design
_JWK_PUBLIC_BEFORE = lazy(r"\"(?:x|y|n|e)\"[ \t]{0,8}:[ \t]{0,8}\"\Z")


# A Cardano key file whose type names a signing key, a PaymentSigningKeyShelley_ed25519 for one:
# its `cborHex` is the key (a VerificationKey file's is public)
_SIGNING_KEY_FILE = lazy(r"\"type\"[ \t]{0,8}:[ \t]{0,8}\"[A-Za-z0-9_]{0,40}SigningKey[A-Za-z0-9_]{0,40}\"")
_CBOR_HEX = lazy(r"\"cborHex\"[ \t]{0,8}:[ \t]{0,8}\"(5820[0-9a-fA-F]{64,}|5840[0-9a-fA-F]{128,})\"")
# A Kerberos keytab in base64: the file starts with 0x0502 (base64 `BQI`), then an entry's length
_KEYTAB = lazy(r"(?<![A-Za-z0-9+/])BQI[A-Za-z0-9+/]{60,}={0,2}")


def _keytab(run: str) -> bool:
    try:
        raw = base64.b64decode(run + "=" * (-len(run) % 4))
    except (binascii.Error, ValueError):
        return False
    size = int.from_bytes(raw[2:6], "big", signed=True)
    return raw[:2] == b"\x05\x02" and 16 <= size <= len(raw) - 6


# An unarmoured private key in base64 DER (the armour lines lost in a paste, a key in a JSON
# field or after `NAME=`): what the blob is, read from its ASN.1 structure, is
# secret_values.der_key's (PKCS#1, PKCS#8, SEC1, PKCS#12 are private; public keys, certificates
# and requests pass, and a DKIM record's public key is no secret whatever its label).
_DER = lazy(r"M[A-Za-z0-9+/]{42,}")
_DER_SIGNS = "=:"  # (inside a word, the value starts after a name's sign: `SIGNING_KEY_DER=MII...`)


def der_private_keys(text: str, words: Words) -> Iterator[Span]:
    """A private key in base64 DER without its armour lines (see :data:`_DER`)."""
    for start, end in words:  # (a test of each word's first letter: a regex per word costs ten times this)
        at = start
        while at < end and text[at] in "\"'`([{=:,":
            at += 1
        starts = [at]
        for sign in _DER_SIGNS:
            inner = text.find(sign, at, end)
            while inner >= 0:
                starts.append(inner + 1 + (text[inner + 1:inner + 2] in ("\"", "'")))
                inner = text.find(sign, inner + 1, end)
        for at in starts:
            if text.startswith("M", at) and end - at >= 43 and der_key(text[at:at + 96]) == "private":
                run = _DER.match(text, at)
                if run:
                    yield "private key (base64 DER)", at, run.end()
                    break


# Bearer blobs known by their binary structure rather than a prefix:
# - a macaroon (LND's admin.macaroon, any service's): v2 in hex (`0201...`) or base64 (`AgE...`) is
#   the version byte 2, an optional location field (type 1, a length, the bytes) and then its
#   identifier field (type 2); v1 in base64 is text packets, four hex digits of length and
#   `location ` or `identifier `. Whoever holds one is its holder's caveats' bearer.
# - a Tor onion service's private key as ADD_ONION and its control port take it:
#   `ED25519-V3:<base64 of 64 bytes>`, `RSA1024:<base64 DER>`.
_MACAROON_HEX = lazy(r"0201[0-9a-fA-F]{60,}")
_MACAROON_B64 = lazy(r"(?:AgE|MDA)[A-Za-z0-9+/_-]{40,}={0,2}")
_ONION_KEY = lazy(r"(?:ED25519-V3:[A-Za-z0-9+/]{86}={0,2}|RSA1024:M[A-Za-z0-9+/]{100,}={0,2})(?![A-Za-z0-9+/=])")


def _macaroon(raw: bytes) -> bool:
    """Do ``raw``'s first bytes frame a macaroon, v2 binary or v1 text packets (see above)?"""
    if raw[:1] == b"\x02":
        at = 1
        if raw[at:at + 1] == b"\x01":  # the location: a one-byte length (a varint below 128)
            if at + 1 >= len(raw) or raw[at + 1] >= 0x80:
                return False
            at += 2 + raw[at + 1]
        return raw[at:at + 1] == b"\x02" and at + 1 < len(raw) and raw[at + 1] > 0  # the identifier, not empty
    head = raw[:15]
    return all(c in b"0123456789abcdef" for c in head[:4]) and (head[4:13] == b"location " or head[4:15] == b"identifier ")


def bearer_blobs(text: str, words: Words) -> Iterator[Span]:
    """Macaroons by their structure and Tor onion service keys by their form (see above)."""
    for start, end in words:
        at = start
        while at < end and not text[at].isalnum():
            at += 1
        begins = [at] + [sign + 1 for sign in (text.find(":", at, end), text.find("=", at, end)) if sign >= 0]
        for begin in begins:
            onion = _ONION_KEY.match(text, begin, end) if text.startswith(("ED25519-V3:", "RSA1024:"), begin) else None
            if onion:
                yield "onion service private key", onion.start(), onion.end()
                break
            hexed = _MACAROON_HEX.match(text, begin, end) if text.startswith("0201", begin) else None
            b64 = _MACAROON_B64.match(text, begin, end) if text.startswith(("AgE", "MDA"), begin) else None
            run = hexed or b64
            if run is None:
                continue
            try:
                raw = bytes.fromhex(run.group()[:64]) if hexed else base64.urlsafe_b64decode(
                    run.group()[:64].replace("+", "-").replace("/", "_"))
            except (binascii.Error, ValueError):
                continue
            if _macaroon(raw):
                yield "macaroon", run.start(), run.end()
                break


def _public_jwk_member(text: str, start: int) -> bool:
    """Is the value at ``start`` a public member of a JSON Web Key?"""
    return '"kty"' in text and _JWK_PUBLIC_BEFORE.search(text, max(0, start - 24), start) is not None
_PRIVATE_SPAN = 4 * 1024  # a .ppk's private lines follow its header within this (RSA-4096: ~1 KB)


def key_blocks(text: str) -> Iterator[Span]:
    """PuTTY keys, minisign/signify secret keys, age identities, private JWK members, Cardano
    signing key files and Kerberos keytabs in base64."""
    if "PuTTY-User-Key-File-" in text:
        for m in _PUTTY.finditer(text):
            body = _PUTTY_PRIVATE.search(text, m.end(), m.end() + _PRIVATE_SPAN)
            if body:
                yield "PuTTY private key", m.start(), body.end()
    low_has = "secret key" in text or "SECRET KEY" in text or "Secret Key" in text
    if low_has:
        for m in _SECRET_KEY_COMMENT.finditer(text):
            if shannon_entropy(m.group(1)) >= 4.0:
                yield "secret key block", m.start(1), m.end(1)
    if "AGE-PLUGIN-" in text or "-SECRET-KEY-1" in text:
        for m in _AGE.finditer(text):
            yield "age secret key" if m.group().startswith("AGE-") else "secret key", m.start(), m.end()
    if '"kty"' in text:
        for m in _JWK_PRIVATE.finditer(text):
            if not is_placeholder(m.group(1), quoted=True) and shannon_entropy(m.group(1)) >= 3.5:
                yield "JSON Web Key private part", m.start(1), m.end(1)
    if "SigningKey" in text and "cborHex" in text and _SIGNING_KEY_FILE.search(text):
        for m in _CBOR_HEX.finditer(text):
            yield "signing key file", m.start(1), m.end(1)
    if "BQI" in text:
        for m in _KEYTAB.finditer(text):
            if _keytab(m.group()):
                yield "Kerberos keytab", m.start(), m.end()


# --- .pgpass -------------------------------------------------------------------------------

_PGPASS = lazy(r"^[ \t]*[^\s:#][^\s:]{0,252}:(?:[0-9]{1,5}|\*):[^\s:]{1,63}:[^\s:]{1,63}:"
                     r"((?:[^\s:\\]|\\.){1,200})[ \t]*\r?$", re.MULTILINE)


# one line of it quoted in a sentence that names the file ("added `host:5432:db:user:X` to .pgpass"):
# the host a name or an address, the port a number or `*`
_PGPASS_QUOTED = lazy(r"(?P<q>[`'\"])[ \t]{0,2}(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\*):(?:[0-9]{1,5}|\*):[^\s:`'\"]{1,63}:"
                      r"[^\s:`'\"]{1,63}:((?:[^\s:\\`'\"]|\\.){1,200})[ \t]{0,2}(?P=q)")


def pgpass_lines(text: str) -> Iterator[Span]:
    """``hostname:port:database:username:password`` with a literal password (not a template), on
    its own line or quoted in a sentence that names ``.pgpass``."""
    if text.count(":") < 4:
        return
    quoted = _PGPASS_QUOTED.finditer(text) if "pgpass" in text.lower() else iter(())
    for m in itertools.chain(_PGPASS.finditer(text), quoted):
        g = m.re.groups  # (the password is the last group: the quoted form's first is its quote)
        pw = m.group(g)
        if len(pw) >= 4 and not pw.isdigit() and not is_placeholder(pw, quoted=True):
            yield "pgpass password", m.start(g), m.end(g)


# Go's MySQL driver's DSN (`user:password@tcp(host:port)/db`, `@unix(/path)`): no scheme before it,
# so the URL finders do not read it
_GO_DSN = lazy(r"(?<![\w.:/@-])[\w.-]{1,64}:(?P<pw>[^\s\"'`:@]{1,200}(?:@[^\s\"'`:@]{1,100}){0,3})@(?:tcp6?|unix|udp)\(")


def driver_dsns(text: str) -> Iterator[Span]:
    """The password of a DSN in Go's MySQL driver's form, not a template or a placeholder."""
    if "@tcp" not in text and "@unix(" not in text and "@udp(" not in text:
        return
    for m in _GO_DSN.finditer(text):
        pw = m.group("pw")
        if len(pw) >= 4 and not pw.isdigit() and not is_placeholder(pw, quoted=True) and not pw.startswith(("$", "%", "{")):
            yield "connection string password", m.start("pw"), m.end("pw")


# --- seed phrases --------------------------------------------------------------------------

_SEED_MIN = 12  # BIP-39 phrases are 12, 15, 18, 21 or 24 words
_SEED_WORDS = frozenset(BIP39_ENGLISH)
# One mark per whitespace-separated token: 1 a list word, n a number ("1." numbering does not
# break a run), 0 anything else; a phrase is twelve 1s with only numbers between them.
_SEED_RUN = lazy(r"1(?:n*1){11,}")
_QUOTES = lazy(r"[\"'`]")
_WORD = lazy(r"[^\s,\"'`-]+")  # (split where seed_phrases splits its lowered copy)


def seed_phrases(text: str) -> Iterator[Span]:
    """Twelve or more BIP-39 words in a row, at least nine of them different: a recovery phrase.
    English words count by the run alone; the words of BIP-39's other lists when their checksum
    makes them a phrase (:func:`_other_language_phrases`)."""
    found = False
    for span in _english_phrases(text):
        found = True
        yield span
    if not found and len(text) >= 2 * _SEED_MIN - 1:  # (twelve characters, spaced)
        yield from _other_language_phrases(text)


def _english_phrases(text: str) -> Iterator[Span]:
    low = text.lower()
    if "," in low or "-" in low:  # "abandon, ability, ..." and "abandon-ability-..."
        low = low.replace(",", " ").replace("-", " ")
    if '"' in low or "'" in low or "`" in low:  # a list of quoted words (`["olive", "sudden", ...]`)
        low = low.replace('"', " ").replace("'", " ").replace("`", " ")
    tokens = low.split()
    # C-speed pre-check: too few distinct list words for any phrase (most texts stop here)
    if len(tokens) < _SEED_MIN:
        return
    if len(_SEED_WORDS.intersection(tokens)) < 8 and (
            ")" not in low and "." not in low or len(_SEED_WORDS.intersection(_NUMBERED.sub("", t) for t in tokens)) < 8):
        return
    # "word:" is a label, not part of a phrase; a phrase may be quoted and assigned to any name
    # (`MNEMONIC="word ... word"`, `seed: 'word ...'`): the name and the quotes are not its words
    # (a number written against its word, "1.addict" / "12)snap", numbers a list as "1. addict" does)
    stripped = [_NUMBERED.sub("", _ASSIGNED.sub("", t)).strip("\"'`;").rstrip(".,;") for t in tokens]
    marks = "".join(["1" if t in _SEED_WORDS else "n" if len(t) <= 3 and t.rstrip(".):").isdigit() else "0"
                     for t in stripped])
    runs = [(m.start(), m.end() - 1) for m in _SEED_RUN.finditer(marks)]
    if not runs:
        return
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text)]  # only when a run exists
    for first, last in runs:
        if len(set(stripped[first:last + 1]) & _SEED_WORDS) >= 9:
            start, end = spans[first][0], spans[last][1]
            # (words quoted one by one are a list in code, `["apple", "banana", ...]`, unless a
            # seed's label stands before them on their line, or their checksum makes them a phrase)
            listed = _listed(text, start) or (_QUOTES.search(text, start, end) is not None and not _SEED_LABEL.search(
                text, text.rfind("\n", 0, start) + 1, start))
            if listed and not valid_mnemonic([t for t in stripped[first:last + 1] if t in _SEED_WORDS]):
                continue
            yield "seed phrase", start, end


_NUMBERED = lazy(r"^[0-9]{1,2}[.)](?=[a-z])")


# `mnemonic=` before a phrase's first word, or a label written against it in a script that puts
# no space after its colon ("シードフレーズ：word ...", read as `...:word` once normalised)
_ASSIGNED = lazy(r"^(?:[a-z_][a-z0-9_.-]{0,60}=|[^\x00-\x7f][^\s:]{0,40}:)")


# Monero's (and its forks') seeds: 25 words, the last a checksum that repeats one of the others,
# picked by the CRC-32 of the words' first three letters. No list is needed: the list's words differ
# in their first three letters, so two words of a seed that start alike are the same word, and a
# run of words passes the checksum only when its last word repeats the one the CRC names (a run
# of prose one time in some thousands, where its punctuation and short words have not already
# broken it). The older 13-word form is not read: a 1-in-12 checksum is too weak against prose.
_MONERO_LENGTH = 25
_MONERO_WORD = lazy(r"[a-z]{3,12}")
_MONERO_RUN = lazy(r"(?<![\w-])[a-z]{3,12}(?:[ \t]{1,4}(?:\r?\n[ \t]{0,8})?[a-z]{3,12}){24,60}(?![\w-])")


def monero_seeds(text: str) -> Iterator[Span]:
    """A run of 25 lower-case words whose last word is its Monero checksum word."""
    if len(text) < _MONERO_LENGTH * 4:
        return
    n = _MONERO_LENGTH
    for m in _MONERO_RUN.finditer(text):
        spans = [(w.start(), w.end()) for w in _MONERO_WORD.finditer(text, m.start(), m.end())]
        words = [text[a:b] for a, b in spans]
        for first in range(len(words) - n + 1):
            run = words[first:first + n]
            if run[-1] != run[zlib.crc32("".join(w[:3] for w in run[:-1]).encode()) % (n - 1)] or len(set(run)) < n - 3:
                continue
            by_prefix: dict[str, str] = {}
            if all(by_prefix.setdefault(w[:3], w) == w for w in run):
                yield "seed phrase", spans[first][0], spans[first + n - 1][1]
                return


def seed_word(word: str) -> bool:
    """Is ``word`` (any case, trailing punctuation ignored) on the BIP-39 list?"""
    return word.lower().rstrip(".,;:") in _SEED_WORDS


# A label that says what follows is a list of things ("Shopping list:", "Ingredients:"): many
# BIP-39 words are everyday nouns, so twelve of them under such a label are a list, unless their
# checksum makes them a wallet's phrase (a random list passes it one time in 16 or less).
_LIST_LABEL = lazy(r"(?i:\b(?:list|lists|ingredients|groceries|shopping|packing|inventory|menu|items|todo|to-do)\b)")
_SEED_LABEL = lazy(r"(?i:seed|phrase|mnemonic|recovery|wallet|backup|words)")
_INDEX = {w: i for i, w in enumerate(BIP39_ENGLISH)}
# Prose that ends in a colon right before the words: three words or more, so a bare "Seed:" or
# "12 words:" (the layout of a backup note) is not one.
#: how far before the words a naming label may start
_NAMING_REACH = 160
_NAMING_LABEL = lazy(r"[^\W\d_]{2,}(?:[^\w\n]{1,4}\w+){2,}[^\w\n]{0,4}:[ \t]*\Z")


def _listed(text: str, start: int) -> bool:
    """Does a list label, and no seed-phrase label, introduce the words at ``start`` (on their line,
    or alone on the line above)?"""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    if not before.strip(" \t-*+\u2022"):  # (a bullet is no label: "Groceries:" above "- rice" names the list)
        before = text[text.rfind("\n", 0, max(0, line_start - 1)) + 1:line_start]
    if _SEED_LABEL.search(before):
        return False
    # a list label, or a sentence that names what the words are ("Release codenames, in order:"):
    # words introduced as something else are that thing, unless their checksum says otherwise
    # (a naming label is short: searched in the line's end, since every start of an unanchored
    # search of a long line scanned the rest of it, quadratic in the line's length)
    return bool(_LIST_LABEL.search(before)) or bool(_NAMING_LABEL.search(before[-_NAMING_REACH:]))


# What names a wallet's or an account's phrase of words, in the languages of secret_words: the
# label that makes twelve plain words a recovery phrase whatever list they come from (a phrase of
# BIP-39's other lists counts without a label when its checksum is valid: _other_language_phrases)
PHRASE_LABEL = lazy(r"(?<![^\W\d_])(?:seed|mnemonic\w{0,4}|mn[ée]monique|mnem[óo]nic\w{0,2}|recovery[ _-]phrase|backup[ _-]phrase"
                    r"|secret[ _-](?:recovery[ _-])?phrase|frase|phrase[ _-]de|semilla|semente|graine|palabras|mots[ _-]de"
                    r"|wiederherstellungs\w{0,10}|wörter|woorden|parole|herstelzin|слова|фраза)(?![^\W\d_])", re.IGNORECASE)
# the short words of sentences in those languages: a phrase of list words holds none of them
_FUNCTION_WORDS = frozenset("""
the and for with that this from are was you your our not but all can will have has into then than them they
que los las del por para con una uno sus como pero más mas est les des une pour dans avec sur pas qui sont aux
und der die das ein eine mit von für nicht ist sind auf den dem zum zur per che non una sono della delle gli nel
com uma não dos das pelo pela
""".split())
_PHRASE_WORD = lazy(r"[^\W\d_]{3,9}")
_PHRASE_SIZES = (12, 15, 18, 21, 24)


def word_phrase(value: str) -> bool:
    """Twelve, fifteen, eighteen, twenty-one or twenty-four lower-case words of three to nine letters,
    nine of them different or more, none of them the small words sentences are made of: the shape
    of a BIP-39 phrase in any of its languages (numbering and commas allowed). Judged only where
    a label names a phrase (:data:`PHRASE_LABEL`)."""
    value = unicodedata.normalize("NFC", value)  # (an accent typed as its own mark: `e` and U+0301)
    words = [w for w in value.replace(",", " ").split() if not (w.rstrip(".):").isdigit() and len(w) <= 3)]
    if len(words) not in _PHRASE_SIZES or len(set(words)) < max(9, len(words) - 3):
        return False
    return all(_PHRASE_WORD.fullmatch(w) and w.islower() and w not in _FUNCTION_WORDS for w in words)


_PHRASE_AFTER = lazy(r"[^\n:]{0,60}:[ \t]*(?:\r?\n[ \t]*)?(?P<words>[^\n]{20,300})")


def labelled_phrases(text: str) -> Iterator[Span]:
    """A phrase of words (:func:`word_phrase`) on the line after a label that names one and its
    colon ("Frase de recuperación: masa dirigir ...", "Seed phrase:" then the words below)."""
    for m in PHRASE_LABEL.finditer(text):
        after = _PHRASE_AFTER.match(text, m.end())
        if after and word_phrase(after.group("words").strip(" \t\r.")):
            words = after.group("words").rstrip(" \t\r.")
            yield "seed phrase", after.start("words"), after.start("words") + len(words)
            return


def valid_mnemonic(words: list[str], index: dict[str, int] | None = None) -> bool:
    """Do ``words`` (12 to 24, from the list; ``index``: a list's word -> position, English's by
    default) carry a valid BIP-39 checksum? Every wallet's phrase does: its last bits are the
    first bits of the SHA-256 of the rest."""
    index = _INDEX if index is None else index
    n = len(words)
    if n not in (12, 15, 18, 21, 24) or any(w not in index for w in words):
        return False
    bits = 0
    for w in words:
        bits = (bits << 11) | index[w]
    check_bits = n // 3
    entropy = bits >> check_bits
    data = entropy.to_bytes((11 * n - check_bits) // 8, "big")
    return hashlib.sha256(data).digest()[0] >> (8 - check_bits) == bits & ((1 << check_bits) - 1)


# A phrase in one of BIP-39's other languages (Spanish, French, Italian, Portuguese, Czech,
# Japanese, Korean, Chinese): no label needed, as in English, but the checksum is, since a list of
# common words (Chinese's are its 2,048 most common characters) meets prose more often than
# English's does; a random run of list words passes it one time in 16 (12 words) to 256 (24).
# The lists are unpacked on the first text with words of theirs (:mod:`vault_mem.model.seed_words_other`).
# (a label may be glued to the first word by a colon, as Chinese and Japanese write: "助记词：港 易 ...")
# A phrase is the run of list words it stands in, but for at most _OTHER_SLACK words of a label
# beside it, and it begins or ends the run: every 12-word window of a longer run tried against the
# checksum (1 in 16 each) refused a Spanish shopping list of 16 to 20 common words 1 time in 4, and
# of 21 to 30 words 2 times in 5 (tests/test_secret_general7.py); the corpora's phrases all have
# at most one list word beside them
_OTHER_SLACK = 3
_OTHER_WORD = lazy(r"[^\s,:;、。\"'`()\[\]-]+")


@functools.cache
def _other_words() -> frozenset[str]:
    """Every word of the other lists (unpacked at the first call)."""
    return frozenset(itertools.chain.from_iterable(other_lists().values()))


@functools.cache
def _other_index(lang: str) -> dict[str, int]:
    """The list of ``lang``: word -> position (built when a run of its words is first read)."""
    return {w: i for i, w in enumerate(other_lists()[lang])}


def _other_language_phrases(text: str) -> Iterator[Span]:
    """Twelve to twenty-four words of one of BIP-39's other lists in a row whose checksum is valid
    (numbering between them allowed), at most three of them repeated."""
    low = text.lower()
    # (the lists are kept composed, NFKC; a text may come decomposed, as wallets export Japanese and
    # Korean: NFKD, kana and their voicing marks, Hangul as its letters)
    composed = low if low.isascii() else unicodedata.normalize("NFKC", low)
    tokens = composed.split()
    if len(tokens) < _SEED_MIN - 1:  # (one token may be the label and the first word)
        return
    every = _other_words()
    if len(every.intersection(tokens)) < 8:  # C-speed: most texts stop here
        return
    spans = [(m.start(), m.end()) for m in _OTHER_WORD.finditer(text)]
    words = [w if w.isascii() else unicodedata.normalize("NFKC", w)
             for w in (text[a:b].lower().rstrip(".") for a, b in spans)]
    marks = "".join(["1" if w in every else "n" if len(w) <= 3 and w.rstrip(".)").isdigit() else "0" for w in words])
    for run in _SEED_RUN.finditer(marks):
        at = [i for i in range(run.start(), run.end()) if marks[i] == "1"]
        if len(at) > 24 + _OTHER_SLACK:
            continue  # a text of list words (a word list, a dictionary), not one phrase
        for lang in LANGUAGES:
            index = _other_index(lang)
            if sum(words[i] in index for i in at) < _SEED_MIN:
                continue
            for size in (24, 21, 18, 15, 12):
                if not 0 <= len(at) - size <= _OTHER_SLACK:
                    continue
                for k in dict.fromkeys((0, len(at) - size)):  # the run's first words, or its last
                    phrase = [words[i] for i in at[k:k + size]]
                    if len(set(phrase)) >= size - 3 and valid_mnemonic(phrase, index):
                        yield "seed phrase", spans[at[k]][0], spans[at[k + size - 1]][1]
                        return
