"""How many memories hold each word of a query (:func:`vault_mem.index.queries.term_counts`,
the common-word rule of keyword search) kept on the sidecar's connection while its rows stay: a
recall whose hits are a peer's is asked again without them, and the second search counted every
word again (an FTS5 scan per word). Dropped by any change to the rows: a write of this
connection, another connection's commit. Real SQLite, real files, a real peer's clone."""

from __future__ import annotations

import pytest
from test_index_marks_kept_perf33 import statements_while, team_vault

from vault_mem import Vault
from vault_mem.index import queries
from vault_mem.index.queries import term_counts
from vault_mem.model.terms import query_terms


@pytest.fixture
def team(tmp_path, monkeypatch):
    """The person's vault with memories a peer pushed and one of the person's agent; every word
    counts as common from 2 memories (the rule runs from 1,000 memories up)."""
    monkeypatch.setattr(queries, "COMMON_TERM_FLOOR", 2)
    vault, mine = team_vault(tmp_path)
    yield vault, mine
    vault.close()


def counted(vault: Vault, fn) -> list[str]:
    """The word-count statements run while ``fn`` ran."""
    return [s for s in statements_while(vault, fn) if s.startswith("SELECT count(*) FROM (SELECT 1 FROM fts")]


def uncached(vault: Vault, terms: list[str], cap: int) -> list[int]:
    db = vault.sidecar.db
    return [
        db.execute(
            "SELECT count(*) FROM (SELECT 1 FROM fts WHERE fts MATCH ? LIMIT ?)",
            [queries.fts_query([t]), cap],
        ).fetchone()[0]
        for t in terms
    ]


def test_a_recall_asked_again_without_the_peers_counts_each_word_once(team) -> None:
    """The recall's hits are a peer's: it is searched twice (with and without the peers), each
    word counted once for both. Fails before the counts were kept (each search counted each
    word: the same statements twice)."""
    vault, _mine = team
    vault.recall("peer note", k=5)  # the judgement and its table made (both write)
    query = "staging deploys happen"
    made = counted(vault, lambda: vault.recall(query, k=5))
    result = vault.recall(query, k=5)
    assert any(not h.trusted for h in result.hits)  # a peer's hit: asked again without them
    assert made and len(made) == len(set(made)), made


@pytest.mark.parametrize("change", ["this connection writes", "another connection commits"])
def test_kept_counts_are_dropped_when_the_rows_change(team, change) -> None:
    vault, mine = team
    db = vault.sidecar.db
    terms = query_terms("staging tuesdays zebra")
    cap = 3
    first = term_counts(db, terms, cap)
    assert first == uncached(vault, terms, cap)
    assert counted(vault, lambda: term_counts(db, terms, cap)) == []  # given again
    if change == "this connection writes":
        vault.remember("zebra-crossing", "The zebra crossing by the office", "A zebra note about staging.")
    else:
        with Vault(mine) as other:
            other.remember(
                "zebra-crossing", "The zebra crossing by the office", "A zebra note about staging."
            )
    now = term_counts(db, terms, cap)
    assert now == uncached(vault, terms, cap)
    assert now != first  # "zebra" held by one memory now
