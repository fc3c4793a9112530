"""What vault-mem's post-commit hook costs a person's own git commands: a plain ``git commit``, a
``git cherry-pick`` and a ``git revert``, whose commit the hook records as made here only when
every text it leaves existed before it (the replay check, ``store/hooks.RECORD``; RELIABILITY.md,
"Whose memories reach an agent unasked").

    python bench/bench_post_commit.py                          # 2,000 memories, 30 rounds
    python bench/bench_post_commit.py --n 10000 --rounds 20
    python bench/bench_post_commit.py --old OLD                # OLD's hooks alternating with this tree's

A vault of ``--n`` memories (``corpus.write_vault``, one commit) and 20 more commits each editing
one memory; then a copy per case, each with its commit made by git with no hook
(``-c core.hooksPath=/dev/null``): ``commit``, an edit committed by hand; ``cherry-pick``, the
person's edit of ``--files`` memories on a side branch picked onto main, which moved on; and
``revert``, an older commit's edit of ``--files`` memories reverted; ``merged pick``, a pick of
the person's edit of the description of memories main changed since the side branch left it,
which git merges into texts no commit held (the check refuses it: not recorded). The hook
installed in the copy
(plain shell: no Python) is then run by hand as git runs it after that commit (in the work
tree; HEAD's log says what the commit was, so a pick and a revert take the replay check); each run
appends the commit to the record again (the first also keeps in ``vault-mem/replayed-from`` the
commits the texts were found in), which changes nothing of what the next run reads. ``--old``: a checkout
of another vault-mem (its top folder) installs its own hooks in copies of the same cases, and the
two trees' hooks alternate case by case. Per round every case runs once, in turn; the first round
is not counted. Same-run baseline: one ``git rev-parse HEAD`` (a git process's floor on this
machine), timed in the same rounds.

Prints per case the CPU ms of the hook (its shell and every process it starts, user and system,
``getrusage(RUSAGE_CHILDREN)``) p50 (min-max) and the wall ms p50, and whether the hook recorded
the commit (all but the merged pick should be), then the load average before and
after. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import load_line, write_vault  # bench/ is on sys.path when run as a script

from vault_mem.config import TYPE_FOLDERS

CASES = ("commit", "cherry-pick", "revert", "merged pick")
ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
       "GIT_CONFIG_NOSYSTEM": "1", "VAULT_MEM_EMBEDDER": "none"}
NO_HOOKS = ("-c", "core.hooksPath=/dev/null", "-c", "gc.auto=0")


def edit(root: Path, rel: str, line: str) -> None:
    with open(root / rel, "a", encoding="utf-8") as fh:
        fh.write(f"\n{line}\n")


def unhooked(root: Path, *args: str) -> None:
    subprocess.run(["git", *NO_HOOKS, *args], cwd=root, env=ENV, check=True, capture_output=True)


def base_vault(root: Path, n: int, files: int) -> list[str]:
    """The vault every case copies: ``n`` memories, then 20 commits each editing one of them, and
    a commit editing the first ``files`` (the one ``revert`` reverts). Returns the memories' paths."""
    items = write_vault(root, n)
    paths = [f"{TYPE_FOLDERS[m['type']]}/{m['key']}.md" for m in items]
    for i in range(20):
        edit(root, paths[(i * 37) % len(paths)], f"history line {i}")
        unhooked(root, "commit", "-q", "-am", f"history {i}")
    for rel in paths[:files]:
        edit(root, rel, "an edit reverted later")
    unhooked(root, "commit", "-q", "-am", "to revert")
    edit(root, paths[-1], "main moves on")
    unhooked(root, "commit", "-q", "-am", "after it")
    return paths


