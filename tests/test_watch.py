"""watch.py: event classification, the debouncing batcher and the overflow signal.

Events are scripted with watchdog's own event classes and fed to the real handler; the batcher
runs with a real producer thread. Waits are bounded by deadlines; nothing asserts on timing.
"""

from __future__ import annotations

import logging
import os
import threading

import pytest
from watchdog.events import FileClosedEvent, FileCreatedEvent, FileMovedEvent

from vault_mem.daemon.watcher import Batch, Batcher, Classifier, EventHandler, VaultWatcher


def test_a_kernel_queue_overflow_forces_a_full_reconcile(vault):
    """watchdog says "overflow" only in a log warning; the watcher turns it into a batch."""
    batcher = Batcher(debounce=0.01, max_delay=0.05)
    watcher = VaultWatcher(vault.root, [vault.repo.git_dir], batcher)
    watcher.start()
    try:
        # the warning watchdog's inotify reader logs on IN_Q_OVERFLOW (watchdog/observers/inotify_c.py)
        logging.getLogger("watchdog.observers.inotify_c").warning(
            "Inotify queue overflowed; filesystem events were lost")
        batch = batcher.next_batch(timeout=5.0)
    finally:
        watcher.stop()
    assert batch is not None and batch.overflow
    # the logger is left as it was: a stopped watcher no longer feeds its batcher
    logging.getLogger("watchdog.observers.inotify_c").warning("Inotify queue overflowed")
    assert not batcher.has_pending()


def test_a_steady_stream_of_changes_is_never_starved():
    """Changes every debounce/20 never leave a quiet gap; max_delay still hands out a batch.

    The quiet period is 1 s against a change every 50 ms: a gap the batcher would take for quiet
    needs the producer's thread held off the CPU for a second. With a 0.1 s quiet period (twice
    the producer's pause) a thread woken 50 ms late on a machine at load ~20 left one, and the
    batch held one change (suite29, 2026-12-05)."""
    batcher = Batcher(debounce=1.0, max_delay=2.0)
    consumer_done = threading.Event()
    sent: list[str] = []

    def producer():
        # 200 changes at debounce/20 = 10 s of stream, far past max_delay; stops once a batch came
        for i in range(200):
            if consumer_done.wait(0.05):
                return
            sent.append(f"facts/k{i}.md")
            batcher.add(Batch(paths={sent[-1]}))

    thread = threading.Thread(target=producer, daemon=True)
    thread.start()
    try:
        batch = batcher.next_batch(timeout=30.0)
        still_streaming = thread.is_alive()
    finally:
        consumer_done.set()
        thread.join(5.0)
    assert batch, "next_batch returned nothing"
    assert still_streaming, "the batch came only after the stream ended: a steady stream starved it"
    assert len(batch.paths) >= 2  # coalesced, not one batch per change


# need not exist; resolved as the Classifier resolves it
ROOT = os.path.realpath("/srv/vault")
GIT_DIR = f"{ROOT}/.git"


def classify(name: str) -> Batch:
    batch = Batch()
    Classifier(ROOT, [GIT_DIR]).classify(f"{ROOT}/{name}", is_directory=False, into=batch)
    return batch


@pytest.mark.parametrize("name", [
    "facts/.editor.md.swp",               # vim swap file
    "facts/.editor.md.swx",               # vim's second swap file
    "facts/4913",                         # vim's can-I-write-here probe
    "facts/editor.md~",                   # vim/emacs backup
    "facts/~editor.md",
    "facts/#editor.md#",                  # emacs auto-save
    "facts/.#editor.md",                  # emacs lock file
    "facts/editor.md.tmp",
    "facts/.editor.md.vault-mem-tmp-4242",  # our own atomic-write temp file
    "facts/sub/editor.md",                # memory files live one level down only
    "elsewhere/editor.md",                # not a type folder
    ".vault-mem/index.db",
])
def test_editor_noise_is_dropped(name):
    assert not classify(name)


