"""Sync conflict copies: naming and marking a losing version (pure: no I/O).

When both sides of a sync changed a key, the remote's version keeps the key and the local one
becomes ``<key>.conflict-<7 hex>`` in its type folder, with ``conflict_of: <key>`` (plus who and
when) in its frontmatter. Recall flags such a memory "conflict"; ``vault-mem review`` lists it;
``vault-mem resolve KEY --keep mine|theirs|both`` settles it in one commit.
"""

from __future__ import annotations

import datetime as dt
import re

import yaml

from vault_mem.errors import VaultMemError
from vault_mem.model.memory import MAX_KEY_LEN, is_memory_path, parse_memory, validate_key

CONFLICT_FIELDS = ("conflict_of", "conflict_author", "conflict_date")
CONFLICT_RE = re.compile(r"\.conflict-([0-9a-f]{7})$")


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
    suffix = f".conflict-{blob[:7]}"
    return key[: MAX_KEY_LEN - len(suffix)].rstrip("-._") + suffix


def _with_conflict_fields(data: bytes, rel: str, extra: str) -> bytes:
    """``data`` with its conflict fields removed and ``extra`` (YAML lines, maybe empty) put
    before the closing ``---``; the rest of the file, comments included, is kept byte for byte.
    A file that would not parse afterwards (or did not before) is returned as it was."""
    try:
        lines = data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return data
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\r\n") == "---"), None)
    if end is None:
        return data
    fields = tuple(f + ":" for f in CONFLICT_FIELDS)
    text = "".join([ln for ln in lines[:end] if not ln.startswith(fields)]) + extra + "".join(lines[end:])
    try:
        parse_memory(text, rel)
    except VaultMemError:
        return data
    return text.encode("utf-8")


def mark_conflict(data: bytes, rel: str, *, key: str, who: str, today: dt.date) -> bytes:
    """The memory file ``data`` marked as the conflict copy of ``key`` (see module docstring)."""
    extra = yaml.safe_dump({"conflict_of": key, "conflict_author": who, "conflict_date": today},
                           sort_keys=False, allow_unicode=True, width=10_000)
    return _with_conflict_fields(data, rel, extra)


def strip_conflict(data: bytes, rel: str) -> bytes:
    """The conflict copy ``data`` without its conflict fields (the inverse of :func:`mark_conflict`)."""
    return _with_conflict_fields(data, rel, "")
