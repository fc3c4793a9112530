"""A git tree kept parsed, so that a write edits one entry instead of re-reading 50k.

:class:`ParsedTree` holds a tree's raw bytes with GitPython's parse of it (its entries) and
each entry's sort key and size: one entry is put or removed by splicing its bytes, and a tree
that another git wrote is re-parsed as a difference from the last one held (:meth:`rebase`).
Parsing and serialising are GitPython's (``tree_entries_from_data``, ``tree_to_stream``) for
any entry whose name or mode its checks must see; an entry with a plain name (every memory
file's) and a mode as git writes it is parsed and serialised here, to the same bytes, so a
write or a read imports no GitPython (issue 29: ~170 ms CPU of a one-shot command).
Used by :mod:`vault_mem.store.gitobjects`; :func:`tree_names`, a reader of any tree's
entries as written, by :mod:`vault_mem.store.history`.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
import re
import stat
from itertools import accumulate, repeat
from operator import itemgetter, sub

#: bytes compared at a time when looking for where an old and a new tree start to differ
_BLOCK = 65536
#: the modes git writes, as it writes them (GitPython also takes older spellings: see _entries)
_MODES = {b"100644": 0o100644, b"100755": 0o100755, b"40000": 0o40000, b"120000": 0o120000,
          b"160000": 0o160000}
_MODE_BYTES = {mode: text for text, mode in _MODES.items()}
#: the shortest entry: a 5-digit mode, a space, a one-byte name, a NUL and a 20-byte id
_MIN_ENTRY = 28
#: the first byte of every mode git writes
_MODE_FIRST = frozenset(b"14")
#: a name GitPython's checks always accept: ASCII, starting with a letter, digit or "_", then only
#: those, "." and "-" (so never "", ".", "..", ".git" or an NTFS/HFS alias of it, a drive, a "/"
#: or a NUL); every memory file's name is one
_PLAIN_NAME = re.compile(rb"[A-Za-z0-9_][A-Za-z0-9._-]*\Z")
#: a hidden name of the same characters (``.gitignore``, ``.github``): GitPython's checks accept
#: it unless, without its trailing dots and in any case, it is ``.git`` (an NTFS alias of it:
#: :func:`_plain`), or it is a link (one named ``.gitmodules`` is refused)
_DOT_NAME = re.compile(rb"\.[A-Za-z0-9_][A-Za-z0-9._-]*\Z")
_LINK_MODES = frozenset({0o120000})
#: one entry with a plain or hidden plain name and a mode as git writes it (:func:`_plain_entries`)
_ENTRY = re.compile(rb"(100644|100755|40000|120000|160000) (\.?[A-Za-z0-9_][A-Za-z0-9._-]*)\x00(.{20})", re.S)


class ParsedTree:
    """One parsed tree: GitPython's entries ``(binsha, mode, name)`` in git's order, their sort
    keys, and the serialised bytes with each entry's length.

    ``put``/``remove`` return a new tree (cached trees are shared, so never mutated): the lists
    are copied and edited in C (slicing, ``insert``; a changed entry that keeps its name shares
    the keys), and the bytes are the old bytes with the one entry's ``tree_to_stream`` output
    spliced in at its offset. Entries nobody touched keep their exact bytes, even a name that is
    not UTF-8 (GitPython would not serialise it back).

    A tree made from a recorded shape (:meth:`from_sizes`: each entry's length, kept when a write
    made the tree, :mod:`vault_mem.store.treeshapes`) is not parsed: ``get``/``put``/``remove``
    read the few entries a binary search visits from its bytes, and ``entries``/``keys`` are
    parsed only when asked for (a one-shot write into a folder of 50k memories parsed all of them
    to splice one: issue 29). ``plain``: every entry has a plain name and a mode as git writes it
    (:func:`_plain_entries`), so its bytes can be read without GitPython's checks; only such a
    tree's shape is recorded."""

    __slots__ = ("_entries", "_keys", "_starts", "plain", "raw", "sizes")
    EMPTY: ParsedTree

    def __init__(self, raw: bytes, entries: list | None, keys: list[bytes] | None, sizes: list[int],
                 *, plain: bool = False, starts: list[int] | None = None):
        self.raw = raw
        self._entries = entries
        self._keys = keys  # git's order: a tree sorts as if its name ended in "/"
        self.sizes = sizes
        self.plain = plain
        self._starts = starts  # each entry's offset, then the length (made when first needed)

    @classmethod
    def parse(cls, raw: bytes) -> ParsedTree:
        fast = _plain_entries(raw)
        if fast is not None:
            return cls(raw, *fast, plain=True)
        entries = _entries(raw)
        keys, sizes = [], []
        for _, mode, name in entries:
            key = _name_bytes(name)
            sizes.append(len(b"%o" % mode) + len(key) + 22)  # "<mode> <name>\0" + 20-byte id
            keys.append(key + b"/" if stat.S_ISDIR(mode) else key)
        if sum(sizes) != len(raw):
            # written by an old tool (a zero-padded mode like "040000"): the splice offsets
            # would be wrong, so take GitPython's serialisation, which writes it as git does now
            raw = b"".join(_entry_bytes(e) for e in entries)
            if sum(sizes) != len(raw):
                raise ValueError("tree bytes and parsed entries disagree")
        return cls(raw, entries, keys, sizes)

    @classmethod
    def from_sizes(cls, raw: bytes, sizes: list[int]) -> ParsedTree | None:
        """The plain tree ``raw`` whose entries are ``sizes`` bytes long, unparsed; None when the
        sizes do not add up to ``raw``'s length or its first and last entries do not read as
        plain entries there (a shape recorded for other bytes). The caller vouches for the
        shape (a record this machine signed, kept under the tree's object id)."""
        if not sizes or sum(sizes) != len(raw) or min(sizes) < _MIN_ENTRY:
            return None
        starts = [0, *accumulate(sizes)]
        # every entry starts with a mode's first digit and has its name's NUL 21 bytes before
        # its end (read in C, a byte per entry), and the first and last read whole
        if set(_bytes_at(raw, starts[:-1])) - _MODE_FIRST or any(_bytes_at(raw, map(sub, starts[1:], repeat(21)))):
            return None
        if any(_entry_in(raw, starts[i], sizes[i]) is None for i in {0, len(sizes) - 1}):
            return None
        return cls(raw, None, None, sizes, plain=True, starts=starts)

    @property
    def entries(self) -> list:
        """GitPython's ``(binsha, mode, name)`` of each entry, in git's order."""
        if self._entries is None:
            self._parse_all()
        return self._entries  # type: ignore[return-value]

    @property
    def keys(self) -> list[bytes]:
        """Each entry's sort key (its name's bytes, a folder's with "/" after)."""
        if self._keys is None:
            self._parse_all()
        return self._keys  # type: ignore[return-value]

    def __len__(self) -> int:
        return len(self.sizes)

    def _parse_all(self) -> None:
        fast = _plain_entries(self.raw)
        if fast is None or fast[2] != self.sizes:
            raise ValueError("tree bytes and their recorded shape disagree")
        self._entries, self._keys, _ = fast

    def _start(self, i: int) -> int:
        if self._starts is None:
            self._starts = [0, *accumulate(self.sizes)]
        return self._starts[i]

    def _entry_at(self, i: int) -> tuple[bytes, bytes, bytes] | None:
        """(mode text, name, binsha) of entry ``i`` read from the bytes at its recorded offset,
        or None when they are not one plain entry exactly that long."""
        return _entry_in(self.raw, self._start(i), self.sizes[i])

    def _key_at(self, i: int) -> bytes:
        if self._keys is not None:
            return self._keys[i]
        found = self._entry_at(i)
        if found is None:
            raise ValueError("tree bytes and their recorded shape disagree")
        mode, name, _ = found
        return name + b"/" if mode == b"40000" else name

    def _bisect(self, key: bytes) -> int:
        if self._keys is not None:
            return bisect.bisect_left(self._keys, key)
        return bisect.bisect_left(range(len(self.sizes)), key, key=self._key_at)

    def rebase(self, raw: bytes) -> ParsedTree | None:
        """The tree whose bytes are ``raw``, parsed as a difference from this one, or None.

        A folder of 50k memories that another git changed by one file shares all but a few
        entries' bytes with the version held here: only the bytes from the last entry boundary
        in the common prefix to the first in the common suffix go through GitPython's parser.
        Parsing is sequential, so a boundary inside identical leading bytes is a boundary in
        both; the middle must parse to exactly its end, and what follows parses as before. A
        tree not parsed (:meth:`from_sizes`) answers None: parsing it costs what parsing ``raw``
        does."""
        if self._entries is None:
            return None
        old = self.raw
        prefix = _common_prefix(old, raw)
        suffix = _common_suffix(old, raw, min(len(old), len(raw)) - prefix)
        ends = list(accumulate(self.sizes))  # ends[k]: where entry k ends
        i = bisect.bisect_right(ends, prefix)  # entries [0, i) lie inside the common prefix
        start = ends[i - 1] if i else 0
        tail = len(old) - suffix
        j = bisect.bisect_left(ends, tail) + 1 if tail > 0 else 0  # entries [j, ...) lie in the suffix
        stop = (ends[j - 1] if j else 0) + len(raw) - len(old)
        try:
            middle = ParsedTree.parse(raw[start:stop]) if stop > start else ParsedTree.EMPTY
        except ValueError:
            return None  # not a whole number of entries there: parse it all
        if sum(middle.sizes) != stop - start:
            return None
        keys = self.keys[:i] + middle.keys + self.keys[j:]
        for at in (i - 1, i + len(middle.keys) - 1):  # git's order must hold at both seams
            if 0 <= at < len(keys) - 1 and not keys[at] < keys[at + 1]:
                return None
        return ParsedTree(raw, self.entries[:i] + middle.entries + self.entries[j:], keys,
                          self.sizes[:i] + middle.sizes + self.sizes[j:], plain=self.plain and middle.plain)

    def _index(self, name: str) -> int | None:
        key = _name_bytes(name)
        for k in (key, key + b"/"):
            i = self._bisect(k)
            if i < len(self.sizes) and self._key_at(i) == k:
                return i
        return None

    def get(self, name: str) -> tuple[int, str] | None:
        """(mode, hex id) of the entry ``name``, or None."""
        i = self._index(name)
        if i is None:
            return None
        if self._entries is None:
            mode, _, binsha = self._entry_at(i)  # type: ignore[misc]  # _index read it whole
            return _MODES[mode], binsha.hex()
        binsha, mode, _ = self._entries[i]
        return mode, binsha.hex()

    def remove(self, name: str) -> ParsedTree:
        """This tree without the entry ``name`` (itself when there is none)."""
        i = self._index(name)
        if i is None:
            return self
        at = sum(self.sizes[:i])
        raw = memoryview(self.raw)
        lists = (None, None) if self._entries is None else (self._entries[:i] + self._entries[i + 1:],
                                                          self.keys[:i] + self.keys[i + 1:])
        return ParsedTree(b"".join((raw[:at], raw[at + self.sizes[i]:])), *lists,
                          self.sizes[:i] + self.sizes[i + 1:], plain=self.plain)

    def put(self, name: str, mode: int, oid: str) -> ParsedTree:
        """This tree with the entry ``name`` set to ``mode``/``oid`` (added or replaced)."""
        entry = (bytes.fromhex(oid), mode, name)
        data = _entry_bytes(entry)
        key = _name_bytes(name) + (b"/" if stat.S_ISDIR(mode) else b"")
        plain = self.plain and _MODE_BYTES.get(mode) is not None and _plain(_name_bytes(name), mode)
        i = self._index(name)
        if i is not None and self._key_at(i) == key:  # same name and kind: replace in place
            at = sum(self.sizes[:i])
            raw = memoryview(self.raw)
            sizes = self.sizes[:]
            sizes[i] = len(data)
            entries = None
            if self._entries is not None:
                entries = self._entries[:]
                entries[i] = entry
            return ParsedTree(b"".join((raw[:at], data, raw[at + self.sizes[i]:])), entries, self._keys, sizes,
                              plain=plain)
        if i is not None:  # a file becomes a folder or back: its old entry goes, then the new one
            return self.remove(name).put(name, mode, oid)
        i = self._bisect(key)
        at = sum(self.sizes[:i])
        raw = memoryview(self.raw)
        sizes = self.sizes[:]
        sizes.insert(i, len(data))
        entries = keys = None
        if self._entries is not None:
            entries, keys = self._entries[:], self.keys[:]
            entries.insert(i, entry)
            keys.insert(i, key)
        return ParsedTree(b"".join((raw[:at], data, raw[at:])), entries, keys, sizes, plain=plain)


