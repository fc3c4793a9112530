"""The secret gate's classes from the seventeenth blind corpus (tuned on heldout17, whose strings none
of these are): a list of everyday words under a list's label, one per bullet, is a list and no seed
phrase; a password after its word with no sign in other languages and in prose; one ``.pgpass`` line
in a sentence; base64 of ``user:password`` decoded in a command; a Go DSN; ``net use`` with its
password. Beside each, the look-alikes that share its place and must pass.

Each test draws its values afresh from generators seeded three ways (none is an item of a bench
corpus).
"""

from __future__ import annotations

import random

import pytest

from secret_probe import refused
from vault_mem.model.seed_words import BIP39_ENGLISH
from vault_mem.model.secret_shapes import valid_mnemonic

SEEDS = (20261204, 17, 4646)


# --- a bulleted list of list words under a list's label --------------------------------------

def _words(rng: random.Random, n: int, *, valid: bool) -> list[str]:
    """``n`` distinct BIP-39 words whose checksum is (or is not) a wallet's."""
    while True:
        words = rng.sample(BIP39_ENGLISH, n)
        if valid_mnemonic(words) == valid:
            return words


@pytest.mark.parametrize("seed", SEEDS)
def test_a_bulleted_list_under_a_list_label_is_no_seed_phrase(seed: int) -> None:
    rng = random.Random(seed)
    for label in ("Shopping for the offsite:", "Groceries", "Packing list for the trip:", "Inventory of the shed:"):
        bullet = rng.choice(["- ", "* ", "+ ", "\u2022 "])
        body = label + "\n" + "\n".join(bullet + w for w in _words(rng, rng.choice([12, 14, 16]), valid=False))
        assert not refused(body, description="list"), body


@pytest.mark.parametrize("seed", SEEDS)
def test_a_bulleted_seed_phrase_is_still_refused(seed: int) -> None:
    rng = random.Random(seed)
    for label in ("Recovery phrase:", "Ledger seed", "", "Shopping list:"):
        # (under a list's label only a valid checksum makes the words a phrase)
        words = _words(rng, 12, valid="list" in label)
        body = (label + "\n" if label else "") + "\n".join("- " + w for w in words)
        assert refused(body, description="note"), body
