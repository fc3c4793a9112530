"""The secret gate's classes from fresh61's tuning half (``bench/data/secrets_fresh61a.py``, whose
strings none of these are), one table: each case a memory's description and body, and whether the
write policy must refuse it. Beside each class, the look-alikes that share its place and must pass.

- A payment card: a card number (a network's first digit, its Luhn check digit) with its expiry or
  its security code beside it, in any language; test cards (mostly zeros or a few repeated digits,
  or a line saying "test"), a number without expiry or code, an order number before a date pass.
- A PIN under its name in Dutch, Danish, Finnish or German (``pincode``, ``PIN-koodi``,
  ``Geheimzahl``), and a lock's or an alarm's code a few words after the place it opens ("Alarmanlage:
  beim Reinkommen Code 7391"); a door's number or a year after the place passes.
- Icelandic's definite "password" (``lykilorðið``).
- A SLIP-39 share (Shamir backup) by its RS1024 checksum; twenty words of its list without it pass.
- A Java keystore (JKS, JCEKS) in base64 by its magic; a truststore under its name passes.
- Oracle's ``CREATE DATABASE LINK ... IDENTIFIED BY X``; a link without a password passes.
- ppp's ``chap-secrets``/``pap-secrets`` rows; a row whose secret is a placeholder passes.
- A lower-case vendor token whose prefix has three segments (OneSignal's ``os_v2_app_``); a hex tail
  or a short tail after such a prefix passes.
- A user and a password under one-letter names side by side (``{"u": ..., "p": ...}``); a page
  number under ``p`` passes.
- The password of an account the description names, on the last line under the host it signs in to;
  the same layout saying "use SSO" passes.
- An uncompressed elliptic-curve point (a VAPID public key) passes under any name.

From fresh61's held-out half (``secrets_fresh61b.py``), after its one measurement (in-sample now):
Redis ACL's ``>password``; an expect script's ``send`` after a password prompt; a literal typed by
``xdotool``/``ydotool``/``wtype``; a TLS key log's secrets; the rows of a file named for secrets
(davfs2, rsyncd); a PIN's label with a parenthesis before its digits. Beside each, what must pass:
``nopass`` and ``#<sha256>``, a variable sent, ordinary typed text, the key log named in prose, a
comment row, ``kubectl get secrets`` output, a PIN without digits, a ticket or a folder after ``admin /``.

Values are drawn from one seeded generator; the SLIP-39 shares were made by the reference
implementation (``shamir-mnemonic``) from random secrets, for these tests only.
"""

from __future__ import annotations

import base64

import pytest

from secret_probe import ALNUM, HEX, Draw, refused
from vault_mem.model.seed_words import BIP39_ENGLISH
from vault_mem.model.seed_words_slip39 import SLIP39_WORDS

_D = Draw(20261205)
_RNG = _D.rng
_REFUSED = True
_PASSES = False


def _luhn(prefix: str, n: int) -> str:
    while True:
        digits = prefix + "".join(_RNG.choice("0123456789") for _ in range(n - len(prefix)))
        total = sum(int(c) if i % 2 == 0 else (2 * int(c) - 9 if int(c) > 4 else 2 * int(c))
                    for i, c in enumerate(reversed(digits)))
        if total % 10 == 0:
            return digits


def _g4(s: str) -> str:
    return " ".join(s[i:i + 4] for i in range(0, len(s), 4))


def _pw(n: int = 14) -> str:
    return _D.r(n, ALNUM + "#%&*+=?@!")


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _rand(n: int) -> bytes:
    return bytes(_RNG.randrange(256) for _ in range(n))


_SHARE20 = ("decrease survive academic agency darkness moment network prize piece genuine order plastic artwork "
            "element satisfy flame peanut news carpet knife")
_SHARE33 = ("cluster pink academic acid aluminum infant away scholar focus course amuse multiple trial benefit "
            "network clothes mustang junior papa uncover lend adorn mixture blue critical object knit dough memory "
            "rhythm holy findings petition")
_SLIP39_ONLY = sorted(set(SLIP39_WORDS) - set(BIP39_ENGLISH))  # (words of SLIP-39's list that no BIP-39 phrase holds)
_POINT = base64.urlsafe_b64encode(bytes([4]) + _rand(64)).decode().rstrip("=")
_VISA, _MC, _AMEX = _luhn("4", 16), _luhn("53", 16), _luhn("37", 15)

