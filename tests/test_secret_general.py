"""The secret gate's general classes: a credential known by its shape and its place, whatever the
syntax or language around it, not by a row written for an example.

Each test draws its values afresh from a seeded generator and puts them in several syntaxes,
languages or containers at once (none is an item of a bench corpus), and holds the look-alikes
that share the place: ids, digests, ciphertext, public keys, placeholders and examples beside a
credential word. Written with the general rules (secret_labels' value near its label,
secret_words' table, secret_shapes' DER keys and dotted prefixes); each fails on the code before.
"""

from __future__ import annotations

import base64
import string

import pytest

from secret_probe import ALNUM, HEX, Draw, found, refused

B64 = ALNUM + "+/"
PWCHARS = ALNUM + "!#%&*+^_"
_DRAW = Draw(4242)
r, _RNG = _DRAW.r, _DRAW.rng


def pw() -> str:
    """A person's password: letters, a digit and a symbol."""
    return r(9, ALNUM) + _RNG.choice("!#%&*+^") + r(3, string.digits)


# --- a random value near a credential word, in any syntax -----------------------------------

_SYNTAXES = (
    'os.Setenv("BILLING_SIGNING_SECRET", "{tok}")',
    '#define UPLINK_TOKEN "{tok}"',
    "UPLOAD_TOKEN ?= {tok}",
    "ENV ARTIFACT_TOKEN {tok}",
    'local cfg = {{ host = "q1", api_token = "{tok}" }}',
    '#{{user => "etl", secret => "{tok}"}}',
    "ledgerctl login {tok}",
    "Here's the signing secret Ana sent over {tok} -- rotate it after the demo",
    "the new access token for the mirror, it is {tok}.",
    'Vendor.builder().apiSecret("{tok}").build()',
    "{tok} (that's the api secret for staging)",
    "the grafana admin key:\n```\nclient = connect('eu-1', '{tok}')\n```",
    "can you send me the staging api token?\nsure\n{tok}",
)


@pytest.mark.parametrize("template", _SYNTAXES)
def test_a_random_value_near_a_credential_word_in_any_syntax(template: str) -> None:
    for _ in range(5):
        text = template.format(tok=r(_RNG.randrange(24, 48)))
        assert found(text), text


@pytest.mark.parametrize("template", (
    "CREATE USER MAPPING FOR etl SERVER old OPTIONS (user 'etl', password '{pw}');",
    "expect \"password:\"\nsend \"{pw}\\r\"",
    "> can you send me the router admin pw\n> sure: {pw}",
    "mirror: deploy / {pw}",
    "spring.mail.password=${{MAIL_PW:{pw}}}",
))
def test_a_password_near_its_word_or_user(template: str) -> None:
    for _ in range(5):
        text = template.format(pw=pw())
        assert found(text), text


_WORDS = (
    ("Italian", "La password del router è {pw}"),
    ("Greek", "Ο κωδικός πρόσβασης είναι {pw}"),
    ("Persian", "رمز عبور سرور: {pw}"),
    ("Bengali", "সার্ভারের পাসওয়ার্ড: {pw}"),
    ("Hungarian", "A szerver jelszava: {pw}"),
    ("Arabic", "الرمز السري للخادم: {pw}"),
    ("Ukrainian", "Ключ API для білінгу: {tok}"),
    ("Spanish", "La clave de la API de pagos es {tok}"),
    ("German", "API-Schlüssel für das Staging: {tok}"),
    ("French", "Clé secrète du webhook : {tok}"),
    ("Portuguese", "Chave de acesso do bucket: {tok}"),
    ("Polish", "Klucz API do płatności: {tok}"),
    ("Dutch", "De API-sleutel voor facturatie is {tok}"),
    ("Russian", "Токен бота: {tok}"),
    ("Turkish", "API anahtarı: {tok}"),
    ("Vietnamese", "Khóa API thanh toán: {tok}"),
    ("Japanese", "本番のトークン：{tok}"),
    ("Chinese", "生产环境的访问密钥为{tok}，请勿外传"),
    ("Greek, a capital first", "Μυστικό: {tok}"),  # (Μ folds to M, μ does not: the table reads both)
    ("Romanian", "Cheia API: {tok}"),
    ("Georgian", "სერვერის პაროლი: {pw}"),
    ("Swedish", "API-nyckel: {tok}"),
)


@pytest.mark.parametrize(("language", "template"), _WORDS)
def test_a_credential_word_in_other_languages(language: str, template: str) -> None:
    for _ in range(3):
        text = template.format(pw=pw(), tok=r(40))
        assert found(text), (language, text)


