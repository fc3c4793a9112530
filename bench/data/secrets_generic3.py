"""A third probe set for the secret gate's general classes: the classes of heldout9's untuned
misses, each with new forms (other vendors, syntaxes, languages and containers than heldout9's
items) and the look-alikes that share their place. Written by the helper who wrote the rules for
these classes, after reading heldout9's misses and with the rules half written: NOT held out, a
check that a rule catches its class rather than its example and does not cost false alarms.

Classes (the item's ``class``): ``syntax`` (a value with its label in another syntax: a reference
with a default, a namespaced XML element, a variable named for its environment, a COBOL or Erlang
declaration), ``armour`` (armoured key blocks of any name), ``url`` (a password after a user that
holds an ``@``, a token as a host's user), ``table`` (org-mode, reStructuredText, HTML), ``command``
(a user and then a password as a command's positional arguments or ``-u``/``-p`` flags),
``call`` (a user and then a password as a call's literal arguments), ``keybytes`` (key material as
a byte array or escaped bytes under a key's name, handed to a cipher), ``header`` (a random value
in a request header of any name), ``file`` (cookie jars, user lists, a generated password in a
state file), ``prose``, ``log`` (protocol transcripts, a command's long output), ``encoded`` (a
``user:password`` handed to a base64 encoder, a base64 JSON token), ``hook`` (URLs whose path or
query names a hook, a deploy, a trigger or a key; stream keys; credentials in a non-web scheme's
authority). Same item format as the other corpora.

RESULT: the first 61 forms and 54 look-alikes were written with the rules half done and tuned on
(before the rules 16/61, 0/54; after 61/61, 0/54). The ``late_`` items (26 forms, 14 look-alikes)
were written after the rules' three commits and measured once before any change
(``python bench/bench_secrets.py --set generic3 --misses``, load ~8): 20/26 forms (76.9%), 1/14
look-alikes (a release's commit id among a constructor's literals). Missed then: ``net user`` with
a password holding ``=``, a constructor literal holding ``?``, Java's ``(byte)`` casts in a key's
array, ``wget --header=``, a ``random_string`` resource named ``api_secret``, PowerShell's
``GetBytes("api:X")`` handed to base64. Those were fixed after (so the late items are tuned on too).
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

_GEN = runpy.run_path(str(Path(__file__).with_name("secret_gen.py")))
_G = _GEN["Generator"](20261203, "gen3", "Working notes")
r, item, pw, uuid, rb = _G.r, _G.item, _G.pw, _G.uuid, _G.rand_bytes
b64, block, b64url = _GEN["b64"], _GEN["block"], _GEN["b64url"]
ALNUM, LOWER, UP, HEX, B64, URL = (_GEN[k] for k in ("ALNUM", "LOWER", "UP", "HEX", "B64", "URL"))


def _bytes_list(n: int) -> str:
    return ", ".join(str(b) for b in rb(n))


def _hex_bytes(n: int) -> str:
    return ", ".join(f"0x{b:02x}" for b in rb(n))


def _escaped(n: int) -> str:
    return "".join(f"\\x{b:02x}" for b in rb(n))


def forms() -> list[dict]:
    f = []
    # syntax
    f.append(item("properties default", "syntax", f"spring.mail.password=${{SMTP_PASS:{r(10)}.{r(5)}}}"))
    f.append(item("yaml default api key", "syntax", f"search:\n  api-key: ${{SEARCH_API_KEY:{r(32)}}}"))
    f.append(item("soap ns password", "syntax", f"<soap:Header><auth:Password>{pw()}</auth:Password></soap:Header>"))
    f.append(item("ns token element", "syntax", f"<ns2:apiToken>{r(36)}</ns2:apiToken>"))
    f.append(item("german dotted password", "syntax", f"Das Passwort für den Testserver ist {r(7)}.{r(6)}"))
    f.append(item("env live suffix", "syntax", f"PAYMENTS_SECRET_KEY_LIVE={r(40)}"))
    f.append(item("env staging suffix", "syntax", f"export DB_PASSWORD_STAGING='{pw()}'"))
    f.append(item("env numbered suffix", "syntax", f"API_TOKEN_2={r(40)}"))
    f.append(item("cobol token", "syntax", f"       05  API-TOKEN        PIC X(32) VALUE \"{r(32)}\"."))
    f.append(item("erlang binary", "syntax", f"{{mqtt, [{{username, <<\"iot\">>}}, {{password, <<\"{pw()}\">>}}]}}."))
    f.append(item("elixir tuple", "syntax", f"config :app, creds: [{{:api_secret, \"{r(32)}\"}}]"))
    # armour
    f.append(item("tls-crypt-v2 key", "armour", block("OpenVPN tls-crypt-v2 client key", "\n".join(r(64, B64) for _ in range(6)))))
    f.append(item("static key v1 pasted", "armour", "ta.key:\n" + block("OpenVPN Static key V1", "\n".join(r(32, HEX) for _ in range(8)))))
    # url
    f.append(item("ftp upn user", "url", f"ftp://ci@corp.example:{pw()}@ftp.corp.example/drop/"))
    f.append(item("amqp email user", "url", f"AMQP_URL=amqps://svc@tenant:{r(20)}@mq.corp.example:5671/vhost"))
    f.append(item("cargo tokens at host", "url", f"CARGO_REGISTRY_TOKENS={r(40)}@crates.corp.dev"))
    f.append(item("token as git user", "url", f"git remote set-url origin https://{r(40)}@git.corp.example/team/app.git"))
    # table
    f.append(item("org table token", "table", f"| env  | token |\n|------+-------|\n| prod | {r(32)} |\n| dev  | {r(32)} |"))
    f.append(item("rst grid password", "table", f"+------+----------+\n| host | password |\n+======+==========+\n| db1  | {pw()} |\n+------+----------+"))
    f.append(item("html secret column", "table", f"<table><tr><th>App</th><th>Client secret</th></tr>\n<tr><td>billing</td><td>{r(40)}</td></tr></table>"))
    # command
    f.append(item("rabbitmq change password", "command", f"rabbitmqctl change_password deploy {r(18, ALNUM + '-_')}"))
    f.append(item("net user reset", "command", f"net user administrator {r(14)} /domain"))
    f.append(item("htpasswd batch", "command", f"htpasswd -b /etc/nginx/.htpasswd admin {r(16)}"))
    f.append(item("mosquitto passwd", "command", f"mosquitto_passwd -b /etc/mosquitto/passwd sensor01 {r(16)}"))
    f.append(item("docker login u p", "command", f"docker login -u ci-bot -p {r(24)} registry.corp.example"))
    f.append(item("app password flag", "command", f"xcrun notarytool submit App.zip --apple-id dev@corp.com --password {'-'.join(r(4, 'abcdefghijklmnopqrstuvwxyz') for _ in range(4))}"))
    f.append(item("mysqladmin p", "command", f"mysql -u root -p{r(14)} -h db.corp.internal"))
    # call
    f.append(item("pool positional", "call", f"pool = new Pool('orders', 'orders_app', '{r(16)}', 5432);"))
    f.append(item("gateway hex", "call", f"gw = PaymentGateway(Env.LIVE, \"{r(16, LOWER)}\", \"{r(32, HEX)}\")"))
    f.append(item("elm basic auth", "call", f"Http.header \"Authorization\" (basicAuth \"etl\" \"{r(16)}\")"))
    # keybytes
    f.append(item("aes key array", "keybytes", f"aes_key = bytes([{_bytes_list(16)}])"))
    f.append(item("c key hex array", "keybytes", f"static const uint8_t psk_key[32] = {{{_hex_bytes(32)}}};"))
    f.append(item("escaped secret", "keybytes", f"SECRET_KEY = b\"{_escaped(24)}\""))
    f.append(item("aesgcm hex key", "keybytes", f"cipher = AESGCM(bytes.fromhex(\"{r(64, HEX)}\"))"))
    f.append(item("fernet str", "keybytes", f"token = Fernet(\"{b64url(rb(32))}=\").encrypt(data)"))
    f.append(item("secretbox key", "keybytes", f"box = nacl.secret.SecretBox(base64.b64decode(\"{b64(rb(32))}\"))"))
    # header
    f.append(item("macaroon header", "header", f"curl -H 'X-Macaroon: {r(200, HEX)}' https://node.lan:8080/v1/getinfo"))
    f.append(item("custom auth header", "header", f"curl https://api.corp.example/v2/jobs -H \"X-Corp-Auth: {r(40)}\""))
    # file
    f.append(item("curl cookie jar", "file", f"# Netscape HTTP Cookie File\n#HttpOnly_.app.corp.example\tTRUE\t/\tTRUE\t0\tsessionid\t{r(40)}"))
    f.append(item("cookie jar sid", "file", f".forum.example\tTRUE\t/\tFALSE\t1767225600\tSID\t{r(48, URL)}"))
    f.append(item("userlist pairs", "file", f"# userlist.txt\n\"svc_reports\" \"{pw()}\"\n\"svc_etl\" \"{pw()}\""))
    f.append(item("tfstate random string secret", "file", json.dumps({"type": "random_password", "name": "admin", "instances": [{"attributes": {"length": 20, "result": pw(20)}}]}, indent=2)))
    # prose
    f.append(item("prose gets you in", "prose", f"Guest wifi for the offsite: {r(12)} gets you in."))
    f.append(item("prose use to get into", "prose", f"use {r(14)} to get into the NAS admin page"))
    f.append(item("prose quoted passphrase", "prose", "The vault passphrase is \"" + " ".join(_G.words(5)) + "\" (no capitals)."))
    # log
    f.append(item("pop3 transcript", "log", f"+OK POP3 ready\nUSER mailbox01\n+OK\nPASS {r(14)}\n+OK logged in"))
    f.append(item("long token below command", "log", f"$ aws codeartifact get-authorization-token --domain corp --query authorizationToken --output text\n{r(600, URL)}"))
    f.append(item("net user created log", "log", f"Process Command Line:\tnet user svc_sql {r(14)} /add"))
    # encoded
    f.append(item("echo pair base64", "encoded", f"echo -n 'reporter:{r(24)}' | base64"))
    f.append(item("btoa pair", "encoded", f"headers.Authorization = 'Basic ' + btoa('api:{r(32)}');"))
    f.append(item("b64encode pair", "encoded", f"auth = base64.b64encode(b\"svc:{r(20)}\").decode()"))
    f.append(item("base64 json token arg", "encoded", "tunnelctl service install " + b64(json.dumps({"a": r(32, HEX), "t": uuid(), "s": b64(rb(32))}))))
    # warned
    f.append(item("warned cookie", "encoded", f".SESSIONAUTH=_|WARNING:-DO-NOT-SHARE-THIS.--Anyone-with-this-can-act-as-you.|_{r(300, UP)}"))
    # hook
    f.append(item("build hook hex", "hook", f"curl -X POST https://api.buildhost.example/build_hooks/{r(24, HEX)}"))
    f.append(item("deploy path token", "hook", f"https://api.hostco.example/v1/deploy/prj_{r(24)}/{r(10)}"))
    f.append(item("trigger with key", "hook", f"https://automations.example.net/trigger/door_open/with/key/{r(22)}"))
    f.append(item("deploy query key", "hook", f"DEPLOY_URL=https://api.hostco.example/deploy/srv-{r(20, LOWER)}?key={r(11)}"))
    f.append(item("rtmp stream key", "hook", f"rtmp://live.streamhost.example/app/{'-'.join(r(4, LOWER) for _ in range(5))}"))
    f.append(item("rtmps random key", "hook", f"Stream URL: rtmps://ingest.example.tv:443/live/{r(32)}"))
    f.append(item("notify bot url", "hook", f"NOTIFY_URL=tgram://{r(10, '0123456789')}:AA{r(33, URL)}/{r(9, '0123456789')}"))
    f.append(item("notify user token url", "hook", f"- pushx://{r(30, LOWER)}@{r(30, LOWER)}"))
    return f


def look_alikes() -> list[dict]:
    la = []
    # syntax
    la.append(item("reference no default", "syntax", "spring.mail.password=${SMTP_PASS}\nspring.mail.username=${SMTP_USER:noreply}"))
    la.append(item("reference placeholder default", "syntax", "password: ${DB_PASSWORD:changeme}"))
    la.append(item("ns token type", "syntax", "<ns1:tokenType>urn:ietf:params:oauth:token-type:jwt</ns1:tokenType>"))
    la.append(item("dotted code name", "syntax", "the signing key is loaded by crypto.ed25519.NewKeyFromSeed in keys.go"))
    la.append(item("env suffix public", "syntax", f"PUBLIC_KEY_PRODUCTION={r(64, HEX)}"))
    la.append(item("env suffix cache", "syntax", f"CACHE_KEY_PROD=build-{r(12, HEX)}"))
    la.append(item("cobol length", "syntax", "       05  WS-PASSWORD-LEN  PIC 9(2)  VALUE 12."))
    la.append(item("erlang getenv", "syntax", "{db_password, os:getenv(\"DB_PASSWORD\")}"))
    # armour
    la.append(item("public key armour", "armour", block("NEBULA X25519 PUBLIC KEY", r(44, B64))))
    la.append(item("dh params", "armour", block("DH PARAMETERS", "\n".join(r(64, B64) for _ in range(4)))))
    la.append(item("certificate", "armour", block("CERTIFICATE", "\n".join(r(64, B64) for _ in range(4)))))
    la.append(item("armour named in prose", "armour", "regenerate the file that starts with -----BEGIN OpenVPN Static key V1----- and copy it over"))
    # url
    la.append(item("user with at no password", "url", "https://jdoe@corp.example@intranet.corp.example/ (the login form takes the UPN)"))
    la.append(item("email list", "url", "token owners: alice@corp.example;bob@corp.example"))
    la.append(item("git ssh url", "url", "git clone ssh://git@git.corp.example:2222/team/app.git"))
    # table
    la.append(item("table pointers", "table", "| env  | token       |\n|------+-------------|\n| prod | in Vault    |\n| dev  | ask Ana     |"))
    la.append(item("html password policy", "table", "<table><tr><th>System</th><th>Password</th></tr><tr><td>VPN</td><td>rotated</td></tr></table>"))
    la.append(item("rst grid ids", "table", f"+------+----------+\n| host | key id   |\n+======+==========+\n| db1  | {r(16, HEX)} |\n+------+----------+"))
    # command
    la.append(item("ssh port", "command", "ssh -p 2222 -u deploy build.corp.example"))
    la.append(item("docker port user", "command", "docker run -u 1000 -p 8080:80 -p 8443:443 nginx:1.27"))
    la.append(item("net user query", "command", "net user svc_backup /domain"))
    la.append(item("add user no password", "command", "rabbitmqctl add_user deploy\nrabbitmqctl set_user_tags deploy monitoring"))
    la.append(item("tar flags", "command", "tar -u -p -f backup.tar /srv/data"))
    # call
    la.append(item("translation call", "call", 't("settings.title", "Account settings", "Kontoeinstellungen")'))
    la.append(item("version call", "call", 'new Dependency("org.example", "client-lib", "2.14.0-rc1")'))
    la.append(item("color call", "call", 'theme.add("primary", "#1E88E5", "#0D47A1")'))
    la.append(item("format call", "call", 'log.info("user %s logged in from %s", user, host)'))
    # keybytes
    la.append(item("pixel array", "keybytes", f"pixels = [{_bytes_list(16)}]"))
    la.append(item("png magic", "keybytes", 'PNG_MAGIC = b"\\x89PNG\\r\\n\\x1a\\n"'))
    la.append(item("shellcode no label", "keybytes", f'buf = b"{_escaped(32)}"'))
    la.append(item("generate key", "keybytes", "key = Fernet.generate_key()\ncipher = AESGCM(AESGCM.generate_key(bit_length=256))"))
    la.append(item("public key bytes", "keybytes", f"public_key = bytes([{_bytes_list(32)}])"))
    # header
    la.append(item("etag header", "header", f"curl -H 'If-None-Match: \"{r(40, HEX)}\"' https://api.corp.example/v1/items"))
    la.append(item("request id header", "header", f"curl -H 'X-Request-Id: {r(32)}' https://api.corp.example/v1/items"))
    la.append(item("traceparent header", "header", f"curl -H 'traceparent: 00-{r(32, HEX)}-{r(16, HEX)}-01' https://api.corp.example/"))
    la.append(item("content sha header", "header", f"-H \"x-amz-content-sha256: {r(64, HEX)}\""))
    # file
    la.append(item("cookie jar analytics", "file", ".corp.example\tTRUE\t/\tFALSE\t1767225600\t_ga\tGA1.2.1234567890.1700000000"))
    la.append(item("userlist hashes", "file", f"\"app\" \"SCRAM-SHA-256$4096:{r(24, B64)}${r(44, B64)}:{r(44, B64)}\"\n\"report\" \"md5{r(32, HEX)}\""))
    la.append(item("vdf pairs", "file", '"AppState"\n{\n\t"appid"\t\t"570"\n\t"name"\t\t"Dota 2"\n}'))
    la.append(item("tfstate random pet", "file", json.dumps({"type": "random_pet", "name": "bucket", "instances": [{"attributes": {"length": 2, "id": "happy-otter"}}]}, indent=2)))
    # prose
    la.append(item("prose gets you in words", "prose", "The side door code gets you in after 6pm; ask reception."))
    la.append(item("prose quoted sentence", "prose", 'The passphrase is "any five words you like" per the policy.'))
    # log
    la.append(item("test pass lines", "log", "USER STORY 41 done\nPASS tests/login.test.ts (2.3 s)\nPASS tests/token.test.ts"))
    la.append(item("checksum below command", "log", f"$ sha512sum release.tar.gz\n{r(128, HEX)}  release.tar.gz"))
    # encoded
    la.append(item("echo words base64", "encoded", "echo -n 'hello:world' | base64"))
    la.append(item("btoa variable", "encoded", "headers.Authorization = 'Basic ' + btoa(user + ':' + password);"))
    la.append(item("base64 json config", "encoded", "echo " + b64(json.dumps({"name": "web", "replicas": 3, "image": "nginx:1.27"})) + " | base64 -d"))
    la.append(item("do not share doc", "encoded", f"Do not share this doc outside the team: https://docs.corp.example/d/{r(12, LOWER)}/edit"))
    # hook
    la.append(item("hook docs url", "hook", "https://docs.buildhost.example/build_hooks/overview-and-limits"))
    la.append(item("trigger named path", "hook", "https://ci.corp.example/trigger/deploy-docs/with/key/usage"))
    la.append(item("rtmp local", "hook", "rtmp://localhost/live/test and rtmp://media.corp.example/live/stream1"))
    la.append(item("redis url", "hook", "redis://cache:6379/0 and s3://bucket-logs-2024/path/file.gz"))
    la.append(item("ipfs cid url", "hook", "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"))
    la.append(item("docker registry url", "hook", "docker://registry.corp.example:5000/team/app:2.1.0"))
    return la


def late_forms() -> list[dict]:
    """Written after the rules of this set's commits, measured once before any change (see RESULT)."""
    _L = _GEN["Generator"](20261204, "gen3late", "Working notes")
    lr, lpw, litem = _L.r, _L.pw, _L.item
    f = []
    f.append(litem("late shell default", "syntax", f"MAIL_PASSWORD=${{SMTP_PASSWORD:-{lpw()}}}"))
    f.append(litem("late ns api key", "syntax", f"<sec:ApiKey>{lr(40)}</sec:ApiKey>"))
    f.append(litem("late env prod suffix", "syntax", f"SLACK_SIGNING_SECRET_PROD={lr(32, HEX)}"))
    f.append(litem("late cobol key", "syntax", f"       05  WS-API-KEY  PIC X(40)  VALUE '{lr(40)}'."))
    f.append(litem("late erlang binary key", "syntax", f"{{secret_key_base, <<\"{lr(64)}\">>}}"))
    f.append(litem("late tls-crypt server", "armour", block("OpenVPN tls-crypt-v2 server key", "\n".join(lr(64, B64) for _ in range(3)))))
    f.append(litem("late smtp url upn", "url", f"smtp://noreply@corp.example:{lpw()}@smtp.corp.example:587"))
    f.append(litem("late token user gitlab", "url", f"git clone https://{lr(40)}@gitlab.corp.example/group/repo.git"))
    f.append(litem("late org passphrase col", "table", f"| disk | passphrase |\n|------+------------|\n| nas1 | {lpw()} |"))
    f.append(litem("late html api token", "table", f"<table>\n<tr><th>Service</th><th>API Token</th></tr>\n<tr><td>search</td><td>{lr(40)}</td></tr>\n</table>"))
    f.append(litem("late rabbit add user", "command", f"rabbitmqctl add_user monitoring {lpw()}"))
    f.append(litem("late net user add domain", "command", f"net user jdoe {lpw()} /add /domain"))
    f.append(litem("late sqlcmd U P", "command", f"sqlcmd -S db01 -U sa -P {lpw()} -Q \"select 1\""))
    f.append(litem("late smtp client ctor", "call", f"var client = new SmtpClient(\"smtp.corp.example\", \"noreply\", \"{lpw()}\");"))
    f.append(litem("late go key bytes", "keybytes", f"key := []byte{{{_hex_bytes(32)}}}"))
    f.append(litem("late rust secret array", "keybytes", f"const SECRET: [u8; 32] = [{_bytes_list(32)}];"))
    f.append(litem("late java byte casts", "keybytes", "byte[] hmacKey = new byte[] { " + ", ".join(f"(byte)0x{b:02x}" for b in rb(16)) + " };"))
    f.append(litem("late createHmac", "keybytes", f"crypto.createHmac('sha256', '{lr(40)}').update(body).digest('hex')"))
    f.append(litem("late wget header", "header", f"wget --header=\"X-Shop-Access: {lr(40)}\" https://shop.corp.example/export.csv"))
    f.append(litem("late cookie jar remember", "file", f".app.corp.example\tTRUE\t/\tTRUE\t1767225600\tremember_token\t{lr(64, HEX)}"))
    f.append(litem("late tfstate random string named", "file", json.dumps({"type": "random_string", "name": "api_secret", "instances": [{"attributes": {"length": 32, "result": lr(32)}}]}, indent=2)))
    f.append(litem("late prose will get you into", "prose", f"{lpw()} will get you into the router admin page"))
    f.append(litem("late go base64 pair", "encoded", f"auth := base64.StdEncoding.EncodeToString([]byte(\"svc:{lr(24)}\"))"))
    f.append(litem("late powershell base64 pair", "encoded", f"[Convert]::ToBase64String([Text.Encoding]::ASCII.GetBytes(\"api:{lr(32)}\"))"))
    f.append(litem("late srt passphrase", "hook", f"srt://ingest.corp.example:9000?streamid=live/{lr(16)}&passphrase={lpw()}"))
    f.append(litem("late trigger token short", "hook", f"curl -X POST 'https://deploy.corp.example/trigger?token={lr(12)}'"))
    return f


