"""Credentials named by where they stand on the page: below their label, in parts, as its new value.

The finders of other places each have a module named for the place: a field, column, element
or header (:mod:`vault_mem.model.secret_fields`), a user and password pair or a password named
by its use (:mod:`vault_mem.model.secret_pairs`), a call or a command line
(:mod:`vault_mem.model.secret_commands`), recovery codes, TOTP seeds and PINs
(:mod:`vault_mem.model.secret_codes`). Here:

- :func:`values_below`: a random token alone below a label line or a command that prints it.
- :func:`grouped_values`: a value written in groups or spelled out for reading.
- :func:`split_parts` and :func:`listed_parts`: a value cut into labelled parts, or a list of its parts.
- :func:`new_values`: the new or current value of a credential named before it in the sentence.

Each finder yields ``(kind, start, end)``; every pattern stays on a line or a bounded reach, and
each finder first checks for its marker with a substring search.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_judge import judge, name_like, quoted_words, strong_unlabelled, unsigned_password
from vault_mem.model.secret_names import COMMENT_MARK, DIGEST, PUBLIC_KEY_NAMES, Span, key_class, label_keywords
from vault_mem.model.secret_pairs import person_password
from vault_mem.model.secret_text import lines_holding
from vault_mem.model.secret_values import (
    UUID, high_entropy, identifier_like, is_placeholder, looks_fake, random_hex, random_token, unguessable,
)

__all__ = ["grouped_values", "listed_parts", "new_values", "split_parts", "values_below"]

# A value cut into labelled parts on lines of their own ("first half: X" / "second half: Y",
# "part 1: X" / "part 2: Y"): each part alone is short, the parts together a token
_PART_WORDS = ("half", "part", "piece", "chunk", "segment")
_PART_LINE = lazy(r"[ \t]{0,8}(?:[-*•][ \t]{1,4})?(?:first|second|third|fourth|last|other|1st|2nd|3rd|4th|[0-9]{1,2}(?:/[0-9])?)?"
                  r"[ \t]{0,2}(?:half|part|piece|chunk|segment)s?(?:[ \t]{0,2}(?:[0-9]{1,2}|one|two|three|a|b))?"
                  r"(?:[ \t]{1,4}[a-z]{1,12}){0,3}[ \t]{0,4}[:=][ \t]{0,4}[`'\"]?(?P<value>[A-Za-z0-9+/_=.~!@#$%^&*?-]{4,200})[`'\"]?[ \t]*\r?\Z",
                  re.IGNORECASE)


def split_parts(text: str, low: str) -> Iterator[Span]:
    """Two parts or more of one value, each on its own labelled line ("first half:", "part 2:"),
    that read together make a random token (:func:`random_token` or random hex), or a password no
    word could be (:func:`unguessable`) under text that names a password."""
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
    elif _names_a_password(low[:parts[0].start()]) and unguessable(joined) and not looks_fake(joined) \
            and not is_placeholder(joined, quoted=True):
        # a password cut in parts under a line naming it ("the admin password is in two parts"):
        # short parts a person made, no word or name read together
        yield "password split into parts", parts[0].start("value"), parts[-1].end("value")


def _names_a_password(low: str) -> bool:
    """Do the lines above a value's parts name a password (the credential words' own list,
    :func:`label_keywords`, of the password's class: "the admin password", "VPN passphrase", "root
    pw")? A key or a PIN alone names a finding or a pad as often ("Key findings", "PIN pad firmware")."""
    return any(key_class(m.group()) == "password" for m in label_keywords(low))


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
        if (random_token(joined, min_len=24) or random_hex(joined, min_len=32) or person_password(joined, inner=True)) \
                and not looks_fake(joined):
            yield "token split into parts", m.start("items"), m.end("items")


# The value of a credential named before it in the sentence, introduced as its new or current
# value ("Service account password rotated; new value X", "the token changed, current one: X")
_NEW_VALUE = lazy(r"(?<![a-z])(?:new|current|updated|latest|rotated)[ \t]{1,4}(?:value|one)[ \t]{0,4}(?:is[ \t]{1,4}|[:=][ \t]{0,4}|[ \t])"
                  r"[ \t]{0,4}(?:(?P<q>[`'\"])(?P<words>[^`'\"\n]{6,120}?)(?P=q)|[`'\"]?(?P<value>[^\s,;\"'`]{6,200}))", re.IGNORECASE)
