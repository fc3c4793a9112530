"""The sidecar's schema at its current version, as the migrations leave a new file: what
:func:`vault_mem.index.db._create_current` runs to make a new sidecar directly, instead of the
migrations one by one. Made again by
``python -c 'from vault_mem.index import db; db.write_fresh_schema()'`` (from
:func:`vault_mem.index.db.migrated_schema`); tests/test_sidecar_schema_suite33a.py fails while a
migration has changed what it should hold. The statements are ``sqlite_master``'s
own text, byte for byte (indentation and comments included), in its order; FTS5's own tables
are made by the ``fts`` statement.
"""

from __future__ import annotations

#: the schema version these statements make (db.SCHEMA_VERSION); at another, db migrates
VERSION = 20

STATEMENTS: tuple[str, ...] = (
    'CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)',
    'CREATE TABLE files (\n'
    '            id INTEGER PRIMARY KEY,\n'
    '            path TEXT NOT NULL UNIQUE,       -- vault-relative, POSIX\n'
    '            key TEXT NOT NULL,\n'
    '            type TEXT NOT NULL,\n'
    '            type_rank INTEGER NOT NULL,      -- INDEX.md section order; 4 = note\n'
    '            mtime_ns INTEGER NOT NULL,\n'
    '            size INTEGER NOT NULL,\n'
    '            sha256 TEXT NOT NULL,            -- of the bytes on disk now\n'
    '            content_sha256 TEXT,             -- of the bytes the content columns come from\n'
    '            has_content INTEGER NOT NULL DEFAULT 0,\n'
    '            usable INTEGER NOT NULL DEFAULT 0,   -- has content and is not a duplicate key\n'
    '            problem TEXT,                    -- why the file on disk cannot be used (NULL = ok)\n'
    '            duplicate_of TEXT,               -- path of the file that owns this key, if not this one\n'
    '            description TEXT, created TEXT, updated TEXT, sort_date TEXT,\n'
    '            pinned INTEGER NOT NULL DEFAULT 0,\n'
    '            expires TEXT, tags TEXT, scope TEXT, source TEXT, supersedes TEXT,\n'
    '            body TEXT,\n'
    '            embed_sha256 TEXT,               -- of the text given to the embedder\n'
    '            vec_model TEXT                   -- model id of the stored vector; NULL = missing\n'
    '        , conflict_of TEXT, blob TEXT)',
    'CREATE INDEX files_key ON files(key)',
    'CREATE INDEX files_expires ON files(expires) WHERE expires IS NOT NULL',
    'CREATE INDEX files_problem ON files(problem) WHERE problem IS NOT NULL',
    'CREATE INDEX files_vec_missing ON files(id) WHERE usable = 1 AND vec_model IS NULL',
    'CREATE TABLE tags (file_id INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (tag, file_id))\n'
    '            WITHOUT ROWID',
    'CREATE INDEX tags_file ON tags(file_id)',
    'CREATE TABLE supersedes (file_id INTEGER NOT NULL, target TEXT NOT NULL,\n'
    '            PRIMARY KEY (target, file_id)) WITHOUT ROWID',
    'CREATE INDEX supersedes_file ON supersedes(file_id)',
    'CREATE VIRTUAL TABLE fts USING fts5(\n'
    "            description, body, extra, tokenize = 'porter unicode61')",
    'CREATE INDEX files_duplicate ON files(duplicate_of) WHERE duplicate_of IS NOT NULL',
    'CREATE INDEX files_stat ON files(path, mtime_ns, size)',
    'CREATE INDEX files_index_order ON files(pinned DESC, type_rank, sort_date DESC, key, expires)\n'
    '            WHERE usable = 1 AND type_rank < 4',
    'CREATE TABLE vector_log (\n'
    '            id INTEGER PRIMARY KEY,          -- files.id\n'
    '            seq INTEGER NOT NULL,            -- change counter: readers refresh what changed\n'
    '            live INTEGER NOT NULL            -- 1 stored, 0 gone, -1 gone but still in vec_items\n'
    '        )',
    'CREATE INDEX vector_log_seq ON vector_log(seq)',
    'CREATE INDEX vector_log_stale ON vector_log(id) WHERE live = -1',
    'CREATE TABLE "embed_cache" (\n'
    '            id INTEGER PRIMARY KEY, model TEXT NOT NULL, text_sha256 TEXT NOT NULL, vector BLOB NOT NULL,\n'
    '            UNIQUE (model, text_sha256))',
    'CREATE TABLE counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL)',
    'CREATE TRIGGER files_listed_insert AFTER INSERT ON files WHEN (new.usable = 1 AND new.type_rank < 4 AND new.conflict_of IS NULL)\n'
    "        BEGIN UPDATE counters SET n = n + 1 WHERE name = 'index_listed'; END",
    'CREATE TRIGGER files_listed_delete AFTER DELETE ON files WHEN (old.usable = 1 AND old.type_rank < 4 AND old.conflict_of IS NULL)\n'
    "        BEGIN UPDATE counters SET n = n - 1 WHERE name = 'index_listed'; END",
    'CREATE TRIGGER files_listed_update AFTER UPDATE OF usable, type_rank, conflict_of ON files\n'
    '        WHEN (new.usable = 1 AND new.type_rank < 4 AND new.conflict_of IS NULL) != (old.usable = 1 AND old.type_rank < 4 AND old.conflict_of IS NULL)\n'
    "        BEGIN UPDATE counters SET n = n + (new.usable = 1 AND new.type_rank < 4 AND new.conflict_of IS NULL) - (old.usable = 1 AND old.type_rank < 4 AND old.conflict_of IS NULL) WHERE name = 'index_listed'; END",
    'CREATE TABLE floor_calibration (\n'
    '            model TEXT PRIMARY KEY, epoch TEXT NOT NULL, seq INTEGER NOT NULL,\n'
    '            vectors INTEGER NOT NULL, null_sims TEXT NOT NULL, made TEXT NOT NULL)',
    'CREATE TRIGGER files_listed_type_insert AFTER INSERT ON files WHEN (new.usable = 1 AND new.type_rank < 4 AND new.conflict_of IS NULL)\n'
    "        BEGIN UPDATE counters SET n = n + 1 WHERE name = 'index_listed:' || new.type_rank; END",
    'CREATE TRIGGER files_listed_type_delete AFTER DELETE ON files WHEN (old.usable = 1 AND old.type_rank < 4 AND old.conflict_of IS NULL)\n'
    "        BEGIN UPDATE counters SET n = n - 1 WHERE name = 'index_listed:' || old.type_rank; END",
    'CREATE TRIGGER files_listed_type_update AFTER UPDATE OF usable, type_rank, conflict_of ON files\n'
    '        WHEN (new.usable = 1 AND new.type_rank < 4 AND new.conflict_of IS NULL) != (old.usable = 1 AND old.type_rank < 4 AND old.conflict_of IS NULL) OR new.type_rank != old.type_rank\n'
    '        BEGIN\n'
    "            UPDATE counters SET n = n - (old.usable = 1 AND old.type_rank < 4 AND old.conflict_of IS NULL) WHERE name = 'index_listed:' || old.type_rank;\n"
    "            UPDATE counters SET n = n + (new.usable = 1 AND new.type_rank < 4 AND new.conflict_of IS NULL) WHERE name = 'index_listed:' || new.type_rank;\n"
    '        END',
    'CREATE TABLE changes (\n'
    '            path TEXT PRIMARY KEY,   -- vault-relative, POSIX\n'
    '            changed TEXT NOT NULL    -- ISO date\n'
    '        ) WITHOUT ROWID',
    'CREATE TABLE authors (\n'
    '            path TEXT PRIMARY KEY,   -- vault-relative, POSIX\n'
    '            commit_id TEXT NOT NULL,\n'
    '            email TEXT NOT NULL,\n'
    '            name TEXT NOT NULL,\n'
    '            blob TEXT NOT NULL       -- the committed blob: a file that differs was changed here\n'
    '        )',
    'CREATE INDEX authors_email ON authors(email)',
    'CREATE TABLE committed (\n'
    '            path TEXT PRIMARY KEY,   -- vault-relative, POSIX\n'
    '            blob TEXT NOT NULL\n'
    '        ) WITHOUT ROWID',
    'CREATE TABLE differs (path TEXT PRIMARY KEY) WITHOUT ROWID',
    'CREATE INDEX files_blob_missing ON files(path) WHERE blob IS NULL',
    'CREATE TRIGGER files_scan_insert AFTER INSERT ON files\n'
    "        BEGIN UPDATE counters SET n = n + 1 WHERE name = 'files_scan'; END",
    'CREATE TRIGGER files_scan_delete AFTER DELETE ON files\n'
    "        BEGIN UPDATE counters SET n = n + 1 WHERE name = 'files_scan'; END",
    'CREATE TRIGGER files_scan_update AFTER UPDATE OF path, mtime_ns, size ON files\n'
    '        WHEN old.path IS NOT new.path OR old.mtime_ns IS NOT new.mtime_ns OR old.size IS NOT new.size\n'
    "        BEGIN UPDATE counters SET n = n + CASE WHEN old.path IS NOT new.path THEN 2 ELSE 1 END WHERE name = 'files_scan'; END",
    'CREATE TABLE origins (\n'
    '            blob TEXT PRIMARY KEY,\n'
    '            commit_id TEXT NOT NULL,\n'
    '            email TEXT NOT NULL\n'
    '        ) WITHOUT ROWID',
    'CREATE TABLE foreign_texts (path TEXT PRIMARY KEY) WITHOUT ROWID',
    'CREATE INDEX authors_blob ON authors(blob)',
    'CREATE TRIGGER authors_foreign_insert AFTER INSERT ON authors BEGIN\n'
    '            DELETE FROM foreign_texts WHERE path = NEW.path;\n'
    '            INSERT OR IGNORE INTO foreign_texts(path) SELECT NEW.path WHERE EXISTS\n'
    '                (SELECT 1 FROM origins o WHERE o.blob = NEW.blob AND o.commit_id != NEW.commit_id);\n'
    '        END',
    'CREATE TRIGGER authors_foreign_update AFTER UPDATE ON authors BEGIN\n'
    '            DELETE FROM foreign_texts WHERE path IN (OLD.path, NEW.path);\n'
    '            INSERT OR IGNORE INTO foreign_texts(path) SELECT NEW.path WHERE EXISTS\n'
    '                (SELECT 1 FROM origins o WHERE o.blob = NEW.blob AND o.commit_id != NEW.commit_id);\n'
    '        END',
    'CREATE TRIGGER authors_foreign_delete AFTER DELETE ON authors BEGIN\n'
    '            DELETE FROM foreign_texts WHERE path = OLD.path;\n'
    '        END',
    'CREATE TRIGGER origins_foreign_insert AFTER INSERT ON origins BEGIN\n'
    '            INSERT OR IGNORE INTO foreign_texts(path)\n'
    '                SELECT a.path FROM authors a WHERE a.blob = NEW.blob AND a.commit_id != NEW.commit_id;\n'
    '        END',
    'CREATE TABLE sequence_maker (id INTEGER PRIMARY KEY AUTOINCREMENT)',
    'DROP TABLE sequence_maker',
    'CREATE TABLE "judge_log" (seq INTEGER PRIMARY KEY, path TEXT, blob TEXT)',
    'CREATE TRIGGER files_differs_insert AFTER INSERT ON files  BEGIN\n'
    '            DELETE FROM differs WHERE path = NEW.path AND NOT (NEW.blob IS NULL OR NEW.blob IS NOT (SELECT blob FROM committed WHERE path = NEW.path));\n'
    '            INSERT OR IGNORE INTO differs(path) SELECT NEW.path WHERE (NEW.blob IS NULL OR NEW.blob IS NOT (SELECT blob FROM committed WHERE path = NEW.path));\n'
    '        END',
    'CREATE TRIGGER files_differs_update AFTER UPDATE OF blob, path ON files WHEN OLD.blob IS NOT NEW.blob OR OLD.path IS NOT NEW.path BEGIN\n'
    '            DELETE FROM differs WHERE path = NEW.path AND NOT (NEW.blob IS NULL OR NEW.blob IS NOT (SELECT blob FROM committed WHERE path = NEW.path));\n'
    '            INSERT OR IGNORE INTO differs(path) SELECT NEW.path WHERE (NEW.blob IS NULL OR NEW.blob IS NOT (SELECT blob FROM committed WHERE path = NEW.path));\n'
    '        END',
    'CREATE TRIGGER files_differs_update_old AFTER UPDATE OF path ON files WHEN OLD.path IS NOT NEW.path BEGIN\n'
    '            DELETE FROM differs WHERE path = OLD.path AND NOT ((SELECT blob FROM files WHERE path = OLD.path) IS NOT (SELECT blob FROM committed WHERE path = OLD.path) OR EXISTS (SELECT 1 FROM files WHERE path = OLD.path AND blob IS NULL));\n'
    '            INSERT OR IGNORE INTO differs(path) SELECT OLD.path WHERE ((SELECT blob FROM files WHERE path = OLD.path) IS NOT (SELECT blob FROM committed WHERE path = OLD.path) OR EXISTS (SELECT 1 FROM files WHERE path = OLD.path AND blob IS NULL));\n'
    '        END',
    'CREATE TRIGGER files_differs_delete AFTER DELETE ON files  BEGIN\n'
    '            DELETE FROM differs WHERE path = OLD.path AND NOT ((SELECT blob FROM files WHERE path = OLD.path) IS NOT (SELECT blob FROM committed WHERE path = OLD.path) OR EXISTS (SELECT 1 FROM files WHERE path = OLD.path AND blob IS NULL));\n'
    '            INSERT OR IGNORE INTO differs(path) SELECT OLD.path WHERE ((SELECT blob FROM files WHERE path = OLD.path) IS NOT (SELECT blob FROM committed WHERE path = OLD.path) OR EXISTS (SELECT 1 FROM files WHERE path = OLD.path AND blob IS NULL));\n'
    '        END',
    'CREATE TRIGGER committed_differs_insert AFTER INSERT ON committed  BEGIN\n'
    '            DELETE FROM differs WHERE path = NEW.path AND NOT ((SELECT blob FROM files WHERE path = NEW.path) IS NOT (SELECT blob FROM committed WHERE path = NEW.path) OR EXISTS (SELECT 1 FROM files WHERE path = NEW.path AND blob IS NULL));\n'
    '            INSERT OR IGNORE INTO differs(path) SELECT NEW.path WHERE ((SELECT blob FROM files WHERE path = NEW.path) IS NOT (SELECT blob FROM committed WHERE path = NEW.path) OR EXISTS (SELECT 1 FROM files WHERE path = NEW.path AND blob IS NULL));\n'
    '        END',
    'CREATE TRIGGER committed_differs_update AFTER UPDATE ON committed  BEGIN\n'
    '            DELETE FROM differs WHERE path = NEW.path AND NOT ((SELECT blob FROM files WHERE path = NEW.path) IS NOT (SELECT blob FROM committed WHERE path = NEW.path) OR EXISTS (SELECT 1 FROM files WHERE path = NEW.path AND blob IS NULL));\n'
    '            INSERT OR IGNORE INTO differs(path) SELECT NEW.path WHERE ((SELECT blob FROM files WHERE path = NEW.path) IS NOT (SELECT blob FROM committed WHERE path = NEW.path) OR EXISTS (SELECT 1 FROM files WHERE path = NEW.path AND blob IS NULL));\n'
    '        END',
    'CREATE TRIGGER committed_differs_delete AFTER DELETE ON committed  BEGIN\n'
    '            DELETE FROM differs WHERE path = OLD.path AND NOT ((SELECT blob FROM files WHERE path = OLD.path) IS NOT (SELECT blob FROM committed WHERE path = OLD.path) OR EXISTS (SELECT 1 FROM files WHERE path = OLD.path AND blob IS NULL));\n'
    '            INSERT OR IGNORE INTO differs(path) SELECT OLD.path WHERE ((SELECT blob FROM files WHERE path = OLD.path) IS NOT (SELECT blob FROM committed WHERE path = OLD.path) OR EXISTS (SELECT 1 FROM files WHERE path = OLD.path AND blob IS NULL));\n'
    '        END',
    'CREATE TRIGGER files_judge_insert AFTER INSERT ON files  BEGIN INSERT INTO judge_log(path) VALUES (NEW.path); END',
    'CREATE TRIGGER files_judge_delete AFTER DELETE ON files  BEGIN INSERT INTO judge_log(path) VALUES (OLD.path); END',
    'CREATE TRIGGER files_judge_update AFTER UPDATE OF path, blob, usable ON files WHEN OLD.path IS NOT NEW.path OR OLD.blob IS NOT NEW.blob OR OLD.usable IS NOT NEW.usable BEGIN INSERT INTO judge_log(path) VALUES (NEW.path); INSERT INTO judge_log(path) SELECT OLD.path WHERE OLD.path IS NOT NEW.path; END',
    'CREATE TRIGGER authors_judge_insert AFTER INSERT ON authors  BEGIN INSERT INTO judge_log(path) VALUES (NEW.path); END',
    'CREATE TRIGGER authors_judge_delete AFTER DELETE ON authors  BEGIN INSERT INTO judge_log(path) VALUES (OLD.path); END',
    'CREATE TRIGGER differs_judge_insert AFTER INSERT ON differs  BEGIN INSERT INTO judge_log(path) VALUES (NEW.path); END',
    'CREATE TRIGGER differs_judge_delete AFTER DELETE ON differs  BEGIN INSERT INTO judge_log(path) VALUES (OLD.path); END',
    'CREATE TRIGGER foreign_judge_insert AFTER INSERT ON foreign_texts  BEGIN INSERT INTO judge_log(path) VALUES (NEW.path); END',
    'CREATE TRIGGER foreign_judge_delete AFTER DELETE ON foreign_texts  BEGIN INSERT INTO judge_log(path) VALUES (OLD.path); END',
    'CREATE TRIGGER origins_judge_insert AFTER INSERT ON origins  BEGIN INSERT INTO judge_log(blob) VALUES (NEW.blob); END',
    'CREATE TRIGGER origins_judge_delete AFTER DELETE ON origins  BEGIN INSERT INTO judge_log(blob) VALUES (OLD.blob); END',
    'CREATE TRIGGER judge_log_prune AFTER INSERT ON judge_log WHEN NEW.seq % 1024 = 0 BEGIN DELETE FROM judge_log WHERE seq <= NEW.seq - 20000; END',
    'CREATE TABLE kept_judgement (id INTEGER PRIMARY KEY CHECK (id = 1),\n'
    '            state TEXT NOT NULL, token TEXT NOT NULL, judgement TEXT NOT NULL)',
    'CREATE TABLE kept_judgement_paths (path TEXT PRIMARY KEY, email TEXT, standing TEXT)\n'
    '            WITHOUT ROWID',
    'CREATE TABLE peer_lines (hash INTEGER PRIMARY KEY, commit_id TEXT NOT NULL, email TEXT NOT NULL)',
)

#: (table, row): the rows the migrations write into a new file
ROWS: tuple[tuple[str, tuple], ...] = (
    ('counters', ('index_listed', 0)),
    ('counters', ('index_listed:0', 0)),
    ('counters', ('index_listed:1', 0)),
    ('counters', ('index_listed:2', 0)),
    ('counters', ('index_listed:3', 0)),
    ('counters', ('files_scan', 0)),
)
