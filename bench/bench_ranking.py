"""Ranking ideas side by side, in one run: every question asked under each variant in turn.

    python bench/bench_ranking.py FILES --cache C      # every variant below against the landed code
    python bench/bench_ranking.py FILES --cache C --variant landed --variant topic=0.05

Each file's group vaults are built once (``bench_verdict.group_vaults``, as ``vault-mem eval``
builds them) and each question is asked through ``Sidecar.recall`` (k=10) under every variant
before the next question, so load and caches fall on all alike. A variant replaces recall's
fusion stage (``index/search.py`` ``fuse_phrasings``) for the run by the landed one plus one
idea of issue 24's "Better candidates" (none is in the recall pipeline: measured, not kept;
docs/benchmarks.md "Better candidates: the ideas of issue 24 in one run"):

- ``mmr=L``: maximal marginal relevance over the best MMR_TOP: each next slot goes to the
  candidate with the best L x its min-max normalised score - (1 - L) x its highest cosine with a
  memory already placed; the placed ones take the old scores in order (look-alikes spread out);
- ``feedback=N``: pseudo-relevance feedback on the keyword side: the N words (not the query's,
  held by at most FEEDBACK_MAX_SHARE of the vault) found in at least FEEDBACK_SHARE of the
  FEEDBACK_POOL best candidates (a project's code name that the question names by its role)
  join the query's words in a second keyword search, fused as one more phrasing (the best of
  the two per memory); ``feedback-only=N`` uses only the expanded keyword list;
  ``feedback-gated=N`` feeds back only when no candidate's cosine clears the strong bar;
- ``feedback-embed=N``: the same words also appended to the query and embedded again, its
  vector search fused too (the verdict still reads the question's own cosines);
- ``topic=W``: the topic removed: the mean vector of the TOPIC_POOL best candidates is the
  shared topic, the query less its projection on it what is asked beyond it; each of the
  TOPIC_TOP best gains W x its cosine with that residual;
- ``day=W``: the day-context weight (``DAY_CONTEXT_WEIGHT``) set to W.

Per file and variant: bench_verdict's figures (hook coverage, strong precision, near misses
given a strong hit, R@5, denied, what kept a relevant hit out of the strong top 3) with R@3,
MRR@10 and process CPU per recall. The landed row also says whether the memories that push an
answer out of the top 3 are near-duplicates of it (``look_alikes``: over the questions the
ranking loses, the answer's best cosine with the top 3, beside the median memory's nearest
neighbour in its vault).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bench_verdict as bv  # bench/ is on sys.path when run as a script
from embed_cache import CachedEmbedder

from vault_mem.config import EmbedderConfig
from vault_mem.embed.registry import get_embedder
from vault_mem.embed.numeric import np
from vault_mem.index import levels, search
from vault_mem.index.queries import ID_LIST, id_list, term_counts
from vault_mem.model.terms import STOPWORDS, WORD, stem
from vault_mem.ops import eval as evalmod


MMR_TOP = 10
FEEDBACK_POOL, FEEDBACK_SHARE, FEEDBACK_MAX_SHARE, FEEDBACK_CHARS = 5, 3, 0.15, 300
TOPIC_POOL, TOPIC_TOP = 5, 10
ALL = ("landed", "mmr=0.85", "mmr=0.7", "feedback=2", "feedback-only=2", "feedback-gated=2", "feedback-embed=2",
       "topic=0.05", "topic=0.1", "topic=0.2")


def unit_vectors(db, ids) -> dict[int, np.ndarray]:
    """The memories' stored vectors (from the embedding cache), each of length 1."""
    out = {}
    for i, blob in db.execute("SELECT f.id, c.vector FROM files f JOIN embed_cache c ON c.model = f.vec_model "
                              "AND c.text_sha256 = f.embed_sha256 WHERE f.id IN (SELECT value FROM json_each(?))",
                              (json.dumps(list(ids)),)):
        v = np.frombuffer(blob, dtype=np.float32)
        if float(np.linalg.norm(v)) > 0:
            out[i] = v / float(np.linalg.norm(v))
    return out


def best(scores: dict[int, float], n: int) -> list[int]:
    return sorted(scores, key=lambda i: (-scores[i], i))[:n]


def mmr(db, scores: dict[int, float], lam: float) -> dict[int, float]:
    top = best(scores, MMR_TOP)
    if len(top) < 3:
        return scores
    vecs = unit_vectors(db, top)
    lo, hi = scores[top[-1]], scores[top[0]]
    norm = {i: (scores[i] - lo) / (hi - lo) if hi > lo else 1.0 for i in top}
    placed: list[int] = []
    rest = list(top)
    while rest:
        def value(i: int) -> float:
            near = [float(vecs[i] @ vecs[j]) for j in placed if i in vecs and j in vecs]
            return lam * norm[i] - (1 - lam) * (max(near) if near else 0.0)
        pick = max(rest, key=lambda i: (value(i), -i))
        placed.append(pick)
        rest.remove(pick)
    return {**scores, **dict(zip(placed, (scores[i] for i in top)))}


