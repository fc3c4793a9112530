"""SQLite driver, connection setup and schema migrations for the sidecar (``index.db``).

Driver choice (decided once per process, see :func:`driver`): the standard library's
:mod:`sqlite3` when it can load extensions and has FTS5 (Debian's and most Linux Pythons), else
``sqlean`` (PyPI ``sqlean.py``), a drop-in :mod:`sqlite3` replacement that bundles a recent
SQLite with FTS5 and extension loading. Pythons built without ``enable_load_extension`` (many
pyenv and macOS builds, this project's reference machine) cannot load sqlite-vec themselves;
sqlean gives them a SQLite that can. Both packages are pinned dependencies.

Vectors live in a sqlite-vec ``vec0`` table (see :mod:`vault_mem.index.vectors`), so each connection
loads the extension (:func:`_load_vec`). When it cannot be loaded, or ``VAULT_MEM_DISABLE_VEC=1``
is set, :attr:`Database.vec_ok` is False and :attr:`Database.vec_reason` says why: recall then
works on keywords and says so, never silently.

Concurrency: WAL journal, ``busy_timeout`` of 15 s and ``BEGIN IMMEDIATE`` for every write
transaction, so a daemon and any number of CLI/MCP processes share one file without
"database is locked" errors (a writer waits for the lock instead of failing mid-transaction).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sqlite3 as _stdlib_sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

from vault_mem.errors import IndexStoreError, VaultMemError
from vault_mem.platform.logs import Logger
from vault_mem.platform.packages import install_command
from vault_mem.store.files import (
    PRIVATE_FILE,
    atomic_write,
    ensure_own_dir,
    make_private,
    open_nofollow,
    read_own,
    read_only_mount_reason,
    refuse_link,
)
from vault_mem.store.trust import seal, unseal
from vault_mem.platform import locking

log = Logger("vault_mem.index.sidecar")  # logging imported at the first message (start-up time)

BUSY_TIMEOUT_MS = 15_000
MMAP_BYTES = 1 << 30
COMPACT_FREE_BYTES = 64 << 20
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
            f"install it: {install_command('sqlean.py')}"
        ) from exc
    _DRIVER = sqlean
    return _DRIVER


def errors() -> tuple[type[BaseException], type[BaseException]]:
    """(DatabaseError, OperationalError) of the active driver (sqlean has its own classes)."""
    mod = driver()
    return mod.DatabaseError, mod.OperationalError


def database_error() -> type[BaseException]:
    """The active driver's DatabaseError (every SQLite failure, OperationalError included):
    what ``except`` clauses around the sidecar's SQL catch."""
    return driver().DatabaseError


# ---------------------------------------------------------------------------------------------
# Schema. Vector tables (vec0) depend on the embedder's dimension and are created by vectors.py;
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


#: The keyword index: a regular (not external-content) FTS5 table whose rowid is ``files.id``.
#: Its rows are derived from ``files`` (description, body, key/tags/date words), so a damaged one
#: is dropped and refilled from there (:func:`recreate_fts`, ``Sidecar.repair_fts``).
FTS_DDL = """CREATE VIRTUAL TABLE fts USING fts5(
            description, body, extra, tokenize = 'porter unicode61')"""


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
        """ + FTS_DDL + ";\n",
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


def m005_sqlite_vec(conn) -> None:
    """Vectors move to a sqlite-vec ``vec0`` table (made by vectors.py once the embedder's
    dimension is known, refilled from the embedding cache); ``vector_log`` keeps the change
    counter that in-memory copies refresh from."""
    _run_script(
        conn,
        """
        DROP TABLE vectors;
        CREATE TABLE vector_log (
            id INTEGER PRIMARY KEY,          -- files.id
            seq INTEGER NOT NULL,            -- change counter: readers refresh what changed
            live INTEGER NOT NULL            -- 1 stored, 0 gone, -1 gone but still in vec_items
        );
        CREATE INDEX vector_log_seq ON vector_log(seq);
        CREATE INDEX vector_log_stale ON vector_log(id) WHERE live = -1;
        UPDATE files SET vec_model = NULL;
        DELETE FROM meta WHERE name IN ('vec_model', 'vec_dims');
        """,
    )


def m006_embed_cache_rowid(conn) -> None:
    """The embedding cache as a rowid table: a WITHOUT ROWID table keeps its rows in index
    pages, where a 1.5 KB vector does not fit well; 100k cached vectors took 469 MB that way
    and take 217 MB now, and a lookup by key is faster (``python bench/bench_sqlite_vec.py``)."""
    _run_script(
        conn,
        """
        CREATE TABLE embed_cache_new (
            id INTEGER PRIMARY KEY, model TEXT NOT NULL, text_sha256 TEXT NOT NULL, vector BLOB NOT NULL,
            UNIQUE (model, text_sha256));
        INSERT INTO embed_cache_new(model, text_sha256, vector) SELECT model, text_sha256, vector FROM embed_cache;
        DROP TABLE embed_cache;
        ALTER TABLE embed_cache_new RENAME TO embed_cache;
        """,
    )


def fts_problem(db: Database) -> str | None:
    """Why the keyword index is damaged (FTS5's own ``integrity-check``, which reads every
    segment and, with rank 1, compares the index with the stored text), or None when it is
    sound. O(index): for ``doctor`` and for repairs, never on the query path."""
    db_error = database_error()
    try:
        db.execute("INSERT INTO fts(fts, rank) VALUES('integrity-check', 1)")
    except db_error as exc:
        if is_busy(exc) or is_read_only(exc):
            return None  # not damage: another writer holds the file, or it cannot be written here
        return f"FTS5 integrity-check failed: {exc}"
    return None


def recreate_fts(db: Database) -> None:
    """Drop the keyword index and make it anew, empty (inside the caller's write transaction).

    DROP TABLE deletes FTS5's shadow tables without reading their content, so it works on a
    damaged index; if it cannot, the table is taken out of the schema by hand."""
    db_error = database_error()
    try:
        db.execute("DROP TABLE IF EXISTS fts")
    except db_error as exc:
        log.warning("vault-mem: FTS5 cannot drop its damaged table (%s); removing it by hand", exc)
        db.execute("PRAGMA writable_schema = ON")
        try:
            db.execute("DELETE FROM sqlite_master WHERE name = 'fts'")
        finally:
            db.execute("PRAGMA writable_schema = OFF")
        db.execute("PRAGMA writable_schema = RESET")
        for name in [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                              "AND substr(name, 1, 4) = 'fts_'")]:
            db.execute(f'DROP TABLE "{name}"')
    db.execute(FTS_DDL)


def listable_sql(alias: str = "") -> str:
    """A memory INDEX.md can list, before the date-dependent rules (expired, superseded): the
    rows the ``index_listed`` counter counts. A 0/1 expression over NOT NULL columns (and an
    IS NULL test), so never NULL; ``alias`` is a table prefix such as ``"f."`` or ``"new."``."""
    return f"({alias}usable = 1 AND {alias}type_rank < 4 AND {alias}conflict_of IS NULL)"


INDEX_LISTED = "index_listed"


def m007_index_counter(conn) -> None:
    """A counter of the rows INDEX.md can list, kept by triggers, so that INDEX.md's "+N more"
    line costs no scan of every row: counting them took ~5 ms per write at 10k memories and grew
    with the vault (a lookup in ``files`` per row for ``conflict_of``); the counter minus the few
    expired and superseded rows is the same number (``bench/bench_remember.py``). Safe to run
    again over a file that has them (a schema version set back by hand)."""
    new, old = listable_sql("new."), listable_sql("old.")
    _run_script(
        conn,
        f"""
        CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
        INSERT OR REPLACE INTO counters(name, n) SELECT '{INDEX_LISTED}', count(*) FROM files WHERE {listable_sql()};
        CREATE TRIGGER IF NOT EXISTS files_listed_insert AFTER INSERT ON files WHEN {new}
        BEGIN UPDATE counters SET n = n + 1 WHERE name = '{INDEX_LISTED}'; END;
        CREATE TRIGGER IF NOT EXISTS files_listed_delete AFTER DELETE ON files WHEN {old}
        BEGIN UPDATE counters SET n = n - 1 WHERE name = '{INDEX_LISTED}'; END;
        CREATE TRIGGER IF NOT EXISTS files_listed_update AFTER UPDATE OF usable, type_rank, conflict_of ON files
        WHEN {new} != {old}
        BEGIN UPDATE counters SET n = n + {new} - {old} WHERE name = '{INDEX_LISTED}'; END;
        """,
    )


def m008_floor_calibration(conn) -> None:
    """The relevance floor's null sample per embedder model (``index/floor.py``): the best
    cosines of the built-in off-topic probes against this vault, with the vector generation
    (``vec_epoch`` and ``vector_log`` seq) it was measured on, so a changed vault recalibrates."""
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS floor_calibration (
            model TEXT PRIMARY KEY, epoch TEXT NOT NULL, seq INTEGER NOT NULL,
            vectors INTEGER NOT NULL, null_sims TEXT NOT NULL, made TEXT NOT NULL);
        """,
    )


