"""The verdict stage (index/levels.py): the floor, the answer check and the lead decide each
hit's level; the lead keeps look-alikes of the first hit from filling the strong slots."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from conftest import real_embedder
from fakes import write_memory

from vault_mem.config import Config
from vault_mem.index import levels
from vault_mem.index.floor import Floor
from vault_mem.index.sidecar import Sidecar

TODAY = dt.date(2026, 7, 1)


def floor(spread: float | None = 0.05) -> Floor:
    return Floor(min_sim=0.1, strong=0.25, hit_bar=0.05, source="test", sure=0.9, base=0.24, spread=spread)


def test_lead_demotes_strong_hits_far_below_the_first() -> None:
    ev = levels.Evidence(scores={1: 2.0, 2: 1.5, 3: 1.2, 4: 1.0}, sims={1: 0.60, 2: 0.56, 3: 0.45, 4: 0.30},
                         coverage={})
    passing = {1: "strong", 2: "strong", 3: "strong", 4: "candidate"}
    # within one spread (0.05) of the first hit's 0.60: stays strong; 0.45 is three under: a candidate
    assert levels.lead(passing, ev, floor()) == {1: "strong", 2: "strong", 3: "candidate", 4: "candidate"}
    assert levels.lead(passing, ev, floor(spread=None)) == passing  # bars set by hand: no lead
    # it never touches the first hit, reorders or removes anything
    first_low = levels.Evidence(scores={1: 2.0, 2: 1.0}, sims={1: 0.30, 2: 0.70}, coverage={})
    assert levels.lead({1: "candidate", 2: "strong"}, first_low, floor()) == {1: "candidate", 2: "strong"}


def test_levels_runs_the_floor_then_the_lead() -> None:
    ev = levels.Evidence(scores={1: 2.0, 2: 1.5}, sims={1: 0.60, 2: 0.40}, coverage={1: 0.2, 2: 0.2})
    assert levels.levels(None, "scripts in fish", ["scripts", "fish"], ev, floor=floor(), k=5, words=None) == \
        {1: "strong", 2: "candidate"}  # both clear the strong bar (0.25); the second is 4 spreads under
    # keyword-only: no floor, no lead (every keyword match is a hit)
    assert levels.levels(None, "fish", ["fish"], levels.Evidence({1: 1.0}, {}, {1: 1.0}), floor=None, k=5,
                         words=None) == {1: "strong"}


def test_levels_say_which_stage_made_each_candidate() -> None:
    """``why`` names the stage that left each hit a candidate (what bench_verdict.py counts to
    say where hook coverage is lost); the levels are the same with or without it."""
    ev = levels.Evidence(scores={1: 2.0, 2: 1.5, 3: 1.2}, sims={1: 0.60, 2: 0.40, 3: 0.20},
                         coverage={1: 0.2, 2: 0.2, 3: 0.2})
    why: dict[int, str] = {}
    got = levels.levels(None, "scripts in fish", ["scripts", "fish"], ev, floor=floor(), k=5, words=None, why=why)
    assert got == {1: "strong", 2: "candidate", 3: "candidate"}
    assert why == {2: levels.LEAD, 3: levels.UNDER_BAR}  # 2 cleared the strong bar (0.25), 3 did not
    assert levels.levels(None, "scripts in fish", ["scripts", "fish"], ev, floor=floor(), k=5, words=None) == got
    why = {}
    levels.levels(None, "fish", ["fish"], levels.Evidence({1: 1.0, 2: 0.5}, {}, {1: 1.0, 2: 0.4}), floor=None, k=5,
                  words=None, why=why)
    assert why == {2: levels.UNDER_BAR}  # keyword-only: under half the query's words


def test_one_subject_vault_puts_only_the_answer_in_the_strong_slots(tmp_path: Path) -> None:
    """A developer's vault is one subject: with one cosine bar, memories that merely share the
    topic were strong beside the answer (strong precision ~.6 on bench/data/devvault.json)."""
    root = tmp_path / "v"
    mems = {
        "shell-fish": "Interactive shell is fish; scripts stay POSIX sh",
        "terminal": "Terminal emulator is WezTerm with a light theme",
        "editor-helix": "Uses Helix as the main editor",
        "commit-style": "Commit messages: imperative subject under 60 chars, body says why",
        "ci-runner": "CI runs on GitHub Actions with self-hosted runners",
        "ci-flaky": "test_sync_upstream is flaky on the self-hosted runners",
        "package-manager": "Python dependencies are managed with uv",
        "formatter": "Ruff formats and lints all Python code",
        "deploy": "How to deploy the API to production: merge, tag, approve the release workflow",
        "rollback": "How to roll back a bad production release",
        "staging-url": "Staging lives at staging.internal.example.net",
        "billing-db": "Billing data is kept in PostgreSQL 16, not DynamoDB",
        "cache-redis": "Session cache is Redis with a 30-minute TTL",
        "queue": "Background jobs use Celery on RabbitMQ",
        "migrations": "How to add a database migration with alembic",
        "db-local": "How to start the local database with docker compose",
        "api-framework": "The HTTP API is built on FastAPI",
        "logging": "Logs are structured JSON through structlog, shipped to Loki",
        "metrics": "Metrics go to Prometheus and are graphed in Grafana",
        "oncall": "On-call rotates weekly, handover on Mondays at 10:00",
        "secrets": "Secrets are stored in HashiCorp Vault, never in .env files in git",
        "k8s": "Services run on EKS with Helm charts",
    }
    for key, desc in mems.items():
        write_memory(root, key, desc)
    emb = real_embedder()
    with Sidecar(root, Config(), embedder=emb) as sc:
        sc.reconcile()
        sc.vectors.embed_pending()
        # "can I write the repo's helper scripts in fish?" was the second case here: since a hit
        # as close as ``sure`` is held to the loose word bar (levels.py, tests/test_verdict_sure.py)
        # it is a candidate ("helper", "write" are nowhere in it), shown first; no other is strong
        res = sc.recall("can I write the repo's helper scripts in fish?", k=5, today=TODAY)
        assert res.hits[0].key == "shell-fish" and not [h for h in res.hits if h.match == "strong"]
        assert res.verdict == "candidate"
        for query, answer in [("where do our CI jobs run?", "ci-runner")]:
            res = sc.recall(query, k=5, today=TODAY)
            assert res.hits[0].key == answer and res.hits[0].match == "strong", query
            assert [h.key for h in res.hits if h.match == "strong"] == [answer], (query, [(h.key, h.match) for h in res.hits])
            assert len(res.hits) >= 3 and res.verdict == "strong"  # the others are still shown, as candidates
            # each candidate says which verdict stage made it one; a strong hit says nothing
            assert set(res.demoted) == {h.key for h in res.hits if h.match == "candidate"}, res.demoted
            assert set(res.demoted.values()) <= {levels.UNDER_BAR, levels.ANSWER_CHECK, levels.FOCUS_CHECK, levels.LEAD}
