"""sqlite-vec's vec0 against vectors held in memory, and the storage choices around it.

    python bench/bench_sqlite_vec.py             # N = 100k, 384-d, k = 50, 20 queries
    python bench/bench_sqlite_vec.py --n 10000

Times (median ms), over N unit vectors in a database file, as vault-mem keeps them:
- sqlite-vec's vec0 float[384] cosine table (what one-shot vault-mem processes search), with the
  file read through a memory map (``PRAGMA mmap_size``, as vault_mem.index.db sets it) and without;
- vec0 bit[384] (sign-quantised: a coarse pass only) at k and at the 1000 candidates an exact
  rescoring would need;
- a numpy product over the same vectors already in memory (what a warm process such as the MCP
  server searches, vault_mem.index.vectors.VectorIndex);
- 100 vectors by id from vec0 against 100 from a plain rowid table keyed like the embedding
  cache (how recall gets its candidates' cosines);
- the size of that cache as a WITHOUT ROWID table against a rowid table (schema m006).
Prints the figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from corpus import load_line  # bench/ is on sys.path when run as a script


def _connect(path: Path):
    try:
        import sqlite_vec
    except ImportError:
        sys.exit("sqlite-vec is not installed: pip install -e . (it is a dependency of vault-mem)")
    try:
        import sqlean as sqlite3
    except ImportError:
        import sqlite3
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    return conn


def _median_ms(fn, queries) -> float:
    times = []
    for q in queries:
        t = time.perf_counter()
        fn(q)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--queries", type=int, default=20)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    x = rng.standard_normal((args.n, args.dim)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    queries = x[rng.integers(0, args.n, args.queries)] + 0.1 * rng.standard_normal((args.queries, args.dim))
    queries = (queries / np.linalg.norm(queries, axis=1, keepdims=True)).astype(np.float32)

    with tempfile.TemporaryDirectory(prefix="vault-mem-bench-vec-") as tmp:
        _run(args, x, queries, Path(tmp))


def _run(args, x, queries, tmp: Path) -> None:
    conn = _connect(tmp / "vec.db")
    conn.execute(f"CREATE VIRTUAL TABLE vf USING vec0(embedding float[{args.dim}] distance_metric=cosine)")
    conn.execute(f"CREATE VIRTUAL TABLE vb USING vec0(embedding bit[{args.dim}])")
    conn.execute("CREATE TABLE cache (id INTEGER PRIMARY KEY, model TEXT NOT NULL, text_sha256 TEXT NOT NULL, "
                 "vector BLOB NOT NULL, UNIQUE (model, text_sha256))")
    bits = np.packbits(x > 0, axis=1)
    shas = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(args.n)]
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO vf(rowid, embedding) VALUES (?, ?)",
                     ((i + 1, x[i].tobytes()) for i in range(args.n)))
    conn.executemany("INSERT INTO vb(rowid, embedding) VALUES (?, vec_bit(?))",
                     ((i + 1, bits[i].tobytes()) for i in range(args.n)))
    conn.executemany("INSERT INTO cache(model, text_sha256, vector) VALUES ('m', ?, ?)",
                     ((shas[i], x[i].tobytes()) for i in range(args.n)))
    conn.execute("COMMIT")

    def vec0_float(q):
        return conn.execute("SELECT rowid FROM vf WHERE embedding MATCH ? AND k = ?", (q.tobytes(), args.k)).fetchall()

    def vec0_bit(q):
        return conn.execute("SELECT rowid FROM vb WHERE embedding MATCH vec_bit(?) AND k = ?",
                            (np.packbits(q > 0).tobytes(), args.k)).fetchall()

    def vec0_bit_1000(q):
        return conn.execute("SELECT rowid FROM vb WHERE embedding MATCH vec_bit(?) AND k = 1000",
                            (np.packbits(q > 0).tobytes(),)).fetchall()

    def numpy_dot(q):
        scores = x @ q
        top = np.argpartition(-scores, args.k)[: args.k]
        return top[np.argsort(-scores[top])]

    rng = np.random.default_rng(1)
    picks = [rng.integers(0, args.n, 100) for _ in queries]
    ids = iter(picks * 2)

    def vec0_lookup(_q):
        return conn.execute(f"SELECT rowid, embedding FROM vf WHERE rowid IN ({','.join(str(i + 1) for i in next(ids))})"
                            ).fetchall()

    def cache_lookup(_q):
        part = [shas[i] for i in next(ids)]
        return conn.execute(f"SELECT text_sha256, vector FROM cache WHERE model = 'm' AND text_sha256 IN "
                            f"({','.join('?' * len(part))})", part).fetchall()

    print(f"N={args.n} dim={args.dim} k={args.k} queries={args.queries} (median ms)")
    conn.execute("PRAGMA mmap_size = 0")
    print(f"vec0 float cosine, no mmap      {_median_ms(vec0_float, queries):8.1f}")
    conn.execute(f"PRAGMA mmap_size = {1 << 30}")
    print(f"vec0 float cosine, mmap         {_median_ms(vec0_float, queries):8.1f}")
    print(f"vec0 bit (coarse)               {_median_ms(vec0_bit, queries):8.1f}")
    print(f"vec0 bit, k=1000                {_median_ms(vec0_bit_1000, queries):8.1f}")
    print(f"numpy in memory                 {_median_ms(numpy_dot, queries):8.1f}")
    print(f"100 vectors by id from vec0     {_median_ms(vec0_lookup, queries):8.2f}")
    print(f"100 vectors by key, rowid table {_median_ms(cache_lookup, queries):8.2f}")
    conn.close()
    layouts = (("WITHOUT ROWID", "PRIMARY KEY (model, text_sha256)) WITHOUT ROWID"),
               ("rowid + UNIQUE", "UNIQUE (model, text_sha256))"))
    for n, (layout, ddl) in enumerate(layouts):
        path = tmp / f"cache-{n}.db"
        c = _connect(path)
        c.execute("CREATE TABLE cache (model TEXT NOT NULL, text_sha256 TEXT NOT NULL, vector BLOB NOT NULL, " + ddl)
        c.execute("BEGIN")
        c.executemany("INSERT INTO cache VALUES ('local:all-MiniLM-L6-v2-int8', ?, ?)",
                      ((shas[i], x[i].tobytes()) for i in range(args.n)))
        c.execute("COMMIT")
        keys = iter([[shas[i] for i in p] for p in picks])

        def lookup(_q, c=c, keys=keys):
            part = next(keys)
            return c.execute("SELECT vector FROM cache WHERE model = 'local:all-MiniLM-L6-v2-int8' AND "
                             f"text_sha256 IN ({','.join('?' * len(part))})", part).fetchall()

        ms = _median_ms(lookup, queries)
        c.close()
        print(f"embedding cache as {layout:<15} {os.path.getsize(path) / 1e6:8.1f} MB, 100 keys in {ms:.2f} ms")


if __name__ == "__main__":
    main()
    print(load_line())