def feedback_words(db, ps, scores: dict[int, float], n: int) -> list[str]:
    top = best(scores, FEEDBACK_POOL)
    if len(top) < FEEDBACK_POOL:
        return []
    asked = {stem(t) for p in ps for t in p.terms}
    count: dict[str, int] = {}
    form: dict[str, str] = {}
    for desc, body, extra in db.execute(f"SELECT description, substr(body, 1, ?), extra FROM fts WHERE rowid IN "
                                        f"{ID_LIST}", [FEEDBACK_CHARS, id_list(top)]):
        seen = set()
        for w in WORD.findall(" ".join(x for x in (desc, body, extra) if x).lower()):
            st = stem(w)
            if len(w) < 3 or w in STOPWORDS or w.isdigit() or st in asked or st in seen:
                continue
            seen.add(st)
            form.setdefault(st, w)
            count[st] = count.get(st, 0) + 1
    shared = [st for st, c in count.items() if c >= FEEDBACK_SHARE]
    if not shared:
        return []
    total = db.execute("SELECT count(*) FROM files WHERE usable = 1").fetchone()[0] or 1
    cap = max(FEEDBACK_SHARE + 1, int(total * FEEDBACK_MAX_SHARE) + 1)
    words = [form[st] for st in shared]
    kept = sorted((-count[st], c, w) for st, w, c in zip(shared, words, term_counts(db, words, cap)) if c < cap)
    return [w for _, _, w in kept[:n]]


def variant(name: str, sidecar_of):
    """The fusion stage of variant ``name`` (see the module): a function with
    ``search.fuse_phrasings``'s signature. ``sidecar_of()``: the sidecar being asked."""
    landed = search.fuse_phrasings
    if name == "landed":
        return landed
    idea, _, value = name.partition("=")
    x = float(value)

    def fuse(db, ps, candidates, index, *, floor=None):
        ev = landed(db, ps, candidates, index, floor=floor)
        vectors = index is not None and ps[0].qvec is not None
        if idea == "mmr" and vectors:
            return levels.Evidence(mmr(db, ev.scores, x), ev.sims, ev.coverage)
        if idea == "topic" and vectors:
            return levels.Evidence(topic_removed(db, ev.scores, ps[0].qvec, x), ev.sims, ev.coverage)
        if idea.startswith("feedback"):
            if idea == "feedback-gated" and floor is not None and max(ev.sims.values(), default=-1.0) >= floor.strong:
                return ev
            words = feedback_words(db, ps, ev.scores, int(x))
            if not words:
                return ev
            first = ps[0]
            fb = search.Phrasing(first.text, first.terms, first.qvec, vec=first.vec)
            fb.kw = search.keyword_search(db, [*first.terms, *words], search.Filters(today=dt.date.today().isoformat()))
            if idea == "feedback-embed" and vectors:
                sc = sidecar_of()
                emb = sc.vectors.get_embedder()
                fb.qvec = np.asarray(emb.embed_batch([first.text + " " + " ".join(words)], kind="query")[0],
                                     dtype=np.float32)
                _, fb.vec = sc.vectors.search_vectors(fb.qvec, search.Filters(today=dt.date.today().isoformat()))
            more = list(dict.fromkeys([*candidates, *(i for i, _ in fb.kw), *(i for i, _ in fb.vec)]))
            phr = [fb, *ps[1:]] if idea == "feedback-only" else [*ps, fb]
            fed = landed(db, phr, more, index, floor=floor)
            own = landed(db, ps, more, index, floor=floor)  # the verdict reads the question's own cosines
            return levels.Evidence(fed.scores, own.sims, own.coverage)
        return ev

    return fuse


def topic_removed(db, scores: dict[int, float], qvec, weight: float) -> dict[int, float]:
    top = best(scores, TOPIC_TOP)
    if len(top) < TOPIC_POOL:
        return scores
    vecs = unit_vectors(db, top)
    rows = [vecs[i] for i in top[:TOPIC_POOL] if i in vecs]
    if len(rows) < 2:
        return scores
    topic = np.mean(rows, axis=0)
    topic /= float(np.linalg.norm(topic)) or 1.0
    q = np.asarray(qvec, dtype=np.float32)
    q = q / (float(np.linalg.norm(q)) or 1.0)
    rest = q - float(q @ topic) * topic
    if float(np.linalg.norm(rest)) < 1e-6:
        return scores
    rest /= float(np.linalg.norm(rest))
    return {**scores, **{i: scores[i] + weight * float(vecs[i] @ rest) for i in top if i in vecs}}


