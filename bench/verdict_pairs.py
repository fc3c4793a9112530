"""A reader of the question and the memory together (reader24, issue 24): what scoring a recall's
top 3 (question, memory) pairs costs, and what a cross-encoder does as a verdict rule.

    python bench/verdict_records.py FILES --cache C --out R --words
    python bench/verdict_pairs.py R FILES --cost [--runs 3]
    python bench/verdict_pairs.py R FILES --model M.onnx --tokenizer tokenizer.json [--label 1] [--max-tokens 512]

``FILES``: the benchmark files the records were made from (the memories' text is read from them
at run time; nothing is stored). Each record's top 3 hits are paired with the question as a
cross-encoder reads them: ``[CLS] question [SEP] memory text [SEP]`` (``terms.document_text``, the
text the recall embeds), one ONNX run of the three pairs per recall.

- ``--cost``: the CPU of that run on the bundled model's graph (all-MiniLM-L6-v2 int8: 6 layers,
  384 wide, the same BERT graph as the ms-marco-MiniLM-L-6-v2 cross-encoder less its 384 -> 1
  head), per recall, against the query's own embedding in the same run (the recall's
  ``query embedding`` stage), thread CPU time, ``--runs`` passes over every record. It needs no
  cross-encoder: no package on the registry ships one with its weights (docs/benchmarks.md,
  "A reader of question and memory together").
- ``--model``: a cross-encoder (or NLI / relevance classifier) as an ONNX file with its
  ``tokenizer.json``: its score for each pair (the logit of a one-output head; with more outputs,
  the softmax share of ``--label``), then three rules replayed over the records as
  ``verdict_reader`` replays its rules (levels change only in the top 3, never the order):
  ``pair-floor`` (a strong hit scoring under t becomes a candidate), ``pair-below-first`` (a
  strong hit below the first scoring t under it) and ``pair-raise`` (a candidate first hit scoring
  at least t becomes strong), and ``pair-decides`` (the reader alone makes each top-3 hit strong
  at t or over, a candidate under it). The thresholds are quantiles of the tune half's scores, and the one
  rule reported is picked on the tune half alone (:func:`pick`): the best curated strong
  precision among those that cost no file more than a point of hook coverage and add no more
  than a point to its near misses given a strong hit.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from verdict_reader import cell, memories_of, text_of  # bench/ is on sys.path when run as a script
from verdict_records import replay

STRONG, CANDIDATE = "strong", "candidate"
TOP = 3
CURATED = ("curated16.json", "curated18.json")
HOOK_SLACK = 0.01  # a picked rule costs no file more than this share of hook coverage (tune half)
QUANTILES = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def pairs_of(records: list[dict], mems: dict) -> list[list[tuple[str, str]]]:
    """Each record's (question, memory text) pairs for its top-3 hits, in rank order (a hit whose
    memory the files do not hold is skipped)."""
    out = []
    for r in records:
        row = []
        for h in r["hits"][:TOP]:
            m = mems.get((r["file"], r["group"], h["key"]))
            if m is not None:
                row.append((r["q"], text_of(m)))
        out.append(row)
    return out


def feeds(session_inputs, encodings) -> dict[str, np.ndarray]:
    """The ONNX inputs for a batch of pair encodings: ids, mask and segment ids, padded to the
    batch's longest (or to the graph's fixed width where it has one)."""
    fixed = [i.shape[1] for i in session_inputs if isinstance(i.shape[1], int)]
    width = fixed[0] if fixed else max(len(e.ids) for e in encodings)
    ids = np.zeros((len(encodings), width), dtype=np.int64)
    mask, types = np.zeros_like(ids), np.zeros_like(ids)
    for row, e in enumerate(encodings):
        n = min(len(e.ids), width)
        ids[row, :n], mask[row, :n], types[row, :n] = e.ids[:n], 1, e.type_ids[:n]
    names = {i.name for i in session_inputs}
    out = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in names:
        out["token_type_ids"] = types
    return out


def cost(pairs: list[list[tuple[str, str]]], runs: int = 3) -> dict:
    """Thread CPU ms per recall for one run of its top-3 pairs through the bundled model's graph,
    for the first hit's pair alone, and for the query's own embedding (the baseline), p50/p95 over ``runs`` passes of every
    record; with the pairs' token counts."""
    from vault_mem.embed.local import _local_runtime

    t0 = time.process_time()
    rt = _local_runtime()
    load_ms = 1000 * (time.process_time() - t0)
    tok, session = rt.tokenizer, rt.session
    inputs = session.get_inputs()
    tok.enable_truncation(max_length=512)  # a cross-encoder's own limit (ms-marco-MiniLM: 512)
    pair_ms, first_ms, query_ms, lengths = [], [], [], []
    try:
        for _ in range(runs):
            for row in pairs:
                if not row:
                    continue
                q = row[0][0]
                t = time.thread_time()
                session.run(None, feeds(inputs, tok.encode_batch([q])))
                query_ms.append(1000 * (time.thread_time() - t))
                t = time.thread_time()
                enc = tok.encode_batch(row)
                session.run(None, feeds(inputs, enc))
                pair_ms.append(1000 * (time.thread_time() - t))
                t = time.thread_time()
                session.run(None, feeds(inputs, tok.encode_batch(row[:1])))
                first_ms.append(1000 * (time.thread_time() - t))
                if len(lengths) < len(pairs) * TOP:
                    lengths.extend(len(e.ids) for e in enc)
    finally:
        from vault_mem.embed.local import LOCAL_MAX_TOKENS

        tok.enable_truncation(max_length=LOCAL_MAX_TOKENS)  # the embedder's own setting, back
    pct = lambda xs, p: round(float(np.percentile(xs, p)), 2) if xs else None  # noqa: E731
    return {"recalls": len(pair_ms), "load_ms": round(load_ms, 1),
            "pairs_p50": pct(pair_ms, 50), "pairs_p95": pct(pair_ms, 95),
            "first_p50": pct(first_ms, 50), "first_p95": pct(first_ms, 95),
            "query_p50": pct(query_ms, 50), "query_p95": pct(query_ms, 95),
            "tokens_p50": pct(lengths, 50), "tokens_p95": pct(lengths, 95)}


