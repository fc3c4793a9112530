"""The sixth held-out corpus for the secret gate: BLIND, written after heldout5's fixes without
reading the detector, its tests or the other corpora (only the format of ``secrets_heldout4.py`` and
the generator ``secret_gen.py``), and measured once, untuned.

It plays a developer pasting what they really paste into a memory, 2024-2026: credentials of
hosting, CI/CD, observability, data warehouses, ML platforms, LLM APIs, payment, messaging, IoT,
game backends, banking sandboxes and crypto; placed in config formats (INI, TOML, YAML, JSON, HCL,
.properties, XML, nginx/apache, systemd ``Environment=``, crontab, docker-compose, GitHub Actions
``env:``), shell (exports, history, one-liners with flags, heredocs, PowerShell, fish), URLs
(userinfo, query strings, presigned and SAS URLs, webhook paths), headers and cookies, connection
strings of many databases and brokers, prose in English, French, German, Spanish, Portuguese,
Japanese, Chinese, Korean, Russian and Arabic, chat logs, tables, lists, values split across the
description and body, encoded values (base64, hex, URL-encoded), key material (PEM of uncommon
types, JWK with a private "d", OpenSSH and PuTTY private keys, GPG armored private keys, age,
WireGuard, NATS nkey seeds, minisign), mnemonics, PINs and passwords stated with no label.
The look-alikes share those shapes and places without being secrets.

Decisions on the borderline (made before measuring):
- credentials: Stripe *test* secret keys (sk_test) and banking-sandbox secrets (Plaid sandbox) --
  they open a real account, even a test one; presigned S3 URLs and Azure SAS URLs (a bearer grant
  until they expire); session cookies; a PIN or PUK of a device or SIM; a paid product's licence
  key; a TLS key base64-encoded in a Kubernetes Secret; a password given only as ``user / value``.
- look-alikes: anything public by design (publishable keys pk_live, Supabase anon JWT, Firebase web
  apiKey, Mapbox pk. token, Algolia search-only key, Sentry DSN, OAuth client ids, public keys,
  certificates, SSH *certificates* and public keys, JWK without "d", addresses of wallets, npub);
  values documented by the vendor as examples (AWS's ...EXAMPLE keys, RFC 4231 test vectors);
  an open-source project's published licence string (FullCalendar's GPL key); encrypted values
  (sops ENC[...]); password hashes (bcrypt); references to where a secret lives (op://, vault:,
  ${{ secrets.X }}, ${VAR}, var.x, secretKeyRef); masked or placeholder values; digests, ids,
  trace ids, UUIDs as request ids, commit SHAs, version strings, postal codes and order numbers.

Same format and generator conventions as the other corpora (``secret_gen.py``): each item is a
memory (``{"name", "class", "key", "description", "body", "meta"}``), values are random from a
seeded generator and vendor prefixes are split so no scanner flags this file.

RESULT, measured once and untuned on main c52a31e (``python bench/bench_secrets.py --set heldout6
--misses``, load average 6 on 2 CPUs): **101/112 forms refused (90.2%) and 2/49 look-alikes refused
(4.1%), precision 98.1%**. By class (forms): chat 2/2, config 15/16, connstr 13/13, encoded 3/4,
header 5/5, keymat 10/10, list 1/1, mnemonic 2/2, password 0/2, pin 3/3, prose 5/9, shell 11/11,
split 2/2, table 2/2, url 6/6, vendor 21/24. Missed (11): crontab ``PGPASSWORD='X' pg_dump``,
``wandb login <hex40>``, ``DEPLOYER_PK=0x<hex64>`` (Ethereum key), ``staging grafana: admin / X``,
a password alone on the line after ``ssh ops@host``, prose in Chinese (支付密钥是 X), Korean
(API 키: X), Arabic (كلمة المرور ... هي X) and Spanish ("la clave del panel ... es X"), a
hex-encoded password after "mqtt password (hex, ...):", and a Sublime Merge licence block. False
alarms (2, both public by design): the Supabase anon JWT (``NEXT_PUBLIC_SUPABASE_ANON_KEY``, role
anon) and a Firebase web config ``apiKey: "AIza..."``. Not tuned on: these figures are the blind
estimate.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from urllib.parse import quote

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261206, "held6", "Working notes")
r, words, item = _G.r, _G.words, _G.item
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, LOWER, UP, HEX, B64, URL, BECH32, D5, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL",
                                                                   "BECH32", "D5", "PK"))
_rand_bytes, _uuid, _pw, _jwt = _G.rand_bytes, _G.uuid, _G.pw, _G.jwt
_b64url, _block = _GEN["b64url"], _GEN["block"]
B32, PWCHARS = _GEN["B32"], _GEN["PWCHARS"]
DIG = "0123456789"


def _ssh_blob(n: int) -> str:
    return b64(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + _rand_bytes(n))


def forms() -> list[dict]:
    """Credentials in the shapes and places a developer really pastes them."""
    f = []
    # --- config formats
    f.append(item("fly token in ini", "config", f"~/.fly/config.ini\n\n[auth]\naccess_token = {'f' + 'o1_'}{r(43, URL)}"))
    f.append(item("modal token pair toml", "config",
                  f'~/.modal.toml\n\n[default]\ntoken_id = "{"a" + "k-"}{r(22)}"\ntoken_secret = "{"a" + "s-"}{r(22)}"'))
    f.append(item("datadog agent yaml", "config", f"/etc/datadog-agent/datadog.yaml\n\n```yaml\nsite: datadoghq.eu\napi_key: {r(32, HEX)}\nlogs_enabled: true\n```"))
    f.append(item("algolia admin json", "config",
                  f'search config:\n```json\n{{"appId": "{r(10, UP)}", "adminApiKey": "{r(32, HEX)}", "index": "docs_prod"}}\n```'))
    f.append(item("cloudflare hcl provider", "config",
                  f'```hcl\nprovider "cloudflare" {{\n  api_token = "{r(40, URL)}"\n}}\n```'))
    f.append(item("spring properties password", "config",
                  f"application-prod.properties:\nspring.datasource.url=jdbc:postgresql://pg-prod:5432/orders\nspring.datasource.username=orders\nspring.datasource.password={_pw(18)}"))
    f.append(item("maven settings xml", "config",
                  f"~/.m2/settings.xml\n```xml\n<server>\n  <id>nexus-releases</id>\n  <username>deployer</username>\n  <password>{_pw(20)}</password>\n</server>\n```"))
    f.append(item("nginx basic upstream", "config",
                  f'nginx site conf for the metrics proxy:\n    proxy_set_header Authorization "Basic {b64("metrics:" + _pw(16))}";'))
    f.append(item("apache setenv restricted key", "config",
                  f"vhost.conf\n    SetEnv PAYMENTS_KEY {'r' + 'k_' + 'live_'}{r(99)}"))
    f.append(item("systemd environment linear", "config",
                  f'/etc/systemd/system/triage.service\n[Service]\nEnvironment="LINEAR_API_KEY={"lin" + "_api_"}{r(40)}"\nExecStart=/opt/triage/bin/run'))
    f.append(item("crontab pgpassword", "config",
                  f"crontab -l\n0 3 * * * PGPASSWORD='{_pw(15)}' pg_dump -h db.internal -U backup app | gzip > /backups/app.sql.gz"))
    f.append(item("compose clickhouse minio", "config",
                  f"docker-compose.yml\n```yaml\nservices:\n  ch:\n    image: clickhouse/clickhouse-server:24.8\n    environment:\n      - CLICKHOUSE_USER=analytics\n      - CLICKHOUSE_PASSWORD={_pw(16)}\n  minio:\n    environment:\n      MINIO_ROOT_USER: admin\n      MINIO_ROOT_PASSWORD: {_pw(24)}\n```"))
    f.append(item("actions env turbo", "config",
                  f"ci.yml (temporary, move to secrets!)\n```yaml\nenv:\n  TURBO_TEAM: acme\n  TURBO_TOKEN: {r(24)}\n```"))
    f.append(item("supabase service role env", "config",
                  f"SUPABASE_URL=https://{r(20, LOWER)}.supabase.co\nSUPABASE_SERVICE_ROLE_KEY={_jwt({'iss': 'supabase', 'role': 'service_role', 'iat': 1730000000, 'exp': 2045000000})}"))
    f.append(item("kubeconfig sa token", "config",
                  f"kubeconfig for the ci user:\nusers:\n- name: ci-deployer\n  user:\n    token: {_jwt({'iss': 'kubernetes/serviceaccount', 'sub': 'system:serviceaccount:ci:deployer'}, 'RS256')}"))
    f.append(item("wrangler vars resend", "config",
                  f'wrangler.toml\n[vars]\nFROM_ADDR = "noreply@acme.dev"\nRESEND_API_KEY = "{"r" + "e_"}{r(8)}_{r(24)}"'))
    # --- shell
    f.append(item("history anthropic curl", "shell",
                  f'  812  curl https://api.anthropic.com/v1/messages -H "x-api-key: {"sk" + "-ant-" + "api03-"}{r(93, URL)}AA" -H "anthropic-version: 2023-06-01"'))
    f.append(item("redis cli flag", "shell", f"redis-cli -h cache.prod.internal -p 6380 --tls -a '{_pw(20)}' --no-auth-warning INFO"))
    f.append(item("heredoc gh hosts", "shell",
                  f"cat > ~/.config/gh/hosts.yml <<'EOF'\ngithub.com:\n    user: acme-bot\n    oauth_token: {'g' + 'ho_'}{r(36)}\n    git_protocol: ssh\nEOF"))
    f.append(item("docker login harbor", "shell", f"docker login harbor.corp.io -u 'robot$ci-push' -p {r(32)}"))
    f.append(item("hf cli login", "shell", f"huggingface-cli login --token {'h' + 'f_'}{r(34)}"))
    f.append(item("vault token export", "shell", f"export VAULT_ADDR=https://vault.acme.io:8200\nexport VAULT_TOKEN={'h' + 'vs.'}{r(91, URL)}"))
    f.append(item("ngrok authtoken", "shell", f"ngrok config add-authtoken {r(27)}_{r(21)}"))
    f.append(item("stripe cli test key", "shell", f"stripe listen --forward-to localhost:3000/webhooks --api-key {'s' + 'k_' + 'test_'}{r(99)}"))
    f.append(item("powershell openrouter", "shell", f'$env:OPENROUTER_API_KEY = "{"sk" + "-or-v1-"}{r(64, HEX)}"'))
    f.append(item("fish mistral", "shell", f"set -gx MISTRAL_API_KEY {r(32)}"))
    f.append(item("mysql inline password", "shell", f"mysql -h 10.0.4.12 -u root -p{_pw(14)} shop_prod -e 'select count(*) from orders'"))
    # --- URLs
    f.append(item("git url userinfo", "url", f"remote: https://ci-bot:{_pw(18)}@git.internal.example/platform/infra.git"))
    f.append(item("openweather appid query", "url", f"GET https://api.openweathermap.org/data/3.0/onecall?lat=52.52&lon=13.40&appid={r(32, HEX)}"))
    ak = "AS" + "IA" + r(16, UP)
    f.append(item("s3 presigned url", "url",
                  f"presigned upload link (valid 7 days):\nhttps://acme-uploads.s3.eu-central-1.amazonaws.com/in/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={ak}%2F20261203%2Feu-central-1%2Fs3%2Faws4_request&X-Amz-Date=20261203T101500Z&X-Amz-Expires=604800&X-Amz-Security-Token={quote(b64(_rand_bytes(180)), safe='')}&X-Amz-SignedHeaders=host&X-Amz-Signature={r(64, HEX)}"))
    f.append(item("azure sas url", "url",
                  f"https://acmelogs.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=sco&sp=rwdlacx&se=2027-01-31T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={quote(b64(_rand_bytes(32)), safe='')}"))
    f.append(item("discord webhook", "url", f"alerts go to https://discord.com/api/webhooks/{r(19, DIG)}/{r(68, URL)}"))
    f.append(item("telegram bot url", "url", f"https://api.telegram.org/bot{r(10, DIG)}:AA{r(33, URL)}/sendMessage?chat_id=-100{r(10, DIG)}"))
    # --- headers and cookies
    f.append(item("bearer opaque", "header", f"```http\nGET /v2/fleet/vehicles HTTP/1.1\nHost: api.samsara.com\nAuthorization: Bearer {'sam' + 'sara_api_'}{r(30)}\n```"))
    f.append(item("django session cookie", "header", f"repro with my session:\nCookie: csrftoken={r(32)}; sessionid={r(32, LOWER)}"))
    f.append(item("shopify access header", "header", f"X-Shopify-Access-Token: {'shp' + 'at_'}{r(32, HEX)}"))
    f.append(item("azure openai api-key", "header", f"POST https://acme-eastus.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21\napi-key: {r(32, HEX)}"))
    f.append(item("playfab secret header", "header", f"X-SecretKey: {r(52, UP)}\nX-PlayFabSDK: UnitySDK-2.190"))
    # --- connection strings
    f.append(item("mongodb srv", "connstr", f"mongodb+srv://app_rw:{_pw(16)}@cluster0.{r(5, LOWER)}.mongodb.net/shop?retryWrites=true&w=majority"))
    f.append(item("azure sql ado", "connstr", f"Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=billing;User ID=billing_app;Password={_pw(18)};Encrypt=True;"))
    f.append(item("upstash rediss", "connstr", f"REDIS_URL=rediss://default:{r(34)}@eu1-sharp-owl-{r(5, DIG)}.upstash.io:6379"))
    f.append(item("cloudamqp", "connstr", f"amqps://{r(8, LOWER)}:{r(32, URL)}@whale.rmq.cloudamqp.com/{r(8, LOWER)}"))
    f.append(item("kafka jaas confluent", "connstr",
                  f'sasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="{r(16, UP)}" password="{r(64, B64)}";'))
    f.append(item("clickhouse url", "connstr", f"clickhouse://default:{_pw(14)}@{r(10, LOWER)}.eu-west-1.aws.clickhouse.cloud:9440/default?secure=true"))
    f.append(item("neo4j aura", "connstr", f"NEO4J_URI=neo4j+s://{r(8, LOWER)}.databases.neo4j.io\nNEO4J_USERNAME=neo4j\nNEO4J_PASSWORD={r(43, URL)}"))
    f.append(item("snowflake url", "connstr", f"snowflake://etl_user:{_pw(16)}@xy12345.eu-central-1/ANALYTICS/PUBLIC?warehouse=ETL_WH&role=TRANSFORMER"))
    f.append(item("astra token", "connstr", f"ASTRA_DB_APPLICATION_TOKEN={'Astra' + 'CS:'}{r(24)}:{r(64, HEX)}"))
    f.append(item("elastic api key", "connstr", f"es = Elasticsearch(cloud_id='prod:{b64('eu-west-1.aws.found.io$' + r(32, HEX))}', api_key='{b64(r(20, URL) + ':' + r(22, URL))}')"))
    f.append(item("nats creds", "connstr",
                  f"nats.creds\n{_block('NATS USER JWT', _jwt({'sub': 'U' + r(55, B32), 'nats': {'pub': {}}}, 'ed25519-nkey'))}\n\n{_block('USER NKEY SEED', 'SU' + r(56, B32))}"))
    f.append(item("mosquitto pub iot", "connstr", f"mosquitto_pub -h mqtt.fleet.acme.io -p 8883 -u device-0042 -P '{_pw(16)}' -t telemetry/0042 -m '{{\"t\":21.5}}'"))
    f.append(item("libpq keyvalue", "connstr", f"psql \"host=ep-{r(6, LOWER)}-{r(8, LOWER)}.eu-central-1.aws.neon.tech dbname=neondb user=neondb_owner password={'n' + 'pg_'}{r(12)} sslmode=require\""))
    # --- vendors by industry
    f.append(item("deepseek key", "vendor", f"DEEPSEEK_API_KEY=sk-{r(32, HEX)}"))
    f.append(item("replicate token", "vendor", f"REPLICATE_API_TOKEN={'r' + '8_'}{r(37)}"))
    f.append(item("wandb key", "vendor", f"wandb login {r(40, HEX)}"))
    f.append(item("pinecone key", "vendor", f'pc = Pinecone(api_key="{"pc" + "sk_"}{r(5)}_{r(63)}")'))
    f.append(item("digitalocean pat", "vendor", f"doctl auth init -t {'d' + 'op_v1_'}{r(64, HEX)}"))
    f.append(item("netlify pat", "vendor", f"NETLIFY_AUTH_TOKEN={'n' + 'fp_'}{r(36)}"))
    f.append(item("buildkite agent token", "vendor", f"buildkite-agent.cfg\ntoken=\"{r(50, HEX)}\"\nname=\"ci-%hostname-%spawn\""))
    f.append(item("gitlab runner token", "vendor", f"gitlab-runner register --url https://gitlab.acme.io --token {'gl' + 'rt-'}{r(20, URL)}"))
    f.append(item("grafana sa token", "vendor", f"GRAFANA_TOKEN={'gl' + 'sa_'}{r(32)}_{r(8, HEX)}"))
    f.append(item("new relic user key", "vendor", f"NEW_RELIC_API_KEY={'NR' + 'AK-'}{r(27, UP)}"))
    f.append(item("databricks pat", "vendor", f"databricks configure: host https://adb-{r(16, DIG)}.7.azuredatabricks.net token {'da' + 'pi'}{r(32, HEX)}"))
    f.append(item("gcp sa json", "vendor",
                  '{"type": "service_account", "project_id": "acme-bq", "private_key_id": "' + r(40, HEX) + '", "private_key": "'
                  + _block(PK, wrap(b64(_rand_bytes(640)))).replace("\n", "\\n") + '", "client_email": "etl@acme-bq.iam.gserviceaccount.com"}'))
    f.append(item("adyen api key", "vendor", f"Adyen X-API-Key: AQE{r(2, ALNUM)}+{r(60, B64)}=-{r(44, B64)}=-{r(8, ALNUM)}"))
    f.append(item("square access token", "vendor", f"SQUARE_ACCESS_TOKEN={'EA' + 'AA'}{r(60, URL)}"))
    f.append(item("razorpay live pair", "vendor", f"key_id: {'rzp' + '_live_'}{r(14)}\nkey_secret: {r(24)}"))
    f.append(item("twilio sid and token", "vendor", f"TWILIO_ACCOUNT_SID=AC{r(32, HEX)}\nTWILIO_AUTH_TOKEN={r(32, HEX)}"))
    f.append(item("sendgrid key", "vendor", f"sg = SendGridAPIClient('{'S' + 'G.'}{r(22, URL)}.{r(43, URL)}')"))
    f.append(item("azure iot hub", "vendor", f"HostName=acme-fleet.azure-devices.net;SharedAccessKeyName=iothubowner;SharedAccessKey={b64(_rand_bytes(32))}"))
    f.append(item("particle token", "vendor", f"particle token: {r(40, HEX)} (never expires)"))
    f.append(item("steam web api key", "vendor", f"Steam Web API key for the leaderboard sync: {r(32, '0123456789ABCDEF')}"))
    f.append(item("plaid sandbox secret", "vendor", f"PLAID_ENV=sandbox\nPLAID_CLIENT_ID={r(24, HEX)}\nPLAID_SECRET={r(30, HEX)}"))
    f.append(item("eth private key", "vendor", f"deployer for Sepolia: DEPLOYER_PK=0x{r(64, HEX)}"))
    f.append(item("binance api secret", "vendor", f"binance:\n  apiKey: {r(64)}\n  secret: {r(64)}"))
    # --- key material
    f.append(item("ec private pem", "keymat", _block("EC " + PK, wrap(b64(_rand_bytes(121))))))
    f.append(item("dsa private pem", "keymat", "legacy box key:\n" + _block("DSA " + PK, wrap(b64(_rand_bytes(440))))))
    f.append(item("openssh private", "keymat", _block("OPENSSH " + PK, wrap(b64(b"openssh-key-v1\x00" + _rand_bytes(380)), 70))))
    f.append(item("putty ppk", "keymat",
                  f"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@bastion\nPublic-Lines: 2\n{wrap(_ssh_blob(32))}\nPrivate-Lines: 1\n{b64(_rand_bytes(36))}\nPrivate-MAC: {r(64, HEX)}"))
    f.append(item("gpg private block", "keymat", _block("PGP " + "PRIVATE KEY BLOCK", "\n" + wrap(b64(_rand_bytes(900))) + "\n=" + r(4, B64))))
    f.append(item("jwk with d", "keymat",
                  json.dumps({"kty": "OKP", "crv": "Ed25519", "kid": "sig-2026-01", "x": _b64url(_rand_bytes(32)), "d": _b64url(_rand_bytes(32))}, indent=2)))
    f.append(item("age secret key", "keymat", f"# created: 2026-11-02\n# public key: age1{r(58, BECH32)}\n{'AGE-SECRET' + '-KEY-1'}{r(58, BECH32).upper()}"))
    f.append(item("wireguard conf", "keymat", f"[Interface]\nAddress = 10.8.0.2/32\nPrivateKey = {b64(_rand_bytes(32))}\n\n[Peer]\nPublicKey = {b64(_rand_bytes(32))}\nEndpoint = vpn.acme.io:51820"))
    f.append(item("minisign secret", "keymat", f"untrusted comment: minisign encrypted secret key\n{b64(b'Ed' + _rand_bytes(156))}"))
    f.append(item("k8s tls secret", "keymat",
                  f"```yaml\napiVersion: v1\nkind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: {b64(_block('CERTIFICATE', wrap(b64(_rand_bytes(300)))))[:120]}\n  tls.key: {b64(_block(PK, wrap(b64(_rand_bytes(300)))))}\n```"))
    # --- mnemonics and PINs
    f.append(item("mnemonic prose", "mnemonic", f"the test wallet seed is {' '.join(words(12))}"))
    f.append(item("mnemonic numbered", "mnemonic", "\n".join(f"{i + 1}. {w}" for i, w in enumerate(words(24)))))
    f.append(item("device pin", "pin", f"Test Pixel 8 unlock PIN: {r(6, DIG)}"))
    f.append(item("yubikey piv", "pin", f"YubiKey PIV: PIN {r(6, DIG)}, PUK {r(8, DIG)}, management key default changed"))
    f.append(item("sim puk", "pin", f"eSIM on the IoT gateway — PIN {r(4, DIG)} / PUK {r(8, DIG)}"))
    # --- passwords without a label, prose in many languages
    f.append(item("user slash value", "password", f"staging grafana: admin / {_pw(14)}"))
    f.append(item("bare host user pw", "password", f"ssh ops@10.20.0.5\n{_pw(16)}"))
    f.append(item("french prose", "prose", f"Le mot de passe du serveur de préprod est {_pw(14)}, à changer après la démo."))
    f.append(item("german prose", "prose", f"Das Kennwort für den Jenkins-Admin lautet {_pw(15)} (bitte nicht weitergeben)."))
    f.append(item("japanese prose", "prose", f"本番DBのパスワードは {_pw(16)} です。"))
    f.append(item("russian prose", "prose", f"Пароль от админки Bitrix: {_pw(13)}"))
    f.append(item("chinese prose", "prose", f"测试环境的支付密钥是 {r(32)}，不要提交到仓库。"))
    f.append(item("korean prose", "prose", f"스테이징 API 키: {r(40, URL)}"))
    f.append(item("portuguese prose", "prose", f"A senha do SFTP do banco é {_pw(12)}"))
    f.append(item("arabic prose", "prose", f"كلمة المرور لحساب الخادم هي {_pw(14)}"))
    f.append(item("spanish prose", "prose", f"la clave del panel de Hetzner es {_pw(15)}"))
    # --- chat logs, tables, lists
    f.append(item("chat here's the key", "chat", f"user: here's the key: {'sk' + '-proj-'}{r(156, URL)} lol don't leak it\nassistant: noted"))
    f.append(item("chat slack paste", "chat", f"[10:42] maria: try with mine → {'xo' + 'xp-'}{r(12, DIG)}-{r(12, DIG)}-{r(13, DIG)}-{r(32, HEX)}"))
    f.append(item("markdown table creds", "table",
                  f"| env | user | pass |\n|---|---|---|\n| dev | app | {_pw(12)} |\n| prod | app | {_pw(16)} |"))
    f.append(item("table service key", "table",
                  f"| service | value |\n|---|---|\n| Mailgun | key-{r(32, HEX)} |\n| Postmark | {_uuid()} |"))
    f.append(item("list of creds", "list", f"- Sentry auth: {'sn' + 'trys_'}{b64(_rand_bytes(60)).rstrip('=')}\n- Honeycomb: {r(22)}\n- Bugsnag: {r(32, HEX)}"))
    # --- split across fields, encoded
    f.append(item("split desc body", "split", r(28), description="Redis password for prod cache (value in body)"))
    f.append(item("split halves", "split", f"the Vercel token in two halves because of the chat limit:\n{r(12)}\n{r(12)}", description="Vercel deploy token"))
    f.append(item("dockerconfigjson", "encoded", json.dumps({"auths": {"ghcr.io": {"auth": b64("acme-bot:" + "gh" + "p_" + r(36))}}})))
    f.append(item("hex password", "encoded", f"mqtt password (hex, for the firmware build): {_pw(14).encode().hex()}"))
    f.append(item("urlencoded password", "encoded", f"DATABASE_URL=postgres://app:{quote(_pw(16) + '@/#', safe='')}@db.acme.io:5432/app"))
    f.append(item("base64 env file", "encoded",
                  f"restore .env on the box:\necho '{b64('STRIPE_SECRET_KEY=' + 'sk_' + 'live_' + r(99) + chr(10) + 'DB_PASSWORD=' + _pw(16))}' | base64 -d > .env"))
    f.append(item("paid licence key", "vendor", f"Sublime Merge licence for the team laptop:\n{D5} BEGIN LICENSE {D5}\nAcme GmbH\n10 User License\nEA7E-{r(6, DIG)}\n{wrap(r(64, '0123456789ABCDEF'), 8).replace(chr(10), ' ')}\n{D5}- END LICENSE {D5}-"))
    return f


def look_alikes() -> list[dict]:
    """The same shapes and places, not secrets."""
    a = []
    a.append(item("jwk public", "keymat", json.dumps({"kty": "OKP", "crv": "Ed25519", "kid": "sig-2026-01", "use": "sig", "x": _b64url(_rand_bytes(32))}, indent=2)))
    a.append(item("authorized keys line", "keymat", f"add to ~/.ssh/authorized_keys:\nssh-ed25519 {_ssh_blob(32)} maria@laptop"))
    a.append(item("ssh certificate", "keymat", f"id_ed25519-cert.pub\nssh-ed25519-cert-v01@openssh.com {b64(b'ssh-ed25519-cert-v01@openssh.com' + _rand_bytes(260))} maria@laptop"))
    a.append(item("gpg public block", "keymat", _block("PGP PUBLIC KEY BLOCK", "\n" + wrap(b64(_rand_bytes(500))) + "\n=" + r(4, B64))))
    a.append(item("pem certificate", "keymat", "CA for the internal mesh:\n" + _block("CERTIFICATE", wrap(b64(_rand_bytes(700))))))
    a.append(item("pem public key", "keymat", _block("PUBLIC KEY", wrap(b64(_rand_bytes(91))))))
    a.append(item("wireguard public only", "keymat", f"[Peer]\n# laptop-maria\nPublicKey = {b64(_rand_bytes(32))}\nAllowedIPs = 10.8.0.7/32"))
    a.append(item("ssh fingerprint", "digest", f"host key fingerprint is SHA256:{b64(_rand_bytes(32)).rstrip('=')} (ED25519) — matches the bastion"))
    a.append(item("lockfile integrity", "digest", f'"node_modules/zod": {{\n  "version": "3.23.8",\n  "integrity": "sha512-{b64(_rand_bytes(64))}"\n}}'))
    a.append(item("image digest", "digest", f"pin the base image: FROM python:3.12-slim@sha256:{r(64, HEX)}"))
    a.append(item("commit sha prose", "digest", f"the regression came in with {r(40, HEX)}, reverted in {r(12, HEX)}"))
    a.append(item("sri hash", "digest", f'<script src="https://cdn.jsdelivr.net/npm/htmx.org@2.0.3" integrity="sha384-{b64(_rand_bytes(48))}" crossorigin="anonymous"></script>'))
    a.append(item("lfs pointer", "digest", f"version https://git-lfs.github.com/spec/v1\noid sha256:{r(64, HEX)}\nsize 48213377"))
    a.append(item("bcrypt hash", "digest", f"seed user row: ('admin', '$2b$12${r(53, ALNUM + './')}')"))
    a.append(item("traceparent", "id", f"failing request: traceparent: 00-{r(32, HEX)}-{r(16, HEX)}-01"))
    a.append(item("request id uuid", "id", f"Stripe support asked for the request id: req_{r(14)} / idempotency key {_uuid()}"))
    a.append(item("stripe object ids", "id", f"refund issued for pi_{r(24)} on cus_{r(14)} (invoice in_{r(24)})"))
    a.append(item("aws arn", "id", f"role: arn:aws:iam::{r(12, DIG)}:role/github-actions-deploy"))
    a.append(item("oauth client id", "id", f"GOOGLE_CLIENT_ID={r(12, DIG)}-{r(32, LOWER)}.apps.googleusercontent.com"))
    a.append(item("eth address", "id", f"send test ETH to 0x{r(40, HEX)} on Sepolia"))
    a.append(item("bech32 address", "id", f"donations: bc1q{r(38, BECH32)}"))
    a.append(item("nostr npub", "id", f"follow the bot at npub1{r(58, BECH32)}"))
    a.append(item("placeholder your key", "placeholder", "OPENAI_API_KEY=YOUR_KEY_HERE\nANTHROPIC_API_KEY=your-anthropic-key"))
    a.append(item("redacted", "placeholder", "db:\n  user: app\n  password: <redacted>"))
    a.append(item("masked", "placeholder", f"the key in the dashboard shows as {'sk' + '-proj-'}****{r(4)} and the webhook secret as ********"))
    a.append(item("actions secrets ref", "reference", "```yaml\nenv:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  TURBO_TOKEN: ${{ secrets.TURBO_TOKEN }}\n```"))
    a.append(item("env var names", "reference", "set STRIPE_SECRET_KEY, DATABASE_URL and SENTRY_AUTH_TOKEN in the Vercel project before deploying"))
    a.append(item("compose var refs", "reference", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app\nREDIS_URL=redis://:${REDIS_PASSWORD}@cache:6379"))
    a.append(item("terraform var", "reference", 'provider "cloudflare" {\n  api_token = var.cloudflare_api_token\n}'))
    a.append(item("op reference", "reference", "STRIPE_SECRET_KEY=op://Engineering/Stripe Prod/credential\nDB_PASSWORD=vault:secret/data/prod/db#password"))
    a.append(item("k8s secretkeyref", "reference", "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-credentials\n      key: password"))
    a.append(item("sops encrypted", "reference", f"password: ENC[AES256_GCM,data:{b64(_rand_bytes(18))},iv:{b64(_rand_bytes(32))},tag:{b64(_rand_bytes(16))},type:str]"))
    a.append(item("aws doc example", "example", f"from the AWS docs: aws_access_key_id = {'AKIA' + 'IOSFODNN7' + 'EXAMPLE'}\naws_secret_access_key = {'wJalrXUtnFEMI/K7MDENG/' + 'bPxRfiCYEXAMPLEKEY'}"))
    a.append(item("rfc4231 vector", "example", "RFC 4231 test case 1: Key = 0x0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b, Data = \"Hi There\""))
    a.append(item("publishable key", "public", f"NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY={'pk' + '_live_'}{r(99)}"))
    a.append(item("supabase anon", "public", f"NEXT_PUBLIC_SUPABASE_ANON_KEY={_jwt({'iss': 'supabase', 'role': 'anon', 'iat': 1730000000, 'exp': 2045000000})}"))
    a.append(item("firebase web config", "public", f'const firebaseConfig = {{ apiKey: "{"AI" + "za"}{r(35, URL)}", authDomain: "acme-app.firebaseapp.com", projectId: "acme-app" }};'))
    a.append(item("mapbox public token", "public", f"mapboxgl.accessToken = '{'p' + 'k.'}{_b64url(json.dumps({'u': 'acme', 'a': r(25, LOWER)}).encode())}.{r(22, URL)}';"))
    a.append(item("algolia search only", "public", f"instantsearch: appId {r(10, UP)}, searchOnlyApiKey (public, search-only) {r(32, HEX)}"))
    a.append(item("sentry dsn", "public", f"Sentry.init({{ dsn: 'https://{r(32, HEX)}@o{r(6, DIG)}.ingest.de.sentry.io/{r(7, DIG)}' }})"))
    a.append(item("oss licence string", "public", "FullCalendar scheduler for our open-source fork: schedulerLicenseKey: 'GPL-My-Project-Is-Open-Source'"))
    a.append(item("version string", "misc", f"bumped to v2.14.3-rc.1+build.{r(7, HEX)}; node 22.11.0; pnpm 9.12.3"))
    a.append(item("base64 plain config", "misc", f"configmap data (base64 of the plain settings): {b64('log_level=debug' + chr(10) + 'port=8080' + chr(10) + 'feature_flags=search,export' + chr(10))}"))
    a.append(item("postal and order", "misc", f"Ship to 10115 Berlin, order #{r(10, DIG)}, tracking {r(18, DIG)}"))
    a.append(item("meeting id", "misc", f"standup Zoom meeting ID {r(3, DIG)} {r(4, DIG)} {r(4, DIG)} (passcode in the calendar invite)"))
    a.append(item("chat no value", "chat", "user: here's the key: it's in 1Password under 'Prod Stripe', don't paste it here\nassistant: ok, I'll read it from the env"))
    a.append(item("japanese no value", "prose", "パスワードは1Passwordの「本番DB」に保存してあります。"))
    a.append(item("table of vault paths", "table", "| service | where |\n|---|---|\n| Stripe | op://Eng/Stripe/credential |\n| Postgres | vault kv get secret/prod/db |"))
    a.append(item("hex colours", "misc", f"palette: #{r(6, HEX)} #{r(6, HEX)} #{r(6, HEX)}; build hash main.{r(8, HEX)}.js"))
    return a


FORMS = forms()
LOOK_ALIKES = look_alikes()
