"""A learned demotion of strong hits: the verdict's own features combined by a logistic model
fitted on the tune halves of every set, checked on the report halves (recall24, not kept).

    python bench/verdict_records.py FILES --cache C --out R --words
    python bench/verdict_learned.py R [--thresholds 0.1,0.2,...]

Every rule under "Answer or topic" and "measured and not kept" (docs/benchmarks.md) reads one or
two of the verdict's signals against a threshold. This asks whether a combination of all of them,
weighted by a fit rather than by hand, separates the strong top-3 hits that answer from those that
do not better than any one of them: each strong top-3 hit with word features becomes a row of
:func:`features` (where its cosine sits against the vault's bars, its lead to the first hit, its
word share, fused score and ranks, its words' meaning match and salient-word matches, the
question's focus words, how dense the query's best cosines are, the vault's size), labelled by
whether it is relevant. A logistic model (numpy, L2, standardised features; each file's rows
weighted equally, so LoCoMo's thousands do not outvote a hand-written vault) is fitted on the
tune half of every file. The rule then demotes a strong top-3 hit to a candidate when the model
gives it a probability of answering under ``t`` (it never raises, never reorders), and
:func:`verdict_records.replay` gives its figures exactly for the code it describes, per file and
half, for each ``t``. A ``t`` is kept only if, on both halves of every file, no hook coverage is
lost and strong precision or near misses improve; the report half never chose anything.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from verdict_records import replay  # bench/ is on sys.path when run as a script

STRONG, CANDIDATE = "strong", "candidate"
TOP = 3
SALIENCE_SHARE = 0.5  # as levels.SALIENCE_SHARE


#: :func:`features`' names, in order (printed with the fitted weights)
NAMES = ["first", "second", "cos-strong", "cos-sure", "sure-strong", "lead", "gap-next", "coverage", "score",
         "score-lead", "log-kw-rank", "log-vec-rank", "no-kw", "mm", "literal", "at-match", "at-loose",
         "min-best-match", "min-best-loose", "n-missed", "missed-max-df", "missed-min-df", "has-focus",
         "focus-max", "focus-min", "dense", "log-memories", "prior", "under-bar"]


def features(r: dict, j: int) -> list[float]:
    """What the verdict reads about the ``j``th hit of record ``r`` (in the top 3, with words)."""
    f, hits = r["floor"], r["hits"]
    h, first = hits[j], hits[0]
    spread = f["spread"] or 1e-6
    cos = h["cosine"] if h["cosine"] is not None else f["min_sim"]
    first_cos = first["cosine"] if first["cosine"] is not None else cos
    best = r["best_cosines"] + [f["min_sim"]] * 2
    w = h["words"]
    terms = w["terms"]
    top_sal = max((s for s, _, _ in terms.values()), default=0.0)
    salient = [t for t, (s, _, _) in terms.items() if top_sal > 0 and s >= SALIENCE_SHARE * top_sal]
    bests = [terms[t][1] for t in salient] or [1.0]
    literal = sum(b >= 1.0 for b in bests) / len(bests)
    at_match = sum(b >= w["match"] for b in bests) / len(bests)
    at_loose = sum(b >= w["loose"] for b in bests) / len(bests)
    n = max(w["n"], 1)
    missed_counts = [terms[t][2] / n for t in salient if terms[t][1] < w["match"]]
    focus = list(w["focus"].values())
    dense = sum(x >= f["strong"] for x in r["best_cosines"])
    return [
        float(j == 0), float(j == 1),
        (cos - f["strong"]) / spread, (cos - f["sure"]) / spread, (f["sure"] - f["strong"]) / spread,
        (first_cos - cos) / spread, (best[0] - best[1]) / spread if j == 0 else (cos - best[j + 1]) / spread,
        float(h["coverage"] or 0.0), float(h["score"]), float(first["score"] - h["score"]),
        math.log1p(h["kw_rank"] if h["kw_rank"] is not None else 50), math.log1p(h["vec_rank"] or 0),
        float(h["kw_rank"] is None),
        float(w["mm"]), literal, at_match, at_loose, min(bests) - w["match"], min(bests) - w["loose"],
        float(len(missed_counts)), max(missed_counts, default=0.0), min(missed_counts, default=0.0),
        float(bool(focus)), (max(focus) - w["loose"]) if focus else 0.0, (min(focus) - w["loose"]) if focus else 0.0,
        dense / 12.0, math.log(max(r["memories"], 1)), float(f["source"] == "prior"),
        float(h["why"] is None and cos < f["strong"]),  # strong by the stand-out or the words, under the bar
    ]


INTERACT = False  # --interact


def vector(r: dict, j: int) -> list[float]:
    """:func:`features`, with ``--interact`` each times the density too."""
    x = features(r, j)
    if INTERACT:
        d = x[NAMES.index("dense")]
        x = x + [v * d for v in x]
    return x


def rows(records: list[dict], sole: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features, labels and weights (each file's rows summing to 1, before ``sole``) of the
    strong top-3 hits; ``sole``: the weight of a relevant hit that is its question's only
    relevant strong top-3 hit (demoting it loses the question's hook coverage)."""
    xs, ys, files, extra = [], [], [], []
    for r in records:
        if not r["floor"]:
            continue
        strong_rel = sum(h["level"] == STRONG and h["rel"] for h in r["hits"][:TOP])
        for j, h in enumerate(r["hits"][:TOP]):
            if h["level"] == STRONG and "words" in h:
                xs.append(vector(r, j))
                ys.append(float(h["rel"]))
                files.append(r["file"])
                extra.append(sole if h["rel"] and strong_rel == 1 else 1.0)
    counts = {f: files.count(f) for f in set(files)}
    weights = np.array([e / counts[f] for f, e in zip(files, extra, strict=True)])
    return np.array(xs, dtype=np.float64), np.array(ys), weights


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, *, l2: float = 1.0, steps: int = 3000) -> tuple:
    """Logistic regression by gradient descent on standardised features; returns the model."""
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = (x - mu) / sd
    z = np.hstack([z, np.ones((len(z), 1))])
    beta = np.zeros(z.shape[1])
    w = w / w.sum()
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-z @ beta))
        grad = z.T @ (w * (p - y)) + l2 * np.r_[beta[:-1], 0.0] / len(z)
        beta -= 1.0 * grad
    return mu, sd, beta


