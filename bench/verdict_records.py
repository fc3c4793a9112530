"""Each question's top 10 with what the verdict reads, to try verdict rules offline in seconds.

    python bench/verdict_records.py FILE [...] --cache /tmp/me/embed.sqlite --out /tmp/me/records.jsonl
    python bench/verdict_records.py FILE [...] --cache C --out R --words   # + what the word rules read

Builds each file's vaults and asks every question through ``Sidecar.recall`` (k=10) as
``bench_verdict.measure`` does, and writes one JSON line per question: the file, group, half
(``bench_verdict.split_half``), relevant keys, the vault's floor (base, spread, strong, sure,
relevance floor, source), the query's 12 best cosines, and its top 10 hits in rank order, each
with its level, the verdict stage that made it a candidate, cosine, word share, fused score and
its rank in the keyword and the vector list. It then prints, per file and half, the figures
:func:`replay` computes from the records, which equal ``bench_verdict.py --half``'s (hook
coverage, strong precision, near misses given a strong hit, R@5).

A rule that only demotes or raises levels within the top 10 (no reordering) is then a function
``record -> [level per hit]`` passed to :func:`replay`: its figures are exact for the code it
describes ("Keyword/vector agreement and the margin to the next hit" in docs/benchmarks.md was
measured this way, and its two rules confirmed through a patched tree to the digit). Reads the
benchmark files at run time; the records hold their text, so keep them outside the repository.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_verdict import HALVES, group_vaults, split_half  # bench/ is on sys.path when run as a script
from embed_cache import CachedEmbedder

from vault_mem.config import EmbedderConfig
from vault_mem.embed.registry import get_embedder
from vault_mem.index import levels as levels_mod
from vault_mem.index import search as search_mod
from vault_mem.embed.numeric import np
from vault_mem.index.queries import common_bar, term_counts
from vault_mem.model.focus import focus_of
from vault_mem.model.terms import is_question, stem
from vault_mem.ops import eval as evalmod

TOP = 10  # hits kept per question (recall's k)
BEST_COSINES = 12  # the query's best cosines kept


WORD_HITS = 3  # hits given word features with --words (what the hook injects)


def word_features(db, query: str, terms, ev, passing: dict[int, str], words) -> dict[int, dict]:
    """What the word-level checks read about each of the top WORD_HITS hits (see the module);
    empty without an embedder or query words."""
    if words is None or not terms or not passing:
        return {}
    bars = words.bars()
    top = ev.ranked(passing)[:WORD_HITS]
    found = levels_mod.hit_words(db, top)
    focus = focus_of(query) if is_question(query) else None
    focus_words = list(focus.words) if focus is not None else []
    counts = dict(zip(terms, term_counts(db, list(terms), 1 << 30), strict=True))
    n = common_bar(db)[0]
    out = {}
    for i in top:
        if i not in found:
            continue
        have, near = found[i]
        vecs = words.vectors([*terms, *near, *focus_words])
        matrix = np.asarray([vecs[w] for w in near if w in vecs], dtype=np.float32)

        def best(t: str) -> float:
            if stem(t) in have:
                return 1.0
            return float((matrix @ vecs[t]).max()) if len(matrix) and t in vecs else 0.0

        out[i] = {"match": bars.match, "loose": bars.loose, "n": n,
                  "mm": levels_mod.meaning_match(terms, have, near, vecs, words.qvec, bars.unrelated),
                  "terms": {t: [float(vecs[t] @ words.qvec) - bars.unrelated if t in vecs else 0.0, best(t),
                                counts[t]] for t in terms},
                  "focus": {w: best(w) for w in focus_words}}
    return out


@contextmanager
def capture(with_words: bool = False) -> Iterator[dict]:
    """While open, each recall's phrasings, evidence, floor, levels and verdict stages land in the
    yielded dict (the recall stages wrapped, not changed); ``with_words``: and the top hits' word
    features (:func:`word_features`)."""
    seen: dict = {}
    fuse, verdict = search_mod.fuse_phrasings, levels_mod.levels

    def fuse_phrasings(db, ps, candidates, index, *, floor=None):
        seen["ps"] = ps
        return fuse(db, ps, candidates, index, floor=floor)

    def levels(db, query, terms, ev, *, floor, k, words, rewordings=(), why=None):
        why = {} if why is None else why
        out = verdict(db, query, terms, ev, floor=floor, k=k, words=words, rewordings=rewordings, why=why)
        seen.update(ev=ev, floor=floor, passing=out, why=dict(why))
        if with_words and floor is not None:
            seen["words"] = word_features(db, query, terms, ev, out, words)
        return out

    search_mod.fuse_phrasings, levels_mod.levels = fuse_phrasings, levels
    try:
        yield seen
    finally:
        search_mod.fuse_phrasings, levels_mod.levels = fuse, verdict


def record(path: Path, embedder, with_words: bool = False) -> list[dict]:
    """The records of one benchmark file (see the module; ``with_words``: ``--words``)."""
    data = evalmod.load_benchmark(path)
    mems, qs = defaultdict(list), defaultdict(list)
    for m in data["memories"]:
        mems[str(m.get("group", ""))].append(m)
    for n, q in enumerate(data["queries"]):
        qs[str(q.get("group", ""))].append({**q, "_n": n})
    tune = {q["_n"] for g in split_half(dict(qs), "tune").values() for q in g}
    out = []
    with capture(with_words) as seen:
        for group, vault, back in group_vaults(mems, qs, embedder, "vault-mem-records-"):
            key_of = dict(vault.sidecar.db.execute("SELECT id, key FROM files").fetchall())
            for q in qs[group]:
                seen.clear()
                res = vault.sidecar.recall(q["q"], k=TOP)
                rel = {str(k) for k in q.get("relevant", [])}
                rec = {"file": path.name, "group": group, "q": q["q"], "category": q.get("category"),
                       "half": "tune" if q["_n"] in tune else "report", "rel": sorted(rel),
                       "memories": len(mems[group]), "keys": [back.get(h.key, h.key) for h in res.hits],
                       "floor": None, "best_cosines": [], "hits": []}
                if "ev" in seen:
                    rec.update(_evidence(seen, back, key_of, rel))
                    if [h["key"] for h in rec["hits"]] != rec["keys"]:
                        raise AssertionError(f"records out of step with the recall for {q['q']!r}")
                out.append(rec)
    return out


def _evidence(seen: dict, back: dict, key_of: dict, rel: set[str]) -> dict:
    ev, floor = seen["ev"], seen["floor"]
    kw_rank: dict[int, int] = {}
    for p in seen["ps"]:
        for r, (i, _) in enumerate(p.kw):
            kw_rank[i] = min(kw_rank.get(i, r), r)
    vec_rank = {i: r for r, i in enumerate(sorted(ev.sims, key=lambda i: (-ev.sims[i], i)))}
    hits = []
    for i in ev.ranked(seen["passing"])[:TOP]:
        key = back.get(key_of[i], key_of[i])
        hits.append({"key": key, "rel": key in rel, "level": seen["passing"][i], "why": seen["why"].get(i),
                     "cosine": ev.sims.get(i), "coverage": ev.coverage.get(i), "score": ev.scores[i],
                     "kw_rank": kw_rank.get(i), "vec_rank": vec_rank.get(i)})
        if i in seen.get("words", {}):
            hits[-1]["words"] = seen["words"][i]
    return {"floor": None if floor is None else {
                "base": floor.base, "spread": floor.spread, "strong": floor.strong, "sure": floor.sure,
                "min_sim": floor.min_sim, "source": floor.source},
            "best_cosines": sorted(ev.sims.values(), reverse=True)[:BEST_COSINES], "hits": hits}


def replay(records: list[dict], variant: Callable[[dict], list[str]] | None = None) -> dict:
    """Hook coverage, strong precision, near misses given a strong hit and R@5 (shares, as
    ``bench_verdict.figures`` rounds them) over ``records``, with each record's levels as recorded
    or as ``variant(record)`` gives them (one level per hit, in the hits' order)."""
    ans = near = covered = strong3 = strong3_rel = near_strong = 0
    r5 = 0.0
    for r in records:
        hits = r["hits"]
        levels = [h["level"] for h in hits] if variant is None else variant(r)
        strong = [h for h, x in zip(hits[:3], levels[:3]) if x == levels_mod.STRONG]
        if r["rel"]:
            ans += 1
            covered += any(h["rel"] for h in strong)
            strong3 += len(strong)
            strong3_rel += sum(h["rel"] for h in strong)
            r5 += len(set(r["rel"]) & set(r["keys"][:5])) / len(r["rel"])
        else:
            near += 1
            near_strong += bool(strong)
    return {"answerable": ans, "hook_coverage": round(covered / ans, 4) if ans else None,
            "strong_precision": round(strong3_rel / strong3, 4) if strong3 else None,
            "r5": round(r5 / ans, 4) if ans else None,
            "near_miss_given_strong": round(near_strong / near, 4) if near else None}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--embedder", default="local", help="an embedder provider (local, multilingual) or an HTTP URL")
    ap.add_argument("--cache", type=Path, help="SQLite file caching vectors across runs (outside the repo)")
    ap.add_argument("--out", type=Path, required=True, help="the records, one JSON line per question (outside the repo)")
    ap.add_argument("--words", action="store_true", help="record what the word-level checks read for the top 3 hits")
    args = ap.parse_args()
    cfg = EmbedderConfig(provider=args.embedder)
    if args.embedder.startswith("http"):
        cfg = EmbedderConfig(provider="openai", url=args.embedder, model="multilingual-e5-small-q4", prefix="server")
    embedder = get_embedder(cfg)
    if args.cache:
        embedder = CachedEmbedder(embedder, args.cache)
    with args.out.open("w", encoding="utf-8") as out:
        for path in args.files:
            recs = record(path, embedder, args.words)
            out.writelines(json.dumps(r) + "\n" for r in recs)
            for half in HALVES:
                print(json.dumps({"file": path.name, "half": half,
                                  **replay([r for r in recs if r["half"] == half])}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
