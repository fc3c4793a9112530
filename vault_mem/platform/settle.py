"""How long a file's change takes to settle before its stat can stand for its content.

A file system stamps a change with a coarse clock (Linux's ticks lag the real time by up to a
few milliseconds; FAT keeps 2 s), so two changes within one tick can leave the same stat, as
git's "racy" index entries. A kept answer stamped by a file's stat (the approvals' parse, the
model-check record, git's discovery and config readings) is kept only for a file that changed
at least this long before it was read: one home for the figure.
"""

from __future__ import annotations

__all__ = ["SETTLE_NS"]

#: a file changed less than this before it was read is read again next time (its stat may not
#: tell that change from a later one within the same tick)
SETTLE_NS = 2_000_000_000
