"""The daemon's read server: ``recall``, ``get``, ``list`` and the hooks' reads on a Unix socket,
and one-shot commands' writes (``remember``, ``forget``).

Threads: one accepts connections (blocked in ``select``, so idle costs nothing), one per
connection reads and checks the request (peer uid, size, shape) and hands it to the daemon's
main thread, which runs it on the daemon's own vault (its model loaded, its vectors in memory)
and hands back the reply. Running every read on the main thread, between batches of file
events, keeps the sidecar single-threaded and makes each answer current: before answering,
the main thread waits for the watcher's fence (every change made so far has delivered its
events), takes what is pending without waiting out the debounce, and indexes it
(:meth:`ReadServer.answer_pending`'s ``catch_up``: :func:`vault_mem.daemon.keeper.changes_so_far`,
the same catch-up as the MCP server's own watcher), so a ``recall`` right after a hand edit
finds the new text even when the kernel's events lag under load.

What each operation computes is not decided here: the daemon is given ``handlers`` (operation
name -> ``fn(vault, args)``) by the command that starts it, the same functions the CLI runs
in-process when no daemon answers, so both paths give the same JSON.

Writes (``writes``: operation -> ``fn(writer, args) -> (result, notices, logged)``, the daemon's) come
through the same queue, on the same main thread, with two differences. A write is started only
for a writer whose environment is this daemon's (:func:`~vault_mem.store.daemon_socket.writer`:
the variables that can change a commit, the umask): another is answered "not here" at once and
the command writes itself. And a write is run at most once: it waits to start at most
:data:`~vault_mem.store.daemon_socket.WRITE_START_WAIT_S` (then it is taken back from the queue,
unstarted, and said so), and once started its connection waits for its end, however long.
Every ``DaemonUnavailable`` reply is sent before its request started (the client writes itself
on it). Reads waiting go before writes waiting, so a read waits for at most the one write
running.

The socket (DESIGN §7): created in ``.vault-mem/`` through a descriptor of that folder opened
without following links; a stale socket of ours (a killed daemon's) is replaced, and anything
else at its path (a symlink, a file) is refused and left untouched: the daemon then serves no
reads or writes and says why (clients do the work themselves). Mode 0600 before it listens; a peer whose
uid is not ours is refused; a request is bounded in size and time; a malformed one gets an
error reply, never a crash. A request names its vault (a write must): one reached through
another vault's folder (a hard link to this socket) is answered "not here" before anything.
"""

from __future__ import annotations

import collections
import logging
import os
import selectors
import socket
import stat
import struct
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_mem.config import STATE_DIR, VERSION
from vault_mem.store.daemon_socket import (
    MAX_REQUEST_BYTES,
    PROTOCOL,
    SOCKET_FILE,
    UNAVAILABLE,
    WRITE_START_WAIT_S,
    ProtocolError,
    drain_message,
    open_state_dir,
    peer_is_owner,
    read_message,
    send_message,
    socket_address,
    writer_env,
)
from vault_mem.errors import VaultMemError, marked_text
from vault_mem.platform import peers
from vault_mem.store.files import link_message
from vault_mem.model.names import shown

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

log = logging.getLogger("vault_mem.daemon.process")

Handler = Callable[["Vault", dict[str, Any]], Any]
#: a write: ``fn(writer, args) -> (result, notices, logged)`` (the daemon opens the vault as the
#: writer; ``logged``: the warnings the command's own process would have printed on stderr)
WriteHandler = Callable[[dict[str, Any], dict[str, Any]], tuple[Any, list[str], list[str]]]

REQUEST_READ_S = 5.0     # a client sends its whole request at once; one not in by then is dropped
ANSWER_WAIT_S = 120.0    # a connection gives up on the main thread after this (client long gone)
MAX_CONNECTIONS = 16     # connections handled at once; more get a "busy" error reply
#: how long a stop waits for the connections' replies (one still sending its request is read
#: for at most REQUEST_READ_S, then told the daemon is stopping)
STOP_REPLY_WAIT_S = REQUEST_READ_S + 1.0

__all__ = ["ReadServer"]


@dataclass
class _Request:
    op: str
    args: dict[str, Any]
    writer: dict[str, Any] | None = None  # a write's (None: a read)
    done: threading.Event = field(default_factory=threading.Event)
    reply: dict[str, Any] | None = None
    started: bool = False  # taken from the queue by the main thread (under the server's lock)


