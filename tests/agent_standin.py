"""A scripted stand-in for a chat model's HTTP API on loopback, for driving the real agent CLIs.

No chat model can run here, so the model is the one part replaced: the real CLI (Claude Code from
the npm registry) talks to this server through ``ANTHROPIC_BASE_URL``; every other part (the
CLI, its hooks, its MCP client, our MCP server and hooks) is real. The server answers the
Anthropic Messages API (``POST /v1/messages``, streamed or not) from a script: each reply is
either text or one ``tool_use`` block, and every request body is kept so a test can read what
the CLI sent the model (the hooks' context, the tools, the tool results).

Three wire formats, one per CLI: ``api="anthropic"`` (Claude Code, ``ANTHROPIC_BASE_URL``),
``"responses"`` (Codex, the OpenAI Responses API through a ``model_providers`` entry) and
``"gemini"`` (Gemini CLI, ``GOOGLE_GEMINI_BASE_URL``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Reply = dict[str, Any]  # {"text": "..."} or {"tool": NAME, "input": {...}}
Script = Callable[[dict[str, Any]], Reply]


def text(value: str) -> Reply:
    return {"text": value}


def tool_use(name: str, args: dict[str, Any]) -> Reply:
    return {"tool": name, "input": args}


class MessagesStandIn:
    """``with MessagesStandIn(script) as model: env["ANTHROPIC_BASE_URL"] = model.url``.

    ``script(request_body)`` picks each reply; ``requests`` holds every ``/v1/messages`` body
    (side requests such as token counting are answered and not kept)."""

    def __init__(self, script: Script, *, api: str = "anthropic"):
        self.script = script
        self.api = api
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _json(self, status: int, data: Any) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self) -> None:
                if outer.api == "responses" and self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": "stand-in", "object": "model"}]})
                    return
                self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

            def _events(self, events: list[tuple[str | None, dict[str, Any]]]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                for kind, data in events:
                    head = f"event: {kind}\n" if kind else ""
                    self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())

            def do_POST(self) -> None:
                size = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(size) or b"{}")
                if outer.api == "gemini":
                    self._gemini(body)
                    return
                if outer.api == "responses":
                    self._responses(body)
                    return
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self._json(200, {"input_tokens": 10})
                    return
                with outer._lock:
                    outer.requests.append(body)
                    reply = outer.script(body)
                n = len(outer.requests)
                if "tool" in reply:
                    block = {"type": "tool_use", "id": f"toolu_{n:04d}", "name": reply["tool"],
                             "input": reply["input"]}
                    stop = "tool_use"
                else:
                    block = {"type": "text", "text": reply["text"]}
                    stop = "end_turn"
                message = {"id": f"msg_{n:04d}", "type": "message", "role": "assistant",
                           "model": body.get("model", "stand-in"), "content": [block],
                           "stop_reason": stop, "stop_sequence": None,
                           "usage": {"input_tokens": 1, "output_tokens": 1}}
                if not body.get("stream"):
                    self._json(200, message)
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()

                def event(kind: str, data: dict[str, Any]) -> None:
                    self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())

                event("message_start", {"type": "message_start",
                                        "message": {**message, "content": [], "stop_reason": None}})
                if block["type"] == "text":
                    event("content_block_start", {"type": "content_block_start", "index": 0,
                                                  "content_block": {"type": "text", "text": ""}})
                    event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                  "delta": {"type": "text_delta", "text": block["text"]}})
                else:
                    event("content_block_start", {"type": "content_block_start", "index": 0,
                                                  "content_block": {**block, "input": {}}})
                    event("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                  "delta": {"type": "input_json_delta",
                                                            "partial_json": json.dumps(block["input"])}})
                event("content_block_stop", {"type": "content_block_stop", "index": 0})
                event("message_delta", {"type": "message_delta",
                                        "delta": {"stop_reason": stop, "stop_sequence": None},
                                        "usage": {"output_tokens": 1}})
                event("message_stop", {"type": "message_stop"})

            def _reply(self, body: dict[str, Any]) -> tuple[Reply, int]:
                with outer._lock:
                    outer.requests.append(body)
                    return outer.script(body), len(outer.requests)

            def _gemini(self, body: dict[str, Any]) -> None:
                if "countTokens" in self.path:
                    self._json(200, {"totalTokens": 10})
                    return
                reply, _ = self._reply(body)
                part = ({"functionCall": {"name": reply["tool"], "args": reply["input"]}} if "tool" in reply
                        else {"text": reply["text"]})
                data = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                                        "index": 0}],
                        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}}
                if "alt=sse" in self.path:
                    self._events([(None, data)])
                else:
                    self._json(200, data)

            def _responses(self, body: dict[str, Any]) -> None:
                reply, n = self._reply(body)
                if "tool" in reply:
                    item = {"type": "function_call", "id": f"fc_{n:04d}", "call_id": f"call_{n:04d}",
                            "name": reply["tool"], "arguments": json.dumps(reply["input"]), "status": "completed"}
                else:
                    item = {"type": "message", "id": f"msg_{n:04d}", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": reply["text"], "annotations": []}]}
                usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                         "input_tokens_details": {"cached_tokens": 0},
                         "output_tokens_details": {"reasoning_tokens": 0}}
                rid = f"resp_{n:04d}"
                self._events([
                    ("response.created", {"type": "response.created",
                                          "response": {"id": rid, "status": "in_progress", "output": []}}),
                    ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                                   "item": item}),
                    ("response.completed", {"type": "response.completed",
                                            "response": {"id": rid, "status": "completed", "output": [item],
                                                         "usage": usage}}),
                ])

        return Handler


def request_text(body: dict[str, Any]) -> str:
    """Everything a request shows the model, as one string (instructions, messages, tool results)."""
    keys = ("system", "messages", "instructions", "input", "contents", "systemInstruction")
    return json.dumps({k: body.get(k) for k in keys}, ensure_ascii=False)


def tool_names(body: dict[str, Any]) -> set[str]:
    """The names of the tools a request offers the model, in any of the three formats."""
    names = set()
    for tool in body.get("tools", []):
        names.add(tool.get("name"))
        names.update(f.get("name") for f in tool.get("functionDeclarations", []))
    return {n for n in names if n}


def tool_results(body: dict[str, Any]) -> list[str]:
    """The text of every tool result in the request (tool_result blocks, function_call_output
    items, functionResponse parts)."""
    out = []
    for item in body.get("input", []) if isinstance(body.get("input"), list) else []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            out.append(str(item.get("output")))
    for content in body.get("contents", []):
        for part in content.get("parts", []) if isinstance(content, dict) else []:
            if isinstance(part, dict) and "functionResponse" in part:
                out.append(json.dumps(part["functionResponse"].get("response"), ensure_ascii=False))
    for message in body.get("messages", []):
        content = message.get("content")
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    out.append("".join(b.get("text", "") for b in inner if isinstance(b, dict)))
                else:
                    out.append(str(inner))
    return out
