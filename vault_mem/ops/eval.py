"""``vault-mem eval``: recall quality and latency on a benchmark file.

The file format (see the project's bench notes)::

    {"meta": {...},
     "memories": [{"key", "description", "body", "created": "YYYY-MM-DD", "group", "type"?}],
     "queries":  [{"id", "q", "relevant": [keys], "category", "group"}]}

Each group is one memory store: it becomes a temporary vault built the way users build theirs
(``Vault.init`` + one bulk-import commit), and its queries are searched only there, through
``Sidecar.recall`` with its defaults (k=10 for the metrics). A query with an empty ``relevant``
list counts as correct for R@k and MRR when recall gives it no strong hit (the relevance floor
at work). A question file (``question → key`` lines, :func:`run_questions`) is run against a
person's own vault instead, through ``Vault.recall``, and reports the same figures.

Metrics: R@k = share of a query's relevant keys in the top k, averaged over queries; MRR@10 =
mean of 1/rank of the first relevant key in the top 10 (0 if none); ``no_hit_rate`` = share of
queries with no hits; latency = wall time of each ``recall`` call (query embedding included).

The verdict's figures (DESIGN §4 "The verdict"), from each result's hits (their ``match``:
``strong`` or not) and what it tells the agent (:func:`verdict_of`), in :func:`judge`. A query
is *unanswerable* when it has no relevant key or its category says so (:data:`UNANSWERABLE`:
LoCoMo's adversarial questions, a near miss); the others are *answerable*. Over answerable ones:
``denied`` = share given ``none`` (no hits, or a result saying nothing stored answers);
``denied_top_right`` = share denied although the top hit was relevant; ``hook_coverage`` =
share with a relevant hit ``strong`` in the top 3 (what the prompt hook injects);
``strong_precision`` = relevant share of all their strong top-3 hits; ``answer@5`` = share with
a relevant hit in the top 5. Over unanswerable ones: ``unanswerable_strong`` = share given a
strong hit in the top 3. A figure with no question to count is None.
"""

from __future__ import annotations

import datetime as dt
import json
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from vault_mem.errors import UsageError, VaultMemError
from vault_mem.index.sidecar import DEFAULT, Sidecar
from vault_mem.model.memory import InvalidKeyError, Memory, suggest_key, validate_key, validate_type
from vault_mem.model.verdict import deny_phrases
from vault_mem.vault.core import Vault

KS = (1, 3, 5, 10)
EVAL_K = 10
#: the hits the prompt hook looks at: it injects the strong ones among them
HOOK_K = 3
#: categories whose questions nothing stored answers, whatever keys they list (LoCoMo marks its
#: adversarial questions so; a paraphrase set its near misses); compared lower-case, "_" as "-"
UNANSWERABLE = frozenset({"adversarial", "unanswerable", "near-miss"})
#: the verdict figures, in :func:`summarise_verdicts`' order
VERDICT_FIGURES = ("denied", "denied_top_right", "hook_coverage", "strong_precision", "unanswerable_strong",
                   "answer@5")

Progress = Callable[[int, int], None]


def load_benchmark(path: Path) -> dict[str, Any]:
    """Read and check a benchmark file; raises UsageError naming what is wrong."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise UsageError(f"benchmark file {path} does not exist") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not a JSON benchmark file ({exc})") from exc
    if not isinstance(data, dict) or not isinstance(data.get("memories"), list) \
            or not isinstance(data.get("queries"), list):
        raise UsageError(f"{path}: expected an object with 'memories' and 'queries' lists")
    for i, m in enumerate(data["memories"]):
        if not isinstance(m, dict) or not isinstance(m.get("key"), str) or not isinstance(m.get("description"), str):
            raise UsageError(f"{path}: memory #{i} needs at least 'key' and 'description' strings")
    for i, q in enumerate(data["queries"]):
        if not isinstance(q, dict) or not isinstance(q.get("q"), str) or not isinstance(q.get("relevant", []), list):
            raise UsageError(f"{path}: query #{i} needs a 'q' string and a 'relevant' list")
    return data


def _key_map(keys: Iterable[str]) -> dict[str, str]:
    """Benchmark key -> valid, unique vault key (unchanged when already valid)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for key in keys:
        try:
            new = validate_key(key)
        except InvalidKeyError:
            new = suggest_key(key)
        base, n = new, 2
        while new in used:
            new = f"{base[:70]}-{n}"
            n += 1
        used.add(new)
        out[key] = new
    return out


