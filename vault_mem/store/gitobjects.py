"""Git objects for the git store: blobs, trees and commits read and written in process.

Part of :class:`~vault_mem.store.git.GitRepo` (which composes :class:`GitObjects` with the refs
and the index parts); see :mod:`vault_mem.store.git` for the design.

- Objects are read through one persistent ``git cat-file --batch`` process
  (:mod:`vault_mem.store.catfile`), which also finds objects that another git moved into a new
  pack (``git gc``), except a loose one, read in process (vault-mem's own last commit: the next
  one-shot write starts no ``cat-file``); writes are stored in process as loose objects (as gitdb stored them: a temp
  file in the objects folder, renamed into place, read-only). Neither imports GitPython: its
  import alone cost a one-shot write ~170 ms CPU (issue 29). GitPython is imported only where a
  commit is read in full (:meth:`GitObjects.commit_info`, the message, a replay).
- Trees are parsed and serialised as GitPython does (:mod:`vault_mem.store.tree`) and kept
  parsed in a cache keyed by object id (trees are content-addressed, so an entry never goes
  stale). An edit rewrites only the trees on the changed paths, and puts one entry into a
  big flat tree by splicing that entry's serialised bytes into the tree's bytes: re-serialising a
  folder of 50k memories through GitPython costs ~0.5 s, the splice well under a millisecond.
  A big tree another git wrote is parsed as a difference from the one last held in its folder;
  only a process's first write pays a full parse.
- Commits are written as the bytes GitPython's ``Commit.create_from_tree`` gives, and stored like
  any object; a write reads only a commit's tree line (:meth:`GitObjects.commit_tree`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import errno
import hashlib
import os
import re
import stat
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from vault_mem.errors import GitError, HistoryDamagedError
from vault_mem.platform import settle  # a file's stat stamp
from vault_mem.store import provenance
from vault_mem.store.catfile import CatFile, CatFileError, stream
from vault_mem.store.gitdamage import damaged_history_message
from vault_mem.store.objectid import blob_id
from vault_mem.store.tree import ParsedTree

if TYPE_CHECKING:
    import git
    from git.objects import Commit

    from vault_mem.store.treeshapes import TreeShapes

ZERO_OID = "0" * 40
BLOB_MODE = 0o100644
TREE_MODE = 0o040000
_GITLINK_MODE = 0o160000

# Parsed trees kept per process, bounded by their total entries: a 50k folder is one big tree
# and each write makes a new version of it (versions share entry objects; ~3 MB each at 50k).
_TREE_CACHE_ENTRIES = 200_000
# A tree someone else wrote is parsed as a difference from the last one held in its folder
# only when that one is this big (below it, GitPython parses a whole tree in a few ms).
_REBASE_MIN_ENTRIES = 2000
# Loose objects above this size are stored uncompressed: a big tree is mostly random object ids,
# so deflating it costs ~25-40 ms per write and saves little (git gc packs it later anyway).
_DEFLATE_LIMIT = 65536
#: asked about this many paths of one folder at once, :meth:`GitObjects.blobs_at` parses the
#: folder's tree once: each ``<tree>:<path>`` lookup makes git inflate and search the whole
#: folder (a few ms at 50k entries), so a lookup per file of a fresh clone's first index took
#: minutes at 100k memories
_PARSE_FOR = 32
#: from this many objects, :meth:`GitObjects.read_objects` reads them through a process of their own
#: (fewer: a round trip each to the running one costs less than starting a git)
STREAM_FROM = 32
#: What the object reads and writes raise for a missing or unreadable object or a failed git
#: command (a :class:`~vault_mem.store.catfile.CatFileError` is an ``OSError``).
GIT_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError)
#: loose objects are stored read-only, as git and gitdb store them
_OBJECT_MODE = 0o444


def gitpython_errors() -> tuple[type[BaseException], ...]:
    """:data:`GIT_ERRORS` with what GitPython and gitdb raise (imported: for the paths that
    read a commit through GitPython). Its parsers index into an object's lines, so an object a
    corrupt pack entry garbled can fail there too (``IndexError``): a damaged object, not a bug."""
    from git import exc as gitexc
    from gitdb.exc import ODBError

    return (gitexc.GitError, ODBError, LookupError, *GIT_ERRORS)


def _clean(value: str) -> str:
    # git drops these when it writes an identity; GitPython refuses them outright
    return "".join(c for c in value if c not in "<>\n\r\x00").strip()


def _tz_text(west: int) -> str:
    """GitPython's offset (seconds west of UTC) as git writes it: ``+0530``."""
    east = -west
    sign = "+" if east >= 0 else "-"
    return f"{sign}{abs(east) // 3600:02d}{abs(east) % 3600 // 60:02d}"


def _west_of_utc(ts: int) -> int:
    """The local UTC offset at ``ts`` in GitPython's convention (seconds west of UTC)."""
    return -time.localtime(ts).tm_gmtoff


@dataclass(frozen=True)
class Identity:
    """A commit author/committer."""

    name: str
    email: str

    def actor(self) -> Actor:
        """This identity as git writes it, with the characters git drops removed."""
        return Actor(_clean(self.name) or "unknown", _clean(self.email))

    def signature(self, when: float | None = None) -> bytes:
        """The ``name <email> seconds tz`` line git writes for an author or committer."""
        ts = int(when if when is not None else time.time())
        actor = self.actor()
        return f"{actor.name} <{actor.email}> {ts} {_tz_text(_west_of_utc(ts))}".encode()


