"""Advisory file locks (``flock``): held by an open descriptor, dropped by the kernel when the
process dies. Where ``fcntl`` does not exist (Windows) the package still imports, and
:func:`available` says locks cannot be taken (the commands then say they need a POSIX system)."""

from __future__ import annotations

import errno
from types import ModuleType

try:
    import fcntl as _fcntl
except ImportError:  # Windows: no fcntl
    _fcntl = None


def fcntl_module() -> ModuleType | None:
    """The ``fcntl`` module, or None where this system has none (for this package's own
    platform modules)."""
    return _fcntl


def available() -> bool:
    """Whether this system has ``flock`` locks (every POSIX system does)."""
    return _fcntl is not None


def _need() -> ModuleType:
    if _fcntl is None:
        raise OSError(errno.ENOSYS, "file locks need a POSIX system (Linux, macOS, BSD)")
    return _fcntl


def try_lock(fd: int, *, shared: bool = False) -> bool:
    """Take the lock on ``fd`` without waiting: True when taken, False when another holds it."""
    fcntl = _need()
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def lock(fd: int) -> None:
    """Take the exclusive lock on ``fd``, waiting as long as it takes."""
    fcntl = _need()
    fcntl.flock(fd, fcntl.LOCK_EX)


def unlock(fd: int) -> None:
    """Release the lock on ``fd``."""
    fcntl = _need()
    fcntl.flock(fd, fcntl.LOCK_UN)
