"""Which memory files the type folders hold, with each one's (mtime_ns, size): the stat of every
file a read without a daemon starts from (issue 29: at 100k files most of that read).

Light to import (no parsing, no secret rules). Kept as plain ``(name, mtime_ns, size)`` tuples per
folder (:class:`Scan`): a read with nothing changed sums them folder by folder
(:func:`vault_mem.index.scansum.scan_total`) and builds no path per file.

Tried and not kept (perf42, docs/benchmarks.md): beginning this scan on a thread at the start of a
one-shot read, to overlap its stat calls with the read's imports. A thread coming back from a
``stat`` waits for the interpreter's lock, which the importing thread gives up only every switch
interval (5 ms): the scan hardly moved until the imports were done, and the read cost no less.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from vault_mem.config import FOLDER_TYPES
from vault_mem.model.memory import is_memory_name
from vault_mem.platform.folders import Entry, folder_entries, held_ns

__all__ = ["Scan", "path_sig", "scan", "scan_folders", "stat_sig"]


def stat_sig(st: os.stat_result) -> tuple[int, int]:
    """The (mtime_ns, size) pair reconcile compares with the stored row."""
    return held_ns(st.st_mtime_ns), st.st_size


def path_sig(path) -> tuple[int, int] | None:
    """(mtime_ns, size) following symlinks; the link's own for a dangling one or a loop (the read
    then refuses the link by name, as any); None if gone."""
    try:
        return stat_sig(os.stat(path))
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ELOOP):
            raise
        try:
            return stat_sig(os.lstat(path))
        except FileNotFoundError:
            return None


class Scan:
    """What the type folders hold: per folder, ``(name, mtime_ns, size)`` of each memory file,
    as the stat calls gave them (no path built per file: a read with nothing changed needs none,
    :func:`vault_mem.index.scansum.scan_total`); :meth:`as_dict` by vault-relative path."""

    __slots__ = ("_dict", "folders")

    def __init__(self, folders: list[tuple[str, list[Entry]]]) -> None:
        self.folders = folders
        self._dict: dict[str, tuple[int, int]] | None = None

    def __len__(self) -> int:
        return sum(len(entries) for _, entries in self.folders)

    def as_dict(self) -> dict[str, tuple[int, int]]:
        """rel path -> (mtime_ns, size), built once."""
        if self._dict is None:
            self._dict = {f"{folder}/{name}": (mtime_ns, size)
                          for folder, entries in self.folders for name, mtime_ns, size in entries}
        return self._dict


def scan(root: Path) -> Scan:
    """Every candidate memory file of the type folders (non-recursive) with its stat data.

    One ``lstat`` per file is the floor of a read without a daemon (issue 29: ~2 us of kernel
    time each here, most of a 100k scan), so the loop around it does little else: names first,
    then each file stat'ed relative to its open folder where the system allows it, a big folder
    by several threads (:mod:`vault_mem.platform.folders`)."""
    folders: list[tuple[str, list[Entry]]] = []
    for folder in FOLDER_TYPES:
        # a folder or a device named like a memory is stat'ed too: a problem to report
        got = folder_entries(root / folder, is_memory_name)
        if got is None:
            continue
        entries, links = got
        base = os.path.join(root, folder, "")
        for name in links:  # a memory-named symlink is followed
            sig = path_sig(base + name)
            if sig is not None:
                entries.append((name, *sig))
        folders.append((folder, entries))
    return Scan(folders)


def holds_memory_files(root: Path) -> bool:
    """Whether any type folder holds a file named like a memory (names only, stopping at the
    first): what tells a fresh clone's empty index, which has files to catch up with, from a new
    vault's, which has nothing to wait for. A folder that cannot be listed counts as holding one
    (waiting is the safe side)."""
    for folder in FOLDER_TYPES:
        try:
            with os.scandir(root / folder) as entries:
                if any(is_memory_name(e.name) for e in entries):
                    return True
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return True
    return False


def scan_folders(root: Path) -> dict[str, tuple[int, int]]:
    """rel path -> (mtime_ns, size) for every candidate memory file (:func:`scan`)."""
    return scan(root).as_dict()
