"""The classes blind29's blind corpus (``bench/data/secrets_heldout29.py``) found the gate missing,
and the look-alikes it refused, each beside what must pass in its place (issue 23 item 5). Values
are drawn from one seeded generator; none is the corpus's string. One table: (id, body, refused?).

- Prose in more languages: "is" as Latvian, Lithuanian, Welsh, Irish and Bulgarian write it, the
  owner's words of Afrikaans and Bulgarian ("vir die bediener", "за сървъра"); the words of Irish,
  Amharic and Mongolian, Armenian's and Kazakh's endings and Armenian's comma as a sign; German
  compounds that name an access key ("Zugangsschlüssel").
- Names: a dotted path longer than any one name (NixOS's ``...interfaces.wg0.privateKey``) is
  named by its last parts; SSSD's ``authtok``, Yarn's ``npmAuthIdent``; SNMP's community string.
- Places: a value ``echo``'d to a password's reader (``--password-stdin``, ``(echo X; echo X) |
  smbpasswd``, ``> vault_pass.txt``) counts as a person's words and number too; XML that names
  the value in a sibling element (Hadoop's ``<name>..secret.key</name><value>X</value>``, KeePass's
  ``<Key>Password</Key><Value>X</Value>``); a signing call's key literal (``jwt.sign(p, 'X')``);
  an app password in groups of letters and digits; Rancher's ``token-xxxxx:<54>``. (blind29's
  rule for a UUID straight after a token's word, "upload token <uuid>", is gone: gate30 found it
  refusing idempotency, cursor and correlation tokens, which are ids.)
- Look-alikes that were refused: a search-only key and a CI cache key ("Cache restored from key:"),
  a PNG's base64 cut short, WireGuard's ``peer:`` (a public key), a certificate's hex ``serial=``,
  the TOTP seed every tutorial uses.
- Look-alikes blind29 began to refuse (gate30's review): Italian's and Portuguese's "e" (and) read
  as Bulgarian's "е" (is), ids in a UUID after "token", a signing call's payload and options read
  as its key, ``(echo X; date) | tool`` read as a pipe of a password.
"""

from __future__ import annotations

import base64

import pytest

from secret_probe import Draw, uuid4
from vault_mem.model.policy import check_write
from vault_mem.model.secret_fields import table_cells
from vault_mem.model.secrets import find_secrets
from vault_mem.errors import SecretError

_D = Draw(20261205_29)
_RNG = _D.rng
_TITLES = ["Thistle", "Marten", "Cobble", "Larch", "Wren", "Juniper", "Sorrel", "Pewter", "Bracken", "Alder"]


def _made() -> str:
    """A person's password: a capitalised word, a joint, a word, digits and a symbol (``Wren-larch44!``)."""
    a, b = _RNG.sample(_TITLES, 2)
    return f"{a}{_RNG.choice('_-.')}{b.lower()}{_RNG.randrange(10, 999)}{_RNG.choice('!#%&*')}"


def _plain() -> str:
    """A person's lower-case words and a number (``larchwren52``)."""
    a, b = _RNG.sample(_TITLES, 2)
    return f"{a.lower()}{b.lower()}{_RNG.randrange(10, 9999)}"


def _dotted() -> str:
    """Lower-case words joined by a dot and a number (``larch.wren52``)."""
    a, b = _RNG.sample(_TITLES, 2)
    return f"{a.lower()}.{b.lower()}{_RNG.randrange(10, 99)}"


def _hex(n: int) -> str:
    return _D.r(n, "0123456789abcdef")


def refused(body: str, meta: dict | None = None) -> bool:
    try:
        check_write(key="probe", description="notes", body=body, meta=meta or {})
    except SecretError:
        return True
    return False