def listed_counter(type_rank: int | None = None) -> str:
    """The ``counters`` row of INDEX.md's listable memories: all of them, or one section's."""
    return INDEX_LISTED if type_rank is None else f"{INDEX_LISTED}:{type_rank}"


def m009_index_counter_by_type(conn) -> None:
    """One counter per INDEX.md section besides the total, kept by triggers the same way: each
    section has its own "+N more" line, which must cost no scan of the section's rows either.
    Safe to run again."""
    new, old = listable_sql("new."), listable_sql("old.")
    name_new, name_old = f"'{INDEX_LISTED}:' || new.type_rank", f"'{INDEX_LISTED}:' || old.type_rank"
    _run_script(
        conn,
        f"""
        INSERT OR REPLACE INTO counters(name, n) SELECT '{INDEX_LISTED}:' || r.rank,
            (SELECT count(*) FROM files WHERE {listable_sql()} AND type_rank = r.rank)
            FROM (SELECT 0 AS rank UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3) r;
        CREATE TRIGGER IF NOT EXISTS files_listed_type_insert AFTER INSERT ON files WHEN {new}
        BEGIN UPDATE counters SET n = n + 1 WHERE name = {name_new}; END;
        CREATE TRIGGER IF NOT EXISTS files_listed_type_delete AFTER DELETE ON files WHEN {old}
        BEGIN UPDATE counters SET n = n - 1 WHERE name = {name_old}; END;
        CREATE TRIGGER IF NOT EXISTS files_listed_type_update AFTER UPDATE OF usable, type_rank, conflict_of ON files
        WHEN {new} != {old} OR new.type_rank != old.type_rank
        BEGIN
            UPDATE counters SET n = n - {old} WHERE name = {name_old};
            UPDATE counters SET n = n + {new} WHERE name = {name_new};
        END;
        """,
    )


def m010_change_dates(conn) -> None:
    """``changes``: when a memory's content last changed, per vault-relative path, where a hand
    edit left its ``updated:`` date behind (a person's commit, or the file's time while the edit
    is uncommitted); its age counts from the later of the two. Kept apart from ``files``: it
    comes from git and file times, not from the file. Safe to run again."""
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS changes (
            path TEXT PRIMARY KEY,   -- vault-relative, POSIX
            changed TEXT NOT NULL    -- ISO date
        ) WITHOUT ROWID;
        """,
    )


def m011_authors(conn) -> None:
    """Who last changed each committed file (``vault_mem.index.authors``): the author of the
    commit that gave the path its committed blob, kept per vault-relative path, and the commit
    it was worked out for (meta ``authors_head``). Safe to run again."""
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS authors (
            path TEXT PRIMARY KEY,   -- vault-relative, POSIX
            commit_id TEXT NOT NULL,
            email TEXT NOT NULL,
            name TEXT NOT NULL,
            blob TEXT NOT NULL       -- the committed blob: a file that differs was changed here
        );
        CREATE INDEX IF NOT EXISTS authors_email ON authors(email);
        """,
    )


def m012_committed_view(conn) -> None:
    """The committed view (``vault_mem.index.committed``): ``files.blob``, the git blob id of the
    bytes each row was read from, and ``committed``, each memory path's blob at the commit meta
    ``committed_at`` names; a row whose blob differs is a version no commit holds there. Existing
    rows get their blob from the file when it still matches them (``vault_mem.vault.committed``).
    ``differs`` lists the paths where the two disagree, kept by triggers on both tables, so a
    write reads the few that differ instead of comparing every row. Safe to run again."""
    cols = {r[1] for r in conn.execute("PRAGMA table_info(files)")}
    if "blob" not in cols:
        conn.execute("ALTER TABLE files ADD COLUMN blob TEXT")
    # a path differs when the two blobs are not the same, or its row has none (never read)
    check = """
            DELETE FROM differs WHERE path = {p};
            INSERT INTO differs(path) SELECT {p} WHERE
                (SELECT blob FROM files WHERE path = {p}) IS NOT (SELECT blob FROM committed WHERE path = {p})
                OR EXISTS (SELECT 1 FROM files WHERE path = {p} AND blob IS NULL);"""
    triggers = "".join(
        f"""
        CREATE TRIGGER IF NOT EXISTS {name} AFTER {event} ON {table} BEGIN{check.format(p=f"{row}.path")}
        END;"""
        for name, event, table, row in (
            ("files_differs_insert", "INSERT", "files", "NEW"), ("files_differs_update", "UPDATE OF blob, path", "files", "NEW"),
            ("files_differs_update_old", "UPDATE OF path", "files", "OLD"), ("files_differs_delete", "DELETE", "files", "OLD"),
            ("committed_differs_insert", "INSERT", "committed", "NEW"),
            ("committed_differs_update", "UPDATE", "committed", "NEW"),
            ("committed_differs_delete", "DELETE", "committed", "OLD")))
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS committed (
            path TEXT PRIMARY KEY,   -- vault-relative, POSIX
            blob TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS differs (path TEXT PRIMARY KEY) WITHOUT ROWID;
        DELETE FROM differs;
        INSERT INTO differs(path)
            SELECT f.path FROM files f LEFT JOIN committed c ON c.path = f.path
                WHERE f.blob IS NULL OR c.blob IS NULL OR f.blob != c.blob
            UNION SELECT c.path FROM committed c WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.path = c.path);
        """ + triggers,
    )


def m013_missing_blobs_index(conn) -> None:
    """An index of the rows with no blob id: every write asks for them
    (``vault_mem.index.committed.missing_blobs``), and without it SQLite read every row of
    ``files`` to find the few (or none) an older vault-mem left: a write's cost grew with the
    vault. Safe to run again."""
    conn.execute("CREATE INDEX IF NOT EXISTS files_blob_missing ON files(path) WHERE blob IS NULL")


#: the counter m014's triggers move whenever a row's (path, mtime_ns, size) changes
FILES_SCAN_GENERATION = "files_scan"


def m014_scan_generation(conn) -> None:
    """A counter moved by every change of a row's ``path``, ``mtime_ns`` or ``size``, whoever
    makes it (``vault_mem.index.scansum``): a scan sum recorded at one value of it holds only while
    the counter stays there, so a read trusts the sum only when no row changed in a way the
    sum was not brought along with. A path change counts twice (one path gone, one new). Safe
    to run again."""
    bump = f"UPDATE counters SET n = n + {{by}} WHERE name = '{FILES_SCAN_GENERATION}'"
    _run_script(
        conn,
        f"""
        INSERT OR IGNORE INTO counters(name, n) VALUES ('{FILES_SCAN_GENERATION}', 0);
        CREATE TRIGGER IF NOT EXISTS files_scan_insert AFTER INSERT ON files
        BEGIN {bump.format(by=1)}; END;
        CREATE TRIGGER IF NOT EXISTS files_scan_delete AFTER DELETE ON files
        BEGIN {bump.format(by=1)}; END;
        CREATE TRIGGER IF NOT EXISTS files_scan_update AFTER UPDATE OF path, mtime_ns, size ON files
        WHEN old.path IS NOT new.path OR old.mtime_ns IS NOT new.mtime_ns OR old.size IS NOT new.size
        BEGIN {bump.format(by="CASE WHEN old.path IS NOT new.path THEN 2 ELSE 1 END")}; END;
        """,
    )


def m015_origins(conn) -> None:
    """Where each text was first seen (``vault_mem.index.authors``): per blob id, the first commit
    this repository knew that gave some path that blob, and its author email, so a peer's text
    committed again here (a cherry-pick, a squash, a file copied) stays the peer's. The meta
    rows ``origins_stamp`` and ``origins_tips`` say which refs the table reflects. Derived
    state; safe to run again."""
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS origins (
            blob TEXT PRIMARY KEY,
            commit_id TEXT NOT NULL,
            email TEXT NOT NULL
        ) WITHOUT ROWID;
        -- the committed memory paths whose blob was first seen in another commit than the one
        -- that gave the path that blob: kept by triggers, so a read asks a handful of rows
        -- (a join of 100k authors with origins cost ~180 ms of CPU on every read)
        CREATE TABLE IF NOT EXISTS foreign_texts (path TEXT PRIMARY KEY) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS authors_blob ON authors(blob);
        CREATE TRIGGER IF NOT EXISTS authors_foreign_insert AFTER INSERT ON authors BEGIN
            DELETE FROM foreign_texts WHERE path = NEW.path;
            INSERT OR IGNORE INTO foreign_texts(path) SELECT NEW.path WHERE EXISTS
                (SELECT 1 FROM origins o WHERE o.blob = NEW.blob AND o.commit_id != NEW.commit_id);
        END;
        CREATE TRIGGER IF NOT EXISTS authors_foreign_update AFTER UPDATE ON authors BEGIN
            DELETE FROM foreign_texts WHERE path IN (OLD.path, NEW.path);
            INSERT OR IGNORE INTO foreign_texts(path) SELECT NEW.path WHERE EXISTS
                (SELECT 1 FROM origins o WHERE o.blob = NEW.blob AND o.commit_id != NEW.commit_id);
        END;
        CREATE TRIGGER IF NOT EXISTS authors_foreign_delete AFTER DELETE ON authors BEGIN
            DELETE FROM foreign_texts WHERE path = OLD.path;
        END;
        CREATE TRIGGER IF NOT EXISTS origins_foreign_insert AFTER INSERT ON origins BEGIN
            INSERT OR IGNORE INTO foreign_texts(path)
                SELECT a.path FROM authors a WHERE a.blob = NEW.blob AND a.commit_id != NEW.commit_id;
        END;
        """,
    )


