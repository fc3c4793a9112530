"""Objects before refs (issue 25 item 1): a person's ``git gc --prune=now`` or ``git repack -ad``
running while agents write never loses an acknowledged commit, and ``doctor`` says when one is.

Real git maintenance loops in a thread against real agent writes in processes.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import cli, git, new_vault, person_and_peer, prune_when_found, run_cli, start_to_stop, wait_for
from stress import sized

from vault_mem import Vault


def _maintenance(root: Path, stop: threading.Event, ran: list[str]) -> None:
    commands = (["gc", "-q", "--prune=now"], ["repack", "-adq"], ["prune", "--expire=now"])
    i = 0
    while not stop.is_set():
        cmd = commands[i % len(commands)]
        subprocess.run(["git", *cmd], cwd=root, capture_output=True, check=False)
        ran.append(cmd[0])
        i += 1


@pytest.mark.slow
def test_git_gc_and_repack_while_agents_write_lose_no_acknowledged_commit(tmp_path):
    vault = new_vault(tmp_path / "vault")
    root = vault.root
    vault.close()
    stop, ran = threading.Event(), []
    gc = threading.Thread(target=_maintenance, args=(root, stop, ran))
    gc.start()
    acknowledged: dict[str, str] = {}

    def writer(w: int) -> None:
        for i in range(3):
            key = f"gc-{w}-{i}"
            r = run_cli("remember", key, "-d", f"written under gc {w} {i}", "--body", f"body {w} {i} " * 20,
                        "--json", cwd=root)
            if r.returncode == 0:
                acknowledged[key] = r.stdout

    started = time.monotonic()
    try:
        with ThreadPoolExecutor(3) as pool:
            list(pool.map(writer, range(3)))
    finally:
        stop.set()
        gc.join()
    assert time.monotonic() - started < 60
    assert len(ran) > 3, "git maintenance never ran: the test proves nothing"
    assert acknowledged, "no write succeeded"
    fsck = subprocess.run(["git", "fsck", "--no-progress"], cwd=root, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    log = git(root, "log", "--format=%(trailers:key=Memory-Key,valueonly)")
    missing = set(acknowledged) - {line.strip() for line in log.splitlines()}
    assert not missing, f"acknowledged but not in history: {sorted(missing)}"
    for key in acknowledged:
        assert git(root, "show", f"HEAD:facts/{key}.md")


def test_doctor_fails_when_an_object_of_the_branch_is_missing(tmp_path):
    vault = new_vault(tmp_path / "vault")
    vault.remember("kept", "a fact in history", "body")
    root = vault.root
    vault.close()
    assert cli("doctor", cwd=root).returncode == 0
    # lose the tree of HEAD's commit (what a prune racing a writer did)
    tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    obj = root / ".git" / "objects" / tree[:2] / tree[2:]
    assert obj.exists(), "expected the tree as a loose object"
    obj.unlink()
    r = cli("doctor", cwd=root)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "missing" in (r.stdout + r.stderr).lower()



def test_a_branch_on_a_missing_commit_is_named_with_its_fix_by_every_command(tmp_path):
    """bench/chaos.py: after a gc removed the commit the branch names, every command (reads,
    doctor, writes) failed with git's "bad object" and nothing more; each now names the missing
    commit and the command that points the branch back (doctor exits 1)."""
    vault = new_vault(tmp_path / "vault")
    vault.remember("kept", "A fact in history", "body")
    vault.remember("lost", "A fact whose commit goes", "body")
    root = vault.root
    vault.close()
    head = git(root, "rev-parse", "HEAD").strip()
    parent = git(root, "rev-parse", "HEAD~1").strip()
    (root / ".git" / "objects" / head[:2] / head[2:]).unlink()
    (root / "facts" / "new.md").write_text("---\ndescription: A new hand-made fact\n---\n\nx\n")
    listed = cli("--vault", str(root), "list")  # who wrote what needs HEAD: it may fail, saying why
    assert listed.returncode == 0 or f"git update-ref refs/heads/main {parent}" in listed.stderr, listed.stderr
    doctor = cli("--vault", str(root), "doctor")
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    said = doctor.stdout + doctor.stderr
    assert head[:10] in said and "missing" in said and f"git update-ref refs/heads/main {parent}" in said, said
    write = cli("--vault", str(root), "remember", "after", "-d", "A write after", "--body", "x")
    assert write.returncode != 0 and head[:10] in write.stderr, write.stderr


@pytest.mark.slow
def test_sync_and_undo_under_git_gc_lose_no_object(tmp_path):
    """Objects before refs for the other two writers of history: ``vault-mem sync`` replays this
    machine's commits on the remote's tip as new, unreachable objects and then moves the branch
    (``git update-ref``), and ``undo`` commits a revert; a ``git gc --prune=now`` / ``git prune
    --expire=now`` looping meanwhile must not leave the branch naming a missing object."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    vault = new_vault(tmp_path / "vault")
    root = vault.root
    git(root, "remote", "add", "origin", str(remote))
    git(root, "push", "-q", "-u", "origin", "main")
    peer = tmp_path / "peer"
    git(tmp_path, "clone", "-q", str(remote), str(peer))
    stop, ran = threading.Event(), []
    gc = threading.Thread(target=_maintenance, args=(root, stop, ran))
    synced = undone = 0
    # 4 rounds at full size, where CI saw it fail 1 run in 7 (load 3.5: a prune a write's process
    # listing missed, 9752ca1) and at load 24 (a fetch whose pack a prune took, 1700ebc); 2
    # everyday. Both windows are now held open on purpose by their own tests (a real prune held
    # between its read of the refs and its deletions; a prune loop under every fetch, below), so
    # this loop is the soak over the whole path, not the only test of either window
    rounds = sized(4, 2)
    try:
        gc.start()
        for round_ in range(rounds):
            for i in range(12):  # local commits the sync replays on the remote's tip
                vault.remember(f"sync-{round_}-{i}", f"local note {round_} {i}", f"body {round_} {i} " * 30)
            (peer / "facts").mkdir(exist_ok=True)
            (peer / "facts" / f"peer-{round_}.md").write_text(
                f"---\ndescription: a peer's note {round_}\n---\n\npeer body {round_}\n")
            git(peer, "add", "-A")
            git(peer, "commit", "-qm", f"peer {round_}", "--no-verify")
            git(peer, "pull", "-q", "--rebase")
            git(peer, "push", "-q")
            r = cli("sync", cwd=root)  # in this process: the race is with the gc, not between processes
            synced += r.returncode == 0
            assert "internal error" not in r.stderr, r.stderr
            r = cli("undo", f"sync-{round_}-0", cwd=root)
            undone += r.returncode == 0
            assert "internal error" not in r.stderr, r.stderr
    finally:
        stop.set()
        gc.join()
        vault.close()
    assert len(ran) > 3, "git maintenance never ran: the test proves nothing"
    assert synced and undone, (synced, undone)
    fsck = subprocess.run(["git", "fsck", "--no-progress", "--no-dangling"], cwd=root, capture_output=True, text=True)
    assert fsck.returncode == 0 and "missing" not in fsck.stdout + fsck.stderr, fsck.stdout + fsck.stderr
    assert cli("doctor", cwd=root).returncode == 0


