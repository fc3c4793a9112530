"""What one warm write does, counted: process listings, ``ps`` runs, fsyncs, git processes and
SQL statements per ``remember``, with its CPU time next to ``git add && git commit`` in one run.

    python bench/bench_write_parts.py --base /tmp/growth            # 10k, native and portable
    python bench/bench_write_parts.py --n 1000 --writes 10 --modes native
    python bench/bench_write_parts.py --listings 200     # one process check's read of /proc alone

The vault and its plain-git twin are ``bench_growth.py``'s (``--base``: reused when built there).
Per mode (``native``; ``portable``: ``VAULT_MEM_PORTABLE=1``, process facts from ``ps``/``lsof``),
``--writes`` rounds of, in turn: ``git add <file> && git commit`` in the twin, then a kept
``remember`` (the vault kept current by its own watcher, as the MCP server keeps it: no ``git
status``). The counts come from wrappers around the real functions; ``listings`` are the
process checks of the write (:class:`vault_mem.store.gitprocs.GitWatch`): ``full`` read every
process, ``partial`` only those started since the last one (Linux). CPU is the timing thread's
plus its waited-for children's (git's, ps's), p50, which a loaded machine inflates less than
wall time. ``sql`` counts the statements the write runs on the vault's connection;
``sql (fts5)`` the ones SQLite's full-text module runs inside them. ``--listings N``: no vault;
N rounds of a full read of every process (``procs.list_program`` as ``GitWatch`` calls it, no
earlier listing) and a partial one (only what started since the listing before it), alternating:
the processes read, and the CPU ms of each kind p50 (max), then the load average. Asserts nothing.
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
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_growth import vault_pair  # noqa: E402
from bench_remember import write_text  # noqa: E402
from corpus import git, load_line  # noqa: E402

from vault_mem import Vault  # noqa: E402
from vault_mem.daemon.keeper import Keeper  # noqa: E402
from vault_mem.platform import procs  # noqa: E402
from vault_mem.platform.kind import PORTABLE_ENV  # noqa: E402


class Counts:
    """Wrappers that count calls of the real functions while ``on``."""

    def __init__(self) -> None:
        self.n = dict.fromkeys(("ps", "fsync", "git", "sql", "sql (fts5)"), 0)
        self.on = False
        ps, fsync, popen = procs._ps, os.fsync, subprocess.Popen.__init__
        counts = self

        def count_ps(*a):
            counts.bump("ps")
            return ps(*a)

        def count_fsync(fd):
            counts.bump("fsync")
            return fsync(fd)

        def count_popen(self, args, *a, **kw):
            if os.path.basename(str(list(args)[0])) == "git":
                counts.bump("git")
            return popen(self, args, *a, **kw)
        procs._ps, os.fsync, subprocess.Popen.__init__ = count_ps, count_fsync, count_popen
        if not hasattr(procs, "list_program"):  # a vault-mem before GitWatch: count its listings
            self.n["listings"] = 0
            listing = procs.processes_of

            def count_listing(*a, **kw):
                counts.bump("listings")
                return listing(*a, **kw)
            procs.processes_of = count_listing

    def bump(self, name: str) -> None:
        if self.on:
            self.n[name] += 1

    def sql(self, statement: str) -> None:
        self.bump("sql (fts5)" if statement.startswith("-- ") else "sql")


def cpu_ms(fn) -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    c = time.thread_time()
    fn()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.thread_time() - c + after.ru_utime - kids.ru_utime + after.ru_stime - kids.ru_stime) * 1000


def run(root: Path, twin: Path, counts: Counts, writes: int, mode: str) -> dict:
    tag = f"{mode}-{os.getpid()}-{int(time.time())}"
    cpu: dict[str, list[float]] = {"git": [], "kept": []}
    with Vault(root) as kept:
        keeper = Keeper(kept)  # as the MCP server installs it
        keeper.start_in_background(lambda: Vault(root))
        kept.kept_current, kept.kept_exactly = keeper.catch_up, keeper.caught_up_exactly
        try:
            kept.list()  # waits for the keeper's start-up reconcile
            kept.remember(f"warm-{tag}", "A warm-up memory, not timed", "warm up")
            kept.sidecar.db.conn.set_trace_callback(counts.sql)
            watch = getattr(kept.repo, "git_watch", None)  # None: a vault-mem before it (every check lists)
            if watch is not None:
                watch.full = watch.partial = 0
            for k in counts.n:
                counts.n[k] = 0
            for i in range(writes):
                p = twin / "facts" / f"parts-{tag}-{i}.md"
                p.write_text(f"---\ndescription: {write_text(f'{tag}-git-{i}')[0]}\n---\nbody\n")
                cpu["git"].append(cpu_ms(lambda p=p, i=i: (git(twin, "add", str(p.relative_to(twin))),
                                                           git(twin, "commit", "-q", "--no-verify", "-m", f"p {i}"))))
                d, b = write_text(f"{tag}-kept-{i}")
                counts.on = True
                cpu["kept"].append(cpu_ms(lambda d=d, b=b, i=i: kept.remember(f"parts-{tag}-{i}", d, b)))
                counts.on = False
            kept.sidecar.db.conn.set_trace_callback(None)
            per = {k: v / writes for k, v in counts.n.items() if k != "listings"}
            if watch is not None:
                per["listings full"], per["listings partial"] = watch.full / writes, watch.partial / writes
            else:
                per["listings full"] = counts.n["listings"] / writes
        finally:
            keeper.close()
    return {"per": per, "git": statistics.median(cpu["git"]), "kept": statistics.median(cpu["kept"])}


def listings(rounds: int) -> None:
    """A write's process check alone (RELIABILITY.md guarantee 7, docs/benchmarks.md): a full read
    of /proc and a partial one, alternating, CPU of this thread (the check reads in one)."""
    from vault_mem.store.gitprocs import asked

    if not procs.proc_native():
        print("no /proc here: a process check runs ps (see --modes portable)")
        return
    print(load_line(), flush=True)
    full, partial, seen = [], [], []
    for i in range(rounds + 1):
        t = time.thread_time()
        last = procs.list_program("git", asked)
        spent = (time.thread_time() - t) * 1000
        t = time.thread_time()
        procs.list_program("git", asked, since=last, max_age=60)
        again = (time.thread_time() - t) * 1000
        if i:  # the first round warms the caches
            full.append(spent)
            partial.append(again)
            seen.append(len(last.pids or ()))
    print(f"{rounds} rounds; processes read by a full listing p50 {statistics.median(seen):.0f}; CPU ms p50 (max): "
          f"full {statistics.median(full):.2f} ({max(full):.2f}), partial {statistics.median(partial):.2f} "
          f"({max(partial):.2f})")
    print(load_line())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--writes", type=int, default=20)
    ap.add_argument("--modes", default="native,portable")
    ap.add_argument("--base", type=Path, help="where bench_growth.py builds (or built) its vaults")
    ap.add_argument("--listings", type=int, default=0, help="time N process listings alone, no vault")
    args = ap.parse_args()
    if args.listings:
        listings(args.listings)
        return
    if args.base is None:
        ap.error("--base is needed (or --listings N)")
    for env, val in (("GIT_AUTHOR_NAME", "bench"), ("GIT_AUTHOR_EMAIL", "bench@example.invalid"),
                     ("GIT_COMMITTER_NAME", "bench"), ("GIT_COMMITTER_EMAIL", "bench@example.invalid"),
                     ("VAULT_MEM_EMBEDDER", "none"), ("VAULT_MEM_DAEMON", "off")):
        os.environ[env] = val
    args.base.mkdir(parents=True, exist_ok=True)
    root, twin, note = vault_pair(args.base, args.n)
    print(f"N={args.n} ({note}); {args.writes} kept writes per mode; {load_line()}")
    counts = Counts()
    for mode in args.modes.split(","):
        if mode == "portable":
            os.environ[PORTABLE_ENV] = "1"
        else:
            os.environ.pop(PORTABLE_ENV, None)
        r = run(root, twin, counts, args.writes, mode)
        per = " ".join(f"{k}={v:.1f}" for k, v in r["per"].items())
        print(f"{mode:>9}: kept remember cpu p50 {r['kept']:.0f} ms, git add+commit cpu p50 {r['git']:.0f} ms "
              f"(ratio {r['kept'] / r['git']:.2f}); per write: {per}; {load_line()}", flush=True)
    os.environ.pop(PORTABLE_ENV, None)


if __name__ == "__main__":
    main()
