"""The classes blind24's blind corpus (``bench/data/secrets_heldout24.py``) found the gate missing,
each beside what must pass in its place (issue 23 item 5). Values are drawn from one seeded
generator; none is the corpus's string.

- A random value holding ``(`` after a letter (Django's ``get_random_secret_key`` alphabet, a
  generated password with brackets) was taken for a call (``env("X")``) and passed. A call starts
  the value; ``config('API_KEY')``, ``os.environ.get("X")`` and ``get_random_secret_key()`` pass.
- A random token with three ``_`` or ``-`` in a row inside it (chance, in base64url) was taken for
  a mask (``sk_live_____``) and passed. A run of four or more, or one at an edge of the value or
  of one of its parts, is still a mask.
- A password named, then a clause, then given by a pronoun ("remember my github password in
  case I forget it, it's X", "save the wifi password - it's X"); a clause whose value is a state
  or a place ("it's in Bitwarden now", "it's on the fridge") passes.
- A secret printed in groups of capitals and digits (a licence server's shared secret read out,
  a recovery key "8O98N WNV9V ..."): groups of one length, letters and digits, after a word
  naming a secret or a key; a serial number's or a key id's groups, words in capitals and year
  lists pass.
- A key named by what it signs or decrypts ("webhooks are signed HMAC-SHA256 with X", "we sign
  the JWTs with X", "decrypt the backup with X"): random hex (not a fingerprint's 40) or a random
  token of both cases; a key id, a fingerprint, a public key and a tool's name pass.
- Plaid's access and processor tokens (``access-production-<uuid>``): one row of the provider table;
  a deployment named with a UUID passes.
- A base64 value decoded on a line that names what it is (``echo X | base64 -d  # the DB
  password``): the decoded value judged as that credential; a decoded word or settings pass.
- A publishable key named so by its prefix (Supabase's ``sb_publishable_``) passes as Stripe's
  ``pk_`` does; its ``sb_secret_`` stays refused.
"""

from __future__ import annotations

import base64

import pytest

from secret_probe import ALNUM, HEX, Draw, person, refused, uuid4
from vault_mem.model.secrets import find_secrets

_D = Draw(20261205)
_RNG = _D.rng
_B64URL = ALNUM + "-_"
_DJANGO = "abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*(-_=+)"


def _django_key() -> str:
    """A key as Django's ``get_random_secret_key`` draws it, with a ``(`` after a letter."""
    while True:
        key = "".join(_RNG.choice(_DJANGO) for _ in range(50))
        if any(a.isalpha() and b == "(" for a, b in zip(key, key[1:])):
            return key


def _bracket_password() -> str:
    """A generated password holding a letter then ``(`` (and a ``)`` later)."""
    head, tail = _D.r(7), _D.r(7)
    return f"{head}({_D.r(3)}){tail}!"


def _calls() -> list[tuple[str, str, bool]]:
    return [
        ("django-settings", f"SECRET_KEY = '{_django_key()}'", True),
        ("django-env", f'DJANGO_SECRET_KEY="{_django_key()}"', True),
        ("jwt-secret-yaml", f'jwt_secret: "{_django_key()}"', True),
        ("password-brackets", f"password = '{_bracket_password()}'", True),
        ("api-token-brackets", f'API_TOKEN="{_bracket_password()}{_D.r(8)}"', True),
        ("call-config", "api_key = config('API_KEY')", False),
        ("call-environ", 'password = os.environ.get("DB_PASSWORD")', False),
        ("call-django", "SECRET_KEY = get_random_secret_key()", False),
        ("call-env-bang", 'secret_key = System.fetch_env!("SECRET_KEY_BASE")', False),
        ("call-vault", "token: vault.read('secret/data/ci')", False),
    ]


def _with_run(run: str) -> str:
    """A base64url tail with ``run`` (three ``_`` or ``-``) inside it, letters on both sides."""
    while True:
        tail = _D.r(33, _B64URL)
        at = _RNG.randrange(6, 24)
        value = tail[:at] + run + tail[at + 3:]
        if value[at - 1].isalnum() and value[at + 3].isalnum() and value.count(run[0]) == 3:
            return value


def _masks() -> list[tuple[str, str, bool]]:
    bot = f"{_RNG.randrange(10**9, 10**10)}:AA"
    return [
        ("telegram-underscores", f"TELEGRAM_TOKEN={bot}{_with_run('___')}", True),
        ("telegram-url-underscores", f"https://api.telegram.org/bot{bot}{_with_run('___')}/getUpdates", True),
        ("telegram-dashes", f"bot token {bot}{_with_run('---')}", True),
        ("token-underscores", f"API_TOKEN={_with_run('___')}{_D.r(12)}", True),
        ("mask-tail", "STRIPE_SECRET_KEY=sk_live_________________________", False),
        ("mask-four", f"token: {_D.r(6)}____{_D.r(6)}", False),
        ("mask-edge", f"TELEGRAM_TOKEN={bot}___", False),
        ("mask-dashes-edge", "api_key: ---", False),
    ]


def _pronoun() -> list[tuple[str, str, bool]]:
    return [
        ("its-comma", f"remember my github password in case i forget it, it's {person(_RNG)}", True),
        ("it-is-comma", f"note the vpn password so we don't lose it, it is {_D.r(14, ALNUM + '#%&*!')}", True),
        ("its-dash", f"save my netflix password please - it's {person(_RNG)}", True),
        ("its-semicolon", f"the wifi password changed again; it's {person(_RNG).replace('.', '')}", True),
        ("its-bitwarden", "I reset the admin password yesterday, it's in Bitwarden now", False),
        ("its-fridge", "the wifi password changed again, it's on the fridge", False),
        ("its-long", "the password policy got stricter, it's 14 characters minimum", False),
        ("its-annoying", "my password expired this morning, it's annoying", False),
    ]


