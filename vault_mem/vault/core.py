"""The vault: the facade over a workspace, its sidecar and the write transaction.

:class:`Vault` is what the API, the CLI, the MCP server and the daemon hold. It owns a
:class:`~vault_mem.store.workspace.Workspace` (root, prefix, state dir, repository, lock,
settings), the :class:`~vault_mem.index.sidecar.Sidecar`, and hands every write to one
:class:`~vault_mem.vault.transaction.WriteTransaction` (lock, recovery, git state, policy,
checked file write, commit, sidecar). The operations below only decide *what* to write.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import os
import weakref
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from vault_mem.store.finder import find_vault_root, resolve_vault_root
from vault_mem.store.trust import approved_authors, record_vault
from vault_mem.errors import (
    GitError,
    IndexStoreError,
    MalformedFileError,
    MemoryNotFoundError,
    QuarantinedFileError,
    UsageError,
    VaultMemError,
)
from vault_mem.index import dupes
from vault_mem.index.db import busy_error, database_error, is_busy
from vault_mem.index.sidecar import Progress, ReconcileReport, Sidecar
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import (
    Memory,
    build_meta,
    same_content,
    validate_key,
    validate_type,
)
from vault_mem.model.policy import check_text
from vault_mem.model.render import Author, Legend
from vault_mem.model.terms import MAX_QUERIES
from vault_mem.model.views import body_excerpt, description_excerpt
from vault_mem.platform import settle  # a file's stat stamp
from vault_mem.store.files import holds, read_own
from vault_mem.store.git import Identity
from vault_mem.store.history import holding_order
from vault_mem.store.workspace import Workspace
from vault_mem.vault import authors, person
from vault_mem.vault.peers import KeptPeers
from vault_mem.vault.create import create_files, first_commit, install_hooks
from vault_mem.vault.recovery import recover
from vault_mem.vault.steps import IndexWrite, files_in_flight, index_due, index_owed, write_index
from vault_mem.vault.transaction import WriteResult, WriteTransaction

if TYPE_CHECKING:
    from vault_mem.vault.history import LogEntry

__all__ = ["Vault", "WriteResult", "find_vault_root", "resolve_vault_root"]


def _history():
    """:mod:`vault_mem.vault.history`, imported at its first use: a one-shot write reads no
    history (start-up time, issue 29)."""
    from vault_mem.vault import history

    return history


def key_owners(ws: Workspace, sidecar: Sidecar | None, shared: dict[str, list[str]]) -> dict[str, str]:
    """For each key that two files or more hold (``shared``: key -> paths, by path), the file in
    use: the one home of that rule (:attr:`Sidecar.key_owner`; a sync's set-aside follows it,
    :meth:`vault_mem.sync.replay.Replay.collisions`). First the nearest author: this machine's
    person or agents (a change not committed yet included), then an author approved here, then
    anyone else; a peer, approved or not, cannot take the person's key with a second file,
    whatever folder it picks. Among files that stand alike, the one that held the key first
    (:func:`~vault_mem.store.history.holding_order`: HEAD's history gave it its file before the
    others got theirs; a file not committed yet comes after the committed ones): a second file a
    peer adds later never displaces the file already in use, whatever its path, and a rebuild of
    the index from the files and history gives the same answer. The first by path last. One
    look at the authors of all of them, one ``git log`` of their additions."""
    if sidecar is None:
        return {}
    paths = sorted({p for found in shared.values() for p in found})
    try:
        who = authors.authors_of(ws, sidecar, paths)
    except VaultMemError:  # damaged history, no git: the plain rule
        return {}
    first: dict[str, int] = {}
    try:
        head = ws.repo.head()
        if head:
            order = holding_order(ws.repo, head, [[ws.prefix + p for p in found] for found in shared.values()])
            first = {p[len(ws.prefix):]: n for p, n in order.items()}
    except VaultMemError:  # no git: the authors and the paths decide
        first = {}
    last = 1 << 62
    return {key: min(found, key=lambda p: (_OWNER_RANK.get(who[p].standing, 2), first.get(p, last), p))
            for key, found in shared.items()}


#: who owns a key two files hold (:func:`key_owners`): the lowest rank, by standing
_OWNER_RANK = {"person": 0, "agent": 0, "local": 0, "approved": 1, "peer": 2}


#: the sidecar's record of the approvals the owners of shared keys were worked out under
_OWNERS_APPROVED = "owners_approved"


def _approvals_key(root: Path) -> str:
    """A short fingerprint of the authors approved for the vault at ``root`` (``vault-mem trust
    --author``): what the owners of shared keys and the floor's calibration were worked out under."""
    return hashlib.sha256("\n".join(sorted(approved_authors(root))).encode()).hexdigest()[:16]


