"""A long-lived reader's own watcher (daemon/keeper.py): real files, real watchdog, real git,
a real daemon started and stopped beside it. The MCP server end to end is in test_mcp_server.py."""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time

import numpy as np
import pytest
from conftest import daemon_thread, git, git_events_held, wait_for
from fakes import FakeEmbedder, write_memory

from vault_mem import Vault
from vault_mem.daemon.keeper import (
    CHECKING,
    BatchApplier,
    START_WAIT_S,
    Keeper,
    changes_before,
    changes_so_far,
)
from vault_mem.daemon.process import Daemon
from vault_mem.daemon.warmup import WARMING, Warmup
from vault_mem.daemon.watcher import Batch, Batcher, VaultWatcher
from vault_mem.index.vectors import VectorIndex


def top_keys(vault: Vault, query: str) -> list[str]:
    return [h.key for h in vault.recall(query).hits]


@pytest.fixture
def kept(vault):
    """``vault`` kept current by a Keeper started as the MCP server starts it."""
    keeper = Keeper(vault)
    keeper.start_in_background(lambda: Vault(vault.root))
    vault.kept_current = keeper.catch_up
    yield vault, keeper
    keeper.close()


def test_a_hand_edit_is_seen_by_the_next_read_without_a_reconcile(both_platforms, kept):
    vault, keeper = kept
    assert vault.list() == [] and keeper.mode == "watching"
    assert keeper.stats["full"] == 1  # the start-up reconcile, once

    write_memory(vault.root, "boat", "Keeps a sailboat named Marlinspike at the marina")
    assert top_keys(vault, "Marlinspike") == ["boat"]  # read right after the write: no waiting

    path = vault.root / "facts" / "boat.md"
    path.write_text(path.read_text().replace("Marlinspike", "Quarterdeck"))
    assert top_keys(vault, "Quarterdeck") == ["boat"] and top_keys(vault, "Marlinspike") == []

    path.unlink()
    assert vault.list() == []
    # each read applied only what the watcher named: no further full reconcile
    assert keeper.stats["full"] == 1 and keeper.stats["batches"] >= 3
    assert "facts/boat.md" not in git(vault.root, "log", "--name-only", "--format=")  # never commits


def test_a_write_in_a_kept_process_asks_no_git_status_and_its_index_md_stays_exact(kept, tmp_path, monkeypatch):
    """With the watcher's exact catch-up (what the MCP server installs), a write does not run
    `git status` (the step that checks every file), and the guarantees hold as with it: the
    commit's INDEX.md is made from the committed tree, INDEX.md on disk shows a person's
    uncommitted edit (made in place, just before the write) and new file."""
    vault, keeper = kept
    vault.kept_exactly = keeper.caught_up_exactly
    vault.remember("alpha", "Alpha as committed", "a")
    assert vault.list() and keeper.mode == "watching"
    path = vault.root / "facts" / "alpha.md"
    with open(path, "r+b") as fh:  # in place: the folder's mtime does not change
        data = fh.read().replace(b"Alpha as committed", b"Alpha edited by hand")
        fh.seek(0)
        fh.write(data)
        fh.truncate()
    write_memory(vault.root, "beta", "Beta only on disk")
    trace = tmp_path / "git-trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    r = vault.remember("gamma", "Gamma by the agent", "c")
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    # no trace at all: no git process (a warm process's write stages git's index in process)
    commands = {line.split('"name":"', 1)[1].split('"', 1)[0]
                for line in (trace.read_text() if trace.exists() else "").splitlines()
                if '"event":"cmd_name"' in line}
    assert "status" not in commands and r.action == "create"
    in_commit = git(vault.root, "show", f"{r.commit}:INDEX.md")
    assert "Alpha as committed" in in_commit and "Gamma by the agent" in in_commit
    assert "Alpha edited by hand" not in in_commit and "Beta only on disk" not in in_commit
    on_disk = (vault.root / "INDEX.md").read_text()
    assert "Alpha edited by hand" in on_disk and "Beta only on disk" in on_disk and "Gamma by the agent" in on_disk
    assert keeper.stats["full"] == 1  # the agent's own commits asked for no full reconcile
    assert git(vault.root, "log", "-1", "--format=%s").startswith("remember")  # one commit, not finished twice
    vault.kept_exactly = None  # without the watcher's word, the write asks git status again
    trace.unlink(missing_ok=True)
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    vault.remember("delta", "Delta by the agent", "d")
    assert '"name":"status"' in trace.read_text()


