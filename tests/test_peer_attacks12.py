"""A twelfth attack run (issue 23) on several vaults (DESIGN §8): a project vault (``memory/`` in
a project's git repository) whose teammates push to it through a real bare remote, next to the
person's personal vault, with the real CLI, hooks and MCP server. Each attack's test fails on the
code before its fix."""

from __future__ import annotations

import json
import os
import sys

import anyio
from conftest import TEAMMATES_SHELL_CHOICE, cli, mcp_server_in, teammate_pushes
from mcp import Client

from vault_mem.adapters.mcp_server import DATA_META


def test_a_teammates_project_memory_does_not_shadow_the_persons_personal_key(two_vaults, tmp_path):
    """Before: a teammate (not approved here) committed ``memory/preferences/shell-choice.md``,
    the key of the person's pinned personal preference. The session context lists the person's
    ``shell-choice`` and leaves the teammate's out, but a bare ``get shell-choice`` (the CLI, the
    MCP tool, the ``vault://memory/`` resource) took the project vault's: the agent that read
    the key it was shown got the teammate's text in its place. A bare key now reads the copy
    whose author is trusted here; ``project:KEY`` still reads the teammate's, marked."""
    proj, _, personal = two_vaults
    teammate_pushes(proj, tmp_path, {"memory/preferences/shell-choice.md": TEAMMATES_SHELL_CHOICE})
    context = json.loads(cli("hook", "session-start", input=json.dumps({"cwd": str(proj)}), cwd=proj).stdout)
    assert "fish" in context["hookSpecificOutput"]["additionalContext"]
    assert "mate.example" not in context["hookSpecificOutput"]["additionalContext"]

    r = cli("get", "shell-choice", "--json", cwd=proj)
    assert r.returncode == 0, r.stderr
    view = json.loads(r.stdout)
    assert (view["vault"], view["trusted"]) == ("personal", True) and "fish" in view["description"]
    assert any("project:shell-choice" in n for n in view["notes"])
    theirs = json.loads(cli("get", "project:shell-choice", "--json", cwd=proj).stdout)
    assert (theirs["vault"], theirs["trusted"], theirs["author"]) == ("project", False, "mate@team.example")

    async def session():
        async with Client(mcp_server_in(proj), read_timeout_seconds=60) as client:
            r = await client.call_tool("get", {"key": "shell-choice"})
            assert not r.is_error, r.content
            assert r.meta[DATA_META]["vault"] == "personal" and "fish" in r.content[0].text
            assert "mate.example" not in r.content[0].text
            text = (await client.read_resource("vault://memory/shell-choice")).contents[0].text
            assert "fish" in text and "mate.example" not in text
    anyio.run(session)


def test_connect_never_names_a_vault_mem_program_from_the_projects_folder(two_vaults, tmp_path, monkeypatch):
    """Before: where no ``vault-mem`` sits beside the running Python (a ``pip install --user``,
    ``python -m vault_mem``), ``connect`` found it with ``shutil.which`` on the whole PATH, and
    a relative entry (``.`` or an empty one) found a teammate's executable ``vault-mem``
    committed at the project's top: the hooks and MCP server ``connect`` wrote named that file,
    so every later session ran the teammate's program. Programs are found on PATH's absolute
    folders only (``platform/programs.which``, the one rule)."""
    proj, home, _ = two_vaults
    planted = proj / "vault-mem"
    planted.write_text("#!/bin/sh\necho ran > /tmp/never\n")
    planted.chmod(0o755)
    bindir = tmp_path / "bin"  # the person's real vault-mem, on an absolute PATH folder, after '.'
    bindir.mkdir()
    real = bindir / "vault-mem"
    real.write_text(f"#!/bin/sh\nexec {sys.executable} -m vault_mem \"$@\"\n")
    real.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python-elsewhere" / "python"))
    monkeypatch.setenv("PATH", f".:{bindir}:{os.environ['PATH']}")
    monkeypatch.setenv("HOME", str(home))
    r = cli("connect", "claude-code", "--scope", "user", cwd=proj)
    assert r.returncode == 0, r.stderr
    written = (home / ".claude" / "settings.json").read_text() + (home / ".claude.json").read_text()
    assert str(planted) not in written
    assert str(real) in written


def test_a_teammates_look_alikes_in_the_project_vault_do_not_push_the_persons_personal_memory_out_of_recall(
        two_vaults, tmp_path):
    """Before: in one vault a peer's look-alikes make room for the person's own memories
    (``Vault._trusted_kept``), but several vaults' hits were merged by level and score and cut
    at ``k``: a teammate's eight memories on "the interactive shell" in the project vault took
    every place of a recall on request (CLI and MCP), and the person's personal
    ``shell-choice`` was not in it. The lowest of the peers' hits now make room across vaults
    too (``model/fusion.keep_trusted``, the one rule for both)."""
    proj, _, _ = two_vaults
    files = {f"memory/preferences/shell-{i}.md":
             f"---\ndescription: Uses fish as the interactive shell on machine {i}\n---\nThe interactive shell is fish {i}.\n"
             for i in range(8)}
    teammate_pushes(proj, tmp_path, files)
    r = cli("recall", "--json", "-k", "3", "which interactive shell", cwd=proj)
    assert r.returncode == 0, r.stderr
    hits = json.loads(r.stdout)["hits"]
    assert len(hits) == 3
    assert ("shell-choice", "personal", True) in {(h["key"], h["vault"], h["trusted"]) for h in hits}, hits
    assert sum(not h["trusted"] for h in hits) == 2  # the teammate's are still found, marked


