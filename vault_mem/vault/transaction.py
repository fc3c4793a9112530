"""The one write transaction every write path uses.

``remember``, ``forget``, a move, ``import``, ``undo``, ``resolve`` and crash recovery all write
through :class:`WriteTransaction`, in this order:

1. take the vault's write lock;
2. finish (or report) a write or sync that a crash interrupted (:mod:`vault_mem.vault.recovery`);
3. refuse while git is mid-merge/rebase/... or HEAD is detached;
4. (the caller decides what to write, reading files through the workspace's safe reader)
5. run the :class:`~vault_mem.model.policy.WritePolicy` on every file's bytes and on the message;
6. journal the intent (``.vault-mem/pending.json``), then write each file atomically and only
   over the bytes that were checked (an editor's save that lands meanwhile aborts the write and
   puts back what was already written);
7. bring the sidecar and INDEX.md up to date and commit exactly those paths as one commit; a
   commit that waits for a person's git command gives up the lock's work-tree part meanwhile
   (:meth:`~vault_mem.store.locks.WriteLock.stepped_aside`: the daemon may catch up with the
   other files) and checks everything again once it has it back.

A crash at any point leaves either the old file or the new one; the journal lets the next writer
finish the write (:func:`vault_mem.vault.recovery.recover_journal`) or report it.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from vault_mem.errors import ConcurrentEditError, GitError, HeadMovedError, VaultMemError, WriteFailedError, for_person
from vault_mem.index.sidecar import Sidecar
from vault_mem.store.files import atomic_write, checkpoint, read_only_mount_reason, remove_file
from vault_mem.store.git import GitRepo
from vault_mem.store.workspace import Workspace
from vault_mem.vault.authors import keep_peers_lines
from vault_mem.vault.person import commit_persons_index
from vault_mem.vault.recovery import recover
from vault_mem.vault.steps import (
    JOURNAL,
    ROLLBACK,
    align_index,
    changed_memory_paths,
    commit_message,
    finish_write,
    note_failed_write,
    write_journal,
)


@dataclass
class WriteResult:
    """What a write did: ``action`` is create, update, move, forget, undo or unchanged.

    ``warnings`` keep the names from elsewhere they quote marked (:func:`vault_mem.model.names.named`),
    as an error's marked text does: :meth:`to_dict` and :meth:`said` give the person's reading, an
    agent's tool result :func:`vault_mem.model.render.for_agent`'s."""

    key: str
    type: str | None
    path: str | None
    action: str
    commit: str | None
    warnings: list[str] = field(default_factory=list)

    def said(self) -> list[str]:
        """The warnings as a person reads them (each marked name as itself)."""
        return [for_person(w) for w in self.warnings]

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "type": self.type, "path": self.path, "action": self.action,
                "commit": self.commit, "warnings": self.said()}

    def for_agent(self) -> dict[str, Any]:
        """:meth:`to_dict` as an agent reads it: each warning's marked names said by their kind
        (:func:`~vault_mem.model.render.for_agent`, the one rule of every agent-facing path)."""
        from vault_mem.model.render import for_agent  # lazy: a daemon client's write imports little

        return {**self.to_dict(), "warnings": [for_agent(w) for w in self.warnings]}


class WriteTransaction:
    """``with WriteTransaction(ws, sidecar) as tx: ... tx.commit(changes, ...)``: see the module
    docstring for the steps. Re-entrant through the workspace's lock."""

    def __init__(self, ws: Workspace, sidecar: Sidecar, *, kept_exactly: Callable[[], bool] | None = None):
        self.ws = ws
        self.sidecar = sidecar
        #: a watcher's exact catch-up (see :func:`~vault_mem.vault.steps.finish_write`)
        self.kept_exactly = kept_exactly
        self.policy = ws.policy
        self._expected: dict[str, bytes | None] = {}
        #: the branch the write started on (``refs/heads/...``): it commits there or not at all
        self.branch: str | None = None
        #: what went wrong after the commit landed (the write still succeeded)
        self.warnings: list[str] = []
        #: who told the last write what a person changed since the sidecar last looked:
        #: "daemon" (its fence), "watcher" (this process's), or "git status"
        self.learned_from: str | None = None
        self._fenced = False

    def __enter__(self) -> Self:
        self.ws.wait_for_person_git()  # before the lock: the person's git hooks take it
        # the daemon's fence, before the lock (the daemon applies what its watcher saw under it):
        # the sidecar then holds every change made before the write began, as with a watcher of
        # this process's own, and the write asks no git status (its one step that reads every file).
        # Asked under the lock instead, the daemon's own next batch (this process's last write's
        # events, 20 ms later) would wait for the lock the asker holds, and the fence time out;
        # asked before it, waiting for the fence overlaps waiting for another writer's lock
        self._fenced = self.ws.daemon_fence()
        self.ws.lock.acquire()
        try:
            try:
                recover(self.ws, self.sidecar)
            except OSError as exc:
                # finishing or putting back another write on a full or read-only disk: this write
                # has not begun (a bare OSError reached MCP callers as an internal error)
                raise WriteFailedError(
                    f"nothing was written: finishing an interrupted write first failed ({exc.strerror or exc}); "
                    "check the free disk space and that the vault is writable, then retry") from exc
            # a running git command is looked for just before the files are written (write())
            try:
                self.branch = self.ws.check_git_state(running=False)
            except GitError:
                # refused (HEAD detached by a checkout, ...): INDEX.md is still brought in line
                # with the files, since a post-checkout hook that found this lock taken left it
                # to the agents, and one left from the other tree makes the next checkout refuse
                self._align_index()
                raise
        except BaseException:
            self.ws.lock.release()
            raise
        return self

    def _align_index(self) -> None:
        try:
            align_index(self.ws, self.sidecar)
        except Exception:  # noqa: BLE001 - a full disk: the next command's reconcile repairs it
            pass

    def __exit__(self, *exc) -> None:
        self.ws.lock.release()

    def expect(self, rel: str, data: bytes | None) -> None:
        """Record the bytes the caller checked at ``rel`` (None: no file): the write replaces
        the file only while it still holds them."""
        self._expected[rel] = data

    def commit(self, changes: dict[str, bytes | None], subject: str, *, key: str, action: str,
               type_: str, agent: str | None = None, extra_trailers: str = "") -> str | None:
        """:meth:`write` with an agent commit's message (``subject``, then the Memory-* and
        Agent trailers); returns the commit id (None: nothing changed)."""
        who = agent or self.ws.agent
        message = commit_message(subject, key=key, action=action, type_=type_, agent=who,
                                 extra_trailers=extra_trailers)
        return self.write(changes, message, agent=who, key=key)

    def write(self, changes: dict[str, bytes | None], message: str, *, agent: str | None = None,
              key: str | None = None) -> str | None:
        """Vet, journal, write ``changes`` ({vault-relative path: bytes, or None to delete}),
        update the sidecar and INDEX.md, and commit them with ``message`` as one commit."""
        ws = self.ws
        who = agent or ws.agent
        for rel, data in changes.items():
            ws.check_inside(rel)
            if data is not None:
                self.policy.check_file(rel, data)
        author = ws.identity(who)  # --agent, VAULT_MEM_AGENT, vault.toml: chosen by a caller, kept by git
        self.policy.check_message(message, identity=(author.name, author.email))
        # a person's commit that left INDEX.md stale (a git revert) is caught up in the
        # person's name first: this agent commit must not carry it
        try:
            commit_persons_index(ws, self.sidecar)
        except (VaultMemError, OSError) as exc:
            self.warnings.append(f"INDEX.md left stale by a commit of yours was not committed alone ({exc}); "
                                 "this commit carries its catching up")
        # every path replaces only bytes someone checked: those the caller read, else what is
        # there now, provided it is committed (a person's uncommitted file is never replaced)
        before = {rel: self._expected[rel] if rel in self._expected else self._committed_or_absent(rel)
                  for rel in changes}
        # a peer's line the write repeats keeps the peer's standing (the adoption rule's home)
        for rel in keep_peers_lines(ws, self.sidecar, changes, before):
            self.warnings.append(f"'{Path(rel).stem}' repeats a line of a memory by an author not approved on this "
                                 "machine, so it counts as that author's: recall finds it, marked, but it is not put "
                                 "in front of an agent unasked. Rewrite that line in your own words (a new write), "
                                 "or ask the person to approve that author (`vault-mem trust`; it lets in every "
                                 "memory of theirs)")
        journal = {"message": message, "agent": who,
                   "key": key or next((Path(rel).stem for rel in changes), ""),
                   "files": {p: (d.decode("utf-8") if d is not None else None) for p, d in changes.items()}}
        # a watcher's exact catch-up, before the journal exists: its batch may recover an
        # interrupted write, which must never be this one (the daemon's fence came before the lock)
        fenced, self._fenced = self._fenced, False  # one write's: a second one asks git status
        caught_up = fenced or (self.kept_exactly is not None and self.kept_exactly())
        self.learned_from = "daemon" if fenced else "watcher" if caught_up else "git status"
        # git status (the step that checks every file) before the files land, not between
        # their landing and the commit: a person's checkout or stash meets the write's file
        # changed on disk for that long (issue 25 item 4). A person's uncommitted file is never
        # replaced either way: that check is per file (``before``, then the checked swap)
        changed = None if caught_up else changed_memory_paths(ws)
        checkpoint("before-write", ws.state_dir)
        # asked again just before the work tree changes: a person's git pull, checkout or stash
        # that started since the transaction began goes first (or the write is refused)
        if ws.repo.head_said() != f"ref: {self.branch}" or ws.check_git_state() != self.branch:
            note_failed_write(ws, _blobs(changes))  # reported failed: never committed later either
            raise HeadMovedError(f"HEAD moved off {str(self.branch).removeprefix('refs/heads/')} while "
                                 "vault-mem was preparing a write (a git checkout?); nothing was written: retry")
        write_journal(ws, JOURNAL, journal)
        checkpoint("after-journal", ws.state_dir)
        written: list[str] = []
        try:
            for rel, data in changes.items():
                path = ws.root / rel
                if data is None:
                    remove_file(path, expect=before[rel])
                else:
                    atomic_write(path, data, expect=before[rel])
                written.append(rel)
            checkpoint("after-write", ws.state_dir)
            # finish_write raises only while nothing has landed (after the commit, a warning)
            # a commit that waits for a person's git command gives up the work-tree part of the
            # write lock while it waits: the daemon then puts back what a stash pop brought back
            # beside it (its files, named in the journal, stay the write's), and the person's
            # checkout is not refused for those files all that time (RELIABILITY.md)
            return finish_write(ws, self.sidecar, changes, message, who, branch=self.branch,
                                warnings=self.warnings,
                                caught_up=caught_up, changed=changed, aside=ws.lock.stepped_aside)
        except BaseException as exc:
            # One rule: a write whose caller is told it failed never lands, not now and not
            # later; only a write whose process died without answering is finished by recovery.
            rolled = self._roll_back(written, before, changes)
            if not isinstance(exc, Exception):
                raise
            put_back = ("what the write had put on disk was put back" if rolled else
                        "what the write had put on disk is put back by the next vault-mem command")
            if isinstance(exc, VaultMemError):
                if "nothing was written" in str(exc) or not isinstance(exc, GitError):
                    raise
                # git failed under the write (a damaged object, a full or read-only .git): the
                # caller hears the outcome first, then git's words, then what to do
                exc.args = (f"nothing was written: {exc}; {put_back}; {_what_to_do(ws, exc)}",)
                raise
            raise WriteFailedError(
                f"nothing was written: {type(exc).__name__}: {exc}; {put_back}; {_what_to_do(ws, exc)}") from exc
    def _committed_or_absent(self, rel: str) -> bytes | None:
        if self.ws.disk_bytes(rel) is None:
            return None
        return self.ws.check_not_dirty(rel)

    def _roll_back(self, written: list[str], before: dict[str, bytes | None],
                   changes: dict[str, bytes | None]) -> bool:
        """Undo a write that did not land: its journal becomes a rollback journal first (a
        rename: no free space needed), so that if putting the files back fails too (a full
        disk), the next writer puts them back rather than finishing the write. Each file is put
        back only while it still holds what this write put there: a save made since is never
        replaced. INDEX.md needs nothing: a write changes it only once its commit has landed
        (:func:`~vault_mem.vault.steps.finish_write`). True when everything was put back (the
        journal is gone)."""
        ws = self.ws
        journal, rollback = ws.state_dir / JOURNAL, ws.state_dir / ROLLBACK
        try:
            os.replace(journal, rollback)
        except FileNotFoundError:
            pass
        except OSError:
            return False  # a read-only disk: nothing can be put back now; the journal says what to do
        # a file found changed below may be in a person's stash, whose pop brings these bytes
        # back: recorded, so that no later commit of hand edits takes them (recovery.put_back_failed)
        note_failed_write(ws, _blobs(changes))
        done = True
        for rel in written:
            path, old, ours = ws.root / rel, before[rel], changes[rel]
            try:
                if old is None:
                    remove_file(path, expect=ours)
                else:
                    atomic_write(path, old, expect=ours)
            except ConcurrentEditError:
                pass  # someone saved this file since: their bytes stay
            except OSError:
                done = False
        try:
            self.sidecar.refresh_paths(list(changes))
            # every file, not only this write's: a checkout that overtook the write changed others
            # (no hook of it may have run), and INDEX.md is rendered from the sidecar
            align_index(ws, self.sidecar)
        except Exception:  # noqa: BLE001 - a full disk: the next command's reconcile repairs them
            done = False
        if done:
            rollback.unlink(missing_ok=True)
        return done


