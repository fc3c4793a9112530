"""A held-out-style corpus for the secret gate: credential forms as they turn up in notes, configs
and shell history, disguised ones included, and harmless look-alikes that must stay clean.

Written for this gate independently of ``tests/test_policy.py`` and of the rule examples in
``vault_mem/model/secret_rules.py``: values have the shape of the real thing and come from a
seeded generator, and every vendor prefix is split in two, so this file holds nothing a git host's
secret scanner would flag. Used by ``tests/test_secrets.py`` and ``bench/secret_figures.py``.
"""

from __future__ import annotations

import base64
import json
import random
import string
from urllib.parse import quote

_RNG = random.Random(1414)
ALNUM = string.ascii_letters + string.digits
UP = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URL = ALNUM + "-_"
D5 = "-" * 5
ZWSP, ZWJ, WJ, SHY, BOM = "\u200b", "\u200d", "\u2060", "\u00ad", "\ufeff"


def r(n: int, alphabet: str = ALNUM) -> str:
    """``n`` random characters; mixed alphabets always get a digit and a letter, like real keys."""
    while True:
        s = "".join(_RNG.choice(alphabet) for _ in range(n))
        mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
        if not mixed or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s)):
            return s


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def b64url(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


def jwt() -> str:
    return f"{b64url({'alg': 'RS256', 'typ': 'JWT'})}.{b64url({'sub': r(8), 'exp': 1900000000})}.{r(86, URL)}"


def pem(label: str, lines: int = 6) -> str:
    body = "\n".join(r(64, B64) for _ in range(lines))
    return f"{D5}BEGIN {label}{D5}\n{body}\n{r(24, B64)}==\n{D5}END {label}{D5}"


def pw() -> str:
    return r(9) + _RNG.choice("!#%^*+") + r(3, string.digits)


def wrap(token: str, width: int, indent: str = "") -> str:
    return ("\n" + indent).join(token[i:i + width] for i in range(0, len(token), width))


PK = "PRIV" + "ATE KEY"
GH = "gh"
AK = "AK" + "IA"
SK = "s" + "k"
XOX = "xo" + "x"
PAT = "gl" + "pat-"

# (what it is, text); every one must be refused.
FORMS: list[tuple[str, str]] = [
    ("AWS access key id", f"aws_access_key_id={AK}{r(16, UP)}"),
    ("AWS secret in credentials file", f"[default]\naws_secret_access_key = {r(40, B64)}"),
    ("AWS STS key id", f"AccessKeyId: AS{'IA'}{r(16, UP)}"),
    ("GitHub classic PAT", f"export GH_TOKEN={GH}p_{r(36)}"),
    ("GitHub OAuth token", f"oauth: {GH}o_{r(36)}"),
    ("GitHub user-to-server", f"{GH}u_{r(36)}"),
    ("GitHub server-to-server", f"{GH}s_{r(36)}"),
    ("GitHub refresh token", f"{GH}r_{r(36)}"),
    ("GitHub fine-grained PAT", f"github_{'pat'}_{r(22)}_{r(59)}"),
    ("GitLab PAT", f"GITLAB_TOKEN={PAT}{r(20, URL)}"),
    ("GitLab deploy token", f"gl{'dt'}-{r(20, URL)}"),
    ("GitLab runner token", f"gl{'rt'}-{r(20, URL)}"),
    ("Slack bot token", f"SLACK_BOT_TOKEN={XOX}b-{r(12, string.digits)}-{r(13, string.digits)}-{r(24)}"),
    ("Slack user token", f"{XOX}p-{r(11, string.digits)}-{r(12, string.digits)}-{r(13, string.digits)}-{r(32, HEX)}"),
    ("Slack app token", f"{'xa'}pp-1-A{r(10, UP)}-{r(13, string.digits)}-{r(64, HEX)}"),
    ("Slack webhook", f"https://hooks.{'slack'}.com/services/T{r(9, UP)}/B{r(11, UP)}/{r(24)}"),
    ("Stripe secret live", f"STRIPE_KEY={SK}_{'live'}_{r(99)}"),
    ("Stripe secret test", f"{SK}_{'test'}_{r(24)}"),
    ("Stripe restricted live", f"r{'k'}_live_{r(24)}"),
    ("Stripe restricted test", f"r{'k'}_test_{r(24)}"),
    ("Twilio API key SID", f"TWILIO_API_KEY=S{'K'}{r(32, HEX)}"),
    ("Twilio auth token", f"TWILIO_AUTH_TOKEN: {r(32, HEX)}"),
    ("Twilio SID:token", f"curl -u A{'C'}{r(32, HEX)}:{r(32, HEX)} https://api.twilio.com"),
    ("SendGrid key", f"SENDGRID_API_KEY=S{'G'}.{r(22, URL)}.{r(43, URL)}"),
    ("Discord bot token", f"bot.run('{b64url(int(r(18, string.digits)))}.{r(6, URL)}.{r(38, URL)}')"),
    ("Discord webhook", f"https://discord.com/api/{'web'}hooks/{r(18, string.digits)}/{r(68, URL)}"),
    ("Telegram bot token", f"TELEGRAM_TOKEN={r(10, string.digits)}:A{'A'}{r(33, URL)}"),
    ("Google API key", f"key=AI{'za'}{r(35, URL)}"),
    ("OpenAI project key", f"OPENAI_API_KEY={SK}-proj-{r(156, URL)}"),
    ("Anthropic key", f"{SK}-ant-api03-{r(93, URL)}AA"),
    ("Hugging Face token", f"HF_TOKEN=h{'f'}_{r(34)}"),
    ("npm token", f"//registry.npmjs.org/:_authToken=np{'m'}_{r(36)}"),
    ("PyPI token", f"password = pyp{'i'}-AgEIcHlwaS5vcmc{r(70, URL)}"),
    ("Vault service token", f"VAULT_TOKEN=hv{'s'}.{r(90, URL)}"),
    ("Vault legacy token", f"vault login s.{r(24)}"),
    ("Shopify access token", f"shp{'at'}_{r(32, HEX)}"),
    ("Shopify shared secret", f"shp{'ss'}_{r(32, HEX)}"),
    ("Azure SAS URL", f"https://acct.blob.core.windows.net/c/b?sv=2022-11-02&se=2030-01-01&sp=r&si{'g'}={quote(r(43, B64))}%3D"),
    ("Azure storage key", f"DefaultEndpointsProtocol=https;AccountName=acct;Account{'Key'}={r(86, B64)}==;"),
    ("DigitalOcean token", f"do{'p'}_v1_{r(64, HEX)}"),
    ("Mailgun key", f"MAILGUN_API_KEY=key-{r(32, HEX)}"),
    ("Heroku API key", f"HEROKU_API_KEY={r(8, HEX)}-{r(4, HEX)}-{r(4, HEX)}-{r(4, HEX)}-{r(12, HEX)}"),
    ("JWT", f"Cookie: session={jwt()}"),
    ("JWT wrapped over lines", "token:\n  " + wrap(jwt(), 60, "  ")),
    ("JWT split into string pieces", "const t = \"" + '" +\n  "'.join(wrap(jwt(), 50).split("\n")) + '";'),
    ("RSA private key", pem("RSA " + PK)),
    ("OpenSSH private key", pem("OPENSSH " + PK)),
    ("PKCS8 key in JSON", '{"private_key": "' + pem(PK).replace("\n", "\\n") + '"}'),
    ("kubeconfig client-key-data", "users:\n- name: admin\n  user:\n    client-key-data: " + b64(pem("EC " + PK, 2))),
    ("kubeconfig token", f"users:\n- name: sa\n  user:\n    token: {jwt()}"),
    ("docker config auth", '{"auths": {"registry.corp": {"auth": "' + b64("ci:" + r(20)) + '"}}}'),
    (".netrc", f"machine api.corp.io\n  login deploy\n  password {r(20)}"),
    (".netrc one line", f"machine git.corp login bot password {pw()}"),
    ("sshpass", f"sshpass -p '{pw()}' ssh root@10.0.0.5"),
    ("mysql -pSECRET", f"mysql -h db -u root -p{r(12)} shop"),
    ("mysql -p'...'", f"mysqldump -uroot -p'{pw()}' --all-databases"),
    ("PGPASSWORD", f"PGPASSWORD={pw()} psql -h db -U app"),
    ("postgres URL", f"postgresql://app:{r(16)}@db.internal:5432/app"),
    ("ADO.NET connection string", f"Server=tcp:db.corp,1433;User ID=sa;Password={pw()};Encrypt=true"),
    ("JDBC query password", f"jdbc:mysql://db/shop?user=app&password={r(14)}"),
    ("basic-auth URL", f"git clone https://ci:{r(20)}@git.corp/infra.git"),
    ("password full-width colon", f"数据库密码 password：{pw()}"),
    ("secret after full-width equals", f"client_secret＝{r(24)}"),
    ("token split by zero-width space", f"{GH}p_{r(10)}{ZWSP}{r(26)}"),
    ("token with word joiner and soft hyphen", f"{XOX}b-{r(12, string.digits)}{WJ}-{r(13, string.digits)}{SHY}-{r(24)}"),
    ("AWS key with Cyrillic A", f"\u0410KIA{r(16, UP)}"),
    ("GitHub token with Cyrillic shha", f"g\u04bbp_{r(36)}"),
    ("Slack token with Greek omicron", f"x\u03bfxb-{r(12, string.digits)}-{r(13, string.digits)}-{r(24)}"),
    ("full-width token", "".join(chr(ord(c) + 0xFEE0) for c in f"{GH}p_{r(36)}")),
    ("BOM before key", f"{BOM}{SK}_{'live'}_{r(24)}"),
    ("base64-wrapped env file", "env: " + b64(f"DB_PASSWORD={pw()}\nAPI_TOKEN={GH}p_{r(36)}\n")),
    ("base64 of a private key", "key_b64: " + b64(pem("RSA " + PK, 3)).replace("=", "")),
    ("URL-encoded token", "callback?state=" + quote(f"token={GH}p_{r(36)}", safe="")),
    ("URL-encoded password", "next=%2Flogin%3Fpassword%3D" + quote(pw(), safe="")),
    ("key wrapped with backslash", f"export K={SK}_live_{r(12)}\\\n{r(12)}"),
    ("password is", f"The vpn password is {pw()}"),
    ("bearer header", f"Authorization: Bearer {r(40, URL)}"),
    ("ZWJ inside password keyword", f"pass{ZWJ}word = {pw()}"),
]

# Harmless text that looks like a credential; every one must be accepted.
LOOK_ALIKES: list[str] = [
    f"Fixed in {r(40, HEX)}.",
    f"git checkout {r(40, HEX)}",
    f"object format sha256: commit {r(64, HEX)}",
    f"id = {_RNG.choice('abcdef')}{r(7, HEX)}-{r(4, HEX)}-4{r(3, HEX)}-a{r(3, HEX)}-{r(12, HEX)}",
    "request 123e4567-e89b-12d3-a456-426614174000 timed out",
    f"image: python@sha256:{r(64, HEX)}",
    f"digest sha512-{r(86, B64)}==",
    f'"integrity": "sha512-{r(86, B64)}=="',
    f'"integrity": "sha1-{r(27, B64)}="',
    "password=<password>",
    "api_key: <your-api-key>",
    "token: xxxx",
    "secret: xxxxxxxxxxxxxxxx",
    "password: changeme",
    'api_key = "your-api-key"',
    "token = ...",
    "password: ********",
    "DB_PASSWORD=${DB_PASSWORD}",
    "export TOKEN=$GITHUB_TOKEN",
    "password: {{ secret }}",
    "token: {{ .Values.token }}",
    "api_key: ${{ secrets.OPENAI_API_KEY }}",
    f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(43, B64)} me@laptop",
    f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ{r(340, B64)} ci@build",
    f"{D5}BEGIN PUBLIC KEY{D5}\n{r(64, B64)}\n{r(64, B64)}\n{D5}END PUBLIC KEY{D5}",
    f"{D5}BEGIN PGP PUBLIC KEY BLOCK{D5}\n\n{wrap(r(300, B64), 64)}\n={r(4, B64)}\n{D5}END PGP PUBLIC KEY BLOCK{D5}",
    f"{D5}BEGIN CERTIFICATE{D5}\n{wrap('MII' + r(1200, B64), 64)}\n{D5}END CERTIFICATE{D5}",
    f"client-certificate-data: {b64(pem('CERTIFICATE', 3))}",
    f"Stripe publishable key: p{'k'}_live_{r(24)}",
    f"publishableKey: 'p{'k'}_test_{r(24)}'",
    "Rotate the password monthly and never reuse a token.",
    "The secret to good tests is real components.",
    "Reset your password at the login page; the token expires in 10 minutes.",
    "Passwords must be 12 characters with a symbol.",
    "token budget is 4096 and max_tokens = 1024",
    f"base64 of the note: {b64('Remember to water the plants on Friday, and call the landlord.')}",
    "payload " + b64(json.dumps({"event": "deploy", "env": "staging", "ok": True})),
    "AbstractSingletonProxyFactoryBeanDefinitionRegistryPostProcessor",
    "handleUserAuthenticationTokenRefreshRequestInterceptor",
    "getOrCreateDefaultCredentialProviderChainForRegion2",
    "See /home/me/.config/gh/hosts.yml and ~/.aws/credentials for where keys live.",
    "C:\\Users\\me\\AppData\\Roaming\\npm\\token-cache\\index.json",
    "https://github.com/org/repo/blob/main/src/auth/token_refresh.py#L42",
    "https://example.com/search?q=rotate%20the%20password%20monthly&page=2",
    "https://user@git.corp/infra.git",
    "postgres://app@db.internal:5432/app",
    "postgresql://user:${PGPASSWORD}@db/app",
    "machine api.corp.io login deploy password $NETRC_PASSWORD",
    "sshpass -p \"$SSHPASS\" ssh root@host",
    "sshpass -e ssh root@host",
    "mysql -u root -p shop",
    "mysql -u root -p$MYSQL_PWD shop",
    "PGPASSWORD=$(cat /run/secrets/pg) psql",
    "AKIA is the prefix of AWS access key ids.",
    f"{GH}p_ tokens are classic PATs; {GH}s_ are app installation tokens.",
    "sk-learn is not a package; use scikit-learn.",
    f"Twilio account SID A{'C'}{r(32, HEX)} (an identifier, not the token)",
    "The Discord bot is called Mr.Roboto.v2.release",
    "Build 2024.10.01.1234567890 shipped.",
    "telegram channel 1234567890 is the ops room",
    "kubectl config view shows client-key-data: DATA+OMITTED",
    '{"auths": {"ghcr.io": {"auth": ""}}}',
    "s.getElementsByTagName('a')",
    f"Heroku app id {r(8, HEX)}-{r(4, HEX)}-{r(4, HEX)}-{r(4, HEX)}-{r(12, HEX)}",
    f"jwt header only: {b64url({'alg': 'HS256'})}",
    "Version v1.2.3-rc.4+build.567, Python 3.12.1",
    "The vault is at https://vault.corp:8200/ui/vault/secrets",
    f"sha256:{r(64, HEX)}\nsha256:{r(64, HEX)}",
    "Пароль меняется каждый месяц, токен хранится в 1Password.",
    "Ο κωδικός αλλάζει κάθε μήνα.",
    "Ｆｕｌｌ－ｗｉｄｔｈ ｔｅｘｔ：ｎｏ ｓｅｃｒｅｔｓ ｈｅｒｅ",
    "zero\u200bwidth\u200bspaces in prose are fine",
    f"line one ends with id{r(6, string.digits)}\nline two starts with ref{r(6, string.digits)}",
    "def authenticate(self, token: str) -> User:\n    return self.users[token]",
]
