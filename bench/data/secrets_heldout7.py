"""The seventh held-out corpus for the secret gate: BLIND, written without reading the detector, its
tests or the other corpora (only the docstring and item format of ``secrets_heldout6.py`` and the
generator ``secret_gen.py``), and measured once, untuned.

It plays a developer pasting what they really paste into a memory in 2025-2026, with vendors,
formats and places chosen apart from issue 23's examples and heldout6's docstring: cloud CLIs and
files (Azure service principals and Entra ``client_credential``, AWS SSO session credentials, GCS
HMAC keys, Backblaze B2, Alibaba, Scaleway, OCI key passphrases, Cloudflare Tunnel tokens), hosting
and data (Railway, Neon, Turso, Supabase ``service_role``, Snowflake, Kafka JAAS on Confluent,
CloudAMQP, MSSQL, Oracle, libpq keyword strings, Elastic ``ApiKey``), CI/CD and secrets managers
(GitLab CI, Argo CD, SonarQube, Doppler, Terraform Cloud, Proxmox ``TF_VAR_``), package and container
registries (PyPI, RubyGems, Composer, a private npm registry, Artifactory reference tokens,
``docker login --password-stdin``, Harbor robots in ``~/.docker/config.json``, ECR tokens), git
(credential store, ``git credential approve``, ``http.extraHeader``, Azure DevOps PATs, a Windows
``_netrc``, a token in a pip index URL), observability (New Relic, Grafana service accounts,
Honeycomb via ``OTEL_EXPORTER_OTLP_HEADERS``, Splunk HEC), payment (Stripe restricted and webhook
keys, Paddle, Coinbase CDP), LLM/AI (Groq, OpenRouter, ElevenLabs, Pinecone, LangSmith, Gemini, Azure
OpenAI, DeepSeek behind Claude Code, a GitHub PAT in an MCP server's ``env``), mobile (APNs ``.p8``,
Expo, Android signing passwords, a PKCS#12 for iOS builds), SSO/OIDC client secrets (Auth0, Google
``GOCSPX-``, Entra ID, Clerk), messaging (Slack app-level tokens, Power Automate workflow URLs,
Twilio, Brevo, SendGrid SMTP URLs, Postmark, Mailgun), Kubernetes (kubeconfig ``client-key-data`` and
``token``, ``kubectl create secret --from-literal``, Secret ``data:``, ``kubeadm join``), Terraform
(state, tfvars, ``credentials.tfrc.json``); shell one-liners (``curl -u``, sshpass, smbclient
``user%pass``, PowerShell ``PSCredential``); URLs (Jupyter tokens, GCS signed URLs, a calendar's
secret address, a ``refs`` frontmatter URL); JWTs with real claims (Kubernetes service account,
Keycloak access token, Supabase, Turso EdDSA), a Google refresh token; framework secrets (Django
``django-insecure-``, Laravel ``APP_KEY``, Rails ``master.key``); key material (PKCS#8 EC and Ed25519,
encrypted PKCS#8, SEC1 inside base64 ``client-key-data`` and inside JSON, a one-line OpenSSH key in a
.env, a Solana keypair array, a Bitcoin xprv, a Cosign key with its password, a WPA PSK), TOTP
``otpauth://`` seeds, recovery codes, BIP-39 mnemonics (numbered, and in French prose); passwords in
prose in Italian, Dutch, Polish, Vietnamese, Hindi, Hebrew and English; chat logs (a token alone on
the line after a request); Markdown and CSV tables; values split across the description and body;
encoded values (URL-encoded in JDBC, base64 of a .env and of a service-account JSON).
The look-alikes share those shapes and places without being secrets.

Decisions on the borderline (made before measuring):
- credentials: a secret whose value is a UUID or plain hex, when its label or place says it is the
  secret (Scaleway secret key, Railway token, Splunk HEC token, Postmark server token, Proxmox API
  token secret, a Mailgun key named only in the description); a Jupyter server token in a localhost
  URL; a Google Calendar "secret address"; a Gemini key (``AIza``, the shape of the public Firebase
  key, but named as a Gemini API key); Django ``django-insecure-`` keys (they sign sessions wherever
  they run); an *encrypted* PKCS#8 private key with no passphrase in the note (still guessable
  offline, and private-key blocks are refused whatever their wrapping); a Cosign encrypted key with
  its password; a kubeadm bootstrap token (valid 24 h); a WPA PSK in hex; 2FA recovery codes; any
  signed bearer JWT whatever its ``exp``; a password-manager CSV row; Argo CD's initial admin
  password printed alone; the passphrase of an OCI key file.
- look-alikes: client-side keys public by design (reCAPTCHA and Turnstile *site* keys, PostHog
  ``phc_``, LaunchDarkly client-side id, Datadog RUM ``pub`` token, Clerk ``pk_live_``, Razorpay
  ``key_id``); a PKCE ``code_challenge`` and ``state``; an ACME http-01 key authorization (served
  publicly); public keys and addresses (age recipient, DKIM ``p=``, ``cosign.pub``, xpub, Solana
  address, ``known_hosts``); password *hashes* (argon2id, apr1 htpasswd, Django pbkdf2 -- guessable
  offline, but hashes); encrypted values (SealedSecret ``encryptedData``, ansible-vault, Jenkins
  ``{AQAAABAAAA...}``); references (Azure Key Vault ``@Microsoft.KeyVault(SecretUri=...)`` with its
  version id, GCP Secret Manager, AWS Secrets Manager ARNs, ExternalSecret ``remoteRef``); a Vault
  token *accessor*; placeholders and masked values; values the vendor documents as examples (jwt.io's
  sample token, Stripe's published docs test key -- unlike random ``sk_test`` keys, which heldout6
  counts as credentials --, BIP-39's "abandon ... about" test vector, Hardhat's account #0 key, RFC
  6238's TOTP test seed, the Azurite emulator's account key); digests, ids (Google Docs, Notion,
  Twilio SIDs, Stripe object ids, request ids, commit SHAs), a spent CSP nonce; prose, chat and tables
  that say where a secret lives without giving it.

Same format and generator conventions as the other corpora (``secret_gen.py``): each item is a
memory (``{"name", "class", "key", "description", "body", "meta"}``), values are random from a
seeded generator and vendor prefixes are split so no scanner flags this file.

RESULT, measured once and untuned on heldout7 4baac13 (main 2009301's detector plus this corpus;
``python bench/bench_secrets.py --set heldout7 --misses``, load average 13.4 on 2 CPUs): **98/119
forms refused (82.4%) and 8/51 look-alikes refused (15.7%), precision 92.5%** (98/106 refusals).
By class (forms): ai 5/5, chat 1/3, cli 6/7, cloud 3/4, config 4/8, connstr 6/6, docker 2/3,
encoded 4/4, env 8/8, git 5/5, header 3/5, jwt 3/3, keymat 8/8, kube 4/5, mnemonic 2/2, otp 2/2,
prose 3/7, registry 4/4, shell 4/6, split 3/3, sso 3/3, table 2/3, terraform 3/3, url 4/6, vendor
6/6. Missed (21): Rails ``config/master.key`` (32 hex alone on the line after a label naming the
file); ``pass_phrase=X`` in ``~/.oci/config``; Gradle ``storePassword 'X'`` / ``keyPassword 'X'``;
``psk=<hex64>`` in wpa_supplicant.conf; ``b2 account authorize <keyID> <K005...>`` (positional
arguments); smbclient ``-U 'CORP\\svc_backup%X'``; Argo CD's initial password alone on the line after
``argocd admin initial-password``; ``Authorization: Splunk <uuid>``;
``OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=<hcaik_ key>``; a Google Calendar secret iCal address
(``private-<hex32>``); a Power Automate workflow URL (``&sig=``); ``docker login -u AWS -p <ECR
token, base64 JSON>``; ``cloudflared service install <base64 JSON tunnel token>``; ``kubeadm join
--token <6 chars>.<16 chars>``; prose in Vietnamese (Mật khẩu ... là X), Hindi (... पासवर्ड X है),
Hebrew (הסיסמה לשרת היא X) and English ("jenkins login is admin and X"); two chat logs (a token alone
on the line after "can you DM me the staging api token?", and an IRC line "new deploy key for ci:
X"); a password-manager CSV export row (header ``name,url,username,password,totp``). False alarms
(8): the reCAPTCHA site key (``data-sitekey="6L..."``), the Turnstile sitekey (``0x4AAAAAAA...``),
the Datadog RUM ``clientToken: 'pub<hex32>'``, the Razorpay ``key_id`` in checkout options (all four
public by design); an ACME http-01 key authorization (served publicly); a SealedSecret's
``encryptedData`` (encrypted); Stripe's published docs test key and the Azurite emulator's
well-known account key (both documented by the vendor). Not tuned on: these figures are the blind
estimate.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from urllib.parse import quote

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261203, "held7", "Working notes")
r, words, item = _G.r, _G.words, _G.item
b64, wrap = _GEN["b64"], _GEN["wrap"]
ALNUM, LOWER, UP, HEX, B64, URL, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL", "PK"))
_rand_bytes, _uuid, _pw, _jwt = _G.rand_bytes, _G.uuid, _G.pw, _G.jwt
_block = _GEN["block"]
B32, B58 = _GEN["B32"], _GEN["B58"]
DIG = "0123456789"
B32L = "abcdefghijklmnopqrstuvwxyz234567"
HEXU = "0123456789ABCDEF"


def _pem(label: str, der: bytes) -> str:
    return _block(label, wrap(b64(der)))


def _ec_sec1() -> bytes:
    """A P-256 key in SEC1 DER: the real header bytes around random key and point."""
    return (b"\x30\x77\x02\x01\x01\x04\x20" + _rand_bytes(32)
            + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04" + _rand_bytes(64))


def _ec_pkcs8() -> bytes:
    return (b"\x30\x81\x87\x02\x01\x00\x30\x13\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x08\x2a\x86\x48\xce\x3d"
            b"\x03\x01\x07\x04\x6d\x30\x6b\x02\x01\x01\x04\x20" + _rand_bytes(32)
            + b"\xa1\x44\x03\x42\x00\x04" + _rand_bytes(64))


def _ed_pkcs8() -> bytes:
    return b"\x30\x2e\x02\x01\x00\x30\x05\x06\x03\x2b\x65\x70\x04\x22\x04\x20" + _rand_bytes(32)


def _azure_secret() -> str:
    return r(3) + "8Q~" + r(34, ALNUM + "~._-")


def forms() -> list[dict]:
    """Credentials in the shapes and places a developer really pastes them."""
    f = []
    # --- .env files and env blocks
    f.append(item("clerk keys in next env", "env",
                  f".env.local for the dashboard\n\nNEXT_PUBLIC_CLERK_PUBLISHABLE_KEY={'pk' + '_live_'}{b64('clerk.acme-dash.io$').rstrip('=')}\n"
                  f"CLERK_SECRET_KEY={'sk' + '_live_'}{r(40)}"))
    f.append(item("laravel app key", "env", f"copied .env from the old box:\nAPP_NAME=Shopfront\nAPP_ENV=production\nAPP_KEY=base64:{b64(_rand_bytes(32))}\nAPP_DEBUG=false"))
    f.append(item("railway token uuid", "env", f"railway CI deploy\nRAILWAY_TOKEN={_uuid()}\nRAILWAY_SERVICE=api"))
    f.append(item("langsmith key", "env", f"LANGSMITH_TRACING=true\nLANGSMITH_API_KEY={'lsv2' + '_pt_'}{r(32, HEX)}_{r(10, HEX)}\nLANGSMITH_PROJECT=rag-eval"))
    f.append(item("deepseek behind claude code", "env",
                  f"to run claude code on deepseek:\nexport ANTHROPIC_BASE_URL=https://api.deepseek.com/anthropic\n"
                  f"export ANTHROPIC_AUTH_TOKEN={'s' + 'k-'}{r(32, HEX)}\nexport ANTHROPIC_MODEL=deepseek-chat"))
    f.append(item("gemini key env", "env", f"GEMINI_API_KEY={'AI' + 'za'}{r(35, URL)}"))
    f.append(item("expo token", "env", f"EAS build on CI needs EXPO_TOKEN={r(40, URL)}"))
    f.append(item("google refresh token", "env",
                  f"YouTube upload bot (offline access granted once):\nGOOGLE_CLIENT_ID={r(12, DIG)}-{r(32, LOWER)}.apps.googleusercontent.com\n"
                  f"GOOGLE_REFRESH_TOKEN=1//0{r(1, DIG)}{r(97, URL)}"))
    # --- config files
    f.append(item("django settings key", "config", f"settings/base.py still has\n    SECRET_KEY = '{'django' + '-insecure-'}{r(50, ALNUM + '!@#$%^&*(-_=+)')}'"))
    f.append(item("rails master key", "config", f"config/master.key for billing-api (needed to edit credentials.yml.enc):\n{r(32, HEX)}"))
    f.append(item("gitlab ci sonar", "config",
                  f"```yaml\n# .gitlab-ci.yml\nsonarqube-check:\n  variables:\n    SONAR_HOST_URL: https://sonar.acme.io\n"
                  f"    SONAR_TOKEN: \"{'sq' + 'u_'}{r(40, HEX)}\"\n```"))
    f.append(item("snowflake connections toml", "config",
                  f'~/.snowflake/connections.toml\n[connections.etl]\naccount = "{r(7, LOWER)}-{r(7, LOWER)}"\nuser = "ETL_SVC"\npassword = "{_pw(20)}"\nwarehouse = "LOAD_WH"'))
    f.append(item("oci config passphrase", "config",
                  f"~/.oci/config\n[DEFAULT]\nuser=ocid1.user.oc1..aaaaaaaa{r(52, B32L)}\nfingerprint={':'.join(r(2, HEX) for _ in range(16))}\n"
                  f"key_file=~/.oci/oci_api_key.pem\npass_phrase={_pw(16)}\ntenancy=ocid1.tenancy.oc1..aaaaaaaa{r(52, B32L)}\nregion=eu-frankfurt-1"))
    f.append(item("android signing config", "config",
                  f"app/build.gradle\n    signingConfigs {{\n        release {{\n            storeFile file('release.jks')\n"
                  f"            storePassword '{_pw(16)}'\n            keyAlias 'upload'\n            keyPassword '{_pw(16)}'\n        }}\n    }}"))
    f.append(item("mcp server env", "config",
                  "claude_desktop_config.json\n```json\n" + json.dumps({"mcpServers": {"github": {
                      "command": "docker", "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
                      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "github" + "_pat_" + r(22) + "_" + r(59)}}}}, indent=2) + "\n```"))
    f.append(item("wpa supplicant psk", "config", f'/etc/wpa_supplicant/wpa_supplicant.conf\nnetwork={{\n    ssid="Acme-Office"\n    psk={r(64, HEX)}\n}}'))
    # --- vendor CLIs and shell one-liners
    f.append(item("az service principal login", "cli",
                  f"az login --service-principal -u {_uuid()} -p '{_azure_secret()}' --tenant {_uuid()}"))
    f.append(item("b2 authorize", "cli", f"b2 account authorize 005{r(22, HEX)} {'K0' + '05'}{r(27, ALNUM + '/+')}"))
    f.append(item("aliyun configure", "cli",
                  f"aliyun configure set --profile prod --mode AK --access-key-id {'LT' + 'AI'}{r(20)} --access-key-secret {r(30)} --region cn-hangzhou"))
    f.append(item("doppler run token", "cli", f"doppler run --token {'dp' + '.st.'}prd.{r(40)} -- ./bin/worker"))
    f.append(item("newrelic cli profile", "cli", f"newrelic profile add --profile eu --region EU --apiKey {'NR' + 'AK-'}{r(27, UP)} --accountId {r(7, DIG)}"))
    f.append(item("stripe listen restricted", "cli", f"stripe listen --forward-to localhost:4242/webhook --api-key {'rk' + '_live_'}{r(99)}"))
    f.append(item("jfrog reference token", "cli",
                  f"jf c add artifactory-prod --url https://acme.jfrog.io --access-token {b64('reftkn:01:' + r(10, DIG) + ':' + r(31)).rstrip('=')} --interactive=false"))
    f.append(item("curl -u jenkins", "shell", f"curl -X POST -u admin:{r(34, HEX)} https://ci.acme.io/job/deploy-prod/buildWithParameters?TAG=v4.2.1"))
    f.append(item("sshpass one-liner", "shell", f"sshpass -p '{_pw(13)}' ssh -o StrictHostKeyChecking=no root@10.0.4.12 'systemctl restart app'"))
    f.append(item("smbclient percent", "shell", f"smbclient //nas01/backups -U 'CORP\\svc_backup%{_pw(16)}' -c 'ls'"))
    f.append(item("powershell pscredential", "shell",
                  f'$cred = New-Object System.Management.Automation.PSCredential("CORP\\svc_deploy", '
                  f'(ConvertTo-SecureString "{_pw(17)}" -AsPlainText -Force))'))
    f.append(item("argocd initial password", "shell",
                  f"$ argocd admin initial-password -n argocd\n{r(16, URL)}\n\n This password must be only used for first time login. We strongly recommend you update the password using `argocd account update-password`."))
    f.append(item("proxmox tf vars", "shell",
                  f"export TF_VAR_pm_api_token_id='terraform@pve!provider'\nexport TF_VAR_pm_api_token_secret='{_uuid()}'"))
    # --- LLM / AI in code
    f.append(item("groq python", "ai", f'from groq import Groq\nclient = Groq(api_key="{"gs" + "k_"}{r(52)}")'))
    f.append(item("openrouter python", "ai",
                  f'client = OpenAI(\n    base_url="https://openrouter.ai/api/v1",\n    api_key="{"sk-or" + "-v1-"}{r(64, HEX)}",\n)'))
    f.append(item("elevenlabs header", "ai",
                  f"POST https://api.elevenlabs.io/v1/text-to-speech/{r(20)}\nxi-api-key: {'s' + 'k_'}{r(48, HEX)}\nContent-Type: application/json"))
    f.append(item("pinecone python", "ai", f'pc = Pinecone(api_key="{"pc" + "sk_"}{r(5)}_{r(63)}")\nindex = pc.Index("docs-1536")'))
    f.append(item("azure openai header", "ai",
                  f"Azure OpenAI (sweden central)\nendpoint: https://acme-oai-swc.openai.azure.com/\napi-key: {r(32, HEX)}\ndeployment: gpt-4o-mini"))
    # --- headers and URLs
    f.append(item("grafana sa bearer", "header",
                  f"curl -H 'Authorization: Bearer {'gl' + 'sa_'}{r(32)}_{r(8, HEX)}' https://grafana.acme.io/api/dashboards/uid/{r(14, LOWER)}"))
    f.append(item("elastic apikey header", "header",
                  f"GET /_cat/indices?v\nHost: acme-prod.es.europe-west3.gcp.cloud.es.io:443\nAuthorization: ApiKey {b64(r(20, URL) + ':' + r(22, URL))}"))
    f.append(item("splunk hec", "header",
                  f"curl -k https://splunk.acme.io:8088/services/collector/event -H 'Authorization: Splunk {_uuid()}' -d '{{\"event\": \"deploy\"}}'"))
    f.append(item("postmark server token", "header", f"X-Postmark-Server-Token: {_uuid()}"))
    f.append(item("honeycomb otlp headers", "header",
                  f"OTEL_EXPORTER_OTLP_ENDPOINT=https://api.eu1.honeycomb.io\nOTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team={'hc' + 'aik_'}01{r(56, LOWER)}"))
    f.append(item("git extraheader basic", "git",
                  f"git -c http.extraHeader=\"Authorization: Basic {b64('x-token-auth:' + r(32))}\" clone https://bitbucket.org/acme/infra.git"))
    f.append(item("jupyter token url", "url", f"http://127.0.0.1:8888/lab?token={r(48, HEX)}"))
    f.append(item("gcs signed url", "url",
                  f"https://storage.googleapis.com/acme-exports/report.parquet?X-Goog-Algorithm=GOOG4-RSA-SHA256"
                  f"&X-Goog-Credential=exporter%40acme-prod.iam.gserviceaccount.com%2F20251119%2Fauto%2Fstorage%2Fgoog4_request"
                  f"&X-Goog-Date=20251119T101500Z&X-Goog-Expires=604800&X-Goog-SignedHeaders=host&X-Goog-Signature={r(512, HEX)}"))
    f.append(item("calendar secret address", "url",
                  f"on-call calendar (secret iCal address): https://calendar.google.com/calendar/ical/oncall%40acme.io/private-{r(32, HEX)}/basic.ics"))
    f.append(item("power automate workflow", "url",
                  f"Teams alert workflow: https://prod-{r(2, DIG)}.westeurope.logic.azure.com:443/workflows/{r(32, HEX)}/triggers/manual/paths/invoke"
                  f"?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig={r(43, URL)}"))
    f.append(item("pip index token", "url",
                  f"pip.conf\n[global]\nindex-url = https://__token__:{'gl' + 'pat-'}{r(20, URL)}@gitlab.acme.io/api/v4/projects/42/packages/pypi/simple"))
    f.append(item("token in refs frontmatter", "url", "Weekly metrics export, see the ref.",
                  meta={"refs": [f"https://metabase.acme.io/api/public/card/export?api_key={r(40, URL)}"]}))
    # --- connection strings
    f.append(item("neon pooled url", "connstr",
                  f"DATABASE_URL=postgresql://neondb_owner:{'np' + 'g_'}{r(12)}@ep-{'-'.join(words(2))}-{r(8, LOWER)}-pooler.eu-central-1.aws.neon.tech/neondb?sslmode=require"))
    f.append(item("kafka jaas confluent", "connstr",
                  f"bootstrap.servers=pkc-{r(5, LOWER)}.europe-west1.gcp.confluent.cloud:9092\nsecurity.protocol=SASL_SSL\nsasl.mechanisms=PLAIN\n"
                  f"sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"{r(16, UP)}\" password=\"{r(64, B64)}\";"))
    f.append(item("cloudamqp url", "connstr", f"CLOUDAMQP_URL=amqps://{r(8, 'abcdefghijklmnopqrstuvwxyz')}:{r(32, URL)}@rat.rmq2.cloudamqp.com/{r(8, 'abcdefghijklmnopqrstuvwxyz')}"))
    f.append(item("mssql ado string", "connstr",
                  f"Server=tcp:sql-prod-weu.database.windows.net,1433;Initial Catalog=orders;Persist Security Info=False;User ID=orders_app;"
                  f"Password={_pw(18)};MultipleActiveResultSets=False;Encrypt=True;"))
    f.append(item("oracle sqlplus", "connstr", f"sqlplus system/{_pw(14)}@//ora-prod.internal:1521/ORCLPDB1"))
    f.append(item("libpq keyword string", "connstr", f'psql "host=10.8.0.5 port=5432 dbname=ledger user=ledger_rw password={_pw(17)} sslmode=verify-full"'))
    f.append(item("mssql jdbc urlencoded", "encoded",
                  f"jdbc:sqlserver://db.acme.io:1433;databaseName=crm;user=crm_etl;password={quote(_pw(18), safe='')}"))
    # --- registries and git
    f.append(item("pypirc token", "registry",
                  f"~/.pypirc\n[pypi]\nusername = __token__\npassword = {'py' + 'pi-'}AgEIcHlwaS5vcmc{r(134, URL)}"))
    f.append(item("rubygems credentials", "registry", f"~/.gem/credentials\n---\n:rubygems_api_key: {'ruby' + 'gems_'}{r(48, HEX)}"))
    f.append(item("composer gitlab token", "registry",
                  "auth.json next to composer.json:\n" + json.dumps({"gitlab-token": {"gitlab.acme.io": "gl" + "pat-" + r(20, URL)}}, indent=4)))
    f.append(item("npmrc basic auth", "registry",
                  f"~/.npmrc\nregistry=https://npm.acme.io/\n//npm.acme.io/:_auth={b64('deploy:' + _pw(16))}\nalways-auth=true"))
    f.append(item("docker login stdin", "docker",
                  f"echo '{'gl' + 'pat-'}{r(20, URL)}' | docker login registry.gitlab.com -u deploy-bot --password-stdin"))
    f.append(item("docker config harbor robot", "docker",
                  "~/.docker/config.json\n" + json.dumps({"auths": {"harbor.acme.io": {"auth": b64("robot$ci+push:" + r(32))}}}, indent=2)))
    f.append(item("ecr docker login", "docker",
                  "docker login -u AWS -p " + b64(json.dumps({"payload": b64(_rand_bytes(420)), "datakey": b64(_rand_bytes(180)), "version": "2",
                                                             "type": "DATA_KEY", "expiration": 1764935000}))
                  + f" {r(12, DIG)}.dkr.ecr.eu-west-1.amazonaws.com"))
    f.append(item("git credentials store", "git", f"~/.git-credentials\nhttps://x-access-token:{'gh' + 's_'}{r(36)}@github.com"))
    f.append(item("git credential approve", "git",
                  f"git credential approve <<EOF\nprotocol=https\nhost=bitbucket.org\nusername=dev-acme\npassword={'AT' + 'BB'}{r(32)}{r(8, HEXU)}\nEOF"))
    f.append(item("azure devops pat", "git", f"git clone https://anything:{r(52, B32L)}@dev.azure.com/acme/Payments/_git/gateway"))
    f.append(item("windows netrc", "git", f"%USERPROFILE%\\_netrc\nmachine git.acme.io\nlogin ci-reader\npassword {r(40, HEX)}"))
    # --- cloud key pairs
    f.append(item("aws temp credentials", "cloud",
                  f"~/.aws/credentials\n[sso-admin]\naws_access_key_id = {'AS' + 'IA'}{r(16, UP)}\naws_secret_access_key = {r(40, B64)}\n"
                  f"aws_session_token = IQoJb3JpZ2luX2VjE{r(380, B64)}"))
    f.append(item("gcs hmac key", "cloud", f"GCS interop HMAC for the backup tool:\naccess id: {'GOO' + 'G1E'}{r(55, UP)}\nsecret: {r(40, B64)}"))
    f.append(item("scaleway keys", "cloud", f"SCW_ACCESS_KEY={'SC' + 'W'}{r(17, UP)}\nSCW_SECRET_KEY={_uuid()}\nSCW_DEFAULT_PROJECT_ID={_uuid()}"))
    f.append(item("cloudflared tunnel token", "cloud",
                  "cloudflared service install " + b64(json.dumps({"a": r(32, HEX), "t": _uuid(), "s": b64(_rand_bytes(32))}, separators=(",", ":")))))
    f.append(item("entra msal confidential", "sso",
                  f'app = msal.ConfidentialClientApplication(\n    "{_uuid()}",\n    authority="https://login.microsoftonline.com/{_uuid()}",\n'
                  f'    client_credential="{_azure_secret()}",\n)'))
    f.append(item("google client secret json", "sso",
                  "client_secret.json\n" + json.dumps({"web": {"client_id": f"{r(12, DIG)}-{r(32, LOWER)}.apps.googleusercontent.com",
                                                               "project_id": "acme-login", "client_secret": "GOC" + "SPX-" + r(28, URL),
                                                               "redirect_uris": ["https://app.acme.io/auth/google/callback"]}})))
    f.append(item("auth0 m2m secret", "sso", f"AUTH0_DOMAIN=acme.eu.auth0.com\nAUTH0_CLIENT_ID={r(32)}\nAUTH0_CLIENT_SECRET={r(64, URL)}"))
    # --- messaging and payment
    f.append(item("slack app level token", "vendor", f"socket mode: SLACK_APP_TOKEN={'xa' + 'pp-1-'}A{r(10, UP)}-{r(13, DIG)}-{r(64, HEX)}"))
    f.append(item("twilio auth token", "vendor", f"TWILIO_ACCOUNT_SID=AC{r(32, HEX)}\nTWILIO_AUTH_TOKEN={r(32, HEX)}"))
    f.append(item("brevo key", "vendor", f"BREVO_API_KEY={'xkey' + 'sib-'}{r(64, HEX)}-{r(16)}"))
    f.append(item("sendgrid smtp url", "vendor", f"MAIL_URL=smtp://apikey:{'S' + 'G.'}{r(22, URL)}.{r(43, URL)}@smtp.sendgrid.net:587"))
    f.append(item("stripe webhook secret", "vendor", f"STRIPE_WEBHOOK_SECRET={'wh' + 'sec_'}{r(32)}"))
    f.append(item("paddle api key", "vendor", f"PADDLE_API_KEY={'pdl' + '_live_apikey_'}01{r(24, LOWER)}_{r(22)}_{r(3)}"))
    f.append(item("terraform cloud tfrc", "terraform",
                  "~/.terraform.d/credentials.tfrc.json\n" + json.dumps({"credentials": {"app.terraform.io": {"token": r(14) + ".atlas" + "v1." + r(67, URL)}}}, indent=2)))
    f.append(item("tfstate db password", "terraform",
                  "terraform.tfstate excerpt:\n" + json.dumps({"type": "aws_db_instance", "name": "main", "instances": [{"attributes": {
                      "engine": "postgres", "username": "app_admin", "password": _pw(24), "port": 5432}, "sensitive_attributes": []}]}, indent=2)))
    f.append(item("hetzner tfvars", "terraform", f'prod.auto.tfvars\nhcloud_token = "{r(64)}"\nlocation     = "nbg1"'))
    # --- kubernetes
    f.append(item("kubeconfig client key data", "kube",
                  f"users:\n- name: admin@homelab\n  user:\n    client-certificate-data: {b64(_rand_bytes(600))}\n"
                  f"    client-key-data: {b64(_pem('EC ' + PK, _ec_sec1()) + chr(10))}"))
    f.append(item("kubeconfig sa token", "kube",
                  "users:\n- name: ci-deployer\n  user:\n    token: " + _jwt({
                      "aud": ["https://kubernetes.default.svc.cluster.local"], "exp": 1796400000, "iat": 1764864000,
                      "iss": "https://kubernetes.default.svc.cluster.local",
                      "kubernetes.io": {"namespace": "ci", "serviceaccount": {"name": "deployer", "uid": _uuid()}},
                      "nbf": 1764864000, "sub": "system:serviceaccount:ci:deployer"}, "RS256", 256)))
    f.append(item("kubectl from-literal", "kube",
                  f"kubectl -n payments create secret generic psp-creds --from-literal=merchant-id=acme-eu --from-literal=api-key={r(32)}"))
    f.append(item("k8s secret data", "kube",
                  f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp\ntype: Opaque\ndata:\n  username: {b64('mailer@acme.io')}\n  password: {b64(_pw(18))}"))
    f.append(item("kubeadm join", "kube",
                  f"kubeadm join 10.0.0.10:6443 --token {r(6, LOWER)}.{r(16, LOWER)} --discovery-token-ca-cert-hash sha256:{r(64, HEX)}"))
    # --- JWTs with real claims
    f.append(item("supabase service role", "jwt",
                  "SUPABASE_SERVICE_ROLE_KEY=" + _jwt({"iss": "supabase", "ref": r(20, "abcdefghijklmnopqrstuvwxyz"), "role": "service_role",
                                                       "iat": 1741000000, "exp": 2056576000})))
    f.append(item("keycloak access token", "jwt",
                  "captured from the browser for the API test:\nAuthorization: Bearer " + _jwt({
                      "exp": 1764952000, "iat": 1764951700, "jti": _uuid(), "iss": "https://sso.acme.io/realms/acme", "aud": "account",
                      "sub": _uuid(), "typ": "Bearer", "azp": "web-portal", "realm_access": {"roles": ["offline_access", "billing-admin"]},
                      "scope": "openid email profile", "preferred_username": "m.rossi"}, "RS256", 256)))
    f.append(item("turso token", "jwt",
                  "TURSO_DATABASE_URL=libsql://analytics-acme.turso.io\nTURSO_AUTH_TOKEN=" + _jwt({"a": "rw", "iat": 1764000000, "id": _uuid()}, "EdDSA", 64)))
    # --- key material
    f.append(item("apns p8", "keymat", f"AuthKey_{r(10, UP)}.p8 (push, team {r(10, UP)}):\n{_pem(PK, _ec_pkcs8())}"))
    f.append(item("ed25519 pkcs8", "keymat", f"signing key for release manifests:\n{_pem(PK, _ed_pkcs8())}"))
    f.append(item("encrypted pkcs8", "keymat", "old VPN client key (passphrase in the team vault):\n" + _pem("ENCRYPTED " + PK, _rand_bytes(1218))))
    f.append(item("openssh one line env", "keymat",
                  "DEPLOY_SSH_KEY=\"" + _pem("OPENSSH " + PK, b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01"
                                             + _rand_bytes(300)).replace("\n", "\\n") + "\""))
    f.append(item("coinbase cdp key", "keymat",
                  "cdp_api_key.json\n" + json.dumps({"name": f"organizations/{_uuid()}/apiKeys/{_uuid()}",
                                                      "privateKey": _pem("EC " + PK, _ec_sec1()) + "\n"}, indent=2)))
    f.append(item("solana keypair", "keymat", f"~/.config/solana/id.json (devnet faucet wallet... and mainnet):\n{json.dumps(list(_rand_bytes(64)))}"))
    f.append(item("bitcoin xprv", "keymat", f"cold storage account 0 xprv: xprv9s21ZrQH143K{r(95, B58)}"))
    f.append(item("cosign key and password", "keymat",
                  _block("ENCRYPTED SIGSTORE " + PK, wrap(b64(_rand_bytes(360)))) + f"\nCOSIGN_PASSWORD={_pw(20)}"))
    f.append(item("p12 base64 and password", "encoded",
                  f"iOS dist cert for the GitHub secret BUILD_CERTIFICATE_BASE64:\nMIIMdQIBAzCCDDsGCSqGSIb3DQEHAaCCDCwEggwo{r(300, B64)}\nP12_PASSWORD={_pw(14)}"))
    # --- TOTP, recovery codes, mnemonics
    f.append(item("otpauth uri", "otp", f"otpauth://totp/GitHub:ops%40acme.io?secret={r(32, B32)}&issuer=GitHub"))
    f.append(item("recovery codes", "otp",
                  "github-recovery-codes.txt (shared ops account)\n" + "\n".join(f"{r(5, HEX)}-{r(5, HEX)}" for _ in range(8))))
    f.append(item("numbered 24 words", "mnemonic",
                  "Ledger backup (safe deposit copy lost):\n" + "\n".join(f"{i:>2}. {w}" for i, w in enumerate(words(24), 1))))
    f.append(item("french recovery phrase", "mnemonic", f"ma phrase de récupération Phantom : {' '.join(words(12))}"))
    # --- prose in many languages
    f.append(item("italian nas", "prose", f"La password del NAS di casa è {_pw(13)}"))
    f.append(item("dutch wifi", "prose", f"Het wachtwoord voor de wifi op kantoor is {'-'.join(w.capitalize() for w in words(3))}-{r(2, DIG)}"))
    f.append(item("polish panel", "prose", f"Hasło do panelu administracyjnego: {_pw(14)}"))
    f.append(item("vietnamese root", "prose", f"Mật khẩu của tài khoản root là {_pw(14)}"))
    f.append(item("hindi server", "prose", f"सर्वर का पासवर्ड {_pw(12)} है"))
    f.append(item("hebrew server", "prose", f"הסיסמה לשרת היא {_pw(12)}"))
    f.append(item("english casual login", "prose", f"note to self: jenkins login is admin and {_pw(14)} until SSO lands"))
    # --- chat logs
    f.append(item("slack copy token alone", "chat",
                  f"priya  10:42 AM\ncan you DM me the staging api token?\ntom  10:43 AM\n{r(40, URL)}\npriya  10:43 AM\nthx"))
    f.append(item("irc bot deploy key", "chat", f"[2025-11-03 14:02] <ops-bot> new deploy key for ci: {r(40, URL)}"))
    f.append(item("teams sftp pass", "chat", f"Maria Lopez 09:15\nthe sftp pass is {_pw(14)} (expires Friday)"))
    # --- tables
    f.append(item("markdown creds table", "table",
                  f"| service | user | password |\n|---|---|---|\n| grafana | admin | {_pw(14)} |\n| minio | root | {_pw(16)} |\n| pgadmin | ops@acme.io | {_pw(13)} |"))
    f.append(item("env key table", "table",
                  f"| env | region | API key |\n|---|---|---|\n| prod | eu | {r(32)} |\n| staging | eu | {r(32)} |"))
    f.append(item("password manager csv", "table",
                  f"name,url,username,password,totp\nAWS root,https://signin.aws.amazon.com,root@acme.io,{_pw(20)},\n"))
    # --- split across description and body
    f.append(item("synology split", "split", f"{_pw(15)}", description="Password for the office Synology (user admin)"))
    f.append(item("mailgun split", "split", f"{r(32, HEX)}-{r(8, HEX)}-{r(8, HEX)}", description="Mailgun sending API key, domain mg.acme.io"))
    f.append(item("user first pass later", "split",
                  f"billing-db read replica\nuser: analytics_ro\nhost: 10.3.1.20\n\nlogs rotated nightly; vacuum on sundays\n\npass: {_pw(16)}",
                  description="analytics replica access"))
    # --- encoded
    f.append(item("gcp sa base64", "encoded",
                  "GOOGLE_CREDENTIALS=" + b64(json.dumps({"type": "service_account", "project_id": "acme-data", "private_key_id": r(40, HEX),
                                                          "private_key": _pem(PK, _rand_bytes(1190)) + "\n",
                                                          "client_email": "etl@acme-data.iam.gserviceaccount.com"}))))
    f.append(item("env file base64", "encoded",
                  "ENV_FILE_B64 (decode into .env on deploy): " + b64(f"DB_PASSWORD={_pw(18)}\nSESSION_SECRET={r(48, HEX)}\n")))
    return f


def look_alikes() -> list[dict]:
    """Shapes and places of credentials that are not secrets."""
    a = []
    # --- public by design
    a.append(item("recaptcha site key", "public",
                  f'<div class="g-recaptcha" data-sitekey="6L{r(38, URL)}"></div>\n(site key goes in the page; the secret stays on the server)'))
    a.append(item("turnstile sitekey", "public", f"turnstile.render('#cf', {{ sitekey: '0x4AAAAAAA{r(14, URL)}', theme: 'auto' }})"))
    a.append(item("posthog project key", "public", f"posthog.init('{'ph' + 'c_'}{r(43)}', {{ api_host: 'https://eu.i.posthog.com' }})"))
    a.append(item("launchdarkly client id", "public", f"const client = LDClient.initialize('{r(24, HEX)}', {{ kind: 'user', key: userId }})"))
    a.append(item("datadog rum token", "public",
                  f"datadogRum.init({{ applicationId: '{_uuid()}', clientToken: 'pub{r(32, HEX)}', site: 'datadoghq.eu', service: 'web' }})"))
    a.append(item("clerk publishable only", "public", f"NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY={'pk' + '_live_'}{b64('clerk.shop.acme.io$').rstrip('=')}"))
    a.append(item("razorpay key id checkout", "public",
                  f"checkout options: {{ key: \"{'rzp' + '_live_'}{r(14)}\", amount: 49900, currency: \"INR\", order_id: \"order_{r(14)}\" }}"))
    a.append(item("pkce authorize url", "public",
                  f"https://sso.acme.io/realms/acme/protocol/openid-connect/auth?client_id=web-portal&response_type=code"
                  f"&redirect_uri=https%3A%2F%2Fapp.acme.io%2Fcb&code_challenge={r(43, URL)}&code_challenge_method=S256&state={r(22, URL)}"))
    a.append(item("acme http01", "public",
                  f"served at /.well-known/acme-challenge/{r(43, URL)}\ncontent: {r(43, URL)}.{r(43, URL)}"))
    # --- public keys and addresses
    a.append(item("age recipient sops", "pubkey", f".sops.yaml\ncreation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: age1{r(58, '023456789acdefghjklmnpqrstuvwxyz')}"))
    a.append(item("dkim record", "pubkey",
                  f"TXT selector1._domainkey.acme.io \"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA{r(300, B64)}IDAQAB\""))
    a.append(item("cosign pub", "pubkey", "cosign.pub (verify with cosign verify --key cosign.pub):\n"
                  + _block("PUBLIC KEY", wrap("MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE" + r(88, B64)))))
    a.append(item("xpub watch only", "pubkey", f"watch-only wallet in Sparrow: xpub661MyMwAqRbc{r(95, B58)}"))
    a.append(item("solana address", "pubkey", f"send devnet SOL to {r(44, B58)}"))
    a.append(item("known hosts", "pubkey",
                  f"~/.ssh/known_hosts\ngit.acme.io ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB{r(90, B64)}="))
    # --- hashes
    a.append(item("argon2 hash", "hash", f"users.json admin hash: $argon2id$v=19$m=65536,t=3,p=4${r(22, B64)}${r(43, B64)}"))
    a.append(item("htpasswd apr1", "hash", f".htpasswd for the docs preview\nreviewer:$apr1${r(8, ALNUM + './')}${r(22, ALNUM + './')}"))
    a.append(item("django pbkdf2", "hash", f"createsuperuser stored pbkdf2_sha256$870000${r(22)}${r(43, B64)}="))
    a.append(item("npm integrity", "digest", f'"node_modules/zod": {{"version": "3.24.1", "integrity": "sha512-{r(86, B64)}=="}}'))
    a.append(item("sri integrity", "digest", f'<script src="https://cdn.jsdelivr.net/npm/htmx.org@2.0.4" integrity="sha384-{r(64, B64)}" crossorigin="anonymous"></script>'))
    a.append(item("image digest pin", "digest", f"image: ghcr.io/acme/api@sha256:{r(64, HEX)}"))
    # --- encrypted
    a.append(item("sealed secret", "encrypted",
                  f"apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: smtp\nspec:\n  encryptedData:\n    password: AgB{r(680, B64)}=="))
    a.append(item("ansible vault", "encrypted",
                  "group_vars/prod/vault.yml\n$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(r(80, "0123456789") for _ in range(6))))
    a.append(item("jenkins encrypted", "encrypted", f"credentials.xml\n<password>{{AQAAABAAAAAQ{r(44, B64)}=}}</password>"))
    # --- references
    a.append(item("azure key vault ref", "reference",
                  f"App Service setting DB_PASSWORD = @Microsoft.KeyVault(SecretUri=https://kv-acme-prod.vault.azure.net/secrets/DbPassword/{r(32, HEX)})"))
    a.append(item("gcp secret manager", "reference",
                  "STRIPE_KEY=$(gcloud secrets versions access latest --secret=stripe-restricted --project=acme-prod)"))
    a.append(item("aws secrets arn", "reference", f"secret arn: arn:aws:secretsmanager:eu-west-1:{r(12, DIG)}:secret:prod/billing/db-{r(6)}"))
    a.append(item("external secret", "reference",
                  "kind: ExternalSecret\nspec:\n  secretStoreRef: {name: vault-backend, kind: ClusterSecretStore}\n  data:\n"
                  "  - secretKey: password\n    remoteRef: {key: secret/data/prod/db, property: password}"))
    a.append(item("vault accessor", "reference",
                  f"vault token lookup -accessor output\naccessor           {r(24)}\ndisplay_name       approle\npolicies           [default deploy]\nttl                767h59m"))
    # --- placeholders and masked
    a.append(item("env example", "placeholder",
                  f".env.example\nOPENAI_API_KEY={'s' + 'k-proj-'}your-key-here\nSTRIPE_SECRET_KEY={'sk' + '_live_'}{'x' * 24}\nDATABASE_URL=postgres://user:password@localhost:5432/app"))
    a.append(item("angle placeholder", "placeholder", "curl -H 'Authorization: Bearer <YOUR_GROQ_API_KEY>' https://api.groq.com/openai/v1/models"))
    a.append(item("stripe masked", "masked", f"dashboard shows the restricted key as {'rk' + '_live_'}...{r(4)}; rolled it on 12 Nov"))
    a.append(item("gh auth status", "masked", f"$ gh auth status\n  ✓ Logged in to github.com account acme-bot (keyring)\n  - Token: {'gh' + 'o_'}{'*' * 36}"))
    a.append(item("sensitive value", "masked", "terraform plan: ~ password = (sensitive value)\nkubectl describe secret smtp -> password: 24 bytes"))
    # --- documented examples
    a.append(item("jwt io example", "documented",
                  "the sample token from jwt.io: " + "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
                  ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"))
    a.append(item("stripe docs test key", "documented", f"the key in Stripe's API reference examples: {'sk' + '_test_'}4eC39HqLyjWDarjtT1zdp7dc"))
    a.append(item("bip39 test vector", "documented",
                  "BIP-39 test vector for the wallet unit test: " + " ".join(["abandon"] * 11) + " about"))
    a.append(item("hardhat account 0", "documented",
                  "hardhat node account #0 (public test key, every dev has it): 0x" + "ac0974bec39a17e36ba4a6b4d238ff94" + "4bacb478cbed5efcae784d7bf4f2ff80"))
    a.append(item("rfc6238 seed", "documented", "RFC 6238 test seed (SHA1), base32: GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"))
    a.append(item("azurite key", "documented",
                  "Azurite emulator connection (well-known dev key): AccountName=devstoreaccount1;AccountKey="
                  + "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="))
    # --- ids and other high-entropy non-secrets
    a.append(item("google doc id", "id", f"spec draft: https://docs.google.com/document/d/1{r(43, URL)}/edit"))
    a.append(item("notion page", "id", f"runbook: https://www.notion.so/acme/Incident-runbook-{r(32, HEX)}"))
    a.append(item("twilio sids", "id", f"Account SID AC{r(32, HEX)}, Messaging Service MG{r(32, HEX)}"))
    a.append(item("stripe object ids", "id", f"refund failed for cus_{r(14)} / pi_{r(24)} / price_{r(24)}"))
    a.append(item("request id error", "id", f"502 from the gateway, x-request-id: {_uuid()}, cf-ray: {r(16, HEX)}-FRA"))
    a.append(item("csp nonce", "nonce", f"response had <script nonce=\"{b64(_rand_bytes(16))}\"> so the CSP header is applied"))
    a.append(item("git log oneline", "id", "\n".join(f"{r(40, HEX)} {m}" for m in ("fix: retry on 429", "feat: rotate keys via doppler", "chore: bump zod"))))
    # --- prose, chat and tables that talk about secrets
    a.append(item("italian password elsewhere", "prose", "La password del NAS è nel portachiavi aziendale (voce 'nas-casa'), non qui."))
    a.append(item("dutch changed", "prose", "wachtwoord van de router gewijzigd op 3 maart, staat in Bitwarden onder 'kantoor-router'"))
    a.append(item("chat rotation", "chat",
                  "bob  09:12\ndid you rotate the sendgrid key?\nalice  09:13\nyes, new one is in Doppler prd config, old one revoked"))
    a.append(item("where secrets live table", "table",
                  "| variable | where it lives |\n|---|---|\n| STRIPE_SECRET_KEY | Doppler prd/stripe |\n| DB_PASSWORD | AWS SM prod/billing/db |\n| SENTRY_AUTH_TOKEN | GitHub Actions secret |"))
    return a


FORMS = forms()
LOOK_ALIKES = look_alikes()
