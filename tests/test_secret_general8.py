"""The secret gate's classes from the fourteenth blind corpus (tuned on heldout14, whose strings
none of these are): what a base64 DER blob is, read from its ASN.1 structure (a private key as one
line after ``NAME=`` counts; a public key or a certificate, a DKIM record's ``p=``, passes whatever
its label), and prose in a script written without spaces (Chinese, Japanese, Thai), which is text
under a description naming a password, not a one-token value.

Each test draws its values afresh from generators seeded three ways (none is an item of a bench
corpus), beside the look-alikes that share the place. Each positive fails on the code before these
rules (checked against the parent commit, 86f5f64); each look-alike passes on the new code.
"""

from __future__ import annotations

import base64
import random

import pytest

from secret_probe import found, refused
from vault_mem.model.secret_public import der_key

SEEDS = (20261204, 11, 909090)


# --- DER, written out here (not by a crypto library: the bytes are drawn, the structure is ASN.1's) ---

def _tlv(tag: int, content: bytes) -> bytes:
    n = len(content)
    if n < 0x80:
        size = bytes([n])
    else:
        raw = n.to_bytes((n.bit_length() + 7) // 8, "big")
        size = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + size + content


def _seq(*parts: bytes) -> bytes:
    return _tlv(0x30, b"".join(parts))


def _int(value: bytes) -> bytes:
    return _tlv(0x02, value)


def _big(rng: random.Random, n: int) -> bytes:
    """A positive INTEGER's content of ``n`` bytes (a leading zero keeps its top bit a sign)."""
    return b"\x00" + bytes([rng.randrange(128, 256)]) + rng.randbytes(n - 1)


_RSA = _tlv(0x06, bytes.fromhex("2a864886f70d010101")) + b"\x05\x00"
_EC_PUBLIC = _tlv(0x06, bytes.fromhex("2a8648ce3d0201"))
_P256 = _tlv(0x06, bytes.fromhex("2a8648ce3d030107"))
_ED25519 = _tlv(0x06, bytes.fromhex("2b6570"))
_PBES2 = _tlv(0x06, bytes.fromhex("2a864886f70d01050d"))
_V0, _V1 = _int(b"\x00"), _int(b"\x01")


def _rsa_private(rng: random.Random) -> bytes:
    """PKCS#1 RSAPrivateKey: version 0, then the modulus and the rest."""
    return _seq(_V0, _int(_big(rng, 256)), _int(b"\x01\x00\x01"), *(_int(_big(rng, n)) for n in (256, 128, 128, 128, 128, 128)))


def _b64(der: bytes) -> str:
    return base64.b64encode(der).decode()


def private_der(rng: random.Random, kind: str) -> str:
    if kind == "pkcs1":
        return _b64(_rsa_private(rng))
    if kind == "pkcs8-rsa":
        return _b64(_seq(_V0, _seq(_RSA), _tlv(0x04, _rsa_private(rng))))
    if kind == "sec1":
        point = _tlv(0x03, b"\x00\x04" + rng.randbytes(64))
        return _b64(_seq(_V1, _tlv(0x04, rng.randbytes(32)), _tlv(0xA0, _P256), _tlv(0xA1, point)))
    if kind == "pkcs8-ec":
        inner = _seq(_V1, _tlv(0x04, rng.randbytes(32)))
        return _b64(_seq(_V0, _seq(_EC_PUBLIC, _P256), _tlv(0x04, inner)))
    assert kind == "pkcs8-ed25519"
    return _b64(_seq(_V0, _seq(_ED25519), _tlv(0x04, _tlv(0x04, rng.randbytes(32)))))


def public_der(rng: random.Random, kind: str) -> str:
    if kind == "spki-rsa":
        return _b64(_seq(_seq(_RSA), _tlv(0x03, b"\x00" + _seq(_int(_big(rng, 256)), _int(b"\x01\x00\x01")))))
    if kind == "spki-ec":
        return _b64(_seq(_seq(_EC_PUBLIC, _P256), _tlv(0x03, b"\x00\x04" + rng.randbytes(64))))
    if kind == "spki-ed25519":
        return _b64(_seq(_seq(_ED25519), _tlv(0x03, b"\x00" + rng.randbytes(32))))
    assert kind == "pkcs1-rsa-public"
    return _b64(_seq(_int(_big(rng, 256)), _int(b"\x01\x00\x01")))


PRIVATE_KINDS = ("pkcs1", "pkcs8-rsa", "sec1", "pkcs8-ec", "pkcs8-ed25519")
PUBLIC_KINDS = ("spki-rsa", "spki-ec", "spki-ed25519", "pkcs1-rsa-public")


@pytest.mark.parametrize("seed", SEEDS)
def test_what_a_der_blob_is_is_read_from_its_structure(seed: int) -> None:
    rng = random.Random(seed)
    for kind in PRIVATE_KINDS:
        assert der_key(private_der(rng, kind)) == "private", kind
    for kind in PUBLIC_KINDS:
        assert der_key(public_der(rng, kind)) == "public", kind
    # an encrypted private key is a ciphertext: neither
    encrypted = _b64(_seq(_seq(_PBES2, _seq(_seq(), _seq())), _tlv(0x04, rng.randbytes(1200))))
    assert der_key(encrypted) is None


# (inside one word, after a name's sign: the finder read a word's start only; a key in a JSON
# string, after `name: ` or alone on a line was found before)
PRIVATE_PLACES = (
    "{name}={value}",
    'export {name}="{value}"',
    "{lower}:{value}",
    "docker run -e {name}='{value}' app",
)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", PRIVATE_KINDS)
@pytest.mark.parametrize("place", PRIVATE_PLACES)
def test_a_private_key_as_one_base64_der_line_counts(seed: int, kind: str, place: str) -> None:
    rng = random.Random(f"{seed}{kind}{place}")
    name = rng.choice(("SIGNING_KEY_DER", "SERVICE_KEY", "TLS_KEY_B64", "JWT_SIGNER"))
    value = private_der(rng, kind)
    assert refused(place.format(name=name, lower=name.lower(), value=value), description="deploy notes"), (kind, place)


PUBLIC_PLACES = (
    'sel1._domainkey IN TXT "v=DKIM1; k={k}; p={value}"',
    "{name}={value}",
    "signing secret (verifier side): {value}",
    '{{"{lower}": "{value}"}}',
)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", PUBLIC_KINDS)
@pytest.mark.parametrize("place", PUBLIC_PLACES)
def test_a_public_key_in_der_passes_whatever_its_label(seed: int, kind: str, place: str) -> None:
    rng = random.Random(f"{seed}{kind}{place}")
    name = rng.choice(("DKIM_KEY", "JWT_SECRET_VERIFY", "API_KEY_PUBLIC_DER", "TOKEN_SIGNING_KEY"))
    value = public_der(rng, kind)
    text = place.format(name=name, lower=name.lower(), value=value, k="ed25519" if "ed25519" in kind else "rsa")
    assert not refused(text, description="DKIM record and signing key"), (kind, place)
    assert not found(text), (kind, place)


# --- prose in a script written without spaces, under a description naming a password ------------

PROSE = (
    ("数据库密码", "密码至少{n}位，必须包含大小写字母、数字和符号。不要在聊天里发送密码。"),
    ("密码规则", "密码长度{n}位以上，含大写、小写、数字。"),
    ("Wi-Fi密码", "访客网络的密码每月{d}号更换，请向前台索取。"),
    ("パスワードの方針", "パスワードは{n}文字以上で、{y}年から{d}日ごとに変更。"),
    ("API token", "トークンは管理画面の設定から発行できます。有効期限は{d}日です。"),
    ("รหัสผ่าน Wi-Fi", "รหัสผ่านต้องมีอย่างน้อย{n}ตัวอักษรและต้องมีตัวเลข"),
)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(("description", "body"), PROSE)
def test_prose_without_spaces_under_a_password_label_passes(seed: int, description: str, body: str) -> None:
    rng = random.Random(f"{seed}{body}")
    text = body.format(n=rng.randint(8, 16), d=rng.randint(1, 90), y=rng.randint(2020, 2030))
    assert not refused(text, description=description), text


@pytest.mark.parametrize("seed", SEEDS)
def test_a_value_in_such_a_sentence_still_counts(seed: int) -> None:
    rng = random.Random(seed)
    pw = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789") for _ in range(10)) + rng.choice("#%!?")
    assert refused(f"DBのパスワードは「{pw}」です", description="メモ")
    assert refused(f"密码：{pw}", description="wifi password")
    assert refused(pw, description="数据库密码")


# --- a person's password that ends in a symbol no sentence ends with -------------------------

WORDS = ("Copper", "tundra", "KETTLE", "Marble", "velvet", "Raven", "LANTERN", "mango")


def last_symbol_pw(rng: random.Random) -> str:
    """A word and digits (either first), maybe a second word, and a symbol put last."""
    word, digits = rng.choice(WORDS), str(rng.randint(10, 9999))
    tail = rng.choice(("", rng.choice(WORDS).lower()))
    core = rng.choice((f"{word}{digits}{tail}", f"{digits}{word}"))
    return core + rng.choice("$^%*~#&")


LAST_SYMBOL_PLACES = (
    "xfreerdp /v:10.0.0.{n} /u:CORP\\\\svc /p:{pw} /cert:ignore",
    "The shared kiosk account is frontdesk, we all use the password {pw}.",
    "ci secret set /user/registry_pass '{pw}'",
)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("place", LAST_SYMBOL_PLACES)
def test_a_password_ending_in_a_symbol_counts(seed: int, place: str) -> None:
    rng = random.Random(f"{seed}{place}")
    pw = last_symbol_pw(rng)
    assert refused(place.format(pw=pw, n=rng.randint(2, 250)), description="ops notes"), pw


@pytest.mark.parametrize("text", [
    "Growth was 12% in Q3 and costs fell 7%.",
    "The share is \\\\fs01\\ADMIN$ and the drive C$ on host web12.",
    "Set PS1='user42$ ' in the profile for the demo.",
    "Revenue per user rose to 41% after the launch of plan2026*.",
    "Footnote markers: see table3* and figure12#.",
])
def test_symbols_after_numbers_in_prose_pass(text: str) -> None:
    assert not refused(text, description="notes"), text


# --- a password passed to a database client, a SQL statement, a server's config directive ------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_given_to_a_database_client_or_statement_counts(seed: int) -> None:
    rng = random.Random(seed)
    pw = last_symbol_pw(rng)[:-1] + rng.choice("-._!")
    user = rng.choice(("admin_ro", "etl", "reporting", "shop_app"))
    for text in (f'$db = new mysqli("127.0.0.1", "{user}", "{pw}", "shop");',
                 f'$link = mysqli_connect("db.internal", "{user}", "{pw}", "shop");',
                 f'$pdo = new PDO("mysql:host=db;dbname=shop", "{user}", "{pw}");',
                 f"CREATE ROLE {user} LOGIN PASSWORD '{pw}';",
                 f"ALTER USER {user} WITH PASSWORD '{pw}';",
                 f"listen stats\n  bind :8404\n  stats enable\n  stats auth {user}:{pw}",
                 f"userlist ops\n  user {user} insecure-password {pw}"):
        assert refused(text, description="setup notes"), text


@pytest.mark.parametrize("text", [
    '$db = new mysqli("127.0.0.1", "admin_ro", $password, "shop");',
    'new mysqli("localhost", "root", "", "test")',
    "$pdo = new PDO($dsn, $user, $pass);",
    "ALTER ROLE app PASSWORD NULL;",
    "ALTER USER app WITH ENCRYPTED PASSWORD 'md5a3556571e93b0d20722ba62be61e8c2d';",
    "CREATE USER app WITH PASSWORD '${APP_DB_PASSWORD}';",
    "  stats auth admin:${STATS_PASSWORD}",
    "userlist ops\n  user admin password $6$rounds=5000$saltsalt$hashhashhash",
    "The stats auth line is set from the vault at deploy time.",
])
def test_references_hashes_and_empty_values_there_pass(text: str) -> None:
    assert not refused(text, description="setup notes"), text


# --- recovery codes and keys in their vendors' layouts ---------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_recovery_codes_in_their_vendors_layouts_count(seed: int) -> None:
    rng = random.Random(seed)
    pairs = "\n".join(f"{rng.randint(1000, 9999)} {rng.randint(1000, 9999)}" for _ in range(10))
    assert refused(f"BACKUP VERIFICATION CODES\nops{rng.randint(1, 99)}@corp.example\n{pairs}", description="codes")
    # a BitLocker key retyped with a digit wrong (its groups no longer multiples of 11), under its label
    groups = [f"{rng.randint(0, 65535) * 11 + rng.randint(1, 10):06d}" for _ in range(8)]
    assert refused(f"Identifier: 6F1E0D2C-0000-4000-8000-00000000{rng.randint(1000, 9999)}\nRecovery key: {'-'.join(groups)}",
                   description="laptop")
    alphabet = "BCDFGHJKMPQRTVWXY2346789"
    code = "-".join("".join(rng.choice(alphabet) for _ in range(5)) for _ in range(5))
    assert refused(f"New recovery code ({rng.choice(('Microsoft', 'Xbox', 'Outlook'))} account): {code}", description="account")


@pytest.mark.parametrize("text", [
    "BACKUP VERIFICATION CODES\nops@corp.example\nPrint these and keep them offline; each works once.",
    "Order numbers: 118-004-221-330-401-512-630-771 (not a key).",
    "Recovery key rotation happens yearly; the key itself is in the MDM console.",
    "recovery code (Microsoft account): stored in 1Password under 'MS recovery'",
])
def test_recovery_talk_without_codes_passes(text: str) -> None:
    assert not refused(text, description="notes"), text


# --- macaroons by their structure, onion service keys by their form ---------------------------

def _macaroon_v2(rng: random.Random, location: bytes) -> bytes:
    ident = rng.randbytes(rng.randint(20, 60))
    return b"\x02" + b"\x01" + bytes([len(location)]) + location + b"\x02" + bytes([len(ident)]) + ident + b"\x00" + rng.randbytes(120)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_macaroon_or_an_onion_key_counts(seed: int) -> None:
    rng = random.Random(seed)
    raw = _macaroon_v2(rng, rng.choice((b"lnd", b"", b"https://auth.corp.example")))
    assert refused(f"admin.macaroon hex: {raw.hex()}", description="node")
    assert refused(f"LND_MACAROON={base64.b64encode(raw).decode()}", description="node")
    onion = base64.b64encode(rng.randbytes(64)).decode()
    assert refused(f"ADD_ONION ED25519-V3:{onion} Port=80,127.0.0.1:8080", description="tor")


@pytest.mark.parametrize("seed", SEEDS)
def test_hex_and_onion_talk_of_other_shapes_pass(seed: int) -> None:
    rng = random.Random(seed)
    address = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz234567") for _ in range(56))
    # (a length byte of 128 or more after 0x02 0x01 frames no macaroon's location)
    tlv = "0201" + f"{rng.randint(128, 255):02x}" + rng.randbytes(40).hex()
    for text in ("ADD_ONION NEW:ED25519-V3 Flags=DiscardPK Port=80,127.0.0.1:8080",
                 f"The onion address is {address}.onion",
                 f"payload {tlv} decoded as a TLV (see the spec)"):
        assert not found(text), text


# --- a token as a UUID after -t, a network's password as a keyword argument, a Hardhat account key ---

@pytest.mark.parametrize("seed", SEEDS)
def test_uuid_tokens_keyword_passwords_and_account_keys_count(seed: int) -> None:
    rng = random.Random(seed)
    uuid = "-".join(rng.randbytes(n).hex() for n in (4, 2, 2, 2, 6))
    assert refused(f"{rng.choice(('codecov', 'uploader', 'ci-report'))} -t {uuid} -f coverage.xml", description="ci")
    pw = "-".join(rng.choice(("clump", "aerobic", "setup", "walnut", "ember", "violet")) for _ in range(3))
    assert refused(f'nmcli dev wifi connect "Lab-{rng.randint(1, 99)}" password "{pw}"', description="wifi")
    assert refused(f"sudo nmcli con modify lab wifi-sec.psk {pw}{rng.randint(10, 99)}", description="wifi")
    key = rng.randbytes(32).hex()
    assert refused(f'networks: {{ mainnet: {{ url: RPC, accounts: ["{rng.choice(("", "0x"))}{key}"] }} }}', description="deploy")


@pytest.mark.parametrize("seed", SEEDS)
def test_addresses_references_and_other_flags_there_pass(seed: int) -> None:
    rng = random.Random(seed)
    address = "0x" + rng.randbytes(20).hex()
    uuid = "-".join(rng.randbytes(n).hex() for n in (4, 2, 2, 2, 6))
    for text in (f'accounts: ["{address}"]',  # an address, 40 hex
                 f"accounts: [process.env.DEPLOYER_KEY]  // tx {rng.randbytes(32).hex()[:12]}",
                 'nmcli dev wifi connect Home password "$WIFI_PASSWORD"',
                 "nmcli --ask dev wifi connect Home",
                 f"az account set -s {uuid}",  # a subscription id after -s
                 f"kubectl get pod -l run={uuid[:8]} -o wide"):
        assert not refused(text, description="notes"), text


# --- a hook URL's key in its query ---------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_hook_urls_key_counts(seed: int) -> None:
    rng = random.Random(seed)
    uuid = "-".join(rng.randbytes(n).hex() for n in (4, 2, 2, 2, 6))
    letters = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") + "".join(rng.choice("abcdefghijkmnopqrstuvwxyz")
                                                                       for _ in range(rng.randint(1, 2))) for _ in range(5))
    assert refused(f"https://chat.corp.example/cgi-bin/webhook/send?key={uuid}", description="alerts")
    assert refused(f"curl -X POST 'https://api.host.example/deploy/srv-{rng.randbytes(10).hex()}?key={letters}'", description="deploy")


