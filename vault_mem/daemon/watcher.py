"""File-system events -> debounced batches of vault changes, for the daemon.

What is watched (:class:`VaultWatcher`): the vault folder and each type folder, non-recursively,
plus the repository's git dir non-recursively and its ``refs/`` recursively (and ``reftable/``,
where a reftable repository keeps its refs).
Memory files live one level down (``<type folder>/<key>.md``), so nothing deeper matters; and
not watching ``.vault-mem/`` or ``.git/objects`` at all means the sidecar's own database writes
and git's object writes never wake the daemon (no feedback, no event storms, idle means idle).

An event is classified into a :class:`Batch` field or dropped. Editor noise (vim's ``.swp``,
``.swx``, ``4913`` and ``~`` backups, ``.tmp`` files, our own ``.<name>.vault-mem-tmp-<pid>``)
is dropped, but both sides of a rename are looked at, so the final rename of an editor's temp
file over the original is caught (the destination is a memory path).

:class:`Batcher` collects classified changes from the observer's thread and hands the main thread
one coalesced batch once ``debounce`` seconds pass without a new change (or ``max_delay`` after
the first change, so a steady stream is never starved). A batch that holds more than memory
files (a git operation, a type folder, vault.toml, lost events: work for a full reconcile) waits
for the longer ``bulk_debounce`` instead, so that a checkout's burst is applied once, while a
person's save of one file is searchable a few milliseconds later. The main thread blocks on a
condition variable; there is no polling loop.

:meth:`VaultWatcher.fence` lets a reader that must not be stale (the MCP server answering from
its own watcher) wait until every change made before the call has reached the batcher: it
creates and removes a marker file in each watched folder and waits for the marker's events.
watchdog reads each watched folder through its own inotify queue, and each queue is in order,
so once a folder's marker is seen, every earlier event of that folder has been classified.
"""

from __future__ import annotations

import itertools
import logging
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from watchdog import events as fse
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from vault_mem.config import CONFIG_FILE, FOLDER_TYPES
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import is_memory_path
from vault_mem.platform.events import close_events_native

log = logging.getLogger("vault_mem.daemon.process")

# Only these inotify events are asked for: creates, deletes, renames and close-after-write.
# Not IN_MODIFY (one per write() call; close-after-write says the file is complete), not
# opens/reads (every recall and git read would wake the daemon).
EVENT_FILTER = [fse.FileCreatedEvent, fse.FileDeletedEvent, fse.FileMovedEvent, fse.FileClosedEvent,
                fse.DirCreatedEvent, fse.DirDeletedEvent, fse.DirMovedEvent]
#: Where the system never says "closed after write" (macOS's FSEvents, the BSDs' kqueue, and the
#: portable implementation): a modified file counts as changed, once its events settle (the
#: batcher's debounce, at least :data:`SETTLE_S`), so an in-place save is not dropped.
MODIFIED_FILTER = [fse.FileCreatedEvent, fse.FileDeletedEvent, fse.FileMovedEvent, fse.FileModifiedEvent,
                   fse.DirCreatedEvent, fse.DirDeletedEvent, fse.DirMovedEvent]
#: the least quiet time after a modified event before its file is read (a save's writes settle)
SETTLE_S = 0.2


def event_filter() -> list[type[FileSystemEvent]]:
    """The events the watcher asks for on this system."""
    return EVENT_FILTER if close_events_native() else MODIFIED_FILTER


def settle_time(debounce: float) -> float:
    """The quiet time before a hand edit is read: ``debounce``, and at least :data:`SETTLE_S`
    where only modified events tell of a save (its later writes would come after the read)."""
    return debounce if close_events_native() else max(debounce, SETTLE_S)

#: How long stopping waits for watchdog's observer threads to finish.
STOP_WAIT_S = 5.0

#: Name of a fence marker file (:meth:`VaultWatcher.fence`): not a memory path, so every other
#: watcher (a daemon's) drops it as noise; created and removed at once, never committed.
FENCE_MARK = ".vault-mem-fence-"

