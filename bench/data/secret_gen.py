"""The random-value generator the secret corpora share (``secrets_fresh.py``,
``secrets_heldout.py`` ... ``secrets_heldout6.py``): each corpus makes one :class:`Generator` with its
own seed and key prefix, so its values are the same on every run and no two corpora share them.
Vendor prefixes are split in the corpora themselves, so no scanner flags these files."""

from __future__ import annotations

import base64
import itertools
import json
import random
import runpy
import string
from pathlib import Path

ALNUM = string.ascii_letters + string.digits
LOWER = string.ascii_lowercase + string.digits
UP = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
URL = ALNUM + "-_"
BECH32 = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
D5 = "-" * 5
PK = "PRIV" + "ATE KEY"
B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
PWCHARS = ALNUM + "!#%&*+-=?@^_"
# this tree's copy of the list, read by path: the corpus must not change with the code under test
WORDS = runpy.run_path(str(Path(__file__).resolve().parents[2] / "vault_mem" / "model" / "seed_words.py"))["BIP39_ENGLISH"]


class Generator:
    """Seeded random values and corpus items (``{"name", "class", "key", "description", "body",
    "meta"}``) whose keys are ``PREFIX-NNN``: neutral, since a key made from the item's name
    would put words like "key" or "pw" in the label the gate reads."""

    def __init__(self, seed: int, key_prefix: str, description: str):
        self.rng = random.Random(seed)
        self.serial = itertools.count(1)
        self.key_prefix = key_prefix
        self.description = description

    def r(self, n: int, alphabet: str = ALNUM) -> str:
        """``n`` random characters; mixed alphabets get a digit and a letter, like real keys."""
        mixed = any(c.isdigit() for c in alphabet) and any(c.isalpha() for c in alphabet)
        while True:
            s = "".join(self.rng.choice(alphabet) for _ in range(n))
            if not mixed or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s)):
                return s

    def words(self, n: int) -> list[str]:
        return [self.rng.choice(WORDS) for _ in range(n)]

    def rand_bytes(self, n: int) -> bytes:
        return bytes(self.rng.randrange(256) for _ in range(n))

    def uuid(self) -> str:
        """A random version-4 UUID."""
        h = self.r(32, HEX)
        return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{self.rng.choice('89ab')}{h[17:20]}-{h[20:]}"

    def jwt(self, claims: dict, alg: str = "HS256", sig_bytes: int = 32) -> str:
        """A JWT of ``claims`` with a random signature of ``sig_bytes``."""
        head = b64url(json.dumps({"alg": alg, "typ": "JWT"}).encode())
        return f"{head}.{b64url(json.dumps(claims).encode())}.{b64url(self.rand_bytes(sig_bytes))}"

    def pw(self, n: int = 14) -> str:
        """A person's password: mixed case, digits and a symbol or two."""
        return self.r(n, PWCHARS)

    def item(self, name: str, cls: str, body: str, description: str | None = None, key: str = "",
             meta: dict | None = None) -> dict:
        key = key or f"{self.key_prefix}-{next(self.serial):03d}"
        return {"name": name, "class": cls, "key": key,
                "description": self.description if description is None else description,
                "body": body, "meta": meta or {}}


def b64(data: str | bytes) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def wrap(s: str, width: int = 64) -> str:
    return "\n".join(s[i:i + width] for i in range(0, len(s), width))


def b64url(data: bytes) -> str:
    return b64(data).rstrip("=").replace("+", "-").replace("/", "_")


def block(label: str, body: str) -> str:
    """An armored block: ``-----BEGIN LABEL-----``, ``body``, ``-----END LABEL-----``."""
    return f"{D5}BEGIN {label}{D5}\n{body}\n{D5}END {label}{D5}"
