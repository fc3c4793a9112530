"""The sidecar against real SQLite (FTS5) and real vectors, with the deterministic fake embedder."""

from __future__ import annotations

import datetime as dt
import multiprocessing as mp
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import FakeEmbedder, vm_steps, write_memory

from vault_mem.model.indexmd import READER_NOTE
from vault_mem.config import Config
from vault_mem.index import vectors as vectors_mod
from vault_mem.index.sidecar import Sidecar

TODAY = dt.date(2026, 3, 1)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    write_memory(root, "editor", "Uses Helix as the main editor", "Switched from Neovim for the LSP support.")
    write_memory(root, "coffee", "Takes oat milk in coffee", type_="preference")
    write_memory(root, "deploy", "How to deploy the blog", "1. build\n2. rsync to the host", type_="procedure")
    write_memory(root, "db-choice", "Chose SQLite over Postgres for the sidecar", "Reason: one file.",
                 type_="decision")
    write_memory(root, "trip", "Trip to Lisbon in May", "Flights booked.", type_="note")
    return root


def open_sidecar(root: Path, embedder=None, **kw) -> Sidecar:
    return Sidecar(root, Config(), embedder=embedder if embedder is not None else FakeEmbedder(), **kw)


def snapshot(sc: Sidecar, queries=("editor", "deploy blog", "coffee milk", "lisbon")):
    return [[(h.key, h.score) for h in sc.recall(q, today=TODAY).hits] for q in queries]


def test_reconcile_add_update_remove(vault: Path) -> None:
    sc = open_sidecar(vault)
    r = sc.reconcile()
    assert (r.added, r.updated, r.removed, r.unchanged) == (5, 0, 0, 0)
    assert r.changed and r.embedded == 5
    r = sc.reconcile()
    assert (r.added, r.updated, r.removed, r.unchanged, r.changed) == (0, 0, 0, 5, False)
    write_memory(vault, "editor", "Uses Zed as the main editor", "Moved on from Helix.")
    (vault / "notes" / "trip.md").unlink()
    r = sc.reconcile()
    assert (r.added, r.updated, r.removed) == (0, 1, 1)
    assert sc.recall("zed", today=TODAY).hits[0].key == "editor"
    assert sc.lookup("trip") is None
    assert sc.keys() == ["coffee", "db-choice", "deploy", "editor"]
    sc.close()


def test_reconcile_progress_called_only_when_work(vault: Path) -> None:
    sc = open_sidecar(vault)
    calls: list[tuple[int, int]] = []
    sc.reconcile(progress=lambda d, t: calls.append((d, t)))
    assert calls and calls[-1][0] == calls[-1][1]
    calls.clear()
    sc.reconcile(progress=lambda d, t: calls.append((d, t)))
    assert calls == []


def test_refresh_paths_upserts_and_deletes(vault: Path) -> None:
    sc = open_sidecar(vault)
    sc.reconcile()
    rel = write_memory(vault, "shell", "Uses fish as the shell")
    r = sc.refresh_paths([rel, "facts/editor.md"])
    assert r.added == 1
    assert sc.recall("fish shell", today=TODAY).hits[0].key == "shell"
    (vault / rel).unlink()
    r = sc.refresh_paths([rel, "not/a/memory.txt"])
    assert r.removed == 1 and sc.lookup("shell") is None


def test_rebuild_equals_incremental(vault: Path) -> None:
    sc = open_sidecar(vault)
    sc.reconcile()
    write_memory(vault, "editor", "Uses Zed as the main editor", "Moved on from Helix.")
    write_memory(vault, "shell", "Uses fish as the shell", tags=["tools"], supersedes=["bash-config"])
    (vault / "notes" / "trip.md").unlink()
    sc.reconcile()
    assert sc.doctor() == []
    before = snapshot(sc)
    sc.rebuild()
    assert sc.doctor() == []
    assert snapshot(sc) == before


def test_deleting_index_db_loses_nothing(vault: Path) -> None:
    emb = FakeEmbedder()
    sc = open_sidecar(vault, emb)
    sc.reconcile()
    before = snapshot(sc)
    entries = list(sc.entries_for_index(TODAY))
    sc.close()
    for p in (vault / ".vault-mem").glob("index.db*"):
        p.unlink()
    sc = open_sidecar(vault, emb)
    sc.reconcile()
    assert snapshot(sc) == before
    assert list(sc.entries_for_index(TODAY)) == entries


