"""The growth curve: what a write and a cold read cost as the vault grows, next to plain git, in
one interleaved run.

    python bench/bench_growth.py                    # 1k, 10k, 50k, 100k (building 100k: ~15 min)
    python bench/bench_growth.py --stop 10000       # 1k and 10k only (a quick run)
    python bench/bench_growth.py --sizes 50000      # one size
    python bench/bench_growth.py --base /tmp/growth --keep   # build once, reuse on the next run
    python bench/bench_growth.py --sizes 1000,10000,100000 --daemon --base /tmp/growth --keep

Per size ``N``: a vault of ``N`` realistic memories (``corpus.packed_vault``: five type folders,
one commit, indexed without vectors) and its plain-git twin (a ``git clone``), both packed.
Then ``--rounds`` rounds, each of, in turn:

- ``git``: ``git add <new file> && git commit`` in the twin (hooks skipped);
- ``api``: ``Vault.remember`` of a new key in this process, kept open and warmed first (one
  untimed write), as an agent's long-lived process does; its ``git status`` part
  (:func:`vault_mem.vault.steps.changed_memory_paths`) is timed too;
- ``kept``: the same, on a vault kept current by its own watcher as the MCP server keeps it
  (:class:`vault_mem.daemon.keeper.Keeper`): its writes ask no ``git status``;
- ``cli remember``: ``python -m vault_mem remember ...`` as a new process (no daemon);
- ``cli recall``: ``python -m vault_mem recall ...`` as a new process with no daemon (a cold
  read: its reconcile checks the files);
- with ``--daemon``: ``daemon api`` and ``daemon cli``, the API's and the one-shot CLI's
  ``remember`` on a copy of the vault (``vm-growth-N-d``, made once) whose daemon runs: each
  write asks the daemon's fence instead of ``git status`` (the count of ``git status`` calls
  they made is printed: 0 when every fence was answered).

They alternate within a round, so the machine's load (shared, noisy) weighs on all alike.
Prints, per size, p50/p95 of each, the API's ratio to git's p50, and the load average at the
end of that size's rounds; then the same rounds' CPU time (p50: the timing thread's own plus
that of the processes it waited for, git's and the CLI's), which a loaded machine inflates far
less than wall time. Figures are only comparable within one run. Asserts nothing.

Run as a person runs their own vault: the corpus's commit author is the person here
(``GIT_AUTHOR_EMAIL``; otherwise every memory would be a peer's, and each read would check all
of them against the work tree), and vault_mem's modules are byte-compiled first, as an install
leaves them (with ``PYTHONDONTWRITEBYTECODE`` set, each one-shot CLI would compile every module).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bench_remember import write_text  # noqa: E402
from corpus import PartTimer, git, load_line, packed_vault, pct, start_daemon  # noqa: E402

from vault_mem import Vault  # noqa: E402
from vault_mem.daemon.keeper import Keeper  # noqa: E402
from vault_mem.vault import steps, transaction  # noqa: E402

SIZES = (1000, 10000, 50000, 100000)


def vault_pair(base: Path, n: int) -> tuple[Path, Path, str]:
    """(vault, twin, note) for size ``n`` under ``base``: reused when a finished pair is there."""
    root, twin = base / f"vm-growth-{n}", base / f"git-growth-{n}"
    ready = base / f"vm-growth-{n}.ready"
    if ready.exists() and root.exists() and twin.exists():
        # a reused pair: the copies' stat data may be stale in git's index (a status would hash all)
        subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=root, capture_output=True, check=False)
        return root, twin, "reused"
    for p in (root, twin):
        shutil.rmtree(p, ignore_errors=True)
    t0 = time.perf_counter()
    packed_vault(root, n, twin=twin)
    ready.write_text(str(n))
    return root, twin, f"built in {time.perf_counter() - t0:.0f} s"


def _proc_ticks(pid: int) -> int:
    """The CPU time of process ``pid`` so far, in clock ticks (user + system; Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def daemon_copy(root: Path) -> Path:
    """The copy of ``root`` that the ``--daemon`` rounds write to (made once, reused)."""
    copy = root.parent / f"{root.name}-d"
    if not copy.exists():
        subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=copy, capture_output=True, check=False)
    return copy