def _entry_in(raw: bytes, start: int, size: int) -> tuple[bytes, bytes, bytes] | None:
    """(mode text, name, binsha) of the entry ``size`` bytes long at ``start`` in the tree bytes
    ``raw``, or None when they are not one plain entry exactly that long."""
    found = _ENTRY.match(raw, start, start + size)
    if found is None or found.end() != start + size:
        return None
    mode, name, binsha = found.groups()
    if name[:1] == b"." and not _plain(name, _MODES[mode]):
        return None  # an alias of .git: only GitPython's checks may pass on it
    return mode, name, binsha


def _plain(name: bytes, mode: int) -> bool:
    """Whether the entry ``name`` (bytes) with ``mode`` (one git writes) is one GitPython's
    checks always accept, so it need not go through them (every memory file, the vault's own
    ``.gitignore``/``.gitattributes``, a project's ``.github``)."""
    if _PLAIN_NAME.match(name) is not None:
        return True
    return mode not in _LINK_MODES and _DOT_NAME.match(name) is not None and name.rstrip(b".").lower() != b".git"


def _entry_bytes(entry: tuple[bytes, int, str]) -> bytes:
    """One entry serialised as ``tree_to_stream`` serialises it: here when the name is plain and
    the mode one git writes (what GitPython's checks always accept), else through GitPython,
    which validates the name (no "..", ".git", "/") and refuses it as before."""
    binsha, mode, name = entry
    text = _MODE_BYTES.get(mode)
    if text is not None and len(binsha) == 20 and name.isascii() and _plain(name.encode("ascii"), mode):
        return b"%s %s\0%s" % (text, name.encode("ascii"), binsha)
    from git.objects.fun import tree_to_stream

    chunks: list[bytes] = []
    tree_to_stream([entry], chunks.append)
    return b"".join(chunks)


