"""The ninth held-out corpus for the secret gate: BLIND, written without reading the detector, its
tests or the other corpora's items (only the docstring and item format of ``secrets_heldout8.py``,
the generator ``secret_gen.py`` and ``bench/bench_secrets.py``), and measured once, untuned.

It plays a developer pasting what they really paste into a memory in 2025-2026, with vendors,
formats, languages and places chosen apart from issue 23's examples and heldout8's docstring list
(222 forms, 70 look-alikes):
AI tools and agent configurations (an agent CLI's ``settings.json`` ``env`` block behind an LLM
gateway, an MCP server entry with a key in ``env`` and another with a connection string in
``args``, a coding CLI's ``auth.json`` with its refresh token, Continue ``apiKey`` for Groq, Aider
with an OpenRouter key, a Langfuse key pair, Pinecone ``Pinecone(api_key=...)``, a Gemini key in a
server ``.env``, an Azure OpenAI ``api-key`` dict, Weaviate ``Auth.api_key("...")``, a notebook's
JSON with an ``os.environ[...] =`` line); platforms outside the usual lists (a Railway token in a
workflow, a Neon ``napi_`` key on a CLI line in CI, a Supabase service-role JWT, a Turso
``?authToken=``, a Convex deploy key, a Hasura admin-secret header pane, Proxmox ``PVEAPIToken``,
a govc URL with its password, Vault's init output with unseal keys, a Consul gossip ``encrypt``,
a Cloudflare Tunnel install token, Backblaze B2 and Tencent keys as positional arguments);
payments (ccxt/Binance, a Coinbase CDP key JSON, Braintree and Twilio API keys as positional
arguments); SaaS (Postmark's server-token header, Honeycomb in ``OTEL_EXPORTER_OTLP_HEADERS``,
Grafana Cloud in an Alloy ``basic_auth`` block, Zoom's client secret inside a ``printf | base64``,
Google ``client_secret.json``, an Entra client secret, an Azure DevOps PAT in a remote, Azure SAS
and AWS presigned URLs, ElevenLabs ``xi-api-key``, ntfy ``tk_``); home lab and IoT (a Home
Assistant bearer, ESPHome ``encryption: key``, a Zigbee2MQTT ``network_key`` array, Tasmota
``Backlog ... MqttPassword X``, wpa_supplicant ``psk``, ``netsh wlan ... key=clear`` output,
``nmcli ... password X``, a Frigate RTSP URL, a Jellyfin ``api_key=``); forges, CI and registries
(``.gitcookies``, ``.arcrc``, a runner registration ``--token``, a GitLab CI ``variables`` block,
a BrowserStack hub URL, Jenkins' initial admin password banner, Composer ``auth.json``, a JFrog
reference token, an ECR login password, pnpm ``_password``, ``DENO_AUTH_TOKENS``, ``poetry config
http-basic``, pip ``--extra-index-url`` with a password and a token-only git URL, a
``package.json`` git dependency with a token); databases (``sqlplus u/p@``, ``sqlcmd -P``, DuckDB
``CREATE SECRET``, Databricks through SQLAlchemy, Kafka ``sasl.jaas.config``, ``rabbitmqctl
add_user``, a pgbouncer ``userlist.txt`` in plain text, ``airflow connections add
--conn-password``, Tomcat ``context.xml``, Sequelize positional arguments, a libpq key/value
string, mongosh ``createUser({pwd})``, Firebase ``?auth=``, a password as a URL query parameter, a
Postgres log echoing ``ALTER ROLE ... PASSWORD``); code in Dart, Haskell, Zig, MATLAB, COBOL,
Erlang, VBA, ABAP, fish, PowerShell ``ConvertTo-SecureString``, ``.bazelrc``, TypeScript ``??``
fallbacks, Python ``getenv`` defaults, Spring ``${X:default}``, Rust struct literals, systemd
``Environment=``, crontab, a Dockerfile writing ``.npmrc``, compose list-form ``environment``, PHP
arrays (Nextcloud, Drupal), framework secrets (Laravel ``base64:``, Django ``django-insecure-``,
Flask bytes, Rails ``master.key``, Mastodon, Gitea ``app.ini``); network and Windows
administration (HAProxy ``insecure-password``, keepalived ``auth_pass``, FreeRADIUS ``secret``,
``ipsec.secrets``, an OpenVPN ``auth-user-pass`` file, ``ldapsearch -w``, ``smbclient -U u%p``,
``net use`` positional, ``sshpass -p``, ``kubectl --from-literal``, ``az ad sp create-for-rbac``
output, OCI ``pass_phrase``, restic with a diceware phrase, Streamlit ``secrets.toml``, a Jupyter
token URL); devtools (JMeter, WS-Security ``PasswordText``, an OAuth client-credentials body and
token response, a ``localStorage`` dump, a ``document.cookie`` string, grpcurl, a GraphQL header
pane); webhook and deploy-hook URLs (Netlify, Vercel, Render, Zapier, IFTTT, DingTalk with its
``SEC`` secret, Feishu, Rocket.Chat, Apprise); key material (a Solana keypair array, an ``xprv``,
an LND macaroon header, an encrypted PKCS#8 key with its passphrase, a PEM bundle with the key
second, a Tink keyset, a Fernet key, an ``otpauth://`` seed, an Android keystore in base64 with its
password, an Ethereum keystore with its password, dotenvx ``DOTENV_PRIVATE_KEY``, a libp2p
``PrivKey``, a BIND DNSSEC ``.private``, a TSIG key, a Kubernetes ``EncryptionConfiguration``, an
OpenVPN static key, a Nebula host key); prose in French, Italian, Dutch, Polish, Ukrainian, Greek,
Hebrew, Hindi, Vietnamese, Tagalog, Persian, Urdu, Finnish, Hungarian and Hinglish, plus English
idioms without a label word next to the value; chat (IRC, Element, a forge issue's repro, a
tracker comment, an agent transcript's tool output, a Telegram export, a review comment); tables
(a password-manager CSV export, Markdown, org-mode, HTML, reStructuredText, a semicolon CSV);
values split across the key, description and body, or cut in two halves in the text; logs
(``set -x``, ``curl -v``, requests' ``send:``, Go ``%+v`` and Rust ``Debug`` prints, a Rails
``Parameters`` line, FTP ``PASS`` in ``tcpdump -A``, SMTP ``AUTH PLAIN``, ``ps aux``,
``/proc/<pid>/environ``, ``kubectl describe``, a Windows 4688 event, a password typed into sshd's
user prompt, Ansible ``-vvv``, a ``.tfstate`` ``random_password``, a Sentry event, a traceback's
URL); encodings (a ``kubectl`` jsonpath of ``.data``, a whole ``.env`` in base64, percent-encoded
and JSON-escaped passwords, ``xxd -p`` hex, ``Proxy-Authorization``, a service-account JSON in
base64); games and streaming (Twitch and YouTube stream keys, a Roblox ``.ROBLOSECURITY`` cookie,
Palworld ``AdminPassword``).
The look-alikes share those shapes and places without being secrets.

Decisions on the borderline (made before measuring):
- credentials: a webhook or deploy-hook URL carrying its token (Netlify build hooks, Vercel and
  Render deploy hooks, Zapier catch hooks, IFTTT keys, DingTalk/Feishu/Rocket.Chat
  hooks: anyone holding them posts or deploys, as heldout8 decided for Mattermost and Teams); a
  presigned AWS URL with its session token and an Azure SAS URL (they grant access while they
  live); stream keys (anyone holding one streams as the person); a TOTP ``otpauth://`` seed; a
  Roblox ``.ROBLOSECURITY`` cookie and a Rails ``remember_user_token`` cookie (session cookies,
  as in heldout8); a CI runner registration token and Jenkins' initial admin password (short-lived
  but live when pasted); Django's ``django-insecure-`` key (the prefix is a warning, not a
  placeholder: it signs sessions wherever it runs); an encrypted private key, keystore or wallet
  *together with its passphrase* in the same memory; an LND macaroon, a Cloudflare Tunnel token,
  an ECR login password, a Solana keypair array, an ``xprv``, a Zigbee ``network_key`` array, a
  dotenvx ``DOTENV_PRIVATE_KEY``, a libp2p ``PrivKey``; a password typed into a login prompt's
  user field that a log kept; a low-entropy human password (``Soleil2025!``) or a diceware phrase
  given as a password -- the place makes it one, not its entropy; a credential written in two
  halves so a chat tool would not catch it; a password alone in a body whose memory key or
  description names it (the memory is one record).
- look-alikes: keys public by design (a PostHog ``phc_`` project key, a LaunchDarkly client-side
  id, a Datadog RUM ``pub`` client token, a Segment browser write key, a Supabase ``anon`` JWT, a
  Turnstile *site* key, a VAPID *public* key, a Discord application public key, an OAuth
  ``client_id`` alone); public keys (an age recipient, an ``xpub``, a Solana address, a DKIM TXT
  record, ``cosign.pub``, ``known_hosts``, an OpenVPN ``<ca>`` certificate); encrypted values
  (Ansible Vault, Sealed Secrets, an age-encrypted file, a PGP MESSAGE, Jasypt ``ENC(...)``, a KMS
  ``CiphertextBlob``, dotenvx ``encrypted:`` values next to the *public* key); hashes (Argon2id,
  Django PBKDF2, a pgbouncer SCRAM verifier, htpasswd ``$apr1$``); documented examples and
  defaults (jwt.io's example token, the Flask quickstart's ``secret_key``, RFC 6238's test seed,
  Oracle's ``scott/tiger``, MinIO's ``minioadmin``, Grafana's first-login ``admin/admin``,
  ``changeme`` in an ``.env.example``); masked values (``aws configure list``, ``gh auth status``,
  Rails ``[FILTERED]``, actuator ``******``, pip's ``****``, Terraform ``(sensitive value)``);
  references to where a secret lives (``op://``, CloudFormation ``{{resolve:...}}``, ECS
  ``valueFrom``, ``pass show``, systemd ``LoadCredential``, fstab ``credentials=``, Jinja
  ``{{ vault_x }}``, ``/run/secrets``, ``secretKeyRef``, ``$TOKEN`` in a header); ids, digests and
  signatures in the same places (``traceparent``, ``Idempotency-Key``, Stripe object ids, a Twilio
  ``AC`` SID alone, GitHub App ids, App Store Connect key and issuer ids, a GCP service-account
  *key id*, a CSP nonce, OCI manifest digests, ``--hash=sha256:``, Nix ``narHash``, a Solana
  transaction signature, ``Stripe-Signature``, an order reference in groups of four); a password
  policy; prose in French, Italian, Polish, Hindi, Vietnamese and Dutch that says where a secret
  lives or what the policy is.
- not in this corpus: items that are secrets only by vendor knowledge a blind judge could not
  have (a bare vendor-prefixed string with no label, place or words around it; a Philips Hue
  "username" that is really a key; Juniper ``$9$`` being reversible); sandbox/test-mode keys
  (their status is vendor policy); an encrypted key *without* its passphrase.

Same format and generator conventions as the other corpora (``secret_gen.py``): each item is a
memory (``{"name", "class", "key", "description", "body", "meta"}``), values are random from a
seeded generator and vendor prefixes are split so no scanner flags this file. The documented
examples among the look-alikes (jwt.io, Flask, the RFCs) are the published values, also split.

RESULT, measured once and untuned on heldout9 (main 4c3d19a's detector plus this corpus;
``python bench/bench_secrets.py --set heldout9 --misses``, load average 14.2 on 2 CPUs): **155/222
forms refused (69.8%) and 4/70 look-alikes refused (5.7%), precision 97.5%** (155/159 refusals).
By class (forms): ai 11/12, chat 5/7, ci 4/4, cli 11/16, code 16/23, config 10/14, connstr 2/2,
devtools 7/8, encoded 6/7, env 6/7, game 2/4, header 4/4, iot 4/6, keymat 11/18, log 17/25, mobile
2/3, net 4/5, prose 8/20, registry 4/4, shell 4/4, split 3/5, sql 1/1, table 2/6, url 7/8, webhook
4/9. Missed (67), grouped by the cause visible from outside (the detector was not read):
- a password as a positional argument or behind a short flag, no label next to it (9): ``poetry
  config http-basic.NAME USER PW``, ``rabbitmqctl add_user USER PW``, ``net use Z: \\\\host\\share
  PW /user:...``, a 4688 event's ``net user NAME PW /add``, Braintree's ``BraintreeGateway(env,
  "id", "pub", "priv")``, ``new Sequelize('db', 'user', 'pw', ...)``, Haskell ``applyBasicAuth
  "u" "p"``, a client secret inside ``printf '%s' 'id:secret' | base64``, ``altool ... -p
  xxxx-xxxx-xxxx-xxxx`` (an app-specific password);
- a label the gate does not read, or a syntax it does not read the label in (12): OCI
  ``pass_phrase=``, Tasmota ``MqttPassword X; WebPassword Y``, ``netsh``'s ``Key Content : X``,
  COBOL ``WS-DB-PASSWORD PIC X(16) VALUE '...'``, an Erlang ``{db_password, "..."}`` tuple, Spring's
  ``${DB_PASSWORD:value}`` default, WS-Security ``<wsse:Password Type="...#PasswordText">``,
  ``kubectl describe``'s column-aligned ``DB_PASSWORD:   X``, Django's ``SECRET_KEY =
  'django-insecure-...'``, Flask's ``app.secret_key = b'\\x..'`` bytes, a ``.tfstate``
  ``random_password``'s ``"result"``, pgbouncer ``userlist.txt`` ``"user" "password"`` pairs;
- URLs, hooks and host-bound tokens (8): a govc URL whose user holds an ``@``
  (``administrator@vsphere.local:PW@host``), Netlify build hooks, Vercel and Render deploy hooks
  (``?key=``), IFTTT ``/with/key/``, Apprise ``tgram://id:token/chat`` and ``pover://``,
  ``DENO_AUTH_TOKENS=token@host;...``, a ``.gitcookies`` (Netscape cookie-jar) line;
- key material and opaque tokens without a private-key armor or a label it reads (10): a Consul
  gossip ``encrypt = "<base64 32>"``, a Zigbee ``network_key`` array of 16 integers, an LND
  macaroon in ``Grpc-Metadata-macaroon``, a cleartext Tink keyset ``"value"``, ``Fernet(b'...')``,
  dotenvx ``DOTENV_PRIVATE_KEY_PRODUCTION="<hex64>"``, a BIND TSIG ``secret "<base64>";``, an
  ``OpenVPN Static key V1`` block, a Cloudflare Tunnel token as a bare argument, an ECR login
  password (base64 JSON printed alone);
- prose (12): Greek, Hebrew, Vietnamese, Tagalog (``Ang password ... ay X``), Persian, Urdu,
  Finnish and Hungarian; English with no label word next to the value (``creds ... are ops / X``,
  ``use X to get in``, a token alone on the lines after "here's the token", a quoted diceware
  passphrase);
- chat, tables and splits (9): an IRC answer on the line after the question, a tracker comment's
  ``user / X``, org-mode, HTML, reStructuredText-grid and semicolon-CSV (German ``Passwort``)
  tables, a key given in two halves, a password in the body whose description only says "login
  for ...", an OpenVPN ``auth-user-pass`` file (the password alone on the line after the user);
- protocol transcripts and escaped text (5): FTP ``PASS`` in ``tcpdump -A``, SMTP ``AUTH PLAIN
  <base64>``, sshd's ``Invalid user <the password>`` (only the sentence before says so), a
  JSON-escaped ``\\"password\\":\\"...\\"`` inside a logfmt line, a notebook's JSON-escaped
  ``os.environ[\\"..._API_KEY\\"] = \\"<hex64>\\"``;
- games and streaming (2): a YouTube stream key in the ``rtmp://`` path, a Roblox
  ``.ROBLOSECURITY`` cookie (its own warning text says it logs in as you).
False alarms (4): a dotenvx ``.env`` whose values are ``encrypted:`` next to its
``DOTENV_PUBLIC_KEY`` (while the ``DOTENV_PRIVATE_KEY`` file was missed); a Django fixture's PBKDF2
hash under ``"password"``; MinIO's documented ``minioadmin`` default in a note that says so; an
App Store Connect ``--apiKey`` key *id* (10 characters; the ``.p8`` stays on disk). Not tuned on:
these figures are the blind estimate.
"""

