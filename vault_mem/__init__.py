"""vault-mem: long-term memory for local AI agents, as Markdown files in git."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vault_mem.config import VERSION
from vault_mem.errors import VaultMemError

if TYPE_CHECKING:
    from vault_mem.model.memory import Memory
    from vault_mem.daemon.keeper import keep_current
    from vault_mem.vault.core import Vault, WriteResult

__all__ = ["Memory", "Vault", "VaultMemError", "WriteResult", "keep_current"]
__version__ = VERSION


def __getattr__(name: str):
    # Vault pulls in git, SQLite and the embedder, Memory the YAML parser: imported only when
    # asked for, so a command the daemon answers (python -m vault_mem recall) never loads them.
    if name == "Memory":
        from vault_mem.model.memory import Memory

        return Memory
    if name in ("Vault", "WriteResult"):
        from vault_mem.vault import core as vault

        return getattr(vault, name)
    if name == "keep_current":  # a long-lived process's own watcher (opt-in: see its docstring)
        from vault_mem.daemon.keeper import keep_current

        return keep_current
    raise AttributeError(name)
