"""A new sidecar is made directly at the current schema (vault_mem/index/fresh_schema.py), and is
the file the migrations make from the oldest schema: every ``sqlite_master`` row in order, every
row of every table, the pragmas that describe the file."""

from __future__ import annotations

from pathlib import Path

from vault_mem.index import db as dbmod
from vault_mem.index import fresh_schema

REGENERATE = "made again by: python -c 'from vault_mem.index import db; db.write_fresh_schema()'"
PRAGMAS = ("user_version", "application_id", "encoding", "page_size", "auto_vacuum", "journal_mode",
           "foreign_keys", "integrity_check")


def _file(db) -> dict:
    """What a sidecar file is, all but where its pages lie (``rootpage``, the free list: a
    migration that dropped a table leaves its pages free) and SQLite's own schema counter."""
    master = [tuple(r) for r in db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid")]
    rows = {}
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
                               "'CREATE VIRTUAL TABLE%'").fetchall():
        rows[table] = sorted(tuple(r) for r in db.execute(f'SELECT * FROM "{table}"'))
    pragmas = {p: [tuple(r) for r in db.execute(f"PRAGMA {p}")] for p in PRAGMAS}
    return {"sqlite_master": master, "rows": rows, "pragmas": pragmas}


def _migrated_from_the_oldest(path: Path, monkeypatch) -> None:
    """``path`` made at schema 1 (as the first release made it), then opened by this build."""
    migrations, version = dbmod.MIGRATIONS, dbmod.SCHEMA_VERSION
    monkeypatch.setattr(dbmod, "MIGRATIONS", migrations[:1])
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 1)
    dbmod.connect(path).close()
    monkeypatch.setattr(dbmod, "MIGRATIONS", migrations)
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", version)


def test_a_new_sidecar_is_the_one_migrated_from_the_oldest_schema(tmp_path: Path, monkeypatch) -> None:
    old = tmp_path / "old" / "index.db"
    old.parent.mkdir()
    _migrated_from_the_oldest(old, monkeypatch)
    migrated = dbmod.connect(old)
    fresh = dbmod.connect(tmp_path / "fresh.db")
    try:
        assert migrated.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
        made, expected = _file(fresh), _file(migrated)
        assert made["sqlite_master"] == expected["sqlite_master"]
        assert made == expected
        assert made["pragmas"]["integrity_check"] == [("ok",)]
        assert made["rows"]["counters"] and "sqlite_sequence" in made["rows"]
    finally:
        fresh.close()
        migrated.close()


def test_the_fresh_schema_module_holds_what_the_migrations_make() -> None:
    """A migration added or changed without ``db.write_fresh_schema()`` fails here
    (a new sidecar would still be right: a module of another VERSION makes db migrate)."""
    statements, rows = dbmod.migrated_schema()
    assert fresh_schema.VERSION == dbmod.SCHEMA_VERSION == len(dbmod.MIGRATIONS)
    assert list(fresh_schema.STATEMENTS) == statements, REGENERATE
    assert list(fresh_schema.ROWS) == rows, REGENERATE


def test_a_module_of_another_version_makes_a_new_sidecar_by_the_migrations(tmp_path: Path, monkeypatch) -> None:
    fresh = dbmod.connect(tmp_path / "fresh.db")
    expected = _file(fresh)
    fresh.close()
    monkeypatch.setattr(fresh_schema, "VERSION", dbmod.SCHEMA_VERSION - 1)
    monkeypatch.setattr(fresh_schema, "STATEMENTS", ("CREATE TABLE wrong (x)",))
    made = dbmod.connect(tmp_path / "migrated.db")
    try:
        assert _file(made) == expected
    finally:
        made.close()


def test_a_sidecar_made_by_another_process_meanwhile_is_not_made_again(tmp_path: Path) -> None:
    """The direct path is for an empty file only: one that has tables (at version 0 or later)
    goes through the migrations, which refuse or upgrade it as before."""
    path = tmp_path / "index.db"
    dbmod.connect(path).close()
    again = dbmod.connect(path)
    try:
        assert again.execute("SELECT count(*) FROM counters").fetchone()[0] == len(
            [r for r in fresh_schema.ROWS if r[0] == "counters"])
    finally:
        again.close()
