"""The MCP server's stdio wire: every line the client sends is checked before the SDK reads it.

The MCP SDK's stdio transport parses each line with pydantic; a line it cannot parse reaches the
session as an exception, which it logs and drops: the client gets no answer and waits forever
(invalid JSON, a non-object, a batch array, a missing ``jsonrpc`` or ``method``, a ``params``
that is not an object, an id that is neither a string nor an integer). A line nested 1,000
deep raised RecursionError in the surrogate screen and stopped the server; an enormous line
was read whole into memory.

:class:`LineReader` reads the client's bytes in bounded pieces (a line over
:data:`MAX_LINE_BYTES` is skipped as it streams past, never held); :func:`check_line` answers
each malformed line with the JSON-RPC error it deserves (-32700 parse error, -32600 invalid
request, -32602 invalid params) and passes the rest on; :class:`Wire` writes the SDK's messages
and those answers as whole lines, one at a time. What the SDK answers well itself (an unknown
method: -32601; a known method's params of the wrong shape: -32602) is left to it.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_LINE_BYTES", "LineReader", "Wire", "check_line", "error_response"]

#: Longest request line taken (bytes): a memory's body is at most 64 KB by default, so a
#: well-formed call is far below this; a longer line is answered -32600 and skipped unread.
MAX_LINE_BYTES = 8 * 1024 * 1024
#: Deepest nesting of arrays and objects taken: MCP's messages nest a handful of levels.
MAX_DEPTH = 64
#: Ids are strings of at most this many characters or integers that JSON parsers everywhere
#: read exactly (|id| < 2**53).
MAX_ID_CHARS = 256
_MAX_ID_INT = 2**53 - 1

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602


class LineTooLong:
    """What :meth:`LineReader.next_line` gives for a line over :data:`MAX_LINE_BYTES`."""

    def __init__(self, size: int) -> None:
        self.size = size


class LineReader:
    """Lines from the file descriptor ``fd``, read in pieces; never more than
    :data:`MAX_LINE_BYTES` (plus one piece) held, whatever the client sends."""

    PIECE = 64 * 1024

    def __init__(self, fd: int, *, max_bytes: int = MAX_LINE_BYTES) -> None:
        self.fd = fd
        self.max_bytes = max_bytes
        self.buf = bytearray()
        self.eof = False

    def next_line(self) -> bytes | LineTooLong | None:
        """The next line (without its newline), a :class:`LineTooLong`, or None at the end.
        Blocks: call it from a worker thread."""
        skipped = 0
        searched = 0  # bytes of buf already known to hold no newline
        while True:
            nl = self.buf.find(b"\n", searched)
            if nl >= 0:
                line = bytes(self.buf[:nl])
                del self.buf[:nl + 1]
                if skipped:
                    return LineTooLong(skipped + len(line))
                return line
            if len(self.buf) > self.max_bytes or (skipped and self.buf):
                skipped += len(self.buf)  # an over-long line: let it stream past unkept
                self.buf.clear()
            searched = len(self.buf)
            if self.eof:
                if skipped:
                    return LineTooLong(skipped)
                if self.buf:
                    line = bytes(self.buf)
                    self.buf.clear()
                    return line
                return None
            piece = os.read(self.fd, self.PIECE)
            if not piece:
                self.eof = True
            self.buf += piece


class Wire:
    """The protocol's output (a file descriptor): whole lines, one writer at a time, for the
    SDK's stdout writer (``write``/``flush``, as ``anyio.AsyncFile``) and for :func:`check_line`'s
    answers alike."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.lock = threading.Lock()
        #: the client closed its end: what is written now is dropped (nobody would read it)
        self.gone = False

    def put(self, text: str) -> None:
        """Write ``text`` whole; dropped once the client has closed its end. An answer that
        comes after the client went (a recall it stopped waiting for before closing) is not a
        failure of the server: the session ends when the client's input ends, with exit 0."""
        data = memoryview(text.encode("utf-8"))
        with self.lock:
            while data and not self.gone:
                try:
                    data = data[os.write(self.fd, data):]
                except (BrokenPipeError, ConnectionResetError):
                    self.gone = True

    async def write(self, text: str) -> None:
        import anyio  # comes with the MCP SDK, which only serving loads

        await anyio.to_thread.run_sync(self.put, text)

    async def flush(self) -> None:
        return None  # each line is written through at once


