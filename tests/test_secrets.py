"""Detection that generalises (issue 14): the rule table, disguised credentials, look-alikes.

The corpus is ``tests/secret_corpus.py`` (written for this gate, not taken from the rule
examples): every credential form must be refused and every harmless look-alike accepted. Spans
must point at the original text, so a refusal's line number is right for a disguised value too.
"""

from __future__ import annotations

import base64
import gzip
import itertools
import json
import random
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stress import sized
from secret_corpus import FORMS, GH, LOOK_ALIKES, SK, ZWSP, b64, jwt, pw, r, wrap

from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write
from vault_mem.model.secret_rules import RULES, expand_example
from vault_mem.model.secret_urls import signed_urls
from vault_mem.model.secret_text import lines_holding, long_words
from vault_mem.model.secret_values import random_hex
from vault_mem.model.secret_checks import CHECKS
from vault_mem.model.secret_labels import labelled_value
from vault_mem.model.secrets import find_secrets

# hypothesis examples per property: 300 or 200 at full size, 100 or 75 everyday (tests/stress.py).
# Outside CI each run draws new ones, so a developer's runs add up to more than either size; in CI
# (hypothesis's own "ci" profile, derandomized) every run tries the same first ones
EXAMPLES_300 = sized(300, 100)
EXAMPLES_200 = sized(200, 75)


def _kinds(text: str) -> list[str]:
    return [f.kind for f in find_secrets(text)]


# --- the corpus ----------------------------------------------------------------------------


def test_corpus_is_big_and_covers_the_kinds_the_issue_lists() -> None:
    assert len(FORMS) >= 60 and len(LOOK_ALIKES) >= 60
    names = " ".join(name for name, _ in FORMS).lower()
    for kind in ("aws", "github", "gitlab", "slack", "stripe", "twilio", "sendgrid", "discord", "telegram",
                 "google", "openai", "anthropic", "hugging", "npm", "pypi", "vault", "shopify", "azure",
                 "digitalocean", "mailgun", "heroku", "jwt", "private key", "kubeconfig", "docker", "netrc",
                 "sshpass", "mysql", "pgpassword", "connection string", "full-width", "basic-auth",
                 "zero-width", "cyrillic", "base64", "url-encoded", "wrapped"):
        assert kind in names, kind


@pytest.mark.parametrize(("name", "text"), FORMS, ids=[name for name, _ in FORMS])
def test_every_credential_form_is_refused(name: str, text: str) -> None:
    findings = find_secrets(text)
    assert findings, name
    assert all(0 <= f.start < f.end <= len(text) for f in findings)


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=[f"look-alike-{i}" for i in range(len(LOOK_ALIKES))])
def test_every_look_alike_is_accepted(text: str) -> None:
    assert find_secrets(text) == []


# --- the rule table ------------------------------------------------------------------------


@pytest.mark.parametrize("rule", RULES, ids=[f"{i}-{rule.name}" for i, rule in enumerate(RULES)])
def test_each_rule_catches_its_example_alone_and_in_prose(rule) -> None:
    example = expand_example(rule.example, seed=rule.name)
    assert rule.name in _kinds(example)
    assert rule.name in _kinds(f"Noted for the deploy job:\n{example}\nRotate it after the audit.")


def test_each_rule_names_a_known_check_and_a_valid_example_template() -> None:
    for rule in RULES:
        assert rule.check in CHECKS, rule.name
        assert "<" not in expand_example(rule.example).replace("<=", ""), rule.name  # every template filled


def test_examples_are_the_same_on_every_run() -> None:
    assert expand_example("ghp_<a36>", seed="x") == expand_example("ghp_<a36>", seed="x")
    assert expand_example("<~{\"alg\":\"HS256\"}>") == "eyJhbGciOiJIUzI1NiJ9"


# --- spans point at the original text ------------------------------------------------------


def test_zero_width_split_token_span_covers_the_original_characters() -> None:
    token = f"{GH}p_{r(36)}"
    text = f"ci: {token[:12]}{ZWSP}{token[12:]} (bot)"
    [f] = find_secrets(text)
    assert f.kind == "GitHub token"
    assert text[f.start:f.end].replace(ZWSP, "") == token


def test_homoglyph_and_full_width_spans_are_in_the_original() -> None:
    key = "\u0410KIA" + r(16, string.ascii_uppercase + string.digits)
    text = "\u0437\u0430\u043c\u0435\u0442\u043a\u0430: " + key + " \u043a\u043b\u044e\u0447"
    [f] = find_secrets(text)
    assert (f.kind, text[f.start:f.end]) == ("AWS access key", key)
    secret = pw()
    text = "\u30e1\u30e2 password\uff1a" + secret
    [f] = find_secrets(text)
    assert text[f.start:f.end] == secret


def test_wrapped_jwt_span_runs_over_its_lines() -> None:
    token = jwt()
    text = "notes\nsession:\n    " + wrap(token, 40, "    ") + "\nend"
    [f] = find_secrets(text)
    assert f.kind == "JWT"
    assert "".join(text[f.start:f.end].split()) == token


def test_decoded_finding_spans_the_encoded_run_and_says_how_it_was_hidden() -> None:
    encoded = b64(f"token={GH}p_{r(36)}")
    text = f"blob: {encoded} end"
    [f] = find_secrets(text)
    assert f.kind == "base64-encoded GitHub token"
    assert text[f.start:f.end] == encoded


def test_refusal_names_the_right_line_for_a_disguised_value() -> None:
    body = "\u041f\u0430\u0440\u043e\u043b\u044c \u043d\u0438\u0436\u0435.\n\n" + f"{SK}_live_{r(10)}{ZWSP}{r(14)}\n"
    with pytest.raises(SecretError, match=r"Stripe key \(line 3\)"):
        check_write(key="billing", description="Billing notes", body=body, meta={})


def test_a_direct_finding_outranks_the_decoded_one_over_the_same_characters() -> None:
    text = "https://acct.blob.core.windows.net/c?sv=2022&si" + "g=" + r(43) + "%3D"
    assert _kinds(text) == ["Azure SAS signature"]


# --- decoding is bounded -------------------------------------------------------------------


