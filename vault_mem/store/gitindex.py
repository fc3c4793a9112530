"""git's staging area (the index) for the git store, changed without holding ``index.lock`` long.

Part of :class:`~vault_mem.store.git.GitRepo`. ``git update-index`` runs on a copy of the index
(``GIT_INDEX_FILE``); the copy is installed by a rename while vault-mem holds ``index.lock`` for a
few system calls, and only if the index is still the one copied. The "copy" is a second name of
the index file (a hard link) where the file system allows one: git never writes an index in
place (it writes ``<name>.lock`` and renames it over the name), so the index itself is never
changed through it, and a 13 MB index (100k memories) is not copied per write. git refuses to work while
another git holds ``index.lock``: vault-mem waits for it instead (``INDEX_LOCK_WAIT_S``).

A process's later writes make the new index in process instead, from the index it parsed
before (:mod:`~vault_mem.store.gitindexfile`: what ``git update-index`` would write, or nothing,
and git does it): at 100k memories git's rewrite took ~58 ms of CPU per write. The new index is
written to a file of its own and installed the same way, under the same lock and checks.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, TypeVar

from vault_mem.errors import GitError, LockTimeoutError
from vault_mem.platform import settle  # a file's stat stamp
from vault_mem.platform.logs import Logger
from vault_mem.store import gitlocks
from vault_mem.store.gitindexfile import GID, INO, MODE, MTIME_S, SIZE, STAGE, UID, IndexFile, entries, stat_matches, u32
from vault_mem.store.gitobjects import BLOB_MODE, ZERO_OID
from vault_mem.store.locks import SAY_WAITING_AFTER_S, this_command

#: git refuses to work while another git holds index.lock; we wait this long for it instead of failing
INDEX_LOCK_WAIT_S = 30.0

_T = TypeVar("_T")

#: up to this many paths, a commit's staging is one ``git update-index`` with the paths as arguments
_ONE_PROCESS_PATHS = 64
#: git's words when a ``git gc``/``git prune`` removed an empty object folder (``objects/ab/``)
#: between git's mkdir of it and its temp file or rename there ("unable to create temporary
#: file: No such file or directory", "unable to write file .git/objects/ab/...: No such file or
#: directory", then "failed to insert into database"): git's own race, worth another try
_FOLDER_PRUNED = ("No such file or directory", "failed to insert into database")

#: :meth:`GitIndex._stat_data_stale` compares the files of this many of the index's first entries
_STALE_SAMPLE = 16
#: ... and takes git's stat data for stale when this many of them hold their recorded size and
#: mtime under another inode or owner (a ``cp -a`` copy, a restore, ``chown -R``)
_STALE_MIN = 3

#: per git folder, the index this process parsed or made last, keyed by its file's signature
#: (inode, mtime, size): shared by every GitRepo of the repository in this process (two vaults of
#: one repository, a Vault and its daemon's keeper), one copy each (~32 MB at 100k memories)
_PARSED: dict[Path, tuple[tuple, IndexFile | None]] = {}

# the git store's one logger (shared by its modules)
log = Logger("vault_mem.store.git")  # logging imported at the first message (start-up time)


class PreparedIndex(NamedTuple):
    """A copy of git's index with a write's blobs staged, made without index.lock
    (:meth:`GitIndex._prepare_index`), for :meth:`GitIndex.install_prepared_index` to put in place."""

    #: the file (the caller removes it when it is not installed)
    path: Path
    #: the signature of the index it was made from (:func:`index_file_signature`; None: there was none),
    #: which must still be in place when it is installed
    signature: tuple | None
    #: the index as made in process (kept as this process's parse of it once installed); None:
    #: ``git update-index`` made it (parsed when needed)
    made: IndexFile | None


class _IndexLocked(Exception):
    """Another git holds index.lock (internal: retried by ``_while_index_locked``)."""


class GitIndex:
    """The index part of :class:`~vault_mem.store.git.GitRepo`: git's staging area and its lock."""

    toplevel: Path
    git_dir: Path
    common_dir: Path

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
                if time.monotonic() > start + INDEX_LOCK_WAIT_S:
                    raise LockTimeoutError(
                        f"git's index.lock in {self.git_dir} stayed held for {INDEX_LOCK_WAIT_S:.0f} s, "
                        f"{self._index_lock_holder()}; nothing was written"
                    ) from None
                said = self.say_waiting(start, said)
            time.sleep(delay)
            delay = min(delay * 2, 0.2)

    def _index_lock_holder(self) -> str:
        return gitlocks.describe_holder(self.git_dir / "index.lock", self.git_dir, self.common_dir)

    def say_waiting(self, start: float, said: bool) -> bool:
        """Log once, after a few seconds of waiting for index.lock, who holds it; True once said."""
        if said or time.monotonic() - start < SAY_WAITING_AFTER_S:
            return said
        if (self.git_dir / "index.lock").exists():
            log.warning("vault-mem: waiting for git's index.lock in %s, %s (up to %.0f s)",
                        self.git_dir, self._index_lock_holder(), INDEX_LOCK_WAIT_S)
        else:
            log.warning("vault-mem: waiting to commit: %s keeps moving (another git writing?), up to %.0f s",
                        self.head_branch() or "the branch", INDEX_LOCK_WAIT_S)
        return True

    def index_locked(self) -> bool:
        """Whether another git holds ``index.lock`` right now (one a killed vault-mem process
        left is removed first: see :meth:`clear_dead_locks`)."""
        lock = self.git_dir / "index.lock"
        if lock.exists():
            self._cleared_dead_locks()
        return lock.exists()

    def sync_index(self, paths: list[str]) -> None:
        """Make git's staging area match HEAD for just ``paths`` (top-level relative), with the
        work tree's stat recorded where the file holds HEAD's bytes (so ``git status`` needs no
        re-hash): what a sync, a recovery or a write with nothing to commit leaves behind.

        Objects before names: only blobs HEAD holds are staged. A path whose work-tree bytes
        differ from HEAD's (INDEX.md listing a person's uncommitted memory, a person's edit)
        gets HEAD's blob, and stays an unstaged change, as ``git status`` showed it; staged from
        the work tree, its blob was written by ``git update-index`` into an index copy that no
        ``git prune`` reads, named by nothing, and a ``git prune --expire=now`` in between
        removed it: the index then named a missing blob and the person's next commit failed.

        ``git update-index`` runs on a copy of the index, which is installed under an index.lock
        of vault-mem's own (:mod:`~vault_mem.store.gitlocks`): a kill at any moment leaves no
        lock that only a person could remove."""
        if not paths:
            return
        committed = self.blobs_at(self.head(), paths)

        def attempt() -> None:
            tmp = gitlocks.index_copy(self.git_dir)
            try:
                sig = self._copy_index(tmp)
                from_disk = [p for p in paths if committed[p] is not None and self._disk_blob(p) == committed[p]]
                if from_disk:
                    self._update_index("--add", "--remove", "-z", "--stdin", index=tmp,
                                       input=b"".join(p.encode() + b"\x00" for p in from_disk))
                    # a save between the compare above and git's read: that blob is named by
                    # nothing either, so HEAD's is staged instead
                    staged = self._staged_blobs(tmp, from_disk)
                    from_disk = [p for p in from_disk if staged.get(p) == committed[p]]
                rest = [p for p in paths if p not in from_disk]
                if rest:
                    info = "".join(f"{BLOB_MODE:o} {committed[p]}\t{p}\n" if committed[p] else f"0 {ZERO_OID}\t{p}\n"
                                   for p in rest)
                    self._update_index("--index-info", input=info.encode(), index=tmp)
                if not self._install_index(tmp, sig):
                    raise _IndexLocked("index.lock is held, or the index changed meanwhile")
            finally:
                tmp.unlink(missing_ok=True)

        self._while_index_locked(attempt)

    def _disk_blob(self, path: str) -> str | None:
        """The blob id of the work tree's file at ``path`` (never through a link), or None."""
        try:
            return self.blob_id(_read_nofollow(self.toplevel / path))
        except OSError:
            return None

    def _staged_blobs(self, index: Path, paths: list[str]) -> dict[str, str]:
        """{path: blob id} of ``paths`` in the index file ``index`` (stage 0)."""
        out = self.run("ls-files", "-s", "-z", "--", *paths, binary=True, cwd=self.toplevel,
                       env={"GIT_INDEX_FILE": str(index), "GIT_LITERAL_PATHSPECS": "1"})
        staged = {}
        for entry in out.split(b"\x00"):
            meta, _, path = entry.partition(b"\t")
            fields = meta.split()
            if len(fields) == 3 and fields[2] == b"0":
                staged[path.decode("utf-8", "surrogateescape")] = fields[1].decode()
        return staged

    def _prepare_index(self, blobs: dict[str, str | None]) -> PreparedIndex:
        """A copy of git's index with ``blobs`` staged, made without taking index.lock. A path
        whose work-tree file holds the committed bytes is staged from the file (git records its
        stat), others as the blob itself (INDEX.md of a commit that leaves a person's edits out,
        a deletion)."""
        tmp = gitlocks.index_copy(self.git_dir)
        try:
            return PreparedIndex(tmp, *self._stage_on(tmp, blobs))
        except BaseException:
            # (a failed git update-index: a corrupt index, a full disk; the name is no one's
            # once this returns: left, it kept the index it named alive for as long as this
            # process ran, one per failed write of a long-lived one, e.g. a daemon's retries)
            tmp.unlink(missing_ok=True)
            raise

    def _stage_on(self, tmp: Path, blobs: dict[str, str | None]) -> tuple[tuple | None, IndexFile | None]:
        """:meth:`_prepare_index`'s work on the index's second name ``tmp``: (the signature of the
        index it was made from, the index made in process or None: git made it)."""
        made = self._stage_in_process(tmp, blobs)
        self._index_warm = True
        if made is not None:
            return made
        sig = self._copy_index(tmp)
        if self._stat_data_stale():
            # git's stat data is a copy's (``cp -a``, a restore): every `git status` re-hashes
            # every file it no longer matches, and a write's own never writes the refresh back
            # (GIT_OPTIONAL_LOCKS=0), so every write paid it. Refreshed here, in the copy that
            # is installed under vault-mem's lock as ever: stat data only, nothing is staged
            # (a changed file keeps its entry; -q: not an error)
            self._update_index("-q", "--refresh", input=b"", index=tmp)
        from_disk, as_blob = [], []
        for path, oid in blobs.items():
            disk = None
            if oid is not None:
                try:
                    disk = _read_nofollow(self.toplevel / path)
                except OSError:
                    disk = None
            (from_disk if disk is not None and self.blob_id(disk) == oid else as_blob).append(path)
        # A path staged from disk is first staged as its blob too, in the same git process: git
        # keeps an entry marked assume-unchanged (a person's `update-index --assume-unchanged`,
        # every file git stages under `core.ignoreStat`) whatever the file holds, so the
        # staging area kept the memory's older text under the new commit and the person's next
        # commit put it back; staged as the blob first, the entry is the write's, and the file
        # then gives it its stat data (tests/test_gitindexfile_attacks.py)
        if from_disk and all(blobs[p] for p in as_blob) and len(blobs) <= _ONE_PROCESS_PATHS:
            # a write's usual case (its file from disk, INDEX.md as the committed blob): one git
            # process, the blobs as --cacheinfo before the paths (--index-info and --stdin each
            # must come last, so they take two)
            args = [a for p in [*as_blob, *from_disk] for a in ("--cacheinfo", f"{BLOB_MODE:o},{blobs[p]},{p}")]
            self._update_index("--add", "--remove", *args, "--", *from_disk, input=b"", index=tmp)
            return sig, None
        if as_blob or from_disk:
            info = "".join(f"{BLOB_MODE:o} {blobs[p]}\t{p}\n" if blobs[p] else f"0 {ZERO_OID}\t{p}\n"
                           for p in [*as_blob, *from_disk])
            self._update_index("--index-info", input=info.encode(), index=tmp)
        if from_disk:
            self._update_index("--add", "--remove", "-z", "--stdin", index=tmp,
                               input=b"".join(p.encode() + b"\x00" for p in from_disk))
        return sig, None

    def _stage_in_process(self, tmp: Path, blobs: dict[str, str | None]) -> tuple[tuple, IndexFile] | None:
        """The new index written to ``tmp`` by :mod:`~vault_mem.store.gitindexfile` from the index
        this process parsed before (keyed by its signature: the file is the one parsed), as git
        would write it; returns (the signature of the index it was made from, the new index). None: ``git
        update-index`` makes it (a process's first write, which a one-shot command makes alone,
        pays no parse: that costs about what git does; an index this writer leaves to git; git's
        stat data stale, which git refreshes)."""
        sig = self.index_signature()
        if sig is None:
            return None
        cached = _PARSED.get(self.git_dir)
        if cached is None or cached[0] != sig:
            if not getattr(self, "_index_warm", False) or (cached is not None and cached[1] is None):
                return None  # a first write; an index in a format left to git: for this process's life
            try:
                with open(self.git_dir / "index", "rb") as fh:
                    data = fh.read()
            except OSError:
                return None
            if self.index_signature() != sig:
                return None  # replaced while read: git's turn
            cached = (sig, IndexFile.parse(data, _seconds(sig),
                                           like=cached[1] if cached is not None else None))
            _PARSED[self.git_dir] = cached  # None kept too: git's index format is not parsed again
        parsed = cached[1]
        if parsed is None or self._stat_data_stale():
            return None
        changes: dict[str, tuple[str | None, os.stat_result | None]] = {}
        for path, oid in blobs.items():
            changes[path] = (oid, self._stat_if_holds(path, oid) if oid is not None else None)
        new = parsed.staged(changes, os.fsencode(self.toplevel), _seconds(sig))
        if new is None:
            return None
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
        try:
            with contextlib.suppress(OSError):  # the index's own mode (core.sharedRepository's group bits)
                os.fchmod(fd, stat.S_IMODE(os.stat(self.git_dir / "index").st_mode))
            new.write(fd)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        finally:
            os.close(fd)
        return sig, new

    def _stat_if_holds(self, path: str, oid: str) -> os.stat_result | None:
        """The ``lstat`` of the work tree's file ``path`` when it holds the blob ``oid`` and did not
        change while read (the stat data git records for it); None: stage it as the blob alone."""
        full = self.toplevel / path
        try:
            before = os.lstat(full)
            if not stat.S_ISREG(before.st_mode) or self.blob_id(_read_nofollow(full)) != oid:
                return None
            after = os.lstat(full)
        except OSError:
            return None
        return after if settle.stamp(before) == settle.stamp(after) else None

    def install_prepared_index(self, prepared: PreparedIndex) -> None:
        """Put the ``prepared`` index in place of git's index (the caller holds index.lock and
        checked the index is the one it was made from); an index made in process is kept as this
        process's parse of it."""
        sig = index_file_signature(prepared.path)  # a rename keeps all of it
        os.replace(prepared.path, self.git_dir / "index")
        if prepared.made is not None and sig is not None:  # else git's update-index made it: parsed when needed
            prepared.made.after_written(_seconds(sig))
            _PARSED[self.git_dir] = (sig, prepared.made)

    def _stat_data_stale(self) -> bool:
        """Whether git's index records stat data the files no longer have though they were not
        changed: of its first :data:`_STALE_SAMPLE` regular-file entries, :data:`_STALE_MIN` or
        more whose file has the recorded size and mtime (seconds: a build of git may compare no
        finer) under another inode or owner. A few small reads: the head of the index (version
        2 or 3; any other, or anything unreadable, says no) and an ``lstat`` per entry. An edit
        moves the mtime, so a person's edits never count. Only what git compares by default
        and a refresh therefore rewrites (not the device, nor the change time, which
        ``core.trustctime=false`` leaves out): stale data a refresh would not change would
        otherwise be refreshed at every write. Not seen: a copy whose mtimes moved too (``cp``
        without ``-a``), which git's own status then re-hashes as before."""
        try:
            with open(self.git_dir / "index", "rb") as fh:
                head = fh.read(8192)
        except OSError:
            return False
        if len(head) < 12 or head[:4] != b"DIRC" or u32(head, 4) not in (2, 3):
            return False
        top, stale = os.fsencode(self.toplevel), 0
        for at, flags, name in entries(head, min(u32(head, 8), _STALE_SAMPLE)):
            if not stat.S_ISREG(u32(head, at + MODE)) or flags & STAGE:  # a link, a submodule, a conflict stage
                continue
            try:
                st = os.lstat(os.path.join(top, name))
            except OSError:
                continue
            if stat_matches(head, at, st, SIZE, MTIME_S) and not stat_matches(head, at, st, INO, UID, GID):
                stale += 1
        return stale >= _STALE_MIN

    def _update_index(self, *args: str, input: bytes, index: Path) -> None:
        """``git update-index args`` on the index copy ``index``. It stores the files it adds as
        objects; a ``git gc``/``prune`` running meanwhile can remove the empty object folder it
        is writing into (it fails: ``_FOLDER_PRUNED``): tried again, as :meth:`write_object`
        does in process, instead of failing the write (seen under a looping ``git gc``)."""
        for attempt in range(5):
            proc = self.run("update-index", *args, input=input, env={"GIT_INDEX_FILE": str(index)},
                            cwd=self.toplevel, check=False)
            if proc.returncode == 0:
                return
            err = proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
            if not all(words in err for words in _FOLDER_PRUNED) or attempt == 4:
                raise GitError(f"git update-index failed: {err}")

    def index_signature(self) -> tuple | None:
        """Which index file is in place (:func:`index_file_signature`); None: there is none."""
        return index_file_signature(self.git_dir / "index")

    def _copy_index(self, tmp: Path) -> tuple | None:
        """Give git's index the second name ``tmp`` (a hard link; a copy where the file system
        has no links), without index.lock; returns the signature of the index it names (None:
        there is none), which must be unchanged when ``tmp`` is installed. ``git update-index``
        on ``tmp`` writes a new file and renames it over ``tmp``: the index is never changed
        through its second name, and it is what git reads, times and all (see below).

        A copy keeps the index's modification time. git trusts an entry whose file has the
        size, inode and times it recorded, and this machine's git compares those times to the
        second (a build without nanosecond times); what guards a file rewritten within the same
        second is "racy git": an entry whose time is not older than the index file's own is
        hashed again. A copy stamped with the time it was made (a second boundary passed since
        the index was written) made such an entry trusted: ``update-index --add`` kept the older
        blob of a memory rewritten in place to the same size within a second, the staging area
        then held it under the new file's times, and a person's ``git commit -a`` would have put
        the older memory back (tests/test_gitstore.py, the spliced-trees test, ~1 run in 30)."""
        sig = self.index_signature()
        if sig is None:
            return None
        try:
            os.link(self.git_dir / "index", tmp)
        except FileNotFoundError:
            return None
        except OSError:  # no hard links here (some network and FAT file systems): a copy
            import shutil  # lazy: only where the file system has no hard links (start-up time)

            try:
                shutil.copyfile(self.git_dir / "index", tmp)
            except FileNotFoundError:
                tmp.unlink(missing_ok=True)
                return None
            os.utime(tmp, ns=(sig[1], sig[1]))  # never on the link: that is the index itself
        return sig if self.index_signature() == sig else (0,)  # (0,): replaced meanwhile, never matches

    def _install_index(self, tmp: Path, sig: tuple | None) -> bool:
        """Put the prepared index ``tmp`` in place of git's index, under vault-mem's own
        index.lock, if the index is still the one copied; False: try again."""
        lock = self.git_dir / "index.lock"
        record = self._take_lock(lock, self.git_dir, f"vault-mem pid {os.getpid()} ({this_command()})\n".encode())
        if record is None:
            return False
        try:
            if self.index_signature() != sig:
                return False
            os.replace(tmp, self.git_dir / "index")
            return True
        finally:
            gitlocks.release(lock, record)