class Vault:
    """A vault on disk. Open with ``Vault(path)`` (the folder holding vault.toml)."""

    def __init__(self, root: str | Path, *, agent: str | None = None, embedder: Any = None):
        self.ws = Workspace(root, agent=agent)
        self._opened_as = (agent, embedder)
        kwargs = {} if embedder is None else {"embedder": embedder}
        self.sidecar = Sidecar(self.ws.root, self.ws.config, **kwargs)
        # a hand edit that kept an old `updated:` dates from its commit or file time (git knows)
        ws = self.ws  # not self: the sidecar must not keep its vault alive (a reference cycle)
        self.sidecar.change_dates = lambda files: _history().change_dates(ws, files)
        # of two files of one key, a trusted one owns it (a peer's second file hides nothing)
        sidecar = weakref.ref(self.sidecar)  # no reference cycle through its own attribute
        self.sidecar.key_owner = lambda shared: key_owners(ws, sidecar(), shared)
        # the relevance floor is calibrated on the memories whose authors are trusted here: a
        # peer's notes copying the probe questions moved it over every answer of the person's
        floor_uncounted = weakref.WeakMethod(self._floor_uncounted)  # no reference cycle
        self.sidecar.vectors.uncounted = lambda: f() if (f := floor_uncounted()) is not None else ()
        root = self.ws.root
        self.sidecar.vectors.uncounted_key = lambda: _approvals_key(root)
        #: progress(done, total) for long index work (a rebuild after index.db was deleted,
        #: vectors owed); the CLI sets a progress bar here
        self.progress = None
        self.made_private: list[Path] = []  # what :meth:`init` closed to other users
        #: a long-lived process's own watcher (``daemon.keeper.Keeper.catch_up``): called by every
        #: read instead of a reconcile; True when it brought the sidecar up to every change
        self.kept_current: Callable[[], bool] | None = None
        #: the same watcher's exact catch-up before a write (``Keeper.caught_up_exactly``): True
        #: when the sidecar holds every change made so far, so the write skips ``git status``
        self.kept_exactly: Callable[[], bool] | None = None
        #: the same watcher's catch-up in two halves, for a recall (``Keeper.catch_up_meanwhile``):
        #: called before the search, it returns None (the recall catches up as any read does) or
        #: ``finish``, called after the search: True when it applied a change the search may have
        #: missed, and the recall searches again (the watcher's events arrive while it searches)
        self.kept_meanwhile: Callable[[], Callable[[], bool] | None] | None = None
        #: set by that watcher when it lets a read answer from the index before its start-up check
        #: of the files is done (it may lack memories: a fresh clone's index holds none): a recall
        #: then never says that nothing is stored (``RecallResult.unchecked``). Reset by each recall.
        self.index_unchecked = False
        #: called (once each) by :meth:`close`: a watcher installed on this vault stops with it
        #: (``daemon.keeper.keep_current``)
        self.closers: list[Callable[[], None]] = []
        #: the peers' memories as last judged, kept while nothing they are judged from changed
        self._kept_peers = KeptPeers()

    def reopen(self) -> Vault:
        """Another :class:`Vault` of this folder, opened as this one was (its agent and
        embedder): for another thread (SQLite connections belong to one)."""
        agent, embedder = self._opened_as
        return type(self)(self.root, agent=agent, embedder=embedder)

    # -- the workspace's parts, by their usual names -----------------------------------------
    @property
    def root(self) -> Path:
        return self.ws.root

    @property
    def config(self):
        return self.ws.config

    @property
    def state_dir(self) -> Path:
        return self.ws.state_dir

    @property
    def repo(self):
        return self.ws.repo

    @property
    def prefix(self) -> str:
        return self.ws.prefix

    @property
    def lock(self):
        return self.ws.lock

    @property
    def agent(self) -> str:
        return self.ws.agent

    @property
    def notices(self) -> list[str]:
        """Things the vault did on its own that a person should hear about (recovered writes)."""
        return self.ws.notices

    # -- creation --------------------------------------------------------------------------
    @classmethod
    def init(cls, path: str | Path, *, agent: str | None = None) -> Vault:
        """Create a vault from the template and make its first commit.

        In a folder inside an existing repository only that folder's files are committed. The
        vault folder, its own repository, its state and what init made in it are made this
        user's alone, whatever the umask; what the folder held before is left as it is
        (:meth:`~vault_mem.store.workspace.Workspace.make_private`; ``made_private``: the paths
        closed)."""
        target = Path(path).expanduser().resolve()
        fresh, had_git = not target.exists(), (target / ".git").exists()
        root, created = create_files(path)
        vault = cls(root, agent=agent)
        vault.ws.approve_settings()  # the person who makes a vault approves its first settings
        record_vault(vault.root, "init")  # and it is this machine's vault wherever a vault.toml appears later
        vault.notices.extend(first_commit(vault.ws, vault.sidecar, created))
        # what init made: a folder it made holds nothing else; in one that held files (a site's,
        # a project's, a home folder) only the files and the repository init made
        made = [root] if fresh else [*created, root / INDEX_FILE, *([] if had_git else [root / ".git"])]
        # the memory is this user's alone, whatever the umask (doctor's rule)
        vault.made_private = vault.ws.make_private([p for p in made if p.exists()])
        return vault

    def install_hooks(self) -> list[str]:
        """Add or repair the vault's git hooks (and the INDEX.md merge driver, which git config
        does not carry through a clone); returns one note per hook saying what changed. Run by
        ``vault-mem hooks install`` and by ``vault-mem init`` on an existing vault or a clone."""
        return install_hooks(self.ws)

    # -- helpers ---------------------------------------------------------------------------
    def identity(self, agent: str | None = None) -> Identity:
        return self.ws.identity(agent)

    def find_file(self, key: str) -> tuple[str, str] | None:
        """(type, rel path) of ``key`` on disk, checking every type folder."""
        return self.ws.find_file(key)

    def read_memory(self, rel: str) -> Memory:
        """Parse the memory file at vault-relative ``rel`` through the one safe reader."""
        return self.ws.read_memory(rel)

    def daemon_running(self) -> bool:
        return self.ws.daemon_running()

    def transaction(self) -> WriteTransaction:
        """The write transaction every write of this vault goes through.

        Refused at once when the index cannot be written: the write would change the file and
        then fail to index and commit it."""
        self.sidecar.follow_replaced_file()
        if self.sidecar.read_only:
            raise IndexStoreError(f"nothing was written: {self.sidecar.read_only}")
        return WriteTransaction(self.ws, self.sidecar, kept_exactly=self.kept_exactly)

    def reconcile(self, *, force: bool = False, recover: bool = True, progress=None, whole_index: bool = False):
        """Bring the sidecar (and INDEX.md on disk) in line with the files.

        Every read calls this, so results are never stale; it is cheap when nothing changed
        (one stat per file). Skipped while a daemon runs (it keeps them in line) unless
        ``force``. ``recover=False`` leaves an interrupted agent write alone: git hooks run
        inside a person's commit, while git holds its index.lock, and must not commit (nor
        take that index.lock for a sign to hold INDEX.md back). An INDEX.md that a person's git
        operation held back is written by the next reconcile once it is over, changed files or
        not, and committed alone in the person's name (:mod:`vault_mem.vault.person`).
        ``whole_index``: INDEX.md is rendered and compared even when the sidecar was already in
        line (a git hook: a write racing the checkout, or a reader's lock-free reconcile, may have
        brought the sidecar in line while INDEX.md still lists the other tree's files)."""
        self.sidecar.follow_replaced_file()  # a long-lived process's index replaced: opened again
        if not force and self.kept_current is not None and self.kept_current():
            return None
        if not force and self.daemon_running():
            return None
        if self.sidecar.read_only:
            return self._reconcile_read_only(progress)
        try:
            return self._reconcile(recover=recover, progress=progress, whole_index=whole_index)
        except (IndexStoreError, database_error()) as exc:
            # busy: another process held the index's write lock past the busy timeout, in the
            # rows' reconcile (an IndexStoreError) or a write of its own besides (a bare SQLite
            # error: the keys' owners worked out again after an approval)
            busy = not force and is_busy(exc)
            if not busy and not (isinstance(exc, IndexStoreError) and self.sidecar.db.read_only):
                raise
            if not isinstance(exc, IndexStoreError):
                exc = busy_error(self.sidecar.db.path, exc)
            # the disk filled up (or turned read-only) after the index was opened: a long-lived
            # process (an MCP server, an API caller), or a one-shot one whose disk filled between
            # its open and its reconcile (bench/chaos.py); or another process held the index's
            # write lock past the busy timeout (a read: the sidecar is derived state, the rows
            # are brought in line by the next read): the read answers from the index as it is
            note = f"answers may miss the latest edits to the memory files: {exc}"
            if note not in self.notices:
                self.notices.append(note)
            return None

    def _owners_follow_approvals(self) -> bool:
        """Of two files of one key, a trusted one owns it (:func:`key_owners`), worked out
        when the key's files are indexed: an approval of an author (``vault-mem trust
        --author``) changes no file, so the owners are worked out again when the approvals
        differ from those they were worked out under (a rebuild then gives the same owner).
        True when an owner changed (INDEX.md is rendered again)."""
        approved = _approvals_key(self.root)
        if self.sidecar.get_meta(_OWNERS_APPROVED) == approved:
            return False
        changed = self.sidecar.resolve_shared_keys()
        self.sidecar.set_meta(_OWNERS_APPROVED, approved)
        return changed

    def _reconcile(self, *, recover: bool, progress, whole_index: bool):
        if not self.lock.acquire(blocking=False):
            # A writer holds the lock: a read never waits for it. The sidecar is brought up to
            # the files without the lock (each row is upserted by what its file holds, in its
            # own transaction; a row read just before a write is redone by the next reconcile,
            # its mtime no longer matching), and the writer rewrites INDEX.md and recovers.
            return self.sidecar.reconcile(progress=progress or self.progress)
        try:
            if recover and self._can_recover():
                self.recover()
            report = self.sidecar.reconcile(progress=progress or self.progress)
            owners = self._owners_follow_approvals()
            if (whole_index or report.changed or owners or not (self.root / INDEX_FILE).exists()
                    or index_owed(self.ws)):
                written = self.write_index(in_git_hook=not recover)
                if written.was_owed and recover:
                    self.commit_owed_index()
        finally:
            self.lock.release()
        return report

    def commit_owed_index(self) -> None:
        """INDEX.md held back by a person's git operation was written now that it is over: when
        that operation's commits left the committed INDEX.md stale, it is committed alone in the
        person's name (:func:`~vault_mem.vault.person.commit_persons_index`, the one rule), never
        left for the next agent commit to carry. A failure is a notice (INDEX.md on disk is
        current; the next commit carries it). The caller holds the write lock, and has just
        written INDEX.md (:meth:`write_index`'s ``was_owed``)."""
        try:
            person.commit_persons_index(
                self.ws, self.sidecar,
                "INDEX.md was held back while a git operation of yours was under way, and that operation's "
                "commits left it as it was; regenerated from the committed memory files by the next vault-mem "
                "command.")
        except (VaultMemError, OSError) as exc:
            self.notices.append(f"INDEX.md was brought up to date but not committed ({exc}); the next commit "
                                "carries it")

    def _reconcile_read_only(self, progress):
        """Reads from an index this process cannot write: answered from it as it is (no lock,
        no recovery, no INDEX.md); when the files changed since, a notice says the answer may
        miss that and how to fix the index."""
        try:
            return self.sidecar.reconcile(progress=progress or self.progress)
        except IndexStoreError as exc:
            note = f"answers may miss the latest edits to the memory files: {exc}"
            if note not in self.notices:
                self.notices.append(note)
            return None

    def _can_recover(self) -> bool:
        """False when git cannot take a commit now (a damaged ref or index): an interrupted write
        waits for the repair, and reads still answer (a write says what to fix)."""
        return self.ws.repository_problem() is None

    def render_index(self, today: dt.date | None = None, *, budget_tokens: int | None = None) -> str:
        """INDEX.md as the files give it today (not written; see :meth:`write_index`); with
        ``budget_tokens``, within that budget instead of the vault's (a context of fixed size)."""
        budget = self.config.index_budget_tokens if budget_tokens is None else budget_tokens
        return self.sidecar.render_index(budget_tokens=budget, today=today)

    def index_md_current(self) -> bool:
        """INDEX.md on disk is one that belongs there: the files' today (what ``vault-mem index
        --write`` and the pre-commit hook write), or HEAD's while only vault-mem's own catching
        up, an expiry, differs (:func:`~vault_mem.vault.steps.index_due`, what reads keep)."""
        path = self.root / INDEX_FILE
        if read_own(path, max_bytes=0) is None:  # a link or no regular file refused; nothing read
            return False
        # compared, never read whole: a peer's INDEX.md may be any size
        return any(holds(path, due) for due in (index_due(self.ws, self.sidecar, keep_committed=False),
                                                index_due(self.ws, self.sidecar)))

    def index_md(self, *, max_bytes: int | None = None) -> str | None:
        """INDEX.md's text on disk (None: no file), its first ``max_bytes`` bytes when given (0:
        only the check); a symlinked INDEX.md is refused, never served
        (:class:`~vault_mem.errors.LinkError`), whatever it points at."""
        data = read_own(self.root / INDEX_FILE, max_bytes=max_bytes)
        return data.decode("utf-8", "replace") if data is not None else None

    def _index_md_version(self) -> settle.Stamp | None:
        """INDEX.md's stamp on disk (:class:`~vault_mem.platform.settle.Stamp`), None when there is
        none: every write of it is a rename of a new file, so a change is a new version, told
        without reading it."""
        self.index_md(max_bytes=0)  # a symlinked INDEX.md is refused by name
        try:
            return settle.stamp(os.lstat(self.root / INDEX_FILE))
        except FileNotFoundError:
            return None

    def write_index(self, *, in_git_hook: bool = False, keep_committed: bool = True,
                    held: frozenset[str] = frozenset()) -> IndexWrite:
        """Regenerate INDEX.md on disk, unless a person's git operation is under way or git's
        index.lock is held (``in_git_hook``: by the running git itself); says which
        (:class:`~vault_mem.vault.steps.IndexWrite`: the new bytes when they changed, or what held
        the write back). ``keep_committed``, ``held``: see :func:`~vault_mem.vault.steps.write_index`."""
        return write_index(self.ws, self.sidecar, in_git_hook=in_git_hook, keep_committed=keep_committed, held=held)

    @contextlib.contextmanager
    def locked_or_beside(self) -> Iterator[frozenset[str] | None]:
        """The write lock (yields None), or, while its holder's write waits for a person's git
        command (:meth:`~vault_mem.store.locks.WriteLock.acquire_or_beside`), its work-tree part
        alone: yields that write's files, which the block leaves alone, and it finishes no
        interrupted write (the journal is that write's). The daemon's catching up with a stash
        pop, a checkout: what it puts back then stops refusing the person's next checkout."""
        held = None if self.lock.acquire_or_beside() else files_in_flight(self.ws)
        if held is None:
            if not self.lock.held:  # beside a holder whose journal cannot be read: not beside, then
                self.lock.work.release()
                self.lock.acquire()
            try:
                yield None
            finally:
                self.lock.release()
            return
        try:
            yield held
        finally:
            self.lock.work.release()

    def reindex(self, *, progress: Progress | None = None) -> ReconcileReport:
        """Rebuild the sidecar from the files (it holds nothing else) and regenerate INDEX.md,
        under the write lock (``vault-mem reindex``); returns what the rebuild found."""
        with self.lock:
            report = self.sidecar.rebuild(progress=progress)
            self.write_index()
        return report

    # -- reads -----------------------------------------------------------------------------
    def get(self, key: str) -> Memory:
        """The whole memory with this key; a file holding a credential is refused
        (:class:`~vault_mem.errors.QuarantinedFileError`, naming the file, kind and line)."""
        validate_key(key)
        self.reconcile()
        found = self.find_file(key)
        if not found:
            raise MemoryNotFoundError(self._not_found(key))
        return self.read_memory(found[1])

    def list(self, *, type: str | None = None, tags: Iterable[str] | None = None) -> list[dict]:
        """Keys and descriptions of every usable memory (optionally one type / with all tags)."""
        tag_list = list(tags or [])
        check_text("tags", tag_list)
        self.reconcile()
        want_type = validate_type(type) if type else None
        return self.sidecar.list_entries(type=want_type, tags=tag_list)

    def recall(self, query: str, *, k: int | None = None, type: str | None = None,
               tags: Iterable[str] | None = None, scope: str | None = None,
               include_expired: bool = False, full: bool = False, queries: Iterable[str] | None = None,
               trusted_only: bool = False):
        """Hybrid search; see :meth:`Sidecar.recall`. Each hit carries a bounded excerpt of its
        body (:func:`~vault_mem.model.views.body_excerpt`: cut at a line, a procedure whole or
        as a pointer, ``hit.excerpt`` set when cut); ``full=True`` gives the whole bodies.
        ``queries``: up to MAX_QUERIES other phrasings of the same request (the calling agent's
        rewordings: other words a memory may use), searched with ``query``; each memory is
        scored by the phrasing that matches it best, and the verdict still reads ``query``.
        ``trusted_only`` (what reaches an agent unasked: the prompt hook): the memories of authors
        not trusted here are left out of the search itself, not dropped from its top ``k``, so
        a peer's look-alikes cannot push the person's own memories out."""
        tags = list(tags or [])
        queries = [queries] if isinstance(queries, str) else list(queries or [])
        if len(queries) > MAX_QUERIES or not all(isinstance(q, str) for q in queries):
            raise UsageError(f"queries must be a list of at most {MAX_QUERIES} phrasings (strings)")
        check_text("the query, queries, tags or scope", query, queries, tags, scope)
        if k is not None and (not isinstance(k, int) or k < 1 or k > 100):
            raise UsageError("k must be a whole number from 1 to 100")
        type = validate_type(type) if type else None
        def search(only_trusted: bool = trusted_only):
            return self._search(query, k=k, type=type, tags=tags, scope=scope,
                                include_expired=include_expired, full=full, queries=queries,
                                trusted_only=only_trusted)

        def answer():
            result = search()
            if trusted_only or all(h.trusted for h in result.hits):
                return result
            # a peer's hits take at most k // 2 of the person's places (model/fusion.PEERS_SHARE): a
            # recall they reach is asked again without them, and the two are kept together
            # (recall on request still finds a peer's answer, marked)
            return _trusted_kept(result, search(True).hits, k or self.config.recall_k)

        # one share of owed vectors for the whole recall (its reconcile, the bar's, the search's
        # each made one: 10 to 15 s where 5 were meant)
        with self.sidecar.vectors.owed_share():
            self.index_unchecked = False
            finish = self.kept_meanwhile() if self.kept_meanwhile is not None else None
            if finish is None:
                if self.kept_current is None:  # no watcher: the model loads while the files are stat'ed
                    self.sidecar.vectors.begin_model_load()
                self.reconcile()
            try:
                result = answer()
            finally:
                changed = finish() if finish is not None else False
            # a change made before this call whose events came in while it searched: the answer
            # must hold it (never stale), so the search runs again on the sidecar that now does
            if changed:
                result = answer()
            result.unchecked = self.index_unchecked
            return result

    def _search(self, query: str, *, k: int | None, type: str | None, tags: list[str], scope: str | None,
                include_expired: bool, full: bool, queries: list[str], trusted_only: bool = False):
        """:meth:`recall` on the sidecar as it is (caught up by the caller)."""
        if self.progress is not None:  # the bar drawn for the share made now (else recall makes it, silently)
            self.sidecar.vectors.embed_owed(progress=self.progress)
        # a peer's supersedes hides nothing: the authors of the memories that supersede one
        # (few), not of every memory (O(vault) per recall where a peer wrote most of them).
        # Who wrote what is read once for the recall: the identities and the texts' first
        # authors (the refs stamped once, not per lookup)
        ids = authors.identities(self.ws)
        origins: authors.Origins | None = None

        def who_made(rels: list[str]) -> dict[str, Author]:
            nonlocal origins
            if rels and origins is None:
                origins = authors.Origins(self.ws, self.sidecar, ids)
            return authors.authors_of(self.ws, self.sidecar, rels, ids, origins=origins)

        distrusted = self.untrusted_superseders(who_made)
        if trusted_only:
            if origins is None:
                origins = authors.Origins(self.ws, self.sidecar, ids)
            excluded = self._kept_peers.paths(self._kept_peers.peer_memories(self.ws, self.sidecar, ids, origins))
        else:
            excluded = ()
        result = self.sidecar.recall(
            query, k=k or self.config.recall_k, type=type,
            tags=tags or None, scope=scope, include_expired=include_expired,
            distrusted=distrusted, queries=queries,
            excluded=excluded,
        )
        for hit in result.hits:
            # a description is one line within the write rules' length; --full asks for bodies whole
            hit.description, hit.excerpt = description_excerpt(hit.key, hit.description)
            if not full:
                hit.body, body_cut = body_excerpt(hit.key, hit.type, hit.body)
                hit.excerpt = hit.excerpt or body_cut
        who = who_made([h.path for h in result.hits])
        for hit in result.hits:
            hit.author, hit.trusted = who[hit.path].email, who[hit.path].trusted
        return result

    def untrusted_superseders(self, who_made: Callable[[list[str]], dict[str, Author]] | None = None) -> set[str]:
        """The memories (paths) whose ``supersedes`` hides nothing: those of a peer not approved
        here (DESIGN §7). The one rule for recall, ``get``'s supersession and ``review``: a
        peer's ``supersedes: [your-key]`` neither hides the person's memory nor marks it
        superseded (``get`` said "read the peer's for the current version", ``review`` "forget
        it"). Asks only for the authors of the memories that supersede one (few in any vault);
        ``who_made``: instead of :meth:`authors` (a recall reads authors once for all)."""
        rels = self.sidecar.superseder_paths()
        if not rels:
            return set()
        who = (who_made or self.authors)(rels)
        return {path for path, author in who.items() if not author.trusted}

    def _peer_keys(self, keys: list[str]) -> set[str]:
        """Of ``keys``, those whose memory was last changed by an author not trusted here."""
        paths = {found[1]: key for key in keys if (found := self.find_file(key)) is not None}
        return {paths[rel] for rel, who in self.authors(list(paths)).items() if not who.trusted}

    def authors(self, rels: list[str], *, check_disk: bool = True) -> dict[str, Author]:
        """Who last changed each of the memory files ``rels`` (vault-relative), from git, and
        whether they are trusted here (:mod:`vault_mem.vault.authors`)."""
        return authors.authors_of(self.ws, self.sidecar, rels, check_disk=check_disk)

    def peer_memories(self) -> dict[str, Author]:
        """The memories (by path) last changed by an author not trusted on this machine: never
        put in front of an agent unasked until the person approves that author."""
        self.reconcile()
        return authors.peer_memories(self.ws, self.sidecar)

    def judge_peers(self, *, to: Vault | None = None, judged: Callable[[], None] | None = None) -> int:
        """Judge which memories are a peer's and keep the judgement (in this vault, and in the
        sidecar for the next process: :class:`KeptPeers`), as a read that leaves them out would;
        how many there are. A long-lived server does it at start-up, on a vault of its own, so
        that its first read brings the judgement kept along instead of making it: ``to``, the
        served vault (of this folder, in this process), is handed the judgement itself, then
        ``judged`` is called, and only then is it written to the sidecar, waiting for another
        writer if one holds the lock (no read waits for this write; a write given up at once
        when busy lost it, and every later process judged every memory again)."""
        ids = authors.identities(self.ws)
        origins = authors.Origins(self.ws, self.sidecar, ids)
        kept = self._kept_peers
        kept.hold = to is not None
        try:
            found = len(kept.peer_memories(self.ws, self.sidecar, ids, origins))
        finally:
            kept.hold = False
        if to is not None:
            to.offer_judgement(kept.made)
            if judged is not None:
                judged()
            kept.keep_held(self.sidecar)
        return found

    def offer_judgement(self, made) -> None:
        """Bring the judgement ``made`` (another vault's of this folder in this process, as
        :meth:`judge_peers` ``to=`` hands it) along at this vault's first read that has none of
        its own (:meth:`KeptPeers.offer`)."""
        self._kept_peers.offer(made)

    def _floor_uncounted(self) -> tuple[str, ...]:
        """The paths of the memories whose vectors the relevance floor's calibration leaves out
        (``VectorStore.uncounted``): those last changed by an author not trusted here, as the
        vault judges them for the session context and the prompt hook (:class:`KeptPeers`)."""
        ids = authors.identities(self.ws)
        origins = authors.Origins(self.ws, self.sidecar, ids)
        return tuple(self._kept_peers.peer_memories(self.ws, self.sidecar, ids, origins))

    def render_trusted_index(self, today: dt.date | None = None, *, budget_tokens: int | None = None
                             ) -> tuple[str, Legend, dict[str, Author]]:
        """INDEX.md as an agent's context carries it: without the memories of peers not approved
        here, each line naming its author (``by A``, with the legend); and those memories by path.
        ``budget_tokens``: instead of the vault's (a context of fixed size)."""
        ids = authors.identities(self.ws)
        origins = authors.Origins(self.ws, self.sidecar, ids)  # the refs stamped once for both
        peers = self._kept_peers.peer_memories(self.ws, self.sidecar, ids, origins)
        legend = Legend()
        budget = self.config.index_budget_tokens if budget_tokens is None else budget_tokens
        text = self.sidecar.render_index(budget_tokens=budget, today=today,
                                         hidden=self._kept_peers.paths(peers), for_file=False,
                                         author_of=authors.author_tagger(self.ws, self.sidecar, legend, ids, origins,
                                                                         changed=self._kept_peers.dirty(self.ws, peers)))
        return text, legend, peers

    def _not_found(self, key: str) -> str:
        import difflib  # lazy: only a missing key needs it (start-up time, issue 29)

        close = difflib.get_close_matches(key, self.sidecar.keys(), n=3, cutoff=0.6)
        if close:  # a key is a name its author chose: a peer's never offered in our sentence
            peers = self._peer_keys(close)
            close = [c for c in close if c not in peers]
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
        pinned: bool | None = None,
        expires: dt.date | str | None = None,
        supersedes: Iterable[str] | None = None,
        scope: str | None = None,
        refs: Iterable[str] | None = None,
        extra: dict[str, Any] | None = None,
        agent: str | None = None,
    ) -> WriteResult:
        """Create or update the memory ``key``; one commit, or none for an identical write.

        The frontmatter fields of DESIGN §1 are keyword arguments: ``pinned`` (listed first in
        INDEX.md; False unpins), ``expires`` (a date or YYYY-MM-DD), ``supersedes`` (keys this
        replaces), ``scope`` and ``refs`` (repository paths). Left as None, an update keeps what
        the file has. ``extra`` carries any other field (None as a value removes it); a field
        given both ways is refused. All of them pass the same checks
        (:func:`~vault_mem.model.memory.known_field_value`)."""
        extra = _fields(extra, pinned=pinned, expires=expires, supersedes=supersedes, scope=scope, refs=refs)
        validate_key(key)
        type_ = validate_type(type)
        if isinstance(description, str):
            description = description.strip()
        body = "" if body is None else body
        tag_list = list(tags) if tags is not None else None
        warnings = self.ws.policy.check_request(key=key, type=type_, description=description, body=body,
                                                tags=tag_list, extra=extra, agent=agent)
        with self.transaction() as tx:
            today = dt.date.today()
            found = self.find_file(key)
            old: Memory | None = None
            old_bytes: bytes | None = None
            if found:
                old, old_bytes = self._read_for_update(tx, found[1])
            # a peer's file (its author not approved here) lends the write none of its fields:
            # kept, its `supersedes`, `pinned` or `tags` would pass into this machine's trusted
            # commit (an agent updating it, as the write policy asks, hid the person's memory a
            # peer's `supersedes` named); the write starts a new file in its place
            inherit = found is not None and old is not None and old_bytes is not None and \
                authors.author_of_bytes(self.ws, self.sidecar, found[1], old_bytes).trusted
            meta = build_meta(old.meta if inherit else None, description=description, today=today,
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
                    exclude=new.supersedes, peers=self._peer_keys)]
            # an update rewrites the old file in place: a person's comments and layout survive
            if (old is None or old.path != new.path) and self.ws.disk_bytes(new.path) is not None:
                # the key's file in another type folder too (a person's file there): never replaced
                # unless it is committed, so nothing of it can be lost
                tx.expect(new.path, self.ws.check_not_dirty(new.path))
            changes: dict[str, bytes | None] = {new.path: self.ws.policy.file_bytes(new, old=old_bytes if inherit else None)}
            if old is not None and old.path != new.path:
                changes[old.path] = None
            subject = f"{'move' if action == 'move' else 'remember'}: {key} — {description}"
            commit = tx.commit(changes, subject, key=key, action=action, type_=type_, agent=agent)
            return WriteResult(key, type_, new.path, action, commit, [*warnings, *tx.warnings])

    def forget(self, key: str, *, agent: str | None = None) -> WriteResult:
        """Delete the memory ``key`` (a commit; the text stays in git history)."""
        validate_key(key)
        with self.transaction() as tx:
            found = self.find_file(key)
            if not found:
                raise MemoryNotFoundError(self._not_found(key))
            type_, rel = found
            tx.expect(rel, self.ws.check_not_dirty(rel))
            try:
                desc = self.ws.read_memory(rel).description
            except QuarantinedFileError:
                desc = "(a file that held a credential)"  # forgetting it is one fix; never quote it
            except MalformedFileError:
                desc = "(unreadable file)"  # a broken file can still be forgotten
            commit = tx.commit({rel: None}, f"forget: {key} — {desc}", key=key,
                               action="forget", type_=type_, agent=agent)
            return WriteResult(key, type_, rel, "forget", commit, tx.warnings)

    def _read_for_update(self, tx: WriteTransaction, rel: str) -> tuple[Memory, bytes]:
        try:
            data = self.ws.check_not_dirty(rel)
            old = self.ws.read_memory(rel, quarantined=True)  # the write gate vets what replaces it
        except MalformedFileError as exc:
            raise MalformedFileError(
                f"{exc}; fix the file by hand (or `vault-mem forget` it) before writing this key"
            ) from exc
        tx.expect(rel, data)
        return old, data

    def check_not_dirty(self, rel: str) -> bytes:
        """Refuse to overwrite a person's uncommitted edit: it would be lost (it is in no commit)."""
        return self.ws.check_not_dirty(rel)

    def check_git_state(self) -> None:
        """Refuse to write while git is in the middle of a merge, rebase, revert, ..."""
        self.ws.check_git_state()

    def recover(self) -> str | None:
        """Finish (or roll back) a write or sync that a crash interrupted; caller holds the lock.
        Returns what was done, also kept in :attr:`notices`, or None."""
        return "; ".join(recover(self.ws, self.sidecar)) or None

    # -- history (vault_mem/vault/history.py) -----------------------------------------------
    def log(self, key: str | None = None, *, limit: int = 20) -> list[LogEntry]:
        """Commits that touched the vault (or one key's file in any type folder), newest first."""
        try:
            return _history().log(self.ws, key, limit=limit)
        except GitError as exc:
            problem = self.ws.repository_problem()  # git's own words do not say how to fix it
            if problem:
                raise GitError(problem) from exc
            raise

    def undo(self, target: str, *, agent: str | None = None, commit: bool = False) -> WriteResult:
        """Revert the last agent commit for key ``target`` (or the commit ``target``; ``commit``:
        ``target`` is a commit id, never a key); see :func:`vault_mem.vault.history.undo`."""
        with self.transaction() as tx:
            return _history().undo(tx, target, agent=agent, commit=commit)

    # -- bulk ------------------------------------------------------------------------------
    def import_memories(self, memories: Iterable[Memory], *, message: str) -> str | None:
        """Write many memories as ONE commit (bulk import, e.g. `vault-mem eval`).

        Each memory passes the write policy of a single write (valid fields, size, no
        credential, a file that reads back as written) and may not overwrite a person's
        uncommitted edit, all before any file is written; then the transaction's usual
        checked write, sidecar + INDEX.md + commit."""
        with self.transaction() as tx:
            files: dict[str, bytes | None] = {}
            for mem in memories:
                self.ws.check_inside(mem.path)
                if os.path.lexists(self.root / mem.path):
                    tx.expect(mem.path, self.ws.check_not_dirty(mem.path))
                files[mem.path] = self.ws.policy.file_bytes(mem)
            if not files:
                return None
            return tx.write(files, message)

    def regenerate_index(self, *, recover: bool = True) -> bool:
        """Rewrite INDEX.md on disk from the files, today's date included (``vault-mem index
        --write``, and the pre-commit hook, whose commit carries it); True when it changed (not
        committed)."""
        with self.lock:
            before = self._index_md_version()
            self.reconcile(force=True, recover=recover)  # rewrites INDEX.md itself when files changed
            self.write_index(in_git_hook=not recover, keep_committed=False)
            return self._index_md_version() != before

    def take_notices(self) -> list[str]:
        """The notices not reported yet, each handed out once (and cleared). A history read
        that met a missing or corrupt object answered from the commits git could read: said
        here, once per command, with the fix."""
        damage, self.repo.damage = self.repo.damage, None
        if damage:
            note = (f"answered from the git history that could be read (who wrote a memory, when it changed, "
                    f"its log may be incomplete): {damage}")
            if note not in self.notices:
                self.notices.append(note)
        out = self.notices[:]
        self.notices.clear()
        return out

    def notices_now(self) -> list[str]:
        """:meth:`take_notices` for a process that answers for long (an MCP server, an agent
        loop over :func:`~vault_mem.adapters.tools.call_tool`): the vault's state as it is now
        (:meth:`~vault_mem.store.workspace.Workspace.state_notices`, the daemon's every answer
        says the same), then the events not reported yet. What the opening said of the state is
        not said again from then (it may be resolved since). An MCP server said its opening's
        notices once and never looked again: a peer's vault.toml a sync in another terminal took
        during the session, waiting for approval, was said in no result (inj33)."""
        events = [n for n in self.take_notices() if n not in self.ws.opening_state]
        return list(dict.fromkeys([*self.ws.state_notices(), *events]))

    def close(self) -> None:
        """Release the sidecar's database and the repository's git processes (a closed vault
        reopens them on the next use of either), after stopping what was installed to close with
        it (a watcher of this process: :attr:`closers`)."""
        closers, self.closers = self.closers, []
        for close in closers:
            close()
        self.sidecar.close()
        self.repo.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _fields(extra: dict[str, Any] | None, **named: Any) -> dict[str, Any] | None:
    """``extra`` plus the named frontmatter fields that were given (not None); a field named both
    ways is refused rather than one of them silently winning."""
    given = {k: (list(v) if k in ("supersedes", "refs") and not isinstance(v, str) else v)
             for k, v in named.items() if v is not None}
    both = sorted(set(given) & set(extra or {}))
    if both:
        raise UsageError(f"remember: {', '.join(both)} given both as an argument and in extra=; pass it once")
    merged = {**(extra or {}), **given}
    return merged or None


