"""The scan sum: what the ``files`` rows say the type folders hold, as one number.

A read without a daemon must see every hand edit, so it stats every memory file (the one thing
no shortcut can skip on a system without a watcher: an edit in place moves no folder's mtime).
Comparing those 100k stats with 100k rows read from SQLite cost more than the stats themselves
(issue 29). Instead the rows' ``(path, mtime_ns, size)`` are kept summed: each triple's
:func:`term`, added up modulo a 127-bit prime, beside the row count. A scan that sums to the
same number over the same count holds what the rows hold, and nothing is read from the rows.

The sum is stored with the value of a counter that triggers move on every change of a row's
``path``, ``mtime_ns`` or ``size``, made by any code (``index.db.m014_scan_generation``): a
stored sum whose counter value is not the current one is stale and never trusted. Code that
changes rows brings the sum along in the same transaction (:func:`before`/:func:`after`); any
change it did not account for leaves the counter ahead, and the next read compares the rows
as before (and records the sum again).

Why the sum cannot be fooled by ordinary edits: a term is ``(P + 1) * (m*K1 + s*K2 + K3)`` with
``P`` the path's bytes as a number, so one file's change moves the sum by ``(P + 1) * (K1*dm +
K2*ds)``, never 0 modulo the prime ``Q``; two files swapping their stat data (a rename dance)
move it by ``(P1 - P2) * (...)``, never 0 either; a file added, removed or renamed changes the
count or moves the sum by a whole term. Only a deliberate construction could cancel terms, and
the stat data of a person's own files is not chosen by an adversary.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from vault_mem.errors import IndexStoreError
from vault_mem.index.db import FILES_SCAN_GENERATION, Database, database_error

if TYPE_CHECKING:
    from vault_mem.index.folderscan import Scan

#: a 127-bit prime (not of a special form, so paths' bytes do not fold onto each other)
Q = 0x4C9CAADF58886F39137C56AF8C518817
K1, K2, K3 = 0x58D041B49E1859F9B11BF0CD848292D, 0x1925870058043666ED60F36482A5F8B3, 0x211ECD7F94ECF6804C663426A5DCF77
#: meta row: "<counter value> <row count> <sum>"
META_NAME = "scan_sum"

Sig = tuple[int, int]


def term(path: str, mtime_ns: int, size: int) -> int:
    """One row's share of the sum (not yet reduced modulo :data:`Q`)."""
    return (int.from_bytes(path.encode("utf-8", "surrogateescape")) + 1) * (mtime_ns * K1 + size * K2 + K3)


def total(sigs: Mapping[str, Sig]) -> int:
    """The sum of ``{path: (mtime_ns, size)}`` (a scan), reduced modulo :data:`Q`.

    One loop with the constants in locals: ~40 ms at 100k files, against ~0.2 s to read and
    compare the rows."""
    acc, frombytes, k1, k2, k3 = 0, int.from_bytes, K1, K2, K3
    for path, (mtime_ns, size) in sigs.items():
        acc += (frombytes(path.encode("utf-8", "surrogateescape")) + 1) * (mtime_ns * k1 + size * k2 + k3)
    return acc % Q


def scan_total(found: Scan) -> int:
    """:func:`total` of a :class:`~vault_mem.index.folderscan.Scan`, folder by folder: each
    path's bytes are its folder's and its name's, so no path string is built (at 100k files
    this and the scan's plain tuples save ~60 ms of a read's ~500)."""
    acc, frombytes, k1, k2, k3 = 0, int.from_bytes, K1, K2, K3
    for folder, entries in found.folders:
        prefix = folder.encode("utf-8", "surrogateescape") + b"/"
        for name, mtime_ns, size in entries:
            acc += (frombytes(prefix + name.encode("utf-8", "surrogateescape")) + 1) * (mtime_ns * k1 + size * k2 + k3)
    return acc % Q


