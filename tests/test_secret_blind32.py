"""Classes blind32's corpus (``bench/secrets_corpus_blind32*.py``) found the gate missing, with
examples of their own (not the corpus's), beside look-alikes of each that must still be stored.
One table: (id, body, refused?).

- SNMP's v1/v2c community is its password: a setting named ``community`` alone (snmp_exporter's
  ``auths:``, Telegraf's ``[[inputs.snmp]]``, a poller's YAML) in a text about SNMP, and net-snmp's
  ``com2sec NAME SOURCE COMMUNITY``; SNMP's defaults (``public``) and a forum's or a city's
  community elsewhere are no secret.
- A value handed over after the words that say what it signs in to or unlocks, a colon or an
  arrow between ("to log in to the Jenkins UI: X", "for unlocking the drive -> X"): a drawn value
  or a person's password counts; a URL, a name, a time or a commit's id there says how or when.
- A user's line then a value's line, or a label line then its value's line, both commented out or
  quoted with the same mark (``# user: X`` then ``# <value>``, ``> login: X`` then ``> <value>``,
  ``-- client secret:`` then ``-- <value>``): read as the lines without the mark. A mark on the
  value's line alone is a note below, and a date or a time below a user's line is when, not a
  password (that one refused on main too).
- A key named for what it locks or opens (``ENCRYPTION_KEY``, ``masterKey``, ``wallet_key``)
  given a password a person made (both cases, a digit and a symbol inside): counted as after a
  password's name, beside the random values it counted before; a cipher's or an algorithm's name,
  a path or a variable there is none.
"""

from __future__ import annotations

import pytest

from secret_probe import Draw
from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write

_D = Draw(2026120632)
_RNG = _D.rng
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def refused(body: str) -> bool:
    try:
        check_write(key="probe", description="notes", body=body, meta={})
    except SecretError:
        return True
    return False


def _token(n: int) -> str:
    return "".join(_RNG.choice(_ALNUM) for _ in range(n))


CASES = [
    # SNMP communities by their place
    (
        "snmp-exporter-auths",
        "# snmp_exporter generator.yml\nauths:\n  office_v2:\n    community: Vq3!hT8mZp2w\n    version: 2\n",
        True,
    ),
    (
        "telegraf-inputs-snmp",
        '[[inputs.snmp]]\n  agents = ["udp://10.0.0.1:161"]\n  version = 2\n  community = "Lp4@wN9xQz7k"\n',
        True,
    ),
    (
        "snmpd-com2sec",
        "# /etc/snmp/snmpd.conf\ncom2sec local 10.0.0.0/8 Hk2$rW7nBq5y\ngroup MyROGroup v2c local\n",
        True,
    ),
    ("snmp-poller-camel", "SNMP poller settings: roCommunity: Jt6%pX2vLm8q, port 161", True),
    ("snmp-default-public", "snmp:\n  version: 2c\n  community: public\n", False),
    ("com2sec-default", "com2sec notConfigUser default public", False),
    ("community-link-no-snmp", "Join the community: https://discord.gg/Xy7Pq2Lm and say hi", False),
    ("community-name-no-snmp", "meetup:\n  community: Berlin-Python-Meetup\n  city: Berlin\n", False),
    ("snmp-community-prose", "SNMP: the community edition of the poller is enough for us.", False),
    # a value handed over for signing in or unlocking
    ("for-logging-in-token", f"Marta sent this for logging in to the Jenkins UI: {_token(28)}", True),
    ("to-unlock-arrow", "to unlock the backup drive -> Wq7#bN2kLx9p", True),
    ("for-signing-in-portal", f"for signing in to the partner portal: {_token(32)}", True),
    ("to-authenticate-colon", f"the CLI wants this to authenticate: {_token(40)}", True),
    ("how-to-sign-in-url", "How to sign in: https://sso.corp.example/start", False),
    ("to-log-in-user", "to log in: admin", False),
    ("steps-for-login", "Steps for login: run `make login` then open http://localhost:3000", False),
    ("to-authenticate-name", "to authenticate use: OAuth2DeviceFlow", False),
    ("for-sign-in-time", "cut-over for sign in -> 2026-12-06T10:00:00Z", False),
    ("commit-to-sign-in", "the commit to sign in faster: 9c1f2e3d4b5a69788796a5b4c3d2e1f009182736", False),
    # a key that locks or opens, given a person's password
    ("backup-encryption-key", "BACKUP_ENCRYPTION_KEY=Fj4!wQ9zKm2p", True),
    ("master-key-yaml-quoted", 'app:\n  master_key: "Plover#Canyon71"\n', True),
    ("keystore-key-camel", 'const keystoreKey = "Nq2$vR8xTb5w";', True),
    ("unseal-key-colon", "unseal_key: Wy6%hG3kLp9d", True),
    ("encryption-key-cipher", "encryption_key: chacha20-poly1305", False),
    ("signing-key-alg", "SIGNING_KEY=HS256", False),
    ("master-key-ref", "master_key: ${MASTER_KEY}", False),
    ("disk-key-path", "disk_key: /etc/luks/keys/Data-01.key", False),
    ("encryption-key-placeholder", "ENCRYPTION_KEY=<your-encryption-key>", False),
    ("partition-key-row", "partition_key: Tenant#2026-12", False),
    # a pair commented out or quoted, the same mark on both lines
    ("hash-user-then-value", "# staging db\n# user: svc_reports\n# Tq8#vW2nLp5x\n", True),
    ("slashes-user-then-value", "// user = build-bot\n// Zm4$kR9wXp2q", True),
    ("quoted-login-then-value", "> login: marta.k\n> Hv7!pQ3mWz8n", True),
    ("sql-comment-login", "-- login: report_ro\n-- Pq7@nM3kVx9w", True),
    ("hash-label-then-value", f"# client secret for billing:\n# {_token(26)}", True),
    ("semicolon-label-then-value", f"; api token for the mirror:\n; {_token(30)}", True),
    ("hash-user-then-words", "# user: marta\n# see the wiki for setup", False),
    ("hash-user-then-commit", "# user: deploy\n# a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0", False),
    ("hash-user-then-time", "# user: deploy\n# 2026-12-06T10:00:00Z", False),
    ("user-then-time", "user: deploy\n2026-12-06T10:00:00Z", False),
    ("marks-differ", "# user: marta\n// Tq8#vW2nLp5x", False),
    ("label-then-comment-note", "password:\n# TODO-rotate-2026", False),
    ("hash-label-then-reference", "# token:\n# ${{ secrets.DEPLOY_TOKEN }}", False),
    ("quoted-account-region", "> account: acme-prod\n> eu-west-1", False),
    ("to-unlock-see", "to unlock: see the 1Password item 'backup drive'", False),
    ("to-unlock-command", "to unlock the vault: vault operator unseal", False),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_blind32_classes(body: str, expected: bool) -> None:
    assert refused(body) is expected
