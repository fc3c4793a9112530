"""Where ``remember`` takes its body from (vault_mem/adapters/cli_input.py): never a hang on an
open, silent stdin, which is what many agent runners give a command."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import cli, new_vault, run_cli


@pytest.fixture
def vdir(tmp_path):
    """A fresh vault's folder: what `vault-mem init` makes there (:func:`conftest.new_vault`: a copy
    of one made once per worker; the tests of `init` itself run it)."""
    new_vault(tmp_path / "v").close()
    return tmp_path / "v"


def _start(vdir, *args: str) -> subprocess.Popen:
    env = {**os.environ, "VAULT_MEM_EMBEDDER": "none"}
    return subprocess.Popen([sys.executable, "-m", "vault_mem", "--vault", str(vdir), *args],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)


@pytest.mark.slow
def test_an_open_silent_stdin_is_not_waited_for(vdir):
    """A real process whose stdin is a pipe that stays open and sends nothing: remember
    finishes with an empty body and says how to pass one (it once waited for the pipe to close)."""
    proc = _start(vdir, "remember", "quiet", "-d", "Written with a silent stdin")
    try:
        code = proc.wait(timeout=90)  # generous: only a hang exceeds it
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("remember waited for a stdin that never sent anything")
    finally:
        proc.stdin.close()
    out, err = proc.stdout.read().decode(), proc.stderr.read().decode()
    proc.stdout.close()
    proc.stderr.close()
    assert code == 0, err
    assert "--body -" in err
    assert (vdir / "facts" / "quiet.md").read_text(encoding="utf-8").endswith("---\n")
    assert out.startswith("create: facts/quiet.md")


@pytest.mark.slow
def test_piped_data_and_body_dash_are_read(vdir):
    r = run_cli("--vault", str(vdir), "remember", "piped", "-d", "Body from a pipe", input="Piped body.\n")
    assert r.returncode == 0, r.stderr
    assert "Piped body." in (vdir / "facts" / "piped.md").read_text(encoding="utf-8")
    # --body - asks for stdin: it is read to its end even when the data comes late
    proc = _start(vdir, "remember", "late", "-d", "Body sent after the start", "--body", "-")
    _out, err = proc.communicate(b"Sent late.\n", timeout=90)
    assert proc.returncode == 0, err.decode()
    assert "Sent late." in (vdir / "facts" / "late.md").read_text(encoding="utf-8")


def test_body_dash_in_process_and_a_literal_body(vdir):
    r = cli("--vault", vdir, "remember", "dash", "-d", "Body from stdin on request", "--body", "-",
            input="From stdin.\n")
    assert r.returncode == 0, r.stderr
    assert "From stdin." in (vdir / "facts" / "dash.md").read_text(encoding="utf-8")
    r = cli("--vault", vdir, "remember", "lit", "-d", "A literal body", "--body", "text", input="ignored\n")
    assert r.returncode == 0, r.stderr
    text = (vdir / "facts" / "lit.md").read_text(encoding="utf-8")
    assert "text" in text and "ignored" not in text
