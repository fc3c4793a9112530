"""A module's logger, made at its first message: :mod:`logging` is imported only by a process
that logs.

The store, index and vault modules log only when something is off (a lock waited for, a
damaged index rebuilt, a check skipped), yet importing :mod:`logging` (with :mod:`traceback`,
:mod:`threading` and more) cost every one-shot command ~3 ms of start-up (issue 29). A
:class:`Logger` stands where ``logging.getLogger(name)`` stood and hands every attribute to that
logger, got at the first use; handlers, levels and pytest's ``caplog`` see the same named
logger as before.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Logger"]


class Logger:
    """``logging.getLogger(name)``, looked up when first used."""

    __slots__ = ("_name", "_real")

    def __init__(self, name: str):
        self._name = name
        self._real: Any = None

    def __getattr__(self, attr: str) -> Any:
        real = self._real
        if real is None:
            import logging

            real = self._real = logging.getLogger(self._name)
        return getattr(real, attr)

    def __repr__(self) -> str:
        return f"<lazy logger {self._name}>"