from __future__ import annotations

import hashlib
import json
import runpy
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261209, "held9", "Dev notes")
r, words, item = _G.r, _G.words, _G.item
b64, wrap, b64url = _GEN["b64"], _GEN["wrap"], _GEN["b64url"]
ALNUM, LOWER, UP, HEX, B64, URL, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL", "PK"))
B32, B58, BECH32, D5 = _GEN["B32"], _GEN["B58"], _GEN["BECH32"], _GEN["D5"]
_rand_bytes, _uuid, _pw, _jwt = _G.rand_bytes, _G.uuid, _G.pw, _G.jwt
_block = _GEN["block"]
DIG = "0123456789"
HEXU = "0123456789ABCDEF"
LETTERS = "abcdefghijklmnopqrstuvwxyz"
SAFE = ALNUM + "-_."  # a password that survives URLs, XML and INI files unescaped


def _digits(n: int) -> str:
    return str(_G.rng.randrange(1, 10)) + r(n - 1, DIG)


def _upw(n: int = 16) -> str:
    return r(n, SAFE)


def _groups(n: int, size: int, alphabet: str, sep: str) -> str:
    return sep.join(r(size, alphabet) for _ in range(n))


def _phrase(n: int = 5, sep: str = "-") -> str:
    return sep.join(words(n))


def _b58(data: bytes) -> str:
    n = int.from_bytes(data, "big")
    out = ""
    while n:
        n, rem = divmod(n, 58)
        out = B58[rem] + out
    return "1" * (len(data) - len(data.lstrip(b"\x00"))) + out


def _b58check(payload: bytes) -> str:
    return _b58(payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4])


def _xkey(version: bytes, keydata: bytes) -> str:
    """A BIP-32 extended key: version, depth 0, no parent, child 0, chain code, key."""
    return _b58check(version + b"\x00" + b"\x00" * 4 + b"\x00" * 4 + _rand_bytes(32) + keydata)


def _pem(label: str, der: bytes) -> str:
    return _block(label, wrap(b64(der)))


def _rsa_der() -> bytes:
    return b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00" + _rand_bytes(1180)


