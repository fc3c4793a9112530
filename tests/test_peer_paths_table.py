"""What a read keeps with the peers' judgement (:class:`vault_mem.vault.peers.KeptPeers`): the
peers' paths in a temporary table of the sidecar's connection (a search and the session context
look up the rows they read instead of binding every path as JSON per statement, issue 29), and
the paths that differ from HEAD (the session context's ``git status``, once per judgement).

Each kind of change the judgement reacts to (a sync bringing a peer's commit, an agent's write,
a hand edit, an approval by ``vault-mem trust``, a change of identity) must replace both: a warm
:class:`Vault` (as the MCP server and the daemon keep one) gives what a vault opened anew gives,
and its table holds exactly the judgement. Real git, a real bare remote, the real CLI at a real
terminal for the approval, real SQLite."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import PEER_EMAIL, at_terminal, git, new_vault, person_and_peer, push_as_peer

from vault_mem import Vault
from vault_mem.index.pathsets import PathTable, left_out_sql
from vault_mem.sync.remote import sync
from vault_mem.vault import authors

QUERY = "deploys to staging"
N_PEER = 12
COLLEAGUE = "colleague@team.example"


def memory(description: str, body: str) -> str:
    return f"---\ndescription: {description}\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n{body}\n"


def peer_files(prefix: str, n: int) -> dict[str, str]:
    return {f"facts/{prefix}-{i:03d}.md": memory(f"Deploys to staging happen on day {i}",
                                                 f"Peer note {i} about staging deploys.") for i in range(n)}


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def reads(vault: Vault) -> tuple[str, set[str], list[str]]:
    """What reaches an agent unasked: the session context's text (its lines' authors too), the
    peers' memories by path, a prompt's trusted-only recall (keys)."""
    vault.reconcile()
    text, _legend, peers = vault.render_trusted_index()
    hook = [h.key for h in vault.recall(QUERY, k=5, trusted_only=True).hits]
    return text, set(peers), hook


def fresh(root: Path) -> tuple[str, set[str], list[str]]:
    with Vault(root) as vault:
        return reads(vault)


def table_rows(vault: Vault) -> set[str] | None:
    """The paths the warm vault's kept table keeps in (None: no table kept)."""
    kept = vault._kept_peers
    paths = kept.paths(kept._peers)
    if not isinstance(paths, PathTable):
        return None
    sql = paths.sql(vault.sidecar.db)
    assert sql is not None
    return {r[0] for r in vault.sidecar.db.execute(sql[1:-1])}


def kept_in(vault: Vault, peers: set[str]) -> set[str]:
    """Every memory row's path but ``peers``': what the table must keep in."""
    return {r[0] for r in vault.sidecar.db.execute("SELECT path FROM files")} - peers


@pytest.fixture
def team(tmp_path):
    """The person's vault (synced with a real remote) holding ``N_PEER`` memories a peer pushed
    and the agent's ``deploy-window``, a memory the person committed by hand under a
    colleague's email (made here, not the person's: ``git am`` of a colleague's patch), opened
    warm; and the peer's clone."""
    mine, peer = person_and_peer(tmp_path)
    git(peer, "config", "user.email", PEER_EMAIL)
    write(peer, peer_files("peer-deploy", N_PEER))
    push_as_peer(peer, "the peer's deploy notes")
    vault = Vault(mine)
    assert sync(vault).received == 1
    vault.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
    write(mine, {"facts/colleague-deploy.md": memory("Deploys to staging are checked by the colleague",
                                                     "The colleague's patch.")})
    env = {**os.environ, "GIT_AUTHOR_EMAIL": COLLEAGUE, "GIT_COMMITTER_EMAIL": COLLEAGUE}
    subprocess.run(["git", "add", "facts/colleague-deploy.md"], cwd=mine, env=env, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "a colleague's patch"], cwd=mine, env=env, check=True)
    yield vault, mine, peer
    vault.close()


def sync_a_peers_commit(vault, mine, peer) -> None:
    write(peer, {"facts/peer-late.md": memory("Deploys to staging happen late at night", "Deploys to staging.")})
    push_as_peer(peer, "one more")
    sync(vault)


def agent_write_over_a_peers(vault, mine, peer) -> None:
    vault.remember("peer-deploy-000", "Deploys to staging wait for the release manager", "The agent's words.")


def hand_edit_of_a_peers(vault, mine, peer) -> None:
    write(mine, {"facts/peer-deploy-001.md": memory("Deploys to staging happen after the person's check",
                                                    "The person's own words about staging deploys.")})


def approval_by_trust(vault, mine, peer) -> None:
    r = at_terminal("--vault", str(mine), "trust", "--author", PEER_EMAIL)
    assert r.returncode == 0, r.stdout


def identity_now_the_colleague(vault, mine, peer) -> None:
    git(mine, "config", "user.email", COLLEAGUE)


CHANGES = [sync_a_peers_commit, agent_write_over_a_peers, hand_edit_of_a_peers, approval_by_trust,
           identity_now_the_colleague]