def test_the_catch_up_of_every_reader_holds_each_change_made_just_before_it(vault):
    """changes_so_far (the daemon's socket reads and a Keeper's reads) waits for the fence:
    taking what the batcher holds right after a write would usually find nothing yet."""
    batcher = Batcher(debounce=60.0, max_delay=60.0)  # only the catch-up can hand the change over
    watcher = VaultWatcher(vault.root, [vault.repo.git_dir], batcher)
    watcher.start()
    try:
        for i in range(20):
            write_memory(vault.root, f"note-{i}", f"Note number {i}")
            batch = changes_so_far(watcher, batcher, 10.0)
            assert f"facts/note-{i}.md" in batch.paths and not batch.overflow
            (vault.root / "facts" / f"note-{i}.md").unlink()
            assert f"facts/note-{i}.md" in changes_so_far(watcher, batcher, 10.0).paths
    finally:
        watcher.stop()


def test_the_catch_up_of_every_reader_holds_a_git_operation_whose_events_are_still_on_their_way(vault):
    """The fence's markers pass through the work tree's watches, not the git dir's (queues of
    their own): a commit made before the catch-up, its events held back, is in the batch."""
    vault.remember("alpha", "Alpha as committed", "a")
    batcher = Batcher(debounce=60.0, max_delay=60.0)
    watcher = VaultWatcher(vault.root, [vault.repo.git_dir], batcher)
    watcher.start()
    try:
        applier = BatchApplier(vault, watcher)
        with git_events_held(watcher) as held:
            git(vault.root, "commit", "-q", "--allow-empty", "--no-verify", "-m", "person: a commit of theirs")
            wait_for(lambda: held, what="the commit's events, held")
            batch = changes_so_far(watcher, batcher, 10.0, applier=applier)
            assert batch.git
            applied = applier.apply(batch)
            assert applied.git_changed and applied.moved and applied.full
            assert not changes_so_far(watcher, batcher, 10.0, applier=applier)  # seen once, not again
    finally:
        watcher.stop()


def test_a_readers_catch_up_reads_gits_state_once(vault, monkeypatch):
    """A read's catch-up read git's state (HEAD, its branch, an operation under way: ~0.3 ms
    under load) after the fence, and applying the batch read it again: twice for every read
    that found a change. The batch carries what the fence's read found; the next read after a
    git operation still sees it (the real function is counted, not replaced)."""
    from vault_mem.daemon import keeper

    reads = []
    real = keeper.git_token
    monkeypatch.setattr(keeper, "git_token", lambda v: reads.append(1) or real(v))
    batcher = Batcher(debounce=60.0, max_delay=60.0)
    watcher = VaultWatcher(vault.root, [vault.repo.git_dir], batcher)
    watcher.start()
    try:
        applier = BatchApplier(vault, watcher)
        write_memory(vault.root, "boat", "Keeps a sailboat at the marina")
        reads.clear()
        batch = changes_so_far(watcher, batcher, 10.0, applier=applier)
        assert "facts/boat.md" in batch.paths and not applier.apply(batch).git_changed
        assert len(reads) == 1
        git(vault.root, "add", "facts/boat.md")
        git(vault.root, "commit", "-q", "--no-verify", "-m", "person: the boat")
        reads.clear()
        batch = changes_so_far(watcher, batcher, 10.0, applier=applier)
        applied = applier.apply(batch)
        assert batch.git and applied.git_changed and applied.moved and len(reads) == 1
    finally:
        watcher.stop()


def test_a_full_pass_for_lost_events_looks_at_head_too(vault):
    """Lost events (a kernel queue's overflow) ask for a full pass, and the git dir's may be
    among them: the pass looks at HEAD too (INDEX.md is rendered against the new one, and the
    daemon commits what a person's commit left stale), not only at the files."""
    vault.remember("alpha", "Alpha as committed", "a")
    watcher = VaultWatcher(vault.root, [vault.repo.git_dir], Batcher(debounce=60.0, max_delay=60.0))
    applier = BatchApplier(vault, watcher)
    git(vault.root, "commit", "-q", "--allow-empty", "--no-verify", "-m", "person: a commit of theirs")
    applied = applier.apply(Batch(overflow=True))
    assert applied.full and applied.git_changed and applied.moved
    assert not applier.apply(Batch(overflow=True)).git_changed


