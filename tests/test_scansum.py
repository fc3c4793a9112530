"""The scan sum (vault_mem/index/scansum.py): a read with nothing changed reads no row, and no
change to a file, a row or a name gets past it. Real files, real SQLite, the fake embedder."""

from __future__ import annotations

import os
import sys
from pathlib import Path


sys.path.insert(0, str(Path(__file__).parent))

from fakes import FakeEmbedder, every_row_read, write_memory

from vault_mem.config import Config
from vault_mem.index import scansum
from vault_mem.index.folderscan import scan_folders
from vault_mem.index.sidecar import Sidecar

def open_sidecar(root: Path) -> Sidecar:
    return Sidecar(root, Config(), embedder=FakeEmbedder())


def description(sc: Sidecar, key: str) -> str:
    return sc.db.execute("SELECT description FROM files WHERE key = ?", (key,)).fetchone()[0]


def sum_is_current(sc: Sidecar) -> bool:
    """The stored sum is trusted now and equals a fresh sum of the folders."""
    found = scan_folders(sc.root)
    return scansum.matches(sc.db, len(found), scansum.total(found))


def test_a_read_with_nothing_changed_reads_no_row(three_memories: Path) -> None:
    sc = open_sidecar(three_memories)
    assert every_row_read(sc, sc.reconcile)[1]  # the first read compares, and records the sum
    assert sum_is_current(sc)
    assert not every_row_read(sc, sc.reconcile)[1]
    r = sc.reconcile()
    assert (r.added, r.updated, r.removed, r.unchanged) == (0, 0, 0, 3)
    sc.close()


def test_a_write_keeps_the_sum_so_the_next_read_reads_no_row(three_memories: Path) -> None:
    sc = open_sidecar(three_memories)
    sc.reconcile()
    rel = write_memory(three_memories, "shell", "Uses fish as the shell")
    sc.refresh_paths([rel])  # what a write does after its file lands
    assert sum_is_current(sc)
    (three_memories / "facts" / "editor.md").unlink()
    sc.refresh_paths(["facts/editor.md"])
    assert sum_is_current(sc)
    assert not every_row_read(sc, sc.reconcile)[1]
    assert sc.keys() == ["coffee", "shell", "trip"]
    sc.close()


def test_an_edit_in_place_of_the_same_size_is_seen(three_memories: Path) -> None:
    sc = open_sidecar(three_memories)
    sc.reconcile()
    sc.reconcile()  # the sum is recorded
    p = three_memories / "facts" / "editor.md"
    data = p.read_bytes()
    new = data.replace(b"Helix", b"Xelih")
    assert len(new) == len(data)
    st = p.stat()
    with open(p, "r+b") as fh:  # rewritten in place: the folder's mtime does not move
        fh.write(new)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # one nanosecond later
    r = sc.reconcile()
    assert r.updated == 1
    assert description(sc, "editor") == "Uses Xelih as the main editor"
    sc.close()


