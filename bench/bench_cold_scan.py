"""The no-change check of a read without a daemon, in parts: the stat of every memory file by 1
to 4 threads per folder, and the local model's load alone, after the reconcile, or meanwhile.

    python bench/bench_cold_scan.py --vault /tmp/growth/vm-growth-100000 --rounds 8
    python bench/bench_cold_scan.py --vault V --overlap 5     # the model's load and the reconcile

``--vault``: a vault built by ``corpus.packed_vault`` (or ``bench_growth.py --keep``). Scan part
(in this process, rounds alternating the thread counts, the first round not counted): per count
of threads per folder (forced: vault-mem itself splits only when the load leaves a core idle,
``platform.folders.stat_threads``), the CPU time of the process (user and system, every
thread) and the wall time, p50 (min-max). A stat lets go of the interpreter's lock while the
kernel works, so on a machine with an idle core the threads' wall time drops while their CPU does
not; on a saturated one neither moves. ``--overlap N``: N fresh processes per way, alternating,
each timing a no-change reconcile of the vault (keyword-only) and the local model's load one
after the other (``seq``, what a one-shot recall did) or the load on a thread meanwhile
(``thread``, what it does now): wall and CPU ms p50 (min-max). Prints the load average.
Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import load_line  # bench/ is on sys.path when run as a script

from vault_mem.index.folderscan import scan_folders
from vault_mem.platform import folders


def p50(values: list[float]) -> str:
    return f"{statistics.median(values):.0f} ({min(values):.0f}-{max(values):.0f})"


def scan_rounds(root: Path, rounds: int) -> None:
    counts = [1, 2, 3, 4]
    got: dict[int, tuple[list[float], list[float], list[float]]] = {k: ([], [], []) for k in counts}
    n = 0
    for r in range(rounds + 1):
        for k in counts:
            folders.stat_threads = lambda count, k=k: max(1, min(k, count // folders.SPLIT_AT))  # whatever the load
            before, t = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            n = len(scan_folders(root))
            wall, after = (time.perf_counter() - t) * 1000, resource.getrusage(resource.RUSAGE_SELF)
            if r:
                got[k][0].append((after.ru_utime - before.ru_utime) * 1000)
                got[k][1].append((after.ru_stime - before.ru_stime) * 1000)
                got[k][2].append(wall)
    for k, (user, system, wall) in got.items():
        cpu = [u + s for u, s in zip(user, system)]
        print(f"scan of {n} files, {k} thread(s) per folder: CPU p50 {p50(cpu)} ms (user {statistics.median(user):.0f}, "
              f"system {statistics.median(system):.0f}), wall p50 {p50(wall)} ms", flush=True)


def overlap_one(mode: str, root: Path) -> None:
    """In a fresh process (``--one``): print wall and CPU ms of the reconcile plus the load."""
    from vault_mem.config import Config
    from vault_mem.embed.local import LocalEmbedder
    from vault_mem.index.sidecar import Sidecar

    sc = Sidecar(root, Config(), embedder=None)
    sc.reconcile()  # the page cache and the scan sum as a read finds them
    wall, cpu = time.perf_counter(), time.process_time()
    embedder = LocalEmbedder()
    if mode == "thread":
        t = threading.Thread(target=embedder.load)
        t.start()
        sc.reconcile()
        t.join()
    else:
        sc.reconcile()
        embedder.load()
    print((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000)


def overlap_rounds(root: Path, rounds: int) -> None:
    got: dict[str, tuple[list[float], list[float]]] = {"seq": ([], []), "thread": ([], [])}
    env = {**os.environ, "VAULT_MEM_EMBEDDER": "none", "PYTHONPATH": str(HERE.parent)}
    for _ in range(rounds):
        for mode in got:
            out = subprocess.run([sys.executable, __file__, "--vault", str(root), "--one", mode], env=env,
                                 capture_output=True, text=True, check=True).stdout.split()
            got[mode][0].append(float(out[0]))
            got[mode][1].append(float(out[1]))
    for mode, (wall, cpu) in got.items():
        print(f"reconcile + model load, {mode:>6}: wall p50 {p50(wall)} ms, CPU p50 {p50(cpu)} ms", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--overlap", type=int, default=0, metavar="N")
    ap.add_argument("--one", choices=["seq", "thread"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        overlap_one(args.one, args.vault)
        return
    print(load_line(), flush=True)
    if args.overlap:
        overlap_rounds(args.vault, args.overlap)
    else:
        scan_rounds(args.vault, args.rounds)
    print(load_line())


if __name__ == "__main__":
    main()
