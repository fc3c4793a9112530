"""The classes blind31's blind corpus (``bench/data/secrets_heldout31.py``) found the gate missing,
each beside what must pass in its place (issue 23 item 5). Values are drawn from one seeded
generator; none is the corpus's string. One table: (id, body, refused?), and one of split fields.

- A URL's password that is a base64 token pasted with its ``/`` unescaped
  (``https://oauth2:<ab/cd+ef>@gitlab.example.com/...``): the ``/`` ended the password.
- A chat's request for a credential and the reply below it ("can you paste the token again", a
  header line "Jo Park, 9:15 AM", then the value alone; ``<mk> what's the pw for grafana?`` then
  ``<jo> X``).
- A new value given with no credential's word, where its line says the old one was revoked or
  rotated ("the new one is `X`, old one revoked"): a random value only.
- "creds: svc-backup X", "credentials for the NAS: admin X": the user, one space, then a password
  no word could be (only "user / X" counted).
- ``p/w`` as a password's label.
- libpq's conninfo (``host=db user=app password=walnut.Harbor99 sslmode=require``): a person's
  dotted password between a connection's keywords (only at a line's end it counted).
- A memory whose description names a login and whose body gives its user and host as rows, then
  the password alone in the next paragraph.
- Meta's Graph API access token (``EAAG...``), HubSpot's private app token (``pat-na1-<uuid>``),
  Flutterwave's secret key (``FLWSECK-<hex>-X``).
"""

from __future__ import annotations

import pytest

from secret_probe import Draw, uuid4
from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write
from vault_mem.model.secrets import find_secrets

_D = Draw(20261206_31)
_RNG = _D.rng
_TITLES = ["Thistle", "Marten", "Cobble", "Larch", "Wren", "Juniper", "Sorrel", "Pewter", "Bracken", "Alder"]
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _made() -> str:
    """A person's password: a capitalised word, a joint, a word, digits and a symbol (``Wren-larch44!``)."""
    a, b = _RNG.sample(_TITLES, 2)
    return f"{a}{_RNG.choice('_-.')}{b.lower()}{_RNG.randrange(10, 999)}{_RNG.choice('!#%&*')}"


def _dotted() -> str:
    """A capitalised word, a dot, a word and digits (``Larch.wren4821``)."""
    a, b = _RNG.sample(_TITLES, 2)
    return f"{a}.{b.lower()}{_RNG.randrange(1000, 9999)}"


def _slashed(n: int) -> str:
    """Base64 cut by a ``/`` every 12 characters or fewer, as a token is pasted unescaped (a long
    piece alone is read as a random token already)."""
    out = []
    while sum(map(len, out)) < n:
        out.append(_D.r(_RNG.randrange(6, 13), _B64.replace("/", "")))
    return "/".join(out)


def refused(body: str, *, description: str = "notes", key: str = "probe") -> bool:
    try:
        check_write(key=key, description=description, body=body, meta={})
    except SecretError:
        return True
    return False


def _urls() -> list[tuple[str, str, bool]]:
    return [
        ("url-slashed-token-git", f"git clone https://oauth2:{_slashed(56)}@gitlab.example.com/grp/repo.git", True),
        ("url-slashed-token-remote", f"origin  https://deploy:{_slashed(40)}/@git.example.org/team/app.git (fetch)", True),
        ("url-slashed-token-index", f"index-url = https://__token__:{_slashed(40)}@pypi.internal/simple", True),
        # a port and a path before an `@` are no password
        ("url-port-path-at", "http://localhost:8080/users/@me.example.com", False),
        ("url-port-scoped-package", "https://registry.example.com:443/packages/@babel.core/v7.2.0", False),
        ("url-archive-at", "https://web.archive.org:80/web/2020/https://x.com/@user.name", False),
    ]


def _chats() -> list[tuple[str, str, bool]]:
    return [
        ("chat-reply-after-header", f"Sam Lee, 9:14 AM\ncan you paste the token again\nJo Park, 9:15 AM\n{_D.r(22)}", True),
        ("chat-reply-tagged", f"<mk> what's the pw for grafana?\n<jo> {_made()}\n<mk> ty", True),
        ("chat-reply-named", f"ana: send me the pw for staging pls\nbo: {_made()}", True),
        # a question about a credential's rules, a qualifier, or a reply in words, is no request for one
        ("chat-policy-question", "what is the password policy?\nbob: 12-chars-minimum", False),
        ("chat-token-format", "what is the token format?\nJo: documented-elsewhere", False),
        ("chat-bare-key", "what key?\nbob: ctrl-shift-P4", False),
        ("chat-reply-words", "can you send the token again\nbob: sure, give me a sec", False),
        ("chat-key-fingerprint", "can you share the key fingerprint?\nbob: 3f2a9c8e1d", False),
        ("chat-reply-ticket", "can you paste the token again\nalice: JIRA-4821", False),
        ("chat-reply-words-number", "need the password again?\nbob: check-slack-thread-2024", False),
        ("chat-token-where", "where's the token stored?\nbob: /etc/app/token.txt", False),
        ("chat-token-uuid-id", f"can you send the token id for prod?\nbob: {uuid4(_RNG)}", False),
        ("chat-pw-reset-link", "what's the password reset link?\nbob: https://id.example.com/reset", False),
    ]


