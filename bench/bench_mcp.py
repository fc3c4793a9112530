"""The MCP server as Claude Code runs it: a long-lived ``vault-mem mcp`` process, with and without
the daemon, driven by the MCP SDK's own client over stdio.

    python bench/bench_mcp.py                       # 100k memories (first run builds the vault: slow)
    python bench/bench_mcp.py --n 10000 --dir /tmp/vm-mcp-10k --queries 200
    python bench/bench_mcp.py --mode without        # only without the daemon
    python bench/bench_mcp.py --peers               # every memory a peer's (built vault)

Memories are realistic (``bench/corpus.py``). Their vectors come from a fast hashing embedder of
the local model's dimension (384), (``bench/corpus.py``'s ``HashEmbedder``): embedding 100k texts with
MiniLM would take ~20 minutes, and what is timed here (holding, loading and searching the
vectors) depends on their count and dimension, not on their meaning. The query side matches
the stored side: the server (this script with ``--serve``) runs the real MCP server with an
embedder whose ``load()`` loads the real local model (so start-up pays the real model load in
the background) and which embeds every query with the real model too (its cost is paid and
timed) but searches with the query's hashed vector, which matches the stored ones. The daemon
(``--daemon``) uses the same hashing embedder, so it never re-embeds the vault.

The corpus's commit author is the person here (``GIT_AUTHOR_EMAIL``, as in bench_growth.py), so
the memories are the person's, not a peer's. A vault built before that rule (its record of the
commits made here seeded without the bench's) counts them as a peer's: build it again.
``--peers`` runs the server and the daemon with another person (``person@elsewhere.invalid``):
the corpus is then a peer's (made here under another's email), as in a clone of a team's vault,
and each recall whose hits are a peer's is asked again without them (``Vault._trusted_kept``).

Figures, per mode (``without``: no daemon, the server's own watcher; ``with``: a daemon started
before the server):
- ``start_to_initialize_ms``: spawn to the answer of MCP ``initialize``;
- ``start_to_first_recall_ms``: spawn to the first recall's answer (sent right after initialize),
  and whether that answer was keyword-only (vectors still loading);
- ``vectors_loaded_ms`` / ``vector_load_ms``: when the background load finished (from spawn) and
  how long the vector load itself took, as the server reports it on stderr (while this bench's
  recalls run: they share the interpreter with it); ``vector_load_alone_ms``: the same load in
  this process with nothing else running, three times; ``keyword_search_alone_ms``: the
  keyword side of recall (FTS5) alone over the same queries;
- RSS from ``/proc/PID/status``: ``VmHWM`` (peak) and ``VmRSS`` (steady, after the recalls);
- ``recall_ms`` p50/p95 over ``--queries`` recalls through the client, right after the first
  (the start-up work may still run meanwhile: ``recalls_keyword_only`` counts those answered
  before the model and vectors were in); ``start_to_warm_ms``: spawn to the first recall that
  is full and carries no start-up notice; ``warm_recall_ms``: the same queries again after that;
- ``cpu_to_first_recall_ms``: the server's CPU time (every thread, from ``/proc``) from spawn
  to the first recall's answer; ``warm_recall_server_cpu_ms_mean``: its CPU time per warm
  recall (the MCP layer included): on a busy machine the wall times above grow with the load,
  these much less;
- ``edit_to_visible_ms``: a hand edit (a new word appended to a memory file, like an editor
  save) to the first MCP recall that finds it, polled at once and then every 5 ms;
- ``warm_recall_gc``: the collections of the oldest generation of Python's garbage collector in
  the server during the warm recalls (each walks every object the process holds while no call
  is answered), their time, and how many of the slowest 5% of warm recalls ran during one: one
  cause of a tail, told apart from the others.
- ``peers_judged`` / ``warm_peers_judged``: how many times the server judged the peers' memories
  (:class:`vault_mem.vault.peers.KeptPeers`, its DEBUG log) over the whole session / during the
  warm recalls, each with its time since the server's start and what moved (the first: nothing
  was kept; the edits then move the rows): with nothing changed there is no other, and at 100k
  each is ~1.8 s of the server's CPU; ``warm_span_ms``: when the warm recalls ran, from spawn;
- ``warm_new_query_recall_ms``, ``warm_new_query_server_cpu_ms_mean``, ``warm_new_query_peers_judged``:
  the same number of warm recalls again, each query new (a session's prompts: words whose vectors
  the answer check has not cached yet), after the warm ones.
``--sample-start FILE``: every thread of the server sampled from its start (once this script's
own imports are done) to the first answer (its stack every 2 ms; the sampler's own CPU inflates the figures of that run: time with a run
without it), each thread's costliest functions written to FILE as JSON.
``--profile-server N``: the server's warm recalls under cProfile (its event loop's thread, where
every call runs: the MCP layer, the notifier's looks and the recall itself), the N costliest
functions by own and by cumulative time (what a warm recall spends its CPU on, stage by stage;
profiled times are inflated, compare them with each other).
Prints one JSON object and the load average.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the checkout whose vault_mem the server and daemon run (``--code``: a before/after comparison)
CODE = Path(os.environ.get("BENCH_MCP_CODE") or HERE.parent).resolve()
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(CODE))

from corpus import HashEmbedder, load_line, memories, write_vault

QUERIES = ["what does the user prefer for their editor", "which database did we choose and why",
           "how do I restart the backup job", "where does my sister live", "when is the dentist appointment",
           "what did we decide about the release schedule", "the staging server's address",
           "coffee order", "deploy procedure for the web app", "who owns the billing project"]


class BenchQueries(HashEmbedder):
    """Stored side: hashed vectors. Query side: the real local model runs (timed, loaded by
    ``load()`` at start-up like the real embedder), then the hashed vector is searched."""

    def __init__(self) -> None:
        from vault_mem.embed.local import LocalEmbedder

        self.local = LocalEmbedder()

    def load(self) -> None:
        self.local.load()

    def embed_batch(self, texts, *, kind="document"):
        if kind == "query":
            self.local.embed_batch(texts, kind="query")
        return super().embed_batch(texts, kind=kind)


def build(root: Path, n: int) -> None:
    """The bench vault: ``n`` corpus memories committed, indexed, hashed vectors stored."""
    from vault_mem.vault.core import Vault

    t0 = time.perf_counter()
    write_vault(root, n)
    with Vault(root, embedder=HashEmbedder()) as vault:
        vault.reconcile(force=True)
        # every vector: a reconcile makes a bounded share only, and the server then spent its
        # first minutes (and the timed recalls) making the rest (~93k at 100k)
        vault.sidecar.vectors.embed_pending()
        # the record of the commits made here, seeded now under the bench's person (main() sets
        # it): a first read under --peers' person would seed it without the corpus's commits
        from vault_mem.vault import authors

        authors.identities(vault.ws)
    (root / ".bench-ready").write_text(str(n))
    print(f"built {n} memories in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


def serve_process(root: Path, state: Path) -> None:
    """The real MCP server (``vault-mem mcp``) with the bench's embedder (see BenchQueries);
    its pid and log (INFO: the background load's times) go to ``state``."""
    import logging

    from vault_mem.adapters.mcp_server import serve

    (state / "pid").write_text(str(os.getpid()))
    logging.basicConfig(level=logging.INFO, filename=str(state / "server.log"),
                        format="%(relativeCreated).0f ms: %(message)s")
    # each judgement of the peers' memories made again, with what moved (peers_judged below)
    logging.getLogger("vault_mem.vault.peers").setLevel(logging.DEBUG)
    pauses = collections_timed()
    if os.environ.get("BENCH_MCP_PROFILE"):
        profile_on_signal(Path(os.environ["BENCH_MCP_PROFILE"]))
    if os.environ.get("BENCH_MCP_SAMPLE"):
        sample_until_signal(Path(os.environ["BENCH_MCP_SAMPLE"]))
    try:
        if "embedder" in inspect.signature(serve).parameters:
            serve(root, embedder=BenchQueries())
            return
        # an older server (``--code``) opens its vault itself: hand it the bench's embedder there
        from vault_mem.adapters import mcp_server

        opened = mcp_server.Vault
        mcp_server.Vault = lambda *a, **kw: opened(*a, embedder=BenchQueries(), **kw)
        serve(root)
    finally:
        (state / "gc.json").write_text(json.dumps(pauses))


def profile_on_signal(out: Path) -> None:
    """Profile this process's main thread (the server's event loop: where every call runs) from
    SIGUSR1 to SIGUSR2, then write the stats to ``out`` (``--profile-server``: the warm recalls)."""
    import cProfile

    prof = cProfile.Profile()
    signal.signal(signal.SIGUSR1, lambda *_: prof.enable())

    def stop(*_) -> None:
        prof.disable()
        prof.dump_stats(str(out))

    signal.signal(signal.SIGUSR2, stop)


def sample_until_signal(out: Path, every_s: float = 0.002) -> None:
    """Sample every thread's stack every ``every_s`` from now (the server's start) until SIGUSR2
    (sent after the first answer: ``--sample-start``), then write, per thread, how many samples
    each function was on the stack in (inclusive) and on top of it (own) to ``out`` as JSON. A
    thread waiting (a lock, a socket read, SQLite or onnxruntime with the interpreter's lock let
    go) is sampled too: read it beside the CPU figures."""
    import collections
    import threading

    stop = threading.Event()
    own: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    incl: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    count: collections.Counter = collections.Counter()

    def where(code) -> str:
        return f"{Path(code.co_filename).name}:{code.co_firstlineno}({code.co_name})"

    def run() -> None:
        me = threading.get_ident()  # the sampler's own (this function runs on it)
        while not stop.wait(every_s):
            names = {t.ident: t.name for t in threading.enumerate()}
            for ident, frame in sys._current_frames().items():
                if ident == me:
                    continue
                name = names.get(ident, str(ident))
                count[name] += 1
                own[name][where(frame.f_code)] += 1
                seen = set()
                while frame is not None:
                    w = where(frame.f_code)
                    if w not in seen:
                        seen.add(w)
                        incl[name][w] += 1
                    frame = frame.f_back

    def done(*_) -> None:
        stop.set()
        out.write_text(json.dumps({name: {"samples": n, "own": own[name].most_common(25),
                                          "inclusive": incl[name].most_common(60)} for name, n in count.items()}))

    signal.signal(signal.SIGUSR2, done)
    threading.Thread(target=run, name="bench-sampler", daemon=True).start()


def collections_timed() -> list[tuple[int, float, float]]:
    """Every collection of Python's garbage collector in this process from now on, as
    (generation, start, seconds) on the system's monotonic clock (the bench's clock too): a
    collection of the oldest generation walks every object the process holds (the MCP SDK's,
    the model's, ...) while no request is answered, so these say which slow recalls it made."""
    import gc

    out: list[tuple[int, float, float]] = []
    began = [0.0]

    def timed(phase: str, info: dict) -> None:
        if phase == "start":
            began[0] = time.monotonic()
        else:
            out.append((info["generation"], began[0], time.monotonic() - began[0]))

    gc.callbacks.append(timed)
    return out


def tail_causes(spans: list[tuple[float, float]], state: Path) -> dict:
    """Which warm recalls (``spans``: start and end on the monotonic clock) a collection of the
    oldest generation ran during, from the server's record (``gc.json``, written as it exits)."""
    path = state / "gc.json"
    deadline = time.monotonic() + 10
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    if not path.exists():
        return {}
    full = [(start, start + took) for gen, start, took in json.loads(path.read_text()) if gen == 2]
    took = sorted(((end - start) * 1000, start, end) for start, end in spans)
    tail = took[int(0.95 * (len(took) - 1)):]
    hit = lambda start, end: any(s < end and e > start for s, e in full)  # noqa: E731
    return {"gen2_collections": sum(1 for s, e in full if any(s < b and e > a for a, b in spans)),
            "gen2_ms": round(sum((e - s) * 1000 for s, e in full if any(s < b and e > a for a, b in spans)), 1),
            "tail_recalls": len(tail), "tail_recalls_during_gen2": sum(1 for _, a, b in tail if hit(a, b))}


def daemon(root: Path) -> int:
    from vault_mem.daemon.process import Daemon

    # the bench's hand edits are not committed behind its back
    d = Daemon(root, embedder=HashEmbedder(), commit_external_edits="off")
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: d.stop())
    return d.run()


