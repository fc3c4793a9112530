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

Nothing is kept while a merge, cherry-pick, revert, rebase or squash is under way, or one git
merged awaits its commit (the files it brought are judged from git's own view of them), for a sidecar this process cannot write (its origins
are kept in memory), or when git reported damage meanwhile. A change to any of these makes the
next read judge the whole set again (once). Known limit: an edit that keeps a file's size and
modification time (``touch -r``) is seen by no reconcile (the search still shows the text it
indexed) and is judged at the next change of any of these; each hit's own author is judged from
the file as it is (:func:`~vault_mem.vault.authors.authors_of`), and the prompt hook injects only
hits judged trusted, so such an edit never puts a peer's text in front of the agent.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from vault_mem.index import authors as rows
from vault_mem.index.pathsets import PathTable
from vault_mem.platform.logs import Logger
from vault_mem.vault import authors

if TYPE_CHECKING:
    from vault_mem.index.sidecar import Sidecar
    from vault_mem.model.render import Author
    from vault_mem.store.workspace import Workspace

__all__ = ["KeptPeers"]

log = Logger(__name__)  # logging imported at the first message (start-up time)

#: the parts of :meth:`KeptPeers._state`, named for the debug log of a judgement made again
STATE_PARTS = ("HEAD", "the sidecar's rows", "git's index", "the person", "the agents", "the approved authors",
               "the commits made here")


class KeptPeers:
    """:func:`~vault_mem.vault.authors.peer_memories` of one open vault, kept while what it is
    worked out from stays as it was (see the module docstring). One per :class:`Vault`: its
    sidecar's connection belongs to one thread.

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

    def peer_memories(self, ws: Workspace, sidecar: Sidecar, ids: authors.Identities,
                      origins: authors.Origins) -> dict[str, Author]:
        """The usable memories last changed by an author not trusted here, by path (the dict
        is shared: read it, do not change it). ``origins`` made by the caller (its scan of new
        refs is done before the state is read)."""
        key = self._state(ws, sidecar, ids)
        if key is not None and key == self._key:
            return self._peers
        seen = ws.repo.damage_seen
        self.judgements += 1
        self.why = _why(self._key, key)
        log.debug("vault-mem: the peers' memories judged again (%d): %s", self.judgements, self.why)
        peers = authors.peer_memories(ws, sidecar, ids, origins)
        self._forget()
        if key is not None and ws.repo.damage_seen == seen:
            if peers:  # its table, like the judgement's caches of git's answers, moves no stamp
                self._table = PathTable(sidecar.db, peers)
            self._key, self._peers = key, peers
        return peers

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
