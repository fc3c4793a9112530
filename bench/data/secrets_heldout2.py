"""The second held-out corpus for the secret gate: written after the rules were fixed for the
classes the first held-out set (``secrets_heldout.py``) showed missing, run once, never tuned
against (its figures are reported as they came out, misses and false alarms included).

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
_G = _GEN["Generator"](77031, "held2", "Working notes")
_RNG = _G.rng
r, words, item = _G.r, _G.words, _G.item
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, LOWER, UP, HEX, B64, URL, BECH32, D5, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL",
                                                                   "BECH32", "D5", "PK"))


def forms() -> list[dict]:
    return [
        item("json password words", "assignment", '{"user": "ops", "password": "tangerine-velvet"}'),
        item("passwd yaml", "assignment", f"passwd: {r(3)}-{r(4)}"),
        item("yaml folded password", "assignment", f"admin_password: >-\n  {r(16)}"),
        item(".env SMTP_PASS", "assignment", "SMTP_PASS=quietlake42"),
        item("toml api_token", "assignment", f'api_token = "{r(40, URL)}"'),
        item("ini password spaced", "assignment", "[database]\nhost = db\npassword = sugarcane7"),
        item("prose laptop password", "assignment", "Jamie's laptop password is Winter2024!"),
        item("value before the label", "assignment", "use hunter2hunter2 as the password"),
        item("creds slash", "assignment", f"creds: deploy / {r(10)}"),
        item("access token prose lowercase", "assignment", f"the access token is {r(28, LOWER)}"),
        item("pw in URL query", "connection", "https://intranet.corp/login?user=bob&pw=Sunshine99"),
        item("asyncpg URL", "connection", f"postgresql+asyncpg://app:{r(14)}@db/app"),
        item("amqp guest other pw", "connection", f"amqp://guest:{r(12)}@rabbit:5672/"),
        item("email user in URL", "connection", f"https://me%40corp.com:{r(12)}@dav.corp/remote.php"),
        item("Bearer opaque hex", "header", f"Authorization: Bearer {r(32, HEX)}"),
        item("curl -u empty user", "header", f'curl -u ":{r(32)}" https://api.corp/v2/items'),
        item("X-Api-Key in curl", "header", f'curl -H "X-Api-Key: {r(40)}" https://api.corp'),
        item("wget --password=", "assignment", f"wget --user=me --password={r(12)} https://files.corp/a.iso"),
        item("pgpass localhost", "file", f"localhost:*:*:me:{r(10)}"),
        item("npmrc authToken", "file", f"//npm.corp/:_authToken={r(36, URL)}"),
        item("pypirc password", "file", f"[testpypi]\nusername = me\npassword: {r(20)}"),
        item("docker login -p", "assignment", f"docker login -u ci -p {r(20)} registry.corp"),
        item("PKCS8 in YAML block", "private key", f"tls:\n  key: |\n    {D5}BEGIN {PK}{D5}\n    {r(64, B64)}\n    {r(64, B64)}\n    {D5}END {PK}{D5}"),
        item("PuTTY v3 argon2", "private key", "PuTTY-User-Key-File-3: ecdsa-sha2-nistp256\nEncryption: aes256-cbc\nComment: laptop\n"
             f"Public-Lines: 3\n{wrap(r(140, B64))}\nKey-Derivation: Argon2id\nArgon2-Memory: 8192\nArgon2-Passes: 21\n"
             f"Argon2-Parallelism: 1\nArgon2-Salt: {r(32, HEX)}\nPrivate-Lines: 1\n{r(64, B64)}\nPrivate-MAC: {r(64, HEX)}"),
        item("age keys.txt", "private key", "# created: 2024-05-02T10:11:12Z\n# public key: age1" + r(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")
             + "\nAGE-SECRET-" + "KEY-1" + r(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
        item("JWK oct", "private key", json.dumps({"kty": "oct", "alg": "HS256", "k": r(43, URL)})),
        item("OpenSSH key in JSON string", "private key", json.dumps({"deploy_key": f"{D5}BEGIN OPENSSH {PK}{D5}\n{r(70, B64)}\n{r(70, B64)}\n{D5}END OPENSSH {PK}{D5}\n"})),
        item("GCP service account fragment", "private key", json.dumps({"type": "service_account", "project_id": "acme-prod", "private_key_id": r(40, HEX), "client_email": "ci@acme-prod.iam.gserviceaccount.com"})),
        item("PGP private block", "private key", f"{D5}BEGIN PGP {PK} BLOCK{D5}\nVersion: GnuPG v2\n\n{wrap(r(300, B64))}\n={r(4, B64)}\n{D5}END PGP {PK} BLOCK{D5}"),
        item("Ory PAT", "token", "or" + f"y_pat_{r(32)}"),
        item("Fireworks key", "token", "f" + f"w_{r(24)}"),
        item("Apify token", "token", "ap" + f"ify_api_{r(36)}"),
        item("Airtable PAT", "token", "pa" + f"t{r(14)}.{r(64, HEX)}"),
        item("Bitbucket app password", "token", "AT" + f"BB{r(32)}"),
        item("Discord login call", "token", f'client.login("{base64.urlsafe_b64encode(str(_RNG.randrange(10**18, 10**19)).encode()).decode().rstrip("=")}.{r(6, URL)}.{r(38, URL)}")'),
        item("Zapier webhook URL", "token", f"https://hooks.zapier.com/hooks/catch/{r(7, string.digits)}/{r(6, LOWER)}/"),
        item("seed numbered two columns", "seed", "\n".join(f"{i}. {a}    {i + 12}. {b}" for i, (a, b) in enumerate(zip(words(12), words(12)), 1))),
        item("seed hyphenated", "seed", "-".join(words(12))),
        item("seed 18 upper-case", "seed", " ".join(w.upper() for w in words(18))),
        item("split: credentials description, body user / pw", "split", f"admin / {r(12)}", description="Jenkins admin credentials"),
        item("split: nested auth field", "split", "CI pushes with these.", description="Registry",
             meta={"auth": {"username": "ci", "password": "lanternorchard"}}),
        item("split: aws secret key body", "split", r(40, B64), key="aws-secret", description="AWS for the backups"),
        item("base64 password in k8s secret", "assignment", f"data:\n  password: {b64('supersecret' + r(4, string.digits))}"),
    ]


def look_alikes() -> list[dict]:
    bodies = [
        f"Reverted {r(40, HEX)} after the outage.",
        f"HEAD is now at {r(7, HEX)} Fix login redirect",
        f"object {r(40, HEX)}\ntype commit\ntag v1.2.0",
        f"SHA-256: {r(64, HEX)}\nBLAKE2b-256: {r(64, HEX)}",
        f"{r(32, HEX)}  installer.pkg",
        "$2b$12$" + r(53, ALNUM + "./"),
        f"ULID {r(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')} and ksuid {r(27)}",
        f"|1|{b64(bytes(20))}|{b64(bytes(range(20)))} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(43, B64)}",
        f"{D5}BEGIN PGP SIGNATURE{D5}\n\n{wrap(r(300, B64))}\n={r(4, B64)}\n{D5}END PGP SIGNATURE{D5}",
        f"{D5}BEGIN X509 CRL{D5}\n{wrap(r(300, B64))}\n{D5}END X509 CRL{D5}",
        f"npub1{r(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')} is my nostr key",
        f"donations: bc1q{r(38, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')} or 0x{r(40, HEX)}",
        "xpub6" + r(106, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"),
        'password: "CHANGE_ME"',
        "token: <insert token>",
        'export OPENAI_API_KEY="sk-..."',
        "API_KEY=xxxxxxxxxxxxxxxx",
        'secret_key: "${SECRET_KEY:?missing}"',
        "Authorization: Bearer YOUR_TOKEN",
        "postgres://USER:PASSWORD@HOST:PORT/DB",
        "machine host login me password <password>",
        "pw: [REDACTED]",
        "Passwords are hashed with argon2id.",
        "Token refresh happens at 80% of the lifetime.",
        "The password field was renamed to passphrase.",
        "We store the secret name, not the secret.",
        "His password hint was his dog's name.",
        "She said the password is on the whiteboard.",
        "The key is to test on real hardware.",
        "API key rotation: quarterly.",
        "def get_password_hash(password: str) -> str:\n    return hasher.hash(password)",
        'password = request.form["password"]\nif token is None:\n    raise AuthError("no token")',
        'headers = {"Authorization": f"Bearer {token}"}\nconst secret = await getSecret("db")',
        f"Stripe link lnk_{r(26)} and campaign cmp_{r(28)}",
        "Packing: tent, stove, water, rope, lamp, knife, map, phone, jacket, boots, gloves, hat",
        f'"thumbnail": "data:image/webp;base64,UklGR{b64(bytes(_RNG.randrange(256) for _ in range(200)))}"',
        f"grpc payload CgQIARAB{b64(bytes(_RNG.randrange(256) for _ in range(60)))}",
        f"https://github.com/acme/api/compare/{r(7, HEX)}...{r(7, HEX)}",
        f"/Users/me/Library/Caches/pip/http-v2/{_RNG.choice(HEX)}/{_RNG.choice(HEX)}/{r(56, HEX)}",
    ]
    out = [item(f"held2 look-alike {i}", "look-alike", body) for i, body in enumerate(bodies)]
    out.append(item("description names a secret, body a path", "look-alike", "/run/secrets/db_password",
                    description="Where the DB password is mounted"))
    out.append(item("description names a token, body a duration", "look-alike", "15m", description="Access token lifetime"))
    return out


FORMS = forms()
LOOK_ALIKES = look_alikes()