def test_model_change_reembeds_and_never_mixes(vault: Path) -> None:
    v1 = FakeEmbedder("fake:v1")
    sc = open_sidecar(vault, v1)
    sc.reconcile()
    assert len(v1.calls) == 5
    sc.close()
    v2 = FakeEmbedder("fake:v2", dimensions=32)
    sc = open_sidecar(vault, v2)
    r = sc.reconcile()
    assert r.embedded == 5 and len(v2.calls) == 5
    models = {row[0] for row in sc.db.execute("SELECT vec_model FROM files WHERE usable = 1")}
    assert models == {"fake:v2"}
    assert sc.get_meta("vec_model") == "fake:v2" and sc.get_meta("vec_dims") == "32"
    assert sc.recall("helix editor", today=TODAY).embedder == "fake:v2"
    assert sc.doctor() == []
    sc.close()
    # Back to v1: everything comes from the embedding cache.
    v1b = FakeEmbedder("fake:v1")
    sc = open_sidecar(vault, v1b)
    r = sc.reconcile()
    assert r.embedded == 5 and v1b.calls == []
    assert {row[0] for row in sc.db.execute("SELECT vec_model FROM files")} == {"fake:v1"}


def test_rebuild_and_revert_reuse_embedding_cache(vault: Path) -> None:
    emb = FakeEmbedder()
    sc = open_sidecar(vault, emb)
    sc.reconcile()
    original = (vault / "facts" / "editor.md").read_bytes()
    write_memory(vault, "editor", "Uses Zed as the main editor")
    sc.reconcile()
    n = len(emb.calls)
    (vault / "facts" / "editor.md").write_bytes(original)  # a git revert
    sc.reconcile()
    sc.rebuild()
    assert len(emb.calls) == n


def test_keyword_only_when_vec_disabled_is_flagged(vault: Path, monkeypatch) -> None:
    monkeypatch.setenv("VAULT_MEM_DISABLE_VEC", "1")
    emb = FakeEmbedder()
    sc = open_sidecar(vault, emb)
    sc.reconcile()
    res = sc.recall("helix editor", today=TODAY)
    assert res.keyword_only and "VAULT_MEM_DISABLE_VEC" in (res.reason or "")
    assert res.hits and all(h.keyword_only for h in res.hits)
    assert emb.calls == []  # no vectors wanted, so the model is never used


def test_keyword_only_when_embedder_none(vault: Path) -> None:
    sc = Sidecar(vault, Config(), embedder=None)
    sc.reconcile()
    res = sc.recall("helix editor", today=TODAY)
    assert res.keyword_only and res.reason == "embedder is 'none'" and res.embedder is None
    assert res.hits[0].key == "editor"


def test_embedder_down_keeps_keywords_and_fills_later(vault: Path, monkeypatch) -> None:
    monkeypatch.setattr(vectors_mod, "EMBED_RETRY_S", 0.0)
    emb = FakeEmbedder()
    emb.fail = True
    sc = open_sidecar(vault, emb)
    r = sc.reconcile()
    assert r.added == 5 and r.embedded == 0
    res = sc.recall("helix editor", today=TODAY)
    assert res.keyword_only and "embedder failed" in res.reason
    assert res.hits[0].key == "editor"
    emb.fail = False
    r = sc.reconcile()
    assert r.embedded == 5
    res = sc.recall("helix editor", today=TODAY)
    assert not res.keyword_only and res.reason is None
    assert sc.doctor() == []


def test_list_and_index_do_not_load_the_embedder(vault: Path) -> None:
    sc = Sidecar(vault, Config())  # DEFAULT embedder: built only when a vector is needed
    sc.reconcile()
    write_memory(vault, "shell", "Uses fish")
    sc.refresh_paths(["facts/shell.md"])
    sc.list_entries(type="fact")
    list(sc.entries_for_index(TODAY))
    sc.count_for_index(TODAY)
    sc.lookup("editor")
    sc.keys()
    assert sc.vectors._embedder_ready is False


