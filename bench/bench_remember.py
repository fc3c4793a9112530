"""How long one `remember` takes (new key, commit and INDEX.md included) next to
`git add <file> && git commit` on the same vault, at several vault sizes.

    python bench/bench_remember.py                 # N = 1k, 10k, 50k; 15 writes each
    python bench/bench_remember.py --sizes 10000 --writes 30 --embedder local

The vault is filled with one bulk-import commit (the same code path `eval` uses), then timed
writes go through the public `Vault.remember`. Prints the medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vault_mem import Memory, Vault


def fill(vault: Vault, n: int) -> None:
    import datetime as dt

    today = dt.date.today()
    batch = []
    for i in range(n):
        batch.append(Memory(key=f"bulk-{i:06d}", type="fact", meta={
            "description": f"Bulk memory number {i} about topic {i % 97}", "created": today,
            "updated": today, "source": "imported"}, body=f"Body text {i}.\n"))
    vault.import_memories(batch, message=f"import: {n} memories")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--writes", type=int, default=15)
    ap.add_argument("--embedder", default="none", help="none (default) or local")
    args = ap.parse_args()
    os.environ["VAULT_MEM_EMBEDDER"] = args.embedder
    for env, val in (("GIT_AUTHOR_NAME", "bench"), ("GIT_AUTHOR_EMAIL", "b@example.com"),
                     ("GIT_COMMITTER_NAME", "bench"), ("GIT_COMMITTER_EMAIL", "b@example.com")):
        os.environ.setdefault(env, val)
    print(f"embedder={args.embedder} writes={args.writes} (median ms)")
    print(f"{'N':>7} {'remember':>10} {'git add+commit':>15} {'ratio':>6} {'fill s':>7}")
    for n in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory() as tmp:
            vault = Vault.init(Path(tmp) / "v")
            t0 = time.perf_counter()
            fill(vault, n)
            fill_s = time.perf_counter() - t0
            times = []
            for i in range(args.writes):
                t = time.perf_counter()
                vault.remember(f"new-{i}", f"A new memory {i} written by the benchmark", f"body {i}")
                times.append((time.perf_counter() - t) * 1000)
            git_times = []
            for i in range(args.writes):
                p = vault.root / "facts" / f"plain-{i}.md"
                p.write_text(f"---\ndescription: plain {i}\n---\nbody\n")
                t = time.perf_counter()
                git(vault.root, "add", str(p.relative_to(vault.root)))
                # --no-verify: the vault's own pre-commit hook is not part of git's cost
                git(vault.root, "commit", "-q", "--no-verify", "-m", f"plain {i}")
                git_times.append((time.perf_counter() - t) * 1000)
            r, g = statistics.median(times), statistics.median(git_times)
            print(f"{n:>7} {r:>10.1f} {g:>15.1f} {r / g:>6.2f} {fill_s:>7.1f}", flush=True)
            vault.close()


if __name__ == "__main__":
    main()