def test_a_fence_begun_before_other_work_still_holds_each_change_made_before_it(vault):
    """The fence in two halves (a recall searches between them): every change made before
    fence_start is in the batch after fence_wait, however long the work in between took."""
    batcher = Batcher(debounce=60.0, max_delay=60.0)  # only the catch-up can hand the change over
    watcher = VaultWatcher(vault.root, [vault.repo.git_dir], batcher)
    watcher.start()
    try:
        for i in range(10):
            write_memory(vault.root, f"note-{i}", f"Note number {i}")
            fence = watcher.fence_start()
            time.sleep(0.01 * (i % 3))  # the reader's own work meanwhile
            batch = changes_before(watcher, fence, batcher, 10.0)
            assert f"facts/note-{i}.md" in batch.paths and not batch.overflow
    finally:
        watcher.stop()


def test_a_recall_racing_a_hand_edit_searches_meanwhile_and_still_sees_the_edit(kept):
    """A kept recall searches while the watcher's fence is under way (catch_up_meanwhile) and
    searches again when the fence brings a change: a hand edit made just before the recall,
    its events not yet delivered, is in the answer; a read with nothing new searches once."""
    vault, keeper = kept
    vault.kept_meanwhile = keeper.catch_up_meanwhile
    assert vault.list() == [] and keeper.mode == "watching"
    searches = []  # (query, the keys that search found), one per search the recalls ran
    after_next_search = []  # called once the next search has run
    search = vault.sidecar.recall

    def counted(*args, **kwargs):
        result = search(*args, **kwargs)
        searches.append((args[0], [h.key for h in result.hits]))
        while after_next_search:
            after_next_search.pop()()
        return result

    vault.sidecar.recall = counted
    for i in range(15):  # the events race the search as they come: either order must answer right
        word = f"quokka{i}"
        write_memory(vault.root, f"pet-{i}", f"The pet is called {word}")
        assert top_keys(vault, word) == [f"pet-{i}"]  # read at once: the events race the search
        path = vault.root / "facts" / f"pet-{i}.md"
        path.write_text(path.read_text().replace(word, f"wombat{i}"))
        assert top_keys(vault, f"wombat{i}") == [f"pet-{i}"] and top_keys(vault, word) == []
        path.unlink()
        assert top_keys(vault, f"wombat{i}") == []
    assert keeper.stats["full"] == 1  # only what the watcher named was read again

    # the race made certain: the watcher delivers no event of the edit until the first search
    # has run, so that search cannot see it and the answer must be the second search's
    handler = keeper._watcher.handler
    delivered = threading.Event()

    def held(event):
        delivered.wait(30)
        type(handler).dispatch(handler, event)

    handler.dispatch = held
    try:
        write_memory(vault.root, "pet-late", "The pet is called numbat")
        searches.clear()
        after_next_search.append(delivered.set)
        answer = top_keys(vault, "numbat")
    finally:
        delivered.set()
        del handler.dispatch
    assert searches == [("numbat", []), ("numbat", ["pet-late"])]  # searched meanwhile, then again
    assert answer == ["pet-late"]  # the second search's answer, not the first's
    searches.clear()
    assert top_keys(vault, "quokka3") == [] and len(searches) == 1  # nothing changed: one search


def test_a_read_before_the_start_up_check_is_done_answers_from_the_index_and_says_so(vault):
    write_memory(vault.root, "van", "Parks the van at the harbour")  # made while nothing watched
    gate = threading.Event()

    def slow_open() -> Vault:
        assert gate.wait(30)
        return Vault(vault.root)

    vault.take_notices()  # the hooks installed by init
    keeper = Keeper(vault)
    keeper.ready_by = time.monotonic()  # the server's deadline has passed: no waiting
    keeper.start_in_background(slow_open)
    vault.kept_current = keeper.catch_up
    try:
        assert top_keys(vault, "harbour") == []  # the index as it was, not a reconcile of its own
        assert vault.take_notices() == [CHECKING]
        gate.set()
        wait_for(lambda: keeper.mode == "watching", what="the start-up check")
        # the start-up thread says "watching" a moment before it ends (it closes its own vault
        # first); a read in that moment still says CHECKING, rightly: wait for the end itself
        keeper._thread.join(timeout=30)
        assert not keeper._thread.is_alive()
        assert top_keys(vault, "harbour") == ["van"] and vault.take_notices() == []
    finally:
        gate.set()
        keeper.close()


