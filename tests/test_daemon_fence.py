"""A write while the daemon runs: the daemon's fence instead of ``git status`` (issue 29).

A real ``python -m vault_mem daemon`` process and its real socket; the writes are real
(``Vault.remember`` in this process, and a one-shot ``python -m vault_mem remember``). Which
git commands a write ran is read from git's own trace (``GIT_TRACE2_EVENT``), set for the
writer only: the daemon, started before, does not inherit it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import ROOT, daemon_log, daemon_ready, git, spawn_daemon, wait_for
from fakes import write_memory

from vault_mem.store import daemon_socket

#: a long debounce and quiet period: the daemon applies a person's edit only when asked (a fence
#: or a read), and commits none of them during the test
SLOW = {"VAULT_MEM_DEBOUNCE_MS": "60000", "VAULT_MEM_QUIET_SECONDS": "600"}


def start(root: Path, *, to_stop: bool = False) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VAULT_MEM_EMBEDDER": "none", **SLOW}
    proc = spawn_daemon(root, env, root.parent / f"daemon-{time.monotonic_ns()}.log", to_stop=to_stop)
    wait_for(lambda: proc.poll() is not None or daemon_ready(root, proc.pid), timeout=60,
             what="the daemon to start")
    assert proc.poll() is None, daemon_log(proc)
    wait_for(lambda: daemon_socket.ask(root, "list", {}) is not None, timeout=30, what="the socket")
    return proc


def stop(proc: subprocess.Popen) -> str:
    if proc.poll() is None:
        proc.send_signal(signal.SIGCONT)
        proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    return daemon_log(proc)


def git_commands(trace: Path) -> set[str]:
    """The git commands (``status``, ``update-index``, ...) started while ``trace`` was set (no
    file: none started; a warm process's write stages git's index in process)."""
    if not trace.exists():
        return set()
    return {line.split('"name":"', 1)[1].split('"', 1)[0] for line in trace.read_text().splitlines()
            if '"event":"cmd_name"' in line}


def edit_in_place(path: Path, old: bytes, new: bytes) -> None:
    """A person's save in place: the folder's mtime does not change."""
    with open(path, "r+b") as fh:
        data = fh.read().replace(old, new)
        fh.seek(0)
        fh.write(data)
        fh.truncate()


def test_a_persons_edit_just_before_a_write_is_in_index_md_through_the_daemons_fence(vault, tmp_path, monkeypatch):
    """With the daemon running, a write (the API, then a one-shot CLI) asks the daemon for its
    fence instead of `git status`, and INDEX.md on disk after the write shows a person's in-place
    edit and new file made just before it, which the daemon (a minute's debounce) had not applied
    on its own; the commit's INDEX.md is still made from the committed tree."""
    root = vault.root
    vault.remember("alpha", "Alpha as committed", "a")
    proc = start(root)
    try:
        edit_in_place(root / "facts" / "alpha.md", b"Alpha as committed", b"Alpha edited by hand")
        write_memory(root, "beta", "Beta only on disk")
        trace = tmp_path / "api.trace"
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        with vault.transaction() as tx:
            commit = tx.commit({"facts/gamma.md": b"---\ndescription: Gamma by the agent\n---\n\nc\n"},
                               "remember: gamma", key="gamma", action="create", type_="fact")
        monkeypatch.delenv("GIT_TRACE2_EVENT")
        assert tx.learned_from == "daemon" and commit
        assert "status" not in git_commands(trace)
        on_disk = (root / "INDEX.md").read_text()
        assert "Alpha edited by hand" in on_disk and "Beta only on disk" in on_disk and "Gamma by the agent" in on_disk
        in_commit = git(root, "show", f"{commit}:INDEX.md")
        assert "Alpha as committed" in in_commit and "Gamma by the agent" in in_commit
        assert "Alpha edited by hand" not in in_commit and "Beta only on disk" not in in_commit
        assert git(root, "show", "--name-only", "--format=", commit).split() == ["INDEX.md", "facts/gamma.md"]

        # a one-shot CLI write, the same way; a person's edit made just before it shows too
        edit_in_place(root / "facts" / "beta.md", b"Beta only on disk", b"Beta changed again")
        trace = tmp_path / "cli.trace"
        env = {**os.environ, "PYTHONPATH": str(ROOT), "VAULT_MEM_EMBEDDER": "none", "GIT_TRACE2_EVENT": str(trace)}
        done = subprocess.run([sys.executable, "-m", "vault_mem", "remember", "delta", "--description",
                               "Delta by the agent", "--vault", str(root)], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "status" not in git_commands(trace)
        on_disk = (root / "INDEX.md").read_text()
        assert "Beta changed again" in on_disk and "Delta by the agent" in on_disk
        assert "Beta" not in git(root, "show", "HEAD:INDEX.md")
        assert git(root, "status", "--porcelain", "--", "facts/delta.md", "facts/gamma.md") == ""
    finally:
        assert "Traceback" not in stop(proc)


def test_a_daemon_that_does_not_answer_is_not_waited_for_and_the_write_asks_git_status(vault, tmp_path, monkeypatch):
    """A daemon that holds the lock file but answers nothing (stopped: SIGSTOP) costs a write at
    most the fence's bound; the write then asks `git status`, so INDEX.md on disk still shows
    a person's edit made just before it."""
    root = vault.root
    vault.remember("alpha", "Alpha as committed", "a")
    proc = start(root, to_stop=True)
    try:
        proc.send_signal(signal.SIGSTOP)
        edit_in_place(root / "facts" / "alpha.md", b"Alpha as committed", b"Alpha edited by hand")
        trace = tmp_path / "stopped.trace"
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        with vault.transaction() as tx:
            commit = tx.commit({"facts/gamma.md": b"---\ndescription: Gamma by the agent\n---\n\nc\n"},
                               "remember: gamma", key="gamma", action="create", type_="fact")
        monkeypatch.delenv("GIT_TRACE2_EVENT")
        assert tx.learned_from == "git status" and commit
        assert "status" in git_commands(trace)
        on_disk = (root / "INDEX.md").read_text()
        assert "Alpha edited by hand" in on_disk and "Gamma by the agent" in on_disk
        assert "Alpha edited by hand" not in git(root, "show", f"{commit}:INDEX.md")
        # once it runs again, it answers the next write's fence
        proc.send_signal(signal.SIGCONT)
        wait_for(lambda: daemon_socket.fence(root, timeout=5.0), timeout=30, what="the fence")
        with vault.transaction() as tx:
            assert tx.commit({"facts/delta.md": b"---\ndescription: Delta by the agent\n---\n\nd\n"},
                             "remember: delta", key="delta", action="create", type_="fact")
        assert tx.learned_from == "daemon"
    finally:
        assert "Traceback" not in stop(proc)