class _HeldPrune:
    """A real ``git prune --expire=now -v`` held between its reading of the refs and its
    deletions: the window a prune that read the refs just before a branch moved has.

    A shell waits (it is no git, and stops being young for a process listing) until :meth:`go`,
    then execs the prune, with no fork between: as a loaded machine's fork whose exec came late.
    git opens ``GIT_TRACE_PACK_ACCESS`` (a FIFO here) at its first read from a pack and waits
    there for a reader. With the commits that the refs name loose, the history packed and no
    reflogs, that first read comes after the index, the refs and HEAD are read and before
    anything is deleted; :meth:`release` lets it go on."""

    def __init__(self, root: Path, tmp_path: Path) -> None:
        import os

        if not Path("/proc/self/wchan").exists():
            pytest.skip("telling that the prune waits at the FIFO needs Linux's /proc/PID/wchan")
        self.go_fifo, self.trace = tmp_path / "prune-go", tmp_path / "prune-trace"
        os.mkfifo(self.go_fifo)
        os.mkfifo(self.trace)
        self.out = tmp_path / "prune.out"
        with open(self.out, "wb") as out:
            self.proc = subprocess.Popen(["sh", "-c", 'read _ < "$1"; exec git prune --expire=now -v', "sh",
                                          str(self.go_fifo)], cwd=root, stdout=out, stderr=subprocess.STDOUT,
                                         env={**os.environ, "GIT_TRACE_PACK_ACCESS": str(self.trace)})
        self._drain: threading.Thread | None = None

    def go(self) -> None:
        """Let the shell exec the prune; returns once the prune waits at the FIFO."""
        with open(self.go_fifo, "wb"):
            pass
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                comm = Path(f"/proc/{self.proc.pid}/comm").read_text().strip()
                wchan = Path(f"/proc/{self.proc.pid}/wchan").read_text().strip()
            except OSError:
                comm = wchan = ""
            if comm == "git" and wchan == "wait_for_partner":
                return
            assert self.proc.poll() is None, self.out.read_text()
            time.sleep(0.01)
        raise AssertionError(f"the prune never reached its first pack read (comm {comm!r}, wchan {wchan!r})")

    def release(self) -> set[str]:
        """Let the prune go on (its trace read and dropped) and end, told to go first if it was
        not (a test stopped early); the ids it removed."""
        import os

        from vault_mem.platform import procs

        def drain() -> None:
            with open(self.trace, "rb") as fh:
                while fh.read(65536):
                    pass
        if self._drain is None:
            self._drain = threading.Thread(target=drain, daemon=True)
            self._drain.start()
            deadline = time.monotonic() + 10
            while self.proc.poll() is None and time.monotonic() < deadline:
                try:  # a shell still waiting to exec: let it (ENXIO: none waits, it went already)
                    os.close(os.open(self.go_fifo, os.O_WRONLY | os.O_NONBLOCK))
                    break
                except OSError:
                    if procs.process_name(self.proc.pid) != "sh":
                        break
                    time.sleep(0.01)
        self.proc.wait(120)
        if self._drain.is_alive():  # a prune that never read a pack: the reader ends too
            try:
                os.close(os.open(self.trace, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
            self._drain.join(10)
        return {line.split()[0] for line in self.out.read_text().splitlines() if line.strip()}


def _one_commit_repository(tmp_path: Path) -> Path:
    """A git repository at ``tmp_path/repo`` holding one commit (a README), no auto gc."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("hello\n")
    git(root, "add", "README.md")
    git(root, "-c", "gc.auto=0", "commit", "-qm", "first")
    return root


def _history_packed_tip_loose(root: Path) -> None:
    """Pack every object, then make one commit (loose, as every commit vault-mem makes), and
    drop the reflogs: a prune's first pack read then comes after its read of the refs."""
    import shutil

    git(root, "repack", "-adq")
    (root / "facts").mkdir(exist_ok=True)
    (root / "facts" / "loose-tip.md").write_text("---\ndescription: a commit not packed yet\n---\n\nx\n")
    git(root, "add", "facts/loose-tip.md")
    git(root, "-c", "gc.auto=0", "commit", "-qm", "a loose tip", "--no-verify")
    shutil.rmtree(root / ".git" / "logs")


def test_a_write_waits_for_a_prune_that_a_process_already_listed_became(tmp_path, monkeypatch):
    """CI (load 3.5, 2 cores), 1 run in 7 of test_sync_and_undo_under_git_gc_lose_no_object: the
    branch named a commit a looping `git prune --expire=now` removed. After its commit landed, a
    write waits for the gc/prune running then and stores again what it removed; but it listed
    the processes reading only those started since its last listing, and a prune whose fork had
    been listed as no git (its exec came more than 0.1 s later on the loaded machine) was not
    read again: not waited for, it deleted the commit after. Here the write's first listing sees
    a shell that then execs a real prune, held after its read of the refs until the write landed;
    the write now waits for it and stores the commit again."""
    from vault_mem.platform import procs
    from vault_mem.store import gitprocs
    from vault_mem.store.git import GitRepo, Identity

    root = _one_commit_repository(tmp_path)
    _history_packed_tip_loose(root)
    before = git(root, "rev-parse", "main").strip()
    prune = _HeldPrune(root, tmp_path)
    repo = GitRepo(root)
    landed: list[str | None] = []
    warnings: list[str] = []
    writer = threading.Thread(target=lambda: landed.append(repo.commit_paths(
        {"facts/new.md": b"---\ndescription: a new fact\n---\n\nbody\n"}, "remember: new",
        author=Identity("agent", "agent@example.com"), warnings=warnings)))
    try:
        time.sleep(procs.YOUNG_S * 3)  # the shell is no young process when the write lists them
        # every listing within REUSE_S of a full one reads only what is new: here all of them
        monkeypatch.setattr(gitprocs, "REUSE_S", 3600.0)
        monkeypatch.setenv("VAULT_MEM_PAUSE_AT", "holding-index-lock")
        writer.start()
        paused = root / ".git" / "paused-holding-index-lock"
        wait_for(paused.exists, 30, "the write reaching its landing")
        monkeypatch.delenv("VAULT_MEM_PAUSE_AT")
        prune.go()  # it has read the refs: main is still `before`
        (root / ".git" / "resume-holding-index-lock").write_text("")
        writer.join(5)
        waited = writer.is_alive()
    finally:
        removed = prune.release()
        writer.join(120)
        repo.close()
    head = git(root, "rev-parse", "main").strip()
    assert landed and landed[0] == head != before, (landed, head, before)
    fsck = subprocess.run(["git", "fsck", "--no-progress", "--no-dangling"], cwd=root, capture_output=True, text=True)
    assert fsck.returncode == 0 and not fsck.stdout, fsck.stdout + fsck.stderr
    assert head in removed, f"the prune did not remove the new commit: the race never happened ({removed})"
    assert waited, "the write returned while a prune that read the refs before its commit landed still ran"
    assert warnings == []
    assert git(root, "show", "main:facts/new.md").endswith("body\n")


def test_a_sync_waits_for_a_prune_that_a_process_already_listed_became(tmp_path, monkeypatch):
    """The same window for the sync's replayed commits (moved onto by ``git update-ref``), the
    writer CI caught: a prune the sync listed as a shell before, held after its read of the refs
    until HEAD moved, removes the replayed commits; the sync waits for it and stores them again."""
    import shutil

    from vault_mem.platform import procs
    from vault_mem.store import gitprocs
    from vault_mem.sync.remote import sync

    root, peer = person_and_peer(tmp_path)
    vault = Vault(root, embedder=None)
    vault.remember("mine-1", "A note made here", "body one")
    git(root, "repack", "-adq")
    vault.remember("mine-2", "Another note made here", "body two")  # the local tip: loose
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "peer-note.md").write_text("---\ndescription: a peer's note\n---\n\npeer body\n")
    git(peer, "add", "-A")
    git(peer, "commit", "-qm", "peer", "--no-verify")
    git(peer, "push", "-q")
    packs = root / ".git" / "objects" / "pack"
    ours = set(packs.glob("pack-*.pack"))
    prune = _HeldPrune(root, tmp_path)
    done: list = []
    syncer = threading.Thread(target=lambda: done.append(sync(vault)))
    try:
        time.sleep(procs.YOUNG_S * 3)
        monkeypatch.setattr(gitprocs, "REUSE_S", 3600.0)
        monkeypatch.setenv("VAULT_MEM_PAUSE_AT", "sync-before-ref")
        syncer.start()
        paused = vault.state_dir / "paused-sync-before-ref"
        wait_for(paused.exists, 60, "the sync reaching its update-ref")
        monkeypatch.delenv("VAULT_MEM_PAUSE_AT")
        before = git(root, "rev-parse", "main").strip()
        # the fetched commits as loose objects, and no reflogs: the prune's first pack read comes
        # after it read every ref (see _HeldPrune)
        for pack in set(packs.glob("pack-*.pack")) - ours:
            moved = tmp_path / pack.name
            shutil.move(pack, moved)
            for ext in (".idx", ".rev"):
                pack.with_suffix(ext).unlink(missing_ok=True)
            with open(moved, "rb") as fh:
                subprocess.run(["git", "unpack-objects", "-q"], cwd=root, stdin=fh, check=True)
        shutil.rmtree(root / ".git" / "logs")
        prune.go()
        (vault.state_dir / "resume-sync-before-ref").write_text("")
        syncer.join(5)
        waited = syncer.is_alive()
    finally:
        removed = prune.release()
        syncer.join(120)
        vault.close()
    head = git(root, "rev-parse", "main").strip()
    assert done and done[0].head == head != before, (done, head, before)
    fsck = subprocess.run(["git", "fsck", "--no-progress", "--no-dangling"], cwd=root, capture_output=True, text=True)
    assert fsck.returncode == 0 and not fsck.stdout, fsck.stdout + fsck.stderr
    assert head in removed, f"the prune did not remove the replayed tip: the race never happened ({removed})"
    assert waited, "the sync returned while a prune that read the refs before HEAD moved still ran"
    assert "body two" in git(root, "show", "main:facts/mine-2.md")
    assert "peer body" in git(root, "show", "main:facts/peer-note.md")


def test_a_fetched_loose_object_is_kept_from_a_prune_that_read_the_refs_before_its_ref_moved(tmp_path):
    """Loose objects a fetch left in its quarantine (a transport that fetches objects one by one,
    as git's dumb HTTP does) were moved in and the remote-tracking ref pointed at them with no
    wait for a prune: one that read the refs before the ref moved removed them after, and the
    ref named a missing object. They are kept as a write keeps its objects now: the prune is
    waited for, and what it removed is linked in again from the quarantine's copy."""
    import os

    from vault_mem.store.git import GitRepo
    from vault_mem.store.network import FetchQuarantine

    root = _one_commit_repository(tmp_path)
    _history_packed_tip_loose(root)
    repo = GitRepo(root)
    data = b"a peer's note, fetched loose\n"
    prune = _HeldPrune(root, tmp_path)
    warnings: list[str] = []
    landed: list[bool] = []
    try:
        with FetchQuarantine(repo) as q:
            oid = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=data, capture_output=True,
                                 check=True, env={**os.environ, **q.env}).stdout.decode().strip()
            assert (q.path / oid[:2] / oid[2:]).is_file()
            prune.go()  # it has read the refs: none names the object yet

            def land() -> None:
                q.land(oid, "refs/remotes/origin/loose",
                       lambda ref, tip: git(root, "update-ref", ref, tip), warnings)
                landed.append(True)
            lander = threading.Thread(target=land)
            lander.start()
            lander.join(5)
            waited = lander.is_alive()
            removed = prune.release()
            lander.join(120)
    finally:
        prune.release()
        repo.close()
    assert landed == [True]
    assert git(root, "rev-parse", "refs/remotes/origin/loose").strip() == oid
    shown = subprocess.run(["git", "cat-file", "blob", oid], cwd=root, capture_output=True)
    assert shown.returncode == 0 and shown.stdout == data, shown.stderr
    assert oid in removed, f"the prune did not remove the fetched object: the race never happened ({removed})"
    assert waited, "the fetch's ref moved and it returned while a prune that read the refs before still ran"
    assert warnings == []


