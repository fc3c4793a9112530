"""bench/bench_ranking.py: ranking ideas compared in one run. Its figures stand for the code only if
its "landed" variant asks recall exactly as bench_verdict.py does, every variant really runs its
idea, and the recall's stages are put back afterwards."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import real_embedder
from fakes import write_memory
from test_bench_verdict_records import load

from vault_mem.config import Config
from vault_mem.index import search
from vault_mem.index.sidecar import Sidecar

MEMS = [{"key": "heron-port", "description": "heron is the invoicing app; its API listens on port 8081"},
        {"key": "heron-pdfs", "description": "The invoicing app heron keeps invoice PDFs in an S3 bucket"},
        {"key": "heron-owners", "description": "heron, the invoicing app, is owned by the finance-tools team"},
        {"key": "heron-lang", "description": "heron is written in Elixir on Phoenix"},
        {"key": "heron-rollback",
         "description": "Rolling back heron: revert the Helm release, then replay the dead-letter queue"},
        {"key": "editor", "description": "Uses Helix as the main editor"},
        {"key": "shell", "description": "Interactive shell is fish"},
        {"key": "coffee", "description": "Drinks flat whites, no sugar"}]
#: unrelated memories, so that "heron" is held by few enough of the vault to be fed back (at most
#: FEEDBACK_MAX_SHARE of it): a word in most memories names the vault, not a topic
OTHERS = ["Standup is at 09:45 on weekdays", "Company VPN is WireGuard, split tunnel", "Prefers dark themes",
          "Dentist appointment every March", "Runs 10 km on Sundays", "Keeps plants on the balcony",
          "Lives in Leipzig", "Uses a split keyboard", "Reads science fiction", "Plays chess online",
          "Allergic to peanuts", "Commutes by bike", "Has two cats", "Learns Japanese", "Bakes sourdough",
          "Watches Formula 1", "Listens to jazz while coding", "Takes notes in Obsidian",
          "Monitors are two 27-inch 4K screens", "Prefers tea in the afternoon", "Home router is a Fritzbox",
          "Backs up photos to a NAS", "Books trains, not flights, within Europe", "Writes tests first",
          "Works from home on Fridays", "Birthday is 12 April", "Sister lives in Lyon"]
MEMS += [{"key": f"other-{n}", "description": d} for n, d in enumerate(OTHERS)]
QUERIES = [{"id": "1", "q": "how do I undo a bad release of the invoicing app?", "relevant": ["heron-rollback"]},
           {"id": "2", "q": "which editor do I use?", "relevant": ["editor"]},
           {"id": "3", "q": "what shell do I use?", "relevant": ["shell"]},
           {"id": "4", "q": "what is my dentist's name?", "relevant": []}]


def test_landed_variant_is_bench_verdicts_figures_and_every_variant_runs(tmp_path: Path) -> None:
    ranking, verdict = load("bench_ranking"), load("bench_verdict")
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps({"meta": {}, "memories": MEMS, "queries": QUERIES}), encoding="utf-8")
    emb = real_embedder()
    stages = (search.fuse_phrasings, search.day_context)
    calls = {"mmr": 0, "topic_removed": 0, "feedback_words": 0}
    for name in calls:
        def counted(*a, _f=getattr(ranking, name), _n=name, **kw):
            calls[_n] += 1
            return _f(*a, **kw)
        setattr(ranking, name, counted)
    got = ranking.measure(path, emb, [*ranking.ALL, "day=0"])
    assert all(calls.values()), calls  # each idea ran inside recall
    assert (search.fuse_phrasings, search.day_context) == stages  # the recall's stages are restored
    want = verdict.measure(path, emb)
    for name in ("answerable", "hook_coverage", "strong_precision", "r5", "near_miss_given_strong", "uncovered"):
        assert got["landed"][name] == want.get(name), name
    assert set(got) == {*ranking.ALL, "day=0"}
    for figures in got.values():
        assert figures["answerable"] == 3 and 0 <= figures["r3"] <= figures["r5"] <= 1 and figures["mrr10"] > 0


def test_feedback_words_are_the_code_name_the_question_calls_by_its_role(tmp_path: Path) -> None:
    """The question says "the invoicing app"; the memories that say so also say "heron", and so do
    the look-alikes that do not: "heron" is the word fed back (the idea the variant measures)."""
    ranking = load("bench_ranking")
    root = tmp_path / "v"
    for m in MEMS:
        write_memory(root, m["key"], m["description"])
    with Sidecar(root, Config(), embedder=real_embedder()) as sc:
        sc.reconcile()
        seen: list = []
        landed = search.fuse_phrasings

        def spy(db, ps, candidates, index, *, floor=None):
            ev = landed(db, ps, candidates, index, floor=floor)
            seen.append(ranking.feedback_words(db, ps, ev.scores, 2))
            return ev

        search.fuse_phrasings = spy
        try:
            sc.recall("how do I undo a bad release of the invoicing app?", k=5)
        finally:
            search.fuse_phrasings = landed
    assert seen and seen[0][:1] == ["heron"], seen
