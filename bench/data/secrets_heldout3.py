"""The third held-out corpus for the secret gate (issue 23): written before the detector was read
for it, measured once before any change (the "before" figures in RELIABILITY.md), never tuned
against. It plays the issue's attacker: vendor tokens with unfamiliar prefixes, credentials in
the places real notes keep them (YAML, JSON, .env, INI, TOML, CLI flags, URLs, headers, cookies,
docker and kube config), prose and non-English labels, private keys of every kind, seed phrases,
JWTs, values split across a memory's fields; and look-alikes that share their shapes (object ids,
UUIDs, checksums, lockfile hashes, image digests, public keys, placeholders, versions, URLs).

Same format and generator conventions as the other corpora (``secret_gen.py``): each item is a
memory (``{"name", "class", "key", "description", "body", "meta"}``), values are random from a
seeded generator and vendor prefixes are split so no scanner flags this file.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](230517, "held3", "Notes from the week")
_RNG = _G.rng
r, words, item = _G.r, _G.words, _G.item
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, LOWER, UP, HEX, B64, URL, BECH32, D5, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL",
                                                                   "BECH32", "D5", "PK"))
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _rand_bytes(n: int) -> bytes:
    return bytes(_RNG.randrange(256) for _ in range(n))


def _uuid() -> str:
    h = r(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _jwt(claims: dict) -> str:
    def part(d: dict) -> str:
        return b64(json.dumps(d, separators=(",", ":"))).replace("+", "-").replace("/", "_").rstrip("=")
    return part({"alg": "HS256", "typ": "JWT"}) + "." + part(claims) + "." + r(43, URL)


def _pem(label: str, n: int = 320, headers: str = "") -> str:
    return f"{D5}BEGIN {label}{D5}\n{headers}{wrap(r(n, B64))}\n{D5}END {label}{D5}"


def forms() -> list[dict]:
    return [
        # --- vendor tokens with prefixes a rule table may not know ---------------------------
        item("Linear API key", "token", "li" + f"n_api_{r(40)}"),
        item("Sentry org token", "token", f"SENTRY_AUTH={'sn'}trys_{r(64, URL)}"),
        item("DigitalOcean PAT hex tail", "token", f"doctl auth init -t {'do'}p_v1_{r(64, HEX)}"),
        item("HashiCorp Vault service token", "token", f"VAULT_TOKEN=h{'vs'}.{r(90, URL)}"),
        item("GitLab runner token", "token", f"runner registered with gl{'rt'}-{r(20, URL)}"),
        item("Pulumi access token", "token", f"pu{'l'}-{r(40, HEX)}"),
        item("Shopify admin token", "token", f"store admin: sh{'pat'}_{r(32, HEX)}"),
        item("Okta SSWS header", "header", f"Authorization: SS{'WS'} 00{r(40, URL)}"),
        item("Discord bot token in config", "token",
             json.dumps({"bot": {"token": b64(str(_RNG.randrange(10**17, 10**18))).rstrip("=") + "." + r(6, URL) + "." + r(38, URL)}})),
        item("Azure client secret with tilde", "token", f'client_secret = "{r(3)}8Q~{r(34, URL + ".~")}"'),
        # --- credential positions: config formats ---------------------------------------------
        item("YAML nested pass", "assignment", "db:\n  host: pg.internal\n  user: app\n  pass: Tr0ub4dor&3x"),
        item("INI smtp secret", "assignment", f"[smtp]\nuser = mailer\nsecret = {r(24)}"),
        item("TOML registry auth_token", "assignment", f'[registry]\nurl = "https://reg.example"\nauth_token = "{r(36)}"'),
        item(".my.cnf client password", "assignment", f"[client]\nuser=root\npassword={r(14)}"),
        item("docker run -e POSTGRES_PASSWORD", "assignment", f"docker run -d -e POSTGRES_PASSWORD={r(14)} postgres:16"),
        item("mysql -p glued", "cli", f"mysql -h db.internal -u root -p{r(12)} shop"),
        item("docker login --password", "cli", f"echo ok && docker login registry.example --username bot --password {r(18)}"),
        item("sshpass -p", "cli", f"sshpass -p '{r(12)}' ssh deploy@10.0.4.12"),
        item("curl -u basic", "cli", f"curl -u admin:{r(14)} https://jenkins.internal/api/json"),
        item("docker config.json auths", "file",
             json.dumps({"auths": {"registry.example": {"auth": b64("ci-bot:" + r(20))}}}, indent=2)),
        item("kubeconfig user token", "file",
             f"users:\n- name: admin\n  user:\n    token: {r(48, LOWER)}.{r(16, LOWER)}"),
        item("kubeconfig client-key-data", "file",
             f"users:\n- name: ci\n  user:\n    client-certificate-data: {b64(_pem('CERTIFICATE', 200))}\n"
             f"    client-key-data: {b64(_pem('RSA ' + PK, 400))}"),
        item("pip index-url with token", "connection", f"index-url = https://__token__:{r(40, URL)}@pypi.example.com/simple"),
        item("redis URL empty user", "connection", f"REDIS_URL=redis://:{r(20)}@cache.internal:6379/0"),
        item("git remote oauth2", "connection", f"git remote set-url origin https://oauth2:{r(20, URL)}@gitlab.example.com/acme/app.git"),
        item("access_token in query", "connection", f"GET https://api.example.net/v2/export?format=csv&access_token={r(40)}"),
        item("Cookie header session", "header", f"Cookie: theme=dark; user_session={r(48, URL)}; logged_in=yes"),
        item("PRIVATE-TOKEN header", "header", f'curl --header "PRIVATE-TOKEN: {r(20, URL)}" https://gitlab.example.com/api/v4/projects'),
        item(".netrc Heroku UUID password", "file", f"machine api.heroku.com\n  login me@example.com\n  password {_uuid()}"),
        item("otpauth TOTP secret", "connection", f"otpauth://totp/Acme:bob?secret={r(32, B32)}&issuer=Acme"),
        # --- prose and other languages ---------------------------------------------------------
        item("wifi pw in prose", "prose", "guest wifi pw is purplemonkeydishwasher"),
        item("router password with symbols", "prose", "remember: router password = Kx9!mPq2#vL"),
        item("NAS login admin slash", "prose", f"Login for the NAS: admin / {r(10)}"),
        item("German Passwort", "language", f"Passwort für den Drucker: {r(12)}"),
        item("Spanish contraseña", "language", f"La contraseña del servidor es {r(12)}"),
        item("French mot de passe", "language", f"mot de passe : {r(12)}"),
        item("Russian пароль", "language", f"пароль от почты: {r(12)}"),
        item("Chinese 密码", "language", f"数据库密码：{r(14)}"),
        item("Portuguese senha", "language", f"senha do wifi: {r(12)}"),
        # --- private keys ---------------------------------------------------------------------
        item("PuTTY v2 key", "private key", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key-20240101\n"
             f"Public-Lines: 6\n{wrap(r(372, B64))}\nPrivate-Lines: 14\n{wrap(r(880, B64))}\nPrivate-MAC: {r(40, HEX)}"),
        item("age identity alone", "private key", "AGE-SECRET-" + "KEY-1" + r(58, BECH32.upper())),
        item("OpenSSH key", "private key", _pem("OPENSSH " + PK, 400)),
        item("PGP secret key block", "private key", _pem(f"PGP {PK} BLOCK", 500, "Comment: laptop\n\n")),
        item("PKCS8 encrypted", "private key", _pem("ENCRYPTED " + PK, 400)),
        item("EC key with Proc-Type", "private key",
             _pem("EC " + PK, 160, f"Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{r(32, HEX).upper()}\n\n")),
        item("GCP service account private_key", "private key",
             json.dumps({"type": "service_account", "private_key_id": r(40, HEX), "private_key": _pem(PK, 400) + "\n"})),
        item("WireGuard interface key", "private key", f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {b64(_rand_bytes(32))}"),
        item("Ethereum private key hex", "private key", f"wallet private key: 0x{r(64, HEX)}"),
        item("Bitcoin WIF", "private key", f"paper wallet WIF: 5{_RNG.choice('HJK')}{r(49, B58)}"),
        item("Solana keypair array", "private key", f"id.json: {json.dumps([_RNG.randrange(256) for _ in range(64)])}"),
        # --- seed phrases ---------------------------------------------------------------------
        item("seed 12 plain", "seed", "backup phrase: " + " ".join(words(12))),
        item("seed 24 comma", "seed", ", ".join(words(24))),
        item("seed split description/body", "split", " ".join(words(6)), description=" ".join(words(6))),
        # --- JWTs, encoded blobs beside credential words ------------------------------------------
        item("JWT service role", "jwt", f"SUPABASE_SERVICE_ROLE={_jwt({'role': 'service_role', 'iss': 'supabase', 'exp': 1999999999})}"),
        item("HMAC secret hex", "encoded", f"webhook HMAC secret {r(64, HEX)}"),
        item("signing secret base64", "encoded", f"signing secret: {b64(_rand_bytes(32))}"),
        item("AES key hex", "encoded", f"encryption key (AES-256): {r(64, HEX)}"),
        # --- split across fields ---------------------------------------------------------------
        item("split: description password, body value", "split", r(16), description="prod mongo password"),
        item("split: description token, body value", "split", f"{r(40, URL)}", description="CI deploy token for the registry"),
        item("split: tags name it, body value", "split", b64(_rand_bytes(32)), description="Vault unseal",
             meta={"tags": ["unseal-key", "vault"]}),
        item("split: value in tags", "split", "see tags", description="staging api key",
             meta={"tags": ["staging", r(40)]}),
    ]


def look_alikes() -> list[dict]:
    bodies = [
        f"Merged {r(40, HEX)} into main; see {r(7, HEX)} for the revert.",
        f"100644 blob {r(40, HEX)}\tREADME.md\n040000 tree {r(40, HEX)}\tsrc",
        f"request id {_uuid()} failed with 502",
        f"https://app.example.com/orders/{_uuid()}/items",
        f"sha256sum: {r(64, HEX)}  vault-mem-1.4.0.tar.gz",
        f'"integrity": "sha512-{b64(_rand_bytes(64))}"',
        f'lodash@^4.17.21:\n  version "4.17.21"\n  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{r(40, HEX)}"',
        f'[[package]]\nname = "serde"\nversion = "1.0.203"\nchecksum = "{r(64, HEX)}"',
        f"golang.org/x/sys v0.21.0 h1:{b64(_rand_bytes(32))}",
        f"image: ghcr.io/acme/api@sha256:{r(64, HEX)}",
        f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{r(340, B64)} me@laptop",
        f"authorized: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(43, B64)} deploy@ci",
        _pem("PGP PUBLIC KEY BLOCK", 400, "\n"),
        _pem("CERTIFICATE", 400),
        f"age recipient: age1{r(58, BECH32)}",
        f"[Peer]\nPublicKey = {b64(_rand_bytes(32))}\nEndpoint = vpn.example.com:51820",
        "API_TOKEN=<your-token>",
        "password: xxxx",
        "token: ${GITHUB_TOKEN}",
        'docker login --password "$REGISTRY_PASSWORD" registry.example',
        "Authorization: Bearer <token>",
        "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "AWS example key AKIAIOSFODNN7EXAMPLE from the docs",
        "Upgraded to v2.14.3-rc.1+build.20240501 and node 20.11.1",
        "clone with ssh://git@github.com/acme/app.git or https://me@github.com/acme/app.git",
        "Token docs: https://docs.example.com/api/authentication#tokens",
        f"Spec doc: https://docs.google.com/document/d/{r(44, URL)}/edit",
        f"Idempotency-Key: {_uuid()}",
        f'ETag: W/"{r(32, HEX)}"\nX-Request-Id: {r(32)}',
        "Reset the password via the admin panel; the token expires in 24h.",
        "The secret to good sourdough is patience.",
        "Password policy: at least 12 characters, one symbol, rotated yearly.",
        'token = os.environ["API_TOKEN"]\npassword = getpass.getpass("DB password: ")',
        f"bitcoin tx {r(64, HEX)} confirmed",
        f"S3 object key: uploads/2024/05/{_uuid()}.png",
        "primary key: (tenant_id, user_id); sort key: created_at",
        "The key insight: passwords are never logged, only their hashes.",
        f"bundle main.{r(8, HEX)}.js and chunk vendors.{r(20, HEX)}.js",
        f"Passwort vergessen? Link: https://example.de/reset und Hash {r(64, HEX)}",
        "Shopping list: apple, banana, bread, butter, cheese, coffee, egg, honey, lemon, milk, salad, sugar",
    ]
    out = [item(f"held3 look-alike {i}", "look-alike", body) for i, body in enumerate(bodies)]
    out.append(item("description names a password, body a vault path", "look-alike", "secret/data/prod/db#password",
                    description="Where the prod DB password lives"))
    out.append(item("description names a token, body a rotation rule", "look-alike", "every 90 days",
                    description="GitHub token rotation"))
    return out


FORMS = forms()
LOOK_ALIKES = look_alikes()
