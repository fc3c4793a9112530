"""A blind corpus of credentials as an agent writes them into memory after a coding session:
debugging summaries that quote a config value, chat-like notes ("Sam gave me the staging creds"),
Terraform/HCL, Ansible vars, package-manager and build-tool credential files (.npmrc, .pypirc,
.docker/config.json, .git-credentials, Maven settings.xml, gradle.properties), Java .properties,
PowerShell and Windows commands, iOS/Android configuration, SQL user statements, LDAP binds,
Redis/MQTT/SMTP/Kafka client settings, webhook URLs with the secret in the path, signed cookies and
session ids, recovery and backup codes, Wi-Fi keys, door and alarm PINs, markdown tables with a
password column, passwords spelled out or split over lines, base64- or hex-wrapped credentials,
passwords made only of name-like words, and passwords whose one mark is a trailing ``!``.
Written before its author read the detector's code or the earlier corpora (branch blind33).

``FORMS`` must each be refused; ``LOOK_ALIKES`` must each be stored: hashes, ids, public keys,
placeholders and docs examples, password policies, talk about passwords without one, version
strings, clearly fake fixtures, and encrypted blobs. Decision on encrypted blobs (ansible-vault
``$ANSIBLE_VAULT;1.1;AES256``, SOPS ``ENC[...]``, sealed-secrets ``encryptedData``): they are
look-alikes. Their whole point is to be committed; what leaks a credential is the key that opens
them, which is a form here when it is written down.

Each item is a dict with ``name``, ``class``, ``key``, ``description`` and ``body``. The random
parts come from a seeded generator, so the corpus is the same every run.
"""

from __future__ import annotations

import base64
import random
import string

_R = random.Random(33_0612)
_ALNUM = string.ascii_letters + string.digits
_LOWER_D = string.ascii_lowercase + string.digits
_B64URL = _ALNUM + "-_"
_HEX = "0123456789abcdef"


def _pick(alphabet: str, n: int) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def _hex(n: int) -> str:
    return _pick(_HEX, n)


def _an(n: int) -> str:
    return _pick(_ALNUM, n)


def _pw(n: int = 13) -> str:
    """A person-made password: a capital, letters, digits, one mark somewhere inside."""
    core = _R.choice(string.ascii_uppercase) + _pick(string.ascii_lowercase, n // 2) + _pick(string.digits, 2)
    core += _pick(_ALNUM, n - len(core) - 1)
    i = _R.randrange(2, len(core) - 1)
    return core[:i] + _R.choice("#$%&*?@+=~^") + core[i:]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _b64bytes(n: int) -> str:
    return _b64(bytes(_R.randrange(256) for _ in range(n)))


def _uuid() -> str:
    h = _hex(32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:]}"


def _item(name: str, cls: str, body: str, description: str = "", key: str = "") -> dict:
    return {
        "name": name,
        "class": cls,
        "key": key or name.replace("_", "-"),
        "description": description or f"what I learned this session ({name.replace('_', ' ')})",
        "body": body,
        "meta": {},
    }


