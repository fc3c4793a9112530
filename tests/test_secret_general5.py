"""The secret gate's classes from the eleventh blind corpus's misses (tuned on heldout11, whose
strings none of these are): a person's word-and-number password after its label, a network's
word ("the wifi is X") as a password's label, prose labels
further from their value, "like"/"such as" outside an example's sentence, a label that says
"non-secret", passwords given to Windows' ``/p:`` and net-snmp's ``-A``/``-X``, Kubernetes'
bootstrap tokens, NuGet and Twitch tokens, sigil variables and encoding-suffixed names, codes by
their layout, recovery keys and phrases in any language under a label, a card's PIN, flow
mappings, a login file's two lines, credentials cut across fields, parts or table rows, seeds by
name, signed session cookies and a passphrase of words in prose.

Each test draws its values afresh from a seeded generator (none is an item of a bench corpus),
beside the look-alikes that share the place. Each positive fails on the code before these rules
(checked against the parent commit, 7defe5a).
"""

from __future__ import annotations

import string

import pytest

from secret_probe import HEX, Draw, found, refused
from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write
from vault_mem.model.seed_words import BIP39_ENGLISH

_DRAW = Draw(20261205)
r, _RNG = _DRAW.r, _DRAW.rng
LOWER36 = string.ascii_lowercase + string.digits
B32 = "abcdefghijklmnopqrstuvwxyz234567"
WORDS = ("Lantern", "Orchid", "Pebble", "Thistle", "Walrus", "Biscuit", "Saffron", "Tundra", "quokka", "marmot")


def person_pw(joint: str | None = None) -> str:
    """A person's password: a word, a joint, a number (``Thistle_4821``)."""
    return _RNG.choice(WORDS) + (joint if joint is not None else _RNG.choice("_-@.")) + r(4, string.digits)


def strong() -> str:
    return r(5) + _RNG.choice("#!%&") + r(6)


def grouped_key() -> str:
    """Five groups of five capitals and digits, two digits at least (a random key has seven)."""
    while True:
        key = "-".join(r(5, string.ascii_uppercase + string.digits) for _ in range(5))
        if sum(c.isdigit() for c in key) >= 2:
            return key


def refused_with(body: str, description: str, key: str = "probe", meta: dict | None = None) -> bool:
    try:
        check_write(key=key, description=description, body=body, meta=meta or {})
    except SecretError:
        return True
    return False


# --- a person's password after its label, and prose around it --------------------------------

