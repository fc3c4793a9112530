"""How long a file's change takes to settle before its stat can stand for its content.

A file system stamps a change with a coarse clock (Linux's ticks lag the real time by up to a
few milliseconds; FAT keeps 2 s), so two changes within one tick can leave the same stat, as
git's "racy" index entries. A kept answer stamped by a file's stat (the approvals' parse, the
model-check record, git's discovery and config readings) is kept only for a file that changed
at least this long before it was read: one home for the figure, and for the stamp itself
(:class:`Stamp`: the same fields wherever a file's version is told by its stat).
"""

from __future__ import annotations

import os
import time
from typing import NamedTuple

__all__ = ["SETTLE_NS", "Stamp", "settled_stamp", "stamp", "stamp_at"]

#: a file changed less than this before it was read is read again next time (its stat may not
#: tell that change from a later one within the same tick)
SETTLE_NS = 2_000_000_000


class Stamp(NamedTuple):
    """What tells one version of a file from another without reading it: a replacement (a new
    device or inode), an edit in place (its size, its change time) or a change of its
    modification time moves it (a ``chmod`` moves the change time: the mode is not needed)."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @property
    def changed_ns(self) -> int:
        """When the file last changed, by either of its times."""
        return max(self.mtime_ns, self.ctime_ns)


def stamp(st: os.stat_result) -> Stamp:
    """The :class:`Stamp` of a stat (``os.stat``, ``os.lstat``, ``os.fstat``)."""
    return Stamp(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def stamp_at(path: str | os.PathLike, *, follow: bool = True) -> Stamp | None:
    """The :class:`Stamp` of the file at ``path`` (``follow``: of the file a link names, else
    of the link), None when it cannot be told (missing, under a file, an unreadable folder)."""
    try:
        return stamp(os.stat(path) if follow else os.lstat(path))
    except OSError:
        return None


def settled_stamp(path: str | os.PathLike, *, follow: bool = True) -> Stamp | None:
    """The :class:`Stamp` of the file at ``path`` for a cache of what was read from it, None
    when it changed less than :data:`SETTLE_NS` ago (the clock's tick may put a second change at
    the same times, as git's "racy" entries: keep nothing). ``follow``: a link's target (else
    the link's own stat). :class:`OSError` (a missing file) as ``os.stat`` raises it."""
    st = stamp(os.stat(path) if follow else os.lstat(path))
    return None if time.time_ns() - st.changed_ns < SETTLE_NS else st
