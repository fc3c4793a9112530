"""Store every memory's vector of a bench vault under the bundled model's id, made by the hashing
embedder (``corpus.HashEmbedder``): a cold ``--model`` read then loads the real model, embeds its
query with it and searches vectors of the real count and dimension, with none owed (embedding
100k texts with the real model takes ~20 minutes; what a read costs depends on the vectors'
count and dimension, not their meaning).

    python bench/local_stamp.py V [V ...]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import HashEmbedder  # bench/ is on sys.path when run as a script

from vault_mem.embed.local import LOCAL_DIMENSIONS, LOCAL_MODEL_ID


class StampedHash(HashEmbedder):
    """The hashing embedder under the bundled model's id."""

    model_id = LOCAL_MODEL_ID
    dimensions = LOCAL_DIMENSIONS


def stamp(root: Path) -> int:
    from vault_mem.vault.core import Vault

    with Vault(root, embedder=StampedHash()) as vault:
        vault.reconcile(force=True)
        return vault.sidecar.vectors.embed_pending()


def main() -> None:
    os.environ.setdefault("VAULT_MEM_DAEMON", "off")
    for arg in sys.argv[1:]:
        t = time.perf_counter()
        made = stamp(Path(arg))
        print(f"{arg}: {made} vectors stored under {LOCAL_MODEL_ID} in {time.perf_counter() - t:.1f} s")


if __name__ == "__main__":
    main()
