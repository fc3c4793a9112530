"""Committing edits made outside vault-mem: whose identity, which files, what message.

A person's hand edit is committed in the person's name, through the same WritePolicy as an
agent's write (a file holding a credential, a malformed file, is not committed and is reported),
with INDEX.md regenerated beside it. Used by the daemon after a quiet period and by
``vault-mem edit`` when the editor closes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vault_mem.config import FOLDER_TYPES
from vault_mem.errors import GitError, IdentityError, VaultMemError
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import is_memory_path, parse_memory
from vault_mem.model.policy import mask_secrets
from vault_mem.model.trailers import memory_trailers
from vault_mem.store.files import atomic_write
from vault_mem.store.git import GitRepo, Identity
from vault_mem.store.history import earlier_versions
from vault_mem.store.worktree import ignored_paths, staged_blob
from vault_mem.vault.core import Vault
from vault_mem.vault.person import commit_persons_index, user_identity
from vault_mem.vault.recovery import put_back_failed, recover_rollback
from vault_mem.vault.steps import commit_index


def drop_ignored(vault: Vault, changes: dict[str, bytes | None], head: str | None) -> dict[str, bytes | None]:
    """New files that .gitignore excludes are a person's choice: never commit them."""
    held = vault.repo.blobs_at(head, [vault.prefix + rel for rel in changes])
    new = [rel for rel in changes if held[vault.prefix + rel] is None]
    if not new:
        return changes
    ignored = {p[len(vault.prefix):] for p in ignored_paths(vault.repo, [vault.prefix + r for r in new])}
    return {rel: data for rel, data in changes.items() if rel not in ignored}


def edit_message(vault: Vault, changes: dict[str, bytes | None], head: str | None, *, note: str) -> str:
    """The commit message for ``changes`` (vault-relative path -> new bytes, or None when
    deleted) on top of ``head``: one memory's subject and trailers, or a list of several;
    ``note`` says how the edit came to be committed."""
    repo, prefix = vault.repo, vault.prefix
    by_key: dict[str, dict[str, bytes | None]] = {}
    for rel, data in changes.items():
        by_key.setdefault(Path(rel).stem, {})[rel] = data
    actions: dict[str, tuple[str, str, str]] = {}  # key -> (action, type, description)
    held = repo.blobs_at(head, [prefix + rel for rel in changes])
    for key, files in by_key.items():
        present = {r: d for r, d in files.items() if d is not None}
        existed = {r for r in files if held[prefix + r] is not None}
        if not present:
            action = "forget"
        elif len(files) > 1 and len(present) < len(files):
            action = "move"
        else:
            action = "update" if set(present) <= existed else "create"
        rel = next(iter(present or files))
        data = present.get(rel)
        if data is None:
            blob = held[prefix + rel]
            data = repo.read_object(blob)[1] if blob else b""
        try:
            # a deleted file's description comes from HEAD, maybe from a peer's commit that
            # brought a credential (a quarantined file): never quote one in a commit message
            desc = mask_secrets(parse_memory(data.decode("utf-8"), rel).description)
        except (VaultMemError, UnicodeDecodeError):
            desc = "(unreadable)"
        actions[key] = (action, FOLDER_TYPES[rel.split("/", 1)[0]], desc)
    if len(actions) == 1:
        key, (action, type_, desc) = next(iter(actions.items()))
        return f"edit: {key} — {desc}\n\n{note}\n\n{memory_trailers(key=key, action=action, type_=type_)}"
    keys = sorted(actions)
    shown = ", ".join(keys[:5]) + (", ..." if len(keys) > 5 else "")
    lines = "\n".join(f"- {k}: {actions[k][0]} ({actions[k][1]}) — {actions[k][2]}" for k in keys)
    return f"edit: {len(keys)} memories ({shown})\n\n{lines}\n\n{note}\n"


@dataclass
class HandEditCommit:
    """What :func:`commit_hand_edits` did: the commit (None: nothing to commit), the files it
    committed, each file it left out with the reason, and the author of a commit of files."""

    commit: str | None = None
    committed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    author: Identity | None = None


