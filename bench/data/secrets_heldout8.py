"""The eighth held-out corpus for the secret gate: BLIND, written without reading the detector, its
tests or the other corpora's items (only the docstring and item format of ``secrets_heldout7.py``,
the generator ``secret_gen.py`` and ``bench/bench_secrets.py``), and measured once, untuned.

It plays a developer pasting what they really paste into a memory in 2025-2026, with vendors,
formats and places chosen apart from issue 23's examples and heldout7's docstring list:
hosting and edge (Vercel, Netlify ``nfp_``, Fly.io ``FlyV1 fm2_``, DigitalOcean ``dop_v1_`` in
doctl's config, Hetzner ``cli.toml``, Linode, Vultr, Cloudflare's global key in ``X-Auth-Key``,
Akamai ``.edgerc``, Tailscale ``tskey-auth-``, ngrok ``ngrok.yml``, Portainer ``ptr_``, Rancher
``token-xxxxx:``), SaaS APIs (Shopify ``shpat_``, Atlassian ``ATATT``, Linear ``lin_api_``,
Airtable ``pat``, Asana ``2/...:``, HubSpot ``pat-na1-``, Mailchimp ``-us21``, Resend ``re_``,
Contentful ``CFPAT-``, Sentry ``sntryu_`` in ``.sentryclirc``, Algolia admin keys, Mapbox ``sk.``
downloads tokens, Cloudinary URLs, Datadog ``datadog.yaml``, Opsgenie ``GenieKey``, Salesforce
session ids and SFDX auth URLs, Pipedrive, Postman ``PMAK-``, Snyk), AI (Replicate ``r8_``,
Cohere, Mistral in a notebook ``%env``, Together in a LiteLLM config, Fireworks ``fw_``,
Perplexity ``pplx-`` in an editor's settings, xAI ``xai-``, W&B ``wandb login``, Modal
``ak-``/``as-``), payments (Square ``EAAA``, Adyen ``AQE``, PayPal client secret, Mollie
``live_``, Razorpay ``key_secret``, Plaid, Vonage), secrets managers and identity (1Password
``ops_``, Bitwarden Secrets Manager ``0.<uuid>.``, Infisical ``st.``, Consul ``SecretID``, SOPS
``SOPS_AGE_KEY``, Pulumi ``pul-``), code forges and CI (Bitbucket ``ATBB`` app passwords, Gitea
``tea login``, GitLab runner ``glrt-`` and trigger ``glptt-`` tokens, CircleCI ``CCIPAT_``,
Buildkite agent tokens, Codecov, Jenkins ``11...`` API tokens and ``build?token=`` triggers), CI
YAML of other vendors (Bitbucket Pipelines, Azure Pipelines, Drone/Woodpecker, Jenkinsfile,
TeamCity XML, CodeBuild buildspec, Cloud Build substitutions), IaC (Pulumi stack YAML, Ansible
INI inventory, Puppet hiera, CloudFormation, Bicep, CDK ``unsafePlainText``, Packer, Vagrant,
``helm --set``, Kustomize ``secretGenerator``, Nix), database tools and connection strings of
less-common databases (MongoDB Compass export, Robo 3T, DBeaver ``data-sources.json``, Sequel Ace
``.spf``, SQLTools settings, FileZilla ``sitemanager.xml`` base64, WinSCP obfuscated ``Password=``,
ClickHouse, Neo4j Aura, InfluxDB, Cassandra ``cqlsh``, Couchbase, DB2 JDBC, SAP HANA
``hdbuserstore``, ODBC ``odbc.ini``, SurrealDB, PlanetScale ``pscale_pw_``, Upstash, Redis
``requirepass``/``-a``, ``mysql -p<pw>``, ``.my.cnf``, Kibana), mail and file tools (Postfix
``sasl_passwd`` with an SES SMTP password, ``msmtprc``, ``muttrc``, rclone ``token =`` and obscured
``pass =``, ``.s3cfg``, ``mc alias set``), package registries (NuGet ``oy2`` and
``ClearTextPassword``, Maven ``settings.xml``, sbt ``Credentials(...)``, Yarn Berry
``npmAuthToken``, Cargo ``credentials.toml``, Hex, Conda ``/t/<token>/`` channels, a GOPROXY with
credentials), license keys that unlock an account (MaxMind ``GeoIP.conf``, Font Awesome Pro npm
token, Sidekiq Pro gem source), browser devtools ("copy as cURL" with session cookies, "copy as
fetch" with ``x-api-key``, "copy as PowerShell" with ``JSESSIONID``, HAR header and cookie entries,
Postman collection ``apikey`` auth, Bruno ``.bru``, VS Code ``.http`` variables, HTTPie DRF
``Token``), mobile (FCM server key in ``Info.plist``, Maven Central ``ossrhPassword`` in
``gradle.properties``, fastlane ``MATCH_PASSWORD``, an App Store Connect API key JSON with its
``.p8`` inside, ``--dart-define``, ``.xcconfig``), game and infra consoles (Minecraft
``rcon.password``, Source ``rcon_password``, Steam Web API keys in a URL, Pterodactyl ``ptla_``,
PlayFab ``X-SecretKey``, Factorio ``server-settings.json``, a TeamSpeak first-run log, ``ipmitool
-P``, RouterOS ``/user add``, Cisco ``password 0`` and SNMP communities), webhook URLs with their
token (Discord, Microsoft Teams, Google Chat, Telegram ``bot<id>:<token>``, Mattermost), logs and
stack traces that echo a credential (a Python traceback quoting ``create_engine``, a Java
``SQLException`` with a JDBC URL, ``docker inspect`` ``Env``, Spring Boot ``/actuator/env``, a
Terraform plan, an nginx access log with ``access_token=``, a Node error with ``rediss://``, a
``.zsh_history`` line), code in many languages (Go, Rust ``bearer_auth``, Java, C#
``NetworkCredential``, Kotlin/Ktor, Swift, PHP ``wp-config.php`` with its salts, Ruby
``Aws::Credentials``, Elixir ``secret_key_base``, Perl DBI, R ``authenticate``, SQL ``CREATE USER
... PASSWORD``/``IDENTIFIED BY``/``CREATE LOGIN``, Clojure EDN, Lua in a Neovim config,
PowerShell ``SetEnvironmentVariable``), key material (WireGuard ``PrivateKey``, a NATS ``.creds``
file, minisign and signify secret keys, a Nostr ``nsec1``, a Cardano ``.skey``, a Bitcoin WIF, an
Ethereum deployer key in a Hardhat ``.env``, private JWKs (EC ``d`` and ``oct`` ``k``), Traefik
``acme.json`` keys (base64 DER and base64 PEM), a Kerberos keytab in base64, an OpenSSH key body
pasted without its armor lines, a Tor onion service secret key), prose in Japanese, Turkish,
Portuguese, Arabic, Indonesian, Swahili, Spanish, German, Russian, Chinese (no space before the
value), Korean, Thai, Czech and Swedish; chat (a Slack export's JSON, a WhatsApp export, a Discord
copy, a Teams transcript, a quoted e-mail with a temporary password); values split across the
description and body and a password alone on the line after its user; tables (Markdown and TSV);
encodings (a ``.dockerconfigjson`` inside base64 inside a Secret, a gzip+base64 ``.env``).
The look-alikes share those shapes and places without being secrets.

Decisions on the borderline (made before measuring):
- credentials: a session cookie copied from devtools (``sessionid``, ``JSESSIONID``, a next-auth
  JWE) -- it logs in as the person while it lives; a reversible obfuscation (rclone ``pass =``,
  WinSCP ``Password=``, FileZilla's base64 ``<Pass>``) counts as the password itself; a license key
  that authenticates to the vendor (MaxMind ``LicenseKey``, the Font Awesome Pro npm token, the
  Sidekiq Pro gem credentials); a Mattermost or Teams incoming-webhook URL and a Jenkins build
  ``token=`` (anyone holding them posts or builds); a Consul ``SecretID`` (its ``AccessorID`` alone
  is not); a Cisco ``password 0`` (type 0 is plaintext) and an SNMP RW community; a TeamSpeak
  privilege key; a Steam Web API key in a URL; an SES SMTP password; a Salesforce session id
  (``00D...!AQ...``); a Kerberos keytab (it is the key); an *unarmored* OpenSSH private key body
  (the armor lines were lost in the paste, the key was not); the base64 body of a PEM private key
  in ``acme.json``; a Bitcoin WIF, a Nostr ``nsec``, a Cardano signing key; a Klaviyo-like
  server key whose vendor chose a ``pk_`` prefix is NOT in this corpus (too vendor-specific to
  judge blind); a gzip+base64 ``.env`` (a real credential, though no shape survives gzip: included
  to measure, expected a miss).
- look-alikes: keys public by design (Mapbox ``pk.`` tokens, a Firebase web ``apiKey``, an Algolia
  *search-only* key in front-end code, a Statsig ``client-`` key, a Sentry DSN in ``Sentry.init``,
  an AdMob app id); public keys (WireGuard ``[Peer] PublicKey``, a JWKS with only ``n``/``e``, a
  minisign public key, a Nostr ``npub``, an OpenPGP public block, an ``authorized_keys`` line, a
  CSR); encrypted values (Pulumi ``secure: v1:``, hiera-eyaml ``ENC[PKCS7,...]``, a SOPS file, a
  Travis ``secure:``); password *hashes* (bcrypt in SQL, yescrypt in ``/etc/shadow``,
  ``mysql_native_password`` ``*HEX``, Cisco ``secret 9 $9$``); digests and lock files (image
  digests, ``package-lock`` ``sha512-``, ``go.sum``, ``Cargo.lock``, Nix ``hash``/``rev``,
  ``.terraform.lock.hcl``, SRI, Git LFS pointers, an IPFS CID, GNU build-id); ids (commit SHAs and
  Gerrit ``Change-Id``, Sentry event ids, request ids and ``cf-ray``, ARNs, Azure subscription and
  tenant ids, Kubernetes uids, Cloudflare ``account_id``/``zone_id``, Vercel ``projectId``,
  Salesforce record ids, Docker container ids, Slack ``ts``/channel ids, Ethereum addresses and a
  *transaction hash* -- 0x and 64 hex, the shape of a private key --, a Bitcoin txid); signatures
  (GitHub's ``X-Hub-Signature-256``); fingerprints (SSH host keys, TLS certificates, GPG); a used
  TOTP code; documented examples (RFC 7617's ``Aladdin:open sesame``, AWS's ``EXAMPLE`` keys,
  Microsoft's published KMS client setup key, ``postgres://user:password@localhost``); a local
  docker-compose password the text calls a throwaway default (``postgres``); placeholders, masked
  log values and references to where a secret lives (``${{ secrets.X }}``, ``existingSecret``,
  ``var.db_password``, ``*_FILE=/run/secrets/...``, Postman ``{{apiKey}}``), also in Portuguese,
  Japanese and Turkish prose; a decoded JWT payload (claims without header or signature); a
  Factorio map exchange string; a Minecraft world seed.

Same format and generator conventions as the other corpora (``secret_gen.py``): each item is a
memory (``{"name", "class", "key", "description", "body", "meta"}``), values are random from a
seeded generator and vendor prefixes are split so no scanner flags this file.

RESULT, measured once and untuned on heldout8 (main ce57663's detector plus this corpus;
``python bench/bench_secrets.py --set heldout8 --misses``, load average 10.4 on 2 CPUs): **167/218
forms refused (76.6%) and 5/66 look-alikes refused (7.6%), precision 97.1%** (167/172 refusals).
By class (forms): chat 5/5, ci 9/9, cli 19/26, code 14/22, config 20/24, connstr 2/2, dbgui 5/7,
devtools 5/8, encoded 1/2, env 13/14, game 6/6, git 1/1, header 6/6, iac 9/12, keymat 13/15,
license 1/3, log 7/8, mobile 6/7, prose 6/15, registry 5/7, shell 1/1, split 1/2, sql 2/3, table
1/2, url 4/5, webhook 5/6. Missed (51), by class:
- a password as a *positional* argument or a bare word after a keyword, no ``=``/``:`` (10):
  RouterOS ``/user add ... password=X`` (missed despite the ``=``), Cisco ``password 0 X`` and
  ``snmp-server community X RW``, msmtprc ``password X``, redis.conf ``requirepass X``,
  ``hdbuserstore SET KEY host USER X``, ``mc alias set NAME URL ACCESS SECRET``, ``snyk auth
  <uuid>``, ``wandb login <hex40>``, ``bundle config gems.contribsys.com user:pass``;
- a credential as an argument of a call in code (9): Go ``[]byte("...")`` named
  ``webhookSecret``, Rust ``.bearer_auth("...")``, C# ``NetworkCredential("u", "p")``, Perl
  ``DBI->connect(dsn, "u", "p")``, R ``authenticate("u", "p")``, Couchbase
  ``PasswordAuthenticator('u', 'p')``, sbt ``Credentials(realm, host, user, pw)``, CDK
  ``SecretValue.unsafePlainText('...')``, Cohere ``ClientV2("...")``;
- a password-named key in a syntax the gate does not read (8): PHP ``define('DB_PASSWORD',
  '...')`` (and ``AUTH_KEY``), Bicep ``param adminPassword string = '...'``, Nix
  ``config.adminpass = "...";``, ODBC ``PWD=``, Spring ``/actuator/env``'s ``"value"`` under a
  ``...password`` key, a plist ``<key>password</key><string>...</string>`` (Sequel Ace) and
  ``<key>FCMServerKey</key>``, MySQL ``IDENTIFIED BY '...'``;
- prose in other languages (9): Turkish ``şifresi:``, Arabic ``كلمة المرور``, Indonesian ``Kata
  sandi``, Swahili ``Nenosiri``, Chinese ``密码是X`` (no space), Thai ``รหัสผ่าน...คือ``, Czech
  ``heslo``, Swedish ``lösenordet``, Japanese ``APIキーは <hex32>``;
- vendor shapes not known (6): Asana ``2/<n>/<n>:<hex32>``, a Salesforce session id
  ``00D...!AQ...``, a Consul ``SecretID:`` uuid, NuGet ``oy2...``, a Conda ``/t/<token>/``
  channel URL, a MaxMind ``LicenseKey``;
- session cookies and header-less tokens in devtools exports (3): PowerShell ``System.Net.Cookie
  ("JSESSIONID", "<hex32>")``, a HAR cookie ``__Secure-next-auth.session-token`` (a JWE), a
  Postman ``apikey`` auth entry (``{"key": "value", "value": "<token>"}``);
- key material (2): a Cardano ``.skey`` (``cborHex: 5820<hex64>``), a Kerberos keytab in base64;
- places (4): a Mattermost ``/hooks/<26 chars>`` URL, FileZilla's ``<Pass encoding="base64">``, a
  password alone on the line after ``user:``, a TSV row under a ``secret`` header;
- a gzip+base64 ``.env`` (expected: no shape survives gzip).
False alarms (5): a Firebase web ``apiKey`` and a Statsig ``client-`` key (public by design); AWS
ARNs (an account id, a KMS key uuid and a Secrets Manager ARN suffix); RFC 7617's documented
``Aladdin:open sesame`` Basic header; a local docker-compose ``POSTGRES_PASSWORD: postgres`` the
text calls a throwaway default. Not tuned on: these figures are the blind estimate.
"""

