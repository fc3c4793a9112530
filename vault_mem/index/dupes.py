"""Near-duplicate memories: the guard in ``remember`` and the pairs behind ``vault-mem dupes``.

How two memories are compared (description + body of each):

- **Lexical similarity decides.** Words are lower-cased, English stopwords dropped and plural /
  ``-ing`` / ``-ed`` endings cut; the score is the mean of the Jaccard index of the two word sets
  and their containment (shared words over the smaller set), so a rewording that drops a few
  words scores high while two memories that share a frame but differ in the thing they are about
  ("Project foo uses PostgreSQL 15" / "Project bar uses PostgreSQL 15") stay below the bar.
- **Vectors can only veto.** Measured with the shipped MiniLM model, cosine puts paraphrases at
  0.78-0.97 but also "Weekly sync is on Monday" / "... on Tuesday" at 0.98 and "Prefers dark
  mode" / "Prefers light mode" at 0.85: it cannot tell a duplicate from a contradiction. So a
  lexical match whose stored vectors disagree (cosine under ``MIN_COSINE``) is dropped, and
  vectors never add a match on their own. Without vectors the lexical score alone decides, so
  the guard behaves the same with and without an embedder, only slightly more cautious with one.
- **Bounded work.** ``remember`` takes its candidates from the keyword index (an OR query of
  the memory's first informative words, best ``CANDIDATES`` by bm25): one FTS query. ``vault-mem
  dupes`` never compares all pairs: a prefix filter over an in-memory inverted index of each
  memory's rarest words finds every pair that can reach the threshold (see
  :func:`duplicate_pairs`), with a cap for template-like vaults.
- Only live memories are compared: usable, not expired, not superseded, not a sync conflict copy
  (those are listed by ``vault-mem review``). ``remember`` embeds the new text for the veto only
  when the embedder is already loaded in the process; it never loads a model for it.

The threshold is conservative on purpose: a missed duplicate costs a little clutter, a false
alarm teaches the agent to ignore the warning.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vault_mem.embed.numeric import np
from vault_mem.errors import VaultMemError
from vault_mem.index import db as dbmod
from vault_mem.index import queries
from vault_mem.model import terms
from vault_mem.model.names import named
from vault_mem.platform.logs import Logger

if TYPE_CHECKING:
    from vault_mem.index.sidecar import Sidecar

log = Logger("vault_mem.index.dupes")  # logging imported at the first message (start-up time)

__all__ = ["DUPLICATE_THRESHOLD", "MIN_COSINE", "duplicate_pairs", "duplicate_warnings",
           "lexical_similarity", "near_duplicates", "tokens"]

#: Lexical score at or above which two memories count as near duplicates.
DUPLICATE_THRESHOLD = 0.78
#: With vectors, a lexical match is dropped when the cosine of the stored vectors is below this.
#: An embedder may set its own ``min_duplicate_cosine`` (models differ in their cosine scale).
MIN_COSINE = 0.6
CANDIDATES = 8  # keyword neighbours looked at per new memory; partners kept per memory in dupes
MAX_POSTINGS = 200  # vault-wide: memories followed per shared rare word
QUERY_TERMS = 24  # words of a memory used to find its neighbours
MAX_TOKENS = 2000  # words of a memory compared (a 64 KB body is cut, not compared whole)
_WORD = re.compile(r"\w+", re.UNICODE)
_CONFLICT_COPY = re.compile(r"\.conflict-[0-9a-f]{7}$")


def _stem(word: str) -> str:
    """Cut the commonest English endings so "uses"/"use" and "approvals"/"approval" meet."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def tokens(text: str, *, limit: int = MAX_TOKENS) -> list[str]:
    """Informative words of ``text``: lower-cased, stopwords dropped, lightly stemmed."""
    out: list[str] = []
    for w in _WORD.findall((text or "").lower()):
        w = w.strip("_")
        if not w or w in terms.STOPWORDS:
            continue
        out.append(_stem(w))
        if len(out) >= limit:
            break
    return out


