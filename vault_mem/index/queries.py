"""Read-only queries on the sidecar for the layers above the index (review, ``get``, the adapters).

Each function takes the sidecar's database connection (``Sidecar.db``); values are always bound
parameters. Nothing here writes.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from vault_mem.model.memory import MAX_LIST_ITEMS
from vault_mem.model.terms import fts_query

if TYPE_CHECKING:
    from vault_mem.index.db import Database

__all__ = ["COMMON_TERM_FLOOR", "ID_LIST", "MAX_CHAIN", "SUPERSEDED_KEYS_SQL", "SUPERSEDERS_SQL", "TRUSTED_SUPERSEDED_KEYS_SQL",
           "common_bar", "drop_common_terms", "id_list", "informative_terms", "rare_terms", "superseded_by", "superseders",
           "supersession_chain", "tag_clauses", "term_counts", "trusted_superseded_keys_sql", "usable_files"]

# The supersession rule, one query for recall's hiding, INDEX.md, `get` and `review`: pairs
# (target, by) where ``by`` is a usable memory, unexpired on the day bound to ``?``, other than
# ``target`` itself, that names ``target`` in its ``supersedes``. ``by_path`` lets what an agent is
# shown leave out the supersessions of memories it is not shown (TRUSTED_SUPERSEDED_KEYS_SQL).
SUPERSEDERS_SQL = (
    "SELECT s.target AS target, g.key AS by_key, g.path AS by_path FROM supersedes s JOIN files g ON g.id = s.file_id "
    "WHERE g.usable = 1 AND g.key != s.target AND (g.expires IS NULL OR g.expires >= ?)"
)
#: ``x IN {ID_LIST}`` with :func:`id_list` as its one parameter: a list of any length is one
#: bound JSON text, never a parameter per item (SQLite caps those; a peer's files must not be
#: able to push a list past any cap)
ID_LIST = "(SELECT value FROM json_each(?))"


def tag_clauses(tags: Iterable[str] | None) -> tuple[list[str], list[str]]:
    """The clauses (on ``files f``) and their parameters that keep the memories holding every one
    of ``tags``: the one rule of recall's and ``list``'s tag filter. No memory holds more than
    MAX_LIST_ITEMS tags, so more asked for keep none, in one clause: a clause per tag passed
    SQLite's limits (an agent's `list` with 2,000 tags came back as an internal error)."""
    wanted = list(dict.fromkeys(t for t in tags or () if t))
    if len(wanted) > MAX_LIST_ITEMS:
        return ["0"], []
    return ["EXISTS (SELECT 1 FROM tags t WHERE t.tag = ? AND t.file_id = f.id)"] * len(wanted), wanted


def id_list(ids) -> str:
    """The one parameter of :data:`ID_LIST`: ``ids`` as a JSON array of ints."""
    return json.dumps([int(i) for i in ids])


# Keys a live memory supersedes (SUPERSEDERS_SQL; one ``?``: the day).
SUPERSEDED_KEYS_SQL = f"SELECT target FROM ({SUPERSEDERS_SQL})"
# The same, but a memory in a JSON list of paths (the second ``?``: those last changed by a peer
# not approved here, DESIGN §7) supersedes nothing: a peer's ``supersedes: [your-key]`` must not
# hide the person's memory from recall and the session context (the committed INDEX.md, a file
# for people and git, keeps the plain rule: it must read the same on every clone).
def trusted_superseded_keys_sql(trusted: str = "by_path NOT IN (SELECT value FROM json_each(?))") -> str:
    """TRUSTED_SUPERSEDED_KEYS_SQL with ``trusted``, the condition on ``by_path`` (a path of a
    usable memory) that it is not a distrusted one (:func:`~vault_mem.index.pathsets.left_out_sql`)."""
    return f"SELECT target FROM ({SUPERSEDERS_SQL}) WHERE {trusted}"


TRUSTED_SUPERSEDED_KEYS_SQL = trusted_superseded_keys_sql()


# A query word held by at least max(COMMON_TERM_FLOOR, 1/COMMON_TERM_SHARE of the memories) is
# left out of the keyword OR: ranking all its matches made a 10k-memory keyword recall ~10x slower
# (``python bench/bench_recall.py --n 10000``: keyword_recall_ms against keyword_recall_all_words_ms).
# Vaults of up to COMMON_TERM_FLOOR memories search every word.
COMMON_TERM_FLOOR = 1000
COMMON_TERM_SHARE = 50
# When every word of the query is that common, ranking their OR means scoring every memory that
# holds any of them (most of a big vault: 30-200 ms at 100k memories, the recall's tail). The
# memories holding all of the words are found instead (an FTS5 AND: the lists are intersected
# before anything is scored), then, while fewer than the candidates wanted, those holding all
# but the most common word, and so on: the rarest words first. Word counts for that order stop
# at COMMON_TERM_COUNT_SPAN times the bar.
COMMON_TERM_COUNT_SPAN = 8


#: at most this many words' counts kept per connection (:func:`term_counts`)
TERM_COUNTS_KEPT = 4096


def term_counts(db, terms: Sequence[str], cap: int) -> list[int]:
    """How many memories hold each word, each count stopping at ``cap``. Kept on ``db`` (a
    :class:`~vault_mem.index.db.Database`; a bare connection counts each time) while its rows
    stay as they were (:meth:`~vault_mem.index.db.Database.kept`): a recall whose hits
    are a peer's is asked again without them (``Vault._trusted_kept``), and its second search
    counted every word of the query again (an FTS5 scan per word, ~1 ms each at 100k
    memories). Nothing counted inside a transaction is kept (it saw the transaction's own
    rows, and a ``ROLLBACK`` moves no stamp)."""
    kept = getattr(db, "kept", None)
    counts = kept("term_counts") if kept is not None else None
    if counts is None:
        counts = {}
    out = []
    for t in terms:
        found = counts.get((t, cap))
        if found is None:
            found = db.execute("SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
                               [fts_query([t]), cap]).fetchone()[0]
            if len(counts) >= TERM_COUNTS_KEPT:
                counts.clear()
            counts[(t, cap)] = found
        out.append(found)
    return out


def common_bar(db, floor: int | None = None) -> tuple[int, int]:
    """(memories in the vault, the count from which a word is common)."""
    n = db.execute("SELECT max(id) FROM files").fetchone()[0] or 0
    return n, max(COMMON_TERM_FLOOR if floor is None else floor, n // COMMON_TERM_SHARE)


def informative_terms(db, terms: Sequence[str], *, floor: int | None = None) -> list[str]:
    """``terms`` minus those held by at least ``max(floor, 2%)`` of the vault's memories
    (``floor`` defaults to COMMON_TERM_FLOOR).

    bm25 gives such words almost no weight, but ranking their matches costs time proportional
    to the vault. Counting stops at the cap, so the check itself is bounded. The coverage
    feature still sees every word. If every word is common, all are kept.
    """
    n, cap = common_bar(db, floor)
    if n <= cap or len(terms) < 2:
        return list(terms)
    return drop_common_terms(db, terms, cap)


def drop_common_terms(db, terms: Sequence[str], cap: int) -> list[str]:
    """``terms`` minus those found in ``cap`` memories or more (each count stops at ``cap``).
    If every word is that common, all are kept."""
    return rare_terms(db, terms, cap) or list(terms)


def rare_terms(db, terms: Sequence[str], cap: int) -> list[str]:
    """The words of ``terms`` found in fewer than ``cap`` memories (the one rule of both)."""
    return [t for t, c in zip(terms, term_counts(db, terms, cap)) if c < cap]


#: A supersession chain longer than this is cut (it can only come from hand-made cycles or abuse).
MAX_CHAIN = 20


def _day(today: dt.date | None) -> str:
    return (today or dt.date.today()).isoformat()


def _trusted(distrusted: Collection[str]) -> tuple[str, list[str]]:
    """The clause (on :data:`SUPERSEDERS_SQL`'s rows) and its parameter that leave out the
    supersessions of the memories in ``distrusted`` (paths: a peer's, not approved here, whose
    ``supersedes`` hides nothing, DESIGN §7)."""
    return "by_path NOT IN (SELECT value FROM json_each(?))", [json.dumps(sorted(distrusted))]


def superseders(db: Database, *, today: dt.date | None = None,
                distrusted: Collection[str] = ()) -> dict[str, list[str]]:
    """Every superseded key -> the keys of the live memories that supersede it, both sorted;
    a memory in ``distrusted`` (paths) supersedes nothing."""
    clause, params = _trusted(distrusted)
    out: dict[str, list[str]] = {}
    for target, by in db.execute(
            f"SELECT DISTINCT target, by_key FROM ({SUPERSEDERS_SQL}) WHERE {clause} ORDER BY target, by_key",
            (_day(today), *params)):
        out.setdefault(target, []).append(by)
    return out


def superseded_by(db: Database, key: str, *, today: dt.date | None = None,
                  distrusted: Collection[str] = ()) -> list[str]:
    """Keys of the live memories whose ``supersedes`` names ``key``, sorted; a memory in
    ``distrusted`` (paths) supersedes nothing."""
    clause, params = _trusted(distrusted)
    return [r[0] for r in db.execute(
        f"SELECT DISTINCT by_key FROM ({SUPERSEDERS_SQL}) WHERE target = ? AND {clause} ORDER BY by_key",
        (_day(today), key, *params))]


def supersession_chain(db: Database, key: str, *, today: dt.date | None = None,
                       distrusted: Collection[str] = ()) -> list[str]:
    """``key``'s successors in order, up to the current one: [B, A] when B supersedes ``key``
    and A supersedes B. Where two memories supersede the same key, the first by key is followed;
    a cycle stops the chain; a memory in ``distrusted`` (paths) supersedes nothing."""
    chain: list[str] = []
    seen = {key}
    current = key
    while len(chain) < MAX_CHAIN:
        nxt = [k for k in superseded_by(db, current, today=today, distrusted=distrusted) if k not in seen]
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


def memory_date(db: Database, path: str) -> str | None:
    """The date the sidecar holds for the memory at vault-relative ``path``: its own date, no
    later than its file was written here (:func:`~vault_mem.index.sidecar.written_by`), or the
    later date its content changed (``changes``: a hand edit that kept an old ``updated:``);
    None when it has none."""
    row = db.execute("SELECT sort_date, (SELECT c.changed FROM changes c WHERE c.path = files.path) "
                     "FROM files WHERE path = ?", (path,)).fetchone()
    return (max(row[0] or "", row[1] or "") or None) if row is not None else None
