"""A second probe set for the secret gate's general classes, written AFTER the general rules
(``secrets_generic.py`` was written before them and tuned on) and measured once, untuned: an
estimate of how the general rules do on forms they were not fitted to. Written by the same helper,
who had read the detector, so it is not blind; the blind figure is the next held-out corpus's.

Forms a developer pastes in 2026 (AI and data vendors, cloud CLIs, keychains, Expect scripts,
Spring defaults, chat replies, prose in more languages); look-alikes that put a credential word
beside a random-looking value that is not one (git log lines, OAuth state values, KMS and Vault
ciphertext, DER certificates and public keys, xkcd's documented example, bundle hashes).
Same item format as the other corpora.

RESULT, measured once and untuned (``python bench/bench_secrets.py --set generic2 --misses``, load
average ~13 on 2 CPUs): this tree (after the general rules) 42/50 forms refused (84.0%), 4/30
look-alikes refused (KMS ciphertext under ``ENCRYPTED_DB_PASSWORD``, an OAuth state value before
"token", xkcd's ``Tr0ub4dor&3`` given as an example, a data URI's base64 after "key visual");
the code before the general rules (4c3d19a) 36/50 (72.0%), 1/30. Missed: a Spring ``${VAR:default}``
default, a URL whose generated password holds an ``@`` (a corpus artefact), Arabic "الرمز السري",
a chat reply below "send me the ... pw", an Expect script's ``send "X\r"`` below ``expect
"password:"``, a token with no word at all, a Consul gossip key under ``encrypt``, a dictionary of
users and passwords with no word.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261204, "gen2", "Working notes")
r, item, pw, uuid, rb, jwt = _G.r, _G.item, _G.pw, _G.uuid, _G.rand_bytes, _G.jwt
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, UP, HEX, B64, URL, B32, D5 = (_GEN[k] for k in ("ALNUM", "UP", "HEX", "B64", "URL", "B32", "D5"))


def forms() -> list[dict]:
    f = []
    f.append(item("turso env", "env", f'export TURSO_AUTH_TOKEN="{jwt({"a": "rw", "id": uuid()}, "EdDSA", 64)}"'))
    f.append(item("resend key", "env", f"RESEND_API_KEY=re_{r(8)}_{r(24)}"))
    f.append(item("upstash rest token", "env", f"UPSTASH_REDIS_REST_TOKEN=A{r(5, UP)}AAIncDE{r(32)}"))
    f.append(item("deepgram hex", "env", f"DEEPGRAM_API_KEY={r(40, HEX)}"))
    f.append(item("elevenlabs header", "header", f"curl https://api.elevenlabs.io/v1/voices -H 'xi-api-key: sk_{r(48, HEX)}'"))
    f.append(item("neon url", "connstr", f"postgresql://neondb_owner:npg_{r(12)}@ep-cool-river-a5b6c7.eu-central-1.aws.neon.tech/neondb?sslmode=require"))
    f.append(item("openrouter prose", "prose", f"ok so the openrouter key is sk-or-v1-{r(64, HEX)}"))
    f.append(item("go resty", "code", f'client := resty.New().SetAuthToken("{r(40)}")'))
    f.append(item("rust header insert", "code", f'headers.insert("x-api-key", HeaderValue::from_static("{r(40)}"));'))
    f.append(item("spring default", "config", f"spring.mail.password=${{MAIL_PW:{pw()}}}"))
    f.append(item("tfvars", "config", f'cloudflare_api_token = "{r(40, URL)}"'))
    f.append(item("ansible inventory", "config", f"web1 ansible_host=10.0.0.4 ansible_user=deploy ansible_password={pw()}"))
    f.append(item("k8s stringData url", "config", f"stringData:\n  DATABASE_URL: postgres://app:{pw()}@db:5432/app"))
    f.append(item("pip conf token", "config", f"[global]\nindex-url = https://__token__:{r(40)}@pypi.corp.example/simple"))
    f.append(item("docker run env", "cli", f"docker run -d -e MINIO_ROOT_USER=admin -e MINIO_ROOT_PASSWORD={pw()} minio/minio server /data"))
    f.append(item("pgpassword", "cli", f"PGPASSWORD='{pw()}' psql -h db -U app -c 'select 1'"))
    f.append(item("mongosh password", "cli", f'mongosh "mongodb+srv://cluster0.abcd.mongodb.net/" --username app --password {pw()}'))
    f.append(item("macos keychain", "cli", f"security add-generic-password -a ci -s registry.corp -w '{pw()}'"))
    f.append(item("op item create", "cli", f"op item create --category login --title grafana username=ci password='{pw()}'"))
    f.append(item("french jeton", "prose", f"Voici le jeton d'accès : {r(40)}"))
    f.append(item("italian token", "prose", f"Il token di produzione è {r(40)}"))
    f.append(item("korean api key", "prose", f"API 키: {r(32)}"))
    f.append(item("hindi password", "prose", f"मेरा पासवर्ड है {pw()}"))
    f.append(item("arabic secret code", "prose", f"الرمز السري للخادم: {pw()}"))
    f.append(item("japanese brackets", "prose", f"DBのパスワードは「{pw()}」です"))
    f.append(item("chat reply", "chat", f"> can u send me the grafana admin pw\n> sure: {pw()}"))
    f.append(item("helm set", "cli", f"helm upgrade kc bitnami/keycloak --set auth.adminPassword={pw()}"))
    f.append(item("cookie header", "header", f"Cookie: __Host-session={r(43, URL)}; theme=dark"))
    f.append(item("json escaped pem", "keymat", json.dumps({"ssh_key": f"{D5}BEGIN OPENSSH PRIV" + f"ATE KEY{D5}\n{wrap(r(200, B64), 70)}\n{D5}END OPENSSH PRIV" + f"ATE KEY{D5}\n"})))
    f.append(item("otpauth uri", "url", f"otpauth://totp/Corp:ops?secret={r(32, B32)}&issuer=Corp"))
    f.append(item("wireguard private", "keymat", f"[Interface]\nPrivateKey = {b64(rb(32))}\nAddress = 10.7.0.2/32"))
    f.append(item("expect script", "code", f'spawn ssh admin@10.0.0.9\nexpect "password:"\nsend "{pw()}\\r"'))
    f.append(item("bitwarden json", "config", json.dumps({"login": {"username": "ci", "password": pw(), "totp": None}})))
    f.append(item("url in prose", "url", f"hit https://admin:{pw()}@grafana.corp.example/api/health to check"))
    f.append(item("description names key", "split", r(40), description="Langfuse secret key (prod)"))
    f.append(item("azure client secret", "env", f"AZURE_CLIENT_SECRET={r(6)}8Q~{r(31, ALNUM + '~._-')}"))
    f.append(item("tencent", "config", f"SecretId: AKID{r(32)}\nSecretKey: {r(32)}"))
    f.append(item("yandex oauth", "env", f"YC_TOKEN=y0_{r(50, URL)}"))
    f.append(item("prose no word", "prose", f"I rotated it; new one: {r(48)}"))
    f.append(item("consul gossip", "config", f'encrypt = "{b64(rb(32))}"'))
    f.append(item("nomad token", "env", f"NOMAD_TOKEN={uuid()}"))
    f.append(item("python dict users", "code", f'USERS = {{"alice": "{pw()}", "bob": "{pw()}"}}'))
    f.append(item("unseal key", "prose", f"Unseal Key 1: {b64(rb(33))}"))
    f.append(item("jupyter url", "url", f"http://127.0.0.1:8888/lab?token={r(48, HEX)}"))
    f.append(item("matrix token", "env", f"MATRIX_TOKEN=syt_{b64('ops-bot').rstrip('=')}_{r(20)}_{r(6)}"))
    f.append(item("trello", "env", f"TRELLO_KEY={r(32, HEX)}\nTRELLO_TOKEN=ATTA{r(64, HEX)}{r(8, HEX).upper()}"))
    f.append(item("german lautet", "prose", f"Das Token für die Staging-API lautet {r(40)}"))
    f.append(item("polish to", "prose", f"Hasło do routera to {pw()}"))
    f.append(item("value on next line after question", "chat", f"what's the sentry auth token?\n{r(64, HEX)}"))
    f.append(item("pkcs8 in json", "keymat", json.dumps({"type": "service_account", "key": b64(b"\x30\x82\x04\xbe\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x04\x82\x04\xa8" + rb(300))})))
    return f


def look_alikes() -> list[dict]:
    la = []
    la.append(item("git log line", "id", f"{r(40, HEX)} (HEAD -> main) fix token refresh race"))
    la.append(item("secrets manager pointer", "ref", "The API key is stored in AWS Secrets Manager under prod/stripe-key"))
    la.append(item("image digest near password", "digest", f"image: quay.io/keycloak/keycloak@sha256:{r(64, HEX)}\nKEYCLOAK_ADMIN_PASSWORD: ${{KC_PW}}"))
    la.append(item("sri jsonwebtoken", "digest", f'"node_modules/jsonwebtoken": {{"integrity": "sha512-{r(86, B64)}=="}}'))
    la.append(item("jwt encode code", "code", 'token = jwt.encode(payload, settings.SECRET_KEY, algorithm="HS256")'))
    la.append(item("pbkdf2 hash", "hash", f'password_hash: "$pbkdf2-sha256$29000${r(22, URL)}${r(43, URL)}"'))
    la.append(item("api key id uuid", "id", f'api_key_id: "{uuid()}"'))
    la.append(item("token budget", "prose", "reset the token budget to 200000 tokens per day"))
    la.append(item("gcp secret name", "ref", 'secret_name = "projects/123456789/secrets/db-password/versions/latest"'))
    la.append(item("helm template", "ref", "token: {{ .Values.apiToken | b64enc }}"))
    la.append(item("ssh host key", "public", f"host key ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{r(88, B64)}="))
    la.append(item("kms ciphertext", "enc", f"ENCRYPTED_DB_PASSWORD=AQICAHh{r(200, B64)}"))
    la.append(item("der certificate", "public", "tls.crt: " + b64(b"\x30\x82\x03\x77\x30\x82\x02\x5f\xa0\x03\x02\x01\x02\x02\x04" + rb(200)) + "\ntls.key: (from the vault)"))
    la.append(item("der public key", "public", "public key: " + b64(b"\x30\x82\x01\x22\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x03\x82\x01\x0f\x00" + rb(200))))
    la.append(item("oauth state", "id", f"the state param was {r(32)} and the token exchange failed with invalid_grant"))
    la.append(item("request id before token", "id", f"request {r(32)} failed: invalid token"))
    la.append(item("trace ids", "id", f"span {r(16, HEX)} trace {r(32, HEX)} for the auth call"))
    la.append(item("pnpm cache key", "digest", f"cache-key: pnpm-store-{r(64, HEX)}"))
    la.append(item("bearer placeholder", "placeholder", "Authorization: Bearer <token>"))
    la.append(item("masked key", "placeholder", f"OPENAI_API_KEY=sk-...{r(4)}"))
    la.append(item("xkcd example", "doc", "Password rules: 12-64 characters; e.g. Tr0ub4dor&3 is weak, a passphrase is better"))
    la.append(item("vault transit", "enc", f"secret: vault:v1:{r(60, B64)}"))
    la.append(item("data uri", "id", f"key visual: ![logo](data:image/png;base64,iVBORw0KGgo{r(120, B64)})"))
    la.append(item("csharp guid", "id", f'[Guid("{uuid()}")]\npublic interface IKeyStore {{ }}'))
    la.append(item("vite output", "id", f"dist/assets/index-{r(8, URL)}.js  token-utils-{r(8, URL)}.js"))
    la.append(item("sentry dsn", "public", f'Sentry.init({{ dsn: "https://{r(32, HEX)}@o4506.ingest.sentry.io/4507" }})'))
    la.append(item("password reset link prose", "prose", f"password reset link expired: https://app.corp.example/reset/{r(40, URL)}"))
    la.append(item("npm lock resolved", "digest", f'"resolved": "https://registry.npmjs.org/jsonwebtoken/-/jsonwebtoken-9.0.2.tgz", "integrity": "sha1-{r(27, B64)}="'))
    la.append(item("openssl fingerprint", "digest", "SHA256 Fingerprint=" + ":".join(r(2, "0123456789ABCDEF") for _ in range(32)) + " (server key)"))
    la.append(item("ethereum address", "id", f"deployer key address 0x{r(40, HEX)}"))
    return la


FORMS = forms()
LOOK_ALIKES = look_alikes()
