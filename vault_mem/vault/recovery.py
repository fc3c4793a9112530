"""Crash recovery: finish or roll back a write or a sync that a killed process left behind.

Runs as step 2 of every write transaction, with the write lock held: first an interrupted sync
(it may have moved HEAD), then an interrupted write (its journal, ``.vault-mem/pending.json``).
A journal is data like any other input: its paths must be memory paths inside the vault and its
files must pass the write policy, or it is dropped, never applied.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from vault_mem.config import STATE_DIR
from vault_mem.errors import VaultMemError
from vault_mem.index.sidecar import Sidecar
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.policy import mask_secrets
from vault_mem.store.files import atomic_write, remove_file, remove_temp_files
from vault_mem.store.git import GitRepo
from vault_mem.store.workspace import Workspace
from vault_mem.vault.steps import (
    FOREIGN,
    JOURNAL,
    ROLLBACK,
    failed_writes,
    finish_write,
    read_journal,
    write_index,
)

#: under .vault-mem/: what an interrupted sync must put back (written by vault_mem.sync.replay)
SYNC_JOURNAL = "sync.json"


def recover(ws: Workspace, sidecar: Sidecar) -> list[str]:
    """Finish (or roll back) what a crash interrupted; caller holds the lock. Returns what was
    done, also added to ``ws.notices``."""
    # Every INDEX.md write happens under the write lock, which the caller holds: a temp file of
    # one now was left by a killed process (git status would show it as untracked).
    remove_temp_files(ws.root, INDEX_FILE)
    # git's index.lock or a branch's ref lock a killed vault-mem process left: every git command
    # (and every commit of ours) would fail on it until a person deleted it
    notes = ws.repo.clear_dead_locks()
    held = _held_back(ws)
    if held:
        notes.append(held)
    else:
        notes += [n for n in (recover_sync(ws, sidecar), recover_rollback(ws, sidecar),
                              recover_journal(ws, sidecar)) if n]
    ws.notices.extend(notes)
    return notes


def _held_back(ws: Workspace) -> str | None:
    """Why what a crash left must wait, in words, or None. Finishing or rolling back writes
    files into the work tree, which is not ours while a person's git operation is under way
    (a rebase stopped at a pick, a running pull or checkout) or HEAD is detached: bench/chaos.py
    found an interrupted write's file put back on disk in the middle of a `git pull --rebase
    --autostash` (HEAD detached at the remote's tip, where the file does not exist), its commit
    then refused, and the rebase stuck for good: its next pick, and its --abort, refused to
    overwrite that untracked file, which every later command wrote again. It waits, said once
    per command, until the operation is over."""
    left = [name for name in (SYNC_JOURNAL, ROLLBACK, JOURNAL) if os.path.lexists(ws.state_dir / name)]
    if not left:
        return None  # the common case: no git state asked
    what = "an interrupted sync" if left[0] == SYNC_JOURNAL else "an interrupted write"
    busy = ws.repo.person_operation()
    if busy is not None:
        return f"{what} waits until {busy} is over; its files are left as they are"
    if ws.repo.head_branch() is None:
        return f"{what} waits until HEAD is on a branch again (`git switch <branch>`); its files are left as they are"
    return None


def put_back(ws: Workspace, sidecar: Sidecar, commit: str, paths: Iterable[str]) -> None:
    """Make ``paths`` (vault-relative) as ``commit`` has them; the sidecar and INDEX.md follow."""
    rels = sorted(paths)
    for rel in rels:
        oid = ws.repo.blob_at(commit, ws.top(rel))
        if oid is None:
            (ws.root / rel).unlink(missing_ok=True)
        else:
            atomic_write(ws.root / rel, ws.repo.read_object(oid)[1])
    sidecar.refresh_paths(rels)
    write_index(ws, sidecar)


def _foreign(name: str, done: str) -> str:
    """The notice for the journal ``name`` that :func:`~vault_mem.vault.steps.read_journal` found
    this machine did not write (and removed): nothing of it was ``done``."""
    return (f"ignored and removed {STATE_DIR}/{name}: this machine did not write it (a file planted "
            f"through a commit or copied from elsewhere?); nothing of it was {done}")


def recover_sync(ws: Workspace, sidecar: Sidecar) -> str | None:
    """Finish or roll back a sync that a crash interrupted (caller holds the write lock).

    Before HEAD moved, the touched files are put back as the old HEAD has them; after, only
    git's index is brought up to date. Returns a notice, or None when there was nothing to do."""
    journal = ws.state_dir / SYNC_JOURNAL
    entry = read_journal(ws, SYNC_JOURNAL)
    if entry is None:
        return None
    if entry is FOREIGN:
        return _foreign(SYNC_JOURNAL, "applied")
    try:
        old, new, paths = entry["old"], entry.get("new"), list(entry["paths"])
        if not all(isinstance(p, str) for p in paths):
            raise TypeError("malformed sync journal")
        for rel in paths:
            if rel != INDEX_FILE and "/" in rel:
                ws.check_inside(rel)  # a damaged journal must not name a path outside the vault
            elif rel != INDEX_FILE:
                raise TypeError("malformed sync journal")
    except (ValueError, KeyError, TypeError, OSError, VaultMemError):
        journal.unlink(missing_ok=True)
        return "dropped an unreadable journal of an interrupted sync; check `git status`"
    head = ws.repo.head()
    if head == old:
        put_back(ws, sidecar, old, paths)
        note = "rolled back a sync that was interrupted; nothing was lost, run `vault-mem sync` again"
    elif head == new:
        note = "finished a sync that was interrupted"
    else:
        note = "found the journal of an interrupted sync, but HEAD moved since; check `git status`"
    ws.repo.sync_index(sorted(ws.top(rel) for rel in paths))
    journal.unlink(missing_ok=True)
    return note


def recover_rollback(ws: Workspace, sidecar: Sidecar) -> str | None:
    """Put back the files of a write whose caller was told it failed but which could not put
    them back itself (a full disk): each file that still holds the failed write's bytes gets
    HEAD's version again (or is removed when HEAD has none). Never commits anything."""
    path = ws.state_dir / ROLLBACK
    journal = read_journal(ws, ROLLBACK, sealed_as=JOURNAL)
    if journal is None or journal is FOREIGN:
        return None
    try:
        files: dict[str, str | None] = journal["files"]
        if not isinstance(files, dict) or not all(isinstance(t, str) or t is None for t in files.values()):
            raise TypeError("malformed journal")
        for rel in files:
            ws.check_inside(rel)
    except (ValueError, KeyError, OSError, TypeError, AttributeError, VaultMemError):
        path.unlink(missing_ok=True)
        return None
    head = ws.repo.head()
    for rel, text in files.items():
        p = ws.root / rel
        remove_temp_files(p.parent, p.name)
        if p.is_symlink() or not (p.is_file() if text is not None else not p.exists()):
            continue
        if text is not None and p.read_bytes() != text.encode("utf-8"):
            continue  # someone changed it since: theirs stays
        oid = ws.repo.blob_at(head, ws.top(rel))
        if oid is None:
            p.unlink(missing_ok=True)
        else:
            atomic_write(p, ws.repo.read_object(oid)[1])
    sidecar.refresh_paths(list(files))
    write_index(ws, sidecar)
    path.unlink(missing_ok=True)
    return f"put back the files of a failed write of '{_named(journal.get('key'))}' (it was reported as not written)"


def put_back_failed(ws: Workspace, head: str | None, disk: dict[str, bytes | None]) -> dict[str, str]:
    """Of the files ``disk`` ({vault-relative path: bytes on disk}) about to be committed as a
    person's edits, put back HEAD's version of each that holds exactly the bytes of an agent
    write reported failed (a ``git stash`` taken while it was on disk, popped after it failed,
    brings them back: found by bench/chaos.py with a ``git pull --rebase --autostash``).
    Committing them would land a write its caller was told never happened. Returns
    {path: why it was left out}; the caller refreshes the index."""
    failed = set(failed_writes(ws))
    out: dict[str, str] = {}
    for rel, data in disk.items():
        if data is None or not failed or GitRepo.blob_id(data) not in failed:
            continue
        oid = ws.repo.blob_at(head, ws.top(rel))
        try:
            if oid is None:
                remove_file(ws.root / rel, expect=data)
            else:
                atomic_write(ws.root / rel, ws.repo.read_object(oid)[1], expect=data)
        except (VaultMemError, OSError):
            continue  # changed again meanwhile: looked at on the next round
        out[rel] = ("held the bytes of an agent write that was reported as not written (brought back by "
                    "a git stash pop or autostash?); HEAD's version is back on disk")
    return out


def recover_journal(ws: Workspace, sidecar: Sidecar) -> str | None:
    """Finish a write that a crash interrupted (caller holds the lock).

    The journal holds the intended content of every file of the write. Each file on disk
    is either already the new version, still the committed old one (the write is redone), or
    something else: a person edited it since, and then the journal is dropped, not applied."""
    path = ws.state_dir / JOURNAL
    journal = read_journal(ws, JOURNAL)
    if journal is None:
        return None
    if journal is FOREIGN:
        return _foreign(JOURNAL, "applied or committed")
    try:
        files: dict[str, str | None] = journal["files"]
        message: str = journal["message"]
        if not isinstance(files, dict) or not isinstance(message, str) or \
                not all(isinstance(t, str) or t is None for t in files.values()):
            raise TypeError("malformed journal")
        for rel in files:
            ws.check_inside(rel)  # a damaged journal must not name a path outside the vault
    except (ValueError, KeyError, OSError, TypeError, AttributeError, VaultMemError):
        path.unlink(missing_ok=True)
        return "dropped an unreadable journal of an interrupted write"
    try:  # what the journal would write passes the write policy like any write
        for rel, text in files.items():
            if text is not None:
                ws.policy.check_file(rel, text.encode("utf-8"))
        author = ws.identity(journal.get("agent") if isinstance(journal.get("agent"), str) else None)
        ws.policy.check_message(message, identity=(author.name, author.email))
    except VaultMemError as exc:
        path.unlink(missing_ok=True)
        return (f"dropped the journal of an interrupted write of '{_named(journal.get('key'))}': {exc} "
                "Its files were left as they are; check them with `git status`")
    head = ws.repo.head()
    for rel, text in files.items():
        p = ws.root / rel
        disk = GitRepo.blob_id(p.read_bytes()) if p.is_file() and not p.is_symlink() else \
            ("link" if p.is_symlink() else None)
        want = GitRepo.blob_id(text.encode("utf-8")) if text is not None else None
        if disk not in (want, ws.repo.blob_at(head, ws.top(rel))):
            path.unlink(missing_ok=True)
            return (f"an interrupted write of '{_named(journal.get('key'))}' was not finished: {rel} "
                    "changed since; check it with `git status`")
    for rel, text in files.items():
        p = ws.root / rel
        remove_temp_files(p.parent, p.name)  # the killed writer's half-written temp file
        if text is None:
            p.unlink(missing_ok=True)
        else:
            atomic_write(p, text.encode("utf-8"))
    finish_write(ws, sidecar, {rel: (text.encode("utf-8") if text is not None else None) for rel, text in files.items()},
                 message, author.name)
    return f"finished an interrupted write of '{_named(journal.get('key'))}'"


def _named(key: object) -> str:
    """A journal's key as a notice may quote it: the journal is data, so a credential in it is
    masked (a notice reaches the agent and the terminal)."""
    return mask_secrets(str(key))[:100]
