"""The reads a running daemon answers for one-shot commands, by the names of the CLI and tools.

``READS`` maps an operation to ``fn(vault, args) -> JSON``: ``recall`` (what ``vault-mem recall
--json`` prints), ``get`` (``get --json``), ``list`` (``list --json``) and ``hook`` (the Claude
Code hooks' context: ``{"name": "user-prompt-submit" | "session-start", "event": {...}}`` ->
``{"context": text or null}``). ``vault-mem daemon`` hands them to the daemon, which answers them
on its socket (:mod:`vault_mem.daemon.serve`); the CLI and the hooks run the very same functions
in-process when no daemon answers, so both paths give the same JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vault_mem.adapters.contexts import READ_BUILDERS
from vault_mem.adapters.tools import get_view, list_rows
from vault_mem.errors import UsageError

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

_STR, _INT, _BOOL, _LIST, _DICT = (str,), (int,), (bool,), (list,), (dict,)
_ARGS: dict[str, dict[str, tuple[type, ...]]] = {
    "recall": {"query": _STR, "queries": _LIST, "k": _INT, "type": _STR, "tags": _LIST, "scope": _STR,
               "include_expired": _BOOL, "full": _BOOL, "trusted_only": _BOOL},
    "get": {"key": _STR},
    "list": {"type": _STR, "tags": _LIST},
    "hook": {"name": _STR, "event": _DICT},
}
_REQUIRED = {"recall": ("query",), "get": ("key",), "list": (), "hook": ("name",)}


def checked(op: str, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` of ``op`` with None values dropped, after refusing unknown names and wrong
    types (a request from the socket is data until checked)."""
    spec = _ARGS[op]
    args = {k: v for k, v in args.items() if v is not None}
    unknown = sorted(set(args) - set(spec))
    if unknown:
        raise UsageError(f"{op} has no argument {', '.join(unknown)}; its arguments are {', '.join(spec)}")
    for name in _REQUIRED[op]:
        if name not in args:
            raise UsageError(f"{op} needs the argument {name}")
    for name, value in args.items():
        kinds = spec[name]
        if not isinstance(value, kinds) or (kinds is _INT and isinstance(value, bool)):
            raise UsageError(f"{op}: {name} must be a {kinds[0].__name__}")
        if kinds is _LIST and not all(isinstance(v, str) for v in value):
            raise UsageError(f"{op}: {name} must be a list of strings")
    return args


def recall(vault: Vault, args: dict[str, Any]) -> dict[str, Any]:
    a = checked("recall", args)
    result = vault.recall(a["query"], k=a.get("k"), type=a.get("type"), tags=a.get("tags"),
                          scope=a.get("scope"), include_expired=a.get("include_expired", False),
                          full=a.get("full", False), queries=a.get("queries"),
                          trusted_only=a.get("trusted_only", False))
    return result.to_dict()


def get(vault: Vault, args: dict[str, Any]) -> dict[str, Any]:
    return get_view(vault, checked("get", args)["key"])


def list_(vault: Vault, args: dict[str, Any]) -> list[dict]:
    a = checked("list", args)
    return list_rows(vault, type=a.get("type"), tags=a.get("tags"))


def hook(vault: Vault, args: dict[str, Any]) -> dict[str, Any]:
    a = checked("hook", args)
    build = READ_BUILDERS.get(a["name"])
    if build is None:
        raise UsageError(f"no hook '{a['name']}' is answered by the daemon: use one of {', '.join(READ_BUILDERS)}")
    return {"context": build(vault, a.get("event", {}))}


READS: dict[str, Callable[[Vault, dict[str, Any]], Any]] = {"recall": recall, "get": get, "list": list_, "hook": hook}