def test_a_teammates_refused_entry_in_the_project_vault_hides_nothing_of_the_personal_vault(two_vaults, tmp_path):
    """Before: a teammate committed a symlink in ``memory/`` (any entry the tree rule refuses:
    a symlink, a control character, a 201-byte name); the person's plain ``git pull`` of the
    project brought it, and from then on every read there refused: ``recall`` and ``list``
    exited 1, the session-start and prompt hooks failed, and the MCP server did not start, so
    no session in the project had the person's personal memories either. The project vault is
    refused as before, named in a notice, and the personal vault still answers (``Vaults.each``)."""
    proj, _, _ = two_vaults
    # the key of the personal one
    teammate_pushes(proj, tmp_path, {"memory/preferences/shell-choice.md": TEAMMATES_SHELL_CHOICE})
    teammate_pushes(proj, tmp_path, links={"memory/facts/host.md": "/etc/hostname"})

    r = cli("recall", "--json", "which interactive shell", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert [(h["key"], h["vault"]) for h in json.loads(r.stdout)["hits"]] == [("shell-choice", "personal")]
    assert "the project vault is skipped" in r.stderr and "facts/host.md" in r.stderr and "symlink" in r.stderr
    r = cli("list", "--json", cwd=proj)
    assert r.returncode == 0 and [m["key"] for m in json.loads(r.stdout)] == ["shell-choice"], r.stderr
    r = cli("get", "shell-choice", cwd=proj)  # the key the session context shows reads the personal copy
    assert r.returncode == 0 and "Uses fish" in r.stdout, r.stderr
    for hook, event in (("session-start", {"cwd": str(proj)}),
                        ("user-prompt-submit", {"cwd": str(proj), "prompt": "which interactive shell do I use"})):
        r = cli("hook", hook, input=json.dumps(event), cwd=proj)
        assert r.returncode == 0, (hook, r.stderr)
        assert "Uses fish" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"], hook
        assert "the project vault is skipped" in r.stderr
    # the project vault alone still refuses, by name: nothing of it is read
    r = cli("--vault", str(proj / "memory"), "recall", "shell", cwd=proj)
    assert r.returncode == 1 and "symlink" in r.stderr
    async def session():
        async with Client(mcp_server_in(proj), read_timeout_seconds=60) as client:
            r = await client.call_tool("recall", {"query": "which interactive shell"})
            assert not r.is_error, r.content
            assert [h["key"] for h in r.meta[DATA_META]["hits"]] == ["shell-choice"]
            assert any("the project vault is skipped" in n for n in r.meta[DATA_META].get("notices", []))
            r = await client.call_tool("list", {})
            assert not r.is_error and [m["key"] for m in r.meta[DATA_META]["memories"]] == ["shell-choice"]
            index = (await client.read_resource("vault://index")).contents[0].text
            assert "Uses fish" in index
    anyio.run(session)


def test_a_teammates_project_memories_never_list_before_the_persons_personal_ones(two_vaults, tmp_path):
    """Review of atk23's order: `list` put the memories of authors trusted here first within one
    vault, but with several vaults in use each vault's rows were joined in vault order, so a
    teammate's many project memories keyed `aaa-N` still came before the person's personal
    memories in the CLI and the MCP `list`. The order holds across the vaults' rows too."""
    proj, _, _ = two_vaults
    teammate_pushes(proj, tmp_path, {f"memory/facts/aaa-{i}.md": f"---\ndescription: Team note {i}\n---\n"
                                     for i in range(5)})
    rows = json.loads(cli("list", "--json", cwd=proj).stdout)
    flags = [r["trusted"] for r in rows]
    assert flags == sorted(flags, reverse=True) and flags.count(False) == 5, [(r["key"], r["trusted"]) for r in rows]
    listed = cli("list", cwd=proj).stdout.splitlines()
    assert not listed[1].startswith("[") and listed[-1].startswith("["), listed  # [0]: text is data (inj33)

    async def session():
        async with Client(mcp_server_in(proj), read_timeout_seconds=60) as client:
            r = await client.call_tool("list", {})
            return [m["trusted"] for m in r.meta[DATA_META]["memories"]]

    got = anyio.run(session)
    assert got == sorted(got, reverse=True) and got.count(False) == 5, got