def test_entries_for_index_order_and_exclusions(tmp_path: Path) -> None:
    root = tmp_path
    write_memory(root, "old-fact", "An old fact", updated=dt.date(2025, 1, 1))
    write_memory(root, "new-fact", "A new fact", updated=dt.date(2026, 2, 1))
    write_memory(root, "pinned-proc", "A pinned procedure", type_="procedure", pinned=True)
    write_memory(root, "pref", "A preference", type_="preference")
    write_memory(root, "dec", "A decision", type_="decision")
    write_memory(root, "a-note", "A note", type_="note")
    write_memory(root, "gone", "Expired fact", expires=dt.date(2026, 2, 1))
    write_memory(root, "future", "Not yet expired", expires=dt.date(2026, 3, 1))
    write_memory(root, "neovim", "Uses Neovim")
    write_memory(root, "helix", "Uses Helix", supersedes=["neovim"])
    sc = open_sidecar(root)
    sc.reconcile()
    keys = [e.key for e in sc.entries_for_index(TODAY)]
    assert keys == ["pinned-proc", "pref", "new-fact", "future", "helix", "old-fact", "dec"]
    assert sc.count_for_index(TODAY) == len(keys)
    first = next(iter(sc.entries_for_index(TODAY)))
    assert first.pinned and first.path == "procedures/pinned-proc.md" and first.date == "2026-01-05"
    # Lazy: taking two entries does not read the rest.
    gen = sc.entries_for_index(TODAY)
    assert [next(gen).key, next(gen).key] == ["pinned-proc", "pref"]
    gen.close()


def test_meta_roundtrip(vault: Path) -> None:
    sc = open_sidecar(vault)
    assert sc.get_meta("head") is None
    sc.set_meta("head", "abc123")
    sc.set_meta("head", "def456")
    assert sc.get_meta("head") == "def456"
    sc.set_meta("head", None)  # None removes the row
    assert sc.get_meta("head") is None
    assert sc.db.execute("SELECT count(*) FROM meta WHERE name = 'head'").fetchone()[0] == 0


def test_the_authors_rows_kept_in_meta_read_as_none_when_absent_or_damaged(vault: Path) -> None:
    """index/authors.py keeps derived JSON in ``meta`` rows (peer lineage, moves, the refs scanned
    for origins, path histories, adoption states): each reads as "nothing kept" when its row is
    absent, damaged or of another shape, and as what was kept otherwise; an empty lineage or
    move set removes its row."""
    from vault_mem.index import authors

    db = open_sidecar(vault).db
    readers = {authors.LINEAGE: lambda: authors.lineage_paths(db), authors.MOVED: lambda: authors.moved_from(db), authors.DELETED: lambda: authors.deleted_here(db),
               authors.ORIGINS_TIPS: lambda: authors.origins_state(db, "stamp"),
               authors.PATH_HISTORIES: lambda: authors.path_histories(db),
               authors.ADOPTION: lambda: authors.adoption_states(db)}
    nothing = {authors.LINEAGE: set(), authors.MOVED: {}, authors.DELETED: {}, authors.ORIGINS_TIPS: [],
               authors.PATH_HISTORIES: (None, {}), authors.ADOPTION: {}}
    for name, read in readers.items():
        assert read() == nothing[name], name
        for bad in ('{"a": [1, 2', '"a string"', "7"):
            db.set_meta(name, bad)
            assert read() == nothing[name], (name, bad)
    authors.replace(db, "c1", {"facts/a.md": ("c1", "a@x", "A", "b1")}, {"facts/a.md"},
                    {"facts/b.md": ("c1", "facts/a.md", "c0")}, {"facts/c.md": ("c1", "b2")})
    assert authors.stored_head(db) == "c1"
    assert authors.lineage_paths(db) == {"facts/a.md"}
    assert authors.moved_from(db) == {"facts/b.md": ("c1", "facts/a.md", "c0")}
    assert authors.deleted_here(db) == {"facts/c.md": ("c1", "b2")}
    db.set_meta(authors.MOVED, '{"facts/b.md": ["c1", "facts/a.md"]}')  # kept before moves split over commits
    assert authors.moved_from(db) == {"facts/b.md": ("c1", "facts/a.md", "c1")}
    authors.keep_path_histories(db, "c1", {"facts/a.md": [["c1", "a@x", "A", "b1"]]})
    assert authors.path_histories(db) == ("c1", {"facts/a.md": [["c1", "a@x", "A", "b1"]]})
    authors.keep_adoption_states(db, {"facts/a.md": ["k", "s"]})
    assert authors.adoption_states(db) == {"facts/a.md": ["k", "s"]}
    authors.replace(db, "c2", {}, set(), {})
    assert db.execute("SELECT count(*) FROM meta WHERE name IN (?, ?)",
                      (authors.LINEAGE, authors.MOVED)).fetchone()[0] == 0


def _bad(root: Path, rel: str, data: bytes) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_bytes(data)


