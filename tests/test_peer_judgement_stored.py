"""The peers' judgement kept in the sidecar for the next process (:mod:`vault_mem.vault.peers`,
``kept_judgement``, issue 29): a process that starts brings the last judgement along what
changed since ("stored"), not judging every memory again, and answers as the whole judgement;
it is not used (the whole judgement instead) when what it was made from cannot be told again.
The random sequences of real changes that compare one-shot processes with the whole judgement
step by step are in ``tests/test_peer_judged_again.py``. Real git, real SQLite, real processes'
records."""

from __future__ import annotations

import json
import random

from test_peer_judged_again import World

from vault_mem import Vault
from vault_mem.store.provenance import record_file
from vault_mem.vault import peers
from vault_mem.vault.peers import KeptPeers


def whole(root) -> dict:
    with Vault(root) as fresh:
        fresh._kept_peers = KeptPeers(stored=False)
        fresh.reconcile()
        return dict(fresh.render_trusted_index()[2])


def opened_how(root) -> tuple[str, dict]:
    """How a vault opened anew (a one-shot command) judged, and its answer."""
    with Vault(root) as vault:
        vault.reconcile()
        found = dict(vault.render_trusted_index()[2])
        return vault._kept_peers.last.how, found


def test_a_new_process_brings_the_kept_judgement_along_and_answers_as_the_whole(tmp_path) -> None:
    """On main every vault opened anew judged every memory (the prompt hook: ~1.9 s of CPU at
    100k peers' memories, per prompt); now the second one brings the first's judgement along,
    also across an agent's write and a hand edit made between them."""
    world = World(tmp_path, random.Random(5))
    try:
        assert opened_how(world.root)[0] == "whole"  # none kept yet
        how, found = opened_how(world.root)
        assert how == "stored" and found == whole(world.root) and len(found) == 72
        world.agent_write_elsewhere()
        world.hand_keeps_a_line()
        how, found = opened_how(world.root)
        assert how == "stored" and found == whole(world.root)
    finally:
        world.warm.close()


def test_two_warm_processes_do_not_make_each_other_judge_again_through_the_kept_row(tmp_path) -> None:
    """A judgement another process made of the same state is the same judgement: nothing is
    written, so the first process's next read finds its rows' stamp where it was (kept). Without
    that check, once a change moved the judgement itself, each process's write of its own
    judgement moved the other's stamp (``PRAGMA data_version``) and every read of either judged
    again and wrote the whole judgement again."""
    world = World(tmp_path, random.Random(6))
    other = Vault(world.root)
    try:
        world.warm.render_trusted_index()
        assert world.warm._kept_peers.last.how in ("whole", "stored")
        other.render_trusted_index()
        assert other._kept_peers.last.how == "stored"
        for i in range(3):  # a peer's memory rewritten by hand: the judgement itself changes
            (world.root / f"facts/peer-{i:03d}.md").write_text("---\ndescription: The person's own\n---\nMine.\n")
            for vault in (world.warm, other):
                vault.reconcile()
                vault.render_trusted_index()
            for vault in (world.warm, other):
                vault.render_trusted_index()
                assert vault._kept_peers.last.how == "kept", vault._kept_peers.last
    finally:
        other.close()
        world.warm.close()


def test_what_the_kept_judgement_was_made_from_that_cannot_be_told_again_means_the_whole_judgement(tmp_path) -> None:
    """The record of the commits made here rewritten (not appended to: a commit forgotten), the
    approvals changed, or the row kept by other code: the whole judgement; a commit appended to
    the record (a write made here): brought along."""
    world = World(tmp_path, random.Random(7))
    try:
        assert opened_how(world.root)[0] == "whole"
        world.agent_write_elsewhere()  # appended to the record
        assert opened_how(world.root)[0] == "stored"
        record = record_file(world.root / ".git")
        lines = record.read_text().splitlines()
        record.write_text("\n".join([*lines[1:], lines[0]]) + "\n")  # the same ids, not a prefix any more
        how, found = opened_how(world.root)
        assert how == "whole" and found == whole(world.root)
        assert opened_how(world.root)[0] == "stored"
        world.approve()
        how, found = opened_how(world.root)
        assert how == "whole" and found == whole(world.root) == {}
        world.approve()  # withdrawn
        assert opened_how(world.root)[0] == "whole"
        code = peers._CODE
        peers._CODE = "another vault-mem"
        try:
            how, found = opened_how(world.root)
        finally:
            peers._CODE = code
        assert how == "whole" and found == whole(world.root)
        assert opened_how(world.root)[0] == "whole"  # kept by "another" code just now
        assert opened_how(world.root)[0] == "stored"
    finally:
        world.warm.close()


