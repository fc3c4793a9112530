"""How fast is the local embedder? ``python bench/bench_embed.py`` (VAULT_MEM_THREADS=n to vary).

Prints the model load time (fresh process), sentences/s embedding ~200 typical one-line
memories at batch 32, and the warm latency of embedding one query (p50 / p90).
"""

from __future__ import annotations

import itertools
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus import load_line  # bench/ is on sys.path when run as a script

from vault_mem.embed import local as embed  # after the path tweak, so it runs from a checkout

SUBJECTS = ["Prefers", "Uses", "Avoids", "Decided on", "Runs", "Keeps", "Likes", "Works with"]
OBJECTS = [
    "tabs over spaces in Python code",
    "pnpm instead of npm for the web app",
    "Postgres 16 for the billing service",
    "dark mode in every editor",
    "the deploy script in ops/deploy.sh before each release",
    "short commit messages in the imperative mood",
    "a Subaru Outback for weekend trips to the mountains",
    "green tea rather than coffee in the morning",
    "pytest with real SQLite, never mocks",
    "the staging cluster on Tuesdays for load tests",
    "weekly one-to-ones with Dana on Thursday afternoons",
    "Vim keybindings in VS Code",
    "a standing desk and a split keyboard",
    "UTC timestamps in every log line",
    "semantic versioning for the public SDK",
    "Lisbon as home base since 2021",
    "the 1Password CLI for secrets in scripts",
    "conventional comments in code review",
    "Rust for the ingestion worker because of memory limits",
    "Markdown notes in a git repository",
    "a budget alert at 80 percent of the cloud bill",
    "feature flags for anything user-facing",
    "the nightly backup to the NAS at 02:00",
    "Spanish lessons on Monday evenings",
    "gluten-free meals when ordering for the team",
]


def memories(n: int = 200) -> list[str]:
    """n distinct one-line memories of typical length (6-15 words)."""
    pairs = itertools.product(OBJECTS, SUBJECTS)
    return [f"{verb} {obj}." for obj, verb in itertools.islice(pairs, n)]


def main() -> None:
    """Measure and print; nothing is asserted (timing goals live here, not in tests)."""
    embedder = embed.LocalEmbedder()
    start = time.perf_counter()
    embedder.load()
    load_s = time.perf_counter() - start

    texts = memories(200)
    embedder.embed_batch(texts[:32])  # warm-up: first runs pay for allocations
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        embedder.embed_batch(texts)
        runs.append(time.perf_counter() - start)
    rate = len(texts) / min(runs)

    queries = [f"what do I use for {obj.split()[-1]}?" for obj in OBJECTS] * 4
    latencies = []
    for query in queries:
        start = time.perf_counter()
        embedder.embed(query)
        latencies.append((time.perf_counter() - start) * 1000)
    latencies.sort()

    print(f"model            {embedder.model_id} ({embedder.dimensions}-d)")
    print(f"threads          {embed.thread_count()} (cpus {os.cpu_count()})")
    print(f"load             {load_s:.2f} s (import onnxruntime + tokenizer + sha256 + session)")
    print(f"batch 32         {rate:.0f} sentences/s ({len(texts)} one-line memories, best of 3)")
    p50 = statistics.median(latencies)
    p90 = latencies[int(len(latencies) * 0.9)]
    print(f"single query     p50 {p50:.1f} ms, p90 {p90:.1f} ms (warm, {len(queries)} queries)")


if __name__ == "__main__":
    main()
    print(load_line())
