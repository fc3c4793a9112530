"""fresh61, second half (held out): credential forms and look-alikes written by the helper ``secrets``
on 2026-12-05 after the fixes the first half (``secrets_fresh61a.py``) led to, and measured once
on that code, untuned. Not blind in the strict sense: its writer had by then read the rules it
fixed (card numbers, PIN names, SLIP-39, keystores, ppp rows, multi-segment prefixes, one-letter
pairs, a login under its host); it kept to forms and places none of those rules was written for,
and grepped the older corpora only to keep every item new.

Measured once on 184f652 (and on main 19dea6d): 30/40 forms, 0/42 look-alikes, both. One of the ten
misses was this file's bug, found after that run: the Spanish card's number was four numbers' groups
(the generator was called per group), no Luhn-valid card; fixed here, which draws the values after it anew. Values come from a seeded generator at
import; none is a real credential, and vendor prefixes are split so no scanner flags this file.

    python bench/bench_secrets.py --set fresh61b [--misses]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from secret_gen import ALNUM, B58, B64, HEX, UP, URL, Generator, b64, block, wrap  # noqa: E402

G = Generator(6102, "f61b", "notes")
r, pw, item = G.r, G.pw, G.item


def luhn(prefix: str, n: int) -> str:
    while True:
        digits = prefix + "".join(G.rng.choice("0123456789") for _ in range(n - len(prefix)))
        total = sum(int(c) if i % 2 == 0 else (2 * int(c) - 9 if int(c) > 4 else 2 * int(c))
                    for i, c in enumerate(reversed(digits)))
        if total % 10 == 0:
            return digits


def forms() -> list[dict]:
    F = []
    add = lambda name, cls, body, **kw: F.append(item(name, cls, body, **kw))  # noqa: E731
    # vendor and service secrets in new places
    add("splunk-hec", "header", f"curl -k https://splunk.int:8088/services/collector/event -H \"Authorization: Splunk {G.uuid()}\" "
        "-d '{\"event\": \"deploy done\"}'")
    add("agora-cert", "vendor", f"Agora project 'classroom': App ID {r(32, HEX)}, App Certificate {r(32, HEX)}")
    add("tink-keyset", "key", json.dumps({"primaryKeyId": G.rng.randrange(10**8, 10**9), "key": [{"keyData": {
        "typeUrl": "type.googleapis.com/google.crypto.tink.AesGcmKey", "value": b64(b"\x1a\x20" + G.rand_bytes(32)),
        "keyMaterialType": "SYMMETRIC"}, "status": "ENABLED", "keyId": G.rng.randrange(10**8, 10**9),
        "outputPrefixType": "TINK"}]}, indent=1))
    add("rails-master-key", "file", f"config/master.key (lost it once, never again): {r(32, HEX)}")
    add("influx-token", "vendor", f"telegraf writes to influx with {r(86, URL)}==")
    add("hardhat-accounts", "code", f"networks: {{\n  sepolia: {{\n    url: RPC_URL,\n    accounts: [\"0x{r(64, HEX)}\"],\n  }},\n}}")
    add("sslkeylog", "key", f"CLIENT_RANDOM {r(64, HEX)} {r(96, HEX)}\nCLIENT_RANDOM {r(64, HEX)} {r(96, HEX)}")
    add("pgp-secret-b64", "key", "my signing subkey, exported without armour:\n" + wrap(b64(bytes([0x95, 0x03, 0x98, 0x04]) + G.rand_bytes(400)), 64))
    # devices, routers, installers
    add("mikrotik-wg", "device", f"/interface wireguard add listen-port=13231 name=wg0 private-key=\"{b64(G.rand_bytes(32))}\"")
    add("openwrt-uci", "device", f"config wifi-iface 'default_radio0'\n\toption ssid 'Hytta'\n\toption encryption 'psk2'\n\toption key '{pw(14)}'")
    add("unifi-json", "device", json.dumps({"name": "Office", "security": "wpapsk", "wpa_mode": "wpa2", "x_passphrase": pw(16)}))
    add("android-wifistore", "device", f"<string name=\"SSID\">&quot;Cafe Linde&quot;</string>\n<string name=\"PreSharedKey\">&quot;{pw(12)}&quot;</string>")
    add("netsh-output", "device", f"Security settings\n-------------------\n    Authentication         : WPA2-Personal\n    Cipher                 : CCMP\n    Security key           : Present\n    Key Content            : {pw(13)}")
    add("kickstart", "config", f"lang en_US.UTF-8\ntimezone Europe/Oslo\nrootpw --plaintext {pw(14)}\nreboot")
    add("preseed", "config", f"d-i passwd/root-login boolean true\nd-i passwd/root-password password {pw(12)}\nd-i passwd/root-password-again password {pw(12)}")
    add("racadm", "command", f"racadm set iDRAC.Users.2.Password {pw(14)}")
    add("ilo-tag", "device", f"pulled the tag on srv-07: iLO default Administrator / {r(8, UP)}")
    add("redis-acl", "config", f"user default off\nuser app on >{pw(18)} ~app:* +@all -flushall")
    add("expect-send", "code", f"spawn ssh admin@10.0.4.1\nexpect \"assword:\"\nsend \"{pw(12)}\\r\"\ninteract")
    add("xdotool", "command", f"bind F9 to: xdotool type --delay 50 '{pw(15)}' && xdotool key Return")
    add("davfs", "file", f"/etc/davfs2/secrets\nhttps://cloud.example.org/remote.php/dav/files/jo  jo  {pw(14)}")
    add("fstab-cifs", "config", f"//nas/media /mnt/media cifs username=kodi,password={pw(12)},uid=1000,iocharset=utf8 0 0")
    add("vagrant", "code", f"config.ssh.username = \"deploy\"\nconfig.ssh.password = \"{pw(13)}\"")
    add("boto-gs", "config", f"[Credentials]\ngs_access_key_id = GOOG{r(20, UP)}\ngs_secret_access_key = {r(40, B64)}")
    # prose in other languages
    add("welsh", "prose", f"Y cyfrinair ar gyfer y rhwydwaith yw {pw(12)}")
    add("basque", "prose", f"Wifiaren pasahitza: {pw(12)}")
    add("afrikaans", "prose", f"Die wagwoord vir die router is {pw(11)}")
    add("albanian", "prose", f"Fjalëkalimi i wifi-t është {pw(12)}")
    add("kazakh", "prose", f"Wi-Fi құпия сөзі: {pw(12)}")
    add("tagalog", "prose", f"Ang password ng wifi sa bahay ay {pw(11)}")
    # money, phone, banking
    visa = luhn('4', 16)
    add("es-card", "card", f"Tarjeta Visa {' '.join(visa[i:i + 4] for i in range(0, 16, 4))}, caduca 07/28, CVV {G.rng.randrange(100, 999)}")
    add("port-out-pin", "code", f"T-Mobile account PIN for the port-out: {G.rng.randrange(100000, 999999)}")
    add("telebanking", "code", f"Online-Banking: Anmeldename {G.rng.randrange(10**7, 10**8)}, PIN {G.rng.randrange(10000, 99999)}")
    add("wps-pin", "code", f"printer WPS PIN (from the status page): {G.rng.randrange(10**7, 10**8)}")
    # one-time and recovery
    add("ga-lower-seed", "otp", "GitLab 2FA, the key Google Authenticator showed: " + " ".join(r(4, "abcdefghijklmnopqrstuvwxyz234567") for _ in range(8)))
    add("epic-backup", "otp", "Epic Games backup codes:\n" + "\n".join(r(6, UP) for _ in range(10)))
    # cookies and sessions
    add("wp-cookie", "cookie", f"wordpress_logged_in_{r(32, HEX)}=admin%7C{G.rng.randrange(1765000000, 1766000000)}%7C{r(43)}%7C{r(64, HEX)}")
    add("laravel-cookie", "cookie", "laravel_session=" + b64(json.dumps({"iv": b64(G.rand_bytes(16)), "value": b64(G.rand_bytes(48)),
                                                                         "mac": r(64, HEX), "tag": ""}, separators=(",", ":"))).replace("=", "%3D"))
    # split across fields
    add("split-wifi", "split", f"same as the guest one, with {G.rng.randrange(2, 9)} at the end: Fjord!stue{G.rng.randrange(10, 99)}",
        description="wifi at the cabin: network Hytta-5G")
    add("split-bios", "split", f"{r(10, ALNUM + '!#')}", description="BIOS supervisor password on the ThinkPad (asset 4471)")
    return F


def look_alikes() -> list[dict]:
    L = []
    add = lambda name, body, **kw: L.append(item(name, "look-alike", body, **kw))  # noqa: E731
    salt = r(16, ALNUM + "./")
    add("kickstart-crypted", f"rootpw --iscrypted $6${salt}${r(86, ALNUM + './')}")
    add("cloudinit-hash", f"users:\n  - name: ops\n    passwd: $6$rounds=4096${salt}${r(86, ALNUM + './')}\n    lock_passwd: false")
    add("traefik-hash", f"traefik.http.middlewares.auth.basicauth.users=admin:$$apr1$${r(8)}$${r(22, ALNUM + './')}")
    add("caddy-bcrypt", f"basicauth /admin/* {{\n    bob $2a$14${r(53, ALNUM + './')}\n}}")
    add("altool-keychain", "xcrun altool --upload-app -f App.ipa -u ci@acme.example --password \"@keychain:AC_PASSWORD\"")
    add("fstab-credfile", "//nas/backup /mnt/backup cifs credentials=/root/.smbcredentials,uid=1000 0 0")
    add("redis-nopass", f"user worker on nopass ~jobs:* +@list\nuser app on #{r(64, HEX)} ~app:* +@all")
    add("keycloak-masked", json.dumps({"clientId": "portal", "secret": "**********", "redirectUris": ["https://portal.acme.example/*"]}))
    add("docker-credsstore", json.dumps({"credsStore": "desktop", "currentContext": "default"}))
    add("hibp-prefix", "HIBP range query: GET https://api.pwnedpasswords.com/range/5BAA6 (only the first 5 hex of the SHA-1 leave the machine)")
    add("blake3", f"b3sum release.tar.zst: {r(64, HEX)}  release.tar.zst")
    add("android-version", "versionCode 4821\nversionName \"3.14.0\"\napplicationId \"com.acme.field\"")
    add("apple-team", f"Apple Team ID {r(10, UP)}, bundle id com.acme.field, provisioning profile 'Field AppStore'")
    add("csp-hash", f"Content-Security-Policy: script-src 'self' 'sha256-{b64(G.rand_bytes(32))}'")
    add("etag", f"ETag: \"{r(40, HEX)}\"")
    add("cf-id", f"X-Cache: Error from cloudfront\nX-Amz-Cf-Pop: FRA56-P5\nX-Amz-Cf-Id: {r(54, URL)}==")
    add("s3-etag", f"multipart upload ETag {r(32, HEX)}-12 for backup-2026-12-01.tar")
    add("request-id", f"X-Request-Id: {G.uuid()}\nIdempotency-Key: {G.uuid()}")
    add("kubectl-fromfile", "kubectl create secret generic db-pass --from-file=password=./db-password.txt -n payments")
    add("bw-get", "bw get password \"github.com (work)\" | wl-copy   # how I paste it")
    add("gpg-list", f"sec   rsa4096/0x{r(16, '0123456789ABCDEF')} 2024-03-01 [SC] [expires: 2027-03-01]\n      {r(40, '0123456789ABCDEF')}\nuid   [ultimate] Jo Berg <jo@acme.example>")
    add("ssh-keygen-l", f"256 SHA256:{b64(G.rand_bytes(32)).rstrip('=')} jo@laptop (ED25519)")
    add("mc-seed", f"Minecraft server world seed: -{G.rng.randrange(10**18, 9 * 10**18)} (the one with the mushroom island)")
    add("torch-seed", "torch.manual_seed(1337); np.random.seed(1337); PYTHONHASHSEED=0 for reproducible runs")
    add("xkcd", "xkcd 936 (correct horse battery staple) is why our policy asks for four random words, not symbols.")
    add("card-last4", "Company Visa ending 4821, exp 09/27, is the one for AWS billing (card itself in the office safe).")
    add("iban-bic", "Pay the invoice to NL91ABNA0417164300, BIC ABNANL2A, reference INV-2026-118.")
    add("vat", "VAT id DE129273398; tax number 21/815/08150 (Finanzamt Mitte)")
    add("serial", f"Laptop S/N: 5CG{r(7, UP)}; warranty until 2028-02.")
    add("win-build", "Fails on Windows 10.0.22631.4602 only; 10.0.26100.2605 is fine.")
    add("docker-tag", "image: nginx:1.27.3-alpine3.20@sha256:" + r(64, HEX))
    add("semver", "Bumped to 2.0.0-beta.3+exp.sha.5114f85 — see CHANGELOG.")
    add("wg-noskeys", "[Interface]\nAddress = 10.8.0.1/24\nListenPort = 51820\nPostUp = iptables -A FORWARD -i wg0 -j ACCEPT")
    add("gpio-pin", "The relay is on GPIO pin 17; the button on pin 27 with a pull-up.")
    add("xmr-address", f"Donations (XMR): 4{G.rng.choice('0123456789AB')}{r(93, B58)}")
    add("ln-invoice", f"Paid the Lightning invoice lnbc2500u1p{r(200, 'qpzry9x8gf2tvdw0s3jn54khce6mua7l')}")
    add("ssh-rsa-pub", f"ssh-rsa {b64(bytes([0, 0, 0, 7]) + b'ssh-rsa' + G.rand_bytes(270))} jo@laptop")
    add("csr", block("CERTIFICATE REQUEST", wrap(b64(bytes.fromhex("308202") + G.rand_bytes(300)))))
    add("pw-rotation", "Rotated the Grafana admin password today (new one in 1Password, item 'Grafana admin').")
    add("token-ttl", "ACCESS_TOKEN_TTL=900\nREFRESH_TOKEN_TTL=1209600\nPASSWORD_MIN_LENGTH=12")
    add("wifi-ssid", "Guest wifi: Acme-Guest (captive portal, no password; vouchers at reception).")
    add("otp-expired", "The SMS code was slow again; support says the codes are valid for 10 minutes.")
    return L


FORMS = forms()
LOOK_ALIKES = look_alikes()
