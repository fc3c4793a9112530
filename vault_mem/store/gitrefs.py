"""Refs for the git store: HEAD and branches read from git's files, and moved by compare-and-swap.

Part of :class:`~vault_mem.store.git.GitRepo`. A branch moves as git's files backend moves it
(``<ref>.lock`` created exclusively, compared, renamed into place, reflogs appended), in process;
every git lock vault-mem takes is recorded as its own (:mod:`vault_mem.store.gitlocks`), so one a
killed vault-mem process left is removed and a person's is never touched. A reftable repository
(git 2.45+) has no ref files: there git reads and moves its refs (``git update-ref`` with the
old value), at the cost of a process start.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from vault_mem.errors import GitError
from vault_mem.platform.logs import Logger
from vault_mem.store import gitlocks
from vault_mem.store.files import checkpoint
from vault_mem.store.gitobjects import ZERO_OID, Identity
from vault_mem.store.locks import pid_exists

#: in the git dir: where earlier versions listed the git locks a writer held (by inode, which
#: a person's later lock can reuse: now :mod:`vault_mem.store.gitlocks`); a dead writer's list
#: is removed, the locks it names are left alone
_OLD_OWNED_PREFIX = "vault-mem-locks."

# the git store's one logger (shared by its modules)
log = Logger("vault_mem.store.git")  # logging imported at the first message (start-up time)
#: git's limit of symbolic refs in a chain (HEAD -> branch counts two), as GitPython kept it
_MAX_SYMREF_DEPTH = 5
#: the refs read from the per-worktree git dir; every other ref is the common dir's
_PER_WORKTREE = ("HEAD", "ORIG_HEAD", "FETCH_HEAD")
_OID = re.compile(r"[0-9a-f]{40}")


class GitRefs:
    """The refs part of :class:`~vault_mem.store.git.GitRepo`: HEAD, branches, their locks."""

    git_dir: Path
    common_dir: Path

    def head(self) -> str | None:
        """HEAD's commit id, or None on an unborn branch.

        Read from the ref files (this runs on every write: :meth:`_dereference`); anything
        that is not plainly readable there (an unborn branch, an odd ref) is asked of
        ``git rev-parse``."""
        return self._dereference("HEAD") or self._rev_parse_head()

    def _dereference(self, ref: str) -> str | None:
        """The commit id ``ref`` leads to through the ref files (loose, else ``packed-refs``),
        following ``ref: ...`` lines as GitPython's ``SymbolicReference.dereference_recursive``
        did; None for anything else (missing, a reftable, a name that is not a plain ``refs/``
        path, too deep): the caller asks git."""
        if self.reftable():
            return None
        for _ in range(_MAX_SYMREF_DEPTH):
            if ref not in _PER_WORKTREE and not _plain_ref(ref):
                return None
            base = self.git_dir if ref in _PER_WORKTREE else self.common_dir
            try:
                words = (base / ref).read_text(encoding="utf-8").split()
            except FileNotFoundError:
                words = []
            except (OSError, UnicodeDecodeError):
                return None
            if not words:
                words = [oid for oid, name in self._packed_refs() if name == ref][:1]
                if not words:
                    return None
            if words[0] == "ref:" and len(words) > 1:
                ref = words[1]
                continue
            return words[0] if _OID.fullmatch(words[0]) else None
        return None

    def ref_in_files(self, ref: str) -> str | None:
        """The commit id ``ref`` leads to, read from the ref files in process; None where that
        takes git (a missing ref, a reftable, an odd name): for a check that may ask again."""
        return self._dereference(ref)

    def _packed_refs(self) -> list[tuple[str, str]]:
        """(id, name) of each ref ``packed-refs`` lists (not the peeled ``^`` lines)."""
        try:
            text = (self.common_dir / "packed-refs").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
        out = []
        for line in text.splitlines():
            if line and line[0] not in "#^":
                oid, _, name = line.strip().partition(" ")
                out.append((oid, name))
        return out

    def _rev_parse_head(self) -> str | None:
        proc = self.run("rev-parse", "-q", "--verify", "HEAD^{commit}", check=False)
        return (proc.stdout.decode().strip() or None) if proc.returncode == 0 else None

    def head_branch(self) -> str | None:
        """The branch HEAD points at (``refs/heads/...``), or None while HEAD is detached. Read
        from HEAD's file (every write asks: no git process), through ``git symbolic-ref`` only
        when the file cannot be read."""
        said = self.head_said()
        if said:
            return (said[5:].strip() or None) if said.startswith("ref: ") else None
        proc = self.run("symbolic-ref", "-q", "HEAD", check=False)
        if proc.returncode != 0:
            return None
        return proc.stdout.decode("utf-8", "replace").strip() or None

    def reftable(self) -> bool:
        """Whether this repository keeps its refs in a reftable (git 2.45+, ``git init
        --ref-format=reftable``): there are no ref files to read or lock by hand, so refs are
        read and moved by git itself (``git update-ref <ref> <new> <old>``)."""
        return (self.common_dir / "reftable").is_dir()

    def head_said(self) -> str:
        """What HEAD's file says (``ref: refs/heads/main`` or a commit id); "" when unreadable.
        A reftable repository's HEAD file is a placeholder: git says what HEAD is."""
        if self.reftable():
            proc = self.run("symbolic-ref", "-q", "HEAD", check=False)
            if proc.returncode == 0:
                return "ref: " + proc.stdout.decode("utf-8", "replace").strip()
            return self._rev_parse_head() or ""
        try:
            return (self.git_dir / "HEAD").read_text().strip()
        except OSError:
            return ""

    def ref_value(self, ref: str) -> str | None:
        """The commit ``ref`` (a full name) points at, or None when it does not exist (unborn)."""
        oid = self._dereference(ref)
        if oid is not None:
            return oid
        proc = self.run("rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False)
        return (proc.stdout.decode().strip() or None) if proc.returncode == 0 else None

    def _ref_now(self, ref: str) -> str | None:
        """What ``ref`` holds in the ref files right now (loose, else packed-refs), read directly
        (asked of git in a reftable repository)."""
        if self.reftable():
            proc = self.run("rev-parse", "-q", "--verify", f"{ref}^{{commit}}", check=False)
            return (proc.stdout.decode().strip() or None) if proc.returncode == 0 else None
        try:
            text = (self.common_dir / ref).read_text().strip()
        except FileNotFoundError:
            text = ""
        if text.startswith("ref:"):
            raise GitError(f"{ref} is a symbolic ref; vault-mem commits only to a plain branch")
        if len(text) == 40:
            return text
        try:
            packed = (self.common_dir / "packed-refs").read_text()
        except FileNotFoundError:
            return None
        for line in packed.splitlines():
            oid, _, name = line.partition(" ")
            if name == ref and len(oid) == 40:
                return oid
        return None

    def move_head(self, new: str, old: str | None, *, message: str) -> bool:
        """Point HEAD (its branch) at ``new`` only if it still points at ``old`` (None: unborn).

        Returns False when HEAD moved meanwhile (the compare-and-swap lost, or another git held
        the ref's lock); raises GitError for any other refusal."""
        proc = self.run("update-ref", "-m", message, "HEAD", new, old or ZERO_OID, check=False)
        if proc.returncode == 0:
            return True
        words = proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
        if self.head() != old or ".lock" in words:
            return False
        raise GitError(f"git update-ref failed: {words}")

    def _swap_ref(self, branch: str, new: str, old: str | None, who: Identity, message: str) -> bool:
        """Point ``branch`` at ``new`` only if it points at ``old`` now (None: unborn), as git's
        files backend does it (``<ref>.lock`` created exclusively, compared, renamed into place,
        the branch's and HEAD's reflogs appended), in process: the caller holds index.lock, and
        a person's git command must never find it held for longer than a few system calls
        (``git update-ref`` would hold it for a whole process start). False: it moved, or
        another git holds the ref's lock. A reftable repository's branch moves through git's own
        compare-and-swap (:meth:`_update_ref`)."""
        if self.reftable():
            return self._update_ref(branch, new, old, who, message)
        ref = self.common_dir / branch
        lock = ref.with_name(ref.name + ".lock")
        ref.parent.mkdir(parents=True, exist_ok=True)
        record = self._take_lock(lock, self.common_dir, f"{new}\n".encode())
        if record is None:
            return False
        renamed = False
        try:
            checkpoint("holding-ref-lock", self.git_dir)
            if self._ref_now(branch) != old:
                return False
            os.rename(lock, ref)
            renamed = True
        finally:
            gitlocks.release(None if renamed else lock, record)
        line = f"{old or ZERO_OID} {new} {who.signature().decode()}\t{message}\n".encode()
        for log in (self.common_dir / "logs" / branch, self.git_dir / "logs" / "HEAD"):
            try:
                log.parent.mkdir(parents=True, exist_ok=True)
                with open(log, "ab") as fh:
                    fh.write(line)
            except OSError:
                pass  # a reflog line is a convenience; the commit has landed
        return True

    def _update_ref(self, branch: str, new: str, old: str | None, who: Identity, message: str) -> bool:
        """``git update-ref -m MESSAGE BRANCH NEW OLD``: git moves the branch only if it still
        points at ``old`` (the reflogs are git's). False: it moved, or its lock is held."""
        actor = who.actor()
        proc = self.run("update-ref", "-m", message, branch, new, old or ZERO_OID, check=False,
                        env={"GIT_COMMITTER_NAME": actor.name, "GIT_COMMITTER_EMAIL": actor.email})
        if proc.returncode == 0:
            return True
        words = proc.stderr.decode("utf-8", "replace").strip()
        if self._ref_now(branch) != old or "lock" in words:
            return False
        raise GitError(f"git update-ref failed: {words}")

    def _take_lock(self, lock: Path, records: Path, content: bytes = b"") -> Path | None:
        """Create git's lock file ``lock`` as vault-mem's (:func:`gitlocks.take`): its owner
        record, or None when someone else holds it (after removing one a killed vault-mem
        process left, once)."""
        for attempt in range(2):
            record = gitlocks.take(lock, records, content)
            if record is not None or attempt or not self._cleared_dead_locks():
                return record
        return None

    def _cleared_dead_locks(self) -> bool:
        """:meth:`clear_dead_locks`, each removal logged (no caller here reports notes)."""
        removed = self.clear_dead_locks()
        for line in removed:
            log.warning("vault-mem: %s", line)
        return bool(removed)

    def clear_dead_locks(self) -> list[str]:
        """Remove the git lock files (and prepared index copies) vault-mem processes that are
        gone left behind; one line per lock removed, for the caller to report. A person's locks
        are never touched: see :mod:`vault_mem.store.gitlocks`."""
        removed = gitlocks.clear_dead(self.git_dir, self.common_dir)
        for path in self.git_dir.glob(f"{_OLD_OWNED_PREFIX}*"):
            try:
                pid = int(path.name.split(".")[1])
            except (IndexError, ValueError):
                continue
            if not pid_exists(pid):
                path.unlink(missing_ok=True)
        return removed


def _plain_ref(name: str) -> bool:
    """Whether ``name`` is a ref path under ``refs/`` that stays inside the git dir (no ".",
    "..", empty or hidden parts): only such a name is read as a file here."""
    parts = name.split("/")
    return len(parts) > 1 and parts[0] == "refs" and all(p and not p.startswith(".") for p in parts) \
        and "\\" not in name and "\0" not in name
