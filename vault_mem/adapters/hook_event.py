"""An agent hook's event: the JSON the agent CLI writes on the hook's stdin, read one way by
every agent hook (:mod:`vault_mem.adapters.hooks`, :mod:`vault_mem.adapters.distill`)."""

from __future__ import annotations

from typing import Any

from vault_mem.errors import UnreadableJSONError


def event_of(stdin_text: str) -> dict[str, Any]:
    """An agent hook's input JSON, read by the one reader
    (:func:`~vault_mem.store.jsonfiles.parse_json`); an empty or unreadable stdin (not valid,
    nested past the parser's depth: attack25, too large) is an empty event, still answerable:
    a hook never stops the agent's session over its own input."""
    from vault_mem.store.jsonfiles import parse_json  # lazy: a git hook never reads JSON

    try:
        data = parse_json(stdin_text, what="the hook's event") if stdin_text.strip() else {}
    except UnreadableJSONError:
        return {}
    return data if isinstance(data, dict) else {}
