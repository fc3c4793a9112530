"""Who last changed each committed memory file, kept in the sidecar (table ``authors``).

Derived from git (the author of the commit that gave a path its committed blob), never from a
file's ``source:`` field, which whoever wrote the file controls. The rows are brought up to the
commit HEAD names by :mod:`vault_mem.vault.authors`, which runs git; this module only stores
and reads them (the one home of their SQL). ``authors_head`` in ``meta`` is the commit the rows
reflect; the rows are derived state like the rest of the sidecar.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vault_mem.index.db import Database

__all__ = ["HEAD_META", "LINEAGE", "PEER_LINES_FILLED", "add_origins", "add_peer_lines", "lines_pending", "note_peer_lines_refill_failed", "peer_lines_refill_failed", "replace_peer_lines", "has_peer_lines", "origins_tips", "note_origins", "peer_lines_filled", "peer_lines_of", "all_authors", "author_pairs", "authors_of", "foreign_changes", "foreign_paths", "judged_from",
           "judge_log_head", "judge_log_since", "paths_holding", "unapproved_rows",
           "adoption_states", "keep_adoption_states", "keep_path_histories", "deleted_here", "lineage_paths", "lineage_rows", "moved_from", "origins_of", "origins_state", "path_histories", "paths_by", "replace", "stored_head", "update"]

HEAD_META = "authors_head"


def stored_head(db: Database) -> str | None:
    """The commit the rows were worked out for, or None (never worked out)."""
    return db.get_meta(HEAD_META)


def _set_head(db: Database, head: str) -> None:
    db.set_meta(HEAD_META, head)


def replace(db: Database, head: str, rows: dict[str, tuple[str, str, str, str]], lineage: set[str] = frozenset(),
            moved: dict[str, tuple[str, str, str]] | None = None,
            deleted: dict[str, tuple[str, str]] | None = None, *,
            peer_moved: dict[str, tuple[str, str, str]] | None = None, moves_at_most: int = 64) -> None:
    """All rows anew for ``head``: ``{vault-relative path: (commit, email, name, blob)}``;
    ``lineage``: the paths :func:`lineage_paths` names, anew; ``moved``: :func:`moved_from`'s
    moves made here, anew; ``peer_moved``: its moves by peers, newest first, anew (kept while
    :func:`moved_from` names at most ``moves_at_most``); ``deleted``: :func:`deleted_here`, anew."""
    with db.write(give_up=True):  # derived state a read brings up to date: given up when busy (Database.write)
        db.execute("DELETE FROM authors")
        db.executemany("INSERT INTO authors(path, commit_id, email, name, blob) VALUES (?, ?, ?, ?, ?)",
                       [(p, *who) for p, who in rows.items()])
        _set_head(db, head)
        _set_lineage(db, set(lineage))
        own = dict(moved or {})
        _set_moved(db, own)
        _set_peer_moved(db, {}, own, peer_moved or {}, moves_at_most)
        _set_deleted(db, deleted or {})


def update(db: Database, head: str, rows: dict[str, tuple[str, str, str, str]], gone: list[str],
           lineage: set[str] = frozenset(), moved: dict[str, tuple[str, str, str]] | None = None,
           deleted: dict[str, tuple[str, str]] | None = None, *,
           peer_moved: dict[str, tuple[str, str, str]] | None = None, moves_at_most: int = 64) -> None:
    """Rows for the paths the commits since :func:`stored_head` changed, now at ``head``;
    ``gone``: paths those commits deleted; ``lineage``: paths to add to :func:`lineage_paths`;
    ``moved``: entries made here to add to :func:`moved_from`; ``peer_moved``: moves by peers to
    add, newest first (see :func:`replace`); ``deleted``: :func:`deleted_here` anew (None: as it
    was)."""
    with db.write(give_up=True):  # derived state a read brings up to date: given up when busy (Database.write)
        db.executemany("DELETE FROM authors WHERE path = ?", [(p,) for p in gone])
        db.executemany("INSERT OR REPLACE INTO authors(path, commit_id, email, name, blob) VALUES (?, ?, ?, ?, ?)",
                       [(p, *who) for p, who in rows.items()])
        _set_head(db, head)
        kept = lineage_paths(db)
        if lineage - kept or kept & set(gone):
            _set_lineage(db, (kept | lineage) - set(gone))
        if moved or peer_moved:  # kept when the path is gone: a later move from it follows on through it
            # one entry a path: the newest move to it (a peer's move to a path replaces one made here)
            own = {p: m for p, m in {**_moves(db, MOVED), **(moved or {})}.items() if p not in (peer_moved or {})}
            _set_moved(db, own)
            _set_peer_moved(db, _moves(db, PEER_MOVED), own, peer_moved or {}, moves_at_most)
        if deleted is not None and deleted != deleted_here(db):
            _set_deleted(db, deleted)
        if gone and (states := adoption_states(db)) and states.keys() & set(gone):
            _set_adoption_states(db, {p: state for p, state in states.items() if p not in set(gone)})


#: the ``meta`` row of :func:`lineage_paths` (a JSON list; absent: none)
LINEAGE = "peer_lineage"


def lineage_paths(db: Database) -> set[str]:
    """The committed memory paths last changed by a commit made here whose history at that path
    holds a commit not made here (kept as the rows are brought up to HEAD): the only committed
    files, besides those last changed elsewhere, whose lines a peer may have added and the
    person kept (:func:`vault_mem.vault.authors._adopted` asks git about these alone). A
    person's own vault has none: one small row read."""
    found = _kept(db, LINEAGE)
    return {p for p in found if isinstance(p, str)} if isinstance(found, list) else set()


