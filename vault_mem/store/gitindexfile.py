"""git's index file (version 2 or 3) read once and patched in process for a write's few paths.

Part of :mod:`~vault_mem.store.gitindex`. ``git update-index`` reads, checks and rewrites the
whole index for every write: at 100k memories a 13 MB file, ~58 ms of CPU in a git process
per write, the largest part of a warm write that grows with the vault. A process that writes
more than once (the daemon, an MCP server, an API caller) keeps the index it parsed, keyed by
the file's identity (inode, mtime, size and trailing SHA-1: ``gitindex.index_file_signature``), and makes
the next index from it: the entries are kept as one ``bytes`` each, so a write replaces one or
two of them, joins them again and hashes the result (SHA-1, as git's trailer wants).

It writes what ``git update-index`` would, byte for byte, or nothing (the caller then runs git):

- entries sorted by name (git's order: bytes, shorter first), one per path at stage 0; the
  entry of a file staged from disk carries its ``lstat`` data as git's ``fill_stat_cache_info``
  records it (each field cut to 32 bits), an entry staged as a blob (``--cacheinfo``) none;
- "racy git": an entry whose file's mtime is not older than the index file's is trusted by
  git only until a newer index is written; git checks such entries when it writes one
  (``ce_smudge_racily_clean_entry``) and gives one whose file still has its stat data but
  other bytes the size 0 (git then hashes it again at its next look). The same here, the file's
  bytes hashed as they are: the vault's files have no conversion (:mod:`~vault_mem.store.attributes`
  unsets them), and a converted file elsewhere in a project's repository hashes to another id
  than its blob, so it is given the size 0 too (hashed again by git: never trusted wrongly);
- the cache tree (``TREE``) is kept with every folder above a changed path marked invalid, as
  git's ``cache_tree_invalidate_path`` does; ``REUC`` (resolve-undo, by path) is kept as is;
  the optional offset tables (``EOIE``, ``IEOT``) are dropped (git writes them only when asked
  and reads an index without them);
- anything else is left to git (:data:`None` from :meth:`IndexFile.parse` or
  :meth:`IndexFile.staged`): version 4, a split index (``link``), an untracked cache (``UNTR``),
  fsmonitor data (``FSMN``), a sparse index (``sdir``) or any extension not named here; a path
  in conflict (stages 1-3), with extended flags (skip-worktree, intent-to-add), that is a
  folder in the index or under a file there; a file with an executable bit; an entry of any
  mode but 100644 (git keeps an executable or link entry's mode under ``core.fileMode false``
  or ``core.symlinks false``, where the file on disk is a plain one).

An entry git assumes unchanged (``--assume-unchanged``, ``core.ignoreStat``) is replaced like
any other: ``git update-index --add`` alone would keep it, older text and all, so
:meth:`GitIndex._stage_on <vault_mem.store.gitindex.GitIndex._stage_on>` stages such a path as
its blob first, then from the file, and this writer writes what that makes.

Where git's settings would make git write otherwise, the difference is one git repairs and never
trusts wrongly: under ``core.ignoreStat`` git marks a file it stages assume-unchanged, this
writer does not (git compares its stat data as usual); with ``core.untrackedCache`` or
``core.fsmonitor`` set and no such extension yet, git would add an empty one (its next
``git status`` does). The index file keeps the mode the index had (``core.sharedRepository``).
"""

from __future__ import annotations

import bisect
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field

from vault_mem.store.gitobjects import BLOB_MODE

# -- the layout of an index file (versions 2 and 3: git's ``ondisk_cache_entry``), its one home ----
#: the header: ``DIRC``, the version and the number of entries, 32 bits each; the entries follow
HEADER = 12
#: where each field of an entry starts: ten 32-bit big-endian numbers (the stat data and the mode),
#: the 20-byte object id, 16 bits of flags; then the name (after 16 bits more in an extended entry)
CTIME_S, CTIME_NS, MTIME_S, MTIME_NS, DEV, INO, MODE, UID, GID, SIZE = range(0, 40, 4)
OID = 40
FLAGS = 60
#: the fixed part of an entry, up to its name (an extended entry's 2 more flag bytes not counted)
FIXED = 62
#: flags: an extended entry (16 more bits of flags: skip-worktree, intent-to-add)
EXTENDED = 0x4000
#: flags: the merge stage (1-3: a path in conflict)
STAGE = 0x3000
#: flags: the name's length, this value meaning 4095 bytes or more (the name then ends at its NUL)
NAME_LENGTH = 0xFFF
#: an entry of a symbolic link
LINK_MODE = 0o120000
#: extensions kept as they are
_KEPT = (b"REUC",)
#: extensions dropped: offset tables an edit invalidates, optional to git's reader
_DROPPED = (b"EOIE", b"IEOT")
_MASK = 0xFFFFFFFF