_NEW_VALUE_REACH = 120  # how far before, on its line, the credential's word stands
_CREDENTIAL_WORD = lazy(r"(?<![a-z])(?:pass(?:word|wd|phrase|code)?|pwd|pw|secret|token|api[ _-]?key|credentials?)(?![a-z])")

_REVOKED = lazy(r"(?<![a-z])(?:revoked|revoke|rotated|invalidated|deactivated|regenerated)(?![a-z])")
# what is rotated or revoked in public: a certificate (its serial, its fingerprint), a commit, a build
_ROTATED_PUBLIC = lazy(r"(?<![a-z])(?:cert|certs|certificate|certificates|fingerprint|serial|commit|sha|hash|digest|checksum"
                       r"|id|uuid|version|release|build|image|tag|public|pubkey)(?![a-z])")


# what stays public when renamed or rotated: hex of a fingerprint's or a digest's length (a key's
# fingerprint, a certificate's, a commit), and a resource's name, lower-case words joined by `-`
# before a random suffix (`logs-prod-7fQx2Lm9Zp4Kd8Rw3`, `gl-runner-Xk29dLmQpZ7Yt4`)
_PUBLIC_HEX = lazy(r"(?:0x)?(?:[0-9a-fA-F]{16}|[0-9a-fA-F]{32}|[0-9a-fA-F]{40}|[0-9a-fA-F]{64})")
_RESOURCE_NAME = lazy(r"[a-z]{2,12}(?:-[a-z]{2,12}){0,4}-[A-Za-z0-9]{4,40}")


def _revoked_line(low: str, start: int, seen: dict[int, bool]) -> bool:
    """Does the line starting at ``start`` say an old value was revoked or rotated, naming nothing
    public that is (a certificate, a commit, a build)? Read once per line (``seen``): a line of
    many "new one X" read whole for each was quadratic."""
    if start not in seen:
        end = low.find("\n", start)
        end = len(low) if end < 0 else end
        seen[start] = _REVOKED.search(low, start, end) is not None and _ROTATED_PUBLIC.search(low, start, end) is None
    return seen[start]


def new_values(text: str, low: str) -> Iterator[Span]:
    """A value given as a credential's new or current value (see :data:`_NEW_VALUE`), judged as
    after the credential's own label; a value no label names stays unjudged."""
    if "value" not in low and "one" not in low:
        return
    revoked: dict[int, bool] = {}
    bol = scanned = 0  # (the line's start, found from where the last match's search left off)
    for m in _NEW_VALUE.finditer(text):
        bol = max(bol, text.rfind("\n", scanned, m.start()) + 1)
        scanned = m.start()
        line = max(bol, m.start() - _NEW_VALUE_REACH)
        word = None
        for word in _CREDENTIAL_WORD.finditer(low, line, m.start()):
            pass  # (the nearest before the value)
        if word is not None:
            cls = key_class(word.group().replace(" ", "_"))
        else:
            # no credential's word, but its line says the old one was revoked ("the new one is X, old
            # one revoked"): only a credential is revoked or rotated in favour of a new one
            if not _revoked_line(low, bol, revoked):
                continue
            # and no word names it, so the value must be random by itself (a file's or a chart's
            # name, `README-v2.md`, "rotated out" of a list, is no credential), and no fingerprint's
            # hex or resource's name
            value = (m.group("words") or m.group("value") or "").strip().rstrip(".:!?)")
            if " " in value or looks_fake(value) or _PUBLIC_HEX.fullmatch(value) or _RESOURCE_NAME.fullmatch(value) \
                    or not (high_entropy(value) or random_hex(value, min_len=32) or random_token(value, min_len=20)):
                continue
            cls = "secret"
        group = "value"
        if m.group("words") is not None:
            if " " in m.group("words").strip():
                # a passphrase of words in quotes (capitalised words and a number), not any quoted text
                if cls == "password" and quoted_words(m.group("words")):
                    yield "password assignment", m.start("words"), m.end("words")
                continue
            group = "words"  # one quoted token, judged as unquoted
        value = m.group(group).rstrip(".:!?)")
        kind = judge(cls, "is", value, quoted=False, code=False, ends=False) if cls in ("password", "secret") else None
        if kind:
            yield kind, m.start(group), m.start(group) + len(value)


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
# A secret printed in groups of letters and digits of one case for reading out or typing in (a
# licence server's shared secret "8O98N WNV9V ...", a recovery key, a token read over the phone):
# four groups or more of one length (4 to 8), 20 characters or more, letters and digits mixed in
# half the groups at least (words in capitals and years are neither), under the same word as hex
# groups and with no word naming them an id, a serial or a fingerprint
_ALNUM_GROUPS = lazy(r"(?<![\w:./-])(?:[A-Z0-9]{4,8}(?:[ \t][A-Z0-9]{4,8}){3,15}|[a-z0-9]{4,8}(?:[ \t][a-z0-9]{4,8}){3,15})(?![\w:./-])")
# A password spelled out one character at a time ("letter by letter: M o s a i c 2 ..."): eight
# characters or more, each alone between spaces, read together as a person's strong password
_SPELLED = lazy(r"(?<![^\s:])(?:[^\s][ \t]){7,63}[^\s](?![^\s])")
_SPELLED_REACH = 40  # how far before a spelled-out random token, on its line, the word naming it may stand