class Clock:
    """Wall and CPU time of one step: CPU is this thread's plus its waited-for children's."""

    def __init__(self) -> None:
        self.wall: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}

    def __call__(self, name: str, fn) -> None:
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        c, t = time.thread_time(), time.perf_counter()
        fn()
        wall, cpu = time.perf_counter() - t, time.thread_time() - c
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu += (after.ru_utime - kids.ru_utime) + (after.ru_stime - kids.ru_stime)
        self.wall.setdefault(name, []).append(wall * 1000)
        self.cpu.setdefault(name, []).append(cpu * 1000)


def rounds(root: Path, twin: Path, n: int, count: int, droot: Path | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "VAULT_MEM_DAEMON": "off", "VAULT_MEM_EMBEDDER": "none"}
    os.environ["VAULT_MEM_EMBEDDER"] = "none"
    clock = Clock()
    status = PartTimer(steps.changed_memory_paths)
    tag = f"{n}-{os.getpid()}-{int(time.time())}"
    daemon = dvault = None
    dstatus = 0
    dcpu: list[float] = []  # the daemon's own CPU time during each API write (its fence)
    if droot is not None:
        daemon = start_daemon(droot, droot.parent / f"{droot.name}.daemon.log")
        dvault = Vault(droot)
        dvault.remember(f"warm-d-{tag}", "A warm-up memory, not timed", "warm up")
        denv = {k: v for k, v in env.items() if k != "VAULT_MEM_DAEMON"}
    with Vault(root) as vault, Vault(root) as kept:
        keeper = Keeper(kept)  # as the MCP server installs it
        keeper.start_in_background(lambda: Vault(root))
        kept.kept_current, kept.kept_exactly = keeper.catch_up, keeper.caught_up_exactly
        kept.list()  # waits for the keeper's start-up reconcile
        vault.remember(f"warm-{tag}", "A warm-up memory, not timed", "warm up")
        kept.remember(f"warm-kept-{tag}", "A warm-up memory, not timed", "warm up")
        # looked up at call time: by a write (before its files land) and by finish_write (recovery)
        steps.changed_memory_paths = transaction.changed_memory_paths = status
        try:
            for i in range(count):
                p = twin / "facts" / f"plain-{tag}-{i}.md"
                p.write_text(f"---\ndescription: {write_text(f'{tag}-git-{i}')[0]}\n---\nbody\n")

                def plain_git(p: Path = p, i: int = i) -> None:
                    git(twin, "add", str(p.relative_to(twin)))
                    git(twin, "commit", "-q", "--no-verify", "-m", f"plain {i}")
                clock("git", plain_git)
                d, b = write_text(f"{tag}-api-{i}")
                clock("api", lambda d=d, b=b, i=i: vault.remember(f"api-{tag}-{i}", d, b))
                d, b = write_text(f"{tag}-kept-{i}")
                clock("kept", lambda d=d, b=b, i=i: kept.remember(f"kept-{tag}-{i}", d, b))
                d, b = write_text(f"{tag}-cli-{i}")
                clock("cli_write", lambda d=d, b=b, i=i: subprocess.run(
                    [sys.executable, "-m", "vault_mem", "--vault", str(root), "remember", f"cli-{tag}-{i}",
                     "--description", d, "--body", b], check=True, capture_output=True, env=env))
                clock("cli_recall", lambda i=i: subprocess.run(
                    [sys.executable, "-m", "vault_mem", "--vault", str(root), "recall",
                     f"release train freeze {i}"], check=True, capture_output=True, env=env))
                if dvault is not None:
                    before = len(status.ms)
                    d, b = write_text(f"{tag}-dapi-{i}")
                    ticks = _proc_ticks(daemon.pid)
                    clock("dapi", lambda d=d, b=b, i=i: dvault.remember(f"dapi-{tag}-{i}", d, b))
                    dcpu.append((_proc_ticks(daemon.pid) - ticks) * 1000 / os.sysconf("SC_CLK_TCK"))
                    dstatus += len(status.ms) - before
                    d, b = write_text(f"{tag}-dcli-{i}")
                    clock("dcli", lambda d=d, b=b, i=i: subprocess.run(
                        [sys.executable, "-m", "vault_mem", "--vault", str(droot), "remember", f"dcli-{tag}-{i}",
                         "--description", d, "--body", b], check=True, capture_output=True, env=denv))
        finally:
            steps.changed_memory_paths = transaction.changed_memory_paths = status.fn
            keeper.close()
            if dvault is not None:
                dvault.close()
            if daemon is not None:
                daemon.terminate()
                daemon.wait(timeout=60)
    # the plain API's git status calls only (the kept vault asks none; the CLI's run elsewhere)
    plain = [ms for ms in status.ms[:len(status.ms) - dstatus]][-count:]
    return {**{k: pct(v) for k, v in clock.wall.items()}, "status": pct(plain), "dstatus": dstatus,
            "dcpu": sum(dcpu) / len(dcpu) if dcpu else 0.0,
            "cpu": {k: pct(v) for k, v in clock.cpu.items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stop", type=int, default=SIZES[-1], help="the largest size to run (10000: a quick run)")
    ap.add_argument("--sizes", default=None, help="comma-separated sizes instead (e.g. 50000)")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--base", type=Path, default=None, help="where the vaults are built (default: a temp folder)")
    ap.add_argument("--keep", action="store_true", help="keep the built vaults for the next run (with --base)")
    ap.add_argument("--daemon", action="store_true", help="also write to a copy of each vault whose daemon runs")
    args = ap.parse_args()
    # the person here is the corpus's author (bench/corpus.py commits as bench@example.invalid)
    for env, val in (("GIT_AUTHOR_NAME", "bench"), ("GIT_AUTHOR_EMAIL", "bench@example.invalid"),
                     ("GIT_COMMITTER_NAME", "bench"), ("GIT_COMMITTER_EMAIL", "bench@example.invalid")):
        os.environ[env] = val
    compileall.compile_dir(str(HERE.parent / "vault_mem"), quiet=1)
    base = args.base or Path(tempfile.mkdtemp(prefix="bench-growth-"))
    base.mkdir(parents=True, exist_ok=True)
    print(f"rounds={args.rounds} per size; ms p50/p95; api/git = ratio of p50s; no daemon; embedder none")
    print(f"{'N':>7} {'git add+commit':>15} {'api remember':>13} {'api/git':>8} {'api: status':>12} "
          f"{'kept api':>11} {'kept/git':>9} {'cli remember':>13} {'cli recall':>11}   load average 1/5/15")
    try:
        sizes = [int(x) for x in args.sizes.split(",")] if args.sizes else [s for s in SIZES if s <= args.stop]
        for n in sizes:
            root, twin, note = vault_pair(base, n)
            print(f"{n:>7} {note}; {load_line()}", flush=True)
            droot = daemon_copy(root) if args.daemon else None
            r = rounds(root, twin, n, args.rounds, droot)
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            g, a, k = r["git"], r["api"], r["kept"]
            print(f"{n:>7} {g['p50']:>7.0f}/{g['p95']:<7.0f} {a['p50']:>6.0f}/{a['p95']:<6.0f} "
                  f"{a['p50'] / g['p50']:>8.2f} {r['status']['p50']:>12.1f} "
                  f"{k['p50']:>5.0f}/{k['p95']:<5.0f} {k['p50'] / g['p50']:>9.2f} "
                  f"{r['cli_write']['p50']:>6.0f}/{r['cli_write']['p95']:<6.0f} "
                  f"{r['cli_recall']['p50']:>5.0f}/{r['cli_recall']['p95']:<5.0f}   {load}", flush=True)
            c = r["cpu"]
            print(f"{'  cpu':>7} {c['git']['p50']:>7.0f}{'':8} {c['api']['p50']:>6.0f}{'':7} "
                  f"{c['api']['p50'] / c['git']['p50']:>8.2f} {'':>12} {c['kept']['p50']:>5.0f}{'':6} "
                  f"{c['kept']['p50'] / c['git']['p50']:>9.2f} {c['cli_write']['p50']:>6.0f}{'':7} "
                  f"{c['cli_recall']['p50']:>5.0f}", flush=True)
            if droot is not None:
                da, dc, cg = r["dapi"], r["dcli"], c["git"]["p50"]
                print(f"{'  daemon':>7} api {da['p50']:.0f}/{da['p95']:.0f} ms ({da['p50'] / g['p50']:.2f}x git), "
                      f"cpu {c['dapi']['p50']:.0f} ms ({c['dapi']['p50'] / cg:.2f}x git); cli remember "
                      f"{dc['p50']:.0f}/{dc['p95']:.0f} ms, cpu {c['dcli']['p50']:.0f} ms; git status calls in "
                      f"these writes: {r['dstatus']}; the daemon's own cpu per api write (mean): "
                      f"{r['dcpu']:.1f} ms", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
