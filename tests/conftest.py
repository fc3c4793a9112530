"""Shared fixtures: every test runs with a git identity and no global git config surprises."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch, tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Person")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "person@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Person")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "person@example.com")
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[user]\n\tname = Test Person\n"
                                     "\temail = person@example.com\n")
    monkeypatch.delenv("VAULT_MEM_VAULT", raising=False)
    monkeypatch.delenv("VAULT_MEM_AGENT", raising=False)
    monkeypatch.delenv("VAULT_MEM_PAUSE_AT", raising=False)
    # keyword-only unless a test asks for an embedder: most tests are about files and git
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "none")


@pytest.fixture
def vault(tmp_path):
    """A fresh standalone vault (its own repository)."""
    from vault_mem import Vault

    v = Vault.init(tmp_path / "vault")
    yield v
    v.close()


def git(cwd: Path, *args: str, check: bool = True) -> str:
    """Run real git in ``cwd`` and return its stdout."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def run_cli(*args: str, cwd: Path | None = None, input: str | None = None, env: dict | None = None):
    """Run the real ``vault-mem`` CLI as a subprocess (python -m vault_mem)."""
    full_env = {**os.environ, **(env or {})}
    full_env.setdefault("VAULT_MEM_EMBEDDER", "none")
    return subprocess.run([sys.executable, "-m", "vault_mem", *args], cwd=cwd, input=input,
                          capture_output=True, text=True, env=full_env, timeout=120, check=False)


def wait_for(predicate, timeout: float = 10.0, what: str = "condition") -> None:
    """Poll ``predicate`` until it holds; fail after ``timeout`` seconds (never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def daemon_ready(root: Path, pid: int) -> bool:
    """The daemon ``pid`` reported ready (a killed daemon leaves its old status file behind)."""
    try:
        status = json.loads((root / ".vault-mem/daemon.json").read_text())
    except (OSError, ValueError):
        return False
    return bool(status.get("ready")) and status.get("pid") == pid
