"""One runner for the git processes that talk to another repository or check what came from one
(:func:`vault_mem.store.network._run_git`): the check of a peer's objects made after a refused
fetch (``pack-objects``/``index-pack`` of :func:`~vault_mem.store.network.checked_part`) is
stopped at its time-out with its whole process group, as a fetch is; and the fsck message ids
this machine's git knows are asked of it once, not learnt by failing the check. Real git and
real processes."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
from conftest import app_repository

from vault_mem.errors import SyncError
from vault_mem.store import network
from vault_mem.store.git import GitRepo


def _running(marker: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines() if marker in line and "ps -eo" not in line]


@pytest.mark.skipif(os.name != "posix", reason="process groups")
def test_a_check_of_a_peers_objects_stopped_at_its_time_out_leaves_no_process_behind(tmp_path: Path) -> None:
    """Before: the check's git ran under ``subprocess.run(timeout=...)``, which kills git alone:
    what git had started (here an alias's shell and its children) went on after the sync had
    given up. Now the whole group is stopped, and the sync says it took too long."""
    repo = GitRepo(app_repository(tmp_path / "proj"))
    marker = f"{os.getpid() % 997 + 13}.{time.time_ns() % 10**6:06d}"  # a sleep no one else runs
    try:
        with pytest.raises(SyncError, match="longer than the fetch's time-out"):
            network._bounded(repo, ["-c", f"alias.stall=!sleep {marker} & sleep {marker}; :", "stall"], {},
                             time.monotonic() + 1.0, stdin=b"")
        assert _running(f"sleep {marker}") == []
    finally:
        for line in _running(f"sleep {marker}"):
            os.kill(int(line.split()[0]), 9)


def test_the_check_names_only_the_message_ids_this_git_knows_asked_once(monkeypatch) -> None:
    """The ``--strict=`` of the check's ``index-pack`` holds the ids of the let-pass list this
    git knows (an older git has no ``largePathname``), asked of git before the first check, once
    per process; before, it was learnt by running the check and reading its failure, one id per
    failed run. git accepts the option (it says how it is used, not which id it lacks)."""
    monkeypatch.setattr(network, "_KNOWN_TO_GIT", {})
    started = []
    real = subprocess.run

    def run(argv, *a, **kw):
        started.append(argv)
        return real(argv, *a, **kw)

    monkeypatch.setattr(subprocess, "run", run)
    option = network._checked_pack()
    asked = len(started)
    assert network._checked_pack() == option and len(started) == asked  # once per process
    assert 1 <= asked <= len(network._LET_PASS) + 1
    probe = real(["git", "index-pack", option], capture_output=True, text=True, check=False)
    assert "Unhandled message id" not in probe.stderr and probe.returncode == 129, probe.stderr
    assert "hasDotgit=ignore" in option and "duplicateEntries=ignore" in option
