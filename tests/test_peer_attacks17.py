"""A seventeenth attack run (issue 23, attack25): a teammate's commits to a project repository
(a real bare remote, pulled with plain git), the person using the real CLI as they would. Each
attack's test fails on the code before its fix."""

from __future__ import annotations

import contextlib
import os
import resource

from conftest import cli, teammate_pushes

#: what the person keeps outside the project: their global Claude instructions and a private note
_GLOBAL = "# About me\n- My bank is Acme Bank and my lawyer is Jane Roe\n"
_PRIVATE = "- I plan to leave the company in March; tell no one\n"


def _persons_private_files(home):
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "CLAUDE.md").write_text(_GLOBAL)
    (home / "notes").mkdir(parents=True, exist_ok=True)
    (home / "notes" / "private.md").write_text(_PRIVATE)


def _vault_text(vault) -> str:
    return "".join(p.read_text(errors="replace") for p in vault.rglob("*.md")
                   if ".vault-mem" not in p.parts)


def test_import_in_a_teammates_repository_reads_nothing_through_its_committed_links(project, tmp_path):
    """Before: a teammate's commit of `.claude -> ~/.claude` (and `CLAUDE.md -> ~/notes/private.md`)
    made the person's `vault-mem import .` read their global ~/.claude/CLAUDE.md as the project's
    `.claude/CLAUDE.md` (only the last part of a path was opened without following links), and
    `vault-mem import CLAUDE.md` read the private note (the named path was resolved as the person's
    choice): both landed in the project vault, whose next push gives them to the team. Inside the
    folder named nothing is followed; a named path reached through a link a commit holds is refused."""
    proj, home = project
    _persons_private_files(home)
    teammate_pushes(proj, tmp_path, {"README.md": "the app\n"},
                    links={".claude": str(home / ".claude"), "CLAUDE.md": str(home / "notes" / "private.md")})
    assert os.path.islink(proj / ".claude") and os.path.islink(proj / "CLAUDE.md")
    folder = cli("import", ".", cwd=proj)
    named = cli("import", "CLAUDE.md", cwd=proj)
    text = _vault_text(proj / "memory")
    assert "Acme Bank" not in text, folder.stdout + folder.stderr
    assert "leave the company" not in text, named.stdout + named.stderr
    assert named.returncode != 0 and "CLAUDE.md" in named.stderr and "commit" in named.stderr, named.stderr