#: the ``meta`` row of :func:`moved_from` (a JSON object; absent: none)
MOVED = "peer_moved_from"


#: the ``meta`` row of :func:`moved_from`'s moves by peers (a JSON object, oldest first; absent: none)
PEER_MOVED = "peer_moves_by_peers"


def moved_from(db: Database) -> dict[str, tuple[str, str, str]]:
    """``{vault-relative path: (commit, vault-relative path, commit)}``: the memories a commit
    made here moved from a path whose history holds a commit not made here (the first commit
    added the path; the last, the same or an earlier one made here, deleted the other, whose
    text shares lines with it), and the memories a peer's commit moved from another path (both
    commits that one: :func:`vault_mem.vault.authors._moved`): the adoption walk follows the
    path's history on at the other, from before that deletion
    (:func:`vault_mem.vault.authors._adopted`). An entry kept before moves split over two
    commits were followed names one commit: both."""
    own = _moves(db, MOVED)
    return {**own, **{p: m for p, m in _moves(db, PEER_MOVED).items() if p not in own}}


def _moves(db: Database, name: str) -> dict[str, tuple[str, str, str]]:
    found = _kept(db, name)
    if not isinstance(found, dict):
        return {}
    return {p: (str(m[0]), str(m[1]), str(m[-1] if len(m) == 3 else m[0])) for p, m in found.items()
            if isinstance(p, str) and isinstance(m, list) and len(m) in (2, 3) and all(isinstance(x, str) for x in m)}


def _set_moved(db: Database, moved: dict[str, tuple[str, ...]]) -> None:
    db.set_meta(MOVED, json.dumps({p: list(m) for p, m in sorted(moved.items())}) if moved else None)


def _set_peer_moved(db: Database, kept: dict[str, tuple[str, str, str]], own: dict[str, tuple[str, str, str]],
                    new: dict[str, tuple[str, str, str]], at_most: int) -> None:
    """The moves by peers kept: ``kept`` (oldest first) then ``new`` (newest first), none to a
    path ``own`` names, the newest while :func:`moved_from` names at most ``at_most`` paths (an
    older one forgotten: its path's history starts at the peer's move again, the safe side)."""
    order = [p for p in kept if p not in own and p not in new] + [p for p in reversed(list(new)) if p not in own]
    entries = {**kept, **new}
    room = max(0, at_most - len(own))
    order = order[len(order) - room:] if room else []
    db.set_meta(PEER_MOVED, json.dumps({p: list(entries[p]) for p in order}) if order else None)


