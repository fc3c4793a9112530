"""Probe forms for the secret gate, written AFTER the detector was read (so not a held-out set).

While fixing the classes the fourth held-out corpus (``secrets_heldout4.py``) showed, two rounds
of probes were written to look for classes it did not hold: ``probe1`` (50 forms: config, URL,
header and prose forms, written after reading the detector, before the first round of generic
rules) and ``probe2`` (42 forms: prose phrasings, Windows and CI command lines, connection
strings, written after the first round and aimed at its likely gaps). The look-alikes probe the
new rules' false alarms (webhook docs, YAML mappings, prose about passwords, id prefixes, image
digests, public keys). Figures are in RELIABILITY.md ("Trust boundary"). Some forms are misses by
choice (PINs, a password with no label at all) and stay here so the figure says so.

Same item format as the other corpora (``secret_gen.py``); values come from seeded generators.
"""

from __future__ import annotations

import random
import runpy
import string
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](0, "probe", "notes")
D5, PK = _GEN["D5"], _GEN["PK"]
A = string.ascii_letters + string.digits
H = "0123456789abcdef"
_rng = random.Random(7)


def r(n: int, al: str = A) -> str:
    return "".join(_rng.choice(al) for _ in range(n))


def uuid() -> str:
    h = r(32, H)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def pw() -> str:
    return r(10) + "!" + r(3)


