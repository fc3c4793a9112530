"""The vault: memory files + git + the write lock + INDEX.md.

Every agent write (:meth:`Vault.remember`, :meth:`Vault.forget`, ...) validates, takes the
vault's write lock and hands its files to :meth:`Vault.commit_change`
(:func:`vault_mem.vault.transaction.commit_change`): journal the intent, write the files atomically, bring
the sidecar and INDEX.md up to date, and commit exactly those paths as one commit. A crash at
any point leaves either the old file or the new one; the journal lets the next writer finish or
report it.
"""

from __future__ import annotations

import datetime as dt
import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import yaml

from vault_mem.config import CONFIG_FILE, STATE_DIR, TYPE_FOLDERS, Config, load_config
from vault_mem.errors import (
    GitError,
    InvalidMemoryError,
    MalformedFileError,
    MemoryNotFoundError,
    NotAVaultError,
    UsageError,
    VaultMemError,
)
from vault_mem.index import dupes
from vault_mem.index.sidecar import Sidecar
from vault_mem.model import policy
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import (
    Memory,
    build_meta,
    key_type_from_path,
    memory_from_bytes,
    parse_memory,
    render_memory,
    rewrite_memory,
    same_content,
    validate_description,
    validate_key,
    validate_type,
)
from vault_mem.store.git import GitRepo, Identity
from vault_mem.store.locks import WRITE_LOCK, FileLock, daemon_pid
from vault_mem.vault import transaction as journal
from vault_mem.vault.create import init_vault
from vault_mem.vault.transaction import atomic_write, remove_temp_files

if TYPE_CHECKING:
    from vault_mem.vault.history import LogEntry


@dataclass
class WriteResult:
    """What a write did: ``action`` is create, update, move, forget, undo or unchanged."""

    key: str
    type: str | None
    path: str | None
    action: str
    commit: str | None
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "type": self.type, "path": self.path, "action": self.action,
                "commit": self.commit, "warnings": self.warnings}


def find_vault_root(start: Path | None = None) -> Path:
    """``start`` or its nearest parent holding a vault.toml (as git finds .git)."""
    here = Path(start or Path.cwd()).expanduser().resolve()
    for candidate in (here, *here.parents):
        if (candidate / CONFIG_FILE).is_file():
            return candidate
    raise NotAVaultError(
        f"{here} is not a vault, nor inside one (no {CONFIG_FILE} here or above); "
        f"create one with `vault-mem init {here}` or pass --vault PATH"
    )


def resolve_vault_root(explicit: str | Path | None = None, *, start: Path | None = None) -> Path:
    """The vault a command means: ``explicit`` (--vault or a PATH argument), else
    $VAULT_MEM_VAULT, else where ``start`` (default: the working directory) is; in each case
    that folder or the nearest parent holding a vault.toml. ``~`` is expanded."""
    chosen = explicit or os.environ.get("VAULT_MEM_VAULT")
    return find_vault_root(Path(chosen) if chosen else start)