#: the ``meta`` row of :func:`deleted_here` (a JSON object, in order; absent: none)
DELETED = "peer_deleted_here"


def deleted_here(db: Database) -> dict[str, tuple[str, str]]:
    """``{vault-relative path: (commit, blob)}``, oldest first: the latest deletions made here of
    memories whose history holds a commit not made here, each with the commit that deleted it and
    the text it had (at most 64, :func:`vault_mem.vault.authors._moved`): a later commit made
    here that adds a text sharing lines with one is a move split over two commits."""
    found = _kept(db, DELETED)
    if not isinstance(found, dict):
        return {}
    return {p: (str(m[0]), str(m[1])) for p, m in found.items()
            if isinstance(p, str) and isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) for x in m)}


def _set_deleted(db: Database, deleted: dict[str, tuple[str, str]]) -> None:
    db.set_meta(DELETED, json.dumps({p: list(m) for p, m in deleted.items()}) if deleted else None)


def lineage_rows(db: Database, only: Iterable[str] | None = None, *,
                 lineage: set[str] | None = None) -> dict[str, tuple[str, str, str, str]]:
    """``{path: (commit, email, name, blob)}`` of the usable memories :func:`lineage_paths` names
    (``only``: those of these paths alone; ``lineage``: that set as the caller read it)."""
    paths = set(lineage_paths(db) if lineage is None else lineage)
    if only is not None:
        paths &= set(only)
    if not paths:
        return {}
    rows = db.execute(
        "SELECT a.path, a.commit_id, a.email, a.name, a.blob FROM authors a JOIN files f ON f.path = a.path "
        "WHERE f.usable = 1 AND a.path IN (SELECT value FROM json_each(?))", (json.dumps(sorted(paths)),))
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


def _set_lineage(db: Database, paths: set[str]) -> None:
    db.set_meta(LINEAGE, json.dumps(sorted(paths)) if paths else None)


def authors_of(db: Database, paths: list[str]) -> dict[str, tuple[str, str, str, str]]:
    """``{path: (commit, email, name, blob)}`` for those of ``paths`` that are committed."""
    if not paths:
        return {}
    rows = db.execute("SELECT path, commit_id, email, name, blob FROM authors "
                      "WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(paths),))
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


def all_authors(db: Database) -> dict[str, tuple[str, str, str, str]]:
    """``{path: (commit, email, name, blob)}`` of every committed memory file."""
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in db.execute("SELECT path, commit_id, email, name, blob FROM authors")}


def author_pairs(db: Database, approved: set[str]) -> list[tuple[str, str]]:
    """The distinct ``(email, commit)`` that last changed a committed memory file, for authors
    none of ``approved`` (compared case-insensitively). One per author and commit, not one per
    file: whether a file may be put in front of an agent unasked depends on those two alone, and
    a person's own vault of 100k memories gives a handful (reading 100k rows into Python on
    every read without a daemon cost ~0.3 s CPU at 100k, issue 29)."""
    return [(e, c) for e, c in db.tuples(
        "SELECT DISTINCT email, commit_id FROM authors WHERE lower(email) NOT IN (SELECT lower(value) FROM json_each(?))",
        (json.dumps(sorted(approved)),))]


def unapproved_rows(db: Database, approved: set[str], paths: Iterable[str]) -> dict[str, tuple[str, str, str, str]]:
    """``{path: (commit, email, name, blob)}`` of those of ``paths`` that are usable committed
    memories last changed by an author none of ``approved`` (compared as :func:`author_pairs`
    compares them): :func:`author_pairs` then :func:`paths_by`, for a few paths."""
    rows = db.execute(
        "SELECT a.path, a.commit_id, a.email, a.name, a.blob FROM json_each(?) j CROSS JOIN authors a ON a.path = j.value "
        "CROSS JOIN files f ON f.path = a.path WHERE f.usable = 1 "
        "AND lower(a.email) NOT IN (SELECT lower(value) FROM json_each(?))",
        (json.dumps(sorted(set(paths))), json.dumps(sorted(approved))))
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


