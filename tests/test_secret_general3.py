"""The secret gate's classes from the ninth blind corpus's misses: a credential known by its
shape and its place in syntaxes, files, commands and URLs the earlier rules did not read.

Each test draws its values afresh from a seeded generator and puts them in several forms of one
class (none is an item of a bench corpus), beside the look-alikes that share the place. Each
fails on the code before these rules (checked against the parent commit).
"""

from __future__ import annotations

import string

import pytest

from secret_probe import ALNUM, HEX, Draw, found, refused

LOWER = string.ascii_lowercase + string.digits
_DRAW = Draw(20261203)
r, _RNG = _DRAW.r, _DRAW.rng


def pw() -> str:
    """A person's password: letters, a digit and a symbol."""
    return r(9) + _RNG.choice("!#%&*+^") + r(3, string.digits)


def _each(templates: tuple[str, ...], make) -> None:
    for template in templates:
        for _ in range(3):
            text = template.format(v=make(), w=r(28))
            assert found(text), text


# --- a value and its label in another syntax --------------------------------------------------

@pytest.mark.parametrize("template", (
    "spring.mail.password=${{SMTP_PASS:{v}}}",
    "  password: ${{DB_PASSWORD:{v}}}",
    "<soap:Header><auth:Password>{v}</auth:Password></soap:Header>",
    "export DB_PASSWORD_STAGING='{v}'",
    "DOTENV_PRIVATE_KEY_PRODUCTION={w}",
    "API_TOKEN_2={w}",
    "       01  WS-DB-PASSWORD    PIC X(16) VALUE '{v}'.",
    '{{db_password, "{v}"}}',
    '{{mqtt, [{{password, <<"{v}">>}}]}}',
    'config :app, creds: [{{:api_secret, "{w}"}}]',
    "Das Passwort für den Testserver ist {v}.{w}",
))
def test_a_label_and_its_value_in_more_syntaxes(template: str) -> None:
    _each((template,), lambda: r(12))


@pytest.mark.parametrize("text", (
    "spring.mail.password=${SMTP_PASS}",
    "password: ${DB_PASSWORD:changeme}",
    "<ns1:tokenType>urn:ietf:params:oauth:token-type:jwt</ns1:tokenType>",
    "the signing key is loaded by crypto.ed25519.NewKeyFromSeed in keys.go",
    "see win32api.RegEnumKey for the key",
    "PUBLIC_KEY_PRODUCTION=5c7870634b666a6dd8529c40398f1ae6eda234627e36743bb2fd6b4eab33bc35",
    "       05  WS-PASSWORD-LEN  PIC 9(2)  VALUE 12.",
    '{db_password, os:getenv("DB_PASSWORD")}',
    'msg = f"{password}, {user}"',
))
def test_references_names_and_lengths_in_those_syntaxes_pass(text: str) -> None:
    assert not found(text), text


# --- armour of any name, URLs ------------------------------------------------------------------

