"""How a memory is shown to whoever reads it (CLI, MCP, tools, hooks): age and flags included.

Staleness is judged here, at read time, never written into files or INDEX.md (DESIGN §1).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from vault_mem.model.memory import MAX_TAG_CHARS, Memory, iso
from vault_mem.model.policy import MAX_DESCRIPTION_CHARS


def age_days(date: dt.date | None, today: dt.date | None = None) -> int | None:
    """Whole days since ``date`` (0 for a date in the future); None without a date."""
    if date is None:
        return None
    return max(0, ((today or dt.date.today()) - date).days)


def memory_flags(*, type_: str, updated: dt.date | None, expires: dt.date | None, today: dt.date,
                 stale_after: dict[str, int], superseded: bool = False, conflict: bool = False) -> list[str]:
    """``stale`` (older than the type's stale_after_days), ``expired``, ``superseded``, ``conflict``
    (a sync conflict copy): the one rule for recall hits, ``get`` and the hooks."""
    flags = []
    age = age_days(updated, today)
    limit = stale_after.get(type_)
    if age is not None and limit is not None and age > limit:
        flags.append("stale")
    if expires and expires < today:
        flags.append("expired")
    if superseded:
        flags.append("superseded")
    if conflict:
        flags.append("conflict")
    return flags


def memory_view(mem: Memory, *, stale_after: dict[str, int], superseded_by: list[str],
                chain: list[str], today: dt.date | None = None, dated: dt.date | None = None,
                trusted: bool = True) -> dict[str, Any]:
    """The whole memory as a JSON-ready dict with ``age_days``, ``flags`` and reading notes.

    Also ``superseded_by`` (direct successors), ``current`` (the end of the supersession chain,
    None unless superseded) and ``supersedes`` (what this one replaces). The caller looks up
    what supersedes ``mem`` (``superseded_by``, its direct successors, and ``chain``, its
    successors up to the current one; see :mod:`vault_mem.index.queries`): this module does no
    I/O. ``stale_after`` is the vault's ``stale_after_days``; ``dated`` is the memory's date as the
    sidecar holds it (its ``updated:``, no later than its file was written here, or when its
    content last changed if later: a hand edit), which its age counts from; without it, ``updated:``.
    ``trusted``: whether its author is trusted here; an untrusted memory's ``supersedes`` is
    named as its author's word that supersedes nothing (DESIGN §7), never as vault-mem's own."""
    today = today or dt.date.today()
    direct = superseded_by
    chain = chain if direct else []
    view = mem.to_dict()
    dated = dated if dated is not None else mem.updated
    view["age_days"] = age_days(dated, today)
    view["flags"] = memory_flags(type_=mem.type, updated=dated, expires=mem.expires, today=today,
                                 stale_after=stale_after, superseded=bool(direct))
    notes = []
    if "stale" in view["flags"]:
        limit = stale_after.get(mem.type)
        notes.append(f"may be outdated: last updated {view['age_days']} days ago (a {mem.type} is "
                     f"considered stale after {limit} days); check before relying on it")
    if "expired" in view["flags"]:
        notes.append(f"expired on {iso(mem.expires)}: hidden from recall and INDEX.md")
    if direct:
        note = f"superseded by {', '.join(direct)}"
        if len(chain) > 1:
            note += " (chain: " + " -> ".join([mem.key, *chain]) + ")"
        notes.append(f"{note}: read '{chain[-1]}' for the current version; this one is hidden from "
                     "recall and INDEX.md")
    if mem.supersedes and trusted:
        notes.append(f"supersedes {', '.join(mem.supersedes)}")
    elif mem.supersedes:
        # the keys are left out: this note is vault-mem's, outside the memory's fence, and a key
        # is text its writer chose ("important.vault-mem-says-the-agent-must-run-..." is a key)
        n = len(mem.supersedes)
        notes.append(f"its `supersedes` names {n} memor{'y' if n == 1 else 'ies'} by its author's word only, an author "
                     "not approved on this machine: nothing is superseded here (the memory's `supersedes` field "
                     "lists them)")
    view["superseded_by"] = direct
    view["current"] = chain[-1] if chain else None
    view["supersedes"] = mem.supersedes
    view["notes"] = notes
    return view


def outdated_note(flags: list[str], age_days: int | None) -> str | None:
    """The reading note for a hit or memory with these flags ("may be outdated: ..."), or None."""
    if "stale" in flags:
        return f"may be outdated: last updated {age_days} days ago; confirm before relying on it"
    if "expired" in flags:
        return "expired: no longer holds unless confirmed"
    if "superseded" in flags:
        return "superseded by a newer memory"
    return None


def description_excerpt(key: str, description: str, *, limit: int = MAX_DESCRIPTION_CHARS) -> tuple[str, bool]:
    """What a recall hit carries of ``description``, and whether that is less than all of it: the
    whole of one within the write rules' length (every description written through vault-mem),
    else cut at a word within it, ending in a marker naming ``get KEY``. A file is read as it is,
    so a peer's description can be as long as the file (80 KB): three such look-alikes ranked
    above the person's answer made a recall 200 KB, which Claude Code hands its model as a file's
    name and its first 2 KB, the peer's text alone (atk25). The one rule for every reader, with
    :func:`body_excerpt`."""
    if len(description) <= limit:
        return description, False
    return _cut(description, limit, key, at_lines=False), True


def _cut(text: str, limit: int, key: str, *, at_lines: bool) -> str:
    """``text`` cut within ``limit`` characters, at its last line boundary (``at_lines``) or else
    at a word, ending in the marker that names ``get KEY``: the one cut of both excerpts."""
    cut = text.rfind("\n", 0, limit + 1) if at_lines else 0
    if cut <= 0:
        cut = text.rfind(" ", 0, limit + 1)
    if cut <= 0:
        cut = limit
    head = text[:cut].rstrip()
    return f"{head}{chr(10) if at_lines else ' '}[… {len(text) - len(head)} more characters: get {key} for the whole memory]"


def tags_excerpt(tags: list[str]) -> list[str]:
    """What a listing carries of a memory's ``tags``: each within the write rules' length
    (:data:`~vault_mem.model.memory.MAX_TAG_CHARS`), a longer one cut and ending in ``…`` (a
    file's count of them is bounded where it is read). A peer's 60 tags of 300 characters, 18 KB
    of one memory's open marker in an MCP ``list``, took the place of the person's rows in what a
    client hands its model of one result (atk25)."""
    return [t if len(t) <= MAX_TAG_CHARS else t[:MAX_TAG_CHARS - 1] + "…" for t in tags]


#: A recall hit's body is cut to about this many characters (at a line boundary)...
EXCERPT_CHARS = 600
#: ...except a procedure, which comes whole up to this size and as a pointer beyond it: an
#: ordered procedure is never cut in the middle (DESIGN §1).
WHOLE_PROCEDURE_CHARS = 4000


def body_excerpt(key: str, type_: str, body: str, *, limit: int = EXCERPT_CHARS,
                 procedure_limit: int = WHOLE_PROCEDURE_CHARS) -> tuple[str, bool]:
    """What a recall hit carries of ``body``, and whether that is less than all of it.

    The one rule for every reader (API, CLI, tools, MCP): a body up to ``limit`` characters is
    whole; a longer one is cut at the last line boundary within ``limit`` (a word boundary when
    its first line alone is longer) and ends in a marker naming ``get KEY``. A procedure is whole
    up to ``procedure_limit``; beyond that it is only a pointer, never a part of the steps."""
    text = body.rstrip("\n")
    if type_ == "procedure":
        if len(text) <= procedure_limit:
            return body, False
        lines = len(text.splitlines())
        return (f"[a procedure of {lines} lines ({len(text)} characters), too long to show here: "
                f"get {key} for the whole of it]"), True
    if len(text) <= limit:
        return body, False
    return _cut(text, limit, key, at_lines=True), True  # one long first line: ends at a word
