"""The trailers at the end of vault-mem's commit messages: written and read here, nowhere else.

An agent write's commit ends in a trailer block (git's ``Key: value`` lines after the last blank
line) that says which memory it changed and how::

    remember: db-choice — Postgres for the main store

    Memory-Key: db-choice
    Memory-Action: create
    Memory-Type: fact
    Agent: claude-code

``vault-mem log`` and ``undo`` read them back, a sync adds ``Sync-Conflict:`` to a commit it had
to rebuild, and the secret gate scans only the values a caller chooses (``Agent:``), never the
structural ones (keys, actions, types, commit ids look like random tokens).
"""

from __future__ import annotations

import re

from vault_mem.model.names import unescaped

__all__ = [
    "AGENT",
    "MEMORY_ACTION",
    "MEMORY_KEY",
    "MEMORY_TYPE",
    "READ",
    "RESOLVES",
    "REVERTS",
    "STRUCTURAL",
    "SYNC_CONFLICT",
    "add_trailers",
    "caller_chosen_text",
    "memory_trailers",
    "parse_trailers",
    "trailer",
]

MEMORY_KEY = "Memory-Key"
MEMORY_ACTION = "Memory-Action"
MEMORY_TYPE = "Memory-Type"
#: who wrote it (the agent's name): the one trailer whose value a caller chooses
AGENT = "Agent"
#: on an ``undo``'s commit: the commit it reverts
REVERTS = "Reverts"
#: on a ``resolve``'s commit: the conflict copy it settled
RESOLVES = "Resolves"
#: on a local commit a sync rebuilt: a memory changed on both sides, and where this side's went
SYNC_CONFLICT = "Sync-Conflict"

#: the trailers vault-mem writes itself, whose values are keys, actions, types and commit ids
STRUCTURAL = (MEMORY_KEY, MEMORY_ACTION, MEMORY_TYPE, REVERTS, RESOLVES, SYNC_CONFLICT)
#: the trailers :func:`parse_trailers` reads back
READ = (MEMORY_KEY, MEMORY_ACTION, MEMORY_TYPE, AGENT, REVERTS, RESOLVES)

# a line of a trailer block, as git recognises one: a token, a colon, a space
_TRAILER_LINE = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: ")


def trailer(name: str, value: str) -> str:
    """One trailer line, newline included: ``Name: value\\n``."""
    return f"{name}: {value}\n"


def memory_trailers(*, key: str | None = None, action: str | None = None, type_: str | None = None,
                    agent: str | None = None) -> str:
    """The trailer block of a write: those of ``Memory-Key``, ``Memory-Action``, ``Memory-Type``
    and ``Agent`` that are given, in that order."""
    given = ((MEMORY_KEY, key), (MEMORY_ACTION, action), (MEMORY_TYPE, type_), (AGENT, agent))
    return "".join(trailer(name, value) for name, value in given if value is not None)


def parse_trailers(text: str) -> dict[str, str]:
    """The values of the trailers in :data:`READ` found in ``text`` (git's unfolded trailer
    block of a commit, or its whole message); a later line of a name wins."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, value = line.partition(":")
        if sep and name in READ:
            out[name] = value.strip()
    return out


def add_trailers(message: str, lines: list[str]) -> str:
    """``message`` with the trailer ``lines`` (from :func:`trailer`) added to its trailer block,
    or as a new block when its last paragraph is not one."""
    text = message.rstrip("\n")
    last = text.rsplit("\n\n", 1)[-1].splitlines()
    sep = "\n" if last and "\n\n" in text and all(_TRAILER_LINE.match(ln) for ln in last) else "\n\n"
    return text + sep + "".join(lines)


def caller_chosen_text(message: str) -> str:
    """What of a commit message its writer chose, for the secret gate: every line but the
    :data:`STRUCTURAL` trailers, and of an ``Agent:`` line only its value; with vault-mem's
    escapes of characters that could hide something read back (:func:`~vault_mem.model.names.unescaped`)."""
    own = tuple(f"{name}:" for name in STRUCTURAL)
    agent = f"{AGENT}:"
    kept = [line.partition(":")[2] if line.startswith(agent) else line
            for line in message.splitlines() if not line.startswith(own)]
    return unescaped("\n".join(kept))
