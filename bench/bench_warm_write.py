"""A warm ``Vault.remember`` (no watcher: it asks ``git status``), before and after: two checkouts
of vault-mem alternating in one run, each in its own kept process.

    python bench/bench_warm_write.py --vault /tmp/growth/vm-growth-10000 --old /path/to/old/checkout
    python bench/bench_warm_write.py --vault V --old OLD --rounds 4 --writes 8
    python bench/bench_warm_write.py --vault V --old OLD --daemon   # this checkout's daemon runs

``--vault``: a vault built by ``corpus.packed_vault`` (``bench_growth.py --keep`` leaves them);
each write adds a new key to it. ``--old``: the other checkout (its ``vault_mem`` first on
``PYTHONPATH``; this one's is the "new"). Per round, each checkout's process opens the vault,
makes one warm-up write, then ``--writes`` timed ones; the two take turns round by round, so the
machine's load weighs on both alike. Prints per checkout the CPU time per write p50 (min-max),
the process's own plus the git processes it waited for, and the wall p50, then the load
average. Keyword-only (``VAULT_MEM_EMBEDDER=none``). ``--daemon``: this checkout's daemon
watches the vault meanwhile, and both checkouts' writes may ask it (a checkout whose writes ask
the daemon's fence skips ``git status``; the daemon's own CPU is not counted). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: run in the checkout's own process: one warm-up write, then the timed ones, as JSON lines
_WRITER = r"""
import json, resource, sys, time
from vault_mem import Vault
root, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime
with Vault(root) as vault:
    vault.remember(f"warm-{tag}-w", f"Nadia moved the review to room {tag}", "warm-up")
    out = []
    for i in range(n):
        c, t = cpu(), time.perf_counter()
        vault.remember(f"warm-{tag}-{i}", f"Nadia moved the {tag} review to room {i}", f"round {i}")
        out.append(((cpu() - c) * 1000, (time.perf_counter() - t) * 1000))
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--old", type=Path, required=True, help="the checkout to compare with (its top folder)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--writes", type=int, default=8)
    ap.add_argument("--daemon", action="store_true", help="run this checkout's daemon on the vault meanwhile")
    args = ap.parse_args()
    codes = {"old": args.old.resolve(), "new": HERE.parent}
    env = {**os.environ, "VAULT_MEM_DAEMON": "on" if args.daemon else "off", "VAULT_MEM_EMBEDDER": "none",
           "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in codes}
    stamp = f"{os.getpid()}-{int(time.time())}"
    daemon = None
    if args.daemon:
        sys.path.insert(0, str(HERE))
        sys.path.insert(0, str(HERE.parent))
        os.environ.update(VAULT_MEM_EMBEDDER="none")
        from corpus import start_daemon

        daemon = start_daemon(args.vault, Path(f"/tmp/bench-warm-write-daemon-{stamp}.log"))
    try:
        rounds(args, codes, env, got, stamp)
    finally:
        if daemon is not None:
            daemon.terminate()
            daemon.wait(timeout=60)
    for name in codes:
        cpu = sorted(c for c, _ in got[name])
        print(f"warm remember {name}: CPU p50 {statistics.median(cpu):5.1f} ms ({cpu[0]:.1f}-{cpu[-1]:.1f}), "
              f"wall p50 {statistics.median(w for _, w in got[name]):5.1f} ms, {len(cpu)} writes  [{codes[name]}]"
              f"{'  (daemon running)' if daemon is not None else ''}")
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))


def rounds(args, codes: dict[str, Path], env: dict[str, str], got: dict, stamp: str) -> None:
    """The two checkouts' processes, round by round in turn."""
    for r in range(args.rounds):
        for name, code in codes.items():
            done = subprocess.run([sys.executable, "-c", _WRITER, str(args.vault), f"{name}-{stamp}-{r}",
                                   str(args.writes)], env={**env, "PYTHONPATH": str(code)},
                                  capture_output=True, text=True, cwd="/", check=False)
            if done.returncode != 0:
                raise SystemExit(f"{code}: failed:\n{done.stderr}")
            got[name] += [tuple(x) for x in json.loads(done.stdout.strip().splitlines()[-1])]


if __name__ == "__main__":
    main()