def _ec_der() -> bytes:
    """A P-256 key in SEC1 DER: the real header bytes around random key and point."""
    return (b"\x30\x77\x02\x01\x01\x04\x20" + _rand_bytes(32)
            + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04" + _rand_bytes(64))


def _cert_der() -> bytes:
    return b"\x30\x82\x03\x0a\x30\x82\x01\xf2\xa0\x03\x02\x01\x02\x02\x14" + _rand_bytes(760)


def _entra() -> str:
    """An Entra ID client secret: three characters, a digit, ``Q~``, 34 more."""
    return r(3) + r(1, DIG) + "Q~" + r(34, URL + "~.")


def _hex_lines(nbytes: int, width: int = 64) -> str:
    return wrap(_rand_bytes(nbytes).hex(), width)


def _ints(n: int) -> str:
    return ", ".join(str(b) for b in _rand_bytes(n))


_JKS = b"\xfe\xed\xfe\xed\x00\x00\x00\x02"  # a Java KeyStore's magic and version
_EC_POINT = b"\x04"  # an uncompressed elliptic-curve point's first byte
_XPRV, _XPUB, _ZERO = bytes.fromhex("0488ade4"), bytes.fromhex("0488b21e"), b"\x00"
_SSH_ED = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 "  # an ssh-ed25519 public key blob's header


def forms() -> list[dict]:
    """Credentials in the shapes and places a developer really pastes them."""
    f = []

    def F(*a, **k):
        f.append(item(*a, **k))

    # --- AI tools and agent configurations
    F("agent settings gateway token", "ai", json.dumps({"env": {"ANTHROPIC_BASE_URL": "https://llm-gw.corp.internal",
      "ANTHROPIC_AUTH_TOKEN": r(48), "DISABLE_TELEMETRY": "1"}, "permissions": {"allow": ["Bash(npm test)"]}}, indent=2),
      "agent CLI settings.json on the build box")
    F("mcp server env key", "ai", json.dumps({"mcpServers": {"brave-search": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-brave-search"],
      "env": {"BRAVE_API_KEY": r(31)}}}}, indent=2), "MCP config that finally works")
    F("mcp server args connstr", "ai", json.dumps({"mcpServers": {"pg": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-postgres",
      f"postgresql://readonly:{_upw(18)}@analytics-db.corp.internal:5432/warehouse"]}}}, indent=2))
    F("coding cli auth json", "ai", json.dumps({"OPENAI_API_KEY": None, "tokens": {"id_token": _jwt({"sub": "auth0|" + r(24), "email": "dev@corp.com"}, "RS256", 256),
      "access_token": _jwt({"scope": "openid profile", "exp": 1767225600}, "RS256", 256), "refresh_token": "rt_" + r(60, URL), "account_id": _uuid()},
      "last_refresh": "2026-11-30T08:12:44Z"}, indent=2), "copied ~/.codex/auth.json to the new laptop like this")
    F("continue config groq", "ai", f"models:\n  - name: llama fast\n    provider: groq\n    model: llama-3.3-70b-versatile\n    apiKey: {'gs' + 'k_'}{r(52)}\n")
    F("aider openrouter", "ai", f"# .aider.conf.yml\nmodel: openrouter/anthropic/claude-sonnet-4\nopenai-api-base: https://openrouter.ai/api/v1\nopenai-api-key: {'sk-' + 'or-v1-'}{r(64, HEX)}\nauto-commits: false\n")
    F("langfuse key pair", "ai", f"LANGFUSE_PUBLIC_KEY={'pk-' + 'lf-'}{_uuid()}\nLANGFUSE_SECRET_KEY={'sk-' + 'lf-'}{_uuid()}\nLANGFUSE_HOST=https://cloud.langfuse.com")
    F("pinecone client", "ai", f"from pinecone import Pinecone\n\npc = Pinecone(api_key=\"{'pc' + 'sk_'}{r(6)}_{r(64, URL)}\")\nindex = pc.Index(\"docs-v3\")")
    F("elevenlabs curl", "header", f"curl -X POST https://api.elevenlabs.io/v1/text-to-speech/{r(20)} \\\n  -H 'xi-api-key: {'sk' + '_'}{r(48, HEX)}' \\\n  -H 'Content-Type: application/json' -d @line.json -o out.mp3")
    F("gemini server env", "ai", f"# backend only, never ship to the client bundle\nGEMINI_API_KEY={'AI' + 'za'}{r(35, URL)}\nGEMINI_MODEL=gemini-2.5-flash")
    F("azure openai headers", "ai", f"headers = {{\n    \"api-key\": \"{r(32, HEX)}\",\n    \"Content-Type\": \"application/json\",\n}}\nurl = f\"https://corp-oai.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21\"")
    F("weaviate positional", "ai", f"client = weaviate.connect_to_weaviate_cloud(\n    cluster_url=\"{r(20, LOWER)}.c0.europe-west3.gcp.weaviate.cloud\",\n    auth_credentials=Auth.api_key(\"{r(40)}\"),\n)")
    F("notebook json environ", "ai", json.dumps({"cell_type": "code", "execution_count": 3, "metadata": {}, "outputs": [],
      "source": ["import os\n", f"os.environ[\"TOGETHER_API_KEY\"] = \"{r(64, HEX)}\"\n", "llm = Together(model=\"meta-llama/Llama-3.3-70B\")"]}, indent=1),
      "cell from the eval notebook")

    # --- clouds and platforms
    F("railway token in workflow", "ci", f"jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      RAILWAY_TOKEN: {_uuid()}\n    steps:\n      - uses: actions/checkout@v4\n      - run: npx @railway/cli up --service api")
    F("oci config pass_phrase", "config", f"[DEFAULT]\nuser=ocid1.user.oc1..{r(60, LOWER)}\nfingerprint={':'.join(r(2, HEX) for _ in range(16))}\nkey_file=~/.oci/oci_api_key.pem\npass_phrase={_upw(20)}\ntenancy=ocid1.tenancy.oc1..{r(60, LOWER)}\nregion=eu-frankfurt-1")
    F("tencent credential positional", "code", f"from tencentcloud.common import credential\ncred = credential.Credential(\"{'AK' + 'ID'}{r(32)}\", \"{r(32)}\")\nclient = cvm_client.CvmClient(cred, \"ap-guangzhou\")")
    F("b2 authorize positional", "cli", f"b2 account authorize {r(25, HEX)} {'K0' + '05'}{r(27, ALNUM + '+/')}")
    F("supabase service role", "env", "NEXT_PUBLIC_SUPABASE_URL=https://" + r(20, LOWER) + ".supabase.co\nSUPABASE_SERVICE_ROLE_KEY="
      + _jwt({"iss": "supabase", "ref": r(20, LOWER), "role": "service_role", "iat": 1718000000, "exp": 2033576000}))
    F("neon api key in ci", "ci", f"      - name: branch per PR\n        run: neonctl branches create --project-id {r(8, LOWER)}-{r(6, LOWER)} --name pr-${{{{ github.event.number }}}} --api-key {'na' + 'pi_'}{r(64, LOWER)}")
    F("turso url authtoken", "url", "libsql://app-db-" + r(8, LOWER) + ".aws-eu-west-1.turso.io?authToken="
      + _jwt({"a": "rw", "iat": 1733000000, "id": _uuid()}, "EdDSA", 64))
    F("convex deploy key", "env", f"CONVEX_DEPLOY_KEY=prod:{r(8, LETTERS)}-{r(6, LETTERS)}-{_digits(3)}|{r(80, B64)}")
    F("hasura admin secret header", "devtools", json.dumps({"x-hasura-admin-secret": _upw(24), "content-type": "application/json"}, indent=2),
      "request headers for the GraphiQL tab")
    F("proxmox api token header", "header", f"curl -k -H 'Authorization: PVEAPIToken=root@pam!terraform={_uuid()}' https://pve01.lab:8006/api2/json/nodes")
    F("govc url with password", "url", f"export GOVC_URL='https://administrator@vsphere.local:{_upw(14)}@vc01.lab.local/sdk'\nexport GOVC_INSECURE=1\ngovc ls /DC1/vm")
    F("vault init output", "log", "\n".join(f"Unseal Key {i}: {b64(_rand_bytes(33))}" for i in range(1, 6))
      + f"\n\nInitial Root Token: {'hv' + 's.'}{r(24)}\n\nVault initialized with 5 key shares and a key threshold of 3.")
    F("consul gossip key", "keymat", f"datacenter = \"fra1\"\ndata_dir   = \"/opt/consul\"\nencrypt    = \"{b64(_rand_bytes(32))}\"\nretry_join = [\"10.0.1.10\", \"10.0.1.11\"]")
    F("cloudflared service install", "cli", "sudo cloudflared service install "
      + b64(json.dumps({"a": r(32, HEX), "t": _uuid(), "s": b64(_rand_bytes(32))}).encode()))

    # --- payments and trading
    F("ccxt binance", "code", f"exchange = ccxt.binance({{\n    \"apiKey\": \"{r(64)}\",\n    \"secret\": \"{r(64)}\",\n    \"options\": {{\"defaultType\": \"spot\"}},\n}})")
    F("coinbase cdp key json", "keymat", json.dumps({"name": f"organizations/{_uuid()}/apiKeys/{_uuid()}",
      "privateKey": _pem("EC " + PK, _ec_der()) + "\n"}, indent=2), "cdp_api_key.json contents")
    F("braintree positional", "code", f"BraintreeGateway gateway = new BraintreeGateway(\n    Environment.PRODUCTION,\n    \"{r(16, LOWER)}\",\n    \"{r(16, LOWER)}\",\n    \"{r(32, HEX)}\"\n);")

    # --- SaaS, observability and messaging
    F("postmark server token", "header", f"curl \"https://api.postmarkapp.com/email\" -X POST \\\n  -H \"Accept: application/json\" \\\n  -H \"X-Postmark-Server-Token: {_uuid()}\" \\\n  -d @mail.json")
    F("honeycomb otlp headers", "env", f"OTEL_EXPORTER_OTLP_ENDPOINT=https://api.honeycomb.io\nOTEL_EXPORTER_OTLP_HEADERS=\"x-honeycomb-team={r(22)}\"\nOTEL_SERVICE_NAME=checkout")
    F("alloy basic auth block", "config", f"prometheus.remote_write \"grafana_cloud\" {{\n  endpoint {{\n    url = \"https://prometheus-prod-24-prod-eu-west-2.grafana.net/api/prom/push\"\n    basic_auth {{\n      username = \"{_digits(7)}\"\n      password = \"{'gl' + 'c_'}{r(120, B64)}\"\n    }}\n  }}\n}}")
    F("zoom basic in echo", "cli", f"curl -X POST 'https://zoom.us/oauth/token?grant_type=account_credentials&account_id={r(22, URL)}' \\\n  -H \"Authorization: Basic $(printf '%s' '{r(22)}:{r(32)}' | base64)\"")
    F("google oauth client json", "config", json.dumps({"installed": {"client_id": f"{_digits(12)}-{r(32, LOWER)}.apps.googleusercontent.com",
      "project_id": "ops-tools-" + _digits(6), "auth_uri": "https://accounts.google.com/o/oauth2/auth",
      "client_secret": "GOC" + "SPX-" + r(28, URL), "redirect_uris": ["http://localhost"]}}, indent=2), "client_secret.json for the sheets script")
    F("entra client secret env", "env", f"AZURE_TENANT_ID={_uuid()}\nAZURE_CLIENT_ID={_uuid()}\nAZURE_CLIENT_SECRET={_entra()}")
    F("azure devops pat remote", "url", f"git remote set-url origin https://build:{r(52, 'abcdefghijklmnopqrstuvwxyz234567')}@dev.azure.com/corp/Platform/_git/infra")
    F("azure sas url", "url", f"https://corpbackups.blob.core.windows.net/db-dumps?sv=2022-11-02&ss=b&srt=sco&sp=rwdlacupiytfx&se=2027-01-31T17:00:00Z&st=2026-12-01T09:00:00Z&spr=https&sig={r(43, ALNUM).replace('/', '%2F')}%3D")
    F("aws presigned with token", "url", f"https://corp-reports.s3.eu-west-1.amazonaws.com/q4/board.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={'AS' + 'IA'}{r(16, UP)}%2F20261203%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20261203T091500Z&X-Amz-Expires=604800&X-Amz-Security-Token={r(400, ALNUM)}&X-Amz-SignedHeaders=host&X-Amz-Signature={r(64, HEX)}",
      "link for the board deck (valid a week)")
    F("twilio api key positional", "code", f"client = Client(\"{'S' + 'K'}{r(32, HEX)}\", \"{r(32)}\", \"{'A' + 'C'}{r(32, HEX)}\")")

    # --- home lab and IoT
    F("home assistant bearer", "iot", "curl -s -H \"Authorization: Bearer " + _jwt({"iss": r(32, HEX), "iat": 1733000000, "exp": 2048360000})
      + "\" -H \"Content-Type: application/json\" http://homeassistant.local:8123/api/states/sensor.boiler")
    F("esphome keys", "iot", f"api:\n  encryption:\n    key: \"{b64(_rand_bytes(32))}\"\n\nota:\n  - platform: esphome\n    password: \"{r(32, HEX)}\"")
    F("zigbee network key", "iot", f"# zigbee2mqtt configuration.yaml\nadvanced:\n  pan_id: {_G.rng.randrange(1000, 65000)}\n  ext_pan_id: [{_ints(8)}]\n  network_key: [{_ints(16)}]\n  channel: 15")
    F("tasmota backlog", "iot", f"Backlog MqttHost 10.0.0.5; MqttUser plug7; MqttPassword {_upw(16)}; WebPassword {_upw(12)}")
    F("wpa supplicant psk", "iot", f"network={{\n    ssid=\"Workshop\"\n    psk=\"{_upw(18)}\"\n    key_mgmt=WPA-PSK\n}}")
    F("netsh key clear", "log", f"C:\\> netsh wlan show profile name=\"Office-5G\" key=clear\n...\nSecurity settings\n-----------------\n    Authentication         : WPA2-Personal\n    Cipher                 : CCMP\n    Security key           : Present\n    Key Content            : {_upw(14)}")
    F("nmcli connect password", "cli", f"nmcli dev wifi connect \"Guest-Lab\" password \"{_upw(14)}\" ifname wlp2s0")
    F("frigate rtsp", "iot", f"cameras:\n  driveway:\n    ffmpeg:\n      inputs:\n        - path: rtsp://admin:{_upw(12)}@192.168.1.64:554/Streaming/Channels/101\n          roles: [detect, record]")
    F("jellyfin api key url", "url", f"curl 'http://media.lan:8096/Items?Recursive=true&IncludeItemTypes=Movie&api_key={r(32, HEX)}'")

    # --- forges, CI and package registries
    F("gitcookies line", "config", f"# ~/.gitcookies\n.googlesource.com\tTRUE\t/\tTRUE\t2147483647\to\tgit-dev.corp.com=1//0{r(96, URL)}")
    F("arcrc token", "config", json.dumps({"hosts": {"https://phab.corp.dev/api/": {"token": "api-" + r(28, LOWER)}}}, indent=2))
    F("runner registration", "ci", f"./config.sh --url https://github.com/corp --token {'A' + r(28, UP)} --labels self-hosted,gpu --unattended")
    F("browserstack hub url", "url", f"driver = webdriver.Remote(\n    command_executor=\"https://ci_{r(10, LOWER)}:{r(20)}@hub-cloud.browserstack.com/wd/hub\",\n    options=opts,\n)")
    F("gitlab ci variables", "ci", f"variables:\n  DOCKER_DRIVER: overlay2\n  DEPLOY_USER: deployer\n  DEPLOY_PASSWORD: \"{_upw(20)}\"\n\ndeploy:\n  script: ./deploy.sh")
    F("jenkins initial admin", "log", f"*************************************************************\n\nJenkins initial setup is required. An admin user has been created and a password generated.\nPlease use the following password to proceed to installation:\n\n{r(32, HEX)}\n\nThis may also be found at: /var/jenkins_home/secrets/initialAdminPassword\n\n*************************************************************")
    F("composer auth json", "registry", json.dumps({"http-basic": {"repo.packagist.com": {"username": "token", "password": r(64, HEX)}},
      "github-oauth": {"github.com": "gh" + "o_" + r(36)}}, indent=4))
    F("jfrog reference token", "cli", "jf c add corp --url https://corp.jfrog.io --access-token "
      + b64("reftkn:01:" + _digits(10) + ":" + r(32)).rstrip("=") + " --interactive=false")
    F("ecr login password", "log", "$ aws ecr get-login-password --region eu-west-1\n"
      + b64(json.dumps({"payload": b64(_rand_bytes(600)), "datakey": b64(_rand_bytes(180)), "version": "2", "type": "DATA_KEY", "expiration": 1733300000}).encode()))
    F("pnpm npmrc password", "registry", f"@corp:registry=https://npm.corp.dev/\n//npm.corp.dev/:username=ci\n//npm.corp.dev/:_password={b64(_upw(20))}\n//npm.corp.dev/:always-auth=true")
    F("deno auth tokens", "env", f"DENO_AUTH_TOKENS={r(40)}@esm.corp.dev;{r(32)}@raw.githubusercontent.com")
    F("poetry http basic", "cli", f"poetry config http-basic.corp deployer {_upw(20)}")
    F("requirements private", "registry", f"--extra-index-url https://deploy:{_upw(18)}@pypi.corp.dev/simple/\nrequests==2.32.3\ncorp-auth @ git+https://{r(40, HEX)}@github.com/corp/corp-auth.git@v1.8.0")
    F("package json git token", "registry", json.dumps({"dependencies": {"react": "^19.0.0", "@corp/ui": f"git+https://x-oauth-basic:{r(40, HEX)}@github.com/corp/ui.git#v2.3.1"}}, indent=2))
    F("gradle signing groovy", "mobile", f"android {{\n    signingConfigs {{\n        release {{\n            storeFile file('release.jks')\n            storePassword '{_upw(16)}'\n            keyAlias 'upload'\n            keyPassword '{_upw(16)}'\n        }}\n    }}\n}}")
    F("android keystore base64", "mobile", f"GitHub secrets for the release job:\nANDROID_KEYSTORE_BASE64={b64(_JKS + _rand_bytes(900))}\nANDROID_KEYSTORE_PASSWORD={_upw(16)}\nANDROID_KEY_ALIAS=upload")
    F("altool app specific", "mobile", f"xcrun altool --upload-app -f build/App.ipa -t ios -u releases@corp.com -p {_groups(4, 4, LETTERS, '-')}")

    # --- databases
    F("sqlplus user slash pass", "cli", f"sqlplus system/{_upw(14)}@//db01.corp:1521/ORCLPDB1 @migrate.sql")
    F("sqlcmd dash P", "cli", f"sqlcmd -S tcp:sql01.corp,1433 -U sa -P '{_upw(16)}' -Q \"BACKUP DATABASE App TO DISK='/var/opt/mssql/app.bak'\"")
    F("duckdb create secret", "sql", f"CREATE SECRET s3_prod (\n    TYPE S3,\n    KEY_ID '{'AK' + 'IA'}{r(16, UP)}',\n    SECRET '{r(40, ALNUM + '+/')}',\n    REGION 'eu-west-1'\n);")
    F("databricks sqlalchemy", "connstr", f"engine = create_engine(\"databricks://token:{'da' + 'pi'}{r(32, HEX)}@adb-{_digits(16)}.7.azuredatabricks.net?http_path=/sql/1.0/warehouses/{r(16, HEX)}&catalog=main\")")
    F("kafka jaas", "config", f"bootstrap.servers=pkc-{r(5, LOWER)}.eu-west-1.aws.confluent.cloud:9092\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"{r(16, UP)}\" password=\"{r(64, B64)}\";")
    F("rabbitmqctl add user", "cli", f"rabbitmqctl add_user deploy {_upw(18)}\nrabbitmqctl set_permissions -p / deploy \".*\" \".*\" \".*\"")
    F("pgbouncer userlist plain", "config", f"# /etc/pgbouncer/userlist.txt\n\"app\" \"{_upw(20)}\"\n\"reporting\" \"{_upw(20)}\"")
    F("airflow conn add", "cli", f"airflow connections add s3_raw --conn-type aws --conn-login {'AK' + 'IA'}{r(16, UP)} --conn-password '{r(40, ALNUM + '+/')}'")
    F("tomcat context resource", "config", f"<Resource name=\"jdbc/app\" auth=\"Container\" type=\"javax.sql.DataSource\"\n          username=\"app\" password=\"{_upw(18)}\"\n          driverClassName=\"org.postgresql.Driver\" url=\"jdbc:postgresql://db.corp:5432/app\"/>")
    F("sequelize positional", "code", f"const sequelize = new Sequelize('shop', 'shop_app', '{_upw(16)}', {{\n  host: 'mysql.corp.internal',\n  dialect: 'mysql',\n}});")
    F("firebase legacy auth", "url", f"curl 'https://corp-app-default-rtdb.europe-west1.firebasedatabase.app/users.json?auth={r(40)}'")
    F("password query param", "connstr", f"postgresql://db.corp.internal:5432/app?user=app&password={_upw(18)}&sslmode=require")
    F("psycopg keyword string", "code", f"conn = psycopg.connect(\"host=db.corp.internal dbname=app user=app password={_upw(18)} sslmode=require\")")
    F("mongosh create user", "code", f"db.createUser({{\n  user: \"reporting\",\n  pwd: \"{_upw(18)}\",\n  roles: [{{ role: \"read\", db: \"shop\" }}]\n}})")
    F("postgres log alter role", "log", f"2026-12-02 10:14:33.120 UTC [8812] app@app LOG:  statement: ALTER ROLE reporting WITH LOGIN PASSWORD '{_upw(18)}';")

    # --- code in less-common languages and build files
    F("dart dio header", "code", f"final dio = Dio(BaseOptions(\n  baseUrl: 'https://api.corp.dev',\n  headers: {{'Authorization': 'Bearer {r(40)}'}},\n));")
    F("haskell basic auth", "code", f"let req' = applyBasicAuth \"deployer\" \"{_upw(16)}\" req\nresp <- httpLbs req' manager")
    F("zig const token", "code", f"const api_token = \"{r(40)}\";\nvar headers = [_]std.http.Header{{.{{ .name = \"authorization\", .value = \"Bearer \" ++ api_token }}}};")
    F("matlab weboptions", "code", f"opts = weboptions('Username', 'svc_ml', 'Password', '{_upw(14)}', 'Timeout', 30);\ndata = webread('https://data.corp.dev/api/v1/export', opts);")
    F("cobol value clause", "code", f"       01  WS-DB-USER        PIC X(8)  VALUE 'BATCH01'.\n       01  WS-DB-PASSWORD    PIC X(16) VALUE '{r(12, UP + DIG)}'.")
    F("erlang sys config", "code", f"[{{shop, [\n    {{db_host, \"db.corp.internal\"}},\n    {{db_user, \"shop\"}},\n    {{db_password, \"{_upw(18)}\"}}\n]}}].")
    F("vba request header", "code", f"Set http = CreateObject(\"MSXML2.XMLHTTP\")\nhttp.Open \"GET\", \"https://api.corp.dev/v1/rates\", False\nhttp.setRequestHeader \"Authorization\", \"Bearer {r(40)}\"\nhttp.send")
    F("abap authenticate", "code", f"lo_http_client->authenticate( username = 'RFC_BATCH' password = '{_upw(14)}' ).")
    F("fish set gx", "shell", f"set -gx OPENWEATHER_API_KEY {r(32, HEX)}\nset -gx EDITOR nvim")
    F("powershell securestring", "shell", f"$pw = ConvertTo-SecureString '{_upw(16)}' -AsPlainText -Force\n$cred = New-Object System.Management.Automation.PSCredential('CORP\\svc_build', $pw)")
    F("bazelrc remote header", "config", f"build:ci --remote_cache=grpcs://remote.buildbuddy.io\nbuild:ci --remote_header=x-buildbuddy-api-key={r(20)}")
    F("ts nullish fallback", "code", f"const stripeKey = process.env.STRIPE_SECRET_KEY ?? \"{'sk_' + 'live_'}{r(99)}\";")
    F("python getenv default", "code", f"WEBHOOK_SECRET = os.getenv(\"WEBHOOK_SECRET\", \"{r(40)}\")")
    F("spring placeholder default", "config", f"spring:\n  datasource:\n    url: jdbc:postgresql://db.corp:5432/app\n    username: app\n    password: ${{DB_PASSWORD:{_upw(18)}}}")
    F("rust struct literal", "code", f"let cfg = Config {{\n    endpoint: \"https://api.corp.dev\".into(),\n    api_key: \"{r(40)}\".into(),\n    ..Default::default()\n}};")
    F("systemd environment", "config", f"[Service]\nExecStart=/usr/local/bin/notifier\nEnvironment=\"SMTP_USER=alerts@corp.com\"\nEnvironment=\"SMTP_PASS={_upw(18)}\"")
    F("crontab bearer", "shell", f"*/10 * * * * curl -fsS -H \"Authorization: Bearer {r(40)}\" https://status.corp.dev/api/heartbeat > /dev/null")
    F("dockerfile npmrc echo", "code", f"FROM node:22-alpine\nWORKDIR /app\nRUN echo \"//registry.npmjs.org/:_authToken={'np' + 'm_'}{r(36)}\" > .npmrc && npm ci && rm .npmrc")
    F("compose list environment", "config", f"services:\n  minio:\n    image: minio/minio\n    environment:\n      - MINIO_ROOT_USER=admin\n      - MINIO_ROOT_PASSWORD={_upw(24)}\n    command: server /data")

    # --- framework and self-hosted app secrets
    F("nextcloud config php", "code", f"$CONFIG = array (\n  'dbtype' => 'pgsql',\n  'dbuser' => 'nextcloud',\n  'dbpassword' => '{_upw(20)}',\n  'secret' => '{r(48, B64)}',\n  'passwordsalt' => '{r(30, B64)}',\n);")
    F("drupal settings", "code", f"$databases['default']['default'] = [\n  'database' => 'drupal',\n  'username' => 'drupal',\n  'password' => '{_upw(18)}',\n  'host' => 'db',\n];\n$settings['hash_salt'] = '{r(55, URL)}';")
    F("laravel app key", "env", f"APP_NAME=Shop\nAPP_ENV=production\nAPP_KEY=base64:{b64(_rand_bytes(32))}\nAPP_DEBUG=false")
    F("django insecure key", "code", f"# settings/prod.py (copied from base, TODO move to env)\nSECRET_KEY = 'django-insecure-{r(50, LOWER + '!@#$%^&*(-_=+)')}'\nDEBUG = False")
    F("flask bytes key", "code", "app = Flask(__name__)\napp.secret_key = b'" + "".join(f"\\x{b:02x}" for b in _rand_bytes(24)) + "'")
    F("rails master key", "log", f"$ cat config/master.key\n{r(32, HEX)}")
    F("mastodon env production", "env", f"SECRET_KEY_BASE={r(128, HEX)}\nOTP_SECRET={r(128, HEX)}\nVAPID_PRIVATE_KEY={b64url(_rand_bytes(32))}\nVAPID_PUBLIC_KEY={b64url(_EC_POINT + _rand_bytes(64))}")
    F("gitea app ini", "config", "[security]\nINSTALL_LOCK = true\nSECRET_KEY = " + r(64) + "\nINTERNAL_TOKEN = " + _jwt({"nbf": 1733000000}))

    # --- network and Windows administration
    F("haproxy insecure password", "net", f"userlist stats_users\n    user ops insecure-password {_upw(16)}\n\nlisten stats\n    bind :8404\n    stats auth ops")
    F("keepalived auth pass", "net", f"vrrp_instance VI_1 {{\n    state MASTER\n    virtual_router_id 51\n    authentication {{\n        auth_type PASS\n        auth_pass {r(8)}\n    }}\n}}")
    F("freeradius client secret", "net", f"client ap-floor2 {{\n    ipaddr = 10.20.0.12\n    secret = {_upw(18)}\n    shortname = ap2\n}}")
    F("ipsec secrets psk", "net", f"# /etc/ipsec.secrets\n203.0.113.10 198.51.100.20 : PSK \"{_upw(28)}\"")
    F("openvpn auth user pass file", "net", f"contents of /etc/openvpn/client/creds.txt (auth-user-pass):\nsvc-vpn-ci\n{_upw(18)}")
    F("ldapsearch bind password", "cli", f"ldapsearch -x -H ldaps://ldap.corp.internal -D \"cn=admin,dc=corp,dc=internal\" -w '{_upw(16)}' -b \"ou=people,dc=corp,dc=internal\" uid=jdoe")
    F("smbclient user percent", "cli", f"smbclient //nas01/backups -U backup%{_upw(14)} -c 'put db.tar.gz'")
    F("net use positional", "cli", f"net use Z: \\\\fs01\\projects {_upw(14)} /user:CORP\\svc_build /persistent:no")
    F("sshpass p", "cli", f"sshpass -p '{_upw(14)}' ssh -o StrictHostKeyChecking=no deploy@10.0.0.7 'systemctl restart app'")
    F("kubectl from literal", "cli", f"kubectl -n shop create secret generic db-creds --from-literal=username=shop --from-literal=password='{_upw(20)}'")
    F("az sp create output", "log", json.dumps({"appId": _uuid(), "displayName": "gh-actions-deploy", "password": _entra(), "tenant": _uuid()}, indent=2))
    F("restic diceware", "shell", f"export RESTIC_REPOSITORY=s3:s3.eu-central-1.wasabisys.com/corp-restic\nexport RESTIC_PASSWORD='{_phrase(6)}'\nrestic backup /srv")
    F("streamlit secrets toml", "config", f"[connections.snowflake]\naccount = \"xy{_digits(5)}\"\nuser = \"APP\"\npassword = \"{_upw(18)}\"\n\nopenai_key = \"{r(48)}\"")
    F("jupyter log url", "log", f"[I 2026-12-02 09:41:07.102 ServerApp] Jupyter Server 2.14.2 is running at:\n[I 2026-12-02 09:41:07.102 ServerApp] http://gpu-04:8888/lab?token={r(48, HEX)}")

    # --- devtools and HTTP clients
    F("jmeter header manager", "devtools", f"<HeaderManager guiclass=\"HeaderPanel\" testclass=\"HeaderManager\" testname=\"auth\">\n  <collectionProp name=\"HeaderManager.headers\">\n    <elementProp name=\"\" elementType=\"Header\">\n      <stringProp name=\"Header.name\">Authorization</stringProp>\n      <stringProp name=\"Header.value\">Bearer {r(40)}</stringProp>\n    </elementProp>\n  </collectionProp>\n</HeaderManager>")
    F("ws security password text", "devtools", f"<wsse:UsernameToken>\n  <wsse:Username>erp_integration</wsse:Username>\n  <wsse:Password Type=\"http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText\">{_upw(16)}</wsse:Password>\n</wsse:UsernameToken>")
    F("client credentials body", "devtools", f"POST /oauth2/token HTTP/1.1\nHost: login.corp.dev\nContent-Type: application/x-www-form-urlencoded\n\ngrant_type=client_credentials&client_id={_uuid()}&client_secret={r(40, URL)}&scope=orders.read")
    F("token response json", "devtools", json.dumps({"access_token": r(64, URL), "token_type": "Bearer", "expires_in": 3600, "refresh_token": r(64, URL), "scope": "offline_access orders"}, indent=2),
      "response from the token endpoint, for the postman env")
    F("localstorage dump", "devtools", "> JSON.stringify(localStorage)\n'" + json.dumps({"theme": "dark", "auth": json.dumps({"accessToken": _jwt({"sub": _uuid(), "exp": 1767225600}), "refreshToken": r(64, URL)})}) + "'")
    F("document cookie rails", "devtools", f"> document.cookie\n'_ga=GA1.1.{_digits(9)}.{_digits(10)}; remember_user_token={b64(json.dumps([[_digits(5)], r(22)]))}--{r(40, HEX)}; theme=dark'")
    F("grpcurl auth", "cli", f"grpcurl -H 'authorization: Bearer {r(40)}' -d '{{\"id\": 42}}' api.corp.dev:443 orders.v1.Orders/Get")
    F("graphql headers pane", "devtools", json.dumps({"Authorization": "Bearer " + r(40)}, indent=2), "HTTP HEADERS pane in the GraphQL playground")

    # --- webhook and deploy-hook URLs
    F("netlify build hook", "webhook", f"curl -X POST -d {{}} https://api.netlify.com/build_hooks/{r(24, HEX)}")
    F("vercel deploy hook", "webhook", f"https://api.vercel.com/v1/integrations/deploy/{'pr' + 'j_'}{r(28)}/{r(10)}")
    F("render deploy hook", "webhook", f"DEPLOY_HOOK=https://api.render.com/deploy/srv-{r(20, LOWER)}?key={r(11, URL)}")
    F("zapier catch hook", "webhook", f"POST the form data to https://hooks.zapier.com/hooks/catch/{_digits(8)}/{r(7, LOWER)}/")
    F("ifttt maker key", "webhook", f"curl -X POST https://maker.ifttt.com/trigger/garage_open/with/key/{r(22, URL)}")
    F("dingtalk robot", "webhook", f"webhook: https://oapi.dingtalk.com/robot/send?access_token={r(64, HEX)}\nsecret: SEC{r(64, HEX)}")
    F("feishu hook", "webhook", f"FEISHU_WEBHOOK=https://open.feishu.cn/open-apis/bot/v2/hook/{_uuid()}\nFEISHU_SIGN_SECRET={r(22)}")
    F("rocketchat incoming", "webhook", f"https://chat.corp.dev/hooks/{r(17)}/{r(48)}")
    F("apprise urls", "webhook", f"# apprise.yml\nurls:\n  - tgram://{_digits(10)}:{r(35, URL)}/{_digits(9)}\n  - pover://u{r(29, LOWER)}@a{r(29, LOWER)}")
    F("ntfy token", "header", f"curl -H \"Authorization: Bearer {'t' + 'k_'}{r(29, LOWER)}\" -d \"nightly backup done\" https://ntfy.corp.dev/backups")

    # --- key material
    F("solana keypair array", "keymat", f"$ cat ~/.config/solana/id.json\n[{_ints(64)}]")
    F("xprv export", "keymat", f"hot wallet master key (electrum export):\n{_xkey(_XPRV, _ZERO + _rand_bytes(32))}")
    F("lnd macaroon header", "keymat", f"curl --cacert tls.cert -H \"Grpc-Metadata-macaroon: 0201036c6e6402f801030a10{r(440, HEX)}\" https://node.home.example:8080/v1/balance/channels")
    F("encrypted pkcs8 with pass", "keymat", _pem("ENCRYPTED " + PK, b"\x30\x82\x05\x0e\x30\x40\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x05\x0d" + _rand_bytes(1200))
      + f"\n\npassphrase: {_upw(20)}")
    F("pem bundle key second", "keymat", _pem("CERTIFICATE", _cert_der()) + "\n" + _pem("RSA " + PK, _rsa_der()), "fullchain+key.pem for the nginx box")
    F("tink keyset cleartext", "keymat", json.dumps({"primaryKeyId": _G.rng.randrange(10**8, 10**9), "key": [{"keyData": {"typeUrl": "type.googleapis.com/google.crypto.tink.AesGcmKey",
      "value": b64(b"\x1a\x20" + _rand_bytes(32)), "keyMaterialType": "SYMMETRIC"}, "status": "ENABLED", "keyId": _G.rng.randrange(10**8, 10**9), "outputPrefixType": "TINK"}]}, indent=2))
    F("fernet key", "keymat", f"from cryptography.fernet import Fernet\nf = Fernet(b'{b64url(_rand_bytes(32))}=')")
    F("otpauth seed", "keymat", f"otpauth://totp/Corp%20VPN:jdoe?secret={r(32, B32)}&issuer=Corp%20VPN&algorithm=SHA1&digits=6&period=30")
    F("eth keystore with password", "keymat", json.dumps({"address": r(40, HEX), "crypto": {"cipher": "aes-128-ctr", "ciphertext": r(64, HEX), "cipherparams": {"iv": r(32, HEX)},
      "kdf": "scrypt", "kdfparams": {"dklen": 32, "n": 262144, "p": 1, "r": 8, "salt": r(64, HEX)}, "mac": r(64, HEX)}, "id": _uuid(), "version": 3})
      + f"\n\nkeystore password: {_upw(16)}", "deployer keystore + password")
    F("dotenvx private key", "keymat", f"#/------------------!DOTENV_PRIVATE_KEYS!-------------------/\n#/ private decryption keys. DO NOT commit to source control /\n#/----------------------------------------------------------/\n\n# .env.production\nDOTENV_PRIVATE_KEY_PRODUCTION=\"{r(64, HEX)}\"")
    F("libp2p identity", "keymat", json.dumps({"Identity": {"PeerID": "12D3KooW" + r(44, B58), "PrivKey": b64(b"\x08\x01\x12\x40" + _rand_bytes(64))}}, indent=2), "kubo config Identity")
    F("dnssec private", "keymat", f"Private-key-format: v1.3\nAlgorithm: 13 (ECDSAP256SHA256)\nPrivateKey: {b64(_rand_bytes(32))}\nCreated: 20261201000000\nPublish: 20261201000000\nActivate: 20261201000000")
    F("tsig key", "keymat", f"key \"xfer-secondary\" {{\n    algorithm hmac-sha256;\n    secret \"{b64(_rand_bytes(32))}\";\n}};")
    F("k8s encryption config", "keymat", f"apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n      - aescbc:\n          keys:\n            - name: key1\n              secret: {b64(_rand_bytes(32))}\n      - identity: {{}}")
    F("openvpn static key", "keymat", _block("OpenVPN Static " + "key V1", _hex_lines(256, 32)), "ta.key for the tls-auth line")
    F("nebula host key", "keymat", _block("NEBULA X25519 " + PK, b64(_rand_bytes(32))), "host.key for lighthouse-2")

    # --- prose in many languages, and English without a label next to the value
    F("prose french", "prose", f"Pour le routeur du bureau : identifiant admin, le mot de passe est {_upw(12)} (changé en novembre).")
    F("prose french low entropy", "prose", "Mot de passe du wifi invités : Soleil2025! -- à donner aux visiteurs seulement.")
    F("prose italian", "prose", f"Accesso al NAS: utente backup, la password è {_upw(14)}")
    F("prose dutch", "prose", f"Het wachtwoord voor de staging-database is {_upw(14)}; gebruiker is app_rw.")
    F("prose polish", "prose", f"Hasło do panelu hostingu: {_upw(14)} (login: firma_admin)")
    F("prose ukrainian", "prose", f"Пароль від адмінки сайту: {_upw(14)}, логін — editor.")
    F("prose greek", "prose", f"Ο κωδικός πρόσβασης για τον server είναι {_upw(14)}")
    F("prose hebrew", "prose", f"הסיסמה לשרת הבדיקות היא {_upw(14)} (משתמש: qa)")
    F("prose hindi", "prose", f"सर्वर का पासवर्ड {_upw(14)} है, यूज़रनेम deploy है।")
    F("prose vietnamese", "prose", f"Mật khẩu tài khoản quản trị là {_upw(14)}, nhớ đổi sau khi bàn giao.")
    F("prose tagalog", "prose", f"Ang password ng admin sa staging ay {_upw(14)}")
    F("prose persian", "prose", f"رمز عبور پنل مدیریت: {_upw(14)}")
    F("prose urdu", "prose", f"سرور کا پاس ورڈ {_upw(14)} ہے")
    F("prose finnish", "prose", f"Testipalvelimen salasana on {_upw(14)} ja käyttäjä on deploy.")
    F("prose hungarian", "prose", f"A teszt adatbázis jelszava: {_upw(14)}")
    F("prose hinglish", "prose", f"bhai prod db ka password {_upw(14)} hai, kisi ko mat batana")
    F("prose creds slash", "prose", f"creds for the staging box are ops / {_upw(14)}")
    F("prose use to get in", "prose", f"Shared login for the vendor portal: jdoe@corp.com, use {_upw(14)} to get in.")
    F("prose token below", "prose", f"Here's the token for the nightly export, don't lose it:\n\n{r(40)}\n\nIt expires in March.")
    F("prose diceware password", "prose", f"The backup drive's passphrase is \"{_phrase(5, ' ')}\" (all lowercase, spaces included).")

    # --- chat and tickets
    F("irc log", "chat", f"[09:14] <mkl> anyone have the staging db pass?\n[09:15] <jdoe> mkl: {_upw(14)}\n[09:15] <mkl> thx")
    F("element copy token", "chat", f"Alice Martin\nhere's the bot's access token for the bridge: {'sy' + 't_'}{b64url(b'bridgebot').rstrip('=')}_{r(20)}_{r(6)}\n\nBob Lee\nthanks, set it in the compose file")
    F("forge issue repro", "chat", f"### Steps to reproduce\n\n```\ncurl -H 'Authorization: token {r(40, HEX)}' https://git.corp.dev/api/v1/repos/search?q=infra\n```\n\nReturns 500 instead of a list.")
    F("tracker comment creds", "chat", f"@qa-team Credentials for the test tenant: user qa-admin@corp.dev / {_upw(14)} -- please don't change them.")
    F("agent transcript env", "chat", f"> Read(.env)\n  ⎿  Read 4 lines\n     DATABASE_URL=postgres://app:{_upw(16)}@localhost:5432/app\n     POSTHOG_PERSONAL_API_KEY={'ph' + 'x_'}{r(43)}\n\n> The env file has both variables set; the failure is elsewhere.")
    F("telegram export", "chat", json.dumps({"id": _digits(5), "type": "message", "date": "2026-11-28T21:03:11", "from": "Anna",
      "text": "root pass for the new VPS: " + _upw(14)}, ensure_ascii=False, indent=1))
    F("review comment key", "chat", f"**jdoe** commented on `src/billing/client.py` line 12:\n> `API_SECRET = \"{r(40)}\"`\n\nthis is the live one, please move it to the env before merging")

    # --- tables
    F("password manager csv", "table", f"name,url,username,password,note\nGitLab,https://gitlab.corp.dev,jdoe,{_upw(16)},\nAWS console,https://corp.signin.aws.amazon.com,jdoe,{_upw(16)},MFA on phone")
    F("markdown env table", "table", f"| env | host | user | password |\n|-----|------|------|----------|\n| staging | db-stg.corp | app | {_upw(14)} |\n| prod | db.corp | app | {_upw(14)} |")
    F("org mode table", "table", f"| service | login  | secret |\n|---------+--------+--------|\n| grafana | admin  | {_upw(14)} |\n| minio   | root   | {_upw(14)} |")
    F("html table", "table", f"<table>\n  <tr><th>System</th><th>Login</th><th>Password</th></tr>\n  <tr><td>FTP</td><td>upload</td><td>{_upw(14)}</td></tr>\n</table>")
    F("rst grid table", "table", f"+---------+--------+------------------+\n| Service | User   | API key          |\n+=========+========+==================+\n| maps    | web    | {r(32, HEX)} |\n+---------+--------+------------------+")
    F("semicolon csv", "table", f"Dienst;Benutzer;Passwort\nNAS;admin;{_upw(14)}\nRouter;admin;{_upw(14)}")

    # --- split across the memory's fields, or cut in the text
    F("split key names it", "split", f"{_upw(18)}\n\n(rotated monthly, last on Dec 1)", "Grafana", key="grafana-admin-password")
    F("split description names it", "split", _upw(20), "Postgres prod password for billing_rw on db.corp.internal")
    F("split description api key", "split", f"{r(64, HEX)}\n\nscope: releases + sourcemaps", "Sentry auth token used by the release pipeline")
    F("split two halves", "split", f"pasting the key in two halves so the chat tool doesn't eat it:\nfirst half: {r(20)}\nsecond half: {r(20)}\njoin them without a space")
    F("split user then host", "split", f"same as the old one but with the year bumped: {_upw(12)}2026", "login for the Hetzner robot panel, user #ws+" + r(8, LOWER))

    # --- logs and traces that echo a credential
    F("set x trace", "log", f"+ export NEXUS_URL=https://nexus.corp.dev\n+ curl -sf -u admin:{_upw(16)} https://nexus.corp.dev/service/rest/v1/status\n+ echo ok")
    F("curl verbose basic", "log", f"> GET /api/v1/items HTTP/2\n> Host: inventory.corp.dev\n> authorization: Basic {b64('svc_inventory:' + _upw(16))}\n> user-agent: curl/8.7.1\n< HTTP/2 200")
    F("requests send debug", "log", f"send: b'POST /v1/export HTTP/1.1\\r\\nHost: api.corp.dev\\r\\nAuthorization: Bearer {r(40)}\\r\\nContent-Length: 2\\r\\n\\r\\n'\nreply: 'HTTP/1.1 202 Accepted\\r\\n'")
    F("go percent plus v", "log", f"2026/12/02 10:11:12 loaded config: &{{Addr:0.0.0.0:8080 DBUser:app DBPassword:{_upw(16)} Debug:false}}")
    F("rust debug print", "log", f"[2026-12-02T10:11:12Z INFO  api] settings = Settings {{ database_url: \"postgres://app@db:5432/app\", api_key: \"{r(40)}\", workers: 8 }}")
    F("rails parameters", "log", f"Started POST \"/users/sign_in\" for 10.0.0.4 at 2026-12-02 10:11:12 +0000\nProcessing by Users::SessionsController#create as HTML\n  Parameters: {{\"user\"=>{{\"email\"=>\"ops@corp.dev\", \"password\"=>\"{_upw(14)}\"}}, \"commit\"=>\"Log in\"}}")
    F("tcpdump ftp pass", "log", f"10:14:02.113 IP 10.0.0.9.51514 > 10.0.0.2.21: Flags [P.], length 13\nUSER backup\n10:14:02.120 IP 10.0.0.9.51514 > 10.0.0.2.21: Flags [P.], length 19\nPASS {_upw(14)}")
    F("smtp auth plain", "log", f"<- 220 mail.corp.dev ESMTP\n-> EHLO build01\n<- 250-AUTH PLAIN LOGIN\n-> AUTH PLAIN {b64(chr(0) + 'alerts@corp.dev' + chr(0) + _upw(16))}\n<- 235 2.7.0 Authentication successful")
    F("ps aux password flag", "log", f"app   18211  2.1  4.0 4120044 650112 ?  Sl  09:12  1:02 java -jar /srv/app.jar --spring.datasource.password={_upw(16)} --server.port=8080")
    F("proc environ", "log", f"# tr '\\0' '\\n' < /proc/1/environ\nPATH=/usr/local/bin:/usr/bin\nAPI_TOKEN={r(40)}\nHOME=/root")
    F("kubectl describe env", "log", f"    Environment:\n      SPRING_PROFILES_ACTIVE:  prod\n      DB_USER:                 app\n      DB_PASSWORD:             {_upw(18)}\n    Mounts:\n      /tmp from tmp (rw)")
    F("windows 4688", "log", f"A new process has been created.\n...\nNew Process Name:\tC:\\Windows\\System32\\net.exe\nProcess Command Line:\tnet user svc_backup {_upw(14)} /add /y")
    F("sshd password as user", "log", f"I typed the password at the user prompt by mistake, the log kept it:\nDec  2 10:11:12 bastion sshd[2231]: Invalid user {_upw(14)} from 203.0.113.50 port 51234")
    F("ansible vvv", "log", f"ok: [db01] => {{\n    \"ansible_facts\": {{}},\n    \"invocation\": {{\"module_args\": {{\"login_user\": \"postgres\", \"login_password\": \"{_upw(18)}\", \"name\": \"app\"}}}}\n}}")
    F("tfstate random password", "log", json.dumps({"mode": "managed", "type": "random_password", "name": "db", "instances": [{"attributes": {"length": 24, "special": True, "result": _pw(24)}}]}, indent=2))
    F("sentry event headers", "log", json.dumps({"request": {"url": "https://api.corp.dev/v1/orders", "method": "POST", "headers": [["Authorization", "Bearer " + r(40)], ["Content-Type", "application/json"]]}}, indent=1))
    F("traceback url key", "log", f"requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: https://api.weather.corp.dev/v2/forecast?lat=52.1&lon=4.3&api_key={r(32, HEX)}")

    # --- encodings
    F("kubectl jsonpath data", "encoded", f"$ kubectl get secret smtp -o jsonpath='{{.data}}'\n{{\"password\":\"{b64(_upw(18))}\",\"username\":\"{b64('alerts@corp.dev')}\"}}")
    F("env file base64", "encoded", "ENV_FILE_B64=" + b64(f"DB_PASSWORD={_upw(18)}\nJWT_SECRET={r(48)}\nSMTP_PASS={_upw(16)}\n"), "CI variable, decoded into .env at deploy")
    F("percent encoded password", "encoded", f"DATABASE_URL=postgresql://app:{r(8)}%40{r(6)}%23{r(5)}@db.corp.internal:5432/app")
    F("json escaped in log", "encoded", "level=info msg=\"request body\" body=\"{\\\"username\\\":\\\"svc\\\",\\\"password\\\":\\\"" + _upw(16) + "\\\"}\"")
    F("xxd hex password", "encoded", f"$ echo -n \"$DB_PASSWORD\" | xxd -p\n{_upw(16).encode().hex()}\n(the init container wants it hex-encoded)")
    F("proxy authorization", "encoded", f"Proxy-Authorization: Basic {b64('jdoe:' + _upw(14))}")
    F("service account b64", "encoded", "GOOGLE_CREDENTIALS_B64=" + b64(json.dumps({"type": "service_account", "project_id": "corp-data", "private_key_id": r(40, HEX),
      "private_key": _pem(PK, _rsa_der()) + "\n", "client_email": "etl@corp-data.iam.gserviceaccount.com"})))

    # --- games and streaming
    F("obs stream key", "game", json.dumps({"settings": {"bwtest": False, "key": f"live_{_digits(9)}_{r(30)}", "server": "auto", "service": "Twitch"}, "type": "rtmp_common"}, indent=4),
      "OBS service.json")
    F("youtube stream key", "game", f"rtmp://a.rtmp.youtube.com/live2/{_groups(5, 4, LOWER, '-')}")
    F("roblox cookie", "game", ".ROBLOSECURITY=_|WARNING:-DO-NOT-SHARE-" + "THIS.--Sharing-this-will-allow-someone-to-log-in-as-you-and-to-steal-your-ROBUX-and-items.|_" + r(600, HEXU))
    F("palworld admin password", "game", f"[/Script/Pal.PalGameWorldSettings]\nOptionSettings=(Difficulty=None,ServerName=\"corp pals\",AdminPassword=\"{_upw(14)}\",ServerPassword=\"{_upw(10)}\",PublicPort=8211)")
    return f