def grouped_values(text: str, low: str) -> Iterator[Span]:
    """A key in hex groups or in groups of letters and digits after a word naming it, and a
    password spelled out character by character (see :data:`_HEX_GROUPS`, :data:`_ALNUM_GROUPS`
    and :data:`_SPELLED`)."""
    # (prose is groups of lower-case letters: read them only where a word names a credential at all)
    for m in _ALNUM_GROUPS.finditer(text) if _HEAD_WORD.search(low) else ():
        groups = m.group().split()
        mixed = sum(any(c.isdigit() for c in g) and any(c.isalpha() for c in g) for g in groups)
        if len({len(g) for g in groups}) != 1 or len("".join(groups)) < 20 or 2 * mixed < len(groups):
            continue
        if all(c in string.hexdigits for c in "".join(groups)):
            continue  # hex groups in capitals (gpg prints a fingerprint so) are judged as hex groups, below
        if _named_groups(text, low, m.start()):
            yield "key written in groups", m.start(), m.end()
    for m in _HEX_GROUPS.finditer(text):
        groups = m.group().split()
        joined = "".join(groups)
        # (or decimal groups, as Signal prints its 30-digit backup passphrase: five groups or more,
        # 24 digits or more, of many digits; no phone, card or account number is that long in groups)
        digits = joined.isdigit() and len(groups) >= 5 and len(joined) >= 24 and len(set(joined)) >= 7
        if len({len(g) for g in groups}) != 1 or len(joined) == 40 or not (
                digits or (len(joined) >= 32 and random_hex(joined, min_len=32))):
            continue
        if _named_groups(text, low, m.start()):
            yield "key written in groups", m.start(), m.end()
    if text.count(" ") >= 7:
        for m in _SPELLED.finditer(text):
            joined = m.group().replace(" ", "").replace("\t", "")
            if person_password(joined, inner=False) and not is_placeholder(joined, quoted=True):
                yield "password spelled out", m.start(), m.end()
            elif random_token(joined, min_len=16) and _HEAD_WORD.search(low, max(text.rfind("\n", 0, m.start()) + 1,
                                                                                  m.start() - _SPELLED_REACH), m.start()):
                # a random token spelled out after a word naming it on its line ("pass = 9 y V j ..."):
                # letters of both cases and digits, sixteen or more, no sentence is
                yield "password spelled out", m.start(), m.end()


def _named_groups(text: str, low: str, at: int) -> bool:
    """Does a word naming a key, secret, token or password stand before the groups at ``at``, on
    their line or the line above, with no word naming them an id, a digest or a fingerprint (and
    is their line no hex dump)?"""
    # (within reach: a line of 80 KB of groups is not read back once per run)
    line = max(text.rfind("\n", max(0, at - _GROUPS_REACH), at) + 1, at - _GROUPS_REACH)
    if _HEX_DUMP_LINE.match(text, line):
        return False  # `00000010: 1a89 fa64 ...`: a dump of a file's bytes
    above = max(text.rfind("\n", max(0, line - 1 - _GROUPS_REACH), max(0, line - 1)) + 1, line - _GROUPS_REACH, 0)
    head = low[above:at]
    return _HEAD_WORD.search(head) is not None and not _GROUPS_NAMED.search(head)


