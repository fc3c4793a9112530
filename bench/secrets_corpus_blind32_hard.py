"""A second blind tier for blind32: credentials in less usual places and shapes (code literals in
many languages, client configs, crypto wallets, admin commands, prose in more languages, tables
and CSV, base64-wrapped keys) and look-alikes that share their shape but not their place
(payment-intent and transaction ids, public addresses, redacted values, variable references,
public-key and certificate framings). Written, like secrets_corpus_blind32, before reading the
detector's code. Same item format: ``FORMS`` must be refused, ``LOOK_ALIKES`` stored.
"""

from __future__ import annotations

import base64
import json
import random
import string

_R = random.Random(3206)
_ALNUM = string.ascii_letters + string.digits
_B64 = _ALNUM + "+/"
_B64URL = _ALNUM + "-_"
_HEX = "0123456789abcdef"
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"


def _pick(alphabet: str, n: int) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    return _pick(_HEX, n)


def _an(n: int) -> str:
    return _pick(_ALNUM, n)


def _b64url(n: int) -> str:
    return _pick(_B64URL, n)


def _pw(n: int = 14) -> str:
    return _pick(_ALNUM, n - 2) + _R.choice("!#$%&*?@") + _R.choice(string.digits)


def _b64bytes(n: int) -> str:
    return base64.b64encode(bytes(_R.randrange(256) for _ in range(n))).decode()


