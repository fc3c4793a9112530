"""`vault-mem eval` on a tiny benchmark written here (never the licensed data)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import FakeEmbedder

from vault_mem.errors import EmbedderError, UsageError
from vault_mem.ops.eval import format_report, run_eval

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


@pytest.fixture
def bench_file(tmp_path: Path) -> Path:
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(BENCH), encoding="utf-8")
    return path


def test_run_eval_metrics_and_keys(bench_file: Path) -> None:
    seen: list[tuple[int, int]] = []
    report = run_eval(bench_file, embedder=FakeEmbedder(), progress=lambda d, t: seen.append((d, t)))
    assert set(report) == {"recall@1", "recall@3", "recall@5", "recall@10", "mrr@10", "n_queries", "no_hit_rate",
                           "abstain_rate", "by_category", "latency_ms", "embedder", "floor"}
    assert report["n_queries"] == 6 and seen[-1] == (6, 6)
    assert report["embedder"] == "fake:v1"
    # q1-q4 found first (q3 through the key mapping), q5 abstains correctly, q6 searches only g2.
    assert report["by_category"]["single-hop"]["recall@1"] == 1.0
    assert report["by_category"]["multi-hop"]["mrr@10"] == 1.0
    assert report["by_category"]["abstain"] == {"recall@1": 1.0, "recall@3": 1.0, "recall@5": 1.0,
                                                "recall@10": 1.0, "mrr@10": 1.0, "n_queries": 1,
                                                "no_hit_rate": 1.0, "abstain_rate": 1.0}
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
