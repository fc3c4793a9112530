"""A small vault (a new user's first memories) reaches ``strong`` for a prompt a memory plainly
answers (index/levels.py, the module's last paragraph): its floor is the model's prior, and the
stand-out, which needs STANDOUT_NEXT other cosines, completes them with the query's cosines with
the probe questions (texts unrelated to any vault). Unrelated prompts and near misses stay
candidates or nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import cli, real_embedder

from vault_mem import Vault
from vault_mem.index import levels

# issue 24's new user: four memories, descriptions only
FOUR = (("editor-choice", "Uses Helix as the main editor (switched from Neovim, Oct 2026)", "preference"),
        ("db-choice", "Use Postgres for the ledger", "decision"),
        ("release-steps", "How to cut a release: git pull, make release", "procedure"),
        ("ci-runner", "CI runs on GitHub Actions with self-hosted runners", "fact"))

MORE = (("py-version", "The service targets Python 3.12", "fact"),
        ("deps-uv", "Python dependencies are managed with uv", "decision"),
        ("lint-ruff", "Ruff formats and lints all Python code", "decision"),
        ("tabs-spaces", "Indent with four spaces, never tabs", "preference"),
        ("fe-stack", "The dashboard is React with TypeScript and Vite", "decision"),
        ("css-tailwind", "Styling uses Tailwind CSS", "decision"),
        ("node-22", "The frontend builds with Node 22 LTS", "fact"),
        ("designer-mei", "Mei Lin designs the web dashboard", "fact"),
        ("e2e-playwright", "End-to-end tests use Playwright against staging", "fact"))


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


def probes_at(cosines: list[float]) -> levels.AnswerWords:
    """Answer words whose query has exactly these ``cosines`` with the probe texts (the query is
    the first axis; each probe a unit vector at that cosine to it)."""
    qvec = np.asarray([1.0, 0.0], dtype=np.float32)
    rows = np.asarray([[c, (1 - c * c) ** 0.5] for c in cosines], dtype=np.float32)

    def untouched(*_a):
        raise AssertionError("the small vault's bar reads no words")

    return levels.AnswerWords(qvec=qvec, bars=untouched, vectors=untouched, probes=lambda: rows)


def test_a_small_vaults_strong_bar_needs_a_hit_that_stands_out_from_unrelated_texts() -> None:
    """On a compressed scale (e5: every pair ~0.8) the prior's bar is cleared by unrelated
    prompts; in a small vault a strong hit must also stand out from the query's cosines with
    unrelated texts, unless it holds 3/4 of the query's words."""
    unrelated = probes_at([0.78, 0.79, 0.80, 0.77, 0.81, 0.79, 0.78, 0.80, 0.76, 0.79])
    ev = levels.Evidence(scores={1: 3.0, 2: 2.0, 3: 1.0}, sims={1: 0.815, 2: 0.79, 3: 0.86}, coverage={2: 0.75})
    passing = {1: "strong", 2: "strong", 3: "strong"}
    # 1 is one of the crowd of unrelated texts; 2 too, but it holds 3/4 of the words; 3 stands out
    assert levels.small_vault_bar(passing, ev, unrelated) == {1: "candidate", 2: "strong", 3: "strong"}
    # no probes to read (an embedder failure): left as the floor set it
    assert levels.small_vault_bar(passing, ev, levels.AnswerWords(qvec=unrelated.qvec, bars=None, vectors=None)) \
        == passing


def hook(root, prompt: str) -> str:
    """The real prompt hook, as Claude Code runs it (``vault-mem hook user-prompt-submit``, the
    event on stdin), in this process (:func:`conftest.cli`): what is tested is its verdict, and
    a process of its own would load the model again for each of the 13 prompts."""
    event = {"session_id": "3f2a9c1e-0000-4000-8000-000000000002", "transcript_path": "/tmp/t.jsonl",
             "cwd": str(root), "permission_mode": "default", "hook_event_name": "UserPromptSubmit",
             "prompt": prompt}
    proc = cli("hook", "user-prompt-submit", "--vault", str(root), input=json.dumps(event),
               env={"VAULT_MEM_EMBEDDER": "local"})
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
    # a polite prompt asks the same (recall24: "please" read as a content word the memory lacks
    # left the stand-out's meaning match just under its bar, and nothing was injected)
    for prompt in ("open the config in my editor please", "please open the config file in my editor"):
        assert 'key="editor-choice"' in hook(vault.root, prompt), prompt
    for prompt in ("what's the weather in Paris?", "write a haiku about autumn", "fix the off-by-one in this loop",
                   "how many CI runners are in the cloud?", "which Helix theme do I use?"):
        assert hook(vault.root, prompt) == "", prompt
    # thirteen memories: past the stand-out's 9 others, still under the 20 vectors of a vault's own
    # floor calibration (the prior's bar): the same prompts, the same answers
    with Vault(vault.root) as v:
        for key, desc, kind in MORE:
            v.remember(key, desc, type=kind, source="user")
    assert 'key="editor-choice"' in hook(vault.root, "open the config file in my editor")
    assert 'key="ci-runner"' in hook(vault.root, "where do our CI jobs run?")
    for prompt in ("what's the weather in Paris?", "write a haiku about autumn", "fix the off-by-one in this loop"):
        assert hook(vault.root, prompt) == "", prompt