def late_look_alikes() -> list[dict]:
    _L = _GEN["Generator"](20261205, "gen3late-la", "Working notes")
    lr, litem = _L.r, _L.item
    la = []
    la.append(litem("late rtmp no key", "hook", "rtmp://a.rtmp.youtube.com/live2 (paste the stream key in OBS, not here)"))
    la.append(litem("late password policy type", "file", '{"type": "password_policy", "value": "min-length-12"}'))
    la.append(litem("late request id wget", "header", f"wget --header=\"X-Request-ID: {uuid()}\" https://api.corp.example/"))
    la.append(litem("late cookie gid", "file", ".corp.example\tTRUE\t/\tFALSE\t1767225600\t_gid\tGA1.2.987654321.1700000000"))
    la.append(litem("late echo user only", "encoded", "echo -n 'user:' | base64"))
    la.append(litem("late org token na", "table", "| env | token |\n|-----+-------|\n| dev | n/a   |"))
    la.append(litem("late u p port", "command", "pg_isready -u postgres -p 5432 -h db.corp.example"))
    la.append(litem("late net user add no pw", "command", "net user jdoe /add /domain"))
    la.append(litem("late version ctor", "call", f'new Release("app", "2026.12.1", "{lr(40, HEX)}")'))
    la.append(litem("late sha header", "header", f"curl -H 'X-Content-SHA256: {lr(64, HEX)}' https://api.corp.example/upload"))
    la.append(litem("late iv bytes", "keybytes", f"iv = bytes([{_bytes_list(16)}])  # the key comes from KMS"))
    la.append(litem("late do not share prose", "prose", "Please do not share the recording link outside the team; it expires in 7 days."))
    la.append(litem("late aligned colon", "log", "Key Length             : 256\nKey Algorithm          : AES"))
    la.append(litem("late keyData public", "keybytes", json.dumps({"keyData": {"typeUrl": "type.googleapis.com/google.crypto.tink.Ed25519PublicKey", "value": lr(44, B64), "keyMaterialType": "ASYMMETRIC_PUBLIC"}})))
    return la


FORMS = forms() + late_forms()
LOOK_ALIKES = look_alikes() + late_look_alikes()
