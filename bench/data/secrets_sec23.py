"""sec23's probes: credential forms no corpus had and look-alikes of the same places, written by the
helper sec23 on 2026-12-05 (issue 23 item 5) BEFORE its fixes, to find the classes the gate missed,
then tuned on: in-sample, weaker evidence than a blind corpus (the same helper wrote them and the
fixes). Three groups: ``p1`` (vendor-less tokens, settings under any name, armours, TOTP, recovery
codes, prose in 12 languages), ``p2`` (values in unknown vendors' settings, flags, headers and
queries; prose marks; split logins), ``p3`` (passwords in sign-in prose and misspelt labels, seeds,
key files, connection strings in many schemes). Values come from one seeded generator at import;
none is a real credential.

Measured on main bf10093 and after sec23 (``python bench/bench_secrets.py --set sec23 --misses
[--code CHECKOUT]``): see RELIABILITY.md "Secret detection and its figures".
"""

from __future__ import annotations

import base64
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from secret_gen import ALNUM, B32, HEX, URL, WORDS, Generator  # noqa: E402

G = Generator(2323, "s23", "notes")
R = G.rng
B64 = ALNUM + "+/"


class _D:
    """The probes' draw: ``r(n, alphabet)``."""

    @staticmethod
    def r(n: int, alphabet: str = ALNUM) -> str:
        if alphabet == ALNUM:
            while True:
                s = G.r(n, alphabet)
                if any(c.isupper() for c in s) and any(c.islower() for c in s) and any(c.isdigit() for c in s):
                    return s
        return G.r(n, alphabet)


D = _D()
_COMMON = [w for w in WORDS if 4 <= len(w) <= 7]


def pw(n: int = 14) -> str:
    return D.r(n, ALNUM + "#%&*+=?@!")


def tok(n: int = 40) -> str:
    return D.r(n)


def person(rng=R) -> str:
    a, b = rng.sample(_COMMON, 2)
    return f"{a}{rng.choice('.-_')}{b}{rng.randrange(10, 99)}"


def phrase(rng=R, n: int = 4, sep: str = "-") -> str:
    return sep.join(rng.sample(_COMMON, n))


def uuid4(rng=R) -> str:
    return G.uuid()


