"""The secret gate's classes from the eighteenth blind corpus (tuned on heldout18, whose strings none
of these are): passphrases of words outside BIP-39's list, a dotted password in prose, a login named
in the description over its bare password, seed phrases numbered against their words or halved under
labels, recovery-code lists and digit recovery keys under their description, a cookie under a
description naming one, Java store passwords, letters no words make, Markdown's bold labels, a user
and password apart by a dash, words given to ``/p:`` and ``ConvertTo-SecureString``. Beside each, the
look-alikes that share its place and must pass; and the four false alarms of the corpus as classes
(a minisign public key after ``-P``, a fixture's value that says it is fake, a property of passwords
changed "to" a value, settings in base64 under a cookie's name); and a page's analytics and
consent cookies (``_ga=GA1.2...``) under a cookie's description, a false alarm on main.

A second pass took the corpus's last twelve misses as classes, below the first: an upper-case vendor
prefix before a UUID, a prefix before standard base64, a dotted key name and its secret after a colon,
an SNMP client's community, a file named for a password with its content, a lower-case recovery code,
a panel's code read out, a Wi-Fi password after its network in any language, an account after a
password's noun, a passphrase after a default account's slash, words run together in a sentence.

A third pass (heldout19) took the corpus's three false alarms and nine misses as classes, below the
second: a memory about passwords whose schema fields (``type``, ``source``) were read as the value its
description names, the credential word and a counter (``password123``) as a fixture's value, half a
password before an ellipsis, a short revocation code straight after its label, and the misses after them.

Each test draws its values afresh from generators seeded three ways (none is an item of a bench
corpus).
"""

from __future__ import annotations

import base64
import json
import random
import re

import pytest

from secret_probe import HEX, WORDS, Draw, all_pass, all_refused, bip39_words, phrase, refused, uuid4
from vault_mem.model.seed_words import BIP39_ENGLISH

SEEDS = (20261218, 18, 4747)
_BIP39 = frozenset(BIP39_ENGLISH)


def _word(rng: random.Random) -> str:
    """A word a diceware list could hold and BIP-39's does not: syllables of a consonant and a vowel."""
    while True:
        w = "".join(rng.choice("bdfgklmnprstvz") + rng.choice("aeiou") for _ in range(rng.choice([2, 3])))
        w += rng.choice(["", "n", "r", "l", "s"])
        if w not in _BIP39:
            return w


def _dice(rng: random.Random, n: int = 4, sep: str = "-") -> str:
    return sep.join(_word(rng) for _ in range(n))


def _pw(d: Draw) -> str:
    """A password no word could be: letters of both cases, digits and a symbol."""
    return f"{d.r(5)}{d.rng.choice('!#%&*')}{d.r(6)}"


# --- a passphrase of words outside BIP-39's list -------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_diceware_passphrase_of_uncommon_words_counts_after_a_sign(seed: int) -> None:
    rng = random.Random(seed)
    all_refused([
        f"Password: {_dice(rng)}",
        f"the netflix password is {_dice(rng, 5)} dont share it",
        f"VPN user mara, password \"{_dice(rng, 4, '_')}\"",
        f"VPN :: user \"mara.k\" :: password \"{_dice(rng)}\"",  # (quotes sign a value as `:` does)
        f"xfreerdp /v:10.0.2.15 /u:Administrator /p:'{_dice(rng)}'",
        f"$pw = ConvertTo-SecureString '{_dice(rng)}' -AsPlainText -Force",
    ], description="access")


@pytest.mark.parametrize("body", [
    "Password: not-a-real-password", "password = fake-password-for-tests", "TEST_PASSWORD = \"mock-secret-value\"",
    "PASSWORD = \"dummy-pass\"", "password: bogus-value-for-the-fixture",
    'the password "reset-link-expired" email', 'see the password "forgot-your-password" page',
])
def test_values_that_say_they_are_fake_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- a dotted password in prose -----------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_dotted_password_in_prose_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    cases = []
    for _ in range(3):
        head = d.r(3, "ABCDEFGHJKLMNPQRSTUVWXYZ")
        tail = f"{rng.choice('abcdefghkmnpqrstuvwxyz')}{d.r(1, 'ABCDEFGHJKLMNPQRSTUVWXYZ')}{rng.randrange(10, 99)}" \
               f"{d.r(4, 'abcdefghijkmnopqrstuvwxyz')}"
        cases.append(f"The wifi password at the {rng.choice(['Porto', 'Graz', 'Leeds'])} office is {head}.{tail} "
                     f"(network: {rng.choice(WORDS).title()}-Guest).")
    all_refused(cases, description="wifi")


@pytest.mark.parametrize("body", [
    "the password is settings.dbPass2", "the wifi password is config.wifi.secretValue",
    "the password is s3Bucket.ec2Instance", "the password is AppConfig.V2Async",
])
def test_dotted_names_in_prose_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- a login named in the description, its password the body ------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_login_in_the_description_over_a_bare_password_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    user = rng.choice(["kim", "admin", "ops", "mara"])
    cases = [
        (f"NAS admin account (user: {user})", f"{rng.choice(WORDS).title()}{rng.choice(WORDS)}{rng.randrange(1950, 2030)}"),
        (f"{rng.choice(['NAS', 'router', 'printer'])} login for user {user}", _pw(d)),
        ("Jira account", _pw(d)),
        (f"signed in as {user} on the switch", _pw(d)),
    ]
    for description, body in cases:
        assert refused(body, description=description), (description, body)


