"""The sizes of the suite's race, stress, property and fuzz tests, in one place.

Each such test names two sizes through :func:`sized`: its *full* size (what RELIABILITY.md's
figures were measured at, and what ``bench/reliability_figures.py`` runs) and its *everyday*
size (what ``python -m pytest`` and CI run), with a comment saying why the everyday size still
reaches the window the test is there for: the count that made it fail on the bug it guards, where
the history tells, or how many times the race's two sides meet at that size. The assertions are
the same at every size; only how many times the test tries changes.

``VAULT_MEM_STRESS`` picks the scale:

- unset or ``everyday``: the everyday sizes (the suite's ~4 minute budget in CI, issue 28);
- ``full``: the full sizes (``bench/reliability_figures.py`` sets it);
- a number N > 0: N times the full sizes, rounded up, never under the everyday size (``4`` for a
  long soak before a release, say).

A value that is none of these stops the run at collection with what it may be: a typo must not
quietly run the everyday sizes when the full ones were asked for.
"""

from __future__ import annotations

import math
import os

ENV = "VAULT_MEM_STRESS"


def _scale(value: str | None) -> float | None:
    """None for the everyday sizes, else the factor on the full sizes."""
    text = (value or "").strip().lower()
    if text in ("", "everyday"):
        return None
    if text == "full":
        return 1.0
    try:
        factor = float(text)
    except ValueError:
        factor = 0.0
    if not (factor > 0 and math.isfinite(factor)):
        raise ValueError(f"{ENV}={value!r}: use 'everyday' (the default), 'full', or a number over 0 "
                         f"(that many times the full sizes)")
    return factor


SCALE = _scale(os.environ.get(ENV))
#: True when the full sizes (or more) run: a test's record of its figures says which it ran at
FULL = SCALE is not None


def sized(full: int, everyday: int) -> int:
    """The size to run: ``everyday`` unless ``VAULT_MEM_STRESS`` asks for the full sizes (or N
    times them)."""
    if not 0 < everyday <= full:
        raise ValueError(f"an everyday size ({everyday}) is above 0 and at most the full size ({full})")
    if SCALE is None:
        return everyday
    return max(everyday, math.ceil(full * SCALE))
