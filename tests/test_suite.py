"""The suite's own set-up (tests/conftest.py, pyproject.toml's pytest options)."""

from __future__ import annotations

from pathlib import Path

from conftest import LONGEST_FILES


def test_the_files_started_first_are_there():
    """A file renamed or removed would silently go back to its place in xdist's queue."""
    here = Path(__file__).resolve().parent
    assert [name for name in LONGEST_FILES if not (here / name).is_file()] == []
    assert len(set(LONGEST_FILES)) == len(LONGEST_FILES)
