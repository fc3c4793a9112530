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


def _claude_lines(tools: list[str], *, first: int = 0, prompt: bool = True, end: bool = True) -> str:
    """Claude Code's transcript lines: the prompt, each tool call and its result, and the final
    reply (``end``), as Claude Code has written them all when the session stops."""
    lines = [{"type": "user", "message": {"role": "user", "content": "fix the build"}}] if prompt else []
    for i, name in enumerate(tools, start=first):
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [
            {"type": "text", "text": "working"}, {"type": "tool_use", "id": f"t{i}", "name": name, "input": {}}]}})
        lines.append({"type": "user", "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}]}})
    if end:
        lines.append({"type": "assistant", "message": {"role": "assistant", "stop_reason": "end_turn",
                                                       "content": [{"type": "text", "text": "Done."}]}})
    return "".join(json.dumps(x) + "\n" for x in lines)


def _claude_transcript(path: Path, tools: list[str]) -> Path:
    path.write_text(_claude_lines(tools))
    return path


def _stop(vault: Path, transcript: Path, session: str = "s-1", **more) -> tuple[int, str, str]:
    event = {"hook_event_name": "Stop", "session_id": session, "transcript_path": str(transcript),
             "cwd": str(vault), "stop_hook_active": False, **more}
    r = cli("--vault", str(vault), "hook", "stop", input=json.dumps(event))
    return r.returncode, r.stdout, r.stderr


def _asked_at_once(vault: Path, transcript: Path, monkeypatch) -> None:
    """The stop hook asks after one read of the transcript and no wait of its own."""
    from vault_mem.adapters import distill

    reads = []
    original = distill._read
    monkeypatch.setattr(distill, "_read", lambda path: reads.append(path) or original(path))
    waits = _count_the_hooks_waits(monkeypatch)
    code, out, _ = _stop(vault, transcript)
    assert code == 0 and json.loads(out)["decision"] == "block"
    assert len(reads) == 1 and waits == []


def _count_the_hooks_waits(monkeypatch) -> list[float]:
    """The sleeps the stop hook's own code makes (its wait for the transcript), recorded."""
    import sys
    import time

    waits: list[float] = []
    sleep = time.sleep

    def recorded(seconds: float) -> None:
        if sys._getframe(1).f_globals.get("__name__") == "vault_mem.adapters.distill":
            waits.append(seconds)
        sleep(seconds)
    monkeypatch.setattr(time, "sleep", recorded)
    return waits


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
def test_the_sessions_last_lines_count_when_they_reach_the_transcript_after_the_hook_started(vault, tmp_path, last):
    """Claude Code starts its Stop hook before the session's last lines reach the transcript (it
    appends them on a 100 ms timer and flushes nothing first): the hook reads the transcript once
    the session's final reply is in it, however late, so a change written late makes the session
    asked and a ``remember`` written late keeps it from being asked. Here the last call, its
    result and the final reply land well after the hook has read the transcript and seen it stay
    the same size for longer than a quiet spell: a wait that a quiet spell ended counted two
    writes of three (the real session below went unasked in 2 CI runs of ~40)."""
    import threading
    import time

    # one change short of being asked, or enough changes and then the save
    before = ["Write"] * (MIN_CHANGES - (last == "Write"))
    transcript = tmp_path / "t.jsonl"
    transcript.write_text(_claude_lines(before, end=False))
    late = _claude_lines([last], first=len(before), prompt=False)

    def write_late() -> None:
        time.sleep(1.5)  # past a 0.6 s quiet spell from the hook's start, however slow the machine
        with transcript.open("a") as f:
            f.write(late)

    writer = threading.Thread(target=write_late)
    writer.start()
    code, out, err = _stop(vault, transcript)
    writer.join()
    assert code == 0, err
    if last == "Write":
        assert json.loads(out)["decision"] == "block", (out, transcript.read_text())
        assert f"{MIN_CHANGES} Write" in json.loads(out)["reason"]
    else:
        assert out == ""


#: lines after the final reply that are not the conversation's turns, and the person's interruption
_AFTER_THE_END = {
    "nothing": [],
    "a sub-agent's tool call": [{"type": "assistant", "isSidechain": True, "message": {
        "role": "assistant", "content": [{"type": "tool_use", "id": "side-1", "name": "Bash", "input": {}}]}}],
    "a compaction's summary": [{"type": "user", "isCompactSummary": True, "message": {
        "role": "user", "content": "This session is being continued from a previous conversation."}}],
    "Claude Code's reminder": [{"type": "user", "isMeta": True, "message": {"role": "user", "content": "<reminder/>"}}],
}


@pytest.mark.parametrize("after", sorted(_AFTER_THE_END))
def test_a_session_whose_final_reply_is_in_the_transcript_is_answered_without_waiting(vault, tmp_path, monkeypatch, after):
    """The transcript already holds the final reply: it is read once, and the hook asks (or not)
    at once, whatever lines that are not the conversation's turns follow it (a reviewer found a
    sub-agent's line or a compaction's summary kept the hook waiting its whole 10 s); the other
    formats (a quiet spell of the file) keep their wait (tests below)."""
    transcript = _claude_transcript(tmp_path / "t.jsonl", ["Edit"] * MIN_CHANGES)
    with transcript.open("a") as f:
        f.writelines(json.dumps(line) + "\n" for line in _AFTER_THE_END[after])
    _asked_at_once(vault, transcript, monkeypatch)


def test_a_turn_the_person_interrupted_is_the_sessions_end(vault, tmp_path, monkeypatch):
    """Esc during a tool call: Claude Code writes the person's "[Request interrupted by user for
    tool use]" and no reply follows, so the hook answers at once rather than waiting its 10 s."""
    lines = [json.loads(line) for line in _claude_lines(["Edit"] * MIN_CHANGES, end=False).splitlines()]
    lines.append({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t-x", "content": "The user doesn't want to proceed.", "is_error": True},
        {"type": "text", "text": "[Request interrupted by user for tool use]"}]}})
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    _asked_at_once(vault, transcript, monkeypatch)


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


