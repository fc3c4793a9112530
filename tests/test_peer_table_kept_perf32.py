"""A read's table of the rows it keeps in (:class:`vault_mem.index.pathsets.PathTable`) filled
from the peers' judgement the sidecar keeps (``kept_judgement_paths``) when that row is still the
judgement the read holds, instead of binding every peer's path as one JSON list (at 100k peers'
memories that list was sorted, written and parsed on every cold read that left the peers out:
issue 29); and from the list, as before, when the row is another's or gone. Either way the table
keeps in exactly every ``files`` row but the judgement's peers. Real git, a real remote, real
SQLite."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import PEER_EMAIL, git, person_and_peer, push_as_peer
from test_peer_paths_table import kept_in, peer_files, reads, table_rows, write

from vault_mem import Vault
from vault_mem.index.kept_judgement import drop_judgement
from vault_mem.sync.remote import sync
from vault_mem.vault import authors

#: more than ``authors.FILE_CHECKS`` candidates: a judgement of fewer reads each file and is
#: not kept in the sidecar
N_PEER = 80


@pytest.fixture
def team(tmp_path):
    """The person's vault (synced with a real remote) holding ``N_PEER`` memories a peer pushed
    and one of the agent's, opened warm; and the peer's clone."""
    mine, peer = person_and_peer(tmp_path)
    git(peer, "config", "user.email", PEER_EMAIL)
    write(peer, peer_files("peer-deploy", N_PEER))
    push_as_peer(peer, "the peer's deploy notes")
    vault = Vault(mine)
    assert sync(vault).received == 1
    vault.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
    yield vault, mine, peer
    vault.close()


def fills(vault: Vault) -> list[str]:
    """The statements that fill a kept table, while the vault's first read that leaves the peers
    out runs."""
    statements: list[str] = []
    vault.sidecar.db.conn.set_trace_callback(statements.append)
    try:
        reads(vault)
    finally:
        vault.sidecar.db.conn.set_trace_callback(None)
    return [s for s in statements if s.startswith("INSERT INTO temp.kept_in_")]


def test_a_read_fills_its_table_from_the_kept_row_binding_no_path(team) -> None:
    """A vault opened anew (a one-shot read: its judgement brought along from the sidecar's row,
    and the row its own) fills its table from the row's paths, no JSON list bound, and keeps in
    what the list would: every row but the peers'."""
    vault, mine, _peer = team
    first = reads(vault)  # the judgement made and kept in the sidecar
    with Vault(mine) as again:
        made = fills(again)
        assert again.sidecar.db.execute("SELECT count(*) FROM kept_judgement").fetchone()[0] == 1
        assert len(made) == 1 and "kept_judgement_paths" in made[0] and "json_each" not in made[0], made
        assert reads(again) == first
        peers = set(again._kept_peers._peers)
        assert len(peers) == N_PEER
        assert table_rows(again) == kept_in(again, peers)


def test_a_row_another_writer_replaced_is_not_taken_for_the_judgement(team) -> None:
    """When the sidecar's row is no longer the judgement the read holds (another process kept
    none, or its own), the table is filled from the read's own paths as a JSON list: the same
    rows kept in, never the other row's."""
    vault, mine, _peer = team
    reads(vault)
    with Vault(mine) as again, Vault(mine) as other:
        kept = again._kept_peers
        ids = authors.identities(again.ws)
        peers = kept.peer_memories(
            again.ws, again.sidecar, ids, authors.Origins(again.ws, again.sidecar, ids)
        )
        drop_judgement(other.sidecar.db)  # another process: no judgement kept
        statements: list[str] = []
        again.sidecar.db.conn.set_trace_callback(statements.append)
        try:
            rows = table_rows(again)
        finally:
            again.sidecar.db.conn.set_trace_callback(None)
        made = [s for s in statements if s.startswith("INSERT INTO temp.kept_in_")]
        assert len(made) == 1 and "json_each" in made[0], made
        assert rows == kept_in(again, set(peers))


