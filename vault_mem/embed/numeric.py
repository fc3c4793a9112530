"""numpy, imported when a vector is first touched rather than when a module that may touch one is.

A one-shot command that compares no vectors (a write with no model, ``get``, ``list``, ``log``)
then never pays numpy's import: 0.1-0.5 s of a ~0.3 s process (issue 29). ``np`` stands in for the
module: its first attribute read imports numpy (under Python's import lock, so a thread that gets
there meanwhile waits for the whole module) and every attribute read is then kept on the stand-in,
so later reads cost what a module attribute costs. Annotations name ``np.ndarray`` as text only
(``from __future__ import annotations``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["np"]


class _Numpy:
    """``numpy``, imported at the first attribute read."""

    def __getattr__(self, name: str) -> Any:
        import numpy

        value = getattr(numpy, name)
        setattr(self, name, value)  # found in the instance's dict from now on: no __getattr__
        return value


if TYPE_CHECKING:
    import numpy as np
else:
    np = _Numpy()