_LOOK_ALIKES = (
    "The token refresh bug was fixed in commit {hex40}.",
    "secret-rotation.sh sha256: {hex64}",
    "KMS key id: {uuid}",
    "session id in the logs was {uuid}, the user says the token had expired",
    "etag: \"{hex32}\" (cache key for the token endpoint)",
    "auth failed, request id req_{tok}",
    "deploy key funded the contract, tx 0x{hex64}",
    "encrypt backups to the team recipient: age1{bech}",
    "ENCRYPTED_DB_PASSWORD=AQICAH{b64}",
    "the state param was {tok} and the token exchange failed",
    "{hex40} (HEAD -> main) fix token refresh",
    "Password rules: at least 12 characters, e.g. {pw} is too short",
    "key visual: ![logo](data:image/png;base64,iVBORw0KGgo{b64})",
    "verify_token=\"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9\"",
    "if isinstance(private_key, ed25519.Ed25519PrivateKey):",
    "_BARE_TOKEN = r\"[A-Za-z0-9_+/=.~!-]+\"",
    'secret_key: "${{SECRET_KEY:?missing}}"',
    "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  {digits}",
    "refund failed for cus_{tok} / pi_{tok}",
    'deploy key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{b64} ci@build',
    '{{"type": "PaymentVerificationKeyShelley_ed25519", "description": "Payment Verification Key", "cborHex": "5820{hex64}"}}',
)


@pytest.mark.parametrize("template", _LOOK_ALIKES)
def test_ids_digests_ciphertext_and_public_keys_near_a_credential_word_pass(template: str) -> None:
    for _ in range(5):
        text = template.format(hex32=r(32, HEX), hex40=r(40, HEX), hex64=r(64, HEX), tok=r(24),
                               uuid="-".join(r(n, HEX) for n in (8, 4, 4, 4, 12)), b64=r(60, B64),
                               bech=r(58, "qpzry9x8gf2tvdw0s3jn54khce6mua7l"), pw=pw(), digits=r(64, string.digits))
        assert not found(text), text


# --- key material and vendor tokens by their general shape ------------------------------------

_RSA_PKCS1 = b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00"
_PKCS8 = b"\x30\x82\x04\xbe\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x04\x82\x04\xa8"
_EC_SEC1 = b"\x30\x77\x02\x01\x01\x04\x20"
_ED25519_PKCS8 = b"\x30\x2e\x02\x01\x00\x30\x05\x06\x03\x2b\x65\x70\x04\x22\x04\x20"
_CERT = b"\x30\x82\x03\x77\x30\x82\x02\x5f\xa0\x03\x02\x01\x02\x02\x04"
_SPKI = b"\x30\x82\x01\x22\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x03\x82\x01\x0f\x00"


def _der(head: bytes, n: int) -> str:
    return base64.b64encode(head + bytes(_RNG.randrange(256) for _ in range(n))).decode()


def test_an_unarmoured_private_key_is_known_by_its_asn1_start() -> None:
    for head, n in ((_RSA_PKCS1, 600), (_PKCS8, 600), (_EC_SEC1, 100), (_ED25519_PKCS8, 32)):
        body = _der(head, n)
        wrapped = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
        for text in (f"the key, armour lost in the paste:\n{wrapped}", f'{{"type": "svc", "key": "{body}"}}'):
            assert found(text), text[:80]
    for head in (_CERT, _SPKI):  # a certificate and a public key start with a SEQUENCE, not a version
        body = _der(head, 300)
        assert not found(f"tls.crt: {body}"), body[:40]
        assert not found("\n".join(body[i:i + 64] for i in range(0, len(body), 64)))


def test_vendor_tokens_by_their_general_shape() -> None:
    for _ in range(5):
        for text in (f"DROPBOX_ACCESS=sl.{r(130, ALNUM + '-_')}", f"use relay.v2.{r(48)} for the sandbox",
                     f"sk.{r(60)}.{r(22)}", f"NODE-SECRET-KEY-1{r(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}"):
            assert found(text), text
    for text in (f"bundle main.{r(20, HEX)}.js", "see docs.python.org/3/library/secrets.html",
                 f"dist/assets/index.{r(8)}.js", "config.settings.database.connection_pool_size = 20"):
        assert not found(text), text


def test_the_general_rules_hold_through_the_write_gate() -> None:
    """API, CLI and MCP writes share check_write: a value near its word in another language is
    refused there, and a commit id beside a credential word is stored."""
    assert refused(f"Токен бота: {r(40)}")
    assert refused(r(40), description="Ledger production signing secret")
    assert not refused(f"The token refresh bug was fixed in commit {r(40, HEX)}.")


def test_lists_of_credentials_default_accounts_and_grouped_licence_keys() -> None:
    for _ in range(5):
        # a licence key's groups mix letters and digits (Microsoft's, JetBrains', Sublime's)
        grouped = "-".join(r(3, string.ascii_uppercase) + r(2, string.digits) for _ in range(5))
        for text in (f"api_tokens:\n  - {r(32)}\n  - {r(32)}", f"API keys: {r(32)}, {r(32)}",
                     f"passwords for the lab boxes: {pw()} and {pw()}", f"root:{pw()}", f"admin:{pw()} on the router",
                     f"license: {grouped}", f"serial key {grouped}"):
            assert found(text), text
    for text in ("max_tokens: 4096", "tokens: 128000 used", "license: MIT", "license: Apache-2.0",
                 "License: BSD-3-Clause-Open-MPI", "serial number 5CG1234XYZ",
                 "keys: [id, name, created_at]", "serial: /dev/ttyUSB0", "primary keys: user_id, org_id",
                 "root:x:0:0:root:/root:/bin/bash", "secrets: inherit", "passwords: hashed with argon2id",
                 "Windows KMS client key (published): W269N-WFGWX-YVC9B-4J6C9-T83GX",
                 '{"keys": [{"kty": "RSA", "kid": "k1", "n": "' + r(342, ALNUM + "-_") + '", "e": "AQAB"}]}'):
        assert not found(text), text