def test_a_recall_before_the_start_up_check_never_says_nothing_is_stored(vault):
    """A fresh clone (or a deleted sidecar) served by the MCP server: its first recall comes
    before the start-up check of the files has indexed them and searches an index that holds
    none of them. Nothing found there is not "nothing related is stored" (the agent would deny
    what is stored): the verdict is ``incomplete``, saying the files are still being checked,
    in the result and in what the recall tool tells the agent. Once checked, the memory is found."""
    from vault_mem.adapters.tools import call_tool
    from vault_mem.model.verdict import INCOMPLETE, deny_phrases

    write_memory(vault.root, "van", "Parks the van at the harbour")  # made while nothing watched
    gate = threading.Event()

    def slow_open() -> Vault:
        assert gate.wait(30)
        return Vault(vault.root)

    keeper = Keeper(vault)
    keeper.ready_by = time.monotonic()  # the server's deadline has passed: no waiting
    keeper.start_in_background(slow_open)
    vault.kept_current = keeper.catch_up
    vault.kept_meanwhile = keeper.catch_up_meanwhile
    try:
        result = vault.recall("where is the van parked?")
        assert result.hits == [] and result.verdict == INCOMPLETE and result.to_dict()["unchecked"]
        data = call_tool(vault, "recall", {"query": "where is the van parked?"})
        assert data.data["verdict"] == INCOMPLETE, data.data
        assert "still being checked" in data.data["note"] and not deny_phrases(data.text), data.text
        gate.set()
        keeper._thread.join(timeout=30)
        after = vault.recall("where is the van parked?")
        assert [h.key for h in after.hits] == ["van"] and not after.to_dict()["unchecked"]
    finally:
        gate.set()
        keeper.close()


def test_the_first_recall_searches_while_it_waits_for_the_start_up_check(vault, monkeypatch):
    """A recall during the start-up check searches during its wait for the check (until
    ``ready_by``), not after it: the MCP server's first answer costs the longer of the two.
    When the check is not done by then, the answer says CHECKING; when it ends within the
    wait, the recall searches again and holds what the check found (never stale)."""
    write_memory(vault.root, "van", "Parks the van at the harbour")  # made while nothing watched
    gate = threading.Event()

    def slow_open() -> Vault:
        assert gate.wait(30)
        return Vault(vault.root)

    searched: list[float] = []
    search = vault._search

    def timed_search(*a, **kw):
        searched.append(time.monotonic())
        return search(*a, **kw)

    monkeypatch.setattr(vault, "_search", timed_search)
    vault.take_notices()  # the hooks installed by init
    keeper = Keeper(vault)
    keeper.ready_by = time.monotonic() + 0.5
    keeper.start_in_background(slow_open)
    vault.kept_current = keeper.catch_up
    vault.kept_meanwhile = keeper.catch_up_meanwhile
    try:
        assert top_keys(vault, "harbour") == []  # the index as it was
        assert vault.take_notices() == [CHECKING]
        assert len(searched) == 1 and searched[0] < keeper.ready_by  # searched during the wait
        assert time.monotonic() >= keeper.ready_by  # and waited for the check meanwhile
        searched.clear()
        keeper.ready_by = time.monotonic() + 30
        threading.Timer(0.2, gate.set).start()  # the check ends within this recall's wait
        assert top_keys(vault, "harbour") == ["van"] and vault.take_notices() == []
        assert len(searched) == 2  # the search during the wait, then again on what the check found
    finally:
        gate.set()
        keeper.close()


def test_closing_before_the_loads_are_in_ends_the_start_up_at_once(vault):
    """A client that only lists the tools and goes (a health check) must not keep the server
    alive through the model load, the vector load and a full reconcile."""
    loads = threading.Event()  # never set: the model and vectors still loading
    keeper = Keeper(vault)
    keeper.start_in_background(lambda: Vault(vault.root), after=loads)
    t0 = time.monotonic()
    keeper.close()
    keeper._thread.join(timeout=30)  # the start-up thread itself must end
    assert not keeper._thread.is_alive()
    assert time.monotonic() - t0 < START_WAIT_S / 4  # not the start-up's 120 s wait
    assert keeper.mode != "watching" and keeper._watcher is None


def test_an_edit_made_while_starting_up_is_not_lost(vault):
    keeper = Keeper(vault)
    keeper.start_in_background(lambda: Vault(vault.root))
    write_memory(vault.root, "cat", "The cat is called Biscuit")  # races the start-up thread
    vault.kept_current = keeper.catch_up
    try:
        assert top_keys(vault, "Biscuit") == ["cat"]
    finally:
        keeper.close()


def test_a_git_checkout_is_seen_through_a_full_pass(kept):
    vault, _keeper = kept
    vault.remember("tea", "Prefers green tea in the afternoon", type="preference")
    head = git(vault.root, "rev-parse", "HEAD").strip()
    vault.remember("coffee", "Drinks espresso before noon", type="preference")
    assert top_keys(vault, "espresso") == ["coffee"]
    git(vault.root, "checkout", "-q", head, "--", ".")  # the work tree of the older commit
    git(vault.root, "rm", "-q", "--cached", "preferences/coffee.md")
    (vault.root / "preferences" / "coffee.md").unlink()
    assert top_keys(vault, "espresso") == []


