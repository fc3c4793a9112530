"""What a warm process pays when another process commits a change to the sidecar that no row the
peers' judgement reads is part of: ``PRAGMA data_version`` moves, so the next read judges again,
brought along (0 paths), where it would have kept its answer.

    python bench/bench_spurious_judgement.py VAULT [--rounds 8]

VAULT: a vault of peers' memories (``bench/corpus.py``'s ``packed_vault``; keyword-only, no
daemon). One warm ``Vault``; per round, the session context (``render_trusted_index``) with
nothing moved ("kept"), then a row of ``meta`` written by the ``sqlite3`` program in a process
of its own (another library in this process would share its locks), then the session context
again ("changed", 0 paths). Prints the CPU ms p50 of each and the load. Needs ``sqlite3``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import load_line  # bench/ is on sys.path when run as a script


def cpu_ms() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("vault")
    ap.add_argument("--rounds", type=int, default=8)
    args = ap.parse_args()
    os.environ["VAULT_MEM_EMBEDDER"] = "none"
    from vault_mem import Vault

    print(load_line(), flush=True)
    vault = Vault(args.vault)
    vault.render_trusted_index()
    kept, moved = [], []
    for _ in range(args.rounds):
        t = cpu_ms()
        vault.render_trusted_index()
        kept.append(cpu_ms() - t)
        assert vault._kept_peers.last.how == "kept", vault._kept_peers.last
        subprocess.run(["sqlite3", os.path.join(args.vault, ".vault-mem", "index.db"),
                        f"INSERT OR REPLACE INTO meta(name, value) VALUES ('bench-spurious', '{time.time()}')"],
                       check=True)
        t = cpu_ms()
        vault.render_trusted_index()
        moved.append(cpu_ms() - t)
        assert vault._kept_peers.last.how == "changed", vault._kept_peers.last
    with vault.sidecar.db.write():
        vault.sidecar.db.set_meta("bench-spurious", None)
    vault.close()
    print(f"session context, CPU ms p50 over {args.rounds}: kept {statistics.median(kept):.1f}, "
          f"after another process's commit of a row no judgement reads {statistics.median(moved):.1f}")
    print(load_line())


if __name__ == "__main__":
    main()
