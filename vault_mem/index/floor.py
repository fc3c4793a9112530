"""The relevance floor, calibrated for the embedder and vault it serves.

Every embedder has its own scale: MiniLM gives an unrelated pair ~0.1-0.3, e5-style models
0.73-0.83 for any pair. A fixed cosine bar is therefore right for one model at most. Instead,
the floor is measured: the built-in off-topic probe questions (:mod:`vault_mem.model.probes`)
are embedded as queries, and for each the best cosine against this vault's vectors is taken
(those of memories whose authors are trusted here: ``VectorStore.uncounted``, which the vault
sets; a peer's notes copying the probes, which are in the source, made every best cosine 1.0 and
every recall of the person's own memories ``none``). That is the *null sample*: how strongly
questions about unrelated things match this person's vault under this model. With its median ``q50`` and its ``QUANTILE`` point ``qhi``, ``spread = qhi - q50`` and
``base = qhi + FLOOR_SPREADS x spread``:

- min_sim = base - NONE_SPREADS x spread: the relevance floor. Only when no candidate clears it
  is the verdict ``none`` ("nothing related is stored", :mod:`vault_mem.model.verdict`), so it
  sits where answerable questions essentially never fall: a near miss shown as a candidate is
  cheap, a wrong "nothing" is not. Measured (``python bench/bench_verdict.py``, MiniLM): the best
  candidate of an answerable question lies at least 1.1 spreads under ``base`` on the paraphrase
  sets, 1.3 over it on LoCoMo dev; off-topic questions lie 1-2.5 spreads under it;
- hit_bar = base - HIT_SPREADS x spread: once the query clears the floor, a hit below this (and
  without keyword support) is dropped (the relevant memory of an answerable question lies at most
  2.25 spreads under ``base`` on the paraphrase sets);
- strong = base + STRONG_SPREADS x spread: a hit this close is a ``strong`` match, one below a
  ``candidate`` (and below the first hit, one more than LEAD_SPREADS spreads under the first
  hit's cosine is a candidate too: :mod:`vault_mem.index.levels`);
- sure = strong + SURE_SPREADS x spread: a hit this close is held to the answer check's looser
  word bar (``WordBars.loose``; :mod:`vault_mem.index.levels`), and the focus check leaves it
  alone when it holds none of the focus words.

Spread units make the rule scale-free, so e5's compressed scores get a bar inside their range.
They say where unrelated questions fall, not how far above them an answer lies, and that is the
model's: on the developer vault MiniLM's answers lie a median 5.3 spreads over ``base``,
multilingual-e5's 2.3, so few of e5's reached ``sure`` and the strict word bar demoted them. The
*reach* measures that distance in the vault itself: up to REACH_SAMPLE memories' descriptions are
asked as questions (embedded as queries, cached like single words) and their best cosines kept
beside the null sample (MiniLM 10.9 spreads over base there, e5 4.7). The ``sure`` bar's
distance over ``strong`` is scaled by min(1, that median / REACH_SPREADS), at least MIN_SCALE: a
model or vault whose answers lie closer to its off-topic questions gets it as much closer; the
relevance floor, the hit bar and ``strong``, which are about off-topic questions, do not move
(scaling ``strong`` too made e5 hits barely over ``base`` strong, all wrong; docs/benchmarks.md
"The reach").
The sample is stored per model in the sidecar (``floor_calibration``), made when vectors are
built or the embedder changes, and made again when the vault's vectors changed by more than
RECALIBRATE_SHARE since (cheap: the probe vectors are cached, one pass over the vectors).
``[recall] min_similarity`` in vault.toml overrides ``base``; an embedder that declares its own
``min_similarity`` (test doubles) is taken at its word.

A vault of a few memories has no usable sample: the best of 1-4 cosines per probe is low and
erratic (with MiniLM, ``base`` 0.08 with one memory, so any question made its one memory strong;
0.15 with three, while a plain paraphrase scored 0.35 and failed the ``sure`` bar). Until the
vault holds CALIBRATION_MIN_VECTORS vectors, the model's PRIOR is used instead (matched by model
name, so an HTTP server of a known model gets its prior too); a model with no prior then gets its
calibration, as before. The prior is also the fallback when the probes cannot be embedded.

The word bars (:func:`word_bars`) are the same idea one level down, for the answer check of
:mod:`vault_mem.index.levels` (does a hit hold each salient word of the question, literally or
by a word of like meaning?): each probe's content words are embedded alone, and each word's
best cosine against the words of the next WORD_NULL_SPAN probes (other topics) is the null
sample of how close an *unrelated* word comes to a short memory under this model. The match bar
sits WORD_SPREADS spreads above its WORD_QUANTILE point, so it is scale-free like the floor;
``unrelated``, the median cosine of a probe word with the next probe questions, is the zero of a
word's salience; ``loose``, the null sample's median (how close an unrelated word typically
comes), is the looser bar a hit as close as ``sure`` is held to. All depend on the model only
(the probe words are fixed); the word vectors are cached in the embedding cache.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from functools import cached_property

from vault_mem.embed.numeric import np
from vault_mem.model.probes import PROBES
from vault_mem.model.terms import query_terms, stem

QUANTILE = 0.9
FLOOR_SPREADS = 0.0  # 0.5 before the answer check (docs/benchmarks.md "Relevance floor")
NONE_SPREADS = 1.5  # the floor for ``none``, under ``base`` (see the module docstring)
STRONG_SPREADS = 0.25  # 0.5 before the lead rule (index/levels.py) kept look-alikes of the answer back
HIT_SPREADS = 2.5
SURE_SPREADS = 2.75  # above strong: the answer check's exemption (index/levels.py); base + 3 spreads
MIN_SPREAD = 0.01  # a degenerate sample (a one-memory vault) still gets a margin
RECALIBRATE_SHARE = 0.25  # recalibrate once this share of the vectors changed...
RECALIBRATE_MIN = 8  # ...and at least this many
# (base, spread) per model, matched by a part of the model id (an HTTP server's id holds its URL):
# used while the vault has fewer than CALIBRATION_MIN_VECTORS vectors, and when the probes cannot
# be embedded (docs/benchmarks.md "Relevance floor").
PRIOR = {"all-minilm-l6-v2": (0.26, 0.08), "multilingual-e5-small": (0.805, 0.02)}
DEFAULT_PRIOR = (0.30, 0.075)  # the fallback of a model with no prior whose probes fail
CALIBRATION_MIN_VECTORS = 20
# The reach (see the module): up to REACH_SAMPLE memories' descriptions asked as questions; the
# ``sure`` bar's distance over ``strong`` scales by min(1, their median best cosine in spreads over
# base / REACH_SPREADS)
REACH_SAMPLE = 40
REACH_SPREADS = 8.0
MIN_SCALE = 0.25
_PROBE_TAG = "vault-mem probe v1\x00"
WORD_NULL_SPAN = 3  # each probe word is set against the words of the next 3 probes
WORD_QUANTILE = 0.9
WORD_SPREADS = 0.25


@dataclass(frozen=True)
class Floor:
    """The bars one recall uses; ``source`` says where they came from."""

    min_sim: float  # the relevance floor: with no candidate this similar, the verdict is "none"
    strong: float  # a hit at least this similar is a strong match
    hit_bar: float  # a hit below this (and without keyword support) is dropped
    source: str  # "calibrated", "vault.toml", "embedder", "prior"
    #: a hit at least this similar is strong whatever its words (exempt from the answer check)
    sure: float = 1.0
    base: float = 0.0  # the null sample's QUANTILE point (or the prior's, vault.toml's)
    #: the null sample's spread, the unit of the bars (None: bars set by hand; no lead rule)
    spread: float | None = None

    @classmethod
    def from_spread(cls, base: float, spread: float, source: str, scale: float = 1.0) -> Floor:
        """The bars from ``base`` and ``spread``; ``scale`` (at most 1, the reach's) brings
        ``sure`` closer to ``strong`` for a model whose answers lie closer to its off-topic
        questions (``strong``, just over where those fall, stays)."""
        spread = max(spread, MIN_SPREAD)
        strong = base + STRONG_SPREADS * spread
        return cls(min_sim=base - NONE_SPREADS * spread, strong=strong,
                   hit_bar=base - HIT_SPREADS * spread, source=source,
                   sure=strong + SURE_SPREADS * spread * scale, base=base, spread=spread)


@dataclass(frozen=True)
class Calibration:
    model: str
    epoch: str
    seq: int
    vectors: int
    null: tuple[float, ...]  # the probes' best cosines, sorted
    made: str
    #: the reach sample: memories' descriptions asked as questions, their best cosines, sorted
    reach: tuple[float, ...] = ()
    #: False for a calibration stored before the reach was measured (remade when read)
    reached: bool = True
    #: False for a calibration stored before it left out the vectors of peers' memories
    #: (``Vectors.uncounted``; remade when read)
    counted: bool = True
    #: the approvals it left the peers' memories out under (``Vectors.uncounted_key``): an
    #: approval given or taken back (``vault-mem trust --author``) makes it due
    approved: str = ""

    # both read once per calibration, not per recall (four quantiles cost ~0.5 ms each time)
    @cached_property
    def spread(self) -> float:
        q50, qhi = np.quantile(self.null, [0.5, QUANTILE]) if self.null else (0.0, 0.0)
        return max(float(qhi - q50), MIN_SPREAD)

    @cached_property
    def floor(self) -> float:
        qhi = float(np.quantile(self.null, QUANTILE)) if self.null else 0.0
        return qhi + FLOOR_SPREADS * self.spread

    @cached_property
    def scale(self) -> float:
        """How far this model's answers reach over ``base``, against the scale the bars above it
        were set for: min(1, the reach sample's median in spreads over base / REACH_SPREADS), at
        least MIN_SCALE; 1 without a sample."""
        if not self.reach:
            return 1.0
        spreads = (float(np.median(self.reach)) - self.floor) / self.spread
        return min(1.0, max(MIN_SCALE, spreads / REACH_SPREADS))

    def to_floor(self) -> Floor:
        return Floor.from_spread(self.floor, self.spread, "calibrated", self.scale)

    def due(self, *, model: str, epoch: str, seq: int, approved: str = "") -> bool:
        """Stale for this model / vector generation, made before the reach was measured or under
        other approvals, or the vectors changed too much since."""
        if (model != self.model or epoch != self.epoch or not self.reached or not self.counted
                or approved != self.approved):
            return True
        return abs(seq - self.seq) > max(RECALIBRATE_MIN, RECALIBRATE_SHARE * self.vectors)


def probe_hashes() -> list[str]:
    """Keys of the probe vectors in the embedding cache (never equal to a document's)."""
    return [hashlib.sha256((_PROBE_TAG + p).encode("utf-8")).hexdigest() for p in PROBES]


def null_sample(probe_vectors: np.ndarray, best_of) -> tuple[float, ...]:
    """The probes' best cosines against the vault (``best_of(matrix) -> per-row max``)."""
    return tuple(sorted(round(float(x), 6) for x in best_of(np.asarray(probe_vectors, dtype=np.float32))))


def load(db, model: str) -> Calibration | None:
    r = db.execute("SELECT model, epoch, seq, vectors, null_sims, made FROM floor_calibration WHERE model = ?",
                   (model,)).fetchone()
    if r is None:
        return None
    try:
        sample = json.loads(r[4])  # {"null": [...], "reach": [...]}; a bare list before the reach
        if isinstance(sample, list):
            sample = {"null": sample}
        null = tuple(float(x) for x in sample["null"])
        reach = tuple(float(x) for x in sample.get("reach", ()))
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
    return Calibration(model=r[0], epoch=r[1], seq=int(r[2]), vectors=int(r[3]), null=null, made=r[5],
                       reach=reach, reached="reach" in sample, counted=sample.get("counted") == "trusted",
                       approved=str(sample.get("approved", "")))


def store(db, cal: Calibration) -> None:
    db.execute("INSERT OR REPLACE INTO floor_calibration(model, epoch, seq, vectors, null_sims, made) "
               "VALUES (?, ?, ?, ?, ?, ?)",
               (cal.model, cal.epoch, cal.seq, cal.vectors,
                json.dumps({"null": list(cal.null), "reach": list(cal.reach), "counted": "trusted",
                            "approved": cal.approved}), cal.made))


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def known_prior(model: str) -> tuple[float, float] | None:
    """(base, spread) of the PRIOR whose name is part of ``model``'s id, or None."""
    low = model.lower()
    return next((v for name, v in PRIOR.items() if name in low), None)


def prior_spread(model: str) -> float:
    return (known_prior(model) or DEFAULT_PRIOR)[1]


def prior(model: str) -> Floor:
    base, spread = known_prior(model) or DEFAULT_PRIOR
    return Floor.from_spread(base, spread, "prior")


def probe_words() -> list[list[str]]:
    """The content words of each probe question (what the word bar is calibrated from)."""
    return [query_terms(p) for p in PROBES]


@dataclass(frozen=True)
class WordBars:
    """The answer check's bars for one model (see the module docstring)."""

    match: float  # a word this close to one of a memory's words matches it by meaning
    unrelated: float  # how close a word comes to an unrelated question (median): salience's zero
    # a hit as close as ``sure`` needs each salient word at least this close: as close as an
    # unrelated word's typical best match (the null sample's median; -1 without a sample: exempt)
    loose: float = -1.0


def word_bars(vectors: dict[str, np.ndarray], probe_vectors: np.ndarray) -> WordBars:
    """The word bars from the probe words' vectors (``word -> unit vector``) and the probe
    questions' vectors (rows in PROBES order). ``match``: WORD_QUANTILE point of the null
    sample + WORD_SPREADS x (that point - median); ``unrelated``: median cosine of a probe word
    with the next WORD_NULL_SPAN probe questions; ``loose``: the null sample's median."""
    groups = probe_words()
    null: list[float] = []
    unrelated: list[float] = []
    for i, words in enumerate(groups):
        nxt = [(i + j) % len(groups) for j in range(1, WORD_NULL_SPAN + 1)]
        others = {w for j in nxt for w in groups[j]}
        for w in words:
            if w not in vectors:
                continue
            against = [vectors[o] for o in others if stem(o) != stem(w) and o in vectors]
            if against:
                null.append(float((np.asarray(against) @ vectors[w]).max()))
            if len(probe_vectors) == len(groups):
                unrelated.extend(float(x) for x in probe_vectors[nxt] @ vectors[w])
    if not null:
        return WordBars(match=1.0, unrelated=0.0)  # nothing to compare with: only literal matches
    q50, qhi = np.quantile(null, [0.5, WORD_QUANTILE])
    return WordBars(match=float(qhi + WORD_SPREADS * max(float(qhi - q50), MIN_SPREAD)),
                    unrelated=float(np.median(unrelated)) if unrelated else 0.0, loose=float(q50))
