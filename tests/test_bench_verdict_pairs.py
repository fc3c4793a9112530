"""bench/verdict_pairs.py (reader24, issue 24): a cross-encoder reads the question and the
memory the recall embeds as one input, question first; its cost is timed on the bundled model's
graph without disturbing the embedder; its rules change levels only in the top 3, and the rule it
reports is chosen by the tune half alone, so no threshold is fitted on the half it reports."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import real_embedder
from test_bench_verdict_records import load

from vault_mem.model.terms import document_text

MEMORIES = [
    {"key": "kafka", "description": "The Kafka cluster runs on three brokers in eu-west-1"},
    {"key": "editor", "description": "Uses Helix as the main editor"},
    {"key": "shell", "description": "Interactive shell is fish"},
    {"key": "coffee", "description": "Drinks flat whites, no sugar"},
    {"key": "ci", "description": "CI runs on GitHub Actions with self-hosted runners"},
    {"key": "db", "description": "Billing uses Postgres", "body": "Picked for row-level locking."},
]
QUERIES = [
    {"id": "1", "q": "how many brokers does the Kafka cluster have?", "relevant": ["kafka"]},
    {"id": "2", "q": "which editor do I use?", "relevant": ["editor"]},
    {"id": "3", "q": "what is the Kafka admin password?", "relevant": []},
    {"id": "4", "q": "where do our CI jobs run?", "relevant": ["ci"]},
    {"id": "5", "q": "what shell do I use?", "relevant": ["shell"]},
    {"id": "6", "q": "why did we pick the billing database?", "relevant": ["db"]},
    {"id": "7", "q": "how do I take my coffee?", "relevant": ["coffee"]},
    {"id": "8", "q": "what is my dentist's name?", "relevant": []},
]


def _records(tmp_path: Path):
    records, pairs = load("verdict_records"), load("verdict_pairs")
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"meta": {}, "memories": MEMORIES, "queries": QUERIES}), encoding="utf-8")
    mini = real_embedder()
    return records, pairs, path, mini, records.record(path, mini)


def test_pairs_are_question_then_memory_and_cost_leaves_the_embedder_as_it_was(tmp_path: Path) -> None:
    _, pairs, path, mini, recs = _records(tmp_path)
    rows = pairs.pairs_of(recs, pairs.memories_of([path]))
    by_key = {m["key"]: m for m in MEMORIES}
    for r, row in zip(recs, rows):
        assert len(row) == min(pairs.TOP, len(r["hits"]))
        for (q, text), h in zip(row, r["hits"]):
            m = by_key[h["key"]]
            assert q == r["q"] and text == document_text(m["description"], m.get("body", ""), None)
    # the bundled tokenizer reads a pair as a cross-encoder does: question in segment 0, memory in 1
    from vault_mem.embed.local import _local_runtime

    rt = _local_runtime()
    enc = rt.tokenizer.encode_batch([("which editor?", "Uses Helix")])
    fed = pairs.feeds(rt.session.get_inputs(), enc)
    types = fed["token_type_ids"][0].tolist() if "token_type_ids" in fed else enc[0].type_ids
    assert enc[0].tokens[0] == "[CLS]" and enc[0].tokens.count("[SEP]") == 2
    assert types[: enc[0].tokens.index("[SEP]") + 1] == [0] * (enc[0].tokens.index("[SEP]") + 1)
    assert set(types[enc[0].tokens.index("[SEP]") + 1:]) == {1}
    before = mini.embed_batch(["a long memory " * 200], kind="document")
    got = pairs.cost(rows, runs=1)
    assert got["recalls"] == sum(1 for row in rows if row) and got["pairs_p50"] > 0 and got["query_p50"] > 0
    assert got["tokens_p50"] > 0
    # cost truncates at a cross-encoder's 512 tokens, then puts the embedder's limit back
    assert (mini.embed_batch(["a long memory " * 200], kind="document") == before).all()


def test_rules_touch_only_the_top_3_and_the_pick_reads_the_tune_half_alone(tmp_path: Path) -> None:
    records, pairs, path, _, recs = _records(tmp_path)
    rows = pairs.pairs_of(recs, pairs.memories_of([path]))
    # a scripted reader (no cross-encoder is installable: docs/benchmarks.md): 1 for the
    # question's relevant memories, 0 for the rest
    rel = {r["q"]: set(r["rel"]) for r in recs}
    by_text = {document_text(m["description"], m.get("body", ""), None): m["key"] for m in MEMORIES}
    spent = pairs.annotate(recs, rows, lambda row: [float(by_text[t] in rel[q]) for q, t in row])
    assert len(spent) == len(recs)
    assert all(("pair" in h) == (n < pairs.TOP) for r in recs for n, h in enumerate(r["hits"]))
    for name, t in pairs.grid(recs) + [("pair-floor", 0.5), ("pair-raise", 0.5), ("pair-below-first", 0.5)]:
        for r in recs:
            got = pairs.rule(name, t)(r)
            assert got[pairs.TOP:] == [h["level"] for h in r["hits"]][pairs.TOP:]
    floor = pairs.rule("pair-floor", 0.5)
    for r in recs:
        for h, lv in zip(r["hits"][: pairs.TOP], floor(r)):
            assert lv == (pairs.CANDIDATE if h["level"] == pairs.STRONG and not h["rel"] else h["level"])
    assert (records.replay(recs, floor)["strong_precision"] or 1.0) == 1.0  # a perfect reader
    # the pick is the tune half's: scrambling every report-half score changes neither it nor the grid
    kept, tried = pairs.pick(recs, pairs.grid(recs)), pairs.grid(recs)
    for r in recs:
        if r["half"] == "report":
            for h in r["hits"][: pairs.TOP]:
                h["pair"] = 1.0 - h["pair"]
    assert pairs.grid(recs) == tried and pairs.pick(recs, tried) == kept


def test_the_oracle_table_starts_from_the_records_own_figures(tmp_path: Path, capsys) -> None:
    records, pairs, path, _, recs = _records(tmp_path)
    out = tmp_path / "records.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    import sys

    sys.argv = ["verdict_pairs.py", str(out), str(path), "--oracle", "1.0"]
    assert pairs.main() == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == "oracle 1.0: | variant | tiny.json |"
    assert [row.split(" |")[0] for row in table[1:]] == ["| landed", "| pair-floor", "| pair-raise", "| pair-decides"]
    halves = [[r for r in recs if r["half"] == h] for h in ("tune", "report")]
    assert table[1] == "| landed | " + " ; ".join(pairs.cell(records.replay(h)) for h in halves) + " |"
    # a perfect reader deciding the top 3: every strong hit relevant, no near miss given one
    score, rows = pairs.oracle(recs, 1.0), pairs.pairs_of(recs, pairs.memories_of([path]))
    for r, row in zip(recs, rows):
        for h, x in zip(r["hits"][: pairs.TOP], score(row, r)):
            h["pair"] = x
    assert any(h["pair"] == 1.0 for r in recs for h in r["hits"][: pairs.TOP])
    decided = [records.replay(h, pairs.rule("pair-decides", 0.5)) for h in halves]
    assert all(f["strong_precision"] in (None, 1.0) and not f["near_miss_given_strong"] for f in decided)