def _languages() -> list[tuple[str, str, bool]]:
    return [
        ("bulgarian-e", f"Паролата за сървъра е {_made()}", True),
        ("latvian-ir", f"Servera parole ir {_made()}", True),
        ("welsh-yw", f"Y cyfrinair yw {_made()}", True),
        ("irish-na", f"Is é an pasfhocal ná {_made()}", True),
        ("afrikaans-vir-die", f"Die wagwoord vir die bediener is {_made()}", True),
        ("armenian-ending-comma", f"Սերվերի գաղտնաբառը՝ {_made()}", True),
        ("kazakh-ending", f"Сервердің құпия сөзі: {_made()}", True),
        ("amharic", f"የአገልጋዩ የይለፍ ቃል {_made()} ነው", True),
        ("mongolian", f"Серверийн нууц үг: {_made()}", True),
        ("german-compound-key", f"Der Zugangsschlüssel für die API lautet {_D.r(40)}", True),
        # what must pass in their place
        ("latvian-policy", "Servera parole ir jāmaina ik pēc 90 dienām", False),
        ("bulgarian-policy", "Паролата за сървъра е в трезора", False),
        ("german-compound-house", "Der Hausschlüssel liegt unter der Matte", False),
        ("welsh-policy", "Y cyfrinair yw'r un yn y gladdgell", False),
    ]


def _names() -> list[tuple[str, str, bool]]:
    wg = base64.b64encode(bytes(_RNG.getrandbits(8) for _ in range(32))).decode()
    return [
        ("long-dotted-name", f'networking.wireguard.interfaces.wg0.privateKey = "{wg}";', True),
        ("long-dotted-password", f'services.grafana.settings.security.admin_password = "{_made()}";', True),
        ("sssd-authtok", f"[domain/corp]\nldap_default_authtok = {_plain()}", True),
        ("yarn-auth-ident", f'npmAuthIdent: "build:{_made()}"', True),
        ("snmp-community-prose", f"the SNMP community string is {_D.r(10)} (RW)", True),
        ("snmp-community-setting", f"snmp_community: {_D.r(10)}", True),
        # what must pass in their place
        ("long-dotted-reference", "networking.wireguard.interfaces.wg0.privateKeyFile = /run/keys/wg0;", False),
        ("sssd-authtok-type", "ldap_default_authtok_type = password", False),
        ("snmp-community-public", "most printers still answer on the default SNMP community string public", False),
        ("snmp-community-policy", "set the community string to something long, then move to v3", False),
    ]


def _places() -> list[tuple[str, str, bool]]:
    return [
        ("echo-password-stdin", f"echo '{_dotted()}@' | docker login --username ops --password-stdin quay.io", True),
        ("echo-group-smbpasswd", f"(echo {_plain()}; echo {_plain()}) | smbpasswd -s -a jdoe", True),
        ("echo-to-pass-file", f"echo '{_dotted()}$' > ~/.ansible/vault_pass.txt", True),
        ("xml-hadoop-property", f"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>{_D.r(40)}</value>\n</property>", True),
        ("xml-hive-password", "<property>\n  <name>javax.jdo.option.ConnectionPassword</name>\n"
                              f"  <value>{_plain()}</value>\n</property>", True),
        ("xml-keepass-pair", f"<String><Key>Password</Key><Value>{_made()}</Value></String>", True),
        ("jwt-sign-literal", f"const t = jwt.sign({{ sub: u.id }}, '{_D.r(32)}', {{ expiresIn: '1h' }});", True),
        ("pyjwt-encode-literal", f'jwt.encode(payload, "{_D.r(40)}", algorithm="HS256")', True),
        ("hmac-literal", f"crypto.createHmac('sha256', '{_D.r(32)}').update(body)", True),
        ("app-password-alnum", f"app password for the scanner: {' '.join(_D.r(4, 'abcdefghijklmnopqrstuvwxyz0123456789') for _ in range(4))}", True),
        ("rancher-token", f"rancher api bearer token-{_D.r(5, 'abcdefghijklmnopqrstuvwxyz0123456789')}:"
                          f"{_D.r(54, 'abcdefghijklmnopqrstuvwxyz0123456789')}", True),
        # what must pass in their place
        ("echo-not-a-password", "echo 'build finished' | mail -s done ops@corp.example", False),
        ("xml-hadoop-public", "<property><name>fs.defaultFS</name><value>hdfs://nn1.corp:8020</value></property>", False),
        ("xml-keepass-user", "<String><Key>UserName</Key><Value>jdoe</Value></String>", False),
        ("jwt-sign-reference", "const t = jwt.sign(payload, process.env.JWT_SECRET, { algorithm: 'HS256' });", False),
        ("jwt-encode-setting", 'jwt.encode(payload, settings.SECRET_KEY, algorithm="HS256")', False),
        ("uuid-after-invalid-token", f"invalid token {uuid4(_RNG)} in the logs", False),
        ("uuid-after-job", f"job {uuid4(_RNG)} failed at the upload step", False),
        ("uuid-token-revoked", f"token {uuid4(_RNG)} was revoked by the admin", False),
        ("uuid-secret-not-found", f"Secret {uuid4(_RNG)} not found (404)", False),
        ("uuid-bw-get", f"bw get password {uuid4(_RNG)}", False),
        ("app-password-digits", "app password: 2024 1205 (the date we rotated it)", False),
    ]


