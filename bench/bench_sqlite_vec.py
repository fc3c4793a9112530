"""sqlite-vec's vec0 against vectors held in memory: k-NN time over N unit vectors.

    python bench/bench_sqlite_vec.py             # N = 100k, 384-d, k = 50, 20 queries
    python bench/bench_sqlite_vec.py --n 10000

Times (median ms) sqlite-vec's vec0 float[384] cosine table (what one-shot vault-mem processes
search), vec0 bit[384] (sign-quantised: a coarse pass only) at k and at the 1000 candidates an
exact rescoring would need, and a numpy product over the same vectors already in memory (what
a warm process such as the MCP server searches, vault_mem.vectors.VectorIndex). Prints the
figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np


def _connect():
    try:
        import sqlite_vec
    except ImportError:
        sys.exit("sqlite-vec is not installed: pip install -e . (it is a dependency of vault-mem)")
    try:
        import sqlean as sqlite3
    except ImportError:
        import sqlite3
    conn = sqlite3.connect(":memory:")
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

    conn = _connect()
    conn.execute(f"CREATE VIRTUAL TABLE vf USING vec0(embedding float[{args.dim}] distance_metric=cosine)")
    conn.execute(f"CREATE VIRTUAL TABLE vb USING vec0(embedding bit[{args.dim}])")
    bits = np.packbits(x > 0, axis=1)
    conn.executemany("INSERT INTO vf(rowid, embedding) VALUES (?, ?)",
                     ((i + 1, x[i].tobytes()) for i in range(args.n)))
    conn.executemany("INSERT INTO vb(rowid, embedding) VALUES (?, vec_bit(?))",
                     ((i + 1, bits[i].tobytes()) for i in range(args.n)))

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

    print(f"N={args.n} dim={args.dim} k={args.k} queries={args.queries} (median ms)")
    print(f"vec0 float cosine  {_median_ms(vec0_float, queries):8.1f}")
    print(f"vec0 bit (coarse)  {_median_ms(vec0_bit, queries):8.1f}")
    print(f"vec0 bit, k=1000   {_median_ms(vec0_bit_1000, queries):8.1f}")
    print(f"numpy in memory    {_median_ms(numpy_dot, queries):8.1f}")


if __name__ == "__main__":
    main()
