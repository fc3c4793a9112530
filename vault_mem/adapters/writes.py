"""The writes a running daemon does for one-shot commands: ``remember`` and ``forget``.

``WRITES`` maps an operation to ``fn(vault, args) -> JSON``, run by the daemon on a vault it
opened as the command would (:meth:`vault_mem.daemon.process.Daemon._write`): the same
:class:`~vault_mem.vault.core.Vault` call the command makes in-process, so the same policy,
secret gate and commit (author, trailers, message). ``vault-mem daemon`` hands them to the
daemon; the CLI sends them through :func:`vault_mem.store.daemon_socket.submit` and prints the
answer as it prints its own (:mod:`vault_mem.adapters.cli`).

What a write refuses travels in its answer rather than as the socket's error reply, with the
warnings the command prints before its write (git hooks missing): ``{"before": [...],
"result": {...}}`` or ``{"before": [...], "error": TEXT, "kind": CLASS}``; the command raises it
as the in-process write would have.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vault_mem.adapters.cli_input import RawBody, body_text
from vault_mem.errors import UsageError, VaultMemError

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

_STR, _OPT_STR, _OPT_LIST, _OPT_BOOL = (str,), (str, type(None)), (list, type(None)), (bool, type(None))
_ARGS: dict[str, dict[str, tuple[type, ...]]] = {
    "remember": {"key": _STR, "description": _STR, "body": _STR, "body_from": _OPT_STR, "type": _STR,
                 "tags": _OPT_LIST, "source": _OPT_STR, "pinned": _OPT_BOOL, "expires": _OPT_STR,
                 "supersedes": _OPT_LIST, "scope": _OPT_STR, "refs": _OPT_LIST},
    "forget": {"key": _STR},
}


def _checked(op: str, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` of ``op``, every name present and of its type (a request from the socket is
    data until checked)."""
    spec = _ARGS[op]
    if set(args) != set(spec):
        raise UsageError(f"{op} takes exactly the arguments {', '.join(spec)}")
    for name, value in args.items():
        if not isinstance(value, spec[name]) or isinstance(value, bool) and bool not in spec[name]:
            raise UsageError(f"{op}: {name} has the wrong type")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise UsageError(f"{op}: {name} must be a list of strings")
    return args


def _answered(vault: Vault, write: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """``write()``'s result, or what it refused, after the warnings the command gives first."""
    from vault_mem.store.hooks import missing_hooks_notice  # lazy: as the CLI's open_vault

    missing = missing_hooks_notice(vault.repo.hooks_dir, vault.root, vault.repo.toplevel, vault.repo.common_dir)
    before = [f"warning: {missing}"] if missing else []
    try:
        return {"before": before, "result": write()}
    except VaultMemError as exc:
        return {"before": before, "error": str(exc), "kind": type(exc).__name__}
    except OSError as exc:  # the machine refused: the command says it as its own OSError
        return {"before": before, "error": str(exc), "kind": "OSError"}


def remember(vault: Vault, args: dict[str, Any]) -> dict[str, Any]:
    a = _checked("remember", args)

    def write() -> dict[str, Any]:
        body = a["body"]
        if a["body_from"] is not None:  # read by the command from stdin or a file: the vault's limit
            body = body_text(RawBody(body.encode("utf-8"), a["body_from"], None), vault.config.max_body_bytes)
        try:  # a date, as the command passes it (sent as YYYY-MM-DD, checked there)
            expires = dt.date.fromisoformat(a["expires"]) if a["expires"] else None
        except ValueError:
            raise UsageError(f"--expires takes a date as YYYY-MM-DD, got '{a['expires']}'") from None
        result = vault.remember(a["key"], a["description"], body, type=a["type"], tags=a["tags"],
                                source=a["source"], pinned=a["pinned"], expires=expires,
                                supersedes=a["supersedes"], scope=a["scope"], refs=a["refs"])
        return {**result.to_dict(), "root": str(vault.root)}

    return _answered(vault, write)


def forget(vault: Vault, args: dict[str, Any]) -> dict[str, Any]:
    a = _checked("forget", args)
    return _answered(vault, lambda: {**vault.forget(a["key"]).to_dict(), "root": str(vault.root)})


WRITES: dict[str, Callable[[Vault, dict[str, Any]], Any]] = {"remember": remember, "forget": forget}
