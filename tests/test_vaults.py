"""Several vaults at once (DESIGN §8): the personal vault and the project vault, found from any
folder of a project, used together by the CLI, the hooks and the MCP server.

Real vaults in real git repositories (``two_vaults``: a project with memory/, a personal vault
named in a fake ``$XDG_CONFIG_HOME/vault-mem/config.toml``), the real CLI entry point, the real
MCP SDK client against the real server process.
"""

from __future__ import annotations

import json

import anyio
import pytest
from conftest import cli, git, mcp_server_in, wait_for
from mcp import Client

from vault_mem.adapters.contexts import MAX_CONTEXT_CHARS
from vault_mem.adapters.mcp_server import DATA_META
from vault_mem.store.finder import resolve_vaults


def _env_without_config(tmp_path):
    return {"XDG_CONFIG_HOME": str(tmp_path / "no-config")}


# -- where the vaults are found ----------------------------------------------------------------
def test_from_a_sub_folder_the_project_vault_is_memory_at_the_top_of_the_repository(two_vaults, monkeypatch):
    proj, _, personal = two_vaults
    deep = proj / "src" / "app"
    deep.mkdir(parents=True)
    found = resolve_vaults(start=deep)
    assert [(v.name, v.root) for v in found.vaults] == [("project", (proj / "memory").resolve()),
                                                       ("personal", personal.resolve())]
    assert "memory/ at the top of the git repository" in found.vaults[0].how
    assert "config.toml" in found.vaults[1].how
    # the environment names the personal vault before the config file does
    other = proj.parent / "other-personal"
    assert cli("init", str(other)).returncode == 0
    monkeypatch.setenv("VAULT_MEM_PERSONAL", str(other))
    assert resolve_vaults(start=deep).vaults[1].root == other.resolve()
    # --vault PATH alone: that vault only
    assert [v.root for v in resolve_vaults(str(personal), start=deep).vaults] == [personal.resolve()]


def test_vault_mem_vault_is_only_the_fallback_and_outside_a_project_writes_go_to_the_personal_vault(
        two_vaults, tmp_path):
    proj, _, personal = two_vaults
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    exported = tmp_path / "exported"
    assert cli("init", str(exported)).returncode == 0
    env = {"VAULT_MEM_VAULT": str(exported)}
    r = cli("remember", "tabs", "-t", "preference", "-d", "Prefers spaces over tabs", cwd=elsewhere, env=env)
    assert r.returncode == 0, r.stderr
    assert (personal / "preferences" / "tabs.md").is_file() and not (exported / "preferences" / "tabs.md").exists()
    assert f"in {personal.resolve()} (personal vault, commit" in r.stdout
    # no personal vault configured: VAULT_MEM_VAULT is the fallback, as before
    env.update(_env_without_config(tmp_path))
    r = cli("remember", "tabs", "-t", "preference", "-d", "Prefers spaces over tabs", cwd=elsewhere, env=env)
    assert r.returncode == 0, r.stderr
    assert (exported / "preferences" / "tabs.md").is_file()