_PROBE1 = [
    f"HEROKU_OAUTH={'HR' + 'KU-'}{r(36)}",
    f"Authorization: token {r(40,'0123456789abcdef')}",
    f"api_key: {r(32)}",
    f"X-Auth-Token: {r(48)}",
    f"{'s'+'k.'}{r(60)}.{r(22)}",
    f"ANTHROPIC_API_KEY='{r(40)}'",
    f'"password": "{pw()}"',
    f"<add key=\"ApiSecret\" value=\"{r(32)}\" />",
    f"spring.datasource.password={pw()}",
    f"db pass is {pw()}",
    f"the root pwd -> {pw()}",
    f"creds: admin:{pw()}",
    f"user=admin pass={pw()}",
    f"keytool -genkey -storepass {pw()} -keypass {pw()}",
    f"sqlcmd -S db -U sa -P {pw()}",
    f"htpasswd -b .htpasswd admin {pw()}",
    f"git clone https://oauth2:{r(20)}@gitlab.corp.example/x.git",
    f"https://user:{pw()}@ftp.example.com/",
    f"wss://stream.example.com/?token={r(40)}",
    f"https://api.example.com/v1/items?api_key={r(32)}",
    f"secret: |\n  {r(40)}",
    f"hmac secret => {r(32)}",
    f"webhook secret: {r(32)}",
    f"Contraseña: {pw()}",
    f"密码是{pw()}",
    f"비밀번호는 {pw()}",
    f"encryption key (AES-256): {r(64,'0123456789abcdef')}",
    f"{'xp' + 'rv'}9s21ZrQH143K{r(95,'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}",
    f"private key: {r(64,'0123456789abcdef')}",
    f"master key {r(44)}=",
    f"token:\n{r(40)}",
    f"Bearer {r(40)}",
    f"set -x OPENAI_API_KEY {r(40)}",
    f"$env:API_TOKEN = \"{r(40)}\"",
    f"export AUTH0_CLIENT_SECRET={r(64)}",
    f"cookie: connect.sid=s%3A{r(32)}.{r(43)}",
    f"ldap bind pw: {pw()}",
    f"wifi: MyHome / {pw()}",
    "the passcode is 482913",
    "PIN for the card: 4829",
    f"{r(8,'0123456789abcdef')}-{r(4,'0123456789abcdef')}-{r(4,'0123456789abcdef')}-{r(4,'0123456789abcdef')}-{r(12,'0123456789abcdef')} is the api token for sentry",
    f"https://hooks.example.com/services/{r(32)}",
    f"https://example.com/webhook/{r(40)}",
    f"https://outlook.office.com/webhook/{r(8,'0123456789abcdef')}",
    f"[default]\naws_access_key_id = {'AK'+'IA'}{r(16,string.ascii_uppercase+string.digits)}\naws_secret_access_key = {r(40)}",
    f"SECRET_KEY = 'django-insecure-{r(50, string.ascii_lowercase + string.digits + '!@#$%^&*(-_=+)')}'",
    f"client_secret={r(40)}&grant_type=client_credentials",
    f"{D5}BEGIN RSA {PK}{D5}\n{r(64)}\n{r(64)}\n{D5}END RSA {PK}{D5}",
    f"token={r(24)}",
]
P = "Zq8#mP2vLk"
T = "Kf83jdLs92KdmQp20sLx7Vb1"
_PROBE2 = [
    f'variable "db_password" {{\n  default = "{P}"\n}}',
    f'$pw = ConvertTo-SecureString "{P}" -AsPlainText -Force',
    f"net use \\\\fs01\\share /user:CORP\\svc {P}",
    f'gh secret set DEPLOY_KEY --body "{T}"',
    f"I set the admin password to {P}",
    f"changed the root password to {P} yesterday",
    f"login with alice@corp.com / {P}",
    f"username admin, password {P}",
    f"use {P} to log in as admin",
    f"aws configure set aws_secret_access_key {T}abcdEFGH1234ijkl",
    f"Set-Secret -Name gh -Secret \"{T}\"",
    f"__Secure-next-auth.session-token={T}{T}",
    f"the wifi key is {P}",
    f"wifi: HomeNet, key {P}",
    f"WPA2 passphrase: {P}",
    f"SSID CorpGuest password {P}",
    f"admin:{P}@10.0.0.5",
    f"ftp://deploy:{P}@files.corp.lan/",
    f"smb://svc:{P}@nas/backup",
    f"unlock code {P}",
    f"master password for KeePass: {P}",
    f"vault root token: {'hv' + 's.'}{T}{T}{T}",
    "PIN: 4829-1930",
    f"encryption passphrase = \"{P}\"",
    f"[client]\nuser=root\npassword={P}",
    f"spring:\n  datasource:\n    password: {P}",
    f"ConnectionStrings__Db=\"Host=db;Username=app;Password={P}\"",
    f"Data Source=db;Initial Catalog=x;User ID=sa;Pwd={P};",
    f"sshpass -p{P} ssh pi@host",
    f"mongosh \"mongodb://admin:{P}@db:27017\"",
    f"psql postgresql://app:{P}@db/app",
    f"rclone config: pass = {P}",
    f"GITHUB_TOKEN: {T}{T}",
    f"The API secret for Acme is {T}",
    f"Acme secret - {T}",
    f"acme => {T}  (that's the api secret)",
    f"credentials.json: {{\"installed\": {{\"client_id\": \"123.apps.googleusercontent.com\", \"client_secret\": \"{T}\"}}}}",
    f"OPENROUTER_API_KEY={'sk' + '-or-v1-'}{T}{T}abcdef0123",
    f"secret sauce: {T}",
    f"Passwort lautet {P}",
    f"hasło do serwera: {P}",
    f"wachtwoord is {P}",
]
_rng = random.Random(11)
_ALIKES = [
    f"mapbox public token: {'p'+'k.'}{r(60)}.{r(22)}",

    "https://api.slack.com/messaging/webhooks",
    "https://github.com/acme/app/settings/hooks/412345678",
    "https://docs.stripe.com/webhooks/signatures",
    "https://hookdeck.com/blog/post-2024",
    "https://usehooks.com/usedebounce2",
    "https://www.npmjs.com/package/react-hook-form/v/7.51.0",
    "https://example.com/hooks/{hook_id}/deliveries",
    "see https://git-scm.com/docs/githooks#_pre_commit",
    "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "https://reactjs.org/docs/hooks-reference.html#usememo",
    f"https://github.com/acme/api/blob/{r(40,H)}/src/hooks/useAuth.ts",
    f"webhook delivery {uuid()} failed with 500",
    "password manager: bitwarden vault entries",
    "password: stored in the team vault",
    "passphrase: choose four random words",
    "password: must contain letters digits symbols",
    "Password requirements:\n\nAt least 12 characters",
    "token:\n  secretKeyRef:\n    name: api\n    key: token",
    "password:\n  valueFrom:\n    secretKeyRef:\n      name: db",
    "Recovery codes: regenerate them in Settings > Security",
    "error codes: E1001, E1002, E1003",
    "2FA: enable it for every admin account",
    "MFA key points: user must scan the code",
    '{"name": "password_min_length", "value": "12"}',
    '<add key="Theme" value="dark" />',
    "- name: API_TOKEN\n  valueFrom:\n    secretKeyRef: {name: api, key: token}",
    "- name: LOG_LEVEL\n  value: debug",
    "ssh-keygen -N \"$PASSPHRASE\" -f key",
    "redis-cli -a \"$REDIS_PASSWORD\" ping",
    "htpasswd -B -c .htpasswd admin",
    "mvn -P release -DskipTests package",
    "scp -P 2222 file host:",
    f"idempotency key: {uuid()}",
    f"request token {uuid()}",
    "password -> hashed with argon2id",
    "password reset link expires after 30 min",
    "pw reset flow v2",
    "the api returned cus_NffrFeUfNV2Hib and pi_3MtwBwLkdIwHu7ix28a3tqPa",
    f"auth trace id span_{r(24)}",
    f"CVE-2024-3094 in xz; see JIRA-{r(4,'0123456789')}",
    f"ULID-{r(26,'0123456789ABCDEFGHJKMNPQRSTVWXYZ')}",
    "パスワードは忘れました",
    "密码是必须的",
    f"tx 0x{r(64,H)} from 0x{r(40,H)}",
    "Authorization: Bearer <token>",
    'AUTH_HEADER="Bearer $API_TOKEN"',
    "recovery phrase is written on paper in the safe",
    f"backup codes for 2024: see {r(4)}",
    "totp: 30 second window, 6 digits",
    f"client_id: {uuid()}\nclient_secret: ${{OIDC_SECRET}}",
    f"key for the cache: {r(32,H)}",
    f"Primary key for the users table\n{r(24)}",
    "The key_secret field is required",
    f"api_key parameter is named {r(6)}",
    "translation key: btnSubmitLabel",
    f"git log -p {r(7,H)}",
    f"{D5}BEGIN PUBLIC KEY{D5}\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n{D5}END PUBLIC KEY{D5}",
    f"npub1{r(58,'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}",
    f"xpub661MyMwAqRbcF{r(94,'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}",
]

FORMS = ([_G.item(f"probe1-{i}", "probe1", body) for i, body in enumerate(_PROBE1)]
         + [_G.item(f"probe2-{i}", "probe2", body) for i, body in enumerate(_PROBE2)])
LOOK_ALIKES = [_G.item(f"alike-{i}", "alike", body) for i, body in enumerate(_ALIKES)]

if __name__ == "__main__":
    print(f"{len(FORMS)} forms, {len(LOOK_ALIKES)} look-alikes")
