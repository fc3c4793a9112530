"""Keeping an open vault's sidecar true to the files from file-system events.

:class:`BatchApplier` turns one watcher batch into sidecar work (re-read the changed files, or
the whole vault after a git operation, a type folder appearing or vanishing, or lost events):
the daemon's loop uses it, and so does :class:`Keeper`.

:class:`Keeper` is the watcher of a long-lived process that reads the vault but is not the
daemon (the MCP server, which Claude Code starts without any daemon). Instead of reconciling the
whole vault on every call (1.3 s at 100k memories), it watches like the daemon and, before each
read, waits for the events of every change made so far (:meth:`VaultWatcher.fence`) and applies
them at once, so a read right after a hand edit sees the edit (a recall searches while it
waits, and searches again only when the wait brought a change: :meth:`Keeper.catch_up_meanwhile`).
It never rewrites a memory file; INDEX.md it regenerates as a read without a daemon does, and
commits only what a person's git operation held back, in the person's name, as a read does (its
owner calls :meth:`Keeper.retry_index` on a timer, so that one is not left for the next call).
When a daemon runs, it stops watching and defers to it (the daemon keeps the sidecar current);
when the daemon is gone, it watches again after one full reconcile.

Start-up happens on a thread of its own (:meth:`Keeper.start_in_background`): the watch is set
up, then the whole vault reconciled once, on a vault opened for that thread (SQLite connections
belong to one thread). A read waits for it until :attr:`Keeper.ready_by`; one that comes
before the check is done is answered from the index as it is, with the notice
:data:`CHECKING` (a change made before the start may be missing: never silently stale), and
the next read after the check sees every change (the watch ran all along).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from vault_mem.daemon.watcher import Activity, Batch, Batcher, Fence, VaultWatcher
from vault_mem.errors import VaultMemError
from vault_mem.index.sidecar import ReconcileReport
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.store.files import read_own
from vault_mem.store.history import head_ref
from vault_mem.store.locks import daemon_pid
from vault_mem.vault.core import Vault
from vault_mem.vault.steps import IndexWrite
from vault_mem.platform.heap import trim_heap

log = logging.getLogger("vault_mem.daemon.keeper")

#: How long a read waits for the watcher to deliver the events of earlier changes before it
#: reconciles the whole vault instead (never stale, only slower).
FENCE_TIMEOUT_S = 1.0
#: How often an INDEX.md held back by a person's git operation is tried again (:meth:`Keeper.retry_index`)
INDEX_RETRY_S = 10.0
#: How long a read waits for the start-up reconcile of a :class:`Keeper` before doing its own
#: (when no :attr:`Keeper.ready_by` is set).
START_WAIT_S = 120.0
#: how long closing waits for a start-up reconcile under way (SQLite rolls back one cut short)
CLOSE_WAIT_S = 2.0
#: What a read says when it is answered before the start-up check of the files is done.
CHECKING = ("the files are still being checked for changes (a few seconds after this server started, in "
            "a big vault): this answer comes from the index as it was and may miss a change made before "
            "or since the start; ask again in a moment")


def git_token(vault: Vault) -> tuple:
    """What tells a git operation happened: HEAD, the branch it names, an operation in progress."""
    repo = vault.repo
    return repo.head(), head_ref(repo), repo.operation_in_progress()


def git_busy(vault: Vault) -> str | None:
    """Why git must not be disturbed now (a merge/rebase/... or index.lock), or None. (INDEX.md
    needs no such check first: :meth:`Vault.write_index` makes it and says what held it back.)"""
    repo = vault.repo
    op = repo.person_operation()
    if op:
        return f"{op} is under way"
    if repo.index_locked():
        return "git's index.lock is held"
    if repo.concluding_replay():
        # a squash or a pick/revert with -n: what git merged waits, staged, for the person's
        # commit, which the hooks judge; committed here as a hand edit it would pass for theirs
        return "a git squash, cherry-pick or revert waits for its commit (git commit, or git reset --merge)"
    return None


@dataclass
class Applied:
    """What applying one batch did."""

    report: ReconcileReport | None  # None: nothing was read
    full: bool                      # the whole vault was reconciled
    git_changed: bool               # HEAD, its branch or a git operation changed
    moved: bool = False             # ... by something other than a vault-mem commit (a person's git)


class BatchApplier:
    """Applies watcher batches to one vault's sidecar (the vault may be swapped: ``.vault``)."""

    def __init__(self, vault: Vault, watcher: VaultWatcher, token: tuple | None = None) -> None:
        self.vault = vault
        self.watcher = watcher
        self.token = token if token is not None else git_token(vault)

    def git_moved(self, batch: Batch) -> bool:
        """HEAD, its branch or the git operation under way differs from what was last applied:
        read from git's files (no git process) into ``batch``, which :meth:`apply` uses."""
        batch.token = git_token(self.vault)
        return batch.token != self.token

    def apply(self, batch: Batch) -> Applied:
        """Re-read what ``batch`` names, or everything when only a full pass can be trusted.
        Vectors are not made here (``embed=False``): callers make them outside the write lock.

        Whether git moved is read from git's files on every batch, not only on one that holds a
        git event: the git dir's watches are queues of their own, whose events may come after
        the work tree's (a checkout's files before its HEAD, to a reader's fence) or be lost
        with the rest (``overflow``); a full pass that did not look at HEAD left INDEX.md as
        rendered against the old one."""
        vault = self.vault
        full = bool(batch.folders) or batch.overflow or batch.config
        if batch.folders or batch.overflow:
            self.watcher.sync_folder_watches(batch.folders)
        git_changed = moved = False
        token = batch.token if batch.token is not None else git_token(vault)
        if token != self.token:
            git_changed = True
            own_commit = token[0] == vault.sidecar.get_meta("head") and token[1:] == self.token[1:]
            full |= not own_commit  # an agent write already refreshed its own files
            moved = not own_commit
            self.token = token
        # beside a write that waits for a person's git command (its files and journal are its
        # own): the rows are brought up to date, nothing is finished or put back
        with vault.locked_or_beside() as beside:
            if beside is None and not git_busy(vault):
                note = vault.recover()
                if note:
                    log.warning("vault-mem: %s", note)
            report = None
            if batch.paths:  # what the events name first: searchable before the full pass
                report = vault.sidecar.refresh_paths(sorted(batch.paths), embed=False)
            if full:
                report = combined(report, vault.sidecar.reconcile(embed=False))
        return Applied(report, full, git_changed, moved)


