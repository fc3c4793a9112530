"""A read no daemon answered, run in this process with the daemon's own functions.

:class:`~vault_mem.adapters.vaults.Vaults` is given :func:`read_here` by the code that makes it
(the CLI, the hooks) rather than importing the reads itself: the reads use the tools and the
hooks' contexts, which use ``Vaults`` (an import cycle). Light to import: the reads, the tools
and the model load only when a read is actually run here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault


def read_here(vault: Vault, op: str, params: dict[str, Any]) -> Any:
    """``op(params)`` (:data:`vault_mem.adapters.reads.READS`) on ``vault``, in this process."""
    from vault_mem.adapters.reads import READS  # lazy: the tools and the model, only when run here

    return READS[op](vault, params)