def look_alikes() -> list[dict]:
    """The same shapes and places, holding nothing secret."""
    a = []

    def A(*args, **k):
        a.append(item(*args, **k))

    # --- keys public by design
    A("posthog project key", "code", f"posthog.init('{'ph' + 'c_'}{r(43)}', {{\n  api_host: 'https://eu.i.posthog.com',\n  person_profiles: 'identified_only',\n}})",
      "front-end analytics snippet (project key is public)")
    A("launchdarkly client side id", "code", f"const LDProvider = await asyncWithLDProvider({{\n  clientSideID: '{r(24, HEX)}',\n  context: {{ kind: 'user', key: user.id }},\n}});")
    A("datadog rum client token", "code", f"datadogRum.init({{\n  applicationId: '{_uuid()}',\n  clientToken: 'pub{r(32, HEX)}',\n  site: 'datadoghq.eu',\n  service: 'web',\n}});",
      "RUM browser SDK, the client token is meant for browsers")
    A("segment browser snippet", "code", f"analytics.load(\"{r(32)}\");\nanalytics.page();", "Segment snippet in the marketing site's <head>")
    A("supabase anon key", "code", "const supabase = createClient(\n  'https://" + r(20, LOWER) + ".supabase.co',\n  '"
      + _jwt({"iss": "supabase", "ref": r(20, LOWER), "role": "anon", "iat": 1718000000, "exp": 2033576000}) + "'\n)\n// anon key is public; row level security is on for every table")
    A("turnstile site key", "code", f"<div class=\"cf-turnstile\" data-sitekey=\"0x4AAAAAAA{r(14, URL)}\" data-theme=\"light\"></div>", "signup form widget (the site key is public)")
    A("vapid public key", "code", f"const sub = await reg.pushManager.subscribe({{\n  userVisibleOnly: true,\n  applicationServerKey: urlBase64ToUint8Array('{b64url(_EC_POINT + _rand_bytes(64))}'),\n}});")
    A("discord public key", "env", f"DISCORD_APPLICATION_ID={_digits(19)}\nDISCORD_PUBLIC_KEY={r(64, HEX)}\n# the bot token is in the secret store, not here")
    A("google oauth client id", "code", f"google.accounts.id.initialize({{\n  client_id: '{_digits(12)}-{r(32, LOWER)}.apps.googleusercontent.com',\n  callback: handleCredentialResponse,\n}});")

    # --- public keys and records
    A("age recipient sops", "keymat", f"creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: >-\n      age1{r(58, BECH32)},\n      age1{r(58, BECH32)}")
    A("xpub watch only", "keymat", f"watch-only wallet for the donations page (public key, can't spend):\n{_xkey(_XPUB, bytes([2 + _G.rng.randrange(2)]) + _rand_bytes(32))}")
    A("solana address", "keymat", f"solana transfer {_b58(_rand_bytes(32))} 0.5 --allow-unfunded-recipient")
    A("dkim txt record", "keymat", f"selector1._domainkey.corp.dev. 3600 IN TXT \"v=DKIM1; k=rsa; p={b64(b'0' + _rand_bytes(293))}\"")
    A("cosign public key", "keymat", _pem("PUBLIC KEY", b"\x30\x59\x30\x13\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\x03\x42\x00\x04" + _rand_bytes(64))
      + "\n\ncosign verify --key cosign.pub ghcr.io/corp/api:1.4.2")
    A("known hosts line", "keymat", f"[git.corp.dev]:2222 ssh-ed25519 {b64(_SSH_ED + _rand_bytes(32))}")
    A("ovpn ca only", "keymat", "client\ndev tun\nremote vpn.corp.dev 1194\nauth-user-pass\n<ca>\n" + _pem("CERTIFICATE", _cert_der()) + "\n</ca>")

    # --- encrypted values
    A("ansible vault file", "encoded", "$ANSIBLE_VAULT;1.1;AES256\n" + _hex_lines(300, 80), "group_vars/prod/vault.yml (encrypted)")
    A("sealed secret", "encoded", f"apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: db-creds\nspec:\n  encryptedData:\n    password: Ag{b64(_rand_bytes(560))}")
    A("age encrypted file", "encoded", _block("AGE ENCRYPTED FILE", wrap(b64(b"age-encryption.org/v1\n-> X25519 " + _rand_bytes(200)))))
    A("pgp message", "encoded", _block("PGP MESSAGE", wrap(b64(_rand_bytes(400))) + "\n=" + b64(_rand_bytes(3))), "the handover file, encrypted to the on-call key")
    A("jasypt enc", "config", f"spring.datasource.username=app\nspring.datasource.password=ENC({b64(_rand_bytes(48))})\n# jasypt.encryptor.password comes from the JASYPT_PASSWORD env var")
    A("kms ciphertext blob", "encoded", json.dumps({"CiphertextBlob": "AQICAHh" + b64(_rand_bytes(160)), "KeyId": f"arn:aws:kms:eu-west-1:{_digits(12)}:key/{_uuid()}",
      "EncryptionAlgorithm": "SYMMETRIC_DEFAULT"}, indent=2), "aws kms encrypt output")
    A("dotenvx encrypted values", "env", f"#/-------------------[DOTENV_PUBLIC_KEY]--------------------/\nDOTENV_PUBLIC_KEY=\"02{r(64, HEX)}\"\n\nDATABASE_URL=\"encrypted:{b64(_rand_bytes(120))}\"\nSTRIPE_KEY=\"encrypted:{b64(_rand_bytes(110))}\"")

    # --- password hashes
    A("argon2 hash", "sql", f"INSERT INTO users (email, password_hash) VALUES ('ops@corp.dev', '$argon2id$v=19$m=65536,t=3,p=4${b64(_rand_bytes(16)).rstrip('=')}${b64(_rand_bytes(32)).rstrip('=')}');")
    A("django pbkdf2", "code", json.dumps([{"model": "auth.user", "pk": 1, "fields": {"username": "admin", "password": f"pbkdf2_sha256$870000${r(22)}${b64(_rand_bytes(32))}"}}], indent=2), "fixture for the demo site")
    A("pgbouncer scram", "config", f"# userlist.txt (SCRAM verifiers, not passwords)\n\"app\" \"SCRAM-SHA-256$4096:{b64(_rand_bytes(16))}${b64(_rand_bytes(32))}:{b64(_rand_bytes(32))}\"")
    A("htpasswd apr1", "config", f"admin:$apr1${r(8)}${r(22, ALNUM + './')}\nci:$apr1${r(8)}${r(22, ALNUM + './')}")

    # --- documented examples and defaults
    A("jwt io example", "header", "curl -H 'Authorization: Bearer " + "eyJhbGci" + "OiJIUzI1NiIsInR5cCI6IkpXVCJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
      + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c" + "' localhost:3000/me\n# that's the jwt.io debugger's example token (John Doe), our middleware should reject it")
    A("flask docs secret", "code", "# the Flask quickstart's example value -- never use it, generate one with secrets.token_hex()\napp.secret_key = b'_5#y2L\"F4Q8z\\n\\xec]/'")
    A("rfc 6238 test seed", "code", "def test_totp_rfc6238():\n    # RFC 6238 appendix B test seed (ASCII \"12345678901234567890\")\n    assert totp(\"GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\", t=59) == \"287082\"")
    A("oracle scott tiger", "cli", "sqlplus scott/tiger@//localhost:1521/XEPDB1\n-- the sample schema from the Oracle tutorials, in the throwaway container")
    A("minio default", "config", "local dev only -- MinIO's documented defaults, the container is recreated every run:\nMINIO_ROOT_USER=minioadmin\nMINIO_ROOT_PASSWORD=minioadmin")
    A("grafana first login", "prose", "Fresh Grafana: log in with admin / admin, it forces a new password on first login.")
    A("env example placeholders", "env", "# .env.example -- copy to .env and fill in\nAPI_TOKEN=<paste-your-token>\nDB_PASSWORD=changeme\nSMTP_PASS=\nSENTRY_DSN=")

    # --- masked values
    A("aws configure list masked", "log", f"      Name                    Value             Type    Location\n      ----                    -----             ----    --------\n   profile                     prod           manual    --profile\naccess_key     ****************{r(4, UP)} shared-credentials-file\nsecret_key     ****************{r(4)} shared-credentials-file")
    A("gh auth status masked", "log", f"github.com\n  ✓ Logged in to github.com account jdoe (keyring)\n  - Active account: true\n  - Git operations protocol: ssh\n  - Token: {'gh' + 'o_'}************************************\n  - Token scopes: 'gist', 'read:org', 'repo'")
    A("rails filtered", "log", "Processing by Users::SessionsController#create as HTML\n  Parameters: {\"user\"=>{\"email\"=>\"ops@corp.dev\", \"password\"=>\"[FILTERED]\"}, \"commit\"=>\"Log in\"}")
    A("actuator masked", "log", json.dumps({"name": "applicationConfig: [classpath:/application.yml]", "properties": {"spring.datasource.password": {"value": "******", "origin": "class path resource [application.yml] - 7:15"}}}, indent=2))
    A("pip masked index", "log", "Looking in indexes: https://pypi.org/simple, https://deploy:****@pypi.corp.dev/simple\nCollecting corp-auth==1.8.0")
    A("terraform sensitive", "log", "# random_password.db:\nresource \"random_password\" \"db\" {\n    id      = \"none\"\n    length  = 24\n    result  = (sensitive value)\n    special = true\n}")

    # --- references to where a secret lives
    A("1password references", "env", "# .env.tpl, rendered with: op inject -i .env.tpl -o .env\nSTRIPE_SECRET_KEY=op://Engineering/Stripe/credential\nDB_PASSWORD=op://Engineering/Postgres prod/password")
    A("cfn dynamic reference", "iac", "MasterUserPassword: '{{resolve:secretsmanager:prod/orders/db:SecretString:password}}'\nMasterUsername: orders")
    A("ecs valuefrom", "iac", json.dumps({"secrets": [{"name": "DB_PASSWORD", "valueFrom": f"arn:aws:ssm:eu-west-1:{_digits(12)}:parameter/prod/orders/db_password"}]}, indent=2))
    A("pass show", "cli", "export NEXUS_PASSWORD=\"$(pass show infra/nexus/admin)\"\n./publish.sh")
    A("systemd load credential", "config", "[Service]\nLoadCredential=db-password:/etc/credstore/orders-db-password\nExecStart=/usr/local/bin/orders --db-password-file=${CREDENTIALS_DIRECTORY}/db-password")
    A("fstab credentials file", "config", f"UUID={_uuid()} /            ext4  defaults  0 1\n//nas01/media  /mnt/media  cifs  credentials=/root/.smbcred,uid=1000,vers=3.0  0 0")
    A("jinja vault var", "iac", "- name: create app db user\n  community.postgresql.postgresql_user:\n    name: app\n    password: \"{{ vault_app_db_password }}\"\n  no_log: true")
    A("run secrets entrypoint", "code", "#!/bin/sh\nexport DB_PASSWORD=\"$(cat /run/secrets/db_password)\"\nexec gunicorn app:app")
    A("secret key ref", "iac", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: orders-db\n        key: password")
    A("header with env reference", "header", f"curl -X POST https://api.corp.dev/v1/payouts \\\n  -H \"Authorization: Bearer $PAYOUTS_TOKEN\" \\\n  -H \"Idempotency-Key: {_uuid()}\" \\\n  -d @payout.json")

    # --- ids, digests and signatures in the same places
    A("traceparent header", "header", f"traceparent: 00-{r(32, HEX)}-{r(16, HEX)}-01\ntracestate: corp=t61rcWkgMzE")
    A("stripe object ids", "prose", f"Refund for customer {'cu' + 's_'}{r(14)} on payment {'p' + 'i_'}{r(24)}; webhook event {'ev' + 't_'}{r(24)} arrived twice.")
    A("twilio sid only", "env", f"TWILIO_ACCOUNT_SID={'A' + 'C'}{r(32, HEX)}\n# auth token lives in Vault: secret/twilio/auth_token")
    A("github app ids", "env", f"GITHUB_APP_ID={_digits(6)}\nGITHUB_APP_INSTALLATION_ID={_digits(8)}\nGITHUB_APP_PRIVATE_KEY_PATH=/etc/corp/gh-app.pem")
    A("altool key ids", "mobile", f"xcrun altool --upload-app -f build/App.ipa -t ios --apiKey {r(10, UP)} --apiIssuer {_uuid()}\n# the .p8 sits in ~/.appstoreconnect/private_keys/")
    A("gcp sa key id", "cli", f"$ gcloud iam service-accounts keys list --iam-account etl@corp-data.iam.gserviceaccount.com\nKEY_ID                                    CREATED_AT            EXPIRES_AT\n{r(40, HEX)}  2026-10-01T09:00:00Z  9999-12-31T23:59:59Z")
    A("csp nonce", "header", f"Content-Security-Policy: default-src 'self'; script-src 'self' 'nonce-{b64(_rand_bytes(16))}'")
    A("oci manifest digests", "log", json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
      "config": {"digest": "sha256:" + r(64, HEX), "size": 7023}, "layers": [{"digest": "sha256:" + r(64, HEX), "size": 31357624}]}, indent=2))
    A("requirements hashes", "registry", f"requests==2.32.3 \\\n    --hash=sha256:{r(64, HEX)} \\\n    --hash=sha256:{r(64, HEX)}")
    A("flake lock narhash", "config", json.dumps({"nixpkgs": {"locked": {"lastModified": 1733000000, "narHash": "sha256-" + b64(_rand_bytes(32)), "owner": "NixOS",
      "repo": "nixpkgs", "rev": r(40, HEX), "type": "github"}}}, indent=2))
    A("solana tx signature", "keymat", f"tx confirmed: {_b58(_rand_bytes(64))}")
    A("stripe signature header", "header", f"Stripe-Signature: t={_digits(10)},v1={r(64, HEX)}")
    A("order reference groups", "prose", f"Hardware order {_groups(4, 4, UP, '-')} shipped; YubiKey serials {_digits(8)} and {_digits(8)}.")
    A("password policy", "prose", "Password policy for the portal: at least 14 characters, one digit, one symbol; regex ^(?=.*\\d)(?=.*[^\\w\\s]).{14,}$")

    # --- prose that says where a secret lives
    A("prose french reference", "prose", "Le mot de passe du routeur est dans 1Password, coffre « Infra », entrée « routeur bureau ».")
    A("prose italian reference", "prose", "La password di root è stata cambiata ieri; quella nuova è in Vault sotto secret/infra/root.")
    A("prose polish reference", "prose", "Hasło do bazy jest w menedżerze haseł (Bitwarden, kolekcja Ops) -- nie wklejaj go tutaj.")
    A("prose hindi reference", "prose", "सर्वर का पासवर्ड Bitwarden में है, यहाँ मत लिखना।")
    A("prose vietnamese reference", "prose", "Đừng dán mật khẩu vào đây; dùng biến môi trường DB_PASSWORD trên máy chủ.")
    A("prose dutch policy", "prose", "Het wachtwoordbeleid: minimaal 14 tekens, en het wachtwoord verloopt na 90 dagen.")
    return a


FORMS = forms()
LOOK_ALIKES = look_alikes()
