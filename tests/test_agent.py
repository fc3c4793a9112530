"""The agent loop against an OpenAI-compatible ``/v1/chat/completions`` server.

No chat model can run here, so :class:`StandIn` is a stand-in server: a real HTTP server on
localhost that speaks the documented chat-completions wire format (``choices[0].message`` with
``content`` and ``tool_calls[].function.{name, arguments}``, arguments as a JSON string) and replays
scripted assistant messages in order, recording every request it gets.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from conftest import cli, git, parse_fenced

from vault_mem.adapters.agent import (
    DEFAULT_TIMEOUT_S,
    ChatServerError,
    chat_endpoint,
    chat_timeout,
    run_agent,
)
from vault_mem.adapters.tools import WRITE_POLICY, memory_preamble, schemas
from vault_mem.errors import UsageError


def tool_call(name: str, arguments: Any, call_id: str | None = None) -> dict:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id or f"call_{name}", "type": "function", "function": {"name": name, "arguments": args}}]}


def answer(text: str) -> dict:
    return {"role": "assistant", "content": text}


class StandIn:
    """Replays ``script`` (assistant messages, or ``(status, body)`` / ``("sleep", s)`` entries);
    the last entry repeats once the script runs out."""

    def __init__(self, script: list) -> None:
        self.script = list(script)
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append(body)
                outer.headers.append(dict(self.headers))
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": "not found"}})
                step = outer.script.pop(0) if len(outer.script) > 1 else outer.script[0]
                if isinstance(step, tuple) and step[0] == "sleep":
                    outer.closing.wait(step[1])  # ended early when the stand-in closes
                    step = answer("too late")
                if isinstance(step, tuple):
                    return self._send(step[0], step[1])
                finish = "tool_calls" if step.get("tool_calls") else "stop"
                self._send(200, {"id": "chatcmpl-1", "object": "chat.completion", "model": body.get("model"),
                                 "choices": [{"index": 0, "message": step, "finish_reason": finish}]})

            def _send(self, status: int, data: dict) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.closing = threading.Event()
        self.server = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StandIn:  # noqa: PYI034
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.closing.set()
        self.server.shutdown()
        self.server.server_close()  # joins the handler threads (_Server)

    def tool_messages(self, request_no: int) -> list[dict]:
        return [m for m in self.requests[request_no]["messages"] if m["role"] == "tool"]


class _Server(ThreadingHTTPServer):
    """Its handler threads end before it is closed: a handler still running (a slow answer to a
    client that timed out) would print its broken pipe into the next test's captured stderr."""

    daemon_threads = False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the scripted conversation ---------------------------------------------------------------
def test_remember_then_recall_then_answer(vault):
    script = [
        tool_call("remember", {"key": "editor-choice", "type": "preference", "source": "user",
                               "description": "Uses Helix as the main editor"}, "call_1"),
        tool_call("recall", {"query": "Helix editor"}, "call_2"),
        answer("Noted: you use Helix."),
    ]
    with StandIn(script) as srv:
        result = run_agent(vault, "I switched to Helix, remember that.", url=srv.url, model="qwen3-4b")
    assert result.reply == "Noted: you use Helix." and result.stopped == "answer" and result.rounds == 3
    assert [c.name for c in result.tool_calls] == ["remember", "recall"]
    assert (vault.root / "preferences/editor-choice.md").exists()
    assert "remember: editor-choice" in git(vault.root, "log", "-1", "--format=%s")

    first = srv.requests[0]
    assert first["model"] == "qwen3-4b" and first["tools"] == schemas("openai")
    system = first["messages"][0]
    assert system["role"] == "system" and WRITE_POLICY in system["content"]
    assert memory_preamble() in system["content"]
    assert "# Memory index" in system["content"]  # INDEX.md
    assert first["messages"][1] == {"role": "user", "content": "I switched to Helix, remember that."}

    # round 2 carries the assistant's call and the tool result, tied by id
    msgs = srv.requests[1]["messages"]
    assert msgs[-2]["tool_calls"][0]["id"] == "call_1"
    assert msgs[-1]["role"] == "tool" and msgs[-1]["tool_call_id"] == "call_1"
    assert json.loads(msgs[-1]["content"])["action"] == "create"
    # memory text reaches the model fenced as data, naming its author
    _, recalled = parse_fenced(srv.tool_messages(2)[-1]["content"])
    assert 'key="editor-choice"' in recalled[0][0] and 'author="agent@vault-mem.local"' in recalled[0][0]
    assert recalled[0][1] == "Uses Helix as the main editor"


