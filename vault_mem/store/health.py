"""Bad states of a vault's repository and state folder, found cheaply and named with their fix.

What breaks a vault from outside is a handful of known states: the ``.vault-mem`` folder replaced
by a file or not writable, a branch ref holding garbage, git's index file truncated. Each is
detected here by reading a few bytes (no git process), so a write can refuse before it touches a
file, ``doctor`` can list them, and the CLI says what to do instead of passing git's or the
operating system's words on.
"""

from __future__ import annotations

import grp
import os
import pwd
import re
import stat
import struct
from collections.abc import Iterable
from pathlib import Path

from vault_mem.errors import VaultMemError
from vault_mem.store.git import GitRepo
from vault_mem.model.names import shown
from vault_mem.store.history import head_branch, memory_pathspecs

_OID = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")
#: the smallest index entry git writes (version 2: 62 bytes of fields plus a 1-char name, padded)
_MIN_INDEX_ENTRY = 64
_INDEX_HEADER = 12
_INDEX_CHECKSUM = 20


def state_dir_problem(state_dir: Path) -> str | None:
    """Why the state folder cannot be used for vault-mem's derived state, or None.

    A missing folder is fine (it is made); a file or a link in its place is not."""
    if state_dir.is_symlink():
        return (f"{state_dir} is a symlink; vault-mem never follows links for its own files: delete "
                "the link (the folder is rebuilt from the memory files) and retry")
    if state_dir.exists() and not state_dir.is_dir():
        return (f"{state_dir} is a file where vault-mem keeps its derived state (index, locks); move "
                "that file away or delete it (nothing of vault-mem's is in it) and retry")
    return None


def writable(path: Path) -> bool:
    """Whether this process may write ``path`` (a missing file: whether its folder may be written).

    ``os.access`` asks the kernel with the real uid: it sees modes, read-only mounts and the
    immutable flag, and says True for root where root can write anyway."""
    if path.exists():
        return os.access(path, os.W_OK)
    return os.access(path.parent, os.W_OK | os.X_OK)


def repository_problem(repo: GitRepo) -> str | None:
    """Why git cannot take a vault-mem commit in this repository (a damaged branch ref or index
    file), with the command that repairs it; None when both look sound. A few small reads."""
    return _branch_problem(repo) or _index_problem(repo)


#: how long ``doctor`` lets git check that history is whole
FSCK_TIMEOUT_S = 120.0


def history_problem(repo: GitRepo, timeout: float = FSCK_TIMEOUT_S, *, prefix: str = "") -> str | None:
    """What ``git fsck`` finds missing or corrupt in the history the refs, the reflogs and the
    index name (an acknowledged commit, an object one needs, a loose object or pack entry that
    no longer reads back), with the fix; None when the history is whole. Every object is read,
    not only linked (``--connectivity-only`` never reads a blob, so a corrupt older version of a
    memory passed: 0.08 -> 0.47 s of CPU at 10k memories). Bounded by ``timeout`` (then it says
    it could not tell). ``prefix``: the vault's folder in the repository (``sub/``, or "")."""
    try:
        proc = repo.run("fsck", "--no-dangling", "--no-progress", check=False, timeout=timeout, cwd=repo.toplevel)
    except VaultMemError as exc:
        return f"could not check that git history is whole ({exc}); run `git fsck` by hand"
    if proc.returncode == 0:
        return None
    said = (proc.stdout + proc.stderr).decode("utf-8", "replace").strip().splitlines()
    malformed = malformed_objects(said)
    if malformed:
        return _malformed_problem(repo, malformed, prefix)
    found = [line for line in said if any(w in line for w in ("missing", "invalid", "broken", "corrupt"))] or said
    return (f"git history is not whole ({len(found)} problem(s), first: {found[0] if found else '?'}): "
            "an object of a commit is missing or corrupt (a `git gc --prune=now` while something wrote? a disk "
            "fault?); see `git fsck`, and restore the objects from a clone or a backup")


#: ``git fsck``'s words for an object that is there and reads back, but that git's check refuses
#: (a commit without its author: written by hand, no git command makes one)
_MALFORMED = re.compile(r"^error in (commit|tree|tag|blob) ([0-9a-f]{40}|[0-9a-f]{64}): (\w+): (.*)$")


def malformed_objects(said: list[str]) -> list[tuple[str, str, str]]:
    """(kind, id, git's words) of each object ``git fsck``'s lines ``said`` refuse as malformed,
    when that is all they find wrong; [] when they find anything else (a missing or corrupt
    object is damage, said as such)."""
    found = [m for m in map(_MALFORMED.match, said) if m]
    others = [line for line in said if not _MALFORMED.match(line) and line.strip()
              and not line.startswith(("warning in ", "Checking ", "notice: "))]
    if not found or others:
        return []
    return [(m.group(1), m.group(2), f"{m.group(3)}: {m.group(4)}"[:300]) for m in found]


