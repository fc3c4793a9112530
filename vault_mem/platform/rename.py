"""The checked rename's swap: exchange two files atomically, so that the file swapped out can be
compared once it can no longer change under its name.

- Linux: ``renameat2(RENAME_EXCHANGE)``;
- macOS: ``renamex_np(RENAME_SWAP)`` (through ctypes);
- portable (and where the file system refuses a swap): the target is renamed aside, the new file
  is hard-linked into its place, which fails if a file appeared there meanwhile (then
  ``FileExistsError``: the file that appeared is kept), and the old file takes the new one's
  name. Not atomic to readers (the name is missing for two system calls), but no save that
  lands by rename is ever overwritten.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from pathlib import Path

from vault_mem.platform.kind import BSD, LINUX, flavour, is_macos

_RENAME_EXCHANGE = 2  # linux/fs.h
_RENAME_SWAP = 2  # macOS sys/stdio.h
_AT_FDCWD = -100
_UNSUPPORTED = (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, getattr(errno, "ENOTSUP", errno.EOPNOTSUPP))
_found: dict[str, Callable[..., int] | None] = {}


def _libc_function(name: str, argtypes: list) -> Callable[..., int] | None:
    import ctypes  # lazy: only an update swaps files (start-up time of every one-shot command)

    if name not in _found:
        try:
            fn = getattr(ctypes.CDLL(None, use_errno=True), name)
            fn.argtypes = argtypes
            fn.restype = ctypes.c_int
        except (AttributeError, OSError, TypeError):  # not in this C library (or no C library)
            fn = None
        _found[name] = fn
    return _found[name]


def _native() -> Callable[[Path, Path], int] | None:
    """The system call that swaps two paths here, as ``f(a, b) -> 0 or -1``, or None."""
    import ctypes  # lazy: see _libc_function

    if flavour() == LINUX:
        fn = _libc_function("renameat2", [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                          ctypes.c_uint])
        if fn is not None:
            return lambda a, b: fn(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    elif flavour() == BSD and is_macos():
        fn = _libc_function("renamex_np", [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint])
        if fn is not None:
            return lambda a, b: fn(os.fsencode(a), os.fsencode(b), _RENAME_SWAP)
    return None


def exchange_native() -> bool:
    """Whether :func:`exchange` uses an atomic swap of the kernel here."""
    return _native() is not None


def exchange(a: Path, b: Path, *, scratch: Path) -> None:
    """Swap the files at ``a`` and ``b``: afterwards ``b`` holds what ``a`` held and ``a`` what
    ``b`` held. ``scratch`` is a free name in ``b``'s folder for the portable way.

    Raises ``FileNotFoundError`` when ``b`` is gone, ``FileExistsError`` when (portable way only)
    a file appeared at ``b`` while it was swapped: that file stays, ``a`` then holds the old
    ``b``. Other failures raise ``OSError``."""
    native = _native()
    if native is not None:
        if native(a, b) == 0:
            return
        import ctypes  # (imported by _native already)

        err = ctypes.get_errno()
        if err not in _UNSUPPORTED:
            raise OSError(err, os.strerror(err), str(b))
        # this file system cannot swap: the portable way
    os.rename(b, scratch)  # FileNotFoundError: b is gone
    try:
        os.link(a, b, follow_symlinks=False)
    except FileExistsError:  # a save by rename landed at b meanwhile: it stays
        os.replace(scratch, a)
        raise
    except OSError as exc:
        if exc.errno not in (*_UNSUPPORTED, errno.EPERM, errno.EMLINK):
            _put_back(scratch, b)
            raise
        os.replace(a, b)  # no hard links on this file system: a rename (a window of one call)
    os.replace(scratch, a)


def _put_back(scratch: Path, b: Path) -> None:
    try:
        os.link(scratch, b, follow_symlinks=False)  # unless a new file is there
    except FileExistsError:
        os.unlink(scratch)
    except OSError:
        os.rename(scratch, b)
    else:
        os.unlink(scratch)
