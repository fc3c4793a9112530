"""``vault-mem agent "message"``: a minimal tool-calling loop against any OpenAI-compatible server.

It speaks ``POST {url}/v1/chat/completions`` (llama.cpp's ``llama-server --jinja``, Ollama,
vLLM, OpenAI) with httpx. The system prompt holds the write policy, today's date and INDEX.md;
the tools are :func:`vault_mem.adapters.tools.schemas` (``openai``). Each round is one request: tool calls
in the answer are run with :func:`vault_mem.adapters.tools.call_tool` and their results sent back; an
answer without tool calls ends the loop with that text as the reply.

Small local models slip; the loop keeps going when they do:

- malformed ``arguments`` JSON gets an error tool result the model can correct;
- a tool call written as JSON in the message text (a server without a tool-call parser) is run
  as a tool call when it names one of the tools exactly; any other prose is the final reply;
- after ``max_rounds`` rounds of tool calls the loop stops and says so.

A server that is down, slow or answers with an error raises a :class:`VaultMemError` whose
message says how to start or reach it.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from vault_mem.adapters.tools import TOOL_NAMES, call_tool, context_index, memory_preamble, schemas
from vault_mem.errors import UnreadableJSONError, UsageError, VaultMemError
from vault_mem.store.jsonfiles import parse_json

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

DEFAULT_TIMEOUT_S = 300.0  # a local model on a CPU can take minutes to answer
CONNECT_TIMEOUT_S = 5.0
_INLINE_CALL = re.compile(r"^\s*(?:<tool_call>\s*(.*?)\s*</tool_call>|```(?:json)?\s*(.*?)\s*```|(\{.*\}))\s*$", re.DOTALL)


class ChatServerError(VaultMemError):
    """The chat server could not be reached or answered with something unusable."""


@dataclass
class ToolCallRecord:
    """One tool call the model made and what it got back."""

    round: int
    name: str
    arguments: Any
    result: str
    is_error: bool

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class AgentResult:
    """The loop's outcome: ``reply`` is what to show the person; ``stopped`` is ``answer`` or
    ``max_rounds``."""

    reply: str
    rounds: int
    stopped: str
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    model: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"reply": self.reply, "rounds": self.rounds, "stopped": self.stopped, "model": self.model,
                "tool_calls": [c.to_dict() for c in self.tool_calls]}


def system_prompt(vault: Vault, today: dt.date | None = None) -> str:
    """Write policy + today's date + INDEX.md: everything the model needs before its first call."""
    today = today or dt.date.today()
    return (
        "You are an assistant with a long-term memory.\n\n" + memory_preamble()
        + f"\n\nToday is {today.isoformat()}.\n\n"
        + context_index(vault, heading="What you remember now (INDEX.md; recall searches everything):")
    )


def chat_timeout() -> float:
    """Seconds to wait for the chat server's answer: ``VAULT_MEM_CHAT_TIMEOUT``, else
    :data:`DEFAULT_TIMEOUT_S`."""
    raw = os.environ.get("VAULT_MEM_CHAT_TIMEOUT", "").strip()
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise UsageError(f"VAULT_MEM_CHAT_TIMEOUT={raw!r}: use a number of seconds above 0 (e.g. 600), "
                         "or unset it")
    return seconds


def chat_endpoint(url: str) -> str:
    """``http://host:8080``, ``.../v1`` or the full path, all to ``.../v1/chat/completions``."""
    base = (url or "").strip().rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise UsageError(f"--url must be an http(s) URL such as http://127.0.0.1:8080, got '{url}'")
    if base.endswith("/chat/completions"):
        return base
    if base.endswith("/v1"):
        return base + "/chat/completions"
    return base + "/v1/chat/completions"