@contextlib.contextmanager
def _rebase_held_at_its_editor(root, tmp_path):
    """A person's real ``git rebase -i`` held at its todo editor for the block, then abandoned
    (the editor fails): a git operation under way that INDEX.md must wait for."""
    gate = tmp_path / "gate"
    gate.write_text("")
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\nwhile [ -e '{gate}' ]; do sleep 0.05; done\nexit 1\n")
    editor.chmod(0o755)
    refused = []
    for _attempt in range(3):
        # git's own check may refuse a rebase begun in the instant the keeper still writes after
        # an agent's commit (RELIABILITY.md: "running it again is the fix"): the person's retry
        rebase = subprocess.Popen(["git", "rebase", "-i", "HEAD~1"], cwd=root, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True,
                                  env={**os.environ, "GIT_SEQUENCE_EDITOR": str(editor)})
        wait_for(lambda: (root / ".git" / "rebase-merge").is_dir() or rebase.poll() is not None,
                 timeout=30.0, what="the rebase under way")
        if (root / ".git" / "rebase-merge").is_dir():
            break
        refused.append(rebase.communicate(timeout=60))
    else:
        raise AssertionError(f"git rebase refused three times: {refused}")
    try:
        yield
    finally:
        gate.unlink()
        rebase.communicate(timeout=60)
    assert not (root / ".git" / "rebase-merge").exists()


def test_index_md_a_git_operation_held_back_is_written_by_the_first_read_after_it(kept, tmp_path):
    """A read that indexes a change while a person's git operation is under way leaves INDEX.md
    alone (the operation would stop half-way), and the first read after the operation writes
    it: it was left without the change until some other file changed. A real rebase held at
    its todo editor, then abandoned."""
    vault, keeper = kept
    vault.remember("alpha", "Alpha as committed", "a")
    vault.remember("beta", "Beta as committed", "b")
    with _rebase_held_at_its_editor(vault.root, tmp_path):
        write_memory(vault.root, "draft", "A draft the person started")
        assert "draft" in [m["key"] for m in vault.list()]  # indexed by the read's catch-up
        assert "A draft the person started" not in (vault.root / "INDEX.md").read_text()
    vault.list()
    assert "A draft the person started" in (vault.root / "INDEX.md").read_text()


def test_index_md_a_git_operation_held_back_is_written_by_the_keepers_timer_without_a_read(kept, tmp_path,
                                                                                             monkeypatch):
    """The daemon retries a held-back INDEX.md on a timer; a keeper waited for the next read of
    an agent, which may come hours later. Its owner (the MCP server) calls ``retry_index`` on a
    timer: once the person's operation is over, INDEX.md is written with no read at all."""
    from vault_mem.daemon import keeper as keeper_module

    vault, keeper = kept
    vault.remember("alpha", "Alpha as committed", "a")
    vault.remember("beta", "Beta as committed", "b")
    with _rebase_held_at_its_editor(vault.root, tmp_path):
        monkeypatch.setattr(keeper_module, "INDEX_RETRY_S", 0.0)  # every call of the timer is due
        write_memory(vault.root, "draft", "A draft the person started")
        assert "draft" in [m["key"] for m in vault.list()]  # indexed; INDEX.md held back
        keeper.retry_index()  # due, but the rebase still runs: still held back
        assert "A draft the person started" not in (vault.root / "INDEX.md").read_text()
    keeper.retry_index()  # the timer's next round, no read
    assert "A draft the person started" in (vault.root / "INDEX.md").read_text()


def test_defers_to_a_daemon_started_later_and_takes_over_when_it_stops(kept):
    vault, keeper = kept
    write_memory(vault.root, "bike", "Rides a gravel bike called Pebble")
    assert top_keys(vault, "Pebble") == ["bike"] and keeper.mode == "watching"

    daemon = Daemon(vault.root, commit_external_edits="off", debounce_ms=20)
    with daemon_thread(daemon, 30):
        assert top_keys(vault, "Pebble") == ["bike"]
        assert keeper.mode == "daemon" and keeper._watcher is None  # our watcher is stopped
        write_memory(vault.root, "kayak", "Paddles a red kayak named Ferrous")
        wait_for(lambda: top_keys(vault, "Ferrous") == ["kayak"], what="the daemon to index the edit")

    write_memory(vault.root, "skis", "Skis on a pair named Tundra")  # no daemon, not watched yet
    assert top_keys(vault, "Tundra") == ["skis"]  # the take-over reconciles in full first
    assert keeper.mode == "watching" and keeper.stats["full"] == 2
    write_memory(vault.root, "sled", "A wooden sled called Rosebud")
    assert top_keys(vault, "Rosebud") == ["sled"] and keeper.stats["full"] == 2
    # nobody committed the hand edits: the daemon was told not to, the keeper never does
    assert "kayak" not in git(vault.root, "log", "--name-only", "--format=")


