"""git commands that talk to a remote (fetch, push): bounded in time, never prompting.

Kept apart from :mod:`vault_mem.store.git` (local objects and refs) because these wait on the
network: each gets a timeout, no standard input and ``GIT_TERMINAL_PROMPT=0``, since a daemon
or an agent has nobody to type a password.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from vault_mem.errors import GitError, SyncError
from vault_mem.platform import procs
from vault_mem.platform.programs import program, program_env, with_data_limit
from vault_mem.store import gitprocs
from vault_mem.store.git import GitRepo

#: Objects before refs for what a fetch brings: below ``fetch.unpackLimit`` (100 objects by
#: default) git unpacks a fetched pack into loose objects, which a person's ``git prune
#: --expire=now`` (or ``gc --prune=now``) running meanwhile may delete before the fetch writes the
#: ref that names them, leaving ``refs/remotes/<remote>/<branch>`` on a missing commit. A limit of 1
#: keeps every fetch as a pack with a ``.keep`` file, which no repack or prune touches, and which
#: git removes only after the ref is written.
_KEEP_FETCHED_PACKS = ("-c", "fetch.unpackLimit=1")

#: What a fetch's git may allocate (its helpers too: ``index-pack``, and a remote on this
#: machine's ``upload-pack`` and ``pack-objects``, which run as this user here). A pack states
#: each object's size and git allocates it whole: a peer's 700-byte push of one delta that
#: expands to 400 MB made every clone's sync take 386 MB (any size the peer names), a 300 KB
#: push of 300 MB of zeros 291 MB, a tree 30,000 folders deep (git's paths grow with the square
#: of the depth) 897 MB. Blobs over :data:`FETCH_STREAM_OVER` are streamed, never held
#: (no memory file comes near it), and the rest is held under this bound, set as the process's
#: data limit (``RLIMIT_DATA``, inherited by git's children; files git maps to read its packs do
#: not count): a fetch of 200,000 objects (413 MB of packs) needs under 256 MB. An object that
#: needs more fails the fetch, which sync refuses by name (:func:`out_of_memory`).
FETCH_MEMORY_BYTES = 512 * 2**20
#: blobs git streams instead of holding (``core.bigFileThreshold``)
FETCH_STREAM_OVER = "1m"
#: and at most two threads (``pack.threads``: ``index-pack`` here, a local remote's
#: ``pack-objects``), each of which holds a stack and a cache under the same bound: one per core
#: would not fit it on a machine of many cores
_BOUNDED_FETCH = ("-c", f"core.bigFileThreshold={FETCH_STREAM_OVER}", "-c", "pack.threads=2")

#: What a fetch takes from a peer is checked as ``git fsck`` checks objects, before any is kept:
#: a commit without an author, a tree naming a file twice, a ``.gitmodules`` link, objects no git
#: command makes and a remote takes (``receive.fsckObjects`` is off by default). Taken, a peer's
#: commit written by hand without its author made `vault-mem doctor` in every clone say the
#: history was damaged, for good (attack run 18).
#: The tree entries the one tree rule (``store.history.unsafe_entry``) refuses by their escaped
#: name are left to it (git's check names only the tree's id), and a time past any calendar
#: (``badDateOverflow``: 2^64 - 1 seconds) to the readers, which date nothing by it
#: (tests/test_peer_attacks15.py): refused, it stopped every clone's sync for a commit nothing
#: here breaks on. A refused fetch is not the end of the sync: :func:`checked_part` finds the
#: part of the remote's branch that passes the same check, and the sync takes that and sets the
#: rest aside, by name (a refusal stopped every clone's sync until the commit left the remote).
_LET_PASS = ("hasDot", "hasDotdot", "hasDotgit", "emptyName", "fullPathname", "largePathname",
             "duplicateEntries", "treeNotSorted", "badDateOverflow")
_CHECKED_FETCH = ("-c", "fetch.fsckObjects=true", *(a for msg in _LET_PASS for a in ("-c", f"fetch.fsck.{msg}=ignore")))
#: per git program, the message ids of :data:`_LET_PASS` it knows (an older git has no
#: ``largePathname``: a fetch skips such a setting with a warning, ``index-pack`` stops on it)
_KNOWN_TO_GIT: dict[str, tuple[str, ...]] = {}


def _checked_pack() -> str:
    """The same check as ``index-pack`` makes it for a checked fetch (``fetch-pack`` passes it
    so): ``--strict=`` with the ids of :data:`_LET_PASS` this git knows (:func:`_known_ids`)."""
    return "--strict=" + ",".join(f"{msg}=ignore" for msg in _known_ids())


def _known_ids() -> tuple[str, ...]:
    """The ids of :data:`_LET_PASS` this machine's git knows, asked of it once per process:
    ``git index-pack --strict=IDS`` with no pack reads nothing, and stops on the first id it
    does not know (``Unhandled message id``) before it says how it is used; asked again
    without that id until it names none (git has no list of its ids to ask for)."""
    git = program("git")
    known = _KNOWN_TO_GIT.get(git)
    if known is None:
        ids = list(_LET_PASS)
        for _ in range(len(_LET_PASS) + 1):
            probe = subprocess.run([git, "index-pack", "--strict=" + ",".join(f"{m}=ignore" for m in ids)],
                                   stdin=subprocess.DEVNULL, capture_output=True, env=program_env(), check=False)
            unknown = re.search(r"Unhandled message id: (\w+)", probe.stderr.decode("utf-8", "replace"))
            if unknown is None:
                break
            ids = [m for m in ids if m.lower() != unknown.group(1).lower()]
        known = _KNOWN_TO_GIT[git] = tuple(ids)
    return known


def refused_object(err: str) -> str | None:
    """git's words for the first object a checked fetch (:data:`_CHECKED_FETCH`) refused, or
    None when it refused none."""
    if "fsck error" not in err:
        return None
    for line in err.splitlines():
        line = line.strip().removeprefix("error: ")
        if line.startswith("object ") and ": " in line:
            return line[:300]
    return "an object git's check refuses"


def upload_pack_args(toplevel: Path, url: str) -> tuple[str, ...]:
    """For a remote on this machine, the ``--upload-pack`` that streams big blobs there too: its
    ``pack-objects`` runs here, as this user, and git does not pass a fetch's ``-c`` settings to
    a local remote's side. Nothing for a remote on another host (its memory is its own)."""
    if local_git_dir(toplevel, url) is None:
        return ()
    return ("--upload-pack", f"{shlex.quote(program('git'))} {shlex.join(_BOUNDED_FETCH)} upload-pack")


