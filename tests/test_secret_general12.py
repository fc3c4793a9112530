"""The secret gate's classes from the seventeenth blind corpus (tuned on heldout17, whose strings none
of these are): a list of everyday words under a list's label, one per bullet, is a list and no seed
phrase; a password after its word with no sign in other languages and in prose; one ``.pgpass`` line
in a sentence; base64 of ``user:password`` decoded in a command; a Go DSN; ``net use`` with its
password. Beside each, the look-alikes that share its place and must pass.

Each test draws its values afresh from generators seeded three ways (none is an item of a bench
corpus).
"""

from __future__ import annotations

import base64
import random

import pytest

from secret_probe import ALNUM, WORDS, Draw, all_pass, all_refused, bip39_words, refused

SEEDS = (20261204, 17, 4646)


# --- a bulleted list of list words under a list's label --------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_bulleted_list_under_a_list_label_is_no_seed_phrase(seed: int) -> None:
    rng = random.Random(seed)
    for label in ("Shopping, Saturday:", "Groceries", "Packing list for the trip:", "Inventory of the shed:"):
        bullet = rng.choice(["- ", "* ", "+ ", "\u2022 "])
        body = label + "\n" + "\n".join(bullet + w for w in bip39_words(rng, rng.choice([12, 14, 16]), valid=False))
        assert not refused(body, description="list"), body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_bulleted_seed_phrase_is_still_refused(seed: int) -> None:
    rng = random.Random(seed)
    for label in ("Recovery phrase:", "Ledger seed", "", "Shopping list:"):
        # (under a list's label only a valid checksum makes the words a phrase)
        words = bip39_words(rng, 12, valid="list" in label)
        body = (label + "\n" if label else "") + "\n".join("- " + w for w in words)
        assert refused(body, description="note"), body


# --- a password after its word with no sign: a word, a number and a symbol ---------------------

def _made(rng: random.Random) -> str:
    """A word, a number and a symbol before or after them, as a person makes a password."""
    word = rng.choice([w for w in WORDS if len(w) >= 4])
    word = word.title() if rng.random() < 0.5 else word
    symbol = rng.choice("!#%&*@")  # (`$word` is a variable)
    number = str(rng.randrange(10, 9999))
    return symbol + word + number if rng.random() < 0.5 else word + number + symbol


@pytest.mark.parametrize("seed", SEEDS)
def test_a_made_password_after_its_word_with_no_sign_counts(seed: int) -> None:
    rng = random.Random(seed)
    for label in ("senha", "パスワード", "密码", "hasło", "lösenord", "contraseña", "password"):
        body = f"{rng.choice(['Portal', 'Switch', 'Router'])} {label} {_made(rng)}"
        assert refused(body, description="note"), body


LOOK_ALIKES_NO_SIGN = (
    "password #4521 tracks the reset flow",
    "the password step (#issue42) is done",
    "senha FAQ2024 no portal",
    "the password Policy2024 document is in the wiki",
    "password ERROR42! in the log means the vault timed out",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_NO_SIGN)
