"""Test doubles that are real implementations: a deterministic embedder, a switchable one."""

from __future__ import annotations

import hashlib
import random
import re
import string
from collections.abc import Sequence

import numpy as np

from vault_mem.embed.base import Embedder
from vault_mem.errors import EmbedderError


class FakeEmbedder(Embedder):
    """Bag of word stems (first 5 letters) hashed into ``dimensions`` signed buckets, normalised.

    Deterministic and fast; texts sharing words are close, texts sharing none are near 0. Counts
    every text it embeds in ``calls`` so tests can see what was (re-)embedded.
    """

    def __init__(self, model_id: str = "fake:v1", dimensions: int = 256) -> None:
        self.model_id = model_id
        self.dimensions = dimensions
        self.batch_size = 16
        # Calibration the sidecar reads for its relevance floor: one shared word in a short
        # text gives ~0.3 here, so demand more than a stray hash collision.
        self.min_similarity = 0.5
        self.calls: list[str] = []
        self.fail = False

    def embed_batch(self, texts: Sequence[str], *, kind: str = "document") -> np.ndarray:
        if self.fail:
            raise EmbedderError("fake embedder is down (connection refused)")
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            self.calls.append(text)
            for word in re.findall(r"\w+", text.lower()):
                h = hashlib.sha1(word[:5].encode()).digest()
                out[row, h[0] % self.dimensions] += 1.0 if h[1] & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


def write_memory(root, key: str, description: str, body: str = "", *, type_: str = "fact",
                 **meta) -> str:
    """Write a memory file the way the tool does and return its vault-relative path."""
    import datetime as dt

    from vault_mem.model.memory import Memory, rel_path_for, render_memory

    fields = {"description": description, "created": meta.pop("created", dt.date(2026, 1, 5)),
              "updated": meta.pop("updated", dt.date(2026, 1, 5)), **meta}
    rel = rel_path_for(key, type_)
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_memory(Memory(key=key, type=type_, meta=fields, body=body)), encoding="utf-8")
    return rel


def vm_steps(sc, fn) -> int:
    """SQLite virtual-machine steps that ``fn()`` runs on the sidecar ``sc``'s connection: a
    measure of work that does not depend on the machine's speed or load (not a timing)."""
    steps = 0

    def tick() -> int:
        nonlocal steps
        steps += 1
        return 0

    sc.db.conn.set_progress_handler(tick, 1)
    try:
        fn()
    finally:
        sc.db.conn.set_progress_handler(None, 1)
    return steps



#: the statement a sidecar's read runs to compare every row's stat data (what the scan sum and
#: the kept listing spare a read that finds nothing changed)
EVERY_ROW = "SELECT path, mtime_ns, size FROM files"


def every_row_read(sc, fn):
    """``fn()``'s result, and whether it asked the sidecar ``sc``'s SQLite for every row's stat
    data (:data:`EVERY_ROW` with no ``WHERE``: a read of named rows, ``WHERE path IN``, is not)."""
    seen: list[str] = []
    sc.db.conn.set_trace_callback(seen.append)
    try:
        got = fn()
    finally:
        sc.db.conn.set_trace_callback(None)
    return got, any(EVERY_ROW in s and "WHERE" not in s.split(EVERY_ROW, 1)[1] for s in seen)

# -- credentials of the right shape, made at run time (no literal credential in the source) ----
_RNG = random.Random(88)


def random_token(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """``n`` random characters holding a digit and a letter."""
    while True:
        s = "".join(_RNG.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isalpha() for c in s):
            return s


def aws_key() -> str:
    return "AK" + "IA" + random_token(16, string.ascii_uppercase + string.digits)


def github_token() -> str:
    return "gh" + "p_" + random_token(36)