def changes_so_far(watcher: VaultWatcher, batcher: Batcher, timeout: float = FENCE_TIMEOUT_S, *,
                   applier: BatchApplier | None = None) -> Batch:
    """Every change made to the vault before this call, as one batch, for a read that must not
    be stale: waits (up to ``timeout``) until the watcher has delivered the events of every
    earlier change (:meth:`VaultWatcher.fence`), then takes all that is pending, debounced or
    not. When the events are slow to arrive (the fence timed out), the batch asks for a full
    reconcile (``overflow``): never stale, only slower. The one catch-up of every reader: the
    daemon's socket reads and a :class:`Keeper`'s reads alike.

    The fence's markers pass through the vault folder's and the type folders' watches, not the
    git dir's (each watch is a queue of its own, and a marker file in ``.git`` or ``refs/``
    would be a write into git's own folders on every read): a git command that ended before
    this call may not have said so yet. ``applier`` (every reader passes its own) reads git's
    state instead, and the batch says ``git`` when HEAD, its branch or the operation under
    way moved since it last applied one (:meth:`BatchApplier.git_moved`): a read between a
    checkout's files and its HEAD rendered INDEX.md against the old HEAD, and the first read
    after HEAD moved did not put HEAD's back, its event still on the way."""
    return changes_before(watcher, watcher.fence_start(), batcher, timeout, applier=applier)


def changes_before(watcher: VaultWatcher, fence: Fence, batcher: Batcher,
                   timeout: float = FENCE_TIMEOUT_S, *, applier: BatchApplier | None = None) -> Batch:
    """:func:`changes_so_far` for a fence begun earlier (:meth:`VaultWatcher.fence_start`):
    every change made before that, as one batch."""
    fenced = watcher.fence_wait(fence, timeout)
    batch = batcher.take_now()
    if not fenced:
        log.info("vault-mem: file events are slow to arrive; reconciling the whole vault")
        batch.overflow = True
    if applier is not None and applier.git_moved(batch):
        batch.git = True
    return batch


