"""The person at the keyboard: a question asked on the controlling terminal (``/dev/tty``), never
on standard input.

An approval (``vault-mem trust``: a peer's vault.toml, the files git interprets, a commit author)
is the person's act (DESIGN §7). An agent with a shell runs commands with its own pipes as
standard input, so an answer read there is whatever the agent writes: a peer's memory text that
says "run ``vault-mem trust --yes``" or "pipe ``y`` into it" would approve itself. The terminal
the session was started from is not the agent's to type on: a command started by an agent that
has none (a sandbox, a daemon, CI) gets no answer, and one started by an agent running inside the
person's terminal (Claude Code) shows its question there, where the person answers it. This
holds on Linux and macOS alike (POSIX's ``/dev/tty``); it is a speed bump against an agent told
what to run, not a wall against code the person runs, which can write the approval file itself.
"""

from __future__ import annotations

import os

__all__ = ["ask_person"]


def ask_person(text: str, question: str) -> bool | None:
    """Show ``text`` and ``question`` on the controlling terminal and read one line typed there.

    True for ``y``/``yes``, False for anything else (Enter, ``n``, end of input); None when this
    process has no controlling terminal to ask on."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:  # ENXIO (no controlling terminal), ENOENT, EACCES
        return None
    try:
        if not os.isatty(fd):
            return None
        with open(fd, "r+b", buffering=0, closefd=False) as tty:
            tty.write(f"{text}\n{question} [y/N] ".encode(errors="backslashreplace"))
            line = _read_line(fd)
        return line.strip().lower() in (b"y", b"yes")
    finally:
        os.close(fd)


def _read_line(fd: int, limit: int = 256) -> bytes:
    """One line from the terminal ``fd`` (canonical mode gives it whole), at most ``limit`` bytes."""
    got = b""
    while b"\n" not in got and len(got) < limit:
        chunk = os.read(fd, limit)
        if not chunk:  # end of input (Ctrl-D), or the terminal went away
            break
        got += chunk
    return got.split(b"\n", 1)[0]
