"""`vault-mem eval` on a tiny benchmark written here (never the licensed data)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import FakeEmbedder

from conftest import new_vault
from vault_mem.errors import EmbedderError, UsageError
from vault_mem.index.search import Hit, RecallResult
from vault_mem.ops.eval import (
    format_questions,
    format_report,
    judge,
    run_eval,
    run_eval_data,
    run_questions,
    summarise_verdicts,
    verdict_of,
)
from vault_mem.vault.core import Vault

BENCH = {
    "meta": {"note": "made up for the tests"},
    "memories": [
        {"key": "g1-a", "description": "Ana keeps bees on the roof", "body": "Two hives.", "created": "2024-04-02",
         "group": "g1"},
        {"key": "g1-b", "description": "Ana plays the cello in an orchestra", "body": "", "created": "2024-05-10",
         "group": "g1"},
        {"key": "G1 Bad Key!", "description": "Ana's sister lives in Porto", "body": "Visits monthly.",
         "created": "2024-06-01", "group": "g1"},
        {"key": "g2-a", "description": "Ben repairs vintage radios", "body": "Valve sets mostly.",
         "created": "2023-01-09", "group": "g2", "type": "note"},
    ],
    "queries": [
        {"id": "q1", "q": "Where does Ana keep bees?", "relevant": ["g1-a"], "category": "single-hop", "group": "g1"},
        {"id": "q2", "q": "Which instrument does Ana play, the cello?", "relevant": ["g1-b"],
         "category": "single-hop", "group": "g1"},
        {"id": "q3", "q": "Where does Ana's sister live, Porto?", "relevant": ["G1 Bad Key!"], "category": "multi-hop",
         "group": "g1"},
        {"id": "q4", "q": "What does Ben repair? radios", "relevant": ["g2-a"], "category": "single-hop",
         "group": "g2"},
        {"id": "q5", "q": "quantum chromodynamics lattice gauge", "relevant": [], "category": "abstain",
         "group": "g2"},
        {"id": "q6", "q": "Ana bees", "relevant": ["g2-a"], "category": "cross-group", "group": "g2"},
    ],
}


VERDICT_KEYS = {"n_answerable", "n_unanswerable", "denied", "denied_top_right", "hook_coverage", "strong_precision",
                "unanswerable_strong", "answer@5"}


@pytest.fixture
def bench_file(tmp_path: Path) -> Path:
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(BENCH), encoding="utf-8")
    return path


def test_run_eval_metrics_and_keys(bench_file: Path) -> None:
    seen: list[tuple[int, int]] = []
    report = run_eval(bench_file, embedder=FakeEmbedder(), progress=lambda d, t: seen.append((d, t)))
    assert set(report) == {"recall@1", "recall@3", "recall@5", "recall@10", "mrr@10", "n_queries", "no_hit_rate",
                           "abstain_rate", "by_category", "latency_ms", "embedder", "floor", *VERDICT_KEYS}
    assert report["n_queries"] == 6 and seen[-1] == (6, 6)
    assert report["embedder"] == "fake:v1"
    # q1-q4 found first (q3 through the key mapping), q5 abstains correctly, q6 searches only g2.
    assert report["by_category"]["single-hop"]["recall@1"] == 1.0
    assert report["by_category"]["multi-hop"]["mrr@10"] == 1.0
    assert report["by_category"]["abstain"] == {"recall@1": 1.0, "recall@3": 1.0, "recall@5": 1.0,
                                                "recall@10": 1.0, "mrr@10": 1.0, "n_queries": 1,
                                                "no_hit_rate": 1.0, "abstain_rate": 1.0,
                                                "n_answerable": 0, "n_unanswerable": 1, "denied": None,
                                                "denied_top_right": None, "hook_coverage": None,
                                                "strong_precision": None, "unanswerable_strong": 0.0,
                                                "answer@5": None}
    assert report["by_category"]["cross-group"]["recall@10"] == 0.0
    assert report["recall@1"] == pytest.approx(5 / 6, abs=1e-3)
    assert report["no_hit_rate"] == pytest.approx(2 / 6, abs=1e-3)
    assert set(report["latency_ms"]) == {"p50", "p95"} and report["latency_ms"]["p50"] > 0
    text = format_report(report)
    assert "R@5" in text and "single-hop" in text and "fake:v1" in text
    json.dumps(report)


def test_run_eval_keyword_only_says_so(bench_file: Path) -> None:
    report = run_eval(bench_file, embedder=None)
    assert report["embedder"] is None and report["keyword_only"] == ["embedder is 'none'"]
    assert "keyword-only" in format_report(report)


class FailsOnMemories(FakeEmbedder):
    """Embeds questions but fails on every memory (as a model failing under memory pressure)."""

    def embed_batch(self, texts, *, kind="document"):
        if kind == "document":
            raise EmbedderError("out of memory")
        return super().embed_batch(texts, kind=kind)


def test_run_eval_says_when_memories_got_no_vector(bench_file: Path) -> None:
    report = run_eval(bench_file, embedder=FailsOnMemories())
    assert report["unembedded"] == 4
    assert "4 memories got no vector" in format_report(report)
    assert "unembedded" not in run_eval(bench_file, embedder=FakeEmbedder())


def test_run_eval_rejects_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(UsageError):
        run_eval(bad, embedder=None)
    bad.write_text(json.dumps({"memories": [{"key": 1}], "queries": []}), encoding="utf-8")
    with pytest.raises(UsageError):
        run_eval(bad, embedder=None)
    with pytest.raises(UsageError):
        run_eval(tmp_path / "missing.json", embedder=None)


# -- the verdict figures (DESIGN §4) ---------------------------------------------------------


def hit(key: str, match: str) -> Hit:
    return Hit(key=key, type="fact", description=key, date=None, age_days=None, flags=[], path=f"facts/{key}.md",
               score=0.5, body="", keyword_only=False, match=match)


def result(*hits: Hit, note: str | None = None) -> RecallResult:
    return RecallResult(hits=list(hits), note=note)


def test_verdict_of_reads_the_hits_and_what_the_result_tells_the_agent() -> None:
    assert verdict_of(result()) == "none"
    assert verdict_of(result(hit("a", "candidate"), hit("b", "strong"))) == "strong"
    # both names of the level below strong (it was renamed weak -> candidate)
    assert verdict_of(result(hit("a", "candidate"))) == verdict_of(result(hit("a", "weak"))) == "candidate"
    # hits shown under a denial are a denial: the agent is told nothing stored answers
    assert verdict_of(result(hit("a", "weak"), note="nothing stored answers this; the closest memories are weak "
                                                    "matches, not answers")) == "none"
    assert verdict_of(result(hit("a", "candidate"), note="these are the closest memories and may not answer; "
                                                         "answer from one that does, otherwise say it is not stored"
                             )) == "candidate"
    said = SimpleNamespace(hits=[hit("a", "candidate")], note=None, verdict="none")
    assert verdict_of(said) == "none"  # a result that states its verdict is taken at its word


def test_eval_counts_every_deny_wording_the_adapters_are_checked_for() -> None:
    """One list of deny wordings (model/verdict.py): a note that tells the agent to deny in any
    of them makes the result a denial in ``eval``, as the adapters' text test would flag it."""
    from vault_mem.model import verdict

    for phrase in verdict.DENY_PHRASES:
        assert verdict_of(result(hit("a", "candidate"), note=f"the closest memories; {phrase} please")) == "none"
    assert verdict_of(result(hit("a", "candidate"), note=verdict.NONE_INSTRUCTION)) == "candidate"


