"""What telling an index written with ``index.skipHash`` by its content costs
(``store/gitindex.index_file_signature``), beside what the signature keeps from being done again.

    python bench/bench_skiphash_signature.py --entries 100000 --rounds 9

Makes a git repository whose index holds N entries (``git update-index --index-info``, one blob,
paths shaped as a vault's memories: ~14 MB at 100k) and a commit of it, then measures, alternating
in the same run:

- the signature of that index as git wrote it (its 20-byte trailing hash read): the baseline;
- the signature of the same bytes with the trailer zeroed, as ``index.skipHash`` (git 2.40+,
  ``feature.manyFiles``, Scalar) writes it: the content hashed (SHA-1 of all but the trailer);
- ``store/worktree.index_marks`` on it (``git diff-index --cached HEAD`` and ``git ls-files -v``
  and the split of their answers): what ``vault/peers.index_marks_kept`` keeps under the
  signature, i.e. what keeping nothing would cost each time.

Prints CPU p50 (this process and its git processes) and wall p50 of each, then the load
average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path


def cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()

    from vault_mem.store.git import GitRepo
    from vault_mem.store.gitindex import index_file_signature
    from vault_mem.store.worktree import index_marks

    base = Path(tempfile.mkdtemp(prefix="bench_skiphash_"))
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@example.com",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@example.com",
    }
    top = base / "repo"
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    blob = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"], cwd=top, input=b"x\n", check=True, capture_output=True
        )
        .stdout.decode()
        .strip()
    )
    info = "".join(
        f"100644 {blob}\tfacts/folder{i % 100:03d}/a-memory-about-things-number-{i:06d}.md\n"
        for i in range(args.entries)
    )
    subprocess.run(["git", "update-index", "--add", "--index-info"], cwd=top, input=info.encode(), check=True)
    subprocess.run(["git", "commit", "-q", "-m", "n entries"], cwd=top, env=env, check=True)
    hashed = top / ".git" / "index"
    zeroed = base / "zeroed-index"
    data = bytearray(hashed.read_bytes())
    data[-20:] = bytes(20)
    zeroed.write_bytes(bytes(data))
    repo = GitRepo(top)

    cases = {
        "signature, trailing hash (git's default)": lambda: index_file_signature(hashed),
        "signature, index.skipHash (content hashed)": lambda: index_file_signature(zeroed),
        "index_marks: diff-index + ls-files (kept nothing)": lambda: index_marks(repo, "."),
    }
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, fn in cases.items():
            c, w = cpu(), time.perf_counter()
            fn()
            times[name].append((cpu() - c, time.perf_counter() - w))
    print(f"index: {args.entries} entries, {len(data) / 1e6:.1f} MB; {args.rounds} rounds, alternating")
    for name, got in times.items():
        print(
            f"  {name:52s} CPU p50 {statistics.median(c for c, _ in got) * 1000:7.1f} ms"
            f"   wall p50 {statistics.median(w for _, w in got) * 1000:7.1f} ms"
        )
    print("load average:", " ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    main()