def test_a_personal_vault_that_is_not_a_vault_is_skipped_in_one_line_and_the_project_vault_still_works(
        two_vaults, tmp_path):
    proj, _, _ = two_vaults
    env = {"VAULT_MEM_PERSONAL": str(tmp_path / "missing")}
    for args in (("recall", "editor"), ("list",), ("get", "editor-choice"), ("log", "editor-choice")):
        r = cli(*args, cwd=proj, env=env)
        assert r.returncode == 0, (args, r.stderr)
        assert "editor-choice" in r.stdout or "Helix" in r.stdout or "editor" in r.stdout
        skipped = [ln for ln in r.stderr.splitlines() if "personal vault" in ln]
        assert len(skipped) == 1, r.stderr  # one line: skipped, why, and how to fix it
        assert ("skipped" in skipped[0] and "$VAULT_MEM_PERSONAL" in skipped[0] and "not a vault" in skipped[0]
                and f"vault-mem init {tmp_path / 'missing'}" in skipped[0])
    r = cli("remember", "ci", "-d", "CI runs on GitHub Actions", cwd=proj, env=env)
    assert r.returncode == 0, r.stderr
    assert (proj / "memory" / "knowledge" / "ci.md").is_file() or "ci.md" in r.stdout
    # a write asked of the personal vault is refused with the reason, not "not configured"
    r = cli("remember", "--personal", "tabs", "-d", "Prefers spaces", cwd=proj, env=env)
    assert r.returncode != 0 and "not a vault" in r.stderr and "vault-mem init" in r.stderr
    # doctor still reports it as an error
    r = cli("doctor", "--json", cwd=proj, env=env)
    data = json.loads(r.stdout)
    assert r.returncode == 1 and not data["ok"]
    assert any(v["name"] == "personal" and "not a vault" in v.get("error", "") for v in data["vaults"])
    r = cli("doctor", cwd=proj, env=env)
    assert r.returncode == 1 and "error: the personal vault is skipped" in r.stdout
    # outside any project the broken personal vault is the error itself
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = cli("recall", "editor", cwd=elsewhere, env=env)
    assert r.returncode == 1 and "VAULT_MEM_PERSONAL" in r.stderr and "vault-mem init" in r.stderr


# -- the CLI -----------------------------------------------------------------------------------
def test_recall_from_a_sub_folder_finds_both_vaults_memories_each_named_by_its_vault(two_vaults):
    proj, _, _ = two_vaults
    deep = proj / "src"
    deep.mkdir()
    r = cli("recall", "--json", "editor", "shell", "choice", cwd=deep)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    named = {h["key"]: h["vault"] for h in data["hits"]}
    assert named == {"editor-choice": "project", "shell-choice": "personal"}
    assert data["vaults"] == ["project", "personal"]
    r = cli("recall", "editor", "shell", "choice", cwd=deep)
    assert "editor-choice (project vault, preference" in r.stdout
    assert "shell-choice (personal vault, preference" in r.stdout
    r = cli("list", "--json", cwd=deep)
    assert {(x["key"], x["vault"]) for x in json.loads(r.stdout)} == {("editor-choice", "project"),
                                                                       ("shell-choice", "personal")}
    # --vault PATH alone keeps today's meaning: that vault only, hits unnamed
    r = cli("--vault", str(proj / "memory"), "recall", "--json", "editor", "shell", "choice", cwd=deep)
    assert [h["key"] for h in json.loads(r.stdout)["hits"]] == ["editor-choice"]
    assert "vault" not in json.loads(r.stdout)["hits"][0]


def test_list_of_both_vaults_is_one_listing_in_the_cli_and_the_mcp_tool(two_vaults):
    """`vault-mem list` and the MCP tool `list` show both vaults' memories alike (one home:
    tools.several_list_rows): each row naming its vault, the person's memories first."""
    from vault_mem.adapters.tools import call_tool
    from vault_mem.adapters.vaults import Vaults

    proj, _, personal = two_vaults
    assert cli("remember", "build-cmd", "-d", "make all builds it", cwd=proj).returncode == 0
    rows = json.loads(cli("list", "--json", cwd=proj).stdout)
    vaults = Vaults.resolve(start=proj, daemon=False)
    try:
        tool = call_tool(vaults, "list", {}).data["memories"]
    finally:
        vaults.close()
    assert rows == tool and {r["vault"] for r in rows} == {"project", "personal"}, (rows, tool)
    text = cli("list", cwd=proj).stdout
    assert "[project]" in text and "[personal]" in text and "build-cmd" in text


