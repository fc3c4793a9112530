"""A read's no-change check by GNU find's listing (vault_mem/index/listing.py): every change a
stat of each file saw is seen through it, by the next read, reading only the rows of the paths
whose record moved. Real files, real find, real SQLite, the fake embedder; on a system without
GNU find the read stats the files itself, which the last tests pin."""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import FakeEmbedder, every_row_read, write_memory

from vault_mem.config import Config
from vault_mem.index import listing, scansum
from vault_mem.platform import folders
from vault_mem.index.folderscan import scan
from vault_mem.index.sidecar import Sidecar

pytestmark = pytest.mark.skipif(listing.list_folders(Path(__file__).parent) is None,
                                reason="no GNU find here: reads stat the files themselves")



def opened(root: Path) -> Sidecar:
    """A sidecar brought in line twice: the second read keeps the listing it saw."""
    sc = Sidecar(root, Config(), embedder=FakeEmbedder())
    sc.reconcile()
    sc.reconcile()
    assert listing.Snapshot.read(root / ".vault-mem") is not None
    return sc


def description(sc: Sidecar, key: str) -> str | None:
    row = sc.db.execute("SELECT description FROM files WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def rewrite_in_place(path: Path, old: bytes, new: bytes, *, mtime_ns: int) -> None:
    """Rewrite ``path`` in place (same inode, same size), its mtime set to ``mtime_ns``; returns
    once its ctime moved (the clock's tick on a coarse one)."""
    data = path.read_bytes()
    assert len(old) == len(new) and old in data
    before = path.stat()
    deadline = time.monotonic() + 5
    while True:
        with open(path, "r+b") as fh:
            fh.write(data.replace(old, new))
        os.utime(path, ns=(before.st_atime_ns, mtime_ns))
        if path.stat().st_ctime_ns != before.st_ctime_ns or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, mtime_ns)
    assert after.st_ctime_ns != before.st_ctime_ns



def the_edit_is_read_once(sc: Sidecar) -> None:
    """The next read takes the edit of ``editor`` (its text now says Xelih) reading that row
    alone, never every row, and the read after it reads nothing again; ``sc`` is closed."""
    r, every = every_row_read(sc, sc.reconcile)
    assert r.updated == 1 and not every
    assert description(sc, "editor") == "Uses Xelih as the main editor"
    r = sc.reconcile()  # read once: not again
    assert (r.updated, r.unchanged) == (0, 3)
    sc.close()

def test_nothing_changed_reads_no_row_and_parses_nothing(three_memories: Path, monkeypatch) -> None:
    sc = opened(three_memories)
    monkeypatch.setattr(listing.Listed, "scan", lambda self: pytest.fail("the listing was parsed"))
    monkeypatch.setattr(Sidecar, "_scan", lambda self: pytest.fail("the files were stat'ed in Python"))
    r, every = every_row_read(sc, sc.reconcile)
    assert not every and (r.added, r.updated, r.removed, r.unchanged) == (0, 0, 0, 3)
    sc.close()


def test_an_edit_in_place_of_the_same_size_a_nanosecond_later_is_seen(three_memories: Path) -> None:
    sc = opened(three_memories)
    p = three_memories / "facts" / "editor.md"
    rewrite_in_place(p, b"Helix", b"Xelih", mtime_ns=p.stat().st_mtime_ns + 1)
    r, every = every_row_read(sc, sc.reconcile)
    assert r.updated == 1 and not every  # only that row was read
    assert description(sc, "editor") == "Uses Xelih as the main editor"
    sc.close()


def test_an_edit_in_place_whose_mtime_is_set_back_is_seen(three_memories: Path) -> None:
    """Same inode, same size, the mtime put back to the very nanosecond it had (``os.utime``): no
    (mtime, size) comparison sees it (the Python scan does not, nor did any read before the
    listing), but its ctime moved, and the listing names it to be read again."""
    sc = opened(three_memories)
    p = three_memories / "facts" / "editor.md"
    rewrite_in_place(p, b"Helix", b"Xelih", mtime_ns=p.stat().st_mtime_ns)
    the_edit_is_read_once(sc)