def _to_memory(m: dict[str, Any], key: str) -> Memory:
    created = dt.date.fromisoformat(str(m.get("created") or "2000-01-01")[:10])
    description = " ".join(str(m["description"]).split()) or key
    meta: dict[str, Any] = {"description": description, "created": created, "updated": created,
                            "source": "imported"}
    return Memory(key=key, type=validate_type(m.get("type") or "fact"), meta=meta, body=str(m.get("body") or ""))


def _percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    idx = min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))
    return s[idx]


def _score(ranked: list[str], relevant: list[str], *, answered: bool = True) -> dict[str, float]:
    if not relevant:
        ok = 0.0 if ranked and answered else 1.0
        return {**{f"recall@{k}": ok for k in KS}, "mrr@10": ok}
    rel = set(relevant)
    out = {f"recall@{k}": len(rel & set(ranked[:k])) / len(rel) for k in KS}
    out["mrr@10"] = next((1.0 / (i + 1) for i, key in enumerate(ranked[:EVAL_K]) if key in rel), 0.0)
    return out


def verdict_of(result: Any) -> str:
    """What a recall result tells the agent: ``strong`` (a strong hit), ``candidate`` (hits, none
    strong) or ``none`` (nothing stored answers).

    ``none`` when there are no hits, when the result states that verdict itself (a ``verdict``
    field), or when its note tells the agent to deny (:func:`vault_mem.model.verdict.deny_phrases`):
    hits shown under "nothing stored answers this" are a denial all the same (the agent is told to
    say so)."""
    hits = list(getattr(result, "hits", []) or [])
    said = getattr(result, "verdict", None)
    if not hits or said == "none" or deny_phrases(getattr(result, "note", None) or ""):
        return "none"
    return "strong" if any(h.match == "strong" for h in hits) else "candidate"


def unanswerable(relevant: list[str], category: str | None) -> bool:
    """A question nothing stored answers: no relevant key, or a category of :data:`UNANSWERABLE`."""
    return not relevant or (category or "").strip().lower().replace("_", "-") in UNANSWERABLE


def judge(result: Any, relevant: list[str], *, category: str | None = None,
          key_of: Callable[[str], str] = str) -> dict[str, Any]:
    """One query's verdict figures (see the module) from its recall ``result``: 1.0 / 0.0 per
    figure, None where it does not apply; ``key_of`` maps a hit's key to the benchmark's."""
    ranked = [(key_of(h.key), h.match == "strong") for h in result.hits]
    rel = set(relevant)
    strong_top = [key for key, strong in ranked[:HOOK_K] if strong]
    row: dict[str, Any] = dict.fromkeys(VERDICT_FIGURES)
    row["verdict"] = verdict_of(result)
    if unanswerable(relevant, category):
        row["answerable"] = False
        row["unanswerable_strong"] = 1.0 if strong_top else 0.0
        row["strong_top"], row["strong_top_relevant"] = 0, 0
        return row
    denied = row["verdict"] == "none"
    row["answerable"] = True
    row["denied"] = 1.0 if denied else 0.0
    row["denied_top_right"] = 1.0 if denied and ranked and ranked[0][0] in rel else 0.0
    row["hook_coverage"] = 1.0 if any(key in rel for key in strong_top) else 0.0
    row["answer@5"] = 1.0 if any(key in rel for key, _ in ranked[:5]) else 0.0
    row["strong_top"], row["strong_top_relevant"] = len(strong_top), sum(key in rel for key in strong_top)
    return row


def summarise_verdicts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The verdict figures over ``rows`` of :func:`judge` (see the module), with the counts."""
    answerable = [r for r in rows if r["answerable"]]
    others = [r for r in rows if not r["answerable"]]

    def share(name: str, among: list[dict[str, Any]]) -> float | None:
        return round(sum(r[name] for r in among) / len(among), 4) if among else None

    strong = sum(r["strong_top"] for r in answerable)
    out: dict[str, Any] = {"n_answerable": len(answerable), "n_unanswerable": len(others)}
    for name in VERDICT_FIGURES:
        if name == "strong_precision":  # over hits, not questions
            out[name] = round(sum(r["strong_top_relevant"] for r in answerable) / strong, 4) if strong else None
        else:
            out[name] = share(name, others if name == "unanswerable_strong" else answerable)
    return out


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    out: dict[str, Any] = {}
    for name in [*(f"recall@{k}" for k in KS), "mrr@10"]:
        out[name] = round(sum(r[name] for r in rows) / n, 4) if n else 0.0
    out["n_queries"] = n
    out["no_hit_rate"] = round(sum(r["no_hit"] for r in rows) / n, 4) if n else 0.0
    out["abstain_rate"] = round(sum(r.get("abstained", r["no_hit"]) for r in rows) / n, 4) if n else 0.0
    out.update(summarise_verdicts(rows))
    return out


def _summary_by_category(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """:func:`_summary` of all ``rows``, with ``by_category``: the same for each category's."""
    cats: dict[str, list] = defaultdict(list)
    for r in rows:
        cats[r["category"]].append(r)
    return {**_summary(rows), "by_category": {c: _summary(rs) for c, rs in sorted(cats.items())}}


