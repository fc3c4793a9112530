"""A disk cache in front of an embedder, for benchmark runs only.

    from embed_cache import CachedEmbedder
    embedder = CachedEmbedder(get_embedder(cfg), Path("/tmp/me/embed-cache.sqlite"))

Every benchmark vault is built from scratch, so each run embeds the whole file again (minutes on
a shared machine). This wrapper keeps each (model, kind, text) vector in a SQLite file outside
the project (the vectors are derived from benchmark text: never store the cache in the repo) and
embeds only what it has not seen. Vectors come back byte-identical, so figures do not change.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vault_mem.embed.base import Embedder, Kind


class CachedEmbedder(Embedder):
    """``inner`` with a (model, kind, text) -> vector cache in the SQLite file ``path``.
    ``cache_id``: the model's name in the cache when its ``model_id`` names something that
    changes from run to run (a server on a free port: ``openai:MODEL@http://127.0.0.1:PORT``)."""

    def __init__(self, inner: Embedder, path: Path, cache_id: str | None = None) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.cache_id = cache_id or inner.model_id
        self.dimensions = inner.dimensions
        self.batch_size = inner.batch_size
        for name in ("min_similarity",):
            if hasattr(inner, name):
                setattr(self, name, getattr(inner, name))
        path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(str(path), check_same_thread=False)
        self.conn.execute("CREATE TABLE IF NOT EXISTS v (h TEXT PRIMARY KEY, vec BLOB)")

    def _hash(self, text: str, kind: str) -> str:
        return hashlib.sha256(f"{self.cache_id}\x00{kind}\x00{text}".encode()).hexdigest()

    def embed_batch(self, texts: Sequence[str], *, kind: Kind = "document") -> np.ndarray:
        hashes = [self._hash(t, kind) for t in texts]
        found: dict[str, bytes] = {}
        for i in range(0, len(hashes), 500):
            part = hashes[i:i + 500]
            found.update(self.conn.execute(f"SELECT h, vec FROM v WHERE h IN ({','.join('?' * len(part))})", part))
        todo = [i for i, h in enumerate(hashes) if h not in found]
        if todo:
            vecs = np.asarray(self.inner.embed_batch([texts[i] for i in todo], kind=kind), dtype=np.float32)
            rows = [(hashes[i], v.tobytes()) for i, v in zip(todo, vecs)]
            self.conn.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)", rows)
            self.conn.commit()
            found.update(rows)
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for i, h in enumerate(hashes):
            out[i] = np.frombuffer(found[h], dtype=np.float32)
        return out
