"""The secret gate's classes from the sixteenth blind corpus's last misses (tuned on heldout16, whose
strings none of these are): a placeholder's word drawn by chance inside a random token; the word
right before "key" deciding what a key is; UUIDs as access, private and hook keys; a routing key
judged by its value; an aside between a label and its sign; a policy's `!` ending a password;
Nordic abbreviations inflected after a colon; passphrases of number groups; a seed phrase written
against a label in a script without spaces; cookies exported as objects; and the disguises a
person uses to get a value past a scanner (spelled out, character codes, bytes between dots,
values built from variables or anchors, a token cut into a list, written backwards, in rot13, in a
memory's key). Beside each, the look-alikes that share its place and must pass.

Each test draws its values afresh from generators seeded three ways (none is an item of a bench
corpus).
"""

from __future__ import annotations

import codecs

import pytest

from secret_probe import ALNUM, HEX, WORDS, Draw, all_pass, all_refused, found, person, phrase, refused, uuid4
from vault_mem.model.policy import secret_findings
from vault_mem.model.seed_words import BIP39_ENGLISH

SEEDS = (20261204, 17, 6161)


def _with_word_inside(d: Draw, word: str) -> str:
    """A random token of 27 characters with ``word`` in it in mixed case, as chance writes it."""
    mixed = "".join(c.upper() if i % 2 else c for i, c in enumerate(word))
    return f"{d.r(9)}{mixed}{d.r(14)}"


# --- a placeholder's word inside a random token is chance --------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_placeholder_word_drawn_by_chance_inside_a_token_still_counts(seed: int) -> None:
    d = Draw(seed)
    for word in ("your", "sample", "insert"):
        token = _with_word_inside(d, word)
        assert refused(f'curl https://api.vendor.io/v1/me -H "Authorization: Bearer {token}"'), token
        assert refused(f"API_TOKEN={token}"), token


@pytest.mark.parametrize("body", [
    "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE_123",
    "API_TOKEN=your-api-token-goes-here-42",
    "token = 'InsertYourTokenHere2024'",
    "SECRET_KEY=SampleSecretKeyValue123",
])
def test_a_placeholder_as_a_person_writes_it_passes(body: str) -> None:
    assert not refused(body), body


