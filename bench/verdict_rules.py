"""Word-level verdict rules replayed over ``verdict_records.py --words`` records, in seconds.

    python bench/verdict_records.py FILES --cache C --out R --words
    python bench/verdict_rules.py R [--half tune|report] [--rule NAME ...]

Each rule tells "this memory answers the question" from "this memory is about the same topic"
with what the word-level checks read (``verdict_records.py --words``: each query word's salience,
best match in the hit and how many of the vault's memories hold it; the hit's meaning match; the
question's focus words), and only changes levels within the top 3 (the records hold word
features for those), so :func:`verdict_records.replay` gives its figures exactly for the code it
describes. Prints, per rule and file, hook coverage / strong precision / near misses given a
strong hit (docs/benchmarks.md "Answer or topic: word-level rules, measured").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verdict_records import replay  # bench/ is on sys.path when run as a script

STRONG, CANDIDATE = "strong", "candidate"
TOP = 3
SALIENCE_SHARE = 0.5  # as levels.SALIENCE_SHARE: a salient word reaches half the top salience


def _salient(w: dict) -> set[str]:
    top = max((s for s, _, _ in w["terms"].values()), default=0.0)
    return {t for t, (s, _, _) in w["terms"].items() if top > 0 and s >= SALIENCE_SHARE * top}


def _sure(r: dict, h: dict) -> bool:
    return h["cosine"] is not None and h["cosine"] >= r["floor"]["sure"]


def _each(r: dict, change: Callable[[dict, int, dict, list[str]], str | None]) -> list[str]:
    out = [h["level"] for h in r["hits"]]
    for j, h in enumerate(r["hits"][:TOP]):
        if "words" in h and r["floor"]:
            new = change(r, j, h, out)
            if new is not None:
                out[j] = new
    return out


def unmatched_in_vault(lo: int, hi: float) -> Callable[[dict], list[str]]:
    """A strong ``sure`` hit sharing words with the question fails when a salient word it holds
    neither literally nor at the match bar is held by ``lo``..``hi`` memories of the vault (0: the
    vault never states it; 2 or more: it states it for something else)."""
    def change(r, j, h, out):
        w = h["words"]
        if out[j] != STRONG or not _sure(r, h) or not any(b >= 1.0 for _, b, _ in w["terms"].values()):
            return None
        miss = [t for t in _salient(w) if w["terms"][t][1] < w["match"] and lo <= w["terms"][t][2] <= hi]
        return CANDIDATE if miss else None
    return lambda r: _each(r, change)


def below_first(keep: Callable[[dict, dict, dict], bool], dense: int | None = None) -> Callable[[dict], list[str]]:
    """A strong hit below the first (ranks 2-3) stays strong only when ``keep(record, first,
    hit)``; ``dense``: not in a query where that many of its 12 best cosines clear the strong bar."""
    def rule(r):
        hits = r["hits"]
        if dense is not None and r["floor"] and _dense(r, dense):
            return [h["level"] for h in hits]

        def change(r, j, h, out):
            ok = j == 0 or out[j] != STRONG or "words" not in hits[0] or keep(r, hits[0], h)
            return None if ok else CANDIDATE
        return _each(r, change)
    return rule


def _matched(h: dict) -> set[str]:
    w = h["words"]
    return {t for t in _salient(w) if w["terms"][t][1] >= w["match"]}


def restore(stage: str, when: Callable[[dict, dict], bool]) -> Callable[[dict], list[str]]:
    """A top-3 hit that ``stage`` made a candidate is strong again ``when(record, hit)``."""
    return lambda r: _each(r, lambda r, j, h, out: STRONG if h["why"] == stage and when(r, h) else None)


def _missed(h: dict, r: dict) -> list[int]:
    w = h["words"]
    bar = w["loose"] if _sure(r, h) else w["match"]
    return [w["terms"][t][2] for t in _salient(w) if w["terms"][t][1] < bar]


def _dense(r: dict, n: int) -> bool:
    """At least ``n`` of the query's 12 best cosines clear the strong bar (LoCoMo: 96-99% of queries)."""
    return sum(x >= r["floor"]["strong"] for x in r["best_cosines"]) >= n


