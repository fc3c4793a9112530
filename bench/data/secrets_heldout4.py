"""The fourth held-out corpus for the secret gate (issue 23, item 5): written before the detector
or the other corpora were read for it, measured once untuned (the honest estimate for a hidden
corpus, RELIABILITY.md "Trust boundary"), then used to check the generic rules did not overfit.
It plays a developer pasting what they really paste into a memory: LLM and platform tokens of
2025-2026 with prefixes a rule table may lack, CI and registry credentials (.npmrc, .pypirc,
docker config, git credential store), databases and queues (connection strings, JAAS, ADO.NET,
JDBC), webhook URLs whose path is the secret, CLI flags that carry passwords, SSO/OIDC client
secrets, JWT signing keys, TOTP seeds and recovery codes, wallets (hex keys, WIF, keypair arrays,
nsec), key blocks of unusual kinds, passwords in prose in several languages, and credentials split
across a memory's fields or lines. The look-alikes share those shapes and places without being
secrets: object and request ids, digests in lockfiles and image references, public keys and
certificates, fingerprints, placeholders and templates in docs, CLI flags without a value,
documented public test values, generated CSS class names and asset hashes.

Decisions on the borderline: a documented public test card (4242...), a Sentry DSN (public by
design), an OAuth client id, a Stripe object id and a password *hash* are look-alikes; a UUID or
short random string after a credential word (``RAILWAY_TOKEN=<uuid>``) is a credential.

Same format and generator conventions as the other corpora (``secret_gen.py``): each item is a
memory (``{"name", "class", "key", "description", "body", "meta"}``), values are random from a
seeded generator and vendor prefixes are split so no scanner flags this file.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261203, "held4", "Working notes")
_RNG = _G.rng
r, words, item = _G.r, _G.words, _G.item
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, LOWER, UP, HEX, B64, URL, BECH32, D5, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL",
                                                                   "BECH32", "D5", "PK"))
_rand_bytes, _uuid, _pw, _jwt = _G.rand_bytes, _G.uuid, _G.pw, _G.jwt
_b64url, _block = _GEN["b64url"], _GEN["block"]
B32, B58, PWCHARS = _GEN["B32"], _GEN["B58"], _GEN["PWCHARS"]


def forms() -> list[dict]:
    """Credentials in the shapes and places a developer really pastes them."""
    f = []
    # --- LLM and platform API tokens, prefixes of 2025-2026 (split so no scanner flags this file)
    f.append(item("fireworks short tail", "vendor", f"Fireworks key for the eval runs: {'f' + 'w_'}{r(24)}"))
    f.append(item("groq key in env", "vendor", f"{'GR' + 'OQ'}_API_KEY={'g' + 'sk_'}{r(52)}"))
    f.append(item("xai key in python", "vendor", f'client = Client(api_key="{"x" + "ai-"}{r(80)}")'))
    f.append(item("perplexity key", "vendor", f"perplexity: {'pp' + 'lx-'}{r(48)}"))
    f.append(item("mistral key, no prefix", "assign", f"MISTRAL_API_KEY={r(32)}"))
    f.append(item("together key hex", "assign", f"export TOGETHER_API_KEY={r(64, HEX)}"))
    f.append(item("replicate token", "vendor", f"REPLICATE_API_TOKEN={'r' + '8_'}{r(37)}"))
    f.append(item("langsmith key", "vendor", f"tracing on, key {'lsv' + '2_pt_'}{r(32, HEX)}_{r(10, HEX)}"))
    f.append(item("pinecone key", "vendor", f"pinecone = Pinecone(api_key='{'pc' + 'sk_'}{r(5)}_{r(60)}')"))
    f.append(item("supabase access token", "vendor", f"supabase login --token {'sb' + 'p_'}{r(40, HEX)}"))
    f.append(item("netlify pat", "vendor", f"netlify deploy token {'nf' + 'p_'}{r(36)}"))
    f.append(item("render key", "vendor", f"render api: {'rn' + 'd_'}{r(28)}"))
    f.append(item("doppler service token", "vendor", f"DOPPLER_TOKEN: {'dp.' + 'st.'}prd.{r(43)}"))
    f.append(item("linear api key", "vendor", f"Linear personal key {'lin' + '_api_'}{r(40)}"))
    f.append(item("grafana service account", "vendor", f"grafana SA token {'gl' + 'sa_'}{r(32)}_{r(8, HEX)}"))
    f.append(item("new relic user key", "vendor", f"NEW_RELIC_API_KEY={'NR' + 'AK-'}{r(27, UP)}"))
    f.append(item("buildkite agent token", "vendor", f"buildkite: {'bk' + 'ua_'}{r(40, HEX)}"))
    f.append(item("gitlab runner token", "vendor", f"gitlab-runner register --token {'gl' + 'rt-'}{r(20, URL)}"))
    f.append(item("bitbucket app password", "vendor", f"bitbucket app password for CI: {'AT' + 'BB'}{r(28)}{r(8, HEX).upper()}"))
    f.append(item("square access token", "vendor", f"square prod {'EA' + 'AA'}{r(60, URL)}"))
    f.append(item("resend key", "vendor", f"RESEND_KEY={'r' + 'e_'}{r(8)}_{r(24)}"))
    f.append(item("fcm legacy server key", "vendor", f"FCM server key: {'AA' + 'AA'}{r(7, URL)}:{'APA' + '91b'}{r(134, URL)}"))
    f.append(item("fly token", "vendor", f"FLY_API_TOKEN=\"{'Fly' + 'V1'} fm2_{r(120, B64)}\""))
    f.append(item("azure ad client secret", "sso", f"AZURE_CLIENT_SECRET={r(3)}8Q~{r(31, URL + '.~')}"))
    # --- generic values after a credential word, in the syntaxes configs use
    f.append(item("railway token is a uuid", "assign", f"RAILWAY_TOKEN={_uuid()}"))
    f.append(item("consul acl token", "assign", f"export CONSUL_HTTP_TOKEN={_uuid()}"))
    f.append(item("datadog app key", "assign", f"dd:\n  api_key: {r(32, HEX)}\n  app_key: {r(40, HEX)}\n  site: datadoghq.eu"))
    f.append(item("twilio auth token prose", "prose", f"Twilio account auth token is {r(32, HEX)}"))
    f.append(item("keycloak client secret yaml", "sso", f"oidc:\n  issuer: https://sso.corp.example/realms/main\n  client_id: grafana\n  client_secret: {r(32)}"))
    f.append(item("auth0 client secret json", "sso", json.dumps({"domain": "acme.eu.auth0.com", "clientId": r(32), "clientSecret": r(64, URL)}, indent=2)))
    f.append(item("jwt signing key", "assign", f"JWT_SIGNING_KEY={b64(_rand_bytes(48))}"))
    f.append(item("rails secret key base", "assign", f"secret_key_base: {r(128, HEX)}"))
    f.append(item("toml db password", "config", f"[database]\nhost = \"db.internal\"\nuser = \"app\"\npasswd = \"{_pw(16)}\""))
    f.append(item("ini smtp password", "config", f"[smtp]\nserver=mail.corp.example\nusername=noreply\npassword={_pw(12)}"))
    f.append(item("env file block", "config", f"APP_ENV=production\nSESSION_SECRET={r(40)}\nLOG_LEVEL=info"))
    f.append(item("razorpay key secret", "assign", f"razorpay key_id {'rz' + 'p_live_'}{r(14)} key_secret {r(24)}"))
    # --- registries, CI and tool config files
    f.append(item("npmrc basic auth", "config", f"//npm.corp.example/:_auth={b64('deploy:' + _pw(14))}\nalways-auth=true"))
    f.append(item("npmrc github packages", "config", f"@acme:registry=https://npm.pkg.github.com\n//npm.pkg.github.com/:_authToken={r(40, HEX)}"))
    f.append(item("pypirc internal", "config", f"[internal]\nrepository = https://pypi.corp.example/simple\nusername = ci-bot\npassword = {_pw(18)}"))
    f.append(item("docker config auths", "config", json.dumps({"auths": {"registry.corp.example": {"auth": b64("robot$ci:" + r(32))}}}, indent=2)))
    f.append(item("git credential store line", "url", f"~/.git-credentials:\nhttps://jdoe:{r(40)}@git.corp.example"))
    f.append(item("k8s secret yaml", "config", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api-db\ntype: Opaque\ndata:\n"
                  f"  username: {b64('api')}\n  password: {b64(_pw(20))}"))
    f.append(item("kafka jaas", "config", "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                  f'username="svc-orders" password="{_pw(20)}";'))
    f.append(item("pgpass line", "config", f"added to ~/.pgpass:\nreplica.db.internal:5432:*:replicator:{_pw(16)}"))
    f.append(item("netrc line", "config", f"machine artifacts.corp.example login ci password {_pw(18)}"))
    # --- connection strings and URLs with secret parts
    f.append(item("mongodb srv uri", "url", f"mongodb+srv://analytics:{_pw(16).replace('@', 'a').replace('#', 'h').replace('?', 'q')}@cluster0.ab1cd.mongodb.net/prod"))
    f.append(item("amqp uri", "url", f"BROKER_URL=amqp://orders:{r(20)}@rabbit.internal:5672/%2f"))
    f.append(item("redis uri no user", "url", f"redis://:{r(32)}@cache.internal:6379/0"))
    f.append(item("ado.net connection string", "url", f"Server=tcp:sql01.corp.example,1433;Database=Billing;User Id=sa;Password={_pw(14).replace(';', '!')};Encrypt=True;"))
    f.append(item("jdbc with password param", "url", f"jdbc:mysql://db.internal:3306/shop?user=shop&password={r(18)}&useSSL=true"))
    f.append(item("azure sas url", "url", f"https://acmeprod.blob.core.windows.net/backups?sv=2022-11-02&ss=b&srt=co&sp=rwdlac&se=2027-01-01T00:00:00Z&spr=https&sig={r(43, B64).replace('+', '%2B').replace('/', '%2F')}%3D"))
    f.append(item("slack webhook", "url", f"alerts go to https://hooks.slack.com/services/T{r(8, UP)}/B{r(10, UP)}/{r(24)}"))
    f.append(item("discord webhook", "url", f"https://discord.com/api/webhooks/{r(19, '0123456789')}/{r(68, URL)}"))
    f.append(item("teams webhook", "url", f"https://acme.webhook.office.com/webhookb2/{_uuid()}@{_uuid()}/IncomingWebhook/{r(32, HEX)}/{_uuid()}/V2{r(40, URL)}"))
    f.append(item("telegram bot url", "url", f"curl https://api.telegram.org/bot{r(10, '0123456789')}:AA{r(33, URL)}/getUpdates"))
    f.append(item("otpauth uri", "url", f"otpauth://totp/Acme:ops@acme.example?secret={r(32, B32)}&issuer=Acme"))
    # --- CLI flags and environment prefixes that carry a password
    f.append(item("ssh-keygen passphrase", "cli", f"ssh-keygen -t ed25519 -N '{_pw(16)}' -f ~/.ssh/deploy"))
    f.append(item("mysql -p glued", "cli", f"mysql -h db.internal -u root -p{r(14)} shop"))
    f.append(item("PGPASSWORD prefix", "cli", f"PGPASSWORD={r(18)} psql -h replica -U replicator app"))
    f.append(item("curl -u", "cli", f"curl -u admin:{r(16)} https://jenkins.corp.example/api/json"))
    f.append(item("sshpass -p", "cli", f"sshpass -p '{_pw(12)}' ssh pi@10.0.4.17"))
    f.append(item("docker login -p", "cli", f"docker login registry.corp.example -u robot -p {r(32)}"))
    f.append(item("az sp login", "cli", f"az login --service-principal -u {_uuid()} -p {r(3)}8Q~{r(31, URL)} --tenant corp.example"))
    f.append(item("openssl passout", "cli", f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{_pw(14)}"))
    f.append(item("redis-cli -a", "cli", f"redis-cli -h cache.internal -a {r(24)} info"))
    f.append(item("--password= long flag", "cli", f"vault-cli sync --user ops --password={_pw(15)}"))
    # --- passwords and secrets in prose, several languages
    f.append(item("wifi password prose", "prose", f"the office wifi password is {_pw(12)}"))
    f.append(item("login slash pair", "prose", f"staging admin login: admin / {_pw(13)}"))
    f.append(item("german passwort", "prose", f"Passwort für den NAS: {_pw(14)}"))
    f.append(item("french mot de passe", "prose", f"mot de passe du routeur : {_pw(12)}"))
    f.append(item("spanish contrasena", "prose", f"la contraseña del servidor es {_pw(13)}"))
    f.append(item("portuguese senha", "prose", f"senha do banco: {_pw(12)}"))
    f.append(item("russian parol", "prose", f"пароль от сервера: {_pw(12)}"))
    f.append(item("japanese password", "prose", f"サーバーのパスワードは {_pw(12)} です"))
    f.append(item("passphrase for gpg key", "prose", f"GPG key passphrase: {' '.join(words(4))}"))
    f.append(item("recovery codes", "prose", "GitHub recovery codes for the org owner:\n"
                  + "\n".join(f"{r(5, HEX)}-{r(5, HEX)}" for _ in range(8))))
    f.append(item("totp seed grouped", "prose", "2FA seed for the root account: " + " ".join(r(4, B32).lower() for _ in range(8))))
    # --- private keys and wallets
    f.append(item("wireguard private key", "keyblock", f"[Interface]\nAddress = 10.8.0.2/32\nPrivateKey = {b64(_rand_bytes(32))}\nDNS = 1.1.1.1"))
    f.append(item("minisign secret key", "keyblock", f"untrusted comment: minisign encrypted secret key\nRWRTY0Iy{r(148, B64)}"))
    f.append(item("dsa private key", "keyblock", _block("DSA " + PK, wrap(b64(_rand_bytes(440))))))
    f.append(item("encrypted pkcs8 key", "keyblock", _block("ENCRYPTED " + PK, wrap(b64(_rand_bytes(1200))))))
    f.append(item("ssh key pasted on one line", "keyblock", f"{D5}BEGIN OPENSSH {PK}{D5} {b64(_rand_bytes(300))} {D5}END OPENSSH {PK}{D5}"))
    f.append(item("ethereum deployer key", "crypto", f"DEPLOYER_PRIVATE_KEY=0x{r(64, HEX)}"))
    f.append(item("bitcoin wif", "crypto", f"paper wallet WIF: K{r(51, B58)}"))
    f.append(item("solana keypair array", "crypto", "~/.config/solana/id.json: ["
                  + ",".join(str(_RNG.randrange(256)) for _ in range(64)) + "]"))
    f.append(item("nostr nsec", "crypto", f"my nostr key nsec1{r(58, BECH32)}"))
    f.append(item("seed phrase numbered", "crypto", "wallet backup:\n" + "\n".join(f"{i + 1}. {w}" for i, w in enumerate(words(24)))))
    f.append(item("seed phrase comma list", "crypto", "recovery: " + ", ".join(words(12))))
    # --- headers and cookies
    f.append(item("x-api-key header", "header", f'curl -H "X-Api-Key: {r(40)}" https://api.vendor.example/v2/items'))
    f.append(item("session cookie", "header", f"Cookie: _app_session={r(96, URL)}; path=/; HttpOnly"))
    f.append(item("proxy basic auth", "header", f"Proxy-Authorization: Basic {b64('squid:' + _pw(12))}"))
    f.append(item("jwt in cookie", "header", f"sb-access-token={_jwt({'sub': _uuid(), 'role': 'service_role', 'exp': 1893456000})}"))
    f.append(item("postmark header uuid", "header", f"X-Postmark-Server-Token: {_uuid()}"))
    # --- split across fields or lines of one memory
    f.append(item("secret on the next line", "split", f"client secret for the billing app (rotate in March):\n\n{r(40)}"))
    f.append(item("label in description, value in body", "split", f"{r(48, URL)}",
                  description="Stripe restricted key for the reporting job"))
    f.append(item("user in meta, password in body", "split", f"pw {_pw(13)}", meta={"username": "svc-backup", "host": "nas01"}))
    f.append(item("key halves on two lines", "split", f"api key part 1: {r(20)}\napi key part 2: {r(20)}"))
    return f


def look_alikes() -> list[dict]:
    """Shapes and places that resemble credentials and are not."""
    a = []
    a.append(item("commit id", "id", f"fixed in {r(40, HEX)}, cherry-picked to release-2.3"))
    a.append(item("token word with short sha", "id", f"fix token refresh race in auth middleware ({r(7, HEX)})"))
    a.append(item("request id uuid", "id", f"support ticket: request id {_uuid()} failed with 502 at 14:03"))
    a.append(item("stripe object ids", "id", f"refund pi_{r(24)} for customer cus_{r(14)}"))
    a.append(item("ulid", "id", f"job {r(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')} stuck in queue"))
    a.append(item("aws arn", "id", "role arn:aws:iam::123456789012:role/deploy-ci assumes into prod"))
    a.append(item("k8s pod name", "id", f"kubectl logs api-{r(9, 'bcdfghjklmnpqrstvwxz2456789')}-{r(5, 'bcdfghjklmnpqrstvwxz2456789')}"))
    a.append(item("azure tenant id", "id", f"AZURE_TENANT_ID={_uuid()}\nAZURE_SUBSCRIPTION_ID={_uuid()}"))
    a.append(item("oauth client id", "id", f"client_id={r(12, '0123456789')}-{r(32, LOWER)}.apps.googleusercontent.com"))
    a.append(item("image digest", "digest", f"image: ghcr.io/acme/api@sha256:{r(64, HEX)}"))
    a.append(item("npm integrity", "digest", f'"integrity": "sha512-{b64(_rand_bytes(64))}"'))
    a.append(item("poetry lock hash", "digest", f'{{file = "httpx-0.27.0-py3-none-any.whl", hash = "sha256:{r(64, HEX)}"}}'))
    a.append(item("cargo checksum", "digest", f'[[package]]\nname = "serde"\nversion = "1.0.203"\nchecksum = "{r(64, HEX)}"'))
    a.append(item("go.sum line", "digest", f"golang.org/x/net v0.25.0 h1:{b64(_rand_bytes(32))}"))
    a.append(item("sri script tag", "digest", f'<script src="/app.js" integrity="sha384-{b64(_rand_bytes(48))}" crossorigin></script>'))
    a.append(item("md5 in prose", "digest", f"md5 of the tarball is {r(32, HEX)}"))
    a.append(item("ethereum tx hash", "digest", f"tx hash 0x{r(64, HEX)} confirmed in block 19283746"))
    a.append(item("ssh public key", "public", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(43, B64)} jdoe@laptop"))
    a.append(item("host key fingerprint", "public", f"ED25519 key fingerprint is SHA256:{r(43, B64)}."))
    a.append(item("pgp public key block", "public", _block("PGP PUBLIC KEY BLOCK", "\n" + wrap(b64(_rand_bytes(600))))))
    a.append(item("certificate", "public", _block("CERTIFICATE", wrap(b64(_rand_bytes(700))))))
    a.append(item("gpg fingerprint", "public", "key fingerprint: " + " ".join(r(4, HEX).upper() for _ in range(10))))
    a.append(item("wireguard peer public key", "public", f"[Peer]\nPublicKey = {b64(_rand_bytes(32))}\nAllowedIPs = 10.8.0.0/24"))
    a.append(item("ethereum address", "public", f"send the test ETH to 0x{r(40, HEX)}"))
    a.append(item("age recipient", "public", f"encrypt to age1{r(58, BECH32)}"))
    a.append(item("nostr npub", "public", f"follow me: npub1{r(58, BECH32)}"))
    a.append(item("jwks public key", "public", json.dumps({"keys": [{"kty": "RSA", "kid": r(16, HEX), "use": "sig", "e": "AQAB",
                                                                     "n": _b64url(_rand_bytes(256))}]})))
    a.append(item("sentry dsn", "public", f"SENTRY_DSN=https://{r(32, HEX)}@o{r(6, '0123456789')}.ingest.sentry.io/{r(7, '0123456789')}"))
    a.append(item("placeholder angle", "placeholder", "OPENAI_API_KEY=<your-api-key-here>"))
    a.append(item("placeholder xxxx", "placeholder", "API_TOKEN=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"))
    a.append(item("changeme default in docs", "placeholder", "the default admin password is changeme; the setup wizard forces a new one"))
    a.append(item("env interpolation", "placeholder", "DB_PASSWORD=${DB_PASSWORD:?set it in the CI secrets}"))
    a.append(item("helm template", "placeholder", "password: {{ .Values.postgresql.auth.password | b64enc | quote }}"))
    a.append(item("os.environ lookup", "placeholder", 'token = os.environ["GITHUB_TOKEN"]'))
    a.append(item("masked password", "placeholder", "password=******** (masked by the CI log)"))
    a.append(item("bearer from variable", "placeholder", 'curl -H "Authorization: Bearer $ACCESS_TOKEN" https://api.example.com/me'))
    a.append(item("mysql -p prompt", "cli", "mysql -u root -p shop   # prompts for the password"))
    a.append(item("ssh-keygen empty passphrase", "cli", "ssh-keygen -t ed25519 -N '' -C ci@acme -f ./ci_key"))
    a.append(item("password policy prose", "prose", "password must be at least 12 characters and include a digit and a symbol"))
    a.append(item("rotated, stored elsewhere", "prose", "rotated the Stripe key today; the new one is in 1Password under 'Stripe prod'"))
    a.append(item("argon2 hash of test password", "digest", f"fixture user hash: $argon2id$v=19$m=65536,t=3,p=4${_b64url(_rand_bytes(16))}${_b64url(_rand_bytes(32))}"))
    a.append(item("test card", "public", "Stripe test card 4242 4242 4242 4242, any future expiry, any CVC"))
    a.append(item("version string", "misc", f"bumped to v2.14.3-rc.1+build.{r(7, HEX)} on the canary ring"))
    a.append(item("color codes", "misc", f"palette: #{r(6, HEX)} #{r(6, HEX)} #{r(6, HEX)}; accent #{r(6, HEX)}"))
    a.append(item("css class names", "misc", f'<div class="css-{r(7, LOWER)} sc-{r(6)} {r(6)} jsx-{r(10, "0123456789")}">'))
    a.append(item("wasm and chunk hashes", "misc", f"dist/app_bg-{r(16, HEX)}.wasm and dist/main.{r(8, HEX)}.js are cached for a year"))
    a.append(item("data uri", "misc", f'<img src="data:image/png;base64,iVBORw0KGgo{b64(_rand_bytes(90))}">'))
    a.append(item("otpauth docs", "prose", "scan the QR code in the app; the otpauth:// URI it holds carries the TOTP secret"))
    a.append(item("git ssh remote", "misc", "git remote add origin git@github.com:acme/vault-notes.git"))
    return a


FORMS = forms()
LOOK_ALIKES = look_alikes()

if __name__ == "__main__":
    print(f"{len(FORMS)} forms, {len(LOOK_ALIKES)} look-alikes")
