"""The secret gate's classes from the sixteenth blind corpus (tuned on heldout16, whose strings none
of these are): first its three false alarms, each fixed for its class (a crypt-format password
hash passes as every stored hash does; a value right after its own id label, such as an account
SID, is an id even with a secret's label after it; a keyboard shortcut is no password), then the
credentials it missed by class. Beside each, the look-alikes that share its place and must pass.

Each test draws its values afresh from generators seeded three ways (none is an item of a bench
corpus).
"""

from __future__ import annotations



import random

import pytest

from secret_probe import ALNUM, HEX, Draw, all_pass, all_refused, refused

SEEDS = (20261204, 16, 5151)
_B64CRYPT = "./" + ALNUM


# --- crypt-format hashes pass as stored hashes ---------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_crypt_format_hash_passes_as_a_stored_hash(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    cases = [
        f"Passwords are kept as bcrypt, cost {rng.choice([10, 11, 12, 13])}: e.g. $2b${rng.choice([10, 12])}${d.r(53, _B64CRYPT)}",
        f"the shadow entry looks like $6${d.r(16, _B64CRYPT)}${d.r(86, _B64CRYPT)} (sha512-crypt)",
        f"argon2 output: $argon2id$v=19$m=65536,t=3,p=4${d.r(22, ALNUM + '+/')}${d.r(43, ALNUM + '+/')}",
        f"yescrypt is the default now: $y$j9T${d.r(22, _B64CRYPT)}${d.r(43, _B64CRYPT)}",
    ]
    all_pass(cases, description="how we store passwords")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_token_beside_a_crypt_hash_still_counts(seed: int) -> None:
    d = Draw(seed)
    body = (f"user hash $2b$12${d.r(53, _B64CRYPT)}\n"
            f"and the API token: ghp_{d.r(36)}")
    assert refused(body), body


# --- a value right after its id label is an id ------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_an_id_after_its_label_passes_despite_a_secret_label_after_it(seed: int) -> None:
    d = Draw(seed)
    cases = [
        f"Messaging account SID AC{d.r(32, HEX)} (its auth token lives in 1Password)",
        f"tenant ID {d.r(8, HEX)}-{d.r(4, HEX)}-{d.r(4, HEX)}-{d.r(4, HEX)}-{d.r(12, HEX)} - the client secret is in the vault",
        f"account: AC{d.r(32, HEX)} (the api key is rotated monthly)",
    ]
    all_pass(cases, description="account notes")


@pytest.mark.parametrize("seed", SEEDS)
def test_the_auth_token_beside_an_account_sid_counts(seed: int) -> None:
    d = Draw(seed)
    cases = [
        f"Twilio account SID AC{d.r(32, HEX)}, auth token {d.r(32, HEX)}",
        f"SID AC{d.r(32, HEX)}\nTWILIO_AUTH_TOKEN={d.r(32, HEX)}",
        f"{d.r(40)} is the api token",
    ]
    all_refused(cases, description="account notes")


# --- a keyboard shortcut is no password --------------------------------------------------------

@pytest.mark.parametrize("chord", ("Cmd+Shift+P", "Ctrl+Alt+T", "Alt+F4", "Ctrl+Shift+Enter", "Option+Cmd+I", "Ctrl+`"))
def test_a_keyboard_shortcut_after_a_secret_word_passes(chord: str) -> None:
    cases = [
        f"The shortcut for 'reveal password' is {chord}.",
        f"keybinding 'hide secrets': {chord}",
        f"to copy the token press {chord}",
    ]
    all_pass(cases, description="shortcuts")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_with_a_plus_still_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    cases = [
        f"The admin password is {d.r(6)}+{d.r(5)}{rng.randrange(10, 99)}!",
        f'password = "Ctrl+{d.r(10)}"',
    ]
    all_refused(cases)


# --- PINs and lock codes after a label, in the languages the gate reads ------------------------

def _code(rng: random.Random, n: int) -> str:
    while True:
        digits = "".join(rng.choice("0123456789") for _ in range(n))
        if len(set(digits)) > 1 and not digits.startswith(("19", "20")):
            return digits


