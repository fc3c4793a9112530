"""What a review of blind31's rules (``tests/test_secret_general22.py``) found them refusing that
holds no credential, beside what they must still refuse. One table: (id, body, refused?).

- The chat reply's speaker tag (``[\\w.-]{1,32}:``) took a note's label line ("Branch: X",
  "File: X") below a line asking for a token as the reply.
- The chat reply took any mixed-case word with a digit (``K8sSecretStore``,
  ``ReleaseTrain-2024.11``, ``done@15:30``): a reply must look random or be a person's password.
- A URL whose path holds an ``@`` before a dotted name (``/assets/x/icon@2x.png``,
  ``/-/verdaccio/x/@scope.pkg``) was read as ``user:password@host`` with a slashed password.
- "creds: admin 2FA+TOTP", "login: jdoe Okta+MFA": the user, one space, then words of sign-in
  methods, not a password.
- "the new one is X, old one revoked" with no credential's word: a key's fingerprint, a
  certificate's hex, a bucket's or a runner's name are public.
"""

from __future__ import annotations

import pytest

from secret_probe import Draw
from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write

_D = Draw(20261206_24)
_RNG = _D.rng
_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+"


def refused(body: str) -> bool:
    try:
        check_write(key="probe", description="notes", body=body, meta={})
    except SecretError:
        return True
    return False


def _slashed(n: int) -> str:
    out = []
    while sum(map(len, out)) < n:
        out.append(_D.r(_RNG.randrange(6, 13), _B64))
    return "/".join(out)


CASES = [
    # 1. a label line below a request is no reply
    ("reply-branch-label", "Need the token for the release script\nBranch: release/2024.11-RC2", False),
    ("reply-file-label", "Where's the secret for the webhook?\nFile: config/Webhooks.v2.yml", False),
    # 2. a reply in a name's shape is no credential
    ("reply-camel-name", "where's the token?\nbob: K8sSecretStore", False),
    ("reply-release-name", "need the api key for staging\nbob: ReleaseTrain-2024.11", False),
    ("reply-team-name", "can you send the token again\nbob: Team-Platform42", False),
    ("reply-roadmap", "need the api key for staging\nbob: Q3-2025-Roadmap", False),
    ("reply-time", "can you paste the token again\nbob: done@15:30", False),
    ("reply-versions", "where's the token?\nbob: Node18+Yarn3", False),
    # still refused: a random reply, a person's password
    ("reply-random", f"where's the token?\nbob: {_D.r(24)}", True),
    ("reply-made", f"<mk> what's the pw for grafana?\n<jo> Wren-larch{_RNG.randrange(10, 99)}!\n<mk> ty", True),
    # a person's word and number with no symbol, where a password was asked for by name; not a name's
    ("reply-made-no-symbol", f"<mk> what's the pw for grafana?\n<jo> Marten-wren{_RNG.randrange(1000, 9999)}\n<mk> ty", True),
    ("reply-pw-team-name", "<mk> what's the pw for grafana?\n<jo> Team-Platform42\n<mk> ty", False),
    # 3. an `@` in a URL's path is no userinfo
    ("url-path-icon", "http://localhost:3000/assets/index-BxK9a2Qz/icon@2x.png", False),
    ("url-path-chunk", "http://127.0.0.1:8000/static/main.7fA9b2Kc/chunk@2x.png", False),
    ("url-path-scope", "http://localhost:4873/-/verdaccio/Xk29dLmQpZ/@scope.pkg", False),
    ("url-path-user", "http://localhost:4000/p/3f9aB2kQz7Lm/@alice.smith", False),
    ("url-path-ws", "ws://localhost:3000/socket/AbCdEfGh12345/Token@host.example", False),
    # still refused: a slashed password before its host
    ("url-slashed-pw", f"git clone https://oauth2:{_slashed(56)}@gitlab.example.com/grp/repo.git", True),
    ("url-slashed-pw-port", f"https://ci:{_slashed(40)}@git.example.org:8443/team/app.git", True),
    # 4. sign-in methods after a user are no password
    ("login-okta-mfa", "login: jdoe Okta+MFA", False),
    ("creds-2fa-totp", "creds: admin 2FA+TOTP", False),
    ("creds-totp-yubikey", "creds: jdoe TOTP+YubiKey", False),
    ("creds-sso-okta", "creds: admin SSO/Okta!", False),
    ("creds-ask-ops", "creds: root ask@Ops!", False),
    ("login-gh-oidc", "login: svc-ci GH_Actions+OIDC", False),
    # still refused
    ("creds-user-made", f"creds for the NAS: admin Wren-larch{_RNG.randrange(10, 999)}!", True),
    ("creds-user-random", f"credentials: svc-backup {_D.r(6)}*+{_D.r(6)}", True),
    # 5. public identifiers rotated or renamed
    ("new-one-gpg", "gpg key rotated, the new one is 0x8F3A9C2D7B1E4F60A5D3C2B1E0F9A8B7C6D5E4F3, old one revoked", False),
    ("new-one-tls-hex", "TLS: the new one is 4b2f7a9c1d3e5f60718293a4b5c6d7e8, old one revoked", False),
    ("new-one-bucket", "Renamed the S3 bucket; new one is logs-prod-7fQx2Lm9Zp4Kd8Rw3, old one deactivated", False),
    ("new-one-runner", "runner re-registered: new one is gl-runner-Xk29dLmQpZ7Yt4, old one deactivated", False),
    # still refused: a random value, and hex after a credential's word
    ("new-one-random", f"> **dana**: the new one is `{_D.r(40)}`, old one revoked", True),
    ("new-token-hex", f"rotated the deploy token: the new one is {_D.r(40, '0123456789abcdef')}", True),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_review31_classes(body: str, expected: bool) -> None:
    assert refused(body) == expected, body