def _malformed_problem(repo: GitRepo, malformed: list[tuple[str, str, str]], prefix: str) -> str:
    """A peer's object git's check refuses, taken by a plain ``git pull`` or clone (git's own
    fetch checks nothing by default): nothing is lost or damaged, and no clone or backup fixes
    it (every clone holds it). The commit named (the one holding it, for a tree or a blob, when
    it is among the vault's top files and memory folders: git is asked of those two levels alone,
    :func:`~vault_mem.store.history.memory_pathspecs`, as a listing of a peer's commit always is:
    a folder naming one folder many times holds any number of paths), who wrote it, and the fix;
    elsewhere the object alone is named."""
    kind, oid, words = malformed[0]
    commit = oid
    if kind != "commit":
        proc = repo.run("log", "--all", "--format=%H", f"--find-object={oid}", "--", *memory_pathspecs(prefix),
                        check=False, timeout=FSCK_TIMEOUT_S, cwd=repo.toplevel)
        lines = proc.stdout.decode().split() if proc.returncode == 0 else []
        commit = lines[-1] if lines else ""
    # named by its id alone: its subject and author's name are text whoever wrote it by hand chose,
    # which doctor's line (an agent reads doctor too) quoted with no statement that it is data (mendinj33)
    named = f"commit {commit[:10]}" if commit else f"{kind} {oid[:10]}"
    holds = "" if kind == "commit" else f" (its {kind} {oid[:10]})"
    more = f" ({len(malformed)} such objects)" if len(malformed) > 1 else ""
    return (f"git history holds {named}{holds}, which git's check refuses ({shown(words)}){more}: no git "
            "command makes one, so whoever pushed it wrote it by hand, and a plain `git pull` or `git clone` "
            "took it (git's own fetch checks nothing by default; `vault-mem sync` sets such commits aside). "
            "Nothing is lost or damaged, and every clone holds the same object. The fix: whoever pushed it "
            "replaces it on the remote with a commit git makes, then your branch follows the fixed remote "
            "(your own commits since, picked on top of it); `git config fetch.fsckObjects true` makes your "
            "own fetches refuse such objects")


def _branch_problem(repo: GitRepo) -> str | None:
    branch = head_branch(repo)
    if branch is None or not branch.startswith("refs/"):
        return None  # detached HEAD: check_git_state says so
    loose = repo.common_dir / branch
    try:
        said = loose.read_text(errors="replace").strip()
    except FileNotFoundError:
        return None  # packed or unborn: git reads those itself
    except IsADirectoryError:
        said = "a folder"
    except OSError as exc:
        return f"the branch ref {loose} cannot be read ({exc.strerror}); check its permissions and retry"
    short = branch.removeprefix("refs/heads/")
    if _OID.match(said) and not repo.has_object(said):
        # a `git gc --prune=now` that walked the refs before a commit landed removed it after
        # (bench/chaos.py): every git command on the branch fails ("bad object") until it moves
        back = _reflog_before(repo, branch, said)
        fix = (f"`git update-ref {branch} {back}` (its value before, from the reflog; what the missing commit "
               "added is lost from history, its files stay on disk)" if back else
               f"`git update-ref {branch} <commit>` (`git reflog {short}` lists its earlier values)")
        return (f"the branch '{short}' in {repo.toplevel} names commit {said[:10]}, which is missing from the "
                f"repository (removed by a git gc/prune?); point it back with {fix}, then run `vault-mem doctor`")
    if _OID.match(said) or said.startswith("ref: "):
        return None
    last = _last_reflog_value(repo, branch)
    # git refuses to update a ref it cannot read: the damaged file goes first
    fix = (f"`rm {loose} && git update-ref {branch} {last}` (its last value in the reflog)" if last else
           f"`rm {loose} && git update-ref {branch} <commit>` (`git fsck --lost-found` lists candidates)")
    return (f"the branch ref {branch} in {repo.toplevel} is damaged ({loose} does not hold a commit id); "
            f"point the branch '{short}' back at its commit with {fix}, then retry")


def _reflog_before(repo: GitRepo, branch: str, missing: str) -> str | None:
    """The newest earlier value of ``branch`` in its reflog that is still in the repository."""
    try:
        lines = (repo.common_dir / "logs" / branch).read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        old = line.split(" ", 1)[0]
        if _OID.match(old) and old != missing and set(old) != {"0"} and repo.has_object(old):
            return old
    return None


def _last_reflog_value(repo: GitRepo, branch: str) -> str | None:
    try:
        lines = (repo.common_dir / "logs" / branch).read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        parts = line.split(" ", 2)
        if len(parts) > 1 and _OID.match(parts[1]) and parts[1].strip("0"):
            return parts[1]
    return None