def test_two_files_that_swap_their_stat_data_by_renames_are_seen(three_memories: Path) -> None:
    """Renames keep each file's mtime and size: after a swap the folder holds the same set of
    (mtime, size) pairs under the same names, only paired the other way round."""
    a = write_memory(three_memories, "alpha", "Alpha fact, first of two")
    b = write_memory(three_memories, "bravo", "Bravo fact, other of two")
    pa, pb = three_memories / a, three_memories / b
    assert pa.stat().st_size == pb.stat().st_size
    os.utime(pa, ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    os.utime(pb, ns=(1_700_000_100_000_000_000, 1_700_000_100_000_000_000))
    sc = open_sidecar(three_memories)
    sc.reconcile()
    sc.reconcile()
    tmp = three_memories / "facts" / "swap.tmp"
    os.rename(pa, tmp)
    os.rename(pb, pa)
    os.rename(tmp, pb)
    r = sc.reconcile()
    assert r.updated == 2
    assert description(sc, "alpha") == "Bravo fact, other of two"
    assert description(sc, "bravo") == "Alpha fact, first of two"
    sc.close()


def test_a_row_changed_behind_the_sums_back_is_compared_again(three_memories: Path) -> None:
    """Code that changes a row without bringing the sum along (here plain SQL) leaves the
    triggers' counter ahead of the sum: the next read compares every row, and re-reads that one."""
    sc = open_sidecar(three_memories)
    sc.reconcile()
    assert sum_is_current(sc)
    with sc.db.write():
        sc.db.execute("UPDATE files SET mtime_ns = 1 WHERE path = 'facts/editor.md'")
    assert not sum_is_current(sc)
    assert every_row_read(sc, sc.reconcile)[1]
    row = sc.db.execute("SELECT mtime_ns FROM files WHERE path = 'facts/editor.md'").fetchone()
    assert row[0] == (three_memories / "facts" / "editor.md").stat().st_mtime_ns
    assert sum_is_current(sc)
    sc.close()


def test_the_kept_sum_equals_a_fresh_one_after_many_changes(three_memories: Path) -> None:
    """Adds, edits, deletes, a broken file and a symlink, each followed by a write's refresh or a
    read: whenever the stored sum is trusted it is the folders' own sum."""
    sc = open_sidecar(three_memories)
    sc.reconcile()
    for i in range(12):
        rel = write_memory(three_memories, f"k{i % 5}", f"Memory number {i} of the run", "x" * i)
        sc.refresh_paths([rel])
        assert sum_is_current(sc)
        if i % 3 == 0:
            (three_memories / "notes" / f"bad{i}.md").write_text("no frontmatter here\n")
        if i % 4 == 1:
            (three_memories / rel).unlink()
        sc.reconcile()
        assert sum_is_current(sc)
    (three_memories / "facts" / "link.md").symlink_to(three_memories / "facts" / "k1.md")
    sc.reconcile()
    assert sum_is_current(sc)
    assert not every_row_read(sc, sc.reconcile)[1]
    sc.close()


def test_a_sum_recorded_before_a_row_changed_is_not_trusted(three_memories: Path) -> None:
    """A read records the sum it computed at the counter value it saw before reading the rows;
    a write by another process in between moves the counter, and the sum is never trusted."""
    one, two = open_sidecar(three_memories), open_sidecar(three_memories)
    one.reconcile()
    with one.db.write():  # no current sum to bring along (as after an older vault-mem's write)
        one.db.execute("UPDATE files SET mtime_ns = 1 WHERE path = 'notes/trip.md'")
    seen, saw = scansum.generation(two.db), scan_folders(three_memories)  # process two's slow read starts
    rel = write_memory(three_memories, "shell", "Uses fish as the shell")
    one.refresh_paths([rel])  # process one writes meanwhile
    scansum.record(two.db, seen, 3, scansum.total(saw))  # two records what it saw: in vain
    assert not sum_is_current(two)
    assert every_row_read(two, two.reconcile)[1]
    assert sum_is_current(two)
    assert not every_row_read(one, one.reconcile)[1]
    one.close()
    two.close()


def test_the_sum_of_a_scan_by_folder_equals_the_sum_by_path(three_memories: Path) -> None:
    """A read sums the scan folder by folder (no path string per file); the rows' sum, kept by
    writes, is by path: the two must agree, a followed symbolic link and a non-ASCII name included."""
    from vault_mem.index.folderscan import scan

    write_memory(three_memories, "café-order", "Orders a flat white at the café")
    (three_memories / "facts" / "link.md").symlink_to(three_memories / "facts" / "editor.md")
    found = scan(three_memories)
    by_path = scan_folders(three_memories)
    assert found.as_dict() == by_path and len(found) == len(by_path) == 5
    assert scansum.scan_total(found) == scansum.total(by_path)
    assert scansum.scan_total(found) == sum(scansum.term(p, *sig) for p, sig in by_path.items()) % scansum.Q
    sc = open_sidecar(three_memories)
    sc.reconcile()
    assert sum_is_current(sc) and not every_row_read(sc, sc.reconcile)[1]
    sc.close()
