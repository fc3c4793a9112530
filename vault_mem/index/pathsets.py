"""Sets of paths a read leaves out, as SQL: a bound JSON list, or a temporary table kept on the
connection.

A read that leaves out the memories of peers not approved here (the prompt hook's search, a
recall asked again without the peers' hits, the session context) names those paths in its SQL
(``f.path NOT IN ...``). In a clone of a team's vault that is nearly every memory: bound as one
JSON text, each statement parsed the whole list and built its lookup again (~100k paths per
statement at 100k, several statements per read: issue 29), and each statement read every row it
could return to test it against the list. A :class:`PathTable`, filled once per judgement
(:class:`vault_mem.vault.peers.KeptPeers`), holds in a ``TEMP`` table of one connection the
rows *not* left out: a statement starts from those few paths (the person's) and looks each up.

:func:`left_out_sql` is the one place both forms become SQL; the rule each statement applies is
the same either way (``tests/test_peer_paths_table.py`` compares the answers).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Iterator

__all__ = ["PathTable", "left_out_sql"]


class PathTable(Collection[str]):
    """A set of paths left out (``len``, ``in`` and iteration answer from memory), and in a
    temporary table of one connection its complement: the path of every ``files`` row that is
    not one of them, as the rows were when it was filled. A statement then asks ``f.path IN``
    that table, driven by its few rows (where nearly every memory is left out, the person's),
    instead of reading every row to test it against the set.

    Each table has a name of its own (``temp.kept_in_<n>``), is dropped by :meth:`drop` (the
    next judgement's replaces it), and answers only while the rows it was filled from stay as
    they were: the connection that filled it, and its changes and every other connection's
    commits unchanged since (:meth:`sql` checks both on each statement). Otherwise :meth:`sql`
    answers None and the caller binds the paths as JSON: the same answer, never another set's."""

    _made = 0

    def __init__(self, db, paths: Iterable[str], kept: Callable[[object, int], str | None] | None = None) -> None:
        PathTable._made += 1
        self.name = f"kept_in_{PathTable._made}"
        self._paths = frozenset(paths)
        self._db = db
        self._conn = db.conn
        self._live = False
        conn = db.conn
        if conn.in_transaction:  # a caller's rollback would empty the table under this object
            raise ValueError("a path table is filled outside a transaction")
        # one transaction: the rows read once, as one snapshot; the temporary database alone
        # written, uncounted (no row a read answers from changes: Database.uncounted)
        with db.uncounted():
            conn.execute("BEGIN")
            try:
                conn.execute(f"CREATE TEMP TABLE {self.name}(path TEXT PRIMARY KEY) WITHOUT ROWID")
                # ``kept(db, how many paths)``: a ``files`` row's path is none of them, as a
                # condition on the rows the sidecar holds (the kept judgement's, checked in this
                # transaction), or None: the paths bound as JSON
                source = kept(db, len(self._paths)) if kept is not None else None
                where, bound = ((source, ()) if source is not None else
                                ("path NOT IN (SELECT value FROM json_each(?))", (json.dumps(sorted(self._paths)),)))
                #: how many rows it keeps in (the table's size)
                self.kept = conn.execute(f"INSERT INTO temp.{self.name}(path) SELECT path FROM main.files "
                                         f"WHERE {where}", bound).rowcount
                version = self._data_version()  # in the snapshot the rows were read from
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self._stamp = db.rows_stamp(version)  # after the block: its changes are left out of the count
        self._live = True

    def _rows_stamp(self) -> tuple[int, int, int]:
        """A value that moves with any change to the rows
        (:meth:`~vault_mem.index.db.Database.rows_stamp`)."""
        return self._db.rows_stamp()

    def _data_version(self) -> int:
        """``PRAGMA data_version``: moved by every other connection's commit (read inside a
        transaction, as of its snapshot)."""
        return self._conn.execute("PRAGMA data_version").fetchone()[0]

    def drop(self) -> None:
        """Remove the table (its object answers from memory and JSON from now on)."""
        if not self._live:
            return
        self._live = False
        try:  # a closed connection (the index file replaced, followed) took its tables with it
            if not self._conn.in_transaction:  # else left to the connection's end (a temporary table)
                self._conn.execute(f"DROP TABLE IF EXISTS temp.{self.name}")
        except Exception:  # noqa: BLE001 - asking a closed connection anything raises
            pass

    def refit(self, paths: Iterable[str], changed: Iterable[str], since: int) -> bool:
        """This table made the complement of ``paths`` (a new judgement, which differs from the
        one it holds only at ``changed``) without filling it again: in one transaction, each of
        ``changed`` and each path the rows' log (:func:`~vault_mem.index.authors.judge_log_since`)
        names after entry ``since`` (a row added or removed since the table was last brought
        along, whatever made it) is taken out and put back when a ``files`` row holds it and
        ``paths`` does not. False (the table as it was) when that log no longer reaches back
        to ``since``, the table does not answer, or a transaction is open: then fill a new one."""
        from vault_mem.index.authors import judge_log_since

        conn = self._conn
        if not self._live or self._db.conn is not conn or conn.in_transaction:
            return False
        new = frozenset(paths)
        with self._db.uncounted():  # the temporary database alone written (Database.uncounted)
            conn.execute("BEGIN")
            try:
                logged = judge_log_since(self._db, since)
                if logged is None:
                    conn.execute("ROLLBACK")
                    return False
                asked = sorted(set(changed) | logged[1])
                gone = conn.execute(f"DELETE FROM temp.{self.name} WHERE path IN (SELECT value FROM json_each(?))",
                                    (json.dumps(asked),)).rowcount
                put = conn.execute(f"INSERT INTO temp.{self.name}(path) SELECT path FROM main.files WHERE path IN "
                                   "(SELECT value FROM json_each(?)) AND path NOT IN (SELECT value FROM json_each(?))",
                                   (json.dumps(asked), json.dumps(sorted(new & set(asked))))).rowcount
                self.kept += put - gone
                version = self._data_version()
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        self._stamp = self._db.rows_stamp(version)
        self._paths = new
        return True

    def sql(self, db=None) -> str | None:
        """``x IN <this>``: the paths of the rows not left out; None when the table is gone,
        ``db`` has another connection, or a row changed since it was filled."""
        if not self._live or (db is not None and db.conn is not self._conn):
            return None
        try:
            if self._db.conn is not self._conn or self._rows_stamp() != self._stamp:
                return None
        except Exception:  # noqa: BLE001 - a closed connection: bound as JSON
            return None
        return f"(SELECT path FROM temp.{self.name})"

    def kept_in(self, db=None) -> int | None:
        """How many rows the table keeps in, while it answers (:meth:`sql`); else None."""
        return self.kept if self.sql(db) is not None else None

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __repr__(self) -> str:
        return f"PathTable({self.name}, {len(self._paths)} paths, {'live' if self._live else 'dropped'})"


def left_out_sql(db, column: str, paths: Collection[str], param: str = "?") -> tuple[str, list[str]]:
    """``(condition, values)``: ``column`` (a ``files`` row's path, or a path only such rows
    hold) is none of ``paths``. A :class:`PathTable` that answers on ``db``'s connection (``db``
    None: the one it was filled on) is asked ``column IN`` its rows (no value to bind); else
    ``paths`` are one JSON list bound as ``param`` (``?``, or a name such as ``:hidden``; a list
    of any length is one parameter: SQLite caps their number)."""
    if isinstance(paths, PathTable):
        sql = paths.sql(db)
        if sql is not None:
            return f"{column} IN {sql}", []
    return f"{column} NOT IN (SELECT value FROM json_each({param}))", [json.dumps(sorted(paths))]
