"""The origins scan's working set, on disk: what :class:`vault_mem.vault.authors.Origins` finds
in the commits a fetch brought, kept in a private SQLite file while the scan runs, so the scan
holds a chunk of commits in memory whatever their number (a peer's push of 100,000 commits held
~3.2 KB per commit in Python's memory, 334 MB, before).

Three tables. ``givers``: each new text (git blob) with each commit that gave it, in the scan's
order (parents before children), and whether the commit was made here. ``arrivals``: when each
new commit was first named by a ref log here (:mod:`vault_mem.store.arrivals`), asked only when a
text or a line was given both here and by a peer. ``lines``: each counted line of the new texts
(its hash) with the text's place in the scan's order and its first giver, for the line's first
giver (:meth:`ScanScratch.line_firsts`). The file is made beside the sidecar (the state folder,
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
    CREATE TABLE lines (hash INTEGER NOT NULL, seq INTEGER NOT NULL, commit_id TEXT NOT NULL,
                        email TEXT NOT NULL, here INTEGER NOT NULL, at INTEGER);
    CREATE INDEX lines_hash ON lines(hash, here, seq);
    """


class ScanScratch:
    """One scan's working set (see the module). Every failure of the file is an
    :class:`~vault_mem.errors.IndexStoreError` (a full disk, no temporary folder)."""

    def __init__(self, folder: str | None = None) -> None:
        self.path, self.folder, self.rows = "", folder, 0
        #: whether the arrivals of the scan's new commits are in (asked once a scan)
        self.arrived = False
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

    def given_elsewhere(self, blob: str, commit: str) -> bool:
        """Whether ``commit`` is among the scan's commits but gave no path ``blob``: a text whose
        origin names it was noted so by a write (an agent's copy of that commit's line), not
        given by it."""
        if self._do("SELECT 1 FROM givers WHERE blob = ? AND commit_id = ? LIMIT 1", (blob, commit)).fetchone():
            return False
        return self._do("SELECT 1 FROM givers WHERE commit_id = ? LIMIT 1", (commit,)).fetchone() is not None

    def firsts(self, batch: int = 1000) -> Iterator[list[tuple[str, str, str]]]:
        """``(blob, commit, email)`` of each text's first giver in the scan's order, ``batch`` at a time."""
        # SQLite takes the bare columns of an aggregate query with one min() from the row that
        # holds the minimum; one pass over the index, in blob order
        cur = self._do("SELECT blob, commit_id, email, min(seq) FROM givers GROUP BY blob")
        while rows := cur.fetchmany(batch):
            yield [(str(b), str(c), str(e)) for b, c, e, _seq in rows]

    def texts_in_order(self, batch: int = 1000) -> Iterator[list[tuple[str, str, str, int, int | None]]]:
        """``(blob, commit, email, place, made here at)`` of each text in the scan's order (its first
        giver's, as :meth:`firsts`; ``made here at``: the earliest committer time of the commits
        made here that gave it, None when none did), ``batch`` at a time. Put in order once, then
        read a page at a time (no statement stays open while the caller adds rows: a move into a
        file then closes the connection it reads)."""
        try:
            self.conn.execute("BEGIN")
            self.conn.execute("CREATE TABLE ordered (n INTEGER PRIMARY KEY, blob TEXT, commit_id TEXT, email TEXT, "
                              "s INTEGER, t INTEGER)")
            self.conn.execute(
                "INSERT INTO ordered(blob, commit_id, email, s, t) SELECT blob, commit_id, email, min(seq) AS s, "
                "(SELECT min(CAST(g.at AS INTEGER)) FROM givers g WHERE g.blob = givers.blob AND g.here = 1) "
                "FROM givers GROUP BY blob ORDER BY s")
            self.conn.execute("COMMIT")
        except _errors() as exc:
            raise IndexStoreError(f"the origins scan's working file failed: {exc}") from exc
        after = 0
        while rows := self._do("SELECT n, blob, commit_id, email, s, t FROM ordered WHERE n > ? ORDER BY n LIMIT ?",
                               (after, batch)).fetchall():
            after = rows[-1][0]
            yield [(str(b), str(c), str(e), int(s), None if t is None else int(t)) for _n, b, c, e, s, t in rows]

    def lines_both(self) -> bool:
        """Whether a line is held both by a text made here and by one of a peer's."""
        return self._do("SELECT 1 FROM lines WHERE here = 1 AND hash IN (SELECT hash FROM lines WHERE here = 0) "
                        "LIMIT 1").fetchone() is not None

    def add_lines(self, rows: list[tuple[int, int, str, str, bool, int | None]]) -> None:
        """``(line hash, the text's place, commit, email, made here, made at)`` rows."""
        try:
            self.conn.execute("BEGIN")
            self.conn.executemany("INSERT INTO lines(hash, seq, commit_id, email, here, at) VALUES (?, ?, ?, ?, ?, ?)",
                                  [(h, s, c, e, int(here), t) for h, s, c, e, here, t in rows])
            self.conn.execute("COMMIT")
        except _errors() as exc:
            raise IndexStoreError(f"the origins scan's working file failed: {exc}") from exc
        self.rows += len(rows)
        self._spill()

    def line_firsts(self, batch: int = 1000) -> Iterator[list[tuple[int, str, str, bool, tuple[str, str, int | None] | None]]]:
        """``(line hash, commit, email, made here, here)`` for each line: its first giver in the
        scan's order, and, where that is a commit not made here, the first commit made here
        whose text holds the line too (``(commit, email, committer time or None)``, else None)."""
        cur = self._do(
            "SELECT f.hash, f.commit_id, f.email, f.here, l.commit_id, l.email, l.at FROM "
            "(SELECT hash, commit_id, email, here, min(seq) FROM lines GROUP BY hash) f LEFT JOIN "
            "(SELECT hash, commit_id, email, at, min(seq) FROM lines WHERE here = 1 GROUP BY hash) l "
            "ON l.hash = f.hash AND f.here = 0")
        while rows := cur.fetchmany(batch):
            yield [(int(h), str(c), str(e), bool(here), None if lc is None else (str(lc), str(le), lt))
                   for h, c, e, here, lc, le, lt in rows]

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
