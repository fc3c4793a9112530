"""Git lock files vault-mem creates are its own, and never outlive it; locks never wedge a vault.

Real processes throughout: a ``vault-mem remember`` is killed with SIGKILL while it holds git's
``index.lock`` or the branch's ``refs/heads/main.lock`` (the test hook ``VAULT_MEM_PAUSE_AT``
stops it there), and the next command must remove what it left and succeed at once. A lock
with no owner record of ours (a person's git) is never touched, and waiting for it is said. A
read never waits for the vault's write lock.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import cli, git, new_vault, run_cli, wait_for

from vault_mem.store import gitlocks
from vault_mem.store.locks import GONE, owner_gone, process_start, this_host

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def root(tmp_path):
    v = new_vault(tmp_path / "vault")
    v.remember("editor", "Uses Helix as the main editor", "Old body.\n", type="preference")
    v.close()
    return tmp_path / "vault"


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "VAULT_MEM_EMBEDDER": "none", **extra}
    if "VAULT_MEM_PAUSE_AT" not in extra:
        env.pop("VAULT_MEM_PAUSE_AT", None)
    return env


def _remember(root: Path, key: str, **env: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "vault_mem", "--vault", str(root), "remember", key,
         "--description", f"Written by the test as {key}", "--type", "fact"],
        env=_env(**env), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _paused(root: Path, point: str, marker_dir: Path, key: str = "crashed") -> subprocess.Popen:
    """A ``vault-mem remember`` stopped at ``point`` (alive: the caller kills it)."""
    proc = _remember(root, key, VAULT_MEM_PAUSE_AT=point)
    marker = marker_dir / f"paused-{point}"
    wait_for(lambda: marker.exists() or proc.poll() is not None, 60, f"pause at {point}")
    assert proc.poll() is None, proc.communicate()
    marker.unlink()
    return proc


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait()  # reaped: a zombie is gone too, but a real shell reaps its children
    proc.stdout.close()
    proc.stderr.close()


def _records(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".git").iterdir() if p.name.startswith("vault-mem-"))


def _read_stderr_until(proc: subprocess.Popen, words: str, timeout: float) -> str:
    """What ``proc`` wrote on stderr up to the first line holding ``words`` (or all of it)."""
    seen = b""
    end = time.monotonic() + timeout
    while words.encode() not in seen and time.monotonic() < end and proc.poll() is None:
        ready, _, _ = select.select([proc.stderr], [], [], 0.2)
        if ready:
            seen += os.read(proc.stderr.fileno(), 4096)
    return seen.decode("utf-8", "replace")


@pytest.mark.parametrize("next_command", ["remember", "list"])
@pytest.mark.parametrize(("point", "lock"), [("holding-index-lock", "index.lock"),
                                             ("holding-ref-lock", "refs/heads/main.lock")])
def test_a_writer_killed_holding_a_git_lock_leaves_nothing_the_next_command_keeps(root, point, lock,
                                                                                   next_command):
    proc = _paused(root, point, root / ".git")
    _kill(proc)
    assert (root / ".git" / lock).exists()  # what a kill -9 at that moment leaves
    refused = subprocess.run(["git", "commit", "--allow-empty", "-m", "a person"], cwd=root,
                             capture_output=True, text=True, check=False)
    assert refused.returncode != 0 and ".lock" in refused.stderr  # git itself is wedged by it

    if next_command == "remember":
        done = cli("--vault", str(root), "remember", "after", "--description", "After the crash")
    else:
        done = cli("--vault", str(root), "list")
    assert done.returncode == 0, done.stderr
    assert not (root / ".git" / lock).exists()
    assert f"left by vault-mem pid {proc.pid} (remember)" in done.stderr  # said, with whose it was
    assert _records(root) == []
    # git works again for the person, and the vault for the agent
    git(root, "commit", "--allow-empty", "-qm", "a person's commit")
    assert cli("--vault", str(root), "remember", "later", "--description", "Later").returncode == 0
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--no-dangling")


def test_a_lock_whose_owner_pid_was_reused_is_removed(both_platforms, root):
    """The owner record names pid and start time: a live process on that pid started at another
    time is not the owner (the old pid-only check waited on it forever)."""
    if process_start(os.getpid()) is None:
        pytest.skip("this system cannot tell process start times (then a live pid's lock is kept)")
    # another start time, in the form this system's implementation writes (/proc ticks, ps time)
    then = "1@0000" if "@" in process_start(os.getpid()) else "t1"
    other = subprocess.Popen(["sleep", "60"])
    try:
        # made by hand the way take() makes it: the record, hard-linked to the lock
        record = root / ".git" / f"{gitlocks.RECORD_PREFIX}{other.pid}.{then}.{this_host()}.remember.0"
        record.write_bytes(b"vault-mem pid 1 (remember)\n")
        os.link(record, root / ".git" / "index.lock")
        assert process_start(other.pid) not in (None, GONE, then)
        assert owner_gone(other.pid, then, this_host()) is True
        done = cli("--vault", str(root), "remember", "after", "--description", "After the reuse")
        assert done.returncode == 0, done.stderr
        assert not (root / ".git" / "index.lock").exists()
        assert _records(root) == []
    finally:
        other.kill()
        other.wait()


def test_a_lock_of_a_live_vault_mem_process_is_left_alone(both_platforms, root):
    start = process_start(os.getpid())
    if start is None:
        pytest.skip("this system cannot tell process start times")
    record = root / ".git" / f"{gitlocks.RECORD_PREFIX}{os.getpid()}.{start}.{this_host()}.remember.0"
    record.write_bytes(b"")
    os.link(record, root / ".git" / "index.lock")
    from vault_mem.store.git import GitRepo

    assert GitRepo(root).clear_dead_locks() == []
    assert (root / ".git" / "index.lock").exists() and record.exists()
    assert gitlocks.describe_holder(root / ".git" / "index.lock", root / ".git", root / ".git") == \
        f"held by vault-mem pid {os.getpid()} (remember): retry when it is done"


def test_a_persons_index_lock_is_never_touched_and_the_wait_is_said(root):
    """A lock with no owner record of ours is a person's git: the writer waits, says so within a
    few seconds (naming the file and what to do), and goes on once the person's git is done. A
    dead vault-mem's record beside it, for another file, does not make the lock ours."""
    lock = root / ".git" / "index.lock"
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = root / ".git" / f"{gitlocks.RECORD_PREFIX}{dead.pid}.1@0000.{this_host()}.remember.0"
    stale.write_bytes(b"")
    os.link(stale, root / ".git" / "other.lock")  # its own lock: not index.lock
    lock.write_bytes(b"DIRC person")  # a person's git writing the new index
    inode = lock.stat().st_ino
    proc = _remember(root, "waits")
    try:
        said = _read_stderr_until(proc, "waiting for git's index.lock", 20)
        assert "waiting for git's index.lock" in said, said
        assert f"held by a git command, not by vault-mem ({lock})" in said
        assert "delete that index.lock file and retry" in said
        assert lock.stat().st_ino == inode and lock.read_bytes() == b"DIRC person"  # untouched
        lock.unlink()  # the person's git command ends
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert not stale.exists()  # the dead writer's record went; the file it named was not git's lock
    assert (root / "facts" / "waits.md").exists()


