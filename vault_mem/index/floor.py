"""The relevance floor, calibrated for the embedder and vault it serves.

Every embedder has its own scale: MiniLM gives an unrelated pair ~0.1-0.3, e5-style models
0.73-0.83 for any pair. A fixed cosine bar is therefore right for one model at most. Instead,
the floor is measured: the built-in off-topic probe questions (:mod:`vault_mem.model.probes`)
are embedded as queries, and for each the best cosine against this vault's vectors is taken.
That is the *null sample*: how strongly questions about unrelated things match this vault under
this model. With its median ``q50`` and its ``QUANTILE`` point ``qhi``, and ``spread = qhi - q50``:

- floor  = qhi + FLOOR_SPREADS x spread: a query is answered only if one candidate clears it;
- strong = floor + STRONG_SPREADS x spread: a hit this close is a ``strong`` match, a hit below
  it (down to ``floor - HIT_SPREADS x spread``) is shown as ``weak``.

Spread units make the rule scale-free, so e5's compressed scores get a bar inside their range.
The sample is stored per model in the sidecar (``floor_calibration``), made when vectors are
built or the embedder changes, and made again when the vault's vectors changed by more than
RECALIBRATE_SHARE since (cheap: the probe vectors are cached, one pass over the vectors).
``[recall] min_similarity`` in vault.toml overrides the floor; an embedder that declares its own
``min_similarity`` (test doubles) is taken at its word; PRIOR is used only when the probes
cannot be embedded (the embedder failed) — a fallback, not the source.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass

import numpy as np

from vault_mem.model.probes import PROBES

QUANTILE = 0.9
FLOOR_SPREADS = 0.5
STRONG_SPREADS = 0.5
HIT_SPREADS = 1.5
MIN_SPREAD = 0.01  # a degenerate sample (a one-memory vault) still gets a margin
RECALIBRATE_SHARE = 0.25  # recalibrate once this share of the vectors changed...
RECALIBRATE_MIN = 8  # ...and at least this many
# Fallback (floor, spread) when the probes cannot be embedded: measured for MiniLM (README
# "Relevance floor"); other models get a floor that abstains rarely.
PRIOR = {"local:all-MiniLM-L6-v2-int8": (0.34, 0.075)}
DEFAULT_PRIOR = (0.30, 0.075)
_PROBE_TAG = "vault-mem probe v1\x00"


@dataclass(frozen=True)
class Floor:
    """The bars one recall uses; ``source`` says where they came from."""

    min_sim: float  # the query needs one candidate at least this similar
    strong: float  # a hit at least this similar is a strong match
    hit_bar: float  # a hit below this (and without keyword support) is dropped
    source: str  # "calibrated", "vault.toml", "embedder", "prior"

    @classmethod
    def from_spread(cls, floor: float, spread: float, source: str) -> Floor:
        spread = max(spread, MIN_SPREAD)
        return cls(min_sim=floor, strong=floor + STRONG_SPREADS * spread,
                   hit_bar=floor - HIT_SPREADS * spread, source=source)


@dataclass(frozen=True)
class Calibration:
    model: str
    epoch: str
    seq: int
    vectors: int
    null: tuple[float, ...]  # the probes' best cosines, sorted
    made: str

    @property
    def spread(self) -> float:
        q50, qhi = np.quantile(self.null, [0.5, QUANTILE]) if self.null else (0.0, 0.0)
        return max(float(qhi - q50), MIN_SPREAD)

    @property
    def floor(self) -> float:
        qhi = float(np.quantile(self.null, QUANTILE)) if self.null else 0.0
        return qhi + FLOOR_SPREADS * self.spread

    def to_floor(self) -> Floor:
        return Floor.from_spread(self.floor, self.spread, "calibrated")

    def due(self, *, model: str, epoch: str, seq: int) -> bool:
        """Stale for this model / vector generation, or the vectors changed too much since."""
        if model != self.model or epoch != self.epoch:
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
        null = tuple(float(x) for x in json.loads(r[4]))
    except (ValueError, TypeError):
        return None
    return Calibration(model=r[0], epoch=r[1], seq=int(r[2]), vectors=int(r[3]), null=null, made=r[5])


def store(db, cal: Calibration) -> None:
    db.execute("INSERT OR REPLACE INTO floor_calibration(model, epoch, seq, vectors, null_sims, made) "
               "VALUES (?, ?, ?, ?, ?, ?)",
               (cal.model, cal.epoch, cal.seq, cal.vectors, json.dumps(list(cal.null)), cal.made))


def now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def prior_spread(model: str) -> float:
    return PRIOR.get(model, DEFAULT_PRIOR)[1]


def prior(model: str) -> Floor:
    floor, spread = PRIOR.get(model, DEFAULT_PRIOR)
    return Floor.from_spread(floor, spread, "prior")