def _rotations() -> list[tuple[str, str, bool]]:
    return [
        ("revoked-new-one-random", f"> **dana**: the new one is `{_D.r(40)}`, old one revoked", True),
        # (40 hex named by nothing is a fingerprint's or a commit's length: public, review of blind31)
        ("rotated-new-one-hex", f"rotated it: the new one is {_D.r(40, '0123456789abcdef')}, old one revoked", False),
        # a name, a version or a file is no credential however the old one went
        ("rotated-file-name", "current one is README-v2.md, old one rotated out", False),
        ("rotated-chart", "the new one is Helm-Chart-v3.12, old one rotated", False),
        ("revoked-cert-name", "the new one is `deploy-2026-12`, the old cert was revoked", False),
        ("rotated-cert-serial", f"rotated the TLS cert, new one is {_D.r(32, '0123456789abcdef')} and the old one revoked", False),
        ("revoked-commit", f"the new one is {_D.r(40, '0123456789abcdef')}, old commit revoked", False),
    ]


def _pairs() -> list[tuple[str, str, bool]]:
    return [
        ("creds-user-space-pw", f"creds for the NAS: admin {_made()}", True),
        ("credentials-user-space-pw", f"credentials: svc-backup {_D.r(6)}*+{_D.r(6)}", True),
        ("login-user-space-pw", f"login: admin {_made()}", True),
        ("creds-words", "credentials: see the wiki page", False),
        ("login-user-via", "login: admin via SSO-Portal2", False),
        ("creds-user-path", "creds: admin ~/.ssh/id_rsa2", False),
        ("login-user-dashboard", "login: admin Kubernetes-Dashboard", False),
        ("p-slash-w", f"p/w {_D.r(28)}", True),
        ("p-slash-w-colon", f"p/w: {_made()}", True),
        ("p-slash-w-ratio", "the p/w ratio is 3.2", False),
        ("p-slash-w-path", "see /tmp/p/w/x2Gh7KLm9pQ3", False),
        ("conninfo-dotted", f'psql "host=db.internal port=5432 dbname=app user=admin password={_dotted()} sslmode=require"', True),
        ("conninfo-code-attr", "host=db user=app password=settings.pass12 sslmode=require", False),
        ("conninfo-config-name", "host=db user=app password=config.db_pw sslmode=disable", False),
    ]


def _vendors() -> list[tuple[str, str, bool]]:
    return [
        ("meta-access-token", f"got it working with EAAG{_D.r(180)}", True),
        ("hubspot-private-app", f"HUBSPOT=pat-na1-{uuid4(_RNG)}", True),
        ("flutterwave-secret", f"FLWSECK-{_D.r(32, '0123456789abcdef')}-X", True),
        ("flutterwave-public", f"FLWPUBK-{_D.r(32, '0123456789abcdef')}-X", False),
        ("hubspot-portal-id", f"HubSpot portal 4{_RNG.randrange(10**6)}, form {uuid4(_RNG)}", False),
    ]


CASES = _urls() + _chats() + _rotations() + _pairs() + _vendors()


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_blind31_classes(body: str, expected: bool) -> None:
    assert refused(body) == expected, body


# (id, description, body, refused?)
SPLIT = [
    ("login-rows-then-password", "ssh login for the build server", f"user: deploy\nhost: 10.0.4.2\n\n{_D.r(21)}", True),
    ("login-rows-then-made", "ssh login for the build server", f"user: deploy\nhost: 10.0.4.2\n\n{_made()}", True),
    ("password-rows-then-value", "build server password", f"user: deploy\nport: 22\n\n{_D.r(8)}!{_D.r(6)}", True),
    ("login-rows-then-prose", "ssh login for the build server", "user: deploy\nhost: 10.0.4.2\n\nsee the runbook for the rest", False),
    ("login-rows-only", "ssh login for the build server", "user: deploy\nhost: 10.0.4.2\nport: 22", False),
]


@pytest.mark.parametrize(("description", "body", "expected"), [c[1:] for c in SPLIT], ids=[c[0] for c in SPLIT])
def test_blind31_login_rows_then_password(description: str, body: str, expected: bool) -> None:
    assert refused(body, description=description, key="build-box") == expected, body


# --- hostile input completes ---------------------------------------------------------------------

_SIZE = 200 * 1024


@pytest.mark.parametrize("text", [
    "https://u:" + "aB3/" * (_SIZE // 4),  # a slashed password with no `@`
    "://a:" * (_SIZE // 5),  # userinfo starts with nothing after them
    "can you paste the token?\n" * (_SIZE // 25),  # requests with no reply
    "the new one is x, revoked " * (_SIZE // 26),  # rotations with no value
    "creds: admin " * (_SIZE // 13),  # users with no password
    "user=a password=b.c1 " * (_SIZE // 21),  # conninfo pairs
])
def test_a_text_made_of_blind31s_markers_completes(text: str) -> None:
    find_secrets(text[:_SIZE])  # completing is the point (each read stays within a reach)