def test_remember_writes_to_the_project_repository_only_unless_told_personal(two_vaults):
    proj, _, personal = two_vaults
    (proj / "src").mkdir()
    before = git(personal, "rev-parse", "HEAD")
    r = cli("remember", "db-choice", "-t", "decision", "-d", "Use Postgres for the ledger",
            "-b", "Because we need row-level locks.", cwd=proj / "src")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"create: decisions/db-choice.md in {(proj / 'memory').resolve()} (project vault, commit")
    assert git(proj, "log", "-1", "--format=%s").startswith("remember: db-choice")
    assert git(personal, "rev-parse", "HEAD") == before and not (personal / "decisions" / "db-choice.md").exists()
    r = cli("remember", "editor-choice", "--personal", "--json", "-t", "preference",
            "-d", "Uses Helix everywhere", cwd=proj / "src")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert (data["vault"], data["vault_name"], data["path"]) == (str(personal.resolve()), "personal",
                                                                 "preferences/editor-choice.md")
    assert git(personal, "log", "-1", "--format=%s").startswith("remember: editor-choice")


def test_a_key_in_both_vaults_is_read_by_prefix_and_forget_asks_which(two_vaults):
    proj, _, personal = two_vaults
    r = cli("--vault", str(personal), "remember", "editor-choice", "-t", "preference", "-d", "Uses Vim on servers")
    assert r.returncode == 0, r.stderr
    r = cli("get", "editor-choice", "--json", cwd=proj)
    view = json.loads(r.stdout)
    assert view["vault"] == "project" and "Helix" in view["description"]
    assert any("personal:editor-choice" in n for n in view["notes"])
    r = cli("get", "personal:editor-choice", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert "Uses Vim on servers" in r.stdout and "personal vault" in r.stdout
    r = cli("forget", "editor-choice", cwd=proj)
    assert r.returncode == 2 and "project:editor-choice or personal:editor-choice" in r.stderr
    r = cli("forget", "personal:editor-choice", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert f"in {personal.resolve()} (personal vault, commit" in r.stdout
    assert not (personal / "preferences" / "editor-choice.md").exists()
    assert (proj / "memory" / "preferences" / "editor-choice.md").is_file()
    r = cli("get", "nobody:editor-choice", cwd=proj)
    assert r.returncode == 2 and "personal:KEY" in r.stderr


def test_doctor_says_how_each_vault_was_found(two_vaults, tmp_path):
    proj, _, personal = two_vaults
    r = cli("doctor", "--json", cwd=proj)
    data = json.loads(r.stdout)
    assert [(v["name"], v["root"]) for v in data["vaults"]] == [("project", str((proj / "memory").resolve())),
                                                               ("personal", str(personal.resolve()))]
    r = cli("doctor", cwd=proj, env=_env_without_config(tmp_path))
    assert f"project vault: {(proj / 'memory').resolve()} (from memory/ at the top of the git repository" in r.stdout
    assert "note: no personal vault: set VAULT_MEM_PERSONAL" in r.stdout


def test_doctor_never_says_no_project_vault_next_to_the_vault_it_uses(two_vaults, tmp_path):
    """Outside any project, with no personal vault, $VAULT_MEM_VAULT's vault stands in for the
    project's: doctor named it "project vault: ... (from $VAULT_MEM_VAULT)" and then said "note: no
    project vault"."""
    proj, _, _ = two_vaults
    outside = tmp_path / "outside"
    outside.mkdir()
    env = {**_env_without_config(tmp_path), "VAULT_MEM_VAULT": str(proj / "memory")}
    r = cli("doctor", cwd=outside, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"project vault: {(proj / 'memory').resolve()} (from $VAULT_MEM_VAULT)" in r.stdout
    assert "no project vault" not in r.stdout, r.stdout
    assert f"$VAULT_MEM_VAULT's vault is used, as no vault.toml at or above {outside.resolve()}" in r.stdout


@pytest.mark.parametrize("command", ["get", "log", "forget", "undo"])
def test_with_one_vault_a_prefix_naming_another_is_refused_as_such_by_every_command(project, tmp_path, command):
    """With one vault in use, `get personal:KEY` said "invalid key 'personal:x' ... try
    'personal-x'" where forget, log and undo say the prefix names no vault in use here; and
    `get project:KEY` (what a list of two vaults shows) did not find the memory."""
    proj, _ = project
    env = _env_without_config(tmp_path)
    r = cli(command, "personal:x", cwd=proj, env=env)
    assert r.returncode == 2 and "'personal:' names no vault in use here" in r.stderr, r.stderr
    if command == "get":
        key = cli("list", "--json", cwd=proj, env=env)
        first = json.loads(key.stdout)[0]["key"]
        r = cli("get", f"project:{first}", cwd=proj, env=env)
        assert r.returncode == 0 and r.stdout.startswith(first), r.stdout + r.stderr


# -- the one-vault commands take personal:KEY ---------------------------------------------------
def _editor(tmp_path, script: str) -> str:
    """A real editor process: a shell script that edits the file it is given."""
    exe = tmp_path / "editor.sh"
    exe.write_text("#!/bin/sh\n" + script + "\n")
    exe.chmod(0o755)
    return str(exe)


def test_edit_log_undo_act_on_the_vault_personal_key_names_and_say_which(two_vaults, tmp_path):
    proj, _, personal = two_vaults
    shell = personal / "preferences" / "shell-choice.md"
    env = {"EDITOR": _editor(tmp_path, 'sed -i "s/fish/nushell/" "$1"'), "VISUAL": ""}
    r = cli("edit", "personal:shell-choice", cwd=proj, env=env)
    assert r.returncode == 0, r.stderr
    assert "nushell" in shell.read_text() and f"personal vault, {personal.resolve()}" in r.stdout
    assert "edit" in git(personal, "log", "-1", "--format=%B").lower()
    assert git(personal, "status", "--porcelain").strip() == ""
    # a bare key only the personal vault holds is the personal vault's
    r = cli("log", "shell-choice", "--json", cwd=proj)
    assert r.returncode == 0, r.stderr
    entries = json.loads(r.stdout)
    assert len(entries) == 2 and {e["vault_name"] for e in entries} == {"personal"}
    r = cli("log", "personal:shell-choice", cwd=proj)
    assert r.returncode == 0 and r.stdout.startswith(f"personal vault {personal.resolve()}:"), r.stdout
    # undo a change to the personal memory, from the project
    r = cli("--vault", str(personal), "remember", "shell-choice", "-t", "preference", "-d", "Uses bash now")
    assert r.returncode == 0, r.stderr
    r = cli("undo", "personal:shell-choice", "--json", cwd=proj)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["vault_name"] == "personal"
    assert "Uses bash now" not in shell.read_text()
    r = cli("log", "project:editor-choice", cwd=proj)
    assert r.returncode == 0 and r.stdout.startswith("project vault ") and "editor-choice" in r.stdout


def test_a_write_to_a_bare_key_both_vaults_hold_is_refused_until_told_which(two_vaults, tmp_path):
    proj, _, personal = two_vaults
    r = cli("--vault", str(personal), "remember", "editor-choice", "-t", "preference", "-d", "Uses Zed")
    assert r.returncode == 0, r.stderr
    env = {"EDITOR": _editor(tmp_path, 'sed -i "s/Zed/Emacs/" "$1"'), "VISUAL": ""}
    for args in (("edit", "editor-choice"), ("undo", "editor-choice")):
        r = cli(*args, cwd=proj, env=env)
        assert r.returncode == 2 and "project:editor-choice or personal:editor-choice" in r.stderr, r.stderr
    r = cli("edit", "personal:editor-choice", cwd=proj, env=env)
    assert r.returncode == 0, r.stderr
    assert "Emacs" in (personal / "preferences" / "editor-choice.md").read_text()
    assert "Emacs" not in (proj / "memory" / "preferences" / "editor-choice.md").read_text()
    # a read of a bare key both hold reads the project's and says the other exists
    r = cli("log", "editor-choice", cwd=proj)
    assert r.returncode == 0 and "personal:editor-choice" in r.stderr
    r = cli("log", "nobody:editor-choice", cwd=proj)
    assert r.returncode == 2 and "personal:KEY" in r.stderr


def test_review_lists_both_vaults_items_each_as_a_key_the_commands_take_back(two_vaults):
    proj, _, personal = two_vaults
    for vault, key, old in ((personal, "shell-choice-2", "shell-choice"), (proj / "memory", "editor-choice-2", "editor-choice")):
        r = cli("--vault", str(vault), "remember", key, "-t", "preference", "-d", "Replaces the old choice",
                "--supersedes", old)
        assert r.returncode == 0, r.stderr
    r = cli("review", "--json", cwd=proj)
    assert r.returncode == 0, r.stderr
    named = {(i["vault"], i["key"]) for i in json.loads(r.stdout)}
    assert {("personal", "shell-choice"), ("project", "editor-choice")} <= named
    r = cli("review", cwd=proj)
    assert "personal:shell-choice" in r.stdout and "project:editor-choice" in r.stdout
    # --vault: that vault alone, its keys bare, as before
    r = cli("--vault", str(personal), "review", "--json")
    assert [i["key"] for i in json.loads(r.stdout)] == ["shell-choice"] and "vault" not in json.loads(r.stdout)[0]


# -- the hooks ---------------------------------------------------------------------------------
def _hook(name: str, event: dict, cwd) -> str:
    r = cli("hook", name, input=json.dumps(event), cwd=cwd)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"] if r.stdout.strip() else ""


def test_the_session_start_context_carries_both_index_files_within_one_budget(two_vaults):
    proj, _, personal = two_vaults
    context = _hook("session-start", {"cwd": str(proj / "memory")}, proj)
    assert "INDEX.md of the project vault" in context and "INDEX.md of the personal vault" in context
    assert "editor-choice" in context and "shell-choice" in context
    # a project vault far larger than the budget: the personal one keeps its lines, and the
    # project's takes the room the personal one leaves
    memories = "\n".join(json.dumps({"key": f"fact-{i:03d}", "type": "fact",
                                     "description": f"Service {i} listens on port {8000 + i} behind the gateway"})
                         for i in range(300))
    src = proj / "facts.jsonl"
    src.write_text(memories + "\n")
    r = cli("--vault", str(proj / "memory"), "import", str(src))
    assert r.returncode == 0, r.stderr
    context = _hook("session-start", {"cwd": str(proj)}, proj)
    assert len(context) <= MAX_CONTEXT_CHARS
    assert "shell-choice" in context and "fact-" in context and "more" in context
    project_part = context.split("INDEX.md of the personal vault")[0].split("INDEX.md of the project vault")[1]
    assert len(project_part) > MAX_CONTEXT_CHARS // 2  # the unused share went to the project


def test_the_prompt_hook_names_the_vault_of_each_memory(two_vaults):
    proj, _, _ = two_vaults
    context = _hook("user-prompt-submit", {"cwd": str(proj), "prompt": "which interactive shell do I use"}, proj)
    assert "shell-choice" in context and 'vault="personal"' in context


# -- the MCP server ----------------------------------------------------------------------------
def test_the_mcp_server_started_in_a_project_serves_both_vaults(two_vaults):
    proj, _, personal = two_vaults

    async def session():
        async with Client(mcp_server_in(proj), read_timeout_seconds=60) as client:
            assert str(personal.resolve()) in (client.instructions or "")
            r = await client.call_tool("recall", {"query": "editor shell choice"})
            assert not r.is_error, r.content
            assert {h["key"]: h["vault"] for h in r.meta[DATA_META]["hits"]} == {
                "editor-choice": "project", "shell-choice": "personal"}
            assert 'vault="personal"' in r.content[0].text
            r = await client.call_tool("remember", {"key": "pager", "type": "preference", "vault": "personal",
                                                    "description": "Uses less -R as the pager"})
            assert not r.is_error, r.content
            data = json.loads(r.content[0].text)
            assert (data["vault_name"], data["vault"], data["path"]) == (
                "personal", str(personal.resolve()), "preferences/pager.md")
            r = await client.call_tool("remember", {"key": "ci", "description": "CI runs on Buildkite"})
            assert json.loads(r.content[0].text)["vault_name"] == "project"
            r = await client.call_tool("get", {"key": "personal:pager"})
            assert not r.is_error and r.meta[DATA_META]["vault"] == "personal"
            index = (await client.read_resource("vault://index")).contents[0].text
            assert "INDEX.md of the project vault" in index and "pager" in index
            text = (await client.read_resource("vault://memory/personal:shell-choice")).contents[0].text
            assert "fish" in text
    anyio.run(session)
    assert (personal / "preferences" / "pager.md").is_file() and (proj / "memory" / "facts" / "ci.md").is_file()


def test_the_mcp_server_given_a_path_serves_that_vault_alone(two_vaults):
    proj, _, _ = two_vaults
    params = mcp_server_in(proj, str(proj / "memory"))

    async def session():
        async with Client(params, read_timeout_seconds=60) as client:
            r = await client.call_tool("recall", {"query": "editor shell choice"})
            assert [h["key"] for h in r.meta[DATA_META]["hits"]] == ["editor-choice"]
            r = await client.call_tool("remember", {"key": "x", "description": "X", "vault": "personal"})
            assert r.is_error and "one vault" in r.content[0].text
    anyio.run(session)


def test_a_vaults_daemon_gives_its_share_of_the_session_context(two_vaults):
    """With the personal vault's daemon running, its INDEX.md share comes from the daemon (the
    piece the hook asks each vault for) and the hook's context still carries both vaults."""
    from test_daemon_reads import start, stop

    from vault_mem.store import daemon_socket as protocol

    proj, _, personal = two_vaults
    proc = start(personal)
    try:
        answers: list = []

        def asked() -> bool:
            # a loaded machine can keep a just-started daemon past the hook's 10 s timeout (the
            # hook then builds the share in process, by design); the daemon's answer is the point
            answers.append(protocol.ask(personal, "hook", {"name": "index-context",
                                                           "event": {"max_chars": 3000, "heading": "personal:"}}))
            return answers[-1] is not None

        wait_for(asked, timeout=90, what="the personal vault's daemon to answer the hook")
        answered = answers[-1]
        assert "shell-choice" in answered[0]["context"] and answered[0]["context"].startswith("personal:")
        context = _hook("session-start", {"cwd": str(proj)}, proj)
        assert "editor-choice" in context and "shell-choice" in context
    finally:
        stop(proc)


def test_one_vaults_share_of_the_context_stays_within_its_chars_whatever_its_heading(two_vaults):
    """The fence around a vault's INDEX.md was allowed a fixed 800 characters; a heading naming a
    deep vault path took more, the share overflowed, and the session-start context was cut from
    the end, dropping the personal vault's share (seen in a full parallel run under a longer
    temporary folder). Each share is rendered again within what is left, never cut."""
    from vault_mem import Vault
    from vault_mem.adapters.tools import context_index

    proj, _, _personal = two_vaults
    src = proj / "facts.jsonl"
    src.write_text("\n".join(json.dumps({"key": f"fact-{i:03d}", "type": "fact",
                                         "description": f"Service {i} listens on port {8000 + i} behind the gateway"})
                             for i in range(300)) + "\n")
    assert cli("--vault", str(proj / "memory"), "import", str(src)).returncode == 0
    with Vault(proj / "memory") as v:
        for heading in ("short:", "INDEX.md of the project vault (" + "/deep" * 150 + "), what is remembered:"):
            text = context_index(v, max_chars=4000, heading=heading)
            assert len(text) <= 4000 and "fact-" in text and "more" in text
            assert text.rstrip().endswith(("</memory-", ">")), text[-200:]
