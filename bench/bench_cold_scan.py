"""The no-change check of a read without a daemon, in parts: the stat of every memory file by 1
to 4 threads per folder, and the local model's load alone, after the reconcile, or meanwhile.

    python bench/bench_cold_scan.py --vault /tmp/growth/vm-growth-100000 --rounds 8
    python bench/bench_cold_scan.py --vault V --overlap 5     # the model's load and the reconcile
    python bench/bench_cold_scan.py --vault V --phases 8 --old OLD [--old-vault V2]   # a cold CLI recall by phase
    python bench/bench_cold_scan.py --vault V1K --vault V10K --vault V100K --phases 10 --old OLD   # the same per size
    python bench/bench_cold_scan.py --vault V100K --cli 12 --old OLD [--model | --get KEY] [--person EMAIL]   # the whole command, nothing imported first

``--vault``: a vault built by ``corpus.packed_vault`` (or ``bench_growth.py --keep``). Scan part
(in this process, rounds alternating the thread counts, the first round not counted): per count
of threads per folder (forced: vault-mem itself splits only when the load leaves a core idle,
``platform.folders.stat_threads``), the CPU time of the process (user and system, every
thread) and the wall time, p50 (min-max). A stat lets go of the interpreter's lock while the
kernel works, so on a machine with an idle core the threads' wall time drops while their CPU does
not; on a saturated one neither moves. ``--overlap N``: N fresh processes per way, alternating,
each timing a no-change reconcile of the vault (keyword-only) and the local model's load one
after the other (``seq``, what a one-shot recall did) or the load on a thread meanwhile
(``thread``, what it does now): wall and CPU ms p50 (min-max). ``--phases N``: N rounds of a
cold ``vault-mem recall`` without a daemon (keyword-only; ``--model``: the bundled model, its
load on a thread meanwhile, so the process's CPU per phase counts that thread's too), each a fresh process running the
CLI's ``main`` with marks around its phases: the interpreter's start, the imports of the CLI
and the read (``adapters.cli``, ``vault.core``, ``index.sidecar``, ``index.search``), opening the
vault, the stat of every file (``folderscan.scan`` in Python, or GNU find's listing,
``listing.list_folders``), the scan sum and its check (with the listing: reading the last one
kept and comparing), the rows compared, reading the files that changed, and the rest (the
search, the answer, closing), and ``lead``: the main thread's own CPU and the wall from the
command's start to the stat's (the serial part no other core can take); CPU ms p50 of each (every thread of the process and the programs
it waited for: find) and wall, and the process's whole CPU from ``getrusage(RUSAGE_CHILDREN)``.
``--vault`` given several times (1k, 10k, 100k): the rounds of each vault in turn, the load
printed after each. With ``--old OLD`` (a checkout's top folder, its ``vault_mem``
put first on ``PYTHONPATH``) the old and this checkout alternate within each round, the first
round of each not counted; ``--old-vault``: a copy of the vault for the old checkout's runs
(two checkouts whose secret rules differ would each make the other re-read every file), once
per ``--vault``. ``--edit``: before each round a different file of ``facts/`` is edited by hand
in place (a line appended) in each checkout's vault, so each read finds one change.
Prints the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
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


#: the child of ``--phases``: run by ``python -c`` so nothing of this file is imported before the marks
PHASE_CHILD = r"""
import time, resource
def cpu():  # this process and the programs it ran and waited for (GNU find)
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
c0, w0 = cpu(), time.perf_counter()
import io, json, sys
from contextlib import redirect_stdout
marks = {"start": [c0 * 1000, 0.0]}
def mark(name, c, w):
    got = marks.setdefault(name, [0.0, 0.0])
    got[0] += (cpu() - c) * 1000
    got[1] += (time.perf_counter() - w) * 1000
c, w = cpu(), time.perf_counter()
from vault_mem.adapters import cli
import vault_mem.index.search, vault_mem.index.sidecar, vault_mem.vault.core
from vault_mem.index import scansum, sidecar
mark("imports", c, w)
def thread_cpu():  # the main thread's alone
    r = resource.getrusage(resource.RUSAGE_THREAD)
    return r.ru_utime + r.ru_stime
def timed(name, fn):
    def run(*a, **k):
        if name == "stat" and "lead" not in marks:  # the main thread's work before the stat began
            marks["lead"] = [(thread_cpu() - tc0) * 1000, (time.perf_counter() - wc0) * 1000]
        c, w = cpu(), time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            mark(name, c, w)
    return run
