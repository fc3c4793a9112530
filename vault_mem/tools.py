"""``vault_mem.tools``: kept for code written against vault-mem 0.1, which imported the tool
schemas and dispatch from here. They live in :mod:`vault_mem.adapters.tools`."""

from vault_mem.adapters.tools import TOOL_NAMES, call_tool, dispatch, schemas

__all__ = ["TOOL_NAMES", "call_tool", "dispatch", "schemas"]
