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
  before it asks, so a file changed on disk (a hand edit over a peer's memory) moves it too;
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

from typing import TYPE_CHECKING

from vault_mem.index import authors as rows
from vault_mem.vault import authors

if TYPE_CHECKING:
    from vault_mem.index.sidecar import Sidecar
    from vault_mem.model.render import Author
    from vault_mem.store.workspace import Workspace

__all__ = ["KeptPeers"]


class KeptPeers:
    """:func:`~vault_mem.vault.authors.peer_memories` of one open vault, kept while what it is
    worked out from stays as it was (see the module docstring). One per :class:`Vault`: its
    sidecar's connection belongs to one thread."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._peers: dict[str, Author] = {}
        #: the paths of :attr:`_peers`, sorted: what a search leaves out, made once per judgement
        self._sorted: tuple[str, ...] = ()

    def peer_memories(self, ws: Workspace, sidecar: Sidecar, ids: authors.Identities,
                      origins: authors.Origins) -> dict[str, Author]:
        """The usable memories last changed by an author not trusted here, by path (the dict
        is shared: read it, do not change it). ``origins`` made by the caller (its scan of new
        refs is done before the state is read)."""
        key = self._state(ws, sidecar, ids)
        if key is not None and key == self._key:
            return self._peers
        seen = ws.repo.damage_seen
        peers = authors.peer_memories(ws, sidecar, ids, origins)
        if key is not None and ws.repo.damage_seen == seen:
            self._key, self._peers, self._sorted = key, peers, tuple(sorted(peers))
        else:
            self._key, self._peers, self._sorted = None, {}, ()
        return peers

    def sorted_paths(self, peers: dict[str, Author]) -> tuple[str, ...]:
        """The paths of ``peers`` (an answer of :meth:`peer_memories`) in order."""
        return self._sorted if peers is self._peers and self._key is not None else tuple(sorted(peers))

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