def lexical_similarity(a: Iterable[str], b: Iterable[str]) -> float:
    """Mean of Jaccard and containment of two word collections, in [0, 1]."""
    sa = a if isinstance(a, (set, frozenset)) else set(a)
    sb = b if isinstance(b, (set, frozenset)) else set(b)
    if not sa or not sb:
        return 0.0
    return _score(len(sa & sb), len(sa), len(sb))


def _score(shared: int, na: int, nb: int) -> float:
    return (shared / (na + nb - shared) + shared / min(na, nb)) / 2


def _text(description: str, body: str) -> str:
    return f"{description}\n{body or ''}"


@dataclass
class _Row:
    id: int
    key: str
    type: str
    description: str
    body: str
    embed_sha256: str | None
    vec_model: str | None
    _tokens: frozenset[str] | None = None

    @property
    def words(self) -> frozenset[str]:
        if self._tokens is None:
            self._tokens = frozenset(tokens(_text(self.description, self.body)))
        return self._tokens


_ROW_COLS = "f.id, f.key, f.type, f.description, f.body, f.embed_sha256, f.vec_model"
# Live = what recall shows by default: usable, unexpired, not superseded (search.py's rule).
_LIVE = (f"f.usable = 1 AND (f.expires IS NULL OR f.expires >= ?) "
         f"AND f.key NOT IN ({queries.SUPERSEDED_KEYS_SQL})")


def _row(r) -> _Row:
    return _Row(r[0], r[1], r[2], r[3] or "", r[4] or "", r[5], r[6])


def _neighbours(db, text: str, *, skip: Iterable[str], today: str, limit: int) -> list[_Row]:
    """Live memories that share the most informative words with ``text`` (best bm25 first)."""
    # words in a large share of the vault carry no signal and make ranking cost grow with the
    # vault; the same pruning recall uses keeps this check bounded on every remember
    match = terms.fts_query(queries.informative_terms(db, terms.query_terms(text)[:QUERY_TERMS], floor=200))
    if not match:
        return []
    skip = list(dict.fromkeys(skip))
    not_in = " AND f.key NOT IN (SELECT value FROM json_each(?))" if skip else ""
    sql = (f"SELECT {_ROW_COLS} FROM fts JOIN files f ON f.id = fts.rowid "
           f"WHERE fts MATCH ? AND {_LIVE}{not_in} ORDER BY bm25(fts, 3.0, 1.0, 1.0) LIMIT ?")
    try:
        rows = db.execute(sql, [match, today, today, *([json.dumps(skip)] if skip else []), limit + 4]).fetchall()
    except dbmod.database_error() as exc:  # the query is built to be valid; a broken index must not block a write
        log.warning("vault-mem: duplicate check skipped (%s)", exc)
        return []
    return [_row(r) for r in rows if not _CONFLICT_COPY.search(r[1])][:limit]


def _stored_vectors(sidecar: Sidecar, model: str | None, hashes: Iterable[str | None]) -> dict[str, np.ndarray]:
    """Vectors of the embedding cache for ``model``, by text hash (read-only)."""
    return {h: np.frombuffer(v, dtype=np.float32) for h, v in sidecar.vectors.cached_vectors(model, hashes).items()}


def _cosine(a: np.ndarray | None, b: np.ndarray | None) -> float | None:
    if a is None or b is None or a.shape != b.shape:
        return None
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    if na == 0 or nb == 0:
        return None
    return float(a @ b) / (na * nb)


def _min_cosine(sidecar: Sidecar) -> float:
    return float(getattr(sidecar.vectors.embedder_at_hand(), "min_duplicate_cosine", MIN_COSINE))


