"""bench/verdict_reader.py (recall24): the sentence reader, the second embedder's opinion, the
question types and the vault's crowding read the same memories and the same scale as the recall
whose records they annotate, and its rules change levels only in the top 3, so the figures it
prints are exact for the code each rule describes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import real_embedder
from test_bench_verdict_records import load

from vault_mem.config import EmbedderConfig
from vault_mem.embed.registry import get_embedder

MEMORIES = [
    {"key": "kafka", "description": "The Kafka cluster runs on three brokers in eu-west-1",
     "body": "Brokers are m5.large instances. The cluster was set up by Ines in March 2026."},
    {"key": "editor", "description": "Uses Helix as the main editor"},
    {"key": "shell", "description": "Interactive shell is fish"},
    {"key": "coffee", "description": "Drinks flat whites, no sugar"},
    {"key": "ci", "description": "CI runs on GitHub Actions with self-hosted runners"},
]
QUERIES = [
    {"id": "1", "q": "how many brokers does the Kafka cluster have?", "relevant": ["kafka"]},
    {"id": "2", "q": "which editor do I use?", "relevant": ["editor"]},
    {"id": "3", "q": "what is the Kafka admin password?", "relevant": []},
    {"id": "4", "q": "where do our CI jobs run?", "relevant": ["ci"]},
]


def test_question_types_and_what_a_memory_holds() -> None:
    reader = load("verdict_reader")
    assert reader.qtype("How many brokers does it have?") == "number"
    assert reader.qtype("when did Caroline go to the support group?") == "time"
    assert reader.qtype("where do our CI jobs run?") == "place"
    assert reader.qtype("who set up the cluster?") == "person"
    assert reader.qtype("which editor do I use?") is None
    assert reader.holds("number", "runs on three brokers") and not reader.holds("number", "runs on brokers")
    assert reader.holds("time", "set up in March 2026") and not reader.holds("time", "Uses Helix as the editor")
    assert reader.holds("person", "set up by Ines") and not reader.holds("person", "set up by the team")
    # sentences at their ends, clauses at commas too; a text with no break is one piece
    assert reader.pieces("One thing. Another one!\nA third", reader.SENTENCE) == ["One thing.", "Another one!",
                                                                                  "A third"]
    assert reader.pieces("Drinks flat whites, no sugar", reader.CLAUSE) == ["Drinks flat whites,", "no sugar"]


def test_the_readers_annotate_the_recall_records_on_its_own_scale(tmp_path: Path, capsys) -> None:
    records, reader = load("verdict_records"), load("verdict_reader")
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"meta": {}, "memories": MEMORIES, "queries": QUERIES}), encoding="utf-8")
    mini = real_embedder()
    recs = records.record(path, mini, with_words=True)
    e5 = get_embedder(EmbedderConfig(provider="multilingual"))
    reader.annotate(recs, reader.memories_of([path]), mini, e5)
    editor = next(r for r in recs if r["q"].startswith("which editor"))
    first = editor["hits"][0]
    assert first["key"] == "editor" and first["n_sent"] == 1
    # one sentence: the sentence reader's cosine is the recall's own (same model, same text)
    assert abs(first["s1"] - first["cosine"]) < 1e-4 and first["s2"] == first["s1"]
    assert first["e5_rank"] == 1 and first["e5_z"] > 0  # the other model agrees
    kafka = next(r for r in recs if r["q"].startswith("how many"))
    hit = next(h for h in kafka["hits"] if h["key"] == "kafka")
    assert hit["n_sent"] == 3 and hit["s1"] >= hit["s2"] and hit["qt"] is True  # "three"
    assert all(0 < r["crowd"] < 1 for r in recs) and len({r["crowd"] for r in recs}) == 1  # one vault
    assert all("s1" not in h for r in recs for h in r["hits"][reader.TOP:])
    # the rules: landed is the records' own figures; each changes levels only in the top 3
    for name, ts in reader.GRID.items():
        for t in ts:
            rule = reader.rule(name, t)
            for r in recs:
                got = rule(r)
                assert len(got) == len(r["hits"]) and got[reader.TOP:] == [h["level"] for h in r["hits"]][reader.TOP:]
    demote_all = reader.rule("sentence-floor", 99.0)  # no sentence is 99 spreads over base
    assert records.replay(recs, demote_all)["strong_precision"] is None
    out = tmp_path / "records.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    sys.argv = ["verdict_reader.py", str(out), str(path), "--cache", str(tmp_path / "cache.sqlite"),
                "--rule", "qtype"]
    assert reader.main() == 0
    table = capsys.readouterr().out.splitlines()
    assert table[1] == "| variant | tiny.json |" and [row.split(" |")[0] for row in table[2:]] == \
        ["| landed", "| qtype 0"]
    landed = records.replay([r for r in recs if r["half"] == "tune"])
    assert table[2].split(" | ")[1].split(" ; ")[0] == reader.cell(landed)
