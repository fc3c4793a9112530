"""Shell completion generated from the argparse parser by shtab, and progress on stderr only
when stderr is a terminal."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys

import pytest
from conftest import cli

from vault_mem.adapters.cli_parser import build_parser


def _commands() -> list[str]:
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    return list(sub.choices)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_a_script_naming_every_command(shell):
    r = cli("completion", shell)
    assert r.returncode == 0, r.stderr
    assert "shtab" in r.stdout  # generated, not hand-written
    for name in _commands():
        assert name in r.stdout, (shell, name)
    checker = shutil.which(shell)
    if checker:  # the shell itself accepts the script (bash is always here; zsh and fish may not be)
        proc = subprocess.run([checker, "-n"], input=r.stdout, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr


def test_bash_completion_completes_commands_and_their_options(tmp_path):
    script = tmp_path / "vault-mem.bash"
    script.write_text(cli("completion", "bash").stdout)

    def complete(*words: str) -> list[str]:
        line = " ".join(words)
        code = (f"source {script}; COMP_WORDS=({line}); COMP_CWORD={len(words) - 1}; "
                f"COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; _shtab_vault_mem vault-mem {words[-1]} "
                f"{words[-2]}; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
        proc = subprocess.run(["bash", "-c", code], capture_output=True, text=True, check=False)
        return proc.stdout.split()

    assert complete("vault-mem", "rem") == ["remember"]
    assert "--full" in complete("vault-mem", "recall", "--fu")
    assert set(complete("vault-mem", "completion", "")) == {"bash", "zsh", "fish"}


@pytest.fixture
def small_vault(vault):
    for i in range(40):  # far under the 200 a read's reconcile waits for before it draws
        vault.remember(f"fact-{i:02d}", f"Fact number {i} about the owls")
    return vault.root


def test_reindex_draws_no_progress_when_stderr_is_not_a_terminal(small_vault):
    r = cli("--vault", small_vault, "reindex")
    assert r.returncode == 0 and r.stderr == "" and "reindexed: 40 memories" in r.stdout


@pytest.mark.slow
def test_reindex_draws_progress_on_a_terminal(small_vault):
    """stderr on a real pseudo-terminal: reindex draws its bar even for a small vault (it once
    drew nothing under 200 memories, and a reindex can take seconds per hundred)."""
    main, secondary = pty.openpty()
    env = {**os.environ, "VAULT_MEM_EMBEDDER": "none"}
    env.pop("VAULT_MEM_PROGRESS", None)
    try:
        proc = subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(small_vault), "reindex"],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=secondary, env=env,
                              timeout=120, check=False)
        os.close(secondary)
        secondary = -1
        seen = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:  # EIO: the terminal's other end is closed and drained
                break
            if not chunk:
                break
            seen += chunk
    finally:
        os.close(main)
        if secondary != -1:
            os.close(secondary)
    assert proc.returncode == 0, seen
    assert b"reindex [" in seen and b"40/40" in seen
