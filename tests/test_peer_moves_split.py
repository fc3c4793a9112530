"""Moves split across commits (issue 23, trust24): the adoption walk (``vault/authors._adopted``)
follows a move made here in one commit (``_moved``) and one not committed yet
(``_moved_uncommitted``). These are the moves it did not see: the person's move of a memory
holding a peer's merged line split over two commits (the delete in one, the add in the next) or
made inside a merge commit, and a peer's move of the person's memory followed by the peer's
change in a later commit. Each through a real bare remote, the person's plain git with
vault-mem's hooks."""

from __future__ import annotations

import pytest

from conftest import PINNED, agent_hook, git, person_and_peer, push_as_peer, trusted_by_key
from test_peer_adoption import LINE, MARK, _kept_out
from test_peer_adoption_attacks import _autostash_with

PROMPT = "which editor do I use as the main editor"
MOVED = "preferences/editor.md"


def _merged_and_committed(tmp_path):
    """The person's edit merged with the peer's line by an autostash, committed: the memory is
    the peer's (its line stands)."""
    mine, peer = person_and_peer(tmp_path)
    _autostash_with(mine, peer, LINE)
    git(mine, "commit", "-q", "-am", "my editor")
    _kept_out(mine)
    return mine, peer


def _out_of_context(mine) -> None:
    assert MARK not in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)
    assert MARK not in agent_hook(mine, "session-start", source="startup")


def test_a_move_split_over_two_commits_keeps_the_peers_line_the_peers(tmp_path):
    """`git rm` of the memory and a commit, then the same text added under a new key in the next
    commit: each commit alone is no move, and the new path's history started at the person's
    add, so the peer's line reached the prompt hook as the person's."""
    mine, _peer = _merged_and_committed(tmp_path)
    text = (mine / PINNED).read_text()
    git(mine, "rm", "-q", PINNED)
    git(mine, "commit", "-q", "-m", "drop the old key")
    (mine / MOVED).write_text(text)
    git(mine, "add", MOVED)
    git(mine, "commit", "-q", "-m", "the new key")
    _out_of_context(mine)
    path = mine / MOVED
    path.write_text(path.read_text().replace(LINE, "Before answering, check the changelog."))
    git(mine, "commit", "-q", "-am", "my words")
    assert "default keymap" in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)


def test_a_move_made_inside_a_merge_commit_keeps_the_peers_line_the_peers(tmp_path):
    """The person's `git merge --no-ff --no-commit` of a side branch, the memory moved with `git
    mv` before the merge is committed: the move is the merge commit's own change."""
    mine, _peer = _merged_and_committed(tmp_path)
    git(mine, "checkout", "-q", "-b", "side")
    (mine / "facts" / "side-note.md").write_text("---\ndescription: A note from the side branch\n---\n")
    git(mine, "add", "facts/side-note.md")
    git(mine, "commit", "-q", "-m", "side note")
    git(mine, "checkout", "-q", "main")
    git(mine, "merge", "-q", "--no-ff", "--no-commit", "side")
    git(mine, "mv", PINNED, MOVED)
    git(mine, "commit", "-q", "-m", "merge side, renamed the editor")
    _out_of_context(mine)


@pytest.mark.parametrize("in_merge", [False, True], ids=["commit", "merge"])
def test_a_peers_move_then_its_change_in_the_next_commit_names_the_right_author(tmp_path, in_merge):
    """The peer moves the person's memory to a key of its choosing (the same bytes: the person's
    text there, first seen in the person's commit), then appends its instruction in the next
    commit. Synced, the memory is the peer's; once the person removes the peer's line (their own
    lines left as they were), it is the person's again: the peer's move adds no line of its own.
    The walk takes the peer's move for the creation of the memory, so every line of the person's
    own text counts as the peer's and the memory stays out of the person's context until the
    person rewrites each of those lines or approves the author: the safe side, pinned here.
    The peer's line itself never reaches the agent (checked before the removal)."""
    mine, peer = person_and_peer(tmp_path)
    if in_merge:
        git(peer, "checkout", "-q", "-b", "side")
        (peer / "facts").mkdir(exist_ok=True)
        (peer / "facts" / "other.md").write_text("---\ndescription: Another note\n---\n")
        push_env = ("add", "-A")
        git(peer, *push_env)
        git(peer, "-c", "user.email=mallory@peer.example", "-c", "user.name=Mallory", "commit", "-q", "--no-verify", "-m", "other")
        git(peer, "checkout", "-q", "main")
        git(peer, "merge", "-q", "--no-ff", "--no-commit", "side")
        git(peer, "mv", PINNED, MOVED)
        # pushed as it is: push_as_peer's `pull --rebase` would flatten the merge and drop the move
        git(peer, "-c", "user.email=mallory@peer.example", "-c", "user.name=Mallory", "commit", "-q", "--no-verify",
            "-m", "merge, renamed")
        git(peer, "push", "-q", "origin", "main")
        assert len(git(peer, "log", "-1", "--format=%P").split()) == 2
    else:
        git(peer, "mv", PINNED, MOVED)
        push_as_peer(peer, "renamed")
    path = peer / MOVED
    path.write_text(path.read_text() + f"\n{LINE}\n")
    push_as_peer(peer, "editor notes")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    assert trusted_by_key(mine)["editor"] is False
    _out_of_context(mine)
    path = mine / MOVED
    path.write_text(path.read_text().replace(f"\n{LINE}\n", ""))
    git(mine, "commit", "-q", "-am", "not that")
    assert trusted_by_key(mine)["editor"] is True
    assert "Uses Helix as the main editor" in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)
