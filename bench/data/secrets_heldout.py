"""The held-out corpus for the secret gate: written AFTER the rules were tuned on
``bench/data/secrets_fresh.py``, run once, and never tuned against (its figures are reported as
they came out, misses and false alarms included).

Same format and generator conventions as the fresh corpus: each item is a memory
(``{"name", "class", "key", "description", "body", "meta"}``), values are random from a seeded
generator and vendor prefixes are split so no scanner flags this file.
"""

from __future__ import annotations

import base64
import json
import runpy
import string
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](90210, "held", "Working notes")
_RNG = _G.rng
r, words, item = _G.r, _G.words, _G.item
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, LOWER, UP, HEX, B64, URL, BECH32, D5, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL",
                                                                   "BECH32", "D5", "PK"))


def forms() -> list[dict]:
    return [
        item("pwd yaml", "assignment", f"mysql:\n  user: report\n  pwd: {r(9)}%{r(2, string.digits)}"),
        item("login pass for X is", "assignment", f"login pass for grafana is {r(7)}"),
        item("root password was plain", "assignment", "The root password on the old server was marmaladesky"),
        item("fish set -x secret", "assignment", f"set -x MY_SERVICE_SECRET {r(30)}"),
        item("powershell env token", "assignment", f'$env:API_TOKEN = "{r(36, URL)}"'),
        item("heroku config:set webhook secret", "assignment", f"heroku config:set STRIPE_WEBHOOK_SECRET={r(32)}"),
        item("json apiKey", "assignment", f'{{"apiKey": "{r(39)}", "region": "eu"}}'),
        item("client_secret in URL query", "connection", f"https://auth.corp/token?client_id=web&client_secret={r(32)}"),
        item("mysql DATABASE_URL", "connection", f"DATABASE_URL=mysql://root:{r(12)}@10.0.0.4/app"),
        item("sftp URL", "connection", f"sftp://deploy:{r(10, LOWER)}@files.partner.com/incoming"),
        item("ADO connection string lowercase", "connection", "Server=db;Database=app;User Id=sa;Password=quietharborlamp;"),
        item("Basic auth in raw HTTP", "header", f"GET /api HTTP/1.1\nHost: ci\nAuthorization: Basic {b64('admin:' + r(12))}"),
        item("X-Auth-Token header", "header", f"X-Auth-Token: {r(40)}"),
        item("session cookie", "header", f"Cookie: session={r(48, URL)}"),
        item("pgpass with IP", "file", f"10.1.2.3:6432:billing:report:{r(16)}"),
        item("netrc multi-line words", "file", "machine nexus.corp\nlogin ci\npassword marmalade-engine-river"),
        item(".git-credentials", "file", f"https://oauth2:{r(20)}@gitlab.corp"),
        item("PuTTY v2 DSA", "private key", "PuTTY-User-Key-File-2: ssh-dss\nEncryption: aes256-cbc\nComment: imported\n"
             f"Public-Lines: 10\n{wrap(r(600, B64))}\nPrivate-Lines: 1\n{r(28, B64)}\nPrivate-MAC: {r(40, HEX)}"),
        item("OpenSSH PEM", "private key", f"{D5}BEGIN OPENSSH {PK}{D5}\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU{r(200, B64)}\n{D5}END OPENSSH {PK}{D5}"),
        item("EC PEM encrypted headers", "private key", f"{D5}BEGIN EC {PK}{D5}\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{r(32, HEX).upper()}\n\n{wrap(r(160, B64))}\n{D5}END EC {PK}{D5}"),
        item("age plugin identity", "private key", "AGE-PLUGIN-YUBIKEY-1" + r(50, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
        item("JWK RSA private", "private key", json.dumps({"kty": "RSA", "n": r(342, URL), "e": "AQAB", "d": r(342, URL), "p": r(171, URL), "q": r(171, URL)})),
        item("WireGuard PresharedKey", "private key", f"[Peer]\nPresharedKey = {b64(bytes(_RNG.randrange(256) for _ in range(32)))}"),
        item("Tor onion secret key", "private key", f"hs_ed25519_secret_key: {b64('== ed25519v1-secret: type0 ==' + r(64))}"),
        item("signify secret key", "private key", f"untrusted comment: signify secret key\nRWRCSwAAA{r(140, B64)}="),
        item("LangSmith key (hex tails)", "token", "ls" + f"v2_pt_{r(32, HEX)}_{r(10, HEX)}"),
        item("Pulumi token (hex)", "token", "pu" + f"l-{r(40, HEX)}"),
        item("Render key", "token", "rn" + f"d_{r(32)}"),
        item("xAI key", "token", "xa" + f"i-{r(80)}"),
        item("Netlify token", "token", "nf" + f"p_{r(40)}"),
        item("Terraform Cloud token", "token", f"{r(14)}.atlas" + f"v1.{r(67)}"),
        item("Discord token numeric id", "token", f"{base64.urlsafe_b64encode(str(_RNG.randrange(10**17, 10**18)).encode()).decode().rstrip('=')}.{r(6, URL)}.{r(38, URL)}"),
        item("seed 15 words", "seed", "phrase: " + " ".join(words(15))),
        item("seed 21 words comma-separated", "seed", ", ".join(words(21))),
        item("seed 12 capitalised", "seed", " ".join(w.capitalize() for w in words(12))),
        item("wifi password key, passphrase body", "split", "sunflower-meadow-91", key="wifi-password", description="Home Wi-Fi"),
        item("Mailchimp key in body", "split", f"{r(32, HEX)}-us21", description="Mailchimp API key"),
        item("2FA recovery code", "split", f"{r(5, LOWER)}-{r(5, LOWER)}", description="Recovery code for the GitHub 2FA"),
        item("pw for X: value", "assignment", f"pw for the jenkins box: {r(10)}"),
        item("shared secret prose", "assignment", f"The shared secret for the RADIUS server is {r(16)}"),
        item("ssh-keygen -N", "assignment", f"ssh-keygen -t ed25519 -N '{r(12)}' -f deploy"),
        item("kubectl from-literal", "assignment", f"kubectl create secret generic db --from-literal=password={r(12)}"),
        item("x-access-token URL", "connection", f"git clone https://x-access-token:{r(36)}@github.com/org/repo"),
    ]


def look_alikes() -> list[dict]:
    bodies = [
        f"Deployed {r(7, HEX)} to prod; full sha {r(40, HEX)}",
        f"{r(40, HEX)}\n{r(40, HEX)}\n{r(40, HEX)}",
        f"image nginx@sha256:{r(64, HEX)}",
        f"correlation-id: {r(8, HEX)}-{r(4, HEX)}-4{r(3, HEX)}-b{r(3, HEX)}-{r(12, HEX)}",
        f"idempotency key: {r(8, HEX)}-{r(4, HEX)}-4{r(3, HEX)}-8{r(3, HEX)}-{r(12, HEX)}",
        f"{r(40, HEX)}  backup-2024-10-01.tar.zst",
        f'"content_hash": "{r(64, HEX)}"',
        f'from="10.0.0.*",no-pty ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{r(300, B64)} ops@bastion',
        f"{D5}BEGIN CERTIFICATE REQUEST{D5}\n{wrap(r(400, B64))}\n{D5}END CERTIFICATE REQUEST{D5}",
        f"{D5}BEGIN RSA PUBLIC KEY{D5}\n{wrap(r(360, B64))}\n{D5}END RSA PUBLIC KEY{D5}",
        "recipients:\n" + "\n".join("age1" + r(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l") for _ in range(3)),
        f"untrusted comment: minisign public key {r(16, HEX).upper()}\nRWQ{r(53, B64)}",
        json.dumps({"keys": [{"kty": "RSA", "kid": r(8), "n": r(342, URL), "e": "AQAB", "use": "sig"}]}),
        f"[Peer]\nPublicKey = {b64(bytes(_RNG.randrange(256) for _ in range(32)))}\nEndpoint = vpn.corp:51820",
        f"signed with GPG key 0x{r(16, HEX).upper()}",
        'password: "<PASSWORD>"',
        "token=REPLACE_ME",
        "API_KEY=your_api_key_here",
        'secret: "{{ vault_secret }}"',
        "PGPASSWORD=$(pass show db/prod) psql -h db",
        "pw: ********",
        "sk" + "_test_XXXXXXXXXXXXXXXXXXXXXXXX",
        "mysql://user:pass@localhost/db",
        "redis://:${REDIS_PASSWORD}@redis:6379/0",
        f'<img src="data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ{b64(bytes(_RNG.randrange(256) for _ in range(240)))}">',
        "https://docs.python.org/3/library/secrets.html#secrets.token_urlsafe",
        "Never paste your password into chat.",
        "Tokens are rotated every 24 hours by the CI job.",
        "The secret manager is Vault; paths look like kv/data/team/service.",
        "I forgot my password again, so I used the reset link.",
        "the pw field is optional",
        "our password rule: at least 14 characters",
        "Remember: the passphrase must be four words.",
        f"Anthropic request req_011{r(21)} was rate limited",
        f"Clerk instance ins_{r(27)} in dev",
        f"asst_{r(24)} is the triage assistant",
        "Grocery list: milk egg bread butter cheese apple banana orange lemon sugar salt pepper",
        "v2.14.0-rc.1+build.20241001 and colors #3f9c2a #ffcc00",
        "PrivateKey = (hidden, see the router)",
        f"https://auth.corp/authorize?state={r(32, URL)}&code_challenge={r(43, URL)}&code_challenge_method=S256",
        "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d",
        "export GITHUB_TOKEN=$(gh auth token)",
    ]
    out = [item(f"held look-alike {i}", "look-alike", body) for i, body in enumerate(bodies)]
    out.append(item("description names a password, body a how-to", "look-alike",
                    "Use the reset link, then update 1Password.", description="Rotating the VPN password"))
    out.append(item("description names a token, body a number", "look-alike", "120000", description="Token limit for long chats"))
    return out


FORMS = forms()
LOOK_ALIKES = look_alikes()
