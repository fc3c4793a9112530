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

from vault_mem.errors import IdentityError
from vault_mem.model.indexmd import INDEX_FILE, forms
from vault_mem.model.names import shell_word
from vault_mem.store.git import GitRepo, Identity
from vault_mem.store.history import head_branch
from vault_mem.store.workspace import Workspace
from vault_mem.store.worktree import config_values
from vault_mem.vault import committed
from vault_mem.vault.steps import commit_index, stale_by_persons_commits

if TYPE_CHECKING:
    from vault_mem.index.sidecar import Sidecar

__all__ = ["autocommit", "commit_persons_index", "index_alone_message", "user_identity"]


def user_identity(repo: GitRepo) -> tuple[Identity, Identity]:
    """(author, committer) for a commit in the person's name: GIT_AUTHOR_*/GIT_COMMITTER_* or
    git's ``user.name``/``user.email`` (the repository's, the person's global or the system's);
    :class:`IdentityError` saying how to set them when there is none. Asked before anything is
    done that such a commit would finish (``vault-mem edit`` asks before the editor opens)."""
    name, email = os.environ.get("GIT_AUTHOR_NAME"), os.environ.get("GIT_AUTHOR_EMAIL")
    if not name or not email:  # both from one git process
        config = config_values(repo, "user.name", "user.email")
        name, email = name or config["user.name"], email or config["user.email"]
    if not name or not email:
        missing = [k for k, v in (("user.name", name), ("user.email", email)) if not v]
        top = shell_word(str(repo.toplevel))
        # what happens next is the caller's to say (a refusal: retry; a warning beside a write that
        # succeeded: the next commit carries it), so the message ends with how to set them
        raise IdentityError(
            f"no git identity to commit in your name: git's {' and '.join(missing)} "
            f"{'are' if len(missing) > 1 else 'is'} not set (set {'them' if len(missing) > 1 else 'it'} for this "
            f"vault with `git -C {top} config user.name 'Your Name'` and `git -C {top} config user.email "
            "you@example.com`, or for every repository with `git config --global user.name 'Your Name'` and "
            "`git config --global user.email you@example.com`)")
    committer = Identity(os.environ.get("GIT_COMMITTER_NAME") or name,
                         os.environ.get("GIT_COMMITTER_EMAIL") or email)
    return Identity(name, email), committer


def autocommit(ws: Workspace, mode: str | None = None) -> bool:
    """Whether changes made outside vault-mem are committed in the person's name:
    ``commit_external_edits`` (``mode`` overrides vault.toml's) "on", or "auto" in a standalone
    vault (a vault inside a larger repository leaves its commits to the person)."""
    mode = mode or ws.config.commit_external_edits
    return mode == "on" or (mode == "auto" and ws.prefix == "")


#: the subject of every commit of INDEX.md alone, in the person's name; the body says why
INDEX_ALONE_SUBJECT = "index: regenerate INDEX.md"


def index_alone_message(why: str = "") -> str:
    """The message of a commit of INDEX.md alone: :data:`INDEX_ALONE_SUBJECT`, then ``why``."""
    return f"{INDEX_ALONE_SUBJECT}\n" + (f"\n{why}\n" if why else "")


#: the body of INDEX.md committed alone because a person's git operation left it stale
STALE_INDEX_WHY = ("The memory files of HEAD changed in commits made without vault-mem's pre-commit hook (a "
                   "git revert or cherry-pick, `git commit --no-verify`, a merge, a peer's commit a pull brought "
                   "in), which left INDEX.md as it was; regenerated from the committed memory files by vault-mem.")


