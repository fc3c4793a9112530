"""bench/bench_verdict.py --half: a verdict variant is tuned on one half of the dev questions and
reported on the other, so a bar fitted to single questions shows as a gain on one half only."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from conftest import real_embedder

BENCH = Path(__file__).resolve().parent.parent / "bench"


def bench_verdict():
    sys.path.insert(0, str(BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_verdict_under_test", BENCH / "bench_verdict.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(BENCH))


def test_split_half_by_group_when_a_file_has_many_and_by_turns_otherwise() -> None:
    split = bench_verdict().split_half
    convs = {f"conv-{n}": [f"q{n}.{i}" for i in range(3)] for n in (43, 26, 41, 30, 42)}
    tune, report = split(convs, "tune"), split(convs, "report")
    # five conversations: the first three in sorted order to tune, no conversation in both
    assert [g for g, qs in sorted(tune.items()) if qs] == ["conv-26", "conv-30", "conv-41"]
    assert [g for g, qs in sorted(report.items()) if qs] == ["conv-42", "conv-43"]
    assert all(tune[g] == convs[g] or report[g] == convs[g] for g in convs)
    # one hand-written vault (or a few): questions alternate in the order asked, groups sorted
    one = {"b": ["b0", "b1", "b2"], "a": ["a0", "a1"]}
    assert split(one, "tune") == {"a": ["a0"], "b": ["b0", "b2"]}
    assert split(one, "report") == {"a": ["a1"], "b": ["b1"]}
    assert split(one, None) == one
    with pytest.raises(ValueError):
        split(one, "B")


def test_measure_reports_each_half_and_the_halves_make_the_whole(tmp_path: Path) -> None:
    mod = bench_verdict()
    mems = [{"key": "editor", "description": "Uses Helix as the main editor"},
            {"key": "shell", "description": "Interactive shell is fish"},
            {"key": "coffee", "description": "Drinks flat whites, no sugar"}]
    queries = [{"id": "1", "q": "which editor do I use?", "relevant": ["editor"]},
               {"id": "2", "q": "what shell do I use?", "relevant": ["shell"]},
               {"id": "3", "q": "how do I take my coffee?", "relevant": ["coffee"]},
               {"id": "4", "q": "what is my dentist's name?", "relevant": []}]
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"meta": {}, "memories": mems, "queries": queries}), encoding="utf-8")
    emb = real_embedder()
    whole, tune, report = (mod.measure(path, emb, half=h) for h in (None, "tune", "report"))
    assert (tune["half"], report["half"]) == ("tune", "report") and "half" not in whole
    assert (tune["answerable"], tune.get("near_miss", 0)) == (2, 0) and report["answerable"] == 1
    assert report["near_miss"] == 1  # question 4, the second of the report half
    assert whole["answerable"] == tune["answerable"] + report["answerable"]
    assert whole["cpu_ms_per_recall"] > 0