#: how many entries :func:`m016_judge_log`'s log keeps at least (older ones are dropped as new
#: ones come, by the batch since m017: :data:`JUDGE_LOG_PRUNED_EVERY`): a reader that last looked
#: further back than that judges anew
JUDGE_LOG_KEPT = 20000


def m016_judge_log(conn) -> None:
    """A log of the rows the peers' judgement reads (``vault_mem.vault.peers``), kept by triggers
    whoever writes: each change of a ``files`` row's path, blob or ``usable``, of an ``authors``
    row, of ``differs`` and ``foreign_texts`` names its path; each new ``origins`` row (or one deleted or
    changed) names its blob. A process that judged the peers' memories at one ``seq`` reads the entries since and
    judges those paths alone again, instead of every memory (~1.8 s at 100k, issue 29). Only the
    newest :data:`JUDGE_LOG_KEPT` entries are kept. Derived state; safe to run again."""
    log_path = "INSERT INTO judge_log(path) VALUES ({p})"
    triggers = [
        ("files_judge_insert", "AFTER INSERT ON files", "", log_path.format(p="NEW.path")),
        ("files_judge_delete", "AFTER DELETE ON files", "", log_path.format(p="OLD.path")),
        ("files_judge_update", "AFTER UPDATE OF path, blob, usable ON files",
         "WHEN OLD.path IS NOT NEW.path OR OLD.blob IS NOT NEW.blob OR OLD.usable IS NOT NEW.usable",
         log_path.format(p="OLD.path") + "; " + log_path.format(p="NEW.path")),
        ("authors_judge_insert", "AFTER INSERT ON authors", "", log_path.format(p="NEW.path")),
        ("authors_judge_delete", "AFTER DELETE ON authors", "", log_path.format(p="OLD.path")),
        ("authors_judge_update", "AFTER UPDATE ON authors", "",
         log_path.format(p="OLD.path") + "; " + log_path.format(p="NEW.path")),
        ("differs_judge_insert", "AFTER INSERT ON differs", "", log_path.format(p="NEW.path")),
        ("differs_judge_delete", "AFTER DELETE ON differs", "", log_path.format(p="OLD.path")),
        ("foreign_judge_insert", "AFTER INSERT ON foreign_texts", "", log_path.format(p="NEW.path")),
        ("foreign_judge_delete", "AFTER DELETE ON foreign_texts", "", log_path.format(p="OLD.path")),
        ("origins_judge_insert", "AFTER INSERT ON origins", "", "INSERT INTO judge_log(blob) VALUES (NEW.blob)"),
        ("origins_judge_delete", "AFTER DELETE ON origins", "", "INSERT INTO judge_log(blob) VALUES (OLD.blob)"),
        ("origins_judge_update", "AFTER UPDATE ON origins", "",
         "INSERT INTO judge_log(blob) VALUES (OLD.blob); INSERT INTO judge_log(blob) VALUES (NEW.blob)"),
        ("judge_log_prune", "AFTER INSERT ON judge_log", "",
         f"DELETE FROM judge_log WHERE seq <= NEW.seq - {JUDGE_LOG_KEPT}"),
    ]
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS judge_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, path TEXT, blob TEXT);
        """ + "".join(f"""
        CREATE TRIGGER IF NOT EXISTS {name} {event} {when} BEGIN {action}; END;"""
                      for name, event, when, action in triggers),
    )


#: the judgement's log drops its oldest entries once per this many new ones (a batch), not one
#: per entry: it holds :data:`JUDGE_LOG_KEPT` entries and at most this many more
JUDGE_LOG_PRUNED_EVERY = 1024

#: the triggers m016 made that m017 makes again leaner (or drops: the two update triggers)
_M016_TRIGGERS = ("files_judge_insert", "files_judge_delete", "files_judge_update", "authors_judge_insert",
                  "authors_judge_delete", "authors_judge_update", "differs_judge_insert", "differs_judge_delete",
                  "foreign_judge_insert", "foreign_judge_delete", "origins_judge_insert", "origins_judge_delete",
                  "origins_judge_update", "judge_log_prune")
_M012_TRIGGERS = ("files_differs_insert", "files_differs_update", "files_differs_update_old", "files_differs_delete",
                  "committed_differs_insert", "committed_differs_update", "committed_differs_delete")


def m017_judge_log_lean(conn) -> None:
    """The judgement's log (m016) and the ``differs`` triggers (m012) at a write's cost in
    proportion to what changed (review of issue 29): the log is a plain rowid table (no
    ``AUTOINCREMENT``: its ``sqlite_sequence`` row was written with every entry; the newest entry
    is never dropped, so a ``seq`` is never given twice); the oldest entries go by the batch
    (:data:`JUDGE_LOG_PRUNED_EVERY`), not one ``DELETE`` per entry; a ``files`` row whose path did
    not move names it once, not as both ``OLD`` and ``NEW``; ``differs`` keeps a row that still
    differs instead of deleting and inserting it again (which logged it twice), and its ``files``
    triggers run only when the row's blob or path changed (a re-read that found the same bytes
    rechecked it). The ``authors`` and ``origins`` update triggers are gone: those tables are
    written by ``INSERT OR REPLACE``/``INSERT OR IGNORE`` and ``DELETE`` alone (a replacement's
    delete fires no trigger: ``recursive_triggers`` is off; its insert names the path). The
    entries already logged are kept, with their ``seq``. Derived state; safe to run again."""
    for name in (*_M016_TRIGGERS, *_M012_TRIGGERS):
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    autoincrement = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE name = 'judge_log' AND sql LIKE '%AUTOINCREMENT%'").fetchone()
    if autoincrement:
        _run_script(
            conn,
            """
            CREATE TABLE judge_log_lean (seq INTEGER PRIMARY KEY, path TEXT, blob TEXT);
            INSERT INTO judge_log_lean(seq, path, blob) SELECT seq, path, blob FROM judge_log;
            -- the newest seq given, kept as an empty entry where the log holds none (its reader's
            -- head must not go back)
            INSERT INTO judge_log_lean(seq) SELECT seq FROM sqlite_sequence
                WHERE name = 'judge_log' AND seq > (SELECT coalesce(max(seq), 0) FROM judge_log);
            DROP TABLE judge_log;
            ALTER TABLE judge_log_lean RENAME TO judge_log;
            """,
        )
    # a path differs when the two blobs are not the same, or its row has none (never read); a
    # files trigger's NEW row is the path's row (one subquery where the general test asks three)
    differs = ("((SELECT blob FROM files WHERE path = {p}) IS NOT (SELECT blob FROM committed WHERE path = {p})"
               " OR EXISTS (SELECT 1 FROM files WHERE path = {p} AND blob IS NULL))")
    row_differs = "(NEW.blob IS NULL OR NEW.blob IS NOT (SELECT blob FROM committed WHERE path = NEW.path))"
    check = """
            DELETE FROM differs WHERE path = {p} AND NOT {cond};
            INSERT OR IGNORE INTO differs(path) SELECT {p} WHERE {cond};"""
    moved = "OLD.path IS NOT NEW.path"
    differs_triggers = "".join(
        f"""
        CREATE TRIGGER IF NOT EXISTS {name} AFTER {event} ON {table} {when} BEGIN{
            check.format(p=f"{row}.path", cond=cond or differs.format(p=f"{row}.path"))}
        END;"""
        for name, event, table, when, row, cond in (
            ("files_differs_insert", "INSERT", "files", "", "NEW", row_differs),
            ("files_differs_update", "UPDATE OF blob, path", "files",
             f"WHEN OLD.blob IS NOT NEW.blob OR {moved}", "NEW", row_differs),
            ("files_differs_update_old", "UPDATE OF path", "files", f"WHEN {moved}", "OLD", None),
            ("files_differs_delete", "DELETE", "files", "", "OLD", None),
            ("committed_differs_insert", "INSERT", "committed", "", "NEW", None),
            ("committed_differs_update", "UPDATE", "committed", "", "NEW", None),
            ("committed_differs_delete", "DELETE", "committed", "", "OLD", None)))
    log_path = "INSERT INTO judge_log(path) VALUES ({p})"
    log_blob = "INSERT INTO judge_log(blob) VALUES ({b})"
    judge_triggers = [
        ("files_judge_insert", "AFTER INSERT ON files", "", log_path.format(p="NEW.path")),
        ("files_judge_delete", "AFTER DELETE ON files", "", log_path.format(p="OLD.path")),
        ("files_judge_update", "AFTER UPDATE OF path, blob, usable ON files",
         f"WHEN {moved} OR OLD.blob IS NOT NEW.blob OR OLD.usable IS NOT NEW.usable",
         log_path.format(p="NEW.path") + f"; INSERT INTO judge_log(path) SELECT OLD.path WHERE {moved}"),
        ("authors_judge_insert", "AFTER INSERT ON authors", "", log_path.format(p="NEW.path")),
        ("authors_judge_delete", "AFTER DELETE ON authors", "", log_path.format(p="OLD.path")),
        ("differs_judge_insert", "AFTER INSERT ON differs", "", log_path.format(p="NEW.path")),
        ("differs_judge_delete", "AFTER DELETE ON differs", "", log_path.format(p="OLD.path")),
        ("foreign_judge_insert", "AFTER INSERT ON foreign_texts", "", log_path.format(p="NEW.path")),
        ("foreign_judge_delete", "AFTER DELETE ON foreign_texts", "", log_path.format(p="OLD.path")),
        ("origins_judge_insert", "AFTER INSERT ON origins", "", log_blob.format(b="NEW.blob")),
        ("origins_judge_delete", "AFTER DELETE ON origins", "", log_blob.format(b="OLD.blob")),
        ("judge_log_prune", "AFTER INSERT ON judge_log", f"WHEN NEW.seq % {JUDGE_LOG_PRUNED_EVERY} = 0",
         f"DELETE FROM judge_log WHERE seq <= NEW.seq - {JUDGE_LOG_KEPT}"),
    ]
    _run_script(conn, differs_triggers + "".join(f"""
        CREATE TRIGGER IF NOT EXISTS {name} {event} {when} BEGIN {action}; END;"""
                                                  for name, event, when, action in judge_triggers))


def m018_kept_judgement(conn) -> None:
    """The peers' judgement a process made, kept for the next one
    (:class:`vault_mem.vault.peers.KeptPeers`): one row, what it was made from (``state``: HEAD,
    the judge log's entry, the identities, the code; JSON), the judgement itself (``judgement``:
    JSON; since m019 the judgement is a row per path in ``kept_judgement_paths`` and this column
    is written empty, NOT NULL without a default: left for a migration to drop) and a token
    naming that judgement (a process that brings it along unchanged rewrites the state alone,
    while the token is still its own). No triggers: the judgement's own record,
    not a row it reads; its writes move no stamp (``Database.uncounted``). A one-shot command (the
    prompt hook, ``recall`` without a daemon) judged every memory again (~1.9 s of CPU at 100k
    peers' memories); it now judges what changed since this row. Derived state; safe to run again.
    m017 is made again first (it is safe to run again): a sidecar of a build that had this
    migration as its 17th never had m017's leaner log."""
    m017_judge_log_lean(conn)
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS kept_judgement (id INTEGER PRIMARY KEY CHECK (id = 1),
            state TEXT NOT NULL, token TEXT NOT NULL, judgement TEXT NOT NULL);
        """,
    )


def m019_kept_judgement_paths(conn) -> None:
    """The kept judgement by path (:mod:`vault_mem.index.kept_judgement`): one row per memory
    judged (``email``/``standing`` of a peer's; NULL for one judged the person's), so a judgement
    brought along a change rewrites the paths it judged again, not the whole judgement (one JSON
    value of ~7 MB at 100k peers' memories, rewritten whenever the judgement moved). The single
    row of m018 keeps what it was made from and its token; its ``judgement`` column is left empty.
    A row of m018's form is dropped (the next read judges whole once). Derived state; safe to run
    again."""
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS kept_judgement_paths (path TEXT PRIMARY KEY, email TEXT, standing TEXT)
            WITHOUT ROWID;
        DELETE FROM kept_judgement WHERE judgement != '';
        """,
    )


def m020_peer_lines(conn) -> None:
    """The counted lines of the texts peers brought (``vault_mem.vault.authors``, the adoption
    rule): per line, a 64-bit hash of its normalized words and the commit (and its author email)
    that first brought it, so an agent's new text that repeats a peer's line word for word is
    found by a handful of key lookups, not a read of every peer's file, and stays that peer's.
    Filled by the origins scan as texts are first seen; an existing sidecar's are filled from
    its ``origins`` rows once (the meta row ``peer_lines_filled`` is absent until then). Derived
    state; safe to run again."""
    _run_script(
        conn,
        """
        CREATE TABLE IF NOT EXISTS peer_lines (hash INTEGER PRIMARY KEY, commit_id TEXT NOT NULL, email TEXT NOT NULL);
        """,
    )


MIGRATIONS: list[Callable] = [m001_initial, m002_vectors, m003_covering_indexes, m004_conflict_of, m005_sqlite_vec,
                              m006_embed_cache_rowid, m007_index_counter, m008_floor_calibration,
                              m009_index_counter_by_type, m010_change_dates, m011_authors,
                              m012_committed_view, m013_missing_blobs_index, m014_scan_generation,
                              m015_origins, m016_judge_log, m017_judge_log_lean, m018_kept_judgement,
                              m019_kept_judgement_paths, m020_peer_lines]
SCHEMA_VERSION = len(MIGRATIONS)
_BASE_TABLES = {"meta", "files", "tags", "supersedes", "embed_cache", "fts"}
#: tables a schema version must have, from that version on (a file missing them is damaged)
TABLES_FROM_VERSION = {1: _BASE_TABLES, 2: _BASE_TABLES | {"vectors"}, 5: _BASE_TABLES | {"vector_log"},
                       7: _BASE_TABLES | {"vector_log", "counters"},
                       8: _BASE_TABLES | {"vector_log", "counters", "floor_calibration"},
                       10: _BASE_TABLES | {"vector_log", "counters", "floor_calibration", "changes"},
                       11: _BASE_TABLES | {"vector_log", "counters", "floor_calibration", "changes", "authors"},
                       12: _BASE_TABLES | {"vector_log", "counters", "floor_calibration", "changes", "authors",
                                           "committed", "differs"},
                       16: _BASE_TABLES | {"vector_log", "counters", "floor_calibration", "changes", "authors",
                                           "committed", "differs", "origins", "foreign_texts", "judge_log",
                                           "sqlite_sequence"},
                       17: _BASE_TABLES | {"vector_log", "counters", "floor_calibration", "changes", "authors",
                                           "committed", "differs", "origins", "foreign_texts", "judge_log"},
                       18: _BASE_TABLES | {"vector_log", "counters", "floor_calibration", "changes", "authors",
                                           "committed", "differs", "origins", "foreign_texts", "judge_log",
                                           "kept_judgement"},
                       19: _BASE_TABLES | {"vector_log", "counters", "floor_calibration", "changes", "authors",
                                           "committed", "differs", "origins", "foreign_texts", "judge_log",
                                           "kept_judgement", "kept_judgement_paths"},
                       20: _BASE_TABLES | {"vector_log", "counters", "floor_calibration", "changes", "authors",
                                           "committed", "differs", "origins", "foreign_texts", "judge_log",
                                           "kept_judgement", "kept_judgement_paths", "peer_lines"}}


# ---------------------------------------------------------------------------------------------


class Database:
    """One connection to ``index.db`` with vec status and a write-transaction helper.

    Autocommit mode (``isolation_level=None``): reads see the latest committed state, and writes
    are grouped explicitly with :meth:`write`.
    """

    def __init__(self, conn, *, path: Path, vec_loaded: bool, vec_ok: bool, vec_reason: str | None) -> None:
        self.conn = conn
        conn.row_factory = driver().Row
        self.path = path
        #: sqlite-vec is loaded on this connection (its tables can be written)
        self.vec_loaded = vec_loaded
        #: vectors are searched and made (loaded, and not switched off)
        self.vec_ok = vec_ok
        self.vec_reason = vec_reason
        #: why this process cannot write the file (with the fix), or None: reads still work
        self.read_only: str | None = None
        #: the connection itself was opened read-only (``mode=ro``/``immutable=1``)
        self.opened_read_only = False
        #: the vault this machine made the file for (:func:`connect`'s ``made_for``), checked at
        #: each open: another connection to it is opened with the same check
        self.made_for: Path | None = None
        #: the file's made-here check passed when it was opened (an empty file has none yet)
        self.checked_made_here = False
        self._depth = 0
        #: this connection's changes made inside :meth:`uncounted`, left out of :meth:`changes`
        self._uncounted = 0
        #: :meth:`kept`'s dicts by name, each with the :meth:`rows_stamp` it holds for
        self._kept: dict[str, tuple[tuple, dict]] = {}

    def check_read_only(self) -> str | None:
        """:attr:`read_only`, asked again: a long-lived process (the daemon, an MCP server, an
        API caller) that found the index read-only or the disk full writes again once that is
        over (a remount, space freed), instead of refusing every write until it is restarted."""
        if self.read_only is None or self._depth:
            return self.read_only
        if read_only_reason(self.path) is not None or full_disk_reason(self.path) is not None:
            return self.read_only
        if self.opened_read_only:
            try:
                fresh = _open_once(self.path, made_for=self.made_for)  # checked as every opening is
            except (IndexStoreError, *errors()):
                return self.read_only
            old, self.conn = self.conn, fresh.conn
            self._uncounted = 0
            self.vec_loaded, self.vec_ok, self.vec_reason = fresh.vec_loaded, fresh.vec_ok, fresh.vec_reason
            self.opened_read_only = False
            with contextlib.suppress(Exception):
                old.close()
        log.info("the index %s can be written again", self.path)
        self.read_only = None
        return None

    def execute(self, sql: str, params=()):
        return self.conn.execute(sql, params)

    def changes(self) -> int:
        """This connection's changes so far (``total_changes``: a rolled-back change counts too),
        less those made inside :meth:`uncounted`: what work kept under the rows' stamp
        (:meth:`~vault_mem.index.sidecar.Sidecar.changes_stamp`) is told by."""
        return self.conn.total_changes - self._uncounted

    def rows_stamp(self, version: int | None = None) -> tuple[int, int, int]:
        """A value that moves with every change to the rows, whoever makes it: this connection
        (a recovery replaces it), its changes so far (:meth:`changes`: a rolled-back change
        counts too; those made inside :meth:`uncounted` do not) and every other connection's
        commits (``PRAGMA data_version``; ``version``: the one read inside the transaction the
        kept work was read in, as of its snapshot). The one stamp of work kept from the rows
        (:meth:`~vault_mem.index.sidecar.Sidecar.changes_stamp`, a path table's, the
        common-word counts). Nothing read inside a transaction is to be kept under it: a
        ``ROLLBACK`` moves neither count, and what was read saw the transaction's own rows."""
        conn = self.conn
        if version is None:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
        return (id(conn), self.changes(), version)

    def kept(self, name: str) -> dict | None:
        """The dict of work read from the rows kept under ``name`` (its caller's own keys and
        values), emptied whenever :meth:`rows_stamp` has moved since it was last asked for;
        None inside a transaction (nothing read there is kept, nor is what was kept given)."""
        if self.conn.in_transaction:
            return None
        now = self.rows_stamp()
        found = self._kept.get(name)
        if found is None or found[0] != now:
            found = self._kept[name] = (now, {})
        return found[1]

    @contextlib.contextmanager
    def uncounted(self) -> Iterator[None]:
        """The changes made inside do not move :meth:`changes`: for writes that change nothing
        the work kept under the rows' stamp reads (who wrote what, and the rows INDEX.md and the
        peers' left-out sets are made of): a read's cache of git's answers for the commit the
        rows reflect (a path's history, the state a history leaves), a temporary table of a
        read's own, and vectors and the floor's calibration made from them (searches alone
        read them; nothing kept under a stamp does).
        Counted, such a write made the next read work out again what was kept (the peers'
        judgement, ~1.8 s of CPU at 100k) with nothing changed
        (:class:`vault_mem.vault.peers.KeptPeers`). Another connection's commits still move
        every stamp (``PRAGMA data_version``), whatever they wrote."""
        conn, before = self.conn, self.conn.total_changes
        try:
            yield
        finally:
            if self.conn is conn:
                self._uncounted += conn.total_changes - before

    def tuples(self, sql: str, params=()):
        """Like :meth:`execute`, but the rows come as plain tuples (no Row object per row: for
        scans of every row)."""
        cur = self.conn.cursor()
        cur.row_factory = None
        return cur.execute(sql, params)

    def executemany(self, sql: str, rows):
        return self.conn.executemany(sql, rows)

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """The reads inside see one state of the file (a deferred ``BEGIN`` ... ``COMMIT``):
        another process's write cannot land between them. Inside a caller's transaction, that
        one's snapshot."""
        own = not self.conn.in_transaction
        if own:
            self.conn.execute("BEGIN")
        try:
            yield
        finally:
            if own:
                self.conn.execute("COMMIT")

    @contextlib.contextmanager
    def write(self, *, wait: bool = True, give_up: bool = False) -> Iterator[None]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` (rollback on error); nests as one transaction.
        ``wait=False``: fail at once instead of waiting up to ``busy_timeout`` for another
        writer, for a cache a read fills on the side. ``give_up``: wait up to ``busy_timeout``
        as a write does, for derived state a read records (the texts' origins, the authors'
        rows, the committed view, kept histories). Either way another writer's lock still held
        is then an :class:`IndexStoreError` (:func:`is_busy` holds for it), which every such
        writer gives up on as on a full disk, so a read answers from what it worked out and
        never fails on another process's lock (the sidecar is derived state: docs/design.md)."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        if self.check_read_only() is not None:
            raise IndexStoreError(self.read_only)
        waits = None if wait else self.conn.execute("PRAGMA busy_timeout").fetchone()[0]
        try:
            if waits is not None:
                self.conn.execute("PRAGMA busy_timeout = 0")
            self.conn.execute("BEGIN IMMEDIATE")
        except database_error() as exc:
            self._refuse_read_only(exc)
            if (waits is not None or give_up) and is_busy(exc):
                raise busy_error(self.path, exc) from exc
            raise
        finally:
            if waits is not None:
                self.conn.execute(f"PRAGMA busy_timeout = {int(waits)}")
        self._depth = 1
        try:
            yield
        except BaseException as exc:
            self._depth = 0
            self.conn.execute("ROLLBACK")
            self._refuse_read_only(exc)
            raise
        self._depth = 0
        try:
            self.conn.execute("COMMIT")
        except database_error() as exc:
            self._refuse_read_only(exc)
            raise

    def _refuse_read_only(self, exc: BaseException) -> None:
        """A write refused because the file cannot be written (found only now: the permissions
        changed, a read-only mount, a full disk): say so with the fix, as :func:`read_only_reason`
        and :func:`full_disk_reason` do, as an IndexStoreError (never a bare SQLite error, which
        callers would report as an internal error)."""
        if not isinstance(exc, database_error()):
            return
        if is_read_only(exc):
            self.read_only = read_only_reason(self.path) or (
                f"the index database {self.path} cannot be written ({exc}); make it and its folder "
                "writable, or delete it (it is rebuilt from the memory files), and retry")
            raise IndexStoreError(self.read_only) from exc
        full = full_disk_reason(self.path)
        if is_full(exc) or (full is not None and "i/o error" in str(exc).lower()):
            self.read_only = full or (f"the disk holding {self.path.parent} is full ({exc}), so vault-mem "
                                      "cannot keep its index up to date; free some space and retry")
            raise IndexStoreError(self.read_only) from exc

    def get_meta(self, name: str) -> str | None:
        """The ``meta`` table's value of ``name`` (None when unset)."""
        r = self.conn.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return r[0] if r else None

    def made_id(self) -> str | None:
        """The random id this machine gave the file when it made it (:func:`connect`'s
        ``made_for``), read through this connection: another id, another file, whose rows and
        judge log count from elsewhere; None when it has none (or cannot be read)."""
        try:
            return self.get_meta(_MADE_HERE)
        except errors():
            return None

    def set_meta(self, name: str, value: str | None) -> None:
        """Set the ``meta`` table's ``name`` to ``value`` (None: remove it), in the caller's write
        transaction or one of its own. The one writer of that table's rows."""
        with self.write():
            if value is None:
                self.conn.execute("DELETE FROM meta WHERE name = ?", (name,))
            else:
                self.conn.execute("INSERT INTO meta(name, value) VALUES (?, ?) "
                                  "ON CONFLICT(name) DO UPDATE SET value = excluded.value", (name, value))

    def map_file(self, on: bool) -> None:
        """Read the database through a memory map (the default: fastest for vec0's scans) or
        not (``on=False``: what is read is not kept mapped in this process's memory)."""
        self.conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES if on else 0}")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.conn.close()


def _load_vec(conn) -> str | None:
    """Load sqlite-vec into ``conn``; the reason when it cannot be loaded, else None."""
    if not hasattr(conn, "enable_load_extension"):
        if os.environ.get(FORCE_DRIVER_ENV):
            return f"this Python's sqlite3 cannot load extensions ({FORCE_DRIVER_ENV} chose it); unset it for vectors"
        return ("this Python's sqlite3 cannot load extensions and the 'sqlean.py' package is missing; "
                f"install it for vectors: {install_command('sqlean.py')}")
    # found, not imported: importing the sqlite_vec package imports numpy (0.1-0.5 s), which a
    # command that compares no vectors never needs; the extension sits beside its __init__.py,
    # where sqlite_vec.loadable_path() names it
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.origin:
        return f"the 'sqlite-vec' package is missing; install it for vectors: {install_command('sqlite-vec')}"
    try:
        conn.enable_load_extension(True)
        try:
            conn.load_extension(os.path.join(os.path.dirname(spec.origin), "vec0"))
        finally:
            conn.enable_load_extension(False)
    except Exception as exc:  # noqa: BLE001 - any failure means "no sqlite-vec here"
        return f"sqlite-vec could not be loaded ({exc}); recall uses keywords only"
    return None


def _vectors_switch(load_error: str | None) -> tuple[bool, str | None]:
    if os.environ.get(DISABLE_VEC_ENV, "") not in ("", "0"):
        return False, f"vectors disabled by {DISABLE_VEC_ENV}=1"
    if load_error is not None:
        return False, load_error
    return True, None


def _raw_connect(path: Path, *, read_only: str | None = None):
    """A connection to ``path``; with ``read_only`` (why it cannot be written), a read-only one:
    ``immutable=1`` when its folder cannot be written (no -wal/-shm can be made there, so no
    writer can change the file either), else ``mode=ro``."""
    mod = driver()
    if read_only is None:
        # made here, this user's alone, whatever the umask: it holds every memory's text (SQLite
        # gives its -wal and -shm files the database file's mode)
        try:
            os.close(open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
        except FileExistsError:
            pass
        conn = mod.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                           check_same_thread=False)
    else:
        # a full disk: mode=ro needs a -shm file it cannot make; immutable=1 reads the file as it
        # is (what a checkpointed index holds: the last connection's close checkpoints it)
        flag = "mode=ro" if os.access(path.parent, os.W_OK | os.X_OK) and full_disk_reason(path) is None \
            else "immutable=1"
        uri = f"{path.resolve().as_uri()}?{flag}"
        conn = mod.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
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
        if version == 0 and db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone() is None:
            _create_current(db.conn)
            return
        for i in range(version, SCHEMA_VERSION):
            MIGRATIONS[i](db.conn)
            db.execute(f"PRAGMA user_version = {i + 1}")
    _compact(db)


def _create_current(conn) -> None:
    """A new, empty sidecar made directly at :data:`SCHEMA_VERSION` (inside the caller's write
    transaction): the statements and rows the migrations leave, in their order
    (:mod:`vault_mem.index.fresh_schema`), ~3x less CPU than running the 20 migrations, which
    made tables, triggers and indexes that later ones drop and make again (~9 ms a sidecar, a
    share of every test that makes a vault). tests/test_sidecar_schema_suite33a.py holds the
    file it makes the same as one migrated from the oldest schema: every ``sqlite_master`` row
    in order, every row, the pragmas."""
    from vault_mem.index import fresh_schema

    if fresh_schema.VERSION != SCHEMA_VERSION:  # a migration added without the module made again
        for i in range(SCHEMA_VERSION):
            MIGRATIONS[i](conn)
    else:
        for sql in fresh_schema.STATEMENTS:
            conn.execute(sql)
        for table, row in fresh_schema.ROWS:
            conn.execute(f"INSERT INTO {table} VALUES ({', '.join('?' * len(row))})", row)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


#: the name of the table that makes ``sqlite_sequence`` where the migrations made it (m016's
#: judge log was an AUTOINCREMENT table; SQLite keeps that table once made, and it cannot be
#: made by name)
_SEQUENCE_MAKER = "sequence_maker"
#: FTS5's own tables, made by ``CREATE VIRTUAL TABLE fts``
_FTS_SHADOWS = ("fts_data", "fts_idx", "fts_content", "fts_docsize", "fts_config")


def migrated_schema() -> tuple[list[str], list[tuple[str, tuple]]]:
    """What the migrations leave in a new sidecar, as :func:`_create_current` replays it: the
    statements (``sqlite_master``'s, in its order) and each table's rows. Made in memory; for
    :mod:`vault_mem.index.fresh_schema` (:func:`write_fresh_schema` writes it)."""
    conn = driver().connect(":memory:", isolation_level=None)
    try:
        for migration in MIGRATIONS:
            migration(conn)
        statements: list[str] = []
        for name, sql in conn.execute("SELECT name, sql FROM sqlite_master ORDER BY rowid"):
            if name == "sqlite_sequence":
                statements += [f"CREATE TABLE {_SEQUENCE_MAKER} (id INTEGER PRIMARY KEY AUTOINCREMENT)",
                               f"DROP TABLE {_SEQUENCE_MAKER}"]
            elif sql is not None and name not in _FTS_SHADOWS:
                statements.append(sql)
        rows = [(table, tuple(row))
                for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
                                             "'CREATE VIRTUAL TABLE%' ORDER BY rowid").fetchall()
                if table not in _FTS_SHADOWS
                for row in conn.execute(f'SELECT * FROM "{table}"').fetchall()]
        return statements, rows
    finally:
        conn.close()


def write_fresh_schema() -> None:
    """Rewrite :mod:`vault_mem.index.fresh_schema` from what the migrations make now (after a
    migration is added): ``python -c 'from vault_mem.index import db; db.write_fresh_schema()'``."""
    statements, rows = migrated_schema()
    out = ["#: the schema version these statements make (db.SCHEMA_VERSION); at another, db migrates\n",
           f"VERSION = {SCHEMA_VERSION}\n\n", "STATEMENTS: tuple[str, ...] = (\n"]
    for sql in statements:
        lines = sql.splitlines(keepends=True)
        out.append("    " + "\n    ".join(repr(line) for line in lines) + ",\n")
    out.append(")\n\n#: (table, row): the rows the migrations write into a new file\n")
    out.append("ROWS: tuple[tuple[str, tuple], ...] = (\n")
    out.extend(f"    ({table!r}, {row!r}),\n" for table, row in rows)
    out.append(")\n")
    here = Path(__file__).with_name("fresh_schema.py")
    text = here.read_text(encoding="utf-8")
    here.write_text(text[:text.index("#: the schema version these")] + "".join(out), encoding="utf-8")


def _compact(db: Database) -> None:
    """VACUUM once a migration has left much free space (m006 frees ~470 MB at 100k memories;
    4.6 s). Best effort: if another process is reading, the space is simply reused later."""
    free = db.execute("PRAGMA freelist_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0]
    if free < COMPACT_FREE_BYTES:
        return
    log.info("compacting %s after an upgrade (%d MB free)", db.path, free // 1_000_000)
    db.execute("PRAGMA busy_timeout = 1000")
    try:
        db.execute("VACUUM")
    except errors()[1] as exc:
        log.info("not compacted now (%s); the free space is reused as the index grows", exc)
    finally:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


#: each table of the current schema (not the virtual ones) with its columns and their place in
#: the primary key (``PRAGMA table_info``'s ``pk``), as the migrations make them (a test holds the
#: two the same): a file whose table lacks one is damaged (:func:`_check_schema`)
TABLE_COLUMNS: dict[str, set[tuple[str, int]]] = {
    table: set(cols) for table, cols in {
        "meta": [("name", 1), ("value", 0)],
        "files": [("id", 1), ("path", 0), ("key", 0), ("type", 0), ("type_rank", 0), ("mtime_ns", 0), ("size", 0),
                  ("sha256", 0), ("content_sha256", 0), ("has_content", 0), ("usable", 0), ("problem", 0),
                  ("duplicate_of", 0), ("description", 0), ("created", 0), ("updated", 0), ("sort_date", 0),
                  ("pinned", 0), ("expires", 0), ("tags", 0), ("scope", 0), ("source", 0), ("supersedes", 0),
                  ("body", 0), ("embed_sha256", 0), ("vec_model", 0), ("conflict_of", 0), ("blob", 0)],
        "tags": [("file_id", 2), ("tag", 1)],
        "supersedes": [("file_id", 2), ("target", 1)],
        "vector_log": [("id", 1), ("seq", 0), ("live", 0)],
        "embed_cache": [("id", 1), ("model", 0), ("text_sha256", 0), ("vector", 0)],
        "counters": [("name", 1), ("n", 0)],
        "floor_calibration": [("model", 1), ("epoch", 0), ("seq", 0), ("vectors", 0), ("null_sims", 0), ("made", 0)],
        "changes": [("path", 1), ("changed", 0)],
        "authors": [("path", 1), ("commit_id", 0), ("email", 0), ("name", 0), ("blob", 0)],
        "committed": [("path", 1), ("blob", 0)],
        "differs": [("path", 1)],
        "origins": [("blob", 1), ("commit_id", 0), ("email", 0)],
        "foreign_texts": [("path", 1)],
        "judge_log": [("seq", 1), ("path", 0), ("blob", 0)],
        "kept_judgement": [("id", 1), ("state", 0), ("token", 0), ("judgement", 0)],
        "kept_judgement_paths": [("path", 1), ("email", 0), ("standing", 0)],
        "peer_lines": [("hash", 1), ("commit_id", 0), ("email", 0)],
    }.items()
}


def _check_schema(db: Database) -> None:
    """Cheap sanity check: reads the schema page; raises DatabaseError on garbage files."""
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    version = db.execute("PRAGMA user_version").fetchone()[0]
    since = max((v for v in TABLES_FROM_VERSION if v <= version), default=None)
    expected = TABLES_FROM_VERSION[since] if since is not None else set()
    if not expected <= names:
        raise driver().DatabaseError(f"schema is missing tables {sorted(expected - names)}")
    if version != SCHEMA_VERSION:
        return  # an older file's tables take their shape from the migrations still to run
    # each table of the schema with the columns (and primary key) the code reads: a table of the
    # right name in another shape (rev4: ``peer_lines (hash TEXT)``) failed every read and write
    # with a raw error while doctor said ok; it is damage like a missing table (moved aside, rebuilt)
    # each of these tables alone: the table-valued pragma over every table of the file would ask
    # a virtual one's module (vec0) for its columns, which a process without sqlite-vec has not,
    # and its error read as damage rebuilt a sound sidecar there
    wrong = sorted(t for t, cols in TABLE_COLUMNS.items()
                   if not cols <= {(c, pk) for c, pk in db.execute("SELECT name, pk FROM pragma_table_info(?)", (t,))})
    if wrong:
        raise driver().DatabaseError(f"schema has tables of another shape {wrong}")


def read_only_reason(path: Path) -> str | None:
    """Why this process cannot write the index at ``path`` (the file or its folder is read-only
    for it), with the fix; None when it can. ``os.access`` sees modes, read-only mounts and the
    immutable flag, and says "writable" for root, who can write anyway."""
    folder = path.parent
    mounted = read_only_mount_reason(folder, "keep its index up to date")
    if mounted:
        return mounted
    if not os.access(folder, os.W_OK | os.X_OK):
        return (f"the folder {folder} is read-only for you, so vault-mem cannot keep its index up to "
                f"date; make it writable (`chmod u+w {folder}`, or `chown` it to you) and retry")
    if path.exists() and not os.access(path, os.W_OK):
        return (f"the index database {path} is read-only for you, so vault-mem cannot keep it up to "
                f"date; make it writable (`chmod u+w {path}`), or delete it (it is rebuilt from the "
                "memory files), and retry")
    return None


#: below this many free bytes the disk holding the index counts as full: SQLite cannot even
#: make its -shm file, and a write would fail half-way
FULL_DISK_BYTES = 256 * 1024


def full_disk_reason(path: Path) -> str | None:
    """Why the index at ``path`` cannot be written because its disk is full (with the fix), or
    None when there is room (or the free space cannot be read)."""
    try:
        st = os.statvfs(path.parent)
    except OSError:
        return None
    free = st.f_bavail * st.f_frsize
    if free >= FULL_DISK_BYTES:
        return None
    return (f"the disk holding {path.parent} is full ({free} bytes free), so vault-mem cannot keep its "
            "index up to date; free some disk space and retry")


def _open_once(path: Path, *, unwritable: str | None = None, made_for: Path | None = None) -> Database:
    """Open ``path``; ``unwritable`` (why it cannot be written, e.g. a full disk) opens it
    read-only even where the permissions would allow writing."""
    read_only = read_only_reason(path) or unwritable
    if read_only and not path.exists():
        raise IndexStoreError(read_only)
    conn = _raw_connect(path, read_only=read_only)
    try:
        load_error = _load_vec(conn)  # loaded even when vectors are off, to keep vec0 rows right
        vec_ok, vec_reason = _vectors_switch(load_error)
        db = Database(conn, path=path, vec_loaded=load_error is None, vec_ok=vec_ok, vec_reason=vec_reason)
        db.read_only = read_only
        db.opened_read_only = read_only is not None
        # (an empty file is the one this open made: marked by connect, under its lock)
        if made_for is not None and os.path.getsize(path):
            if not _made_here(db, made_for):
                raise _NotMadeHere(path, read_only)
            db.checked_made_here = True
        _check_schema(db)
        if read_only is None:
            mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
            if str(mode).lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
        # Read pages through a memory map: a vec0 KNN reads every vector, and copying each page
        # into SQLite's cache took 76 ms against 45 ms mapped (100k vectors, bench/bench_sqlite_vec.py).
        conn.execute(f"PRAGMA mmap_size = {MMAP_BYTES}")
        if read_only is not None:
            if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
                raise IndexStoreError(f"{read_only} (this vault-mem must also upgrade its schema)")
            return db
        _migrate(db)
        return db
    except BaseException:
        conn.close()
        raise


#: how SQLite's quick_check (3.44+, which also runs FTS5's own check) names a damaged keyword index
FTS_CHECK_MARK = "fts5 table main.fts"


def quick_check_fails(path: Path, *, except_fts: bool = False) -> str | None:
    """Return the reason when ``path`` is damaged, None when it looks fine (e.g. only locked).
    ``except_fts``: damage of the keyword index alone (which is rebuilt in place) does not count."""
    try:
        conn = _raw_connect(path)
        try:
            rows = [r[0] for r in conn.execute("PRAGMA quick_check").fetchall()]
        finally:
            conn.close()
    except driver().OperationalError as exc:
        if is_busy(exc):
            return None
        return str(exc)
    except driver().DatabaseError as exc:
        return str(exc)
    if except_fts:
        rows = [r for r in rows if FTS_CHECK_MARK not in r.lower()] or ["ok"]
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


#: SQLite's words for another connection's lock (SQLITE_BUSY, SQLITE_LOCKED): phrases, never a
#: word alone, which a database's path may hold ("/home/x/blocked/.vault-mem/index.db")
_BUSY_WORDS = ("database is locked", "database table is locked", "database schema is locked", "database is busy")


def is_busy(exc: BaseException) -> bool:
    """True for errors that mean another connection holds a lock (retry later, repair nothing):
    SQLite's error code where the driver gives it, else its words (an :class:`IndexStoreError`
    made of a busy error keeps them)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (5, 6)  # SQLITE_BUSY, SQLITE_LOCKED and their extended codes
    text = str(exc).lower()
    return any(words in text for words in _BUSY_WORDS)


def busy_error(path, exc: BaseException) -> IndexStoreError:
    """The error a read gives up on when another process held the index's write lock past the
    busy timeout (:meth:`Database.write`'s ``give_up``): one wording, keeping SQLite's (busy)."""
    return IndexStoreError(f"{path}: another process holds the index's write lock ({exc})")


def is_full(exc: BaseException) -> bool:
    """True for SQLite's "database or disk is full" (SQLITE_FULL): nothing is damaged."""
    return "disk is full" in str(exc).lower()


def is_read_only(exc: BaseException) -> bool:
    """True for errors that mean the database cannot be written here (permissions, a read-only
    file, folder or mount), not that it is damaged."""
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text


def is_damage(exc: BaseException) -> bool:
    """True for errors that mean the file is damaged (not merely busy or misused)."""
    text = str(exc).lower()
    return any(x in text for x in ("malformed", "not a database", "disk image", "database corrupt"))


def repair(path: Path, reason: str) -> None:
    """Move a database found damaged while in use aside (once, under the repair lock)."""
    if full_disk_reason(path) is not None:
        return  # a full disk fails every check: nothing is damaged, nothing is moved
    lock_path = path.with_name(path.name + ".repair.lock")
    with _open_lock(lock_path) as lock_file:
        locking.lock(lock_file.fileno())
        try:
            if path.exists() and quick_check_fails(path) is not None:
                move_aside(path, reason)
        finally:
            locking.unlock(lock_file.fileno())


def _open_lock(path: Path):
    """The repair lock file, opened for ``flock`` (never through a link; this user's alone)."""
    return os.fdopen(open_nofollow(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, PRIVATE_FILE), "a+")


#: the file beside ``index.db`` that says this machine made that database for its vault: a
#: random id, sealed with the machine's key for the vault's path (:func:`~vault_mem.store.trust.seal`),
#: which the database's ``meta`` row :data:`_MADE_HERE` holds too
MARK_FILE = "index.mark"
_MARK_KIND = "index-made-here"
_MADE_HERE = "made_here"


def _made_here(db: Database, root: Path) -> bool:
    """Whether ``db`` is the one this machine made for the vault at ``root`` (its id and the
    sealed mark beside it agree): a database git wrote from a commit (git overwrites ignored
    files) holds no id a peer could seal."""
    try:
        made = db.get_meta(_MADE_HERE)  # first: a damaged file, a full disk raise (handled as ever)
    except driver().OperationalError as exc:
        if "no such table" not in str(exc):
            raise
        return False  # a database of some other shape
    try:
        raw = read_own(db.path.with_name(MARK_FILE), max_bytes=4096)
    except (OSError, VaultMemError):
        return False
    payload = unseal(root, _MARK_KIND, raw) if raw else None
    return made is not None and payload is not None and payload.get("id") == made


def _mark_made_here(db: Database, root: Path) -> None:
    """Give ``db`` a new id and seal it beside it (:data:`MARK_FILE`): the id first, so that a
    crash between the two leaves a database that is not taken for this machine's (rebuilt)."""
    token = os.urandom(16).hex()  # (`secrets` would import `random` into every command)
    db.set_meta(_MADE_HERE, token)
    atomic_write(db.path.with_name(MARK_FILE), seal(root, _MARK_KIND, {"id": token}), mode=PRIVATE_FILE)


def _remove_database(path: Path) -> None:
    for name in (path.name, f"{path.name}-wal", f"{path.name}-shm", f"{path.name}-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path.with_name(name))


def connect(path: Path, *, made_for: Path | None = None) -> Database:
    """Open (creating or migrating) the sidecar at ``path``.

    A file that is not a usable SQLite database is moved aside and a fresh one is created; the
    caller rebuilds it from the memory files (the sidecar holds nothing that is not derived).

    ``made_for`` (the vault's root): the database must be the one this machine made for that
    vault (:func:`_made_here`), else it is removed and made again, never read: git writes a
    peer's committed ``.vault-mem/index.db`` over this machine's at a checkout or a pull, and
    every process that opened the file before the first vault-mem command after it removed it
    read the peer's rows (authors and origins of its choosing). A database of an older
    vault-mem (no mark) is made again once. Made and marked under the repair lock, so no process
    takes another's new database, not marked yet, for a stranger's."""
    if made_for is None:
        return _connect(Path(path))
    db = _connect_made_here(Path(path), made_for)
    db.made_for = made_for
    return db


def _connect_made_here(path: Path, made_for: Path) -> Database:
    """:func:`connect` with ``made_for``."""
    try:
        if path.exists():
            db = _connect(path, made_for)
            if db.checked_made_here:  # (checked as it was opened)
                return db
            db.close()  # made just now (a damaged one moved aside): marked under the lock
    except _NotMadeHere as exc:
        if exc.read_only is not None:
            raise IndexStoreError(f"{exc}; {exc.read_only}; or delete it (it is rebuilt from the memory files)") from None
    ensure_own_dir(path.parent)
    with _open_lock(path.with_name(path.name + ".repair.lock")) as lock_file:
        locking.lock(lock_file.fileno())
        try:
            if path.exists():
                try:
                    db = _connect(path, made_for)
                    if db.checked_made_here:
                        return db  # another process made it meanwhile
                    db.close()  # an empty file a crash left: made again
                except _NotMadeHere as exc:
                    if exc.read_only is not None:
                        raise IndexStoreError(f"{exc}; {exc.read_only}") from None
                    log.warning("vault-mem: the index database %s was not made on this machine for this vault (a "
                                "commit's, which git wrote there, or an older vault-mem's); nothing of it is read: "
                                "made again from the memory files", path)
                _remove_database(path)
            db = _connect(path)
            try:
                if db.read_only is None:
                    _mark_made_here(db, made_for)
            except BaseException:
                db.close()
                raise
            return db
        finally:
            locking.unlock(lock_file.fileno())


class _NotMadeHere(IndexStoreError):
    """The database at a path is not the one this machine made for the vault (:func:`_made_here`)."""

    def __init__(self, path: Path, read_only: str | None) -> None:
        super().__init__(f"the index database {path} was not made on this machine for this vault (git writes a "
                         "committed one over it)")
        self.read_only = read_only


def _connect(path: Path, made_for: Path | None = None) -> Database:
    """:func:`connect`: with ``made_for``, a database that is not the one made here for that vault
    raises :class:`_NotMadeHere` before anything else is read or written in it."""
    ensure_own_dir(path.parent)
    for own in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"),
                path.with_name(path.name + ".repair.lock")):
        refuse_link(own)  # SQLite would open (and write) a link's target: never followed
        make_private(own)  # one made before the rule (the folder is closed too)
    db_error, _ = errors()
    try:
        return _open_once(path, made_for=made_for)
    except IndexStoreError:
        raise
    except db_error as exc:
        first_error = exc
        read_only = read_only_reason(path)
        if read_only is not None:  # cannot be repaired from here: no file can be moved or made
            raise IndexStoreError(f"{read_only} (opening it failed: {exc})") from exc
        full = full_disk_reason(path)
        if full is not None:
            # a full disk makes every open fail ("disk I/O error" making -shm): nothing is damaged,
            # so nothing is moved aside; reads answer from the file as it is, writes say why not
            try:
                return _open_once(path, unwritable=full, made_for=made_for)
            except db_error as again:
                raise IndexStoreError(f"{full} (opening the index failed: {again})") from again
    # Something is wrong. Repair under an exclusive lock so two processes never both move files.
    lock_path = path.with_name(path.name + ".repair.lock")
    with _open_lock(lock_path) as lock_file:
        locking.lock(lock_file.fileno())
        try:
            reason = quick_check_fails(path) if path.exists() else None
            if reason is None and path.exists():
                try:
                    return _open_once(path, made_for=made_for)
                except db_error as exc:
                    reason = str(exc) or str(first_error)
            if reason is not None and path.exists():
                move_aside(path, reason)
            try:
                return _open_once(path, made_for=made_for)
            except db_error as exc:
                raise IndexStoreError(
                    f"cannot open the index database {path} ({exc}); check the folder's permissions "
                    "and free disk space, or delete the file to rebuild it"
                ) from exc
        finally:
            locking.unlock(lock_file.fileno())