def test_an_edit_whose_mtime_is_set_back_to_a_write_s_is_seen(three_memories: Path) -> None:
    """A write between two reads (its file, then its row, as ``remember`` does) moves the file's
    record away from the kept listing's; a hand edit then puts the mtime back to the write's
    (same size). The record's (mtime, size) differ from the kept listing's, so its ctime alone
    is no sign, and they equal the row the write made: only reading the files whose record moved
    since the last listing, the row included, sees the edit."""
    sc = opened(three_memories)
    p = three_memories / "facts" / "editor.md"
    rewrite_in_place(p, b"Helix", b"Kakou", mtime_ns=p.stat().st_mtime_ns + 1_000_000)
    sc.refresh_paths(["facts/editor.md"])  # the write's own row
    assert description(sc, "editor") == "Uses Kakou as the main editor"
    rewrite_in_place(p, b"Kakou", b"Xelih", mtime_ns=p.stat().st_mtime_ns)
    the_edit_is_read_once(sc)


def test_an_edit_whose_mtime_is_set_back_is_seen_when_every_row_is_compared(three_memories: Path) -> None:
    """A row changed behind the sum's back makes the read compare every row (the listing's own
    check cannot be trusted); the file whose mtime was set back is read again all the same."""
    sc = opened(three_memories)
    p = three_memories / "facts" / "editor.md"
    rewrite_in_place(p, b"Helix", b"Xelih", mtime_ns=p.stat().st_mtime_ns)
    with sc.db.write():
        sc.db.execute("UPDATE files SET mtime_ns = 1 WHERE path = 'notes/trip.md'")
    r, every = every_row_read(sc, sc.reconcile)
    assert every and description(sc, "editor") == "Uses Xelih as the main editor"
    sc.close()


@pytest.mark.parametrize("change", ["added", "removed", "renamed", "renamed over another", "swapped"])
def test_a_file_added_removed_or_renamed_is_seen(three_memories: Path, change: str) -> None:
    sc = opened(three_memories)
    facts = three_memories / "facts"
    if change == "added":
        write_memory(three_memories, "shell", "Uses fish as the login shell")
    elif change == "removed":
        (facts / "editor.md").unlink()
    elif change == "renamed":
        (facts / "editor.md").rename(facts / "editing.md")
    elif change == "renamed over another":
        write_memory(three_memories, "shell", "Uses fish as the login shell")
        sc.reconcile()
        (facts / "shell.md").rename(facts / "editor.md")
    else:  # two files of the same size and mtime swap names: only their ctimes say so
        write_memory(three_memories, "alpha", "Alpha fact, first of two")
        write_memory(three_memories, "bravo", "Bravo fact, other of two")
        for name in ("alpha.md", "bravo.md"):
            os.utime(facts / name, ns=(1_700_000_000_000_000_000,) * 2)
        sc.reconcile()
        time.sleep(0.02)  # past a coarse clock's tick: the renames' ctimes differ from the writes'
        os.rename(facts / "alpha.md", facts / "swap.tmp")
        os.rename(facts / "bravo.md", facts / "alpha.md")
        os.rename(facts / "swap.tmp", facts / "bravo.md")
    _, every = every_row_read(sc, sc.reconcile)
    assert not every
    want = {"added": ({"coffee", "editor", "shell", "trip"}, {}),
            "removed": ({"coffee", "trip"}, {}),
            "renamed": ({"coffee", "editing", "trip"}, {"editing": "Uses Helix as the main editor"}),
            "renamed over another": ({"coffee", "editor", "trip"}, {"editor": "Uses fish as the login shell"}),
            "swapped": ({"alpha", "bravo", "coffee", "editor", "trip"},
                        {"alpha": "Bravo fact, other of two", "bravo": "Alpha fact, first of two"})}[change]
    assert set(sc.keys()) == want[0]
    for key, desc in want[1].items():
        assert description(sc, key) == desc
    found = scan(three_memories)
    assert scansum.matches(sc.db, len(found), scansum.scan_total(found))  # the rows' sum is the files'
    sc.close()


