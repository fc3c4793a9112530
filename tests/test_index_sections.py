"""Every section of INDEX.md, and of the session-start context built from it, keeps lines (or at
least its "+N more" line) whatever the budget, at 400 memories with realistic descriptions.

The session-start context is built within the hook's own size limit from the budget, not cut
from the end of a rendered INDEX.md (which dropped Decisions and Procedures entirely).
"""

from __future__ import annotations

import json
import random
import re
import shutil

import pytest
from conftest import cli, new_vault
from fakes import FakeEmbedder, write_memory

from vault_mem import Vault
from vault_mem.adapters.contexts import MAX_CONTEXT_CHARS
from vault_mem.model.indexmd import SECTIONS

WORDS = ["deploy", "staging", "server", "config", "editor", "cache", "token", "build", "release", "team", "review", "branch", "database", "schema", "migration", "backup", "monitor", "alert", "python", "rust", "docker", "nightly", "weekly"]


def _description(rnd: random.Random) -> str:
    text = ""
    while len(text) < 78:
        text += rnd.choice(WORDS).capitalize() + " " if not text else rnd.choice(WORDS) + " "
    return text.strip()[:82]


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """400 memories, 100 per type, ~80-character descriptions (written as files, then indexed)."""
    import os

    os.environ["VAULT_MEM_EMBEDDER"] = "none"
    folder = tmp_path_factory.mktemp("big")
    root = folder / "vault"
    new_vault(root).close()
    rnd = random.Random(25)
    for type_, _ in SECTIONS:
        for i in range(100):
            write_memory(root, f"{type_}-{i:03d}-{rnd.choice(WORDS)}", _description(rnd),
                         "A body.\n", type_=type_)
    yield root
    # pytest's retention policy removes each passed test's tmp_path, never a module fixture's
    # folder: without this the 400-memory vault stayed in the temporary folder after the suite
    shutil.rmtree(folder, ignore_errors=True)


def _sections(text: str) -> dict[str, tuple[int, int]]:
    """{section title: (lines listed, N of its "+N more")} of an INDEX.md text."""
    out = {}
    for _, title in SECTIONS:
        assert f"## {title}\n" in text, f"{title} missing"
        part = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
        more = re.search(r"^\+(\d+) more: use recall", part, re.MULTILINE)
        out[title] = (sum(1 for line in part.splitlines() if line.startswith("- ")),
                      int(more.group(1)) if more else 0)
    return out


def _set_budget(root, tokens: int) -> None:
    path = root / "vault.toml"
    text = re.sub(r"budget_tokens = \d+", f"budget_tokens = {tokens}", path.read_text())
    path.write_text(text)


def _session_context(root) -> str:
    proc = cli("hook", "session-start", "--vault", str(root),
               input=json.dumps({"hook_event_name": "SessionStart", "cwd": str(root), "source": "startup"}))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]


def test_400_memories_list_every_section_with_lines_and_the_rest_counted(big):
    _set_budget(big, 2000)
    with Vault(big, embedder=FakeEmbedder()) as vault:
        vault.regenerate_index()
    text = (big / "INDEX.md").read_text()
    for title, (lines, more) in _sections(text).items():
        assert lines >= 5 and more > 0 and lines + more == 100, (title, lines, more)
    context = _session_context(big)
    assert len(context) <= MAX_CONTEXT_CHARS
    for title, (lines, more) in _sections(context).items():
        assert lines >= 5 and lines + more == 100, (title, lines, more)


@pytest.mark.parametrize("budget", [500, 1000, 2000, 4000, 8000, 20000])
def test_every_section_is_in_index_md_and_the_session_context_at_any_budget(big, budget):
    _set_budget(big, budget)
    with Vault(big) as vault:
        vault.regenerate_index()
        again = vault.render_index()
    text = (big / "INDEX.md").read_text()
    assert again == text  # the same files give the same bytes
    for title, (lines, more) in _sections(text).items():
        assert lines > 0 and lines + more == 100, (budget, title, lines, more)
    context = _session_context(big)
    assert len(context) <= MAX_CONTEXT_CHARS
    for title, (lines, more) in _sections(context).items():
        assert lines > 0 and lines + more == 100, (budget, title, lines, more)
    assert context == _session_context(big)  # deterministic too