def test_a_password_piped_into_a_command_that_reads_it() -> None:
    for _ in range(5):
        for text in (f"echo {pw()} | docker login -u ci --password-stdin", f"echo '{pw()}' | sudo -S apt update",
                     f"echo 'ops:{pw()}' | chpasswd"):
            assert found(text), text
    for text in ('echo "$TOKEN" | docker login --password-stdin', "echo hello | grep h",
                 "echo $CR_PAT | docker login ghcr.io -u me --password-stdin"):
        assert not found(text), text


# --- what is written where a secret is not: a hash, a ciphertext, a public point, a default, an id ---

def _ec_point(compressed: bool = False) -> bytes:
    x = bytes(_RNG.randrange(256) for _ in range(32))
    return bytes([_RNG.choice((2, 3))]) + x if compressed else b"\x04" + x + bytes(_RNG.randrange(256) for _ in range(32))


def test_stored_hashes_ciphertext_public_points_stated_defaults_and_key_ids_pass() -> None:
    for _ in range(5):
        salt, digest = r(22, ALNUM), base64.b64encode(bytes(_RNG.randrange(256) for _ in range(32))).decode()
        point = base64.urlsafe_b64encode(_ec_point()).decode().rstrip("=")
        for text in (
            # a password's stored hash, in the formats frameworks and servers keep
            f"seed_users.yaml:\n  - login: ops\n    password: pbkdf2_sha512$600000${salt}${digest}",
            f"ADMIN_PASSWORD='pbkdf2:sha256:1000000${salt}${r(64, HEX)}'",
            f'pooler auth file, the passwords kept as verifiers:\n"maria" "SCRAM-SHA-256$4096:{r(24, B64)}==${digest}:{digest}"',
            f"password = 'argon2$argon2id$v=19$m=102400,t=2,p=8${salt}${r(43, ALNUM)}'",
            f"db password: md5{r(32, HEX)}",
            # ciphertext named by its own prefix
            f'MAILER_TOKEN="encrypted:{r(120, B64)}="',
            f"api_secret: ENC[AES256_GCM,data:{r(48, B64)}=,iv:{r(22, B64)}=,tag:{r(22, B64)}==,type:str]",
            f"SIGNING_SECRET=vault:v2:{r(60, B64)}", f"api_token: ENC[AES256_GCM,data:{r(48, B64)}=,type:str]",
            # an elliptic-curve public key by its shape, near a key's word
            f"pushKey: b64uToUint8Array('{point}')", f"webpush signing public key {point}", f"serverKey = '{point}'",
            f"wallet key {_ec_point(compressed=True).hex()}",
            f"node key: 04{r(128, HEX)}",
            # a vendor's default, said to be one
            "Defaults for the throwaway broker (from its docs):\nBROKER_USER=guestuser\nBROKER_PASSWORD=guestuser",
            # a key's id after a flag, the key itself in a file
            f"notarytool submit App.zip --key ~/keys/AuthKey.p8 --apiKey {r(10, string.ascii_uppercase + string.digits)}",
        ):
            assert not found(text), text
        # the same places with the secret itself are still found
        for text in (f"seed_users.yaml:\n  - login: ops\n    password: {pw()}", f'MAILER_TOKEN="{r(48)}"',
                     f"pushKey: '{r(43, ALNUM + '-_')}'", f"node key: {r(64, HEX)}",
                     "BROKER_USER=ops\nBROKER_PASSWORD=guestuserfromhell",
                     "Changed the broker's default login:\nBROKER_USER=guestuser\nBROKER_PASSWORD=sunflowerhorizon",
                     f"notarytool submit App.zip --apiKey {r(32)}"):
            assert found(text), text


def test_a_random_value_with_a_dot_in_it_is_no_dotted_reference() -> None:
    for _ in range(5):
        # random parts with digits spread through them: no attribute's name could be them
        value = f"{r(3, string.ascii_letters)}{r(1, string.digits)}.{r(6, string.ascii_letters)}{r(1, string.digits)}{r(4, string.ascii_letters)}" \
                f"{r(1, string.digits)}{r(3, string.ascii_lowercase)}{r(1, string.digits)}{r(2, string.ascii_letters)}"
        for text in (f"[profile ops]\nregion=ap-south-1\npassphrase={value}\n", f"db_password: {value}"):
            assert found(text), text
    for text in ("password = settings.DB_PASSWORD", "token = self.apiToken2"):
        assert not found(text), text