@pytest.mark.parametrize("seed", SEEDS)
def test_a_lock_or_alarm_code_after_its_label_counts(seed: int) -> None:
    rng = random.Random(seed)
    c = _code(rng, rng.choice([4, 5, 6]))
    cases = [
        f"The disarm code for the depot alarm is {c}; keypad by the loading bay.",
        f"security code at the back gate: {c}",
        f"Código de la puerta del garaje: {c}",
        f"el código de acceso del portal es {c}",
        f"Der Türcode im Keller ist {c}",
        f"Die PIN der Tankkarte lautet {c}",
        f"kod do sejfu to {c}",
        f"Kod dostępu: {c}",
        f"le digicode de l'immeuble est {c}",
        f"Portkod till huset: {c}",
        f"padlock on the shed, combination {rng.randrange(10, 40)}-{rng.randrange(10, 40)}-{rng.randrange(10, 40)}",
    ]
    all_refused(cases, description="house notes")


@pytest.mark.parametrize("body", (
    "pin the version to 4.2.1 before the release",
    "the door code policy requires six digits",
    "The alarm code at the gate changed in 2024.",
    "Kod pocztowy: 00-950 Warszawa",
    "kod źródłowy jest w repo, wersja 2048",
    "Código postal: 28013 Madrid",
    "combination 2-3-4 of the flags fails",
    "the lock combination must be changed by 2025",
    "Der Türcode wird seit 2023 per App verteilt",
))
def test_a_code_look_alike_passes(body: str) -> None:
    assert not refused(body, description="notes"), body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_nordic_password_after_its_owner_counts(seed: int) -> None:
    rng = random.Random(seed)
    a, b = rng.sample(["harbor", "thistle", "nimbus", "velvet", "walnut", "quartz", "meadow", "copper"], 2)
    pw = f"{a}.{b.capitalize()}{rng.randrange(10, 99)}"
    cases = [
        f"Lösenordet till servern är {pw}",
        f"Passordet til ruteren er {pw}",
        f"Palvelimen salasana on {pw}",
    ]
    all_refused(cases, description="notes")