@pytest.mark.parametrize("text", [
    "https://api.host.example/deploy/srv-abc?key=$RENDER_DEPLOY_KEY",
    "https://docs.example.com/webhooks/setup?key=installation",
    "https://ci.example.com/deploy/app?key=productionDeploy",
    "https://example.com/webhooks/v2/docs?key=ReadTheGuide",
])
def test_hook_urls_with_names_or_references_pass(text: str) -> None:
    assert not refused(text, description="notes"), text


# --- a passphrase of decimal groups under its word ----------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_passphrase_of_digit_groups_counts(seed: int) -> None:
    rng = random.Random(seed)
    groups = " ".join(f"{rng.randint(0, 99999):05d}" for _ in range(6))
    assert refused(f"{rng.choice(('Signal', 'Backup app', 'Phone'))} backup passphrase: {groups}", description="phone")


@pytest.mark.parametrize("seed", SEEDS)
def test_digit_groups_named_otherwise_pass(seed: int) -> None:
    rng = random.Random(seed)
    groups = " ".join(f"{rng.randint(0, 99999):05d}" for _ in range(6))
    for text in (f"Order ids: {groups}", f"Page numbers to reread: {groups}",
                 f"passphrase hint: {groups} are the page numbers", f"key ids {groups}",
                 f"card 4111 1111 1111 1111, ticket {rng.randint(1000, 9999)}"):
        assert not refused(text, description="notes"), text


# --- one key to a named row, under a label naming them in the plural -------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_keys_one_to_a_named_row_under_a_plural_label_count(seed: int) -> None:
    rng = random.Random(seed)
    names = rng.sample(("sonarr", "radarr", "prowlarr", "lidarr", "bazarr", "readarr"), 3)
    body = "\n".join(f"{n}: {rng.randbytes(16).hex()}" for n in names)
    assert refused(body, description=f"{rng.choice(('API keys', 'api tokens', 'service keys'))} for the dashboard")


@pytest.mark.parametrize("seed", SEEDS)
def test_named_rows_of_other_things_pass(seed: int) -> None:
    rng = random.Random(seed)
    names = ("sonarr", "radarr", "prowlarr")
    digests = "\n".join(f"{n}: {rng.randbytes(32).hex()}" for n in names)
    assert not refused(digests, description="image checksums for the dashboard")
    dates = "\n".join(f"{n}: 2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}" for n in names)
    assert not refused(dates, description="API keys rotated on")
    where = "\n".join(f"{n}: op://homelab/{n}/credential" for n in names)
    assert not refused(where, description="API keys (where they live)")
