"""The stat of every file of a folder, relative to the open folder where the system allows it.

A read without a daemon stats each memory file to see what changed (issue 29: one ``lstat`` per
file is most of a 100k scan). Relative to an open descriptor of the folder (``dir_fd``: Linux,
macOS, the BSDs) the kernel does not walk the vault's path again for each file; elsewhere, or with
``VAULT_MEM_PORTABLE=1``, each file is stat'ed by its full path: the same answers, slower.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

from vault_mem.platform.kind import LINUX, flavour, portable
from vault_mem.platform.programs import program_env, which

__all__ = ["Entry", "folder_entries", "folder_stats", "folder_stats_native", "stat_threads"]

#: a folder of at least this many names per thread is stat'ed by several threads when a core is
#: idle: each ``stat`` lets go of the interpreter's lock while the kernel looks the name up (about
#: half of its cost at 100k files), so one thread's kernel time can overlap another's Python. A
#: smaller folder is not worth a thread's start.
SPLIT_AT = 2048
#: at most this many threads per folder
MAX_THREADS = 2

_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_BY_FD = (os.scandir in os.supports_fd and os.stat in os.supports_dir_fd and os.stat in os.supports_follow_symlinks
          and bool(_O_DIRECTORY))


def folder_stats_native() -> bool:
    """Whether files are stat'ed relative to their open folder here."""
    return _BY_FD and not portable()


