"""A value made to be hard to guess near the word that names it, whatever the syntax between.

Where no sign or syntax above holds the value, a value made to be hard to guess *near* the label
counts whatever lies between (:func:`near_value`): on its line within 80 characters, on the lines below a
label line that ends in ``:``, ``?`` or the label itself, or right before it with only "is"/"as"/a
sign between ("X (that's the api secret)"). Call arguments, dictionaries, Makefile ``?=``, SQL
options, positional arguments and prose in any language are read by this one rule; only random
tokens, random hex, high-entropy runs, or after a password's word a value no word could be count,
and a word between that names it an id, a digest, a ciphertext or an example stops it. The words
for password, key, token and secret in ~40 languages are one table
(:mod:`vault_mem.model.secret_words`).

Also here: a value before its label ("use X as the password", "X is the keystore password"),
a config file's directive and its value (:func:`config_directive`), and :func:`judged_value`, which
reads the sign after a label and hands its value to :func:`vault_mem.model.secret_judge.judge`.
What stops a value (a word naming it an id, a digest, an example) is
:func:`vault_mem.model.secret_judge.near_stop`.
"""

from __future__ import annotations

import itertools
import re
import string
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_judge import (
    CODE_PARTS, COMMON_WORDS, NEAR_STOP, gives_example, judge, near_stop, passphrase, password_shaped, plain_password,
    random_groups, unsigned_password, word_and_number,
)
from vault_mem.model.secret_names import (
    AND_PAIR, APP_PASSWORD, CALL_END, CJK_CHAR, COPULA_WORD, DASHED_VALUE, DIGIT_GROUPS,
    FSTRING_FIELD, OWNER, PAIR, PAIR_AFTER_WORD, QUOTED_WORDS, SEP, SPACE_PAIR, USER_SHAPE, Span, WORD_RUN, assign_tail, is_key_char,
    is_sentence, key_class,
)
from vault_mem.model.secret_public import public_by_design
from vault_mem.model.secret_values import (
    ENV_NAME, UUID, credential_like, high_entropy, identifier_like, is_placeholder, is_wordy, key_chord,
    looks_fake, random_hex, random_token, record_id, run_at_read, shannon_entropy, spoken, stored_not_secret,
)

__all__ = ["ASIDE", "ASIDE_STOP", "COMMA_LITERAL", "FLOW_MEMBER", "ID_WORDS", "LOGIN_NOUN", "NAME_EQUALS",
           "NEAR_ID_PREFIXES", "NEAR_STOP", "SAID_LAST", "SET_VARIABLE", "SIGIL_LITERAL", "TUPLE_OPEN",
           "config_directive", "gives_example", "in_arn", "judged_value", "label_sign", "names_a_property",
           "near_stop", "near_value", "own_name", "random_value", "stated_default", "under_encrypted", "value_before",
           "warned_values"]

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
# a word of a sentence after a label's that points back to what the label named ("Swapped it for X",
# "New one is X", "Replaced them with X")
_POINTS_BACK = lazy(r"(?<![a-z])(?:it|one|them|its)(?![a-z])")
# a label's line that points to the value below it ("password: see below", "the token follows:")
_POINTS_BELOW = lazy(r"(?<![a-z])(?:below|beneath|underneath|follows|(?:on )?the next line)[ \t.:)\]*_]{0,8}\r?\Z")
# the rest of a label's line that leaves the value to the lines below: a sign, a quote, nothing
_LABEL_LINE_END = lazy(r"[ \t\"'`*_)\]>]{0,8}[:?]?[ \t\"'`*_)\]>]{0,8}\r?")
# a flow mapping's or an object literal's first member (`{api_key: X}`), not a template's `{password}`
FLOW_MEMBER = lazy(r"[\"']?[ \t]{0,2}:[ \t]{1,4}[^\s{}]")
SIGIL_LITERAL = lazy(r"[ \t]{0,4}=(?![=~>])[ \t]{0,8}[\"']")
# an aside that says the value is public or a sample, or names it an id or a digest
# a shell's command that gives a variable its value with no sign (fish's `set -gx NAME X`, csh's `setenv NAME X`)
SET_VARIABLE = lazy(r"(?:(?<![\w-])set[ \t]{1,4}(?:-[a-zA-Z]{1,4}[ \t]{1,4}){1,3}|(?<![\w-])setenv[ \t]{1,4})\Z")
ASIDE_STOP = lazy(r"(?<![a-z])(?:public|published|pub|example|e\.g|sample|placeholder|dummy|fake|ids?|identifier|hash|digest"
                  r"|fingerprint|checksum|uuid)(?![a-z])")
