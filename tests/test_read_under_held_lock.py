"""A read whose derived state has something new to record (the texts' origins after a fetch)
while another process holds the sidecar's write lock past the busy timeout: the read answers as
a fresh whole judgement does and raises nothing; the record is given up (the sidecar is derived
state: docs/design.md, RELIABILITY.md), made by a later read once the lock frees. Real git, a
real remote, a real second process holding ``BEGIN IMMEDIATE`` (a connection of this process
would not block the sqlean driver)."""

from __future__ import annotations

import random

from test_peer_judged_again import World, run
from test_peer_judgement_stored import hold_the_lock as _hold
from test_peer_judgement_stored import whole

from vault_mem import Vault
from vault_mem.index import authors as rows
from vault_mem.index import db as dbmod
from vault_mem.store import history
from vault_mem.vault import authors


def test_a_read_with_new_origins_to_record_answers_while_another_process_holds_the_lock(tmp_path, monkeypatch) -> None:
    """Before: ``Origins._scan`` recorded the new texts' origins with a write that waited for the
    lock (15 s), then raised ``database is locked``: the recall and the peers' judgement failed."""
    world = World(tmp_path, random.Random(30))
    world.warm.render_trusted_index()  # the origins so far recorded
    world.warm.close()
    world.peer_pushes()
    assert run(world.root, "fetch", "-q", "origin").returncode == 0  # new texts: origins to record
    with Vault(world.root) as probe:
        db_path = probe.sidecar.db.path
        stamp = history.refs_stamp(probe.ws.repo)
        assert rows.origins_state(probe.sidecar.db, stamp) is not None  # something new to scan
    busy = dbmod.BUSY_TIMEOUT_MS
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", 50)  # the busy timeout of the vaults opened below
    holder = _hold(db_path)
    try:
        with Vault(world.root) as vault:
            judged = dict(vault.render_trusted_index()[2])
            hits = vault.recall("staging deploys", k=5)
    finally:
        holder.communicate("\n", timeout=60)
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", busy)  # (undo() would undo the fixtures' settings too)
    held = list(authors._UNSTORED.get(str(world.root), {}))
    assert held  # the texts' origins this process had to keep in memory
    expected = whole(world.root)
    assert judged == expected and len(expected) > 0
    assert hits is not None
    with Vault(world.root) as after:  # the lock freed: a read records what was given up
        assert dict(after.render_trusted_index()[2]) == expected
        assert rows.origins_state(after.sidecar.db, history.refs_stamp(after.ws.repo)) is None
        # last read: the next scan skipped the texts held in memory and recorded the refs without
        # them, so no other process ever read their origins (a peer's text passed as the person's)
        assert len(rows.origins_of(after.sidecar.db, held)) == len(held)
    assert str(world.root) not in authors._UNSTORED


def test_a_read_after_head_moved_answers_while_another_process_holds_the_lock(tmp_path, monkeypatch) -> None:
    """HEAD moved by git alone (no hook ran): the files, the authors' rows, the committed view
    and the texts' origins are all behind. Before: the read's reconcile, then the committed view
    (``committed.bring_to``) waited and raised ``database is locked``. Now the peers' judgement
    is worked out in memory and answers as the whole judgement does; recall, list and get
    answer from the rows as they are and say so."""
    world = World(tmp_path, random.Random(31))
    world.warm.render_trusted_index()
    world.warm.close()
    world.peer_pushes()
    assert run(world.root, "fetch", "-q", "origin").returncode == 0
    with Vault(world.root) as probe:
        db_path = probe.sidecar.db.path
    assert run(world.root, "-c", "core.hooksPath=/dev/null", "merge", "-q", "--no-edit", "origin/main").returncode == 0
    busy = dbmod.BUSY_TIMEOUT_MS
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", 50)
    holder = _hold(db_path)
    try:
        with Vault(world.root) as vault:
            judged = dict(vault.render_trusted_index()[2])
            hits = vault.recall("staging deploys", k=5)
            listed = vault.list()
            got = vault.get("deploy-window")
            said = list(vault.notices)
    finally:
        holder.communicate("\n", timeout=60)
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", busy)  # (undo() would undo the fixtures' settings too)
    expected = whole(world.root)
    assert judged == expected and len(expected) > 0
    assert hits is not None and listed and got.body.startswith("Never on Fridays")
    # the rows not brought in line with the merged files: said, never an answer passed off as current
    assert any("answers may miss the latest edits" in note and "write lock" in note for note in said), said
    with Vault(world.root) as after:  # the lock freed: the next read brings the rows in line
        after.list()
        assert sorted(e["path"] for e in after.sidecar.list_entries()) == world.memories()


