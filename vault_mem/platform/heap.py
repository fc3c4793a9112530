"""Handing freed heap memory back to the system: glibc's ``malloc_trim``; nothing elsewhere
(macOS's allocator returns freed pages by itself)."""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

from vault_mem.platform.kind import LINUX, flavour

_trim: list[Callable[[int], int] | None] = []


def _malloc_trim() -> Callable[[int], int] | None:
    if not _trim:
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _trim.append(libc.malloc_trim)
        except (OSError, AttributeError):  # not glibc (musl, macOS)
            _trim.append(None)
    return _trim[0]


def trim_native() -> bool:
    """Whether :func:`trim_heap` can hand memory back here."""
    return flavour() == LINUX and _malloc_trim() is not None


def trim_heap() -> None:
    """Give the memory freed after a big one-off job back to the system (a no-op where that
    cannot be done)."""
    if trim_native():
        _malloc_trim()(0)