@pytest.mark.parametrize("portable", [False, True])
def test_a_loop_of_links_is_refused_by_name_and_every_other_memory_read(vault: Path, monkeypatch,
                                                                        portable: bool) -> None:
    """A memory-named link in a loop of links (``facts/loop.md -> loop.md``, a person's slip):
    the read refuses it by name, as any link, and answers from the rest; it made every read and
    ``doctor`` fail with "Too many levels of symbolic links" (GNU find's listing fails on it, and
    the stat of each file that stands in for it raised)."""
    if portable:
        monkeypatch.setenv("VAULT_MEM_PORTABLE", "1")
    os.symlink("loop.md", vault / "facts" / "loop.md")
    os.symlink("ping.md", vault / "notes" / "pong.md")
    os.symlink("pong.md", vault / "notes" / "ping.md")
    sc = open_sidecar(vault)
    reasons = {p.path: p.reason for p in sc.reconcile().problems}
    assert set(reasons) == {"facts/loop.md", "notes/ping.md", "notes/pong.md"}
    assert all("loop of links" in why for why in reasons.values()), reasons
    assert sc.lookup("editor") == ("fact", "facts/editor.md")
    sc.close()


def test_problems_recorded_with_reasons(vault: Path, tmp_path: Path) -> None:
    good = b"---\ndescription: ok\n---\nbody\n"
    _bad(vault, "facts/Bad Name.md", good)
    _bad(vault, "facts/no-front.md", b"just text\n")
    _bad(vault, "facts/doubled.md", b"---\ndescription: a\n---\n---\ndescription: b\n---\nbody\n")
    _bad(vault, "facts/latin1.md", "---\ndescription: caf\xe9\n---\n".encode("latin-1"))
    _bad(vault, "facts/binary.md", b"---\ndescription: x\n---\n\x00\x01\x02")
    _bad(vault, "facts/huge.md", b"---\ndescription: big\n---\n" + b"x" * (Config().max_file_bytes + 10))
    _bad(vault, "facts/no-desc.md", b"---\ntags: [a]\n---\nbody\n")
    outside = tmp_path / "outside.md"
    outside.write_bytes(good)
    os.symlink(outside, vault / "facts" / "escape.md")
    os.symlink(vault / "facts" / "editor.md", vault / "facts" / "inside-link.md")
    _bad(vault, "notes/editor.md", good)  # same key as facts/editor.md: the later path loses
    _bad(vault, "facts/.editor.md.swp", b"\x00swap")  # editor files are ignored, not problems
    _bad(vault, "facts/.#lock.md", b"")
    before = {p: p.read_bytes() for p in vault.rglob("*.md") if p.is_file()}
    sc = open_sidecar(vault)
    r = sc.reconcile()
    reasons = {p.path: p.reason for p in r.problems}
    assert set(reasons) == {"facts/Bad Name.md", "facts/no-front.md", "facts/doubled.md", "facts/latin1.md",
                            "facts/binary.md", "facts/huge.md", "facts/no-desc.md", "facts/escape.md",
                            "facts/inside-link.md", "notes/editor.md"}
    assert "invalid key" in reasons["facts/Bad Name.md"] and "bad-name" in reasons["facts/Bad Name.md"]
    assert "frontmatter" in reasons["facts/no-front.md"]
    assert "second frontmatter" in reasons["facts/doubled.md"]
    assert "UTF-8" in reasons["facts/latin1.md"]
    assert "NUL" in reasons["facts/binary.md"]
    assert "limit" in reasons["facts/huge.md"]
    assert "description" in reasons["facts/no-desc.md"]
    assert "outside the vault" in reasons["facts/escape.md"]
    assert "facts/editor.md" in reasons["notes/editor.md"]
    assert sc.lookup("editor") == ("fact", "facts/editor.md")
    # a link is never followed, wherever it points (DESIGN §7): the index refuses what `get` refuses
    assert "symlink" in reasons["facts/inside-link.md"] and "inside the vault" in reasons["facts/inside-link.md"]
    assert sc.lookup("inside-link") is None
    assert sc.problems() == r.problems
    # Never writes to a memory file.
    assert {p: p.read_bytes() for p in vault.rglob("*.md") if p.is_file()} == before
    # The duplicate goes away when its owner does: the later file takes the key.
    (vault / "facts" / "editor.md").unlink()
    (vault / "facts" / "inside-link.md").unlink()
    sc.reconcile()
    assert sc.lookup("editor") == ("note", "notes/editor.md")
    assert "notes/editor.md" not in {p.path for p in sc.problems()}