class PairModel:
    """A cross-encoder / pair classifier in ONNX with its tokenizer.json, on one CPU thread."""

    def __init__(self, model: Path, tokenizer: Path, label: int = 0, max_tokens: int = 512) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        t0 = time.process_time()
        self.tok = Tokenizer.from_file(str(tokenizer))
        self.tok.no_padding()
        self.tok.enable_truncation(max_length=max_tokens)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = opts.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
        self.load_ms = 1000 * (time.process_time() - t0)
        self.label = label

    def score(self, row: list[tuple[str, str]]) -> list[float]:
        if not row:
            return []
        logits = self.session.run(None, feeds(self.session.get_inputs(), self.tok.encode_batch(row)))[0]
        logits = np.asarray(logits, dtype=np.float64).reshape(len(row), -1)
        if logits.shape[1] == 1:
            return logits[:, 0].tolist()
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return (e[:, self.label] / e.sum(axis=1)).tolist()


def oracle(records: list[dict], accuracy: float):
    """A scripted reader right on each pair with probability ``accuracy`` (1: it knows the
    records' relevance labels), the same draw for a pair every run: what a reader of that
    accuracy at most buys the verdict (the ceiling the goals need), as ``row -> scores``."""
    truth = {}
    for r in records:
        for h in r["hits"][:TOP]:
            truth[r["q"], h["key"]] = bool(h["rel"])

    def score(row, r):
        out = []
        for h in r["hits"][:TOP][: len(row)]:
            right = zlib.crc32(f"{r['q']}\0{h['key']}".encode()) / 2**32 < accuracy
            out.append(float(truth[r["q"], h["key"]] == right))
        return out

    return score