def _session_report(r: subprocess.CompletedProcess, model: MessagesStandIn, debug: Path, home: Path) -> str:
    """What a failed real session shows: Claude Code's output, its log's hook lines (the Stop
    hook's command, its output and exit), the transcript as it ended, the model's requests."""
    hooks = [line for line in (debug.read_text(errors="replace").splitlines() if debug.is_file() else [])
             if "hook" in line.lower() and "Found 0 total hooks" not in line]
    transcripts = {}
    for path in (home / ".claude" / "projects").rglob("*.jsonl"):
        kinds = []
        for line in path.read_text(errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                kinds.append("(not JSON)")
                continue
            content = entry.get("message", {}).get("content") if isinstance(entry.get("message"), dict) else None
            blocks = [b.get("name") or b.get("type") for b in content if isinstance(b, dict)] \
                if isinstance(content, list) else []
            kinds.append(f"{entry.get('type')}{blocks or ''}")
        transcripts[path.name] = kinds
    return "\n".join([f"exit {r.returncode}", "stdout: " + r.stdout[-2000:], "stderr: " + r.stderr[-2000:],
                      "Claude Code's hook log:", *(line[:600] for line in hooks[-40:]),
                      "transcripts: " + json.dumps(transcripts),
                      "the model's requests (ends): " + json.dumps([request_text(b)[-300:] for b in model.requests])])


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

    debug = proj.parent / "claude-debug.log"  # Claude Code's log: each hook's command, output and exit
    with MessagesStandIn(script) as model:
        r = subprocess.run(check=False, args=[claude, "-p", "fix the build", "--allowedTools",
                                              "Write mcp__vault-mem__remember", "--debug-file", str(debug)],
                           cwd=proj, env=claude_env(home, model.url), capture_output=True, text=True,
                           timeout=240, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, (r.stdout, r.stderr)
    if not asked:  # pytest.fail: an assertion's message is cut to 8 lines without -vv
        pytest.fail("the Stop hook did not ask to save a memory\n" + _session_report(r, model, debug, home))
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