def u32(data: bytes | memoryview, at: int) -> int:
    """The 32-bit big-endian number at ``at`` of ``data`` (an entry's field: ``u32(data, entry + SIZE)``)."""
    return int.from_bytes(data[at:at + 4], "big")


#: how each stat field an entry records is read from an ``lstat`` (git's ``fill_stat_cache_info``)
_FROM_STAT = {MTIME_S: lambda st: int(st.st_mtime), SIZE: lambda st: st.st_size, INO: lambda st: st.st_ino,
              UID: lambda st: st.st_uid, GID: lambda st: st.st_gid}


def stat_matches(data: bytes | memoryview, at: int, st: os.stat_result, *fields: int) -> bool:
    """Whether the file's ``lstat`` ``st`` holds what the entry at ``at`` of ``data`` records for
    each of ``fields`` (``MTIME_S``, ``SIZE``, ``INO``, ``UID``, ``GID``), each cut to 32 bits as git
    records it."""
    return all(_FROM_STAT[f](st) & _MASK == u32(data, at + f) for f in fields)


def read_entry(data: bytes, at: int, end: int) -> tuple[int, bytes, int] | None:
    """The entry that starts at ``at`` of ``data``: (its flags, its name, where the next one
    starts); None when it does not end by ``end`` (cut short). An entry is padded with 1-8 NULs
    to a multiple of 8 bytes. The one reader of git's entry layout."""
    if at + FIXED > end:
        return None
    flags = _u16(data, at + FLAGS)
    name_at = at + FIXED + (2 if flags & EXTENDED else 0)
    length = flags & NAME_LENGTH
    if length == NAME_LENGTH:  # a name of 4095 bytes or more: its length is where its NUL is
        nul = data.find(b"\0", name_at, end)
        if nul < 0:
            return None
        length = nul - name_at
    after = at + ((name_at - at + length + 8) & ~7)
    if after > end:
        return None
    return flags, data[name_at:name_at + length], after


def entries(data: bytes, count: int) -> Iterator[tuple[int, int, bytes]]:
    """(where it starts, its flags, its name) of each of the first ``count`` entries of the index
    ``data`` (or of its head: the entries that end in it)."""
    at = HEADER
    for _ in range(count):
        entry = read_entry(data, at, len(data))
        if entry is None:
            return
        flags, name, after = entry
        yield at, flags, name
        at = after


#: entries per block as parsed (a block grows with the files written into it, and is split in two past 4x)
_BLOCK = 512