ASIDE = lazy(r"[ \t]{1,4}\([^()\n]{1,60}\)(?=[ \t]{0,4}:)")
TUPLE_OPEN = lazy(r"[{(][ \t]{0,1}:?\Z")
COMMA_LITERAL = lazy(r"[ \t]{0,2},[ \t]{0,8}(?:<<)?[\"']")
NAME_EQUALS = lazy(r"[A-Za-z_][\w.-]{0,40}=(?!=)")


def near_value(text: str, low: str, at: int, cls: str, kw_start: int | None = None) -> Span | None:
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
    # (a label ending its sentence, "a stale client secret. Swapped it for X": the next sentence's value
    # is the label's only when that sentence points back to it, "it", "one"; "Removed the hardcoded
    # password. Switched to Workload Identity: X" names something else)
    ended = text[at:at + 1] == "." and text[at + 1:at + 2] in (" ", "\t", "\n", "\r")
    for start in _NEAR_START.finditer(text, at, min(end, at + _NEAR_REACH + 8)) if near else ():
        if near_stop(low, at, start.start()) or low.find("public", at, start.start()) >= 0:
            return None  # (also inside a name: `EcdsaPublicKey`, `ASYMMETRIC_PUBLIC`)
        if ended and not _POINTS_BACK.search(low, at, start.start()):
            continue
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
    if kw_start is not None and _DIGIT.search(text, max(0, kw_start - _BEFORE_REACH), kw_start) \
            and not _ID_AFTER_LABEL.match(low, at):
        # (not when the label goes on to name an id: "X (the signing key id in the JWKS)")
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
# a file's "DO NOT share", "keep this safe", "treat as confidential"): the text names it a secret
# as a label would, in words no label list holds
_WARNING = lazy(r"(?<![a-z])(?:(?:do[ _-]?not|don'?t|never|not[ _-]to[ _-]be|must[ _-]not[ _-]be)[ _-]{1,2}"
                r"(?:share|commit|publish|post|paste|leak|expose|log|print|send|reveal|give)"
                r"|keep[ _-](?:(?:it|this|that|them|these)[ _-])?(?:safe|secret|private|hidden|confidential|to[ _-]yourself)"
                r"|(?:treat|handle)[ _-](?:it|this|that)?[ _-]{0,2}as[ _-](?:secret|confidential|sensitive|private)"
                r"|confidential|sensitive|for[ _-]your[ _-]eyes[ _-]only)(?![a-z])")
_WARNING_WORDS = ("share", "commit", "publish", "post", "paste", "leak", "expose", "log", "print", "send", "reveal", "give",
                  "keep", "treat", "handle", "confidential", "sensitive", "eyes")
_WARNING_REACH = 240
_WARNING_BEFORE = 80  # a value before its warning, on its line ("X - don't share this one")


def warned_values(text: str, low: str) -> Iterator[Span]:
    """A random value within reach after a warning not to share it (see :data:`_WARNING`), or
    right before it on its line."""
    for word in _WARNING_WORDS:
        if word in low:  # (a plain loop: most texts hold none of these words)
            break
    else:
        return
    done = 0
    for m in _WARNING.finditer(low):
        if m.start() < done:
            continue
        line_start = max(low.rfind("\n", 0, m.start()) + 1, m.start() - _WARNING_BEFORE, done)
        done = m.end() + _WARNING_REACH
        for run in itertools.chain(_NEAR_VALUE.finditer(text, line_start, m.start()),
                                   _NEAR_VALUE.finditer(text, m.end(), min(len(text), done))):
            after = run.start() >= m.end()
            if near_stop(low, m.end(), run.start()) if after else \
                    near_stop(low, max(line_start, run.start() - _BEFORE_REACH), run.start()) or near_stop(low, run.end(), m.start()):
                continue  # a word between names it an id, a digest, a ciphertext ("sensitive ticket, request id X")
            found = _near_value(text, run, "secret" if after else "before")
            if found:
                yield "secret marked not to share", found[1], found[2]
                break


