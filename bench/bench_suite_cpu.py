"""The test suite's CPU time, file by file: what each test file costs the machine, its own process
and every process its tests start and wait for (the CLI, git and the hooks git runs, daemons, the
agent CLIs), so that the suite's budget (~4 minutes wall on 2 cores, issue 28) can be kept and
the files that spend it found.

    python bench/bench_suite_cpu.py                          # the whole suite, as CI runs it
    python bench/bench_suite_cpu.py tests/test_sync.py tests/test_cli.py -- -n 0
    python bench/bench_suite_cpu.py --against /tmp/main-copy --rounds 3 tests/test_hooks.py -- -n 0
    python bench/bench_suite_cpu.py --tests 40 tests/test_reliability_gc.py tests/test_sync.py

Runs ``python -m pytest`` in a checkout (this one, or ``--tree DIR``) with ``PYTHONPATH`` set to
that checkout, with this file loaded into pytest as a plugin: around each test (its set-up, call
and tear-down, a module fixture's tear-down with the file's last test) it reads
``getrusage(RUSAGE_SELF)`` and ``getrusage(RUSAGE_CHILDREN)`` in the process that runs the test
(an xdist worker, or pytest itself with ``-n 0``) and adds the difference to the test's file.
Prints, per file, the CPU seconds of the process itself and of its children, the wall seconds and
the number of tests, the largest first; then the whole run: the CPU of pytest and every process
below it that was waited for (the workers' collection and start-up included), from this script's
own ``RUSAGE_CHILDREN``, its wall time, and the load average before and after; and the packing:
when each worker ran out of files, and the files that ended last (when they started, on which
worker). ``--tests N``: also
the N tests that cost the most CPU, each with its own and its children's (set-up and tear-down
included), to find the test that spends a file's time. bench/bench_suite_procs.py counts the
processes the tests start, by kind.

``--against DIR`` runs a second checkout (a ``git archive`` copy of main, say) in turns with this
one, ``--rounds`` times each, the order swapped every round so that the machine's load weighs on
both alike, and prints each file's median CPU for both.

A process that is not waited for (a daemon that forks away from the test) is counted nowhere,
here as under ``/usr/bin/time``. Set ``TMPDIR`` and ``--basetemp`` as ``.ci/run`` does (a RAM
disk) to measure what CI measures. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from suite_args import split_pytest_args  # bench/ is on sys.path: run as a script, or loaded as a plugin

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: the folder the plugin's processes write their figures to (one JSON file per process)
OUT_ENV = "VAULT_MEM_BENCH_SUITE_CPU_OUT"


# -- the plugin: loaded into pytest (and each xdist worker) by ``-p bench_suite_cpu`` -------------

_files: dict[str, list[float]] = {}
#: per test (``--tests N``): node id -> [own, children, wall]
_tests: dict[str, list[float]] = {}
#: per file: [first test's start, last test's end] (``time.time()``), for the run's packing
_spans: dict[str, list[float]] = {}


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, kids.ru_utime + kids.ru_stime


def pytest_configure(config):
    # the tests' own processes must not find this folder on their path (xdist gives its workers
    # the path pytest started with, not the environment's)
    path = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in path if p and Path(p).resolve() != HERE)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    own, kids = _cpu()
    wall = time.perf_counter()
    try:
        return (yield)
    finally:
        own2, kids2 = _cpu()
        row = _files.setdefault(item.path.name, [0.0, 0.0, 0.0, 0])
        row[0] += own2 - own
        row[1] += kids2 - kids
        row[2] += time.perf_counter() - wall
        row[3] += 1
        _tests[item.nodeid] = [own2 - own, kids2 - kids, time.perf_counter() - wall]
        span = _spans.setdefault(item.path.name, [time.time() - (time.perf_counter() - wall), 0.0])
        span[1] = time.time()


def pytest_unconfigure(config):
    out = os.environ.get(OUT_ENV)
    if out and _files:
        Path(out, f"{os.getpid()}.json").write_text(json.dumps(_files))
        Path(out, f"{os.getpid()}.tests").write_text(json.dumps(_tests))
        Path(out, f"{os.getpid()}.spans").write_text(json.dumps(_spans))


# -- the script --------------------------------------------------------------------------------------


def run_suite(tree: Path, tests: list[str], pytest_args: list[str], output: Path | None = None) -> dict:
    """One pytest run in ``tree``: per file [own, children, wall, tests], and the run's totals."""
    with tempfile.TemporaryDirectory(prefix="suite-cpu-") as out:
        env = dict(os.environ)
        env[OUT_ENV] = out
        env["PYTHONPATH"] = os.pathsep.join([str(tree), str(HERE)])
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "bench_suite_cpu",
                *pytest_args, *tests]
        load = os.getloadavg()
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        done = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - wall
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        files: dict[str, list[float]] = {}
        tests_cpu: dict[str, list[float]] = {}
        for part in Path(out).glob("*.tests"):
            tests_cpu.update(json.loads(part.read_text()))
        # per worker (process): each file's [start, end], the earliest start of the run taken as 0
        spans = {part.stem: json.loads(part.read_text()) for part in Path(out).glob("*.spans")}
        for part in Path(out).glob("*.json"):
            for name, row in json.loads(part.read_text()).items():
                into = files.setdefault(name, [0.0, 0.0, 0.0, 0])
                for i, value in enumerate(row):
                    into[i] += value
    if output:
        with output.open("a") as f:
            f.write(f"== {tree} {' '.join(argv[1:])}\n{done.stdout}{done.stderr}\n")
    tail = done.stdout.strip().splitlines()[-1:] or done.stderr.strip().splitlines()[-1:]
    return {"files": files, "tests": tests_cpu, "spans": spans, "exit": done.returncode, "summary": tail[0] if tail else "",
            "user": after.ru_utime - before.ru_utime, "sys": after.ru_stime - before.ru_stime,
            "wall": wall, "load_before": load, "load_after": os.getloadavg()}