#: Files directly in the git dir whose change can mean "HEAD, a ref or an operation changed".
GIT_NAMES = frozenset({
    "HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "REVERT_HEAD", "CHERRY_PICK_HEAD",
    "BISECT_LOG", "packed-refs", "index", "index.lock", "rebase-merge", "rebase-apply",
    "AUTO_MERGE", "sequencer",
})


@dataclass
class Batch:
    """What changed since the last batch. ``paths`` are vault-relative memory paths."""

    paths: set[str] = field(default_factory=set)
    git: bool = False        # something under the git dir (HEAD, refs, index, an operation)
    folders: set[str] = field(default_factory=set)  # type folders that appeared, vanished or moved
    index_file: bool = False  # INDEX.md was touched (by us, git, or a person)
    config: bool = False     # vault.toml changed
    overflow: bool = False   # the kernel dropped events: only a full reconcile is safe
    #: git's state read for a reader's batch after its fence (:func:`~vault_mem.daemon.keeper.changes_before`),
    #: which applying it uses rather than read it again; None: read when applied (never kept
    #: through a merge: it may be older than what merged in)
    token: tuple | None = None

    def __bool__(self) -> bool:
        return bool(self.paths or self.git or self.folders or self.index_file or self.config
                    or self.overflow)

    @property
    def bulk(self) -> bool:
        """More than memory files changed: applying it means a full reconcile."""
        return bool(self.git or self.folders or self.config or self.overflow)

    def merge(self, other: Batch) -> None:
        self.paths |= other.paths
        self.git |= other.git
        self.folders |= other.folders
        self.index_file |= other.index_file
        self.config |= other.config
        self.overflow |= other.overflow
        self.token = None

    def describe(self) -> str:
        parts = []
        if self.paths:
            shown = sorted(self.paths)
            parts.append(", ".join(shown[:5]) + (f" and {len(shown) - 5} more" if len(shown) > 5 else ""))
        for name in ("git", "folders", "index_file", "config", "overflow"):
            if getattr(self, name):
                parts.append(name.replace("_", " "))
        return "; ".join(parts) or "nothing"


class Classifier:
    """Maps absolute paths to :class:`Batch` changes for one vault and its git dir(s)."""

    def __init__(self, root: str, git_dirs: list[str]):
        self.root = os.path.realpath(root)
        self.git_dirs = sorted({os.path.realpath(g) for g in git_dirs}, key=len, reverse=True)

    def classify(self, path: str, *, is_directory: bool, into: Batch) -> bool:
        """Record what ``path`` changing means in ``into``; False when it is noise."""
        if not path:
            return False
        path = os.path.normpath(path)
        for gdir in self.git_dirs:
            if path == gdir or path.startswith(gdir + os.sep):
                rel = path[len(gdir) + 1:]
                if rel.startswith(("refs" + os.sep, "reftable" + os.sep)) or rel == "refs" or rel in GIT_NAMES:
                    into.git = True
                    return True
                return False
        if not path.startswith(self.root + os.sep):
            return False
        parts = path[len(self.root) + 1:].split(os.sep)
        if len(parts) == 1:
            name = parts[0]
            if name in FOLDER_TYPES:
                into.folders.add(name)  # a type folder was created, deleted or renamed
            elif name == INDEX_FILE and not is_directory:
                into.index_file = True
            elif name == CONFIG_FILE and not is_directory:
                into.config = True
            else:
                return False
            return True
        rel = "/".join(parts)
        if not is_directory and is_memory_path(rel):
            into.paths.add(rel)
            return True
        return False  # editor noise, sub-folders, anything else


