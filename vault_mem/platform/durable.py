"""``fsync`` where durability is promised: on macOS a plain ``fsync`` only reaches the drive's
cache, so ``F_FULLFSYNC`` asks the drive to write it through (falling back to ``fsync`` where the
file system refuses it)."""

from __future__ import annotations

import os
from pathlib import Path

from vault_mem.platform.kind import is_macos
from vault_mem.platform.locking import fcntl_module


def full_fsync_native() -> bool:
    """Whether :func:`fsync` uses macOS's ``F_FULLFSYNC`` here."""
    fcntl = fcntl_module()
    return is_macos() and fcntl is not None and hasattr(fcntl, "F_FULLFSYNC")


def fsync(fd: int) -> None:
    """Make what was written to ``fd`` durable (on the disk, not in a cache)."""
    fcntl = fcntl_module()
    if full_fsync_native():
        try:
            fcntl.fcntl(fd, fcntl.F_FULLFSYNC)
            return
        except OSError:
            pass  # a file system without it (a network share): fsync is what there is
    os.fsync(fd)


def fsync_dir(folder: Path) -> None:
    """Make a rename or a new name in ``folder`` durable (a no-op where folders cannot be
    opened, as on Windows)."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except (PermissionError, IsADirectoryError):
        return
    try:
        fsync(dir_fd)
    finally:
        os.close(dir_fd)
