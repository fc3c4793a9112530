"""The secret gate's classes from the twelfth blind corpus's misses (tuned on heldout12, whose
strings none of these are): a password made of common words (joined by one separator, dotted, or
run together) after a password's label in any language and with no sign, a network's passphrase,
a person's password given to a command that takes nothing else (``sshpass -p``, ``openssl -k`` /
``-pass pass:``, ``htpasswd -b``), and session cookies by their name or shape (PHP's and
ASP.NET's, Google's ``SAPISID``/``__Secure-3PSID``, iron-sealed ``Fe26.2`` cookies, WordPress's
login cookie).

Each test draws its values afresh from a seeded generator (none is an item of a bench corpus),
beside the look-alikes that share the place. Each positive fails on the code before these rules
(checked against the parent commit, d2a5056).
"""

from __future__ import annotations

import string

import pytest

from secret_probe import HEX, Draw, found, refused

_DRAW = Draw(20261206)
r, _RNG = _DRAW.r, _DRAW.rng
LOWER36 = string.ascii_lowercase + string.digits
URL64 = string.ascii_letters + string.digits + "-_"
# common words (BIP-39's English list, as passphrase generators draw them; none of heldout12's phrases)
WORDS = ("lobster", "orchard", "pepper", "thunder", "walnut", "harbor", "velvet", "canyon", "pencil", "rocket",
         "meadow", "copper", "island", "violin", "tunnel", "garlic", "jaguar", "saddle", "timber", "oyster")
PEOPLE = ("Thistle", "Marmot", "Biscuit", "Tundra", "Saffron", "Quokka")


def words(n: int) -> list[str]:
    return _RNG.sample(WORDS, n)


def person_pw() -> str:
    """A person's password: a word, a joint, a number (``Marmot_4417``)."""
    return _RNG.choice(PEOPLE) + _RNG.choice("_-.") + r(4, string.digits)


# --- words made into a password -------------------------------------------------------------

@pytest.mark.parametrize("sep", ["-", ".", "_"])
def test_joined_words_after_a_password_label_count(sep: str) -> None:
    phrase = sep.join(words(4))
    assert refused(f"the passphrase for the backup disk is {phrase}")
    assert refused(f"router admin, password {phrase}")  # no sign between
    assert refused(f"Das Kennwort des Testservers ist {phrase}")


def test_words_run_together_count_after_any_languages_label() -> None:
    run = "".join(words(4))
    assert refused(f"Senha do painel: {run}")
    assert refused(f"Hasło {run}")  # (no sign)
    assert refused(f"管理画面のパスワード: {run}")
    assert refused(f"WPA2 key {run} (guest network)")


def test_a_networks_passphrase_of_words_counts() -> None:
    assert refused(f'ok the wifi at the cabin is "{"-".join(words(4))}"')


@pytest.mark.parametrize("text", [
    "pw release-notes-draft",  # a file's name, no sign
    "the password is self.config.db.password",  # a reference
    "the password is stored in vault.secrets.prod.db",
    "Passwort: abgelaufen",  # a state in another language
    "password = currentpassword",  # a variable named for it
    "password authenticationmethod",
    "La contraseña es incorrecta",
    "use the password-reset-flow for locked users",
])
def test_words_that_are_names_or_states_pass(text: str) -> None:
    assert not found(text)


# --- a person's password given to a command that takes one ----------------------------------

def test_a_persons_password_given_to_a_password_command_counts() -> None:
    pw = person_pw()
    assert refused(f"sshpass -p '{pw}' ssh admin@10.1.2.3 uptime")
    assert refused(f"sshpass -p {person_pw()} rsync -a src/ host:/dst")
    assert refused(f"openssl enc -aes-256-cbc -salt -in db.tar -out db.enc -k '{person_pw()}'")
    assert refused(f"openssl enc -d -aes-256-cbc -in db.enc -out db.tar -pass pass:{person_pw()}")
    assert refused(f"htpasswd -b -c /srv/.htpasswd grafana {person_pw()}")


@pytest.mark.parametrize("text", [
    "ssh -p 2222 deploy@10.0.0.9",
    "mkdir -p build_2024",
    "ssh -p 2222 Release-2024@host",
    "openssl enc -d -aes-256-cbc -in db.enc -out db.tar -pass file:/root/backup.pw",
    "htpasswd -b -c /srv/.htpasswd grafana $GRAFANA_PASSWORD",
])
def test_ports_paths_and_references_given_to_commands_pass(text: str) -> None:
    assert not found(text)


# --- session cookies ------------------------------------------------------------------------

def test_session_cookies_by_their_name_count() -> None:
    assert refused(f"PHPSESSID={r(26, LOWER36)} (admin session)")
    assert refused(f"MYAPPSESSID={r(32, LOWER36)}")
    assert refused(f".AspNetCore.Cookies=CfDJ8{r(180, URL64)}")
    assert refused(f"cookies for the scraper: __Secure-1PSID={r(70, URL64)}.; SAPISID={r(34, URL64)}")
    assert refused(f"APISID={r(34, URL64)}")


def test_sealed_and_signed_cookies_by_their_shape_count() -> None:
    iron = (f"Fe26.2**{r(64, HEX)}*{r(22)}*{r(86, URL64)}**{r(64, HEX)}*{r(43, URL64)}")
    assert refused(f"grafana session={iron}")
    wp = f"wordpress_logged_in_{r(32, HEX)}=editor%7C1767000000%7C{r(43)}%7C{r(64, HEX)}"
    assert refused(f"the wp cookie: {wp}")


