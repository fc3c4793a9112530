"""Readers beyond the word-level checks, replayed over the verdict's records (recall24, issue 24):
a sentence-level reader, a second embedder's opinion, query-type checks and the vault's own
crowding, each as a rule that demotes (or raises) strong top-3 hits, tuned on the tune halves
and reported on the other.

    python bench/verdict_records.py FILES --cache C --out R --words
    python bench/verdict_reader.py R FILES --cache C [--e5] [--half tune|report]

``FILES``: the benchmark files the records were made from (the memories' text is read from them
at run time; nothing is stored). For each record's top 3 hits it reads:

- **sentences** (the bundled model): the memory's embedded text (``terms.document_text``) split
  into sentences (and, for ``clauses``, at commas and semicolons too), each embedded as a
  document; the query's best and second-best sentence cosine, in floor spreads over the vault's
  base (so one line for every vault);
- **e5** (``--e5``, multilingual-e5-small in process: the other offline embedder): the query's
  cosine with every memory of the vault, so the hit's rank by e5 and its stand-out over e5's
  next 9 (standard deviations), scale-free as the stand-out is;
- **query type**: who / when / where / how many / how much questions against a memory holding a
  capitalised name / a date or time word / a place word or capitalised name / a number;
- **crowding**: the vault's median nearest-neighbour cosine between memories (the bundled model).

Each rule is a function ``record -> levels`` for :func:`verdict_records.replay`, exact for the
code it describes (it only changes levels within the top 3, never reorders). The figures are
hook coverage / strong precision / near misses given a strong hit per file and half; a rule is
kept only if it helps both the curated sets and LoCoMo on the report halves without costing a set
hook coverage.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from embed_cache import CachedEmbedder  # bench/ is on sys.path when run as a script
from verdict_records import replay

from vault_mem.config import EmbedderConfig
from vault_mem.embed.registry import get_embedder
from vault_mem.model.terms import document_text
from vault_mem.ops import eval as evalmod

STRONG, CANDIDATE = "strong", "candidate"
TOP = 3
SALIENCE_SHARE = 0.5  # as levels.SALIENCE_SHARE
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
CLAUSE = re.compile(r"(?<=[.!?;,:])\s+|\n+|\s+[-\u2013\u2014]\s+")
NUMBER = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|hundred|"
                    r"dozen|several|few|many|once|twice|single|both|half)\b", re.IGNORECASE)
TIME = re.compile(r"\d|\b(?:yesterday|today|tomorrow|week|month|year|day|morning|evening|night|monday|tuesday|"
                  r"wednesday|thursday|friday|saturday|sunday|january|february|march|april|may|june|july|"
                  r"august|september|october|november|december|spring|summer|autumn|fall|winter|ago|last|"
                  r"next|recently|since|until|before|after|daily|weekly|hour|minute|am|pm|utc)\b", re.IGNORECASE)
PLACE = re.compile(r"\b(?:in|at|on|from|to|near|inside|under)\s+(?:the\s+)?[A-Za-z~/.]|[/~]\w", re.IGNORECASE)
NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")


def qtype(q: str) -> str | None:
    """The kind of thing a question asks for, by its first words (None: no type read)."""
    s = q.strip().lower()
    for pat, kind in ((r"^(?:how many|how much|how often|how long|how old)\b", "number"),
                      (r"^(?:when|what time|what date|which (?:year|month|day)|what (?:year|month|day))\b", "time"),
                      (r"^where\b", "place"), (r"^(?:who|whom|whose)\b", "person")):
        if re.search(pat, s):
            return kind
    return None


def holds(kind: str, text: str) -> bool:
    """Whether ``text`` holds the kind of thing :func:`qtype` asks for (a crude reading)."""
    if kind == "number":
        return bool(NUMBER.search(text))
    if kind == "time":
        return bool(TIME.search(text))
    if kind == "place":
        return bool(PLACE.search(text)) or bool(NAME.search(text))
    return bool(NAME.search(text))


def memories_of(paths: list[Path]) -> dict[tuple[str, str, str], dict]:
    """(file name, group, key) -> the memory, from the benchmark files."""
    out = {}
    for p in paths:
        for m in evalmod.load_benchmark(p)["memories"]:
            out[p.name, str(m.get("group", "")), str(m["key"])] = m
    return out


def text_of(m: dict) -> str:
    return document_text(str(m.get("description", "")), str(m.get("body", "") or ""), None)


def pieces(text: str, split: re.Pattern) -> list[str]:
    return [s.strip() for s in split.split(text) if len(s.strip()) > 2] or [text]


def annotate(records: list[dict], mems: dict, mini, e5) -> None:
    """Adds to each record's top-3 hits: ``s1``/``s2`` (best and second sentence cosine), ``c1``
    (best clause cosine), ``qt`` (the hit holds what the question type asks for), and with ``e5``:
    ``e5_rank`` (1-based among the vault's memories) and ``e5_z`` (stand-out over e5's next 9);
    and to each record ``crowd`` (the vault's median nearest-neighbour cosine)."""
    by_vault: dict[tuple[str, str], list[str]] = defaultdict(list)
    for (f, g, k) in mems:
        by_vault[f, g].append(k)
    asked = {(r["file"], r["group"]) for r in records}
    crowd: dict[tuple[str, str], float] = {}
    e5_docs: dict[tuple[str, str], np.ndarray] = {}
    for vault in asked:
        keys = by_vault[vault]
        docs = mini.embed_batch([text_of(mems[(*vault, k)]) for k in keys], kind="document")
        sims = docs @ docs.T
        np.fill_diagonal(sims, -1.0)
        crowd[vault] = float(np.median(sims.max(axis=1))) if len(keys) > 1 else 0.0
        if e5 is not None:
            e5_docs[vault] = e5.embed_batch([text_of(mems[(*vault, k)]) for k in keys], kind="document")
    qvecs = dict(zip([r["q"] for r in records], mini.embed_batch([r["q"] for r in records], kind="query")))
    e5q = dict(zip([r["q"] for r in records], e5.embed_batch([r["q"] for r in records], kind="query"))) \
        if e5 is not None else {}
    for r in records:
        vault = (r["file"], r["group"])
        r["crowd"] = crowd.get(vault, 0.0)
        kind = qtype(r["q"])
        if vault in e5_docs:
            all_sims = e5_docs[vault] @ e5q[r["q"]]
            order = np.argsort(-all_sims)
            rank = {by_vault[vault][i]: n + 1 for n, i in enumerate(order)}
            e5_sim = dict(zip(by_vault[vault], all_sims.tolist()))
        for h in r["hits"][:TOP]:
            m = mems.get((*vault, h["key"]))
            if m is None:
                continue
            text = text_of(m)
            sents = pieces(text, SENTENCE)
            cls = pieces(text, CLAUSE)
            sv = mini.embed_batch(sents, kind="document") @ qvecs[r["q"]]
            cv = mini.embed_batch(cls, kind="document") @ qvecs[r["q"]]
            ss = sorted(sv.tolist(), reverse=True)
            h["s1"], h["s2"], h["c1"], h["n_sent"] = ss[0], (ss[1] if len(ss) > 1 else ss[0]), float(cv.max()), len(ss)
            h["qt"] = None if kind is None else holds(kind, text)
            if vault in e5_docs:
                h["e5_rank"] = rank[h["key"]]
                others = sorted((x for k, x in e5_sim.items() if k != h["key"]), reverse=True)[:9]
                sd = float(np.std(others)) if len(others) > 1 else 0.0
                h["e5_z"] = (e5_sim[h["key"]] - float(np.mean(others))) / sd if sd > 0 else 0.0
                h["e5"] = e5_sim[h["key"]]


def spreads(r: dict, x: float) -> float:
    f = r["floor"]
    return (x - f["base"]) / (f["spread"] or 1e-6)


def _levels(r: dict) -> list[str]:
    return [h["level"] for h in r["hits"]]


def loose_only(r: dict, h: dict) -> bool:
    """Whether a hit passes the answer check only at the loose word bar: a ``sure`` hit that
    shares a word with the question (the check reads it) and matches one of its salient words
    under the match bar (``verdict_records --words``)."""
    w = h.get("words")
    if not w or (h["cosine"] or -1.0) < r["floor"]["sure"] or not any(b == 1.0 for _, b, _ in w["terms"].values()):
        return False
    top = max((s for s, _, _ in w["terms"].values()), default=0.0)
    return any(b < w["match"] for s, b, _ in w["terms"].values() if top > 0 and s >= SALIENCE_SHARE * top)


def rule(name: str, t: float):
    """The variant ``name`` at threshold ``t`` (see each branch): a function record -> levels."""

    def variant(r: dict) -> list[str]:
        lv = _levels(r)
        hits = r["hits"]
        if r["floor"] is None or not hits:
            return lv
        top = hits[:TOP]
        for j, h in enumerate(top):
            if "s1" not in h:
                continue
            if name == "sentence-floor" and lv[j] == STRONG and spreads(r, h["s1"]) < t:
                lv[j] = CANDIDATE  # best sentence under t spreads over base
            elif name == "sentence-below-first" and j > 0 and lv[j] == STRONG and "s1" in top[0] \
                    and h["s1"] < top[0]["s1"] - t * r["floor"]["spread"]:
                lv[j] = CANDIDATE  # a lower hit's best sentence more than t spreads under the first's
            elif name == "sentence-second" and lv[j] == STRONG and spreads(r, h["s2"]) < t and h["n_sent"] > 1 \
                    and spreads(r, h["s1"]) < t + 3:
                lv[j] = CANDIDATE  # one sentence carrying the match, the rest far: a topic mention
            elif name == "clause-floor" and lv[j] == STRONG and spreads(r, h["c1"]) < t:
                lv[j] = CANDIDATE
            elif name == "sentence-gain-raise" and lv[j] == CANDIDATE and j == 0 and spreads(r, h["s1"]) >= t:
                lv[j] = STRONG  # the first hit's best sentence clears t spreads: raised
            elif name == "e5-rank" and lv[j] == STRONG and "e5_rank" in h and h["e5_rank"] > t:
                lv[j] = CANDIDATE  # e5 does not rank it in its top t
            elif name == "e5-rank-below-first" and j > 0 and lv[j] == STRONG and "e5_rank" in h and h["e5_rank"] > t:
                lv[j] = CANDIDATE
            elif name == "e5-z" and lv[j] == STRONG and "e5_z" in h and h["e5_z"] < t:
                lv[j] = CANDIDATE  # does not stand out under e5
            elif name == "e5-agree-raise" and lv[j] == CANDIDATE and j == 0 and h.get("e5_rank") == 1 \
                    and h.get("e5_z", 0.0) >= t and (h["cosine"] or -1) >= r["floor"]["min_sim"]:
                lv[j] = STRONG  # both models put it first, e5 by t SDs: raised
            elif name == "loose-sentence" and lv[j] == STRONG and loose_only(r, h) and spreads(r, h["s1"]) < t:
                lv[j] = CANDIDATE  # held by the loose word bar alone, and no sentence close enough
            elif name == "loose-e5" and lv[j] == STRONG and loose_only(r, h) and h.get("e5_z", 99.0) < t:
                lv[j] = CANDIDATE  # held by the loose word bar alone, and e5 does not single it out
            elif name == "qtype" and lv[j] == STRONG and h["qt"] is False:
                lv[j] = CANDIDATE  # asked who/when/where/how many, the memory holds no such thing
            elif name == "crowded-below-meaning" and j > 0 and lv[j] == STRONG and r["crowd"] >= t \
                    and "words" in h and "words" in top[0] and h["words"]["mm"] < top[0]["words"]["mm"]:
                lv[j] = CANDIDATE  # a crowded vault: a lower hit whose words hold less of the question
        return lv

    return variant


def combo(*variants):
    """Variants applied in turn (each reads the levels the previous left)."""

    def variant(r: dict) -> list[str]:
        saved = [h["level"] for h in r["hits"]]
        try:
            for v in variants:
                for h, x in zip(r["hits"], v(r)):
                    h["level"] = x
            return [h["level"] for h in r["hits"]]
        finally:
            for h, x in zip(r["hits"], saved):
                h["level"] = x

    return variant


GRID = {
    "sentence-floor": [-1.0, -0.5, 0.0, 0.5, 1.0],
    "sentence-below-first": [0.5, 1.0, 1.5, 2.0],
    "sentence-second": [-2.0, -1.0, 0.0],
    "clause-floor": [-0.5, 0.0, 0.5, 1.0],
    "sentence-gain-raise": [1.0, 2.0, 3.0, 4.0],
    "e5-rank": [3, 5, 10],
    "e5-rank-below-first": [2, 3, 5],
    "e5-z": [0.0, 0.5, 1.0, 1.5],
    "e5-agree-raise": [1.0, 2.0, 3.0],
    "loose-sentence": [2.0, 3.0, 4.0, 5.0],
    "loose-e5": [1.0, 2.0, 3.0, 4.0],
    "qtype": [0],
    "crowded-below-meaning": [0.4, 0.5, 0.55, 0.6],
}


def cell(fig: dict) -> str:
    def pct(x):
        return "-" if x is None else f"{100 * x:.1f}"
    return f"{pct(fig['hook_coverage'])} / {pct(fig['strong_precision'])} / {pct(fig['near_miss_given_strong'])}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", type=Path)
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--cache", type=Path, required=True, help="SQLite file caching vectors (outside the repo)")
    ap.add_argument("--e5", action="store_true", help="read the second embedder (multilingual-e5-small in process)")
    ap.add_argument("--half", choices=["tune", "report"], help="one half only")
    ap.add_argument("--dump", type=Path, help="write the annotated records here (outside the repo)")
    ap.add_argument("--rule", action="append", help="only the variants whose name starts so (repeatable)")
    args = ap.parse_args()
    records = [json.loads(line) for line in args.records.open(encoding="utf-8")]
    mini = CachedEmbedder(get_embedder(EmbedderConfig(provider="local")), args.cache)
    e5 = CachedEmbedder(get_embedder(EmbedderConfig(provider="multilingual")), args.cache) if args.e5 else None
    annotate(records, memories_of(args.files), mini, e5)
    if args.dump:
        with args.dump.open("w", encoding="utf-8") as out:
            out.writelines(json.dumps(r) + "\n" for r in records)
    files = list(dict.fromkeys(r["file"] for r in records))
    crowd = defaultdict(list)
    for r in records:
        crowd[r["file"]].append(r["crowd"])
    print("crowding (median nearest-neighbour cosine, median over vaults):",
          {f: round(float(np.median(v)), 3) for f, v in crowd.items()})
    halves = [args.half] if args.half else ["tune", "report"]
    variants = [("landed", None)] + [(f"{n} {t}", rule(n, t)) for n, ts in GRID.items() for t in ts
                                     if args.e5 or not n.startswith("e5")]
    if args.rule:
        variants = [v for v in variants if v[0] == "landed" or any(v[0].startswith(x) for x in args.rule)]
    print("| variant | " + " | ".join(files) + " |")
    for name, v in variants:
        row = []
        for f in files:
            row.append(" ; ".join(cell(replay([r for r in records if r["file"] == f and r["half"] == h], v))
                                   for h in halves))
        print(f"| {name} | " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
