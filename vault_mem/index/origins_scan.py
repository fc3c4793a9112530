"""The origins scan's working set, on disk: what :class:`vault_mem.vault.authors.Origins` finds
in the commits a fetch brought, kept in a private SQLite file while the scan runs, so the scan
holds a chunk of commits in memory whatever their number (a peer's push of 100,000 commits held
~3.2 KB per commit in Python's memory, 334 MB, before).

Two tables. ``givers``: each new text (git blob) with each commit that gave it, in the scan's
order (parents before children), and whether the commit was made here. ``arrivals``: when each
new commit was first named by a ref log here (:mod:`vault_mem.store.arrivals`), asked only when a
text was given both here and by a peer. The file is made beside the sidecar (the state folder,
on the vault's disk: a temporary folder may be memory, tmpfs), else in the system's temporary
folder, with mode 0600, once the working set holds :data:`SPILL_ROWS` rows (until then it is in
memory: the scan of a write's own commit makes no file); it holds commit ids and emails, and is
deleted when the scan ends (:meth:`ScanScratch.close`).
Not the sidecar: the scan's working set is thrown away, only its answer (``origins``) is kept.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator

from vault_mem.errors import IndexStoreError
from vault_mem.index.db import driver

__all__ = ["ScanScratch"]

#: the page cache of the working file, in KiB (SQLite's ``cache_size`` when negative): what it
#: holds in memory at most, whatever the number of rows
CACHE_KIB = 2048
#: rows the working set holds in memory before it moves into a file (~150 bytes each: ~3 MB)
SPILL_ROWS = 20_000

_PRAGMAS = f"""
    PRAGMA journal_mode = OFF;
    PRAGMA synchronous = OFF;
    PRAGMA temp_store = FILE;
    PRAGMA cache_size = -{CACHE_KIB};
    """
_SCHEMA = _PRAGMAS + """
    CREATE TABLE givers (seq INTEGER PRIMARY KEY, blob TEXT NOT NULL, commit_id TEXT NOT NULL,
                         email TEXT NOT NULL, at TEXT NOT NULL, here INTEGER NOT NULL);
    CREATE INDEX givers_blob ON givers(blob, here, seq);
    CREATE TABLE arrivals (commit_id TEXT PRIMARY KEY, at REAL NOT NULL) WITHOUT ROWID;
    """


class ScanScratch:
    """One scan's working set (see the module). Every failure of the file is an
    :class:`~vault_mem.errors.IndexStoreError` (a full disk, no temporary folder)."""

    def __init__(self, folder: str | None = None) -> None:
        self.path, self.folder, self.rows = "", folder, 0
        try:
            # in memory until it holds SPILL_ROWS rows: a write's scan of its own commit (every
            # agent write moves a ref) makes no file, and imports nothing to make one
            self.conn = driver().connect(":memory:", isolation_level=None)
            self.conn.executescript(_SCHEMA)
        except _errors() as exc:
            self.close()
            raise IndexStoreError(f"the origins scan cannot keep its working set: {exc}") from exc

    def _spill(self) -> None:
        """Move the working set into a file once it holds :data:`SPILL_ROWS` rows (see the
        module): from then on its memory is SQLite's page cache, :data:`CACHE_KIB`."""
        if self.path or self.rows < SPILL_ROWS:
            return
        import tempfile  # lazy: only a scan this big needs it

        try:
            try:
                fd, self.path = tempfile.mkstemp(prefix="origins-scan-", suffix=".db", dir=self.folder)
            except OSError:  # a read-only state folder: the system's temporary one
                fd, self.path = tempfile.mkstemp(prefix="vault-mem-origins-scan-", suffix=".db")
            os.close(fd)  # mkstemp: 0600, whatever the umask
            on_disk = driver().connect(self.path, isolation_level=None)
            on_disk.executescript(_PRAGMAS)
            self.conn.backup(on_disk)
        except (OSError, *_errors()) as exc:
            self.close()
            raise IndexStoreError(f"the origins scan cannot keep its working file: {exc}") from exc
        self.conn.close()
        self.conn = on_disk
        self.conn.executescript(_PRAGMAS)  # the backup replaced the file's pages, not its connection's settings

    def close(self) -> None:
        """Close and delete the file (again: nothing)."""
        conn = getattr(self, "conn", None)
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()
            self.conn = None
        if self.path:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            self.path = ""

    def __enter__(self) -> ScanScratch:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _do(self, sql: str, params=()):
        try:
            return self.conn.execute(sql, params)
        except _errors() as exc:
            raise IndexStoreError(f"the origins scan's working file failed: {exc}") from exc

    def add_givers(self, rows: list[tuple[str, str, str, int, bool]]) -> None:
        """``(blob, commit, email, committer time, made here)`` rows, in the scan's order."""
        try:
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT INTO givers(blob, commit_id, email, at, here) VALUES (?, ?, ?, ?, ?)",
                                  # the time as text: a peer's commit may carry any (2^64 - 1, past SQLite's integers)
                                  [(b, c, e, str(w), int(h)) for b, c, e, w, h in rows])
            self.conn.execute("COMMIT")
        except _errors() as exc:
            raise IndexStoreError(f"the origins scan's working file failed: {exc}") from exc
        self.rows += len(rows)
        self._spill()

    def both(self) -> list[str]:
        """The texts given both here and by a commit not made here, in the order each was first
        given. Bounded by the commits made here: at most one per text those gave."""
        return [r[0] for r in self._do(
            "SELECT blob FROM givers WHERE blob IN (SELECT blob FROM givers WHERE here = 1) "
            "GROUP BY blob HAVING min(here) = 0 ORDER BY min(seq)")]

    def givers(self, blob: str, *, here: bool) -> Iterator[tuple[str, str, int]]:
        """``(commit, email, committer time)`` of the commits made here (``here``) or not that gave
        ``blob``, in the scan's order, read a few at a time."""
        cur = self._do("SELECT commit_id, email, at FROM givers WHERE blob = ? AND here = ? ORDER BY seq",
                       (blob, int(here)))
        while batch := cur.fetchmany(256):
            yield from ((str(c), str(e), int(w)) for c, e, w in batch)

    def firsts(self, batch: int = 1000) -> Iterator[list[tuple[str, str, str]]]:
        """``(blob, commit, email)`` of each text's first giver in the scan's order, ``batch`` at a time."""
        # SQLite takes the bare columns of an aggregate query with one min() from the row that
        # holds the minimum; one pass over the index, in blob order
        cur = self._do("SELECT blob, commit_id, email, min(seq) FROM givers GROUP BY blob")
        while rows := cur.fetchmany(batch):
            yield [(str(b), str(c), str(e)) for b, c, e, _seq in rows]

    def add_arrivals(self, rows: Iterable[tuple[str, float]]) -> None:
        """``(commit, when first named here)``; a commit with a time keeps it (the first wins)."""
        try:
            self.conn.execute("BEGIN")
            before = self.conn.total_changes
            self.conn.executemany("INSERT OR IGNORE INTO arrivals(commit_id, at) VALUES (?, ?)", rows)
            self.conn.execute("COMMIT")
        except _errors() as exc:
            raise IndexStoreError(f"the origins scan's working file failed: {exc}") from exc
        self.rows += self.conn.total_changes - before
        self._spill()

    def arrival(self, commit: str) -> float | None:
        """When ``commit`` was first named here, or None (no ref log named it)."""
        row = self._do("SELECT at FROM arrivals WHERE commit_id = ?", (commit,)).fetchone()
        return None if row is None else float(row[0])


def _errors() -> tuple[type[BaseException], ...]:
    mod = driver()
    return (mod.Error,)
