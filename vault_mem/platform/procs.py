"""Facts about other processes: whether one exists, when it started (to tell a reused pid), its
name and command line, and the running processes of a program with their working folders.

Linux reads ``/proc``; elsewhere (macOS, the BSDs, and the portable implementations) ``ps``
answers, and ``lsof`` (when installed) names working folders. What cannot be told is said:
None, never a guess that would take something from a live process.

A listing costs a read per process (~1-3 ms for 100-200 processes) or a ``ps``: a writer that
asks several times within one write gives :func:`list_program` its last listing, and on Linux
only the processes that may have changed since are read.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from vault_mem.platform.kind import LINUX, flavour
from vault_mem.platform.programs import which

#: :func:`process_start` of a process that has ended (or is a zombie: it holds nothing)
GONE = "gone"
_PS_TIMEOUT_S = 5.0
#: a process started this recently may still exec another program with no fork (``sh -c 'git
#: commit'``, ``env git ...``): the next listing since this one reads it again
YOUNG_S = 0.1
_PF_KTHREAD = 0x00200000  # /proc/PID/stat flags: a kernel thread (never execs a program)
#: /proc/PID/stat flags: forked and not exec'd since. Such a process may become any program at
#: its exec, however long it has waited for it (a loaded machine stretches a subprocess's fork
#: to exec past any age cut-off): the next listing reads it again, whatever its age
_PF_FORKNOEXEC = 0x00000040


@dataclass(frozen=True)
class Process:
    """A running process: its pid, its command line, its working folder (None: unknown).
    ``exact``: the command line as the process was given it; else ``ps``'s text split at
    spaces (an argument holding a space reads as two)."""

    pid: int
    argv: list[str]
    cwd: Path | None
    exact: bool = True


@dataclass(frozen=True)
class Listing:
    """The running processes of one program (:func:`list_program`). On Linux also every pid
    seen (``pids``) and those of other processes that may still exec the program (``young``:
    a child between its fork and its exec, of any age, any process started within
    :data:`YOUNG_S`, and the program's own met in the middle of its exec, whose command line is
    not set up yet), for a later listing that reads only what may have changed since;
    ``full_at``: ``time.monotonic()`` of the last listing that read every process."""

    program: str
    processes: list[Process]
    pids: frozenset[str] | None = None
    young: frozenset[str] = frozenset()
    full_at: float = 0.0


def list_program(program: str, keep: Callable[[list[str], bool], bool] = lambda argv, exact: True,
                 since: Listing | None = None, max_age: float = 0.0) -> Listing | None:
    """The running processes of ``program`` (this one left out) whose command line ``keep``
    accepts, as :func:`processes_of`; None when this system cannot list processes.

    ``since``: an earlier listing of ``program`` whose full read is at most ``max_age`` seconds
    old. On Linux only the processes that started since it and those it saw young are read
    (a pid it did not see, or one it saw young: a write that asks five times reads its ~200
    processes once), and its processes of ``program`` again (one may have ended). A child that
    had not exec'd yet when ``since`` was taken counts as young at any age (a ``git commit``
    whose fork took longer than :data:`YOUNG_S` to reach its exec, under load, went unseen by
    every later check of a write, which then moved the branch under it: "cannot lock ref
    'HEAD'"). What this cannot see is a process that had exec'd already, was older than
    :data:`YOUNG_S`, and execs ``program`` with no fork since (a script's ``exec git ...``):
    ``max_age`` bounds how long that stays unseen. A ``since`` must come from a call with the
    same ``keep``."""
    if not proc_native():
        found = processes_of(program, keep)
        return None if found is None else Listing(program, found, full_at=time.monotonic())
    now = time.monotonic()
    names = [n for n in os.listdir("/proc") if n.isdigit()]
    if since is None or since.pids is None or since.program != program or now - since.full_at > max_age:
        found, young = _proc_listing(program, names, keep)
        return Listing(program, found, frozenset(names), young, now)
    again = since.young | {str(p.pid) for p in since.processes}  # a listed one may have ended (a zombie)
    look = [n for n in names if n not in since.pids or n in again]
    found, young = _proc_listing(program, look, keep)
    return Listing(program, found, frozenset(names), young, since.full_at)


def proc_native() -> bool:
    """Whether process facts come from ``/proc`` here (else from ``ps``/``lsof``)."""
    return flavour() == LINUX and os.path.isdir("/proc/self")


def pid_exists(pid: int) -> bool:
    """Whether a process ``pid`` exists (any Unix: a signal 0 asks without sending)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:  # Windows: signal 0 is not a question there
        return True
    return True


def process_start(pid: int) -> str | None:
    """When process ``pid`` started, as a file-name-safe token, so that a reused pid is told
    from the process that held something; :data:`GONE` when there is no such process; None
    when this system cannot tell."""
    if proc_native():
        return _proc_start(pid)
    out = _ps("-o", "lstart=", "-p", str(int(pid)))
    if out is None:
        return None if pid_exists(pid) else GONE
    text = " ".join(out.split())
    if not text:
        return GONE if not pid_exists(pid) else None
    try:  # "Thu Dec  3 05:53:04 2026", local time, with LC_ALL=C
        started = time.mktime(time.strptime(text, "%a %b %d %H:%M:%S %Y"))
    except ValueError:
        return None
    return f"t{int(started)}"


def same_start(then: str | None, now: str | None) -> bool | None:
    """Whether two :func:`process_start` tokens name the same process start; None when they
    cannot be compared (one unknown, or written by the other implementation)."""
    if then is None or now is None or now == GONE:
        return None if now != GONE else False
    if then.startswith("t") != now.startswith("t"):
        return None  # /proc ticks against ps times: not comparable
    return then == now


def _proc_start(pid: int) -> str | None:
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as fh:
            stat = fh.read().decode("ascii", "replace")
    except OSError:
        if not pid_exists(pid):
            return GONE
        return None  # not ours to read: cannot tell
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as fh:
            boot = fh.read().decode("ascii", "replace").strip().replace("-", "")[:12]
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    if len(fields) < 20 or not boot:
        return None
    if fields[0] in ("Z", "X"):
        return GONE  # killed, not yet reaped by its parent: it holds nothing any more
    return f"{fields[19]}@{boot}"


def group_pids(pgid: int) -> set[int]:
    """The pids of the running processes of process group ``pgid`` (Linux: ``/proc``; elsewhere
    ``ps``; empty when they cannot be listed)."""
    found: set[int] = set()
    if not proc_native():
        out = _ps("-A", "-o", "pid=,pgid=")
        for line in (out or "").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == str(pgid) and parts[0].isdigit():
                found.add(int(parts[0]))
        return found
    return {pid for pid, _ in _group_states(pgid)}


def group_alive(pgid: int) -> bool:
    """Whether a process of process group ``pgid`` is still running (a zombie, killed and not
    reaped, is not: where nothing reaps orphans, one stays for good). Linux reads ``/proc``;
    elsewhere a signal 0 to the group asks, and counts zombies too."""
    if not proc_native():
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    return any(state not in (b"Z", b"X") for _, state in _group_states(pgid))


def _group_states(pgid: int) -> Iterator[tuple[int, bytes]]:
    """Each process of process group ``pgid`` with its state letter, from ``/proc`` (Linux)."""
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if len(fields) > 2 and fields[2] == str(pgid).encode():
            yield int(name), fields[0]


def process_name(pid: int) -> str | None:
    """The program name of process ``pid`` (``git``), or None when it cannot be told."""
    if proc_native():
        try:
            with open(f"/proc/{int(pid)}/comm", "rb") as fh:
                return fh.read().decode("utf-8", "replace").strip()
        except OSError:
            return None
    out = _ps("-o", "comm=", "-p", str(int(pid)))
    return os.path.basename(out.strip()) or None if out else None


def command_line(pid: int) -> list[str] | None:
    """The command line of process ``pid``, or None (from ``ps`` elsewhere: split at spaces)."""
    if proc_native():
        try:
            with open(f"/proc/{int(pid)}/cmdline", "rb") as fh:
                return [a.decode("utf-8", "replace") for a in fh.read(4096).split(b"\0") if a]
        except OSError:
            return None
    out = _ps("-o", "args=", "-p", str(int(pid)))
    return out.split() or None if out else None


def processes_of(program: str, keep: Callable[[list[str], bool], bool] = lambda argv, exact: True
                 ) -> list[Process] | None:
    """The running processes of ``program`` (by name: ``git``) whose command line ``keep``
    accepts (``keep(argv, exact)``, see :class:`Process`), this one left out, with their working
    folders; None when this system cannot list processes."""
    if proc_native():
        return [p for p in _proc_processes(program) if keep(p.argv, True)]
    out = _ps("-A", "-o", "pid=,args=")
    if out is None:
        return None
    me, found = os.getpid(), []
    for line in out.splitlines():
        pid, _, args = line.strip().partition(" ")
        argv = args.split()
        if pid.isdigit() and int(pid) != me and argv and os.path.basename(argv[0]) == program \
                and keep(argv, False):
            found.append((int(pid), argv))
    cwds = _cwds([pid for pid, _ in found])
    if cwds is None:  # no lsof: every working folder unknown
        return [Process(pid, argv, None, exact=False) for pid, argv in found]
    # lsof names the working folder of every live process of this user: one it leaves out has
    # ended since ps listed it, or is another user's (which cannot be a person's command here)
    return [Process(pid, argv, cwds[pid], exact=False) for pid, argv in found if pid in cwds]


def ancestors() -> set[int]:
    """The pids of this process's parent, its parent's parent, ... (a git hook's own git
    command among them); empty when this system cannot tell."""
    parents: dict[int, int] = {}
    if proc_native():
        def parent(pid: int) -> int:
            try:
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    return int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                return 0
    else:
        out = _ps("-A", "-o", "pid=,ppid=")
        for line in (out or "").splitlines():
            pid, _, ppid = line.strip().partition(" ")
            if pid.isdigit() and ppid.strip().isdigit():
                parents[int(pid)] = int(ppid.strip())

        def parent(pid: int) -> int:
            return parents.get(pid, 0)
    found: set[int] = set()
    pid = os.getppid()
    while pid > 1 and pid not in found:
        found.add(pid)
        pid = parent(pid)
    return found


def _proc_processes(program: str) -> list[Process]:
    return _proc_listing(program, os.listdir("/proc"))[0]


def _proc_listing(program: str, names: list[str], keep: Callable[[list[str], bool], bool] = lambda argv, exact: True
                  ) -> tuple[list[Process], frozenset[str]]:
    """The processes of ``program`` among the pids ``names`` (from /proc) whose command line
    ``keep`` accepts, and the pids to read again at the next listing: the other programs'
    processes (kernel threads aside) that may still exec it (not exec'd since their fork, or
    started within :data:`YOUNG_S` of now), and those of ``program`` met in their exec (no
    command line yet)."""
    found: list[Process] = []
    young: list[str] = []
    want = program.encode()
    me = str(os.getpid())
    recent = int((time.clock_gettime(time.CLOCK_BOOTTIME) - YOUNG_S) * _TICKS)
    # A desktop runs hundreds of processes: the name and start of each is read with bare system
    # calls (a buffered file object per process cost 2.4x the CPU)
    for name in names:
        if not name.isdigit() or name == me:
            continue
        try:
            head, _, rest = _read_head(f"/proc/{name}/stat", 512).rpartition(b")")
            fields = rest.split(None, 20)
            if head.partition(b"(")[2] != want:
                # starttime: clock ticks since boot (the clock /proc/uptime counts); flags
                if len(fields) > 19 and not int(fields[6]) & _PF_KTHREAD and \
                        (int(fields[6]) & _PF_FORKNOEXEC or int(fields[19]) >= recent):
                    young.append(name)
                continue
            if fields[:1] in ([b"Z"], [b"X"]):
                continue  # ended, not yet reaped: it runs nothing
            cmdline = _read_head(f"/proc/{name}/cmdline", 4096)
            argv = [a.decode("utf-8", "replace") for a in cmdline.split(b"\0")]
            if not keep(argv, True):
                if not cmdline.strip(b"\0"):
                    # in its exec: named already, its arguments not set up yet; what it runs
                    # is known at the next listing, which reads it again (as a young one)
                    young.append(name)
                continue
            cwd = Path(os.readlink(f"/proc/{name}/cwd"))
        except (OSError, ValueError):
            continue
        found.append(Process(int(name), argv, cwd))
    return found, frozenset(young)


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _read_head(path: str, size: int) -> bytes:
    """The first ``size`` bytes of ``path`` (one read: what a /proc file gives at once)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def cwd_native() -> bool:
    """Whether the working folders of other processes can be read here."""
    return proc_native() or which("lsof") is not None


def _cwds(pids: list[int]) -> dict[int, Path] | None:
    """The working folders of ``pids`` from ``lsof`` (None where it is not installed)."""
    lsof = which("lsof")
    if lsof is None:
        return None
    if not pids:
        return {}
    try:
        proc = subprocess.run([lsof, "-a", "-d", "cwd", "-Fn", "-p", ",".join(map(str, pids))],
                              capture_output=True, text=True, timeout=_PS_TIMEOUT_S, check=False,
                              env={**os.environ, "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return None
    cwds, pid = {}, None
    for line in proc.stdout.splitlines():
        if line.startswith("p") and line[1:].isdigit():
            pid = int(line[1:])
        elif line.startswith("n") and pid is not None:
            cwds[pid] = Path(line[1:])
    return cwds


def _ps(*args: str) -> str | None:
    """``ps``'s output for ``args`` ("" when it names no process), None without a usable ps."""
    ps = which("ps")
    if ps is None:
        return None
    try:
        # -ww: whole command lines; ps otherwise cuts them at $COLUMNS or 80/132 columns when
        # not writing to a terminal (procps, BSD), and `git -c core.editor=... commit` lost its
        # command word (seen under pytest-xdist, which sets COLUMNS)
        env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
        proc = subprocess.run([ps, "-ww", *args], capture_output=True, text=True, timeout=_PS_TIMEOUT_S,
                              check=False, env={**env, "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else ""




#: A POSIX shell snippet (for a git hook) that sets ``VM_GIT_PID`` to the pid of the nearest
#: ``git`` among the shell's ancestors, at most 16 up, or 0 when none is found: ``/proc``'s stat
#: where it is readable, else ``ps``. A hook that a project's own hook script runs (husky: git
#: runs ``.husky/_/NAME``, which runs ``sh -e .husky/NAME``, which runs ours) has no git as its
#: parent (``$PPID``).
GIT_ANCESTOR_SH = (
    "VM_GIT_PID=$PPID; VM_N=0\n"
    'while [ "$VM_GIT_PID" -gt 1 ] 2>/dev/null && [ "$VM_N" -lt 16 ]; do\n'
    '    if [ -r "/proc/$VM_GIT_PID/stat" ]; then\n'
    '        read -r VM_S < "/proc/$VM_GIT_PID/stat"; VM_C=${VM_S#*(}; VM_C=${VM_C%)*}\n'
    '        VM_S=${VM_S##*) }; VM_S=${VM_S#* }; VM_P=${VM_S%% *}\n'
    '    else\n'
    '        VM_C=$(ps -o comm= -p "$VM_GIT_PID" 2>/dev/null); VM_C=${VM_C##*/}\n'
    '        VM_P=$(ps -o ppid= -p "$VM_GIT_PID" 2>/dev/null | tr -d \' \')\n'
    '    fi\n'
    '    [ "$VM_C" = git ] && break\n'
    '    VM_GIT_PID=${VM_P:-0}; VM_N=$((VM_N + 1))\n'
    'done\n'
    '[ "$VM_C" = git ] || VM_GIT_PID=0')