def test_a_read_after_an_approval_answers_while_another_process_holds_the_lock(tmp_path, monkeypatch) -> None:
    """An approval changed (no file did): a read works the keys' owners out again and records
    them (``Vault._owners_follow_approvals``). Before: with the lock held elsewhere that write
    waited and raised ``database is locked``; now the read answers from the rows as they are,
    saying so, and the peers' judgement (which follows the approvals itself) is the whole one."""
    world = World(tmp_path, random.Random(32))
    world.warm.render_trusted_index()
    db_path = world.warm.sidecar.db.path
    world.warm.close()
    world.approve()
    busy = dbmod.BUSY_TIMEOUT_MS
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", 50)
    holder = _hold(db_path)
    try:
        with Vault(world.root) as vault:
            listed = vault.list()
            judged = dict(vault.render_trusted_index()[2])
            said = list(vault.notices)
    finally:
        holder.communicate("\n", timeout=60)
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", busy)  # (undo() would undo the fixtures' settings too)
    assert listed and judged == whole(world.root)
    assert any("write lock" in note for note in said), said


def test_a_git_hook_whose_index_work_is_given_up_for_a_held_lock_says_so(tmp_path, monkeypatch) -> None:
    """Last read of lock30: the post-checkout hook's reconcile (``whole_index``: INDEX.md must
    match the files checked out) was given up for another process's lock with its notice
    dropped: INDEX.md could go on listing the other branch's files, nothing said."""
    from conftest import new_vault

    from vault_mem.adapters import hooks

    vault = new_vault(tmp_path / "v")
    vault.remember("ci", "CI runs on Buildkite", "")
    root, db_path = vault.root, vault.sidecar.db.path
    vault.close()
    (root / "facts" / "by-hand.md").write_text("---\ndescription: Written by hand\n---\nBy hand.\n")
    busy = dbmod.BUSY_TIMEOUT_MS
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", 50)
    monkeypatch.setenv("VAULT_MEM_DAEMON", "off")
    holder = _hold(db_path)
    try:
        code, out, err = hooks._HANDLERS["post-checkout"]("", str(root), ["x", "y", "1"])
    finally:
        holder.communicate("\n", timeout=60)
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", busy)
    assert code == 0 and "write lock" in err and "vault-mem index --write" in err, err


def test_busy_is_told_by_sqlites_code_or_words_never_by_a_word_of_the_path(tmp_path) -> None:
    """Last read of lock30: busy was any "locked" or "busy" in an error's text, and an
    ``IndexStoreError`` carries the index's path: under a folder named ``blocked`` a full disk was
    taken for another process's lock (a read's notice instead of the error). A real SQLITE_BUSY
    from a second process, and the error a read makes of it, are still busy."""
    from vault_mem.errors import IndexStoreError

    folder = tmp_path / "blocked"
    folder.mkdir()
    assert not dbmod.is_busy(IndexStoreError(f"{folder}/index.db: database or disk is full"))
    db_path = folder / "index.db"
    import sqlite3

    sqlite3.connect(db_path).execute("CREATE TABLE t(x)").connection.close()
    holder = _hold(db_path)
    try:
        import sqlean

        conn = sqlean.connect(str(db_path), isolation_level=None, timeout=0)
        try:
            conn.execute("BEGIN IMMEDIATE")
            raise AssertionError("the lock was not held")
        except sqlean.OperationalError as exc:
            busy = exc
        conn.close()
    finally:
        holder.communicate("\n", timeout=60)
    assert dbmod.is_busy(busy)
    assert dbmod.is_busy(IndexStoreError(f"{db_path}: another process holds the index's write lock ({busy})"))


def test_the_forget_tool_says_what_went_wrong_after_its_commit(tmp_path, monkeypatch) -> None:
    """Final read: the MCP ``forget`` tool dropped its warnings ("a forget has none"), though a
    forget's tidying up after its commit can fail as a remember's can (here: another process
    takes the index's write lock right after the commit, past the busy timeout). The agent is
    told, in its wording, as for ``remember``."""
    import threading

    from conftest import new_vault

    from vault_mem.adapters import tools

    vault = new_vault(tmp_path / "v")
    vault.remember("ci", "CI runs on Buildkite", "")
    busy = dbmod.BUSY_TIMEOUT_MS
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", 50)
    vault.sidecar.db.conn.execute("PRAGMA busy_timeout = 50")
    monkeypatch.setenv("VAULT_MEM_PAUSE_AT", "after-commit")
    state = vault.ws.state_dir
    out: list = []
    worker = threading.Thread(target=lambda: out.append(tools.call_tool(vault, "forget", {"key": "ci"})))
    worker.start()
    for _ in range(1200):
        if (state / "paused-after-commit").exists():
            break
        worker.join(0.05)
    assert (state / "paused-after-commit").exists()
    holder = _hold(vault.sidecar.db.path)
    try:
        (state / "resume-after-commit").write_text("")
        worker.join(120)
    finally:
        holder.communicate("\n", timeout=60)
    monkeypatch.setattr(dbmod, "BUSY_TIMEOUT_MS", busy)
    vault.close()
    result = out[0]
    assert not result.is_error, result.text
    assert any("committed, but tidying up after the commit failed" in w for w in result.data.get("warnings", [])), \
        result.data