def test_a_write_between_two_reads_leaves_the_next_one_reading_no_row(three_memories: Path) -> None:
    """What a write does (its file, then its row with the sum brought along): the next read finds
    the listing moved by that file alone, and the rows moved the same way."""
    sc = opened(three_memories)
    rel = write_memory(three_memories, "shell", "Uses fish as the login shell")
    sc.refresh_paths([rel])
    (three_memories / "notes" / "trip.md").unlink()
    sc.refresh_paths(["notes/trip.md"])
    r, every = every_row_read(sc, sc.reconcile)
    assert not every and (r.added, r.updated, r.removed) == (0, 0, 0)
    assert set(sc.keys()) == {"coffee", "editor", "shell"}
    sc.close()


def test_a_row_changed_behind_the_sums_back_makes_the_read_compare_every_row(three_memories: Path) -> None:
    sc = opened(three_memories)
    with sc.db.write():
        sc.db.execute("UPDATE files SET mtime_ns = 1 WHERE path = 'facts/editor.md'")
    _, every = every_row_read(sc, sc.reconcile)
    assert every
    row = sc.db.execute("SELECT mtime_ns FROM files WHERE path = 'facts/editor.md'").fetchone()
    assert row[0] == (three_memories / "facts" / "editor.md").stat().st_mtime_ns
    sc.close()


@pytest.mark.parametrize("damage", ["garbage", "cut short", "wrong sum", "a link"])
def test_a_kept_listing_that_is_wrong_is_never_trusted(three_memories: Path, damage: str) -> None:
    """The kept listing is a cache: damaged, cut short, or naming a sum that is not its
    listing's, a read still sees an edit made meanwhile (it compares the rows) and keeps a right
    one again; a link there is replaced, its target untouched."""
    sc = opened(three_memories)
    kept = three_memories / ".vault-mem" / listing.FILE_NAME
    last = listing.Snapshot.read(three_memories / ".vault-mem")
    p = three_memories / "facts" / "editor.md"
    rewrite_in_place(p, b"Helix", b"Xelih", mtime_ns=p.stat().st_mtime_ns + 1)
    if damage == "garbage":
        kept.write_bytes(b"\x00\xff" * 100)
    elif damage == "wrong sum":
        listing.Snapshot(last.raw, last.count, (last.total + 1) % scansum.Q).write(three_memories / ".vault-mem")
    elif damage == "cut short":  # a record and a half lost
        data = kept.read_bytes()
        kept.write_bytes(data[:data.rindex(b"\0", 0, len(data) - 1) - 7])
    else:
        kept.unlink()
        kept.symlink_to(three_memories / "facts" / "editor.md")
    r = sc.reconcile()
    assert r.updated == 1 and description(sc, "editor") == "Uses Xelih as the main editor"
    if damage == "a link":
        assert not kept.is_symlink() and b"Xelih" in p.read_bytes() and b"vault-mem listing" not in p.read_bytes()
    fresh = listing.Snapshot.read(three_memories / ".vault-mem")
    found = scan(three_memories)
    assert (fresh.count, fresh.total) == (len(found), scansum.scan_total(found))
    sc.close()


def test_the_listing_parses_to_what_the_python_scan_finds(three_memories: Path) -> None:
    """Followed links (to a file, to a folder, dangling), a folder named like a memory, non-ASCII
    and spaced names, and names that are no memory's: the same (name, mtime, size) either way."""
    facts = three_memories / "facts"
    write_memory(three_memories, "café-order", "Orders a flat white at the café")
    (facts / "with space.md").write_text("---\ndescription: A name with a space\n---\n\nb\n")
    (facts / "link.md").symlink_to(facts / "editor.md")
    (facts / "dangling.md").symlink_to(facts / "nothing-there.md")
    (facts / "folder.md").mkdir()
    (facts / "dirlink.md").symlink_to(three_memories / "notes")
    (facts / ".editor.md.swp").write_bytes(b"swap")
    (facts / "readme.txt").write_text("not a memory")
    listed = listing.list_folders(three_memories)
    assert listed is not None
    assert listed.scan().as_dict() == scan(three_memories).as_dict()
    assert len(scan(three_memories).as_dict()) == 9