class Actor(NamedTuple):
    """A name and an email as a commit holds them (GitPython's ``Actor``'s two fields)."""

    name: str
    email: str


def _signed(who: Identity, ts: int, west: int) -> str:
    """``name <email> seconds +hhmm``, as a commit's author and committer lines hold it."""
    actor = who.actor()
    return f"{actor.name} <{actor.email}> {ts} {_tz_text(west)}"


@dataclass(frozen=True)
class CommitInfo:
    """What a commit object says: its tree, parents, author's name and subject (git's ``%s``)."""

    tree: str
    parents: tuple[str, ...]
    author: str
    subject: str




def commit_time(digits: bytes | str) -> int | None:
    """A commit's time as its author or committer line holds it (seconds since the epoch), or
    None when the digits are no number or a time no calendar date holds. A peer writes those
    digits: git stores them as given (year 10000, 2**64 - 1: no git command and no remote
    without ``receive.fsckObjects`` refuses them), and a memory or an INDEX.md dated by one
    failed every reconcile of every clone that synced it. The one reader of a commit's time
    that anything dates by."""
    text = digits.decode("ascii", "replace") if isinstance(digits, bytes) else digits
    if not (text.isascii() and text.isdigit()):
        return None
    seconds = int(text)
    try:
        dt.date.fromtimestamp(seconds)
    except (ValueError, OverflowError, OSError):
        return None
    return seconds


def _replace_base() -> str:
    """Where git's ``git replace`` refs are (``$GIT_REPLACE_REF_BASE``, else ``refs/replace/``)."""
    base = os.environ.get("GIT_REPLACE_REF_BASE") or "refs/replace/"
    return base if base.endswith("/") else base + "/"