class SlowLoadingEmbedder(FakeEmbedder):
    """A fake model whose load takes as long as the test says (``gate``): the state between
    a server's start and its model being in, which the real model passes through in ~1 s."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def load(self) -> None:
        assert self.gate.wait(30)


def test_recall_before_the_model_is_loaded_says_it_is_keyword_only(vault):
    embedder = SlowLoadingEmbedder()
    v = Vault(vault.root, embedder=embedder)
    try:
        v.remember("dentist", "Dentist appointment on Friday at nine", type="fact")
        warm = Warmup(v)
        warm.start()
        result = v.recall("dentist appointment")
        assert [h.key for h in result.hits] == ["dentist"]
        assert result.keyword_only and result.reason == WARMING
        assert not warm.wait(0.05)
        embedder.gate.set()
        assert warm.wait(30)
        result = v.recall("dentist appointment")
        assert not result.keyword_only and result.reason is None
        assert [h.key for h in result.hits] == ["dentist"]
        assert v.sidecar.vectors._vindex.seq != -1 and len(v.sidecar.vectors._vindex.ids) == 1  # the preloaded index
    finally:
        v.close()


def test_once_the_model_is_in_recall_is_full_while_the_vectors_still_load(vault, monkeypatch):
    """The first full answer waits for the model only: the in-memory vectors (1-4 s at 100k
    memories) are searched in the vector table until they are in, as a one-shot command
    searches them, and the recall never loads a copy of its own meanwhile."""
    embedder = SlowLoadingEmbedder()
    v = Vault(vault.root, embedder=embedder)
    try:
        v.remember("dentist", "Dentist appointment on Friday at nine", type="fact")
        v.remember("editor", "Uses Helix as the code editor", type="preference")
        loading, gate = threading.Event(), threading.Event()
        preload = v.sidecar.vectors.preload_vectors

        def slow_preload() -> float:
            loading.set()
            assert gate.wait(30)
            return preload()

        monkeypatch.setattr(v.sidecar.vectors, "preload_vectors", slow_preload)
        warm = Warmup(v)
        warm.start()
        embedder.gate.set()
        assert loading.wait(30) and warm.full.is_set() and not warm.ready.is_set()
        result = v.recall("dentist appointment")
        assert not result.keyword_only and result.reason is None
        assert result.hits and result.hits[0].key == "dentist"
        assert v.sidecar.vectors._vindex.seq == -1  # searched in the table, no copy loaded here
        gate.set()
        assert warm.wait(30)
        again = v.recall("dentist appointment")
        assert [h.key for h in again.hits] == [h.key for h in result.hits]
        assert v.sidecar.vectors._vindex.seq != -1 and len(v.sidecar.vectors._vindex.ids) == 2  # the preloaded copy
    finally:
        embedder.gate.set()
        v.close()


def test_held_vectors_load_only_once_released_and_recall_is_full_meanwhile(vault, monkeypatch):
    """The MCP server loads the model while it imports the SDK, but holds the vectors until
    ``initialize`` is answered (``hold_vectors``): loading them then took a core and the
    interpreter's lock from that import. Meanwhile recall is full, from the vector table."""
    embedder = SlowLoadingEmbedder()
    v = Vault(vault.root, embedder=embedder)
    try:
        v.remember("dentist", "Dentist appointment on Friday at nine", type="fact")
        loading = threading.Event()
        preload = v.sidecar.vectors.preload_vectors

        def watched_preload() -> float:
            loading.set()
            return preload()

        monkeypatch.setattr(v.sidecar.vectors, "preload_vectors", watched_preload)
        warm = Warmup(v)
        warm.start(hold_vectors=True)
        embedder.gate.set()
        assert warm.full.wait(30)
        assert not loading.wait(0.3) and not warm.ready.is_set()  # held: the model alone
        result = v.recall("dentist appointment")
        assert not result.keyword_only and result.reason is None
        assert [h.key for h in result.hits] == ["dentist"]
        assert v.sidecar.vectors._vindex.seq == -1  # searched in the table
        warm.start()  # what Startup.begin does: a second start releases them
        assert warm.wait(30) and loading.is_set()
        assert [h.key for h in v.recall("dentist appointment").hits] == ["dentist"]
        assert v.sidecar.vectors._vindex.seq != -1 and len(v.sidecar.vectors._vindex.ids) == 1  # the preloaded copy
    finally:
        embedder.gate.set()
        v.close()


