"""`vault-mem doctor` names agent configurations an older `vault-mem connect` wrote in a form this
one does not (DESIGN §7: nothing in a vault is ever run), and `connect` rewrites them.

Before the connect command dropped PYTHONPATH (env -u PYTHONPATH), a hook started from a
vault a peer's commits fill could import the peer's modules at Python start-up wherever the
person's PYTHONPATH held an empty entry; a configuration written then keeps that command until
connect runs again, and nothing said so.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import cli

from vault_mem.adapters.connect import connect, executable
from vault_mem.adapters.connect_outdated import outdated


def _old_configs(home: Path, proj: Path, exe: str) -> None:
    """The entries an older connect wrote: no PYTHONPATH handling, a `python -m` server, a program gone."""
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps({"hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [
            {"type": "command", "command": "echo a person's own hook"},
            {"type": "command", "command": f"{exe} hook session-start", "timeout": 30}]}]}}))
    (home / ".claude.json").write_text(json.dumps({"mcpServers": {"vault-mem": {"type": "stdio", "command": exe, "args": ["mcp"]}}}))
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(
        '[mcp_servers.vault-mem]\ncommand = "/usr/bin/python3"\nargs = ["-m", "vault_mem", "mcp"]\n')
    (proj / ".gemini").mkdir()
    (proj / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"vault-mem": {
        "command": "/gone/venv/bin/vault-mem", "args": ["mcp", str(proj / "memory")], "env": {"PYTHONPATH": ""}}}}))


def test_doctor_names_each_outdated_agent_configuration_and_connect_rewrites_it(project):
    proj, home = project
    exe = executable()
    _old_configs(home, proj, exe)
    env = {"HOME": str(home)}

    r = cli("--vault", str(proj / "memory"), "doctor", cwd=proj, env=env)
    assert r.returncode == 0, r.stderr  # a warning: the vault itself is fine
    said = [line for line in r.stdout.splitlines() if "configuration" in line]
    assert len(said) == 4, r.stdout
    assert any(".claude/settings.json" in s and "without dropping PYTHONPATH" in s
               and "`vault-mem connect claude-code`" in s for s in said), said
    assert any(".claude.json" in s and "MCP server starts vault-mem without emptying PYTHONPATH" in s for s in said), said
    assert any(".codex/config.toml" in s and "python3 -m" in s and "`vault-mem connect codex`" in s for s in said), said
    assert any(".gemini/settings.json" in s and "/gone/venv/bin/vault-mem, which is no longer there" in s
               and f"`vault-mem connect gemini --vault {proj / 'memory'} --scope project`" in s for s in said), said
    data = json.loads(cli("--vault", str(proj / "memory"), "doctor", "--json", cwd=proj, env=env).stdout)
    assert {(o["agent"], o["scope"]) for o in data["agent_configs_outdated"]} == {
        ("claude-code", "user"), ("codex", "user"), ("gemini", "project")}

    # the fixes it names, run: nothing outdated is left, and the person's own hook is kept
    connect("claude-code", None, home=home, exe=exe)
    connect("codex", None, home=home, exe=exe)
    connect("gemini", proj / "memory", scope="project", project=proj, home=home, exe=exe)
    assert outdated(home=home, project=proj) == []
    r = cli("--vault", str(proj / "memory"), "doctor", cwd=proj, env=env)
    assert "configuration" not in r.stdout, r.stdout
    hooks = json.loads((home / ".claude" / "settings.json").read_text())["hooks"]["SessionStart"]
    assert any(h["command"] == "echo a person's own hook" for g in hooks for h in g["hooks"])


def test_what_connect_writes_today_is_never_called_outdated(project, tmp_path):
    proj, home = project
    exe = executable()
    for agent in ("claude-code", "codex", "gemini", "cursor"):
        connect(agent, None, home=home, exe=exe)
        connect(agent, proj / "memory", scope="project", project=proj, home=home, exe=exe)
    assert outdated(home=home, project=proj) == []
    # a file that does not parse is left to connect to name, not reported as ours
    (home / ".gemini" / "settings.json").write_text("{not json")
    assert outdated(home=home, project=proj) == []


def test_a_gemini_server_that_empties_pythonpath_through_env_is_outdated(project):
    """Gemini CLI ignores a server's ``env`` PYTHONPATH, so the form the other agents get is
    outdated there: doctor names it, and connect rewrites it to drop PYTHONPATH in the command."""
    proj, home = project
    exe = executable()
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps({"mcpServers": {"vault-mem": {
        "command": exe, "args": ["mcp"], "env": {"PYTHONPATH": ""}}}}))
    found = outdated(home=home, project=proj)
    assert [(o.agent, o.scope) for o in found] == [("gemini", "user")], found
    assert "Gemini CLI ignores" in found[0].why and found[0].fix == "vault-mem connect gemini"
    connect("gemini", None, home=home, exe=exe)
    entry = json.loads((home / ".gemini" / "settings.json").read_text())["mcpServers"]["vault-mem"]
    assert entry["args"][:3] == ["-u", "PYTHONPATH", exe] and "env" not in entry, entry
    assert outdated(home=home, project=proj) == []
