"""What opening a vault costs a command, with the fresh-clone tree check (DESIGN §7).

    python bench/bench_open.py [--n 20000] [--runs 15]

Builds a vault of N memory files in one commit (files written directly, one `git commit`), then
times `Workspace(root)` (what every command opens): with HEAD unchanged since the last check,
after one new commit (the check reads only the changed paths), and the first full check (the
signed record of the last checked HEAD removed, as in a fresh clone). Prints medians in ms and
the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp(prefix="vm-bench-cfg-"))

from corpus import load_line  # bench/ is on sys.path when run as a script

from vault_mem.store.workspace import HEAD_CHECKED, Workspace
from vault_mem.vault.core import Vault


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _open_ms(root: Path) -> float:
    t = time.perf_counter()
    Workspace(root).repo.close()
    return (time.perf_counter() - t) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="vm-bench-open-")) / "v"
    Vault.init(root).close()
    for i in range(args.n):
        (root / "facts" / f"f{i:06d}.md").write_text(
            f"---\ndescription: Fact {i} about the build server\ncreated: 2026-01-01\n"
            f"updated: 2026-01-01\n---\nbody {i}\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "bench: memories", "--no-verify")
    full = []
    for _ in range(max(3, args.runs // 5)):
        (root / ".vault-mem" / HEAD_CHECKED).unlink(missing_ok=True)
        full.append(_open_ms(root))
    same = [_open_ms(root) for _ in range(args.runs)]
    after = []
    for i in range(max(3, args.runs // 5)):
        (root / "facts" / f"new{i}.md").write_text(
            f"---\ndescription: New fact {i}\ncreated: 2026-01-01\nupdated: 2026-01-01\n---\n")
        _git(root, "add", "-A")
        _git(root, "commit", "-qm", f"bench: new {i}", "--no-verify")
        after.append(_open_ms(root))
    print(f"{args.n} memory files, {load_line()}")
    print(f"open, HEAD checked before:   {statistics.median(same):8.1f} ms")
    print(f"open after one new commit:   {statistics.median(after):8.1f} ms")
    print(f"open, first full tree check: {statistics.median(full):8.1f} ms")


if __name__ == "__main__":
    main()
