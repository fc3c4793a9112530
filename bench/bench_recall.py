"""Recall speed at scale: keyword recall, vector KNN, full recall, and rebuild throughput.

    python bench/bench_recall.py                      # 100k memories, 10k rebuild (slow first run)
    python bench/bench_recall.py --n 20000 --rebuild-n 2000 --dir /tmp/vm-bench   # reuse a vault
    python bench/bench_recall.py --rebuild-from ../shared/bench/locomo-dev-turns.json   # real texts

Synthetic memories (pseudo-words with a Zipf-like spread, so some words are everywhere and
most are rare). The 100k vault's vectors come from a fast hashing embedder of the local model's
dimension (384): the KNN cost depends on the count and dimension of vectors, not on their
meaning, and embedding 100k texts with MiniLM would take ~15 minutes. "full recall" runs the
real local model on every query (its cost is what is measured) and then searches with the
hashed query vector that matches the stored ones. The rebuild figure uses the real local model;
pseudo-words cut into many word pieces make MiniLM slow, so for a realistic memories/s figure
give ``--rebuild-from`` a benchmark file: its memories' texts are read at run time (and cycled
to the wanted count), never stored.
Vector search is timed both ways vault-mem runs it: in sqlite-vec's ``vec0`` table (``*_vec0_*``:
what a one-shot process such as a CLI ``recall`` or a prompt hook does, nothing to load) and
over the same vectors held in memory by a warm process (the MCP server: ``vector_knn_ms``,
``full_recall_ms``, after ``vector_index_load_ms`` once).
``keyword_recall_all_words_ms`` times keyword recall with every query word searched, common words
too (``search.COMMON_TERM_FLOOR`` lifted), against ``keyword_recall_ms`` with the shipped rule.
Prints one JSON object; timings are medians (p50) and p95 over the queries, in milliseconds.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

# the checkout under test: this one, or the one bench_mcp.py --code names (a before/after run)
sys.path.insert(0, os.environ.get("BENCH_MCP_CODE") or str(Path(__file__).resolve().parent.parent))

from vault_mem.config import Config
from vault_mem.embed.local import Embedder
from vault_mem.index import search
from vault_mem.index.sidecar import Sidecar
from vault_mem.model.memory import Memory, render_memory

TODAY = dt.date(2026, 11, 29)
TYPES = ["fact"] * 6 + ["note"] * 2 + ["preference", "decision", "procedure"]


class HashEmbedder(Embedder):
    """Bag of hashed words -> 384-d unit vectors: fast stand-in with the local model's shape."""

    model_id = "bench-hash:384"
    dimensions = 384
    batch_size = 256

    def embed_batch(self, texts, *, kind="document"):
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
                out[row, h % self.dimensions] += 1.0 if h & 1 << 20 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        return out / norms


class TimedLocalQueries(HashEmbedder):
    """Documents by hashing; queries also run through the real local model (timed, discarded)."""

    def __init__(self, local: Embedder) -> None:
        self.local = local

    def embed_batch(self, texts, *, kind="document"):
        if kind == "query":
            self.local.embed_batch(texts, kind="query")
        return super().embed_batch(texts, kind=kind)


