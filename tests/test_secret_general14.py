"""The secret gate's classes from the twenty-first blind corpus (tuned on heldout21, whose strings none
of these are), one table: each case a memory's description and body, and whether the write policy
must refuse it. Beside each class, the look-alikes that share its place and must pass.

- The secret half of a cloud's AK/SK pair named by its abbreviation (``--sk X``, ``HUAWEICLOUD_SDK_SK=X``,
  ``sk: X``), a random value only; what a key names when it names a record passes under any key's
  name: a ULID, a single-table design's composite key (DynamoDB's ``SK: ORDER#...``).
- A password among the literals of a Go constructor called through its package
  (``gomail.NewDialer(host, port, "user", "X")``, ``minio.New(...)``); ``strings.NewReplacer``,
  ``errors.New``, ``semver.NewVersion`` pass.
- A person's password of a capitalised word, ``#``/``&``/``$``, a word and digits (``Saffron#glade976?``)
  is no identifier: alone in the body under a login the description names, or as a constructor's
  literal; ``String#format`` in prose passes.
- A TOTP seed in pam_google_authenticator's file (the seed, then ``" TOTP_AUTH`` option lines); the
  RFC 6238 test seed in the same layout, and a vimrc's ``"`` comments, pass.

A second pass, on probes written after the blind run (not held out): a TACACS+/RADIUS server's
``key 7``/``key 0`` and Junos' ``set snmp community``; a settings table's row updated by its name
(``SET value = 'X' WHERE key = 'smtp_password'``); and the false-alarm classes those probes found:
a listing's cursor (``next_page_token``, ``NextToken``), an error's name (``InvalidToken:``), the
vendor Auth0, a device's push address (FCM registration, APNs device tokens), a value under its own
name after a credential word (``key=..., plaintext=X``), a setting after a label (``auth ok:
user=dana``), an item's UUID after ``get password``, a label that goes on to name an id ("X (the
signing key id)"), GitHub's ``public-key`` answer, a search-only key. A third pass, the same way: a
credential's word named as a digest's input ("SHA-256 of \"password\" is X", ``HMAC(key="key", ...) =
X``), a YAML tag with an underscore (``!env_var``), a password manager's item after its name
("1Password: \"AWS prod\""), Tailscale's ``nodekey:``, ``hashed_secret``, a shared link's ``rlkey``;
and 1Password's Secret Key by its shape (``A3-`` and six groups).

Values are drawn from one seeded generator (none is an item of a bench corpus).
"""

from __future__ import annotations

import base64
import random

import pytest

from secret_probe import ALNUM, HEX, WORDS, Draw, refused, uuid4

_D = Draw(20261221)
_RNG = _D.rng
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
ALNUM_ = ALNUM + "-_"


def _b64(n: int) -> str:
    return base64.b64encode(bytes(_RNG.randrange(256) for _ in range(n))).decode()


def _uuid() -> str:
    return uuid4(_RNG)


def _ulid() -> str:
    return _RNG.choice("01") + "".join(_RNG.choice(_CROCKFORD) for _ in range(25))


def _person(rng: random.Random) -> str:
    """A person's password: a capitalised word, a symbol, a word, digits and maybe a mark."""
    a, b = rng.sample(WORDS, 2)
    return f"{a.title()}{rng.choice('#&$')}{b}{rng.randrange(10, 999)}{rng.choice(['', '?', '!', '.'])}"


def _seed32(n: int = 32) -> str:
    while True:
        s = "".join(_RNG.choice(_B32) for _ in range(n))
        if 2 <= sum(c.isdigit() for c in s) <= n - 8:
            return s


_REFUSED = True
_PASSES = False

