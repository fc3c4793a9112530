"""What judging a new memory file not committed yet costs in a big vault of peers' memories
(RELIABILITY.md, "A change made here adopts only what it changes"; issue 23, trust24).

A new file not committed (the person's new memory, or a move not committed: ``git mv``, ``mv``)
is asked whether it is a committed memory of a peer's history moved here
(``vault/authors._moved_uncommitted``). Before trust24 that read every author row of the vault
and stat'ed every memory of a peer's history, on every read that judged such a file (recall
hitting it, the session context, the prompt hook); it now reads the committed paths gone from the
disk from the sidecar's committed view (``index/committed``'s ``differs``, kept by triggers).

    git archive main | tar -x -C /tmp/old
    python bench/bench_moved_uncommitted.py --vault /dev/shm/v10k=10000 --vault /dev/shm/v100k=100000 --old /tmp/old

``--vault PATH=N``: the vault at PATH, made first when PATH does not exist by ``bench/corpus.py``'s
``packed_vault`` (N memories committed by plain git, so every one is a peer's: not made here, an
author not approved); remove it after. ``--old DIR``: a checkout of the code to compare with (its
package on ``PYTHONPATH``), run in turn with this one, which goes first alternating by round.

In each vault one new memory file is written and left uncommitted (removed at the end). One warm
process per checkout per vault (a ``Vault`` opened once, as the MCP server and the daemon keep
one; keyword-only, no daemon); per round, one call of each case in each: ``new file``,
``Vault.authors`` of the new file (the judging that asks whether it was moved); ``committed
file``, the same for a committed memory of the vault (the same-run baseline, which asks
nothing of the kind). CPU is the process's own and its git processes'. Prints p50 (min-max) per
(vault, case, checkout) and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
NEW = "facts/zz-bench-new-note.md"
CASES = ("new file", "committed file")


def cpu_ms() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime) * 1000


def child(root: str) -> None:
    """One warm process: reads case names on stdin, answers each with its CPU ms."""
    from vault_mem.vault.core import Vault

    vault = Vault(Path(root))
    committed = next(p.relative_to(root).as_posix() for p in sorted((Path(root) / "facts").glob("*.md"))
                     if p.name != Path(NEW).name)
    rels = {"new file": NEW, "committed file": committed}
    for rel in rels.values():
        vault.authors([rel])  # warm: the rows, the identities, the origins
    print("ready", flush=True)
    for line in sys.stdin:
        rel = rels[line.strip()]
        t = cpu_ms()
        vault.authors([rel])
        print(json.dumps(cpu_ms() - t), flush=True)
    vault.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--vault", action="append", required=True, help="PATH=N")
    ap.add_argument("--old", help="a checkout of the code to compare with")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent))
    os.environ["VAULT_MEM_EMBEDDER"] = "none"
    load = os.getloadavg()
    checkouts = {"this": str(HERE.parent)} | ({"old": str(Path(args.old).resolve())} if args.old else {})
    for spec in args.vault:
        path, n = spec.rsplit("=", 1)
        root = Path(path)
        if not root.exists():
            from corpus import packed_vault

            packed_vault(root, int(n))
        (root / NEW).write_text("---\ndescription: The new standup time is 09:30\n---\nMoved from 10:00 this week.\n")
        try:
            procs = {}
            for name, code in checkouts.items():
                env = {**os.environ, "PYTHONPATH": code}
                procs[name] = subprocess.Popen([sys.executable, "-c", f"import sys; sys.path.insert(0, {code!r}); "
                                                f"sys.path.insert(0, {str(HERE)!r}); import bench_moved_uncommitted as b; "
                                                f"b.child({str(root)!r})"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               text=True, env=env, cwd="/")
                assert procs[name].stdout.readline().strip() == "ready"
            ms = {(case, name): [] for case in CASES for name in checkouts}
            for r in range(args.rounds):
                order = list(checkouts) if r % 2 == 0 else list(reversed(checkouts))
                for case in CASES:
                    for name in order:
                        procs[name].stdin.write(case + "\n")
                        procs[name].stdin.flush()
                        ms[(case, name)].append(json.loads(procs[name].stdout.readline()))
            for proc in procs.values():
                proc.stdin.close()
                proc.wait()
            for (case, name), values in ms.items():
                print(f"{n:>7} {case:<15} {name:<5} CPU ms p50 {statistics.median(values):8.1f} "
                      f"({min(values):.1f}-{max(values):.1f})")
        finally:
            (root / NEW).unlink(missing_ok=True)
    print(f"load average before {load[0]:.1f}, after {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
