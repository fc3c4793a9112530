"""git's index marks (the staged paths and those marked apart) kept while git's index file and
HEAD stay (:func:`vault_mem.vault.peers.index_marks_kept`): a judgement of the peers' memories
made again (a hand edit, the MCP server's first answer after its start-up thread's judgement)
listed every path of git's index again (``git ls-files -v``: 100k lines at 100k memories) with
the index unchanged. Each input that moves the answer drops it: the index file (a change staged,
a file marked assume-unchanged or skip-worktree, unstaged again) and HEAD (moved with the index
kept: ``git reset --soft``). Real git, real files, git's own trace to count its processes."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import PEER_EMAIL, git, person_and_peer, push_as_peer
from test_peer_paths_table import peer_files, reads, write

from vault_mem import Vault
from vault_mem.store.worktree import index_marks
from vault_mem.sync.remote import sync
from vault_mem.vault import peers as peers_mod
from vault_mem.vault.peers import index_marks_kept

#: more than ``authors.FILE_CHECKS`` candidates: the judgement asks git, not each file
N_PEER = 80


def team_vault(tmp_path: Path, *, own: bool = True) -> tuple[Vault, Path]:
    """The person's vault holding ``N_PEER`` memories a peer pushed, synced from a real remote,
    opened warm: with one memory of the person's agent (``own``), or none of the person's at all
    (the person's one memory of :func:`person_and_peer` last changed by the peer too)."""
    mine, peer = person_and_peer(tmp_path)
    git(peer, "config", "user.email", PEER_EMAIL)
    write(peer, peer_files("peer-note", N_PEER))
    if not own:
        for theirs in peer.glob("*/editor-choice.md"):
            theirs.write_text(theirs.read_text(encoding="utf-8") + "\nThe peer's line.\n", encoding="utf-8")
    push_as_peer(peer, "the peer's notes")
    vault = Vault(mine)
    assert sync(vault).received == 1
    if own:
        vault.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
    vault.reconcile()
    return vault, mine


def statements_while(vault: Vault, fn) -> list[str]:
    """The SQL statements the vault's sidecar connection ran while ``fn`` ran."""
    statements: list[str] = []
    vault.sidecar.db.conn.set_trace_callback(statements.append)
    try:
        fn()
    finally:
        vault.sidecar.db.conn.set_trace_callback(None)
    return statements


@pytest.fixture
def team(tmp_path):
    vault, mine = team_vault(tmp_path)
    yield vault, mine
    vault.close()


def listings(trace: Path) -> int:
    """How many ``git ls-files`` git's trace recorded."""
    if not trace.exists():
        return 0
    return sum(1 for line in trace.read_text(errors="replace").splitlines() if "git ls-files" in line)


def fresh_marks(vault: Vault) -> tuple[set[str], set[str]]:
    """What git answers now (no cache), vault-relative."""
    staged, marked = index_marks(vault.ws.repo, vault.ws.prefix or ".")
    n = len(vault.ws.prefix)
    return {p[n:] for p in staged}, {p[n:] for p in marked}


def test_a_judgement_made_again_after_a_hand_edit_lists_git_index_no_more(
    team, tmp_path, monkeypatch
) -> None:
    """A hand edit of a peer's memory moves the sidecar's rows (the judgement is made again,
    "changed"), not git's index: the marks read for the judgement before are given again, no
    ``git ls-files`` runs. Fails before index_marks_kept (one listing per judgement)."""
    vault, mine = team
    reads(vault)
    trace = tmp_path / "git-trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    edited = mine / "facts" / "peer-note-007.md"
    edited.write_text(edited.read_text(encoding="utf-8") + "\nAlso: hand edited here.\n", encoding="utf-8")
    before = vault._kept_peers.judgements
    reads(vault)
    assert vault._kept_peers.judgements == before + 1  # made again once (brought along), then kept
    assert listings(trace) == 0


@pytest.mark.parametrize("change", ["staged", "assume-unchanged", "skip-worktree", "unstaged", "HEAD moved"])
def test_the_kept_marks_are_dropped_when_git_index_or_head_changes(team, change) -> None:
    """Each input of the answer changed alone: the next read answers as git does now, never the
    kept answer."""
    vault, mine = team
    reads(vault)
    kept = index_marks_kept(vault.ws)
    assert kept == fresh_marks(vault)
    assert index_marks_kept(vault.ws) == kept  # given again, nothing changed
    rel = "facts/peer-note-011.md"
    if change == "staged":
        (mine / rel).write_text(
            (mine / rel).read_text(encoding="utf-8") + "\nStaged line.\n", encoding="utf-8"
        )
        git(mine, "add", rel)
    elif change in ("assume-unchanged", "skip-worktree"):
        git(mine, "update-index", f"--{change}", rel)
    elif change == "unstaged":
        (mine / rel).write_text(
            (mine / rel).read_text(encoding="utf-8") + "\nStaged line.\n", encoding="utf-8"
        )
        git(mine, "add", rel)
        assert index_marks_kept(vault.ws)[0] == {rel}
        git(mine, "reset", "-q", "--", rel)
    else:  # HEAD moved, the index kept as it is: what HEAD's commit changed now stands staged
        git(mine, "reset", "-q", "--soft", "HEAD~1")
    now = fresh_marks(vault)
    assert now != kept or change == "unstaged"
    assert index_marks_kept(vault.ws) == now
    if change == "staged":
        assert rel in now[0]
    elif change in ("assume-unchanged", "skip-worktree"):
        assert rel in now[1]
    elif change == "HEAD moved":
        assert now[0]  # the agent's last commit's file, staged against the older HEAD


def test_marks_read_while_the_index_changed_are_not_kept(team, monkeypatch) -> None:
    """git's index replaced while the two git processes ran (another process's `git add`): the
    answer is given once and not kept under the index it was not read from."""
    vault, mine = team
    reads(vault)
    peers_mod._MARKS.clear()
    real = peers_mod.index_marks
    rel = "facts/peer-note-012.md"

    def meanwhile(repo, pathspec):
        found = real(repo, pathspec)
        (mine / rel).write_text((mine / rel).read_text(encoding="utf-8") + "\nMeanwhile.\n", encoding="utf-8")
        git(mine, "add", rel)  # a real git process replaces the index after the listing
        return found

    monkeypatch.setattr(peers_mod, "index_marks", meanwhile)
    index_marks_kept(vault.ws)
    monkeypatch.setattr(peers_mod, "index_marks", real)
    assert (str(vault.ws.repo.git_dir), vault.ws.prefix) not in peers_mod._MARKS
    assert index_marks_kept(vault.ws) == fresh_marks(vault)
    assert rel in fresh_marks(vault)[0]
