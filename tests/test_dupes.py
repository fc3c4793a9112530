"""Near-duplicate detection (vault_mem.index.dupes): the remember guard and the vault-wide pairs.

Both sides are tested with the same examples: rewordings of one memory must be caught, and
memories that share a frame but differ in what they are about (another project, another day,
another person) must not be, with and without vectors.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import random

import pytest
from conftest import cli, git, new_vault
from fakes import FakeEmbedder, write_memory

from vault_mem.adapters.tools import dispatch
from vault_mem.index import dupes
from vault_mem.vault.core import Vault

# (existing description, body), (new description, body): the same memory said again.
DUPLICATES = [
    (("Uses Helix as the main editor", "Switched from Neovim in October for built-in LSP."),
     ("Main editor is Helix", "The user switched from Neovim to Helix in October because of its built-in LSP.")),
    (("Deploy the API with make deploy", "1. Run tests\n2. make deploy ENV=prod\n3. Check the dashboard"),
     ("How to deploy the API", "1. run the tests\n2. make deploy ENV=prod\n3. check the dashboard afterwards")),
    (("Project uses PostgreSQL 15 as its database", ""),
     ("The project's database is PostgreSQL 15", "")),
    (("Prefers pytest for tests", "Uses fixtures, not unittest classes."),
     ("Prefers pytest for tests", "Uses fixtures, not unittest classes.")),
]

# Same frame, different subject or value: distinct memories (or a contradiction, not a copy).
DISTINCT = [
    (("Uses Helix as the main editor", ""), ("Uses fish as the shell", "")),
    (("Uses Helix as the main editor", ""), ("Uses Neovim as the main editor", "")),
    (("Prefers dark mode in every app", ""), ("Prefers light mode in every app", "")),
    (("Project foo uses PostgreSQL 15", ""), ("Project bar uses PostgreSQL 15", "")),
    (("Staging server is staging.internal.example.com", ""),
     ("Production server is prod.internal.example.com", "")),
    (("Alice owns the billing service", ""), ("Bob owns the billing service", "")),
    (("Weekly sync is on Monday at 10:00", ""), ("Weekly sync is on Tuesday at 10:00", "")),
    (("Deploy the API with make deploy", "1. Run tests\n2. make deploy ENV=prod"),
     ("Deploy the web frontend with npm run deploy", "1. npm ci\n2. npm run build\n3. npm run deploy")),
    (("Python version of the project is 3.12", ""), ("Node version of the project is 20", "")),
    (("Chose SQLite over Postgres for the sidecar", "Because it is embedded and needs no server."),
     ("Chose FTS5 over Tantivy for keyword search", "Because it ships with SQLite.")),
]


def _sim(a: tuple[str, str], b: tuple[str, str]) -> float:
    return dupes.lexical_similarity(dupes.tokens("\n".join(a)), dupes.tokens("\n".join(b)))


# -- the measure ------------------------------------------------------------------------------
@pytest.mark.parametrize("old,new", DUPLICATES, ids=[d[1][0] for d in DUPLICATES])
def test_rewordings_score_at_or_above_the_threshold(old, new):
    assert _sim(old, new) >= dupes.DUPLICATE_THRESHOLD


@pytest.mark.parametrize("old,new", DISTINCT, ids=[d[1][0] for d in DISTINCT])
def test_distinct_memories_score_below_the_threshold(old, new):
    assert _sim(old, new) < dupes.DUPLICATE_THRESHOLD


def test_tokens_drop_stopwords_and_plural_endings():
    assert dupes.tokens("The user uses two approvals, and THE reviews") == ["user", "use", "two", "approval",
                                                                          "review"]
    assert dupes.lexical_similarity([], ["a"]) == 0.0
    assert dupes.lexical_similarity(["a", "b"], ["b", "a"]) == 1.0


# -- the guard in remember ---------------------------------------------------------------------
@pytest.mark.parametrize("old,new", DUPLICATES, ids=[d[1][0] for d in DUPLICATES])
def test_remember_warns_about_a_near_duplicate_and_still_writes(vault, old, new):
    vault.remember("existing", old[0], old[1])
    result = vault.remember("fresh", new[0], new[1])
    assert result.action == "create" and result.commit
    assert (vault.root / "facts/fresh.md").exists()
    dup = [w for w in result.warnings if "near duplicate" in w]
    assert len(dup) == 1
    assert "'existing'" in dup[0] and "remember with key 'existing'" in dup[0] and "forget 'fresh'" in dup[0]


@pytest.mark.parametrize("old,new", DISTINCT, ids=[d[1][0] for d in DISTINCT])
def test_remember_does_not_warn_about_distinct_memories(vault, old, new):
    vault.remember("existing", old[0], old[1])
    result = vault.remember("fresh", new[0], new[1])
    assert not [w for w in result.warnings if "near duplicate" in w]


def test_only_new_keys_are_checked_and_only_against_live_memories(vault):
    desc, body = DUPLICATES[0][0]
    vault.remember("editor", desc, body)
    # an update of the same key is not a duplicate of itself
    assert vault.remember("editor", desc, body + " Still true.").warnings == []
    # a new memory that supersedes the old one says so: no warning
    new_desc, new_body = DUPLICATES[0][1]
    r = vault.remember("editor-2026", new_desc, new_body, extra={"supersedes": ["editor"]})
    assert r.warnings == []
    # the superseded one is no longer live: a third rewording points at the live successor only
    r = vault.remember("editor-again", new_desc, new_body)
    assert [w.split("'")[1] for w in r.warnings] == ["editor-2026"]


def test_expired_memories_are_not_reported(vault):
    vault.remember("visa", "Visa for the Japan trip is valid", "Multiple entry.",
                   extra={"expires": dt.date(2020, 1, 1)})
    assert vault.remember("visa-2", "Visa for the Japan trip is valid", "Multiple entry.").warnings == []


def test_warning_reaches_tool_results(vault):
    desc, body = DUPLICATES[2][0]
    vault.remember("db", desc, body)
    new_desc, new_body = DUPLICATES[2][1]
    out = json.loads(dispatch(vault, "remember", json.dumps({"key": "db-2", "description": new_desc,
                                                              "body": new_body})))
    assert out["action"] == "create" and any("near duplicate of 'db'" in w for w in out["warnings"])


def test_near_duplicates_api_ranks_and_limits(vault):
    for i in range(5):
        vault.remember(f"copy-{i}", "Deploy the API with make deploy",
                       f"1. Run tests\n2. make deploy ENV=prod\n3. Check the dashboard{' now' * i}")
    vault.remember("other", "Uses fish as the shell")
    found = dupes.near_duplicates(vault.sidecar, key="new", type="procedure",
                                  description="Deploy the API with make deploy",
                                  body="1. Run tests\n2. make deploy ENV=prod\n3. Check the dashboard")
    assert len(found) == 3 and found[0] == ("copy-0", 1.0)
    assert all(k.startswith("copy-") and 0.78 <= s <= 1.0 for k, s in found)
    assert dupes.near_duplicates(vault.sidecar, key="copy-0", type="fact", description="", body="") == []
    # FTS syntax in the text is just words: nothing raises
    assert dupes.near_duplicates(vault.sidecar, key="x", type=None, description='NEAR( "a* OR ^b',
                                 body=") col:val AND NOT") == []


# -- with vectors --------------------------------------------------------------------------------
@pytest.fixture
def vec_vault(tmp_path):
    new_vault(tmp_path / "v").close()
    fake = FakeEmbedder()
    # The fake hashes stopwords too, so a short rewording scores ~0.57 where MiniLM gives 0.86:
    # it declares its own cosine scale, as an embedder with a low scale would.
    fake.min_duplicate_cosine = 0.5
    v = Vault(tmp_path / "v", embedder=fake)
    yield v
    v.close()


@pytest.mark.parametrize("old,new", DUPLICATES, ids=[d[1][0] for d in DUPLICATES])
def test_with_vectors_rewordings_are_caught(vec_vault, old, new):
    vec_vault.remember("existing", old[0], old[1])
    assert any("'existing'" in w for w in vec_vault.remember("fresh", new[0], new[1]).warnings)


@pytest.mark.parametrize("old,new", DISTINCT, ids=[d[1][0] for d in DISTINCT])
def test_with_vectors_distinct_memories_pass(vec_vault, old, new):
    vec_vault.remember("existing", old[0], old[1])
    assert not [w for w in vec_vault.remember("fresh", new[0], new[1]).warnings if "near duplicate" in w]


def test_vectors_veto_a_lexical_match_whose_meaning_differs(vec_vault):
    old, new = DUPLICATES[0]
    vec_vault.remember("editor", old[0], old[1])
    args = {"key": "editor-2", "type": "fact", "description": new[0], "body": new[1]}
    assert [k for k, _ in dupes.near_duplicates(vec_vault.sidecar, **args)] == ["editor"]
    # an embedder whose scale says these two differ (cosine below its floor) vetoes the match
    vec_vault.sidecar.vectors._embedder.min_duplicate_cosine = 0.999
    assert dupes.near_duplicates(vec_vault.sidecar, **args) == []
    # identical text is never vetoed (cosine 1.0)
    assert [k for k, _ in dupes.near_duplicates(vec_vault.sidecar, key="x", type="fact",
                                                description=old[0], body=old[1])] == ["editor"]


def test_duplicate_check_survives_a_failing_embedder(vec_vault):
    old, new = DUPLICATES[0]
    vec_vault.remember("editor", old[0], old[1])
    vec_vault.sidecar.vectors._embedder.fail = True
    r = vec_vault.remember("editor-2", new[0], new[1])
    assert r.commit and any("'editor'" in w for w in r.warnings)  # lexical alone still decides


def test_remember_never_loads_a_model_for_the_check(tmp_path, monkeypatch):
    """With the default embedder not yet built, the check stays keyword-only (no model load)."""
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "local")
    new_vault(tmp_path / "v").close()
    v = Vault(tmp_path / "v")
    try:
        old, new = DUPLICATES[2]
        v.remember("db", old[0], old[1])
        assert v.remember("db-2", new[0], new[1]).warnings
        assert v.sidecar.vectors._embedder_ready is False
    finally:
        v.close()


# -- vault-wide pairs --------------------------------------------------------------------------
def _populate(root):
    for i, (old, new) in enumerate(DUPLICATES[:3]):
        write_memory(root, f"dup-{i}-a", old[0], old[1])
        write_memory(root, f"dup-{i}-b", new[0], new[1])
    # every distinct text once (some DISTINCT cases share a side with each other or with DUPLICATES)
    taken = {d for pair in DUPLICATES[:3] for d, _ in pair}
    n = 0
    for pair in DISTINCT:
        for desc, body in pair:
            if desc not in taken:
                taken.add(desc)
                write_memory(root, f"dist-{n:02d}", desc, body)
                n += 1
    # not live: expired, superseded, or a sync conflict copy (review lists those)
    write_memory(root, "old-visa", "Visa for Japan valid until March", expires=dt.date(2020, 1, 1))
    write_memory(root, "old-visa-copy", "Visa for Japan valid until March")
    write_memory(root, "shell-old", "Uses bash as the login shell")
    write_memory(root, "shell-new", "Uses bash as the login shell", supersedes=["shell-old"])
    write_memory(root, "tabs", "Prefers tabs for indentation")
    write_memory(root, "tabs.conflict-abc1234", "Prefers tabs for indentation")


EXPECTED_PAIRS = {("dup-0-a", "dup-0-b"), ("dup-1-a", "dup-1-b"), ("dup-2-a", "dup-2-b")}


def test_duplicate_pairs_keyword_only(vault):
    _populate(vault.root)
    from vault_mem.ops.review import dupes as vault_dupes

    pairs = vault_dupes(vault)
    assert {(p["a"], p["b"]) for p in pairs} == EXPECTED_PAIRS
    assert all(p["cosine"] is None and p["similarity"] >= dupes.DUPLICATE_THRESHOLD for p in pairs)
    assert pairs == sorted(pairs, key=lambda p: -p["similarity"])
    assert pairs[0]["a_description"] and pairs[0]["b_description"]


def test_duplicate_pairs_with_stored_vectors(vec_vault):
    _populate(vec_vault.root)
    from vault_mem.ops.review import dupes as vault_dupes

    pairs = vault_dupes(vec_vault)
    assert {(p["a"], p["b"]) for p in pairs} == EXPECTED_PAIRS
    assert all(p["cosine"] is not None and p["cosine"] >= 0.5 for p in pairs)


def _brute_force(vault) -> set[tuple[str, str]]:
    rows = [(r["key"], dupes.tokens(f"{r['description']}\n{vault.get(r['key']).body}")) for r in vault.list()]
    return {tuple(sorted((a, b))) for (a, ta), (b, tb) in itertools.combinations(rows, 2)
            if dupes.lexical_similarity(ta, tb) >= dupes.DUPLICATE_THRESHOLD}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_prefix_filter_finds_exactly_what_all_pairs_would(vault, seed):
    """The candidate filter loses nothing: same pairs as comparing every pair."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(40)]
    base = [[rng.choice(vocab) for _ in range(rng.randint(2, 14))] for _ in range(25)]
    n = 0
    for words in base:  # each base text plus a few mutated copies: many pairs near the threshold
        for _ in range(rng.randint(1, 4)):
            w = list(words)
            for _ in range(rng.randint(0, 3)):
                op = rng.random()
                if op < 0.4 and len(w) > 1:
                    w.pop(rng.randrange(len(w)))
                elif op < 0.7:
                    w.insert(rng.randrange(len(w) + 1), rng.choice(vocab))
                else:
                    w[rng.randrange(len(w))] = rng.choice(vocab)
            write_memory(vault.root, f"m-{n:03d}", " ".join(w[:3]) or "x", " ".join(w[3:]))
            n += 1
    vault.reconcile()
    expected = _brute_force(vault)
    got = {(p["a"], p["b"]) for p in dupes.duplicate_pairs(vault.sidecar, max_postings=10**6, per_memory=10**6)}
    assert got == expected and len(expected) > 20


