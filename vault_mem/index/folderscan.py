"""Which memory files the type folders hold, with each one's (mtime_ns, size): the stat of every
file a read without a daemon starts from, and that scan begun early by a one-shot read.

Light to import (no parsing, no secret rules): a one-shot ``recall``, ``get`` or ``list`` that no
daemon answered begins the scan on a thread (:func:`begin_scan`) before it imports the vault's
code, so the kernel's work of 100k ``stat`` calls overlaps those imports (issue 29); the first
reconcile of that vault in the process takes the scan's answer (:func:`take_scan`) instead of
scanning again. The scan starts after the command did, so an edit made before the command,
in place or not, is in it: the guarantee of a scan at the reconcile. An edit made after it
began is seen by the next read, as one made just after a scan always was (the rows keep what
each file read gave, and the scan sum is the rows'). Code of this process that changes memory
files before its first reconcile (the recovery of an interrupted write) drops the early scan
(:func:`drop_scan`).
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from vault_mem.config import FOLDER_TYPES
from vault_mem.model.memory import is_memory_name
from vault_mem.platform.folders import Entry, folder_entries

__all__ = ["Scan", "begin_scan", "drop_scan", "path_sig", "scan", "scan_folders", "stat_sig", "take_scan"]


def stat_sig(st: os.stat_result) -> tuple[int, int]:
    """The (mtime_ns, size) pair reconcile compares with the stored row."""
    return st.st_mtime_ns, st.st_size


def path_sig(path) -> tuple[int, int] | None:
    """(mtime_ns, size) following symlinks; the link's own for a dangling one; None if gone."""
    try:
        return stat_sig(os.stat(path))
    except FileNotFoundError:
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


def scan_folders(root: Path) -> dict[str, tuple[int, int]]:
    """rel path -> (mtime_ns, size) for every candidate memory file (:func:`scan`)."""
    return scan(root).as_dict()


class _Early:
    """A scan begun on a thread: its vault (by real path), and its answer once done."""

    __slots__ = ("found", "key", "thread")

    def __init__(self, key: str) -> None:
        self.key = key
        self.found: Scan | None = None
        self.thread: threading.Thread | None = None


_early: _Early | None = None


def begin_scan(root: Path) -> None:
    """Begin :func:`scan` of ``root`` on a thread (replacing any scan begun before); the
    first :func:`take_scan` of the same vault in this process waits for it and takes it."""
    global _early
    early = _Early(os.path.realpath(root))

    def run() -> None:
        try:
            early.found = scan(Path(early.key))
        except Exception:  # noqa: BLE001 - the reconcile scans again and meets it itself
            early.found = None

    early.thread = threading.Thread(target=run, name="vault-mem-scan", daemon=True)
    _early = early
    early.thread.start()


def take_scan(root: Path) -> Scan | None:
    """The answer of the scan :func:`begin_scan` began for ``root``, once (waiting for it to
    end); None when none was begun for this vault, it was taken or dropped, or it failed."""
    global _early
    early = _early
    if early is None or early.key != os.path.realpath(root):
        return None
    _early = None
    assert early.thread is not None
    early.thread.join()
    return early.found


def drop_scan() -> None:
    """Forget a scan begun early (it ends on its own): this process changed memory files since
    it began, so the next reconcile must scan them as they are now."""
    global _early
    _early = None