def _forms() -> list[dict]:  # noqa: PLR0915 - a flat list of memories
    f: list[dict] = []

    def add(name: str, cls: str, body: str, description: str = "", key: str = "") -> None:
        f.append(_item(name, cls, body, description, key))

    # --- session summaries that quote the value they fixed
    add(
        "sum_oauth_client_secret",
        "summary",
        "Session summary: the 401s from the staging gateway came from a stale client secret. Swapped it in "
        f".env.staging for `{_an(34)}` and the integration suite went green again.",
    )
    add(
        "sum_redis_requirepass",
        "summary",
        f"Root cause of the cache misses: ops changed redis requirepass to {_pw()} on Tuesday and the worker "
        "kept retrying with the old one. Updated the worker's settings; restarted.",
    )
    add(
        "sum_quoted_config_value",
        "summary",
        "Debugging notes (billing-export):\n- cron ran but S3 upload failed\n- the bucket policy was fine\n"
        f"- culprit: EXPORT_SIGNING_SECRET in the systemd unit was `{_an(28)}` while the app expected the new one\n"
        "- fixed by editing /etc/billing/export.env and `systemctl restart billing-export`",
    )
    add(
        "sum_db_pw_in_passing",
        "summary",
        f"Spent an hour on the migration lock. Connected as migrator (password {_pw(12)}) and found "
        "a stuck advisory lock from a dead pod; pg_terminate_backend fixed it.",
    )
    add(
        "sum_api_key_revoke_later",
        "summary",
        f"Note to self: the API key I used for the smoke test was {_an(32)} (project atlas). "
        "Revoke it after the demo on Thursday.",
    )
    add(
        "sum_hmac_salt",
        "summary",
        f"The webhook signatures failed because HMAC_SIGNING_SALT differs between the two regions; eu uses {_an(40)}.",
    )

    # --- chat-like notes
    add(
        "chat_sam_staging_creds",
        "chat",
        f"Sam gave me the staging creds: user `qa-runner`, pass `{_pw()}`. He says they rotate on Fridays.",
    )
    add(
        "chat_priya_wifi",
        "chat",
        f"Priya: the guest network in the Lisbon office is LX-Guest and the key is {_pw(12)}",
    )
    add(
        "chat_door_alarm_pins",
        "chat",
        "From Marco: server room door code is 4471#, and the alarm panel disarm PIN is 9083. Arm it again when leaving.",
    )
    add(
        "chat_slash_pair",
        "chat",
        f"Logged into the core switch as admin/{_pw(10)} to check the VLANs; Kofi set that up.",
    )
    add("chat_colon_pair_creds", "chat", f"creds for the ETL box -> svc-etl:{_pw(14)}")
    add(
        "chat_master_password_phrase",
        "chat",
        "Jun told me the team Bitwarden master password is staple-orbit-canyon-mellow-fjord (please don't write it down, he said).",
    )
    add(
        "chat_forwarded_message",
        "chat",
        "> From: Lena\n> The grafana admin login is admin and the password is "
        f"{_pw(11)} until we wire up SSO.\nForwarding so I remember.",
    )

    # --- Terraform / HCL
    add(
        "tf_azure_sql_admin",
        "hcl",
        'resource "azurerm_mssql_server" "main" {\n  name                         = "sql-prod-weu"\n'
        '  administrator_login          = "sqladmin"\n'
        f'  administrator_login_password = "{_pw(16)}"\n}}',
    )
    add(
        "tf_tfvars_db",
        "hcl",
        f'region      = "eu-west-1"\ninstance    = "db.t4g.medium"\ndb_password = "{_pw(15)}"\n',
    )
    add(
        "tf_variable_default_key",
        "hcl",
        f'variable "datadog_api_key" {{\n  type    = string\n  default = "{_hex(32)}"\n}}',
    )
    add("tf_provider_token", "hcl", f'provider "cloudflare" {{\n  api_token = "{_b64url_token(40)}"\n}}')

    # --- Ansible
    add(
        "ansible_become_password",
        "ansible",
        f"# group_vars/all.yml\nansible_user: deploy\nansible_become_password: {_pw()}\n",
    )
    add(
        "ansible_mysql_root",
        "ansible",
        f'- name: set root password\n  mysql_user:\n    name: root\n    password: "{_pw(14)}"\n    host_all: true\n',
    )
    add(
        "ansible_vault_pass_file",
        "ansible",
        f"Contents of ~/.vault_pass.txt on the bastion (the ansible-vault password): {_pw(18)}",
    )
    add(
        "ansible_inventory_ssh_pass",
        "ansible",
        f"[legacy]\nold-db-01 ansible_host=10.4.0.12 ansible_user=root ansible_ssh_pass={_pw(12)}\n",
    )

    # --- package-manager and build-tool credential files
    npm_auth = _b64(f"ci-bot:{_pw()}".encode())
    add(
        "npmrc_auth_basic",
        "dotfile",
        f"registry=https://npm.corp.example/\n_auth={npm_auth}\nalways-auth=true\n",
    )
    add(
        "npmrc_scoped_password",
        "dotfile",
        f"//nexus.corp.example/repository/npm/:username=builder\n"
        f"//nexus.corp.example/repository/npm/:_password={_b64(_pw().encode())}\n",
    )
    add(
        "pypirc_private_index",
        "dotfile",
        f"[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.corp.example/simple\n"
        f"username = build\npassword = {_pw()}\n",
    )
    add(
        "docker_config_auths",
        "dotfile",
        '{\n  "auths": {\n    "registry.corp.example:5000": {\n      "auth": "'
        + _b64(f"jenkins:{_pw()}".encode())
        + '"\n    }\n  }\n}',
    )
    add(
        "git_credentials_line",
        "dotfile",
        f"~/.git-credentials on the runner:\nhttps://jdoe:{_pw()}@git.corp.example\n",
    )
    add(
        "maven_settings_server",
        "dotfile",
        f"<servers>\n  <server>\n    <id>nexus-releases</id>\n    <username>deployer</username>\n"
        f"    <password>{_pw()}</password>\n  </server>\n</servers>",
    )
    add(
        "gradle_properties_signing",
        "dotfile",
        f"signing.keyId=24875D73\nsigning.password={_pw()}\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg\n"
        f"ossrhUsername=acme\nossrhPassword={_pw()}\n",
    )
    add(
        "composer_auth_json",
        "dotfile",
        '{"http-basic": {"repo.packagist.corp": {"username": "ci", "password": "' + _pw() + '"}}}',
    )
    add(
        "nuget_config_cleartext",
        "dotfile",
        '<packageSourceCredentials>\n  <corp>\n    <add key="Username" value="build" />\n'
        f'    <add key="ClearTextPassword" value="{_pw()}" />\n  </corp>\n</packageSourceCredentials>',
    )

    # --- Java / Spring .properties
    add(
        "spring_datasource_password",
        "properties",
        "spring.datasource.url=jdbc:postgresql://db:5432/orders\nspring.datasource.username=orders\n"
        f"spring.datasource.password={_pw()}\n",
    )
    add(
        "spring_mail_password",
        "properties",
        f"spring.mail.host=smtp.corp.example\nspring.mail.username=noreply\nspring.mail.password={_pw()}\n",
    )
    add(
        "kafka_ssl_keystore",
        "properties",
        f"ssl.keystore.location=/etc/kafka/client.jks\nssl.keystore.password={_pw()}\nssl.key.password={_pw()}\n",
    )
    add("minecraft_rcon", "properties", f"enable-rcon=true\nrcon.port=25575\nrcon.password={_pw(10)}\n")

    # --- PowerShell / Windows
    add(
        "ps_securestring",
        "windows",
        f'$pw = ConvertTo-SecureString "{_pw()}" -AsPlainText -Force\n'
        "$cred = New-Object System.Management.Automation.PSCredential('CORP\\svc_deploy', $pw)",
    )
    add("cmdkey_add", "windows", f"cmdkey /add:fileserver01 /user:CORP\\svc_backup /pass:{_pw()}")
    add(
        "net_use_share", "windows", f"net use Z: \\\\nas01\\projects /user:CORP\\jdoe {_pw()} /persistent:yes"
    )
    add(
        "schtasks_rp",
        "windows",
        f'schtasks /create /tn "Nightly export" /tr C:\\jobs\\export.cmd /sc daily /ru CORP\\svc_export /rp {_pw()}',
    )
    add(
        "reg_autologon",
        "windows",
        'reg add "HKLM\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Winlogon" /v DefaultPassword '
        f"/t REG_SZ /d {_pw()} /f",
    )
    add(
        "unattend_admin_password",
        "windows",
        f"<AdministratorPassword>\n  <Value>{_pw()}</Value>\n  <PlainText>true</PlainText>\n</AdministratorPassword>",
    )

    # --- iOS / Android
    add(
        "ios_plist_api_secret",
        "mobile",
        f"<key>BackendAPISecret</key>\n<string>{_an(40)}</string>\n<key>CFBundleName</key>\n<string>Atlas</string>",
    )
    add(
        "android_key_properties",
        "mobile",
        f"storePassword={_pw()}\nkeyPassword={_pw()}\nkeyAlias=upload\nstoreFile=/Users/me/upload-keystore.jks\n",
    )
    add(
        "gradle_signing_config",
        "mobile",
        'signingConfigs {\n    release {\n        storeFile file("release.keystore")\n'
        f'        storePassword "{_pw()}"\n        keyAlias "release"\n        keyPassword "{_pw()}"\n    }}\n}}',
    )
    add(
        "xcconfig_secret",
        "mobile",
        f"// Secrets.xcconfig\nAPI_BASE_URL = https:/$()/api.atlas.app\nAPI_CLIENT_SECRET = {_an(36)}\n",
    )
    add(
        "fastlane_match_password",
        "mobile",
        f"export MATCH_PASSWORD='{_pw()}'\nbundle exec fastlane match appstore --readonly",
    )

    # --- SQL, LDAP, Redis, MQTT, SMTP, Kafka, other servers
    add(
        "sql_create_user",
        "servers",
        f"CREATE USER reporting WITH PASSWORD '{_pw()}';\nGRANT pg_read_all_data TO reporting;",
    )
    add(
        "sql_alter_identified_by",
        "servers",
        f"ALTER USER 'app'@'%' IDENTIFIED BY '{_pw()}';\nFLUSH PRIVILEGES;",
    )
    add(
        "mongo_create_user",
        "servers",
        f'db.createUser({{user: "analytics", pwd: "{_pw()}", roles: [{{role: "read", db: "events"}}]}})',
    )
    add(
        "ldapsearch_bind",
        "servers",
        f'ldapsearch -x -H ldaps://ldap.corp.example -D "cn=admin,dc=corp,dc=example" -w {_pw()} -b "ou=people,dc=corp,dc=example"',
    )
    add(
        "ldap_bind_config",
        "servers",
        f"bindDN: cn=svc-gitlab,ou=services,dc=corp,dc=example\nbindPassword: {_pw()}\nbase: dc=corp,dc=example\n",
    )
    add("redis_cli_auth", "servers", f"redis-cli -h cache.internal -p 6380 --tls\n> AUTH default {_pw()}\nOK")
    add("redis_cli_a", "servers", f"redis-cli -h 10.2.0.7 -a '{_pw()}' --no-auth-warning info replication")
    add(
        "mosquitto_pub",
        "servers",
        f'mosquitto_pub -h broker.iot.example -p 8883 -u sensor-gw -P "{_pw()}" -t plant/line1/temp -m 21.5',
    )
    add(
        "smtp_login_prose",
        "servers",
        f"Alerts mailbox: smtp.office365.com:587 STARTTLS, login alerts@corp.example / {_pw()}",
    )
    add(
        "kafka_jaas_plain",
        "servers",
        "sasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
        f'username="svc-orders" password="{_pw()}";',
    )
    add(
        "odbc_connection_string",
        "servers",
        f"Driver={{ODBC Driver 18 for SQL Server}};Server=tcp:sql01,1433;Database=erp;Uid=sa;Pwd={_pw()};Encrypt=yes;",
    )
    add(
        "jdbc_sqlserver_password",
        "servers",
        f"jdbc:sqlserver://sql01:1433;databaseName=erp;user=report;password={_pw()};encrypt=true",
    )
    add("sqlplus_connect", "servers", f"sqlplus system/{_pw()}@//ora01.corp.example:1521/ORCLPDB1")
    add("mysql_dash_p", "servers", f"mysql -h 127.0.0.1 -u root -p{_pw()} shop < dump.sql")
    add(
        "ipmitool_pass",
        "servers",
        f"ipmitool -I lanplus -H 10.0.9.21 -U ADMIN -P {_pw()} chassis power status",
    )
    add(
        "cisco_enable_secret",
        "servers",
        f"hostname edge-rtr1\nenable secret 0 {_pw()}\nusername netops privilege 15 password 0 {_pw()}\n",
    )
    add("snmp_community", "servers", f"snmpwalk -v2c -c {_pw(12)} 10.0.0.1 1.3.6.1.2.1.1")
    add("lftp_user_pass", "servers", f"lftp -u ftpupload,{_pw()} sftp://files.partner.example")
    add("sshpass_p", "servers", f"sshpass -p '{_pw()}' ssh -o StrictHostKeyChecking=no root@10.0.3.9")
    add(
        "openssl_passout",
        "servers",
        f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{_pw()}",
    )
    add(
        "keytool_storepass",
        "servers",
        f"keytool -importcert -alias corp-ca -file ca.crt -keystore truststore.jks -storepass {_pw()}",
    )
    add(
        "rabbitmqctl_add_user",
        "servers",
        f"rabbitmqctl add_user ingest {_pw()}\nrabbitmqctl set_user_tags ingest monitoring",
    )
    add("htpasswd_b", "servers", f"htpasswd -b -c /etc/nginx/.htpasswd admin {_pw()}")
    add(
        "helm_values_password",
        "servers",
        f"postgresql:\n  auth:\n    username: app\n    postgresPassword: {_pw()}\n    database: app\n",
    )
    add(
        "systemd_environment",
        "servers",
        f'[Service]\nEnvironment="DB_PASS={_pw()}"\nExecStart=/opt/app/bin/server',
    )
    add("vault_unseal_key", "servers", f"Vault unseal key 1: {_b64bytes(33)}\n(keys 2-5 are with the others)")

    # --- webhook URLs with the secret in the path, cookies, sessions
    add(
        "webhook_generic_path",
        "web",
        f"The deploy bot posts to https://chat.corp.example/hooks/incoming/{_an(24)}/{_an(32)} (that URL is the credential).",
    )
    add(
        "webhook_discord",
        "web",
        f"Release notes webhook: https://discord.com/api/webhooks/{_R.randrange(10**17, 10**18)}/{_b64url_token(68)}",
    )
    add(
        "webhook_teams",
        "web",
        f"Teams alert URL: https://corpexample.webhook.office.com/webhookb2/{_uuid()}@{_uuid()}/IncomingWebhook/{_hex(32)}/{_uuid()}",
    )
    add(
        "cookie_connect_sid",
        "web",
        f"To reproduce, reuse my browser session: Cookie: connect.sid=s%3A{_b64url_token(32)}.{_b64url_token(43)}",
    )
    add(
        "cookie_django_sessionid",
        "web",
        f"Logged-in admin session for the repro (expires in 2 weeks): sessionid={_pick(_LOWER_D, 32)}",
    )
    add(
        "cookie_rails_signed",
        "web",
        f"_shop_session={_b64url_token(120)}--{_hex(40)}   <- admin's cookie from the HAR file",
    )
    add("jupyter_token_url", "web", f"Jupyter on the GPU box: http://10.0.5.4:8888/lab?token={_hex(48)}")
    add(
        "query_string_password",
        "web",
        f"The legacy report endpoint takes creds in the query: https://reports.corp.example/export?user=finance&password={_pw()}",
    )

    # --- recovery codes, backup codes, Wi-Fi, PINs
    add(
        "recovery_codes_list",
        "codes",
        "Recovery codes for the ops@ GitHub account:\n"
        + "\n".join(f"{_pick(_LOWER_D, 5)}-{_pick(_LOWER_D, 5)}" for _ in range(8)),
    )
    add(
        "backup_codes_digits",
        "codes",
        "Google backup codes (shared admin): " + ", ".join(f"{_R.randrange(10**7, 10**8)}" for _ in range(6)),
    )
    add(
        "bitlocker_recovery_key",
        "codes",
        "BitLocker recovery key for LAPTOP-0421: " + "-".join(f"{_R.randrange(10**6):06d}" for _ in range(8)),
    )
    add(
        "gmail_app_password",
        "codes",
        "App password for the alerts mailbox (Gmail): "
        + " ".join(_pick(string.ascii_lowercase, 4) for _ in range(4)),
    )
    add("nmcli_wifi", "codes", f'nmcli dev wifi connect "Office-5G" password "{_pw(12)}"')
    add("wifi_qr_string", "codes", f"Wi-Fi QR payload for the lab: WIFI:T:WPA;S:Lab-IoT;P:{_pw(12)};;")
    add("wpa_supplicant_psk", "codes", f'network={{\n    ssid="Workshop"\n    psk="{_pw(14)}"\n}}')
    add("phone_voicemail_pin", "codes", "Voicemail PIN for the support line (+44 20 7946 0018) is 58219.")

    # --- tables, split, spelled-out, wrapped
    add(
        "md_table_password_col",
        "shapes",
        "| service | user | password |\n|---|---|---|\n"
        f"| grafana | admin | {_pw()} |\n| jenkins | ci | {_pw()} |\n| minio | root | {_pw()} |",
    )
    add(
        "csv_email_password",
        "shapes",
        f"email,password,role\nops@corp.example,{_pw()},admin\nqa@corp.example,{_pw()},viewer",
    )
    pw_sp = _pw(10)
    add(
        "spelled_letter_by_letter",
        "shapes",
        "The kiosk password, letter by letter: " + ", ".join(pw_sp) + " (case matters).",
    )
    add(
        "split_two_halves",
        "shapes",
        f"The safe's admin password is in two parts.\nFirst half: {_pw(8)[:7]}\nSecond half: {_an(7)}\nJoin them with no space.",
    )
    add("split_user_pass_lines", "shapes", f"Jenkins (old)\nuser\njenkins-admin\npass\n{_pw()}\n")
    add(
        "b64_wrapped_user_pass",
        "shapes",
        f"The partner API uses basic auth; their docs gave us this header value: {_b64(('acme-integration:' + _pw()).encode())}",
    )
    add(
        "hex_wrapped_secret",
        "shapes",
        f"Decoder key stored as hex in the firmware config: secret=0x{_pw(16).encode().hex()}",
    )
    add("b64_password_labelled", "shapes", f"DB password (base64, decode before use): {_b64(_pw().encode())}")
    add(
        "nato_spelled_password",
        "shapes",
        "Router password in NATO so it survives the phone call: Kilo seven Victor hotel Bravo nine Zulu Quebec.",
    )
    add(
        "code_comment_creds",
        "shapes",
        f"// TODO remove before merge: test against prod with admin / {_pw()}\nconst client = new Api(url);",
    )
    add(
        "commit_message_pw",
        "shapes",
        f"The offending commit's message was 'temp: hardcode pw {_pw()} for the demo' - rewrite history.",
    )

    # --- field-split memories: the label in one field, the value in another
    f.append(
        _item(
            "field_desc_label_body_value",
            "fields",
            _pw(14),
            description="password for the staging db (user app)",
            key="staging-db",
        )
    )
    f.append(
        _item(
            "field_key_label_body_value",
            "fields",
            f"{_pw(13)}\n",
            description="the NAS",
            key="nas-admin-password",
        )
    )
    f.append(
        _item("field_desc_user_body_pass", "fields", f"pass: {_pw(12)}", description="VPN login for jdoe")
    )

    # --- passwords made only of name-like words, and a trailing ! as the only mark
    add(
        "namelike_three_words",
        "namelike",
        "The NAS admin password is BlueHarborTulip, set by Ines last week.",
    )
    add("namelike_person_name", "namelike", "pw for the jenkins admin: OliviaMartinezRiver")
    add("namelike_yaml", "namelike", "wifi:\n  ssid: Orchard\n  password: MapleCrescentOtter\n")
    add(
        "namelike_chat",
        "namelike",
        "Tomas says the projector login is admin and the password is PurpleElephantDance.",
    )
    add("bang_welcome", "bang", "Default login for the new laptops is itadmin / Welcome2Corp!")
    add("bang_sunflower", "bang", "password = Sunflower2024!")
    add("bang_sentence", "bang", "Reset the kiosk account; its password is now Harborview88!")
    add("bang_yaml", "bang", "smtp:\n  user: noreply\n  pass: Springtime7!\n")

    # --- more secrets in unusual labels
    add("laravel_app_key", "labels", f"APP_KEY=base64:{_b64bytes(32)}")
    add("rails_secret_key_base", "labels", f"production:\n  secret_key_base: {_hex(128)}")
    add(
        "rails_master_key_prose",
        "labels",
        f"The rails master.key for the shop app is {_hex(32)} (config/master.key is gitignored).",
    )
    add(
        "django_secret_key",
        "labels",
        f"SECRET_KEY = '{_pick(string.ascii_lowercase + string.digits + '!@#$%^&*(-_=+)', 50)}'",
    )
    escaped = "".join("\\x%02x" % _R.randrange(256) for _ in range(16))
    add("flask_secret_key", "labels", f"app.secret_key = b'{escaped}'")
    add("nextauth_secret", "labels", f"NEXTAUTH_SECRET={_b64bytes(32)}")
    add(
        "jwt_shared_secret_prose",
        "labels",
        f"We sign the session JWTs with HS256 and the shared secret {_an(44)}.",
    )
    add(
        "azure_storage_conn",
        "labels",
        f"DefaultEndpointsProtocol=https;AccountName=stprodlogs;AccountKey={_b64bytes(64)};EndpointSuffix=core.windows.net",
    )
    add(
        "azure_sas_url",
        "labels",
        "https://stprodlogs.blob.core.windows.net/exports/report.csv?sv=2022-11-02&ss=b&srt=o&sp=r"
        f"&se=2027-01-01T00:00:00Z&st=2026-12-01T00:00:00Z&spr=https&sig={_b64bytes(32).replace('+', '%2B').replace('/', '%2F')}",
    )
    add(
        "minio_root_password",
        "labels",
        f"docker run -d -p 9000:9000 -e MINIO_ROOT_USER=admin -e MINIO_ROOT_PASSWORD={_pw()} minio/minio server /data",
    )
    add("pgpassword_env", "labels", f"PGPASSWORD='{_pw()}' pg_dump -h db.prod -U backup orders > orders.sql")
    add(
        "wireguard_private",
        "labels",
        f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {_b64bytes(32)}\nDNS = 10.8.0.1",
    )
    add(
        "openvpn_auth_file",
        "labels",
        f"auth-user-pass creds.txt, and creds.txt holds two lines:\nvpn-jdoe\n{_pw()}",
    )
    return f