#: what a push gives a remote on this machine's ``receive-pack``, which runs here, as this user,
#: in a repository whoever shares it can write (a bare repository on a shared disk: ``git init
#: --shared=group`` makes its ``hooks/`` and ``config`` writable by the group): none of its hooks
#: (a peer's ``pre-receive`` ran as the person at every sync), none of the commands its config
#: names (``core.alternateRefsCommand``; a smudge filter or ``core.fsmonitor`` of a checked-out
#: branch that ``receive.denyCurrentBranch=updateInstead`` would update), no ``gc --auto``
_SAFE_RECEIVE = ("-c", f"core.hooksPath={os.devnull}", "-c", "core.alternateRefsCommand=true",
                 "-c", "receive.denyCurrentBranch=refuse", "-c", "receive.autogc=false")


def receive_pack_args(toplevel: Path, url: str) -> tuple[str, ...]:
    """For a remote on this machine, the ``--receive-pack`` that runs nothing of that repository
    (:data:`_SAFE_RECEIVE`): git does not pass a push's ``-c`` settings to a local remote's side,
    and runs its hooks as the user who pushes. Nothing for a remote on another host (its hooks
    run there, as its own user)."""
    if local_git_dir(toplevel, url) is None:
        return ()
    return ("--receive-pack", f"{shlex.quote(program('git'))} {shlex.join(_SAFE_RECEIVE)} receive-pack")


def out_of_memory(err: str) -> bool:
    """Whether git stopped because what it received needed more than :data:`FETCH_MEMORY_BYTES`
    (an allocation, or a thread's stack, refused under the limit)."""
    low = err.lower()
    return any(s in low for s in ("out of memory", "cannot allocate memory", "unable to create thread"))


