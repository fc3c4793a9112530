"""The secret gate's classes from the thirteenth blind corpus's misses (tuned on heldout13, whose
strings none of these are): a person's strong password standing in a sentence with no label, a
seed phrase in one of BIP-39's other languages with no label (its checksum valid), a credential
named as one of several (``key1``, ``password-2``, ``DB_PASS_PART1``), a key printed in hex groups
under its name, and a password spelled out one character at a time.

Each test draws its values afresh from generators seeded three ways (none is an item of a bench
corpus), beside the look-alikes that share the place. Each positive fails on the code before these
rules (checked against the parent commit, d57f557); each look-alike passes on both.
"""

from __future__ import annotations

import hashlib
import random
import string
import unicodedata

import pytest

from secret_probe import HEX, Draw, found, refused
from vault_mem.model.secrets import find_secrets
from vault_mem.model.seed_words_other import LANGUAGES, other_lists

SEEDS = (20261207, 7, 424242)
PEOPLE = ("Lantern", "Gopher", "Brisket", "Okapi", "Juniper", "Falcon", "Tamarind")
SYMBOLS = "!#$%^&*~?@"


def person_pw(rng: random.Random) -> str:
    """A person's strong password: a word, digits, a symbol and a few more characters in some order."""
    word, digits = rng.choice(PEOPLE), "".join(rng.choice(string.digits) for _ in range(rng.randint(2, 4)))
    tail = "".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(1, 3)))
    return rng.choice((f"{word}{digits}{rng.choice(SYMBOLS)}{tail}", f"{tail}{rng.choice(SYMBOLS)}{word}{digits}",
                       f"{word.lower()}{digits}{rng.choice(SYMBOLS)}{tail.upper()}"))


# --- a person's password in a sentence, no label ---------------------------------------------

SENTENCES = (
    "The NAS in the basement takes {pw} since Marta reset it last spring.",
    "Heads-up: the shared Grafana viewer account is {pw} for now, rotate after the audit.",
    "I set {pw} on the backup drive's encryption before shipping it to the office.",
    "Old laptop opens with {pw}; nobody changed it after onboarding.",
    "We typed {pw} into the kiosk and it let us into the admin screen.",
)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("sentence", SENTENCES)
def test_a_persons_strong_password_in_a_sentence_counts(seed: int, sentence: str) -> None:
    rng = random.Random(f"{seed}{sentence}")
    pw = person_pw(rng)
    assert refused(sentence.format(pw=pw)), pw


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("sentence", SENTENCES)
def test_a_word_a_symbol_and_digits_is_a_password_unless_it_names_a_numbered_thing(seed: int, sentence: str) -> None:
    """`Tangerine#9258` and `Nimbus@4675` are passwords as people make them; `Build#2041` and
    `OpenSSL@3` are references (see test_examples_settings_and_code_in_sentences_pass)."""
    rng = random.Random(f"{seed}{sentence}word")
    word, digits = rng.choice(PEOPLE), "".join(rng.choice(string.digits) for _ in range(rng.randint(3, 5)))
    for pw in (f"{word}#{digits}", f"{word}@{digits}", f"{word.lower()}{rng.randint(2, 9)}#{word[:3].upper()}"):
        assert refused(sentence.format(pw=pw)), pw


