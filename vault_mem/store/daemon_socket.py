"""The daemon's socket: where it is, how a message is framed, and the client's side.

The daemon answers reads (``recall``, ``get``, ``list``, the Claude Code hooks' work) and a
write's :func:`fence` on a Unix socket, ``.vault-mem/daemon.sock``, mode 0600, with its model and vectors warm
(:mod:`vault_mem.daemon.serve`). A message is a 4-byte big-endian length, then that many bytes of
one UTF-8 JSON object. A request is ``{"v": PROTOCOL, "version": VERSION, "op": NAME, "args":
{...}}`` with the operation and argument names of the CLI and the tools; the reply is
``{"v": PROTOCOL, "version": VERSION, "ok": true, "result": ..., "notices": [...]}`` (the same
JSON the in-process path produces) or ``{"ok": false, "error": TEXT, "kind": ERROR CLASS}``.

It lives below the vault layer because a write asks the daemon for a :func:`fence` (the daemon
is above it, and only its socket is needed). This module is what a one-shot ``vault-mem
recall`` or prompt hook imports before it knows whether it needs the in-process path: the
standard library and the lowest layers only (no numpy, SQLite, git or model), so asking a
running daemon costs a process start and one round trip. :func:`ask` returns None whenever no daemon answers for sure (no socket, refused, a
timeout, another version, a socket that is not ours): the caller then does the work itself.

Writes (``remember``, ``forget``): :func:`submit` sends the command's write with what identifies
its writer (:func:`writer`: the agent name, the environment variables that can change a commit,
the umask), and the daemon runs the same :class:`~vault_mem.vault.core.Vault` operation. Unlike a
read, a write is never done twice: :func:`submit` says :data:`NOT_TAKEN` only when the daemon
certainly did not start it (no socket, refused, a reply saying so before it started), and
:data:`UNKNOWN` when the connection was lost after the request went out (the daemon may have
written it): the caller then reports that, and never writes again itself.

Trust (DESIGN §7): the socket's folder is opened without following a link and the socket is
reached through that folder's descriptor; a link, or anything but a socket owned by us, at the
socket's path is never connected to; the peer must be ours on both ends
(:func:`peer_is_owner`: the kernel's word where it gives one, ``SO_PEERCRED`` or
``getpeereid``; elsewhere the socket's 0600 mode inside our own 0700 folder).
"""

from __future__ import annotations

import json
import os
import socket
import stat
import struct
import time
from pathlib import Path
from typing import Any, NoReturn

from vault_mem.config import DAEMON_ENV, DAEMON_SOCKET, STATE_DIR, VERSION, daemon_may_answer
from vault_mem.errors import VaultMemError
from vault_mem.platform import peers

SOCKET_FILE = DAEMON_SOCKET
#: 2: writes (``remember``, ``forget``) with a ``writer``; a daemon of protocol 1 answers that it
#: speaks another protocol, before anything is done, and the command writes itself
PROTOCOL = 2
MAX_REQUEST_BYTES = 1 << 20    # a pasted prompt fits; anything longer is done in-process
MAX_REPLY_BYTES = 64 << 20     # k=100 whole bodies at the largest body size, with room to spare
#: how long a client waits for a reply before doing the work itself (seconds)
TIMEOUT_ENV = "VAULT_MEM_DAEMON_TIMEOUT"
DEFAULT_TIMEOUT_S = 10.0
#: ``VAULT_MEM_DAEMON=off``: never ask the daemon (the in-process path, as without one)
USE_ENV = DAEMON_ENV
#: the ``kind`` of an error reply that means "not now" (busy, stopping, not for you): the client
#: does the work itself instead of showing it
UNAVAILABLE = "DaemonUnavailable"
_HEADER = struct.Struct(">I")

#: the operation a write asks for (:func:`fence`); every daemon that serves its socket answers it
FENCE_OP = "fence"
#: how long a write waits for the daemon's fence before asking ``git status`` itself (seconds): the
#: daemon's own wait for its watcher's events is 1 s, then it reconciles the whole vault (slower
#: than ``git status`` at 100k memories), so a fence that is not back by then is not waited for
FENCE_WAIT_S = 0.8