def run_remote(repo: GitRepo, timeout_s: float, *args: str, refs: tuple[str, ...] = (),
               remote_refs: tuple[Path, tuple[str, ...]] | None = None,
               env: dict[str, str] | None = None, checked: bool = True) -> subprocess.CompletedProcess:
    """Run ``git ARGS`` at the repository's top level; returns the finished process (text
    output) whatever its exit code. Raises :class:`SyncError` ``unreachable`` on time-out.

    git runs in a process group of its own, and a time-out (or an interrupt) stops the whole
    group: a fetch's ``index-pack``, an ``upload-pack`` on a local remote, a hook, none of
    them goes on writing after git is gone. A fetch stopped after its pack was written and
    before its ref was leaves that pack's ``.keep`` behind (git removes it only after the ref
    update), and no repack would ever fold that pack in again: it is removed
    (:func:`_drop_stopped_fetch_keep`). ``refs``: the refs the command writes (a fetch's
    destination); a lock of one of them that the stopped command left is removed too, else
    every later fetch fails on it (:func:`_drop_stopped_ref_locks`). ``remote_refs``: for a
    push to a repository on this machine (a path or ``file://``), its git folder and the
    (ref, pushed commit) pairs: a push stopped there leaves the remote's ``receive-pack``
    leftovers, removed too (:func:`_drop_stopped_push_leftovers`). ``env``: added to git's
    environment (a :class:`FetchQuarantine`'s). ``checked=False``: a fetch without git's check of
    the objects (:data:`_CHECKED_FETCH`), only into a quarantine that is never landed as it is
    (:func:`checked_part`)."""
    started = time.time()
    try:
        argv = [program("git"), *_KEEP_FETCHED_PACKS, *args]
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH; install git and retry") from exc
    if args and args[0] == "fetch":
        argv = with_data_limit([argv[0], *_BOUNDED_FETCH, *(_CHECKED_FETCH if checked else ()), *argv[1:]],
                               FETCH_MEMORY_BYTES)

    def stopped(pid: int, group: set[int]) -> None:
        if args and args[0] == "fetch":
            _drop_stopped_fetch_keep(repo, pid)
        _drop_stopped_ref_locks(repo, refs, started)
        if remote_refs is not None:
            _drop_stopped_push_leftovers(remote_refs[0], remote_refs[1], group, started)

    try:
        return _run_git(repo, argv, env or {}, timeout_s, stopped=stopped, text=True,
                        group_wanted=remote_refs is not None)
    except subprocess.TimeoutExpired as exc:
        check = ("the network and the remote" if args[0] in ("fetch", "push") else
                 "this repository's git hooks (a reference-transaction hook may hold a ref update)")
        raise SyncError("unreachable", f"git {args[0]} gave no answer in {timeout_s:.0f} s; check {check}, "
                        "then sync again (nothing local changed)") from exc


def _run_git(repo: GitRepo, argv: list[str], env: dict[str, str], timeout_s: float, *,
             stopped: Callable[[int, set[int]], None] | None = None, stdin=None, stdout=subprocess.PIPE,
             text: bool = False, group_wanted: bool = False) -> subprocess.CompletedProcess:
    """The one runner of a git that talks to, or checks what came from, another repository:
    ``argv`` at the repository's top level with ``env`` added to git's environment, in a
    process group of its own; returns the finished process whatever its exit code. On the
    time-out (``subprocess.TimeoutExpired`` raised) or an interrupt the whole group is stopped
    (:func:`_stop`: a fetch's ``index-pack``, a local remote's ``upload-pack``, a hook, an
    alias's shell, none goes on after git is gone), then ``stopped(pid, group)`` cleans what it
    left (``group``: the group's process ids before the stop, when ``group_wanted``).
    ``stdin``: bytes to write, an open file, or None (nothing)."""
    run_env = program_env({**os.environ, "GIT_TERMINAL_PROMPT": "0", **env})
    data = stdin if isinstance(stdin, bytes) else None
    try:
        proc = subprocess.Popen(argv, cwd=repo.toplevel, env=run_env,
                                stdin=subprocess.PIPE if data is not None else (stdin or subprocess.DEVNULL),
                                stdout=stdout, stderr=subprocess.PIPE, text=text, **_OWN_GROUP)
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH; install git and retry") from exc
    try:
        out, err = proc.communicate(input=data, timeout=timeout_s)
    except BaseException:  # the time-out, or an interrupt: nothing of git's may go on
        group = procs.group_pids(proc.pid) if group_wanted and _OWN_GROUP else set()
        _stop(proc)
        if stopped is not None:
            stopped(proc.pid, group)
        raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


#: git in a process group of its own (POSIX), so that stopping it stops its helpers too
_OWN_GROUP: dict = {"process_group": 0} if os.name == "posix" else {}
#: how long a stopped git's process group may take to be gone
_STOP_WAIT_S = 5.0


