"""Sync conflict copies: how a losing version is kept, listed and settled.

When both sides of a sync changed a key, the remote's version keeps the key and the local one
becomes ``<key>.conflict-<7 hex>`` in its type folder, with ``conflict_of: <key>`` (plus who and
when) in its frontmatter. Recall flags such a memory "conflict"; ``vault-mem review`` lists it;
``vault-mem resolve KEY --keep mine|theirs|both`` settles it in one commit.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from typing import Any

import yaml

from .config import FOLDER_TYPES, TYPE_FOLDERS
from .errors import MemoryNotFoundError, UsageError, VaultMemError
from .memory import MAX_KEY_LEN, is_memory_path, parse_memory, validate_key
from .vault import Vault, WriteResult

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


def list_conflicts(vault: Vault) -> list[dict[str, Any]]:
    """Every conflict memory: key (the contested key), path (its file now, or None),
    other_path (the conflict copy), conflict_key and detail (what happened, how to settle it)."""
    out = []
    for folder in TYPE_FOLDERS.values():
        try:
            names = sorted(os.listdir(vault.root / folder))
        except OSError:
            continue
        for name in names:
            if ".conflict-" not in name or not name.endswith(".md"):
                continue
            rel, ck = f"{folder}/{name}", name[:-3]
            meta: dict[str, Any] = {}
            try:
                meta = vault.read_memory(rel).meta
            except VaultMemError:
                pass
            key = meta.get("conflict_of")
            if not isinstance(key, str) or memory_key(f"{folder}/{key}.md") is None:
                m = CONFLICT_RE.search(ck)
                key = ck[: m.start()] if m else None
            if not key or memory_key(rel) is None:
                continue
            found = vault.find_file(key)
            who, when = meta.get("conflict_author") or "another machine", meta.get("conflict_date")
            detail = (f"{who}'s version{f' (found {when})' if when else ''} lost '{key}' to the remote's "
                      f"in a sync and is kept as '{ck}'"
                      + ("" if found else f"; '{key}' itself was deleted since")
                      + f"; settle with `vault-mem resolve {key} --keep mine|theirs|both`")
            out.append({"key": key, "path": found[1] if found else None, "other_path": rel,
                        "conflict_key": ck, "detail": detail})
    return sorted(out, key=lambda c: (c["key"], c["conflict_key"]))


def resolve(vault: Vault, key: str, *, keep: str, agent: str | None = None) -> WriteResult:
    """Settle the conflict on ``key`` (or on the conflict copy named ``key``) in one commit.

    mine: the conflict copy's content replaces ``key``; theirs: the copy is dropped; both: the
    copy becomes the ordinary memory ``<key>-<7 hex>``."""
    if keep not in ("mine", "theirs", "both"):
        raise UsageError(f"--keep {keep!r}: use mine, theirs or both")
    validate_key(key)
    with vault.lock:
        vault.recover()  # finishes an interrupted sync too
        vault.check_git_state()
        found = [c for c in list_conflicts(vault) if key in (c["key"], c["conflict_key"])]
        if not found:
            raise MemoryNotFoundError(f"'{key}' has no sync conflict; `vault-mem review` lists conflicts")
        if len(found) > 1:
            names = ", ".join(c["conflict_key"] for c in found)
            raise UsageError(f"'{key}' has {len(found)} conflict copies ({names}); settle one at a time: "
                             "`vault-mem resolve COPY-KEY --keep ...`")
        c = found[0]
        orig, ck, copy_rel = c["key"], c["conflict_key"], c["other_path"]
        vault.check_not_dirty(copy_rel)
        folder = copy_rel.split("/")[0]
        type_ = FOLDER_TYPES[folder]
        changes: dict[str, bytes | None] = {copy_rel: None}
        trailer = f"Resolves: {ck}\n"
        if keep == "theirs":
            new_key, target, action = ck, None, "forget"
            subject = f"resolve: {orig} — kept the synced version, dropped {ck}"
        else:
            new_key = orig if keep == "mine" else _free_key(vault, orig, ck)
            target = f"{folder}/{new_key}.md"
            changes[target] = strip_conflict((vault.root / copy_rel).read_bytes(), target)
            action = "create"
            current = vault.find_file(new_key) if keep == "mine" else None
            if current:
                vault.check_not_dirty(current[1])
                action = "update" if current[1] == target else "move"
                if current[1] != target:
                    changes[current[1]] = None
            subject = (f"resolve: {orig} — kept the version from {ck}" if keep == "mine" else
                       f"resolve: {orig} — kept both, {ck} is now {new_key}")
        commit = vault.commit_change(changes, subject, key=new_key, action=action, type_=type_,
                                      agent=agent, extra_trailers=trailer)
        return WriteResult(new_key, type_, target, f"resolve-{keep}", commit)


def _free_key(vault: Vault, key: str, ck: str) -> str:
    m = CONFLICT_RE.search(ck)
    tag = m.group(1) if m else "alt"
    stem = key[: MAX_KEY_LEN - len(tag) - 4].rstrip("-._")
    for n in range(1, 100):
        candidate = f"{stem}-{tag}" + (f"-{n}" if n > 1 else "")
        if vault.find_file(candidate) is None:
            return candidate
    raise VaultMemError(f"no free key for the second version of '{key}'; rename the copy by hand")

