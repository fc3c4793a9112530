"""`vault-mem hook stop`: a session that changed things is asked once to save what it learned;
a trivial one is left alone. Driven through the CLI as an agent runs it, with transcripts in the
agents' own formats, and end to end with the real Claude Code (tests/test_connect.py's stand-in)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from agent_clis import agent_cli, claude_env, connect_cli
from agent_standin import MessagesStandIn, request_text, text, tool_results, tool_use
from conftest import cli, git

from vault_mem.adapters.distill import MIN_CHANGES


def _claude_transcript(path: Path, tools: list[str]) -> Path:
    lines = [{"type": "user", "message": {"role": "user", "content": "fix the build"}}]
    for i, name in enumerate(tools):
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "working"}, {"type": "tool_use", "id": f"t{i}", "name": name, "input": {}}]}})
        lines.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}]}})
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return path


def _stop(vault: Path, transcript: Path, session: str = "s-1", **more) -> tuple[int, str, str]:
    event = {"hook_event_name": "Stop", "session_id": session, "transcript_path": str(transcript),
             "cwd": str(vault), "stop_hook_active": False, **more}
    r = cli("--vault", str(vault), "hook", "stop", input=json.dumps(event))
    return r.returncode, r.stdout, r.stderr


@pytest.fixture
def vault(tmp_path):
    assert cli("init", str(tmp_path / "v")).returncode == 0
    return tmp_path / "v"


def test_a_session_that_changed_things_is_asked_once_to_save_what_it_learned(vault, tmp_path):
    transcript = _claude_transcript(tmp_path / "t.jsonl", ["Read", "Edit", "Bash", "Edit", "Write"])
    code, out, err = _stop(vault, transcript)
    assert code == 0, err
    reply = json.loads(out)
    assert reply["decision"] == "block"
    assert "remember" in reply["reason"] and "2 Edit" in reply["reason"] and "1 Bash" in reply["reason"]
    assert "nothing durable" in reply["reason"]  # the agent may say there is nothing to keep
    assert _stop(vault, transcript) == (0, "", "")  # once per session
    assert json.loads(_stop(vault, transcript, session="s-2")[1])["decision"] == "block"  # another session
    mode = (vault / ".vault-mem" / "asked-sessions").stat().st_mode & 0o777
    assert mode == 0o600


@pytest.mark.parametrize("last", ["Write", "mcp__vault-mem__remember"])
def test_the_lines_the_agent_writes_after_the_hook_started_count(vault, tmp_path, last):
    """Claude Code runs its Stop hook before the session's last lines reach the transcript (the
    real session below read 2 of its 3 writes in 7 runs of 8): the hook waits for the transcript
    to stop growing, so a change written late makes the session asked, and a ``remember``
    written late keeps it from being asked."""
    import threading
    import time

    # one change short of being asked, or enough changes and then the save
    transcript = _claude_transcript(tmp_path / "t.jsonl", ["Write"] * (MIN_CHANGES - (last == "Write")))
    late = {"type": "assistant", "message": {"role": "assistant", "content": [
        {"type": "tool_use", "id": "late", "name": last, "input": {}}]}}

    def write_late() -> None:
        time.sleep(0.2)
        with transcript.open("a") as f:
            f.write(json.dumps(late) + "\n")

    writer = threading.Thread(target=write_late)
    writer.start()
    code, out, err = _stop(vault, transcript)
    writer.join()
    assert code == 0, err
    if last == "Write":
        assert json.loads(out)["decision"] == "block"
    else:
        assert out == ""


@pytest.mark.parametrize("tools", [[], ["Read", "Grep", "Read"], ["Edit"] * (MIN_CHANGES - 1)])
def test_a_trivial_session_is_left_alone(vault, tmp_path, tools):
    assert _stop(vault, _claude_transcript(tmp_path / "t.jsonl", tools)) == (0, "", "")


def test_a_session_that_already_remembered_or_is_continuing_or_unreadable_is_left_alone(vault, tmp_path):
    saved = _claude_transcript(tmp_path / "a.jsonl", ["Edit"] * 5 + ["mcp__vault-mem__remember"])
    assert _stop(vault, saved) == (0, "", "")
    busy = _claude_transcript(tmp_path / "b.jsonl", ["Edit"] * 5)
    assert _stop(vault, busy, session="s-3", stop_hook_active=True) == (0, "", "")
    assert _stop(vault, tmp_path / "missing.jsonl", session="s-4") == (0, "", "")
    r = cli("--vault", str(vault), "hook", "stop", input="not json")
    assert (r.returncode, r.stdout) == (0, "")


def test_codex_and_gemini_transcripts_count_too(vault, tmp_path):
    codex = tmp_path / "rollout.jsonl"
    codex.write_text("\n".join(json.dumps({"type": "response_item", "payload": {
        "type": "function_call", "name": name, "arguments": "{}"}}) for name in ["apply_patch", "exec_command",
                                                                                "exec_command"]) + "\n")
    assert json.loads(_stop(vault, codex, session="c")[1])["decision"] == "block"
    gemini = tmp_path / "session.json"
    gemini.write_text(json.dumps({"messages": [{"type": "gemini", "toolCalls": [
        {"name": "replace", "args": {}}, {"name": "write_file"}, {"name": "run_shell_command"}]}]}))
    # Gemini's transcript lists calls by name in toolCalls, not as typed blocks: count those too
    code, out, _ = _stop(vault, gemini, session="g")
    assert code == 0 and json.loads(out)["decision"] == "block"


@pytest.mark.slow
def test_a_real_claude_session_that_edits_files_is_asked_and_saves_a_memory(project):
    claude = agent_cli("claude")
    proj, home = project
    connect_cli(proj, home, "--scope", "project")
    asked = []

    def script(body):
        sent = request_text(body)
        if "Before you finish" in sent:
            asked.append(True)
            if not any("decisions/" in r for r in tool_results(body)):
                return tool_use("mcp__vault-mem__remember", {
                    "key": "build-fix", "type": "decision", "description": "Pin setuptools below 80 (2026-12-03)",
                    "body": "Because 80 broke the editable install."})
            return text("Saved the decision.")
        writes = sum(1 for r in tool_results(body) if "File created" in r or "successfully" in r)
        if writes < 3:
            return tool_use("Write", {"file_path": str(proj / f"note{writes}.txt"), "content": "x\n"})
        return text("Done.")

    with MessagesStandIn(script) as model:
        r = subprocess.run(check=False, args=[claude, "-p", "fix the build", "--allowedTools",
                                              "Write mcp__vault-mem__remember"],
                           cwd=proj, env=claude_env(home, model.url), capture_output=True, text=True,
                           timeout=240, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert asked, [request_text(b)[-400:] for b in model.requests]
    assert (proj / "memory" / "decisions" / "build-fix.md").is_file()
    assert git(proj, "log", "-1", "--format=%s").startswith("remember: build-fix")


@pytest.mark.slow
def test_a_real_claude_session_that_only_talks_is_not_asked(project):
    claude = agent_cli("claude")
    proj, home = project
    connect_cli(proj, home, "--scope", "project")
    with MessagesStandIn(lambda body: text("Hello.")) as model:
        r = subprocess.run(check=False, args=[claude, "-p", "hello"], cwd=proj, env=claude_env(home, model.url),
                           capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert len(model.requests) == 1 and "Before you finish" not in request_text(model.requests[0])
