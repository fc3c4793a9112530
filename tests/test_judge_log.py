"""The peers' judgement's log (``judge_log``, kept by the sidecar's triggers: ``index/db.m016``,
``m017``) at a write's cost in proportion to what changed: each change named once, nothing
logged for a row read again with the same bytes, no ``sqlite_sequence`` row written per entry;
and a sidecar migrated from schema 16 the same as one made anew, its entries kept. What the log
must name for the incremental judgement is proved by tests/test_peer_judged_again.py (which
compares it with the whole judgement after random real changes) and tests/test_peer_kept.py."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import new_vault

from vault_mem.index import authors as rows
from vault_mem.index import db as dbmod


def _logged(db, since: int) -> list[str | None]:
    return [r[0] for r in db.execute("SELECT path FROM judge_log WHERE seq > ? ORDER BY seq", (since,))]


def test_each_change_is_logged_once_and_a_row_read_again_unchanged_logs_nothing(tmp_path: Path) -> None:
    vault = new_vault(tmp_path / "v")
    try:
        vault.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
        db, path = vault.sidecar.db, vault.root / "facts" / "deploy-window.md"
        rel = "facts/deploy-window.md"

        def step(change) -> tuple[list[str | None], int]:
            head, changes = rows.judge_log_head(db), db.conn.total_changes
            change()
            vault.reconcile()
            return _logged(db, head), db.conn.total_changes - changes

        def edit(line: str) -> None:
            path.write_text(path.read_text() + line + "\n")

        # its row's blob (1) and the path now differing from the commit (1); on main also the
        # unchanged path as the row's OLD and NEW path (3)
        logged, _ = step(lambda: edit("Except in December."))
        assert logged == [rel, rel]
        # it still differs: the differs row stays (on main deleted and inserted again: 4 entries)
        logged, _ = step(lambda: edit("And not on holidays."))
        assert logged == [rel]
        # the same bytes read again (a touch): its row's stat data alone, nothing logged; on main
        # the differs row was deleted and inserted again (2 entries, 4 more rows changed)
        stat = path.stat()
        logged, changed = step(lambda: os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9)))
        assert logged == []
        assert changed <= 3, changed  # the row, the scan counter (m014) and the scan sum
        # the log's head is its newest entry: no sqlite_sequence row written with each one
        assert db.execute("SELECT count(*) FROM sqlite_sequence WHERE name = 'judge_log'").fetchone()[0] == 0
        assert rows.judge_log_head(db) == db.execute("SELECT max(seq) FROM judge_log").fetchone()[0]
    finally:
        vault.close()


def _schema(db) -> list[tuple]:
    return [tuple(r) for r in db.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%' "
        "ORDER BY type, name")]


def test_a_sidecar_migrated_from_schema_16_is_the_one_made_anew_and_keeps_its_log(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    vault = new_vault(tmp_path / "v")
    path = vault.sidecar.db.path
    vault.close()
    path.unlink()
    for extra in ("-wal", "-shm"):
        Path(f"{path}{extra}").unlink(missing_ok=True)
    migrations, version = dbmod.MIGRATIONS, dbmod.SCHEMA_VERSION
    monkeypatch.setattr(dbmod, "MIGRATIONS", migrations[:16])
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 16)
    from vault_mem import Vault
    with Vault(vault.root) as old:
        old.reconcile(force=True)
        old.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
        db = old.sidecar.db
        assert db.execute("PRAGMA user_version").fetchone()[0] == 16
        entries = [tuple(r) for r in db.execute("SELECT seq, path, blob FROM judge_log ORDER BY seq")]
        head = rows.judge_log_head(db)
    assert entries and head == entries[-1][0]
    monkeypatch.setattr(dbmod, "MIGRATIONS", migrations)
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", version)
    with Vault(vault.root) as migrated:
        db = migrated.sidecar.db
        assert db.execute("PRAGMA user_version").fetchone()[0] == version
        assert [tuple(r) for r in db.execute("SELECT seq, path, blob FROM judge_log ORDER BY seq")] == entries
        assert rows.judge_log_head(db) == head  # a reader's seq stays of this log
        assert rows.judge_log_since(db, head) == (head, set(), set())
        migrated.remember("standup", "The standup moved to 9:30", "From Monday.")
        newest, paths, _blobs = rows.judge_log_since(db, head)
        assert newest > head and "facts/standup.md" in paths
        assert migrated.sidecar.doctor() == []
        schema = _schema(db)
    fresh = dbmod.connect(tmp_path / "fresh.db")
    try:
        assert _schema(fresh) == schema
        assert "AUTOINCREMENT" not in dict((r[1], r[3]) for r in schema)["judge_log"]
    finally:
        fresh.close()