def make_case(case: str, base: Path, dest: Path, paths: list[str], files: int, checkout: Path) -> None:
    """A copy of ``base`` with ``checkout``'s hooks installed and HEAD at the case's commit."""
    shutil.copytree(base, dest, symlinks=True)
    subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(dest), "hooks", "install"],
                   env={**ENV, "PYTHONPATH": str(checkout)}, check=True, capture_output=True)
    if case == "commit":
        edit(dest, paths[1], "a plain edit")
        unhooked(dest, "commit", "-q", "-am", "a plain edit")
    elif case == "cherry-pick":
        unhooked(dest, "checkout", "-q", "-b", "side", "HEAD~2")
        for rel in paths[files:2 * files]:
            edit(dest, rel, "the person's edit on a side branch")
        unhooked(dest, "commit", "-q", "-am", "on side")
        unhooked(dest, "checkout", "-q", "main")
        unhooked(dest, "cherry-pick", "side")
    elif case == "revert":
        unhooked(dest, "revert", "--no-edit", "HEAD~1")
    else:  # the side's edit of the description line, main's line appended: git merges the two
        unhooked(dest, "checkout", "-q", "-b", "side", "HEAD~2")
        for rel in paths[:files]:
            text = (dest / rel).read_text(encoding="utf-8")
            (dest / rel).write_text(text.replace("description: ", "description: (side) ", 1), encoding="utf-8")
        unhooked(dest, "commit", "-q", "-am", "on side")
        unhooked(dest, "checkout", "-q", "main")
        unhooked(dest, "cherry-pick", "side")


def run_hook(root: Path) -> tuple[float, float]:
    """The installed post-commit run in the work tree: (CPU ms of it and its children, wall ms)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([str(root / ".git" / "hooks" / "post-commit")], cwd=root, env=ENV, check=True)
    wall = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000, wall


def run_floor(root: Path) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, env=ENV, check=True, capture_output=True)
    wall = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000, wall


def recorded(root: Path) -> bool:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True).stdout
    record = root / ".git" / "vault-mem" / "local-commits"
    return record.exists() and head.strip() in record.read_text().split()


def p50(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2000, help="memories in the vault")
    ap.add_argument("--files", type=int, default=1, help="memories the pick and the revert change")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--old", type=Path, help="another vault-mem checkout's top folder: its hooks alternate")
    args = ap.parse_args()
    print(load_line(), flush=True)
    trees = {"new": HERE.parent, **({"old": args.old.resolve()} if args.old else {})}
    with tempfile.TemporaryDirectory(prefix="bench-post-commit-") as tmp:
        # this machine's approvals and key for these vaults in a folder of the run's own
        os.environ["XDG_CONFIG_HOME"] = ENV["XDG_CONFIG_HOME"] = str(Path(tmp) / "xdg")
        base = Path(tmp) / "base"
        paths = base_vault(base, args.n, args.files)
        roots = {}
        for tag, checkout in trees.items():
            for case in CASES:
                roots[(tag, case)] = Path(tmp) / f"{tag}-{case}"
                make_case(case, base, roots[(tag, case)], paths, args.files, checkout)
        cpu: dict[tuple[str, str], list[float]] = {key: [] for key in [*roots, ("floor", "git rev-parse")]}
        wall: dict[tuple[str, str], list[float]] = {key: [] for key in cpu}
        for i in range(args.rounds + 1):
            for case in CASES:
                for tag in trees:
                    c, w = run_hook(roots[(tag, case)])
                    if i:
                        cpu[(tag, case)].append(c)
                        wall[(tag, case)].append(w)
            c, w = run_floor(base)
            if i:
                cpu[("floor", "git rev-parse")].append(c)
                wall[("floor", "git rev-parse")].append(w)
        print(f"{args.n} memories, the pick and the revert change {args.files}; {args.rounds} rounds; "
              "CPU ms p50 (min-max) / wall ms p50")
        for key in cpu:
            tag, case = key
            mark = "" if tag == "floor" else f"  recorded: {'yes' if recorded(roots[key]) else 'no'}"
            print(f"  {tag:5} {case:14} {p50(cpu[key]):>22} / {statistics.median(wall[key]):6.1f}{mark}")
    print(load_line())


if __name__ == "__main__":
    main()
