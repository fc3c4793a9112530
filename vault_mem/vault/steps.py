"""How every write ends: the commit message, INDEX.md on disk, and sidecar + INDEX.md + commit.

Shared by the write transaction (:mod:`vault_mem.vault.transaction`) and crash recovery
(:mod:`vault_mem.vault.recovery`), which finishes a journaled write the same way.
"""

from __future__ import annotations

import os

from vault_mem.errors import VaultMemError
from vault_mem.index.sidecar import Sidecar
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.store.files import atomic_write, checkpoint, current_bytes, read_own
from vault_mem.store.trust import seal, unseal
from vault_mem.store.workspace import Workspace

#: under .vault-mem/: the intent of the write under way (see vault_mem.vault.transaction)
JOURNAL = "pending.json"
#: what :func:`read_journal` returns for a journal this machine did not write
FOREIGN = object()


def write_journal(ws: Workspace, name: str, entry: dict) -> None:
    """Journal ``entry`` as ``.vault-mem/<name>``, signed with this machine's key."""
    atomic_write(ws.state_dir / name, seal(ws.root, name, entry))


def read_journal(ws: Workspace, name: str) -> dict | object | None:
    """The journal ``.vault-mem/<name>`` when this machine wrote it for this vault; None when
    there is none; :data:`FOREIGN` for anything else (planted through a commit, copied from
    another vault or machine, damaged, a symlink): it is removed, never applied or committed."""
    path = ws.state_dir / name
    if not os.path.lexists(path):
        return None
    try:
        raw = read_own(path)
    except VaultMemError:
        raw = None
    entry = unseal(ws.root, name, raw) if raw else None
    if entry is None:
        path.unlink(missing_ok=True)
        return FOREIGN
    return entry


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
        files[ws.top(rel)] = ws.disk_bytes(rel)  # never through a link
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