def _stop(proc: subprocess.Popen) -> None:
    """Kill git and every process of its group, and wait (a few seconds at most) until none is
    left, so that nothing writes into the repository after this returns."""
    try:
        if _OWN_GROUP:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except ProcessLookupError:
        pass
    with contextlib.suppress(OSError, ValueError, subprocess.SubprocessError):
        proc.communicate(timeout=_STOP_WAIT_S)
    if not _OWN_GROUP:
        return
    deadline = time.monotonic() + _STOP_WAIT_S
    while procs.group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.01)


def _drop_stopped_fetch_keep(repo: GitRepo, pid: int) -> None:
    """Remove the ``.keep`` file of the pack that the stopped fetch ``pid`` wrote, if any. git
    names the fetch inside it (``fetch-pack PID on HOST``, from ``index-pack --keep``), so only
    ours is touched: a person's or another fetch's ``.keep`` never is."""
    mine, host = f"fetch-pack {pid} on ", socket.gethostname()
    try:
        keeps = list((repo.common_dir / "objects" / "pack").glob("pack-*.keep"))
    except OSError:
        return
    for keep in keeps:
        try:
            said = keep.read_text(encoding="utf-8", errors="replace").strip()
            # git cuts a long host name to its HOST_NAME_MAX
            if said.startswith(mine) and len(said) > len(mine) and host.startswith(said[len(mine):]):
                keep.unlink()
        except OSError:
            pass  # gone meanwhile, or unreadable: not knowably ours


def local_git_dir(toplevel: Path, url: str) -> Path | None:
    """The git folder of the remote at ``url`` when it is a repository on this machine (a path,
    relative to ``toplevel`` or not, or a ``file://`` URL), else None."""
    if url.startswith("file://"):
        path = Path(unquote(urlsplit(url).path))
    elif "://" in url or (":" in url.split("/", 1)[0] and not url.startswith(("/", "."))):
        return None  # another transport, or scp-like host:path
    else:
        path = Path(url) if os.path.isabs(url) else toplevel / url
    for folder in (path, path / ".git", Path(f"{path}.git")):
        if (folder / "objects").is_dir() and (folder / "refs").is_dir():
            return folder
    return None


def _drop_stopped_push_leftovers(remote: Path, refs: tuple[tuple[str, str], ...], group: set[int],
                                 started: float) -> None:
    """What a push stopped by its time-out left in a remote on this machine, whose
    ``receive-pack`` ran in the push's own process group and was stopped with it: the ``.keep``
    of the pack it received (``receive-pack PID on HOST``, PID one of ``group``: another push's
    never matches), the lock of a ref it was updating (made since the push started and holding
    the commit this push sent, or nothing: every later push to that branch failed "cannot lock
    ref"), ``HEAD.lock`` likewise, and its quarantine folder (``tmp_objdir-incoming-*``, made
    since); the locks and the folder only while no receive-pack works in the remote any more."""
    host = socket.gethostname()
    mine = {f"receive-pack {pid} on " for pid in group}
    with contextlib.suppress(OSError):
        for keep in (remote / "objects" / "pack").glob("pack-*.keep"):
            with contextlib.suppress(OSError):
                said = keep.read_text(encoding="utf-8", errors="replace").strip()
                head = next((m for m in mine if said.startswith(m)), None)
                if head is not None and len(said) > len(head) and host.startswith(said[len(head):]):
                    keep.unlink()
    left: list[Path] = []
    # HEAD.lock too: a bare remote's HEAD names the branch, and git locks it for its reflog
    for ref, want in (*refs, ("HEAD", "")):
        lock = remote / f"{ref}.lock"
        with contextlib.suppress(OSError):
            if lock.stat().st_mtime >= started - 1.0 and lock.read_text().strip() in ("", want):
                left.append(lock)
    with contextlib.suppress(OSError):
        left += [d for d in (remote / "objects").glob("tmp_objdir-incoming-*")
                 if d.is_dir() and d.stat().st_mtime >= started - 1.0]
    if not left or _receiving(remote):
        return  # another push into it holds them
    for path in left:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def _receiving(remote: Path) -> bool:
    """Whether a git process receives a push into ``remote`` now (or whether that cannot be told)."""
    found = procs.processes_of("git", keep=lambda argv, exact: any("receive-pack" in a or a in (
        "index-pack", "unpack-objects") for a in argv))
    if found is None:
        return True
    return any(p.cwd is None or p.cwd == remote or p.cwd.is_relative_to(remote) for p in found)