@pytest.mark.parametrize("text", [
    "Password rules: at least 12 characters, e.g. Falcon88!x would be fine but is now burned.",
    "The policy rejects things like Gopher2024! because they are too easy to guess.",
    "Never use Summer2025! or anything like it.",
    "Set `Lantern42#q` in the fixture and assert the login form masks it.",  # a quoted value: spoken of
    'The docs show "Okapi77&Zz" as the sample for the field.',
    "Run it with retries=3 and HF_DEBUG=1 so we see the traceback.",  # settings
    "Reach me at Brisket99@example.com when the export finishes.",  # an address
    "The build template substitutes pairwise_sum_@TYPE@ for each dtype.",  # a template marker
    "Remember that O(n**2) and x**2+1 blow up for large inputs in the old code.",  # expressions
    "Use cond?expr1:expr2 in the ternary form when it reads better.",
    "for i in range(2**power): total += weights[i]",  # code
    # the head of a dotted word (the token stops at a dot): versions as Homebrew names them
    "We build the wheels with Python@3.12 from Homebrew on the macOS runners, not the system one.",
    "Link against OpenSSL@3.0.13 from Homebrew instead of the system LibreSSL on the Mac runners.",
    "The Ruby docs moved Digest#Sha256.hexdigest2 and the old name now warns when it is called.",
    # references: a numbered thing, a package at a major version, a ticket's anchor, a class's method
    "Build#2041 failed on the ARM runner; rerun it with the cache cleared.",
    "The flaky step is Pipeline#88213 on the nightly schedule, not the merge queue.",
    "See Issue#4411 and Ticket#99812 for the repro of the stuck migration.",
    "brew install OpenSSL@3 then point CFLAGS at its prefix for the native gem.",
    "We test against Postgres@16 and Node@20 in the matrix since the upgrade.",
    "Ticket JIRA-4411#comment-9912 has the repro with the exact payload.",
    "Call Vector3#Normalize before comparing directions in the physics step.",
    "In Ruby, Base64#encode64 adds newlines every sixty characters, so use strict_encode64.",
])
def test_examples_settings_and_code_in_sentences_pass(text: str) -> None:
    assert not found(text), text


# --- a seed phrase in another language, no label ----------------------------------------------

