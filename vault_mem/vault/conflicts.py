"""Listing the sync conflict copies in a vault (see :mod:`vault_mem.model.conflicts`)."""

from __future__ import annotations

import os
from typing import Any

from vault_mem.config import TYPE_FOLDERS
from vault_mem.errors import VaultMemError
from vault_mem.model.conflicts import CONFLICT_RE, memory_key
from vault_mem.store.workspace import Workspace


def list_conflicts(vault: Workspace) -> list[dict[str, Any]]:
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