def commit_persons_index(ws: Workspace, sidecar: Sidecar, why: str = STALE_INDEX_WHY, *,
                         mode: str | None = None, rendered: bytes | None = None) -> str | None:
    """Commit INDEX.md alone, in the person's name, when a person's own git operation left the
    committed INDEX.md stale: the one home of the rule "when may vault-mem commit INDEX.md in the
    person's name", asked by the next agent write before its commit, by the next command once a
    person's operation that held INDEX.md back is over, by the daemon at its start (one it
    killed before its commit of INDEX.md), by the daemon's and ``vault-mem edit``'s commit
    of hand edits when no file is left to commit (:func:`~vault_mem.vault.hand_edits.commit_hand_edits`),
    and by a sync that fast-forwards over a peer's commits (:mod:`vault_mem.sync.remote`, which
    pushes the commit with the rest).

    It fires when all of these hold, and never otherwise:

    - a person's git operation made HEAD: HEAD is not the commit vault-mem last made or saw
      (the sidecar's ``head``), and the commits since it (since the fork, for a checkout of a
      branch that forked off before it) changed memory files, or vault.toml (its ``[index]``
      budget), but left INDEX.md as it was. That is a ``git revert`` or ``cherry-pick`` (no
      pre-commit hook runs), a ``git commit --no-verify``, a merge, or a pull that brought a
      peer's memory without its INDEX.md line. Never after an ordinary commit through the hook:
      the hook regenerates INDEX.md, so the commit changes it. Never for a change vault-mem
      made: its commits carry their own INDEX.md and move the sidecar's ``head``; and a change
      of INDEX.md with no such commit behind it (a memory that expired, the secret gate now
      holding one back) is vault-mem's own catching up, carried by the next agent commit; until
      then INDEX.md on disk stays HEAD's (:func:`~vault_mem.vault.steps.write_index`), so the
      person's work tree is clean;
    - HEAD's INDEX.md is not the one HEAD's memory files give;
    - the vault's commits of outside changes are the person's (``commit_external_edits``, or
      ``mode``, the daemon's override: :func:`autocommit`), HEAD is on a branch, no person's git
      operation is under way (a merge, rebase, pull, checkout, stash ...).

    When all hold and the person has no git identity, :class:`IdentityError` says how to set one
    (the callers turn it into a warning or a notice; the next agent commit then carries INDEX.md).

    What is committed is INDEX.md generated from HEAD's memory files
    (:func:`~vault_mem.vault.steps.commit_index`), never the bytes on disk: a person's or a
    peer's hand-made INDEX.md, or one listing a memory .gitignore keeps out of git, which a
    message saying "regenerated" would then credit to vault-mem. A person's uncommitted edit
    is therefore never in it (its own commit carries its line later). The file on disk is left
    as it is; the sidecar's ``head`` moves to the new commit. ``why``: the message's body. The
    caller holds the vault's write lock. The commit, or None (nothing to commit, or the rule
    says no: the next agent commit then carries INDEX.md, as before).

    ``rendered``: INDEX.md as the caller just rendered it from a work tree that holds HEAD's
    files (a sync's fast-forward, :mod:`vault_mem.sync.remote`). When it is HEAD's INDEX.md, the
    commits taken carried their own (an agent's, through the hook): nothing is stale, and the
    rule is not asked (its checks cost a ``git diff-tree`` for the committed view); only a
    hookless commit's INDEX.md, which differs, costs processes: the commit's own."""
    if rendered is not None:
        head = ws.repo.head()
        if head is None or ws.repo.blob_at(head, ws.top(INDEX_FILE)) in _ids(rendered):
            return None
    head = _persons_operation_behind(ws, sidecar, mode)
    if head is None:
        return None
    repo = ws.repo
    oid = repo.blob_at(head, ws.top(INDEX_FILE))
    if oid is not None and oid in _ids(commit_index(ws, sidecar, [], head)):
        return None  # as committed (an older vault-mem's INDEX.md of the same lines too: no commit for the note alone)
    # the rule says commit: without an identity that is said (IdentityError, how to set one),
    # never skipped in silence, which left the next agent commit to carry the person's change
    who = user_identity(repo)
    commit = repo.commit_paths({}, index_alone_message(why), author=who[0], committer=who[1],
                               derived=(ws.top(INDEX_FILE), lambda parent: commit_index(ws, sidecar, [], parent)))
    if commit:
        sidecar.set_meta("head", commit)
        # INDEX.md alone, a regular file, no memory file: the next command's check of HEAD's
        # tree asks git nothing, and the committed view (which commit_index brought to HEAD)
        # moves on to it, so the next sync's check asks only what that sync asks anyway
        ws.own_commit_landed(head, commit, {INDEX_FILE: True})
        committed.after_commit(ws, sidecar, commit, head, {})
    return commit


def _ids(index: bytes) -> set[str]:
    """The blob ids of INDEX.md ``index`` as this code and older ones write it
    (:func:`~vault_mem.model.indexmd.forms`)."""
    return {GitRepo.blob_id(form) for form in forms(index)}


def _persons_operation_behind(ws: Workspace, sidecar: Sidecar, mode: str | None) -> str | None:
    """HEAD when a person's git operation made HEAD and changed what INDEX.md is made of (memory
    files, vault.toml's settings) without changing INDEX.md, and vault-mem may commit in their
    name now (its identity is asked after); else None (see :func:`commit_persons_index`)."""
    if not autocommit(ws, mode):
        return None
    head = stale_by_persons_commits(ws, sidecar)
    if head is None:
        return None
    repo = ws.repo
    if head_branch(repo) is None or repo.person_operation() is not None:
        return None
    return head
