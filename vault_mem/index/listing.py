"""A read's no-change check by one C pass: GNU ``find`` lists every entry of the type folders with
its stat data, and the listing the last read saw says what moved since (issue 29).

A read without a daemon must see every hand edit, so every memory file is stat'ed (an edit in
place moves no folder's mtime). In Python that stat costs ~4 us a file (the system call, a
``stat_result`` and a tuple per file: ~0.4 s at 100k files, plus ~50 ms to sum them); ``find
-printf`` makes the same system calls in C and prints one record per entry, ``size mtime ctime
path``, NUL-ended. The listing is read as bytes and compared with the last one a read saw
(``.vault-mem/listing``, a cache: kept without fsync, rebuilt when missing or unreadable), which
holds that listing's scan sum (:mod:`vault_mem.index.scansum`) beside it:

- the same bytes: the same sum, nothing parsed;
- other bytes: the records that differ (between the head and the tail both listings share,
  found a 64 KiB block at a time: a listing's order stays put where nothing changed) move the
  sum by their terms alone, so a read after a few changes parses only those records; past a
  quarter of the records (a checkout, a copy) the whole listing is parsed once instead.

Either way the sum is then checked against the rows' own sum as before; only when they differ
(files changed that no row reflects) is the whole listing parsed into a :class:`Scan` and every
row compared. A record that moved since the last listing while the row already holds its (mtime,
size) is named to be read again (:meth:`Moved.again`): its ctime moved with nothing else (a file
rewritten and its mtime set back, ``os.utime``, which no (mtime, size) comparison sees), or a write
made the row after the last listing and a hand edit then set the mtime back to the write's.
Not seen so (nor by any (mtime, size) comparison): a file rewritten with its mtime set back
before the listing kept (none kept yet: a first read, a cache lost or damaged), within a bulk
change, or among more than :data:`TOUCHED_MAX` such files; and on a kernel whose file times
move by the clock's tick (before Linux 6.13's fine-grained ctimes, or a coarse file system) an
edit of the same size in the tick of the listing, or of the read that indexed the file.

Where there is no GNU find (macOS, the BSDs, BusyBox without ``-printf``), or it fails (a file
vanishing mid-listing, an unreadable folder, a time before 1970), or ``VAULT_MEM_PORTABLE=1``,
the read stats the files in Python as before (:func:`vault_mem.index.folderscan.scan`).

``find -L`` follows a memory-named symbolic link (its target's data; a dangling one's own), as
the Python scan does; a folder named like a memory is listed with its own data, as there.
"""

from __future__ import annotations

import os
from pathlib import Path

from vault_mem.config import FOLDER_TYPES
from vault_mem.errors import VaultMemError
from vault_mem.index import scansum
from vault_mem.index.folderscan import Scan
from vault_mem.index.scansum import Sig
from vault_mem.model.memory import is_memory_name
from vault_mem.platform import folders
from vault_mem.platform.folders import Entry, held_ns
from vault_mem.store.files import PRIVATE_FILE, read_own, replace_file

__all__ = ["HEAD", "Listed", "Moved", "Snapshot", "list_folders"]

#: GNU find's record per entry: size, mtime and ctime (seconds with 10 fractional digits: the
#: nanoseconds and a 0), the path from the vault's top; NUL-ended (a name may hold any byte but NUL)
FORMAT = r"%s %T@ %C@ %p\0"
#: the first line of the kept listing: this, the listing's memory-file count and scan sum
HEAD = b"vault-mem listing 1"
#: the kept listing's file in ``.vault-mem/``
FILE_NAME = "listing"

#: past this share of records (and this many) differing from the last listing, the whole
#: listing is parsed instead
BULK_SHARE, BULK_MIN = 0.25, 1024
#: at most this many files are read again though their row holds their (mtime, size)
#: (:meth:`Moved.again`)
TOUCHED_MAX = 256

def list_folders(root: Path) -> Listed | None:
    """The type folders' entries as GNU find lists them, or None where it cannot (see the module
    docstring): the caller stats the files itself."""
    present = [f for f in FOLDER_TYPES if os.path.isdir(os.path.join(root, f))]
    if not present:
        return Listed(b"") if folders.gnu_find() else None
    out = folders.find_printf(root, present, FORMAT)
    if out is None or (out and not out.endswith(b"\0")):
        return None  # a file gone mid-listing, an unreadable folder, a find without -printf
    return Listed(out)


def _ns(text: bytes) -> int:
    """Nanoseconds from find's ``%T@`` (``1733350000.1234567890``); ValueError for anything else
    (a time before 1970 is printed otherwise: the caller stats the files itself)."""
    sec, dot, frac = text.partition(b".")
    if not dot or len(frac) != 10 or not sec.isdigit() or not frac.isdigit():
        raise ValueError(text)
    return held_ns(int(sec) * 1_000_000_000 + int(frac[:9]))


def _record(rec: bytes) -> tuple[str, str, int, int, int]:
    """(folder, name, mtime_ns, size, ctime_ns) of one record; ValueError when it is not one."""
    size, mtime, ctime, path = rec.split(b" ", 3)
    folder, name = os.fsdecode(path).split("/", 1)
    return folder, name, _ns(mtime), int(size), _ns(ctime)