def test_duplicate_pairs_work_is_bounded_on_template_vaults(vault, monkeypatch):
    """Sixty near-identical memories: each one is compared with at most max_postings others per
    rare word, and keeps at most per_memory partners."""
    for i in range(60):
        write_memory(vault.root, f"m-{i:02d}", f"Shared words alpha beta gamma delta item {i}", "same note")
    vault.reconcile()
    calls = []
    real = dupes._score
    monkeypatch.setattr(dupes, "_score", lambda *a: calls.append(a) or real(*a))
    pairs = dupes.duplicate_pairs(vault.sidecar, max_postings=5, per_memory=2)
    assert 0 < len(calls) <= 60 * 5 * 4  # memories x cap x probe-prefix words
    assert pairs and all(p["similarity"] >= dupes.DUPLICATE_THRESHOLD for p in pairs)
    assert len(pairs) <= 60 * 2  # every kept pair takes a free slot of one of its memories


def test_cli_dupes_and_remember_warning(tmp_path):
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    old, new = DUPLICATES[2]
    r = cli("--vault", str(root), "remember", "db", "-d", old[0], "--body", old[1] or "-")
    assert r.returncode == 0, r.stderr
    r = cli("--vault", str(root), "remember", "db-2", "-d", new[0], "--json")
    assert r.returncode == 0, r.stderr
    assert "warning: looks like a near duplicate of 'db'" in r.stderr
    assert any("'db'" in w for w in json.loads(r.stdout)["warnings"])
    r = cli("--vault", str(root), "dupes")
    assert r.returncode == 0 and "db ~ db-2 (" in r.stdout
    r = cli("--vault", str(root), "dupes", "--json")
    assert [(p["a"], p["b"]) for p in json.loads(r.stdout)] == [("db", "db-2")]
    assert git(root, "status", "--porcelain") == ""


# -- the real model: the veto floor keeps every true duplicate ------------------------------
def test_real_model_keeps_true_duplicates(tmp_path):
    from vault_mem.embed.local import LocalEmbedder

    new_vault(tmp_path / "v").close()
    v = Vault(tmp_path / "v", embedder=LocalEmbedder())
    try:
        for i, (old, new) in enumerate(DUPLICATES):
            v.remember(f"old-{i}", old[0], old[1])
            assert any(f"'old-{i}'" in w for w in v.remember(f"new-{i}", new[0], new[1]).warnings)
        from vault_mem.ops.review import dupes as vault_dupes

        pairs = vault_dupes(v)
        assert {(p["a"], p["b"]) for p in pairs} >= {(f"new-{i}", f"old-{i}") for i in range(len(DUPLICATES))}
        assert all(p["cosine"] is not None and p["cosine"] >= dupes.MIN_COSINE for p in pairs)
    finally:
        v.close()