from __future__ import annotations

import gzip
import json
import runpy
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261208, "held8", "Working notes")
r, words, item = _G.r, _G.words, _G.item
b64, wrap, b64url = _GEN["b64"], _GEN["wrap"], _GEN["b64url"]
ALNUM, LOWER, UP, HEX, B64, URL, PK = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL", "PK"))
B32, B58, BECH32, D5 = _GEN["B32"], _GEN["B58"], _GEN["BECH32"], _GEN["D5"]
_rand_bytes, _uuid, _pw, _jwt = _G.rand_bytes, _G.uuid, _G.pw, _G.jwt
_block = _GEN["block"]
DIG = "0123456789"
HEXU = "0123456789ABCDEF"


def _digits(n: int) -> str:
    return str(_G.rng.randrange(1, 10)) + r(n - 1, DIG)


def _wg() -> str:
    """A WireGuard (Curve25519) key: 32 bytes in base64."""
    return b64(_rand_bytes(32))


def _ec_sec1() -> bytes:
    """A P-256 key in SEC1 DER: the real header bytes around random key and point."""
    return (b"\x30\x77\x02\x01\x01\x04\x20" + _rand_bytes(32)
            + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04" + _rand_bytes(64))


def _jwe() -> str:
    """A compact JWE with direct encryption (next-auth's session cookie): empty key part."""
    head = b64url(json.dumps({"alg": "dir", "enc": "A256GCM"}).encode())
    return f"{head}..{b64url(_rand_bytes(12))}.{b64url(_rand_bytes(180))}.{b64url(_rand_bytes(16))}"


def _openssh_body() -> str:
    data = (b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01"
            b"\x00\x00\x003\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + _rand_bytes(32)
            + b"\x00\x00\x00\x88" + _rand_bytes(8) + b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 "
            + _rand_bytes(32) + b"\x00\x00\x00@" + _rand_bytes(64) + b"\x00\x00\x00\x0cdeploy@ci")
    return wrap(b64(data), 70)


def forms() -> list[dict]:
    """Credentials in the shapes and places a developer really pastes them."""
    f = []
    # --- hosting, edge and infrastructure consoles
    f.append(item("vercel deploy env", "env",
                  f"vercel CLI in CI:\nVERCEL_ORG_ID=team_{r(24)}\nVERCEL_PROJECT_ID=prj_{r(28)}\nVERCEL_TOKEN={r(24)}"))
    f.append(item("netlify deploy flag", "cli",
                  f"manual deploy from laptop:\nnetlify deploy --prod --dir=dist --auth {'nf' + 'p_'}{r(36)}"))
    f.append(item("fly deploy token", "cli",
                  f"$ fly tokens create deploy -x 999999h\n{'Fly' + 'V1 fm2_'}{r(220, B64)},fm2_{r(140, B64)}\n\nput it in FLY_API_TOKEN on the runner"))
    f.append(item("doctl config", "config",
                  f"~/.config/doctl/config.yaml\naccess-token: {'dop' + '_v1_'}{r(64, HEX)}\ncontext: default"))
    f.append(item("hcloud cli toml", "config",
                  f"~/.config/hcloud/cli.toml\nactive_context = \"prod\"\n\n[[contexts]]\n  name = \"prod\"\n  token = \"{r(64)}\""))
    f.append(item("linode cli config", "config", f"[DEFAULT]\ndefault-user = opsbot\n\n[opsbot]\ntoken = {r(64, HEX)}\nregion = eu-central"))
    f.append(item("vultr key export", "env", f"export VULTR_API_KEY={r(36, UP)}\nvultr-cli instance list"))
    f.append(item("cloudflare global key headers", "header",
                  f"curl -s https://api.cloudflare.com/client/v4/zones \\\n  -H 'X-Auth-Email: ops@shopfront.example' \\\n  -H 'X-Auth-Key: {r(37, HEX)}'"))
    f.append(item("akamai edgerc", "config",
                  f"~/.edgerc\n[default]\nclient_secret = {r(43, B64)}=\nhost = akab-{r(16, LOWER)}-{r(16, LOWER)}.luna.akamaiapis.net\n"
                  f"access_token = akab-{r(16, LOWER)}-{r(16, LOWER)}\nclient_token = akab-{r(16, LOWER)}-{r(16, LOWER)}"))
    f.append(item("tailscale authkey", "cli",
                  f"join the new box:\nsudo tailscale up --ssh --authkey {'tskey' + '-auth-'}k{r(16)}CNTRL-{r(33)}"))
    f.append(item("ngrok yml", "config",
                  f"~/.config/ngrok/ngrok.yml\nversion: \"3\"\nagent:\n  authtoken: 2{r(26)}_{r(21)}"))
    f.append(item("portainer api key", "header",
                  f"portainer API: curl -H \"X-API-Key: {'pt' + 'r_'}{r(43, B64)}=\" https://portainer.lan:9443/api/stacks"))
    f.append(item("rancher login", "cli", f"rancher login https://rancher.corp.example/v3 --token token-{r(5, LOWER)}:{r(54, LOWER)}"))
    f.append(item("ipmitool password", "cli", f"power-cycle node7:\nipmitool -I lanplus -H 10.20.0.17 -U ADMIN -P '{_pw(12)}' chassis power cycle"))
    f.append(item("routeros user add", "cli", f"/user add name=backup group=full password={_pw(16)} comment=\"nightly export\""))
    f.append(item("cisco plaintext password", "config",
                  f"core switch config:\nusername netops privilege 15 password 0 {_pw(12)}\nsnmp-server community {r(18)} RW"))
    # --- SaaS APIs
    f.append(item("shopify admin header", "header",
                  f"GraphQL admin call:\nX-Shopify-Access-Token: {'shp' + 'at_'}{r(32, HEX)}\nContent-Type: application/json"))
    f.append(item("atlassian token curl", "cli",
                  f"curl -u me@shopfront.example:{'ATA' + 'TT3xFfGF0'}{r(180, URL)}={r(8, HEXU)} https://shopfront.atlassian.net/rest/api/3/myself"))
    f.append(item("linear fetch", "code",
                  f"await fetch('https://api.linear.app/graphql', {{\n  method: 'POST',\n  headers: {{ Authorization: '{'lin' + '_api_'}{r(40)}', 'Content-Type': 'application/json' }},\n}})"))
    f.append(item("airtable python", "code", f"from pyairtable import Api\napi = Api(\"{'p' + 'at'}{r(14)}.{r(64, HEX)}\")\ntable = api.table('appX', 'Leads')"))
    f.append(item("asana pat", "env", f"ASANA_ACCESS_TOKEN=2/{_digits(16)}/{_digits(16)}:{r(32, HEX)}"))
    f.append(item("hubspot private app", "code",
                  f"const hubspot = require('@hubspot/api-client')\nconst client = new hubspot.Client({{ accessToken: '{'pat' + '-na1-'}{_uuid()}' }})"))
    f.append(item("mailchimp php", "code",
                  f"$mailchimp->setConfig([\n    'apiKey' => '{r(32, HEX)}-us21',\n    'server' => 'us21'\n]);"))
    f.append(item("resend go", "code", f"client := resend.NewClient(\"{'r' + 'e_'}{r(8)}_{r(24)}\")"))
    f.append(item("contentful rc", "config", f"~/.contentfulrc.json\n{{\n  \"managementToken\": \"{'CFP' + 'AT-'}{r(43, URL)}\",\n  \"activeSpaceId\": \"{r(12, LOWER)}\"\n}}"))
    f.append(item("sentryclirc", "config", f".sentryclirc\n[auth]\ntoken={'sntr' + 'yu_'}{r(64, HEX)}\n\n[defaults]\norg=shopfront"))
    f.append(item("algolia admin key", "env", f"ALGOLIA_APP_ID={r(10, UP)}\nALGOLIA_ADMIN_API_KEY={r(32, HEX)}\n# the search-only key is in the frontend"))
    f.append(item("mapbox downloads token", "mobile",
                  f"gradle.properties (for the Mapbox SDK maven repo)\nMAPBOX_DOWNLOADS_TOKEN={'s' + 'k.'}eyJ1Ijoic2hvcGZyb250IiwiYSI6ImNs{r(24)}.{r(22, URL)}"))
    f.append(item("cloudinary url", "url", f"CLOUDINARY_URL=cloudinary://{_digits(15)}:{r(27, URL)}@shopfront"))
    f.append(item("datadog yaml", "config", f"/etc/datadog-agent/datadog.yaml\napi_key: {r(32, HEX)}\nsite: datadoghq.eu\nlogs_enabled: true"))
    f.append(item("opsgenie geniekey", "header", f"POST https://api.opsgenie.com/v2/alerts\nAuthorization: GenieKey {_uuid()}"))
    f.append(item("salesforce session id", "cli",
                  f"sf org display output:\nAccess Token     00D{r(12)}!AQ{r(4)}.{r(90, ALNUM + '._')}\nInstance Url     https://shopfront.my.salesforce.com"))
    f.append(item("sfdx auth url", "url", f"SFDX_AUTH_URL=force://PlatformCLI::5Aep861{r(80, ALNUM + '.')}@shopfront.my.salesforce.com"))
    f.append(item("pipedrive token url", "url", f"https://shopfront.pipedrive.com/api/v1/deals?api_token={r(40, HEX)}&status=open"))
    f.append(item("postman api key", "cli", f"postman login --with-api-key {'PM' + 'AK-'}{r(24, HEX)}-{r(34, HEX)}"))
    f.append(item("snyk auth", "cli", f"snyk auth {_uuid()}\nsnyk test --all-projects"))
    # --- AI
    f.append(item("replicate token", "env", f"REPLICATE_API_TOKEN={'r' + '8_'}{r(37)}"))
    f.append(item("cohere python", "code", f"import cohere\nco = cohere.ClientV2(\"{r(40)}\")\nres = co.chat(model=\"command-a-03-2025\", messages=msgs)"))
    f.append(item("mistral notebook env", "env", f"first cell of the eval notebook:\n%env MISTRAL_API_KEY={r(32)}"))
    f.append(item("together litellm", "config",
                  f"litellm config.yaml\nmodel_list:\n  - model_name: llama-70b\n    litellm_params:\n      model: together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo\n      api_key: {r(64, HEX)}"))
    f.append(item("fireworks continue", "config",
                  f"~/.continue/config.json\n{{\"models\": [{{\"title\": \"fw\", \"provider\": \"fireworks\", \"model\": \"accounts/fireworks/models/qwen3\", \"apiKey\": \"{'f' + 'w_'}{r(24)}\"}}]}}"))
    f.append(item("perplexity zed settings", "config",
                  f"zed settings.json\n\"language_models\": {{\n  \"openai_compatible\": {{ \"pplx\": {{ \"api_url\": \"https://api.perplexity.ai\", \"api_key\": \"{'ppl' + 'x-'}{r(48)}\" }} }}\n}}"))
    f.append(item("xai curl", "cli",
                  f"curl https://api.x.ai/v1/chat/completions -H \"Authorization: Bearer {'xa' + 'i-'}{r(80)}\" -d @req.json"))
    f.append(item("wandb login", "cli", f"wandb login {r(40, HEX)}"))
    f.append(item("modal token set", "cli", f"modal token set --token-id {'a' + 'k-'}{r(22)} --token-secret {'a' + 's-'}{r(22)}"))
    # --- payments and messaging vendors
    f.append(item("square python", "code",
                  f"from square.client import Client\nclient = Client(access_token=\"{'EA' + 'AA'}{r(60, URL)}\", environment=\"production\")"))
    f.append(item("adyen header", "header", f"Adyen checkout:\nX-API-Key: {'AQ' + 'E'}{r(60, B64)}=-{r(43, B64)}=-{r(12, B64)}"))
    f.append(item("paypal client secret", "env", f"PAYPAL_CLIENT_ID=A{r(79, URL)}\nPAYPAL_CLIENT_SECRET=E{r(79, URL)}"))
    f.append(item("mollie php", "code", f"$mollie = new \\Mollie\\Api\\MollieApiClient();\n$mollie->setApiKey(\"{'li' + 've_'}{r(30)}\");"))
    f.append(item("razorpay node", "code",
                  f"const rzp = new Razorpay({{\n  key_id: '{'rz' + 'p_live_'}{r(14)}',\n  key_secret: '{r(24)}',\n}})"))
    f.append(item("plaid env", "env", f"PLAID_CLIENT_ID={r(24, HEX)}\nPLAID_SECRET={r(30, HEX)}\nPLAID_ENV=production"))
    f.append(item("vonage secret", "env", f"VONAGE_API_KEY={r(8, HEX)}\nVONAGE_API_SECRET={r(16)}"))
    f.append(item("ses postfix sasl", "config",
                  f"/etc/postfix/sasl_passwd\n[email-smtp.eu-west-1.amazonaws.com]:587 {'AK' + 'IA'}{r(16, UP)}:B{r(43, B64)}"))
    f.append(item("msmtprc", "config", f"~/.msmtprc\naccount work\nhost smtp.fastmail.com\nport 465\nuser me@fastmail.example\npassword {r(16, LOWER)}"))
    f.append(item("muttrc", "config", f"set imap_user = \"me@shopfront.example\"\nset imap_pass = \"{_pw(16)}\"\nset smtp_url = \"smtps://me@shopfront.example@smtp.example.net\""))
    # --- secrets managers, identity, forges, CI tokens
    f.append(item("1password service account", "env",
                  f"OP_SERVICE_ACCOUNT_TOKEN={'op' + 's_'}{b64(json.dumps({'signInAddress': 'my.1password.com', 'userAuth': {'method': 'SRPg-4096', 'alg': 'PBES2g-HS256', 'iterations': 650000, 'salt': r(22, URL)}, 'email': r(26, LOWER) + '@1passwordserviceaccounts.com', 'srpX': r(64, HEX), 'muk': {'alg': 'A256GCM', 'ext': True, 'k': r(43, URL), 'kid': 'mp', 'kty': 'oct'}, 'secretKey': 'A3-' + r(6, UP) + '-' + r(6, UP)}))}"))
    f.append(item("bitwarden sm token", "env", f"BWS_ACCESS_TOKEN=0.{_uuid()}.{r(30)}:{r(22, B64)}=="))
    f.append(item("infisical token", "env", f"INFISICAL_TOKEN=st.{_uuid()}.{r(32, HEX)}.{r(32, HEX)}"))
    f.append(item("consul secret id", "cli",
                  f"$ consul acl token create -policy-name deploy\nAccessorID:       {_uuid()}\nSecretID:         {_uuid()}\nDescription:\nLocal:            false"))
    f.append(item("sops age key in ci", "keymat",
                  f"      - name: decrypt\n        env:\n          SOPS_AGE_KEY: {'AGE-SEC' + 'RET-KEY-1'}{r(58, BECH32.upper())}\n        run: sops -d secrets.enc.yaml > .env"))
    f.append(item("pulumi token", "iac", f"export PULUMI_ACCESS_TOKEN={'pu' + 'l-'}{r(40, HEX)}\npulumi up -s prod"))
    f.append(item("bitbucket app password clone", "git",
                  f"git clone https://shopdev:{'AT' + 'BB'}{r(28)}{r(8, HEXU)}@bitbucket.org/shopfront/infra.git"))
    f.append(item("tea login", "cli", f"tea login add --name work --url https://git.shopfront.example --token {r(40, HEX)}"))
    f.append(item("gitlab runner register", "cli",
                  f"gitlab-runner register --non-interactive --url https://gitlab.com --token {'gl' + 'rt-'}{r(20, URL)} --executor docker"))
    f.append(item("gitlab trigger curl", "ci",
                  f"curl -X POST -F token={'glp' + 'tt-'}{r(40, HEX)} -F ref=main https://gitlab.com/api/v4/projects/4711/trigger/pipeline"))
    f.append(item("circleci token header", "header",
                  f"curl -H \"Circle-Token: {'CCI' + 'PAT_'}{r(22)}_{r(40, HEX)}\" https://circleci.com/api/v2/me"))
    f.append(item("buildkite agent cfg", "config", f"/etc/buildkite-agent/buildkite-agent.cfg\ntoken=\"{r(50, LOWER)}\"\nname=\"%hostname-%spawn\""))
    f.append(item("codecov in circle", "ci", f"      - codecov/upload:\n          token: {_uuid()}\n          flags: unit"))
    f.append(item("jenkins api token", "cli", f"curl -X POST -u admin:11{r(32, HEX)} https://ci.shopfront.example/job/deploy/build"))
    f.append(item("jenkins trigger url", "webhook", f"remote trigger for the nightly job: https://ci.shopfront.example/job/nightly/build?token={r(32)}"))
    # --- CI YAML of other vendors
    f.append(item("bitbucket pipelines literal", "ci",
                  f"bitbucket-pipelines.yml\n        - pipe: atlassian/sftp-deploy:0.10.0\n          variables:\n            USER: 'deploy'\n            SERVER: 'web1.shopfront.example'\n            PASSWORD: '{_pw(14)}'"))
    f.append(item("azure pipelines variable", "ci",
                  f"azure-pipelines.yml\nvariables:\n  - name: acrUser\n    value: shopfrontacr\n  - name: acrPassword\n    value: '{r(52, B64)}'"))
    f.append(item("drone docker plugin", "ci",
                  f".drone.yml\n- name: publish\n  image: plugins/docker\n  settings:\n    repo: shopfront/api\n    username: shopbot\n    password: {_pw(16)}"))
    f.append(item("jenkinsfile environment", "ci", f"pipeline {{\n  environment {{\n    NEXUS_USER = 'ci'\n    NEXUS_PASS = '{_pw(14)}'\n  }}\n}}"))
    f.append(item("teamcity param", "ci", f"<param name=\"env.DEPLOY_TOKEN\" value=\"{r(40)}\" />"))
    f.append(item("codebuild buildspec", "ci",
                  f"buildspec.yml\nenv:\n  variables:\n    DOCKERHUB_USER: shopbot\n    DOCKERHUB_PASS: \"{_pw(14)}\""))
    f.append(item("cloud build substitutions", "ci", f"cloudbuild.yaml\nsubstitutions:\n  _DB_USER: app\n  _DB_PASS: {_pw(16)}"))
    # --- IaC
    f.append(item("pulumi stack plain", "iac", f"Pulumi.prod.yaml\nconfig:\n  aws:region: eu-west-1\n  shop:dbUser: app\n  shop:dbPassword: {_pw(18)}"))
    f.append(item("ansible ini inventory", "iac",
                  f"[web]\nweb1 ansible_host=10.0.3.11 ansible_user=deploy ansible_password={_pw(14)} ansible_become_pass={_pw(14)}"))
    f.append(item("puppet hiera", "iac", f"hieradata/prod.yaml\nprofile::mysql::root_password: '{_pw(16)}'\nprofile::mysql::bind_address: '0.0.0.0'"))
    f.append(item("cloudformation master password", "iac",
                  f"  Database:\n    Type: AWS::RDS::DBInstance\n    Properties:\n      MasterUsername: shopadmin\n      MasterUserPassword: {_pw(18)}"))
    f.append(item("bicep param default", "iac", f"param adminUsername string = 'azureuser'\nparam adminPassword string = '{_pw(16)}'"))
    f.append(item("cdk unsafe plaintext", "iac",
                  f"new rds.DatabaseInstance(this, 'Db', {{\n  credentials: rds.Credentials.fromPassword('admin', SecretValue.unsafePlainText('{_pw(16)}')),\n}})"))
    f.append(item("packer winrm", "iac", f"source \"amazon-ebs\" \"win\" {{\n  communicator   = \"winrm\"\n  winrm_username = \"Administrator\"\n  winrm_password = \"{_pw(16)}\"\n}}"))
    f.append(item("vagrant ssh password", "iac", f"Vagrant.configure(\"2\") do |config|\n  config.ssh.username = \"ops\"\n  config.ssh.password = \"{_pw(12)}\"\nend"))
    f.append(item("helm set password", "iac",
                  f"helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword={r(20)} --set auth.database=shop"))
    f.append(item("kustomize literals", "iac",
                  f"secretGenerator:\n- name: api-env\n  literals:\n  - DB_USER=api\n  - DB_PASS={_pw(16)}"))
    f.append(item("nix admin pass", "iac", f"services.nextcloud = {{\n  enable = true;\n  config.adminpass = \"{_pw(14)}\";\n}};"))
    # --- database tools and less-common databases
    f.append(item("compass export", "dbgui",
                  json.dumps({"type": "Compass Connections", "connections": [{"id": _uuid(), "favorite": {"name": "prod"},
                              "connectionOptions": {"connectionString": f"mongodb+srv://shopadmin:{r(20)}@cluster0.{r(5, LOWER)}.mongodb.net/?retryWrites=true"}}]}, indent=1)))
    f.append(item("robo3t json", "dbgui",
                  f"robo3t.json excerpt\n\"credentials\": [{{ \"databaseName\": \"admin\", \"enabled\": true, \"userName\": \"root\", \"userPassword\": \"{_pw(14)}\" }}]"))
    f.append(item("dbeaver data sources", "dbgui",
                  f".dbeaver/data-sources.json\n\"configuration\": {{\n  \"host\": \"db.shopfront.internal\", \"port\": \"5432\", \"database\": \"shop\",\n  \"auth-model\": \"native\", \"user\": \"report\", \"password\": \"{_pw(14)}\"\n}}"))
    f.append(item("sequel ace spf", "dbgui",
                  f"prod.spf\n<key>host</key>\n<string>mysql.shopfront.internal</string>\n<key>user</key>\n<string>ro_user</string>\n<key>password</key>\n<string>{_pw(14)}</string>"))
    f.append(item("sqltools settings", "dbgui",
                  f"\"sqltools.connections\": [\n  {{ \"name\": \"warehouse\", \"driver\": \"PostgreSQL\", \"server\": \"wh.internal\", \"username\": \"analyst\", \"password\": \"{_pw(14)}\" }}\n]"))
    f.append(item("filezilla sitemanager", "dbgui",
                  f"sitemanager.xml\n<Server>\n  <Host>ftp.shopfront.example</Host>\n  <User>webdeploy</User>\n  <Pass encoding=\"base64\">{b64(_pw(14))}</Pass>\n</Server>"))
    f.append(item("winscp ini", "dbgui",
                  f"WinSCP.ini\n[Sessions\\deploy@web1]\nHostName=web1.shopfront.example\nUserName=deploy\nPassword={r(70, HEXU)}"))
    f.append(item("clickhouse client", "cli", f"clickhouse client --host ab12cd.eu-central-1.aws.clickhouse.cloud --secure --user default --password '{r(16)}~{r(4)}'"))
    f.append(item("neo4j aura env", "env", f"NEO4J_URI=neo4j+s://{r(8, LOWER)}.databases.neo4j.io\nNEO4J_USERNAME=neo4j\nNEO4J_PASSWORD={r(43, URL)}"))
    f.append(item("influx config create", "cli",
                  f"influx config create --config-name prod --host-url https://eu-central-1-1.aws.cloud2.influxdata.com --org shopfront --token {r(86, URL)}=="))
    f.append(item("cqlsh", "cli", f"cqlsh cassandra-1.internal 9042 -u app_rw -p '{_pw(14)}'"))
    f.append(item("couchbase python", "code",
                  f"cluster = Cluster('couchbases://cb.{r(10, LOWER)}.cloud.couchbase.com',\n    ClusterOptions(PasswordAuthenticator('app', '{_pw(14)}')))"))
    f.append(item("db2 jdbc", "connstr", f"jdbc:db2://db2.shopfront.internal:50000/SALES:user=db2inst1;password={r(14)};sslConnection=true;"))
    f.append(item("hana userstore", "cli", f"hdbuserstore SET PRODKEY hana.shopfront.internal:30015 SYSTEM {_pw(14)}"))
    f.append(item("odbc ini", "config", f"/etc/odbc.ini\n[warehouse]\nDriver=PostgreSQL Unicode\nServername=wh.internal\nUID=report\nPWD={_pw(14)}"))
    f.append(item("surreal start", "cli", f"surreal start --user root --pass {r(20)} rocksdb:/var/lib/surreal"))
    f.append(item("planetscale url", "connstr",
                  f"DATABASE_URL=mysql://{r(12, LOWER)}:{'pscale' + '_pw_'}{r(43, URL)}@aws.connect.psdb.cloud/shop?sslaccept=strict"))
    f.append(item("upstash rest", "env", f"UPSTASH_REDIS_REST_URL=https://eu1-sacred-owl-{_digits(5)}.upstash.io\nUPSTASH_REDIS_REST_TOKEN=A{r(99, URL)}="))
    f.append(item("redis requirepass", "config", f"redis.conf on cache-2:\nbind 0.0.0.0\nrequirepass {r(32)}"))
    f.append(item("redis cli auth", "cli", f"redis-cli -h cache-2.internal -p 6379 -a '{r(24)}' --no-auth-warning info keyspace"))
    f.append(item("mysql dash p", "cli", f"mysql -uroot -p{r(16)} -h 127.0.0.1 shop < dump.sql"))
    f.append(item("my cnf", "config", f"~/.my.cnf\n[client]\nuser=backup\npassword={_pw(16)}\nhost=db1.internal"))
    f.append(item("kibana yml", "config", f"kibana.yml\nelasticsearch.hosts: [\"https://es01:9200\"]\nelasticsearch.username: \"kibana_system\"\nelasticsearch.password: \"{r(20)}\""))
    # --- file sync and object storage tools
    f.append(item("rclone drive token", "config",
                  f"rclone.conf\n[gdrive]\ntype = drive\nscope = drive\ntoken = {{\"access_token\":\"ya29.{r(150, URL)}\",\"token_type\":\"Bearer\",\"refresh_token\":\"1//0{r(100, URL)}\",\"expiry\":\"2026-12-03T16:02:11Z\"}}"))
    f.append(item("rclone obscured pass", "config",
                  f"rclone.conf\n[nas]\ntype = sftp\nhost = nas.lan\nuser = backup\npass = {r(42, URL)}"))
    f.append(item("s3cfg", "config",
                  f"~/.s3cfg\n[default]\naccess_key = {'AK' + 'IA'}{r(16, UP)}\nsecret_key = {r(40, B64)}\nhost_base = s3.amazonaws.com"))
    f.append(item("mc alias set", "cli", f"mc alias set prod https://minio.shopfront.internal {r(20, UP)} {r(40)}"))
    # --- package registries and licenses
    f.append(item("nuget env var", "registry",
                  f"[Environment]::SetEnvironmentVariable(\"NUGET_API_KEY\", \"{'o' + 'y2'}{r(43, LOWER)}\", \"User\")"))
    f.append(item("nuget config cleartext", "registry",
                  f"<packageSourceCredentials>\n  <corp>\n    <add key=\"Username\" value=\"ci\" />\n    <add key=\"ClearTextPassword\" value=\"{_pw(16)}\" />\n  </corp>\n</packageSourceCredentials>"))
    f.append(item("maven settings server", "registry",
                  f"~/.m2/settings.xml\n<server>\n  <id>nexus-releases</id>\n  <username>deploy</username>\n  <password>{_pw(16)}</password>\n</server>"))
    f.append(item("sbt credentials", "registry",
                  f"credentials += Credentials(\"Sonatype Nexus Repository Manager\", \"nexus.shopfront.internal\", \"deploy\", \"{_pw(14)}\")"))
    f.append(item("yarnrc yml", "registry",
                  f".yarnrc.yml\nnpmScopes:\n  shopfront:\n    npmRegistryServer: \"https://npm.shopfront.internal\"\n    npmAuthToken: \"{_uuid()}\""))
    f.append(item("cargo credentials", "registry", f"~/.cargo/credentials.toml\n[registry]\ntoken = \"{'ci' + 'o'}{r(32)}\""))
    f.append(item("hex api key", "registry", f"HEX_API_KEY={r(32, HEX)} mix hex.publish --yes"))
    f.append(item("conda channel token", "url", f".condarc\nchannels:\n  - https://conda.anaconda.org/t/{r(2, LOWER)}-{r(32)}/shopfront\n  - conda-forge"))
    f.append(item("goproxy credentials", "url", f"export GOPROXY=https://ci:{r(40, HEX)}@athens.shopfront.internal,direct"))
    f.append(item("maxmind geoip conf", "license", f"/etc/GeoIP.conf\nAccountID {_digits(6)}\nLicenseKey {r(6)}_{r(29)}_mmk\nEditionIDs GeoLite2-City"))
    f.append(item("fontawesome npmrc", "license",
                  f".npmrc\n@fortawesome:registry=https://npm.fontawesome.com/\n//npm.fontawesome.com/:_authToken={_uuid().upper()}"))
    f.append(item("sidekiq pro bundle", "license", f"bundle config --local gems.contribsys.com {r(8, HEX)}:{r(8, HEX)}"))
    # --- browser devtools, HTTP clients
    f.append(item("copy as curl cookies", "devtools",
                  f"curl 'https://app.shopfront.example/api/orders?page=2' \\\n  -H 'accept: application/json' \\\n"
                  f"  -H 'cookie: _ga=GA1.1.{_digits(9)}.{_digits(10)}; csrftoken={r(32)}; sessionid={r(32, LOWER)}' \\\n  -H 'referer: https://app.shopfront.example/orders'"))
    f.append(item("copy as fetch api key", "devtools",
                  f"fetch(\"https://api.partner.example/v2/catalog\", {{\n  \"headers\": {{\n    \"accept\": \"*/*\",\n    \"x-api-key\": \"{r(40)}\",\n    \"sec-fetch-mode\": \"cors\"\n  }},\n  \"method\": \"GET\"\n}});"))
    f.append(item("copy as powershell cookie", "devtools",
                  f"$session = New-Object Microsoft.PowerShell.Commands.WebRequestSession\n"
                  f"$session.Cookies.Add((New-Object System.Net.Cookie(\"JSESSIONID\", \"{r(32, HEXU)}\", \"/\", \"jira.shopfront.example\")))"))
    f.append(item("har auth header", "devtools",
                  f"from the HAR:\n\"headers\": [\n  {{\"name\": \":authority\", \"value\": \"api.shopfront.example\"}},\n  {{\"name\": \"authorization\", \"value\": \"Bearer {r(43, URL)}\"}}\n]"))
    f.append(item("har session cookie", "devtools",
                  f"\"cookies\": [\n  {{\"name\": \"__Secure-next-auth.session-token\", \"value\": \"{_jwe()}\", \"httpOnly\": true, \"secure\": true}}\n]"))
    f.append(item("postman collection apikey", "devtools",
                  f"\"auth\": {{\n  \"type\": \"apikey\",\n  \"apikey\": [\n    {{\"key\": \"value\", \"value\": \"{r(32)}\", \"type\": \"string\"}},\n    {{\"key\": \"key\", \"value\": \"X-API-KEY\", \"type\": \"string\"}}\n  ]\n}}"))
    f.append(item("bruno bru file", "devtools", f"get {{\n  url: https://api.shopfront.example/v1/me\n}}\n\nauth:bearer {{\n  token: {r(40)}\n}}"))
    f.append(item("vscode http file", "devtools", f"@host = https://api.shopfront.example\n@token = {r(48, URL)}\n\nGET {{{{host}}}}/v1/orders\nAuthorization: Bearer {{{{token}}}}"))
    f.append(item("httpie drf token", "cli", f"http POST api.shopfront.example/v1/jobs 'Authorization:Token {r(40, HEX)}' name=reindex"))
    # --- mobile
    f.append(item("fcm server key plist", "mobile",
                  f"<key>FCMServerKey</key>\n<string>{'AA' + 'AA'}{r(7, URL)}:{'APA' + '91b'}{r(134, URL)}</string>"))
    f.append(item("ossrh gradle properties", "mobile",
                  f"~/.gradle/gradle.properties\nsigning.keyId={r(8, HEXU)}\nsigning.password={_pw(14)}\nossrhUsername=shopdev\nossrhPassword={_pw(16)}"))
    f.append(item("fastlane match password", "mobile", f"fastlane/.env.default\nMATCH_PASSWORD={_pw(16)}\nFASTLANE_USER=ios@shopfront.example"))
    f.append(item("asc api key json", "mobile",
                  json.dumps({"key_id": r(10, UP), "issuer_id": _uuid(), "key": f"{D5}BEGIN {PK}{D5}\n" + wrap(b64(b"\x30\x81\x93\x02\x01\x00\x30\x13\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\x04\x79\x30\x77\x02\x01\x01\x04\x20" + _rand_bytes(32) + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04" + _rand_bytes(64))) + f"\n{D5}END {PK}{D5}", "in_house": False})))
    f.append(item("dart define", "mobile", f"flutter run --release --dart-define=BACKEND_API_SECRET={r(40)}"))
    f.append(item("xcconfig secret", "mobile", f"Config/Release.xcconfig\nAPI_BASE = https:/$()/api.shopfront.example\nAPI_SECRET = {r(40)}"))
    # --- game servers
    f.append(item("minecraft rcon", "game", f"server.properties\nenable-rcon=true\nrcon.port=25575\nrcon.password={r(16)}\nmotd=shopfront smp"))
    f.append(item("source rcon", "game", f"server.cfg\nhostname \"office frag night\"\nrcon_password \"{_pw(12)}\"\nsv_password \"\""))
    f.append(item("steam web api key url", "game",
                  f"https://api.steampowered.com/ISteamUser/GetPlayerSummaries/v2/?key={r(32, HEXU)}&steamids=7656119{_digits(10)}"))
    f.append(item("pterodactyl key", "game", f"PTERODACTYL_KEY={'ptl' + 'a_'}{r(43)}"))
    f.append(item("playfab secret header", "game", f"POST https://{r(5, UP)}.playfabapi.com/Server/GrantItemsToUsers\nX-SecretKey: {r(50, UP)}"))
    f.append(item("factorio server settings", "game",
                  f"server-settings.json\n\"username\": \"shopfront\",\n\"token\": \"{r(30, HEX)}\",\n\"game_password\": \"{r(10)}\""))
    f.append(item("teamspeak first run log", "log",
                  f"------------------------------------------------------------------\n                      I M P O R T A N T\n"
                  f"------------------------------------------------------------------\n               Server Query Admin Account created\n"
                  f"         loginname= \"serveradmin\", password= \"{r(8)}\"\n"
                  f"         apikey= \"{r(40, URL)}\"\n------------------------------------------------------------------\n"
                  f"      ServerAdmin privilege key created, please use it to gain\n      serveradmin rights for your virtualserver.\n"
                  f"         token={r(40)}"))
    # --- webhook URLs
    f.append(item("discord webhook", "webhook", f"alerts go to https://discord.com/api/webhooks/{_digits(19)}/{r(68, URL)}"))
    f.append(item("teams webhook", "webhook",
                  f"https://shopfront.webhook.office.com/webhookb2/{_uuid()}@{_uuid()}/IncomingWebhook/{r(32, HEX)}/{_uuid()}/V2{r(43, URL)}"))
    f.append(item("google chat webhook", "webhook",
                  f"https://chat.googleapis.com/v1/spaces/AAAA{r(7, URL)}/messages?key={'AI' + 'za'}Sy{r(33, URL)}&token={r(43, URL)}%3D"))
    f.append(item("telegram bot url", "webhook",
                  f"requests.post(f\"https://api.telegram.org/bot{_digits(10)}:AA{r(33, URL)}/sendMessage\", json={{\"chat_id\": CHAT, \"text\": msg}})"))
    f.append(item("mattermost webhook", "webhook", f"MATTERMOST_HOOK=https://chat.shopfront.example/hooks/{r(26, LOWER)}"))
    # --- logs and stack traces that echo a credential
    f.append(item("python traceback create engine", "log",
                  f"Traceback (most recent call last):\n  File \"/srv/app/db.py\", line 12, in <module>\n"
                  f"    engine = create_engine(\"postgresql+psycopg://app:{r(18)}@db.internal:5432/app\")\n"
                  f"sqlalchemy.exc.OperationalError: (psycopg.OperationalError) connection timeout expired"))
    f.append(item("java sqlexception", "log",
                  f"Caused by: java.sql.SQLException: Cannot create PoolableConnectionFactory (url=jdbc:mysql://db:3306/shop?user=shop&password={r(16)}&useSSL=true)\n"
                  f"\tat org.apache.commons.dbcp2.BasicDataSource.createPoolableConnectionFactory(BasicDataSource.java:669)"))
    f.append(item("docker inspect env", "log",
                  f"$ docker inspect pg | jq '.[0].Config.Env'\n[\n  \"POSTGRES_USER=shop\",\n  \"POSTGRES_PASSWORD={r(24)}\",\n  \"PATH=/usr/local/sbin:/usr/local/bin\"\n]"))
    f.append(item("spring actuator env", "log",
                  f"GET /actuator/env\n\"spring.datasource.password\": {{\n  \"value\": \"{_pw(16)}\",\n  \"origin\": \"class path resource [application-prod.yml] - 7:15\"\n}}"))
    f.append(item("terraform plan output", "log",
                  f"  # aws_db_instance.main will be created\n  + resource \"aws_db_instance\" \"main\" {{\n      + username = \"shopadmin\"\n      + password = \"{_pw(18)}\"\n    }}"))
    f.append(item("nginx access log token", "log",
                  f"10.0.4.2 - - [03/Dec/2026:09:14:22 +0000] \"GET /api/export.csv?access_token={r(40, URL)} HTTP/1.1\" 200 48213 \"-\" \"curl/8.5.0\""))
    f.append(item("node redis error", "log",
                  f"Error: connect ETIMEDOUT\n    at RedisSocket._createReconnectStrategy (node_modules/@redis/client/dist/lib/client/socket.js:97:20)\n"
                  f"  options: {{ url: 'rediss://default:{r(32)}@eu1-sacred-owl-{_digits(5)}.upstash.io:6379' }}"))
    f.append(item("zsh history", "shell", f"~/.zsh_history\n: {_digits(10)}:0;export HCLOUD_TOKEN={r(64)}\n: {_digits(10)}:0;hcloud server list"))
    # --- code in many languages
    f.append(item("go webhook secret", "code", f"var webhookSecret = []byte(\"{r(32)}\")\n\nfunc verify(sig string, body []byte) bool {{ return hmacOK(webhookSecret, sig, body) }}"))
    f.append(item("rust bearer auth", "code", f"let resp = client\n    .get(\"https://api.partner.example/v1/stock\")\n    .bearer_auth(\"{r(40)}\")\n    .send()\n    .await?;"))
    f.append(item("java constant", "code", f"public final class PartnerApi {{\n    private static final String CLIENT_SECRET = \"{r(40)}\";\n}}"))
    f.append(item("csharp network credential", "code", f"var cred = new NetworkCredential(\"svc_report\", \"{_pw(14)}\", \"CORP\");"))
    f.append(item("ktor basic auth", "code", f"install(Auth) {{\n    basic {{\n        credentials {{ BasicAuthCredentials(username = \"admin\", password = \"{_pw(14)}\") }}\n    }}\n}}"))
    f.append(item("swift auth header", "code", f"request.setValue(\"Bearer {r(40)}\", forHTTPHeaderField: \"Authorization\")"))
    f.append(item("wp config", "code",
                  f"define( 'DB_NAME', 'shop' );\ndefine( 'DB_USER', 'shop' );\ndefine( 'DB_PASSWORD', '{_pw(16)}' );\n"
                  f"define( 'AUTH_KEY',         '{r(64, ALNUM + '!#%&*+-=?@^_')}' );"))
    f.append(item("ruby aws credentials", "code",
                  f"creds = Aws::Credentials.new('{'AK' + 'IA'}{r(16, UP)}', '{r(40, B64)}')\ns3 = Aws::S3::Client.new(region: 'eu-west-1', credentials: creds)"))
    f.append(item("phoenix secret key base", "code",
                  f"config :shop, ShopWeb.Endpoint,\n  url: [host: \"shopfront.example\"],\n  secret_key_base: \"{r(64, B64)}\""))
    f.append(item("perl dbi", "code", f"my $dbh = DBI->connect(\"dbi:Pg:dbname=ledger;host=db.internal\", \"ledger\", \"{_pw(14)}\", {{ RaiseError => 1 }});"))
    f.append(item("r httr authenticate", "code", f"res <- GET(\"https://api.shopfront.example/report\", authenticate(\"svc\", \"{_pw(14)}\"))"))
    f.append(item("sql create user", "sql", f"CREATE USER reporting WITH PASSWORD '{_pw(16)}';\nGRANT pg_read_all_data TO reporting;"))
    f.append(item("mysql identified by", "sql", f"CREATE USER 'etl'@'%' IDENTIFIED BY '{_pw(16)}';\nGRANT SELECT ON shop.* TO 'etl'@'%';"))
    f.append(item("mssql create login", "sql", f"CREATE LOGIN etl WITH PASSWORD = '{_pw(16)}', CHECK_POLICY = ON;"))
    f.append(item("clojure edn", "config", f"resources/config.edn\n{{:db {{:dbtype \"postgresql\" :host \"db.internal\" :user \"app\" :password \"{_pw(14)}\"}}}}"))
    f.append(item("neovim lua key", "code",
                  f"require(\"gp\").setup({{\n  openai_api_key = \"{'sk' + '-proj-'}{r(48, URL)}T3BlbkFJ{r(48, URL)}\",\n}})"))
    # --- key material
    f.append(item("wireguard interface", "keymat", f"/etc/wireguard/wg0.conf\n[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {_wg()}\nDNS = 1.1.1.1"))
    f.append(item("nats creds file", "keymat",
                  f"{D5}BEGIN NATS USER JWT{D5}\n{_jwt({'jti': r(52, B32), 'iat': 1764750000, 'iss': 'A' + r(55, B32), 'name': 'deploy', 'sub': 'U' + r(55, B32), 'nats': {'pub': {}, 'sub': {}, 'type': 'user', 'version': 2}}, alg='ed25519-nkey', sig_bytes=64)}\n------END NATS USER JWT------\n\n"
                  f"************************* IMPORTANT *************************\nNKEY Seed printed below can be used to sign and prove identity.\n\n"
                  f"{D5}BEGIN USER NKEY SEED{D5}\n{'S' + 'UA'}{r(55, B32)}\n------END USER NKEY SEED------"))
    f.append(item("minisign secret key", "keymat",
                  f"~/.minisign/minisign.key\nuntrusted comment: minisign encrypted secret key\n{b64(b'EdScB2' + _rand_bytes(152))}"))
    f.append(item("signify secret key", "keymat",
                  f"release.sec\nuntrusted comment: signify secret key\n{b64(b'EdBK' + bytes(3) + bytes([42]) + _rand_bytes(96))}"))
    f.append(item("nostr nsec", "keymat", f"my nostr bot's key: {'nse' + 'c1'}{r(58, BECH32)}"))
    f.append(item("cardano skey", "keymat",
                  json.dumps({"type": "PaymentSigningKeyShelley_ed25519", "description": "Payment Signing Key", "cborHex": "5820" + r(64, HEX)}, indent=4)))
    f.append(item("bitcoin wif", "keymat", f"electrum export for the cold-storage test wallet\naddress: bc1q{r(38, BECH32)}\nwif: p2wpkh:K{r(51, B58)}"))
    f.append(item("hardhat deployer key", "keymat", f"hardhat .env\nSEPOLIA_RPC_URL=https://eth-sepolia.g.alchemy.com/v2/demo\nDEPLOYER_PRIVATE_KEY=0x{r(64, HEX)}"))
    f.append(item("jwk private ec", "keymat",
                  json.dumps({"kty": "EC", "crv": "P-256", "kid": "sig-2026", "x": b64url(_rand_bytes(32)), "y": b64url(_rand_bytes(32)), "d": b64url(_rand_bytes(32))})))
    f.append(item("jwk oct key", "keymat", f"JWT_SIGNING_JWK='{json.dumps({'kty': 'oct', 'kid': 'hs-1', 'alg': 'HS256', 'k': b64url(_rand_bytes(32))})}'"))
    f.append(item("traefik acme json", "keymat",
                  json.dumps({"le": {"Account": {"Email": "ops@shopfront.example", "PrivateKey": b64(_ec_sec1()), "KeyType": "4096"},
                              "Certificates": [{"domain": {"main": "shop.shopfront.example"},
                                                "key": b64(_block("EC " + PK, wrap(b64(_ec_sec1()))) + "\n"), "Store": "default"}]}}, indent=1)))
    f.append(item("keytab base64", "keymat",
                  "KRB5_KEYTAB_B64=" + b64(b'\x05\x02\x00\x00\x00\x4b\x00\x01\x00\x0eSHOPFRONT.EXAMPLE\x00\x08svc_etl' + _rand_bytes(50))))
    f.append(item("openssh body without armor", "keymat", f"the deploy key (copied without the header lines, sorry):\n{_openssh_body()}"))
    f.append(item("tor hs secret key", "keymat",
                  f"hs_ed25519_secret_key (base64 for the ansible vars):\n{b64(b'== ed25519v1-secret: type0 ==' + bytes(3) + _rand_bytes(64))}"))
    # --- prose in other languages
    pr = [
        ("japanese", "本番DBのパスワードは {} です。"),
        ("turkish", "Sunucunun root şifresi: {}"),
        ("portuguese", "A senha do admin do WordPress é {}"),
        ("arabic", "كلمة المرور لحساب الخادم هي {}"),
        ("indonesian", "Kata sandi wifi kantor: {}"),
        ("swahili", "Nenosiri la seva ya majaribio ni {}"),
        ("spanish", "la contraseña del usuario deploy es {}"),
        ("german", "Das Passwort für den Staging-Server lautet {}"),
        ("russian", "пароль от админки: {}"),
        ("chinese", "测试服务器的root密码是{}"),
        ("korean", "관리자 비밀번호는 {} 입니다"),
        ("thai", "รหัสผ่านเราเตอร์คือ {}"),
        ("czech", "heslo k databázi je {}"),
        ("swedish", "lösenordet till routern är {}"),
    ]
    for lang, t in pr:
        f.append(item(f"prose {lang}", "prose", t.format(_pw(12))))
    f.append(item("prose japanese api key", "prose", f"OpenWeatherのAPIキーは {r(32, HEX)} です"))
    # --- chat
    f.append(item("slack export json", "chat",
                  json.dumps([{"type": "message", "user": "U04" + r(8, UP), "text": f"prod db pass is {_pw(14)} - don't share", "ts": f"{_digits(10)}.{r(6, DIG)}"}], indent=1)))
    f.append(item("whatsapp export", "chat", f"[03/12/26, 09:14:22] Ana: senha do wifi do escritório: {_pw(12)}\n[03/12/26, 09:15:01] Rui: valeu"))
    f.append(item("discord copy", "chat", f"marco — Today at 9:14 AM\nhere's the bot token, rotate after the jam: {r(24, URL)}.{r(6, URL)}.{r(38, URL)}"))
    f.append(item("teams transcript", "chat", f"[9:14 AM] Kim, Lee\nvpn login for the contractor: user ext_jdoe / pass {_pw(12)}\n[9:15 AM] Park, Min\nthx"))
    f.append(item("quoted email temp password", "chat",
                  f"On Tue, Dec 2, 2026 IT Helpdesk wrote:\n> Your account has been created.\n> Username: jdoe\n> Temporary password: {_pw(12)}\n> You will be asked to change it at first login."))
    # --- split and tables
    f.append(item("split user then password line", "split", f"sftp to the printer vendor\nuser: shopfront_upload\n{_pw(16)}"))
    f.append(item("split mailjet", "split", f"api: {r(32, HEX)}\nsecret: {r(32, HEX)}", description="Mailjet credentials for the newsletter"))
    f.append(item("markdown server table", "table",
                  f"| host | user | password |\n|---|---|---|\n| web1 | deploy | {_pw(12)} |\n| db1 | postgres | {_pw(12)} |"))
    f.append(item("tsv sheet", "table", f"service\taccount\tsecret\nmailgun\tpostmaster@mg.shopfront.example\t{r(32, HEX)}-{r(8, HEX)}-{r(8, HEX)}"))
    # --- encodings
    dcj = json.dumps({"auths": {"registry.shopfront.internal": {"auth": b64(f"ci:{_pw(16)}")}}})
    f.append(item("dockerconfigjson secret", "encoded",
                  f"apiVersion: v1\nkind: Secret\ntype: kubernetes.io/dockerconfigjson\ndata:\n  .dockerconfigjson: {b64(dcj)}"))
    env = f"DB_PASSWORD={_pw(16)}\nSTRIPE_KEY={'sk' + '_live_'}{r(24)}\n".encode()
    f.append(item("gzip base64 env", "encoded", f"restore the env on the new box:\necho {b64(gzip.compress(env, mtime=0))} | base64 -d | gunzip > .env"))
    return f


def look_alikes() -> list[dict]:
    """The same shapes and places, holding nothing secret."""
    a = []
    a.append(item("wireguard peer", "keymat",
                  f"add the laptop on the server:\n[Peer]\nPublicKey = {_wg()}\nAllowedIPs = 10.8.0.3/32\nEndpoint = 203.0.113.7:51820"))
    a.append(item("jwks public", "keymat",
                  json.dumps({"keys": [{"kty": "RSA", "use": "sig", "kid": r(16, HEX), "alg": "RS256", "n": b64url(_rand_bytes(256)), "e": "AQAB"}]})))
    a.append(item("mapbox public token", "mobile",
                  f"mapboxgl.accessToken = '{'p' + 'k.'}eyJ1Ijoic2hvcGZyb250IiwiYSI6ImNs{r(24)}.{r(22, URL)}';"))
    a.append(item("firebase web config", "mobile",
                  f"const firebaseConfig = {{\n  apiKey: \"{'AI' + 'za'}Sy{r(33, URL)}\",\n  authDomain: \"shopfront-app.firebaseapp.com\",\n  projectId: \"shopfront-app\",\n  appId: \"1:{_digits(12)}:web:{r(22, HEX)}\"\n}};"))
    a.append(item("algolia search only", "code",
                  f"// search-only key: public by design, restricted to the products index\nconst client = algoliasearch('{r(10, UP)}', '{r(32, HEX)}');"))
    a.append(item("statsig client key", "code", f"await Statsig.initialize('client-{r(43)}', {{ userID: user.id }});"))
    a.append(item("sentry dsn", "code", f"Sentry.init({{\n  dsn: \"https://{r(32, HEX)}@o{_digits(6)}.ingest.de.sentry.io/{_digits(16)}\",\n  tracesSampleRate: 0.1,\n}});"))
    a.append(item("admob app id plist", "mobile", f"<key>GADApplicationIdentifier</key>\n<string>ca-app-pub-{_digits(16)}~{_digits(10)}</string>"))
    a.append(item("minisign public key", "keymat", f"verify the release:\nminisign -Vm shop-cli-2.4.1.tar.gz -P {b64(b'Ed' + _rand_bytes(40))}"))
    a.append(item("nostr npub", "keymat", f"follow the project on nostr: {'npu' + 'b1'}{r(58, BECH32)}"))
    a.append(item("pgp public block", "keymat", _block("PGP PUBLIC KEY BLOCK", "\n" + wrap(b64(b"\x99\x01\x0d\x04" + _rand_bytes(260))) + "\n=" + r(4, B64))))
    a.append(item("authorized keys", "keymat",
                  "~/.ssh/authorized_keys\nfrom=\"10.0.0.0/8\",no-agent-forwarding ssh-ed25519 " + b64(b'\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 ' + _rand_bytes(32)) + " ci@shopfront"))
    a.append(item("csr block", "keymat", _block("CERTIFICATE REQUEST", wrap(b64(b"\x30\x82\x02\x9a\x30\x82\x01\x82\x02\x01\x00" + _rand_bytes(400))))))
    a.append(item("pulumi secure config", "iac",
                  f"Pulumi.prod.yaml\nencryptionsalt: v1:{r(12, B64)}=:v1:{r(16, B64)}:{r(32, B64)}==\nconfig:\n  shop:dbPassword:\n    secure: v1:{r(16, B64)}:{r(60, B64)}"))
    a.append(item("hiera eyaml", "iac", f"profile::mysql::root_password: >\n    ENC[PKCS7,MIIBiQYJKoZIhvcNAQcDoIIBejCCAXYCAQAxggEhMIIBHQIBADAFMAACAQEw{r(300, B64)}]"))
    a.append(item("sops file", "iac",
                  f"db:\n    password: ENC[AES256_GCM,data:{r(24, B64)},iv:{r(43, B64)}=,tag:{r(22, B64)}==,type:str]\n"
                  f"sops:\n    age:\n        - recipient: {'ag' + 'e1'}{r(58, BECH32)}\n    mac: ENC[AES256_GCM,data:{r(88, B64)},iv:{r(43, B64)}=,tag:{r(22, B64)}==,type:str]"))
    a.append(item("travis secure", "ci", f".travis.yml\nenv:\n  global:\n    - secure: \"{r(340, B64)}=\""))
    a.append(item("compose image digest", "config", f"services:\n  web:\n    image: nginx@sha256:{r(64, HEX)}\n  db:\n    image: postgres:17@sha256:{r(64, HEX)}"))
    a.append(item("package lock integrity", "config",
                  f"\"node_modules/left-pad\": {{\n  \"version\": \"1.3.0\",\n  \"resolved\": \"https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz\",\n  \"integrity\": \"sha512-{r(86, B64)}==\"\n}}"))
    a.append(item("go sum", "config",
                  f"github.com/google/uuid v1.6.0 h1:{r(43, B64)}=\ngithub.com/google/uuid v1.6.0/go.mod h1:{r(43, B64)}="))
    a.append(item("cargo lock", "config", f"[[package]]\nname = \"serde\"\nversion = \"1.0.215\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"{r(64, HEX)}\""))
    a.append(item("nix fetch", "iac",
                  f"src = fetchFromGitHub {{\n  owner = \"shopfront\";\n  repo = \"cli\";\n  rev = \"{r(40, HEX)}\";\n  hash = \"sha256-{r(43, B64)}=\";\n}};"))
    a.append(item("terraform lock hcl", "iac",
                  f"provider \"registry.terraform.io/hashicorp/aws\" {{\n  version = \"5.80.0\"\n  hashes = [\n    \"h1:{r(43, B64)}=\",\n    \"zh:{r(64, HEX)}\",\n    \"zh:{r(64, HEX)}\",\n  ]\n}}"))
    a.append(item("sri script", "code", f"<script src=\"https://cdn.jsdelivr.net/npm/htmx.org@2.0.4\" integrity=\"sha384-{r(64, B64)}\" crossorigin=\"anonymous\"></script>"))
    a.append(item("git log gerrit", "git",
                  f"commit {r(40, HEX)}\nAuthor: Ana <ana@shopfront.example>\n\n    Fix token refresh race\n\n    Change-Id: I{r(40, HEX)}"))
    a.append(item("sentry event ids", "log", f"Sentry: Event ID {r(32, HEX)}\ntrace_id={r(32, HEX)} span_id={r(16, HEX)}"))
    a.append(item("har response headers", "devtools",
                  f"\"headers\": [\n  {{\"name\": \"x-request-id\", \"value\": \"{_uuid()}\"}},\n  {{\"name\": \"cf-ray\", \"value\": \"{r(16, HEX)}-FRA\"}},\n"
                  f"  {{\"name\": \"etag\", \"value\": \"W/\\\"{r(27, URL)}\\\"\"}},\n  {{\"name\": \"x-amz-cf-id\", \"value\": \"{r(54, URL)}==\"}}\n]"))
    a.append(item("arns", "cloud",
                  f"role: arn:aws:iam::{_digits(12)}:role/shop-deploy\nkms: arn:aws:kms:eu-west-1:{_digits(12)}:key/{_uuid()}\nsecret: arn:aws:secretsmanager:eu-west-1:{_digits(12)}:secret:prod/db-{r(6)}"))
    a.append(item("az account show", "cloud",
                  json.dumps({"environmentName": "AzureCloud", "id": _uuid(), "isDefault": True, "name": "Shopfront Prod", "state": "Enabled", "tenantId": _uuid(),
                              "user": {"name": "ops@shopfront.example", "type": "user"}}, indent=2)))
    a.append(item("kubectl pod yaml", "kube",
                  f"metadata:\n  name: api-7d9f8c6b5-x2k4q\n  uid: {_uuid()}\n  resourceVersion: \"{_digits(8)}\"\nstatus:\n  containerStatuses:\n  - imageID: docker.io/shopfront/api@sha256:{r(64, HEX)}\n    containerID: containerd://{r(64, HEX)}"))
    a.append(item("ssh host fingerprint", "keymat",
                  f"The authenticity of host 'web1 (203.0.113.7)' can't be established.\nED25519 key fingerprint is SHA256:{r(43, B64)}.\nAre you sure you want to continue connecting (yes/no/[fingerprint])?"))
    a.append(item("gpg list keys", "keymat", f"pub   ed25519 2025-03-01 [SC] [expires: 2027-03-01]\n      {r(40, HEXU)}\nuid           [ultimate] Ana <ana@shopfront.example>\nsub   cv25519 2025-03-01 [E]"))
    a.append(item("eth tx hash", "keymat",
                  f"deployed the contract: tx 0x{r(64, HEX)} (block {_digits(8)}), contract address 0x{r(40, HEX)}"))
    a.append(item("bitcoin txid", "keymat", f"payout sent, txid {r(64, HEX)} (3 confirmations)"))
    a.append(item("env example placeholders", "env",
                  "copy .env.example to .env and fill in:\nOPENAI_API_KEY=sk-...your-key-here\nDATABASE_URL=postgres://USER:PASSWORD@HOST:5432/DB\nSTRIPE_SECRET_KEY=<paste from dashboard>\nSESSION_SECRET=change-me"))
    a.append(item("ci secret references", "ci",
                  "bitbucket-pipelines.yml\n        - pipe: atlassian/sftp-deploy:0.10.0\n          variables:\n            USER: $SFTP_USER\n            PASSWORD: $SFTP_PASSWORD\n"
                  "# GitHub: password: ${{ secrets.REGISTRY_PASSWORD }}\n# CircleCI: context: shop-prod"))
    a.append(item("helm existing secret", "kube",
                  "auth:\n  existingSecret: pg-credentials\n  secretKeys:\n    adminPasswordKey: postgres-password\nenv:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef: {name: pg-credentials, key: password}"))
    a.append(item("terraform sensitive var", "iac",
                  "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}\n\nresource \"aws_db_instance\" \"main\" {\n  password = var.db_password\n}"))
    a.append(item("compose secrets file", "config",
                  "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n    secrets: [db_password]\nsecrets:\n  db_password:\n    file: ./secrets/db_password.txt"))
    a.append(item("rfc basic example", "header", "RFC 7617's example: user \"Aladdin\", password \"open sesame\" gives\nAuthorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="))
    a.append(item("aws docs example keys", "cloud",
                  f"the AWS docs use these in every example:\naws_access_key_id = {'AK' + 'IA'}IOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
    a.append(item("readme postgres url", "connstr", "README: set DATABASE_URL, e.g. postgres://user:password@localhost:5432/mydb"))
    a.append(item("local compose default", "config",
                  "docker-compose.dev.yml (local only, throwaway default from the postgres image docs):\n  db:\n    image: postgres:17\n    environment:\n      POSTGRES_PASSWORD: postgres"))
    a.append(item("github webhook delivery", "header",
                  f"X-GitHub-Event: push\nX-GitHub-Delivery: {_uuid()}\nX-Hub-Signature-256: sha256={r(64, HEX)}"))
    a.append(item("bcrypt in sql fixture", "sql",
                  f"INSERT INTO users (email, password_hash) VALUES ('test@shopfront.example', '$2b$12${r(53, ALNUM + './')}');"))
    a.append(item("shadow yescrypt", "config", f"/etc/shadow\ndeploy:$y$j9T${r(22, ALNUM + './')}${r(43, ALNUM + './')}:20055:0:99999:7:::"))
    a.append(item("mysql native hash", "sql", f"SELECT user, authentication_string FROM mysql.user;\n| etl | *{r(40, HEXU)} |"))
    a.append(item("cisco secret 9", "config", f"enable secret 9 $9${r(14, ALNUM + './')}${r(43, ALNUM + './')}\nusername netops privilege 15 secret 9 $9${r(14, ALNUM + './')}${r(43, ALNUM + './')}"))
    a.append(item("tls fingerprint", "keymat", "SHA256 Fingerprint=" + ":".join(r(2, HEXU) for _ in range(32))))
    a.append(item("wrangler ids", "config", f"wrangler.toml\nname = \"shop-edge\"\naccount_id = \"{r(32, HEX)}\"\n\n[[routes]]\npattern = \"shop.example/*\"\nzone_id = \"{r(32, HEX)}\""))
    a.append(item("vercel project json", "config", json.dumps({"projectId": "prj_" + r(28), "orgId": "team_" + r(24)})))
    a.append(item("salesforce record ids", "table", f"| Id | Name |\n|---|---|\n| 001{r(15)} | Acme GmbH |\n| 006{r(15)} | Renewal 2027 |\norg id 00D{r(15)}"))
    a.append(item("docker ps ids", "log", f"CONTAINER ID   IMAGE          STATUS\n{r(12, HEX)}   shop/api:2.4   Up 3 hours\nfull id: {r(64, HEX)}"))
    a.append(item("git lfs pointer", "git", f"version https://git-lfs.github.com/spec/v1\noid sha256:{r(64, HEX)}\nsize {_digits(7)}"))
    a.append(item("ipfs cid", "url", f"docs mirror: https://ipfs.io/ipfs/bafybei{r(52, 'abcdefghijklmnopqrstuvwxyz234567')}"))
    a.append(item("build id crash", "log",
                  f"#0  0x00007f{r(10, HEX)} in __pthread_kill_implementation () from /lib/x86_64-linux-gnu/libc.so.6\nBuild ID: {r(40, HEX)}"))
    a.append(item("prose where it lives", "prose",
                  "A senha do banco está no Bitwarden, coleção Infra.\n本番DBのパスワードは1Passwordの「Infra」保管庫にあります。\nŞifre Vault'ta: secret/data/prod/db"))
    a.append(item("masked log values", "log",
                  "2026-12-03T09:14:22Z INFO connecting user=app password=******** host=db.internal\nAuthorization: Bearer ***\ntoken=[REDACTED]"))
    a.append(item("decoded jwt payload", "jwt",
                  json.dumps({"sub": _uuid(), "iss": "https://auth.shopfront.example", "aud": "shop-api", "exp": 1764753600, "iat": 1764750000, "scope": "orders:read"}, indent=2)))
    a.append(item("factorio map string", "game", f">>>eNp{r(200, B64)}<<<"))
    a.append(item("minecraft world seed", "game", f"server.properties\nlevel-seed=-{_digits(18)}\nenable-rcon=false\nrcon.password=\nmotd=shopfront smp"))
    a.append(item("windows kms client key", "license",
                  "KMS client setup key published by Microsoft for Windows 11 Pro (GVLK): W269N-WFGWX-YVC9B-4J6C9-T83GX"))
    a.append(item("used totp code", "chat", "[9:14 AM] Kim: the 2FA code was 482913 and it worked, thanks"))
    a.append(item("chat token handoff", "chat", "bob  09:12\ncan you send me the staging token?\nalice  09:13\nsent via a 1Password share, check your inbox"))
    a.append(item("postman variables", "devtools", "\"auth\": {\"type\": \"apikey\", \"apikey\": [{\"key\": \"value\", \"value\": \"{{apiKey}}\"}, {\"key\": \"key\", \"value\": \"X-API-KEY\"}]}"))
    a.append(item("slack export no secret", "chat",
                  json.dumps([{"type": "message", "user": "U04" + r(8, UP), "text": "rotated the db password, it's in Vault now", "ts": f"{_digits(10)}.{r(6, DIG)}",
                               "client_msg_id": _uuid(), "channel": "C0" + r(9, UP)}], indent=1)))
    return a


FORMS = forms()
LOOK_ALIKES = look_alikes()
