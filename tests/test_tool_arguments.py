"""Every tool's arguments are checked against its declared JSON Schema, in the one place every
adapter calls (`adapters/tools.call_tool`: the MCP server, the tool-calling loop, `dispatch`;
the loop's own test: tests/test_agent.py::test_a_value_of_the_wrong_json_type_is_an_error_result).

Before (attack run, issue 23): the MCP server took a number where a string is declared
(`{"key": 5}` stored a memory with key `5`), `"k": "5"` was read as 5, `"pinned": "true"` as true,
and `"tags": "a, b"` as two tags: what a client sent was not what the tool declares, so a client
that checks types (or a person reading the schema) could not know what the server does. Now a value
of the wrong JSON type is refused, naming the tool, the parameter, the type it takes and the type it
got; nothing is written. `null` for an optional parameter is "not given" (OpenAI's strict function
calling sends every parameter, `null` for those left out); for a required one it is refused.
"""

from __future__ import annotations

import json

import anyio
import pytest
from conftest import git, mcp_server_in
from mcp import Client

from vault_mem.adapters.tools import TOOLS, call_tool

#: one value of each JSON type
SAMPLES = {"string": "text", "integer": 5, "number": 2.5, "boolean": True, "null": None,
           "array": ["a"], "object": {"a": 1}}
#: the JSON types a declared type accepts
ACCEPTS = {"string": {"string"}, "integer": {"integer"}, "number": {"integer", "number"},
           "boolean": {"boolean"}, "array": {"array"}, "object": {"object"}}
#: the words each declared type is named by in the error
NAMED = {"string": "a string", "integer": "a whole number", "boolean": "true or false", "array": "a list of strings"}
#: a call of each tool that passes (so an error is the one parameter's)
VALID = {"remember": {"key": "k1", "description": "d"}, "recall": {"query": "x"}, "forget": {"key": "k1"},
         "get": {"key": "k1"}, "list": {}}


def _mismatches():
    for tool in TOOLS:
        required = tool.parameters.get("required", [])
        for param, schema in tool.parameters["properties"].items():
            for kind, value in SAMPLES.items():
                if kind == "null" and param not in required:
                    continue  # "not given": test_null_for_an_optional_parameter_is_its_default
                if kind not in ACCEPTS[schema["type"]]:
                    yield tool.name, param, schema["type"], kind, value
            if schema["type"] == "array":  # a list holding a value of another type than its items'
                yield tool.name, param, "array", "array of integer", [1]


@pytest.mark.parametrize("tool, param, declared, kind, value", list(_mismatches()))
def test_a_value_of_the_wrong_json_type_is_refused_naming_the_parameter(vault, tool, param, declared, kind, value):
    head = git(vault.root, "rev-parse", "HEAD")
    result = call_tool(vault, tool, {**VALID[tool], param: value})
    assert result.is_error, (tool, param, kind)
    error = json.loads(result.text)["error"]
    assert f"{tool}: '{param}' must be {NAMED[declared]}" in error, error
    assert "got " in error, error
    assert git(vault.root, "rev-parse", "HEAD") == head


def test_the_slips_that_were_taken_are_refused_with_what_to_send(vault):
    cases = [("remember", {"key": 5, "description": "d"}, "'key' must be a string, got a number (5)"),
             ("recall", {"query": "x", "k": "2"}, "'k' must be a whole number"),
             ("remember", {"key": "k", "description": "d", "pinned": "true"}, "'pinned' must be true or false, got a string"),
             ("remember", {"key": "k", "description": "d", "tags": "a, b"}, '\'tags\' must be a list of strings, e.g. ["a", "b"]'),
             ("recall", {"query": None}, "'query' must be a string, got null")]
    for tool, args, words in cases:
        error = json.loads(call_tool(vault, tool, args).text).get("error", "")
        assert words in error, (args, error)
    assert not (vault.root / "facts" / "5.md").exists()
    assert call_tool(vault, "list", {}).data["count"] == 0


def test_null_for_an_optional_parameter_is_its_default(vault):
    """What OpenAI's strict function calling (and many small local models) send for every parameter
    left out: a call with all its optional parameters null does what the call without them does."""
    def nulls(name):
        spec = next(t for t in TOOLS if t.name == name)
        required = spec.parameters.get("required", [])
        return {p: None for p in spec.parameters["properties"] if p not in required}

    out = call_tool(vault, "remember", {"key": "k1", "description": "Uses Helix as the editor", **nulls("remember")})
    assert not out.is_error, out.text
    assert out.data["action"] == "create"
    assert vault.get("k1").type == "fact"  # the default type, not "None"
    for name, args in [("recall", {"query": "helix"}), ("get", {"key": "k1"}), ("list", {})]:
        plain, with_nulls = call_tool(vault, name, args), call_tool(vault, name, {**args, **nulls(name)})
        assert not with_nulls.is_error, (name, with_nulls.text)
        assert with_nulls.text == plain.text, name
    assert call_tool(vault, "get", {"key": None}).is_error  # a required one is not optional


def test_values_of_the_declared_types_still_pass(vault):
    out = call_tool(vault, "remember", {"key": "k1", "description": "Uses Helix", "tags": ["a"], "pinned": False,
                                        "type": "preference", "source": "user"})
    assert not out.is_error, out.text
    assert not call_tool(vault, "recall", {"query": "helix", "k": 3, "full": True, "queries": ["editor"]}).is_error
    assert not call_tool(vault, "recall", {"query": "helix", "k": 3.0}).is_error  # 3.0 is an integer in JSON Schema


def test_through_the_mcp_sdks_client_against_the_real_server(project):
    """The MCP SDK's own client, the server as an agent starts it (`python -m vault_mem mcp`):
    each mismatch a tool error naming the parameter, the server answering the next call."""
    proj, _ = project
    calls = [("remember", {"key": 5, "description": "d"}, "'key' must be a string"),
             ("remember", {"key": "k", "description": ["d"]}, "'description' must be a string, got a list"),
             ("recall", {"query": "x", "k": True}, "'k' must be a whole number"),
             ("recall", {"query": "x", "k": "3"}, "'k' must be a whole number"),
             ("get", {"key": None}, "'key' must be a string, got null"),
             ("list", {"tags": [1, 2]}, "'tags' must be a list of strings"),
             ("recall", {"query": "x", "full": "yes"}, "'full' must be true or false")]

    async def session():
        async with Client(mcp_server_in(proj), read_timeout_seconds=60) as client:
            for name, args, words in calls:
                r = await client.call_tool(name, args)
                assert r.is_error, (name, args)
                assert words in r.content[0].text, r.content[0].text
            r = await client.call_tool("recall", {"query": "which editor", "k": 2})
            assert not r.is_error, r.content

    anyio.run(session)
    assert not (proj / "memory" / "facts" / "5.md").exists()