#: the writes a daemon runs for a one-shot command (:func:`submit`)
WRITE_OPS = ("remember", "forget")
#: a write not started by the daemon within this many seconds (a long batch ahead of it) is taken
#: back from its queue, unstarted, and the command writes itself
WRITE_START_WAIT_S = 10.0
#: how long a command waits for a write's answer once the daemon has it; past it the outcome is
#: unknown (never waited for by a write of the daemon's own: it answers when done)
WRITE_ANSWER_WAIT_S = 600.0
#: what :func:`submit` says: not taken (write here), answered, or unknown (the daemon may have written it)
NOT_TAKEN, ANSWERED, UNKNOWN = "not-taken", "answered", "unknown"
#: the environment variables a write's outcome depends on besides these prefixes: where git and
#: vault-mem read the person's settings (HOME, XDG_CONFIG_HOME, EMAIL), the commit's time zone
#: (TZ), the language of git's messages
_WRITER_ENV = ("HOME", "XDG_CONFIG_HOME", "EMAIL", "TZ", "LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES")
_WRITER_PREFIXES = ("GIT_", "VAULT_MEM_")
#: variables of those prefixes that only say how a command reaches the daemon or prints (the
#: agent's name is sent as such: ``writer()["agent"]``)
_CLIENT_ONLY = frozenset({USE_ENV, TIMEOUT_ENV, "VAULT_MEM_LOG_LEVEL", "VAULT_MEM_PROGRESS", "VAULT_MEM_AGENT"})

__all__ = ["ANSWERED", "NOT_TAKEN", "UNKNOWN", "WRITE_OPS", "FENCE_OP", "FENCE_WAIT_S", "MAX_REPLY_BYTES", "MAX_REQUEST_BYTES", "PROTOCOL", "SOCKET_FILE",
           "UNAVAILABLE", "ProtocolError", "ask", "fence", "open_state_dir", "peer_is_owner", "read_message",
           "send_message", "socket_address", "raise_as", "submit", "vault_named", "writer", "writer_env"]


class ProtocolError(Exception):
    """A message that breaks the framing or the size bound (the connection is dropped)."""


def send_message(sock: socket.socket, obj: Any) -> None:
    data = json.dumps(obj, ensure_ascii=False, default=str).encode("utf-8")
    sock.sendall(_HEADER.pack(len(data)) + data)


def read_message(sock: socket.socket, limit: int, *, within: float | None = None) -> Any:
    """One framed JSON value from ``sock``; :class:`ProtocolError` on a short read, a length past
    ``limit`` or bytes that are not JSON. ``within``: the whole message must arrive in that many
    seconds (``TimeoutError`` otherwise): a socket's own timeout bounds each ``recv`` only, so a
    peer sending a byte at a time would hold the reader for as long as it likes."""
    data = _read_frame(sock, limit, within)
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: "[[[[..."
        raise ProtocolError(f"not a JSON message ({type(exc).__name__}: {str(exc)[:200]})") from None


def drain_message(sock: socket.socket, limit: int, *, within: float | None = None) -> None:
    """Read one framed message from ``sock`` and throw it away, unparsed (a refused peer's);
    ``within`` as :func:`read_message`'s."""
    _read_frame(sock, limit, within)


def _read_frame(sock: socket.socket, limit: int, within: float | None) -> bytes:
    """The bytes of one framed message from ``sock``: its 32-bit length, then that many bytes,
    all within ``within`` seconds; :class:`ProtocolError` on a short read or a length past
    ``limit`` (refused before any of it is read). The one reader of the framing."""
    deadline = None if within is None else time.monotonic() + within
    (size,) = _HEADER.unpack(_read_exactly(sock, _HEADER.size, deadline))
    if size > limit:
        raise ProtocolError(f"message of {size} bytes is over the limit of {limit}")
    return _read_exactly(sock, size, deadline)


def _read_exactly(sock: socket.socket, n: int, deadline: float | None = None) -> bytes:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"{got} of {n} bytes came in the time allowed")
            sock.settimeout(left)
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise ProtocolError(f"connection closed after {got} of {n} bytes")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def peer_is_owner(sock: socket.socket, dir_fd: int) -> bool:
    """Whether the process at the other end of ``sock`` (a socket in the folder open as
    ``dir_fd``) is this user's: the kernel says so where it can; elsewhere only a folder that is
    this user's alone (0700) can hold a socket this user's processes made and reach."""
    uid = peers.peer_uid(sock)
    if uid is None:
        try:
            return peers.private_folder(dir_fd)
        except OSError:  # the folder's descriptor was closed (the server is stopping)
            return False
    return uid == os.getuid()


def vault_named(root: Path) -> str:
    """The vault a request is for, as its absolute path: the daemon answers only for its own
    (:meth:`vault_mem.daemon.serve.ReadServer.serves`). The socket a command reaches through the
    vault's folder can be another vault's daemon's (a hard link: a ``cp -al`` copy of a vault
    whose daemon ran; a vault folder moved or replaced while its daemon ran), which would
    otherwise answer, fence or write for its own vault."""
    return os.path.abspath(root)


