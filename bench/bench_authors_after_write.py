"""Who wrote a memory, asked right after an agent write in the same warm process, before and
after: two checkouts of vault-mem alternating in one run, each in its own process.

    python bench/bench_authors_after_write.py --vault V --old OLD --rounds 3 --writes 5

A ``remember`` that finds a look-alike asks who wrote it (``Vault.authors``), and so does a recall
that shows an author; the authors kept in the sidecar lag HEAD by the process's own last commit,
so each such question after a write first brings them up to HEAD. ``--vault``: a vault built by
``corpus.packed_vault`` (``bench_growth.py --keep``); ``--old``: the other checkout (its
``vault_mem`` first on ``PYTHONPATH`` and named by ``BENCH_MCP_CODE``, which ``corpus.py``, imported
through ``bench_remember``, puts first on ``sys.path``). Per round, each checkout's process opens the vault, makes
one untimed write and question, then ``--writes`` times: a write (untimed), a write of the
same text under another key (timed: its duplicate check finds the first and asks who wrote it,
the authors rows one commit behind), and the question (timed). Prints per checkout the CPU p50 (min-max) of the question (the process's thread plus the
git processes it waited for), its wall p50 and the git processes it started (a count the load
does not move), the write's CPU p50 and git processes, then the load average.
Keyword-only (``VAULT_MEM_EMBEDDER=none``), no daemon. Asserts nothing.
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

_ASKER = r"""
import json, resource, subprocess, sys, time
sys.path.insert(0, sys.argv[4])
started = [0]
_real = subprocess.Popen.__init__
def _counted(self, args, *a, **kw):
    started[0] += str(list(args)[0]).endswith("git")
    return _real(self, args, *a, **kw)
subprocess.Popen.__init__ = _counted
from bench_remember import write_text
from vault_mem import Vault
root, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def cpu():
    k = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.thread_time() + k.ru_utime + k.ru_stime
out = []
with Vault(root) as vault:
    rel = sorted(p.name for p in (vault.root / "facts").iterdir() if p.suffix == ".md")[0]
    rel = "facts/" + rel
    d, b = write_text(tag + "-w")
    vault.remember(f"ask-{tag}-w", d, b)
    vault.authors([rel])
    for i in range(n):
        d, b = write_text(f"{tag}-{i}")
        vault.remember(f"ask-{tag}-{i}", d, b)
        # the same text under another key: its duplicate check finds the memory just written and
        # asks who wrote it (the authors rows lag HEAD by that write's commit)
        c, g = cpu(), started[0]
        vault.remember(f"ask-{tag}-{i}-again", d, b)
        w, wg = (cpu() - c) * 1000, started[0] - g
        c, t, g = cpu(), time.perf_counter(), started[0]
        vault.authors([rel])
        out.append(((cpu() - c) * 1000, (time.perf_counter() - t) * 1000, w, started[0] - g, wg))
print(json.dumps(out))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--old", type=Path, required=True, help="the checkout to compare with (its top folder)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--writes", type=int, default=5)
    args = ap.parse_args()
    codes = {"old": args.old.resolve(), "new": HERE.parent}
    env = {**os.environ, "VAULT_MEM_DAEMON": "off", "VAULT_MEM_EMBEDDER": "none",
           "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    got: dict[str, list] = {k: [] for k in codes}
    stamp = f"{os.getpid()}-{int(time.time())}"
    for r in range(args.rounds):
        for name, code in codes.items():
            done = subprocess.run([sys.executable, "-c", _ASKER, str(args.vault), f"{name}-{stamp}-{r}",
                                   str(args.writes), str(HERE)], env={**env, "PYTHONPATH": str(code), "BENCH_MCP_CODE": str(code)},
                                  capture_output=True, text=True, cwd="/", check=False)
            if done.returncode != 0:
                raise SystemExit(f"{code}: failed:\n{done.stderr}")
            got[name] += [tuple(x) for x in json.loads(done.stdout.strip().splitlines()[-1])]
    for name in codes:
        cpu = sorted(x[0] for x in got[name])
        print(f"authors after a write {name}: CPU p50 {statistics.median(cpu):6.1f} ms ({cpu[0]:.1f}-{cpu[-1]:.1f}), "
              f"wall p50 {statistics.median(x[1] for x in got[name]):6.1f} ms, git processes per question "
              f"{statistics.mean(x[3] for x in got[name]):.1f}; the write's CPU p50 "
              f"{statistics.median(x[2] for x in got[name]):5.1f} ms, its git processes "
              f"{statistics.mean(x[4] for x in got[name]):.1f}; {len(cpu)} questions  [{codes[name]}]")
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