class ReadServer:
    """Serves reads for the vault at ``root``. ``wake()`` makes the daemon's main loop come round
    now (it then calls :meth:`answer_pending`); ``notices()`` are notes every answer carries
    (settings of vault.toml waiting for approval: every command says so)."""

    def __init__(self, root: Path, handlers: Mapping[str, Handler], *, wake: Callable[[], None],
                 notices: Callable[[], list[str]] = list, writes: Mapping[str, WriteHandler] | None = None) -> None:
        self.root = Path(root)
        self.handlers = dict(handlers)
        self.writes = dict(writes or {})
        self._umask = peers.own_umask()
        self._wake = wake
        self._notices = notices
        self._queue: collections.deque[_Request] = collections.deque()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._dir_fd: int | None = None
        self._listener: socket.socket | None = None
        self._ino: int | None = None
        self._stop_r, self._stop_w = -1, -1
        self._thread: threading.Thread | None = None
        self._stopping = False

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> bool:
        """Bind and listen; False (with the reason logged) when the socket cannot be made."""
        try:
            self._dir_fd = open_state_dir(self.root)
            if not peers.peer_check_native() and not peers.private_folder(self._dir_fd):
                log.warning("vault-mem: reads are not served: this system cannot tell a socket's peer, "
                            "and %s is not yours alone (chmod 700 it)", self.root / STATE_DIR)
                self._close_dir()
                return False
            if not self._clear_stale():
                self._close_dir()
                return False
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                listener.bind(socket_address(self._dir_fd, self.root))
                # 0600 before listen(): until then no one can connect at all
                os.chmod(SOCKET_FILE, 0o600, dir_fd=self._dir_fd)
                self._ino = os.stat(SOCKET_FILE, dir_fd=self._dir_fd, follow_symlinks=False).st_ino
                listener.listen(MAX_CONNECTIONS)
            except OSError:
                listener.close()
                raise
        except OSError as exc:
            log.error("vault-mem: cannot serve reads on %s (%s); commands do their reads themselves",
                      self.path, exc)
            self._close_dir()
            return False
        self._listener = listener
        self._stop_r, self._stop_w = os.pipe()
        self._thread = threading.Thread(target=self._accept_loop, name="vault-mem-reads", daemon=True)
        self._thread.start()
        log.info("vault-mem: serving reads on %s", self.path)
        return True

    @property
    def path(self) -> Path:
        return self.root / STATE_DIR / SOCKET_FILE

    def _clear_stale(self) -> bool:
        """Remove a socket a killed daemon left (we hold the daemon lock: it is nobody's now);
        refuse anything else at the path, leaving it as it is."""
        try:
            st = os.stat(SOCKET_FILE, dir_fd=self._dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return True
        if stat.S_ISSOCK(st.st_mode) and st.st_uid == os.getuid():
            os.unlink(SOCKET_FILE, dir_fd=self._dir_fd)
            return True
        what = link_message(self.path) if stat.S_ISLNK(st.st_mode) else \
            f"{self.path} is not a socket of this user; move it away and restart the daemon"
        log.error("vault-mem: not serving reads: %s", what)
        return False

    def stop(self) -> None:
        """Stop accepting, fail what is still queued (clients then do it themselves), remove the
        socket (only if it is still ours), join the accept thread and return once every
        connection has its reply (at most :data:`STOP_REPLY_WAIT_S`)."""
        self._stopping = True
        if self._stop_w >= 0:
            os.write(self._stop_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._listener is not None:
            self._listener.close()
            self._listener = None
            try:
                if os.stat(SOCKET_FILE, dir_fd=self._dir_fd, follow_symlinks=False).st_ino == self._ino:
                    os.unlink(SOCKET_FILE, dir_fd=self._dir_fd)
            except OSError:
                pass
        for fd in (self._stop_r, self._stop_w):
            if fd >= 0:
                os.close(fd)
        self._stop_r = self._stop_w = -1
        self._close_dir()
        with self._lock:
            while self._queue:
                req = self._queue.popleft()
                req.reply = _error("the daemon is stopping; retry", UNAVAILABLE)
                req.done.set()
        # every connection's reply sent before this returns: the daemon's process exits right
        # after, with the connections' threads, and a write's client that got no reply says its
        # write "may or may not have been made" (exit 3) and does not make it
        deadline = time.monotonic() + STOP_REPLY_WAIT_S
        held = 0
        while held < MAX_CONNECTIONS and self._slots.acquire(timeout=max(0.0, deadline - time.monotonic())):
            held += 1
        for _ in range(held):
            self._slots.release()

    def _close_dir(self) -> None:
        if self._dir_fd is not None:
            os.close(self._dir_fd)
            self._dir_fd = None

    # -- the main thread's side ----------------------------------------------------------------
    def waiting(self) -> bool:
        """Reads are queued for the main thread."""
        with self._lock:
            return bool(self._queue)

    def answer_pending(self, vault: Callable[[], Vault], catch_up: Callable[[], None]) -> None:
        """Answer every queued read (main thread), each after ``catch_up()`` has indexed the file
        events pending at that moment, on the vault ``vault()`` gives then (a changed vault.toml
        reopens it)."""
        while True:
            with self._lock:
                if not self._queue:
                    return
                # reads first: a read waits for at most the one write running
                req = next((r for r in self._queue if r.writer is None), self._queue[0])
                self._queue.remove(req)
                req.started = True
            try:
                catch_up()
                req.reply = self._answer(vault(), req) if req.writer is None else self._write(req)
            finally:
                req.done.set()

    def _write(self, req: _Request) -> dict[str, Any]:
        try:
            result, notices, logged = self.writes[req.op](req.writer, req.args)
        except NotStarted as exc:  # handed back before anything was done: the command writes itself
            log.info("vault-mem: %s of %s left to the command: %s", req.op, shown(str(req.args.get("key"))), exc)
            return _error(f"{exc}; not done there", UNAVAILABLE)
        except VaultMemError as exc:
            return _error(marked_text(exc), type(exc).__name__)
        except OSError as exc:  # the machine refused (disk full, permissions): said as the CLI says it
            return _error(str(exc), "OSError")
        except Exception as exc:  # a bug in one write must not stop the daemon
            log.exception("vault-mem: write %s failed", req.op)
            return _error(f"internal error in vault-mem ({type(exc).__name__}: {exc}); this is a bug: please "
                          "report it with the command you ran; `vault-mem log` lists any commit it made",
                          "InternalError")
        return {"v": PROTOCOL, "version": VERSION, "ok": True, "result": result, "notices": notices,
                "logged": logged}

    def _answer(self, vault: Vault, req: _Request) -> dict[str, Any]:
        try:
            result = self.handlers[req.op](vault, req.args)
            notices = [*self._notices(), *vault.take_notices()]
        except VaultMemError as exc:
            return _error(marked_text(exc), type(exc).__name__)
        except Exception as exc:  # a bug in one read must not stop the daemon
            log.exception("vault-mem: read %s failed", req.op)
            return _error(f"internal error in vault-mem ({type(exc).__name__}: {exc}); this is a bug: please "
                          "report it with the command you ran", "InternalError")
        return {"v": PROTOCOL, "version": VERSION, "ok": True, "result": result, "notices": notices}

    # -- the connections' side -----------------------------------------------------------------
    def _accept_loop(self) -> None:
        with selectors.DefaultSelector() as sel:
            sel.register(self._listener, selectors.EVENT_READ)
            sel.register(self._stop_r, selectors.EVENT_READ)
            while not self._stopping:
                for key, _ in sel.select():
                    if key.fileobj is not self._listener or self._stopping:
                        continue
                    try:
                        conn, _addr = self._listener.accept()
                    except OSError as exc:
                        log.debug("vault-mem: accept failed: %s", exc)
                        continue
                    if not self._slots.acquire(blocking=False):
                        self._reply(conn, _error("the daemon is busy; retry", UNAVAILABLE))
                        conn.close()
                        continue
                    threading.Thread(target=self._serve, args=(conn,), name="vault-mem-read",
                                     daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        try:
            conn.settimeout(REQUEST_READ_S)
            if self._dir_fd is None or not peer_is_owner(conn, self._dir_fd):
                log.warning("vault-mem: refused a read from uid %s on %s", _peer_uid(conn), self.path)
                try:  # take the request first (bounded as any, never parsed), so the reply
                    drain_message(conn, MAX_REQUEST_BYTES, within=REQUEST_READ_S)  # reaches a client still sending
                except (ProtocolError, OSError, struct.error):
                    pass
                self._reply(conn, _error("refused: this socket serves its owner only", UNAVAILABLE))
                return
            try:
                message = read_message(conn, MAX_REQUEST_BYTES, within=REQUEST_READ_S)
            except (ProtocolError, ValueError) as exc:
                self._reply(conn, _error(f"malformed request: {exc}", "UsageError"))
                return
            except OSError:
                return  # the client went away or sent nothing in time
            req = self._request(message)
            if isinstance(req, dict):
                self._reply(conn, req)
                return
            with self._lock:
                if self._stopping:
                    self._reply(conn, _error("the daemon is stopping; retry", UNAVAILABLE))
                    return
                self._queue.append(req)
            self._wake()
            if req.writer is not None:
                self._await_write(req)
            elif not req.done.wait(ANSWER_WAIT_S):
                return
            conn.settimeout(ANSWER_WAIT_S)
            self._reply(conn, req.reply)
        finally:
            conn.close()
            self._slots.release()

    def _await_write(self, req: _Request) -> None:
        """Wait for the write ``req``: taken back unstarted after :data:`WRITE_START_WAIT_S`
        (its reply says so: the command writes itself), else until it is done."""
        if not req.done.wait(WRITE_START_WAIT_S):
            with self._lock:
                if not req.started and not req.done.is_set():  # (stop() may have failed it meanwhile)
                    self._queue.remove(req)
                    req.reply = _error(f"the daemon did not start the write within {WRITE_START_WAIT_S:g} s "
                                       "(busy with a batch of changes); not done there", UNAVAILABLE)
                    req.done.set()
        req.done.wait()

    def serves(self, named: Any) -> bool:
        """Whether the vault a request names (its absolute path: a client of this version always
        names it; a write must) is this daemon's: the same folder as the root it watches, by
        that root's path now (a folder moved away since is not this daemon's any more)."""
        if not isinstance(named, str) or not os.path.isabs(named):
            return False
        try:
            return os.path.samefile(named, self.root)
        except (OSError, ValueError):
            return False

    def _writer(self, op: str, message: dict[str, Any]) -> dict[str, Any] | str:
        """The checked writer of the write ``op``, or why this daemon does not run it."""
        who = message.get("writer")
        if not isinstance(who, dict) or not isinstance(who.get("env"), dict) or \
                not isinstance(who.get("umask"), int) or not isinstance(who.get("agent"), str | None):
            return f"the write {op} names no writer"
        mine = writer_env()
        if who["env"] != mine:
            differ = sorted(k for k in {*who["env"], *mine} if who["env"].get(k) != mine.get(k))
            return f"the command's environment differs from the daemon's ({', '.join(differ)})"
        if who["umask"] != self._umask:
            return f"the command's umask ({who['umask']:03o}) differs from the daemon's ({self._umask:03o})"
        if who["agent"] is None and os.environ.get("VAULT_MEM_AGENT"):
            return "the daemon's VAULT_MEM_AGENT would name the command's agent"
        return who

    def _request(self, message: Any) -> _Request | dict[str, Any]:
        """The request in ``message``, or the error reply saying what is wrong with it."""
        if not isinstance(message, dict):
            return _error("malformed request: send one JSON object", "UsageError")
        if message.get("v") != PROTOCOL or message.get("version") != VERSION:
            return _error(f"this daemon speaks protocol {PROTOCOL} of vault-mem {VERSION}", UNAVAILABLE)
        op, args = message.get("op"), message.get("args", {})
        named = message.get("root")
        if (named is not None or isinstance(op, str) and op in self.writes) and not self.serves(named):
            # reached through another vault's folder: never answered, fenced or written for it
            return _error(f"this daemon serves {self.root}, not {str(named)[:300]}", UNAVAILABLE)
        if isinstance(op, str) and op in self.writes:
            if not isinstance(args, dict):
                return _error(f"the arguments of {op} must be a JSON object", "UsageError")
            who = self._writer(op, message)
            if isinstance(who, str):
                log.info("vault-mem: a %s is left to the command: %s", op, who)
                return _error(f"{who}; not done there", UNAVAILABLE)
            return _Request(op, args, who)
        if not isinstance(op, str) or op not in self.handlers:
            return _error(f"unknown operation {op!r}: this daemon answers {', '.join(sorted(self.handlers))}",
                          "UsageError")
        if not isinstance(args, dict):
            return _error(f"the arguments of {op} must be a JSON object", "UsageError")
        return _Request(op, args)

    @staticmethod
    def _reply(conn: socket.socket, reply: dict[str, Any] | None) -> None:
        if reply is None:
            return
        try:
            send_message(conn, reply)
        except OSError:
            pass  # the client gave up waiting: it does the work itself


def _peer_uid(conn: socket.socket) -> int | str:
    """The refused peer's uid for the log (``unknown`` where the kernel cannot say)."""
    try:
        uid = peers.peer_uid(conn)
    except OSError:
        uid = None
    return "unknown" if uid is None else uid


class NotStarted(Exception):
    """Raised by a write handler before it changes anything, when the command should make the
    write itself (its reply is :data:`UNAVAILABLE`, which a command reads as "not taken")."""


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"v": PROTOCOL, "version": VERSION, "ok": False, "error": message, "kind": kind}