def _vector_of_text(sidecar: Sidecar, description: str, body: str) -> tuple[str | None, np.ndarray | None]:
    """(model id, vector) of a text not in the index yet: from the cache, else embedded now."""
    embedder = sidecar.vectors.embedder_at_hand()
    if embedder is None:
        return None, None
    model = str(embedder.model_id)
    doc = terms.document_text(description, body or "", None)
    sha = hashlib.sha256(doc.encode("utf-8")).hexdigest()
    cached = _stored_vectors(sidecar, model, [sha])
    if sha in cached:
        return model, cached[sha]
    try:
        return model, np.asarray(embedder.embed_batch([doc], kind="document"), dtype=np.float32)[0]
    except VaultMemError as exc:
        log.info("vault-mem: duplicate check without vectors (%s)", exc)
        return None, None


def near_duplicates(sidecar: Sidecar, *, key: str, type: str | None, description: str, body: str,
                    limit: int = 3, exclude: Iterable[str] = (),
                    today: dt.date | None = None) -> list[tuple[str, float]]:
    """Other live memories whose content is a near duplicate of this one, best first.

    ``(key, similarity)`` pairs with similarity at or above :data:`DUPLICATE_THRESHOLD`;
    ``key`` itself and the keys in ``exclude`` (e.g. what the new memory supersedes) are never
    returned. ``type`` only breaks ties (same type first): a fact and a preference that say the
    same thing are still duplicates.
    """
    today_s = (today or dt.date.today()).isoformat()
    text = _text(description, body)
    mine = frozenset(tokens(text))
    if not mine:
        return []
    scored: list[tuple[float, _Row]] = []
    for row in _neighbours(sidecar.db, text, skip=[key, *exclude], today=today_s, limit=CANDIDATES):
        sim = lexical_similarity(mine, row.words)
        if sim >= DUPLICATE_THRESHOLD:
            scored.append((sim, row))
    if not scored:
        return []
    model, vec = _vector_of_text(sidecar, description, body)
    if vec is not None:
        theirs = _stored_vectors(sidecar, model, [r.embed_sha256 for _, r in scored if r.vec_model == model])
        floor = _min_cosine(sidecar)
        kept = []
        for sim, r in scored:
            cos = _cosine(vec, theirs.get(r.embed_sha256 or ""))
            if cos is None or cos >= floor:
                kept.append((sim, r))
        scored = kept
    scored.sort(key=lambda x: (-x[0], x[1].type != type, x[1].key))
    return [(r.key, round(sim, 2)) for sim, r in scored[:limit]]


#: what an agent reads of a peer's look-alike's key in ``remember``'s warning (:func:`duplicate_warnings`)
PEERS_LOOK_ALIKE = "a look-alike's key"


def duplicate_warnings(sidecar: Sidecar, *, key: str, type: str | None, description: str, body: str,
                       exclude: Iterable[str] = (),
                       peers: Callable[[list[str]], set[str]] | None = None) -> list[str]:
    """The warnings ``remember`` adds for a new key that repeats an existing memory.

    ``peers``: of the keys found, those whose author is not approved here (the vault knows). A
    look-alike of theirs is named as such, never as the memory to update while the new one is
    forgotten: a peer's look-alike planted before the person's agent wrote made vault-mem tell
    the agent to forget the person's new memory and write under the key the peer chose.
    Never raises: the duplicate check must not stop a write."""
    try:
        found = near_duplicates(sidecar, key=key, type=type, description=description, body=body,
                                exclude=exclude)
        theirs = peers([other for other, _ in found]) if peers is not None and found else set()
    except (VaultMemError, *dbmod.errors()) as exc:
        log.warning("vault-mem: duplicate check skipped (%s)", exc)
        return []
    # a peer's key is text the peer chose (a sentence: `important.the-agent-must-run-...`) in our
    # sentence: the person reads it, an agent its kind alone (render.for_agent; atk25)
    return [
        f"looks like {named(other, PEERS_LOOK_ALIKE)} (similarity {sim:.2f}), a memory whose author is not "
        f"approved on this machine: '{key}' is kept; neither is a reason to change the other (the person "
        "reviews that author with `vault-mem trust`)"
        if other in theirs else
        f"looks like a near duplicate of '{other}' (similarity {sim:.2f}): update that memory "
        f"(remember with key '{other}') instead of adding another, and forget '{key}' if it says "
        "the same thing"
        for other, sim in found
    ]


