"""The stand-out (index/levels.py ``stand_out``): a paraphrase shares no word with its memory, so
its first hit's cosine sits under the strong bar as often as a wrong hit's, and the prompt hook
injected nothing. Now the first hit is strong there when it stands out from the query's next
candidates and the question's words find their meaning in its words; the answer and focus
checks still read it as any strong hit."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
from conftest import real_embedder
from fakes import write_memory
from test_verdict_sure import VAULT

from vault_mem.config import Config
from vault_mem.index import levels
from vault_mem.index.floor import Floor
from vault_mem.index.search import Filters
from vault_mem.index.sidecar import Sidecar

TODAY = dt.date(2026, 7, 1)

# A developer's vault with a few personal memories (VAULT: 27, enough for its own calibration)
PERSONAL = {
    "browser": "Main web browser is Firefox with uBlock Origin",
    "pet": "Owns a border collie called Pixel",
    "breakfast": "Eats porridge with blueberries most mornings",
    "keyboard": "Types in Dvorak on an HHKB",
    "boss": "Reports to Karim Haddad, director of data",
    "game": "Plays Factorio on weekends",
    "home": "Lives in Ghent, near Dampoort station",
    "music-focus": "Listens to ambient and lo-fi while concentrating",
}


def test_stands_out_reads_the_query_own_next_cosines() -> None:
    others = {i: 0.20 + 0.01 * (i % 3) for i in range(2, 12)}  # ten others, mean ~0.21, sd ~0.008
    assert levels.stands_out(1, {1: 0.30, **others})
    assert not levels.stands_out(1, {1: 0.21, **others})  # one of the crowd
    # the same gap on a compressed scale (e5-like: every pair ~0.8) stands out the same
    assert levels.stands_out(1, {1: 0.83, **{i: 0.80 + 0.001 * (i % 3) for i in others}})
    # fewer than STANDOUT_NEXT others and no unrelated texts to complete them: nothing to stand out from
    assert not levels.stands_out(1, {1: 0.9, **{i: 0.1 for i in range(2, 2 + levels.STANDOUT_NEXT - 1)}})
    assert not levels.stands_out(1, {1: 0.9, **{i: 0.1 for i in range(2, 12)}})  # no spread at all


def test_meaning_match_weighs_each_word_by_its_salience() -> None:
    def unit(*xs: float) -> np.ndarray:
        v = np.asarray(xs, dtype=np.float32)
        return v / np.linalg.norm(v)

    qvec = unit(1, 1, 0, 0)
    vecs = {"pet": unit(1, 0, 0, 0), "breed": unit(0, 1, 0, 0), "collie": unit(0.6, 0.8, 0, 0),
            "dog": unit(1, 0, 0.1, 0), "our": unit(0, 0, 0, 1)}
    # "pet" by meaning ("dog", 0.995), "breed" by "collie" (0.8); "our" has no salience
    got = levels.meaning_match(["breed", "our", "pet"], set(), ["collie", "dog"], vecs, qvec, unrelated=0.1)
    assert abs(got - (0.8 + 0.995) / 2) < 0.01
    # a word held literally counts 1; nothing like a word counts its best cosine
    assert levels.meaning_match(["pet"], {"pet"}, ["our"], vecs, qvec, unrelated=0.1) == 1.0
    assert levels.meaning_match(["breed", "pet"], set(), ["our"], vecs, qvec, unrelated=0.1) < 0.1
    assert levels.meaning_match(["our"], set(), ["dog"], vecs, qvec, unrelated=0.1) == 0.0  # nothing salient


def test_stand_out_leaves_a_strong_a_low_or_a_crowded_first_hit_alone() -> None:
    """Nothing is read (no words, no database, no probes) unless the first hit clears the
    relevance floor and stands out; only a candidate is raised."""
    def untouched(*_a):
        raise AssertionError("read although the first hit cannot stand out")

    fl = Floor(min_sim=0.1, strong=0.25, hit_bar=0.05, source="test", sure=0.9, base=0.24, spread=0.05)
    crowd = {i: 0.14 + 0.01 * (i % 3) for i in range(2, 12)}
    ev = levels.Evidence(scores={1: 2.0, **{i: 1.0 for i in crowd}}, sims={1: 0.3, **crowd}, coverage={})
    passing = {1: "candidate", **{i: "candidate" for i in crowd}}
    words = levels.AnswerWords(qvec=np.zeros(3, dtype=np.float32), bars=untouched, vectors=untouched,
                               probes=untouched)
    assert levels.stands_out(1, ev.sims)
    assert levels.stand_out({**passing, 1: "strong"}, 1) == {**passing, 1: "strong"}
    assert levels.stand_out(passing, 1) == {**passing, 1: "strong"}
    assert levels.stand_out(passing, None) == passing
    low = levels.Evidence(ev.scores, {**ev.sims, 1: 0.09}, {})
    assert levels.outstanding(None, words, ["x"], low, passing, floor=fl) is None
    flat = levels.Evidence(ev.scores, {**ev.sims, 1: 0.15}, {})  # one of the crowd
    assert levels.outstanding(None, words, ["x"], flat, passing, floor=fl) is None


def test_a_paraphrase_first_hit_that_stands_out_is_strong(tmp_path: Path) -> None:
    root = tmp_path / "v"
    for key, (desc, body) in VAULT.items():
        write_memory(root, key, desc, body)
    for key, desc in PERSONAL.items():
        write_memory(root, key, desc)
    emb = real_embedder()
    with Sidecar(root, Config(), embedder=emb) as sc:
        sc.reconcile()
        sc.vectors.embed_pending()
        # shares no word with its memory, whose cosine is under the strong bar: it was a candidate
        res = sc.recall("what video game do I play?", k=5, today=TODAY)
        assert res.floor["source"] == "calibrated"
        qvec = np.asarray(emb.embed_batch(["what video game do I play?"], kind="query")[0], dtype=np.float32)
        row = sc.db.execute("SELECT id FROM files WHERE key = 'game'").fetchone()[0]
        assert dict(sc.vectors.search_vectors(qvec, Filters())[1])[row] < res.floor["strong"]
        assert res.hits[0].key == "game" and res.hits[0].match == "strong", [(h.key, h.match) for h in res.hits]
        assert "game" not in res.demoted and res.verdict == "strong"
        # first hits that stand out but hold nothing of the question's meaning stay candidates
        # (nothing stored answers them: a climbing grade, a charity)
        for query in ("what grade do I climb at?", "which humanitarian organisation do I donate to?"):
            res = sc.recall(query, k=5, today=TODAY)
            assert res.hits and res.verdict == "candidate", (query, [(h.key, h.match) for h in res.hits])
            assert res.demoted[res.hits[0].key] == levels.UNDER_BAR
