"""A small vault (a new user's first memories) reaches ``strong`` for a prompt a memory plainly
answers (index/levels.py, the module's last paragraph): its floor is the model's prior, and the
stand-out, which needs STANDOUT_NEXT other cosines, completes them with the query's cosines with
the probe questions (texts unrelated to any vault). Unrelated prompts and near misses stay
candidates or nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import real_embedder

from vault_mem import Vault
from vault_mem.index import levels

# issue 24's new user: four memories, descriptions only
FOUR = (("editor-choice", "Uses Helix as the main editor (switched from Neovim, Oct 2026)", "preference"),
        ("db-choice", "Use Postgres for the ledger", "decision"),
        ("release-steps", "How to cut a release: git pull, make release", "procedure"),
        ("ci-runner", "CI runs on GitHub Actions with self-hosted runners", "fact"))


def test_a_small_vault_stands_out_against_unrelated_texts() -> None:
    # the 4-memory vault's cosines for "open the config file in my editor" (MiniLM)
    sims = {1: 0.25, 2: 0.106, 3: 0.062, 4: -0.014}
    unrelated = [0.05, 0.02, -0.03, 0.08, 0.11, 0.0, -0.05, 0.04, 0.09, 0.01]
    assert not levels.stands_out(1, sims)  # three others: nothing to stand out from, as before
    assert levels.stands_out(1, sims, lambda: unrelated)
    # one of the crowd: as close as unrelated texts come, it does not stand out
    assert not levels.stands_out(1, {**sims, 1: 0.12}, lambda: unrelated)
    # a vault of STANDOUT_NEXT others or more never reads the unrelated texts
    crowd = {i: 0.2 for i in range(2, 2 + levels.STANDOUT_NEXT)}
    assert not levels.stands_out(1, {1: 0.25, **crowd}, lambda: pytest.fail("read unrelated texts"))


def hook(root, prompt: str) -> str:
    """The real prompt hook, as Claude Code runs it: a process reading the event on stdin."""
    event = {"session_id": "3f2a9c1e-0000-4000-8000-000000000002", "transcript_path": "/tmp/t.jsonl",
             "cwd": str(root), "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
             "prompt": prompt}
    proc = subprocess.run([sys.executable, "-m", "vault_mem", "hook", "user-prompt-submit", "--vault", str(root)],
                          input=json.dumps(event), capture_output=True, text=True, timeout=300,
                          env={**os.environ, "VAULT_MEM_EMBEDDER": "local"}, check=False)
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout:
        return ""
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_a_new_users_four_memories_reach_the_prompt_hook(vault, monkeypatch) -> None:
    """Both questions of issue 24 get their memory injected (before: the editor instruction sat
    under the prior's strong bar, the CI question was demoted by the answer check on "jobs");
    unrelated prompts and a near miss inject nothing."""
    real_embedder()
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "local")
    with Vault(vault.root) as v:
        for key, desc, kind in FOUR:
            v.remember(key, desc, type=kind, source="user")
    context = hook(vault.root, "open the config file in my editor")
    assert 'key="editor-choice"' in context and "Uses Helix" in context
    assert "db-choice" not in context and "ci-runner" not in context
    context = hook(vault.root, "where do our CI jobs run?")
    assert 'key="ci-runner"' in context and "editor-choice" not in context
    for prompt in ("what's the weather in Paris?", "write a haiku about autumn", "fix the off-by-one in this loop",
                   "how many CI runners are in the cloud?", "which Helix theme do I use?"):
        assert hook(vault.root, prompt) == "", prompt
