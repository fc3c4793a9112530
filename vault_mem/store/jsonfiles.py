"""JSON that another program wrote, read one way: an agent's configuration files (``~/.claude.json``,
a clone's ``.mcp.json``), an agent hook's event and the session transcript it names.

One rule for all of them (attack25, issue 23): JSON that cannot be read (not valid, nested past
the parser's depth, an integer past Python's digit limit, over :data:`MAX_JSON_BYTES`, not UTF-8)
or a file that is no regular file (a clone's ``.mcp.json -> /dev/zero``, a FIFO, a folder) is an
:class:`~vault_mem.errors.UnreadableJSONError` whose message names the file and what to do. The
caller decides what that means: ``connect`` stops before it writes anything; a hook answers as for
an empty event (it never stops the agent's session); ``doctor`` skips the file.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from vault_mem.errors import UnreadableJSONError
from vault_mem.model.names import shown

#: the most of one JSON file or text read (``~/.claude.json`` keeps every project's state)
MAX_JSON_BYTES = 64 << 20


def parse_json(text: str | bytes, *, what: str, then: str = "fix it or move it aside") -> Any:
    """``text`` parsed, or :class:`UnreadableJSONError` saying ``what`` "is not valid JSON (why);
    ``then``". Nesting past the parser's depth (``RecursionError``) and a number past Python's
    4300-digit limit (``ValueError``) are unreadable JSON like any other."""
    if len(text) > MAX_JSON_BYTES:
        raise UnreadableJSONError(f"{what} is over {MAX_JSON_BYTES >> 20} MB of JSON; {then}")
    try:
        return json.loads(text)
    except RecursionError:
        raise UnreadableJSONError(f"{what} is not valid JSON (nested deeper than the parser reads); {then}") from None
    except ValueError as exc:  # JSONDecodeError, a bad UTF-8 byte, a number past the digit limit
        raise UnreadableJSONError(f"{what} is not valid JSON ({exc}); {then}") from None


def read_text(path: Path, *, then: str, max_bytes: int = MAX_JSON_BYTES, tail: bool = False) -> str | None:
    """The UTF-8 text of the regular file at ``path`` (through a link: a person's dotfiles link
    theirs), None when there is none. Opened without blocking (a FIFO never waits), at most
    ``max_bytes`` read: over that, :class:`UnreadableJSONError`, or with ``tail`` the last
    ``max_bytes`` from a line's start (a long transcript: its end is what counts)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UnreadableJSONError(f"cannot read {shown(str(path))} ({exc.strerror}); {then}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise UnreadableJSONError(f"cannot read {shown(str(path))}: not a regular file (a link to a device, a "
                                  f"pipe or a folder?); move it aside, then {then}")
    with os.fdopen(fd, "rb") as fh:
        if st.st_size > max_bytes and tail:
            fh.seek(st.st_size - max_bytes)
            fh.readline()  # a partial line
        elif st.st_size > max_bytes:
            raise UnreadableJSONError(f"cannot read {shown(str(path))}: over {max_bytes >> 20} MB; move it aside, "
                                      f"then {then}")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew while read
        if not tail:
            raise UnreadableJSONError(f"cannot read {shown(str(path))}: over {max_bytes >> 20} MB; move it aside, "
                                      f"then {then}")
        data = data[:max_bytes]
    try:
        return data.decode("utf-8", "replace" if tail else "strict")
    except UnicodeDecodeError as exc:
        raise UnreadableJSONError(f"cannot read {shown(str(path))} (not UTF-8: {exc.reason} at byte {exc.start}); "
                                  f"{then}") from None


def read_json(path: Path, *, then: str, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """The JSON of the file at ``path`` (:func:`read_text`, then :func:`parse_json`), None when
    there is no file; an empty file is ``{}`` (an agent's settings file before its first entry)."""
    text = read_text(path, then=then, max_bytes=max_bytes)
    if text is None:
        return None
    return parse_json(text, what=str(path), then=then) if text.strip() else {}