def paths_by(db: Database, pairs: list[tuple[str, str]]) -> dict[str, tuple[str, str, str, str]]:
    """``{path: (commit, email, name, blob)}`` of the usable memories last changed by one of
    ``pairs`` (``(email, commit)`` as :func:`author_pairs` gives them)."""
    if not pairs:
        return {}
    rows = db.execute(
        "SELECT a.path, a.commit_id, a.email, a.name, a.blob FROM authors a JOIN files f ON f.path = a.path "
        "WHERE f.usable = 1 AND (a.email, a.commit_id) IN "
        "(SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))",
        (json.dumps([list(p) for p in pairs]),))
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}

ORIGINS_STAMP, ORIGINS_TIPS = "origins_stamp", "origins_tips"


def origins_state(db: Database, stamp: str) -> list[str] | None:
    """None when the ``origins`` rows reflect the refs whose stamp is ``stamp``; else the
    commits scanned up to (empty: never scanned). The list is read only when needed: it holds
    the reflogs' commits."""
    if db.get_meta(ORIGINS_STAMP) == stamp:
        return None
    tips = _kept(db, ORIGINS_TIPS)
    return [t for t in tips if isinstance(t, str)] if isinstance(tips, list) else []


def origins_of(db: Database, blobs: list[str]) -> dict[str, tuple[str, str]]:
    """``{blob: (commit, email)}``: where each of ``blobs`` that has a row was first seen."""
    if not blobs:
        return {}
    rows = db.execute("SELECT blob, commit_id, email FROM origins WHERE blob IN (SELECT value FROM json_each(?))",
                      (json.dumps(sorted(set(blobs))),))
    return {r[0]: (r[1], r[2]) for r in rows}


def add_origins(db: Database, found: dict[str, tuple[str, str]], stamp: str, tips: list[str],
                more: Iterable[list[tuple[str, str, str]]] = (), lined: Iterable[str] = ()) -> None:
    """Record ``found`` (``{blob: (commit, email)}``; a blob with a row keeps it: first seen
    wins), then ``more`` (batches of ``(blob, commit, email)``, read as they come: a scan's
    answer need not be held whole), and the refs they were scanned up to: one transaction.
    ``lined``: texts of :func:`lines_pending` whose lines the scan recorded."""
    with db.write(give_up=True):  # a read's record: given up when busy (Database.write)
        done = set(lined)
        if done:
            left = lines_pending(db) - done
            db.set_meta(LINES_PENDING, json.dumps(sorted(left)) if left else None)
        db.executemany("INSERT OR IGNORE INTO origins(blob, commit_id, email) VALUES (?, ?, ?)",
                       [(b, c, e) for b, (c, e) in found.items()])
        for batch in more:
            db.executemany("INSERT OR IGNORE INTO origins(blob, commit_id, email) VALUES (?, ?, ?)", batch)
        db.set_meta(ORIGINS_STAMP, stamp)
        db.set_meta(ORIGINS_TIPS, json.dumps(tips))


#: the ``meta`` row set once the lines of the texts the ``origins`` rows were scanned from are in
#: ``peer_lines`` by the rule :data:`PEER_LINES_RULE` names (m020: a sidecar made before it, or
#: filled by an earlier rule, fills them again at its next scan)
PEER_LINES_FILLED = "peer_lines_filled"
#: the rule ``peer_lines`` was filled by: 1, the lines of the texts peers gave first (whoever said
#: them first); 2, every counted line with its first giver, the commits made here included
PEER_LINES_RULE = "2"


def peer_lines_filled(db: Database) -> bool:
    """Whether ``peer_lines`` holds the lines of the texts ``origins`` names by the rule of
    :data:`PEER_LINES_RULE` (a sidecar of a schema before 20, which only a test's older
    migrations open: nothing to fill)."""
    return db.get_meta(PEER_LINES_FILLED) == PEER_LINES_RULE or not _has_peer_lines_table(db)


