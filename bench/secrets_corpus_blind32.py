"""A blind corpus of credentials as they appear in what an agent would try to remember from real
coding sessions and chats: shell history, curl/wget/httpie commands, compose and Kubernetes
manifests, CI YAML, dotfiles (.npmrc, .pypirc, .netrc, .pgpass, ...), connection URLs, presigned
URLs, cookies, TOTP seeds, private keys of every framing, less common vendor tokens, passwords in
prose in several languages, credentials split over two fields, and keys in JSON/TOML/INI/XML.
Written before its author read the detector's code or the earlier corpora (branch blind32).

``FORMS`` must each be refused; ``LOOK_ALIKES`` (ids, digests, public keys, placeholders, docs
about passwords) must each be stored. Each item is a dict with ``name``, ``key``, ``description``
and ``body``. The random parts come from a seeded generator, so the corpus is the same every run.
"""

from __future__ import annotations

import base64
import json
import random
import string

_R = random.Random(20261206)
_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"
_B64URL = _ALNUM + "-_"
_HEX = "0123456789abcdef"
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
_BECH = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def _pick(alphabet: str, n: int) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    return _pick(_HEX, n)


def _an(n: int) -> str:
    return _pick(_ALNUM, n)


def _b64url(n: int) -> str:
    return _pick(_B64URL, n)


def _pw(n: int = 14) -> str:
    """A person-made password: letters, digits and one or two marks."""
    return _pick(_ALNUM, n - 2) + _R.choice("!#$%&*?@") + _R.choice(string.digits)


def _b64bytes(n: int) -> str:
    return base64.b64encode(bytes(_R.randrange(256) for _ in range(n))).decode()


def _pem_body(nbytes: int) -> str:
    text = _b64bytes(nbytes)
    return "\n".join(text[i : i + 64] for i in range(0, len(text), 64))