def test_import_of_a_link_the_person_made_still_follows_it(project):
    """The guard: a link of the person's own that no commit holds means what naming its target means."""
    proj, home = project
    _persons_private_files(home)
    os.symlink(home / "notes" / "private.md", proj / "mine.md")
    r = cli("import", "mine.md", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert "leave the company" in _vault_text(proj / "memory")


def test_connect_in_a_teammates_repository_writes_nothing_through_its_committed_links(project, tmp_path):
    """Before: a teammate's commit of `.claude -> ~/.claude` made the person's `vault-mem connect
    claude-code --scope project` write `settings.json` and `settings.local.json` into ~/.claude
    (the person's own settings for every project), while it printed paths inside the project: a
    file of the clone decided where connect writes. A link a commit holds on the way to a file
    connect writes is refused by name, nothing written."""
    proj, home = project
    (home / ".claude").mkdir()
    teammate_pushes(proj, tmp_path, {"README.md": "the app\n"}, links={".claude": str(home / ".claude")})
    r = cli("connect", "claude-code", "--scope", "project", cwd=proj, env={"HOME": str(home)})
    assert sorted(os.listdir(home / ".claude")) == [], r.stdout + r.stderr
    assert r.returncode != 0 and ".claude" in r.stderr and "commit" in r.stderr, r.stderr


def test_a_key_too_long_for_a_file_name_is_refused_as_a_key_where_two_vaults_answer(two_vaults):
    """Before: with a project vault and a personal vault, a key of 300 characters (an agent's MCP
    `remember`, `get` or `forget`) was looked for on disk in both vaults before it was checked, and
    the file system's "File name too long" came back as an internal error (the MCP server logged
    the whole name) instead of the key's own refusal, which one vault gives. The key is checked
    before any look at the disk."""
    proj, _, _ = two_vaults
    key = "a" * 300
    for args in (["remember", key, "-t", "fact", "-d", "x", "-b", "y"], ["get", key], ["forget", key]):
        r = cli(*args, cwd=proj)
        assert r.returncode != 0 and "at most 80" in r.stderr, (args[0], r.stderr[:300])
        assert "too long:" not in r.stderr, (args[0], r.stderr[:300])


@contextlib.contextmanager
def _address_space_capped(extra: int = 1 << 30):
    """This process's address space capped at what it maps now and ``extra`` more, for a block."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if not os.path.exists("/proc/self/statm"):  # no such count here: uncapped (the fixed code reads little)
        yield
        return
    with open("/proc/self/statm") as f:
        mapped = int(f.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + extra, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _deep(n: int = 50_000) -> str:
    return "[" * n + "]" * n


def test_json_nested_past_the_parsers_depth_never_stops_the_agent_hooks(two_vaults, tmp_path):
    """Before: the agent hooks parsed their event and the session's transcript with plain
    `json.loads`, which raises RecursionError (not a decode error) on JSON nested deeper than
    Python's recursion limit: one such line in the transcript (a tool's or an MCP server's
    structured result, which the agent CLI writes there) made the Stop hook end every session with
    "internal error", its ask to save what was learned lost; an event nested so deep did the same
    to the prompt hook. The MCP server already answered such a request with a JSON-RPC error.
    JSON too deep to read is unreadable JSON, wherever a hook reads it."""
    import json

    proj, _, _ = two_vaults
    tool_use = json.dumps({"type": "assistant", "message": {"content": [
        {"type": "tool_use", "name": "Edit", "input": {}}]}})
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("\n".join([tool_use] * 30 + ['{"type": "user", "toolUseResult": ' + _deep() + "}"]))
    stop = json.dumps({"session_id": "s1", "transcript_path": str(transcript), "cwd": str(proj),
                       "hook_event_name": "Stop", "stop_hook_active": False})
    for name, event in (("stop", stop), ("user-prompt-submit", '{"prompt": ' + _deep() + "}"),
                        ("session-start", '{"source": ' + _deep() + "}")):
        r = cli("hook", name, cwd=proj, input=event)
        assert r.returncode == 0, (name, r.stderr[-300:])


def test_connect_in_a_clone_whose_agent_settings_nest_past_the_parsers_depth_refuses_by_name(project):
    """The same class in `connect` run in a fresh clone: a committed `.mcp.json` nested past the
    parser's depth was an internal error; it is a file that is not valid JSON, named, nothing written."""
    proj, home = project
    (proj / ".mcp.json").write_text('{"mcpServers": ' + _deep() + "}")
    r = cli("connect", "claude-code", "--scope", "project", cwd=proj, env={"HOME": str(home)})
    assert r.returncode != 0 and ".mcp.json is not valid JSON" in r.stderr, r.stderr[-300:]
    assert not (proj / ".claude").exists()


def test_doctor_and_connect_read_a_clones_agent_configurations_bounded(project, tmp_path):
    """Before: `doctor` reads the working folder's agent configurations (`.mcp.json`,
    `.claude/settings.json`, `.codex/config.toml`, ...) for entries an older connect wrote. A
    teammate's committed `.mcp.json -> /dev/zero` made it read until memory ran out (and `connect
    --scope project` the same, before anything was checked); one to `/dev/stdin` would wait; a
    committed `.codex/config.toml` nested past the parser's depth made doctor end in an internal
    RecursionError. Such a file is read as a regular file only, bounded; one that cannot be read
    is skipped by doctor and named by connect."""
    proj, home = project
    teammate_pushes(proj, tmp_path, {".codex/config.toml": "a = " + "[" * 3000 + "]" * 3000 + "\n"},
                    links={".mcp.json": "/dev/zero"})
    with _address_space_capped():  # on the code before, a read of /dev/zero ends in MemoryError, not the machine's swap
        doctor = cli("doctor", cwd=proj, env={"HOME": str(home)})
        r = cli("connect", "claude-code", "--scope", "project", cwd=proj, env={"HOME": str(home)})
    assert "internal error" not in doctor.stderr, doctor.stderr[-300:]
    assert r.returncode != 0 and ".mcp.json" in r.stderr and "regular file" in r.stderr, r.stderr[-300:]
    r = cli("connect", "codex", "--scope", "project", cwd=proj, env={"HOME": str(home)})
    assert r.returncode != 0 and "config.toml is not valid TOML" in r.stderr, r.stderr[-300:]
