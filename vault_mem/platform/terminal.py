"""The person at the keyboard: a question asked on the controlling terminal (``/dev/tty``), never
on standard input.

An approval (``vault-mem trust``: a peer's vault.toml, the files git interprets, a commit author)
is the person's act (DESIGN §7). An agent with a shell runs commands with its own pipes as
standard input, so an answer read there is whatever the agent writes: a peer's memory text that
says "run ``vault-mem trust --yes``" or "pipe ``y`` into it" would approve itself. The terminal
the session was started from is not the agent's to type on: a command started by an agent that
has none (a sandbox, a daemon, CI; Claude Code's Bash tool, which starts its commands detached,
with no controlling terminal) gets no answer: the person runs the command in a terminal of their
own. An agent's shell tool that runs commands under a pseudo-terminal it made (Gemini CLI by
default, Codex's ``tty=true``) is a terminal here: see below. This
holds on Linux and macOS alike (POSIX's ``/dev/tty``); it is a speed bump against an agent told
what to run, not a wall against code the person runs, which can write the approval file itself.

The answer is a word shown with the question, new each time (:func:`_code`), not ``y``: an agent
can give itself a terminal of its own (``printf 'y\n' | script -qc 'vault-mem trust' /dev/null``:
``script`` makes a pseudo-terminal the command's controlling terminal and copies its standard
input there), and a ``y`` fed in blind, before the question or after any delay, approved (atk27).
A word it cannot know before the question is shown stops input fed in blind; what was typed
before the question was shown is dropped (``tcflush``). A program that reads the question off
its own pseudo-terminal and types the word (``expect``) still answers: the speed bump is higher,
not a wall.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import termios

__all__ = ["ask_person", "has_terminal"]


def has_terminal() -> bool:
    """Whether this process has a controlling terminal, where the person may read what a
    question would show: the one decision of what ``vault-mem trust``'s text form shows (without
    one, an agent's shell, no text a peer wrote; its ``--json`` never holds any). A pseudo-terminal
    an agent's shell tool made is one too (the module's docstring)."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return False
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


def ask_person(text: str, question: str) -> bool | None:
    """Show ``text`` and ``question`` on the controlling terminal and read one line typed there.

    True when the word shown with the question is typed (any case), False for anything else (Enter, ``n``, end of input); None when this
    process has no controlling terminal to ask on."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:  # ENXIO (no controlling terminal), ENOENT, EACCES
        return None
    try:
        if not os.isatty(fd):
            return None
        saved = _line_mode(fd)
        code = _code()
        try:
            with open(fd, "r+b", buffering=0, closefd=False) as tty:
                # typed before the question is shown: no answer to it (dropped before it is shown,
                # never after: an answer typed at once must not be dropped with it)
                with contextlib.suppress(termios.error):
                    termios.tcflush(fd, termios.TCIFLUSH)
                tty.write(f"{text}\n{question} Type {code} to approve [{code}/N] ".encode(errors="backslashreplace"))
                line = _read_line(fd)
                tty.write(b"\n")
        finally:
            if saved is not None:
                termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        return line.strip().lower() == code.encode()
    finally:
        os.close(fd)


#: the letters of :func:`_code`: none that reads as another in some font (i, l, o)
_LETTERS = "abcdefghjkmnpqrstuvwxyz"


def _code() -> str:
    """The word that approves this one question: four letters drawn at random."""
    return "".join(secrets.choice(_LETTERS) for _ in range(4))


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