def test_last_good_version_stays_searchable(vault: Path) -> None:
    sc = open_sidecar(vault)
    sc.reconcile()
    path = vault / "facts" / "editor.md"
    good = path.read_bytes()
    path.write_bytes(b"---\ndescription: [unclosed\n---\nbroken\n")
    r = sc.reconcile()
    (problem,) = r.problems
    assert problem.path == "facts/editor.md" and "YAML" in problem.reason and "last good version" in problem.reason
    hits = sc.recall("helix editor", today=TODAY).hits
    assert hits and hits[0].key == "editor" and "Helix" in hits[0].description
    assert sc.doctor() == []  # as designed, not a drift (problems() reports it)
    sc.rebuild()  # a rebuild cannot re-create the kept version from the files: it keeps it
    assert sc.recall("helix editor", today=TODAY).hits[0].key == "editor"
    assert [p.path for p in sc.problems()] == ["facts/editor.md"] and sc.doctor() == []
    path.write_bytes(good)
    r = sc.reconcile()
    assert r.problems == [] and sc.doctor() == []


def test_corrupt_database_is_moved_aside_and_rebuilt(vault: Path, caplog) -> None:
    state = vault / ".vault-mem"
    state.mkdir()
    (state / "index.db").write_bytes(b"this is not a database at all" * 100)
    sc = open_sidecar(vault)
    assert list(state.glob("index.db.corrupt-*"))
    assert "damaged" in caplog.text
    sc.reconcile()
    assert sc.recall("helix", today=TODAY).hits[0].key == "editor"


def test_truncated_database_is_rebuilt(vault: Path) -> None:
    sc = open_sidecar(vault)
    sc.reconcile()
    sc.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    sc.close()
    db = vault / ".vault-mem" / "index.db"
    db.write_bytes(db.read_bytes()[:1500])
    sc = open_sidecar(vault)
    sc.reconcile()
    assert sc.recall("helix", today=TODAY).hits[0].key == "editor"
    assert sc.doctor() == []


def _reconcile_in_process(root: str, rounds: int) -> str:
    sys.path.insert(0, str(Path(__file__).parent))
    from fakes import FakeEmbedder as FE

    try:
        for _ in range(rounds):
            sc = Sidecar(Path(root), Config(), embedder=FE())
            sc.reconcile()
            sc.recall("memory number", today=TODAY)
            sc.close()
        return "ok"
    except Exception as exc:  # noqa: BLE001 - report to the parent
        return f"{type(exc).__name__}: {exc}"


def test_concurrent_processes_reconcile_without_duplicates_or_lock_errors(tmp_path: Path) -> None:
    root = tmp_path / "v"
    for i in range(400):
        write_memory(root, f"m{i:04d}", f"Memory number {i}", f"Body of memory {i} with some words")
    ctx = mp.get_context("spawn")
    with ctx.Pool(4) as pool:
        results = pool.starmap(_reconcile_in_process, [(str(root), 2)] * 4)
    assert results == ["ok"] * 4
    sc = open_sidecar(root)
    assert sc.db.execute("SELECT count(*) FROM files").fetchone()[0] == 400
    assert sc.db.execute("SELECT count(*) FROM fts").fetchone()[0] == 400
    assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 400  # sqlite-vec vec0
    assert sc.db.execute("SELECT count(*) FROM vector_log WHERE live = 1").fetchone()[0] == 400
    assert sc.doctor() == []


def test_list_entries_filters(vault: Path) -> None:
    write_memory(vault, "shell", "Uses fish", tags=["tools", "cli"])
    sc = open_sidecar(vault)
    sc.reconcile()
    assert [e["key"] for e in sc.list_entries()] == ["coffee", "editor", "shell", "db-choice", "deploy", "trip"]
    assert [e["key"] for e in sc.list_entries(type="fact", tags=["cli"])] == ["shell"]
    (entry,) = sc.list_entries(tags=["tools", "cli"])
    assert entry == {"key": "shell", "type": "fact", "description": "Uses fish", "date": "2026-01-05",
                     "path": "facts/shell.md", "tags": ["tools", "cli"], "pinned": False}


