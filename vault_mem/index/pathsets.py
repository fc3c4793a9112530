"""Sets of paths a read leaves out, as SQL: a bound JSON list, or a temporary table kept on the
connection.

A read that leaves out the memories of peers not approved here (the prompt hook's search, a
recall asked again without the peers' hits, the session context) names those paths in its SQL
(``f.path NOT IN ...``). In a clone of a team's vault that is nearly every memory: bound as one
JSON text, each statement parsed the whole list and built its lookup again (~100k paths per
statement at 100k, several statements per read: issue 29). A :class:`PathTable` holds such a
set in a ``TEMP`` table of one connection, filled once per judgement
(:class:`vault_mem.vault.peers.KeptPeers`): a statement then looks up only the rows it reads,
through the table's primary key.

:func:`not_in_sql` is the one place both forms become SQL; the rule each statement applies is
the same either way (``tests/test_peer_paths_table.py`` compares the answers).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator

__all__ = ["PathTable", "not_in_sql"]


class PathTable(Collection[str]):
    """A set of paths in a temporary table of one connection, and in memory (``len``, ``in``,
    iteration). Each table has a name of its own (``temp.kept_paths_<n>``) and is dropped by
    :meth:`drop` (the next judgement's table replaces it): an object whose table is gone, or
    that is asked about another connection (a recovery or a reopen replaces the sidecar's, and
    with it every temporary table), gives no SQL (:meth:`sql` answers None) and its caller binds
    the paths as JSON: the same answer, never another set's."""

    _made = 0

    def __init__(self, db, paths: Iterable[str]) -> None:
        PathTable._made += 1
        self.name = f"kept_paths_{PathTable._made}"
        self._paths = frozenset(paths)
        self._conn = db.conn
        self._live = False
        conn = db.conn
        if conn.in_transaction:  # a caller's rollback would empty the table under this object
            raise ValueError("a path table is filled outside a transaction")
        # one transaction of the temporary database alone: no lock on the sidecar's file
        conn.execute("BEGIN")
        try:
            conn.execute(f"CREATE TEMP TABLE {self.name}(path TEXT PRIMARY KEY) WITHOUT ROWID")
            conn.executemany(f"INSERT INTO temp.{self.name}(path) VALUES (?)", ((p,) for p in sorted(self._paths)))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        self._live = True

    def drop(self) -> None:
        """Remove the table (its object answers from memory and JSON from now on)."""
        if not self._live:
            return
        self._live = False
        if not self._conn.in_transaction:  # else left to the connection's end (a temporary table)
            try:
                self._conn.execute(f"DROP TABLE IF EXISTS temp.{self.name}")
            except Exception:  # noqa: BLE001 - a closed connection took its tables with it
                pass

    def sql(self, db=None) -> str | None:
        """``x IN <this>``, or None when the table is gone or ``db`` has another connection."""
        if not self._live or (db is not None and db.conn is not self._conn):
            return None
        return f"(SELECT path FROM temp.{self.name})"

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __repr__(self) -> str:
        return f"PathTable({self.name}, {len(self._paths)} paths, {'live' if self._live else 'dropped'})"


def not_in_sql(db, paths: Collection[str], param: str = "?") -> tuple[str, list[str]]:
    """``(subquery, values)`` for ``x IN subquery``: the temporary table of a :class:`PathTable`
    filled on ``db``'s connection (``db`` None: the one it was filled on; no value to bind),
    else ``paths`` as one JSON list bound as ``param`` (``?``, or a name such as ``:hidden``; a
    list of any length is one parameter: SQLite caps their number)."""
    if isinstance(paths, PathTable):
        sql = paths.sql(db)
        if sql is not None:
            return sql, []
    return f"(SELECT value FROM json_each({param}))", [json.dumps(sorted(paths))]
