"""Which git processes are running in a work tree, read from /proc (nothing where there is none).

vault-mem never moves a branch under a person's git command: a ``git commit`` under way (the mark
our pre-commit hook writes, or the running process before its hook starts), a pull/rebase/
checkout that changes the work tree, or a gc/prune that may delete objects no ref names yet.
"""

from __future__ import annotations

import os
from pathlib import Path

from vault_mem.store.locks import pid_exists

#: in the git dir: the pid of a person's ``git commit`` under way (written by our pre-commit hook)
PERSON_COMMIT_MARK = "vault-mem-commit"
#: git commands that read HEAD at their start and move the branch at their end
BRANCH_MOVING = frozenset({"commit", "merge", "revert", "cherry-pick", "am", "rebase"})
#: git options that take a separate value before the command name
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
#: git commands that change the work tree or the branch a person has checked out
WORKTREE_CHANGING = frozenset({"pull", "rebase", "checkout", "switch", "merge", "stash", "reset",
                               "am", "cherry-pick", "revert", "restore"})
#: git commands that delete or move objects: an object no ref names yet may go
MAINTENANCE = frozenset({"gc", "repack", "prune", "prune-packed", "maintenance"})


def running_git_commit(toplevel: Path) -> int | None:
    """The pid of a running git process whose command is one of BRANCH_MOVING and whose
    working directory is inside ``toplevel``, or None (also where there is no /proc)."""
    found = running_git(toplevel, BRANCH_MOVING, first=True)
    return found[0] if found else None


def running_git(toplevel: Path, commands: frozenset[str], *, first: bool = False) -> list[int]:
    """The pids of running git processes whose command is one of ``commands`` and whose working
    directory is inside ``toplevel`` ([] also where there is no /proc); ``first``: stop at one."""
    found: list[int] = []
    try:
        entries = os.scandir("/proc")
    except OSError:
        return found
    me = os.getpid()
    with entries:
        for entry in entries:
            if not entry.name.isdigit() or int(entry.name) == me:
                continue
            try:
                with open(f"/proc/{entry.name}/comm", "rb") as fh:
                    if fh.read(4) != b"git\n":
                        continue
                with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                    argv = fh.read(4096).split(b"\0")
                cwd = Path(os.readlink(f"/proc/{entry.name}/cwd"))
            except OSError:
                continue
            if _git_command(argv) in commands and (cwd == toplevel or cwd.is_relative_to(toplevel)):
                found.append(int(entry.name))
                if first:
                    break
    return found


def person_git_command(toplevel: Path) -> str | None:
    """A running git command that changes the work tree here (pull, rebase, checkout, ...),
    in words (``a person's `git checkout` (pid N)``), else None."""
    found = running_git(toplevel, WORKTREE_CHANGING, first=True)
    if found:
        return f"a person's `git {command_of(found[0]) or 'command'}` (pid {found[0]})"
    return None


def marked_commit(git_dir: Path) -> int | None:
    """The pid in the mark our pre-commit hook writes (``PERSON_COMMIT_MARK``) while that
    ``git`` process lives, else None; a mark left by one that ended is removed."""
    mark = git_dir / PERSON_COMMIT_MARK
    try:
        pid = int(mark.read_text().strip())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        pid = 0
    if pid > 1:
        alive = pid_exists(pid)
        if alive:
            try:  # a pid reused by something else is no commit
                comm = Path(f"/proc/{pid}/comm").read_text().strip()
                alive = comm.startswith("git")
            except OSError:
                pass
        if alive:
            return pid
    mark.unlink(missing_ok=True)
    return None


def command_of(pid: int) -> str | None:
    """The git command a running git process ``pid`` runs (``commit``), else None."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return _git_command(fh.read(4096).split(b"\0"))
    except OSError:
        return None


def _git_command(argv: list[bytes]) -> str | None:
    """The command name in a git command line (``git -C x commit -m y`` → ``commit``)."""
    skip = False
    for raw in argv[1:]:
        arg = raw.decode("utf-8", "replace")
        if skip:
            skip = False
        elif arg in _GIT_VALUE_OPTIONS:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None

