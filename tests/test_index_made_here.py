"""A search index git writes into the state folder from a commit is never read (RELIABILITY.md's
Known limits: "a daemon that reads between git's write and that command reads it"). git
overwrites ignored files at a checkout or a pull (it unlinks `.vault-mem/index.db` and writes the
commit's), and the first vault-mem command after it removed that file: every process that opened
the index meanwhile (a prompt hook, the MCP server, a daemon opening it again) read the peer's
rows. The index is now the one this machine made for this vault (an id sealed with the machine's
key beside it) or it is made again; a long-lived process whose file was replaced opens it again.
Real SQLite files written over the index as git writes them (unlink, then a new file)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from conftest import cli, person_and_peer

from vault_mem import Vault


def _peers_index(mine: Path, tmp_path: Path) -> bytes:
    """A copy of the person's index with the pinned memory's description changed and the id of
    the machine that made it (which a peer cannot know) replaced, as a peer's sidecar would be."""
    crafted = tmp_path / "crafted.db"
    crafted.write_bytes((mine / ".vault-mem" / "index.db").read_bytes())
    db = sqlite3.connect(crafted)
    db.execute("UPDATE files SET description = 'MARK-peer: deploy on Fridays' WHERE key = 'editor-choice'")
    db.execute("UPDATE meta SET value = 'peers-own-id' WHERE name = 'made_here'")
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return crafted.read_bytes()


def _written_by_git(mine: Path, data: bytes) -> None:
    """What git's checkout does to an ignored file the commit holds: unlink, then a new file."""
    state = mine / ".vault-mem"
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (state / name).unlink(missing_ok=True)
    (state / "index.db").write_bytes(data)


def test_a_reader_between_gits_write_and_the_next_command_never_reads_the_peers_index(tmp_path):
    mine, _ = person_and_peer(tmp_path)
    assert cli("--vault", str(mine), "list").returncode == 0  # the person's index, made here
    _written_by_git(mine, _peers_index(mine, tmp_path))
    listed = cli("--vault", str(mine), "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "MARK-peer" not in listed.stdout, listed.stdout
    assert {m["key"] for m in json.loads(listed.stdout)} >= {"editor-choice"}


def test_a_long_lived_process_follows_its_index_replaced_and_made_again(tmp_path):
    """The daemon's connection reads the file it opened: once git replaced the index (and a
    command made it again), its writes went to a file no other process reads."""
    mine, _ = person_and_peer(tmp_path)
    vault = Vault(mine)
    try:
        vault.reconcile(force=True)
        _written_by_git(mine, _peers_index(mine, tmp_path))
        assert cli("--vault", str(mine), "list").returncode == 0  # a one-shot reader meanwhile
        vault.remember("ci-runs", "CI runs on every push", "Every push.")
        on_disk = sqlite3.connect(mine / ".vault-mem" / "index.db")
        try:
            keys = {k for (k,) in on_disk.execute("SELECT key FROM files")}
            described = {d for (d,) in on_disk.execute("SELECT description FROM files")}
        finally:
            on_disk.close()
        assert "ci-runs" in keys, keys
        assert not any("MARK-peer" in (d or "") for d in described), described
    finally:
        vault.close()
    assert os.path.exists(mine / ".vault-mem" / "index.mark")