@pytest.mark.parametrize("change", CHANGES, ids=[c.__name__ for c in CHANGES])
def test_the_kept_table_and_changed_paths_follow_each_change(team, change) -> None:
    """After each change, the warm vault answers what a fresh one does (the session context
    word for word, its lines' authors included, the peers, the prompt's recall), and its kept
    table holds exactly the new judgement: a table or a ``git status`` kept from before the
    change left the wrong memories out, or named the wrong author."""
    vault, mine, peer = team
    before = reads(vault)
    assert before == fresh(mine)
    assert "facts/colleague-deploy.md" in before[1] and len(before[1]) == N_PEER + 1
    assert table_rows(vault) == kept_in(vault, before[1])
    assert reads(vault) == before  # kept: asked again, the same
    change(vault, mine, peer)
    after = reads(vault)
    assert after[1] != before[1], "the change must move the judgement"
    assert after == fresh(mine)
    rows = table_rows(vault)
    assert rows == (kept_in(vault, after[1]) if after[1] else None), (rows, after[1])


def test_a_hand_edit_is_named_as_a_fresh_read_names_it(team) -> None:
    """The session context's lines name each memory's author from the paths that differ from
    HEAD, kept with the judgement: after the person edits the agent's memory by hand (not
    committed), its line names the uncommitted change's author, as a fresh read does (a ``git
    status`` kept from before the edit named the agent's commit)."""
    vault, mine, _peer = team
    before = reads(vault)[0]
    line = next(ln for ln in before.splitlines() if ln.startswith("- deploy-window "))
    write(mine, {"facts/deploy-window.md": memory("Deploys to staging happen on Tuesdays and Wednesdays",
                                                  "Never on Fridays.")})
    after = reads(vault)[0]
    edited = next(ln for ln in after.splitlines() if ln.startswith("- deploy-window "))
    assert edited.split(":")[0] != line.split(":")[0], (line, edited)  # another author named
    assert after == fresh(mine)[0]


def test_a_warm_read_binds_no_peer_path_and_asks_git_status_once(team, monkeypatch) -> None:
    """Asked again with nothing changed, the session context and a prompt's recall look the
    peers up in the kept table (no statement binds their paths as JSON) and start no ``git
    status``: what a read costs is its hits', not the vault's size (issue 29)."""
    vault, _mine, _peer = team
    first = reads(vault)
    statuses = []
    dirty = authors.dirty_rels
    monkeypatch.setattr(authors, "dirty_rels", lambda ws: statuses.append(1) or dirty(ws))
    statements: list[str] = []
    vault.sidecar.db.conn.set_trace_callback(statements.append)
    try:
        assert reads(vault) == first
    finally:
        vault.sidecar.db.conn.set_trace_callback(None)
    assert statuses == []
    assert any("temp.kept_in_" in s for s in statements)
    assert not any("path NOT IN (SELECT value FROM json_each" in s for s in statements)
    assert not any("by_path NOT IN (SELECT value FROM json_each(:hidden" in s for s in statements)


def test_the_table_and_the_json_list_give_the_same_answers(tmp_path) -> None:
    """The same rule either way: the session context and a prompt's recall with the peers'
    paths as a kept table and as a JSON list give the same text and hits, superseding included
    (a peer's memory that supersedes the person's hides nothing)."""
    vault = new_vault(tmp_path / "v")
    vault.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
    files = peer_files("peer-deploy", 6)
    files["facts/peer-super.md"] = ("---\ndescription: Deploys to staging happen any day\nsupersedes: [deploy-window]\n"
                                    "created: 2026-11-01\nupdated: 2026-11-01\n---\nAny day.\n")
    write(vault.root, files)
    env = {**os.environ, "GIT_AUTHOR_EMAIL": PEER_EMAIL, "GIT_COMMITTER_EMAIL": PEER_EMAIL}
    subprocess.run(["git", "add", "-A"], cwd=vault.root, env=env, check=True)
    subprocess.run(["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", "peer"],
                   cwd=vault.root, env=env, check=True)
    try:
        vault.reconcile()
        peers = vault.peer_memories()
        assert len(peers) == 7
        table = PathTable(vault.sidecar.db, peers)
        listed = tuple(sorted(peers))
        import datetime as dt

        today = dt.date.today()
        texts = [vault.sidecar.render_index(budget_tokens=2000, today=today, hidden=h) for h in (table, listed)]
        assert texts[0] == texts[1] and "deploy-window" in texts[0] and "peer-deploy" not in texts[0]
        hits = [[h.key for h in vault.sidecar.recall(QUERY, k=5, type=None, tags=None, scope=None,
                                                     include_expired=False, today=today, excluded=h,
                                                     distrusted=("facts/peer-super.md",)).hits]
                for h in (table, listed)]
        assert hits[0] == hits[1] == ["deploy-window"]
        table.drop()
        assert table.sql(vault.sidecar.db) is None  # dropped: bound as JSON again, the same answer
        assert vault.sidecar.render_index(budget_tokens=2000, today=today, hidden=table) == texts[0]
    finally:
        vault.close()