def index_file_signature(path: Path) -> tuple | None:
    """Which index file ``path`` is: its inode, modification time (ns), size and trailing SHA-1
    (git's hash of all the rest); None: there is none. Not its change time, which a hard link
    made or removed moves (:meth:`GitIndex._copy_index`): git and every other writer of an index
    replace the file (a new inode), never write it in place. The hash is the content's own: a
    file system gives a freed inode back (ext4: the lowest free one), and its mtime may be
    coarse (a second on ext4 with 128-byte inodes, FAT, some network file systems), so a
    person's `git add` after another one can leave an index of the same inode, mtime and size
    as the one a warm process parsed, with other entries
    (tests/test_gitindexfile_attacks.py). One more read of 20 bytes. An index git wrote with
    ``index.skipHash`` (git 2.40+; set by ``feature.manyFiles`` and Scalar) has 20 zero bytes
    there instead: its content is hashed here (SHA-1 of the rest, as git's trailer would be),
    ~9-14 ms of CPU at 100k entries (12-14 MB), against ~50 ms for the two git processes whose
    answer the signature keeps (:func:`vault_mem.vault.peers.index_marks_kept`) and a whole
    judgement of the peers' memories for :class:`vault_mem.vault.peers.KeptPeers`: cheaper
    than keeping nothing (docs/benchmarks.md, "An index written with index.skipHash")."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        st = os.fstat(fd)
        trailer = os.pread(fd, 20, st.st_size - 20) if st.st_size >= 20 else b""
        if trailer == _SKIPPED_HASH:
            trailer = b"sha1:" + _content_hash(fd, st.st_size - 20)
    finally:
        os.close(fd)
    return (st.st_ino, st.st_mtime_ns, st.st_size, trailer)


#: what git writes in place of an index's trailing hash under ``index.skipHash``
_SKIPPED_HASH = bytes(20)


def _content_hash(fd: int, size: int) -> bytes:
    """The SHA-1 of the first ``size`` bytes of the file open at ``fd``, read in 1 MB steps."""
    sha = hashlib.sha1()
    offset = 0
    while offset < size:
        chunk = os.pread(fd, min(1 << 20, size - offset), offset)
        if not chunk:
            break
        sha.update(chunk)
        offset += len(chunk)
    return sha.digest()


def index_file_read(top: Path, git_dir: str | os.PathLike | None) -> Path | None:
    """The index file git reads for the repository whose work tree is ``top`` (where git is run)
    and whose git folder is ``git_dir``: ``GIT_INDEX_FILE`` when set (git sets it for a commit's
    hooks and for ``git commit PATH``; a person may point it at an index of their own), a
    relative one taken from ``top``; else ``index`` in ``git_dir`` (None: no git folder given,
    and none named)."""
    index = os.environ.get("GIT_INDEX_FILE")
    if index:
        return top / index
    return None if git_dir is None else top / os.path.join(git_dir, "index")


def _seconds(sig: tuple) -> int:
    """The index file's mtime in whole seconds, cut to 32 bits as git's entries hold theirs
    (what git's racy-git check compares them with)."""
    return (sig[1] // 1_000_000_000) & 0xFFFFFFFF


def _read_nofollow(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as fh:
        return fh.read()