def stat_threads(count: int, load: float | None = None) -> int:
    """How many threads stat ``count`` names: one per :data:`SPLIT_AT` names, no more than
    :data:`MAX_THREADS`, and more than one only for the cores the last minute's load (``load``,
    else the system's) left idle besides this thread's. On a busy machine more threads only take
    a bigger share of the same cores from other processes and pay their hand-offs of the
    interpreter's lock (perf42, docs/benchmarks.md: 2 shared cores at load 3-5, CPU +2-6%, wall
    no shorter)."""
    if count < 2 * SPLIT_AT:
        return 1
    try:
        cores = len(os.sched_getaffinity(0))  # honours taskset/cgroup pinning, unlike cpu_count
    except AttributeError:  # macOS, Windows
        cores = os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):  # Windows: no load average
            load = float(cores)  # unknown: one thread, as before
    idle = max(0, round(cores - 1 - load))
    return max(1, min(1 + idle, MAX_THREADS, count // SPLIT_AT))


#: what a folder's scan gives per file: (name, mtime_ns, size)
Entry = tuple[str, int, int]


def _stat_into(fd: int | None, base: str, names: list[str], into: list[Entry]) -> None:
    stat, add = os.stat, into.append
    for name in names:
        try:
            st = stat(name, dir_fd=fd, follow_symlinks=False) if fd is not None else \
                stat(base + name, follow_symlinks=False)
        except FileNotFoundError:
            continue  # vanished while scanning
        add((name, st.st_mtime_ns, st.st_size))


def _stat_split(fd: int | None, base: str, names: list[str], into: list[Entry], parts: int) -> None:
    """:func:`_stat_into` with ``names`` cut in ``parts``: this thread stats the first, one more
    thread each of the others; their answers land in ``into`` in the names' order, and the
    first error any of them met is raised here."""
    step = -(-len(names) // parts)
    outs: list[list[Entry]] = [[] for _ in range(parts - 1)]
    errors: list[BaseException] = []

    def run(part: list[str], out: list[Entry]) -> None:
        try:
            _stat_into(fd, base, part, out)
        except BaseException as exc:  # noqa: BLE001 - raised again by the caller's thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(names[step * i:step * (i + 1)], outs[i - 1]), daemon=True)
               for i in range(1, parts)]
    for t in threads:
        t.start()
    try:
        _stat_into(fd, base, names[:step], into)
    finally:
        for t in threads:
            t.join()  # the folder's descriptor stays open until every thread is done with it
    if errors:
        raise errors[0]
    for out in outs:
        into += out


def folder_stats(folder: Path, wanted: Callable[[str], bool], into: dict[str, tuple[int, int]],
                 prefix: str = "") -> list[str] | None:
    """:func:`folder_entries` as ``into[prefix + name] = (mtime_ns, size)``; returns the names of
    the accepted symbolic links, or None when ``folder`` is missing or not a folder."""
    got = folder_entries(folder, wanted)
    if got is None:
        return None
    entries, links = got
    for name, mtime_ns, size in entries:
        into[prefix + name] = (mtime_ns, size)
    return links


def folder_entries(folder: Path, wanted: Callable[[str], bool]) -> tuple[list[Entry], list[str]] | None:
    """``(name, mtime_ns, size)`` from the ``lstat`` of each entry of ``folder`` (not recursive)
    whose name ``wanted`` accepts and that is not a symbolic link (a folder named like a memory
    included: the caller reports it), in the listing's order, and the names of the accepted
    symbolic links (their d_type says so without a stat; the caller decides whether to follow
    them); None when ``folder`` is missing or not a folder. An entry that vanishes meanwhile is
    left out. This loop is most of a 100k no-change check: plain tuples in a list, no path built."""
    by_fd = folder_stats_native()
    try:
        fd = os.open(folder, os.O_RDONLY | _O_DIRECTORY) if by_fd else None
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        try:
            it = os.scandir(folder if fd is None else fd)
        except (FileNotFoundError, NotADirectoryError):
            return None
        with it:
            names, links = [], []
            for entry in it:
                if wanted(entry.name):
                    (links if entry.is_symlink() else names).append(entry.name)
        base, entries = os.path.join(folder, ""), []
        parts = stat_threads(len(names))
        if parts > 1:
            _stat_split(fd, base, names, entries, parts)
        else:
            _stat_into(fd, base, names, entries)
        return entries, links
    finally:
        if fd is not None:
            os.close(fd)


#: GNU find's path, looked up once (``[None]``: none)
_find: list[str | None] = []


def gnu_find() -> str | None:
    """The GNU find that :func:`find_printf` runs: on Linux (not ``VAULT_MEM_PORTABLE``) only,
    where ``find`` is GNU's (``-printf``; macOS's and the BSDs' have none)."""
    if flavour() != LINUX:
        return None
    if not _find:
        _find.append(which("find"))
    return _find[0]


#: listings begun ahead of their need (:func:`begin_find_printf`), by what they list: each is
#: taken by the first :func:`find_printf` of the same folders and format, or never
_begun: dict[tuple[str, tuple[str, ...], str], tuple[subprocess.Popen, int, float]] = {}
_begun_lock = threading.Lock()
#: a listing begun longer ago than this (seconds) is not taken: it is listed again. A one-shot
#: read asks for its listing well within it; the bound keeps a listing begun and then left (a
#: read that failed before its reconcile) from ever standing for the files much later
BEGUN_FOR_S = 10.0


def _find_args(exe: str, names: list[str], fmt: str) -> list[str]:
    return [exe, "-L", *names, "-mindepth", "1", "-maxdepth", "1", "-printf", fmt]


def begin_find_printf(root: Path, names: list[str], fmt: str) -> bool:
    """Start the listing :func:`find_printf` would make of the same folders, now, in a process of
    its own, so that its stat calls (kernel time, ~0.2 s at 100k files) run while this process
    does other work (a one-shot read: its imports and the vault's opening; issue 29). Its output
    goes to an anonymous in-memory file (``memfd``), not a pipe: nothing reads it before the
    listing is asked for, and a full pipe would stop ``find`` after 64 KiB. False where there is
    no GNU find or no ``memfd`` (the listing is then made when asked for, as before).

    The listing is taken by the next :func:`find_printf` of the same arguments if that comes
    within :data:`BEGUN_FOR_S`: only a command that asks for it next may begin one (a listing
    begun after the command began shows every change made before it, as one made later would)."""
    exe = gnu_find()
    memfd = getattr(os, "memfd_create", None)
    if exe is None or memfd is None:
        return False
    key = (os.fspath(root), tuple(names), fmt)
    with _begun_lock:
        if key in _begun:
            return True
        try:
            fd = memfd("vault-mem-listing", os.MFD_CLOEXEC)
        except OSError:
            return False
        try:
            proc = subprocess.Popen(_find_args(exe, names, fmt), cwd=root,
                                    env=program_env({**os.environ, "LC_ALL": "C"}),
                                    stdin=subprocess.DEVNULL, stdout=fd, stderr=subprocess.DEVNULL)
        except OSError:
            os.close(fd)
            return False
        _begun[key] = (proc, fd, time.monotonic())
    return True


def end_begun() -> None:
    """End every listing begun and not taken (a command that failed before its reconcile, run
    in-process by an application or a test): no ``find`` left running, no descriptor kept."""
    with _begun_lock:
        left = list(_begun.values())
        _begun.clear()
    for proc, fd, _ in left:
        proc.kill()
        proc.wait()
        os.close(fd)


def _take_begun(key: tuple[str, tuple[str, ...], str]) -> bytes | None:
    """The output of the listing begun for ``key``, once it is done; None when none was begun or
    it failed (the caller lists again now)."""
    with _begun_lock:
        begun = _begun.pop(key, None)
        # one begun for other folders of the same root (a type folder made or removed since) is
        # of no use now: ended, not left running to the process's end
        others = [_begun.pop(k) for k in [k for k in _begun if k[0] == key[0]]]
    for proc, fd, _ in others:
        proc.kill()
        proc.wait()
        os.close(fd)
    if begun is None:
        return None
    proc, fd, began = begun
    try:
        if proc.wait() != 0 or time.monotonic() - began > BEGUN_FOR_S:
            return None
        size = os.fstat(fd).st_size
        out = os.pread(fd, size, 0)
        return out if len(out) == size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def find_printf(root: Path, names: list[str], fmt: str) -> bytes | None:
    """What ``find -L NAMES -mindepth 1 -maxdepth 1 -printf FMT`` prints, run in ``root`` (the
    entries of those folders, links followed, each with the stat data ``fmt`` asks for, in one C
    pass): None where there is no GNU find or it failed (a file gone mid-listing, an unreadable
    folder, a link loop). The listing :func:`begin_find_printf` began for the same arguments, when
    there is one. stdout alone is a pipe: read whole, not polled beside stderr (~10 ms less at
    100k entries)."""
    exe = gnu_find()
    if exe is None:
        return None
    begun = _take_begun((os.fspath(root), tuple(names), fmt))
    if begun is not None:
        return begun
    try:
        done = subprocess.run(_find_args(exe, names, fmt),
                              cwd=root, env=program_env({**os.environ, "LC_ALL": "C"}),
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              check=False)
    except OSError:
        return None
    return None if done.returncode else done.stdout