def _look_alikes() -> list[tuple[str, str, bool]]:
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" + _D.r(21, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    wg = base64.b64encode(bytes(_RNG.getrandbits(8) for _ in range(32))).decode()
    return [
        ("search-only-key", f"algolia app id {_D.r(10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')} and the search-only key {_hex(32)}", False),
        ("cache-restored-from-key", f"Cache restored from key: Linux-pip-{_hex(64)}", False),
        ("cache-saved-with-key", f"Cache saved with key: node-modules-{_hex(64)}", False),
        ("restored-cache-from-key", f"restored cache from key: v1-deps-{_hex(32)}", False),
        ("png-base64-cut-short", f'PNG_1PX = "{png}"', False),
        ("wg-show-peer", f"peer: {wg}\n  endpoint: 203.0.113.7:51820\n  latest handshake: 42 seconds ago", False),
        ("cert-serial-hex", f"notAfter=Mar  4 12:00:00 2027 GMT\nserial={_hex(32).upper()}", False),
        ("totp-tutorial-seed", "otpauth://totp/Example:alice@example.com?secret=" + "JBSWY3DP" + "EHPK3PXP&issuer=Example", False),
        # what must still be refused in their place
        ("restored-secret-key", f"secret restored from key: {_D.r(40)}", True),
        ("serial-licence-key", f"serial: {'-'.join(_D.r(5, 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789') for _ in range(5))}", True),
        ("wg-private-key", f"PrivateKey = {wg}", True),
        ("totp-real-seed", f"otpauth://totp/Corp:jdoe?secret={_D.r(32, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}&issuer=Corp", True),
    ]


