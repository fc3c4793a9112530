"""bench/suite_args.py: the one place the suite's bench scripts (bench_suite_cpu.py,
bench_suite_procs.py) cut their own arguments from pytest's at ``--``; and both scripts, run as
scripts, pass what follows ``--`` to pytest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _split():
    sys.path.insert(0, str(BENCH))
    try:
        from suite_args import split_pytest_args
    finally:
        sys.path.remove(str(BENCH))
    return split_pytest_args


def test_the_arguments_after_the_first_double_dash_are_pytests():
    split = _split()
    assert split(["--top", "5", "tests/a.py", "--", "-n", "0", "--", "-x"]) == \
        (["--top", "5", "tests/a.py"], ["-n", "0", "--", "-x"])
    assert split(["tests/a.py"]) == (["tests/a.py"], [])
    assert split(["tests/a.py", "--"]) == (["tests/a.py"], [])
    assert split([]) == ([], [])


def test_bench_suite_procs_counts_a_trace_and_leaves_pytests_options_alone(tmp_path):
    """Run as a script (its sibling module imported from bench/): ``--trace`` counts a trace, and
    an option after ``--`` is not read as the script's own (argparse would refuse ``-n``)."""
    trace = tmp_path / "trace"
    trace.write_text('12 execve("/usr/bin/git", ["git", "-C", "x", "ls-files"], 0x7ff /* 3 vars */) = 0\n')
    done = subprocess.run([sys.executable, str(BENCH / "bench_suite_procs.py"), "--trace", str(trace),
                           "--", "-n", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "1  git ls-files" in done.stdout
