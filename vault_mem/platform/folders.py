"""The stat of every file of a folder, relative to the open folder where the system allows it.

A read without a daemon stats each memory file to see what changed (issue 29: one ``lstat`` per
file is most of a 100k scan). Relative to an open descriptor of the folder (``dir_fd``: Linux,
macOS, the BSDs) the kernel does not walk the vault's path again for each file; elsewhere, or with
``VAULT_MEM_PORTABLE=1``, each file is stat'ed by its full path: the same answers, slower.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from vault_mem.platform.kind import portable

__all__ = ["folder_stats", "folder_stats_native"]

_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BY_FD = (os.scandir in os.supports_fd and os.stat in os.supports_dir_fd and os.stat in os.supports_follow_symlinks
          and bool(_O_DIRECTORY))


def folder_stats_native() -> bool:
    """Whether files are stat'ed relative to their open folder here."""
    return _BY_FD and not portable()


def folder_stats(folder: Path, wanted: Callable[[str], bool], into: dict[str, tuple[int, int]],
                 prefix: str = "") -> list[str] | None:
    """``into[prefix + name] = (mtime_ns, size)`` from the ``lstat`` of each entry of ``folder``
    (not recursive) whose name ``wanted`` accepts and that is not a symbolic link (a folder named
    like a memory included: the caller reports it); returns the names of the accepted symbolic
    links (their d_type says so without a stat; the caller decides whether to follow them), or
    None when ``folder`` is missing or not a folder. An entry that vanishes meanwhile is left
    out. Filled in place: this loop is most of a 100k no-change check."""
    by_fd = folder_stats_native()
    try:
        fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY) if by_fd else None
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        try:
            it = os.scandir(folder if fd is None else fd)
        except (FileNotFoundError, NotADirectoryError):
            return None
        with it:
            names, links = [], []
            for entry in it:
                if wanted(entry.name):
                    (links if entry.is_symlink() else names).append(entry.name)
        stat, base = os.stat, os.path.join(folder, "")
        for name in names:
            try:
                st = stat(name, dir_fd=fd, follow_symlinks=False) if fd is not None else \
                    stat(base + name, follow_symlinks=False)
            except FileNotFoundError:
                continue  # vanished while scanning
            into[prefix + name] = (st.st_mtime_ns, st.st_size)
        return links
    finally:
        if fd is not None:
            os.close(fd)