def test_armour_that_names_a_key_and_not_a_public_one_is_a_secret_key() -> None:
    for label in ("OpenVPN Static key V1", "OpenVPN tls-crypt-v2 client key", "WIDGET SYMMETRIC KEY"):
        body = "\n".join(r(32, HEX) for _ in range(4))
        assert found(f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"), label
    for label in ("NEBULA X25519 PUBLIC KEY", "PGP PUBLIC KEY BLOCK", "CERTIFICATE", "DH PARAMETERS"):
        body = "\n".join(r(64, ALNUM + "+/") for _ in range(4))
        assert not found(f"-----BEGIN {label}-----\n{body}\n-----END {label}-----"), label
    assert not found("copy the file that starts with -----BEGIN OpenVPN Static key V1----- over")


def test_a_url_password_after_a_user_with_an_at_and_a_token_as_a_url_user() -> None:
    for _ in range(3):
        assert found(f"export GOVC_URL='https://administrator@vsphere.local:{pw()}@vc01.lab.local/sdk'")
        assert found(f"ftp://ci@corp.example:{r(14)}@ftp.corp.example/drop/")
        assert found(f"git remote set-url origin https://{r(40)}@git.corp.example/team/app.git")
        assert found(f"CARGO_REGISTRY_TOKENS={r(40)}@crates.corp.dev")
    # a Sentry DSN's public key (hex), a user with no password, addresses, ssh
    assert not found(f"SENTRY_DSN=https://{r(32, HEX)}@o614368.ingest.sentry.io/2123444")
    assert not found("https://jdoe@corp.example@intranet.corp.example/ (the form takes the UPN)")
    assert not found("token owners: alice@corp.example;bob@corp.example")
    assert not found("git clone ssh://git@git.corp.example:2222/team/app.git")
    assert not found("git clone https://x-access-token@github.com/org/repo")


# --- tables of any markup ------------------------------------------------------------------------

def test_a_credential_column_in_org_rst_and_html_tables() -> None:
    for _ in range(3):
        tok, p = r(32), pw()
        assert found(f"| env  | token |\n|------+-------|\n| prod | {tok} |")
        assert found(f"+------+----------+\n| host | password |\n+======+==========+\n| db1  | {p} |\n+------+----------+")
        assert found(f"<table><tr><th>App</th><th>Client secret</th></tr>\n<tr><td>billing</td><td>{tok}</td></tr></table>")
    assert not found("| env  | token    |\n|------+----------|\n| prod | in Vault |\n| dev  | ask Ana  |")
    assert not found("<table><tr><th>System</th><th>Password</th></tr><tr><td>VPN</td><td>rotated</td></tr></table>")
    assert not found(f"+------+--------+\n| host | key id |\n+======+========+\n| db1  | {r(16, HEX)} |\n+------+--------+")


# --- a user and a password as a command's arguments, a protocol's sign-in ------------------------

@pytest.mark.parametrize("template", (
    "rabbitmqctl change_password deploy {v}",
    "net user administrator {v} /domain",
    "htpasswd -b /etc/nginx/.htpasswd admin {v}",
    "mosquitto_passwd -b /etc/mosquitto/passwd sensor01 {v}",
    "poetry config http-basic.corp deployer {v}",
    "net use Z: \\\\fs01\\projects {v} /user:CORP\\svc_build /persistent:no",
    "docker login -u ci-bot -p {v} registry.corp.example",
    "Process Command Line:\tnet user svc_sql {v} /add",
    "+OK POP3 ready\nUSER mailbox01\n+OK\nPASS {v}\n+OK logged in",
    "* OK IMAP4rev1\na1 LOGIN mailbox01 {v}",
))
def test_a_password_given_to_a_command_after_its_user(template: str) -> None:
    _each((template,), pw)


def test_an_app_specific_password_after_p_once_u_gave_the_user() -> None:
    value = "-".join(r(4, string.ascii_lowercase) for _ in range(4))
    assert found(f"xcrun altool --upload-app -f App.ipa -u dev@corp.com -p {value}")


@pytest.mark.parametrize("text", (
    "ssh -p 2222 -u deploy build.corp.example",
    "docker run -u 1000 -p 8080:80 -p 8443:443 nginx:1.27",
    "net user svc_backup /domain",
    "rabbitmqctl add_user deploy\nrabbitmqctl set_user_tags deploy monitoring",
    "tar -u -p -f backup.tar /srv/data",
    "the user alice reported Qw3rtyUiop12 as broken",
    "USER STORY 41 done\nPASS tests/login.test.ts (2.3 s)\nPASS tests/token.test.ts",
))
def test_ports_flags_and_test_logs_beside_a_user_pass(text: str) -> None:
    assert not found(text), text


# --- prose, and a command's long output ----------------------------------------------------------

def test_passwords_named_by_what_they_open_and_quoted_passphrases() -> None:
    for _ in range(3):
        assert found(f"Guest wifi for the offsite: {r(12)} gets you in.")
        assert found(f"Shared login: jdoe@corp.com, use {r(14)} to get in.")
        words = " ".join(_RNG.choice(("tape", "shop", "opera", "foam", "lantern", "quartz", "meadow")) for _ in range(5))
        assert found(f'The backup drive\'s passphrase is "{words}" (all lowercase).')
    assert not found("The side door code gets you in after 6pm; ask reception.")
    assert not found('The passphrase is "any five words you like" per the policy.')


def test_a_long_token_printed_below_the_command_that_prints_it() -> None:
    out = r(1500, ALNUM + "-_")
    assert found(f"$ aws ecr get-login-password --region eu-west-1\n{out}")
    assert not found(f"$ sha512sum release.tar.gz\n{r(128, HEX)}  release.tar.gz")


# --- a literal a constructor or an auth function takes after the user ---------------------------

def test_a_secret_among_a_constructors_or_an_auth_functions_literals() -> None:
    for _ in range(3):
        assert found(f"const db = new Sequelize('shop', 'shop_app', '{pw()}', {{ dialect: 'mysql' }});")
        assert found(f'gw = PaymentGateway(\n    Env.LIVE,\n    "{r(16, LOWER)}",\n    "{r(32, HEX)}"\n)')
        assert found(f'req = applyBasicAuth "deployer" "{pw()}" base')
    for text in ('t("settings.title", "Account settings", "Kontoeinstellungen")',
                 'new Dependency("org.example", "client-lib", "2.14.0-rc1")',
                 'theme.add("primary", "#1E88E5", "#0D47A1")',
                 f'new Hash("sha256", "{r(64, HEX)}")',
                 f'assertEquals("digest", md5("x"), "{r(32, HEX)}")'):
        assert not found(text), text


# --- URLs that are their own key: hooks, deploy and trigger paths, stream keys, notifiers ---------

def test_urls_whose_path_or_authority_is_the_key() -> None:
    for _ in range(3):
        for text in (f"curl -X POST https://api.buildhost.example/build_hooks/{r(24, HEX)}",
                     f"https://api.hostco.example/v1/deploy/prj_{r(24)}/{r(10)}",
                     f"https://automations.example.net/trigger/door_open/with/key/{r(22)}",
                     f"DEPLOY_URL=https://api.hostco.example/deploy/srv-{r(20, LOWER)}?key={r(11)}",
                     "rtmp://live.streamhost.example/app/" + "-".join(r(4, "abcdefghjk0123456789") for _ in range(5)),
                     f"rtmps://ingest.example.tv:443/live/{r(32)}",
                     f"NOTIFY=tgram://{r(10, string.digits)}:AA{r(33)}/{r(9, string.digits)}",
                     f"- pushx://{r(30, LOWER)}@{r(30, LOWER)}"):
            assert found(text), text
    for text in ("https://docs.buildhost.example/build_hooks/overview-and-limits",
                 "https://ci.corp.example/trigger/deploy-docs/with/key/usage",
                 "https://vercel.com/docs/deploy/hooks-and-limits",
                 "rtmp://localhost/live/test and rtmp://media.corp.example/live/stream1",
                 "redis://cache:6379/0 and s3://bucket-logs-2024/path/file.gz",
                 "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
                 "docker://registry.corp.example:5000/team/app:2.1.0"):
        assert not found(text), text


# --- key material by its place: bytes under a key's name, a cipher's constructor -----------------

def _numbers(n: int, fmt: str = "{}") -> str:
    return ", ".join(fmt.format(b) for b in _RNG.sample(range(256), n))


def test_key_bytes_under_a_keys_name_and_a_key_handed_to_a_cipher() -> None:
    for _ in range(3):
        for text in (f"  network_key: [{_numbers(16)}]",
                     f"static const uint8_t psk_key[32] = {{{_numbers(32, '0x{:02x}')}}};",
                     "app.secret_key = b'" + "".join(f"\\x{b:02x}" for b in _RNG.sample(range(256), 24)) + "'",
                     f'f = Fernet(b"{r(43, ALNUM + "-_")}=")',
                     f'cipher = AESGCM(bytes.fromhex("{r(64, HEX)}"))'):
            assert found(text), text
    for text in (f"pixels = [{_numbers(16)}]",
                 f"public_key = bytes([{_numbers(32)}])",
                 f"ext_pan_id: [{_numbers(8)}]",
                 'PNG_MAGIC = b"\\x89PNG\\r\\n\\x1a\\n"',
                 "buf = b\"" + "".join(f"\\x{b:02x}" for b in _RNG.sample(range(256), 32)) + '"',
                 "key = Fernet.generate_key()\ncipher = AESGCM(AESGCM.generate_key(bit_length=256))"):
        assert not found(text), text


# --- request headers, cookie jars, user lists, generated secrets in state ------------------------

def test_a_random_value_in_a_request_header_of_any_name() -> None:
    for _ in range(3):
        assert found(f"curl -H 'Grpc-Metadata-macaroon: {r(200, HEX)}' https://node.lan:8080/v1/getinfo")
        assert found(f'curl https://api.corp.example/v2/jobs -H "X-Corp-Auth: {r(40)}"')
    for text in (f"curl -H 'If-None-Match: \"{r(40, HEX)}\"' https://api.corp.example/v1/items",
                 f"curl -H 'X-Request-Id: {r(32)}' https://api.corp.example/v1/items",
                 f"curl -H 'traceparent: 00-{r(32, HEX)}-{r(16, HEX)}-01' https://api.corp.example/",
                 f"-H \"x-amz-content-sha256: {r(64, HEX)}\""):
        assert not found(text), text


def test_cookie_jars_user_lists_and_generated_passwords_in_state() -> None:
    for _ in range(3):
        assert found(f"#HttpOnly_.app.corp.example\tTRUE\t/\tTRUE\t0\tsessionid\t{r(40)}")
        assert found(f".googlesource.com\tTRUE\t/\tTRUE\t2147483647\to\tgit-dev.corp.com=1//0{r(80, ALNUM + '_-')}")
        assert found(f'# userlist.txt\n"svc_reports" "{pw()}"\n"svc_etl" "{pw()}"')
        assert found('{\n  "type": "random_password",\n  "instances": [{"attributes": {"result": "' + pw() + '"}}]\n}')
    for text in (".corp.example\tTRUE\t/\tFALSE\t1767225600\t_ga\tGA1.2.1234567890.1700000000",
                 f'"app" "SCRAM-SHA-256$4096:{r(24)}${r(44)}:{r(44)}"\n"report" "md5{r(32, HEX)}"',
                 '"AppState"\n{\n\t"appid"\t\t"570"\n\t"name"\t\t"Dota 2"\n}',
                 '{"type": "random_pet", "instances": [{"attributes": {"id": "happy-otter"}}]}'):
        assert not found(text), text


# --- encoded: a user and password handed to base64, a token object in base64, a warned value ------

def test_a_password_handed_to_base64_and_a_base64_token_object() -> None:
    import base64
    import json

    for _ in range(3):
        assert found(f"-H \"Authorization: Basic $(printf '%s' '{r(22)}:{r(32)}' | base64)\"")
        assert found(f"headers.Authorization = 'Basic ' + btoa('api:{r(32)}');")
        assert found(f'auth = base64.b64encode(b"svc:{pw()}").decode()')
        token = {"a": r(32, HEX), "t": "5f0e2b1c-3d4a-4b5c-8d6e-7f8091a2b3c4",
                 "s": base64.b64encode(bytes(_RNG.randrange(256) for _ in range(32))).decode()}
        assert found("tunnelctl service install " + base64.b64encode(json.dumps(token).encode()).decode())
        assert found(f".SESSIONAUTH=_|WARNING:-DO-NOT-SHARE-THIS.--Anyone-with-this-can-act-as-you.|_{r(300, '0123456789ABCDEF')}")
    plain = base64.b64encode(json.dumps({"name": "web", "replicas": 3, "image": "nginx:1.27"}).encode()).decode()
    for text in ("echo -n 'hello:world' | base64",
                 "headers.Authorization = 'Basic ' + btoa(user + ':' + password);",
                 f"echo {plain} | base64 -d",
                 f"Do not share this doc outside the team: https://docs.corp.example/d/{r(12, LOWER)}/edit"):
        assert not found(text), text


# --- what a credential holds, a Wi-Fi report, a description's credential in a line of prose ------

def test_a_name_for_what_a_credential_holds_is_the_credential() -> None:
    import json

    for _ in range(3):
        key = r(43, ALNUM + "+/") + "="
        tink = {"primaryKeyId": 894655204, "key": [{"keyData": {"typeUrl": "type.googleapis.com/x.AesGcmKey",
                                                                "value": key, "keyMaterialType": "SYMMETRIC"}}]}
        assert found(json.dumps(tink, indent=2))
        assert found(f"secret_value: {r(32)}")
        assert found(f"Profile WLAN-5G\n    Authentication         : WPA2-Personal\n    Key Content            : {pw()}")
    for text in ('"metadata": {"name": "web", "value": "' + r(40) + '"}',
                 "Profile WLAN-5G\n    Security key           : Present\n    Key Content            : (hidden)",
                 f'"keyData": {{"typeUrl": "type.googleapis.com/x.EcdsaPublicKey", "value": "{r(20, HEX)}"}}'):
        assert not found(text), text


def test_a_description_naming_a_login_over_a_line_that_ends_in_its_value() -> None:
    for _ in range(3):
        assert refused(f"same as the old one but with the year bumped: {r(12)}2026",
                       description="login for the robot panel, user #ws+15e0qacn")
        assert refused(f"the new one, set this morning: {pw()}", description="staging DB password")
    assert not refused(f"fixed in the release tagged: {r(12)}2026", description="login page bug")
    assert not refused("rotated this morning, see: vault/kv/staging/db", description="staging DB password")


# --- the same classes in the forms written after the rules (generic3's late items) ---------------

def test_the_classes_in_more_languages_and_tools() -> None:
    import json

    for _ in range(3):
        for text in ("byte[] hmacKey = new byte[] { " + ", ".join(f"(byte)0x{b:02x}" for b in _RNG.sample(range(256), 16)) + " };",
                     f'wget --header="X-Shop-Access: {r(40)}" https://shop.corp.example/export.csv',
                     json.dumps({"type": "random_string", "name": "api_secret", "instances": [{"attributes": {"result": r(32)}}]}),
                     f'auth := base64.StdEncoding.EncodeToString([]byte("svc:{r(24)}"))',
                     f'[Convert]::ToBase64String([Text.Encoding]::ASCII.GetBytes("api:{r(32)}"))',
                     f'var client = new SmtpClient("smtp.corp.example", "noreply", "{r(6)}?{r(6)}@");',
                     f"net user jdoe {r(5)}#?{r(4)}={r(3, string.digits)} /add /domain"):
            assert found(text), text
    for text in (f'new Release("app", "2026.12.1", "{r(40, HEX)}")',
                 '{"type": "password_policy", "value": "min-length-12"}',
                 "Key Length             : 256\nKey Algorithm          : AES",
                 f"iv = bytes([{_numbers(16)}])  # the key comes from KMS"):
        assert not found(text), text


def test_a_password_alone_on_the_line_below_a_command_that_signs_in() -> None:
    for _ in range(3):
        assert found(f"ssh ops@10.20.0.5\n{pw()}")
        assert found(f"$ su - deploy\n{pw()}")
        assert found(f"ssh -p 2222 admin@bastion.corp.example\n{pw()}")
    for text in ("ssh ops@10.20.0.5\ncd /srv/app && ./deploy.sh", "ssh ops@10.20.0.5\nuptime",
                 "psql -U app -h db\nSELECT_COUNT_2024"):
        assert not found(text), text
