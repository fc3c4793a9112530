"""Git for one-commit-per-write, on GitPython: fast at 50k files and safe inside a larger repository.

An agent commit is built from HEAD's tree, not from git's staging area: only the vault's own
paths change, so a person's staged and unstaged work elsewhere is never swept into it.

- Objects go through GitPython's object database (``repo.odb``, a ``GitCmdObjectDB``): reads
  talk to one persistent ``git cat-file --batch`` process, which also finds objects that another
  git moved into a new pack (``git gc``); writes are stored in process as loose objects by gitdb.
- Trees are parsed and serialised by GitPython (``tree_entries_from_data``, ``tree_to_stream``)
  and kept parsed in a cache keyed by object id (trees are content-addressed, so an entry never
  goes stale). An edit rewrites only the trees on the changed paths, and puts one entry into a
  big flat tree by splicing that entry's serialised bytes into the tree's bytes: re-serialising a
  folder of 50k memories through GitPython costs ~0.5 s, the splice well under a millisecond.
  A big tree another git wrote is parsed as a difference from the one last held in its folder;
  only a process's first write pays GitPython's full parse (~0.2-0.4 s at 50k entries).
- Commits are ``git.objects.Commit`` objects serialised by GitPython and stored like any object.
- A commit lands by a compare-and-swap of the branch the write started on (never of HEAD),
  made in process as git's files backend makes it (``<ref>.lock``, compare, rename, reflogs)
  while holding git's ``index.lock`` and only while HEAD still points at that branch and no
  person's ``git commit`` is under way (our pre-commit hook marks one); git's staging area gets
  the committed blobs in the same step, from a copy of the index prepared beforehand with
  ``git update-index`` (``GIT_INDEX_FILE``). ``index.lock`` is held for a few system calls, not
  for a git process: a person's ``git add``/``commit`` refuses to start while it is held
  (measured-facts: 423 ms at 10k files for ``repo.index.add`` + ``commit``, so GitPython's
  whole-index rewrite is not used either).

Errors from GitPython and gitdb are translated here, and only here, into ``GitError``.
A ``GitRepo`` holds git processes: call ``close()`` when done (it stays usable afterwards).
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import shutil
import stat
import subprocess
import threading
import time
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Self, TypeVar

import git
from git import exc as gitexc
from git.db import GitCmdObjectDB
from git.objects import Commit, Object, Tree
from git.objects.util import altz_to_utctz_str
from git.refs.symbolic import SymbolicReference
from git.util import Actor, hex_to_bin
from gitdb import IStream, LooseObjectDB
from gitdb.exc import ODBError
from gitdb.fun import loose_object_header

from vault_mem.errors import ConcurrentEditError, GitError, HeadMovedError, LockTimeoutError
from vault_mem.store import gitlocks, provenance
from vault_mem.store.files import checkpoint
from vault_mem.store.locks import SAY_WAITING_AFTER_S, pid_exists, this_command
from vault_mem.store.tree import ParsedTree

ZERO_OID = "0" * 40
BLOB_MODE = 0o100644
TREE_MODE = 0o040000

# git refuses to work while another git holds index.lock; we wait for it instead of failing.
_INDEX_LOCK_WAIT_S = 30.0
# Parsed trees kept per process, bounded by their total entries: a 50k folder is one big tree
# and each write makes a new version of it (versions share entry objects; ~3 MB each at 50k).
_TREE_CACHE_ENTRIES = 200_000
# A tree someone else wrote is parsed as a difference from the last one held in its folder
# only when that one is this big (below it, GitPython parses a whole tree in a few ms).
_REBASE_MIN_ENTRIES = 2000
# Loose objects above this size are stored uncompressed: a big tree is mostly random object ids,
# so deflating it costs ~25-40 ms per write and saves little (git gc packs it later anyway).
_DEFLATE_LIMIT = 65536
# What GitPython/gitdb raise for a missing or unreadable object or a failed git command.
_GIT_ERRORS = (gitexc.GitError, ODBError, ValueError, OSError)

_T = TypeVar("_T")
#: in the git dir: the pid of a person's ``git commit`` under way (written by our pre-commit hook)
PERSON_COMMIT_MARK = "vault-mem-commit"
#: in the git dir: where earlier versions listed the git locks a writer held (by inode, which
#: a person's later lock can reuse: now :mod:`vault_mem.store.gitlocks`); a dead writer's list
#: is removed, the locks it names are left alone
_OLD_OWNED_PREFIX = "vault-mem-locks."

log = logging.getLogger("vault_mem.store.git")


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
        """This identity as a GitPython ``Actor``, with the characters git drops removed."""
        return Actor(_clean(self.name) or "unknown", _clean(self.email))

    def signature(self, when: float | None = None) -> bytes:
        """The ``name <email> seconds tz`` line git writes for an author or committer."""
        ts = int(when if when is not None else time.time())
        actor = self.actor()
        return f"{actor.name} <{actor.email}> {ts} {altz_to_utctz_str(_west_of_utc(ts))}".encode()


@dataclass(frozen=True)
class CommitInfo:
    """What a commit object says: its tree, parents, author's name and subject (git's ``%s``)."""

    tree: str
    parents: tuple[str, ...]
    author: str
    subject: str


class _IndexLocked(Exception):
    """Another git holds index.lock (internal: retried by ``_while_index_locked``)."""


def _git_words(exc: BaseException) -> str:
    """What git itself said, out of a GitPython ``GitCommandError`` (else the exception text)."""
    if isinstance(exc, gitexc.GitCommandError) and exc.stderr:
        words = exc.stderr.strip()
        words = words.removeprefix("stderr:").strip().strip("'").strip()
        if words:
            return words
    return str(exc).strip() or type(exc).__name__


class _ObjectDB(GitCmdObjectDB):
    """GitPython's default object database (reads through ``git cat-file --batch``, which sees
    packs another git makes) with every write in process: ``GitCmdObjectDB.store`` runs
    ``git hash-object`` for an object whose id is not given (``Commit.create_from_tree``'s
    commit), about 2 ms a process; gitdb's ``LooseObjectDB.store`` computes the id while it
    writes the loose object."""

    def store(self, istream: IStream) -> IStream:
        return LooseObjectDB.store(self, istream)


class GitRepo:
    """The repository that holds a vault (found from any path inside its work tree).

    Holds GitPython's ``Repo`` and, once objects are read, its ``git cat-file`` processes:
    ``close()`` stops them (the repo stays usable; they restart on the next read)."""

    def __init__(self, path: Path):
        self.cwd = Path(path)
        # git's own discovery (ceiling directories, safe.directory, GIT_DIR), as every git we run
        out = self.run("rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir", "--git-path", "hooks",
                       "--git-path", "info/attributes").split("\n")
        self.toplevel = Path(out[0])
        self.git_dir = (self.cwd / out[1]).resolve()
        self.common_dir = (self.cwd / out[2]).resolve()
        #: where git looks for this repository's hooks (``core.hooksPath`` and worktrees honoured)
        self.hooks_dir = (self.cwd / out[3]).resolve()
        #: the attributes file that overrides every ``.gitattributes`` (``$GIT_DIR/info/attributes``)
        self.info_attributes = (self.cwd / out[4]).resolve()
        self.objects = self.common_dir / "objects"
        try:
            self.repo = git.Repo(self.toplevel, odbt=_ObjectDB)
        except _GIT_ERRORS as exc:
            raise GitError(f"GitPython cannot open the repository at {self.toplevel} ({exc}); "
                           "check it with `git status` there") from exc
        self._git = self.repo.git
        self._odb = self.repo.odb
        # one lock: cat-file's pipe protocol and the caches are shared by the daemon's threads
        self._lock = threading.RLock()
        self._trees: OrderedDict[str, ParsedTree] = OrderedDict()
        self._tree_entries = 0
        self._tree_at: dict[str, str] = {}  # folder -> the last big tree held there
        self._commit_trees: OrderedDict[str, str] = OrderedDict()
        #: per thread: {oid: (kind, data)} of the objects the commit being made needs
        self._local = threading.local()

    def close(self) -> None:
        """Stop the git processes GitPython keeps open and drop the caches (idempotent)."""
        with self._lock:
            self.repo.close()
            self._trees.clear()
            self._tree_entries = 0
            self._tree_at.clear()
            self._commit_trees.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- processes -------------------------------------------------------------------------
    def run(self, *args: str, input: bytes | None = None, env: dict | None = None,
            binary: bool = False, check: bool = True, cwd: Path | None = None,
            timeout: float | None = None):
        """Run git; return stdout (text unless ``binary``). Raises GitError with git's words
        (and when it runs over ``timeout`` seconds)."""
        full_env = None
        if env:
            full_env = {**os.environ, **env}
        try:
            proc = subprocess.run(
                ["git", *args], cwd=cwd or self.cwd, input=input, env=full_env,
                capture_output=True, check=False, timeout=timeout,
            )
        except FileNotFoundError as exc:
            raise GitError("git is not installed or not on PATH; install git and retry") from exc
        except subprocess.TimeoutExpired as exc:
            raise GitError(f"git {args[0]} did not finish within {timeout:g} s") from exc
        if check and proc.returncode != 0:
            msg = proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
            raise GitError(f"git {args[0]} failed: {msg}")
        if binary:
            return proc.stdout if check else proc
        return proc.stdout.decode("utf-8", "replace").rstrip("\n") if check else proc

    def run_index_locked(self, *args: str, **kw):
        """Run a git command that takes ``index.lock``, waiting while another git holds it."""
        def attempt() -> str:
            proc = self.run(*args, check=False, **kw)
            if proc.returncode == 0:
                return proc.stdout.decode("utf-8", "replace")
            err = proc.stderr.decode("utf-8", "replace")
            if "index.lock" in err:
                raise _IndexLocked(err)
            raise GitError(f"git {args[0]} failed: {err.strip()}")
        return self._while_index_locked(attempt)

    def _while_index_locked(self, attempt: Callable[[], _T]) -> _T:
        start = time.monotonic()
        said = False
        delay = 0.01
        while True:
            try:
                return attempt()
            except _IndexLocked:
                if self._cleared_dead_locks():
                    continue  # a killed vault-mem process held it: gone now
                if time.monotonic() > start + _INDEX_LOCK_WAIT_S:
                    raise LockTimeoutError(
                        f"git's index.lock in {self.git_dir} stayed held for {_INDEX_LOCK_WAIT_S:.0f} s, "
                        f"{self._index_lock_holder()}; nothing was written"
                    ) from None
                said = self._say_waiting(start, said)
            time.sleep(delay)
            delay = min(delay * 2, 0.2)

    def _index_lock_holder(self) -> str:
        return gitlocks.describe_holder(self.git_dir / "index.lock", self.git_dir, self.common_dir)

    def _say_waiting(self, start: float, said: bool) -> bool:
        """Log once, after a few seconds of waiting for index.lock, who holds it; True once said."""
        if said or time.monotonic() - start < SAY_WAITING_AFTER_S:
            return said
        if (self.git_dir / "index.lock").exists():
            log.warning("vault-mem: waiting for git's index.lock in %s, %s (up to %.0f s)",
                        self.git_dir, self._index_lock_holder(), _INDEX_LOCK_WAIT_S)
        else:
            log.warning("vault-mem: waiting to commit: %s keeps moving (another git writing?), up to %.0f s",
                        self.head_branch() or "the branch", _INDEX_LOCK_WAIT_S)
        return True

    # -- state -----------------------------------------------------------------------------
    def head(self) -> str | None:
        """HEAD's commit id, or None on an unborn branch.

        Read by GitPython from the ref files (this runs on every write); anything it cannot
        read (an unborn branch, an odd ref) is asked of ``git rev-parse``."""
        try:
            oid = SymbolicReference.dereference_recursive(self.repo, "HEAD")
        except (ValueError, OSError, TypeError):
            return self._rev_parse_head()
        return oid if len(oid) == 40 else self._rev_parse_head()

    def _rev_parse_head(self) -> str | None:
        proc = self.run("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
        return (proc.stdout.decode().strip() or None) if proc.returncode == 0 else None

    def operation_in_progress(self) -> str | None:
        """The name of a merge/rebase/revert/cherry-pick/bisect under way, else None."""
        markers = {
            "MERGE_HEAD": "merge", "REVERT_HEAD": "revert", "CHERRY_PICK_HEAD": "cherry-pick",
            "rebase-merge": "rebase", "rebase-apply/applying": "am", "rebase-apply": "rebase",
            "BISECT_LOG": "bisect", "BISECT_START": "bisect", "sequencer": "cherry-pick",
        }
        for name, what in markers.items():
            if (self.git_dir / name).exists():
                return what
        return None

    def person_operation(self) -> str | None:
        """What a person's git operation under way in this work tree is, in words, else None:
        a merge/rebase/... with its state on disk, or a running ``git pull``/``rebase``/
        ``checkout``/``switch``/``stash``/``reset``/``merge``/... (read from /proc: a rebase with
        ``--autostash`` stashes, resets and checks out before its state folder exists). Agents
        must not change the work tree meanwhile, or git finds local changes and stops half-way."""
        op = self.operation_in_progress()
        if op:
            return f"a git {op} (finish or abort it: git {op} --continue / --abort)"
        return self.person_git_command()

    def person_git_command(self) -> str | None:
        """A running git command that changes the work tree here (pull, rebase, checkout, ...),
        in words (``a person's `git checkout` (pid N)``), else None."""
        found = running_git(self.toplevel, _WORKTREE_CHANGING, first=True)
        if found:
            return f"a person's `git {_command_of(found[0]) or 'command'}` (pid {found[0]})"
        return None

    def index_locked(self) -> bool:
        """Whether another git holds ``index.lock`` right now (one a killed vault-mem process
        left is removed first: see :meth:`clear_dead_locks`)."""
        lock = self.git_dir / "index.lock"
        if lock.exists():
            self._cleared_dead_locks()
        return lock.exists()

    # -- objects ---------------------------------------------------------------------------
    def read_object(self, oid: str) -> tuple[str, bytes]:
        """(type, content) of an object, loose or packed, through GitPython's object database."""
        with self._lock:
            try:
                kind, data = self._read(oid)
            except _GIT_ERRORS:
                # a cat-file process that died or fell out of step: restart it and ask once more
                self._git.clear_cache()
                try:
                    kind, data = self._read(oid)
                except _GIT_ERRORS as exc:
                    self._git.clear_cache()
                    raise GitError(f"cannot read git object {oid} ({exc}); "
                                   "check the repository with `git fsck`") from exc
        return (kind.decode() if isinstance(kind, bytes) else kind), data

    def _read(self, oid: str) -> tuple[str | bytes, bytes]:
        ostream = self._odb.stream(hex_to_bin(oid))
        return ostream.type, ostream.read()

    def write_object(self, kind: str, data: bytes) -> str:
        """Store an object in the object database (an existing one is left alone); return its id.

        gitdb stores it as a loose object (temp file, rename). The id is computed first, so an
        object that exists costs one stat; the deflate level is ours so a 2 MB tree is not
        compressed on every write (``_DEFLATE_LIMIT``)."""
        header = loose_object_header(kind, len(data))
        sha = hashlib.sha1(header)
        sha.update(data)
        binsha = sha.digest()
        hexsha = sha.hexdigest()
        record = getattr(self._local, "written", None)
        if record is not None:
            record[hexsha] = (kind, data)
        loose = self._odb.db_path(self._odb.object_path(hexsha))
        if os.path.exists(loose):
            try:  # freshen it, as git does: `git prune` spares loose objects younger than its expiry
                os.utime(loose)
                return hexsha
            except FileNotFoundError:
                pass  # pruned this instant: store it again
        deflate = zlib.compressobj(1 if len(data) < _DEFLATE_LIMIT else 0)
        raw = deflate.compress(header) + deflate.compress(data) + deflate.flush()
        for attempt in range(5):
            try:
                # with the id given, gitdb writes the bytes as they are: no `git hash-object` process
                self._odb.store(IStream(kind, len(data), io.BytesIO(raw), sha=binsha))
                return hexsha
            except FileNotFoundError as exc:
                # `git gc` (prune-packed) removed the empty fan-out folder between gitdb's mkdir
                # and its rename: drop gitdb's temp file and store again, as git itself does
                if exc.filename and exc.filename != exc.filename2:
                    Path(exc.filename).unlink(missing_ok=True)
                if attempt == 4:
                    raise GitError(f"cannot write a git object into {self.objects} ({exc}); "
                                   "is something deleting it? retry") from exc
            except _GIT_ERRORS as exc:
                raise GitError(f"cannot write a git object into {self.objects} ({exc}); "
                               "check that the folder is writable and the disk is not full") from exc
        return hexsha

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
                tree = (near.rebase(data) if near is not None else None) or ParsedTree.parse(data)
            except ValueError as exc:
                raise GitError(f"tree {oid} has an entry vault-mem will not use ({exc}); "
                               "rename that file with git and retry") from exc
            self._remember_tree(oid, tree, at)
            return tree

    def _remember_tree(self, oid: str, tree: ParsedTree, at: str | None = None) -> None:
        with self._lock:
            if at is not None and len(tree.entries) >= _REBASE_MIN_ENTRIES:
                self._tree_at[at] = oid
            if oid in self._trees:
                return
            self._trees[oid] = tree
            self._tree_entries += len(tree.entries)
            while self._tree_entries > _TREE_CACHE_ENTRIES and len(self._trees) > 1:
                _, old = self._trees.popitem(last=False)
                self._tree_entries -= len(old.entries)

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
        with self._lock:
            for attempt in range(2):
                try:
                    obj = Object.new_from_sha(self.repo, hex_to_bin(oid))
                    if isinstance(obj, Commit):
                        obj.tree  # noqa: B018 - read and parse it now, under the lock
                        return obj
                    kind = obj.type
                    break
                except _GIT_ERRORS as exc:
                    # a cat-file process that read a pack `git repack -ad` removed meanwhile:
                    # restart it (it finds the new pack) and ask once more
                    self._git.clear_cache()
                    if attempt:
                        raise GitError(f"cannot read commit {oid} ({exc}); check the id with `git show`") from exc
        raise GitError(f"{oid} is a {kind}, not a commit")

    def commit_tree(self, commit: str | None) -> str | None:
        """The tree id of ``commit`` (None for None)."""
        if commit is None:
            return None
        tree = self._commit_trees.get(commit)
        if tree is None:
            tree = self._commit(commit).tree.hexsha
            self._remember_commit(commit, tree)
        return tree

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
        to answer one question (a read-only process never pays for parsing a 50k folder)."""
        if commit is None:
            return None
        parts = path.split("/")
        tree = self._commit_trees.get(commit)
        for i, part in enumerate(parts):
            if tree is None or tree not in self._trees:
                rest = "/".join(parts[i:])
                if _plain_path(rest):
                    return self._lookup(f"{tree or commit}:{rest}")
                tree = tree or self.commit_tree(commit)
            found = self._tree(tree).get(part)
            if found is None:
                return None
            mode, sha = found
            if i == len(parts) - 1:
                return sha if not stat.S_ISDIR(mode) else None
            if not stat.S_ISDIR(mode):
                return None
            tree = sha
        return None

    def _lookup(self, spec: str) -> str | None:
        """The non-tree object ``<tree-ish>:<path>`` names, or None when there is none."""
        with self._lock:
            for attempt in range(2):
                try:
                    hexsha, kind, _ = self._git.get_object_header(spec)
                    break
                except _GIT_ERRORS as exc:
                    if isinstance(exc, ValueError) and str(exc).endswith(" missing'"):
                        return None  # git answered "<spec> missing": there is no such path
                    # anything else (a cat-file process that died): restart it and ask once more
                    self._git.clear_cache()
                    if attempt:
                        raise GitError(f"cannot look up {spec} ({exc}); "
                                       "check the repository with `git fsck`") from exc
        kind = kind.decode() if isinstance(kind, bytes) else kind
        if kind == "tree":
            return None
        return hexsha.decode() if isinstance(hexsha, bytes) else hexsha

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
        if not t.entries:
            return None
        oid = self.write_object("tree", t.raw)
        self._remember_tree(oid, t, at)
        return oid

    @staticmethod
    def blob_id(data: bytes) -> str:
        """The id git gives a blob holding ``data`` (nothing is written)."""
        sha = hashlib.sha1(loose_object_header("blob", len(data)))
        sha.update(data)
        return sha.hexdigest()

    # -- the write -------------------------------------------------------------------------
    def write_commit(self, tree: str, parent: str | None, message: str, *,
                     author: Identity, committer: Identity | None = None,
                     authored: tuple[int, int] | None = None, local: bool = True) -> str:
        """Write a commit object through GitPython (``Commit.create_from_tree``, HEAD not
        moved) and return its id. ``authored`` is (seconds, GitPython's tz offset) to keep an
        original author date (a replayed commit); else now. The commit is recorded as made on
        this machine (:mod:`vault_mem.store.provenance`) unless ``local`` is False (a copy of a
        commit that was not)."""
        now = int(time.time())
        when, tz = authored or (now, _west_of_utc(now))
        try:
            commit = Commit.create_from_tree(
                self.repo, Tree(self.repo, hex_to_bin(tree)), message.rstrip("\n") + "\n",
                parent_commits=[Commit(self.repo, hex_to_bin(parent))] if parent else [],
                head=False, author=author.actor(), committer=(committer or author).actor(),
                author_date=f"{when} {_tz_text(tz)}", commit_date=f"{now} {_tz_text(_west_of_utc(now))}",
            )
        except _GIT_ERRORS as exc:
            raise GitError(f"writing a commit failed ({exc}); check that the repository is writable") from exc
        oid = commit.hexsha
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
        try:
            orig = Commit(self.repo, hex_to_bin(original))
            author = Identity(orig.author.name or "", orig.author.email or "")
            authored = (int(orig.authored_date), int(orig.author_tz_offset))
        except _GIT_ERRORS as exc:
            raise GitError(f"reading commit {original[:10]} failed ({exc}); run `git fsck`") from exc
        # a copy is ours when its original was: a replay must not make a peer's commit local
        local = original in provenance.recorded(self.common_dir)[1]
        return self.write_commit(tree, parent, message, author=author, committer=committer, authored=authored,
                                 local=local)

    def commit_message(self, commit: str) -> str:
        """The whole message of ``commit`` (decoded as its encoding says)."""
        try:
            message = Commit(self.repo, hex_to_bin(commit)).message
        except _GIT_ERRORS as exc:
            raise GitError(f"reading commit {commit[:10]} failed ({exc}); run `git fsck`") from exc
        return message if isinstance(message, str) else message.decode("utf-8", "replace")

    def move_head(self, new: str, old: str | None, *, message: str) -> bool:
        """Point HEAD (its branch) at ``new`` only if it still points at ``old`` (None: unborn).

        Returns False when HEAD moved meanwhile (the compare-and-swap lost, or another git held
        the ref's lock); raises GitError for any other refusal."""
        try:
            self._git.update_ref("-m", message, "HEAD", new, old or ZERO_OID)
            return True
        except gitexc.GitCommandError as exc:
            words = _git_words(exc)
            if self.head() != old or ".lock" in words:
                return False
            raise GitError(f"git update-ref failed: {words}") from exc
        except _GIT_ERRORS as exc:
            raise GitError(f"git update-ref failed ({exc}); check that git is installed") from exc

    def commit_paths(
        self,
        files: dict[str, bytes | None],
        message: str,
        *,
        author: Identity,
        committer: Identity | None = None,
        branch: str | None = None,
        derived: tuple[str, Callable[[str | None], bytes | None]] | None = None,
        warnings: list[str] | None = None,
    ) -> str | None:
        """Commit exactly ``files`` ({top-level-relative path: bytes, or None to delete}) on top
        of ``branch`` (``refs/heads/...``; default: the one HEAD is on now). Returns the new
        commit id, or None when the tree would not change (an identical write makes no commit).

        ``derived`` is (path, make): ``make(parent)`` gives that file's bytes for a commit on
        ``parent`` (INDEX.md, generated from the tree being committed), asked again when the
        branch moved and the commit is rebuilt.

        The commit lands by one compare-and-swap on the branch, made while holding git's
        ``index.lock`` (the lock order is the vault's write lock, then index.lock): the branch
        is never moved while a person's ``git commit`` is under way (it holds index.lock from
        before its hook until after its own ref update), HEAD must still point at ``branch``
        (else :class:`HeadMovedError`, nothing landed), and git's staging area gets exactly the
        committed blobs in the same step. When the branch moved (a person's commit), the commit
        is rebuilt on the new tip, unless that tip changed one of ``files`` (ConcurrentEditError:
        nothing landed). What fails after the branch moved is added to ``warnings``: the commit landed."""
        branch = branch or self.head_branch()
        if branch is None:
            raise HeadMovedError(f"HEAD is detached in {self.toplevel}; `git switch <branch>` and retry")
        self._local.written = {}
        try:
            return self._commit_paths(branch, files, message, author, committer, derived, warnings)
        finally:
            self._local.written = None

    def _commit_paths(self, branch: str, files: dict[str, bytes | None], message: str, author: Identity,
                      committer: Identity | None,
                      derived: tuple[str, Callable[[str | None], bytes | None]] | None,
                      warnings: list[str] | None) -> str | None:
        blobs = {p: (self.write_object("blob", d) if d is not None else None) for p, d in files.items()}
        first_line = message.splitlines()[0] if message else "commit"
        start = time.monotonic()
        deadline = start + _INDEX_LOCK_WAIT_S
        said = False
        first_parent: str | None | bool = False
        delay = 0.002
        while True:
            parent = self.ref_value(branch)
            if first_parent is False:
                first_parent = parent
            elif parent != first_parent:
                for path in files:
                    now = self.blob_at(parent, path)
                    # a commit that took in exactly these bytes (a person's `git commit -a` while
                    # the file was on disk) is no conflict: the write is on the branch already
                    if now != self.blob_at(first_parent, path) and now != blobs[path]:  # type: ignore[arg-type]
                        raise ConcurrentEditError(
                            f"{path} changed in a commit made while vault-mem was writing it; your edit "
                            "is kept and nothing was written: check it and retry")
            want = dict(blobs)
            if derived is not None:
                data = derived[1](parent)
                want[derived[0]] = self.write_object("blob", data) if data is not None else None
            base = self.commit_tree(parent)
            tree = self.edit_tree(base, want) or self.empty_tree()
            if tree == base:
                return None
            commit = self.write_commit(tree, parent, message, author=author, committer=committer)
            self._local.written[commit] = ("commit", self._loose_data(commit))
            if self._marked_commit() is not None:
                staged = None  # a person's git commit is under way: it lands first
            else:
                staged = self._prepare_index(want, files)
            outcome = False
            if staged is not None:
                try:
                    outcome = self._land(branch, commit, parent, staged, f"commit: {first_line}",
                                         committer or author, warnings)
                finally:
                    Path(staged[0]).unlink(missing_ok=True)
            if outcome:
                self._keep_objects(self._local.written, warnings)
                return commit
            # a commit that did not land: only the next attempt's objects matter
            self._local.written = {k: v for k, v in self._local.written.items() if v[0] == "blob"}
            if time.monotonic() > deadline:
                who = self.person_commit()
                raise LockTimeoutError(
                    f"could not commit for {_INDEX_LOCK_WAIT_S:.0f} s: " + (
                        f"a git commit (pid {who}) is under way; nothing was written: retry when it is done"
                        if who else
                        f"{branch} kept moving, or git's index.lock in {self.git_dir} stayed held, "
                        f"{self._index_lock_holder()}; nothing was written"))
            said = self._say_waiting(start, said)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def _loose_data(self, oid: str) -> bytes:
        """The content of the loose object ``oid`` this process just wrote (b"" if it is gone)."""
        try:
            with open(self._odb.db_path(self._odb.object_path(oid)), "rb") as fh:
                raw = zlib.decompress(fh.read())
        except (OSError, zlib.error):
            return b""
        return raw[raw.index(b"\0") + 1:]

    def has_object(self, oid: str) -> bool:
        """Whether the object database holds ``oid`` (loose, or in a pack, found again after a
        repack)."""
        if os.path.exists(self._odb.db_path(self._odb.object_path(oid))):
            return True
        with self._lock:
            for attempt in range(2):
                try:
                    self._git.get_object_header(oid)
                    return True
                except _GIT_ERRORS:
                    self._git.clear_cache()  # a cat-file that still reads a removed pack
        return False

    def _keep_objects(self, written: dict[str, tuple[str, bytes]], warnings: list[str] | None) -> None:
        """Objects before refs: the branch now names ``written``, but a ``git gc --prune=now``
        (or ``git prune``, ``git repack -ad``) that walked the refs before it moved may still
        delete them. Wait for those that were running (bounded), then store again any object
        that went missing, so the acknowledged commit is whole. Never raises: the commit landed."""
        running: list[int] = []
        try:
            deadline = time.monotonic() + _MAINTENANCE_WAIT_S
            running = running_git(self.toplevel, _MAINTENANCE)
            while running and time.monotonic() < deadline:
                time.sleep(0.01)
                running = [pid for pid in running if pid_exists(pid)]
            missing: list[str] = []
            for _ in range(3):
                missing = [oid for oid in written if not self.has_object(oid)]
                for oid in missing:
                    kind, data = written[oid]
                    self.write_object(kind, data)
                if not missing:
                    break
            if warnings is None:
                return
            if missing:
                warnings.append("committed, but a `git gc`/`git prune` running meanwhile kept removing its "
                                f"objects ({', '.join(m[:10] for m in missing)}); run `vault-mem doctor` after it")
            if running:
                warnings.append(f"committed while a git gc/prune/repack (pid {running[0]}) was still running "
                                f"after {_MAINTENANCE_WAIT_S:.0f} s; run `vault-mem doctor` when it is done")
        except Exception as exc:  # noqa: BLE001 - the commit landed: this can only warn
            if warnings is not None:
                warnings.append(f"committed, but checking its objects failed ({exc}); run `vault-mem doctor`")

    def _swap_ref(self, branch: str, new: str, old: str | None, who: Identity, message: str) -> bool:
        """Point ``branch`` at ``new`` only if it points at ``old`` now (None: unborn), as git's
        files backend does it (``<ref>.lock`` created exclusively, compared, renamed into place,
        the branch's and HEAD's reflogs appended), in process: the caller holds index.lock, and
        a person's git command must never find it held for longer than a few system calls
        (``git update-ref`` would hold it for a whole process start). False: it moved, or
        another git holds the ref's lock."""
        ref = self.common_dir / branch
        lock = ref.with_name(ref.name + ".lock")
        ref.parent.mkdir(parents=True, exist_ok=True)
        record = self._take_lock(lock, self.common_dir, f"{new}\n".encode())
        if record is None:
            return False
        renamed = False
        try:
            checkpoint("holding-ref-lock", self.git_dir)
            if self._ref_now(branch) != old:
                return False
            os.rename(lock, ref)
            renamed = True
        finally:
            gitlocks.release(None if renamed else lock, record)
        line = f"{old or ZERO_OID} {new} {who.signature().decode()}\t{message}\n".encode()
        for log in (self.common_dir / "logs" / branch, self.git_dir / "logs" / "HEAD"):
            try:
                log.parent.mkdir(parents=True, exist_ok=True)
                with open(log, "ab") as fh:
                    fh.write(line)
            except OSError:
                pass  # a reflog line is a convenience; the commit has landed
        return True

    def _take_lock(self, lock: Path, records: Path, content: bytes = b"") -> Path | None:
        """Create git's lock file ``lock`` as vault-mem's (:func:`gitlocks.take`): its owner
        record, or None when someone else holds it (after removing one a killed vault-mem
        process left, once)."""
        for attempt in range(2):
            record = gitlocks.take(lock, records, content)
            if record is not None or attempt or not self._cleared_dead_locks():
                return record
        return None

    def _cleared_dead_locks(self) -> bool:
        """:meth:`clear_dead_locks`, each removal logged (no caller here reports notes)."""
        removed = self.clear_dead_locks()
        for line in removed:
            log.warning("vault-mem: %s", line)
        return bool(removed)

    def clear_dead_locks(self) -> list[str]:
        """Remove the git lock files (and prepared index copies) vault-mem processes that are
        gone left behind; one line per lock removed, for the caller to report. A person's locks
        are never touched: see :mod:`vault_mem.store.gitlocks`."""
        removed = gitlocks.clear_dead(self.git_dir, self.common_dir)
        for path in self.git_dir.glob(f"{_OLD_OWNED_PREFIX}*"):
            try:
                pid = int(path.name.split(".")[1])
            except (IndexError, ValueError):
                continue
            if not pid_exists(pid):
                path.unlink(missing_ok=True)
        return removed

    def _ref_now(self, ref: str) -> str | None:
        """What ``ref`` holds in the ref files right now (loose, else packed-refs), read directly."""
        try:
            text = (self.common_dir / ref).read_text().strip()
        except FileNotFoundError:
            text = ""
        if text.startswith("ref:"):
            raise GitError(f"{ref} is a symbolic ref; vault-mem commits only to a plain branch")
        if len(text) == 40:
            return text
        try:
            packed = (self.common_dir / "packed-refs").read_text()
        except FileNotFoundError:
            return None
        for line in packed.splitlines():
            oid, _, name = line.partition(" ")
            if name == ref and len(oid) == 40:
                return oid
        return None

    def person_commit(self) -> int | None:
        """The pid of a person's ``git commit`` (or merge, revert, ...) under way in this work
        tree, else None. Two signs: the mark its pre-commit hook writes first thing (it covers a
        commit whose message editor stays open; a mark left by one that ended is removed), and,
        for the moment between git reading HEAD and its hook starting, a live git process of
        that kind working in this work tree (read from /proc where there is one)."""
        return self._marked_commit() or running_git_commit(self.toplevel)

    def _marked_commit(self) -> int | None:
        mark = self.git_dir / PERSON_COMMIT_MARK
        try:
            pid = int(mark.read_text().strip())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            pid = 0
        if pid > 1:
            alive = pid_exists(pid)
            if alive:
                try:  # a pid reused by something else is no commit
                    comm = Path(f"/proc/{pid}/comm").read_text().strip()
                    alive = comm.startswith("git")
                except OSError:
                    pass
            if alive:
                return pid
        mark.unlink(missing_ok=True)
        return None

    def last_changes(self, paths: list[str]) -> dict[str, tuple[int, bool]]:
        """For each of ``paths`` (top-level relative), the commit on HEAD that last changed it:
        (committer time in seconds, whether it is a vault-mem write: it has an ``Agent:``
        trailer); a path no commit changed is left out. One ``git log`` walks back from HEAD
        and stops once every path is found (at worst the whole history: a clone's first index)."""
        want = set(paths)
        found: dict[str, tuple[int, bool]] = {}
        if not want or self.head() is None:
            return found
        folders = sorted({p.split("/", 1)[0] if "/" in p else "." for p in want})
        try:
            proc = subprocess.Popen(
                ["git", "-c", "core.quotePath=false", "log", "--no-renames", "--name-only",
                 "--format=%x01%ct %(trailers:key=Agent,valueonly,separator=%x2C)", "HEAD", "--", *folders],
                cwd=self.toplevel, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except FileNotFoundError as exc:
            raise GitError("git is not installed or not on PATH; install git and retry") from exc
        commit: tuple[int, bool] = (0, False)
        try:
            for raw in proc.stdout:  # type: ignore[union-attr]
                line = raw.decode("utf-8", "replace").rstrip("\n")
                if line.startswith("\x01"):
                    when, _, agent = line[1:].partition(" ")
                    commit = (int(when or 0), bool(agent.strip()))
                elif line in want and line not in found:
                    found[line] = commit
                    if len(found) == len(want):
                        break
        finally:
            proc.kill()
            proc.wait()
            proc.stdout.close()  # type: ignore[union-attr]
        return found

    def head_branch(self) -> str | None:
        """The branch HEAD points at (``refs/heads/...``), or None while HEAD is detached. Read
        from HEAD's file (every write asks: no git process), through ``git symbolic-ref`` only
        when the file cannot be read."""
        said = self.head_said()
        if said:
            return (said[5:].strip() or None) if said.startswith("ref: ") else None
        proc = self.run("symbolic-ref", "-q", "HEAD", check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.decode("utf-8", "replace").strip() or None

    def head_said(self) -> str:
        """What HEAD's file says (``ref: refs/heads/main`` or a commit id); "" when unreadable."""
        try:
            return (self.git_dir / "HEAD").read_text().strip()
        except OSError:
            return ""

    def ref_value(self, ref: str) -> str | None:
        """The commit ``ref`` (a full name) points at, or None when it does not exist (unborn)."""
        try:
            oid = SymbolicReference.dereference_recursive(self.repo, ref)
            if len(oid) == 40:
                return oid
        except (ValueError, OSError, TypeError):
            pass
        proc = self.run("rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False)
        return (proc.stdout.decode().strip() or None) if proc.returncode == 0 else None

    def _prepare_index(self, blobs: dict[str, str | None], files: dict[str, bytes | None]
                       ) -> tuple[str, tuple | None]:
        """A copy of git's index with ``blobs`` staged, made without taking index.lock; returns
        (its path, the real index's stat signature when copied). A path whose work-tree file
        holds the committed bytes is staged from the file (git records its stat), others as the
        blob itself (INDEX.md of a commit that leaves a person's edits out, a deletion)."""
        tmp = gitlocks.index_copy(self.git_dir)
        sig = self._copy_index(tmp)
        from_disk, as_blob = [], []
        for path, oid in blobs.items():
            disk = None
            if oid is not None:
                try:
                    disk = _read_nofollow(self.toplevel / path)
                except OSError:
                    disk = None
            (from_disk if disk is not None and self.blob_id(disk) == oid else as_blob).append(path)
        env = {"GIT_INDEX_FILE": str(tmp)}
        if as_blob:
            info = "".join(f"{BLOB_MODE:o} {blobs[p]}\t{p}\n" if blobs[p] else f"0 {ZERO_OID}\t{p}\n"
                           for p in as_blob)
            self.run("update-index", "--index-info", input=info.encode(), env=env, cwd=self.toplevel)
        if from_disk:
            self.run("update-index", "--add", "--remove", "-z", "--stdin", env=env, cwd=self.toplevel,
                     input=b"".join(p.encode() + b"\x00" for p in from_disk))
        return str(tmp), sig

    def _index_signature(self) -> tuple | None:
        try:
            st = os.stat(self.git_dir / "index")
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns)

    def _copy_index(self, tmp: Path) -> tuple | None:
        """Copy git's index to ``tmp`` (without index.lock); returns the signature of the copied
        index (None: there is none), which must be unchanged when the copy is installed."""
        sig = self._index_signature()
        try:
            shutil.copyfile(self.git_dir / "index", tmp)
        except FileNotFoundError:
            tmp.unlink(missing_ok=True)
            return None
        return sig if self._index_signature() == sig else (0,)  # (0,): written meanwhile, never matches

    def _land(self, branch: str, commit: str, parent: str | None, staged: tuple[str, tuple | None],
              reflog: str, who: Identity, warnings: list[str] | None) -> bool:
        """Under git's index.lock: check HEAD and the index, move ``branch`` from ``parent`` to
        ``commit``, install the prepared index. False: not landed, try again (index.lock held,
        the index or the branch changed meanwhile); HeadMovedError: HEAD left ``branch``."""
        lock = self.git_dir / "index.lock"
        tmp, sig = staged
        record = self._take_lock(lock, self.git_dir, f"vault-mem pid {os.getpid()} ({this_command()})\n".encode())
        if record is None:
            return False  # a person's git command is under way: it finishes first
        try:
            checkpoint("holding-index-lock", self.git_dir)
            if self.head_said() != f"ref: {branch}":
                raise HeadMovedError(
                    f"HEAD moved off {branch.removeprefix('refs/heads/')} while vault-mem was writing "
                    "(a git checkout?); nothing was written: retry on a branch")
            if self._index_signature() != sig:
                return False  # someone wrote the index since it was copied: copy it again
            if self._marked_commit() is not None or running_git(
                    self.toplevel, _BRANCH_MOVING | _WORKTREE_CHANGING, first=True):
                return False  # a person's git commit (or checkout, pull, ...) started meanwhile: it goes first
            if not self._swap_ref(branch, commit, parent, who, reflog):
                return False  # the branch moved (a tool that takes no index.lock): rebuild on it
            try:  # landed: whatever fails from here on is a warning, never a failed write
                if Path(tmp).exists():
                    os.replace(tmp, self.git_dir / "index")  # while index.lock is held: git's rule
            except OSError as exc:
                if warnings is not None:
                    warnings.append(f"committed, but git's staging area was not updated ({exc}); "
                                    "`git status` may show the write as a change: run `git reset -q`")
            return True
        finally:
            gitlocks.release(lock, record)

    def sync_index(self, paths: list[str]) -> None:
        """Make git's staging area match the work tree for just ``paths`` (top-level relative).

        ``git update-index`` runs on a copy of the index, which is installed under an index.lock
        of vault-mem's own (:mod:`~vault_mem.store.gitlocks`): a kill at any moment leaves no
        lock that only a person could remove."""
        if not paths:
            return
        data = b"\x00".join(p.encode() for p in paths) + b"\x00"

        def attempt() -> None:
            tmp = gitlocks.index_copy(self.git_dir)
            try:
                sig = self._copy_index(tmp)
                self.run("update-index", "--add", "--remove", "-z", "--stdin", input=data,
                         env={"GIT_INDEX_FILE": str(tmp)}, cwd=self.toplevel)
                if not self._install_index(tmp, sig):
                    raise _IndexLocked("index.lock is held, or the index changed meanwhile")
            finally:
                tmp.unlink(missing_ok=True)

        self._while_index_locked(attempt)

    def _install_index(self, tmp: Path, sig: tuple | None) -> bool:
        """Put the prepared index ``tmp`` in place of git's index, under vault-mem's own
        index.lock, if the index is still the one copied; False: try again."""
        lock = self.git_dir / "index.lock"
        record = self._take_lock(lock, self.git_dir, f"vault-mem pid {os.getpid()} ({this_command()})\n".encode())
        if record is None:
            return False
        try:
            if self._index_signature() != sig:
                return False
            os.replace(tmp, self.git_dir / "index")
            return True
        finally:
            gitlocks.release(lock, record)


#: git commands that read HEAD at their start and move the branch at their end
_BRANCH_MOVING = frozenset({"commit", "merge", "revert", "cherry-pick", "am", "rebase"})
#: git options that take a separate value before the command name
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})


#: git commands that change the work tree or the branch a person has checked out
_WORKTREE_CHANGING = frozenset({"pull", "rebase", "checkout", "switch", "merge", "stash", "reset",
                                "am", "cherry-pick", "revert", "restore"})
#: git commands that delete or move objects: an object no ref names yet may go
_MAINTENANCE = frozenset({"gc", "repack", "prune", "prune-packed", "maintenance"})
#: how long a landed commit waits for such a command, started before it landed, to end
_MAINTENANCE_WAIT_S = 5.0


def running_git_commit(toplevel: Path) -> int | None:
    """The pid of a running git process whose command is one of _BRANCH_MOVING and whose
    working directory is inside ``toplevel``, or None (also where there is no /proc)."""
    found = running_git(toplevel, _BRANCH_MOVING, first=True)
    return found[0] if found else None


def running_git(toplevel: Path, commands: frozenset[str], *, first: bool = False) -> list[int]:
    """The pids of running git processes whose command is one of ``commands`` and whose working
    directory is inside ``toplevel`` ([] also where there is no /proc); ``first``: stop at one."""
    found: list[int] = []
    try:
        entries = os.scandir("/proc")
    except OSError:
        return found
    me = os.getpid()
    with entries:
        for entry in entries:
            if not entry.name.isdigit() or int(entry.name) == me:
                continue
            try:
                with open(f"/proc/{entry.name}/comm", "rb") as fh:
                    if fh.read(4) != b"git\n":
                        continue
                with open(f"/proc/{entry.name}/cmdline", "rb") as fh:
                    argv = fh.read(4096).split(b"\0")
                cwd = Path(os.readlink(f"/proc/{entry.name}/cwd"))
            except OSError:
                continue
            if _git_command(argv) in commands and (cwd == toplevel or cwd.is_relative_to(toplevel)):
                found.append(int(entry.name))
                if first:
                    break
    return found


def _command_of(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return _git_command(fh.read(4096).split(b"\0"))
    except OSError:
        return None


def _git_command(argv: list[bytes]) -> str | None:
    """The command name in a git command line (``git -C x commit -m y`` → ``commit``)."""
    skip = False
    for raw in argv[1:]:
        arg = raw.decode("utf-8", "replace")
        if skip:
            skip = False
        elif arg in _GIT_VALUE_OPTIONS:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def _read_nofollow(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()


def _plain_path(path: str) -> bool:
    """Whether ``<tree>:<path>`` means just that path to cat-file and GitPython's reply parser
    (no whitespace, no "./" or "../" that git would resolve against the current folder)."""
    return (path not in (".", "..") and not path.startswith(("./", "../"))
            and not any(c.isspace() for c in path))