def run_agent(vault: Vault, message: str, *, url: str, model: str = "local", api_key_env: str | None = None,
              max_rounds: int = 6, timeout: float | None = None,
              transport: httpx.BaseTransport | None = None) -> AgentResult:
    """Answer ``message`` with the model at ``url``, letting it use the memory tools on ``vault``."""
    if not message or not message.strip():
        raise UsageError("the message is empty: say what the agent should do")
    if not isinstance(max_rounds, int) or max_rounds < 1:
        raise UsageError("--max-rounds must be at least 1")
    endpoint = chat_endpoint(url)
    headers = {"Content-Type": "application/json"}
    key = os.environ.get(api_key_env) if api_key_env else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    read_timeout = timeout or chat_timeout()
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system_prompt(vault)},
        {"role": "user", "content": message},
    ]
    tools = schemas("openai")
    records: list[ToolCallRecord] = []
    with httpx.Client(timeout=httpx.Timeout(read_timeout, connect=CONNECT_TIMEOUT_S), headers=headers,
                      transport=transport) as client:
        for round_no in range(1, max_rounds + 1):
            reply = _post(client, endpoint, {"model": model, "messages": messages, "tools": tools,
                                             "tool_choice": "auto", "stream": False}, api_key_env)
            msg = _first_message(reply, endpoint)
            content = msg.get("content")
            text = content if isinstance(content, str) else _content_text(content)
            calls = msg.get("tool_calls") or []
            if not calls:
                inline = _inline_tool_call(text)
                if inline is None:
                    return AgentResult(text.strip() or "(the model returned an empty answer)", round_no,
                                       "answer", records, reply.get("model") or model)
                calls = [inline]
                text = ""
            calls = [_normalise_call(c, round_no, i) for i, c in enumerate(calls)]
            messages.append({"role": "assistant", "content": text or "", "tool_calls": [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": c["arguments_text"]}} for c in calls]})
            for c in calls:
                result = call_tool(vault, c["name"], c["arguments"])
                records.append(ToolCallRecord(round_no, c["name"], c["arguments"], result.text, result.is_error))
                messages.append({"role": "tool", "tool_call_id": c["id"], "content": result.text})
    done = ", ".join(f"{r.name}{' (error)' if r.is_error else ''}" for r in records)
    return AgentResult(
        f"Stopped after {max_rounds} rounds without a final answer from the model (tool calls made: "
        f"{done or 'none'}). Memory writes that succeeded are committed; see `vault-mem log`. Raise "
        "--max-rounds or ask a narrower question.",
        max_rounds, "max_rounds", records, model,
    )


# -- HTTP ------------------------------------------------------------------------------------
def _post(client: httpx.Client, endpoint: str, payload: dict[str, Any], api_key_env: str | None) -> dict[str, Any]:
    try:
        resp = client.post(endpoint, json=payload)
    except httpx.ConnectError as exc:
        raise ChatServerError(
            f"cannot reach the chat server at {endpoint} ({exc}); start one (e.g. `llama-server --jinja "
            "-m MODEL.gguf --port 8080` or `ollama serve`) or pass --url"
        ) from exc
    except httpx.TimeoutException as exc:
        raise ChatServerError(
            f"the chat server at {endpoint} did not answer in time ({type(exc).__name__}); a smaller model "
            "or a larger VAULT_MEM_CHAT_TIMEOUT (seconds) helps"
        ) from exc
    except httpx.HTTPError as exc:
        raise ChatServerError(f"request to the chat server at {endpoint} failed: {exc}") from exc
    if resp.status_code in (401, 403):
        raise ChatServerError(
            f"the chat server at {endpoint} refused the request (HTTP {resp.status_code}); put the API key "
            f"in the environment variable {api_key_env or 'named by --api-key-env'}"
        )
    if resp.status_code == 404:
        raise ChatServerError(
            f"{endpoint} does not exist on that server (HTTP 404); pass the server's base URL as --url, "
            "e.g. http://127.0.0.1:8080 for llama.cpp or http://127.0.0.1:11434 for Ollama"
        )
    if resp.status_code >= 400:
        detail = resp.text[:500].strip()
        hint = ""
        if "tool" in detail.lower() or "jinja" in detail.lower():
            hint = "; the model or server may not support tool calling (llama-server needs --jinja)"
        raise ChatServerError(f"the chat server answered HTTP {resp.status_code}: {detail}{hint}")
    try:
        data = resp.json()
    except ValueError as exc:
        raise ChatServerError(f"the chat server at {endpoint} did not answer with JSON: {resp.text[:200]!r}") from exc
    if not isinstance(data, dict):
        raise ChatServerError(f"the chat server at {endpoint} answered with unexpected JSON: {str(data)[:200]}")
    return data


def _first_message(reply: dict[str, Any], endpoint: str) -> dict[str, Any]:
    if "error" in reply and not reply.get("choices"):
        err = reply["error"]
        text = err.get("message") if isinstance(err, dict) else err
        raise ChatServerError(f"the chat server reported an error: {text}")
    choices = reply.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ChatServerError(f"the answer from {endpoint} has no choices: {json.dumps(reply)[:200]}")
    msg = choices[0].get("message")
    if not isinstance(msg, dict):
        raise ChatServerError(f"the answer from {endpoint} has no message: {json.dumps(choices[0])[:200]}")
    return msg


def _content_text(content: Any) -> str:
    """Text of a content given as a list of parts (``[{"type": "text", "text": ...}]``) or null."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


# -- tool calls ------------------------------------------------------------------------------
def _normalise_call(call: Any, round_no: int, index: int) -> dict[str, Any]:
    """``{id, name, arguments, arguments_text}`` from one entry of ``tool_calls``, however shaped.

    ``arguments`` stays the raw text when it is not valid JSON: :func:`~vault_mem.adapters.tools.call_tool`
    turns that into an error result the model can correct."""
    call = call if isinstance(call, dict) else {}
    fn = call.get("function") if isinstance(call.get("function"), dict) else call
    name = fn.get("name") if isinstance(fn.get("name"), str) else ""
    raw = fn.get("arguments", fn.get("parameters"))
    if isinstance(raw, str):
        text = raw
    else:
        text = json.dumps(raw if raw is not None else {}, ensure_ascii=False)
    call_id = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call_{round_no}_{index}"
    return {"id": call_id, "name": name, "arguments": raw if isinstance(raw, (str, dict)) else text,
            "arguments_text": text}


def _inline_tool_call(text: str) -> dict[str, Any] | None:
    """A tool call the model wrote as text: the whole message is one JSON object naming one of our
    tools (optionally in ``<tool_call>`` tags or a code fence). Anything else is prose."""
    if not text or not text.strip():
        return None
    m = _INLINE_CALL.match(text)
    if not m:
        return None
    body = next(g for g in m.groups() if g is not None)
    try:
        obj = parse_json(body, what="the reply")
    except UnreadableJSONError:  # not valid, nested past the parser's depth (attack25): no call
        return None
    if not isinstance(obj, dict):
        return None
    fn = obj.get("function") if isinstance(obj.get("function"), dict) else obj
    if fn.get("name") not in TOOL_NAMES or not ({"arguments", "parameters"} & set(fn)):
        return None
    return {"function": {"name": fn["name"], "arguments": fn.get("arguments", fn.get("parameters"))}}
