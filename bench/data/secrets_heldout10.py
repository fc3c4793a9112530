"""The tenth held-out corpus for the secret gate: BLIND, written on 2026-12-03 (20:17-20:26 UTC) by
helper session "blind10" at head 96ba710 (main), without reading the detector
(``vault_mem/model/secret*.py``, the secret parts of ``policy.py``: only ``check_write``'s wrapper,
the bench's entry point), its tests, the other corpora's items or the secret sections of
docs/benchmarks.md and RELIABILITY.md; of ``secrets_heldout9.py`` only the docstring's first lines,
its helper names and three items were read, for the format, and ``bench/bench_secrets.py``. It uses
no shared generator: every value comes from this file's own seeded ``random.Random``; the BIP-39
words were checked against the standard list (bitcoin/bips, bip-0039/english.txt) so that seed
phrases carry valid checksums. Measured untuned: 294/326 forms and 0/76 look-alikes refused on the
first run. After it three generators were made true to the real format, not to the detector: a
Bitcoin WIF now carries its base58check checksum, a BitLocker key's groups are multiples of 11, and
a URL-safe password no longer starts with "-" (a command would read it as an option); that shifts
the later random values, and the figures in the commit that adds this file are the final ones.

Each item is a memory (key, description, body, frontmatter ``meta``) as a developer's agent would
try to store it, with a ``name`` and a ``class``. ``FORMS`` hold a live credential somewhere in
them; ``LOOK_ALIKES`` hold the same shapes and places with nothing a careful reviewer would call a
secret (public keys and certificates, object ids, checksums, ciphertext made to be committed,
references to where a secret lives, placeholders that say so).

Forms, by class: ``vendor`` (rare and invented vendor token formats, bare or lightly labelled),
``prose`` (passwords and keys in sentences in English and 28 other natural languages), ``table``
(Markdown, CSV, TSV and ASCII tables), ``config`` (YAML, TOML, JSON, INI, .env, XML, HCL,
properties, .netrc, .pgpass), ``infra`` (Dockerfile, compose, Kubernetes, Helm, CI pipelines,
systemd, Ansible, Terraform, cloud-init), ``url`` (credentials in userinfo, path or query; webhook
URLs with a secret path), ``connstr`` (databases and brokers), ``header`` (Basic, Bearer, custom
headers, cookies, sessions), ``privkey`` (PEM variants, OpenSSH, PuTTY, age, PGP, JWK with ``d``,
WireGuard, Tor, minisign/signify, wallet keys), ``seed`` (BIP-39 with valid checksums in several
lengths and layouts, Electrum, Monero 25 words), ``otp`` (TOTP secrets, otpauth URIs, recovery
codes), ``split`` (one credential spread over the key, description, body and frontmatter), ``cli``
(positional and flag passwords in commands), ``encoded`` (base64/hex wrapped secrets, data in k8s
Secrets and docker auths), ``code`` (literals in source in many languages).
Look-alikes, by class: ``ids``, ``hash``, ``public``, ``placeholder``, ``encrypted``, ``prose``,
``config``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import re
import zlib

_R = random.Random(20261203_10)

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
LOWER = "abcdefghijklmnopqrstuvwxyz0123456789"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
HEX = "0123456789abcdef"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
URLSAFE = ALNUM + "-_"
SYM = ALNUM + "!#%^*+=?@~"


def r(n: int, alphabet: str = ALNUM) -> str:
    return "".join(_R.choice(alphabet) for _ in range(n))


def rb(n: int) -> bytes:
    return bytes(_R.getrandbits(8) for _ in range(n))


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def wrap(s: str, width: int = 64) -> str:
    return "\n".join(s[i:i + width] for i in range(0, len(s), width))


_WORDS = ("falcon river copper maple orbit velvet harbor cactus nimbus quartz tundra saffron lantern "
          "pepper willow marble comet ember glacier meadow thunder violet walnut zephyr").split()


def pw() -> str:
    """A strong generated password (what a password manager makes)."""
    s = r(3, "ABCDEFGHJKLMNPQRSTUVWXYZ") + r(4, "abcdefghijkmnopqrstuvwxyz") + r(3, "23456789") + r(2, "!#%*+?@") + r(6, ALNUM)
    return "".join(_R.sample(s, len(s)))


def hpw() -> str:
    """A human-chosen password: a word, digits and a sign (low entropy, caught only by its place)."""
    return _R.choice(_WORDS).capitalize() + _R.choice(["!", "#", "$", "@", "*"]) + str(_R.randint(1970, 2026)) + _R.choice(_WORDS)[:3]


def safepw(n: int = 20) -> str:
    """A generated password that survives URLs and command lines unescaped."""
    return r(1, ALNUM) + r(n - 1, ALNUM + "-_")


def b58check(payload: bytes) -> str:
    data = payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4]
    n, out = int.from_bytes(data, "big"), ""
    while n:
        n, rem = divmod(n, 58)
        out = B58[rem] + out
    return "1" * (len(data) - len(data.lstrip(b"\0"))) + out


def jwt(payload: dict, alg: str = "HS256") -> str:
    head = b64u(json.dumps({"alg": alg, "typ": "JWT"}, separators=(",", ":")).encode())
    body = b64u(json.dumps(payload, separators=(",", ":")).encode())
    sig = b64u(rb(32 if alg.startswith("HS") else 256))
    return f"{head}.{body}.{sig}"


def uuid() -> str:
    h = r(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_R.choice('89ab')}{h[17:20]}-{h[20:32]}"


def pem(label: str, der: bytes) -> str:
    return f"-----BEGIN {label}-----\n{wrap(b64(der))}\n-----END {label}-----"


def rsa_pkcs1() -> bytes:
    return bytes.fromhex("308204a40201000282010100") + rb(1180)


def rsa_pkcs8() -> bytes:
    return bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7308204a30201000282010100") + rb(1180)


def ec_sec1() -> bytes:
    return bytes.fromhex("30770201010420") + rb(32) + bytes.fromhex("a00a06082a8648ce3d030107a144034200") + b"\x04" + rb(64)


def ed_pkcs8() -> bytes:
    return bytes.fromhex("302e020100300506032b657004220420") + rb(32)


def openssh_priv() -> str:
    pub = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rb(32)
    check = rb(4)
    priv = (check + check + b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + pub[-32:] + b"\x00\x00\x00\x40" + rb(64)
            + b"\x00\x00\x00\x0edev@laptop-7f3" + b"\x01\x02\x03\x04\x05")
    blob = (b"openssh-key-v1\x00" + b"\x00\x00\x00\x04none" + b"\x00\x00\x00\x04none" + b"\x00\x00\x00\x00" + b"\x00\x00\x00\x01"
            + len(pub).to_bytes(4, "big") + pub + len(priv).to_bytes(4, "big") + priv)
    return "-----BEGIN OPENSSH PRIVATE KEY-----\n" + wrap(b64(blob), 70) + "\n-----END OPENSSH PRIVATE KEY-----"


def ssh_pub(kind: str = "ssh-ed25519") -> str:
    if kind == "ssh-ed25519":
        blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rb(32)
    else:
        blob = b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x01\x00" + rb(256)
    return f"{kind} {b64(blob)}"


def cert() -> str:
    der = bytes.fromhex("308203") + rb(2) + bytes.fromhex("308202") + rb(2) + bytes.fromhex("a003020102021412") + rb(700)
    return pem("CERTIFICATE", der)


# BIP-39 English words: the standard list's first 275 words (indices 0-274, "abandon".."car") and
# its last 15 ("wreck".."zoo", indices 2033-2047), so that a phrase can carry a valid checksum
BIP39_HEAD = """abandon ability able about above absent absorb abstract absurd abuse access accident account
accuse achieve acid acoustic acquire across act action actor actress actual adapt add addict address
adjust admit adult advance advice aerobic affair afford afraid again age agent agree ahead aim air
airport aisle alarm album alcohol alert alien all alley allow almost alone alpha already also alter
always amateur amazing among amount amused analyst anchor ancient anger angle angry animal ankle
announce annual another answer antenna antique anxiety any apart apology appear apple approve april
arch arctic area arena argue arm armed armor army around arrange arrest arrive arrow art artefact
artist artwork ask aspect assault asset assist assume asthma athlete atom attack attend attitude
attract auction audit august aunt author auto autumn average avocado avoid awake aware away awesome
awful awkward axis baby bachelor bacon badge bag balance balcony ball bamboo banana banner bar barely
bargain barrel base basic basket battle beach bean beauty because become beef before begin behave
behind believe below belt bench benefit best betray better between beyond bicycle bid bike bind
biology bird birth bitter black blade blame blanket blast bleak bless blind blood blossom blouse blue
blur blush board boat body boil bomb bone bonus book boost border boring borrow boss bottom bounce
box boy bracket brain brand brass brave bread breeze brick bridge brief bright bring brisk broccoli
broken bronze broom brother brown brush bubble buddy budget buffalo build bulb bulk bullet bundle
bunker burden burger burst bus business busy butter buyer buzz cabbage cabin cable cactus cage cake
call calm camera camp can canal cancel candy cannon canoe canvas canyon capable capital captain car""".split()
BIP39_TAIL = "wreck wrestle wrist write wrong yard year yellow you young youth zebra zero zone zoo".split()
BIP39_INDEX = {**{w: i for i, w in enumerate(BIP39_HEAD)}, **{w: 2033 + i for i, w in enumerate(BIP39_TAIL)}}
BIP39 = BIP39_HEAD + BIP39_TAIL

# Monero's English seed words (a subset of the 1,626-word list)
MONERO = """abbey abducts ability ablaze abnormal abort abrasive absorb abyss academy aces aching acidic
acoustic acquire across actress acumen adapt addicted adept adhesive adjust adopt adrenalin adult
adventure aerial afar affair afield afloat afoot afraid after against agenda aggravate agile aglow
agnostic agony agreed ahead aided ailments aimless airport aisle ajar akin alarms album alchemy alerts
algebra alkaline alley almost aloof alpine already also altitude alumni always amaze ambush amended
amidst ammo amnesty among amply amused anchor android anecdote angled ankle annoyed answers antics
anvil anxiety anybody apart apex aphid aplomb apology apply apricot aptitude aquarium arbitrary archer
ardent arena argue arises army around arrow arsenic artistic ascend ashtray aside asked asleep aspire
assorted asylum athlete atlas atom atrium attire auburn auctions audio august aunt austere autumn
avatar avidly avoid awakened awesome awful awkward awning awoken axes axis axle aztec azure""".split()


def bip39_valid(words: list[str]) -> bool:
    """BIP-39's checksum: the phrase's last n/3 bits are the first bits of SHA-256 of the rest."""
    bits = "".join(f"{BIP39_INDEX[w]:011b}" for w in words)
    cs = len(words) // 3
    ent = int(bits[:-cs], 2).to_bytes((len(bits) - cs) // 8, "big")
    return f"{hashlib.sha256(ent).digest()[0]:08b}"[:cs] == bits[-cs:]


def seed(n: int = 12) -> list[str]:
    """A BIP-39 phrase with a valid checksum (as every real wallet's is)."""
    while True:
        w = [_R.choice(BIP39) for _ in range(n)]
        if bip39_valid(w):
            return w


def monero() -> list[str]:
    """A Monero 25-word seed: 24 words and the checksum word (CRC32 of the 3-letter prefixes)."""
    w = [_R.choice(MONERO) for _ in range(24)]
    return w + [w[zlib.crc32("".join(x[:3] for x in w).encode()) % 24]]


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


_DESC = {
    "vendor": "API access for the integration", "prose": "note to self", "table": "environment inventory",
    "config": "working config", "infra": "deploy setup", "url": "endpoint that works", "connstr": "how to reach the database",
    "header": "request that works", "privkey": "key for the box", "seed": "wallet backup", "otp": "2FA setup",
    "split": "login details", "cli": "command that works", "encoded": "config blob", "code": "snippet",
}


def item(name: str, cls: str, body: str, description: str | None = None, key: str | None = None,
         meta: dict | None = None) -> dict:
    return {"name": name, "class": cls, "key": key or _slug(name), "description": description or _DESC.get(cls, "dev note"),
            "body": body, "meta": meta if meta is not None else {"tags": [cls, "dev"]}}


def forms() -> list[dict]:
    """Credentials in the shapes and places a developer's agent would try to store them."""
    f: list[dict] = []

    def F(*a, **k):
        f.append(item(*a, **k))

    # --- vendor: rare, new or invented token formats (a vendor list would not know most of them)
    F("doppler service token", "vendor", f"DOPPLER_TOKEN=dp.st.prd.{r(43)}", "Doppler for the prod config")
    F("pulumi access token", "vendor", f"pulumi login with PULUMI_ACCESS_TOKEN=pul-{r(40, HEX)}")
    F("infracost api key", "vendor", f"infracost configure set api_key ico-{r(32)}")
    F("prefect cloud key", "vendor", f"prefect cloud login -k pnu_{r(36)}")
    F("replicate token", "vendor", f"export REPLICATE_API_TOKEN=r8_{r(37)}")
    F("perplexity key", "vendor", f"pplx-{r(48)} is the perplexity key for the research agent")
    F("tavily search key", "vendor", f"Search tool: Tavily, key tvly-{r(32)}")
    F("firecrawl key", "vendor", f"FirecrawlApp(api_key=\"fc-{r(32, HEX)}\")", "scraper")
    F("fireworks ai key", "vendor", f"FIREWORKS_API_KEY = fw_{r(24)}")
    F("modal token pair", "vendor", f"modal token set --token-id ak-{r(22)} --token-secret as-{r(22)}")
    F("bitwarden secrets manager token", "vendor", f"BWS_ACCESS_TOKEN=0.{uuid()}.{r(30)}:{b64(rb(16))}")
    F("infisical service token", "vendor", f"INFISICAL_TOKEN=st.{uuid()}.{r(32, HEX)}.{r(32, HEX)}")
    F("onepassword service account", "vendor", f"OP_SERVICE_ACCOUNT_TOKEN=ops_{b64u(json.dumps({'signInAddress': 'my.1password.com', 'userAuth': {'method': 'SRPg-4096', 'alg': 'PBES2g-HS256', 'iterations': 650000, 'salt': r(22)}, 'email': r(10, LOWER) + '@1passwordserviceaccounts.com', 'srpX': r(64, HEX), 'muk': {'alg': 'A256GCM', 'ext': True, 'k': r(43, URLSAFE), 'key_ops': ['encrypt', 'decrypt'], 'kty': 'oct', 'kid': 'mp'}, 'secretKey': 'A3-' + r(6, UPPER) + '-' + r(6, UPPER)}).encode())}")
    F("tailscale auth key", "vendor", f"tailscale up --authkey tskey-auth-k{r(10)}CNTRL-{r(33)}")
    F("vault batch token", "vendor", f"VAULT_TOKEN=hvb.AAAAAQ{r(120, URLSAFE)}")
    F("terraform cloud token", "vendor", f'credentials "app.terraform.io" {{\n  token = "{r(14)}.atlasv1.{r(67)}"\n}}', "~/.terraformrc")
    F("dynatrace token", "vendor", f"DT_API_TOKEN=dt0c01.{r(24, UPPER)}.{r(64, UPPER)}")
    F("new relic user key", "vendor", f"NEW_RELIC_API_KEY=NRAK-{r(27, UPPER)}")
    F("grafana service account", "vendor", f"grafana token for the dashboards provisioning: glsa_{r(32)}_{r(8, HEX)}")
    F("buildkite agent token", "vendor", f"buildkite-agent start --token bkua_{r(40, HEX)}")
    F("netlify pat", "vendor", f"NETLIFY_AUTH_TOKEN=nfp_{r(36)}")
    F("planetscale password", "vendor", f"pscale_pw_{r(43, URLSAFE)} goes with user {r(12, LOWER)} on main")
    F("resend key", "vendor", f"const resend = new Resend('re_{r(8)}_{r(24)}');", "email sender")
    F("sentry auth token", "vendor", f"SENTRY_AUTH_TOKEN=sntrys_{b64u(json.dumps({'iat': 1764000000.1, 'url': 'https://sentry.io', 'region_url': 'https://de.sentry.io', 'org': 'acme'}).encode())}_{r(43)}")
    F("shopify admin token", "vendor", f"X-Shopify-Access-Token: shpat_{r(32, HEX)}")
    F("airtable pat", "vendor", f"AIRTABLE_PAT=pat{r(14)}.{r(64, HEX)}")
    F("linear api key", "vendor", f"LINEAR_API_KEY=lin_api_{r(40)}")
    F("atlassian api token", "vendor", f"jira token (me@acme.io): ATATT3xFfGF0{r(170, URLSAFE)}={r(8, UPPER)}")
    F("asana pat", "vendor", f"asana personal access token 2/{r(16, '0123456789')}/{r(16, '0123456789')}:{r(32, HEX)}")
    F("mapbox secret token", "vendor", f"MAPBOX_DOWNLOADS_TOKEN=sk.{b64u(json.dumps({'u': 'acme', 'a': r(25, LOWER)}).encode())}.{r(22, URLSAFE)}")
    F("upstash redis rest", "vendor", f"UPSTASH_REDIS_REST_URL=https://eu1-clever-owl-38211.upstash.io\nUPSTASH_REDIS_REST_TOKEN=AZ{r(4)}ASQgN{r(60)}=")
    F("vercel blob token", "vendor", f"BLOB_READ_WRITE_TOKEN=vercel_blob_rw_{r(16)}_{r(30)}")
    F("ngrok authtoken", "vendor", f"ngrok config add-authtoken 2{r(26)}_{r(21)}")
    F("nostr nsec", "vendor", f"my nostr key nsec1{r(58, BECH)}", "nostr client")
    F("invented acme cloud live key", "vendor", f"ACMECLOUD_KEY=acmc_live_{r(40)}", "Acme Cloud (new vendor)")
    F("invented zephyrdb token", "vendor", f"zephyrdb auth: zdb_tok_v2_{r(8, LOWER)}_{r(48, URLSAFE)}", "ZephyrDB hosted")
    F("invented loomly secret", "vendor", f"Loomly webhook signing secret lmsec-{r(6, UPPER)}-{r(6, UPPER)}-{r(6, UPPER)}-{r(6, UPPER)}")
    F("invented quill key with checksum", "vendor", f"QUILL_SECRET=qk1_{r(36, B58)}{r(6, HEX)}")
    F("invented tilde api key", "vendor", f"The staging key for Tilde is ~tk.{r(28, LOWER)}.{r(12, LOWER)}")
    F("invented uppercase service key", "vendor", f"NIMBUSPAY_SECRET_KEY=NPSK{r(44, UPPER)}")
    F("invented bare token prefixed", "vendor", f"cmx_sk_{r(50)}", "cmx console key")
    F("dagster cloud token", "vendor", f"DAGSTER_CLOUD_API_TOKEN=user:{r(32, HEX)}")
    F("cloudinary url", "vendor", f"CLOUDINARY_URL=cloudinary://{r(15, '0123456789')}:{r(27, URLSAFE)}@acme-media")
    F("algolia admin key", "vendor", f"algolia admin API key (write!): {r(32, HEX)}  app id {r(10, UPPER)}")
    F("mailgun sending key", "vendor", f"MAILGUN_API_KEY={r(32, HEX)}-{r(8, HEX)}-{r(8, HEX)}")
    F("pagerduty integration key", "vendor", f"routing_key: {r(32, HEX)}  # pagerduty events v2, service checkout")

    # --- prose in many natural languages
    F("prose german", "prose", f"Das Passwort für den Staging-Server ist {hpw()}, bitte nicht weitergeben.", "Zugang Staging")
    F("prose french", "prose", f"Le mot de passe du compte admin est {pw()} (changé hier).", "accès admin")
    F("prose spanish", "prose", f"La contraseña de la base de datos de producción: {hpw()}")
    F("prose portuguese", "prose", f"A senha do roteador do escritório é {hpw()} e o usuário é admin.")
    F("prose italian", "prose", f"La password del NAS in ufficio è {pw()}")
    F("prose dutch", "prose", f"Het wachtwoord van de testomgeving is {hpw()}.")
    F("prose polish", "prose", f"Hasło do panelu: {hpw()} (login: biuro).")
    F("prose czech", "prose", f"Heslo k serveru je {pw()}, uživatel deploy.")
    F("prose russian", "prose", f"Пароль от сервера сборки: {pw()}, логин ci.")
    F("prose ukrainian", "prose", f"Пароль до пошти підтримки — {hpw()}")
    F("prose turkish", "prose", f"Sunucunun şifresi {hpw()} olarak değiştirildi.")
    F("prose greek", "prose", f"Ο κωδικός πρόσβασης για το VPN είναι {pw()}")
    F("prose chinese", "prose", f"测试环境数据库密码是 {pw()}，用户名 root。")
    F("prose japanese", "prose", f"本番サーバーのパスワードは {pw()} です。")
    F("prose korean", "prose", f"관리자 비밀번호는 {hpw()} 입니다.")
    F("prose hindi", "prose", f"सर्वर का पासवर्ड {pw()} है।")
    F("prose arabic", "prose", f"كلمة المرور لحساب المسؤول هي {pw()}")
    F("prose hebrew", "prose", f"הסיסמה לשרת הבדיקות היא {hpw()}")
    F("prose vietnamese", "prose", f"Mật khẩu wifi văn phòng là {hpw()}")
    F("prose indonesian", "prose", f"Kata sandi untuk akun deploy: {pw()}")
    F("prose swedish", "prose", f"Lösenordet till byggservern är {hpw()}.")
    F("prose finnish", "prose", f"Palvelimen salasana on {pw()}")
    F("prose hungarian", "prose", f"A tesztszerver jelszava: {hpw()}")
    F("prose romanian", "prose", f"Parola pentru contul de administrator este {pw()}.")
    F("prose thai", "prose", f"รหัสผ่านของเซิร์ฟเวอร์คือ {pw()}")
    F("prose persian", "prose", f"رمز عبور سرور تست {pw()} است")
    F("prose norwegian", "prose", f"Passordet til ruteren er {hpw()}.")
    F("prose swahili", "prose", f"Nenosiri la seva ni {pw()}")
    F("prose english casual pass", "prose", f"fyi the jenkins login is admin / {hpw()} until IT rotates it")
    F("prose english api key sentence", "prose", f"Use {r(40)} as the API key when calling the billing service from staging.")
    F("prose english creds are", "prose", f"Creds for the grafana box are ops and {pw()}.")
    F("prose english passphrase", "prose", f"The passphrase for the backup disk is \"{' '.join(_R.sample(_WORDS, 4))} {_R.randint(10, 99)}\".")
    F("prose german token", "prose", f"Der API-Schlüssel für das Wetter-Portal lautet {r(32, HEX)}.")
    F("prose spanish token", "prose", f"El token de acceso del bot es {r(46, URLSAFE)}")
    F("prose french secret", "prose", f"Le secret client OAuth de l'appli mobile : {r(40, URLSAFE)}")

    # --- tables
    F("markdown table env creds", "table", "| env | host | user | password |\n|---|---|---|---|\n"
      f"| dev | db-dev.internal | app | {pw()} |\n| prod | db-prod.internal | app | {pw()} |", "DB access per environment")
    F("markdown table api keys", "table", "| Service | Key |\n|--------|-----|\n"
      f"| Weather | {r(32, HEX)} |\n| Geocoder | {r(39)} |\n| SMS | {r(32)} |")
    F("csv accounts export", "table", "name,url,username,password\n"
      f"Router,http://192.168.1.1,admin,{hpw()}\nNAS,https://nas.home.arpa:5001,backup,{pw()}", "password manager export (partial)")
    F("ascii table", "table", "+----------+-----------+----------------------+\n| system   | login     | secret               |\n"
      f"+----------+-----------+----------------------+\n| ldap     | cn=admin  | {pw()}   |\n| minio    | root      | {r(20)} |\n+----------+-----------+----------------------+")
    F("tsv service accounts", "table", f"svc\tclient_id\tclient_secret\nreports\t{uuid()}\t{r(34, URLSAFE)}\nsync\t{uuid()}\t{r(34, URLSAFE)}")
    F("markdown table german", "table", "| Dienst | Benutzer | Kennwort |\n|---|---|---|\n"
      f"| Mailserver | postmaster | {hpw()} |")

    # --- config files
    F("yaml app config", "config", f"database:\n  host: pg.internal\n  port: 5432\n  user: orders\n  password: {pw()}\ncache:\n  url: redis://cache:6379/0")
    F("yaml nested auth", "config", f"smtp:\n  server: smtp.mailbox.org\n  auth:\n    username: alerts@acme.io\n    pass: \"{pw()}\"")
    F("toml credentials", "config", f"[registry.internal]\nindex = \"https://crates.acme.io/index\"\ntoken = \"Bearer {r(40)}\"", "cargo credentials.toml")
    F("toml app secret", "config", f"[server]\nport = 8080\nsession_secret = \"{r(48, HEX)}\"")
    F("json service config", "config", json.dumps({"service": "mailer", "smtp": {"host": "smtp.acme.io", "user": "mailer", "passwd": pw()}}, indent=2))
    F("json client secret", "config", json.dumps({"installed": {"client_id": f"{r(12, '0123456789')}-{r(32, LOWER)}.apps.example-idp.com", "client_secret": r(35, URLSAFE), "redirect_uris": ["http://localhost"]}}))
    F("ini odbc", "config", f"[warehouse]\nDriver=ODBC Driver 18 for SQL Server\nServer=tcp:sql01.corp.local,1433\nUID=etl\nPWD={pw()}", "odbc.ini")
    F("ini pypirc", "config", f"[distutils]\nindex-servers = internal\n\n[internal]\nrepository = https://pypi.acme.io/\nusername = ci\npassword = {pw()}")
    F("dotenv several", "config", f"NODE_ENV=production\nPORT=3000\nJWT_SIGNING_KEY={r(64, HEX)}\nLOG_LEVEL=info")
    F("dotenv quoted human", "config", f"ADMIN_USER=root\nADMIN_PASS='{hpw()}'")
    F("dotenv export", "config", f"export STRIPE_LIKE_SECRET=\"{r(48)}\"\nexport FEATURE_X=1")
    F("xml maven settings", "config", f"<servers>\n  <server>\n    <id>acme-releases</id>\n    <username>deployer</username>\n    <password>{pw()}</password>\n  </server>\n</servers>", "~/.m2/settings.xml")
    F("xml nuget cleartext", "config", f"<packageSourceCredentials>\n  <AcmeFeed>\n    <add key=\"Username\" value=\"build\" />\n    <add key=\"ClearTextPassword\" value=\"{r(52, LOWER)}\" />\n  </AcmeFeed>\n</packageSourceCredentials>")
    F("properties file", "config", f"spring.datasource.url=jdbc:mysql://db:3306/shop\nspring.datasource.username=shop\nspring.datasource.password={pw()}")
    F("gradle properties", "config", f"artifactoryUser=ci-bot\nartifactoryPassword={r(64, LOWER)}\norg.gradle.jvmargs=-Xmx2g")
    F("hcl provider", "config", f'provider "proxmox" {{\n  endpoint = "https://pve.lab:8006/"\n  username = "terraform@pve"\n  password = "{pw()}"\n}}')
    F("netrc", "config", f"machine api.acme.io\n  login deploy\n  password {r(40)}", "~/.netrc")
    F("netrc one line", "config", f"machine git.internal.example login ci password {pw()}")
    F("pgpass", "config", f"db.internal:5432:billing:billing_rw:{pw()}", "~/.pgpass")
    F("my cnf", "config", f"[client]\nuser=backup\npassword=\"{pw()}\"\nhost=127.0.0.1", "~/.my.cnf")
    F("npmrc auth", "config", f"@acme:registry=https://npm.acme.io/\n//npm.acme.io/:_authToken={uuid()}", ".npmrc")
    F("git credentials store", "config", f"https://ci-bot:{r(40, HEX)}@git.acme.io", "~/.git-credentials")
    F("rclone conf", "config", f"[b2]\ntype = b2\naccount = {r(25, HEX)}\nkey = K{r(30)}")
    F("s3cfg", "config", f"[default]\naccess_key = {r(20, UPPER)}\nsecret_key = {r(40, ALNUM + '/+')}\nhost_base = s3.eu-central.objects.example")
    F("yaml list of users", "config", f"users:\n  - name: alice\n    password: {hpw()}\n  - name: bob\n    password: {hpw()}")
    F("json api_key camel", "config", json.dumps({"analytics": {"apiKey": r(40), "endpoint": "https://ingest.acme.io"}}))
    F("yaml secret_key_base", "config", f"production:\n  secret_key_base: {r(128, HEX)}")
    F("nginx auth basic file", "config", f"# htpasswd would hash it, but this proxy takes plain text\nproxy_set_header Authorization \"Basic {b64(('grafana:' + pw()).encode())}\";")
    F("redis conf requirepass", "config", f"bind 0.0.0.0\nport 6379\nrequirepass {r(32)}", "redis.conf")
    F("pgbouncer ini auth", "config", f"[databases]\napp = host=10.0.0.5 dbname=app user=app password={pw()}")
    F("wg quick peer psk", "config", f"[Peer]\nPublicKey = {b64(rb(32))}\nPresharedKey = {b64(rb(32))}\nEndpoint = vpn.acme.io:51820")
    F("openvpn auth file", "config", f"auth-user-pass creds.txt\n# creds.txt:\nvpnuser\n{pw()}")
    F("snmp community", "config", f"rocommunity {r(16)} 10.0.0.0/8\n# the community string is the password", "snmpd.conf")
    F("ldap bind", "config", f"ldap:\n  url: ldaps://ldap.acme.io\n  bind_dn: cn=svc-gitlab,ou=svc,dc=acme,dc=io\n  bind_password: {pw()}")

    # --- infra: containers, orchestration, CI, provisioning
    F("dockerfile env", "infra", f"FROM node:22-alpine\nENV API_SECRET={r(40)}\nCOPY . /app\nCMD [\"node\", \"server.js\"]")
    F("dockerfile arg default", "infra", f"ARG NPM_TOKEN={r(36)}\nRUN echo \"//registry.npmjs.org/:_authToken=${{NPM_TOKEN}}\" > .npmrc && npm ci")
    F("compose environment map", "infra", f"services:\n  db:\n    image: postgres:17\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: {pw()}")
    F("compose mongo root", "infra", f"  mongo:\n    image: mongo:8\n    environment:\n      - MONGO_INITDB_ROOT_USERNAME=root\n      - MONGO_INITDB_ROOT_PASSWORD={hpw()}")
    F("k8s secret stringData", "infra", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\ntype: Opaque\nstringData:\n  token: {r(48)}")
    F("k8s env value", "infra", f"        env:\n        - name: DB_PASSWORD\n          value: \"{pw()}\"\n        - name: DB_HOST\n          value: pg")
    F("kubeconfig token", "infra", f"users:\n- name: ci\n  user:\n    token: {jwt({'iss': 'kubernetes/serviceaccount', 'kubernetes.io/serviceaccount/namespace': 'ci', 'sub': 'system:serviceaccount:ci:deployer'}, 'RS256')}")
    F("helm values", "infra", f"auth:\n  rootPassword: {pw()}\n  replicationPassword: {pw()}", "values-prod.yaml for the bitnami chart")
    F("helm set flag", "infra", f"helm upgrade --install grafana grafana/grafana --set adminPassword='{pw()}' -n monitoring")
    F("github actions env literal", "infra", f"jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n      DEPLOY_KEY: {r(40)}\n    steps:\n      - run: ./deploy.sh")
    F("gitlab ci variable", "infra", f"variables:\n  SONAR_TOKEN: \"squ_{r(40, HEX)}\"\n  SONAR_HOST_URL: https://sonar.acme.io")
    F("circleci env", "infra", f"    environment:\n      CODECOV_TOKEN: {uuid()}\n      TZ: Europe/Berlin")
    F("jenkinsfile withenv", "infra", f"withEnv(['NEXUS_PASS={pw()}']) {{\n  sh 'mvn deploy'\n}}")
    F("systemd environment", "infra", f"[Service]\nEnvironment=\"BACKUP_PASSPHRASE={pw()}\"\nExecStart=/usr/local/bin/restic backup /srv")
    F("ansible vars plain", "infra", f"# group_vars/db.yml\nmysql_root_password: {pw()}\nmysql_port: 3306")
    F("terraform tfvars", "infra", f"db_password = \"{pw()}\"\nregion      = \"eu-west-1\"", "terraform.tfvars")
    F("terraform state snippet", "infra", json.dumps({"type": "random_password", "instances": [{"attributes": {"length": 24, "result": pw() + r(6)}}]}, indent=1))
    F("cloud init chpasswd", "infra", f"#cloud-config\nchpasswd:\n  list: |\n    ubuntu:{hpw()}\n  expire: false")
    F("docker config auths", "infra", json.dumps({"auths": {"registry.acme.io": {"auth": b64(f"robot$ci:{r(32)}".encode())}}}), "~/.docker/config.json")
    F("argo cd repo secret", "infra", f"  url: https://git.acme.io/platform/apps.git\n  username: argocd\n  password: glpat-{r(20, URLSAFE)}")
    F("nomad job template", "infra", f"template {{\n  data = <<EOF\nAPI_KEY={r(36)}\nEOF\n  destination = \"secrets/env\"\n  env = true\n}}")

    # --- URLs
    F("url userinfo https", "url", f"https://deploy:{pw().replace('@', '9').replace('#', '8').replace('?', '7')}@artifacts.acme.io/repository/raw/")
    F("url token only userinfo", "url", f"git clone https://{r(40, HEX)}@git.acme.io/team/app.git")
    F("url query api key", "url", f"curl 'https://api.weather-data.example/v3/forecast?lat=52.5&lon=13.4&apikey={r(32, HEX)}'")
    F("url query access token", "url", f"https://graph.example-social.com/v19.0/me/accounts?access_token=EAA{r(180)}")
    F("url query signature", "url", f"https://files.acme.io/export.zip?X-Expires=86400&X-Credential={r(20, UPPER)}&X-Signature={r(64, HEX)}")
    F("url path token", "url", f"https://api.telegram-like.example/bot{r(10, '0123456789')}:{r(35, URLSAFE)}/sendMessage")
    F("webhook slack-like", "url", f"https://hooks.chat-provider.example/services/T{r(8, UPPER)}/B{r(10, UPPER)}/{r(24)}")
    F("webhook discord-like", "url", f"https://discord.com/api/webhooks/{r(19, '0123456789')}/{r(68, URLSAFE)}")
    F("webhook teams-like", "url", f"https://acme.webhook.office.com/webhookb2/{uuid()}@{uuid()}/IncomingWebhook/{r(32, HEX)}/{uuid()}/V2{r(40)}")
    F("webhook generic secret path", "url", f"POST alerts to https://ops.acme.io/hooks/ingest/{r(48, URLSAFE)} (no other auth)")
    F("webhook google chat", "url", f"https://chat.googleapis.com/v1/spaces/AAAA{r(7)}/messages?key=AIzaSy{r(33, URLSAFE)}&token={r(43, URLSAFE)}")
    F("url ftp", "url", f"ftp://uploader:{safepw(14)}@ftp.printshop.example/incoming/")
    F("url rtsp camera", "url", f"rtsp://viewer:{hpw().replace('#', '').replace('@', '').replace('$', '')}@192.168.1.64:554/Streaming/Channels/101")
    F("url smtp", "url", f"SMTP_URL=smtps://noreply%40acme.io:{safepw(18)}@smtp.acme.io:465")
    F("url ws token", "url", f"wss://realtime.acme.io/socket?token={r(64, URLSAFE)}&vsn=2.0.0")
    F("url proxy", "url", f"export HTTPS_PROXY=http://jdoe:{safepw(12)}@proxy.corp.local:3128")
    F("url magic login link", "url", f"Login link (valid 7 days): https://app.acme.io/auth/magic?email=me%40acme.io&code={r(48, URLSAFE)}")
    F("url invite with secret", "url", f"https://status.acme.io/api/push/{r(10)}?status=up&msg=OK  # uptime-kuma push URL")

    # --- connection strings
    F("postgres uri", "connstr", f"DATABASE_URL=postgres://app:{safepw()}@pg-primary.internal:5432/app?sslmode=require")
    F("mysql uri", "connstr", f"mysql://report:{safepw()}@10.1.2.3:3306/analytics")
    F("mongodb srv", "connstr", f"mongodb+srv://atlas-user:{safepw()}@cluster0.{r(5, LOWER)}.mongodb.net/?retryWrites=true&w=majority")
    F("redis uri password only", "connstr", f"REDIS_URL=rediss://:{r(32)}@cache.acme.io:6380/0")
    F("amqp uri", "connstr", f"amqp://orders:{safepw()}@rabbit.internal:5672/%2Fprod")
    F("sqlserver ado", "connstr", f"Server=tcp:acme-sql.database.example.net,1433;Initial Catalog=crm;User ID=crm_app;Password={pw()};Encrypt=True;")
    F("oracle jdbc", "connstr", f"jdbc:oracle:thin:scott/{safepw(12)}@//ora.internal:1521/ORCLPDB1")
    F("jdbc postgres params", "connstr", f"jdbc:postgresql://pg:5432/app?user=app&password={safepw()}&ssl=true")
    F("clickhouse dsn", "connstr", f"clickhouse://default:{safepw()}@ch.internal:9000/events")
    F("cassandra cql", "connstr", f"cqlsh cass01.internal -u cassandra -p {pw()}")
    F("neo4j bolt", "connstr", f"NEO4J_URI=neo4j+s://{r(8, LOWER)}.databases.neo4j.io\nNEO4J_USERNAME=neo4j\nNEO4J_PASSWORD={r(43, URLSAFE)}")
    F("elasticsearch url", "connstr", f"ES_URL=https://elastic:{safepw(24)}@es.internal:9200")
    F("nats creds inline", "connstr", f"nats://svc:{safepw()}@nats.internal:4222")
    F("mqtt uri", "connstr", f"mqtts://sensor-17:{safepw(16)}@broker.iot.acme.io:8883")
    F("couchdb url", "connstr", f"COUCHDB_URL=http://admin:{safepw()}@couch:5984/")
    F("influx token", "connstr", f"influx config create -n prod -u https://influx.acme.io -t {r(86, URLSAFE)}==")
    F("libpq keyword", "connstr", f"psql \"host=pg.internal port=5432 dbname=app user=admin password={safepw()} sslmode=verify-full\"")
    F("azure storage connstr", "connstr", f"DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey={b64(rb(64))};EndpointSuffix=core.windows.net")
    F("service bus connstr", "connstr", f"Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={b64(rb(32))}")
    F("snowflake dsn", "connstr", f"snowflake://etl_user:{safepw()}@acme-xy12345/analytics/public?warehouse=etl_wh")
    F("ldap url with password", "connstr", f"ldap://cn=reader,dc=acme,dc=io:{safepw(14)}@ldap.acme.io:389")
    F("sftp uri", "connstr", f"sftp://partner_upload:{safepw(16)}@sftp.acme.io:22/inbox")
    F("kafka sasl props", "connstr", f"bootstrap.servers=kafka.acme.io:9093\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\nsasl.username=ingest\nsasl.password={pw()}")

    # --- headers, cookies, sessions
    F("basic header", "header", f"Authorization: Basic {b64(('svc-reporting:' + pw()).encode())}")
    F("bearer header opaque", "header", f"curl -H 'Authorization: Bearer {r(64, URLSAFE)}' https://api.acme.io/v1/users")
    F("bearer jwt header", "header", f"Authorization: Bearer {jwt({'sub': 'svc-ci', 'scope': 'deploy:write', 'exp': 1893456000}, 'RS256')}")
    F("custom api key header", "header", f"curl -H \"X-Api-Key: {r(40)}\" https://inventory.acme.io/items")
    F("custom auth token header", "header", f"requests.get(url, headers={{\"X-Auth-Token\": \"{r(32, HEX)}\"}})")
    F("token scheme header", "header", f"Authorization: Token token=\"{r(32, HEX)}\"")
    F("apikey scheme header", "header", f"Authorization: ApiKey {b64((r(20) + ':' + r(22)).encode())}")
    F("digest header with password", "header", f"curl --digest -u admin:{pw()} http://camera.lan/ISAPI/System/deviceInfo")
    F("cookie session", "header", f"Cookie: sessionid={r(32, LOWER)}; csrftoken={r(64)}", "logged-in request for the scraper")
    F("cookie rails signed", "header", f"_app_session={r(300, URLSAFE)}--{r(40, HEX)}; path=/; HttpOnly")
    F("set cookie jwt", "header", f"Set-Cookie: auth={jwt({'uid': 4411, 'role': 'admin'})}; Secure; HttpOnly")
    F("cookie header curl", "header", f"curl 'https://admin.acme.io/api/export' -b 'connect.sid=s%3A{r(32, URLSAFE)}.{r(43, URLSAFE)}'")
    F("http request raw", "header", f"POST /v2/charges HTTP/1.1\nHost: api.pay.example\nAuthorization: Bearer sk_live_{r(24)}\nContent-Type: application/json")
    F("grpc metadata", "header", f"grpcurl -H 'authorization: bearer {r(48, URLSAFE)}' api.acme.io:443 list")
    F("proxy authorization", "header", f"Proxy-Authorization: Basic {b64(('jdoe:' + hpw()).encode())}")
    F("session token prose", "header", f"my browser session for the admin panel: PHPSESSID={r(26, LOWER)} (lasts a week)")

    # --- private keys of every kind
    F("pem rsa pkcs1", "privkey", pem("RSA PRIVATE KEY", rsa_pkcs1()), "deploy key")
    F("pem pkcs8", "privkey", pem("PRIVATE KEY", rsa_pkcs8()), "service account key")
    F("pem ec", "privkey", pem("EC PRIVATE KEY", ec_sec1()))
    F("pem ed25519 pkcs8", "privkey", pem("PRIVATE KEY", ed_pkcs8()), "signing key for releases")
    F("pem dsa", "privkey", pem("DSA PRIVATE KEY", bytes.fromhex("308201bb02010002818100") + rb(420)))
    F("openssh ed25519", "privkey", openssh_priv(), "ssh key for the build box")
    F("pem in json escaped", "privkey", json.dumps({"type": "service_account", "project_id": "acme-data", "private_key": pem("PRIVATE KEY", rsa_pkcs8()) + "\n", "client_email": "etl@acme-data.iam.example.com"}))
    F("pem in yaml block", "privkey", "tls:\n  key: |\n    " + pem("EC PRIVATE KEY", ec_sec1()).replace("\n", "\n    "))
    F("pem without newlines", "privkey", "SSH_KEY=\"" + pem("OPENSSH PRIVATE KEY", b"openssh-key-v1\x00" + rb(380)).replace("\n", "\\n") + "\"")
    F("pem body only", "privkey", "the key material (header stripped by the tool):\n" + wrap(b64(rsa_pkcs1())), "private key (rsa) for the sftp partner")
    F("putty v3", "privkey", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: eddsa-key-20261101\nPublic-Lines: 2\n"
      + wrap(b64(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rb(32))) + "\nPrivate-Lines: 1\n" + b64(b"\x00\x00\x00\x20" + rb(32))
      + f"\nPrivate-MAC: {r(64, HEX)}", "server.ppk")
    F("putty v2 rsa", "privkey", "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: imported-openssh-key\nPublic-Lines: 6\n"
      + wrap(b64(b"\x00\x00\x00\x07ssh-rsa" + rb(270))) + "\nPrivate-Lines: 14\n" + wrap(b64(rb(780))) + f"\nPrivate-MAC: {r(40, HEX)}")
    F("age identity file", "privkey", f"# created: 2026-11-02T10:00:00+01:00\n# public key: age1{r(58, BECH)}\nAGE-SECRET-KEY-1{r(58, BECH.upper())}", "keys.txt for sops")
    F("age identity inline", "privkey", f"SOPS_AGE_KEY=AGE-SECRET-KEY-1{r(58, BECH.upper())}")
    F("pgp private block", "privkey", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + wrap(b64(b"\x95\x05\x86\x04" + rb(900))) + f"\n={r(4, ALNUM + '+/')}\n-----END PGP PRIVATE KEY BLOCK-----")
    F("jwk private ec", "privkey", json.dumps({"kty": "EC", "crv": "P-256", "x": b64u(rb(32)), "y": b64u(rb(32)), "d": b64u(rb(32)), "kid": "sig-2026"}))
    F("jwk private okp", "privkey", json.dumps({"keys": [{"kty": "OKP", "crv": "Ed25519", "x": b64u(rb(32)), "d": b64u(rb(32)), "use": "sig"}]}, indent=2))
    F("jwk oct symmetric", "privkey", json.dumps({"kty": "oct", "k": b64u(rb(32)), "alg": "HS256", "kid": "hmac-1"}))
    F("wireguard interface", "privkey", f"[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = {b64(rb(32))}\nDNS = 10.8.0.1")
    F("wireguard wg set", "privkey", f"echo '{b64(rb(32))}' > /etc/wireguard/private.key && wg set wg0 private-key /etc/wireguard/private.key")
    F("tor client auth", "privkey", f"{r(56, 'abcdefghijklmnopqrstuvwxyz234567')}:descriptor:x25519:{r(52, B32)}", "tor ClientOnionAuthDir entry")
    F("tor hs secret key base64", "privkey", "hs_ed25519_secret_key (base64 of the file):\n" + b64(b"== ed25519v1-secret: type0 ==\x00\x00\x00" + rb(64)))
    F("ssh agent add literal", "privkey", "ssh-add - <<< \"" + openssh_priv() + "\"", "CI step that loads the deploy key")
    F("minisign secret key", "privkey", f"untrusted comment: minisign encrypted secret key\nRWRTY0Iy{b64(rb(150))}", "minisign.key")
    F("signify secret key", "privkey", f"untrusted comment: signify secret key\nRWRCSwAAA{b64(rb(96))}", "release.sec")
    F("ethereum private key", "privkey", f"PRIVATE_KEY=0x{r(64, HEX)}", "hardhat deployer")
    F("bitcoin wif", "privkey", "wallet import: " + b58check(b"\x80" + rb(32) + b"\x01"), "paper wallet")
    F("bip32 xprv", "privkey", f"xprv9s21ZrQH143K{r(95, B58)}")
    F("solana keypair json", "privkey", json.dumps([_R.randrange(256) for _ in range(64)]), "id.json for the devnet deployer")
    F("pkcs12 base64", "privkey", f"CERT_P12_BASE64=MIIK{b64(rb(1200))}\nCERT_P12_PASSWORD={pw()}")
    F("encrypted pem with passphrase", "privkey", pem("ENCRYPTED PRIVATE KEY", bytes.fromhex("308205") + rb(1290)) + f"\npassphrase: {hpw()}")
    F("gpg exported secret subkey armor", "privkey", "gpg --export-secret-subkeys output:\n-----BEGIN PGP PRIVATE KEY BLOCK-----\nComment: signing subkey only\n\n"
      + wrap(b64(b"\x95\x01\xd8\x04" + rb(470))) + "\n-----END PGP PRIVATE KEY BLOCK-----")

    # --- seed phrases
    F("bip39 12 words", "seed", " ".join(seed(12)), "metamask recovery phrase")
    F("bip39 24 words numbered", "seed", "\n".join(f"{i}. {w}" for i, w in enumerate(seed(24), 1)), "ledger backup")
    F("bip39 in prose", "seed", "my recovery phrase is " + " ".join(seed(12)) + ", don't lose it")
    F("bip39 comma separated", "seed", ", ".join(seed(12)), "wallet")
    F("bip39 18 words grid", "seed", "\n".join(" ".join(seed(6)) for _ in range(3)))
    F("bip39 env var", "seed", "MNEMONIC=\"" + " ".join(seed(12)) + "\"", "hardhat config")
    F("bip39 json", "seed", json.dumps({"mnemonic": " ".join(seed(24)), "path": "m/44'/60'/0'/0/0"}))
    F("bip39 german prose", "seed", "Die Wiederherstellungsphrase: " + " ".join(seed(12)))
    F("bip39 15 words no label", "seed", " ".join(seed(15)), "backup")
    F("bip39 markdown list", "seed", "\n".join(f"- {w}" for w in seed(12)), "cold storage words")
    F("monero 25 words", "seed", " ".join(monero()), "monero wallet seed")
    F("monero numbered", "seed", "Mnemonic seed:\n" + " ".join(monero()), "feather wallet")
    # Electrum's own seeds use the same words but a version hash, not BIP-39's checksum
    F("electrum seed", "seed", "Electrum seed (segwit): " + " ".join(_R.choice(BIP39) for _ in range(12)), "hot wallet on the laptop")

    # --- TOTP and recovery codes
    F("totp secret base32", "otp", f"2FA secret for the AWS root account: {r(32, B32)}")
    F("totp secret grouped", "otp", f"Authenticator setup key: {' '.join(r(4, B32).lower() for _ in range(8))}")
    F("otpauth uri", "otp", f"otpauth://totp/Acme:ops@acme.io?secret={r(32, B32)}&issuer=Acme&algorithm=SHA1&digits=6&period=30")
    F("recovery codes github style", "otp", "GitHub recovery codes:\n" + "\n".join(f"{r(5, LOWER[:26])}-{r(5, LOWER[:26])}" for _ in range(8)))
    F("recovery codes numeric", "otp", "backup codes for the google workspace admin:\n" + "\n".join(f"{r(4, '0123456789')} {r(4, '0123456789')}" for _ in range(10)))
    F("oathtool command", "otp", f"oathtool --totp -b {r(16, B32)}")
    F("2fa seed in yaml", "otp", f"mfa:\n  user: deploy-bot\n  totp_seed: {r(32, B32)}")
    F("recovery key prose", "otp", f"Apple ID recovery key: {'-'.join(r(4, UPPER) for _ in range(7))}")
    F("bitlocker recovery", "otp", "BitLocker recovery key for LAPTOP-42: " + "-".join(f"{11 * _R.randrange(65536):06d}" for _ in range(8)))

    # --- split across fields
    F("split user in key, password in body", "split", pw(), "prod login for user dbadmin", key="postgres-prod-dbadmin-password")
    F("split host in description", "split", f"user: deploy\npass: {hpw()}", "ssh to build-01.acme.io")
    F("split key id and secret in meta", "split", "Use these with the aws-like CLI on the archive account.", "archive account access",
      meta={"tags": ["aws"], "access_key_id": "AKIA" + r(16, UPPER), "secret_access_key": r(40, ALNUM + "/+")})
    F("split password in meta", "split", "Router admin panel at 192.168.0.1 (user admin).", "router",
      meta={"tags": ["home"], "password": hpw()})
    F("split token in description", "split", "Scopes: repo, workflow. Expires in 90 days.", f"forge token {r(40)}")
    F("split client id body secret meta", "split", f"client_id = {uuid()}\ntenant = acme.onmicrosoft.example", "entra app for the reporting job",
      meta={"tags": ["azure"], "client_secret": r(3) + "8Q~" + r(34, URLSAFE)})
    F("split key names the secret", "split", r(48), "", key="openrouter-api-key")
    F("split prose over lines", "split", f"Staging DB\nhost: pg-stg.internal\nuser: app\nthe pw (no label on the next line):\n{pw()}")
    F("split in comments like meta", "split", "see meta", "vpn", meta={"tags": ["vpn"], "notes": f"psk is {r(32)}"})

    # --- positional / unlabelled passwords in commands
    F("mysql dash p attached", "cli", f"mysql -h db.internal -u root -p{pw()} shop < dump.sql")
    F("mysqldump password long", "cli", f"mysqldump --user=backup --password={safepw()} --all-databases | gzip > all.sql.gz")
    F("sshpass p", "cli", f"sshpass -p '{pw()}' ssh -o StrictHostKeyChecking=no pi@10.0.0.42")
    F("curl u user pass", "cli", f"curl -u admin:{pw()} https://jenkins.acme.io/api/json")
    F("curl u token colon", "cli", f"curl -u {r(32, HEX)}: https://api.paygate.example/v1/charges")
    F("wget password", "cli", f"wget --user=mirror --password={safepw(16)} https://files.acme.io/iso/latest.iso")
    F("docker login p", "cli", f"docker login registry.acme.io -u ci -p {r(40)}")
    F("psql pgpassword prefix", "cli", f"PGPASSWORD={safepw()} psql -h pg.internal -U app app")
    F("redis cli a", "cli", f"redis-cli -h cache.internal -a {r(32)} --no-auth-warning INFO")
    F("mongosh password", "cli", f"mongosh \"mongodb://db.internal:27017\" --username admin --password {pw()} --authenticationDatabase admin")
    F("smbclient percent", "cli", f"smbclient //fileserver/share -U 'CORP\\jdoe%{hpw()}'")
    F("net use", "cli", f"net use Z: \\\\nas\\backup {hpw()} /user:backup")
    F("htpasswd b", "cli", f"htpasswd -b -c /etc/nginx/.htpasswd admin {pw()}")
    F("openssl pass arg", "cli", f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{pw()}")
    F("gpg passphrase batch", "cli", f"gpg --batch --pinentry-mode loopback --passphrase '{pw()}' -d secrets.tar.gpg")
    F("7z password", "cli", f"7z x backup.7z -p{pw()}")
    F("zip encrypt password", "cli", f"zip -P {hpw()} -r export.zip export/")
    F("rdp xfreerdp", "cli", f"xfreerdp /v:win-jump.corp.local /u:admin /p:'{pw()}' /cert:ignore")
    F("ipmitool", "cli", f"ipmitool -I lanplus -H 10.0.9.11 -U ADMIN -P {r(10, UPPER)} chassis power cycle")
    F("useradd chpasswd pipe", "cli", f"echo 'deploy:{pw()}' | sudo chpasswd")
    F("rabbitmqctl change password", "cli", f"rabbitmqctl change_password orders {safepw()}")
    F("keytool storepass", "cli", f"keytool -importkeystore -srckeystore in.p12 -srcstorepass {pw()} -destkeystore app.jks -deststorepass {pw()}")
    F("git clone token url cli", "cli", f"git remote set-url origin https://oauth2:{r(20, URLSAFE)}@gitlab.acme.io/infra/tools.git")
    F("powershell credential", "cli", f"$cred = New-Object PSCredential('CORP\\svc', (ConvertTo-SecureString '{pw()}' -AsPlainText -Force))")
    F("vault kv put literal", "cli", f"vault kv put secret/payments api_key={r(40)}")
    F("kubectl create secret literal", "cli", f"kubectl create secret generic db --from-literal=password='{pw()}' -n prod")
    F("gh secret set body", "cli", f"gh secret set SLACK_BOT_TOKEN --body \"{r(60, URLSAFE)}\"")
    F("aws configure set", "cli", f"aws configure set aws_secret_access_key {r(40, ALNUM + '/+')} --profile archive")

    # --- encoded / wrapped
    F("k8s secret data base64", "encoded", f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  username: {b64(b'app')}\n  password: {b64(pw().encode())}")
    F("base64 of user colon pass", "encoded", f"auth string for the legacy API: {b64(('integration:' + pw()).encode())}")
    F("base64 wrapped env file", "encoded", "ENV_FILE_B64=" + b64(f"DB_PASSWORD={pw()}\nAPI_TOKEN={r(40)}\n".encode()))
    F("base64 json credentials", "encoded", "GOOGLE_CREDENTIALS=" + b64(json.dumps({"type": "service_account", "private_key_id": r(40, HEX), "private_key": pem("PRIVATE KEY", rsa_pkcs8()[:200])}).encode()))
    F("hex encoded secret", "encoded", f"HMAC_KEY_HEX={r(64, HEX)}")
    F("double base64 token", "encoded", "token (base64 twice, the tool wants it that way): " + b64(b64(f"tok_{r(40)}".encode()).encode()))
    F("url encoded password", "encoded", f"password=%7B{r(10)}%21%40{r(8)}%7D&user=admin  # form body from devtools")
    F("data uri with creds json", "encoded", "data:application/json;base64," + b64(json.dumps({"user": "bot", "password": pw()}).encode()))

    # --- code literals in many languages
    F("python literal", "code", f"client = Client(api_key=\"{r(48)}\", timeout=30)")
    F("python dict password", "code", f"DB = {{'host': 'db', 'user': 'app', 'password': '{pw()}'}}")
    F("javascript const", "code", f"const apiSecret = '{r(40)}';\nexport default {{ apiSecret }};")
    F("typescript config object", "code", f"export const config = {{\n  stripeSecret: \"{r(32)}\",\n  currency: \"eur\",\n}};")
    F("go struct", "code", f"cfg := Config{{\n    Addr:     \"db:5432\",\n    Password: \"{pw()}\",\n}}")
    F("rust let", "code", f"let token = \"{r(40)}\";\nlet client = Client::new(token);")
    F("java field", "code", f"private static final String SECRET_KEY = \"{r(32)}\";")
    F("csharp connection", "code", f"var conn = new SqlConnection(\"Server=sql01;Database=hr;User Id=hr_app;Password={pw()};\");")
    F("kotlin val", "code", f"val apiToken = \"{r(36)}\"")
    F("swift let", "code", f"let clientSecret = \"{r(40, URLSAFE)}\"")
    F("ruby hash", "code", f"Api.configure do |c|\n  c.access_token = '{r(40, HEX)}'\nend")
    F("php define", "code", f"define('DB_PASSWORD', '{pw()}');")
    F("perl dbi", "code", f"my $dbh = DBI->connect('dbi:Pg:dbname=app;host=db', 'app', '{pw()}');")
    F("bash variable", "code", f"#!/bin/bash\nTOKEN=\"{r(40)}\"\ncurl -H \"Authorization: Bearer $TOKEN\" https://api.acme.io/health")
    F("lua table", "code", f"local creds = {{ user = 'bot', secret = '{r(32)}' }}")
    F("elixir config", "code", f"config :app, App.Repo,\n  username: \"app\",\n  password: \"{pw()}\",\n  hostname: \"db\"")
    F("scala config", "code", f"val s3 = new BasicCredentials(\"{r(20, UPPER)}\", \"{r(40, ALNUM + '/+')}\")")
    F("r language", "code", f"Sys.setenv(CENSUS_API_KEY = \"{r(40, HEX)}\")")
    F("sql create user", "code", f"CREATE USER reporting WITH PASSWORD '{pw()}';")
    F("sql alter login", "code", f"ALTER LOGIN sa WITH PASSWORD = '{pw()}';")
    F("julia env", "code", f"ENV[\"WANDB_KEY\"] = \"{r(40, HEX)}\"")
    F("nix secret literal", "code", f"services.miniflux.adminCredentialsFile = pkgs.writeText \"creds\" ''\n  ADMIN_USERNAME=admin\n  ADMIN_PASSWORD={pw()}\n'';")
    F("c define", "code", f"#define WIFI_SSID \"acme-iot\"\n#define WIFI_PASS \"{hpw()}\"")
    F("arduino mqtt", "code", f"const char* mqtt_user = \"sensor\";\nconst char* mqtt_pass = \"{safepw(16)}\";")
    F("python requests auth tuple", "code", f"r = requests.get(url, auth=('api', '{r(32)}'))")
    F("js fetch header", "code", f"fetch(url, {{ headers: {{ 'x-access-key': '{r(36)}' }} }})")
    F("haskell binding", "code", f"apiKey :: Text\napiKey = \"{r(40)}\"")
    F("ocaml let", "code", f"let secret = \"{r(32, HEX)}\"")
    return f


def look_alikes() -> list[dict]:
    """The same shapes and places, holding nothing a careful reviewer would call a secret."""
    a: list[dict] = []

    def A(*args, **k):
        a.append(item(*args, **k))

    # --- object ids, hashes and checksums
    A("git commit ids in prose", "ids", f"The regression came in with {r(40, HEX)} and was fixed by {r(7, HEX)}; bisect log in #412.", "bisect result")
    A("git log oneline", "ids", "\n".join(f"{r(7, HEX)} {m}" for m in ["Fix flaky retry test", "Bump deps", "Add export endpoint", "Revert timeout change"]))
    A("merge base and tree ids", "ids", f"merge-base: {r(40, HEX)}\ntree: {r(40, HEX)}\nparent: {r(40, HEX)}")
    A("uuids in config", "ids", f"tenant_id: {uuid()}\nsubscription_id: {uuid()}\nresource_group: rg-prod-weu", "azure ids for the terraform backend")
    A("request ids in log", "ids", f"2026-11-30T10:12:01Z ERROR request_id={uuid()} trace_id={r(32, HEX)} span_id={r(16, HEX)} status=502")
    A("sha256 checksums file", "hash", f"{r(64, HEX)}  vault-mem-1.4.0.tar.gz\n{r(64, HEX)}  vault-mem-1.4.0-py3-none-any.whl", "SHA256SUMS")
    A("npm integrity", "hash", json.dumps({"node_modules/lodash": {"version": "4.17.21", "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",
      "integrity": "sha512-" + b64(rb(64))}}, indent=2), "package-lock excerpt")
    A("docker image digest", "hash", f"image: ghcr.io/acme/api@sha256:{r(64, HEX)}", "pinned image")
    A("pip hash pinned", "hash", f"requests==2.32.3 \\\n    --hash=sha256:{r(64, HEX)} \\\n    --hash=sha256:{r(64, HEX)}")
    A("go sum lines", "hash", f"golang.org/x/net v0.31.0 h1:{b64(rb(32))}\ngolang.org/x/net v0.31.0/go.mod h1:{b64(rb(32))}")
    A("md5 of a file", "hash", f"md5sum dump.sql -> {r(32, HEX)}; matches the one on the backup host")
    A("subresource integrity", "hash", f"<script src=\"https://cdn.example/lib.min.js\" integrity=\"sha384-{b64(rb(48))}\" crossorigin=\"anonymous\"></script>")
    A("ssh host key fingerprint", "hash", f"ED25519 key fingerprint is SHA256:{b64(rb(32)).rstrip('=')}.\nThis key is not known by any other names.")
    A("gpg fingerprint", "hash", f"Release signing key fingerprint: {' '.join(r(4, '0123456789ABCDEF') for _ in range(10))}")
    A("tls cert sha1 thumbprint", "hash", f"Thumbprint (SHA-1): {':'.join(r(2, '0123456789ABCDEF') for _ in range(20))}")
    A("cargo lock checksum", "hash", f"[[package]]\nname = \"serde\"\nversion = \"1.0.215\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"{r(64, HEX)}\"")
    A("content hashed asset names", "hash", f"dist/assets/index-{r(8, LOWER)}.js\ndist/assets/index-{r(8, LOWER)}.css\ndist/assets/logo-{r(8, HEX)}.svg")
    A("ethereum tx hash", "ids", f"Deploy tx: 0x{r(64, HEX)} (block 21,104,332), contract at 0x{r(40, HEX)}", "mainnet deployment record")
    A("bitcoin address", "ids", f"Donations: bc1q{r(38, BECH)}")
    A("ipfs cid", "ids", f"Pinned the build at ipfs://bafybei{r(52, 'abcdefghijklmnopqrstuvwxyz234567')}")
    A("stripe object ids", "ids", f"customer cus_{r(14)} subscribed to price_{r(24)}; invoice in_{r(24)} paid")
    A("aws arns", "ids", f"arn:aws:iam::{r(12, '0123456789')}:role/ci-deployer\narn:aws:kms:eu-west-1:{r(12, '0123456789')}:key/{uuid()}")
    A("slack channel and user ids", "ids", f"alerts go to channel C{r(10, UPPER)}; on-call user U{r(10, UPPER)}")
    A("k8s resource uid", "ids", f"metadata:\n  name: api-7d9f\n  uid: {uuid()}\n  resourceVersion: \"{r(8, '0123456789')}\"")
    A("oauth client id", "ids", f"OAUTH_CLIENT_ID={r(12, '0123456789')}-{r(32, LOWER)}.apps.googleusercontent.com\nOAUTH_REDIRECT=https://app.acme.io/callback", "public client id (the secret is in the vault)")
    A("ulid and ksuid", "ids", f"event {r(26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')} replaced by {r(27, ALNUM)} after the replay")

    # --- public keys and certificates
    A("ssh ed25519 public key", "public", ssh_pub("ssh-ed25519") + " dev@laptop", "add to authorized_keys")
    A("ssh rsa authorized keys", "public", "\n".join(ssh_pub("ssh-rsa") + f" {u}@acme" for u in ("alice", "bob")), "authorized_keys for the bastion")
    A("known hosts line", "public", f"git.acme.io,10.0.3.7 {ssh_pub('ssh-ed25519')}")
    A("pem certificate", "public", cert(), "the internal CA certificate to trust")
    A("pem public key", "public", pem("PUBLIC KEY", bytes.fromhex("30820122300d06092a864886f70d01010105000382010f003082010a0282010100") + rb(256) + bytes.fromhex("0203010001")), "JWT verification key")
    A("pgp public key block", "public", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + wrap(b64(b"\x99\x01\x0d\x04" + rb(520))) + "\n=" + r(4) + "\n-----END PGP PUBLIC KEY BLOCK-----", "security@ contact key")
    A("age recipient", "public", f"creation_rules:\n  - path_regex: secrets/.*\\.yaml\n    age: age1{r(58, BECH)}", ".sops.yaml (recipients are public)")
    A("wireguard peer public key", "public", f"[Peer]\n# laptop\nPublicKey = {b64(rb(32))}\nAllowedIPs = 10.8.0.5/32")
    A("jwk public only", "public", json.dumps({"keys": [{"kty": "RSA", "kid": "2026-11", "use": "sig", "alg": "RS256", "n": b64u(rb(256)), "e": "AQAB"}]}), "JWKS endpoint response")
    A("minisign public key", "public", f"untrusted comment: minisign public key {r(16, '0123456789ABCDEF')}\nRWQ{b64(rb(39))}", "verify downloads with this")
    A("certificate request", "public", pem("CERTIFICATE REQUEST", bytes.fromhex("308202") + rb(600)), "CSR sent to the CA")
    A("nostr npub", "public", f"follow us: npub1{r(58, BECH)}")
    A("ethereum address checksum", "public", f"treasury multisig: 0x{r(40, '0123456789abcdefABCDEF')}")
    A("xpub watch only", "public", f"watch-only wallet for the donation page: xpub661MyMwAqRbc{r(95, B58)}")
    A("stripe publishable key", "public", f"const stripe = Stripe('pk_live_{r(99)}');", "checkout page (publishable key is public by design)")
    A("recaptcha site key", "public", f"<div class=\"g-recaptcha\" data-sitekey=\"6L{r(38, URLSAFE)}\"></div>", "site key is public; the secret key is server-side")
    A("vapid public key", "public", "VAPID_PUBLIC_KEY=" + b64u(b'\x04' + rb(64)), "web push subscribe (public half)")
    A("tor onion address", "public", f"mirror: http://{r(56, 'abcdefghijklmnopqrstuvwxyz234567')}.onion/")

    # --- placeholders and references to where a secret lives
    A("angle bracket placeholders", "placeholder", "export API_TOKEN=<your-token>\nexport API_SECRET=<your-secret>", "setup steps for a new developer")
    A("xxx placeholder", "placeholder", "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  # replace with yours")
    A("env reference", "placeholder", "DATABASE_URL=postgres://app:${DB_PASSWORD}@pg:5432/app", "compose file reads the password from the environment")
    A("github actions secrets reference", "placeholder", "      - run: npm publish\n        env:\n          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}")
    A("k8s secretKeyRef", "placeholder", "        env:\n        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              name: db\n              key: password")
    A("password file option", "placeholder", "    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n    secrets:\n      - db_password")
    A("vault read command", "placeholder", "Get the token with `vault kv get -field=token secret/ci/forge`; never paste it in a memory.")
    A("op read reference", "placeholder", "DB_PASSWORD=op://Engineering/Postgres Prod/password  # resolved by `op run`")
    A("masked token", "placeholder", "the old token (ends in ...f3a9) was revoked on 2026-11-28; the new one is in 1Password")
    A("redacted config", "placeholder", "smtp:\n  user: alerts@acme.io\n  password: \"[REDACTED]\"\n  host: smtp.acme.io")
    A("aws documented example keys", "placeholder", "The AWS docs use AKIAIOSFODNN7EXAMPLE with wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY as the example pair.")
    A("prompting mysql", "placeholder", "mysql -h db.internal -u root -p   # prompts for the password", "how to open a shell")
    A("password stdin", "placeholder", "aws ecr get-login-password | docker login --username AWS --password-stdin 123456789012.dkr.ecr.eu-west-1.amazonaws.com")
    A("curl with env vars", "placeholder", "curl -u \"$JENKINS_USER:$JENKINS_TOKEN\" https://jenkins.acme.io/api/json")
    A("sshpass from file", "placeholder", "sshpass -f ~/.config/pi.pass ssh pi@10.0.0.42")
    A("dotenv example file", "placeholder", "# .env.example -- copy to .env and fill in\nSTRIPE_SECRET_KEY=\nSENDGRID_API_KEY=\nSESSION_SECRET=change-me", ".env.example in the repo")
    A("settings reads env", "placeholder", "SECRET_KEY = os.environ[\"DJANGO_SECRET_KEY\"]\nDATABASES['default']['PASSWORD'] = os.getenv('DB_PASSWORD')")

    # --- ciphertext made to be committed
    A("sops encrypted value", "encrypted", f"db:\n  password: ENC[AES256_GCM,data:{b64(rb(18))},iv:{b64(rb(32))},tag:{b64(rb(16))},type:str]\nsops:\n  age:\n    - recipient: age1{r(58, BECH)}")
    A("ansible vault file", "encrypted", "$ANSIBLE_VAULT;1.1;AES256\n" + "\n".join(r(80, HEX) for _ in range(5)), "group_vars/prod/vault.yml (encrypted)")
    A("sealed secret", "encrypted", f"apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: api\nspec:\n  encryptedData:\n    token: AgB{b64(rb(300))}")

    # --- prose and config with credential words and no credential
    A("prose password policy", "prose", "Passwords must be at least 16 characters; the token lifetime is 90 days and keys rotate monthly.")
    A("prose tokenizer", "prose", "The tokenizer splits text into tokens; the key insight is that the secret sauce is the cache key layout.")
    A("prose rotation runbook", "prose", "To rotate the DB password: create the new one in Vault, run the migrate job, then revoke the old one. No downtime.")
    A("prose german policy", "prose", "Das Passwort muss alle 90 Tage geändert werden; der API-Schlüssel liegt im Tresor, nicht im Repo.")
    A("prose japanese reference", "prose", "パスワードはパスワードマネージャーに保存してあります。ここには書かないでください。")
    A("ordinary sentence of bip39 words", "prose", "The team agreed to move the budget review to april because the audit found a balance issue in the account.")
    A("config with non secret keys", "config", "primary_key: id\nsort_key: created_at\ntoken_limit: 4096\nmax_tokens: 1024\npassword_min_length: 14")
    A("hotkeys and keyboard", "config", "keybindings:\n  - key: ctrl+shift+p\n    command: workbench.action.showCommands\n  - key: cmd+k cmd+s\n    command: openKeybindings")
    A("feature flag keys", "config", json.dumps({"flags": {"new-checkout": {"key": "new-checkout", "variation": "on"}, "dark-mode": {"key": "dark-mode", "variation": "off"}}}))
    A("cache key template", "config", f"cache:\n  key: ${{CI_COMMIT_REF_SLUG}}-{r(8, HEX)}\n  paths:\n    - node_modules/")
    A("ssh port flag", "config", "ssh -p 2222 -i ~/.ssh/id_ed25519 deploy@build-01.acme.io", "the key file path, not the key")
    A("semver and dates table", "config", "| component | version | released |\n|---|---|---|\n| api | 3.14.2 | 2026-11-20 |\n| worker | 3.14.1 | 2026-11-18 |")
    return a


FORMS = forms()
LOOK_ALIKES = look_alikes()