def write_index_marked(vault: Vault, mark: tuple | None, *, held: frozenset[str] = frozenset()
                       ) -> tuple[IndexWrite, tuple | None]:
    """Write INDEX.md (:meth:`Vault.write_index`; ``held``: the files of a write waiting beside)
    and the mark a reader (the daemon, a :class:`Keeper`) keeps of it, the one bookkeeping of
    both: git's state (:func:`git_token`, read just before the write: a HEAD moved meanwhile
    makes it differ) while INDEX.md on disk is not HEAD's, None once it is; ``mark`` unchanged
    when the write was held back. Not HEAD's, it stands modified in the work tree, and is right
    for this state of git only: what is due depends on HEAD
    (:func:`~vault_mem.vault.steps.committed_index_kept`), and a git operation writes the files
    first and HEAD last, so one rendered in between is the old HEAD's answer. Costs a read of
    INDEX.md and one lookup in git's object store."""
    token = git_token(vault)
    written = vault.write_index(held=held)
    if written.held_back is not None:
        return written, mark
    repo = vault.repo
    try:
        head = repo.head()
        committed = repo.blob_at(head, vault.ws.top(INDEX_FILE)) if head else None
        header = repo.object_header(committed) if committed else None
        # read up to HEAD's size and one byte more: a peer's INDEX.md of any size is never read whole
        data = read_own(vault.root / INDEX_FILE, max_bytes=header[1] + 1) if header else None
    except (VaultMemError, OSError):
        return written, token  # looked at again when git moves
    return written, (None if data is not None and committed is not None and committed == repo.blob_id(data)
                     else token)


def index_written_before(mark: tuple | None, token: tuple) -> bool:
    """Whether INDEX.md a reader left on disk (:func:`write_index_marked`) is to be looked at again now
    that git's state is ``token``: git moved past the state it was written under."""
    return mark is not None and mark != token


def combined(first: ReconcileReport | None, second: ReconcileReport) -> ReconcileReport:
    """Counts of two passes over the files; the second pass's problem list (it ran last)."""
    if first is None:
        return second
    for name in ("added", "updated", "removed"):
        setattr(second, name, getattr(second, name) + getattr(first, name))
    return second


