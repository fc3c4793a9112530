"""blind28's held-out corpus (issue 23 item 5): written at e13b8bc before reading the secret rules or
any earlier corpus (only heldout27's opening lines, for the file's format), then measured once on
main (the blind figure) before any fix.

Credential forms a developer might paste into a memory (FORMS, each must be refused) and
look-alikes that must pass (LOOK_ALIKES). Random parts come from a fixed seed, so the corpus is the
same on every run. ``python bench/bench_secrets.py --set heldout28 --misses``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

_rng = random.Random(2028)
_AN = string.ascii_letters + string.digits
_LOW = string.ascii_lowercase + string.digits


def _s(n: int, alphabet: str = _AN) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    return _s(n, "0123456789abcdef")


def _b64(n: int) -> str:
    return _s(n, _AN + "+/")


def _url(n: int) -> str:
    return _s(n, _AN + "-_")


def _b32(n: int) -> str:
    return _s(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")


def _digits(n: int) -> str:
    return _s(n, string.digits)


def _pw() -> str:
    """A password a person picks: words, digits and a symbol, not a random blob."""
    words = ["Falcon", "river", "Maple", "quartz", "Otter", "ember", "Cobalt", "lemon", "Tundra", "pixel",
             "Harbor", "violet", "Saturn", "mango", "Winter", "copper", "Juniper", "Badger", "orbit", "Nimbus"]
    return (_rng.choice(words) + _rng.choice(["", "_", "-", "."]) + _rng.choice(words).lower()
            + _digits(_rng.choice([2, 3, 4])) + _rng.choice("!@#$%&*?"))


def _uid() -> str:
    return str(uuid.UUID(int=_rng.getrandbits(128), version=4))


def _jwt(claims: dict | None = None) -> str:
    def enc(d: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(d, separators=(",", ":")).encode()).decode().rstrip("=")
    head = enc({"alg": "HS256", "typ": "JWT"})
    body = enc(claims or {"sub": _digits(9), "role": "admin", "iat": 1764900000, "exp": 1796436000})
    return f"{head}.{body}.{_url(43)}"


def _pem_body(nbytes: int) -> str:
    raw = base64.b64encode(bytes(_rng.getrandbits(8) for _ in range(nbytes))).decode()
    return "\n".join(raw[i:i + 64] for i in range(0, len(raw), 64))


_BIP39 = ("abandon ability able about above absent absorb abstract absurd abuse access accident account "
          "accuse achieve acid acoustic acquire across act action actor actress actual adapt add addict "
          "address adjust admit adult advance advice aerobic affair afford afraid again age agent agree "
          "ahead aim air airport aisle alarm album alcohol alert alien all alley allow almost alone alpha "
          "already also alter always amateur amazing among amount amused analyst anchor ancient anger "
          "angle angry animal ankle announce annual another answer antenna antique anxiety any apart "
          "apology appear apple approve april arch arctic area arena argue arm armed armor army around "
          "arrange arrest arrive arrow art artist artwork ask aspect assault asset assist assume asthma "
          "athlete atom attack attend attitude attract auction audit august aunt author auto autumn "
          "average avocado avoid awake aware away awesome awful awkward axis baby bachelor bacon badge "
          "bag balance balcony ball bamboo banana banner bar barely bargain barrel base basic basket "
          "battle beach bean beauty because become beef before begin behave behind believe below belt "
          "bench benefit best betray better between beyond bicycle bid bike bind biology bird birth "
          "bitter black blade blame blanket blast bleak bless blind blood blossom blouse blue blur blush "
          "board boat body boil bomb bone bonus book boost border boring borrow boss bottom bounce box "
          "boy bracket brain brand brass brave bread breeze brick bridge brief bright bring brisk "
          "broccoli broken bronze broom brother brown brush bubble buddy budget buffalo build bulb bulk "
          "bullet bundle bunker burden burger burst bus business busy butter buyer buzz cabbage cabin "
          "cable cactus cage cake call calm camera camp can canal cancel candy cannon canoe canvas "
          "canyon capable capital captain car carbon card cargo carpet carry cart case cash casino "
          "castle casual cat catalog catch category cattle caught cause caution cave ceiling celery "
          "cement census century cereal certain chair chalk champion change chaos chapter charge chase "
          "chat cheap check cheese chef cherry chest chicken chief child chimney choice choose chronic "
          "chuckle chunk churn cigar cinnamon circle citizen city civil claim clap clarify claw clay "
          "clean clerk clever click client cliff climb clinic clip clock clog close cloth cloud clown "
          "club clump cluster clutch coach coast coconut code coffee coil coin collect color column "
          "combine come comfort comic common company concert conduct confirm congress connect consider "
          "control convince cook cool copper copy coral core corn correct cost cotton couch country "
          "couple course cousin cover coyote crack cradle craft cram crane crash crater crawl crazy "
          "cream credit creek crew cricket crime crisp critic crop cross crouch crowd crucial cruel "
          "cruise crumble crunch crush cry crystal cube culture cup cupboard curious current curtain "
          "curve cushion custom cute cycle").split()


def _seed(n: int = 12) -> str:
    return " ".join(_rng.choice(_BIP39) for _ in range(n))


FORMS: list[dict] = []
LOOK_ALIKES: list[dict] = []


def _item(cls: str, name: str, body: str, description: str, key: str | None, meta: dict | None) -> dict:
    slug = "".join(c if c.isalnum() and c.isascii() else "-" for c in (key or name).lower())
    slug = "-".join(part for part in slug.split("-") if part)[:60] or "note"
    return {"class": cls, "name": f"{cls}/{name}", "key": slug,
            "description": description, "body": body, "meta": meta if meta is not None else {"tags": ["notes"]}}


def F(cls: str, name: str, body: str, description: str = "working notes", key: str | None = None,
      meta: dict | None = None) -> None:
    FORMS.append(_item(cls, name, body, description, key, meta))


def L(cls: str, name: str, body: str, description: str = "working notes", key: str | None = None,
      meta: dict | None = None) -> None:
    LOOK_ALIKES.append(_item(cls, name, body, description, key, meta))


# --- vendor tokens, mostly prefixes outside the usual scanner lists, each in a line a person writes --
_VENDORS = [
    ("linear", f"lin_api_{_s(40)}", "Linear API key for the triage bot: {v}"),
    ("posthog personal", f"phx_{_s(47)}", "posthog personal api key {v} (for the export script)"),
    ("sentry org token", f"sntrys_{_b64(60).replace('/', 'A').replace('+', 'b')}", "SENTRY_AUTH_TOKEN={v}"),
    ("sentry user token", f"sntryu_{_hex(64)}", "sentry-cli uses {v}"),
    ("digitalocean", f"dop_v1_{_hex(64)}", "doctl auth init -t {v}"),
    ("digitalocean oauth", f"doo_v1_{_hex(64)}", "DO oauth token: {v}"),
    ("planetscale", f"pscale_pw_{_url(43)}", "planetscale branch password {v}"),
    ("planetscale token", f"pscale_tkn_{_url(43)}", "PLANETSCALE_SERVICE_TOKEN={v}"),
    ("render", f"rnd_{_s(32)}", "render.com api key -> {v}"),
    ("fly", f"FlyV1 fm2_{_b64(180).replace('/', '_')}", "fly deploy token: {v}"),
    ("hashicorp vault", f"hvs.{_url(90)}", "VAULT_TOKEN={v}"),
    ("hashicorp batch", f"hvb.{_url(130)}", "batch token for CI {v}"),
    ("tailscale", f"tskey-auth-k{_s(16)}-{_s(33)}", "tailscale up --authkey={v}"),
    ("tailscale api", f"tskey-api-k{_s(16)}-{_s(33)}", "TS_API_KEY: {v}"),
    ("anthropic", f"sk-ant-api03-{_url(93)}AA", "ANTHROPIC_API_KEY={v}"),
    ("xai", f"xai-{_s(80)}", "grok key {v}"),
    ("groq", f"gsk_{_s(52)}", "groq: {v}"),
    ("replicate", f"r8_{_s(37)}", "REPLICATE_API_TOKEN={v}"),
    ("huggingface", f"hf_{_s(34)}", "huggingface-cli login --token {v}"),
    ("airtable pat", f"pat{_s(14)}.{_hex(64)}", "airtable personal access token {v}"),
    ("shopify admin", f"shpat_{_hex(32)}", "X-Shopify-Access-Token: {v}"),
    ("shopify shared secret", f"shpss_{_hex(32)}", "shopify app shared secret {v}"),
    ("sendgrid", f"SG.{_url(22)}.{_url(43)}", "sendgrid key: {v}"),
    ("mailgun", f"key-{_hex(32)}", "mailgun private api key {v}"),
    ("npm", f"npm_{_s(36)}", "NPM_TOKEN={v}"),
    ("pypi", f"pypi-AgEIcHlwaS5vcmcCJD{_url(150)}", "twine upload -p {v}"),
    ("atlassian", f"ATATT3xFfGF0{_url(170)}={_hex(8).upper()}", "jira api token {v}"),
    ("square", f"EAAA{_url(60)}", "square production access token {v}"),
    ("square sandbox", f"sq0atp-{_url(22)}", "square token: {v}"),
    ("facebook", f"EAAG{_s(180)}", "page access token {v}"),
    ("google oauth access", f"ya29.a0{_url(150)}", "gcloud auth print-access-token gave {v}"),
    ("google refresh", f"1//0g{_url(95)}", "refresh_token: {v}"),
    ("google client secret", f"GOCSPX-{_url(28)}", "oauth client secret GOCSPX is {v}"),
    ("aws access pair", f"AKIA{_s(16, string.ascii_uppercase + '234567')} {_b64(40)}", "aws keys: {v}"),
    ("aws temp", f"ASIA{_s(16, string.ascii_uppercase + '234567')}", "temp creds id {v} session FwoGZXIvYXdzE" + _b64(300)),
    ("slack bot", f"xoxb-{_digits(12)}-{_digits(13)}-{_s(24)}", "slack bot token {v}"),
    ("slack app", f"xapp-1-A{_s(10, string.ascii_uppercase + string.digits)}-{_digits(13)}-{_hex(64)}", "socket mode app token {v}"),
    ("slack user", f"xoxp-{_digits(12)}-{_digits(12)}-{_digits(13)}-{_hex(32)}", "my slack user token: {v}"),
    ("github fine grained", f"github_pat_11{_s(20, string.ascii_uppercase + string.digits)}_{_s(59)}", "GH_TOKEN={v}"),
    ("github server", f"ghs_{_s(36)}", "installation token {v}"),
    ("github oauth", f"gho_{_s(36)}", "gh hosts.yml oauth_token: {v}"),
    ("gitlab runner", f"glrt-{_url(20)}", "gitlab-runner register --token {v}"),
    ("gitlab deploy", f"gldt-{_url(20)}", "deploy token {v}"),
    ("gitlab pat", f"glpat-{_url(20)}", "gitlab PAT {v}"),
    ("databricks", f"dapi{_hex(32)}", "DATABRICKS_TOKEN={v}"),
    ("contentful", f"CFPAT-{_url(43)}", "contentful management token {v}"),
    ("stripe restricted", f"rk_live_{_s(99)}", "stripe restricted key {v}"),
    ("stripe webhook", f"whsec_{_s(32)}", "STRIPE_WEBHOOK_SECRET={v}"),
    ("stripe test secret", f"sk_test_{_s(99)}", "stripe test secret (still shouldn't live here) {v}"),
    ("netlify", f"nfp_{_s(36)}", "NETLIFY_AUTH_TOKEN={v}"),
    ("onepassword service", f"ops_eyJ{_url(300)}", "OP_SERVICE_ACCOUNT_TOKEN={v}"),
    ("terraform cloud", f"{_s(14)}.atlasv1.{_s(67)}", "TFE token {v}"),
    ("postman", f"PMAK-{_hex(24)}-{_hex(34)}", "postman api key {v}"),
    ("twilio api key secret", f"SK{_hex(32)} / {_s(32)}", "twilio api key sid/secret {v}"),
    ("dropbox", f"sl.B{_url(135)}", "dropbox short-lived token {v}"),
    ("discord bot", f"{base64.b64encode(_digits(18).encode()).decode().rstrip('=')}.{_url(6)}.{_url(38)}", "discord bot token {v}"),
    ("dynatrace", f"dt0c01.{_s(24, string.ascii_uppercase + string.digits)}.{_s(64, string.ascii_uppercase + string.digits)}", "DT_API_TOKEN={v}"),
    ("new relic", f"NRAK-{_s(27, string.ascii_uppercase + string.digits)}", "newrelic user key {v}"),
    ("grafana sa", f"glsa_{_s(32)}_{_hex(8)}", "grafana service account token {v}"),
    ("grafana cloud", f"glc_{_b64(120).replace('/', 'x').replace('+', 'y')}", "GRAFANA_CLOUD_TOKEN={v}"),
    ("buildkite", f"bkua_{_hex(40)}", "buildkite agent api token {v}"),
    ("circleci", f"CCIPAT_{_s(22)}_{_hex(40)}", "circleci personal token {v}"),
    ("rubygems", f"rubygems_{_hex(48)}", ":rubygems_api_key: {v}"),
    ("nuget", f"oy2{_s(43, string.ascii_lowercase + string.digits)}", "nuget push -ApiKey {v}"),
    ("docker hub", f"dckr_pat_{_url(27)}", "docker hub PAT {v}"),
    ("figma", f"figd_{_url(40)}", "FIGMA_TOKEN={v}"),
    ("notion", f"ntn_{_s(46)}", "notion integration secret {v}"),
    ("langsmith", f"lsv2_pt_{_hex(32)}_{_hex(10)}", "LANGCHAIN_API_KEY={v}"),
    ("pinecone", f"pcsk_{_s(6)}_{_s(60)}", "pinecone key {v}"),
    ("tavily", f"tvly-{_s(32)}", "tavily search key {v}"),
    ("nvidia", f"nvapi-{_url(64)}", "NGC api key {v}"),
    ("pulumi", f"pul-{_hex(40)}", "PULUMI_ACCESS_TOKEN={v}"),
    ("supabase pat", f"sbp_{_hex(40)}", "supabase login --token {v}"),
    ("supabase secret", f"sb_secret_{_url(31)}", "supabase secret key {v}"),
    ("apify", f"apify_api_{_s(36)}", "apify token {v}"),
    ("resend", f"re_{_s(8)}_{_s(24)}", "RESEND_API_KEY={v}"),
    ("prefect", f"pnu_{_s(36)}", "prefect cloud key {v}"),
    ("doppler", f"dp.pt.{_s(43)}", "doppler personal token {v}"),
    ("doppler service", f"dp.st.prd.{_s(40)}", "DOPPLER_TOKEN={v}"),
    ("mapbox secret", f"sk.eyJ1Ijoi{_url(40)}.{_url(22)}", "mapbox secret token {v}"),
    ("age", f"AGE-SECRET-KEY-1{_s(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}", "age identity: {v}"),
    ("brevo", f"xkeysib-{_hex(64)}-{_s(16)}", "brevo smtp api key {v}"),
    ("alibaba", f"LTAI{_s(20)} {_s(30)}", "aliyun accesskey id+secret {v}"),
    ("tencent", f"AKID{_s(32)} {_s(32)}", "tencentcloud SecretId/SecretKey {v}"),
    ("crates", f"cio{_s(32)}", "cargo login {v}"),
    ("azure ad secret", f"{_s(3)}8Q~{_url(34)}", "app registration client secret value {v}"),
    ("cloudflare api token", _url(40), "CLOUDFLARE_API_TOKEN={v}"),
    ("telegram bot", f"{_digits(10)}:AA{_url(33)}", "telegram bot token {v}"),
    ("openai project", f"sk-proj-{_url(156)}", "OPENAI_API_KEY={v}"),
    ("openai svcacct", f"sk-svcacct-{_url(100)}", "service account key for evals {v}"),
    ("mistral", _s(32), "MISTRAL_API_KEY={v}"),
    ("easypost", f"EZAK{_hex(54)}", "easypost production key {v}"),
    ("flutterwave", f"FLWSECK-{_hex(32)}-X", "flutterwave secret {v}"),
    ("adafruit", f"aio_{_s(28)}", "adafruit io key {v}"),
    ("mailersend", f"mlsn.{_hex(64)}", "mailersend token {v}"),
    ("clojars", f"CLOJARS_{_hex(60)}", "clojars deploy token {v}"),
    ("shippo", f"shippo_live_{_hex(40)}", "shippo live token {v}"),
    ("segment", f"sgp_{_s(64)}", "segment public api token {v}"),
    ("sourcegraph", f"sgp_{_hex(16)}_{_hex(40)}", "SRC_ACCESS_TOKEN={v}"),
    ("vercel", f"vercel_{_s(24)}", "vercel token (legacy env) {v}"),
    ("cohere", _s(40), "co.Client(api_key='{v}')"),
    ("deepgram", _hex(40), "DEEPGRAM_API_KEY: {v}"),
]
for _name, _tok, _tmpl in _VENDORS:
    F("vendor", _name, _tmpl.format(v=_tok))


# --- assignments in languages and config formats ------------------------------------------------
_ASSIGN = [
    ("python module constant", f'DB_PASS = "{_pw()}"\nDB_HOST = "db.internal"'),
    ("python dict", f'CONFIG = {{"host": "10.0.3.4", "user": "etl", "passwd": "{_pw()}"}}'),
    ("python kwargs", f'client = Minio("s3.lab:9000", access_key="labadmin", secret_key="{_s(40)}")'),
    ("django settings", f"SECRET_KEY = 'django-insecure-{_s(50, string.ascii_lowercase + string.digits + '!@#$%^&*(-_=+)')}'"),
    ("flask config", f'app.config["SECRET_KEY"] = "{_hex(48)}"'),
    ("javascript const", f"const apiSecret = '{_s(32)}';"),
    ("typescript export", f'export const STRIPE_SECRET = "sk_live_{_s(24)}";'),
    ("node env default", f"const token = process.env.GH_TOKEN || 'ghp_{_s(36)}';"),
    ("go short decl", f'password := "{_pw()}"\ndb, err := sql.Open("mysql", "app:"+password+"@/shop")'),
    ("go struct literal", f'cfg := Config{{User: "svc", Secret: "{_url(32)}"}}'),
    ("rust let", f'let token = "{_s(40)}";\nlet client = Client::new(token);'),
    ("java string", f'private static final String DB_PWD = "{_pw()}";'),
    ("kotlin val", f'val signingSecret = "{_b64(44)}"'),
    ("csharp var", f'var conn = "Server=sql01;Database=Billing;User Id=billing_app;Password={_pw()};";'),
    ("php variable", f"$db_password = '{_pw()}';"),
    ("php define", f"define('DB_PASSWORD', '{_pw()}');\ndefine('AUTH_KEY', '{_s(64, _AN + '!#%^&*()-_[]{{}}<>~+=,.;:/?|')}');"),
    ("ruby assignment", f'config.secret_key_base = "{_hex(128)}"'),
    ("ruby hash", f"Stripe.api_key = 'sk_live_{_s(24)}'"),
    ("swift let", f'let apiKey = "{_s(39)}"'),
    ("scala val", f'val dbPassword = "{_pw()}"'),
    ("elixir config", f'config :my_app, MyAppWeb.Endpoint, secret_key_base: "{_b64(64)}"'),
    ("perl my", f"my $pass = '{_pw()}';"),
    ("lua local", f'local auth_token = "{_hex(40)}"'),
    ("r setenv", f'Sys.setenv(OPENAI_API_KEY = "sk-{_s(48)}")'),
    ("powershell env", f'$env:AZURE_CLIENT_SECRET = "{_url(40)}"'),
    ("powershell securestring", f'$pw = ConvertTo-SecureString "{_pw()}" -AsPlainText -Force'),
    ("bash export", f"export REGISTRY_PASSWORD='{_pw()}'"),
    ("fish set", f"set -gx HOMEBREW_GITHUB_API_TOKEN ghp_{_s(36)}"),
    ("dotenv", f"DATABASE_URL=postgres://app@db:5432/app\nDATABASE_PASSWORD={_pw()}\nREDIS_URL=redis://cache:6379"),
    ("dotenv quoted", f'JWT_SECRET="{_b64(64)}"'),
    ("dotenv nextauth", f"NEXTAUTH_SECRET={_b64(44)}"),
    ("laravel app key", f"APP_KEY=base64:{base64.b64encode(bytes(_rng.getrandbits(8) for _ in range(32))).decode()}"),
    ("rails master key", f"RAILS_MASTER_KEY={_hex(32)}"),
    ("yaml nested", f"database:\n  host: pg.prod\n  username: reporting\n  password: {_pw()}"),
    ("yaml quoted", f'smtp:\n  user: "alerts@corp.example"\n  pass: "{_pw()}"'),
    ("toml section", f'[database]\nuser = "grafana"\npassword = "{_pw()}"'),
    ("ini section", f"[client]\nuser=backup\npassword={_pw()}"),
    ("json config", json.dumps({"api": {"endpoint": "https://api.vendor.io", "clientSecret": _url(40)}}, indent=2)),
    ("json appsettings", json.dumps({"ConnectionStrings": {"Default": f"Server=tcp:sqlsrv.database.windows.net,1433;Initial Catalog=app;User ID=appuser;Password={_pw()};Encrypt=True"}}, indent=2)),
    ("xml element", f"<datasource>\n  <username>jboss</username>\n  <password>{_pw()}</password>\n</datasource>"),
    ("xml attribute", f'<add key="StorageKey" value="{_b64(86)}==" />'),
    ("java properties", f"spring.datasource.url=jdbc:postgresql://db/orders\nspring.datasource.password={_pw()}"),
    ("gradle properties", f"signing.password={_pw()}\nossrhPassword={_pw()}"),
    ("android signing", f'signingConfigs {{ release {{ storePassword "{_pw()}"\n keyPassword "{_pw()}" }} }}'),
    ("terraform hcl", f'resource "aws_db_instance" "main" {{\n  username = "admin"\n  password = "{_pw()}"\n}}'),
    ("terraform tfvars", f'db_password = "{_pw()}"\ncloudflare_api_token = "{_url(40)}"'),
    ("sql create user", f"CREATE USER 'report'@'%' IDENTIFIED BY '{_pw()}';"),
    ("sql alter role", f"ALTER ROLE app_rw WITH LOGIN PASSWORD '{_pw()}';"),
    ("makefile var", f"DEPLOY_TOKEN ?= {_s(40)}\ndeploy:\n\tcurl -H \"Token: $(DEPLOY_TOKEN)\" ..."),
    ("dockerfile env", f"FROM node:20\nENV NPM_TOKEN={_s(36)}\nRUN npm ci"),
    ("dockerfile arg", f"ARG PIP_INDEX_URL=https://__token__:{_s(40)}@pypi.corp.example/simple"),
    ("nginx basic", f'proxy_set_header Authorization "Basic {base64.b64encode(("admin:" + _pw()).encode()).decode()}";'),
    ("redis conf", f"requirepass {_pw()}\nmaxmemory 2gb"),
    ("haproxy userlist", f"userlist admins\n  user ops insecure-password {_pw()}"),
    ("mosquitto", f"connection bridge\naddress broker:8883\nremote_username bridge\nremote_password {_pw()}"),
    ("wpa supplicant", f'network={{\n  ssid="Office-5G"\n  psk="{_pw()}"\n}}'),
    ("openvpn auth", f"auth-user-pass creds.txt\n# creds.txt:\n# vpnuser\n# {_pw()}"),
    ("rclone conf", f"[b2]\ntype = b2\naccount = {_hex(12)}\nkey = K00{_s(28)}"),
    ("ssh config note", f"Host bastion\n  User ec2-user\n  # password fallback: {_pw()}"),
    ("cron line", f"0 3 * * * PGPASSWORD={_pw()} pg_dump -h db -U backup shop > /bk/shop.sql"),
    ("vb dotnet", f'Dim pwd As String = "{_pw()}"'),
    ("c define", f'#define MQTT_PASSWORD "{_pw()}"\n#define WIFI_PASS "{_pw()}"'),
    ("arduino", f'const char* ssid = "Shed";\nconst char* password = "{_pw()}";'),
    ("dart", f"const String kApiKey = '{_s(39)}';"),
    ("clojure", f'(def db-spec {{:dbtype "postgresql" :user "app" :password "{_pw()}"}})'),
    ("haskell", f'apiToken = "{_hex(40)}" :: Text'),
    ("groovy jenkins", f"def nexusPass = '{_pw()}'\nsh \"mvn deploy -Dpassword=${{nexusPass}}\""),
    ("env with spaces", f"API_TOKEN = {_s(32)}"),
    ("camelcase label", f"myAccessToken: {_url(48)}"),
    ("snake label unusual", f"upstream_bearer={_url(40)}"),
    ("label without vowels", f"PWD_PRD={_pw()}"),
    ("credential label", f"credential: {_s(28)}"),
    ("pin code label", f"SIM PUK: {_digits(8)}  PIN: {_digits(4)}"),
]
for _name, _body in _ASSIGN:
    F("assignment", _name, _body)


# --- prose in several human languages -----------------------------------------------------------
_PROSE = [
    ("german", "Das Passwort für den NAS-Admin ist {p}, bitte nicht weitergeben."),
    ("german kennwort", "Kennwort vom Testserver: {p}"),
    ("french", "Le mot de passe du wifi invités est {p}"),
    ("french mdp", "mdp admin prod : {p}"),
    ("spanish", "La contraseña de la base de datos es {p}"),
    ("spanish clave", "clave del router: {p}"),
    ("portuguese", "A senha do painel é {p}"),
    ("italian", "La password di root è {p}"),
    ("dutch", "Het wachtwoord van de VPN is {p}"),
    ("polish", "Hasło do serwera: {p}"),
    ("russian", "Пароль от сервера: {p}"),
    ("ukrainian", "пароль до адмінки {p}"),
    ("japanese", "本番DBのパスワードは {p} です"),
    ("chinese", "服务器密码是 {p}"),
    ("chinese token", "接口的令牌：{t}"),
    ("korean", "관리자 비밀번호는 {p} 입니다"),
    ("turkish", "Sunucu şifresi: {p}"),
    ("swedish", "Lösenordet till routern är {p}"),
    ("czech", "heslo k databázi je {p}"),
    ("finnish", "salasana on {p}"),
    ("indonesian", "kata sandinya {p}"),
    ("vietnamese", "mật khẩu wifi là {p}"),
    ("hindi", "सर्वर का पासवर्ड {p} है"),
    ("arabic", "كلمة المرور هي {p}"),
    ("greek", "ο κωδικός πρόσβασης είναι {p}"),
    ("hebrew", "הסיסמה היא {p}"),
    ("norwegian", "passordet er {p}"),
    ("danish", "adgangskoden er {p}"),
    ("hungarian", "a jelszó: {p}"),
    ("romanian", "parola este {p}"),
    ("german api schluessel", "API-Schlüssel für das Wetter-Widget: {t}"),
    ("french cle", "la clé d'API du service de cartes : {t}"),
    ("spanish token", "el token de acceso es {t}"),
]
for _name, _tmpl in _PROSE:
    F("prose", _name, _tmpl.format(p=_pw(), t=_s(40)))


# --- chat-style: how people say it to an agent ---------------------------------------------------
_CHAT = [
    "the password is {p}",
    "fyi the staging pw is {p}",
    "pw: {p}",
    "creds are admin / {p}",
    "login: deploy, pass: {p}",
    "use {p} as the password for the grafana admin",
    "remember that the prod db password changed to {p} today",
    "the new router password — {p} — is on the fridge too",
    "Password's {p}, username is the usual",
    "it's '{p}' (capital first letter)",
    "passwd={p} for the jump host",
    "kibana elastic user / {p}",
    "He told me the passcode is {p}",
    "the secret is {t}, don't lose it",
    "I pasted the key here so we don't lose it: {t}",
    "here's the token you asked for {t}",
    "Note to self: mysql root → {p}",
    "user=ana password={p}",
    "u: sre-bot p: {p}",
    "pass for the shared 1password vault: {p}",
    "Master password (KeePass): {p}",
    "VPN: user jdoe, pwd {p}",
    "wifi: CoffeeLab / {p}",
    "sudo password on the build box is {p}",
    "the admin panel login is admin:{p}",
    "my password: {w}",
    "Reset the jenkins password, it's now {p}.",
    "Her PIN for the door is 482913 and the alarm password is {p}",
    "API key -> {t}",
    "the access key for the bucket: {t}",
    "client secret (prod) = {t}",
    "> password: {p}\n> (from the onboarding email)",
    "- [x] rotate redis password → {p}",
    "Q: what's the pgadmin password?\nA: {p}",
    "Temporary password for the new hire: {p} (must change at first login)",
]
for _i, _tmpl in enumerate(_CHAT):
    F("chat", f"chat {_i:02d}", _tmpl.format(p=_pw(), t=_s(_rng.choice([32, 40, 48])),
                                            w="correcthorse" + _rng.choice(["battery", "stapler", "mango"]) + "staple"))


# --- command lines ------------------------------------------------------------------------------
_CMDS = [
    ("mysql -p", "mysql -h db1 -u root -p{p} shop"),
    ("mysql --password", "mysqldump --user=backup --password='{p}' --all-databases > all.sql"),
    ("pgpassword env", "PGPASSWORD='{p}' psql -h pg.internal -U analytics -d events"),
    ("psql conninfo", 'psql "host=pg.internal user=analytics password={p} dbname=events"'),
    ("curl -u", "curl -u jenkins:{p} https://ci.corp.example/api/json"),
    ("curl --user", "curl --user 'svc-metrics:{p}' https://prom.internal/api/v1/query"),
    ("curl bearer", 'curl -H "Authorization: Bearer {t}" https://api.internal/v2/jobs'),
    ("curl x-api-key", "curl -s -H 'x-api-key: {t}' https://api.vendor.io/v1/items"),
    ("curl token header", 'curl -H "PRIVATE-TOKEN: glpat-{u20}" https://gitlab.corp/api/v4/projects'),
    ("curl query key", 'curl "https://maps.vendor.io/geocode?address=Main+St&key={t}"'),
    ("wget password", "wget --user=mirror --password={p} https://files.corp/dist.tar.gz"),
    ("sshpass", "sshpass -p '{p}' ssh pi@192.168.1.40"),
    ("docker login -p", "docker login registry.corp.example -u ci -p {p}"),
    ("echo password-stdin", "echo '{p}' | docker login ghcr.io -u octo --password-stdin"),
    ("az login sp", "az login --service-principal -u {uid} -p {t} --tenant {uid2}"),
    ("gh auth with token", "gh auth login --with-token <<< ghp_{t36}"),
    ("npm config set", "npm config set //npm.pkg.github.com/:_authToken {t}"),
    ("git clone token url", "git clone https://oauth2:glpat-{u20}@gitlab.com/team/infra.git"),
    ("redis-cli -a", "redis-cli -h cache.prod -a '{p}' INFO"),
    ("mongosh uri", 'mongosh "mongodb+srv://admin:{p}@cluster0.ab1cd.mongodb.net/test"'),
    ("lftp -u", "lftp -u uploader,{p} sftp://files.partner.example"),
    ("smbclient -U", "smbclient //nas/share -U 'office%{p}'"),
    ("rsync password env", "RSYNC_PASSWORD={p} rsync -av rsync://backup@nas/photos ./photos"),
    ("htpasswd -b", "htpasswd -b -c /etc/nginx/.htpasswd admin {p}"),
    ("openssl passout", "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{p}"),
    ("keytool storepass", "keytool -importcert -keystore trust.jks -storepass {p} -file ca.crt"),
    ("zip -P", "zip -P '{p}' handover.zip contracts/*.pdf"),
    ("7z -p", "7z a -p{p} -mhe=on backup.7z ~/docs"),
    ("ldapsearch -w", 'ldapsearch -x -H ldaps://ldap.corp -D "cn=admin,dc=corp" -w {p} "(uid=ana)"'),
    ("mount cifs", "sudo mount -t cifs //fs/media /mnt/media -o username=kodi,password={p}"),
    ("vault login", "vault login hvs.{u90}"),
    ("kubectl from-literal", "kubectl create secret generic db --from-literal=username=app --from-literal=password='{p}'"),
    ("helm set", "helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword={p}"),
    ("terraform -var", "terraform apply -var 'db_password={p}'"),
    ("ansible extra vars", 'ansible-playbook site.yml -e "ansible_become_pass={p}"'),
    ("aws configure set", "aws configure set aws_secret_access_key {b40}"),
    ("xfreerdp", "xfreerdp /v:10.0.0.15 /u:Administrator /p:'{p}' /cert:ignore"),
    ("sqlcmd", "sqlcmd -S tcp:sql01,1433 -U sa -P '{p}' -Q 'SELECT 1'"),
    ("sqlplus", "sqlplus scott/{p}@//ora01:1521/ORCLPDB1"),
    ("java system property", "java -Djavax.net.ssl.keyStorePassword={p} -jar gateway.jar"),
    ("ssh-keygen -N", "ssh-keygen -t ed25519 -N '{p}' -f ~/.ssh/deploy"),
    ("gpg passphrase", "gpg --batch --pinentry-mode loopback --passphrase '{p}' -d secrets.gpg"),
    ("nmcli wifi", "nmcli dev wifi connect HomeNet password '{p}'"),
    ("net use", "net use Z: \\\\fileserver\\team /user:CORP\\svc_scan {p}"),
    ("httpie auth", "http -a admin:{p} POST :8080/api/reindex"),
    ("mc alias", "mc alias set prod https://minio.prod {t20} {b40}"),
    ("mosquitto_pub", "mosquitto_pub -h broker -u sensor -P '{p}' -t home/temp -m 21"),
    ("influx", "influx -username admin -password '{p}' -execute 'SHOW DATABASES'"),
    ("clickhouse", "clickhouse-client --host ch1 --user default --password {p}"),
    ("pip extra index", "pip install --extra-index-url https://deploy:{p}@pypi.corp.example/simple corp-lib"),
    ("invoke-webrequest", "Invoke-RestMethod -Uri https://api.corp/items -Headers @{{Authorization = 'token {t}'}}"),
    ("wp cli", "wp user create bob bob@example.com --role=administrator --user_pass='{p}'"),
    ("rabbitmqctl", "rabbitmqctl add_user monitoring '{p}'"),
    ("chpasswd", "echo 'deploy:{p}' | sudo chpasswd"),
    ("kafka console", "kafka-console-consumer --bootstrap-server k1:9093 --consumer-property sasl.jaas.config='org.apache.kafka.common.security.plain.PlainLoginModule required username=\"reader\" password=\"{p}\";'"),
    ("heroku config set", "heroku config:set SECRET_KEY_BASE={h64} -a shop-prod"),
    ("gh secret set", "gh secret set SLACK_WEBHOOK --body 'https://hooks.slack.com/services/T{T8}/B{T8}/{t24}'"),
    ("flyctl secrets", "fly secrets set DATABASE_URL=postgres://app:{p}@db.flycast:5432/app"),
    ("firebase token", "firebase deploy --token 1//0e{u95}"),
    ("docker run -e", "docker run -e POSTGRES_PASSWORD={p} -d postgres:16"),
]
for _name, _tmpl in _CMDS:
    F("command", _name, _tmpl.format(p=_pw(), t=_s(40), t36=_s(36), t20=_s(20), t24=_s(24), u20=_url(20),
                                     u90=_url(90), u95=_url(95), b40=_b64(40), uid=_uid(), uid2=_uid(),
                                     h64=_hex(128), T8=_s(8, string.ascii_uppercase + string.digits)))


# --- connection strings and URLs ----------------------------------------------------------------
_CONNS = [
    ("postgres url", "postgresql://billing:{q}@pg-prod.internal:5432/billing?sslmode=require"),
    ("mysql url", "mysql://wordpress:{q}@127.0.0.1:3306/wp"),
    ("mongodb srv", "mongodb+srv://appUser:{q}@prod.x7k2p.mongodb.net/?retryWrites=true"),
    ("redis password only", "REDIS_URL=redis://:{q}@redis-12345.c1.us-east-1.ec2.cloud.redislabs.com:12345"),
    ("rediss user", "rediss://default:{t}@eu1-caring-gull-31337.upstash.io:31337"),
    ("amqp", "amqps://worker:{q}@rabbit.internal:5671/%2f"),
    ("jdbc query", "jdbc:mysql://db.internal:3306/crm?user=crm_app&password={q}&useSSL=true"),
    ("jdbc sqlserver", "jdbc:sqlserver://sql01:1433;databaseName=hr;user=hr_app;password={q};"),
    ("odbc", "Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:sql01;Uid=etl;Pwd={q};"),
    ("ado", "Data Source=ora01;User Id=SCOTT;Password={q};"),
    ("azure storage", "DefaultEndpointsProtocol=https;AccountName=shopassets;AccountKey={b86}==;EndpointSuffix=core.windows.net"),
    ("azure service bus", "Endpoint=sb://orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={b43}="),
    ("azure sas url", "https://shopassets.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-01-01T00:00:00Z&sig={sig}"),
    ("s3 presigned", "https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIA{A16}%2F20261205%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261205T101010Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={h64}"),
    ("smtp url", "EMAIL_URL=smtp://postmaster%40mg.shop.example:{q}@smtp.mailgun.org:587"),
    ("https basic in url", "https://admin:{q}@grafana.internal/d/abc"),
    ("ftp url", "ftp://uploads:{q}@ftp.printshop.example/incoming/"),
    ("sftp url", "sftp://deploy:{q}@web01.example.net:22/var/www"),
    ("url api_key query", "https://api.weather.example/v3/forecast?lat=52.5&lon=13.4&api_key={t}"),
    ("url access_token query", "https://graph.facebook.com/v19.0/me?access_token=EAAB{t}{t}"),
    ("slack webhook", "https://hooks.slack.com/services/T{T8}/B{T8}/{t24}"),
    ("discord webhook", "https://discord.com/api/webhooks/{d18}/{u68}"),
    ("teams webhook", "https://corp.webhook.office.com/webhookb2/{uid}@{uid2}/IncomingWebhook/{h32}/{uid}/{u44}"),
    ("telegram api url", "https://api.telegram.org/bot{d10}:AA{u33}/sendMessage?chat_id=42"),
    ("kafka jaas", 'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="svc" password="{q}";'),
    ("nats", "nats://ingest:{q}@nats.internal:4222"),
    ("ldap bind url", "ldaps://cn=readonly,dc=corp,dc=example:{q}@ldap.corp.example"),
    ("elasticsearch", "ES_HOSTS=https://elastic:{q}@es01.internal:9200"),
    ("neo4j", "NEO4J_URI=neo4j+s://neo4j:{q}@a1b2c3d4.databases.neo4j.io"),
    ("snowflake", "snowflake://loader:{q}@xy12345.eu-central-1/ANALYTICS/PUBLIC?warehouse=LOAD"),
    ("clickhouse url", "clickhouse://default:{q}@ch.internal:9000/default"),
    ("proxy url", "export https_proxy=http://jdoe:{q}@proxy.corp:3128"),
    ("git credentials", "https://x-access-token:ghs_{t36}@github.com"),
    ("socks", "ALL_PROXY=socks5h://tunnel:{q}@10.1.1.1:1080"),
    ("sqlalchemy", "engine = create_engine('mssql+pyodbc://sa:{q}@sql01/warehouse?driver=ODBC+Driver+18')"),
    ("cassandra conf", "contact-points: [ 10.0.0.5:9042 ]\nauth-provider: {{ username: cassandra, password: {q} }}"),
    ("webdav", "davs://nextcloud.home/remote.php/dav/files/me — user me, app password {np}"),
]
for _name, _tmpl in _CONNS:
    _q = _pw().replace("@", "!").replace("#", "%23").replace("?", "!").replace("%", "%25") if "%" not in _tmpl else _pw()
    F("connection", _name, _tmpl.format(q=_q.replace("@", "!"), t=_s(32), t24=_s(24), t36=_s(36), b86=_b64(86), b43=_b64(43),
                                        sig=_b64(43).replace("/", "%2F").replace("+", "%2B") + "%3D",
                                        A16=_s(16, string.ascii_uppercase + "234567"), h64=_hex(64), h32=_hex(32),
                                        T8=_s(8, string.ascii_uppercase + string.digits), d18=_digits(18), d10=_digits(10),
                                        u68=_url(68), u33=_url(33), u44=_url(44), uid=_uid(), uid2=_uid(),
                                        np="-".join(_s(5, string.ascii_letters + string.digits) for _ in range(5))))


# --- private keys of every armour ---------------------------------------------------------------
def _armour(label: str, n: int, headers: str = "") -> str:
    return f"-----BEGIN {label}-----\n{headers}{_pem_body(n)}\n-----END {label}-----"


_OPENSSH = base64.b64encode(b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01"
                            + bytes(_rng.getrandbits(8) for _ in range(300))).decode()
_KEYS = [
    ("rsa pkcs1", _armour("RSA PRIVATE KEY", 1190)),
    ("pkcs8", _armour("PRIVATE KEY", 1216)),
    ("ec", _armour("EC PRIVATE KEY", 121)),
    ("dsa", _armour("DSA PRIVATE KEY", 440)),
    ("encrypted pkcs8", _armour("ENCRYPTED PRIVATE KEY", 1300)),
    ("rsa encrypted legacy", _armour("RSA PRIVATE KEY", 1190, "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC," + _hex(32).upper() + "\n\n")),
    ("openssh", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(_OPENSSH[i:i + 70] for i in range(0, len(_OPENSSH), 70))
     + "\n-----END OPENSSH PRIVATE KEY-----"),
    ("openssh body without armour", "pasted the deploy key body by mistake:\n"
     + "\n".join(_OPENSSH[i:i + 70] for i in range(0, len(_OPENSSH), 70))),
    ("pgp private", _armour("PGP PRIVATE KEY BLOCK", 900, "Version: GnuPG v2\n\n")),
    ("ssh2 encrypted", "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key-20261201\"\n" + _pem_body(700)
     + "\n---- END SSH2 ENCRYPTED PRIVATE KEY ----"),
    ("putty v3", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20261204\nPublic-Lines: 2\n"
     + _pem_body(51) + "\nPrivate-Lines: 1\n" + _b64(44) + "\nPrivate-MAC: " + _hex(64)),
    ("putty v2 rsa", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: imported-openssh-key\nPublic-Lines: 6\n"
     + _pem_body(279) + "\nPrivate-Lines: 14\n" + _pem_body(780) + "\nPrivate-MAC: " + _hex(40)),
    ("age in file", "# created: 2026-12-01T10:00:00Z\n# public key: age1" + _s(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")
     + "\nAGE-SECRET-KEY-1" + _s(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
    ("wireguard", f"[Interface]\nPrivateKey = {_b64(43)}=\nAddress = 10.8.0.2/24\n\n[Peer]\nPublicKey = {_b64(43)}=\nEndpoint = vpn.home:51820"),
    ("jwk private", json.dumps({"kty": "EC", "crv": "P-256", "x": _url(43), "y": _url(43), "d": _url(43), "kid": "signing-1"})),
    ("jwk rsa private", json.dumps({"kty": "RSA", "n": _url(342), "e": "AQAB", "d": _url(342), "p": _url(171), "q": _url(171)})),
    ("minisign secret", "untrusted comment: minisign encrypted secret key\nRWRTY0Iy" + _b64(150)),
    ("signify secret", "untrusted comment: signify secret key\nRWRCSwAAA" + _b64(94)),
    ("nostr nsec", "my nostr key nsec1" + _s(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")),
    ("ethereum private key", f"deployer private key: 0x{_hex(64)}"),
    ("ethereum env", f"PRIVATE_KEY={_hex(64)}"),
    ("bitcoin wif", "paper wallet WIF: 5" + _s(50, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")),
    ("xprv", "xprv9s21ZrQH143K" + _s(95, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")),
    ("solana keypair", "id.json: " + json.dumps([_rng.randrange(256) for _ in range(64)])),
    ("tendermint", json.dumps({"address": _hex(40).upper(), "priv_key": {"type": "tendermint/PrivKeyEd25519", "value": _b64(86) + "=="}})),
    ("ipfs identity", json.dumps({"Identity": {"PeerID": "12D3KooW" + _s(44), "PrivKey": "CAESQ" + _b64(83)}})),
    ("gcp service account", json.dumps({"type": "service_account", "project_id": "shop-prod", "private_key_id": _hex(40),
                                        "client_email": "deployer@shop-prod.iam.gserviceaccount.com"}, indent=2)),
    ("gcp service account full", json.dumps({"type": "service_account", "private_key": _armour("PRIVATE KEY", 1216),
                                             "client_id": _digits(21)})),
    ("tss2", _armour("TSS2 PRIVATE KEY", 600)),
    ("k8s tls key b64", "tls.key: " + base64.b64encode(_armour("RSA PRIVATE KEY", 300).encode()).decode()),
    ("ppk in chat", "the putty key is:\nPrivate-Lines: 1\n" + _b64(44) + "\nPrivate-MAC: " + _hex(64)),
    ("pem key without newlines", "key=-----BEGIN PRIVATE KEY-----" + _pem_body(200).replace("\n", "") + "-----END PRIVATE KEY-----"),
    ("escaped pem in env", 'FIREBASE_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----\\n' + _pem_body(400).replace("\n", "\\n") + '\\n-----END PRIVATE KEY-----\\n"'),
]
for _name, _body in _KEYS:
    F("private key", _name, _body)


# --- seed phrases ---------------------------------------------------------------------------------
_SEEDS = [
    ("labelled 12", "metamask recovery phrase: {s12}"),
    ("labelled 24", "ledger seed (24 words): {s24}"),
    ("numbered list", "\n".join(f"{i + 1}. {w}" for i, w in enumerate(_seed(12).split()))),
    ("comma list", "backup words — " + ", ".join(_seed(12).split())),
    ("bare 12 words", "{s12}"),
    ("json mnemonic", json.dumps({"mnemonic": _seed(12), "path": "m/44'/60'/0'/0/0"})),
    ("hardhat config", "networks: {{ sepolia: {{ url: RPC, accounts: {{ mnemonic: \"{s12}\" }} }} }}"),
    ("env mnemonic", "MNEMONIC=\"{s24}\""),
    ("german seed", "Meine Wiederherstellungsphrase: {s12}"),
    ("spanish seed", "frase semilla de la billetera: {s12}"),
    ("15 words", "wallet words {s15}"),
    ("18 words in two lines", "seed:\n{s9}\n{s9b}"),
    ("uppercase", "RECOVERY: {S12}"),
]
for _name, _tmpl in _SEEDS:
    for _slot, _n in (("{s12}", 12), ("{s24}", 24), ("{s15}", 15), ("{s9}", 9), ("{s9b}", 9)):
        _tmpl = _tmpl.replace(_slot, _seed(_n))
    F("seed", _name, _tmpl.replace("{S12}", _seed(12).upper()).replace("{{", "{").replace("}}", "}"))


# --- passphrases, recovery keys, master passwords ---------------------------------------------
_PASSPHRASES = [
    ("diceware", "passphrase for the offsite backup key: glade-otter-rumble-seventy-pickle-crane"),
    ("gpg passphrase", "GPG key passphrase → \"never sleep under the orange bridge 1987\""),
    ("luks", "LUKS passphrase on the laptop: Tr4ms-at-midnight-in-Lisbon"),
    ("ssh key passphrase", "id_ed25519 passphrase is pepper.Anchor.51.violin"),
    ("bitlocker recovery", "BitLocker recovery key: " + "-".join(_digits(6) for _ in range(8))),
    ("filevault recovery", "FileVault recovery key " + "-".join(_s(4, string.ascii_uppercase + string.digits) for _ in range(6))),
    ("1password secret key", "1Password Secret Key: A3-" + "-".join([_s(6, string.ascii_uppercase + string.digits),
                                                                        _s(6, string.ascii_uppercase + string.digits)]
                                                                       + [_s(5, string.ascii_uppercase + string.digits) for _ in range(4)])),
    ("keepass", "keepass master: Lantern!Harbor!Quince!44"),
    ("wifi psk", "PSK for the IoT VLAN: 7b3!mossy-ferret-quilt"),
    ("apple recovery", "Apple ID recovery key " + "-".join(_s(4, string.ascii_uppercase + string.digits) for _ in range(7))),
    ("ansible vault pass", "ansible vault password file contents: raccoon-Tangerine-0412"),
    ("restic", "RESTIC_PASSWORD=hollow-velvet-cactus-93"),
    ("borg", "BORG_PASSPHRASE='seven silver swans at dawn'"),
    ("veracrypt", "VeraCrypt volume pass: Ostrich_Pancake_7712"),
    ("bank pin and pass", "online banking: login 77120034, password Blue7Heron!2026"),
    ("phrase in quotes", "the passphrase is 'purple monkey dishwasher 42'"),
]
for _name, _body in _PASSPHRASES:
    F("passphrase", _name, _body)


# --- one credential split across the frontmatter fields and the body ---------------------------
_pw_a, _pw_b, _tok_a = _pw(), _pw(), _s(40)
_SPLIT = [
    ("description names, body holds", _tok_a, "Stripe live secret key for the shop backend", "stripe-backend", None),
    ("key names, body holds", _s(36), "backend integration", "openai-api-key", None),
    ("meta username, body password", f"password {_pw_a}", "jump host access", "jump-host",
     {"tags": ["infra"], "username": "ops", "host": "bastion.corp"}),
    ("meta password field", "login for the staging admin panel", "staging admin", "staging-admin",
     {"tags": ["staging"], "user": "admin", "password": _pw_b}),
    ("meta token field", "token for the metrics push", "metrics push", "metrics-push",
     {"tags": ["ops"], "token": _s(40)}),
    ("tag holds the value", "see tags", "deploy creds", "deploy-creds", {"tags": ["deploy", f"pw:{_pw()}"]}),
    ("tag holds a vendor token", "the ci token is in the tags", "ci", "ci-token-tag", {"tags": ["ci", f"glpat-{_url(20)}"]}),
    ("description holds the value", "(value in the description)", f"db password is {_pw()}", "db-pass-desc", None),
    ("user in body, pass in description", "user: replicator\nhost: pg-replica.internal", f"pass {_pw()}", "replica-login", None),
    ("host/user/pass across fields", _pw(), "the password for the VPN (user: jdoe, host: vpn.corp)", "vpn-password", None),
    ("aws id in meta, secret in body", _b64(40), "aws secret access key", "aws-deploy",
     {"tags": ["aws"], "access_key_id": "AKIA" + _s(16, string.ascii_uppercase + "234567")}),
    ("refs field", "the reset link, valid for a day", "password reset", "reset-link",
     {"tags": ["ops"], "refs": [f"https://admin:{_pw().replace('@', '!')}@router.home/reset"]}),
    ("source field url", "imported", "imported note", "imported-note",
     {"tags": ["import"], "source": f"https://hooks.slack.com/services/T0{_s(7, string.ascii_uppercase)}/B0{_s(7, string.ascii_uppercase)}/{_s(24)}"}),
    ("api key key body two lines", f"{_s(8, _LOW)}-{_s(4, _LOW)}\n{_s(24)}", "sendgrid key in two halves", "sendgrid-halves", None),
    ("title key, bare password", _pw(), "the wifi password for the office", "office-wifi-password", None),
]
for _name, _body, _desc, _key, _meta in _SPLIT:
    F("split", _name, _body, description=_desc, key=_key, meta=_meta)


# --- encoded forms ------------------------------------------------------------------------------
def _b(s: str) -> str:
    return base64.b64encode(s.encode()).decode()


_ENCODED = [
    ("basic header", f"Authorization: Basic {_b('svc-reporting:' + _pw())}"),
    ("basic in curl", f"curl -H 'Authorization: Basic {_b('admin:' + _pw())}' https://jenkins.internal/api"),
    ("basic in python headers", f"headers = {{'Authorization': 'Basic {_b('api:' + _s(32))}'}}"),
    ("docker config auth", json.dumps({"auths": {"registry.corp.example": {"auth": _b("ci-bot:" + _pw())}}})),
    ("k8s secret data", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  username: {_b('app')}\n  password: {_b(_pw())}"),
    ("base64 of env file", "the .env, base64'd so it pastes: " + _b(f"DB_PASSWORD={_pw()}\nSTRIPE_KEY=sk_live_{_s(24)}\n")),
    ("base64 of json creds", "creds blob " + _b(json.dumps({"client_id": _uid(), "client_secret": _url(40)}))),
    ("hex encoded password", "password (hex): " + _pw().encode().hex()),
    ("url-encoded in url", f"postgres://app:{_pw().replace('!', '%21').replace('#', '%23').replace('@', '%40')}%40x@db/app"),
    ("echo base64 -d", f"echo {_b('root:' + _pw())} | base64 -d"),
    ("base64 private key", "LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS0K" + _b64(200)),
    ("gzip note", "git-credentials (base64): " + _b(f"https://bot:ghp_{_s(36)}@github.com\n")),
    ("filezilla base64 pass", f'<Server><Host>ftp.client.example</Host><User>web</User><Pass encoding="base64">{_b(_pw())}</Pass></Server>'),
    ("proxy-authorization", f"Proxy-Authorization: Basic {_b('jdoe:' + _pw())}"),
    ("reversed password", "password written backwards so bots miss it: " + _pw()[::-1]),
]
for _name, _body in _ENCODED:
    F("encoded", _name, _body)


# --- cookies and session ids ---------------------------------------------------------------------
_COOKIES = [
    ("django sessionid", f"Cookie: sessionid={_s(32, _LOW)}; csrftoken={_s(64)}"),
    ("express connect.sid", f"Set-Cookie: connect.sid=s%3A{_url(32)}.{_b64(43)}; Path=/; HttpOnly"),
    ("php", f"PHPSESSID={_s(26, _LOW)}"),
    ("java", f"curl -b 'JSESSIONID={_hex(32).upper()}' https://legacy.internal/app"),
    ("laravel", f"laravel_session={_b64(300)}%3D"),
    ("next-auth", f"__Secure-next-auth.session-token={_jwt()}"),
    ("aspnet", f".AspNetCore.Cookies=CfDJ8{_url(400)}"),
    ("github session", f"user_session={_url(48)}; __Host-user_session_same_site={_url(48)}"),
    ("rails remember", f"remember_user_token={_url(120)}--{_hex(40)}"),
    ("google sid", f"__Secure-1PSID=g.a000{_url(140)}"),
    ("claude session", f"sessionKey=sk-ant-sid01-{_url(86)}-{_url(6)}AA"),
    ("linkedin li_at", f"li_at={_url(150)}"),
    ("cookies.txt", f".shop.example\tTRUE\t/\tTRUE\t1798000000\tsession_id\t{_hex(48)}"),
    ("browser devtools copy", f"document.cookie = \"auth_token={_hex(40)}; path=/\""),
    ("session id prose", f"my session id for the admin console is {_s(40)} if you need to replay"),
    ("requests cookies", f"s.cookies.set('SESS', '{_s(48)}', domain='intranet')"),
    ("cf clearance", f"cf_clearance={_url(43)}-{_digits(10)}-1.2.1.1-{_url(200)}"),
    ("wordpress logged in", f"wordpress_logged_in_{_hex(32)}=admin%7C{_digits(10)}%7C{_url(43)}%7C{_hex(64)}"),
]
for _name, _body in _COOKIES:
    F("cookie", _name, _body)


# --- JWTs and other bearer tokens ---------------------------------------------------------------
_JWTS = [
    ("bare jwt in prose", f"got this token from the login call: {_jwt()}"),
    ("bearer jwt", f"Authorization: Bearer {_jwt()}"),
    ("supabase service role", "SUPABASE_SERVICE_ROLE_KEY=" + _jwt({"iss": "supabase", "ref": _s(20, _LOW), "role": "service_role", "iat": 1700000000, "exp": 2015000000})),
    ("localstorage dump", json.dumps({"access_token": _jwt(), "refresh_token": _url(64), "token_type": "Bearer"})),
    ("jwt in url", f"https://app.example/callback#id_token={_jwt()}&state=xyz"),
    ("jwe five parts", ".".join([_url(36), _url(342), _url(22), _url(200), _url(22)])),
    ("paseto local", f"v4.local.{_url(180)}"),
    ("fernet key", f"FERNET_KEY={base64.urlsafe_b64encode(bytes(_rng.getrandbits(8) for _ in range(32))).decode()}"),
    ("macaroon", "macaroon: MDAxY2xvY2F0aW9uIGh0dHA6Ly9leGFtcGxlLm9yZy8KMDAxNWlkZW50aWZpZXIga2V5aWQKMDAyZnNpZ25hdHVyZSB" + _url(60)),
    ("opaque bearer", f"bearer token for the partner API: {_url(64)}"),
    ("kube token", f"kubectl --token={_jwt({'iss': 'kubernetes/serviceaccount', 'sub': 'system:serviceaccount:ci:deployer'})} get pods"),
    ("oauth response", f'{{"access_token":"{_url(40)}","expires_in":3600,"refresh_token":"{_url(40)}","scope":"repo"}}'),
]
for _name, _body in _JWTS:
    F("jwt", _name, _body)


# --- OTP secrets and recovery codes -------------------------------------------------------------
_OTPS = [
    ("otpauth uri", f"otpauth://totp/GitHub:ana?secret={_b32(32)}&issuer=GitHub"),
    ("totp seed spaced", "TOTP seed for the AWS root account: " + " ".join(_b32(4).lower() for _ in range(8))),
    ("2fa secret label", f"2FA secret: {_b32(16)}"),
    ("github recovery codes", "GitHub recovery codes:\n" + "\n".join(f"{_hex(5)}-{_hex(5)}" for _ in range(8))),
    ("google backup codes", "Google backup codes: " + ", ".join(f"{_digits(4)} {_digits(4)}" for _ in range(6))),
    ("discord backup codes", "discord backup codes " + " ".join(_s(8, _LOW) for _ in range(5))),
    ("steam shared secret", json.dumps({"shared_secret": _b64(27) + "=", "identity_secret": _b64(27) + "=", "account_name": "gamer"})),
    ("mfa seed aws", f"virtual MFA secret (base32) {_b32(64)}"),
    ("hotp", f"otpauth://hotp/VPN:jdoe?secret={_b32(26)}&counter=12"),
    ("recovery codes prose", "if I lose my phone, recovery codes are " + ", ".join(f"{_s(4, _LOW)}-{_s(4, _LOW)}" for _ in range(5))),
    ("authy backup", "authy backups password: Glacier-Tulip-Fox-1911"),
    ("proton recovery", f"proton recovery phrase: {_seed(12)}"),
]
for _name, _body in _OTPS:
    F("otp", _name, _body)


# --- cloud, CI and IaC files as they get pasted ---------------------------------------------------
_AKID = "AKIA" + _s(16, string.ascii_uppercase + "234567")
_CLOUD = [
    ("aws credentials file", f"[default]\naws_access_key_id = {_AKID}\naws_secret_access_key = {_b64(40)}\nregion = eu-west-1"),
    ("aws secret alone", f"[prod]\naws_secret_access_key={_b64(40)}"),
    ("boto cfg", f"[Credentials]\naws_access_key_id = {_AKID}\naws_secret_access_key = {_b64(40)}"),
    ("s3cfg", f"[default]\naccess_key = {_s(20, string.ascii_uppercase + string.digits)}\nsecret_key = {_b64(40)}\nhost_base = s3.wasabisys.com"),
    ("tfstate", json.dumps({"resources": [{"type": "random_password", "instances": [{"attributes": {"result": _s(24), "length": 24}}]},
                                          {"type": "aws_db_instance", "instances": [{"attributes": {"password": _pw()}}]}]}, indent=1)),
    ("k8s stringData", f"apiVersion: v1\nkind: Secret\nstringData:\n  DB_PASSWORD: {_pw()}\n  API_KEY: {_s(32)}"),
    ("kubeconfig token", f"users:\n- name: ci\n  user:\n    token: {_jwt({'sub': 'system:serviceaccount:default:ci'})}"),
    ("kubeconfig client key", f"users:\n- name: admin\n  user:\n    client-certificate-data: {_b64(300)}\n    client-key-data: {_b('-----BEGIN RSA PRIVATE KEY-----' + _b64(120))}"),
    ("github actions env", f"jobs:\n  deploy:\n    env:\n      AWS_SECRET_ACCESS_KEY: {_b64(40)}\n      AWS_REGION: us-east-1"),
    ("gitlab ci variables", f"variables:\n  DOCKER_AUTH_CONFIG: '{{\"auths\":{{\"r.corp\":{{\"auth\":\"{_b('ci:' + _pw())}\"}}}}}}'\n  SONAR_TOKEN: {_hex(40)}"),
    ("circleci", f"environment:\n  COVERALLS_REPO_TOKEN: {_s(33)}"),
    ("docker compose env", f"services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: shop\n      POSTGRES_PASSWORD: {_pw()}"),
    ("docker compose list", f"environment:\n  - MYSQL_ROOT_PASSWORD={_pw()}\n  - MYSQL_DATABASE=wp"),
    ("helm values", f"postgresql:\n  auth:\n    postgresPassword: {_pw()}\n    replicationPassword: {_pw()}"),
    ("ansible inventory", f"[web]\nweb01 ansible_host=10.0.0.21 ansible_user=admin ansible_password={_pw()}"),
    ("ansible ssh pass", f"all:\n  vars:\n    ansible_ssh_pass: {_pw()}\n    ansible_become_password: {_pw()}"),
    ("cloudformation", f"MasterUsername: admin\nMasterUserPassword: {_pw()}\nDBInstanceClass: db.t3.micro"),
    ("serverless", f"provider:\n  environment:\n    STRIPE_SECRET_KEY: sk_live_{_s(24)}"),
    ("app engine", f"env_variables:\n  SENDGRID_API_KEY: 'SG.{_url(22)}.{_url(43)}'"),
    ("azure pipelines", f"variables:\n  - name: acrPassword\n    value: {_s(32)}"),
    ("vagrantfile", f'config.ssh.username = "vagrant"\nconfig.ssh.password = "{_pw()}"'),
    ("packer", f'source "vsphere-iso" "win" {{\n  winrm_password = "{_pw()}"\n  vcenter_server = "vc.corp"\n}}'),
    ("cloud-init chpasswd", f"#cloud-config\nchpasswd:\n  list: |\n    root:{_pw()}\n  expire: false"),
    ("wrangler vars", f'[vars]\nAPI_SECRET = "{_s(40)}"'),
    ("vscode sftp", json.dumps({"name": "prod", "host": "web01", "username": "deploy", "password": _pw(), "remotePath": "/var/www"}, indent=2)),
    ("gcloud adc", json.dumps({"client_id": f"{_digits(12)}-{_s(32, _LOW)}.apps.googleusercontent.com", "client_secret": f"d-FL95Q{_url(17)}",
                               "refresh_token": f"1//0g{_url(95)}", "type": "authorized_user"})),
    ("npmrc", f"//registry.npmjs.org/:_authToken={_uid()}\n@corp:registry=https://npm.corp"),
    ("yarnrc", f'npmRegistries:\n  "https://npm.corp":\n    npmAuthToken: "{_s(36)}"'),
    ("pypirc", f"[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc{_url(120)}"),
    ("pip conf", f"[global]\nindex-url = https://ci:{_s(20)}@artifactory.corp/api/pypi/simple"),
    ("maven settings", f"<servers>\n  <server>\n    <id>nexus</id>\n    <username>deploy</username>\n    <password>{_pw()}</password>\n  </server>\n</servers>"),
    ("nuget config", f'<packageSourceCredentials><corp><add key="Username" value="ci" /><add key="ClearTextPassword" value="{_pw()}" /></corp></packageSourceCredentials>'),
    ("composer auth", json.dumps({"github-oauth": {"github.com": f"ghp_{_s(36)}"}, "http-basic": {"repo.packagist.com": {"username": "token", "password": _hex(40)}}})),
    ("cargo credentials", f'[registry]\ntoken = "cio{_s(32)}"'),
    ("gem credentials", f"---\n:rubygems_api_key: rubygems_{_hex(48)}"),
    ("gh hosts", f"github.com:\n    user: octo\n    oauth_token: gho_{_s(36)}\n    git_protocol: https"),
    ("git-credentials file", f"https://ana:{_pw().replace('@', '!')}@git.corp.example\nhttps://bot:ghp_{_s(36)}@github.com"),
    ("netrc", f"machine api.heroku.com\n  login me@corp.example\n  password {_uid()}"),
    ("netrc one line", f"machine ftp.corp login mirror password {_pw()}"),
    ("pgpass", f"pg-prod.internal:5432:orders:orders_rw:{_pw()}"),
    ("pgpass wildcard", f"*:*:*:postgres:{_pw()}"),
    ("my.cnf", f"[mysqldump]\nuser=dump\npassword=\"{_pw()}\""),
    ("wp-config", f"define( 'DB_USER', 'wp' );\ndefine( 'DB_PASSWORD', '{_pw()}' );"),
    ("htpasswd line", "admin:$apr1$" + _s(8) + "$" + _s(22, _AN + "./")),
    ("shadow line", "deploy:$6$" + _s(16, _AN + "./") + "$" + _s(86, _AN + "./") + ":19700:0:99999:7:::"),
    ("jenkins credentials", f"<com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl><id>nexus</id><username>ci</username><password>{_pw()}</password></com.cloudbees.plugins.credentials.impl.UsernamePasswordCredentialsImpl>"),
    ("firebase admin env", f"FIREBASE_CLIENT_EMAIL=firebase-adminsdk@app.iam.gserviceaccount.com\nFIREBASE_PRIVATE_KEY_ID={_hex(40)}"),
    ("sops decrypted", f"# sops -d secrets.enc.yaml\nstripe:\n  secret_key: sk_live_{_s(24)}\n  webhook_secret: whsec_{_s(32)}"),
]
for _name, _body in _CLOUD:
    F("cloud", _name, _body)


# === look-alikes: none of these may be refused ================================================
def _sha(s: str) -> str:
    return hashlib.sha256(s.encode()).hexdigest()


_LOOKS = [
    # commit and object ids
    ("ids", "short commit", f"fixed in {_hex(7)}, reverted in {_hex(7)}"),
    ("ids", "full commit", f"bisect says the first bad commit is {_hex(40)}"),
    ("ids", "git log", "\n".join(f"commit {_hex(40)}\nAuthor: Ana <ana@corp.example>\n\n    fix flaky test" for _ in range(2))),
    ("ids", "rev-parse", f"$ git rev-parse HEAD\n{_hex(40)}"),
    ("ids", "docker digest", f"image: ghcr.io/corp/api@sha256:{_hex(64)}"),
    ("ids", "docker ps", f"CONTAINER ID   IMAGE\n{_hex(12)}   postgres:16\n{_hex(12)}   redis:7"),
    ("ids", "container full id", f"docker inspect {_hex(64)} showed OOMKilled"),
    ("ids", "mongodb objectid", f"the broken order is ObjectId(\"{_hex(24)}\")"),
    ("ids", "ulid", f"event id 01J{_s(23, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')} was processed twice"),
    ("ids", "stripe object ids", f"refund for cus_{_s(14)} on charge ch_{_s(24)} (invoice in_{_s(24)})"),
    ("ids", "stripe request id", f"support asked for the request id: req_{_s(14)}"),
    ("ids", "k8s pod name", f"pod web-{_hex(10)}-{_s(5, _LOW)} keeps restarting"),
    ("ids", "aws arn", f"arn:aws:iam::{_digits(12)}:role/deploy-{_s(6, _LOW)}"),
    ("ids", "secrets manager arn", f"the password lives in arn:aws:secretsmanager:eu-west-1:{_digits(12)}:secret:prod/db-{_s(6)}"),
    ("ids", "oci ocid", f"ocid1.instance.oc1.eu-frankfurt-1.{_s(60, _LOW)}"),
    ("ids", "slack ids", f"post to channel C{_s(10, string.ascii_uppercase + string.digits)} as user U{_s(10, string.ascii_uppercase + string.digits)}"),
    ("ids", "ipfs cid", f"pinned at bafybei{_s(52, 'abcdefghijklmnopqrstuvwxyz234567')}"),
    ("ids", "nix store path", f"/nix/store/{_s(32, '0123456789abcdfghijklmnpqrsvwxyz')}-python3-3.12.7"),
    ("ids", "youtube and nanoid", f"the talk: https://youtu.be/{_url(11)} and the share link /s/{_url(21)}"),
    ("ids", "git lfs pointer", f"version https://git-lfs.github.com/spec/v1\noid sha256:{_hex(64)}\nsize 48213"),
    ("ids", "traceparent", f"traceparent: 00-{_hex(32)}-{_hex(16)}-01"),
    ("ids", "ethereum tx hash", f"deploy tx hash 0x{_hex(64)} confirmed in block 19283746"),
    ("ids", "ethereum address", f"send the test ETH to 0x{_hex(40)}"),
    ("ids", "bitcoin address", f"donations: bc1q{_s(38, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    # UUIDs
    ("uuid", "request id", f"x-request-id: {_uid()} timed out after 30s"),
    ("uuid", "tenant and subscription", f"tenant id {_uid()}, subscription {_uid()}"),
    ("uuid", "client id", f"the oauth client_id is {_uid()} (public, in the SPA bundle)"),
    ("uuid", "terraform lineage", json.dumps({"version": 4, "lineage": _uid(), "serial": 42})),
    ("uuid", "many uuids", "\n".join(f"- {_uid()} migrated" for _ in range(6))),
    ("uuid", "google client id", f"GOOGLE_CLIENT_ID={_digits(12)}-{_s(32, _LOW)}.apps.googleusercontent.com"),
    # checksums and lockfiles
    ("checksum", "sha256sums", "\n".join(f"{_hex(64)}  dist/app-{v}.tar.gz" for v in ("1.4.0", "1.4.1"))),
    ("checksum", "sha256 label", f"sha256 of the ISO: {_sha('iso')}"),
    ("checksum", "md5 of file", f"md5sum backup.sql -> {hashlib.md5(b'x').hexdigest()}"),
    ("checksum", "npm integrity", f'"node_modules/lodash": {{\n  "version": "4.17.21",\n  "integrity": "sha512-{_b64(86)}=="\n}}'),
    ("checksum", "yarn lock", f'lodash@^4.17.21:\n  version "4.17.21"\n  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{_hex(40)}"\n  integrity sha512-{_b64(86)}=='),
    ("checksum", "poetry lock", f'[[package]]\nname = "requests"\nfiles = [\n    {{file = "requests-2.32.3-py3-none-any.whl", hash = "sha256:{_hex(64)}"}},\n]'),
    ("checksum", "go sum", f"golang.org/x/net v0.30.0 h1:{_b64(43)}=\ngolang.org/x/net v0.30.0/go.mod h1:{_b64(43)}="),
    ("checksum", "cargo lock", f'[[package]]\nname = "serde"\nversion = "1.0.215"\nchecksum = "{_hex(64)}"'),
    ("checksum", "pip hash", f"django==5.1.3 \\\n    --hash=sha256:{_hex(64)}"),
    ("checksum", "terraform lock", f'provider "registry.terraform.io/hashicorp/aws" {{\n  version = "5.80.0"\n  hashes = [\n    "h1:{_b64(43)}=",\n    "zh:{_hex(64)}",\n  ]\n}}'),
    ("checksum", "flake lock", json.dumps({"nodes": {"nixpkgs": {"locked": {"narHash": f"sha256-{_b64(43)}=", "rev": _hex(40)}}}})),
    ("checksum", "sri", f'<script src="https://cdn.example/lib.js" integrity="sha384-{_b64(64)}" crossorigin="anonymous"></script>'),
    ("checksum", "pnpm lock", f"  /react@18.3.1:\n    resolution: {{integrity: sha512-{_b64(86)}==}}"),
    ("checksum", "composer lock", f'"dist": {{"type": "zip", "shasum": "{_hex(40)}", "reference": "{_hex(40)}"}}'),
    ("checksum", "etag", f'ETag: "{_hex(32)}"'),
    ("checksum", "gradle verification", f'<component group="com.google.guava" name="guava" version="33.3.1-jre">\n  <artifact name="guava-33.3.1-jre.jar">\n    <sha256 value="{_hex(64)}" origin="Generated by Gradle"/>\n  </artifact>\n</component>'),
    # public keys and certificates
    ("public", "ssh ed25519 pub", f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(43)} ana@laptop"),
    ("public", "ssh rsa pub", f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{_b64(500)} deploy@ci"),
    ("public", "authorized_keys", f'command="/usr/bin/backup",no-pty ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(43)} backup'),
    ("public", "known_hosts", f"github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64(43)}"),
    ("public", "pem public key", _armour("PUBLIC KEY", 294)),
    ("public", "certificate", _armour("CERTIFICATE", 900)),
    ("public", "csr", _armour("CERTIFICATE REQUEST", 600)),
    ("public", "pgp public block", _armour("PGP PUBLIC KEY BLOCK", 800, "\n")),
    ("public", "ssh fingerprint", f"ED25519 key fingerprint is SHA256:{_b64(43)}."),
    ("public", "gpg fingerprint", "gpg: using EDDSA key " + " ".join(_hex(4).upper() for _ in range(10))),
    ("public", "age recipient", "encrypt to age1" + _s(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")),
    ("public", "wireguard peer public", f"[Peer]\nPublicKey = {_b64(43)}=\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.home:51820"),
    ("public", "nostr npub", "follow me: npub1" + _s(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l")),
    ("public", "xpub", "watch-only wallet xpub6" + _s(106, "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")),
    ("public", "stripe publishable", f"frontend uses the publishable key pk_live_{_s(99)}"),
    ("public", "dh params", _armour("DH PARAMETERS", 264)),
    ("public", "tls cert fingerprint", "SHA256 Fingerprint=" + ":".join(_hex(2).upper() for _ in range(32))),
    # placeholders and references
    ("placeholder", "angle placeholder", "API_KEY=<your-api-key>\nAPI_SECRET=<your-api-secret>"),
    ("placeholder", "xxxx", "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholder", "changeme docs", "The default admin password is `changeme`; the installer forces you to change it."),
    ("placeholder", "env example", "# .env.example\nDATABASE_URL=\nDB_PASSWORD=your_password_here\nSECRET_KEY=change-me"),
    ("placeholder", "shell reference", "export PGPASSWORD=\"${DB_PASSWORD}\"\npsql -h \"$DB_HOST\" -U \"$DB_USER\""),
    ("placeholder", "actions secret ref", "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  AWS_SECRET_ACCESS_KEY: ${{ secrets.AWS_SECRET_ACCESS_KEY }}"),
    ("placeholder", "jinja vault var", 'db_password: "{{ vault_db_password }}"\napi_token: "{{ lookup(\'env\', \'API_TOKEN\') }}"'),
    ("placeholder", "terraform var ref", 'password = var.db_password\ntoken    = data.vault_generic_secret.ci.data["token"]'),
    ("placeholder", "symfony env", "database_password: '%env(DATABASE_PASSWORD)%'"),
    ("placeholder", "code getenv", 'password = os.environ["DB_PASSWORD"]\ntoken = os.getenv("GITHUB_TOKEN")\nkey = System.getenv("API_KEY")'),
    ("placeholder", "process env", "const stripe = new Stripe(process.env.STRIPE_SECRET_KEY!, { apiVersion: '2024-06-20' });"),
    ("placeholder", "masked", "PASSWORD=********\nTOKEN=[REDACTED]\nsecret: '***'"),
    ("placeholder", "op reference", "DB_PASSWORD=op://Engineering/prod-db/password"),
    ("placeholder", "vault path", "read it with `vault kv get -field=password secret/prod/db`"),
    ("placeholder", "sops encrypted", f"password: ENC[AES256_GCM,data:{_b64(24)},iv:{_b64(43)}=,tag:{_b64(22)}==,type:str]"),
    ("placeholder", "ansible vault blob", "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(_hex(80) for _ in range(4))),
    ("placeholder", "bearer placeholder", "curl -H \"Authorization: Bearer $TOKEN\" https://api.example.com/v1/me"),
    ("placeholder", "curl user vars", 'curl -u "$NEXUS_USER:$NEXUS_PASS" https://nexus/repository/'),
    ("placeholder", "mysql prompt", "mysql -u root -p   # it prompts; the password is in the team vault"),
    ("placeholder", "doc url creds", "Format: postgres://USER:PASSWORD@HOST:PORT/DBNAME"),
    ("placeholder", "password stdin", 'cat ~/ghcr.txt | docker login ghcr.io -u "$GH_USER" --password-stdin'),
    ("placeholder", "getpass", "pw = getpass.getpass('Password: ')\nread -rs PASSWORD"),
    ("placeholder", "kubectl jsonpath", "kubectl get secret db -o jsonpath='{.data.password}' | base64 -d"),
    ("placeholder", "empty values", '{"username": "", "password": "", "token": null}'),
    ("placeholder", "aws docs example key", "the docs use AKIAIOSFODNN7EXAMPLE / wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY in every sample"),
    ("placeholder", "angle token in header", "Authorization: token <PERSONAL_ACCESS_TOKEN>"),
    ("placeholder", "dots elided key", "the key starts with sk-proj-… and ends in …Qx9A; the full one is in 1Password"),
    # prose about passwords and secrets, no value
    ("prose", "policy", "Password policy: at least 14 characters, one symbol, rotated every 90 days; no reuse of the last 5."),
    ("prose", "rotation note", "Rotated the Stripe key today; the old one is revoked and the new one is in the secret manager."),
    ("prose", "where it lives", "The prod DB password is in 1Password under 'Prod Postgres' — never paste it here."),
    ("prose", "hashing", "We store passwords with argon2id (m=64MB, t=3, p=4); tokens are compared in constant time."),
    ("prose", "german policy", "Das Passwort muss mindestens 12 Zeichen lang sein und wird alle 90 Tage geändert."),
    ("prose", "french reset", "J'ai réinitialisé mon mot de passe hier, le nouveau est dans le coffre-fort."),
    ("prose", "token expired", "The GitHub token expired on 2026-11-30; I generated a new fine-grained one with repo:read only."),
    ("prose", "password field bug", "Bug: the password field accepts 'password' as a password. Add a blocklist check."),
    ("prose", "bip39 prose", "BIP-39 seed phrases are 12 or 24 words from a 2048-word list; the last word carries a checksum."),
    ("prose", "everyday words", "we need to act on the budget before april, then board the boat and check the cargo at the coast"),
    # test fixtures, clearly fake
    ("fixture", "pytest fixture", '@pytest.fixture\ndef user():\n    return User(email="test@example.com", password="test-password")'),
    ("fixture", "fake token in test", 'def test_rejects_bad_token(client):\n    r = client.get("/me", headers={"Authorization": "Bearer invalid"})\n    assert r.status_code == 401'),
    ("fixture", "factory", "UserFactory(username='alice', password='password123')  # fixture only"),
    ("fixture", "dummy key", 'API_KEY = "dummy"  # tests patch the HTTP client'),
    # other long random-looking things
    ("other", "data uri", f"<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{_b64(300)}\">"),
    ("other", "css modules", f"class=\"Button_root__{_url(5)} Button_primary__{_url(5)}\""),
    ("other", "csp nonce", f"Content-Security-Policy: script-src 'nonce-{_b64(22)}=' 'strict-dynamic'"),
    ("other", "pkce challenge", f"code_challenge={_url(43)}&code_challenge_method=S256"),
    ("other", "minified js", "function a(b){return b.map(c=>c*2).filter(Boolean)}var Qx7rT9=a([1,2,3]);"),
    ("other", "version list", "node 20.18.1, npm 10.8.2, python 3.12.7, postgres 16.4, redis 7.4.1"),
    ("other", "base64 of text", "the header was " + _b("hello from the build server, nothing secret")),
]
for _cls, _name, _body in _LOOKS:
    L(_cls, _name, _body)
