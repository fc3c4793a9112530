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
  :func:`~vault_mem.store.worktree.index_marks`, two git processes taken before the status
  (their answer kept while git's index file and HEAD stay: :func:`index_marks_kept`); past :data:`STATUS_ASKED_AT_MOST` such files, of the whole vault (~0.26 s of CPU at
  100k). Exact for every memory file; the answer for other paths (INDEX.md) is not read;
- (5): it entered or left the lineage, or its move entry changed (a move made here or a peer's:
  one table, :func:`~vault_mem.index.authors.moved_from`; a peer's move forgotten past its
  bound is a changed entry too). Both are read with the log's entry, as of one snapshot, before
  the judgement, which is made from them (:meth:`~vault_mem.vault.authors.Origins.pin`): read
  after it, another process's change landing between was recorded as what the judgement was
  made from, and never judged again;
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

**Kept for the next process.** Each judgement made is also kept in the sidecar (table
``kept_judgement``, ``m018``, and ``kept_judgement_paths``, ``m019``: :func:`_store`), so a process that starts (the prompt hook run per
prompt, ``vault-mem recall`` without a daemon, ``get``, ``list``) brings the last judgement
along what changed since, as a warm process brings its own (its ``how``: "stored"), instead of
judging every memory (~1.9 s of CPU at 100k peers' memories). What a warm base is tied to by
being held in the process, the kept row states, and anything that cannot be told again means
the whole judgement: the code that made it (each module's name, size and modification time:
:func:`_code`; another version's rules may differ); HEAD and the judge log's entry it reflects
(the log lives in the same file as the row, so it counts from the same place; a log that no
longer reaches back, or an entry past the log's newest, as in an older copy of the file put
back: whole); the person, the agents and the approved authors (compared as for a warm base:
any change, whole); the commits made here as a prefix of their record (appended to only: its
length and sha256; what was appended since is judged again as newly made here, any other change
of the record: whole); git's index marks and the files that differed from HEAD, the lineage and
the kept moves, compared as a warm base's are. The row is the sidecar's, so it is exactly as
trustworthy as the rows the judgement reads: an index.db not made on this machine for this
vault is read by no one (:mod:`vault_mem.index.db`). It is written like the judgement's other
caches (uncounted, never waiting for a writer, given up on failure; the MCP server's start-up
thread waits: :meth:`Vault.judge_peers`, and leaves a row as new as its own written meanwhile:
:func:`_newer_than`; the judgement it hands the served vault is taken by that vault's first
answer alone, and only against the index file it was made from: :meth:`_Base.bound`), the judgement itself only when it changed or the row is
another process's (its token), and then only the paths judged again when it was brought along
from the row (a row per path: the whole judgement rewritten was ~7 MB at 100k peers' memories):
a warm process whose judgement stayed rewrites the row's small state alone, and nothing is written when the row was made from
the same state (another process's judgement of it: the same answer), so two warm processes (a
daemon and an MCP server) do not make each other judge again through it beyond once.

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

import copy
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from vault_mem.config import VERSION
from vault_mem.errors import VaultMemError
from vault_mem.index import authors as rows
from vault_mem.index.kept_judgement import Kept, drop_judgement, keep_judgement, kept_judgement, kept_peers_sql
from vault_mem.index.pathsets import PathTable
from vault_mem.model.render import Author
from vault_mem.platform.logs import Logger
from vault_mem.store import history
from vault_mem.store.files import read_own
from vault_mem.store.provenance import ids_in, record_file
from vault_mem.store.worktree import dirty_files, index_marks
from vault_mem.vault import authors

if TYPE_CHECKING:
    from vault_mem.index.sidecar import Sidecar
    from vault_mem.store.workspace import Workspace

__all__ = ["CHANGED_AT_MOST", "Judged", "KeptPeers", "STATUS_ASKED_AT_MOST", "index_marks_kept"]

#: past this many paths to judge again (or commits newly recorded as made here), the whole
#: judgement is made again: a change that big (a sync of a team's month) is no saving
CHANGED_AT_MOST = 5000
#: past this many files whose ``git status`` may have moved, it is asked of the whole vault
STATUS_ASKED_AT_MOST = 256


class _Base:
    """What a kept judgement was made from, for judging again only what changed since."""

    def __init__(self, *, conn: object, file: tuple | None, ids: authors.Identities, head: str, seq: int,
                 judgement: authors.PeerJudgement, lineage: set[str], moved: dict[str, tuple[str, str, str]],
                 marks: tuple[set[str], set[str]] | None, token: str | None = None) -> None:
        # the connection itself, not its id: held, a closed one's id cannot pass for a new
        # connection's (a replaced index file, a reconnect), whose log counts from elsewhere
        self.conn, self.head, self.seq, self.marks = conn, head, seq, marks
        #: the index file ``seq`` counts in (:meth:`~vault_mem.index.sidecar.Sidecar.file_identity`;
        #: None: not told, taken for no other connection's)
        self.file = file
        self.person, self.agents = frozenset(ids.person), frozenset(ids.agents)
        self.approved, self.local = frozenset(ids.approved), frozenset(ids.local)
        self.peers, self.judged, self.dirty = judgement.peers, judgement.judged, judgement.dirty
        self.lineage, self.moved = lineage, moved
        #: the sidecar's kept row this judgement is (:func:`~vault_mem.index.kept_judgement.keep_judgement`)
        self.token = token

    def bound(self, conn: object, file: tuple | None) -> _Base | None:
        """This base as another connection holds it (:meth:`KeptPeers.offer`), reading the
        index file ``file``; None when that is not the file it was made from (deleted and made
        again, moved aside, or not told): its judge log counts from elsewhere, and an entry of
        this one's read against it named a memory judged before the change as judged since."""
        if self.file is None or file != self.file:
            return None
        other = copy.copy(self)
        other.conn = conn
        return other


class Judged(NamedTuple):
    """How :meth:`KeptPeers.peer_memories` made its last answer: ``how`` is "kept" (nothing it
    is worked out from changed), "changed" (this process's judgement brought along the paths a
    change touched), "stored" (the sidecar's kept judgement, made by an earlier process,
    brought along so), "whole" (every memory judged); ``paths``, how many paths were judged
    (0 when kept); ``why``, what moved since the judgement kept (or why nothing is kept)."""

    how: str
    paths: int
    why: str


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
    that differ from HEAD (the session context's ``git status``, asked once per judgement).

    ``stored``: with no judgement of its own yet, bring along the one the sidecar keeps (an
    earlier process's), and keep each one made there (False: neither; a test's reference)."""

    def __init__(self, *, stored: bool = True) -> None:
        #: a judgement another vault of this folder made in this process (the MCP server's
        #: start-up thread: :meth:`offer`), taken by this vault's first answer alone (brought
        #: along or dropped): an offer left pending was brought along at any later read that
        #: found no judgement of its own (after a merge), however old, and whatever file
        self._offered: _Base | None = None
        #: this vault answered once (an offer made after it is refused: :meth:`offer`)
        self._answered = False
        #: :attr:`_offered` and :attr:`_answered` are set from the offering thread too
        self._offer_lock = threading.Lock()
        #: hold the kept row's write back for :meth:`keep_held` (a writer no read waits for)
        self.hold = False
        #: the row held back: ``(state, the row's token if its judgement is the same, the
        #: judgement's text, the token of a new row)``
        self._held: tuple[str, str | None, Callable[[], list[Kept]], _Delta | None, str] | None = None
        self._key: tuple | None = None
        self._peers: dict[str, Author] = {}
        #: the paths of :attr:`_peers` in a table of the sidecar's connection (None: none kept,
        #: or none asked for yet: :meth:`paths` fills it)
        self._table: PathTable | None = None
        #: the sidecar the kept judgement was made from (:meth:`paths` fills its table there)
        self._sidecar: Sidecar | None = None
        #: the vault-relative paths that differ from HEAD, asked once per kept judgement
        self._dirty: set[str] | None = None
        #: what the last judgement was made from (None: judged whole next time, unless the
        #: sidecar keeps one: ``stored``)
        self._base: _Base | None = None
        self._stored = stored
        #: how the last answer was made (the debug log's, the benches' and the tests' one record)
        self.last: Judged | None = None
        #: how many answers were judged (not "kept")
        self.judgements = 0

    def peer_memories(self, ws: Workspace, sidecar: Sidecar, ids: authors.Identities,
                      origins: authors.Origins) -> dict[str, Author]:
        """The usable memories last changed by an author not trusted here, by path (the dict
        is shared: read it, do not change it). ``origins`` made by the caller (its scan of new
        refs is done before the state is read)."""
        with self._offer_lock:  # the first answer takes the offer, whether it brings it along or not
            offered, self._offered, self._answered = self._offered, None, True
        key = self._state(ws, sidecar, ids)
        if key is not None and key == self._key:
            self.last = Judged("kept", 0, "nothing moved")
            return self._peers
        seen = ws.repo.damage_seen
        self.judgements += 1
        why = _why(self._key, key)
        base, self._base = self._base, None
        judgement = changed = marks = None
        how, seq = "changed", 0
        lineage: set[str] = set()
        moved: dict[str, tuple[str, str, str]] = {}
        if key is not None:
            # before the judgement reads, as of one snapshot: a row that moves later is judged
            # next time (the log), and the lineage and moves are the very ones it is made from
            # and recorded with, so any change of them later is one next time too
            seq, lineage, moved = rows.judged_from(sidecar.db)
            origins.pin(lineage, moved)
            marks = self._marks(ws)  # before git status is asked: an index change after it is seen next time
            file = sidecar.file_identity()
            if base is None and self._stored:
                loaded = offered.bound(sidecar.db.conn, file) if offered is not None else None
                if loaded is None:  # none offered, or made from another index file: the row of this one
                    loaded = _load(ws, sidecar, file)
                base, how = (loaded, "stored") if isinstance(loaded, _Base) else (None, loaded)
            if base is not None and marks is None:
                how = "git cannot list its index's marks"
            elif base is not None:
                found = self._changed(ws, sidecar, ids, origins, base, key[0], marks, lineage, moved, file)
                if isinstance(found, str):
                    how = found
                else:
                    seq, judgement, changed = found
        if judgement is None:
            judgement = authors.peer_judgement(ws, sidecar, ids, origins)
            self.last = Judged("whole", len(judgement.judged), f"{why}; judged whole: {how}" if how != "changed" else why)
        else:
            self.last = Judged(how, len(changed or ()), why)
        log.debug("vault-mem: the peers' memories judged again (%d, %s, %d paths): %s", self.judgements,
                  self.last.how, self.last.paths, why)
        peers = judgement.peers
        table, self._table = self._table, None  # brought along with the judgement, or dropped
        if table is not None and changed is None:
            table.drop()
            table = None
        self._forget()
        if key is not None and ws.repo.damage_seen == seen:
            # its table, like the judgement's caches of git's answers, moves no stamp; one kept is
            # brought along, a new one filled only when a read asks for the paths (:meth:`paths`):
            # a judgement no read of this vault leaves out (the MCP server's start-up thread's,
            # handed to the served vault; the floor's) filled ~100k rows at 100k for nothing
            if peers and table is not None and base is not None and table.refit(peers, changed or (), base.seq):
                self._table = table
            elif table is not None:
                table.drop()
            self._key, self._peers, self._dirty, self._sidecar = key, peers, judgement.dirty, sidecar
            self._base = _Base(conn=sidecar.db.conn, file=file, ids=ids, head=key[0], seq=seq, judgement=judgement,
                               lineage=lineage, moved=moved, marks=marks)
            self._held = None
            if self._stored and origins.unstored:  # made from origins held in memory alone (a sidecar that could not take them)
                drop_judgement(sidecar.db)
            elif self._stored and self.hold:
                row = _row(ws, self._base, base, changed)
                if row is not None:
                    self._base.token = row[1] or os.urandom(12).hex()
                    self._held = (*row, self._base.token)
            elif self._stored:
                self._base.token = _store(ws, sidecar, self._base, base, changed)
        elif table is not None:
            table.drop()
        return peers

    def offer(self, base: _Base | None) -> None:
        """Bring ``base`` (:attr:`made` of another vault of this folder in this process) along
        at this vault's first answer, instead of the sidecar's kept row, when it was made from
        the index file this vault reads: what it was made from is compared as for a row
        (:meth:`_changed`). Refused once this vault answered (it made or kept a judgement of
        its own: the start-up's came too late), and taken by that first answer whether used or
        not (a read in a merge keeps none)."""
        with self._offer_lock:
            if not self._answered:
                self._offered = base

    @property
    def made(self) -> _Base | None:
        """The judgement this vault keeps now, with what it was made from (None: none)."""
        return self._base if self._key is not None else None

    def keep_held(self, sidecar: Sidecar) -> str | None:
        """Keep the judgement whose row :attr:`hold` held back in the sidecar, waiting for
        another writer (:func:`~vault_mem.index.kept_judgement.keep_judgement`'s ``wait``): no
        read waits for this writer. The token the row holds now, None when nothing was kept."""
        held, self._held = self._held, None
        if held is None:
            return None
        state, same, judgement, delta, fresh = held
        return keep_judgement(sidecar.db, state, same, judgement, delta=delta, fresh=fresh, wait=True,
                              newer=_newer_than(state))

    @staticmethod
    def _marks(ws: Workspace) -> tuple[set[str], set[str]] | None:
        """:func:`~vault_mem.store.worktree.index_marks` of the vault, vault-relative
        (:func:`index_marks_kept`); None when git cannot say."""
        return index_marks_kept(ws)

    def _changed(self, ws: Workspace, sidecar: Sidecar, ids: authors.Identities, origins: authors.Origins,
                 base: _Base, head: str, marks: tuple[set[str], set[str]], lineage: set[str],
                 moved: dict[str, tuple[str, str, str]], file: tuple | None
                 ) -> tuple[int, authors.PeerJudgement, set[str]] | str:
        """``(the log's entry it reflects, the judgement, the paths judged again)``: ``base``'s
        judgement brought along what changed since (the module docstring says which paths and
        why), to ``lineage`` and ``moved`` (read with the log's entry, and what the judgement is
        made from: ``origins`` pinned to them); when it cannot be (the whole judgement is to be
        made), why not."""
        db = sidecar.db
        if base.conn is not db.conn or base.file is None or base.file != file:
            return "made from another index file"  # its log counts from elsewhere
        if (base.dirty is None or base.marks is None
                or base.person != ids.person or base.agents != ids.agents
                or base.approved != ids.approved or not base.local <= ids.local or origins.unstored):
            return "the identities, the approvals or the commits made here changed"
        made_here = ids.local - base.local
        if len(moved) > authors.MOVES_FOLLOWED or len(made_here) > CHANGED_AT_MOST:
            return "too many moves or commits made here"
        logged = rows.judge_log_since(db, base.seq)
        if logged is None:
            return "the judge log no longer reaches back"
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
        except VaultMemError:  # the old HEAD gone (a force-push, then a gc), or a listing past its bound
            return "git cannot list OLD...NEW, or lists more changes than are read"
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
            return "too many paths changed"
        judgement = authors.peer_judgement(ws, sidecar, ids, origins, only=changed, dirty=dirty)
        judged = (base.judged - changed) | judgement.judged
        if len(judged) <= authors.FILE_CHECKS:
            return "few candidates"  # the whole judgement reads each file then, not git status: its own rule
        peers = {rel: who for rel, who in base.peers.items() if rel not in changed}
        peers.update(judgement.peers)
        return seq, authors.PeerJudgement(peers, judged, dirty), changed

    def paths(self, peers: dict[str, Author]) -> Collection[str]:
        """The paths of ``peers`` (an answer of :meth:`peer_memories`) as a read hands them to
        the sidecar: the kept table when ``peers`` is the kept judgement (filled now when it has
        none yet, on the connection the judgement was made on), else sorted. A table filled
        after the judgement holds the complement of ``peers`` among the rows as they are then,
        which is what the sorted paths bound as JSON leave out (the reference form). Filled from
        the sidecar's kept row when that row is still this judgement's (its token, and as many
        peers: :func:`~vault_mem.index.kept_judgement.kept_peers_sql`), with no path bound: at
        100k peers' memories, sorting, binding and parsing the list was most of the fill."""
        if peers is self._peers and self._key is not None and peers:
            sidecar, base = self._sidecar, self._base
            if (self._table is None and sidecar is not None and base is not None
                    and sidecar.db.conn is base.conn and not base.conn.in_transaction):
                token = base.token  # its row in the sidecar: the table filled from the rows there
                self._table = PathTable(sidecar.db, peers, kept=lambda db, n: kept_peers_sql(db, token, n))
            if self._table is not None:
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
        self._key, self._peers, self._table, self._dirty, self._sidecar = None, {}, None, None, None

    @staticmethod
    def _state(ws: Workspace, sidecar: Sidecar, ids: authors.Identities) -> tuple | None:
        """What the judgement is worked out from, as one value; None when it is not kept."""
        if sidecar.read_only or sidecar.db.conn.in_transaction:
            return None
        authors.refresh(ws, sidecar)  # its writes (the rows brought to HEAD) before the stamp
        # HEAD, and git's index against it: a change staged or unstaged alone (`git add`, `git
        # rm --cached`), the index git reads (GIT_INDEX_FILE), a `git replace` of HEAD's tree
        # (GitRepo.index_state: what index_marks_kept keeps its answer under too)
        state = ws.repo.index_state()
        if state is None or rows.stored_head(sidecar.db) != state[0] or ws.repo.incoming_heads() \
                or ws.repo.concluding_replay():
            return None  # files an operation under way brought: judged from git's view each time
        return (state[0], sidecar.changes_stamp(), state[1], frozenset(ids.person), frozenset(ids.agents),
                frozenset(ids.approved), ids.local)


#: :func:`index_marks_kept`'s last answer per vault: ``(what it was read from:
#: GitRepo.index_state, the staged paths, the marked paths)``
_MARKS: dict[tuple[str, str], tuple[tuple, frozenset[str], frozenset[str]]] = {}


def index_marks_kept(ws: Workspace) -> tuple[set[str], set[str]] | None:
    """:func:`~vault_mem.store.worktree.index_marks` of the vault, vault-relative (None when git
    cannot say), given again while what git reads them from is as it was
    (:meth:`~vault_mem.store.git.GitRepo.index_state`, the value :meth:`KeptPeers._state`
    holds too). What the two git processes answer is read from that alone: the staged paths
    are the index's entries against HEAD's tree (``diff-index --cached``), the marked ones the
    index's own flags (``ls-files -v``); the index file git reads (``GIT_INDEX_FILE`` in a
    commit's hooks) is told by its inode, modification time, size and the hash of its whole
    content (:func:`~vault_mem.store.gitindex.index_file_signature`), HEAD's tree by HEAD and
    the ``git replace`` refs git reads it through, so any `git add`, `git update-index
    --assume-unchanged`, `git reset`, commit or `git replace` gives another value. At 100k
    memories ``ls-files`` lists every path (~3 MB read and split in this process): each
    judgement made again (a hand edit, the MCP server's first answer after its start-up
    thread's) paid it, with the index unchanged. Kept only when that value was the same
    before and after the git processes ran (a change meanwhile: read again next time)."""
    repo = ws.repo
    key = (str(repo.git_dir), ws.prefix)
    before = repo.index_state()
    kept = _MARKS.get(key)
    if before is not None and kept is not None and kept[0] == before:
        return set(kept[1]), set(kept[2])
    try:
        staged, marked = index_marks(repo, ws.prefix or ".")
    except VaultMemError:
        return None
    n = len(ws.prefix)
    found = {top[n:] for top in staged}, {top[n:] for top in marked}
    if before is not None and repo.index_state() == before:
        _MARKS[key] = (before, frozenset(found[0]), frozenset(found[1]))
    else:
        _MARKS.pop(key, None)
    return found


def _why(kept: tuple | None, now: tuple | None) -> str:
    """What moved between the kept state and this one, in words (the debug log's)."""
    if now is None:
        return "nothing is kept in this state"
    if kept is None:
        return "nothing was kept"
    return ", ".join(f"{name} ({a!r} -> {b!r})" if name in STATE_PARTS[:3] else name
                     for name, a, b in zip(STATE_PARTS, kept, now, strict=True) if a != b)


# -- the judgement kept in the sidecar, for the next process ----------------------------------------

#: when this module was imported: a module file changed since is not the code this process runs
_IMPORTED_NS = time.time_ns()
#: :func:`_code`, once taken
_CODE: str | None = None


def _code_stamp() -> str:
    """This vault-mem's code, as a value: the name, size and modification time of each of its
    modules (and its version). A judgement kept by other code (an upgrade, a checkout of other
    sources) is not brought along: its rules may differ. A module file changed since this module
    was imported (a daemon started before an upgrade) is not the code this process runs: the
    stamp is then one no other process has, so its judgement is never brought along (taken
    after the upgrade, it named the old rules' judgement with the new code's files); a file gone
    meanwhile likewise."""
    top = Path(__file__).resolve().parent.parent
    found = [VERSION]
    try:
        for folder, _dirs, files in sorted(os.walk(top)):
            for name in sorted(files):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(folder, name))
                    if max(st.st_mtime_ns, st.st_ctime_ns) >= _IMPORTED_NS:
                        return f"changed since this process started: {os.urandom(12).hex()}"
                    found.append(f"{os.path.relpath(os.path.join(folder, name), top)} {st.st_size} {st.st_mtime_ns}")
    except OSError:
        return f"changed since this process started: {os.urandom(12).hex()}"
    return hashlib.sha256("\n".join(found).encode()).hexdigest()


def _code() -> str:
    """:func:`_code_stamp` of the code this process runs, taken at its first judgement kept or
    brought along (no walk of the package at every command's start: a write never judges)."""
    global _CODE
    if _CODE is None:
        _CODE = _code_stamp()
    return _CODE


def _record(ws: Workspace) -> bytes:
    """The record of the commits made here (:mod:`vault_mem.store.provenance`), as its bytes."""
    try:
        return read_own(record_file(ws.repo.common_dir)) or b""
    except (OSError, VaultMemError):
        return b""


def _local_ids(data: bytes) -> frozenset[str]:
    """The ids the record's bytes ``data`` name (as :func:`~vault_mem.store.provenance.recorded`
    reads them)."""
    return ids_in(data.decode("ascii", errors="replace"))


def _state_of(ws: Workspace, base: _Base) -> str | None:
    """What ``base`` was made from, as the kept row's ``state``; None when it cannot be kept
    (what it was made from cannot be told again). The commits made here as a prefix of their
    record (appended to only; any other change fails the digest: the whole judgement): how many
    bytes of it, and their sha256."""
    if base.dirty is None or base.marks is None:
        return None
    data = _record(ws)
    if _local_ids(data) != base.local:
        return None  # the record moved since the judgement read it: kept next time
    return json.dumps({
        "code": _code(), "head": base.head, "seq": base.seq, "person": sorted(base.person),
        "agents": sorted(base.agents), "approved": sorted(base.approved),
        "local": [len(data), hashlib.sha256(data).hexdigest()],
        "marks": [sorted(base.marks[0]), sorted(base.marks[1])], "dirty": sorted(base.dirty),
        "lineage": sorted(base.lineage), "moved": {rel: list(v) for rel, v in sorted(base.moved.items())},
    }, sort_keys=True)


#: a judgement as the rows it changed since the one it was brought along from: ``(that one's
#: token, () -> (the rows written, the paths dropped))``
_Delta = tuple[str, Callable[[], tuple[list[Kept], list[str]]]]


def _row(ws: Workspace, base: _Base, before: _Base | None, changed: set[str] | None
         ) -> tuple[str, str | None, Callable[[], list[Kept]], _Delta | None] | None:
    """What keeps ``base`` in the sidecar: ``(its state, the token of the row whose judgement
    is the same, its judgement's rows, the rows it changed since ``before``)``; None when it
    cannot be told again. The judgement is written again only when it is not the row's own:
    ``before`` (the judgement it was brought along from, ``changed`` the paths judged again;
    None: judged whole) was that row, and the answer is the same; when ``before`` was that row
    and the answer moved, only the paths judged again are written (``base`` differs from
    ``before`` at those alone: :meth:`KeptPeers._changed`)."""
    same = before is not None and before.peers == base.peers and before.judged == base.judged

    def one(rel: str) -> Kept:
        who = base.peers.get(rel)
        return (rel, who.email, who.standing) if who is not None else (rel, None, None)

    def judgement() -> list[Kept]:
        return [one(rel) for rel in base.judged]

    delta: _Delta | None = None
    if before is not None and before.token is not None and changed is not None:
        def moved() -> tuple[list[Kept], list[str]]:
            return [one(rel) for rel in changed if rel in base.judged], [rel for rel in changed if rel not in base.judged]

        delta = (before.token, moved)
    state = _state_of(ws, base)
    if state is None:
        return None
    return state, before.token if same and before else None, judgement, delta


def _store(ws: Workspace, sidecar: Sidecar, base: _Base, before: _Base | None, changed: set[str] | None) -> str | None:
    """Keep ``base`` in the sidecar for the next process (:func:`_row`), never waiting for
    another writer; the token of the kept row (None: none)."""
    row = _row(ws, base, before, changed)
    if row is None:
        return None  # cannot be told again: the row (another process's, true to its own state) stays
    state, same, judgement, delta = row
    return keep_judgement(sidecar.db, state, same, judgement, delta=delta)


def _newer_than(state: str) -> Callable[[str], bool]:
    """Whether a kept row's state is as new as ``state`` (the held row's, :meth:`KeptPeers.keep_held`):
    made by this code from the judge log's entry ``state`` was made from, or a later one. Such a
    row (the served vault's, written while the held write waited for the lock) is left as it is:
    overwritten with the older judgement, the served vault's next change found the row another's
    and wrote every path again (~100k rows) instead of the paths it judged again."""
    held = json.loads(state)

    def newer(row: str) -> bool:
        try:
            kept = json.loads(row)
            return kept["code"] == held["code"] and int(kept["seq"]) >= int(held["seq"])
        except (ValueError, KeyError, TypeError):
            return False  # not a row this code wrote: written over

    return newer


def _load(ws: Workspace, sidecar: Sidecar, file: tuple | None) -> _Base | str:
    """The judgement kept in the sidecar as a base to bring along, None when there is none or
    any part of what it was made from cannot be told again (why not, then): another code's, a record of the
    commits made here that is not the one it read with more appended (what was appended: newly
    made here, judged again). What else it was made from (HEAD, the log's entry, the identities,
    git's index marks) :meth:`KeptPeers._changed` compares, as for a base kept in the process."""
    kept = kept_judgement(sidecar.db)
    if kept is None:
        return "none is kept"
    state_text, token, judged = kept
    try:
        state = json.loads(state_text)
        if state["code"] != _code():
            return "kept by other code"
        size, digest = state["local"]
        data = _record(ws)
        if len(data) < size or hashlib.sha256(data[:size]).hexdigest() != digest:
            return "the record of the commits made here is not the one it read"
        seen: dict[tuple[str | None, str], Author] = {}  # one Author per (email, standing): few
        peers = {}
        for rel, email, standing in judged:
            if standing is None:
                continue  # judged the person's
            who = seen.get((email, standing))
            if who is None:
                who = seen[(email, standing)] = Author(email, standing)
            peers[rel] = who
        ids = authors.Identities(set(state["person"]), set(state["agents"]), set(state["approved"]),
                                 _local_ids(data[:size]))
        base = _Base(conn=sidecar.db.conn, file=file, ids=ids, head=state["head"], seq=int(state["seq"]),
                     judgement=authors.PeerJudgement(peers, {row[0] for row in judged}, set(state["dirty"])),
                     lineage=set(state["lineage"]), moved={rel: tuple(v) for rel, v in state["moved"].items()},
                     marks=(set(state["marks"][0]), set(state["marks"][1])), token=token)
    except (ValueError, KeyError, TypeError):
        return "not a row this code wrote"
    return base
