"""Vectors: the embedder on demand, the vector store (sqlite-vec ``vec0``) and the two searches.

The embedder's model id and dimension are stored in ``meta``; when they change, the ``vec0``
table is dropped and re-made with the new dimension (vectors of two models are never mixed).
Embeddings are cached by (model id, sha256 of the embedded text), so a revert, a rebuild or a
model round trip re-embeds nothing it has seen. Embedding runs outside write transactions, so
other processes are not held up by a slow model or server; an EmbedderError leaves memories
keyword-searchable and is retried later; a text the server refuses (:data:`REFUSED`) is found
by halving its batch and recorded, so it holds up no other memory.

Store: ``vec_items``, a sqlite-vec ``vec0`` table (rowid = ``files.id``, a ``type`` metadata
column, ``embedding float[dims] distance_metric=cosine``), plus ``vector_log`` (id, seq, live):
every change to a vector gets a new ``seq``, so an in-memory copy refreshes only what changed.
A process that cannot load sqlite-vec never touches ``vec_items``; a vector it invalidates is
logged ``live = -1`` and purged by the next process that can.

Two searches with one interface (``top`` and ``similarities``), both exact cosine over the
same float32 vectors:

- :class:`StoredVectors` asks ``vec0`` (brute force in SQLite, the type filter inside the KNN;
  the candidates' cosines come from the embedding cache, which holds the same bytes): nothing
  to load, so it suits one-shot processes (a CLI ``recall``, a prompt hook, ``eval``). Measured
  ~45 ms per KNN at 100k memories, ~5 ms at 10k (``bench/bench_recall.py``).
- :class:`VectorIndex` holds every vector in memory (loaded once, ~1.6 s at 100k) and answers in
  ~4 ms at 100k: for long-running processes (the MCP server), which set
  :attr:`VectorStore.keep_vectors_in_memory`.

A damaged ``vec0`` table (found by a failing or impossibly empty search) is dropped and refilled
from the embedding cache (:meth:`VectorStore.reset_vectors`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import TYPE_CHECKING

from vault_mem.config import TYPE_FOLDERS, EmbedderConfig
from vault_mem.embed.numeric import np
from vault_mem.errors import EmbedderError, EmbedderRefusedInput, IndexStoreError, VaultMemError
from vault_mem.index import db as dbmod
from vault_mem.model import terms
from vault_mem.platform.logs import Logger

if TYPE_CHECKING:
    from vault_mem.index import floor as floormod

log = Logger("vault_mem.index.sidecar")  # logging imported at the first message (start-up time)

DEFAULT: object = object()  # "use embed.registry.get_embedder(config.embedder)" (built on first need)
EMBED_RETRY_S = 60.0  # after an EmbedderError, do not retry filling vectors for this long
#: how long a read or a write makes the vectors still owed, in seconds (:meth:`VectorStore.embed_owed`):
#: the few of a write or a hand edit take well under a second; a first index after a clone or
#: an import of thousands takes minutes, more than an agent's hook may wait. Those left are found
#: by keywords only (a recall says so) and made by the next calls, the daemon or `reindex`
OWED_EMBED_S = 5.0
TOKENIZE_CHUNK = 1000  # texts tokenized at once to order a backlog (:func:`_by_length`)
TYPE_CODES = {t: i for i, t in enumerate(TYPE_FOLDERS)}
VEC_TABLE = "vec_items"
LIVE, DROPPED, STALE = 1, 0, -1  # vector_log.live: stored / gone / gone but still in vec_items

Progress = Callable[[int, int], None]


#: An embedding-cache row with this (empty) vector: the model's server refused the text (HTTP
#: 400/413/422, e.g. over its token limit). Such a text is not sent again to that model and is
#: not owed a vector (found by keywords only); an edited text (a new hash) or another model is
#: tried anew. Every reader of the cache takes only vectors of the model's dimension.
REFUSED = b""
#: ``f`` (a ``files`` row) has no refusal recorded for the model bound to the next ``?``
NOT_REFUSED_SQL = ("NOT EXISTS (SELECT 1 FROM embed_cache r WHERE r.model = ? "
                   "AND r.text_sha256 = f.embed_sha256 AND r.vector = x'')")

WORD_TAG = "vault-mem word v1\x00"  # cache keys of single words (never equal to a document's)


def word_hash(word: str) -> str:
    return hashlib.sha256((WORD_TAG + word).encode("utf-8")).hexdigest()


def int_columns(db, sql: str, params: Sequence = ()) -> list[np.ndarray]:
    """The whole numbers of each ``json_group_array`` of a one-row query, as int64 arrays: one
    row and one JSON text per column to parse, where a row per number cost ~10x as much CPU at
    100k rows."""
    row = db.execute(sql, params).fetchone()
    return [np.array(json.loads(text) if text else [], dtype=np.int64) for text in row]


def _id_list(ids) -> str:
    """A JSON array of ints, for ``rowid IN (SELECT value FROM json_each(?))``."""
    return json.dumps([int(i) for i in ids])


def _by_length(embedder, texts: dict[str, str], known: dict[str, int], *, exact: bool = True,
               tick: Callable[[], None] | None = None) -> list[str]:
    """The keys (text hashes) of ``texts`` ordered by their text's length to the model: its
    token count when it can say (kept in ``known``, so a backlog resumed after an interruption
    is not tokenized again), else characters; ties in the given order. Not ``exact`` (a bounded
    share, :meth:`VectorStore.embed_owed`): characters unless every count is known already, as
    tokenizing a whole backlog costs more than the share (~8 s CPU for 20,000 notes, paid again
    by each one-shot command) and its order matters little to a few batches. ``tick()`` after
    each chunk tokenized: the daemon's progress callback, which hands the loop back to a read
    waiting (tokenizing 20,000 notes held every read ~8 s CPU before the first batch's call)."""
    counts = getattr(embedder, "token_counts", None)
    if not callable(counts) or (not exact and any(h not in known for h in texts)):
        return sorted(texts, key=lambda h: len(texts[h]))
    new = [h for h in texts if h not in known]
    for i in range(0, len(new), TOKENIZE_CHUNK):  # a chunk at a time: a tokenizer's encodings add up
        part = new[i:i + TOKENIZE_CHUNK]
        known.update(zip(part, counts([texts[h] for h in part])))
        if tick is not None:
            tick()
    return sorted(texts, key=known.__getitem__)


#: The most rows one sqlite-vec KNN query returns (its ``k`` limit): asking for more fails
VEC_MAX_K = 4096


class StoredVectors:
    """Vector search straight from the ``vec0`` table: nothing held in memory."""

    #: the most rows :meth:`top` answers at once (callers that need more filter first)
    max_k: int | None = VEC_MAX_K

    def __init__(self, db, model: str | None, dims: int | None) -> None:
        self.db = db
        self.model = model
        self.dims = dims

    def _usable(self, qvec: np.ndarray) -> bool:
        return self.dims is not None and qvec.shape == (self.dims,)

    def similarities(self, qvec: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Cosine of the query with these memories (those that have a vector).

        The vectors are read from the embedding cache, which holds the same float32 bytes as
        ``vec0`` for every stored vector: 100 keyed lookups there take ~1 ms, 100 ``vec0`` point
        lookups ~30 ms at 100k rows (``python bench/bench_sqlite_vec.py``)."""
        if not ids or not self._usable(qvec):
            return {}
        rows = self.db.execute(
            "SELECT f.id, c.vector FROM files f JOIN embed_cache c "
            "ON c.model = f.vec_model AND c.text_sha256 = f.embed_sha256 "
            "WHERE f.id IN (SELECT value FROM json_each(?)) AND f.vec_model = ?",
            (_id_list(ids), self.model)).fetchall()
        rows = [r for r in rows if len(r[1]) == self.dims * 4]  # a server may change dims, not its id
        if not rows:
            return {}
        matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), self.dims)
        return {int(r[0]): float(x) for r, x in zip(rows, matrix @ qvec)}

    def best_of(self, queries: np.ndarray, *, chunk: int = 4096, skip: Collection[int] = ()) -> np.ndarray:
        """Each query row's best cosine over every stored vector but those of the file ids
        ``skip`` (-1 when none): one pass over the table in chunks, for the floor calibration
        (``index/floor.py``)."""
        best = np.full(len(queries), -1.0, dtype=np.float32)
        if self.dims is None or queries.shape[1:] != (self.dims,):
            return best
        cur = self.db.execute(f"SELECT rowid, embedding FROM {VEC_TABLE}")
        while rows := cur.fetchmany(chunk):
            blobs = [r[1] for r in rows if len(r[1]) == self.dims * 4 and r[0] not in skip]
            if blobs:
                m = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), self.dims)
                best = np.maximum(best, (m @ queries.T).max(axis=0))
        return best

    def top(self, qvec: np.ndarray, k: int, *, type: str | None = None,
            allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The ``k`` most similar (file id, cosine), optionally of one type / among ``allowed`` ids.

        A row whose vector went stale in a process without sqlite-vec may come back; callers
        keep only memories whose ``files.vec_model`` is set (see ``search.vector_search``)."""
        if k <= 0 or not self._usable(qvec):
            return []
        sql = f"SELECT rowid, distance FROM {VEC_TABLE} WHERE embedding MATCH ? AND k = ?"
        params: list = [np.asarray(qvec, dtype=np.float32).tobytes(), min(int(k), VEC_MAX_K)]
        if type is not None:
            sql += " AND type = ?"
            params.append(type)
        if allowed is not None:
            if not len(allowed):
                return []
            sql += " AND rowid IN (SELECT value FROM json_each(?))"
            params.append(_id_list(allowed.tolist()))
        rows = [(int(i), 1.0 - float(d)) for i, d in self.db.execute(sql, params)]
        if not rows and type is None and allowed is None and self.db.execute(
                "SELECT 1 FROM vector_log WHERE live = 1 LIMIT 1").fetchone() is not None:
            raise dbmod.errors()[1]("the vector table returned nothing although vectors are stored")
        return rows


class VectorIndex:
    """Every live vector of one model in memory, with a binary-code coarse pass for big vaults.

    The vectors are held once: as float32 rows up to ``EXACT_MAX`` of them (at most ~30 MB at
    384 dimensions), as float16 rows above (``DTYPE``: 77 MB at 100k memories, against 154 MB as
    float32), scored in float32 a block of rows at a time: that picks the candidates (rounding
    moves a cosine by ~1e-4). Exact search reads every row, and numpy turns float16 into float32
    slowly (19 ms for 10k rows of 384 on this machine, against 0.6 ms for the float32 product
    itself), so the rows an exact search reads all of are held as float32. The candidates' cosines that recall
    ranks with come exact from the embedding cache (``exact``, ~1 ms for 100), so a warm process
    ranks exactly as a one-shot one does.

    Loaded lazily on the first vector search and kept fresh cheaply through ``vector_log``: a
    refresh reads only the vectors changed since the last one (one indexed query when nothing
    changed). Any process sees the writes of every other.

    Search is exact up to ``EXACT_MAX`` vectors. Above that, the sign bits of every vector are
    compared first (hamming distance, ~1/32 of the work of a float product) and the best
    ``COARSE_FACTOR * k`` are scored exactly: on MiniLM vectors this keeps >99% of the exact
    top-k (measured on the benchmark's memories), at a fraction of the time.
    """

    #: no cap on the rows :meth:`top` answers (see ``StoredVectors.max_k``)
    max_k: int | None = None
    DTYPE = "float16"  # a name numpy takes wherever a dtype goes: no import at class creation
    #: rows turned into float32 at a time when scoring many (a few MB of scratch, not a copy)
    BLOCK = 8192
    EXACT_MAX = 20_000
    COARSE_FACTOR = 20
    COARSE_MIN = 1000
    #: spare rows kept at the end of the arrays (a share of the rows held, at least MIN_SPARE):
    #: new vectors are written into them, and the arrays are copied only once they are used up.
    #: Copying all vectors for each new one took ~22 ms at 50k memories on every refresh after
    #: a write (np.vstack of the whole matrix), so a warm process paid O(vault) per write.
    SPARE_SHARE = 8
    MIN_SPARE = 1024
    #: a refresh reads up to this many changed vectors (or 2% of the index) one by one
    POINT_LOOKUPS = 64

    def __init__(self) -> None:
        self.model: str | None = None
        self.epoch: str | None = None
        self.seq = -1
        # The searched arrays (ids, types, matrix, codes, alive) are views of the first rows of
        # ``_buffers`` (same order); made empty at their first read (see __getattr__).
        self.pos: dict[int, int] = {}
        self._buffers: tuple[np.ndarray, ...] | None = None
        #: where :meth:`similarities` reads exact float32 cosines (set by VectorStore.vector_index)
        self.exact: StoredVectors | None = None

    def __getattr__(self, name: str):
        # called only for an attribute not set yet: the arrays start empty at their first read,
        # so that opening a sidecar (a one-shot write, get, list) does not import numpy
        if name not in ("ids", "types", "matrix", "codes", "alive"):
            raise AttributeError(name)
        self.ids = np.empty(0, dtype=np.int64)
        self.types = np.empty(0, dtype=np.int8)  # index into TYPE_CODES
        self.matrix = np.empty((0, 0), dtype=self.DTYPE)
        self.codes = np.empty((0, 0), dtype=np.uint8)
        self.alive = np.empty(0, dtype=bool)
        return getattr(self, name)

    @property
    def capacity(self) -> int:
        """Rows the arrays can hold before the next new vector makes them be copied."""
        return len(self._buffers[0]) if self._buffers is not None else len(self.ids)

    def _views(self) -> tuple[np.ndarray, ...]:
        return self.ids, self.types, self.matrix, self.codes, self.alive

    def _capacity(self, n: int) -> int:
        """Rows to make room for when ``n`` must fit: spare rows beyond them, but never past
        ``EXACT_MAX`` while ``n`` is within it (float32 rows: a spare row must not turn an
        exact search's rows into float16, see the class)."""
        cap = n + max(self.MIN_SPARE, n // self.SPARE_SHARE)
        return min(cap, self.EXACT_MAX) if n <= self.EXACT_MAX else cap

    def _dtype(self, cap: int) -> str:
        """The type of the rows for arrays of ``cap`` rows (see the class)."""
        return "float32" if cap <= self.EXACT_MAX else self.DTYPE

    def _append(self, ids: np.ndarray, types: np.ndarray, block: np.ndarray) -> None:
        """Add rows at the end, into the spare rows when they suffice (no copy of the rest)."""
        n, k = len(self.ids), len(ids)
        bufs = self._buffers
        grow = bufs is None or len(bufs[0]) < n + k or any(v.base is not b for v, b in zip(self._views(), bufs)) \
            or bufs[2].shape[1:] != block.shape[1:]
        cap = self._capacity(n + k) if grow else len(bufs[0])
        new = (ids, types, block.astype(self._dtype(cap)), np.packbits(block > 0, axis=1), np.ones(k, dtype=bool))
        if grow:
            bufs = tuple(np.empty((cap, *a.shape[1:]), dtype=a.dtype) for a in new)
            if n:
                for buf, old in zip(bufs, self._views()):
                    buf[:n] = old
            self._buffers = bufs
        for buf, rows in zip(bufs, new):
            buf[n:n + k] = rows
        self.ids, self.types, self.matrix, self.codes, self.alive = (b[:n + k] for b in bufs)
        for i, fid in enumerate(ids.tolist()):
            self.pos[fid] = n + i

    def refresh(self, db, model: str, epoch: str | None) -> None:
        if model != self.model or epoch != self.epoch:
            self.__init__()  # type: ignore[misc]
            self.model, self.epoch = model, epoch
        with db.snapshot():  # one snapshot for the log and the vectors
            self._refresh(db)

    def _refresh(self, db) -> None:
        top = db.execute("SELECT max(seq) FROM vector_log").fetchone()[0]
        top = -1 if top is None else top
        if top == self.seq:
            return
        if self.seq == -1:
            # the first load: the live ids as one array (a dict of every log row took ~0.2 s
            # of CPU at 100k memories, a fifth of the load)
            self._load_all(db, int_columns(db, "SELECT json_group_array(id) FROM vector_log WHERE live = ?", (LIVE,))[0])
            self.seq = top
            return
        changed = dict(db.execute("SELECT id, live FROM vector_log WHERE seq > ? ORDER BY seq", (self.seq,)).fetchall())
        live = [i for i, state in changed.items() if state == LIVE]
        if len(live) > max(self.POINT_LOOKUPS, len(self.ids) // 50):
            # many changes: one pass over the table beats a lookup per row
            stored = {r[0]: (r[1], r[2]) for r in db.execute(f"SELECT rowid, embedding, type FROM {VEC_TABLE}")
                      if changed.get(r[0]) == LIVE}
        else:
            # `rowid = ?` is a point lookup in vec0; `rowid IN (...)` would scan every vector
            # (9 ms at 50k memories for one changed row, on every refresh after a write)
            stored = {}
            for fid in live:
                r = db.execute(f"SELECT rowid, embedding, type FROM {VEC_TABLE} WHERE rowid = ?", (fid,)).fetchone()
                if r is not None:
                    stored[r[0]] = (r[1], r[2])
        fresh = {fid: stored.get(fid, (None, None)) for fid in changed}
        dims = self.matrix.shape[1] if len(self.ids) else None
        add_ids, add_vecs, add_types = [], [], []
        for fid, (blob, type_) in fresh.items():
            p = self.pos.get(fid)
            if blob is None or (dims is not None and len(blob) != dims * 4):
                if p is not None:
                    self.alive[p] = False
                continue
            if p is not None:
                vec = np.frombuffer(blob, dtype=np.float32)
                self.matrix[p] = vec
                self.codes[p] = np.packbits(vec > 0)
                self.types[p] = TYPE_CODES.get(type_, -1)
                self.alive[p] = True
            else:
                dims = dims or len(blob) // 4
                add_ids.append(fid)
                add_vecs.append(blob)
                add_types.append(TYPE_CODES.get(type_, -1))
        if add_ids:
            block = np.frombuffer(b"".join(add_vecs), dtype=np.float32).reshape(len(add_ids), dims)
            self._append(np.array(add_ids, dtype=np.int64), np.array(add_types, dtype=np.int8), block)
        self.seq = top

    def _load_all(self, db, live: np.ndarray) -> None:
        """The first load: every live vector, straight into arrays made once for them all (plus
        the spare rows), a chunk at a time: the vectors are held once (154 MB of float32 and
        4.8 MB of sign bits at 100k memories). Reading every row into Python first and then
        copying it into arrays held them three times over at the peak, and took seconds.

        The rows are read from sqlite-vec's own chunks when the table has the layout of the
        version this was written against (0.1.x: ~0.4 s at 100k against ~2.5 s row by row
        through ``vec0``), checked against ``vector_log`` and a sample of point lookups;
        otherwise, or when a check fails, row by row through ``vec0``. ``live``: the ids of the
        vectors to load (distinct)."""
        if not len(live):
            return
        n = len(live)
        cap = self._capacity(n)
        try:
            done = self._load_chunks(db, live, cap)
        except (ValueError, KeyError, IndexError, dbmod.database_error()) as exc:
            log.info("vault-mem: reading the vector chunks failed (%s); reading the vectors row by row", exc)
            done = None
        if done is None:
            self.__init__()  # type: ignore[misc]  # what the chunk read left
            done = self._load_rows(db, set(live.tolist()), cap)
        if done < n:
            raise dbmod.errors()[1](f"the vector table holds {done} of {n} logged vectors")
        self.ids, self.types, self.matrix, self.codes, self.alive = (b[:done] for b in self._buffers)
        self._buffers[4][:done] = True
        self.pos = dict(zip(self.ids.tolist(), range(done)))

    def _arrays(self, cap: int, dims: int) -> tuple[np.ndarray, ...]:
        self._buffers = (np.empty(cap, dtype=np.int64), np.empty(cap, dtype=np.int8),
                         np.empty((cap, dims), dtype=self._dtype(cap)),  # pages are touched as rows land
                         np.empty((cap, (dims + 7) // 8), dtype=np.uint8), np.zeros(cap, dtype=bool))
        return self._buffers

    def _load_chunks(self, db, live: np.ndarray, cap: int) -> int | None:
        """Read sqlite-vec 0.1's chunk tables (a validity bitmap, the rowids and the vectors of
        up to 1024 rows per row of SQLite); None when the layout is not that one."""
        info = dict(db.execute(f"SELECT key, value FROM {VEC_TABLE}_info"))
        if (info.get("CREATE_VERSION_MAJOR"), info.get("CREATE_VERSION_MINOR")) != (0, 1):
            return None
        # each memory's type as its code (files.type_rank numbers the types as TYPE_CODES does),
        # and whether its vector is wanted, both looked up by id
        ranked, ranks = int_columns(db, "SELECT json_group_array(id), json_group_array(type_rank) FROM files "
                                        "WHERE vec_model IS NOT NULL")  # one pass: the two in one order
        size_of = int(max(ranked.max(initial=0), live.max(initial=0))) + 1
        type_of = np.full(size_of, -1, dtype=np.int8)
        if len(ranked) == len(ranks):
            type_of[ranked] = ranks
        wanted = np.zeros(size_of, dtype=bool)
        wanted[live] = True
        bufs = None
        done = 0
        # the small table first, then the vectors in their table's own order: a join of the two
        # made SQLite sort every vector blob in memory first (+160 MB, seconds)
        chunks = {r[0]: (r[1], r[2], r[3]) for r in db.execute(
            f"SELECT chunk_id, size, validity, rowids FROM {VEC_TABLE}_chunks")}
        for chunk_id, vectors in db.execute(f"SELECT rowid, vectors FROM {VEC_TABLE}_vector_chunks00"):
            if chunk_id not in chunks:
                continue
            size, validity, rowids = chunks[chunk_id]
            ids = np.frombuffer(rowids, dtype=np.int64)
            if len(ids) < size or len(validity) * 8 < size:
                return None
            ids = ids[:size]
            dims = len(vectors) // 4 // size
            if dims * 4 * size != len(vectors):
                return None
            valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
            keep = valid & (ids >= 0) & (ids < size_of)
            keep[keep] = wanted[ids[keep]]
            # an id in two chunks is taken from the first only; twice in one chunk it is taken
            # twice, and the count of rows (done != live, below) sends the load to the row reader
            wanted[ids[keep]] = False
            k = int(keep.sum())
            if not k:
                continue
            if bufs is None:
                bufs = self._arrays(cap, dims)
            if bufs[2].shape[1] != dims or done + k > cap:
                return None
            block = np.frombuffer(vectors, dtype=np.float32).reshape(size, dims)
            kept_ids = ids
            if k < size:  # a full chunk (the usual one) is taken as it is, not copied first
                block, kept_ids = block[keep], ids[keep]
            bufs[2][done:done + k] = block
            bufs[3][done:done + k] = np.packbits(block > 0, axis=1)
            bufs[0][done:done + k] = kept_ids
            bufs[1][done:done + k] = type_of[kept_ids]
            done += k
        if bufs is None or done != len(live) or wanted.any():
            return None
        for p in np.linspace(0, done - 1, num=min(done, 8)).astype(int).tolist():  # the layout is as read
            row = db.execute(f"SELECT embedding FROM {VEC_TABLE} WHERE rowid = ?", (int(bufs[0][p]),)).fetchone()
            if row is None or not np.array_equal(np.frombuffer(row[0], dtype=np.float32).astype(bufs[2].dtype), bufs[2][p]):
                return None
        return done

    def _load_rows(self, db, live: set[int], cap: int, chunk: int = 2048) -> int:
        """Every live vector row by row through ``vec0`` (any sqlite-vec version)."""
        bufs = None
        dims = done = 0
        cur = db.execute(f"SELECT rowid, type, embedding FROM {VEC_TABLE}")
        while rows := cur.fetchmany(chunk):
            if bufs is None:
                dims = len(rows[0][2]) // 4
                bufs = self._arrays(cap, dims)
            rows = [r for r in rows if r[0] in live and len(r[2]) == dims * 4]
            k = len(rows)
            if not k:
                continue
            block = np.frombuffer(b"".join([r[2] for r in rows]), dtype=np.float32).reshape(k, dims)
            bufs[2][done:done + k] = block
            bufs[3][done:done + k] = np.packbits(block > 0, axis=1)
            bufs[0][done:done + k] = [r[0] for r in rows]
            bufs[1][done:done + k] = [TYPE_CODES.get(r[1], -1) for r in rows]
            done += k
        if bufs is None:
            self._arrays(cap, 0)
        return done

    def _scores(self, q: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """float32 products of the held rows (all, or those at ``rows``) with ``q`` (a vector,
        or queries as columns), a block of rows at a time."""
        q = np.asarray(q, dtype=np.float32)
        n = len(self.ids) if rows is None else len(rows)
        out = np.empty((n, *q.shape[1:]), dtype=np.float32)
        for start in range(0, n, self.BLOCK):
            part = self.matrix[start:start + self.BLOCK] if rows is None else self.matrix[rows[start:start + self.BLOCK]]
            out[start:start + len(part)] = part.astype(np.float32, copy=False) @ q
        return out

    def best_of(self, queries: np.ndarray, *, skip: Collection[int] = ()) -> np.ndarray:
        """Each query row's best cosine over the live vectors but those of the file ids ``skip``
        (-1 when none)."""
        rows = np.flatnonzero(self.alive) if len(self.ids) else np.empty(0, dtype=np.int64)
        if skip and len(rows):
            rows = rows[~np.isin(self.ids[rows], np.fromiter(skip, dtype=np.int64, count=len(skip)))]
        if not len(rows) or self.matrix.shape[1] != queries.shape[1]:
            return np.full(len(queries), -1.0, dtype=np.float32)
        return self._scores(queries.T, rows).max(axis=0)

    def similarities(self, qvec: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Cosine of the query with these memories (those that have a vector)."""
        rows = [(i, p) for i in ids if (p := self.pos.get(i)) is not None and self.alive[p]]
        if not rows or self.matrix.shape[1] != qvec.shape[0]:
            return {}
        if self.exact is not None:
            exact = self.exact.similarities(qvec, [i for i, _ in rows])
            if len(exact) == len(rows):
                return exact
        sims = self._scores(qvec, np.array([p for _, p in rows], dtype=np.int64))
        return {i: float(x) for (i, _), x in zip(rows, sims)}

    def top(self, qvec: np.ndarray, k: int, *, type: str | None = None,
            allowed: np.ndarray | None = None) -> list[tuple[int, float]]:
        """The ``k`` most similar (file id, cosine), optionally of one type / among ``allowed`` ids."""
        if not len(self.ids) or self.matrix.shape[1] != qvec.shape[0]:
            return []
        mask = self.alive
        if type is not None:
            mask = mask & (self.types == TYPE_CODES.get(type, -2))
        if allowed is not None:  # O(len(allowed)), not O(vault)
            keep = np.zeros(len(self.ids), dtype=bool)
            keep[[p for i in allowed.tolist() if (p := self.pos.get(i)) is not None]] = True
            mask = mask & keep
        n = int(mask.sum())
        k = min(k, n)
        if k <= 0:
            return []
        if n > self.EXACT_MAX:
            qwords = np.packbits(qvec > 0).view(np.uint64)
            # bits that differ, one 64-bit word of every row at a time into scratch arrays of
            # one row each, summed as they come: xor-ing and counting the whole (rows x 6)
            # array, then adding its columns, cost 2.4-2.9 ms of CPU at 100k vectors, this 1.6-2.1
            codes = self.codes.view(np.uint64)
            dist = np.zeros(len(codes), dtype=np.int32)  # int32 as before: the same ties at the cut
            differ = np.empty(len(codes), dtype=np.uint64)
            count = np.empty(len(codes), dtype=np.uint8)
            for j in range(codes.shape[1]):
                np.bitwise_xor(codes[:, j], qwords[j], out=differ)
                dist += np.bitwise_count(differ, out=count)
            dist[~mask] = np.iinfo(np.int32).max
            r = min(max(self.COARSE_FACTOR * k, self.COARSE_MIN), n)
            cand = np.argpartition(dist, r - 1)[:r]
        elif n == len(self.ids):
            cand = None  # everything: no copy of the matrix
        else:
            cand = np.flatnonzero(mask)
        sims = self._scores(qvec, cand)
        best = np.argpartition(-sims, k - 1)[:k]
        best = best[np.argsort(-sims[best], kind="stable")]
        rows = best if cand is None else cand[best]
        return [(int(self.ids[r]), float(sims[i])) for r, i in zip(rows, best)]


class VectorStore:
    """The sidecar's vector half (``Sidecar.vectors``): the embedder, built on first need; the
    ``vec0`` table, its log and the embedding cache; the two searches; the relevance floor's
    calibration and the answer check's word vectors.

    It is given what it uses and nothing else: the sidecar's database connection (the vector
    tables, ``embed_cache``, the vector columns of ``files`` and the vector entries of ``meta``),
    the embedder settings of ``vault.toml`` and its ``[recall] min_similarity``, and the embedder
    itself when one is passed in (``DEFAULT``: built from the settings on first need; None: no
    vectors). The sidecar calls it where one of its own operations touches vectors (reconcile
    drops and makes them, a rebuild resets them, ``doctor`` checks them)."""

    def __init__(self, db: dbmod.Database, settings: EmbedderConfig, *, min_similarity: float | None = None,
                 embedder: object = DEFAULT) -> None:
        self.db = db
        self.settings = settings
        #: ``[recall] min_similarity``: the floor's cosine bar, over any calibration (:meth:`relevance_floor`)
        self.min_similarity = min_similarity
        self._embedder_arg = embedder
        self._embedder = None
        self._embedder_ready = False
        #: held while the embedder is built (:meth:`_get_embedder`): it may be built on the model's
        #: load thread (:meth:`begin_model_load`) while the caller's thread asks for it
        self._embedder_lock = threading.Lock()
        self._embedder_reason: str | None = None
        self._embed_retry_at = 0.0
        self._share = threading.local()  # owed_share's [deadline, a batch made], per thread
        self._vindex = VectorIndex()
        self._calibration_cache: dict = {}
        #: the paths of the memories whose vectors the floor's calibration leaves out: those
        #: whose authors are not trusted here (the vault sets it; see :meth:`calibration`)
        self.uncounted: Callable[[], Collection[str]] | None = None
        #: what :attr:`uncounted` is judged under (the approvals here), stored with a calibration:
        #: another makes it due
        self.uncounted_key: Callable[[], str] | None = None
        self._keep_vectors_in_memory = False
        #: set while a long-lived process loads its model and vectors in the background: recall is
        #: keyword-only meanwhile and says so with this reason (see :meth:`vectors_reason`)
        self.warming: str | None = None
        #: :meth:`begin_model_load` has begun the embedder's load (its thread is not begun again)
        self._model_load_begun = False
        #: an index loaded by :meth:`preload_vectors` on another thread, adopted by the next search
        self._preloaded: VectorIndex | None = None
        #: set while that load runs (a long-lived process's start-up): searches read the ``vec0``
        #: table meanwhile, as a one-shot process does, instead of loading a copy of their own
        self.vectors_loading = False
        #: (model, token count by text hash) of the texts still waiting for a vector: a daemon's
        #: embedding, interrupted by new events and resumed, does not tokenize its backlog again
        self._token_counts: tuple[str, dict[str, int]] | None = None

    @property
    def keep_vectors_in_memory(self) -> bool:
        """Search vectors in memory (loaded once, fastest per query: long-running processes)
        instead of in the ``vec0`` table (nothing to load: one-shot processes)."""
        return self._keep_vectors_in_memory

    @keep_vectors_in_memory.setter
    def keep_vectors_in_memory(self, value: bool) -> None:
        self._keep_vectors_in_memory = bool(value)
        # The memory map of the file pays off for vec0's scan of every vector; with the vectors
        # held in memory the rest are point reads and keyword lookups, and a long-lived process
        # would keep every page it ever mapped in its resident memory (~140 MB at 100k memories).
        self.db.map_file(not value)

    def reconnect(self, db: dbmod.Database) -> None:
        """Work on ``db`` from now on: the sidecar's new connection after its file was repaired
        (moved aside and made anew). The embedder stays; the in-memory index and the floor's
        calibrations are dropped (they were of the old file)."""
        self.db = db
        self.keep_vectors_in_memory = self._keep_vectors_in_memory  # its memory map setting
        self._vindex = VectorIndex()
        self._calibration_cache = {}

    def _get_embedder(self):
        """The embedder, built on first need; None (with a reason) when there is none. Built once,
        under a lock: another thread asking meanwhile waits for it rather than see none."""
        if self._embedder_ready:
            return self._embedder
        with self._embedder_lock:
            if not self._embedder_ready:
                self._build_embedder()
                self._embedder_ready = True
        return self._embedder

    def _build_embedder(self) -> None:
        if self._embedder_arg is not DEFAULT:
            self._embedder = self._embedder_arg
            if self._embedder is None:
                self._embedder_reason = "embedder is 'none'"
            return
        if self.settings.provider == "none":
            self._embedder_reason = "embedder is 'none' (vault.toml [embedder] provider)"
            return
        try:
            # lazy: the providers pull in httpx and the model runtime, which list, get, INDEX.md
            # and a keyword-only vault never need (a lower layer: no cycle is dodged here)
            from vault_mem.embed.registry import get_embedder

            self._embedder = get_embedder(self.settings)
            if self._embedder is None:
                self._embedder_reason = "embedder is 'none'"
        except (VaultMemError, ImportError, AttributeError, OSError) as exc:
            self._embedder = None
            self._embedder_reason = f"embedder unavailable: {exc}"
            log.warning("vault-mem: %s; recall uses keywords only", self._embedder_reason)

    def _embedder_expected(self) -> bool:
        """Whether there is (or will be, once built) an embedder, told without building one:
        building the local one imports numpy and the model's runtime (~70 ms of CPU holding
        the interpreter's lock), which :meth:`begin_model_load` leaves to its thread."""
        if self._embedder_ready:
            return self._embedder is not None
        if self._embedder_arg is not DEFAULT:
            return self._embedder_arg is not None
        return self.settings.provider != "none"

    def get_embedder(self):
        """The embedder, built on first need; None when there is none (:meth:`vectors_reason`
        says why). What recall embeds its query with."""
        return self._get_embedder()

    def begin_model_load(self) -> None:
        """Begin building the embedder and loading its model on a thread (a one-shot recall:
        while its reconcile stats the files, issue 29), when recall would use it. The build is
        the thread's too: the local one imports numpy and onnxruntime, which the caller's
        thread would otherwise pay before its reconcile began (its wait for GNU find is outside
        the interpreter's lock). A failure there is dropped: the first embed meets it again on
        its caller's thread, as without this (a build's failure is kept: the embedder is
        none, with its reason, as when built there). Once per store: a load is once per process."""
        if (self._model_load_begun or self.warming is not None or not self.db.vec_ok
                or not self._embedder_expected()):
            return
        self._model_load_begun = True

        def run() -> None:
            try:
                load = getattr(self._get_embedder(), "load", None)
                if load is not None:
                    load()
            except Exception:  # noqa: BLE001 - met again by the first embed (docstring)
                pass

        threading.Thread(target=run, name="vault-mem-model", daemon=True).start()

    def vectors_reason(self) -> str | None:
        """Why recall would be keyword-only right now (None when vectors are on)."""
        if self.warming is not None:
            return self.warming
        if not self.db.vec_ok:
            return self.db.vec_reason
        if self._get_embedder() is None:
            return self._embedder_reason or "embedder is 'none'"
        return None

    def _ensure_vec_model(self, embedder) -> None:
        """Record the embedder's model; on a change drop every vector first (never mix models)."""
        model, dims = str(embedder.model_id), int(embedder.dimensions)
        if self.db.get_meta("vec_model") == model and self.db.get_meta("vec_dims") == str(dims):
            return
        with self.db.write():
            if self.db.get_meta("vec_model") == model and self.db.get_meta("vec_dims") == str(dims):
                return
            old = self.db.get_meta("vec_model")
            if old is not None and old != model:
                log.info("embedder changed from %s to %s: re-embedding every memory", old, model)
            if self._has_table(VEC_TABLE):
                self._drop_vec_table()
            self.db.execute(f"CREATE VIRTUAL TABLE {VEC_TABLE} USING vec0("
                            f"type text, embedding float[{dims}] distance_metric=cosine)")
            self.db.execute("DELETE FROM vector_log")
            self.db.execute("UPDATE files SET vec_model = NULL WHERE vec_model IS NOT NULL")
            self.db.set_meta("vec_model", model)
            self.db.set_meta("vec_dims", str(dims))
            self.new_epoch()

    def new_epoch(self) -> None:
        """Tell every process's in-memory vector index to reload from scratch."""
        self.db.set_meta("vec_epoch", f"{time.time_ns()}-{os.getpid()}")

    def _next_seq(self) -> int:
        top = self.db.execute("SELECT max(seq) FROM vector_log").fetchone()[0]
        return 0 if top is None else top + 1

    def vector_index(self) -> VectorIndex | StoredVectors:
        """The vector search to use: the in-memory index (refreshed from the db) when this
        process keeps vectors in memory (unless its first copy is still loading on another
        thread: :attr:`vectors_loading`), else straight from the ``vec0`` table."""
        if self.keep_vectors_in_memory and not (self.vectors_loading and self._preloaded is None
                                                 and self._vindex.seq == -1):
            if self._preloaded is not None:
                self._vindex, self._preloaded = self._preloaded, None
            if self._vindex.seq == -1 and (problem := self.vector_table_problem()):
                raise dbmod.errors()[1](problem)  # found at the first load: the caller remakes the table
            model, dims = self.db.get_meta("vec_model") or "", self.db.get_meta("vec_dims")
            self._vindex.refresh(self.db, model, self.db.get_meta("vec_epoch"))
            self._vindex.exact = StoredVectors(self.db, model, int(dims)) if dims else None
            return self._vindex
        dims = self.db.get_meta("vec_dims")
        if dims and not self._has_table(VEC_TABLE):
            raise dbmod.errors()[1](f"the vector table {VEC_TABLE} is missing")
        return StoredVectors(self.db, self.db.get_meta("vec_model"), int(dims) if dims else None)

    def preload_vectors(self) -> float:
        """Load the in-memory vector index now, on a connection of its own: safe on another
        thread while this sidecar answers reads on its own connection. The next vector search
        adopts it (and refreshes it with what changed meanwhile). Returns the seconds it took."""
        t0 = time.perf_counter()
        db = dbmod.connect(self.db.path, made_for=self.db.made_for)  # the same file's check
        try:
            # read once: through SQLite's small cache, not a map of the file (mapped pages would
            # count in this process's peak memory on top of the arrays being filled)
            db.execute("PRAGMA mmap_size = 0")
            meta = dict(db.execute("SELECT name, value FROM meta WHERE name IN ('vec_model', 'vec_epoch', 'vec_dims')"))
            index = VectorIndex()
            if meta.get("vec_dims") and db.vec_loaded and db.execute(
                    "SELECT 1 FROM sqlite_master WHERE name = ?", (VEC_TABLE,)).fetchone() is not None:
                index.refresh(db, meta.get("vec_model") or "", meta.get("vec_epoch"))
        finally:
            db.close()
        if index.seq != -1:
            self._preloaded = index
        return time.perf_counter() - t0

    def drop_vectors_for_rebuild(self, kept_sql: str) -> None:
        """A rebuild's vectors: with sqlite-vec at hand the table is made anew (and refilled from
        the cache); without it, every vector but those of the file ids ``kept_sql`` selects is
        marked for the next process that can delete it. The texts an embedder refused are asked
        again (:data:`REFUSED`: its server's limit may have been raised since, under the same model id)."""
        self.db.execute("DELETE FROM embed_cache WHERE vector = ?", (REFUSED,))
        if self.db.vec_loaded:
            self.reset_vectors()
        else:
            self.db.execute(f"UPDATE vector_log SET live = ? WHERE live = ? AND id NOT IN ({kept_sql})", (STALE, LIVE))
            self.db.execute(f"DELETE FROM vector_log WHERE live = ? AND id NOT IN ({kept_sql})", (DROPPED,))

    def reset_vectors(self, damage: str | None = None) -> None:
        """Drop the vector table and its log, so the next :meth:`embed_pending` makes them anew
        from the embedding cache (nothing embedded before is embedded again). For a rebuild,
        and to repair a damaged table (``damage`` says what failed; it is logged).

        Only possible where sqlite-vec loads (it owns the table)."""
        if damage:
            log.warning("vault-mem: the vector table is damaged (%s); rebuilding it from the embedding cache", damage)
        with self.db.write():
            if self._has_table(VEC_TABLE):
                self._drop_vec_table()
            self.db.execute("DELETE FROM vector_log")
            self.db.execute("UPDATE files SET vec_model = NULL WHERE vec_model IS NOT NULL")
            self.db.execute("DELETE FROM meta WHERE name IN ('vec_model', 'vec_dims', 'embedder_fingerprint')")
            self.new_epoch()

    def _drop_vec_table(self) -> None:
        """DROP the vec0 table. When sqlite-vec cannot (one of its shadow tables is gone), take
        the table out of the schema by hand and drop what is left of it."""
        db_error = dbmod.database_error()
        try:
            self.db.execute(f"DROP TABLE {VEC_TABLE}")
            return
        except db_error as exc:
            log.warning("vault-mem: sqlite-vec cannot drop its damaged table (%s); removing it by hand", exc)
        try:
            self.db.execute("PRAGMA writable_schema = ON")
            try:
                self.db.execute("DELETE FROM sqlite_master WHERE type = 'table' AND name = ?", (VEC_TABLE,))
            finally:
                self.db.execute("PRAGMA writable_schema = OFF")
            self.db.execute("PRAGMA writable_schema = RESET")
            shadows = [r[0] for r in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, ?) = ?",
                (len(VEC_TABLE) + 1, VEC_TABLE + "_"))]
            for name in shadows:
                self.db.execute(f'DROP TABLE "{name}"')
        except db_error as exc:
            raise IndexStoreError(
                f"the vector table in {self.db.path} is damaged beyond repair ({exc}); delete that file "
                "(it is rebuilt from the memory files)") from exc

    def vector_table_problem(self) -> str | None:
        """Why the vector table cannot be searched (found by a one-row probe query), or None."""
        dims = self.db.get_meta("vec_dims")
        if not self.db.vec_loaded or not dims or not self._has_table(VEC_TABLE):
            return None
        probe = np.zeros(int(dims), dtype=np.float32)
        probe[0] = 1.0
        try:
            StoredVectors(self.db, self.db.get_meta("vec_model"), int(dims)).top(probe, 1)
        except dbmod.database_error() as exc:
            return f"the sqlite-vec table cannot be searched ({exc}); `vault-mem reindex` rebuilds it"
        return None

    def purge_stale_vectors(self) -> int:
        """Delete the ``vec0`` rows that a process without sqlite-vec could only mark stale."""
        if not self.db.vec_loaded or self.db.execute(
                "SELECT 1 FROM vector_log WHERE live = ? LIMIT 1", (STALE,)).fetchone() is None:
            return 0  # the usual case, on every recall: one indexed lookup
        if not self._has_table(VEC_TABLE):
            return 0
        with self.db.write():
            stale = [r[0] for r in self.db.execute("SELECT id FROM vector_log WHERE live = ?", (STALE,))]
            self.db.executemany(f"DELETE FROM {VEC_TABLE} WHERE rowid = ?", [(i,) for i in stale])
            self.db.execute("UPDATE vector_log SET live = ? WHERE live = ?", (DROPPED, STALE))
        return len(stale)

    def _has_table(self, name: str) -> bool:
        return self.db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None

    def vectors_missing(self, filters=None) -> int:
        """How many usable memories have no vector (yet): found by keywords only; with
        ``filters`` (:class:`~vault_mem.index.search.Filters`), only those a search so restricted
        could find (memories of another type or tag waiting for theirs downgrade no recall).
        Memories whose text the embedder refused (:data:`REFUSED`) are not owed one: counted by
        :meth:`vectors_refused` instead, as no later call would make theirs."""
        where, params = filters.sql() if filters is not None else ("f.usable = 1", [])
        return self.db.execute(f"SELECT count(*) FROM files AS f WHERE {where} AND f.vec_model IS NULL "
                               f"AND {NOT_REFUSED_SQL}", [*params, self.db.get_meta("vec_model") or ""]).fetchone()[0]

    def refused_notice(self) -> str | None:
        """What `vault-mem doctor` warns of memories the embedder refused (None if none): no
        drift (a rebuild refuses them again), but what the person can change."""
        refused = self.vectors_refused()
        if not refused:
            return None
        return (f"vectors: the embedder {self.db.get_meta('vec_model')} refused the text of {refused} "
                f"{'memory' if refused == 1 else 'memories'} (too long for its model, most often): found by "
                "keywords only; give them a shorter body, or use an embedder that takes them ([embedder] in vault.toml; "
                "after raising its server's input limit, `vault-mem reindex` asks it again)")

    def vectors_refused(self) -> int:
        """How many usable memories have no vector because the current model's server refused
        their text (:data:`REFUSED`): found by keywords only until edited or another embedder."""
        model = self.db.get_meta("vec_model")
        if not model:
            return 0
        return self.db.execute("SELECT count(*) FROM files AS f WHERE f.usable = 1 AND f.vec_model IS NULL "
                               f"AND NOT {NOT_REFUSED_SQL}", (model,)).fetchone()[0]

    def embed_pending(self, *, progress: Progress | None = None, until: float | None = None) -> int:
        """Give every usable memory without a vector one (cache first, then the embedder);
        ``until``: a ``time.monotonic()`` after which no further batch goes to the embedder
        (those left stay keyword-only, for a later call; one batch is always made).

        Returns how many rows got a vector. An EmbedderError leaves the rest keyword-searchable,
        is logged, and is retried by a later call (not before ``EMBED_RETRY_S``). A damaged
        vector table is rebuilt from the embedding cache (:meth:`reset_vectors`).
        """
        try:
            return self._embed_pending(progress=progress, until=until)
        except dbmod.database_error() as exc:
            self._repair_vectors(exc, "storing vectors")
            return self._embed_pending(progress=progress, until=until)

    def embed_owed(self, *, progress: Progress | None = None) -> int:
        """:meth:`embed_pending` for at most :data:`OWED_EMBED_S` (after its first batch): what a
        recall, a write or a read's reconcile makes on the way. ``reindex`` and the daemon make
        them all. Within :meth:`owed_share`, every call shares one such time (and one first
        batch): nothing once it is spent."""
        share = getattr(self._share, "value", None)
        if share is not None and share[1] and time.monotonic() >= share[0]:
            return 0
        until = time.monotonic() + OWED_EMBED_S if share is None else share[0]
        if share is not None:
            share[1] = True
        try:
            return self.embed_pending(progress=progress, until=until)
        except (IndexStoreError, *dbmod.errors()) as exc:
            # a cache a read or a write fills on its way: another process's lock still held after
            # the busy timeout gives it up (the rows stay owed, found by their words meanwhile, made
            # by a later call), as the read's other derived state is (Database.write's give_up)
            if not dbmod.is_busy(exc):
                raise
            log.info("vault-mem: vectors owed stay owed: %s", exc)
            return 0

    @contextlib.contextmanager
    def owed_share(self) -> Iterator[None]:
        """The calls to :meth:`embed_owed` made inside (on this thread) share one bounded time:
        one read's (a recall reconciles, then searches; each made a share of its own)."""
        if getattr(self._share, "value", None) is not None:  # an outer share holds
            yield
            return
        self._share.value = [time.monotonic() + OWED_EMBED_S, False]
        try:
            yield
        finally:
            self._share.value = None

    def search_vectors(self, qvec: np.ndarray, filters) -> tuple[VectorIndex | StoredVectors, list[tuple[int, float]]]:
        """(the vector search used, :func:`vault_mem.index.search.vector_search`'s hits with it),
        repairing a damaged vector table once (from the cache) if the search fails on it."""
        from vault_mem.index.search import vector_search  # lazy: a write imports no search

        try:
            index = self.vector_index()
            return index, vector_search(self.db, qvec, filters, index=index)
        except dbmod.database_error() as exc:
            self._repair_vectors(exc, "searching vectors")
            self.embed_pending()
            index = self.vector_index()
            return index, vector_search(self.db, qvec, filters, index=index)

    def _repair_vectors(self, exc: BaseException, what: str) -> None:
        """Remake the vector table after ``what`` failed on it; re-raise what a reset cannot fix:
        a lock held elsewhere, a damaged file (Sidecar moves it aside), no sqlite-vec here."""
        if dbmod.is_busy(exc) or dbmod.is_damage(exc) or not self.db.vec_loaded:
            raise exc
        self.reset_vectors(f"{what} failed: {exc}")

    def _embed_pending(self, *, progress: Progress | None, until: float | None = None) -> int:
        if not self.db.vec_ok:
            return 0
        self.purge_stale_vectors()
        if self.db.execute(f"SELECT 1 FROM files AS f WHERE f.usable = 1 AND f.vec_model IS NULL AND {NOT_REFUSED_SQL} "
                           "LIMIT 1", (self.db.get_meta("vec_model") or "",)).fetchone() is None \
                and self._vec_model_matches():
            return 0
        if time.monotonic() < self._embed_retry_at:
            return 0
        embedder = self._get_embedder()
        if embedder is None:
            return 0
        try:
            self._ensure_vec_model(embedder)  # an HTTP embedder may ask its server for the dimension
        except EmbedderError as exc:
            self._embed_retry_at = time.monotonic() + EMBED_RETRY_S
            log.warning("vault-mem: embedder unavailable (%s); memories stay keyword-only until it is back", exc)
            return 0
        model = str(embedder.model_id)
        rows = self.db.execute(
            "SELECT id, type, description, body, sort_date, embed_sha256 FROM files AS f "
            f"WHERE usable = 1 AND vec_model IS NULL AND {NOT_REFUSED_SQL} ORDER BY id", (model,)
        ).fetchall()
        if not rows:
            return 0
        total = len(rows)
        group = max(8, int(getattr(embedder, "batch_size", 32) or 32)) * 4
        by_hash: dict[str, list] = {}
        for r in rows:
            by_hash.setdefault(r["embed_sha256"], []).append(r)
        cached = self.cached_vectors(model, list(by_hash))  # no refusal: those rows were left out
        done = stored = 0
        # first what the cache holds (a rebuild, a revert, a model round trip): no model run
        hits = [r for r in rows if r["embed_sha256"] in cached]
        for start in range(0, len(hits), group * 4):
            part = hits[start:start + group * 4]
            stored += self._store_vectors(model, part, {r["embed_sha256"]: cached[r["embed_sha256"]] for r in part})
            done += len(part)
            if progress:
                progress(done, total)
        # then each text once (identical memories share a hash), shortest first: the batches
        # the model runs hold texts of about one length, so little of its work is padding
        todo = {h: terms.document_text(rs[0]["description"], rs[0]["body"] or "", rs[0]["sort_date"])
                for h, rs in by_hash.items() if h not in cached}
        if self._token_counts is None or self._token_counts[0] != model:
            self._token_counts = (model, {})
        known = self._token_counts[1]
        for h in [h for h in known if h not in todo]:  # edited or gone before their turn
            del known[h]
        try:
            hashes = _by_length(embedder, todo, known, exact=until is None,  # the local model loads here
                                tick=(lambda: progress(done, total)) if progress else None)
        except EmbedderError as exc:
            self._embed_retry_at = time.monotonic() + EMBED_RETRY_S
            log.warning("vault-mem: embedder unavailable (%s); %d memories stay keyword-only until it is back",
                        exc, total - done)
            return stored
        # the server has embedded for this model before: a text it refuses is the text's fault
        proven = [self.db.execute("SELECT 1 FROM files WHERE vec_model = ? LIMIT 1", (model,)).fetchone() is not None]
        for start in range(0, len(hashes), group):
            part = hashes[start:start + group]
            refused: list[str] = []
            try:
                try:
                    made = self._embed_texts(embedder, part, todo)
                except EmbedderRefusedInput:
                    made, refused = self._find_refused(embedder, part, todo, proven)
            except EmbedderError as exc:
                self._embed_retry_at = time.monotonic() + EMBED_RETRY_S
                log.warning("vault-mem: embedding failed (%s); %d memories stay keyword-only until "
                            "the embedder is back", exc, total - done)
                return stored
            proven[0] = proven[0] or bool(made)
            owners = [r for h in part for r in by_hash[h]]
            if refused:
                self._store_refused(model, refused)
                log.warning("vault-mem: the embedder %s refused the text of %d memories (%s); they are found by "
                            "keywords only (a shorter body or another embedder gives them a vector)", model,
                            sum(len(by_hash[h]) for h in refused),
                            "ids " + ", ".join(str(by_hash[h][0]["id"]) for h in refused[:5]))
            stored += self._store_vectors(model, owners, made)
            for h in part:
                known.pop(h, None)
            done += len(owners)
            if progress:
                progress(done, total)
            if until is not None and time.monotonic() >= until and start + group < len(hashes):
                log.info("vault-mem: %d memories still have no vector (made by the next recall, the daemon "
                         "or `vault-mem reindex`)", total - done)
                break
        return stored

    def _embed_texts(self, embedder, part: list[str], todo: dict[str, str]) -> dict[str, bytes]:
        """The vectors of the texts ``todo[h]`` for ``h`` in ``part``, as float32 bytes by hash."""
        vecs = np.asarray(embedder.embed_batch([todo[h] for h in part], kind="document"), dtype=np.float32)
        if vecs.shape != (len(part), int(embedder.dimensions)):
            raise EmbedderError(
                f"embedder {embedder.model_id} returned shape {vecs.shape}, expected ({len(part)}, {embedder.dimensions})"
            )
        return {h: v.tobytes() for h, v in zip(part, vecs)}

    def _find_refused(self, embedder, part: list[str], todo: dict[str, str],
                      proven: list[bool]) -> tuple[dict[str, bytes], list[str]]:
        """``part`` was refused (:class:`EmbedderRefusedInput`): embed its halves, and theirs,
        down to single texts, so one text the server will not take (too long for its model)
        holds up no other. Returns (the vectors made, the hashes refused alone). Raises
        EmbedderError (the embedder counts as down, retried later) when a piece fails otherwise,
        or when the first text refused alone is refused before the server embedded anything for
        this model (``proven[0]``, this call or an earlier one): a server that refuses even the
        shortest text refuses everything (a wrong model name, say), and its refusals say
        nothing of the texts. Costs about two requests per refused text and halving."""
        made: dict[str, bytes] = {}
        refused: list[str] = []

        def run(piece: list[str]) -> None:
            try:
                made.update(self._embed_texts(embedder, piece, todo))
                proven[0] = True
                return
            except EmbedderRefusedInput:
                if len(piece) > 1:
                    halves(piece)
                    return
                if not proven[0]:
                    raise
                refused.append(piece[0])

        def halves(piece: list[str]) -> None:
            mid = len(piece) // 2  # the shorter texts first: they prove the server takes some
            run(piece[:mid])
            run(piece[mid:])

        if len(part) == 1:
            run(part)  # a lone text's refusal was only seen as a batch's
        else:
            halves(part)
        return made, refused

    def _store_refused(self, model: str, hashes: list[str]) -> None:
        """Record that ``model`` refused these texts (:data:`REFUSED`), so they are not sent again."""
        with self.db.uncounted(), self.db.write():  # vectors: read by searches alone (Database.uncounted)
            self.db.executemany("INSERT OR IGNORE INTO embed_cache(model, text_sha256, vector) VALUES (?, ?, ?)",
                                [(model, h, REFUSED) for h in hashes])

    def _vec_model_matches(self) -> bool:
        """True when the stored vectors belong to the configured embedder (cheap, no model load)."""
        fp = self._embedder_fingerprint()
        if fp is None:
            return True
        return self.db.get_meta("embedder_fingerprint") == fp

    def _embedder_fingerprint(self) -> str | None:
        arg = self._embedder_arg
        if arg is DEFAULT:
            e = self.settings
            if e.provider == "none":
                return None
            return f"config:{e.provider}|{e.model}|{e.url}|{e.dimensions}"
        if arg is None:
            return None
        return f"instance:{getattr(arg, 'model_id', '')}|{getattr(arg, 'dimensions', '')}"

    def cached_vectors(self, model: str | None, hashes) -> dict[str, bytes]:
        """float32 bytes of the embedding cache for ``model``, by text hash (read-only)."""
        out: dict[str, bytes] = {}
        uniq = [h for h in dict.fromkeys(hashes) if h]
        if not model:
            return out
        for i in range(0, len(uniq), 500):
            part = uniq[i:i + 500]
            marks = ",".join("?" * len(part))
            for r in self.db.execute(
                f"SELECT text_sha256, vector FROM embed_cache WHERE model = ? AND text_sha256 IN ({marks})",
                [model, *part],
            ):
                out[r[0]] = r[1]
        return out

    def _store_vectors(self, model: str, rows, vectors: dict[str, bytes]) -> int:
        stored = 0
        # vectors are read by searches alone, never by what is kept under the rows' stamp: owed
        # vectors made a share per recall (a fresh clone of 100k: ~15 minutes of them) and each
        # share made the next read judge the peers' memories again (Database.uncounted)
        with self.db.uncounted(), self.db.write():
            self.db.executemany(
                "INSERT OR IGNORE INTO embed_cache(model, text_sha256, vector) VALUES (?, ?, ?)",
                [(model, h, v) for h, v in vectors.items()],
            )
            for r in rows:
                vec = vectors.get(r["embed_sha256"])
                if not vec:  # none made, or a refusal (REFUSED): nothing to store
                    continue
                # Re-check inside the transaction: another process may have changed the row.
                cur = self.db.execute(
                    "SELECT embed_sha256, vec_model FROM files WHERE id = ? AND usable = 1", (r["id"],)
                ).fetchone()
                if cur is None or cur["embed_sha256"] != r["embed_sha256"] or cur["vec_model"] == model:
                    continue
                self.db.execute(f"DELETE FROM {VEC_TABLE} WHERE rowid = ?", (r["id"],))
                self.db.execute(f"INSERT INTO {VEC_TABLE}(rowid, type, embedding) VALUES (?, ?, ?)",
                                (r["id"], r["type"], vec))
                self.db.execute("INSERT OR REPLACE INTO vector_log(id, seq, live) VALUES (?, ?, ?)",
                                (r["id"], self._next_seq(), LIVE))
                self.db.execute("UPDATE files SET vec_model = ? WHERE id = ?", (model, r["id"]))
                stored += 1
            fp = self._embedder_fingerprint()
            if fp is not None:
                self.db.set_meta("embedder_fingerprint", fp)
        return stored

    def drop_vector(self, file_id: int) -> None:
        """Forget a memory's vector (its text changed, or it is gone), inside the caller's write."""
        self.db.execute("UPDATE files SET vec_model = NULL WHERE id = ?", (file_id,))
        if self.db.execute("SELECT 1 FROM vector_log WHERE id = ? AND live = ?", (file_id, LIVE)).fetchone() is None:
            return
        # A new seq, so every in-memory index drops it at its next refresh.
        state = STALE  # unless deleted now: the next process that can open vec0 deletes the row
        if self.db.vec_loaded and self._has_table(VEC_TABLE):
            try:
                self.db.execute(f"DELETE FROM {VEC_TABLE} WHERE rowid = ?", (file_id,))
                state = DROPPED
            except dbmod.database_error() as exc:  # a damaged vec0 must not fail the write of a memory
                if dbmod.is_damage(exc):
                    raise
                log.warning("vault-mem: could not delete a vector (%s); it is marked stale", exc)
        self.db.execute("UPDATE vector_log SET live = ?, seq = ? WHERE id = ?", (state, self._next_seq(), file_id))

    def relevance_floor(self, embedder) -> floormod.Floor:
        """The bars recall uses with ``embedder`` (see :mod:`vault_mem.index.floor`): vault.toml's
        ``[recall] min_similarity``, else the embedder's own, else the model's prior while the
        vault has too few vectors for its own sample (``floor.CALIBRATION_MIN_VECTORS``), else this
        vault's calibration (measured now if missing or due) unless it counted no vector (every
        memory a peer's: ``uncounted``), else the prior."""
        from vault_mem.index import floor as floormod  # lazy: a write imports no search

        model = str(getattr(embedder, "model_id", ""))
        cal = self.calibration(embedder)
        if cal is not None and cal.vectors < floormod.CALIBRATION_MIN_VECTORS and floormod.known_prior(model):
            cal = None  # a few memories: the model's prior, not their erratic sample
        if cal is not None and not cal.vectors:
            # none counted (every memory a peer's not approved here: a fresh clone of a team's
            # vault): its sample is every probe's -1, so every hit of any model was strong
            cal = None
        spread = cal.spread if cal is not None else floormod.prior_spread(model)
        override = self.min_similarity
        if override is not None:
            return floormod.Floor.from_spread(override, spread, "vault.toml")
        own = getattr(embedder, "min_similarity", None)
        if isinstance(own, (int, float)) and not isinstance(own, bool):
            return floormod.Floor.from_spread(float(own), spread, "embedder")
        return cal.to_floor() if cal is not None else floormod.prior(model)

    def calibration(self, embedder, *, force: bool = False) -> floormod.Calibration | None:
        """This vault's floor calibration for ``embedder``, made (and stored) when missing, made
        for other vectors, or due (RECALIBRATE_SHARE of the vectors changed); None when there are
        no vectors or the probes cannot be embedded. Cost when fresh: two indexed reads."""
        from vault_mem.index import floor as floormod  # lazy: a write imports no search

        model = str(getattr(embedder, "model_id", ""))
        if not model or self.db.get_meta("vec_model") != model:
            return None
        epoch = self.db.get_meta("vec_epoch") or ""
        seq = self.db.execute("SELECT max(seq) FROM vector_log").fetchone()[0]
        if seq is None:
            return None
        approved = self.uncounted_key() if self.uncounted_key is not None else ""
        cal = self._calibration_cache.get(model) or floormod.load(self.db, model)
        if cal is not None and not force and not cal.due(model=model, epoch=epoch, seq=seq, approved=approved):
            self._calibration_cache[model] = cal
            return cal
        try:
            probes = self._probe_vectors(embedder, model)
            skip = self._uncounted_ids()
        except (EmbedderError, VaultMemError) as exc:
            log.warning("vault-mem: cannot calibrate the relevance floor (%s); using %s", exc,
                        "the last calibration" if cal is not None else "the prior")
            return cal if cal is not None and cal.counted else None
        live = [r[0] for r in self.db.execute("SELECT id FROM vector_log WHERE live = ?", (LIVE,))]
        vectors = len(live) - len(skip.intersection(live))

        def best_of(queries: np.ndarray) -> np.ndarray:
            return self.vector_index().best_of(queries, skip=skip)

        null = floormod.null_sample(probes, best_of)
        try:
            reach = floormod.null_sample(self._reach_vectors(embedder, skip), best_of)
        except EmbedderError as exc:
            log.warning("vault-mem: cannot measure the floor's reach (%s)", exc)
            reach = ()
        cal = floormod.Calibration(model=model, epoch=epoch, seq=int(seq), vectors=int(vectors), null=null,
                                   made=floormod.now(), reach=reach, approved=approved)
        with self.db.uncounted(), self.db.write():  # read by searches alone (Database.uncounted)
            floormod.store(self.db, cal)
        self._calibration_cache[model] = cal
        return cal

    def _uncounted_ids(self) -> frozenset[int]:
        """The file ids of :attr:`uncounted`'s paths: the memories a peer not approved here last
        changed, whose vectors the floor's calibration does not count. The null sample says how
        close questions about unrelated things come to *this person's* memories: a peer's notes
        copying the probe questions (they are in the source) made every probe's best cosine 1.0,
        the floor 0.985, and every recall of the person's own memories "nothing related is
        stored" (issue 23, twenty-first run)."""
        paths = self.uncounted() if self.uncounted is not None else ()
        if not paths:
            return frozenset()
        return frozenset(r[0] for r in self.db.execute(
            "SELECT id FROM files WHERE path IN (SELECT value FROM json_each(?))", (json.dumps(sorted(paths)),)))

    def _reach_vectors(self, embedder, skip: Collection[int] = ()) -> np.ndarray:
        """Up to ``floor.REACH_SAMPLE`` descriptions of memories with a vector (evenly spaced in id
        order, but the file ids ``skip``), each embedded as a query (cached as a word is): the
        floor's reach sample."""
        from vault_mem.index import floor as floormod  # lazy: a write imports no search

        ids = [r[0] for r in self.db.execute("SELECT id FROM vector_log WHERE live = ? ORDER BY id", (LIVE,))
               if r[0] not in skip]
        step = max(1, len(ids) // max(1, floormod.REACH_SAMPLE))
        pick = ids[::step][:floormod.REACH_SAMPLE]
        texts = [r[0] for r in self.db.execute("SELECT description FROM fts WHERE rowid IN (SELECT value FROM json_each(?))",
                                               (_id_list(pick),)) if r[0] and r[0].strip()]
        vecs = self.word_vectors(embedder, texts)
        rows = [vecs[t] for t in dict.fromkeys(texts) if t in vecs]
        return np.asarray(rows, dtype=np.float32) if rows else np.zeros((0, int(embedder.dimensions)), np.float32)

    def probe_vectors(self, embedder) -> np.ndarray:
        """The probe questions (:mod:`vault_mem.model.probes`) embedded by ``embedder`` as
        queries, one row each: texts unrelated to any vault, what the stand-out of a small vault
        measures a first hit against (:func:`vault_mem.index.levels.stands_out`). Cached: one
        keyed read once embedded."""
        return self._probe_vectors(embedder, str(getattr(embedder, "model_id", "")))

    def _probe_vectors(self, embedder, model: str) -> np.ndarray:
        """The probe questions embedded as queries, from the embedding cache when seen before."""
        from vault_mem.index import floor as floormod  # lazy: a write imports no search

        hashes = floormod.probe_hashes()
        cached = self.cached_vectors(model, hashes)
        dims = int(embedder.dimensions)
        if len(cached) == len(hashes) and all(len(v) == dims * 4 for v in cached.values()):
            return np.frombuffer(b"".join(cached[h] for h in hashes), dtype=np.float32).reshape(len(hashes), dims)
        vecs = np.asarray(embedder.embed_batch(list(floormod.PROBES), kind="query"), dtype=np.float32)
        try:  # a cache: never holds a recall up for another writer (as word_vectors)
            with self.db.uncounted(), self.db.write(wait=False):  # vectors (Database.uncounted)
                self.db.executemany("INSERT OR REPLACE INTO embed_cache(model, text_sha256, vector) VALUES (?, ?, ?)",
                                    [(model, h, v.tobytes()) for h, v in zip(hashes, vecs)])
        except (IndexStoreError, *dbmod.errors()) as exc:
            if dbmod.is_damage(exc):
                raise
        return vecs

    def word_vectors(self, embedder, words) -> dict[str, np.ndarray]:
        """Each word embedded alone (as a query), for the answer check's word matching; from
        the embedding cache when seen before, else embedded now and cached (a busy or read-only
        sidecar just does not cache, and never makes the recall wait). Cost: one keyed read, and
        the model only for new words."""
        words = [w for w in dict.fromkeys(words) if w]
        if not words:
            return {}
        model = str(getattr(embedder, "model_id", ""))
        dims = int(embedder.dimensions)
        hashes = {w: word_hash(w) for w in words}
        cached = self.cached_vectors(model, hashes.values())
        out = {w: np.frombuffer(cached[h], dtype=np.float32) for w, h in hashes.items()
               if h in cached and len(cached[h]) == dims * 4}
        todo = [w for w in words if w not in out]
        if todo:
            vecs = np.asarray(embedder.embed_batch(todo, kind="query"), dtype=np.float32)
            out.update(zip(todo, vecs))
            # never waits for a writer: a recall is not held up to fill a cache; uncounted (vectors,
            # Database.uncounted): a recall's new word made the next read judge the peers again
            try:
                with self.db.uncounted(), self.db.write(wait=False):
                    self.db.executemany(
                        "INSERT OR REPLACE INTO embed_cache(model, text_sha256, vector) VALUES (?, ?, ?)",
                        [(model, hashes[w], v.tobytes()) for w, v in zip(todo, vecs)])
            except (IndexStoreError, *dbmod.errors()) as exc:
                if dbmod.is_damage(exc):
                    raise
        return out

    def word_bars(self, embedder) -> floormod.WordBars:
        """The answer check's bars for ``embedder`` (:func:`vault_mem.index.floor.word_bars`),
        from the probes' cached vectors; kept per model for the process."""
        from vault_mem.index import floor as floormod  # lazy: a write imports no search

        model = str(getattr(embedder, "model_id", ""))
        key = ("word_bars", model)
        if key not in self._calibration_cache:
            words = [w for ws in floormod.probe_words() for w in ws]
            self._calibration_cache[key] = floormod.word_bars(self.word_vectors(embedder, words),
                                                              self._probe_vectors(embedder, model))
        return self._calibration_cache[key]

    def embedder_at_hand(self):
        """The embedder if it was passed in or is loaded already and vectors work; else None.

        Never builds one: a write must not load a model for a side check (duplicates)."""
        try:
            if not self._model_at_hand() or self.vectors_reason() is not None:
                return None
            return self._get_embedder()
        except VaultMemError:
            return None

    def _model_at_hand(self) -> bool:
        """Whether the embedder was passed in or is loaded already (no model load to ask)."""
        return self._embedder_arg is not DEFAULT or (self._embedder_ready and self._embedder is not None)

    def make_owed(self, embed: bool | None, *, progress: Progress | None = None) -> int:
        """The vectors a reconcile or a write makes on its way: every one (``embed=True``:
        ``reindex``, with its progress), none (False), or (None, auto) a bounded share
        (:meth:`embed_owed`) when the embedder is at hand already, none otherwise (``list``,
        ``get`` and INDEX.md never load the model; the next recall makes them)."""
        if embed:
            return self.embed_pending(progress=progress)
        if embed is None and self._model_at_hand():
            return self.embed_owed(progress=progress)
        return 0

    def doctor(self) -> list[str]:
        """What ``Sidecar.doctor`` reports of the vectors: memories still owed one, a table that
        cannot be searched, counts of the table, its log and the memories that disagree, and
        vectors of another model ([] if none, or when vectors are off)."""
        out: list[str] = []
        if self.db.vec_ok and self._embedder_fingerprint() is not None:
            missing = self.vectors_missing()
            if missing:
                out.append(f"vectors: {missing} memories have no vector yet (the next recall or reindex makes them)")
            self.purge_stale_vectors()
            broken = self.vector_table_problem()
            if broken:
                out.append(f"vectors: {broken}")
            n_vec = self.db.execute(f"SELECT count(*) FROM {VEC_TABLE}").fetchone()[0] if self._has_table(VEC_TABLE) else 0
            n_live = self.db.execute("SELECT count(*) FROM vector_log WHERE live = 1").fetchone()[0]
            n_with = self.db.execute("SELECT count(*) FROM files WHERE vec_model IS NOT NULL").fetchone()[0]
            if not n_vec == n_live == n_with:
                out.append(f"vectors: {n_vec} stored ({n_live} logged) for {n_with} memories that should have one")
            model = self.db.get_meta("vec_model")
            other = self.db.execute("SELECT count(*) FROM files WHERE vec_model IS NOT NULL AND vec_model != ?",
                                    (model or "",)).fetchone()[0]
            if other:
                out.append(f"vectors: {other} memories have vectors of another model than {model}")
        return out
