"""The one switch for the stress tests' sizes (``tests/stress.py``, ``VAULT_MEM_STRESS``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import stress

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize(("value", "scale"), [(None, None), ("", None), ("everyday", None), (" Everyday ", None),
                                              ("full", 1.0), ("FULL", 1.0), ("4", 4.0), ("0.5", 0.5)])
def test_the_scale_is_read_from_its_one_variable(value, scale):
    assert stress._scale(value) == scale


@pytest.mark.parametrize("value", ["ful", "0", "-1", "nan", "inf", "everyday,full", "yes"])
def test_a_scale_that_is_none_of_the_documented_ones_stops_the_run(value):
    with pytest.raises(ValueError, match="VAULT_MEM_STRESS"):
        stress._scale(value)


def _sized_under(value: str | None, full: int, everyday: int) -> int:
    """``sized(full, everyday)`` in a new interpreter whose environment has ``VAULT_MEM_STRESS=value``."""
    env = {k: v for k, v in os.environ.items() if k != stress.ENV}
    if value is not None:
        env[stress.ENV] = value
    proc = subprocess.run([sys.executable, "-c", f"import stress; print(stress.sized({full}, {everyday}))"],
                          cwd=TESTS, env=env, capture_output=True, text=True, check=True)
    return int(proc.stdout)


def test_the_everyday_suite_runs_the_everyday_size_and_the_figures_the_full_one():
    assert _sized_under(None, 100, 30) == 30
    assert _sized_under("full", 100, 30) == 100
    assert _sized_under("2", 100, 30) == 200
    assert _sized_under("0.1", 100, 30) == 30  # a scale never goes under the everyday size


def test_an_everyday_size_above_the_full_one_is_a_mistake_in_the_test():
    with pytest.raises(ValueError):
        stress.sized(10, 20)
    with pytest.raises(ValueError):
        stress.sized(10, 0)
