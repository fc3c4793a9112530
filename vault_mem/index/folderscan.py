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
from vault_mem.platform.folders import folder_stats

__all__ = ["begin_scan", "drop_scan", "path_sig", "scan_folders", "stat_sig", "take_scan"]


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


def scan_folders(root: Path) -> dict[str, tuple[int, int]]:
    """rel path -> (mtime_ns, size) for every candidate memory file (non-recursive).

    One ``lstat`` per file is the floor of a read without a daemon (issue 29: ~2 us of kernel
    time each here, most of a 100k scan), so the loop around it does little else: names first,
    then each file stat'ed relative to its open folder where the system allows it, a big folder
    by several threads (:mod:`vault_mem.platform.folders`)."""
    found: dict[str, tuple[int, int]] = {}
    for folder in FOLDER_TYPES:
        # a folder or a device named like a memory is stat'ed too: a problem to report
        links = folder_stats(root / folder, is_memory_name, found, f"{folder}/")
        base = os.path.join(root, folder, "")
        for name in links or ():  # a memory-named symlink is followed
            sig = path_sig(base + name)
            if sig is not None:
                found[f"{folder}/{name}"] = sig
    return found


class _Early:
    """A scan begun on a thread: its vault (by real path), and its answer once done."""

    __slots__ = ("found", "key", "thread")

    def __init__(self, key: str) -> None:
        self.key = key
        self.found: dict[str, tuple[int, int]] | None = None
        self.thread: threading.Thread | None = None


_early: _Early | None = None


def begin_scan(root: Path) -> None:
    """Begin :func:`scan_folders` of ``root`` on a thread (replacing any scan begun before); the
    first :func:`take_scan` of the same vault in this process waits for it and takes it."""
    global _early
    early = _Early(os.path.realpath(root))

    def run() -> None:
        try:
            early.found = scan_folders(Path(early.key))
        except Exception:  # noqa: BLE001 - the reconcile scans again and meets it itself
            early.found = None

    early.thread = threading.Thread(target=run, name="vault-mem-scan", daemon=True)
    _early = early
    early.thread.start()


def take_scan(root: Path) -> dict[str, tuple[int, int]] | None:
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