def _groups(n: int, size: int, alphabet: str) -> str:
    while True:
        groups = [_D.r(size, alphabet) for _ in range(n)]
        if sum(any(c.isdigit() for c in g) and any(c.isalpha() for c in g) for g in groups) >= n // 2:
            return " ".join(groups)


_UPPER_NUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def _grouped() -> list[tuple[str, str, bool]]:
    return [
        ("shared-secret-aside", f"license server shared secret (read out on the call): {_groups(8, 5, _UPPER_NUM)}", True),
        ("recovery-key", f"recovery key: {_groups(8, 4, _UPPER_NUM)}", True),
        ("secret-is", f"the secret is {_groups(6, 6, _UPPER_NUM)}", True),
        ("token-lower", f"api token: {_groups(8, 4, 'abcdefghijklmnopqrstuvwxyz0123456789')}", True),
        ("serial", f"serial number: {_groups(5, 5, _UPPER_NUM)}", False),
        ("key-id", f"key id {_groups(4, 5, _UPPER_NUM)}", False),
        ("key-capitals", "key points: MAKE SURE THEY TEST EACH BUILD FIRST", False),
        ("key-years", "key dates: 2026 2027 2028 2029 2030", False),
        ("no-word", f"parcel codes {_groups(6, 5, _UPPER_NUM)}", False),
    ]


def _signed() -> list[tuple[str, str, bool]]:
    return [
        ("hmac-with-hex", f"partner webhooks are signed HMAC-SHA256 with {_D.r(64, HEX)} (shared on the call)", True),
        ("sign-jwts-with", f"we sign the JWTs with {_D.r(40)}", True),
        ("signed-using", f"callbacks are signed using {_D.r(32, HEX)} as the key", True),
        ("decrypt-with", f"decrypt the backup with {_D.r(44, ALNUM + '+/')}", True),
        ("signed-fingerprint", f"release tags are signed with {_D.r(40, HEX).upper()} (the release key)", False),
        ("signed-key-id", f"commits are signed with key id {_D.r(16, HEX).upper()}", False),
        ("signed-tool", "images are signed with cosign keyless, verified in CI", False),
        ("signed-ssh-public", "commits signed with ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOv2yWq0 laptop", False),
        ("signed-fp-word", f"signed with the cert whose fingerprint is {_D.r(64, HEX)}", False),
        ("encrypted-age", "secrets are encrypted with age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p", False),
    ]


def _plaid() -> list[tuple[str, str, bool]]:
    return [
        ("plaid-access-prose", f"the budget script stores the link as access-production-{uuid4(_RNG)}", True),
        ("plaid-access-dev", f'"access_token": "access-development-{uuid4(_RNG)}"', True),
        ("plaid-processor", f"processor token processor-production-{uuid4(_RNG)} for Dwolla", True),
        ("deployment-name", f"rolled back deploy-production-{uuid4(_RNG)} at 14:02", False),
    ]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _decoded() -> list[tuple[str, str, bool]]:
    return [
        ("echo-decode-password", f"echo '{_b64(person(_RNG))}' | base64 -d  # the orders DB password", True),
        ("atob-token", f'const t = atob("{_b64(_D.r(32))}"); // api token for the widget', True),
        ("b64decode-secret", f'SECRET = base64.b64decode("{_b64(_D.r(20, ALNUM + "#%&!"))}")  # signing secret', True),
        ("decode-word", f"echo '{_b64('password')}' | base64 -d  # prints the word password", False),
        ("decode-settings", f"echo '{_b64('theme=dark')}' | base64 -d  # the prefs cookie, no token", False),
        ("decode-sentence", f"echo '{_b64('reset your password here')}' | base64 -d  # password mail subject", False),
    ]


def _publishable() -> list[tuple[str, str, bool]]:
    pub = f"sb_publishable_{_D.r(22, _B64URL)}_{_D.r(8)}"
    return [
        ("supabase-publishable-env", f"NEXT_PUBLIC_SUPABASE_PUBLISHABLE_KEY={pub}", False),
        ("supabase-publishable-prose", f"the client uses {pub}", False),
        ("supabase-secret", f"SUPABASE_SECRET_KEY=sb_secret_{_D.r(22, _B64URL)}_{_D.r(8)}", True),
    ]


CASES = _calls() + _masks() + _pronoun() + _grouped() + _signed() + _plaid() + _decoded() + _publishable()


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_blind24_classes(body: str, expected: bool) -> None:
    assert refused(body, description="notes") == expected, body


# --- hostile input completes ---------------------------------------------------------------------

_SIZE = 200 * 1024


@pytest.mark.parametrize("text", [
    "shared secret: " + "AB12 " * (_SIZE // 5),  # groups of capitals and digits on one line
    "signed with using with " * (_SIZE // 23),  # a signing verb's words with no value
    "password, it's " * (_SIZE // 15),  # a label and a pronoun's sign, again and again
    "SECRET_KEY = '" + "a(" * (_SIZE // 2) + "'",  # a value of calls
    "token=" + "ab___" * (_SIZE // 5),  # mask runs inside a token
    "echo 'cGFzc3dvcmQ=' | base64 -d # password\n" * (_SIZE // 44),  # decoded runs under a label
])
def test_a_text_made_of_blind24s_markers_completes(text: str) -> None:
    find_secrets(text[:_SIZE])  # completing is the point (each read stays within a reach)