def test_a_table_answers_only_for_the_rows_it_was_filled_from(tmp_path) -> None:
    """A table keeps in the rows that are not left out as they were when it was filled: asked
    on another connection (a recovery or a reopen replaced the sidecar's), after a row changed
    (by this connection or another's commit) or once dropped, it gives no SQL and the paths are
    bound as JSON: a row added since is never taken for one kept in."""

    from vault_mem.index.db import Database, driver

    def connected() -> Database:
        path = tmp_path / "x.db"
        return Database(driver().connect(str(path), isolation_level=None), path=path, vec_loaded=False,
                        vec_ok=False, vec_reason=None)

    one, other = connected(), connected()
    one.conn.execute("CREATE TABLE files(path TEXT PRIMARY KEY)")
    one.conn.executemany("INSERT INTO files VALUES (?)", [("a.md",), ("b.md",), ("mine.md",)])
    table = PathTable(one, ["a.md", "b.md"])
    assert table.sql(one) is not None and table.sql(other) is None
    sql, values = left_out_sql(other, "f.path", table)
    assert sql == "f.path NOT IN (SELECT value FROM json_each(?))" and values == ['["a.md", "b.md"]']
    assert [r[0] for r in one.conn.execute(table.sql(one)[1:-1])] == ["mine.md"]
    with one.uncounted():  # a read's write on the side that changes no row (Database.uncounted)
        one.conn.execute("CREATE TEMP TABLE scratch(x)")
    assert table.sql(one) is not None
    for db in (one, other):  # a row added by this connection, then by another's commit
        db.conn.execute("INSERT INTO files VALUES (?)", (f"new-{id(db)}.md",))
        assert table.sql(one) is None and "NOT IN" in left_out_sql(one, "f.path", table)[0]
        table = PathTable(one, ["a.md", "b.md"])
        assert table.sql(one) is not None
    table.drop()
    assert table.sql(one) is None
    one.conn.execute("BEGIN")
    with pytest.raises(ValueError):  # a rollback of the caller's transaction would empty it
        PathTable(one, ["c.md"])
    one.conn.execute("ROLLBACK")


def test_a_recall_asked_again_without_the_peers_embeds_its_query_once(tmp_path) -> None:
    """A recall whose hits are a peer's is asked again without them: the second search takes
    the query's vector the first made (the local model's pass was the larger part of what that
    case cost the MCP server, issue 29), and finds what a recall with a fresh vector finds."""
    from conftest import real_embedder

    model = real_embedder()
    asked: list[str] = []

    class Counted:
        """The real local model, its query passes counted."""

        def __getattr__(self, name):
            return getattr(model, name)

        def embed_batch(self, texts, kind="passage"):
            if kind == "query":
                asked.extend(texts)
            return model.embed_batch(texts, kind=kind)

    root = new_vault(tmp_path / "v").root
    with Vault(root, embedder=Counted()) as vault:
        vault.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
        write(root, peer_files("peer-deploy", 6))
        env = {**os.environ, "GIT_AUTHOR_EMAIL": PEER_EMAIL, "GIT_COMMITTER_EMAIL": PEER_EMAIL}
        subprocess.run(["git", "add", "-A"], cwd=root, env=env, check=True)
        subprocess.run(["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", "peer"],
                       cwd=root, env=env, check=True)
        vault.reconcile()
        query = "when do deploys to staging happen"
        asked.clear()
        hits = vault.recall(query, k=3).hits
        assert [h.key for h in hits if h.trusted] == ["deploy-window"] and not all(h.trusted for h in hits)
        assert asked.count(query) == 1, asked
    with Vault(root, embedder=model) as fresh_vault:  # another embedder object: its own vector
        assert [h.key for h in fresh_vault.recall(query, k=3).hits] == [h.key for h in hits]


def temp_tables(vault: Vault) -> set[str]:
    return {r[0] for r in vault.sidecar.db.execute("SELECT name FROM sqlite_temp_master WHERE type = 'table'")}


def test_a_judgement_no_read_leaves_out_fills_no_table(team) -> None:
    """The MCP server's start-up thread judges the peers on a vault of its own and hands the
    judgement to the served vault, then closes its own: no read of that vault leaves the peers
    out, so no table of its connection is filled (at 100k peers' memories, ~100k rows for
    nothing, on the first answer's path: issue 29). The served vault's first read that leaves
    them out fills its own, which keeps in exactly what the judgement does not hold; a read
    after it uses the same table (brought along, not filled again)."""
    vault, mine, peer = team
    vault.reconcile()
    with Vault(mine) as starter:
        assert starter.judge_peers(to=vault) == N_PEER + 1
        assert not temp_tables(starter)
    assert not temp_tables(vault)
    text, peers, hook = reads(vault)
    assert (text, peers, hook) == fresh(mine)
    assert "deploy-window" in hook and not any(k.startswith("peer-deploy") for k in hook)
    made = temp_tables(vault)
    assert len(made) == 1
    assert table_rows(vault) == kept_in(vault, peers)
    assert reads(vault) == (text, peers, hook)
    assert temp_tables(vault) == made
