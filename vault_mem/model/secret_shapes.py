"""Credentials recognised by their shape and their place, not by a vendor's prefix.

The rule table (:mod:`vault_mem.model.secret_rules`) knows the formats of vendors it lists; a
credential from one it does not list still has a shape. These detectors find them:

- :func:`prefixed_tokens`: a short lowercase prefix and a long random tail (``dckr_pat_...``,
  ``figd_...``, ``ntn_...``, ``tskey-auth-...``): the tail must be random (upper and lower case
  and digits, high entropy, not CamelCase words), and prefixes of public object ids (``msg_``,
  ``toolu_``, ``call_``, ``cus_``, ``pi_``, ...) pass, because agents' notes are full of them.
- :func:`dotted_tokens`: three random base64url parts of a bot token's lengths (Discord's
  shape, whatever the first part decodes to).
- :func:`key_blocks`: private keys that are not PEM: PuTTY ``.ppk`` files, minisign and signify
  secret keys, age identities (any length, plugin identities too) and the private members of a
  JSON Web Key (``"d"``, ``"p"``, ``"k"``, ... beside ``"kty"``).
- :func:`pgpass_lines`: ``host:port:database:user:password`` lines of a ``.pgpass`` file.
- :func:`seed_phrases`: 12 or more words of the BIP-39 English list in a row (a wallet's
  recovery phrase), optionally numbered; the list is :mod:`vault_mem.model.seed_words` (MIT).

Each yields ``(kind, start, end)`` spans in the text it is given; :func:`vault_mem.model.secrets.find_secrets`
runs them on the normalised text beside the rule table. Every pattern is linear-time (single
character classes, bounded repeats, a literal or a look-behind at the start), and each detector
first checks for a marker with a substring search, so a text without one costs next to nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from vault_mem.model.secret_values import is_placeholder, looks_fake, random_token, shannon_entropy
from vault_mem.model.seed_words import BIP39_ENGLISH

__all__ = ["dotted_tokens", "key_blocks", "pgpass_lines", "prefixed_tokens", "seed_phrases"]

Span = tuple[str, int, int]

# --- prefix + random tail ------------------------------------------------------------------

# A token starts a word: one to three short lowercase segments, then the tail.
# (The look-ahead wants a capital in the tail, so a lowercase slug is dropped inside the engine.)
_PREFIXED = re.compile(r"(?<![A-Za-z0-9_.+/-])[a-z][a-z0-9]{1,11}[_-](?=[a-z0-9_-]{0,250}[A-Z])"
                       r"[A-Za-z0-9_-]{20,250}(?![A-Za-z0-9_+/=-])")
_SECRET_WORD = re.compile(r"pat|key|sk|tok|secret|pw|pass|api|auth|cred")
_SEGMENT = re.compile(r"[a-z][a-z0-9]{0,11}[_-]")
# Public identifiers that share the shape: agent and API object ids, digests, build names.
_ID_PREFIXES = frozenset(["msg", "toolu", "call", "chatcmpl", "cmpl", "run", "thread", "asst", "file", "org", "user", "batch", "req", "request", "resp", "evt", "cus", "pi", "ch", "prod", "price", "sub", "in", "txn", "acct", "seti", "pm", "src", "cs", "po", "py", "ii", "il", "job", "task", "id", "uid", "ref", "step", "vs", "ft", "ftjob", "modr", "img", "asset", "srv", "conv", "session", "sess", "proj", "prj", "project", "team", "dpl", "dep", "usr", "cust", "ord", "order", "inv", "invoice", "ws", "wrkspc", "msgbatch", "doc", "page", "node", "obj", "item", "ver", "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3", "crc32", "commit", "build", "release", "test", "tests", "pk", "sig", "trace", "span"])


def prefixed_tokens(text: str) -> Iterator[Span]:
    """``prefix_`` + a long random tail: an API token of a vendor the rule table does not list."""
    if "_" not in text and "-" not in text:
        return
    for m in _PREFIXED.finditer(text):
        token = m.group()
        first = token[:_SEGMENT.match(token).end() - 1]
        if first in _ID_PREFIXES:
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
        if len(tail) < 30 and not (token.count("_", 0, at) + token.count("-", 0, at) >= 2 or _SECRET_WORD.search(token[:at])):
            continue
        if random_token(tail) and not looks_fake(token):
            yield "API token", m.start(), m.end()


# --- three-part bot tokens -----------------------------------------------------------------

_DOTTED = re.compile(r"(?<![A-Za-z0-9_.-])[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_.-])")


def dotted_tokens(text: str) -> Iterator[Span]:
    """Three random base64url parts of a Discord bot token's lengths (24-28, 6-7, 27-40)."""
    if text.count(".") < 2:
        return
    for m in _DOTTED.finditer(text):
        first, _, last = m.group().split(".")
        if random_token(first, min_len=20) and random_token(last, min_len=20):
            yield "bot token", m.start(), m.end()