def test_a_read_never_waits_for_the_write_lock_and_a_waiting_write_says_for_whom(root):
    holder = _paused(root, "before-write", root / ".vault-mem", key="holder")  # holds the write lock
    try:
        listed = run_cli("--vault", str(root), "list", "--json")  # subprocess.run(timeout=120)
        assert listed.returncode == 0, listed.stderr
        assert "editor" in listed.stdout and "waiting" not in listed.stderr
        writer = _remember(root, "second")
        said = _read_stderr_until(writer, "waiting for", 20)
        assert f"waiting for the vault's write lock, held by pid {holder.pid} (remember)" in said, said
    finally:
        _kill(holder)
    _, err = writer.communicate(timeout=60)
    assert writer.returncode == 0, err
    assert (root / "facts" / "second.md").exists()


def test_releasing_a_lock_a_person_removed_and_took_again_leaves_theirs(root):
    """git's message for a held index.lock says "remove the file manually to continue"; a person
    who did while a commit of vault-mem held it (bench/bench_checkout_refusals.py: 3 of 80
    checkouts met that lock), and whose git then took index.lock, lost that lock to vault-mem's
    release, which removed whatever file had the name."""
    git_dir = root / ".git"
    lock = git_dir / "index.lock"
    record = gitlocks.take(lock, git_dir, b"vault-mem's")
    assert record is not None
    lock.unlink()  # the person removes it by hand
    lock.write_bytes(b"the person's git")  # and their git takes it
    gitlocks.release(lock, record)
    assert lock.read_bytes() == b"the person's git"
    assert not record.exists()
    lock.unlink()
    record = gitlocks.take(lock, git_dir, b"vault-mem's")  # and a lock still ours is released as ever
    gitlocks.release(lock, record)
    assert not lock.exists() and not record.exists()


