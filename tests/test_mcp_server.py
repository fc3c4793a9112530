"""``vault-mem mcp PATH`` end to end: the MCP SDK's own client drives the real server process
over stdio (``python -m vault_mem mcp PATH`` as a subprocess)."""

from __future__ import annotations

import json
import os
import sys

import anyio
import pytest
from conftest import ROOT, run_cli
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from vault_mem.adapters.tools import TOOL_NAMES, memory_preamble


def server_params(root) -> StdioServerParameters:
    # The SDK passes only a safe subset of the environment; add what the server needs.
    env = {"VAULT_MEM_EMBEDDER": "none", "PYTHONPATH": str(ROOT), "GIT_CONFIG_NOSYSTEM": "1",
           "HOME": os.environ["HOME"], "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"]}
    return StdioServerParameters(command=sys.executable, args=["-m", "vault_mem", "mcp", str(root)],
                                 env=env, cwd=str(ROOT))


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


def payload(result) -> dict:
    assert result.content and result.content[0].type == "text"
    return json.loads(result.content[0].text)


@pytest.fixture
def root(vault):
    return vault.root


def test_full_session(root):
    async def session():
        async with Client(server_params(root), read_timeout_seconds=60) as client:
            assert client.server_info.name == "vault-mem"
            assert "recall before remember" in (client.instructions or "")

            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == set(TOOL_NAMES)
            assert tools["remember"].input_schema["required"] == ["key", "description"]
            assert "credentials" in tools["remember"].description

            r = await client.call_tool("remember", {
                "key": "db-choice", "type": "decision",
                "description": "Use Postgres for the ledger (2026-11-29)",
                "body": "Because we need row-level locks; SQLite was the alternative."})
            assert not r.is_error, r.content
            assert payload(r)["action"] == "create" and r.structured_content["commit"]

            r = await client.call_tool("recall", {"query": "Postgres for the ledger"})
            assert not r.is_error
            hits = payload(r)["hits"]
            assert hits[0]["key"] == "db-choice" and "row-level locks" in hits[0]["body"]

            r = await client.call_tool("get", {"key": "db-choice"})
            assert payload(r)["type"] == "decision" and payload(r)["age_days"] == 0

            r = await client.call_tool("list", {})
            assert [m["key"] for m in payload(r)["memories"]] == ["db-choice"]

            resources = (await client.list_resources()).resources
            assert [str(x.uri) for x in resources] == ["vault://index"]
            index = (await client.read_resource("vault://index")).contents[0].text
            assert "db-choice" in index and "Use Postgres for the ledger" in index

            r = await client.call_tool("forget", {"key": "db-choice"})
            assert payload(r)["action"] == "forget"
            r = await client.call_tool("recall", {"query": "ledger database"})
            assert payload(r)["hits"] == []
            index = (await client.read_resource("vault://index")).contents[0].text
            assert "db-choice" not in index

    run(session)


def test_bad_arguments_are_tool_errors_and_the_server_keeps_answering(root):
    bad_calls = [
        ("remember", {"key": "Not A Key", "description": "x"}, "invalid key"),
        ("remember", {"description": "no key"}, "needs 'key'"),
        ("remember", {"key": "k", "description": "d", "content": "oops"}, "no parameter 'content'"),
        ("recall", {"query": "x", "k": "many"}, "whole number"),
        ("get", {"key": "missing-key"}, "no memory with key"),
        ("forget", {"key": "missing-key"}, "no memory with key"),
        ("summon", {}, "unknown tool"),
        ("recall", None, "needs 'query'"),
    ]

    async def session():
        async with Client(server_params(root), read_timeout_seconds=60) as client:
            for name, args, words in bad_calls:
                r = await client.call_tool(name, args)
                assert r.is_error, (name, args)
                assert words in payload(r)["error"], payload(r)
            with pytest.raises(MCPError):
                await client.read_resource("vault://nothing")
            # still alive and still right
            r = await client.call_tool("remember", {"key": "still-here", "description": "The server survives bad calls"})
            assert not r.is_error
            assert payload(await client.call_tool("recall", {"query": "server survives"}))["hits"]

    run(session)


def test_sees_writes_made_by_other_processes(root):
    async def session():
        async with Client(server_params(root), read_timeout_seconds=60) as client:
            assert payload(await client.call_tool("list", {}))["count"] == 0
            proc = run_cli("--vault", str(root), "remember", "release-steps", "--type", "procedure",
                           "-d", "How to cut a release", "--body", "1. git pull\n2. make release\n")
            assert proc.returncode == 0, proc.stderr
            hits = payload(await client.call_tool("recall", {"query": "cut a release"}))["hits"]
            assert hits and hits[0]["body"] == "1. git pull\n2. make release\n"  # a procedure comes whole
            index = (await client.read_resource("vault://index")).contents[0].text
            assert "release-steps" in index

    run(session)


def test_legacy_handshake_clients_work_too(root):
    """Clients that speak the pre-2026 initialize handshake (most MCP hosts today)."""
    async def session():
        async with Client(server_params(root), mode="legacy", read_timeout_seconds=60) as client:
            assert {t.name for t in (await client.list_tools()).tools} == set(TOOL_NAMES)
            r = await client.call_tool("remember", {"key": "shell", "description": "Uses fish as the shell",
                                                    "type": "preference"})
            assert not r.is_error
            r = await client.call_tool("get", {"key": "nope"})
            assert r.is_error

    run(session)


def test_instructions_are_the_shared_preamble_and_where_index_md_is(vault):
    from vault_mem.adapters.mcp_server import INDEX_URI, instructions

    text = instructions(vault)
    assert text.startswith(memory_preamble(vault.root)) and INDEX_URI in text.removeprefix(memory_preamble(vault.root))


def test_not_a_vault_fails_with_a_message(tmp_path):
    proc = run_cli("mcp", str(tmp_path / "nowhere"), input="")
    assert proc.returncode == 1
    assert "not inside a vault" in proc.stderr or "not a vault" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_the_server_searches_vectors_held_in_memory(vault):
    from vault_mem.adapters.mcp_server import build_server
    from vault_mem.index.vectors import VectorIndex

    assert not vault.sidecar.keep_vectors_in_memory  # a one-shot process searches vec0
    build_server(vault)
    assert isinstance(vault.sidecar.vector_index(), VectorIndex)


def test_the_first_recall_waits_for_the_model_rather_than_answer_keyword_only(vault):
    """A fresh session's first call is a recall of a paraphrase (no word in common with the
    memory): it waits for the model and vectors (up to MODEL_WAIT_S) and finds the memory, where a
    keyword-only answer found nothing and said that nothing was stored."""
    from conftest import real_embedder

    real_embedder()  # the bundled model must be there
    vault.remember("editor-choice", "Uses Helix as the main editor", type="preference", source="user")
    params = server_params(vault.root)
    params.env["VAULT_MEM_EMBEDDER"] = "local"

    async def session():
        async with Client(params, read_timeout_seconds=60) as client:
            return payload(await client.call_tool("recall", {"query": "which program do I write code in?"}))

    out = run(session)
    assert not out.get("keyword_only"), out
    assert out["hits"] and out["hits"][0]["key"] == "editor-choice" and out["verdict"] != "none"