def test_migrations_upgrade_an_old_database(vault: Path, monkeypatch) -> None:
    from vault_mem.index import db as dbmod

    path = vault / ".vault-mem" / "index.db"
    migrations, version = dbmod.MIGRATIONS, dbmod.SCHEMA_VERSION
    monkeypatch.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:1])
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 1)
    old = dbmod.connect(path, made_for=vault)  # made here: migrated, not made again
    assert old.execute("PRAGMA user_version").fetchone()[0] == 1
    old.close()
    # put back the schema alone (monkeypatch.undo() would also put back the test machine's
    # config folder, whose key made the index: a database not made here is made again)
    monkeypatch.setattr(dbmod, "MIGRATIONS", migrations)
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", version)
    sc = open_sidecar(vault)
    assert sc.db.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION == len(dbmod.MIGRATIONS)
    sc.reconcile()
    assert sc.recall("helix editor", today=TODAY).hits[0].key == "editor"
    assert sc.doctor() == []


def test_newer_schema_is_refused_with_advice(vault: Path) -> None:
    from vault_mem.errors import IndexStoreError
    from vault_mem.index import db as dbmod

    sc = open_sidecar(vault)
    sc.db.execute("PRAGMA user_version = 99")
    sc.close()
    with pytest.raises(IndexStoreError, match="newer vault-mem"):
        dbmod.connect(vault / ".vault-mem" / "index.db")


def test_database_damaged_while_in_use_is_rebuilt(vault: Path) -> None:
    for i in range(300):
        write_memory(vault, f"filler-{i}", f"Filler memory {i}", "padding text " * 40)
    sc = open_sidecar(vault)
    sc.reconcile()
    sc.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    sc.close()
    db = vault / ".vault-mem" / "index.db"
    data = bytearray(db.read_bytes())
    page = 4096
    for start in range(page * 3, len(data) - page, page * 2):  # trash every other page after the schema
        data[start:start + page] = b"\xff" * page
    db.write_bytes(bytes(data))
    sc = open_sidecar(vault)
    sc.reconcile()
    assert sc.recall("helix editor", today=TODAY).hits[0].key == "editor"
    assert sc.doctor() == []
    assert list((vault / ".vault-mem").glob("index.db.corrupt-*"))


def test_index_count_follows_every_change_of_the_listed_rows(tmp_path: Path) -> None:
    """The counted number INDEX.md shows equals a count of every row, through adds, edits,
    type moves, broken files, duplicate keys, conflict copies, expiry, supersedes, deletes and
    a rebuild."""
    root = tmp_path
    sc = open_sidecar(root)

    def check() -> None:
        sc.reconcile()
        for day in (TODAY, dt.date(2026, 2, 15), dt.date(2027, 1, 1)):
            assert sc.count_for_index(day) == sc.count_for_index_by_scan(day) == \
                len(list(sc.entries_for_index(day))), day
            for rank in range(4):  # each section's own counter (its "+N more" line)
                assert sc.count_for_index(day, rank) == sc.count_for_index_by_scan(day, rank) == \
                    len(list(sc.entries_for_index(day, rank))), (day, rank)

    for i in range(6):
        write_memory(root, f"fact-{i}", f"Fact number {i}")
    write_memory(root, "a-note", "A note is not listed", type_="note")
    check()
    write_memory(root, "fact-1", "Fact one, now a preference", type_="preference")
    (root / "facts" / "fact-1.md").unlink()  # a move between type folders
    write_memory(root, "fact-2", "Fact two, edited")
    check()
    (root / "facts" / "fact-3.md").write_text("---\ndescription: [unclosed\n---\n")  # broken: kept version
    check()
    write_memory(root, "fact-4", "Same key in another folder", type_="decision")  # duplicate key
    write_memory(root, "fact-5.conflict-abcdef1", "A sync conflict copy", conflict_of="fact-5")
    check()
    write_memory(root, "soon", "Expires mid February", expires=dt.date(2026, 2, 10))
    write_memory(root, "later", "Expires next year", expires=dt.date(2026, 12, 1))
    write_memory(root, "new-0", "Replaces fact 0", supersedes=["fact-0", "no-such-key"])
    write_memory(root, "new-later", "Replaces later until it expires", supersedes=["later"],
                 expires=dt.date(2026, 6, 1))
    check()
    (root / "facts" / "fact-4.md").unlink()
    (root / "facts" / "new-0.md").unlink()
    write_memory(root, "fact-3", "Fact three, fixed")
    check()
    sc.rebuild()
    check()
    assert sc.doctor() == []


