"""The git processes each everyday vault-mem command starts, counted per command (issues 28
and 29: a vault-mem command started several git processes on every vault open, each ~1-3 ms of
CPU plus its exec), with each command's one-shot wall and CPU time.

    python bench/bench_git_calls.py --base /dev/shm/gitcalls                 # 1k memories
    python bench/bench_git_calls.py --base B --sizes 1000,10000 --rounds 7
    python bench/bench_git_calls.py --base B --argv                          # every git argv too
    python bench/bench_git_calls.py --base B --old /path/to/old/checkout     # the same, side by side

For each size, a vault of ``corpus.packed_vault`` at ``BASE/vm-N`` (built once, kept for the next
run) with a bare remote (``BASE/vm-N.remote``, its branch the upstream) and vault-mem's git hooks
installed. Each command runs once under ``strace -f -e trace=execve`` (Linux) and every
successful ``execve`` is counted by kind (bench_suite_procs.kind: ``git SUBCOMMAND``, ``vault-mem
hook``, ``sh``...): git's own children (a ``git gc --auto`` started by ``git commit``, the hooks
a person's ``git commit`` runs) included. Then each runs ``--rounds`` times without strace for
its wall time and the CPU of it and every process it waited for (``RUSAGE_CHILDREN``), p50 of
the rounds after the first. The commands, as a person or agent runs them, keyword-only
(``VAULT_MEM_EMBEDDER=none``) and without a daemon (``VAULT_MEM_DAEMON=off``):

``API remember (warm process)`` (a Python that opens the vault and writes once, then the
counted write: only the processes between two marks it runs, ``true MARK``, are counted; its
wall and CPU are the whole script's), ``remember`` (a new key each time, a text unlike the others), ``recall``, ``recall`` after a
``remember`` (outside the count: the sidecar's authors then come up to the new HEAD), ``recall``
after a person's ``git commit --no-verify`` of a memory edit (outside the count: the open then
checks the commit's tree, HEAD's vault.toml and what HEAD holds unapproved), ``get``, ``list``, ``log``, ``forget`` (of a key
remembered just before, outside the count), ``sync`` with nothing to do, ``sync`` taking a peer's commit (outside the count: a sync pushes
this vault's commits, then a plain clone of the remote beside the vault, ``BASE/vm-N.peer``,
commits one new memory file and pushes it), ``doctor``, a person's
``git commit`` of a memory edit (pre-commit + post-commit hooks), ``git checkout`` of another
branch and back (post-checkout, twice), ``git pull`` with nothing new (post-merge),
the prompt hook (``vault-mem hook user-prompt-submit``), an MCP server's start + one ``recall``
(``vault-mem mcp``, stdin closed after the answer), and a vault opened and closed through the API
in a new Python (``Vault(root)``; the Python's own start-up counted in its wall/CPU).

``--old``: a checkout of the code to compare with (``git archive main | tar -x -C OLD``); its
commands run on a ``cp -a`` copy of the vault (``BASE/vm-N-old``) with its ``vault_mem`` first
on ``PYTHONPATH``, each command's rounds alternating with this checkout's; both checkouts are
byte-compiled first. Each vault's git hooks are its checkout's own (``hooks install`` run
again in each at every start, in the vault's folder), so the git-command rows compare the hooks'
shell and Python both. Prints per command
and checkout: git processes, every process started, wall p50, CPU p50; the git kinds; the load
average at the start and end. Asserts nothing.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CODE = HERE.parent
sys.path.insert(0, str(HERE))

import bench_suite_procs  # noqa: E402


_WORDS = ("amber basalt cobalt dune ember fjord glacier harbor iris jasper kelp lagoon marble nectar "
          "onyx prairie quartz reef sierra tundra umber valley willow xenon yarrow zephyr anchor beacon "
          "canyon delta estuary falcon grove heron inlet juniper kestrel lantern meadow nimbus orchid "
          "pebble quiver raven summit thistle").split()


#: the marks a command's own script runs (``true MARK``) around the part of it that is counted
MARK_START, MARK_END = "bench-git-calls-count-from-here", "bench-git-calls-count-to-here"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


class Runner:
    """Runs one checkout's commands in one vault."""

    def __init__(self, code: Path, vault: Path, label: str) -> None:
        self.code, self.vault, self.label = code, vault, label
        self.env = {**os.environ, "VAULT_MEM_EMBEDDER": "none", "VAULT_MEM_DAEMON": "off",
                    "PYTHONPATH": str(code), "VAULT_MEM_AGENT": "bench",
                    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
                    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
        self.n = 0
        self.rng = random.Random(28)  # the same texts for both checkouts

    def vm(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "vault_mem", "--vault", str(self.vault), *args]

    def key(self) -> str:
        self.n += 1
        return f"bench-calls-{self.label}-{os.getpid()}-{self.n}-{time.time_ns() % 10**9}"

    def words(self) -> str:
        """A text unlike the vault's others (no near duplicate to warn about: the common write)."""
        return " ".join(self.rng.sample(_WORDS, 7))

    def commands(self) -> dict[str, tuple]:
        """name -> (set-up callable or None, argv callable, stdin bytes or None)."""
        mcp_in = b"\n".join(json.dumps(m).encode() for m in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "recall", "arguments": {"query": "editor settings"}}},
        )) + b"\n"
        prompt = json.dumps({"prompt": "how do I configure the editor?", "cwd": str(self.vault),
                             "session_id": "bench", "hook_event_name": "UserPromptSubmit"}).encode()
        api = ("import sys; from vault_mem.vault.core import Vault\n"
               "with Vault(sys.argv[1]) as v: pass\n")
        forget_key: list[str] = []

        def before_forget() -> None:
            k = self.key()
            self.run(self.vm("remember", k, "--type", "fact", "--description", "to forget", "--body", "x"))
            forget_key[:] = [k]

        def before_commit() -> None:
            first = sorted((self.vault / "facts").glob("*.md"))[0]
            with first.open("a") as f:
                f.write(f"\nedited {time.time_ns()}\n")

        git = shutil.which("git") or "git"
        # a warm process: the vault opened and one write made before the counted one, the count
        # between two marks (``true`` run with MARK_START / MARK_END: traced() counts between them)
        api_write = ("import subprocess, sys; from vault_mem.vault.core import Vault\n"
                     "with Vault(sys.argv[1]) as v:\n"
                     "    v.remember(sys.argv[2] + '-warm', sys.argv[3], sys.argv[3])\n"
                     f"    subprocess.run(['true', '{MARK_START}'])\n"
                     "    v.remember(sys.argv[2], sys.argv[4], sys.argv[4])\n"
                     f"    subprocess.run(['true', '{MARK_END}'])\n")

        def before_peer_sync() -> None:
            """Everything of this vault's pushed (outside the count), then a peer's clone of the
            remote commits one new memory and pushes it: the counted sync takes that commit."""
            self.run(self.vm("sync"))
            peer = self.peer()
            subprocess.run([git, "-C", str(peer), "fetch", "-q", "origin"], check=True, env=self.env)
            subprocess.run([git, "-C", str(peer), "reset", "-q", "--hard", "origin/main"], check=True, env=self.env)
            key = self.key()
            (peer / "facts" / f"{key}.md").write_text(
                f"---\ndescription: {self.words()}\ncreated: 2026-12-06T08:00:00Z\n---\n{self.words()}\n")
            subprocess.run([git, "-C", str(peer), "add", "-A"], check=True, env=self.env)
            subprocess.run([git, "-C", str(peer), "commit", "-q", "--no-verify", "-m", "a peer's memory"],
                           check=True, env=self.env)
            subprocess.run([git, "-C", str(peer), "push", "-q", "origin", "HEAD:main"], check=True, env=self.env)

        return {
            "API remember (warm process)": (None, lambda: [sys.executable, "-c", api_write, str(self.vault), self.key(),
                                                           self.words(), self.words()], None),
            "remember": (None, lambda: self.vm("remember", self.key(), "--type", "fact",
                                               "--description", self.words(), "--body", self.words()), None),
            "recall": (None, lambda: self.vm("recall", "editor settings"), None),
            "recall after a remember": (lambda: self.run(self.vm("remember", self.key(), "--type", "fact", "--description",
                                                                 self.words(), "--body", self.words())),
                                        lambda: self.vm("recall", "editor settings"), None),
            "recall after a person's commit": (lambda: (before_commit(), subprocess.run(
                [git, "-C", str(self.vault), "commit", "-q", "-a", "--no-verify", "-m", "a person's edit"],
                check=True, env=self.env)), lambda: self.vm("recall", "editor settings"), None),
            "get": (None, lambda: self.vm("get", sorted((self.vault / "facts").glob("*.md"))[1].stem), None),
            "list": (None, lambda: self.vm("list"), None),
            "log": (None, lambda: self.vm("log"), None),
            "forget": (before_forget, lambda: self.vm("forget", forget_key[0]), None),
            "sync (nothing to do)": (None, lambda: self.vm("sync"), None),
            "sync (a peer's commit)": (before_peer_sync, lambda: self.vm("sync"), None),
            "doctor": (None, lambda: self.vm("doctor"), None),
            "git commit (pre+post-commit)": (before_commit, lambda: [git, "-C", str(self.vault), "commit", "-q", "-a",
                                                                    "-m", "a person's edit"], None),
            "git checkout x2 (post-checkout)": (None, lambda: ["sh", "-c", f'cd "{self.vault}" && git checkout -q -B other '
                                                          f'&& git checkout -q main'], None),
            "git pull, nothing new (post-merge)": (None, lambda: [git, "-C", str(self.vault), "pull", "-q", "--no-rebase"], None),
            "prompt hook": (None, lambda: self.vm("hook", "user-prompt-submit"), prompt),
            "mcp start + recall": (None, lambda: self.vm("mcp"), mcp_in),
            "API open+close": (None, lambda: [sys.executable, "-c", api, str(self.vault)], None),
        }

    def peer(self) -> Path:
        """A plain git clone of this vault's remote beside it (made once): the peer of a sync."""
        peer = self.vault.with_name(self.vault.name + ".peer")
        if not (peer / ".git").exists():
            remote = subprocess.run(["git", "-C", str(self.vault), "remote", "get-url", "origin"], check=True,
                                    capture_output=True, text=True).stdout.strip()
            shutil.rmtree(peer, ignore_errors=True)
            subprocess.run(["git", "clone", "-q", remote, str(peer)], check=True)
        return peer

    def run(self, argv: list[str], stdin: bytes | None = None, trace: Path | None = None) -> tuple[float, float]:
        """Wall and CPU (ms) of ``argv`` and every process it waited for."""
        if trace is not None:
            argv = ["strace", "-f", "--seccomp-bpf", "-qq", "-e", "trace=execve", "-e", "signal=none",
                    "-s", "300", "-o", str(trace), *argv]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        done = subprocess.run(argv, input=stdin if stdin is not None else b"", cwd=self.vault, env=self.env,
                              capture_output=True, timeout=600)
        wall = (time.perf_counter() - t) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            print(f"  ! {argv[-3:]} exit {done.returncode}: {done.stderr.decode(errors='replace')[-400:]}", file=sys.stderr)
        cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
        return wall, cpu