# (case id, description, body, refused?)
CASES: list[tuple[str, str, str, bool]] = [
    # --- the secret half of an AK/SK pair, by its abbreviation
    ("sk-flag", "volcengine CLI", f"volc configure --ak AKLT{_D.r(42)} --sk {_b64(42)}", _REFUSED),
    ("sk-env-suffix", "huawei cloud sdk", f"HUAWEICLOUD_SDK_AK={_D.r(20, _CROCKFORD)}\nHUAWEICLOUD_SDK_SK={_D.r(40)}", _REFUSED),
    ("sk-export", "obs upload job", f'export OBS_SK="{_D.r(40)}"', _REFUSED),
    ("sk-yaml", "baidu bce config", f"bce:\n  ak: {_D.r(32, HEX)}\n  sk: {_D.r(32)}", _REFUSED),
    ("sk-dynamo-composite", "single-table keys", f"PK: USER#{_D.r(6, HEX)}\nSK: ORDER#2026-12-04#{_ulid()}", _PASSES),
    ("sk-dynamo-json", "item shape", f'{{"PK": "TENANT#acme", "SK": "INVOICE#{_ulid()}", "total": 120}}', _PASSES),
    ("sk-ulid", "sort key of the last row", f"sk: {_ulid()}", _PASSES),
    ("ulid-idempotency", "retry header", f"idempotency_key: {_ulid()}", _PASSES),
    ("sk-locale", "translations", "locales:\n  sk: Slovenčina\n  cs: Čeština", _PASSES),
    # --- a Go constructor called through its package
    ("go-dialer", "smtp dialer", f'd := gomail.NewDialer("smtp.{_RNG.choice(WORDS)}.io", 587, "notify@acme.io", "{_person(_RNG)}")', _REFUSED),
    ("go-minio", "minio client", f'c, err := minio.New("s3.lan:9000", "{_D.r(20, _CROCKFORD)}", "{_D.r(40)}", true)', _REFUSED),
    ("go-replacer", "escaping", 's := strings.NewReplacer("<", "&lt;", ">", "&gt;")', _PASSES),
    ("go-errors", "error text", f'return errors.New("cannot open {_RNG.choice(WORDS)}: permission denied")', _PASSES),
    ("go-semver", "version check", f'v := semver.NewVersion("1.{_RNG.randrange(30)}.3-rc.1+build.{_D.r(7, HEX)}")', _PASSES),
    ("go-logger", "logger", 'l := log.New(os.Stderr, "[sync] ", log.LstdFlags|log.Lshortfile)', _PASSES),
    # --- a person's password of a word, a symbol, a word and digits
    ("person-bare", "Grafana admin user: ops-admin", _person(_RNG), _REFUSED),
    ("person-bare-login", "router login (user admin)", _person(_RNG), _REFUSED),
    ("person-javadoc", "formatting notes", "use String#format, or see Parser#parse12 and README#install2", _PASSES),
    ("person-ticket", "jira account for the team", f"OPS-{_RNG.randrange(100, 9999)}", _PASSES),
    # --- a TOTP seed in its authenticator file
    ("seed-file", ".google_authenticator on the bastion",
     f'{_seed32(26)}\n" RATE_LIMIT 3 30\n" WINDOW_SIZE 3\n" TOTP_AUTH\n{_RNG.randrange(10**7, 10**8)}\n{_RNG.randrange(10**7, 10**8)}',
     _REFUSED),
    ("seed-file-hotp", "copied from the old box", f'{_seed32(32)}\n" DISALLOW_REUSE\n" HOTP_COUNTER 1', _REFUSED),
    ("seed-file-rfc", "the RFC 6238 test seed", 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n" TOTP_AUTH', _PASSES),
    ("vimrc", "my vimrc", 'set nocompatible\n" PLUGINS\nPlug \'tpope/vim-fugitive\'\n" KEYS\nnnoremap <leader>w :w<CR>', _PASSES),
    # --- (second pass, probes written after the blind run) network gear's keys and communities
    ("tacacs-key7", "core switch aaa", f"tacacs-server host 10.0.0.5 key 7 {_D.r(18, '0123456789ABCDEF')}", _REFUSED),
    ("radius-key0", "radius on the wlc", f"radius-server key 0 {_D.r(14)}", _REFUSED),
    ("junos-community", "junos snmp", f"set snmp community {_D.r(12)} authorization read-write", _REFUSED),
    ("community-public", "snmp defaults", "set snmp community public authorization read-only", _PASSES),
    ("radius-prose", "wifi auth", "the radius key 7 times out when the controller reboots", _PASSES),
    # --- a settings table's row updated by its name
    ("sql-setting", "mail settings in the db",
     f"UPDATE settings SET value = '{_D.r(32)}' WHERE key = 'smtp_password';", _REFUSED),
    ("sql-option", "wordpress mail", f"update wp_options set option_value = '{_person(_RNG)}' where option_name = 'mailserver_pass';",
     _REFUSED),
    ("sql-setting-flag", "feature flags", "UPDATE settings SET value = 'true' WHERE key = 'password_reset_enabled';", _PASSES),
    ("sql-setting-cache", "cache bust", f"UPDATE config SET value = '{_D.r(32)}' WHERE name = 'cache_version';", _PASSES),
    # --- names that hold no credential: a listing's cursor, an error, Auth0, a device's push address
    ("cursor", "pagination", f'{{"next_page_token": "{_D.r(36)}", "items": []}}', _PASSES),
    ("cursor-aws", "listing", f"NextToken: {_D.r(40)}", _PASSES),
    ("page-token-fb", "Meta page access token", f'FB_PAGE_TOKEN="EAA{_D.r(120)}"', _REFUSED),
    ("error-name", "stack trace",
     f"Traceback (most recent call last):\n  File \"auth.py\", line 88\nacme.errors.InvalidToken: tok_{_ulid()}", _PASSES),
    ("auth0-vendor", "auth0 ids", f"Auth0 tenant acme-prod, connection con_{_D.r(16)}, client id {_D.r(32)}", _PASSES),
    ("fcm-token", "push test", f"FCM registration token from the test device: {_D.r(11)}:APA91b{_D.r(134, ALNUM_)}", _PASSES),
    ("apns-token", "push test", f"APNs device token {_D.r(64, HEX)}", _PASSES),
    ("runner-registration", "gitlab runner", f"runner registration token: {_D.r(24)}", _REFUSED),
    # --- a value owned by another name, a setting, an item's id, a public key's answer
    ("own-name", "AES test vector", f"test vector: key={''.join(f'{i:02x}' for i in range(16))}, plaintext={_D.r(32, HEX)}", _PASSES),
    ("setting-after-label", "sshd log", f"auth ok: user=dana key_fingerprint=SHA256:{_D.r(43)}", _PASSES),
    ("item-id", "bitwarden cli", f"bw get password {_uuid()}", _PASSES),
    ("key-id-after", "jwks", f'kid: "{_D.r(54)}" (the signing key id in the JWKS)', _PASSES),
    ("gh-public-key", "actions secrets key",
     f'gh api repos/acme/api/actions/secrets/public-key -> {{"key_id": "{_RNG.randrange(10**17, 10**18)}", "key": "{_b64(32)}"}}',
     _PASSES),
    ("search-only", "algolia frontend key", f"ALGOLIA_SEARCH_ONLY_KEY={_D.r(32, HEX)}", _PASSES),
    # --- (third pass) a digest's input, a YAML tag, a password manager's item, Tailscale's public keys,
    # a secret's hash by its name, a shared link's key, 1Password's Secret Key by its shape
    ("digest-of", "hash notes", f'SHA-256 of "password" is {_D.r(64, HEX)} (never store it unsalted)', _PASSES),
    ("digest-of-my", "hash notes", f"the md5 of my password is {_D.r(32, HEX)}", _PASSES),
    ("hmac-call", "hmac test", f'HMAC-SHA256(key="key", msg="The quick brown fox") = {_D.r(64, HEX)}', _PASSES),
    ("hash-call-literal", "hashing code", f'sha256(password="{_person(_RNG)}")', _REFUSED),
    ("yaml-env-tag", "home assistant", "password: !env_var DB_PASSWORD", _PASSES),
    ("manager-item", "where the aws key lives", 'AWS_SECRET_ACCESS_KEY=(stored in 1Password: "AWS prod")', _PASSES),
    ("manager-password", "vault login", f"1Password: {_D.r(5)}!{_D.r(8)}", _REFUSED),
    ("tailscale-nodekey", "tailnet", f"laptop 100.101.102.103, node key nodekey:{_D.r(64, HEX)}", _PASSES),
    ("tailscale-privkey", "tailscale state", f"node private key privkey:{_D.r(64, HEX)}", _REFUSED),
    ("hashed-secret", "detect-secrets baseline",
     f'{{"type": "Secret Keyword", "hashed_secret": "{_D.r(40, HEX)}", "line_number": 12}}', _PASSES),
    ("share-link", "the report",
     f"https://www.dropbox.com/scl/fi/{_D.r(21, HEX)}/report.pdf?rlkey={_D.r(25, 'abcdefghijklmnopqrstuvwxyz0123456789')}&dl=0",
     _PASSES),
    ("1p-secret-key", "Emergency Kit",
     "account key A3-" + "-".join(_D.r(n, "ABCDEFGHJKLMNPQRSTVWXYZ23456789") for n in (6, 6, 5, 5, 5, 5)), _REFUSED),
]


@pytest.mark.parametrize(("description", "body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_heldout21_classes(description: str, body: str, expected: bool) -> None:
    assert refused(body, description=description) is expected, (description, body)