#: git commands other than ours that may hold the lock of a remote-tracking ref
_REF_WRITERS = frozenset({"fetch", "pull", "push", "remote"})


def _drop_stopped_ref_locks(repo: GitRepo, refs: tuple[str, ...], started: float) -> None:
    """Remove the lock of each of ``refs`` that the stopped command left: one made since it
    started (a second of slack for coarse file times), when no other git command that writes
    such refs runs in the work tree now (a person's ``git fetch`` or ``pull`` holding it is
    left alone; one that is gone held nothing any more either)."""
    locks = []
    for ref in refs:
        lock = repo.common_dir / f"{ref}.lock"
        try:
            if lock.stat().st_mtime >= started - 1.0:
                locks.append(lock)
        except OSError:
            continue
    if not locks or gitprocs.running_git(repo.toplevel, _REF_WRITERS, first=True):
        return
    for lock in locks:
        lock.unlink(missing_ok=True)


def _link_or_copy(src: Path, dst: Path, tmp: Path) -> None:
    """Hard-link ``src`` at ``dst`` (one there already is kept); where the file system has no
    hard links, copy it to ``tmp`` and rename that into place. ``FileNotFoundError``: a folder
    went meanwhile."""
    try:
        os.link(src, dst)
    except FileExistsError:
        pass  # there already
    except FileNotFoundError:
        raise
    except OSError:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)


#: the prefix of a fetch's quarantine folder in the git folder (``<prefix><pid>-<random>``)
QUARANTINE_PREFIX = "vault-mem-fetch-"


