"""When this repository first named a commit: git's ref logs, read as a record of arrivals.

A text two commits give, one made here and one a peer's on an unrelated line, is whoever's
came first to this repository (:class:`vault_mem.vault.authors.Origins`). The commit graph cannot
say (a peer dates a commit as it likes, and a copy on a line of its own descends from nothing of
ours); this repository's own logs can: every way a commit comes in (a sync's fetch, ``git
fetch``/``pull``, a clone) moves a logged ref, and the log says when, by this machine's clock.
So a peer's copy of the person's memory, pushed after the person's commit, arrived after it,
whatever its dates; a text the person took from a peer's commit had arrived before.

Where the logs cannot say, the caller takes the safe side (the text stays the peer's): a log
whose older entries are gone (``git reflog expire``) held what its first entry left at any time
before, and one whose entries in the middle are gone (an expiry of unreachable ones, ``git
reflog delete``) held what the next entry kept left since the entry kept before it; a commit only a name without a log reaches (a tag, ``FETCH_HEAD``) has no known time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # light to import: store/hooks.py reads PER_WORKTREE, and a one-shot write imports it
    from vault_mem.store.git import GitRepo

__all__ = ["PER_WORKTREE", "Arrivals", "log_files", "shared_log_files"]

#: git's refs that each worktree keeps of its own (``git bisect``'s, ``refs/worktree/``, a
#: rebase's ``refs/rewritten/``): the folders of ``refs/`` (and ``logs/refs/``) that differ per worktree
PER_WORKTREE = ("bisect", "worktree", "rewritten")


def shared_log_files(repo: GitRepo) -> list[str]:
    """The ref logs every worktree of the repository reads alike, whichever it is and whatever
    worktrees come and go: the main worktree's log of HEAD and the logs of the shared refs,
    except the stash's (a stash holds the person's own edits in commits no hook records). A
    linked worktree's log of HEAD is not one: it is read only in that worktree, and ``git
    worktree remove`` or ``prune`` deletes it. post-commit's replay check reads these very files
    (:data:`vault_mem.store.hooks.RECORD`)."""
    logs = os.path.join(repo.common_dir, "logs")
    skip = {os.path.join(logs, "refs", "stash")}
    own = tuple(os.path.join(logs, "refs", name) + os.sep for name in PER_WORKTREE)
    found = [os.path.join(logs, "HEAD")]
    for folder, _dirs, files in os.walk(os.path.join(logs, "refs")):
        found += [os.path.join(folder, f) for f in files
                  if os.path.join(folder, f) not in skip and not os.path.join(folder, f).startswith(own)]
    return found


def log_files(repo: GitRepo) -> list[str]:
    """The ref logs whose commits this repository names, read from this worktree: the shared
    ones (:func:`shared_log_files`), and this worktree's own (its log of HEAD, its per-worktree
    refs')."""
    logs = shared_log_files(repo) + [os.path.join(repo.git_dir, "logs", "HEAD")]
    for name in PER_WORKTREE:
        for folder, _dirs, files in os.walk(os.path.join(repo.git_dir, "logs", "refs", name)):
            logs += [os.path.join(folder, f) for f in files]
    return list(dict.fromkeys(os.path.normpath(p) for p in logs))


@dataclass(frozen=True)
class _Entry:
    old: str
    new: str
    time: int


def _entries(path: str) -> list[_Entry]:
    """One log's entries in its order (``old new who <email> TIME ZONE\\tmessage``)."""
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                head = line.partition("\t")[0].split(" ")
                if len(head) < 4 or len(head[0]) not in (40, 64) or len(head[1]) not in (40, 64):
                    continue
                try:
                    out.append(_Entry(head[0], head[1], int(head[-2])))
                except ValueError:
                    continue
    except OSError:
        return []
    return out


class Arrivals:
    """The ref logs of one repository, read once: when each commit of a scan arrived here."""

    def __init__(self, repo: GitRepo) -> None:
        self.logs = [e for e in (_entries(p) for p in log_files(repo)) if e]

    def _dated(self) -> list[tuple[float, str]]:
        """``(when, commit)`` of every log entry's commit and of what its ref held before it, in
        date order. What a ref held before an entry is dated by the entry before it (before the
        first entry kept: any time, ``-inf``). Where the log is whole that is the entry before's
        own commit; where entries are gone (`git reflog expire`: the first ones, or ones in the
        middle whose commits are no longer reachable; `git reflog delete`), what the gone ones
        brought counts as arrived by the last entry kept before them, never later."""
        entries: list[tuple[float, str]] = []
        for log in self.logs:
            before = float("-inf")
            for e in log:
                if e.old.strip("0"):
                    entries.append((before, e.old))
                if e.new.strip("0"):
                    entries.append((float(e.time), e.new))
                before = float(e.time)
        entries.sort(key=lambda e: e[0])
        return entries

    def tips(self, new: set[str]) -> list[tuple[float, str]]:
        """``(when, commit)`` of the log entries whose commit is one of ``new`` (a scan's new
        commits), in :meth:`times`' order, each commit once (its first): what
        :func:`~vault_mem.store.history.reached_first` walks from, so that the commits each
        reached first arrived then, as :meth:`times` finds, without the scan's graph in memory
        (one entry per log line, not per commit)."""
        out: dict[str, float] = {}
        for time, tip in self._dated():
            if tip in new and tip not in out:
                out[tip] = time
        return [(time, tip) for tip, time in out.items()]

    def times(self, parents: dict[str, list[str]]) -> dict[str, float]:
        """When each commit of ``parents`` (a scan's new commits: ``{commit: its parents}``) was
        first named here: the date of the earliest log entry whose commit reaches it (or whose
        old value does: the date of the entry before it, ``-inf`` for a log's first entry, whose
        older entries are gone). A
        commit left out was named by no log (a tag, ``FETCH_HEAD`` alone): when is not known.
        One walk of the commits, entries in date order (a commit reached once is not walked
        again: its ancestors were reached then too)."""
        when: dict[str, float] = {}
        for time, tip in self._dated():
            stack = [tip]
            while stack:
                commit = stack.pop()
                if commit in when or commit not in parents:
                    continue  # reached earlier, or not new in this scan (nor then its ancestors)
                when[commit] = time
                stack.extend(parents[commit])
        return when