class GitObjects:
    """The object part of :class:`~vault_mem.store.git.GitRepo`: reads and writes objects, keeps
    parsed trees and commits' trees in caches shared by the daemon's threads (under ``_lock``)."""

    repo: git.Repo
    objects: Path
    common_dir: Path
    toplevel: Path
    #: the shapes of the big folder trees this vault's writes made (set by the vault's
    #: Workspace): a tree recorded there is read without being parsed (store/treeshapes.py)
    tree_shapes: TreeShapes | None = None

    def _init_objects(self) -> None:
        """Set up the cat-file processes (started at the first read) and the caches."""
        self._cat = CatFile(self.toplevel)
        # one lock: cat-file's pipe protocol and the caches are shared by the daemon's threads
        self._lock = threading.RLock()
        self._trees: OrderedDict[str, ParsedTree] = OrderedDict()
        self._tree_entries = 0
        self._tree_at: dict[str, str] = {}  # folder -> the last big tree held there
        self._commit_trees: OrderedDict[str, str] = OrderedDict()
        self._own_tree_at: dict[str, str] = {}  # folder -> the tree this process's last edit there made
        #: per thread: {oid: (kind, data)} of the objects the commit being made needs
        self._local = threading.local()
        #: {commit this process made: (its parent, the paths it changed)}: :meth:`own_change`
        self._own_changes: OrderedDict[str, tuple[str, tuple[tuple[str, str | None, str | None], ...]]] = OrderedDict()

    def _clear_objects(self) -> None:
        """Drop the caches (the caller holds ``_lock``)."""
        self._trees.clear()
        self._tree_entries = 0
        self._tree_at.clear()
        self._own_tree_at.clear()
        self._commit_trees.clear()

    def read_object(self, oid: str) -> tuple[str, bytes]:
        """(type, content) of an object: a loose one read here (:meth:`_read_loose`), any other
        (packed, in an alternate, unreadable) from ``git cat-file --batch``."""
        found = self._read_loose(oid)
        if found is not None:
            return found
        with self._lock:
            try:
                kind, data = self._read(oid)
            except GIT_ERRORS:
                # a cat-file process that died or fell out of step: restart it and ask once more
                self._cat.close()
                try:
                    kind, data = self._read(oid)
                except GIT_ERRORS as exc:
                    self._cat.close()
                    raise HistoryDamagedError(damaged_history_message(
                        self.toplevel, f"cannot read git object {oid} ({exc})")) from exc
        return kind, data

    def read_objects(self, oids: list[str]) -> Iterator[tuple[str, bytes]]:
        """(type, content) of each of ``oids`` in turn, one held at a time. Past
        :data:`STREAM_FROM` objects through a ``git cat-file --batch`` of their own that reads
        ahead (:func:`~vault_mem.store.catfile.stream`: a sync of 19,000 files spent a quarter of
        its time waiting on one round trip per file); fewer ask the running one. Past an object
        that reader could not give, the rest are read as :meth:`read_object` reads them (a
        missing or unreadable one: :class:`HistoryDamagedError`)."""
        if len(oids) < STREAM_FROM:
            for oid in oids:
                yield self.read_object(oid)
            return
        contents = stream(self.toplevel, oids)
        try:
            for i, oid in enumerate(oids):
                try:
                    found = next(contents)
                except (CatFileError, StopIteration):
                    found = None
                if found is None:
                    # a pack that a `git repack -ad` removed under the reader, or a missing
                    # object: the rest asked one at a time, as read_object asks them (a new
                    # reader once, then HistoryDamagedError)
                    contents.close()
                    for rest in oids[i:]:
                        yield self.read_object(rest)
                    return
                yield found
        finally:
            contents.close()

    def _read_loose(self, oid: str) -> tuple[str, bytes] | None:
        """(type, content) of ``oid`` when it is a loose object of this repository, read as git
        reads one: inflated (no further than the size its header names) and its header checked.
        vault-mem's own last commit is loose (its commit, trees and blobs: :meth:`write_object`),
        so the next write, in a new process, reads HEAD's commit and trees without starting a
        ``git cat-file`` (issue 29: a git process per one-shot write). None for anything else:
        packed, in an alternate or a fetch's quarantine, gone, damaged (git then answers, or
        names the damage, as before). A whole stream that holds less than its header says is
        :class:`HistoryDamagedError` here: git's reply to it would hang its reader."""
        if _HEX40_TEXT.fullmatch(oid) is None:
            return None
        try:
            with open(self._loose_path(oid), "rb") as fh:
                raw = fh.read()
            inflate = zlib.decompressobj()
            head = inflate.decompress(raw, 64)
            kind, space, rest = head.partition(b" ")
            size, nul, data = rest.partition(b"\0")
            if not space or not nul or kind not in _KINDS or _SIZE.fullmatch(size) is None:
                return None  # git: "unable to parse header" (a size "05", " 5", "+5", "5 ")
            want = int(size)
            if want > _MAX_SIZE:  # git dies ("size_t overflow") or prints a size no read can take
                return None
            if self._replaced(oid):
                return None  # `git replace`: git reads the replacement
            data += inflate.decompress(inflate.unconsumed_tail, max(want - len(data), 0) + 1)
        except (OSError, zlib.error, ValueError, OverflowError, MemoryError):
            return None
        if inflate.eof and len(data) < want:
            # a whole stream shorter than its header: `git cat-file --batch` streams a blob so,
            # announcing the header's size and sending less, and a reader waits for the rest
            # for ever (git fsck: "corrupt loose object"); nothing git could answer
            raise HistoryDamagedError(damaged_history_message(
                self.toplevel, f"git object {oid} holds {len(data)} bytes, its header says {want}"))
        if len(data) != want or not inflate.eof or inflate.unconsumed_tail or inflate.unused_data:
            return None  # cut short, or more than its header says: git's words for it
        return kind.decode(), data

    def loose_commit_parents(self, oid: str) -> tuple[str, ...] | None:
        """The parents of commit ``oid`` read here when it is a loose commit of this repository
        (vault-mem's own last commits are: :meth:`write_object`), so that the question a command
        asks after each write (is the commit the sidecar reflects HEAD's parent?) starts no git;
        None when git must answer: not loose (packed, gone, damaged), not a commit, replaced, or
        a repository whose history git reads with other parents (``shallow``, ``info/grafts``).
        A name that is no object id (``HEAD``, a ref) is git's at once, before any stat."""
        if _HEX40_TEXT.fullmatch(oid) is None:
            return None
        if self._grafted():
            return None
        try:
            found = self._read_loose(oid)
        except HistoryDamagedError:
            return None  # git names the damage
        if found is None or found[0] != "commit":
            return None
        head = found[1].split(b"\n\n", 1)[0].split(b"\n")
        if not (head[0].startswith(b"tree ") and _HEX40.fullmatch(head[0][5:])):
            return None
        parents = []
        for line in head[1:]:
            if not line.startswith(b"parent "):
                break
            if _HEX40.fullmatch(line[7:]) is None:
                return None
            parents.append(line[7:].decode())
        return tuple(parents)

    def _grafted(self) -> bool:
        """Whether git reads this repository's history with other parents than its commits name
        (``shallow``, ``info/grafts``): git then answers what a commit's parents are."""
        return (os.path.lexists(os.path.join(self.common_dir, "shallow"))
                or os.path.lexists(os.path.join(self.common_dir, "info", "grafts")))

    def _replaced(self, oid: str) -> bool:
        """Whether a ``git replace`` ref may name ``oid`` (git's reads then give the replacement,
        which the in-process reader leaves to git): a loose ref under ``refs/replace/`` (or
        ``$GIT_REPLACE_REF_BASE``), a line of ``packed-refs`` (parsed again when the file
        changes), or a ref store this reader cannot read (reftable). One ``stat`` per read when
        the repository has none; a repository git is told to read without them
        (``GIT_NO_REPLACE_OBJECTS``, ``core.useReplaceRefs``) is still left to git: git
        answers right either way."""
        base = _replace_base()
        if os.path.lexists(os.path.join(self.common_dir, base, oid)):
            return True
        packed = self._packed_replaced(base)
        return packed is None or oid in packed[0]

    def replace_refs(self) -> tuple | None:
        """The ``git replace`` refs git may read here, as a value that moves whenever one is
        made, moved or removed; None when there is none (a ``scandir`` and a ``stat`` then).
        git reads HEAD's tree, and any object, through them (``git status``, ``git diff-index
        HEAD``): what is kept from such answers is kept under this value too, as the objects
        :meth:`_replaced` names are left to git. The loose refs by name and content (each 41
        bytes), the lines of ``packed-refs`` that name one; a ref store this reader cannot read
        (reftable) by its table list, which any ref's update moves."""
        base = _replace_base()
        loose = []
        try:
            with os.scandir(os.path.join(self.common_dir, base)) as found:
                for entry in found:
                    try:
                        with open(entry.path, "rb") as fh:
                            loose.append((entry.name, fh.read(256)))
                    except IsADirectoryError:  # no name git reads as a replaced object
                        continue
        except (FileNotFoundError, NotADirectoryError):
            pass
        packed = self._packed_replaced(base)
        if packed is None:
            try:
                with open(os.path.join(self.common_dir, "reftable", "tables.list"), "rb") as fh:
                    packed = (frozenset(), ("reftable", fh.read()))
            except OSError:
                packed = (frozenset(), ("reftable", None))
        if not loose and not packed[1]:
            return None
        return tuple(sorted(loose)), packed[1]

    def _packed_replaced(self, base: str) -> tuple[frozenset[str], tuple[bytes, ...]] | None:
        """The objects ``packed-refs`` names replaced under ``base``, and its lines that name
        them (parsed again when the file changes); empty without ``packed-refs``; None where
        the refs are in a store this reader cannot read (reftable)."""
        try:
            st = os.stat(os.path.join(self.common_dir, "packed-refs"))
        except FileNotFoundError:
            return None if os.path.isdir(os.path.join(self.common_dir, "reftable")) else (frozenset(), ())
        key = (base, settle.stamp(st))
        known = getattr(self, "_packed_replace", None)
        if known is None or known[0] != key:
            with open(os.path.join(self.common_dir, "packed-refs"), "rb") as fh:
                text = fh.read()
            name = b" " + os.fsencode(base)
            lines = tuple(line for line in text.splitlines() if name in line)
            names = frozenset(line[line.index(name) + len(name):].decode("ascii", "replace") for line in lines)
            known = self._packed_replace = (key, (names, lines))
        return known[1]

    def _read(self, oid: str) -> tuple[str, bytes]:
        found = self._cat.read(oid)
        if found is None:
            raise CatFileError(f"object {oid} is missing")
        return found

    def _loose_path(self, hexsha: str) -> Path:
        return self.objects / hexsha[:2] / hexsha[2:]

    def write_object(self, kind: str, data: bytes) -> str:
        """Store an object in the object database (an existing one is left alone); return its id.

        Stored as a loose object, as gitdb stored it (:meth:`_store_loose`). The id is computed
        first, so an object that exists costs one stat; the deflate level is ours so a 2 MB tree
        is not compressed on every write (``_DEFLATE_LIMIT``)."""
        header = b"%s %d\0" % (kind.encode("ascii"), len(data))
        sha = hashlib.sha1(header)
        sha.update(data)
        hexsha = sha.hexdigest()
        record = getattr(self._local, "written", None)
        if record is not None:
            record[hexsha] = (kind, data)
        loose = self._loose_path(hexsha)
        if os.path.exists(loose):
            try:  # freshen it, as git does: `git prune` spares loose objects younger than its expiry
                os.utime(loose)
                return hexsha
            except FileNotFoundError:
                pass  # pruned this instant: store it again
        if len(data) < _DEFLATE_LIMIT:
            deflate = zlib.compressobj(1)
            raw: bytes | list = deflate.compress(header) + deflate.compress(data) + deflate.flush()
        else:
            raw = _stored(header, data)
        for attempt in range(5):
            try:
                self._store_loose(loose, raw)
                return hexsha
            except FileNotFoundError as exc:
                # `git gc` (prune-packed) removed the empty fan-out folder between the mkdir and
                # the rename: drop the temp file and store again, as git itself does
                if exc.filename and exc.filename != exc.filename2:
                    Path(exc.filename).unlink(missing_ok=True)
                if attempt == 4:
                    raise GitError(f"cannot write a git object into {self.objects} ({exc}); "
                                   "is something deleting it? retry") from exc
            except GIT_ERRORS as exc:
                raise GitError(f"cannot write a git object into {self.objects} ({exc}); "
                               "check that the folder is writable and the disk is not full") from exc
        return hexsha

    def _store_loose(self, path: Path, raw: bytes | list) -> None:
        """Store the deflated object ``raw`` at ``path``, as gitdb's ``LooseObjectDB.store``
        did: written to a temp file in the objects folder, renamed into place (an object there
        already is kept and the temp file removed), made read-only. A ``FileNotFoundError`` of
        the rename names the temp file first (``filename``) and the object second."""
        fd, tmp = _temp_file(self.objects)
        try:
            with open(fd, "wb") as fh:
                if isinstance(raw, list):
                    fh.writelines(raw)
                else:
                    fh.write(raw)
            try:
                os.mkdir(path.parent)
            except FileExistsError:
                # there, or there an instant ago: `git prune` removes an empty fan-out folder, and
                # os.makedirs(exist_ok=True) raised FileExistsError when it went between its mkdir
                # and its check; gone, the rename below fails FileNotFoundError and is retried
                pass
            if os.path.isfile(path):
                os.unlink(tmp)
            else:
                os.rename(tmp, path)
        except BaseException:
            # a full disk (the fan-out folder cannot be made), a gc's removal of that folder (the
            # caller stores again): no temp file is left behind
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        os.chmod(path, _OBJECT_MODE)

    def _tree(self, oid: str | None, at: str | None = None) -> ParsedTree:
        """The parsed tree ``oid``; ``at`` (its folder) lets a tree someone else wrote be parsed
        as a difference from the last one this process held there (``ParsedTree.rebase``)."""
        if oid is None:
            return ParsedTree.EMPTY
        with self._lock:
            cached = self._trees.get(oid)
            if cached is not None:
                self._trees.move_to_end(oid)
                return cached
            kind, data = self.read_object(oid)
            if kind != "tree":
                raise GitError(f"object {oid} is a {kind}, not a tree")
            near = self._trees.get(self._tree_at.get(at, "")) if at is not None else None
            try:
                tree = ((near.rebase(data) if near is not None else None) or self._shaped(at, oid, data)
                        or ParsedTree.parse(data))
            except ValueError as exc:
                raise GitError(f"tree {oid} has an entry vault-mem will not use ({exc}); "
                               "rename that file with git and retry") from exc
            self._remember_tree(oid, tree, at)
            return tree

    def _shaped(self, at: str | None, oid: str, data: bytes) -> ParsedTree | None:
        """The tree ``oid`` (bytes ``data``) at folder ``at`` read with the shape a write
        recorded for it, unparsed; None without one."""
        if not at or self.tree_shapes is None:
            return None
        sizes = self.tree_shapes.sizes(at, oid)
        return ParsedTree.from_sizes(data, sizes) if sizes else None

    def _remember_tree(self, oid: str, tree: ParsedTree, at: str | None = None) -> None:
        with self._lock:
            if at is not None and len(tree) >= _REBASE_MIN_ENTRIES:
                self._tree_at[at] = oid
            if oid in self._trees:
                return
            self._trees[oid] = tree
            self._tree_entries += len(tree)
            while self._tree_entries > _TREE_CACHE_ENTRIES and len(self._trees) > 1:
                _, old = self._trees.popitem(last=False)
                self._tree_entries -= len(old)

    def _remember_commit(self, commit: str, tree: str) -> None:
        with self._lock:
            self._commit_trees[commit] = tree
            if len(self._commit_trees) > 4096:
                self._commit_trees.popitem(last=False)

    def empty_tree(self) -> str:
        """The id of the empty tree (written to the object store)."""
        return self._store_tree(ParsedTree.EMPTY)

    def _store_tree(self, tree: ParsedTree) -> str:
        oid = self.write_object("tree", tree.raw)
        self._remember_tree(oid, tree)
        return oid

    def _commit(self, oid: str) -> Commit:
        """The commit ``oid`` as a GitPython object, read in full (or GitError)."""
        from git.objects import Commit, Object

        with self._lock:
            for attempt in range(2):
                try:
                    obj = Object.new_from_sha(self.repo, bytes.fromhex(oid))
                    if isinstance(obj, Commit):
                        obj.tree  # noqa: B018 - read and parse it now, under the lock
                        return obj
                    kind = obj.type
                    break
                except gitpython_errors() as exc:
                    # a cat-file process that read a pack `git repack -ad` removed meanwhile:
                    # restart it (it finds the new pack) and ask once more
                    self.repo.git.clear_cache()
                    if attempt:
                        raise GitError(f"cannot read commit {oid} ({exc}); check the id with `git show`") from exc
        raise GitError(f"{oid} is a {kind}, not a commit")

    def commit_tree(self, commit: str | None) -> str | None:
        """The tree id of ``commit`` (None for None): the commit's first line, read here (a
        write asks it of HEAD; no GitPython)."""
        if commit is None:
            return None
        tree = self._commit_trees.get(commit)
        if tree is None:
            kind, data = self.read_object(commit)
            if kind != "commit":
                raise GitError(f"{commit} is a {kind}, not a commit")
            line = data[:46]
            if not (line.startswith(b"tree ") and line.endswith(b"\n") and _HEX40.fullmatch(line[5:45])):
                raise GitError(f"cannot read commit {commit} (no tree line); check the id with `git show`")
            tree = line[5:45].decode()
            self._remember_commit(commit, tree)
        return tree

    def committed_at(self, commit: str) -> int | None:
        """The committer's time of ``commit`` (seconds since the epoch), read from the commit
        object's ``committer`` line; None when it has none that parses, or a time no date holds
        (:func:`commit_time`)."""
        kind, data = self.read_object(commit)
        if kind != "commit":
            return None
        head = data.split(b"\n\n", 1)[0]
        for line in head.split(b"\n"):
            if line.startswith(b"committer "):
                parts = line.rsplit(b" ", 2)  # "... <email> <seconds> <offset>"
                return commit_time(parts[1]) if len(parts) == 3 else None
        return None

    def commit_info(self, commit: str) -> CommitInfo:
        """Read a commit in process through GitPython (no ``git log`` per question)."""
        c = self._commit(commit)
        message = c.message if isinstance(c.message, str) else c.message.decode("utf-8", "replace")
        subject = " ".join(message.split("\n\n", 1)[0].split())  # git's %s: the first paragraph
        tree = c.tree.hexsha
        self._remember_commit(commit, tree)
        return CommitInfo(tree, tuple(p.hexsha for p in c.parents), c.author.name or "", subject)

    def blob_at(self, commit: str | None, path: str) -> str | None:
        """The blob id at ``path`` (relative to the top level) in ``commit``, or None.

        Walks the parsed trees it already holds; past the first one it does not, it asks
        ``git cat-file --batch-check`` for ``<tree>:<rest>`` instead of parsing a big tree just
        to answer one question (a read-only process never pays for parsing a 50k folder). A
        loose commit and its small loose trees (a person's commit leaves them: the settings'
        check of HEAD's vault.toml after a commit or a pull) are read here
        (:meth:`_small_loose_tree`): no git process for them."""
        if commit is None:
            return None
        parts = path.split("/")
        tree = self._commit_trees.get(commit)
        if tree is None and "" not in parts and self.loose_commit_parents(commit) is not None:
            tree = self.commit_tree(commit)  # the loose commit, read here
        for i, part in enumerate(parts):
            if tree is None or (tree not in self._trees and not self._small_loose_tree(tree)):
                rest = "/".join(parts[i:])
                if _plain_path(rest):
                    return self._lookup(f"{tree or commit}:{rest}")
                tree = tree or self.commit_tree(commit)
            try:
                found = self._tree(tree).get(part)
            except GitError:
                # a tree vault-mem does not parse (an entry it will not use): git's answer
                rest = "/".join(parts[i:])
                if _plain_path(rest):
                    return self._lookup(f"{tree}:{rest}")
                raise
            if found is None:
                return None
            mode, sha = found
            if i == len(parts) - 1:
                return sha if not stat.S_ISDIR(mode) else None
            if not stat.S_ISDIR(mode):
                return None
            tree = sha
        return None

    def _small_loose_tree(self, tree: str) -> bool:
        """Whether ``tree`` is a loose object of at most :data:`_SMALL_LOOSE_TREE` bytes (a few
        hundred entries): parsed here for less than a git process costs; a bigger one (a type
        folder of thousands of files) is looked up by git (``<tree>:<path>``), not parsed."""
        try:
            return os.path.getsize(self._loose_path(tree)) <= _SMALL_LOOSE_TREE
        except (OSError, ValueError):
            return False

    def loose_blob_at(self, commit: str, path: str) -> tuple[bool, str | None]:
        """:meth:`blob_at` answered without git: ``(True, blob id or None when ``commit`` holds no
        file there)`` when the commit and each tree on ``path`` are held parsed or are loose
        objects read here (vault-mem's own last commit is: the next command's question about the
        files it wrote starts no ``git ls-tree``); ``(False, None)`` when git must answer."""
        tree = self._commit_trees.get(commit)
        if tree is None:
            if self.loose_commit_parents(commit) is None:
                return False, None
            tree = self.commit_tree(commit)
        parts = path.split("/")
        for i, part in enumerate(parts):
            if tree not in self._trees and not os.path.exists(self._loose_path(tree)):
                return False, None
            try:
                found = self._tree(tree, "/".join(parts[:i]) or None).get(part)
            except GitError:
                return False, None  # a tree vault-mem does not parse, damage: git's answer
            if found is None:
                return True, None
            mode, sha = found
            if i == len(parts) - 1:
                # a file; a folder or a submodule (a commit) is no file (git ls-tree: not a blob)
                return True, (sha if not stat.S_ISDIR(mode) and mode != _GITLINK_MODE else None)
            if not stat.S_ISDIR(mode):
                return True, None
            tree = sha
        return True, None

    def blobs_at(self, commit: str | None, paths: list[str]) -> dict[str, str | None]:
        """:meth:`blob_at` for each of ``paths`` (top-level), with a folder's tree parsed once
        when many of its paths are asked (``_PARSE_FOR``) rather than looked up one by one."""
        by_folder: dict[str, list[str]] = {}
        for path in paths:
            by_folder.setdefault(path.rpartition("/")[0], []).append(path)
        out: dict[str, str | None] = {}
        for folder, group in by_folder.items():
            tree = self._folder_tree(commit, folder) if len(group) >= _PARSE_FOR else False
            for path in group:
                if tree is False:
                    out[path] = self.blob_at(commit, path)
                    continue
                found = tree.get(path.rpartition("/")[2]) if tree is not None else None
                out[path] = found[1] if found is not None and not stat.S_ISDIR(found[0]) else None
        return out

    def _folder_tree(self, commit: str | None, folder: str) -> ParsedTree | None:
        """The parsed tree of ``folder`` (top-level, "" for the top) in ``commit``; None when it
        holds no such folder."""
        tree = self.commit_tree(commit)
        for part in folder.split("/") if folder else []:
            found = self._tree(tree).get(part) if tree is not None else None
            if found is None or not stat.S_ISDIR(found[0]):
                return None
            tree = found[1]
        return self._tree(tree, folder) if tree is not None else None

    def note_own_change(self, commit: str, parent: str | None, blobs: dict[str, str | None]) -> None:
        """Keep what ``commit``, which this process made on ``parent`` setting ``blobs`` ({top-level
        path: blob id, None: deleted}, each a regular file, 100644), changed: the next question
        of what it changed (``git diff-tree``, ``git log --raw`` of that one commit: an authors
        refresh after a write, two git processes that each read the changed folder's whole tree,
        ~120 ms of CPU at 100k memories) is answered from it (:meth:`own_change`). The parent's
        entries are read from the trees the commit was made from (held parsed). Nothing is kept
        when a path's folder is not a folder in ``parent``, or its entry there is not a regular
        file's (a mode change, a link, a folder replaced: git's diff tells those)."""
        if parent is None:
            return
        changed = []
        try:
            for path in sorted(blobs):
                folder, _, name = path.rpartition("/")
                tree = self._folder_tree(parent, folder)
                if tree is None:
                    return
                entry = tree.get(name)
                if entry is not None and entry[0] != BLOB_MODE:
                    return
                before = entry[1] if entry is not None else None
                if before != blobs[path]:
                    changed.append((path, before, blobs[path]))
        except Exception:  # noqa: BLE001 - called once the commit landed: only the record is lost (git answers)
            return
        with self._lock:
            self._own_changes[commit] = (parent, tuple(changed))
            while len(self._own_changes) > _OWN_CHANGES_KEPT:
                self._own_changes.popitem(last=False)

    def own_change(self, commit: str) -> tuple[str, tuple[tuple[str, str | None, str | None], ...]] | None:
        """``(parent, ((top-level path, blob before, blob after), ...))``: what ``commit``, made by
        this process on that parent, changed (sorted by path; None on a side: no file), as
        :meth:`note_own_change` kept it; None when it kept nothing for ``commit``, or when git
        would read it otherwise now (``git replace`` of it or its parent, a shallow or grafted
        history: :meth:`_replaced`, :meth:`_grafted`, as :meth:`loose_commit_parents`). Commits
        and trees are named by their content, so the answer never goes stale otherwise."""
        with self._lock:
            kept = self._own_changes.get(commit)
        if kept is None or self._grafted() or self._replaced(commit) or self._replaced(kept[0]):
            return None
        return kept

    def _lookup(self, spec: str) -> str | None:
        """The non-tree object ``<tree-ish>:<path>`` names, or None when there is none."""
        with self._lock:
            for attempt in range(2):
                try:
                    found = self._cat.header(spec)
                    break
                except GIT_ERRORS as exc:
                    # a cat-file process that died: restart it and ask once more
                    self._cat.close()
                    if attempt:
                        raise GitError(f"cannot look up {spec} ({exc}); "
                                       "check the repository with `git fsck`") from exc
        if found is None:
            return None  # git answered "<spec> missing": there is no such path
        hexsha, kind, _ = found
        return None if kind == "tree" else hexsha

    def edit_tree(self, tree: str | None, changes: dict[str, str | None]) -> str | None:
        """Apply {path: blob oid or None (delete)} to ``tree``; returns the new tree (None if empty).

        Only the trees on the changed paths are rewritten; each is the cached parse of the old
        one with the changed entries spliced in (see ``ParsedTree``)."""
        return self._edit(tree, changes, "")

    def _edit(self, tree: str | None, changes: dict[str, str | None], at: str) -> str | None:
        t = self._tree(tree, at)
        nested: dict[str, dict[str, str | None]] = {}
        for path, oid in changes.items():
            head, sep, rest = path.partition("/")
            if sep:
                nested.setdefault(head, {})[rest] = oid
            elif oid is None:
                t = t.remove(head)
            else:
                t = t.put(head, BLOB_MODE, oid)
        for name, sub in nested.items():
            old = t.get(name)
            new = self._edit(old[1] if old and stat.S_ISDIR(old[0]) else None, sub, f"{at}{name}/")
            t = t.remove(name) if new is None else t.put(name, TREE_MODE, new)
        if not len(t):
            return None
        oid = self.write_object("tree", t.raw)
        self._remember_tree(oid, t, at)
        if at:
            # for the next process's write here; a warm process (the daemon, an MCP server)
            # records the first tree it makes on one it read, not each next one (~2 ms a write
            # at 44k entries): the last it made is parsed once by the next process
            if self._own_tree_at.get(at) != tree and t.plain and self.tree_shapes is not None:
                self.tree_shapes.record(at, oid, t.sizes)
            self._own_tree_at[at] = oid
        return oid

    #: the id git gives a blob holding ``data`` (nothing is written): :func:`~vault_mem.store.objectid.blob_id`
    blob_id = staticmethod(blob_id)

    def write_commit(self, tree: str, parent: str | None, message: str, *,
                     author: Identity, committer: Identity | None = None,
                     authored: tuple[int, int] | None = None, local: bool = True) -> str:
        """Write a commit object (HEAD not moved) and return its id. ``authored`` is (seconds,
        GitPython's tz offset) to keep an original author date (a replayed commit); else now.
        The commit is recorded as made on this machine (:mod:`vault_mem.store.provenance`)
        unless ``local`` is False (a copy of a commit that was not).

        The bytes are the ones ``Commit.create_from_tree`` writes, stored by :meth:`write_object`
        like every other object: recorded for the objects-before-refs check, and stored again
        when a ``git gc`` removes the fan-out folder mid-write (found by bench/chaos.py: a sync
        or a write then failed with "writing a commit failed ([Errno 2] ...)")."""
        now = int(time.time())
        when, tz = authored or (now, _west_of_utc(now))
        committer = committer or author
        head = f"tree {tree}\n" + (f"parent {parent}\n" if parent else "")
        data = (head + f"author {_signed(author, when, tz)}\ncommitter {_signed(committer, now, _west_of_utc(now))}\n\n"
                + message.rstrip("\n") + "\n").encode("utf-8")
        oid = self.write_object("commit", data)
        self._remember_commit(oid, tree)
        if local:
            provenance.record_local(self.common_dir, [oid])
        return oid

    def local_commits(self, seed: Callable[[], list[str]]) -> frozenset[str]:
        """The ids of the commits made on this machine (:mod:`vault_mem.store.provenance`);
        ``seed`` gives the first record of a repository that has none (asked once)."""
        return provenance.local_commits(self.common_dir, seed)

    def replay_commit(self, original: str, tree: str, parent: str, message: str, *,
                      committer: Identity) -> str:
        """A copy of commit ``original`` on ``parent`` with ``tree`` and ``message``: the same
        author and author date, ``committer`` now (what a rebase does); HEAD is not moved."""
        from git.objects import Commit

        try:
            orig = Commit(self.repo, bytes.fromhex(original))
            author = Identity(orig.author.name or "", orig.author.email or "")
            authored = (int(orig.authored_date), int(orig.author_tz_offset))
        except gitpython_errors() as exc:
            raise HistoryDamagedError(damaged_history_message(
                self.toplevel, f"reading commit {original[:10]} failed ({exc})")) from exc
        # a copy is ours when its original was: a replay must not make a peer's commit local
        local = original in provenance.recorded(self.common_dir)[1]
        return self.write_commit(tree, parent, message, author=author, committer=committer, authored=authored,
                                 local=local)

    def commit_message(self, commit: str) -> str:
        """The whole message of ``commit`` (decoded as its encoding says)."""
        from git.objects import Commit

        try:
            message = Commit(self.repo, bytes.fromhex(commit)).message
        except gitpython_errors() as exc:
            raise HistoryDamagedError(damaged_history_message(
                self.toplevel, f"reading commit {commit[:10]} failed ({exc})")) from exc
        return message if isinstance(message, str) else message.decode("utf-8", "replace")

    def _loose_data(self, oid: str) -> bytes:
        """The content of the loose object ``oid`` this process just wrote (b"" if it is gone)."""
        try:
            with open(self._loose_path(oid), "rb") as fh:
                raw = zlib.decompress(fh.read())
        except (OSError, zlib.error):
            return b""
        return raw[raw.index(b"\0") + 1:]

    def object_kind(self, oid: str) -> str | None:
        """The type of object ``oid`` (``commit``, ``tree``, ``blob``, ``tag``), or None when the
        repository lacks it: asked of the running ``git cat-file --batch-check``."""
        found = self.object_header(oid)
        return found[0] if found is not None else None

    def object_header(self, oid: str) -> tuple[str, int] | None:
        """(type, size) of object ``oid`` from its header (nothing loaded), or None when the
        repository lacks it: asked of the running ``git cat-file --batch-check``."""
        with self._lock:
            for _attempt in range(2):
                try:
                    found = self._cat.header(oid)
                    return (found[1], found[2]) if found is not None else None
                except GIT_ERRORS:
                    self._cat.close()  # a cat-file that still reads a removed pack
        return None

    def has_object(self, oid: str) -> bool:
        """Whether the object database holds ``oid`` (loose, or in a pack, found again after a
        repack)."""
        if os.path.exists(self._loose_path(oid)):
            return True
        with self._lock:
            for attempt in range(2):
                try:
                    if self._cat.header(oid) is not None:
                        return True
                except GIT_ERRORS:
                    pass
                self._cat.close()  # a cat-file that still reads a removed pack
        return False


