"""Probes of the secret gate's general classes (not a held-out set: written by the helper that made
the rules general, after reading the detector, before changing it).

Each item is a credential in a form no rule row names by example: a vendor the tables do not list
(invented prefixes), a syntax the label finders were not written for (call arguments, dictionary
literals, Makefile, Dockerfile, Erlang, Elixir, Lua, C macros, SQL options), a credential word in
a language the word tables did not hold, a positional argument after a verb that signs in, and key
material without armour. The look-alikes share the places (a credential word on the line) with
values that are not secrets: commit ids, UUIDs named as ids, digests, hashes of passwords,
encrypted values, public keys, placeholders and masks.

Measured before the general rules (``python bench/bench_secrets.py --set generic --misses``) and
after; figures in the secgen report and RELIABILITY.md. Same item format as the other corpora
(``secret_gen.py``); values come from a seeded generator, vendor-like prefixes are invented.
"""

from __future__ import annotations

import runpy
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261203, "gen", "Working notes")
r, item, pw, uuid, rb = _G.r, _G.item, _G.pw, _G.uuid, _G.rand_bytes
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, LOWER, UP, HEX, B64, URL, D5 = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL", "D5"))
PK = "PRIV" + "ATE KEY"


def forms() -> list[dict]:
    f = []
    # --- a credential word in code of many languages, the value a literal beside it
    f.append(item("go setenv", "code", f'func init() {{\n\tos.Setenv("RELAY_SIGNING_SECRET", "{r(32)}")\n}}'))
    f.append(item("elixir keyword", "code", f'config :ledger, Ledger.Repo,\n  username: "ledger",\n  password: "{pw()}",\n  hostname: "db1"'))
    f.append(item("erlang tuple", "code", f'{{ok, C}} = epgsql:connect(#{{host => "db", username => "app", password => "{pw()}"}}).'))
    f.append(item("lua table", "code", f'local cfg = {{ endpoint = "https://q.internal", api_token = "{r(40)}" }}'))
    f.append(item("c define", "code", f'#define MQTT_BROKER "10.0.0.7"\n#define MQTT_PASS "{pw(12)}"'))
    f.append(item("cpp const", "code", f'static const char* kUploadSecret = "{r(36)}";'))
    f.append(item("makefile", "config", f"DEPLOY_TOKEN ?= {r(40)}\n\ndeploy:\n\t./ship --token $(DEPLOY_TOKEN)"))
    f.append(item("dockerfile env", "config", f"FROM python:3.12-slim\nENV PIP_INDEX_TOKEN {r(44)}\nRUN pip install -r req.txt"))
    f.append(item("swift dict", "code", f'let query: [String: Any] = [kSecAttrAccount as String: "svc", kSecValueData as String: "{pw()}".data(using: .utf8)!]'))
    f.append(item("js header object", "code", f"const res = await fetch(url, {{ headers: {{ 'X-Quarry-Token': '{r(48, URL)}' }} }});"))
    f.append(item("python kwargs", "code", f'client = QuarryClient(region="eu", access_secret="{r(40)}")'))
    f.append(item("java builder", "code", f'Ledger api = Ledger.builder().endpoint(host).apiSecret("{r(40)}").build();'))
    f.append(item("kotlin named arg", "code", f'val c = Broker(user = "ingest", secret = "{r(32)}")'))
    f.append(item("ruby hash", "code", f"Fathom.configure(key: 'fth', secret: '{r(40)}')"))
    f.append(item("php array", "code", f"'mailer' => ['user' => 'noreply', 'pass' => '{pw()}'],"))
    f.append(item("csharp initializer", "code", f'var opts = new QueueOptions {{ Host = "mq1", Password = "{pw()}" }};'))
    f.append(item("yaml flow map", "config", f"auth: {{user: ci-bot, pass: {pw()}}}"))
    f.append(item("toml inline table", "config", f'[registries.corp]\nauth = {{ user = "ci", token = "{r(40)}" }}'))
    f.append(item("ini spaced key", "config", f"[relay]\nShared Secret = {r(32)}\nPort = 5555"))
    f.append(item("properties colon", "config", f"app.oauth.clientSecret : {r(40, URL)}"))
    f.append(item("jsonnet field", "config", f"{{\n  relay+: {{ hmacKey: '{r(44, B64)}' }},\n}}"))
    f.append(item("xml attribute", "config", f'<smtp host="mail.corp" user="alerts" password="{pw()}" port="587"/>'))
    f.append(item("xml credential element", "config", f'<credentials>\n  <apiSecret>{r(40)}</apiSecret>\n</credentials>'))
    # --- SQL and command lines: the value after the word, no sign
    f.append(item("sql user mapping", "sql", f"CREATE USER MAPPING FOR etl SERVER legacy OPTIONS (user 'etl', password '{pw()}');"))
    f.append(item("sql set password", "sql", f"SET PASSWORD FOR 'report'@'%' = '{pw()}';"))
    f.append(item("openssl pass", "cli", f"openssl enc -aes-256-cbc -in dump.sql -out dump.enc -pass pass:{pw()}"))
    f.append(item("zip password", "cli", f"zip -r -P {pw()} handover.zip ./handover"))
    f.append(item("vendor login positional", "cli", f"$ quarryctl login {r(40)}\nLogged in as ops@corp"))
    f.append(item("vendor auth set", "cli", f"relay auth set-token {r(44)}"))
    f.append(item("cli api-key flag", "cli", f"ledger-cli --region eu --api-key {r(36)} accounts ls"))
    f.append(item("gpg passphrase flag", "cli", f"gpg --batch --passphrase '{pw()}' -d backup.tar.gpg"))
    f.append(item("powershell secret param", "cli", f'Set-Secret -Name RelayKey -Secret "{r(36)}" -Vault Local'))
    f.append(item("curl custom header", "cli", f"curl -H 'X-Ledger-Key: {r(40)}' https://api.ledger.example/v2/accounts"))
    # --- prose with the word and the value apart
    f.append(item("prose here is key", "prose", f"Here's the signing secret Mia sent over {r(40)} -- rotate after launch"))
    f.append(item("prose token at end", "prose", f"Quarry gave us a new access token today, it is {r(40)}."))
    f.append(item("prose key in parens", "prose", f"Bucket access ({r(40)}) expires in June, that's the secret for uploads."))
    # --- other languages
    f.append(item("italian password", "prose", f"La password del router è {pw()}"))
    f.append(item("greek password", "prose", f"Ο κωδικός πρόσβασης είναι {pw()}"))
    f.append(item("persian password", "prose", f"رمز عبور سرور: {pw()}"))
    f.append(item("bengali password", "prose", f"সার্ভারের পাসওয়ার্ড: {pw()}"))
    f.append(item("ukrainian key", "prose", f"Ключ API для білінгу: {r(40)}"))
    f.append(item("spanish clave", "prose", f"La clave de la API de pagos es {r(40)}"))
    f.append(item("german schluessel", "prose", f"API-Schlüssel für das Staging: {r(40)}"))
    f.append(item("french cle", "prose", f"Clé secrète du webhook : {r(40)}"))
    f.append(item("portuguese chave", "prose", f"Chave de acesso do bucket: {r(40)}"))
    f.append(item("polish klucz", "prose", f"Klucz API do płatności: {r(40)}"))
    f.append(item("hungarian jelszo", "prose", f"A szerver jelszava: {pw()}"))
    f.append(item("dutch sleutel", "prose", f"De API-sleutel voor facturatie is {r(40)}"))
    f.append(item("japanese token no space", "prose", f"本番のトークン：{r(40)}"))
    f.append(item("chinese key sentence", "prose", f"生产环境的访问密钥为{r(40)}，请勿外传"))
    f.append(item("russian token", "prose", f"Токен бота: {r(40)}"))
    f.append(item("turkish anahtar", "prose", f"API anahtarı: {r(40)}"))
    f.append(item("vietnamese key", "prose", f"Khóa API thanh toán: {r(40)}"))
    # --- vendors no table lists: prefix shape and a random tail
    f.append(item("invented vendor live", "vendor", f"QUARRY_KEY=qry_live_{r(40)}"))
    f.append(item("invented vendor dash", "vendor", f"use ldgr-{r(48)} for the ledger sandbox"))
    f.append(item("invented upper prefix", "vendor", f"token: RLY{r(40)}"))
    f.append(item("invented dotted", "vendor", f"relay.v2.{r(48, URL)}"))
    f.append(item("brevo-like", "vendor", f"SMTP relay key: xk{'eysib'}-{r(64, HEX)}-{r(16)}"))
    f.append(item("dropbox-like short lived", "vendor", f"DROPBOX_ACCESS=sl.{r(130, URL)}"))
    f.append(item("bare base62 after key word", "vendor", f"sandbox api key {r(32)}"))
    f.append(item("hex secret after word", "vendor", f"webhook secret {r(64, HEX)}"))
    # --- key material
    f.append(item("pkcs8 unarmored", "keymat",
                  "key.pem got mangled, body only:\n" + wrap(b64(b"\x30\x82\x04\xbd\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x04\x82\x04\xa7" + rb(600)), 64)))
    f.append(item("ec unarmored", "keymat",
                  "signer: " + b64(b"\x30\x77\x02\x01\x01\x04\x20" + rb(32) + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04" + rb(64))))
    f.append(item("rsa unarmored", "keymat",
                  "RSA key body:\n" + wrap(b64(b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00" + rb(700)), 64)))
    f.append(item("generic bech32 secret", "keymat", f"NODE-SECRET-KEY-1{r(58, _GEN['BECH32']).upper()}"))
    f.append(item("pem with odd label", "keymat", f"{D5}BEGIN OPENSSH {PK}{D5}\n{wrap(r(280, B64), 70)}\n{D5}END OPENSSH {PK}{D5}"))
    f.append(item("encrypted pem", "keymat", f"{D5}BEGIN ENCRYPTED {PK}{D5}\n{wrap(r(300, B64), 64)}\n{D5}END ENCRYPTED {PK}{D5}"))
    # --- split and places
    f.append(item("description names key", "split", r(40), description="Quarry production signing secret"))
    f.append(item("yaml nested", "config", f"relay:\n  credentials:\n    secret: {r(40)}\n"))
    f.append(item("env file quoted", "env", f'RELAY_API_KEY="{r(32)}"'))
    f.append(item("json nested", "config", '{"relay": {"auth": {"clientSecret": "' + r(40, URL) + '"}}}'))
    f.append(item("hcl provider", "config", f'provider "quarry" {{\n  api_token = "{r(40)}"\n}}'))
    f.append(item("nix option", "config", f'services.quarry.settings.apiSecret = "{r(40)}";'))
    return f


def look_alikes() -> list[dict]:
    la = []
    h40, h64 = r(40, HEX), r(64, HEX)
    la.append(item("commit after token word", "id", f"The token refresh bug was fixed in commit {h40}."))
    la.append(item("sha256 after secret", "digest", f"secret-rotation.sh sha256: {h64}"))
    la.append(item("kms key id", "id", f"KMS key id: {uuid()}"))
    la.append(item("api key name", "id", "API key name: billing-reporting-prod (created by Mia)"))
    la.append(item("argon2 hash", "hash", f"password_hash = \"$argon2id$v=19$m=65536,t=3,p=4${r(22, B64)}${r(43, B64)}\""))
    la.append(item("bcrypt hash", "hash", f"UPDATE users SET password = '$2b$12${r(53, ALNUM + './')}' WHERE id = 7;"))
    la.append(item("gh actions ref", "ref", "token: ${{ secrets.NPM_TOKEN }}"))
    la.append(item("sops value", "enc", f"password: ENC[AES256_GCM,data:{r(24, B64)}=,iv:{r(43, B64)}=,tag:{r(22, B64)}==,type:str]"))
    la.append(item("placeholder angle", "placeholder", "api_key: <YOUR_API_KEY>"))
    la.append(item("masked", "placeholder", "password: ************ (see vault)"))
    la.append(item("ssh public key", "public", f"deploy key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(43, B64)} ci@build"))
    la.append(item("wireguard public", "public", f"[Peer]\nPublicKey = {r(43, B64)}=\nAllowedIPs = 10.7.0.2/32"))
    la.append(item("session id log", "id", f"session id in the logs was {uuid()}, user says the token had expired"))
    la.append(item("sri integrity", "digest", f'"integrity": "sha512-{r(86, B64)}=="'))
    la.append(item("image digest", "digest", f"image: ghcr.io/corp/relay@sha256:{h64}"))
    la.append(item("etag", "id", f'etag: "{r(32, HEX)}" (cache key for the token endpoint)'))
    la.append(item("token count", "prose", "token count: 128000, max output tokens 8192"))
    la.append(item("cache key template", "ref", 'key: v1-deps-{{ checksum "package-lock.json" }}'))
    la.append(item("ansible vault", "enc", f"db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  {r(64, '0123456789')}\n  {r(64, HEX)}"))
    la.append(item("k8s secret ref", "ref", "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password"))
    la.append(item("key id hex", "id", f'"keyId": "{r(16, HEX)}"'))
    la.append(item("webpack chunk", "id", f"bundle main.{r(20, HEX)}.js loads the token helper"))
    la.append(item("csp nonce", "id", f"Content-Security-Policy: script-src 'nonce-{r(24, B64)}'"))
    la.append(item("totp used", "prose", "2FA code 482913 already used, asked for a new token"))
    la.append(item("aws example", "doc", "aws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"))
    la.append(item("placeholder env", "placeholder", "RELAY_API_KEY=your-relay-api-key-here"))
    la.append(item("tx hash", "id", f"deploy key funded the contract, tx 0x{h64}"))
    la.append(item("btc address", "id", "send refunds to 1BoatSLRHtKNngkdXEeobR76b53LETtpyT (public key hash)"))
    la.append(item("go.sum", "digest", f"golang.org/x/crypto v0.21.0 h1:{r(43, B64)}="))
    la.append(item("secret name path", "ref", "secret: projects/ledger-prod/secrets/relay-api-key/versions/3"))
    la.append(item("password policy", "prose", "Password rules: at least 12 characters, one digit, one symbol."))
    la.append(item("request id prefix", "id", f"auth failed, request id req_{r(24)}"))
    la.append(item("italian placeholder", "placeholder", "La password è quella solita, chiedi a Luca"))
    la.append(item("chinese ref", "placeholder", "密码在 1Password 里，条目叫 staging-db"))
    la.append(item("pgp public", "public", f"{D5}BEGIN PGP PUBLIC KEY BLOCK{D5}\n\n{wrap(r(300, B64), 64)}\n{D5}END PGP PUBLIC KEY BLOCK{D5}"))
    la.append(item("fingerprint", "digest", f"host key fingerprint SHA256:{r(43, B64)}"))
    la.append(item("uuid trace", "id", f"trace: {uuid()} (auth service)"))
    la.append(item("encrypted travis", "enc", f"env:\n  secure: \"{r(344, B64)}\""))
    la.append(item("function name", "code", "def refresh_access_token_if_expired(session): ..."))
    la.append(item("secret manager arn", "ref", "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/relay-AbCdEf"))
    return la


FORMS = forms()
LOOK_ALIKES = look_alikes()