def traced(runner: Runner, name: str, spec: tuple, tmp: Path) -> tuple[collections.Counter, list[list[str]]]:
    setup, argv, stdin = spec
    if setup:
        setup()
    trace = tmp / "trace"
    runner.run(argv(), stdin, trace=trace)
    kinds: collections.Counter = collections.Counter()
    gits: list[list[str]] = []
    marked = MARK_START in trace.read_text(errors="replace")
    counting = not marked
    with trace.open(errors="replace") as f:
        for line in f:
            m = bench_suite_procs._EXEC.match(line)
            if not m or " = -1 " in line:
                continue
            args = [a.encode().decode("unicode_escape", "replace") for a in bench_suite_procs._ARG.findall(m.group(2))]
            if marked and args[1:2] in ([MARK_START], [MARK_END]):
                counting = args[1] == MARK_START
                continue
            if not counting:
                continue
            kinds[bench_suite_procs.kind(m.group(1), args)] += 1
            if m.group(1).rsplit("/", 1)[-1] == "git":
                gits.append(args)
    trace.unlink()
    return kinds, gits


def prepare(base: Path, n: int) -> Path:
    import corpus

    vault = base / f"vm-{n}"
    if not (vault / "vault.toml").exists():
        print(f"building {vault} ({n} memories)", flush=True)
        corpus.packed_vault(vault, n)
        remote = base / f"vm-{n}.remote"
        shutil.rmtree(remote, ignore_errors=True)
        subprocess.run(["git", "clone", "-q", "--bare", str(vault), str(remote)], check=True)
        corpus.git(vault, "remote", "add", "origin", str(remote))
        corpus.git(vault, "fetch", "-q", "origin")
        corpus.git(vault, "branch", "-q", "--set-upstream-to", "origin/main")
        corpus.git(vault, "branch", "-q", "other")
    install_hooks(vault, CODE)
    return vault


