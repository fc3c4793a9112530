"""The vector store: sqlite-vec's vec0 table, its change log, and the two searches over it.

Real SQLite with the real sqlite-vec extension (through sqlean where this Python's own sqlite3
cannot load extensions), the deterministic fake embedder, and real subprocesses for the
"this Python has no sqlite-vec" cases.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import FakeEmbedder, vm_steps, write_memory

from vault_mem.config import Config
from vault_mem.index import db as dbmod
from vault_mem.index.sidecar import Sidecar
from vault_mem.index.vectors import StoredVectors, VectorIndex

TODAY = dt.date(2026, 3, 1)
TOPICS = ["editor", "coffee", "garden", "cycling", "database", "travel", "guitar", "budget", "python", "sleep"]
WORDS = ["morning", "weekly", "backup", "recipe", "route", "invoice", "chord", "tomato", "index", "lisbon",
         "helix", "espresso", "compost", "brompton", "sqlite", "train", "fender", "savings", "typing", "nap"]


def _fill(root: Path, n: int = 240) -> None:
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        words = " ".join(WORDS[(i * k + 3) % len(WORDS)] for k in (1, 3, 7))
        type_ = ("fact", "preference", "note", "procedure", "decision")[i % 5]
        tags = ["home"] if i % 3 == 0 else ["work"]
        write_memory(root, f"m{i:03d}", f"{topic} note {i}: {words}", f"More about {topic} and {words}.",
                     type_=type_, tags=tags, scope="laptop" if i % 4 == 0 else None)


def _hits(sc: Sidecar, query: str, **kw) -> list[tuple[str, float]]:
    return [(h.key, round(h.score, 5)) for h in sc.recall(query, k=10, today=TODAY, **kw).hits]


def test_vectors_are_stored_in_a_sqlite_vec_table(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _fill(root, 30)
    with Sidecar(root, Config(), embedder=FakeEmbedder(dimensions=64)) as sc:
        sc.reconcile()
        assert sc.db.vec_loaded and sc.db.vec_ok
        assert sc.db.execute("SELECT vec_version()").fetchone()[0].startswith("v0.")
        sql = sc.db.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_items'").fetchone()[0]
        assert "USING vec0" in sql and "float[64]" in sql and "cosine" in sql
        assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 30
        assert isinstance(sc.vectors.vector_index(), StoredVectors)
        # The type filter runs inside the vec0 KNN (a metadata column), not after it.
        q = FakeEmbedder(dimensions=64).embed_batch(["coffee espresso"], kind="query")[0]
        top = sc.vectors.vector_index().top(q, 5, type="preference")
        types = {r[0] for r in sc.db.execute(
            f"SELECT type FROM files WHERE id IN ({','.join(str(i) for i, _ in top)})")}
        assert len(top) == 5 and types == {"preference"}


def test_stored_and_in_memory_search_give_the_same_hits(tmp_path: Path) -> None:
    """One-shot processes search vec0, long-running ones a copy in memory: same results, also
    after edits and deletions made by another sidecar."""
    root = tmp_path / "v"
    _fill(root)
    writer = Sidecar(root, Config(), embedder=FakeEmbedder())
    writer.reconcile()
    cold = Sidecar(root, Config(), embedder=FakeEmbedder())
    warm = Sidecar(root, Config(), embedder=FakeEmbedder())
    warm.vectors.keep_vectors_in_memory = True
    queries = [("coffee note morning", {}), ("garden note compost", {"type": "note"}),
               ("cycling note", {"tags": ["home"]}), ("python note", {"scope": "laptop"}),
               ("editor note", {"tags": ["work"], "type": "fact"}), ("travel note", {})]

    def compare() -> None:
        for q, kw in queries:
            a, b = _hits(cold, q, **kw), _hits(warm, q, **kw)
            assert a == b, (q, kw)
            assert a, (q, kw)

    compare()
    assert isinstance(warm.vectors.vector_index(), VectorIndex) and isinstance(cold.vectors.vector_index(), StoredVectors)
    # Another process edits, deletes and adds: both searches follow.
    (root / "facts" / "m000.md").unlink()
    write_memory(root, "m005", "coffee brewed in a moka pot every morning")
    write_memory(root, "fresh", "Espresso machine descaling every month", type_="procedure")
    writer.reconcile()
    compare()
    assert "m000" not in {k for k, _ in _hits(cold, "editor note 0")}
    assert _hits(cold, "moka pot coffee")[0][0] == "m005"
    writer.rebuild()
    compare()
    for sc in (writer, cold, warm):
        sc.close()


def test_a_new_model_recreates_the_table_with_its_dimension(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _fill(root, 20)
    with Sidecar(root, Config(), embedder=FakeEmbedder("fake:a", 32)) as sc:
        sc.reconcile()
    small = FakeEmbedder("fake:b", 48)
    with Sidecar(root, Config(), embedder=small) as sc:
        sc.reconcile()
        sql = sc.db.execute("SELECT sql FROM sqlite_master WHERE name = 'vec_items'").fetchone()[0]
        assert "float[48]" in sql
        assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 20
        assert _hits(sc, "garden compost")[0][0].startswith("m")
        assert sc.doctor() == []
    back = FakeEmbedder("fake:a", 32)
    with Sidecar(root, Config(), embedder=back) as sc:
        sc.reconcile()
        assert back.calls == []  # the round trip back re-embeds nothing: the cache has every vector
        assert sc.doctor() == []


def test_upgrade_from_the_plain_vector_table_refills_from_the_cache(tmp_path: Path, monkeypatch) -> None:
    root = tmp_path / "v"
    _fill(root, 12)
    path = root / ".vault-mem" / "index.db"
    with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:  # fills the embedding cache
        sc.reconcile()
    conn = dbmod.connect(path)
    conn.execute("PRAGMA user_version = 4")  # as written by a version that kept BLOBs in `vectors`
    conn.execute("DROP TABLE vector_log")
    conn.execute("DROP TABLE vec_items")
    conn.execute("CREATE TABLE vectors (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, vec BLOB, type TEXT)")
    conn.close()
    emb = FakeEmbedder()
    monkeypatch.setattr(dbmod, "COMPACT_FREE_BYTES", 1)  # what the upgrade frees is given back
    with Sidecar(root, Config(), embedder=emb) as sc:
        assert sc.db.execute("PRAGMA user_version").fetchone()[0] == dbmod.SCHEMA_VERSION
        assert sc.db.execute("PRAGMA freelist_count").fetchone()[0] == 0
        sc.reconcile()
        assert emb.calls == []
        assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 12
        assert _hits(sc, "cycling brompton")
        assert sc.doctor() == []


def _run_without_sqlite_vec(root: Path, code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a Python where ``import sqlite_vec`` fails (as on a platform without a wheel)."""
    prelude = textwrap.dedent(f"""
        import sys, datetime as dt
        sys.modules["sqlite_vec"] = None  # import sqlite_vec -> ImportError
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from pathlib import Path
        from fakes import FakeEmbedder, vm_steps, write_memory
        from vault_mem.config import Config
        from vault_mem.index.sidecar import Sidecar
        root = Path({str(root)!r})
        sc = Sidecar(root, Config(), embedder=FakeEmbedder())
    """)
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, check=False,
                          text=True, timeout=120, env={**os.environ})


