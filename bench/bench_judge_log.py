"""What the peers' judgement's log (``judge_log``: the sidecar's triggers, ``index/db.m016``,
``m017``) costs the writes, before and after: two checkouts of vault-mem alternating in one run,
each on its own copy of the vault (a checkout at a newer schema is not opened by an older one).

    python bench/bench_judge_log.py --vault /dev/shm/j/v10k --vault /dev/shm/j/v10k-b --old /path/to/old
    python bench/bench_judge_log.py --vault A --vault B --old OLD --rounds 3 --writes 8 --reindex 1

``--vault`` twice: two vaults built alike by ``corpus.packed_vault`` (the same ``n``, made by
the older checkout, so each starts at its schema; the newer one migrates at its first open,
untimed); the first is written by ``--old``, the second by this checkout, both with
``VAULT_MEM_EMBEDDER=none``. Per round each checkout's process opens its vault, makes one
warm-up write, ``--writes`` timed ``Vault.remember`` of new keys (CPU of the process and the
git processes it waited for), then ``--reindex`` timed ``Vault.reindex`` (every row rewritten,
each change logged), and, before those, three times the rows' triggers alone: 1,000 ``files``
rows' blobs changed and put back (2,000 row changes, each logged and its ``differs`` row
rechecked), then 2,000 given the same blob again (a re-read that found the same bytes), in a
transaction rolled back; the two take turns round by round. Prints per
checkout the p50 (min-max) CPU ms of a write, CPU s of a reindex, the log entries one reindex
added and CPU ms of the row changes of each kind, and the load average before and after. Asserts
nothing.
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

_WORKER = r"""
import json, resource, sys, time
import vault_mem
from vault_mem import Vault
root, tag, n, r = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
def cpu():
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime
def head(db):
    return db.execute("SELECT max(seq) FROM judge_log").fetchone()[0] or 0
with Vault(root) as vault:
    vault.remember(f"warm-{tag}-w", f"Nadia moved the review to room {tag}", "warm-up")
    writes, reindexes, logged = [], [], []
    for i in range(n):
        c = cpu()
        vault.remember(f"warm-{tag}-{i}", f"Nadia moved the {tag} review to room {i}", f"round {i}")
        writes.append((cpu() - c) * 1000)
    db, rows = vault.sidecar.db, []
    for _ in range(3):  # the rows' triggers alone: 1,000 blobs changed and put back, rolled back
        ids = [(i,) for (i,) in db.tuples("SELECT id FROM files WHERE blob IS NOT NULL ORDER BY id LIMIT 1000")]
        db.execute("BEGIN IMMEDIATE")
        c = time.process_time()
        db.executemany("UPDATE files SET blob = blob || 'x' WHERE id = ?", ids)
        db.executemany("UPDATE files SET blob = substr(blob, 1, length(blob) - 1) WHERE id = ?", ids)
        changed = (time.process_time() - c) * 1000
        c = time.process_time()  # the same blob written again (a re-read that found the same bytes)
        db.executemany("UPDATE files SET blob = blob WHERE id = ?", ids + ids)
        rows.append((changed, (time.process_time() - c) * 1000))
        db.execute("ROLLBACK")
    for _ in range(r):
        h, c = head(vault.sidecar.db), cpu()
        vault.reindex()
        reindexes.append(cpu() - c)
        logged.append(head(vault.sidecar.db) - h)
print(json.dumps({"writes": writes, "reindex": reindexes, "logged": logged, "rows": rows, "code": [vault_mem.__file__]}))
"""


def _p50(values) -> str:
    got = sorted(values)
    return f"{statistics.median(got):.1f} ms ({got[0]:.1f}-{got[-1]:.1f})"


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, action="append", required=True, help="twice: old's, then new's")
    ap.add_argument("--old", type=Path, required=True, help="the checkout to compare with (its top folder)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--writes", type=int, default=8)
    ap.add_argument("--reindex", type=int, default=1)
    args = ap.parse_args()
    if len(args.vault) != 2:
        ap.error("--vault twice: the old checkout's copy, then this one's")
    codes = {"old": (args.old.resolve(), args.vault[0]), "new": (HERE.parent, args.vault[1])}
    env = {**os.environ, "VAULT_MEM_DAEMON": "off", "VAULT_MEM_EMBEDDER": "none"}
    got: dict[str, dict[str, list]] = {k: {"writes": [], "reindex": [], "logged": [], "rows": [], "code": []} for k in codes}
    stamp = f"{os.getpid()}-{int(time.time())}"  # keys no earlier run wrote (the same text again is no write)
    print(f"load before: {_load()}", flush=True)
    for rnd in range(args.rounds):
        for name, (code, vault) in (codes.items() if rnd % 2 == 0 else reversed(codes.items())):
            out = subprocess.run([sys.executable, "-c", _WORKER, str(vault), f"{name}-{stamp}-{rnd}", str(args.writes),
                                  str(args.reindex)], env={**env, "PYTHONPATH": str(code)},
                                 capture_output=True, text=True, cwd="/", check=True)
            for k, v in json.loads(out.stdout.strip().splitlines()[-1]).items():
                got[name][k].extend(v)
            print(f"round {rnd} {name} done, load {_load()}", flush=True)
    for name, g in got.items():
        w, r = g["writes"], g["reindex"] or [float("nan")]
        print(f"{name}: write CPU p50 {statistics.median(w):.1f} ms ({min(w):.1f}-{max(w):.1f}, n={len(w)}); "
              f"reindex CPU p50 {statistics.median(r):.2f} s ({min(r):.2f}-{max(r):.2f}, n={len(r)}); "
              f"log entries per reindex {sorted(set(g['logged']))}; 2,000 row changes (1,000 blobs changed and "
              f"put back) CPU p50 {_p50(c for c, _ in g['rows'])}; 2,000 rows given the same blob again "
              f"{_p50(u for _, u in g['rows'])}"
              f"  [{sorted(set(g['code']))[0]}]")
    print(f"load after: {_load()}")


if __name__ == "__main__":
    main()
