"""What a check that no memory file changed costs, by the ways a process without a watcher has:
``git status`` (what a write without a watcher or daemon asks), ``git diff-files`` (tracked files'
stat data alone, no untracked scan), a ``scandir`` + ``lstat`` of every file in Python, and an
``lstat`` of the five type folders (their mtimes: which see a file made, deleted or renamed, but
not an edit in place).

    python bench/bench_no_change_check.py --vault /tmp/growth/vm-growth-100000 --rounds 3

Prints per way the CPU p50 (this process and its git processes) and the wall p50, then the load
average. Asserts nothing.
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
sys.path.insert(0, str(HERE.parent))

from vault_mem.config import TYPE_FOLDERS  # noqa: E402


def _cpu() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    root, folders = args.vault, sorted(TYPE_FOLDERS.values())
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}

    def status() -> None:
        subprocess.run(["git", "-c", "core.quotePath=false", "status", "--porcelain=v1", "-z",
                        "--untracked-files=all", "--no-renames", "--", *folders],
                       cwd=root, env=env, capture_output=True, check=True)

    def diff_files() -> None:
        subprocess.run(["git", "diff-files", "--name-only", "-z", "--", *folders],
                       cwd=root, env=env, capture_output=True, check=True)

    def every_file() -> None:
        for folder in folders:
            with os.scandir(root / folder) as found:
                for entry in found:
                    entry.stat(follow_symlinks=False)

    def folder_mtimes() -> None:
        for folder in folders:
            os.lstat(root / folder)
    ways = {"git status --untracked-files=all": status, "git diff-files": diff_files,
            "scandir + lstat of every file": every_file, "lstat of the type folders": folder_mtimes}
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in ways}
    for _ in range(args.rounds):
        for name, way in ways.items():
            c, t = _cpu(), time.perf_counter()
            way()
            got[name].append(((_cpu() - c) * 1000, (time.perf_counter() - t) * 1000))
    for name, ms in got.items():
        print(f"{name:>34}: CPU p50 {statistics.median(c for c, _ in ms):8.2f} ms, "
              f"wall p50 {statistics.median(w for _, w in ms):8.2f} ms")
    print("load average", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
