"""What the CLI prints, with every character that could drive a terminal made visible.

Text from elsewhere reaches the CLI's output in many places: a peer's commit subject and author
name in ``log``, a peer's email in ``recall``/``get``/``trust``, a memory's body and description,
file names in warnings and errors. Git lets an author name or a subject hold ESC, BEL and bidi
overrides, and a memory body anything; printed raw, ``ESC[2J`` clears the person's screen, an
OSC sequence retitles or (in some terminals) writes the clipboard, and U+202E shows a name
reversed (a forged email looks like the person's own). Escaping each field at each print would
drift, so the one home is the CLI's own streams: :func:`escaping_streams` puts a writer in front
of stdout and stderr for the command's run that shows such characters as ``\\xNN``/``\\uNNNN``
(:func:`vault_mem.model.names.visible`, the rule memory text in front of an agent follows); line
breaks and tabs pass. ``--json`` output stays valid JSON: :func:`json_text` writes those
characters as JSON's own ``\\uNNNN`` escapes, which the writer leaves alone (they are ASCII).
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from vault_mem.model.names import visible, visible_json

__all__ = ["escaping_streams", "json_text", "raw_stream"]


def json_text(data: Any, *, indent: int | None = None) -> str:
    """``data`` as JSON (non-ASCII text kept readable) with every character that could drive a
    terminal written as a JSON ``\\uNNNN`` escape: the same data for a JSON reader. Whose each
    memory or commit is comes first in its object (:func:`_whose_first`)."""
    return visible_json(json.dumps(_whose_first(data), ensure_ascii=False, indent=indent, default=str))


#: the fields that name who wrote a memory or a commit, and what that makes them here
_WHOSE = ("author", "email", "trusted")


def _whose_first(data: Any) -> Any:
    """``data`` with each object that says whether its writer is ``trusted`` here holding
    :data:`_WHOSE` right after its ``key`` and ``type``, before any text its writer chose (a
    description, a body, a subject, fields a file adds). Last, after a peer's description of
    40,000 characters and a body, they stood past what `head` or an agent's shell tool that keeps
    the start of a long output shows: the peer's text read as no one's (atk23). The same data."""
    if isinstance(data, list):
        return [_whose_first(item) for item in data]
    if not isinstance(data, dict):
        return data
    data = {k: _whose_first(v) for k, v in data.items()}
    if "trusted" not in data:
        return data
    lead = [k for k in ("key", "type", *_WHOSE) if k in data]
    return {**{k: data[k] for k in lead}, **{k: v for k, v in data.items() if k not in lead}}


class _Escaping:
    """A text stream that writes through ``visible(prose=True)``; everything else is the
    stream's own (``buffer``, ``isatty``, ``encoding``, ...)."""

    def __init__(self, stream: TextIO):
        self.unescaped = stream

    def write(self, text: str) -> int:
        self.unescaped.write(visible(text, prose=True))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.unescaped, name)


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under an escaping one (what vault-mem itself draws, such as a progress bar's
    ``\\r``), or ``stream`` itself."""
    return getattr(stream, "unescaped", stream)


@contextlib.contextmanager
def escaping_streams() -> Iterator[None]:
    """stdout and stderr escaped (module docstring) for the block, then put back."""
    saved = sys.stdout, sys.stderr
    if sys.stdout is not None:
        sys.stdout = _Escaping(sys.stdout)  # type: ignore[assignment]
    if sys.stderr is not None:
        sys.stderr = _Escaping(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
