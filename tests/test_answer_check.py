"""The answer check (index/search.py): a hit that shares words with a question but does not hold
its other salient words is a candidate, not a strong match (near misses); the word bars it uses are
calibrated per model from the probes (index/floor.py)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest
from conftest import real_embedder
from fakes import FakeEmbedder, write_memory

from vault_mem.config import Config
from vault_mem.embed.base import normalise
from vault_mem.index import floor as floormod
from vault_mem.index import levels, search
from vault_mem.index.sidecar import Sidecar

TODAY = dt.date(2026, 3, 1)




class Words:
    """Hand-made word vectors: each word an axis, except the pairs given as synonyms, which share
    most of one. A real function of the words, so the check sees what it would with a model."""

    def __init__(self, synonyms: dict[str, str], dims: int = 64) -> None:
        self.synonyms = synonyms
        self.dims = dims
        self.axes: dict[str, int] = {}

    def _axis(self, w: str) -> np.ndarray:
        v = np.zeros(self.dims, dtype=np.float32)
        v[self.axes.setdefault(w, len(self.axes) % self.dims)] = 1.0
        return v

    def __call__(self, words) -> dict[str, np.ndarray]:
        out = {}
        for w in words:
            base = self.synonyms.get(w)
            v = self._axis(w) if base is None else 0.9 * self._axis(base) + 0.44 * self._axis(w)
            out[w] = v / np.linalg.norm(v)
        return out


def _ids(sc: Sidecar) -> dict[str, int]:
    return {r[1]: r[0] for r in sc.db.execute("SELECT id, key FROM files")}


@pytest.fixture
def small(tmp_path: Path):
    root = tmp_path / "v"
    write_memory(root, "jess", "Jess Varga is the team's site reliability engineer")
    write_memory(root, "font", "Coding font is Iosevka Term")
    with Sidecar(root, Config(), embedder=None) as sc:
        sc.reconcile()
        yield sc


def _check(sc, query: str, hits: list[str], words: Words, *, qvec_words=None) -> set[str]:
    ids = _ids(sc)
    terms = search.query_terms(query)
    wv = words([*terms])
    # the query vector: the sum of its words' (every word salient unless told otherwise)
    qv = normalise(np.sum([wv[t] for t in (qvec_words or terms)], axis=0)[None, :])[0]
    failed = levels.answer_check(sc.db, terms, [ids[k] for k in hits], word_vectors=words, word_bar=0.8,
                                 qvec=qv, unrelated=0.0)
    back = {v: k for k, v in ids.items()}
    return {back[i] for i in failed}


def test_a_hit_sharing_a_name_but_not_the_asked_thing_fails(small) -> None:
    failed = _check(small, "what is Jess's phone number?", ["jess"], Words({}))
    assert failed == {"jess"}  # holds "jess", holds nothing like "phone" or "number"
    failed = _check(small, "what does Jess engineer?", ["jess"], Words({}))
    assert failed == set()  # every word held literally


def test_a_word_of_like_meaning_matches(small) -> None:
    failed = _check(small, "what is Jess's job?", ["jess"], Words({"job": "engineer"}))
    assert failed == set()
    failed = _check(small, "what is Jess's job?", ["jess"], Words({}))
    assert failed == {"jess"}


def test_a_hit_sharing_no_word_is_left_to_the_cosine_bars(small) -> None:
    failed = _check(small, "which typeface do I program with?", ["font"], Words({}))
    assert failed == set()


def test_only_salient_words_must_match(small) -> None:
    # "usually" carries little of the question's meaning (it is not in the query vector)
    failed = _check(small, "what coding font usually?", ["font"], Words({}), qvec_words=["coding", "font"])
    assert failed == set()
    failed = _check(small, "what coding font usually?", ["font"], Words({}))
    assert failed == {"font"}


def test_word_bars_follow_the_model_scale() -> None:
    """The same word geometry squeezed towards one direction (an e5-like scale, every pair
    ~0.8) gets a bar inside the squeezed range, still between unrelated and related words."""
    words = sorted({w for ws in floormod.probe_words() for w in ws})
    rng = np.random.default_rng(3)
    vecs = normalise(rng.standard_normal((len(words), 96)))
    probes = normalise(rng.standard_normal((len(floormod.PROBES), 96)))
    plain = floormod.word_bars(dict(zip(words, vecs)), probes)
    shared = np.zeros(96, dtype=np.float32)
    shared[0] = 1.0
    squeeze = lambda m: normalise(0.89 * shared + 0.45 * m)
    tight = floormod.word_bars(dict(zip(words, squeeze(vecs))), squeeze(probes))
    assert 0.0 < plain.match < 0.9 and tight.match > 0.8
    related = squeeze(normalise(np.stack([vecs[0], vecs[0] + 0.3 * vecs[1]])))
    assert float(related[0] @ related[1]) > tight.match  # a close pair still clears the bar
    assert tight.unrelated > plain.unrelated + 0.5


VAULT = [
    ("jess", "Jess Varga is the team's site reliability engineer"),
    ("trip", "Planning a trip to Portugal in September: Lisbon, then the coast"),
    ("editor", "Uses Helix as the main editor"),
    ("coffee", "Drinks a flat white with oat milk in the morning"),
    ("pet", "Has a grey cat named Miso"),
    ("billing-db", "Chose Postgres for billing because it needs row-level locking"),
    ("sister", "Has a younger sister, Lena, who lives in Berlin"),
    ("ci", "CI is GitHub Actions; the main workflow is ci.yml"),
    ("shell", "Prefers fish over bash for the interactive shell"),
    ("climbing", "Goes bouldering twice a week at the Arch climbing wall"),
    ("partner", "Partner is called Ana and works as a paediatric nurse"),
    ("employer", "Works as a backend engineer at Fernleaf, a small logistics start-up"),
    ("laptop", "Work laptop is a ThinkPad X1 Carbon running Fedora"),
    ("queue", "Background jobs run on Redis with RQ, not Celery"),
    ("cloud", "Production runs on AWS in eu-west-2, managed with Terraform"),
    ("german", "Is learning German, around B1 level; lessons on Thursday evenings"),
    ("dentist", "Dentist appointment every six months at Clifton Dental"),
    ("bank", "Personal banking is with Monzo"),
    ("podcast", "Favourite podcast is Oxide and Friends"),
    ("plants", "Grows tomatoes and chillies on the balcony"),
]
NEAR_MISSES = ["what is Jess's phone number?", "which Terraform version do we pin?"]


def test_real_model_abstains_on_near_misses_and_answers(tmp_path: Path, monkeypatch) -> None:
    emb = real_embedder()
    root = tmp_path / "v"
    for key, desc in VAULT:
        write_memory(root, key, desc)
    with Sidecar(root, Config(), embedder=emb) as sc:
        sc.reconcile()
        bars = sc.vectors.word_bars(emb)
        assert 0.3 < bars.match < 0.9
        near = sc.vectors.word_vectors(emb, ["beverage", "drinks", "hotel", "editor"])
        assert float(near["beverage"] @ near["drinks"]) >= bars.match > float(near["hotel"] @ near["editor"])
        for q in NEAR_MISSES:
            res = sc.recall(q, k=3, today=TODAY)
            assert res.verdict == "candidate", q  # demoted, never "none": the agent reads and judges
            assert len(res.hits) == 3  # close memories keep their places, as candidates
        # the result says which stage demoted the near miss's first hit (RecallResult.demoted)
        assert sc.recall(NEAR_MISSES[0], k=3, today=TODAY).demoted.get("jess") == levels.ANSWER_CHECK
        res = sc.recall("what does Jess do at work?", k=3, today=TODAY)
        assert res.hits[0].key == "jess" and res.answered
        res = sc.recall("what hot beverage do I have each morning?", k=3, today=TODAY)
        assert res.hits[0].key == "coffee" and res.hits[0].match == "strong"  # beverage ~ drinks
        cached = sc.db.execute("SELECT count(*) FROM embed_cache").fetchone()[0]
        sc.recall(NEAR_MISSES[0], k=3, today=TODAY)
        assert sc.db.execute("SELECT count(*) FROM embed_cache").fetchone()[0] == cached  # words come cached
        monkeypatch.setattr(levels, "answer_check", lambda *a, **kw: set())
        monkeypatch.setattr(levels, "focus_misses", lambda *a, **kw: set())  # the focus check catches these too
        assert all(sc.recall(q, k=3, today=TODAY).answered for q in NEAR_MISSES)  # the checks are what abstain


def test_word_vectors_never_wait_for_a_writer_to_fill_the_cache(tmp_path: Path) -> None:
    """A recall caches the words it embedded; while another process writes, it skips that
    (its next recall embeds them again) instead of waiting up to the 15 s busy timeout."""
    import subprocess
    import sys
    import time

    root = tmp_path / "v"
    write_memory(root, "font", "Coding font is Iosevka Term")
    emb = FakeEmbedder()
    with Sidecar(root, Config(), embedder=emb) as sc:
        sc.reconcile()
        before = sc.db.execute("SELECT count(*) FROM embed_cache").fetchone()[0]
        timeout = sc.db.execute("PRAGMA busy_timeout").fetchone()[0]
        # another process writes (SQLite's locks are per process: it cannot be this one)
        holder = subprocess.Popen(
            [sys.executable, "-c", ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
                                    "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); sys.stdin.read()"),
             str(root / ".vault-mem" / "index.db")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "held"
            t0 = time.monotonic()
            words = sc.vectors.word_vectors(emb, ["beverage", "drinks"])
            waited = time.monotonic() - t0
        finally:
            holder.stdin.close()
            holder.wait(timeout=30)
        assert set(words) == {"beverage", "drinks"}
        assert waited < timeout / 1000 / 2  # it did not sit out the busy timeout
        assert sc.db.execute("SELECT count(*) FROM embed_cache").fetchone()[0] == before
        assert sc.db.execute("PRAGMA busy_timeout").fetchone()[0] == timeout
        sc.vectors.word_vectors(emb, ["beverage", "drinks"])  # no writer now: cached
        assert sc.db.execute("SELECT count(*) FROM embed_cache").fetchone()[0] == before + 2
