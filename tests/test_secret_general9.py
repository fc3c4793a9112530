"""The secret gate's classes from the fifteenth blind corpus (tuned on heldout15, whose strings none
of these are): a credential recognised by what it looks like and where it sits, the label and the
value in either order; words for password and "is" in Czech, Catalan, Greek and Hebrew; a user and
a password given as a pair; flags and commands that take a password or a token; a hook's key in
its path, a routing key, a token after a scheme named for it; credentials split over the lines
of a note, a list of parts, or a memory's key and description. Beside each, the look-alikes that
share its place and must pass (versions, commits, UUIDs as record ids, policies in prose).

Each test draws its values afresh from generators seeded three ways (none is an item of a bench
corpus). The decision on an armoured PGP *message* (it passes) is tested here too.
"""

from __future__ import annotations

import random

import pytest

from secret_probe import ALNUM, HEX, Draw, all_refused, refused
from secret_probe import person as _person
from secret_probe import phrase as _phrase
from secret_probe import WORDS as _WORDS
from secret_probe import uuid4 as _uuid
from vault_mem.model.policy import secret_findings

SEEDS = (20261204, 15, 4343)
# --- the value before its label ---------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_value_before_the_label_that_names_it_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    cases = [
        f"remember: {_phrase(rng, 5)} is the {rng.choice(['keystore', 'signing', 'vpn', 'backup'])} password for the release",
        f"{_phrase(rng)} was the admin password, until Friday",
        f"{d.r(44)}  <- {rng.choice(['ngrok', 'fly', 'tailscale'])} authtoken",
        f"1//0{d.r(60, ALNUM + '_-')}  <- {rng.choice(['google', 'gmail', 'drive'])} refresh_token",
        f"{d.r(32)} is the {rng.choice(['bot', 'deploy'])} token, rotate it monthly",
    ]
    all_refused(cases, description="quick note")


LOOK_ALIKES_BEFORE = (
    "Rotation is the password policy we agreed on last week.",
    "This is the password reset page; it sends a link.",
    "v2.14.3 is the token service's version in production.",
    "3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a <- commit that fixed the token refresh",
    "the fix is the token bucket limiter, see PR 4412",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_BEFORE)