def focus_near(x: float) -> Callable[[dict], list[str]]:
    """The focus check's ``sure`` exemption (a hit holding none of the focus words) only for a
    hit whose words hold the question's meaning (meaning match at least halfway from the match
    bar to 1); otherwise a focus word must come within loose + ``x`` (match - loose)."""
    def change(r, j, h, out):
        w = h["words"]
        f = w["focus"]
        if out[j] != STRONG or not f or not _sure(r, h) or any(b >= 1.0 for b in f.values()):
            return None
        if w["mm"] >= (1 + w["match"]) / 2:
            return None
        return CANDIDATE if max(f.values()) < w["loose"] + x * (w["match"] - w["loose"]) else None
    return lambda r: _each(r, change)


RULES: dict[str, Callable[[dict], list[str]]] = {
    "landed": lambda r: [h["level"] for h in r["hits"]],
    # near misses: a salient word the hit lacks, by where the vault holds it
    "absent-word-strict": unmatched_in_vault(0, 0),
    "elsewhere-word-strict": unmatched_in_vault(2, float("inf")),
    # strong precision: the hits below the first
    "below-meaning-under-first": below_first(lambda r, a, b: b["words"]["mm"] >= a["words"]["mm"]),
    "below-meaning-under-first-unless-dense": below_first(lambda r, a, b: b["words"]["mm"] >= a["words"]["mm"], 8),
    "below-dominated": below_first(lambda r, a, b: a["level"] != STRONG or not _matched(b) < _matched(a)),
    "below-score-margin-0.2": below_first(lambda r, a, b: a["score"] - b["score"] <= 0.2),
    "below-no-word-under-worded-first": below_first(
        lambda r, a, b: bool(b["coverage"]) or not a["coverage"] or a["level"] != STRONG),
    # hook coverage: answer-check failures forgiven
    "rare-missing-forgiven": restore("answer check", lambda r, h: all(d <= 1 for d in _missed(h, r))),
    "dense-answer-check-forgiven": restore(
        "answer check", lambda r, h: _dense(r, 12)),
    "dense-rare-missing-forgiven": restore("answer check", lambda r, h: _dense(r, 12) and h["words"]["mm"] >= 0.75
                                           and all(d <= 0.02 * h["words"]["n"] for d in _missed(h, r))),
    "common-anchor-forgiven": restore("answer check", lambda r, h: all(
        d >= 0.15 * h["words"]["n"] for _, b, d in h["words"]["terms"].values() if b >= 1.0)),
    # the focus check's sure exemption
    "focus-sure-near-0.25": focus_near(0.25),
    "focus-sure-near-0.1": focus_near(0.1),
}


def cell(m: dict) -> str:
    def pct(v):
        return "-" if v is None else f"{100 * v:.1f}"
    return f"{pct(m['hook_coverage'])} / {pct(m['strong_precision'])} / {pct(m['near_miss_given_strong'])}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", type=Path, help="verdict_records.py --words output")
    ap.add_argument("--half", choices=("tune", "report"))
    ap.add_argument("--rule", action="append", choices=sorted(RULES), help="only these rules (default: all)")
    args = ap.parse_args()
    recs = [json.loads(line) for line in args.records.open(encoding="utf-8")]
    if args.half:
        recs = [r for r in recs if r["half"] == args.half]
    files = list(dict.fromkeys(r["file"] for r in recs))
    if not any("words" in h for r in recs for h in r["hits"]):
        print("no word features in the records: run verdict_records.py with --words", file=sys.stderr)
        return 2
    print("| rule | " + " | ".join(files) + " |")
    print("|---" * (len(files) + 1) + "|")
    for name in args.rule or RULES:
        rule = RULES[name]
        row = [cell(replay([r for r in recs if r["file"] == f], rule)) for f in files]
        print(f"| {name} | " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
