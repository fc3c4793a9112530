"""The classes blind28's blind corpus (``bench/data/secrets_heldout28.py``) found the gate missing,
and the look-alikes it refused, each beside what must pass in its place (issue 23 item 5). Values
are drawn from one seeded generator; none is the corpus's string. One table: (id, body, refused?).

- Prose: "is" written against the label ("Password's X"); a pronoun taking the label up after a
  comma with an adverb ("the vpn password, it's now X", "..., which is still X"); a question naming
  a credential and its answer on the next line ("Q: ... password?" / "A: X"); "session id ... is X"
  (a session's id is the session).
- Code: a camelCase name ending in ``Pass`` (``smtpPass``), Visual Basic's ``Dim x As String = "X"``.
- URLs: a password ending in an unescaped ``@`` (``user:X@@host``, Oracle's ``user/X@@//host``).
- Commands: ``-P`` after ``-u`` (mosquitto_pub, ipmitool), a quoted password after ``add_user``
  (``rabbitmqctl``) with a person's word and number; the user-and-password flags in their one home
  (``--user=u%X``, ``lftp -u u,'X'``, ``curl -u :X``, the flag alone on its line).
- Tokens: PASETO (``v4.local.``, ``v2.public.``); a cookie named ``SESS``.
- Passphrases written as sentences, quoted after a passphrase's own label (prose words allowed;
  pointers, policies and "not set" pass).
- Look-alikes that were refused: a PGP fingerprint in capital hex groups, a PKCE ``code_challenge``,
  a fixture's ``test-password``.
"""

from __future__ import annotations

import pytest

from secret_probe import Draw, person, refused
from vault_mem.model.secrets import find_secrets

_D = Draw(20261205_28)
_RNG = _D.rng
_TITLES = ["Lantern", "Heron", "Quince", "Marmot", "Saffron", "Basalt", "Osprey", "Fennel", "Tamarind", "Kestrel"]


def _made() -> str:
    """A person's password: a capitalised word, a joint, a word, digits and a symbol (``Heron_quince44!``)."""
    a, b = _RNG.sample(_TITLES, 2)
    return f"{a}{_RNG.choice('_-.')}{b.lower()}{_RNG.randrange(10, 999)}{_RNG.choice('!#%&*')}"


def _prose() -> list[tuple[str, str, bool]]:
    return [
        ("possessive-is", f"Kibana password's {_made()} — the user is elastic", True),
        ("resumed-now", f"I rotated the vpn password, it's now {_made()}", True),
        ("which-is-still", f"the nas password, which is still {_made()}, should change", True),
        ("question-answer", f"Q: what is the grafana admin password?\nA: {_made()}", True),
        ("question-answer-token", f"Question: which API token does the exporter use?\nAnswer: {_D.r(32)}", True),
        ("session-id-prose", f"the session id for the support console is {_D.r(40)}, replay with care", True),
        # what must pass in their place
        ("possessive-noun", "the password's length must be 14 or more", False),
        ("resumed-state", "I reset the vpn password, it's now required at every login", False),
        ("question-policy", "Q: how long must a password be?\nA: 14 characters", False),
        ("question-where", "Q: where is the api token kept?\nA: 1Password", False),
        ("session-id-uuid", f"session id {'-'.join(_D.r(n, '0123456789abcdef') for n in (8, 4, 4, 4, 12))} timed out", False),
    ]


def _code() -> list[tuple[str, str, bool]]:
    return [
        ("camel-pass", f"def smtpPass = '{_made()}'", True),
        ("camel-pass-kotlin", f'val registryPass = "{_made()}"', True),
        ("vb-as-string", f'Dim adminPwd As String = "{_made()}"', True),
        ("vb-const", f'Private Const ApiToken As String = "{_D.r(36)}"', True),
        # what must pass in their place
        ("camel-bypass", "val byPass = true", False),
        ("camel-pass-reference", "def smtpPass = System.getenv('SMTP_PASS')", False),
        ("vb-reference", 'Dim adminPwd As String = ConfigurationManager.AppSettings("pwd")', False),
    ]


def _urls() -> list[tuple[str, str, bool]]:
    word = _RNG.choice(_TITLES)
    return [
        ("url-at-end", f"amqp://worker:{word}{_RNG.randrange(100, 999)}@@rabbit.internal:5672/", True),
        ("schemeless-at-end", f"admin:{word}_{_RNG.randrange(100, 999)}@@10.1.2.3", True),
        ("oracle-at-end", f"sqlplus hr/{word}.{_RNG.randrange(100, 999)}@@//db01:1521/HRPDB", True),
        # what must pass in their place
        ("mail-double-at", "write to ops@@corp.example (typo in the wiki)", False),
        ("decorator-url", "git@@github.com:org/repo.git", False),
    ]