def _tree_entries_from_data(raw: bytes) -> list:
    """GitPython's parse of ``raw``, with its checks (imported for the trees that need it)."""
    from git.objects.fun import tree_entries_from_data

    return tree_entries_from_data(raw)


def _plain_entries(raw: bytes) -> tuple[list, list[bytes], list[int]] | None:
    """(entries, keys, sizes) of a tree whose every entry has a plain name (:func:`_plain`) and
    a mode as git writes it (a type folder's), found by one regular expression run in C: the
    same as :func:`_entries` and the keys and sizes :meth:`ParsedTree.parse` makes of them, in
    a third of the time (a one-shot write parses the folder it writes into: issue 29). None
    for any other tree. The matches tile ``raw`` exactly (they never overlap, so their lengths
    add up to ``len(raw)`` only when no byte lies outside them): each starts where an entry
    starts, and its name ends at the first NUL, as :func:`_entries` reads it."""
    found = _ENTRY.findall(raw)
    sizes = [len(mode) + len(name) + 22 for mode, name, _ in found]
    if sum(sizes) != len(raw):
        return None
    modes = _MODES
    if any(name[:1] == b"." and not _plain(name, modes[mode]) for mode, name, _ in found):
        return None
    entries = [(binsha, modes[mode], name.decode("ascii")) for mode, name, binsha in found]
    keys = [name + b"/" if mode == b"40000" else name for mode, name, _ in found]
    return entries, keys, sizes