@pytest.mark.parametrize("make", (
    lambda: f"The printer password is {person_pw()}, ask before changing it.",
    lambda: f"Das Kennwort für den NAS lautet {person_pw()}.",
    lambda: f"La contraseña del router es {person_pw()}",
    lambda: f"Le mot de passe du wifi est {person_pw()} pour les invités",
    lambda: f"guest pwd {person_pw('-')} (user guest)",
    lambda: f"The root password on the staging jump host (10.4.2.9) is still {person_pw()}.",
    lambda: f"pw for the camera system in the office: {person_pw()}",
    lambda: f"The mail-passwort im Sekretariat lautet {person_pw()}",
    lambda: f"the vpn-password for contractors is now {person_pw()}",
))
def test_a_persons_password_after_its_label_in_prose(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("text", (
    "The password is still required for the admin page.",
    "the db-password for staging is rotated weekly",
    "password expired-2024 in the audit report",
    "The password reset ticket is JIRA-4521.",
    "the password rotation runbook is Runbook-2291",
    "password policy v2 from 2024 applies",
    "the password field accepts up to 128 characters",
    "password for the wiki is in the team vault",
))
def test_words_and_numbers_that_are_no_password_pass(text: str) -> None:
    assert not found(text), text


# --- a network's word as the label of its password ------------------------------------------

@pytest.mark.parametrize("make", (
    lambda: f"the wifi is {strong()}",
    lambda: f"guest wifi: {strong()}",
    lambda: f"The WLAN in the back office is {strong()}, don't share it",
    lambda: f"phone hotspot: {strong()}",
))
def test_a_networks_word_names_its_password_when_no_name_could_be_it(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("text", (
    "wifi: Office-5G",
    "the wifi is Linksys-0422",
    "connect to the wifi TP-Link_5G_2354",
    "wifi=on",
    "Wireless: enabled",
    "the wifi is down again",
    "wifi: <your-network-password>",
    "wifi password: see the fridge",
))
def test_a_networks_name_or_state_after_its_word_passes(text: str) -> None:
    assert not found(text), text


# --- "like" and "such as": a value, or an example -------------------------------------------

@pytest.mark.parametrize("make", (
    lambda: f"password like {strong()} for staging",
    lambda: f"staging db password like {strong()}",
    lambda: f"the deploy token such as {r(32)} goes in CI",
))
def test_like_before_a_value_outside_an_example_is_the_value(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("make", (
    lambda: f"a password like {strong()} is weak",
    lambda: f"passwords like {strong()} get cracked in minutes",
    lambda: f"never use a password such as {strong()}",
    lambda: f"The password field rejects values like {strong()} in the form.",
    lambda: f"Pick a password like {strong()}: long and random.",
))
def test_like_in_an_examples_sentence_passes(make) -> None:
    for _ in range(3):
        text = make()
        assert not found(text), text


# --- a label that says what it is not -------------------------------------------------------

def test_a_label_saying_non_secret_names_no_credential() -> None:
    body = r(88, string.ascii_letters + string.digits + "+/")
    for description in ("base64 of the UI defaults (non-secret)", "encoded layout, not a secret",
                        "sample payload, nothing sensitive"):
        assert not refused_with(body, description), description
    assert refused_with(r(40), "the api secret for billing")  # (the label alone still names one)


# --- commands -------------------------------------------------------------------------------

@pytest.mark.parametrize("make", (
    lambda: f"xfreerdp /v:rds01.corp.example /u:CORP\\ops /p:{person_pw('@')} /cert:ignore",
    lambda: f"wfreerdp /u:admin /p:'{person_pw('-')}' /v:10.1.1.5",
    lambda: f"snmpget -v3 -l authPriv -u poller -a SHA -A {strong()} -x AES -X {strong()} sw-core",
    lambda: f"sudo /usr/bin/snmpbulkwalk -v3 -u mon -l authNoPriv -a MD5 -A {r(16)} edge1",
))
def test_passwords_given_to_windows_p_and_snmp_passphrase_flags(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("text", (
    "curl -u me:x -A Mozilla/5.0 -X POST https://api.example.com",
    "snmpwalk -v2c -c public 10.0.0.1",
    "snmpwalk -v3 -u mon -a SHA -A $SNMP_AUTH -X $SNMP_PRIV host",
    "mkdir -p build-2024 && cd build-2024",
    "msbuild /p:Configuration=Release /p:Platform=x64",
))
def test_command_flags_that_hold_no_password_pass(text: str) -> None:
    assert not found(text), text


# --- tokens known by shape ------------------------------------------------------------------

def bootstrap() -> str:
    while True:
        a, b = r(6, LOWER36), r(16, LOWER36)
        if any(c.isdigit() for c in a) and sum(c.isdigit() for c in b) >= 2 and sum(c.isalpha() for c in b) >= 4:
            return f"{a}.{b}"


@pytest.mark.parametrize("make", (
    lambda: f"the node joins with {bootstrap()} (expires in 24h)",
    lambda: f"NuGet push uses oy2{r(43, LOWER36)} for the Acme feed",
    lambda: f"PASS oauth:{r(30, LOWER36)}\nNICK acmebot",
    lambda: f"sid cookie s:{r(32)}.{r(43)}",
))
def test_tokens_known_by_shape(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("text", (
    "token: abcdef.0123456789abcdef",  # kubeadm's documented sample
    "see models.resnet50backbone for the layers",
    "oauth:authorize is the scope name",
    "status: 200 ok",
))
def test_token_look_alikes_pass(text: str) -> None:
    assert not found(text), text


# --- code: sigil variables, encoding-suffixed names, flow mappings, seeds by name -------------

@pytest.mark.parametrize("make", (
    lambda: f'$ApiKey = "{r(32)}"',
    lambda: f"$dbPassword = '{strong()}'",
    lambda: f'my $auth_token = "{r(40)}";',
    lambda: f"db_pass_hex = {r(32, HEX)}",
    lambda: f"SECRET_B64={r(40, string.ascii_letters + string.digits)}==",
    lambda: f"routes: [{{name: pager, configs: [{{api_key: {r(32)}}}]}}]",
    lambda: f'const conf = {{password: "{strong()}"}}',
    lambda: f'validator_key_seed = "{r(64, HEX)}"',
    lambda: f"wallet_seed: {r(28)}",
))
def test_values_in_code_by_their_name(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("text", (
    "$password = $env:DB_PASSWORD",
    'if ($password == "hunter2") { exit 1 }',
    '$token = ""',
    'Write-Host $ApiKey',
    "key = secrets.token_hex(32)",
    "api_key_b64 = base64.b64encode(raw)",
    'f"{password}"',
    '"{password:>12}".format(password=pw)',
    "seed: 42",
    "random_seed = 1234567",
    "np.random.seed(20240101)",
    "seed: https://example.com/fixtures/seed.sql",
))
def test_code_look_alikes_pass(text: str) -> None:
    assert not found(text), text


# --- codes, recovery keys and phrases --------------------------------------------------------

@pytest.mark.parametrize("make", (
    lambda: "backup codes: " + ", ".join(r(8, string.digits) for _ in range(8)),
    lambda: "Recovery codes:  " + "  ".join(r(10, string.digits) for _ in range(6)),
    lambda: "setup key: " + " ".join(r(4, B32) for _ in range(8)),
    lambda: "card pin " + r(4, "123456789"),
    lambda: "my sim pin is " + r(4, "123456789"),
))
def test_codes_in_the_body_by_their_layout(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("description, make", (
    ("Registrar recovery codes (ops)", lambda: "\n".join(f"{r(5, HEX)}-{r(5, HEX)}" for _ in range(8))),
    ("Bank backup codes", lambda: "   ".join(f"{r(4, string.digits)} {r(4, string.digits)}" for _ in range(10))),
    ("Microsoft account recovery key", lambda: grouped_key()),
))
def test_codes_alone_under_a_description_naming_them(description: str, make) -> None:
    for _ in range(3):
        body = make()
        assert refused_with(body, description), body


def b32_groups() -> str:
    while True:
        seed = r(32, B32)
        if sum(c.isdigit() for c in seed) >= 3:
            return " ".join(seed[i:i + 4] for i in range(0, 32, 4))


def test_an_otp_seed_or_a_networks_password_alone_under_a_description_naming_it() -> None:
    for _ in range(3):
        assert refused_with(b32_groups(), "authenticator setup key for the admin account")
        assert refused_with(b32_groups().upper(), "2FA seed (registrar)")
        assert refused_with(strong(), "Office wifi")
    assert not refused_with("abcd efgh ijkl mnop", "2fa rollout")  # words, no seed
    assert not refused_with("JBSW Y3DP EHPK 3PXP", "TOTP seed from the RFC's tutorial")  # decodes to "Hello!"
    assert not refused_with("Office-5G", "Office wifi")  # the network's name
    assert not refused_with("step one then step two", "2fa rollout plan")


@pytest.mark.parametrize("text, description", (
    ("Backup codes: see the vault entry.", "notes"),
    ("backup codes rollout: 1, 2, 3", "notes"),
    ("2023\n2024\n2025", "release years of the recovery codes feature"),
    ("v1.2.3\nv1.2.4\nv1.3.0", "backup codes service versions"),
    ("setup key: see the QR code", "notes"),
    ("pin 2373 of the header is ground", "board notes"),
))
def test_code_look_alikes_pass_in_body_and_under_a_label(text: str, description: str) -> None:
    assert not refused(text, description=description), text


_ES = ("ábaco", "abdomen", "abeja", "abierto", "abogado", "abono", "aborto", "abrazo", "abrir", "abuelo", "abuso", "acabar",
       "academia", "acceso", "acción", "aceite", "acelga", "acento", "aceptar", "ácido", "aclarar", "acné", "acoger", "acoso")
_FR = ("abaisser", "abandon", "abdiquer", "abeille", "abolir", "aborder", "aboutir", "aboyer", "abrasif", "abreuver", "abriter",
       "abroger", "abrupt", "absence", "absolu", "absurde", "abusif", "abyssal", "académie", "acajou", "acarien", "accabler")


@pytest.mark.parametrize("label, words", (("Frase semilla de la cartera:", _ES), ("Phrase de récupération :", _FR),
                                           ("mnemonic (italian wallet):", _ES)))
def test_a_phrase_in_any_language_after_its_label(label: str, words: tuple[str, ...]) -> None:
    for n in (12, 18):
        phrase = " ".join(_RNG.sample(words, n))
        text = f"{label} {phrase}"
        assert found(text), text


def test_a_phrase_in_any_language_under_a_description_naming_it() -> None:
    body = " ".join(_RNG.sample(_FR, 12))
    assert refused_with(body, "phrase de récupération du portefeuille")
    assert refused_with(" ".join(_RNG.sample(_ES, 12)), "semilla de la cartera fría")


@pytest.mark.parametrize("text", (
    "Frase del día: el sol sale por la mañana y la luna por la noche con las estrellas",
    "seed: 42",
    "Mnemonic devices: use the first letter of each word to remember the order of planets",
))
def test_phrase_look_alikes_pass(text: str) -> None:
    assert not found(text), text


# --- credentials cut across fields, lines, parts and rows ------------------------------------

def test_a_login_file_of_two_lines_under_its_label() -> None:
    for _ in range(3):
        body = f"svc{r(3, string.digits)}\n{strong()}"
        assert refused_with(body, "auth-user-pass file for the site vpn"), body
        assert refused_with(body, "credentials for the lab proxy (user, then password)"), body
    assert not refused_with("svc12\n<password>", "auth-user-pass file for the site vpn")
    assert not refused_with("release-1.2\nv2.3.4-rc1", "build notes")
    assert not refused_with("mara.k\nsee the vault", "login for the site vpn")


def test_a_seed_phrase_scattered_over_fields() -> None:
    words = _RNG.sample(BIP39_ENGLISH, 12)
    meta = {"rest": " ".join(words[6:])}
    assert refused_with(" ".join(words[:6]), "the wallet, in two places", meta=meta)
    # nine words in all, or a field that is prose, is no phrase
    assert not refused_with(" ".join(words[:6]), "the wallet, in two places", meta={"rest": " ".join(words[6:9])})
    assert not refused_with(" ".join(words[:6]), "notes", meta={"rest": "see the other note for the rest"})


@pytest.mark.parametrize("make", (
    lambda: f"first half: {r(20)}\nsecond half: {r(20)}",
    lambda: f"part 1: {r(24, HEX)}\npart 2: {r(24, HEX)}",
    lambda: f"- piece one: {r(16)}\n- piece two: {r(16)}\n- piece three: {r(16)}",
))
def test_a_token_cut_into_labelled_parts(make) -> None:
    for _ in range(3):
        text = make()
        assert found(text), text


@pytest.mark.parametrize("text", (
    "part 1: intro\npart 2: setup steps",
    "first half: 2-1\nsecond half: 3-3",
    f"part 1: {'3f9a2c1d' * 5}\npart 2: {'9c1d2e7b' * 5}",
))
def test_parts_that_are_no_token_pass(text: str) -> None:
    assert not found(text), text


@pytest.mark.parametrize("sep", ("\t", ";", " | "))
def test_login_rows_without_a_header(sep: str) -> None:
    for _ in range(3):
        rows = [sep.join((f"site{i}", _RNG.choice(("admin", "root", "ops"))), ) + sep + strong() for i in range(3)]
        text = "\n".join(rows)
        assert found(text), text


@pytest.mark.parametrize("text", (
    "alice,admin,2024-01-02\nbob,user,2024-03-04",
    "name\tsha\nfoo\t3f9a2c\nbar\t9c1d2e",
    "host;role;owner\nweb1;frontend;lea\ndb1;postgres;sam",
))
def test_table_rows_without_a_password_pass(text: str) -> None:
    assert not found(text), text


# --- a passphrase of words in prose -----------------------------------------------------------

def test_a_passphrase_of_words_after_a_path_in_prose() -> None:
    for _ in range(3):
        words = " ".join(_RNG.sample(("orbit", "tundra", "lemon", "pixel", "walnut", "cobalt", "meadow", "salon", "shed"), 4))
        text = f"passphrase for ~/.ssh/id_deploy is {words} {r(2, string.digits)}"
        assert found(text), text
    assert not found("the passphrase for ~/.ssh/id_deploy is kept in the vault")
    assert not found("the passphrase for this key is stored in bitwarden now")
