"""Tests for the secret gate and the write-policy lint (vault_mem.model.policy).

The corpus below is built at run time: every credential-shaped string is assembled from a prefix
split in two and a body drawn from a seeded random generator, so this file never holds a literal
that a git host's secret scanner would flag. Values are never shown in test ids or messages.
"""

from __future__ import annotations

import base64
import dataclasses
import itertools
import json
import random
import string

import pytest
from hypothesis import given, settings
from stress import sized
from hypothesis import strategies as st

from vault_mem.errors import InvalidMemoryError, SecretError
from vault_mem.model.policy import (
    MAX_DESCRIPTION_CHARS,
    SecretFinding,
    check_description_policy,
    check_write,
    find_secrets,
    lint_write,
)

# hypothesis examples per property: 300 or 200 at full size, 100 or 75 everyday (tests/stress.py).
# Outside CI each run draws new ones, so a developer's runs add up to more than either size; in CI
# (hypothesis's own "ci" profile, derandomized) every run tries the same first ones
EXAMPLES_300 = sized(300, 100)

# --- corpus helpers --------------------------------------------------------------------------

_RNG = random.Random(8)  # fixed seed: the corpus is the same on every run
ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"
HEX = "0123456789abcdef"
DASHES = "-" * 5


def rand(n: int, alphabet: str = ALNUM) -> str:
    """``n`` random characters; mixed alphabets always get a digit and a letter, like real keys."""
    while True:
        s = "".join(_RNG.choice(alphabet) for _ in range(n))
        mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
        if not mixed or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s)):
            return s


