"""Read-only queries on the sidecar for the layers above the index (review, ``get``, the adapters).

Each function takes the sidecar's database connection (``Sidecar.db``); values are always bound
parameters. Nothing here writes.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vault_mem.index.db import Database

__all__ = ["ID_LIST", "MAX_CHAIN", "SUPERSEDERS_SQL", "id_list", "superseded_by", "superseders", "supersession_chain",
           "usable_files"]

# The supersession rule, one query for recall's hiding, INDEX.md, `get` and `review`: pairs
# (target, by) where ``by`` is a usable memory, unexpired on the day bound to ``?``, other than
# ``target`` itself, that names ``target`` in its ``supersedes``. ``by_path`` lets what an agent is
# shown leave out the supersessions of memories it is not shown (search.TRUSTED_SUPERSEDED_KEYS_SQL).
SUPERSEDERS_SQL = (
    "SELECT s.target AS target, g.key AS by_key, g.path AS by_path FROM supersedes s JOIN files g ON g.id = s.file_id "
    "WHERE g.usable = 1 AND g.key != s.target AND (g.expires IS NULL OR g.expires >= ?)"
)
#: ``x IN {ID_LIST}`` with :func:`id_list` as its one parameter: a list of any length is one
#: bound JSON text, never a parameter per item (SQLite caps those; a peer's files must not be
#: able to push a list past any cap)
ID_LIST = "(SELECT value FROM json_each(?))"


def id_list(ids) -> str:
    """The one parameter of :data:`ID_LIST`: ``ids`` as a JSON array of ints."""
    return json.dumps([int(i) for i in ids])


#: A supersession chain longer than this is cut (it can only come from hand-made cycles or abuse).
MAX_CHAIN = 20


def _day(today: dt.date | None) -> str:
    return (today or dt.date.today()).isoformat()


def superseders(db: Database, *, today: dt.date | None = None) -> dict[str, list[str]]:
    """Every superseded key -> the keys of the live memories that supersede it, both sorted."""
    out: dict[str, list[str]] = {}
    for target, by in db.execute(
            f"SELECT DISTINCT target, by_key FROM ({SUPERSEDERS_SQL}) ORDER BY target, by_key", (_day(today),)):
        out.setdefault(target, []).append(by)
    return out


def superseded_by(db: Database, key: str, *, today: dt.date | None = None) -> list[str]:
    """Keys of the live memories whose ``supersedes`` names ``key``, sorted."""
    return [r[0] for r in db.execute(
        f"SELECT DISTINCT by_key FROM ({SUPERSEDERS_SQL}) WHERE target = ? ORDER BY by_key", (_day(today), key))]


def supersession_chain(db: Database, key: str, *, today: dt.date | None = None) -> list[str]:
    """``key``'s successors in order, up to the current one: [B, A] when B supersedes ``key``
    and A supersedes B. Where two memories supersede the same key, the first by key is followed;
    a cycle stops the chain."""
    chain: list[str] = []
    seen = {key}
    current = key
    while len(chain) < MAX_CHAIN:
        nxt = [k for k in superseded_by(db, current, today=today) if k not in seen]
        if not nxt:
            break
        current = nxt[0]
        seen.add(current)
        chain.append(current)
    return chain


def usable_files(db: Database) -> list[Any]:
    """Every usable memory's row (``key``, ``type``, ``path``, ``sort_date``, ``changed``,
    ``expires``, ``conflict_of``), in INDEX.md's type order, then by key."""
    return list(db.execute(
        "SELECT key, type, path, sort_date, (SELECT c.changed FROM changes c WHERE c.path = files.path) AS changed, "
        "expires, conflict_of FROM files WHERE usable = 1 "
        "ORDER BY type_rank, key"
    ))


def change_date(db: Database, path: str) -> str | None:
    """When the memory at vault-relative ``path`` last changed, where that is later than its own
    date (a hand edit that kept an old ``updated:``), else None."""
    row = db.execute("SELECT changed FROM changes WHERE path = ?", (path,)).fetchone()
    return row[0] if row is not None else None