def _query_row(result: Any, ranked: list[str], relevant: list[str], category: str,
               key_of: Callable[[str], str] = str) -> dict[str, Any]:
    """Everything one query counts for: R@k and MRR (of ``ranked``, the hits' benchmark keys),
    no hit, abstained (no strong hit), its category and its verdict figures (:func:`judge`)."""
    strong = any(h.match == "strong" for h in result.hits)
    row: dict[str, Any] = _score(ranked, relevant, answered=strong)
    row["no_hit"] = 0.0 if result.hits else 1.0
    row["abstained"] = 0.0 if strong else 1.0
    row["category"] = category
    row.update(judge(result, relevant, category=category, key_of=key_of))
    return row


def run_eval(path: Path, *, embedder: object = DEFAULT, progress: Progress | None = None) -> dict[str, Any]:
    """Build one temporary vault per group, run every query through recall, return the metrics.

    ``embedder``: DEFAULT uses the vault's configured embedder (``local`` unless
    ``VAULT_MEM_EMBEDDER`` says otherwise); pass an Embedder, or None for keywords only.
    """
    return run_eval_data(load_benchmark(path), embedder=embedder, progress=progress)


def run_eval_data(data: dict[str, Any], *, embedder: object = DEFAULT,
                  progress: Progress | None = None) -> dict[str, Any]:
    """:func:`run_eval` on a benchmark already loaded (``{"memories": [...], "queries": [...]}``)."""
    by_group_mem: dict[str, list[dict]] = defaultdict(list)
    for m in data["memories"]:
        by_group_mem[str(m.get("group", ""))].append(m)
    by_group_q: dict[str, list[dict]] = defaultdict(list)
    for q in data["queries"]:
        by_group_q[str(q.get("group", ""))].append(q)
    groups = sorted(set(by_group_mem) | set(by_group_q))
    total = len(data["queries"])
    rows: list[dict[str, Any]] = []
    latencies: list[float] = []
    model: str | None = None
    keyword_reasons: set[str] = set()
    floors: list[dict[str, Any]] = []
    unembedded = 0
    with tempfile.TemporaryDirectory(prefix="vault-mem-eval-") as tmp:
        for gi, group in enumerate(groups):
            root = Path(tmp) / f"group-{gi}"
            Vault.init(root, agent="vault-mem eval").close()
            vault = Vault(root) if embedder is DEFAULT else Vault(root, embedder=embedder)
            if embedder is None:
                vault.sidecar = _keyword_sidecar(vault)
            try:
                mems = by_group_mem.get(group, [])
                kmap = _key_map(m["key"] for m in mems)
                back = {v: k for k, v in kmap.items()}
                vault.import_memories([_to_memory(m, kmap[m["key"]]) for m in mems],
                                      message=f"eval: import {len(mems)} memories of group {group}")
                vault.sidecar.vectors.embed_pending()
                if vault.sidecar.vectors.vectors_reason() is None:
                    # an embedder error leaves memories keyword-only: the figures would be a
                    # different method's, so they must not pass for this one's
                    unembedded += vault.sidecar.vectors.vectors_missing()
                floor_seen = False
                for q in by_group_q.get(group, []):
                    t0 = time.perf_counter()
                    res = vault.sidecar.recall(q["q"], k=EVAL_K)
                    latencies.append((time.perf_counter() - t0) * 1000)
                    if res.keyword_only:
                        keyword_reasons.add(res.reason or "keyword-only")
                    model = model or res.embedder
                    if res.floor and not floor_seen:
                        floors.append(res.floor)
                        floor_seen = True
                    rows.append(_query_row(res, [back.get(h.key, h.key) for h in res.hits],
                                           [str(k) for k in q.get("relevant", [])],
                                           str(q.get("category") or "uncategorised"),
                                           key_of=lambda key, back=back: back.get(key, key)))
                    if progress:
                        progress(len(rows), total)
            finally:
                vault.close()
    report = _summary_by_category(rows)
    report["latency_ms"] = {"p50": round(_percentile(latencies, 50), 2), "p95": round(_percentile(latencies, 95), 2)}
    report["embedder"] = model
    report["floor"] = None  # the relevance floor each group's vault used (calibrated per vault)
    if floors:
        report["floor"] = {"source": sorted({f["source"] for f in floors}),
                           "min_sim_median": round(_percentile([f["min_sim"] for f in floors], 50), 4),
                           "strong_median": round(_percentile([f["strong"] for f in floors], 50), 4)}
    if keyword_reasons:
        report["keyword_only"] = sorted(keyword_reasons)  # never a silent downgrade
    if unembedded:
        report["unembedded"] = unembedded
    return report