def origins_tips(db: Database) -> list[str]:
    """The commits the ``origins`` rows were scanned up to (empty: never scanned)."""
    tips = _kept(db, ORIGINS_TIPS)
    return [t for t in tips if isinstance(t, str)] if isinstance(tips, list) else []


#: the ``meta`` row naming the ``origins`` tips (JSON) whose refill of ``peer_lines`` failed on a
#: damaged history (a missing object): not tried again until the scanned tips change, the rows
#: before it kept meanwhile (:func:`peer_lines_refill_failed`)
PEER_LINES_REFILL_FAILED = "peer_lines_refill_failed"


def replace_peer_lines(db: Database, batches: Iterable[list[tuple[int, str, str]]]) -> None:
    """Put ``batches`` (``(line hash, commit, email)``) in place of every ``peer_lines`` row and
    mark them filled by :data:`PEER_LINES_RULE`: one transaction, so a failure part way (a busy
    lock, a full disk, git failing while the batches are read) leaves the rows and the marker
    as they were, and no other process's lookup ever sees the table emptied (first23's refill
    cleared it in a commit of its own first: a failed refill left it empty, and every command
    cleared it and walked all history again)."""
    with db.uncounted(), db.write(give_up=True):
        db.execute("DELETE FROM peer_lines")
        for batch in batches:
            db.executemany("INSERT OR IGNORE INTO peer_lines(hash, commit_id, email) VALUES (?, ?, ?)", batch)
        db.set_meta(PEER_LINES_FILLED, PEER_LINES_RULE)
        db.set_meta(PEER_LINES_REFILL_FAILED, None)


def note_peer_lines_refill_failed(db: Database, tips: list[str]) -> None:
    """The refill of ``peer_lines`` up to ``tips`` failed on a damaged history: not tried again
    until the scanned tips change (the rows of the earlier rule stand meanwhile)."""
    with db.uncounted(), db.write(give_up=True):
        db.set_meta(PEER_LINES_REFILL_FAILED, json.dumps(sorted(tips)))


def peer_lines_refill_failed(db: Database, tips: list[str] | None = None) -> bool:
    """Whether the refill of ``peer_lines`` failed on a damaged history (for ``tips``, when given:
    the scanned tips it failed at)."""
    kept = db.get_meta(PEER_LINES_REFILL_FAILED)
    if not kept:
        return False
    return tips is None or kept == json.dumps(sorted(tips))


def _has_peer_lines_table(db: Database) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'peer_lines'").fetchone() is not None


def add_peer_lines(db: Database, found: Iterable[tuple[int, str, str]], *, filled: bool = False) -> None:
    """Record ``found`` (``(line hash, commit, email)``; a line with a row keeps it: first seen
    wins); ``filled``: and that the ``origins`` rows' lines are all in (one transaction)."""
    with db.uncounted(), db.write(give_up=True):  # a read's record: moves no read's answer by itself
        db.executemany("INSERT OR IGNORE INTO peer_lines(hash, commit_id, email) VALUES (?, ?, ?)", list(found))
        if filled:
            db.set_meta(PEER_LINES_FILLED, PEER_LINES_RULE)


def has_peer_lines(db: Database) -> bool:
    """Whether any line is recorded (a vault never scanned asks nothing more)."""
    return _has_peer_lines_table(db) and db.execute("SELECT 1 FROM peer_lines LIMIT 1").fetchone() is not None


def peer_lines_of(db: Database, hashes: Iterable[int]) -> list[tuple[str, str]]:
    """``(commit, email)`` that first gave each of ``hashes`` that has a row (a commit made here,
    or a peer's: the caller asks which)."""
    found = sorted(set(hashes))
    if not found:
        return []
    return [(str(c), str(e)) for c, e in db.execute(
        "SELECT commit_id, email FROM peer_lines WHERE hash IN (SELECT value FROM json_each(?))", (json.dumps(found),))]