# (case id, description, body, refused?)
CASES: list[tuple[str, str, str, bool]] = [
    # --- a payment card with its expiry or security code
    ("card-exp-cvv", "travel card", f"Visa {_g4(_VISA)} exp 04/28 CVV {_RNG.randrange(100, 999)}", _REFUSED),
    ("card-fr", "carte pro", f"Carte {_g4(_MC)}, date d'expiration 11/27, cryptogramme {_RNG.randrange(100, 999)}", _REFUSED),
    ("card-amex-cid", "corporate amex", f"{_AMEX[:4]} {_AMEX[4:10]} {_AMEX[10:]} valid thru 2029-03? no: 03/29, CID {_RNG.randrange(1000, 9999)}",
     _REFUSED),
    ("card-run-together", "backup card", f"{_MC} 09/30", _REFUSED),
    ("card-test-stripe", "stripe testing", "4242 4242 4242 4242, exp 12/34, CVC 123", _PASSES),
    ("card-test-word", "checkout QA", f"use test card {_g4(_VISA)} exp 01/30 cvc 999 in the sandbox", _PASSES),
    ("card-alone", "receipt", f"paid with card ending {_VISA[-4:]}; full number {_g4(_VISA)} was on the old statement", _PASSES),
    ("card-order-date", "shipping", f"order {_VISA} shipped 2026-09-28, tracking in the portal", _PASSES),
    ("card-not-luhn", "ticket", f"ticket {_VISA[:-1]}{(int(_VISA[-1]) + 1) % 10} exp 05/27", _PASSES),
    # --- a PIN's name in other languages; a code after the place it opens
    ("pin-dutch", "bankpas", f"ING rekening, pincode {_RNG.randrange(1000, 9999)}", _REFUSED),
    ("pin-finnish", "pankkikortti", f"PIN-koodi on {_RNG.randrange(1000, 9999)}", _REFUSED),
    ("pin-german", "EC-Karte", f"Geheimzahl der Sparkassenkarte: {_RNG.randrange(1000, 9999)}", _REFUSED),
    ("code-alarm-de", "Haus", f"Alarmanlage: beim Reinkommen Code {_RNG.randrange(1000, 9999)} und dann # drücken", _REFUSED),
    ("code-gate-en", "warehouse", f"Front gate: the keypad on the left takes code {_RNG.randrange(10000, 99999)}", _REFUSED),
    ("code-door-number", "office", "Door 3 is the server room; the code of conduct is on the wall", _PASSES),
    ("code-alarm-year", "house", "The alarm system got a new code in 2024 (ask Jonas)", _PASSES),
    ("code-gate-zip", "visit", "Gate B, postal code 10115, Berlin", _PASSES),
    # --- Icelandic's definite form
    ("icelandic-definite", "heima", f"Lykilorðið er {_RNG.choice(['hestur', 'kaffibolli', 'sumarhus'])}{_RNG.randrange(1950, 2026)}",
     _REFUSED),
    ("icelandic-colon", "wifi", f"lykilorðið: {_RNG.choice(['hestur', 'kaffibolli', 'sumarhus'])}{_RNG.randrange(10, 99)}", _REFUSED),
    # --- a SLIP-39 share
    ("slip39-20", "backup", f"Shamir share 1 of 3:\n{_SHARE20}", _REFUSED),
    ("slip39-33", "notes", _SHARE33, _REFUSED),
    ("slip39-words", "vocabulary", " ".join(_RNG.sample(_SLIP39_ONLY, 20)), _PASSES),
    # --- a Java keystore in base64
    ("jks", "signing for CI", f"ANDROID_KEYSTORE={_b64(bytes.fromhex('feedfeed00000002') + _rand(300))}", _REFUSED),
    ("jceks", "app", f"keystore.jceks (base64): {_b64(bytes.fromhex('cececece00000002') + _rand(300))}", _REFUSED),
    ("jks-truststore", "corporate CA", f"truststore.jks for the proxy: {_b64(bytes.fromhex('feedfeed00000002') + _rand(300))}", _PASSES),
    # --- Oracle's database link
    ("dblink", "reporting", f"create public database link dwh connect to etl identified by {_pw(12)} using 'DWH';", _REFUSED),
    ("dblink-current-user", "reporting", "CREATE DATABASE LINK dwh CONNECT TO CURRENT_USER USING 'DWH';", _PASSES),
    # --- ppp secrets files
    ("pap-secrets", "ppp", f"/etc/ppp/pap-secrets\nisp-user  *  \"{_pw(12)}\"", _REFUSED),
    ("chap-secrets-server", "ppp", f"\"office\" \"pptpd\" \"{_pw(13)}\" 10.0.0.0/24", _REFUSED),
    ("chap-placeholder", "ppp template", "\"user\"  *  \"password\"  *", _PASSES),
    # --- a lower-case token with a prefix of three segments
    ("multi-prefix", "push", f"REST key: os_v2_app_{_D.r(110, 'abcdefghijklmnopqrstuvwxyz234567')}", _REFUSED),
    ("multi-prefix-bare", "push", f"OneSignal: os_v2_app_{_D.r(110, 'abcdefghijklmnopqrstuvwxyz234567')}", _REFUSED),
    ("multi-prefix-hex", "cache", f"build_cache_v2_{_D.r(64, HEX)}", _PASSES),
    ("multi-prefix-short", "ids", f"evt_v2_app_{_D.r(20, 'abcdefghijklmnopqrstuvwxyz234567')}", _PASSES),
    # --- a user and a password under one-letter names
    ("letter-pair", "ETL service account", f'{{"u": "svc_etl", "p": "{_pw(14)}"}}', _REFUSED),
    ("letter-pair-py", "script", f"login(usr='deploy', psw='{_pw(13)}')", _REFUSED),
    ("letter-pair-page", "pagination", '{"u": "search", "p": "page-2"}', _PASSES),
    # --- an account's password under the host it signs in to
    ("account-host", "staging VPN account mira.k", f"vpn.staging.example.org\nsecond field: {_pw(13)}", _REFUSED),
    ("account-host-sso", "Jira account", "jira.acme.example\nuse SSO with the work account", _PASSES),
    ("described-as", "fixture described as base64 of lorem", f"Fixture: base64 of 'lorem ipsum dolor' = {_b64(b'lorem ipsum dolor')}",
     _PASSES),
    # --- (fresh61b's held-out half, after its one measurement: in-sample) Redis ACL passwords
    ("redis-acl", "redis.conf", f"user default off\nuser app on >{_pw(16)} ~app:* +@all", _REFUSED),
    ("redis-setuser", "redis-cli", f"ACL SETUSER reporting on >{_pw(14)} ~reports:* +get", _REFUSED),
    ("redis-nopass", "redis.conf", f"user worker on nopass ~jobs:* +@list\nuser app on #{_D.r(64, HEX)} ~app:*", _PASSES),
    ("redis-prose", "query notes", "select * from orders where user_id > 5000 and total > 100", _PASSES),
    # --- an expect script's answer to a password prompt
    ("expect-send", "switch backup", f'spawn ssh admin@10.0.9.2\nexpect "assword:"\nsend "{_pw(12)}\\r"', _REFUSED),
    ("expect-env", "switch backup", 'expect "Password:"\nsend "$env(SWITCH_PW)\\r"', _PASSES),
    ("expect-yes", "first connect", 'expect "(yes/no)?"\nsend "yes\\r"', _PASSES),
    # --- a typing tool's literal
    ("xdotool", "hotkey", f"xdotool type --delay 40 '{_pw(15)}'", _REFUSED),
    ("wtype", "sway binding", f"bindsym $mod+p exec wtype '{_pw(14)}'", _REFUSED),
    ("xdotool-text", "hotkey", "xdotool type 'Kind regards, Jo'", _PASSES),
    ("xdotool-cmd", "hotkey", "xdotool type \"$(pass show web/forum)\"", _PASSES),
    # --- a TLS key log
    ("sslkeylog", "capture", f"CLIENT_HANDSHAKE_TRAFFIC_SECRET {_D.r(64, HEX)} {_D.r(64, HEX)}", _REFUSED),
    ("sslkeylog-random", "capture", f"CLIENT_RANDOM {_D.r(64, HEX)} {_D.r(96, HEX)}", _REFUSED),
    ("sslkeylog-prose", "debugging TLS", "SSLKEYLOGFILE=/tmp/keys.log makes curl write CLIENT_RANDOM lines for Wireshark", _PASSES),
    # --- a secrets file's rows
    ("davfs-secrets", "nextcloud mount", f"/etc/davfs2/secrets\nhttps://cloud.example.org/remote.php/dav  jo  {_pw(14)}", _REFUSED),
    ("rsyncd-secrets", "backup target", f"/etc/rsyncd.secrets:\nbackup:{_pw(14)}", _REFUSED),
    ("secrets-comment", "nextcloud mount", "/etc/davfs2/secrets\n# URL  user  password\n/mnt/cloud  jo  \"password\"", _PASSES),
    ("secrets-listing", "k8s", "kubectl get secrets\nNAME  TYPE  DATA  AGE\ndb-creds  Opaque  2  41d", _PASSES),
    # --- a PIN's label, a parenthesis, its digits
    ("pin-paren", "printer", f"WPS PIN (label on the back): {_RNG.randrange(10**7, 10**8)}", _REFUSED),
    ("pin-paren-none", "letters", "The PIN (sent by post) arrives in 3-5 days.", _PASSES),
    # --- a factory password after a default account's slash
    ("ilo-default", "srv-12", f"iLO tag: Administrator / {''.join(_RNG.choice('ABCDEFGHJKLMNPQRSTUVWXYZ23456789') for _ in range(3))}7"
     f"{_RNG.choice('ABCDEFGHJKLMNPQRSTUVWXYZ')}4{_RNG.choice('ABCDEFGHJKLMNPQRSTUVWXYZ')}9Q", _REFUSED),
    ("ilo-ticket", "incident", "escalated: admin / INC48213 (see the postmortem)", _PASSES),
    ("ilo-release", "deploy", "root / PROD2024 is the folder the job writes", _PASSES),
    # --- an uncompressed EC point
    ("vapid-public", "web push", f"applicationServerKey = '{_POINT}'",
     _PASSES),
]


@pytest.mark.parametrize(("description", "body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_fresh61_classes(description: str, body: str, expected: bool) -> None:
    assert refused(body, description=description) == expected, (description, body)