class Keeper:
    """A long-lived reader's own watcher of ``vault`` while no daemon runs (see the module).

    Install with ``vault.kept_current = keeper.catch_up``: every read of ``vault`` then calls it
    instead of reconciling. Call from the thread that uses ``vault``; :meth:`close` at the end."""

    def __init__(self, vault: Vault, *, fence_timeout: float = FENCE_TIMEOUT_S) -> None:
        self.vault = vault
        self.fence_timeout = fence_timeout
        self._watcher: VaultWatcher | None = None
        self._applier: BatchApplier | None = None
        self._batcher: Batcher | None = None
        self._started = threading.Event()
        self._closing = threading.Event()
        self._start_error: BaseException | None = None
        self._thread: threading.Thread | None = None
        #: "watching" (its own watcher), "daemon" (deferring to one) or None (not started / failed)
        self.mode: str | None = None
        #: catch-ups that applied a batch of paths, and full reconciles (start-up and take-overs
        #: included): what a long session cost, for logs and tests
        self.stats = {"batches": 0, "full": 0}
        #: INDEX.md is behind the sidecar: a git operation under way held its write back
        self._index_owed = False
        #: when :meth:`retry_index` writes an owed INDEX.md again (``time.monotonic()``)
        self.index_retry_at: float | None = None
        #: git's state (:func:`git_token`) under which this keeper last wrote INDEX.md, or found
        #: it current, while that INDEX.md is not HEAD's (:func:`write_index_marked`): once git differs
        #: from it, INDEX.md may be one rendered in the middle of a person's git operation
        #: (see :meth:`retry_index`); None when none of its own stands in the work tree
        self._index_written_at: tuple | None = None
        #: when set (a ``time.monotonic()`` value), a read that comes before the start-up
        #: reconcile is done waits for it only until then, and is then answered from the index
        #: as it is, with the notice :data:`CHECKING`; unset, it waits START_WAIT_S
        self.ready_by: float | None = None

    # -- start-up ------------------------------------------------------------------------------
    def start_in_background(self, open_vault: Callable[[], Vault], *,
                            after: threading.Event | None = None) -> None:
        """Begin watching (unless a daemon runs) and reconcile the whole vault once, on a thread,
        with a vault of its own from ``open_vault``; the first read waits for it. With ``after``,
        the thread first waits for that event (up to START_WAIT_S): work that would compete
        with it for the CPU goes first."""
        self._thread = threading.Thread(target=self._start_thread, args=(open_vault, after),
                                        name="vault-mem-keeper-start", daemon=True)
        self._thread.start()

    def _start_thread(self, open_vault: Callable[[], Vault], after: threading.Event | None = None) -> None:
        try:
            if after is not None:
                deadline = time.monotonic() + START_WAIT_S
                while not after.wait(0.1) and not self._closing.is_set() and time.monotonic() < deadline:
                    pass
            if self._closing.is_set():
                return  # the session ended first (a client that only listed the tools, say)
            if self._daemon_runs():
                self.mode = "daemon"
                return
            own = open_vault()
            # one pass over every row: mapped, its pages stayed in this process's peak memory
            # (+100 MB at 100k memories) though the vault is closed right after
            own.sidecar.db.map_file(False)
            try:
                self._watch(own)
            finally:
                own.close()
        except Exception as exc:  # noqa: BLE001 - a thread's end: the reads reconcile themselves instead
            self._start_error = exc
            log.warning("vault-mem: could not start watching %s (%s); reads reconcile instead",
                        self.vault.root, exc)
        finally:
            self._started.set()
            trim_heap()  # the scan's 100k-entry tables are garbage now

    def _watch(self, reconcile_with: Vault) -> None:
        """Watch first, then reconcile: a change made meanwhile is queued, not lost."""
        t0 = time.perf_counter()
        vault = self.vault
        batcher = Batcher(debounce=0.0, max_delay=0.0)
        watcher = VaultWatcher(vault.root, [vault.repo.git_dir, vault.repo.common_dir], batcher)
        watcher.start()
        try:
            token = git_token(reconcile_with)
            reconcile_with.reconcile(force=True)
        except BaseException:
            watcher.stop()
            raise
        if self._closing.is_set():  # closed while the reconcile ran: nothing to keep current
            watcher.stop()
            return
        self._batcher, self._watcher = batcher, watcher
        self._applier = BatchApplier(vault, watcher, token)
        self.stats["full"] += 1
        self.mode = "watching"
        log.info("vault-mem: watching %s for changes (no daemon runs; %.0f ms to catch up)",
                 vault.root, (time.perf_counter() - t0) * 1000)

    # -- reads ---------------------------------------------------------------------------------
    def catch_up(self) -> bool:
        """Before a read: bring the sidecar up to every change made so far. True when done here
        (the read needs no reconcile); False when a daemon runs (it keeps the sidecar current),
        or watching failed (the read reconciles as without a keeper)."""
        if self._thread is not None:
            if self.ready_by is not None:
                if not self._started.wait(max(0.0, self.ready_by - time.monotonic())):
                    self._unchecked()
                    return True  # from the index as it is, saying so (no reconcile of its own)
            elif not self._started.wait(START_WAIT_S):
                log.warning("vault-mem: the start-up reconcile is still running; this read reconciles itself")
                return False
        self._thread = None
        if self._start_error is not None:
            return False
        if self._daemon_runs():
            if self._watcher is not None:
                log.info("vault-mem: a daemon now runs for %s; leaving the watching to it", self.vault.root)
                self._stop_watching()
            self.mode = "daemon"
            return False
        if self._watcher is None:
            log.info("vault-mem: no daemon runs for %s any more; watching it again", self.vault.root)
            try:
                self._watch(self.vault)
            except (VaultMemError, OSError) as exc:  # e.g. out of inotify watches
                log.warning("vault-mem: could not watch %s (%s); reads reconcile instead", self.vault.root, exc)
                return False
            return True
        self._apply(changes_so_far(self._watcher, self._batcher, self.fence_timeout, applier=self._applier))
        self._write_owed_index()
        return True

    def checked(self) -> bool:
        """Whether no start-up check of the files is under way (done, or none begun)."""
        return self._thread is None or self._started.is_set()

    def wait_checked(self) -> bool:
        """Wait for the start-up check of the files until :attr:`ready_by` (not at all when it is
        unset); True when it is done. The MCP server waits so on a worker thread before a read,
        whose own :meth:`catch_up` then waits no more."""
        if self.checked() or self.ready_by is None:
            return self.checked()
        return self._started.wait(max(0.0, self.ready_by - time.monotonic()))

    def _unchecked(self) -> None:
        """A read answers from the index before the start-up check is done: it says so
        (:data:`CHECKING`), and a recall that finds nothing says something may still be stored
        (:attr:`Vault.index_unchecked`: a fresh clone's index holds no memory yet)."""
        if CHECKING not in self.vault.notices:
            self.vault.notices.append(CHECKING)
        self.vault.index_unchecked = True

    def catch_up_meanwhile(self) -> Callable[[], bool] | None:
        """:meth:`catch_up` in two halves, for a read that can work while the watcher's events
        arrive (a recall: its search takes longer than the events): applies what the watcher
        has already delivered, begins the fence (:meth:`VaultWatcher.fence_start`) and returns
        ``finish``, to call after the work: it waits for the fence, applies what it brought
        and returns True when that changed what the read sees (the work must be done again).
        None when not watching steadily (starting up, a daemon, no watcher): the read catches
        up as before (:meth:`catch_up`, through ``vault.kept_current``).

        While the start-up check of the files runs and a read waits for it only until
        :attr:`ready_by`, the search runs during that wait instead of after it (the first recall
        of a server costs the longer of the two, not their sum: at 100k the check cannot end in
        the wait, ~0.25 s, and the search takes about as long): ``finish`` then waits the rest,
        catches up and asks for the search again when the check ended meanwhile, and otherwise
        adds the notice :data:`CHECKING` as :meth:`catch_up` would."""
        if self._thread is not None and self.ready_by is not None and not self._started.is_set():
            def finish_start() -> bool:
                if self._started.wait(max(0.0, self.ready_by - time.monotonic())):
                    self.vault.reconcile()  # the check ended: catch up (or reconcile) as any read
                    return True
                self._unchecked()
                return False

            return finish_start
        if self._thread is not None or self._watcher is None or self._start_error is not None:
            return None
        if self._daemon_runs():
            return None  # catch_up leaves the watching to it
        watcher, batcher, applier = self._watcher, self._batcher, self._applier
        self._apply(batcher.take_now())  # delivered already: in before the work, not after it
        fence = watcher.fence_start()

        def finish() -> bool:
            changed = self._apply(changes_before(watcher, fence, batcher, self.fence_timeout, applier=applier))
            self._write_owed_index()
            return changed

        return finish

    def _apply(self, batch: Batch) -> bool:
        """Apply ``batch`` (nothing when empty); True when what a read sees may have changed."""
        if not batch:
            return False
        applied = self._applier.apply(batch)
        self.stats["batches"] += 1
        self.stats["full"] += applied.full
        changed = applied.report is not None and applied.report.changed
        # moved: INDEX.md looked at again against the new HEAD (written between a checkout's files
        # and its HEAD, say); and so is one this keeper wrote whenever git moved past the state it
        # was written under, even by what looks like an agent's commit: a fast-forward (or reset)
        # to the commit of the last agent write leaves HEAD's branch as it was
        if changed or applied.moved or index_written_before(self._index_written_at, self._applier.token):
            self._index_owed = True
        return bool(changed or applied.full or applied.git_changed)

    def _write_owed_index(self) -> None:
        """Write INDEX.md, owed until written: a change that met a person's git operation was left
        out of it. Once written, what it caught up with is committed alone in the person's name
        (:meth:`Vault.commit_owed_index`): the next agent commit must not carry it."""
        if not self._index_owed:
            return
        with self.vault.lock:
            written, self._index_written_at = write_index_marked(self.vault, self._index_written_at)
            self._index_owed = written.held_back is not None
            if written.was_owed:
                self.vault.commit_owed_index()
        self.index_retry_at = time.monotonic() + INDEX_RETRY_S if self._index_owed else None

    def retry_index(self) -> None:
        """The retry timer of INDEX.md, for the thread that uses the vault (the MCP server's
        event loop calls it every :data:`INDEX_RETRY_S`), so that neither of these waits for the
        next call of an agent (hours, maybe):

        - INDEX.md held back by a person's git operation is written once it is over;
        - INDEX.md this keeper wrote, when git moved since (HEAD, its branch, an operation
          ending): a read between a person's checkout (or reset, or fast-forward) writing the
          files and moving HEAD renders it from those files against the old HEAD, which then
          stood modified in the work tree, and the person's next checkout was refused for it.
          Caught up with here as a read would (the whole vault, INDEX.md against the new HEAD).

        Cheap when neither is due (a few small reads of git's files, no git process)."""
        if self._watcher is None:
            return  # a daemon keeps INDEX.md now, or watching failed (the reads reconcile)
        if self._index_owed:
            if self.index_retry_at is None or time.monotonic() < self.index_retry_at:
                return
            try:
                self._write_owed_index()
            except (VaultMemError, OSError) as exc:
                log.warning("vault-mem: INDEX.md is still owed (%s); retrying in %g s", exc, INDEX_RETRY_S)
                self.index_retry_at = time.monotonic() + INDEX_RETRY_S
            return
        if self._index_written_at is None or not index_written_before(self._index_written_at, git_token(self.vault)):
            return
        self._index_owed = True  # looked at again against git as it is now; held back: retried
        try:
            self.catch_up()
        except (VaultMemError, OSError) as exc:
            log.warning("vault-mem: could not catch up with a git operation (%s); the next read does", exc)

    def activity(self) -> Activity | None:
        """What its watcher has seen so far (:class:`~vault_mem.daemon.watcher.Activity`; a new
        object for each new watch), or None while it does not watch (starting up, a daemon runs,
        watching failed). Any thread may ask."""
        watcher = self._watcher
        return watcher.handler.activity if watcher is not None else None

    def caught_up_exactly(self) -> bool:
        """Before a write: :meth:`catch_up`, True only when the sidecar now holds every change
        made before this call (never the start-up's "answered from the index as it is"), so the
        write need not ask ``git status`` what a person changed."""
        if self._thread is not None and not self._started.is_set():
            return False  # the start-up check of the files is still running
        return self.catch_up() and self.mode == "watching" and self._watcher is not None

    def _daemon_runs(self) -> bool:
        return daemon_pid(self.vault.state_dir) is not None

    def _stop_watching(self) -> None:
        watcher, self._watcher, self._applier, self._batcher = self._watcher, None, None, None
        if watcher is not None:
            watcher.stop()

    def close(self) -> None:
        """Stop watching. A start-up still waiting for the loads ends at once; one reconciling
        is waited for a moment, then left to end with the process (it stops its own watcher)."""
        self._closing.set()
        if self._thread is not None:
            self._started.wait(CLOSE_WAIT_S)
        self._stop_watching()


def keep_current(vault: Vault) -> Keeper:
    """Keep ``vault`` current by a watcher of this process while no daemon runs, as the MCP
    server keeps its vault: every read then applies only what changed since the last one
    (no reconcile, which stats every file), and every write skips ``git status`` (the step of a
    write that reads every file). For a long-lived process that holds ``vault`` open and calls
    it from one thread; opt-in, because the watcher costs an inotify instance (a per-user limit,
    128 on many systems), a watch per type folder and two threads, and its start-up reconciles
    the whole vault once (on a thread; the first read waits for it). :meth:`Vault.close` stops
    it. When a daemon runs, it defers to the daemon (a write asks the daemon's fence instead)."""
    keeper = Keeper(vault)
    keeper.start_in_background(vault.reopen)
    vault.kept_current = keeper.catch_up
    vault.kept_exactly = keeper.caught_up_exactly
    vault.kept_meanwhile = keeper.catch_up_meanwhile

    def stop() -> None:  # uninstalled too: a read of the closed vault would start watching again
        keeper.close()
        vault.kept_current = vault.kept_exactly = vault.kept_meanwhile = None
    vault.closers.append(stop)
    return keeper