# --- a value alone on the line below what names it -------------------------------------------

# A line that names a credential and ends in ":" ("config/master.key for billing (to edit X):"), or
# a shell command that prints one ("$ argocd admin initial-password -n argocd"), then a line that is
# one random token and nothing else. (A command that prints a file, `cat .vault_pass`, without a
# prompt's sign: what it printed is the file's content.)
# (a command with no prompt before it counts when it prints a secret: a keychain's or a password
# manager's read (`security find-generic-password -w`, `op read`, `pass show`, `vault kv get
# -field=`), `gh auth token`, `aws ecr get-login-password`, then what it printed; not the program
# alone: `aws s3api head-object ... --key k --query ETag` prints an object's hash)
_PRINTS_SECRET = (r"(?i:security[ \t]{1,4}find-(?:generic|internet)-password|(?:go)?pass(?:[ \t]{1,4}(?:show|-c|-o|--clip))*"
                  r"[ \t]{1,4}[^\s]{1,200}(?=[ \t]*(?:\r?\n|\Z))|op[ \t]{1,4}(?:read|item[ \t]{1,4}get)|r?bw[ \t]{1,4}get|lpass[ \t]{1,4}show"
                  r"|vault[ \t]{1,4}(?:kv[ \t]{1,4}get|read)|secret-tool[ \t]{1,4}lookup|keepassxc-cli[ \t]{1,4}show|kpcli"
                  r"|doppler[ \t]{1,4}secrets[ \t]{1,4}get|gh[ \t]{1,4}auth[ \t]{1,4}token|heroku[ \t]{1,4}(?:auth:token|config:get)"
                  r"|aws[ \t]{1,4}(?:ecr[ \t]{1,4}get-login-password|secretsmanager[ \t]{1,4}get-secret-value|ssm[ \t]{1,4}get-parameters?"
                  r"|configure[ \t]{1,4}get)"
                  r"|gcloud[ \t]{1,4}(?:auth[ \t]{1,4}(?:application-default[ \t]{1,4})?print-(?:access|identity)-token|secrets[ \t]{1,4}versions[ \t]{1,4}access)"
                  r"|az[ \t]{1,4}(?:account[ \t]{1,4}get-access-token|keyvault[ \t]{1,4}secret[ \t]{1,4}show))(?![\w-])")
_BELOW = lazy(r"^[ \t]{0,8}(?P<head>(?:[$#%>][ \t]{1,4}[^\n]{1,300}|(?i:cat|type|more|less|head|tail|bat|batcat|get-content|gc)"
              r"[ \t]{1,4}[^\s|;&<>]{1,200}|(?P<prints>" + _PRINTS_SECRET + r")[^\n]{0,300}|[^\n]{1,300}:))[ \t]*\r?\n"
              r"[ \t]{0,8}(?P<value>[^\s]{12,8000})[ \t]*\r?$", re.MULTILINE)  # (a registry's login token: ~2 KB)
_PROMPTED_SECRET = lazy(r"[$#%>][ \t]{1,4}(?:sudo[ \t]{1,4})?" + _PRINTS_SECRET)
# A command after a prompt whose words say it prints a hash or an id (`$ md5sum f`, `$ git
# rev-parse`, `$ aws s3api head-object ... --query ETag`): a digest's hex printed below it is that
# (an S3 ETag is an MD5, quoted, "-<parts>" after a multipart upload's)
_PRINTS_DIGEST = lazy(r"(?<![a-z])(?:md5|sha-?[0-9]{0,3}|(?:md5|sha[0-9]{0,3}|b2|b3|ck)sum|shasum|etag|hash(?:es)?|digest|dgst"
                      r"|checksum|rev-parse|version-?id|object-?id)(?![a-z])")
_DIGEST_PRINTED = lazy(r"[\"']?(?:[0-9a-fA-F]{32}(?:-[0-9]{1,5})?|[0-9a-fA-F]{40}|[0-9a-fA-F]{56}|[0-9a-fA-F]{64}|[0-9a-fA-F]{96}"
                       r"|[0-9a-fA-F]{128})[\"']?")