def _checksum_ok(words: list[str], index: dict[str, int]) -> bool:
    """BIP-39's checksum, written out here: the last n/3 bits are the first bits of the SHA-256 of the rest."""
    bits = 0
    for w in words:
        bits = (bits << 11) | index[w]
    check = len(words) // 3
    entropy = (bits >> check).to_bytes((11 * len(words) - check) // 8, "big")
    return hashlib.sha256(entropy).digest()[0] >> (8 - check) == bits & ((1 << check) - 1)


def _phrase(lang: str, rng: random.Random, n: int = 12) -> list[str]:
    """A valid BIP-39 phrase of ``lang`` (its last word chosen for the checksum, as a wallet does)."""
    words = other_lists()[lang]
    index = {w: i for i, w in enumerate(words)}
    while True:
        head = rng.sample(words, n - 1)
        last = [w for w in rng.sample(words, 256) if _checksum_ok([*head, w], index)]
        if last:
            return [*head, last[0]]


# the published files (bitcoin/bips bip-0039/*.txt): byte size and sha256
_PUBLISHED = {
    "spanish": (13996, "46846a5a0139d1e3cb77293e521c2865f7bcdb82c44e8d0a06a2cd0ecba48c0b"),
    "french": (16777, "ebc3959ab7801a1df6bac4fa7d970652f1df76b683cd2f4003c941c63d517e59"),
    "italian": (16033, "d392c49fdb700a24cd1fceb237c1f65dcc128f6b34a8aacb58b59384b5c648c2"),
    "portuguese": (15671, "2685e9c194c82ae67e10ba59d9ea5345a23dc093e92276fc5361f6667d79cd3f"),
    "czech": (14945, "7e80e161c3e93d9554c2efb78d4e3cebf8fc727e9c52e03b83b94406bdcc95fc"),
    "japanese": (26423, "2eed0aef492291e061633d7ad8117f1a2b03eb80a29d0e4e3117ac2528d05ffd"),
    "korean": (37832, "9e95f86c167de88f450f0aaf89e87f6624a57f973c67b516e338e8e8b8897f60"),
    "chinese_simplified": (8192, "5c5942792bd8340cb8b27cd592f1015edf56a8c5b26276ee18a482428e7c5726"),
    "chinese_traditional": (8192, "417b26b3d8500a4ae3d59717d7011952db6fc2fb84b807f3f94ac734e89c1b5f"),
}


def test_the_packed_lists_are_bip39s_published_files() -> None:
    assert tuple(_PUBLISHED) == LANGUAGES
    for lang, words in other_lists().items():
        data = ("\n".join(unicodedata.normalize("NFKD", w) for w in words) + "\n").encode()
        assert (len(data), hashlib.sha256(data).hexdigest()) == _PUBLISHED[lang], lang
        assert len(set(words)) == 2048


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_seed_phrase_in_another_language_counts_without_a_label(seed: int, lang: str) -> None:
    rng = random.Random(f"{seed}{lang}")
    words = _phrase(lang, rng, rng.choice((12, 24)))
    assert refused(f"from the old phone, keep safe: {' '.join(words)}")
    # as a wallet exports Japanese and Korean (decomposed, ideographic spaces), and a label glued
    # to the first word by a full-width colon, as Chinese and Japanese write it
    decomposed = "\u3000".join(unicodedata.normalize("NFKD", w) for w in words)
    assert refused(decomposed)
    assert refused(f"备份：{' '.join(words)}")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_list_words_without_a_valid_checksum_pass(seed: int, lang: str) -> None:
    rng = random.Random(f"{seed}{lang}x")
    words = other_lists()[lang]
    index = {w: i for i, w in enumerate(words)}
    while True:
        drawn = rng.sample(words, 12)
        if not _checksum_ok(drawn, index):
            break
    assert not found(" ".join(drawn))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lang", ("spanish", "french", "italian", "portuguese", "czech"))
def test_a_long_list_of_common_words_is_no_phrase_where_a_window_inside_checks(seed: int, lang: str) -> None:
    """A shopping list, a vocabulary note, tags: a run of 16 to 30 list words. Every 12-word
    window of it was tried against the checksum (1 in 16 each): a Spanish list of 16 to 20 of its
    common words was refused 1 time in 4 (54/200 lists), of 21 to 30 words 2 times in 5. Here the
    list is drawn so that a window inside it checks and the run's own ends do not."""
    rng = random.Random(f"{seed}{lang}list")
    words = other_lists()[lang]
    index = {w: i for i, w in enumerate(words)}
    phrase = _phrase(lang, rng)
    while True:
        before = rng.sample(words, rng.randint(4, 9))
        after = rng.sample(words, rng.randint(4, 9))
        run = [*before, *phrase, *after]
        if len(set(run)) == len(run) and not any(
                _checksum_ok(run[k:k + n], index) for n in (12, 15, 18, 21, 24) if n <= len(run)
                for k in {0, len(run) - n}):
            break
    assert not found("Vocabolario / vocabulario / vocabulaire:\n" + "\n".join(f"- {w}" for w in run))
    assert not found("Lista de la compra para el sábado: " + ", ".join(run) + ".")
    # a phrase beside up to three list words of its label still counts, before it or after it
    label = rng.sample([w for w in words if w not in phrase], 3)
    assert refused(" ".join([*label, *phrase]))
    assert refused(" ".join([*phrase, *label[:1]]))


@pytest.mark.parametrize("text", [
    "Lista de la compra: leche huevos pan queso tomate cebolla ajo arroz aceite sal azúcar café",
    "Nous avons visité le musée puis le marché avant de rentrer dîner avec les enfants ce soir",
    "我们 今天 去 公园 散步 然后 吃 午饭 再 回家 休息 一下",
    "오늘 아침 회의 에서 다음 분기 계획 과 예산 을 함께 검토 했습니다",
])
def test_prose_in_those_languages_passes(text: str) -> None:
    assert not found(text)


# --- one of several, numbered -----------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_credential_named_as_one_of_several_counts(seed: int) -> None:
    draw = Draw(seed)
    key = draw.r(86, string.ascii_letters + string.digits + "+/") + "=="
    assert refused(f"Storage account billing, key2 = {key}")
    assert refused(f"DB_PASS_PART2={draw.r(5)}#{draw.r(5)}")
    assert refused(f"token3: {draw.r(40)}")


@pytest.mark.parametrize("text", [
    "key1 = 'customer_id'",  # a name, not a key
    "checksum md5 = 9e107d9d372bb6826bd81d3542a419d6",
    "http2=True, retries=3",
    "session2 = requests.Session()",
    "Use sha256 for the digest and base64 for the transport.",
])
def test_numbered_names_and_names_ending_in_digits_pass(text: str) -> None:
    assert not found(text)


# --- a key in hex groups, a password spelled out ---------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("size", [4, 8])
def test_a_key_printed_in_hex_groups_under_its_name_counts(seed: int, size: int) -> None:
    draw = Draw(seed * size)
    hexkey = draw.r(64, HEX)
    groups = " ".join(hexkey[i:i + size] for i in range(0, 64, size))
    assert refused(f"Encryption key for the archive volume, as the label prints it:\n{groups}")
    assert refused(f"hmac secret (spaced for reading) {groups}")


@pytest.mark.parametrize("seed", SEEDS)
def test_hex_groups_that_name_no_secret_pass(seed: int) -> None:
    draw = Draw(seed)
    fpr = " ".join(draw.r(4, "0123456789ABCDEF") for _ in range(10))
    assert not found(f"Signing key fingerprint: {fpr}")  # 40 digits, and named a fingerprint
    groups = " ".join(draw.r(8, HEX) for _ in range(8))
    assert not found(f"00000040: {groups}  ................")  # a hex dump line
    assert not found(f"Key id and digest of the release: {groups}")
    assert not found(f"The sensor wrote these words: {groups}")  # nothing names a secret


@pytest.mark.parametrize("seed", SEEDS)
def test_a_password_spelled_out_counts(seed: int) -> None:
    pw = person_pw(random.Random(seed))
    assert refused(f"Read it to her over the phone, one character at a time: {' '.join(pw)}")


@pytest.mark.parametrize("text", [
    "港 易 进 被 土 临 墨 赶",  # single characters of a language written spaced
    "a + b = c * 2 - d",  # an expression
    "T O D O L I S T for the week",
    "Steps: 1 2 3 4 5 6 7 8 9 10",
])
def test_spaced_characters_that_are_no_password_pass(text: str) -> None:
    assert not found(text)


# --- a password label and its value with no sign between ---------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_an_app_password_or_word_passphrase_after_a_bare_label_counts(seed: int) -> None:
    rng = random.Random(seed)
    consonants = "bcdfghjklmnpqrstvwxz"
    app = " ".join("".join(rng.choice(consonants) for _ in range(4)) for _ in range(4))
    assert refused(f"account work\nhost mail.example.org\npassword {app}\ntls on")  # a config file's directive
    words = " ".join(rng.sample(("orchard", "velvet", "canyon", "pencil", "rocket", "meadow", "copper", "island"), 4))
    assert refused(f"Wiki admin for the choir site: choiradmin, pass {words}")


@pytest.mark.parametrize("text", [
    "password reset flow for locked users",
    "password manager entries sync nightly",
    "pass through proxy settings unchanged",
    "the password field accepts unicode input now",
])
def test_a_bare_label_before_words_of_a_sentence_passes(text: str) -> None:
    assert not found(text)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_grouped_recovery_code_after_its_label_with_no_sign_counts(seed: int) -> None:
    draw = Draw(seed)
    code = "-".join(draw.r(5, string.ascii_uppercase + string.digits) for _ in range(5))
    assert refused(f"Work account recovery code {code}")


@pytest.mark.parametrize("text", [
    "recovery code sent to your phone 555-0100",
    "recovery code 2024-11-03 used",
    "backup codes are printed below",
])
def test_a_recovery_code_label_before_dates_or_words_passes(text: str) -> None:
    assert not found(text)


# --- a camelCase name ending in Auth ----------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_value_under_a_camel_case_auth_name_counts(seed: int) -> None:
    draw = Draw(seed)
    assert refused(f"cookies from the admin panel: dbAuth-2={draw.r(44)}; lang=en")
    assert refused(f"sessAuth = '{draw.r(32)}'")


@pytest.mark.parametrize("text", [
    "useAuth = true",
    "requireAuth: isProductionEnvironment",
    "basicAuth = credentialsFromEnv2",
    "oAuth = None",
])
def test_camel_case_auth_switches_and_references_pass(text: str) -> None:
    assert not found(text)


# --- hostile input completes ---------------------------------------------------------------------

_SIZE = 200 * 1024


@pytest.mark.parametrize("text", [
    "the box takes Ab1!cdef now " * (_SIZE // 27),  # candidate passwords in one line of sentences
    "aB3! " * (_SIZE // 5),  # spaced characters
    "master key:\n" + "1a2b3c4d " * (_SIZE // 9),  # hex groups on one line
    " ".join(other_lists()["spanish"][:64] * (_SIZE // 500)),  # a run of list words
    "助记词：" + " ".join(other_lists()["chinese_simplified"][:30]) * (_SIZE // 80),
    "key1=" * (_SIZE // 5),
])
def test_a_text_made_of_the_new_readers_markers_completes(text: str) -> None:
    find_secrets(text[:_SIZE])  # completing is the point (each read stays within a reach)