def test_a_fetched_commit_is_never_a_loose_object_a_prune_can_take_before_its_ref(tmp_path):
    """CI found ``refs/remotes/origin/main`` naming a missing commit after a sync under a looping
    ``git prune --expire=now``: git unpacks a small fetch (under ``fetch.unpackLimit``, 100 objects)
    into loose objects, which a prune may delete before the fetch writes the ref that names them.
    A sync's fetch keeps what it receives in a pack with a ``.keep`` file until the ref is written
    (git's own protection for fetched packs), so nothing it brings is ever loose, and the keep is
    gone afterwards."""
    root, peer = person_and_peer(tmp_path)
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "peer-note.md").write_text("---\ndescription: a peer's note\n---\n\npeer body\n")
    git(peer, "add", "-A")
    git(peer, "commit", "-qm", "peer", "--no-verify")
    git(peer, "push", "-q")
    tip = git(peer, "rev-parse", "HEAD").strip()
    tree = git(peer, "rev-parse", "HEAD^{tree}").strip()
    r = cli("sync", cwd=root)
    assert r.returncode == 0, r.stderr
    objects = root / ".git" / "objects"
    for oid in (tip, tree):
        assert git(root, "cat-file", "-t", oid).strip() in ("commit", "tree")
        assert not (objects / oid[:2] / oid[2:]).exists(), f"{oid} arrived as a loose object"
    assert not list((objects / "pack").glob("*.keep")), "a fetch's .keep was left behind"


