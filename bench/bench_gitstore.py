"""The git layer alone (vault_mem.store.git), without the vault's fsyncs and sidecar:

    python bench/bench_gitstore.py                    # N = 10k, 50k
    python bench/bench_gitstore.py --code /tmp/base   # the same against another checkout
    python bench/bench_gitstore.py --odb              # GitCmdObjectDB vs gitdb.GitDB reads

Per N: the first edit in a process (parses the 50k-entry folder tree), then the in-process part
of one write (two blobs, the trees on the path, a commit object; no git processes), then a whole
``commit_paths`` (adds update-ref and update-index). Prints medians; asserts nothing.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from corpus import load_line  # bench/ is on sys.path when run as a script

ENV = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
       "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com"}


def git(root: Path, *args: str, input: bytes | None = None) -> str:
    return subprocess.run(["git", *args], cwd=root, input=input, env=ENV, capture_output=True,
                          check=True).stdout.decode().strip()


def flat_repo(root: Path, n: int) -> str:
    """A repository whose HEAD has ``n`` files in facts/ (one folder: one big flat tree)."""
    git(root, "init", "-q")
    blob = git(root, "hash-object", "-w", "--stdin", input=b"same body\n")
    lines = "".join(f"100644 {blob}\tfacts/bulk-{i:06d}.md\n" for i in range(n))
    git(root, "update-index", "--index-info", input=lines.encode())
    commit = git(root, "commit-tree", "-m", "bulk", git(root, "write-tree"))
    git(root, "update-ref", "HEAD", commit)
    return commit


def writes(n: int, count: int) -> None:
    from vault_mem.store.git import GitRepo, Identity

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        head = flat_repo(root, n)
        repo = GitRepo(root)
        t = time.perf_counter()
        tree = repo.edit_tree(repo.commit_tree(head), {"facts/first.md": repo.write_object("blob", b"x\n")})
        first = (time.perf_counter() - t) * 1000
        inproc = []
        for i in range(count):
            t = time.perf_counter()
            blob, index = repo.write_object("blob", b"memory %d\n" % i), repo.write_object("blob", b"index %d\n" % i)
            tree = repo.edit_tree(tree, {f"facts/new-{i:04d}.md": blob, "INDEX.md": index})
            repo.write_object("commit", f"tree {tree}\nauthor a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\n{i}\n".encode())
            inproc.append((time.perf_counter() - t) * 1000)
        whole = []
        for i in range(count):
            rel = f"facts/commit-{i:04d}.md"
            (root / rel).parent.mkdir(exist_ok=True)
            (root / rel).write_bytes(b"c %d\n" % i)
            t = time.perf_counter()
            repo.commit_paths({rel: b"c %d\n" % i}, f"remember: {i}", author=Identity("agent", "a@example.com"))
            whole.append((time.perf_counter() - t) * 1000)
        if hasattr(repo, "close"):
            repo.close()
    print(f"N={n:>6}  first edit {first:7.1f} ms  in-process write {statistics.median(inproc):6.2f} ms  "
          f"commit_paths {statistics.median(whole):6.1f} ms", flush=True)


def odb_reads(n: int) -> None:
    import git as gitpython
    from gitdb import IStream
    from gitdb.db import GitDB
    from gitdb.util import bin_to_hex

    def median_ms(fn, k=15):
        times = []
        for _ in range(k):
            t = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t) * 1000)
        return statistics.median(times)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        head = flat_repo(root, n)
        tree = bytes.fromhex(git(root, "rev-parse", f"{head}^{{tree}}:facts"))
        small = git(root, "rev-parse", f"{head}:facts/bulk-000000.md")  # reachable: it gets packed
        cmd = gitpython.Repo(root)
        gdb = GitDB(str(root / ".git" / "objects"))
        for label in ("loose", "packed"):
            read = lambda db, sha: (lambda: db.stream(sha).read())
            print(f"{label:>6} {n}-entry tree: GitCmdObjectDB {median_ms(read(cmd.odb, tree)):6.2f} ms, "
                  f"GitDB {median_ms(read(gdb, tree)):6.2f} ms | small blob: "
                  f"GitCmdObjectDB {median_ms(read(cmd.odb, bytes.fromhex(small)), 200):6.3f} ms, "
                  f"GitDB {median_ms(read(gdb, bytes.fromhex(small)), 200):6.3f} ms")
            if label == "loose":
                git(root, "gc", "-q", "--prune=now")
                cmd.close()
                gdb = GitDB(str(root / ".git" / "objects"))
        # a second version of the folder tree (git stores it as a delta in the next pack)
        blob = git(root, "rev-parse", f"{head}:facts/bulk-000000.md")
        git(root, "update-index", "--index-info", input=f"100644 {blob}\tfacts/changed.md\n".encode())
        head2 = git(root, "commit-tree", "-p", head, "-m", "v2", git(root, "write-tree"))
        git(root, "update-ref", "HEAD", head2)
        tree2 = bytes.fromhex(git(root, "rev-parse", f"{head2}^{{tree}}:facts"))
        late = cmd.odb.store(IStream(b"blob", 4, io.BytesIO(b"late"))).binsha
        git(root, "update-ref", "refs/late", bin_to_hex(late))  # reachable, so it gets packed
        git(root, "repack", "-a", "-d", "-q")  # everything into one new pack; the old one is deleted
        git(root, "prune-packed")
        cmd.close()
        fresh = GitDB(str(root / ".git" / "objects"))
        for sha in (tree, tree2):
            kind = "delta" if git(root, "cat-file", "--batch-check=%(deltabase)", input=bin_to_hex(sha) + b"\n") != "0" * 40 else "whole"
            print(f"packed tree stored as {kind}: GitCmdObjectDB {median_ms(read(cmd.odb, sha)):6.2f} ms, "
                  f"GitDB {median_ms(read(fresh, sha)):6.2f} ms")
        for name, db in (("GitCmdObjectDB", cmd.odb), ("GitDB", gdb)):
            try:
                db.stream(late).read()
                print(f"{name}: sees an object that moved into a new pack")
            except Exception as exc:  # noqa: BLE001 - what each database does is the measurement
                print(f"{name}: does not see a new pack ({type(exc).__name__}) until update_cache(force=True)")
        cmd.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,50000")
    ap.add_argument("--writes", type=int, default=30)
    ap.add_argument("--code", default=str(Path(__file__).resolve().parent.parent),
                    help="checkout whose vault_mem to measure (default: this one)")
    ap.add_argument("--odb", action="store_true", help="compare GitPython's two object databases")
    args = ap.parse_args()
    sys.path.insert(0, args.code)
    for n in (int(s) for s in args.sizes.split(",")):
        if args.odb:
            odb_reads(n)
        else:
            writes(n, args.writes)


if __name__ == "__main__":
    main()
    print(load_line())
