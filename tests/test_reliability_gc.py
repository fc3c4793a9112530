"""Objects before refs (issue 25 item 1): a person's ``git gc --prune=now`` or ``git repack -ad``
running while agents write never loses an acknowledged commit, and ``doctor`` says when one is.

Real git maintenance loops in a thread against real agent writes in processes.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import cli, git, run_cli

from vault_mem import Vault


def _maintenance(root: Path, stop: threading.Event, ran: list[str]) -> None:
    commands = (["gc", "-q", "--prune=now"], ["repack", "-adq"], ["prune", "--expire=now"])
    i = 0
    while not stop.is_set():
        cmd = commands[i % len(commands)]
        subprocess.run(["git", *cmd], cwd=root, capture_output=True, check=False)
        ran.append(cmd[0])
        i += 1


@pytest.mark.slow
def test_git_gc_and_repack_while_agents_write_lose_no_acknowledged_commit(tmp_path):
    vault = Vault.init(tmp_path / "vault")
    root = vault.root
    vault.close()
    stop, ran = threading.Event(), []
    gc = threading.Thread(target=_maintenance, args=(root, stop, ran))
    gc.start()
    acknowledged: dict[str, str] = {}

    def writer(w: int) -> None:
        for i in range(3):
            key = f"gc-{w}-{i}"
            r = run_cli("remember", key, "-d", f"written under gc {w} {i}", "--body", f"body {w} {i} " * 20,
                        "--json", cwd=root)
            if r.returncode == 0:
                acknowledged[key] = r.stdout

    started = time.monotonic()
    try:
        with ThreadPoolExecutor(3) as pool:
            list(pool.map(writer, range(3)))
    finally:
        stop.set()
        gc.join()
    assert time.monotonic() - started < 60
    assert len(ran) > 3, "git maintenance never ran: the test proves nothing"
    assert acknowledged, "no write succeeded"
    fsck = subprocess.run(["git", "fsck", "--no-progress"], cwd=root, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    log = git(root, "log", "--format=%(trailers:key=Memory-Key,valueonly)")
    missing = set(acknowledged) - {line.strip() for line in log.splitlines()}
    assert not missing, f"acknowledged but not in history: {sorted(missing)}"
    for key in acknowledged:
        assert git(root, "show", f"HEAD:facts/{key}.md")


def test_doctor_fails_when_an_object_of_the_branch_is_missing(tmp_path):
    vault = Vault.init(tmp_path / "vault")
    vault.remember("kept", "a fact in history", "body")
    root = vault.root
    vault.close()
    assert cli("doctor", cwd=root).returncode == 0
    # lose the tree of HEAD's commit (what a prune racing a writer did)
    tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    obj = root / ".git" / "objects" / tree[:2] / tree[2:]
    assert obj.exists(), "expected the tree as a loose object"
    obj.unlink()
    r = cli("doctor", cwd=root)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "missing" in (r.stdout + r.stderr).lower()


if __name__ == "__main__":  # pragma: no cover - a quick manual run
    sys.exit(pytest.main([__file__, "-q"]))
