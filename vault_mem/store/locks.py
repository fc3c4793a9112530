"""Inter-process locks under ``.vault-mem/``: the vault's write lock and the daemon's lock.

Both are ``flock`` locks on files that are never deleted: the kernel drops a lock when its
process dies, so a killed writer or daemon can never leave a stale lock behind. The pid written
inside is only for messages.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from pathlib import Path
from typing import Self

from vault_mem.errors import LockTimeoutError, StateError, VaultMemError
from vault_mem.store.files import PRIVATE_FILE, open_nofollow, read_own

WRITE_LOCK = "write.lock"
DAEMON_LOCK = "daemon.lock"


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
        deadline = time.monotonic() + self.timeout
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
                if not blocking:
                    os.close(fd)
                    return False
                if time.monotonic() >= deadline:
                    os.close(fd)
                    holder = read_pid(self.path)
                    who = f" (held by pid {holder})" if holder else ""
                    raise LockTimeoutError(
                        f"{self.what} stayed held for {self.timeout:.0f} s{who}; "
                        "another vault-mem process is busy: retry, or stop it if it hangs"
                    ) from None
                time.sleep(delay)
                delay = min(delay * 2, 0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        self._depth = 1
        return True

    def release(self) -> None:
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def read_pid(path: Path) -> int | None:
    """The pid last written into a lock file, if any."""
    try:
        text = (read_own(Path(path), max_bytes=64) or b"").decode().strip()
        return int(text) if text else None
    except (OSError, ValueError, VaultMemError):
        return None


def lock_holder(path: Path) -> int | None:
    """The pid holding ``path``'s lock right now, or None when nobody holds it."""
    try:
        fd = open_nofollow(Path(path), os.O_RDONLY)
    except FileNotFoundError:
        return None
    except VaultMemError:
        return None  # a link is nobody's lock (and is refused by whoever would take it)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return read_pid(path) or -1
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def daemon_pid(state_dir: Path) -> int | None:
    """The running daemon's pid for this vault, or None (a dead daemon's file does not count)."""
    return lock_holder(Path(state_dir) / DAEMON_LOCK)