def test_files_whose_ctime_alone_moved_are_not_read_again_file_by_file(three_memories: Path, monkeypatch) -> None:
    """``chmod -R`` (or a restore with ``cp -a`` over the same folder) moves every file's ctime
    and nothing else: past :data:`listing.TOUCHED_MAX` such files nothing is read again for its
    ctime alone. (A copy in another folder is another vault: its index.db, made for this one, is
    not read there and is made again: tests/test_index_made_here.py.)"""
    monkeypatch.setattr(listing, "TOUCHED_MAX", 1)
    sc = opened(three_memories)
    sc.close()
    time.sleep(0.02)
    for folder, _dirs, files in os.walk(three_memories):
        for name in files:
            path = Path(folder) / name
            os.chmod(path, path.stat().st_mode)  # the same mode: the ctime alone moves
    sc = Sidecar(three_memories, Config(), embedder=FakeEmbedder())
    reads: list[str] = []
    real = Sidecar._read
    monkeypatch.setattr(Sidecar, "_read", lambda self, rel: reads.append(rel) or real(self, rel))
    r = sc.reconcile()
    assert reads == [] and r.unchanged == 3
    sc.close()


def test_without_gnu_find_the_read_stats_the_files_itself(three_memories: Path, monkeypatch) -> None:
    """``VAULT_MEM_PORTABLE=1`` (as on a system without GNU find): the read stats every file in
    Python and sees each change as before; no listing is kept."""
    monkeypatch.setenv("VAULT_MEM_PORTABLE", "1")
    assert listing.list_folders(three_memories) is None
    sc = Sidecar(three_memories, Config(), embedder=FakeEmbedder())
    sc.reconcile()
    p = three_memories / "facts" / "editor.md"
    rewrite_in_place(p, b"Helix", b"Xelih", mtime_ns=p.stat().st_mtime_ns + 1)
    (three_memories / "notes" / "trip.md").unlink()
    r = sc.reconcile()
    assert (r.updated, r.removed) == (1, 1)
    assert not (three_memories / ".vault-mem" / listing.FILE_NAME).exists()
    sc.close()


def test_a_find_that_fails_leaves_the_read_to_stat_the_files(three_memories: Path, monkeypatch) -> None:
    """A find that exits with an error (here: not a find at all) lists nothing: the read stats the
    files in Python and answers from them."""
    monkeypatch.setattr(folders, "_find", [shutil.which("false")])
    assert listing.list_folders(three_memories) is None
    sc = Sidecar(three_memories, Config(), embedder=FakeEmbedder())
    sc.reconcile()
    write_memory(three_memories, "shell", "Uses fish as the login shell")
    assert sc.reconcile().added == 1 and "shell" in sc.keys()
    sc.close()


def test_a_bulk_change_parses_the_whole_listing_and_sees_every_change(three_memories: Path, monkeypatch) -> None:
    """Past :data:`listing.BULK_SHARE` of the records differing (a checkout, a copy) the read
    parses the whole listing instead of the difference, and compares every row: the same answers."""
    monkeypatch.setattr(listing, "BULK_MIN", 0)
    sc = opened(three_memories)
    facts = three_memories / "facts"
    (facts / "editor.md").rename(facts / "editing.md")
    write_memory(three_memories, "shell", "Uses fish as the login shell")
    (three_memories / "notes" / "trip.md").unlink()
    assert listing.list_folders(three_memories).moved_from(listing.Snapshot.read(three_memories / ".vault-mem")) is None
    _, every = every_row_read(sc, sc.reconcile)
    assert every and set(sc.keys()) == {"coffee", "editing", "shell"}
    _, every = every_row_read(sc, sc.reconcile)  # the listing kept is this one: nothing compared again
    assert not every
    sc.close()


