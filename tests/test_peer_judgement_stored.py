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


def hold_the_lock(path):
    """Another process holding the sidecar's write lock (``BEGIN IMMEDIATE``) until a line is
    written to its stdin: a connection of this process does not block the sqlean driver's."""
    import subprocess
    import sys

    holder = subprocess.Popen(
        [sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
         "c.execute('BEGIN IMMEDIATE'); print('held', flush=True); sys.stdin.readline(); c.execute('ROLLBACK')",
         str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    return holder


def counted_attempts(monkeypatch, on_busy=None) -> list[bool]:
    """Each attempt of ``keep_judgement`` to write the row (the real one), as whether it found
    the lock busy; ``on_busy()`` called at each busy one."""
    from vault_mem.index import kept_judgement as kj
    from vault_mem.index.db import is_busy

    real, attempts = kj._keep, []

    def attempt(*args):
        try:
            found = real(*args)
        except Exception as exc:
            attempts.append(is_busy(exc))
            if is_busy(exc) and on_busy is not None:
                on_busy()
            raise
        attempts.append(False)
        return found

    monkeypatch.setattr(kj, "_keep", attempt)
    return attempts


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


def test_a_kept_row_written_waiting_gives_up_when_the_lock_stays_held_and_never_raises(tmp_path, monkeypatch) -> None:
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
            attempts = counted_attempts(monkeypatch)
            assert keep_judgement(db, "a state", None, lambda: calls.append(1) or [], wait=True) is None
            # it really waited, BUSY_ATTEMPTS times (a constant > 1 said nothing of the loop)
            assert len(attempts) == BUSY_ATTEMPTS > 1 and calls == []
        finally:
            holder.communicate("\n", timeout=60)
        assert keep_judgement(db, "a state", None, lambda: [("facts/a.md", None, None)], fresh="t1", wait=True) == "t1"
        assert kept_judgement(db) == ("a state", "t1", [("facts/a.md", None, None)])


def test_a_dropped_judgement_leaves_no_row_and_a_keep_writes_one_again(tmp_path) -> None:
    """``drop_judgement`` (a judgement made from origins the sidecar could not hold) leaves the
    next process nothing to bring along; it was ``keep_judgement(db, None, None, str)``, a keep
    of no state with a dummy judgement."""
    from vault_mem.index.kept_judgement import drop_judgement, keep_judgement, kept_judgement

    world = World(tmp_path, random.Random(12))
    world.warm.close()
    with Vault(world.root) as vault:
        db = vault.sidecar.db
        assert keep_judgement(db, "a state", None, lambda: [("facts/a.md", None, None)], fresh="t1") == "t1"
        drop_judgement(db)
        assert kept_judgement(db) is None
        assert db.execute("SELECT count(*) FROM kept_judgement_paths").fetchone()[0] == 0
        drop_judgement(db)  # none to drop: nothing happens
        assert keep_judgement(db, "a state", None, lambda: [("facts/b.md", None, None)], fresh="t2") == "t2"
        assert kept_judgement(db) == ("a state", "t2", [("facts/b.md", None, None)])


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


def test_a_peers_memory_deleted_leaves_the_kept_judgement_brought_along_by_the_next_process(tmp_path) -> None:
    """Review of offer30: the rule that leaves a newer kept row alone was put between a delta's
    making and its deletion of the paths that left the judgement, so the deletion never ran: after
    a peer's memory was deleted and committed, the next one-shot process brought the kept rows
    along ("stored") and still named the deleted file a peer's memory."""
    import subprocess

    world = World(tmp_path, random.Random(13))
    try:
        warm = world.warm
        warm.reconcile()
        assert "facts/peer-005.md" in dict(warm.render_trusted_index()[2])
        for args in (["rm", "-q", "facts/peer-005.md"], ["commit", "-q", "-m", "drop a peer's note"]):
            subprocess.run(["git", *args], cwd=world.root, check=True, capture_output=True)
        warm.reconcile()
        found = dict(warm.render_trusted_index()[2])
        assert warm._kept_peers.last.how == "changed" and "facts/peer-005.md" not in found
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


def test_a_start_up_judgement_offered_after_the_served_vault_judged_is_not_brought_along_later(tmp_path) -> None:
    """Review of mcp30 (reproduced): the MCP server's start-up judgement was offered to the
    served vault and left pending until a read found no judgement of its own. When the served
    vault had judged already (its first read gave up waiting for the start-up), the offer stayed
    for the server's life and was brought along at the first read after a merge (which keeps no
    judgement) however old, and against an index file replaced meanwhile: the old file's judge
    log entry read against the new file's log missed the hand edit made before the replacement,
    and a memory the person had made their own was still left out as a peer's ("stored"). Now
    an offer made after the served vault answered is refused, and an offer is brought along
    only against the index file it was made from."""
    import subprocess

    world = World(tmp_path, random.Random(20))
    try:
        served = world.warm
        served.reconcile()
        served.render_trusted_index()  # the served vault judged: the start-up's came too late
        with Vault(world.root) as starter:
            starter.judge_peers(to=served)
        assert served._kept_peers._offered is None  # refused: the served vault answered already
        # the person makes a peer's memory their own; the index file is replaced (deleted, as
        # its refusal message says to: made again from the files)
        (world.root / "facts/peer-004.md").write_text("---\ndescription: The person's own\n---\nMine.\n")
        path = served.sidecar.db.path
        for name in (path.name, path.name + "-wal", path.name + "-shm"):
            (path.parent / name).unlink(missing_ok=True)
        served.reconcile()
        # a merge under way: nothing kept (the judgement of its own dropped)
        merge_head = world.root / ".git" / "MERGE_HEAD"
        merge_head.write_text(subprocess.run(["git", "rev-parse", "HEAD"], cwd=world.root, capture_output=True,
                                             text=True, check=True).stdout)
        served.render_trusted_index()
        merge_head.unlink()
        (world.root / "facts/peer-005.md").write_text("---\ndescription: The person's own too\n---\nMine.\n")
        served.reconcile()
        found = dict(served.render_trusted_index()[2])
        assert "facts/peer-004.md" not in found and "facts/peer-005.md" not in found
        assert found == whole(world.root)
    finally:
        world.warm.close()


def test_a_start_up_judgement_made_from_a_replaced_index_file_is_not_brought_along(tmp_path) -> None:
    """Review of mcp30: an offered judgement was bound to the served vault's connection whatever
    index file that reads. Offered before the served vault's first read, then the file replaced
    (a hand edit meanwhile): its judge log entry counted in the old file, read against the new
    file's log, named the edit as judged already. Now the offer is tied to its file (the random
    id the file was given when made here, and its device and inode): another file's offer is
    not brought along; the new file's own row (none here) or the whole judgement is."""
    world = World(tmp_path, random.Random(22))
    world.warm.close()
    with Vault(world.root) as served:
        with Vault(world.root) as starter:
            starter.judge_peers(to=served)  # offered: the served vault has not answered yet
        (world.root / "facts/peer-004.md").write_text("---\ndescription: The person's own\n---\nMine.\n")
        path = served.sidecar.db.path
        for name in (path.name, path.name + "-wal", path.name + "-shm"):
            (path.parent / name).unlink(missing_ok=True)
        served.reconcile()  # follows the new file, made again from the files
        (world.root / "facts/peer-005.md").write_text("---\ndescription: The person's own too\n---\nMine.\n")
        served.reconcile()  # the new file's log past the old one's entry
        found = dict(served.render_trusted_index()[2])
        assert served._kept_peers.last.how == "whole", served._kept_peers.last
        assert "facts/peer-004.md" not in found and found == whole(world.root)


def test_the_start_up_write_that_waited_for_the_lock_leaves_the_newer_row_the_served_vault_wrote(
        tmp_path, monkeypatch) -> None:
    """Review of mcp30: the start-up thread writes its judgement to the sidecar after handing it
    to the served vault, waiting for another writer's lock (up to BUSY_ATTEMPTS x the busy
    timeout). Meanwhile the served vault's reads bring it along a change and write their delta
    (a row of a later judge log entry, under a token of their own); the waiting write then wrote
    the older judgement over it, whole, so the served vault's next change found the row
    another's and wrote every path again (~100k rows). Now the waiting write leaves a row as new
    as its own; the served vault's next change writes its few paths."""
    from vault_mem.index.kept_judgement import kept_judgement

    world = World(tmp_path, random.Random(21))
    world.warm.reconcile()
    world.warm.render_trusted_index()  # a row kept
    world.warm.close()
    holders = []
    with Vault(world.root) as served, Vault(world.root) as starter:
        starter.sidecar.db.execute("PRAGMA busy_timeout = 50")
        newer = []

        def release() -> None:
            if holders and holders[-1].poll() is None:
                holders[-1].communicate("\n", timeout=60)

        attempts = counted_attempts(monkeypatch, on_busy=release)

        def meanwhile() -> None:  # the served thread's turn (Startup.judged set), before the start-up's write
            (world.root / "facts/peer-005.md").write_text("---\ndescription: The person's own\n---\nMine.\n")
            served.reconcile()
            served.render_trusted_index()
            assert served._kept_peers.last.how == "stored", served._kept_peers.last
            newer.append(kept_judgement(served.sidecar.db))
            assert newer[0][1] == served._kept_peers.made.token  # the served vault's own row
            holders.append(hold_the_lock(served.sidecar.db.path))  # another writer, then
            newer.append(len(attempts))  # the start-up's attempts from here on

        try:
            starter.judge_peers(to=served, judged=meanwhile)
        finally:
            release()
        held = attempts[newer[1]:]
        assert held[0] is True and held[-1] is False  # it waited for the lock, then wrote
        assert kept_judgement(served.sidecar.db) == newer[0]  # the newer row, as it was
        # the served vault's next change writes the paths it judged again, not every path
        (world.root / "facts/peer-006.md").write_text("---\ndescription: The person's own too\n---\nMine.\n")
        served.reconcile()
        db = served.sidecar.db
        before = db.conn.total_changes
        found = dict(served.render_trusted_index()[2])
        assert served._kept_peers.last.how == "changed"
        assert db.conn.total_changes - before < 20
        how, answer = opened_how(world.root)
        assert how == "stored" and answer == found == whole(world.root)
