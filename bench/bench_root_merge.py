"""What a peer's merge of many root commits sharing one tree costs every clone: the sync, then
the next command.

    python bench/bench_root_merge.py                          # 0, 150 and 600 roots of 3,000 files
    python bench/bench_root_merge.py --roots 0,600 --files 3000
    python bench/bench_root_merge.py --roots 0,600 --fan      # children of one empty root (not fixed)

Per root count R: a fresh vault (``vault-mem init``, one memory) published to a bare remote, a
peer's clone that pushes one merge of its branch and R root commits, each holding one tree of
``--files`` memory files (``facts/note-N.md``, one text: a pack of ~150 KB whatever R), the
merge's tree the branch's own (no net change: sync takes it). Then in the vault ``vault-mem
sync`` and the next command (``vault-mem list``), each timed as a child process (user + system CPU
with the git processes it waited for, wall, peak RSS: ``bench_many_commits.timed``). The scan of
who gave each text (``vault_mem/vault/authors.Origins``, ``history.introductions``) reads every
new commit; a root commit's whole tree is what it gives. R = 0 is the same run's baseline (the
merge alone). Keyword-only index (``VAULT_MEM_EMBEDDER=none``). Prints one line per step and the
load average. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

from bench_many_commits import _HWM, timed  # bench/ is on sys.path when run as a script
from bench_sync import run


def octopus(peer: Path, roots: int, files: int, env: dict[str, str], fan: bool = False) -> None:
    """The peer's merge of its main and ``roots`` root commits sharing one tree of ``files``
    memory files, pushed. ``fan``: instead of roots, children of one empty root commit, each
    adding that tree (a shape the fix of roots does not cover: git lists each against its parent)."""
    blob = run(["git", "hash-object", "-w", "--stdin"], peer, env, input=b"x\n").strip()
    rows = "".join(f"100644 blob {blob}\tnote-{i}.md\n" for i in range(files))
    folder = run(["git", "mktree"], peer, env, input=rows.encode()).strip()
    empty = b"commit refs/empty\ncommitter Peer <peer@example.com> 1789999999 +0000\ndata 5\nempty\n\n"
    stream = (empty if fan else b"") + b"".join(
        b"commit refs/roots/r%d\ncommitter Peer <peer@example.com> %d +0000\ndata 5\nroot\n%s"
        b"deleteall\nM 040000 %s facts\n\n" % (i, 1_790_000_000 + i, b"from refs/empty\n" if fan else b"",
                                                 folder.encode())
        for i in range(roots))
    if roots:
        run(["git", "fast-import", "--quiet"], peer, env, input=stream)
    tree = run(["git", "write-tree"], peer, env).strip()
    parents = run(["git", "for-each-ref", "--format=%(objectname)", "refs/roots"], peer, env).split()
    merge = run(["git", "commit-tree", tree, "-p", "HEAD", *(a for r in parents for a in ("-p", r)), "-m", "merge"],
                peer, env).strip()
    run(["git", "push", "-q", "origin", f"{merge}:refs/heads/main"], peer, env)


def one(roots: int, files: int, fan: bool = False) -> None:
    base = Path(tempfile.mkdtemp(prefix="bench-roots-"))
    try:
        env = {**os.environ, "HOME": str(base), "XDG_CONFIG_HOME": str(base / "xdg"), "GIT_CONFIG_NOSYSTEM": "1",
               "VAULT_MEM_EMBEDDER": "none", "GIT_AUTHOR_NAME": "Person", "GIT_AUTHOR_EMAIL": "person@example.com",
               "GIT_COMMITTER_NAME": "Person", "GIT_COMMITTER_EMAIL": "person@example.com"}
        (base / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
        vm = [sys.executable, "-m", "vault_mem"]
        mine, bare, peer = base / "mine", base / "remote.git", base / "peer"
        run([*vm, "init", str(mine)], base, env)
        run([*vm, "--vault", str(mine), "remember", "editor-choice", "-d", "Uses Helix"], base, env)
        run(["git", "init", "-q", "--bare", str(bare)], base, env)
        run(["git", "remote", "add", "origin", str(bare)], mine, env)
        run(["git", "push", "-q", "-u", "origin", "main"], mine, env)
        run(["git", "clone", "-q", str(bare), str(peer)], base, env)
        octopus(peer, roots, files, env, fan)
        for step, args in (("sync", ["sync"]), ("next command (list)", ["list"])):
            cpu, wall, rss, own = timed([sys.executable, "-c", _HWM, "--vault", str(mine), *args], mine, env)
            print(f"{roots:>6,} {'fan children' if fan else 'roots'} x {files:,} files: {step:<20} {cpu:6.2f} s CPU  {wall:6.2f} s wall  "
                  f"peak RSS {rss / 1024:7.1f} MB (vault-mem's own {own / 1024:6.1f} MB)", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--roots", default="0,150,600", help="comma-separated root counts (0: the baseline)")
    parser.add_argument("--files", type=int, default=3000, help="memory files in the roots' one tree")
    parser.add_argument("--fan", action="store_true", help="children of one empty root instead of roots")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for n in (int(x) for x in args.roots.split(",")):
        one(n, args.files, args.fan)
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