# ("user: deploy", "user deploy", "account: svc-backup": the sign may be a space, as notes write it)
# (both lines may start with the same comment or quote mark: the pair commented out in a config,
# `# user: X` then `# <value>`, or quoted in a reply, `> user: X` then `> <value>`)
_USER_THEN_VALUE = lazy(r"[ \t]{0,8}(?:(?P<mark>" + COMMENT_MARK + r")[ \t]{0,4})?"
                        r"(?i:user(?:[ _]?name)?|usr|login|account)(?:[ \t]{0,4}[:=][ \t]{0,4}|[ \t]{1,4})[^\s]{1,64}[ \t]*\r?\n"
                        r"[ \t]{0,8}(?(mark)(?P=mark)[ \t]{0,4})(?P<value>[^\s]{8,64})[ \t]*(?=\r?\n|\Z)")
# a command that signs in as a user (`ssh ops@10.20.0.5`, `su - deploy`, `mysql -u app`), then a line
# that is only a value: the password it asks for, written below it
_SIGN_IN_THEN_VALUE = lazy(r"[ \t]{0,8}(?:[$#>][ \t]{1,4})?(?:ssh|sftp|scp|telnet|ftp|su|mysql|psql|mongosh|smbclient|rdesktop"
                           r"|xfreerdp|kinit|login)(?:[ \t]{1,4}[^\s]{1,200}){0,8}?[ \t]{1,4}(?:[\w.-]{1,64}@[^\s]{1,200}|-u[ \t]?[^\s]{1,64}"
                           r"|-U[ \t]?[^\s]{1,64}|-[ \t]{1,4}[\w.-]{1,64}|[\w.-]{1,64})[ \t]*\r?\n"
                           r"[ \t]{0,8}(?P<value>[^\s]{8,64})[ \t]*(?=\r?\n|\Z)")
# a date or a time (`2026-12-06T10:00:00Z`) below a user's line: when, not a password
_WHEN = lazy(r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,9})?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?)?")
_SIGN_IN_COMMANDS = ("ssh", "sftp", "scp", "telnet", "ftp", "su ", "mysql", "psql", "mongosh", "smbclient", "rdesktop",
                     "xfreerdp", "kinit", "login")
_HEAD_WORD = lazy(r"(?<![a-z])(?:pass(?:word|wd|phrase)?|secret|token|credentials?|(?:[a-z]{2,12}[ ._-])?key)(?![a-z])")
# A question naming a credential and its answer on the next line ("Q: what's the pgadmin password?",
# then "A: X"): the answer is the value the question asks for, judged as a value after its label
_QUESTION_ANSWER = lazy(r"^(?P<head>[^\n?]{1,200})\?[ \t]*\r?\n[ \t]{0,8}(?:>[ \t]{0,2})?(?i:a|answer|antwort|r[ée]ponse|respuesta|resposta)"
                        r"[ \t]{0,2}[:.)-][ \t]{1,8}(?P<value>[^\s]{4,200})[ \t]*\r?$", re.MULTILINE)

# A chat's request for a credential ("can you paste the token again", "what's the pw for grafana?")
# and the reply below it: a line that is only the value, after the replier's header line ("Jo Park,
# 9:15 AM") or tag (`<jo>`, `jo:`, `[10:43] jo:`). The reply is the value the request names.
_ASK_WORD = lazy(r"(?<![a-z])(?:pass(?:word|wd|phrase)?|pw|pwd|secret|token|creds?|credentials?|(?:api|access|secret|private|licen[cs]e|product|wifi|wpa|auth)[ _-]?key)"
                 # the word as the thing asked for, not a noun's qualifier ("password policy?", "token fix")
                 r"(?=[ \t]{0,4}(?:[?,.!]|$|(?:for|again|to|of|on|from|pls|please|plz|you|u|we|in|here|now|back)(?![a-z])))")
