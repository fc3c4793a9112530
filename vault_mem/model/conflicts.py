"""Sync conflict copies: naming and marking a losing version (pure: no I/O).

When both sides of a sync changed a key, the remote's version keeps the key and the local one
becomes ``<key>.conflict-<7 hex>`` in its type folder, with ``conflict_of: <key>`` (plus who and
when) in its frontmatter. Recall flags such a memory "conflict"; ``vault-mem review`` lists it;
``vault-mem resolve KEY --keep mine|theirs|both`` settles it in one commit.
"""

from __future__ import annotations

import datetime as dt
import re

from vault_mem.errors import VaultMemError
from vault_mem.model.memory import (
    MAX_KEY_LEN,
    Memory,
    is_memory_path,
    parse_memory,
    rewrite_in_place,
    validate_key,
)

CONFLICT_FIELDS = ("conflict_of", "conflict_author", "conflict_date")
CONFLICT_RE = re.compile(r"\.conflict-([0-9a-f]{7})$")
#: what a file name holds to be read as a conflict copy (``vault/conflicts.list_conflicts``); a
#: key no import may take (``ops/importers/plan._base_key``)
COPY_MARK = ".conflict-"


def memory_key(rel: str) -> str | None:
    """The key of a vault-relative memory path, or None for any other file."""
    if not is_memory_path(rel):
        return None
    try:
        return validate_key(rel.split("/")[1][:-3])
    except VaultMemError:
        return None


def conflict_key(key: str, blob: str) -> str:
    """``<key>.conflict-<7 hex>``, shortened to stay a valid key."""
    suffix = f"{COPY_MARK}{blob[:7]}"
    return key[: MAX_KEY_LEN - len(suffix)].rstrip("-._") + suffix


def copy_of(copy: str, key: str) -> bool:
    """True when ``copy`` is a conflict copy of ``key`` (:func:`conflict_key` of it, whatever blob)."""
    m = CONFLICT_RE.search(copy)
    return m is not None and conflict_key(key, m.group(1)) == copy


def copied_from(rel: str, data: bytes) -> str | None:
    """The vault-relative path of the memory the conflict copy ``rel`` (holding ``data``) copies:
    its ``conflict_of`` key, in the same type folder, when the copy's name is that key's
    (:func:`copy_of`); None for any other file."""
    key = memory_key(rel)
    if key is None or COPY_MARK not in key:
        return None
    try:
        of = parse_memory(data.decode("utf-8"), rel).meta.get("conflict_of")
    except (UnicodeDecodeError, VaultMemError):
        return None
    if not isinstance(of, str) or not copy_of(key, of):
        return None
    return f"{rel.split('/')[0]}/{of}.md"


def _with_conflict_fields(data: bytes, rel: str, fields: dict[str, object]) -> bytes:
    """``data`` with its conflict fields removed and ``fields`` (maybe none) added, through the
    in-place field edit of :func:`~vault_mem.model.memory.rewrite_in_place`: the rest of the
    file, comments included, keeps its bytes. A file that did not parse, or whose frontmatter
    cannot be edited in place, is returned as it was."""
    try:
        text = data.decode("utf-8")
        mem = parse_memory(text, rel)
    except (UnicodeDecodeError, VaultMemError):
        return data
    # a field already there is changed where it stands; the others go at the end
    meta = {k: fields.get(k, v) for k, v in mem.meta.items() if k not in CONFLICT_FIELDS or k in fields}
    meta.update(fields)
    out = rewrite_in_place(text, Memory(key=mem.key, type=mem.type, meta=meta, body=mem.body))
    return data if out is None else out.encode("utf-8")


def mark_conflict(data: bytes, rel: str, *, key: str, who: str, today: dt.date) -> bytes:
    """The memory file ``data`` marked as the conflict copy of ``key`` (see module docstring)."""
    return _with_conflict_fields(data, rel, {"conflict_of": key, "conflict_author": who, "conflict_date": today})


def strip_conflict(data: bytes, rel: str) -> bytes:
    """The conflict copy ``data`` without its conflict fields (the inverse of :func:`mark_conflict`)."""
    return _with_conflict_fields(data, rel, {})
