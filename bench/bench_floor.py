"""The relevance floor: questions about things never stored should get no hits.

    python bench/bench_floor.py ../shared/bench/locomo-dev-observations.json
    python bench/bench_floor.py ../shared/bench/locomo-dev-turns.json --json

Reads the benchmark's memories at run time (never stored here) and asks every group, next to
its own questions, the off-topic questions below: general-knowledge and technical questions
that no personal conversation in the set is about. Each counts as answered when recall returns
nothing (the eval's rule for a query whose ``relevant`` list is empty). Prints the share of
off-topic questions with no hits, and the share of the benchmark's own questions with no hits
(which should stay near 0: every one of them has an answer). Uses the default embedder.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

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
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", type=Path, help="benchmark JSON (../shared/bench/...)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    data = load_benchmark(args.file)
    groups = sorted({str(m.get("group", "")) for m in data["memories"]})
    real = [{**q, "category": "benchmark"} for q in data["queries"]]
    off = [{"id": f"off-{g}-{i}", "q": q, "relevant": [], "category": "off-topic", "group": g}
           for g in groups for i, q in enumerate(OFF_TOPIC)]
    report = run_eval_data({"memories": data["memories"], "queries": real + off})
    cats = report["by_category"]
    out = {
        "file": args.file.name,
        "groups": len(groups),
        "off_topic_questions": cats["off-topic"]["n_queries"],
        "off_topic_no_hit_share": cats["off-topic"]["no_hit_rate"],
        "benchmark_questions": cats["benchmark"]["n_queries"],
        "benchmark_no_hit_share": cats["benchmark"]["no_hit_rate"],
        "embedder": report["embedder"],
    }
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"{out['file']}: {out['groups']} groups, embedder {out['embedder']}")
        print(f"off-topic questions with no hits: {out['off_topic_no_hit_share']:.1%} "
              f"of {out['off_topic_questions']}")
        print(f"benchmark questions with no hits: {out['benchmark_no_hit_share']:.1%} "
              f"of {out['benchmark_questions']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