class Batcher:
    """Thread-safe collector of changes with a trailing-edge debounce.

    :meth:`stop` and :meth:`wake` come from other threads. Never call them from a signal handler
    on the thread that waits in :meth:`next_batch`: the handler may run between the check of
    the flags and the wait, and its notify then wakes nobody (the daemon relays signals through
    a thread of its own: :func:`vault_mem.daemon.main.run_daemon`). ``before_wait`` is called
    just before an idle wait, holding the lock: the point where that happened (crash tests
    pause there).
    """

    def __init__(self, *, debounce: float, max_delay: float, bulk_debounce: float | None = None,
                 before_wait: Callable[[], None] | None = None):
        self.debounce = debounce
        self._before_wait = before_wait
        #: the quiet period of a batch that holds a git operation, a folder or lost events
        self.bulk_debounce = debounce if bulk_debounce is None else bulk_debounce
        self.max_delay = max_delay
        self._cond = threading.Condition(threading.RLock())
        self._pending = Batch()
        self._first = 0.0
        self._last = 0.0
        self._stopped = False
        self._woken = False

    def add(self, batch: Batch) -> None:
        if not batch:
            return
        with self._cond:
            now = time.monotonic()
            if not self._pending:
                self._first = now
            self._pending.merge(batch)
            self._last = now
            self._cond.notify_all()

    def stop(self) -> None:
        """Make :meth:`next_batch` return None at once (from another thread than its own)."""
        self._stopped = True
        with self._cond:
            self._cond.notify_all()

    def wake(self) -> None:
        """Make :meth:`next_batch` return now with what is pending, debounced or not (a read
        is waiting for the main thread)."""
        with self._cond:
            self._woken = True
            self._cond.notify_all()

    def take_now(self) -> Batch:
        """What is pending, at once, without waiting out the debounce (empty when nothing is)."""
        with self._cond:
            batch, self._pending = self._pending, Batch()
            return batch

    def has_pending(self) -> bool:
        with self._cond:
            return bool(self._pending)

    def next_batch(self, timeout: float) -> Batch | None:
        """Block until a debounced batch is ready (returned), ``timeout`` passes with nothing
        pending (an empty Batch), :meth:`wake` (what is pending, maybe nothing) or :meth:`stop`
        (None)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._pending and not self._stopped and not self._woken:
                left = deadline - time.monotonic()
                if left <= 0:
                    return Batch()
                if self._before_wait is not None:
                    self._before_wait()
                self._cond.wait(left)
            while not self._stopped and not self._woken:
                now = time.monotonic()
                quiet = self.bulk_debounce if self._pending.bulk else self.debounce
                due = min(self._last + quiet, self._first + self.max_delay)
                if now >= due:
                    break
                self._cond.wait(due - now)
            if self._stopped:
                return None
            self._woken = False
            batch, self._pending = self._pending, Batch()
            return batch


class Seen(NamedTuple):
    """:meth:`Activity.snapshot`: the counts so far."""

    changes: int  # changes of any kind
    lost: int  # events lost, or a type folder itself changed
    names: dict[str, int]  # type folder -> memory files added, removed or renamed there


class Activity:
    """What a watcher has seen so far, as counts that only grow: for a poller that must know
    whether the vault changed without listing its folders (the MCP server's change
    notifications, :mod:`vault_mem.adapters.mcp_notify`; a fence's markers change every
    folder's time on every read, and listing 100k names took ~150 ms of CPU). Written on the
    observer's thread, read anywhere (:meth:`snapshot`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.changes = 0  # changes of any kind (a memory file written in place included)
        self.lost = 0  # events lost, or a type folder itself changed: any folder's names may differ
        self.names: dict[str, int] = {}  # type folder -> memory files added, removed or renamed there

    def note(self, batch: Batch, *, names: bool) -> None:
        """``batch`` came from one event; ``names``: the event adds, removes or renames a file."""
        if not batch:
            return
        with self._lock:
            self.changes += 1
            if batch.overflow or batch.folders:
                self.lost += 1
            if names:
                for rel in batch.paths:
                    folder = rel.split("/", 1)[0]
                    self.names[folder] = self.names.get(folder, 0) + 1

    def snapshot(self) -> Seen:
        """The counts so far."""
        with self._lock:
            return Seen(self.changes, self.lost, dict(self.names))


#: the events that add, remove or rename a file (not a write to one in place)
_NAME_EVENTS = frozenset({fse.EVENT_TYPE_CREATED, fse.EVENT_TYPE_DELETED, fse.EVENT_TYPE_MOVED})


class EventHandler(FileSystemEventHandler):
    """watchdog handler: classify each event (both ends of a move), feed the batcher and count
    it in :attr:`activity`.

    Runs on watchdog's dispatcher thread; it never raises (an exception would kill that thread).
    """

    def __init__(self, classifier: Classifier, batcher: Batcher):
        self.classifier = classifier
        self.batcher = batcher
        self.fences = _Fences()
        self.activity = Activity()

    def on_any_event(self, event: FileSystemEvent) -> None:
        try:
            src = os.fsdecode(event.src_path)
            if FENCE_MARK in src:
                if event.event_type == fse.EVENT_TYPE_DELETED:
                    self.fences.seen(src)
                return
            batch = Batch()
            for p in (event.src_path, getattr(event, "dest_path", "")):
                if p:
                    self.classifier.classify(os.fsdecode(p), is_directory=event.is_directory, into=batch)
            self.activity.note(batch, names=event.event_type in _NAME_EVENTS)
            self.batcher.add(batch)
        except Exception:
            log.exception("vault-mem: could not classify %r", event)
            self.lost()

    def lost(self) -> None:
        """Events were lost (or could not be read): only a full pass can be trusted."""
        self.activity.note(Batch(overflow=True), names=False)
        self.batcher.add(Batch(overflow=True))


class _Fences:
    """Marker paths waited for (:meth:`VaultWatcher.fence`) and those seen (thread-safe)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._waiting: set[str] = set()

    def expect(self, paths: list[str]) -> None:
        with self._cond:
            self._waiting |= set(paths)

    def seen(self, path: str) -> None:
        with self._cond:
            self._waiting.discard(os.path.realpath(path))
            self._cond.notify_all()

    def wait(self, paths: list[str], timeout: float) -> bool:
        want = set(paths)
        with self._cond:
            done = self._cond.wait_for(lambda: not (self._waiting & want), timeout)
            self._waiting -= want
            return done


class OverflowDetector(logging.Handler):
    """watchdog reports a kernel queue overflow only as a log warning; turn it into a batch
    that forces a full reconcile (events were lost, so only a scan can be trusted)."""

    def __init__(self, handler: EventHandler):
        super().__init__(level=logging.WARNING)
        self.handler = handler

    def emit(self, record: logging.LogRecord) -> None:
        if "overflow" in record.getMessage().lower():
            self.handler.lost()


def tune_watchdog(move_pair_delay: float = 0.01) -> None:
    """Shorten how long watchdog holds a rename's first half while waiting for its second.

    watchdog's inotify emitter sleeps up to 0.5 s on every IN_MOVED_FROM before delivering it
    (it wants to pair it with the IN_MOVED_TO), even when the pair is already there: every
    editor save by rename would be 0.5 s late. The daemon looks at both ends of a move anyway,
    so pairing does not matter to it. Process-wide; only the daemon process calls this. Never
    raises: a watchdog release without that knob (or with another shape of it) keeps its own.
    """
    for modname, clsname in (("watchdog.observers.inotify_move_event_grouper", "InotifyMoveEventGrouper"),
                             ("watchdog.observers.inotify_buffer", "InotifyBuffer")):
        try:
            cls = getattr(__import__(modname, fromlist=[clsname]), clsname)
            if isinstance(getattr(cls, "delay", None), (int, float)):
                cls.delay = move_pair_delay
        except Exception as exc:  # another watchdog release (or system): its own delay stays
            log.debug("vault-mem: watchdog's %s.%s not tuned: %s", modname, clsname, exc)


@dataclass(frozen=True)
class Fence:
    """Markers made by :meth:`VaultWatcher.fence_start`, one per watched folder; ``complete``:
    every one of them was made (a folder that vanished or is read-only had none)."""

    paths: list[str]
    complete: bool


class VaultWatcher:
    """The watchdog observer of one vault: the vault folder and each type folder (not
    recursive), the git dir(s) (not recursive) and ``refs/`` (recursive), feeding ``batcher``."""

    def __init__(self, root: Path, git_dirs: list[Path], batcher: Batcher):
        self.root = Path(root)
        self.git_dirs = sorted({str(g) for g in git_dirs})
        self.batcher = batcher
        self.handler = EventHandler(Classifier(str(self.root), self.git_dirs), batcher)
        self.overflow = OverflowDetector(self.handler)
        self.observer = Observer(timeout=5.0)
        self._folders: dict[str, tuple[tuple[int, int] | None, object]] = {}
        self._fence_seq = itertools.count()

    def start(self) -> None:
        tune_watchdog()
        logging.getLogger("watchdog").addHandler(self.overflow)
        self._schedule(self.root)
        for gdir in self.git_dirs:
            self._schedule(Path(gdir))
            if (Path(gdir) / "refs").is_dir():
                self._schedule(Path(gdir) / "refs", recursive=True)
            if (Path(gdir) / "reftable").is_dir():  # git 2.45+'s reftable: branches move in here
                self._schedule(Path(gdir) / "reftable")
        self.sync_folder_watches()
        self.observer.start()

    def stop(self) -> None:
        """Stop and join the observer's threads (releases every inotify watch), for at most
        STOP_WAIT_S: a daemon told to stop must exit even if an observer thread hangs (its
        threads are daemon threads, so the process does not wait for them)."""
        logging.getLogger("watchdog").removeHandler(self.overflow)
        if self.observer.is_alive():
            self.observer.stop()
            self.observer.join(timeout=STOP_WAIT_S)
            if self.observer.is_alive():
                log.warning("vault-mem: the file watcher did not stop within %g s; exiting without it",
                            STOP_WAIT_S)

    def fence(self, timeout: float) -> bool:
        """Return once every event of a change made to the vault folder or a type folder before
        this call has reached the batcher (True), or after ``timeout`` (False: the caller must
        not trust the batcher alone, e.g. reconcile in full). Costs a create and an unlink per
        watched folder, and a millisecond or two of the observer's threads."""
        return self.fence_wait(self.fence_start(), timeout)

    def fence_start(self) -> Fence:
        """The first half of :meth:`fence`: the markers made, not yet waited for. A reader may
        work meanwhile (the observer's threads deliver the events while it searches) and then
        :meth:`fence_wait`; every change made before this call is in the batcher after that."""
        folders = [self.root] + [self.root / name for name in sorted(self._folders)]
        tag = f"{FENCE_MARK}{os.getpid()}-{next(self._fence_seq)}"
        paths = [os.path.join(os.path.realpath(folder), tag) for folder in folders]
        self.handler.fences.expect(paths)
        made = []
        for path in paths:
            try:
                # opened read-only: created and removed are its only events the watch asks for (a
                # close after writing was a third, one more for the observer's threads to handle,
                # per folder and recall, holding the interpreter's lock)
                os.close(os.open(path, os.O_RDONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
                os.unlink(path)
                made.append(path)
            except OSError as exc:  # a folder just vanished (its own event says so) or is read-only
                log.debug("vault-mem: no fence in %s: %s", os.path.dirname(path), exc)
        return Fence(paths, complete=len(made) == len(paths))

    def fence_wait(self, fence: Fence, timeout: float) -> bool:
        """The second half of :meth:`fence`: True once the events of ``fence``'s markers (and
        so of every change made before :meth:`fence_start`) have reached the batcher; False
        after ``timeout``, or at once when a marker could not be made."""
        if not fence.complete:
            self.handler.fences.wait(fence.paths, 0)
            return False
        return self.handler.fences.wait(fence.paths, timeout)

    def _schedule(self, path: Path, *, recursive: bool = False):
        return self.observer.schedule(self.handler, str(path), recursive=recursive, event_filter=event_filter())

    def sync_folder_watches(self, touched: set[str] = frozenset()) -> None:
        """One watch per existing type folder. A folder that had an event of its own (deleted,
        re-created, renamed) gets a new watch: its inode number may well be reused, so only the
        event tells that the old watch died. The caller's full reconcile then covers anything
        written before the new watch existed."""
        for folder in FOLDER_TYPES:
            try:
                st = os.stat(self.root / folder)
                ident = (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None
            except OSError:
                ident = None
            current = self._folders.get(folder)
            if current is not None and current[0] == ident and folder not in touched:
                continue
            if current is not None:
                try:
                    self.observer.unschedule(current[1])
                except (KeyError, RuntimeError):
                    pass
                del self._folders[folder]
            if ident is not None:
                try:
                    self._folders[folder] = (ident, self._schedule(self.root / folder))
                except OSError as exc:  # vanished again, or out of inotify watches
                    log.warning("vault-mem: cannot watch %s: %s", folder, exc)