@dataclass
class IndexFile:
    """A parsed index: its version, its entries in blocks (each the raw bytes of up to a few
    hundred consecutive entries, never splitting one name's entries, with their names and
    offsets: a write copies only the block it changes), its extensions, and the names of its
    racy entries (see the module docstring)."""

    version: int
    blocks: list[bytes]
    names: list[list[bytes]]
    #: where each entry of a block starts in it
    offsets: list[list[int]]
    #: (signature, raw body) of each extension, in file order
    extensions: list[tuple[bytes, bytes]]
    #: names whose entry's mtime (seconds) was not older than the index file's when read
    racy: set[bytes] = field(default_factory=set)
    firsts: list[bytes] = field(default_factory=list)
    #: per block, the newest mtime (seconds) of its entries, or more: where none can be racy
    newest: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.firsts:
            self.firsts = [n[0] for n in self.names]
        if not self.newest:
            self.newest = [_MASK] * len(self.blocks)  # unknown: looked at

    @classmethod
    def parse(cls, data: bytes, mtime_s: int, *, like: IndexFile | None = None) -> IndexFile | None:
        """The index ``data`` (whose file's mtime is ``mtime_s``), or None when it is not one this
        module writes (see the module docstring). ``like``: an earlier parse of this index file's
        name (another writer replaced it since): each of its blocks found whole where the walk
        reaches its first entry is taken over as it is, not walked again (the entries from there
        are those very bytes, and an entry is read from its own bytes alone), so another
        process's write costs a walk of the blocks it changed."""
        if len(data) < 32 or data[:4] != b"DIRC":
            return None
        version = u32(data, 4)
        if version not in (2, 3) or hashlib.sha1(memoryview(data)[:-20]).digest() != data[-20:]:
            return None
        count, end = u32(data, 8), len(data) - 20
        blocks = _Blocks(data, mtime_s, HEADER)
        reuse = _Reuse(like, data, count) if like is not None else None
        at, seen, last = HEADER, 0, None
        while seen < count:
            entry = read_entry(data, at, end)
            if entry is None:
                return None
            _, name, after = entry
            k = reuse.block_at(name, at, seen) if reuse is not None and name != last else None
            if k is not None and reuse is not None:
                taken = reuse.like.names[k]
                at, seen, last = blocks.take(reuse.like, k, at), seen + len(taken), taken[-1]
                continue
            if blocks.between() and name == last:
                return cls.parse(data, mtime_s)  # a name's entries on both sides of a block taken over
            blocks.add(name, at)
            at, seen, last = after, seen + 1, name
        blocks.cut(at)
        extensions = _extensions(data, at, end)
        if extensions is None:
            return None
        return cls(version, blocks.blocks, blocks.names, blocks.offsets, extensions, blocks.racy,
                   newest=blocks.newest)

    def __len__(self) -> int:
        return sum(len(n) for n in self.names)

    def _find(self, name: bytes) -> tuple[int, int, int]:
        """(block, first position of ``name`` there or where it would go, end of its entries)."""
        k = max(bisect.bisect_right(self.firsts, name) - 1, 0)
        if not self.names:
            return 0, 0, 0
        names = self.names[k]
        i = bisect.bisect_left(names, name)
        j = i
        while j < len(names) and names[j] == name:
            j += 1
        return k, i, j

    def _has(self, name: bytes) -> bool:
        k, i, j = self._find(name)
        return j > i

    def _name_after(self, k: int, j: int) -> bytes | None:
        """The name of the entry after position ``j`` - 1 of block ``k`` (None: the last)."""
        if not self.names:
            return None
        if j < len(self.names[k]):
            return self.names[k][j]
        return self.firsts[k + 1] if k + 1 < len(self.firsts) else None

    def _entry(self, k: int, i: int) -> bytes:
        offs = self.offsets[k]
        return self.blocks[k][offs[i]:offs[i + 1] if i + 1 < len(offs) else len(self.blocks[k])]

    def _splice(self, k: int, i: int, j: int, new: list[tuple[bytes, bytes]]) -> None:
        """Replace entries ``i:j`` of block ``k`` by ``new`` [(name, entry)], in this object's own
        copies of that block (the block lists are copied, never changed in place)."""
        if not self.blocks:
            self.blocks, self.names, self.offsets, self.firsts, self.newest = [b""], [[]], [[]], [b""], [0]
        raw, offs = self.blocks[k], self.offsets[k]
        a = offs[i] if i < len(offs) else len(raw)
        b = offs[j] if j < len(offs) else len(raw)
        data = b"".join(e for _, e in new)
        block = b"".join((raw[:a], data, raw[b:]))
        names = self.names[k][:i] + [n for n, _ in new] + self.names[k][j:]
        shift = len(data) - (b - a)
        starts, at = [], a
        for _, e in new:
            starts.append(at)
            at += len(e)
        offsets = offs[:i] + starts + [o + shift for o in offs[j:]]
        newest = max([self.newest[k], *(u32(e, MTIME_S) for _, e in new)])
        if not names:
            del self.blocks[k], self.names[k], self.offsets[k], self.firsts[k], self.newest[k]
            return
        if len(names) > 4 * _BLOCK and names[len(names) // 2] != names[len(names) // 2 - 1]:
            half = len(names) // 2
            cut = offsets[half]
            self.blocks[k:k + 1] = [block[:cut], block[cut:]]
            self.names[k:k + 1] = [names[:half], names[half:]]
            self.offsets[k:k + 1] = [offsets[:half], [o - cut for o in offsets[half:]]]
            self.firsts[k:k + 1] = [names[0], names[half]]
            self.newest[k:k + 1] = [newest, newest]
            return
        self.blocks[k], self.names[k], self.offsets[k], self.firsts[k] = block, names, offsets, names[0]
        self.newest[k] = newest

    def staged(self, changes: dict[str, tuple[str | None, os.stat_result | None]], root: bytes,
               index_mtime_s: int) -> IndexFile | None:
        """A new index: this one with ``changes`` ({top-level path: (blob id, the file's
        ``lstat`` when staged from disk, else None); (None, None): removed}) staged, the racy
        entries of this index (its file's mtime ``index_mtime_s``) smudged; None: leave it to
        git. ``root``: the work tree, for the ``lstat`` of racy entries. This one is unchanged."""
        new = IndexFile(self.version, list(self.blocks), list(self.names), list(self.offsets),
                        self.extensions, set(), list(self.firsts), list(self.newest))
        return new if new.stage(changes, root, index_mtime_s, racy=self.racy) else None

    def stage(self, changes: dict[str, tuple[str | None, os.stat_result | None]], root: bytes,
              index_mtime_s: int, *, racy: set[bytes]) -> bool:
        """:meth:`staged`'s work on this copy (the one it just made, sharing the blocks it leaves
        as they are): ``racy``, the racy entries of the index it was copied from. False: leave it
        to git (this copy is then unusable)."""
        touched: set[bytes] = set()
        for path, (oid, st) in changes.items():
            name = path.encode("utf-8", "surrogateescape")
            if not name or len(name) >= NAME_LENGTH or b"\0" in name:
                return False
            k, i, j = self._find(name)
            if j - i > 1 or (j > i and (_u16(self._entry(k, i), FLAGS) & (EXTENDED | STAGE))):
                return False  # in conflict, or an extended entry (skip-worktree, intent-to-add)
            if j > i and u32(self._entry(k, i), MODE) != BLOB_MODE:
                return False  # executable, a link, a submodule: git keeps or takes the mode by its settings
            after = self._name_after(*self._find(name + b"/")[:2])
            if after is not None and after.startswith(name + b"/"):
                return False  # a folder in the index (its entries need not follow the name's place)
            if any(self._has(name[:at]) for at in range(len(name)) if name[at:at + 1] == b"/"):
                return False  # under a file in the index
            if oid is None:
                if j > i:
                    self._splice(k, i, j, [])
            else:
                if st is not None and (not stat.S_ISREG(st.st_mode) or st.st_mode & 0o111):
                    return False  # an executable file: its mode depends on core.fileMode
                self._splice(k, i, j, [(name, _entry(name, oid, st))])
            touched.add(name)
        for name in racy:
            if name in touched:
                continue
            k, i, j = self._find(name)
            if j == i:
                continue
            e = self._entry(k, i)
            if u32(e, MTIME_S) < index_mtime_s:
                continue
            self.racy.add(name)
            if _changed_under_same_stat(e, root + b"/" + name):
                self._splice(k, i, i + 1, [(name, e[:SIZE] + bytes(4) + e[SIZE + 4:])])  # the size 0: hashed again
        self.racy |= touched
        self.extensions = [(sig, _invalidated(body, touched) if sig == b"TREE" else body)
                          for sig, body in self.extensions]
        return True

    def after_written(self, mtime_s: int) -> None:
        """Keep as racy only the entries not older than the written file's mtime ``mtime_s``."""
        keep = set()
        for name in self.racy:
            k, i, j = self._find(name)
            if j > i and u32(self._entry(k, i), MTIME_S) >= mtime_s:
                keep.add(name)
        self.racy = keep

    def pieces(self) -> list[bytes]:
        """The index file but its trailing SHA-1, in pieces: header, blocks, extensions."""
        head = b"DIRC" + self.version.to_bytes(4, "big") + len(self).to_bytes(4, "big")
        return [head, *self.blocks, *(sig + len(ext).to_bytes(4, "big") + ext for sig, ext in self.extensions)]

    def write(self, fd: int) -> None:
        """Write the index file to ``fd``: its pieces, then the SHA-1 of all of them (no copy of
        the whole file is made)."""
        sha = hashlib.sha1()
        for piece in self.pieces():
            sha.update(piece)
            _write_all(fd, piece)
        _write_all(fd, sha.digest())

    def to_bytes(self) -> bytes:
        """The index file: header, entries, extensions, the SHA-1 of all of it."""
        body = b"".join(self.pieces())
        return body + hashlib.sha1(body).digest()


class _Blocks:
    """The blocks of an index being parsed (:meth:`IndexFile.parse`): its entries walked one by
    one, a block cut after :data:`_BLOCK` of them (never between two entries of one name), or
    whole blocks taken over from an earlier parse; with the racy entries' names."""

    def __init__(self, data: bytes, mtime_s: int, at: int) -> None:
        self.data, self.mtime_s = data, mtime_s
        self.blocks: list[bytes] = []
        self.names: list[list[bytes]] = []
        self.offsets: list[list[int]] = []
        self.newest: list[int] = []
        self.racy: set[bytes] = set()
        self._start(at)

    def _start(self, at: int) -> None:
        self.block_names: list[bytes] = []
        self.block_offsets: list[int] = []
        self.block_at, self.block_newest = at, 0

    def between(self) -> bool:
        """Whether no entry was walked since the last block ended (or none yet)."""
        return not self.block_names

    def cut(self, at: int) -> None:
        """End the block being walked (if it holds an entry) at ``at``; the next starts there."""
        if self.block_names:
            self.blocks.append(self.data[self.block_at:at])
            self.names.append(self.block_names)
            self.offsets.append(self.block_offsets)
            self.newest.append(self.block_newest)
        self._start(at)

    def add(self, name: bytes, at: int) -> None:
        """The entry ``name`` at ``at``, walked."""
        if len(self.block_names) >= _BLOCK and name != self.block_names[-1]:
            self.cut(at)
        self.block_names.append(name)
        self.block_offsets.append(at - self.block_at)
        mtime = u32(self.data, at + MTIME_S)
        self.block_newest = max(self.block_newest, mtime)
        if mtime >= self.mtime_s:
            self.racy.add(name)

    def take(self, like: IndexFile, k: int, at: int) -> int:
        """Block ``k`` of ``like``, found whole at ``at``, taken over as it is; returns where it ends."""
        self.cut(at)
        block = like.blocks[k]
        self.blocks.append(block)
        self.names.append(like.names[k])
        self.offsets.append(like.offsets[k])
        self.newest.append(like.newest[k])
        if like.newest[k] >= self.mtime_s:
            self.racy.update(n for i, n in enumerate(like.names[k])
                             if u32(block, like.offsets[k][i] + MTIME_S) >= self.mtime_s)
        self._start(at + len(block))
        return at + len(block)


class _Reuse:
    """Which blocks of an earlier parse ``like`` an index ``data`` of ``count`` entries holds
    whole (:meth:`IndexFile.parse`)."""

    def __init__(self, like: IndexFile, data: bytes, count: int) -> None:
        self.like, self.data, self.count = like, data, count
        self.known = {first: k for k, first in enumerate(like.firsts)}

    def block_at(self, name: bytes, at: int, seen: int) -> int | None:
        """The block of ``like`` whose first entry, ``name``, starts at ``at`` (the entry after
        ``seen`` others) and whose bytes all stand there; None: walk on."""
        k = self.known.get(name)
        if k is None:
            return None
        block = self.like.blocks[k]
        if seen + len(self.like.names[k]) <= self.count and self.data[at:at + len(block)] == block:
            return k
        return None


def _extensions(data: bytes, at: int, end: int) -> list[tuple[bytes, bytes]] | None:
    """The extensions from ``at`` to ``end`` (the trailing SHA-1), those dropped left out: (signature,
    body) in file order; None when one is left to git or they do not end at ``end``."""
    extensions: list[tuple[bytes, bytes]] = []
    while at + 8 <= end:
        sig, size = data[at:at + 4], u32(data, at + 4)
        if at + 8 + size > end:
            return None
        if sig not in (b"TREE", *_KEPT, *_DROPPED):
            return None  # UNTR, FSMN, link, sdir, anything newer: git's to write
        if sig not in _DROPPED:
            extensions.append((sig, data[at + 8:at + 8 + size]))
        at += 8 + size
    return extensions if at == end else None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _u16(data: bytes, at: int) -> int:
    return int.from_bytes(data[at:at + 2], "big")


def _entry(name: bytes, oid: str, st: os.stat_result | None) -> bytes:
    """One stage-0 entry, version 2 layout: ``st`` as git records it (None: no stat data, as
    ``--cacheinfo`` stages a blob), mode 100644, no extended flags."""
    if st is None:
        stat_part = bytes(MODE) + BLOB_MODE.to_bytes(4, "big") + bytes(OID - MODE - 4)
    else:
        fields = (int(st.st_ctime), st.st_ctime_ns % 1_000_000_000, int(st.st_mtime), st.st_mtime_ns % 1_000_000_000,
                  st.st_dev, st.st_ino, BLOB_MODE, st.st_uid, st.st_gid, st.st_size)
        stat_part = b"".join((v & _MASK).to_bytes(4, "big") for v in fields)
    head = stat_part + bytes.fromhex(oid) + len(name).to_bytes(2, "big")
    size = (FIXED + len(name) + 8) & ~7
    return head + name + bytes(size - FIXED - len(name))


def _changed_under_same_stat(entry: bytes, path: bytes) -> bool:
    """Whether the file at ``path`` has the mtime, size and inode ``entry`` records (git could
    trust the entry by its stat data; git compares more fields, so this says yes at least as
    often) yet other bytes than its object id: git's racily clean entry. A file or a link
    (its target is its bytes) of the entry's kind; a missing file, a folder or another kind
    says no (git sees those by their stat data)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False  # gone (deleted, skip-worktree outside a sparse checkout): git smudges nothing
    link = u32(entry, MODE) == LINK_MODE
    if not ((stat.S_ISLNK(st.st_mode) if link else stat.S_ISREG(st.st_mode))
            and stat_matches(entry, 0, st, MTIME_S, SIZE, INO)):
        return False
    try:
        if link:
            data = os.readlink(path)
        else:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with os.fdopen(fd, "rb") as fh:
                data = fh.read()
    except OSError:
        return True  # unreadable: git would find it changed too; hashed again
    return hashlib.sha1(b"blob %d\0" % len(data) + data).digest() != entry[OID:OID + 20]


def _invalidated(tree: bytes, names: set[bytes]) -> bytes:
    """The cache tree extension ``tree`` with every folder holding one of ``names`` (the root
    included) marked invalid (entry count -1, no object id), as git's ``cache_tree_invalidate_path``
    marks them; the rest as it was."""
    nodes = []  # (path of the folder, entry count, subtrees, oid or b"")
    at = 0
    stack: list[tuple[bytes, int]] = []  # (folder path, subtrees still to read)
    while at < len(tree):
        nul = tree.index(b"\0", at)
        comp = tree[at:nul]
        line_end = tree.index(b"\n", nul)
        count_s, subs_s = tree[nul + 1:line_end].split(b" ")
        count, subs = int(count_s), int(subs_s)
        at = line_end + 1
        oid = b""
        if count >= 0:
            oid, at = tree[at:at + 20], at + 20
        while stack and stack[-1][1] == 0:
            stack.pop()
        if stack:
            parent, left = stack[-1]
            stack[-1] = (parent, left - 1)
            path = parent + comp + b"/"
        else:
            path = b""
        nodes.append([comp, count, subs, oid, path])
        stack.append((path, subs))
    out = []
    for comp, count, subs, oid, path in nodes:
        if count >= 0 and any(n.startswith(path) for n in names):
            count, oid = -1, b""
        out.append(comp + b"\0" + str(count).encode() + b" " + str(subs).encode() + b"\n" + oid)
    return b"".join(out)