def test_a_kept_row_whose_log_entry_the_log_never_reached_is_judged_whole(tmp_path) -> None:
    """A kept row naming a log entry past the log's newest (a row of another moment of the file
    than its log) cannot say what changed since: the whole judgement."""
    world = World(tmp_path, random.Random(8))
    try:
        assert opened_how(world.root)[0] == "whole"
        with Vault(world.root) as vault:
            db = vault.sidecar.db
            state = db.execute("SELECT state FROM kept_judgement").fetchone()[0]
            bumped = json.loads(state)
            bumped["seq"] += 10**6
            with db.write():
                db.execute("UPDATE kept_judgement SET state = ?", (json.dumps(bumped, sort_keys=True),))
        how, found = opened_how(world.root)
        assert how == "whole" and found == whole(world.root)
    finally:
        world.warm.close()


def test_the_mcp_server_judges_the_peers_at_start_up_and_its_first_recall_brings_that_along(tmp_path, monkeypatch) -> None:
    """The MCP server judges the peers' memories on a thread of its start-up (a vault of its
    own: :meth:`Startup._judge`) and keeps the judgement in the sidecar; its first recall whose
    hits are a peer's (asked again without them) brings that along ("stored") instead of judging
    every memory while the client waits (~1.9 s of CPU at 100k peers' memories on main, paid by
    the first full answer), and answers as the whole judgement does."""
    import anyio
    from mcp import Client

    from vault_mem.adapters.mcp_server import Startup, build_server

    import threading

    from vault_mem.vault import authors

    world = World(tmp_path, random.Random(9))
    world.warm.close()
    wholes: list[str] = []  # the threads that judged every memory
    judgement = authors.peer_judgement

    def counted(*args, only=None, **kwargs):
        if only is None:
            wholes.append(threading.current_thread().name)
        return judgement(*args, only=only, **kwargs)

    monkeypatch.setattr(authors, "peer_judgement", counted)
    vault = Vault(world.root)
    startup = Startup(vault, lambda: Vault(world.root), wait_s=60.0)
    hits: list = []

    async def session() -> None:
        async with Client(build_server(vault, startup), read_timeout_seconds=60) as client:
            r = await client.call_tool("recall", {"query": "deploys to staging"})
            assert not r.is_error, r.content
            hits.append(r)

    try:
        startup.preload()
        anyio.run(session)
        assert startup.judged.is_set()
        assert wholes == ["vault-mem-judge"], wholes  # the start-up's alone, not the recall's
        assert vault._kept_peers.judgements >= 1
        assert dict(vault.render_trusted_index()[2]) == whole(world.root)
    finally:
        startup.close()
        vault.close()


def test_code_changed_since_the_process_started_stamps_a_judgement_no_other_process_brings_along(monkeypatch):
    """Review: the code's stamp was taken at the first judgement, from the files on disk; a
    daemon started before an upgrade stamped its old rules' judgement with the new code's files,
    and new processes brought that judgement along. A module file changed since this process
    imported the judgement's module gives a stamp no other process has."""
    monkeypatch.setattr(peers, "_IMPORTED_NS", 10**30)  # every file older than the import
    assert peers._code_stamp() == peers._code_stamp()
    monkeypatch.setattr(peers, "_IMPORTED_NS", 0)  # every file changed since
    first, second = peers._code_stamp(), peers._code_stamp()
    assert first != second and "changed since" in first


