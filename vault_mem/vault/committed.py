"""Bring the sidecar's committed view (:mod:`vault_mem.index.committed`) to a commit.

The view holds each memory path's blob id at one commit. Moving it to another commit costs the
difference between the two (one ``git diff-tree``), and nothing after an agent commit whose
parent it reflected (:func:`after_commit` records the commit's own files). Built whole once
(a diff from the empty tree), or again when the commit it reflects is gone.

Rows indexed by an older vault-mem have no blob id: :func:`bring_to` reads it from each such
file that still matches its row (once; a row that no longer matches is re-read by the next
reconcile or refresh, which records it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vault_mem.errors import VaultMemError
from vault_mem.index import committed as view
from vault_mem.index.folderscan import path_sig
from vault_mem.model.memory import is_memory_path
from vault_mem.store import history
from vault_mem.store.objectid import blob_id

if TYPE_CHECKING:
    from vault_mem.index.sidecar import Sidecar
    from vault_mem.store.workspace import Workspace

__all__ = ["after_commit", "bring_to", "differing", "gone"]


def bring_to(ws: Workspace, sidecar: Sidecar, commit: str | None, *, give_up: bool = False) -> None:
    """Make the view reflect ``commit`` (None: an unborn branch, no files). ``give_up``: a
    read's, which gives up on another process's lock held past the busy timeout: then
    IndexStoreError, and the caller answers without the view (:meth:`~vault_mem.index.db.Database.write`)."""
    db = sidecar.db
    _fill_missing_blobs(ws, sidecar, give_up)
    at = view.stored_at(db)
    if at == (commit or ""):
        return
    if commit is None:
        view.replace(db, "", {}, give_up=give_up)
        return
    spec = ws.prefix or "."
    entries = None
    if at:
        try:
            entries = history.changed_entries(ws.repo, at, commit, spec)
        except VaultMemError:
            entries = None  # the commit it reflected is gone (a rewritten history): build it whole
    if entries is None:
        whole = history.changed_entries(ws.repo, ws.repo.empty_tree(), commit, spec)
        view.replace(db, commit, {rel: e[1] for rel, e in _memory_paths(ws, whole).items() if e is not None},
                     give_up=give_up)
        return
    view.update(db, commit, {rel: (e[1] if e is not None else None) for rel, e in _memory_paths(ws, entries).items()},
                give_up=give_up)


def differing(ws: Workspace, sidecar: Sidecar, commit: str | None) -> list[str]:
    """The vault-relative memory paths whose row holds a version ``commit`` does not (or that
    only one of them has)."""
    bring_to(ws, sidecar, commit)
    return view.differing(sidecar.db)


def gone(ws: Workspace, sidecar: Sidecar, commit: str | None, *, give_up: bool = False) -> list[str]:
    """The vault-relative memory paths ``commit`` holds that are gone from the disk (no row, as
    the last reconcile saw it): what the change made here deleted or moved away, read in time
    proportional to that change. ``give_up``: see :func:`bring_to`."""
    bring_to(ws, sidecar, commit, give_up=give_up)
    return view.gone(sidecar.db)


def after_commit(ws: Workspace, sidecar: Sidecar, commit: str, parent: str | None,
                 files: dict[str, bytes | None]) -> None:
    """Record an agent commit made on ``parent`` from ``files`` ({vault-relative path: bytes, or
    None: deleted}), when the view reflected ``parent``: no git process for the next write."""
    changes = {rel: (blob_id(data) if data is not None else None) for rel, data in files.items() if is_memory_path(rel)}
    view.update(sidecar.db, commit, changes, since=parent or "")


def _memory_paths(ws: Workspace, entries: dict) -> dict:
    n = len(ws.prefix)
    return {top[n:]: e for top, e in entries.items() if top.startswith(ws.prefix) and is_memory_path(top[n:])}


def _fill_missing_blobs(ws: Workspace, sidecar: Sidecar, give_up: bool = False) -> None:
    found = []
    for rel, mtime_ns, size in view.missing_blobs(sidecar.db):
        if path_sig(ws.root / rel) != (mtime_ns, size):
            continue  # changed since its row was made: a refresh re-reads it (and records its blob)
        try:
            data = ws.disk_bytes(rel)
        except (VaultMemError, OSError):
            continue  # a link or a folder: never read; the row stays "differing" (its committed version is used)
        if data is not None:
            found.append((rel, blob_id(data), mtime_ns, size))
    if found:
        view.set_blobs(sidecar.db, found, give_up=give_up)