class CountingLoadEmbedder(SlowLoadingEmbedder):
    """SlowLoadingEmbedder that counts its loads and says when one began."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0
        self.loading = threading.Event()

    def load(self) -> None:
        self.loads += 1
        self.loading.set()
        super().load()


def test_the_model_loads_before_initialize_is_answered_and_only_once(vault):
    """Startup.preload (called by serve as soon as the vault is open, while the MCP SDK is still
    being imported) begins the model and vector loads at once; begin (once initialize is
    answered) loads nothing again, and the check of the files still waits for the loads."""
    from vault_mem.adapters.mcp_server import Startup

    embedder = CountingLoadEmbedder()
    v = Vault(vault.root, embedder=embedder)
    startup = Startup(v, lambda: Vault(vault.root, embedder=embedder))
    try:
        startup.preload()
        assert embedder.loading.wait(30) and startup.begun is None  # before initialize
        startup.begin()
        time.sleep(0.2)
        assert startup.keeper.mode is None  # the watch and the reconcile wait for the loads
        embedder.gate.set()
        assert startup.warmup.wait(30)
        wait_for(lambda: startup.keeper.mode == "watching", what="the start-up check")
        assert embedder.loads == 1
    finally:
        embedder.gate.set()
        startup.close()
        v.close()


def test_a_fresh_clones_first_recall_waits_for_the_check_of_the_files(vault):
    """An index that holds no memory yet (a fresh clone, a deleted sidecar) cannot answer a
    recall before the start-up check of the files: the first recall waits for that check as it
    waits for the model (up to MODEL_WAIT_S after initialize), not the server's quarter of a
    second, and finds the memory, where it answered "nothing" from the empty index."""
    from vault_mem.adapters.mcp_server import Startup

    write_memory(vault.root, "van", "Parks the van at the harbour")  # on disk, not in the index
    v = Vault(vault.root)
    startup = Startup(v, lambda: Vault(vault.root), wait_s=0.0, model_wait_s=60.0)
    try:
        startup.preload()
        startup.begin()
        result = v.recall("where is the van at the harbour?")
        assert [h.key for h in result.hits] == ["van"] and not result.unchecked
    finally:
        startup.close()
        v.close()


def test_a_brand_new_vaults_first_read_never_waits_for_the_model(vault):
    """The fresh-clone wait (above) is for an index that lacks what the files hold. A vault with
    no memory at all (``vault-mem init`` just ran) has an empty index and nothing to lack: before,
    its first ``list``, ``get`` or INDEX.md read over MCP waited for the start-up check, which
    itself waits for the model to load (up to MODEL_WAIT_S, 10 s on a loaded machine), where any
    other vault waits a quarter of a second. It keeps the server's usual wait."""
    from vault_mem.adapters.mcp_server import Startup

    v = Vault(vault.root)
    startup = Startup(v, lambda: Vault(vault.root), wait_s=0.25, model_wait_s=60.0)
    try:
        startup.begin()
        assert not startup.empty_index
        assert startup.keeper.ready_by == startup.begun + 0.25
    finally:
        startup.close()
        v.close()


def test_vectors_grown_past_exact_search_become_float16(vault, monkeypatch):
    """A warm index that grows past ``EXACT_MAX`` rows is copied into float16 rows, every vector
    kept, and searches the same."""
    monkeypatch.setattr(VectorIndex, "EXACT_MAX", 45)
    monkeypatch.setattr(VectorIndex, "MIN_SPARE", 2)
    v = Vault(vault.root, embedder=FakeEmbedder())
    try:
        v.sidecar.vectors.keep_vectors_in_memory = True
        for i in range(40):
            write_memory(v.root, f"m{i:02d}", f"memory number {i} about topic {i % 7}")
        v.reconcile()
        assert v.recall("topic 3").hits
        index = v.sidecar.vectors._vindex
        assert index.matrix.dtype.name == "float32" and index.capacity <= 45
        for i in range(40, 48):
            write_memory(v.root, f"m{i:02d}", f"memory number {i} about subject {i}")
        v.reconcile()
        assert [h.key for h in v.recall("memory number 47 about subject 47").hits][:1] == ["m47"]
        assert v.sidecar.vectors._vindex is index and index.matrix.dtype.name == "float16" and len(index.ids) == 48
        stored = dict(v.sidecar.db.execute("SELECT rowid, embedding FROM vec_items").fetchall())
        for fid, row in zip(index.ids.tolist(), index.matrix):
            assert (row == np.frombuffer(stored[fid], dtype=np.float32).astype(np.float16)).all()
    finally:
        v.close()