# --- the word before "key" says what the key is ----------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_an_access_private_or_api_key_whatever_names_its_host(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    host = rng.choice(["GEM_HOST", "SSH_HOST", "CACHE", "OBJECT", "INDEX"])
    cases = [
        f"$env:{host}_API_KEY = '{rng.choice(['rubygems_', 'pk_', ''])}{d.r(48, HEX)}'",
        f"$env:{rng.choice(['SAUCE', 'BROWSERSTACK', 'VENDOR'])}_ACCESS_KEY = '{uuid4(rng)}'",
        f'withEnv(["{rng.choice(["MONGODB_ATLAS", "CLOUD", "PARTNER"])}_PRIVATE_KEY={uuid4(rng)}"]) {{\n  sh "make"\n}}',
        f"export LICENSE_MASTER_KEY={uuid4(rng)}",
    ]
    all_refused(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_uuid_under_a_granting_key_in_any_frame(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    name = f"ACME_{rng.choice(['INTEGRATION', 'SERVICE', 'ADMIN', 'WRITE', 'INGEST', 'LICENSE', 'ACCESS'])}_KEY"
    cases = [
        f"env:\n  - name: {name}\n    value: \"{uuid4(rng)}\"",
        f"set -gx {name} {uuid4(rng)}",
        f"the acme {name[5:].lower().replace('_', ' ')} is {uuid4(rng)}",
        f"set -gx {name} {d.r(40, ALNUM + '+/')}=",
    ]
    all_refused(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_uuid_or_name_under_another_key_passes(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    cases = [
        f"IDEMPOTENCY_KEY={uuid4(rng)}",
        f"CORRELATION_KEY={uuid4(rng)}",
        f"PARTITION_KEY={uuid4(rng)}",
        f"SSH_HOST_KEY_FINGERPRINT={d.r(64, HEX)}",
        "access_key: orders_reader_v2",
        f"ACCESS_KEY_ID={uuid4(rng)}",
        f"env:\n  - name: CACHE_KEY\n    value: \"{uuid4(rng)}\"",
        f"set -gx SORT_KEY {uuid4(rng)}",
        "set -gx ACME_SERVICE_KEY orders-reader",
    ]
    all_pass(cases)


# --- a hook's key as a UUID, a routing key by its value ----------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_uuid_after_one_hook_segment_is_the_hooks_key(seed: int) -> None:
    rng = Draw(seed).rng
    cases = [
        f"alerts go to https://open.{rng.choice(['feishu.cn', 'larksuite.com'])}/open-apis/bot/v2/hook/{uuid4(rng)}",
        f"n8n trigger: https://n8n.{rng.choice(['corp.io', 'ops.dev'])}/webhook/{uuid4(rng)}",
        f"https://hooks.{rng.choice(['glip.com', 'corp.io'])}/webhook/{uuid4(rng)}",
        f"https://events.pagerduty.com/integration/{Draw(seed).r(32, HEX)}/enqueue",
        f"https://oncall.corp.io/integrations/v1/grafana_alerting/{Draw(seed).r(25)}/",
    ]
    all_refused(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_uuid_as_a_record_of_hooks_passes(seed: int) -> None:
    rng = Draw(seed).rng
    cases = [
        f"GET https://api.vendor.io/v1/webhooks/{uuid4(rng)}",
        f"test inbox: https://webhook.site/{uuid4(rng)}",
        f"https://dev.azure.com/org/_apis/hooks/subscriptions/{uuid4(rng)}",
        "docs: https://developer.pagerduty.com/docs/integration/overview",
        "https://docs.datadoghq.com/integrations/amazon_web_services/",
        f"https://dev.azure.com/org/_apis/integrations/{uuid4(rng)}",
    ]
    all_pass(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_routing_key_with_a_random_value_counts(seed: int) -> None:
    d = Draw(seed)
    assert refused(f"PagerDuty Events v2 routing key: {d.r(32, HEX)}")
    assert refused(f"events routing key {d.r(32, HEX)}")


@pytest.mark.parametrize("body", [
    "routing key: orders.created.v2",
    "the routing key is payments.refund.eu-west-1",
    "bind the queue with routing key audit.#",
])
def test_a_queues_routing_key_passes(body: str) -> None:
    assert not refused(body), body


# --- prose: an aside, a policy's `!`, inflected abbreviations, number groups ------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_label_with_an_aside_before_its_sign(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    cases = [
        f"{rng.choice(['Bitwarden', 'KeePass', '1Password'])} master password (do not lose): "
        f"{phrase(rng, 4, ' ')} {rng.randrange(1900, 2030)}",
        f"api token ({rng.choice(['staging', 'eu', 'ops'])}): {d.r(24)}",
        f"vpn password (new, from {rng.choice(['Mon', 'today'])}): {person(rng)}",
        f"{rng.choice(['Bitwarden', 'KeePass'])} master password — {phrase(rng, 4, ' ')} {rng.randrange(1900, 2030)}",
    ]
    all_refused(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_an_aside_that_says_what_the_value_is_not(seed: int) -> None:
    d = Draw(seed)
    cases = [
        "password (optional): leave blank",
        "password (min 12 chars): must include a symbol",
        f"reCAPTCHA site key (public, goes in the HTML): 6L{d.r(38)}",
        f"api key (example): {d.r(24)}",
        "password - see the vault entry",
        "password – ask ops for it",
    ]
    all_pass(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_policy_bang_ends_a_password_after_letters_and_digits(seed: int) -> None:
    rng = Draw(seed).rng
    pw = f"{rng.choice(WORDS).capitalize()}{rng.randrange(1000, 9999)}!"
    assert refused(f"Router admin page 192.168.0.1, login admin, password {pw} - changed last week")


@pytest.mark.parametrize("body", [
    "the password is wrong!",
    "I changed the password in 2024!",
    "wrong password again!",
])
def test_a_bang_that_ends_a_sentence_passes(body: str) -> None:
    assert not refused(body), body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_nordic_password_after_an_inflected_abbreviation(seed: int) -> None:
    rng = Draw(seed).rng
    cases = [
        f"Lösenordet till {rng.choice(['NAS', 'VPN', 'SSH'])}:en är {person(rng)}",
        f"Salasana {rng.choice(['NAS', 'VPN'])}:iin on {person(rng)}",
    ]
    all_refused(cases)


@pytest.mark.parametrize("body", [
    "Lösenordet till NAS:en är bytt",
    "Lösenordet till VPN:en finns i valvet",
])
def test_a_nordic_sentence_without_a_password_passes(body: str) -> None:
    assert not refused(body), body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_passphrase_of_number_groups(seed: int) -> None:
    rng = Draw(seed).rng
    rolls = " ".join("".join(rng.choice("123456") for _ in range(5)) for _ in range(6))
    fours = " ".join(str(rng.randrange(1000, 9999)) for _ in range(4))
    assert refused(f"diceware rolls for the vault passphrase: {rolls}")
    assert refused(f"Passwort: {fours}") or sorted(fours.split()) == fours.split()


@pytest.mark.parametrize("body", [
    "password history (years): 2021 2022 2023 2024",
    "password: 1234 1234 1234 1234",
    "passphrase length options: 4 5 6 7",
])
def test_number_groups_in_order_or_repeated_pass(body: str) -> None:
    assert not refused(body), body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_seed_phrase_written_against_a_label_without_spaces(seed: int) -> None:
    rng = Draw(seed).rng
    words = " ".join(rng.sample(BIP39_ENGLISH, 12))
    for label in ("ウォレットのシードフレーズ：", "助记词:", "복구 구문："):
        assert refused(label + words), label


def test_english_prose_after_a_label_without_spaces_passes() -> None:
    assert not refused("メモ：the quick brown fox jumps over the lazy dog and then runs away home again")


# --- cookies exported as objects -----------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_a_cookie_exported_as_an_object(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    value = d.r(rng.randrange(40, 160), ALNUM + "_-")
    cases = [
        f'[\n {{\n  "domain": ".{rng.choice(["linkedin.com", "corp.io"])}",\n  "name": "{rng.choice(["li_at", "sid", "auth"])}",\n'
        f'  "value": "{value}",\n  "httpOnly": true\n }}\n]',
        f"await page.setCookie({{name: 'session', value: '{d.r(32)}', domain: 'app.corp.io', path: '/'}})",
    ]
    all_refused(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_cookie_in_a_header_a_command_a_yaml_list_or_a_devtools_row(seed: int) -> None:
    d = Draw(seed)
    rng = d.rng
    value = d.r(rng.randrange(32, 96), ALNUM + "_-")
    name = rng.choice(["li_at", "sid", "_gh_sess", "session"])
    cases = [
        f"Set-Cookie: {name}={value}; Path=/; HttpOnly; Secure",
        f'curl -b "{name}={value}" https://app.corp.io/api/me',
        f"cookies:\n- name: {name}\n  value: {value}\n  domain: .corp.io\n  path: /\n- name: lang\n  value: en-US",
        f"{name}\t{value}\t.www.corp.io\t/\t2026-06-01T12:00:00.000Z\t{len(value)}\t✓\t✓\tNone",
    ]
    all_refused(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_dns_record_or_a_plain_cookie_passes(seed: int) -> None:
    d = Draw(seed)
    cases = [
        f'{{"domain": "corp.io", "name": "_acme-challenge", "type": "TXT", "value": "{d.r(43, ALNUM + "_-")}"}}',
        '[{"domain": ".corp.io", "name": "theme", "value": "dark-mode-enabled", "path": "/"}]',
        '[{"domain": ".corp.io", "name": "_ga", "value": "GA1.2.1764327119.1701234567", "path": "/"}]',
        f"records:\n- name: _acme-challenge\n  value: {d.r(43, ALNUM + '_-')}\n  domain: corp.io\n  type: TXT",
        "Set-Cookie: theme=dark; Path=/",
        "curl -b cookies.txt https://app.corp.io/",
    ]
    all_pass(cases)


# --- disguises -------------------------------------------------------------------------------

def _stripe(d: Draw) -> str:
    return "sk_live_" + d.r(40)


def _slack(d: Draw) -> str:
    rng = d.rng
    return f"xoxb-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**12, 10**13)}-{d.r(24)}"


@pytest.mark.parametrize("seed", SEEDS)
def test_a_value_spelled_out_or_in_character_codes(seed: int) -> None:
    d = Draw(seed)
    pw = person(d.rng)
    codes = ",".join(str(ord(c)) for c in d.r(17))
    cases = [
        f"password spelled: {' '.join(pw)}",
        f"String.fromCharCode({codes})  // db password",
        "token = " + "+".join(f"chr({ord(c)})" for c in _stripe(d)),
        "slack = \"" + "".join(f"\\u{ord(c):04x}" for c in _slack(d)) + "\"",
    ]
    all_refused(cases)


@pytest.mark.parametrize("body", [
    "steps: 1 2 3 4 5 6 7 8 then done",
    "S E C R E T   N O T E S",
    "greeting = String.fromCharCode(72,101,108,108,111,44,32,87,111,114,108,100)",
    "ports = [80, 443, 8080, 8443, 9000, 9090, 3000, 5432]",
    'msg = "\\x48\\x65\\x6c\\x6c\\x6f\\x20\\x57\\x6f\\x72\\x6c\\x64"',
])
def test_spaced_letters_and_small_numbers_pass(body: str) -> None:
    assert not refused(body), body


@pytest.mark.parametrize("seed", SEEDS)
def test_key_bytes_between_dots_or_colons_under_a_keys_name(seed: int) -> None:
    d = Draw(seed)
    for sep in ".:-":
        key = sep.join(d.r(2, HEX) for _ in range(32))
        assert refused(f"key: {key} (aes-256 key for backups)"), key


@pytest.mark.parametrize("seed", SEEDS)
def test_serials_fingerprints_and_macs_between_colons_pass(seed: int) -> None:
    d = Draw(seed)
    cases = [
        "Serial Number: " + ":".join(d.r(2, HEX) for _ in range(16)),
        "SHA256 Fingerprint=" + ":".join(d.r(2, HEX).upper() for _ in range(32)),
        "host key fingerprint is " + ":".join(d.r(2, HEX) for _ in range(16)),
        "interfaces: " + " ".join(":".join(d.r(2, HEX) for _ in range(6)) for _ in range(3)),
    ]
    all_pass(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_value_built_from_literals_defined_beside_it(seed: int) -> None:
    d = Draw(seed)
    cases = [
        f"TOKEN_A={d.r(20)}\nTOKEN_B={d.r(20)}\nAPI_TOKEN=$TOKEN_A$TOKEN_B  # api.vendor.io",
        f"prefix: &p 'dop_v1_'\nrest: &r '{d.r(64, HEX)}'\ntoken: [*p, *r]",
        f"a = 'sk_live_'\nb = '{d.r(40)}'\nstripe.api_key = a + b",
        f'P1="{d.r(16)}"\nP2="{d.r(16)}"\nexport DB_PASSWORD="${{P1}}${{P2}}"',
        f"a = 'ghp_'\nb = '{d.r(36)}'\ntoken = f'{{a}}{{b}}'",
        f"a = 'sk_live_'\nb = '{d.r(40)}'\nkey = ''.join([a, b])",
        f'PW = "".join(["{d.r(4)}", "{d.r(5)}", "{person(d.rng)}"])\nconn = connect(user="etl", password=PW)',
        f"- prefix: `glpat-`\n- body: `{d.r(20)}`\n(join them for the gitlab token)",
    ]
    all_refused(cases)


@pytest.mark.parametrize("body", [
    "BASE=/opt/app\nSUFFIX=releases\nTARGET=$BASE$SUFFIX",
    "defaults: &d 'eu-west-1'\nother: &o 'us-east-1'\nregions: [*d, *o]",
    "a = 'hello'\nb = 'world'\ngreeting = a + b",
    "host = 'api.corp.io'\npath = 'v1'\nurl = f'https://{host}/{path}'",
    "first = 'Ada'\nlast = 'Lovelace'\nname = ' '.join([first, last])",
    'label = "".join(["release", "-", "notes"])',
    "host: db.corp.io\nport: 5432\nuser: app\ndatabase: orders",
])
def test_values_built_from_names_and_paths_pass(body: str) -> None:
    assert not refused(body), body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_token_cut_into_a_list_or_written_backwards_or_in_rot13(seed: int) -> None:
    d = Draw(seed)
    stripe = _stripe(d)
    pieces = ", ".join(f'"{stripe[i:i + 8]}"' for i in range(0, len(stripe), 8))
    cases = [
        f'{{"parts": [{pieces}], "join": ""}}',
        f"token (reversed, flip it): {_slack(d)[::-1]}",
        f"rot13'd so it's not plain: {codecs.encode('password=' + person(d.rng) + '!', 'rot13')}",
        f"rot13: {codecs.encode('API_TOKEN=' + d.r(32), 'rot13')}",
    ]
    all_refused(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_lists_of_ids_and_reversed_words_pass(seed: int) -> None:
    d = Draw(seed)
    cases = [
        "ids: [" + ", ".join(f'"{d.r(8, HEX)}"' for _ in range(5)) + "]",
        '["alpha", "beta", "gamma", "delta"]',
        "commit " + d.r(40, HEX)[::-1],
        "the word unconstitutionally, written backwards: " + "unconstitutionally"[::-1] + "xyzxyz",
    ]
    all_pass(cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_token_in_a_memorys_key_slug(seed: int) -> None:
    d = Draw(seed)
    key = f"notes/gitlab-glpat-{d.r(20, HEX + 'ghijklmnopqrstuvwxyz')}"
    assert any(label == "key" for label, _, _ in secret_findings(key=key, description="stored by key",
                                                                 body="placeholder note", meta={})), key
    assert found(f"glpat-{d.r(20)}")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_run_of_both_cases_in_a_key(seed: int) -> None:
    d = Draw(seed)
    key = f"creds/api-{d.r(40)}"
    assert any(label == "key" for label, _, _ in secret_findings(key=key, description="key holds it",
                                                                 body="see description", meta={})), key


@pytest.mark.parametrize("seed", SEEDS)
def test_a_hash_or_uuid_in_a_key_passes(seed: int) -> None:
    d = Draw(seed)
    for key in (f"notes/commit-{d.r(40, HEX)}", f"notes/page-{d.r(32, HEX)}", f"notes/run-{uuid4(d.rng)}"):
        assert not secret_findings(key=key, description="notes", body="what happened", meta={}), key


@pytest.mark.parametrize("key", [
    "notes/how-to-rotate-sk-live-keys",
    "notes/gitlab-glpat-rotation-runbook",
    "notes/xoxb-token-scopes",
])
def test_a_slug_that_names_a_token_passes(key: str) -> None:
    assert not secret_findings(key=key, description="notes", body="how we rotate", meta={}), key