def test_a_fetched_loose_object_lands_when_git_prune_removes_its_empty_folder_as_it_is_found(tmp_path, monkeypatch):
    """A loose object a fetch left in its quarantine moves into the repository even when a real
    ``git prune`` removes the (empty) fan-out folder it goes in right as the move finds it there:
    Path.mkdir(exist_ok=True) raised FileExistsError then (as the store's own object writes did,
    test_gitstore's test_an_object_is_stored_when_git_prune_removes_its_empty_folder_as_it_is_found)."""
    import os

    from vault_mem.store.git import GitRepo
    from vault_mem.store.network import FetchQuarantine

    vault = new_vault(tmp_path / "vault")
    root = vault.root
    vault.close()
    repo = GitRepo(root)
    data = b"a peer's note, fetched loose\n"
    with FetchQuarantine(repo) as q:
        oid = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, input=data, capture_output=True,
                             check=True, env={**os.environ, **q.env}).stdout.decode().strip()
        assert (q.path / oid[:2] / oid[2:]).is_file()
        updated = []
        pruned = prune_when_found(monkeypatch, root, root / ".git" / "objects" / oid[:2])
        q.land(oid, "refs/remotes/origin/loose", lambda ref, tip: updated.append((ref, tip)))
        monkeypatch.undo()
    assert pruned == [False], "git prune did not remove the empty folder: the race never happened"
    assert updated == [("refs/remotes/origin/loose", oid)]
    assert subprocess.run(["git", "cat-file", "blob", oid], cwd=root, capture_output=True, check=True).stdout == data


