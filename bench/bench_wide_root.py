"""Peak memory of the whole-vault history walks over a peer's root commit of one wide folder.

    python bench/bench_wide_root.py                        # 1,000,000 files, this checkout
    python bench/bench_wide_root.py --files 300000 --baseline /path/to/other/checkout

A repository with one commit of a memory and a merge of it with a root commit holding
``facts/`` of ``--files`` memory files (one text). Each walk runs in its own child process:
``history.introductions`` (the scan of who gave each text) and ``history.last_authors`` of the
whole vault (each file's last author); its own peak RSS (``ru_maxrss``, git's processes apart) and CPU (with git's) are printed, for this checkout
and, with ``--baseline``, for another checkout's ``vault_mem`` (PYTHONPATH) in the same run. A
root's files come from ``history.root_changes`` one at a time (mend23); they came as one list
before. Prints the load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

WALK = """
import sys
from vault_mem.store import history
from vault_mem.store.git import GitRepo
repo = GitRepo(sys.argv[1]); head = sys.argv[2]; which = sys.argv[3]
if which == "introductions":
    n = sum(len(g[5]) for g in history.introductions(repo, [head], [], "", own=frozenset()))
else:
    n = len(history.last_authors(repo, head, None, ["."], touched={}, moves={}, local=frozenset()))
import resource
print(n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def _git(cwd, *args, input=None, env=None):
    return subprocess.run(["git", *args], cwd=cwd, input=input, text=True, check=True, capture_output=True,
                          env={**os.environ, **(env or {})}).stdout.strip()


def make(root: Path, files: int) -> str:
    who = {"GIT_AUTHOR_NAME": "p", "GIT_AUTHOR_EMAIL": "p@x", "GIT_COMMITTER_NAME": "p", "GIT_COMMITTER_EMAIL": "p@x"}
    _git(root, "init", "-q", "-b", "main")
    (root / "preferences").mkdir()
    (root / "preferences" / "editor.md").write_text("---\ndescription: Helix\n---\nHelix.\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "first", env=who)
    blob = _git(root, "hash-object", "-w", "--stdin", input="---\ndescription: n\n---\nx\n")
    rows = "".join(f"100644 blob {blob}\tnote-{i:07d}.md\n" for i in range(files))
    folder = _git(root, "mktree", input=rows)
    top = _git(root, "mktree", input=f"040000 tree {folder}\tfacts\n")
    peer = _git(root, "commit-tree", top, "-m", "root", env=who)
    tree = _git(root, "rev-parse", "HEAD^{tree}")
    merge = _git(root, "commit-tree", tree, "-p", "HEAD", "-p", peer, "-m", "merge", env=who)
    _git(root, "update-ref", "refs/heads/main", merge)
    return merge


def peak(pythonpath: Path, repo: Path, head: str, which: str) -> tuple[float, int, float]:
    """(the child's own peak RSS in MB, files given, its CPU seconds) of one walk."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    # cwd: the repository (``-c`` puts the working folder first on sys.path, before PYTHONPATH)
    out = subprocess.run([sys.executable, "-c", WALK, str(repo), head, which], capture_output=True, text=True, cwd=repo,
                         check=True, env={**os.environ, "PYTHONPATH": str(pythonpath)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    n, rss = out.stdout.split()
    return int(rss) / 1024, int(n), (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1_000_000)
    ap.add_argument("--baseline", type=Path, help="another checkout whose vault_mem to measure too")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="vault-mem-wide-root-") as tmp:
        repo = Path(tmp)
        head = make(repo, args.files)
        for label, pp in (("this", HERE), *((("baseline", args.baseline),) if args.baseline else ())):
            for which in ("introductions", "last_authors"):
                mb, n, cpu = peak(pp, repo, head, which)
                print(f"{label:8} {which:14} files={args.files} given={n} peak_rss={mb:.0f} MB cpu={cpu:.1f} s "
                      f"load={os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
