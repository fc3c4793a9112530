"""The command line of a bench script that runs pytest: its own options and test files, then
``--`` and the options passed to pytest as they are (``bench_suite_cpu.py``,
``bench_suite_procs.py``)."""

from __future__ import annotations


def split_pytest_args(argv: list[str]) -> tuple[list[str], list[str]]:
    """(the script's own arguments, pytest's): ``argv`` cut at its first ``--``, which belongs
    to neither; all of it is the script's when there is none."""
    if "--" not in argv:
        return list(argv), []
    at = argv.index("--")
    return argv[:at], argv[at + 1:]
