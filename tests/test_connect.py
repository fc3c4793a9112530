"""`vault-mem connect`: each agent's files merged, not replaced; and the real agent CLIs using them.

The end-to-end tests run the real CLIs from the npm registry (`.ci/run` installs them into
`.ci/node/`; `VAULT_MEM_AGENT_CLIS` may name another `node_modules/.bin`). Their model is the one
stand-in (tests/agent_standin.py): the CLI, its hooks, its MCP client and our server are real.
They skip, saying why, where node or the package is missing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from agent_clis import agent_cli, claude_env, connect_cli
from agent_standin import MessagesStandIn, request_text, text, tool_names, tool_results, tool_use
from conftest import cli, git, project_of_its_own, teammate_pushes, trusted_by_key

from vault_mem.adapters.connect import connect

ROOT = Path(__file__).resolve().parent.parent


EXE = "/opt/venv/bin/vault-mem"


def test_a_persons_settings_and_own_hooks_survive_and_our_hook_is_not_doubled(project):
    """(Project scope: tests/test_connect_local.py.)"""
    proj, home = project
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    mine = {"type": "command", "command": "~/bin/my-prompt-logger"}
    settings.write_text(json.dumps({"model": "opus", "permissions": {"allow": ["Bash(ls)"]},
                                    "hooks": {"UserPromptSubmit": [{"hooks": [mine]}],
                                              "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}}))
    for _ in range(2):
        connect("claude-code", proj / "memory", home=home, exe=EXE)
    data = json.loads(settings.read_text())
    assert data["model"] == "opus" and data["permissions"] == {"allow": ["Bash(ls)"]}
    stops = [h["command"] for g in data["hooks"]["Stop"] for h in g["hooks"]]
    assert stops[0] == "say done" and len(stops) == 2 and stops[1].endswith("hook stop")
    commands = [h["command"] for g in data["hooks"]["UserPromptSubmit"] for h in g["hooks"]]
    assert commands.count("~/bin/my-prompt-logger") == 1
    assert sum(c.endswith("hook user-prompt-submit") for c in commands) == 1


def test_a_moved_install_rewrites_our_entries_in_place(project):
    proj, home = project
    connect("claude-code", proj / "memory", scope="user", home=home, exe="/old/venv/bin/vault-mem")
    changes = connect("claude-code", proj / "memory", scope="user", home=home, exe=EXE)
    assert {c.action for c in changes} == {"updated"}
    text_ = (home / ".claude" / "settings.json").read_text()
    assert "/old/venv" not in text_ and text_.count("hook session-start") == 1
    assert json.loads((home / ".claude.json").read_text())["mcpServers"]["vault-mem"]["command"] == EXE


def test_dry_run_writes_nothing_and_says_what_it_would_do(project):
    proj, home = project
    r = cli("--vault", str(proj / "memory"), "connect", "claude-code", "--dry-run", "--json",
            env={"HOME": str(home)})
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["dry_run"] and {c["action"] for c in out["changes"]} == {"created"}
    assert not any(home.iterdir())


def test_a_file_that_is_not_json_is_refused_by_name_and_left_alone(project):
    proj, home = project
    broken = home / ".claude" / "settings.json"
    broken.parent.mkdir()
    broken.write_text('{"hooks": {,}')
    r = cli("--vault", str(proj / "memory"), "connect", "claude-code", env={"HOME": str(home)})
    assert r.returncode == 1
    assert str(broken) in r.stderr and "not valid JSON" in r.stderr
    assert broken.read_text() == '{"hooks": {,}'
    assert not (home / ".claude.json").exists()  # all or nothing: the plan failed before any write


def test_codex_config_keeps_a_persons_tables_and_comments(project):
    proj, home = project
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('# my codex settings\nmodel = "o4"\n\n[features]\nweb_search = true\n\n'
                      '[mcp_servers.docs]\ncommand = "docs-mcp"\n\n[mcp_servers.vault-mem]\ncommand = "old"\n'
                      '[mcp_servers.vault-mem.env]\nX = "1"\n\n[profiles.fast]\nmodel = "mini"\n')
    connect("codex", proj / "memory", home=home, exe=EXE)
    text_ = config.read_text()
    data = tomllib.loads(text_)
    assert text_.startswith("# my codex settings\n")
    assert data["model"] == "o4" and data["profiles"] == {"fast": {"model": "mini"}}
    assert data["features"] == {"web_search": True}
    assert data["mcp_servers"]["docs"] == {"command": "docs-mcp"}
    assert data["mcp_servers"]["vault-mem"] == {"command": EXE, "args": ["mcp", str((proj / "memory").resolve())],
                                                 "env": {"PYTHONPATH": ""}}
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "Stop"}
    assert {c.action for c in connect("codex", proj / "memory", home=home, exe=EXE)} == {"unchanged"}


def test_gemini_and_cursor(project):
    proj, home = project
    connect("gemini", proj / "memory", home=home, exe=EXE)
    data = json.loads((home / ".gemini" / "settings.json").read_text())
    # Gemini ignores a server's env PYTHONPATH: the command line drops it (test_connect_outdated)
    assert data["mcpServers"]["vault-mem"]["args"] == ["-u", "PYTHONPATH", EXE, "mcp", str(proj / "memory")]
    # Gemini's own 5 s to connect showed a server starting on a loaded machine as "Disconnected"
    assert data["mcpServers"]["vault-mem"]["timeout"] == 60000
    assert set(data["hooks"]) == {"SessionStart", "BeforeAgent", "AfterAgent"}
    assert data["hooks"]["BeforeAgent"][0]["hooks"][0]["command"].endswith("hook user-prompt-submit")
    connect("cursor", proj / "memory", scope="project", project=proj, exe=EXE)
    assert json.loads((proj / ".cursor" / "mcp.json").read_text())["mcpServers"]["vault-mem"]["command"] == EXE


# -- the real Claude Code ----------------------------------------------------------------------
@pytest.mark.slow
def test_claude_mcp_list_shows_the_project_server_connected(project):
    claude = agent_cli("claude")
    proj, home = project
    connect_cli(proj, home, "--scope", "project")
    r = subprocess.run(check=False, args=[claude, "mcp", "list"], cwd=proj, env=claude_env(home), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    line = next(line for line in r.stdout.splitlines() if line.startswith("vault-mem"))
    assert "Connected" in line, r.stdout


@pytest.mark.slow
def test_a_claude_session_gets_the_hooks_context_and_round_trips_recall_and_remember(project):
    claude = agent_cli("claude")
    proj, home = project
    connect_cli(proj, home, "--scope", "project")

    def script(body):
        tools = {t["name"] for t in body.get("tools", [])}
        done = tool_results(body)
        if len(done) == 0:
            if "mcp__vault-mem__recall" not in tools and "WaitForMcpServers" in tools:
                return tool_use("WaitForMcpServers", {})
            return tool_use("mcp__vault-mem__recall", {"query": "which text editor do I use?"})
        if not any("editor-choice" in r for r in done):
            return tool_use("mcp__vault-mem__recall", {"query": "which text editor do I use?"})
        if not any("decisions/db-choice.md" in r for r in done):
            return tool_use("mcp__vault-mem__remember", {
                "key": "db-choice", "type": "decision", "description": "Use Postgres for the ledger",
                "body": "Because we need row-level locks."})
        return text("You use Helix; I saved the database decision.")

    with MessagesStandIn(script) as model:
        r = subprocess.run(check=False, args=[claude, "-p", "which text editor do I use?", "--allowedTools",
                            "mcp__vault-mem__recall mcp__vault-mem__remember WaitForMcpServers"],
                           cwd=proj, env=claude_env(home, model.url), capture_output=True, text=True,
                           timeout=180, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "You use Helix" in r.stdout
    first = request_text(model.requests[0])
    assert "SessionStart hook additional context" in first and "editor-choice" in first  # INDEX.md
    assert "UserPromptSubmit hook additional context" in first and "Uses Helix" in first
    results = [x for body in model.requests for x in tool_results(body)]
    assert any("editor-choice" in x and "Helix" in x for x in results), results
    assert (proj / "memory" / "decisions" / "db-choice.md").is_file()
    log = git(proj, "log", "-1", "--format=%s", "--", "memory/decisions/db-choice.md")
    assert log.startswith("remember: db-choice")


@pytest.mark.slow
def test_connected_without_a_vault_a_claude_session_sees_the_project_and_the_personal_vault(two_vaults):
    """DESIGN §8 end to end: `connect claude-code --scope project` run in the project (no
    --vault) leaves `claude mcp list` connected and is idempotent; a session started in the
    project (Claude Code reads .claude/ there, not above) gets both INDEX.md files in its SessionStart context, and its recall returns the
    memories of both vaults, each named by its vault."""
    claude = agent_cli("claude")
    proj, home, personal = two_vaults
    out = connect_cli(proj, home, "--scope", "project", pin=False)
    assert "the project vault of each session's working folder" in out and str(personal) in out
    assert "already connected" in connect_cli(proj, home, "--scope", "project", pin=False)
    settings = json.loads((proj / ".claude" / "settings.local.json").read_text())
    assert all("--vault" not in h["command"] for g in settings["hooks"]["SessionStart"] for h in g["hooks"])
    listed = subprocess.run(check=False, args=[claude, "mcp", "list"], cwd=proj, env=claude_env(home),
                            capture_output=True, text=True, timeout=120)
    assert "Connected" in next(line for line in listed.stdout.splitlines() if line.startswith("vault-mem")), listed

    def script(body):
        tools = {t["name"] for t in body.get("tools", [])}
        if not tool_results(body):
            if "mcp__vault-mem__recall" not in tools and "WaitForMcpServers" in tools:
                return tool_use("WaitForMcpServers", {})
            return tool_use("mcp__vault-mem__recall", {"query": "which editor and which shell do I use?"})
        if not any("shell-choice" in r for r in tool_results(body)):
            return tool_use("mcp__vault-mem__recall", {"query": "which editor and which shell do I use?"})
        return text("Helix, and fish.")

    with MessagesStandIn(script) as model:
        r = subprocess.run(check=False, args=[claude, "-p", "which editor and which shell do I use?", "--allowedTools",
                                              "mcp__vault-mem__recall WaitForMcpServers"],
                           cwd=proj, env=claude_env(home, model.url), capture_output=True, text=True,
                           timeout=180, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "Helix, and fish." in r.stdout
    first = request_text(model.requests[0])
    assert "INDEX.md of the project vault" in first and "INDEX.md of the personal vault" in first
    assert "editor-choice" in first and "shell-choice" in first
    results = [x for body in model.requests for x in tool_results(body)]
    recalled = next(x for x in results if "shell-choice" in x)
    # Claude Code hands the model the structured result (JSON) when there is one, else the fenced text
    named = recalled.replace(" ", "").replace('vault="', '"vault":"')
    assert "editor-choice" in recalled and '"vault":"personal"' in named and '"vault":"project"' in named


# -- the real Codex CLI ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def codex_session():
    """One real Codex CLI (0.171) session, read by the two tests below (a Codex session is ~4 s of
    CPU): a teammate's pinned memory pulled with plain git into the project (worded as the very
    question asked, tests/test_peer_attacks27.py's), `vault-mem connect codex`, `codex mcp list`,
    then `codex exec` with the stand-in model (which answers without a tool call)."""
    from test_peer_attacks27 import TEAMMATES_EDITOR

    codex = agent_cli("codex")
    with project_of_its_own("codex-session") as (proj, home):
        teammate_pushes(proj, proj.parent, {"memory/preferences/main-editor.md": TEAMMATES_EDITOR})
        arrived = trusted_by_key(proj / "memory")["main-editor"]
        config = home / ".codex" / "config.toml"
        config.parent.mkdir()
        with MessagesStandIn(lambda body: text("You use Helix."), api="responses") as model:
            config.write_text('model = "stand-in"\nmodel_provider = "standin"\n\n[model_providers.standin]\n'
                              f'name = "stand-in"\nbase_url = "{model.url}/v1"\nwire_api = "responses"\n'
                              'env_key = "STANDIN_API_KEY"\n')
            connect_cli(proj, home, agent="codex")
            env = {**os.environ, "HOME": str(home), "STANDIN_API_KEY": "stand-in", "VAULT_MEM_EMBEDDER": "local"}
            env.pop("VAULT_MEM_VAULT", None)
            listed = subprocess.run(check=False, args=[codex, "mcp", "list"], cwd=proj, env=env, capture_output=True,
                                    text=True, timeout=120)
            r = subprocess.run(check=False, args=[codex, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check",
                                "which text editor do I use?"], cwd=proj, env=env, capture_output=True, text=True,
                               timeout=180, stdin=subprocess.DEVNULL)
        yield {"listed": listed, "run": r, "requests": model.requests, "vault": (proj / "memory").resolve(),
               "teammates_arrived_trusted": arrived}


@pytest.mark.slow
def test_codex_lists_the_server_and_its_hooks_bring_the_memories_into_the_request(codex_session):
    """How far Codex goes here (0.171): `codex mcp list` shows the server enabled, and the
    SessionStart and UserPromptSubmit hooks' context reaches the model. Codex runs a new hook
    only once the person trusts it (`/hooks` in its TUI); `codex exec` has no such review, so the
    session passes --dangerously-bypass-hook-trust. Codex did not offer the MCP server's tools to
    the model in `codex exec` (its tools list held only the MCP resource tools), so no tool round
    trip is tested for it."""
    listed, r, requests = codex_session["listed"], codex_session["run"], codex_session["requests"]
    assert listed.returncode == 0, listed.stderr
    row = next(line for line in listed.stdout.splitlines() if line.startswith("vault-mem"))
    assert "enabled" in row and str(codex_session["vault"]) in row, listed.stdout
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "You use Helix." in r.stdout
    sent = request_text(requests[0])
    assert "Long-term memory" in sent and "editor-choice" in sent  # session start: policy + INDEX.md
    assert "Memories that may be relevant" in sent and "Uses Helix" in sent  # the prompt hook


@pytest.mark.slow
def test_a_teammates_pinned_text_reaches_no_codex_request_unasked(codex_session):
    """Codex's SessionStart and UserPromptSubmit hooks run the same `vault-mem hook` as Claude
    Code's, with their own event shapes: a teammate's pinned memory (``source: user``), pulled
    with plain git and worded as the very question asked, reaches no model request, while the
    person's own memory does (Gemini CLI's: tests/test_peer_attacks27.py)."""
    r, requests = codex_session["run"], codex_session["requests"]
    assert codex_session["teammates_arrived_trusted"] is False  # arrived, a teammate's
    assert r.returncode == 0, (r.stdout, r.stderr)
    sent = "\n".join(request_text(b) for b in requests)
    assert "Long-term memory" in sent and "Uses Helix" in sent  # the hooks ran: the person's memory is there
    assert "MARK-codex-gemini" not in sent, sent[sent.find("MARK-codex-gemini") - 600:][:1200]


# -- the real Gemini CLI -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def gemini_session():
    """One real Gemini CLI (0.61) session, read by the two tests below (a Gemini start-up is ~2.5 s
    of CPU): a person's settings, `vault-mem connect gemini`, a module on the person's PYTHONPATH
    (a sitecustomize that leaves a mark when it runs), then `gemini --yolo -p` with the stand-in
    model, whose script recalls through our MCP server when Gemini offers it. In `-p` mode Gemini
    offers tools that ask for confirmation only under --yolo (interactively, it asks before each
    call)."""
    gemini = agent_cli("gemini")
    with project_of_its_own("gemini-session") as (proj, home):
        settings = home / ".gemini" / "settings.json"
        settings.parent.mkdir()
        settings.write_text(json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}}}))
        connect_cli(proj, home, agent="gemini")
        kept = json.loads(settings.read_text())["security"]
        planted = proj.parent / "planted"
        planted.mkdir()
        mark = proj.parent / "ran"
        (planted / "sitecustomize.py").write_text(f"open({str(mark)!r}, 'a').write('ran')\n")

        def script(body):
            if not tool_results(body):
                if "mcp_vault-mem_recall" in tool_names(body):
                    return tool_use("mcp_vault-mem_recall", {"query": "which text editor do I use?"})
                return text("no memory tools were offered")
            return text("You use Helix.")

        with MessagesStandIn(script, api="gemini") as model:
            env = {**os.environ, "HOME": str(home), "GEMINI_API_KEY": "stand-in", "GOOGLE_GEMINI_BASE_URL": model.url,
                   "GEMINI_CLI_TRUST_WORKSPACE": "true", "VAULT_MEM_EMBEDDER": "local", "PYTHONPATH": str(planted)}
            env.pop("VAULT_MEM_VAULT", None)
            r = subprocess.run(check=False, args=[gemini, "--yolo", "-m", "gemini-2.5-pro", "-p", "which text editor do I use?"],
                               cwd=proj, env=env, capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
        yield {"run": r, "requests": model.requests, "settings_kept": kept, "mark": mark}


@pytest.mark.slow
def test_gemini_gets_the_hooks_context_and_round_trips_recall(gemini_session):
    """Gemini CLI runs our SessionStart and BeforeAgent hooks and offers our MCP tools; connect
    keeps the person's own settings."""
    r, requests = gemini_session["run"], gemini_session["requests"]
    assert gemini_session["settings_kept"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "You use Helix." in r.stdout, r.stdout
    sent = "\n".join(request_text(b) for b in requests)  # Gemini sends side requests of its own too
    for said in ("Long-term memory", "Memories that may be relevant", "Uses Helix"):
        assert said in sent, said
    results = [x for body in requests for x in tool_results(body)]
    assert any("editor-choice" in x for x in results), results


@pytest.mark.slow
def test_gemini_starts_the_server_without_the_persons_pythonpath(gemini_session):
    """Gemini CLI drops an MCP server's ``env`` setting of PYTHONPATH ("Blocked dangerous
    environment variable override") and passes the person's own on: the server connect writes
    for Gemini drops it in its command line, so a module on the person's PYTHONPATH (the
    session's sitecustomize, which leaves a mark) never runs in it, nor in the hooks, and the
    server Gemini started answers (the session's recall came back from it)."""
    r, requests = gemini_session["run"], gemini_session["requests"]
    said = r.stdout + r.stderr
    assert r.returncode == 0, said
    assert "Blocked dangerous environment variable" not in said, said
    assert any("editor-choice" in x for body in requests for x in tool_results(body)), said
    assert not gemini_session["mark"].exists(), "the person's PYTHONPATH reached a vault-mem process Gemini started"


@pytest.mark.slow
def test_the_claude_code_plugin_in_the_repository_loads_and_serves_the_vault_it_runs_in(tmp_path):
    """hooks/claude-code/plugin: the manifest validates, and a session started with --plugin-dir
    in a vault gets both hooks' context and answers a recall through the plugin's MCP server
    (vault-mem on PATH, the vault found from the working folder)."""
    claude = agent_cli("claude")
    plugin = ROOT / "hooks" / "claude-code" / "plugin"
    vault, home = tmp_path / "notes", tmp_path / "home"
    home.mkdir()
    assert cli("init", str(vault)).returncode == 0
    assert cli("--vault", str(vault), "remember", "editor-choice", "--type", "preference",
               "-d", "Uses Helix as the main editor").returncode == 0
    env = claude_env(home)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    checked = subprocess.run(check=False, args=[claude, "plugin", "validate", "--strict", str(plugin)], env=env,
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    def script(body):
        tools = tool_names(body)
        done = tool_results(body)
        recall = next((t for t in tools if t.endswith("__recall") and "vault-mem" in t), None)
        if not any("editor-choice" in r for r in done):
            if recall is None and "WaitForMcpServers" in tools and not done:
                return tool_use("WaitForMcpServers", {})
            return tool_use(recall or "mcp__plugin_vault-mem_vault-mem__recall", {"query": "my text editor"})
        return text("You use Helix.")

    with MessagesStandIn(script) as model:
        env["ANTHROPIC_BASE_URL"] = model.url
        r = subprocess.run(check=False, args=[claude, "--plugin-dir", str(plugin), "-p", "which text editor do I use?",
                            "--allowedTools", "mcp__plugin_vault-mem_vault-mem__recall WaitForMcpServers"], cwd=vault, env=env, capture_output=True,
                           text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "You use Helix." in r.stdout
    first = request_text(model.requests[0])
    assert "SessionStart hook additional context" in first and "UserPromptSubmit hook additional context" in first
    assert any("editor-choice" in x for body in model.requests for x in tool_results(body))
