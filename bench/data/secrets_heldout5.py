"""The fifth held-out corpus for the secret gate: BLIND, written after the generic rules without
reading the detector, its tests or the other corpora (only the format of ``secrets_heldout4.py``
and the helpers of ``secret_gen.py``), committed, then measured ONCE, untuned. Its figure is the
honest estimate of the gate on text nobody tuned it for (RELIABILITY.md "Trust boundary").

It plays a developer of 2025-2026 pasting into a memory what they really paste: keys of vendors a
rule table may not list yet (LLM and inference APIs, feature flags, product analytics, email and
SMS, maps, search SaaS, vector databases, hosting and edge platforms, game and payment SDKs,
secrets managers and observability), and credentials whose *shape and place* carry them rather
than a known prefix: a JSON/YAML/TOML/INI/.env/HCL/XML/properties snippet, a shell-history line, a
curl/httpie/wget/CLI command, a URL query string (``?api_key=``, a SAS ``&sig=``, S3 and GCS
presigned URLs), an HTTP header, the connection string of an uncommon database, prose in English
and nine other languages, a table row, a value split between the description and the body,
base64-wrapped values (a Kubernetes Secret, a docker ``auths`` entry, a kubeconfig), private key
blocks of uncommon kinds (PuTTY, age, WireGuard, minisign, NATS, PGP, JWK, cosign), mnemonics,
PINs and passcodes, and passwords given with no label in an imperative sentence.

The look-alikes share those shapes and places without being secrets: public keys and
fingerprints, digests and integrity hashes, commit SHAs, resource ids, request and trace ids,
placeholders (``YOUR_API_KEY``, ``<token>``, ``${SECRET}``, ``{{ secrets.X }}``), keys redacted
with dots or asterisks, env var names without values, version strings, base64 of plain config,
CSP nonces in docs, references to where a secret lives, and numbers that look like PINs.

Decisions on the borderline (written before measuring):
- Look-alikes: the jwt.io documentation sample JWT (public, signed with the documented example
  secret); publishable/client-side keys public by design (a Stripe ``pk_live_``, a Mapbox
  ``pk.`` token, a PostHog ``phc_`` project key, a LaunchDarkly client-side id); a Twilio Account
  SID alone; a password *hash* (argon2id); the xkcd "correct horse battery staple" quoted as the
  famous example; a CSP nonce shown in a docs example; an age/WireGuard/minisign *public* key.
- Forms: a Google Maps key described as a server key (IP-restricted, not a browser key); an
  Algolia *admin* key; a keypad door code and a phone passcode (a PIN is a credential); a
  password given with no label ("log in as deploy with X"); a presigned URL (its signature grants
  access until it expires).

Same format and generator conventions as the other corpora (``secret_gen.py``): each item is a
memory (``{"name", "class", "key", "description", "body", "meta"}``), values are random from a
seeded generator and vendor prefixes are split so no scanner flags this file.

Measured once, untuned (``python bench/bench_secrets.py --set heldout5 --misses``, 2026-12-03,
code at 5f9d596 plus this corpus): **88/113 forms refused (77.9%), 4/47 look-alikes refused
(8.5%), precision 95.7%**. Per class: command 8/9, config 8/9, connstr 6/9, encoded 3/3, header
2/3, keyblock 8/8, phrase 2/8, prose 8/11, split 3/3, table 0/2, url 6/7, vendor 34/41.
Missed (25): cerebras key in prose, cohere trial key prose, launchdarkly sdk key, twilio sid and
token, algolia admin key, neon api key, doppler service token, maven settings xml, ngrok
authtoken, api_key query param (``appid=``), session cookie, oracle ezconnect, odbc mssql,
ldapsearch -w, prose english reset (no password word: "admin got reset to X"), prose spanish, prose italian token, table row password, table
row api keys, yubikey pin puk, door keypad code, phone passcode, imperative login no label,
imperative unlock keystore, imperative sudo.
False alarms (4): jwt.io sample, mapbox public token, posthog project key, codename word list
(twelve BIP-39 words under a "codenames" label).
Not tuned on: none of these has been fixed against this corpus. (That was true until the
measurement above; the branch ``secrets2`` then fixed the classes it found: 110/113 forms, 0/47
look-alikes. The untuned figure stays the blind one.)
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from urllib.parse import quote

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261205, "held5", "Working notes")
r, words, item = _G.r, _G.words, _G.item
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, LOWER, UP, HEX, B64, URL, BECH32, D5, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL",
                                                                   "BECH32", "D5", "PK"))
_rand_bytes, _uuid, _pw = _G.rand_bytes, _G.uuid, _G.pw
_b64url = _GEN["b64url"]
B32, PWCHARS = _GEN["B32"], _GEN["PWCHARS"]


def _jwt(claims: dict, alg: str = "HS256") -> str:
    return _G.jwt(claims, alg, 64 if alg == "EdDSA" else 32)


def _pem(kind: str, nbytes: int, headers: str = "") -> str:
    return f"{D5}BEGIN {kind}{D5}\n{headers}{wrap(b64(_rand_bytes(nbytes)))}\n{D5}END {kind}{D5}"


# vendor prefixes, split so this file carries none whole
P_GROQ, P_XAI, P_PPLX, P_OR = "gs" "k_", "xa" "i-", "pp" "lx-", "sk" "-or-v1-"
P_CSK, P_TGP, P_FW, P_R8 = "cs" "k-", "tg" "p_v1_", "f" "w_", "r" "8_"
P_SK_, P_SDK, P_STATSIG, P_FLAGSMITH = "s" "k_", "sd" "k-", "sec" "ret-", "se" "r."
P_PHX, P_PHC, P_RE, P_BREVO = "ph" "x_", "ph" "c_", "r" "e_", "xkey" "sib-"
P_MAPBOX_S, P_MAPBOX_P, P_GMAPS = "s" "k.", "p" "k.", "AI" "za"
P_PCSK, P_SBS, P_NAPI, P_NFP, P_RND = "pc" "sk_", "sb_" "secret_", "na" "pi_", "nf" "p_", "rn" "d_"
P_FLY, P_DDP, P_LIN, P_OPS = "FlyV1 " "fm2_", "dd" "p_", "lin_" "api_", "op" "s_"
P_GLSA, P_NRAK, P_PDL, P_RZP = "gl" "sa_", "NR" "AK-", "pdl_" "live_apikey_", "rzp_" "live_"
P_SQ, P_CLERK, P_SNTRYS, P_DP = "EA" "AA", "sk_" "live_", "sn" "trys_", "dp." "st.prd."
P_CIO, P_K005, P_AGE, P_NATS = "ci" "o", "K0" "05", "AGE-" "SECRET-KEY-1", "SU" "A"
P_PKLIVE, P_AKIA, P_KEY = "pk_" "live_", "AK" "IA", "ke" "y-"

# ---------------------------------------------------------------------------------------------
# FORMS: credentials a developer might paste
# ---------------------------------------------------------------------------------------------

FORMS: list[dict] = []


def F(name: str, cls: str, body: str, description: str | None = None, meta: dict | None = None) -> None:
    FORMS.append(item(name, cls, body, description, meta=meta))


# -- vendors of 2025-2026 ------------------------------------------------------------------------
F("groq key in .env", "vendor",
  f"Switched the summariser to Groq for latency (~300 tok/s).\n\n```\n{P_GROQ}{r(52)}\n```\nthat is the one in my .env.")
F("xai key in python", "vendor",
  f"Grok fallback when the main model times out:\n\n```python\nclient = Client(api_key=\"{P_XAI}{r(80)}\")\n```")
F("perplexity bearer in requests", "vendor",
  f"Search-grounded answers come from Perplexity:\n\n```python\nrequests.post(URL, headers={{\"Authorization\": \"Bearer {P_PPLX}{r(48)}\"}}, json=body)\n```")
F("openrouter key in continue config", "vendor",
  f"`~/.continue/config.yaml`:\n\n```yaml\nmodels:\n  - name: router\n    provider: openrouter\n    apiKey: {P_OR}{r(64, HEX)}\n```")
F("cerebras key in prose", "vendor",
  f"Cerebras is fast enough for the bench runs; I used {P_CSK}{r(48, LOWER)} from the team account.")
F("together key", "vendor", f"Together AI for the Llama fine-tune eval: `TOGETHER_API_KEY={P_TGP}{r(43, URL)}`")
F("fireworks key in ts", "vendor",
  f"```ts\nconst fw = new OpenAI({{ baseURL: 'https://api.fireworks.ai/inference/v1', apiKey: '{P_FW}{r(24)}' }});\n```")
F("replicate token shell", "vendor", f"To rerun the SDXL job: `export REPLICATE_API_TOKEN={P_R8}{r(37)}` then `make images`.")
F("elevenlabs header", "vendor",
  f"TTS for the demo video; ElevenLabs wants the key in its own header:\n\n    xi-api-key: {P_SK_}{r(48, HEX)}")
F("deepgram token header", "vendor", f"Deepgram transcription call:\n\n```\ncurl -X POST https://api.deepgram.com/v1/listen -H 'Authorization: Token {r(40, HEX)}' --data-binary @a.wav\n```")
F("cohere trial key prose", "vendor", f"Cohere trial key (rate-limited, fine for rerank tests): {r(40)}")
F("launchdarkly sdk key", "vendor",
  f"Feature flags: server SDK init\n\n```python\nldclient.set_config(Config(\"{P_SDK}{_uuid()}\"))\n```")
F("statsig server secret", "vendor", f"```js\nawait Statsig.initialize('{P_STATSIG}{r(43)}', {{ environment: {{ tier: 'staging' }} }});\n```")
F("flagsmith server key", "vendor", f"Flagsmith server-side environment key for prod: `Flagsmith(environment_key=\"{P_FLAGSMITH}{r(22)}\")`")
F("posthog personal api key", "vendor", f"For the analytics export script I created a PostHog personal API key: {P_PHX}{r(43)}")
F("resend key", "vendor", f"Transactional mail moved to Resend.\n\n```python\nresend.api_key = \"{P_RE}{r(8)}_{r(24)}\"\n```")
F("brevo key", "vendor", f"Newsletter (Brevo) API key, v3: {P_BREVO}{r(64, HEX)}-{r(16)}")
F("twilio sid and token", "vendor",
  f"SMS OTP provider:\n\n```python\nclient = Client(\"AC{r(32, HEX)}\", \"{r(32, HEX)}\")\n```")
F("mapbox secret token", "vendor",
  f"Tile upload needs the secret scope: {P_MAPBOX_S}{_b64url(json.dumps({'u': 'acme-maps', 'a': r(25, LOWER)}).encode())}.{r(22, URL)}")
F("google maps server key", "url",
  f"Geocoding from the backend (server key, IP-restricted):\nhttps://maps.googleapis.com/maps/api/geocode/json?address=Berlin&key={P_GMAPS}{r(35, URL)}")
F("algolia admin key", "vendor",
  f"Reindex job uses the Algolia *admin* key:\n\n```js\nconst client = algoliasearch('{r(10, UP)}', '{r(32, HEX)}');\n```")
F("pinecone key", "vendor", f"Vector store is Pinecone serverless; `Pinecone(api_key=\"{P_PCSK}{r(5)}_{r(60)}\")`")
F("supabase secret key", "vendor", f"Supabase new-style server key for the edge functions: {P_SBS}{r(31, URL)}")
F("neon api key", "vendor", f"Neon branch-per-PR automation uses {P_NAPI}{r(64, LOWER)}")
F("netlify pat", "vendor", f"Netlify deploys from CI: `netlify deploy --prod --auth {P_NFP}{r(40)}`")
F("render api key", "vendor", f"Render API for preview envs: Bearer {P_RND}{r(32)}")
F("fly deploy token", "vendor", f"`fly tokens create deploy` gave:\n\n{P_FLY}{r(180, B64)}")
F("deno deploy token", "vendor", f"deployctl --token={P_DDP}{r(36)} --project=edge-api main.ts")
F("linear api key", "vendor", f"Linear integration for the triage bot: {P_LIN}{r(40)}")
F("1password service account", "vendor",
  f"OP_SERVICE_ACCOUNT_TOKEN for CI:\n{P_OPS}{_b64url(json.dumps({'signInAddress': 'acme.1password.com', 'userAuth': {'method': 'SRPg-4096', 'alg': 'PBES2g-HS256', 'iterations': 650000, 'salt': r(22, URL)}, 'email': r(12, LOWER) + '@acmecorp.1password.com', 'srpX': r(64, HEX), 'muk': {'alg': 'A256GCM', 'ext': True, 'k': r(43, URL), 'key_ops': ['encrypt', 'decrypt'], 'kty': 'oct', 'kid': 'mp'}, 'secretKey': 'A3-' + r(6, UP) + '-' + r(6, UP), 'throttleSecret': {'seed': r(64, HEX), 'uuid': r(26, UP)}, 'deviceUuid': r(26, LOWER)}).encode())}")
F("grafana service account token", "vendor", f"Grafana SA token for the dashboard provisioner: {P_GLSA}{r(32)}_{r(8, HEX)}")
F("new relic user key", "vendor", f"New Relic NerdGraph queries: API-Key: {P_NRAK}{r(27, UP)}")
F("paddle live key", "vendor", f"Billing (Paddle Billing v2) live key: {P_PDL}{r(26, LOWER)}")
F("razorpay id and secret", "vendor", f"Razorpay for the India launch: key_id {P_RZP}{r(14)} / key_secret {r(24)}")
F("square access token", "vendor", f"Square POS sync, production access token: {P_SQ}{r(60, URL)}")
F("steam web api key", "vendor", f"Steam Web API key for the leaderboard importer: {r(32, HEX).upper()}")
F("playfab secret header", "vendor", f"PlayFab server API calls need the title secret:\n\n    X-SecretKey: {r(52, UP)}")
F("revenuecat secret", "vendor", f"RevenueCat secret API key (server only!): {P_SK_}{r(28)}")
F("clerk secret", "vendor", f"Clerk backend: CLERK_SECRET_KEY={P_CLERK}{r(40)}")
F("sentry org token", "vendor",
  f"sourcemaps upload uses {P_SNTRYS}{_b64url(json.dumps({'iat': 1764000000, 'url': 'https://sentry.io', 'region_url': 'https://de.sentry.io', 'org': 'acme'}).encode())}_{r(43)}")
F("doppler service token", "vendor", f"Doppler prod config is pulled with {P_DP}{r(43)}")
F("turso auth token", "vendor",
  f"libsql://edge-acme.turso.io\nauthToken: {_jwt({'a': 'rw', 'iat': 1764000000, 'id': _uuid()}, 'EdDSA')}")
F("crates.io token toml", "config", f"`~/.cargo/credentials.toml`\n\n```toml\n[registry]\ntoken = \"{P_CIO}{r(32)}\"\n```")

# -- config snippets ------------------------------------------------------------------------------
F("appsettings client secret", "config",
  f"```json\n{{\n  \"AzureAd\": {{\n    \"Instance\": \"https://login.microsoftonline.com/\",\n    \"TenantId\": \"{_uuid()}\",\n    \"ClientId\": \"{_uuid()}\",\n    \"ClientSecret\": \"{r(3)}8Q~{r(34, URL)}\"\n  }}\n}}\n```")
F("compose meili master key", "config",
  f"```yaml\nservices:\n  search:\n    image: getmeili/meilisearch:v1.12\n    environment:\n      MEILI_MASTER_KEY: {r(32, URL)}\n```")
F("s3cfg backblaze", "config",
  f"`~/.s3cfg` for the B2 bucket:\n\n```ini\n[default]\nhost_base = s3.eu-central-003.backblazeb2.com\naccess_key = 003{r(22, HEX)}\nsecret_key = {P_K005}{r(27)}\n```")
F("dotenv typesense qdrant", "config",
  f"```\n# .env.local\nTYPESENSE_HOST=xyz.a1.typesense.net\nTYPESENSE_API_KEY={r(32)}\nQDRANT_URL=https://{_uuid()}.eu-central.aws.cloud.qdrant.io\nQDRANT_API_KEY={r(40, URL)}\n```")
F("hcl datadog provider", "config",
  f"```hcl\nprovider \"datadog\" {{\n  api_key = \"{r(32, HEX)}\"\n  app_key = \"{r(40, HEX)}\"\n  api_url = \"https://api.datadoghq.eu/\"\n}}\n```")
F("maven settings xml", "config",
  f"```xml\n<servers>\n  <server>\n    <id>nexus-releases</id>\n    <username>deploy</username>\n    <password>{_pw(16)}</password>\n  </server>\n</servers>\n```")
F("nuget cleartext password", "config",
  f"```xml\n<packageSourceCredentials>\n  <acme>\n    <add key=\"Username\" value=\"ci\" />\n    <add key=\"ClearTextPassword\" value=\"{r(52, LOWER)}\" />\n  </acme>\n</packageSourceCredentials>\n```")
F("gradle signing properties", "config",
  f"gradle.properties on the release box:\n\n```\nsigning.keyId={r(8, HEX).upper()}\nsigning.password={_pw(18)}\nsigning.secretKeyRingFile=/home/rel/.gnupg/secring.gpg\n```")

# -- commands -----------------------------------------------------------------------------------
F("shell history sshpass", "command", f"from my history:\n\n```\n 1042  sshpass -p '{_pw(12)}' ssh admin@10.20.3.7\n```")
F("mysql -p glued", "command", f"`mysql -h db.internal -u app -p{_pw(13)} orders`")
F("curl -u mailjet", "command",
  f"```\ncurl -s -X POST -u \"{r(32, HEX)}:{r(32, HEX)}\" https://api.mailjet.com/v3.1/send -d @mail.json\n```")
F("httpie bearer", "command", f"```\nhttp POST https://api.acme.dev/v2/jobs Authorization:\"Bearer {r(48, URL)}\" name=reindex\n```")
F("wget password", "command", f"wget --user=ci --password='{_pw(15)}' https://artifacts.acme.dev/builds/latest.tar.gz")
F("redis-cli -a", "command", f"Quick check on the cache: `redis-cli -h cache.internal -a {r(24)} --no-auth-warning INFO memory`")
F("kubectl from-literal", "command",
  f"kubectl -n pay create secret generic stripe --from-literal=api-key={r(32)} --dry-run=client -o yaml")
F("ngrok authtoken", "command", f"ngrok config add-authtoken {r(27)}_{r(21)}")
F("docker login -p", "command", f"docker login registry.acme.dev -u robot$ci -p {r(32)}")

# -- URLs -----------------------------------------------------------------------------------------
F("api_key query param", "url", f"Weather widget fetches https://api.openweathermap.org/data/3.0/onecall?lat=52.5&lon=13.4&appid={r(32, HEX)}")
F("azure sas url", "url",
  f"Backup container SAS (valid till March):\nhttps://acmebackups.blob.core.windows.net/nightly?sv=2024-11-04&ss=b&srt=co&sp=rwdlacx&se=2027-03-01T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={quote(b64(_rand_bytes(32)), safe='')}")
F("s3 presigned url", "url",
  f"https://acme-exports.s3.eu-west-1.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={P_AKIA}{r(16, UP)}%2F20261203%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261203T095500Z&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature={r(64, HEX)}")
F("gcs signed url", "url",
  f"shared the model weights via https://storage.googleapis.com/acme-models/ckpt.bin?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=uploader%40acme-prod.iam.gserviceaccount.com%2F20261203%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261203T100000Z&X-Goog-Expires=86400&X-Goog-SignedHeaders=host&X-Goog-Signature={r(512, HEX)}")
F("ingest token in query", "url", f"Log drain endpoint: https://in.logs.acme-obs.io/v1/ingest?source=vercel&token={r(40, URL)}")
F("bitbucket remote with token", "url", f"git remote set-url origin https://x-token-auth:{r(36, URL)}@bitbucket.org/acme/mobile.git")

# -- headers ------------------------------------------------------------------------------------
F("basic auth header", "header", f"The legacy SOAP endpoint wants\n\n    Authorization: Basic {b64('svc_billing:' + _pw(14))}")
F("session cookie", "header",
  f"Repro with the logged-in session:\n\n    Cookie: __Secure-authjs.session-token={_b64url(_rand_bytes(24))}..{_b64url(_rand_bytes(16))}.{_b64url(_rand_bytes(120))}.{_b64url(_rand_bytes(16))}")
F("x-api-key header", "header", f"```\nGET /v1/usage HTTP/1.1\nHost: api.acme-partner.com\nX-API-Key: {r(40, HEX)}\n```")

# -- connection strings of uncommon databases ------------------------------------------------------
F("clickhouse cloud url", "connstr", f"clickhouse://default:{r(16, URL)}@ab12cd34ef.eu-west-1.aws.clickhouse.cloud:9440/default?secure=true")
F("neo4j aura", "connstr", f"Graph DB: neo4j+s://neo4j:{r(43, URL)}@{r(8, LOWER)}.databases.neo4j.io")
F("snowflake url", "connstr", f"snowflake://etl_user:{_pw(16)}@xy12345.eu-central-1/ANALYTICS/PUBLIC?warehouse=ETL_WH&role=LOADER")
F("oracle ezconnect", "connstr", f"sqlplus scott/{_pw(12)}@//ora-prod.internal:1521/ORCLPDB1")
F("surrealdb start", "connstr", f"Local dev: `surreal start --user root --pass {_pw(14)} surrealkv://data.db`")
F("influx token", "connstr",
  f"influx config create --config-name prod --host-url https://eu-central-1-1.aws.cloud2.influxdata.com --org acme --token {b64(_rand_bytes(64)).rstrip('=')[:86]}==")
F("odbc mssql", "connstr", f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:sql01.internal,1433;Database=erp;Uid=sa;Pwd={{{_pw(14)}}};Encrypt=yes;")
F("ldapsearch -w", "connstr", f"ldapsearch -H ldaps://ldap.acme.dev -D \"cn=admin,dc=acme,dc=dev\" -w '{_pw(13)}' -b \"ou=people,dc=acme,dc=dev\"")
F("smtps url", "connstr", f"EMAIL_URL=smtps://postmaster%40mg.acme.dev:{r(32, HEX)}-{r(8, HEX)}-{r(8, HEX)}@smtp.eu.mailgun.org:465")

# -- prose, several languages ------------------------------------------------------------------------
F("prose english reset", "prose", f"Staging admin got reset this morning to {_pw(12)} — the old one no longer works, tell Priya.")
F("prose french", "prose", f"Le mot de passe du compte de service est {_pw(13)}, à changer après la démo.")
F("prose german", "prose", f"Das Passwort für den Jenkins-Admin lautet {_pw(12)} (bis zum Umzug).")
F("prose spanish", "prose", f"La contraseña del router de la oficina es {_pw(11)} y el usuario es admin.")
F("prose japanese", "prose", f"本番DBのパスワードは {_pw(14)} です。共有しないでください。")
F("prose portuguese", "prose", f"A senha do painel de administração é {_pw(12)}; o login é suporte.")
F("prose chinese", "prose", f"测试服务器的密码是 {_pw(12)} ，用户名 root。")
F("prose russian", "prose", f"Пароль от админки: {_pw(13)} — не забудь сменить после релиза.")
F("prose polish", "prose", f"Hasło do konta serwisowego to {_pw(12)}, login: svc-backup.")
F("prose dutch", "prose", f"Het wachtwoord van de NAS is {_pw(12)}, gebruiker beheer.")
F("prose italian token", "prose", f"Il token dell'API di fatturazione è {r(40)}, scade a gennaio.")

# -- tables ---------------------------------------------------------------------------------------
F("table row password", "table",
  f"| env | user | password |\n|---|---|---|\n| staging | admin | {_pw(12)} |\n| dev | admin | (ask Lea) |")
F("table row api keys", "table",
  f"| service | key | owner |\n|---|---|---|\n| typesense | {r(32)} | search team |\n| algolia (app id) | {r(10, UP)} | web |")

# -- split across fields --------------------------------------------------------------------------
F("split description label body value", "split", f"`{_pw(14)}`", description="Password for the Grafana admin user on monitoring.acme.dev")
F("split user description pass body", "split", f"and the pass is {_pw(11)}", description="Unifi controller login: ubnt-admin")
F("split key label in description", "split", f"{r(32, HEX)}\n\nrotate in Q3.", description="Amplitude secret key (EU project)")

# -- base64-wrapped -----------------------------------------------------------------------------
F("k8s secret data", "encoded",
  f"```yaml\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: {b64('app')}\n  password: {b64(_pw(16))}\n```")
F("docker config auths", "encoded",
  f"`~/.docker/config.json` on the runner:\n\n```json\n{{\"auths\": {{\"registry.acme.dev\": {{\"auth\": \"{b64('robot$ci:' + r(32))}\"}}}}}}\n```")
F("kubeconfig client-key-data", "encoded",
  f"```yaml\nusers:\n- name: admin@k3s\n  user:\n    client-certificate-data: {b64(_pem('CERTIFICATE', 300))}\n    client-key-data: {b64(_pem('EC ' + PK, 121))}\n```")

# -- key blocks of uncommon kinds ----------------------------------------------------------------
F("putty ppk v3", "keyblock",
  "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@build\nPublic-Lines: 2\n"
  f"{wrap(b64(_rand_bytes(51)))}\nPrivate-Lines: 1\n{b64(_rand_bytes(36))}\nPrivate-MAC: {r(64, HEX)}")
F("age secret key", "keyblock",
  f"# created: 2026-11-30T10:02:11Z\n# public key: age1{r(58, BECH32)}\n{P_AGE}{r(58, BECH32.upper())}")
F("wireguard private key", "keyblock",
  f"```ini\n[Interface]\nAddress = 10.8.0.2/32\nPrivateKey = {b64(_rand_bytes(32))}\n\n[Peer]\nPublicKey = {b64(_rand_bytes(32))}\nEndpoint = vpn.acme.dev:51820\n```")
F("minisign secret key", "keyblock",
  f"untrusted comment: minisign encrypted secret key\n{b64(b'Ed' + _rand_bytes(156))}")
F("nats creds", "keyblock",
  f"{D5}BEGIN NATS USER JWT{D5}\n{_jwt({'jti': r(52, B32), 'iss': 'A' + r(55, B32), 'name': 'svc'}, 'ed25519-nkey')}\n------END NATS USER JWT------\n\n"
  f"************************* IMPORTANT *************************\nNKEY Seed printed below can be used to sign and prove identity.\n\n"
  f"{D5}BEGIN USER NKEY SEED{D5}\n{P_NATS}{r(55, B32)}\n------END USER NKEY SEED------")
F("pgp private key block", "keyblock", _pem("PGP " + PK[:-4] + " KEY BLOCK", 420, "Comment: release signing\n\n"))
F("jwk with d", "keyblock",
  f"```json\n{{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"kid\":\"sig-2026\",\"x\":\"{_b64url(_rand_bytes(32))}\",\"d\":\"{_b64url(_rand_bytes(32))}\"}}\n```")
F("cosign key", "keyblock", _pem("ENCRYPTED SIGSTORE " + PK, 250))

# -- mnemonics, PINs, unlabelled passwords ---------------------------------------------------------
F("mnemonic 12 labelled", "phrase", f"Recovery words for the test wallet (Sepolia only): {' '.join(words(12))}")
F("mnemonic 24 numbered", "phrase",
  "Written down from the Ledger setup:\n\n" + "\n".join(f"{i}. {w}" for i, w in enumerate(words(24), 1)))
F("yubikey pin puk", "phrase", f"The YubiKey PIN is {r(6, '0123456789')} and the PUK {r(8, '0123456789')}.")
F("door keypad code", "phrase", f"Server room keypad code: {' '.join(r(4, '0123456789'))} then #.")
F("phone passcode", "phrase", f"Test iPhone (the blue one) passcode {r(6, '0123456789')}.")
F("imperative login no label", "phrase", f"Log in as `deploy` with `{_pw(13)}` and run the migration before 9.")
F("imperative unlock keystore", "phrase", f"Use {_pw(12)} to unlock the release keystore, then ./gradlew bundleRelease.")
F("imperative sudo", "phrase", f"sudo on the build box takes {_pw(11)} — it's not in the vault yet.")

# ---------------------------------------------------------------------------------------------
# LOOK-ALIKES: same shapes and places, not secrets
# ---------------------------------------------------------------------------------------------

LOOK_ALIKES: list[dict] = []


def L(name: str, body: str, description: str | None = None, meta: dict | None = None) -> None:
    LOOK_ALIKES.append(item(name, "look-alike", body, description, meta=meta))


JWT_IO_SAMPLE = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9" "." "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
                 "." "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")

L("ssh ed25519 public key", f"Add to authorized_keys on the bastion:\n\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{r(43, B64)} deploy@build")
L("age public key", f"Encrypt backups to the team recipient: age1{r(58, BECH32)}")
L("wireguard public key only", f"Peer for Lea's laptop:\n\n```ini\n[Peer]\nPublicKey = {b64(_rand_bytes(32))}\nAllowedIPs = 10.8.0.5/32\n```")
L("minisign public key", f"Verify releases with\n\nuntrusted comment: minisign public key {r(16, HEX).upper()}\n{b64(b'Ed' + _rand_bytes(40))}")
L("pgp fingerprint", f"Release signing key fingerprint: {' '.join(r(4, HEX).upper() for _ in range(10))}")
L("ssh host fingerprint", f"bastion host key: ED25519 SHA256:{b64(_rand_bytes(32)).rstrip('=')} (checked against the console)")
L("file sha256", f"`sha256sum vault-mem-0.9.2.tar.gz` → {r(64, HEX)}")
L("npm integrity", f"package-lock entry:\n\n\"integrity\": \"sha512-{b64(_rand_bytes(64))}\"")
L("commit sha", f"The regression came in with {r(40, HEX)} (\"switch to async pool\"); reverted in {r(12, HEX)}.")
L("image digest", f"Pin the base image: `FROM python:3.12-slim@sha256:{r(64, HEX)}`")
L("resource uuid", f"Staging project id in the hosting dashboard: {_uuid()} (team acme).")
L("vercel ids", f"`.vercel/project.json`: {{\"orgId\": \"team_{r(24)}\", \"projectId\": \"prj_{r(28)}\"}}")
L("traceparent header", f"Slow request trace:\n\n    traceparent: 00-{r(32, HEX)}-{r(16, HEX)}-01")
L("request id header", f"Support asked for the id: `X-Request-Id: {_uuid()}` and `cf-ray: {r(16, HEX)}-FRA`")
L("placeholder YOUR_API_KEY", "Quick-start from the docs:\n\n```\ncurl https://api.groq.com/openai/v1/models -H \"Authorization: Bearer YOUR_API_KEY\"\n```")
L("placeholder angle token", "```\nhttp GET https://api.acme.dev/v2/me Authorization:\"Bearer <token>\"\n```\nreplace <token> with your own PAT.")
L("placeholder env expansion", "```yaml\nenvironment:\n  MEILI_MASTER_KEY: ${MEILI_MASTER_KEY}\n  DATABASE_URL: postgres://app:${DB_PASSWORD}@db:5432/app\n```")
L("github actions secrets ref", "```yaml\n- run: pnpm deploy\n  env:\n    NETLIFY_AUTH_TOKEN: ${{ secrets.NETLIFY_AUTH_TOKEN }}\n    OPENROUTER_API_KEY: ${{ secrets.OPENROUTER_API_KEY }}\n```")
L("redacted dots", f"The leaked key was {P_SK_[:2]}-proj-••••••••••••{r(4)} — already revoked, new one is in 1Password.")
L("redacted asterisks", f"Dashboard shows the key as {P_GROQ}****************************{r(4)}; the full value is only shown once.")
L("env var names only", "Needed in `.env` (values in the vault, ask ops):\n\n- `PINECONE_API_KEY`\n- `RESEND_API_KEY`\n- `STATSIG_SERVER_SECRET`\n- `CLERK_SECRET_KEY`")
L("dotenv example empty", "```\n# .env.example\nTYPESENSE_API_KEY=\nQDRANT_API_KEY=\nPOSTHOG_PERSONAL_API_KEY=changeme\nDB_PASSWORD=\n```")
L("version string", f"Pinned to 4.2.1-rc.3+build.{r(7, HEX)}; 4.3.0 breaks the hooks.")
L("base64 plain config", f"ConfigMap binaryData:\n\n```yaml\nbinaryData:\n  settings.json: {b64(json.dumps({'logLevel': 'debug', 'features': ['search', 'export'], 'region': 'eu-central-1'}))}\n```")
L("csp nonce docs", f"CSP example from the docs: `Content-Security-Policy: script-src 'nonce-{b64(_rand_bytes(16))}'` — the server must generate a fresh nonce per response.")
L("jwt.io sample", f"jwt.io's example token, handy for testing the parser:\n\n{JWT_IO_SAMPLE}")
L("stripe publishable key", f"Checkout page (frontend) uses the publishable key {P_PKLIVE}{r(99)}; it's public by design.")
L("mapbox public token", f"Map style in the web app, public token: {P_MAPBOX_P}{_b64url(json.dumps({'u': 'acme-maps', 'a': r(25, LOWER)}).encode())}.{r(22, URL)}")
L("posthog project key", f"posthog.init('{P_PHC}{r(43)}', {{ api_host: 'https://eu.i.posthog.com' }}) — the project key is meant to ship in the bundle.")
L("launchdarkly client side id", f"LD client-side ID (public, goes to the browser): {r(24, HEX)}")
L("twilio account sid alone", f"SMS logs are under account AC{r(32, HEX)} in the console.")
L("argon2 hash", f"Seed user row has password_hash `$argon2id$v=19$m=65536,t=3,p=4${b64(_rand_bytes(16)).rstrip('=')}${b64(_rand_bytes(32)).rstrip('=')}`")
L("xkcd example", "Password policy doc quotes the xkcd example \"correct horse battery staple\" to explain passphrases.")
L("codename word list", f"Release codenames for 2027, in order: {', '.join(words(12))}.")
L("pin a dependency", "Pin httpx to 0.27.2 — 0.28 drops the proxies argument; error code 401 was unrelated.")
L("port and build number", "Postgres on 5432, PgBouncer on 6432; build 482913 was the last green one.")
L("secretKeyRef", "```yaml\nenv:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password\n```")
L("hcl variable no default", "```hcl\nvariable \"datadog_api_key\" {\n  type      = string\n  sensitive = true\n}\n```")
L("where the secret lives", "| service | where the key lives |\n|---|---|\n| Resend | 1Password → Infra → resend-prod |\n| Pinecone | Doppler prod config |")
L("password rotated prose german", "Das Passwort für den Jenkins-Admin wurde gestern rotiert; das neue steht im Tresor.")
L("contraseña policy spanish", "La contraseña debe tener al menos 12 caracteres y no puede repetirse.")
L("curl with variable", "```\ncurl -u \"$MAILJET_KEY:$MAILJET_SECRET\" https://api.mailjet.com/v3/REST/contact\n```")
L("url tracking params", f"Landing page: https://acme.dev/pricing?utm_source=newsletter&utm_campaign=dec26&v={r(8, HEX)}")
L("openapi api key scheme", "```yaml\ncomponents:\n  securitySchemes:\n    ApiKeyAuth:\n      type: apiKey\n      in: header\n      name: X-API-Key\n```")
L("ethereum address", f"Faucet funds go to 0x{r(40, HEX)} (testnet).")
L("etag and sri", f"`ETag: W/\"{r(32, HEX)}\"` and the script tag has integrity=\"sha384-{b64(_rand_bytes(48))}\"")
L("public key pem", _pem("PUBLIC KEY", 294))

assert len({it["key"] for it in FORMS + LOOK_ALIKES}) == len(FORMS) + len(LOOK_ALIKES)
