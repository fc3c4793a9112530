"""Regular expressions compiled at their first use, not when their module is imported.

The secret gate holds ~180 patterns and a typical memory's text reaches ~30 of them (the rest
wait behind a marker, a label or a shape the text does not have); compiling all of them cost a
one-shot ``vault-mem remember`` ~50 ms of its ~0.45 s CPU (issue 29). :func:`lazy` gives a stand-in
whose first attribute read compiles the pattern and keeps the compiled pattern's methods on the
stand-in, so later calls cost what a compiled pattern's cost. It is not an ``re.Pattern``: pass
it to no ``re`` function (call its methods instead), and compare no match's ``.re`` with it.
"""

from __future__ import annotations

import re
from typing import Any, cast

__all__ = ["lazy"]

#: what a stand-in copies from the compiled pattern at its first use
_ATTRS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner",
          "flags", "groups", "groupindex")


class _LazyPattern:
    """``re.compile(pattern, flags)``, done at the first attribute read."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(self.pattern, self._flags)  # an error in a pattern shows at its first use
        for attr in _ATTRS:  # kept in the instance's dict: no __getattr__ from now on
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy({self.pattern!r})"


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern compiled at its first use (typed as the compiled pattern it stands for)."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
