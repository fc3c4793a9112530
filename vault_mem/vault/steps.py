"""How every write ends: the commit message, INDEX.md on disk, and sidecar + INDEX.md + commit.

Shared by the write transaction (:mod:`vault_mem.vault.transaction`) and crash recovery
(:mod:`vault_mem.vault.recovery`), which finishes a journaled write the same way.
"""

from __future__ import annotations

from vault_mem.index.sidecar import Sidecar
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.store.files import atomic_write, checkpoint, current_bytes
from vault_mem.store.workspace import Workspace

#: under .vault-mem/: the intent of the write under way (see vault_mem.vault.transaction)
JOURNAL = "pending.json"


def commit_message(subject: str, *, key: str, action: str, type_: str, agent: str,
                   extra_trailers: str = "") -> str:
    """The message of an agent commit: the subject, then the Memory-* and Agent trailers."""
    return (f"{subject}\n\nMemory-Key: {key}\nMemory-Action: {action}\n"
            f"Memory-Type: {type_}\nAgent: {agent}\n{extra_trailers}")


def write_index(ws: Workspace, sidecar: Sidecar) -> bytes | None:
    """Regenerate INDEX.md on disk from the sidecar; returns the new bytes when they changed
    (the caller holds the write lock)."""
    new = sidecar.render_index(budget_tokens=ws.config.index_budget_tokens).encode()
    path = ws.root / INDEX_FILE
    old = current_bytes(path)  # never through a link: a symlinked INDEX.md is refused by name
    if old == new:
        return None
    atomic_write(path, new)
    return new


def finish_write(ws: Workspace, sidecar: Sidecar, rels: list[str], message: str, who: str) -> str | None:
    """Sidecar + INDEX.md + commit for files already on disk; clears the journal."""
    checkpoint("during-index", ws.state_dir)
    sidecar.refresh_paths(rels)
    write_index(ws, sidecar)
    files: dict[str, bytes | None] = {}
    for rel in [*rels, INDEX_FILE]:
        path = ws.root / rel
        files[ws.top(rel)] = path.read_bytes() if path.exists() else None
    commit = ws.repo.commit_paths(files, message, author=ws.identity(who))
    if commit is None:
        # Nothing new to commit: a recovered write whose commit landed before the crash, maybe
        # before git's staging area was refreshed (commit_paths skips that when there is no
        # commit); refresh it, or `git status` shows the file deleted and untracked.
        ws.repo.sync_index(list(files))
    checkpoint("after-commit", ws.state_dir)
    if commit:
        sidecar.set_meta("head", commit)
    (ws.state_dir / JOURNAL).unlink(missing_ok=True)
    return commit