def _index_problem(repo: GitRepo) -> str | None:
    path = repo.git_dir / "index"
    try:
        with open(path, "rb") as fh:
            header = fh.read(_INDEX_HEADER)
            size = os.fstat(fh.fileno()).st_size
    except FileNotFoundError:
        return None  # no index yet: git makes one
    except IsADirectoryError:
        what = "it is a folder"
    except OSError as exc:
        return f"git's index file {path} cannot be read ({exc.strerror}); check its permissions and retry"
    else:
        what = None
        if len(header) < _INDEX_HEADER or header[:4] != b"DIRC":
            what = "it does not start as an index file does"
        else:
            version, entries = struct.unpack(">II", header[4:12])
            if version not in (2, 3, 4):
                what = f"it says index version {version}"
            elif size < _INDEX_HEADER + _INDEX_CHECKSUM + entries * (_MIN_INDEX_ENTRY if version < 4 else 40):
                what = f"it is {size} bytes, too short for the {entries} entries it lists"
    if what is None:
        return None
    return (f"git's index file {path} is damaged ({what}); rebuild it from the last commit with "
            f"`rm {path} && git reset` in {repo.toplevel} (your files are kept; stage again what was "
            "staged), then retry")


#: What keeps the vault's memory from other users of this machine, for the folders ``close`` of
#: :func:`exposed_to_others`: ``doctor`` advises it, :func:`close_to_others` does it (``init``).
#: Not recursive: a closed folder keeps others from everything in it (the rule
#: :func:`exposed_to_others` checks), and what the person keeps in it stays as they made it.
CLOSE_COMMAND = "chmod go-rwx"


def close_to_others(paths: Iterable[Path], *, into: Iterable[Path] = ()) -> list[Path]:
    """Do :data:`CLOSE_COMMAND` on each of ``paths`` (a folder, not what is in it) and on each
    folder of ``into`` and everything in it (vault-mem's own: its state folder, a repository or
    files ``init`` made): take group and other users' access away (this user's own paths; links
    are neither changed nor followed), so a vault ``init`` makes or takes on is private whatever
    the umask and ``doctor`` finds nothing to say, while what the person had in the folder is
    never changed. Returns the paths changed, in order."""
    changed: list[Path] = []

    def close(path: Path) -> None:
        try:
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode) or st.st_uid != os.geteuid() or not st.st_mode & 0o077:
                return
            os.chmod(path, stat.S_IMODE(st.st_mode) & 0o700)
            changed.append(path)
        except OSError:
            pass  # gone meanwhile, or a read-only file system: doctor still names it

    for path in paths:
        close(path)
    for folder in into:
        close(folder)
        for base, dirs, files in os.walk(folder):  # never into a linked folder
            for name in dirs + files:
                close(Path(base) / name)
    return changed


def exposed_to_others(top: Path, paths: list[Path], close: list[Path]) -> str | None:
    """Whether users other than the owner can read any of ``paths`` (the vault's memory files
    and folders, the repository's objects, all inside the repository's top folder ``top``): the
    path lets them read and every folder from ``top`` down lets them through. The one line that
    names the first such path and the ``chmod`` of the folders ``close`` that stops it, or None.
    A group counts as other users unless it is the owner's own (a user-private group). Folders
    above ``top`` are not judged: the repository may move, and a person may share it on purpose."""
    through: dict[Path, bool] = {}

    def allows(path: Path, bits: int) -> bool:
        try:
            st = os.lstat(path)
        except OSError:
            return False
        return bool(stat.S_IMODE(st.st_mode) & _others(st, bits))

    def reachable(folder: Path) -> bool:
        if not folder.is_relative_to(top):
            return True  # above the top folder: not judged
        if folder not in through:
            through[folder] = allows(folder, stat.S_IXGRP | stat.S_IXOTH) and (
                folder == top or reachable(folder.parent))
        return through[folder]

    found = [p for p in paths if p.is_relative_to(top) and allows(p, stat.S_IRGRP | stat.S_IROTH)
             and reachable(p.parent)]
    if not found:
        return None
    mode = stat.S_IMODE(os.lstat(found[0]).st_mode)
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    folders = " ".join(f"'{c}'" for c in close)
    return (f"the vault's memory is readable by other users of this machine ({found[0]} is mode {mode:04o}{more}); "
            f"unless it is meant to be, run `{CLOSE_COMMAND} {folders}`")


def _others(st: os.stat_result, bits: int) -> int:
    """``bits`` less the group's when the file's group is its owner's own."""
    if _private_group(st.st_uid, st.st_gid):
        return bits & ~(stat.S_IRWXG)
    return bits


def _private_group(uid: int, gid: int) -> bool:
    try:
        user = pwd.getpwuid(uid)
        group = grp.getgrgid(gid)
    except KeyError:
        return False
    return user.pw_gid == gid and group.gr_name == user.pw_name and not set(group.gr_mem) - {user.pw_name}