def bip39_words(rng=R, n: int = 12) -> list[str]:
    """``n`` words of a valid BIP-39 mnemonic (its checksum computed, not drawn)."""
    ent_bits = n * 11 * 32 // 33
    ent = G.rand_bytes(ent_bits // 8)
    bits = bin(int.from_bytes(ent, "big"))[2:].zfill(ent_bits) + bin(hashlib.sha256(ent).digest()[0])[2:].zfill(8)[:n * 11 - ent_bits]
    return [WORDS[int(bits[i * 11:(i + 1) * 11], 2)] for i in range(n)]


def _items(group: str, rows: list[tuple[str, str, str]]) -> list[dict]:
    return [G.item(f"{group}-{name}", group, body, description=desc) for name, desc, body in rows]


def _p1() -> tuple[list[dict], list[dict]]:
    v = R.choice(["zorp", "kwix", "flarn", "qubit", "nimbl", "vexa", "trelo", "brisk"])
    forms = [
    ("unk-prefix-alone","notes",f"{v}_{tok(36)}"),
    ("unk-prefix-dash-label","deploy",f"the {v} token is {v}-{tok(40)}"),
    ("unk-prefix-live","billing",f"{v}_live_{tok(32)}"),
    ("unk-prefix-pat","ci",f"export CI_THING={v}_pat_{tok(30)}"),
    ("unk-prefix-after","notes",f"{v}_{tok(40)} (that's the service key for {v})"),
    ("unk-prefix-in-prose","notes",f"Use {v}_sk_{tok(32)} when calling their API from the worker."),
    ("unk-caps-prefix","notes",f"{v.upper()}-{tok(32)}"),
    ("env-weird-key","env",f"FROBNICATOR_AUTH={tok(40)}"),
    ("env-cred","env",f"ACME_CREDENTIAL={tok(32)}"),
    ("env-sig","env",f"HOOK_SIGNING={tok(40)}"),
    ("env-salt","env",f"APP_PEPPER={tok(40)}"),
    ("env-license","env",f"LICENSE={D.r(5,B32)}-{D.r(5,B32)}-{D.r(5,B32)}-{D.r(5,B32)}-{D.r(5,B32)}"),
    ("json-weird","config",json.dumps({"service":"acme","authz":tok(40)})),
    ("json-camel","config",json.dumps({"clientSecretValue":tok(36)})),
    ("json-any","config",json.dumps({"endpoint":"https://api.x.io","k":tok(40)})),
    ("yaml-any","config",f"acme:\n  endpoint: https://api.acme.io\n  credential: {tok(40)}"),
    ("yaml-nested-pass","config",f"db:\n  user: app\n  pass: {pw(14)}"),
    ("toml-any","config",f"[acme]\nhost = \"api.acme.io\"\nsharedkey = \"{tok(40)}\""),
    ("ini-any","config",f"[remote]\nurl=https://x.example.org\nauthstring={tok(40)}"),
    ("url-any-scheme","notes",f"frob+tls://svc:{pw(14)}@frob.internal:7000/q"),
    ("url-nats","notes",f"nats://app:{pw(16)}@nats.internal:4222"),
    ("url-pass-only","notes",f"rediss://:{pw(18)}@cache.internal:6380/0"),
    ("url-query-key","notes",f"https://api.thing.io/v1/items?apikey={tok(32)}&page=2"),
    ("url-query-sig","notes",f"https://store.blob.example/c/f.bin?sv=2022&sig={D.r(43,B64)}%3D"),
    ("git-cred","notes",f"https://oauth2:{tok(40)}@gitlab.internal.example/group/repo.git"),
    ("pem-any","key",f"-----BEGIN FOOBAR PRIVATE KEY-----\n{D.r(64,B64)}\n{D.r(64,B64)}\n-----END FOOBAR PRIVATE KEY-----"),
    ("pem-enc","key",f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{D.r(64,B64)}\n{D.r(40,B64)}\n-----END ENCRYPTED PRIVATE KEY-----"),
    ("pem-ssh2","key",f"---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----\nComment: \"rsa-key\"\n{D.r(64,B64)}\n{D.r(64,B64)}\n---- END SSH2 ENCRYPTED PRIVATE KEY ----"),
    ("pem-secret","key",f"-----BEGIN NEBULA X25519 PRIVATE KEY-----\n{D.r(44,B64)}\n-----END NEBULA X25519 PRIVATE KEY-----"),
    ("pem-secret2","key",f"-----BEGIN SECRET KEY-----\n{D.r(44,B64)}\n-----END SECRET KEY-----"),
    ("putty","key",f"PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: me\nPublic-Lines: 2\n{D.r(64,B64)}\n{D.r(20,B64)}\nPrivate-Lines: 1\n{D.r(44,B64)}\nPrivate-MAC: {D.r(64,HEX)}"),
    ("age","key",f"AGE-SECRET-KEY-1{D.r(58,'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}"),
    ("jwk-d","key",json.dumps({"kty":"EC","crv":"P-256","x":D.r(43,URL),"y":D.r(43,URL),"d":D.r(43,URL)})),
    ("jwk-oct","key",json.dumps({"kty":"oct","k":D.r(43,URL),"alg":"HS256"})),
    ("minisign-sec","key",f"untrusted comment: minisign encrypted secret key\n{D.r(212,B64)}"),
    ("nsec","nostr",f"nsec1{D.r(58,'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    ("xprv","wallet",f"xprv9s21ZrQH143K{D.r(95,'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}"),
    ("otpauth","2fa",f"otpauth://totp/Acme:jo@acme.io?secret={D.r(32,B32)}&issuer=Acme"),
    ("totp-grouped","2fa",f"authenticator setup key: {' '.join(D.r(4,B32).lower() for _ in range(8))}"),
    ("totp-seed","2fa",f"2FA seed for the admin account: {D.r(32,B32)}"),
    ("recovery-list","github","Recovery codes:\n"+"\n".join(f"{D.r(5,'abcdef0123456789')}-{D.r(5,'abcdef0123456789')}" for _ in range(8))),
    ("recovery-inline","acme","backup codes " + ", ".join(str(R.randrange(10**7,10**8)) for _ in range(6))),
    ("prose-pass-is","wifi",f"the pass is {person(R)}"),
    ("prose-login-for","notes",f"the login for the NAS is admin / {person(R)}"),
    ("prose-pwd","notes",f"pwd {pw(12)}"),
    ("prose-passphrase","notes",f"passphrase: {phrase(R,4,' ')}"),
    ("prose-pin","bank",f"card PIN {R.randrange(1000,9999)}"),
    ("prose-de","notes",f"Das Passwort für den Router lautet {person(R)}"),
    ("prose-es","notes",f"la contraseña del wifi es {person(R)}"),
    ("prose-creds","notes",f"creds: deploy/{pw(13)}"),
    ("prose-signin","notes",f"sign in as bob with {pw(12)}"),
    ("prose-my-password","notes","my password: correcthorsebatterystaple"),
    ("prose-pw-colon","notes",f"pw: {person(R)}"),
    ("split-lines","notes",f"username: ops-admin\n{pw(15)}"),
    ("split-fields","staging db password",f"{pw(15)}"),
    ("split-user-next","grafana",f"user admin\npass {person(R)}"),
    ("header-custom","curl",f"curl -H 'X-Frob-Key: {tok(40)}' https://api.frob.io"),
    ("header-auth-token","curl",f"Authorization: Token {tok(40)}"),
    ("header-basic","curl",f"Authorization: Basic {base64.b64encode(f'admin:{pw(12)}'.encode()).decode()}"),
    ("cookie","browser",f"Cookie: sid={tok(40)}; theme=dark"),
    ("curl-u","notes",f"curl -u deploy:{pw(14)} https://ci.example.org/api"),
    ("npmrc","npm",f"//registry.example.org/:_authToken={tok(40)}"),
    ("netrc","netrc",f"machine api.example.org login jo password {pw(14)}"),
    ("pgpass","pg",f"db.internal:5432:app:app_rw:{pw(16)}"),
    ("docker-auth","docker",json.dumps({"auths":{"reg.example.org":{"auth":base64.b64encode(f'jo:{pw(14)}'.encode()).decode()}}})),
    ("kube-token","kube",f"users:\n- name: ci\n  user:\n    token: {tok(48)}"),
    ("hex-secret-prose","notes",f"the HMAC key we share with them is {D.r(64,HEX)}"),
    ("b64-secret-prose","notes",f"encryption key {D.r(44,B64)}"),
    ("webhook-url","notes",f"https://hooks.frobchat.io/services/{D.r(9,'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}/{D.r(24,ALNUM)}"),
    ("mysql-p","notes",f"mysql -u root -p{pw(12)} app"),
    ("sshpass","notes",f"sshpass -p '{pw(12)}' ssh pi@10.0.0.8"),
    ("nl-prose","notes",f"het wachtwoord is {person(R)}"),
    ("fr-prose","notes",f"mot de passe : {person(R)}"),
    ("it-prose","notes",f"la password è {person(R)}"),
    ("pt-prose","notes",f"a senha é {person(R)}"),
    ("pl-prose","notes",f"hasło: {person(R)}"),
    ("ja-prose","notes",f"パスワードは {pw(12)} です"),
    ("tr-prose","notes",f"şifre: {person(R)}"),
    ]
    alikes = [
    ("commit","notes",f"fixed in {D.r(40,HEX)}"),
    ("uuid","notes",f"tenant id {uuid4(R)}"),
    ("sha256","release",f"sha256: {D.r(64,HEX)}  app-1.2.tar.gz"),
    ("sri","html",f'integrity="sha384-{D.r(64,B64)}"'),
    ("pubkey","ssh",f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{D.r(43,B64)} jo@laptop"),
    ("pem-pub","key",f"-----BEGIN PUBLIC KEY-----\n{D.r(64,B64)}\n-----END PUBLIC KEY-----"),
    ("cert","tls",f"-----BEGIN CERTIFICATE-----\n{D.r(64,B64)}\n-----END CERTIFICATE-----"),
    ("placeholder","env","API_KEY=<your-api-key-here>"),
    ("placeholder2","env",f"{v}_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("build","ci",f"build 2026.12.05-{R.randrange(1000,9999)} passed"),
    ("etag","http",f'ETag: "{D.r(32,HEX)}"'),
    ("request-id","logs",f"x-request-id: {tok(32)}"),
    ("trace","logs",f"trace_id={D.r(32,HEX)} span_id={D.r(16,HEX)}"),
    ("docker-digest","docker",f"image: ghcr.io/acme/app@sha256:{D.r(64,HEX)}"),
    ("npm-integrity","lock",f'"integrity": "sha512-{D.r(86,B64)}=="'),
    ("json-id","config",json.dumps({"service":"acme","id":tok(24)})),
    ("yaml-ref","config","db:\n  user: app\n  pass: ${DB_PASS}"),
    ("url-nopass","notes","postgres://app@db.internal:5432/app"),
    ("prose-policy","notes","the password policy is 14 characters minimum"),
    ("prose-pass-test","notes","the test pass is flaky on CI"),
    ("prose-pin-prose","notes","pin the dependency to 2.3.1"),
    ("otp-issuer","2fa","otpauth URIs carry secret= and issuer= parameters; never paste one here"),
    ("pub-prefix","stripe",f"pk_live_{tok(24)}"),
    ("age-pub","age",f"age1{D.r(58,'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    ("npub","nostr",f"npub1{D.r(58,'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    ("xpub","wallet",f"xpub661MyMwAqRbc{D.r(95,'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}"),
    ("recovery-talk","notes","store the recovery codes in the safe, not here"),
    ("gpg-fpr","gpg",f"key fingerprint {' '.join(D.r(4,'0123456789ABCDEF') for _ in range(10))}"),
    ("session-word","notes",f"session {R.randrange(100,999)} was about the roadmap"),
    ("wifi-ssid","wifi","network: Acme-Guest (open, no password)"),
    ("s3-key","aws",f"s3://bucket/{tok(20)}/report.csv"),
    ("slug","notes",f"see /blog/{phrase(R,4)}-{tok(8)}"),
    ("version-hash","notes",f"v1.2.3+g{D.r(7,HEX)}"),
    ("ulid","notes",f"order {D.r(26,'0123456789ABCDEFGHJKMNPQRSTVWXYZ')}"),
    ("mongo-id","notes",f"_id: ObjectId('{D.r(24,HEX)}')"),
    ("base64-png","notes",f"data:image/png;base64,{D.r(120,B64)}"),
    ]
    return _items('p1', forms), _items('p1', alikes)


def _p2() -> tuple[list[dict], list[dict]]:
    forms = [
    ("hex-unknown-key","env",f"FROB_HMAC={D.r(64,HEX)}"),
    ("b64-unknown-key","env",f"FROB_MATERIAL={D.r(43,B64)}="),
    ("b32-unknown","env",f"FROB_OTP={D.r(32,B32)}"),
    ("prose-the-x-is","notes",f"the frobnicator's access string is {tok(36)}"),
    ("prose-use-this","notes",f"to call the API use {tok(36)} in the header"),
    ("prose-keep-safe","notes",f"keep this safe: {tok(36)}"),
    ("prose-dont-share","notes",f"{tok(36)} - don't share this one"),
    ("yaml-list-creds","config",f"- name: frob\n  value: {tok(40)}"),
    ("k8s-secret-data","k8s",f"apiVersion: v1\nkind: Secret\ndata:\n  foo: {base64.b64encode(pw(16).encode()).decode()}"),
    ("k8s-stringdata","k8s",f"kind: Secret\nstringData:\n  endpoint_cfg: {tok(32)}"),
    ("gh-actions-env","ci",f"env:\n  FROB: {tok(40)}"),
    ("docker-env","compose",f"environment:\n  - FROB_ACCESS={tok(40)}"),
    ("cli-arg-random","notes",f"frobctl connect --using {tok(40)}"),
    ("http-query","notes",f"GET /v2/things?access={tok(40)}"),
    ("split-desc-pw","login for the NAS (admin)",f"{person(R)}"),
    ("split-two-lines","notes",f"NAS\nuser: admin\n{person(R)}"),
    ("user-pass-pair-json","config",json.dumps({"user":"svc","pw":pw(14)})),
    ("user-then-pass-line","notes",f"Login: svc-backup\nPassword {pw(14)}"),
    ("pass-in-sentence-end","notes",f"Remember that the router admin is reachable with {pw(12)} from the LAN."),
    ("pwd-abbr","notes",f"router pwd = {person(R)}"),
    ("code-phrase","notes",f"The vault combo is {R.randrange(10,99)}-{R.randrange(10,99)}-{R.randrange(10,99)}"),
    ("pin-sentence","notes",f"my bank card pin is {R.randrange(1000,9999)}"),
    ("passphrase-words","notes",f"backup passphrase {phrase(R,5,' ')}"),
    ("ssh-key-passphrase","notes",f"ssh key passphrase: {person(R)}"),
    ("private-hex-prose","wallet",f"private key 0x{D.r(64,HEX)}"),
    ("wg-private","wg",f"[Interface]\nPrivateKey = {D.r(43,B64)}="),
    ("seed-12","wallet"," ".join(bip39_words(R,12))),
    ("basic-user-pass","notes",f"basic auth svc:{pw(14)}"),
    ("amqp","notes",f"amqp://guest2:{pw(14)}@mq.internal:5672/"),
    ("ldap-bind","notes",f"ldapsearch -x -D cn=admin,dc=x,dc=org -w {pw(14)}"),
    ("java-prop","props",f"frob.auth.value={tok(40)}"),
    ("xml-any","xml",f"<frobAccess>{tok(40)}</frobAccess>"),
    ("env-export-any","sh",f"export FROBNIC={tok(40)}"),
    ("ps-env","ps",f"$env:FROB = \"{tok(40)}\""),
    ("unicode-label","notes",f"Passwort: {person(R)}"),
    ("ru-label","notes",f"пароль: {person(R)}"),
    ("zh-label","notes",f"密码：{pw(12)}"),
    ("api-in-name","env",f"FROBAPI={tok(40)}"),
    ("priv-in-name","env",f"FROB_PRIV={tok(40)}"),
    ("bearer-prose","notes",f"bearer {tok(40)}"),
    ("x-header-any","notes",f"X-Frob: {tok(40)}"),
    ("upper-b32-alone","notes",f"{D.r(32,B32)}"),
    ("unk-prefix-upper-b32","notes",f"frob_{D.r(40,'abcdefghijklmnopqrstuvwxyz234567')}"),
    ]
    alikes = [
    ("hex-commit-any","env",f"GIT_REV={D.r(40,HEX)}"),
    ("hex-sha-any","env",f"ARTIFACT_SUM={D.r(64,HEX)}"),
    ("req-id-any","logs",f"requestId: {tok(32)}"),
    ("json-nonce","config",json.dumps({"nonce":tok(32)})),
    ("json-state","oauth",json.dumps({"state":tok(32),"redirect":"https://x.io/cb"})),
    ("yaml-image","k8s",f"image: ghcr.io/x/y:{D.r(12,HEX)}"),
    ("any-id","env",f"FROB_ID={tok(24)}"),
    ("yt","notes",f"video: https://youtu.be/{D.r(11,URL)}"),
    ("json-etag","config",json.dumps({"etag":tok(32)})),
    ("json-hash","config",json.dumps({"hash":tok(43)})),
    ("json-cursor","config",json.dumps({"cursor":tok(40)})),
    ("json-cid","config",json.dumps({"correlationId":tok(32)})),
    ("json-object-key","config",json.dumps({"objectKey":f"uploads/{tok(20)}.png"})),
    ("yaml-checksum","config",f"checksum: {tok(44)}"),
    ("ipfs","notes",f"ipfs://Qm{D.r(44,'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz')}"),
    ("json-fingerprint","config",json.dumps({"fingerprint":tok(43)})),
    ("yaml-version","config",f"version: 1.2.3\nbuild: {tok(16)}"),
    ("toml-lock","lock",f'[[package]]\nname = "x"\nchecksum = "{D.r(64,HEX)}"'),
    ("sentence-word","notes","the frobnicator's access string is documented in the wiki"),
    ("camel-words","notes","FrobnicatorAccessStringDocumentedInWikiV2"),
    ("x-header-reqid","notes",f"X-Request-Id: {tok(32)}"),
    ("upload-id","s3",f"UploadId={tok(64)}"),
    ("cf-ray","notes",f"cf-ray: {D.r(16,HEX)}-FRA"),
    ("pkce-challenge","oauth",f"code_challenge={D.r(43,URL)}&code_challenge_method=S256"),
    ("ms-graph-delta","notes",f"@odata.deltaLink: https://graph.microsoft.com/v1.0/users/delta?$deltatoken={tok(40)}"),
    ]
    return _items('p2', forms), _items('p2', alikes)


def _p3() -> tuple[list[dict], list[dict]]:
    p = person(R)
    forms = [
    ("login-as","notes",f"log in as root with {p}"),
    ("signs-in","notes",f"she signs in with jdoe / {p}"),
    ("creds-are","notes",f"creds are admin and {p}"),
    ("u-p","notes",f"u: admin p: {p}"),
    ("user-pw-comma","notes",f"admin, {pw(12)}"),
    ("account-colon","notes",f"account admin:{pw(12)} on the switch"),
    ("the-pass-for","notes",f"the pass for the gate is {p}"),
    ("pwd-is","notes",f"pwd is {p}"),
    ("passw-typo","notes",f"pasword: {p}"),
    ("pass-word","notes",f"pass word: {p}"),
    ("p-w","notes",f"p/w {p}"),
    ("pword","notes",f"pword: {p}"),
    ("secret-phrase","notes",f"secret phrase: {phrase(R,4,' ')}"),
    ("unlock-with","notes",f"unlock the laptop with {pw(10)}"),
    ("opens-with","notes",f"the safe opens with {R.randrange(100000,999999)}"),
    ("master-pw","notes",f"master pw {p}"),
    ("vault-pass","ansible",f"ansible vault pass: {p}"),
    ("keystore-pass","android",f"keystore pass {pw(12)}"),
    ("de-kennwort","notes",f"Kennwort für das NAS: {p}"),
    ("es-clave","notes",f"clave del router: {p}"),
    ("pt-senha-2","notes",f"minha senha do banco é {p}"),
    ("fr-mdp","notes",f"mdp: {p}"),
    ("it-pw","notes",f"pw del wifi: {p}"),
    ("nl-ww","notes",f"ww: {p}"),
    ("sv-losen","notes",f"lösen: {p}"),
    ("ru-parol","notes",f"пароль от почты {p}"),
    ("ja-pass","notes",f"パスワード：{p}"),
    ("ko","notes",f"비밀번호: {p}"),
    ("zh-mima","notes",f"WiFi密码是{pw(10)}"),
    ("ar","notes",f"كلمة المرور: {p}"),
    ("hi","notes",f"पासवर्ड: {p}"),
    ("vi","notes",f"mật khẩu: {p}"),
    ("id","notes",f"kata sandi: {p}"),
    ("tr","notes",f"parola: {p}"),
    ("pl","notes",f"hasło do routera to {p}"),
    ("cs","notes",f"heslo je {p}"),
    ("split-desc","admin password for the NAS",f"{p}"),
    ("split-body-user","VPN",f"user jdoe\n{pw(14)}"),
    ("json-split","creds",json.dumps({"user":"jdoe"})+"\n"+json.dumps({"secret":pw(14)})),
    ("totp-b32-grouped","2fa",f"TOTP secret: {' '.join(D.r(4,B32) for _ in range(8))}"),
    ("totp-url-other","2fa",f"otpauth://hotp/ACME:bob?secret={D.r(26,B32)}&counter=0"),
    ("recovery-codes-ws","gh","recovery codes: " + " ".join(f"{D.r(4,'abcdefghijklmnopqrstuvwxyz0123456789')}-{D.r(4,'abcdefghijklmnopqrstuvwxyz0123456789')}" for _ in range(6))),
    ("recovery-numbered","acme","backup codes\n" + "\n".join(f"{i+1}. {R.randrange(10**7,10**8)}" for i in range(5))),
    ("seed-numbered","wallet","\n".join(f"{i+1}) {w}" for i,w in enumerate(bip39_words(R,12)))),
    ("seed-comma","wallet",", ".join(bip39_words(R,24))),
    ("ppk-v2","key",f"PuTTY-User-Key-File-2: ssh-rsa\nEncryption: aes256-cbc\nComment: k\nPublic-Lines: 1\n{D.r(64,B64)}\nPrivate-Lines: 1\n{D.r(64,B64)}\nPrivate-MAC: {D.r(40,HEX)}"),
    ("openssh-private","key",f"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA{D.r(40,B64)}\n-----END OPENSSH PRIVATE KEY-----"),
    ("pgp-private","key",f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBGV{D.r(60,B64)}\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----"),
    ("ec-params-key","key",f"-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE{D.r(56,B64)}\n-----END EC PRIVATE KEY-----"),
    ("age-plugin","key",f"AGE-PLUGIN-YUBIKEY-1{D.r(40,'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}"),
    ("jwk-rsa-private","key",json.dumps({"kty":"RSA","n":D.r(86,URL),"e":"AQAB","d":D.r(86,URL),"p":D.r(43,URL),"q":D.r(43,URL)})),
    ("ssh-key-inline","notes",f"id_ed25519 contents: b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW{D.r(60,B64)}"),
    ("url-user-pass-weird","notes",f"ftp://backup:{pw(12)}@files.example.org/dump"),
    ("url-ws","notes",f"wss://bot:{pw(14)}@stream.example.org/feed"),
    ("url-smb","notes",f"smb://DOMAIN;svc:{pw(12)}@fileserver/share"),
    ("url-custom-scheme","notes",f"clickhouse://default:{pw(14)}@ch.internal:9000/db"),
    ("conn-string","notes",f"Server=db.internal;Database=app;User Id=sa;Password={pw(14)};"),
    ("jdbc-query","notes",f"jdbc:postgresql://db:5432/app?user=app&password={pw(14)}"),
    ("dsn-kv","notes",f"host=db.internal port=5432 user=app password={pw(14)} dbname=app"),
    ("odbc","notes",f"DRIVER={{ODBC Driver 18}};SERVER=tcp:db;UID=sa;PWD={pw(14)}"),
    ("redis-auth","notes",f"redis-cli -a {pw(16)} ping"),
    ("mongo-eval","notes",f"mongosh -u admin -p {pw(14)} --authenticationDatabase admin"),
    ("htpasswd-plain","notes",f"admin:{pw(12)}  (plain, before hashing)"),
    ("gitlab-runner","notes",f"gitlab-runner register --registration-token {tok(20)}"),
    ("api-header-json","notes",json.dumps({"headers":{"X-Frob-Auth":tok(40)}})),
    ("cookie-header","notes",f"Cookie: frob_sess={tok(40)}"),
    ("set-cookie","notes",f"Set-Cookie: AUTHX={tok(40)}; Path=/; HttpOnly"),
    ("bearer-lower","notes",f"authorization: bearer {tok(40)}"),
    ("slack-like-unknown","notes",f"xoxq-{R.randrange(10**11,10**12)}-{R.randrange(10**11,10**12)}-{tok(24)}"),
    ("prefix-dot","notes",f"frob.{tok(40)}"),
    ("prefix-colon","notes",f"frob:{tok(40)}"),
    ("prefix-upper-underscore","notes",f"FROB_{tok(40)}"),
    ("hex-64-labelled-unknown","notes",f"frob signing: {D.r(64,HEX)}"),
    ]
    alikes = [
    ("user-only","notes","log in as root with your usual SSH key"),
    ("policy","notes","pwd is the shell's working directory"),
    ("pin-years","notes","the pin on the map is from 2019"),
    ("codes-talk","notes","recovery codes are printed and in the safe"),
    ("seed-talk","notes","never type the seed phrase into a website"),
    ("pem-public","key",f"-----BEGIN RSA PUBLIC KEY-----\n{D.r(64,B64)}\n-----END RSA PUBLIC KEY-----"),
    ("url-no-pw","notes","ftp://anonymous@files.example.org/pub"),
    ("url-pw-var","notes","postgres://app:${DB_PASS}@db:5432/app"),
    ("conn-no-pw","notes","Server=db;Database=app;Integrated Security=true;"),
    ("bearer-placeholder","notes","Authorization: Bearer <token>"),
    ("cookie-analytics","notes",f"Cookie: _ga=GA1.2.{R.randrange(10**9,10**10)}.{R.randrange(10**9,10**10)}"),
    ("hex-commit-prose","notes",f"merged as {D.r(40,HEX)} yesterday"),
    ("otp-issuer","2fa","otpauth://totp/ACME:bob?issuer=ACME (secret omitted)"),
    ("seed-9","notes"," ".join(R.sample(["apple","river","stone","cloud","table","green","music","light","paper"],9))),
    ("hash-sha","notes",f"sha256sum: {D.r(64,HEX)}"),
    ("age-recipient","notes",f"age1{D.r(58,'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}"),
    ("keep-safe-prose","notes","keep this safe: the printed recovery sheet is in the drawer"),
    ("dont-share-prose","notes",f"don't share the link to build {R.randrange(1000,9999)}"),
    ("confidential-doc","notes",f"confidential: draft {uuid4(R)} of the roadmap"),
    ("sensitive-id","notes",f"sensitive ticket OPS-{R.randrange(1000,9999)}, request id {tok(32)}"),
    ]
    return _items('p3', forms), _items('p3', alikes)


FORMS: list[dict] = []
LOOK_ALIKES: list[dict] = []
for _make in (_p1, _p2, _p3):
    _f, _a = _make()
    FORMS += _f
    LOOK_ALIKES += _a
