"""The MCP server imports only the SDK's parts a stdio server uses (vault_mem.adapters.mcp_sdk).

Each test runs a new interpreter: this one imported the whole SDK already (the other tests' client)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import ROOT

#: what a server session imported of the SDK's client and of MCPServer, written to argv[2]
SERVE_AND_REPORT = """
import io, json, sys
from pathlib import Path
from vault_mem.adapters.mcp_server import serve
serve(Path(sys.argv[1]))
unused = sorted(m for m in sys.modules if m.startswith(("mcp.client", "mcp.server.mcpserver", "httpx2")))
Path(sys.argv[2]).write_text(json.dumps(unused))
"""


def _python(code: str, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], input=input, capture_output=True, text=True,
                          env=env, timeout=120, check=False)


def _request(id_: int | None, method: str, params: dict | None = None) -> str:
    message = {"jsonrpc": "2.0", "method": method, **({"id": id_} if id_ is not None else {}),
               **({"params": params} if params is not None else {})}
    return json.dumps(message) + "\n"


def test_a_server_session_imports_neither_the_sdks_client_nor_mcpserver(vault, tmp_path):
    """A whole session (initialize, tools/list, a call) answered, then what it imported: none of
    the client (its HTTP client with it) and none of MCPServer, which the SDK's package
    ``__init__`` files import."""
    report = tmp_path / "unused.json"
    session = (_request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                          "clientInfo": {"name": "t", "version": "1"}})
               + _request(None, "notifications/initialized") + _request(2, "tools/list")
               + _request(3, "tools/call", {"name": "list", "arguments": {}}))
    # as a client does, stdin stays open until the last answer is in: at its end the SDK cancels
    # the calls still running (their callers gone), and a call answered after it was lost (ci15)
    with subprocess.Popen([sys.executable, "-c", SERVE_AND_REPORT, str(vault.root), str(report)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}) as proc:
        try:
            proc.stdin.write(session)
            proc.stdin.flush()
            answers = {}
            while 3 not in answers and (line := proc.stdout.readline()):
                message = json.loads(line)
                answers[message.get("id")] = message
            proc.stdin.close()
            assert proc.wait(timeout=120) == 0, proc.stderr.read()
        finally:
            proc.kill()
    assert answers[1]["result"]["serverInfo"]["name"] == "vault-mem"
    assert {t["name"] for t in answers[2]["result"]["tools"]} >= {"remember", "recall"}
    assert answers[3]["result"]["isError"] is False
    assert json.loads(report.read_text()) == []


def test_the_whole_sdk_is_there_for_whoever_asks_after_the_lean_import():
    """After the server's lean import, a name only the packages' ``__init__`` define runs it:
    the same objects as a plain ``import mcp`` gives, the submodules bound on their packages."""
    code = """
import sys
from vault_mem.adapters.mcp_sdk import lean_import
lean_import()
from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
assert not any(m.startswith(("mcp.client", "mcp.server.mcpserver")) for m in sys.modules), "imported eagerly"
import mcp, mcp.server
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.server import MCPServer, Server as Exported
from mcp.client.client import Client as Real
from mcp.server.mcpserver import MCPServer as RealMCPServer
assert Client is Real and MCPServer is RealMCPServer and Exported is Server
assert mcp.types is types and mcp.server.lowlevel.Server is Server and mcp.server.stdio.stdio_server is stdio_server
assert "Client" in mcp.__all__ and "MCPServer" in mcp.server.__all__
try:
    mcp.no_such_name
except AttributeError as exc:
    assert "no_such_name" in str(exc)
else:
    raise AssertionError("a missing name was found")
print("whole")
"""
    proc = _python(code)
    assert proc.returncode == 0 and proc.stdout == "whole\n", proc.stderr


def test_the_lean_import_changes_nothing_once_the_sdk_is_imported():
    code = """
import mcp, mcp.server
from vault_mem.adapters.mcp_sdk import lean_import
before = (sys_modules := __import__("sys").modules)["mcp"], sys_modules["mcp.server"]
lean_import()
assert (sys_modules["mcp"], sys_modules["mcp.server"]) == before
assert not hasattr(mcp, "__getattr__") and not hasattr(mcp.server, "__getattr__")
print("unchanged")
"""
    proc = _python(code)
    assert proc.returncode == 0 and proc.stdout == "unchanged\n", proc.stderr
