"""The one write transaction and the one safe reader (vault_mem.vault.transaction, store.files).

Every write path (remember, forget, import, undo, resolve, crash recovery) goes through the same
steps and the same WritePolicy; these tests hold the paths that used to have their own checks.
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import git

from vault_mem import Memory, Vault
from vault_mem.errors import (
    ConcurrentEditError,
    GitError,
    InvalidMemoryError,
    MalformedFileError,
    SecretError,
    VaultMemError,
)
from vault_mem.store.files import atomic_write, read_memory_bytes
from vault_mem.store.trust import seal

# built at run time so that no credential-shaped literal sits in the repository
AWS_KEY = "AK" + "IA" + "QWERTYUIOPASDFGH"
GITHUB_TOKEN = "gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def commits(vault: Vault) -> int:
    return int(git(vault.root, "rev-list", "--count", "HEAD"))


def test_import_refuses_a_credential_in_a_body_and_writes_nothing(vault):
    before = commits(vault)
    with pytest.raises(SecretError, match="body"):
        vault.import_memories([
            Memory("clean", "fact", {"description": "a clean fact"}, "nothing to see"),
            Memory("leaky", "fact", {"description": "deploy notes"}, f"token {GITHUB_TOKEN}"),
        ], message="import: two")
    assert not (vault.root / "facts/clean.md").exists()
    assert not (vault.root / "facts/leaky.md").exists()
    assert commits(vault) == before
    assert git(vault.root, "status", "--porcelain") == ""


def test_import_refuses_a_body_over_the_limit(vault):
    big = "x" * 200_000
    with pytest.raises((InvalidMemoryError, MalformedFileError), match="limit"):
        vault.import_memories([Memory("huge", "note", {"description": "a huge note"}, big)], message="import")
    assert not (vault.root / "notes/huge.md").exists()


def test_import_refuses_a_credential_in_any_field(vault):
    with pytest.raises(SecretError):
        vault.import_memories([Memory("f", "fact", {"description": "ok", "api": AWS_KEY})], message="import")
    assert not (vault.root / "facts/f.md").exists()


def test_get_list_and_recall_agree_on_a_symlinked_file(vault):
    vault.remember("editor", "Uses Helix as the main editor", "switched from vim")
    os.symlink(vault.root / "facts/editor.md", vault.root / "facts/alias.md")
    os.symlink(vault.root / "facts/editor.md", vault.root / "preferences/elsewhere.md")
    with pytest.raises(MalformedFileError, match="symlink"):
        vault.get("alias")
    listed = {e["key"] for e in vault.list()}
    assert "alias" not in listed and "elsewhere" not in listed and "editor" in listed
    assert [h.key for h in vault.recall("Helix editor").hits] == ["editor"]
    problems = {p.path for p in vault.sidecar.problems()}
    assert {"facts/alias.md", "preferences/elsewhere.md"} <= problems


def test_the_safe_reader_never_follows_a_link(tmp_path):
    root = tmp_path / "v"
    (root / "facts").mkdir(parents=True)
    real = root / "facts/real.md"
    real.write_text("---\ndescription: x\n---\n")
    (root / "facts/link.md").symlink_to(real)
    assert read_memory_bytes(root, "facts/real.md", max_bytes=1000)[0].startswith(b"---")
    with pytest.raises(MalformedFileError, match="symlink"):
        read_memory_bytes(root, "facts/link.md", max_bytes=1000)
    with pytest.raises(MalformedFileError, match="limit"):
        read_memory_bytes(root, "facts/real.md", max_bytes=5)
    assert read_memory_bytes(root, "facts/gone.md", max_bytes=1000) is None


def test_an_editors_save_during_a_write_is_never_overwritten(vault):
    vault.remember("editor", "Uses Helix", "first")
    rel = "facts/editor.md"
    checked = (vault.root / rel).read_bytes()
    person = b"---\ndescription: Uses Helix, edited by hand\n---\nmy words\n"
    with vault.transaction() as tx:
        tx.expect(rel, checked)
        (vault.root / rel).write_bytes(person)  # the editor saves after the writer read the file
        new = vault.ws.policy.file_bytes(Memory("editor", "fact", {"description": "Uses Kakoune"}, "b"))
        with pytest.raises(ConcurrentEditError, match="changed while"):
            tx.commit({rel: new}, "remember: editor — Uses Kakoune", key="editor", action="update",
                      type_="fact")
    assert (vault.root / rel).read_bytes() == person
    assert not (vault.state_dir / "pending.json").exists()
    assert list(vault.root.glob("facts/.editor.md.vault-mem-tmp-*")) == []


def test_a_write_that_stops_half_way_puts_back_what_it_wrote(vault):
    vault.remember("a", "first memory", "one")
    vault.remember("b", "second memory", "two")
    a_before = (vault.root / "facts/a.md").read_bytes()
    with vault.transaction() as tx:
        tx.expect("facts/b.md", b"not what is there")
        changes = {"facts/a.md": vault.ws.policy.file_bytes(Memory("a", "fact", {"description": "changed"})),
                   "facts/b.md": None}
        with pytest.raises(ConcurrentEditError):
            tx.commit(changes, "remember: a — changed", key="a", action="update", type_="fact")
    assert (vault.root / "facts/a.md").read_bytes() == a_before
    assert (vault.root / "facts/b.md").exists()
    assert git(vault.root, "status", "--porcelain") == ""


def test_atomic_write_with_expect_refuses_a_changed_target(tmp_path):
    path = tmp_path / "f.md"
    path.write_bytes(b"old")
    with pytest.raises(ConcurrentEditError):
        atomic_write(path, b"new", expect=b"something else")
    assert path.read_bytes() == b"old"
    atomic_write(path, b"new", expect=b"old")
    assert path.read_bytes() == b"new"
    with pytest.raises(ConcurrentEditError):
        atomic_write(tmp_path / "absent.md", b"x", expect=b"was here")
    assert not (tmp_path / "absent.md").exists()


def test_undo_does_not_restore_a_version_holding_a_credential(vault):
    rel = vault.root / "facts/deploy.md"
    rel.write_text(f"---\ndescription: deploy notes\n---\nkey {AWS_KEY}\n")
    git(vault.root, "add", "facts/deploy.md")
    git(vault.root, "commit", "-q", "--no-verify", "-m", "a person's commit, hook skipped")
    vault.remember("deploy", "deploy notes", "the key lives in the team vault")
    with pytest.raises(SecretError, match="AWS"):
        vault.undo("deploy")
    assert AWS_KEY not in rel.read_text()


def test_a_journal_holding_a_credential_is_dropped_not_applied(vault):
    vault.remember("fact-01", "a fact", "body")
    journal = {"key": "fact-01", "action": "update", "agent": "x",
               "message": "remember: fact-01 — a fact\n\nMemory-Key: fact-01\n",
               "files": {"facts/fact-01.md": f"---\ndescription: a fact\n---\n{GITHUB_TOKEN}\n"}}
    # as this machine would have written it (signed): the content checks behind the signature
    (vault.state_dir / "pending.json").write_bytes(seal(vault.root, "pending.json", journal))
    vault.remember("other", "another fact")
    notices = vault.take_notices()
    assert any("dropped the journal of an interrupted write of 'fact-01'" in n and "GitHub" in n
               for n in notices), notices
    assert GITHUB_TOKEN not in (vault.root / "facts/fact-01.md").read_text()
    assert GITHUB_TOKEN not in "".join(notices)


def test_a_journal_naming_a_path_outside_the_vault_is_dropped(vault):
    journal = {"key": "x", "message": "m", "files": {"../escape.md": "---\ndescription: x\n---\n"}}
    # as this machine would have written it (signed): the content checks behind the signature
    (vault.state_dir / "pending.json").write_bytes(seal(vault.root, "pending.json", journal))
    vault.remember("other", "another fact")
    assert not (vault.root.parent / "escape.md").exists()


def test_the_commit_message_gate_reads_the_body_and_the_agent_name(vault):
    with pytest.raises(SecretError):
        vault.import_memories([Memory("m1", "fact", {"description": "one"})],
                              message=f"import: one memory\n\nsource token {GITHUB_TOKEN}\n")
    with pytest.raises(SecretError):
        vault.remember("m2", "two", agent=GITHUB_TOKEN)
    assert not (vault.root / "facts/m1.md").exists() and not (vault.root / "facts/m2.md").exists()
    vault.remember("m3", "three")  # vault-mem's own trailers (keys, commit ids) pass
    vault.undo("m3")


def test_no_write_on_a_detached_head(vault):
    vault.remember("a", "first memory")
    git(vault.root, "checkout", "-q", "--detach")
    for write in (lambda: vault.remember("b", "second memory"), lambda: vault.forget("a"),
                  lambda: vault.import_memories([Memory("c", "fact", {"description": "c"})], message="i")):
        with pytest.raises(GitError, match="detached"):
            write()
    assert not (vault.root / "facts/b.md").exists() and (vault.root / "facts/a.md").exists()


def test_every_write_path_refuses_through_the_same_policy(vault):
    """remember and import refuse the same body with the same kind of error."""
    body = f"the token is {GITHUB_TOKEN}"
    with pytest.raises(SecretError) as one:
        vault.remember("t1", "a token note", body)
    with pytest.raises(SecretError) as two:
        vault.import_memories([Memory("t2", "fact", {"description": "a token note"}, body)], message="i")
    assert "GitHub" in str(one.value) and "GitHub" in str(two.value)
    with pytest.raises(VaultMemError):
        vault.get("t1")


def test_a_committed_file_that_does_not_parse_can_still_be_forgotten(vault):
    (vault.root / "facts/broken.md").write_text("no frontmatter at all\n")
    git(vault.root, "add", "facts/broken.md")
    git(vault.root, "commit", "-q", "--no-verify", "-m", "a broken file")
    result = vault.forget("broken")
    assert result.action == "forget" and not (vault.root / "facts/broken.md").exists()
    assert git(vault.root, "log", "-1", "--format=%s").strip() == "forget: broken — (unreadable file)"


def test_a_type_change_never_replaces_a_persons_file_in_the_other_folder(vault):
    vault.remember("k", "a fact first", "one")
    person = "---\ndescription: my own note of that name\n---\nmy words\n"
    (vault.root / "notes/k.md").write_text(person)  # the person's file, never committed
    with pytest.raises(VaultMemError, match="never committed"):
        vault.remember("k", "now a note", "two", type="note")
    assert (vault.root / "notes/k.md").read_text() == person
    assert (vault.root / "facts/k.md").exists()


def test_no_write_replaces_an_uncommitted_file_it_was_not_told_about(vault):
    person = b"---\ndescription: typed by hand\n---\nmine\n"
    (vault.root / "facts/x.md").write_bytes(person)
    new = vault.ws.policy.file_bytes(Memory("x", "fact", {"description": "the agent's"}))
    with vault.transaction() as tx, pytest.raises(VaultMemError, match="never committed"):
        tx.commit({"facts/x.md": new}, "remember: x — the agent's", key="x", action="create", type_="fact")
    assert (vault.root / "facts/x.md").read_bytes() == person


def test_a_symlinked_index_or_lock_is_refused_by_name(vault, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("not vault-mem's\n")
    (vault.root / "INDEX.md").unlink()
    (vault.root / "INDEX.md").symlink_to(outside)
    with pytest.raises(VaultMemError, match="symlink"):
        vault.remember("a", "a fact")
    assert outside.read_text() == "not vault-mem's\n"
    (vault.root / "INDEX.md").unlink()
    lock = vault.state_dir / "write.lock"
    lock.unlink()
    lock.symlink_to(outside)
    with Vault(vault.root) as fresh, pytest.raises(VaultMemError, match="symlink"):
        fresh.remember("b", "another fact")
    assert outside.read_text() == "not vault-mem's\n"


def test_a_journal_this_machine_did_not_write_is_ignored_never_committed(vault):
    """A pending.json that is well formed but unsigned (planted, or copied from another machine
    or vault) is removed with a notice; nothing of it reaches a file or a commit."""
    vault.remember("fact-01", "a fact", "body")
    journal = {"key": "fact-01", "action": "update", "agent": "x",
               "message": "remember: fact-01 — planted\n\nMemory-Key: fact-01\n",
               "files": {"facts/fact-01.md": "---\ndescription: planted text\n---\nplanted\n"}}
    head = git(vault.root, "rev-parse", "HEAD").strip()
    (vault.state_dir / "pending.json").write_text(json.dumps(journal))
    vault.reconcile()
    notices = vault.take_notices()
    assert ("ignored and removed .vault-mem/pending.json: this machine did not write it (a file planted through "
            "a commit or copied from elsewhere?); nothing of it was applied or committed") in notices, notices
    assert "planted" not in (vault.root / "facts/fact-01.md").read_text()
    assert git(vault.root, "rev-parse", "HEAD").strip() == head
    assert not (vault.state_dir / "pending.json").exists()
    # a sync's journal of the same kind: removed, with the same notice
    (vault.state_dir / "sync.json").write_text(json.dumps({"old": head, "new": head, "paths": ["facts/fact-01.md"]}))
    vault.reconcile()
    notices = vault.take_notices()
    assert ("ignored and removed .vault-mem/sync.json: this machine did not write it (a file planted through "
            "a commit or copied from elsewhere?); nothing of it was applied") in notices, notices
    assert not (vault.state_dir / "sync.json").exists()
    # signed for another vault on this machine: not accepted either
    other = Vault.init(vault.root.parent / "other")
    (vault.state_dir / "pending.json").write_bytes(seal(other.root, "pending.json", journal))
    vault.reconcile()
    assert any("did not write it" in n for n in vault.take_notices())
    assert git(vault.root, "rev-parse", "HEAD").strip() == head
    other.close()


def test_a_persons_commit_that_takes_in_the_write_is_no_conflict(vault, monkeypatch):
    """Issue 25 item 6: a person's ``git commit -a`` made while an agent's file was on disk takes
    in exactly the agent's bytes. The write used to be reported "nothing was written", its file
    was put back to the old version, and the next agent commit's INDEX.md (from HEAD, which held
    the agent's version) listed the write reported as not made. Now the write is reported as
    made (it is on the branch) and the newest version stays on disk."""
    from vault_mem.vault import steps

    vault.remember("swept", "the first version", "v1")
    real = steps.commit_index
    calls = []

    def person_commits_first(*args, **kw):
        if not calls:  # inside commit_paths, after it read the branch: a person commits everything
            git(vault.root, "commit", "-qam", "person: everything I had")
        calls.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(steps, "commit_index", person_commits_first)
    vault.remember("swept", "the second version", "v2")  # used to raise ConcurrentEditError
    monkeypatch.setattr(steps, "commit_index", real)
    assert "the second version" in (vault.root / "facts/swept.md").read_text()
    assert git(vault.root, "status", "--porcelain", "--", "facts") == ""
    vault.remember("later", "a later write", "x")
    index = git(vault.root, "show", "HEAD:INDEX.md")
    assert "the second version" in index and "the first version" not in index


def test_a_write_renders_index_md_once_when_no_file_differs_from_head_and_twice_when_one_does(vault, monkeypatch):
    """INDEX.md of the commit is built from the committed tree and INDEX.md on disk from every
    file: with no file differing from HEAD they are the same text, rendered once; a person's
    uncommitted memory makes them differ, and each is rendered (the committed one without it)."""
    from vault_mem.index import sidecar as sidecar_mod

    renders = []
    real = sidecar_mod.render_index
    monkeypatch.setattr(sidecar_mod, "render_index", lambda *a, **kw: renders.append(1) or real(*a, **kw))
    vault.remember("editor", "Uses Helix", "b")
    for i in range(3):
        renders.clear()
        vault.remember(f"fact-{i}", f"The build takes {i} minutes", "b")
        assert len(renders) == 1
        assert git(vault.root, "show", "HEAD:INDEX.md") == (vault.root / "INDEX.md").read_text()
    (vault.root / "facts" / "mine.md").write_text("---\ndescription: My own uncommitted fact\n---\nbody\n")
    renders.clear()
    vault.remember("fact-9", "The deploy runs at noon", "b")
    assert len(renders) == 2
    committed = git(vault.root, "show", "HEAD:INDEX.md")
    assert "My own uncommitted fact" not in committed and "The deploy runs at noon" in committed
    assert "My own uncommitted fact" in (vault.root / "INDEX.md").read_text()
    # another connection's change to the rows (a read in another process) is seen, never a kept text
    budget = vault.config.index_budget_tokens
    assert "My own uncommitted fact" in vault.sidecar.render_index(budget_tokens=budget)  # kept with its stamp
    renders.clear()
    assert "My own uncommitted fact" in vault.sidecar.render_index(budget_tokens=budget)
    assert renders == []  # nothing changed: the kept text
    other = Vault(vault.root)
    try:
        (vault.root / "facts" / "mine.md").write_text("---\ndescription: My fact, edited\n---\nbody\n")
        other.recall("edited")
    finally:
        other.close()
    renders.clear()
    # the sidecar itself, not the vault (whose render reconciles first, on this connection, which
    # moves total_changes): only the other connection's commit (data_version) can say it changed
    assert "My fact, edited" in vault.sidecar.render_index(budget_tokens=budget)
    assert len(renders) == 1


def test_a_writes_vectors_are_made_once_its_commit_landed_not_while_its_file_stands_changed(tmp_path):
    """Issue 25 item 4 (a person's checkout refused while agents write): from the moment a
    write's file lands on disk until its commit lands, git sees the file changed, and a person's
    ``git checkout`` of a branch holding another version of it is refused. In a process with the
    model at hand (an MCP server, an API caller), the new memory's vector was made in that
    window (about a quarter of it). It is made once the commit has landed; a recall right after
    the write still finds it by its vector."""
    from fakes import FakeEmbedder

    seen: list[tuple[str, bool]] = []
    root = tmp_path / "vault"

    class Watching(FakeEmbedder):
        def embed_batch(self, texts, kind="document"):
            if kind == "document" and (root / "facts" / "deploy-day.md").exists():
                disk = git(root, "hash-object", "facts/deploy-day.md").strip()
                committed = git(root, "rev-parse", "HEAD:facts/deploy-day.md").strip() \
                    if "deploy-day" in git(root, "ls-tree", "-r", "--name-only", "HEAD") else None
                seen.append((texts[0][:40], disk == committed))
            return super().embed_batch(texts, kind=kind)

    Vault.init(root).close()
    with Vault(root, embedder=Watching()) as v:
        v.remember("warm-up", "A memory that loads the model", "x")
        seen.clear()
        v.remember("deploy-day", "Deploys run on Fridays after the review", "y")
        assert seen and all(committed for _, committed in seen), seen
        hits = v.recall("deploys fridays review").hits
        assert hits and hits[0].key == "deploy-day"
        assert v.sidecar.vectors.vectors_missing() == 0


def test_the_daemon_works_beside_a_write_only_while_that_write_says_it_waits_for_git(tmp_path):
    """The write lock's work-tree part (store.locks.WriteLock): the daemon's catching up takes it
    alone only from a holder that gave it up and says so (a write whose commit waits for a
    person's git command); that holder takes it back only once the daemon is done. A holder
    that says nothing (any other holder, or an older vault-mem's, which takes ``write.lock``
    alone) is waited for: its files and INDEX.md are never worked on beside it. Real flock
    locks on separate open files, as between processes."""
    from vault_mem.errors import LockTimeoutError
    from vault_mem.store.locks import FileLock, WriteLock

    path = tmp_path / "write.lock"
    writer, daemon = WriteLock(path, timeout=5), WriteLock(path, timeout=0.3)
    writer.acquire()
    with pytest.raises(LockTimeoutError):
        daemon.acquire_or_beside()  # a holder at work: waited for
    with writer.stepped_aside():
        assert daemon.acquire_or_beside() is False  # beside it
        assert not writer.work.acquire(blocking=False)  # its part is the daemon's until it is done
        assert not daemon.acquire(blocking=False)  # write.lock stays the writer's
        daemon.work.release()
    assert writer.work.held  # taken back at the end of the wait
    with pytest.raises(LockTimeoutError):
        daemon.acquire_or_beside()
    writer.release()
    assert daemon.acquire_or_beside() is True  # nobody holds it: the whole lock
    daemon.release()
    older = FileLock(path)  # write.lock alone, nothing said: never worked beside
    older.acquire()
    try:
        with pytest.raises(LockTimeoutError):
            daemon.acquire_or_beside()
    finally:
        older.release()


def test_a_writer_killed_while_the_daemon_works_beside_it_never_makes_a_read_wait(tmp_path):
    """A write waiting for git with the work-tree part given up, the daemon working beside it,
    and the writer killed (kill -9): ``write.lock`` is free, the work part still the daemon's.
    A caller that must not wait (a read's reconcile, the pre-commit hook under the person's
    `git commit`: ``acquire(blocking=False)``) is told no at once. Before: it took
    ``write.lock`` and then waited for the work part until the daemon was done (up to the
    lock's timeout). The next writer still takes the whole lock once the daemon is done (and
    runs recovery under it). Real processes and flock locks."""
    import signal
    import subprocess
    import sys

    from vault_mem.store.locks import WriteLock, lock_holder

    path = tmp_path / "write.lock"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    writer = subprocess.Popen(
        [sys.executable, "-c", "import sys,time\nfrom vault_mem.store.locks import WriteLock\n"
         f"lock = WriteLock({str(path)!r})\nlock.acquire()\n"
         "with lock.stepped_aside():\n    print('aside', flush=True)\n    time.sleep(600)\n"],
        stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert writer.stdout.readline().strip() == "aside"
        daemon = WriteLock(path, timeout=5)
        assert daemon.acquire_or_beside() is False  # beside the waiting write
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        assert lock_holder(path) is None  # the kernel let write.lock go with the writer
        reader = subprocess.Popen(
            [sys.executable, "-c", "from vault_mem.store.locks import WriteLock\n"
             f"print(WriteLock({str(path)!r}, timeout=120).acquire(blocking=False))"],
            stdout=subprocess.PIPE, text=True, env=env)
        try:
            said, _ = reader.communicate(timeout=20)
        except subprocess.TimeoutExpired:  # it waits for the daemon's part: let it go to see
            daemon.work.release()
            said, _ = reader.communicate(timeout=60)
        assert said.strip() == "False"
        assert not WriteLock(path).acquire(blocking=False)  # nor left write.lock taken
        daemon.work.release()
        nxt = WriteLock(path, timeout=5)
        assert nxt.acquire(blocking=False) and nxt.work.held  # the daemon done: the whole lock
        nxt.release()
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()


def test_the_words_of_a_writer_killed_aside_never_let_the_daemon_work_beside_the_next_holder(tmp_path):
    """A write killed (kill -9) while it waited aside for git leaves ``aside`` in ``write.lock``.
    The next holder to take ``write.lock`` before it has written its own words (an older
    vault-mem, which never takes the work-tree part, between its ``flock`` and its write; here a
    process holding the same real ``flock`` and writing nothing) is waited for, never worked
    beside: the daemon would have put back and rendered INDEX.md beside a writer at work.
    Before: ``acquire_or_beside`` read the dead writer's words and said "beside"."""
    import signal
    import subprocess
    import sys

    from vault_mem.errors import LockTimeoutError
    from vault_mem.store.locks import WriteLock

    path = tmp_path / "write.lock"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    writer = subprocess.Popen(
        [sys.executable, "-c", "import time\nfrom vault_mem.store.locks import WriteLock\n"
         f"lock = WriteLock({str(path)!r})\nlock.acquire()\n"
         "with lock.stepped_aside():\n    print('aside', flush=True)\n    time.sleep(600)\n"],
        stdout=subprocess.PIPE, text=True, env=env)
    older = None
    try:
        assert writer.stdout.readline().strip() == "aside"
        writer.send_signal(signal.SIGKILL)
        writer.wait(timeout=30)
        assert path.read_text().splitlines()[2] == "aside"
        older = subprocess.Popen(
            [sys.executable, "-c", "import fcntl, os, time\n"
             f"fd = os.open({str(path)!r}, os.O_RDWR)\nfcntl.flock(fd, fcntl.LOCK_EX)\n"
             "print('held', flush=True)\ntime.sleep(600)\n"],
            stdout=subprocess.PIPE, text=True, env=env)
        assert older.stdout.readline().strip() == "held"
        daemon = WriteLock(path, timeout=0.5)
        with pytest.raises(LockTimeoutError):
            daemon.acquire_or_beside()
        assert not daemon.work.held
    finally:
        for proc in (writer, older):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()