_BEFORE_REACH = 48
_ID_AFTER_LABEL = lazy(r"[ \t_-]{1,2}(?:ids?|identifier|fingerprint|hash|digest|prefix|name|version|number)(?![a-z])")
# the names that hold a value for whatever names them (`secret: value=X`): any other name's value is its own
_HOLDER_NAMES = frozenset({"value", "val", "v", "data", "content", "text", "str", "string", "raw", "literal"})
# a connection's keywords before and after a password (libpq's conninfo, `user=app password=X sslmode=require`)
_CONNINFO_BEFORE = lazy(r"(?<![\w.-])(?:user|username|dbname|host|hostaddr|uid|server)=[^\s=]{1,200}[ \t]")
_CONNINFO_AFTER = lazy(r"[ \t]*(?:[\"']|\r?\n|\Z|[a-z_]{2,30}=)")
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
    # a value under its own name (`plaintext=X` after "key=Y,") is that name's, not the label's; a short
    # name is a cookie's own under a cookie's label (Slack's `d=xoxd-...`), whose value the label names
    own = value[:named.end() - 1] if named else ""
    if len(own) >= 4 and key_class(own) is None and own.lower() not in _HOLDER_NAMES:
        return None
    at_value = m.start() + (named.end() if named else 0)
    value = value[named.end():] if named else value
    if text[at_value + len(value):at_value + len(value) + 1] == "<":
        return None  # a template's literal part (`pypi-AgE<rest>`)
    if stored_not_secret(text[m.start():m.start() + 200].split(None, 1)[0].strip("\"'`")):
        return None  # a password's stored hash or a ciphertext (`SCRAM-SHA-256$4096:...` in a userlist)
    if text[at_value + len(value):at_value + len(value) + 1] == "(" and value.isalnum():
        return None  # a function's name, called: `urlBase64ToUint8Array(...)`, `decodeKey(...)`
    if random_value(value, cls):
        return "secret near its label", at_value, at_value + len(value)
    return None


def random_value(value: str, cls: str) -> bool:
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
    if first in NEAR_ID_PREFIXES or UUID.fullmatch(value) or record_id(value) or _DIGEST_SHAPE.fullmatch(value):
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


ID_WORDS = frozenset({"id", "ids", "identifier", "name", "names", "arn", "uri", "url", "path", "accessor",
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
                             "encoding", "encryption", "derivation", "kdf", "prompt", "validation", "validator",
                             "type", "types", "hint", "hints", "source", "sources", "auth", "owner", "screen", "icon",
                             "result", "results", "migration", "status", "method", "methods", "reset"})
# Words a `!` ends as praise or a cry, not as a password's symbol ("Password strength: Excellent!",
# "Password: Congratulations!")
_EXCLAIMED = frozenset("""
excellent fantastic congratulations congrats brilliant complete completed great awesome perfect amazing nice
wonderful superb success successful done finally thanks welcome hooray yay wow oops nope tomorrow today soon
strong stronger weak weaker good better best bad worse worst correct wrong""".split())


def names_a_property(words: list[str], op: str) -> bool:
    """Is "<label> <words> is X" a property of the secret named in English, not the secret:
    "the password hashing scheme is Argon2id", "the password policy is Policy_v2", "password
    column type is Varchar255"? One to three lower-case English words right after the label, none
    of them a word that ties the value to the secret itself (a preposition, a determiner or a
    pronoun, an adverb of time: :data:`_LINKING`) nor a secret's own noun ("reset token"); only
    before "is"/"are"/"was" (a colon or another language's sign word keeps its reading)."""
    if op.strip().lower() not in ("is", "are", "was") or not 1 <= len(words) <= 3:
        return False
    if OWNER.match(" " + words[0]):
        return False  # "wachtwoord voor de router is X": another language's "for" ties the value to it
    return all(w.isascii() and w.isalpha() and w.islower() and w not in _LINKING and w not in _SECRET_NOUNS
               for w in words)


def in_arn(text: str, at: int) -> bool:
    """Is the name at ``at`` a part of an ARN (``arn:aws:...:secret:...``)?"""
    word_start = max(text.rfind(c, max(0, at - 200), at) for c in " \t\n\"'=(") + 1
    return text.startswith("arn:", word_start)


def config_directive(text: str, start: int, tail: re.Match[str]) -> bool:
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


def stated_default(text: str, low: str, start: int, found: Span) -> bool:
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


def under_encrypted(text: str, at: int) -> bool:
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