def b64url(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")


def pem(label: str, lines: int = 5, headers: str = "") -> str:
    body = "\n".join(rand(64, B64) for _ in range(lines))
    return f"{DASHES}BEGIN {label}{DASHES}\n{headers}{body}\n{rand(20, B64)}==\n{DASHES}END {label}{DASHES}"


def jwt(header: dict, payload: dict) -> str:
    return f"{b64url(header)}.{b64url(payload)}.{rand(43, B64URL)}"


def password() -> str:
    """A human-made-looking password: letters, digits and a symbol."""
    return rand(10) + _RNG.choice("!#%^&*+=") + rand(3, string.digits)


PK = "PRIVATE " + "KEY"
GH = "gh"
SK = "s" + "k"

# (expected kind, text). Several per kind, in the shapes they turn up in notes and configs.
POSITIVES: list[tuple[str, str]] = [
    ("private key block", "Deploy key for the build box:\n" + pem("RSA " + PK)),
    ("private key block", pem("EC " + PK, lines=2)),
    ("private key block", "```\n" + pem("OPENSSH " + PK, lines=6) + "\n```"),
    ("private key block", pem("PGP " + PK + " BLOCK", headers="Version: GnuPG v2\n\n")),
    ("private key block", "key.pem holds:\n" + pem(PK, lines=3)),
    ("private key block", pem("ENCRYPTED " + PK, lines=3)),
    ("private key block", pem("DSA " + PK, headers="Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,"
                              + rand(32, "0123456789ABCDEF") + "\n\n")),
    ("AWS access key", "The CI user's access key id is " + "AK" + "IA" + rand(16, UPPER_DIGITS) + "."),
    ("AWS access key", "aws_access_key_id = " + "AS" + "IA" + rand(16, UPPER_DIGITS)),
    ("AWS access key", '{"AccessKeyId": "' + "AK" + "IA" + rand(16, UPPER_DIGITS) + '"}'),
    ("AWS secret key", "aws_secret_access_key = " + rand(40, B64)),
    ("AWS secret key", "export AWS_SECRET_ACCESS_KEY=" + rand(40, B64)),
    ("AWS secret key", '"SecretAccessKey": "' + rand(40, B64) + '"'),
    ("GitHub token", "Use " + GH + "p_" + rand(36) + " for the release job."),
    ("GitHub token", "GITHUB_TOKEN=" + GH + "o_" + rand(36)),
    ("GitHub token", GH + "u_" + rand(36)),
    ("GitHub token", "installation token " + GH + "s_" + rand(36)),
    ("GitHub token", "refresh: " + GH + "r_" + rand(36)),
    ("GitHub token", "PAT is github" + "_pat_" + rand(22) + "_" + rand(59)),
    ("GitLab token", "gl" + "pat-" + rand(20, B64URL)),
    ("GitLab token", "CI uses GITLAB_TOKEN " + "gl" + "pat-" + rand(20) + " on the runner"),
    ("GitLab token", "runner registration: " + "gl" + "rt-" + rand(20)),
    ("Slack token", "bot token " + "xo" + "xb-" + rand(12, string.digits) + "-" + rand(13, string.digits)
     + "-" + rand(24)),
    ("Slack token", "xo" + "xp-" + rand(11, string.digits) + "-" + rand(12, string.digits) + "-"
     + rand(13, string.digits) + "-" + rand(32, HEX)),
    ("Slack token", "SLACK=" + "xo" + "xa-2-" + rand(12, string.digits) + "-" + rand(30)),
    ("Slack token", "xo" + "xr-" + rand(40)),
    ("Slack webhook", "Alerts go to https://hooks." + "slack.com/services/T" + rand(8, UPPER_DIGITS)
     + "/B" + rand(8, UPPER_DIGITS) + "/" + rand(24)),
    ("Slack webhook", "webhook_url: https://hooks." + "slack.com/services/T" + rand(10, UPPER_DIGITS)
     + "/B" + rand(10, UPPER_DIGITS) + "/" + rand(24)),
    ("OpenAI API key", "OPENAI_API_KEY=" + SK + "-" + rand(20) + "T3Blbk" + "FJ" + rand(20)),
    ("OpenAI API key", "project key " + SK + "-proj-" + rand(120, B64URL)),
    ("OpenAI API key", "client = OpenAI(api_key='" + SK + "-" + rand(48) + "')"),
    ("OpenAI API key", SK + "-svcacct-" + rand(64, B64URL)),
    ("Anthropic API key", "ANTHROPIC_API_KEY=" + SK + "-ant-api03-" + rand(93, B64URL) + "AA"),
    ("Anthropic API key", "admin key " + SK + "-ant-admin01-" + rand(80, B64URL)),
    ("Hugging Face token", "HF token: " + "h" + "f_" + rand(34)),
    ("Hugging Face token", "huggingface-cli login --token " + "h" + "f_" + rand(34)),
    ("Google API key", "maps key AI" + "za" + rand(35, B64URL)),
    ("Google API key", "GOOGLE_API_KEY=AI" + "za" + rand(35, B64URL)),
    ("Stripe key", "STRIPE_SECRET_KEY=" + SK + "_live_" + rand(24)),
    ("Stripe key", "restricted key " + "r" + "k_live_" + rand(24)),
    ("Stripe key", "test mode: " + SK + "_test_" + rand(24)),
    ("Stripe key", "webhook signing secret wh" + "sec_" + rand(32)),
    ("JWT", "session cookie " + jwt({"alg": "HS256", "typ": "JWT"}, {"sub": "42", "iat": 1700000000})),
    ("JWT", "Authorization: Bearer " + jwt({"alg": "RS256", "kid": "k1"}, {"iss": "auth", "exp": 1}),),
    ("JWT", jwt({"typ": "JWT", "alg": "ES256"}, {"scope": "admin"})),
    ("database URL with password", "DATABASE_URL=postgres://app:" + password() + "@db.internal:5432/app"),
    ("database URL with password", "mysql://root:" + rand(16) + "@127.0.0.1:3306/shop"),
    ("database URL with password", "mongodb+srv://svc:" + rand(20) + "@cluster0.ab1cd.mongodb.net/prod"),
    ("database URL with password", "cache at redis://:" + rand(24) + "@cache.internal:6379/0"),
    ("database URL with password", "postgresql+psycopg://etl:" + rand(14) + "@warehouse/etl"),
    ("URL with password", "clone https://deploy:" + rand(18) + "@git.internal.corp/infra.git"),
    ("URL with password", "proxy is http://squid:" + password() + "@proxy.lan:3128"),
    ("URL with password", "ftp://backup:" + rand(12) + "@example.com/dumps"),
    ("password assignment", "DB_PASSWORD=" + password()),
    ("password assignment", 'password: "' + rand(12) + '"'),
    ("password assignment", "passwd: " + rand(12)),
    ("password assignment", '{"user": "admin", "password": "' + rand(14) + '"}'),
    ("password assignment", "mysqldump --password=" + password() + " shop"),
    ("password assignment", "PASSWORD=" + "".join(_RNG.choice(string.ascii_lowercase) for _ in range(9))),
    ("password assignment", "pg_dump --password " + password()),
    ("password assignment", "Driver={ODBC Driver 18};Server=db;Uid=sa;Pwd=" + rand(12) + ";"),
    ("password assignment", "The staging admin password is " + password()),
    ("password assignment", "pwd = '" + rand(10) + "'"),
    ("password assignment", "- **Password**: " + password()),
    # (curl's `-u user:X` is secret_commands' flag rule's, the one home of a user and password in one
    # argument; `admin:X` would be named as a default account's password, secret_pairs')
    ("password given to a command", "curl -u jenkins:" + rand(12) + " https://jenkins.internal"),
    ("secret assignment", "client_secret = \"" + rand(24, B64URL) + '"'),
    ("secret assignment", "secret: " + rand(16)),
    ("secret assignment", "token=" + rand(32, HEX)),
    ("secret assignment", "api_key=" + rand(28)),
    ("secret assignment", "DEPLOY_API_KEY: '" + rand(20) + "'"),
    ("secret assignment", 'access_token: "' + rand(30, B64URL) + '"'),
    ("high-entropy string in assignment", "signing_key = \"" + rand(44, B64) + '"'),
    ("high-entropy string in assignment", "ENCRYPTION_KEY=" + rand(43, B64URL) + "="),
    ("high-entropy string in assignment", "master_key: " + rand(32, ALNUM)),
    ("high-entropy string in assignment", "SESSION_KEY = '" + rand(40, B64) + "'"),
    ("authorization header",
     "curl -H 'Authorization: Bearer " + rand(40, B64URL) + "' https://api.example.com"),
    ("authorization header",
     "Authorization: Basic " + base64.b64encode(("svc:" + rand(12)).encode()).decode()),
]

NEGATIVES: list[str] = [
    "password=<password>",
    "Set password=${PASSWORD} in the unit file.",
    "DB_PASSWORD=$DB_PASS",
    "password: changeme",
    "token: xxx",
    "secret: ***",
    'password = "your-password-here"',
    "password = os.environ[\"DB_PASSWORD\"]",
    'api_key = os.getenv("OPENAI_API_KEY")',
    "token: ${{ secrets.GITHUB_TOKEN }}",
    'export OPENAI_API_KEY="$(op read op://Private/OpenAI/credential)"',
    "password = getpass.getpass()",
    "password = None",
    "password: ********",
    "api_key: REDACTED",
    "token=",
    "The token is in 1Password item 'GitHub CI bot'.",
    "token: 1Password item GitHub-CI",
    "secret: stored in Vault at kv/prod/db",
    "password_file: /run/secrets/db_password",
    "max_tokens = 4096",
    "tokenizer = AutoTokenizer.from_pretrained('bert-base-uncased')",
    "The password policy requires 12 characters.",
    "Rotate the token every 90 days; tokens live in 1Password.",
    "The token expires in 3600 seconds.",
    "Secret Santa is on Dec 20, the password is required at login.",
    "Fixed in commit " + rand(40, HEX) + " (merged).",
    "see " + rand(7, HEX) + " and " + rand(12, HEX),
    "request id 123e4567-e89b-12d3-a456-426614174000",
    "token_id = 5f0c2a1e-9d3b-4c7e-8a6f-1b2c3d4e5f60",
    "Docs live at https://example.com/docs/setup?step=2#auth",
    "clone https://alice@example.com/team/repo.git",
    "postgres://app@localhost:5432/app",
    "postgres://user:password@localhost/db",
    "postgres://user:<password>@db.example.com/app",
    "postgres://user:${DB_PASSWORD}@db.example.com/app",
    "http://localhost:8080/api/v1/items",
    "git@github.com:org/repo.git",
    "The release tarball's sha256 is " + rand(64, HEX) + ".",
    "digest: sha256:" + rand(64, HEX),
    "checksum = " + rand(64, HEX),
    "aGVsbG8= is just base64 for hello, and dXNlcg== for user.",
    "Upgraded to v1.2.3-rc.4+build.567 and Python 3.12.1.",
    "Keys: ~/.ssh/id_ed25519 and /home/me/.aws/credentials and C:\\Users\\me\\token.txt",
    "Public key:\n" + DASHES + "BEGIN PUBLIC " + "KEY" + DASHES + "\n" + rand(64, B64) + "\n" + DASHES
    + "END PUBLIC " + "KEY" + DASHES,
    "Added ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rand(43, B64) + " me@laptop to authorized_keys",
    "OpenAI keys start with " + SK + "- and we use scikit-learn, not sk-learn.",
    "Slack bot tokens look like " + "xo" + "xb-your-token-here",
    "https://hooks." + "slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
    "Stripe publishable key (public by design): " + "p" + "k_live_" + rand(24),
    "AWS access key ids start with " + "AK" + "IA and are 20 characters.",
    "AWS docs example: " + "AK" + "IA" + "IOSFODNN7" + "EXAMPLE",
    "GitHub classic tokens start with " + GH + "p_ and are 40 characters.",
    "path = hf_hub_download(repo_id='org/model', filename='model.onnx')",
    "Google keys start with AI" + "za; ours is in the secret manager.",
    b64url({"foo": 1}) + "." + b64url({"bar": 2}) + "." + rand(20, B64URL),
    "Java package com.example.app.service and file a.b.c",
    "password: 12",
    "key: editor-preference",
    "primary_key: id",
    "Our CI reads the secret from the environment: secret = config.db_secret",
    "token: expires in 3 days",
    "conn = psycopg.connect(host=host, password=db_pass)",
    "secret: kv/prod/db",
    "def login(token: TokenOpt = None, password: SecretStr | None = None) -> None:",
    "api_key: OpenRouter API key. Falls back to the OPENROUTER_API_KEY env var.",
    'ENV_SECRET_KEY = "LANGFUSE_SECRET_KEY"',
    'ACCESS_TOKEN_HEADER = "X-Access-Token"',
    '"--token": "Use a User Access Token. Prefer setting `HF_TOKEN` instead of passing it.",',
    'token = " * [would prune] "',
    "Credentials can be given with the --username and --password options instead.",
    "self.user, self.password = user, password",
    "username, password = split",
    "conn = connect(password=pw, host=host)",
    "user_pass = '%s:%s' % (user, pw)",
    'OID_PASSWORD: "challengePassword"',
    "env = dict(os.environ, PWD='/tmp')",
    "'pass': 'The pass statement does nothing'",
    'publicKeyToken="' + rand(16, HEX) + '"',
    "Deploy with `kubectl create secret generic db --from-literal=password=$DB_PASSWORD`",
    "db_password: Optional[str] = None",
    "def login(user: str, password: str | None = None) -> Session:",
    "token = request.headers['X-Token']",
    "authorized_key: AAAAC3NzaC1lZDI1NTE5AAAA" + rand(40, B64),
    "postgres://readonly:readonly@localhost/test is the docker default",
]

# --- end of corpus ---------------------------------------------------------------------------

REQUIRED_KINDS = {
    "private key block", "AWS access key", "AWS secret key", "GitHub token", "GitLab token", "Slack token",
    "Slack webhook", "OpenAI API key", "Anthropic API key", "Hugging Face token", "Google API key",
    "Stripe key", "JWT", "database URL with password", "URL with password", "password assignment",
    "secret assignment", "high-entropy string in assignment",
}


def _kinds(text: str) -> list[str]:
    return [f.kind for f in find_secrets(text)]


# --- the corpus ----------------------------------------------------------------------------


def test_corpus_is_big_enough_and_covers_every_kind() -> None:
    assert len(POSITIVES) >= 40 and len(NEGATIVES) >= 40
    per_kind = {k: sum(1 for kind, _ in POSITIVES if kind == k) for k in REQUIRED_KINDS}
    assert all(n >= 2 for n in per_kind.values()), per_kind


@pytest.mark.parametrize(
    ("kind", "text"), POSITIVES, ids=[f"{i}-{k}" for i, (k, _) in enumerate(POSITIVES)]
)
def test_positive_is_found_with_its_kind(kind: str, text: str) -> None:
    findings = find_secrets(text)
    assert kind in [f.kind for f in findings]
    for f in findings:
        assert 0 <= f.start < f.end <= len(text)


@pytest.mark.parametrize("text", NEGATIVES, ids=[f"neg-{i}" for i in range(len(NEGATIVES))])
def test_look_alike_is_clean(text: str) -> None:
    assert find_secrets(text) == []


def test_detection_rate_on_corpus(record_property, capsys) -> None:
    caught = sum(1 for kind, text in POSITIVES if kind in _kinds(text))
    clean = sum(1 for text in NEGATIVES if not find_secrets(text))
    rate = (f"secret gate corpus: {caught}/{len(POSITIVES)} positives caught with the right kind, "
            f"{clean}/{len(NEGATIVES)} look-alikes clean")
    record_property("secret_detection_rate", rate)
    with capsys.disabled():
        print(f"\n{rate}")
    assert (caught, clean) == (len(POSITIVES), len(NEGATIVES))


def test_finding_span_covers_the_value_not_the_key_name() -> None:
    token = GH + "p_" + rand(36)
    text = f"GITHUB_TOKEN={token} # ci"
    [f] = find_secrets(text)
    assert (f.kind, text[f.start:f.end]) == ("GitHub token", token)
    pw = password()
    text = f'db_password = "{pw}"'
    [f] = find_secrets(text)
    assert text[f.start:f.end] == pw


def test_private_key_span_runs_from_begin_to_end() -> None:
    block = pem("RSA " + PK)
    text = "before\n" + block + "\nafter"
    [f] = find_secrets(text)
    assert text[f.start:f.end] == block


def test_offsets_survive_text_whose_lowercase_changes_length() -> None:
    pw = password()
    text = "\u0130stanbul office: password=" + pw  # 'İ'.lower() is two characters
    [f] = find_secrets(text)
    assert text[f.start:f.end] == pw


def test_specific_kind_wins_over_generic_assignment() -> None:
    assert _kinds("token=" + GH + "o_" + rand(36)) == ["GitHub token"]
    assert _kinds("api_key: " + SK + "-ant-api03-" + rand(40, B64URL)) == ["Anthropic API key"]


def test_empty_and_plain_text() -> None:
    assert find_secrets("") == []
    assert find_secrets("Prefers Helix over Neovim for its built-in LSP support.") == []


# --- robustness: linear time on hostile input ----------------------------------------------


# Each input ~1 MB at full size; ~320 KB everyday, still past every bound the gate keeps (its 256 KB
# decoding budget, its 64 KB reaches), and a backtracking pattern takes hours at either size
_SCALE = sized(1024, 320) / 1024


def _n(count: int) -> int:
    return max(1, round(count * _SCALE))


PATHOLOGICAL = {
    "token run": GH + "p_" + "a" * _n(1_000_000),
    "near tokens": (GH + "p_" + "a1" * 17 + " ") * _n(30_000),
    "ey run": "ey" * _n(500_000),
    "jwt-ish": "eyJhbGciOiJ." * _n(90_000),
    "url near": "postgres://u:p" * _n(70_000),
    "url colons": "a://" + "a:" * _n(500_000),
    "scheme run": "a" * _n(1_000_000) + "://",
    "keywords": "password " * _n(110_000),
    "assignments": "password=" * _n(110_000),
    "spaces": "password" + " " * _n(1_000_000),
    "pem headers": (DASHES + "BEGIN RSA " + PK + DASHES + "\n" + "A" * 30 + "\n") * _n(17_000),
    "base64 run": "A1+/" * _n(250_000),
    "bearer": "Bearer " * _n(150_000),
    "underscores": "_" * _n(1_000_000),
    "at signs": "a:b@" * _n(250_000),
    "key names": "key_" * _n(250_000) + "=abc",
    "slack-ish": ("xo" + "xb-1-") * _n(170_000),
}


@pytest.mark.parametrize("name", list(PATHOLOGICAL))
def test_megabyte_of_near_matches_completes(name: str) -> None:
    # Completing at all is the test: a backtracking regex would take hours here. Timing goals
    # live in bench/, not in assertions.
    findings = find_secrets(PATHOLOGICAL[name])
    assert all(a.end <= b.start for a, b in itertools.pairwise(findings))


def test_64kb_body_is_scanned() -> None:
    body = ("\n".join(t for _, t in POSITIVES) + "\n" + "\n".join(NEGATIVES)) * 20
    body = body[: 64 * 1024]
    findings = find_secrets(body)
    assert len(findings) > 100


# --- check_write ---------------------------------------------------------------------------


def _refusal(**fields) -> str:
    args = {"key": "ci-setup", "description": "How CI authenticates", "body": "Uses a bot account.",
            "meta": {}}
    args.update(fields)
    with pytest.raises(SecretError) as exc:
        check_write(**args)
    return str(exc.value)


def _assert_no_value(message: str, value: str) -> None:
    assert value not in message
    assert not any(value[i:i + 8] in message for i in range(len(value) - 7)), "part of the value leaked"


def test_check_write_names_the_key_field() -> None:
    token = GH + "p_" + rand(36, string.ascii_lowercase + string.digits)
    msg = _refusal(key="deploy-" + token)
    assert "the key holds" in msg and "GitHub token" in msg
    _assert_no_value(msg, token)


def test_check_write_names_the_description_field() -> None:
    token = "xo" + "xb-" + rand(12, string.digits) + "-" + rand(24)
    msg = _refusal(description="Slack bot token is " + token)
    assert "the description holds" in msg and "Slack token" in msg
    _assert_no_value(msg, token)


def test_check_write_names_the_body_field_and_line() -> None:
    pw = password()
    msg = _refusal(body="Staging database\n\nDB_PASSWORD=" + pw + "\n")
    assert "the body holds" in msg and "password assignment" in msg and "line 3" in msg
    _assert_no_value(msg, pw)


@pytest.mark.parametrize(
    ("meta", "label", "kind"),
    [
        ({"api": "AI" + "za" + rand(35, B64URL)}, "frontmatter field 'api'", "Google API key"),
        ({"password": rand(14)}, "frontmatter field 'password'", "password assignment"),
        ({"db": {"url": "postgres://app:" + rand(16) + "@db/app"}}, "frontmatter field 'db'",
         "database URL with password"),
        ({"refs": ["docs/auth.md", jwt({"alg": "HS256"}, {"sub": "1"})]}, "frontmatter field 'refs'", "JWT"),
        ({"notes": "h" + "f_" + rand(34)}, "frontmatter field 'notes'", "Hugging Face token"),
    ],
    ids=["value", "password-field", "nested", "list", "free-text"],
)
def test_check_write_names_the_frontmatter_field(meta: dict, label: str, kind: str) -> None:
    msg = _refusal(meta=meta)
    assert f"the {label} holds" in msg and kind in msg

    def values(v):
        if isinstance(v, dict):
            for x in v.values():
                yield from values(x)
        elif isinstance(v, list):
            for x in v:
                yield from values(x)
        else:
            yield str(v)

    for v in values(meta):
        if find_secrets(v) or find_secrets(f'password: "{v}"'):
            _assert_no_value(msg, v)


def test_check_write_uses_the_right_article() -> None:
    msg = _refusal(body="id " + "AK" + "IA" + rand(16, UPPER_DIGITS))
    assert "looks like an AWS access key" in msg
    assert "looks like a database URL" in _refusal(body="postgres://u:" + rand(12) + "@db/x")


def test_check_write_accepts_clean_memories_and_pointers_to_secrets_in_quotes() -> None:
    check_write(key="k", description="d", body="", meta={"note": 'the "deploy" token is in 1Password'})


def test_check_write_says_what_to_do_and_lists_every_field() -> None:
    a = GH + "p_" + rand(36)
    b = "gl" + "pat-" + rand(20)
    msg = _refusal(description="uses " + a, body="runner: " + b)
    assert "description" in msg and "GitHub token" in msg and "body" in msg and "GitLab token" in msg
    assert "Nothing was written" in msg and "1Password" in msg
    _assert_no_value(msg, a)
    _assert_no_value(msg, b)


def test_check_write_accepts_clean_memories_and_pointers_to_secrets() -> None:
    check_write(
        key="openai-key-location",
        description="OpenAI API key is in 1Password item 'OpenAI prod'",
        body="Read it with `op read op://Private/OpenAI/credential`; rotate every 90 days.",
        meta={"description": "OpenAI API key is in 1Password item 'OpenAI prod'", "tags": ["secrets"],
              "source": "user", "refs": ["deploy/env.sh"], "pinned": True},
    )


def test_secret_finding_carries_no_value() -> None:
    assert [f.name for f in dataclasses.fields(SecretFinding)] == ["kind", "start", "end"]


@settings(max_examples=EXAMPLES_300, deadline=None)
@given(st.text(alphabet=st.sampled_from(ALNUM + "-_.:/=@ \n\"'`$<>{}()+*#İ"), max_size=400))
def test_find_secrets_never_raises_and_spans_are_sane(text: str) -> None:
    findings = find_secrets(text)
    assert all(0 <= f.start < f.end <= len(text) for f in findings)
    assert all(a.end <= b.start for a, b in itertools.pairwise(findings))


# --- description policy and lint -----------------------------------------------------------


def test_description_at_the_limit_is_fine() -> None:
    check_description_policy("x" * MAX_DESCRIPTION_CHARS)
    assert lint_write(type="fact", description="d" * MAX_DESCRIPTION_CHARS, body="Plain fact.") == []


def test_long_description_is_refused() -> None:
    with pytest.raises(InvalidMemoryError, match="at most 200") as exc:
        check_description_policy("x" * (MAX_DESCRIPTION_CHARS + 1))
    assert "body" in str(exc.value)
    with pytest.raises(InvalidMemoryError):
        lint_write(type="fact", description="y" * 201, body="")


def test_multiline_description_is_refused() -> None:
    with pytest.raises(InvalidMemoryError, match="one line"):
        check_description_policy("first line\nsecond line")


def _one_warning(warnings: list[str], word: str) -> str:
    hits = [w for w in warnings if word in w]
    assert len(hits) == 1, warnings
    return hits[0]


def _assert_one_sentence(warning: str) -> None:
    assert warning[0].isupper() and warning.endswith(".")
    assert ". " not in warning.replace("e.g. ", "").replace("...", ""), warning


def test_clean_memories_get_no_warnings() -> None:
    assert lint_write(type="preference", description="Prefers tabs", body="Uses tabs in Go and Python.") == []
    assert lint_write(type="decision", description="Use uv", body="Use uv because pip resolves slowly.") == []
    procedure = "1. Build:\n\n```\n$ make dist\n$ twine upload dist/*\n```\n\n2. Tag the release."
    assert lint_write(type="procedure", description="Release steps", body=procedure) == []


def test_transcript_warns() -> None:
    body = "User: can you fix the build?\nAssistant: Sure, the lockfile was stale.\nUser: thanks"
    w = _one_warning(lint_write(type="note", description="Build fix", body=body), "transcript")
    _assert_one_sentence(w)
    quoted = "\n".join(f"> line {i} of what was said" for i in range(6))
    assert any("transcript" in x for x in lint_write(type="note", description="Quote", body=quoted))


def test_single_user_line_is_not_a_transcript() -> None:
    assert lint_write(type="fact", description="Owner", body="User: alice (team lead)") == []


def test_stack_trace_warns() -> None:
    body = 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\nKeyError: \'x\''
    _assert_one_sentence(_one_warning(lint_write(type="note", description="Crash", body=body), "stack trace"))


def test_command_output_warns() -> None:
    body = "$ git status\nOn branch main\nYour branch is up to date.\nnothing to commit, working tree clean"
    w = _one_warning(lint_write(type="note", description="Status", body=body), "command output")
    _assert_one_sentence(w)


def test_log_lines_warn() -> None:
    body = "\n".join(f"2026-11-29 12:0{i}:00 INFO worker {i} started" for i in range(6))
    _assert_one_sentence(_one_warning(lint_write(type="note", description="Logs", body=body), "log lines"))


def test_session_narration_warns() -> None:
    for body in ("The user asked me to switch the linter to ruff.", "I just updated the config.",
                 "In this session we moved CI to GitHub Actions."):
        w = _one_warning(lint_write(type="fact", description="Linter", body=body), "narrates")
        _assert_one_sentence(w)


def test_decision_without_reason_warns() -> None:
    w = _one_warning(lint_write(type="decision", description="Use Postgres", body="Use Postgres 16."), "why")
    _assert_one_sentence(w)
    for body in ("Use Postgres 16 since we need JSONB.", "Use Postgres so that replicas are cheap.",
                 "Use Postgres to avoid running two databases.", "Reason: the team knows it."):
        assert lint_write(type="decision", description="Use Postgres", body=body) == []
    assert lint_write(type="fact", description="DB", body="Postgres 16.") == []
    # naming the alternative is not a reason
    assert lint_write(type="decision", description="Ruff", body="We use ruff instead of flake8.") != []
    reasoned = "Chose SQLite over Postgres: one file, no server, and WAL lets readers run during writes."
    assert lint_write(type="decision", description="SQLite", body=reasoned) == []


def test_a_reason_in_the_description_is_a_reason() -> None:
    """A decision whose reason is in its one-line description gets no "does not say why"
    warning (it once looked only at the body)."""
    for description in ("Use Postgres because we need row-level locks", "Use Postgres since replicas are cheap",
                        "Use Postgres so that replicas are cheap", "Use Postgres — the team knows it",
                        "Use Postgres -- one database to run", "Use Postgres to avoid running two databases"):
        assert lint_write(type="decision", description=description, body="") == [], description
        assert lint_write(type="decision", description=description, body="Use Postgres 16.") == [], description
    assert lint_write(type="decision", description="Use Postgres-16", body="") != []  # a hyphen is no dash
    assert lint_write(type="decision", description="Use Postgres", body="") != []