def _middles(a: bytes, b: bytes, block: int = 1 << 16) -> tuple[bytes, bytes]:
    """The records of ``a`` and of ``b`` between the whole records both begin with and both end
    with (found a block at a time, compared in C): a listing's order is its folders' and stays
    put where nothing changed, so an edit leaves a block or two to split and compare."""
    short = min(len(a), len(b))
    head = 0
    while head < short and a[head:head + block] == b[head:head + block]:
        head += block
    head = min(head, short)
    tail = 0  # bytes equal at both ends, never into the head's
    while tail < short - head:
        step = min(block, short - head - tail)
        if a[len(a) - tail - step:len(a) - tail] != b[len(b) - tail - step:len(b) - tail]:
            break
        tail += step
    start = a.rfind(b"\0", 0, head) + 1  # the first record not wholly in the common head
    if tail:  # the first record wholly in the common tail begins after a NUL in it: in it, as
        # the NUL just before the tail is ``a``'s alone (``b``'s record may run on into the tail)
        cut = a.find(b"\0", len(a) - tail) + 1
        back = len(a) - cut if cut > 0 else 0
    else:
        back = 0
    back = min(back, len(a) - start, len(b) - start)
    return a[start:len(a) - back], b[start:len(b) - back]


class Snapshot:
    """The listing a read saw last, with its memory files' count and scan sum."""

    __slots__ = ("count", "raw", "total")

    def __init__(self, raw: bytes, count: int, total: int) -> None:
        self.raw, self.count, self.total = raw, count, total

    @classmethod
    def read(cls, state_dir: Path) -> Snapshot | None:
        """The kept one, or None (none, unreadable, or not this format)."""
        try:
            data = read_own(state_dir / FILE_NAME)
        except (OSError, VaultMemError):  # a link or not a file there: none
            return None
        if not data:
            return None
        head, nl, raw = data.partition(b"\n")
        parts = head.rsplit(b" ", 2)
        if not nl or len(parts) != 3 or parts[0] != HEAD:
            return None
        try:
            return cls(raw, int(parts[1]), int(parts[2]))
        except ValueError:
            return None

    def write(self, state_dir: Path) -> None:
        """Kept for the next read; best effort (a read-only or full disk: the next read parses)."""
        try:
            replace_file(state_dir / FILE_NAME, b"%s %d %d\n" % (HEAD, self.count, self.total) + self.raw,
                         mode=PRIVATE_FILE)
        except OSError:
            pass


class Moved:
    """A listing's memory files counted and summed from the last listing and the records that
    differ from it: ``now`` the (mtime_ns, size) of each memory path whose record is new or
    changed, ``was`` the same from the last listing (a path in ``was`` alone is gone), and
    ``touched`` the paths whose (mtime_ns, size) stayed while their ctime moved."""

    __slots__ = ("count", "now", "total", "touched", "was")

    def __init__(self, count: int, total: int, now: dict[str, Sig], was: dict[str, Sig]) -> None:
        self.count, self.total, self.now, self.was = count, total, now, was
        touched = [p for p, sig in now.items() if was.get(p) == sig]
        #: more than a few such records is a copy or a permission change of the folders (``cp
        #: -a``, ``chmod -R``: the ctime of every file moves), not edits: nothing re-read then
        self.touched = touched if len(touched) <= TOUCHED_MAX else []

    def again(self, todo: list[str]) -> list[str]:
        """``todo`` (the paths whose row differs from the listing) and the other paths whose
        record moved since the last listing: their row holds the listing's (mtime, size), yet
        that proves nothing. The row may be a write's, made after the last listing, and a hand
        edit since may have put the mtime back to the write's (the record's ctime moved, its
        (mtime, size) too since the last listing: :attr:`touched` cannot tell). Past
        :data:`TOUCHED_MAX` such paths (a copy, ``chmod -R``, many writes) only :attr:`touched`."""
        seen = set(todo)
        extra = [p for p in self.now if p not in seen]
        if len(extra) > TOUCHED_MAX:
            extra = [p for p in self.touched if p not in seen]
        return todo + extra

    def paths(self) -> set[str]:
        """Every memory path whose record differs from the last listing."""
        return self.now.keys() | self.was.keys()


class Listed:
    """One listing of the type folders (:func:`list_folders`)."""

    __slots__ = ("raw",)

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def scan(self) -> Scan | None:
        """The whole listing as a :class:`Scan` of its memory-named entries; None when a record
        cannot be read (the caller stats the files itself)."""
        by_folder: dict[str, list[Entry]] = {}
        try:
            for rec in self.raw.split(b"\0")[:-1]:
                folder, name, mtime_ns, size, _ = _record(rec)
                if is_memory_name(name):
                    entries = by_folder.get(folder)
                    if entries is None:
                        entries = by_folder[folder] = []
                    entries.append((name, mtime_ns, size))
        except ValueError:
            return None
        return Scan([(f, by_folder[f]) for f in FOLDER_TYPES if f in by_folder])

    def moved_from(self, last: Snapshot) -> Moved | None:
        """This listing counted and summed from ``last`` and the records that differ from it
        (:class:`Moved`); None when one of those cannot be read, or more than
        :data:`BULK_SHARE` of them differ."""
        if self.raw == last.raw:
            return Moved(last.count, last.total, {}, {})
        mid_new, mid_old = _middles(self.raw, last.raw)
        new, old = set(mid_new.split(b"\0")), set(mid_old.split(b"\0"))
        if len(new ^ old) > max(BULK_MIN, BULK_SHARE * self.raw.count(b"\0")):
            return None  # a checkout, a copy: parsing the whole listing once costs less
        count, total = last.count, last.total
        was: dict[str, Sig] = {}
        now: dict[str, Sig] = {}
        try:
            for recs, sign, into in ((old - new, -1, was), (new - old, 1, now)):
                for rec in recs:
                    if not rec:
                        continue
                    folder, name, mtime_ns, size, _ = _record(rec)
                    if not is_memory_name(name):
                        continue
                    path = f"{folder}/{name}"
                    count += sign
                    total += sign * scansum.term(path, mtime_ns, size)
                    into[path] = (mtime_ns, size)
        except ValueError:
            return None
        return Moved(count, total % scansum.Q, now, was)
