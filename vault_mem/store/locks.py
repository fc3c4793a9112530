"""Inter-process locks under ``.vault-mem/``: the vault's write lock and the daemon's lock; and
who a process is (:func:`process_start`, :func:`owner_gone`), for the git lock files vault-mem
creates (:mod:`vault_mem.store.gitlocks`).

Both locks are ``flock`` locks on files that are never deleted: the kernel drops a lock when its
process dies, so a killed writer or daemon can never leave a stale lock behind. The pid and the
command written inside are only for messages: a wait longer than :data:`SAY_WAITING_AFTER_S`
is logged as "waiting for ... held by pid N (command)".
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Self

from vault_mem.errors import LockTimeoutError, StateError, VaultMemError
from vault_mem.platform import locking
from vault_mem.platform.logs import Logger
from vault_mem.platform.procs import GONE, process_start, same_start
from vault_mem.platform.procs import pid_exists  # the store's modules ask here too
from vault_mem.store.files import PRIVATE_FILE, open_nofollow, read_own

WRITE_LOCK = "write.lock"
#: held with the write lock, except while its holder's write waits for a person's git command
#: (:class:`WriteLock`): the daemon's work on the other files then runs beside it
WORK_LOCK = "write-work.lock"
DAEMON_LOCK = "daemon.lock"
#: the third line of ``write.lock`` while its holder waits for git with the work part given up
ASIDE = "aside"
#: a wait for a lock longer than this is said (logged), with what holds it
SAY_WAITING_AFTER_S = 2.0

log = Logger("vault_mem.store.locks")  # logging imported at the first message (start-up time)
_command: str | None = None


class FileLock:
    """An exclusive ``flock`` on ``path``, re-entrant within one object.

    >>> with FileLock(state_dir / "write.lock", timeout=30): ...
    """

    def __init__(self, path: Path, *, timeout: float = 60.0, what: str = "the vault's write lock"):
        self.path = Path(path)
        self.timeout = timeout
        self.what = what
        self._fd: int | None = None
        self._depth = 0

    def acquire(self, *, blocking: bool = True) -> bool:
        if self._fd is not None:
            self._depth += 1
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:  # never through a link (DESIGN §7): a planted symlink must not pick the file we lock
            fd = open_nofollow(self.path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
        except OSError as exc:
            if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
                raise StateError(f"cannot open {self.path} ({exc.strerror}); make {self.path.parent} and "
                                 "the files in it writable for you and retry") from None
            if exc.errno in (errno.ENOTDIR, errno.EEXIST):
                raise StateError(f"cannot open {self.path} ({exc.strerror}): {self.path.parent} must be "
                                 "a folder; move away the file in its place and retry") from None
            raise
        start = time.monotonic()
        deadline = start + self.timeout
        said = False
        delay = 0.002
        while True:
            try:
                if locking.try_lock(fd):
                    break
            except OSError:
                os.close(fd)
                raise
            if not blocking:
                os.close(fd)
                return False
            if time.monotonic() >= deadline:
                os.close(fd)
                raise LockTimeoutError(
                    f"{self.what} stayed held for {self.timeout:.0f} s{self._holder()}; "
                    "another vault-mem process is busy: retry, or stop it if it hangs"
                ) from None
            if not said and time.monotonic() - start >= SAY_WAITING_AFTER_S:
                said = True
                log.warning("vault-mem: waiting for %s%s (up to %.0f s)", self.what, self._holder(),
                            self.timeout)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        # written over the old text, then cut to its length: a file cut to nothing and written
        # again makes ext4 flush its blocks at once (auto_da_alloc), 1-8 ms of waiting per lock
        # taken here (every read's reconcile and every write takes it); readers take two lines
        said_now = f"{os.getpid()}\n{this_command()}\n".encode()
        os.pwrite(fd, said_now, 0)
        os.ftruncate(fd, len(said_now))
        self._fd = fd
        self._depth = 1
        return True

    @property
    def held(self) -> bool:
        """Whether this object holds the lock now (a re-entrant caller's question)."""
        return self._fd is not None

    def _holder(self) -> str:
        pid, command = read_holder(self.path)
        return f", held by pid {pid} ({command or 'vault-mem'})" if pid else ""

    def release(self) -> None:
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        try:
            locking.unlock(fd)
        finally:
            os.close(fd)

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class WriteLock(FileLock):
    """The vault's write lock, in two parts: ``write.lock``, held for a whole write, and
    ``write-work.lock`` (the work tree and INDEX.md), taken with it and given up only while the
    write waits for a person's git command to end before its commit lands
    (:meth:`stepped_aside`). Meanwhile the daemon may take the work part alone
    (:meth:`acquire_or_beside`) to catch up with the other files: put back what a person's
    ``git stash pop`` brought back, re-render INDEX.md. Waiting for the whole lock there, the
    daemon waited for the person's git command too, and the person's ``git checkout`` was
    refused for those files for as long as they retried (RELIABILITY.md). No other writer
    gets in meanwhile: ``write.lock`` stays held."""

    def __init__(self, path: Path, *, timeout: float = 60.0, what: str = "the vault's write lock"):
        super().__init__(path, timeout=timeout, what=what)
        self.work = FileLock(Path(path).with_name(WORK_LOCK), timeout=timeout,
                             what=f"{what} (its work-tree part, held by the daemon's catching up)")
        self._aside = False

    def acquire(self, *, blocking: bool = True) -> bool:
        if not super().acquire(blocking=blocking):
            return False
        if self._depth == 1:
            try:
                # held by the daemon only while it catches up beside a write that waits for git;
                # that write killed or given up meanwhile leaves write.lock free and this part
                # held: a caller that must not wait (a read, the pre-commit hook) is told no
                if not self.work.acquire(blocking=blocking):
                    super().release()
                    return False
            except BaseException:
                super().release()
                raise
        return True

    def release(self) -> None:
        if self._fd is not None and self._depth == 1:
            self.work.release()
            self._aside = False
        super().release()

    @contextlib.contextmanager
    def stepped_aside(self) -> Iterator[None]:
        """For a holder that waits for a person's git command and touches no file meanwhile:
        the work part is given up for the block and taken back at its end (the daemon's catching
        up, if under way, finishes first); ``write.lock`` stays held. The holder checks again
        afterwards what it relies on (HEAD, git's index, the files)."""
        if self._fd is None or self._aside:
            yield
            return
        self._aside = True
        self._say(ASIDE)  # before the part is free: the daemon works beside only a holder that says so
        self.work.release()
        try:
            yield
        finally:
            self.work.acquire()
            self._aside = False
            self._say()

    def _say(self, *more: str) -> None:
        """Write who holds the lock (and ``more`` lines) into its file, as :meth:`acquire` does."""
        said_now = "".join(f"{line}\n" for line in (str(os.getpid()), this_command(), *more)).encode()
        os.pwrite(self._fd, said_now, 0)
        os.ftruncate(self._fd, len(said_now))

    def acquire_or_beside(self) -> bool:
        """Take the whole lock (True), or, while its holder waits for git with the work part
        given up (:meth:`stepped_aside`), that part alone (False: release it with
        ``self.work.release()``; the holder's files are its own, named in its journal). Waits,
        saying so after :data:`SAY_WAITING_AFTER_S`, up to the timeout."""
        start = time.monotonic()
        said = False
        delay = 0.002
        while True:
            if self.acquire(blocking=False):
                return True
            if self.work.acquire(blocking=False):
                # write.lock held, the work part not, and its holder says it waits for git (a
                # holder between its two parts, or of an older vault-mem, says nothing: waited for)
                if lock_holder(self.path) is not None and _said_aside(self.path):
                    return False
                self.work.release()
            if time.monotonic() - start >= self.timeout:
                raise LockTimeoutError(
                    f"{self.what} stayed held for {self.timeout:.0f} s{self._holder()}; "
                    "another vault-mem process is busy: retry, or stop it if it hangs")
            if not said and time.monotonic() - start >= SAY_WAITING_AFTER_S:
                said = True
                log.warning("vault-mem: waiting for %s%s (up to %.0f s)", self.what, self._holder(), self.timeout)
            time.sleep(delay)
            delay = min(delay * 2, 0.05)


def _said_aside(path: Path) -> bool:
    """Whether the holder of the write lock at ``path`` says it waits with the work part given up.
    The words of a writer killed while it waited stay in the file until the next holder writes
    its own: one that took the lock and has not yet (an older vault-mem, which never takes the
    work part, between its ``flock`` and its write) is not worked beside, the pid said being gone."""
    try:
        lines = (read_own(Path(path), max_bytes=256) or b"").decode().splitlines()
        pid = int(lines[0]) if lines else 0
    except (OSError, ValueError, UnicodeDecodeError, VaultMemError):
        return False
    return len(lines) > 2 and lines[2].strip() == ASIDE and pid > 0 and pid_exists(pid)


def read_pid(path: Path) -> int | None:
    """The pid last written into a lock file, if any."""
    return read_holder(path)[0]


def read_holder(path: Path) -> tuple[int | None, str]:
    """(pid, command) last written into a lock file: ``(None, "")`` when it says nothing."""
    try:
        lines = (read_own(Path(path), max_bytes=256) or b"").decode().splitlines()
        return (int(lines[0]) if lines and lines[0].strip() else None), (lines[1].strip() if len(lines) > 1 else "")
    except (OSError, ValueError, UnicodeDecodeError, VaultMemError):
        return None, ""


def lock_holder(path: Path) -> int | None:
    """The pid holding ``path``'s lock right now, or None when nobody holds it."""
    try:
        fd = open_nofollow(Path(path), os.O_RDONLY)
    except FileNotFoundError:
        return None
    except VaultMemError:
        return None  # a link is nobody's lock (and is refused by whoever would take it)
    try:
        if not locking.try_lock(fd, shared=True):
            return read_pid(path) or -1
        locking.unlock(fd)
        return None
    except OSError:
        return read_pid(path) or -1
    finally:
        os.close(fd)


def daemon_pid(state_dir: Path) -> int | None:
    """The running daemon's pid for this vault, or None (a dead daemon's file does not count)."""
    return lock_holder(Path(state_dir) / DAEMON_LOCK)


# -- who a process is --------------------------------------------------------------------------
def name_this_process(command: str) -> None:
    """Say what this process is doing (``remember``, ``daemon``, ...): lock files and waiting
    messages name it."""
    global _command
    _command = command


def this_command() -> str:
    """What this process said it does (:func:`name_this_process`), else its program's name;
    only letters, digits and dashes (it goes into file names)."""
    raw = _command or os.path.basename(sys.argv[0] if sys.argv and sys.argv[0] else "") or "python"
    return re.sub(r"[^A-Za-z0-9-]+", "-", raw).strip("-")[:32] or "python"


def this_host() -> str:
    """A short, file-name-safe mark of this machine: a pid means nothing on another one."""
    return hashlib.sha1(_host_name().encode("utf-8", "replace")).hexdigest()[:8]


def owner_gone(pid: int, start: str | None, host: str) -> bool | None:
    """Whether the process that wrote (``pid``, ``start``, ``host``) has ended: True (gone, or
    its pid now belongs to another process), False (still running), None (cannot tell: another
    machine, or a system without process start times)."""
    if host != this_host():
        return None
    now = process_start(pid)
    if now == GONE:
        return True
    same = same_start(start, now)
    return None if same is None else not same


def _host_name() -> str:
    """``socket.gethostname()``: on POSIX the kernel's node name, which ``os.uname`` gives without
    importing ``socket`` (~4 ms of every one-shot command's start)."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()