def test_memory_files_and_vault_files_are_classified():
    assert classify("facts/editor.md").paths == {"facts/editor.md"}
    assert classify("preferences/tabs.md").paths == {"preferences/tabs.md"}
    assert classify("INDEX.md").index_file
    assert classify("vault.toml").config


@pytest.mark.parametrize(("src", "dest"), [
    ("facts/.editor.md.vault-mem-tmp-4242", "facts/editor.md"),  # temp file renamed over the original
    ("facts/.editor.md.swp", "facts/editor.md"),
    ("facts/editor.md", "facts/editor.md~"),  # vim's backupcopy=no: the original becomes the backup
])
def test_both_ends_of_a_rename_are_looked_at(src, dest):
    batcher = Batcher(debounce=0.0, max_delay=0.0)
    handler = EventHandler(Classifier(ROOT, [GIT_DIR]), batcher)
    handler.on_any_event(FileMovedEvent(f"{ROOT}/{src}", f"{ROOT}/{dest}"))
    batch = batcher.next_batch(timeout=1.0)
    assert batch is not None and batch.paths == {"facts/editor.md"}


def test_noise_events_wake_nothing():
    batcher = Batcher(debounce=0.0, max_delay=0.0)
    handler = EventHandler(Classifier(ROOT, [GIT_DIR]), batcher)
    for name in ("facts/4913", "facts/.editor.md.swp", "facts/editor.md~"):
        handler.on_any_event(FileCreatedEvent(f"{ROOT}/{name}"))
        handler.on_any_event(FileClosedEvent(f"{ROOT}/{name}"))
    handler.on_any_event(FileMovedEvent(f"{ROOT}/facts/4913", f"{ROOT}/facts/.editor.md.swp"))
    assert not batcher.has_pending()


def _next_batch_before_stop(batcher: Batcher, stop_after: float) -> Batch | None:
    """What ``next_batch`` hands out before a timer thread stops the batcher (None: nothing)."""
    timer = threading.Timer(stop_after, batcher.stop)
    timer.start()
    try:
        return batcher.next_batch(timeout=60.0)
    finally:
        timer.cancel()


def test_a_hand_edit_waits_the_short_quiet_period_and_a_git_operation_the_long_one(vault):
    """A save of one memory file is handed out after ``debounce``; a batch that also holds a git
    operation (work for a full reconcile) waits for ``bulk_debounce``: a checkout's burst is
    applied once. Real watchdog, real files."""
    batcher = Batcher(debounce=0.01, bulk_debounce=60.0, max_delay=120.0)
    watcher = VaultWatcher(vault.root, [vault.repo.git_dir], batcher)
    watcher.start()
    try:
        tmp = vault.root / "facts" / ".tea.md.tmp"
        tmp.write_text("---\ndescription: Drinks oolong tea\n---\n")
        os.replace(tmp, vault.root / "facts" / "tea.md")  # an editor's save by rename
        edit = _next_batch_before_stop(batcher, 30.0)
        assert edit is not None and edit.paths == {"facts/tea.md"} and not edit.bulk

        (vault.root / "facts" / "tea.md").write_text("---\ndescription: Drinks green tea\n---\n")
        batcher.add(Batch(git=True))  # e.g. HEAD moved by a checkout that wrote the file
        # stopped after 1 s, far inside the 60 s quiet period: nothing was handed out
        assert _next_batch_before_stop(batcher, 1.0) is None
    finally:
        watcher.stop()
    left = batcher.take_now()
    assert left.git and left.paths == {"facts/tea.md"}  # still pending, merged into one batch


def test_without_a_bulk_quiet_period_every_batch_waits_the_same():
    batcher = Batcher(debounce=0.01, max_delay=1.0)
    batcher.add(Batch(git=True))
    got = _next_batch_before_stop(batcher, 30.0)
    assert got is not None and got.git