def test_a_fetch_stopped_by_its_time_out_leaves_no_keep_file_and_no_helper_running(tmp_path):
    """A sync's fetch that times out after its pack was written and before its ref was (here a
    ``reference-transaction`` hook holds the ref update) left the pack's ``.keep`` behind, which
    git removes only after the ref update: no repack would fold that pack in again. And only
    git itself was killed: its helpers (here the hook) went on, and the lock of the ref it was
    writing stayed, so every later sync failed ("cannot lock ref 'refs/remotes/origin/main'").
    The whole process group is stopped now, the stopped fetch's own ``.keep`` (it names the
    fetch's pid) and its ref's lock removed; a person's ``.keep`` is left alone."""
    from vault_mem.errors import SyncError
    from vault_mem.platform.procs import GONE, process_start
    from vault_mem.sync.remote import sync

    root, peer = person_and_peer(tmp_path)
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "peer-note.md").write_text("---\ndescription: a peer's note\n---\n\npeer body\n")
    git(peer, "add", "-A")
    git(peer, "commit", "-qm", "peer", "--no-verify")
    git(peer, "push", "-q")
    packs = root / ".git" / "objects" / "pack"
    git(root, "repack", "-adq")
    person_keep = next(packs.glob("pack-*.pack")).with_suffix(".keep")
    person_keep.write_text("kept by the person\n")
    hooks, hook_pid = tmp_path / "hooks", tmp_path / "hook.pid"
    hooks.mkdir()
    hook = hooks / "reference-transaction"
    hook.write_text(f"#!/bin/sh\n[ \"$1\" = prepared ] || exit 0\ngrep -q refs/remotes/ || exit 0\n"
                    f"echo $$ > '{hook_pid}'\nexec sleep 300\n")
    hook.chmod(0o755)
    git(root, "config", "core.hooksPath", str(hooks))
    vault = Vault(root)
    try:
        with pytest.raises(SyncError, match="gave no answer"):
            sync(vault, timeout_s=15)
    finally:
        vault.close()
    assert hook_pid.exists(), "the fetch never reached its ref update within the time-out"
    pid = int(hook_pid.read_text())
    try:
        left = sorted(p.name for p in packs.glob("*.keep"))
        assert left == [person_keep.name], f"a stopped fetch's .keep was left behind: {left}"
        assert process_start(pid) == GONE, "the fetch's hook still runs after the fetch was stopped"
    finally:
        if process_start(pid) != GONE:
            subprocess.run(["kill", "-9", str(pid)], check=False)
    git(root, "config", "--unset", "core.hooksPath")
    r = cli("sync", cwd=root)  # and the next sync fetches and lands as ever
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in packs.glob("*.keep")) == [person_keep.name]