def test_the_start_up_judgement_made_while_another_writer_holds_the_lock_is_kept_once_it_frees(tmp_path) -> None:
    """Review of oneshot29: the MCP server's start-up judgement was kept with a write that never
    waits (a cache's), so another process holding the sidecar's lock at that moment (a daemon's
    or a hook's write, a sync) lost it, and every later process judged every memory again (~1.9 s
    of CPU at 100k peers' memories). Now the served vault brings the start-up's judgement along
    at once (its first answer does not wait for the lock), and the start-up thread keeps it in
    the sidecar once the lock frees, so the next process brings it along too ("stored")."""
    import subprocess
    import sys
    import threading

    from vault_mem.adapters.mcp_server import Startup
    from vault_mem.index.kept_judgement import kept_judgement

    world = World(tmp_path, random.Random(10))
    world.warm.render_trusted_index()  # the texts' origins scanned (a read's write of its own)
    world.warm.close()
    vault = Vault(world.root)
    startup = Startup(vault, lambda: Vault(world.root), wait_s=60.0)
    # another process: none kept yet (a first start, another code's row), then the lock held
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
         "c.execute('DELETE FROM kept_judgement'); c.execute('BEGIN IMMEDIATE'); print('held', flush=True); "
         "sys.stdin.readline(); c.execute('ROLLBACK')", str(vault.sidecar.db.path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        try:
            startup.preload()
            assert startup.judged.wait(120)  # judged, whatever the lock: the first read waits for no lock
            found = vault.judge_peers()  # the served vault's first read that needs the judgement
            assert vault._kept_peers.last.how == "stored", vault._kept_peers.last
        finally:
            holder.stdin.write("\n")  # the lock frees
            holder.stdin.flush()
            holder.wait(60)
        for thread in threading.enumerate():
            if thread.name == "vault-mem-judge":
                thread.join(120)
        assert kept_judgement(vault.sidecar.db) is not None
        how, answer = opened_how(world.root)
        assert how == "stored" and answer == whole(world.root) and len(answer) == found
    finally:
        holder.kill()
        startup.close()
        vault.close()


def test_a_kept_row_written_waiting_gives_up_when_the_lock_stays_held_and_never_raises(tmp_path) -> None:
    """``keep_judgement(wait=True)`` waits for another writer a bounded number of times, then
    gives the row up (None) as a cache does; nothing raised to the start-up thread."""
    import subprocess
    import sys

    from vault_mem.index.kept_judgement import BUSY_ATTEMPTS, keep_judgement, kept_judgement

    world = World(tmp_path, random.Random(11))
    world.warm.close()
    holder = None
    with Vault(world.root) as vault:
        db = vault.sidecar.db
        holder = subprocess.Popen(
            [sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
             "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); sys.stdin.readline(); c.execute('ROLLBACK')",
             str(db.path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        try:
            assert holder.stdout.readline().strip() == "held"
            db.execute("PRAGMA busy_timeout = 20")
            calls: list[int] = []
            assert keep_judgement(db, "a state", None, lambda: calls.append(1) or [], wait=True) is None
            assert BUSY_ATTEMPTS > 1 and calls == []
        finally:
            holder.communicate("\n", timeout=60)
        assert keep_judgement(db, "a state", None, lambda: [("facts/a.md", None, None)], fresh="t1", wait=True) == "t1"
        assert kept_judgement(db) == ("a state", "t1", [("facts/a.md", None, None)])


def test_a_judgement_brought_along_a_change_rewrites_the_paths_judged_again_not_every_path(tmp_path) -> None:
    """Review of oneshot29: the kept judgement was one JSON value (~7 MB at 100k peers'
    memories) rewritten whole whenever the judgement moved. Now a row per path: a judgement
    brought along one hand edit from the row's own writes that path's row (and the small state
    row), and the next process brings it along as the whole judgement answers."""
    world = World(tmp_path, random.Random(13))
    try:
        warm = world.warm
        warm.reconcile()
        warm.render_trusted_index()
        db = warm.sidecar.db
        assert db.execute("SELECT count(*) FROM kept_judgement_paths").fetchone()[0] >= 72
        (world.root / "facts/peer-005.md").write_text("---\ndescription: The person's own\n---\nMine.\n")
        warm.reconcile()
        before = db.conn.total_changes
        found = dict(warm.render_trusted_index()[2])
        assert warm._kept_peers.last.how == "changed"
        written = db.conn.total_changes - before
        # the path's row, the state row and the read's other small writes (its temporary table of
        # the paths not left out, caches), not every path's row again (72 dropped, 72 written)
        assert 1 <= written < 20, written
        assert "facts/peer-005.md" not in found
        how, answer = opened_how(world.root)
        assert how == "stored" and answer == found == whole(world.root)
    finally:
        world.warm.close()


def test_a_warm_vault_whose_index_was_deleted_and_made_again_answers_as_the_whole_judgement(tmp_path) -> None:
    """Found by mcp30: a warm vault (the MCP server, the daemon) keeps the paths its judgement
    leaves in a temporary table of its sidecar's connection. When the index file is replaced
    (the person deletes it, as its refusal message says to; another process moves a damaged one
    aside), the vault follows it to a new connection and closes the old one; its next judgement
    dropped the old table through the closed connection and the read failed (ProgrammingError)."""
    world = World(tmp_path, random.Random(14))
    try:
        warm = world.warm
        warm.reconcile()
        assert warm.render_trusted_index()[2]  # judged: the table made
        path = warm.sidecar.db.path
        for name in (path.name, path.name + "-wal", path.name + "-shm"):
            (path.parent / name).unlink(missing_ok=True)
        warm.reconcile()  # follows the replaced file: a new connection, the old one closed
        found = dict(warm.render_trusted_index()[2])
        assert found == whole(world.root)
    finally:
        world.warm.close()