def test_the_records_that_differ_are_found_between_the_common_head_and_tail() -> None:
    """Two listings compared a block at a time from each end (``_middles``): the records left
    between hold exactly the records of one that the other lacks, whole, whatever the block size
    and wherever records were changed, added or removed (random listings, 5,000 pairs)."""
    import random

    rng = random.Random(29)
    for _ in range(5000):
        old = [b"%d %d.%010d facts/m%d.md" % (rng.randint(1, 999), rng.randint(1, 9), rng.randint(0, 10**9), i)
               for i in range(rng.randint(0, 40))]
        new = list(old)
        for _ in range(rng.randint(0, 4)):
            op, at = rng.random(), rng.randint(0, len(new))
            if op < 0.4 and new:
                new[min(at, len(new) - 1)] = b"%d 2.%010d facts/e%d.md" % (rng.randint(1, 99), rng.randint(0, 9), at)
            elif op < 0.7:
                new.insert(at, b"%d 3.0000000000 facts/n%d.md" % (rng.randint(1, 99), rng.randint(0, 10**9)))
            elif new:
                del new[min(at, len(new) - 1)]
        a, b = (b"".join(r + b"\0" for r in recs) for recs in (new, old))
        mid_a, mid_b = listing._middles(a, b, rng.choice([1, 2, 5, 16, 64, 1 << 16]))
        assert mid_a == b"" or mid_a.endswith(b"\0")
        assert mid_b == b"" or mid_b.endswith(b"\0")
        in_a, in_b = set(mid_a.split(b"\0")[:-1]), set(mid_b.split(b"\0")[:-1])
        assert (in_a - in_b, in_b - in_a) == (set(new) - set(old), set(old) - set(new))


@pytest.mark.parametrize("block", [1, 3, 1 << 16])
def test_a_record_that_ends_another_one_is_not_cut_from_it(block: int) -> None:
    """A record whose bytes end another's (the same file, its size grown from 3 to 123 bytes, the
    same times) puts the common tail's start inside the other listing's record: the records left
    between are still whole on both sides, never a size's first digits."""
    same = b" 1700000000.0000000000 1700000000.0000000000 facts/x.md\0"
    head = b"5 1700000000.0000000000 1700000000.0000000000 facts/a.md\0"
    a, b = head + b"3" + same, head + b"123" + same
    mid_a, mid_b = listing._middles(a, b, block)
    assert mid_a.endswith(b"\0") and mid_b.endswith(b"\0")
    assert (set(mid_a.split(b"\0")) - set(mid_b.split(b"\0")), set(mid_b.split(b"\0")) - set(mid_a.split(b"\0"))) \
        == ({b"3" + same[:-1]}, {b"123" + same[:-1]})


def test_a_one_shot_read_sees_an_edit_whose_mtime_was_set_back(tmp_path: Path) -> None:
    """Through the CLI, as a person's editor and a sync tool can leave it: the file rewritten in
    place, same size, its mtime put back; the next one-shot read answers with the new text."""
    import json

    from conftest import cli, new_vault

    root = tmp_path / "vault"
    new_vault(root).close()
    assert cli("--vault", str(root), "remember", "editor", "--description", "Uses Helix as the main editor",
               "--body", "Switched from Neovim last spring.").returncode == 0
    assert cli("--vault", str(root), "list", "--json").returncode == 0  # the listing is kept
    assert cli("--vault", str(root), "list", "--json").returncode == 0
    p = root / "facts" / "editor.md"
    rewrite_in_place(p, b"Helix", b"Xelih", mtime_ns=p.stat().st_mtime_ns)
    got = cli("--vault", str(root), "list", "--json")  # descriptions from the index
    assert got.returncode == 0, got.stderr
    assert [m["description"] for m in json.loads(got.stdout)] == ["Uses Xelih as the main editor"]
