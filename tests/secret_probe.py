"""What the secret gate's class tests share (``tests/test_secret_general*.py``): a seeded maker of
random values, and the gate asked two ways, by its finder and through the write policy."""

from __future__ import annotations

import random
import string
import uuid
from collections.abc import Iterable

from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write
from vault_mem.model.secrets import find_secrets
from vault_mem.model.secret_phrases import valid_mnemonic
from vault_mem.model.seed_words import BIP39_ENGLISH

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


class Draw:
    """Random values from one seeded generator (``rng``: each file its own seed and sequence)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def r(self, n: int, alphabet: str = ALNUM) -> str:
        """``n`` random characters, with upper and lower case and a digit when the alphabet has them."""
        while True:
            s = "".join(self.rng.choice(alphabet) for _ in range(n))
            if alphabet != ALNUM or (any(c.isupper() for c in s) and any(c.islower() for c in s)
                                     and any(c.isdigit() for c in s)):
                return s


# (words a generator draws from, none a state word or a word a program names its parts with)
WORDS = [w for w in BIP39_ENGLISH if 4 <= len(w) <= 7 and w not in (
    "expire", "wrong", "empty", "correct", "unknown", "reset", "same", "secure", "long", "short", "simple",
    "random", "hidden", "shared", "saved", "locked", "unique", "known", "stored", "config", "token", "secret",
    "vault", "value", "prod", "local", "example", "this", "self")]


def phrase(rng: random.Random, n: int = 4, sep: str = "-") -> str:
    """``n`` common words joined by ``sep``, as a generator makes a passphrase."""
    return sep.join(rng.sample(WORDS, n))


def person(rng: random.Random) -> str:
    """Two words and a number, as a person makes a password (``quartz.walnut29``)."""
    a, b = rng.sample([w for w in WORDS if len(w) >= 4], 2)
    return f"{a}{rng.choice('.-_')}{b}{rng.randrange(10, 99)}"


def bip39_words(rng: random.Random, n: int = 12, *, valid: bool = True) -> list[str]:
    """``n`` distinct BIP-39 words whose checksum is (or, ``valid`` False, is not) a wallet's."""
    while True:
        words = rng.sample(BIP39_ENGLISH, n)
        if valid_mnemonic(words) == valid:
            return words


def uuid4(rng: random.Random) -> str:
    """A random version-4 UUID."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def found(text: str) -> bool:
    """The finder sees a credential in ``text``."""
    return bool(find_secrets(text))


def refused(body: str, description: str = "notes", key: str = "probe") -> bool:
    """The write policy refuses a memory holding ``body``."""
    try:
        check_write(key=key, description=description, body=body, meta={})
    except SecretError:
        return True
    return False


def all_refused(bodies: Iterable[str], description: str = "notes") -> None:
    """Each of ``bodies`` is refused by the write policy (the failure names the first that is not)."""
    for body in bodies:
        if not refused(body, description=description):
            raise AssertionError(f"not refused: {body!r}")


def all_pass(bodies: Iterable[str], description: str = "notes") -> None:
    """Each of ``bodies`` passes the write policy (the failure names the first that is refused)."""
    for body in bodies:
        if refused(body, description=description):
            raise AssertionError(f"refused: {body!r}")