cli.open_vault = timed("open", cli.open_vault)
sidecar.Sidecar._scan = timed("stat", sidecar.Sidecar._scan)
scansum.scan_total = timed("sum", scansum.scan_total)
scansum.matches = timed("sum", scansum.matches)
sidecar.Sidecar._differing = timed("rows", sidecar.Sidecar._differing)
sidecar.Sidecar._process = timed("read", sidecar.Sidecar._process)
try:  # GNU find's listing (perf51): the listing is the stat, its comparison with the last one the sum
    from vault_mem.index import listing
except ImportError:
    pass
else:
    listing.list_folders = timed("stat", listing.list_folders)
    listing.Snapshot.read = classmethod(timed("sum", listing.Snapshot.read.__func__))
    listing.Snapshot.write = timed("sum", listing.Snapshot.write)
    listing.Listed.moved_from = timed("sum", listing.Listed.moved_from)
    listing.Listed.scan = timed("sum", listing.Listed.scan)
    sidecar.Sidecar._within = timed("rows", sidecar.Sidecar._within)
sys.argv = ["vault-mem", "--vault", sys.argv[1], "recall", sys.argv[2]]
c, w, tc0 = cpu(), time.perf_counter(), thread_cpu()
wc0 = w
with redirect_stdout(io.StringIO()):
    try:
        cli.main()
    except SystemExit as exc:
        if exc.code:
            raise
total = (cpu() - c) * 1000, (time.perf_counter() - w) * 1000
marks["rest"] = [total[0] - sum(v[0] for k, v in marks.items() if k not in ("start", "imports", "lead")),
                 total[1] - sum(v[1] for k, v in marks.items() if k not in ("start", "imports", "lead"))]
print(json.dumps(marks))
"""
PHASES = ("start", "imports", "open", "stat", "sum", "rows", "read", "rest", "lead")


def edit_one(root: Path, name: str, i: int) -> None:
    """A hand edit in place of ``facts/NAME`` (its body grows by a line): what ``--edit`` makes
    before each round, in each checkout's vault."""
    path = root / "facts" / name
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(f"Edited by hand, round {i}.\n")


