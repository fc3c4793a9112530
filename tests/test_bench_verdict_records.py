"""bench/verdict_records.py: a verdict rule tried offline over the records is exact only if the
records replay the recall's own figures, so the replay is checked against bench_verdict.py's."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from conftest import real_embedder

from vault_mem.index import levels, search

BENCH = Path(__file__).resolve().parent.parent / "bench"


def load(name: str):
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_under_test", BENCH / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(BENCH))


def test_records_replay_the_verdict_figures_of_each_half(tmp_path: Path) -> None:
    records, verdict = load("verdict_records"), load("bench_verdict")
    mems = [{"key": "editor", "description": "Uses Helix as the main editor"},
            {"key": "shell", "description": "Interactive shell is fish"},
            {"key": "coffee", "description": "Drinks flat whites, no sugar"},
            {"key": "ci", "description": "CI runs on GitHub Actions with self-hosted runners"}]
    queries = [{"id": "1", "q": "which editor do I use?", "relevant": ["editor"]},
               {"id": "2", "q": "what shell do I use?", "relevant": ["shell"]},
               {"id": "3", "q": "how do I take my coffee?", "relevant": ["coffee"]},
               {"id": "4", "q": "what is my dentist's name?", "relevant": []},
               {"id": "5", "q": "where do our CI jobs run?", "relevant": ["ci"]}]
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"meta": {}, "memories": mems, "queries": queries}), encoding="utf-8")
    emb = real_embedder()
    stages = (search.fuse_phrasings, levels.levels)
    recs = records.record(path, emb)
    assert (search.fuse_phrasings, levels.levels) == stages  # the recall's stages are restored
    assert [r["half"] for r in recs] == ["tune", "report", "tune", "report", "tune"]
    editor = next(r for r in recs if r["q"].startswith("which editor"))
    first = editor["hits"][0]
    assert first["key"] == "editor" and first["rel"] and first["level"] == "strong"
    assert first["kw_rank"] == 0 and first["vec_rank"] == 0 and first["cosine"] >= editor["floor"]["strong"]
    for half in ("tune", "report"):
        want = verdict.measure(path, emb, half=half)
        got = records.replay([r for r in recs if r["half"] == half])
        for name in ("answerable", "hook_coverage", "strong_precision", "r5", "near_miss_given_strong"):
            assert got[name] == want.get(name), (half, name)
    # a rule is a function of the record: every hit a candidate covers nothing
    nothing = records.replay(recs, lambda r: ["candidate"] * len(r["hits"]))
    assert nothing["hook_coverage"] == 0.0 and nothing["strong_precision"] is None
    assert records.replay(recs)["hook_coverage"] > 0
