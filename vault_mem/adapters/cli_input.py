"""Where ``vault-mem remember`` takes a body from: ``--body``, ``--body-file``, or stdin.

stdin is read only when asked (``--body -`` or ``--body-file -``), or when it is not a terminal
and has data at once (a zero-timeout ``select``): many agent runners start commands with an
open pipe on stdin that never sends anything, where reading it would wait forever. Kept apart
from cli.py (which prints); this returns the body and, when stdin was open but silent, a note.
"""

from __future__ import annotations

import io
import select
import sys
from dataclasses import dataclass
from typing import IO

from vault_mem.errors import SizeLimitError, UsageError

#: The note for a stdin that was open but sent nothing when the command started.
SILENT_STDIN_NOTE = ("stdin is open but sent nothing, so the body is empty; pass --body - to read "
                     "the body from stdin until it closes")


def stdin_has_data(stream: IO | None) -> bool | None:
    """True when reading ``stream`` now would not wait (data or end of input is there), False
    when it would, None when it has no file descriptor (an in-memory stream: reading never waits)."""
    if stream is None:
        return False
    try:
        fd = stream.fileno()
    except (OSError, ValueError, io.UnsupportedOperation, AttributeError):
        return None
    try:
        ready, _, _ = select.select([fd], [], [], 0)
    except (OSError, ValueError):  # a descriptor select cannot watch: do not risk a wait
        return False
    return bool(ready)


def body_from(body: str | None, body_file: str | None, limit: int) -> tuple[str, str | None]:
    """The body, and a note for the user or None.

    ``--body -`` and ``--body-file -`` read stdin to its end (asked for: that may wait). Without
    either, stdin is read only when it is not a terminal and has data at once. Reads at most
    ``limit`` + 1 bytes: a body over the vault's limit is refused as soon as that is known.
    Unreadable or non-UTF-8 input is an error, never silently an empty body."""
    raw = read_body(body, body_file, limit)
    return body_text(raw, limit), raw.note


@dataclass
class RawBody:
    """A body as read (:func:`read_body`), before the vault's limit and UTF-8 are checked
    (:func:`body_text`): a command that does not know the vault's limit yet (its write goes to
    the daemon) reads first and checks, or has the daemon check, once it does."""

    data: str | bytes  # text from --body, else the bytes read
    where: str | None  # "stdin" or the file (None: --body's text, which the write policy checks)
    note: str | None
    stream: IO[bytes] | None = None  # still open when the read stopped at its limit

    def more(self, limit: int) -> RawBody:
        """This body read on up to ``limit`` + 1 bytes in all (a larger vault limit than the
        first read's)."""
        if self.stream is None or len(self.data) > limit:
            return self
        with self.stream:
            data = self.data + self.stream.read(limit + 1 - len(self.data))
        return RawBody(data, self.where, self.note, None)


def read_body(body: str | None, body_file: str | None, limit: int) -> RawBody:
    """The body as :func:`body_from` reads it, up to ``limit`` + 1 bytes, unchecked."""
    if body is not None and body != "-":
        return RawBody(body, None, None)
    source = "-" if body == "-" else body_file
    stdin = sys.stdin
    if source is None:
        if stdin is None or stdin.isatty():
            return RawBody("", None, None)
        ready = stdin_has_data(stdin)
        if ready is False:
            return RawBody("", None, SILENT_STDIN_NOTE)
    if source in (None, "-"):
        if stdin is None:
            raise UsageError("--body -: there is no stdin to read the body from")
        stream, where = getattr(stdin, "buffer", stdin), "stdin"
    else:
        try:
            stream, where = open(source, "rb"), source  # noqa: SIM115 - closed below or by RawBody.more
        except OSError as exc:
            raise UsageError(f"--body-file {source}: {exc.strerror or exc}") from None
    try:
        data = stream.read(limit + 1)
    except OSError as exc:
        stream.close()
        if source is None:  # not asked for (pytest's captured stdin, say): no body
            return RawBody("", None, None)
        raise UsageError(f"cannot read the body from {where}: {exc.strerror or exc}") from None
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) <= limit:
        stream.close()
        return RawBody(data, where, None)
    return RawBody(data, where, None, stream)


def body_text(raw: RawBody, limit: int) -> str:
    """The text of ``raw`` once the vault's ``limit`` is known: over it (SizeLimitError) or
    not UTF-8 (UsageError) is refused, in that order."""
    data = raw.more(limit).data
    if raw.where is None:
        return data  # --body's text
    if raw.stream is not None:
        raw.stream.close()  # read to the limit: the rest is refused unread
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > limit:
        raise SizeLimitError(
            f"the body from {raw.where} is over the vault's limit of {limit} bytes ([limits] max_body_bytes "
            "in vault.toml); store a summary and a pointer instead"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"the body from {raw.where} is not UTF-8 text (bad byte at offset {exc.start})"
        ) from None