_HEX40 = re.compile(rb"[0-9a-f]{40}")
_HEX40_TEXT = re.compile(r"[0-9a-f]{40}")
#: the largest loose tree file :meth:`GitObjects.blob_at` parses rather than asking git (its
#: compressed size, ~24 bytes an entry: ~330 entries, read and parsed in ~0.5 ms at load 12, where
#: 650 took ~1 ms, as much CPU as a git process; a vault's top folder holds a few)
_SMALL_LOOSE_TREE = 8 * 1024
#: how many of this process's own commits :meth:`GitObjects.own_change` answers for (the last ones)
_OWN_CHANGES_KEPT = 64
#: the object types a loose object's header may name
_KINDS = frozenset({b"commit", b"tree", b"blob", b"tag"})
#: a loose object's size as git parses it: decimal, no sign, space or leading zero
_SIZE = re.compile(rb"0|[1-9][0-9]*")
#: the largest size Python's zlib and reads take (a bigger header is git's to refuse)
_MAX_SIZE = 2**63 - 1
#: how ``tempfile.mkstemp`` opens its file (``O_NOFOLLOW``: never through a planted link)
_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)


def _stored(header: bytes, data: bytes) -> list:
    """The zlib stream of ``header`` + ``data`` in stored (uncompressed) deflate blocks, as
    ``zlib.compressobj(0)`` makes it, in pieces: no copy of a 3 MB tree is made to store it
    (git inflates it as any loose object). Each block: its final bit, its length and the
    length's complement (little-endian), its bytes; then the Adler-32 of all the bytes."""
    out: list = [b"\x78\x01"]
    view = memoryview(data)
    chunks = [header, *(view[at:at + 65535] for at in range(0, len(data), 65535))]
    for n, chunk in enumerate(chunks):
        size = len(chunk)
        out.append(bytes((1 if n == len(chunks) - 1 else 0,)) + size.to_bytes(2, "little")
                   + (size ^ 0xFFFF).to_bytes(2, "little"))
        out.append(chunk)
    out.append(zlib.adler32(data, zlib.adler32(header)).to_bytes(4, "big"))
    return out


def _temp_file(folder: Path) -> tuple[int, str]:
    """A new file ``obj<random>`` in ``folder``, mode 0600, as ``tempfile.mkstemp(prefix="obj",
    dir=folder)`` makes one (fd, path), without importing ``tempfile``, which brings ``random``
    and ``shutil`` into every write (start-up time, issue 29)."""
    for _ in range(100):
        path = os.path.join(folder, f"obj{os.urandom(6).hex()}")
        try:
            return os.open(path, _TEMP_FLAGS, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(folder))


def _plain_path(path: str) -> bool:
    """Whether ``<tree>:<path>`` means just that path to cat-file and its reply
    (no whitespace, no "./" or "../" that git would resolve against the current folder)."""
    return (path not in (".", "..") and not path.startswith(("./", "../"))
            and not any(c.isspace() for c in path))