def _what_to_do(ws: Workspace, exc: Exception) -> str:
    """The fix for a write that failed with ``exc``: a read-only mount named (no chmod changes
    it), a full disk, a damaged object; else the usual checks."""
    code = getattr(exc, "errno", None) or getattr(exc.__cause__, "errno", None)
    said = str(exc)
    if code == errno.EROFS or "Read-only file system" in said:
        for folder in (ws.root, ws.repo.git_dir):
            mounted = read_only_mount_reason(folder, "write this vault")
            if mounted:
                return mounted
    if code in (errno.ENOSPC, errno.EDQUOT) or "No space left" in said or "disk is full" in said:
        return "free some disk space, then retry"
    if isinstance(exc, GitError):
        if any(word in said for word in _DAMAGED):
            return "run `git fsck` to see the damaged object, restore it from a clone or a backup, then retry"
        if "writable" in said or "disk" in said:
            return "retry once that is fixed"
    return "check the free disk space and that the vault is writable, then retry"


#: git's words for a damaged repository
_DAMAGED = ("corrupt", "damaged", "unable to unpack", "bad object", "invalid object", "is missing",
            "inflate", "fsck")


def _blobs(changes: dict[str, bytes | None]) -> list[str]:
    """The blob ids of the files a write would make."""
    return [GitRepo.blob_id(data) for data in changes.values() if data is not None]
