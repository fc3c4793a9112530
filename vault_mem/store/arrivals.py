"""When this repository first named a commit: git's ref logs, read as a record of arrivals.

A text two commits give, one made here and one a peer's on an unrelated line, is whoever's
came first to this repository (:class:`vault_mem.vault.authors.Origins`). The commit graph cannot
say (a peer dates a commit as it likes, and a copy on a line of its own descends from nothing of
ours); this repository's own logs can: every way a commit comes in (a sync's fetch, ``git
fetch``/``pull``, a clone) moves a logged ref, and the log says when, by this machine's clock.
So a peer's copy of the person's memory, pushed after the person's commit, arrived after it,
whatever its dates; a text the person took from a peer's commit had arrived before.

Where the logs cannot say, the answer is "named before" (the safe side: the text stays the
peer's): a commit only a name without a log reaches (a tag, ``FETCH_HEAD``), or a log whose
older entries are gone (``git reflog expire``: what the ref held before its first entry left
counts as named at any time).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from vault_mem.store.git import GitRepo
from vault_mem.store.gitobjects import ZERO_OID

__all__ = ["Arrivals", "log_files"]


def log_files(repo: GitRepo) -> list[str]:
    """The ref logs whose commits this repository names: HEAD's and every ref's, except the
    stash's (a stash holds the person's own edits in commits no hook records)."""
    stash = os.path.join(repo.common_dir, "logs", "refs", "stash")
    logs = [os.path.join(repo.git_dir, "logs", "HEAD")]
    for folder, _dirs, files in os.walk(os.path.join(repo.common_dir, "logs", "refs")):
        logs += [os.path.join(folder, f) for f in files if os.path.join(folder, f) != stash]
    return logs


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
    """The ref logs of one repository, read once, for any number of questions of
    :meth:`named_before` (one scan of the texts' origins asks a few)."""

    def __init__(self, repo: GitRepo) -> None:
        self.repo = repo
        self.logs = [e for e in (_entries(p) for p in log_files(repo)) if e]

    def named_before(self, commit: str, when: int) -> bool:
        """Whether this repository named ``commit`` at ``when`` (seconds since the epoch): a
        log entry dated then or earlier names a commit that reaches it. True also where the logs
        cannot say: no logged entry ever reached it (a name without a log holds it), or a log
        that begins after ``when`` held, before that, a commit that reaches it."""
        before: set[str] = set()
        after: set[str] = set()
        for entries in self.logs:
            if entries[0].old.strip("0") and entries[0].time > when:
                before.add(entries[0].old)  # the log's older entries are gone: it held this then
            for e in entries:
                if e.new.strip("0"):
                    (before if e.time <= when else after).add(e.new)
        if self._reaches(before, commit):
            return True
        return not self._reaches(after - before, commit)

    def _reaches(self, tips: set[str], commit: str) -> bool:
        """Whether ``commit`` is one of ``tips`` or an ancestor of one (one ``git rev-list``)."""
        tips.discard(ZERO_OID)
        if not tips:
            return False
        if commit in tips:
            return True
        stdin = f"{commit}\n" + "".join(f"^{t}\n" for t in sorted(tips))
        proc = self.repo.run("rev-list", "--ignore-missing", "-n1", "--stdin", input=stdin.encode("ascii"),
                             check=False, cwd=self.repo.toplevel)
        if proc.returncode != 0:
            return True  # git cannot say: the safe side
        return not proc.stdout.strip()