@pytest.mark.parametrize("exact_max, dtype", [(20_000, "float32"), (45, "float32"), (10, "float16")])
def test_vectors_load_into_one_compact_copy(vault, monkeypatch, exact_max, dtype):
    """The in-memory index holds each vector once, with spare rows for writes: as float32 rows
    while exact search reads every row (float16 to float32 costs more than the product), as
    float16 rows in a vault too big for that (half the memory; only candidates are scored).
    Spare rows never push a vault that exact search reads whole into float16 (45: 40 rows, and
    1,024 spare rows would pass it)."""
    monkeypatch.setattr(VectorIndex, "EXACT_MAX", exact_max)
    v = Vault(vault.root, embedder=FakeEmbedder())
    try:
        for i in range(40):
            write_memory(v.root, f"m{i:02d}", f"memory number {i} about topic {i % 7}")
        v.reconcile()
        v.sidecar.vectors.embed_pending()
        assert v.sidecar.vectors.preload_vectors() >= 0
        index = v.sidecar.vectors._preloaded
        assert index is not None and len(index.ids) == 40 and index.matrix.dtype.name == dtype
        assert index.matrix.base is index._buffers[2] and index.capacity > 40
        stored = dict(v.sidecar.db.execute("SELECT rowid, embedding FROM vec_items").fetchall())
        for fid, row in zip(index.ids.tolist(), index.matrix):
            assert (row == np.frombuffer(stored[fid], dtype=np.float32).astype(dtype)).all()
        v.sidecar.vectors.keep_vectors_in_memory = True
        assert v.recall("topic 3").hits
        assert v.sidecar.vectors._vindex is index  # adopted, not loaded again
    finally:
        v.close()


def test_keep_current_gives_a_long_lived_api_vault_its_own_watcher_until_close(both_platforms, vault, tmp_path,
                                                                                 monkeypatch):
    """``vault_mem.keep_current`` (opt-in, for a process that keeps its Vault open): its writes
    ask no `git status`, and INDEX.md on disk still shows a person's in-place edit and new file
    made just before; ``close()`` stops the watcher and uninstalls it (no watcher thread is left,
    and nothing of it would start watching again)."""
    from vault_mem import keep_current

    vault.remember("alpha", "Alpha as committed", "a")
    before = {t.ident for t in threading.enumerate()}
    keeper = keep_current(vault)
    assert vault.list() and keeper.mode == "watching"
    edit_in_place(vault.root / "facts" / "alpha.md", b"Alpha as committed", b"Alpha edited by hand")
    write_memory(vault.root, "beta", "Beta only on disk")
    trace = tmp_path / "kept.trace"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    with vault.transaction() as tx:
        commit = tx.commit({"facts/gamma.md": b"---\ndescription: Gamma by the agent\n---\n\nc\n"},
                           "remember: gamma", key="gamma", action="create", type_="fact")
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    assert tx.learned_from == "watcher" and '"name":"status"' not in (trace.read_text() if trace.exists() else "")
    on_disk = (vault.root / "INDEX.md").read_text()
    assert "Alpha edited by hand" in on_disk and "Beta only on disk" in on_disk and "Gamma by the agent" in on_disk
    in_commit = git(vault.root, "show", f"{commit}:INDEX.md")
    assert "Alpha edited by hand" not in in_commit and "Beta only on disk" not in in_commit
    vault.close()
    assert keeper.activity() is None and vault.kept_exactly is None
    wait_for(lambda: not ({t.ident for t in threading.enumerate() if t.is_alive()} - before),
             what="the watcher's threads to end")


def test_a_vault_opened_and_written_starts_no_watcher_unless_asked(vault):
    """Watching is opt-in: a Vault (the test suite opens thousands) never starts a thread nor
    takes an inotify instance on its own, however often it writes."""
    before = {t.ident for t in threading.enumerate()}
    for i in range(3):
        vault.remember(f"note-{i}", f"Note number {i}", "b")
        vault.list()
    assert not ({t.ident for t in threading.enumerate() if t.is_alive()} - before)
    assert vault.kept_current is None and vault.kept_exactly is None


def edit_in_place(path, old: bytes, new: bytes) -> None:
    """A person's save in place: the folder's mtime does not change."""
    with open(path, "r+b") as fh:
        data = fh.read().replace(old, new)
        fh.seek(0)
        fh.write(data)
        fh.truncate()