def test_index_count_does_not_visit_every_row(tmp_path: Path) -> None:
    """INDEX.md is rendered on every write, so its count must not grow with the vault (it
    once scanned every listed row, with a table lookup each)."""
    root = tmp_path
    sc = open_sidecar(root, embedder=None)

    def grow(n: int) -> int:
        paths = [write_memory(root, f"bulk-{i:05d}", f"Bulk fact {i}") for i in range(n)]
        sc.refresh_paths(paths)
        return vm_steps(sc, lambda: sc.count_for_index(TODAY))

    small = grow(50)
    large = grow(2000)
    assert sc.count_for_index(TODAY) == sc.count_for_index_by_scan(TODAY) == 2000
    assert large < small + 100, (small, large)


def test_index_counter_row_lost_is_recounted(vault: Path) -> None:
    sc = open_sidecar(vault)
    sc.reconcile()
    expected = sc.count_for_index_by_scan(TODAY)
    sc.db.execute("DELETE FROM counters")
    assert sc.count_for_index(TODAY) == expected == 4
    assert sc.doctor() == []


def test_index_counter_migration_counts_existing_rows(vault: Path, monkeypatch) -> None:
    from vault_mem.index import db as dbmod

    migrations, version = dbmod.MIGRATIONS, dbmod.SCHEMA_VERSION
    monkeypatch.setattr(dbmod, "MIGRATIONS", dbmod.MIGRATIONS[:6])
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", 6)
    old = open_sidecar(vault)
    with old.db.write():  # today's reconcile keeps these later tables (m010, m012) too; the migration keeps them
        dbmod.m010_change_dates(old.db.conn)
        dbmod.m012_committed_view(old.db.conn)
    old.reconcile()  # rows written before the counter existed
    old.close()
    # put back the schema alone (monkeypatch.undo() would also put back the test machine's
    # config folder, whose key made the index: a database not made here is made again)
    monkeypatch.setattr(dbmod, "MIGRATIONS", migrations)
    monkeypatch.setattr(dbmod, "SCHEMA_VERSION", version)
    sc = open_sidecar(vault)
    assert sc.db.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
    assert sc.count_for_index(TODAY) == sc.count_for_index_by_scan(TODAY) == 4


def test_index_md_of_400_memories_lists_every_section(tmp_path: Path) -> None:
    """100 memories of each type under the default budget: each section has lines (pinned
    first, then newest) and its own "+N more" line; the same files give the same bytes."""
    root = tmp_path
    for type_ in ("preference", "fact", "decision", "procedure"):
        for i in range(100):
            write_memory(root, f"{type_}-{i:03d}", f"A {type_} worth keeping, number {i}", type_=type_,
                         updated=dt.date(2025, 1, 1) + dt.timedelta(days=i), pinned=(i == 3))
    sc = open_sidecar(root, embedder=None)
    sc.reconcile(embed=False)
    text = sc.render_index(budget_tokens=2000, today=TODAY)
    assert len(text) <= 2000 * 4 + len(READER_NOTE)  # the file's note to agents is outside the budget
    for title, type_ in (("Preferences", "preference"), ("Facts", "fact"), ("Decisions", "decision"),
                         ("Procedures", "procedure")):
        section = text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]
        lines = [line for line in section.splitlines() if line.startswith("- ")]
        assert len(lines) >= 5, title
        assert lines[0].startswith(f"- {type_}-003 ") and lines[1].startswith(f"- {type_}-099 ")
        assert f"+{100 - len(lines)} more: use recall to search them." in section
    sc.close()
    again = open_sidecar(root, embedder=None)
    again.rebuild()
    assert again.render_index(budget_tokens=2000, today=TODAY) == text


