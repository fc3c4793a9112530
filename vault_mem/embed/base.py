"""The embedder interface: :class:`Embedder` (``embed_batch`` is the only required method),
the ``Kind`` of text, and :func:`normalise`.

Kept apart from local.py so that the local model (local.py) and the HTTP providers
(http.py) both build on it without importing each other; local.py's factory imports both.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Literal

from vault_mem.embed.numeric import np

Kind = Literal["query", "document"]


class Embedder(ABC):
    """Turns texts into L2-normalised float32 vectors.

    Subclasses set ``model_id`` (stored in the sidecar; a change re-embeds the vault) and
    ``dimensions``, and implement :meth:`embed_batch`.
    """

    model_id: str = ""
    dimensions: int = 0
    batch_size: int = 32

    @abstractmethod
    def embed_batch(self, texts: Sequence[str], *, kind: Kind = "document") -> np.ndarray:
        """Return an array of shape ``(len(texts), dimensions)``, float32, rows of unit length."""

    def embed(self, text: str, *, kind: Kind = "query") -> np.ndarray:
        """One text; a convenience over :meth:`embed_batch`."""
        return self.embed_batch([text], kind=kind)[0]


def normalise(matrix: np.ndarray) -> np.ndarray:
    """L2-normalise rows (zero rows stay zero)."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms
