"""One-shot CLI commands, before and after: CPU time of ``vault-mem remember`` and ``recall`` run as
new processes without a daemon, alternating between two checkouts of vault-mem in one run.

    python bench/bench_oneshot.py --vault /tmp/growth/vm-growth-10000 --old /path/to/old/checkout
    python bench/bench_oneshot.py --vault V --old OLD --kinds recall --rounds 10
    python bench/bench_oneshot.py --vault V --old-vault V2 --old OLD --kinds list --rounds 10
    python bench/bench_oneshot.py --vault V --old OLD --kinds remember --daemon
    python bench/bench_oneshot.py --vault V --old-vault V2 --old OLD --kinds remember [--daemon]

``--vault``: a vault built by ``bench/bench_growth.py --base B --keep`` (``B/vm-growth-N``) or
``corpus.packed_vault``; each remember adds a new key to it. ``--old``: the other checkout
(its ``vault_mem`` is put first on ``PYTHONPATH``; this one's is the "new"). Per round and kind,
the old and the new run in turn, so the machine's load weighs on both alike; the first round
of each is not counted (byte-compiling, the page cache). Prints, per kind and checkout, the CPU
time p50, p95 (min-max) of the process and every process it waited for (git's), from
``getrusage(RUSAGE_CHILDREN)``, and the wall time p50 and p95, then the load average. Keyword-only
(``VAULT_MEM_EMBEDDER=none``), no daemon; the person is the corpus's author (bench/corpus.py),
as in bench_growth.py. ``--daemon``: a daemon runs on the vault (keyword-only too, in the
commands' own environment, so that it may make their writes; started before the rounds and
stopped after them; a copied vault's first start re-reads every file), and the commands may ask
it (a write its fence instead of ``git status``, or, since the daemon makes one-shot writes, the
whole write). Under ``--daemon`` the line also gives the daemon's CPU time per command: its
process and the git processes it waited for (``/proc/PID/stat``), from the first counted round
to the end, divided by the commands counted (its work for a command, its watcher's included,
also happens after the command returned). ``--old-vault``: a copy of the vault (``cp -a``) that
the old checkout's commands use instead, with a daemon of the old checkout's code under
``--daemon`` (the new one's otherwise, which an old command cannot ask anything: another
protocol): each checkout then finds the state its own last command left (a record of the HEAD
it checked, the settings' blob), as one installed vault-mem does. Both vaults' git stat data
is refreshed first (a ``cp -a`` copy's is stale: :func:`refresh_stat_data`), unless
``--as-copied`` (give both checkouts a fresh ``cp -a`` copy then: what a copied or restored
vault costs each write). ``--reads`` (with
``--daemon``): meanwhile a reader per checkout (its own code) asks its daemon for a ``recall``
every 50 ms and the line gives their latency p50 / p95 / max: what the writes cost the reads
waiting behind them on the daemon's main thread (the daemon's CPU per command then counts the
reads' too). Asserts nothing.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import signal
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def one(code: Path, vault: Path, argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU ms, wall ms) of ``python -m vault_mem --vault VAULT ARGV`` with ``code``'s vault_mem."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(vault), *argv],
                          env={**env, "PYTHONPATH": str(code)}, capture_output=True, cwd="/", check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{code}: {' '.join(argv)} failed:\n{done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu * 1000, wall * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--old", type=Path, required=True, help="the checkout to compare with (its top folder)")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--kinds", default="remember,recall", help="of remember, recall, list (a read that parses no file)")
    ap.add_argument("--daemon", action="store_true", help="with this checkout's daemon running on the vault")
    ap.add_argument("--old-vault", type=Path, help="a copy of the vault for the old checkout's commands")
    ap.add_argument("--reads", action="store_true", help="with --daemon: time recalls asked of each daemon meanwhile")
    ap.add_argument("--as-copied", action="store_true",
                    help="leave the vaults' git stat data as a cp -a copy left it (not refreshed first)")
    args = ap.parse_args()
    codes = {"old": args.old.resolve(), "new": HERE.parent}
    for code in codes.values():  # as an install leaves them
        compileall.compile_dir(str(code / "vault_mem"), quiet=1)
    env = {**os.environ, "VAULT_MEM_DAEMON": "on" if args.daemon else "off", "VAULT_MEM_EMBEDDER": "none",
           "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    env.pop("PYTHONPATH", None)  # each process gets its checkout's
    for vault in {args.vault, args.old_vault or args.vault} if not args.as_copied else ():
        refresh_stat_data(vault)
    tag = f"{os.getpid()}-{int(time.time())}"
    vaults = {"old": args.old_vault or args.vault, "new": args.vault}
    daemons: dict[str, subprocess.Popen] = {}
    logs: dict[str, Path] = {}
    try:
        if args.daemon:
            for name, vault in vaults.items():
                if vault not in [vaults[n] for n in daemons]:
                    code = codes[name] if args.old_vault else codes["new"]
                    logs[name] = Path(tempfile.gettempdir()) / f"bench-oneshot-{tag}-{name}.daemon.log"
                    daemons[name] = start_daemon(code, vault, env, logs[name])
        readers = {name: start_reader(code, vaults[name], env) for name, code in codes.items()} \
            if args.daemon and args.reads else {}
        run(args, codes, vaults, env, tag, {n: daemons.get(n) or daemons.get("new") for n in codes} if daemons else {})
        for name, reader in readers.items():
            reader.send_signal(signal.SIGTERM)
            lat = sorted(json.loads(reader.communicate(timeout=60)[0] or "[]"))
            if lat:
                print(f"    reads {name}: {len(lat)} recalls of its daemon meanwhile, p50 {statistics.median(lat):.0f} ms, "
                      f"p95 {lat[int(0.95 * (len(lat) - 1))]:.0f}, max {lat[-1]:.0f}", flush=True)
    finally:
        for name, daemon in daemons.items():
            daemon.terminate()
            if daemon.wait(timeout=60) in (0, -signal.SIGTERM):
                logs[name].unlink(missing_ok=True)  # a daemon that ended as asked leaves nothing behind
            else:
                print(f"    the {name} daemon exited with {daemon.returncode}: its log is {logs[name]}", flush=True)
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()), "(daemon running)" if args.daemon else "")


def refresh_stat_data(vault: Path) -> None:
    """Bring the file times git's index records up to date (``git update-index --refresh``,
    what a person's own ``git status`` does in passing). A ``cp -a`` copy has new inodes and
    change times: every ``git status`` in it then re-reads and hashes every memory file, and
    vault-mem's (``GIT_OPTIONAL_LOCKS=0``, which never writes the index) does so at every write:
    at 10k the copy's writes cost ~45 ms of CPU more than the original's (perf29), which made
    an ``--old-vault`` comparison one of two different vaults."""
    subprocess.run(["git", "update-index", "-q", "--refresh"], cwd=vault, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def start_daemon(code: Path, root: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
    """``python -m vault_mem daemon ROOT`` of ``code``'s vault_mem in the commands' environment
    ``env``, once it answers on its socket; stop it with SIGTERM. Its stderr goes to ``log``."""
    err = open(log, "wb")  # noqa: SIM115 - kept open for the daemon's life
    full = {**env, "PYTHONPATH": str(code)}
    proc = subprocess.Popen([sys.executable, "-m", "vault_mem", "daemon", str(root)], stdout=subprocess.DEVNULL,
                            stderr=err, cwd="/", env=full)
    ask = [sys.executable, "-c", "import sys; from vault_mem.store import daemon_socket as p; "
           "sys.exit(p.ask(__import__('pathlib').Path(sys.argv[1]), 'list', {'type': 'decision'}) is None)", str(root)]
    deadline = time.monotonic() + 900
    while subprocess.run(ask, env=full, capture_output=True, check=False).returncode != 0:
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the daemon did not start: see {log}")
        time.sleep(0.5)
    return proc


READER = r"""
import json, signal, sys, time
from pathlib import Path
from vault_mem.store import daemon_socket as protocol
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
root, out = Path(sys.argv[1]), []
while not stop:
    t = time.perf_counter()
    answered = protocol.ask(root, "recall", {"query": "release train freeze"})
    if answered is not None and not stop:
        out.append((time.perf_counter() - t) * 1000)
    time.sleep(0.05)
print(json.dumps(out))
"""


def start_reader(code: Path, root: Path, env: dict[str, str]) -> subprocess.Popen:
    """A process of ``code``'s vault_mem asking the daemon of ``root`` for a recall every 50 ms
    until SIGTERM, then printing the latencies (ms) of those it answered as JSON."""
    return subprocess.Popen([sys.executable, "-c", READER, str(root)], env={**env, "PYTHONPATH": str(code)},
                            stdout=subprocess.PIPE, text=True, cwd="/")


def daemon_cpu(proc: subprocess.Popen | None) -> float:
    """CPU ms of the daemon ``proc`` and the processes it waited for, so far (0 without one)."""
    if proc is None:
        return 0.0
    fields = Path(f"/proc/{proc.pid}/stat").read_text().rpartition(")")[2].split()
    return sum(int(x) for x in fields[11:15]) * 1000 / os.sysconf("SC_CLK_TCK")


def run(args: argparse.Namespace, codes: dict[str, Path], vaults: dict[str, Path], env: dict[str, str],
        tag: str, daemons: dict[str, subprocess.Popen]) -> None:
    shared = len(set(daemons.values())) < len(daemons)  # one daemon for both: its time is not told apart
    for kind in args.kinds.split(","):
        cpu: dict[str, list[float]] = {k: [] for k in codes}
        wall: dict[str, list[float]] = {k: [] for k in codes}
        spent: dict[str, float] = {k: 0.0 for k in codes}
        for i in range(args.rounds + 1):
            for name, code in codes.items():
                argv = (["remember", f"oneshot-{name}-{tag}-{i}", "--description",
                         f"Nadia moved the {name} review to room {tag} {i}", "--body", f"round {i}"]
                        if kind == "remember" else ["list", "--type", "decision"] if kind == "list"
                        else ["recall", f"release train freeze {i}"])
                if i == 1:
                    spent[name] -= daemon_cpu(daemons.get(name))
                c, w = one(code, vaults[name], argv, env)
                if i:
                    cpu[name].append(c)
                    wall[name].append(w)
        time.sleep(1.0)  # the daemons' work for the last commands (their watchers' batches)
        for name in codes:
            spent[name] += daemon_cpu(daemons.get(name))
        for name in codes:
            c = sorted(cpu[name])
            extra = "" if not daemons or shared else f", daemon {spent[name] / len(c):4.0f} ms CPU per command"
            w = sorted(wall[name])
            print(f"{kind:>8} {name}: CPU p50 {statistics.median(c):5.0f} ms p95 {_p95(c):5.0f} ({c[0]:.0f}-{c[-1]:.0f}), "
                  f"wall p50 {statistics.median(w):5.0f} ms p95 {_p95(w):5.0f}{extra}  [{codes[name]}]", flush=True)


def _p95(xs: list[float]) -> float:
    """The 95th percentile of the sorted ``xs`` (nearest rank)."""
    return xs[min(len(xs) - 1, max(0, -(-95 * len(xs) // 100) - 1))]


if __name__ == "__main__":
    main()
