"""The processes the test suite starts, counted by kind: which programs (git and its sub-command,
vault-mem's CLI and its hooks, daemons, MCP servers, the agent CLIs, find, sh...) the tests'
CPU goes to, so that the suite's budget (~4 minutes wall on 2 cores, issue 28) is spent where
a process is the point of a test.

    python bench/bench_suite_procs.py tests/test_sync.py tests/test_gitstore.py
    python bench/bench_suite_procs.py --top 60 tests/test_reliability_gc.py -- -n 0
    python bench/bench_suite_procs.py --trace /tmp/trace.out      # count an existing trace again

Runs ``python -m pytest`` (this checkout) under ``strace -f --seccomp-bpf -e trace=execve`` (Linux,
strace 5.3+; only the execve calls stop the processes, so the run costs little more than without
it) and counts each successful ``execve`` by kind: ``git SUBCOMMAND`` (after git's own ``-c``/
``-C`` options), ``vault-mem COMMAND`` for the CLI run as ``python -m vault_mem`` or as the
``vault-mem`` script, ``vault-mem hook`` for the git hooks' Pythons (``python -E -P -c``), the hook
scripts themselves (``post-commit``...), ``node``/``claude``/``codex``/``gemini``, else the
program's name. A failed ``execve`` (``ENOENT``: a search along PATH) is not counted. Prints the
counts, most first, and the total. Counts, not CPU: bench/bench_suite_cpu.py gives the CPU per
file and per test; a git plumbing process costs ~1-2 ms, a vault-mem CLI or hook process
~55-120 ms (measured in docs/benchmarks.md). Asserts nothing.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from suite_args import split_pytest_args  # bench/ is on sys.path when run as a script

ROOT = Path(__file__).resolve().parent.parent
_EXEC = re.compile(r'^\d+\s+execve\("([^"]*)", \[(.*?)\](?:, 0x[0-9a-f]+| /\*)')
_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')
_GIT_OPTIONS_WITH_VALUE = {"-c", "-C", "--git-dir", "--work-tree", "--namespace"}


def kind(program: str, argv: list[str]) -> str:
    """The kind of one started process, from its program and arguments."""
    name = program.rsplit("/", 1)[-1]
    if name == "git":
        i = 1
        while i < len(argv) and argv[i].startswith("-"):
            i += 2 if argv[i] in _GIT_OPTIONS_WITH_VALUE else 1
        return f"git {argv[i]}" if i < len(argv) else "git"
    if name.startswith("python"):
        if argv[1:3] == ["-m", "vault_mem"] or (len(argv) > 3 and argv[1:4] == ["-P", "-m", "vault_mem"]):
            return "vault-mem " + _command(argv[argv.index("vault_mem") + 1:])
        if argv[1:3] == ["-E", "-P"]:
            return "vault-mem hook (git hook's Python)"
        if "pytest" in argv[1:4] or any("xdist" in a or "execnet" in a or "exec(eval(" in a for a in argv[1:4]):
            return "python (pytest and its workers)"
        return "python (other)"
    if name == "vault-mem":
        return "vault-mem " + _command(argv[1:])
    return name


def _command(args: list[str]) -> str:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("--vault",) else 1
    return args[i] if i < len(args) else "?"


def count(trace: Path) -> collections.Counter:
    kinds: collections.Counter = collections.Counter()
    with trace.open(errors="replace") as f:
        for line in f:
            m = _EXEC.match(line)
            if not m or line.rstrip().endswith(")") and " = -1 " in line:
                continue
            argv = [a.encode().decode("unicode_escape", "replace") for a in _ARG.findall(m.group(2))]
            kinds[kind(m.group(1), argv)] += 1
    return kinds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s [options] [test files] [-- pytest options]")
    parser.add_argument("--top", type=int, default=40, help="print this many kinds (default 40)")
    parser.add_argument("--trace", type=Path, help="count this strace output instead of running pytest")
    own, pytest_args = split_pytest_args(sys.argv[1:])
    args, tests = parser.parse_known_args(own)
    if args.trace:
        kinds = count(args.trace)
    else:
        if not shutil.which("strace"):
            print("bench_suite_procs: needs strace", file=sys.stderr)
            return 1
        with tempfile.TemporaryDirectory(prefix="suite-procs-") as out:
            trace = Path(out) / "trace"
            argv = ["strace", "-f", "--seccomp-bpf", "-qq", "-e", "trace=execve", "-e", "signal=none",
                    "-s", "300", "-o", str(trace), sys.executable, "-m", "pytest", "-q",
                    "-p", "no:cacheprovider", *pytest_args, *tests]
            done = subprocess.run(argv, cwd=ROOT, env=dict(os.environ), capture_output=True, text=True)
            tail = (done.stdout.strip().splitlines() or [""])[-1]
            print(f"pytest exit {done.returncode} ({tail})")
            kinds = count(trace)
    for name, n in kinds.most_common(args.top):
        print(f"{n:8d}  {name}")
    print(f"{sum(kinds.values()):8d}  processes started in all ({len(kinds)} kinds)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
