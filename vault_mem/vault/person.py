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
from typing import TYPE_CHECKING

from vault_mem.errors import GitError
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import is_memory_path
from vault_mem.store.files import current_bytes
from vault_mem.store.git import GitRepo, Identity
from vault_mem.store.history import changed_entries, head_branch
from vault_mem.store.workspace import Workspace
from vault_mem.store.worktree import config_values
from vault_mem.vault.steps import changed_memory_paths, commit_index

if TYPE_CHECKING:
    from vault_mem.index.sidecar import Sidecar

__all__ = ["autocommit", "commit_index_alone", "commit_stale_index", "user_identity"]


def user_identity(repo: GitRepo) -> tuple[Identity, Identity] | str:
    """(author, committer) for external edits: GIT_AUTHOR_*/GIT_COMMITTER_* or the repository's
    ``user.name``/``user.email``; or why there is none."""
    name, email = os.environ.get("GIT_AUTHOR_NAME"), os.environ.get("GIT_AUTHOR_EMAIL")
    if not name or not email:  # both from one git process
        config = config_values(repo, "user.name", "user.email")
        name, email = name or config["user.name"], email or config["user.email"]
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


def commit_index_alone(ws: Workspace, sidecar: Sidecar, message: str) -> str | None:
    """Commit INDEX.md alone, in the person's name, when the one on disk differs from HEAD's and
    no memory file is dirty (a person's uncommitted edit is committed with its own INDEX.md,
    later). What is committed is INDEX.md generated from the committed memory files
    (:func:`~vault_mem.vault.steps.commit_index`, for the commit it lands on), never the bytes
    found on disk: those may be a person's or a peer's hand-made INDEX.md, which a message
    saying "regenerated" would then credit to vault-mem. The file on disk is left as it is.
    The caller holds the vault's write lock and has checked that no person's git operation is
    under way. The commit, or None (nothing to commit, HEAD detached, no git identity)."""
    repo = ws.repo
    if head_branch(repo) is None or isinstance(who := user_identity(repo), str):
        return None
    data = current_bytes(ws.root / INDEX_FILE)
    if data is None or repo.blob_at(repo.head(), ws.top(INDEX_FILE)) == GitRepo.blob_id(data):
        return None
    if changed_memory_paths(ws):
        return None
    return repo.commit_paths({}, message, author=who[0], committer=who[1],
                             derived=(ws.top(INDEX_FILE), lambda parent: commit_index(ws, sidecar, [], parent)))


#: the subject of every commit of INDEX.md alone, in the person's name; the body says why
INDEX_ALONE_SUBJECT = "index: regenerate INDEX.md"


def index_alone_message(why: str = "") -> str:
    """The message of a commit of INDEX.md alone: :data:`INDEX_ALONE_SUBJECT`, then ``why``."""
    return f"{INDEX_ALONE_SUBJECT}\n" + (f"\n{why}\n" if why else "")


#: the message of INDEX.md committed alone because a person's commit left it stale
STALE_INDEX_MESSAGE = index_alone_message(
    "The memory files of HEAD changed in commits made without vault-mem's "
    "pre-commit hook (a git revert or cherry-pick, `git commit --no-verify`, a peer's commit a pull brought "
    "in), which left INDEX.md as it was; regenerated from the committed memory files by the next vault-mem "
    "write.")


def commit_stale_index(ws: Workspace, sidecar: Sidecar) -> str | None:
    """Before an agent commit: when HEAD is a commit no vault-mem process made (the sidecar's
    ``head`` differs) and its INDEX.md is not the one its memory files give, commit that INDEX.md
    alone, in the person's name. A ``git revert`` or ``cherry-pick`` runs no pre-commit hook: its
    commit keeps the old INDEX.md, and the agent commit made next carried the catching up, so
    ``git log -p`` credited the agent with the person's revert (issue 25 item 7); the same after
    a ``git pull`` that brought in a peer's memory without its INDEX.md line. Only when the
    commits since the one the sidecar last saw changed memory files and not INDEX.md, so
    rendered only after such a commit, not on every write. The caller holds
    the write lock and has checked the git state. The commit, or None (nothing stale, a vault
    whose commits are the person's, no git identity: the agent commit carries it, as before)."""
    repo = ws.repo
    head, seen = repo.head(), sidecar.get_meta("head")
    if head is None or seen is None or head == seen or not autocommit(ws):
        return None  # seen None (a fresh clone, a rebuilt index): the agent commit carries it, as before
    # Only a person's commits that changed memory files and left INDEX.md as it was (no hook
    # ran) are caught up in their name: INDEX.md also differs from a fresh render when a memory
    # expired since, or the secret gate now holds one back, which is vault-mem's own doing and
    # goes into the agent commit, never into a commit credited to the person
    try:
        changed = changed_entries(repo, seen, head, ws.prefix or ".")
    except GitError:
        return None  # the commit last seen is gone (a gc): as above
    if ws.top(INDEX_FILE) in changed or not any(is_memory_path(p.removeprefix(ws.prefix)) for p in changed):
        return None
    if isinstance(who := user_identity(repo), str):
        return None
    oid = repo.blob_at(head, ws.top(INDEX_FILE))
    if oid is not None and oid == GitRepo.blob_id(commit_index(ws, sidecar, [], head)):
        return None
    commit = repo.commit_paths({}, STALE_INDEX_MESSAGE, author=who[0], committer=who[1],
                               derived=(ws.top(INDEX_FILE), lambda parent: commit_index(ws, sidecar, [], parent)))
    if commit:
        sidecar.set_meta("head", commit)
    return commit
