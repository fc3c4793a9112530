"""Reliability under crashes: ``kill -9`` of a writer at every point of ``remember``, of writers
at random moments, and of the daemon in the middle of a big reindex.

Checkpoints come from the test hook in store/files.py (``VAULT_MEM_PAUSE_AT=<point>``: the process
announces ``.vault-mem/paused-<point>`` and waits there to be killed). After each kill:

- every memory file on disk parses (no half-written file, no stray temp file counted as one);
- the next command (a CLI ``list`` or another ``remember``) finishes the interrupted write and
  says so on stderr (``note: ...``), or, when the kill came before anything was written, finds
  nothing to do; a write that was finished is one commit with its trailers;
- the sidecar equals a fresh rebuild and INDEX.md equals the generated one;
- ``git status`` is clean.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import conftest
import pytest
from conftest import daemon_ready as _daemon_ready, new_vault
from conftest import wait_for as _wait_for

ROOT = Path(__file__).resolve().parent.parent
POINTS = ("before-write", "after-write", "during-index", "after-commit")


def _env(**extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "VAULT_MEM_EMBEDDER": "none",
        **extra,
    }
    if "VAULT_MEM_PAUSE_AT" not in extra:
        env.pop("VAULT_MEM_PAUSE_AT", None)
    return env


def cli(*args: str, root: Path, input: str | None = None, **env: str) -> conftest.CliResult:
    """The command after a crash, in process: what is killed is the writer before it, a real
    process (``_kill_at``, the random kills), not this one."""
    return conftest.cli("--vault", str(root), *args, input=input, env=env)


def git(root: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"git {args}: {proc.stderr}"
    return proc.stdout



def assert_every_file_parses(root: Path) -> int:
    from vault_mem.config import FOLDER_TYPES
    from vault_mem.model.memory import parse_memory

    n = 0
    for folder in FOLDER_TYPES:
        for path in (root / folder).glob("*"):
            rel = f"{folder}/{path.name}"
            assert ".vault-mem-tmp-" not in path.name or not path.name.endswith(".md"), rel
            if path.name.startswith("."):
                continue  # an atomic write's temp file: never a memory (the scan skips dot-files)
            parse_memory(path.read_text(encoding="utf-8"), rel)
            n += 1
    return n


def assert_converged(root: Path, *, clean: bool = True) -> None:
    from vault_mem import Vault

    vault = Vault(root)
    try:
        vault.reconcile(force=True)
        assert vault.sidecar.doctor() == []
        assert (root / "INDEX.md").read_text(encoding="utf-8") == vault.render_index()
    finally:
        vault.close()
    if clean:
        assert git(root, "status", "--porcelain") == ""


@pytest.fixture
def root(tmp_path):
    v = new_vault(tmp_path / "vault")
    v.remember("editor", "Uses Helix as the main editor", "Old body.\n", type="preference")
    v.close()
    return tmp_path / "vault"


def _remember_argv(root: Path, key: str, description: str, *more: str) -> list[str]:
    """The command line of a real ``vault-mem remember`` subprocess."""
    return [sys.executable, "-m", "vault_mem", "--vault", str(root), "remember", key,
            "--description", description, *more]


def _kill_at(root: Path, point: str, key: str, body: str) -> None:
    """Start ``vault-mem remember`` paused at ``point`` and kill -9 it there.

    A subprocess on purpose: kill -9 of the writing process is the fault under test."""
    proc = subprocess.Popen(
        _remember_argv(root, key, f"Crash test write of {key}", "--type", "preference", "--body", body),
        env=_env(VAULT_MEM_PAUSE_AT=point),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    marker = root / ".vault-mem" / f"paused-{point}"
    try:
        _wait_for(lambda: marker.exists() or proc.poll() is not None, 30, f"pause at {point}")
        assert proc.poll() is None, proc.communicate()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    marker.unlink()


@pytest.mark.parametrize("next_command", ["list", "remember"])
@pytest.mark.parametrize("point", POINTS)
def test_kill9_writer_at_each_checkpoint(root, point, next_command, record_property):
    from vault_mem.model.memory import parse_memory

    head_before = git(root, "rev-parse", "HEAD").strip()
    key = "editor"  # an update of an existing memory: the old version must never be half-lost
    body = f"New body written at {point}.\n" * 50
    _kill_at(root, point, key, body)
    assert_every_file_parses(root)
    rel = "preferences/editor.md"
    on_disk = parse_memory((root / rel).read_text(), rel).body
    assert on_disk in ("Old body.\n", body)  # the old file or the new one, never a mix

    if next_command == "list":
        proc = cli("list", root=root)
    else:
        proc = cli("remember", "other-key", "--description", "Another memory", "--body", "x", root=root)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    journal_written = point != "before-write"
    if journal_written:
        assert "note: finished an interrupted write of 'editor'" in proc.stderr, proc.stderr
    else:
        assert "note:" not in proc.stderr
    assert not (root / ".vault-mem/pending.json").exists()
    assert_every_file_parses(root)
    final = parse_memory((root / rel).read_text(), rel).body
    assert final == (body if journal_written else "Old body.\n")
    # the crashed write is in history exactly once, as its own commit
    commits = git(root, "log", "--format=%H", f"{head_before}..HEAD", "--", rel).split()
    assert len(commits) == (1 if journal_written else 0)
    if commits:
        msg = git(root, "log", "-1", "--format=%B", commits[0])
        assert msg.startswith("remember: editor — Crash test write of editor")
        assert "Memory-Key: editor" in msg and "Memory-Action: update" in msg
        assert set(git(root, "show", "--name-only", "--format=", commits[0]).split()) <= {rel, "INDEX.md"}
    assert_converged(root)
    # counts for bench/reliability_figures.py
    record_property("faults_injected", 1)
    record_property("kill9_writer", 1)
    record_property("interrupted_writes_finished", int(journal_written))


@pytest.mark.slow
def test_kill9_writers_at_random_moments(tmp_path, record_property):
    """kill -9 CLI writers a random few milliseconds after their write began (the journal
    appeared): mid file write, mid SQLite transaction, mid git object or ref write, or just after.
    The vault stays consistent after every one."""

    root = tmp_path / "vault"
    new_vault(root).close()
    rng = random.Random(6)
    kills = finished = 0
    for i in range(8):
        body = f"round {i} " + "x" * rng.randrange(10, 60_000) + "\n"
        # a subprocess on purpose: it is killed mid-write
        proc = subprocess.Popen(
            _remember_argv(root, f"k{i % 3}", f"Random kill round {i}", "--body-file", "-"),
            env=_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            proc.stdin.write(body.encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
        journal = root / ".vault-mem/pending.json"
        deadline = time.monotonic() + 30
        while not journal.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.0005)
        time.sleep(rng.uniform(0, 0.025))  # a write takes ~20-50 ms from its journal to its end
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
        assert_every_file_parses(root)
        interrupted = (root / ".vault-mem/pending.json").exists()
        nxt = cli("list", root=root)
        assert nxt.returncode == 0 and "Traceback" not in nxt.stderr, nxt.stderr
        if interrupted:  # killed mid-write: the next command finished (or reported) it
            assert "note: " in nxt.stderr, nxt.stderr
            finished += 1
        assert_every_file_parses(root)
        assert_converged(root)
    record_property("faults_injected", kills)
    record_property("kill9_writer", kills)
    record_property("interrupted_writes_finished", finished)


def _make_files(root: Path, n: int) -> None:
    """n memory files written straight to disk (as a person or a git pull would)."""
    for i in range(n):
        (root / "notes" / f"bulk-{i:05d}.md").write_text(
            f"---\ndescription: Bulk note {i} about topic {i % 31}\ncreated: 2026-01-05\n"
            f"updated: 2026-01-05\n---\n\nBody of bulk note {i}.\n"
        )


def _indexed_rows(root: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{root / '.vault-mem/index.db'}?mode=ro", uri=True, timeout=0.2)
        try:
            return con.execute("SELECT count(*) FROM files").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0



@pytest.mark.slow
def test_kill9_daemon_mid_reindex_then_restart_converges(tmp_path, record_property):
    root = tmp_path / "vault"
    new_vault(root).close()
    n = 1000
    _make_files(root, n)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "person: bulk notes")
    (root / ".vault-mem" / "index.db").unlink()  # a big start-up reindex from nothing
    for suffix in ("-wal", "-shm"):
        (root / ".vault-mem" / f"index.db{suffix}").unlink(missing_ok=True)
    env = _env(VAULT_MEM_QUIET_SECONDS="600")
    # subprocesses on purpose: the daemon is killed with -9, twice, and restarted
    log = tmp_path / "daemon-stderr.log"  # a file, not a pipe (conftest.spawn_daemon says why)
    daemon = conftest.spawn_daemon(root, env, log)
    try:
        _wait_for(lambda: _indexed_rows(root) > 0 or daemon.poll() is not None, 60, "reindex to start")
        rows_at_kill = _indexed_rows(root)
        daemon.send_signal(signal.SIGKILL)
        daemon.wait()
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    assert 0 < rows_at_kill < n, f"kill came outside the reindex ({rows_at_kill} of {n} rows)"

    # a second round: kill it during a reindex that a git operation triggers
    daemon = conftest.spawn_daemon(root, env, log)
    try:
        _wait_for(lambda: _daemon_ready(root, daemon.pid) or daemon.poll() is not None, 60, "daemon ready")
        assert daemon.poll() is None, conftest.daemon_log(daemon)
        git(root, "rm", "-rq", "notes")
        git(root, "commit", "-qm", "person: drop the bulk notes")
        _wait_for(lambda: _indexed_rows(root) < n or daemon.poll() is not None, 30, "the removal reindex")
        daemon.send_signal(signal.SIGKILL)
        daemon.wait()
        git(root, "revert", "--no-edit", "HEAD")  # they come back while no daemon runs
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()

    daemon = conftest.spawn_daemon(root, env, log)
    try:
        _wait_for(
            lambda: _daemon_ready(root, daemon.pid) or daemon.poll() is not None, 60, "restarted daemon ready"
        )
        assert daemon.poll() is None
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=30) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    err = conftest.daemon_log(daemon)
    assert "Traceback" not in err and "database is locked" not in err, err
    assert _indexed_rows(root) == n
    assert_converged(root)
    record_property("faults_injected", 2)
    record_property("kill9_daemon", 2)


@pytest.mark.slow
def test_kill9_daemon_before_its_index_commit_restart_commits_index_md(root, tmp_path, record_property):
    """A daemon killed after it rewrote INDEX.md and before it committed it (the quiet period)
    leaves INDEX.md uncommitted; the restarted daemon finds it current and used to commit
    nothing. It commits INDEX.md alone, derived from committed files only."""
    from vault_mem.model.memory import Memory, render_memory

    env = _env(VAULT_MEM_QUIET_SECONDS="600")  # no commit of its own before the kill
    log = tmp_path / "daemon-stderr.log"
    daemon = conftest.spawn_daemon(root, env, log)
    try:
        _wait_for(lambda: _daemon_ready(root, daemon.pid) or daemon.poll() is not None, 60, "daemon ready")
        assert daemon.poll() is None, conftest.daemon_log(daemon)
        # a person commits a memory without the hook (so without INDEX.md): the daemon regenerates it
        meta = {"description": "Prefers tea over coffee", "created": "2026-01-05", "updated": "2026-01-05"}
        (root / "preferences/tea.md").write_text(render_memory(Memory("tea", "preference", meta, "")))
        git(root, "add", "preferences/tea.md")
        git(root, "commit", "-qm", "person: tea", "--no-verify")
        _wait_for(lambda: "tea" in (root / "INDEX.md").read_text(), 30, "INDEX.md regenerated")
        daemon.send_signal(signal.SIGKILL)
        daemon.wait()
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    record_property("faults_injected", 1)
    record_property("kill9_daemon", 1)
    assert git(root, "status", "--porcelain") == " M INDEX.md\n"
    head = git(root, "rev-parse", "HEAD").strip()

    daemon = conftest.spawn_daemon(root, env, log)
    try:
        _wait_for(lambda: _daemon_ready(root, daemon.pid) or daemon.poll() is not None, 60, "restarted daemon ready")
        _wait_for(lambda: git(root, "rev-parse", "HEAD").strip() != head, 30, "INDEX.md committed")
        assert git(root, "show", "--name-only", "--format=%s", "HEAD").split("\n") == [
            "index: regenerate INDEX.md", "", "INDEX.md", ""]
        assert "- tea (2026-01-05): Prefers tea over coffee" in git(root, "show", "HEAD:INDEX.md")
        assert git(root, "status", "--porcelain") == ""
        # a person's edit made now is not swept into a commit at once: it waits for the quiet period
        editor = root / "preferences/editor.md"
        editor.write_text(editor.read_text().replace("Uses Helix", "Uses Zed"))
        _wait_for(lambda: "Uses Zed" in (root / "INDEX.md").read_text(), 30, "INDEX.md follows the edit")
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=30) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    assert "Uses Zed" not in git(root, "log", "-p")
    assert "Traceback" not in conftest.daemon_log(daemon)


def test_restart_leaves_index_md_alone_while_a_person_has_uncommitted_edits(root, tmp_path):
    """INDEX.md that lists a person's uncommitted edit is not committed by a restart (it would show
    the edit as the daemon's change); the edit's own commit after the quiet period carries it."""
    editor = root / "preferences/editor.md"
    editor.write_text(editor.read_text().replace("Uses Helix", "Uses Zed"))
    assert cli("index", "--write", root=root).returncode == 0  # what a killed daemon leaves behind
    head = git(root, "rev-parse", "HEAD").strip()
    daemon = conftest.spawn_daemon(root, _env(VAULT_MEM_QUIET_SECONDS="600"), tmp_path / "daemon-stderr.log")
    try:
        _wait_for(lambda: _daemon_ready(root, daemon.pid) or daemon.poll() is not None, 60, "daemon ready")
        daemon.send_signal(signal.SIGTERM)
        assert daemon.wait(timeout=30) == 0
    finally:
        if daemon.poll() is None:
            daemon.kill()
            daemon.wait()
    assert git(root, "rev-parse", "HEAD").strip() == head
    assert sorted(git(root, "status", "--porcelain").splitlines()) == [" M INDEX.md", " M preferences/editor.md"]
