"""``vault-mem mcp PATH``: the vault as an MCP server over stdio (official MCP Python SDK).

Tools are :data:`vault_mem.adapters.tools.TOOLS` (``remember``, ``recall``, ``forget``, ``get``,
``list``) with the same schemas the OpenAI-style adapters use; INDEX.md is the resource
``vault://index``. The server's instructions carry the write policy.

A tool call that fails (bad arguments, unknown key, a refused secret, ...) comes back as a tool
result with ``isError: true`` and a message saying what to do next; the server itself never dies
on a bad call. Built on the SDK's low-level ``Server`` rather than ``MCPServer`` because the
schemas come from :mod:`vault_mem.adapters.tools`, not from Python signatures.

Vault calls run on the event loop's thread, one at a time: the vault's SQLite connection belongs
to that thread, and an stdio client sends one request at a time in practice anyway.
"""

from __future__ import annotations

import logging
from pathlib import Path

from vault_mem.adapters.tools import call_tool, index_text, memory_preamble, schemas
from vault_mem.config import VERSION
from vault_mem.vault.core import Vault

log = logging.getLogger(__name__)

INDEX_URI = "vault://index"
SERVER_NAME = "vault-mem"


def instructions(vault: Vault) -> str:
    """What an MCP client shows the model about this server."""
    return (memory_preamble(vault.root)
            + f"\n\nRead the resource {INDEX_URI} (INDEX.md) for what is remembered; recall searches "
            "everything.")


def build_server(vault: Vault):
    """A low-level MCP ``Server`` serving ``vault``'s tools and INDEX.md.

    A server lives as long as its client's session, so the vault's vectors are searched from an
    in-memory copy (loaded once, ~4 ms per search at 100k) rather than from ``vec0`` each time."""
    # the MCP SDK is imported here, not at the top: importing it takes about a second on this
    # machine, which importing this module (for `instructions`, or in tests) should not cost
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    vault.sidecar.keep_vectors_in_memory = True

    tools = [types.Tool.model_validate(t) for t in schemas("mcp")]

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        result = call_tool(vault, params.name, params.arguments)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.text)],
            structured_content=result.data or None,
            is_error=result.is_error,
        )

    async def on_list_resources(ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(
            uri=INDEX_URI, name="INDEX.md", title="Memory index",
            description="What this agent remembers, one line per memory (generated from the files).",
            mime_type="text/markdown",
        )])

    async def on_read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) != INDEX_URI:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"unknown resource '{params.uri}'; this server has {INDEX_URI}")
        try:
            text = index_text(vault)
        except Exception as exc:
            # the client gets the reason; the stack trace only at debug level, never at a user
            log.error("reading INDEX.md failed: %s: %s", type(exc).__name__, exc)
            log.debug("reading INDEX.md failed", exc_info=True)
            raise MCPError(code=types.INTERNAL_ERROR, message=f"cannot read INDEX.md: {exc}") from exc
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=INDEX_URI, mime_type="text/markdown", text=text)])

    return Server(
        SERVER_NAME,
        version=VERSION,
        title="vault-mem",
        description="Long-term memory as Markdown files in git",
        instructions=instructions(vault),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=on_list_resources,
        on_read_resource=on_read_resource,
    )


async def serve_async(vault: Vault) -> None:
    """Serve ``vault`` over this process's stdin and stdout until the client closes them."""
    from mcp.server.stdio import stdio_server  # the SDK only when serving (see build_server)

    server = build_server(vault)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve(root: Path, agent: str | None = None) -> None:
    """Open the vault at ``root`` and serve it over stdio (blocks until stdin closes).

    stdout carries the protocol and nothing else may be written there: whoever configures
    logging (the CLI, ``vault-mem mcp``) sends it to stderr."""
    import anyio  # comes with the MCP SDK; only serving needs it (see build_server)

    vault = Vault(root, agent=agent)
    try:
        vault.reconcile()
        anyio.run(serve_async, vault)
    finally:
        vault.close()