def open_state_dir(root: Path) -> int:
    """A descriptor of the vault's ``.vault-mem/`` folder, opened without following a link."""
    return os.open(Path(root) / STATE_DIR, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)


def socket_address(dir_fd: int, root: Path) -> str:
    """The address to bind or connect to for the socket in the folder ``dir_fd`` (the vault
    at ``root``'s state folder)."""
    return peers.socket_address(dir_fd, Path(root) / STATE_DIR, SOCKET_FILE)


def _connect_ours(dir_fd: int, root: Path, timeout: float) -> socket.socket | str:
    """A connection (``timeout`` on each call) to the daemon socket of the vault at ``root``, whose
    state folder is open as ``dir_fd``, when it is ours: a socket (no link, no planted file) this
    user owns, whose peer is this user's process (:func:`peer_is_owner`); else why it is not (it
    is never talked to). OSError when it cannot be reached (gone, refused, timed out). The one
    rule of which socket a client talks to."""
    st = os.stat(SOCKET_FILE, dir_fd=dir_fd, follow_symlinks=False)
    if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.getuid():
        return "no socket of ours"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(socket_address(dir_fd, root))
        if peer_is_owner(sock, dir_fd):
            return sock
    except BaseException:
        sock.close()
        raise
    sock.close()
    return "the socket's peer is not ours"


def ask(root: Path, op: str, args: dict[str, Any], *,
        timeout: float | None = None) -> tuple[Any, list[str]] | None:
    """``(result, notices)``: the daemon's answer to ``op(args)`` for the vault at ``root``; None
    when no daemon of this version answers (the caller then does the work in-process). An error
    the daemon replies with is raised as the :class:`VaultMemError` subclass the in-process path
    would raise, with its message."""
    if os.environ.get(USE_ENV, "").lower() in ("off", "0", "no", "false"):
        return None
    if timeout is None:
        try:
            timeout = float(os.environ.get(TIMEOUT_ENV) or DEFAULT_TIMEOUT_S)
        except ValueError:
            timeout = DEFAULT_TIMEOUT_S
    request = {"v": PROTOCOL, "version": VERSION, "op": op, "args": args, "root": vault_named(root)}
    try:
        dir_fd = open_state_dir(root)
    except OSError:
        return None  # no state folder (or a link there): nothing to ask
    sock = None
    try:
        sock = _connect_ours(dir_fd, root, timeout)
        if isinstance(sock, str):
            return None  # a link, a planted file, someone else's socket or peer: never talked to
        send_message(sock, request)
        reply = read_message(sock, MAX_REPLY_BYTES)
    except (OSError, ProtocolError, struct.error):
        return None  # gone, refused (a killed daemon's socket), timed out, too big: do it here
    finally:
        if isinstance(sock, socket.socket):
            sock.close()
        os.close(dir_fd)
    if not isinstance(reply, dict) or reply.get("v") != PROTOCOL or reply.get("version") != VERSION:
        return None  # a daemon of another vault-mem: its answer could differ from ours
    if reply.get("ok") is True:
        notices = reply.get("notices")
        return reply.get("result"), [str(n) for n in notices] if isinstance(notices, list) else []
    if not isinstance(reply.get("error"), str) or reply.get("kind") == UNAVAILABLE:
        return None
    _raise(reply)


def fence(root: Path, *, timeout: float = FENCE_WAIT_S) -> bool:
    """Ask the vault's daemon to bring the shared sidecar up to every change made to the files
    before this call (its watcher's fence, then the events it brought, applied at once); True
    once it says it did, so a write need not ask ``git status`` what a person changed. False
    when no daemon of this version answers within ``timeout``, or it could not (a step of its
    own failed, it is stopping): the write then asks ``git status`` as without a daemon. The
    caller must not hold the vault's write lock (the daemon applies the events under it)."""
    try:
        answered = ask(root, FENCE_OP, {}, timeout=timeout)
    except VaultMemError:  # a daemon that knows no fence (a development build): as without one
        return False
    return answered is not None and answered[0] is True


def _raise(reply: dict[str, Any]) -> None:
    raise_as(str(reply.get("kind")), reply["error"])


def raise_as(kind: str, message: str) -> NoReturn:
    """Raise the error called ``kind`` (a :class:`VaultMemError` subclass, or ``OSError``) with
    ``message``, as the process that met it would have."""
    if kind == "OSError":
        raise OSError(message)
    raise next((c for c in _error_classes(VaultMemError) if c.__name__ == kind), VaultMemError)(message)


