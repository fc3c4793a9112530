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
    if body is not None and body != "-":
        return body, None
    source = "-" if body == "-" else body_file
    stdin = sys.stdin
    if source is None:
        if stdin is None or stdin.isatty():
            return "", None
        ready = stdin_has_data(stdin)
        if ready is False:
            return "", SILENT_STDIN_NOTE
    if source in (None, "-"):
        if stdin is None:
            raise UsageError("--body -: there is no stdin to read the body from")
        stream, where = getattr(stdin, "buffer", stdin), "stdin"
    else:
        try:
            stream, where = open(source, "rb"), source  # noqa: SIM115 - closed by the `with` below
        except OSError as exc:
            raise UsageError(f"--body-file {source}: {exc.strerror or exc}") from None
    try:
        with stream:
            data = stream.read(limit + 1)
    except OSError as exc:
        if source is None:  # not asked for (pytest's captured stdin, say): no body
            return "", None
        raise UsageError(f"cannot read the body from {where}: {exc.strerror or exc}") from None
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > limit:
        raise SizeLimitError(
            f"the body from {where} is over the vault's limit of {limit} bytes ([limits] max_body_bytes "
            "in vault.toml); store a summary and a pointer instead"
        )
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"the body from {where} is not UTF-8 text (bad byte at offset {exc.start})"
        ) from None
