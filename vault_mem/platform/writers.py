"""Whether another process holds a file open for writing (an editor in the middle of an
in-place save).

Linux: the kernel grants a write lease only while no other process has the file open, so the
usual answer costs two system calls; when the lease is refused, ``/proc`` names the writers
(readers, such as an indexer, do not count; nor does this process). Elsewhere (and portable):
``lsof`` names the processes that have the file open for writing, where it is installed (macOS
always has it; a few hundred milliseconds a call); without it None, "cannot tell", said plainly:
the caller's compare alone then decides.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
from pathlib import Path

from vault_mem.platform.kind import LINUX, flavour
from vault_mem.platform.locking import fcntl_module
from vault_mem.platform.programs import which


def leases_native() -> bool:
    """Whether :func:`open_for_writing_elsewhere` can answer here."""
    fcntl = fcntl_module()
    return flavour() == LINUX and fcntl is not None and hasattr(fcntl, "F_SETLEASE")


def open_for_writing_elsewhere(path: Path) -> bool | None:
    """True: another process has ``path`` open for writing; False: none has; None: this system
    (or this file system, or a file of another owner) cannot tell."""
    if not leases_native():
        return _lsof_writers(path)
    fcntl = fcntl_module()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        try:
            # an open elsewhere while the lease is held signals this process: SIGIO by default,
            # whose default action ends it; SIGURG's is to ignore it
            fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_WRLCK)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EBUSY):
                return None  # leases cannot tell here (NFS, FUSE, not the file's owner)
        else:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_UNLCK)
            return False  # no other process has it open
    finally:
        os.close(fd)
    writers = writers_of(st)
    return bool(writers) if writers is not None else True  # open elsewhere, and no /proc to tell


def writers_of(st: os.stat_result) -> list[int] | None:
    """The pids holding the file ``st`` open for writing, from /proc (None: no /proc). Only this
    user's processes can be read, and only they can write a person's memory files."""
    try:
        pids = [p for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return None
    writers = []
    me = str(os.getpid())
    for pid in pids:
        if pid == me:
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                fst = os.stat(f"/proc/{pid}/fd/{fd}")
                if (fst.st_ino, fst.st_dev) != (st.st_ino, st.st_dev):
                    continue
                with open(f"/proc/{pid}/fdinfo/{fd}") as fh:
                    flags = next((int(line.split()[1], 8) for line in fh if line.startswith("flags:")), os.O_RDWR)
            except (OSError, ValueError):
                continue
            if flags & (os.O_WRONLY | os.O_RDWR):
                writers.append(int(pid))
    return writers


def lsof_available() -> bool:
    """Whether ``lsof`` can tell who has a file open, where leases cannot."""
    return which("lsof") is not None


def _lsof_writers(path: Path) -> bool | None:
    """Whether another process has ``path`` open for writing, from ``lsof`` (None without it)."""
    lsof = which("lsof")
    if lsof is None:
        return None
    try:
        proc = subprocess.run([lsof, "-F", "pa", "--", os.fspath(path)], capture_output=True, text=True,
                              timeout=10, check=False, env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return None
    if proc.returncode != 0:  # 1: nobody has it open (or it is gone)
        return False if not proc.stderr.strip() or not os.path.exists(path) else None
    me, pid = os.getpid(), None
    for line in proc.stdout.splitlines():
        if line.startswith("p") and line[1:].isdigit():
            pid = int(line[1:])
        elif line.startswith("a") and pid != me and line[1:2] in ("w", "u"):
            return True
    return False