# --- private keys that are not PEM ---------------------------------------------------------

_PUTTY = re.compile(r"PuTTY-User-Key-File-[0-9]{1,2}:")
_PUTTY_PRIVATE = re.compile(r"Private-Lines:[ \t]{0,8}[0-9]{1,4}[ \t]{0,8}\r?\n[ \t]{0,8}[A-Za-z0-9+/=]{16,}")
_SECRET_KEY_COMMENT = re.compile(r"(?i:secret key)[^\n]{0,80}\r?\n[ \t]{0,8}([A-Za-z0-9+/]{40,}={0,2})")
_AGE = re.compile(r"A(?<![A-Za-z0-9_-]A)GE-(?:SECRET-KEY|PLUGIN-[A-Z0-9]{1,30})-1[A-Za-z0-9]{20,}")
_JWK_PRIVATE = re.compile(r"\"(?:d|p|q|dp|dq|qi|k)\"[ \t]{0,8}:[ \t]{0,8}\"([A-Za-z0-9_-]{16,})\"")
_PRIVATE_SPAN = 4 * 1024  # a .ppk's private lines follow its header within this (RSA-4096: ~1 KB)


def key_blocks(text: str) -> Iterator[Span]:
    """PuTTY keys, minisign/signify secret keys, age identities and private JWK members."""
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
    if "AGE-" in text:
        for m in _AGE.finditer(text):
            yield "age secret key", m.start(), m.end()
    if '"kty"' in text:
        for m in _JWK_PRIVATE.finditer(text):
            if not is_placeholder(m.group(1), quoted=True) and shannon_entropy(m.group(1)) >= 3.5:
                yield "JSON Web Key private part", m.start(1), m.end(1)


# --- .pgpass -------------------------------------------------------------------------------

_PGPASS = re.compile(r"^[ \t]*[^\s:#][^\s:]{0,252}:(?:[0-9]{1,5}|\*):[^\s:]{1,63}:[^\s:]{1,63}:"
                     r"((?:[^\s:\\]|\\.){1,200})[ \t]*\r?$", re.MULTILINE)


def pgpass_lines(text: str) -> Iterator[Span]:
    """``hostname:port:database:username:password`` with a literal password (not a template)."""
    if text.count(":") < 4:
        return
    for m in _PGPASS.finditer(text):
        pw = m.group(1)
        if len(pw) >= 4 and not pw.isdigit() and not is_placeholder(pw, quoted=True):
            yield "pgpass password", m.start(1), m.end(1)


# --- seed phrases --------------------------------------------------------------------------

_SEED_MIN = 12  # BIP-39 phrases are 12, 15, 18, 21 or 24 words
_SEED_WORDS = frozenset(BIP39_ENGLISH)
# One mark per whitespace-separated token: 1 a list word, n a number ("1." numbering does not
# break a run), 0 anything else; a phrase is twelve 1s with only numbers between them.
_SEED_RUN = re.compile(r"1(?:n*1){11,}")
_WORD = re.compile(r"[^\s,-]+")


def seed_phrases(text: str) -> Iterator[Span]:
    """Twelve or more BIP-39 words in a row, at least nine of them different: a recovery phrase."""
    low = text.lower()
    if "," in low or "-" in low:  # "abandon, ability, ..." and "abandon-ability-..."
        low = low.replace(",", " ").replace("-", " ")
    tokens = low.split()
    # C-speed pre-check: too few distinct list words for any phrase (most texts stop here)
    if len(tokens) < _SEED_MIN or len(_SEED_WORDS.intersection(tokens)) < 8:
        return
    stripped = [t.rstrip(".,;") for t in tokens]  # "word:" is a label, not part of a phrase
    marks = "".join(["1" if t in _SEED_WORDS else "n" if len(t) <= 3 and t.rstrip(".):").isdigit() else "0"
                     for t in stripped])
    runs = [(m.start(), m.end() - 1) for m in _SEED_RUN.finditer(marks)]
    if not runs:
        return
    spans = [(m.start(), m.end()) for m in _WORD.finditer(text)]  # only when a run exists
    for first, last in runs:
        if len(set(stripped[first:last + 1]) & _SEED_WORDS) >= 9:
            yield "seed phrase", spans[first][0], spans[last][1]
