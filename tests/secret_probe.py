"""What the secret gate's class tests share (``tests/test_secret_general*.py``): a seeded maker of
random values, and the gate asked two ways, by its finder and through the write policy."""

from __future__ import annotations

import random
import string

from vault_mem.errors import SecretError
from vault_mem.model.policy import check_write
from vault_mem.model.secrets import find_secrets

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