def _keyword_sidecar(vault: Vault) -> Sidecar:
    vault.sidecar.close()
    return Sidecar(vault.root, vault.config, embedder=None)


def format_report(report: dict[str, Any]) -> str:
    """The human-readable tables ``vault-mem eval`` prints."""
    lines = [f"embedder: {report.get('embedder') or 'none (keyword-only)'}"]
    for reason in report.get("keyword_only", []):
        lines.append(f"keyword-only: {reason}")
    if report.get("unembedded"):
        lines.append(f"warning: {report['unembedded']} memories got no vector (the embedder failed on them; "
                     "see the log) and were found by keywords only: these figures are not the method's")
    lines.extend(format_figures(report))
    lat = report["latency_ms"]
    if report.get("floor"):
        f = report["floor"]
        lines.append(f"relevance floor ({', '.join(f['source'])}): median {f['min_sim_median']:.3f}, "
                     f"strong from {f['strong_median']:.3f}; abstained {report['abstain_rate']:.1%}")
    lines.append(f"recall latency: p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms")
    return "\n".join(lines)


def format_figures(report: dict[str, Any]) -> list[str]:
    """R@k and MRR, then the verdict figures (:func:`format_verdicts`), for the whole file and
    each category: table lines."""
    cols = ["recall@1", "recall@3", "recall@5", "recall@10", "mrr@10"]
    w = _name_width(report)
    lines = [f"{'':{w}}{'R@1':>7}{'R@3':>7}{'R@5':>7}{'R@10':>7}{'MRR@10':>8}{'n':>6}{'no-hit':>8}"]
    for name, r in [("all", report), *report.get("by_category", {}).items()]:
        vals = "".join(f"{r[c]:>7.3f}" if c != "mrr@10" else f"{r[c]:>8.3f}" for c in cols)
        lines.append(f"{name:{w}}{vals}{r['n_queries']:>6}{r['no_hit_rate']:>8.1%}")
    return lines + format_verdicts(report)


def _name_width(report: dict[str, Any]) -> int:
    """The first column's width: every category's whole name ("expects nothing"), 14 at least."""
    return max(14, *(len(name) + 1 for name in report.get("by_category", {})))


#: the verdict table's columns: figure, heading, width
_VERDICT_COLUMNS = (("n_answerable", "answ", 6), ("denied", "denied", 8), ("denied_top_right", "top-ok", 8),
                    ("hook_coverage", "hook@3", 8), ("strong_precision", "s-prec", 8), ("answer@5", "ans@5", 7),
                    ("n_unanswerable", "unans", 7), ("unanswerable_strong", "u-strong", 10))


def format_verdicts(report: dict[str, Any]) -> list[str]:
    """The verdict figures as table lines: the whole file, then each category ("-": nothing to count).

    denied = answerable questions given ``none``; top-ok = denied although the top hit was right;
    hook@3 = a relevant hit strong in the top 3; s-prec = relevant share of strong top-3 hits;
    ans@5 = a relevant hit in the top 5; u-strong = unanswerable questions given a strong hit."""
    def cell(r: dict[str, Any], name: str, width: int) -> str:
        value = r.get(name)
        if value is None:
            return f"{'-':>{width}}"
        return f"{value:>{width}}" if name.startswith("n_") else f"{value:>{width}.1%}"

    w = _name_width(report)
    lines = [f"{'verdict':{w}}{''.join(f'{head:>{width}}' for _, head, width in _VERDICT_COLUMNS)}"]
    for name, r in [("all", report), *report.get("by_category", {}).items()]:
        lines.append(f"{name:{w}}{''.join(cell(r, n, width) for n, _, width in _VERDICT_COLUMNS)}")
    return lines


# -- a person's own paraphrase test ---------------------------------------------------------

#: the arrows a question line may use between the question and the expected key
ARROWS = ("→", "->", "=>")
NOTHING = {"nothing", "none", "-"}
QUESTION_K = 3  # an expected key counts as found in the top 3


