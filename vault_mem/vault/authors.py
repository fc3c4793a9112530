"""Who wrote each memory, and whether that author's text may reach an agent unasked (DESIGN §7).

The author of a memory is the author of the commit that last changed its file (the commit
that gave it the blob HEAD holds), worked out from git at index time and kept in the sidecar
(:mod:`vault_mem.index.authors`): one ``git log`` over the whole history the first time, then
only over the commits added since (an agent write adds one). A file whose content differs from
HEAD's (a hand edit not committed yet, a new file) can only have been changed on this machine:
its author is this machine's person, unless it keeps a peer's lines (below). The file's
``source:`` field plays no part: its writer controls it. A peer's commit that only gives a path
back the text the trusted commits last left there (a delete then put back, a move away and
back, a mode change) is no author of it (:func:`_given_back`). A change made here adopts only
what it changes (:func:`_adopted`): an uncommitted edit, or a commit made here, over a memory
whose previous text was a peer's leaves it the peer's while every line the peer's change added
is still in it (git merges a peer's change into the person's own edit without a trace: ``git
pull --rebase --autostash``, ``git stash pop`` after a pull, ``git checkout -m``).

Trusted authors ("this machine's person and agents"): the repository's ``git config user.email``
(and ``GIT_AUTHOR_EMAIL``, which the daemon commits hand edits with), the vault's agent email and
vault-mem's default one, and the emails approved on this machine with ``vault-mem trust
--author`` (:mod:`vault_mem.store.trust`). Anyone else is a peer: their memories are found by
recall, marked, but not put in front of an agent unasked (session context, prompt hook).

Cost: the first pass diffs every commit (git's cost is the size of the folders a commit
touches): 20,000 commits each adding one file to a 20,000-file folder took 42 s on a loaded
2-core machine, once; each later commit costs its own diff (~0.1 s after an agent write there).

An email in a commit is whatever its author typed, so the email alone never makes a commit
trusted: a commit counts as this machine's person's or agents' only when it was made on this
machine (:mod:`vault_mem.store.provenance` records those as they are made). A commit made
elsewhere (fetched by a sync or a ``git pull``, present in a clone) counts as its author's only
when that author is approved here with ``vault-mem trust --author``, whatever email it carries:
a peer committing under this machine's person's email, or vault-mem's default agent email, is a
peer. Known limit: a peer who forges the email of an author approved here passes as that
author; only signed commits would tell them apart.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import unicodedata
from pathlib import PurePosixPath
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from vault_mem.config import Config
from vault_mem.errors import GitError, HistoryDamagedError, IndexStoreError, VaultMemError
from vault_mem.index import authors as rows
from vault_mem.index.origins_scan import ScanScratch
from vault_mem.model.memory import is_memory_path
from vault_mem.model.names import email_key
from vault_mem.model.render import Author, Legend
from vault_mem.platform import settle
from vault_mem.platform.logs import Logger
from vault_mem.store import history
from vault_mem.store.arrivals import Arrivals
from vault_mem.store.objectid import blob_id
from vault_mem.store.provenance import made_here, recorded
from vault_mem.store.trust import approved_authors, trust_file
from vault_mem.store.worktree import config_files, config_value, dirty_paths, same_as_committed
from vault_mem.vault import committed as committed_view

if TYPE_CHECKING:
    from vault_mem.index.sidecar import Sidecar
    from vault_mem.store.workspace import Workspace

log = Logger(__name__)  # logging imported at the first message (start-up time)

__all__ = ["Identities", "Origins", "author_of_bytes", "author_tagger", "authors_of", "dirty_rels", "identities", "keep_peers_lines", "own_emails", "peer_judgement", "peer_memories", "PeerJudgement", "pending_authors", "refresh"]


class Identities:
    """Whose memories may reach an agent unasked: this machine's person and agents (emails,
    lowercased), for the commits made here (``local``: their ids) only; the approved emails,
    for any commit."""

    def __init__(self, person: set[str], agents: set[str], approved: set[str], local: frozenset[str] = frozenset()):
        self.person, self.agents, self.approved, self.local = person, agents, approved, local
        #: :meth:`standing` per (email, commit) asked (a judgement asks it of every memory; the
        #: pairs are few: one commit brings many memories)
        self._standing: dict[tuple[str, str], str] = {}

    def author(self, who: tuple[str, ...] | None) -> Author:
        """The author of a committed text whose giver is ``who`` (its ``(commit, email, ...)``, as
        :func:`~vault_mem.store.history.last_authors` finds it): a peer's, whom no one vouches
        for, when there is none (a deletion, git cannot say) or its commit is ``""`` (beyond
        damaged history, or no commit gave that text); else the email, standing as
        :meth:`standing` says."""
        if who is None or not who[0]:
            return Author(None, "peer")
        return Author(who[1], self.standing(who[1], who[0]))

    def standing(self, email: str, commit: str) -> str:
        """'person', 'agent', 'approved' or 'peer' for a commit ``commit`` by ``email``."""
        known = self._standing.get((email, commit))
        if known is None:
            known = self._standing[(email, commit)] = self._judged(email, commit)
        return known

    def _judged(self, email: str, commit: str) -> str:
        e = email_key(email)
        if commit not in self.local:
            return "approved" if e in self.approved else "peer"  # made elsewhere: the email proves nothing
        if e in self.person:
            return "person"
        if e in self.agents:
            return "agent"
        # made here under someone else's email (`git am` of a colleague's patch): theirs
        return "approved" if e in self.approved else "peer"


#: above this many files, what was changed here is asked of ``git status`` once, not read per file
FILE_CHECKS = 64
#: per vault: (what they were read from, the identities); see :func:`identities`
_IDENTITIES: dict[str, tuple[tuple, Identities]] = {}


def _sources(ws: Workspace) -> tuple:
    """What the identities are read from, as (path, its version: :func:`~vault_mem.platform.settle.settled_stamp`) and the
    values that count: when none changed, the last reading stands (a recall must not start a git
    process). A file changed too recently to tell apart is never matched (read again): its
    modification time alone let an approval withdrawn by hand in the same tick stand."""
    # git's own files and the includes the last reading named (GIT_CONFIG_GLOBAL's file, the
    # system's and an included file holding user.email were not among them: an edit of one left a
    # long-lived process with the old identity: review of proc28)
    files = (*config_files(ws.repo), *[f for f in (trust_file(),) if f is not None])  # None: no home
    stamps = []
    for path in files:
        try:
            version = settle.settled_stamp(path)
            stamps.append((str(path), version if version is not None else object()))
        except OSError:
            stamps.append((str(path), None))
    return (*stamps, os.environ.get("GIT_AUTHOR_EMAIL", ""), ws.config.agent_email,
            os.environ.get("GIT_CONFIG_GLOBAL", ""), os.environ.get("GIT_CONFIG_NOSYSTEM", ""))


def identities(ws: Workspace) -> Identities:
    """This machine's person and agents, the authors approved for this vault here, and the
    commits made here. The emails are read again only when what they come from changed (a
    recall must not start a git process); the record of commits, when it grew (its own cache)."""
    key, sources = str(ws.root), _sources(ws)
    cached = _IDENTITIES.get(key)
    if cached is None or cached[0] != sources:
        person = {email_key(e) for e in (config_value(ws.repo, "user.email"), os.environ.get("GIT_AUTHOR_EMAIL", "")) if e}
        agents = {email_key(e) for e in (ws.config.agent_email, Config.agent_email)}
        cached = (sources, Identities(person, agents, approved_authors(ws.root)))
        _IDENTITIES[key] = cached
    emails = cached[1]

    def seed() -> list[str]:
        """The first record of a repository that has none: for one made here before the record
        was kept (:func:`~vault_mem.store.provenance.made_here`), the commits of its history by
        the emails that counted then, so upgrading takes nothing away; nothing for any other (a
        clone, a ``git init`` then ``git pull``: its history came from elsewhere)."""
        head = ws.repo.head()
        if head is None or not made_here(ws.repo.common_dir):
            return []
        return history.commits_by(ws.repo, head, emails.person | emails.agents | {email_key(e) for e in emails.approved})

    try:
        local = ws.repo.local_commits(seed)
    except HistoryDamagedError as exc:
        # the seed walks history, which is damaged: the commits recorded so far, no seed kept
        # (a partial one would stay once the history is repaired)
        ws.repo.answer_from_what_is_there(exc)
        local = recorded(ws.repo.common_dir)[1]
    return Identities(emails.person, emails.agents, emails.approved, local)


def refresh(ws: Workspace, sidecar: Sidecar) -> None:
    """Bring the authors kept in the sidecar up to HEAD: nothing to do when they are there; the
    commits since the last time (an agent write: one) when HEAD moved on from there; the commits
    since the common ancestor, when it moved elsewhere (a sync that replayed local commits);
    all of history the first time, or when the commit they were made for is gone. Nothing is
    kept while an older commit's object is missing or corrupt: what git read up to it is no
    answer to keep (see _kept)."""
    repo, db = ws.repo, sidecar.db
    head = repo.head()
    stored = rows.stored_head(db)
    if head is None or stored == head or sidecar.read_only:
        return  # a read-only sidecar: see _kept
    seen = repo.damage_seen
    try:
        _refresh(ws, sidecar, head, stored, lambda: repo.damage_seen != seen)
    except IndexStoreError:
        return  # the index cannot be written now (a full disk): a cache, see _kept
    except HistoryDamagedError as exc:
        repo.answer_from_what_is_there(exc)


def _refresh(ws: Workspace, sidecar: Sidecar, head: str, stored: str | None, damaged: Callable[[], bool]) -> None:
    repo, db = ws.repo, sidecar.db
    spec = ws.prefix or "."
    base = None
    if stored and history.resolve_commit(repo, stored) == stored:
        base = stored if history.is_ancestor(repo, stored, head) else (history.merge_base(repo, stored, head) or None)
    local = identities(ws).local
    touched: dict[str, set[str]] = {}  # every commit of the range that changed each path (see _lineage)
    moves: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]] | None] = {}  # (see _moved)
    # a text a merge brought back (no commit gave it since one deleted or changed it): no commit
    # vouches for it, _given_back reads whose last word it is (a peer's merge that kept its own
    # tree over the person's `forget` gave the forgotten text back as the person's first commit's)
    if base is None:
        found = history.last_authors(repo, head, None, [spec], given_only=True, touched=touched, moves=moves, local=local)
        _merged(ws, head, moves, found)
        if not damaged():
            found = _vault_relative(ws, found)
            lineage = _lineage(ws, found, touched, local, {}, set())
            moved, deleted, by_peers = _moved(ws, moves, touched, local, lambda rel: False, {})
            rows.replace(db, head, found, lineage | (moved.keys() & found.keys()), moved, deleted,
                         peer_moved=by_peers, moves_at_most=MOVES_FOLLOWED)
        return
    changed = history.changed_paths(repo, stored, head, spec)  # what differs from what the rows reflect
    found = history.last_authors(repo, head, base, [spec], given_only=True, touched=touched, moves=moves, local=local)
    _merged(ws, head, moves, found)
    missing = [p for p in changed if p not in found]
    if missing:  # back to a version older than the common ancestor: its author is further back
        older = history.last_authors(repo, head, None, missing)
        # unless this side's commits since then changed it, and none of them gave it: a merge did
        at_base = repo.blobs_at(base, sorted(older))
        found.update({p: who if at_base[p] == who[3] else ("", "", "", who[3]) for p, who in older.items()})
    gone = sorted(_vault_relative(ws, {p: ("", "", "", "") for p in changed if p not in found}))
    if not damaged():
        found = _vault_relative(ws, found)
        before = rows.authors_of(db, sorted(found))
        foreign = set(rows.foreign_paths(db))
        lineage = _lineage(ws, found, touched, local, before, foreign)
        deleted = None
        if moves:  # what the rows said of a moved path before: its history held a peer's change
            kept_lineage, kept_moved = rows.lineage_paths(db), rows.moved_from(db)
            olds = rows.authors_of(db, sorted({top[len(ws.prefix):] for change in moves.values() if change
                                               for top, _b in change[1] if top.startswith(ws.prefix)}))

            def peers_before(rel: str) -> bool:
                return (rel in kept_lineage or rel in kept_moved or rel in foreign
                        or (rel in olds and olds[rel][0] not in local))
            moved, deleted, by_peers = _moved(ws, moves, touched, local, peers_before, rows.deleted_here(db))
            lineage |= moved.keys() & found.keys()
        else:
            moved, by_peers = {}, {}
        rows.update(db, head, found, gone, lineage, moved, deleted, peer_moved=by_peers, moves_at_most=MOVES_FOLLOWED)


def _merged(ws: Workspace, head: str, moves: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]] | None],
            found: dict[str, tuple[str, str, str, str]]) -> None:
    """The merges of the walk (``moves``' None entries) filled in with what each added and
    deleted against its first parent, and ``found`` given a row for each file HEAD holds as a
    merge commit itself added it (git's walk diffs no merge, so such a path had no row: the
    memory a person's merge commit moved, the peer's merged line in it, was judged a new file of
    this machine's, trust24). One ``git diff-tree`` and one ``git ls-tree``, only when the range
    holds a merge."""
    merged = history.merge_changes(ws.repo, [c for c, change in moves.items() if change is None], ws.prefix or ".")
    extra: dict[str, tuple[str, str, str, str]] = {}
    for commit, (who, added, deleted) in merged.items():  # newest first: the newest merge's text stands
        moves[commit] = (added, deleted)
        for top, blob in added:
            if top not in found and top.startswith(ws.prefix) and is_memory_path(top[len(ws.prefix):]):
                extra.setdefault(top, (*who, blob))
    if extra:
        held = ws.repo.blobs_at(head, sorted(extra))
        found.update({top: row for top, row in extra.items() if held.get(top) == row[3]})


def _lineage(ws: Workspace, found: dict[str, tuple[str, str, str, str]], touched: dict[str, set[str]],
             local: frozenset[str], before: dict[str, tuple[str, str, str, str]], foreign: set[str]) -> set[str]:
    """Of ``found`` (the rows the commits being taken in give), the paths :func:`_adopted` must
    ask about (:func:`~vault_mem.index.authors.lineage_paths`): last changed by a commit made
    here, where a commit not made here changed it too (``touched``: each path's commits of the
    range), or its row ``before`` was one not made here, or a text first seen elsewhere
    (``foreign``). Read from the walk the rows came from: no git process of its own."""
    out = set()
    for rel, who in found.items():
        if who[0] not in local:
            continue  # last changed elsewhere: judged a peer's by its row already
        old = before.get(rel)
        if (any(c not in local for c in touched.get(ws.prefix + rel, ()))
                or (old is not None and (old[0] not in local)) or rel in foreign):
            out.add(rel)
    return out


def _moved(ws: Workspace, moves: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]] | None],
           touched: dict[str, set[str]], local: frozenset[str], peers_before: Callable[[str], bool],
           kept_deleted: dict[str, tuple[str, str]]
           ) -> tuple[dict[str, tuple[str, str, str]], dict[str, tuple[str, str]], dict[str, tuple[str, str, str]]]:
    """Of the commits of the range that added or deleted memory files (``moves``, from the walk
    the rows came from, newest first; a merge's against its first parent, :func:`_merged`), those made here that moved a memory whose history holds a commit
    not made here (one of ``touched``'s, or ``peers_before`` says the rows said so): ``({new
    path: (the commit that added it, old path, the commit that deleted that)}, {old path:
    (commit, blob)})`` (vault-relative). The old path is the one whose text shares the most
    counted lines with the new (:func:`_lines`; none shared: no move), deleted in the same commit
    or an earlier one made here: a move split over two commits (``git rm`` and a commit, then
    the text added under another key) or made inside a merge commit is a move too (trust24: the
    new path's history started at the add, and the peer's merged line reached the prompt hook as
    the person's). ``kept_deleted``: such deletions of earlier ranges (:func:`~vault_mem.index.
    authors.deleted_here`); the second value is the list to keep, the newest
    :data:`_DELETIONS_KEPT`. The third: the moves by peers, newest first, in the first's form: a
    commit not made here (or a peer's merge, against its first parent) that deleted a memory and
    added one whose text shares counted lines with it, in that commit only, whatever the history
    of the old path (:func:`_adopted`: a move is no authorship); a peer's move to a path stands
    where it is newer than a move made here to it. Why: a path's history starts at the commit
    that added it. One ``git cat-file`` for the texts, only when such a commit is there."""
    n = len(ws.prefix)
    order = list(moves)  # newest first
    changes: list[tuple[int, str, list[tuple[str, str]], list[tuple[str, str]]]] = []
    by_peers: list[tuple[int, str, list[tuple[str, str]], list[tuple[str, str]]]] = []
    counted = history.PeerMoves(ws.prefix)
    for pos, commit in enumerate(order):
        change = moves[commit]
        if not change:
            continue
        olds = [(top[n:], blob) for top, blob in change[1] if top.startswith(ws.prefix) and is_memory_path(top[n:])]
        news = [(top[n:], blob) for top, blob in change[0] if top.startswith(ws.prefix) and is_memory_path(top[n:])]
        if commit not in local:
            # a peer's move, in one commit or merge (_adopted: a move is no authorship), by the
            # rule the walk kept the commits it diffs by (a merge's changes come apart: counted here)
            if counted.take(news, olds):
                by_peers.append((pos, commit, news, olds))
        elif olds or news:
            changes.append((pos, commit, news, olds))
    peers = {rel for _p, _c, _news, olds in changes for rel, _b in olds
             if any(c not in local for c in touched.get(ws.prefix + rel, ())) or peers_before(rel)} | set(kept_deleted)
    candidates: dict[str, tuple[str, str, list[tuple[str, str, str]]]] = {}
    while True:  # a path moved here from such a path is one too (moved twice, in any order of the walk)
        more = False
        # each deletion of such a path, where it stands in the walk: a kept one is older than the range
        gone = [(p, c, rel, blob) for p, c, _news, olds in changes for rel, blob in olds if rel in peers]
        gone += [(len(order), c, rel, blob) for rel, (c, blob) in kept_deleted.items()]
        for pos, commit, news, _olds in changes:
            held = [(rel, blob, c) for p, c, rel, blob in gone if p >= pos][:_DELETIONS_KEPT]
            for rel, blob in news if held else ():
                if rel not in candidates or len(candidates[rel][2]) < len(held):
                    candidates[rel] = (commit, blob, held)
                    more = more or rel not in peers
                    peers.add(rel)
        if not more:
            break
    deleted = dict(kept_deleted)
    for _p, c, _news, olds in reversed(changes):  # oldest first: the newest deletion of a path stands
        for rel, blob in olds:
            if rel in peers:
                deleted.pop(rel, None)
                deleted[rel] = (c, blob)
    deleted = dict(list(deleted.items())[-_DELETIONS_KEPT:])
    where = {commit: pos for pos, commit in enumerate(order)}
    # a peer's move to a path stands where it is newer than every move made here to that path
    peer_candidates: dict[str, tuple[str, str, list[tuple[str, str, str]]]] = {}
    for pos, commit, news, olds in by_peers:  # newest first: the newest move to a path stands
        for rel, blob in news:
            if rel not in peer_candidates and (rel not in candidates or where[candidates[rel][0]] > pos):
                peer_candidates[rel] = (commit, blob, [(old, ob, commit) for old, ob in olds])
    for rel in peer_candidates:
        candidates.pop(rel, None)
    if not candidates and not peer_candidates:
        return {}, deleted, {}
    try:
        # the texts of the moves made here first: a peer's moves (texts it chose, ids it can
        # grind) never take the bound those need (atk26's reviewer)
        texts = _history_texts(ws, {b for _c, blob, olds in peer_candidates.values()
                                    for b in (blob, *(ob for _p, ob, _g in olds))},
                               first=sorted({b for _c, blob, olds in candidates.values()
                                             for b in (blob, *(ob for _p, ob, _g in olds))}))
    except VaultMemError:
        texts = {}
    lines = {blob: _lines(text) for blob, text in texts.items()}  # each text's lines made once
    found: dict[str, tuple[str, str, str]] = {}
    by_peer: dict[str, tuple[str, str, str]] = {}
    for out, chosen, unread_followed in ((found, candidates, True), (by_peer, peer_candidates, False)):
        for rel, (commit, blob, olds) in sorted(chosen.items(), key=lambda item: where[item[1][0]]):
            now = lines.get(blob, frozenset())
            best = max(olds, key=lambda old: (len(now & lines.get(old[1], frozenset())), old[2] == commit, old[0]))
            if now & lines.get(best[1], frozenset()):
                out[rel] = (commit, best[0], best[2])
            elif unread_followed and (blob not in texts or any(ob not in texts for _o, ob, _g in olds)):
                # a move made here with a text git did not give on either side (missing, past
                # the bound): followed, from an old path whose text is unread where one is (the
                # safe side: the peer's standing travels). A peer's move is not (following it
                # is what makes the lines it kept no contribution of the peer's)
                unread = [old for old in olds if old[1] not in texts] or olds
                best = max(unread, key=lambda old: (old[2] == commit, old[0]))
                out[rel] = (commit, best[0], best[2])
    return found, deleted, by_peer


#: how many deletions made here of memories whose history holds a peer's change a later add is
#: compared with (:func:`_moved`): a move split over two commits is followed back that far
_DELETIONS_KEPT = 64


def _vault_relative(ws: Workspace, found: dict[str, tuple[str, str, str, str]]) -> dict[str, tuple[str, str, str, str]]:
    """``found`` keyed by vault-relative path, memory files only."""
    n = len(ws.prefix)
    return {top[n:]: who for top, who in found.items() if top.startswith(ws.prefix) and is_memory_path(top[n:])}


def _rows_kept(sidecar: Sidecar, rels: list[str] | None) -> dict[str, tuple[str, str, str, str]]:
    """The authors the sidecar kept for ``rels`` (None: for every memory)."""
    return rows.authors_of(sidecar.db, rels) if rels is not None else rows.all_authors(sidecar.db)


def _kept(ws: Workspace, sidecar: Sidecar, rels: list[str] | None, *,
          at: str | None = None) -> dict[str, tuple[str, str, str, str]]:
    """The authors of ``rels`` (None: of every memory) as of HEAD: from the sidecar, or worked
    out here from git when the sidecar cannot be written and is behind (never "unknown", which
    would pass for this machine's own change). With an older commit's object missing or
    corrupt, a file HEAD holds whose last change git cannot reach gets an author no one vouches
    for (``("", "", "", blob)``: a peer's, :func:`_judge`), never this machine's. ``at``: as of
    that commit instead (HEAD's before a git command moved it: the post-merge hook), from the
    sidecar when its authors are of that commit, else from git, the sidecar left as it is."""
    repo = ws.repo
    if at is not None and at != repo.head():
        head: str | None = at
    else:
        refresh(ws, sidecar)
        head = repo.head()
    if head is None or rows.stored_head(sidecar.db) == head:
        return _rows_kept(sidecar, rels)
    paths = [ws.prefix + r for r in rels] if rels is not None else [ws.prefix or "."]
    if not paths:
        return {}
    seen = repo.damage_seen
    found = _vault_relative(ws, history.last_authors(repo, head, None, paths))
    if repo.damage_seen != seen:
        try:
            held = paths if rels is not None else list(history.tree_entries(repo, head, ws.prefix or "."))
            blobs = history.tree_blobs(repo, head, held)
        except GitError:  # HEAD's own commit or tree is what is missing: the rows kept before it went stand
            return {**_rows_kept(sidecar, rels), **found}
        unreached = _vault_relative(ws, {top: ("", "", "", blob) for top, blob in blobs.items()})
        found = {**unreached, **found}
    return found


def _committed_as_is(ws: Workspace, rel: str, blob: str) -> bool:
    """True when the file ``rel`` holds the committed ``blob`` (no change made here since)."""
    try:
        data = ws.disk_bytes(rel)
    except VaultMemError:
        return True  # a link: never read, so never shown; the committed author stands
    return data is not None and same_as_committed(ws.repo, data, blob)


def author_of_bytes(ws: Workspace, sidecar: Sidecar, rel: str, data: bytes) -> Author:
    """The author of the committed file ``rel`` whose bytes on disk are ``data`` (a write that
    read it to update it). The sidecar's kept row answers without a git process when it names
    that very blob (kept rows lag HEAD by this machine's own commits, and bringing them up to
    date costs a write five git processes); otherwise :func:`authors_of`. A row for the same
    blob made by someone else later changes nothing: the text is that author's either way."""
    who = rows.authors_of(sidecar.db, [rel]).get(rel)
    if who is not None and who[3] == blob_id(data):
        ids = identities(ws)
        return _judge(ws, ids, {rel: who}, [rel], Origins(ws, sidecar, ids), check_disk=False)[rel]
    return authors_of(ws, sidecar, [rel])[rel]


def authors_of(ws: Workspace, sidecar: Sidecar, rels: list[str], ids: Identities | None = None, *,
               check_disk: bool = True, origins: Origins | None = None) -> dict[str, Author]:
    """The author of each memory file ``rels`` (vault-relative), with its standing.
    ``check_disk=False`` (a listing of every memory) skips reading each file to see whether it
    was changed here since its commit: such a file keeps its committed author. ``origins``: the
    texts' first authors as one operation already read them (its ``ids`` with it): the refs
    are then not stamped again (:func:`~vault_mem.store.history.refs_stamp` walks ``refs/``
    and ``logs/``)."""
    if not rels:
        return {}  # recall asks for the authors of the memories that supersede one: mostly none
    ids = ids or identities(ws)
    origins = origins or Origins(ws, sidecar, ids)
    judged = _judge(ws, ids, _kept(ws, sidecar, rels), rels, origins, check_disk=check_disk)
    return {rel: judged[rel] for rel in rels}


def _judge(ws: Workspace, ids: Identities, known: dict[str, tuple[str, str, str, str]], rels: list[str],
           origins: Origins, *, check_disk: bool = True, dirty: set[str] | None = None,
           uncommitted: _Uncommitted | None = None) -> dict[str, Author]:
    """The one home of the rule "who made this memory file": its committed author (``known``:
    HEAD's last author of each path) judged as that commit, unless the file on disk differs from
    what that commit holds; then :class:`_Uncommitted` says who made the change. Either way a
    text first seen in a commit of an author not trusted here stays that author's
    (:class:`Origins`): committing it again here makes it no one else's; and a peer's commit
    that gave the path back the text the trusted commits last left there is no author of it
    (:func:`_given_back`). ``dirty`` (the
    vault-relative paths that differ from HEAD, from one ``git status``) replaces reading each
    file; past ``FILE_CHECKS`` files it is asked of git here. ``check_disk=False`` trusts the
    committed author without looking."""
    if check_disk and dirty is None and len(rels) > FILE_CHECKS:
        dirty = {top[len(ws.prefix):] for top in dirty_paths(ws.repo, [ws.prefix or "."])}
    out: dict[str, Author] = {}
    changed = []
    for rel in rels:
        who = known.get(rel)
        if who is None or (check_disk and (rel in dirty if dirty is not None
                                           else not _committed_as_is(ws, rel, who[3]))):
            changed.append(rel)
        else:  # a commit beyond damaged history (""): no one vouches
            out[rel] = ids.author(who)
    back = _given_back(ws, ids, origins, known, out)
    if back:  # judged as the trusted commit whose text the peer's put back
        known = {**known, **back}
        out.update({rel: ids.author(who) for rel, who in back.items()})
    out = origins.first_authors(out, {rel: (who[3], who[0]) for rel, who in known.items() if rel in out})
    if changed:
        out.update((uncommitted or _Uncommitted(ws, ids, origins)).authors(changed))
    return _adopted(ws, ids, origins, known, out, set(changed))


#: the most bytes of history's texts one reading of them holds (:func:`_history_texts`): the
#: versions of the paths a judgement follows (moves, a peer's lines still standing), which a
#: peer's push decides. A peer's 2,000 commits of one 40 KB path (a few hundred KB of pack, as
#: deltas) had the first read after the sync hold all 80 MB of them; a 16 MB version put back in
#: the next commit, ~500 MB as sets of lines. A person's history of the memories a judgement
#: follows is a few hundred KB.
TEXTS_READ_BYTES = 8 * 1024 * 1024


def _history_texts(ws: Workspace, blobs: set[str], *, first: Iterable[str] = (),
                   sizes: dict[str, int] | None = None) -> dict[str, bytes]:
    """The texts of ``blobs`` and ``first`` (versions of memory files in history) that the rules
    here read: one over the vault's file size limit is no memory vault-mem reads, and the rest up
    to :data:`TEXTS_READ_BYTES` in all, ``first``'s before the others (those a peer's push does
    not decide). What is left out is read as git lacking it: each caller takes an unread text
    for a history nobody can vouch for, the safe side (a peer's text stays the peer's, a move
    made here is followed), never for a text with no lines in common. ``sizes``: theirs, when the
    caller asked them already."""
    first = list(dict.fromkeys(first))  # in the order given
    return history.read_blobs(ws.repo, first + sorted(set(blobs).difference(first)),
                              each=ws.config.max_file_bytes, most=TEXTS_READ_BYTES, sizes=sizes)


def _lines(data: bytes | None) -> frozenset[str]:
    """The lines of a text that count for :func:`_adopted`, each as its words: Unicode's NFKC
    form, runs of whitespace (tabs, trailing spaces, a byte-order mark) made one space, line
    ends of any kind; lines without a letter or digit left out (blank ones, ``---``, a code
    fence: they say nothing, and every text keeps them). What an editor's save changes without the person
    touching the words (trimmed trailing whitespace, tabs expanded, another Unicode form, CRLF)
    leaves a peer's line the same line: comparing bytes let such a save adopt it (the safe side:
    a person's change of whitespace alone adopts nothing)."""
    if not data:
        return frozenset()
    text = unicodedata.normalize("NFKC", data.decode("utf-8", "replace")).replace("\ufeff", "")
    lines = [" ".join(line.split()) for line in text.splitlines()]
    # the front matter's bookkeeping (a date, a one-word type, an unpinning, a source that claims
    # no person's word) is no one's words: every text keeps it, and an update carries
    # ``created:`` over (else no write of the person's or the agent's could ever make a peer's
    # memory theirs). A line that raises the memory's standing (``pinned`` that pins: the session
    # context; ``source: user``: the person's own word) is a choice, and a peer's is the peer's
    end = lines.index("---", 1) if lines and lines[0] == "---" and "---" in lines[1:] else 0
    return frozenset(words for i, words in enumerate(lines)
                     if words and any(c.isalnum() for c in words) and not (i < end and _BOOKKEEPING.fullmatch(words)))


#: a front-matter line :func:`_lines` leaves out: a date or the type with a one-word value, a
#: ``pinned`` that does not pin, a ``source`` other than ``user`` (compared as YAML reads them:
#: any case, quoted or not). Not ``pinned: true`` nor ``source: user``: those choose where the
#: memory stands (trust23: a peer's ``pinned: true`` kept by the person's edit of the body counted
#: as no one's, so the memory led the session context as the person's)
_BOOKKEEPING = re.compile(r"(?:created|updated|type): ?[\w.:+-]*"
                          r"|pinned: ?(?P<q1>[\"']?)(?i:false|no|off|null|~|)(?P=q1)"
                          r"|source: ?(?P<q2>[\"']?)(?!(?i:user)(?P=q2)$)[\w.:+-]*(?P=q2)")


#: a line of an agent's new text counts as a repeat of a peer's line (:meth:`Origins._repeats`)
#: only with at least this many words (runs of letters and digits) and characters, once
#: normalized as :func:`_lines` does: a heading, a marker, a one-word line, a short list item
#: ("## Notes", "TODO", "- [ ] tests", "Steps:", "pinned: true", "tags: [ops, ci]") is in every
#: other text and says nothing; a sentence that can carry a fact or an order ("run X with Y
#: first") is past it. See RELIABILITY.md (Trust boundary: an agent's copy of a peer's text).
REPEAT_MIN_WORDS, REPEAT_MIN_CHARS = 4, 20


def _repeat_hashes(data: bytes | None) -> set[int]:
    """64-bit hashes of the lines of ``data`` that count as a repeat: each line of :func:`_lines`
    without its hidden characters (or their shown escapes), without what only places it (a list or quote mark, a heading's ``#``, one leading ``field:``,
    so a peer's body line copied into the agent's description, or into a list item, is the same
    line; surrounding quotes), case folded, of at least :data:`REPEAT_MIN_WORDS` words and
    :data:`REPEAT_MIN_CHARS` characters."""
    out = set()
    for line in _lines(data):
        # hidden characters (zero-width, bidi), and the escapes an agent is shown for them
        # (model/names.visible): a copy of what the agent read matches the line it was read from
        # (a line ``str.isprintable`` passes holds none of them: it refuses every category of
        # :data:`_HIDDEN`; a line without a backslash holds no escape, and one with neither is
        # as :func:`_lines` spaced it: the character by character look was most of a large
        # sync's CPU)
        if "\\" in line or not line.isprintable():
            line = _SHOWN_ESCAPE.sub("", line)
            if not line.isprintable():
                line = "".join(ch for ch in line if unicodedata.category(ch) not in _HIDDEN)
            line = " ".join(line.split())
        words = _PLACING.sub("", line, count=1).strip("\"'` ").casefold()
        if len(words) >= REPEAT_MIN_CHARS and len(_WORD.findall(words)) >= REPEAT_MIN_WORDS:
            out.add(int.from_bytes(hashlib.blake2b(words.encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                                   "big", signed=True))
    return out


_WORD = re.compile(r"\w+")
#: characters a line's words never hold (:func:`_repeat_hashes`), as ``model/names.visible`` hides
#: them in prose, and the escapes it shows in their place
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"})
_SHOWN_ESCAPE = re.compile(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")
#: what only places a line (:func:`_repeat_hashes`): list, quote and heading marks, then a field name
_PLACING = re.compile(r"^(?:(?:[-*+>#|]+|\d+[.)])\s*)*(?:[\w-]+:\s+)?")


def keep_peers_lines(ws: Workspace, sidecar: Sidecar, changes: dict[str, bytes | None],
                     before: dict[str, bytes | None]) -> dict[str, Author]:
    """The adoption rule (:func:`_adopted`) for an agent's write: **a write of the agent adopts
    only what it changes, and repeating a peer's line word for word changes nothing.** Each new
    text of ``changes`` (``{path: bytes}``, ``before``: the bytes each replaces) that holds a
    counted line (:func:`_repeat_hashes`: normalized as :func:`_lines`, long enough to say
    something) whose first giver is a commit of an author not trusted here, and not in the text it
    replaces (keeping one's own line is no copy), is recorded as first seen in that commit
    (``origins``): from its commit on, the memory is that peer's wherever it is judged (marked in
    recall, not put in front of an agent unasked) until the person approves the author or the
    line is gone. Why: an agent reads a peer's memory on request (marked) and, told so by its
    text, writes it again under a key of its own, pinned; as a new text of no other first author
    it led the next session's context as "an agent on this machine" (atk25). A line's first
    giver is the commit that gave it first as this machine saw it (:meth:`Origins._record_lines`),
    the commits made here included: a line this machine's person or agents said first stays
    theirs however often a peer repeats it (first23: a peer's copy of the person's lines, or of
    the agent's, made every later new memory of the agent's repeating them the peer's: a peer
    chose which of the person's memories to hide). Called by every
    write of vault-mem's (:class:`~vault_mem.vault.transaction.Transaction`: the agent identity's
    commits, MCP and CLI alike: an agent runs the CLI through its shell as easily as a person);
    a person's own hand edits and commits are the person's (DESIGN §7). Cost per write: the
    write's lines hashed and looked up by key in ``peer_lines`` (nothing at all in a vault never
    scanned). Returns ``{path: the peer's Author}`` of the texts so recorded."""
    db = sidecar.db
    texts = {rel: data for rel, data in changes.items() if data is not None and is_memory_path(rel)}
    if not texts:
        return {}
    # the table as the last scan left it (a sync's and every read's): a scan here, before the
    # write's commit, recorded the refs without the commit, which no later scan then walked
    # while only the branch moved (its text was then no one's: a peer's put-back of it counted)
    ids = identities(ws)
    Origins(ws, sidecar, ids, scan=False)  # a sidecar of an earlier rule: its lines filled again first
    if not rows.has_peer_lines(db):
        return {}
    found: dict[str, tuple[str, str]] = {}
    out: dict[str, Author] = {}
    # a move (``remember KEY --type other``) writes the new path and deletes the old one: the old
    # text is what the new one replaces (rev4: the agent's own line a peer copied was looked up
    # and the agent's moved memory became the peer's). Only the same key's: a write that deletes
    # another memory (a resolved conflict copy) replaces nothing of this one with it
    gone: dict[str, set[int]] = {}
    for rel, data in changes.items():
        if data is None and is_memory_path(rel):
            gone.setdefault(PurePosixPath(rel).stem, set()).update(_repeat_hashes(before.get(rel)))
    for rel, data in texts.items():
        hashes = _repeat_hashes(data) - _repeat_hashes(before.get(rel)) - gone.get(PurePosixPath(rel).stem, set())
        peer = next((p for p in rows.peer_lines_of(db, hashes) if ids.standing(p[1], p[0]) == "peer"), None)
        if peer is not None:
            found[blob_id(data)] = peer
            out[rel] = Author(peer[1], "peer")
    if found:
        try:
            rows.note_origins(db, found)
        except IndexStoreError:  # a read-only or full sidecar: this process holds them (as a scan's)
            _UNSTORED.setdefault(str(ws.root), {}).update(found)
    return out


#: how many bytes of texts :func:`_small_texts` holds at once: the texts whose lines a scan
#: records (:meth:`Origins._record_lines`) are what a peer pushed, :data:`SCAN_CHUNK` of them
#: up to the file size limit each (160 MB); a peer's 2,000 versions of one memory took a sync
#: from 38 to 274 MB (rev4). Read this much at a time, each batch's lines hashed and let go.
LINES_READ_BYTES = 4 * 1024 * 1024


def _small_texts(ws: Workspace, blobs: list[str]) -> Iterator[dict[str, bytes]]:
    """The texts of ``blobs`` no bigger than a memory file may be (a bigger one is no memory a
    write could make, nor one sync takes: left out), in batches of at most
    :data:`LINES_READ_BYTES` (one text alone may be its own batch): the sizes asked first
    (nothing loaded), each batch through one ``git cat-file`` (:func:`history.read_blobs`)."""
    sizes = history.blob_sizes(ws.repo, list(dict.fromkeys(blobs))) if blobs else {}
    batch: list[str] = []
    held = 0
    for blob, size in sizes.items():
        if size > ws.config.max_file_bytes:
            continue
        if batch and held + size > LINES_READ_BYTES:
            yield history.read_blobs(ws.repo, batch)
            batch, held = [], 0
        batch.append(blob)
        held += size
    if batch:
        yield history.read_blobs(ws.repo, batch)


def _adopted(ws: Workspace, ids: Identities, origins: Origins, known: dict[str, tuple[str, str, str, str]],
             judged: dict[str, Author], changed: set[str], *,
             texts: dict[str, bytes | None] | None = None) -> dict[str, Author]:
    """``judged``, where a memory judged this machine's (a commit made here, or a change not
    committed) keeps lines a peer's change added: then it is that peer's.

    The rule: **a change made on this machine adopts only what it changes.** A change made here
    (an uncommitted edit, a commit made here: the person's, the agent's, the daemon's) to a
    memory whose previous text was a peer's makes it the person's only if the peer's
    contribution did not survive it. A peer's contribution is the lines its change added: those
    of its text that are neither in the text just before it at that path nor in the last text
    of trusted authorship there (nothing, for a memory the peer created), blank and
    whitespace-only lines ignored, each compared verbatim. While every line of a peer's change
    is still in the text, through any number of later changes made here, the memory is that
    peer's (marked in recall, not put in front of the agent unasked); a change (anyone's) that
    rewrites or removes one of them ends that contribution, and a change made here that leaves
    none standing makes the text this machine's, as before. Why: git merges a peer's change into
    the person's own edit with no trace left (`git pull --rebase --autostash`, `git stash pop`
    after a pull, `git checkout -m`, a squash committed with ``--no-verify``); on disk that is
    an edit made here, and the peer's line would reach the prompt hook as the person's. A
    person who keeps a peer's lines and wants the memory in context approves the author
    (`vault-mem trust --author`: an approved author's change is no peer's) or rewrites them. A
    text first seen in a peer's commit (:class:`Origins`) counts as that peer's change wherever
    it is committed again. A peer's change that only removes lines adds none: nothing of it
    needs to survive.

    **A move is no authorship** (issue 23). A commit that deletes one memory and adds another
    whose text shares counted lines with it moved it (:func:`_moved`; git's rename guess plays
    no part): the new path's history goes on at the old one's, from before that deletion; one
    made here is a move too when a text on either side went unread (missing, past
    :func:`_history_texts`' bound: the safe side, the old path's standing travels). For a
    move made here, so that a peer's lines it keeps stay the peer's at the new key (else the
    move, the path's first commit, made them this machine's). For a peer's move in one commit
    (a plain commit or a merge), so that the peer's move contributes what it added and no more:
    else the move, the new path's first commit, counted every line there as the peer's, the
    person's own included, and once the person removed the line the peer appended after moving
    their memory it stayed the peer's until they rewrote each of their own lines. Why following
    it is right and not only kinder: the peer's move then contributes exactly the lines it added
    to the text it moved (none, for the same bytes), as any change of a path does; the lines
    standing before the move (a peer's kept by the person's commit, or the person's own) stand
    or not after it as they did before, so a move launders nothing (a peer's line moved, removed
    and re-added is the peer's again: the last trusted text counts without the peers' lines it
    kept). A "move" whose text shares one line with some memory of the person's credits the
    person with that line alone. Not followed, the safe side (the new path's history starts at
    the peer's commit, every line there the peer's): a peer's move split over two commits, a
    copy (the old path kept), a peer's move whose texts git cannot give, a move beyond the newest
    :data:`~vault_mem.store.history.PEER_MOVES_WALKED` peers' moves of one walk, a peer's commit
    adding or deleting more than :data:`~vault_mem.store.history.PEER_MOVE_FILES` memory files
    (:class:`~vault_mem.store.history.PeerMoves`: what both count), or once
    :func:`~vault_mem.index.authors.moved_from` names :data:`MOVES_FOLLOWED` paths (the oldest
    peer's move kept is forgotten first).

    Asked only of the memories whose history holds a peer's change: a change not committed over
    a text a peer committed (or first wrote), and the committed paths
    :func:`~vault_mem.index.authors.lineage_paths` names. A memory only this machine ever
    changed asks nothing (the person's own vault: one small ``meta`` row read). Per memory
    asked: its path's history (:meth:`Origins.path_histories`, kept in the sidecar for HEAD) and
    the peers' contributions that history leaves standing, worked out once from one ``git
    cat-file`` of the texts since its first peer change and kept in the sidecar for that history
    (:func:`~vault_mem.index.authors.adoption_states`); a change not committed is then one set
    comparison. A merge in the path's history is followed along its newest side that changed
    the path."""
    lineage = origins.lineage()
    asked: dict[str, bytes | None] = {}
    heads: dict[str, Author] = {}
    fresh: list[str] = []
    for rel, author in judged.items():
        if not author.trusted:
            continue
        if rel not in changed:
            if rel in lineage:
                asked[rel] = None
            continue
        who = known.get(rel)
        if who is None:
            fresh.append(rel)  # a new file: no text was at its path before here, unless moved
            continue
        heads[rel] = ids.author(who)
    if heads:
        heads = origins.first_authors(heads, {rel: (known[rel][3], known[rel][0] or None) for rel in heads})
        for rel, head in heads.items():
            if not head.trusted or rel in lineage:
                try:
                    data = texts[rel] if texts is not None else ws.disk_bytes(rel)
                except VaultMemError:
                    data = None
                if data is not None:
                    asked[rel] = data
    moved_here = _moved_uncommitted(ws, ids, origins, fresh) if fresh and texts is None else {}
    for new, (old, data) in moved_here.items():  # as an edit, not committed, of the memory it was moved from
        found = _adopted(ws, ids, origins, {**known, **rows.authors_of(origins.db, [old])},
                         {old: Author(None, "local")}, {old}, texts={old: data})[old]
        if not found.trusted:
            judged = {**judged, new: found}
    if not asked:
        return judged
    # one operation judges a memory more than once (the session context: the peers' list, then
    # each INDEX.md line): each text's answer is worked out once per operation
    memo = origins.adopted
    keys = {rel: (rel, known[rel][3] if rel in known else "", None if data is None else blob_id(data))
            for rel, data in asked.items()}
    todo = {rel: data for rel, data in asked.items() if keys[rel] not in memo}
    if todo:
        found = _adopted_walk(ws, ids, origins, known, todo)
        memo.update({keys[rel]: found.get(rel) for rel in todo})
    out = dict(judged)
    out.update({rel: memo[keys[rel]] for rel in asked if memo[keys[rel]] is not None})
    return out


def _moved_uncommitted(ws: Workspace, ids: Identities, origins: Origins, fresh: list[str]
                       ) -> dict[str, tuple[str, bytes]]:
    """Of ``fresh`` (new files, not committed, judged this machine's), those that are a committed
    memory moved here and not committed yet (``git mv``, ``mv``, an editor's save as): ``{new
    path: (the committed path gone from the disk whose text shares the most counted lines with
    it, its text)}``, for committed paths whose history holds a peer's change (a peer's last
    commit, :func:`~vault_mem.index.authors.lineage_paths`, a move followed before). What
    :func:`_moved` is for a move committed here, for one not committed: the new path has no
    history, and the peer's merged line in it read as the person's until the move was
    committed (trust23). The committed paths gone from the disk come from the sidecar's
    committed view (:func:`vault_mem.vault.committed.gone`: its ``differs`` rows, brought to HEAD
    by a diff of the commits since), proportional to the change: reading every author row and
    stat'ing every memory of a peer's history cost 67 ms of CPU per judging at 10k (trust24,
    ``bench/bench_moved_uncommitted.py``). A read-only sidecar, which cannot bring the view to
    HEAD, looks at every committed memory as before, and so does a read while another process holds
    the sidecar's write lock (the view is brought along by a later read). Git only when such a memory is gone."""
    try:
        if origins.read_only:
            raise IndexStoreError("read-only")
        paths: list[str] | None = committed_view.gone(ws, origins.sidecar, ws.repo.head(), give_up=True)
    except VaultMemError:
        paths = None
    kept = rows.authors_of(origins.db, paths) if paths is not None else rows.all_authors(origins.db)
    if not kept:
        return {}
    lineage, moved = origins.lineage(), origins.moved()
    gone = [rel for rel, (commit, email, _n, _b) in kept.items()
            if (rel in lineage or rel in moved or not commit or ids.standing(email, commit) == "peer")
            and not os.path.lexists(ws.root / rel)]
    if not gone:
        return {}
    try:
        olds = _history_texts(ws, {kept[rel][3] for rel in gone if kept[rel][3]})
    except VaultMemError:
        olds = {}
    out = {}
    for rel in fresh:
        try:
            data = ws.disk_bytes(rel)
        except VaultMemError:
            continue  # a link: never read, never shown
        now = _lines(data)
        if data is None or not now:
            continue
        best = max(gone, key=lambda old: (len(now & _lines(olds.get(kept[old][3]))), old))
        if now & _lines(olds.get(kept[best][3])):
            out[rel] = (best, data)
        elif unread := [old for old in gone if kept[old][3] not in olds]:
            # a committed text git did not give (missing, past the bound): it may be the one
            # moved here, and the move is taken as one (the safe side: its standing travels)
            out[rel] = (max(unread), data)
    return out


def _adopted_walk(ws: Workspace, ids: Identities, origins: Origins, known: dict[str, tuple[str, str, str, str]],
                  asked: dict[str, bytes | None]) -> dict[str, Author]:
    """:func:`_adopted`'s answer for ``asked`` (``{path: the text of the change not committed,
    or None}``): the peer whose change's lines survive, for those whose do."""
    out: dict[str, Author] = {}
    moved = origins.moved()
    paths = set(asked)
    for rel in asked:  # the paths each was moved from here, and theirs (see _moved)
        at = rel
        while at in moved and moved[at][1] not in paths and len(paths) < len(asked) + MOVES_FOLLOWED:
            at = moved[at][1]
            paths.add(at)
    walks = origins.path_histories(sorted(ws.prefix + rel for rel in paths))
    chains: dict[str, list[tuple[str, str, str]]] = {}
    for rel in asked:
        # the line back from the commit HEAD's row names (the one that gave HEAD's text), not from
        # the walk's first entry: a peer's root commit of a line of its own holding a copy of the
        # person's memory, merged in (`git merge --allow-unrelated-histories -s ours`, any
        # dates), came first in the walk, and its line (that commit alone, adding every line)
        # made the person's pinned memory the peer's, out of the session context, unsaid
        walk = walks.get(ws.prefix + rel, [])
        who = known.get(rel)
        chain = _line_back(walk, next((i for i, entry in enumerate(walk) if who and entry[0] == who[0]), 0))
        at, followed = rel, set()
        # a path a commit made here added while it deleted the path moved from: that path's
        # history, before the move, stands for what came before the move here (nothing, or a
        # text deleted before: a move back); the move commit's own entry there is the
        # deletion, left out: the new path's entry holds the text it moved
        while at in moved and moved[at] not in followed:
            commit, source, gone_in = moved[at]
            followed.add(moved[at])
            k = next((k for k, entry in enumerate(chain) if entry[0] == commit), None)
            walk = walks.get(ws.prefix + source, [])
            j = next((j for j, entry in enumerate(walk) if entry[0] == gone_in), None)
            if k is None or j is None or not walk[j][4]:
                break
            chain = _line_back(walk, min(walk[j][4])) + chain[k:]
            at = source
        who = known.get(rel)
        if who is not None and (not chain or chain[-1][2] != who[3]):
            # the history cut short (damage), or the commit HEAD's row names missing from it:
            # that commit's change at least (a row no commit vouches for: no one's, a peer's)
            chain.append((who[0], who[1], who[3]))
        chains[rel] = chain
    first = origins.first_seen(sorted({blob for chain in chains.values() for *_w, blob in chain if blob}))

    def peer_of(commit: str, email: str, blob: str) -> str | None:
        """The email of the peer whose change this is, or None for a trusted one."""
        if ids.standing(email, commit) == "peer":
            return email
        f = first.get(blob) if blob else None
        return f[1] if f is not None and f[0] != commit and ids.standing(f[1], f[0]) == "peer" else None

    todo: dict[str, tuple[int, list[str | None]]] = {}
    for rel, chain in chains.items():
        peers = [peer_of(*entry) for entry in chain]
        start = next((k for k, p in enumerate(peers) if p is not None), None)
        if start is not None:
            todo[rel] = (start, peers)
    if not todo:
        return out
    # the state the committed history leaves (the peers' contributions standing), kept in the
    # sidecar per path for the history it was worked out from: a read asks git nothing more
    kept = rows.adoption_states(origins.db)
    states: dict[str, list[list]] = {}
    keys: dict[str, str] = {}
    for rel, (start, peers) in todo.items():
        keys[rel] = blob_id(json.dumps([[*entry, peer] for entry, peer in
                                        zip(chains[rel][max(start - 1, 0):], peers[max(start - 1, 0):], strict=True)]
                                       + [start > 0, _ADOPTION_RULE]).encode())
        held = kept.get(rel)
        if isinstance(held, list) and len(held) == 2 and held[0] == keys[rel] and isinstance(held[1], list):
            try:
                states[rel] = [[str(email), [str(line) for line in lines]] for email, lines in held[1]]
            except (TypeError, ValueError):
                pass  # a damaged entry: worked out again
    missing = {rel: todo[rel] for rel in todo if rel not in states}
    if missing:
        found = _committed_states(ws, chains, missing)
        # a path whose own texts git did not give (missing, past the bound): no one vouches for
        # what the peer's change left there; the other paths judged with it are judged
        out.update({rel: Author(peers[start] or None, "peer") for rel, (start, peers) in missing.items()
                    if found.get(rel) is None})
        read = {rel: state for rel, state in found.items() if state is not None}
        states.update(read)
        if read and not origins.read_only:
            try:
                rows.keep_adoption_states(origins.db, {rel: [keys[rel], read[rel]] for rel in read})
            except IndexStoreError:
                pass  # worked out again next time (a full disk)
    for rel, state in states.items():
        standing = [(email, frozenset(lines)) for email, lines in state]
        if asked[rel] is not None:  # the change not committed, made here, keeps only what it keeps
            now = _lines(asked[rel])
            standing = _still_standing(standing, now)
        if standing:
            out[rel] = Author(standing[-1][0] or None, "peer")
    return out


#: how many moves :func:`_adopted_walk` follows back from the memories it is asked about, at most
MOVES_FOLLOWED = 64
# (this bound and FILE_CHECKS are the two a judgement of some paths, :func:`peer_judgement`
# ``only``, must stay within to say what the whole judgement says of them: KeptPeers checks them)


def _line_back(walk: list[tuple[str, str, str, str, list[int]]], i: int) -> list[tuple[str, str, str]]:
    """``(commit, email, blob)`` of the nearest line back through ``walk`` from its entry ``i``
    (:func:`_with_ancestry`'s), oldest first."""
    chain, seen = [], set()
    while walk and 0 <= i < len(walk) and i not in seen:
        seen.add(i)
        chain.append((walk[i][0], walk[i][1], walk[i][3]))
        i = min(walk[i][4]) if walk[i][4] else -1
    chain.reverse()
    return chain


#: the version of the rule the kept states were worked out by (:func:`_lines`, :func:`_still_standing`):
#: part of each state's key, so that a state kept by an older rule is worked out again, never read
_ADOPTION_RULE = 3


def _still_standing(standing: list[tuple[str, frozenset[str]]], now: frozenset[str]) -> list[tuple[str, frozenset[str]]]:
    """The peers' contributions ``standing`` that a text whose lines are ``now`` leaves: each
    down to its lines still there, gone once none is. Any one line of a peer's change still
    standing keeps it standing: a peer decides which lines its change adds, so "all of them"
    let it make the person's ordinary edit (a typo fixed in a line it had touched) adopt its
    instruction line, which was still there verbatim."""
    out = []
    for email, lines in standing:
        if left := lines & now:
            out.append((email, left))
    return out


def _committed_states(ws: Workspace, chains: dict[str, list[tuple[str, str, str]]],
                      todo: dict[str, tuple[int, list[str | None]]]) -> dict[str, list[list] | None]:
    """For each path of ``todo`` (``(where its first peer change is in its chain, each change's
    peer or None)``), the contributions of peers its committed history leaves standing:
    ``[[email, [line, ...]], ...]``, oldest first; None for a path one of whose texts git does
    not give (missing, or past :func:`_history_texts`' bound), each path on its own. One ``git
    cat-file`` for the texts since the first peer change (and the one before it), the paths whose
    texts take the fewest bytes first (their sizes asked first, nothing loaded): a peer's
    thousands of versions of one path take the bound from no other."""
    spans = {rel: [blob for *_w, blob in chains[rel][max(start - 1, 0):] if blob] for rel, (start, _p) in todo.items()}
    try:
        sizes = history.blob_sizes(ws.repo, sorted({blob for span in spans.values() for blob in span}))
        each = ws.config.max_file_bytes

        costs = {rel: sum(sizes.get(blob, each + 1) for blob in span) for rel, span in spans.items()
                 if all(sizes.get(blob, each + 1) <= each for blob in span)}  # the others go unread whatever the bound
        texts = _history_texts(ws, set(), first=[blob for rel in sorted(costs, key=lambda rel: (costs[rel], rel))
                                                 for blob in spans[rel]], sizes=sizes)
    except VaultMemError:
        return dict.fromkeys(todo)
    out: dict[str, list[list] | None] = {}
    for rel, (start, peers) in todo.items():
        chain = chains[rel]
        if any(blob not in texts for blob in spans[rel]):
            out[rel] = None
            continue
        before = _lines(texts[chain[start - 1][2]]) if start > 0 and chain[start - 1][2] else frozenset()
        trusted, previous = before, before
        standing: list[tuple[str, frozenset[str]]] = []
        for (_c, _e, blob), peer in zip(chain[start:], peers[start:], strict=True):
            now = _lines(texts[blob]) if blob else frozenset()
            standing = _still_standing(standing, now)
            if peer is not None:
                added = now - previous - trusted
                if added:
                    standing.append((peer, added))
            else:  # a trusted change vouches for its text, less the peers' lines it kept
                trusted = now.difference(*(lines for _email, lines in standing))
            previous = now
        out[rel] = [[email, sorted(lines)] for email, lines in standing]
    return out


def _with_ancestry(walk: list[tuple[str, str, str, str]], parents: dict[str, list[str]]
                   ) -> list[tuple[str, str, str, str, list[int]]]:
    """``walk`` (one path's commits, children first), each with the indexes of the nearest of
    its entries it descends from (``parents``: the commits' rewritten parents; a commit of the
    answer that is no entry of this path is passed through). Only the nearest: listing every
    entry each descends from grew with the square of the path's commits (a peer's 5,000 commits
    at one path kept ~12 million indexes, parsed again by every read); what descends from what
    is the walk down these (:func:`_descends`). Each commit of the graph is looked at once."""
    at = {entry[0]: i for i, entry in enumerate(walk)}
    nearest: dict[str, frozenset[int]] = {}  # commit (no entry): the nearest entries below it

    def below(commit: str) -> frozenset[int]:
        stack = [commit]
        while stack:
            c = stack[-1]
            todo = [p for p in parents.get(c, []) if p not in at and p not in nearest]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            nearest[c] = frozenset().union(*({at[p]} if p in at else nearest[p] for p in parents.get(c, [])))
        return nearest.pop(commit) if commit in at else nearest[commit]

    return [(commit, email, name, blob, sorted(below(commit))) for commit, email, name, blob in walk]


def _descends(walk: list[tuple[str, str, str, str, list[int]]], tops: list[int]) -> set[int]:
    """The indexes of the entries of ``walk`` (:func:`_with_ancestry`'s) that one of ``tops``
    descends from."""
    out: set[int] = set()
    stack = list(tops)
    while stack:
        for i in walk[stack.pop()][4]:
            if i not in out:
                out.add(i)
                stack.append(i)
    return out


def _given_back(ws: Workspace, ids: Identities, origins: Origins, known: dict[str, tuple[str, str, str, str]],
                judged: dict[str, Author]) -> dict[str, tuple[str, str, str, str]]:
    """Of the committed files ``judged`` a peer's (``known``: their last commit's ``(commit, email,
    name, blob)``, or ``("", "", "", blob)`` where no commit gave the path that blob: a merge
    brought it back, see :func:`_refresh`), those whose text is the last word at that path of the
    commits trusted here: ``{path: the newest such commit's (commit, email, name, blob)}``, the
    author they are judged as.

    A peer's commit that puts back at a path the text the trusted commits last left there adds
    nothing: a peer who deleted (or moved away, or changed the mode of) the person's memory and
    put the same bytes back in a later commit made it the peer's (its last commit), out of the
    session context, and the sync, which compares net changes, named nothing. The last word:
    of the commits of HEAD's history by this machine's person or agents or an approved author
    that changed the path, each that left another text (deleted it: ``vault-mem forget``, the
    person's ``git rm``; or changed it: the person's edit a peer's revert undoes) has a trusted
    commit that left this very blob among its descendants; where one does not, the peer puts
    back what the person took away, and the text is the peer's. Read from the graph, never
    from dates, and across merges: a peer's merge that kept its own tree over the person's
    ``forget`` gives nothing back as the person's. Only the same path: a text moved to another
    key is the peer's there (the key, and what ``supersedes`` named, is the peer's choice), and
    the sync names the person's memory it deleted (:func:`displaced_by_peers`). Asked only of
    the texts first seen in a trusted commit other than the last one (:class:`Origins`): most
    peer memories start no git process."""
    peers = {rel: known[rel] for rel, author in judged.items() if not author.trusted and rel in known}
    if not peers:
        return {}
    first = origins.first_seen([who[3] for who in peers.values()])
    asked = {rel: who for rel, who in peers.items()
             if (f := first.get(who[3])) is not None and f[0] != who[0] and ids.standing(f[1], f[0]) != "peer"}
    if not asked:
        return {}
    walks = origins.path_histories(sorted(ws.prefix + rel for rel in asked))
    out = {}
    for rel, who in asked.items():
        walk = walks.get(ws.prefix + rel, [])
        trusted = [i for i, (commit, email, *_rest) in enumerate(walk) if ids.standing(email, commit) != "peer"]
        left = [i for i in trusted if walk[i][3] == who[3]]
        below = _descends(walk, left) if left else set()
        if left and all(i in below for i in trusted if walk[i][3] != who[3]):
            out[rel] = walk[left[0]][:4]
    return out


class _Uncommitted:
    """Who made a memory file that differs from HEAD (or that HEAD lacks): this machine's
    person (a hand edit, a new file), unless a merge, cherry-pick, revert or rebase under way
    brought that change (``git pull`` stopped at a conflict leaves the remote's new and changed
    files staged, not committed): then the author of the incoming side's version, judged as any
    commit is; a ``cherry-pick -n`` or ``revert -n``, which names no commit, vouches for none of
    the files that differ from HEAD until its commit. Otherwise a peer's memory would pass for the person's for as long as the person
    takes to settle the conflict, and reach the prompt hook (DESIGN §7)."""

    def __init__(self, ws: Workspace, ids: Identities, origins: Origins):
        self.ws, self.ids, self.origins = ws, ids, origins
        self.incoming = ws.repo.incoming_heads()  # reads a few files in the git folder: no process
        #: a pick or revert git merged with ``-n`` names no commit (``MERGE_MSG`` alone): what
        #: it brought is no one's vouched text until the commit that concludes it, which the
        #: hooks judge (a peer's line merged into the person's pinned memory reached the prompt)
        self.unnamed = not self.incoming and ws.repo.concluding_replay()
        self.head = ws.repo.head() if self.incoming else None

    def author(self, rel: str) -> Author:
        """The author of the uncommitted file ``rel`` (vault-relative)."""
        return self.authors([rel])[rel]

    def authors(self, rels: list[str]) -> dict[str, Author]:
        """The authors of the uncommitted files ``rels`` (vault-relative). The files an operation
        under way brings are asked of git together, one ``git log`` per incoming commit (one per
        file walked the whole history again for each)."""
        repo, prefix = self.ws.repo, self.ws.prefix
        out: dict[str, Author] = {}
        left = list(dict.fromkeys(rels))
        if self.unnamed:
            return {rel: Author(None, "peer") for rel in left}
        for commit in self.incoming:
            tops = [prefix + rel for rel in left]
            try:  # each side's folder tree read once, not one lookup per file and side
                theirs, ours = repo.blobs_at(commit, tops), repo.blobs_at(self.head, tops)
            except VaultMemError:  # git cannot say: no one vouches for the text
                out.update({rel: Author(None, "peer") for rel in left})
                break
            # a file the operation brings no change to: the change is this machine's
            brought = [rel for rel in left if theirs[prefix + rel] != ours[prefix + rel]]
            try:
                found = history.last_authors(repo, commit, None, [prefix + r for r in brought]) if brought else {}
            except VaultMemError:
                found = {}
            for rel in brought:
                who = found.get(prefix + rel)
                # None: it deletes the file, or git cannot say: no one vouches for the text
                out[rel] = self.ids.author(who)
            self._merged(commit, [rel for rel in brought if out[rel].trusted], theirs, ours, out)
            left = [rel for rel in left if rel not in out]
        # changed here, but maybe to a text a peer wrote (`git merge --squash`, a file copied)
        texts = {}
        for rel in left:
            try:
                data = self.ws.disk_bytes(rel)
            except VaultMemError:
                data = None
            if data is not None:
                texts[rel] = (blob_id(data), None)
        mine = self.origins.first_authors({rel: Author(None, "local") for rel in left}, texts)
        return {**out, **mine}

    def _merged(self, commit: str, rels: list[str], theirs: dict, ours: dict, out: dict[str, Author]) -> None:
        """Of ``rels`` (brought by ``commit``, judged trusted in ``out``), those git merged: the
        text on disk is neither ``commit``'s nor HEAD's but both sides' lines (a rebase or
        cherry-pick of the person's own commit stopped over a peer's edit of the same memory).
        Such a text is no more trusted than HEAD's author of it: a peer's there makes it the
        peer's (``out`` changed in place)."""
        prefix, merged = self.ws.prefix, []
        for rel in rels:
            if ours[prefix + rel] is None:
                continue  # HEAD has no such file: the text is all the operation's
            try:
                data = self.ws.disk_bytes(rel)
            except VaultMemError:
                data = None
            if data is None or blob_id(data) != theirs[prefix + rel]:
                merged.append(rel)
        if not merged:
            return
        try:
            found = history.last_authors(self.ws.repo, self.head, None, [prefix + rel for rel in merged])
        except VaultMemError:
            found = {}
        for rel in merged:
            who = found.get(prefix + rel)
            side = self.ids.author(who)
            side = self.origins.first_authors({rel: side}, {rel: (ours[prefix + rel], who[0] if who else None)})[rel]
            if not side.trusted:
                out[rel] = side


def peer_memories(ws: Workspace, sidecar: Sidecar, ids: Identities | None = None,
                  origins: Origins | None = None) -> dict[str, Author]:
    """The usable memories last changed by an author not trusted here, by path: what the
    session context and the prompt hook leave out (``origins``: see :func:`authors_of`)."""
    return peer_judgement(ws, sidecar, ids, origins).peers


class PeerJudgement:
    """One answer of :func:`peer_judgement`: ``peers`` (the memories judged not trusted, by
    path), ``judged`` (every path the judgement asked about: the candidates), ``dirty`` (the
    vault-relative paths that differ from HEAD, from the one ``git status`` it used; None: it
    read each candidate file instead, as it does for :data:`FILE_CHECKS` candidates or fewer)."""

    def __init__(self, peers: dict[str, Author], judged: set[str], dirty: set[str] | None):
        self.peers, self.judged, self.dirty = peers, judged, dirty


def peer_judgement(ws: Workspace, sidecar: Sidecar, ids: Identities | None = None,
                   origins: Origins | None = None, *, only: set[str] | None = None,
                   dirty: set[str] | None = None) -> PeerJudgement:
    """:func:`peer_memories` with what it was worked out from. ``only``: the judgement of these
    paths alone, exactly what the whole judgement says of each of them, given ``dirty`` (what
    ``git status`` of the whole vault says of every memory file, as :func:`dirty_rels` gives it) when the whole judgement
    has more than :data:`FILE_CHECKS` candidates: every rule below is asked per path (which
    rows name it, its committed author, its text on disk, its history), except a new file's
    move (:func:`_moved_uncommitted`, a change not committed whose text a commit gave: every
    such path, :func:`~vault_mem.index.authors.foreign_changes`, is judged again by
    :class:`vault_mem.vault.peers.KeptPeers` at every change) and the bound on the moves
    :func:`_adopted_walk` follows (never reached while :func:`~vault_mem.index.authors.moved_from`
    holds at most :data:`MOVES_FOLLOWED` entries, which KeptPeers checks). Only with HEAD's rows
    stored and no operation under way (KeptPeers keeps nothing otherwise)."""
    ids = ids or identities(ws)
    refresh(ws, sidecar)
    head = ws.repo.head()
    origins = origins or Origins(ws, sidecar, ids)
    if head is not None and rows.stored_head(sidecar.db) == head:
        if only is None:
            # judged per (email, commit), not per file; the approved pass whoever made them
            peers = [(e, c) for e, c in rows.author_pairs(sidecar.db, ids.approved) if ids.standing(e, c) == "peer"]
            found = rows.paths_by(sidecar.db, peers)
        else:  # the same rows, for the paths asked: the same filter, then the same standing
            found = {rel: who for rel, who in rows.unapproved_rows(sidecar.db, ids.approved, only).items()
                     if ids.standing(who[1], who[0]) == "peer"}
        found.update(rows.foreign_paths(sidecar.db, only))  # texts committed again: judged by their first author
        found.update({rel: who for rel, who in rows.lineage_rows(sidecar.db, only, lineage=origins.lineage()).items()
                      if rel not in found})  # see _adopted
    else:  # a read-only sidecar behind HEAD (see _kept)
        if only is not None:
            raise ValueError("a judgement of some paths needs HEAD's rows")
        kept = _kept(ws, sidecar, None)
        lineage = origins.lineage()
        found = {rel: who for rel, who in kept.items() if ids.standing(who[1], who[0]) == "peer" or rel in lineage}
    uncommitted = _Uncommitted(ws, ids, origins)
    rels = list(found)
    rels += [rel for rel in rows.foreign_changes(sidecar.db) if rel not in found and (only is None or rel in only)]
    if uncommitted.incoming or uncommitted.unnamed:  # files an operation under way brought, committed or not
        if only is not None:
            raise ValueError("a judgement of some paths while an operation is under way")
        dirty = {top[len(ws.prefix):] for top in dirty_paths(ws.repo, [ws.prefix or "."])
                 if top.startswith(ws.prefix) and is_memory_path(top[len(ws.prefix):])}
        rels += sorted(dirty - found.keys())
    elif dirty is None and only is None and len(rels) > FILE_CHECKS:
        dirty = dirty_rels(ws)  # what _judge asks of git past FILE_CHECKS files, kept for the caller
    judged = _judge(ws, ids, found, rels, origins, dirty=dirty, uncommitted=uncommitted)
    return PeerJudgement({rel: author for rel, author in judged.items() if not author.trusted}, set(rels), dirty)


def displaced_by_peers(ws: Workspace, sidecar: Sidecar, base: str, local: str, tip: str) -> list[dict[str, str]]:
    """The memories this machine trusts (their author at ``local``, the branch before a sync,
    is trusted here) that commits of ``tip`` since ``base`` by authors not trusted here delete
    or change, where this side left them as they were at ``base``: a peer who is not approved
    cannot put a memory in front of the agent, but could take the person's away (their edit
    is left out as a peer's, their deletion removes it). Each: ``path`` (vault-relative),
    ``what`` (``deleted``/``changed``), ``by`` (the author's email), ``own`` ("yes" when that email
    is one of this machine's own, :func:`own_emails`, else ""), ``commit`` (the last one that
    did it), ``base`` (a commit holding this machine's version: the way back, whatever number of
    the peer's commits came between), so that a sync names them, and the post-merge hook after a
    plain ``git pull`` (HEAD is ``tip`` then: who made each memory is judged as of ``local``)."""
    prefix = ws.prefix
    rels = [top[len(prefix):] for top in history.changed_paths(ws.repo, base, tip, prefix or ".")]
    rels = [rel for rel in rels if is_memory_path(rel)]
    if not rels:
        return []
    tops = [prefix + rel for rel in rels]
    at_base, here, there = (ws.repo.blobs_at(c, tops) for c in (base, local, tip))
    # a text ``tip`` holds as this side does is none taken (a mode change, a change given back:
    # :func:`_given_back`): "the agent no longer sees your version" was said of a `chmod +x`
    rels = [rel for rel, top in zip(rels, tops, strict=True)
            if here[top] is not None and here[top] == at_base[top] and there[top] != here[top]]
    if not rels:
        return []
    ids = identities(ws)
    mine = _judge(ws, ids, _kept(ws, sidecar, rels, at=local), rels, Origins(ws, sidecar, ids), check_disk=False)
    rels = [rel for rel in rels if mine[rel].trusted]
    gone = [prefix + rel for rel in rels if there[prefix + rel] is None]
    kept = [prefix + rel for rel in rels if there[prefix + rel] is not None]
    whose = {top: (c, e) for top, (c, e, _n, _b) in history.last_authors(ws.repo, tip, base, kept).items()} if kept else {}
    whose.update(history.deleted_by(ws.repo, tip, base, gone) if gone else {})
    # changed, yet no commit since base gave it its text: a merge took it from a parent git's
    # simplified history follows instead (a peer's merge of the person's older commit brings
    # that commit's text back past the person's edit): the merge is who changed it
    for top in kept:
        if top not in whose and (touch := history.newest_touch(ws.repo, tip, base, top)):
            whose[top] = touch
    out = []
    own = ids.person | ids.agents
    for rel in rels:
        commit, email = whose.get(prefix + rel, ("", ""))
        if commit and ids.standing(email, commit) == "peer":
            # ``own``: the email is this machine's own (a peer typed it, or another machine of the
            # person's): the sentence must not offer it for approval as an author (own_emails)
            out.append({"path": rel, "what": "deleted" if there[prefix + rel] is None else "changed",
                        "by": email, "commit": commit, "base": base, "own": "yes" if email_key(email) in own else ""})
    return out


def pending_authors(ws: Workspace, sidecar: Sidecar) -> dict[str, int]:
    """``{email: how many memories}`` of the authors not trusted here (what ``vault-mem trust``
    lists for approval), most memories first."""
    counts: dict[str, int] = {}
    for author in peer_memories(ws, sidecar).values():
        counts[author.email or "unknown"] = counts.get(author.email or "unknown", 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def own_emails(ws: Workspace) -> frozenset[str]:
    """This machine's own emails (lowercased): its person's git email and its agents' (the vault's
    and vault-mem's default, which every clone's agents write under). A commit made here under
    one is trusted without approval; one from elsewhere under it is anyone's who typed it, so
    approving such an email (``vault-mem trust --author``) lets in every commit written under it,
    and ``trust`` says so where it lists or asks about one (attack24: the listing offered a peer's
    commit under the person's own email for approval as if it were the person's)."""
    ids = identities(ws)
    return frozenset(ids.person | ids.agents)


def dirty_rels(ws: Workspace) -> set[str]:
    """The vault-relative paths that differ from HEAD (staged, unstaged or untracked), by one
    ``git status`` of the vault's folder."""
    return {top[len(ws.prefix):] for top in dirty_paths(ws.repo, [ws.prefix or "."])}


def author_tagger(ws: Workspace, sidecar: Sidecar, legend: Legend, ids: Identities | None = None,
                  origins: Origins | None = None, *, changed: set[str] | None = None) -> Callable[[str], str]:
    """``path -> short name`` of its author in ``legend`` (INDEX.md lines in an agent's context),
    one memory at a time: only the lines that fit the budget are looked up. What differs from
    HEAD is found once, by ``git status`` (:func:`dirty_rels`), unless the caller gives it
    (``changed``: kept with the judgement, :class:`vault_mem.vault.peers.KeptPeers`;
    ``origins``: see :func:`authors_of`)."""
    ids = ids or identities(ws)
    refresh(ws, sidecar)
    current = rows.stored_head(sidecar.db) == ws.repo.head()
    if changed is None:
        changed = dirty_rels(ws)
    origins = origins or Origins(ws, sidecar, ids)
    uncommitted = _Uncommitted(ws, ids, origins)
    # a merge under way: the changed memories' authors asked of git together, not one `git log`
    # per INDEX.md line (without one, an uncommitted change is this machine's: no git asked)
    ahead = uncommitted.authors(sorted(r for r in changed if is_memory_path(r))) if uncommitted.incoming else {}

    def tag(rel: str) -> str:
        if rel in ahead:
            return legend.tag(ahead[rel])
        who = (rows.authors_of(sidecar.db, [rel]) if current else _kept(ws, sidecar, [rel])).get(rel)
        known = {rel: who} if who is not None else {}
        return legend.tag(_judge(ws, ids, known, [rel], origins, dirty=changed, uncommitted=uncommitted)[rel])
    return tag


#: at most this many "does the peer's commit descend from the person's" questions per scan (for
#: peer commits no ref log names); past it such a text is taken as the peer's (the safe side)
_ANCESTRY_CHECKS = 100
#: how many commits (or texts they gave, whichever is reached first) the origins scan holds in
#: memory at once; the rest wait in its working file (:mod:`vault_mem.index.origins_scan`)
SCAN_CHUNK = 2000
#: per vault: origins found but not stored (a read-only sidecar, a full disk)
_UNSTORED: dict[str, dict[str, tuple[str, str]]] = {}


class Origins:
    """Where each text (git blob) was first seen: the first commit this repository named (any
    ref, reflog or ``FETCH_HEAD``) that gave some path that blob. A text is its first author's
    wherever it is committed again: the person's `git cherry-pick` of a peer's commit (which may
    carry the person's email), `git merge --squash`, `git checkout origin/main -- FILE` then a
    commit, the bytes copied by hand, an `undo` or `revert` that restores a peer's version, a
    `git mv` of a peer's file: each commits a peer's text here, and would otherwise pass as the
    person's own. A change made here (any edit) is a new blob, the person's; an approval of the
    first author (`vault-mem trust --author`) lets the text in.

    "First": across reads, the order the texts were seen; within one scan, parents before
    children, and a text both this machine and a peer committed is this machine's when its
    commit was made before any of the peer's arrived here (by the ref logs' dates, not the
    commits': :meth:`_firsts`). A peer copying the person's memory takes nothing, however it
    dates its copy; the person copying a peer's takes nothing either.
    Brought up to date when the refs change (one ``git log`` over the new commits, read as it
    comes, :data:`SCAN_CHUNK` commits at a time, their texts' givers kept in a working file,
    :mod:`vault_mem.index.origins_scan`: the scan's memory does not grow with the number of
    commits a push brings); kept in the sidecar (:mod:`vault_mem.index.authors`)."""

    def __init__(self, ws: Workspace, sidecar: Sidecar, ids: Identities, *, scan: bool = True):
        self.ws, self.db, self.ids, self.read_only = ws, sidecar.db, ids, sidecar.read_only
        self.sidecar = sidecar
        self.unstored = _UNSTORED.get(str(ws.root), {})
        self.pending: set[str] = set()
        self.lined: set[str] = set()
        self._lineage: set[str] | None = None
        self._moved: dict[str, tuple[str, str, str]] | None = None
        #: :func:`_adopted`'s answers in this operation, by (path, committed blob, text on disk)
        self.adopted: dict[tuple[str, str, str | None], Author | None] = {}
        if not scan:  # :func:`keep_peers_lines`: the lines filled, no scan (see there)
            if not sidecar.read_only and not rows.peer_lines_filled(self.db):
                self._fill_peer_lines()
            return
        try:
            self._scan(sidecar)
        except HistoryDamagedError as exc:  # the texts seen so far still count; the read says why
            ws.repo.answer_from_what_is_there(exc)
        except VaultMemError as exc:  # git cannot say now: the texts seen so far still count
            log.warning("vault-mem: could not read which commits brought each text: %s", exc)

    def _scan(self, sidecar: Sidecar) -> None:
        repo = self.ws.repo
        if not sidecar.read_only and not rows.peer_lines_filled(self.db):
            self._fill_peer_lines()  # once, for a sidecar made before m020 or by the earlier rule
        stamp = history.refs_stamp(repo)
        seen = rows.origins_state(self.db, stamp)
        if seen is None:
            return
        tips = history.known_tips(repo)
        # texts whose origin a write noted and whose lines no scan recorded (rows.lines_pending),
        # and those of them this scan gave to the scratch (recorded with the refs)
        self.pending, self.lined = rows.lines_pending(self.db), set()
        with ScanScratch(os.path.dirname(self.db.path)) as scratch:
            new_tips = self._gather(scratch, tips, seen)
            firsts = self._firsts(scratch, new_tips, seen)
            if not sidecar.read_only:
                try:
                    self._record_lines(scratch, new_tips, seen, lambda blobs: {b: firsts[b] for b in blobs if b in firsts})
                    # what an earlier scan of this process had to hold in memory (its record given
                    # up: a busy lock, a full disk) goes in with it: this scan skipped those texts
                    # (:meth:`_add`), and recording the refs without them left them unrecorded for
                    # good (another process took them for texts of no peer's)
                    rows.add_origins(self.db, {**firsts, **self.unstored}, stamp, tips, more=scratch.firsts(),
                                     lined=self.lined)
                    if self.unstored:
                        _UNSTORED.pop(str(self.ws.root), None)
                        self.unstored = {}
                    return
                except IndexStoreError:
                    pass
            # a read-only sidecar, a full disk: this operation's answer, in memory (the one case
            # it grows with the new texts: nothing else can hold it)
            # an earlier one's (a write's noted origin) kept: this scan walked those texts again
            # (:meth:`_add` skips them no more, so a scan whose record failed records their
            # lines at the next try instead of never)
            self.unstored = _UNSTORED.setdefault(str(self.ws.root), {})
            for batch in scratch.firsts():
                for b, c, e in batch:
                    self.unstored.setdefault(b, firsts.get(b, (c, e)))

    def _record_lines(self, scratch: ScanScratch, new_tips: dict[str, list[str]], seen: list[str],
                      origins: Callable[[list[str]], dict[str, tuple[str, str]]], *, replace: bool = False) -> None:
        """Put each counted line (:func:`_repeat_hashes`) of the scan's texts in ``peer_lines``
        with its first giver, for :func:`keep_peers_lines` to look an agent's write up in. A line
        a row names already keeps it (an earlier scan saw it first). Within the scan, the first
        text holding it in the scan's order (parents before children) gives it, each text as its
        first giver's (``origins(blobs)``, else the scan's first commit that gave it), except that
        a line a peer's text gives first goes to the first text made here holding it too when
        that text's commit was made before the peer's commit arrived here (the ref logs' dates,
        as :meth:`_firsts` reads them; a peer's commit that came before the line's first text
        made here in the graph's order does not descend from it): this machine said it first.
        A line first given by a commit made here is never a peer's, however often a peer
        repeats it later. The texts are read :data:`LINES_READ_BYTES` at a time and their lines
        wait in ``scratch`` (on disk past a size): nothing here grows with what the scan holds."""
        for batch in scratch.texts_in_order(SCAN_CHUNK):
            first = origins([b for b, *_rest in batch])
            givers = {b: (*first.get(b, (c, e)), s, t) for b, c, e, s, t in batch}
            for texts in _small_texts(self.ws, list(givers)):
                # the first text of the read (in the scan's order) made here, and the first not,
                # holding each line: what line_firsts compares (one read's lines at a time)
                found: dict[tuple[int, bool], tuple[int, int, str, str, bool, int | None]] = {}
                for b in sorted(texts, key=lambda b: givers[b][2]):
                    c, e, s, t = givers[b]
                    here = c in self.ids.local
                    for h in _repeat_hashes(texts[b]):
                        if (h, here) not in found:
                            found[(h, here)] = (h, s, c, e, here, t if here else None)
                if found:
                    scratch.add_lines(list(found.values()))
        if scratch.lines_both():  # asked before the lines are read: no statement open meanwhile
            self._arrivals(scratch, new_tips, seen)
        if replace:  # the refill: every row at once, or none (rows.replace_peer_lines)
            rows.replace_peer_lines(self.db, self._line_rows(scratch))
            return
        for out in self._line_rows(scratch):
            rows.add_peer_lines(self.db, out)

    def _line_rows(self, scratch: ScanScratch) -> Iterator[list[tuple[int, str, str]]]:
        """``(line hash, commit, email)`` of each line of ``scratch``: its first giver, as
        :meth:`_record_lines` says, :data:`SCAN_CHUNK` lines at a time. A peer's commit whose
        arrival no ref log tells (none named it, or a gc's expiry cut the log: git's default
        90 days) keeps a line a commit made here holds too only when that commit descends from
        the peer's (the person had the peer's line when making theirs: a hand copy); else the
        line is the commit made here's (before, a rebuild or the refill after the logs expired
        gave the person's own hand-committed line to a peer's backdated parentless copy merged
        in first). At most :data:`_ANCESTRY_CHECKS` such questions; past them, the commit made
        here's (the person's own line stays theirs)."""
        checks = 0
        for batch in scratch.line_firsts(SCAN_CHUNK):
            out = []
            for h, c, e, _here, mine in batch:
                if mine is not None:
                    at = scratch.arrival(c)
                    if at is None or at == -math.inf:  # when it came is unknown: the graph says
                        checks += 1
                        if checks > _ANCESTRY_CHECKS or not history.is_ancestor(self.ws.repo, c, mine[0]):
                            c, e = mine[0], mine[1]
                    elif mine[2] is not None and at > mine[2]:
                        c, e = mine[0], mine[1]
                out.append((h, c, e))
            yield out

    def _fill_peer_lines(self) -> None:
        """A sidecar made before ``peer_lines`` existed, or filled by the earlier rule (a peer's
        text's lines, whoever said them first): every line of the history the ``origins`` rows
        were scanned up to, worked out again as :meth:`_record_lines` does (each text as its
        ``origins`` row says, the rest as the walk finds), once; a sidecar never scanned has
        nothing to fill (its first scan records them).
        All or nothing (:func:`~vault_mem.index.authors.replace_peer_lines`): the walk first, then
        the old rows swapped for the new in one transaction, so a failure (a busy lock, git
        failing) leaves the old rows and the marker, and the next command tries again. A damaged
        history (an object missing) is noted for the tips it failed at and not walked again until
        they change (every command walked all of it again before, to fail the same way); the
        rows of the earlier rule stand meanwhile and ``doctor`` says so."""
        scanned = rows.origins_tips(self.db)
        try:
            if not scanned:
                rows.add_peer_lines(self.db, [], filled=True)
                return
            if rows.peer_lines_refill_failed(self.db, scanned):
                return
            tips = history.existing_commits(self.ws.repo, scanned)  # a pruned reflog's are gone
            with ScanScratch(os.path.dirname(self.db.path)) as scratch:
                new_tips = self._gather(scratch, tips, [], every=True)
                # each text as its origin says, except one a write noted as a peer's commit's that
                # gave it not (the agent's copy of that commit's line): the walk's own giver's, so
                # the agent's own new lines in it stay the agent's (the peer's line in it is the
                # peer's anyway: its commit gave it first)
                self._record_lines(scratch, new_tips, [], lambda blobs: {
                    b: o for b, o in rows.origins_of(self.db, blobs).items()
                    if not scratch.given_elsewhere(b, o[0])}, replace=True)
        except HistoryDamagedError as exc:
            with contextlib.suppress(VaultMemError):
                rows.note_peer_lines_refill_failed(self.db, scanned)
            self.ws.repo.answer_from_what_is_there(exc)
        except VaultMemError:
            pass  # a busy or full sidecar, git cannot say now: the old rows stand, the next scan fills them

    def _gather(self, scratch: ScanScratch, tips: list[str], seen: list[str], *,
                every: bool = False) -> dict[str, list[str]]:
        """Each new text's commits, in the scan's order (parents before children), into
        ``scratch``, :data:`SCAN_CHUNK` commits (or texts) at a time: nothing here grows with
        their number. A wide commit comes in parts (:func:`~vault_mem.store.history.introductions`),
        each with its share of the texts: its parents named again, a text two of its paths hold
        perhaps given twice by it (the same first giver). Returns the new commits among ``tips``
        with their parents (a ref log may name them: where :meth:`_firsts` asks when each commit
        arrived)."""
        tipset = set(tips)
        new_tips: dict[str, list[str]] = {}
        chunk: list[tuple[str, str, str, int, list[str], list[str]]] = []
        size = 0
        for record in history.introductions(self.ws.repo, tips, seen, self.ws.prefix,
                                                 own=self.ids.local):
            chunk.append(record)
            size += 1 + len(record[5])
            if record[0] in tipset:
                new_tips[record[0]] = record[4]
            if size >= SCAN_CHUNK:
                self._add(scratch, chunk, every)
                chunk, size = [], 0
        self._add(scratch, chunk, every)
        return new_tips

    def _add(self, scratch: ScanScratch, chunk: list[tuple[str, str, str, int, list[str], list[str]]],
             every: bool = False) -> None:
        """One chunk's givers of texts no earlier scan recorded (a text whose origin only a write
        noted, :func:`~vault_mem.index.authors.lines_pending`, and one an earlier scan of this
        process could not store, ``unstored``, included: their lines are recorded now);
        ``every``: of every text (:meth:`_fill_peer_lines`)."""
        if not chunk:
            return
        known = {} if every else rows.origins_of(self.db, list({b for *_who, blobs in chunk for b in blobs}))
        if known:  # a write noted their origin, no scan recorded their lines: still new here
            pending = self.pending & set(known)
            self.lined |= pending
            known = {b: o for b, o in known.items() if b not in pending}
        scratch.add_givers([(blob, commit, email, when, commit in self.ids.local)
                            for commit, email, _name, when, _parents, blobs in chunk
                            for blob in dict.fromkeys(blobs) if every or blob not in known])

    def _firsts(self, scratch: ScanScratch, new_tips: dict[str, list[str]], seen: list[str]) -> dict[str, tuple[str, str]]:
        """The first commit of each text given both here and by a peer in this scan (the others':
        their first giver, ``scratch.firsts``). Where this machine and a peer both gave it, this
        machine's earliest commit is first unless one of the peer's had arrived here by the time it was made (the
        ref logs' dates, this machine's clock: :mod:`vault_mem.store.arrivals`) and does not
        descend from it (a tie in seconds, a clock set back: the graph settles it): the person
        copying a peer's text takes nothing, and neither does a peer copying the person's, on a
        line of its own with any dates. A peer's commit no log names, or only a log whose older
        entries are gone (a gc's expiry), has no known arrival: it counts as arrived before, unless
        it descends from ours (at most :data:`_ANCESTRY_CHECKS` such
        questions a scan; past them, the peer's). Holds the texts both gave (at most one per
        text a commit made here gave) and one of each's commits at a time."""
        firsts: dict[str, tuple[str, str]] = {}
        arrived = False
        checks = 0
        for blob in scratch.both():
            mine = min(scratch.givers(blob, here=True), key=lambda c: c[2])
            if not arrived:  # when each new commit arrived, asked once, only when needed
                self._arrivals(scratch, new_tips, seen)
                arrived = True
            kept, first = True, None
            for peer, email, _when in scratch.givers(blob, here=False):
                first = first or (peer, email)
                at = scratch.arrival(peer)
                if at is not None and at > -math.inf:
                    # a peer's commit that descends from ours was made after it, whatever the
                    # clocks say: one that arrived the same second (or before, by a clock set
                    # back since) is asked so, within the same budget
                    kept = at > mine[2]
                    if not kept:
                        checks += 1
                        kept = checks <= _ANCESTRY_CHECKS and history.is_ancestor(self.ws.repo, mine[0], peer)
                else:
                    # no log names it, or a cut log (a gc's expiry) hides when: asked whether
                    # it descends from ours (then it was made after), else it came before
                    checks += 1
                    kept = checks <= _ANCESTRY_CHECKS and history.is_ancestor(self.ws.repo, mine[0], peer)
                if not kept:
                    break
            firsts[blob] = mine[:2] if kept or first is None else first
        return firsts

    def _arrivals(self, scratch: ScanScratch, new_tips: dict[str, list[str]], seen: list[str]) -> None:
        """When each new commit of the scan arrived here (:mod:`vault_mem.store.arrivals`), into
        ``scratch``, once a scan."""
        if scratch.arrived:
            return
        order = Arrivals(self.ws.repo).tips(set(new_tips))
        scratch.add_arrivals((commit, order[k][0]) for k, commit in history.reached_first(
            self.ws.repo, [tip for _when, tip in order], history.existing_commits(self.ws.repo, seen), new_tips))
        scratch.arrived = True

    def lineage(self) -> set[str]:
        """:func:`~vault_mem.index.authors.lineage_paths`, read once per operation (or :meth:`pin`'s)."""
        if self._lineage is None:
            self._lineage = rows.lineage_paths(self.db)
        return self._lineage

    def moved(self) -> dict[str, tuple[str, str, str]]:
        """:func:`~vault_mem.index.authors.moved_from`, read once per operation (or :meth:`pin`'s)."""
        if self._moved is None:
            self._moved = rows.moved_from(self.db)
        return self._moved

    def pin(self, lineage: set[str], moved: dict[str, tuple[str, str, str]]) -> None:
        """Judge from this lineage and these moves (:func:`~vault_mem.index.authors.judged_from`,
        read by :class:`vault_mem.vault.peers.KeptPeers` with the log's entry): what a kept
        judgement records it was made from is then exactly what it was made from, whatever
        another process writes meanwhile (recorded after, a change landing between was never
        judged again)."""
        self._lineage, self._moved = lineage, moved

    def first_seen(self, blobs: list[str]) -> dict[str, tuple[str, str]]:
        """``{blob: (commit, email)}``: where each of ``blobs`` was first seen, for those seen."""
        origin = rows.origins_of(self.db, blobs)
        origin.update({b: self.unstored[b] for b in blobs if b in self.unstored and b not in origin})
        return origin

    def path_histories(self, paths: list[str]) -> dict[str, list[tuple[str, str, str, str, list[int]]]]:
        """``{path: [(commit, email, name, blob or "", [the indexes of the nearest entries it
        descends from]), ...]}``: every commit of HEAD's history that changed each of ``paths``
        (top-level), children before parents (:func:`~vault_mem.store.history.path_histories`).
        Kept in the sidecar for HEAD (one row), so a prompt hook asks git nothing; a HEAD that
        moved on from it by commits that changed none of those files (an agent's write) keeps
        them for two small git processes, not a walk of all history (~2.4 s of CPU over 20,000
        commits). A merge that brought in no change of those files is missed: one that gave a
        text back (never one that took it away), so the answer errs to the peer's side."""
        repo = self.ws.repo
        head = repo.head()
        if head is None or not paths:
            return {}
        at, kept = rows.path_histories(self.db)
        moved = at != head
        if moved:  # kept for an older HEAD: all still right, or none asked again
            try:
                same = bool(set(paths) & kept.keys()) and not history.touched_since(repo, str(at), head, sorted(kept))
            except VaultMemError:
                same = False
            kept = kept if same else {}
        try:
            found = {p: [(str(c), str(e), str(n), str(b), [int(i) for i in a]) for c, e, n, b, a in kept[p]]
                     for p in paths if p in kept}
        except (TypeError, ValueError):  # a damaged row: read again from git
            kept, found = {}, {}
        asked = [p for p in paths if p not in found]
        if not asked:
            if moved:
                self._keep(head, kept)
            return found
        seen = repo.damage_seen
        try:
            walks, parents = history.path_histories(repo, head, asked)
        except VaultMemError:  # git cannot say now: the last commits stand
            return found
        if repo.damage_seen != seen:
            return found  # a history cut by damage may lack the person's last word: no answer
        for path in asked:
            found[path] = _with_ancestry(walks.get(path, []), parents)
        self._keep(head, {**kept, **{p: found[p] for p in asked}})
        return found

    def _keep(self, head: str, histories: dict[str, list]) -> None:
        if not self.read_only:
            try:
                rows.keep_path_histories(self.db, head, histories)
            except IndexStoreError:
                pass  # read again next time (a full disk)

    def first_authors(self, judged: dict[str, Author], texts: dict[str, tuple[str, str | None]]) -> dict[str, Author]:
        """``judged`` (``{path: Author}``), where a trusted one whose text (``texts``: ``{path:
        (blob, the commit that gave the path that blob, or None for a change not committed)}``)
        was first seen in another commit, by an author not trusted here, becomes that author's."""
        asked = {rel: texts[rel] for rel, author in judged.items() if author.trusted and rel in texts}
        if not asked:
            return judged
        origin = self.first_seen([blob for blob, _c in asked.values()])
        out = dict(judged)
        for rel, (blob, commit) in asked.items():
            first = origin.get(blob)
            if first is not None and first[0] != commit and self.ids.standing(first[1], first[0]) == "peer":
                out[rel] = Author(first[1], "peer")
        return out