def _state(db: Database) -> tuple[int | None, tuple[int, int, int] | None]:
    """(the counter now, the stored (counter, count, sum) or None), read in one statement so
    both come from one snapshot of the database."""
    try:
        row = db.tuples("SELECT (SELECT n FROM counters WHERE name = ?), (SELECT value FROM meta WHERE name = ?)",
                        (FILES_SCAN_GENERATION, META_NAME)).fetchone()
    except database_error():
        return None, None  # a file from before the counter (a test's old schema): no sum kept
    generation, text = row if row else (None, None)
    try:
        gen, count, value = (int(x) for x in str(text).split())
    except ValueError:
        return generation, None
    return generation, (gen, count, value)


def generation(db: Database) -> int | None:
    """The counter now (None on a database without it)."""
    return _state(db)[0]


def current(db: Database) -> tuple[int, int, int] | None:
    """(counter value, row count, sum) of the rows when the stored sum is current, else None."""
    now, stored = _state(db)
    return stored if now is not None and stored is not None and stored[0] == now else None


def matches(db: Database, count: int, value: int | None = None, sigs: Mapping[str, Sig] | None = None) -> bool:
    """Whether the rows hold exactly a scan of ``count`` files summing to ``value`` (or to the
    sum of ``sigs``, computed only when the stored sum is current)."""
    now, stored = _state(db)
    if now is None or stored is None or stored[0] != now or stored[1] != count:
        return False
    if value is None:
        value = total(sigs or {})
    return stored[2] == value


def record(db: Database, gen: int, count: int, value: int) -> None:
    """Store the rows' sum as it was at counter value ``gen``: in vain (and harmless) when
    rows changed since, the counter having moved. Best effort: a read that cannot write (a
    busy or read-only index) just compares the rows again next time."""
    try:
        with db.write(wait=False):
            if generation(db) == gen:
                _store(db, gen, count, value)
    except (IndexStoreError, database_error()):
        return  # busy or unwritable: the next read compares the rows again


def _store(db: Database, gen: int, count: int, value: int) -> None:
    db.set_meta(META_NAME, f"{gen} {count} {value % Q}")


def sigs(db: Database, paths: Iterable[str]) -> dict[str, Sig]:
    """{path: (mtime_ns, size)} of the rows of ``paths`` that exist."""
    return {p: (m, s) for p, m, s in db.tuples(
        "SELECT path, mtime_ns, size FROM files WHERE path IN (SELECT value FROM json_each(?))",
        (json.dumps(list(paths)),))}


class Kept:
    """The sum as a write transaction found it, to be brought along by :func:`after`."""

    __slots__ = ("count", "gen", "paths", "sigs", "value")

    def __init__(self, gen: int, count: int, value: int, paths: list[str], sigs: dict[str, Sig]) -> None:
        self.gen, self.count, self.value, self.paths, self.sigs = gen, count, value, paths, sigs


def before(db: Database, paths: Iterable[str]) -> Kept | None:
    """Inside a write transaction, before the rows of ``paths`` change: the current sum and
    those rows' stat data (None when no current sum is stored: nothing to bring along)."""
    now, stored = _state(db)
    if now is None or stored is None or stored[0] != now:
        return None
    paths = list(dict.fromkeys(paths))
    return Kept(now, stored[1], stored[2], paths, sigs(db, paths))


def after(db: Database, kept: Kept | None) -> None:
    """In the same transaction, after the rows of ``kept.paths`` changed: store the sum with
    their new stat data, unless the counter moved by more than those changes (some other row
    changed too: the stored sum is left stale)."""
    if kept is None:
        return
    now = generation(db)
    new = sigs(db, kept.paths)
    changed = [p for p in kept.paths if kept.sigs.get(p) != new.get(p)]
    if now is None or now - kept.gen != len(changed):
        return
    value, count = kept.value, kept.count
    for p in changed:
        if p in kept.sigs:
            value -= term(p, *kept.sigs[p])
            count -= 1
        if p in new:
            value += term(p, *new[p])
            count += 1
    _store(db, now, count, value)