def test_the_paths_that_differ_from_the_committed_view_follow_both_tables(vault: Path) -> None:
    """``differs`` (kept by triggers) always equals a comparison of every row with the view:
    rows read or removed, view entries added, changed or removed, and a rolled-back change."""
    from vault_mem.index import committed
    from vault_mem.store.objectid import blob_id

    sc = open_sidecar(vault)
    sc.reconcile(embed=False)

    def compared() -> list[str]:  # the comparison the triggers spare every write
        rows = dict(sc.db.tuples("SELECT path, blob FROM files"))
        view = dict(sc.db.tuples("SELECT path, blob FROM committed"))
        return sorted(p for p in {*rows, *view} if rows.get(p) is None or rows.get(p) != view.get(p))

    paths = sorted(p for (p,) in sc.db.tuples("SELECT path FROM files"))
    assert committed.differing(sc.db) == compared() == paths  # nothing committed yet
    blobs = {p: blob_id((vault / p).read_bytes()) for p in paths}
    committed.replace(sc.db, "c1", blobs)
    assert committed.differing(sc.db) == compared() == []
    edited = vault / paths[0]
    edited.write_text(edited.read_text().replace("---\n", "---\npinned: true\n", 1))
    sc.refresh_paths([paths[0]])
    assert committed.differing(sc.db) == compared() == [paths[0]]
    (vault / paths[1]).unlink()
    sc.refresh_paths([paths[1]])
    assert committed.differing(sc.db) == compared() == sorted(paths[:2])
    assert committed.update(sc.db, "c2", {paths[0]: blob_id(edited.read_bytes()), paths[1]: None}, since="c1")
    assert committed.differing(sc.db) == compared() == []
    assert not committed.update(sc.db, "c3", {paths[2]: None}, since="c1")  # reflects c2, not c1
    write_memory(vault, "newcomer", "A file no commit holds")
    sc.refresh_paths(["facts/newcomer.md"])
    assert committed.differing(sc.db) == compared() == ["facts/newcomer.md"]
    # a rendering "as if" (a rolled-back transaction) leaves them as they were
    sc.render_index_with({paths[2]: None, "facts/newcomer.md": None}, budget_tokens=2000, today=TODAY)
    assert committed.differing(sc.db) == compared() == ["facts/newcomer.md"]
    sc.close()


def test_the_rows_without_a_blob_are_found_without_reading_every_row(vault: Path) -> None:
    """Every write asks for the rows an older vault-mem left without a blob id: SQLite answers
    from an index of just those rows (a scan of every row made a write's cost grow with the
    vault), and the answer is still every such row."""
    from vault_mem.index import committed as view

    sc = open_sidecar(vault)
    try:
        sc.reconcile()
        plan = " | ".join(r[3] for r in sc.db.execute("EXPLAIN QUERY PLAN " + view.MISSING_BLOBS_SQL))
        assert "INDEX files_blob_missing" in plan, plan  # a scan of that partial index: those rows alone
        assert view.missing_blobs(sc.db) == []
        with sc.db.write():
            sc.db.execute("UPDATE files SET blob = NULL WHERE path = 'facts/editor.md'")
        assert [p for p, _, _ in view.missing_blobs(sc.db)] == ["facts/editor.md"]
    finally:
        sc.close()


def test_a_sidecar_of_every_older_schema_is_migrated_not_taken_for_damage(tmp_path: Path, monkeypatch) -> None:
    """Each schema a released or merged build made opens as itself and is migrated: the check of a
    version's tables runs before the migrations, so a table listed from a version earlier than the
    migration that makes it (kept_judgement under 17 when it came with 18: the merge renumbered
    it) moved a real sidecar aside as "damaged" and rebuilt it whole."""
    from vault_mem.index import db as dbmod

    migrations, version = dbmod.MIGRATIONS, dbmod.SCHEMA_VERSION
    for old in range(1, version):
        path = tmp_path / f"v{old}" / "index.db"
        path.parent.mkdir()
        monkeypatch.setattr(dbmod, "MIGRATIONS", migrations[:old])
        monkeypatch.setattr(dbmod, "SCHEMA_VERSION", old)
        dbmod.connect(path).close()
        monkeypatch.setattr(dbmod, "MIGRATIONS", migrations)
        monkeypatch.setattr(dbmod, "SCHEMA_VERSION", version)
        conn = dbmod.connect(path)
        try:
            assert conn.execute("PRAGMA user_version").fetchone()[0] == version
        finally:
            conn.close()
        assert sorted(p.name for p in path.parent.iterdir() if "corrupt" in p.name) == [], old


def test_the_shapes_the_schema_check_expects_are_the_ones_the_migrations_make() -> None:
    """``TABLE_COLUMNS`` (what :func:`_check_schema` holds a file's tables to: a table of the right
    name in another shape is damage, moved aside and rebuilt) is every table the migrations make,
    with its columns and primary key: a migration that adds a table or a column updates it."""
    from vault_mem.index import db as index_db

    conn = index_db.driver().connect(":memory:")
    for migration in index_db.MIGRATIONS:
        migration(conn)
    made = {name: {(r[1], r[5]) for r in conn.execute(f"PRAGMA table_info({name})")}
            for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
                                        "'CREATE VIRTUAL%' AND name NOT LIKE 'fts_%' AND name != 'sqlite_sequence'")}
    assert index_db.TABLE_COLUMNS == made
