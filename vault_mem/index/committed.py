"""The committed view, kept in the sidecar (table ``committed``): each memory path's blob id at
one commit (meta ``committed_at``), next to ``files.blob``, the blob id of the bytes each row was
read from.

A row whose blob differs from the committed one (or a path only one side has) holds a version no
commit holds there: a person's uncommitted edit, new file or delete, or an edit a read indexed
and the person undid since. :func:`differing` lists them, so an agent commit's INDEX.md is made
from the committed tree without asking ``git status`` which files differ. The view is brought to
a commit by :mod:`vault_mem.vault.committed` (which runs git: a diff of the commits in between);
this module only stores and reads it (the one home of its SQL, but for the triggers that keep
the table ``differs``, the paths where the two disagree: :func:`vault_mem.index.db.m012_committed_view`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from vault_mem.index.db import Database

__all__ = ["AT_META", "differing", "gone", "missing_blobs", "replace", "set_blobs", "stored_at", "update"]

AT_META = "committed_at"


def stored_at(db: Database) -> str | None:
    """The commit the view reflects, or None (never built)."""
    return db.get_meta(AT_META)


def _set_at(db: Database, commit: str) -> None:
    db.set_meta(AT_META, commit)


def replace(db: Database, commit: str, blobs: dict[str, str], *, give_up: bool = False) -> None:
    """The whole view anew: ``{vault-relative path: blob id}`` of every memory file ``commit`` holds.
    ``give_up``: a read's (:meth:`~vault_mem.index.db.Database.write`)."""
    with db.write(give_up=give_up):
        db.execute("DELETE FROM committed")
        db.executemany("INSERT INTO committed(path, blob) VALUES (?, ?)", sorted(blobs.items()))
        _set_at(db, commit)


def update(db: Database, commit: str, changes: dict[str, str | None], *, since: str | None = None,
           give_up: bool = False) -> bool:
    """Move the view to ``commit`` by ``changes`` (``{path: blob id, or None: not in it}``), the
    differences between the commit it reflects and ``commit``. With ``since``, only while it
    still reflects that commit (False: it did not; nothing changed). ``give_up``: a read's
    (:meth:`~vault_mem.index.db.Database.write`)."""
    with db.write(give_up=give_up):
        if since is not None and stored_at(db) != since:
            return False
        db.executemany("DELETE FROM committed WHERE path = ?", [(p,) for p, b in changes.items() if b is None])
        db.executemany("INSERT OR REPLACE INTO committed(path, blob) VALUES (?, ?)",
                       [(p, b) for p, b in changes.items() if b is not None])
        _set_at(db, commit)
    return True


def differing(db: Database) -> list[str]:
    """The paths whose row holds a version the view's commit does not (a row never read for its
    blob counts as differing), and those the commit holds that have no row."""
    # ``differs`` is kept by triggers on both tables (index/db.py, m012): no pass over every row
    return [r[0] for r in db.execute("SELECT path FROM differs ORDER BY path")]


def gone(db: Database) -> list[str]:
    """The paths the view's commit holds that have no row (gone from the disk, as the last
    reconcile saw it): read from ``differs``, never by a pass over every row."""
    return [r[0] for r in db.execute(
        "SELECT d.path FROM differs d WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = d.path) "
        "AND EXISTS (SELECT 1 FROM committed c WHERE c.path = d.path) ORDER BY d.path")]


#: every write asks it: answered from the partial index ``files_blob_missing`` (m013), never by
#: reading every row
MISSING_BLOBS_SQL = "SELECT path, mtime_ns, size FROM files WHERE blob IS NULL"


def missing_blobs(db: Database) -> list[tuple[str, int, int]]:
    """``(path, mtime_ns, size)`` of the rows with no blob id (indexed by an older vault-mem)."""
    return [(r[0], r[1], r[2]) for r in db.execute(MISSING_BLOBS_SQL)]


def set_blobs(db: Database, blobs: Iterable[tuple[str, str, int, int]], *, give_up: bool = False) -> None:
    """Record ``(path, blob, mtime_ns, size)``: the blob of a row whose file still matches it.
    ``give_up``: a read's (:meth:`~vault_mem.index.db.Database.write`)."""
    with db.write(give_up=give_up):
        db.executemany("UPDATE files SET blob = ? WHERE path = ? AND mtime_ns = ? AND size = ? AND blob IS NULL",
                       [(b, p, m, s) for p, b, m, s in blobs])
