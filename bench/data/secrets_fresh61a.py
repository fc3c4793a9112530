"""fresh61, first half (the tuning half): credential forms and look-alikes written by the helper
``secrets`` on 2026-12-05 for issue 23 item 5, before it read the detector's rules in detail (it had
read RELIABILITY.md's summary of them and grepped the older corpora only to keep every item new).
The second half, ``secrets_fresh61b.py``, was written after the fixes this half led to and measured
once (see its docstring). Two generator bugs were fixed after the first measurement, before any
rule changed: the Monero seed's checksum word and the SLIP-39 share's checksum were drawn at random
(no wallet writes such words; both items now carry their checksums), and the VAPID public key's
first byte (a point is 0x04 and 64 bytes; the first draw was no point). Values come from a seeded generator at import; none is a real credential,
and vendor prefixes are split so no scanner flags this file.

    python bench/bench_secrets.py --set fresh61a [--misses]
"""

from __future__ import annotations

import hashlib
import json
import runpy
import sys
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from secret_gen import ALNUM, B32, HEX, LOWER, URL, Generator, b64, b64url, block, wrap  # noqa: E402

G = Generator(6101, "f61a", "notes")
r, pw, item = G.r, G.pw, G.item

# this tree's copy of the list, read by path (as secret_gen reads BIP-39's)
SLIP39 = runpy.run_path(str(Path(__file__).resolve().parents[2] / "vault_mem" / "model" / "seed_words_slip39.py"))["SLIP39_WORDS"]
MONERO = ("abbey abducts aces aching adrenalin afield aglow ailments akin alkaline ammo amply android annoyed "
          "aphid aplomb arises arsenic ashtray atrium auctions avidly awakened awning awoken axes aztec bagpipe "
          "bailed balding bawled bays befit bemused bested bevel bids bifocals bimonthly biplane biweekly blip "
          "bluntly bobsled bogeys bovine bygones byline cadets cajun casket cavernous cistern cogs coils cowl "
          "cuddled cuffs").split()


def luhn(prefix: str, n: int) -> str:
    digits = prefix + "".join(G.rng.choice("0123456789") for _ in range(n - len(prefix) - 1))
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 0:
            d = d * 2 - 9 if d * 2 > 9 else d * 2
        total += d
    return digits + str((10 - total % 10) % 10)


def iban(country: str, bban: str) -> str:
    num = "".join(str(int(c, 36)) for c in bban + country + "00")
    check = 98 - int(num) % 97
    s = f"{country}{check:02d}{bban}"
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


def slip39_share() -> str:
    """17 random 10-bit values and their RS1024 checksum (SLIP-0039's, customization "shamir")."""
    gen = (0xE0E040, 0x1C1C080, 0x3838100, 0x7070200, 0xE0E0009, 0x1C0C2412, 0x38086C24, 0x3090FC48,
           0x21B1F890, 0x3F3F120)

    def polymod(values: list[int]) -> int:
        chk = 1
        for v in values:
            b = chk >> 20
            chk = (chk & 0xFFFFF) << 10 ^ v
            for i in range(10):
                chk ^= gen[i] if (b >> i) & 1 else 0
        return chk
    data = [G.rng.randrange(1024) for _ in range(17)]
    pm = polymod(list(b"shamir") + data + [0, 0, 0]) ^ 1
    return " ".join(SLIP39[v] for v in data + [(pm >> 10 * i) & 1023 for i in (2, 1, 0)])


def monero_seed() -> str:
    """24 words of distinct first three letters and the checksum word Monero picks by CRC-32."""
    words = G.rng.sample(MONERO, 24)
    return " ".join(words + [words[zlib.crc32("".join(w[:3] for w in words).encode()) % 24]])


def grouped(s: str, n: int = 4, sep: str = " ") -> str:
    return sep.join(s[i:i + n] for i in range(0, len(s), n))