def fit_knn(x: np.ndarray, y: np.ndarray, w: np.ndarray, k: int) -> tuple:
    """A nearest-neighbour model (``--knn``): the tune rows themselves, standardised."""
    mu, sd = x.mean(axis=0), x.std(axis=0) + 1e-9
    return mu, sd, ((x - mu) / sd, y, w, k)


def prob(model: tuple, x: list[float]) -> float:
    mu, sd, beta = model
    if isinstance(beta, tuple):  # k nearest tune rows, by weight: the share that answers
        z, y, w, k = beta
        near = np.argsort(((z - (np.asarray(x) - mu) / sd) ** 2).sum(axis=1))[:k]
        return float((w[near] * y[near]).sum() / w[near].sum())
    z = np.r_[(np.asarray(x) - mu) / sd, 1.0]
    return float(1.0 / (1.0 + math.exp(-float(z @ beta))))


def rule(model: tuple, t: float, first: int = 0):
    """Demote a strong top-3 hit (from rank ``first``, 0-based) whose probability of answering is under ``t``."""
    def levels(r: dict) -> list[str]:
        out = [h["level"] for h in r["hits"]]
        if not r["floor"]:
            return out
        for j, h in enumerate(r["hits"][:TOP]):
            if j < first:
                continue
            if out[j] == STRONG and "words" in h and prob(model, vector(r, j)) < t:
                out[j] = CANDIDATE
        return out
    return levels


def cell(m: dict) -> str:
    def pct(v):
        return "-" if v is None else f"{100 * v:.1f}"
    return f"{pct(m['hook_coverage'])} / {pct(m['strong_precision'])} / {pct(m['near_miss_given_strong'])}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", type=Path, help="verdict_records.py --words output")
    ap.add_argument("--thresholds", default="0.05,0.1,0.15,0.2,0.25,0.3,0.4")
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--sole", type=float, default=1.0,
                    help="weight of a relevant hit that alone gives its question hook coverage")
    ap.add_argument("--knn", type=int, default=0, help="k nearest tune rows instead of the logistic model")
    ap.add_argument("--interact", action="store_true",
                    help="add each feature times the query's density (a chat vault's queries are dense)")
    ap.add_argument("--below-first", action="store_true", help="demote only hits below the first")
    ap.add_argument("--fit-below-first", action="store_true", help="fit on the hits below the first only")
    args = ap.parse_args()
    recs = [json.loads(line) for line in args.records.open(encoding="utf-8")]
    tune = [r for r in recs if r["half"] == "tune"]
    global INTERACT
    INTERACT = args.interact
    x, y, w = rows(tune, args.sole)
    if args.fit_below_first:
        keep = x[:, 0] == 0.0
        x, y, w = x[keep], y[keep], w[keep]
    if args.knn:
        model = fit_knn(x, y, w, args.knn)
        print(f"k nearest ({args.knn}) of {len(y)} tune rows", file=sys.stderr)
        return table(recs, model, args)
    model = fit(x, y, w, l2=args.l2)
    print(f"fitted on the tune halves: {len(y)} strong top-3 hits, {int(y.sum())} relevant; weights "
          + ", ".join(f"{n} {b:+.2f}" for n, b in zip([*NAMES, *(f"{n}*dense" for n in NAMES if INTERACT), "bias"],
                                                   model[2], strict=True)), file=sys.stderr)
    return table(recs, model, args)


def table(recs: list[dict], model: tuple, args) -> int:
    """The figures per file and half, landed and for each threshold."""
    files = list(dict.fromkeys(r["file"] for r in recs))
    print("| t | half | " + " | ".join(files) + " |")
    print("|---" * (len(files) + 2) + "|")
    for t in [0.0, *[float(v) for v in args.thresholds.split(",")]]:
        for half in ("tune", "report"):
            variant = None if t == 0.0 else rule(model, t, 1 if args.below_first else 0)
            row = [cell(replay([r for r in recs if r["file"] == f and r["half"] == half], variant)) for f in files]
            print(f"| {'landed' if t == 0.0 else t} | {half} | " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