def print_run(tree: Path, run: dict, top_tests: int = 0) -> None:
    print(f"{tree}: pytest exit {run['exit']} ({run['summary']})")
    print(f"{'file':<40} {'cpu s':>8} {'own':>7} {'children':>8} {'wall s':>7} {'tests':>5}")
    rows = sorted(run["files"].items(), key=lambda kv: -(kv[1][0] + kv[1][1]))
    for name, (own, kids, wall, n) in rows:
        print(f"{name:<40} {own + kids:8.1f} {own:7.1f} {kids:8.1f} {wall:7.1f} {n:5d}")
    if top_tests:
        print(f"the {top_tests} tests that cost the most CPU (set-up and tear-down included)")
        print(f"{'cpu s':>7} {'own':>6} {'children':>8} {'wall s':>7}  test")
        for nodeid, (own, kids, wall) in sorted(run["tests"].items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:top_tests]:
            print(f"{own + kids:7.1f} {own:6.1f} {kids:8.1f} {wall:7.1f}  {nodeid}")
    print_packing(run.get("spans") or {})
    in_tests = sum(r[0] + r[1] for r in run["files"].values())
    print(f"in tests: {in_tests:.1f} s CPU in {sum(r[3] for r in run['files'].values())} tests")
    print(f"whole run: {run['user'] + run['sys']:.1f} s CPU ({run['user']:.1f} user + {run['sys']:.1f} sys), "
          f"{run['wall']:.1f} s wall; load average {run['load_before'][0]:.2f} before, "
          f"{run['load_after'][0]:.2f} after, on {os.cpu_count()} cores")


def print_packing(spans: dict[str, dict[str, list[float]]], last: int = 6) -> None:
    """How the files were packed on the workers (``--dist loadfile``): when each worker ran out
    of files, and the files that ended last (a long file started late runs alone at the end,
    while the other workers idle: the wall time that ordering, ``LONGEST_FILES`` in
    tests/conftest.py, is there to save)."""
    if not spans:
        return
    zero = min(start for files in spans.values() for start, _ in files.values())
    ends = sorted(max(end for _, end in files.values()) - zero for files in spans.values())
    print(f"packing: {len(ends)} workers ran out of files at " + ", ".join(f"{e:.0f}" for e in ends)
          + f" s; the last {ends[-1] - ends[0]:.0f} s with fewer than {len(ends)} busy")
    rows = sorted(((end - zero, start - zero, name, worker) for worker, files in spans.items()
                   for name, (start, end) in files.items()), reverse=True)[:last]
    for end, start, name, worker in rows:
        print(f"  ended {end:6.0f} s (started {start:6.0f} s, worker {worker}): {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     usage="%(prog)s [options] [test files] [-- pytest options]")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to run (default: this one)")
    parser.add_argument("--against", type=Path, help="a second checkout, run in turns with --tree")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--output", type=Path, help="append pytest's own output (--durations...) to this file")
    parser.add_argument("--json", action="store_true", help="print the runs as JSON as well")
    parser.add_argument("--tests", type=int, default=0, metavar="N",
                        help="also print the N tests that cost the most CPU")
    own, pytest_args = split_pytest_args(sys.argv[1:])
    args, tests = parser.parse_known_args(own)
    trees = [args.tree.resolve()] + ([args.against.resolve()] if args.against else [])
    runs: dict[Path, list[dict]] = {tree: [] for tree in trees}
    for i in range(args.rounds):
        for tree in (trees if i % 2 == 0 else trees[::-1]):
            run = run_suite(tree, tests, pytest_args, args.output)
            runs[tree].append(run)
            print_run(tree, run, args.tests)
            print(flush=True)
    if args.against:
        new, old = trees
        names = sorted({n for tree in trees for run in runs[tree] for n in run["files"]})

        def median(tree: Path, name: str | None) -> float:
            if name is None:
                return statistics.median(r["user"] + r["sys"] for r in runs[tree])
            return statistics.median(sum(r["files"].get(name, [0, 0])[:2]) for r in runs[tree])

        print(f"median CPU s of {args.rounds} rounds each: {old} (old) against {new} (new)")
        print(f"{'file':<40} {'old':>8} {'new':>8} {'cut':>8}")
        for name in sorted(names, key=lambda n: -median(old, n)):
            print(f"{name:<40} {median(old, name):8.1f} {median(new, name):8.1f} "
                  f"{median(old, name) - median(new, name):8.1f}")
        print(f"{'whole run':<40} {median(old, None):8.1f} {median(new, None):8.1f} "
              f"{median(old, None) - median(new, None):8.1f}")
    if args.json:
        print(json.dumps({str(t): r for t, r in runs.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
