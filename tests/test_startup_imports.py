"""What a one-shot vault-mem process loads: only what its entry point uses (issues 28 and 29).

Every CLI command, git hook and agent hook is a new Python process, and its imports are most of
its CPU (bench/bench_startup.py: ~60-80% of a git hook's own CPU; the suite starts thousands of
them, a person's `git commit` one or two). Checked in the process's ``sys.modules`` and Python's
own pattern cache, each entry point started as vault-mem's git hooks start it (``python -E -P -c
BOOTSTRAP``), never by timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git

from vault_mem.store.hooks import BOOTSTRAP

ROOT = Path(__file__).resolve().parent.parent

#: packages no one-shot command, git hook or agent hook of a keyword-only vault loads: the vector
#: maths and the model (numpy, onnxruntime, tokenizers, sqlite-vec, which imports numpy), the MCP
#: SDK, the HTTP client (HTTP embedders, `vault-mem agent`), the daemon's watcher and GitPython
#: (the object database of a whole history's reads: sync, the origins)
NEVER = ("numpy", "onnxruntime", "tokenizers", "sqlite_vec", "mcp", "httpx", "watchdog", "git")

#: the end of a process: its modules and the patterns Python compiled, on stderr after its own output
_REPORT = ("import atexit, json, re, sys\n"
           "def _report():\n"
           "    cached = [k[1] for k in list(getattr(re, '_cache', {})) + list(getattr(re, '_cache2', {}))"
           " if isinstance(k, tuple) and len(k) > 1]\n"
           "    sys.stderr.write('\\nREPORT ' + json.dumps({'modules': sorted(sys.modules),"
           " 'patterns': [p for p in cached if isinstance(p, str)]}) + '\\n')\n"
           "atexit.register(_report)\n")


def _run(cwd: Path, *argv: str, stdin: str = "") -> dict:
    """``vault-mem ARGV`` in a new process started as the git hooks start it (this checkout's
    folder first on ``sys.path``); its exit code, modules and compiled patterns."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(VAULT_MEM_DAEMON="off", VAULT_MEM_EMBEDDER="none")
    done = subprocess.run([sys.executable, "-E", "-P", "-c", _REPORT + BOOTSTRAP.replace("; ", "\n"), str(ROOT), *argv],
                          cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.startswith("REPORT ")]
    assert lines, done.stderr
    report = json.loads(lines[-1][len("REPORT "):])
    report["code"], report["stderr"] = done.returncode, done.stderr
    report["packages"] = {name.split(".")[0] for name in report["modules"]}
    return report


def _entries(root: Path) -> list[tuple[str, list[str], str]]:
    head = git(root, "rev-parse", "HEAD").strip()
    v = ["--vault", str(root)]
    event = json.dumps({"cwd": str(root), "prompt": "which editor do I use", "session_id": "s1"})
    return [
        ("remember", [*v, "remember", "build-host", "--description", "The build host is ares", "--body", "ares."], ""),
        ("forget", [*v, "forget", "build-host"], ""),
        ("get", [*v, "get", "editor"], ""),
        ("list", [*v, "list"], ""),
        ("recall", [*v, "recall", "which editor do I use"], ""),
        ("pre-commit", [*v, "hook", "pre-commit"], ""),
        ("post-merge", [*v, "hook", "post-merge", "0"], ""),
        ("post-checkout", [*v, "hook", "post-checkout", head, head, "1"], ""),
        ("post-rewrite", [*v, "hook", "post-rewrite", "amend"], ""),
        ("session-start", [*v, "hook", "session-start"], event),
        ("user-prompt-submit", [*v, "hook", "user-prompt-submit"], event),
        ("stop", [*v, "hook", "stop"], event),
    ]


def test_no_one_shot_entry_point_loads_the_model_the_vectors_the_mcp_sdk_or_gitpython(vault):
    """Each CLI command of a keyword-only vault (a write, a forget, the reads), each git hook
    vault-mem installs (pre-commit with a memory staged, the post-* hooks) and each agent hook
    does its work without numpy, the model's runtime, sqlite-vec, the MCP SDK, httpx, watchdog or
    GitPython: the write path and the hooks a person's git runs pay for none of them."""
    root = vault.root
    assert _run(root, "--vault", str(root), "remember", "editor", "--description", "Uses Helix as the main editor",
                "--body", "Switched from Neovim.")["code"] == 0
    (root / "facts" / "staged-host.md").write_text("---\ndescription: the staging host is zeus\n---\nzeus.\n")
    git(root, "add", "facts/staged-host.md")
    for name, argv, stdin in _entries(root):
        report = _run(root, *argv, stdin=stdin)
        assert report["code"] == 0, (name, report["stderr"])
        assert sorted(report["packages"] & set(NEVER)) == [], name


def test_version_is_answered_without_the_command_parser_or_the_vault_layers(tmp_path):
    """``vault-mem --version`` prints the version as argparse's version action did, without
    building the parser of every command (argparse and the parser were ~2/3 of its start) or
    importing the store beyond what the CLI module needs."""
    report = _run(tmp_path, "--version")
    assert report["code"] == 0
    assert "argparse" not in report["modules"] and "vault_mem.adapters.cli_parser" not in report["modules"]
    assert not [m for m in report["modules"] if m.startswith(("vault_mem.vault", "vault_mem.index"))]
    from conftest import cli

    assert cli("--version").stdout == "vault-mem 0.1.0\n"
    assert cli("--version", "--json").stdout == "vault-mem 0.1.0\n"  # argparse's, as before


@pytest.mark.parametrize("argv", [["--version"], ["list"]])
def test_no_process_compiles_the_variation_selector_table_before_it_meets_a_selector(vault, argv):
    """The table of the characters a variation selector may follow (model/names.py ``_VARIED``:
    ranges up to U+3FFFF, ~1.5 ms and ~30M instructions to compile, every process importing the
    CLI paid it) is compiled at the first selector that follows a non-ASCII base, not at import;
    the text a selector follows is still told apart (tests/test_peer_attacks19.py)."""
    from vault_mem.model import names

    report = _run(vault.root, *(argv if argv == ["--version"] else ["--vault", str(vault.root), *argv]))
    assert report["code"] == 0
    assert names._VARIED.pattern not in report["patterns"]
    assert names.visible("\u845b\ufe0f", prose=True) == "\u845b\ufe0f"  # after an ideograph (the table): kept
    assert names.visible("\u2764\ufe0f", prose=True) == "\u2764\ufe0f"  # after a symbol: kept
    assert names.visible("a\ufe0f", prose=True) == "a\\ufe0f"  # after a letter it varies nothing: escaped