@pytest.mark.parametrize("body", (
    "the password on file is stale, ask IT",
    "Lösenordet till servern är utgånget",
    "Palvelimen salasana on vaihdettu eilen",
))
def test_a_nordic_password_sentence_without_one_passes(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- passwords on a command line ----------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_given_to_a_command_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    word = rng.choice(["Harbor", "Tulip", "Quartz", "Meadow"])
    cases = [
        f"xfreerdp /v:rds.example.lan /u:ops /p:'{d.r(6)}={d.r(8)}' /size:1920x1080",
        f"wfreerdp /u:admin /p:{d.r(12)} /v:10.0.3.7",
        f"7z x -p'{word}{rng.randrange(1000, 9999)}!' backup.7z",
        f"zip -r -P {d.r(12)} out.zip ./docs",
        f"htpasswd -bB /etc/apache2/.htpasswd deploy '{word.lower()}_{d.r(8)}'",
        f"htpasswd -b -C 12 .htpasswd ci {d.r(14)}",
        f"net use Y: \\\\nas01\\media {d.r(16)} /user:HOME\\kodi",
        f"net use \\\\files\\scans {word}{rng.randrange(100, 999)}# /user:scanner",
    ]
    all_refused(cases, description="ops commands")


@pytest.mark.parametrize("body", (
    "msbuild app.sln /p:Configuration=Release /p:Platform=x64",
    "net use Z: \\\\fs\\share * /user:CORP\\me",
    "htpasswd -b .htpasswd admin \"$ADMIN_PASS\"",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "htpasswd -b .htpasswd admin <password>",
    "7z a -p archive.7z ./docs",
    "mysql -u root -p mydb",
))
def test_a_command_without_a_password_passes(body: str) -> None:
    assert not refused(body, description="ops commands"), body


# --- a credentials file's `password=` line --------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_dotted_person_password_in_a_credentials_file_counts(seed: int) -> None:
    rng = random.Random(seed)
    a, b = rng.sample(["harbor", "thistle", "nimbus", "velvet", "walnut", "quartz", "meadow", "copper"], 2)
    pw = f"{a}.{b.capitalize()}{rng.randrange(10, 99)}"
    cases = [
        f"~/.smbcredentials\nusername=backup\npassword={pw}\ndomain=HOME",
        f"password={pw}",
        f"[nas]\nuser=ops\npass={pw}",
    ]
    all_refused(cases, description="mount notes")


@pytest.mark.parametrize("body", (
    "password=settings.pass12",
    "    password=cfg.Pass12",
    "password = config.Pass12",
    "conn = connect(host=h, password=self.pw12)",
    "password=os.environ12",
))
def test_a_dotted_reference_in_code_passes(body: str) -> None:
    assert not refused(body, description="code"), body


# --- an XML value under a parent named for a password --------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_value_element_under_a_password_element_counts(seed: int) -> None:
    d = Draw(seed)
    cases = [
        f"<UserAccounts>\n  <AdministratorPassword>\n    <Value>{d.r(14)}</Value>\n"
        "    <PlainText>true</PlainText>\n  </AdministratorPassword>\n</UserAccounts>",
        f"<LocalAccount>\n <Password>\n  <Value>{d.r(6)}+{d.r(8)}=</Value>\n </Password>\n</LocalAccount>",
        f"<AutoLogon><Password><Value>{d.r(12)}</Value></Password></AutoLogon>",
    ]
    all_refused(cases, description="unattend")


@pytest.mark.parametrize("body", (
    "<Password>\n  <Value>$(AdminPassword)</Value>\n</Password>",
    "<PasswordPolicy>\n  <Value>Strict12</Value>\n</PasswordPolicy>",
    "<Timeout>\n  <Value>30000</Value>\n</Timeout>",
    "<Password>\n  <Value>*SENSITIVE*DATA*DELETED*</Value>\n</Password>",
))
def test_a_value_element_without_a_password_passes(body: str) -> None:
    assert not refused(body, description="unattend"), body


# --- a TOTP seed in a sentence ------------------------------------------------------------------

_B32 = "abcdefghijklmnopqrstuvwxyz234567"


@pytest.mark.parametrize("seed", SEEDS)
def test_a_grouped_totp_seed_after_is_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    groups = " ".join(d.r(4, _B32) for _ in range(rng.choice([4, 6, 8])))
    if not any(c.isdigit() for c in groups):
        groups = "k7" + groups[2:]
    cases = [
        f"The ops vault's TOTP seed is {groups}",
        f"our 2FA secret was {groups.upper()} until the reset",
        f"MFA key = {groups}",
    ]
    all_refused(cases, description="auth notes")


@pytest.mark.parametrize("body", (
    "the 2fa setup is done via the app store page",
    "the TOTP seed is kept with other store items here",
    "MFA key is stored in the hardware token now",
    "our 2FA secret was rotated last week after the audit",
))
def test_an_otp_sentence_without_a_seed_passes(body: str) -> None:
    assert not refused(body, description="auth notes"), body


# --- recovery codes on the label's line with no word "codes" --------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_recovery_codes_after_a_bare_recovery_label_count(seed: int) -> None:
    d = Draw(seed)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

    def code() -> str:
        while True:
            c = d.r(10, alphabet)
            if any(ch.isdigit() for ch in c) and sum(ch.isalpha() for ch in c) >= 2:
                return c

    listed = ", ".join(code() for _ in range(5))
    cases = [
        f"GitHub org owner recovery: {listed}",
        f"backup: {listed.lower()}",
    ]
    all_refused(cases, description="account notes")


@pytest.mark.parametrize("body", (
    "backup: db01, db02, db03, db04",
    "backup: server01, server02, server03, server04",
    "Disaster recovery: RTO 4h, RPO 15m, region2, tier3",
    "recovery: see the runbook, step 4 and step 5",
))
def test_a_recovery_line_without_codes_passes(body: str) -> None:
    assert not refused(body, description="ops notes"), body