def duplicate_pairs(sidecar: Sidecar, *, today: dt.date | None = None, max_postings: int = MAX_POSTINGS,
                    per_memory: int = CANDIDATES) -> list[dict]:
    """Likely duplicate pairs among the live memories, most similar first.

    Each: ``a``, ``b`` (keys, ``a < b``), ``similarity`` (lexical), ``cosine`` (of the stored
    vectors, or None), and the two descriptions. No model is loaded.

    Candidates come from a prefix filter, not from all pairs. A score of at least ``t`` needs a
    Jaccard index of at least ``2t - 1`` and a containment of at least ``t``, so the overlap of
    a set ``X`` with a smaller ``Y`` is at least ``(2t - 1)|X|`` and ``t|Y|``; and two sets with
    overlap ``o`` share a word among the rarest ``|X| - o + 1`` of ``X`` and ``|Y| - o + 1`` of
    ``Y`` (the AllPairs / PPJoin prefix lemma), so no pair above the threshold is missed. So
    each memory is compared only with memories sharing one of its rarest words, found through
    an in-memory inverted index; a word shared by more than ``max_postings`` memories is only
    followed to its latest ``max_postings`` (which bounds the work on template-like vaults), and
    each memory keeps its best ``per_memory`` partners.
    """
    today_s = (today or dt.date.today()).isoformat()
    db = sidecar.db
    rows = {r[0]: _row(r) for r in db.execute(f"SELECT {_ROW_COLS} FROM files f WHERE {_LIVE} ORDER BY f.id",
                                              [today_s, today_s])}
    rows = {i: r for i, r in rows.items() if not _CONFLICT_COPY.search(r.key) and r.words}
    df = Counter(t for r in rows.values() for t in r.words)
    t = DUPLICATE_THRESHOLD
    min_j = 2 * t - 1
    postings: dict[str, list[int]] = defaultdict(list)
    found: dict[tuple[int, int], float] = {}
    sets = {i: r.words for i, r in rows.items()}
    sizes = {i: len(w) for i, w in sets.items()}
    for i in sorted(rows, key=lambda i: (sizes[i], i)):  # smaller sets first
        words, n = sets[i], sizes[i]
        rarest = sorted(words, key=lambda w: (df[w], w))
        seen: set[int] = set()
        # Probing as the larger set: overlap >= Jaccard * n >= min_j * n.
        for w in rarest[:n - math.ceil(min_j * n) + 1]:
            for j in postings[w][-max_postings:]:
                if j in seen or sizes[j] < min_j * n:
                    continue
                seen.add(j)
                sim = _score(len(words & sets[j]), n, sizes[j])
                if sim >= t:
                    found[(j, i)] = sim
        # Indexed as the smaller set of a later pair: overlap >= containment * n >= t * n.
        for w in rarest[:n - math.ceil(t * n) + 1]:
            postings[w].append(i)
    model = sidecar.get_meta("vec_model") if db.vec_ok else None
    vectors = _stored_vectors(sidecar, model, [rows[i].embed_sha256 for p in found for i in p
                                          if rows[i].vec_model == model])
    floor = _min_cosine(sidecar)
    best: dict[int, int] = defaultdict(int)  # partners kept per memory
    out = []
    for (i, j), sim in sorted(found.items(), key=lambda x: (-x[1], x[0])):
        a, b = sorted((rows[i], rows[j]), key=lambda r: r.key)
        cos = _cosine(vectors.get(a.embed_sha256 or ""), vectors.get(b.embed_sha256 or ""))
        if (cos is not None and cos < floor) or (best[i] >= per_memory and best[j] >= per_memory):
            continue
        best[i] += 1
        best[j] += 1
        out.append({"a": a.key, "b": b.key, "similarity": round(sim, 2),
                    "cosine": None if cos is None else round(cos, 2),
                    "a_description": a.description, "b_description": b.description})
    out.sort(key=lambda p: (-p["similarity"], p["a"], p["b"]))
    return out