def note_origins(db: Database, found: dict[str, tuple[str, str]]) -> None:
    """Record ``found`` (``{blob: (commit, email)}``) as where each text was first seen, ahead of
    any scan (a blob with a row keeps it): an agent's write that repeats a peer's line. Their
    lines are not recorded yet (:func:`lines_pending`): the next scan records them though the
    texts have an origin (before, it skipped them as seen, and the agent's own new lines in such
    a memory were never recorded: a peer's later copy of one made it the peer's)."""
    with db.write():
        db.executemany("INSERT OR IGNORE INTO origins(blob, commit_id, email) VALUES (?, ?, ?)",
                       [(b, c, e) for b, (c, e) in found.items()])
        db.set_meta(LINES_PENDING, json.dumps(sorted(lines_pending(db) | set(found))))


#: the ``meta`` row listing the texts (JSON) whose origin a write noted (:func:`note_origins`)
#: and whose lines no scan has recorded yet
LINES_PENDING = "origins_lines_pending"


def lines_pending(db: Database) -> set[str]:
    """The texts whose origin a write noted and whose lines no scan recorded yet."""
    kept = _kept(db, LINES_PENDING)
    return {b for b in kept if isinstance(b, str)} if isinstance(kept, list) else set()


def foreign_paths(db: Database, only: Iterable[str] | None = None) -> dict[str, tuple[str, str, str, str]]:
    """``{path: (commit, email, name, blob)}`` of the usable memories whose committed blob was
    first seen in another commit than the one that last gave the path that blob (a text
    committed again: what :mod:`vault_mem.vault.authors` judges by its first author too);
    ``only``: of these paths alone."""
    if only is not None:
        rows = db.execute(
            "SELECT a.path, a.commit_id, a.email, a.name, a.blob FROM json_each(?) j CROSS JOIN foreign_texts t "
            "ON t.path = j.value CROSS JOIN authors a ON a.path = t.path CROSS JOIN files f ON f.path = a.path "
            "WHERE f.usable = 1", (json.dumps(sorted(set(only))),))
        return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}
    rows = db.execute(
        "SELECT a.path, a.commit_id, a.email, a.name, a.blob FROM foreign_texts t CROSS JOIN authors a ON a.path = t.path "
        "CROSS JOIN files f ON f.path = a.path WHERE f.usable = 1")  # CROSS: from the few rows, never from files
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


def foreign_changes(db: Database) -> list[str]:
    """The usable memory files whose bytes on disk are not what is committed there (``differs``)
    and are a text first seen in some commit (a peer's text staged by `git merge --squash`, or
    copied in): judged by that commit's author, not as a change made here."""
    return [r[0] for r in db.execute(
        "SELECT f.path FROM differs d CROSS JOIN files f ON f.path = d.path CROSS JOIN origins o ON o.blob = f.blob "
        "WHERE f.usable = 1")]  # CROSS: from the few rows that differ; SQLite chose to read every file (~3 ms per 1,000)


#: the ``meta`` row of :func:`path_histories`: ``{"head": commit, "paths": {path: history}}``
PATH_HISTORIES = "path_histories"


def path_histories(db: Database) -> tuple[str | None, dict[str, list]]:
    """``(commit, {path: history})`` that :func:`keep_path_histories` kept (``(None, {})``: none,
    or a damaged row): each history as :mod:`vault_mem.vault.authors` made it for that commit."""
    kept = _kept(db, PATH_HISTORIES)  # none, or a damaged row: read again from git
    if not isinstance(kept, dict) or not isinstance(kept.get("head"), str) or not isinstance(kept.get("paths"), dict):
        return None, {}
    return kept["head"], kept["paths"]


def keep_path_histories(db: Database, head: str, histories: dict[str, list]) -> None:
    """Keep ``histories`` (``{path: history}``) for the commit ``head``, in place of any kept
    for another commit: one row, which a new commit makes out of date."""
    value = json.dumps({"head": head, "paths": histories})
    with db.uncounted(), db.write(give_up=True):  # git's answers for that commit: no read's answer changes
        db.set_meta(PATH_HISTORIES, value)  # (Database.uncounted); a read's record, given up when busy (Database.write)