def commit_hand_edits(vault: Vault, paths: list[str], *, who: tuple[Identity, Identity] | None = None,
                      note: str, index_why: str, keep_newest: bool = False) -> HandEditCommit:
    """Commit the memory files ``paths`` (vault-relative) as they are on disk, with INDEX.md
    generated from the tree being committed, in the person's name. With no file to commit,
    INDEX.md alone when a person's git operation left the committed one stale
    (:func:`~vault_mem.vault.person.commit_persons_index`, the one rule; ``index_why`` is its
    message's body). The caller holds the vault's write lock and has checked that git is not
    mid-operation. A file that the sidecar cannot use, that the
    WritePolicy refuses, or that .gitignore excludes is left out (``skipped``), never changed.
    ConcurrentEditError (nothing committed) when a file no longer holds what was read when the
    commit would land (:meth:`~vault_mem.store.git.GitRepo.commit_paths`' ``on_disk``).

    ``who``: (author, committer); without it the person's identity is asked only once there is
    something to commit (:class:`~vault_mem.errors.IdentityError` then, nothing committed), so a
    round that owes nothing never says an identity is missing. ``author`` of the result: whose
    commit it is."""
    repo = vault.repo
    # a write reported failed whose files could not be put back (a full disk) is never
    # committed as a person's edit: its files are put back first
    recover_rollback(vault.ws, vault.sidecar)
    report = vault.sidecar.refresh_paths(paths, embed=False)
    vault.write_index()
    out = HandEditCommit(skipped={p.path: p.reason for p in report.problems})
    head = repo.head()
    changes: dict[str, bytes | None] = {}
    for rel in paths:
        if rel in out.skipped:
            continue
        try:
            data = vault.ws.disk_bytes(rel)  # never through a link (one swapped in meanwhile)
        except VaultMemError as exc:
            out.skipped[rel] = str(exc)
            continue
        committed = repo.blob_at(head, vault.prefix + rel)
        if (data is None and committed is None) or (data is not None and committed == GitRepo.blob_id(data)):
            continue
        failed = put_back_failed(vault.ws, head, {rel: data})
        if failed:
            out.skipped.update(failed)
            vault.sidecar.refresh_paths([rel], embed=False)
            vault.write_index()
            continue
        if keep_newest and data is not None and committed is not None:
            older = _older_version(vault, head, rel, data, committed)
            if older:
                out.skipped[rel] = older
                continue
        if data is not None:
            try:  # the one WritePolicy: a hand edit holding a credential is not committed
                vault.ws.policy.check_file(rel, data)
            except VaultMemError as exc:
                out.skipped[rel] = str(exc)
                continue
        changes[rel] = data
    kept = drop_ignored(vault, changes, head)
    for rel in set(changes) - set(kept):
        out.skipped[rel] = ".gitignore excludes it"
    files = {vault.prefix + rel: data for rel, data in kept.items()}
    if not files and out.skipped:
        # INDEX.md on disk now leaves out the file that was refused (a quarantined memory is not
        # listed), while the committed file is still the last good one: nothing to commit alone
        return out
    if not files:
        # INDEX.md alone, in the person's name, only by the one rule for that (a person's git
        # operation left the committed INDEX.md stale): never for vault-mem's own catching up
        # (a memory that expired), which the next agent commit carries
        out.commit = commit_persons_index(vault.ws, vault.sidecar, index_why, mode="on")
        return out
    author, committer = who or user_identity(repo)
    out.author = author
    message = edit_message(vault, kept, head, note=note)
    # the one WritePolicy, as for an agent commit: the message and the identity
    vault.ws.policy.check_message(message, identity=(author.name, author.email))
    # INDEX.md as generated from the tree being committed (as for an agent commit), never the
    # bytes on disk: those list every file there, a memory .gitignore keeps out of git too, and
    # may be a person's or a peer's hand-made INDEX.md
    def on_disk() -> bool:  # still what was read: a person's `git stash` may have run meanwhile
        try:
            return all(vault.ws.disk_bytes(rel) == data for rel, data in kept.items())
        except VaultMemError:
            return False

    out.commit = repo.commit_paths(files, message, author=author, committer=committer,
                                   derived=(vault.prefix + INDEX_FILE,
                                            lambda parent: commit_index(vault.ws, vault.sidecar, list(kept), parent)),
                                   on_disk=on_disk)
    out.committed = sorted(kept)
    if out.commit:
        vault.sidecar.set_meta("head", out.commit)
    return out


def differing_paths(vault: Vault, paths: set[str]) -> list[str]:
    """Of the vault-relative ``paths``, the memory files whose bytes on disk differ from HEAD's
    (a read and a hash each, no git process)."""
    repo = vault.repo
    head = repo.head()
    out = []
    for rel in sorted(paths):
        if not is_memory_path(rel):
            continue
        try:
            data = vault.ws.disk_bytes(rel)
        except VaultMemError:
            continue
        if data is not None and repo.blob_at(head, vault.prefix + rel) != GitRepo.blob_id(data):
            out.append(rel)
    return out


def put_back_stale(vault: Vault, paths: list[str], *, held: frozenset[str] = frozenset()) -> dict[str, str]:
    """Of the memory files ``paths`` (vault-relative, differing from HEAD), put HEAD's version
    back in place of what no person wrote: the bytes of an agent write reported failed, and an
    unstaged older version of the branch's (what a ``git stash pop``, ``reset`` or ``checkout``
    brings back). The same two checks :func:`commit_hand_edits` makes before committing, made
    at once after a person's git operation: a person's ``git checkout`` of another branch was
    refused for such a file ("would be overwritten") until the daemon's quiet period, behind
    busy agents, was over. Returns {path: what was done}; the caller holds the write lock, or
    its work-tree part beside a write that waits for git, whose files (``held``, none of
    ``paths``) INDEX.md shows as HEAD holds them."""
    repo = vault.repo
    head = repo.head()
    out: dict[str, str] = {}
    for rel in paths:
        try:
            data = vault.ws.disk_bytes(rel)  # never through a link
        except VaultMemError:
            continue
        committed = repo.blob_at(head, vault.prefix + rel)
        if data is None or committed == GitRepo.blob_id(data):
            continue
        failed = put_back_failed(vault.ws, head, {rel: data})
        if failed:
            out.update(failed)
            vault.sidecar.refresh_paths([rel], embed=False)
            vault.write_index(held=held)
        elif committed is not None:
            older = _older_version(vault, head, rel, data, committed, held)
            if older:
                out[rel] = older
    return out