def _entries(raw: bytes) -> list:
    """``tree_entries_from_data(raw)``, without GitPython's per-name checks where no name needs
    them: a folder of 10k memories parsed in ~15 ms instead of ~60 (most of it those checks; a
    one-shot write parses each folder it writes into). Each entry that is not a plain name with a
    mode as git writes it goes through GitPython alone, which checks and refuses it as before; a
    tree that does not split into whole entries goes through GitPython whole: the same list, or
    the same ValueError."""
    out = []
    append, find, n, offset = out.append, raw.find, len(raw), 0
    plain, modes = _PLAIN_NAME.match, _MODES
    while offset < n:
        space = find(b" ", offset)
        end = find(b"\0", space + 1) if space >= 0 else -1
        if end < 0 or end + 21 > n:
            return _tree_entries_from_data(raw)
        mode = modes.get(raw[offset:space])
        name = raw[space + 1:end]
        if mode is None or (plain(name) is None and not _plain(name, mode)):
            # GitPython parses and checks this one entry (a non-ASCII name, a space), or
            # refuses it with the error it gives for the whole tree
            out.extend(_tree_entries_from_data(raw[offset:end + 21]))
        else:
            append((raw[end + 1:end + 21], mode, name.decode("ascii")))
        offset = end + 21
    return out


