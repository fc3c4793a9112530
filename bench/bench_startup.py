"""What starting a vault-mem process costs, entry point by entry point: the CLI commands, the git
hooks, the agent hooks and the MCP server, each as a new process (issues 28 and 29: the suite
starts thousands of them, every person's `git commit` one or two).

    python bench/bench_startup.py                                  # this checkout, 10 rounds
    python bench/bench_startup.py --old /tmp/base --rounds 15      # against another checkout, interleaved
    python bench/bench_startup.py --old /tmp/base --instructions   # + instruction counts (valgrind)
    python bench/bench_startup.py --only pre-commit,post-merge --model

Each entry runs as the git hooks start vault-mem (``python -E -P -c BOOTSTRAP CHECKOUT ARGS``,
:data:`vault_mem.store.hooks.BOOTSTRAP`: the checkout's own folder first on ``sys.path``), so
``--old`` (a ``git archive`` copy of main, say) and this checkout run the same way with one
Python; each checkout gets a vault of its own, made by its own code (a few memories, its hooks
installed, a memory file staged for pre-commit). Per round the entries run in turn, old then
new, so the load weighs on both alike; the first round is not counted (the page cache).

Figures per entry and checkout: the CPU (user + system) of the process and every process it
waited for (git's), from ``getrusage(RUSAGE_CHILDREN)``, p50 and min of the rounds; for ``mcp``
the server's own CPU from its spawn to its answer to ``initialize`` (``/proc/PID/stat``, its
threads included). ``--instructions``: the instructions the entry's own Python executes (one run
under ``valgrind --tool=callgrind``, git's processes not counted), which do not move with the
machine's load the way CPU time does (on a shared machine at load 10-25, CPU p50s of two runs of
the same code differ by 10-20%; instruction counts by <0.5%). And the modules: how many the entry
has loaded at its end, and which of the heavy packages (:data:`HEAVY`) among them. Keyword-only
(``VAULT_MEM_EMBEDDER=none``) unless ``--model`` (then ``recall`` also runs with the bundled
model as ``recall-model``). No daemon. Asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus import load_line  # bench/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent
#: what hooks/git/hook.in runs (vault_mem.store.hooks.BOOTSTRAP): the checkout's folder is argv[1]
BOOTSTRAP = ("import sys; d = sys.argv.pop(1); d and d not in sys.path and sys.path.insert(0, d); "
             "from vault_mem.adapters.cli import main; sys.exit(main())")
#: the same, printing the modules loaded at the end (on stderr, after the command's own output)
MODULES = ("import sys, atexit, json; d = sys.argv.pop(1); d and d not in sys.path and sys.path.insert(0, d); "
           "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)) + '\\n')); "
           "from vault_mem.adapters.cli import main; sys.exit(main())")
#: the packages a light entry point should not load (tests/test_startup_imports.py pins them)
HEAVY = ("numpy", "onnxruntime", "tokenizers", "sqlite_vec", "mcp", "httpx", "watchdog", "git", "yaml", "argparse")

ENTRIES = ("python", "--version", "remember", "recall", "get", "list", "pre-commit", "pre-commit-other",
           "post-merge", "post-checkout", "post-rewrite", "session-start", "user-prompt-submit", "stop", "mcp")


def make_vault(code: Path, root: Path, env: dict[str, str]) -> None:
    """A vault of ``code``'s vault-mem at ``root``: init, three memories, a memory file and a plain
    file staged (pre-commit checks them, and commits nothing: the hook alone runs)."""
    def run(*a: str) -> None:
        done = subprocess.run([sys.executable, "-E", "-P", "-c", BOOTSTRAP, str(code), *a], env=env, cwd=root.parent,
                              capture_output=True, text=True)
        if done.returncode:
            raise SystemExit(f"{code}: {' '.join(a)} failed:\n{done.stderr}")
    run("init", str(root))
    for key, text in (("editor", "Uses Helix as the main editor"), ("build-host", "The build host is ares"),
                      ("release-freeze", "Releases freeze on Thursdays")):
        run("--vault", str(root), "remember", key, "--description", text, "--body", text + ".")
    (root / "facts" / "staged.md").write_text("---\ndescription: the staging host is zeus\n---\nzeus.\n")
    subprocess.run(["git", "add", "facts/staged.md"], cwd=root, check=True)


def argv_of(entry: str, vault: Path, i: int, tag: str) -> list[str]:
    v = ["--vault", str(vault)]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=vault, capture_output=True, text=True).stdout.strip()
    return {
        "--version": ["--version"],
        "remember": [*v, "remember", f"startup-{tag}-{i}", "--description", f"Nadia moved review {i} to room {tag}",
                     "--body", f"round {i}"],
        "recall": [*v, "recall", "which editor do I use"],
        "recall-model": [*v, "recall", "which editor do I use"],
        "get": [*v, "get", "editor"],
        "list": [*v, "list"],
        "pre-commit": [*v, "hook", "pre-commit"],
        "pre-commit-other": [*v, "hook", "pre-commit"],
        "post-merge": [*v, "hook", "post-merge", "0"],
        "post-checkout": [*v, "hook", "post-checkout", head, head, "1"],
        "post-rewrite": [*v, "hook", "post-rewrite", "amend"],
        "session-start": [*v, "hook", "session-start"],
        "user-prompt-submit": [*v, "hook", "user-prompt-submit"],
        "stop": [*v, "hook", "stop"],
    }[entry]


def stdin_of(entry: str, vault: Path) -> bytes:
    if entry in ("session-start", "user-prompt-submit", "stop"):
        return json.dumps({"cwd": str(vault), "prompt": "which editor do I use", "session_id": "bench",
                           "hook_event_name": entry}).encode()
    return b""


def env_of(base: dict[str, str], entry: str) -> dict[str, str]:
    return {**base, "VAULT_MEM_EMBEDDER": "local"} if entry == "recall-model" else base


def one(code: Path, vault: Path, entry: str, env: dict[str, str], i: int, tag: str) -> float:
    """CPU ms of one run of ``entry`` of ``code``'s vault-mem on ``vault``."""
    if entry == "python":
        argv = [sys.executable, "-E", "-P", "-c", "pass"]
    elif entry == "mcp":
        return mcp_cpu(code, vault, env)
    else:
        argv = [sys.executable, "-E", "-P", "-c", BOOTSTRAP, str(code), *argv_of(entry, vault, i, tag)]
    with staged_for(entry, vault, i):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(argv, cwd=vault, env=env_of(env, entry), input=stdin_of(entry, vault),
                              capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0,):
        raise SystemExit(f"{code}: {entry} exited {done.returncode}:\n{done.stderr.decode(errors='replace')}")
    return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000