def annotate(records: list[dict], pairs: list[list[tuple[str, str]]], score) -> list[float]:
    """Sets ``pair`` on each record's top-3 hits to ``score(row)``'s value; the thread CPU ms
    of each recall's scoring."""
    spent = []
    for r, row in zip(records, pairs):
        t = time.thread_time()
        got = iter(score(row))
        spent.append(1000 * (time.thread_time() - t))
        for h in r["hits"][:TOP]:
            if h.get("key") is not None and row:
                h["pair"] = next(got, None)
    return spent


def rule(name: str, t: float):
    """The variant ``name`` at threshold ``t``: a function record -> levels (see the module)."""

    def variant(r: dict) -> list[str]:
        hits = r["hits"]
        lv = [h["level"] for h in hits]
        top = hits[:TOP]
        for j, h in enumerate(top):
            s = h.get("pair")
            if s is None:
                continue
            if name == "pair-floor" and lv[j] == STRONG and s < t:
                lv[j] = CANDIDATE
            elif name == "pair-below-first" and j > 0 and lv[j] == STRONG and top[0].get("pair") is not None \
                    and s < top[0]["pair"] - t:
                lv[j] = CANDIDATE
            elif name == "pair-raise" and j == 0 and lv[j] == CANDIDATE and s >= t:
                lv[j] = STRONG
            elif name == "pair-decides" and lv[j] in (STRONG, CANDIDATE):
                lv[j] = STRONG if s >= t else CANDIDATE  # the reader alone decides the top 3
        return lv

    return variant


def grid(records: list[dict]) -> list[tuple[str, float]]:
    """The rules and thresholds tried: quantiles of the tune half's top-3 scores (and of the
    first hit's lead over the lower ones, for ``pair-below-first``)."""
    tune = [r for r in records if r["half"] == "tune"]
    scores = [h["pair"] for r in tune for h in r["hits"][:TOP] if h.get("pair") is not None]
    leads = [r["hits"][0]["pair"] - h["pair"] for r in tune for h in r["hits"][1:TOP]
             if h.get("pair") is not None and r["hits"][0].get("pair") is not None]
    out = []
    for q in QUANTILES:
        if scores:
            out.append(("pair-floor", round(float(np.quantile(scores, q)), 4)))
            out.append(("pair-raise", round(float(np.quantile(scores, 1 - q)), 4)))
            out.append(("pair-decides", round(float(np.quantile(scores, q)), 4)))
        if leads:
            out.append(("pair-below-first", round(float(np.quantile(leads, 1 - q)), 4)))
    return out


def figures(records: list[dict], variant, half: str) -> dict[str, dict]:
    files = list(dict.fromkeys(r["file"] for r in records))
    return {f: replay([r for r in records if r["file"] == f and r["half"] == half], variant) for f in files}


