"""``vault-mem daemon`` as a process: logging to ``.vault-mem/daemon.log`` and stderr, signal
handlers, then :meth:`vault_mem.daemon.process.Daemon.run`.

Kept apart from daemon.py, which holds the watcher itself: tests and other code run a
:class:`~vault_mem.daemon.process.Daemon` in-process, where nothing may configure logging or install
signal handlers; only the foreground command does that, through :func:`run_daemon`.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from vault_mem.config import CONFIG_FILE, STATE_DIR
from vault_mem.daemon.process import LOG_FILE, Daemon
from vault_mem.daemon.serve import Handler
from vault_mem.errors import NotAVaultError
from vault_mem.store.files import PRIVATE_FILE, ensure_own_dir, make_private, open_nofollow, refuse_link


def run_daemon(root: Path, *, reads: Mapping[str, Handler] | None = None,
               writes: Mapping[str, Handler] | None = None) -> int:
    """Foreground entry point of ``vault-mem daemon``: logging, signals, then :meth:`Daemon.run`;
    ``reads`` are the operations it answers on its socket (:mod:`vault_mem.daemon.serve`),
    ``writes`` the one-shot commands' writes it runs there.

    Blocks until SIGTERM/SIGINT; returns the exit code (0 after a clean stop, 1 when another
    daemon already runs for this vault or start-up failed)."""
    root = Path(root).resolve()
    if not (root / CONFIG_FILE).is_file():
        raise NotAVaultError(f"{root} is not a vault (no {CONFIG_FILE}); create one with `vault-mem init {root}`")
    daemon = Daemon(root, reads=reads, writes=writes)
    restore = _stop_on_signals(daemon) if threading.current_thread() is threading.main_thread() else None
    handlers = _configure_logging(None)  # stderr first: a disk mounted read-only is said there
    try:
        # On a read-only disk the daemon can neither log, index nor commit: it waits, saying
        # so, instead of exiting (a service manager restarted it every few seconds; reads
        # answer without it)
        if not daemon.wait_until_writable():
            return 0
        ensure_own_dir(root / STATE_DIR)  # never through a link, nor the log (a handler would follow it)
        handlers += _configure_logging(refuse_link(root / STATE_DIR / LOG_FILE), stream=handlers[0][1])
        return daemon.run()
    finally:
        if restore is not None:
            restore()
        for logger_name, handler in handlers:
            logging.getLogger(logger_name).removeHandler(handler)
            logging.getLogger(logger_name).propagate = True
            handler.close()


def _stop_on_signals(daemon: Daemon) -> Callable[[], None]:
    """Make SIGTERM and SIGINT stop ``daemon``; returns what undoes it.

    The stop is made on a thread of its own, never in the signal handler: Python runs a handler
    on the main thread, between two of its bytecodes, and the main thread spends its idle time in
    the batcher's ``next_batch``. A handler that ran after ``next_batch`` had checked its stop
    flag but before it began to wait would notify nobody, and the daemon slept on through the
    SIGTERM until its next timer (up to 5 minutes; seen under load in CI). The C-level handler
    writes each signal's number to a pipe at once (``signal.set_wakeup_fd``); the thread reading
    it calls :meth:`Daemon.stop`, which must take the batcher's lock, and the main thread holds
    that lock from its check until it waits: the notify can only come after."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    wanted = {int(signal.SIGTERM): "SIGTERM", int(signal.SIGINT): "SIGINT"}

    def relay() -> None:
        while data := os.read(read_fd, 64):
            names = [wanted[n] for n in data if n in wanted]
            if names:
                daemon.stop(names[0])

    old_fd = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)  # first: no signal missed
    previous = {sig: signal.signal(sig, _noted) for sig in wanted}  # Python's C handler, writing the pipe
    thread = threading.Thread(target=relay, name="vault-mem-signals", daemon=True)
    thread.start()

    def restore() -> None:
        signal.set_wakeup_fd(old_fd)
        for sig, handler in previous.items():
            signal.signal(sig, handler)  # type: ignore[arg-type]
        os.close(write_fd)  # the relay reads the end of the pipe and returns
        thread.join(timeout=5)
        os.close(read_fd)

    return restore


def _noted(signum: int, frame: object) -> None:
    """The Python-level handler of the signals that stop the daemon: nothing to do here (the
    relay thread of :func:`_stop_on_signals` stops it), but one must be set for Python's own
    handler, which writes to the wakeup pipe, to catch the signal."""


class _PrivateLog(logging.handlers.RotatingFileHandler):
    """The daemon's log (it names memory files and what happened to them): opened never through
    a link and this user's alone whatever the umask, the first file and each one after a rollover."""

    #: a write of the log failed (a full or read-only disk) and that was said; said again after
    #: a write that works
    _failing = False
    #: where that is said: the daemon's stderr handler (:func:`_configure_logging`)
    fallback: logging.Handler | None = None

    def _open(self):
        path = Path(self.baseFilename)
        fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE)
        stream = os.fdopen(fd, "a", encoding=self.encoding, errors=self.errors)
        make_private(path)  # a log written before the rule
        return stream

    def emit(self, record: logging.LogRecord) -> None:
        self._failed = False
        super().emit(record)
        if not self._failed:
            self._failing = False

    def handleError(self, record: logging.LogRecord) -> None:
        """A log file that cannot be written (a full or read-only disk) is said once on stderr,
        in one line, and the daemon goes on (its lines still reach stderr); logging's default
        printed a traceback for every line while the disk was full (bench/chaos.py)."""
        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError):
            super().handleError(record)
            return
        self._failed = True
        if self._failing:
            return
        self._failing = True
        if self.fallback is not None:
            with contextlib.suppress(Exception):
                self.fallback.handle(logging.makeLogRecord({
                    "name": "vault_mem.daemon", "levelno": logging.WARNING, "levelname": "WARNING",
                    "msg": f"vault-mem: cannot write the daemon's log {self.baseFilename} "
                           f"({exc.strerror or exc}); its lines go to stderr only until it can"}))


def _configure_logging(log_path: Path | None, stream: logging.Handler | None = None
                       ) -> list[tuple[str, logging.Handler]]:
    """Log vault-mem's and watchdog's lines to stderr (``stream`` None: a new handler) or, with
    ``log_path``, to that file too (its failures said once through ``stream``)."""
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    level = os.environ.get("VAULT_MEM_LOG_LEVEL", "INFO").upper()
    added: list[tuple[str, logging.Handler]] = []
    if log_path is None:
        handler: logging.Handler = logging.StreamHandler(sys.stderr)
    else:
        handler = _PrivateLog(log_path, maxBytes=1_000_000, backupCount=2, encoding="utf-8")
        handler.fallback = stream
    handler.setFormatter(fmt)
    for name in ("vault_mem", "watchdog"):
        logging.getLogger(name).addHandler(handler)
        added.append((name, handler))
    logging.getLogger("vault_mem").setLevel(getattr(logging, level, logging.INFO))
    logging.getLogger("watchdog").setLevel(logging.WARNING)
    for name in ("vault_mem", "watchdog"):
        logging.getLogger(name).propagate = False  # these handlers only: no duplicates via root
    return added