def value_before(text: str, start: int, cls: str, end: int | None = None) -> Span | None:
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


def label_sign(tail: re.Match[str]) -> str:
    """The sign of an assignment's tail, stripped; every language's "is" reads as ``is``, a typed
    assignment (``: str =``) as ``=``, and a literal passed to a call (named for the credential,
    or a conversion around the literal) as ``(``."""
    op = tail.group("op").strip()
    if "wrap" in tail.re.groupindex and tail.group("wrap"):
        return "("
    if op.endswith("VALUE"):
        return "="  # COBOL: `PIC X(16) VALUE 'X'` gives the data item its value
    if op[:1] in ",;-–—" and any(w.endswith(("is", "was", "'s", "’s")) for w in op[1:].split()[:2]):
        return "is"  # ", which is X", ", it's X", "- it's now X": the clause's "is" is the sign
    if op.split()[:1] in (["'s"], ["’s"]):
        return "is"  # "Password's X": the "is" written against the label
    if op.startswith(","):
        return ","
    if op.endswith("=") and any(c.isalpha() for c in op):
        return "="
    op = op.split()[0] if " " in op else op  # "is still": the adverb says nothing of the value
    if op.lower() == "to" and _POLISH_LABEL.search(tail.string, max(0, tail.start() - 8), tail.start()):
        return "is"  # Polish writes "is" as "to" ("hasło do VPN to X"), not the English "set ... to X"
    return "is" if COPULA_WORD.fullmatch(op) else op


_POLISH_LABEL = lazy(r"(?i:has[łl]o)\Z")


def _name_of(text: str, end: int) -> str:
    """The name that ends at ``end`` (a variable's, before its tail)."""
    start = end
    while start > 0 and end - start < 64 and is_key_char(text[start - 1]):
        start -= 1
    return text[start:end]