def is_question_file(path: Path) -> bool:
    """A question file (``question -> key`` lines) rather than a JSON benchmark."""
    try:
        head = Path(path).read_text(encoding="utf-8").lstrip()[:1]
    except (OSError, UnicodeDecodeError):
        return False
    return head != "{"


def parse_questions(text: str, *, source: str = "questions") -> list[tuple[str, str | None]]:
    """``(question, expected key or None)`` per line of ``question → key`` / ``question → nothing``.

    Blank lines and lines starting with ``#`` are skipped; ``->`` and ``=>`` work as arrows too."""
    out: list[tuple[str, str | None]] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        arrow = next((a for a in ARROWS if a in line), None)
        if arrow is None:
            raise UsageError(f"{source} line {n}: write 'question → expected-key' (or '→ nothing'), "
                             f"got {line[:60]!r}")
        question, _, expected = line.rpartition(arrow)
        question, expected = question.strip(), expected.strip()
        if not question or not expected:
            raise UsageError(f"{source} line {n}: both a question and an expected key (or 'nothing') are needed")
        out.append((question, None if expected.lower() in NOTHING else expected))
    if not out:
        raise UsageError(f"{source} holds no 'question → expected-key' lines")
    return out


def run_questions(vault: Vault, questions: list[tuple[str, str | None]]) -> dict[str, Any]:
    """Each question through ``vault``'s recall, judged against its expected key.

    Outcomes, from the top 3: ``hit`` (the key is a strong match), ``candidate`` (the key is
    there, not strong), ``miss`` (not found, and nothing strong either), ``wrong`` (strong
    matches, but not the key); for ``nothing``: ``abstained`` (no strong match: right) or
    ``wrong``. ``summary``: R@k, MRR and the verdict figures, as a benchmark's (:func:`run_eval`),
    with the categories ``expects a key`` and ``expects nothing``."""
    rows = []
    scored: list[dict[str, Any]] = []
    model = None
    for question, expected in questions:
        res = vault.recall(question, k=EVAL_K)
        model = model or res.embedder
        top = res.hits[:QUESTION_K]
        strong = [h.key for h in top if h.match == "strong"]
        keys = [h.key for h in top]
        if expected is None:
            outcome = "wrong" if strong else "abstained"
        elif expected in strong:
            outcome = "hit"
        elif expected in keys:
            outcome = "candidate"
        else:
            outcome = "wrong" if strong else "miss"
        rows.append({"question": question, "expected": expected, "outcome": outcome,
                     "hits": [{"key": h.key, "match": h.match} for h in top]})
        scored.append(_query_row(res, [h.key for h in res.hits], [expected] if expected else [],
                                 "expects a key" if expected else "expects nothing"))
    counts: dict[str, int] = defaultdict(int)
    for r in rows:
        counts[("nothing:" if r["expected"] is None else "key:") + r["outcome"]] += 1
    return {"questions": rows, "counts": dict(sorted(counts.items())), "embedder": model,
            "summary": _summary_by_category(scored)}


def format_questions(report: dict[str, Any]) -> str:
    """The per-question lines and a summary, as ``vault-mem eval QUESTIONS`` prints them."""
    lines = [f"embedder: {report.get('embedder') or 'none (keyword-only)'}"]
    for r in report["questions"]:
        got = ", ".join(f"{h['key']} ({h['match']})" for h in r["hits"]) or "no hits"
        want = r["expected"] or "nothing"
        lines.append(f"{r['outcome']:>9}  {r['question']}  → {want}   [got: {got}]")
    c = report["counts"]
    keyed = sum(v for k, v in c.items() if k.startswith("key:"))
    nothing = sum(v for k, v in c.items() if k.startswith("nothing:"))
    lines.append(f"with an expected key ({keyed}): {c.get('key:hit', 0)} hits, {c.get('key:candidate', 0)} found "
                 f"only as candidates, {c.get('key:miss', 0)} misses, {c.get('key:wrong', 0)} wrong answers")
    if nothing:
        lines.append(f"expecting nothing ({nothing}): {c.get('nothing:abstained', 0)} abstained (right), "
                     f"{c.get('nothing:wrong', 0)} wrong answers")
    if report.get("summary"):
        lines.extend(format_figures(report["summary"]))
    return "\n".join(lines)


__all__ = ["VaultMemError", "format_figures", "format_questions", "format_report", "format_verdicts", "judge", "load_benchmark",
           "parse_questions", "run_eval", "run_questions", "summarise_verdicts", "unanswerable", "verdict_of"]
