"""What vault-mem's Python git hooks cost a person's own git commands: a hooked ``git commit`` of
a memory, of a file that is no memory, a ``git checkout``, a ``git merge`` and a ``git commit
--amend`` (post-rewrite), this tree's hooks against another checkout's (main's) in one run.

    python bench/bench_git_hooks.py                                   # 1,000 memories, 15 rounds
    python bench/bench_git_hooks.py --n 1000 --rounds 15 --old /work/main --old-python /work/main/.venv/bin/python

A vault of ``--n`` memories (``corpus.write_vault``, one commit), then a copy per tree with that tree's hooks installed (``hooks install`` run by the tree's own
Python, so the hooks start that Python on that tree's code), and one with no hook (the floor).
Each copy then makes, with its own hooks, a commit of one memory and a ``side`` branch one
memory ahead. Per round, in each copy in turn:

- ``pre-commit memory``: a new memory file written, ``git add``, hooked ``git commit`` (pre-commit,
  then the shell-only post-commit);
- ``pre-commit other``: a file that is no memory (``notes.txt`` at the vault's top) changed and
  committed the same way;
- ``post-checkout``: ``git checkout`` of the side branch, then back to main (two checkouts: the
  figure is per checkout);
- ``post-merge``: main reset to the side branch's parent with no hook, then hooked ``git merge
  --ff-only side``;
- ``post-rewrite``: ``git commit --amend --no-edit --no-verify`` (post-commit and post-rewrite).

Each figure is the CPU of the whole git command (user + system of git, the hook's shell, its
Python and every git process that starts, ``getrusage(RUSAGE_CHILDREN)``), p50 (min-max) over the
rounds; the first round is not counted (it indexes the vault). Same-run floor: each command with
no hook (``-c core.hooksPath=/dev/null``). The embedder is ``none`` (VAULT_MEM_EMBEDDER): a hook
of a vault with the local model also embeds the memory it sees, which this does not measure.
Prints the load average before and after. Asserts nothing.
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
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corpus import load_line, write_vault  # bench/ is on sys.path when run as a script

CASES = ("pre-commit memory", "pre-commit other", "post-checkout", "post-merge", "post-rewrite")
ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
       "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid",
       "GIT_CONFIG_NOSYSTEM": "1", "VAULT_MEM_EMBEDDER": "none"}
NO_HOOKS = ("-c", "core.hooksPath=/dev/null")


def git(root: Path, *args: str, hooked: bool = True) -> float:
    """CPU ms of ``git ARGS`` in ``root`` and everything it starts (hooks included when ``hooked``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(["git", "-c", "gc.auto=0", *(() if hooked else NO_HOOKS), *args], cwd=root, env=ENV,
                          capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"git {' '.join(args)} in {root} failed: {done.stderr.strip()}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000


def memory_text(i: int) -> str:
    return f"---\ndescription: bench hand-written memory {i}\n---\nThe bench's build host number {i} is ares-{i}.\n"


def one_round(root: Path, i: int, hooked: bool) -> dict[str, float]:
    out = {}
    rel = f"facts/bench-hand-{i}{'' if hooked else '-floor'}.md"
    (root / rel).write_text(memory_text(i), encoding="utf-8")
    git(root, "add", rel, hooked=False)
    out["pre-commit memory"] = git(root, "commit", "-q", "-m", f"memory {i}", hooked=hooked)
    with open(root / "notes.txt", "a", encoding="utf-8") as fh:
        fh.write(f"line {i}\n")
    git(root, "add", "notes.txt", hooked=False)
    out["pre-commit other"] = git(root, "commit", "-q", "-m", f"notes {i}", hooked=hooked)
    # side: main's first commit plus one memory; checked out and back
    out["post-checkout"] = (git(root, "checkout", "-q", "side", hooked=hooked)
                            + git(root, "checkout", "-q", "main", hooked=hooked)) / 2
    git(root, "checkout", "-q", "-B", "merging", "side~1", hooked=False)
    out["post-merge"] = git(root, "merge", "-q", "--ff-only", "side", hooked=hooked)
    git(root, "checkout", "-q", "main", hooked=False)
    git(root, "branch", "-q", "-D", "merging", hooked=False)
    out["post-rewrite"] = git(root, "commit", "-q", "--amend", "--no-edit", "--no-verify", hooked=hooked)
    return out


def p50(values: list[float]) -> str:
    return f"{statistics.median(values):6.1f} ({min(values):.1f}-{max(values):.1f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1000, help="memories in the vault")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--old", type=Path, default=Path("/work/main"), help="another vault-mem checkout (the baseline)")
    ap.add_argument("--old-python", type=Path, default=None,
                    help="the Python the baseline's hooks start (default: OLD/.venv/bin/python)")
    args = ap.parse_args()
    print(load_line(), flush=True)
    old_python = args.old_python or args.old / ".venv" / "bin" / "python"
    trees = {"new": (HERE.parent, Path(sys.executable)), "old": (args.old.resolve(), old_python)}
    with tempfile.TemporaryDirectory(prefix="bench-git-hooks-") as tmp:
        os.environ["XDG_CONFIG_HOME"] = ENV["XDG_CONFIG_HOME"] = str(Path(tmp) / "xdg")
        base = Path(tmp) / "base"
        write_vault(base, args.n)
        (base / "notes.txt").write_text("notes\n", encoding="utf-8")
        git(base, "add", "notes.txt", hooked=False)
        git(base, "commit", "-q", "-m", "notes", hooked=False)
        git(base, "branch", "-q", "-M", "main", hooked=False)
        roots = {"floor": Path(tmp) / "floor"}
        shutil.copytree(base, roots["floor"], symlinks=True)
        for tag, (checkout, python) in trees.items():
            roots[tag] = Path(tmp) / tag
            shutil.copytree(base, roots[tag], symlinks=True)
            subprocess.run([str(python), "-m", "vault_mem", "--vault", str(roots[tag]), "hooks", "install"],
                           cwd=checkout, env=ENV, check=True, capture_output=True)
        for tag, root in roots.items():  # each copy's side branch made by its own hooks (INDEX.md committed)
            hooked = tag != "floor"
            for name, branch in (("setup", "main"), ("side-only", "side")):
                if branch == "side":
                    git(root, "checkout", "-q", "-b", "side", hooked=hooked)
                (root / "facts" / f"{name}.md").write_text(memory_text(-1), encoding="utf-8")
                git(root, "add", "-A", hooked=False)
                git(root, "commit", "-q", "-m", name, hooked=hooked)
            git(root, "checkout", "-q", "main", hooked=hooked)
        cpu: dict[tuple[str, str], list[float]] = {(tag, case): [] for tag in roots for case in CASES}
        for i in range(args.rounds + 1):
            for tag, root in roots.items():
                for case, ms in one_round(root, i, tag != "floor").items():
                    if i:
                        cpu[(tag, case)].append(ms)
        print(f"{args.n} memories, {args.rounds} rounds; CPU ms of the whole git command p50 (min-max); "
              f"new: {trees['new'][0]} ({trees['new'][1]}), old: {trees['old'][0]} ({trees['old'][1]}), "
              "floor: no hook")
        for case in CASES:
            new, old = statistics.median(cpu[("new", case)]), statistics.median(cpu[("old", case)])
            floor = statistics.median(cpu[("floor", case)])
            print(f"  {case:18} new {p50(cpu[('new', case)]):>22}  old {p50(cpu[('old', case)]):>22}  "
                  f"floor {p50(cpu[('floor', case)]):>20}  hook's own: new {new - floor:5.1f} old {old - floor:5.1f} "
                  f"({(new - floor) / max(old - floor, 0.1):.2f}x)")
    print(load_line())


if __name__ == "__main__":
    main()
