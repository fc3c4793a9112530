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


def test_word_features_say_what_the_checks_read_and_the_rules_replay_them(tmp_path: Path, capsys) -> None:
    """``--words``: a word the hit holds is matched at 1 and counted in the vault's memories, the
    focus is the question's; ``verdict_rules.py``'s ``landed`` rule is the records' own figures,
    and a rule changes levels only within the top 3 (the hits with word features)."""
    records, rules = load("verdict_records"), load("verdict_rules")
    mems = [{"key": "editor", "description": "Uses Helix as the main editor"},
            {"key": "editor-old", "description": "Used VS Code as the editor until 2024"},
            {"key": "shell", "description": "Interactive shell is fish"},
            {"key": "coffee", "description": "Drinks flat whites, no sugar"},
            {"key": "ci", "description": "CI runs on GitHub Actions with self-hosted runners"}]
    queries = [{"id": "1", "q": "which editor theme do I use?", "relevant": []},
               {"id": "2", "q": "what shell do I use?", "relevant": ["shell"]},
               {"id": "3", "q": "where do our CI jobs run?", "relevant": ["ci"]}]
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"meta": {}, "memories": mems, "queries": queries}), encoding="utf-8")
    recs = records.record(path, real_embedder(), with_words=True)
    theme = next(r for r in recs if r["q"].startswith("which editor"))
    first = theme["hits"][0]
    assert first["key"] in ("editor", "editor-old")
    words = first["words"]
    salience, best, held_by = words["terms"]["editor"]
    assert best == 1.0 and held_by == 2  # held by the hit, and by two of the vault's memories
    assert words["terms"]["theme"][2] == 0 and words["terms"]["theme"][1] < 1.0  # no memory says "theme"
    assert words["focus"] == {"theme": words["terms"]["theme"][1]}  # the asked thing, not held
    assert 0 < words["loose"] < words["match"] < 1 and 0 < words["mm"] <= 1 and words["n"] == len(mems)
    assert all("words" not in h for r in recs for h in r["hits"][records.WORD_HITS:])
    assert rules.replay(recs, rules.RULES["landed"]) == records.replay(recs)
    for name, rule in rules.RULES.items():
        for r in recs:
            got = rule(r)
            assert len(got) == len(r["hits"]), name
            assert got[rules.TOP:] == [h["level"] for h in r["hits"][rules.TOP:]], name
    out = tmp_path / "records.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    sys.argv = ["verdict_rules.py", str(out), "--rule", "landed", "--rule", "absent-word-strict"]
    assert rules.main() == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == "| rule | tiny.json |" and [row.split(" |")[0] for row in table[2:]] == \
        ["| landed", "| absent-word-strict"]


def test_a_word_rule_demotes_only_what_it_names() -> None:
    """``absent-word-strict`` on hand-made records: a sure hit lacking a salient word that no
    memory holds is a candidate, unless the word is matched at the match bar; a hit below the
    sure bar is left alone."""
    rules = load("verdict_rules")

    def rec(best: float, cosine: float) -> dict:
        words = {"match": 0.49, "loose": 0.34, "n": 100, "mm": 0.7, "focus": {},
                 "terms": {"kwame": [0.6, 1.0, 4], "phone": [0.4, best, 0]}}
        hit = {"key": "kwame-days", "rel": False, "level": "strong", "why": None, "cosine": cosine,
               "coverage": 0.5, "score": 1.5, "kw_rank": 0, "vec_rank": 0, "words": words}
        return {"file": "x", "q": "what is Kwame's phone number?", "rel": [], "keys": ["kwame-days"],
                "floor": {"strong": 0.28, "sure": 0.45, "base": 0.26, "spread": 0.08, "min_sim": 0.14,
                          "source": "calibrated"}, "best_cosines": [cosine], "hits": [hit]}

    rule = rules.RULES["absent-word-strict"]
    assert rule(rec(best=0.37, cosine=0.55)) == ["candidate"]
    assert rule(rec(best=0.52, cosine=0.55)) == ["strong"]  # "phone" matched by meaning
    assert rule(rec(best=0.37, cosine=0.40)) == ["strong"]  # not sure: the answer check's own bar


def test_the_learned_demotion_reads_every_feature_and_only_demotes(tmp_path: Path) -> None:
    """bench/verdict_learned.py (recall24): a row per strong top-3 hit with words, one value per
    named feature; its rule never raises a level, leaves the recorded ones at threshold 0 and
    demotes every strong top-3 hit at a threshold over 1."""
    records, learned = load("verdict_records"), load("verdict_learned")
    mems = [{"key": "editor", "description": "Uses Helix as the main editor"},
            {"key": "ci", "description": "CI runs on GitHub Actions with self-hosted runners"},
            {"key": "shell", "description": "Interactive shell is fish"}]
    queries = [{"id": "1", "q": "which editor do I use?", "relevant": ["editor"]},
               {"id": "2", "q": "where do our CI jobs run?", "relevant": ["ci"]},
               {"id": "3", "q": "which editor theme do I use?", "relevant": []}]
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"meta": {}, "memories": mems, "queries": queries}), encoding="utf-8")
    recs = records.record(path, real_embedder(), True)
    x, y, w = learned.rows(recs)
    assert len(x) and x.shape[1] == len(learned.NAMES) and abs(w.sum() - 1.0) < 1e-9
    model = learned.fit(x, y, w, steps=50)
    for r in recs:
        levels = [h["level"] for h in r["hits"]]
        assert learned.rule(model, 0.0)(r) == levels
        demoted = learned.rule(model, 1.01)(r)
        assert all(d == "candidate" or (d == lv and (j >= 3 or "words" not in r["hits"][j]))
                   for j, (d, lv) in enumerate(zip(demoted, levels, strict=True)))