def test_malformed_arguments_get_an_error_result_and_the_loop_goes_on(vault):
    script = [
        tool_call("remember", '{"key": "editor-choice", "description": "Uses Helix', "bad"),
        tool_call("remember", {"key": "editor-choice", "description": "Uses Helix as the main editor"}, "good"),
        answer("Saved."),
    ]
    with StandIn(script) as srv:
        result = run_agent(vault, "remember my editor", url=srv.url)
    assert result.reply == "Saved."
    bad, good = result.tool_calls
    assert bad.is_error and not good.is_error
    err = json.loads(srv.tool_messages(1)[0]["content"])["error"]
    assert "not valid JSON" in err
    assert (vault.root / "facts/editor-choice.md").exists()


def test_a_value_of_the_wrong_json_type_is_an_error_result(vault):
    """tests/test_tool_arguments.py through the loop: a model's `"key": 5` is sent back as an
    error naming the parameter (it was stored as key `5`), and the model's next call goes on."""
    script = [tool_call("remember", {"key": 5, "description": "Uses Helix"}, "bad"),
              tool_call("remember", {"key": "editor-choice", "description": "Uses Helix"}, "good"),
              answer("Saved.")]
    with StandIn(script) as srv:
        result = run_agent(vault, "remember my editor", url=srv.url)
    bad, good = result.tool_calls
    assert bad.is_error and not good.is_error
    assert "'key' must be a string, got a number (5)" in json.loads(srv.tool_messages(1)[0]["content"])["error"]
    assert not (vault.root / "facts" / "5.md").exists()


def test_prose_instead_of_tools_ends_the_loop(vault):
    head = git(vault.root, "rev-parse", "HEAD")
    with StandIn([answer("Sure, I'll keep in mind that you like Helix!")]) as srv:
        result = run_agent(vault, "I like Helix", url=srv.url)
    assert result.reply == "Sure, I'll keep in mind that you like Helix!"
    assert result.rounds == 1 and result.stopped == "answer" and result.tool_calls == []
    assert len(srv.requests) == 1 and git(vault.root, "rev-parse", "HEAD") == head


def test_a_tool_call_written_as_text_is_run(vault):
    """Servers without a tool-call parser hand the model's call back as message text."""
    inline = '<tool_call>\n{"name": "remember", "arguments": {"key": "shell", "description": "Uses fish"}}\n</tool_call>'
    with StandIn([answer(inline), answer("Done.")]) as srv:
        result = run_agent(vault, "I use fish", url=srv.url)
    assert result.reply == "Done." and result.tool_calls[0].name == "remember"
    assert (vault.root / "facts/shell.md").exists()


@pytest.mark.parametrize("inline", [
    '```json\n{"name": "remember", "arguments": {"key": "shell", "description": "Uses fish"}}\n```',
    '```\n{"function": {"name": "remember", "parameters": {"key": "shell", "description": "Uses fish"}}}\n```',
    '{"name": "remember", "arguments": {"key": "shell", "description": "Uses fish"}}',
    '  {"name": "remember", "parameters": {"key": "shell", "description": "Uses fish"}}\n',
], ids=["fenced-json", "fenced-function", "bare", "bare-parameters"])
def test_a_tool_call_in_a_code_fence_or_as_bare_json_is_run(vault, inline):
    with StandIn([answer(inline), answer("Done.")]) as srv:
        result = run_agent(vault, "I use fish", url=srv.url)
    assert result.reply == "Done." and [c.name for c in result.tool_calls] == ["remember"]
    assert not result.tool_calls[0].is_error and (vault.root / "facts/shell.md").exists()
    assert srv.requests[1]["messages"][-2]["tool_calls"][0]["function"]["name"] == "remember"


@pytest.mark.parametrize("text", [
    'Here you go: {"name": "remember", "arguments": {"key": "shell", "description": "Uses fish"}}',
    '```json\n{"name": "search_web", "arguments": {"q": "fish"}}\n```',
    '{"name": "remember"}',
    '```json\n[1, 2]\n```',
    '{"name": "remember", "arguments": ',
])
def test_json_that_is_not_one_whole_tool_call_is_the_reply(vault, text):
    head = git(vault.root, "rev-parse", "HEAD")
    with StandIn([answer(text)]) as srv:
        result = run_agent(vault, "I use fish", url=srv.url)
    assert result.reply == text.strip() and result.tool_calls == [] and len(srv.requests) == 1
    assert git(vault.root, "rev-parse", "HEAD") == head