def _error_classes(cls: type[VaultMemError]) -> list[type[VaultMemError]]:
    return [cls, *(c for sub in cls.__subclasses__() for c in _error_classes(sub))]



def writer_env() -> dict[str, str]:
    """The environment variables of this process that can change what a write does or commits."""
    return {k: v for k, v in os.environ.items()
            if (k in _WRITER_ENV or k.startswith(_WRITER_PREFIXES)) and k not in _CLIENT_ONLY}


def writer(agent: str | None) -> dict[str, Any]:
    """What identifies this command as a writer: the agent named (``--agent``, else
    ``$VAULT_MEM_AGENT``; None: the vault's own), :func:`writer_env` and :func:`umask`."""
    return {"agent": agent or os.environ.get("VAULT_MEM_AGENT") or None, "env": writer_env(), "umask": peers.own_umask()}


def submit(root: Path, op: str, args: dict[str, Any], who: dict[str, Any]) -> tuple[str, Any]:
    """Have the vault's daemon run the write ``op(args)`` as the writer ``who`` (:func:`writer`).

    ``(NOT_TAKEN, why)``: the daemon certainly did not start it (none runs, refused, another
    version, its environment differs, busy past :data:`WRITE_START_WAIT_S`): do it here.
    ``(ANSWERED, (result, notices, logged))`` (``logged``: the warnings the write logged there,
    which the command prints on stderr as its own process would have), or the
    :class:`VaultMemError` (or ``OSError``) the write raised there, raised here. ``(UNKNOWN, why)``: the request went out and no answer came back
    (the daemon stopped or was killed meanwhile): it may have written it; never write again."""
    if not daemon_may_answer(root):
        return NOT_TAKEN, f"no daemon socket, or {USE_ENV} is off"
    request = {"v": PROTOCOL, "version": VERSION, "op": op, "args": args, "writer": who,
               "root": vault_named(root)}
    try:
        data = json.dumps(request, ensure_ascii=False, default=str).encode("utf-8")
    except UnicodeEncodeError:  # an argument that is not text (bytes of no encoding, from argv)
        return NOT_TAKEN, "an argument is not UTF-8 text"
    if len(data) > MAX_REQUEST_BYTES:
        return NOT_TAKEN, "the request is over the socket's size limit"
    try:
        dir_fd = open_state_dir(root)
    except OSError:
        return NOT_TAKEN, "no state folder"
    sock = None
    sent = False
    try:
        sock = _connect_ours(dir_fd, root, DEFAULT_TIMEOUT_S)
        if isinstance(sock, str):
            return NOT_TAKEN, sock
        try:
            sock.sendall(_HEADER.pack(len(data)) + data)
        except OSError as exc:
            # the daemon reads a request whole before queueing it: a send cut short never ran
            return NOT_TAKEN, f"the request could not be sent ({exc})"
        sent = True
        sock.settimeout(WRITE_START_WAIT_S + WRITE_ANSWER_WAIT_S)
        reply = read_message(sock, MAX_REPLY_BYTES)
    except (OSError, ProtocolError, struct.error) as exc:
        if not sent:
            return NOT_TAKEN, f"no daemon answered ({exc})"
        why = "no answer in time" if isinstance(exc, TimeoutError) else f"the connection was lost ({exc})"
        return UNKNOWN, why
    except KeyboardInterrupt:
        if not sent:
            raise
        return UNKNOWN, "the command was interrupted while the daemon had it (the daemon finishes it)"
    finally:
        if isinstance(sock, socket.socket):
            sock.close()
        os.close(dir_fd)
    if not isinstance(reply, dict):
        return UNKNOWN, "the daemon's answer is not one this vault-mem reads"
    if reply.get("ok") is False and reply.get("kind") == UNAVAILABLE:
        # every daemon (this protocol's or an earlier one's) says UNAVAILABLE only before it
        # starts a request: busy, stopping, another version, not this writer's environment
        return NOT_TAKEN, str(reply.get("error"))
    if reply.get("v") != PROTOCOL or reply.get("version") != VERSION:
        return UNKNOWN, "the daemon's answer is not one this vault-mem reads"
    if reply.get("ok") is True:
        notices, logged = reply.get("notices"), reply.get("logged")
        return ANSWERED, (reply.get("result"), [str(n) for n in notices] if isinstance(notices, list) else [],
                          [str(n) for n in logged] if isinstance(logged, list) else [])
    if not isinstance(reply.get("error"), str):
        return UNKNOWN, "the daemon's answer is not one this vault-mem reads"
    raise_as(str(reply.get("kind")), reply["error"])