def _b64url_token(n: int) -> str:
    return _pick(_B64URL, n)


def _look_alikes() -> list[dict]:  # noqa: PLR0915 - a flat list of memories
    f: list[dict] = []

    def add(name: str, cls: str, body: str, description: str = "", key: str = "") -> None:
        f.append(_item(name, cls, body, description, key))

    vault_blob = "\n".join(_hex(80) for _ in range(5))
    add("la_ansible_vault_blob", "encrypted", f"$ANSIBLE_VAULT;1.1;AES256\n{vault_blob}\n")
    add(
        "la_ansible_vault_inline",
        "encrypted",
        "db_password: !vault |\n  $ANSIBLE_VAULT;1.2;AES256;prod\n  "
        + "\n  ".join(_hex(80) for _ in range(4))
        + "\n",
    )
    add(
        "la_sops_yaml",
        "encrypted",
        f"password: ENC[AES256_GCM,data:{_b64bytes(12)},iv:{_b64bytes(32)},tag:{_b64bytes(16)},type:str]\n"
        f"sops:\n  kms:\n  - arn: arn:aws:kms:eu-west-1:123456789012:key/{_uuid()}\n",
    )
    add(
        "la_sealed_secret",
        "encrypted",
        f"kind: SealedSecret\nspec:\n  encryptedData:\n    password: {_b64bytes(300)}\n",
    )
    add("la_ansible_jinja_ref", "placeholder", 'mysql_root_password: "{{ vault_mysql_root_password }}"')
    add(
        "la_ansible_lookup_env",
        "placeholder",
        "ansible_become_password: \"{{ lookup('env', 'BECOME_PASS') }}\"",
    )
    add(
        "la_ansible_vault_pass_file_path",
        "placeholder",
        "ansible.cfg: vault_password_file = ~/.vault_pass.txt (the file itself lives only on the bastion).",
    )
    add(
        "la_ansible_inventory",
        "config",
        "[web]\nweb-01 ansible_host=10.0.0.4 ansible_user=deploy ansible_port=2222\n",
    )
    add(
        "la_ansible_no_log",
        "config",
        '- name: create users\n  user:\n    name: "{{ item }}"\n  loop: "{{ users }}"\n  no_log: true\n',
    )

    add(
        "la_tf_random_password",
        "placeholder",
        'resource "random_password" "db" {\n  length  = 24\n  special = true\n}\n\n'
        'resource "aws_db_instance" "main" {\n  password = random_password.db.result\n}',
    )
    add(
        "la_tf_var_ref",
        "placeholder",
        "administrator_login_password = var.sql_admin_password\n# sensitive = true on the variable",
    )
    add(
        "la_tf_arn",
        "ids",
        f'"arn": "arn:aws:iam::123456789012:user/deploy",\n"unique_id": "AIDA{_pick(string.ascii_uppercase + string.digits, 17)}"',
    )
    add(
        "la_tf_state_ids",
        "ids",
        f'subscription_id = "{_uuid()}"\ntenant_id       = "{_uuid()}"\nclient_id       = "{_uuid()}"',
    )
    add(
        "la_tf_lock_hashes",
        "hashes",
        'provider "registry.terraform.io/hashicorp/aws" {\n  version = "5.31.0"\n  hashes = [\n'
        f'    "h1:{_b64bytes(32)}",\n    "zh:{_hex(64)}",\n  ]\n}}',
    )

    add(
        "la_npmrc_env_ref",
        "placeholder",
        "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n@corp:registry=https://npm.corp.example/",
    )
    add(
        "la_pypirc_no_password",
        "placeholder",
        "[internal]\nrepository = https://pypi.corp.example/simple\nusername = build\n# password comes from keyring",
    )
    add(
        "la_docker_creds_store",
        "config",
        '{\n  "credsStore": "desktop",\n  "credHelpers": {"123456789012.dkr.ecr.eu-west-1.amazonaws.com": "ecr-login"}\n}',
    )
    add(
        "la_git_credential_helper",
        "config",
        "git config --global credential.helper osxkeychain\ngit remote -v  # https://git.corp.example/team/api.git",
    )
    add(
        "la_maven_env_password",
        "placeholder",
        "<server>\n  <id>nexus</id>\n  <username>${env.NEXUS_USER}</username>\n  <password>${env.NEXUS_PASSWORD}</password>\n</server>",
    )
    add(
        "la_gradle_properties_plain",
        "config",
        "org.gradle.jvmargs=-Xmx4g -Dfile.encoding=UTF-8\nandroid.useAndroidX=true\nkotlin.code.style=official\n",
    )
    add(
        "la_gradle_find_property",
        "placeholder",
        'password = findProperty("ossrhPassword") as String? ?: System.getenv("OSSRH_PASSWORD")',
    )
    add(
        "la_spring_env_ref",
        "placeholder",
        "spring.datasource.url=jdbc:postgresql://db:5432/orders\nspring.datasource.username=orders\nspring.datasource.password=${DB_PASSWORD}\n",
    )
    add(
        "la_kafka_jaas_env",
        "placeholder",
        'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="svc" password="${file:/etc/kafka/secrets.properties:password}";',
    )
    add(
        "la_kafka_plain_config",
        "config",
        "security.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nbootstrap.servers=kafka-1:9093,kafka-2:9093\n",
    )

    add(
        "la_ps_get_credential",
        "placeholder",
        "$cred = Get-Credential -UserName 'CORP\\svc_deploy' -Message 'Deploy account'\nInvoke-Command -ComputerName web01 -Credential $cred {}",
    )
    add(
        "la_ps_read_host",
        "placeholder",
        '$pw = Read-Host -AsSecureString "Password"\n$pw2 = ConvertTo-SecureString $env:DEPLOY_PW -AsPlainText -Force',
    )
    add(
        "la_ps_secret_management",
        "placeholder",
        "Get-Secret -Name ProdDbPassword -Vault CorpVault -AsPlainText | Set-Clipboard",
    )
    add(
        "la_cmdkey_list",
        "config",
        "cmdkey /list\n\nCurrently stored credentials:\n    Target: Domain:target=fileserver01\n    Type: Domain Password\n    User: CORP\\svc_backup",
    )
    add("la_windows_sid", "ids", "Service account SID: S-1-5-21-3623811015-3361044348-30300820-1013")

    add(
        "la_google_services_ids",
        "ids",
        '{\n  "project_info": {"project_number": "'
        + str(_R.randrange(10**11, 10**12))
        + '", "project_id": "atlas-prod"},\n  "client": [{"client_info": {"mobilesdk_app_id": "1:'
        + str(_R.randrange(10**11, 10**12))
        + f':android:{_hex(16)}"}}}}]\n}}',
    )
    add(
        "la_info_plist",
        "config",
        "<key>CFBundleIdentifier</key>\n<string>com.example.atlas</string>\n<key>NSCameraUsageDescription</key>\n<string>Scan receipts</string>",
    )
    add(
        "la_android_key_props_env",
        "placeholder",
        'storePassword=System.getenv("STORE_PASSWORD")\nkeyAlias=upload\nstoreFile=upload-keystore.jks',
    )
    add(
        "la_ios_team_ids",
        "ids",
        f"DEVELOPMENT_TEAM = {_pick(string.ascii_uppercase + string.digits, 10)}\nPRODUCT_BUNDLE_IDENTIFIER = com.example.atlas",
    )

    add(
        "la_sql_password_variable",
        "placeholder",
        "\\set pw `echo $APP_PW`\nCREATE USER app WITH PASSWORD :'pw';",
    )
    add(
        "la_sql_readme_template",
        "placeholder",
        "From the README: CREATE USER <app_user> WITH PASSWORD '<strong-password>';",
    )
    add(
        "la_sql_grants",
        "config",
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO reporting;\nALTER ROLE reporting VALID UNTIL 'infinity';",
    )
    add(
        "la_ldap_bind_file",
        "placeholder",
        "bindDN: cn=readonly,dc=corp,dc=example\nbindPasswordFile: /run/secrets/ldap_bind\n",
    )
    add(
        "la_ldap_dn_only",
        "ids",
        "Users live under ou=people,dc=corp,dc=example; groups under ou=groups. uid=jdoe is in cn=devs.",
    )
    add("la_redis_foobared", "placeholder", "redis.conf default, still commented:\n# requirepass foobared\n")
    add("la_redis_info", "config", "redis-cli -h cache.internal INFO memory | grep used_memory_human")
    add(
        "la_mqtt_topics",
        "config",
        f"Topics: plant/+/temp, plant/line1/#; client id esp32-{_hex(6)}; QoS 1, retain off.",
    )
    add(
        "la_smtp_settings",
        "config",
        "SMTP: smtp.office365.com, port 587, STARTTLS, auth via OAuth2 app registration (no basic auth).",
    )

    add(
        "la_webhook_no_secret",
        "urls",
        "GitHub sends push events to https://ci.corp.example/hooks/github/push; the HMAC is checked with a secret from Vault.",
    )
    add(
        "la_cookie_theme",
        "web",
        "Set-Cookie: theme=dark; Path=/; SameSite=Lax\nSet-Cookie: locale=en-GB; Path=/",
    )
    add(
        "la_cookie_analytics",
        "web",
        f"_ga=GA1.2.{_R.randrange(10**9, 10**10)}.{_R.randrange(1_600_000_000, 1_800_000_000)}; _gid=GA1.2.{_R.randrange(10**8, 10**9)}.1733400000",
    )
    add("la_traceparent", "ids", f"traceparent: 00-{_hex(32)}-{_hex(16)}-01\nrequest id req_{_an(14)}")
    add(
        "la_session_talk",
        "talk",
        "Sessions expire after 30 minutes idle; the session id cookie is HttpOnly and Secure.",
    )

    add(
        "la_recovery_talk",
        "talk",
        "Regenerated the recovery codes for ops@ and put the printout in the office safe.",
    )
    add(
        "la_wifi_enterprise",
        "talk",
        "Wi-Fi: SSID Corp-Secure is WPA2-Enterprise, you log in with your SSO account.",
    )
    add(
        "la_pin_policy",
        "policy",
        "The door PIN must be 6 digits and is changed every quarter; ask facilities.",
    )
    add(
        "la_port_and_error_numbers",
        "ids",
        "Service listens on port 4471; error 9083 means the upstream timed out after 30s.",
    )
    add("la_phone_extension", "ids", "Support line +44 20 7946 0018, extension 5821.")

    add(
        "la_md_table_no_values",
        "shapes",
        "| service | user | password |\n|---|---|---|\n| grafana | admin | in 1Password (Grafana prod) |\n"
        "| jenkins | ci | Vault: secret/ci/jenkins |\n| minio | root | ******** |",
    )
    add(
        "la_md_table_ids",
        "shapes",
        f"| host | instance id | ami |\n|---|---|---|\n| web-01 | i-{_hex(17)} | ami-{_hex(17)} |\n| web-02 | i-{_hex(17)} | ami-{_hex(17)} |",
    )
    add(
        "la_csv_no_secret",
        "shapes",
        "email,role,last_login\nops@corp.example,admin,2026-12-01\nqa@corp.example,viewer,2026-11-28",
    )
    add(
        "la_b64_hello",
        "shapes",
        "echo aGVsbG8gd29ybGQK | base64 -d   # prints hello world, used to test the pipeline",
    )
    add("la_hex_hello", "shapes", "The magic bytes 0x48656c6c6f at offset 0 mean the file is our old format.")
    add(
        "la_data_uri_png",
        "shapes",
        f'<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ{_b64bytes(24)}">',
    )
    add(
        "la_jwt_header_only",
        "shapes",
        'The token header decodes to eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9 = {"alg":"RS256","typ":"JWT"}.',
    )

    add(
        "la_hash_bcrypt_fixture",
        "hashes",
        f"Fixture user hash (bcrypt, cost 12): $2b$12${_pick(_ALNUM + './', 53)}",
    )
    add("la_sha256_digest", "hashes", f"docker pull ghcr.io/corp/api@sha256:{_hex(64)}")
    add("la_npm_integrity", "hashes", f'"integrity": "sha512-{_b64bytes(64)}"')
    add("la_go_sum", "hashes", f"golang.org/x/net v0.19.0 h1:{_b64bytes(32)}")
    add("la_git_shas", "hashes", f"Bisected to {_hex(40)}; the parent {_hex(40)} is good.")
    add("la_etag_md5", "hashes", f'ETag: "{_hex(32)}"\nContent-MD5: {_b64bytes(16)}')
    add(
        "la_ssh_host_fingerprint",
        "hashes",
        f"Host key fingerprint for bastion: SHA256:{_b64bytes(32).rstrip('=')} (ED25519)",
    )
    add("la_container_id", "ids", f"docker ps: {_hex(12)}   api:1.8.2   Up 3 hours; full id {_hex(64)}")
    add(
        "la_k8s_pod_names",
        "ids",
        f"web-7d9f8c6b5-{_pick(_LOWER_D, 5)} and worker-5c8d7f9b4-{_pick(_LOWER_D, 5)} restarted.",
    )
    add("la_google_doc_url", "urls", f"Spec: https://docs.google.com/document/d/{_b64url_token(44)}/edit")
    add("la_youtube_url", "urls", f"Talk recording: https://www.youtube.com/watch?v={_b64url_token(11)}")
    add("la_ulid", "ids", f"Order ids are ULIDs now, e.g. 01{_pick('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 24)}.")
    add("la_uuid_list", "ids", "Affected tenants:\n" + "\n".join(f"- {_uuid()}" for _ in range(4)))

    add(
        "la_ssh_public_key",
        "public",
        f"Add this to authorized_keys: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{_b64bytes(32)[:43]} jdoe@laptop",
    )
    add(
        "la_wireguard_public",
        "public",
        f"[Peer]\nPublicKey = {_b64bytes(32)}\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.corp.example:51820",
    )
    add(
        "la_age_recipient",
        "public",
        f"Encrypt backups to the age recipient age1{_pick('qpzry9x8gf2tvdw0s3jn54khce6mua7l', 58)}",
    )
    add(
        "la_pgp_fingerprint",
        "public",
        f"Release signing key fingerprint: {' '.join(_hex(4).upper() for _ in range(10))}",
    )
    add(
        "la_certificate_block",
        "public",
        "-----BEGIN CERTIFICATE-----\n"
        + "\n".join(_b64bytes(48) for _ in range(6))
        + "\n-----END CERTIFICATE-----",
    )
    add(
        "la_jwks_modulus",
        "public",
        f'{{"kty": "RSA", "kid": "{_hex(8)}", "use": "sig", "alg": "RS256", "n": "{_b64url_token(342)}", "e": "AQAB"}}',
    )

    add(
        "la_placeholder_angle",
        "placeholder",
        "curl -H 'Authorization: Bearer <your-token>' https://api.corp.example/v1/me",
    )
    add(
        "la_placeholder_changeme",
        "placeholder",
        "The image ships with ADMIN_PASSWORD=changeme; the entrypoint refuses to start until you set your own.",
    )
    add("la_placeholder_x", "placeholder", "password: xxxxxxxxxxxx   # fill in locally, never commit")
    add(
        "la_placeholder_redacted",
        "placeholder",
        "Connection string from the log: Server=sql01;User Id=sa;Password=<redacted>;",
    )
    add("la_placeholder_your_password_here", "placeholder", "DB_PASSWORD=your_password_here")
    add(
        "la_aws_docs_example",
        "placeholder",
        "From the AWS docs: aws_access_key_id = AKIAIOSFODNN7EXAMPLE, aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    )
    add(
        "la_env_names_only",
        "placeholder",
        "export DB_PASSWORD\nunset AWS_SECRET_ACCESS_KEY\nenv | grep -c TOKEN",
    )
    add(
        "la_k8s_secret_ref",
        "placeholder",
        "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db-credentials\n      key: password",
    )
    add(
        "la_pgpass_format",
        "talk",
        "The .pgpass format is hostname:port:database:username:password, one per line, mode 0600.",
    )
    add(
        "la_cli_help_password",
        "talk",
        "--password PASSWORD   password to use (default: prompt; or set APP_PASSWORD)",
    )
    add(
        "la_openssl_rand",
        "talk",
        "Generate the secret with `openssl rand -base64 32` and paste it into the vault UI, not here.",
    )

    add(
        "la_policy_length",
        "policy",
        "Password policy: at least 12 characters, one uppercase, one digit and one symbol; no reuse of the last 5.",
    )
    add("la_policy_regex", "policy", "Validation regex: ^(?=.*[A-Z])(?=.*\\d)(?=.*[!@#$%^&*]).{12,}$")
    add(
        "la_policy_rotation",
        "policy",
        "Service account passwords rotate every 90 days; the rotation job emails the owner a week before.",
    )
    add("la_talk_reset", "talk", "I reset my password for the HR portal today; the old one had expired.")
    add("la_talk_sam_will_send", "talk", "Sam will send the staging creds over 1Password, not Slack.")
    add(
        "la_talk_field_masked",
        "talk",
        "The password field is masked and the 'show' toggle was broken on Safari; fixed in PR 4412.",
    )
    add(
        "la_talk_token_counts",
        "talk",
        "Token budget: 128000 tokens context, tokenizer cl100k_base, max_tokens 4096.",
    )
    add(
        "la_talk_keys_keyboard",
        "talk",
        "The key binding for the palette is Ctrl+Shift+P; primary key is (user_id, created_at).",
    )
    add(
        "la_talk_secret_object",
        "talk",
        "Kubernetes Secret db-credentials in namespace prod holds the password; rotate with the sealed-secrets controller.",
    )
    add(
        "la_password_reset_route",
        "talk",
        'forgot_password_url = "/account/forgot-password"\nclass PasswordResetController(BaseController): ...',
    )

    add(
        "la_version_strings",
        "versions",
        "Upgraded node 20.11.1 -> 22.12.0, EKS 1.29.4-eks-036c24b, app v2.14.3-rc.1+build.5521.",
    )
    add("la_semver_bang", "versions", "Release 4.0.0 is out, finally!")
    add("la_excited_prose", "versions", "Deploy went green on the first try! Welcome back, Olivia!")
    add(
        "la_branch_namelike",
        "namelike",
        "Branch name: BlueHarborRelease; codename for the Q1 train is MapleCrescentOtter.",
    )
    add(
        "la_pairing_names",
        "namelike",
        "Paired with OliviaMartinez on PaymentsRetry; PurpleElephant is the staging cluster's name.",
    )
    add(
        "la_nato_talk",
        "namelike",
        "Call signs on the bridge: Alpha is the primary, Bravo the standby, Charlie the DR site.",
    )

    add("la_fake_card", "fixtures", "Use Stripe's test card 4242 4242 4242 4242, any future expiry, any CVC.")
    add(
        "la_fixture_password_test",
        "fixtures",
        '@pytest.fixture\ndef user(db):\n    return User.create(email="a@example.com", password="test")',
    )
    add(
        "la_fixture_faker",
        "fixtures",
        "factory: password = factory.Faker('password', length=16) -- generated per test run",
    )
    add(
        "la_sha256_of_password",
        "fixtures",
        "Sanity check: sha256('password') = 5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8",
    )
    add(
        "la_license_placeholder",
        "fixtures",
        "Licence key format: XXXXX-XXXXX-XXXXX-XXXXX (see the vendor portal).",
    )
    add("la_mac_ipv6", "ids", "eth0 mac 3c:22:fb:9a:01:7e, inet6 fe80::3e22:fbff:fe9a:17e/64")
    add("la_color_hexes", "ids", "Theme: #0f172a background, #38bdf8 accent, #f8fafc text.")
    add(
        "la_error_codes_list", "ids", "Codes seen: E1042, E2210, E3307, W0091 - all from the payment adapter."
    )
    add("la_cron_and_numbers", "ids", "Cron 17 3 * * 1-5, retention 30d, batch size 5000, timeout 900s.")
    add(
        "la_ssh_command",
        "config",
        "ssh -i ~/.ssh/id_ed25519 -p 2222 deploy@10.0.3.9 'sudo systemctl status api'",
    )
    add(
        "la_jdbc_no_password",
        "config",
        "jdbc:postgresql://db.prod:5432/orders?sslmode=verify-full&ApplicationName=orders-api",
    )
    add(
        "la_systemd_env_file",
        "config",
        "[Service]\nEnvironmentFile=/etc/app/app.env\nExecStart=/opt/app/bin/server",
    )
    add(
        "la_helm_existing_secret",
        "placeholder",
        "postgresql:\n  auth:\n    existingSecret: app-db\n    secretKeys:\n      adminPasswordKey: postgres-password\n",
    )
    add(
        "la_azure_conn_no_key",
        "placeholder",
        "UseDevelopmentStorage=true  # Azurite locally; prod uses managed identity",
    )
    add(
        "la_jupyter_no_token",
        "urls",
        "Jupyter runs with --NotebookApp.token='' behind the SSO proxy at https://jupyter.corp.example/",
    )
    add(
        "la_webhook_docs",
        "placeholder",
        "Slack webhook URL goes in SLACK_WEBHOOK_URL (format https://hooks.slack.com/services/T000/B000/XXXX).",
    )
    return f


FORMS = _forms()
LOOK_ALIKES = _look_alikes()

assert len({it["name"] for it in FORMS + LOOK_ALIKES}) == len(FORMS) + len(LOOK_ALIKES)
