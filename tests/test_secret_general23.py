"""A class atk28's fresh corpus (``bench/secrets_corpus_atk28.py``) found the gate missing: the
password macOS's keychain is given on the command line, ``security add-generic-password ... -w
X`` (and ``add-internet-password``), was refused only when X held a digit or a symbol; `-w` of
those two commands takes nothing but the password, so any literal there is one (a letters-only
random run was stored). Beside it what must pass: ``find-generic-password -w`` (a flag that
prints the password, no value), a variable, a placeholder."""

from __future__ import annotations

import pytest

from vault_mem.model.secrets import find_secrets

CASES = [
    ("add-generic-letters", "security add-generic-password -a ci -s deploy -w 'dFFdWjQYHNCxCO'", True),
    ("add-internet-letters", "security add-internet-password -s api.internal -a me -w QmvXkLpRzTwa", True),
    ("add-generic-path", "/usr/bin/security add-generic-password -U -a ci -s deploy -w \"kTrpWmZqLxVb\" login.keychain", True),
    ("find-prints", "security find-generic-password -a ci -s deploy -w", False),
    ("find-then-flag", "security find-generic-password -w -s deploy", False),
    ("variable", "security add-generic-password -a ci -s deploy -w \"$DEPLOY_PW\"", False),
    ("placeholder", "security add-generic-password -a ci -s deploy -w <password>", False),
    ("other-command-w", "curl -w '%{http_code}' https://api.internal/health", False),
]


@pytest.mark.parametrize("name,text,want", CASES, ids=[c[0] for c in CASES])
def test_the_keychains_password_flag(name, text, want):
    assert bool(find_secrets(text)) is want, find_secrets(text)