def server_params(root: Path, state: Path):
    from mcp import StdioServerParameters

    # as `vault-mem mcp` runs (its main() sets these before numpy loads; this script's own
    # imports load numpy first)
    try:
        from vault_mem.platform.threads import ONE_BLAS_THREAD
    except ImportError:  # an older checkout (--code)
        ONE_BLAS_THREAD = ()
    env = {**{name: "1" for name in ONE_BLAS_THREAD}, **os.environ, "PYTHONPATH": str(CODE), "BENCH_MCP_CODE": str(CODE)}
    return StdioServerParameters(command=sys.executable,
                                 args=[str(Path(__file__).resolve()), "--serve", str(root), "--state", str(state)],
                                 env=env, cwd=str(HERE.parent))


def cpu_ms(pid: int) -> float:
    """CPU time (user + system, every thread) ``pid`` has used so far, in ms: a figure the
    other processes of a busy machine do not inflate as they do wall times."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def proc_status(pid: int) -> dict[str, int]:
    """VmHWM (peak) and VmRSS (now) of ``pid`` in MB, from /proc."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmHWM", "VmRSS"):
            out[name] = round(int(value.split()[0]) / 1024)
    return out


def pct(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {"p50": round(statistics.median(ms), 1), "p95": round(ms[int(0.95 * (len(ms) - 1))], 1),
            "max": round(ms[-1], 1)}


async def session(root: Path, n_queries: int, edits: int, state: Path, profile: bool = False,
                  sample: bool = False) -> dict:
    from mcp import Client

    def payload(result) -> dict:
        # recall's text is the memories fenced for the model; its data rides in the result's _meta
        # (vault_mem.adapters.mcp_server.DATA_META), or, from a checkout before that (--code),
        # in its structured content; an error's text is its data as JSON
        data = (result.meta or {}).get("vault-mem/data")
        if data is not None:
            return data
        if result.structured_content is not None:
            return result.structured_content
        return json.loads(result.content[0].text)

    out: dict = {}
    t0, m0 = time.perf_counter(), time.monotonic()
    async with Client(server_params(root, state), read_timeout_seconds=300) as client:
        out["start_to_initialize_ms"] = round((time.perf_counter() - t0) * 1000)
        first = payload(await client.call_tool("recall", {"query": QUERIES[0]}))
        out["start_to_first_recall_ms"] = round((time.perf_counter() - t0) * 1000)
        if "hits" not in first:
            raise SystemExit(f"recall failed: {first}")
        out["first_recall_keyword_only"] = first.get("keyword_only", False)
        out["first_recall_notices"] = first.get("notices", [])
        pid = int((state / "pid").read_text())
        out["cpu_to_first_recall_ms"] = round(cpu_ms(pid))
        if sample:
            os.kill(pid, signal.SIGUSR2)
        rng = random.Random(5)
        items = memories(min(n_queries * 20, 20000))
        qs = [" ".join(rng.choice(items)["description"].split()[:rng.randint(3, 7)]) for _ in range(n_queries)]
        qs = [*QUERIES, *qs][:n_queries]
        times, keyword_only, warm_at = [], 0, None
        for q in qs:
            t = time.perf_counter()
            r = payload(await client.call_tool("recall", {"query": q}))
            times.append((time.perf_counter() - t) * 1000)
            keyword_only += r.get("keyword_only", False)
            if warm_at is None and not r.get("keyword_only") and not r.get("notices"):
                warm_at = time.perf_counter()
        out["recall_ms"] = pct(times)
        out["recalls_keyword_only"] = keyword_only
        # warm: once a recall is full (model and vectors in) and carries no start-up notice
        while warm_at is None:
            r = payload(await client.call_tool("recall", {"query": QUERIES[2]}))
            if not r.get("keyword_only") and not r.get("notices"):
                warm_at = time.perf_counter()
            elif time.perf_counter() - t0 > 300:
                raise SystemExit(f"the server never got warm: {r}")
            else:
                await _sleep(0.1)
        out["start_to_warm_ms"] = round((warm_at - t0) * 1000)
        warm, spans = [], []
        if profile:
            os.kill(pid, signal.SIGUSR1)
        log_at = _log_size(state)
        cpu0 = cpu_ms(pid)
        for q in qs:
            t = time.perf_counter()
            began = time.monotonic()
            await client.call_tool("recall", {"query": q})
            spans.append((began, time.monotonic()))
            warm.append((time.perf_counter() - t) * 1000)
        out["warm_recall_ms"] = pct(warm)
        out["warm_span_ms"] = [round((spans[0][0] - m0) * 1000), round((spans[-1][1] - m0) * 1000)]
        out["_warm_spans"] = spans
        if profile:
            os.kill(pid, signal.SIGUSR2)
        out["warm_recall_server_cpu_ms_mean"] = round((cpu_ms(pid) - cpu0) / len(qs), 1)
        out["warm_peers_judged"] = _judged(state, log_at, _log_size(state))
        # warm again, each query new (words the answer check has not cached: a session's prompts)
        rng2 = random.Random(7)
        fresh = [" ".join(rng2.choice(items)["description"].split()[:rng2.randint(3, 7)]) + f" {w}"
                 for w in ("today", "again", "lately", "now", "still", "anyway", "first", "really", "maybe", "soon")
                 for _ in range(max(1, n_queries // 10))][:n_queries]
        log_at, cpu0, new_ms = _log_size(state), cpu_ms(pid), []
        for q in fresh:
            t = time.perf_counter()
            await client.call_tool("recall", {"query": q})
            new_ms.append((time.perf_counter() - t) * 1000)
        out["warm_new_query_recall_ms"] = pct(new_ms)
        out["warm_new_query_server_cpu_ms_mean"] = round((cpu_ms(pid) - cpu0) / len(fresh), 1)
        out["warm_new_query_peers_judged"] = _judged(state, log_at, _log_size(state))
        # hand edit -> visible through MCP recall: a new word appended to a memory file in place
        files = sorted((root / "facts").glob("*.md"))[:edits]
        lat = []
        for i, path in enumerate(files):
            word = f"zqxedit{os.getpid()}x{i}"
            original = path.read_bytes()
            t = time.perf_counter()
            with open(path, "ab") as fh:  # noqa: ASYNC230 - the edit is the point, and it is timed
                fh.write(f"\nAlso: {word}\n".encode())
            polls = 0
            while True:
                polls += 1
                hits = payload(await client.call_tool("recall", {"query": word}))["hits"]
                if any(h["key"] == path.stem for h in hits):
                    break
                if time.perf_counter() - t > 30:
                    raise SystemExit(f"edit of {path.name} not visible after 30 s")
                await _sleep(0.005)
            lat.append((time.perf_counter() - t) * 1000)
            out.setdefault("edit_polls", []).append(polls)
            path.write_bytes(original)
        out["edit_to_visible_ms"] = pct(lat)
        out.update({f"{k}_mb": v for k, v in proc_status(pid).items()})
        await _sleep(1.0)  # the restores above reach the index before the session ends
        await client.call_tool("recall", {"query": QUERIES[1]})
    log = (state / "server.log").read_text() if (state / "server.log").exists() else ""
    out["peers_judged"] = _judged(state, 0, len(log.encode()))
    for line in log.splitlines():
        if "ready for full recall" in line:
            out["server_ready_line"] = line.strip()
        if "vectors in memory" in line:
            out["server_vectors_line"] = line.strip()
        if "to catch up" in line:
            out["server_watch_line"] = line.strip()
    return out


def _log_size(state: Path) -> int:
    path = state / "server.log"
    return path.stat().st_size if path.exists() else 0


def _judged(state: Path, start: int, end: int) -> dict:
    """The server's judgements of the peers' memories logged between byte offsets ``start`` and
    ``end`` of its log (``vault_mem.vault.peers``, DEBUG): how many, and why each (what moved).
    Each at 100k is ~1.8 s of the server's CPU; with nothing changed there should be one."""
    path = state / "server.log"
    if not path.exists():
        return {"count": 0, "why": []}
    with open(path, "rb") as fh:
        fh.seek(start)
        text = fh.read(max(0, end - start)).decode("utf-8", "replace")
    why = [line.split(" ms: ", 1)[0] + " ms: " + line.split("judged again ", 1)[1]
           for line in text.splitlines() if "peers' memories judged again" in line]
    return {"count": len(why), "why": why[:10]}


async def _sleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)


def run_mode(root: Path, mode: str, args) -> dict:
    import anyio

    from vault_mem.daemon.process import daemon_status

    state = Path(tempfile.mkdtemp(prefix="bench-mcp-"))  # the server's pid, log and pauses
    proc, done = None, False
    try:
        if mode == "with":
            with open(state / "daemon.log", "wb") as err:
                proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--daemon", str(root)],
                                        stdout=subprocess.DEVNULL, stderr=err,
                                        env={**os.environ, "PYTHONPATH": str(CODE), "BENCH_MCP_CODE": str(CODE)})
            deadline = time.monotonic() + 600
            while not daemon_status(root).get("ready"):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the daemon did not start: see {state / 'daemon.log'}")
                time.sleep(0.2)
        if args.profile_server:
            os.environ["BENCH_MCP_PROFILE"] = str(state / "profile")  # the server's environment
        if args.sample_start:
            os.environ["BENCH_MCP_SAMPLE"] = str(args.sample_start)
        out = anyio.run(session, root, args.queries, args.edits, state, bool(args.profile_server),
                        bool(args.sample_start))
        if args.profile_server:
            import pstats

            for order in ("tottime", "cumulative"):
                pstats.Stats(str(state / "profile"), stream=sys.stderr).sort_stats(order).print_stats(args.profile_server)
        out["warm_recall_gc"] = tail_causes(out.pop("_warm_spans"), state)
        out["daemon"] = mode == "with"
        done = True
        return out
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
        if done:  # a failed run keeps its logs, which its message names
            shutil.rmtree(state, ignore_errors=True)


def vector_load_alone(root: Path, times: int = 3) -> list[int]:
    """The in-memory vector load by itself, in this process, ``times`` times (ms): what the
    server's figure costs when no recalls compete with it for the interpreter (the bench sends
    its recalls while the server loads)."""
    from vault_mem import Vault

    with Vault(root, embedder=HashEmbedder()) as v:
        return [round(v.sidecar.vectors.preload_vectors() * 1000) for _ in range(times)]


def keyword_alone(root: Path, n_queries: int) -> dict[str, float]:
    """The keyword side of recall by itself (FTS5 search under the default filters), in this
    process, over the bench's queries (ms): where the tail of a 100k recall was."""
    import datetime as dt

    from vault_mem import Vault
    from vault_mem.index.search import Filters, keyword_search
    from vault_mem.model.terms import query_terms

    rng = random.Random(5)
    items = memories(min(n_queries * 20, 20000))
    qs = [*QUERIES, *(" ".join(rng.choice(items)["description"].split()[:rng.randint(3, 7)])
                      for _ in range(n_queries))][:n_queries]
    today = dt.date.today().isoformat()
    with Vault(root, embedder=HashEmbedder()) as v:
        times = []
        for q in qs:
            t = time.perf_counter()
            keyword_search(v.sidecar.db, query_terms(q), Filters(today=today))
            times.append((time.perf_counter() - t) * 1000)
    return pct(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dir", type=Path, default=None, help="vault to build or reuse (default /tmp/vm-mcp-N)")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--mode", choices=["both", "without", "with"], default="both")
    ap.add_argument("--profile-server", type=int, default=0, metavar="N",
                    help="profile the server's warm recalls (cProfile) and print its N costliest functions")
    ap.add_argument("--sample-start", type=Path, metavar="FILE",
                    help="sample every thread of the server from spawn to the first answer (every 2 ms) and "
                         "write each thread's costliest functions to FILE (JSON)")
    ap.add_argument("--code", type=Path, help="run the server and daemon of this checkout (default: this one)")
    ap.add_argument("--peers", action="store_true",
                    help="the server's and daemon's person another email: every memory a peer's (each recall "
                         "whose hits are a peer's asked again without them; the vault must be built first)")
    ap.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--daemon", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--state", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.code:
        os.environ["BENCH_MCP_CODE"] = str(args.code.resolve())
        os.execv(sys.executable, [sys.executable, *[a for a in sys.argv if a not in ("--code", str(args.code))]])
    # the person here is the corpus's author (bench/corpus.py commits as bench@example.invalid), in
    # this process, the server's and the daemon's: otherwise every memory is a peer's, each recall is
    # asked again without them, and the bench times the peers' case (~1 s a recall at 100k before
    # peerread); --peers times that case on purpose: another person here (BENCH_MCP_PERSON, which
    # the server and the daemon this script starts inherit), the corpus a peer's
    if args.peers:
        os.environ["BENCH_MCP_PERSON"] = "person@elsewhere.invalid"
    email = os.environ.get("BENCH_MCP_PERSON", "bench@example.invalid")
    for env, val in (("GIT_AUTHOR_NAME", "bench"), ("GIT_AUTHOR_EMAIL", email),
                     ("GIT_COMMITTER_NAME", "bench"), ("GIT_COMMITTER_EMAIL", email)):
        os.environ[env] = val
    if args.serve:
        serve_process(args.serve, args.state)
        return 0
    if args.daemon:
        return daemon(args.daemon)
    root = args.dir or Path(f"/tmp/vm-mcp-{args.n}")
    ready = root / ".bench-ready"
    if not ready.exists() or ready.read_text() != str(args.n):
        if args.peers:
            raise SystemExit("--peers: build the vault first (a run without it), its commits made as the person")
        if root.exists():
            raise SystemExit(f"{root} exists but is not a finished {args.n}-memory bench vault; remove it")
        build(root, args.n)
    results = {"n": args.n, "vault": str(root), "code": str(CODE), "peers": args.peers,
               "embedder": "stored: hashing 384-d; queries: the real local model run, then the hashed vector searched"}
    results["vector_load_alone_ms"] = vector_load_alone(root)
    results["keyword_search_alone_ms"] = keyword_alone(root, args.queries)
    for mode in (["without", "with"] if args.mode == "both" else [args.mode]):
        results[mode] = run_mode(root, mode, args)
        print(f"{mode} daemon: {load_line()}", file=sys.stderr)
    results["load"] = load_line()
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
