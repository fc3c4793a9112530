"""Which implementation of the OS-specific mechanisms runs here: ``linux``, ``bsd`` (macOS and
the BSDs) or ``portable`` (anything else, or forced by ``VAULT_MEM_PORTABLE=1``)."""

from __future__ import annotations

import os
import sys

#: set to 1 to force every portable implementation (read at each call: subprocesses inherit it)
PORTABLE_ENV = "VAULT_MEM_PORTABLE"

LINUX, BSD, PORTABLE = "linux", "bsd", "portable"
_BSDS = ("darwin", "freebsd", "openbsd", "netbsd", "dragonfly")


def portable() -> bool:
    """Whether ``VAULT_MEM_PORTABLE`` forces the portable implementations."""
    return os.environ.get(PORTABLE_ENV, "").strip().lower() in ("1", "yes", "true", "on")


def flavour() -> str:
    """:data:`LINUX`, :data:`BSD` or :data:`PORTABLE`: the implementations used right now."""
    if portable():
        return PORTABLE
    if sys.platform.startswith("linux"):
        return LINUX
    if sys.platform.startswith(_BSDS):
        return BSD
    return PORTABLE


def is_macos() -> bool:
    """Whether this is macOS (and the portable implementations are not forced)."""
    return not portable() and sys.platform == "darwin"
