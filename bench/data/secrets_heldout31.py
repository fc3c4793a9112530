"""blind31's held-out corpus (issue 23 item 5): written at b32e501 BLIND, before reading any file
under vault_mem/, any earlier secrets_* corpus (beyond the first 30 lines of heldout30, for the
module shape) or any secret test; only bench_secrets.py's loader was read, for the item format.
Vendors and shapes come from the writer's own knowledge and may overlap earlier corpora. Measured
once on main (the blind figure) before any fix.

Credential forms as a person pastes them into a memory (FORMS, each must be refused): real prose,
config snippets, shell history, chat logs, tables, split across fields, other languages; most are
recognisable only by shape and place, not by a vendor prefix. Look-alikes a developer's memory
really holds (LOOK_ALIKES, each must pass): object ids, UUIDs, checksums, public keys, placeholders,
base64 images, lockfile hashes, test vectors, docs about tokens, pointers to where a secret lives.
Random parts come from a fixed seed, so the corpus is the same on every run.
``python bench/bench_secrets.py --set heldout31 --misses``.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid

_rng = random.Random(3131)
_AN = string.ascii_letters + string.digits
_LOW = string.ascii_lowercase + string.digits
_UP = string.ascii_uppercase + string.digits
_HEX = "0123456789abcdef"
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_PUNCT = "!@#%^&*_-+=?."

FORMS: list[dict] = []
LOOK_ALIKES: list[dict] = []


def _s(n: int, alphabet: str = _AN) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    return _s(n, _HEX)


def _b64(nbytes: int) -> str:
    return base64.b64encode(_rng.randbytes(nbytes)).decode()


def _b64url(nbytes: int) -> str:
    return base64.urlsafe_b64encode(_rng.randbytes(nbytes)).decode().rstrip("=")


def _uuid() -> str:
    return str(uuid.UUID(int=_rng.getrandbits(128), version=4))


_WORDS = ("river", "falcon", "copper", "maple", "orbit", "velvet", "harbor", "tiger", "lemon", "cobalt",
          "prairie", "saturn", "walnut", "glacier", "violet", "ember", "meadow", "pixel", "quartz", "summit")


def _pw() -> str:
    """A password as people make them: random, or words + digits + a symbol."""
    kind = _rng.randrange(4)
    if kind == 0:
        return _s(_rng.randint(14, 24), _AN + _PUNCT)
    if kind == 1:
        return _rng.choice(_WORDS).capitalize() + _rng.choice("-_.!") + _rng.choice(_WORDS) + str(_rng.randint(10, 9999))
    if kind == 2:
        return _s(_rng.randint(18, 32), _AN)
    return "".join(_rng.choice(_WORDS).capitalize() for _ in range(3)) + _rng.choice(_PUNCT) + str(_rng.randint(1, 99))


def _tok() -> str:
    """An opaque API token with no vendor prefix."""
    kind = _rng.randrange(4)
    if kind == 0:
        return _s(_rng.randint(32, 48))
    if kind == 1:
        return _hex(_rng.choice((32, 40, 64)))
    if kind == 2:
        return _b64url(_rng.choice((24, 32, 48)))
    return _b64(_rng.choice((30, 33, 45)))


def _jwt() -> str:
    head = base64.urlsafe_b64encode(json.dumps({"alg": _rng.choice(("HS256", "RS256", "ES256")), "typ": "JWT"}).encode()).decode().rstrip("=")
    claims = {"sub": _uuid(), "iat": 1796000000 + _rng.randrange(10**6), "exp": 1797000000 + _rng.randrange(10**6),
              "scope": _rng.choice(("read write", "admin", "openid profile email"))}
    body = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    return f"{head}.{body}.{_b64url(_rng.choice((32, 64)))}"


def _pem_body(nbytes: int) -> str:
    raw = _b64(nbytes)
    return "\n".join(raw[i:i + 64] for i in range(0, len(raw), 64))


_KEYS = ("ops-notes", "deploy-runbook", "staging-setup", "laptop-setup", "db-migration", "onboarding",
         "incident-notes", "ci-pipeline", "home-lab", "vendor-accounts", "team-chat", "cluster-access")

_n = {"f": 0, "l": 0}


def F(cls: str, body: str, description: str = "notes from today", key: str | None = None) -> None:
    _n["f"] += 1
    FORMS.append({"name": f"{cls}-{_n['f']}", "class": cls, "key": key or _rng.choice(_KEYS),
                  "description": description, "body": body, "meta": {}})


def L(cls: str, body: str, description: str = "notes from today", key: str | None = None) -> None:
    _n["l"] += 1
    LOOK_ALIKES.append({"name": f"{cls}-{_n['l']}", "class": cls, "key": key or _rng.choice(_KEYS),
                        "description": description, "body": body, "meta": {}})


# ---------------------------------------------------------------- forms

# 1. assignments in config files, no vendor prefix
_NAMES = ("password", "passwd", "pwd", "secret", "api_key", "apiKey", "access_token", "auth_token", "client_secret",
          "db_password", "DB_PASS", "private_token", "signing_key", "webhook_secret", "SECRET_KEY", "app_secret",
          "MASTER_KEY", "encryption_key", "session_secret", "refresh_token", "consumer_secret", "bot_token",
          "admin_password", "smtp_pass", "redis_password", "ldap_bind_password", "JWT_SECRET", "hmac_key")
for i, name in enumerate(_NAMES):
    v = _pw() if "pass" in name.lower() or "pwd" in name.lower() else _tok()
    shape = i % 7
    if shape == 0:
        F("assign", f"Current staging env:\n\n```\n{name.upper()}={v}\nLOG_LEVEL=debug\n```")
    elif shape == 1:
        F("assign", f"config.yaml for the worker:\n\n```yaml\nworker:\n  host: 10.0.3.12\n  {name}: {v}\n  retries: 3\n```")
    elif shape == 2:
        F("assign", f'settings.json has `"{name}": "{v}",` near the top; keep it.')
    elif shape == 3:
        F("assign", f"[service]\nurl = https://internal.example.net\n{name} = \"{v}\"\ntimeout = 30")
    elif shape == 4:
        F("assign", f"In application.properties: spring.datasource.{name}={v}")
    elif shape == 5:
        F("assign", f'variable "{name}" {{\n  default = "{v}"\n}}')
    else:
        F("assign", f"<add key=\"{name}\" value=\"{v}\" />  -- from web.config")
for name in ("token", "key", "secret", "pass", "credential", "auth"):
    F("assign", f"set {name}: {_tok()} in the .env before running make dev")

# 2. connection strings
for i in range(40):
    u = _rng.choice(("app", "admin", "svc_reporting", "root", "deploy", "etl"))
    p = _pw() if i % 2 else _tok()
    h = _rng.choice(("db.internal", "10.20.0.5", "pg-prod.cluster-c9x.eu-west-1.rds.amazonaws.com", "mongo0.lan", "cache.local"))
    form = i % 10
    if form == 0:
        F("connstr", f"DATABASE_URL=postgres://{u}:{p}@{h}:5432/app")
    elif form == 1:
        F("connstr", f"reporting reads from mysql://{u}:{p}@{h}/analytics?ssl=true")
    elif form == 2:
        F("connstr", f"mongodb+srv://{u}:{p}@cluster0.{_s(5, _LOW)}.mongodb.net/?retryWrites=true")
    elif form == 3:
        F("connstr", f"Celery broker: redis://:{p}@{h}:6379/0")
    elif form == 4:
        F("connstr", f"amqp://{u}:{p}@{h}:5672/vhost")
    elif form == 5:
        F("connstr", f"Server=tcp:{h},1433;Initial Catalog=Orders;User ID={u};Password={p};Encrypt=True;")
    elif form == 6:
        F("connstr", f"jdbc:postgresql://{h}:5432/billing?user={u}&password={p}")
    elif form == 7:
        F("connstr", f"DRIVER={{ODBC Driver 18 for SQL Server}};SERVER={h};UID={u};PWD={p}")
    elif form == 8:
        F("connstr", f"DefaultEndpointsProtocol=https;AccountName={_s(10, _LOW)};AccountKey={_b64(64)};EndpointSuffix=core.windows.net")
    else:
        F("connstr", f"psql \"host={h} port=5432 dbname=app user={u} password={p} sslmode=require\"")

# 3. auth headers
for i in range(36):
    form = i % 9
    t = _tok()
    if form == 0:
        F("authhdr", f"Authorization: Bearer {t}")
    elif form == 1:
        creds = base64.b64encode(f"{_rng.choice(('admin', 'ci', 'jenkins'))}:{_pw()}".encode()).decode()
        F("authhdr", f"the proxy wants `Authorization: Basic {creds}`")
    elif form == 2:
        F("authhdr", f"curl -s -H 'X-API-Key: {t}' https://api.internal/v2/items")
    elif form == 3:
        F("authhdr", f"curl -H \"Authorization: Token {t}\" https://ci.example.org/api/builds")
    elif form == 4:
        F("authhdr", f"requests.get(url, headers={{\"Authorization\": \"Bearer {t}\"}})")
    elif form == 5:
        F("authhdr", f"GET /metrics HTTP/1.1\nHost: grafana.lan\nX-Auth-Token: {t}\nAccept: */*")
    elif form == 6:
        F("authhdr", f"Cookie: sessionid={_s(32, _LOW)}; csrftoken={_s(32)}")
    elif form == 7:
        F("authhdr", f"http --auth-type=bearer --auth {t} GET :8080/admin")
    else:
        F("authhdr", f"fetch(url, {{ headers: {{ 'api-key': '{t}' }} }})")

# 4. credential files: .pgpass, .netrc, .git-credentials, .npmrc, pip.conf, docker config
for i in range(35):
    form = i % 7
    p = _pw()
    if form == 0:
        F("credfile", f"~/.pgpass:\n\n{_rng.choice(('db.internal', '*', 'localhost'))}:5432:*:{_rng.choice(('app', 'postgres'))}:{p}")
    elif form == 1:
        F("credfile", f"machine api.heroku.com\n  login me@example.com\n  password {_tok()}")
    elif form == 2:
        F("credfile", f".netrc line: machine ftp.vendor.net login upload password {p}")
    elif form == 3:
        F("credfile", f"~/.git-credentials has https://{_rng.choice(('me', 'oauth2', 'x-token'))}:{_tok()}@git.example.com")
    elif form == 4:
        F("credfile", f"//npm.internal.example/:_authToken={_uuid() if i % 2 else _tok()}")
    elif form == 5:
        auth = base64.b64encode(f"robot:{_tok()}".encode()).decode()
        F("credfile", f'~/.docker/config.json\n{{"auths": {{"registry.example.com": {{"auth": "{auth}"}}}}}}')
    else:
        F("credfile", f"[global]\nindex-url = https://__token__:{_tok()}@pypi.internal/simple")

# 5. private key blocks of every kind
_PEMS = ("RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY", "DSA PRIVATE KEY",
         "ENCRYPTED PRIVATE KEY")
for i in range(18):
    kind = _PEMS[i % len(_PEMS)]
    block = f"-----BEGIN {kind}-----\n{_pem_body(_rng.choice((120, 400, 900)))}\n-----END {kind}-----"
    if i % 3 == 0:
        F("privkey", f"deploy key for the box:\n\n{block}")
    elif i % 3 == 1:
        F("privkey", f"```\n{block}\n```")
    else:
        esc = block.replace("\n", "\\n")
        F("privkey", f'"private_key": "{esc}"')
for _ in range(4):
    F("privkey", f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{_pem_body(600)}\n={_b64(3)}\n-----END PGP PRIVATE KEY BLOCK-----")
for _ in range(4):
    F("privkey", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20261130\nPublic-Lines: 2\n"
                 f"{_pem_body(51)}\nPrivate-Lines: 1\n{_b64(36)}\nPrivate-MAC: {_hex(64)}")
for _ in range(4):
    F("privkey", f"# created: 2026-11-30T10:00:00Z\n# public key: age1{_s(58, _BECH)}\nAGE-SECRET-KEY-1{_s(58, _BECH).upper()}")
for _ in range(4):
    F("privkey", f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {_b64(32)}\nDNS = 1.1.1.1")
for _ in range(3):
    F("privkey", f"untrusted comment: minisign encrypted secret key\n{_b64(158)}")
for _ in range(3):
    F("privkey", json.dumps({"kty": "EC", "crv": "P-256", "x": _b64url(32), "y": _b64url(32), "d": _b64url(32)}))
for _ in range(3):
    F("privkey", f"wallet export, private key: 0x{_hex(64)}")
for _ in range(3):
    F("privkey", f"bitcoin WIF for the cold wallet: 5{_rng.choice('HJK')}{_s(49, _B58)}")
for _ in range(2):
    F("privkey", f"PuTTY-User-Key-File-2: ssh-rsa\nEncryption: aes256-cbc\nComment: rsa-key-2025\nPublic-Lines: 6\n{_pem_body(270)}\n"
                 f"Private-Lines: 14\n{_pem_body(640)}\nPrivate-MAC: {_hex(40)}")

# 6. seed phrases (BIP-39 words)
_BIP = ("abandon ability able about above absent absorb abstract absurd abuse access accident account accuse "
        "achieve acid acoustic acquire across act action actor actress actual adapt add addict address adjust "
        "admit adult advance advice aerobic affair afford afraid again age agent agree ahead aim air airport "
        "aisle alarm album alcohol alert alien all alley allow almost alone alpha already also alter always "
        "amateur amazing among amount amused analyst anchor ancient anger angle angry animal ankle announce "
        "annual another answer antenna antique anxiety any apart apology appear apple approve april arch arctic "
        "area arena argue arm armed armor army around arrange arrest arrive arrow art artist artwork ask aspect "
        "assault asset assist assume asthma athlete atom attack attend attitude attract auction audit august "
        "aunt author auto autumn average avocado avoid awake aware away awesome awful awkward axis "
        "zoo zone zero youth year yellow wrong write world wolf win wine winter wisdom witness woman wood wool "
        "word work worth wrap wreck wrestle wrist").split()
for i in range(24):
    n = (12, 24, 18, 15)[i % 4]
    words = [_rng.choice(_BIP) for _ in range(n)]
    form = i % 6
    if form == 0:
        F("seed", f"recovery phrase for the ledger: {' '.join(words)}")
    elif form == 1:
        F("seed", "seed words:\n" + "\n".join(f"{k + 1}. {w}" for k, w in enumerate(words)))
    elif form == 2:
        F("seed", json.dumps({"mnemonic": " ".join(words), "path": "m/44'/60'/0'/0"}))
    elif form == 3:
        F("seed", " ".join(words), description="metamask backup")
    elif form == 4:
        F("seed", "| # | word |\n|---|---|\n" + "\n".join(f"| {k + 1} | {w} |" for k, w in enumerate(words)))
    else:
        F("seed", f"MNEMONIC=\"{' '.join(words)}\"")

# 7. cloud CLI outputs
for i in range(45):
    form = i % 9
    if form == 0:
        F("cloudcli", "$ aws sts get-session-token\n" + json.dumps({"Credentials": {
            "AccessKeyId": "ASIA" + _s(16, _UP), "SecretAccessKey": _s(40, _AN + "/+"),
            "SessionToken": _b64(240), "Expiration": "2026-12-06T12:00:00Z"}}, indent=2))
    elif form == 1:
        F("cloudcli", "$ az storage account keys list -g rg-prod -n stprod01\n" + json.dumps([
            {"creationTime": "2026-11-01T10:00:00+00:00", "keyName": "key1", "permissions": "FULL", "value": _b64(64)},
            {"creationTime": "2026-11-01T10:00:00+00:00", "keyName": "key2", "permissions": "FULL", "value": _b64(64)}], indent=2))
    elif form == 2:
        F("cloudcli", f"$ gcloud auth print-access-token\nya29.{_s(150, _AN + '-_')}")
    elif form == 3:
        F("cloudcli", "$ az ad sp create-for-rbac --name ci-deployer\n" + json.dumps({
            "appId": _uuid(), "displayName": "ci-deployer", "password": _s(40, _AN + "~._-"), "tenant": _uuid()}, indent=2))
    elif form == 4:
        F("cloudcli", json.dumps({"type": "service_account", "project_id": "acme-prod", "private_key_id": _hex(40),
                                  "client_email": "ci@acme-prod.iam.gserviceaccount.com", "client_id": str(_rng.randrange(10**20))}, indent=2))
    elif form == 5:
        F("cloudcli", "$ aws iam create-access-key --user-name ci\n" + json.dumps({"AccessKey": {
            "UserName": "ci", "AccessKeyId": "AKIA" + _s(16, _UP), "Status": "Active",
            "SecretAccessKey": _s(40, _AN + "/+")}}, indent=2))
    elif form == 6:
        F("cloudcli", f"$ vault token create -ttl=1h\nKey                  Value\n---                  -----\ntoken                hvs.{_s(90, _AN + '_-')}\ntoken_accessor       {_s(24)}\ntoken_duration       1h")
    elif form == 7:
        F("cloudcli", f"$ heroku auth:token\n {_uuid()}")
    else:
        F("cloudcli", f"[default]\naws_access_key_id = {_s(20, _UP)}\naws_secret_access_key = {_s(40, _AN + '/+')}\nregion = eu-west-1")

# 8. kubeconfig and kubernetes secrets
for i in range(24):
    form = i % 4
    if form == 0:
        F("kube", f"users:\n- name: ci\n  user:\n    token: {_jwt() if i % 8 else _s(64, _LOW)}")
    elif form == 1:
        F("kube", f"users:\n- name: admin\n  user:\n    client-certificate-data: {_b64(300)}\n    client-key-data: {_b64(900)}")
    elif form == 2:
        F("kube", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n  username: {base64.b64encode(b'app').decode()}\n  password: {base64.b64encode(_pw().encode()).decode()}")
    else:
        F("kube", f"kubectl create secret generic api --from-literal=API_TOKEN={_tok()}")

# 9. JWTs in cookies, storage, URLs
for i in range(25):
    form = i % 5
    j = _jwt()
    if form == 0:
        F("jwt", f"Set-Cookie: access_token={j}; Path=/; HttpOnly; Secure")
    elif form == 1:
        F("jwt", f"localStorage.getItem('id_token') returned {j}")
    elif form == 2:
        F("jwt", f"redirected to https://app.example.com/callback#access_token={j}&token_type=Bearer&expires_in=3600")
    elif form == 3:
        F("jwt", f"the session cookie was {j} when it broke")
    else:
        F("jwt", j, description="jwt for testing the admin api")

# 10. basic-auth URLs
for i in range(30):
    u = _rng.choice(("alice", "deploy", "ci-bot", "svc"))
    p = _pw() if i % 3 else _tok()
    form = i % 6
    if form == 0:
        F("basicurl", f"$ git remote -v\norigin  https://{u}:{p}@gitlab.example.com/team/app.git (fetch)")
    elif form == 1:
        F("basicurl", f"export https_proxy=http://{u}:{p}@proxy.corp:3128")
    elif form == 2:
        F("basicurl", f"the status page lives at https://{u}:{p}@status.internal/")
    elif form == 3:
        F("basicurl", f"<repository><url>https://{u}:{p}@nexus.example.com/repository/maven-releases/</url></repository>")
    elif form == 4:
        F("basicurl", f"webhook target: https://{u}:{p}@hooks.example.net/incoming")
    else:
        F("basicurl", f"ftp://{u}:{p}@files.vendor.com/upload")

# 11. passwords in prose, many phrasings
_PROSE = ("my password: {p}", "the wifi password is {p}", "pw is {p}", "login is admin / {p}",
          "root pass = {p}", "I changed the db password to {p} yesterday", "creds for the NAS: admin {p}",
          "password for the shared gmail account is {p}", "pass: {p}", "The router admin password: {p}",
          "use {p} as the password for the staging box", "passwd {p}", "new pw -> {p}",
          "user jenkins, password {p}", "password was reset to {p} by IT", "VPN: username mk, pass {p}",
          "remember: the vault unseal passphrase is {p}", "the pin for the garage door is 4821 and the alarm code {p}",
          "sudo password on the build box: {p}", "p/w {p}", "pwd={p}", "The SFTP account's password is `{p}`.",
          "(password {p})", "Password — {p}", "passphrase for the gpg key: {p}", "Kindle login: me@example.com / {p}",
          "Her bank login pw: {p} — don't share", "temp password {p}, must change on first login",
          "The password is '{p}'", "admin:{p}", "credentials: svc-backup {p}", "master password = {p}",
          "got the token from Sam: {t}", "API key is {t}", "here is the key {t}", "secret: {t}",
          "token {t} expires Friday", "the license key: {t}", "access code {t}", "use this key for prod: {t}")
for i, tmpl in enumerate(_PROSE):
    F("prose", tmpl.format(p=_pw(), t=_tok()))
F("prose", "my password: correcthorsebatterystaple")
F("prose", "The password is hunter2hunter2 for the test box")
F("prose", "pw: Summer2026!")
F("prose", "wifi: HomeNet / pass blueberrypancakes77")

# 12. other languages
_I18N = ("Passwort: {p}", "Das Kennwort für den Server ist {p}", "mot de passe : {p}", "le mot de passe du wifi est {p}",
         "contraseña: {p}", "la clave del router es {p}", "senha: {p}", "a senha do banco é {p}", "пароль: {p}",
         "пароль от сервера {p}", "密码：{p}", "数据库密码是 {p}", "パスワード：{p}", "パスワードは {p} です", "비밀번호: {p}",
         "wachtwoord: {p}", "lösenord: {p}", "hasło: {p}", "şifre: {p}", "parola: {p}", "salasana: {p}",
         "κωδικός: {p}", "jelszó: {p}", "heslo: {p}", "mật khẩu: {p}", "kata sandi: {p}", "סיסמה: {p}",
         "كلمة المرور: {p}", "API-Schlüssel: {t}", "clé API : {t}", "токен: {t}", "令牌：{t}", "トークン：{t}",
         "chave de API: {t}", "klucz API: {t}", "Zugangsdaten: admin / {p}")
for tmpl in _I18N:
    F("i18n", tmpl.format(p=_pw(), t=_tok()))

# 13. shell history
for i in range(45):
    p = _pw()
    t = _tok()
    cmds = (f"mysql -u root -p{p} -h db.internal", f"sshpass -p '{p}' ssh admin@10.0.0.4",
            f"curl -u admin:{p} https://jenkins.lan/api/json", f"PGPASSWORD='{p}' psql -h db -U app",
            f"docker login -u robot -p {t} registry.example.com", f"htpasswd -bc .htpasswd admin {p}",
            f"redis-cli -h cache -a {p} ping", f"openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{p}",
            f"git clone https://oauth2:{t}@gitlab.example.com/grp/repo.git", f"echo {t} | gh auth login --with-token",
            f"export API_TOKEN={t}", f"mongosh \"mongodb://admin:{p}@localhost:27017\"",
            f"smbclient //nas/share -U backup%{p}", f"vault login {t}", f"echo '{p}' | sudo -S systemctl restart app")
    line = cmds[i % len(cmds)]
    if i % 3 == 0:
        F("shell", f"  {500 + i}  {line}\n  {501 + i}  history | tail")
    elif i % 3 == 1:
        F("shell", f"$ {line}")
    else:
        F("shell", f"ran `{line}` and it worked")

# 14. chat logs
for i in range(25):
    t = _tok() if i % 2 else _pw()
    form = i % 5
    if form == 0:
        F("chat", f"[10:42] alice: here's the staging key: {t}\n[10:43] bob: thx")
    elif form == 1:
        F("chat", f"<mk> what's the pw for grafana?\n<jo> {t}\n<mk> ty")
    elif form == 2:
        F("chat", f"Sam Lee, 9:14 AM\ncan you paste the token again\nJo Park, 9:15 AM\n{t}")
    elif form == 3:
        F("chat", f"> **dana**: the new one is `{t}`, old one revoked")
    else:
        F("chat", f"From Slack #infra: \"prod redis pass is {t} fyi\"")

# 15. tables and CSV
for i in range(25):
    form = i % 3
    if form == 0:
        rows = "\n".join(f"| {s} | {u} | {_pw()} |" for s, u in (("grafana", "admin"), ("nas", "mk"), ("router", "root")))
        F("table", f"| service | user | password |\n|---|---|---|\n{rows}")
    elif form == 1:
        F("table", "name,username,password,url\n" + "\n".join(f"{s},{u},{_pw()},https://{s}.lan" for s, u in (("jira", "me"), ("wiki", "me"))))
    else:
        F("table", f"| env | api key |\n|-----|---------|\n| prod | {_tok()} |\n| dev | {_tok()} |")

# 16. split across fields of one memory
for i in range(24):
    p = _pw()
    t = _tok()
    form = i % 6
    if form == 0:
        F("split", p, description="postgres prod password")
    elif form == 1:
        F("split", f"value: {t}", description="stripe webhook signing secret")
    elif form == 2:
        F("split", t, description="the api token for the billing service", key="billing-api-token")
    elif form == 3:
        F("split", f"user: deploy\nhost: 10.0.4.2\n\n{p}", description="ssh login for the build server")
    elif form == 4:
        F("split", f"{_s(20, _UP)}\n{_s(40, _AN + '/+')}", description="aws keys for the backup user (id, then secret)")
    else:
        F("split", f"second half: {t[len(t) // 2:]}", description=f"wifi key first half {t[:len(t) // 2]}")

# 17. lesser-known vendor tokens
_VENDORS = (lambda: "dckr_pat_" + _s(27, _AN + "-_"), lambda: "figd_" + _s(40, _AN + "-_"),
            lambda: "ntn_" + _s(46), lambda: "SSWS 00" + _s(40, _AN + "-_"), lambda: "glpat-" + _s(20, _AN + "-_"),
            lambda: "xoxb-" + f"{_rng.randrange(10**12)}-{_rng.randrange(10**12)}-{_s(24)}",
            lambda: "shpat_" + _hex(32), lambda: "lin_api_" + _s(40), lambda: "npm_" + _s(36),
            lambda: "hf_" + _s(34), lambda: "sk-ant-api03-" + _s(93, _AN + "-_") + "AA", lambda: "rk_live_" + _s(99),
            lambda: "SG." + _s(22, _AN + "-_") + "." + _s(43, _AN + "-_"), lambda: "dop_v1_" + _hex(64),
            lambda: "github_pat_11" + _s(20, _UP) + "_" + _s(59), lambda: "ghp_" + _s(36), lambda: "AIza" + _s(35, _AN + "-_"),
            lambda: "sq0csp-" + _s(43, _AN + "-_"), lambda: "ATATT3xFfGF0" + _s(180, _AN + "-_=") , lambda: "CFPAT-" + _s(43, _AN + "-_"),
            lambda: "pscale_pw_" + _s(43, _AN + "_"), lambda: "dp.st.prd." + _s(40), lambda: "phx_" + _s(43),
            lambda: "sntrys_" + _b64url(120), lambda: "rnd_" + _s(32), lambda: "lsv2_pk_" + _hex(32) + "_" + _hex(10),
            lambda: "gsk_" + _s(52), lambda: "xai-" + _s(80), lambda: "pplx-" + _s(48), lambda: "r8_" + _s(37),
            lambda: "MTA" + _s(23, _AN) + "." + _s(6, _AN + "-_") + "." + _s(38, _AN + "-_"),
            lambda: "EAAG" + _s(180), lambda: "sk_live_" + _s(99), lambda: "whsec_" + _s(32),
            lambda: "AccountKey=" + _b64(64), lambda: "pat-na1-" + _uuid(), lambda: "key-" + _hex(32),
            lambda: "FLWSECK-" + _hex(32) + "-X", lambda: "tskey-auth-" + _s(17) + "CNTRL-" + _s(33),
            lambda: "oauth:" + _s(30, _LOW))
for i, mk in enumerate(_VENDORS):
    t = mk()
    F("vendor", (f"token: {t}", f"{t}", f"paste this into the CI secret: {t}", f"got it working with {t}")[i % 4])


# ---------------------------------------------------------------- look-alikes

# A. commit and object ids
for i in range(35):
    sha = _hex(40)
    form = i % 7
    if form == 0:
        L("gitid", f"the regression came in with {sha}; revert it if the build stays red")
    elif form == 1:
        L("gitid", f"commit {sha}\nAuthor: Mo <mo@example.com>\nDate:   Fri Dec 4 10:00 2026\n\n    fix flaky test")
    elif form == 2:
        L("gitid", f"$ git rev-parse HEAD\n{sha}")
    elif form == 3:
        L("gitid", f"Merge: {sha[:7]} {_hex(7)}\ncherry-picked from {sha}")
    elif form == 4:
        L("gitid", f"100644 blob {sha}\tREADME.md\n040000 tree {_hex(40)}\tsrc")
    elif form == 5:
        L("gitid", f"pinned the action: uses: actions/checkout@{sha}")
    else:
        L("gitid", f"object format sha256; HEAD is {_hex(64)}")

# B. UUIDs
for i in range(30):
    form = i % 6
    u = _uuid()
    if form == 0:
        L("uuid", f"request id {u} failed with 502")
    elif form == 1:
        L("uuid", f"metadata:\n  uid: {u}\n  resourceVersion: \"{_rng.randrange(10**7)}\"")
    elif form == 2:
        L("uuid", json.dumps({"id": u, "tenant_id": _uuid(), "status": "ok"}))
    elif form == 3:
        L("uuid", f"trace_id={_hex(32)} span_id={_hex(16)}")
    elif form == 4:
        L("uuid", f"subscription {u} holds the dev resources; tenant {_uuid()}")
    else:
        L("uuid", f"The Grafana dashboard uid is {_s(9, _AN)} and the folder id {u}.")

# C. checksums and digests, lockfile integrity
for i in range(40):
    form = i % 10
    if form == 0:
        L("checksum", f"{_hex(64)}  vault-mem-0.9.tar.gz")
    elif form == 1:
        L("checksum", f"image: ghcr.io/acme/api@sha256:{_hex(64)}")
    elif form == 2:
        L("checksum", f"\"integrity\": \"sha512-{_b64(64)}\"")
    elif form == 3:
        L("checksum", f"golang.org/x/net v0.31.0 h1:{_b64(32)}")
    elif form == 4:
        L("checksum", f"[[package]]\nname = \"serde\"\nversion = \"1.0.215\"\nchecksum = \"{_hex(64)}\"")
    elif form == 5:
        L("checksum", f"requests==2.32.3 \\\n    --hash=sha256:{_hex(64)}")
    elif form == 6:
        L("checksum", f"<script src=\"x.js\" integrity=\"sha384-{_b64(48)}\" crossorigin=\"anonymous\"></script>")
    elif form == 7:
        L("checksum", f"MD5 ({_rng.choice(('iso', 'dump.sql'))}) = {_hex(32)}")
    elif form == 8:
        L("checksum", f"etag: \"{_hex(32)}\"  last-modified: Fri, 04 Dec 2026")
    else:
        L("checksum", f"yarn.lock:\n  resolved \"https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{_hex(40)}\"\n  integrity sha512-{_b64(64)}")

# D. public keys, certificates and fingerprints
for i in range(36):
    form = i % 9
    if form == 0:
        L("pubkey", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(32)} mk@laptop")
    elif form == 1:
        L("pubkey", f"authorized_keys:\nssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{_b64(380)} deploy@ci")
    elif form == 2:
        L("pubkey", f"-----BEGIN PUBLIC KEY-----\n{_pem_body(294)}\n-----END PUBLIC KEY-----")
    elif form == 3:
        L("pubkey", f"-----BEGIN CERTIFICATE-----\n{_pem_body(800)}\n-----END CERTIFICATE-----")
    elif form == 4:
        L("pubkey", f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{_pem_body(500)}\n={_b64(3)}\n-----END PGP PUBLIC KEY BLOCK-----")
    elif form == 5:
        L("pubkey", f"host key fingerprint SHA256:{_b64(32).rstrip('=')} (ED25519)")
    elif form == 6:
        L("pubkey", f"age recipient for backups: age1{_s(58, _BECH)}")
    elif form == 7:
        L("pubkey", f"[Peer]\nPublicKey = {_b64(32)}\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.example.com:51820")
    else:
        L("pubkey", f"gpg fingerprint {' '.join(_hex(4).upper() for _ in range(10))}")

# E. placeholders and references
_PH = ("API_KEY=<your-api-key>", "password: changeme-in-prod-<set me>", "token: xxxxxxxxxxxxxxxxxxxxxxxx",
       "export GITHUB_TOKEN=${{ secrets.GITHUB_TOKEN }}", "DB_PASSWORD=${DB_PASSWORD}", "password=********",
       "Authorization: Bearer <token>", "api_key = os.environ[\"API_KEY\"]", "secret: {{ .Values.secret }}",
       "aws_secret_access_key = YOUR_SECRET_KEY_HERE", "token: <redacted>", "password: REDACTED",
       "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com", "postgres://user:password@localhost/db",
       "https://username:password@example.com", "AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY (AWS docs example)",
       "client_secret: \"...\"", "SECRET_KEY = 'dev-not-secret'", "password: \"$(pass show work/db)\"",
       "--password-stdin < ~/.docker-pass", "token=$(gcloud auth print-access-token)",
       "API key: sk-...XXXX (truncated)", "export OPENAI_API_KEY=sk-your-key-here",
       "password = getpass.getpass()", "\"apiKey\": \"YOUR_API_KEY\"", "auth_token: TODO",
       "SLACK_WEBHOOK=https://hooks.slack.com/services/T000/B000/XXXXXXXX",
       "key: 0000000000000000000000000000000000000000", "password: <%= ENV['DB_PASS'] %>",
       "PGPASSWORD=$(cat /run/secrets/pg) psql -h db", "client_secret=${CLIENT_SECRET:?missing}",
       "bearer token goes here: ____", "password: null", "token: ''", "secret_key_base: <%= Rails.application.credentials.secret_key_base %>",
       "mysql -u root -p   # prompts for the password", "ssh-keygen -t ed25519 -C me@example.com",
       "password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256", "api_key: ENC[AES256_GCM,data:...,type:str]  # sops",
       "my_password = input('Password: ')")
for ph in _PH:
    L("placeholder", ph)

# F. base64 images and embedded blobs
for i in range(20):
    form = i % 4
    if form == 0:
        L("b64blob", f"![logo](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{_b64(300)})")
    elif form == 1:
        L("b64blob", f"@font-face {{ src: url(data:font/woff2;base64,d09GMgABAAAA{_b64(400)}) }}")
    elif form == 2:
        L("b64blob", f"<img src=\"data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ{_b64(200)}\">")
    else:
        L("b64blob", f"favicon: data:image/x-icon;base64,AAABAAEAEBAAAAEAIABoBAAAFgAAACgAAAAQ{_b64(240)}")

# G. salts, nonces, IVs and test vectors in docs
for i in range(20):
    form = i % 5
    if form == 0:
        L("vector", f"AES-128 test vector (FIPS-197 C.1): plaintext 00112233445566778899aabbccddeeff, ciphertext {_hex(32)}")
    elif form == 1:
        L("vector", f"Content-Security-Policy: script-src 'nonce-{_b64(16)}'")
    elif form == 2:
        L("vector", f"the salt column is public by design; example row: salt={_hex(32)} iterations=600000")
    elif form == 3:
        L("vector", f"iv = {_hex(24)} is generated per message and sent in the clear next to the ciphertext")
    else:
        L("vector", f"SHA-256(\"abc\") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad; nonce {_rng.randrange(10**9)}")

# H. docs describing tokens and passwords without one
_DOCS = ("Set the Authorization header to Bearer followed by your personal access token.",
         "Tokens are 40-character hex strings; rotate them every 90 days.",
         "Password policy: at least 12 characters, one digit, no reuse of the last 5.",
         "The api_key field in config.yaml is read at startup; leave it empty to use the env var.",
         "Passwords are hashed with argon2id; we never store them in clear.",
         "If you forget your password, use the reset link; support will never ask for it.",
         "We moved the secret key rotation to Tuesdays, owner is the platform team.",
         "The token endpoint returns access_token, refresh_token and expires_in.",
         "Use `gh auth token` to print your token; never paste it into memories.",
         "The .pgpass format is hostname:port:database:username:password, one per line.",
         "A .netrc entry has machine, login and password fields.",
         "JWTs have three base64url parts separated by dots: header, payload, signature.",
         "kubectl config view hides client-key-data unless you pass --raw.",
         "For Basic auth, base64-encode user:password and send it in the Authorization header.",
         "Seed phrases are 12 or 24 words from the BIP-39 list; write them on paper.",
         "The connection string takes Server, Database, User Id and Password keys.",
         "password reset emails were delayed by the SMTP outage on Monday",
         "Our wiki page 'Secrets handling' explains who can read the prod key.",
         "az storage account keys list prints two keys; we use key1 and rotate key2.",
         "aws sts get-session-token returns AccessKeyId, SecretAccessKey and SessionToken.",
         "The private key never leaves the HSM; only the public key is exported.",
         "Remember to log out of the shared account after the demo.",
         "The token expired so the deploy failed; re-run after `vault login -method=oidc`.",
         "Don't put passwords in CI logs; mask them with ::add-mask::.",
         "The key rotation script lives in ops/rotate_keys.py.",
         "PuTTY keys (.ppk) must be converted with puttygen before OpenSSH can read them.",
         "age keys start with AGE-SECRET-KEY-1; public recipients start with age1.",
         "The wifi password is on the fridge, not in here.",
         "Password: see 1Password, item 'Prod DB (read-only)'.",
         "token is in Vault at secret/data/prod/billing, key api_token",
         "the db password lives in AWS Secrets Manager as prod/db/master",
         "creds are in the team bitwarden under 'NAS admin'",
         "pw for the router: ask Dana, she has it",
         "API key: stored in GitHub Actions secret STRIPE_KEY",
         "my password manager is KeePassXC with the db on the NAS")
for d in _DOCS:
    L("docs", d)

# I. other ids that look random but are not secret
_IDS = (lambda: f"instance i-0{_hex(16)} in subnet subnet-0{_hex(16)}, sg-0{_hex(16)}",
        lambda: f"arn:aws:iam::{_rng.randrange(10**11, 10**12)}:role/ci-deployer",
        lambda: f"Stripe customer cus_{_s(14)} has invoice in_{_s(24)}",
        lambda: f"tx 0x{_hex(64)} confirmed in block {_rng.randrange(10**7)}",
        lambda: f"send to 0x{_hex(40)} (our public donation address)",
        lambda: f"bitcoin address bc1q{_s(38, _BECH)}",
        lambda: f"Google Analytics G-{_s(10, _UP)}",
        lambda: f"YouTube video https://youtu.be/{_s(11, _AN + '-_')}",
        lambda: f"IPFS CID bafybei{_s(52, _BECH.replace('1', ''))}",
        lambda: f"Docker container {_hex(64)} exited with 137",
        lambda: f"mac address {':'.join(_hex(2) for _ in range(6))}, serial {_s(12, _UP)}",
        lambda: f"Sentry issue {_hex(32)} is the flaky one",
        lambda: f"npm package @acme/ui@4.2.{_rng.randrange(30)} published, shasum {_hex(40)}",
        lambda: f"the Jira ticket OPS-{_rng.randrange(9999)} tracks the cert renewal",
        lambda: f"short link https://bit.ly/{_s(7)}",
        lambda: f"GCP project acme-prod-{_rng.randrange(10**6)}, service account ci@acme-prod.iam.gserviceaccount.com",
        lambda: f"Slack channel C0{_s(9, _UP)}, user U0{_s(9, _UP)}",
        lambda: f"the build artifact is app-{_hex(12)}.zip",
        lambda: f"Azure app id {_uuid()} (public client, no secret)",
        lambda: f"Let's Encrypt serial {':'.join(_hex(2) for _ in range(16))}")
for i in range(40):
    L("ids", _IDS[i % len(_IDS)]())