_ASK_VERB = lazy(r"\?|(?<![a-z])(?:paste|send|share|give|dm|post|need|what'?s|what[ \t]is|whats)(?![a-z])")
_REPLY = lazy(r"[^\n]{1,200}\r?\n(?:[ \t]{0,8}[^\s<>\[\]][^\n]{0,58}\r?\n)??[ \t]{0,8}(?:<[\w.-]{1,32}>[ \t]{1,4}"
              r"|(?:\[[0-9:apmAPM \t]{3,12}\][ \t]{0,4})?[\w.-]{1,32}:[ \t]{1,4})?[`'\"]?(?P<value>[^\s`'\"]{8,200})[`'\"]?[ \t]*(?=\r?\n|\Z)")


def _chat_replies(text: str, low: str) -> Iterator[Span]:
    for start, end in lines_holding(low, ("pass", "pw", "secret", "token", "cred", "key")):
        head = low[start:end]
        words = _ASK_WORD.findall(head)
        if not words or not _ASK_VERB.search(head) or any(p in head for p in PUBLIC_KEY_NAMES if p not in ("host", "object", "row", "index")):
            continue
        m = _REPLY.match(text, start)
        if not m:
            continue
        value = m.group("value").rstrip(".,;")
        cls = "password" if any(w.startswith("p") for w in words) else "secret"
        # no label on the reply's line (a label line, "Branch: release/2024.11-RC2", reads as a
        # speaker's tag): judged as after one, and random or a person's password by its look alone
        # (a ticket's `JIRA-4821`, a name's `K8sSecretStore` or `ReleaseTrain-2024.11` is no credential)
        if unsigned_password(value, asked=cls == "password") and not DIGEST.fullmatch(value) and judge(cls, ":", value, quoted=False, code=False, ends=True):
            yield "credential in the reply to a request for it", m.start("value"), m.start("value") + len(value)


def values_below(text: str, low: str) -> Iterator[Span]:
    """A random token alone on the line below a label line ending in ``:`` or below a shell
    command (``$ ...``) whose words name a password, secret, token or key: what the command
    printed, or the value the line announces."""
    if "\n" not in text:
        return
    for start, _ in lines_holding(low, ("user", "usr", "login", "account")):
        m = _USER_THEN_VALUE.match(text, start)
        # "user: deploy" then a line that is only a password: the pair a login is written as
        # (not a date, nor a version, an id or settings, `v1.2.3-beta.4+build5`, `UID=0,GID=0`: name_like)
        if m and strong_unlabelled(m.group("value")) and not _WHEN.fullmatch(m.group("value")) and not name_like(m.group("value")):
            yield "password on the line below its user", m.start("value"), m.end("value")
    for start, _ in lines_holding(low, _SIGN_IN_COMMANDS):
        m = _SIGN_IN_THEN_VALUE.match(text, start)
        if m and strong_unlabelled(m.group("value")):
            yield "password on the line below its sign-in", m.start("value"), m.end("value")
    yield from _chat_replies(text, low)
    if not any(w in low for w in ("pass", "secret", "token", "key", "credential")):
        return
    for m in _QUESTION_ANSWER.finditer(text) if "?" in text else ():
        head = low[m.start("head"):m.end("head")]
        words = _HEAD_WORD.findall(head)
        if words and not any(p in head for p in PUBLIC_KEY_NAMES if p not in ("host", "object", "row", "index")):
            cls = "password" if any(w.startswith("pass") for w in words) else "secret"
            kind = judge(cls, ":", m.group("value").rstrip(".,;"), quoted=False, code=False, ends=True)
            if kind:
                yield kind, m.start("value"), m.end("value")
    for m in _BELOW.finditer(text):
        head = low[m.start("head"):m.end("head")]
        words = _HEAD_WORD.findall(head)
        if not words or any(p in head for p in PUBLIC_KEY_NAMES if p not in ("host", "object", "row", "index")):
            continue
        value = m.group("value")
        # what a keychain printed is its secret, whatever its shape; under any other command a
        # digest's hex is a digest where the command says it prints one
        prints_secret = m.group("prints") is not None or _PROMPTED_SECRET.match(head) is not None
        if is_placeholder(value, quoted=True) or identifier_like(value) or (not prints_secret and (
                DIGEST.fullmatch(value) or (head[:1] in "$#%>" and _DIGEST_PRINTED.fullmatch(value) and _PRINTS_DIGEST.search(head)))):
            continue
        if high_entropy(value) or random_token(value, min_len=12) or (len(value) >= 12 and unguessable(value)):
            yield "secret on the line below its label", m.start("value"), m.end("value")
