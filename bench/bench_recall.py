"""Recall as users call it, on realistic memories with the real bundled model: a warm process's
``Vault.recall``, a one-shot ``vault-mem recall`` without a daemon, and the first indexing
(every memory embedded) of a new vault.

    python bench/bench_recall.py                          # 10k memories, 100 warm queries, 15 CLI calls
    python bench/bench_recall.py --n 10000 --dir /tmp/vm-bench-10000 --queries 200
    python bench/bench_recall.py --first-n 0              # skip the first-indexing figure

The vault: ``--n`` memories of ``bench/corpus.py`` (five type folders, one commit), indexed, every
vector made with the real bundled model (the first run builds it: 8 minutes at 10k on a loaded 2-core box; later
runs reuse ``--dir``, the same vault ``bench/bench_edit_latency.py`` uses). Queries: half are a
few words of a memory's description (what a person half-remembers), half are questions that
share few words with any memory. Figures (milliseconds, p50/p95/max):
- ``api``: ``Vault.recall`` in this process, opened once and warmed (model loaded), vectors on,
  no daemon running: each call first reconciles (a stat per file), as DESIGN §5 says a read
  without a daemon does; ``api_keyword_only`` the same with the embedder off
  (``VAULT_MEM_EMBEDDER=none``); ``api_daemon_running`` the same as ``api`` while ``vault-mem
  daemon`` runs (it keeps the sidecar current, so the reads skip their reconcile);
- ``cli``: ``python -m vault_mem recall QUERY --json`` as a new process per call, no daemon
  (``VAULT_MEM_DAEMON=off``): interpreter start, imports, the start-up reconcile (a stat per
  file), the model load and the search;
- ``first_index``: a new vault of ``--first-n`` memories indexed from nothing with the real model
  (``Vault.reconcile`` + every vector made; no embedding cache), in seconds and memories/s.
The MCP server and the hooks have their own benches (``bench_mcp.py``, ``bench_hooks.py``).
Prints one JSON object with the load average next to each figure. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from corpus import indexed_vault, load_line, pct, start_daemon, write_vault

QUESTIONS = ["what editor does the user prefer", "which database did we choose and why",
             "how do I deploy the billing service", "who owns the checkout project",
             "where does Maya work from", "what is blocking the migration", "why is the test flaky",
             "what does the build box run", "how should code review notes be written",
             "which tool did we pick for the data pipeline", "who is on call for search",
             "what food does the user like", "when are meetings allowed", "who moved to Lisbon"]


def queries(items: list[dict], n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 2:
            out.append(rng.choice(QUESTIONS))
        else:
            words = rng.choice(items)["description"].split()
            start = rng.randint(0, max(0, len(words) - 3))
            out.append(" ".join(words[start:start + rng.randint(3, 6)]))
    return out


def timed(fn, qs: list[str]) -> dict:
    fn(qs[0])  # warm
    ms = []
    for q in qs:
        t = time.perf_counter()
        fn(q)
        ms.append((time.perf_counter() - t) * 1000)
    return {**pct(ms), "load": load_line()}


def warm_api(root: Path, qs: list[str], embedder: str) -> dict:
    from vault_mem.vault.core import Vault

    os.environ["VAULT_MEM_EMBEDDER"] = embedder
    try:
        with Vault(root) as vault:
            vault.recall("warm up")
            keyword_only = sum(vault.recall(q).keyword_only for q in qs[:10])
            out = timed(lambda q: vault.recall(q), qs)
            hits = sum(bool(vault.recall(q).hits) for q in qs[:20])
    finally:
        os.environ.pop("VAULT_MEM_EMBEDDER", None)
    return {**out, "keyword_only_answers_of_10": keyword_only, "answered_with_hits_of_20": hits}


def one_shot_cli(root: Path, qs: list[str]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(HERE.parent), "VAULT_MEM_DAEMON": "off"}
    env.pop("VAULT_MEM_EMBEDDER", None)
    keyword_only = 0

    def run(q: str) -> None:
        nonlocal keyword_only
        proc = subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(root), "recall", q, "--json"],
                              check=True, capture_output=True, env=env)
        keyword_only += bool(json.loads(proc.stdout).get("keyword_only"))

    out = timed(run, qs)
    return {**out, "keyword_only_answers": keyword_only}


def first_index(n: int) -> dict:
    from vault_mem.vault.core import Vault

    tmp = Path(tempfile.mkdtemp(prefix="bench-first-index-"))
    try:
        root = tmp / "v"
        write_vault(root, n, seed=3)
        t0 = time.perf_counter()
        with Vault(root) as vault:
            report = vault.reconcile(force=True)
            made = vault.sidecar.vectors.embed_pending()
            secs = time.perf_counter() - t0
            missing = vault.recall("who owns the billing project").note
        return {"memories": report.added, "vectors_made": (report.embedded or 0) + made, "seconds": round(secs, 1),
                "memories_per_s": round(report.added / secs, 1), "note_after": missing, "load": load_line()}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--dir", type=Path, default=None, help="vault to build or reuse (default /tmp/vm-bench-N)")
    ap.add_argument("--queries", type=int, default=100, help="warm API queries")
    ap.add_argument("--cli-queries", type=int, default=15, help="one-shot CLI calls")
    ap.add_argument("--no-daemon", dest="daemon", action="store_false",
                    help="skip the warm API figure with a daemon running")
    ap.add_argument("--first-n", type=int, default=1000, help="memories for the first-indexing figure (0: skip)")
    args = ap.parse_args()
    root = args.dir or Path(f"/tmp/vm-bench-{args.n}")
    t0 = time.perf_counter()
    items = indexed_vault(root, args.n)
    out: dict = {"n": args.n, "vault": str(root), "vault_ready_s": round(time.perf_counter() - t0, 1),
                 "load_before": load_line()}
    qs = queries(items, args.queries)
    out["api"] = warm_api(root, qs, "local")
    out["api_keyword_only"] = warm_api(root, qs, "none")
    if args.daemon:
        proc = start_daemon(root, root / ".vault-mem" / "bench-daemon.stderr")
        try:
            out["api_daemon_running"] = warm_api(root, qs, "local")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    if args.cli_queries:
        out["cli"] = one_shot_cli(root, qs[: args.cli_queries])
    if args.first_n:
        out["first_index"] = first_index(args.first_n)
    out["load_after"] = load_line()
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