def iter_tree(raw: bytes, id_bytes: int = 20) -> Iterator[tuple[bytes, str, str]]:
    """``(name, mode, object id in hex)`` of each entry of the tree object bytes ``raw``, in order,
    one at a time (a folder of a million files is never held as a dict: a peer's root, read by
    :func:`vault_mem.store.history.root_changes`); as :func:`tree_names` reads them. ValueError
    at the first place the bytes do not split into a whole entry (the ones before it given)."""
    find, at, n = raw.find, 0, len(raw)
    while at < n:
        space = find(b" ", at)
        nul = find(b"\0", space + 1) if space >= 0 else -1
        if nul < 0 or nul + 1 + id_bytes > n:
            raise ValueError("tree bytes do not split into whole entries")
        yield (raw[space + 1:nul], raw[at:space].lstrip(b"0").decode("ascii", "replace"),
               raw[nul + 1:nul + 1 + id_bytes].hex())
        at = nul + 1 + id_bytes


def tree_names(raw: bytes, id_bytes: int = 20) -> dict[bytes, tuple[str, str]]:
    """``{name: (mode, object id in hex)}`` of the tree object bytes ``raw`` whose ids are
    ``id_bytes`` long (20: SHA-1, 32: SHA-256), any name and mode as they were written (a peer's
    tree is read to be judged, never taken: no check refuses it here); a folder's mode as an old
    tool wrote it (``040000``) reads as git's own (``40000``). ValueError when the bytes do not
    split into whole entries. The history's readers' one parser
    (:mod:`vault_mem.store.history`: the count of what a peer's commits change, a commit's
    changes outside the vault's folder, the entries beside a path), through :func:`iter_tree`."""
    return {name: (mode, oid) for name, mode, oid in iter_tree(raw, id_bytes)}


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many leading bytes ``a`` and ``b`` share (64 KB blocks compared in C, then halving)."""
    n, lo = min(len(a), len(b)), 0
    while lo + _BLOCK <= n and a[lo:lo + _BLOCK] == b[lo:lo + _BLOCK]:
        lo += _BLOCK
    hi = min(lo + _BLOCK, n)
    while lo < hi:  # a[:lo] == b[:lo], and they differ before hi
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """How many trailing bytes ``a`` and ``b`` share, at most ``limit``."""
    la, lb, lo = len(a), len(b), 0
    while lo + _BLOCK <= limit and a[la - lo - _BLOCK:la - lo] == b[lb - lo - _BLOCK:lb - lo]:
        lo += _BLOCK
    hi = min(lo + _BLOCK, limit)
    while lo < hi:  # the last lo bytes agree, and they differ within the last hi
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _bytes_at(raw: bytes, positions) -> bytes:
    """The bytes of ``raw`` at each of ``positions`` (each inside it)."""
    return bytes(itemgetter(*positions, 0)(raw))[:-1]  # the extra 0: a tuple even for one position


def _name_bytes(name: str) -> bytes:
    # GitPython decodes names with surrogateescape; this gives back git's exact bytes
    return name.encode("utf-8", "surrogateescape")


ParsedTree.EMPTY = ParsedTree(b"", [], [], [], plain=True)