def pick(records: list[dict], candidates: list[tuple[str, float]]) -> tuple[str, float] | None:
    """The rule kept by the tune half alone: of those costing no file more than HOOK_SLACK of its
    tune hook coverage nor adding more than that to its near misses given a strong hit, the best mean strong precision on the curated files' tune halves (None:
    none passes, or none raises that precision)."""
    base = figures(records, None, "tune")
    cur = [f for f in base if f in CURATED]

    def prec(figs):
        xs = [figs[f]["strong_precision"] for f in cur if figs[f]["strong_precision"] is not None]
        return sum(xs) / len(xs) if xs else 0.0

    best, best_p = None, prec(base)
    for name, t in candidates:
        figs = figures(records, rule(name, t), "tune")
        if any((figs[f]["hook_coverage"] or 0) < (base[f]["hook_coverage"] or 0) - HOOK_SLACK
               or (figs[f]["near_miss_given_strong"] or 0) > (base[f]["near_miss_given_strong"] or 0) + HOOK_SLACK
               for f in base):
            continue
        if prec(figs) > best_p:
            best, best_p = (name, t), prec(figs)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", type=Path)
    ap.add_argument("files", type=Path, nargs="+")
    ap.add_argument("--cost", action="store_true", help="time the pairs on the bundled model's graph")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--model", type=Path, help="a cross-encoder's ONNX file")
    ap.add_argument("--tokenizer", type=Path, help="its tokenizer.json")
    ap.add_argument("--label", type=int, default=0, help="with several outputs, the one read as 'answers'")
    ap.add_argument("--max-tokens", type=int, default=512)
    ap.add_argument("--scores", type=Path, help="a JSON file keeping the model's pair scores across runs (outside the repo; a run reading them times nothing)")
    ap.add_argument("--oracle", type=float, action="append",
                    help="a scripted reader right on this share of pairs (repeatable; see oracle)")
    ap.add_argument("--only", action="append", help="only records of these files (repeatable)")
    args = ap.parse_args()
    records = [json.loads(line) for line in args.records.open(encoding="utf-8")]
    if args.only:
        records = [r for r in records if r["file"] in args.only]
    pairs = pairs_of(records, memories_of(args.files))
    if args.cost:
        print(json.dumps(cost(pairs, args.runs)))
    for acc in args.oracle or []:
        score = oracle(records, acc)
        for r, row in zip(records, pairs):
            for h, x in zip(r["hits"][:TOP], score(row, r)):
                h["pair"] = x
        files = list(dict.fromkeys(r["file"] for r in records))
        print(f"oracle {acc}: | variant | " + " | ".join(files) + " |")
        for name, v in [("landed", None)] + [(n, rule(n, 0.5)) for n in ("pair-floor", "pair-raise", "pair-decides")]:
            row = [" ; ".join(cell(replay([r for r in records if r["file"] == f and r["half"] == h], v))
                              for h in ("tune", "report")) for f in files]
            print(f"| {name} | " + " | ".join(row) + " |", flush=True)
    if args.model is None:
        return 0
    model = PairModel(args.model, args.tokenizer, args.label, args.max_tokens)
    saved = json.loads(args.scores.read_text(encoding="utf-8")) if args.scores and args.scores.exists() else {}
    spent = annotate(records, pairs, lambda row: [saved[q + "\0" + t] for q, t in row]
                     if all(q + "\0" + t in saved for q, t in row) else model.score(row))
    if args.scores:
        for r, row in zip(records, pairs):
            for (q, t), h in zip(row, r["hits"][:TOP]):
                saved[q + "\0" + t] = h["pair"]
        args.scores.write_text(json.dumps(saved), encoding="utf-8")
    print(json.dumps({"load_ms": round(model.load_ms, 1), "score_p50": round(float(np.percentile(spent, 50)), 2),
                      "score_p95": round(float(np.percentile(spent, 95)), 2)}))
    by = defaultdict(lambda: defaultdict(list))
    for r in records:
        for h in r["hits"][:TOP]:
            if h.get("pair") is not None and h["level"] == STRONG:
                kind = "relevant" if h["rel"] else ("near miss" if not r["rel"] else "wrong")
                by[r["file"]][kind].append(h["pair"])
    for f, kinds in by.items():
        print(f, {k: round(float(np.median(v)), 3) for k, v in kinds.items()})
    files = list(dict.fromkeys(r["file"] for r in records))
    print("| variant | " + " | ".join(files) + " |")
    for name, v in [("landed", None)] + [(f"{n} {t}", rule(n, t)) for n, t in grid(records)]:
        row = [" ; ".join(cell(replay([r for r in records if r["file"] == f and r["half"] == h], v))
                          for h in ("tune", "report")) for f in files]
        print(f"| {name} | " + " | ".join(row) + " |", flush=True)
    kept = pick(records, grid(records))
    print("picked on the tune half:", kept)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