#: the ``meta`` row of :func:`adoption_states`: ``{path: [key, state]}``
ADOPTION = "adoption_states"


def adoption_states(db: Database) -> dict[str, list]:
    """``{path: [key, state]}`` that :func:`keep_adoption_states` kept (``{}``: none, or a damaged
    row): each as :func:`vault_mem.vault.authors._adopted` worked it out for the history ``key``
    names."""
    kept = _kept(db, ADOPTION)  # none, or a damaged row: worked out again from git
    return kept if isinstance(kept, dict) else {}


def _kept(db: Database, name: str) -> object:
    """The JSON value the ``meta`` row ``name`` holds; None when there is none or it is damaged
    (each reader then answers as if nothing were kept, and it is worked out again from git)."""
    text = db.get_meta(name)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def keep_adoption_states(db: Database, states: dict[str, list]) -> None:
    """Keep ``states`` (``{path: [key, state]}``) in place of those kept for the same paths."""
    with db.uncounted(), db.write(give_up=True):  # worked out from git's history alone (Database.uncounted);
        kept = adoption_states(db)  # a read's record: given up when busy (Database.write)
        kept.update(states)
        _set_adoption_states(db, kept)


def _set_adoption_states(db: Database, states: dict[str, list]) -> None:
    """The :func:`adoption_states` row made ``states`` (a deleted path's state goes with its row:
    :func:`update`)."""
    db.set_meta(ADOPTION, json.dumps(states, sort_keys=True))


def judge_log_head(db: Database) -> int:
    """The newest entry of the judgement's log (``judge_log``, kept by triggers: ``m016``,
    ``m017``), 0 when none was ever written (the newest entry is never dropped, so the head
    never goes back)."""
    row = db.execute("SELECT max(seq) FROM judge_log").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def judged_from(db: Database) -> tuple[int, set[str], dict[str, tuple[str, str, str]]]:
    """``(`` :func:`judge_log_head` ``,`` :func:`lineage_paths` ``,`` :func:`moved_from` ``)`` as of
    one snapshot: what a judgement of the peers' memories is made from besides the rows the
    log names (another process's write cannot land between the three reads)."""
    with db.snapshot():
        return judge_log_head(db), lineage_paths(db), moved_from(db)


def judge_log_since(db: Database, seq: int) -> tuple[int, set[str], set[str]] | None:
    """``(the newest entry, paths, blobs)`` the log names after entry ``seq``: every row of
    ``files``, ``authors``, ``differs``, ``foreign_texts`` changed since (by path) and every
    ``origins`` row (by blob). None when entries after ``seq`` were dropped (the log keeps the
    newest :data:`~vault_mem.index.db.JUDGE_LOG_KEPT`), or ``seq`` is not of this log: what
    changed cannot be told."""
    with db.snapshot():  # no entry dropped between the two reads
        head = judge_log_head(db)
        oldest = db.execute("SELECT min(seq) FROM judge_log").fetchone()[0]
        if seq > head or (oldest is not None and oldest > seq + 1) or (oldest is None and head > seq):
            return None
        paths: set[str] = set()
        blobs: set[str] = set()
        for path, blob in db.execute("SELECT path, blob FROM judge_log WHERE seq > ? AND seq <= ?", (seq, head)):
            if path is not None:
                paths.add(path)
            if blob is not None:
                blobs.add(blob)
    return head, paths, blobs


def paths_holding(db: Database, blobs: Iterable[str]) -> set[str]:
    """The memory paths whose committed blob, or whose bytes on disk where they differ from
    the committed ones, are one of ``blobs``."""
    asked = json.dumps(sorted(set(blobs)))
    if asked == "[]":
        return set()
    found = {r[0] for r in db.execute(
        "SELECT a.path FROM json_each(?) j CROSS JOIN authors a ON a.blob = j.value", (asked,))}
    found.update(r[0] for r in db.execute(
        "SELECT f.path FROM differs d CROSS JOIN files f ON f.path = d.path "
        "WHERE f.blob IN (SELECT value FROM json_each(?))", (asked,)))
    return found
