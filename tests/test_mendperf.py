"""What the caches perf33 added are kept under, mended (a reviewer's findings): git's index marks
(:func:`vault_mem.vault.peers.index_marks_kept`) and the peers' judgement
(:class:`vault_mem.vault.peers.KeptPeers`) share one value of what git reads them from
(:meth:`vault_mem.store.git.GitRepo.index_state`), which moves with a ``git replace`` of HEAD's
tree, with the index file git reads (``GIT_INDEX_FILE``, as git sets it for a commit's hooks) and
with an index written under ``index.skipHash`` (its trailing hash 20 zero bytes); the common-word
counts (:func:`vault_mem.index.queries.term_counts`) are kept under the rows' one stamp
(:meth:`vault_mem.index.db.Database.rows_stamp`), never from inside a transaction. Real git,
real files, real SQLite."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import git
from test_index_marks_kept_perf33 import fresh_marks, statements_while, team_vault

from vault_mem import Vault
from vault_mem.index.pathsets import PathTable
from vault_mem.index.queries import term_counts
from vault_mem.store.gitindex import index_file_signature
from vault_mem.vault import authors
from vault_mem.vault.peers import KeptPeers, index_marks_kept


@pytest.fixture
def vault(tmp_path):
    v = Vault.init(tmp_path / "vault")
    v.remember("alpha-note", "Alpha note about deploys", "Body one.")
    v.remember("beta-note", "Beta note about builds", "Body two.")
    yield v
    v.close()


def replace_head_by_its_parent_tree(top: Path) -> None:
    """``git replace`` HEAD by a commit holding its parent's tree: git reads HEAD's tree through
    it; neither HEAD's ref nor git's index moves."""
    head = git(top, "rev-parse", "HEAD").strip()
    tree = git(top, "rev-parse", "HEAD~1^{tree}").strip()
    other = git(top, "commit-tree", tree, "-p", "HEAD~1", "-m", "replacement").strip()
    git(top, "replace", head, other)


def test_marks_are_read_again_after_a_git_replace_of_head(vault) -> None:
    """Fails before: the marks were kept under (index file, HEAD) alone, and `git diff-index
    --cached HEAD` answers from the replacement's tree (a memory staged now)."""
    assert index_marks_kept(vault.ws) == fresh_marks(vault)
    replace_head_by_its_parent_tree(vault.ws.repo.toplevel)
    now = fresh_marks(vault)
    assert now[0], "the replacement's tree lacks a memory the index holds: staged"
    assert index_marks_kept(vault.ws) == now


def test_the_peers_judgements_state_moves_with_a_git_replace_of_head(tmp_path) -> None:
    """Fails before: KeptPeers kept its judgement under HEAD's id and .git/index's signature,
    and git status (which the judgement reads) answers from the replacement's tree."""
    team, _mine = team_vault(tmp_path)
    try:
        ids = authors.identities(team.ws)
        before = KeptPeers._state(team.ws, team.sidecar, ids)
        assert before is not None and before == KeptPeers._state(team.ws, team.sidecar, ids)
        replace_head_by_its_parent_tree(team.ws.repo.toplevel)
        assert KeptPeers._state(team.ws, team.sidecar, ids) != before
    finally:
        team.close()


def test_marks_are_read_from_the_index_git_reads_under_git_index_file(vault, tmp_path, monkeypatch) -> None:
    """Fails before: the key signed .git/index while git's processes read $GIT_INDEX_FILE (a
    commit's hooks, `git commit PATH`)."""
    ws = vault.ws
    top = ws.repo.toplevel
    alt = tmp_path / "alt-index"
    shutil.copy(ws.repo.git_dir / "index", alt)
    monkeypatch.setenv("GIT_INDEX_FILE", str(alt))
    assert index_marks_kept(ws) == fresh_marks(vault)
    p = next(ws.root.glob("*/alpha-note.md"))
    p.write_text(p.read_text() + "\nedited\n")
    git(top, "add", str(p))
    git(top, "update-index", "--skip-worktree", "INDEX.md")
    now = fresh_marks(vault)
    assert now[0] and now[1]
    assert index_marks_kept(ws) == now


