"""A search that leaves out every memory (a trusted-only recall where every memory is a peer's:
a clone of a team's vault where the person wrote none yet) ranks no keyword match: the read's
table of the rows it keeps in (:class:`vault_mem.index.pathsets.PathTable`) holds none, so no
row can pass. The answer is the one the paths bound as a list give: nothing. Real SQLite, real
git, a real peer's clone."""

from __future__ import annotations

import datetime as dt

import pytest
from test_index_marks_kept_perf33 import statements_while, team_vault

from vault_mem import Vault
from vault_mem.index.pathsets import PathTable
from vault_mem.index.search import Filters, keyword_search
from vault_mem.model.terms import query_terms

QUERY = "staging deploys happen"


@pytest.fixture
def all_peers(tmp_path):
    vault, _mine = team_vault(tmp_path, own=False)
    yield vault
    vault.close()


def matches(vault: Vault, fn) -> list[str]:
    """The keyword rankings run while ``fn`` ran."""
    return [s for s in statements_while(vault, fn) if "MATCH" in s and "bm25" in s]


def test_a_search_keeping_no_row_in_ranks_nothing(all_peers) -> None:
    """Fails before: the trusted search ranked every match, then left each out."""
    vault = all_peers
    assert vault.recall(QUERY, k=5).hits  # the peers' memories found, marked
    assert vault.recall(QUERY, k=5, trusted_only=True).hits == []  # the table filled
    table = vault._kept_peers._table
    assert isinstance(table, PathTable) and table.kept_in(vault.sidecar.db) == 0
    assert matches(vault, lambda: vault.recall(QUERY, k=5, trusted_only=True)) == []


def test_the_same_answer_as_the_paths_bound_as_a_list(all_peers) -> None:
    vault = all_peers
    vault.recall(QUERY, k=5, trusted_only=True)
    table = vault._kept_peers._table
    db = vault.sidecar.db
    today = dt.date.today().isoformat()
    terms = query_terms(QUERY)
    listed = keyword_search(db, terms, Filters(today=today, excluded=tuple(sorted(table))))
    assert keyword_search(db, terms, Filters(today=today, excluded=table)) == listed == []
    assert keyword_search(db, terms, Filters(today=today))  # found when none is left out
