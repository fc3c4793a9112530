"""What one prompt hook and one CLI ``recall`` cost, with the daemon answering and without it.

    python bench/bench_hooks.py                        # 2,000 with the real model + 100k hashed
    python bench/bench_hooks.py --n 20000 --real-n 500 --dir /tmp/vm-hooks   # keep and reuse vaults
    python bench/bench_hooks.py --skip-hashed          # the real-model vault only

Each call is a new process, as a user pays it: ``vault-mem hook user-prompt-submit`` with a JSON
event on stdin (what Claude Code runs on every prompt) and ``vault-mem recall QUERY``, each timed
from spawn to exit, with the vault's daemon running (reads answered on its socket) and without
one (the cold path: start Python, open the vault, reconcile, load the model, search).

Two vaults of realistic memories (``bench/corpus.py``):

- ``real``: ``--real-n`` memories embedded with the real local model (MiniLM); queries use it
  too. Both paths are exactly what a user runs; N is small because embedding takes minutes.
- ``hashed``: ``--n`` memories (default 100,000) whose vectors come from a fast hashing
  embedder (bench_recall.py's HashEmbedder), served to vault-mem as an OpenAI-compatible
  ``/v1/embeddings`` endpoint by this script (``[embedder] provider = "openai"``, ``prefix =
  "server"``), so the stored vectors and the query vectors come from the same embedder and the
  search is a real 100k-vector search. To pay a real query's model cost, the endpoint also runs
  the real local model on every query text (the result is discarded) before answering. What
  this vault does not show: the cold path's model load (the endpoint holds the model; the
  cold path imports httpx instead) -- the real vault's cold figure has it.

Goals (issue 17): prompt hook <= 300 ms median and CLI recall <= 300 ms p50 at 100k with the
daemon. Prints one JSON object per (vault, daemon on/off, command) with p50/p95/max in ms,
then the load average.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus import load_line, memories, write_vault

from vault_mem.store import daemon_socket as protocol

HASH_MODEL = "bench-hash-384"
PROMPTS = [
    "which editor do I use for Rust?", "how do we cut a release of the billing service",
    "what did we decide about the database for the ledger", "who is the tech lead on checkout",
    "remind me how to restart the staging cluster", "what does Maya prefer for code review",
    "fix the flaky test in the auth service", "where does Priya live", "why did we drop Jenkins",
    "what is the deploy procedure for the mobile app", "tea or coffee in the morning?",
    "summarise the incident write-ups format", "which terminal multiplexer do I like",
]


def hashed(texts: list[str], dims: int = 384) -> np.ndarray:
    """bench_recall.py's HashEmbedder: bag of hashed words -> unit vectors."""
    out = np.zeros((len(texts), dims), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in text.lower().split():
            h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little")
            out[row, h % dims] += 1.0 if h & 1 << 20 else -1.0
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return out / norms


class HashEndpoint:
    """A local OpenAI-compatible /v1/embeddings serving :func:`hashed` vectors; queries also run
    through the real local model first (their real cost, result discarded)."""

    def __init__(self, port: int) -> None:
        from vault_mem.embed.local import LocalEmbedder

        self.model = LocalEmbedder()
        lock = threading.Lock()
        model = self.model

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                if body.get("input_type") == "query":
                    with lock:
                        model.embed_batch(texts, kind="query")
                vecs = hashed(texts)
                data = json.dumps({"object": "list", "model": HASH_MODEL, "data": [
                    {"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vecs)]})
                out = data.encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def vault_mem_command() -> list[str]:
    """The ``vault-mem`` console script next to this Python (what a user runs), else -m."""
    script = Path(sys.executable).with_name("vault-mem")
    return [str(script)] if script.exists() else [sys.executable, "-m", "vault_mem"]


def run(args: list[str], env: dict, *, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*vault_mem_command(), *args], input=input, capture_output=True, text=True,
                          env=env, timeout=600, check=False)


def build(root: Path, n: int, env: dict, *, port: int | None) -> None:
    """A vault of ``n`` corpus memories at ``root``, fully indexed (reused when it is there)."""
    if (root / "vault.toml").exists() and (root / ".vault-mem" / "index.db").exists():
        print(f"# reusing {root}", file=sys.stderr)
        return
    t0 = time.perf_counter()
    write_vault(root, n)
    if port is not None:
        toml = (root / "vault.toml").read_text()
        toml = toml.replace('provider = "local"', f'provider = "openai"\nmodel = "{HASH_MODEL}"\n'
                            f'url = "http://127.0.0.1:{port}"\nprefix = "server"', 1)
        (root / "vault.toml").write_text(toml)
        subprocess.run(["git", "-C", str(root), "commit", "-qam", "bench: hashed embedder", "--no-verify"],
                       check=True, env=env)
        run(["trust", "--yes", "--vault", str(root)], env)
    print(f"# wrote {n} memories in {time.perf_counter() - t0:.0f} s; indexing", file=sys.stderr)
    t0 = time.perf_counter()
    done = run(["reindex", "--vault", str(root)], env)
    if done.returncode:
        raise SystemExit(f"reindex failed: {done.stderr}")
    print(f"# indexed in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


def start_daemon(root: Path, env: dict) -> subprocess.Popen:
    log = open(root.parent / f"{root.name}-daemon.log", "ab")  # noqa: SIM115 - the daemon's stderr
    proc = subprocess.Popen([*vault_mem_command(), "daemon", str(root)], env=env, stdout=subprocess.DEVNULL,
                            stderr=log)
    log.close()
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the daemon exited ({proc.returncode}); see {log.name}")
        if protocol.ask(root, "list", {"type": "procedure"}, timeout=60) is not None:
            return proc
        time.sleep(0.2)
    raise SystemExit("the daemon did not start serving reads within 600 s")


def stop_daemon(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=60)


def prompts(n: int, count: int) -> list[str]:
    """Half the prompts name something stored (a memory's description), half are everyday."""
    r = random.Random(7)
    stored = [m["description"] for m in r.sample(memories(n), min(count, n))]
    mixed = [p for pair in zip(stored, PROMPTS * (count // len(PROMPTS) + 1)) for p in pair]
    return mixed[:count]


def timed(label: str, calls: list[tuple[list[str], str | None]], env: dict) -> dict:
    times, failures = [], 0
    for argv, stdin in calls:
        t0 = time.perf_counter()
        done = run(argv, env, input=stdin)
        times.append((time.perf_counter() - t0) * 1000)
        failures += done.returncode != 0
    times.sort()
    return {"what": label, "calls": len(times), "failed": failures,
            "p50_ms": round(statistics.median(times), 1),
            "p95_ms": round(times[min(len(times) - 1, int(0.95 * len(times)))], 1),
            "max_ms": round(times[-1], 1), "load": [round(x, 2) for x in os.getloadavg()]}


def measure(name: str, root: Path, n: int, env: dict, *, warm_calls: int, cold_calls: int) -> list[dict]:
    results = []
    queries = prompts(n, max(warm_calls, cold_calls))

    def calls(kind: str, count: int) -> list[tuple[list[str], str | None]]:
        if kind == "hook":
            return [(["--vault", str(root), "hook", "user-prompt-submit"],
                     json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": q, "cwd": str(root)}))
                    for q in queries[:count]]
        return [(["recall", "--vault", str(root), *q.split()], None) for q in queries[:count]]

    daemon = start_daemon(root, env)
    try:
        for kind in ("hook", "recall"):
            results.append({"vault": name, "memories": n, "daemon": True,
                            **timed(f"{kind} (daemon)", calls(kind, warm_calls), env)})
    finally:
        stop_daemon(daemon)
    for kind in ("hook", "recall"):
        results.append({"vault": name, "memories": n, "daemon": False,
                        **timed(f"{kind} (no daemon)", calls(kind, cold_calls), env)})
    for row in results:
        print(json.dumps(row), flush=True)
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000, help="memories in the hashed vault")
    ap.add_argument("--real-n", type=int, default=2000, help="memories in the real-model vault")
    ap.add_argument("--dir", help="build the vaults here and keep them (reused when present)")
    ap.add_argument("--port", type=int, default=18765, help="the hashing endpoint's port")
    ap.add_argument("--calls", type=int, default=30, help="calls per figure with the daemon")
    ap.add_argument("--cold-calls", type=int, default=8, help="calls per figure without it")
    ap.add_argument("--skip-hashed", action="store_true")
    ap.add_argument("--skip-real", action="store_true")
    args = ap.parse_args()
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="vm-bench-hooks-"))
    base.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(base / "xdg"),
           "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    env.pop("VAULT_MEM_EMBEDDER", None)
    env.pop(protocol.USE_ENV, None)
    print(f"# {load_line()}", file=sys.stderr)
    endpoint = None
    try:
        if not args.skip_real:
            root = base / f"real-{args.real_n}"
            build(root, args.real_n, env, port=None)
            measure("real model", root, args.real_n, env, warm_calls=args.calls, cold_calls=args.cold_calls)
        if not args.skip_hashed:
            endpoint = HashEndpoint(args.port)
            root = base / f"hashed-{args.n}"
            build(root, args.n, env, port=args.port)
            measure("hashed vectors", root, args.n, env, warm_calls=args.calls, cold_calls=args.cold_calls)
    finally:
        if endpoint is not None:
            endpoint.close()
        if not args.dir:
            shutil.rmtree(base, ignore_errors=True)
    print(load_line())


if __name__ == "__main__":
    main()