def _two_skiphash_indexes(vault, tmp_path) -> tuple[bytes, bytes]:
    """Two indexes of the same size and other entries, each with the 20 zero bytes
    ``index.skipHash`` writes in place of the trailing hash (git 2.39 here cannot write one)."""
    ws = vault.ws
    a, b = tmp_path / "a-index", tmp_path / "b-index"
    shutil.copy(ws.repo.git_dir / "index", a)
    shutil.copy(ws.repo.git_dir / "index", b)
    env = {**os.environ, "GIT_INDEX_FILE": str(b)}
    subprocess.run(
        ["git", "update-index", "--assume-unchanged", "INDEX.md"],
        cwd=ws.repo.toplevel,
        env=env,
        check=True,
        capture_output=True,
    )
    first, second = bytearray(a.read_bytes()), bytearray(b.read_bytes())
    assert len(first) == len(second) and first != second
    first[-20:] = second[-20:] = bytes(20)
    return bytes(first), bytes(second)


def _put_in_place(path: Path, data: bytes, ns: int) -> None:
    """``data`` written into ``path`` in place (the same inode) with the mtime ``ns``: what a
    coarse mtime and an inode given back make of two writes."""
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate()
    os.utime(path, ns=(ns, ns))


def test_a_skiphash_index_of_the_same_inode_mtime_and_size_is_another_signature(vault, tmp_path) -> None:
    """Fails before: the signature of an index with a zero trailer was its inode, mtime and size
    alone (shared by the GitIndex reader, KeptPeers and the marks)."""
    first, second = _two_skiphash_indexes(vault, tmp_path)
    idx = vault.ws.repo.git_dir / "index"
    t = 1_700_000_000_000_000_000
    _put_in_place(idx, first, t)
    one = index_file_signature(idx)
    _put_in_place(idx, second, t)
    assert index_file_signature(idx) != one
    _put_in_place(idx, first, t)
    assert index_file_signature(idx) == one  # the same content: the same value (still kept)


def test_marks_are_read_again_after_a_skiphash_index_of_the_same_stat(vault, tmp_path) -> None:
    """Fails before: the kept marks of the first index were given for the second."""
    first, second = _two_skiphash_indexes(vault, tmp_path)
    idx = vault.ws.repo.git_dir / "index"
    t = 1_700_000_000_000_000_000
    _put_in_place(idx, first, t)
    assert index_marks_kept(vault.ws) == fresh_marks(vault)
    _put_in_place(idx, second, t)
    now = fresh_marks(vault)
    assert now[1]
    assert index_marks_kept(vault.ws) == now


@pytest.fixture
def zebras(tmp_path):
    v = Vault.init(tmp_path / "zebras")
    for i in range(3):
        v.remember(f"zebra-note-{i}", f"Zebra crossing note {i}", "Body.")
    yield v
    v.close()


def test_counts_taken_inside_a_transaction_rolled_back_are_not_kept(zebras) -> None:
    """Fails before: a rollback moves neither total_changes nor data_version, so the count of
    the rolled-back row was given after it."""
    db = zebras.sidecar.db
    assert term_counts(db, ["zebra"], 1000) == [3]
    db.conn.execute("BEGIN IMMEDIATE")
    db.conn.execute("INSERT INTO fts(rowid, description, body, extra) VALUES (999001, 'zebra', 'zebra', '')")
    assert term_counts(db, ["zebra"], 1000) == [4]  # what the transaction sees
    db.conn.execute("ROLLBACK")
    assert term_counts(db, ["zebra"], 1000) == [3]


def counted(vault: Vault, fn) -> list[str]:
    return [s for s in statements_while(vault, fn) if s.startswith("SELECT count(*) FROM (SELECT 1 FROM fts")]


def test_counts_stay_kept_across_a_write_that_changes_no_row(zebras) -> None:
    """A path table's fill writes the temporary database alone (uncounted: the rows' stamp does
    not move). Fails before: the counts were kept under raw total_changes, which it moved."""
    db = zebras.sidecar.db
    term_counts(db, ["zebra", "crossing"], 1000)
    table = PathTable(db, ["nothing.md"])
    try:
        assert counted(zebras, lambda: term_counts(db, ["zebra", "crossing"], 1000)) == []
    finally:
        table.drop()
    zebras.remember("zebra-extra", "Another zebra", "Body.")
    assert term_counts(db, ["zebra"], 1000) == [4]  # a row written: counted again
