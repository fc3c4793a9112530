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
import termios

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
        saved = _line_mode(fd)
        try:
            with open(fd, "r+b", buffering=0, closefd=False) as tty:
                tty.write(f"{text}\n{question} [y/N] ".encode(errors="backslashreplace"))
                line = _read_line(fd)
                tty.write(b"\n")
        finally:
            if saved is not None:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        return line.strip().lower() in (b"y", b"yes")
    finally:
        os.close(fd)


def _line_mode(fd: int) -> list | None:
    """Put the terminal in line mode with echo (the person sees what they type, Enter ends it)
    and return its settings to put back, or None when they cannot be read. An agent's full-screen
    interface in the same terminal (Claude Code) keeps it raw, where Enter is a lone carriage
    return and nothing typed is shown."""
    try:
        saved = termios.tcgetattr(fd)
        mode = termios.tcgetattr(fd)
        mode[0] |= termios.ICRNL  # iflag: Enter reads as a line end
        mode[3] |= termios.ICANON | termios.ECHO  # lflag: whole lines, shown as typed
        termios.tcsetattr(fd, termios.TCSADRAIN, mode)
        return saved
    except termios.error:
        return None


def _read_line(fd: int, limit: int = 256) -> bytes:
    """One line from the terminal ``fd``, at most ``limit`` bytes; a carriage return ends it too."""
    got = b""
    while not any(end in got for end in (b"\n", b"\r")) and len(got) < limit:
        chunk = os.read(fd, limit)
        if not chunk:  # end of input (Ctrl-D), or the terminal went away
            break
        got += chunk
    return got.replace(b"\r", b"\n").split(b"\n", 1)[0]
