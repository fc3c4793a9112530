"""Listing the sync conflict copies in a vault (see :mod:`vault_mem.model.conflicts`)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vault_mem.config import TYPE_FOLDERS
from vault_mem.errors import VaultMemError
from vault_mem.model.conflicts import CONFLICT_RE, COPY_MARK, memory_key
from vault_mem.model.names import named
from vault_mem.store.workspace import Workspace

if TYPE_CHECKING:
    from vault_mem.model.render import Author


def list_conflicts(vault: Workspace, authors: Callable[[list[str]], dict[str, Author]] | None = None
                   ) -> list[dict[str, Any]]:
    """Every conflict memory: key (the contested key), path (its file now, or None),
    other_path (the conflict copy), conflict_key and detail (what happened, how to settle it).

    A conflict copy is a file like any other, so a peer can commit one: its ``conflict_of`` and
    ``conflict_author`` are whatever they typed, and ``resolve --keep mine`` would make their text
    the person's own (committed here, so trusted). With ``authors`` (path -> who committed it,
    :meth:`vault_mem.vault.core.Vault.authors`), each copy says ``peer``: the email of an author
    not trusted here (None when the copy was made on this machine or by an approved author), and
    the detail says so instead of repeating their claim."""
    copies = []
    for folder in TYPE_FOLDERS.values():
        try:
            names = sorted(os.listdir(vault.root / folder))
        except OSError:
            continue
        for name in names:
            if COPY_MARK not in name or not name.endswith(".md"):
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
            copies.append((rel, ck, key, meta))
    # every copy's author at once: one git log, not one per copy (a stopped merge's files each
    # walked the history again)
    made = authors([rel for rel, *_ in copies]) if authors is not None and copies else {}
    out = []
    for rel, ck, key, meta in copies:
        found = vault.find_file(key)
        made_by = made.get(rel)
        peer = (made_by.email or "unknown") if made_by is not None and not made_by.trusted else None
        who, when = meta.get("conflict_author") or "another machine", meta.get("conflict_date")
        if peer is not None:
            detail = (f"'{ck}' claims to be a conflict copy of '{key}', but no sync on this machine made it: "
                      f"{named(peer, 'its committer', quoted=False)}, an author not approved here, committed it (what it says of its author "
                      f"and date is theirs). Read it with `vault-mem get {ck}`; drop it with `vault-mem resolve "
                      f"{key} --keep theirs`; to keep its text, approve its author first (`vault-mem trust "
                      f"--author {named(peer, 'its email', word=True)}`)")
        else:
            detail = (f"{who}'s version{f' (found {when})' if when else ''} lost '{key}' to the remote's "
                      f"in a sync and is kept as '{ck}'"
                      + ("" if found else f"; '{key}' itself was deleted since")
                      + f"; settle with `vault-mem resolve {key} --keep mine|theirs|both`")
        out.append({"key": key, "path": found[1] if found else None, "other_path": rel,
                    "conflict_key": ck, "detail": detail, "peer": peer})
    return sorted(out, key=lambda c: (c["key"], c["conflict_key"]))