def _jwt(payload: dict) -> str:
    def enc(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")

    return enc({"alg": "HS256", "typ": "JWT"}) + "." + enc(payload) + "." + _b64url(43)


def _uuid() -> str:
    h = _hex(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _item(name: str, body: str, description: str = "", key: str = "") -> dict:
    return {
        "name": name,
        "key": key or name.replace("_", "-"),
        "description": description or f"notes from the session ({name.replace('_', ' ')})",
        "body": body,
    }


def _forms() -> list[dict]:
    f: list[dict] = []
    add = f.append

    # --- shell history and HTTP clients
    add(_item("curl_basic_u", f"$ curl -sS -u deploy:{_pw()} https://ci.internal.example/api/v1/jobs | jq ."))
    add(
        _item(
            "curl_bearer_header",
            f"curl -H 'Authorization: Bearer {_an(40)}' https://api.tooling.dev/v2/projects",
        )
    )
    add(
        _item(
            "wget_access_token",
            f'wget -qO- "https://graph.example-social.com/v19.0/me/feed?access_token={_an(48)}"',
        )
    )
    add(
        _item(
            "httpie_api_key", f"http POST https://hooks.partner.io/v1/events X-API-Key:{_an(36)} kind=deploy"
        )
    )
    add(
        _item(
            "shell_export_aws_secret",
            f"export AWS_ACCESS_KEY_ID=AKIA{_pick(_B32[:26] + '234567', 16)}\nexport AWS_SECRET_ACCESS_KEY={_pick(_B64, 40)}",
        )
    )
    add(_item("mysql_dash_p", f"mysql -h db-replica-2 -u root -p{_pw(12)} analytics < fix_orders.sql"))
    add(
        _item(
            "pgpassword_env",
            f"PGPASSWORD='{_pw()}' psql -h 10.0.4.12 -U reporting -d warehouse -c 'select 1'",
        )
    )
    add(_item("sshpass_p", f"sshpass -p '{_pw(12)}' ssh -o StrictHostKeyChecking=no pi@192.168.1.40"))
    add(_item("docker_login_p", f"docker login -u ci-bot -p {_an(32)} registry.gitlab.example.com"))
    add(
        _item(
            "git_clone_userinfo",
            f"git clone https://build-bot:{_an(30)}@git.corp.example.net/platform/infra.git",
        )
    )
    add(_item("redis_cli_a", f"redis-cli -h cache-01 -p 6380 -a '{_pw(20)}' --no-auth-warning INFO keyspace"))
    basic = base64.b64encode(f"svc-metrics:{_pw(16)}".encode()).decode()
    add(
        _item(
            "curl_basic_header",
            f'curl https://metrics.example.org/api/push -H "Authorization: Basic {basic}" -d @payload.json',
        )
    )
    add(_item("history_token_arg", f"  512  ./deploy.sh --env prod --token {_b64url(44)}\n  513  git status"))

    # --- compose and Kubernetes
    add(
        _item(
            "compose_env_password",
            f"services:\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: {_pw(18)}\n",
        )
    )
    pw_b64 = base64.b64encode(_pw(20).encode()).decode()
    user_b64 = base64.b64encode(b"admin").decode()
    add(
        _item(
            "k8s_secret_data_b64",
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n  username: {user_b64}\n  password: {pw_b64}\n",
        )
    )
    add(
        _item(
            "k8s_env_value",
            f'        env:\n          - name: PAYMENTS_API_TOKEN\n            value: "{_an(40)}"\n',
        )
    )
    add(
        _item(
            "k8s_stringdata",
            f"kind: Secret\nstringData:\n  client-secret: {_b64url(34)}\n  client-id: web-frontend\n",
        )
    )

    # --- CI YAML
    add(
        _item(
            "gha_env_literal",
            f"jobs:\n  scan:\n    runs-on: ubuntu-latest\n    env:\n      SONAR_TOKEN: squ_{_hex(40)}\n    steps:\n      - uses: actions/checkout@v4\n",
        )
    )
    add(
        _item(
            "gitlab_ci_variable",
            f'variables:\n  DEPLOY_USER: deployer\n  DEPLOY_PASSWORD: "{_pw(16)}"\nstages: [build, deploy]\n',
        )
    )
    add(
        _item(
            "gha_with_password",
            f"      - uses: docker/login-action@v3\n        with:\n          username: octo-ci\n          password: {_an(36)}\n",
        )
    )

    # --- dotfiles
    add(
        _item(
            "npmrc_authtoken",
            f"//registry.npmjs.org/:_authToken={_uuid()}\n@corp:registry=https://npm.corp.example/\n",
        )
    )
    add(
        _item(
            "npmrc_auth_b64",
            f"registry=https://nexus.example.com/repository/npm/\n_auth={base64.b64encode(f'jenkins:{_pw()}'.encode()).decode()}\nalways-auth=true\n",
        )
    )
    add(
        _item(
            "pypirc_token",
            f"[pypi]\n  username = __token__\n  password = pypi-AgEIcHlwaS5vcmc{_b64url(120)}\n",
        )
    )
    add(
        _item(
            "pip_conf_index_url",
            f"[global]\nindex-url = https://ci:{_pw()}@artifacts.example.com/api/pypi/simple\n",
        )
    )
    gitcfg_b64 = base64.b64encode(f"x-access-token:{_an(36)}".encode()).decode()
    add(
        _item(
            "gitconfig_extraheader",
            f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {gitcfg_b64}\n',
        )
    )
    add(_item("git_credentials_line", f"https://marta:{_an(40)}@bitbucket.org\n"))
    add(
        _item(
            "netrc_machine",
            f"machine api.example-paas.com\n  login marta@example.com\n  password {_uuid()}\n",
        )
    )
    add(_item("pgpass_line", f"db.prod.internal:5432:billing:billing_rw:{_pw(18)}\n"))
    add(_item("my_cnf", f"[client]\nuser=backup\npassword={_pw(15)}\nhost=127.0.0.1\n"))
    add(
        _item(
            "s3cfg",
            f"[default]\naccess_key = {_pick(string.ascii_uppercase + string.digits, 20)}\nsecret_key = {_pick(_B64, 40)}\nhost_base = s3.eu-central-1.wasabisys.com\n",
        )
    )
    add(
        _item(
            "rclone_conf",
            f"[b2remote]\ntype = b2\naccount = {_hex(12)}\nkey = K00{_an(28)}\n\n[crypt]\ntype = crypt\npassword = {_b64url(46)}\n",
        )
    )
    add(
        _item(
            "wg0_conf",
            f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {_b64bytes(32)}\nDNS = 1.1.1.1\n\n[Peer]\nPublicKey = {_b64bytes(32)}\nEndpoint = vpn.example.net:51820\n",
        )
    )
    ovpn = "\n".join(_hex(32) for _ in range(16))
    add(
        _item(
            "openvpn_static_key",
            f"<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n{ovpn}\n-----END OpenVPN Static key V1-----\n</tls-auth>\nkey-direction 1\n",
        )
    )
    add(
        _item(
            "openvpn_auth_file",
            f"auth-user-pass creds.txt\n# creds.txt holds two lines:\n# vpnuser-marta\n# {_pw(14)}\n",
        )
    )

    # --- connection URLs and strings
    add(
        _item(
            "jdbc_postgres_params",
            f"spring.datasource.url=jdbc:postgresql://db:5432/app?user=app&password={_pw(16)}&sslmode=require",
        )
    )
    add(
        _item(
            "jdbc_sqlserver",
            f"jdbc:sqlserver://sql01.corp.local:1433;databaseName=Ledger;user=sa;password={_pw(14)};encrypt=true",
        )
    )
    add(
        _item(
            "odbc_pwd",
            f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:reports.database.windows.net,1433;Uid=reporter;Pwd={_pw(16)};Encrypt=yes;",
        )
    )
    add(_item("amqp_url", f"CELERY_BROKER_URL=amqp://celery:{_pw(16)}@rabbitmq.internal:5672/jobs"))
    add(
        _item(
            "redis_url_password",
            f"REDIS_URL=rediss://:{_an(32)}@redis-12345.c1.us-east-1.ec2.cloud.example.com:12345/0",
        )
    )
    add(
        _item(
            "mongo_srv",
            f"mongodb+srv://atlas-admin:{_an(16)}@cluster0.a1b2c.mongodb.net/orders?retryWrites=true&w=majority",
        )
    )
    add(
        _item(
            "ldapsearch_w",
            f"ldapsearch -H ldaps://ldap.corp.example -D 'cn=admin,dc=corp,dc=example' -w '{_pw(14)}' -b 'ou=people,dc=corp,dc=example'",
        )
    )
    add(
        _item(
            "smtp_url",
            f"EMAIL_URL=smtp+tls://postmaster@mg.example.com:{_hex(32)}-{_hex(8)}-{_hex(8)}@smtp.mailgun.org:587",
        )
    )
    add(
        _item(
            "azure_storage_connstr",
            f"DefaultEndpointsProtocol=https;AccountName=stassets01;AccountKey={_b64bytes(64)};EndpointSuffix=core.windows.net",
        )
    )
    add(
        _item(
            "s3_presigned",
            f"https://bucket-exports.s3.amazonaws.com/report.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=ASIA{_pick(string.ascii_uppercase + string.digits, 16)}%2F20261205%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261205T101500Z&X-Amz-Expires=604800&X-Amz-Security-Token={_b64url(120)}&X-Amz-SignedHeaders=host&X-Amz-Signature={_hex(64)}",
        )
    )
    add(
        _item(
            "azure_sas_url",
            f"https://stassets01.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=co&sp=rl&se=2027-01-01T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={_b64bytes(32).replace('+', '%2B').replace('/', '%2F').replace('=', '%3D')}",
        )
    )
    add(
        _item(
            "gcs_signed_url",
            f"https://storage.googleapis.com/ml-artifacts/model.bin?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=uploader%40proj.iam.gserviceaccount.com%2F20261205%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20261205T101500Z&X-Goog-Expires=3600&X-Goog-SignedHeaders=host&X-Goog-Signature={_hex(512)}",
        )
    )

    # --- JWTs, cookies, TOTP, recovery codes
    add(
        _item(
            "jwt_in_prose",
            "The admin panel kept a token in localStorage; I copied it to test the API: "
            + _jwt({"sub": "1093", "role": "admin", "iat": 1796342400, "exp": 1796428800}),
        )
    )
    add(
        _item(
            "cookie_header",
            f"curl https://admin.shop.example/orders -H 'Cookie: sessionid={_pick(string.ascii_lowercase + string.digits, 32)}; csrftoken={_an(32)}'",
        )
    )
    add(
        _item(
            "set_cookie_connect_sid",
            f"Set-Cookie: connect.sid=s%3A{_b64url(32)}.{_b64url(43)}; Path=/; HttpOnly",
        )
    )
    add(
        _item(
            "otpauth_uri",
            f"otpauth://totp/Acme%20Cloud:marta@example.com?secret={_pick(_B32, 32)}&issuer=Acme%20Cloud&digits=6",
        )
    )
    codes = "\n".join(f"{_pick('0123456789abcdef', 5)}-{_pick('0123456789abcdef', 5)}" for _ in range(8))
    add(
        _item(
            "recovery_codes",
            f"GitHub two-factor recovery codes for @marta (keep safe):\n{codes}\n",
            description="2FA recovery codes",
        )
    )
    seed = " ".join(_pick(_B32.lower(), 4) for _ in range(8))
    add(
        _item(
            "totp_seed_prose",
            f"If the phone dies, the authenticator setup key for the AWS root account is: {seed}",
        )
    )

    # --- private keys of every framing
    add(
        _item(
            "pkcs1_rsa",
            f"-----BEGIN RSA PRIVATE KEY-----\n{_pem_body(1190)}\n-----END RSA PRIVATE KEY-----\n",
        )
    )
    add(_item("pkcs8", f"-----BEGIN PRIVATE KEY-----\n{_pem_body(1217)}\n-----END PRIVATE KEY-----\n"))
    add(
        _item(
            "pkcs8_encrypted",
            f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{_pem_body(1298)}\n-----END ENCRYPTED PRIVATE KEY-----\n",
        )
    )
    add(
        _item(
            "ec_private", f"-----BEGIN EC PRIVATE KEY-----\n{_pem_body(121)}\n-----END EC PRIVATE KEY-----\n"
        )
    )
    add(
        _item(
            "openssh_private",
            f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n{_pem_body(300)}\n-----END OPENSSH PRIVATE KEY-----\n",
        )
    )
    putty_pub = "\n".join(_pem_body(270).split("\n"))
    putty_priv = "\n".join(_pem_body(640).split("\n"))
    add(
        _item(
            "putty_v2",
            f"PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key-20261201\nPublic-Lines: 6\n{putty_pub}\nPrivate-Lines: 14\n{putty_priv}\nPrivate-MAC: {_hex(40)}\n",
        )
    )
    add(
        _item(
            "putty_v3",
            f"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ed25519-key-20261202\nPublic-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAI{_b64url(43)}\nPrivate-Lines: 1\nAAAAI{_pick(_B64, 43)}\nPrivate-MAC: {_hex(64)}\n",
        )
    )
    add(
        _item(
            "age_secret",
            f"# created: 2026-12-01T10:00:00Z\n# public key: age1{_pick(_BECH.lower(), 58)}\nAGE-SECRET-KEY-1{_pick(_BECH, 58)}\n",
        )
    )
    add(
        _item(
            "wireguard_prose",
            f"wg private key for the laptop peer is {_b64bytes(32)} (public one is already on the server)",
        )
    )
    add(
        _item(
            "minisign_secret",
            f"untrusted comment: minisign encrypted secret key\nRWRTY0Iy{_pick(_B64, 204)}\n",
        )
    )
    add(_item("signify_secret", f"untrusted comment: signify secret key\nRWRCSwAAAA{_pick(_B64, 130)}==\n"))
    add(
        _item(
            "pgp_private_block",
            f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{_pem_body(900)}\n={_pick(_B64, 4)}\n-----END PGP PRIVATE KEY BLOCK-----\n",
        )
    )
    add(
        _item(
            "dsa_private",
            f"-----BEGIN DSA PRIVATE KEY-----\n{_pem_body(440)}\n-----END DSA PRIVATE KEY-----\n",
        )
    )

    # --- vendor tokens (less common)
    add(
        _item(
            "vault_hvs",
            f"export VAULT_ADDR=https://vault.corp.example:8200\nexport VAULT_TOKEN=hvs.CAESI{_b64url(86)}",
        )
    )
    add(_item("doppler_token", f"doppler configure set token dp.st.prd.{_an(43)}"))
    add(_item("pulumi_token", f"PULUMI_ACCESS_TOKEN=pul-{_hex(40)} pulumi up --stack prod"))
    add(
        _item(
            "terraform_cloud",
            f'credentials "app.terraform.io" {{\n  token = "{_an(14)}.atlasv1.{_an(67)}"\n}}\n',
        )
    )
    add(_item("linear_key", f"Linear API key for the triage bot: lin_api_{_an(40)}"))
    add(
        _item("sentry_dsn_secret", f"SENTRY_DSN=https://{_hex(32)}:{_hex(32)}@o4504.ingest.sentry.io/4504123")
    )
    add(_item("mailgun_key", f"MAILGUN_API_KEY=key-{_hex(32)}\nMAILGUN_DOMAIN=mg.example.com"))
    add(_item("twilio_pair", f"Twilio: account SID AC{_hex(32)}, auth token {_hex(32)}"))
    add(_item("shopify_token", f"Admin API access token (custom app): shpat_{_hex(32)}"))
    add(_item("atlassian_token", f"JIRA_API_TOKEN=ATATT3xFfGF0{_b64url(170)}={_hex(8).upper()}"))
    add(_item("grafana_sa", f"grafana service account token: glsa_{_an(32)}_{_hex(8)}"))
    add(
        _item(
            "databricks_pat",
            f"[DEFAULT]\nhost = https://adb-123456789.12.azuredatabricks.net\ntoken = dapi{_hex(32)}-3\n",
        )
    )
    add(_item("huggingface", f"huggingface-cli login --token hf_{_pick(string.ascii_letters, 34)}"))
    add(_item("replicate", f"REPLICATE_API_TOKEN=r8_{_an(37)}"))
    add(_item("anthropic_key", f'client = anthropic.Anthropic(api_key="sk-ant-api03-{_b64url(93)}AA")'))
    add(_item("openai_project", f"OPENAI_API_KEY=sk-proj-{_b64url(156)}"))
    add(
        _item(
            "supabase_service_role",
            "SUPABASE_SERVICE_ROLE_KEY="
            + _jwt(
                {
                    "iss": "supabase",
                    "ref": "abcdefghijklmnop",
                    "role": "service_role",
                    "iat": 1700000000,
                    "exp": 2015576000,
                }
            ),
        )
    )
    add(_item("cloudflare_token", f"wrangler: CLOUDFLARE_API_TOKEN={_b64url(40)}"))
    add(_item("digitalocean", f"doctl auth init --access-token dop_v1_{_hex(64)}"))
    add(_item("heroku_key", f"heroku config:set --app api-prod X=1 # with HEROKU_API_KEY=HRKU-{_b64url(60)}"))
    add(_item("fastly_token", f"export FASTLY_API_TOKEN={_b64url(32)}"))
    add(_item("pagerduty_token", f"PagerDuty REST key for the on-call script: u+{_b64url(18)}"))
    add(
        _item(
            "slack_webhook",
            f"alerts go to https://hooks.slack.com/services/T{_pick(string.ascii_uppercase + string.digits, 10)}/B{_pick(string.ascii_uppercase + string.digits, 10)}/{_an(24)}",
        )
    )
    add(
        _item(
            "discord_webhook",
            f"https://discord.com/api/webhooks/1183{_pick(string.digits, 15)}/{_b64url(68)}",
        )
    )
    add(_item("stripe_restricted", f"STRIPE_KEY=rk_live_{_an(99)}"))
    add(_item("telegram_bot", f"bot = telebot.TeleBot('{_pick(string.digits, 10)}:AA{_b64url(33)}')"))
    add(_item("postman_key", f"postman login --with-api-key PMAK-{_hex(24)}-{_hex(34)}"))
    add(
        _item(
            "azure_client_secret",
            f"AZURE_CLIENT_ID={_uuid()}\nAZURE_TENANT_ID={_uuid()}\nAZURE_CLIENT_SECRET={_an(3)}8Q~{_b64url(31)}",
        )
    )
    add(_item("netlify_token", f"NETLIFY_AUTH_TOKEN=nfp_{_an(36)}"))

    # --- passwords in prose, several languages
    add(
        _item(
            "prose_wifi_en", f"The office wifi password is {_pw(12)} (network Otter-5G), reset every quarter."
        )
    )
    add(_item("prose_fr", f"Accès au NAS du bureau : utilisateur admin, mot de passe : {_pw(12)}"))
    add(_item("prose_de", f"Das Passwort für den Router ist {_pw(12)}, bitte nicht weitergeben."))
    add(_item("prose_es", f"La contraseña del servidor de pruebas es {_pw(11)} y el usuario es root."))
    add(_item("prose_pt", f"senha do banco de homologação: {_pw(12)}"))
    add(_item("prose_nl", f"Het wachtwoord van de gedeelde mailbox is {_pw(12)}."))
    add(_item("prose_ja", f"ステージングのパスワードは {_pw(12)} です。"))
    add(_item("prose_login_slash", f"Staging admin login is admin / {_pw(13)} until SSO lands."))
    add(
        _item(
            "prose_passphrase_words",
            "The passphrase for the backup disk is tundra-mosaic-lantern-velvet-orbit, all lowercase.",
        )
    )
    add(
        _item(
            "seed_phrase_12",
            "Ledger recovery words: abandon tobacco hurdle mercy ripple canyon oyster lunar feature wagon ethics salad",
        )
    )
    add(_item("prose_pin_and_pass", f"Router: the admin pass is {_pw(10)} and the WPS PIN is 48213370."))

    # --- credentials split across fields or lines of one memory
    add(
        _item(
            "split_desc_body",
            f"and the password, on its own so it is not in the same line:\n{_pw(16)}\n",
            description="Reporting DB user is svc_reporting on db-ro.internal",
        )
    )
    add(_item("split_user_pass_lines", f"Backup box credentials\nuser: svc-backup\npass: {_pw(13)}\n"))
    add(
        _item(
            "split_key_id_secret",
            f"secret: {_pick(_B64, 40)}",
            description=f"S3 key id for the exporter is AKIA{_pick(string.ascii_uppercase + '234567', 16)}",
        )
    )
    add(
        _item(
            "split_client_id_secret",
            f"client_id = 8b1f0c2e-web\nclient secret is on the next line\n{_b64url(40)}\n",
            description="OAuth app for the dashboard",
        )
    )

    # --- keys in structured formats
    add(
        _item(
            "json_client_secret",
            json.dumps(
                {
                    "web": {
                        "client_id": "1234-abc.apps.googleusercontent.com",
                        "client_secret": f"GOCSPX-{_b64url(28)}",
                        "redirect_uris": ["http://localhost"],
                    }
                },
                indent=2,
            ),
        )
    )
    add(
        _item(
            "toml_api_key",
            f'[service.geocoder]\nendpoint = "https://geo.example.com"\napi_key = "{_an(32)}"\n',
        )
    )
    add(_item("ini_token", f"[auth]\nmode = token\ntoken={_hex(48)}\n"))
    add(_item("dotenv_webhook", f"STRIPE_WEBHOOK_SECRET=whsec_{_an(32)}\nNODE_ENV=production\n"))
    add(
        _item(
            "xml_password",
            f"<server>\n  <id>nexus-releases</id>\n  <username>deployment</username>\n  <password>{_pw(16)}</password>\n</server>",
        )
    )
    add(
        _item(
            "properties_password",
            f"spring.datasource.username=orders\nspring.datasource.password={_pw(15)}\n",
        )
    )
    add(
        _item(
            "gcp_sa_key_id",
            json.dumps(
                {
                    "type": "service_account",
                    "project_id": "proj-42",
                    "private_key_id": _hex(40),
                    "client_email": "ci@proj-42.iam.gserviceaccount.com",
                },
                indent=2,
            ),
        )
    )
    add(
        _item(
            "dotnet_appsettings_xml",
            f'<appSettings>\n  <add key="SendGridApiKey" value="SG.{_b64url(22)}.{_b64url(43)}" />\n</appSettings>',
        )
    )
    add(_item("rails_secret_key_base", f"production:\n  secret_key_base: {_hex(128)}\n"))
    add(
        _item(
            "django_secret_key",
            f"SECRET_KEY = '{_pick(string.ascii_lowercase + string.digits + '!@#$%^&*(-_=+)', 50)}'",
        )
    )
    add(_item("yaml_nested_token", f"integrations:\n  opsgenie:\n    api_key: {_uuid()}\n    region: eu\n"))
    add(
        _item(
            "json_password_field",
            json.dumps({"host": "db.internal", "port": 5432, "user": "etl", "password": _pw(18)}),
        )
    )
    add(_item("hcl_provider_token", f'provider "github" {{\n  owner = "corp"\n  token = "{_an(40)}"\n}}\n'))
    return f


def _look_alikes() -> list[dict]:
    f: list[dict] = []
    add = f.append
    sha = _hex(40)
    add(
        _item(
            "la_commit_id", f"Fixed in {sha}; cherry-pick it onto release/2.4 with `git cherry-pick {sha}`."
        )
    )
    add(
        _item(
            "la_git_log_short",
            "\n".join(
                f"{_hex(7)} {m}" for m in ("fix flaky test", "bump deps", "refactor parser", "docs: typo")
            ),
        )
    )
    add(
        _item(
            "la_uuid_request_id",
            f"The failing request id was {_uuid()}; the trace id {_hex(32)} shows it in the gateway logs.",
        )
    )
    add(
        _item(
            "la_sha256sum",
            f"{_hex(64)}  vault-mem-1.4.0.tar.gz\n{_hex(64)}  vault-mem-1.4.0-py3-none-any.whl",
        )
    )
    add(
        _item(
            "la_base64_text",
            f"echo {base64.b64encode(b'the quick brown fox jumps over the lazy dog, twice').decode()} | base64 -d  # decodes to a pangram",
        )
    )
    add(
        _item(
            "la_ssh_ed25519_pub",
            f"Add this to authorized_keys: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_pick(_B64, 43)} marta@laptop",
        )
    )
    add(_item("la_ssh_rsa_pub", f"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{_pick(_B64, 500)}= deploy@ci"))
    add(
        _item(
            "la_ssh_fingerprint",
            f"The host key fingerprint is SHA256:{_pick(_B64, 43)} (ED25519); verify before accepting.",
        )
    )
    add(_item("la_gpg_fingerprint", f"Release signing key: {' '.join(_hex(4).upper() for _ in range(10))}"))
    add(
        _item(
            "la_public_key_pem", f"-----BEGIN PUBLIC KEY-----\n{_pem_body(294)}\n-----END PUBLIC KEY-----\n"
        )
    )
    add(
        _item(
            "la_certificate_pem",
            f"-----BEGIN CERTIFICATE-----\n{_pem_body(900)}\n-----END CERTIFICATE-----\n",
        )
    )
    add(
        _item(
            "la_placeholder_bearer",
            'curl -H "Authorization: Bearer <your-token>" https://api.example.com/v1/me',
        )
    )
    add(
        _item(
            "la_placeholder_xxxx", "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nAPI_SECRET=xxxxxxxxxxxxxxxx\n"
        )
    )
    add(
        _item(
            "la_changeme_docs",
            "The default admin password in the docs is `changeme`; the installer forces a new one on first login.",
        )
    )
    add(
        _item(
            "la_env_example",
            "SECRET_KEY=your-secret-key-here\nDATABASE_URL=postgres://user:password@localhost:5432/dbname\nSTRIPE_KEY=sk_test_...\n",
        )
    )
    add(
        _item(
            "la_password_rotation_doc",
            "Rotate the prod DB password every 90 days; it lives in 1Password under 'prod-db / owner'. Never paste it in chat.",
        )
    )
    add(
        _item(
            "la_password_policy",
            "Password policy: at least 14 characters, no reuse of the last 5, and MFA required for admins.",
        )
    )
    add(
        _item(
            "la_npm_integrity",
            f'"node_modules/lodash": {{\n  "version": "4.17.21",\n  "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n  "integrity": "sha512-{_pick(_B64, 86)}=="\n}}',
        )
    )
    add(
        _item(
            "la_yarn_lock",
            f'lodash@^4.17.21:\n  version "4.17.21"\n  resolved "https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#{_hex(40)}"\n  integrity sha512-{_pick(_B64, 86)}==',
        )
    )
    add(
        _item(
            "la_poetry_lock",
            f'[[package]]\nname = "requests"\nversion = "2.32.3"\nfiles = [\n    {{file = "requests-2.32.3-py3-none-any.whl", hash = "sha256:{_hex(64)}"}},\n]',
        )
    )
    add(_item("la_image_digest", f"Pinned the base image: python:3.12-slim@sha256:{_hex(64)}"))
    add(
        _item(
            "la_go_sum",
            f"golang.org/x/net v0.30.0 h1:{_pick(_B64, 43)}=\ngolang.org/x/net v0.30.0/go.mod h1:{_pick(_B64, 43)}=",
        )
    )
    add(_item("la_gdoc_url", f"Design doc: https://docs.google.com/document/d/1{_b64url(43)}/edit"))
    add(
        _item(
            "la_youtube_figma",
            f"Talk: https://www.youtube.com/watch?v={_b64url(11)} and mockups https://www.figma.com/file/{_an(22)}/Checkout-v2",
        )
    )
    add(
        _item(
            "la_k8s_secret_ref",
            "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-creds\n        key: password\n",
        )
    )
    add(
        _item(
            "la_gha_secrets_ref",
            "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  GH_TOKEN: ${{ github.token }}\n",
        )
    )
    add(
        _item(
            "la_vault_path",
            "Fetch it with `vault kv get -field=password secret/prod/db` — do not write it down.",
        )
    )
    add(
        _item(
            "la_jwks_public",
            json.dumps(
                {
                    "keys": [
                        {
                            "kty": "RSA",
                            "kid": _hex(16),
                            "use": "sig",
                            "alg": "RS256",
                            "e": "AQAB",
                            "n": _b64url(342),
                        }
                    ]
                },
                indent=2,
            ),
        )
    )
    add(
        _item(
            "la_wg_public_only",
            f"[Peer]\nPublicKey = {_b64bytes(32)}\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.example.net:51820\n",
        )
    )
    add(
        _item(
            "la_age_public",
            f"Encrypt backups to age1{_pick(_BECH.lower(), 58)} (the recipient's public key).",
        )
    )
    add(_item("la_minisign_public", f"Verify with: minisign -Vm release.tar.gz -P RWQ{_pick(_B64, 53)}"))
    add(
        _item(
            "la_data_uri",
            f'<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk{_pick(_B64, 20)}AAAAABJRU5ErkJggg==">',
        )
    )
    add(_item("la_mongo_objectids", f"Duplicate orders: ObjectId('{_hex(24)}') and ObjectId('{_hex(24)}')"))
    add(
        _item(
            "la_sentry_public_dsn",
            f"SENTRY_DSN=https://{_hex(32)}@o4504.ingest.sentry.io/4504123  # public DSN, safe in the frontend bundle",
        )
    )
    add(_item("la_url_placeholder_password", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app"))
    add(_item("la_url_no_password", "REDIS_URL=redis://redis:6379/0\nAMQP_URL=amqp://rabbitmq:5672/"))
    add(_item("la_mysql_prompt", "mysql -h db-replica-2 -u root -p   # it prompts for the password"))
    add(_item("la_docker_password_stdin", 'echo "$CR_PAT" | docker login ghcr.io -u octo --password-stdin'))
    add(
        _item(
            "la_wifi_ask",
            "The guest wifi is Otter-Guest; ask Sam at reception for the password, it changes weekly.",
        )
    )
    add(
        _item(
            "la_aws_example_key",
            "From the AWS docs: AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE and AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        )
    )
    add(
        _item(
            "la_totp_howto",
            "To set up 2FA: scan the QR code with an authenticator app, then type the 6-digit code it shows.",
        )
    )
    add(_item("la_md5_tarball", f"md5 of the tarball is {_hex(32)}, matches the mirror."))
    add(
        _item(
            "la_aws_resource_ids",
            f"Instance i-0{_hex(16)} in sg-0{_hex(16)}, subnet subnet-0{_hex(16)}; arn:aws:iam::123456789012:role/ci-deployer",
        )
    )
    add(
        _item(
            "la_webpack_hashes",
            f"dist/main.{_hex(8)}.js  dist/vendor.{_hex(20)}.js  dist/styles.{_hex(8)}.css",
        )
    )
    add(
        _item(
            "la_de_policy",
            "Das Passwort muss mindestens 12 Zeichen haben und darf nicht dem Benutzernamen gleichen.",
        )
    )
    add(
        _item(
            "la_fr_forgot",
            "Mot de passe oublié ? Cliquez sur « Réinitialiser » et suivez le lien reçu par e-mail.",
        )
    )
    add(_item("la_terraform_state", f'"lineage": "{_uuid()}",\n"serial": 42,\n"terraform_version": "1.9.8"'))
    add(
        _item(
            "la_password_field_ui",
            "The login form has two fields, username and password, and a 'show password' toggle; the bug was the toggle.",
        )
    )
    add(
        _item(
            "la_token_concept",
            "Access tokens expire after one hour; the refresh token lasts 30 days and is rotated on use.",
        )
    )
    add(
        _item(
            "la_hex_color_dump",
            "Palette: #1e293b #334155 #64748b #cbd5e1 #f1f5f9; hexdump: 00000000  7f45 4c46 0201 0100 0000 0000 0000 0000",
        )
    )
    add(
        _item(
            "la_k8s_configmap",
            f"kind: ConfigMap\ndata:\n  LOG_LEVEL: info\n  FEATURE_FLAGS: checkout-v2,search-beta\n  BUILD_ID: {_hex(12)}\n",
        )
    )
    add(_item("la_semver_dates", "Upgraded from 3.11.9 to 3.12.7 on 2026-11-30; build 20261130.4 passed."))
    add(_item("la_cache_key", f"Cache key: Linux-pip-{_hex(64)}"))
    return f


FORMS = _forms()
LOOK_ALIKES = _look_alikes()

assert len({it["name"] for it in FORMS + LOOK_ALIKES}) == len(FORMS) + len(LOOK_ALIKES)