class FetchQuarantine:
    """Objects before refs for what a fetch brings, whatever a person's prune or repack does
    meanwhile. The fetch writes into an object folder of its own (``GIT_OBJECT_DIRECTORY``,
    the repository's objects as its alternate), which no ``git prune``/``gc``/``repack`` of the
    repository reads: a prune run in a loop deleted index-pack's temporary pack in every try
    (``fetch.unpackLimit=1`` kept a finished pack safe, not the one being written). The fetch
    writes no ref (``--refmap=``: nothing names objects the repository has not got yet);
    :meth:`land` moves its packs in under a ``.keep`` of ours (no repack drops a kept pack),
    points the ref at the fetched commit, then removes the ``.keep`` (loose objects are linked
    in and kept as a commit's objects are).

    >>> with FetchQuarantine(repo) as q:
    ...     run_remote(repo, t, "fetch", "--refmap=", name, "+refs/heads/main", env=q.env)
    ...     q.land(q.fetched("main"), "refs/remotes/origin/main")"""

    def __init__(self, repo: GitRepo) -> None:
        self.repo = repo
        self.objects = repo.common_dir / "objects"
        self._drop_left_behind()
        try:
            self.path = Path(tempfile.mkdtemp(prefix=f"{QUARANTINE_PREFIX}{os.getpid()}-", dir=repo.git_dir))
            (self.path / "pack").mkdir()
        except OSError as exc:  # a full or read-only disk
            raise SyncError("unsafe", f"cannot make a folder for the fetch in {repo.git_dir} ({exc.strerror}); "
                            "nothing local changed: check the free disk space and the permissions, then sync "
                            "again") from None
        alternates = [str(self.objects), *filter(None, os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES", "")
                                                 .split(os.pathsep))]
        self.env = {"GIT_OBJECT_DIRECTORY": str(self.path),
                    "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join(alternates)}

    def __enter__(self) -> FetchQuarantine:
        return self

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def _drop_left_behind(self) -> None:
        """Remove the quarantines of fetches whose process is gone (a killed sync)."""
        with contextlib.suppress(OSError):
            for old in self.repo.git_dir.glob(f"{QUARANTINE_PREFIX}*"):
                pid = old.name[len(QUARANTINE_PREFIX):].split("-", 1)[0]
                if pid.isdigit() and not procs.pid_exists(int(pid)):
                    shutil.rmtree(old, ignore_errors=True)

    def _link_in(self, loose: Path) -> None:
        """Link the quarantine's loose object ``loose`` into the repository (its copy stays in
        the quarantine, for :meth:`_link_again`); copied where the file system has no links."""
        dst = self.objects / loose.parent.name / loose.name
        for attempt in range(5):
            # a `git prune` removes an empty fan-out folder at any instant: one there when mkdir
            # looked may be gone by the link (Path.mkdir(exist_ok=True) raised FileExistsError
            # when it went between its mkdir and its check)
            with contextlib.suppress(FileExistsError):
                os.mkdir(dst.parent)
            if dst.exists():
                return
            # a name git prune removes if it is left (``tmp_*``)
            tmp = self.objects / f"tmp_vault_mem_{os.getpid()}_{loose.name}"
            try:
                _link_or_copy(loose, dst, tmp)
                return
            except FileNotFoundError:
                tmp.unlink(missing_ok=True)
                if attempt == 4 or not loose.exists():
                    raise

    def _link_again(self, loose_in: dict[str, Path]) -> list[str]:
        """Link in again each of ``loose_in`` ({id: quarantine copy}) that the repository lacks
        (three rounds, for a prune that keeps removing them); the ids still missing after."""
        missing: list[str] = []
        for _ in range(3):
            missing = [oid for oid in loose_in if not self.repo.has_object(oid)]
            for oid in missing:
                self._link_in(loose_in[oid])
            if not missing:
                break
        return missing

    def fetched(self, branch: str) -> str | None:
        """The commit the fetch brought for the remote's ``branch`` (its line in FETCH_HEAD,
        when that commit is in the quarantine or the repository), else None."""
        try:
            lines = (self.repo.git_dir / "FETCH_HEAD").read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return None
        for line in lines:
            oid, _, said = line.partition("\t")
            if f"branch '{branch}' of " in said and len(oid) in (40, 64):
                if self.repo.object_kind(oid) == "commit":
                    return oid  # had already (nothing new on the remote): no git process to ask
                proc = self.repo.run("cat-file", "-t", oid, check=False, env=self.env)
                if proc.returncode == 0 and proc.stdout.decode().strip() == "commit":
                    return oid
        return None

    def land(self, tip: str, ref: str, update: Callable[[str, str], object],
             warnings: list[str] | None = None) -> None:
        """Move the fetched objects into the repository and point ``ref`` at ``tip`` with
        ``update(ref, tip)``: each pack under a ``.keep`` of ours until the ref names it; loose
        objects (a transport that fetches them so) linked in, and kept as a write keeps its
        objects (:meth:`~vault_mem.store.git.GitRepo.keep_after_ref`): a prune that read the
        refs before ``ref`` moved is waited for, and what it removed is linked in again from
        the quarantine's copy. ``warnings``: what keeping them could not do."""
        packs = self.objects / "pack"
        keeps: list[Path] = []
        loose_in: dict[str, Path] = {}
        try:
            for pack in sorted((self.path / "pack").glob("pack-*.pack")):
                keep = packs / f"{pack.stem}.keep"
                if not keep.exists():
                    keep.write_text(f"vault-mem fetch {os.getpid()} on {socket.gethostname()}\n")
                    keeps.append(keep)
                for ext in (".pack", ".rev", ".idx"):  # the .idx last: git sees a pack by its .idx
                    src, dst = pack.with_suffix(ext), packs / f"{pack.stem}{ext}"
                    if src.exists() and not dst.exists():
                        os.replace(src, dst)
            for loose in self.path.glob("[0-9a-f][0-9a-f]/*"):  # a fetch small enough to unpack
                self._link_in(loose)
                loose_in[loose.parent.name + loose.name] = loose
            if keeps or self.repo.ref_in_files(ref) != tip:  # (a sync with nothing new moves nothing)
                update(ref, tip)
            if loose_in:  # named by nothing until the ref moved: a prune may have taken them since
                self.repo.keep_after_ref(lambda: self._link_again(loose_in), warnings)
        finally:
            for keep in keeps:
                keep.unlink(missing_ok=True)


@dataclass
class SetAside:
    """The part of a remote's branch a sync did not take because git's check (the checked
    fetch's, :data:`_CHECKED_FETCH`) refuses an object of it: ``commit`` is the first commit of
    the branch's first-parent line whose objects do not pass (a merge whose other side holds
    the object is that merge), ``count`` the commits of that line from it to the tip, ``said``
    git's words for the refused object. Never the commit's subject or author's name: text its
    writer chose, which a sync's report gave an agent (mendinj33)."""

    commit: str
    count: int
    said: str


def checked_part(repo: GitRepo, unchecked: FetchQuarantine, tip: str, said: str,
                 until: float) -> tuple[FetchQuarantine | None, str | None, SetAside]:
    """After a checked fetch refused an object (git's words ``said``) and the same branch was
    fetched again unchecked into ``unchecked`` (a quarantine whose objects never reach the
    repository), the latest commit of the branch's first-parent line whose objects pass the
    checked fetch's own check, as a quarantine holding exactly them, checked (for
    :meth:`FetchQuarantine.land`), and that commit; (None, None, ...) when none of the new ones
    passes. The commits after it are set aside (:class:`SetAside`). Each try packs what a commit
    brings from ``unchecked`` and has git's ``index-pack`` check it as a checked fetch does: the
    first-parent line is searched by halves (a commit's objects hold its ancestors'), ~log2 of
    the new commits tries. The caller owns the quarantine returned (a ``with`` block)."""
    known = sorted(set(repo.run("for-each-ref", "--format=%(objectname)", check=False).stdout.decode().split()))
    listed = repo.run("rev-list", "--first-parent", "--parents", "--stdin", tip, check=False, env=unchecked.env,
                      input="".join(f"^{oid}\n" for oid in known).encode())
    line = [ln.split() for ln in listed.stdout.decode().splitlines()][::-1] if listed.returncode == 0 else []
    good: FetchQuarantine | None = None
    good_at, lo, hi = -1, 0, len(line) - 1  # line[hi] fails (the fetch said so); find the last that passes
    try:
        while lo < hi:
            mid = (lo + hi) // 2
            passed, words = _passes(repo, unchecked, line[mid][0], known, until)
            if passed is not None:
                if good is not None:
                    good.__exit__()
                good, good_at, lo = passed, mid, mid + 1
            else:
                hi, said = mid, words or said
    except BaseException:
        if good is not None:
            good.__exit__()
        raise
    first = line[good_at + 1][0] if line else tip
    aside = SetAside(first, len(line) - good_at - 1 if line else 1, refused_object(said) or said[:300])
    if good is not None:
        return good, line[good_at][0], aside
    # none passes: the commit the line starts from, which the repository holds already
    return None, (line[0][1] if line and len(line[0]) > 1 else None), aside


def _passes(repo: GitRepo, source: FetchQuarantine, commit: str, known: list[str],
            until: float) -> tuple[FetchQuarantine | None, str]:
    """``commit``'s objects that the repository lacks, packed from ``source`` and received
    into a new quarantine with the checked fetch's check: that quarantine (None when git's
    check refused them) and git's words."""
    target = FetchQuarantine(repo)
    try:
        pack = target.path / "incoming.pack"
        with open(pack, "wb") as out:
            made = _bounded(repo, ["pack-objects", "--revs", "--stdout", "-q"], source.env, until,
                            stdin="".join([f"{commit}\n", *(f"^{oid}\n" for oid in known)]).encode(), stdout=out)
        if made.returncode == 0:
            with open(pack, "rb") as into:
                made = _bounded(repo, ["index-pack", _checked_pack(), "--stdin"], target.env, until, stdin=into)
        pack.unlink(missing_ok=True)
        if made.returncode == 0:
            return target, ""
    except BaseException:
        target.__exit__()
        raise
    target.__exit__()
    return None, made.stderr.decode("utf-8", "replace")


def _bounded(repo: GitRepo, args: list[str], env: dict[str, str], until: float, *, stdin, stdout=subprocess.PIPE
             ) -> subprocess.CompletedProcess:
    """``git ARGS`` under a fetch's bounds (its memory, big blobs streamed, the time left), run
    as every git that checks a peer's objects is (:func:`_run_git`: its whole process group
    stopped at the time-out)."""
    argv = with_data_limit([program("git"), *_BOUNDED_FETCH, *args], FETCH_MEMORY_BYTES)
    left = until - time.monotonic()
    if left <= 0:
        raise SyncError("unreachable", "checking the remote's commits took longer than the fetch's time-out; "
                        "nothing local changed: sync again")
    try:
        return _run_git(repo, argv, env, left, stdin=stdin, stdout=stdout)
    except subprocess.TimeoutExpired:
        raise SyncError("unreachable", "checking the remote's commits took longer than the fetch's time-out; "
                        "nothing local changed: sync again") from None