def _trusted_kept(result, trusted: list, k: int):
    """``result`` (a recall's top ``k``, some hits a peer's) holding the memories trusted here
    that a recall without the peers' memories finds (``trusted``, its hits): the lowest-ranked
    of the peers' hits make room for any it lacks (:func:`~vault_mem.model.fusion.keep_trusted`,
    the one rule, also across vaults). At most k: the two searches rank apart (fused ranks move
    when the peers' hits leave), so a memory of the person's in the first top k can be missing
    from the second's.

    The levels, and so the verdict, are the person's to decide (atk25): a peer's hit is a
    candidate, never strong (strong is what may be put in front of the agent unasked, DESIGN
    §4, and a peer's memory never is, §7), and each of the person's hits keeps the level the
    search without the peers gave it. Before, a peer's look-alike worded like the question
    (ranked first, strong) made the result's verdict ``strong`` on its own and demoted the
    person's own answer to a candidate by the lead (a strong hit must be about as close as the
    first): the agent read a peer's memory as the one sure answer. A result's levels are set here
    once, so the verdict, the CLI, MCP and a merge across vaults (strong before candidate) read
    the same; the person's strong hits come first, the other hits after them in rank order."""
    from vault_mem.index.levels import PEERS
    from vault_mem.model.fusion import keep_trusted  # lazy: a write never merges hits (start-up time)
    from vault_mem.model.verdict import CANDIDATE, STRONG

    alone = {h.path: h.match for h in trusted}
    for hit in result.hits:
        if hit.trusted:
            hit.match = alone.get(hit.path, hit.match)
            if hit.match == STRONG:
                result.demoted.pop(hit.key, None)
        elif hit.match == STRONG:
            hit.match = CANDIDATE
            result.demoted[hit.key] = PEERS
    result.hits = keep_trusted(result.hits, trusted, k, ident=lambda h: h.path, trusted=lambda h: h.trusted,
                               order=lambda h: -h.score)
    # the person's strong hits first, the rest in rank order (as a merge across vaults puts each
    # vault's strong hits first): a peer's look-alikes ranked above the person's answer, whole
    # bodies asked for, made a result whose first 120 KB were the peer's, past what a client
    # hands its model of one result (atk25)
    result.hits.sort(key=lambda h: not (h.trusted and h.match == STRONG))
    return result

