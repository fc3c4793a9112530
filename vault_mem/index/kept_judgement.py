"""The peers' judgement kept in the sidecar for the next process (tables ``kept_judgement``,
``m018``: one row, what it was made from and its token; ``kept_judgement_paths``, ``m019``: the
judgement, a row per memory judged): the one home of its SQL. What it holds and when it may be
used is :class:`vault_mem.vault.peers.KeptPeers`'s to say. A judgement brought along a change
from the row's own rewrites the paths it judged again (``delta``), not every path (~7 MB at
100k peers' memories as the one JSON value of m018).

Its writes are a cache's: uncounted (:meth:`~vault_mem.index.db.Database.uncounted`: they
change no row a judgement reads, so the writer's own next read keeps its judgement), given up
on any failure (read-only, a full disk): the next process then judges from the row it finds,
or whole. A read's write never waits for another writer (busy: given up); a writer with no one
waiting for it (the MCP server's start-up thread, whose judgement the served vault already
holds) waits, ``wait``: up to :data:`BUSY_ATTEMPTS` times the sidecar's busy timeout, so a
lock held at that moment (a daemon's or a hook's write, a sync) does not lose it. A row such a
write finds written meanwhile by another writer (not the one its judgement was brought along
from) that is as new (``newer``: the served vault's, made after it) is left as it is.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from vault_mem.errors import IndexStoreError

if TYPE_CHECKING:
    from vault_mem.index.db import Database

__all__ = ["BUSY_ATTEMPTS", "Kept", "drop_judgement", "kept_judgement", "kept_peers_sql", "keep_judgement"]

#: ``keep_judgement(wait=True)``: how many times a busy sidecar is waited for (each up to its
#: busy timeout, 15 s) before the row is given up
BUSY_ATTEMPTS = 8

#: one memory judged: ``(path, email, standing)``; ``standing`` None: judged the person's
Kept = tuple[str, str | None, str | None]


def kept_judgement(db: Database) -> tuple[str, str, list[Kept]] | None:
    """``(state, token, the judgement's rows)`` as of one snapshot, None when there is none (or
    the tables cannot be read)."""
    from vault_mem.index.db import database_error

    try:
        with db.snapshot():
            row = db.execute("SELECT state, token FROM kept_judgement WHERE id = 1").fetchone()
            if row is None:
                return None
            # plain tuples (a Row object per row, then a tuple made of each, was ~100k of each at
            # 100k peers' memories, in every process that brings the row along: perf29)
            found = db.tuples("SELECT path, email, standing FROM kept_judgement_paths").fetchall()
    except database_error():
        return None
    return row[0], row[1], found


def kept_peers_sql(db: Database, token: str | None, count: int) -> str | None:
    """A condition on ``main.files``' rows: its path is none of the kept judgement's peers' (its
    rows judged not the person's), when the row's token is ``token`` and it holds ``count`` such
    rows, as of the caller's transaction (read in it, and the condition used in it: another
    writer's row cannot land between); else None. Each path looked up by the table's key
    (``NOT EXISTS``: ~50 ms at 100k, against ~100 for ``NOT IN`` a list of the subquery's). A judgement held in a process whose row is ``token`` holds exactly
    these paths (:func:`keep_judgement` writes a row's paths and its token together), so a read
    can take them from the sidecar instead of binding ~100k paths (issue 29)."""
    if token is None:
        return None
    row = db.execute("SELECT token FROM kept_judgement WHERE id = 1").fetchone()
    if row is None or row[0] != token:
        return None
    if db.execute("SELECT count(*) FROM kept_judgement_paths WHERE standing IS NOT NULL").fetchone()[0] != count:
        return None
    return ("NOT EXISTS (SELECT 1 FROM main.kept_judgement_paths k WHERE k.path = main.files.path "
            "AND k.standing IS NOT NULL)")


def drop_judgement(db: Database) -> None:
    """Keep no judgement (one made from what the sidecar could not hold: the next process judges
    whole). Given up on any failure but damage, as a keep is (a read never waits for a writer)."""
    from vault_mem.index.db import database_error, is_damage

    try:
        with db.uncounted(), db.write():
            db.execute("DELETE FROM kept_judgement")
            db.execute("DELETE FROM kept_judgement_paths")
    except (IndexStoreError, database_error()) as exc:
        if is_damage(exc):
            raise  # the caller's to report


def keep_judgement(db: Database, state: str, token: str | None, judgement: Callable[[], Iterable[Kept]], *,
                   delta: tuple[str, Callable[[], tuple[list[Kept], list[str]]]] | None = None,
                   fresh: str | None = None, wait: bool = False,
                   newer: Callable[[str], bool] | None = None) -> str | None:
    """Keep ``state`` with its judgement: nothing written when the row was made from that very
    state (its judgement is the same); the row's own (its state alone rewritten) while the
    row's token is still ``token``; else, under a new token (``fresh``, or a random one), the
    judgement: ``delta``'s rows written and paths dropped when the row's token is ``delta``'s
    (the judgement this one was brought along from), else every row of ``judgement()``
    (:func:`drop_judgement` keeps none). ``wait``: another writer is
    waited for (see the module). ``newer(the row's state)``: True when a row that is neither
    ``token``'s nor ``delta``'s (written by another writer meanwhile) is as new as ``state``:
    left as it is. Returns the token the row holds now when the row is this judgement (written
    now, or ``token``'s left as it is), None when there is none or the row is left as another
    judgement wrote it (its token is no name for this one: :func:`kept_peers_sql`)."""
    from vault_mem.index.db import database_error, is_busy

    for _attempt in range(BUSY_ATTEMPTS - 1 if wait else 0):
        try:
            return _keep(db, state, token, judgement, delta, fresh, wait, newer)
        except (IndexStoreError, database_error()) as exc:
            if not is_busy(exc):
                raise  # damage (_keep gives up on every other failure itself)
    try:
        return _keep(db, state, token, judgement, delta, fresh, wait, newer)
    except (IndexStoreError, database_error()) as exc:
        if is_busy(exc):
            return None  # still busy at the last attempt: given up
        raise


def _keep(db: Database, state: str, token: str | None, judgement: Callable[[], Iterable[Kept]],
          delta: tuple[str, Callable[[], tuple[list[Kept], list[str]]]] | None, fresh: str | None,
          wait: bool, newer: Callable[[str], bool] | None) -> str | None:
    from vault_mem.index.db import database_error, is_busy, is_damage

    try:
        with db.uncounted(), db.write(wait=wait):
            row = db.execute("SELECT state, token FROM kept_judgement WHERE id = 1").fetchone()
            if row is not None and row[0] == state:
                # made from the same state, left as it is; its token is this judgement's only
                # when it is ``token`` (the row this one was brought along from, unchanged): two
                # judgements made from one state can differ (the files' rows are read live, a
                # peer's memory moved between them), and a read handed another judgement's token
                # filled its kept table from that judgement's peers (review of perf32)
                return row[1] if token is not None and row[1] == token else None
            if row is not None and token is not None and row[1] == token:
                if row[0] != state:
                    db.execute("UPDATE kept_judgement SET state = ? WHERE id = 1", (state,))
                return token
            if row is not None and delta is not None and row[1] == delta[0]:
                written, dropped = delta[1]()
                db.executemany("DELETE FROM kept_judgement_paths WHERE path = ?", [(p,) for p in dropped])
            elif row is not None and newer is not None and newer(row[0]):
                return None  # another writer's as new (made meanwhile): this older one over it cost its delta
            else:
                written = judgement()
                db.execute("DELETE FROM kept_judgement_paths")
            db.executemany("INSERT OR REPLACE INTO kept_judgement_paths(path, email, standing) VALUES (?, ?, ?)",
                           written)
            token = fresh or os.urandom(12).hex()
            # judgement: m018's column for the judgement as one JSON value, NOT NULL without a
            # default; the judgement is in kept_judgement_paths since m019 (the column to drop)
            db.execute("INSERT OR REPLACE INTO kept_judgement(id, state, token, judgement) VALUES (1, ?, ?, '')",
                       (state, token))
            return token
    except (IndexStoreError, database_error()) as exc:
        if is_damage(exc) or (wait and is_busy(exc)):
            raise  # damage: the caller's to report; busy: waited for again
        return None
