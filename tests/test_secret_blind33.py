"""Classes blind33's corpus (``bench/secrets_corpus_blind33.py``, memories as agents write them
after a session) found the gate missing or wrongly refusing, with examples of their own (not the
corpus's), beside look-alikes of each that must still be stored. One table: (id, body, refused?).

- A password of three or four capitalised words run together after its label ("the password is
  CopperLanternWillow"): no type's or field's words in it (``UsernamePasswordCredentials``,
  ``PlainTextSecretStr`` stay names), nor a note's words or a participle (``AskTheAdmin``,
  ``LoadedFromEnvironment``), and two words (``SecretStr``) stay a type hint.
- Redis's ``AUTH [user] X`` at redis-cli's prompt or in capitals; SMTP's ``AUTH LOGIN`` names a
  mechanism.
- Recovery codes after an aside in parentheses ("backup codes (ops account): ...").
- A value spelled out character by character with commas ("W, h, c, t, ..."), and one read out in
  the phonetic alphabet with its case said word by word; an alphabet recited or call signs are none.
- A password cut into labelled parts ("first half: X" / "second half: Y") under a line naming it.
- A capitalised word and a ``!`` after a password's sign ("password: Quicksilver!"), as the
  same word in lower case counts; a state ("Expired!") is none, and after "is" the ``!`` is prose's.
- A credential word ending its sentence is a label ("... a stale api secret. Replaced it with X"),
  as before a comma.
- Look-alikes: PowerShell's ``$env:NAME`` read (``ConvertTo-SecureString $env:PW -AsPlainText``),
  psql's ``\\set pw `echo $VAR``` and a mask of x's under a password's label. PowerShell's
  ``$env:NAME = 'X'`` still assigns a literal.
"""

from __future__ import annotations

import pytest

from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write


def refused(body: str) -> bool:
    try:
        check_write(key="probe", description="notes", body=body, meta={})
    except SecretError:
        return True
    return False


CASES = [
    # passwords of capitalised words run together
    ("camel-words-is", "The printer's admin password is CopperLanternWillow, per Dario.", True),
    ("camel-words-colon", "pw for the staging grafana: MeadowFalconHarbour", True),
    ("camel-words-yaml", "router:\n  user: admin\n  password: SaffronCanyonPebble\n", True),
    ("camel-words-four", "the kiosk password is now RiverOrchidTimberStone.", True),
    ("camel-type-three", "def login(password: UsernamePasswordCredentials) -> None: ...", False),
    ("camel-type-field", "password: PlainTextSecretStr", False),
    ("camel-type-two", "password: SecretStr", False),
    (
        "camel-words-no-label",
        "Release train codename: CopperLanternWillow; branch MeadowFalconHarbour.",
        False,
    ),
    ("camel-form-class", "the password is PasswordResetForm in forms.py", False),
    ("camel-note-ask", "password: AskTheAdmin", False),
    ("camel-note-not-set", "password: NotSetYet", False),
    ("camel-note-participle", "password: LoadedFromEnvironment", False),
    ("camel-note-whatever", "password: WhateverYouWant", False),
    # Redis AUTH
    ("redis-auth-prompt", "127.0.0.1:6379> auth Tq7vN2pLx9\nOK", True),
    ("redis-auth-user", "> AUTH worker g8Hf3kPz21Lm\nOK", True),
    ("smtp-auth-mechanism", "C: EHLO client\nC: AUTH LOGIN\nS: 334 VXNlcm5hbWU6", False),
    ("redis-auth-placeholder", "> AUTH <password>", False),
    ("redis-auth-log-words", "AUTH token expired\nAUTH failed", False),
    # codes after an aside
    (
        "codes-aside-digits",
        "Backup codes (ops account): 48213907, 55120384, 90317752, 11846620, 73059184",
        True,
    ),
    ("codes-aside-talk", "Backup codes (printed): kept in the office safe, not here.", False),
    # spelled out with commas, read out in the phonetic alphabet
    ("spelled-commas", "Vault password letter by letter: q, 8, R, m, !, T, z, 2, w, K", True),
    ("spelled-commas-list", "Grades: A, B, C, D, E, F, G, H", False),
    ("phonetic-mixed-case", "For the phone call: Tango four whiskey Echo seven Yankee lima Oscar", True),
    (
        "phonetic-recital",
        "Alpha Bravo Charlie Delta Echo Foxtrot Golf Hotel India: the radio alphabet drill",
        False,
    ),
    ("phonetic-call-signs", "Teams: alpha one, bravo two, charlie three, delta four.", False),
    # a password cut into labelled halves
    (
        "split-halves-password",
        "The backup admin password is split.\nFirst half: Lm4@vq\nSecond half: Rk9zTe\n",
        True,
    ),
    ("split-halves-words", "The report has two parts.\nFirst part: summary\nSecond part: appendix\n", False),
    # a label ending its sentence
    (
        "label-sentence-end",
        "Deploys failed on a stale api secret. Replaced it with `u8jzPde0IgxLd6GncfBAepfJBd0Kh8oO` in the env file.",
        True,
    ),
    (
        "label-sentence-end-prose",
        "We rotated the api secret. Deploys resumed at 14:05 after build 8812.",
        False,
    ),
    # a capitalised word whose one symbol is a trailing `!`
    ("bang-word-colon", "wifi:\n  password: Quicksilver!\n", True),
    ("bang-word-prose-colon", "Guest wifi password: Marigolden! Ask at the desk for the SSID.", True),
    ("bang-word-is-exclaimed", "The password is Fantastic!", False),
    ("bang-state", "Your password is Expired! Reset it from the portal.", False),
    ("bang-state-colon", "Password: Required!", False),
    # look-alikes: references and masks
    ("ps-env-read", "$pw = ConvertTo-SecureString $env:SVC_PASSWORD -AsPlainText -Force", False),
    ("ps-env-assign", "$env:SVC_PASSWORD = 'Hq8#vLm2Pz7x'", True),
    ("psql-echo-var", "\\set dbpw `echo $REPORTING_PW`\nALTER USER reporting PASSWORD :'dbpw';", False),
    ("x-mask", "db:\n  password: xxxxxxxxxxxxxxxx  # set locally", False),
]


@pytest.mark.parametrize(("body", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_blind33_classes(body: str, expected: bool) -> None:
    assert refused(body) is expected