def _reviewer30() -> list[tuple[str, str, bool]]:
    """Developer notes blind29 began to refuse (a reviewer's, gate30): Italian's and Portuguese's
    "e" (and) read as Bulgarian's "е" (is), a UUID after a token's word that names an id, a signing
    call's payload or options read as its key, and a `;` after `echo` read as a pipe."""
    d = Draw(20261205_30)
    u = lambda: uuid4(d.rng)  # noqa: E731
    return [
        ("it-password-and", "Serve la password e Nginx2 va riavviato", False),
        ("it-utente-password-and", "Configurare utente e password e Postgres15 nel file .env", False),
        ("pt-senha-and", "A senha e Redis7cache sao configuradas pelo Ansible", False),
        ("pt-token-and", "Gerar o token e Deploy42x roda no CI", False),
        ("it-chiave-and", "Ruota la chiave e Vault2026 la salva", False),
        ("it-secret-and", "Il secret e MyApp2026 sono nel namespace prod", False),
        ("it-password-and-jenkins", "Cambiare la password e Jenkins2026 riparte da solo", False),
        ("uuid-idempotency-token", f"Stripe idempotency token {u()}", False),
        ("uuid-continuation-token", f"Retry with the same continuation token {u()}", False),
        ("uuid-cursor-token", f"The pagination cursor token {u()}.", False),
        ("uuid-correlation-token", f"The correlation token {u()}", False),
        ("uuid-resume-token", f"Resume token {u()}, then call /next", False),
        ("uuid-vault-lease", f"Vault lease for secret {u()}", False),
        ("uuid-oidc-token", f"GitHub Actions OIDC token {u()}; audience sts.amazonaws.com", False),
        ("uuid-session-trace", f"Trace: session token {u()} (see logs)", False),
        ("jwt-sign-payload-id", "jwt.sign({ sub: 'usr_2x8KqLmN4pQ7rT9v' }, process.env.JWT_SECRET)", False),
        ("jwt-sign-payload-fields", "jwt.sign({ userId: 'u_9fK2mQ7xLp3Zr8Tn', role: 'admin' }, key)", False),
        ("pyjwt-payload-sub", "jwt.encode({'sub': 'a7Fk29QpLx0Zr8Wm'}, settings.SECRET_KEY, algorithm='HS256')", False),
        ("ruby-jwt-kid-option", "JWT.encode(payload, ENV['HMAC_SECRET'], 'HS256', { kid: 'k2026Q4rotation' })", False),
        ("echo-semicolon-group-not-read", "(echo startjob42; date) | ./tool --api-key-file k", False),
        # what must still be refused in their place
        ("jwt-sign-key-after-payload-id", f"jwt.sign({{ sub: 'usr_2x8KqLmN4pQ7rT9v' }}, '{d.r(32)}')", True),
        ("pyjwt-key-beside-payload", f"jwt.encode({{'sub': 'a7Fk29QpLx0Zr8Wm'}}, '{d.r(40)}', algorithm='HS256')", True),
        ("hmac-new-key", f'hmac.new(b"{d.r(32)}", msg, hashlib.sha256)', True),
        ("pyjwt-key-keyword", f"jwt.encode({{'sub': 'a7Fk29QpLx0Zr8Wm'}}, key='{d.r(40)}', algorithm='HS256')", True),
        ("it-password-is", f"la password è {_made()}", True),
    ]


CASES = _languages() + _names() + _places() + _look_alikes() + _reviewer30()


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_blind29_classes(body: str, expected: bool) -> None:
    assert refused(body) == expected, body


# --- hostile input completes ---------------------------------------------------------------------

_SIZE = 200 * 1024