def vocabulary(rng: random.Random, size: int = 20_000) -> list[str]:
    syl = ["ka", "lo", "mi", "ren", "tas", "vo", "qui", "del", "sun", "bra", "po", "ne", "tri", "gal", "or", "ux"]
    words = set()
    while len(words) < size:
        words.add("".join(rng.choice(syl) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def sentence(rng: random.Random, vocab: list[str], n: int) -> str:
    # Zipf-like: low indexes are common words
    return " ".join(vocab[min(int(rng.paretovariate(0.9)) - 1, len(vocab) - 1)] if rng.random() < 0.5
                    else rng.choice(vocab) for _ in range(n))


def make_vault(root: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    for t in set(TYPES):
        (root / {"fact": "facts", "note": "notes", "preference": "preferences", "decision": "decisions",
                 "procedure": "procedures"}[t]).mkdir(parents=True, exist_ok=True)
    for i in range(n):
        t = rng.choice(TYPES)
        d = dt.date(2024, 1, 1) + dt.timedelta(days=rng.randint(0, 1000))
        mem = Memory(key=f"m{i:06d}", type=t, meta={"description": sentence(rng, vocab, rng.randint(6, 14)),
                                                    "created": d, "updated": d, "tags": [rng.choice(vocab[:50])]},
                     body=sentence(rng, vocab, rng.randint(10, 60)))
        (root / mem.path).write_text(render_memory(mem), encoding="utf-8")


def make_vault_from(root: Path, n: int, bench: Path) -> None:
    """``n`` memories whose texts come from a benchmark file's memories (read now, not kept)."""
    mems = json.loads(bench.read_text(encoding="utf-8"))["memories"]
    (root / "facts").mkdir(parents=True, exist_ok=True)
    for i in range(n):
        m = mems[i % len(mems)]
        d = dt.date.fromisoformat(m.get("created", "2024-01-01")[:10])
        mem = Memory(key=f"m{i:06d}", type="fact", meta={"description": " ".join(m["description"].split()),
                                                        "created": d, "updated": d},
                     body=(m.get("body") or "") + ("" if i < len(mems) else f" (copy {i // len(mems)})"))
        (root / mem.path).write_text(render_memory(mem), encoding="utf-8")


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    vocab = vocabulary(random.Random(7))
    return [f"what did I note about {sentence(rng, vocab, rng.randint(2, 5))}?" for _ in range(n)]


def timed(fn, items) -> dict[str, float]:
    fn(items[0])  # warm
    ms = []
    for x in items:
        t0 = time.perf_counter()
        fn(x)
        ms.append((time.perf_counter() - t0) * 1000)
    ms.sort()
    return {"p50": round(statistics.median(ms), 2), "p95": round(ms[int(0.95 * (len(ms) - 1))], 2)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000, help="memories in the big vault")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rebuild-n", type=int, default=10_000, help="memories for the local-model rebuild (0 = skip)")
    ap.add_argument("--dir", type=Path, help="keep the generated vaults here and reuse them")
    ap.add_argument("--rebuild-from", type=Path, help="benchmark JSON whose memory texts the rebuild uses")
    args = ap.parse_args()
    base = args.dir or Path(tempfile.mkdtemp(prefix="vault-mem-bench-"))
    out: dict = {"n": args.n}
    try:
        root = base / f"vault-{args.n}"
        if not (root / "facts").exists():
            t0 = time.perf_counter()
            make_vault(root, args.n)
            out["generate_s"] = round(time.perf_counter() - t0, 1)
        hasher = HashEmbedder()
        sc = Sidecar(root, Config(), embedder=hasher)
        t0 = time.perf_counter()
        rep = sc.reconcile(embed=True)
        out["index_s"] = round(time.perf_counter() - t0, 1)
        out["indexed"] = {"added": rep.added, "unchanged": rep.unchanged}
        t0 = time.perf_counter()
        sc.reconcile()
        out["noop_reconcile_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        qs = queries(args.queries)
        # keyword recall: the whole recall path with vectors off
        kw = Sidecar(root, Config(), embedder=None)
        out["keyword_recall_ms"] = timed(lambda q: kw.recall(q, k=5, today=TODAY), qs)
        out["keyword_hits_share"] = round(sum(bool(kw.recall(q, today=TODAY).hits) for q in qs[:50]) / 50, 2)
        floor = search.COMMON_TERM_FLOOR  # every query word searched, common ones too, for comparison
        search.COMMON_TERM_FLOOR = 1 << 62
        try:
            out["keyword_recall_all_words_ms"] = timed(lambda q: kw.recall(q, k=5, today=TODAY), qs)
            out["keyword_hits_share_all_words"] = round(
                sum(bool(kw.recall(q, today=TODAY).hits) for q in qs[:50]) / 50, 2)
        finally:
            search.COMMON_TERM_FLOOR = floor
        kw.close()
        qv = hasher.embed_batch(qs, kind="query")
        filters = search.Filters(today=TODAY.isoformat())
        decisions = search.Filters(type="decision", today=TODAY.isoformat())
        pos = {q: i for i, q in enumerate(qs)}
        # vector KNN in sqlite-vec's vec0 table (what a one-shot process such as a CLI call uses)
        fresh = Sidecar(root, Config(), embedder=hasher)
        t0 = time.perf_counter()
        search.vector_search(fresh.db, qv[0], filters, index=fresh.vector_index())
        out["vec0_first_query_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        few = qs[: max(20, len(qs) // 5)]  # brute force in SQLite is slower: fewer queries
        out["vector_knn_vec0_ms"] = timed(
            lambda q: search.vector_search(fresh.db, qv[pos[q]], filters, index=fresh.vector_index()), few)
        out["vector_knn_vec0_type_filter_ms"] = timed(
            lambda q: search.vector_search(fresh.db, qv[pos[q]], decisions, index=fresh.vector_index()), few)
        fresh.close()
        # vector KNN in a warm process (the MCP server): the same vectors, loaded into memory once
        sc.keep_vectors_in_memory = True
        t0 = time.perf_counter()
        sc.vector_index()
        out["vector_index_load_ms"] = round((time.perf_counter() - t0) * 1000, 1)
        out["vector_knn_ms"] = timed(lambda q: search.vector_search(sc.db, qv[pos[q]], filters, index=sc.vector_index()), qs)
        out["vector_knn_type_filter_ms"] = timed(
            lambda q: search.vector_search(sc.db, qv[pos[q]], decisions, index=sc.vector_index()), qs)
        # full recall including the query embedding with the real local model
        try:
            from vault_mem.embed.local import LocalEmbedder

            local = LocalEmbedder()
            local.embed_batch(["warm up"], kind="query")
            full = Sidecar(root, Config(), embedder=TimedLocalQueries(local))
            out["full_recall_vec0_ms"] = timed(lambda q: full.recall(q, k=5, today=TODAY), qs[: max(20, len(qs) // 5)])
            full.keep_vectors_in_memory = True
            full.recall("warm up", today=TODAY)
            out["full_recall_ms"] = timed(lambda q: full.recall(q, k=5, today=TODAY), qs)
            out["query_embedding_ms"] = timed(lambda q: local.embed_batch([q], kind="query"), qs)
            full.close()
        except Exception as exc:  # noqa: BLE001 - report, keep the other figures
            out["full_recall_ms"] = f"skipped: {exc}"
        sc.close()
        if args.rebuild_n:
            from vault_mem.embed.local import LocalEmbedder

            small = base / f"rebuild-{args.rebuild_n}"
            if small.exists():
                shutil.rmtree(small)
            if args.rebuild_from:
                make_vault_from(small, args.rebuild_n, args.rebuild_from)
            else:
                make_vault(small, args.rebuild_n, seed=3)
            rs = Sidecar(small, Config(), embedder=LocalEmbedder())
            t0 = time.perf_counter()
            rep = rs.rebuild()
            secs = time.perf_counter() - t0
            out["rebuild_local"] = {"memories": rep.added, "seconds": round(secs, 1),
                                    "texts": "benchmark file" if args.rebuild_from else "synthetic",
                                    "memories_per_s": round(rep.added / secs, 1)}
            rs.close()
    finally:
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