def test_unknown_tool_and_missing_call_id_are_survived(vault):
    msg = {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": "search_web", "arguments": "{}"}}]}
    with StandIn([msg, answer("I cannot search the web.")]) as srv:
        result = run_agent(vault, "search", url=srv.url)
    assert result.reply == "I cannot search the web."
    tool_msg = srv.tool_messages(1)[0]
    assert tool_msg["tool_call_id"] == "call_1_0" and "unknown tool" in tool_msg["content"]


def test_max_rounds(vault):
    with StandIn([tool_call("list", {})]) as srv:
        result = run_agent(vault, "loop forever", url=srv.url, max_rounds=3)
    assert result.stopped == "max_rounds" and result.rounds == 3 and len(srv.requests) == 3
    assert "Stopped after 3 rounds" in result.reply and len(result.tool_calls) == 3


# -- the server misbehaves -------------------------------------------------------------------
def test_server_down(vault):
    with pytest.raises(ChatServerError, match="cannot reach the chat server"):
        run_agent(vault, "hello", url=f"http://127.0.0.1:{free_port()}")


def test_server_down_from_the_cli(vault):
    proc = cli("agent", "--vault", str(vault.root), "--url", f"http://127.0.0.1:{free_port()}", "hello")
    assert proc.returncode == 1 and "cannot reach the chat server" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("value", ["five minutes", "0", "-3", "nan", "inf"])
def test_a_bad_chat_timeout_variable_is_a_usage_error(vault, monkeypatch, value):
    monkeypatch.setenv("VAULT_MEM_CHAT_TIMEOUT", value)
    with pytest.raises(UsageError, match=r"VAULT_MEM_CHAT_TIMEOUT=.*use a number of seconds"):
        run_agent(vault, "hello", url=f"http://127.0.0.1:{free_port()}")


def test_the_chat_timeout_variable_is_read_in_seconds(vault, monkeypatch):
    monkeypatch.setenv("VAULT_MEM_CHAT_TIMEOUT", " 0.3 ")
    with StandIn([("sleep", 2.0)]) as srv, pytest.raises(ChatServerError, match="did not answer in time"):
        run_agent(vault, "hello", url=srv.url)
    monkeypatch.setenv("VAULT_MEM_CHAT_TIMEOUT", "")  # empty: the default
    assert chat_timeout() == DEFAULT_TIMEOUT_S


def test_a_bad_chat_timeout_variable_from_the_cli(vault):
    proc = cli("agent", "--vault", str(vault.root), "--url", f"http://127.0.0.1:{free_port()}", "hello",
               env={"VAULT_MEM_CHAT_TIMEOUT": "5m"})
    assert proc.returncode == UsageError.exit_code and "use a number of seconds" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_timeout(vault):
    with StandIn([("sleep", 2.0)]) as srv, pytest.raises(ChatServerError, match="did not answer in time"):
        run_agent(vault, "hello", url=srv.url, timeout=0.3)


@pytest.mark.parametrize("status, body, words", [
    (500, {"error": {"message": "tools param requires --jinja flag"}}, "llama-server needs --jinja"),
    (401, {"error": "no key"}, "OPENAI_API_KEY"),
    (200, {"object": "chat.completion"}, "has no choices"),
])
def test_http_errors_are_clear(vault, status, body, words):
    with StandIn([(status, body)]) as srv, pytest.raises(ChatServerError, match=words):
        run_agent(vault, "hello", url=srv.url, api_key_env="OPENAI_API_KEY")


def test_api_key_is_sent_from_the_named_variable(vault, monkeypatch):
    monkeypatch.setenv("MY_CHAT_KEY", "k-123")
    with StandIn([answer("hi")]) as srv:
        run_agent(vault, "hello", url=srv.url + "/v1", api_key_env="MY_CHAT_KEY")
    assert srv.headers[0]["Authorization"] == "Bearer k-123"


def test_endpoint_forms():
    assert chat_endpoint("http://h:8080") == "http://h:8080/v1/chat/completions"
    assert chat_endpoint("http://h:11434/v1/") == "http://h:11434/v1/chat/completions"
    assert chat_endpoint("http://h/v1/chat/completions") == "http://h/v1/chat/completions"
    with pytest.raises(UsageError):
        chat_endpoint("localhost:8080")


def test_cli_end_to_end(vault):
    script = [tool_call("remember", {"key": "tz", "description": "Lives in the Europe/Lisbon time zone",
                                     "source": "user"}),
              answer("Got it.")]
    with StandIn(script) as srv:
        proc = cli("agent", "--vault", str(vault.root), "--url", srv.url, "--json", "I live in Lisbon")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["reply"] == "Got it." and data["tool_calls"][0]["name"] == "remember"
    assert (vault.root / "facts/tz.md").exists()


def test_arguments_as_an_object_are_accepted(vault):
    """Some servers (Ollama's native shape) send ``arguments`` as an object, not a JSON string."""
    msg = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "remember",
                                                      "arguments": {"key": "os", "description": "Runs Fedora 43"}}}]}
    with StandIn([msg, answer("ok")]) as srv:
        result = run_agent(vault, "I run Fedora", url=srv.url)
    assert result.reply == "ok" and not result.tool_calls[0].is_error
    sent = srv.requests[1]["messages"][-2]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(sent) == {"key": "os", "description": "Runs Fedora 43"}  # sent back as a string
