"""Which git processes are running in a work tree (the process facts come from
:mod:`vault_mem.platform.procs`: /proc on Linux, ps and lsof elsewhere).

vault-mem never moves a branch under a person's git command: a ``git commit`` under way (the mark
our pre-commit hook writes, or the running process before its hook starts), a pull/rebase/
checkout that changes the work tree, or a gc/prune that may delete objects no ref names yet.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

from vault_mem.platform import procs

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
#: a person's git commands that vault-mem lands no commit under and takes no index.lock during
PERSON_GIT = BRANCH_MOVING | WORKTREE_CHANGING


#: how long vault-mem keeps ``index.lock`` after moving a branch, for a person's git command that
#: started while it moved it (:func:`outlast_started_meanwhile`)
STARTED_MEANWHILE_WAIT_S = 5.0
#: without /proc, how often that wait reads the start times of those commands again (a `ps`
#: run each); whether one has ended is asked every 5 ms with no process
STARTED_MEANWHILE_PS_S = 0.25

#: every git command some check here asks about
_ASKED = PERSON_GIT | MAINTENANCE
#: how long the processes that ran already are not read again (:func:`~vault_mem.platform.procs.list_program`)
REUSE_S = 0.5


def asked(argv: list[str], exact: bool) -> bool:
    return _runs(argv, exact, _ASKED)


class GitWatch:
    """The git processes of one work tree, for the checks a write makes one after another (the
    wait before it, the check before its files, the one before ``index.lock``, the one under it,
    the one after the branch moved, the gc check after landing). Each check lists them, but on
    Linux reads only the processes that started since the last listing and those that had not
    exec'd since their fork then, or were younger than ``procs.YOUNG_S``
    (:func:`~vault_mem.platform.procs.list_program`); every process at least every
    :data:`REUSE_S`. ``full``/``partial``: how many listings read every process / only those
    (for the benches).

    A listing that reads only those can miss a git that was running: a process it saw as no
    git and no longer young (a fork whose exec a loaded machine delayed past
    :data:`~vault_mem.platform.procs.YOUNG_S`, a script's ``exec git``) that has become one
    since. The gc check after landing is what keeps a commit's objects, so it reads every
    process (``fresh``)."""

    def __init__(self, toplevel: Path) -> None:
        self.toplevel = toplevel
        self.full = self.partial = 0
        self._last: procs.Listing | None = None
        self._lock = threading.Lock()

    def here(self, recheck: bool = False, *, fresh: bool = False) -> list[procs.Process]:
        """The git processes here that run one of the commands any check asks about.
        ``recheck``: only what started since the last listing is read, however old its full
        read (the check under ``index.lock``, made right after one before it: git's lock is
        held for a read of the few new processes, never of every one). ``fresh``: every
        process is read, however recent the last listing."""
        with self._lock:
            last = self._last
            age = float("inf") if recheck else REUSE_S
            listing = self._last = procs.list_program("git", asked, since=None if fresh else last, max_age=age)
            if listing is None:
                return []
            if last is not None and listing.full_at == last.full_at:
                self.partial += 1
            else:
                self.full += 1
            return [p for p in listing.processes if _inside(p, self.toplevel)]

    def each(self, kinds: tuple[frozenset[str], ...], recheck: bool = False, *,
             fresh: bool = False) -> list[list[int]]:
        here = self.here(recheck, fresh=fresh)
        return [[p.pid for p in here if _runs(p.argv, p.exact, kind)] for kind in kinds]


def git_under_way(git_dir: Path, toplevel: Path, watch: GitWatch | None = None,
                  recheck: bool = False, *, hook_parent: bool = False) -> tuple[list[int], bool]:
    """What must go before vault-mem lands a commit, from one listing of the processes: the
    running ``git gc``/``prune``/``repack`` pids, and whether a person's git command that moves
    the branch or changes the work tree is under way here (a ``git commit`` our pre-commit hook
    marked, a pull, rebase, checkout, stash, ...). The one statement of that rule.
    ``recheck``: the same question again right after a full answer (``watch``'s
    :meth:`GitWatch.here`), reading only the processes started since.

    ``hook_parent``: this process is a post-* hook (post-merge, -checkout, -rewrite), run once
    its git command's own commit or checkout is done; that command (an ancestor) waits for the
    hook, so it is left out (waiting for it ended only at the commit's timeout: a post-merge's
    INDEX.md committed in the person's name, tests/test_reliability_pull_index.py). Anywhere
    else an ancestor counts: a person's own pre-commit hook that runs a vault-mem write must not
    land a commit under the `git commit` that runs it."""
    mine = procs.ancestors() if hook_parent else set()
    marked = marked_commit(git_dir)
    if marked is not None and marked not in mine:  # no listing needed to know a person goes first
        return running_git(toplevel, MAINTENANCE, watch=watch), True
    maintenance, person = running_git_each(toplevel, (MAINTENANCE, PERSON_GIT), watch=watch, recheck=recheck)
    return maintenance, any(pid not in mine for pid in person)


def outlast_started_meanwhile(toplevel: Path, watch: GitWatch | None = None, *, hook_parent: bool = False) -> list[int]:
    """Called under ``index.lock`` right after vault-mem moved a branch, following a
    :func:`git_under_way` check (``recheck``) that found no person's git command: wait (at most
    :data:`STARTED_MEANWHILE_WAIT_S`) until each person's git command that moves a branch and
    started since that check has ended. Returns those still running then.

    A ``git commit`` reads HEAD first and takes ``index.lock`` a few milliseconds later; one that
    exec'd between that check and the branch's move (a few system calls, or as long as this
    process was preempted there) may have read the old HEAD. Once ``index.lock`` was free it
    went on to its ref update and died there, after its work, with "cannot lock ref 'HEAD'"
    (an editor plugin then lost the save it was committing). Kept out until it has ended, it
    dies at ``index.lock`` instead, before it did anything, with the refusal git says plainly
    and a person runs again ("Unable to create '.git/index.lock': File exists"): the one
    residual window a person meets (RELIABILITY.md). ``hook_parent``: as for
    :func:`git_under_way`."""
    mine = procs.ancestors() if hook_parent else set()
    started = {pid: procs.process_start(pid) for pid in
               running_git_each(toplevel, (BRANCH_MOVING,), watch=watch, recheck=True)[0] if pid not in mine}
    deadline = time.monotonic() + STARTED_MEANWHILE_WAIT_S
    native = procs.proc_native()
    starts_at = 0.0  # when the start times are read again
    while started and time.monotonic() < deadline:
        time.sleep(0.005)
        # a pid that is gone is a signal 0 away; a start time (a reused pid, a zombie) is a read
        # of /proc, but without it a `ps` run: read every STARTED_MEANWHILE_PS_S there (a `ps`
        # every 5 ms, under index.lock, was tens a second for as long as the wait lasted)
        started = {pid: start for pid, start in started.items() if procs.pid_exists(pid)}
        if started and (native or time.monotonic() >= starts_at):
            started = {pid: start for pid, start in started.items() if procs.process_start(pid) == start}
            starts_at = time.monotonic() + STARTED_MEANWHILE_PS_S
    return list(started)


def running_git_commit(toplevel: Path, watch: GitWatch | None = None) -> int | None:
    """The pid of a running git process whose command is one of BRANCH_MOVING and whose
    working directory is inside ``toplevel``, or None (also where processes cannot be listed)."""
    found = running_git(toplevel, BRANCH_MOVING, first=True, watch=watch)
    return found[0] if found else None


def running_git(toplevel: Path, commands: frozenset[str], *, first: bool = False,
                watch: GitWatch | None = None, fresh: bool = False) -> list[int]:
    """The pids of running git processes whose command is one of ``commands`` and whose working
    directory is inside ``toplevel`` ([] where processes cannot be listed); ``first``: stop at
    one. A process whose working folder this system cannot tell (no /proc, no lsof) counts: a
    wait for a git command elsewhere costs time, a branch moved under one here fails it.
    ``fresh``: ``watch`` reads every process (:meth:`GitWatch.here`)."""
    found = running_git_each(toplevel, (commands,), watch=watch, fresh=fresh)[0]
    return found[:1] if first else found


def running_git_each(toplevel: Path, kinds: tuple[frozenset[str], ...],
                     watch: GitWatch | None = None, recheck: bool = False,
                     fresh: bool = False) -> list[list[int]]:
    """:func:`running_git` for several sets of commands from one listing of the processes (a
    writer waiting for git asks which gc and which person's command run on every pass): for
    each of ``kinds``, the pids of the git processes here that run one of its commands.
    ``watch``: the work tree's :class:`GitWatch` (it may answer from its last listing)."""
    if watch is not None:
        return watch.each(kinds, recheck, fresh=fresh)
    every = frozenset().union(*kinds)
    listed = procs.processes_of("git", keep=lambda argv, exact: _runs(argv, exact, every)) or []
    here = [p for p in listed if _inside(p, toplevel)]
    return [[p.pid for p in here if _runs(p.argv, p.exact, kind)] for kind in kinds]


def _inside(p: procs.Process, toplevel: Path) -> bool:
    """Whether ``p`` works in ``toplevel`` (an unknown working folder counts: see running_git)."""
    return p.cwd is None or p.cwd == toplevel or p.cwd.is_relative_to(toplevel)


def person_git_command(toplevel: Path, watch: GitWatch | None = None) -> str | None:
    """A running git command that changes the work tree here (pull, rebase, checkout, ...),
    in words (``a person's `git checkout` (pid N)``), else None. The git command that runs
    this process as its hook is left out: a post-checkout hook runs once the checkout is done
    (a rebase's hooks, run before it is done, find its state folder instead)."""
    found = running_git(toplevel, WORKTREE_CHANGING, watch=watch)
    if found:
        mine = procs.ancestors()
        found = [pid for pid in found if pid not in mine]
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
        alive = procs.pid_exists(pid)
        if alive:  # a pid reused by something else is no commit
            name = procs.process_name(pid)
            alive = name is None or name.startswith("git")
        if alive:
            return pid
    mark.unlink(missing_ok=True)
    return None


def command_of(pid: int) -> str | None:
    """The git command a running git process ``pid`` runs (``commit``), else None."""
    argv = procs.command_line(pid)
    return git_command(argv) if argv else None


def _runs(argv: list[str], exact: bool, commands: frozenset[str]) -> bool:
    """Whether the git command line ``argv`` runs one of ``commands``. A command line read from
    ``ps`` (not ``exact``: an option's value holding a space reads as two words) counts when any
    word is one of them: a wait for a git command that is not one costs time, a branch moved
    under one fails it."""
    if exact:
        return git_command(argv) in commands
    return git_command(argv) in commands or any(word in commands for word in argv[1:])


def git_command(argv: list[str]) -> str | None:
    """The command name in a git command line (``git -C x commit -m y`` → ``commit``)."""
    skip = False
    for arg in argv[1:]:
        if skip:
            skip = False
        elif arg in _GIT_VALUE_OPTIONS:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None

