"""Credentials in URLs and connection strings.

- URL passwords (``scheme://user:X@host``; without a scheme before an IP address or a dotted
  host; Oracle's ``user/X@//host``) and tokens in the userinfo or the DSN of a URL
  (:func:`url_passwords`, :func:`schemeless_passwords`).
- :func:`webhook_urls`: a URL whose host or path says it is a hook (``hooks.<vendor>``,
  ``/webhooks/``, ``webhook.office.com``) and whose path holds a random part: whoever has the URL
  can post to the channel, so the path is the secret.
- :func:`signed_urls`: a URL whose query names its signature or token (``sig=``, ``X-Amz-Signature=``,
  ``token=``, ``key=``) with a random value, or a secret address's ``/private-<hex>/`` part.
- :func:`scheme_urls`: stream keys and credentials in a URL of a non-web scheme.
- :func:`pgpass_lines`: ``host:port:database:user:password`` lines of a ``.pgpass`` file;
  :func:`driver_dsns`: Go driver DSNs (``user:X@tcp(host)/db``).

Each yields spans in the text it is given; a URL's password is judged by
:mod:`vault_mem.model.secret_values`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from urllib.parse import unquote

from vault_mem.model.lazy_patterns import lazy
from vault_mem.model.secret_checks import SecretFinding
from vault_mem.model.secret_text import lines_holding
from vault_mem.model.secret_tokens import Span, base36_tail
from vault_mem.model.secret_values import (
    UUID, credential_like, is_placeholder, looks_fake, random_hex, random_token, sayable, shannon_entropy, spoken,
)

__all__ = ["driver_dsns", "pgpass_lines", "scheme_urls", "schemeless_passwords", "signed_urls",
           "url_passwords", "webhook_urls"]

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
    if len(part) >= 20 and part.isalnum() and part.islower() and base36_tail(part):
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
                                                         (len(host) >= 24 and host.isalnum() and host.islower() and base36_tail(host))):
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


# --- .pgpass -------------------------------------------------------------------------------

_PGPASS = lazy(r"^[ \t]*[^\s:#][^\s:]{0,252}:(?:[0-9]{1,5}|\*):[^\s:]{1,63}:[^\s:]{1,63}:"
                     r"((?:[^\s:\\]|\\.){1,200})[ \t]*\r?$", re.MULTILINE)


# one line of it quoted in a sentence that names the file ("added `host:5432:db:user:X` to .pgpass"):
# the host a name or an address, the port a number or `*`
_PGPASS_QUOTED = lazy(r"(?P<q>[`'\"])[ \t]{0,2}(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\*):(?:[0-9]{1,5}|\*):[^\s:`'\"]{1,63}:"
                      r"[^\s:`'\"]{1,63}:((?:[^\s:\\`'\"]|\\.){1,200})[ \t]{0,2}(?P=q)")


# or standing as a word in a text that names the file ("~/.pgpass line for the replica: host:5432:*:app:X")
_PGPASS_NAMED = lazy(r"(?<![^\s])(?:[A-Za-z0-9][A-Za-z0-9.-]{0,252}|\*):(?:[0-9]{1,5}|\*):[^\s:`'\"]{1,63}:"
                     r"[^\s:`'\"]{1,63}:((?:[^\s:\\`'\"]|\\.){1,200})(?=[\s.,;)]|\Z)")


def pgpass_lines(text: str) -> Iterator[Span]:
    """``hostname:port:database:username:password`` with a literal password (not a template), on
    its own line, or quoted or standing as a word in a text that names ``.pgpass``."""
    if text.count(":") < 4:
        return
    named = "pgpass" in text.lower()
    quoted = itertools.chain(_PGPASS_QUOTED.finditer(text), _PGPASS_NAMED.finditer(text)) if named else iter(())
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


_DB_SCHEMES = frozenset({"postgres", "postgresql", "mysql", "mariadb", "mongodb", "redis", "rediss",
                         "amqp", "amqps", "mssql", "sqlserver", "oracle", "cockroachdb", "clickhouse",
                         "couchdb", "neo4j", "cassandra", "memcached", "sqlalchemy", "db2"})
# (a user may hold an `@`: vSphere's and Windows' `administrator@vsphere.local`, an e-mail address)
# (a password may end in an `@` of its own, pasted unescaped: `app:<password>@@host`; the last `@` is the one before the host)
_URL_CREDS = lazy(r"://(?P<user>[^\s:/?#\"'<>`]{0,128}):(?P<pw>[^\s/@\"'<>`]{1,256}@{0,2})@(?=[A-Za-z0-9\[])")
_SCHEME = lazy(r"(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{0,30}\Z")


# what follows userinfo's `@`: an IP address or a dotted host name (not an image digest's `:<hex>`)
_HOST_AHEAD = (r"(?=(?:[0-9]{1,3}\.){3}[0-9]{1,3}(?![0-9])|[A-Za-z0-9-]{1,63}\.[A-Za-z][A-Za-z0-9.-]{1,200}"
               r"(?![\w.-]*:[0-9a-f]{32}))")


# `admin:<password>@10.0.0.5`: userinfo without a scheme, before an IP address or a dotted host name
# (`node:20-alpine@sha256:...` has no dot after its `@`; `git@github.com:org/repo` no colon before).
_BARE_USERINFO = lazy(r"(?<![\w/:.@%+-])(?P<user>[A-Za-z0-9][\w.-]{0,63}):(?P<pw>[^\s:/@\"'<>`]{4,128}@{0,2})@"
                      + _HOST_AHEAD)


# Oracle's `user/password@//host:1521/service` (EZConnect) and `user/password@host:1521/SID`: the
# `@//` or the port before the service says it is a connect string, not a path with an `@` in it.
# (in a JDBC URL too: `jdbc:oracle:thin:user/password@//host:1521/service`)
_ORACLE_CONNECT = lazy(r"(?:(?<=:thin:)|(?<=:oci:)|(?<=:oci8:)|(?<![\w/:.@%+-]))(?P<user>[A-Za-z][\w$#]{0,29})/(?P<pw>[^\s/@\"'<>`]{4,128}@{0,2})@"
                     r"(?://[A-Za-z0-9.-]{1,200}|[A-Za-z0-9.-]{1,200}:[0-9]{2,5}/)")


# A scheme with no `//` whose URI holds userinfo (RFC 3261's `sip:user:password@host`, `sips:`, IAX's
# `iax2:user:password@host`): the same userinfo after an opaque scheme's colon
_OPAQUE_USERINFO = lazy(r"(?<![\w/:.@%+-])(?i:[a-z][a-z0-9+.-]{1,15}):(?P<user>[A-Za-z0-9][\w.+-]{0,63}):(?P<pw>[^\s:/@\"'<>`]{4,128})@"
                        + _HOST_AHEAD)


_OPAQUE_SCHEMES = frozenset({"sip", "sips", "tel", "iax", "iax2", "h323", "xmpp", "mailto", "im", "pres"})


#: userinfo written without a scheme, the sign its line must hold beside the ``@``, and the kind
_SCHEMELESS = ((_BARE_USERINFO, ":", "URL with password"), (_ORACLE_CONNECT, "/", "database URL with password"),
               (_OPAQUE_USERINFO, ":", "URL with password"))


def schemeless_passwords(text: str) -> Iterator[SecretFinding]:
    """``user:password@host`` written without a scheme (a note of how to reach a box) and
    ``user/password@//host/service`` (an Oracle connect string): the password, unless it is the
    user's name again or a placeholder. Both patterns stay on one line and start with a
    look-behind, so only the lines holding an ``@`` and the sign are read."""
    for pattern, sign, kind in _SCHEMELESS:
        for start, end in lines_holding(text, ("@",), (sign,)):
            for m in pattern.finditer(text, start, end):
                pw = m.group("pw")
                if pattern is _BARE_USERINFO and m.group("user").lower() in _OPAQUE_SCHEMES:
                    continue  # `sip:+15551234567@carrier.example`: the scheme, then its user (a phone number)
                if pw != m.group("user") and credential_like(pw) and not is_placeholder(pw, quoted=True):
                    yield SecretFinding(kind, m.start("pw"), m.end("pw"))


# a token as a URL's user, no password after it (`https://<token>@git.corp.example/team/app.git`)
_URL_TOKEN_USER = lazy(r"://(?P<token>[A-Za-z0-9_~-]{20,400})@(?=[A-Za-z0-9\[])")
_DSN_PATH = lazy(r"@[^\s/@\"'<>`]{1,253}/[0-9]{1,20}(?![^\s\"'<>`])")  # Sentry's `key@host/<project number>`


# a random token as the password with its `/` and `+` left unescaped (base64 pasted as it came:
# `https://oauth2:<ab/cd+ef>@gitlab.example.com/...`), which ends `_URL_CREDS`' password at the `/`;
# before a dotted host or an IP address only, so `http://host:8080/users/@me` stays a path
_URL_CREDS_SLASHED = lazy(r"://(?P<user>[^\s:/?#@\"'<>`]{0,128}):(?P<pw>[A-Za-z0-9+/=_.~-]{16,256})@" + _HOST_AHEAD)


def _slashed_token(pw: str) -> bool:
    """A base64 token cut by its own `/`: random in all, each cut piece no path's word. A port
    before the first `/` (`localhost:3000/assets/x/icon@2x.png`, `localhost:4000/p/X/@alice.smith`)
    or a piece that is a word one could say in lower case (`/static/`) or a `-` makes it a URL's
    path with an `@` in it, not userinfo (a `/` just before the `@` may end the token as pasted)."""
    pieces = pw.split("/")
    if len(pieces) < 2 or pieces[0].isdigit() \
            or any(p == "-" or (len(p) >= 3 and p.isalpha() and p.islower() and sayable(p)) for p in pieces):
        return False
    return random_token(pw.replace("/", "").rstrip("="), min_len=16) and not looks_fake(pw)


def url_passwords(text: str) -> Iterator[SecretFinding]:
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
    for m in _URL_CREDS_SLASHED.finditer(text) if "/" in text else ():
        if _slashed_token(m.group("pw")) and _SCHEME.search(text, max(0, m.start() - 31), m.start()):
            yield SecretFinding("URL with password", m.start("pw"), m.end("pw"))
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
