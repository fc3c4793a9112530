"""vault-mem: long-term memory for local AI agents, as Markdown files in git."""

from __future__ import annotations

from typing import TYPE_CHECKING

from vault_mem.config import VERSION
from vault_mem.errors import VaultMemError
from vault_mem.model.memory import Memory

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault, WriteResult

__all__ = ["Memory", "Vault", "VaultMemError", "WriteResult"]
__version__ = VERSION


def __getattr__(name: str):
    # Vault pulls in git, SQLite and the embedder; import it only when asked for.
    if name in ("Vault", "WriteResult"):
        from vault_mem.vault import core as vault

        return getattr(vault, name)
    raise AttributeError(name)