def _commands() -> list[tuple[str, str, bool]]:
    return [
        ("capital-p-after-user", f"ipmitool -I lanplus -H 10.0.0.9 -U admin -P '{_made()}' power status", True),
        ("mosquitto-sub", f"mosquitto_sub -h mqtt.home -u thermostat -P {_made()} -t 'home/#'", True),
        ("add-user-quoted", f"rabbitmqctl add_user exporter '{person(_RNG)}!'", True),
        ("samba-attached-user", f"smbclient //files/team --user=CORP\\\\scanner%{_made()} -c ls", True),
        ("lftp-quoted-password", f"lftp -u mirror,'{_made()}' ftp://mirror.corp", True),
        ("curl-empty-user", f"curl -u :{_D.r(24)} https://api.corp/v1/ping", True),
        ("pair-flag-alone", f"-u deploy:{_made()}", True),
        # what must pass in their place
        ("capital-p-port", "mysql -u root -P 3307 -h 127.0.0.1", False),
        ("capital-p-parallel", "xargs -P 4 -n 1 sort -u", False),
        ("add-user-plain-word", "rabbitmqctl add_user exporter 'monitoring'", False),
        ("curl-variables", 'curl -u "$API_USER:$API_PASS" https://api.corp', False),
        ("samba-guest", "smbclient -U guest% //nas/public", False),
    ]


def _tokens() -> list[tuple[str, str, bool]]:
    return [
        ("paseto-local", f"the identity service handed back v4.local.{_D.r(120, _D_URL)}", True),
        ("paseto-public", f"X-Session: v2.public.{_D.r(96, _D_URL)}", True),
        ("sess-cookie-call", f"jar.set('SESS', '{_D.r(40)}', domain='intranet.corp')", True),
        # what must pass in their place
        ("paseto-prose", "PASETO v4.public tokens are signed, v4.local ones encrypted", False),
        ("sess-short", "jar.set('SESS', 'guest')", False),
    ]


_D_URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


def _look_alikes() -> list[tuple[str, str, bool]]:
    fingerprint = " ".join(_D.r(4, "0123456789ABCDEF") for _ in range(10))
    challenge = _D.r(5, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") + "_" + _D.r(37, _D_URL)
    return [
        ("gpg-fingerprint-capitals", f"verified the tarball, signed by key {fingerprint}", False),
        ("pkce-challenge", f"/authorize?response_type=code&code_challenge={challenge}&code_challenge_method=S256", False),
        ("oauth-nonce", f"nonce={_D.r(5, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}_{_D.r(36, _D_URL)}", False),
        ("fixture-test-password", 'client.login(username="qa", password="test-password")', False),
        ("fixture-test-secret", 'settings = {"secret_key": "test_secret"}', False),
        # what is refused in their place: a key in capital groups that is no fingerprint's length,
        # a token under a name that says nothing public, a word password with no "test"
        ("key-groups-capitals", "license key: " + " ".join(_D.r(5, "ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(5)), True),
        ("token-underscore", f"token={_D.r(5, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}_{_D.r(36)}", True),
        ("fixture-real-shape", f'client.login(username="qa", password="{_made()}")', True),
    ]


def _passphrases() -> list[tuple[str, str, bool]]:
    w = _RNG.sample(["lantern", "copper", "meadow", "falcon", "orchid", "granite", "harbor", "willow"], 4)
    return [
        ("env-sentence", f"RESTIC_PASSPHRASE='{w[0]} {w[1]} by the {w[2]} gate'", True),
        ("prose-arrow-sentence", f'age passphrase -> "{w[3]} owls sing over {w[0]} hill {_RNG.randrange(1900, 2030)}"', True),
        ("yaml-sentence", f"backup:\n  passphrase: \"{w[1]} tides meet the {w[2]} at noon\"", True),
        # what must pass in their place
        ("pointer-sentence", "BORG_PASSPHRASE='see the team vault for it'", False),
        ("policy-sentence", 'passphrase: "should be six words or more"', False),
        ("unset-sentence", 'KEY_PASSPHRASE="not set yet on this box"', False),
        ("password-label-sentence", "password: 'the one on the sticky note'", False),
    ]


CASES = _prose() + _code() + _urls() + _commands() + _tokens() + _passphrases() + _look_alikes()


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_blind28_classes(body: str, expected: bool) -> None:
    assert refused(body, description="notes") == expected, body


# --- hostile input completes ---------------------------------------------------------------------

_SIZE = 200 * 1024


@pytest.mark.parametrize("text", [
    "a?\nA: " * (_SIZE // 6),  # questions and answers with no credential
    "password?\n" * (_SIZE // 10),  # questions with no answer
    "x:" + "@" * (_SIZE // 2),  # a userinfo of at signs
    "--user=" * (_SIZE // 7),  # attached flags with no pair
    "-u a:" * (_SIZE // 5),  # pair flags with no password
    "password's " * (_SIZE // 11),  # the contraction and no value
    "v4.local." * (_SIZE // 9),  # PASETO prefixes and no payload
])
def test_a_text_made_of_blind28s_markers_completes(text: str) -> None:
    find_secrets(text[:_SIZE])  # completing is the point (each read stays within a reach)
