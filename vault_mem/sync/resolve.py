"""Sync conflict copies: how a losing version is kept, listed and settled.

When both sides of a sync changed a key, the remote's version keeps the key and the local one
becomes ``<key>.conflict-<7 hex>`` in its type folder, with ``conflict_of: <key>`` (plus who and
when) in its frontmatter. Recall flags such a memory "conflict"; ``vault-mem review`` lists it;
``vault-mem resolve KEY --keep mine|theirs|both`` settles it in one commit.
"""

from __future__ import annotations

from vault_mem.config import FOLDER_TYPES
from vault_mem.errors import MemoryNotFoundError, UsageError, VaultMemError
from vault_mem.model.conflicts import CONFLICT_RE, strip_conflict
from vault_mem.model.memory import MAX_KEY_LEN, validate_key
from vault_mem.model.trailers import RESOLVES, trailer
from vault_mem.vault.conflicts import list_conflicts
from vault_mem.vault.core import Vault, WriteResult


def resolve(vault: Vault, key: str, *, keep: str, agent: str | None = None) -> WriteResult:
    """Settle the conflict on ``key`` (or on the conflict copy named ``key``) in one commit.

    mine: the conflict copy's content replaces ``key``; theirs: the copy is dropped; both: the
    copy becomes the ordinary memory ``<key>-<7 hex>``."""
    if keep not in ("mine", "theirs", "both"):
        raise UsageError(f"--keep {keep!r}: use mine, theirs or both")
    validate_key(key)
    with vault.transaction() as tx:  # recovery first: it finishes an interrupted sync too
        found = [c for c in list_conflicts(vault.ws, vault.authors) if key in (c["key"], c["conflict_key"])]
        if not found:
            raise MemoryNotFoundError(f"'{key}' has no sync conflict; `vault-mem review` lists conflicts")
        if len(found) > 1:
            names = ", ".join(c["conflict_key"] for c in found)
            raise UsageError(f"'{key}' has {len(found)} conflict copies ({names}); settle one at a time: "
                             "`vault-mem resolve COPY-KEY --keep ...`")
        c = found[0]
        orig, ck, copy_rel = c["key"], c["conflict_key"], c["other_path"]
        if c["peer"] is not None and keep != "theirs":
            # a peer's file posing as this machine's lost version: keeping it would commit their
            # text here, as this machine's own (trusted, in front of the agent unasked)
            raise VaultMemError(f"refused: {c['detail']}")
        copy_bytes = vault.check_not_dirty(copy_rel)
        tx.expect(copy_rel, copy_bytes)
        folder = copy_rel.split("/")[0]
        type_ = FOLDER_TYPES[folder]
        changes: dict[str, bytes | None] = {copy_rel: None}
        resolves = trailer(RESOLVES, ck)
        if keep == "theirs":
            new_key, target, action = ck, None, "forget"
            subject = f"resolve: {orig} — kept the synced version, dropped {ck}"
        else:
            new_key = orig if keep == "mine" else _free_key(vault, orig, ck)
            target = f"{folder}/{new_key}.md"
            changes[target] = strip_conflict(copy_bytes, target)
            action = "create"
            current = vault.find_file(new_key) if keep == "mine" else None
            if current:
                tx.expect(current[1], vault.check_not_dirty(current[1]))
                action = "update" if current[1] == target else "move"
                if current[1] != target:
                    changes[current[1]] = None
            subject = (f"resolve: {orig} — kept the version from {ck}" if keep == "mine" else
                       f"resolve: {orig} — kept both, {ck} is now {new_key}")
        commit = tx.commit(changes, subject, key=new_key, action=action, type_=type_,
                                      agent=agent, extra_trailers=resolves)
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