def forms() -> list[dict]:
    F = []
    add = lambda name, cls, body, **kw: F.append(item(name, cls, body, **kw))  # noqa: E731
    # vendor tokens whose shape the older corpora lack
    add("gitlab-scim", "vendor", f"Okta SCIM provisioning for the GitLab group uses {'gls' + 'oat-'}{r(20, URL)}; "
        "it was created by the group owner on Nov 3.")
    add("gitlab-cibuild", "vendor", f"from the job log: curl --header \"JOB-TOKEN: {'glc' + 'bt-'}{r(2, HEX)}_{r(20, URL)}\" "
        "\"$CI_API_V4_URL/projects/42/packages/generic/app/1.0/app.tgz\"")
    add("posthog-personal", "vendor", f"PostHog personal key for the export script: {'ph' + 'x_'}{r(43)}")
    add("onesignal", "vendor", f"OneSignal REST: {'os_v2_' + 'app_'}{r(56, LOWER.replace('0','').replace('1','').replace('8','').replace('9',''))}"
        f"{r(56, 'abcdefghijklmnopqrstuvwxyz234567')}")
    add("grafana-legacy", "vendor", "grafana api key (old style, the one on the wall dashboard): "
        + b64(json.dumps({"k": r(32), "n": "wallboard", "id": 1}, separators=(",", ":"))))
    add("zoho-header", "header", f"Authorization: Zoho-oauthtoken 1000.{r(32, HEX)}.{r(32, HEX)}")
    add("deepl-header", "header", f"curl -X POST https://api.deepl.com/v2/translate -H 'Authorization: DeepL-Auth-Key {G.uuid()}:fx' -d 'text=Hallo'")
    add("oauth2-bearer", "command", f"curl --oauth2-bearer {r(40, URL)} https://graph.internal/v1/me")
    # code
    add("go-basicauth", "code", f'req, _ := http.NewRequest("GET", u, nil)\nreq.SetBasicAuth("svc-backup", "{pw(15)}")')
    add("php-mysqli", "code", f"$link = mysqli_connect('db.internal', 'shop', '{pw(13)}', 'shop_prod');")
    add("java-keystore-prop", "config", f"JAVA_OPTS=\"-Xmx2g -Djavax.net.ssl.keyStore=/etc/app/ks.p12 -Djavax.net.ssl.keyStorePassword={pw(12)}\"")
    add("oracle-dblink", "sql", f"CREATE DATABASE LINK finlink CONNECT TO reporting IDENTIFIED BY \"{pw(14)}\" USING 'FINPROD';")
    add("net-appsettings", "config", f'<appSettings>\n  <add key="SmtpHost" value="smtp.office365.com" />\n  <add key="SmtpPassword" value="{pw(16)}" />\n</appSettings>')
    add("quarkus", "config", f"quarkus.datasource.username=orders\nquarkus.datasource.password={pw(14)}\nquarkus.datasource.jdbc.url=jdbc:postgresql://pg:5432/orders")
    # devices and networks
    add("bt-linkkey", "device", f"/var/lib/bluetooth/AA:BB:CC:DD:EE:FF/38:18:4C:12:34:56/info\n[LinkKey]\nKey={r(32, '0123456789ABCDEF')}\nType=4\nPINLength=0")
    add("zigbee-netkey", "device", "zigbee2mqtt configuration.yaml:\nadvanced:\n  pan_id: 6754\n  network_key: ["
        + ", ".join(str(G.rng.randrange(256)) for _ in range(16)) + "]")
    add("tasmota", "device", f"Backlog SSID1 FRITZ!Box 7590 QX; Password1 {pw(16)}; MqttUser plug1; MqttPassword {pw(12)}")
    add("chap-secrets", "config", f"/etc/ppp/chap-secrets\n# client  server  secret  IP addresses\n\"vpnuser\"  *  \"{pw(12)}\"  *")
    add("zabbix-psk", "file", f"zabbix_agentd.psk on the db hosts: {r(64, HEX)}")
    add("radius-client", "config", f"clients.conf\nclient ap-lobby {{\n    ipaddr = 10.20.0.14\n    secret = {r(18)}\n}}")
    add("mobileconfig", "config", f"<dict>\n  <key>SSID_STR</key>\n  <string>Office-Guest</string>\n  <key>Password</key>\n  <string>{pw(14)}</string>\n  <key>EncryptionType</key>\n  <string>WPA2</string>\n</dict>")
    add("ultravnc", "config", f"[ultravnc]\npasswd={r(16, '0123456789ABCDEF')}\npasswd2={r(16, '0123456789ABCDEF')}")
    # keys and keystores in other encodings
    der_p8 = bytes.fromhex("308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420") + G.rand_bytes(100)
    add("p8-unwrapped", "key", f"App Store Connect key, unwrapped for the CI variable: {b64(der_p8)}")
    p12 = bytes.fromhex("30820a3c0201033082 09f606092a864886f70d010701a08209e7048209e3".replace(" ", "")) + G.rand_bytes(600)
    add("p12-env", "key", f"CERT_P12_BASE64={b64(p12)}\nCERT_P12_ALIAS=signing")
    jks = bytes.fromhex("feedfeed000000020000000100000001") + G.rand_bytes(400)
    add("jks-b64", "key", f"release.jks as base64 (CI decodes it into app/):\n{wrap(b64(jks), 76)}")
    add("tor-addonion", "key", f"ADD_ONION ED25519-V3:{b64(G.rand_bytes(64))} Flags=Detach Port=80,127.0.0.1:8080")
    add("wg-psk", "key", f"[Peer]\n# phone\nPublicKey = {b64(G.rand_bytes(32))}\nPresharedKey = {b64(G.rand_bytes(32))}\nAllowedIPs = 10.8.0.3/32")
    # seeds in other word lists
    add("slip39-share", "seed", "Shamir backup, share 2 of 3 (keep apart from the others):\n" + slip39_share())
    add("monero-25", "seed", "xmr cold wallet, 25 words:\n" + monero_seed())
    # prose in languages the older corpora lack
    add("slovenian", "prose", f"Geslo za usmerjevalnik v pisarni je {pw(12)}")
    add("georgian", "prose", f"ოფისის Wi-Fi პაროლი: {pw(12)}")
    add("icelandic", "prose", f"Lykilorðið á netinu heima er {pw(11)}")
    add("romanian", "prose", f"Parola pentru routerul de la birou este {pw(12)}")
    add("bulgarian", "prose", f"Паролата за рутера е {pw(12)}")
    add("tamil", "prose", f"வீட்டு wifi கடவுச்சொல்: {pw(12)}")
    # money
    add("de-card", "card", f"Kreditkarte (Lufthansa Miles & More): Kartennummer {grouped(luhn('5', 16))}, gültig bis 08/29, Prüfnummer {G.rng.randrange(100, 999)}")
    add("nl-iban-pin", "card", f"ING rekening {iban('NL', 'INGB' + ''.join(G.rng.choice('0123456789') for _ in range(10)))}, pincode {G.rng.randrange(1000, 9999)}")
    # split across fields
    add("split-short-json", "split", json.dumps({"host": "etl.internal", "u": "svc_etl", "p": pw(14)}), description="ETL service account")
    add("split-desc-body", "split", f"vpn.lisbon.example.pt\nsecond box: {pw(13)}", description="Lisbon office VPN account ana.ferreira")
    # codes
    add("alarm-code", "code", f"Alarmanlage: beim Reinkommen Code {G.rng.randrange(1000, 9999)} und dann # drücken, sonst ruft die Zentrale an.")
    add("portal-es", "code", f"El código del portal es {G.rng.randrange(1000, 9999)}B y la llave del buzón está en la maceta.")
    add("aegis-export", "otp", json.dumps({"type": "totp", "name": "AWS root", "issuer": "Amazon Web Services",
        "info": {"secret": r(32, B32), "algo": "SHA1", "digits": 6, "period": 30}}, indent=1))
    # URLs
    add("zoom-pwd", "url", f"Weekly sync: https://us06web.zoom.us/j/8{G.rng.randrange(10**9, 10**10)}?pwd={r(32, ALNUM)}.1")
    add("proxy-env", "url", f"export HTTPS_PROXY=http://jdoe:{pw(12).replace('@', '')}@proxy.corp.local:3128")
    return F


