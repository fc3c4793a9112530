"""The frontmatter fields of DESIGN §1 as first-class arguments of ``Vault.remember``, the CLI
and the tools, all checked by one rule (``model.memory.known_field_value``)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from conftest import cli

from vault_mem.adapters.tools import dispatch
from vault_mem.errors import InvalidKeyError, InvalidMemoryError, UsageError


def test_keyword_arguments_write_the_fields(vault):
    vault.remember("old-editor", "Used Neovim as the main editor")
    r = vault.remember("editor", "Uses Helix as the main editor", pinned=True, expires="2030-01-01",
                       supersedes=["old-editor"], scope="laptop", refs=["dotfiles/helix.toml"])
    mem = vault.get("editor")
    assert (mem.pinned, mem.expires, mem.supersedes, mem.scope, mem.refs) == \
        (True, dt.date(2030, 1, 1), ["old-editor"], "laptop", ["dotfiles/helix.toml"])
    assert r.action == "create"
    # None keeps what the file has; pinned=False unpins
    vault.remember("editor", "Uses Helix as the main editor (2026)")
    assert vault.get("editor").pinned and vault.get("editor").scope == "laptop"
    vault.remember("editor", "Uses Helix as the main editor (2026)", pinned=False)
    text = (vault.root / "facts" / "editor.md").read_text(encoding="utf-8")
    assert "pinned" not in text and "scope: laptop" in text


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"pinned": "yes"}, InvalidMemoryError),
    ({"expires": "next week"}, InvalidMemoryError),
    ({"supersedes": ["Not A Key"]}, InvalidKeyError),
    ({"scope": "two\nlines"}, InvalidMemoryError),
    ({"refs": [3]}, InvalidMemoryError),
    ({"extra": {"pinned": "yes"}}, InvalidMemoryError),  # extra= passes the same rule
    ({"scope": "a", "extra": {"scope": "b"}}, UsageError),
])
def test_bad_field_values_are_refused_before_any_write(vault, kwargs, error):
    head = vault.repo.head()
    with pytest.raises(error):
        vault.remember("editor", "Uses Helix as the main editor", **kwargs)
    assert vault.repo.head() == head and not (vault.root / "facts" / "editor.md").exists()


def test_extra_still_carries_unknown_fields(vault):
    vault.remember("editor", "Uses Helix", extra={"owner": "sam"}, scope="laptop")
    text = (vault.root / "facts" / "editor.md").read_text(encoding="utf-8")
    assert "owner: sam" in text and "scope: laptop" in text


def test_cli_flags_and_tool_argument(tmp_path):
    v = tmp_path / "v"
    assert cli("init", v).returncode == 0
    r = cli("--vault", v, "remember", "editor", "-d", "Uses Helix", "--pinned", "--scope", "laptop",
            "--refs", "a.toml,b.toml", "--body", "")
    assert r.returncode == 0, r.stderr
    r = cli("--vault", v, "remember", "editor", "-d", "Uses Helix", "--no-pinned", "--body", "")
    assert r.returncode == 0, r.stderr
    text = (v / "facts" / "editor.md").read_text(encoding="utf-8")
    assert "pinned" not in text and "scope: laptop" in text and "a.toml" in text
    from vault_mem import Vault

    vault = Vault(v)
    try:
        out = json.loads(dispatch(vault, "remember", {"key": "shell", "description": "Uses fish",
                                                       "pinned": True}))
        assert out["action"] == "create", out
        assert vault.get("shell").pinned
        bad = json.loads(dispatch(vault, "remember", {"key": "shell", "description": "Uses fish",
                                                       "expires": "soon"}))
        assert "YYYY-MM-DD" in bad["error"]
    finally:
        vault.close()