@pytest.mark.parametrize("text", [
    "TWILIO_ACCOUNT_SID=AC" + "0f" * 16,
    "Account SID AC" + "1e" * 16 + ", Messaging Service SID MG" + "2d" * 16,
    "the SSID is Lindqvist-5G",
    "Set-Cookie: theme=dark; Path=/; SameSite=Lax",
    "cookies: accepted",
    "sid: S-1-5-21-3623811015-3361044348-30300820-1013",
    "the hapi session cookie starts with Fe26.2 and is sealed with iron",
])
def test_cookie_look_alikes_pass(text: str) -> None:
    assert not found(text)


# --- recovery codes in other layouts ----------------------------------------------------------

def test_recovery_codes_of_long_hex_or_three_groups_count() -> None:
    assert refused("Sentry 2FA recovery codes:\n" + "\n".join(r(16, HEX) for _ in range(8)))
    assert refused("PyPI recovery codes\n" + "\n".join(r(64, HEX) for _ in range(4)))
    assert refused("Backup codes for the registrar:\n" + "\n".join(
        "-".join(r(4, LOWER36) for _ in range(3)) for _ in range(6)))


@pytest.mark.parametrize("text", [
    "backup codes are printed in the admin panel; see tickets 12345, 67890 and 24680",
    "recovery codes:\n- regenerate them in settings\n- store them offline\n- never paste them here",
])
def test_recovery_code_look_alikes_pass(text: str) -> None:
    assert not found(text)


def test_the_french_shorthand_names_a_password() -> None:
    assert refused(f"box internet : admin / mdp : {r(18)}")
    assert not found("solve the MDP with value iteration: states, actions, rewards")


# --- whose pw, and a machine's name between a label and its value -----------------------------

def test_a_pw_named_for_whose_it_is_counts() -> None:
    assert refused(f"ldap.conf: binddn cn=reader,dc=corp,dc=lan bindpw={r(14)}")
    assert refused(f"slapd.conf\nrootpw  {r(6)}#{r(5)}")
    assert not found("bindpw ${LDAP_BIND_PW}")


def test_a_machine_named_between_label_and_value_does_not_stop_it() -> None:
    assert refused(f"Nachricht von Jonas: der Token für den Build-Server {r(32)} gilt bis Freitag")
    assert refused(f"the token for the ci runner {r(40)}")
    assert not found(f"token build id {r(32)}")  # an id it still is


# -- what a password's label names, not the password (found by review: ordinary developer prose
# refused, on the old code as on this one) --------------------------------------------------

PROPERTIES = ("hashing scheme", "policy", "hash algorithm", "format", "encoding", "storage backend", "library",
              "column type", "reset flow", "manager", "hint", "complexity rule")
SCHEMES = ("Argon2id", "Policy_v2", "Bcrypt12", "Base64url", "Utf8mb4", "Vault2", "Passlib17", "Varchar255")


@pytest.mark.parametrize("prop", PROPERTIES)
def test_what_a_password_s_compound_label_names_is_no_password(prop: str) -> None:
    value = _RNG.choice(SCHEMES)
    assert not refused(f"The password {prop} is {value}.")
    assert not refused(f"Note for the team: the password {prop} is {value} since March.")


@pytest.mark.parametrize("link", ["for prod", "on db1", "we use now", "of the admin account", "in the office"])
def test_a_password_tied_to_its_place_by_a_preposition_or_pronoun_is_still_refused(link: str) -> None:
    value = r(4, string.ascii_letters) + "#" + r(8, string.ascii_letters + string.digits)
    assert refused(f"The password {link} is {value}")
    assert refused(f"the password reset token is {r(24, LOWER36)}")  # a secret's own noun in the compound


# -- a label that says the thing has no credential (heldout13's look-alike, a class) ----------------

@pytest.mark.parametrize("description", ["mongo url, no password", "the replica set without credentials",
                                         "redis: no auth needed", "passwordless local database"])
@pytest.mark.parametrize("tags", [[], ["reference"], ["infra", "db"]])
def test_a_url_under_a_label_saying_it_has_no_credential_is_stored(description: str, tags: list[str]) -> None:
    hosts = ",".join(f"{r(5, string.ascii_lowercase)}-{i}.{r(4, string.ascii_lowercase)}" for i in range(3))
    body = f"DB_URL=mongodb://{hosts}:27017/{r(5, string.ascii_lowercase)}?replicaSet=rs{r(1, string.digits)}"
    assert not refused(body, description) and not _refused_with_tags(body, description, tags)


@pytest.mark.parametrize("description", ["staging DB password, no rotation yet", "Kafka password (without rotation)",
                                         "no password rotation for the db password"])
def test_a_password_under_a_label_that_negates_something_else_is_still_refused(description: str) -> None:
    value = r(4, string.ascii_letters) + "#" + r(8, string.ascii_letters + string.digits)
    assert refused(value, description) and _refused_with_tags(value, description, ["reference"])


def _refused_with_tags(body: str, description: str, tags: list[str]) -> bool:
    from vault_mem.errors import SecretError
    from vault_mem.model.policy import check_write

    try:
        check_write(key="notes/db-url", description=description, body=body,
                    meta={"type": "fact", "tags": tags, "source": "agent"})
    except SecretError:
        return True
    return False