def test_judge_and_summary_by_hand() -> None:
    deny = "nothing stored answers this; the closest memories are weak matches, not answers"
    rows = [
        # answerable; the answer strong at 2, a wrong strong hit at 1: covered, 1 of 2 strong right
        judge(result(hit("x", "strong"), hit("ans1", "strong"), hit("y", "candidate")), ["ans1"]),
        # answerable; the answer first, but only a candidate under a denial: denied, top hit right
        judge(result(hit("ans2", "weak"), hit("z", "weak"), note=deny), ["ans2"]),
        # answerable; no hits: denied, top hit not right
        judge(result(), ["ans3"]),
        # answerable; the answer a candidate at 5 (not denied), a strong wrong one at 4 (past the hook's 3)
        judge(result(*(hit(k, "candidate") for k in "abc"), hit("d", "strong"), hit("ans4", "candidate")), ["ans4"]),
        # unanswerable: none relevant / a category that says so, whatever its keys
        judge(result(hit("p", "candidate"), hit("q", "strong")), []),
        judge(result(hit("ans6", "strong")), ["ans6"], category="Adversarial"),
        judge(result(hit("r", "candidate")), [], category="near_miss"),
    ]
    assert [r["verdict"] for r in rows] == ["strong", "none", "none", "strong", "strong", "strong", "candidate"]
    assert summarise_verdicts(rows) == {
        "n_answerable": 4, "n_unanswerable": 3,
        "denied": 0.5,  # 2 of 4
        "denied_top_right": 0.25,  # 1 of 4
        "hook_coverage": 0.25,  # only the first
        "strong_precision": 0.5,  # strong top-3 hits of answerable questions: x, ans1 (d is 4th)
        "unanswerable_strong": round(2 / 3, 4),
        "answer@5": 0.75,  # all but the third
    }
    assert summarise_verdicts(rows[4:]) == {"n_answerable": 0, "n_unanswerable": 3, "denied": None,
                                            "denied_top_right": None, "hook_coverage": None,
                                            "strong_precision": None, "unanswerable_strong": round(2 / 3, 4),
                                            "answer@5": None}