def test_no_commit_lands_while_a_git_gc_runs_and_the_wait_is_said(tmp_path):
    """bench/chaos.py found the branch on a missing commit: a `git gc --prune=now` slower than
    the 5 s a landed commit waited for it walked the refs before the commit landed and deleted
    its objects after. A write now lands only once the gc is over (saying what it waits for
    within seconds), and stores again what the gc removed meanwhile. The gc is a real one,
    stopped (SIGSTOP) to hold it running for as long as the test needs."""
    import os
    import signal

    vault = new_vault(tmp_path / "vault")
    root = vault.root
    vault.remember("first", "A first memory", "x")
    vault.close()
    before = git(root, "rev-parse", "main").strip()
    gc = start_to_stop(["git", "gc", "-q", "--prune=now"], cwd=root)
    os.kill(gc.pid, signal.SIGSTOP)
    env = {**os.environ, "VAULT_MEM_EMBEDDER": "none"}
    writer = subprocess.Popen([sys.executable, "-m", "vault_mem", "--vault", str(root), "remember", "during-gc",
                               "--description", "Written while a gc runs", "--body", "y"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(9)  # past the old 5 s wait after landing
        assert writer.poll() is None, writer.communicate()
        assert git(root, "rev-parse", "main").strip() == before, "a commit landed while the gc ran"
    finally:
        os.kill(gc.pid, signal.SIGCONT)
        gc.wait(120)
    out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err
    assert "waiting for `git gc`" in err, err
    assert git(root, "fsck", "--no-progress", "--no-dangling") == ""
    assert "Written while a gc runs" in git(root, "show", "main:facts/during-gc.md")


def test_a_write_waiting_for_a_git_gc_builds_its_commit_once_per_parent(tmp_path):
    """A write waiting for a gc (up to 30 s) built its commit again on every 50 ms pass: INDEX.md
    rendered and the processes listed twice, 40 times by the 2 s message. Now the commit (its
    tree, INDEX.md's render) is built once per parent: again only when the branch moved (here a
    person's commit during the wait), and what lands is the commit on the new tip with the
    INDEX.md made for it. The gc is a real one, stopped (SIGSTOP) for as long as the test needs;
    the 2 s message is the pause point that proves the loop went round many times."""
    import logging
    import os
    import signal

    from vault_mem.store.git import GitRepo, Identity

    git(tmp_path, "init", "-q", "-b", "main")
    root = tmp_path
    (root / "README.md").write_text("hello\n")
    git(root, "add", "README.md")
    git(root, "-c", "gc.auto=0", "commit", "-qm", "first")
    before = git(root, "rev-parse", "main").strip()
    repo = GitRepo(root)
    renders: list[str | None] = []

    def index_for(parent: str | None) -> bytes:
        renders.append(parent)
        return f"index made on {parent}\n".encode()

    said = threading.Event()

    class Said(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "waiting for `git gc`" in record.getMessage():
                said.set()

    handler = Said(logging.WARNING)
    logger = logging.getLogger("vault_mem.store.git")
    logger.addHandler(handler)
    landed: list[str | None] = []
    writer = threading.Thread(target=lambda: landed.append(repo.commit_paths(
        {"facts/a.md": b"a fact\n"}, "remember: a", author=Identity("agent", "agent@example.com"),
        derived=("INDEX.md", index_for))))
    gc = start_to_stop(["git", "gc", "-q", "--prune=now"], cwd=root)
    os.kill(gc.pid, signal.SIGSTOP)
    try:
        writer.start()
        assert said.wait(20), "the write never said it waits for the gc"
        assert renders == [before], f"{len(renders)} renders while waiting on one parent"
        assert git(root, "rev-parse", "main").strip() == before, "a commit landed while the gc ran"
        (root / "person.txt").write_text("the person's file\n")
        git(root, "add", "person.txt")
        git(root, "-c", "gc.auto=0", "commit", "-qm", "person")
        person = git(root, "rev-parse", "main").strip()
        deadline = time.monotonic() + 20
        while len(renders) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(1)  # twenty more passes on the new tip
        assert renders == [before, person]
    finally:
        os.kill(gc.pid, signal.SIGCONT)
        gc.wait(120)
        writer.join(60)
        logger.removeHandler(handler)
        repo.close()
    assert landed and landed[0], landed
    assert renders == [before, person]
    assert git(root, "rev-parse", "main").strip() == landed[0]
    assert git(root, "rev-parse", "main~1").strip() == person
    assert git(root, "show", "main:INDEX.md") == f"index made on {person}\n"
    assert git(root, "show", "main:facts/a.md") == "a fact\n"
    assert git(root, "fsck", "--no-progress", "--no-dangling") == ""


def _land_with_a_gc_starting_meanwhile(tmp_path, monkeypatch):
    """A commit of a plain repository held (checkpoint) while it holds index.lock, after its
    last look for a gc: a real ``git gc --prune=now`` starts there and is stopped (SIGSTOP).
    Returns (root, before, the gc, the writer thread, its result list, its warnings, the event
    set when the writer says it waits for the gc)."""
    import logging
    import os
    import signal

    from vault_mem.store.git import GitRepo, Identity

    root = _one_commit_repository(tmp_path)
    before = git(root, "rev-parse", "main").strip()
    repo = GitRepo(root)
    said = threading.Event()

    class Said(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "committed; waiting for `git gc`" in record.getMessage():
                said.set()

    logger = logging.getLogger("vault_mem.store.git")
    handler = Said(logging.WARNING)
    logger.addHandler(handler)
    monkeypatch.setenv("VAULT_MEM_PAUSE_AT", "holding-index-lock")
    landed: list[str | None] = []
    warnings: list[str] = []
    writer = threading.Thread(target=lambda: landed.append(repo.commit_paths(
        {"facts/a.md": b"a fact\n"}, "remember: a", author=Identity("agent", "agent@example.com"),
        warnings=warnings)))
    writer.start()
    paused = root / ".git" / "paused-holding-index-lock"
    wait_for(paused.exists, 20, "the write reaching its landing")
    monkeypatch.delenv("VAULT_MEM_PAUSE_AT")
    gc = start_to_stop(["git", "gc", "-q", "--prune=now"], cwd=root)
    os.kill(gc.pid, signal.SIGSTOP)
    (root / ".git" / "resume-holding-index-lock").write_text("")

    def close() -> None:
        os.kill(gc.pid, signal.SIGCONT)
        gc.wait(120)
        writer.join(120)
        logger.removeHandler(handler)
        repo.close()
    return root, before, gc, writer, landed, warnings, said, close


def test_a_landed_commit_waits_for_a_gc_that_started_before_it_landed(tmp_path, monkeypatch):
    """Objects before refs, after landing: a gc/prune/repack that started before the branch moved
    may have walked the refs without the new commit and delete its objects after. The write
    waits for it (saying so within seconds), then stores again anything it removed; the write
    returns only once the gc is over, with no warning, and the repository is whole."""
    root, before, gc, writer, landed, warnings, said, close = _land_with_a_gc_starting_meanwhile(tmp_path, monkeypatch)
    try:
        assert said.wait(20), "the write never said it waits for the gc"
        assert git(root, "rev-parse", "main").strip() != before, "the commit should have landed already"
        assert writer.is_alive() and gc.poll() is None
    finally:
        close()
    assert landed and landed[0] == git(root, "rev-parse", "main").strip()
    assert warnings == []
    assert git(root, "fsck", "--no-progress", "--no-dangling") == ""
    assert git(root, "show", "main:facts/a.md") == "a fact\n"


def test_the_wait_after_landing_for_a_gc_is_bounded_and_warns(tmp_path, monkeypatch):
    """The wait after landing is bounded (60 s; shortened here): a gc still running then leaves
    the write acknowledged with a warning that says to run `vault-mem doctor` once it is done."""
    import vault_mem.store.git as store_git

    monkeypatch.setattr(store_git, "_MAINTENANCE_WAIT_S", 4.0)
    root, before, gc, writer, landed, warnings, said, close = _land_with_a_gc_starting_meanwhile(tmp_path, monkeypatch)
    try:
        assert said.wait(20), "the write never said it waits for the gc"
        writer.join(30)
        assert not writer.is_alive(), "the wait after landing did not end at its bound"
        assert gc.poll() is None, "the gc ended: the bound was not what ended the wait"
        assert landed and landed[0] == git(root, "rev-parse", "main").strip() != before
        assert any(f"(pid {gc.pid}) was still running after 4 s" in w and "vault-mem doctor" in w
                   for w in warnings), warnings
    finally:
        close()
    assert git(root, "fsck", "--no-progress", "--no-dangling") == ""



def test_a_fetch_whose_pack_a_prune_took_is_fetched_again_and_never_called_a_network_fault(tmp_path, caplog):
    """A person's `git prune --expire=now` deletes the temporary pack a fetch is writing (git's own
    race: "unable to write file .../pack-X.pack: No such file or directory", "unable to rename
    temporary '*.pack' file"). Sync said "cannot reach remote ... check the network" and gave up at
    once; then it fetched again, up to 3 times, and under this loop every try lost its pack
    ("received the remote's commits 3 times but could not keep them": the first sync, each run).
    The fetch now writes into a quarantine object folder no prune reads, and its packs join the
    repository under a `.keep` until the ref names them: every sync lands under the loop, and
    every object the refs name is there (what git's index names is not the fetch's)."""
    import logging
    import random

    from vault_mem.errors import SyncError
    from vault_mem.sync.remote import sync

    root, peer = person_and_peer(tmp_path)
    stop = threading.Event()
    random.seed(7)
    WORDS = ("deploy", "cluster", "staging", "window", "release", "build", "cache", "runner")  # noqa: N806

    def prune() -> None:
        while not stop.is_set():
            subprocess.run(["git", "prune", "--expire=now"], cwd=root, capture_output=True, check=False)

    vault = Vault(root, embedder=None)
    loop = threading.Thread(target=prune)
    failures: list[str] = []
    caplog.set_level(logging.INFO, logger="vault_mem.sync.remote")
    # 3 rounds at full size; 1 everyday: on the code before the fix the first sync under the loop
    # failed, every run (git's own race lost the fetch's pack in 23 of 60 fetches, 1700ebc)
    rounds = sized(3, 1)
    try:
        loop.start()
        for i in range(rounds):
            (peer / "facts").mkdir(exist_ok=True)
            for j in range(40):  # a few hundred KB of pack, in memories under the size limit
                words = " ".join(random.choice(WORDS) + str(random.randrange(10**6)) for _ in range(900))
                (peer / "facts" / f"peer-{i}-{j}.md").write_text(f"---\ndescription: peer note {i} {j}\n---\n\n{words}\n")
            git(peer, "add", "-A")
            git(peer, "commit", "-qm", f"peer {i}", "--no-verify")
            git(peer, "push", "-q")
            try:
                sync(vault)
            except SyncError as exc:
                failures.append(f"{exc.reason}: {exc}")
        stop.set()
        loop.join()
        sync(vault)  # the person's prune is over: the next sync takes everything
        assert (root / "facts" / f"peer-{rounds - 1}-39.md").is_file()
    finally:
        stop.set()
        loop.join()
        vault.close()
    assert not failures, failures
    missing = [ln for ln in git(root, "rev-list", "--objects", "--all", "--missing=print").splitlines()
               if ln.startswith("?")]
    assert not missing, missing[:5]
    assert not list((root / ".git" / "objects" / "pack").glob("*.keep")), "a fetch's .keep was left"
    assert not list((root / ".git").glob("vault-mem-fetch-*")), "a fetch's quarantine was left"


if __name__ == "__main__":  # pragma: no cover - a quick manual run
    sys.exit(pytest.main([__file__, "-q"]))


def test_a_push_stopped_by_its_time_out_leaves_nothing_in_a_local_remote(tmp_path):
    """A sync's push to a remote on this machine (a path or file://) runs that remote's
    ``receive-pack`` in the push's own process group, and the time-out stops it there. Stopped
    at its ref update (here waiting for a ref lock, as the remote's ``core.filesRefLockTimeout``
    lets it), it left the remote's ``refs/heads/main.lock`` (every later push failed "cannot
    lock ref", ours and a peer's) and the received pack's ``.keep`` ("receive-pack PID on
    HOST": no repack folds it in again). They are removed; the remote's own ``.keep`` stays.
    (A hook holding the push once staged this, and a stop before the quarantine was moved in;
    sync's push runs no hook of a local remote now: test_peer_attacks9.py.)"""
    from vault_mem.errors import SyncError
    from vault_mem.sync.remote import sync

    root, _peer = person_and_peer(tmp_path)
    bare = tmp_path / "remote.git"
    git(bare, "config", "receive.unpackLimit", "1")  # a pack, as a push of over 100 objects makes
    git(bare, "config", "core.filesRefLockTimeout", "300000")
    git(bare, "repack", "-adq")
    theirs = next((bare / "objects" / "pack").glob("pack-*.pack")).with_suffix(".keep")
    theirs.write_text("kept by the remote's owner\n")
    lock = bare / "refs" / "heads" / "main.lock"
    lock.write_text("")  # another writer's lock, which the push waits for
    vault = Vault(root)
    try:
        vault.remember("pushed-note", "A note the stopped push carries", "body")
        # it stands for a lock made while the push ran (the product removes only those): dated
        # ahead, as the write and the sync's fetch before the push may take seconds under load
        # (it failed 2 of 2 at load ~20 when dated before them)
        ahead = time.time() + 120
        os.utime(lock, (ahead, ahead))
        with pytest.raises(SyncError, match="gave no answer"):
            sync(vault, timeout_s=10)
    finally:
        vault.close()
    packs = sorted(p.name for p in (bare / "objects" / "pack").glob("pack-*.pack"))
    assert len(packs) == 2, "the push never reached its ref update within the time-out"
    keeps = sorted(p.name for p in (bare / "objects" / "pack").glob("*.keep"))
    assert keeps == [theirs.name], f"a stopped push's .keep was left in the remote: {keeps}"
    assert not list((bare / "refs").rglob("*.lock")) and not (bare / "HEAD.lock").exists(), \
        "a stopped push left a ref lock in the remote"
    assert not list((bare / "objects").glob("tmp_objdir-*")), "a stopped push left its quarantine"
    r = cli("sync", cwd=root)  # and the next sync pushes
    assert r.returncode == 0, r.stderr
    assert git(bare, "rev-parse", "main").strip() == git(root, "rev-parse", "main").strip()