def row(res, q: dict, back: dict) -> dict:
    """bench_verdict's row of one answer, with R@3 and the reciprocal rank (top 10)."""
    rel = {str(k) for k in q.get("relevant", [])}
    keys = [back.get(h.key, h.key) for h in res.hits]
    strong3 = [back.get(h.key, h.key) for h in res.hits[:3] if h.match == "strong"]
    rel3 = [h for h in res.hits[:3] if back.get(h.key, h.key) in rel]
    lost = None if not rel or any(k in rel for k in strong3) else \
        res.demoted.get(rel3[0].key, "?") if rel3 else "ranking"
    rank = next((n for n, k in enumerate(keys[:10], 1) if k in rel), None)
    return {"cat": "near-miss" if not rel else str(q.get("category") or "-"), "answerable": bool(rel),
            "denied": bv.denied(res), "denied_top_right": bv.denied(res) and bool(keys) and keys[0] in rel,
            "covered": any(k in rel for k in strong3), "strong3": len(strong3),
            "strong3_rel": sum(k in rel for k in strong3),
            "r5": len(rel & set(keys[:5])) / len(rel) if rel else 0.0,
            "r3": len(rel & set(keys[:3])) / len(rel) if rel else 0.0, "rr": 1 / rank if rank else 0.0,
            "strong_any": bool(strong3), "keyword_only": res.keyword_only, "lost": lost}


def measure(path: Path, embedder, names: list[str]) -> dict[str, dict]:
    """Each variant's figures on one benchmark file (see the module)."""
    data = evalmod.load_benchmark(path)
    mems, qs = bv.grouped(data)
    landed = search.fuse_phrasings
    current: list = []
    fusions = {name: variant(name, lambda: current[0]) for name in names}
    days = {name: float(name.partition("=")[2]) for name in names if name.startswith("day=")}
    landed_day = search.day_context
    rows: dict[str, list] = {n: [] for n in names}
    cpu = dict.fromkeys(names, 0.0)
    crowd: list[float] = []  # per ranking loss of the landed code: the answer's best cosine with the top 3
    nearest: list[float] = []  # per memory: its nearest other memory's cosine
    try:
        for group, vault, back in bv.group_vaults(mems, qs, embedder, "vault-mem-ranking-"):
            current[:] = [vault.sidecar]
            db = vault.sidecar.db
            ids = {k: i for i, k in db.execute("SELECT id, key FROM files")}
            vecs = unit_vectors(db, ids.values())
            if len(vecs) > 1:
                matrix = np.asarray(list(vecs.values()))
                sims = matrix @ matrix.T
                np.fill_diagonal(sims, -1.0)
                nearest += sims.max(axis=1).tolist()
            mine = {v: k for k, v in back.items()}
            for q in qs[group]:
                for name in names:
                    search.fuse_phrasings = fusions[name] if name not in days else landed
                    search.day_context = partial(landed_day, weight=days[name]) if name in days else landed_day
                    c0 = time.process_time()
                    res = vault.sidecar.recall(q["q"], k=10)
                    cpu[name] += (time.process_time() - c0) * 1000
                    rows[name].append(row(res, q, back))
                    if name == "landed" and rows[name][-1]["lost"] == "ranking":
                        answers = [vecs[i] for k in q["relevant"] if (i := ids.get(mine.get(str(k)))) in vecs]
                        top3 = [vecs[i] for h in res.hits[:3] if (i := ids.get(h.key)) in vecs]
                        if answers and top3:
                            crowd.append(max(float(a @ t) for a in answers for t in top3))
    finally:
        search.fuse_phrasings, search.day_context = landed, landed_day
    out = {}
    for name, rs in rows.items():
        ans = [r for r in rs if r["answerable"]]
        out[name] = {"file": path.name, "variant": name, **bv.figures(rs),
                     "r3": round(sum(r["r3"] for r in ans) / len(ans), 4) if ans else None,
                     "mrr10": round(sum(r["rr"] for r in ans) / len(ans), 4) if ans else None,
                     "cpu_ms_per_recall": round(cpu[name] / len(rs), 2) if rs else None}
    if crowd and nearest:
        # are the memories that push an answer out of the top 3 near-duplicates of it?
        out["landed"]["look_alikes"] = {"ranking_losses": len(crowd),
                                        "answer_vs_top3_cosine_median": round(float(np.median(crowd)), 3),
                                        "answer_vs_top3_cosine_max": round(max(crowd), 3),
                                        "at_least_0.7": sum(c >= 0.7 for c in crowd),
                                        "nearest_neighbour_median": round(float(np.median(nearest)), 3)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME",
                    help=f"a variant (default: all of {', '.join(ALL)}); 'landed' always runs first")
    ap.add_argument("--cache", type=Path, help="SQLite file caching vectors across runs (outside the repo)")
    args = ap.parse_args()
    names = list(dict.fromkeys(["landed", *(args.variant or ALL)]))
    for name in names:
        idea, _, value = name.partition("=")
        if name != "landed" and (idea not in ("mmr", "feedback", "feedback-only", "feedback-gated", "feedback-embed",
                                               "topic", "day") or not value):
            raise SystemExit(f"unknown variant {name!r}")
    embedder = get_embedder(EmbedderConfig(provider="local"))
    if args.cache:
        embedder = CachedEmbedder(embedder, args.cache)
    print(json.dumps({"load": [round(x, 1) for x in os.getloadavg()]}), flush=True)
    for path in args.files:
        for figures in measure(path, embedder, names).values():
            print(json.dumps(figures), flush=True)
    print(json.dumps({"load": [round(x, 1) for x in os.getloadavg()]}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
