"""``vault-mem daemon``: keep the sidecar and INDEX.md true to the files, whoever changes them.

One daemon per vault, enforced by an exclusive ``flock`` on ``.vault-mem/daemon.lock`` held for
the daemon's life (the kernel drops it when the process dies, so a killed daemon never blocks a
new one). While it runs, read commands skip their own reconcile (:func:`locks.daemon_pid`).

The loop (main thread): block on :class:`watch.Batcher` (no polling; idle wake-ups are minutes
apart) -> a debounced batch -> under the vault's write lock, re-read just the changed memory
files (``Sidecar.refresh_paths``), or the whole vault (mtime/size first) after a git operation,
a type folder appearing or vanishing, ``vault.toml`` changing or lost events -> regenerate
INDEX.md when it changed. Nothing here writes a memory file.

Git: while a merge/rebase/revert/cherry-pick/bisect is in progress or ``index.lock`` exists,
the sidecar is still kept current (it is not in the work tree) but INDEX.md is not rewritten
(git would find the work tree dirty between steps) and nothing is committed; both happen once
git is done (its HEAD/ref/index events wake the daemon, and a 10 s retry timer covers a
stale ``index.lock``).

External edits (a person's editor, ``sed``, ``git stash pop``...) are committed after
``quiet_seconds`` without changes when ``commit_external_edits`` is on ("auto": only in a
standalone vault), authored by the person's git identity, never on a detached HEAD, never with
a file the sidecar cannot use. What is committed: every memory file that differs from HEAD and
was seen changing (plus, after a full reconcile, what ``git status`` shows dirty in the type
folders), and INDEX.md when it differs from HEAD.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from vault_mem.config import STATE_DIR
from vault_mem.daemon.keeper import (
    BatchApplier,
    changes_so_far,
    git_busy,
    git_token,
    index_written_before,
    write_index_marked,
)
from vault_mem.daemon.serve import Handler, NotStarted, ReadServer
from vault_mem.daemon.watcher import Batch, Batcher, VaultWatcher, settle_time
from vault_mem.errors import ConcurrentEditError, ConfigError, IdentityError, VaultMemError, for_person
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.names import quoted, shown
from vault_mem.store.daemon_socket import FENCE_OP
from vault_mem.store.files import PRIVATE_FILE, atomic_write, checkpoint, read_own
from vault_mem.store.git import GitRepo
from vault_mem.store.history import head_branch
from vault_mem.store.locks import DAEMON_LOCK, FileLock, daemon_pid, read_pid
from vault_mem.store.worktree import gc_auto
from vault_mem.sync.remote import run_schedule
from vault_mem.vault.core import Vault
from vault_mem.vault.hand_edits import commit_hand_edits, differing_paths, put_back_stale
from vault_mem.vault.person import autocommit, commit_persons_index
from vault_mem.vault.steps import changed_memory_paths

log = logging.getLogger("vault_mem.daemon.process")

STATUS_FILE = "daemon.json"
LOG_FILE = "daemon.log"
QUIET_ENV = "VAULT_MEM_QUIET_SECONDS"
DEBOUNCE_ENV = "VAULT_MEM_DEBOUNCE_MS"
IDLE_WAKE_S = 300.0   # the loop wakes this rarely when nothing happens (nothing to do then)
RETRY_S = 10.0        # re-check deferred work (git busy, a failed reconcile) this often
EMBED_RETRY_S = 60.0  # after an embedder failed
GC_QUIET_ENV = "VAULT_MEM_GC_QUIET_SECONDS"
GC_QUIET_S = 120.0    # after commits, `git gc --auto` once the repository has been quiet this long
GC_STOP_WAIT_S = 60.0  # on stop, let a running gc finish rather than orphan it
#: after a person's git operation, the check for files no person wrote (:meth:`Daemon._put_back_stale`)
#: is tried again this soon while git's index.lock is held
PUT_BACK_RETRY_S = 0.5
#: a commit of the daemon's put off while a write waits for git beside it is tried again this soon
BESIDE_RETRY_S = 1.0
#: how many times INDEX.md a person's git operation left stale is tried at once while git is
#: busy (:meth:`Daemon._commit_persons_index`), PUT_BACK_RETRY_S apart
PERSON_INDEX_TRIES = 60
WRITABLE_CHECK_S = 2.0  # a daemon started on a read-only disk asks this often whether it is writable
#: the quiet period of a batch holding a git operation, a folder change or lost events (never
#: shorter than ``debounce_ms``): a checkout's or pull's burst of events is applied in one full
#: pass, while a hand edit waits only ``debounce_ms`` (bench/bench_edit_latency.py)
BULK_DEBOUNCE_S = 0.15

__all__ = ["Daemon", "daemon_status"]


def daemon_status(root: Path) -> dict:
    """Whether a daemon runs for the vault at ``root``, its pid, and what it last reported."""
    state = Path(root).resolve() / STATE_DIR
    pid = daemon_pid(state)
    out: dict = {"running": pid is not None, "pid": pid, "vault": str(Path(root).resolve()),
                 "log": str(state / LOG_FILE)}
    if pid is None:
        return out
    try:
        reported = json.loads(read_own(state / STATUS_FILE) or b"{}")
    except (OSError, ValueError, VaultMemError):
        return out
    if reported.get("pid") == pid:
        out.update({k: v for k, v in reported.items() if k not in out})
    return out


class Daemon:
    """The watcher of one vault. ``run()`` blocks until :meth:`stop` (thread-safe, signal-safe).

    ``quiet_seconds``, ``debounce_ms`` and ``commit_external_edits`` override vault.toml (and the
    ``VAULT_MEM_QUIET_SECONDS``/``VAULT_MEM_DEBOUNCE_MS`` environment variables). ``reads``
    (operation -> ``fn(vault, args)``) are answered on ``.vault-mem/daemon.sock``
    (:mod:`vault_mem.daemon.serve`); without them the daemon serves no reads. ``writes``
    (operation -> ``fn(vault, args)``) are one-shot commands' writes run there too
    (:meth:`_write`), each on a vault opened as the command would open it."""

    def __init__(self, root: Path, *, quiet_seconds: float | None = None, debounce_ms: int | None = None,
                 commit_external_edits: str | None = None, embedder: object = None,
                 reads: Mapping[str, Handler] | None = None, writes: Mapping[str, Handler] | None = None) -> None:
        self.root = Path(root).resolve()
        self._embedder = embedder  # None: the vault's own (vault.toml); tests pass a fake one
        self._read_handlers = reads
        self._write_handlers = dict(writes or {})
        self._reads: ReadServer | None = None
        self.state_dir = self.root / STATE_DIR
        self._overrides = (quiet_seconds, debounce_ms, commit_external_edits)
        self._batcher: Batcher | None = None
        self._stop_requested = False
        self._stopped = threading.Event()
        self._put_back: set[str] = set()
        self._put_back_all = False
        self.vault: Vault | None = None
        self._watcher: VaultWatcher | None = None
        self._applier: BatchApplier | None = None
        self._problems: dict[str, str] = {}
        self._index_stale = False
        #: git's state under which INDEX.md on disk, not HEAD's, was last written or found current (keeper.write_index_marked)
        self._index_written_at: tuple | None = None
        self._edits: set[str] = set()
        self._index_commit = False
        self._person_index_tries = 0
        self._scan_dirty = False
        self._identity_said = False  # the missing git identity was warned about (once, not per round)
        self._timers: dict[str, float] = {}
        self._blocked: str | None = None
        self._status: dict = {}
        self._status_owed = False
        self._gc_thread: threading.Thread | None = None
        self._sync_stop = threading.Event()
        self._sync_thread: threading.Thread | None = None

    # -- settings ------------------------------------------------------------------------------
    def _settings(self) -> None:
        cfg = self.vault.config
        quiet, debounce, mode = self._overrides
        env_q, env_d = os.environ.get(QUIET_ENV), os.environ.get(DEBOUNCE_ENV)
        try:
            self.quiet = float(quiet if quiet is not None else env_q if env_q else cfg.quiet_seconds)
            self.debounce = float(debounce if debounce is not None else env_d if env_d else cfg.debounce_ms) / 1000
        except ValueError as exc:
            raise ConfigError(f"{QUIET_ENV} and {DEBOUNCE_ENV} must be numbers ({exc}); fix or unset them") from exc
        self.autocommit = autocommit(self.vault.ws, mode)

    def _batch_delays(self) -> dict[str, float]:
        bulk = max(self.debounce, BULK_DEBOUNCE_S)
        return {"bulk_debounce": bulk, "max_delay": max(1.0, 4 * bulk)}

    def _open_vault(self) -> Vault:
        vault = Vault(self.root, embedder=self._embedder)
        # logged once; every read's answer says the vault's state as it is at that read
        # (Workspace.state_notices: a vault.toml waiting for `vault-mem trust`, a peer's agent file
        # a pull took), not as it was when the daemon started
        for note in vault.take_notices():
            log.warning("vault-mem: %s", for_person(note))
        return vault

    # -- lifecycle -----------------------------------------------------------------------------
    def stop(self, why: str = "stop requested") -> None:
        """Ask :meth:`run` to return (from any thread but the one in :meth:`run`: a signal
        handler hands it to a thread, :func:`vault_mem.daemon.main.run_daemon`)."""
        self._stop_requested = True
        self._why = why
        self._stopped.set()
        if self._batcher is not None:
            self._batcher.stop()

    def wait_until_writable(self) -> bool:
        """Wait while the disk holding the vault is mounted read-only, said once with what still
        works (reads answer without a daemon) and checked every :data:`WRITABLE_CHECK_S`; False
        when stopped meanwhile. A daemon that exited there ("[Errno 30] Read-only file system:
        .../daemon.log") was restarted in a loop by a service manager."""
        said = False
        while _mounted_read_only(self.root):
            if not said:
                said = True
                log.warning("vault-mem daemon: the disk holding %s is mounted read-only, so nothing can be "
                            "indexed or committed; reads answer without the daemon (`vault-mem recall`, `get`, "
                            "`list` read the files and the index as they are). Waiting for it to be writable "
                            "(checked every %g s; stop with Ctrl-C or SIGTERM)", self.root, WRITABLE_CHECK_S)
            if self._stopped.wait(WRITABLE_CHECK_S):
                return False
        if said:
            log.info("vault-mem daemon: the disk holding %s is writable again; starting", self.root)
        return not self._stop_requested

    def run(self, *, on_ready: Callable[[], None] | None = None) -> int:
        """Watch until stopped; 0 after a clean stop, 1 if another daemon holds the vault."""

        lock = FileLock(self.state_dir / DAEMON_LOCK, what="the daemon lock")
        if not lock.acquire(blocking=False):
            pid = daemon_pid(self.state_dir) or read_pid(self.state_dir / DAEMON_LOCK)
            log.error("vault-mem: a daemon is already running for %s (pid %s); stop it first "
                      "(kill %s) or check it with `vault-mem daemon --status`", self.root, pid, pid)
            return 1
        try:
            self.vault = self._open_vault()
            self._settings()
            self._batcher = Batcher(debounce=settle_time(self.debounce), **self._batch_delays(),
                                    before_wait=lambda: checkpoint("idle-wait", self.state_dir))
            if self._stop_requested:
                return 0
            repo = self.vault.repo
            # Watch first, then reconcile: a change made during start-up is queued, not lost.
            self._watcher = VaultWatcher(self.root, [repo.git_dir, repo.common_dir], self._batcher)
            self._watcher.start()
            self._applier = BatchApplier(self.vault, self._watcher)
            log.info("vault-mem daemon (pid %d) watching %s (debounce %d ms, external edits %s)",
                     os.getpid(), self.root, round(self.debounce * 1000),
                     f"committed after {self.quiet:g} s of quiet" if self.autocommit else "not committed")
            self._status = {"pid": os.getpid(), "started": _now(), "autocommit": self.autocommit}
            self._step(Batch(overflow=True), why="start-up", embed=False)
            self._commit_index_left_behind()
            self._timers["embed"] = time.monotonic()  # vectors owed: first thing in the loop
            self._status["ready"] = True
            self._write_status()
            self._start_sync()
            self._start_reads()
            if on_ready:
                on_ready()
            if not self._loop():
                return 1
            log.info("vault-mem daemon stopping (%s)", getattr(self, "_why", "stop requested"))
            return 0
        finally:
            if self._reads is not None:
                self._reads.stop()
            if self._gc_thread is not None:
                self._gc_thread.join(timeout=GC_STOP_WAIT_S)
            if self._sync_thread is not None:
                self._sync_stop.set()
                self._sync_thread.join(timeout=30)
            if self._watcher is not None:
                self._watcher.stop()
            if self.vault is not None:
                self.vault.close()
            (self.state_dir / STATUS_FILE).unlink(missing_ok=True)
            lock.release()

    def _start_sync(self) -> None:
        """Sync through the git remote on a schedule / after writes when vault.toml asks for it
        (off by default), in its own thread so local remember/recall never wait on the network."""
        cfg = self.vault.config
        if cfg.sync_interval_s <= 0 and not cfg.sync_after_write:
            return
        self._sync_thread = threading.Thread(target=run_schedule, args=(self.root, self._sync_stop),
                                             name="vault-mem-sync", daemon=True)
        self._sync_thread.start()
        log.info("vault-mem daemon: syncing with the git remote every %g s%s", cfg.sync_interval_s,
                 " and after writes" if cfg.sync_after_write else "")

    def _start_reads(self) -> None:
        """Serve reads on the socket, then load the model and the vectors (a read arriving
        meanwhile waits for them: the main thread answers it next)."""
        if self._read_handlers is None:
            return
        handlers = {**self._read_handlers, FENCE_OP: self._fence}
        writes = {op: functools.partial(self._write, op, fn) for op, fn in self._write_handlers.items()}
        self._reads = ReadServer(self.root, handlers, wake=self._batcher.wake,
                                 notices=lambda: self.vault.ws.state_notices(), writes=writes)
        if not self._reads.start():
            self._reads = None
            return
        try:
            _warm_up(self.vault.sidecar)
        except Exception as exc:  # noqa: BLE001 - a failed warm-up only makes the first read slower
            log.warning("vault-mem: warming up for reads failed: %s", exc)

    def _reads_waiting(self) -> bool:
        return self._reads is not None and self._reads.waiting()

    def _answer_reads(self) -> None:
        if self._reads is not None:
            self._reads.answer_pending(lambda: self.vault, self._catch_up)
        if self._status_owed:  # after the answers: it is a report, not on any reader's path
            self._write_status()

    def _catch_up(self) -> None:
        """Index every change made before the read, debounced or not: a read must see them
        (the watcher's fence first, as a :class:`~vault_mem.daemon.keeper.Keeper` does: an
        event still in the kernel's queue under load would be missed otherwise)."""
        batch = changes_so_far(self._watcher, self._batcher, applier=self._applier)
        if not batch.config and self.vault.ws.settings_moved():
            # approved with `vault-mem trust` (this machine's approvals, outside the vault: no
            # event here) or put back here: the read is answered with the settings now in force
            self._reload_config()
        if batch or self._index_stale:
            # stale: INDEX.md a person's git command held back is written before the read is
            # answered, not at the retry timer's next round: the command's end (a process
            # exiting, its index.lock's removal in the git dir's late queue) may bring no event
            self._step(batch, embed=False, status=False)

    def _fence(self, vault: Vault, args: dict) -> bool:
        """A write's fence (:func:`~vault_mem.store.daemon_socket.fence`), answered on the main
        thread right after :meth:`_catch_up` applied every change made before the request: True
        unless a step failed since (its retry timer is set: only a full pass can be trusted,
        and the write asks ``git status`` itself)."""
        return "retry" not in self._timers and self._watcher is not None

    def _write(self, op: str, handler: Handler, writer: dict[str, Any],
               args: dict[str, Any]) -> tuple[Any, list[str], list[str]]:
        """A one-shot command's write (main thread, right after :meth:`_catch_up`): ``handler``
        run on a vault opened here as the command opens its own (``Vault(root, agent=...)``: the
        settings in force read afresh, the vault's own embedder, never loaded for a write; the
        serve layer checked that the command's environment is this process's), so its policy,
        secret gate, commit, author and trailers are the command's. The catch-up just made is
        the write's fence (:meth:`_fence`: no ``git status``), for its one commit. Returns the
        handler's result, the notices the command would have printed at its end and the
        warnings it would have logged on stderr meanwhile (:class:`_Said`). The file events of
        the write reach this daemon's watcher as a command's do."""
        busy = self._git_busy()
        if busy:
            # a write here would wait for the person's git command on this (the main) thread,
            # and nothing else of the daemon's would run meanwhile: the put-back of what a
            # `stash pop` brought, which the person's next checkout needs, among them. The
            # command's own process waits instead, beside which the daemon goes on working
            # (`Vault.locked_or_beside`).
            raise NotStarted(f"{busy} in the vault")
        fenced = self._fence(self.vault, {})
        vault = Vault(self.root, agent=writer.get("agent"))
        asked: list[bool] = []

        def fence_once() -> bool:  # one write's, as a command's fence: a second commit asks git status
            asked.append(True)
            return fenced and len(asked) == 1

        vault.kept_exactly = fence_once
        said = _Said(threading.get_ident())
        logging.getLogger("vault_mem").addHandler(said)
        t0 = time.perf_counter()
        try:
            result = handler(vault, args)
            return result, vault.take_notices(), said.lines
        finally:
            logging.getLogger("vault_mem").removeHandler(said)
            vault.close()
            log.info("vault-mem: %s of %s done for a command (%d ms)", op, shown(str(args.get("key"))),
                     round((time.perf_counter() - t0) * 1000))

    def _loop(self) -> bool:
        """Until stopped (True) or the vault folder is gone (False)."""
        while not self._stop_requested:
            now = time.monotonic()
            due = min(self._timers.values(), default=now + IDLE_WAKE_S)
            batch = self._batcher.next_batch(max(0.0, due - now))
            if batch is None:
                return True
            now = time.monotonic()
            fired = {name for name, at in self._timers.items() if at <= now}
            for name in fired:
                del self._timers[name]
            if "retry" in fired:  # a step failed: only a full reconcile can be trusted now
                batch.overflow = True
            if batch or fired:
                self._step(batch, commit="commit" in fired, gc="gc" in fired, put_back="put-back" in fired,
                           person_index="person-index" in fired, status=not self._reads_waiting())
            self._answer_reads()
            if not self.root.is_dir():
                log.error("vault-mem: the vault folder %s is gone; stopping", self.root)
                return False
        return True

    def _gc(self) -> None:
        """Start ``git gc --auto`` in the background (it returns at once when nothing is due)."""
        if self._git_busy():
            self._timers["gc"] = time.monotonic() + RETRY_S
            return
        if self._gc_thread is not None and self._gc_thread.is_alive():
            return  # still running from last time
        # a thread, so the loop keeps answering events while git packs objects
        self._gc_thread = threading.Thread(target=_run_gc, args=(self.vault.repo,), name="vault-mem-gc",
                                           daemon=True)
        self._gc_thread.start()

    def _step(self, batch: Batch, *, why: str = "", commit: bool = False, embed: bool = True,
              gc: bool = False, put_back: bool = False, person_index: bool = False, status: bool = True) -> None:
        """Handle one batch and any due commit; errors are logged and retried, never fatal.
        ``status=False``: ``daemon.json`` is written after the waiting reads are answered."""
        try:
            if batch:
                self._handle(batch, why=why)
            else:
                self._flush_index()
            if put_back:
                self._put_back_stale()
            if person_index:
                self._commit_persons_index()
            if commit:
                self._commit_external()
            if gc:
                self._gc()
        except (VaultMemError, OSError) as exc:
            log.error("vault-mem: %s; retrying in %d s", exc, RETRY_S)
            self._timers["retry"] = time.monotonic() + RETRY_S
        except Exception:
            log.exception("vault-mem: unexpected error; retrying in %d s", RETRY_S)
            self._timers["retry"] = time.monotonic() + RETRY_S
        if embed:
            self._embed_owed()
        if status:
            self._write_status()
        else:
            self._status_owed = True

    def _embed_owed(self) -> None:
        """Vectors for memories that have none, made here rather than by the next recall (which
        would then pay for them), outside the write lock, in chunks: a new file event interrupts
        it and it carries on right after. Cheap no-op with no embedder or nothing owed."""
        def yield_to_events(done: int, total: int) -> None:
            if self._stop_requested or self._batcher.has_pending() or self._reads_waiting():
                raise _Yield

        if self._reads_waiting():  # answer first, embed right after
            self._timers["embed"] = time.monotonic()
            return
        try:
            made = self.vault.sidecar.vectors.embed_pending(progress=yield_to_events)
        except _Yield:
            self._timers["embed"] = time.monotonic()
            return
        except VaultMemError as exc:  # an embedder's failure must not stop the daemon
            log.warning("vault-mem: making vectors failed (%s); retrying in %d s", exc, EMBED_RETRY_S)
            self._timers["embed"] = time.monotonic() + EMBED_RETRY_S
            return
        except Exception:
            log.exception("vault-mem: making vectors failed; retrying in %d s", EMBED_RETRY_S)
            self._timers["embed"] = time.monotonic() + EMBED_RETRY_S
            return
        if made:
            log.info("vault-mem: made %d vectors", made)

    # -- handling a batch ----------------------------------------------------------------------
    def _handle(self, batch: Batch, *, why: str = "") -> None:
        t0 = time.perf_counter()
        if batch.config or self.vault.ws.settings_moved():
            self._reload_config()
        applied = self._applier.apply(batch)
        report, full, git_changed = applied.report, applied.full, applied.git_changed
        if self.autocommit:
            # what a git operation (a stash pop, reset, checkout) may have brought back: looked
            # at once git is done, not after the quiet period (a person's checkout waits for it)
            self._put_back |= batch.paths
            self._put_back_all |= full
            if batch.git or full:
                # before INDEX.md is rendered below: rendered first, it listed the older version
                # a pop brought back, the put-back rendered it again, and the person's checkout
                # in between was refused for INDEX.md (for longer, when a git command of theirs
                # held that second render back)
                self._put_back_stale()
        if git_changed:
            # agent writes are plumbing commits, which never run git's own `gc --auto`:
            # the daemon runs it once commits stop coming, so loose objects don't pile up
            self._timers["gc"] = time.monotonic() + float(os.environ.get(GC_QUIET_ENV, GC_QUIET_S))
        ms = (time.perf_counter() - t0) * 1000
        if report is not None:
            self._status.update(last_reconcile=_now(), last_reconcile_ms=round(ms, 1))
            self._note_problems(report.problems)
            if report.changed or why:
                log.info("vault-mem: %s%s: %d added, %d updated, %d removed, %d unchanged (%.0f ms)",
                         why or "reconciled", "" if full else f" {batch.describe()}", report.added,
                         report.updated, report.removed, report.unchanged, ms)
        if ((report is not None and report.changed) or batch.index_file or why or applied.moved
                or index_written_before(self._index_written_at, self._applier.token)):
            # applied.moved: a person's git operation moved HEAD, whether or not a file changed
            # now. A checkout writes the files first and HEAD last: INDEX.md written in between
            # (the files differing from the old HEAD) is looked at again against the new one
            # (steps.committed_index_kept), or it stood modified; and so is one written here
            # whenever git moved past the state it was written under, even by what looks like
            # an agent's commit (a fast-forward to the last agent write's commit)
            self._index_stale = True
        self._flush_index()
        if self.autocommit and git_changed and self._applier.token[0] != self.vault.sidecar.get_meta("head"):
            # HEAD is no commit of vault-mem's: a person's commit of what INDEX.md is made of (a
            # memory, vault.toml's budget) that left INDEX.md as it was is committed alone in
            # their name, whether or not INDEX.md on disk changed now (it did when the file was
            # saved, before the commit); the one rule decides (commit_persons_index). At once,
            # not after the quiet period: see _commit_persons_index
            self._index_commit = True
            self._person_index_tries = 0
            self._timers["person-index"] = time.monotonic() + self._batcher.bulk_debounce
        if self.autocommit:
            self._edits |= batch.paths
            # after a full pass, ask git which memory files are dirty, but only when committing:
            # `git status` of a big vault costs as much as the reconcile itself
            self._scan_dirty |= full
            at = time.monotonic() + self.quiet
            if batch.paths:  # someone may still be typing: the quiet period starts again
                self._timers["commit"] = at
            elif self._edits or self._index_commit or self._scan_dirty:
                # after a git operation (a merge concluded?) retry soon, not at the slow retry pace
                current = self._timers.get("commit", at)
                self._timers["commit"] = min(current, at) if git_changed else current

    def _flush_index(self) -> None:
        """Rewrite INDEX.md if it is stale, unless git is mid-operation (then later)."""
        if not self._index_stale:
            return
        checkpoint("index-flush", self.state_dir)  # tests: a git operation that starts just before
        with self.vault.locked_or_beside() as held:  # beside a write waiting for git: its files as HEAD's
            # which checks git (steps.write_index)
            written, self._index_written_at = write_index_marked(self.vault, self._index_written_at,
                                                                 held=held or frozenset())
        if written.held_back:
            # still stale (nothing else writes INDEX.md until some other file changes): retried,
            # soon after a person's git command (it ends in moments, and a checkout they retry
            # meanwhile is refused for INDEX.md), slowly during a merge or rebase left to them
            soon = self.vault.repo.operation_in_progress() is None
            at = time.monotonic() + (PUT_BACK_RETRY_S if soon else RETRY_S)
            self._timers["flush"] = min(self._timers.get("flush", at), at)
            log.debug("vault-mem: INDEX.md update waits for git (%s)", written.held_back)
            return
        self._index_stale = False
        if written.new is not None:
            log.info("vault-mem: INDEX.md regenerated")
            if self.autocommit:
                self._index_commit = True
                self._timers.setdefault("commit", time.monotonic() + self.quiet)

    def _note_problems(self, problems) -> None:
        now = {p.path: p.reason for p in problems}
        for path, reason in sorted(now.items()):
            if self._problems.get(path) != reason:
                log.warning("vault-mem: unusable file %s: %s (left as it is; `vault-mem doctor` lists it)",
                            quoted(path), reason)
        for path in sorted(self._problems.keys() - now.keys()):
            log.info("vault-mem: %s is usable again (or gone)", quoted(path))
        self._problems = now
        self._status["problems"] = len(now)

    def _reload_config(self) -> None:

        try:
            fresh = self._open_vault()
        except VaultMemError as exc:
            log.error("vault-mem: vault.toml changed but cannot be used (%s); keeping the old settings", exc)
            return
        old, self.vault = self.vault, fresh
        self._applier.vault = fresh
        old.close()
        self._settings()
        self._batcher.debounce = self.debounce
        for name, value in self._batch_delays().items():
            setattr(self._batcher, name, value)
        self._index_stale = True
        log.info("vault-mem: the settings in force changed (vault.toml, or an approval on this machine); reloaded")

    # -- git -----------------------------------------------------------------------------------
    def _git_busy(self) -> str | None:
        return git_busy(self.vault)

    # -- committing external edits -------------------------------------------------------------
    def _commit_index_left_behind(self) -> None:
        """Commit an INDEX.md that a person's git operation left stale and a killed daemon
        regenerated but never committed.

        A restart finds INDEX.md on disk already current, so it writes nothing and, without
        this, would commit nothing either. It is committed at once and alone, in the person's
        name, by the one rule for that (:func:`~vault_mem.vault.person.commit_persons_index`:
        generated from the committed memory files, so a person's uncommitted edits, which wait
        for the quiet period as always, are never in it)."""
        if not self.autocommit or self._git_busy():
            return
        vault = self.vault
        try:
            with vault.lock:
                if self._git_busy():
                    return
                commit = self._commit_index_alone(
                    "INDEX.md no longer matched the committed memory files after a git operation of yours "
                    "(a revert, merge or commit without vault-mem's hook) and a daemon stopped before "
                    "committing it; committed by `vault-mem daemon` on start.")
        except (VaultMemError, OSError) as exc:
            log.warning("vault-mem: not committing %s left uncommitted: %s", INDEX_FILE, exc)
            return
        if commit:
            log.info("vault-mem: committed %s left uncommitted by an earlier daemon (%s)", INDEX_FILE, commit[:10])

    def _put_back_stale(self) -> None:
        """After a person's git operation (a stash pop, reset, checkout), put HEAD's version back
        at once in place of a failed agent write's bytes or an older version of the branch's
        (:func:`~vault_mem.vault.hand_edits.put_back_stale`), without waiting for the quiet
        period: such a file made git refuse the person's next `git checkout` of another branch
        ("would be overwritten") for 50 s to 3 min (bench/chaos.py). Tried again soon while
        git's index.lock is held or the person's git command runs; a merge or rebase stopped
        half-way ends in git events that ask again."""
        repo = self.vault.repo
        if repo.operation_in_progress() or head_branch(repo) is None:
            return
        if repo.index_locked() or repo.person_git_command():  # its last events may come before its end
            self._timers["put-back"] = time.monotonic() + PUT_BACK_RETRY_S
            return
        vault = self.vault
        if not self._put_back_all:  # an agent's commit: its files are HEAD's, no lock needed to see it
            self._put_back = set(differing_paths(vault, self._put_back))
            if not self._put_back:
                return
        # beside a write that waits for a person's git command, not after it: that write held the
        # whole lock until the person's git commands ended, and the person's checkout, retried
        # meanwhile, was refused for the file this puts back (RELIABILITY.md: 7 times in a row).
        # The write's own files (its journal's) are left to it; INDEX.md shows them as HEAD does
        with vault.locked_or_beside() as held:
            if self._git_busy():
                self._timers["put-back"] = time.monotonic() + PUT_BACK_RETRY_S
                return
            paths = changed_memory_paths(vault.ws) if self._put_back_all else sorted(self._put_back)
            self._put_back, self._put_back_all = set(), False
            if held:  # looked at again after that write (its commit's or rollback's events)
                self._put_back |= {rel for rel in paths if rel in held}
                paths = [rel for rel in paths if rel not in held]
            done = put_back_stale(vault, paths, held=held or frozenset()) if paths else {}
        for rel, what in sorted(done.items()):
            log.info("vault-mem: %s %s", rel, what)
            self._edits.discard(rel)
        if done:  # INDEX.md was rewritten with it, unless a git command that began meanwhile held it back
            self._index_stale = True
            self._timers["flush"] = time.monotonic()

    def _commit_persons_index(self) -> None:
        """Right after a person's git operation moved HEAD, commit INDEX.md alone in their name
        when that operation left the committed one stale (the one rule,
        :func:`~vault_mem.vault.person.commit_persons_index`), without waiting for the quiet
        period that hand edits get: nobody types INDEX.md, and until it is committed it stands
        modified in the work tree, so a `git checkout` of another branch right after a `git
        pull` or a commit without the hook was refused for it (bench/chaos.py: 8 tries in a row;
        30 s by default). Tried again soon (up to :data:`PERSON_INDEX_TRIES` times) while the
        person's git command runs; the quiet period's commit stays the fallback."""
        vault = self.vault
        if self._git_busy():
            self._person_index_tries += 1
            if self._person_index_tries < PERSON_INDEX_TRIES:
                self._timers["person-index"] = time.monotonic() + PUT_BACK_RETRY_S
            return
        with vault.locked_or_beside() as beside:
            if beside is not None or self._git_busy():  # beside: a write waits for git, and commits first
                self._timers["person-index"] = time.monotonic() + PUT_BACK_RETRY_S
                return
            # decided here (committed, owed nothing, or no identity to commit it in: said once);
            # the quiet period's commit need not ask again
            self._index_commit = False
            commit = self._commit_index_alone(
                "INDEX.md did not match the committed memory files (or vault.toml's budget) after a git "
                "operation of yours (a merge, revert, pull or a commit without vault-mem's hook); regenerated "
                "by `vault-mem daemon`.")
        if commit:
            log.info("vault-mem: committed %s alone as you (%s): your git operation left it stale",
                     INDEX_FILE, commit[:10])

    def _commit_index_alone(self, why: str) -> str | None:
        """INDEX.md committed alone in the person's name when the one rule says so
        (:func:`~vault_mem.vault.person.commit_persons_index`; the caller holds the write lock and
        checked git): the commit, or None. No git identity to commit in is said once, as for
        hand edits (:meth:`_no_identity`), never a failed step: that was logged as an error,
        forced full reconciles and refused agent writes' fence for :data:`RETRY_S`; the next
        agent commit carries INDEX.md then."""
        try:
            commit = commit_persons_index(self.vault.ws, self.vault.sidecar, why, mode="on")
        except IdentityError as exc:
            self._no_identity(INDEX_FILE, exc)
            return None
        if commit:
            self._committed(commit)
        return commit

    def _no_identity(self, what: str, exc: IdentityError) -> None:
        """Say that ``what`` is not committed for want of a git identity: a warning the first
        time, then at debug level until a commit in the person's name succeeds (every round
        meets it again otherwise)."""
        log.log(logging.DEBUG if self._identity_said else logging.WARNING,
                "vault-mem: not committing %s: %s; committed once you set one (and change anything)", what, exc)
        self._identity_said = True

    def _committed(self, commit: str) -> None:
        self._applier.token = git_token(self.vault)
        self._status["last_commit"] = commit
        self._identity_said = False

    def _commit_external(self) -> None:
        if not self.autocommit or not (self._edits or self._index_commit or self._scan_dirty):
            return
        repo = self.vault.repo
        blocked = self._git_busy()
        if not blocked and head_branch(repo) is None:
            blocked = "HEAD is detached (a checkout of an older commit?)"
        if blocked:
            if blocked != self._blocked:
                log.info("vault-mem: not committing external edits while %s; will retry", blocked)
            self._blocked = blocked
            self._timers["commit"] = time.monotonic() + max(RETRY_S, self.quiet)
            return
        self._blocked = None
        if self._scan_dirty:
            self._edits |= set(changed_memory_paths(self.vault.ws))
            self._scan_dirty = False
        if not (self._edits or self._index_commit):
            return
        vault = self.vault
        # not beside a write that waits for git (its files would look like hand edits): after it;
        # meanwhile the loop goes on (a put-back, INDEX.md), rather than wait here for the person
        with vault.locked_or_beside() as beside:
            if beside is not None or self._git_busy():
                self._timers["commit"] = time.monotonic() + (BESIDE_RETRY_S if beside is not None else RETRY_S)
                return
            paths = sorted(self._edits)
            self._edits.clear()
            self._index_commit = False
            try:
                # the person's identity is asked only when there is something to commit: a HEAD
                # move of theirs that owes nothing never says it is missing
                done = commit_hand_edits(
                    vault, paths,
                    note=f"Edited outside vault-mem; committed by `vault-mem daemon` after {self.quiet:g} s "
                         "without changes.",
                    index_why="INDEX.md did not match the committed memory files (or vault.toml's budget) "
                              "after a git operation of yours (a merge, revert, checkout or a commit without "
                              "vault-mem's hook); regenerated by `vault-mem daemon`.",
                    keep_newest=True)
            except ConcurrentEditError as exc:
                # a person's git stash (reset, checkout) or a new save changed a file after it was
                # read: committed as it is once things are quiet again (the stash's pop brings
                # the edit back, and its events start the quiet period again)
                log.info("vault-mem: not committing external edits yet: %s", exc)
                self._edits |= set(paths)
                self._timers["commit"] = time.monotonic() + self.quiet
                return
            except IdentityError as exc:
                self._no_identity(f"external edits to {', '.join(paths) or INDEX_FILE}", exc)
                # still owed: the next round after the person sets an identity (and changes
                # anything) looks at every file differing from HEAD, so these are committed then
                self._scan_dirty = bool(paths)
                return
            except VaultMemError as exc:
                log.warning("vault-mem: not committing external edits: %s", exc)
                return
            for rel, reason in sorted(done.skipped.items()):
                log.warning("vault-mem: not committing %s: %s", rel, reason)
            if done.commit:
                self._committed(done.commit)
                if done.author is None:
                    log.info("vault-mem: committed %s alone as you (%s)", INDEX_FILE, done.commit[:10])
                else:
                    log.info("vault-mem: committed %s as %s <%s>", done.commit[:10], done.author.name,
                             done.author.email)

    def _write_status(self) -> None:
        self._status_owed = False
        self._status.update(pending_edits=len(self._edits), blocked=self._blocked)
        try:
            atomic_write(self.state_dir / STATUS_FILE, json.dumps(self._status).encode(), mode=PRIVATE_FILE)
        except (OSError, VaultMemError) as exc:
            log.debug("vault-mem: cannot write %s: %s", STATUS_FILE, exc)


class _Said(logging.Handler):
    """The warnings a command's write logs on the daemon's main thread (thread ``ident``), as the
    command's own process would have printed them on stderr (Python's last resort: the bare
    message); they go to the daemon's log as well."""

    def __init__(self, ident: int) -> None:
        super().__init__(logging.WARNING)
        self.ident = ident
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.ident:
            self.lines.append(record.getMessage())


def _warm_up(sidecar) -> None:
    """Load the model and read the vector table once before the first read needs them (without
    making owed vectors: that is the loop's job, in chunks it can interrupt).

    Reads search the ``vec0`` table, as a one-shot command does, not an in-memory copy
    (``keep_vectors_in_memory``): that copy answers ~40 ms sooner at 100k memories, but its
    coarse binary pass and float32 sums can differ from ``vec0``'s at the candidates' edge and in
    a score's last digit, and an answer must not depend on whether the daemon runs."""
    embedder = sidecar.vectors.get_embedder()
    if embedder is None or sidecar.vectors.vectors_reason() is not None:
        return
    qvec = embedder.embed_batch(["vault-mem warm-up"], kind="query")[0]
    sidecar.vectors.vector_index().top(qvec, 1)


def _run_gc(repo: GitRepo) -> None:
    """The gc thread's body: a failed gc harms nothing and is retried after the next commits."""
    try:
        failed = gc_auto(repo)
    except VaultMemError as exc:  # git itself is missing
        failed = str(exc)
    if failed:
        log.debug("vault-mem: git gc --auto failed: %s", failed)


class _Yield(Exception):
    """Raised from embed_pending's progress callback to hand the loop back to new events."""


def _mounted_read_only(path: Path) -> bool:
    """Whether the file system holding ``path`` is mounted read-only (False when unknown)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def _now() -> str:
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")
