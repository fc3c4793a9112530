"""Committing edits made outside vault-mem: whose identity, which files, what message.

Used by the daemon after a quiet period; kept apart so the watcher stays about watching.
"""

from __future__ import annotations

import os
from pathlib import Path

from vault_mem.config import FOLDER_TYPES
from vault_mem.errors import VaultMemError
from vault_mem.model.memory import is_memory_path, parse_memory
from vault_mem.model.policy import mask_secrets
from vault_mem.store.git import GitRepo, Identity
from vault_mem.store.worktree import config_value, dirty_paths, ignored_paths
from vault_mem.vault.core import Vault


def user_identity(repo: GitRepo) -> tuple[Identity, Identity] | str:
    """(author, committer) for external edits: GIT_AUTHOR_*/GIT_COMMITTER_* or the repository's
    ``user.name``/``user.email``; or why there is none."""
    name = os.environ.get("GIT_AUTHOR_NAME") or config_value(repo, "user.name")
    email = os.environ.get("GIT_AUTHOR_EMAIL") or config_value(repo, "user.email")
    if not name or not email:
        return ("no git identity for committing a person's edits (user.name/user.email are not "
                "set); run `git config user.name NAME` and `git config user.email EMAIL` in the vault")
    committer = Identity(os.environ.get("GIT_COMMITTER_NAME") or name,
                         os.environ.get("GIT_COMMITTER_EMAIL") or email)
    return Identity(name, email), committer


def dirty_memory_paths(vault: Vault) -> set[str]:
    """Memory files that differ from HEAD or are untracked (not ignored), per git status."""
    out = set()
    for top in dirty_paths(vault.repo, [vault.prefix + f for f in FOLDER_TYPES]):
        if top.startswith(vault.prefix):
            rel = top[len(vault.prefix):]
            if is_memory_path(rel):
                out.add(rel)
    return out


def drop_ignored(vault: Vault, changes: dict[str, bytes | None], head: str | None) -> dict[str, bytes | None]:
    """New files that .gitignore excludes are a person's choice: never commit them."""
    new = [rel for rel in changes if vault.repo.blob_at(head, vault.prefix + rel) is None]
    if not new:
        return changes
    ignored = {p[len(vault.prefix):] for p in ignored_paths(vault.repo, [vault.prefix + r for r in new])}
    return {rel: data for rel, data in changes.items() if rel not in ignored}


def edit_message(vault: Vault, changes: dict[str, bytes | None], head: str | None, *, quiet: float) -> str:
    """The commit message for ``changes`` (vault-relative path -> new bytes, or None when
    deleted) on top of ``head``: one memory's subject and trailers, or a list of several."""
    repo, prefix = vault.repo, vault.prefix
    by_key: dict[str, dict[str, bytes | None]] = {}
    for rel, data in changes.items():
        by_key.setdefault(Path(rel).stem, {})[rel] = data
    actions: dict[str, tuple[str, str, str]] = {}  # key -> (action, type, description)
    for key, files in by_key.items():
        present = {r: d for r, d in files.items() if d is not None}
        existed = {r for r in files if repo.blob_at(head, prefix + r) is not None}
        if not present:
            action = "forget"
        elif len(files) > 1 and len(present) < len(files):
            action = "move"
        else:
            action = "update" if set(present) <= existed else "create"
        rel = next(iter(present or files))
        data = present.get(rel)
        if data is None:
            blob = repo.blob_at(head, prefix + rel)
            data = repo.read_object(blob)[1] if blob else b""
        try:
            # a deleted file's description comes from HEAD, maybe from a peer's commit that
            # brought a credential (a quarantined file): never quote one in a commit message
            desc = mask_secrets(parse_memory(data.decode("utf-8"), rel).description)
        except (VaultMemError, UnicodeDecodeError):
            desc = "(unreadable)"
        actions[key] = (action, FOLDER_TYPES[rel.split("/", 1)[0]], desc)
    note = (f"Edited outside vault-mem; committed by `vault-mem daemon` after {quiet:g} s "
            "without changes.")
    if len(actions) == 1:
        key, (action, type_, desc) = next(iter(actions.items()))
        return (f"edit: {key} — {desc}\n\n{note}\n\nMemory-Key: {key}\nMemory-Action: {action}\n"
                f"Memory-Type: {type_}\n")
    keys = sorted(actions)
    shown = ", ".join(keys[:5]) + (", ..." if len(keys) > 5 else "")
    lines = "\n".join(f"- {k}: {actions[k][0]} ({actions[k][1]}) — {actions[k][2]}" for k in keys)
    return f"edit: {len(keys)} memories ({shown})\n\n{lines}\n\n{note}\n"