def look_alikes() -> list[dict]:
    L = []
    add = lambda name, body, **kw: L.append(item(name, "look-alike", body, **kw))  # noqa: E731
    sha = hashlib.sha1(b"fresh61").hexdigest()
    add("msmtp-eval", 'account fastmail\nhost smtp.fastmail.com\nuser me@fastmail.com\npasswordeval "gpg --quiet --decrypt ~/.msmtp-pw.gpg"')
    add("isync-passcmd", 'IMAPAccount work\nHost imap.work.example\nUser jdoe\nPassCmd "pass show mail/work"')
    add("bt-info", "[General]\nName=WH-1000XM4\nClass=0x240404\nSupportedTechnologies=BR/EDR;\nTrusted=true\nBlocked=false")
    add("zabbix-identity", "TLSConnect=psk\nTLSAccept=psk\nTLSPSKIdentity=PSK 001\nTLSPSKFile=/etc/zabbix/zabbix_agentd.psk")
    add("plist-uuid", f"<key>PayloadUUID</key>\n<string>{G.uuid().upper()}</string>\n<key>PayloadIdentifier</key>\n<string>com.acme.wifi</string>")
    add("posthog-project", f"<script>posthog.init('{'ph' + 'c_'}{r(43)}', {{api_host: 'https://eu.i.posthog.com'}})</script>")
    add("ld-clientside", f'LaunchDarkly client-side ID for the web app (public, shipped in the bundle): "{r(24, HEX)}"')
    add("sentry-dsn", f"SENTRY_DSN=https://{r(32, HEX)}@o{G.rng.randrange(10**5, 10**6)}.ingest.sentry.io/{G.rng.randrange(10**6, 10**7)}")
    anon = G.jwt({"iss": "supabase", "ref": r(20, LOWER), "role": "anon", "iat": 1700000000, "exp": 2015576000})
    add("supabase-anon", f"NEXT_PUBLIC_SUPABASE_URL=https://{r(20, LOWER)}.supabase.co\nNEXT_PUBLIC_SUPABASE_ANON_KEY={anon}")
    add("stripe-pk", f"Stripe.js: Stripe('{'pk_' + 'live_'}{r(99)}')")
    add("turnstile", f'<div class="cf-turnstile" data-sitekey="0x4AAAAAAA{r(14, URL)}"></div>')
    add("vapid-public", f"const applicationServerKey = '{b64url(bytes([4]) + G.rand_bytes(64))}';")
    add("age-recipient", f"creation_rules:\n  - path_regex: secrets/.*\\.yaml\n    age: age1{r(58, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}")
    add("age-armored", block("AGE ENCRYPTED FILE", wrap(b64(b"age-encryption.org/v1\n-> X25519 " + G.rand_bytes(200)))))
    add("gpg-fpr", f"Release signing key fingerprint: {' '.join(r(4, '0123456789ABCDEF') for _ in range(10))}")
    add("dkim", f'default._domainkey.acme.example. TXT "v=DKIM1; k=rsa; p={b64(bytes.fromhex("30820122300d06092a864886f70d01010105000382010f003082010a0282010100") + G.rand_bytes(200))}"')
    add("tlsa", f"_443._tcp.mail.acme.example. IN TLSA 3 1 1 {r(64, HEX)}")
    add("onion", f"Mirror: http://{r(56, 'abcdefghijklmnopqrstuvwxyz234567')}.onion/")
    add("nix-hash", f'src = fetchFromGitHub {{ owner = "acme"; repo = "tool"; rev = "v1.4.2"; hash = "sha256-{b64(G.rand_bytes(32))}"; }};')
    add("cargo-lock", f'[[package]]\nname = "serde"\nversion = "1.0.215"\nsource = "registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{r(64, HEX)}"')
    add("tf-lock", f'provider "registry.terraform.io/hashicorp/aws" {{\n  version = "5.80.0"\n  hashes = [\n    "h1:{b64(G.rand_bytes(32))}",\n    "zh:{r(64, HEX)}",\n  ]\n}}')
    add("sri", f'<script src="https://cdn.jsdelivr.net/npm/htmx.org@2.0.3" integrity="sha384-{b64(G.rand_bytes(48))}" crossorigin="anonymous"></script>')
    add("ksuid", f"event ids are KSUIDs now, e.g. {r(27)}; sort order = time order")
    add("gdoc", f"Spec draft: https://docs.google.com/document/d/1{r(43, URL)}/edit?usp=sharing")
    add("spotify", f"Focus playlist track: https://open.spotify.com/track/{r(22)}?si={r(16, HEX)}")
    add("objectid", f"the broken order is ObjectId(\"{r(24, HEX)}\") in orders_prod")
    add("pod", f"OOMKilled: api-{r(10, 'bcdfghjklmnpqrstvwxz2456789')}-{r(5, 'bcdfghjklmnpqrstvwxz2456789')} in namespace payments")
    add("sm-arn", f"The DB credentials live in arn:aws:secretsmanager:eu-west-1:{G.rng.randrange(10**11, 10**12)}:secret:prod/orders/db-{r(6)}; the task role can read it.")
    add("vault-kv", "vault kv get -field=password secret/prod/orders/db   # how on-call reads the DB password")
    add("regex-note", "gitleaks rule we added for internal tokens: regex = '''acme_[a-z0-9]{32}''' with entropy = 3.5")
    add("gha-secret", "- uses: docker/login-action@v3\n  with:\n    registry: ghcr.io\n    username: ${{ github.actor }}\n    password: ${{ secrets.GITHUB_TOKEN }}")
    add("expires", "The token expires in 3600 seconds; the client refreshes it 60 s before that.")
    add("de-prose", "Ich habe gestern mein Passwort zurückgesetzt; das neue steht im Familien-Tresor (Bitwarden).")
    add("fr-policy", "Le mot de passe doit contenir au moins 12 caractères, dont un chiffre.")
    add("es-nowvalue", "La contraseña del wifi está pegada debajo del router, en la pegatina blanca.")
    add("version", f"Deployed v3.12.0-rc.2+sha.{sha[:7]} to staging at 14:02.")
    add("long-ident", "Renamed PasswordResetTokenExpiryValidatorFactory to ResetTokenTtlPolicy in the auth module.")
    add("env-example", ".env.example:\nAPI_KEY=changeme\nSESSION_SECRET=your-secret-here\nDB_PASSWORD=\nSMTP_PASSWORD=<set me>")
    add("iban-alone", f"Miete überweisen an: Hausverwaltung Krüger, IBAN {iban('DE', ''.join(G.rng.choice('0123456789') for _ in range(18)))}, Verwendungszweck Whg 4")
    add("stripe-test", "Stripe test cards: 4000 0025 0000 3155 (3DS required), any future expiry, CVC 123.")
    add("jwk-public", json.dumps({"keys": [{"kty": "RSA", "kid": r(16, HEX), "use": "sig", "alg": "RS256",
                                               "n": b64url(G.rand_bytes(256)), "e": "AQAB"}]}, indent=1))
    add("wg-public", f"[Peer]\n# office gateway\nPublicKey = {b64(G.rand_bytes(32))}\nEndpoint = vpn.acme.example:51820\nAllowedIPs = 10.8.0.0/24")
    add("meeting-id", "Zoom Meeting ID: 845 1234 5678 (the passcode is in the calendar invite)")
    add("discord-invite", f"community server: https://discord.gg/{r(8)}")
    add("commit-list", "\n".join(f"- {hashlib.sha1(str(i).encode()).hexdigest()[:12]} fix: token refresh race ({i})" for i in range(4)))
    add("data-uri", f"<img src=\"data:image/png;base64,{b64(bytes.fromhex('89504e470d0a1a0a0000000d49484452') + G.rand_bytes(90))}\" alt=\"logo\">")
    add("pw-pointer", "NAS admin pw: see Bitwarden item 'NAS admin (DS920+)'.")
    add("zh-policy", "密码至少需要八个字符，并且每九十天更换一次。")
    return L


FORMS = forms()
LOOK_ALIKES = look_alikes()
