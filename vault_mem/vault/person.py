"""What vault-mem does in the person's name, never an agent's: the person's git identity, and
INDEX.md committed alone once it caught up with the person's own git operation.

A person's git operation (a revert, merge or pull made without vault-mem's git hooks) commits
memory files with an INDEX.md that no longer lists them as they are; a command that ran meanwhile
had to hold INDEX.md back (:func:`vault_mem.vault.steps.write_index`). The next agent commit would
then carry INDEX.md's catching up, and ``git log -p`` would credit the agent with the person's
change: so the catching up is committed alone, in the person's name, by the next command.
"""

from __future__ import annotations

import os

from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.store.files import current_bytes
from vault_mem.store.git import GitRepo, Identity
from vault_mem.store.history import head_branch
from vault_mem.store.workspace import Workspace
from vault_mem.store.worktree import config_value
from vault_mem.vault.steps import changed_memory_paths

__all__ = ["autocommit", "commit_index_alone", "user_identity"]


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


def autocommit(ws: Workspace, mode: str | None = None) -> bool:
    """Whether changes made outside vault-mem are committed in the person's name:
    ``commit_external_edits`` (``mode`` overrides vault.toml's) "on", or "auto" in a standalone
    vault (a vault inside a larger repository leaves its commits to the person)."""
    mode = mode or ws.config.commit_external_edits
    return mode == "on" or (mode == "auto" and ws.prefix == "")


def commit_index_alone(ws: Workspace, message: str) -> str | None:
    """Commit INDEX.md as it is on disk, alone and in the person's name, when it differs from
    HEAD's and no memory file is dirty (then it follows from committed files only: a person's
    uncommitted edit is committed with its own INDEX.md, later). The caller holds the vault's
    write lock and has checked that no person's git operation is under way. The commit, or None
    (nothing to commit, HEAD detached, no git identity)."""
    repo = ws.repo
    if head_branch(repo) is None or isinstance(who := user_identity(repo), str):
        return None
    data = current_bytes(ws.root / INDEX_FILE)
    if data is None or repo.blob_at(repo.head(), ws.top(INDEX_FILE)) == GitRepo.blob_id(data):
        return None
    if changed_memory_paths(ws):
        return None
    return repo.commit_paths({ws.top(INDEX_FILE): data}, message, author=who[0], committer=who[1])