def test_prose_with_a_word_before_a_label_passes(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- password words and "is" in other languages; two words and a number -------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_after_its_word_in_czech_catalan_greek_and_hebrew(seed: int) -> None:
    rng = random.Random(seed)
    word = rng.choice([w for w in _WORDS if len(w) >= 5]).capitalize()
    cases = [
        f"Heslo k {rng.choice(['routeru', 'serveru', 'databázi'])} je {_person(rng)}",
        f"La contrasenya de la {rng.choice(['xarxa', 'base de dades'])} és {_person(rng)}",
        f"Ο κωδικός πρόσβασης του {rng.choice(['δρομολογητή', 'λογαριασμού'])} είναι {word}{rng.randrange(100, 999)}!",
        f"הסיסמה {rng.choice(['לשרת', 'לנתב', 'בשרת'])} היא {_phrase(rng, 4)}",
        f"the wifi password for the attic is {_person(rng)}",
        f"password {_person(rng)}",
    ]
    all_refused(cases, description="server access")


LOOK_ALIKES_WORDS = (
    "Heslo k serveru je uloženo v trezoru.",
    "La contrasenya del servidor és al gestor de contrasenyes.",
    "the password policy requires 12 characters",
    "password = settings.db_pass12",
    "password: self.pass42",
    "pw release-notes-draft",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_WORDS)
def test_where_a_password_is_kept_or_named_passes(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- a user and a password given as a pair -------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_user_and_a_password_as_a_pair(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    pw = f"{rng.choice(_WORDS).capitalize()}{rng.randrange(1000, 9999)}{rng.choice('!#&')}"
    cases = [
        f"creds for the portal -> u: {rng.choice(['ops-bot', 'billing', 'svc.report'])} p: {pw} thanks",
        f"usr={rng.choice(['admin', 'kiosk'])} pw={pw}",
        f"{rng.choice(['Grafana', 'Jira', 'Sentry'])} bot account: bot-{rng.randrange(10, 99)} / {pw}",
        f"login to the {rng.choice(['NAS', 'router', 'printer'])}: admin, {_phrase(rng, 4)}",
    ]
    all_refused(cases, description="misc")


LOOK_ALIKES_PAIRS = (
    "account: billing, invoices",
    "login: alice, then run make",
    "Service account: reporting / read-only (see the wiki)",
    "u: alice, p: see the vault",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_PAIRS)
def test_a_user_and_a_word_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- flags and commands --------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_flags_and_commands_that_take_a_credential(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    cases = [
        f"influx auth create --org ops --token {_phrase(rng, 5)}",
        f"set {rng.choice(['SNYK', 'SENTRY', 'CODECOV'])}_TOKEN to {_uuid(rng)} before running make",
        f"lftp -u backup,'{d.r(18)}' sftp://files.example.net",
        f"ldapmodify -H ldap://dir.example -D 'cn=svc,dc=ex' -w '{_phrase(rng, 4)}' -f change.ldif",
    ]
    all_refused(cases, description="cli notes")


LOOK_ALIKES_FLAGS = (
    "influx auth create --org ops --token-file ./tok.txt",
    "gh secret set --secret billing-service-tls",
    "set REQUEST_ID to 9b2f4c1e-7a3d-4e8b-9c21-0d5e6f7a8b90 when replaying",
    "set the record to 9b2f4c1e-7a3d-4e8b-9c21-0d5e6f7a8b90",
    "ldapsearch -x -w $LDAP_PW -b dc=example",
    "lftp -u backup sftp://files.example.net",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_FLAGS)
def test_flags_given_names_ids_or_variables_pass(body: str) -> None:
    assert not refused(body, description="cli notes"), body


# --- vendor shapes: letters-only tails, capital prefixes, schemes, pairs of keys ------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_vendor_shapes_without_a_label(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    letters = "".join(rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(34))
    cases = [
        f"- HF hf_{letters} has write on the org",
        f"{rng.choice(['ATTA', 'XKPR'])}{d.r(64, HEX)}{d.r(8, '0123456789ABCDEF')}",
        f"{rng.choice(['Genie', 'Relay', 'Hub'])}Key {_uuid(rng)}",
        f"datadog = \"api {d.r(32, HEX)} app {d.r(40, HEX)}\"",
        f"routing_key: {d.r(32)}",
    ]
    all_refused(cases, description="integration")


LOOK_ALIKES_VENDOR = (
    "hf_HubDownloadFunctionWrapperThing is the helper we call",
    "digest SHA2563f9a1c7e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a",
    "PartitionKey 9b2f4c1e-7a3d-4e8b-9c21-0d5e6f7a8b90",
    "RowKey 9b2f4c1e-7a3d-4e8b-9c21-0d5e6f7a8b90",
    "deployed api 3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a app 4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a9c2e7a41",
    "routing_key: orders.created.eu-west-1",
    "record 9b2f4c1e-7a3d-4e8b-9c21-0d5e6f7a8b90 was merged into the account",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_VENDOR)
def test_names_digests_and_record_ids_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- hook URLs --------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_hook_hosts_short_interleaved_key(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(10):
        # (a short key of letters and digits interleaved, letters doubled: 2.2 bits a character,
        # made all the same: `yy2mm70`'s shape)
        a, b = rng.sample("abcdefghjkmnpqrstuvwxyz", 2)
        d1, d2, d3 = rng.sample("0123456789", 3)
        part = f"{a}{a}{d1}{b}{b}{d2}{d3}"
        url = f"POST https://hooks.{rng.choice(['zapier', 'relay', 'notify'])}.com/hooks/catch/{rng.randrange(10**6, 10**8)}/{part}/"
        assert refused(url, description="hook"), url


@pytest.mark.parametrize("body", (
    "https://hooks.example.com/hooks/catch/1234567/usedebounce2/",
    "https://hooks.example.com/docs/v2/setup/",
    "https://hooks.example.com/settings/hooks/412",
))
def test_hook_docs_and_ids_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- an armoured PGP message: ciphertext, not a secret ------------------------------------------

def _armour(rng: random.Random, label: str) -> str:
    import base64

    lines = [base64.b64encode(rng.randbytes(48)).decode() for _ in range(4)]
    return f"-----BEGIN {label}-----\n\n" + "\n".join(lines) + f"\n=Tb4S\n-----END {label}-----\n"


@pytest.mark.parametrize("seed", SEEDS)
def test_an_armoured_pgp_message_passes_and_a_private_key_block_does_not(seed: int) -> None:
    rng = random.Random(seed)
    assert not refused(f"Encrypted to {rng.choice(['Mira', 'Bo', 'Ana'])}'s key, fine to paste:\n"
                       + _armour(rng, "PGP MESSAGE"), description="encrypted notes")
    assert not refused("the signing key's signature:\n" + _armour(rng, "PGP SIGNATURE"), description="release")
    assert refused("my key:\n" + _armour(rng, "PGP PRIVATE KEY BLOCK"), description="backup")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_key_for_an_encrypted_thing_counts(seed: int) -> None:
    d = Draw(seed)
    body = f"the key for the encrypted {d.rng.choice(['volume', 'disk', 'archive'])} is {d.r(28, ALNUM + '_')}"
    assert refused(body, description="reminder"), body


# --- credentials split across lines, lists and fields -------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_credentials_split_across_places(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    spaced = " ".join(d.r(20))
    parts = ", ".join(f'"{d.r(8)}"' for _ in range(4))
    pw = f"{d.r(6)}@={d.r(6)}*{rng.randrange(10, 99)}"
    cases = [
        (f"pass = {spaced}", "spelled out", "notes/spelled"),
        (f'{{"token_chunks": [{parts}]}}', "chunks", "notes/chunks"),
        (f"password: see below\n\n{pw}\n", f"credentials for files{rng.randrange(9)}.lan (user reporting)", "notes/creds"),
        ("The hook id doubles as its secret; see the key.", "build hook token", f"notes/build-hook-{d.r(40, HEX)}"),
        (f"Wifi password rotated; new value {_phrase(rng, 5)}, nowhere else", "quick note", "notes/wifi"),
    ]
    for body, description, key in cases:
        found = secret_findings(key=key, description=description, body=body, meta={})
        assert found, (body, description, key)


LOOK_ALIKES_SPLIT = (
    ("moves: e 4 e 5 N f 3 N c 6 B b 5 a 6 B a 4 N f 6", "chess", "notes/chess"),
    ("A B C D E F G H I J K L M N O P Q R S 1 2 3", "alphabet", "notes/abc"),
    ('{"key_parts": ["header", "payload", "signature"]}', "jwt layout", "notes/jwt"),
    ("the admin password policy is described below\n\nminimum twelve characters\n", "policy", "notes/policy"),
    ("Fixed it.", "token refresh bug", "notes/fix-3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a"),
    ("Merged.", "commit for the signing key", "notes/commit-3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a"),
    ("password policy updated; new value is 14 characters minimum", "policy", "notes/policy2"),
)


@pytest.mark.parametrize(("body", "description", "key"), LOOK_ALIKES_SPLIT)
def test_split_look_alikes_pass(body: str, description: str, key: str) -> None:
    assert not secret_findings(key=key, description=description, body=body, meta={}), body


# --- a file printed by a command, a vendor's token as a variable's value -------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_value_printed_by_a_command_that_shows_a_credential_file(seed: int) -> None:
    d = Draw(seed)
    name = d.rng.choice([".vault_pass", "~/.config/app/api_token", "secrets/db.password", "C:\\keys\\deploy.secret"])
    command = d.rng.choice(["cat", "type", "Get-Content"])
    pw = d.r(14) + d.rng.choice("~.#") + d.r(5)
    assert refused(f"{command} {name}\n{pw}\n", description="dotfiles"), (command, name)


@pytest.mark.parametrize("body", (
    "cat ~/.ssh/id_ed25519.pub\nssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG6xQ ana@laptop\n",
    "cat token_count.txt\n1234567890123\n",
    "head tokens.md\n# Tokens overview\n",
    "cat .vault_pass\nsee the team vault\n",
))
def test_a_printed_file_that_holds_no_credential_passes(body: str) -> None:
    assert not refused(body, description="dotfiles"), body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_prefixed_hex_token_as_a_credential_variables_value(seed: int) -> None:
    d = Draw(seed)
    name = d.rng.choice(["SONAR_LOGIN", "SCAN_TOKEN", "REGISTRY_AUTH"])
    prefix = d.rng.choice(["qzt_", "sqx_", "vkp_"])
    body = f'withEnv(["{name}={prefix}{d.r(40, HEX)}"]) {{\n  sh \'./gradlew scan\'\n}}'
    assert refused(body, description="Jenkinsfile snippet"), body


@pytest.mark.parametrize("body", (
    "CACHE_KEY=linux-3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a",
    "GIT_SHA=sha-3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a",
    "IMAGE_TAG=app-3f9a1c7e5b2d8f4a6c0e9b1d3f5a7c2e4b6d8f0a",
))
def test_a_prefixed_hex_value_of_another_variable_passes(body: str) -> None:
    assert not refused(body, description="ci"), body


# --- an access key's id and its secret side by side ---------------------------------------------

def _interleaved_id(rng: random.Random, n: int = 20) -> str:
    """Capitals and digits interleaved, a letter first (an access key's id)."""
    return "".join(rng.choice("0123456789" if i % 3 == 2 else "ABCDEFGHJKLMNPQRSTUVWXYZ") for i in range(n))


@pytest.mark.parametrize("seed", SEEDS)
def test_an_access_key_id_beside_its_secret(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    cases = [
        f"kafka:\n  sasl: {_interleaved_id(rng, 16)}:{d.r(40)}/{d.r(23)}\n  timeout: 30",
        f'{{"cloud": {{"creds": "{_interleaved_id(rng)} {_uuid(rng)}"}}}}',
        f'[tools]\nmodal = "ak-{d.r(22)} as-{d.r(22)}"',
        f"cloud: AKID{d.r(32)} {d.r(32)}",
    ]
    all_refused(cases, description="cloud notes")


@pytest.mark.parametrize("body", (
    "INV2026120400123 9b2f4c1e-7a3d-4e8b-9c21-0d5e6f7a8b90",
    "ORDER20261204001 9b2f4c1e-7a3d-4e8b-9c21-0d5e6f7a8b90",
    "request req_011CUqA8B9yK3mZ7xQ2vWnPd 9b2f4c1e-7a3d-4e8b-9c21-0d5e6f7a8b90",
    "msg_01XFDUDYJgAACzvnptvVoYEL toolu_01A09q90qw90lq917835lq9",
    "release v2.14.3 4b6d8f0a1c3e5b7d9f2a4c6e8b0d1f3a9c2e7a41",
    "DEADBEEF00112233 9b2f4c1e-7a3d-4e8b-9c21-0d5e6f7a8b90",
))
def test_an_id_beside_a_record_id_passes(body: str) -> None:
    assert not refused(body, description="notes"), body
