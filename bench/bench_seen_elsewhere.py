"""What `store/history.seen_elsewhere` costs a Vault open while a put-back vault.toml waits.

    python bench/bench_seen_elsewhere.py [--commits 100000]

Builds a repository of N commits (fast-import: vault.toml in the first, then one memory file
each), then times seen_elsewhere for vault.toml's blob: the first call (the whole history
walked, the walk kept), the next (nothing new: the kept walk answers), and after one new
commit (only that commit walked). Baseline in the same run: the single `git log --find-object`
the function ran before (mendatk), on the same repository. Prints seconds and the load average.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from vault_mem.store.git import GitRepo
from vault_mem.store.history import memory_pathspecs, seen_elsewhere


def _stream(n: int):
    yield b"blob\nmark :1\ndata 6\nk = 5\n\n"
    for i in range(n):
        body = f"---\ndescription: note {i}\n---\nbody {i}\n".encode()
        yield f"commit refs/heads/main\ncommitter A <a@x> {1700000000 + i} +0000\ndata 2\nc\n".encode()
        if i == 0:
            yield b"M 100644 :1 vault.toml\n"
        yield f"M 100644 inline facts/n{i % 500}.md\ndata {len(body)}\n".encode() + body + b"\n"


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--commits", type=int, default=100000)
    n = ap.parse_args().commits
    root = Path(tempfile.mkdtemp(prefix="vm-bench-seen-"))
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=b"".join(_stream(n)), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=root, check=True)
    repo = GitRepo(root)
    blob = repo.run("rev-parse", "main:vault.toml").strip()
    load = os.getloadavg()
    old = _timed(
        lambda: subprocess.run(
            [
                "git",
                "log",
                "--stdin",
                "--no-renames",
                "--format=%H",
                f"--find-object={blob}",
                "--full-history",
                "--",
                *memory_pathspecs(""),
            ],
            cwd=root,
            input=b"main\n",
            capture_output=True,
            check=True,
        )
    )
    first = _timed(lambda: seen_elsewhere(repo, blob, ""))
    again = _timed(lambda: seen_elsewhere(repo, blob, ""))
    subprocess.run(
        ["git", "commit", "-q", "--allow-empty", "-m", "one more"],
        cwd=root,
        check=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "A",
            "GIT_AUTHOR_EMAIL": "a@x",
            "GIT_COMMITTER_NAME": "A",
            "GIT_COMMITTER_EMAIL": "a@x",
        },
    )
    after = _timed(lambda: seen_elsewhere(repo, blob, ""))
    print(
        f"commits: {n}; load before: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; after: "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(f"baseline (the one git log before mendatk, every open): {old:.2f} s")
    print(f"seen_elsewhere first call (whole history, kept): {first:.2f} s")
    print(f"seen_elsewhere again, nothing new: {again * 1000:.1f} ms")
    print(f"seen_elsewhere after one new commit: {after * 1000:.1f} ms")
    subprocess.run(["rm", "-rf", str(root)], check=True)


if __name__ == "__main__":
    main()