def judged_value(text: str, tail: re.Match[str], cls: str, *, flag: bool = False) -> Span | None:
    """The finding for a matched ``op value`` tail after a key of class ``cls``, if it is one."""
    op = label_sign(tail)
    if op[:1] == ":" and op.rstrip("-+")[-1:] in (">", "|"):
        op = "="  # `key: >-` then the value on the next line: a YAML literal
    raw = tail.group("value")
    quoted = raw[0] in "\"'`"
    if run_at_read(raw):
        return None  # `` `pass show mail/corp` ``: a command's output, read at run time
    if op == "(" and not CALL_END.match(text, tail.end()):
        return None  # a literal among a call's arguments is judged by the call (call_credentials)
    value = raw[1:-1].strip().strip("\"'") if quoted else _value_end(raw)  # `"X"` in Markdown is X
    if not quoted and value.startswith("{") and "}" in raw:
        value = raw[1:raw.index("}")]  # ODBC quotes a value in braces: `Pwd={X};`
        person = cls == "password" and word_and_number(value) and not any(p.lower() in CODE_PARTS for p in SEP.split(value))
        if FSTRING_FIELD.fullmatch(value) or (identifier_like(value) and spoken(value) and not person):
            # `{password}`, `{db_pass}`, f"{password!r}", `{cfg.db.pw}`: a template's field; words
            # and a number as a person joins them (`{sierra.maple.426}`) are a password
            return None
        if not credential_like(value) and not (cls == "password" and judge(cls, "=", value, quoted=True, code=False, ends=True)):
            # a braced password is quoted as `"X"` is: any value a quote would make one counts
            # (`Pwd={sierra.maple.426}`, a person's dotted password), a template's field does not
            return None
    if not quoted and CJK_CHAR.search(value):
        value = CJK_CHAR.split(value, 1)[0]  # "パスワードはX123です": the sentence goes on after the value
        value = value.rstrip("([,") if value[-1:] in "([," else value  # "X（社外秘）": a note in brackets after it
    if not value:
        return None
    if cls == "password" and not quoted and op in (":", "is", "=", "->", "→", ""):
        # an app password as Google shows it: four groups of four random letters ("qwpz xkrt mvbn lsdf"),
        # after a sign or none (msmtprc's `password qwpz xkrt mvbn lsdf`)
        app = APP_PASSWORD.match(text, tail.start("value"))
        if app and 3 * sum(c in "aeiouy" for c in app.group()) < 16 and len(set(app.group().replace(" ", ""))) >= 9:
            return "password assignment", app.start(), app.end()
    phrase_named = text[max(0, tail.start() - 6):tail.start()].lower() == "phrase"
    # (not after an adverb: "a shrink pass is just any function that ..." is prose)
    if cls == "password" and not quoted and op in (":", "is", "=", "->", "→", "-", "–", "—") and (assign_tail(tail) or phrase_named) \
            and len(tail.group("op").split()) <= 1:
        # right after the label ("passphrase: amber crisp lotus violin"), not after prose
        # ("password manager: bitwarden vault entries" names a tool), except after a passphrase's
        # word, which names words ("the passphrase for ~/.ssh/id_work is salon shed dream 90")
        phrase = WORD_RUN.match(text, tail.start("value"))
        said = phrase.group().split() if phrase else []
        if said and not is_sentence(said):
            return "password assignment", phrase.start(), phrase.start() + len(phrase.group().rstrip(" \t."))
    if cls == "password" and not quoted and op in (":", "is", "=", "->", "→"):
        # a passphrase of number groups (diceware's rolls, "35152 16152 24464 15246", or a numeric
        # passphrase in fours) to the end of its line: four groups or more, no year or size among words
        groups = DIGIT_GROUPS.match(text, tail.start("value"))
        if groups and random_groups(groups.group().split()):
            return "password assignment", groups.start(), groups.start() + len(groups.group().rstrip(" \t."))
    if cls == "password" and not quoted and op == "" and assign_tail(tail):
        # no sign, the words to the end of the line ("cms admin: bakery, pass next exotic embark digital"):
        # four or more, every one of them a generator's common word and no sentence
        phrase = WORD_RUN.match(text, tail.start("value"))
        said = [w for w in phrase.group().split() if not w.isdigit()] if phrase else []
        if len(said) >= 4 and all(w in COMMON_WORDS for w in said) and not is_sentence(said):
            return "password assignment", phrase.start(), phrase.start() + len(phrase.group().rstrip(" \t."))
    if cls == "password" and quoted and op in (":", "is", "=", "->", "→") and QUOTED_WORDS.fullmatch(value) \
            and not is_sentence(value.split()):
        # a passphrase in quotes ("passphrase is \"tape shop little opera foam\""): words, but no sentence
        at = tail.start("value") + raw.index(value)
        return "password assignment", at, at + len(value)
    if cls == "password" and not quoted and op == "=" and "." in value and _FILE_LINE_KEY.fullmatch(text, text.rfind("\n", 0, tail.start()) + 1, tail.start()) \
            and text[tail.start():tail.start() + 1] == "=" and text[tail.start("value") + len(raw):][:1] in ("", "\n", "\r") \
            and word_and_number(value, joined=False) and not any(p.lower() in CODE_PARTS for p in SEP.split(value)):
        # `password=walnut.Harbor99` as a line of a credentials file (Samba's `credentials=`, an .ini,
        # a .env): the key at the line's start, `=` with no space, the value to the line's end; code
        # writes `password = settings.pass12` spaced, indented or inside a call
        at = tail.start("value")
        return "password assignment", at, at + len(value)
    if cls == "password" and not quoted and op == "=" and "." in value and text[tail.start():tail.start() + 1] == "=" \
            and _CONNINFO_AFTER.match(text, tail.start("value") + len(raw)) \
            and _CONNINFO_BEFORE.search(text, text.rfind("\n", 0, tail.start()) + 1, tail.start()) \
            and word_and_number(value, joined=False) and not any(p.lower() in CODE_PARTS for p in SEP.split(value)):
        # `password=walnut.Harbor99` among libpq's `host=db port=5432 user=app password=X sslmode=require`
        # (a connection's keywords around it): the value is the password, as at a file line's end
        at = tail.start("value")
        return "password assignment", at, at + len(value)
    pair = PAIR.match(text, tail.end()) if cls in ("secret", "login") and not quoted else None
    if not pair and cls == "login" and op in ("is", ":", "=") and not quoted:
        pair = AND_PAIR.match(text, tail.end())  # "login is admin and X": the user, then the password
    if not pair and cls == "login" and op == "" and not quoted:
        pair = PAIR_AFTER_WORD.match(text, tail.end())  # "login with alice@corp / X": a word, the user, the slash
    if not pair and cls in ("secret", "login") and op in (":", "=", "is") and not quoted and USER_SHAPE.fullmatch(value):
        # "creds: svc-backup X": a user's name, then a value that ends the line and that no word
        # or name could be (nothing but the order says which is the password)
        spaced = SPACE_PAIR.match(text, tail.end())
        pw = spaced.group("pw") if spaced else ""
        # (random by its look, or a word and a number with a password's symbol in them: `Wren_larch44!`,
        # not `SSO-Portal2`, nor sign-in methods, `Okta+MFA`, `2FA+TOTP`)
        if pw and unsigned_password(pw) and judge("password", ":", pw, quoted=False, code=False, ends=True) \
                and not is_placeholder(pw, quoted=False):
            return "password assignment", spaced.start("pw"), spaced.end("pw")
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
    # (a person's words and number after "the password to" are the password set: "changed the
    # router password to purple-monkey-dishwasher-42", "reset it to Rhubarb-4904")
    person = cls == "password" and not quoted and any(c.isdigit() for c in value) \
        and (passphrase(value) or word_and_number(value, joined=True))
    if op == "to" and not env_uuid and (quoted or text[tail.start() - 4:tail.start()].lower() == "pass"
                                        or not (credential_like(value) or person)):
        return None  # "pass to fs.open" is the verb; "changed to 'X'" quotes a name, not a value
    # (a word between the label and its sign naming a property of the secret: "password hashing ...
    # to argon2id", "password policy: ThreeWordsMinimum")
    describes = text[tail.start():tail.start("op")].split()[:1] != [] and \
        text[tail.start():tail.start("op")].split()[0].lower() in _PROPERTY_NOUNS
    if op == "to" and describes and text[tail.start():tail.start("op")].split()[0].lower() != "reset":
        return None  # "we moved password hashing from bcrypt to argon2id": the label names the hashing
    if op in ("-", "–", "—") and not (high_entropy(value) or (DASHED_VALUE.fullmatch(value) and credential_like(value))
                                      or (cls == "password" and (word_and_number(value, joined=True) or passphrase(value)))):
        # (after a password's label a person's password counts as after a colon: "Пароль — Вишня_Київ_2026")
        return None  # "Acme secret - X"; not arithmetic in code (`token - 1].content`)
    kind = judge(cls, "--" if flag and op == "" else op, value, quoted=quoted, code=code, ends=ends,
                  hint=quoted or raw[len(value):len(value) + 1] not in ("!", "?"), phrase=not describes)
    if not kind and cls == "password" and not quoted and raw[len(value):len(value) + 1] == "!" \
            and any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
        # a `!` after letters and digits may be the value's last character, put there to meet a
        # policy ("login admin, password Marble8510!"); after a word it ends a sentence ("is wrong!")
        value += "!"
        kind = judge(cls, "--" if flag and op == "" else op, value, quoted=False, code=code, ends=ends, hint=False)
    elif not kind and cls == "password" and not quoted and raw[len(value):len(value) + 1] == "!" and ends and op in (":", "=") \
            and value.isalpha() and value[:1].isupper() and value[1:].islower() and plain_password(value.lower()) \
            and not describes and value.lower() not in _EXCLAIMED:
        # a capitalised word and a `!` after a password's sign ("password: Quicksilver!"): a word and
        # its one symbol, as a policy makes people write it; read as the same word in lower case is
        # ("Expired!": a state, none; "Excellent!": praise). After "is" the `!` is prose's ("the password is
        # Fantastic!"), and after a property's name ("Password strength: Excellent!")
        value += "!"
        kind = "password assignment"
    if not kind:
        return None
    if not assign_tail(tail) and not quoted and not credential_like(value) and not OWNER.match(text, tail.start()):
        # a word-and-number value after prose that makes the label a modifier ("the password
        # rotation runbook is Runbook-2291" names a runbook); "the password for the NAS is X" or
        # "the WLAN-Passwort im Büro lautet X" name whose password it is
        return None
    vstart = tail.start("value") + (raw.index(value) if quoted or raw.startswith("{") else 0)
    return kind, vstart, vstart + len(value)


_CLOSERS = {")": "(", "]": "[", "}": "{", ">": "<"}
LOGIN_NOUN = lazy(r"s?(?:[ \t]{1,4}(?:for|to|of|on|at)(?![a-z])|[ \t]{0,2}[:,(]|[ \t]*\Z)")
SAID_LAST = lazy(r"[:=][ \t]{1,4}[`'\"]?([^\s`'\"]{8,200})[`'\"]?[.]?\Z")


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