@pytest.mark.parametrize("seed", SEEDS)
def test_what_identifies_an_account_under_its_description_passes(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    word = rng.choice(WORDS).title()
    cases = [
        ("username for the NAS", f"{word}{rng.randrange(1950, 2030)}"),
        ("service account for the CI", f"u_{d.r(10, HEX)}"),
        ("account id for prod", d.r(12, HEX)),
        (f"Jira account for {word}", f"{word.upper()}-{rng.randrange(100, 9999)}"),
        ("login page bug", f"TypeError{rng.randrange(100, 999)}"),
        ("login email", f"{word.lower()}@example.org"),
    ]
    for description, body in cases:
        assert not refused(body, description=description), (description, body)


# --- seed phrases: numbered against their words, halved under labels ------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_seed_phrase_numbered_against_its_words_counts(seed: int) -> None:
    rng = random.Random(seed)
    for mark in (".", ")"):
        words = rng.sample(BIP39_ENGLISH, 12)
        body = "\n".join(f"{i + 1}{mark}{w}" for i, w in enumerate(words))
        assert refused(body, description="cold storage"), body


@pytest.mark.parametrize("seed", SEEDS)
def test_seed_phrase_halves_under_their_own_labels_count(seed: int) -> None:
    rng = random.Random(seed)
    words = bip39_words(rng)
    description = f"seed phrase words 1-6: {' '.join(words[:6])}"
    body = f"words 7-12: {' '.join(words[6:])}"
    assert refused(body, description=description)


@pytest.mark.parametrize("seed", SEEDS)
def test_labelled_lists_of_everyday_words_in_two_fields_pass(seed: int) -> None:
    rng = random.Random(seed)
    assert not refused("pantry: rice flour sugar salt olive", description="fridge: milk butter cheese apple lemon")
    assert not refused(f"tags: {' '.join(rng.sample(WORDS, 4))}", description=f"topics: {' '.join(rng.sample(WORDS, 4))}")


# --- recovery codes and keys under a description naming them --------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_recovery_code_lists_under_their_description_count(seed: int) -> None:
    d = Draw(seed)
    low = "abcdefghijklmnopqrstuvwxyz0123456789"
    cases = [
        ("Discord backup codes", "\n".join(f"- {d.r(4, low)}-{d.r(4, low)}" for _ in range(8))),
        ("npm 2FA recovery codes", "\n".join(d.r(64, HEX) for _ in range(5))),
        ("GitLab recovery codes", " ".join(d.r(16, HEX) for _ in range(10))),
        ("BitLocker recovery key for the laptop", "-".join(f"{d.rng.randrange(10 ** 6):06d}" for _ in range(8))),
    ]
    for description, body in cases:
        assert refused(body, description=description), (description, body)


@pytest.mark.parametrize("seed", SEEDS)
def test_checksums_and_numbers_under_other_descriptions_pass(seed: int) -> None:
    d = Draw(seed)
    cases = [
        ("release checksums", "\n".join(d.r(64, HEX) for _ in range(5))),
        ("commits in the release", " ".join(d.r(16, HEX) for _ in range(10))),
        ("phone numbers of the team", "-".join(f"{d.rng.randrange(10 ** 6):06d}" for _ in range(3))),
    ]
    for description, body in cases:
        assert not refused(body, description=description), (description, body)


# --- a cookie under a description naming one -----------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_session_cookie_named_by_the_description_counts(seed: int) -> None:
    d = Draw(seed)
    cases = [
        ("legacy portal cookie", f".ASPXAUTH={d.r(256, HEX).upper()}"),
        ("cookie for the scraping job", f"li_at: AQED{d.r(140)}"),
        ("session cookie from devtools", f"sid={d.r(48)}"),
    ]
    for description, body in cases:
        assert refused(body, description=description), (description, body)


@pytest.mark.parametrize("seed", SEEDS)
def test_settings_cookies_under_a_cookie_description_pass(seed: int) -> None:
    rng = random.Random(seed)
    prefs = {"theme": rng.choice(["dark", "light"]), "lang": rng.choice(["de", "fr", "en"]), "density": "compact"}
    all_pass([
        "prefs=" + base64.b64encode(json.dumps(prefs).encode()).decode().rstrip("="),
        "prefs=" + base64.urlsafe_b64encode(json.dumps(dict(prefs, tz="Europe/Berlin")).encode()).decode(),
        "cookie_consent=accepted",
    ], description="prefs cookie")



def _analytics_cookies(d: Draw) -> list[str]:
    """Cookies a page's scripts set for analytics, ad attribution and consent, in their public
    shapes: a random visitor number, timestamps, counts, a UUID, the choices made."""
    rng = d.rng
    ts = str(rng.randrange(1_600_000_000, 1_800_000_000))
    num = str(rng.randrange(10**8, 10**10))
    uuid = "-".join(d.r(n, HEX) for n in (8, 4, 4, 4, 12))
    return [
        f"_ga=GA1.{rng.choice([1, 2, 3])}.{num}.{ts}",
        f"_gid=GA1.2.{rng.randrange(10**8, 10**10)}.{ts}",
        f"_ga_{d.r(10, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}=GS1.1.{ts}.{rng.randrange(1, 40)}.1.{ts}.0.0.0",
        f"_ga_{d.r(8, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}=GS2.1.s{ts}$o{rng.randrange(1, 40)}$g1$t{ts}$j60$l0$h0",
        f"_gcl_au=1.1.{num}.{ts}",
        f"_fbp=fb.1.{ts}{rng.randrange(100, 999)}.{num}",
        f"__utma={rng.randrange(10**8, 10**9)}.{num}.{ts}.{ts}.{ts}.{rng.randrange(1, 9)}",
        f"_pk_id.{rng.randrange(1, 9)}.{d.r(4, HEX)}={d.r(16, HEX)}.{ts}.",
        f"ajs_anonymous_id=%22{uuid}%22",
        f"OptanonConsent=isGpcEnabled=0&datestamp=Thu+Dec+04+2026&version=202310.1.0&consentId={uuid}",
    ]


@pytest.mark.parametrize("seed", SEEDS)
def test_analytics_and_consent_cookies_under_a_cookie_description_pass(seed: int) -> None:
    """A page's analytics and consent cookies carry a visitor id and timestamps that nothing signs
    in with: alone, several together, in a ``Cookie:`` header or a request's header, they pass."""
    d = Draw(seed)
    cookies = _analytics_cookies(d)
    for description in ("prefs cookie", "analytics cookie", "site cookies", "notes"):
        all_pass(cookies, description=description)
        all_pass([
            "; ".join(cookies[:4]),
            f"Cookie: {cookies[0]}; theme=dark",
            f"curl -H 'Cookie: {'; '.join(cookies[:3])}' https://shop.example.com/cart",
            f"{cookies[0]}\n\nset by the shop's analytics script",
        ], description=description)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_session_among_analytics_cookies_or_in_their_name_counts(seed: int) -> None:
    """The analytics cookies pass, not what stands beside them or a token under their name."""
    d = Draw(seed)
    ga = _analytics_cookies(d)[0]
    all_refused([
        f"Cookie: {ga}; sessionid={d.r(40)}",
        f"curl -H 'Cookie: {ga}; connect.sid=s%3A{d.r(32)}.{d.r(43)}' https://shop.example.com/",
    ], description="prefs cookie")
    assert refused(f"_ga={d.r(48)}", description="prefs cookie")  # (no shape of an analytics cookie)
    assert refused(f"sessionid={d.r(44)}", description="session cookie")

# --- names, places and values the gate did not read ------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_store_passwords_lines_and_labels_count(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    noise = ""
    while not re.search("[b-df-hj-np-tv-xz]{4}", noise):  # (16 letters drawn whole nearly always have one)
        noise = d.r(16, "abcdefghijklmnopqrstuvwxyz")
    all_refused([
        f'<Connector port="8443" keystoreFile="conf/.keystore" keystorePass="{d.r(14)}" />',
        f'<Connector truststorePass="{d.r(14)}" />',
        f"account gmail\nhost smtp.gmail.com\nuser me@gmail.com\npassword {noise}",
        f"**Password:** `{_dice(rng)}`",
        f"**Server:** 10.0.4.2\n**User:** root\n**Password:** {_pw(d)}",
        f"{rng.choice(['admin', 'root', 'ops'])} — {_pw(d)}",
        f"{rng.choice(['admin', 'root', 'ops'])} – {_pw(d)}",
    ], description="config")


@pytest.mark.parametrize("body", [
    "**Password:** see the vault entry", "**Password:** rotated quarterly",
    'keystoreType="PKCS12" keystorePass="${KEYSTORE_PASSWORD}"',
    "Release — 2024-05-01", "the build — green since Monday", "docs / getting-started",
])
def test_their_look_alikes_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- the corpus's false alarms, as classes ---------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_public_signing_keys_fake_fixtures_and_password_properties_pass(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    minisign_pub = base64.b64encode(b"Ed" + bytes(rng.randrange(256) for _ in range(40))).decode()
    all_pass([
        f"minisign -Vm release.tar.gz -P {minisign_pub}",
        f"signify -V -p {minisign_pub} -m SHA256",
        f'FAKE_PASSWORD = "not-a-real-{rng.choice(["password", "one", "secret"])}"',
        f'PASSWORD = "{rng.choice(["fake", "dummy", "mock"])}-password"',
        f"We moved password hashing from bcrypt to argon2id (m={rng.choice([64, 128])}MiB, t=3, p=1).",
        "We switched the password manager from LastPass to Bitwarden2024 last year.",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_their_credentials_still_count(seed: int) -> None:
    d = Draw(seed)
    all_refused([
        f"minisign -S -s key.sec -m file -P {d.r(12)}!{d.r(4)}",  # (not a public key's shape)
        f"I changed the admin password to {_pw(d)} yesterday",
        f'PASSWORD = "{_pw(d)}"',
    ])


# --- tokens by shape the rule table has no row for (heldout18's second pass) ----------------------

ALNUM_DASH = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _b64_tail(d: Draw, n: int) -> str:
    """Standard base64 with a `+` and a `/` inside it, as a key's bytes encode."""
    s = list(d.r(n))
    s[d.rng.randrange(2, n // 2)] = "+"
    s[d.rng.randrange(n // 2, n - 2)] = "/"
    return "".join(s)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_upper_case_vendor_prefix_before_a_uuid_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    prefix = "".join(rng.choice("BCDFGHJKLMNPQRSTVWXZ") for _ in range(rng.choice([3, 4, 5])))
    all_refused([
        f"the cli printed {prefix}-{uuid4(rng)} for the pipeline",
        f"export ACME_TOKEN={prefix}_{uuid4(rng)}",
        f"{prefix}-{uuid4(rng).upper()}",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_ids_that_carry_a_uuid_pass(seed: int) -> None:
    rng = random.Random(seed)
    all_pass([
        f"kubectl describe pv pvc-{uuid4(rng)}",
        f"see INC-{uuid4(rng)} and CASE-{uuid4(rng)}",
        f"request id: RQST-{uuid4(rng)}",
        f"urn:uuid:{uuid4(rng)}",
        f"trace {uuid4(rng)} took 40 ms",
        "HRKU-00000000-0000-0000-0000-000000000000",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_prefix_before_a_standard_base64_tail_counts(seed: int) -> None:
    d = Draw(seed)
    prefix = d.rng.choice(["whsec", "hooksk", "sig", "ep"])
    all_refused([
        f"wh = Webhook('{prefix}_{_b64_tail(d, 32)}')",
        f"SIGNING_SECRET={prefix}_{_b64_tail(d, 40)}==",
        f"the endpoint's secret is {prefix}_{_b64_tail(d, 28)}",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_paths_digests_and_sri_hashes_pass(seed: int) -> None:
    d = Draw(seed)
    all_pass([
        f"see src_dir/{d.rng.choice(['Module', 'Core'])}/handler/router/views.py",
        f"integrity=\"sha384-{_b64_tail(d, 64)}\"",
        f"sha_{_b64_tail(d, 40)}=",
        f"cp my_notes/{d.rng.choice(['drafts', 'inbox'])}/today+tomorrow/plan.md out/",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_dotted_key_name_and_its_secret_after_a_colon_count(seed: int) -> None:
    d = Draw(seed)
    name = f"{d.r(6)}.{d.r(6)}"
    all_refused([
        f"new Realtime('{name}:{d.r(43, ALNUM_DASH)}')",
        f"ABLY_KEY={d.r(6)}.{d.r(7)}:{d.r(40)}",
        f"client key {d.r(5)}.{d.r(8)}:{d.r(36)}",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_hosts_images_and_tags_with_a_colon_pass(seed: int) -> None:
    rng = random.Random(seed)
    all_pass([
        f"db.internal.example:{rng.randrange(1024, 65535)}",
        "registry.k8s.io/kube-proxy:v1.29.3",
        f"node.js:{''.join(rng.choice(HEX) for _ in range(40))}",
        "Python.h:SomeLongFunctionNameThatIsReallyLong",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_an_snmp_clients_community_string_counts(seed: int) -> None:
    d = Draw(seed)
    tool = d.rng.choice(["snmpwalk", "snmpget", "snmpbulkwalk", "snmptable", "snmpset"])
    all_refused([
        f"{tool} -v2c -c {d.r(12)} 10.0.{d.rng.randrange(256)}.2 ifDescr",
        f"sudo /usr/bin/{tool} -v1 -c {d.r(6)}#{d.r(4)} switch-{d.rng.randrange(9)}.lan sysName.0",
    ])


def test_default_communities_and_other_commands_c_flags_pass() -> None:
    all_pass([
        "snmpwalk -v2c -c public 10.0.0.2 ifDescr",
        "snmpget -v1 -c private router sysUpTime.0",
        "snmpd -c /etc/snmp/snmpd.conf -f",
        "snmptrapd -c snmptrapd.conf",
        "gcc -c main.c -o main.o",
        "bash -c Xk3abcdEfg12",
        "grep -c ERROR app.log",
    ])


# --- passwords named by their place: a network's, an account's -----------------------------------

_NETWORK_LABELS = [("Red", "clave"), ("Réseau", "clé"), ("WLAN", "WPA-Schlüssel"), ("Rede", "senha"),
                   ("wifi", "password"), ("Sieć", "hasło")]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_wifi_password_after_its_network_in_any_language_counts(seed: int) -> None:
    rng = random.Random(seed)
    net, key = rng.choice(_NETWORK_LABELS)
    all_refused([
        f"{net}: {rng.choice(['Oficina', 'Bureau', 'Cabin'])}-{rng.choice(['2G', '5G'])} / {key}: {_dice(rng)}",
        f"{rng.choice(['Guest', 'Office', 'Lab'])} {rng.choice(['network', 'wifi', 'WLAN'])} -> {_dice(rng)}",
        f"home wifi => {_dice(rng, 5)}",
    ], description="wifi")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_networks_other_settings_and_kinds_pass(seed: int) -> None:
    rng = random.Random(seed)
    net, _ = rng.choice(_NETWORK_LABELS)
    all_pass([
        f"{net}: Oficina-2G / banda: 5ghz-canal-{rng.randrange(1, 165)}",
        f"{net}: Lab / vlan: {rng.randrange(2, 4000)}",
        "network -> docker-compose-default-bridge",
        "Network -> bridge",
        f"network: 10.{rng.randrange(256)}.0.0/16 / gateway: 10.0.0.1",
    ], description="network notes")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_passphrase_after_a_default_account_and_a_slash_counts(seed: int) -> None:
    rng = random.Random(seed)
    account = rng.choice(["admin", "root", "administrator", "postgres", "guest"])
    all_refused([
        f"<ops> anyone have the login?\n<kim> {account} / {_dice(rng)}\n<ops> thx",
        f"{account} — {_dice(rng, 5)}",
    ], description="chat log")


def test_other_names_and_slashes_pass() -> None:
    all_pass([
        "read / write-access-control-list",
        "admin / user-guide-and-faq",
        "docs / getting-started-with-the-cli",
        "admin / settings-page-layout-draft",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_an_account_named_after_the_password_noun_counts(seed: int) -> None:
    rng = random.Random(seed)
    account = rng.choice(["root", "admin", "sudo"])
    all_refused([
        f"Le mot de passe {account} du serveur de {rng.choice(['test', 'prod', 'dev'])} est {_dice(rng)}",
        f"La contraseña {account} del router es {_dice(rng)}",
        f"A senha {account} do banco é {_dice(rng)}",
    ], description="accès")


def test_where_an_accounts_password_lives_passes() -> None:
    all_pass([
        "Le mot de passe root est dans le coffre",
        "La contraseña admin está en el gestor",
        "the root password is in the shared vault",
        "Le mot de passe root expire dans 90 jours",
    ])


# --- files, codes and run-together words -----------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_file_named_for_a_credential_and_its_content_count(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    name = rng.choice(["password.txt", "node-pass.txt", "wallet_passphrase.txt", "vault.pw", "db_pwd.txt"])
    all_refused([
        f'{{"address":"{"".join(rng.choice(HEX) for _ in range(40))}","version":3}}\n{name}: {_dice(rng)}',
        f"/home/ops/keystore/{name}: {_pw(d)}",
        f"api_token.txt: {d.r(36)}",
    ], description="wallet")


def test_files_about_passwords_and_empty_ones_pass() -> None:
    all_pass([
        "password_policy.txt: min-length-fourteen-chars",
        "password.txt: ~/.config/acme/password.txt",
        "password.txt: (empty)",
        "passwords.txt: 644",
        "token-format.txt: base64url-with-a-prefix",
        "README.txt: copper-granite-mosaic-ember",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_lower_case_recovery_code_after_its_label_and_account_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng

    def code() -> str:
        while True:
            c = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(12))
            if sum(ch.isdigit() for ch in c) >= 3 and sum(ch.isalpha() for ch in c) >= 3 and not set(c) <= set(HEX):
                return c
    all_refused([
        f"backup code for @{rng.choice(['acme_ops', 'mira', 'ci-bot'])}: {code()}",
        f"{rng.choice(['Dropbox', 'X', 'Bitwarden'])} recovery code: {code()}",
        f"recovery code (personal account) is {code()}.",
    ], description="account recovery")


def test_recovery_settings_and_versions_pass() -> None:
    all_pass([
        "the backup key rotation job is cron2024v3",
        "backup code for v2: release2024",
        "backup code: abc123def456",
        "backup key: 4f3a9c2e1b7d",
        "backup code was regenerated in 2024",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_panels_admin_code_read_out_with_its_occasion_counts(seed: int) -> None:
    rng = random.Random(seed)
    digits = "".join(rng.choice("0123456789") for _ in range(rng.choice([4, 6, 8])))
    who = rng.choice(["admin", "master", "installer"])
    all_refused([
        f"Jo read out the {who} code during the call: {digits} (for the panel at HQ)",
        f"the {who} code for the alarm panel is {digits}",
    ], description="note from the call")


def test_codes_that_are_no_secret_pass() -> None:
    all_pass([
        "admin code review during the sprint: 2024",
        "the user code at line 4021 is wrong",
        "error code: 4031",
        "master code freeze during the release: 2025",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_words_run_together_after_a_password_count_when_the_sentence_goes_on(seed: int) -> None:
    rng = random.Random(seed)

    def run() -> str:
        while True:
            w = "".join(_word(rng) for _ in range(3))
            if len(w) >= 14 and not w.endswith(("ed", "ing", "ly", "less", "ful", "ous", "ive")):
                return w
    all_refused([
        f"my old {rng.choice(['yahoo', 'hotmail', 'router'])} password was {run()} and it still works",
        f"the wifi password is {run()} but ask first",
    ])


def test_states_and_names_run_together_pass() -> None:
    all_pass([
        "my password was incorrectlytyped and it locked me out",
        "the password is autogenerated and rotated weekly",
        "the password field is passwordconfirmation in the form",
        "the password hashing is argonidwithpepper in prod",
    ])


# --- heldout19: talk about passwords with no password in it ---------------------------------------

def _write_refused(body: str, description: str, meta: dict) -> bool:
    from vault_mem.errors import SecretError
    from vault_mem.model.policy import check_write
    try:
        check_write(key="probe", description=description, body=body, meta=meta)
    except SecretError:
        return True
    return False


@pytest.mark.parametrize("kind", ["procedure", "reference", "decision", "preference"])
def test_a_memory_about_passwords_passes_whatever_its_type(kind: str) -> None:
    # the schema's `type` and `source` hold a kind: never the credential the description names
    for description, body in [
        ("password rules", "Passphrases need 4 words or more, no reuse of the last 10, rotate yearly."),
        ("when the router password is lost", "Press reset for 30 seconds; the router then takes the key on its sticker."),
        ("Kennwort-Richtlinie", "Kennwörter brauchen 12 Zeichen, eine Ziffer und ein Sonderzeichen."),
    ]:
        for source in ("user", "agent", "imported"):
            assert not _write_refused(body, description, {"type": kind, "source": source}), (kind, body)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_under_its_description_still_counts_beside_a_type(seed: int) -> None:
    d = Draw(seed)
    assert _write_refused(_pw(d), "staging db password", {"type": "reference", "source": "user"})
    assert _write_refused(f"{d.r(9)} ... the rest is in the safe", "the vault password, first half",
                          {"type": "note", "source": "agent"})


@pytest.mark.parametrize("seed", SEEDS)
def test_the_credential_word_and_a_counter_still_counts(seed: int) -> None:
    """A decision (the lead's): `password123` or `Admin2024!` is guessable, but people use such
    values as real passwords; a fixture refused costs a rephrase, a password stored is synced to
    every clone. The bare word (`changeme`, `password`) stays a placeholder."""
    rng = random.Random(seed)
    n = rng.randrange(1, 9999)
    all_refused([
        f"user: qa@example.org\npassword: password{n}\n(created by the seed task)",
        f"login alice / Password{n}! on the local docker stack",
        f"user: qa@corp.io\npassword: {rng.choice(WORDS)}{n}{rng.choice('!#%')}",
    ])
    all_pass(["DB_PASSWORD=changeme", "password: password"])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_short_revocation_or_recovery_code_after_its_label_counts(seed: int) -> None:
    d = Draw(seed)
    code = f"{d.rng.choice('RKQ')}{d.rng.randrange(10000, 99999)}"
    all_refused([
        f"steam guard revocation code {code} \u2014 keep it to remove the authenticator",
        f"rescue code: {code}",
        f"the recovery code is {code}.",
    ])
    all_pass([
        "revocation code path is in the docs",
        "recovery code R2 is the second one",
        "backup code list was regenerated on 2024-05-01",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_given_positionally_to_a_class_method_counts(seed: int) -> None:
    d = Draw(seed)
    all_refused([
        f"Net::FTP.open('files.{d.r(5).lower()}.net', 'deploy', '{_pw(d)}')",
        f'Mail::IMAP.connect("imap.corp.example", 993, "inbox-bot", "{_pw(d)}")',
        f"Sftp.Connect(\"10.0.3.7\", \"backup\", \"{_pw(d)}\", 22);",
    ])
    all_pass([
        f'UUID.parse("ab", "{uuid4(d.rng)}")',
        f'Checksum.verify("pkg", "{d.r(64, HEX)}")',
        'Release.tag("app", "v2.4.1")',
        'Rails.logger.info("user", "Deploy finished at 12:00")',
        'Net::HTTP.get("example.com", "/index.html")',
        f'Base64.strict_encode64("note", "{base64.b64encode(d.r(10).encode()).decode()}")',
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_network_then_its_key_after_a_comma_counts_in_any_language(seed: int) -> None:
    rng = random.Random(seed)
    d = Draw(seed)
    all_refused([
        f"visitor network Lobby{rng.randrange(2, 9)}G, key {phrase(rng, 3)}{rng.randrange(10, 99)}",
        f"WLAN Werkstatt; Schlüssel: {phrase(rng, 3)}-{rng.randrange(10, 99)}",
        f"red Oficina, clave {_dice(rng, 4)}",
        f"ssid cabin5g, psk {_pw(d)}",
    ])
    all_pass([
        "network prod, key management-service-v2",
        "wifi Attic-5G, key rotation every 90 days",
        "network vlan20, key rotation-schedule-monthly",
        "the wifi HomeNet, password printed on the router",
        "network docker0, key docker-compose-network-2",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_japanese_labels_written_in_latin_letters_count(seed: int) -> None:
    rng = random.Random(seed)
    d = Draw(seed)
    all_refused([
        f"jikka no wifi no angou kii: {phrase(rng, 3)}{rng.randrange(10, 99)}",
        f"pasuwaado: {_pw(d)}",
        f"honban no akusesu kii wa {d.r(32)}",
        f"staging-you no API kii: {d.r(40)}",
    ])
    all_pass([
        "ango kii no settei wa router no kanri gamen de",
        "API kii wa kankyou hensuu ni aru (MY_API_KEY)",
        "akusesu kii wo rotate shita",
        f"pasuwaado wo wasureta node reset shita ({rng.randrange(2, 9)} kaime)",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_header_less_rows_of_host_user_and_password_count(seed: int) -> None:
    d = Draw(seed)
    user = d.rng.choice(["kiosk", "scanner", "frontdesk", "lab"])
    for sep in ("\t", ",", ";"):
        all_refused([
            "\n".join(f"{user}-{i:02d}{sep}{user}{sep}{_pw(d)}" for i in range(1, 4)),
            "\n".join(f"10.{d.rng.randrange(1, 200)}.0.{i}{sep}{user}{sep}{_pw(d)}" for i in range(2, 5)),
        ])
        all_pass([
            f"web-01{sep}nginx{sep}1.25.3-alpine\nweb-02{sep}nginx{sep}1.25.3-alpine",
            f"node1.lan{sep}redis{sep}7.2.4\nnode2.lan{sep}redis{sep}7.2.5",
            f"host-1{sep}app{sep}sha256:{d.r(24, HEX)}\nhost-2{sep}app{sep}sha256:{d.r(24, HEX)}",
            f"srv-01{sep}nginx{sep}v1.25.3+build.7\nsrv-02{sep}nginx{sep}v1.25.4+build.9",
        ])


@pytest.mark.parametrize("seed", SEEDS)
def test_userinfo_after_a_scheme_with_no_slashes_counts(seed: int) -> None:
    d = Draw(seed)
    all_refused([
        f"sips:desk{d.rng.randrange(10, 99)}:{_pw(d)}@pbx.{d.r(5).lower()}.example",
        f"trunk: iax2:trunk-b:{d.r(12)}@10.{d.rng.randrange(1, 250)}.2.3",
        f"Contact sip:reception:{_pw(d)}@voip.hotel.example:5061",
    ])
    all_pass([
        f"sip:+1555{d.rng.randrange(1000000, 9999999)}@sip.carrier.example;user=phone",
        "sip:alice@atlanta.example.com",
        "sip:bob:bob@pbx.example.com",
        "urn:isbn:0451450523@library.example",
    ])


def _b64(rng: random.Random, n: int) -> str:
    return base64.b64encode(bytes(rng.getrandbits(8) for _ in range(n))).decode()


@pytest.mark.parametrize("seed", SEEDS)
def test_a_dotnet_xml_private_key_counts_and_its_public_half_passes(seed: int) -> None:
    rng = random.Random(seed)
    mod, pub = _b64(rng, 128), "<Exponent>AQAB</Exponent>"
    all_refused([
        f"<RSAKeyValue><Modulus>{mod}</Modulus>{pub}<P>{_b64(rng, 64)}</P><Q>{_b64(rng, 64)}</Q></RSAKeyValue>",
        f"<RSAKeyValue>\n  <Modulus>{mod}</Modulus>\n  {pub}\n  <D>\n{_b64(rng, 128)}\n</D>\n</RSAKeyValue>",
        f"<DSAKeyValue><P>{_b64(rng, 128)}</P><X>{_b64(rng, 20)}</X></DSAKeyValue>",
    ])
    all_pass([
        f"<RSAKeyValue><Modulus>{mod}</Modulus>{pub}</RSAKeyValue>",  # the public key alone
        "<RSAKeyValue><Modulus>...</Modulus><Exponent>AQAB</Exponent><D>...</D></RSAKeyValue> is the format",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_keytab_in_base64_counts_under_its_name(seed: int) -> None:
    rng = random.Random(seed)
    run = base64.b64encode(b"\x05\x02" + bytes(rng.getrandbits(8) for _ in range(70))).decode()
    all_refused([
        f"base64 -d > svc.keytab <<'EOF'\n{run}\nEOF",
        f"KRB5_KEYTAB_B64={run}",
    ])
    other = base64.b64encode(b"\x05\x03" + bytes(rng.getrandbits(8) for _ in range(70))).decode()
    all_pass([f"keytab rotation notes; the blob id is {other[:12]}", "keytab is in the vault at kv/krb5/http"])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_member_of_a_block_named_for_credentials_counts(seed: int) -> None:
    d = Draw(seed)
    all_refused([
        f'acl {{\n  enabled = true\n  tokens {{\n    default = "{uuid4(d.rng)}"\n  }}\n}}',
        f'tokens {{ replication = "{uuid4(d.rng)}" }}',
        f'secrets = {{\n  github = "{d.r(36)}"\n}}',
        f'"credentials": {{ "ci": "{d.r(40, HEX)}" }}',
    ])
    all_pass([
        f'tokens {{\n  accessor_id = "{uuid4(d.rng)}"\n  ttl = "30m"\n}}',
        'secrets {\n  path = "kv/data/app"\n  engine = "kv-v2"\n}',
        f'acl {{ default_policy = "deny"\n  down_policy = "extend-cache" }}\nnode_id = "{uuid4(d.rng)}"',
        'credentials { provider = "aws" region = "eu-west-1" }',
    ])


# --- heldout20: a value read at run time (from the environment, from a command) is no secret ----

@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_read_from_the_environment_by_a_call_passes(seed: int) -> None:
    d = Draw(seed)
    var = d.rng.choice(["DB_PASSWORD", "SMTP_PASS", "API_SECRET"])
    all_pass([
        f'config :shop, Shop.Repo,\n  username: "shop",\n  password: System.fetch_env!("{var}")',
        f'password: System.get_env("{var}")',
        f'password = ENV.fetch!("{var}")',
        f"secret_key_base: System.fetch_env!(\"{var}\"),\n  token = ENV['{var}']",
        f'password: os.environ["{var}"]',
        f"password: process.env.{var}",
    ])
    # the same settings given a literal still count
    all_refused([f'config :shop, Shop.Repo,\n  username: "shop",\n  password: "{_pw(d)}"',
                 f'password = ENV.fetch("{var}", "{_pw(d)}")', f"password: '{_pw(d)}'"])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_a_command_prints_passes(seed: int) -> None:
    d = Draw(seed)
    entry = f"{d.rng.choice(['mail', 'work', 'acct'])}/{d.rng.choice(['corp', 'fastmail', 'imap'])}"
    all_pass([
        f'set imap_user = "me@corp.example"\nset imap_pass = "`pass show {entry}`"',
        f"set smtp_pass = `gopass show -o {entry}`",
        f"set imap_pass = '`~/bin/getpw {entry}`'",
        f'password = "`security find-generic-password -s {entry} -w`"',
        f'password = "$(pass show {entry})"',
        f'passwordeval "gpg -q --for-your-eyes-only -d ~/.{entry.split("/")[0]}.gpg"',
        f'PassCmd "pass show {entry}"',
    ])
    # a literal in backticks (Markdown's code) is the value itself
    all_refused([f"set imap_pass = \"`{_pw(d)}`\"", f"the mail password: `{_pw(d)}`", f"password = `{_pw(d)}`"])


def _syllables(rng: random.Random) -> str:
    """Letters of both cases around a symbol no name holds, and no digit (``KelanDVPt*vypw``)."""
    head = _word(rng).capitalize() + "".join(rng.choice("BDFGKLMNPRSTVZ") for _ in range(3))
    return head + rng.choice("!%^*~") + _word(rng)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_of_letters_and_a_symbol_counts_in_a_user_list(seed: int) -> None:
    rng = random.Random(seed)
    all_refused([
        f'"app" "{_syllables(rng)}"\n"stats" "{_syllables(rng)}"',
        f'"{_word(rng)}" "{_syllables(rng)}"',
        f"userlist.txt:\n\"admin\" \"{_syllables(rng)}\"",
    ])
    # names run together (with a dash, a dot or a case change) are a list of names, not passwords
    all_pass([
        f'"app" "{_word(rng).capitalize()}{_word(rng).capitalize()}-{_word(rng).capitalize()}"',
        '"pgbouncer" "pgbouncer_stats"\n"app" "AppReadOnly"',
        f'"{_word(rng)}" "{_word(rng)}.{_word(rng)}"',
    ])


def _strong(d: Draw) -> str:
    return d.r(8) + d.rng.choice("!%#*") + d.r(4)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_at_the_end_of_a_header_less_row_of_names_counts(seed: int) -> None:
    d = Draw(seed)
    host, user = d.rng.choice(["pg", "db01.corp", "mysql-eu"]), _word(d.rng)
    all_refused([
        f"{host} | {user} | {_strong(d)}",
        f"| {host} | {user} | {_strong(d)} |",
        f"svc-{user} => {_strong(d)}\nsvc-etl => {_strong(d)}",
        f"{user}@corp.example -> {_strong(d)}",
    ])
    # rows of names, versions, hashes and hosts, and a Ruby hash's constants, pass
    all_pass([
        f"{host} | {user} | v1.25.{d.rng.randint(0, 9)}",
        f"main | build | {d.r(12, HEX)}",
        f"api => api.corp.example\n{user} -> staging-eu-{d.rng.randint(1, 4)}",
        ":adapter => postgresql\n:pool => ConnectionPoolV2",
        f"| host | user | note |\n|---|---|---|\n| {host} | {user} | rotated monthly |",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_an_address_used_with_a_strong_value_counts(seed: int) -> None:
    d = Draw(seed)
    who = f"{_word(d.rng)}@corp.example"
    all_refused([
        f"for tomorrow's demo use {who} with {_strong(d)} so we don't create new users",
        f"Use {who} with `{_strong(d)}` on the staging portal.",
        f"to test checkout, use {who} with the password {_strong(d)}",
    ])
    # an address used with a method, a word or a name is no login
    all_pass([
        f"use {who} with the SSO button",
        f"use {who} with care, it forwards to the whole team",
        f"use {who} with SAML2Okta_Flow enabled",
        f"use {who} with {_word(d.rng)} as the display name",
    ])


@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_under_a_site_and_its_address_counts(seed: int) -> None:
    d = Draw(seed)
    site = f"https://{_word(d.rng)}.vendor.example"
    who = f"{_word(d.rng)}@corp.example"
    all_refused([
        f"{site}\n{who}\n{_strong(d)}",
        f"{site}/login\n  {who}\n  {_strong(d)}\n",
    ])
    # a site, an address and a link or a word below, or a site over a bare name, pass
    all_pass([
        f"{site}\n{who}\n{site}/docs/{_word(d.rng)}",
        f"{site}\n{who}\nrotated-{_word(d.rng)}",
        f"{site}\n{_word(d.rng)}\n{d.r(12, HEX)}",
    ])