def _uuid() -> str:
    h = _hex(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _item(name: str, body: str, description: str = "") -> dict:
    return {
        "name": name,
        "key": name.replace("_", "-"),
        "description": description or f"session notes ({name.replace('_', ' ')})",
        "body": body,
    }


def _pem(label: str, nbytes: int) -> str:
    text = _b64bytes(nbytes)
    lines = "\n".join(text[i : i + 64] for i in range(0, len(text), 64))
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----\n"


def _forms() -> list[dict]:
    f: list[dict] = []
    add = f.append
    # code literals
    add(_item("py_requests_auth_tuple", f'r = requests.get(url, auth=("api", "{_an(32)}"), timeout=10)'))
    add(
        _item(
            "py_psycopg_connect",
            f'conn = psycopg2.connect(host="db.internal", user="etl", password="{_pw(15)}", dbname="dw")',
        )
    )
    add(_item("js_camel_api_key", f'const stripeSecretKey = "{_an(40)}";\nexport default stripeSecretKey;'))
    add(
        _item(
            "go_struct_token",
            f'cfg := Config{{\n\tEndpoint: "https://api.example.com",\n\tToken:    "{_b64url(40)}",\n}}',
        )
    )
    add(
        _item(
            "csharp_network_credential",
            f'var cred = new NetworkCredential("svc-print", "{_pw(14)}", "CORP");',
        )
    )
    add(_item("java_set_password", f'dataSource.setUser("app");\ndataSource.setPassword("{_pw(16)}");'))
    add(_item("php_define", f"define('DB_PASSWORD', '{_pw(16)}');\ndefine('DB_HOST', 'localhost');"))
    add(
        _item(
            "ruby_hash",
            f"config.smtp_settings = {{ user_name: 'apikey', password: '{_an(24)}.{_b64url(43)}' }}",
        )
    )
    # HTTP and admin commands
    add(
        _item(
            "raw_http_x_auth_token",
            f"GET /v1/servers HTTP/1.1\nHost: compute.example.net\nX-Auth-Token: {_hex(32)}\n",
        )
    )
    add(
        _item(
            "proxy_authorization",
            f"Proxy-Authorization: Basic {base64.b64encode(f'marta:{_pw(12)}'.encode()).decode()}",
        )
    )
    add(
        _item(
            "authorization_token_scheme",
            f"curl -H 'Authorization: token {_hex(40)}' https://git.example.com/api/v1/repos",
        )
    )
    add(
        _item(
            "url_apikey_param",
            f"https://api.weather-data.example/v3/forecast?lat=52.1&lon=4.3&apikey={_hex(32)}",
        )
    )
    add(_item("https_proxy_userinfo", f"export HTTPS_PROXY=http://marta:{_pw(12)}@proxy.corp.example:3128"))
    add(_item("lftp_u", f"lftp -u uploader,{_pw(12)} sftp://files.partner.example"))
    add(_item("smbclient_percent", f"smbclient //nas/backup -U 'CORP\\marta%{_pw(12)}'"))
    add(_item("net_use", f"net use Z: \\\\fs01\\share /user:CORP\\marta {_pw(12)}"))
    add(_item("rsync_password_env", f"RSYNC_PASSWORD={_pw(14)} rsync -av data/ backup@nas::module/"))
    add(
        _item(
            "kubectl_from_literal",
            f"kubectl create secret generic api-creds --from-literal=api-key={_an(32)}",
        )
    )
    add(_item("sql_alter_user", f"ALTER USER reporting WITH PASSWORD '{_pw(16)}';"))
    add(_item("sql_identified_by", f"CREATE USER 'grafana'@'%' IDENTIFIED BY '{_pw(14)}';"))
    add(_item("redis_conf_requirepass", f"bind 0.0.0.0\nrequirepass {_an(32)}\nmasterauth {_an(32)}\n"))
    add(_item("powershell_securestring", f'$pw = ConvertTo-SecureString "{_pw(14)}" -AsPlainText -Force'))
    add(_item("sudo_s_echo", f"echo '{_pw(12)}' | sudo -S systemctl restart nginx"))
    add(_item("macos_security_add", f"security add-generic-password -a marta -s deploy-api -w '{_an(32)}'"))
    add(_item("jupyter_token_url", f"http://127.0.0.1:8888/lab?token={_hex(48)}"))
    add(_item("nginx_auth_header", f'proxy_set_header Authorization "Bearer {_b64url(48)}";'))
    add(_item("haproxy_stats_auth", f"listen stats\n  bind :8404\n  stats auth admin:{_pw(13)}\n"))
    # client configs
    k8s_key = base64.b64encode(_pem("RSA PRIVATE KEY", 600).encode()).decode()
    add(
        _item(
            "kubeconfig_client_key_data",
            f"users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t\n    client-key-data: {k8s_key}\n",
        )
    )
    add(
        _item(
            "docker_config_auth",
            json.dumps(
                {"auths": {"ghcr.io": {"auth": base64.b64encode(f"octo:{_an(36)}".encode()).decode()}}},
                indent=2,
            ),
        )
    )
    add(
        _item(
            "composer_auth_json",
            json.dumps(
                {"http-basic": {"repo.packagist.com": {"username": "token", "password": _hex(40)}}}, indent=2
            ),
        )
    )
    add(
        _item(
            "gradle_properties",
            f"signing.keyId=24875D73\nsigning.password={_pw(14)}\nossrhUsername=marta\nossrhPassword={_pw(16)}\n",
        )
    )
    add(_item("cargo_credentials", f'[registry]\ntoken = "cio{_an(32)}"\n'))
    add(_item("gem_credentials", f"---\n:rubygems_api_key: rubygems_{_hex(48)}\n"))
    add(
        _item(
            "nuget_config",
            f'<packageSourceCredentials>\n  <corp>\n    <add key="Username" value="build" />\n    <add key="ClearTextPassword" value="{_pw(16)}" />\n  </corp>\n</packageSourceCredentials>',
        )
    )
    add(_item("helm_values_root_password", f"auth:\n  rootPassword: {_an(20)}\n  database: app\n"))
    add(_item("snmp_community", f"snmp:\n  version: 2c\n  community: {_pw(12)}\n"))
    add(
        _item(
            "vault_unseal_keys",
            f"Unseal Key 1: {_b64bytes(33)}\nUnseal Key 2: {_b64bytes(33)}\nInitial Root Token: s.{_an(24)}",
        )
    )
    add(_item("consul_token", f"export CONSUL_HTTP_TOKEN={_uuid()}"))
    add(_item("splunk_hec_header", f"-H 'Authorization: Splunk {_uuid()}'"))
    add(_item("datadog_keys", f"DD_API_KEY={_hex(32)}\nDD_APP_KEY={_hex(40)}"))
    add(_item("newrelic_license", f"license_key: {_hex(36)}NRAL"))
    add(_item("ngrok_authtoken", f"ngrok config add-authtoken 2{_an(26)}_{_an(21)}"))
    add(_item("tailscale_authkey", f"tailscale up --authkey tskey-auth-k{_an(12)}CNTRL-{_an(32)}"))
    add(_item("fly_token", f"FLY_API_TOKEN=FlyV1 fm2_lJPECAAAAAAAA{_b64url(120)}"))
    add(_item("laravel_app_key", f"APP_KEY=base64:{_b64bytes(32)}"))
    add(
        _item(
            "fernet_key",
            f"AIRFLOW__CORE__FERNET_KEY={base64.urlsafe_b64encode(bytes(_R.randrange(256) for _ in range(32))).decode()}",
        )
    )
    add(_item("nextauth_secret", f"NEXTAUTH_SECRET={_b64bytes(32)}"))
    add(
        _item(
            "gcp_creds_b64",
            "GOOGLE_CREDENTIALS="
            + base64.b64encode(
                json.dumps(
                    {
                        "type": "service_account",
                        "private_key_id": _hex(40),
                        "private_key": _pem("PRIVATE KEY", 300),
                    }
                ).encode()
            ).decode(),
        )
    )
    add(_item("next_auth_cookie", f"Cookie: __Secure-next-auth.session-token={_b64url(180)}"))
    add(
        _item(
            "phpsessid_cookie",
            f"document.cookie showed PHPSESSID={_pick(string.ascii_lowercase + string.digits, 26)} for the admin",
        )
    )
    # wallets
    add(
        _item("eth_private_key", f"PRIVATE_KEY=0x{_hex(64)}\nRPC_URL=https://mainnet.infura.io/v3/{_hex(32)}")
    )
    add(_item("btc_wif", f"paper wallet WIF: 5{_pick('HJK', 1)}{_pick(_B58, 49)}"))
    add(
        _item(
            "solana_keypair",
            "~/.config/solana/id.json:\n" + json.dumps([_R.randrange(256) for _ in range(64)]),
        )
    )
    add(
        _item(
            "seed_24_numbered",
            "Recovery phrase:\n"
            + "\n".join(
                f"{i}. {w}"
                for i, w in enumerate(
                    "orbit tennis hazard umbrella kitten result dwarf solid recall pepper vessel awkward fabric thumb enroll sketch drama lyrics beyond galaxy pilot oxygen nominee gravity".split(),
                    1,
                )
            ),
        )
    )
    # prose, more languages, tables
    add(_item("prose_it", f"La password del router è {_pw(12)}"))
    add(_item("prose_ru", f"Пароль от сервера: {_pw(12)}"))
    add(_item("prose_zh", f"测试服务器的密码是 {_pw(12)}"))
    add(_item("prose_pl", f"hasło do VPN: {_pw(12)}"))
    add(_item("prose_tr", f"Sunucu şifresi {_pw(12)} olarak değişti."))
    add(_item("prose_ko", f"관리자 비밀번호는 {_pw(12)} 입니다"))
    add(_item("prose_classic_passphrase", "passphrase: correct horse battery staple"))
    add(_item("prose_short_pw", "pw for the demo box: hunter22"))
    add(_item("prose_ssh_passphrase", f"The passphrase for ~/.ssh/id_ed25519 on the build box is {_pw(16)}"))
    add(_item("prose_combo_email", f"Login for the test tenant: qa@example.com:{_pw(12)}"))
    add(
        _item(
            "markdown_table",
            f"| env | user | password |\n|---|---|---|\n| staging | admin | {_pw(12)} |\n| prod | admin | {_pw(14)} |",
        )
    )
    add(_item("csv_credentials", f"name,url,username,password\nrouter,http://192.168.1.1,admin,{_pw(12)}\n"))
    add(_item("prose_pass_no_colon", f"user marta pass {_pw(12)} on the old jenkins"))
    add(
        _item(
            "split_three_lines",
            f"host: ftp.partner.example\nuser: exports\n{_pw(14)}\n",
            description="Partner FTP; the last line is the password",
        )
    )
    return f


def _look_alikes() -> list[dict]:
    f: list[dict] = []
    add = f.append
    add(
        _item(
            "la_stripe_object_ids", f"Refund pi_3{_an(23)} and charge ch_3{_an(23)}; customer cus_{_an(14)}."
        )
    )
    add(_item("la_eth_address_tx", f"Sent 0.1 ETH to 0x{_hex(40)}; tx hash 0x{_hex(64)}"))
    add(_item("la_btc_address", f"Donations: bc1q{_pick('023456789acdefghjklmnpqrstuvwxyz', 38)}"))
    add(
        _item(
            "la_ipfs_cid",
            f"Pinned at ipfs://Qm{_pick(_B58, 44)} and bafybei{_pick('abcdefghijklmnopqrstuvwxyz234567', 52)}",
        )
    )
    add(_item("la_magnet", f"magnet:?xt=urn:btih:{_hex(40)}&dn=debian-12.iso"))
    add(_item("la_redacted", "password: ********\napi_key: [FILTERED]\ntoken=REDACTED\nsecret: <redacted>"))
    add(
        _item(
            "la_shell_var_refs",
            'curl -u "$API_USER:$API_PASS" -H "Authorization: Bearer $TOKEN" https://api.example.com',
        )
    )
    add(_item("la_mysql_pwd_var", 'mysql -uroot -p"$MYSQL_ROOT_PASSWORD" -e "show databases"'))
    add(
        _item(
            "la_jinja_ref",
            "db_password: \"{{ vault_db_password }}\"\napi_token: \"{{ lookup('env', 'API_TOKEN') }}\"",
        )
    )
    add(_item("la_op_ref", "DB_PASSWORD=op://Infra/prod-db/password\nAPI_KEY=op://Infra/geocoder/credential"))
    add(_item("la_env_read_code", 'password = os.environ["DB_PASSWORD"]\ntoken = getpass.getpass("Token: ")'))
    add(
        _item(
            "la_access_denied_log",
            "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
        )
    )
    add(
        _item(
            "la_sql_schema",
            "CREATE TABLE users (id uuid primary key, email text, password_hash text not null, api_token_id uuid);",
        )
    )
    add(_item("la_password_regex", r"PASSWORD_RE = r'^(?=.*[A-Z])(?=.*\d)(?=.*[^\w\s]).{12,}$'"))
    add(
        _item(
            "la_rfc4716_pub",
            f'---- BEGIN SSH2 PUBLIC KEY ----\nComment: "marta@laptop"\n{_b64bytes(51)}\n---- END SSH2 PUBLIC KEY ----',
        )
    )
    add(
        _item(
            "la_pgp_public_block",
            f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{_b64bytes(600)}\n-----END PGP PUBLIC KEY BLOCK-----",
        )
    )
    add(_item("la_pgp_signature", _pem("PGP SIGNATURE", 300)))
    add(_item("la_csr", _pem("CERTIFICATE REQUEST", 600)))
    add(_item("la_dh_params", _pem("DH PARAMETERS", 264)))
    add(_item("la_known_hosts", f"github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_pick(_B64, 43)}"))
    add(_item("la_keygen_fingerprint", f"256 SHA256:{_pick(_B64, 43)} marta@laptop (ED25519)"))
    add(
        _item(
            "la_csp_hashes",
            f"Content-Security-Policy: script-src 'self' 'sha256-{_b64bytes(32)}' 'nonce-{_an(22)}'",
        )
    )
    add(
        _item(
            "la_sri_html",
            f'<script src="https://cdn.example.com/lib.js" integrity="sha384-{_b64bytes(48)}" crossorigin="anonymous"></script>',
        )
    )
    add(
        _item(
            "la_container_ids",
            f"docker ps: {_hex(12)} api:latest, {_hex(12)} worker:latest; pod api-{_pick('bcdfghjklmnpqrstvwxz2456789', 10)}-{_pick('bcdfghjklmnpqrstvwxz2456789', 5)}",
        )
    )
    add(_item("la_azure_ids", f"subscription {_uuid()}, tenant {_uuid()}, resource group rg-prod-weu"))
    add(_item("la_sentry_event", f"Sentry event {_hex(32)} in issue PROJ-4X2, release 2026.12.1"))
    add(_item("la_twilio_message_sid", f"Delivery failed for message SM{_hex(32)} (error 30007)"))
    add(_item("la_slack_ids", "Post to channel C04AB12CD3E as user U02XYZ98765; thread ts 1733491200.123456"))
    add(
        _item(
            "la_password_same_as",
            "The staging password is the same as last quarter's; ask in #infra if you lost it.",
        )
    )
    add(_item("la_kennwort_tresor", "Kennwort: siehe Tresor (KeePass, Eintrag 'NAS')."))
    add(
        _item(
            "la_ansible_vault_blob",
            "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  "
            + "\n  ".join(_hex(80) for _ in range(4)),
        )
    )
    add(_item("la_pgp_message", _pem("PGP MESSAGE", 400)))
    add(
        _item(
            "la_prose_token_lifetime",
            "GitHub fine-grained tokens can be scoped to one repo; set expiry to 30 days and name them after the job.",
        )
    )
    add(
        _item(
            "la_hash_table",
            f"| file | sha256 |\n|---|---|\n| app.tar | {_hex(64)} |\n| db.sql | {_hex(64)} |",
        )
    )
    add(
        _item(
            "la_csv_ids", f"order_id,customer_id,total\n{_uuid()},{_hex(24)},19.99\n{_uuid()},{_hex(24)},5.00"
        )
    )
    add(
        _item(
            "la_base64_config",
            "BINARY_DATA="
            + base64.b64encode(
                b"log_level = info\nworkers = 4\nfeature_search = true\nregion = eu-west-1\n"
            ).decode(),
        )
    )
    return f


FORMS = _forms()
LOOK_ALIKES = _look_alikes()

assert len({it["name"] for it in FORMS + LOOK_ALIKES}) == len(FORMS) + len(LOOK_ALIKES)
