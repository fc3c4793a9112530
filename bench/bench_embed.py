"""How fast is the local embedder? ``python bench/bench_embed.py`` (VAULT_MEM_THREADS=n to vary).

Prints the model load time (fresh process), memories/s embedding 512 realistic memories
(bench/corpus.py, 20-60 tokens: one-liners of ~13 tokens ran 3x faster and flattered the
figure) in the sidecar's groups, shortest first, and the warm latency of one query (p50 / p90).
``--sweep`` prints memories/s (wall and per CPU-second) for a few batch shapes at 1 and 2 threads.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus import PROJECTS, TOOLS, load_line, memories  # bench/ is on sys.path when run as a script

from vault_mem.embed import local as embed  # after the path tweak, so it runs from a checkout
from vault_mem.model.terms import document_text


def texts_of(n: int = 512) -> list[str]:
    """``n`` realistic memories (bench/corpus.py: 20-60 tokens) as the sidecar embeds them."""
    return [document_text(m["description"], m["body"], m["created"].isoformat()) for m in memories(n)]


def sweep() -> None:
    """Memories/s (wall and per CPU-second) for a few batch shapes at 1 and 2 threads."""
    import resource

    def cpu() -> float:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    texts = texts_of(768)
    embedder = embed.LocalEmbedder()
    counts = embedder.token_counts(texts)
    texts = [t for _, t in sorted(zip(counts, texts), key=lambda p: p[0])]
    for threads in (1, 2):
        os.environ["VAULT_MEM_THREADS"] = str(threads)
        embed._runtime = None  # a session with that many threads
        embedder.embed_batch(texts[:64])
        for rows, tokens in ((16, 2048), (32, 2048), (32, 8192), (64, 4096), (128, 8192)):
            embedder.batch_size, embed._MAX_BATCH_TOKENS = rows, tokens
            wall, used = time.perf_counter(), cpu()
            for g in range(0, len(texts), 128):
                embedder.embed_batch(texts[g:g + 128])
            wall, used = time.perf_counter() - wall, cpu() - used
            print(f"threads {threads} rows {rows:>3} tokens {tokens:>5}: {len(texts) / wall:5.0f} memories/s, "
                  f"{len(texts) / used:5.0f} per CPU-s  ({load_line()})", flush=True)


def main() -> None:
    """Measure and print; nothing is asserted (timing goals live here, not in tests)."""
    if "--sweep" in sys.argv[1:]:
        sweep()
        return
    embedder = embed.LocalEmbedder()
    start = time.perf_counter()
    embedder.load()
    load_s = time.perf_counter() - start

    texts = texts_of(512)
    counts = embedder.token_counts(texts)
    texts = [t for _, t in sorted(zip(counts, texts), key=lambda p: p[0])]  # as the sidecar orders them
    group = embedder.batch_size * 4
    embedder.embed_batch(texts[:32])  # warm-up: first runs pay for allocations
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        for g in range(0, len(texts), group):
            embedder.embed_batch(texts[g:g + group])
        runs.append(time.perf_counter() - start)
    rate = len(texts) / min(runs)

    queries = [f"who owns {p}?" for p in PROJECTS] + [f"what do we run {t} on?" for t in TOOLS[:20]]
    queries = queries * 2
    latencies = []
    for query in queries:
        start = time.perf_counter()
        embedder.embed(query)
        latencies.append((time.perf_counter() - start) * 1000)
    latencies.sort()

    print(f"model            {embedder.model_id} ({embedder.dimensions}-d)")
    print(f"threads          {embed.thread_count()} (cpus {os.cpu_count()})")
    print(f"load             {load_s:.2f} s (import onnxruntime + tokenizer + sha256 + session)")
    counts.sort()
    print(f"batch {embedder.batch_size:<10} {rate:.0f} memories/s ({len(texts)} realistic memories, tokens p10 "
          f"{counts[len(counts) // 10]} p50 {counts[len(counts) // 2]} p90 {counts[len(counts) * 9 // 10]}, best of 3)")
    p50 = statistics.median(latencies)
    p90 = latencies[int(len(latencies) * 0.9)]
    print(f"single query     p50 {p50:.1f} ms, p90 {p90:.1f} ms (warm, {len(queries)} queries)")


if __name__ == "__main__":
    main()
    print(load_line())
