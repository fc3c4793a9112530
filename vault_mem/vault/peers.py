"""The peers' memories a read leaves out, judged once per state of what the judgement reads.

What reaches an agent unasked (the prompt hook, a recall asked again without the peers' hits,
the session context) leaves out every memory whose author is not trusted here
(:func:`vault_mem.vault.authors.peer_memories`). That set is a judgement over every memory a
peer's commit last changed: in a clone of a team's vault, or any vault committed by plain git,
that is nearly every memory, and judging it cost ~1.8 s of CPU per read at 100k (issue 29).
It is kept here, per open vault, and given again while nothing it is worked out from changed:

- the rows of the sidecar (authors, origins, lineage, the files and their ``usable`` flag,
  the committed view), by :meth:`~vault_mem.index.sidecar.Sidecar.changes_stamp`, which any
  write moves, whoever makes it; a read reconciles the files (or its watcher catches up)
  before it asks, so a file changed on disk (a hand edit over a peer's memory) moves it too.
  What a read writes on the side that changes no answer (the judgement's own caches of git's
  answers for HEAD: a path's history, the state a history leaves; the kept table) moves it not
  (:meth:`~vault_mem.index.db.Database.uncounted`): counted, the judgement's own cache made the
  next read judge the whole vault again with nothing changed;
- HEAD (the rows are brought to it first: :func:`~vault_mem.vault.authors.refresh`) and git's
  index file (a change staged or unstaged alone);
- the identities: this machine's person and agents, the authors approved here (``vault-mem
  trust --author``) and the commits made here.

**Judged again where it changed, not everywhere.** When the state moved, the judgement kept is
brought along: only the paths a change can have touched are judged again
(:func:`~vault_mem.vault.authors.peer_judgement` with ``only``), the rest keep their answer.
Why that equals a judgement of every memory from scratch (``tests/test_peer_judged_again.py``
compares the two after every step of random sequences of real changes): the judgement of a path
``p`` reads (1) the identities, (2) ``p``'s rows (``authors``, ``files`` path/blob/``usable``,
``differs``, ``foreign_texts``), (3) whether ``git status`` names ``p`` and, if so, its bytes,
(4) where the texts it holds were first seen (``origins``), (5) the lineage and moves kept in
``meta``, (6) ``p``'s history (the commits of HEAD's history that changed ``p``, with their
authors' standing) and that of the paths it was moved from. So ``p`` is judged again when:

- (2), (4): the sidecar's triggers logged a change of one of its rows, or of the ``origins`` row
  of a blob it holds (``judge_log``, :func:`~vault_mem.index.authors.judge_log_since`: every
  writer, every process; a log that no longer reaches back: everything judged again);
- (3): ``git status`` names it now and did not, or the other way round. What git status says
  of a file depends on its HEAD version, its bytes and its index entry alone, so it is asked
  again only of the files whose HEAD version (the commits below), bytes (their logged rows) or
  index entry moved: staged or not, marked apart or not (assume-unchanged, skip-worktree), by
  :func:`~vault_mem.store.worktree.index_marks`, two cheap git processes taken before the
  status; past :data:`STATUS_ASKED_AT_MOST` such files, of the whole vault (~0.26 s of CPU at
  100k). Exact for every memory file; the answer for other paths (INDEX.md) is not read;
- (5): it entered or left the lineage, or its move entry changed (a move made here or a peer's:
  one table, :func:`~vault_mem.index.authors.moved_from`; a peer's move forgotten past its
  bound is a changed entry too);
- (6): a commit in ``OLD...NEW`` (HEAD's commits that are in one history and not the other:
  a fast-forward, a reset, a force-push, a rebase) changed it, each merge against each parent
  (``git log -m``), since a path's history gains or loses exactly those commits; or a commit
  newly recorded as made here changed it (its standing moved), or gave a blob ``p`` holds (an
  ``origins`` row of it now trusted); the paths it was moved from are followed (a moved path
  is judged again when one of them is);
- always: every file whose bytes differ from HEAD and are a text some commit gave
  (:func:`~vault_mem.index.authors.foreign_changes`: a new file's move is judged from the whole
  vault's deleted paths), and, when a text's first commit was learnt or newly made here, the
  lineage, the moved paths and the changed candidates (their histories' texts are looked up).

The whole judgement again (and kept as the new base) when: there was none; the person, the
agents or the approvals changed (``vault-mem trust --author``: every standing may move), or a
commit made here was forgotten; the log no longer reaches back; git cannot list ``OLD...NEW``
(the old HEAD gone); more than :data:`CHANGED_AT_MOST` paths changed; the judgement has
:data:`~vault_mem.vault.authors.FILE_CHECKS` candidates or fewer (it reads their files instead
of ``git status``: cheap, and another rule); more than
:data:`~vault_mem.vault.authors.MOVES_FOLLOWED` moves are kept (the walk's bound is shared);
texts' origins are held in memory (a sidecar that cannot be written). Known limit, as
before: the judgement follows the rows, which a read's reconcile (or the process's watcher)
brings to the files first; an edit no reconcile has seen yet (one keeping a file's size and
modification time is seen by none) is judged at that path's next change, no longer at the next
change of anything.

Nothing is kept while a merge, cherry-pick, revert, rebase or squash is under way, or one git
merged awaits its commit (the files it brought are judged from git's own view of them), for a sidecar this process cannot write (its origins
are kept in memory), or when git reported damage meanwhile. A change to any of these makes the
next read judge again what it can have changed (once). Known limit: an edit that keeps a file's size and
modification time (``touch -r``) is seen by no reconcile (the search still shows the text it
indexed) and is judged at the next change of any of these; each hit's own author is judged from
the file as it is (:func:`~vault_mem.vault.authors.authors_of`), and the prompt hook injects only
hits judged trusted, so such an edit never puts a peer's text in front of the agent.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from vault_mem.errors import VaultMemError
from vault_mem.index import authors as rows
from vault_mem.index.pathsets import PathTable
from vault_mem.platform.logs import Logger
from vault_mem.store import history
from vault_mem.store.worktree import dirty_files, index_marks
from vault_mem.vault import authors

if TYPE_CHECKING:
    from vault_mem.index.sidecar import Sidecar
    from vault_mem.model.render import Author
    from vault_mem.store.workspace import Workspace

__all__ = ["CHANGED_AT_MOST", "KeptPeers", "STATUS_ASKED_AT_MOST"]

#: past this many paths to judge again (or commits newly recorded as made here), the whole
#: judgement is made again: a change that big (a sync of a team's month) is no saving
CHANGED_AT_MOST = 5000
#: past this many files whose ``git status`` may have moved, it is asked of the whole vault
STATUS_ASKED_AT_MOST = 256


class _Base:
    """What a kept judgement was made from, for judging again only what changed since."""

    def __init__(self, *, conn: object, ids: authors.Identities, head: str, seq: int, judgement: authors.PeerJudgement,
                 lineage: set[str], moved: dict[str, tuple[str, str, str]],
                 marks: tuple[set[str], set[str]] | None) -> None:
        # the connection itself, not its id: held, a closed one's id cannot pass for a new
        # connection's (a replaced index file, a reconnect), whose log counts from elsewhere
        self.conn, self.head, self.seq, self.marks = conn, head, seq, marks
        self.person, self.agents = frozenset(ids.person), frozenset(ids.agents)
        self.approved, self.local = frozenset(ids.approved), frozenset(ids.local)
        self.peers, self.judged, self.dirty = judgement.peers, judgement.judged, judgement.dirty
        self.lineage, self.moved = lineage, moved

log = Logger(__name__)  # logging imported at the first message (start-up time)

#: the parts of :meth:`KeptPeers._state`, named for the debug log of a judgement made again
STATE_PARTS = ("HEAD", "the sidecar's rows", "git's index", "the person", "the agents", "the approved authors",
               "the commits made here")


class KeptPeers:
    """:func:`~vault_mem.vault.authors.peer_memories` of one open vault, kept while what it is
    worked out from stays as it was, and brought along the paths a change touched when it does
    not (see the module docstring). One per :class:`Vault`: its sidecar's connection belongs to
    one thread.

    With the judgement it keeps what each read needs of it, so that a read costs what its hits
    cost, not the vault's size: the paths in a temporary table of the sidecar's connection
    (:class:`~vault_mem.index.pathsets.PathTable`: a search and the session context look up
    the rows they read, instead of binding every path as JSON per statement), and the paths
    that differ from HEAD (the session context's ``git status``, asked once per judgement)."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._peers: dict[str, Author] = {}
        #: the paths of :attr:`_peers` in a table of the sidecar's connection (None: none kept)
        self._table: PathTable | None = None
        #: the vault-relative paths that differ from HEAD, asked once per kept judgement
        self._dirty: set[str] | None = None
        #: how many times the whole set was judged, and why the last time (what moved, or why
        #: nothing is kept): for the debug log, benches and tests
        self.judgements = 0
        self.why: str = ""
        #: what the last judgement was made from (None: judged whole next time)
        self._base: _Base | None = None
        #: how the last answer was made: "kept" (nothing changed), "changed" (the paths a change
        #: touched judged again: how many in :attr:`rejudged`), "whole" (every memory judged)
        self.last: str | None = None
        self.rejudged = 0

    def peer_memories(self, ws: Workspace, sidecar: Sidecar, ids: authors.Identities,
                      origins: authors.Origins) -> dict[str, Author]:
        """The usable memories last changed by an author not trusted here, by path (the dict
        is shared: read it, do not change it). ``origins`` made by the caller (its scan of new
        refs is done before the state is read)."""
        key = self._state(ws, sidecar, ids)
        if key is not None and key == self._key:
            self.last = "kept"
            return self._peers
        seen = ws.repo.damage_seen
        self.judgements += 1
        self.why = _why(self._key, key)
        log.debug("vault-mem: the peers' memories judged again (%d): %s", self.judgements, self.why)
        base, self._base = self._base, None
        judgement = changed = marks = None
        seq = 0
        if key is not None:
            seq = rows.judge_log_head(sidecar.db)  # before the judgement reads: what moves later is judged next time
            marks = self._marks(ws)  # before git status is asked: an index change after it is seen next time
            if base is not None and marks is not None:
                found = self._changed(ws, sidecar, ids, origins, base, key[0], marks)
                if found is not None:
                    seq, judgement, changed = found
        if judgement is None:
            judgement = authors.peer_judgement(ws, sidecar, ids, origins)
            self.last, self.rejudged = "whole", len(judgement.judged)
        else:
            self.last, self.rejudged = "changed", len(changed or ())
        peers = judgement.peers
        table, self._table = self._table, None  # brought along with the judgement, or dropped
        if table is not None and changed is None:
            table.drop()
            table = None
        self._forget()
        if key is not None and ws.repo.damage_seen == seen:
            if peers:  # its table, like the judgement's caches of git's answers, moves no stamp
                if table is None or base is None or not table.refit(peers, changed or (), base.seq):
                    if table is not None:
                        table.drop()
                    table = PathTable(sidecar.db, peers)
                self._table = table
            elif table is not None:
                table.drop()
            self._key, self._peers, self._dirty = key, peers, judgement.dirty
            self._base = _Base(conn=sidecar.db.conn, ids=ids, head=key[0], seq=seq, judgement=judgement,
                               lineage=rows.lineage_paths(sidecar.db), moved=rows.moved_from(sidecar.db), marks=marks)
        elif table is not None:
            table.drop()
        return peers

    @staticmethod
    def _marks(ws: Workspace) -> tuple[set[str], set[str]] | None:
        """:func:`~vault_mem.store.worktree.index_marks` of the vault, vault-relative; None when
        git cannot say."""
        try:
            staged, marked = index_marks(ws.repo, ws.prefix or ".")
        except VaultMemError:
            return None
        n = len(ws.prefix)
        return {top[n:] for top in staged}, {top[n:] for top in marked}

    def _changed(self, ws: Workspace, sidecar: Sidecar, ids: authors.Identities, origins: authors.Origins,
                 base: _Base, head: str, marks: tuple[set[str], set[str]]) -> tuple[int, authors.PeerJudgement, set[str]] | None:
        """``(the log's entry it reflects, the judgement, the paths judged again)``: ``base``'s
        judgement brought along what changed since (the module docstring says which paths and
        why); None when it cannot be, and the whole judgement is to be made."""
        db = sidecar.db
        if (base.conn is not db.conn or base.dirty is None or base.marks is None
                or base.person != ids.person or base.agents != ids.agents
                or base.approved != ids.approved or not base.local <= ids.local or origins.unstored):
            return None
        moved = rows.moved_from(db)
        made_here = ids.local - base.local
        if len(moved) > authors.MOVES_FOLLOWED or len(made_here) > CHANGED_AT_MOST:
            return None
        logged = rows.judge_log_since(db, base.seq)
        if logged is None:
            return None
        seq, changed, blobs = logged
        learnt = bool(blobs)  # a text's first commit learnt: the histories' texts looked up again
        prefix = ws.prefix
        try:
            if head != base.head:  # the commits one history holds and the other does not
                tops, _given = history.changes_of(ws.repo, [f"{base.head}...{head}"], prefix)
                changed |= {top[len(prefix):] for top in tops if top.startswith(prefix)}
            if made_here:  # their standing moved: what they changed, and the texts they gave
                tops, given = history.changes_of(ws.repo, ["--no-walk=unsorted", *sorted(made_here)], prefix)
                changed |= {top[len(prefix):] for top in tops if top.startswith(prefix)}
                blobs |= given
        except VaultMemError:
            return None  # the old HEAD gone (a force-push, then a gc): git cannot say
        # git status moved only for files whose HEAD version, bytes (their rows) or index entry
        # (staged, or marked apart) changed: asked of those alone, the rest keep their answer
        moved_status = changed | (marks[0] ^ base.marks[0]) | (marks[1] ^ base.marks[1]) | set(rows.foreign_changes(db))
        dirty: set[str] | None = None
        if len(moved_status) <= STATUS_ASKED_AT_MOST:
            now = dirty_files(ws.repo, [prefix + rel for rel in sorted(moved_status)]) if moved_status else set()
            if now is not None:
                dirty = (base.dirty - moved_status) | {top[len(prefix):] for top in now}
        if dirty is None:
            dirty = authors.dirty_rels(ws)
        changed |= dirty ^ base.dirty
        lineage = rows.lineage_paths(db)
        changed |= lineage ^ base.lineage
        changed |= {rel for rel in moved.keys() | base.moved.keys() if moved.get(rel) != base.moved.get(rel)}
        if learnt or made_here:
            changed |= lineage | moved.keys() | (dirty & base.judged)
        changed |= rows.paths_holding(db, blobs)
        changed |= set(rows.foreign_changes(db))
        grew = True
        while grew:  # a moved path goes with the paths it was moved from
            grew = False
            for rel, (_commit, source, _gone) in moved.items():
                if source in changed and rel not in changed:
                    changed.add(rel)
                    grew = True
        if len(changed) > CHANGED_AT_MOST:
            return None
        judgement = authors.peer_judgement(ws, sidecar, ids, origins, only=changed, dirty=dirty)
        judged = (base.judged - changed) | judgement.judged
        if len(judged) <= authors.FILE_CHECKS:
            return None  # the whole judgement reads each file then, not git status: its own rule
        peers = {rel: who for rel, who in base.peers.items() if rel not in changed}
        peers.update(judgement.peers)
        return seq, authors.PeerJudgement(peers, judged, dirty), changed

    def paths(self, peers: dict[str, Author]) -> Collection[str]:
        """The paths of ``peers`` (an answer of :meth:`peer_memories`) as a read hands them to
        the sidecar: the kept table when ``peers`` is the kept judgement, else sorted."""
        if peers is self._peers and self._key is not None and self._table is not None:
            return self._table
        return tuple(sorted(peers))

    def dirty(self, ws: Workspace, peers: dict[str, Author]) -> set[str]:
        """The vault-relative paths that differ from HEAD (:func:`authors.dirty_rels`: a ``git
        status``), kept with the judgement ``peers`` (an answer of :meth:`peer_memories` just
        made: git's index, HEAD and the files' rows are part of its state)."""
        if peers is not self._peers or self._key is None:
            return authors.dirty_rels(ws)
        if self._dirty is None:
            self._dirty = authors.dirty_rels(ws)
        return self._dirty

    def _forget(self) -> None:
        if self._table is not None:
            self._table.drop()
        self._key, self._peers, self._table, self._dirty = None, {}, None, None

    @staticmethod
    def _state(ws: Workspace, sidecar: Sidecar, ids: authors.Identities) -> tuple | None:
        """What the judgement is worked out from, as one value; None when it is not kept."""
        if sidecar.read_only or sidecar.db.conn.in_transaction:
            return None
        authors.refresh(ws, sidecar)  # its writes (the rows brought to HEAD) before the stamp
        head = ws.repo.head()
        if head is None or rows.stored_head(sidecar.db) != head or ws.repo.incoming_heads() \
                or ws.repo.concluding_replay():
            return None  # files an operation under way brought: judged from git's view each time
        # git's index: a change staged or unstaged alone (`git add`, `git rm --cached`), by its
        # checksum too (an index of the same inode, mtime and size can hold other entries)
        try:
            index = ws.repo.index_signature()
        except OSError:
            index = None
        return (head, sidecar.changes_stamp(), index, frozenset(ids.person), frozenset(ids.agents),
                frozenset(ids.approved), ids.local)


def _why(kept: tuple | None, now: tuple | None) -> str:
    """What moved between the kept state and this one, in words (the debug log's)."""
    if now is None:
        return "nothing is kept in this state"
    if kept is None:
        return "nothing was kept"
    return ", ".join(f"{name} ({a!r} -> {b!r})" if name in STATE_PARTS[:3] else name
                     for name, a, b in zip(STATE_PARTS, kept, now, strict=True) if a != b)