class Vault:
    """A vault on disk. Open with ``Vault(path)`` (the folder holding vault.toml)."""

    def __init__(self, root: str | Path, *, agent: str | None = None, embedder: Any = None):
        root = Path(root).expanduser().resolve()
        if not (root / CONFIG_FILE).is_file():
            raise NotAVaultError(
                f"{root} is not a vault (no {CONFIG_FILE}); create one with `vault-mem init {root}`"
            )
        self.root = root
        self.config: Config = load_config(root)
        self.state_dir = root / STATE_DIR
        self.state_dir.mkdir(exist_ok=True)
        self.agent = agent or os.environ.get("VAULT_MEM_AGENT") or self.config.agent_name
        try:
            self.repo = GitRepo(root)
        except GitError as exc:
            raise NotAVaultError(
                f"{root} has a {CONFIG_FILE} but is not in a git repository; run `git init` there "
                "or re-create it with `vault-mem init`"
            ) from exc
        rel = os.path.relpath(root, self.repo.toplevel.resolve())
        self.prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        self.lock = FileLock(self.state_dir / WRITE_LOCK)
        kwargs = {} if embedder is None else {"embedder": embedder}
        self.sidecar = Sidecar(root, self.config, **kwargs)
        #: things the vault did on its own that a person should hear about (recovered writes)
        self.notices: list[str] = []
        #: progress(done, total) for long index work (a rebuild after index.db was deleted,
        #: vectors owed); the CLI sets a progress bar here
        self.progress = None

    # -- creation --------------------------------------------------------------------------
    @classmethod
    def init(cls, path: str | Path, *, agent: str | None = None) -> Vault:
        """Create a vault from the template and make its first commit.

        In a folder inside an existing repository only that folder's files are committed."""
        return init_vault(cls, path, agent=agent)

    # -- helpers ---------------------------------------------------------------------------
    def identity(self, agent: str | None = None) -> Identity:
        name = agent or self.agent
        email = self.config.agent_email
        return Identity(name, email)

    def _top(self, rel: str) -> str:
        return self.prefix + rel

    def find_file(self, key: str) -> tuple[str, str] | None:
        """(type, rel path) of ``key`` on disk, checking every type folder."""
        for type_, folder in TYPE_FOLDERS.items():
            if (self.root / folder / f"{key}.md").exists():
                return type_, f"{folder}/{key}.md"
        return None

    def _check_inside(self, rel: str) -> None:
        """Refuse a memory path whose type folder is not a real folder of this vault (a symlink
        to elsewhere would make vault-mem read or write files outside the vault)."""
        key_type_from_path(rel)
        folder = rel.split("/", 1)[0]
        real_root = os.path.realpath(self.root)
        real = os.path.realpath(self.root / folder)
        if real != os.path.join(real_root, folder):
            raise VaultMemError(
                f"{folder}/ is a symlink to {real}; vault-mem only reads and writes files inside the "
                f"vault: replace the link with a real folder and retry"
            )

    def read_memory(self, rel: str) -> Memory:
        """Parse the memory file at vault-relative ``rel`` (inside the vault, regular, in size)."""
        path = self.root / rel
        self._check_inside(rel)
        if path.is_symlink():
            raise MalformedFileError(f"{rel} is a symlink; vault-mem only reads regular files")
        size = path.stat().st_size
        if size > self.config.max_file_bytes:  # refused before it is read
            raise MalformedFileError(f"{rel} is {size} bytes, over the limit of {self.config.max_file_bytes}")
        return memory_from_bytes(path.read_bytes(), rel, max_bytes=self.config.max_file_bytes)

    def daemon_running(self) -> bool:
        return daemon_pid(self.state_dir) is not None

    def reconcile(self, *, force: bool = False, recover: bool = True, progress=None):
        """Bring the sidecar (and INDEX.md on disk) in line with the files.

        Every read calls this, so results are never stale; it is cheap when nothing changed
        (one stat per file). Skipped while a daemon runs (it keeps them in line) unless
        ``force``. ``recover=False`` leaves an interrupted agent write alone: git hooks run
        inside a person's commit, while git holds its index.lock, and must not commit."""
        if not force and self.daemon_running():
            return None
        with self.lock:
            if recover:
                self.recover()
            report = self.sidecar.reconcile(progress=progress or self.progress)
            if report.changed or not (self.root / INDEX_FILE).exists():
                self.write_index()
        return report

    def render_index(self, today: dt.date | None = None) -> str:
        """INDEX.md as the files give it today (not written; see :meth:`write_index`)."""
        return self.sidecar.render_index(budget_tokens=self.config.index_budget_tokens, today=today)

    def write_index(self) -> bytes | None:
        """Regenerate INDEX.md on disk; returns the new bytes when they changed."""
        new = self.render_index().encode()
        path = self.root / INDEX_FILE
        try:
            old = path.read_bytes()
        except FileNotFoundError:
            old = None
        if old == new:
            return None
        atomic_write(path, new)
        return new

    # -- reads -----------------------------------------------------------------------------
    def get(self, key: str) -> Memory:
        """The whole memory with this key."""
        validate_key(key)
        self.reconcile()
        found = self.find_file(key)
        if not found:
            raise MemoryNotFoundError(self._not_found(key))
        return self.read_memory(found[1])

    def list(self, *, type: str | None = None, tags: Iterable[str] | None = None) -> list[dict]:
        """Keys and descriptions of every usable memory (optionally one type / with all tags)."""
        tag_list = list(tags or [])
        _check_text("tags", tag_list)
        self.reconcile()
        want_type = validate_type(type) if type else None
        return self.sidecar.list_entries(type=want_type, tags=tag_list)

    def recall(self, query: str, *, k: int | None = None, type: str | None = None,
               tags: Iterable[str] | None = None, scope: str | None = None,
               include_expired: bool = False):
        """Hybrid search; see :meth:`Sidecar.recall`."""
        tags = list(tags or [])
        _check_text("the query, tags or scope", query, tags, scope)
        self.reconcile()
        if k is not None and (not isinstance(k, int) or k < 1 or k > 100):
            raise UsageError("k must be a whole number from 1 to 100")
        if self.progress is not None:
            self.sidecar.embed_pending(progress=self.progress)  # else recall does it, silently
        return self.sidecar.recall(
            query, k=k or self.config.recall_k, type=validate_type(type) if type else None,
            tags=tags or None, scope=scope, include_expired=include_expired,
        )

    def _not_found(self, key: str) -> str:
        close = difflib.get_close_matches(key, self.sidecar.keys(), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else \
            "; `vault-mem list` shows the keys"
        return f"no memory with key '{key}'{hint}"

    # -- writes ----------------------------------------------------------------------------
    def remember(
        self,
        key: str,
        description: str,
        body: str = "",
        *,
        type: str = "fact",
        tags: Iterable[str] | None = None,
        source: str | None = "agent",
        extra: dict[str, Any] | None = None,
        agent: str | None = None,
    ) -> WriteResult:
        """Create or update the memory ``key``; one commit, or none for an identical write."""
        validate_key(key)
        type_ = validate_type(type)
        description = validate_description(description)
        if body is None:
            body = ""
        if not isinstance(body, str):
            raise InvalidMemoryError("body must be text")
        if "\x00" in body:
            raise InvalidMemoryError("body contains a NUL byte; store text, not binary data")
        # a character is at least one UTF-8 byte: a body with more characters than the limit is
        # refused without encoding it (which would hold a second copy of a huge body in memory)
        size = len(body) if len(body) > self.config.max_body_bytes else \
            len(body.encode("utf-8", "surrogatepass"))  # lone surrogates: refused just below
        if size > self.config.max_body_bytes:
            raise InvalidMemoryError(
                f"body is {size} bytes or more, over the vault's limit of {self.config.max_body_bytes} "
                "([limits] max_body_bytes in vault.toml); store a summary and a pointer instead"
            )
        tag_list = list(tags) if tags is not None else None
        _check_text("the description, body, tags or a field", description, body, tag_list,
                    *(extra or {}).values(), agent)
        # lint_write refuses a description over the policy's length first, then lists warnings
        warnings = policy.lint_write(type=type_, description=description, body=body)
        meta_check = dict(extra or {})
        if tag_list:
            meta_check["tags"] = tag_list
        policy.check_write(key=key, description=description, body=body, meta=meta_check)
        with self.lock:
            self.recover()
            self.check_git_state()
            today = dt.date.today()
            found = self.find_file(key)
            old: Memory | None = None
            if found:
                old = self._read_for_update(found[1])
            meta = build_meta(old.meta if old else None, description=description, today=today,
                              source=source, tags=tag_list, extra=extra)
            new = Memory(key=key, type=type_, meta=meta, body=body)
            if old is not None and same_content(old, new):
                return WriteResult(key, type_, new.path, "unchanged", None, warnings)
            if old is None:
                action = "create"
            elif old.type != type_:
                action = "move"
            else:
                action = "update"
            if action == "create":
                warnings = [*warnings, *dupes.duplicate_warnings(
                    self.sidecar, key=key, type=type_, description=description, body=body,
                    exclude=new.supersedes)]
            if old is not None and old.comments:  # a person's comments survive the rewrite: gate them
                policy.check_write(key=key, description=description, body="", meta={}, comments=old.comments)
            changes: dict[str, bytes | None] = {
                new.path: _render_checked(new, (self.root / found[1]).read_bytes() if found else None)}
            if old is not None and old.path != new.path:
                changes[old.path] = None
            subject = f"{'move' if action == 'move' else 'remember'}: {key} — {description}"
            commit = self.commit_change(changes, subject, key=key, action=action, type_=type_,
                                         agent=agent)
            return WriteResult(key, type_, new.path, action, commit, warnings)

    def forget(self, key: str, *, agent: str | None = None) -> WriteResult:
        """Delete the memory ``key`` (a commit; the text stays in git history)."""
        validate_key(key)
        with self.lock:
            self.recover()
            self.check_git_state()
            found = self.find_file(key)
            if not found:
                raise MemoryNotFoundError(self._not_found(key))
            type_, rel = found
            self.check_not_dirty(rel)
            try:
                desc = self.read_memory(rel).description
            except MalformedFileError:
                desc = "(unreadable file)"
            commit = self.commit_change({rel: None}, f"forget: {key} — {desc}", key=key,
                                         action="forget", type_=type_, agent=agent)
            return WriteResult(key, type_, rel, "forget", commit)

    def _read_for_update(self, rel: str) -> Memory:
        try:
            old = self.read_memory(rel)
        except MalformedFileError as exc:
            raise MalformedFileError(
                f"{exc}; fix the file by hand (or `vault-mem forget` it) before writing this key"
            ) from exc
        self.check_not_dirty(rel)
        return old

    def check_not_dirty(self, rel: str) -> None:
        """Refuse to overwrite a person's uncommitted edit: it would be lost (it is in no commit)."""
        path = self.root / rel
        committed = self.repo.blob_at(self.repo.head(), self._top(rel))
        if committed is None:
            # never committed: a person's new file that only exists on disk
            raise VaultMemError(
                f"{rel} exists but was never committed; commit it first "
                f"(git add {rel} && git commit) so nothing of it can be lost, then retry"
            )
        if GitRepo.blob_id(path.read_bytes()) != committed:
            raise VaultMemError(
                f"{rel} has uncommitted edits; commit them first (git commit {rel}), or wait "
                "for the daemon to commit them, then retry so nothing is lost"
            )

    def check_git_state(self) -> None:
        """Refuse to write while git is in the middle of a merge, rebase, revert, ..."""
        op = self.repo.operation_in_progress()
        if op:
            raise GitError(
                f"a git {op} is in progress in {self.repo.toplevel}; finish or abort it "
                f"(git {op} --continue / --abort) and retry"
            )

    def commit_change(self, changes: dict[str, bytes | None], subject: str, *, key: str,
                       action: str, type_: str, agent: str | None, extra_trailers: str = "") -> str | None:
        """Journal, write files, update sidecar and INDEX.md, commit; caller holds the lock
        (see :func:`vault_mem.vault.transaction.commit_change`)."""
        return journal.commit_change(self, changes, subject, key=key, action=action, type_=type_,
                                     agent=agent, extra_trailers=extra_trailers)

    def recover(self) -> str | None:
        """Finish (or roll back) a write or sync that a crash interrupted; caller holds the lock.
        Returns what was done, also kept in :attr:`notices`, or None."""
        # Every INDEX.md write happens under the write lock, which the caller holds: a temp file of
        # one now was left by a killed process (git status would show it as untracked).
        remove_temp_files(self.root, INDEX_FILE)
        from vault_mem.sync.replay import (
            recover_sync,  # a sync interrupted by a crash comes first: it moved HEAD
        )

        notes = [n for n in (recover_sync(self), journal.recover_journal(self)) if n]
        self.notices.extend(notes)
        return "; ".join(notes) or None

    # -- history (vault_mem/history.py) -----------------------------------------------------
    def log(self, key: str | None = None, *, limit: int = 20) -> list[LogEntry]:
        """Commits that touched the vault (or one key's file in any type folder), newest first."""
        from vault_mem.vault.history import log

        return log(self, key, limit=limit)

    def undo(self, target: str, *, agent: str | None = None) -> WriteResult:
        """Revert the last agent commit for key ``target`` (or the commit ``target``); see
        :func:`vault_mem.vault.history.undo`."""
        from vault_mem.vault.history import undo

        return undo(self, target, agent=agent)

    # -- bulk ------------------------------------------------------------------------------
    def import_memories(self, memories: Iterable[Memory], *, message: str) -> str | None:
        """Write many memories as ONE commit (bulk import, e.g. `vault-mem eval`).

        The checks of a single write apply to each memory (valid fields, a path inside the vault,
        a file that reads back as written, no person's uncommitted edit overwritten), all before
        any file is written; then the usual sidecar + INDEX.md + commit step."""
        with self.lock:
            self.check_git_state()
            self.recover()
            files: dict[str, bytes | None] = {}
            for mem in memories:
                validate_key(mem.key)
                validate_type(mem.type)
                validate_description(mem.description)
                self._check_inside(mem.path)
                if (self.root / mem.path).exists():
                    self.check_not_dirty(mem.path)
                files[mem.path] = _render_checked(mem)
            if not files:
                return None
            for rel, data in files.items():
                atomic_write(self.root / rel, data)
            return journal.finish_write(self, list(files), message, self.agent)

    def regenerate_index(self, *, recover: bool = True) -> bool:
        """Rewrite INDEX.md on disk from the files; True when it changed (not committed)."""
        path = self.root / INDEX_FILE
        with self.lock:
            before = path.read_bytes() if path.exists() else None
            self.reconcile(force=True, recover=recover)  # rewrites INDEX.md itself when files changed
            self.write_index()
            return (path.read_bytes() if path.exists() else None) != before

    def take_notices(self) -> list[str]:
        """The notices not reported yet, each handed out once (and cleared)."""
        out = self.notices[:]
        self.notices.clear()
        return out

    def close(self) -> None:
        self.sidecar.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _check_text(what: str, *values: Any) -> None:
    """Refuse text that cannot be stored as UTF-8 before it reaches SQLite, YAML or git: lone
    surrogates come from a JSON ``"\\ud800"`` escape or from command-line bytes that are not UTF-8."""
    for value in values:
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, str) and not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError as exc:
                    raise InvalidMemoryError(
                        f"{what}: not valid text (an unpaired surrogate at position {exc.start}); "
                        "send UTF-8 text"
                    ) from None


def _render_checked(new: Memory, old_data: bytes | None = None) -> bytes:
    """The file bytes of ``new`` (an in-place update of ``old_data``, the file's bytes, when
    given: see :func:`rewrite_memory`), refused unless they read back as the same memory: a body
    that starts with a '---' block of 'field:' lines would otherwise be committed as a file that
    every reader rejects (a second frontmatter block), hiding the memory."""
    try:
        text = render_memory(new) if old_data is None else rewrite_memory(old_data.decode("utf-8"), new)
        back = parse_memory(text, new.path)
    except (VaultMemError, yaml.YAMLError, ValueError, TypeError) as exc:
        reason = str(exc).removeprefix(f"{new.path}: ")
        raise InvalidMemoryError(
            f"this write would make a file that does not read back as written ({reason}); if the "
            "body starts with a '---' line, start it with other text (a heading, say)"
        ) from None
    if not same_content(back, new):
        raise InvalidMemoryError(
            "this write would make a file that does not read back as written (a field value "
            "changes in the round trip); pass plain text, numbers, dates or lists of text"
        )
    return text.encode("utf-8")