def phase_rounds(root: Path, rounds: int, old: Path | None, old_vault: Path | None, edit: bool = False,
                 model: bool = False) -> None:
    import compileall

    codes = {"new": HERE.parent, **({"old": old.resolve()} if old else {})}
    vaults = {"new": root, "old": old_vault or root}
    for code in codes.values():  # as an install leaves them
        compileall.compile_dir(str(code / "vault_mem"), quiet=1)
    env = {**os.environ, "VAULT_MEM_DAEMON": "off", **({} if model else {"VAULT_MEM_EMBEDDER": "none"}),
           "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    got = {name: {k: ([], []) for k in (*PHASES, "process")} for name in codes}
    if edit and old and vaults["old"] == root:
        raise SystemExit("--edit with --old needs --old-vault: each checkout reads its own vault's edits")
    names = sorted(e.name for e in os.scandir(root / "facts") if e.name.endswith(".md"))[:rounds + 1] if edit else []
    for i in range(rounds + 1):
        for name, code in codes.items():
            if edit:
                edit_one(vaults[name], names[i], i)
            before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            done = subprocess.run([sys.executable, "-c", PHASE_CHILD, str(vaults[name]), f"release train freeze {i}"],
                                  env={**env, "PYTHONPATH": str(code)}, capture_output=True, text=True, cwd="/")
            wall, after = (time.perf_counter() - t) * 1000, resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode:
                raise SystemExit(f"{code}: the recall failed:\n{done.stderr}")
            if not i:
                continue  # byte-compiling, the page cache
            marks = json.loads(done.stdout.strip().splitlines()[-1])
            for k in PHASES:
                cpu_ms, wall_ms = marks.get(k, (0.0, 0.0))
                got[name][k][0].append(cpu_ms)
                got[name][k][1].append(wall_ms)
            cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
            got[name]["process"][0].append(cpu)
            got[name]["process"][1].append(wall)
    print(f"cold CLI recall by phase, {rounds} rounds, CPU ms p50 (min-max) / wall ms p50 (CPU: the process and "
          "the programs it waited for):")
    for k in (*PHASES, "process"):
        print(f"  {k:>8}: " + "   ".join(
            f"{name} {p50(got[name][k][0])} / {statistics.median(got[name][k][1]):.0f}" for name in codes), flush=True)


def cli_rounds(root: Path, rounds: int, old: Path | None, old_vault: Path | None, model: bool,
               get: str | None = None, person: str | None = None, query: str | None = None) -> None:
    """``--cli N``: N rounds of the real command, ``python -m vault_mem --vault V recall Q --json``
    in a fresh process per checkout (alternating, the first round not counted), no daemon;
    keyword-only unless ``--model`` (then the bundled model loads, on its thread). Nothing is
    imported before the command runs (unlike ``--phases``), so whatever the command overlaps with
    its imports shows. ``--get KEY``: ``get KEY --json`` instead of a recall. ``--person EMAIL``: the
    person here (``GIT_AUTHOR_EMAIL``/``GIT_COMMITTER_EMAIL``): the corpus's author
    (bench@example.invalid) makes the memories the person's, any other email a peer's (a clone
    of a team's vault: each recall whose hits are a peer's is asked again without them). CPU:
    the process and the programs it waited for."""
    import compileall

    codes = {"new": HERE.parent, **({"old": old.resolve()} if old else {})}
    vaults = {"new": root, "old": old_vault or root}
    for code in codes.values():
        compileall.compile_dir(str(code / "vault_mem"), quiet=1)
    env = {**os.environ, "VAULT_MEM_DAEMON": "off"}
    if not model:
        env["VAULT_MEM_EMBEDDER"] = "none"
    if person:
        env.update(GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL=person, GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL=person)
    got: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in codes}
    for i in range(rounds + 1):
        for name, code in codes.items():
            before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            ask = ["get", get] if get else ["recall", query or f"release train freeze {i}"]
            done = subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(vaults[name]), *ask, "--json"],
                                  env={**env, "PYTHONPATH": str(code)}, capture_output=True, text=True, cwd="/")
            wall, after = (time.perf_counter() - t) * 1000, resource.getrusage(resource.RUSAGE_CHILDREN)
            if done.returncode:
                raise SystemExit(f"{code}: `{' '.join(ask)}` failed:\n{done.stderr}")
            if model and not get and json.loads(done.stdout).get("keyword_only"):
                raise SystemExit(f"{code}: the recall was keyword-only: {done.stdout[:300]}")
            if i:
                got[name][0].append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
                got[name][1].append(wall)
    what = f"get {get}" if get else f"recall, {'with the bundled model' if model else 'keyword-only'}"
    print(f"cold CLI {what}, {rounds} rounds, CPU ms p50 (min-max) / wall ms p50 (min-max):")
    for name, (cpu, wall) in got.items():
        print(f"  {name}: CPU {p50(cpu)} / wall {p50(wall)}", flush=True)


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
    ap.add_argument("--vault", type=Path, required=True, action="append",
                    help="with --phases: once per vault (1k, 10k, 100k), each timed in turn")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--overlap", type=int, default=0, metavar="N")
    ap.add_argument("--phases", type=int, default=0, metavar="N", help="N rounds of a cold CLI recall by phase")
    ap.add_argument("--cli", type=int, default=0, metavar="N",
                    help="N rounds of the whole command (nothing imported before it), per --vault")
    ap.add_argument("--model", action="store_true", help="with --cli or --phases: the bundled model, not keyword-only")
    ap.add_argument("--get", metavar="KEY", help="with --cli: `get KEY` instead of a recall")
    ap.add_argument("--query", help="with --cli: the recall's words (default 'release train freeze N', N the "
                                    "round, which no corpus memory holds; 'deploy procedure' finds several)")
    ap.add_argument("--person", metavar="EMAIL",
                    help="with --cli: the person here (bench@example.invalid: the corpus's memories the person's; "
                         "another email: every memory a peer's)")
    ap.add_argument("--old", type=Path, help="with --phases or --cli: the checkout to alternate with")
    ap.add_argument("--old-vault", type=Path, action="append",
                    help="with --phases: a copy of the vault for --old's runs (once per --vault, in order)")
    ap.add_argument("--edit", action="store_true",
                    help="with --phases: a file edited by hand in place before each round (needs --old-vault)")
    ap.add_argument("--one", choices=["seq", "thread"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        overlap_one(args.one, args.vault[0])
        return
    print(load_line(), flush=True)
    if args.cli:
        for n, vault in enumerate(args.vault):
            print(f"{vault}:", flush=True)
            cli_rounds(vault, args.cli, args.old, args.old_vault[n] if args.old_vault else None, args.model,
                       args.get, args.person, args.query)
            print(load_line(), flush=True)
        return
    if args.phases:
        for n, vault in enumerate(args.vault):
            print(f"{vault}{', a file edited in place before each round' if args.edit else ''}:", flush=True)
            phase_rounds(vault, args.phases, args.old, args.old_vault[n] if args.old_vault else None, args.edit,
                         args.model)
            print(load_line(), flush=True)
        return
    if args.overlap:
        overlap_rounds(args.vault[0], args.overlap)
    else:
        scan_rounds(args.vault[0], args.rounds)
    print(load_line())


if __name__ == "__main__":
    main()