def _older_version(vault: Vault, head: str, rel: str, data: bytes, committed: str,
                   held: frozenset[str] = frozenset()) -> str | None:
    """When the file on disk holds, unstaged, a version the branch had before HEAD's (what a
    ``git stash`` taken while an agent's write was landing, a ``reset`` or a ``checkout`` of an
    older state leaves), put HEAD's newer version back on disk and say so; else None. Committing
    it would undo the newer version in the person's name. A version the person staged is
    theirs to commit, and is left alone."""
    top = vault.prefix + rel
    blob = GitRepo.blob_id(data)
    was = earlier_versions(vault.repo, head, top).get(blob)
    if was is None:
        return None
    try:
        if GitRepo.blob_id(staged_blob(vault.repo, top)) != committed:
            return None  # staged by the person: a deliberate change
    except VaultMemError:
        return None
    try:
        atomic_write(vault.root / rel, vault.repo.read_object(committed)[1], expect=data)
    except (VaultMemError, OSError):
        return None  # changed again meanwhile: looked at on the next round
    vault.sidecar.refresh_paths([rel], embed=False)
    vault.write_index(held=held)
    return (f"held an older version (from commit {was[:10]}) than the branch's, brought back by a git "
            "operation (stash, reset, checkout?); the newest version, HEAD's, is back on disk "
            "(commit it yourself with `git commit` if the older one was meant)")


def check_edit(vault: Vault) -> tuple[Identity, Identity]:
    """What committing a person's edit needs, asked before the editor opens (``vault-mem edit``):
    their git identity (:class:`~vault_mem.errors.IdentityError` says how to set one) and a git
    state a write may commit in (not mid-merge, HEAD on a branch). An edit made first and refused
    after was left on disk uncommitted. Returns (author, committer)."""
    try:
        who = user_identity(vault.repo)
    except IdentityError as exc:  # a refusal: what to do next is said here
        raise IdentityError(f"{exc}; then run `vault-mem edit` again") from None
    vault.check_git_state()
    check_no_replay(vault)
    return who


def check_no_replay(vault: Vault) -> None:
    """Refuse a person's commit of hand edits while git holds a squash, pick or revert that no
    commit concludes yet (:meth:`~vault_mem.store.git.GitRepo.concluding_replay`: SQUASH_MSG, or
    MERGE_MSG alone after ``cherry-pick -n``, which :meth:`~vault_mem.vault.core.Vault.check_git_state`
    does not see, as they leave no head). The memory files git merged then are no one's vouched
    text, and the daemon waits (:func:`vault_mem.daemon.keeper.git_busy`); ``vault-mem edit``
    committed such a file, a peer's instruction merged into the person's pinned memory, as the
    person's own edit recorded as made here (trust24). The person's ``git commit`` concludes it
    (judged by the hooks as a replay); ``git reset --merge`` ends one undone by hand."""
    if vault.repo.concluding_replay():
        raise GitError("git holds a squash, cherry-pick or revert that no commit concludes yet (SQUASH_MSG, "
                       "CHERRY_PICK_HEAD, REVERT_HEAD or MERGE_MSG in the git folder); the memory files it "
                       "changed are no one's edit until then, and committing one here would make its merged "
                       "lines yours. Conclude it with `git commit` (or, if you undid it, `git reset --merge`, "
                       "which keeps your unstaged edits), then edit again; nothing was changed")


def differs_from_head(vault: Vault, rel: str) -> bool:
    """Whether memory file ``rel`` (vault-relative) on disk is not what HEAD holds (changed,
    added or deleted): what ``vault-mem edit`` commits, whoever changed it and when."""
    repo = vault.repo
    data = vault.ws.disk_bytes(rel)  # never through a link
    committed = repo.blob_at(repo.head(), vault.prefix + rel)
    if data is None:
        return committed is not None
    return committed != GitRepo.blob_id(data)


def commit_edit(vault: Vault, rel: str, *, who: tuple[Identity, Identity], note: str) -> HandEditCommit:
    """Commit memory file ``rel`` as it is on disk now, when it differs from HEAD (what ``vault-mem
    edit`` does when the editor closes: the edit of this session, and one an earlier session left
    uncommitted): in the name ``who`` (:func:`check_edit`'s answer), under the vault's write lock,
    with the same refusals as an agent write while git is mid-merge or HEAD is detached."""
    with vault.lock:
        vault.check_git_state()
        check_no_replay(vault)
        return commit_hand_edits(vault, [rel], who=who, note=note,
                                 index_why="INDEX.md no longer matched the committed memory files after a git "
                                           "operation of yours; committed by `vault-mem edit`.")
