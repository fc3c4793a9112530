"""Crash safety for vault writes: atomic file writes and the write journal.

An agent write journals its intent (``.vault-mem/pending.json``: every file's new content and
the commit message), writes the files atomically, then brings the sidecar and INDEX.md up to
date and commits (:func:`commit_change`). A crash at any point leaves either the old file or the
new one, and :func:`recover_journal` lets the next writer finish the write or report it.

Kept apart from vault.py, which decides *what* to write (validation, policy, the memory's new
content), so that the all-or-nothing mechanics live in one place; sync.py's replay uses the same
atomic writes and crash-test checkpoints.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from vault_mem.errors import VaultMemError
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.store.git import GitRepo

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

JOURNAL = "pending.json"


def remove_temp_files(folder: Path, name: str) -> None:
    """Delete the temp files that :func:`atomic_write` makes for ``folder/name`` (call with the
    write lock held: then no live writer owns one)."""
    for tmp in folder.glob(f".{name}.vault-mem-tmp-*"):
        tmp.unlink(missing_ok=True)


def atomic_write(path: Path, data: bytes) -> None:
    """Temp file in the same folder, fsync, rename, fsync the folder: all or nothing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.vault-mem-tmp-{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def checkpoint(name: str, state_dir: Path) -> None:
    """Test hook for crash tests: with ``VAULT_MEM_PAUSE_AT=name`` the process announces the
    point in ``state_dir/paused-<name>`` and waits there to be killed."""
    if os.environ.get("VAULT_MEM_PAUSE_AT") == name:
        (state_dir / f"paused-{name}").write_text(str(os.getpid()))
        while True:
            time.sleep(1)


def commit_change(vault: Vault, changes: dict[str, bytes | None], subject: str, *, key: str,
                  action: str, type_: str, agent: str | None, extra_trailers: str = "") -> str | None:
    """Journal, write files, update sidecar and INDEX.md, commit; caller holds the lock."""
    who = agent or vault.agent
    message = (f"{subject}\n\nMemory-Key: {key}\nMemory-Action: {action}\n"
               f"Memory-Type: {type_}\nAgent: {who}\n{extra_trailers}")
    journal = {"key": key, "action": action, "message": message, "agent": who,
               "files": {p: (d.decode("utf-8") if d is not None else None) for p, d in changes.items()}}
    for rel in changes:
        vault._check_inside(rel)
    checkpoint("before-write", vault.state_dir)
    atomic_write(vault.state_dir / JOURNAL, json.dumps(journal).encode())
    for rel, data in changes.items():
        path = vault.root / rel
        if data is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write(path, data)
    checkpoint("after-write", vault.state_dir)
    return finish_write(vault, list(changes), message, who)


def finish_write(vault: Vault, rels: list[str], message: str, who: str) -> str | None:
    """Sidecar + INDEX.md + commit for files already on disk; clears the journal."""
    checkpoint("during-index", vault.state_dir)
    vault.sidecar.refresh_paths(rels)
    vault.write_index()
    files: dict[str, bytes | None] = {}
    for rel in [*rels, INDEX_FILE]:
        path = vault.root / rel
        files[vault._top(rel)] = path.read_bytes() if path.exists() else None
    commit = vault.repo.commit_paths(files, message, author=vault.identity(who))
    if commit is None:
        # Nothing new to commit: a recovered write whose commit landed before the crash, maybe
        # before git's staging area was refreshed (commit_paths skips that when there is no
        # commit); refresh it, or `git status` shows the file deleted and untracked.
        vault.repo.sync_index(list(files))
    checkpoint("after-commit", vault.state_dir)
    if commit:
        vault.sidecar.set_meta("head", commit)
    (vault.state_dir / JOURNAL).unlink(missing_ok=True)
    return commit


def recover_journal(vault: Vault) -> str | None:
    """Finish a write that a crash interrupted (caller holds the lock).

    The journal holds the intended content of every file of the write. Each file on disk
    is either already the new version, still the committed old one (the write is redone), or
    something else: a person edited it since, and then the journal is dropped, not applied."""
    path = vault.state_dir / JOURNAL
    if not path.exists():
        return None
    try:
        journal = json.loads(path.read_text())
        files: dict[str, str | None] = journal["files"]
        message: str = journal["message"]
        if not isinstance(files, dict) or not isinstance(message, str) or \
                not all(isinstance(t, str) or t is None for t in files.values()):
            raise TypeError("malformed journal")
        for rel in files:
            vault._check_inside(rel)  # a damaged journal must not name a path outside the vault
    except (ValueError, KeyError, OSError, TypeError, AttributeError, VaultMemError):
        path.unlink(missing_ok=True)
        return "dropped an unreadable journal of an interrupted write"
    head = vault.repo.head()
    for rel, text in files.items():
        p = vault.root / rel
        disk = GitRepo.blob_id(p.read_bytes()) if p.exists() else None
        want = GitRepo.blob_id(text.encode("utf-8")) if text is not None else None
        if disk not in (want, vault.repo.blob_at(head, vault._top(rel))):
            path.unlink(missing_ok=True)
            return (f"an interrupted write of '{journal.get('key')}' was not finished: {rel} "
                    "changed since; check it with `git status`")
    for rel, text in files.items():
        p = vault.root / rel
        remove_temp_files(p.parent, p.name)  # the killed writer's half-written temp file
        if text is None:
            p.unlink(missing_ok=True)
        else:
            atomic_write(p, text.encode("utf-8"))
    finish_write(vault, list(files), message, journal.get("agent") or vault.agent)
    return f"finished an interrupted write of '{journal.get('key')}'"