@contextlib.contextmanager
def staged_for(entry: str, vault: Path, i: int):
    """For ``pre-commit-other`` (a commit of a project's file that is no memory), the memory file
    unstaged and moved out of the vault, and a plain file staged, while the entry runs; nothing for
    the others."""
    if entry != "pre-commit-other":
        yield
        return
    subprocess.run(["git", "reset", "-q", "--", "facts/staged.md"], cwd=vault, check=True)
    os.replace(vault / "facts" / "staged.md", vault.parent / "staged.md")  # no memory file changed at all
    (vault / "notes.txt").write_text(f"not a memory {i}\n")
    subprocess.run(["git", "add", "notes.txt"], cwd=vault, check=True)
    try:
        yield
    finally:
        subprocess.run(["git", "reset", "-q", "--", "notes.txt"], cwd=vault, check=True)
        os.replace(vault.parent / "staged.md", vault / "facts" / "staged.md")
        subprocess.run(["git", "add", "facts/staged.md"], cwd=vault, check=True)


def _proc_cpu_ms(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "bench", "version": "0"}}}


def mcp_cpu(code: Path, vault: Path, env: dict[str, str]) -> float:
    """The server's CPU ms from its spawn to its answer to ``initialize``."""
    proc = subprocess.Popen([sys.executable, "-E", "-P", "-c", BOOTSTRAP, str(code), "mcp", str(vault)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            cwd=vault)
    try:
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        line = proc.stdout.readline()
        cpu = _proc_cpu_ms(proc.pid)
        if b'"result"' not in line:
            raise SystemExit(f"{code}: mcp answered {line[:200]!r}")
        return cpu
    finally:
        proc.stdin.close()
        proc.terminate()
        proc.wait(timeout=60)


def modules(code: Path, vault: Path, entry: str, env: dict[str, str]) -> tuple[int, list[str]]:
    """How many modules ``entry`` has loaded at its end, and the :data:`HEAVY` packages among them."""
    if entry in ("python", "mcp"):
        return 0, []
    with staged_for(entry, vault, 0):
        done = subprocess.run([sys.executable, "-E", "-P", "-c", MODULES, str(code), *argv_of(entry, vault, 0, "m")],
                              cwd=vault, env=env_of(env, entry), input=stdin_of(entry, vault), capture_output=True)
    line = [x for x in done.stderr.decode(errors="replace").splitlines() if x.startswith("MODULES ")]
    names = json.loads(line[-1][8:]) if line else []
    return len(names), [h for h in HEAVY if h in {n.split(".")[0] for n in names}]


def instructions(code: Path, vault: Path, entry: str, env: dict[str, str]) -> int | None:
    """Instructions (millions) the entry's own Python executes, under callgrind; None without valgrind."""
    if not shutil.which("valgrind") or entry == "mcp":
        return None
    argv = ([sys.executable, "-E", "-P", "-c", "pass"] if entry == "python"
            else [sys.executable, "-E", "-P", "-c", BOOTSTRAP, str(code), *argv_of(entry, vault, 0, "i" + str(time.time_ns()))])
    with staged_for(entry, vault, 0):
        done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv], cwd=vault,
                              env=env_of(env, entry), input=stdin_of(entry, vault), capture_output=True)
    for line in done.stderr.decode(errors="replace").splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1]) // 1_000_000
    return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", type=Path, help="another checkout (its top folder) to run in turns with this one")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--only", help="comma-separated entries, of: " + ", ".join(ENTRIES))
    ap.add_argument("--model", action="store_true", help="also recall with the bundled model (recall-model)")
    ap.add_argument("--instructions", action="store_true", help="also count instructions under valgrind")
    args = ap.parse_args()
    entries = [e for e in (args.only.split(",") if args.only else ENTRIES)]
    if args.model and "recall-model" not in entries:
        entries.append("recall-model")
    codes = {"new": ROOT} | ({"old": args.old.resolve()} if args.old else {})
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(VAULT_MEM_DAEMON="off", VAULT_MEM_EMBEDDER="none", GIT_AUTHOR_NAME="bench",
               GIT_AUTHOR_EMAIL="bench@example.invalid", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="bench@example.invalid")
    tag = f"{os.getpid()}"
    print(load_line(), flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        env["HOME"] = tmp  # no personal vault, no user config of the person's
        vaults = {}
        for name, code in codes.items():
            vaults[name] = Path(tmp) / name / "vault"
            vaults[name].parent.mkdir()
            make_vault(code, vaults[name], env)
        cpu: dict[tuple[str, str], list[float]] = {(e, n): [] for e in entries for n in codes}
        for i in range(args.rounds + 1):
            for entry in entries:
                for name in (list(codes)[::-1] if i % 2 else list(codes)):
                    ms = one(codes[name], vaults[name], entry, env, i, f"{tag}-{name}")
                    if i:
                        cpu[entry, name].append(ms)
        print(f"{'entry':<20}" + "".join(f"{n + ' CPU p50 (min)':>22}{n + ' mods':>10}" for n in codes)
              + ("".join(f"{n + ' instr':>12}" for n in codes) if args.instructions else "") + "  heavy loaded (new)")
        for entry in entries:
            row, heavy = f"{entry:<20}", []
            for name in codes:
                xs = cpu[entry, name]
                count, loaded = modules(codes[name], vaults[name], entry, env)
                heavy = loaded if name == "new" else heavy
                row += f"{statistics.median(xs):14.1f} ({min(xs):5.1f}){count:10d}"
            if args.instructions:
                for name in codes:
                    n = instructions(codes[name], vaults[name], entry, env)
                    row += f"{(str(n) + 'M') if n is not None else '-':>12}"
            print(row + "  " + (",".join(heavy) or "-"), flush=True)
    print(load_line())


if __name__ == "__main__":
    main()