def test_without_sqlite_vec_recall_is_keyword_only_and_says_why(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _fill(root, 20)
    proc = _run_without_sqlite_vec(root, """
        sc.reconcile()
        res = sc.recall("coffee espresso", today=dt.date(2026, 3, 1))
        print(res.keyword_only, res.hits[0].key if res.hits else None, all(h.keyword_only for h in res.hits))
        print(res.reason)
    """)
    assert proc.returncode == 0, proc.stderr
    first, reason = proc.stdout.splitlines()[:2]
    assert first.startswith("True m") and first.endswith("True")
    assert "sqlite-vec" in reason and "pip install" in reason


def test_a_process_without_sqlite_vec_marks_vectors_stale_and_the_next_one_purges(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _fill(root, 20)
    with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:
        sc.reconcile()
        assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 20
    # m001 is deleted and m002 rewritten with other words, seen by a process that cannot open vec0.
    (root / "preferences" / "m001.md").unlink()
    write_memory(root, "m002", "sourdough starter feeding schedule", type_="note")
    proc = _run_without_sqlite_vec(root, """
        sc.reconcile()
        print(sorted(tuple(r) for r in sc.db.execute("SELECT live, count(*) FROM vector_log GROUP BY live")))
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[(-1, 2), (1, 18)]"
    for warm in (False, True):
        with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:
            sc.vectors.keep_vectors_in_memory = warm
            # Before any purge, a stale vec0 row is never taken for the memory's vector.
            got = sc.vectors.vector_index().top(FakeEmbedder().embed_batch(["garden note 2"])[0], 30)
            live = {r[0] for r in sc.db.execute("SELECT id FROM files WHERE vec_model IS NOT NULL")}
            assert warm == ({i for i, _ in got} <= live)  # only vec0 itself still holds the stale rows
            assert "m001" not in {k for k, _ in _hits(sc, "garden note 1")}
    with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:
        sc.reconcile()  # makes m002's new vector and purges the stale rows
        assert sc.db.execute("SELECT count(*) FROM vector_log WHERE live = -1").fetchone()[0] == 0
        assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 19
        assert _hits(sc, "sourdough starter")[0][0] == "m002"
        assert sc.doctor() == []


@pytest.mark.skipif(hasattr(__import__("sqlite3").Connection, "enable_load_extension"),
                    reason="this Python's own sqlite3 can load extensions")
def test_a_python_that_cannot_load_extensions_gets_sqlite_vec_through_sqlean(tmp_path: Path) -> None:
    """This machine's python3 (3.11, no enable_load_extension): the driver is sqlean and vec0 works;
    forced onto the stdlib driver, recall is keyword-only and says why."""
    assert dbmod.driver().__name__.startswith("sqlean")
    root = tmp_path / "v"
    _fill(root, 10)
    env = {**os.environ, dbmod.FORCE_DRIVER_ENV: "sqlite3"}
    code = textwrap.dedent(f"""
        import sys, datetime as dt
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from pathlib import Path
        from fakes import FakeEmbedder
        from vault_mem.config import Config
        from vault_mem.index.sidecar import Sidecar
        sc = Sidecar(Path({str(root)!r}), Config(), embedder=FakeEmbedder())
        sc.reconcile()
        res = sc.recall("coffee espresso", today=dt.date(2026, 3, 1))
        print(res.keyword_only, res.reason)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False, text=True, timeout=120,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("True ") and "cannot load extensions" in proc.stdout


VEC0_DAMAGE = {
    "chunk index emptied": "DELETE FROM vec_items_chunks",
    "vector blob truncated": "UPDATE vec_items_vector_chunks00 SET vectors = zeroblob(10)",
    "shadow table dropped": "DROP TABLE vec_items_vector_chunks00",
    "table dropped": "DROP TABLE vec_items",
    "info emptied": "DELETE FROM vec_items_info",
}


@pytest.mark.parametrize("in_memory", [False, True], ids=["vec0", "in-memory"])
@pytest.mark.parametrize("damage", sorted(VEC0_DAMAGE))
def test_a_damaged_vector_table_is_remade_from_the_cache_by_the_next_recall(
        tmp_path: Path, damage: str, in_memory: bool) -> None:
    root = tmp_path / "v"
    _fill(root, 40)
    with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:
        sc.reconcile()
        expected = _hits(sc, "garden note")
        assert expected
        sc.db.execute(VEC0_DAMAGE[damage])
    emb = FakeEmbedder()
    with Sidecar(root, Config(), embedder=emb) as sc:
        sc.vectors.keep_vectors_in_memory = in_memory
        res = sc.recall("garden note", k=10, today=TODAY)
        assert not res.keyword_only
        assert [(h.key, round(h.score, 5)) for h in res.hits] == expected
        assert len(emb.calls) == 1  # the query: every memory's vector came back from the cache
        assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 40
        assert sc.doctor() == []


def test_doctor_reports_vector_damage_that_search_survives_and_reindex_repairs(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _fill(root, 20)
    with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:
        sc.reconcile()
        sc.db.execute("DELETE FROM vec_items_rowids")  # KNN still works; the row map is gone
        assert _hits(sc, "garden note")
        assert sc.doctor() == ["vectors: 0 stored (20 logged) for 20 memories that should have one"]
        sc.rebuild()
        assert sc.doctor() == []
        assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 20


def test_a_vector_delete_failing_on_damage_does_not_fail_the_memory_write(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _fill(root, 12)
    with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:
        sc.reconcile()
        sc.db.execute("UPDATE vec_items_vector_chunks00 SET vectors = zeroblob(10)")  # vec0 cannot delete now
        rel = write_memory(root, "m003", "cycling note rewritten: brompton on the canal path",
                           type_="procedure")
        report = sc.refresh_paths([rel], embed=False)
        assert report.updated == 1
        fid = sc.db.execute("SELECT id FROM files WHERE key = 'm003'").fetchone()[0]
        assert sc.db.execute("SELECT live FROM vector_log WHERE id = ?", (fid,)).fetchone()[0] == -1
        assert _hits(sc, "brompton canal")[0][0] == "m003"  # the next recall remade the table
        assert sc.doctor() == []


def test_a_busy_database_is_never_taken_for_a_damaged_vector_table(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _fill(root, 6)
    with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:
        sc.reconcile()
        busy = dbmod.errors()[1]("database is locked")
        with pytest.raises(type(busy), match="locked"):
            sc.vectors._repair_vectors(busy, "searching vectors")
        assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 6  # not dropped


def test_warm_index_takes_new_vectors_without_copying_the_ones_it_holds(tmp_path: Path) -> None:
    """A long-running process refreshes its in-memory vectors after every write; a new vector
    goes into spare rows, so the vectors already held are not copied (that copy grew with the
    vault: ~22 ms at 50k memories per refresh). The search stays the same as vec0's."""
    root = tmp_path / "v"
    _fill(root, 60)
    writer = Sidecar(root, Config(), embedder=FakeEmbedder())
    writer.reconcile()
    warm = Sidecar(root, Config(), embedder=FakeEmbedder())
    warm.vectors.keep_vectors_in_memory = True
    cold = Sidecar(root, Config(), embedder=FakeEmbedder())
    assert _hits(warm, "coffee note morning") == _hits(cold, "coffee note morning")
    index = warm.vectors.vector_index()
    held = index.matrix[:60].copy()
    address = index.matrix.__array_interface__["data"][0]
    for i in range(5):
        write_memory(root, f"new-{i}", f"Moka pot coffee number {i} every evening")
        writer.refresh_paths([f"facts/new-{i}.md"])
        index = warm.vectors.vector_index()
        assert index.matrix.__array_interface__["data"][0] == address  # the same array, grown in place
        assert len(index.ids) == len(index.matrix) == len(index.codes) == len(index.alive) == 61 + i
        assert _hits(warm, "moka pot coffee evening") == _hits(cold, "moka pot coffee evening")
    assert (index.matrix[:60] == held).all()
    (root / "facts" / "new-2.md").unlink()  # a deletion only marks its row
    writer.refresh_paths(["facts/new-2.md"])
    assert "new-2" not in {k for k, _ in _hits(warm, "moka pot coffee evening")}
    assert _hits(warm, "moka pot coffee evening") == _hits(cold, "moka pot coffee evening")
    # Past the spare rows the arrays are copied once, and the search still agrees.
    spare = index.capacity - len(index.ids)
    for i in range(spare + 3):
        write_memory(root, f"more-{i}", f"Garden compost heap turned, week {i}")
    writer.reconcile()
    assert _hits(warm, "garden compost week") == _hits(cold, "garden compost week")
    assert len(warm.vectors.vector_index().ids) == 65 + spare + 3
    for sc in (writer, warm, cold):
        sc.close()


def test_the_first_load_holds_every_live_vector_of_vec0_with_its_type_once(tmp_path: Path, monkeypatch) -> None:
    """The in-memory load reads sqlite-vec's chunks (ids and types looked up by id): after
    deletes (holes in the chunks) and rewrites (rows moved to later chunks) it holds exactly
    the live vectors, each once, with vec0's bytes and its memory's type, from the chunks, not
    the row-by-row fallback (the speed-up is the point; sqlite-vec is pinned to the 0.1 layout)."""
    root = tmp_path / "v"
    _fill(root, 240)
    with Sidecar(root, Config(), embedder=FakeEmbedder(dimensions=64)) as writer:
        writer.reconcile()
        for i in range(0, 240, 7):
            (root / writer.db.execute("SELECT path FROM files WHERE key = ?", (f"m{i:03d}",)).fetchone()[0]).unlink()
        for i in range(3, 240, 11):
            path = root / writer.db.execute("SELECT path FROM files WHERE key = ?", (f"m{i:03d}",)).fetchone()[0]
            if path.exists():
                path.write_text(path.read_text().replace("More about", "Rewritten, more about"))
        writer.reconcile()
        want = {r[0]: r[1] for r in writer.db.execute("SELECT id, type FROM files WHERE vec_model IS NOT NULL")}
        stored = {r[0]: r[1] for r in writer.db.execute("SELECT rowid, embedding FROM vec_items")}
    def row_by_row(*args, **kwargs):
        raise AssertionError("the load fell back to reading vec0 row by row")

    monkeypatch.setattr(VectorIndex, "_load_rows", row_by_row)
    warm = Sidecar(root, Config(), embedder=FakeEmbedder(dimensions=64))
    warm.vectors.keep_vectors_in_memory = True
    warm.vectors.preload_vectors()
    index = warm.vectors.vector_index()
    assert isinstance(index, VectorIndex)
    held = index.ids[index.alive].tolist()
    assert sorted(held) == sorted(want) and len(held) == len(set(held))
    for fid in want:
        p = index.pos[fid]
        assert np.array_equal(index.matrix[p], np.frombuffer(stored[fid], dtype=np.float32).astype(index.matrix.dtype))
    q = np.ones(64, dtype=np.float32) / 8
    for type_ in ("fact", "preference", "note", "procedure", "decision"):
        assert {i for i, _ in index.top(q, 240, type=type_)} == {i for i, t in want.items() if t == type_}
    warm.close()


def test_warm_index_refresh_reads_only_the_changed_vectors(tmp_path: Path) -> None:
    """After a write, a warm process's refresh reads the new vector by its rowid: a
    ``rowid IN (...)`` filter made vec0 scan every vector (9 ms at 50k memories)."""
    root = tmp_path / "v"
    writer = Sidecar(root, Config(), embedder=FakeEmbedder())
    warm = Sidecar(root, Config(), embedder=FakeEmbedder())
    warm.vectors.keep_vectors_in_memory = True
    cold = Sidecar(root, Config(), embedder=FakeEmbedder())

    def steps_for_one_write(n: int) -> int:
        _fill(root, n)
        writer.reconcile()
        warm.vectors.vector_index()  # up to date
        write_memory(root, f"probe-{n}", f"Moka pot coffee probe {n}")
        writer.refresh_paths([f"facts/probe-{n}.md"])
        steps = vm_steps(warm, warm.vectors.vector_index)
        assert _hits(warm, f"moka pot coffee probe {n}") == _hits(cold, f"moka pot coffee probe {n}")
        assert _hits(warm, f"moka pot coffee probe {n}")[0][0] == f"probe-{n}"
        return steps

    small, large = steps_for_one_write(30), steps_for_one_write(600)
    assert large < small + 50, (small, large)
    for sc in (writer, warm, cold):
        sc.close()


class _Recording(FakeEmbedder):
    """The fake embedder, keeping each call's texts (and able to count tokens, as the local one)."""

    def __init__(self) -> None:
        super().__init__(dimensions=64)
        self.batches: list[list[str]] = []
        self.counted = 0

    def token_counts(self, texts):
        self.counted += len(texts)
        return [len(t.split()) for t in texts]

    def embed_batch(self, texts, *, kind="document"):
        self.batches.append(list(texts))
        return super().embed_batch(texts, kind=kind)


def test_the_backlog_is_embedded_once_per_text_shortest_first_and_each_memory_gets_its_own(tmp_path: Path) -> None:
    from vault_mem.model import terms

    root = tmp_path / "v"
    for i in range(150):
        # lengths in no order; every tenth memory says what another one says, word for word
        words = " ".join(WORDS[(i * 7 + k) % len(WORDS)] for k in range((i * 37) % 23 + 1))
        same = i % 10 == 9
        write_memory(root, f"m{i:03d}", "shared text" if same else f"note {i}", "" if same else words)
    emb = _Recording()
    progress: list[tuple[int, int]] = []
    with Sidecar(root, Config(), embedder=emb) as sc:
        sc.reconcile(embed=False)
        assert sc.vectors.embed_pending(progress=lambda d, t: progress.append((d, t))) == 150
        texts = [t for b in emb.batches for t in b]
        assert len(texts) == len(set(texts)) == 136  # 135 distinct texts + the one shared by 15
        lengths = emb.token_counts(texts)
        assert lengths == sorted(lengths) and len(emb.batches) > 1
        assert progress[-1] == (150, 150) and [d for d, _ in progress] == sorted(d for d, _ in progress)
        rows = sc.db.execute("SELECT f.description, f.body, f.sort_date, c.vector FROM files f JOIN embed_cache c "
                             "ON c.text_sha256 = f.embed_sha256 AND c.model = f.vec_model").fetchall()
        assert len(rows) == 150
        for r in rows:  # each memory's vector is its own text's, wherever that text was in the order
            want = FakeEmbedder(dimensions=64).embed_batch([terms.document_text(r[0], r[1] or "", r[2])])[0]
            assert np.frombuffer(r[3], dtype=np.float32).tobytes() == want.astype(np.float32).tobytes()
        assert sc.db.execute("SELECT count(*) FROM vec_items").fetchone()[0] == 150
        emb.batches.clear()
        sc.rebuild()  # everything from the cache: the model is not run again
        assert emb.batches == []


def test_an_interrupted_backlog_resumes_without_counting_its_tokens_again(tmp_path: Path) -> None:
    root = tmp_path / "v"
    _fill(root, 200)
    emb = _Recording()

    class Stop(Exception):
        pass

    def stop(done: int, total: int) -> None:  # as the daemon hands the loop back to new events
        raise Stop

    with Sidecar(root, Config(), embedder=emb) as sc:
        sc.reconcile(embed=False)
        with pytest.raises(Stop):
            sc.vectors.embed_pending(progress=stop)  # once the backlog's tokens are counted
        assert emb.counted == 200 and not emb.batches
        with pytest.raises(Stop):
            sc.vectors.embed_pending(progress=stop)  # after the model's first batch
        first = sum(len(b) for b in emb.batches)
        assert 0 < first < 200 and emb.counted == 200
        assert sc.vectors.embed_pending() == 200 - first
        assert emb.counted == 200 and sum(len(b) for b in emb.batches) == 200


def test_an_embedder_that_cannot_count_tokens_leaves_memories_keyword_only(tmp_path: Path) -> None:
    from vault_mem.errors import EmbedderError

    class Broken(_Recording):
        def token_counts(self, texts):  # what the local embedder does when its model cannot load
            raise EmbedderError("the local embedder needs onnxruntime")

    root = tmp_path / "v"
    _fill(root, 20)
    with Sidecar(root, Config(), embedder=Broken()) as sc:
        sc.reconcile(embed=False)
        assert sc.vectors.embed_pending() == 0
        assert sc.db.execute("SELECT count(*) FROM files WHERE vec_model IS NOT NULL").fetchone()[0] == 0
        assert [h.key for h in sc.recall("coffee", k=3, today=TODAY).hits]  # keywords still answer


def test_recall_survives_more_superseded_keys_than_sqlite_vec_answers_at_once(tmp_path: Path) -> None:
    """Memories listing 4,160 superseded keys in all (65 files of 64, each under the per-field
    bound) made the vector over-fetch ask sqlite-vec for k > 4,096, and every recall failed
    or fell back to keywords; it filters first instead and stays exact."""
    root = tmp_path / "v"
    _fill(root, 30)
    for f in range(65):
        write_memory(root, f"replacer-{f:02d}", f"replacement note {f}", "x",
                     supersedes=[f"old-{f:02d}-{i:02d}" for i in range(64)])
    with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:
        sc.reconcile()
        assert sc.problems() == []
        assert isinstance(sc.vectors.vector_index(), StoredVectors)
        result = sc.recall("coffee note morning", k=5, today=TODAY)
        assert result.hits and not result.keyword_only, result
        # the same hits as an unfiltered in-memory search, where no k limit applies
        warm = Sidecar(root, Config(), embedder=FakeEmbedder())
        warm.vectors.keep_vectors_in_memory = True
        try:
            assert _hits(sc, "coffee note morning") == _hits(warm, "coffee note morning")
        finally:
            warm.close()


def test_a_tag_filter_of_thousands_of_tags_answers_nothing_rather_than_failing(tmp_path: Path) -> None:
    """A recall asking for 5,000 tags at once (an MCP client's list): no memory holds more than
    64 tags, so nothing matches; it built a clause per tag and failed in SQLite."""
    root = tmp_path / "v"
    _fill(root, 30)
    with Sidecar(root, Config(), embedder=FakeEmbedder()) as sc:
        sc.reconcile()
        assert sc.recall("coffee note", k=5, today=TODAY, tags=["home"]).hits
        result = sc.recall("coffee note", k=5, today=TODAY, tags=["home", *(f"t{i}" for i in range(5000))])
        assert result.hits == []
