"""Hybrid search over the sidecar: query building, FTS5, vector KNN, fusion, the hits.

Keyword side: FTS5 ``porter unicode61`` over three columns (description, body, extra = key words,
tags and the memory's date written out), ranked by bm25 with the description weighted over the
body. The query is reduced to its words (:mod:`vault_mem.model.terms`), English stopwords dropped,
each word quoted and the words OR-joined: FTS5 syntax in the input (quotes, ``NEAR(``,
``col:val``, ``AND``/``NOT``, ``*``, ``^``, parentheses) is just text, so no input can raise.

Vector side: cosine KNN over sqlite-vec's ``vec0`` table, or over the same vectors held in memory
by a long-running process (:mod:`vault_mem.index.vectors`), with the type filter inside the KNN and
tag/scope filters as an allowed-id set; the default rules (expired, superseded, duplicate)
over-fetch by the number of rows they can hide, so filtering never empties the top list.

Fusion over the union of both top-50 lists: min-max normalised bm25 and cosine, weighted 0.4/0.6,
plus a bonus for the share of the query's words a memory contains (bm25 all but ignores a word
found in half the memories, such as the person's name). Measured with ``vault-mem eval`` above
reciprocal-rank fusion, which ignores score gaps (docs/benchmarks.md "Search and ranking"). A
candidate whose meaning is as far from the query as an off-topic question's (its cosine under the relevance
floor) gets no keyword score: the words it shares are another sense of them or generic ones
(see KEYWORDS_NEED_MEANING).
Then a memory is lifted by the best top candidate of its own day (day context), and a memory
that only asks a question (its statement ends in "?") is scaled down: it shares a question
query's words and form but holds no answer. With the calling agent's other phrasings of the
question (``queries``), both searches run for each, and each memory keeps its best fused score,
cosine and word share over them (:func:`fuse_phrasings`).

The verdict (DESIGN.md §4): which candidates are hits and how sure each is, ``strong`` or
``candidate``, is the next stage, :mod:`vault_mem.index.levels` (the floor, the answer check, the
lead); this module then builds the hits in rank order. A keyword-only search (the model still
loading, an embedder down) has no floor: every keyword match is a hit, and with no match its
verdict is ``incomplete``, never ``none``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import weakref
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from vault_mem.config import Config
from vault_mem.embed.numeric import np
from vault_mem.errors import EmbedderError
from vault_mem.index import db as dbmod
from vault_mem.index import levels
from vault_mem.index.floor import Floor, WordBars
from vault_mem.index.pathsets import PathTable, left_out_sql
from vault_mem.index.queries import (  # the rules a write shares with recall live there (a write imports no search)
    COMMON_TERM_COUNT_SPAN,
    ID_LIST,
    SUPERSEDED_KEYS_SQL,
    TRUSTED_SUPERSEDED_KEYS_SQL,
    common_bar,
    id_list,
    rare_terms,
    tag_clauses,
    term_counts,
)
from vault_mem.model import views
from vault_mem.model.memory import as_date, validate_type
from vault_mem.model.terms import (
    MAX_QUERIES,
    MAX_QUERY_CHARS,
    fts_query,
    plausible_words,
    query_terms,
    stem,
    without_courtesies,
)
from vault_mem.model.verdict import STRONG, verdict_of

# Retrieval settings, measured with `vault-mem eval` on the development benchmark (README
# "Design notes"). Candidates: the union of the keyword and vector top lists (it holds ~95% of
# the relevant memories); ordering them is what the weights below decide.
CANDIDATES = 50
VECTOR_WEIGHT = 0.6  # share of the min-max normalised cosine in the fused score
COVERAGE_WEIGHT = 0.4  # bonus for the share of query words a memory contains: bm25 gives a word
# found in half the memories (a person's name in a one-person vault) almost no weight
BM25_WEIGHTS = (3.0, 1.0, 1.0)  # description, body, extra
# Day context: memories written on the same day as one of the best DAY_CONTEXT_POOL candidates
# share its session and topic, so each candidate gains DAY_CONTEXT_WEIGHT x the best fused score
# among those top candidates of its own day (a top candidate counts itself). When every memory
# has one date (a bulk import) the bonus is the same for all and changes no order.
DAY_CONTEXT_WEIGHT = 0.4
DAY_CONTEXT_POOL = 10
# Questions: a memory whose statement ends in "?" asks for information rather than recording
# it, yet shares topic words and interrogative form with a question query, so it outranks the
# answer (in a chat log, "Which city did you move to?" above "We settled in Lisbon in May.").
# Its fused score is scaled down by this share, after the day-context bonus, so it still lifts
# the other memories of its day, where the answer usually is. The statement is the description,
# or the body when the description is a bare label of at most QUESTION_LABEL_WORDS words (such
# as a speaker's name). Measured with `vault-mem eval`: 0.15-0.3 help as much, 0.2 is mid-plateau.
QUESTION_PENALTY = 0.2
QUESTION_LABEL_WORDS = 3
# Keywords need meaning: a candidate whose cosine with the query is under the relevance floor
# (Floor.min_sim, below which the verdict is "none": as far from the question as an off-topic
# question's best match) ranks by its cosine alone, without bm25 or the word-share bonus, unless
# it holds levels.STRONG_KEYWORD_COVERAGE of the query's words (an exact query, a name or an error
# code, embeds poorly). The words it shares are another sense of them ("go" in "when do I go to
# bed?" against "Plays Go online") or generic ones ("home" in "where is home these days?" against
# "Home internet is 500 Mbit fibre"), and they pushed the memory that answers in other words out
# of the top 3. A candidate without a vector yet keeps its keyword score (it has no cosine).
# Measured (`python bench/bench_verdict.py`, docs/benchmarks.md "Keywords need meaning"): R@5
# .840 -> .880 on bench/data/paraphrase.json and .862 -> .892 on paraphrase2.json; the developer
# vault and both LoCoMo dev files unchanged (their candidates all lie above the floor).
KEYWORDS_NEED_MEANING = True

# ---------------------------------------------------------------------------------------------


@dataclass
class Hit:
    """One recall result."""

    key: str
    type: str
    description: str
    date: str | None
    age_days: int | None
    flags: list[str]
    path: str
    score: float
    body: str
    keyword_only: bool
    note: str | None = None  # "may be outdated ...": views.outdated_note, for every reader alike
    #: "strong": close enough to put in front of the agent unasked (the prompt hook injects
    #: only these); "candidate": one of the closest memories, it may not answer (model/verdict.py)
    match: str = STRONG
    excerpt: bool = False  # body is an excerpt or a pointer (views.body_excerpt): `get KEY` has it all
    #: who made the commit that last changed the file (None: a change not committed yet, made on
    #: this machine), and whether that author's memories may reach an agent unasked (vault/authors.py)
    author: str | None = None
    trusted: bool = True

    def to_dict(self) -> dict[str, Any]:
        # asdict deep-copies field by field: half a millisecond per hit, on every recall
        return {**self.__dict__, "flags": list(self.flags)}


@dataclass
class RecallResult:
    """Hits plus how they were found: ``keyword_only`` and ``reason`` never hide a downgrade."""

    hits: list[Hit] = field(default_factory=list)
    keyword_only: bool = False
    reason: str | None = None
    embedder: str | None = None
    note: str | None = None  # e.g. "no memory cleared the relevance floor"
    floor: dict[str, Any] | None = None  # the bars used: min_sim, strong, hit_bar, source
    stored: bool = True  # the vault holds memories (a keyword-only search that finds none of
    # them says so without claiming that nothing is stored)
    #: memories the search by meaning could not see (no vector yet: found by keywords only); a
    #: search that missed them never says nothing related is stored (model/verdict.py)
    unembedded: int = 0
    #: the index searched was not yet checked against the files (a long-lived reader's start-up
    #: check still running, :attr:`Vault.index_unchecked`): memories may be missing from it, so a
    #: search that found nothing never says nothing related is stored (model/verdict.py)
    unchecked: bool = False
    #: key -> the verdict stage that made that hit a candidate (levels.UNDER_BAR, ANSWER_CHECK,
    #: FOCUS_CHECK, LEAD): diagnostics for benchmarks, in-process only (not in to_dict)
    demoted: dict[str, str] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """``strong`` (a strong hit), ``candidate`` (hits, none strong), ``none`` (nothing
        related is stored) or ``incomplete`` (no hits from a keyword-only search): see
        :mod:`vault_mem.model.verdict`."""
        return verdict_of((h.match for h in self.hits), keyword_only=self.keyword_only or self.unembedded > 0,
                          stored=self.stored, unchecked=self.unchecked)

    @property
    def answered(self) -> bool:
        """At least one strong hit (what the prompt hook would inject)."""
        return any(h.match == STRONG for h in self.hits)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hits": [h.to_dict() for h in self.hits],
            "verdict": self.verdict,
            "answered": self.answered,
            "keyword_only": self.keyword_only,
            "unembedded": self.unembedded,
            "unchecked": self.unchecked,
            "reason": self.reason,
            "embedder": self.embedder,
            "note": self.note,
            "floor": self.floor,
        }


@dataclass
class Filters:
    """Restrictions applied inside both searches (SQL WHERE on ``files AS f``)."""

    type: str | None = None
    tags: list[str] | None = None
    scope: str | None = None
    include_expired: bool = False
    today: str = ""
    #: paths of memories whose ``supersedes`` hides nothing (peers' memories: TRUSTED_SUPERSEDED_KEYS_SQL)
    distrusted: tuple[str, ...] = ()
    #: paths of memories left out of this search (a peer's, for what reaches an agent unasked:
    #: so many look-alikes cannot push the person's own memories out of the top list); a
    #: :class:`~vault_mem.index.pathsets.PathTable` of this connection is looked up, not bound
    excluded: Collection[str] = ()
    #: :func:`hidden_rows` for this search, counted once (both searches and every FTS5 query
    #: of the common-words cascade over-fetch by it)
    hidden_count: int | None = field(default=None, repr=False, compare=False)

    def sql(self) -> tuple[str, list[Any]]:
        clauses = ["f.usable = 1"]
        params: list[Any] = []
        if self.type:
            clauses.append("f.type = ?")
            params.append(self.type)
        if self.scope:
            clauses.append("f.scope = ?")
            params.append(self.scope)
        held, wanted = tag_clauses(self.tags)
        clauses += held
        params += wanted
        if not self.include_expired:
            clauses.append("(f.expires IS NULL OR f.expires >= ?)")
            params.append(self.today)
            if self.distrusted:
                clauses.append(f"f.key NOT IN ({TRUSTED_SUPERSEDED_KEYS_SQL})")
                params += [self.today, json.dumps(list(self.distrusted))]
            else:
                clauses.append(f"f.key NOT IN ({SUPERSEDED_KEYS_SQL})")
                params.append(self.today)
        if self.excluded:
            clause, bound = left_out_sql(None, "f.path", self.excluded)
            clauses.append(clause)
            params += bound
        return " AND ".join(clauses), params

    @property
    def narrow(self) -> bool:
        """Tag or scope filters: a vector scan over the filtered rows beats a filtered KNN."""
        return bool(self.tags or self.scope)




def keyword_matches(db, terms: Sequence[str]) -> list[str]:
    """The FTS5 queries keyword search runs, in order, until it has its candidates: the OR of
    the query's informative words; or, when every word is common (see COMMON_TERM_COUNT_SPAN),
    the AND of all of them, then of all but the most common one, and so on."""
    n, cap = common_bar(db)
    if n <= cap or len(terms) < 2:
        return [fts_query(terms)] if terms else []
    rare = rare_terms(db, terms, cap)
    if rare:
        return [fts_query(rare)]
    counts = term_counts(db, terms, cap * COMMON_TERM_COUNT_SPAN)
    by_rarity = [t for _, t in sorted(zip(counts, terms), key=lambda x: x[0])]
    return [fts_query(by_rarity[:k], "AND") for k in range(len(by_rarity), 0, -1)]


def keyword_search(db, terms: Sequence[str], filters: Filters, limit: int = CANDIDATES) -> list[tuple[int, float]]:
    """Top ``limit`` (file id, bm25) for the query's words (:func:`keyword_matches`); bm25 is
    negative, lower is better."""
    if isinstance(filters.excluded, PathTable) and filters.excluded.kept_in(db) == 0:
        # the rows not left out: none (every memory a peer's, in a clone of a team's vault where
        # the person wrote none yet), so no row passes ``f.path IN`` the table: nothing to rank
        # (ranking every match of the query first cost as much as the search itself)
        return []
    out: dict[int, float] = {}
    try:
        for match in keyword_matches(db, terms):
            for fid, score in _ranked(db, match, filters, limit):
                out.setdefault(fid, score)
            if len(out) >= limit:
                break
    except dbmod.database_error() as exc:
        # The query is built to be valid, so no text can raise here; what does is a damaged
        # keyword index, which must not pass for "nothing found" (the sidecar repairs it).
        if dbmod.is_damage(exc):
            raise
        raise KeywordIndexDamageError(f"the keyword search failed ({exc})") from exc
    return list(out.items())[:limit]


def hidden_rows(db, filters: Filters) -> int:
    """At most how many memories the default rules hide (expired, superseded, duplicates) and
    ``filters`` leaves out (:attr:`Filters.excluded`): what a search over-fetches so that its
    filtered top list is exact. Counted once per ``filters``."""
    if filters.hidden_count is None:
        filters.hidden_count = db.execute(
            "SELECT (SELECT count(*) FROM files WHERE expires IS NOT NULL AND expires < ?)"
            " + (SELECT count(*) FROM supersedes) + (SELECT count(*) FROM files WHERE duplicate_of IS NOT NULL)",
            (filters.today,)).fetchone()[0] + len(filters.excluded)
    return filters.hidden_count


#: above this many hidden rows, ranking inside the join beats over-fetching
MAX_OVERFETCH = 10_000

def _ranked(db, match: str, filters: Filters, limit: int) -> list[tuple[int, float]]:
    """Top ``limit`` (file id, bm25) of one FTS5 query under ``filters``."""
    where, params = filters.sql()
    w = BM25_WEIGHTS
    score = f"bm25(fts, {w[0]}, {w[1]}, {w[2]})"
    hidden = None if filters.narrow or filters.type else hidden_rows(db, filters)
    if hidden is None or hidden > MAX_OVERFETCH:
        sql = (f"SELECT f.id, {score} AS score FROM fts JOIN files f ON f.id = fts.rowid "
               f"WHERE fts MATCH ? AND {where} ORDER BY score LIMIT ?")
        return [(r[0], r[1]) for r in db.execute(sql, [match, *params, limit])]
    # Rank in FTS5 alone, then filter the few rows found: joining every match to its files row
    # before ranking cost more than the ranking (at 100k memories). Over-fetching by the rows
    # the rules can hide keeps the filtered top list exact.
    rows = db.execute(f"SELECT rowid, {score} AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT ?",
                      (match, limit + hidden)).fetchall()
    if not rows:
        return []
    ok = {r[0] for r in db.execute(f"SELECT f.id FROM files f WHERE f.id IN {ID_LIST} AND {where}",
                                   [id_list(r[0] for r in rows), *params])}
    return [(r[0], r[1]) for r in rows if r[0] in ok][:limit]


class KeywordIndexDamageError(Exception):
    """The FTS5 table cannot answer (a failing query, or a memory it no longer finds by its own
    words); :meth:`vault_mem.index.sidecar.Sidecar.recall` rebuilds it from the ``files`` rows."""


def keyword_index_lost_rows(db) -> bool:
    """True when the newest memory is not found by the first word of its own description: the
    FTS5 index lost rows (a damaged segment that reads as empty rather than failing). One point
    query, run only when a keyword search found nothing, so an empty answer is never silently
    a damaged index, and no work proportional to the vault happens on the query path.

    The word is asked as FTS5 itself cuts it (:func:`_probe_phrase`): a word as the query path
    cuts it may be no word the index holds (one past the query's 4,000 characters, ``x\\ue000y``,
    which FTS5 keeps whole and Python's ``\\w`` splits), and a peer's memory whose description
    began with one made every recall that found no keyword fail, after rebuilding the index."""
    r = db.execute("SELECT id, description FROM files WHERE has_content = 1 ORDER BY id DESC LIMIT 1").fetchone()
    phrase = _probe_phrase(r[1] or "") if r is not None else None
    if phrase is None:
        return False
    try:
        found = db.execute("SELECT 1 FROM fts WHERE fts MATCH ? AND rowid = ?", (phrase, r[0])).fetchone()
    except dbmod.database_error():
        return True
    return found is None


#: the longest run of a description the damage probe asks for
_PROBE_CHARS = 200


def _probe_phrase(text: str) -> str | None:
    """The first whitespace-separated run of ``text`` holding a letter or digit, as an FTS5
    phrase: FTS5 cuts the phrase into tokens with the index's own tokenizer, and a run between
    spaces is cut the same way in the text and in the query, so an intact index always finds
    it. None when there is no such run (nothing to ask)."""
    for run in text.split():
        if len(run) <= _PROBE_CHARS and any(c.isalnum() for c in run):
            return '"' + run.replace('"', '""') + '"'
    return None


def vector_search(db, qvec: np.ndarray, filters: Filters, *, index,
                  limit: int = CANDIDATES) -> list[tuple[int, float]]:
    """Top ``limit`` (file id, cosine) under ``filters`` (``index`` already refreshed)."""
    qvec = np.asarray(qvec, dtype=np.float32)
    where, params = filters.sql()
    where += " AND f.vec_model IS NOT NULL"  # a vector whose memory changed since is not its vector
    hidden = 0 if filters.narrow else hidden_rows(db, filters) + db.execute(
        "SELECT count(*) FROM vector_log WHERE live = -1").fetchone()[0]
    fetch = limit + min(hidden, MAX_OVERFETCH)
    kept_in = filters.excluded.kept_in() if isinstance(filters.excluded, PathTable) else None
    if filters.narrow or (index.max_k is not None and fetch > index.max_k) or (kept_in is not None and kept_in < fetch):
        # Top-k among the rows the filters allow (an indexed query): for tag/scope filters,
        # where the rows to over-fetch pass what the index answers at once (sqlite-vec: 4,096;
        # a peer's files superseding thousands of keys made every recall fail there), and where
        # a kept table of the rows not left out holds fewer than those (the peers' memories left
        # out, nearly every one: their rows were over-fetched and checked one by one, issue 29)
        allowed = np.fromiter((r[0] for r in db.execute(f"SELECT f.id FROM files f WHERE {where}", params)),
                              dtype=np.int64)
        return index.top(qvec, limit, type=filters.type, allowed=allowed)
    # Rows with a vector that the default rules hide (duplicates, expired, superseded, stale
    # vectors) are few: fetch that many more so the filtered top ``limit`` is exact, never emptied.
    rows = index.top(qvec, fetch, type=filters.type)
    if not rows:
        return []
    ids = [i for i, _ in rows]
    ok = {r[0] for r in db.execute(f"SELECT f.id FROM files f WHERE f.id IN {ID_LIST} AND {where}", [id_list(ids), *params])}
    return [(i, s) for i, s in rows if i in ok][:limit]


def fuse(kw: list[tuple[int, float]], sims: dict[int, float], coverage: dict[int, float], *,
         vector_weight: float = VECTOR_WEIGHT, coverage_weight: float = COVERAGE_WEIGHT,
         floor: float | None = None) -> dict[int, float]:
    """Fused score of every candidate: min-max normalised bm25 (0 when the keyword list does not
    hold it) and cosine, weighted, plus the coverage bonus. ``floor`` (the relevance floor's
    cosine): a candidate with a cosine under it keeps only its cosine's part, unless it holds
    levels.STRONG_KEYWORD_COVERAGE of the query's words (KEYWORDS_NEED_MEANING)."""
    ids = list(dict.fromkeys([i for i, _ in kw] + list(sims)))
    kw_n = _minmax({i: -s for i, s in kw})  # bm25: lower is better
    sim_n = _minmax(sims) if sims else {}

    def keywords(i: int) -> float:
        if floor is not None and i in sims and sims[i] < floor \
                and coverage.get(i, 0.0) < levels.STRONG_KEYWORD_COVERAGE:
            return 0.0
        return (1 - vector_weight) * kw_n.get(i, 0.0) + coverage_weight * coverage.get(i, 0.0)

    return {i: keywords(i) + vector_weight * sim_n.get(i, 0.0) for i in ids}


def day_context(db, scores: dict[int, float], *, weight: float = DAY_CONTEXT_WEIGHT,
                pool: int = DAY_CONTEXT_POOL) -> dict[int, float]:
    """``scores`` plus the day-context bonus (see DAY_CONTEXT_WEIGHT); undated memories are
    each their own day. Cost: one indexed read of the candidates' dates."""
    if weight <= 0 or len(scores) < 2:
        return scores
    ids = list(scores)
    day = {r[0]: r[1][:10] for r in db.execute(
        f"SELECT id, sort_date FROM files WHERE id IN {ID_LIST} AND sort_date IS NOT NULL", [id_list(ids)]) if r[1]}
    best: dict[Any, float] = {}
    for i in sorted(ids, key=lambda i: (-scores[i], i))[:pool]:
        d = day.get(i, i)
        best[d] = max(best.get(d, 0.0), scores[i])
    return {i: s + weight * best.get(day.get(i, i), 0.0) for i, s in scores.items()}


def question_penalty(db, scores: dict[int, float], *, penalty: float = QUESTION_PENALTY) -> dict[int, float]:
    """``scores`` with each memory whose statement is a question scaled by ``1 - penalty`` (see
    QUESTION_PENALTY). Cost: one indexed read of the candidates' descriptions and last body
    character."""
    if penalty <= 0 or not scores:
        return scores
    ids = list(scores)
    out = dict(scores)
    for i, desc, last in db.execute(
            f"SELECT id, description, substr(rtrim(coalesce(body, ''), ' \t\r\n'), -1) FROM files "
            f"WHERE id IN {ID_LIST}", [id_list(ids)]):
        desc = (desc or "").strip()
        statement_end = desc[-1:] if len(desc.split()) > QUESTION_LABEL_WORDS or not last else last
        if statement_end == "?":
            out[i] = scores[i] * (1 - penalty)
    return out


def _minmax(values: dict[int, float]) -> dict[int, float]:
    if not values:
        return {}
    lo, hi = min(values.values()), max(values.values())
    return {i: (v - lo) / (hi - lo) if hi > lo else 1.0 for i, v in values.items()}


#: a files row's ``changed`` column: when its content last changed, if a hand edit left its
#: ``updated:`` behind (the ``changes`` table, kept by the sidecar's reconcile)
CHANGED_SQL = "(SELECT c.changed FROM changes c WHERE c.path = files.path) AS changed"


def age_and_flags(row, *, today: dt.date, stale_after: dict[str, int], superseded: bool) -> tuple[str | None, int | None, list[str]]:
    """(ISO date, age in days, flags) for a files row with type, sort_date, changed, expires,
    conflict_of. The date is the later of the memory's own date and when its content last
    changed (``changed``: a hand edit that kept an old ``updated:``), so a memory just fixed by
    hand is not called old."""
    shown = max(row["sort_date"] or "", row["changed"] or "") or None
    date = as_date(shown)
    flags = views.memory_flags(type_=row["type"], updated=date, expires=as_date(row["expires"]), today=today,
                               stale_after=stale_after, superseded=superseded, conflict=bool(row["conflict_of"]))
    return shown, views.age_days(date, today), flags


def finite(x: float) -> float:
    return x if math.isfinite(x) else 0.0


# ---------------------------------------------------------------------------------------------


def keyword_coverage(db, terms: Sequence[str], ids: Sequence[int], *, max_chars: int = 4000) -> dict[int, float]:
    """Share of ``terms`` each candidate contains (its description, first ``max_chars`` of body,
    key words, tags and date words). Cost: one indexed read of the candidates, no FTS scans."""
    if not ids or not terms:
        return {i: 0.0 for i in ids}
    wanted = {stem(t) for t in terms}
    plausible = plausible_words({w[:3] for w in wanted})  # stem only plausible matches
    out = {i: 0.0 for i in ids}
    seen = 0
    for r in db.execute(f"SELECT rowid, description, substr(body, 1, ?), extra FROM fts WHERE rowid IN {ID_LIST}",
                        [max_chars, id_list(ids)]):
        seen += 1
        have = {stem(w) for w in set(plausible.findall(" ".join(x for x in r[1:] if x).lower()))}
        out[r[0]] = len(wanted & have) / len(wanted)
    if seen < len(out):  # every candidate is a usable memory, and each has its keyword row
        raise KeywordIndexDamageError(f"{len(out) - seen} of {len(out)} candidates have no keyword row")
    return out


class RecallVectors(Protocol):
    """What :func:`run_recall` asks of the vector half
    (:class:`~vault_mem.index.vectors.VectorStore` is one): the embedder and its state, the
    vector search, the relevance floor and the answer check's word vectors."""

    def vectors_reason(self) -> str | None: ...
    def get_embedder(self) -> Any: ...
    def embed_owed(self) -> int: ...
    def vectors_missing(self, filters: Filters | None = None) -> int: ...
    def search_vectors(self, qvec: np.ndarray, filters: Filters) -> tuple[Any, list[tuple[int, float]]]: ...
    def relevance_floor(self, embedder: Any) -> Floor: ...
    def word_bars(self, embedder: Any) -> WordBars: ...
    def word_vectors(self, embedder: Any, words: Sequence[str]) -> dict[str, np.ndarray]: ...
    def probe_vectors(self, embedder: Any) -> np.ndarray: ...


class RecallSource(Protocol):
    """What :func:`run_recall` reads from the sidecar (:class:`~vault_mem.index.sidecar.Sidecar`
    is one): the database, the staleness settings and the vector half. Nothing else of the
    sidecar reaches the pipeline."""

    @property
    def db(self) -> dbmod.Database: ...
    @property
    def config(self) -> Config: ...
    @property
    def vectors(self) -> RecallVectors: ...


def phrasings(query: str, queries: Sequence[str] = ()) -> list[str]:
    """The query, then each distinct alternative phrasing of ``queries`` that has words (blank
    ones and repeats of the query dropped)."""
    out = [query]
    for q in queries or ():
        if isinstance(q, str) and q.strip() and q.strip() not in (p.strip() for p in out):
            out.append(q)
    return out


@dataclass
class Phrasing:
    """One way of asking, with what each search found for it: its words, its vector (None for a
    keyword-only search) and both top lists."""

    text: str
    terms: list[str]
    qvec: np.ndarray | None = None
    kw: list[tuple[int, float]] = field(default_factory=list)
    vec: list[tuple[int, float]] = field(default_factory=list)


#: the last query vectors each embedder made, by text (:func:`query_vectors`)
_QUERY_VECTORS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
#: how many of them are kept per embedder
QUERY_VECTORS_KEPT = 8


def query_vectors(embedder: Any, texts: list[str]) -> list:
    """``embedder``'s query vectors of ``texts``, the last few it made given again: a recall
    whose hits are a peer's is asked again without them (``Vault._trusted_kept``), and its
    second search embedded the same query again (~10-20 ms of CPU with the local model, the
    larger part of what that case cost the MCP server: issue 29). The same embedder object
    gives the same vector for the same text (its model is part of it); an embedder that cannot
    be weakly referenced is asked each time."""
    try:
        kept = _QUERY_VECTORS.setdefault(embedder, {})
    except TypeError:
        return list(embedder.embed_batch(texts, kind="query"))
    missing = [t for t in dict.fromkeys(texts) if t not in kept]
    if missing:
        for text, vec in zip(missing, embedder.embed_batch(missing, kind="query")):
            kept[text] = np.array(vec, dtype=np.float32)
        while len(kept) > max(QUERY_VECTORS_KEPT, len(texts)):
            kept.pop(next(iter(kept)))
    return [kept[t].copy() for t in texts]  # a copy each: no caller can change the kept one


def embed_phrasings(vectors: RecallVectors, embedder: Any, ps: Sequence[Phrasing]) -> str | None:
    """Candidates, first half: each phrasing's query vector (``p.qvec``), once the vectors still
    owed are made, for a bounded time (:meth:`~vault_mem.index.vectors.VectorStore.embed_owed`:
    those left are found by keywords only, and the result says so). Returns why the embedder
    failed (every ``p.qvec`` is None then: the search is keyword-only), or None."""
    try:
        vectors.embed_owed()
        texts = [without_courtesies(p.text[:MAX_QUERY_CHARS]) for p in ps]
        for p, v in zip(ps, query_vectors(embedder, texts)):
            p.qvec = np.asarray(v, dtype=np.float32)
    except EmbedderError as exc:
        for p in ps:
            p.qvec = None
        return f"embedder failed: {exc}"
    return None


def search_phrasings(db, vectors: RecallVectors, ps: Sequence[Phrasing], filters: Filters, *,
                     check_index: bool = True) -> Any:
    """Candidates, second half: both searches for each phrasing, their top lists into ``p.kw``
    and ``p.vec`` (a phrasing without a vector, or with a zero one, gets no vector search).
    Returns the vector search used (None when none ran). A keyword search that finds nothing
    for the query itself is checked against a damaged keyword index (:func:`keyword_index_lost_rows`)."""
    index = None
    for n, p in enumerate(ps):
        p.kw = keyword_search(db, p.terms, filters)
        if check_index and n == 0 and p.terms and not p.kw and keyword_index_lost_rows(db):
            raise KeywordIndexDamageError("the newest memory is not found by its own words")
        if p.qvec is not None and float(np.linalg.norm(p.qvec)) > 0:  # a zero vector has no direction
            index, p.vec = vectors.search_vectors(p.qvec, filters)
    return index


def fuse_phrasings(db, ps: Sequence[Phrasing], candidates: Sequence[int], index, *,
                   floor: Floor | None = None) -> levels.Evidence:
    """Fusion over every phrasing: each candidate's fused score (:func:`fuse`, keywords needing
    meaning against ``floor``'s relevance floor), cosine and word share are its best over the
    phrasings (an agent's rewording that shares a memory's words finds it as if it had been the
    query), then the day-context bonus and the question penalty."""
    scores: dict[int, float] = {}
    sims: dict[int, float] = {}
    coverage: dict[int, float] = {}
    vectors = any(p.vec for p in ps)
    for p in ps:
        p_sims = index.similarities(np.asarray(p.qvec, dtype=np.float32), candidates) \
            if vectors and p.qvec is not None else {}
        p_cov = keyword_coverage(db, p.terms, candidates)
        fused = fuse(p.kw, p_sims, p_cov, vector_weight=VECTOR_WEIGHT if vectors else 0.0,
                     floor=floor.min_sim if floor is not None and KEYWORDS_NEED_MEANING else None)
        for mine, theirs in ((scores, fused), (sims, p_sims), (coverage, p_cov)):
            for i, x in theirs.items():
                mine[i] = max(mine.get(i, x), x)
    scores = question_penalty(db, day_context(db, scores))
    return levels.Evidence(scores, sims, coverage)


def run_recall(sc: RecallSource, query: str, *, k: int, type: str | None, tags: list[str] | None, scope: str | None,
               include_expired: bool, today: dt.date, distrusted: Collection[str] = (),
               queries: Sequence[str] = (), check_index: bool = True, excluded: Collection[str] = ()) -> RecallResult:
    """The whole recall, stage by stage: candidates (:func:`embed_phrasings`, then both
    searches by :func:`search_phrasings`, for the query and each alternative phrasing in
    ``queries``), fusion (:func:`fuse_phrasings`), the verdict
    (:func:`vault_mem.index.levels.levels`, which reads the query itself), the hits in rank
    order (:func:`ranked_hits`). ``distrusted``: paths whose ``supersedes`` hides nothing;
    ``excluded``: paths left out of the search (:class:`Filters`)."""
    if type is not None:
        type = validate_type(type)
    k = max(1, min(int(k), 200))
    db = sc.db
    filters = Filters(type=type, tags=[t for t in (tags or []) if t], scope=scope or None,
                      include_expired=include_expired, today=today.isoformat(),
                      distrusted=tuple(sorted(distrusted)),
                      excluded=excluded if isinstance(excluded, PathTable) and excluded.sql(db) is not None
                      else tuple(sorted(excluded)))
    result = RecallResult()
    terms = query_terms(query)
    reason = sc.vectors.vectors_reason()
    embedder = None if reason else sc.vectors.get_embedder()
    result.embedder = getattr(embedder, "model_id", None) if embedder is not None else None
    if not terms and not (query or "").replace("\x00", "").strip():
        result.keyword_only = reason is not None
        result.reason = reason
        result.note = "empty query"
        result.stored = False  # nothing was asked: no claim about what is stored
        return result
    ps = [Phrasing(text, query_terms(text)) for text in phrasings(query, queries)[:1 + MAX_QUERIES]]
    if embedder is not None:
        reason = embed_phrasings(sc.vectors, embedder, ps) or reason
    qvec = ps[0].qvec
    index = search_phrasings(db, sc.vectors, ps, filters, check_index=check_index)
    if index is not None:
        result.unembedded = sc.vectors.vectors_missing(filters)
        if result.unembedded:
            result.note = (f"{result.unembedded} memories have no vector yet and are found by keywords only "
                           f"(`vault-mem reindex` makes them now; a daemon or the next recalls make them meanwhile)")
    result.keyword_only = qvec is None
    result.reason = reason if qvec is None else None
    candidates = list(dict.fromkeys(i for p in ps for i, _ in [*p.kw, *p.vec]))
    if not candidates:
        result.note = result.note or "no memory matched the query"
        result.stored = db.execute("SELECT 1 FROM files WHERE usable = 1 LIMIT 1").fetchone() is not None
        return result
    vec = any(p.vec for p in ps)
    floor = sc.vectors.relevance_floor(embedder) if vec else None
    ev = fuse_phrasings(db, ps, candidates, index, floor=floor)
    scores = ev.scores
    result.floor = asdict(floor) if floor is not None else None
    words = None
    if floor is not None and embedder is not None and qvec is not None:
        words = levels.AnswerWords(qvec=np.asarray(qvec, dtype=np.float32),
                                   bars=lambda: sc.vectors.word_bars(embedder),
                                   vectors=lambda ws: sc.vectors.word_vectors(embedder, ws),
                                   probes=lambda: sc.vectors.probe_vectors(embedder))
    why: dict[int, str] = {}
    passing = levels.levels(db, query, terms, ev, floor=floor, k=k, words=words,
                            rewordings=[p.text for p in ps[1:]], why=why)
    if not passing:
        result.note = "; ".join(n for n in (result.note, "no memory cleared the relevance floor") if n)
        return result
    hits, demoted = ranked_hits(db, passing, scores, why, k=k, today=today, include_expired=include_expired,
                                stale_after=sc.config.stale_after_days, keyword_only=result.keyword_only,
                                distrusted=filters.distrusted)
    result.hits.extend(hits)
    result.demoted.update(demoted)
    return result


def ranked_hits(db, passing: dict[int, str], scores: dict[int, float], why: dict[int, str], *, k: int,
                today: dt.date, include_expired: bool, stale_after: dict[str, int],
                keyword_only: bool, distrusted: Collection[str] = ()) -> tuple[list[Hit], dict[str, str]]:
    """After the verdict: the ``k`` best of the ``passing`` candidates as hits, in rank order
    (score, then id), each with its date, age, flags and level (``passing``), what the adapters
    render; and, by key, the verdict stage that made each hit ``why`` names a candidate."""
    ranked = sorted(((i, scores[i]) for i in passing), key=lambda x: (-x[1], x[0]))[:k]
    ids = [i for i, _ in ranked]
    rows = {r["id"]: r for r in db.execute(
        f"SELECT id, key, type, description, sort_date, {CHANGED_SQL}, expires, path, body, conflict_of FROM files "
        f"WHERE id IN {ID_LIST}", [id_list(ids)])}
    superseded: set[str] = set()
    if include_expired:  # flagged, not hidden; by a peer's supersedes (``distrusted``), not even flagged
        superseded = {r[0] for r in db.execute(TRUSTED_SUPERSEDED_KEYS_SQL,
                                               [today.isoformat(), json.dumps(sorted(distrusted))])}
    hits: list[Hit] = []
    demoted: dict[str, str] = {}
    for i, score in ranked:
        r = rows.get(i)
        if r is None:
            continue
        date, age, flags = age_and_flags(r, today=today, stale_after=stale_after,
                                         superseded=r["key"] in superseded)
        hits.append(Hit(key=r["key"], type=r["type"], description=r["description"], date=date,
                        age_days=age, flags=flags, path=r["path"], score=round(finite(score), 6),
                        body=r["body"] or "", keyword_only=keyword_only,
                        note=views.outdated_note(flags, age), match=passing[i]))
        if i in why:
            demoted[r["key"]] = why[i]
    return hits, demoted