# Four memories of words no other one holds: a question in a memory's own words finds it alone
# and strong (fake embedder: cosine 1), a question in words of none finds nothing.
VERDICT_BENCH = {
    "memories": [
        {"key": "bees", "description": "Ana keeps bees in two hives on the roof", "group": "v"},
        {"key": "radios", "description": "Ben repairs vintage valve radios in his garage", "group": "v"},
        {"key": "dinghy", "description": "Cleo sails a wooden dinghy on the lake", "group": "v"},
        {"key": "beer", "description": "Dev brews sour beer with wild yeast", "group": "v"},
    ],
    "queries": [
        {"q": "Ana keeps bees in two hives on the roof", "relevant": ["bees"], "category": "direct", "group": "v"},
        # the benchmark's answer is another memory: the strong hit is a wrong one
        {"q": "Ben repairs vintage valve radios in his garage", "relevant": ["dinghy"], "category": "direct",
         "group": "v"},
        {"q": "zymurgy quasar obelisk tundra", "relevant": ["bees"], "category": "lost", "group": "v"},
        {"q": "zymurgy quasar obelisk tundra", "relevant": [], "category": "near-miss", "group": "v"},
        {"q": "Cleo sails a wooden dinghy on the lake", "relevant": [], "category": "near-miss", "group": "v"},
        {"q": "Dev brews sour beer with wild yeast", "relevant": ["beer"], "category": "adversarial", "group": "v"},
    ],
}


def test_run_eval_reports_the_verdict_figures_per_file_and_category() -> None:
    report = run_eval_data(VERDICT_BENCH, embedder=FakeEmbedder())
    # answerable: the 2 direct and the lost one; unanswerable: the near misses and the adversarial
    assert {k: report[k] for k in VERDICT_KEYS} == {
        "n_answerable": 3, "n_unanswerable": 3, "denied": round(1 / 3, 4), "denied_top_right": 0.0,
        "hook_coverage": round(1 / 3, 4), "strong_precision": 0.5, "unanswerable_strong": round(2 / 3, 4),
        "answer@5": round(1 / 3, 4)}
    cats = report["by_category"]
    assert (cats["direct"]["denied"], cats["direct"]["hook_coverage"], cats["direct"]["strong_precision"]) == \
        (0.0, 0.5, 0.5)
    assert (cats["lost"]["denied"], cats["lost"]["denied_top_right"], cats["lost"]["strong_precision"]) == \
        (1.0, 0.0, None)
    assert (cats["near-miss"]["n_unanswerable"], cats["near-miss"]["unanswerable_strong"]) == (2, 0.5)
    assert (cats["adversarial"]["unanswerable_strong"], cats["adversarial"]["recall@1"]) == (1.0, 1.0)
    text = format_report(report)
    assert "verdict" in text and "hook@3" in text
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("verdict"))
    assert lines[head].split()[1:] == ["answ", "denied", "top-ok", "hook@3", "s-prec", "ans@5", "unans", "u-strong"]
    assert lines[head + 1].split() == ["all", "3", "33.3%", "0.0%", "33.3%", "50.0%", "33.3%", "3", "66.7%"]
    assert json.loads(json.dumps(report)) == report  # the JSON output carries every figure


def test_question_files_report_the_verdict_figures(tmp_path: Path) -> None:
    new_vault(tmp_path / "v").close()
    with Vault(tmp_path / "v", embedder=FakeEmbedder()) as vault:
        for m in VERDICT_BENCH["memories"]:
            vault.remember(m["key"], m["description"])
        report = run_questions(vault, [("Ana keeps bees in two hives on the roof", "bees"),
                                       ("zymurgy quasar obelisk tundra", "bees"),
                                       ("Cleo sails a wooden dinghy on the lake", None)])
    assert [q["outcome"] for q in report["questions"]] == ["hit", "miss", "wrong"]
    summary = report["summary"]
    assert {k: summary[k] for k in VERDICT_KEYS} == {
        "n_answerable": 2, "n_unanswerable": 1, "denied": 0.5, "denied_top_right": 0.0, "hook_coverage": 0.5,
        "strong_precision": 1.0, "unanswerable_strong": 1.0, "answer@5": 0.5}
    assert set(summary["by_category"]) == {"expects a key", "expects nothing"}
    assert summary["recall@1"] == round(1 / 3, 4)  # the one found of three (nothing expected and strong: 0)
    text = format_questions(report)
    assert "hook@3" in text and "R@5" in text
    # each category's whole name heads its rows (it was cut to 14 characters: "expects nothin")
    rows = [line for line in text.splitlines() if line.startswith("expects nothing ")]
    assert len(rows) == 2, text