@pytest.mark.parametrize("text", [
    "jwt.sign(" * (_SIZE // 9),  # signing calls with no literal
    "jwt.sign('aaaaaaaa', " * (_SIZE // 21),  # and with one literal each, never closed
    "<Key>Password</Key>" * (_SIZE // 19),  # names with no value
    "(echo a; " * (_SIZE // 9),  # groups with no pipe
    "token " * (_SIZE // 6),  # token words with no UUID
    "a." * (_SIZE // 2),  # a dotted path as long as the text
])
def test_a_text_made_of_blind29s_markers_completes(text: str) -> None:
    find_secrets(text[:_SIZE])  # completing is the point (each read stays within a reach)


# --- blind30's classes (bench/data/secrets_heldout30.py) ------------------------------------------
# What blind30's blind corpus found, each class beside what must pass in its place; values drawn
# here, none the corpus's string:
# - SQL's `GRANT ... TO user IDENTIFIED BY 'X'` (MySQL 5, Oracle) makes the user as it grants;
# - JSON or code quoted inside a string (`"{\"password\": \"X\"}"`): its escaped quotes read as quotes;
# - a settings table's row (`| DB_PASSWORD | X |`): the cell beside a credential's name is its value;
# - a person's word and number right after "password" with no sign, ending the sentence;
# - Tor's onion-service key file (its header and key, or the whole file in base64);
# - a value echoed into a subcommand that stores a secret (`| wrangler secret put NAME`);
# - what a secret-printing command printed on the line below it, with no prompt before it
#   (`security find-generic-password -w`, `gh auth token`);
# - 64 hex after a wallet's name and a sign where the words name a key or an export (an Ethereum
#   account's private key), unless the words between name a transaction, a hash or a block;
# - Zapier's catch hook and Braintree's access token (provider rows);
# - look-alikes refused on main: a MAC address after an interface's name ("wlan0"), a test
#   vector's counting bytes after "key", twelve list words under a sentence that says what they
#   are for ("Words for the spelling game:").

_D30 = Draw(20261205_30)


def _made30() -> str:
    a, b = _D30.rng.sample(_TITLES, 2)
    return f"{a}{_D30.rng.choice('_-.')}{b.lower()}{_D30.rng.randrange(10, 999)}{_D30.rng.choice('!#%&*')}"


def _plain30() -> str:
    a, b = _D30.rng.sample(_TITLES, 2)
    return f"{a.lower()}{b.lower()}{_D30.rng.randrange(1000, 9999)}"


def _blind30() -> list[tuple[str, str, bool]]:
    d = _D30
    tor_file = base64.b64encode(b"== ed25519v1-secret: type0 ==\x00\x00\x00" + bytes(d.rng.getrandbits(8) for _ in range(64))).decode()
    tor_key = base64.b64encode(bytes(d.rng.getrandbits(8) for _ in range(64))).decode()
    mac = ":".join(d.r(2, "0123456789abcdef") for _ in range(6))
    return [
        ("sql-grant-identified-by", f"GRANT SELECT ON shop.* TO 'report'@'%' IDENTIFIED BY '{_plain30()}';", True),
        ("sql-grant-oracle", f"grant connect, resource to etl identified by {_made30()};", True),
        ("sql-grant-no-password", "GRANT SELECT ON shop.* TO 'report'@'%';", False),
        ("escaped-json-password", '"{\\"user\\": \\"svc\\", \\"password\\": \\"' + _made30() + '\\"}"', True),
        ("escaped-json-api-key", 'payload = "{\\"api_key\\": \\"' + d.r(36) + '\\"}"', True),
        ("escaped-json-format-field", 'log.info("{\\"user\\": \\"%s\\", \\"password\\": \\"%s\\"}")', False),
        ("settings-table-password-row", f"| name | value |\n|---|---|\n| DB_HOST | db.internal |\n| DB_PASSWORD | {_made30()} |", True),
        ("settings-table-token-row", f"| setting | value |\n|--|--|\n| api_token | `{d.r(40)}` |", True),
        ("settings-table-describes-names", "| variable | meaning |\n|---|---|\n| DB_PASSWORD | the database password |\n"
                                           "| API_KEY | required |\n| SECRET_KEY | `${SECRET_KEY}` |", False),
        ("settings-table-placeholder-row", "| key | value |\n|---|---|\n| api_key | <from 1Password> |\n| password | sk-... |", False),
        ("password-word-number-no-sign", f"Guest wifi, password {_plain30()}", True),
        ("password-word-number-title", f"# Wifi password {_plain30()}\n\nFor visitors.", True),
        ("password-modifier-goes-on", f"see the password reset{d.rng.randrange(1000, 9999)} flow in the runbook", False),
        ("tor-key-header-and-body", f"== ed25519v1-secret: type0 ==\n{tor_key}", True),
        ("tor-key-file-base64", f"base64 hs_ed25519_secret_key:\n{tor_file}", True),
        ("tor-key-header-talk", "The key file starts with == ed25519v1-secret: type0 == and then 64 bytes.", False),
        ("echo-into-secret-put", f"echo '{d.r(40)}' | npx wrangler secret put API_TOKEN", True),
        ("printf-into-docker-secret", f"printf {d.r(24)} | docker secret create db_pw -", True),
        ("echo-variable-into-secret-put", "echo $API_TOKEN | npx wrangler secret put API_TOKEN", False),
        ("keychain-output-below", f"security find-generic-password -s 'acme-api' -w\n{d.r(40)}", True),
        ("command-output-not-secret", "gcloud config get-value project\nacme-prod-4821", False),
        ("zapier-catch-hook", f"https://hooks.zapier.com/hooks/catch/{d.r(7, '0123456789')}/{d.r(4, 'abcdefghijklmnopqrstuvwxyz')}{d.rng.randrange(10, 99)}x/", True),
        ("braintree-access-token", f"access_token$production${d.r(16, 'abcdefghijklmnopqrstuvwxyz0123456789')}${_hex(32)}", True),
        ("mac-after-interface", f"eth0 {mac} wlan0 {':'.join(d.r(2, '0123456789abcdef') for _ in range(6))}", False),
        ("mac-after-wifi-key-word", f"wifi adapter address: {mac}", False),
        ("counting-bytes-test-key", "FIPS-197 AES-128 example key 000102030405060708090a0b0c0d0e0f, plaintext 00112233445566778899aabbccddeeff", False),
        ("random-hex-key-still-refused", f"AES key {_hex(32)}", True),
        ("wallet-export-hex-key", f"exported from MetaMask for the test wallet: 0x{_hex(64)}", True),
        ("wallet-tx-hash", f"wallet funding tx hash: 0x{_hex(64)}", False),
        ("wallet-funded-no-key-word", f"Funded the wallet: 0x{_hex(64)} (etherscan)", False),
        ("words-named-for-a-game", "Words for the spelling game: apple banana cherry bridge castle dragon eagle forest garden harbor island jungle", False),
        ("words-label-alone-still-refused", "12 words:\napple banana cherry bridge castle dragon eagle forest garden harbor island jungle", True),
    ]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in _blind30()], ids=[c[0] for c in _blind30()])
def test_blind30_classes(body: str, expected: bool) -> None:
    assert refused(body) == expected, body


# --- blind30's rules as the reviewer read them (mendsec) ------------------------------------------
# - a wallet's 64 hex is its private key only where the value's own clause names the private key
#   (private / secret key, priv) or its export; a public key, a pubkey, an event's topic, a salt,
#   a storage slot, a transaction or a hash is 64 hex too, "key" alone says nothing, and an
#   "Exported" in the sentence before is not this value's;
# - a value on the line below a command with no prompt counts only under a command that prints a
#   secret (a keychain's or a password manager's read, `gh auth token`), whatever its shape there;
#   a digest's hex below a command that says it prints one (`--query ETag`, `md5sum`) is a digest;
# - a table row's cells are found where the row was split (a search found an earlier cell holding
#   the same text, and scanned a wide row once per cell).

_DM = Draw(20261205_31)


def _hexm(n: int) -> str:
    return _DM.r(n, "0123456789abcdef")


def _mendsec() -> list[tuple[str, str, bool]]:
    d = _DM
    return [
        ("wallet-public-key", f"Taproot wallet public key: {_hexm(64)}", False),
        ("wallet-pubkey-sign", f"The wallet pubkey = 0x{_hexm(64)}", False),
        ("wallet-export-in-sentence-before", f"Exported the payments CSV. Refund wallet: 0x{_hexm(64)}", False),
        ("wallet-event-topic-key-word", f"Wallet event topic for key rotation: 0x{_hexm(64)}", False),
        ("wallet-storage-slot", f"Wallet proxy storage slot, exported from the explorer: 0x{_hexm(64)}", False),
        ("wallet-salt", f"CREATE2 salt for the private wallet = 0x{_hexm(64)}", False),
        ("wallet-exported-public-key", f"exported the wallet's public key: 0x{_hexm(64)}", False),
        ("wallet-export-hex-key", f"metamask export for the test wallet: 0x{_hexm(64)}", True),
        ("wallet-exported-from-metamask", f"exported from MetaMask for the test wallet: 0x{_hexm(64)}", True),
        ("wallet-private-key-is", f"MetaMask private key is {_hexm(64)}", True),
        ("wallet-priv", f"deployer wallet priv: {_hexm(64)}", True),
        ("wallet-secret-key-sign", f"test wallet secret key = 0x{_hexm(64)}", True),
        ("wallet-private-key-code", f'const wallet = {{ privateKey: "0x{_hexm(64)}" }}', True),
        ("etag-below-aws-command", "aws s3api head-object --bucket b --key k --query ETag --output text\n"
                                   "d41d8cd98f00b204e9800998ecf8427e", False),
        ("etag-below-prompted-aws-command", f"$ aws s3api head-object --bucket logs --key app/key.gz --query ETag --output text\n"
                                            f'"{_hexm(32)}"', False),
        ("md5-below-md5sum", f"$ md5sum deploy.key\n{_hexm(32)}", False),
        ("sha-below-git-command", f"git rev-parse HEAD  # the signing key's commit\n{_hexm(40)}", False),
        ("hex-below-gcloud-describe", f"gcloud kms keys versions describe 1 --key k --format 'value(name)'\n{_hexm(32)}", False),
        ("keychain-hex-below", f"security find-generic-password -s 'acme-api' -w\n{_hexm(32)}", True),
        ("keychain-sha-shaped-below", f"security find-generic-password -a ci -s registry -w\n{_hexm(40)}", True),
        ("op-read-below", f"op read op://Private/Stripe/credential\n{d.r(32)}", True),
        ("pass-show-below", f"pass show work/db-password\n{_made30()}{d.r(8)}", True),
        ("vault-field-below", f"vault kv get -field=password secret/app/db\n{_hexm(32)}", True),
        ("heroku-config-get-below", f"heroku config:get STRIPE_SECRET_KEY -a shop\n{d.r(32)}", True),
        ("aws-configure-get-below", f"aws configure get aws_secret_access_key --profile ci\n{d.r(40, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')}", True),
        ("prompted-pass-show-sha-shaped", f"$ pass show infra/registry-password\n{_hexm(40)}", True),
        ("prompted-random-key-below", f"$ openssl rand -hex 16  # the new api key\n{_hexm(32)}", True),
    ]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in _mendsec()], ids=[c[0] for c in _mendsec()])
def test_blind30_rules_reviewed(body: str, expected: bool) -> None:
    assert refused(body) == expected, body


def test_a_table_cell_is_found_where_the_row_was_split() -> None:
    value = "Tq8vLm2Rw9Xz"
    for text in (f"| note | password |\n|---|---|\n| was {value} until May | {value} |",
                 f"| name | value |\n|---|---|\n| DB_PASSWORD was {value} | rotated | DB_PASSWORD | `{value}` |"):
        spans = [(s, e) for _, s, e in table_cells(text, text.lower())]
        assert spans == [(text.rindex(value), text.rindex(value) + len(value))], text


def test_a_wide_table_row_is_read_once() -> None:
    # one row 200 KB wide of a credential's name and a value, values repeating: every span is its own
    # cell (a search along the row found the first cell holding the value, once per cell)
    pool = [_made30() + _DM.r(6) for _ in range(5)]
    pairs = [(" password | ", pool[n % 5]) for n in range(_SIZE // 30)]
    text = "| name | value |\n|---|---|\n|" + "".join(f"{a}{v} |" for a, v in pairs)
    spans = list(table_cells(text, text.lower()))
    assert len(spans) == len(pairs)
    at = text.index("\n|", text.index("---")) + 2
    for (_, start, end), (a, v) in zip(spans, pairs):
        at += len(a)
        assert (start, end) == (at, at + len(v))
        at += len(v) + 2


@pytest.mark.parametrize("text", [
    '\\"' * (_SIZE // 2),  # escaped quotes with nothing between
    '{\\"password\\": \\"' * (_SIZE // 17),  # escaped members never closed
    "| DB_PASSWORD " * (_SIZE // 14),  # one table row of names
    "== ed25519v1-secret: type0 ==" * (_SIZE // 29),  # headers with no key
])
def test_a_text_made_of_blind30s_markers_completes(text: str) -> None:
    find_secrets(text[:_SIZE])