def test_a_lock_taken_without_hard_links_once_leaves_a_persons_lock_alone_later(root, monkeypatch):
    """Whether a lock was made without hard links was one flag per process: once a lock was
    taken on a file system without them (tests/test_gitstore.py's no-hard-links case ran first
    in the same pytest worker: the test above then fails, as it did in a ``-n 2`` run here; a
    long-lived process with a vault on a FAT or network disk), every later release took the
    lock's name for its own on any disk, and removed a person's index.lock taken after they had
    removed ours by hand. It is known per lock now."""
    import errno

    git_dir = root / ".git"
    lock = git_dir / "index.lock"

    def refuse(*a, **kw):
        raise OSError(errno.EPERM, "Operation not permitted")
    with monkeypatch.context() as m:  # a file system without hard links: an exclusive create
        m.setattr(gitlocks.os, "link", refuse)
        record = gitlocks.take(lock, git_dir, b"vault-mem's")
        assert record is not None and lock.exists()
        gitlocks.release(lock, record)  # ours, though not its record's file: removed
        assert not lock.exists() and not record.exists()
    record = gitlocks.take(lock, git_dir, b"vault-mem's")  # hard links again
    lock.unlink()  # the person removes it by hand
    lock.write_bytes(b"the person's git")  # and their git takes it
    gitlocks.release(lock, record)
    assert lock.read_bytes() == b"the person's git"
    assert not record.exists()
    lock.unlink()


def test_the_process_scan_under_index_lock_reads_only_what_started_since_the_one_before(root, monkeypatch):
    """index.lock is held as briefly as it can be (issue 25): the scan for a person's git
    command made while the lock is held reads only the processes that started since the scan
    just before the lock, however old that one's full read. Before, every listing older than
    ``REUSE_S`` read every process in /proc again, with a person's `git checkout` refused for
    the held lock meanwhile. ``REUSE_S = 0`` makes every listing outside the lock a full one."""
    from vault_mem import Vault
    from vault_mem.platform import procs
    from vault_mem.store import gitprocs

    monkeypatch.setattr(gitprocs, "REUSE_S", 0.0)
    lock = root / ".git" / "index.lock"
    reads: list[tuple[bool, int, int]] = []  # (index.lock held, pids read, pids in /proc)
    real = procs._proc_listing

    def listing(program, names, keep=lambda argv, exact: True):
        every = sum(1 for n in os.listdir("/proc") if n.isdigit())
        reads.append((lock.exists(), len(names), every))
        return real(program, names, keep)

    monkeypatch.setattr(procs, "_proc_listing", listing)
    v = Vault(root)
    try:
        for n in range(3):
            v.remember(f"scan-{n}", f"Written while the scans are counted, {n}", "Body.\n", type="fact")
    finally:
        v.close()
    under = [r for r in reads if r[0]]
    outside = [r for r in reads if not r[0]]
    assert under and outside, reads
    assert all(read >= every // 2 for _, read, every in outside[:1]), outside  # a full read before
    assert all(read < every // 2 for _, read, every in under), under  # never a full one under the lock


def test_this_host_is_the_mark_of_socket_gethostname():
    """The host mark in lock records comes from ``os.uname`` (no ``socket`` import at start-up):
    the same mark as ``socket.gethostname()`` gave, so records written before still match."""
    import hashlib
    import socket

    assert this_host() == hashlib.sha1(socket.gethostname().encode("utf-8", "replace")).hexdigest()[:8]


def test_a_sync_landing_its_commits_says_whose_index_lock_it_waits_for(tmp_path, caplog):
    """A sync moves its branch through GitRepo.land_ref (flakesave), under git's index.lock as a
    write lands: behind a person's index.lock (or one a crashed git left) it waits up to 30 s. A
    write says within SAY_WAITING_AFTER_S whose lock it waits for and what to do; the sync said
    nothing until its 30 s were up. Here the lock goes after the saying, and the branch moves."""
    import threading

    from vault_mem.store.git import GitRepo
    from vault_mem.store.gitobjects import Identity
    from vault_mem.store.locks import SAY_WAITING_AFTER_S

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "commit", "-q", "--allow-empty", "-m", "first")
    old = git(repo, "rev-parse", "HEAD").strip()
    new = git(repo, "commit-tree", "-p", old, "-m", "synced", f"{old}^{{tree}}").strip()
    lock = repo / ".git" / "index.lock"
    lock.write_bytes(b"DIRC person")
    said = threading.Event()

    def person_ends() -> None:  # once the wait was said (or 25 s): the person's git command ends
        said.wait(25)
        lock.unlink()

    class Said(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "waiting for git's index.lock" in record.getMessage():
                said.set()

    handler = Said(logging.WARNING)
    logging.getLogger("vault_mem").addHandler(handler)
    ender = threading.Thread(target=person_ends)
    ender.start()
    try:
        with caplog.at_level(logging.WARNING, logger="vault_mem"):
            began = time.monotonic()
            assert GitRepo(repo).land_ref(new, old, reflog="vault-mem sync", who=Identity("a", "a@example.org"))
            waited = time.monotonic() - began
    finally:
        said.set()
        ender.join()
        logging.getLogger("vault_mem").removeHandler(handler)
    assert git(repo, "rev-parse", "HEAD").strip() == new
    text = caplog.text
    assert "waiting for git's index.lock" in text and f"not by vault-mem ({lock})" in text, text
    assert SAY_WAITING_AFTER_S <= waited < 25, waited