def test_a_row_holding_other_peers_under_the_same_token_is_not_taken(team) -> None:
    """The row's count of peers is checked with its token: a row whose paths do not number the
    judgement's (a damaged or hand-changed table) is not read as it."""
    vault, mine, _peer = team
    reads(vault)
    with Vault(mine) as again:
        kept = again._kept_peers
        ids = authors.identities(again.ws)
        peers = kept.peer_memories(
            again.ws, again.sidecar, ids, authors.Origins(again.ws, again.sidecar, ids)
        )
        env = {**os.environ}
        db = again.sidecar.db.path
        subprocess.run(
            [
                "python3",
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                'c.execute("UPDATE kept_judgement_paths SET standing = NULL WHERE path = '
                '(SELECT min(path) FROM kept_judgement_paths WHERE standing IS NOT NULL)"); c.commit()',
                str(db),
            ],
            check=True,
            env=env,
        )
        statements: list[str] = []
        again.sidecar.db.conn.set_trace_callback(statements.append)
        try:
            rows = table_rows(again)
        finally:
            again.sidecar.db.conn.set_trace_callback(None)
        made = [s for s in statements if s.startswith("INSERT INTO temp.kept_in_")]
        assert len(made) == 1 and "json_each" in made[0], made
        assert rows == kept_in(again, set(peers))


def test_a_judgement_made_from_the_rows_state_by_another_process_is_not_handed_its_token(tmp_path) -> None:
    """Review of perf32: two judgements made from one state can differ (the files' rows are read
    live: a peer's memory moved ``old.md`` -> ``new.md`` between two processes' judgements, the
    same count of peers). ``keep_judgement`` handed the second writer the first one's token
    ("made from the same state"), and its read filled the kept table as the files less the
    FIRST judgement's peers: the peer's ``new.md`` kept in, the session context's or prompt
    hook's (a trust-boundary breach). Now the row's token is handed back only to the judgement
    it is (``token``: the row this one was brought along from); another gets None, and its read
    binds its own peers (the table as the reference form makes it)."""
    from vault_mem.index.db import Database, driver
    from vault_mem.index.kept_judgement import keep_judgement, kept_peers_sql
    from vault_mem.index.pathsets import PathTable

    path = tmp_path / "x.db"

    def connected() -> Database:
        return Database(driver().connect(str(path), isolation_level=None), path=path, vec_loaded=False,
                        vec_ok=False, vec_reason=None)

    a, b = connected(), connected()
    a.conn.execute("CREATE TABLE files(path TEXT PRIMARY KEY)")
    a.conn.execute("CREATE TABLE kept_judgement(id INTEGER PRIMARY KEY, state TEXT, token TEXT, "
                   "judgement TEXT NOT NULL)")
    a.conn.execute("CREATE TABLE kept_judgement_paths(path TEXT PRIMARY KEY, email TEXT, standing TEXT)")
    a.conn.executemany("INSERT INTO files VALUES (?)", [("mine.md",), ("new.md",)])
    state = '{"seq": 10, "head": "abc"}'
    first = keep_judgement(b, state, None, lambda: [("mine.md", None, None), ("old.md", "peer@x", "peer")])
    assert first is not None
    second = keep_judgement(a, state, None, lambda: [("mine.md", None, None), ("new.md", "peer@x", "peer")])
    assert second != first
    # the row's own judgement, brought along unchanged from it, still gets its token
    assert keep_judgement(a, state, first, lambda: []) == first
    peers = {"new.md"}
    table = PathTable(a, peers, kept=lambda db, n: kept_peers_sql(db, second, n))
    reference = PathTable(a, peers)
    got = {r[0] for r in a.conn.execute(table.sql(a)[1:-1])}
    want = {r[0] for r in a.conn.execute(reference.sql(a)[1:-1])}
    assert got == want == {"mine.md"}
    a.conn.close()
    b.conn.close()