def error_response(rid: Any, code: int, message: str) -> str:
    """A JSON-RPC error response line."""
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}) + "\n"


def _depth(text: str) -> int:
    """How deep arrays and objects nest in the JSON ``text`` (brackets inside strings not
    counted), without parsing it: a linear scan, so no input can exhaust the stack."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def _unicode(text: str) -> bool:
    """Whether ``text`` is Unicode text: JSON's ``\\ud800`` escapes can leave an unpaired
    surrogate, which no UTF-8 answer can carry."""
    return not any("\ud800" <= c <= "\udfff" for c in text)


def _valid_id(rid: Any) -> bool:
    if isinstance(rid, str):
        return len(rid) <= MAX_ID_CHARS and _unicode(rid)
    return isinstance(rid, int) and not isinstance(rid, bool) and abs(rid) <= _MAX_ID_INT


def check_line(raw: bytes | LineTooLong) -> tuple[str | None, str | None]:
    """``(line for the SDK, None)`` for a well-formed message, ``(None, error response line)``
    for a malformed one, ``(None, None)`` for what gets no answer (an empty line, a malformed
    notification, which JSON-RPC never answers)."""
    if isinstance(raw, LineTooLong):
        return None, error_response(None, INVALID_REQUEST, f"a request of {raw.size} bytes, over the "
                                    f"limit of {MAX_LINE_BYTES}; nothing was done: send less per call")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, error_response(None, PARSE_ERROR, f"the request is not UTF-8 text (a bad byte at offset "
                                    f"{exc.start}); nothing was done: send UTF-8 JSON")
    if not text.strip():
        return None, None
    if _depth(text) > MAX_DEPTH:
        return None, error_response(None, PARSE_ERROR, f"the request nests arrays or objects more than "
                                    f"{MAX_DEPTH} deep; nothing was done")
    try:
        msg = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return None, error_response(None, PARSE_ERROR, f"the request is not valid JSON ({exc}); nothing was done")
    if isinstance(msg, list):
        return None, error_response(None, INVALID_REQUEST, "batch requests (a JSON array) are not supported: "
                                    "MCP sends one message per line; nothing was done")
    if not isinstance(msg, dict):
        return None, error_response(None, INVALID_REQUEST, "a JSON-RPC message must be a JSON object; "
                                    "nothing was done")
    has_id = "id" in msg
    rid = msg.get("id")
    if has_id and not _valid_id(rid):
        return None, error_response(None, INVALID_REQUEST, f"the request's id must be a string of at most "
                                    f"{MAX_ID_CHARS} characters of Unicode text (no unpaired surrogate) or an "
                                    "integer below 2**53; nothing was done")
    answer_id = rid if has_id else None
    if msg.get("jsonrpc") != "2.0":
        return None, error_response(answer_id, INVALID_REQUEST, 'the message lacks "jsonrpc": "2.0"; nothing was done')
    if "method" not in msg:
        if has_id and ("result" in msg or "error" in msg):
            return text, None  # the client's answer to a request of ours
        return None, error_response(answer_id, INVALID_REQUEST, 'the request has no "method"; nothing was done')
    if not isinstance(msg["method"], str) or not _unicode(msg["method"]):
        # a method holding an unpaired surrogate got no answer at all: the SDK dropped it
        return None, error_response(answer_id, INVALID_REQUEST, 'the request\'s "method" must be a string of '
                                    "Unicode text (no unpaired surrogate); nothing was done")
    if "params" in msg and not isinstance(msg["params"], dict):
        if not has_id:
            return None, None  # a notification is never answered
        return None, error_response(rid, INVALID_PARAMS, 'the request\'s "params" must be a JSON object; '
                                    "nothing was done")
    return text, None
