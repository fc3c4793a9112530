"""Reliability on damaged state: each case is detected, reported with what to do, and the index
is rebuilt from the files where that is safe (the files and git history are never touched).

Cases: a truncated ``index.db``, a garbage ``index.db``, a missing ``.vault-mem/``, stale lock
files left by dead processes (``write.lock``, ``daemon.lock``), a stale git ``index.lock``, an
unreadable or outdated write journal, and an interrupted git operation (a real conflicted
merge: ``MERGE_HEAD`` present), during which writes are refused with a clear message.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import conftest
import pytest

from vault_mem.store.trust import seal


def cli(*args: str, root: Path, **env: str) -> conftest.CliResult:
    """``vault-mem --vault ROOT ARGS``, in process: the damage is on disk, not in a process."""
    return conftest.cli("--vault", str(root), *args, env=env)


def git(root: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    if check:
        assert proc.returncode == 0, f"git {args}: {proc.stderr}"
    return proc.stdout


@pytest.fixture
def root(tmp_path):
    import datetime as dt

    from vault_mem import Memory, Vault

    v = Vault.init(tmp_path / "vault")
    today = dt.date.today()
    v.import_memories(
        [
            Memory(
                f"fact-{i:02d}",
                "fact",
                {
                    "description": f"Fact number {i} about the kettle",
                    "created": today,
                    "updated": today,
                    "source": "agent",
                },
                f"Body {i}.\n",
            )
            for i in range(12)
        ],
        message="import: twelve facts",
    )
    v.remember("editor", "Uses Helix as the main editor", "Switched from Neovim.\n", type="preference")
    v.close()
    return tmp_path / "vault"


def snapshot(root: Path) -> tuple[str, dict[str, bytes]]:
    files = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for folder in ("preferences", "facts", "decisions", "procedures", "notes")
        for p in sorted((root / folder).glob("*.md"))
    }
    return git(root, "rev-parse", "HEAD").strip(), files


def assert_healthy(root: Path, expected_keys: int = 13) -> None:
    """doctor passes (sidecar == fresh rebuild, INDEX.md current) and everything is listed."""
    proc = cli("doctor", root=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from vault_mem import Vault

    v = Vault(root)
    try:
        assert len(v.list()) == expected_keys
    finally:
        v.close()


def _fault(record_property, name: str) -> None:
    """Count one injected fault (bench/reliability_figures.py sums them from the junit XML)."""
    record_property("faults_injected", 1)
    record_property("fault", name)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty-wal-garbage"])
def test_damaged_index_db_is_moved_aside_and_rebuilt(root, damage, record_property):
    before = snapshot(root)
    db = root / ".vault-mem/index.db"
    data = db.read_bytes()
    if damage == "truncated":
        db.write_bytes(data[: len(data) // 3])
    elif damage == "garbage":
        db.write_bytes(os.urandom(len(data)))
    else:
        db.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))
        (root / ".vault-mem/index.db-wal").write_bytes(os.urandom(1000))
    _fault(record_property, f"index.db {damage}")
    proc = cli("recall", "kettle", root=root)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "fact-" in proc.stdout  # answered from the rebuilt index
    # reported, with what happened and what is done about it
    assert "damaged" in proc.stderr and "rebuilding from the memory files" in proc.stderr, proc.stderr
    assert list((root / ".vault-mem").glob("index.db.corrupt-*")), "the damaged file is kept for a look"
    assert snapshot(root) == before  # files and history untouched
    assert_healthy(root)


def test_missing_state_folder_is_recreated(root, record_property):
    import shutil

    before = snapshot(root)
    shutil.rmtree(root / ".vault-mem")
    _fault(record_property, ".vault-mem missing")
    proc = cli("list", root=root)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "editor" in proc.stdout
    assert snapshot(root) == before
    assert_healthy(root)
    w = cli("remember", "after", "--description", "Written after the state folder was lost", root=root)
    assert w.returncode == 0, w.stderr
    assert git(root, "status", "--porcelain") == ""
    assert_healthy(root, 14)


def test_stale_lock_files_of_dead_processes_do_not_block(root, record_property):
    """flock locks die with their process: a lock file with a dead pid in it blocks nothing."""
    # a subprocess on purpose: the pid of a process that has exited
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=False
    ).stdout.strip()
    state = root / ".vault-mem"
    (state / "write.lock").write_text(f"{dead}\n")
    (state / "daemon.lock").write_text(f"{dead}\n")
    (state / "daemon.json").write_text(f'{{"pid": {dead}, "ready": true}}')
    # and the half-written temp file of an INDEX.md write killed mid-way (untracked in git status)
    (root / f".INDEX.md.vault-mem-tmp-{dead}").write_text("<!-- Generated by vault-mem")
    _fault(record_property, "stale write.lock + daemon.lock + temp file")
    status = cli("daemon", "--status", str(root), root=root)
    assert status.returncode == 1 and "no daemon running" in status.stdout, status.stdout + status.stderr
    # a dead daemon's files must not make reads skip their own reconcile: an edit is seen
    path = root / "facts/fact-00.md"
    path.write_text(path.read_text().replace("Fact number 0 about the kettle", "Fact zero, edited by hand"))
    listed = cli("list", root=root)
    assert "Fact zero, edited by hand" in listed.stdout
    assert not list(root.glob(".INDEX.md.vault-mem-tmp-*")), "a dead writer's temp file was left"
    git(root, "commit", "-qam", "person edits fact-00")
    w = cli("remember", "new-one", "--description", "Written past a stale lock", root=root)
    assert w.returncode == 0, w.stderr
    assert git(root, "log", "-1", "--format=%s").startswith("remember: new-one")
    assert git(root, "status", "--porcelain") == ""
    assert_healthy(root, 14)


def test_stale_git_index_lock_is_waited_for_then_reported(root, monkeypatch, record_property):
    """git's own index.lock left by a dead git: the write waits, then fails saying what to do.

    The commit itself (a ref update) lands before the staging-area refresh that needs
    index.lock; the write's journal stays, and the next write after the lock is gone finishes it.
    """
    from vault_mem import Vault
    from vault_mem.errors import LockTimeoutError
    from vault_mem.store import git as gitstore

    monkeypatch.setattr(gitstore, "_INDEX_LOCK_WAIT_S", 0.3)
    lock = root / ".git/index.lock"
    lock.write_text("")
    _fault(record_property, "stale .git/index.lock")
    v = Vault(root)
    try:
        with pytest.raises(LockTimeoutError, match="delete that index.lock file and retry"):
            v.remember("blocked", "Written while git's index.lock is stale", "body\n")
    finally:
        v.close()
    lock.unlink()
    v = Vault(root)
    try:
        v.remember("next", "The next write after the lock is gone", "body\n")
        assert (
            any("blocked" in n for n in v.notices)
            or git(root, "log", "--format=%s").count("remember: blocked") == 1
        )
    finally:
        v.close()
    assert git(root, "log", "--format=%s").count("remember: blocked") == 1
    assert git(root, "status", "--porcelain") == ""
    assert_healthy(root, 15)


@pytest.mark.parametrize("journal", ["garbage", "changed-since"])
def test_bad_write_journal_is_reported_not_applied(root, journal, record_property):
    state = root / ".vault-mem"

    if journal == "garbage":
        (state / "pending.json").write_bytes(b"\x00{not json")
        expect = "ignored and removed .vault-mem/pending.json: this machine did not write it"
    else:
        # a journal for fact-01 whose file a person has changed since: must not be overwritten
        (state / "pending.json").write_bytes(seal(
            root, "pending.json",
                {
                    "key": "fact-01",
                    "action": "update",
                    "message": "remember: fact-01 — stale\n",
                    "agent": "a",
                    "files": {"facts/fact-01.md": "---\ndescription: stale journal content\n---\n"},
                }
            )
        )
        path = root / "facts/fact-01.md"
        path.write_text(path.read_text().replace("Body 1.", "Body 1, edited by a person."))
        expect = "an interrupted write of 'fact-01' was not finished: facts/fact-01.md changed since"
    _fault(record_property, f"journal {journal}")
    head = git(root, "rev-parse", "HEAD").strip()
    proc = cli("list", root=root)
    assert proc.returncode == 0, proc.stderr
    assert f"note: {expect}" in proc.stderr, proc.stderr
    assert not (state / "pending.json").exists()
    assert git(root, "rev-parse", "HEAD").strip() == head  # nothing committed on a guess
    if journal == "changed-since":
        assert "edited by a person" in (root / "facts/fact-01.md").read_text()


@pytest.mark.slow
def test_interrupted_merge_is_detected_writes_refused_reads_work(root, record_property):
    """A real conflicted merge (MERGE_HEAD present, conflict markers in a memory file)."""
    git(root, "checkout", "-qb", "other")
    p = root / "facts/fact-03.md"  # both sides change the description: markers in the frontmatter
    p.write_text(p.read_text().replace("Fact number 3", "Fact three (other branch)"))
    git(root, "commit", "-qam", "other side")
    git(root, "checkout", "-q", "main")
    p.write_text(p.read_text().replace("Fact number 3", "Fact three (main)"))
    git(root, "commit", "-qam", "main side")
    merge = subprocess.run(["git", "merge", "other"], cwd=root, capture_output=True, text=True, check=False)
    assert merge.returncode != 0 and (root / ".git/MERGE_HEAD").exists()
    _fault(record_property, "interrupted merge")
    head = git(root, "rev-parse", "HEAD").strip()

    for args in (
        ["remember", "during-merge", "--description", "Written during a merge"],
        ["forget", "fact-04"],
        ["undo", "fact-05"],
    ):
        proc = cli(*args, root=root)
        assert proc.returncode == 1, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr
        assert "a git merge is in progress" in proc.stderr and "--abort" in proc.stderr, proc.stderr
    assert git(root, "rev-parse", "HEAD").strip() == head
    # tools refuse with the same message, as a tool error
    from vault_mem import Vault
    from vault_mem.adapters.tools import call_tool

    v = Vault(root)
    try:
        res = call_tool(v, "remember", {"key": "via-tool", "description": "During a merge"})
        assert res.is_error and "a git merge is in progress" in res.text
    finally:
        v.close()
    # reads still work; the conflicted file is reported, its last good version stays searchable
    listed = cli("list", root=root)
    assert listed.returncode == 0 and "fact-03" in listed.stdout, listed.stderr
    doctor = cli("doctor", root=root)
    assert "facts/fact-03.md" in doctor.stdout and "last good version stays searchable" in doctor.stdout, (
        doctor.stdout
    )
    assert git(root, "diff", "--name-only", "--diff-filter=U").split() == ["facts/fact-03.md"]

    git(root, "merge", "--abort")
    w = cli("remember", "after-merge", "--description", "Written after the merge was aborted", root=root)
    assert w.returncode == 0, w.stderr
    assert git(root, "status", "--porcelain") == ""
    assert_healthy(root, 14)