def test_a_reference_after_a_password_word_passes(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- a user's word and name, then a password's word and its value, in several languages -------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_named_user_and_password_pair_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    word, number = rng.choice([w for w in WORDS if len(w) >= 5]), rng.randrange(1950, 2030)
    cases = [
        f"Acesso ao ERP: usuário {rng.choice(['compras', 'ops'])}, senha {word.title()}{rng.choice(WORDS)}{number}",
        f"Konto: användare {rng.choice(['lager', 'drift'])}, lösenord {word.title()}{number}",
        f"Serwer: login root, hasło {word.title()}{rng.choice(WORDS)}{number}",
        f"mail relay on port 587 - user reports@{rng.choice(WORDS)}.org, app password {d.r(16, 'abcdefghijklmnopqrstuvwxyz')}",
        f"benutzer {rng.choice(WORDS)} / passwort {d.r(12)}",
    ]
    all_refused(cases, description="access")


LOOK_ALIKES_PAIR = (
    "Read the user guide, password policy applies to everyone.",
    "user management / password reset.",
    "Fixed: user profile, password expired banner shows twice",
    "login page, password field is now masked",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_PAIR)
def test_user_and_password_words_in_prose_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- connection credentials: a quoted .pgpass line, a Go DSN, `net use` -----------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_connection_credentials_in_their_own_syntax_count(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    host = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
    db, user = rng.sample([w for w in WORDS if len(w) >= 4], 2)
    cases = [
        f"put `{host}:{rng.choice([5432, 6432])}:{db}:{user}:{d.r(22)}` in ~/.pgpass for the sync job",
        f"wrote '{rng.choice(['db1.internal', '*'])}:5432:{db}:{user}:{d.r(14)}' to .pgpass",
        f'conn, _ := sql.Open("mysql", "{user}:{d.r(12, ALNUM + "+.?#$")}@tcp({host}:3307)/{db}?charset=utf8mb4")',
        f'dsn := "{user}:{d.r(16)}@unix(/var/run/mysqld/mysqld.sock)/{db}"',
        f"net use Y: \\\\files{rng.randrange(10)}\\{db} /user:ACME\\{user} *{d.r(11)} /persistent:no",
    ]
    all_refused(cases, description="ops")


LOOK_ALIKES_CONNECTION = (
    "the .pgpass format is `hostname:port:database:username:password`",
    "each .pgpass line reads `*:*:*:postgres:<password>`",
    "timestamps like '10:30:00:12:4512' are not in .pgpass",
    'dsn := fmt.Sprintf("%s:%s@tcp(%s)/%s", user, pass, host, db)',
    'dsn := "root:${DB_PASSWORD}@tcp(db:3306)/app"',
    "net use X: \\\\files\\shared /user:ACME\\backup * /persistent:yes",
    "net use X: \\\\files\\shared /user:ACME\\backup ******** /persistent:yes",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_CONNECTION)
def test_connection_templates_and_prompts_pass(body: str) -> None:
    assert not refused(body, description="ops"), body


# --- base64 of user:password where its line decodes it or calls it credentials -----------------

@pytest.mark.parametrize("seed", SEEDS)
def test_base64_of_a_user_and_password_counts_where_decoded(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    for line in ("echo {} | base64 -d", "creds, base64: {}", "const login = atob('{}');", "{}  # base64 --decode gives the auth"):
        pair = f"{rng.choice(['svc', 'ci', 'deploy'])}-{rng.choice(WORDS)}:{d.r(13)}{rng.choice('=+!')}"
        body = line.format(base64.b64encode(pair.encode()).decode())
        assert refused(body, description="ops"), body


@pytest.mark.parametrize("seed", SEEDS)
def test_base64_of_a_pair_without_a_cue_or_a_password_passes(seed: int) -> None:
    rng = random.Random(seed)
    a, b = rng.sample(WORDS, 2)
    all_pass((f"artifact id {base64.b64encode(f'{a}:{b}-{rng.randrange(99)}x'.encode()).decode()} in the cache",
              f"echo {base64.b64encode(f'{a}:{b}'.encode()).decode()} | base64 -d",  # (a word is no password)
              f"echo {base64.b64encode(f'{a}-{b}:v2.14.{rng.randrange(9)}'.encode()).decode()} | base64 -d"), description="notes")


@pytest.mark.parametrize("seed", SEEDS)
def test_the_korean_short_word_for_password_counts(seed: int) -> None:
    d = Draw(seed)
    assert refused(f"{d.rng.choice(['공유기', '서버'])} 비번 {d.r(13)}{d.rng.choice('#@!')}", description="memo")
    assert not refused("비번 변경은 다음 주에 합니다", description="memo")


# --- prose: "the X password, which is Y" ---------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_given_in_a_relative_clause_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    for value in (f"{rng.choice(WORDS).title()}{rng.choice(WORDS)}{rng.randrange(1000, 9999)}", d.r(14), _made(rng)):
        body = f"{rng.choice(['ssh', 'the portal'])} prompts for the {rng.choice(['admin', 'backup'])} account's password, which is {value}."
        assert refused(body, description="note"), body


LOOK_ALIKES_CLAUSE = (
    "Rotate the admin password, which is rotated monthly anyway.",
    "Reset the password, which was expired.",
    "the password, which is stored in the vault, works",
    "the password, which is 12 characters long, is fine",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_CLAUSE)
def test_a_relative_clause_about_a_password_passes(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- a passphrase of words quoted after its label, with no sign ---------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_quoted_words_after_a_passphrase_label_count(seed: int) -> None:
    rng = random.Random(seed)
    for n in (4, 5, 6):
        words = " ".join(rng.sample(WORDS, n))
        body = f'Unlock the {rng.choice(["archive", "disk", "vault"])} with {rng.choice(["passphrase", "password"])} "{words}" tonight.'
        assert refused(body, description="note"), body


LOOK_ALIKES_QUOTED = (
    'the password "must have eight characters" rule',
    'password "never share with anyone" is the rule',
    'the passphrase "something long and memorable" is advice',
    'password "please enter your password" is the prompt',
    'the password field says "change it after the first login"',
)


@pytest.mark.parametrize("body", LOOK_ALIKES_QUOTED)
def test_a_quoted_sentence_after_a_password_word_passes(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- a generator's password after its word with no sign; a secret as a placeholder's default ------

def _scrambled(d: Draw) -> str:
    """Letters and digits whose kind changes at nearly every character, as a generator draws them."""
    while True:
        v = d.r(d.rng.choice([9, 10, 12]))
        runs = sum(1 for i, c in enumerate(v) if i == 0 or (c.isupper(), c.islower()) != (v[i - 1].isupper(), v[i - 1].islower()))
        if 10 * runs >= 8 * len(v):
            return v


@pytest.mark.parametrize("seed", SEEDS)
def test_a_generated_password_after_its_word_mid_sentence_counts(seed: int) -> None:
    d = Draw(seed)
    body = f"{d.rng.choice(['IT', 'The helpdesk'])} issued an initial password {_scrambled(d)}; change it when you first sign in."
    assert refused(body, description="note"), body


LOOK_ALIKES_NAMES = (
    "the password OAuth2Flow docs are outdated",
    "password iPhone15Pro app crashed",
    "the password GPT4oMini generated was weak",
    "password SHA256sum mismatch on upload",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_NAMES)
def test_a_name_after_a_password_word_mid_sentence_passes(body: str) -> None:
    assert not refused(body, description="notes"), body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_secret_as_a_placeholders_default_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    for name in ("payments.secret", "app.jwt-secret", "stripe.api-key", "db.password", "slack.token"):
        body = f'@Value("${{{name}:{d.r(rng.choice([24, 32, 40]))}}}")\nprivate String {rng.choice(WORDS)};'
        assert refused(body, description="code"), body
    all_pass(('@Value("${app.jwt.secret:changeme}")', '@Value("${db.password:}")', '@Value("${app.token.ttl:3600000000000}")',
              '@Value("${app.token-header:Authorization-Header}")', '@Value("${app.secret-file:/etc/app/secret.key}")'), description="code")


# --- a note in full-width brackets right after a value in Japanese or Chinese -----------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_value_before_a_full_width_bracket_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    for label in ("ルーターのパスワード：", "NASのパスワードは", "数据库密码："):
        body = f"{label}{rng.choice(WORDS).title()}{rng.randrange(10, 99)}{rng.choice('_!#')}（{rng.choice(['社外秘', '不要外传'])}）"
        assert refused(body, description="memo"), body
    all_pass(("パスワードは（別紙参照）", "パスワード：（なし）", "密码：（见附件）"), description="memo")


# --- a user's name and its password on the two lines below a line naming a login ---------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_user_and_password_on_two_lines_under_a_login_line_count(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    a, b = rng.sample([w for w in WORDS if len(w) >= 6], 2)
    for label, pw in (("client.up hands this file to auth-user-pass:", f"{a}{b}{rng.randrange(1950, 2030)}"),
                      (f"{rng.choice(['switch', 'NAS'])} admin login", f"{d.r(5)}@{d.r(4)}!"),
                      ("Credentials of the staging box", d.r(16))):
        body = f"{label}\n{rng.choice(['admin', 'j.doe', 'svc-build'])}\n{pw}\n"
        assert refused(body, description="note"), body


LOOK_ALIKES_TWO_LINES = (
    "Login page changes\nheader\nfooter2024",
    "Account settings\nprofile\nnotifications",
    "login flow:\nredirect\nhttps://example.com/callback",
    "Sign-in steps\n1.\nOpen the portal",
    "credentials rotation\nowner\nplatform-team",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_TWO_LINES)
def test_two_plain_lines_under_a_login_line_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- a network's name and its password after a Wi-Fi label, split by a slash -------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_network_and_its_password_split_by_a_slash_count(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    for pw in (_made(rng), d.r(14), "-".join(rng.sample(WORDS, 4))):
        body = f"Cabin notes:\n- {rng.choice(['wifi', 'Wi-Fi', 'WLAN'])}: {rng.choice(WORDS).title()}-{rng.choice(['Lodge', '2G'])} / {pw}\n- keys at the desk"
        assert refused(body, description="offsite"), body
    all_pass(("wifi: Office-5G / Office-5G-Guest", "wifi: Office / 2.4GHz", "WLAN: HomeNet / see the router sticker",
              "ssid: corp / 802.11ax", "wifi: Guest / Guest-Portal"), description="offsite")


# --- Google's app password after its label, words between ---------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_an_app_password_after_its_label_with_words_between_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    lower = "abcdefghijklmnopqrstuvwxyz"
    for sep in (" ", "-", ""):
        value = sep.join(d.r(4, lower) for _ in range(4))
        body = f"App password the {rng.choice(['backup job', 'CI'])} uses to send reports: {value}"
        assert refused(body, description="mail"), body


LOOK_ALIKES_APP = (
    "the app password page will show once more",
    "app passwords: turn them off when mail flow ends soon",
    "App password used when sent mail from home",
    "Application passwords need more care with sync jobs",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_APP)
def test_words_after_an_app_password_label_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- one recovery code or one-time password seed on its label's line ------------------------------

B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def _base32(d: Draw, n: int) -> str:
    """Base32 as a TOTP setup key is drawn (a vowel in under a quarter of it, as most draws hold)."""
    while True:
        v = "".join(d.rng.choice(B32) for _ in range(n))
        if 4 * sum(c in "AEIOU" for c in v) < n and len(set(v)) * 2 >= n:
            return v


@pytest.mark.parametrize("seed", SEEDS)
def test_one_code_on_a_recovery_or_seed_labels_line_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    cases = [
        f"{rng.choice(['Proton', 'Okta'])} recovery code (2FA) - {d.r(32, upper)}",
        f"OTP secret = {_base32(d, rng.choice([16, 32]))}",
        f"the authenticator's setup key is {_base32(d, 16)}, on-call adds it",
        f"backup code {d.r(24, upper)} (keep offline)",
    ]
    for body in cases:
        if sum(c.isdigit() for c in body.split()[-1]) < 4 and "recovery" in body:
            continue  # (a draw of too few digits is no mixed code)
        assert refused(body, description="2fa"), body


LOOK_ALIKES_ONE_CODE = (
    "2FA rollout: ticket INFRASTRUCTUREOPS blocked",
    "TOTP RFC6238 compliant AUTHENTICATIONFLOW",
    "OTP service build 4F2A9C0B7E1D3A5C6B8D9E0F1A2B3C4D",
    "MFA enforcement shipped in 20240612123456789",
    "recovery code rotation is tracked in JIRA as SECURITYREVIEWS",
)


@pytest.mark.parametrize("body", LOOK_ALIKES_ONE_CODE)
def test_names_and_digests_beside_a_code_label_pass(body: str) -> None:
    assert not refused(body, description="notes"), body


# --- a CJK word for password written against a word, mid-line, then the value with no sign -------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_cjk_password_word_against_a_name_mid_line_counts(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    for head in ("数据库", "NAS的", "生产环境 "):
        body = f"{head}{rng.choice(['root', 'admin', 'db'])}密码 {_made(rng)}，{rng.choice(['月底更换', '勿外传'])}"
        assert refused(body, description="memo"), body
    all_pass(("数据库admin密码 已经 更换", "请修改root密码 然后重启", "数据库root密码 rotation 2024"), description="memo")
