"""Git's lock files that vault-mem itself creates (``index.lock``, ``refs/heads/<branch>.lock``):
each is recognisable as vault-mem's, and removed by the next command once its owner is gone.

A lock is born as a second name of an *owner record*: a file in the git dir named
``vault-mem-lock.<pid>.<start>.<host>.<command>.<n>`` (who holds it: pid, process start time,
machine, command) is written first, with the lock's content, and then hard-linked to the lock's
path, which fails like git's own exclusive create when the lock exists. So:

- a lock is vault-mem's exactly when an owner record is the same file (same device and inode);
  as long as the record exists its inode cannot be reused, so a person's git lock created later
  can never be taken for ours;
- a kill at any moment leaves a record (alone, or beside its lock, or beside the file the lock
  was renamed to): the next command removes the lock, only while it is still that very file,
  and the record, once the owner's pid is gone or belongs to a process started at another time;
- a lock with no record of ours (a person's git command, or one that died) is never touched:
  waiting for it is said, with what to do.

Where hard links are not supported, the lock is created exclusively as before (and then cannot
be recognised after a crash).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from vault_mem.platform.logs import Logger
from vault_mem.store.locks import GONE, owner_gone, process_start, this_command, this_host

log = Logger("vault_mem.store.gitlocks")  # logging imported at the first message (start-up time)

#: in a git dir: the owner record of a git lock vault-mem holds (see the module docstring)
RECORD_PREFIX = "vault-mem-lock."
#: in a git dir: a copy of git's index a writer prepares (and git's ``.lock`` of it while it runs)
INDEX_COPY_PREFIX = "vault-mem-index."
_counter = itertools.count()
_identity: dict[int, str] = {}
_no_links_said = False
#: the owner records of the locks this process holds that were made by an exclusive create (no
#: hard links where they were taken): such a lock is not its record's file, and is ours until
#: released. Per lock, never per process: a process that once met a file system without links
#: (a vault on a FAT or network disk) took every later lock's name for its own, on any disk, and
#: removed a person's index.lock taken after they had removed ours by hand
_made_exclusive: set[str] = set()


@dataclass(frozen=True)
class Owner:
    """Who wrote an owner record, read from its name."""

    pid: int
    start: str | None
    host: str
    command: str

    def describe(self) -> str:
        return f"vault-mem pid {self.pid} ({self.command})"


def owner_token() -> str:
    """``<pid>.<start>.<host>.<command>`` of this process, for the names of its owned files."""
    pid = os.getpid()
    if _identity.get(pid) is None:  # per pid: a forked child is another process
        start = process_start(pid)
        _identity.clear()
        _identity[pid] = f"{pid}.{start if start and start != GONE else 'unknown'}.{this_host()}"
    return f"{_identity[pid]}.{this_command()}"


def parse_owner(name: str, prefix: str) -> Owner | None:
    """The owner a file name made by :func:`owner_token` (after ``prefix``) records, or None."""
    if not name.startswith(prefix):
        return None
    parts = name[len(prefix):].split(".")
    if len(parts) < 4 or not parts[0].isdigit():
        return None
    return Owner(int(parts[0]), None if parts[1] == "unknown" else parts[1], parts[2], parts[3])


def take(lock: Path, records: Path, content: bytes = b"") -> Path | None:
    """Create git's lock file ``lock`` holding ``content``, as vault-mem's: returns its owner
    record (pass it to :func:`release`), or None when the lock exists (someone holds it)."""
    global _no_links_said
    record = records / f"{RECORD_PREFIX}{owner_token()}.{next(_counter)}"
    with open(record, "xb") as fh:  # the record first: from here on a kill leaves it behind
        fh.write(content)
    try:
        os.link(record, lock)
        return record
    except FileExistsError:
        record.unlink(missing_ok=True)
        return None
    except OSError as exc:  # a file system without hard links: an exclusive create, unrecognisable
        if not _no_links_said:
            _no_links_said = True
            log.warning("vault-mem: %s: no hard links here (%s); a vault-mem process killed while "
                        "holding a git lock leaves it for you to delete", records, exc.strerror)
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        record.unlink(missing_ok=True)
        return None
    try:
        os.write(fd, content)
    finally:
        os.close(fd)
    _made_exclusive.add(str(record))
    return record


def release(lock: Path | None, record: Path) -> None:
    """Remove ``lock`` (None: it was renamed into place) and then its owner record. The lock is
    removed only while it is still ours (the record's other name): git's message for a held
    index.lock tells a person to remove the file by hand, and one who did while a commit of
    ours held it, and whose git then took index.lock, keeps that lock."""
    exclusive = str(record) in _made_exclusive
    _made_exclusive.discard(str(record))
    if lock is not None:
        try:
            ours = exclusive or _same_file(os.lstat(record), lock)
        except OSError:
            ours = True  # the record is unreadable: as before records, the name is taken for ours
        if ours:
            lock.unlink(missing_ok=True)
    record.unlink(missing_ok=True)


def _same_file(a: os.stat_result, path: Path) -> bool:
    try:
        b = os.lstat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def lock_candidates(git_dir: Path, common_dir: Path) -> list[Path]:
    """Every git lock file vault-mem may hold in this repository right now."""
    out = [git_dir / "index.lock"]
    refs = common_dir / "refs"
    if refs.is_dir():
        out.extend(p for p in refs.rglob("*.lock") if not p.is_dir())
    return out


def index_copy(git_dir: Path) -> Path:
    """A new path for a copy of git's index, named for this process (removed once it is gone)."""
    return git_dir / f"{INDEX_COPY_PREFIX}{owner_token()}.{next(_counter)}"


def clear_dead(git_dir: Path, common_dir: Path) -> list[str]:
    """Remove the git locks (and owner records, and index copies) of vault-mem processes that
    are gone; returns one line per lock removed. A lock is removed only while it is still its
    record's file."""
    removed: list[str] = []
    candidates: list[Path] | None = None
    for folder in dict.fromkeys((git_dir, common_dir)):
        try:
            names = [n for n in os.listdir(folder) if n.startswith((RECORD_PREFIX, INDEX_COPY_PREFIX))]
        except OSError:
            continue
        for name in names:
            prefix = RECORD_PREFIX if name.startswith(RECORD_PREFIX) else INDEX_COPY_PREFIX
            owner = parse_owner(name, prefix)
            record = folder / name
            if owner is None or not owner_gone(owner.pid, owner.start, owner.host):
                continue
            if prefix == INDEX_COPY_PREFIX:
                record.unlink(missing_ok=True)
                continue
            try:
                st = os.lstat(record)
            except OSError:
                continue
            if st.st_nlink > 1:
                if candidates is None:
                    candidates = lock_candidates(git_dir, common_dir)
                for lock in candidates:
                    if _same_file(st, lock):
                        lock.unlink(missing_ok=True)
                        removed.append(f"removed {lock} left by {owner.describe()}, which ended while holding it")
            record.unlink(missing_ok=True)
    return removed


def holder(lock: Path, git_dir: Path, common_dir: Path) -> Owner | None:
    """The vault-mem process whose lock ``lock`` is, or None (nobody's, or not vault-mem's)."""
    try:
        st = os.lstat(lock)
    except OSError:
        return None
    for folder in dict.fromkeys((git_dir, common_dir)):
        try:
            names = [n for n in os.listdir(folder) if n.startswith(RECORD_PREFIX)]
        except OSError:
            continue
        for name in names:
            if _same_file(st, folder / name):
                return parse_owner(name, RECORD_PREFIX)
    return None


def describe_holder(lock: Path, git_dir: Path, common_dir: Path) -> str:
    """Who holds ``lock``, in words for a waiting message."""
    owner = holder(lock, git_dir, common_dir)
    if owner is not None:
        return f"held by {owner.describe()}: retry when it is done"
    return (f"held by a git command, not by vault-mem ({lock}): if no git command is running, "
            f"delete that {lock.name} file and retry")
