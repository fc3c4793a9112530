"""SQLite driver, connection setup and schema migrations for the sidecar (``index.db``).

Driver choice (decided once per process, see :func:`driver`): the standard library's
:mod:`sqlite3` when it can load extensions and has FTS5 (Debian's and most Linux Pythons), else
``sqlean`` (PyPI ``sqlean.py``), a drop-in :mod:`sqlite3` replacement that bundles a recent
SQLite with FTS5. Pythons built without ``enable_load_extension`` (many pyenv and macOS builds,
this project's reference machine) tend to carry minimal or old SQLite builds; sqlean gives them a
known one. ``sqlean.py`` is a pinned dependency so that FTS5 never depends on how the user's
Python was built. (The rule was first meant for loading sqlite-vec; vectors no longer need an
extension, see below, and the rule is kept as the FTS5 guarantee.)

Vectors live in a plain table (``vectors``: one float32 BLOB per memory) and are searched in
process by :class:`vault_mem.vectors.VectorIndex`. sqlite-vec's ``vec0`` was measured at
110-190 ms per k=50 query over 100k rows on this project's reference machine (brute force),
against a 10 ms goal, so it is not used; the vector side therefore needs no SQLite extension
at all. ``VAULT_MEM_DISABLE_VEC=1`` turns vectors off (a real code path: recall then says it is
keyword-only and why); :attr:`Database.vec_ok` / :attr:`Database.vec_reason` report it.

Concurrency: WAL journal, ``busy_timeout`` of 15 s and ``BEGIN IMMEDIATE`` for every write
transaction, so a daemon and any number of CLI/MCP processes share one file without
"database is locked" errors (a writer waits for the lock instead of failing mid-transaction).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3 as _stdlib_sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

from .errors import IndexStoreError

log = logging.getLogger("vault_mem.index")

BUSY_TIMEOUT_MS = 15_000
DISABLE_VEC_ENV = "VAULT_MEM_DISABLE_VEC"
FORCE_DRIVER_ENV = "VAULT_MEM_SQLITE_DRIVER"  # "sqlite3" or "sqlean": for tests and debugging

_DRIVER: ModuleType | None = None


def _has_fts5(mod: ModuleType) -> bool:
    try:
        conn = mod.connect(":memory:")
        try:
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
            return True
        finally:
            conn.close()
    except Exception:  # noqa: BLE001 - any failure means "no FTS5"
        return False


def driver() -> ModuleType:
    """The DB-API module to use: stdlib sqlite3 if it loads extensions and has FTS5, else sqlean."""
    global _DRIVER
    if _DRIVER is not None:
        return _DRIVER
    forced = os.environ.get(FORCE_DRIVER_ENV, "")
    stdlib_ok = hasattr(_stdlib_sqlite3.Connection, "enable_load_extension") and _has_fts5(_stdlib_sqlite3)
    if forced != "sqlean" and (stdlib_ok or forced == "sqlite3"):
        _DRIVER = _stdlib_sqlite3
        return _DRIVER
    try:
        import sqlean  # type: ignore[import-not-found]
    except ImportError as exc:
        if _has_fts5(_stdlib_sqlite3):
            _DRIVER = _stdlib_sqlite3  # keywords still work; vectors will report why they are off
            return _DRIVER
        raise IndexStoreError(
            "this Python's sqlite3 has no FTS5 and the 'sqlean.py' package is missing; "
            "reinstall vault-mem (pip install vault-mem) to get it"
        ) from exc
    _DRIVER = sqlean
    return _DRIVER


def errors() -> tuple[type[BaseException], type[BaseException]]:
    """(DatabaseError, OperationalError) of the active driver (sqlean has its own classes)."""
    mod = driver()
    return mod.DatabaseError, mod.OperationalError


# ---------------------------------------------------------------------------------------------
# Schema. Vector tables (vec0) depend on the embedder's dimension and are created by index.py;
# everything else is here. Each migration runs inside one write transaction.


def _run_script(conn, script: str) -> None:
    """Execute statements one by one: ``executescript`` would COMMIT our BEGIN IMMEDIATE."""
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if driver().complete_statement(buf):
            conn.execute(buf)
            buf = ""
    if buf.strip():
        conn.execute(buf)


def m001_initial(conn) -> None:
    _run_script(
        conn,
        """
        CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE files (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,       -- vault-relative, POSIX
            key TEXT NOT NULL,
            type TEXT NOT NULL,
            type_rank INTEGER NOT NULL,      -- INDEX.md section order; 4 = note
            mtime_ns INTEGER NOT NULL,
            size INTEGER NOT NULL,
            sha256 TEXT NOT NULL,            -- of the bytes on disk now
            content_sha256 TEXT,             -- of the bytes the content columns come from
            has_content INTEGER NOT NULL DEFAULT 0,
            usable INTEGER NOT NULL DEFAULT 0,   -- has content and is not a duplicate key
            problem TEXT,                    -- why the file on disk cannot be used (NULL = ok)
            duplicate_of TEXT,               -- path of the file that owns this key, if not this one
            description TEXT, created TEXT, updated TEXT, sort_date TEXT,
            pinned INTEGER NOT NULL DEFAULT 0,
            expires TEXT, tags TEXT, scope TEXT, source TEXT, supersedes TEXT,
            body TEXT,
            embed_sha256 TEXT,               -- of the text given to the embedder
            vec_model TEXT                   -- model id of the stored vector; NULL = missing
        );
        CREATE INDEX files_key ON files(key);
        CREATE INDEX files_index_order ON files(pinned DESC, type_rank, sort_date DESC, key)
            WHERE usable = 1 AND type_rank < 4;
        CREATE INDEX files_expires ON files(expires) WHERE expires IS NOT NULL;
        CREATE INDEX files_problem ON files(problem) WHERE problem IS NOT NULL;
        CREATE INDEX files_vec_missing ON files(id) WHERE usable = 1 AND vec_model IS NULL;
        CREATE TABLE tags (file_id INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (tag, file_id))
            WITHOUT ROWID;
        CREATE INDEX tags_file ON tags(file_id);
        CREATE TABLE supersedes (file_id INTEGER NOT NULL, target TEXT NOT NULL,
            PRIMARY KEY (target, file_id)) WITHOUT ROWID;
        CREATE INDEX supersedes_file ON supersedes(file_id);
        CREATE TABLE embed_cache (
            model TEXT NOT NULL, text_sha256 TEXT NOT NULL, vector BLOB NOT NULL,
            PRIMARY KEY (model, text_sha256)) WITHOUT ROWID;
        CREATE VIRTUAL TABLE fts USING fts5(
            description, body, extra, tokenize = 'porter unicode61');
        """
    )


def m002_vectors(conn) -> None:
    """Vectors in a plain table searched in process (vec0 was too slow at 100k rows)."""
    _run_script(
        conn,
        """
        CREATE TABLE vectors (
            id INTEGER PRIMARY KEY,          -- files.id
            seq INTEGER NOT NULL,            -- change counter: readers refresh what changed
            vec BLOB                         -- float32 x dims; NULL = deleted (tombstone)
        );
        CREATE INDEX vectors_seq ON vectors(seq);
        CREATE INDEX files_duplicate ON files(duplicate_of) WHERE duplicate_of IS NOT NULL;
        UPDATE files SET vec_model = NULL;   -- refill from the embedding cache
        DELETE FROM meta WHERE name IN ('vec_model', 'vec_dims');
        """,
    )


def m003_covering_indexes(conn) -> None:
    """Indexes that answer the hot queries without reading the wide ``files`` rows (bodies):
    the reconcile scan (path, mtime, size), INDEX.md's count (with ``expires``), and the vector
    index load (type copied into ``vectors``)."""
    _run_script(
        conn,
        """
        CREATE INDEX files_stat ON files(path, mtime_ns, size);
        DROP INDEX files_index_order;
        CREATE INDEX files_index_order ON files(pinned DESC, type_rank, sort_date DESC, key, expires)
            WHERE usable = 1 AND type_rank < 4;
        ALTER TABLE vectors ADD COLUMN type TEXT;
        UPDATE vectors SET type = (SELECT f.type FROM files f WHERE f.id = vectors.id);
        """,
    )


def m004_conflict_of(conn) -> None:
    """``conflict_of``: the key a sync conflict copy belongs to (recall flags it "conflict",
    INDEX.md leaves it out). Rows are marked for a re-read so existing copies get it too."""
    _run_script(
        conn,
        """
        ALTER TABLE files ADD COLUMN conflict_of TEXT;
        UPDATE files SET mtime_ns = -1 WHERE key LIKE '%.conflict-%';
        """,
    )


MIGRATIONS: list[Callable] = [m001_initial, m002_vectors, m003_covering_indexes, m004_conflict_of]
SCHEMA_VERSION = len(MIGRATIONS)
#: tables each schema version must have (a file missing them is damaged, not merely old)
TABLES_BY_VERSION = {1: {"meta", "files", "tags", "supersedes", "embed_cache", "fts"}, 2: {"vectors"}}


# ---------------------------------------------------------------------------------------------


class Database:
    """One connection to ``index.db`` with vec status and a write-transaction helper.

    Autocommit mode (``isolation_level=None``): reads see the latest committed state, and writes
    are grouped explicitly with :meth:`write`.
    """

    def __init__(self, conn, *, path: Path, vec_ok: bool, vec_reason: str | None) -> None:
        self.conn = conn
        conn.row_factory = driver().Row
        self.path = path
        self.vec_ok = vec_ok
        self.vec_reason = vec_reason
        self._depth = 0

    def execute(self, sql: str, params=()):
        return self.conn.execute(sql, params)

    def executemany(self, sql: str, rows):
        return self.conn.executemany(sql, rows)

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rollback on error); nests as one transaction."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.conn.execute("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            self.conn.execute("ROLLBACK")
            raise
        self._depth = 0
        self.conn.execute("COMMIT")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


def _vectors_switch() -> tuple[bool, str | None]:
    if os.environ.get(DISABLE_VEC_ENV, "") not in ("", "0"):
        return False, f"vectors disabled by {DISABLE_VEC_ENV}=1"
    return True, None


def _raw_connect(path: Path):
    mod = driver()
    conn = mod.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                       check_same_thread=False)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _migrate(db: Database) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    if version > SCHEMA_VERSION:
        raise IndexStoreError(
            f"{db.path} was written by a newer vault-mem (schema {version} > {SCHEMA_VERSION}); "
            "upgrade vault-mem, or delete the file to rebuild it from the memory files"
        )
    with db.write():
        version = db.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
        for i in range(version, SCHEMA_VERSION):
            MIGRATIONS[i](db.conn)
            db.execute(f"PRAGMA user_version = {i + 1}")


def _check_schema(db: Database) -> None:
    """Cheap sanity check: reads the schema page; raises DatabaseError on garbage files."""
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    version = db.execute("PRAGMA user_version").fetchone()[0]
    expected = set().union(*(t for v, t in TABLES_BY_VERSION.items() if v <= version))
    if not expected <= names:
        raise driver().DatabaseError(f"schema is missing tables {sorted(expected - names)}")


def _open_once(path: Path, *, vec: bool) -> Database:
    conn = _raw_connect(path)
    try:
        if vec:
            vec_ok, vec_reason = _vectors_switch()
        else:
            vec_ok, vec_reason = False, "vectors not requested"
        db = Database(conn, path=path, vec_ok=vec_ok, vec_reason=vec_reason)
        _check_schema(db)
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        _migrate(db)
        return db
    except BaseException:
        conn.close()
        raise


def _quick_check_fails(path: Path) -> str | None:
    """Return the reason when ``path`` is damaged, None when it looks fine (e.g. only locked)."""
    try:
        conn = _raw_connect(path)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
        finally:
            conn.close()
    except driver().OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            return None
        return str(exc)
    except driver().DatabaseError as exc:
        return str(exc)
    if rows != ["ok"]:
        return "; ".join(rows[:3])
    return None


def move_aside(path: Path, reason: str) -> Path:
    """Rename a damaged ``index.db`` (and its -wal/-shm) to ``index.db.corrupt-<ts>``."""
    target = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    os.replace(path, target)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            with contextlib.suppress(OSError):
                os.replace(side, target.with_name(target.name + suffix))
    log.warning("index database %s is damaged (%s); moved it to %s and rebuilding from the memory files",
                path, reason, target.name)
    return target


def is_damage(exc: BaseException) -> bool:
    """True for errors that mean the file is damaged (not merely busy or misused)."""
    text = str(exc).lower()
    return any(x in text for x in ("malformed", "not a database", "disk image", "database corrupt"))


def repair(path: Path, reason: str) -> None:
    """Move a database found damaged while in use aside (once, under the repair lock)."""
    lock_path = path.with_name(path.name + ".repair.lock")
    with open(lock_path, "a+") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            if path.exists() and _quick_check_fails(path) is not None:
                move_aside(path, reason)
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def connect(path: Path, *, vec: bool = True) -> Database:
    """Open (creating or migrating) the sidecar at ``path``.

    A file that is not a usable SQLite database is moved aside and a fresh one is created; the
    caller rebuilds it from the memory files (the sidecar holds nothing that is not derived).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    db_error, _ = errors()
    try:
        return _open_once(path, vec=vec)
    except IndexStoreError:
        raise
    except db_error as exc:
        first_error = exc
    # Something is wrong. Repair under an exclusive lock so two processes never both move files.
    lock_path = path.with_name(path.name + ".repair.lock")
    with open(lock_path, "a+") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            reason = _quick_check_fails(path) if path.exists() else None
            if reason is None and path.exists():
                try:
                    return _open_once(path, vec=vec)
                except db_error as exc:
                    reason = str(exc) or str(first_error)
            if reason is not None and path.exists():
                move_aside(path, reason)
            try:
                return _open_once(path, vec=vec)
            except db_error as exc:
                raise IndexStoreError(
                    f"cannot open the index database {path} ({exc}); check the folder's permissions "
                    "and free disk space, or delete the file to rebuild it"
                ) from exc
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)
