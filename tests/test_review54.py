"""Review of attack52 (several vaults): what its bare-key read and its skipping of a refusing
vault must still show the person. Real CLI, real git, real vaults (DESIGN §8, §7)."""

from __future__ import annotations

import json

import anyio
from conftest import TEAMMATES_SHELL_CHOICE, cli, git, mcp_server_in, teammate_pushes
from fakes import aws_key
from mcp import Client

from vault_mem.adapters.mcp_server import DATA_META


def test_a_bare_get_that_reads_the_other_copy_still_names_the_refused_one(two_vaults):
    """Before: ``get KEY`` of a key both vaults hold, whose project copy the person saved with a
    credential in it (quarantined, DESIGN §7: ``get`` refuses it naming the file and the fix),
    printed the personal copy, exit 0, with only "the project vault has a memory too" (CLI and
    MCP): once the vault had first noticed the file, the quarantine, a credential sitting in
    the project's git repository, was never said again (``Vaults.locate_read`` took the
    refusal for "not this one" and dropped it). Before attack52 the same command refused by
    name. The personal copy is still read; the refusal is said with it, as a notice."""
    proj, _, _ = two_vaults
    r = cli("--vault", str(proj / "memory"), "remember", "shell-choice", "--type", "preference",
            "-d", "Uses bash inside this project's build container")
    assert r.returncode == 0, r.stderr
    secret = aws_key()
    path = proj / "memory" / "preferences" / "shell-choice.md"
    path.write_text(path.read_text() + f"\nThe registry key is {secret}.\n")

    assert "quarantined" in cli("list", cwd=proj).stderr  # said once, as the vault first sees it

    r = cli("get", "shell-choice", cwd=proj)
    assert r.returncode == 0 and "Uses fish" in r.stdout, r.stderr
    assert "quarantined" in r.stderr and "preferences/shell-choice.md" in r.stderr, r.stderr
    assert secret not in r.stdout + r.stderr
    r = cli("get", "shell-choice", "--json", cwd=proj)
    assert json.loads(r.stdout)["vault"] == "personal" and "quarantined" in r.stderr
    r = cli("get", "project:shell-choice", cwd=proj)  # named, it still refuses
    assert r.returncode == 1 and "quarantined" in r.stderr

    async def session():
        async with Client(mcp_server_in(proj), read_timeout_seconds=60) as client:
            r = await client.call_tool("get", {"key": "shell-choice"})
            assert not r.is_error, r.content
            assert r.meta[DATA_META]["vault"] == "personal"
            assert "quarantined" in r.content[0].text and secret not in r.content[0].text
    anyio.run(session)


def test_a_skipped_vault_is_said_in_the_session_context(two_vaults, tmp_path):
    """Before: a project vault that refuses (a teammate's symlink a plain ``git pull`` brought
    into ``memory/``) made the session-start hook exit 0 with the personal vault's context and
    the refusal on stderr only, which Claude Code does not show for a hook that succeeds: no
    one in the session learnt that the project's memories were missing, where before attack52
    the hook failed and Claude Code showed why. The context now says which vault was skipped,
    in fixed words (the refusal's text names files a teammate chose)."""
    proj, _, _ = two_vaults
    teammate_pushes(proj, tmp_path, {"memory/preferences/shell-choice.md": TEAMMATES_SHELL_CHOICE})
    teammate_pushes(proj, tmp_path, links={"memory/facts/host.md": "/etc/hostname"})

    r = cli("hook", "session-start", input=json.dumps({"cwd": str(proj)}), cwd=proj)
    assert r.returncode == 0, r.stderr
    context = json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Uses fish" in context
    assert f"The project vault ({proj / 'memory'}) was skipped" in context, context
    assert "host.md" not in context and "mate.example" not in context
    # nothing skipped, nothing said
    r = cli("hook", "session-start", input=json.dumps({"cwd": str(tmp_path / "personal")}), cwd=tmp_path)
    assert "was skipped" not in r.stdout


def test_a_bare_remember_of_a_key_whose_get_reads_the_other_vault_says_which(two_vaults, tmp_path):
    """Before: a teammate (not approved here) committed ``memory/preferences/shell-choice.md``,
    the key of the person's personal preference. Since attack52 a bare ``get shell-choice``
    reads the person's personal copy, but a bare ``remember shell-choice`` (the agent updating
    the memory it was just shown, CLI or MCP) still wrote to the project vault: it replaced the
    teammate's file with the person's preference, committed in the person's name into the
    project's shared repository, and left the personal copy as it was. Where a bare get and a
    bare write would take different vaults, the write now says which is meant, as ``forget``
    does; named (``--personal``, ``vault``, ``--vault``) it goes where it is told."""
    proj, _, personal = two_vaults
    teammate_pushes(proj, tmp_path, {"memory/preferences/shell-choice.md": TEAMMATES_SHELL_CHOICE})
    theirs = (proj / "memory" / "preferences" / "shell-choice.md").read_bytes()
    head = git(proj, "rev-parse", "HEAD")

    r = cli("remember", "shell-choice", "--type", "preference", "-d", "Uses fish with the starship prompt", cwd=proj)
    assert r.returncode == 2 and "--personal" in r.stderr and "shell-choice" in r.stderr, (r.stdout, r.stderr)
    assert (proj / "memory" / "preferences" / "shell-choice.md").read_bytes() == theirs
    assert git(proj, "rev-parse", "HEAD") == head

    async def session():
        async with Client(mcp_server_in(proj), read_timeout_seconds=60) as client:
            r = await client.call_tool("remember", {"key": "shell-choice", "type": "preference",
                                                    "description": "Uses fish with the starship prompt"})
            assert r.is_error and "vault" in r.content[0].text, r.content
            assert (proj / "memory" / "preferences" / "shell-choice.md").read_bytes() == theirs
            r = await client.call_tool("remember", {"key": "shell-choice", "type": "preference", "vault": "personal",
                                                    "description": "Uses fish with the starship prompt"})
            assert not r.is_error, r.content
    anyio.run(session)
    assert "starship" in (personal / "preferences" / "shell-choice.md").read_text()
    assert (proj / "memory" / "preferences" / "shell-choice.md").read_bytes() == theirs
    # a key the project's copy of which a bare get reads is written there, as before
    r = cli("remember", "editor-choice", "--type", "preference", "-d", "Uses Helix 25.07", cwd=proj)
    assert r.returncode == 0 and "project vault" in r.stdout, r.stderr
    # a key only the personal vault holds: a bare remember creates the project's, as DESIGN §8 says
    r = cli("--vault", str(personal), "remember", "tabs", "--type", "preference", "-d", "Indents with tabs")
    assert r.returncode == 0, r.stderr
    r = cli("remember", "tabs", "--type", "preference", "-d", "Indents with two spaces here", cwd=proj)
    assert r.returncode == 0 and "project vault" in r.stdout, r.stderr