def test_base64_within_base64_is_found_and_deeper_nesting_is_bounded() -> None:
    inner = f"DB_PASSWORD={pw()}"
    twice = base64.b64encode(base64.b64encode(inner.encode())).decode()
    assert find_secrets(f"x {twice} y")
    deep = inner
    for _ in range(12):
        deep = base64.b64encode(deep.encode()).decode()
    assert find_secrets(deep) == []  # beyond the depth bound; completing is the point


def test_binary_base64_and_hashes_are_not_decoded_into_findings() -> None:
    blob = base64.b64encode(bytes(range(256)) * 8).decode()
    assert find_secrets("image: " + blob) == []


# --- hostile input completes ---------------------------------------------------------------

# 200 KB at full size, 100 KB everyday: past the gate's 64 KB bounds on a run and a key's reach either
# way, and a backtracking pattern takes hours at either size
_SIZE = sized(200, 100) * 1024
ADVERSARIAL = {
    "wrapped near-tokens": (GH + "p_" + "a1" * 10 + "\n  ") * (_SIZE // 28),
    "quoted pieces": '"aB3dE5gH9k" +\n  ' * (_SIZE // 16),
    "percent run": "%41" * (_SIZE // 3),
    "percent words": "a%2 " * (_SIZE // 4),
    "zero-width": "x\u200b" * (_SIZE // 2),
    "homoglyphs": "\u0410\u041a\u0406\u0410" * (_SIZE // 4),
    "full-width": "\uff47\uff48\uff50\uff3f" * (_SIZE // 4),
    "base64 lines": "\n".join(r(64, string.ascii_letters + string.digits + "+/") for _ in range(_SIZE // 65)),
    "base64 of text, nested": base64.b64encode(base64.b64encode(b"password=S3cr3t!x " * 4000)).decode(),
    "digits colon AA": ("1234567890:AA" + "b" * 20 + " ") * (_SIZE // 34),
    "mysql": ("mysql " + "x " * 100) * (_SIZE // 206),
    "netrc": ("machine h login u " * 20 + "\n") * (_SIZE // 361),
    "twilio": ("twilio " + "a" * 31 + " ") * (_SIZE // 39),
    "discord-ish": ("M" + "a" * 25 + "." + "b" * 6 + ".") * (_SIZE // 34),
    "putty headers": ("PuTTY-User-Key-File-2: " + "Private-Lines: 1\n") * (_SIZE // 40),
    "credential labels": "pw pw: pw = pw is token for the api key " * (_SIZE // 40),
    "prefix and tail": ("ab_" + "aB3-" * 60 + " ") * (_SIZE // 244),
    "seed words": " ".join(["abandon", "ability", "able", "about"] * (_SIZE // 24)),
    # the shape-and-place rules of issue 23 item 5: each started on a text made of its own markers
    "hook urls": ("https://hooks.x/" + "a1b2/" * 40 + " ") * (_SIZE // 217),
    "code labels": "recovery codes: a1b2 2fa: abcd " * (_SIZE // 31),
    "name value pairs": 'name="api_token" value=' * (_SIZE // 23),
    "label lines": "token for the build:\n\n" * (_SIZE // 22),
    "upper prefixes": ("AB-" + "aB3" * 30 + " ") * (_SIZE // 94),
    "bech32 words": ("nsec1" + "q" * 49 + " ") * (_SIZE // 55),
    # heldout5's classes: tables, elements, connect strings, PINs, passwords given by their use
    "table rows": "| user | password |\n|---|---|\n" + "| a | b1 |\n" * (_SIZE // 11),
    "xml elements": "<password>" * (_SIZE // 10),
    "oracle connect": "a/bcde@" * (_SIZE // 7),
    "pin labels": "PIN for the door of " * (_SIZE // 20),
    "log in without with": "log in " * (_SIZE // 7),
    "use without to": "use Ab1!efgh " * (_SIZE // 13),
    "sudo without takes": "sudo " * (_SIZE // 5),
    "lower prefixes": ("ask_" + "a1" * 40 + " ") * (_SIZE // 85),
    # found by review: quadratic in one line's length, not exponential (85 s for 80 KB)
    "table rule of blanks": "| a | b |\n---\n" + " " * _SIZE + "x",
    "naming line before seed words": "zz " * (_SIZE // 6) + "abandon ability able about above absent absorb "
                                     "abstract absurd abuse access accident",
    # heldout8's classes: calls, typed and wrapped literals, pairs, directives, commands, keys
    "sign-in call arguments": 'login("a", "b", ' * (_SIZE // 16),
    "connect calls": "DBI->connect(" * (_SIZE // 13),
    "auth tuples": 'auth=("a", ' * (_SIZE // 11),
    "name comma pairs": '"password", ' * (_SIZE // 12),
    "plist keys": "<key>password</key>\n" * (_SIZE // 20),
    "json value objects": '"db.password": {' * (_SIZE // 16),
    "typed assignments": "password: str = " * (_SIZE // 16),
    "conversions": "token = []byte(" * (_SIZE // 15),
    "directive lines": "password\n" * (_SIZE // 9),
    "thai label": ("รหัสผ่าน" + "ก" * 40 + " ") * (_SIZE // 49),
    "identified by": "create user a identified " * (_SIZE // 25),
    "positional commands": "mc alias set a b c " * (_SIZE // 19),
    "client calls": 'Client("' * (_SIZE // 8),
    "user lines": "user: a\n" * (_SIZE // 8),
    "keytab runs": ("BQI" + "A" * 60 + " ") * (_SIZE // 64),
    "gzip runs": ("H4sI" + "A" * 60 + " ") * (_SIZE // 65),
    # the general rules (secret_labels' value near its label, secret_shapes' DER and dotted tokens)
    "labels joined by signs": "key=" * (_SIZE // 4),
    "labels with digits near": "token 1 " * (_SIZE // 8),
    "label lines ending in a sign": "token?\n" * (_SIZE // 7),
    "values before labels": "aB3dE5gH9kLm is the token " * (_SIZE // 26),
    "plural labels": "tokens: " * (_SIZE // 8),
    "default accounts": "root:" * (_SIZE // 5),
    "user slashes": "a / " * (_SIZE // 4),
    "grouped keys": "license AB12-" * (_SIZE // 13),
    "der words": ("MII" + "A" * 60 + " ") * (_SIZE // 64),
    "dotted prefixes": ("ab." + "aB1" * 20 + " ") * (_SIZE // 64),
    "foreign words": "clave токен 密钥 " * (_SIZE // 16),
    "pipes without a reader": "echo aB3dE5gH9kLm | " * (_SIZE // 20),
    # heldout16's readers: attached flags on one line, bare recovery labels, <Value> children,
    # OTP labels before "is", positional passwords, lock-code labels
    "attached flags": "x -pAbcdefg1 " * (_SIZE // 13),
    "bare recovery labels": "recovery: ab12cd34ef, " * (_SIZE // 22),
    "value children": "<Password> <Value>" * (_SIZE // 18),
    "otp labels before is": "TOTP seed is " * (_SIZE // 13),
    "positional commands 2": "htpasswd -b a b " * (_SIZE // 16),
    "lock code labels": "código de la alarma de " * (_SIZE // 23),
}


@pytest.mark.parametrize("name", list(ADVERSARIAL))
def test_200kb_adversarial_input_completes(name: str) -> None:
    # Completing at all is the test: a backtracking pattern would take hours. Timings live in
    # bench/secret_figures.py, not in assertions.
    text = ADVERSARIAL[name]
    findings = find_secrets(text)
    assert all(a.end <= b.start for a, b in itertools.pairwise(findings))
    assert all(0 <= f.start < f.end <= len(text) for f in findings)


@settings(max_examples=EXAMPLES_300, deadline=None)
@given(st.text(alphabet=st.sampled_from(
    "aZ09+/=_-.:%\"' \n\t\\" + "\u200b\u00ad\ufeff\u0410\u0430\u03bf\uff1a\uff47\ufb01\u0130"), max_size=300))
def test_spans_stay_inside_the_original_for_any_mix_of_disguises(text: str) -> None:
    findings = find_secrets(text)
    assert all(0 <= f.start < f.end <= len(text) for f in findings)
    assert all(a.end <= b.start for a, b in itertools.pairwise(findings))


# --- where the finders read: lines and words, not every position ----------------------------


@settings(max_examples=EXAMPLES_300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \t\r\n@:/PINcode"), max_size=200),
       st.lists(st.sampled_from(["@", "PIN", "code", "a b", ":"]), min_size=1, max_size=3),
       st.lists(st.sampled_from(["/", ":", "b"]), max_size=2))
def test_lines_holding_are_exactly_the_lines_with_a_word(text: str, words: list[str], also: list[str]) -> None:
    expected, at = [], 0
    for line in text.split("\n"):
        if any(w in line for w in words) and (not also or any(w in line for w in also)):
            expected.append((at, at + len(line)))
        at += len(line) + 1
    assert lines_holding(text, tuple(words), tuple(also)) == expected


@settings(max_examples=EXAMPLES_300, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab_-. \t\r\n\x0b\u2028\u00a0"), max_size=200), st.integers(1, 6))
def test_long_words_are_the_runs_between_white_space(text: str, min_len: int) -> None:
    expected = [(m.start(), m.end()) for m in re.finditer(r"\S+", text) if m.end() - m.start() >= min_len]
    assert long_words(text, min_len) == expected


# One value of each finder that reads only some lines or words, and lines around it that hold the
# finder's words without being a credential: found at the same place whatever surrounds it.
_PLACED = [
    "door code is 4 8 1 9",
    "log in to the NAS as backup with Tq9#mZ2!pwLx",
    "use Wr5!kP8@zQ to unlock the keystore",
    "sudo on the build box takes Qw3!er5Ty",
    "jump host: ops:Pq8#xZ2kLm@10.0.4.5",
    "scott/Tg7#pLm2q@//db.corp:1521/ORCL",
    "dckr" + "_pat_" + r(30),
    "nsec1" + "qpzry9x8gf2tvdw0s3jn54khce6mua7l" * 2,
]
_AROUND = ["we use code review", "PIN 12 on the board", "mail me @ home: later", "a/b@c", "with love", "",
           "connect later with the team", "it takes time", "x" * 30, "word." * 8]


@settings(max_examples=EXAMPLES_200, deadline=None)
@given(st.sampled_from(_PLACED), st.lists(st.sampled_from(_AROUND), max_size=4),
       st.lists(st.sampled_from(_AROUND), max_size=4), st.sampled_from(["\n", "\r\n", " ", "\t"]))
def test_a_credential_is_found_the_same_wherever_it_stands(value: str, before: list[str], after: list[str],
                                                           sep: str) -> None:
    alone = [(f.kind, value[f.start:f.end]) for f in find_secrets(value)]
    assert alone, value
    head = "".join(line + sep for line in before)
    text = head + value + "".join(sep + line for line in after)
    placed = [(f.kind, text[f.start:f.end]) for f in find_secrets(text) if f.start >= len(head) and f.end <= len(head) + len(value)]
    assert placed == alone


# --- one judgment per rule, wherever it is used --------------------------------------------


@pytest.mark.parametrize("value", ["s3cr3t-pass-01", "Xk9!mq2#Lp", "Tr0ub4dor&3", "h4ck-th3-pl4n3t"])
def test_a_password_no_word_could_be_counts_after_pw_and_by_its_use_alike(value: str) -> None:
    # `pw X` with no sign and "log in ... with X" with no label ask the same question of X
    assert _kinds(f"pw {value}") == ["password assignment"]
    assert _kinds(f"log in to the NAS as backup with {value}") == ["password given by its use"]


@pytest.mark.parametrize("value", ["abcdefghij", "Deploy2024", "buildCacheKey2", "release-notes-draft"])
def test_a_value_a_word_or_name_could_be_counts_in_neither_place(value: str) -> None:
    assert _kinds(f"pw {value}") == _kinds(f"log in to the NAS as backup with {value}") == []


@pytest.mark.parametrize("prefix", ["msg", "req", "sha256", "uuid", "commit"])
def test_an_id_prefix_is_public_in_either_case(prefix: str) -> None:
    tail = r(32)
    assert _kinds(f"{prefix}_{tail}") == _kinds(f"{prefix.upper()}_{tail}") == []


@pytest.mark.parametrize("word", ["Recovery", "Backup", "2FA", "MFA", "OTP", "Scratch", "Emergency"])
def test_every_codes_label_makes_a_description_name_a_password(word: str) -> None:
    # the same labels that introduce a list of codes in a body ("Scratch codes:" then codes)
    assert labelled_value(f"{word} codes for the admin account", "x7k2-p9q4")
    body = f"{word} codes:\n" + "\n".join(f"{r(4, string.ascii_lowercase + string.digits)}-{r(4, string.digits)}"
                                         for _ in range(4))
    assert "recovery codes" in _kinds(body)


# --- password-like key names, whatever their spelling (heldout7's class) ----------------------


@pytest.mark.parametrize("line", ["pass_phrase={v}", "key-pass-phrase: {v}", "psk={hex}", "WIFI_PSK={hex}",
                                  "    storePassword '{v}'", "    keyPassword \"{v}\"", "trustStorePassword '{v}'"])
def test_a_password_like_key_name_counts_in_every_spelling(line: str) -> None:
    # an OCI config's pass_phrase, wpa_supplicant's psk, Gradle's signingConfigs (a camelCase name
    # and a quoted literal, with no sign between them)
    body = line.format(v=pw(), hex=r(64, "0123456789abcdef"))
    assert _kinds(body) == ["password assignment"], body


@pytest.mark.parametrize("line", ["psk=${WIFI_PSK}", "pass_phrase=<your passphrase>", "    keyAlias 'upload'",
                                  "    storeFile file('release.jks')", "keyPassword System.getenv('KEY_PW')"])
def test_a_password_like_key_name_with_no_literal_passes(line: str) -> None:
    assert _kinds(line) == [], line


@pytest.mark.parametrize("scheme", ["Splunk", "GenieKey", "Klaviyo-API-Key", "DSN"])
def test_an_authorization_header_counts_whatever_its_scheme_word(scheme: str) -> None:
    # a token or a UUID after any scheme word (Splunk HEC's tokens are UUIDs)
    uuid = "-".join(r(n, "0123456789abcdef") for n in (8, 4, 4, 4, 12))
    for token in (r(40), uuid):
        assert _kinds(f"curl -H 'Authorization: {scheme} {token}' https://logs.corp") == ["authorization header"]


@pytest.mark.parametrize("header", ["Authorization: Signature keyId=\"k1\"", "Authorization: see the auth docs",
                                    "Authorization: Bearer ${TOKEN}", "authorization: required on every route"])
def test_an_authorization_header_with_no_token_passes(header: str) -> None:
    assert _kinds(header) == []


@pytest.mark.parametrize("user", ["svc_backup", "CORP\\\\svc_backup", "CORP\\svc_backup", "alice@corp.example"])
def test_a_samba_user_percent_password_counts(user: str) -> None:
    # smbclient, rpcclient and smbcacls read `-U user%password` (secret_commands' flag rule: one home for
    # every flag that takes a user and a password in one argument)
    body = f"smbclient //nas01/share -U '{user}%{pw()}' -c 'ls'"
    assert _kinds(body) == ["password given to a command"], body
    assert _kinds(f"rpcclient -U {user}%{pw()} dc01") == ["password given to a command"]
    assert _kinds(f"smbclient //nas01/share --user={user}%{pw()} -c 'ls'") == ["password given to a command"]
    assert _kinds(f"smbclient //nas01/share -U {user} -c 'ls'") == []


# --- keys public by design or documented by their vendor (heldout7's borderline rulings) ------


@pytest.mark.parametrize("line", ['<div class="g-recaptcha" data-sitekey="6L{t40}"></div>',
                                  "turnstile.render('#cf', {{ sitekey: '0x4AAAAAAA{t14}' }})",
                                  "RECAPTCHA_SITE_KEY={t40}", "hcaptcha site-key: {t40}",
                                  "datadogRum.init({{ clientToken: 'pub{hex}', site: 'datadoghq.eu' }})",
                                  'checkout options: {{ key: "rzp_live_{t14}", amount: 49900 }}'])
def test_a_key_public_by_design_passes(line: str) -> None:
    # CAPTCHA site keys, RUM client tokens and Razorpay key ids ship in every page
    assert _kinds(line.format(t40=r(40), t14=r(14), hex=r(32, "0123456789abcdef"))) == []


@pytest.mark.parametrize("line", ["RECAPTCHA_SECRET_KEY={t40}", "turnstile secret: 0x4AAAAAAA{t30}",
                                  "DD_CLIENT_TOKEN_SECRET={t40}", "RAZORPAY_KEY_SECRET={t24}"])
def test_the_secret_beside_a_public_key_still_counts(line: str) -> None:
    assert _kinds(line.format(t40=r(40), t30=r(30), t24=r(24))) != []


def test_a_key_its_vendor_documents_for_everyone_passes_and_one_like_it_counts() -> None:
    # Stripe's API reference key and Azurite's well-known account key are the same for everyone
    stripe = "sk_" + "test_4eC39HqLyjWDarjtT1zdp7dc"
    azurite = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq" + "/K1SZFPTOtr/KBHBeksoGMGw=="
    assert _kinds(f"the key in Stripe's API reference: {stripe}") == []
    assert _kinds(f"AccountName=devstoreaccount1;AccountKey={azurite}") == []
    assert _kinds(f"the key in Stripe's API reference: sk_test_{r(24)}") != []
    assert _kinds(f"AccountName=prodstore;AccountKey={r(86, string.ascii_letters + string.digits + '+/')}==") != []


# --- URLs whose query or path is the credential ----------------------------------------------


@pytest.mark.parametrize("param", ["sig", "signature", "X-Amz-Signature", "token", "access_token", "key"])
def test_a_url_signed_or_keyed_in_its_query_counts(param: str) -> None:
    for value in (r(43, string.ascii_letters + string.digits + "_-"), r(64, "0123456789abcdef")):
        url = f"https://prod-{r(2, string.digits)}.region.example.net/flows/{r(8)}/run?api-version=2016-06-01&{param}={value}"
        assert list(signed_urls(url)) == [("secret URL", 0, len(url))], url
        assert _kinds(f"post alerts to {url}"), url  # (Azure's SAS rule may name a `sig=` first)


def test_a_secret_address_private_part_counts() -> None:
    url = f"https://calendar.example.com/ical/team%40corp.io/private-{r(32, '0123456789abcdef')}/basic.ics"
    assert list(signed_urls(url)) == [("secret URL", 0, len(url))]
    assert _kinds(f"subscribe to {url}") == ["secret URL"]


@pytest.mark.parametrize("url", ["https://docs.example.com/api?sig=your-signature-here",
                                 "https://calendar.example.com/ical/team%40corp.io/public/basic.ics",
                                 "https://example.com/login?token={token}&next=/home",
                                 "https://example.com/search?q=release-notes-2024&page=2",
                                 "https://cdn.example.com/app.js?sig=1700000000"])
def test_a_url_with_no_random_credential_in_it_passes(url: str) -> None:
    assert _kinds(f"see {url}") == [] and list(signed_urls(url)) == []


# --- header lists in one setting, and a password manager's CSV export ------------------------


@pytest.mark.parametrize("template", ["OTEL_EXPORTER_OTLP_HEADERS=x-vendor-team={v}",
                                      "OTEL_EXPORTER_OTLP_TRACES_HEADERS=x-dataset=prod,api-key={v}",
                                      'export EXTRA_HEADERS="Authorization=Bearer%20{v}"'])
def test_a_random_value_in_a_header_list_setting_counts(template: str) -> None:
    value = r(6, string.ascii_lowercase) + "_" + r(40, string.ascii_lowercase + string.digits)
    assert _kinds(template.format(v=value)) == ["secret assignment"]


@pytest.mark.parametrize("line", ["OTEL_EXPORTER_OTLP_HEADERS=x-dataset=prod,x-env=staging",
                                  "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=${HONEYCOMB_API_KEY}",
                                  "request headers: accept=application/json,user-agent=curl/8.5.0"])
def test_a_header_list_with_no_random_value_passes(line: str) -> None:
    assert _kinds(line) == []


@pytest.mark.parametrize("header", ["name,url,username,password,totp", "Title,Login URL,Login Name,Password,Notes",
                                    "url,username,password"])
def test_the_password_column_of_a_csv_export_counts(header: str) -> None:
    n = header.count(",") + 1
    col = [c.strip().lower() for c in header.split(",")].index("password")
    cells = [f"{r(6, string.ascii_lowercase)}.example.com" for _ in range(n)]
    cells[col] = pw()
    assert _kinds(header + "\n" + ",".join(cells) + "\n") == ["password assignment"]


def test_a_csv_whose_password_column_holds_no_password_passes() -> None:
    body = "name,url,username,password\nbank,https://bank.example,alice,\nmail,https://mail.example,alice,<in vault>\n"
    assert _kinds(body) == []
    prose = "Fields we export, in order: id, name, password, email.\nAll of them, the first, second, third.\n"
    assert _kinds(prose) == []


# --- a login said in prose, and a key named for its use --------------------------------------


@pytest.mark.parametrize("template", ["note: jenkins login is admin and {v} until SSO lands",
                                      "the grafana login is ops and {v}", "NAS login: backup & {v}"])
def test_a_login_said_as_user_and_password_counts(template: str) -> None:
    assert _kinds(template.format(v=pw())) == ["password assignment"]


@pytest.mark.parametrize("line", ["the jenkins login is admin and the password is in the vault",
                                  "login is admin and then click Settings", "login: alice and bob share it"])
def test_a_login_followed_by_words_passes(line: str) -> None:
    assert _kinds(line) == []


@pytest.mark.parametrize("word", ["deploy", "service", "bot"])
def test_a_random_key_named_for_its_use_counts(word: str) -> None:
    value = r(20) + "_" + r(19)
    assert _kinds(f"[14:02] <ops> new {word} key for ci: {value}") != []
    assert _kinds(f"the {word} key for ci is rotated monthly") == []


# --- a value alone on the line below its label or the command that printed it ----------------


@pytest.mark.parametrize("head", ["config/master.key for billing-api (needed to edit credentials.yml.enc):",
                                  "$ argocd admin initial-password -n argocd", "$ vault token create -ttl=1h -field=token",
                                  "staging api token:"])
def test_a_random_value_alone_below_its_label_or_command_counts(head: str) -> None:
    for value in (r(16), r(32, "0123456789abcdef"), r(40, string.ascii_letters + string.digits + "_-")):
        body = f"{head}\n{value}\n\nnext: rotate it after first login\n"
        assert _kinds(body) != [], body


@pytest.mark.parametrize("body", ["$ git log -1 --format=%H key.py\n{hex40}\n", "checksum of the key file:\n{hex32}\n",
                                  "$ cat secret-name.txt\nbilling-api-database-credentials\n",
                                  "$ kubectl get secret -o name\nsecret/db-password-staging\n",
                                  "SSH host key fingerprint:\nSHA256:{b43}\n"])
def test_a_digest_name_or_fingerprint_below_a_label_passes(body: str) -> None:
    filled = body.format(hex40=r(40, "0123456789abcdef"), hex32=r(32, "0123456789abcdef"), b43=r(43))
    assert _kinds(filled) == [], filled


def test_a_field_of_an_encrypted_data_mapping_passes_and_a_plain_secret_beside_it_counts() -> None:
    # a SealedSecret's encryptedData holds ciphertext only its controller can open
    cipher = "AgB" + r(300, string.ascii_letters + string.digits + "+/")
    sealed = f"kind: SealedSecret\nspec:\n  encryptedData:\n    password: {cipher}\n    api_token: {cipher[::-1]}\n"
    assert _kinds(sealed) == []
    plain = f"kind: Secret\nstringData:\n  password: {pw()}\n"
    assert _kinds(plain) == ["password assignment"]
    after = sealed + f"  template:\n    password: {pw()}\n"
    assert _kinds(after) == ["password assignment"]


# --- heldout8's classes (bench/data/secrets_heldout8.py): places and shapes the gate did not read ---

_HEXS = "0123456789abcdef"


def _uuid() -> str:
    return "-".join(r(n, _HEXS) for n in (8, 4, 4, 4, 12))


def test_a_password_may_start_with_a_star_and_a_mask_or_a_wildcard_still_passes() -> None:
    for line in ("password=*{v}", "/user add name=backup group=full password=*{v}", "DB_PASSWORD: '*{v}'"):
        body = line.format(v=pw())
        assert _kinds(body) == ["password assignment"], body
    for line in ("password: *required*", "password=****", "password: *.corp.example", "password: *"):
        assert _kinds(line) == [], line


@pytest.mark.parametrize("line", ["password {v}", "requirepass {v}", "masterauth {v}", "  smtppass {v}",
                                  "LicenseKey {key}", "client_secret {key}"])
def test_a_config_files_directive_line_names_its_value(line: str) -> None:
    # msmtprc, redis.conf, GeoIP.conf: `Name value`, the name first on its line and the value last
    body = "host smtp.corp.example\n" + line.format(v=r(16, string.ascii_lowercase + string.digits),
                                                   key=r(6) + "_" + r(29)) + "\nport 465\n"
    assert _kinds(body) != [], body


@pytest.mark.parametrize("line", ["Password expired", "password reset", "Token refresh", "LicenseKey required",
                                  "requirepass yes", "key rotation"])
def test_a_directive_line_with_no_credential_passes(line: str) -> None:
    assert _kinds(f"notes\n{line}\nmore notes\n") == [], line


@pytest.mark.parametrize("template", ["param adminPassword string = '{pw}'", 'password: str = "{pw}"',
                                      'const API_KEY: &str = "{key}";', 'val apiSecret: String = "{key}"',
                                      'var webhookSecret = []byte("{key}")', 'api_token = SecretStr("{key}")',
                                      'let resp = client.get(url).bearer_auth("{key}").send()',
                                      'mollie.setApiKey("{key}")'])
def test_a_literal_typed_wrapped_or_passed_to_a_call_named_for_it_counts(template: str) -> None:
    body = template.format(pw=pw(), key=r(40))
    assert _kinds(body) != [], body


@pytest.mark.parametrize("line", ['pw = getpass("DB password: ")', 'token = os.getenv("API_TOKEN")',
                                  "user.setPassword(newPass)", 'password: str = Field(default="")',
                                  'keyring.get_password("system", "alice")', "param adminPassword string"])
def test_a_prompt_a_lookup_or_a_variable_passed_to_a_call_passes(line: str) -> None:
    assert _kinds(line) == [], line


@pytest.mark.parametrize("template", ['new NetworkCredential("svc_report", "{pw}", "CORP")',
                                      "Cluster(url, ClusterOptions(PasswordAuthenticator('app', '{pw}')))",
                                      'GET(url, authenticate("svc", "{pw}"))',
                                      'DBI->connect("dbi:Pg:dbname=ledger;host=db", "ledger", "{pw}", {{ RaiseError => 1 }})',
                                      'requests.get(url, auth=("admin", "{pw}"))',
                                      'credentials += Credentials("Nexus", "nexus.corp.example", "deploy", "{pw}")'])
def test_a_password_passed_to_a_sign_in_call_counts(template: str) -> None:
    body = template.format(pw=pw())
    assert _kinds(body) != [], body


@pytest.mark.parametrize("line", ['connect("db", "shop2x")', 'login("alice@corp.example", "https://sso.corp.example")',
                                  'authenticate("svc", "db01.internal")', "authenticate(user, password)",
                                  'auth=("admin", os.environ["PW"])'])
def test_a_sign_in_call_with_no_literal_password_passes(line: str) -> None:
    assert _kinds(line) == [], line


@pytest.mark.parametrize("template", ['[Environment]::SetEnvironmentVariable("NUGET_API_KEY", "{low}", "User")',
                                      "define( 'DB_PASSWORD', '{pw}' );",
                                      '$s.Cookies.Add((New-Object System.Net.Cookie("JSESSIONID", "{hex}", "/", "x")))',
                                      "<key>password</key>\n<string>{pw}</string>",
                                      "<key>ServerKey</key><string>{key}</string>",
                                      '<entry key="db.password">{pw}</entry>',
                                      '"spring.datasource.password": {{\n  "value": "{pw}",\n  "origin": "x"\n}}',
                                      '"apikey": [{{"key": "value", "value": "{key}"}}, {{"key": "key", "value": "X-API-KEY"}}]'])
def test_a_value_beside_its_name_in_a_call_plist_or_json_counts(template: str) -> None:
    body = template.format(pw=pw(), key=r(40), hex=r(32, _HEXS).upper(),
                           low="oy2" + r(43, string.ascii_lowercase + string.digits))
    assert _kinds(body) != [], body


@pytest.mark.parametrize("line", ['form.add("password", "Password")', 'env.setdefault("SECRET_KEY", "SECRET_KEY")',
                                  "<key>CFBundleName</key><string>Shopfront</string>",
                                  "<key>password</key><string>$(KEYCHAIN_PW)</string>",
                                  '"apikey": [{"key": "value", "value": "{{apiKey}}"}]',
                                  '"spring.datasource.password": {"value": "******"}'])
def test_a_name_beside_a_non_value_passes(line: str) -> None:
    assert _kinds(line) == [], line


@pytest.mark.parametrize("template", ["Sunucunun root şifresi: {v}", "lösenordet till routern är {v}",
                                      "รหัสผ่านเราเตอร์คือ {v}", "كلمة المرور لحساب الخادم هي {v}",
                                      "Nenosiri la seva ni {v}", "heslo k databázi je {v}", "Kata sandi wifi kantor: {v}",
                                      "passordet til ruteren er {v}", "测试服务器的root密码是{v}", "पासवर्ड: {v}"])
def test_password_labels_in_more_languages(template: str) -> None:
    body = template.format(v=pw())
    assert _kinds(body) != [], body


def test_a_token_or_key_named_in_a_script_without_spaces_counts() -> None:
    for template in ("OpenWeatherのAPIキーは {hex} です", "访问令牌是{key}", "API 토큰: {key}"):
        body = template.format(hex=r(32, _HEXS), key=r(40))
        assert _kinds(body) != [], body
    assert _kinds("APIキーは1Passwordに保存してあります") == []


@pytest.mark.parametrize("line", ["Sunucunun şifresi Vault'ta duruyor", "lösenordet är hemligt",
                                  "A senha do banco está no Bitwarden", "heslo je v trezoru"])
def test_prose_about_a_password_in_more_languages_passes(line: str) -> None:
    assert _kinds(line) == [], line


@pytest.mark.parametrize("template", ["snyk auth {uuid}", "wandb login {hex40}", "wandb login --relogin {hex40}",
                                      "mc alias set prod https://minio.corp.example {up20} {key}",
                                      "hdbuserstore SET PRODKEY hana.corp:30015 SYSTEM {pw}",
                                      "bundle config --local gems.vendor.example {hex8}:{hex8b}",
                                      "export BUNDLE_GEMS__VENDOR__EXAMPLE={hex8}:{hex8b}",
                                      "b2 account authorize {hex12} K005{key}"])
def test_a_tool_whose_positional_argument_is_the_credential(template: str) -> None:
    body = template.format(uuid=_uuid(), hex40=r(40, _HEXS), up20=r(20, string.ascii_uppercase + string.digits),
                           key=r(40), pw=pw(), hex8=r(8, _HEXS), hex8b=r(8, _HEXS), hex12=r(12, _HEXS))
    assert _kinds(body) != [], body


@pytest.mark.parametrize("line", ["snyk auth", "wandb login --relogin", "mc alias list prod",
                                  "bundle config set --local path vendor/bundle", "hdbuserstore LIST",
                                  "b2 account authorize"])
def test_the_same_tools_with_no_credential_pass(line: str) -> None:
    assert _kinds(line) == [], line


def test_network_gear_and_sql_passwords_count_and_their_hashes_pass() -> None:
    for line in ("username netops privilege 15 password 0 {pw}", "username netops password 7 {hex}",
                 "snmp-server community {key} RW", "rwcommunity {key} 10.0.0.0/8",
                 "CREATE USER 'etl'@'%' IDENTIFIED BY '{pw}';", "ALTER USER app IDENTIFIED BY {pw};",
                 ("new rds.DatabaseInstance(this, 'Db', {{ credentials: Credentials.fromPassword('admin', "
                  "SecretValue.unsafePlainText('{pw}')) }})")):
        body = line.format(pw=pw(), key=r(18), hex=r(12, _HEXS).upper())
        assert _kinds(body) != [], body
    salt, digest = r(14), r(43)
    for line in (f"enable secret 9 $9${salt}${digest}", "snmp-server community public RO",
                 "CREATE USER 'etl'@'%' IDENTIFIED BY PASSWORD '*" + r(40, _HEXS).upper() + "';",
                 "CREATE USER ops IDENTIFIED EXTERNALLY;", "press key 7 twice"):
        assert _kinds(line) == [], line


def test_key_material_in_other_containers() -> None:
    skey = json.dumps({"type": "PaymentSigningKeyShelley_ed25519", "description": "Payment Signing Key",
                       "cborHex": "5820" + r(64, _HEXS)})
    assert _kinds(skey) == ["signing key file"]
    vkey = skey.replace("Signing", "Verification")
    assert _kinds(vkey) == []
    principal = b"\x00\x01\x00\x0bCORP.EXAMPLE\x00\x07svc_etl"
    entry = principal + bytes(random.Random(8).randrange(256) for _ in range(60))
    keytab = base64.b64encode(b"\x05\x02" + len(entry).to_bytes(4, "big") + entry).decode()
    assert _kinds(f"KRB5_KEYTAB_B64={keytab}") != []
    assert _kinds(f"blob: BQI{r(80, string.ascii_letters + string.digits + '+/')}") == []  # not a keytab
    env = gzip.compress(f"DB_PASSWORD={pw()}\nMODE=prod\n".encode(), mtime=0)
    assert _kinds(f"echo {base64.b64encode(env).decode()} | base64 -d | gunzip > .env") != []
    notes = gzip.compress(b"release notes: faster sync, fewer crashes, new icons\n", mtime=0)
    assert _kinds(f"echo {base64.b64encode(notes).decode()} | base64 -d | gunzip") == []


def test_an_encrypted_token_counts_like_a_signed_one() -> None:
    head = b64("{\"alg\":\"dir\",\"enc\":\"A256GCM\"}").rstrip("=").replace("+", "-").replace("/", "_")
    url = string.ascii_letters + string.digits + "-_"
    jwe = f"{head}..{r(16, url)}.{r(300, url)}.{r(22, url)}"
    assert _kinds(f'{{"name": "__Secure-next-auth.session-token", "value": "{jwe}"}}') != []
    assert _kinds(f"cookie: session={jwe}") != []
    assert _kinds("a.b.c.d.e is how a JWE is written: header..iv.ciphertext.tag") == []


def test_a_token_in_a_url_path_segment_named_for_it_or_a_hook_id_counts() -> None:
    low36 = string.ascii_lowercase + string.digits
    assert _kinds(f"channel https://conda.anaconda.org/t/{r(2, string.ascii_lowercase)}-{r(32)}/corp") != []
    assert _kinds(f"hook https://chat.corp.example/hooks/{r(26, low36)}") != []
    assert _kinds(f"https://api.corp.example/v1/token/{r(40)}/revoke") != []
    for url in ("https://chat.corp.example/hooks/update-index", "https://api.github.com/repos/o/r/hooks/4211",
                "https://docs.corp.example/t/getting-started-with-tokens/55", "https://conda.anaconda.org/conda-forge"):
        assert _kinds(f"see {url}") == [], url


def test_a_password_alone_below_its_user_and_a_tsv_secret_column_count() -> None:
    assert _kinds(f"sftp to the vendor\nuser: upload_bot\n{pw()}\n") != []
    assert _kinds(f"login = ext_jdoe\n  {pw()}\n") != []
    assert _kinds("user: bob\nSee the wiki for the rest\n") == []
    assert _kinds("username: alice\nreview_notes_2026\n") == []
    tsv = f"service\taccount\tsecret\nmailgun\tpostmaster@mg.corp.example\t{r(32, _HEXS)}-{r(8, _HEXS)}\n"
    assert _kinds(tsv) != []
    assert _kinds("service\taccount\tsecret\nmailgun\tpostmaster\t(in vault)\n") == []


def test_ids_that_carry_a_secret_count_and_their_public_neighbours_pass() -> None:
    # a Salesforce session id (org id, `!`, token), Consul's SecretID, Asana's slashed PAT
    assert _kinds(f"Access Token     00D{r(12)}!AQ{r(4)}.{r(90, string.ascii_letters + string.digits + '._')}") != []
    assert _kinds(f"AccessorID:       {_uuid()}\nSecretID:         {_uuid()}") != []
    assert _kinds(f"AccessorID:       {_uuid()}") == []
    assert _kinds(f"Secret ID: {_uuid()}  (Azure shows the id of the secret, not its value)") == []
    digits = string.digits
    assert _kinds(f"ASANA_ACCESS_TOKEN=2/{r(16, digits)}/{r(16, digits)}:{r(32, _HEXS)}") != []
    assert _kinds("secret: uploads/2024/05/logo.png") == []
    assert _kinds(f"org id 00D{r(15)}, record 001{r(15)}") == []


def test_public_by_design_documented_and_default_values_pass_beside_real_ones() -> None:
    google = "AI" + "za" + "Sy" + r(33, string.ascii_letters + string.digits + "-_")
    config = (f'const firebaseConfig = {{\n  apiKey: "{google}",\n  authDomain: "shop.firebaseapp.com",\n'
              f'  appId: "1:{r(12, digits := string.digits)}:web:{r(22, _HEXS)}"\n}};')
    assert _kinds(config) == []
    assert _kinds(f"GEMINI_API_KEY={google}") != []
    assert _kinds(config + f"\nFIREBASE_ADMIN_CLIENT_SECRET={r(40)}") != []  # a secret beside the config still counts
    assert _kinds(f"Statsig.initialize('client-{r(43)}')") == []
    assert _kinds(f"STATSIG_SERVER_KEY=secret-{r(43)}") != []
    arn = f"arn:aws:secretsmanager:eu-west-1:{r(12, digits)}:secret:prod/db-{r(6)}"
    assert _kinds(f"secret: {arn}") == [] and _kinds(f"db secret is in {arn}") == []
    assert _kinds("Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==") == []  # RFC 7617's example
    assert _kinds(f"Authorization: Basic {b64('deploy:' + pw())}") != []
    for line in ("POSTGRES_PASSWORD: postgres", "ADMIN_PASSWORD=admin", "MYSQL_ROOT_PASSWORD=root",
                 "RABBITMQ_DEFAULT_PASS: rabbitmq"):
        assert _kinds(line) == [], line
    assert _kinds(f"POSTGRES_PASSWORD: {pw()}") != []


def test_random_hex_is_one_judgment_in_either_case() -> None:
    value = r(40, _HEXS)
    assert random_hex(value) and random_hex(value.upper())
    assert not random_hex("1234567890" * 4) and not random_hex("abcdefabcd" * 4) and not random_hex(value[:31])


def test_a_random_tail_that_holds_x_of_both_cases_by_chance_is_no_placeholder() -> None:
    # x's mean a mask when they run in one case (`sk_live_xxxx`); `xXxXx` inside a random tail is chance
    for token in (GH + "p_" + r(10) + "xXxXx" + r(21), "dckr_pat_" + r(8) + "XxXxX" + r(14)):
        assert _kinds(f"rotated, the new one is in the runner: {token}") != [], token
    assert _kinds("rotated, the new one is in the runner: " + GH + "p_" + "x" * 36) == []
    assert _kinds("rotated, the new one is in the runner: dckr_pat_" + r(8) + "xxxx") == []


def test_a_public_keys_exemption_holds_only_where_it_is_that_key() -> None:
    """Two exemptions were wider than meant (review): any text within 400 characters of one
    Firebase word hid a Google key, and a value starting ``client-`` passed under any label."""
    google = "AI" + "za" + "Sy" + r(33, string.ascii_letters + string.digits + "-_")
    assert _kinds(f"GEMINI_API_KEY={google}\nuploads go to the storageBucket of the shop") != []
    assert _kinds(f"rotate: current_key was {google}, the new one is in the vault") != []
    assert _kinds(f"API_SECRET=client-{r(32)}") != []
    assert _kinds(f"db password: client-{r(12)}") != []
    assert _kinds(f"STATSIG_CLIENT_KEY=client-{r(43)}") == []


def test_a_client_made_with_a_resource_name_is_no_key_given_to_it() -> None:
    """"API key given to a client" refused common code (review): a project id, a service name,
    a host passed to a client's constructor. A random key passed there still counts."""
    for line in ('client = storage.Client("data-platform-staging-eu1")',
                 'http = HttpClient("orders_service_v2_internal_api")',
                 'es = Elasticsearch.Client("es-cluster-7f3a9c2e41b8.acme")'):
        assert _kinds(line) == [], line
    assert _kinds(f'co = cohere.ClientV2("{r(40)}")') != []


@settings(max_examples=EXAMPLES_300, deadline=None)
@given(st.lists(st.sampled_from(["-", "--", "pass", "token", "key", "chpasswd", "a", " ", "|", "x-"]),
                max_size=40).map("".join), st.integers(0, 3))
def test_the_last_flag_start_answers_every_search_from_a_later_pipe(text: str, trim: int) -> None:
    """written_credentials asks, for each pipe on a line, whether a credential flag follows it: one
    pass finds where the line's last flag starts (a search to the line's end from each pipe was
    quadratic in a long line of pipes). The answer for every start is the search's own."""
    from vault_mem.model.secret_commands import _CREDENTIAL_FLAG
    from vault_mem.model.secret_text import last_match_start

    end = max(0, len(text) - trim)
    last = last_match_start(_CREDENTIAL_FLAG, text, 0, end)
    for pos in range(end + 1):
        assert (_CREDENTIAL_FLAG.search(text, pos, end) is not None) == (last >= pos), (text, pos, end)


#: 51 characters of base58 that start as a WIF key does, whose number needs 38 bytes: the
#: checksum's decoding raised OverflowError (37 bytes asked for), out of every command that
#: read a memory holding it (a peer's, pulled by git: `list`, `recall`, `scan` all failed)
_WIF_SHAPED_OVERFLOW = "credskeykeyrootxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxforkey"


def test_a_wif_shaped_run_too_large_for_its_length_is_no_key_and_no_crash(tmp_path) -> None:
    from conftest import cli, new_vault

    from vault_mem.model.secrets import find_secrets

    assert find_secrets(_WIF_SHAPED_OVERFLOW) == []
    assert find_secrets(f"note: {_WIF_SHAPED_OVERFLOW} and K{_WIF_SHAPED_OVERFLOW[1:]}") == []
    vault = new_vault(tmp_path / "v")
    root = vault.root
    vault.close()
    (root / "facts" / "hand.md").write_text(f"---\ndescription: a note\n---\n{_WIF_SHAPED_OVERFLOW}\n", encoding="utf-8")
    for args in (["list"], ["recall", "a note"], ["scan"]):
        out = cli("--vault", str(root), *args)
        assert "internal error" not in out.stderr, (args, out.stderr)
    assert "hand" in cli("--vault", str(root), "list").stdout