def install_hooks(vault: Path, code: Path) -> None:
    """``vault-mem hooks install`` of checkout ``code`` in ``vault``, run in the vault's folder:
    ``python -m`` puts its working folder first on sys.path, ahead of PYTHONPATH, so run from
    this checkout it installed this checkout's hooks in the old twin too."""
    subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(vault), "hooks", "install"], check=True,
                   cwd=vault, env={**os.environ, "PYTHONPATH": str(code)}, capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", type=Path, required=True, help="where the vaults are built and kept")
    ap.add_argument("--sizes", default="1000")
    ap.add_argument("--rounds", type=int, default=5, help="timed runs per command (the first not counted)")
    ap.add_argument("--old", type=Path, help="a checkout to compare with")
    ap.add_argument("--argv", action="store_true", help="print every git command line")
    ap.add_argument("--only", help="comma-separated command names (prefixes) to run")
    args = ap.parse_args()
    if not shutil.which("strace"):
        raise SystemExit("bench_git_calls: needs strace")
    args.base.mkdir(parents=True, exist_ok=True)
    # both checkouts byte-compiled alike (PYTHONDONTWRITEBYTECODE would leave one compiling its
    # modules in every command)
    for code in (CODE, *([args.old] if args.old else [])):
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(code / "vault_mem")], check=True)
    print(f"load at start: {load()} ({os.cpu_count()} CPUs)", flush=True)
    for n in (int(x) for x in args.sizes.split(",")):
        vault = prepare(args.base, n)
        install_hooks(vault, CODE)  # this checkout's hooks (a vault kept from a run of other code)
        runners = [Runner(CODE, vault, "new")]
        if args.old:
            twin = args.base / f"vm-{n}-old"
            shutil.rmtree(twin, ignore_errors=True)
            subprocess.run(["cp", "-a", str(vault), str(twin)], check=True)
            # the twin's remote is its own copy, so that the two syncs see the same
            remote = args.base / f"vm-{n}-old.remote"
            shutil.rmtree(remote, ignore_errors=True)
            subprocess.run(["cp", "-a", str(args.base / f"vm-{n}.remote"), str(remote)], check=True)
            subprocess.run(["git", "-C", str(twin), "remote", "set-url", "origin", str(remote)], check=True)
            install_hooks(twin, args.old)
            runners.insert(0, Runner(args.old, twin, "old"))
        print(f"== {n} memories; load {load()}", flush=True)
        with tempfile.TemporaryDirectory(prefix="git-calls-") as tmp:
            specs = {r.label: r.commands() for r in runners}
            names = list(specs["new"])
            if args.only:
                wanted = [w.strip() for w in args.only.split(",")]
                names = [x for x in names if any(x.startswith(w) for w in wanted)]
            for name in names:
                times: dict[str, tuple[list[float], list[float]]] = {r.label: ([], []) for r in runners}
                for i in range(args.rounds):
                    for r in runners:
                        setup, argv, stdin = specs[r.label][name]
                        if setup:
                            setup()
                        wall, cpu = r.run(argv(), stdin)
                        if i or args.rounds == 1:
                            times[r.label][0].append(wall)
                            times[r.label][1].append(cpu)
                for r in runners:
                    kinds, gits = traced(r, name, specs[r.label][name], Path(tmp))
                    git_kinds = {k: v for k, v in kinds.items() if k.startswith("git")}
                    walls, cpus = times[r.label]
                    print(f"{name:36s} {r.label:3s}  git {sum(git_kinds.values()):3d}  all {sum(kinds.values()):3d}  "
                          f"wall p50 {statistics.median(walls):7.1f} ms  cpu p50 {statistics.median(cpus):7.1f} ms  "
                          f"| {', '.join(f'{k[4:]} {v}' for k, v in sorted(git_kinds.items(), key=lambda kv: -kv[1]))}",
                          flush=True)
                    if args.argv:
                        for g in gits:
                            print("      " + " ".join(g[1:])[:200])
    print(f"load at end: {load()}")


if __name__ == "__main__":
    main()
