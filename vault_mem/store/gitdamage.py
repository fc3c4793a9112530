"""Damaged git history: git's words for a missing or corrupt object, and the one wording of
the problem with its fix (``git fsck``, then restore from a clone or a backup)."""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["damage_in", "damaged_history_message"]

#: git's words when an object it needs is missing or corrupt (a loose file deleted or damaged, a
#: pack entry that does not inflate): the history is damaged, not the command or its arguments
_DAMAGE = re.compile(
    r"unable to read tree|[Cc]ould not read [0-9a-f]{7,}|unable to read [0-9a-f]{40}|bad object [0-9a-f]{7,}"
    r"|bad tree object|[Ff]ailed to traverse parents|cannot simplify commit|is corrupt|inflate:"
    r"|unable to unpack|missing (?:blob|tree|commit) [0-9a-f]{7,}|unable to parse commit"
    r"|object file \S+ is empty|invalid object [0-9a-f]{7,}")


def damage_in(said: str) -> bool:
    """True when git's words ``said`` name a missing or corrupt object of the repository."""
    return _DAMAGE.search(said) is not None


def damaged_history_message(root: Path, said: str) -> str:
    """The one wording of damaged history with its fix: git's own words first."""
    return (f"{said}: an object of git history in {root} is missing or corrupt; `git fsck` names it: "
            "restore it from a clone or a backup (`git fetch` from a remote that has it), then retry")
