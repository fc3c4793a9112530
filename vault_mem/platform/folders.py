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

#: the file times a scan gives, in ns, lie within SQLite's INTEGER (64-bit signed), where the
#: sidecar keeps them: a file's time can be set outside it (`touch -d @99999999999999`: year
#: 2446 on ext4, later on tmpfs), and one such file made every read fail with an OverflowError
NS_MIN, NS_MAX = -(1 << 63), (1 << 63) - 1


def held_ns(ns: int) -> int:
    """``ns`` held within :data:`NS_MIN`..:data:`NS_MAX` (a time before 1677 or after 2262 is
    recorded as the bound; it still compares equal while the file is left alone). The one rule
    for every listing's times: callers on a hot path test the bounds inline first."""
    return NS_MAX if ns > NS_MAX else NS_MIN if ns < NS_MIN else ns


def _stat_into(fd: int | None, base: str, names: list[str], into: list[Entry]) -> None:
    stat, add = os.stat, into.append
    for name in names:
        try:
            st = stat(name, dir_fd=fd, follow_symlinks=False) if fd is not None else \
                stat(base + name, follow_symlinks=False)
        except FileNotFoundError:
            continue  # vanished while scanning
        m = st.st_mtime_ns
        add((name, m if NS_MIN <= m <= NS_MAX else held_ns(m), st.st_size))


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


def find_printf(root: Path, names: list[str], fmt: str) -> bytes | None:
    """What ``find -L NAMES -mindepth 1 -maxdepth 1 -printf FMT`` prints, run in ``root`` (the
    entries of those folders, links followed, each with the stat data ``fmt`` asks for, in one C
    pass): None where there is no GNU find or it failed (a file gone mid-listing, an unreadable
    folder, a link loop). stdout alone is a pipe: read whole, not polled beside stderr (~10 ms
    less at 100k entries)."""
    exe = gnu_find()
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, "-L", *names, "-mindepth", "1", "-maxdepth", "1", "-printf", fmt],
                              cwd=root, env=program_env({**os.environ, "LC_ALL": "C"}),
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              check=False)
    except OSError:
        return None
    return None if done.returncode else done.stdout
