"""The replay check (post-commit's ``replayed``) and the texts' origins (vault/authors.Origins)
read one set of commits (store/history.shared_tips): a text counts as existing before a pick or
revert only in a commit the origins read too, whichever worktree the pick, the earlier commit and
the reader are in. Each case through a real bare remote, a peer's clone, real worktrees and the
person's real git with vault-mem's hooks installed."""

from __future__ import annotations

from conftest import git, person_and_peer
from test_peer_attacks7 import MARK, PINNED, PROMPT, _hook, _peer_appends_to_the_pinned_memory, _persons_edit, \
    _recalled


def _recorded(mine, commit: str) -> bool:
    return commit in (mine / ".git" / "vault-mem" / "local-commits").read_text()


def _merged_in(root) -> bool:
    text = (root / PINNED).read_text()
    return MARK in text and "default keymap" in text


def _first_pick_in_another_worktree(tmp_path):
    """The person's edit of the pinned memory on `side`, the peer's appended line pulled into
    main, and the person's `git cherry-pick -n side` in a second worktree (detached): git merges
    the peer's line into the person's text, and that commit is refused (not recorded)."""
    mine, peer = person_and_peer(tmp_path)
    _peer_appends_to_the_pinned_memory(peer)
    git(mine, "checkout", "-q", "-b", "side")
    _persons_edit(mine)
    git(mine, "checkout", "-q", "main")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    other = tmp_path / "other"
    git(mine, "worktree", "add", "-q", "--detach", str(other), "main")
    git(other, "cherry-pick", "--no-commit", "side")
    assert _merged_in(other)
    git(other, "commit", "-q", "-m", "tried in the other worktree")
    first = git(other, "rev-parse", "HEAD").strip()
    assert not _recorded(mine, first)
    return mine, other, first


def _not_the_persons(mine) -> None:
    assert _merged_in(mine)
    assert _recalled(mine, "editor-choice")["trusted"] is False
    assert MARK not in _hook(mine, "user-prompt-submit", prompt=PROMPT)


def test_a_merged_text_only_another_worktrees_head_held_is_not_the_persons(tmp_path):
    """Before: the pick again in the main worktree was recorded as made here, because `git log
    --all --reflog` found the refused pick through the other worktree's HEAD, which the texts'
    origins never read: the merged text was first seen in the recorded pick, the person's, and
    the peer's instruction reached the prompt hook."""
    mine, _other, _first = _first_pick_in_another_worktree(tmp_path)
    git(mine, "cherry-pick", "side")
    assert not _recorded(mine, git(mine, "rev-parse", "HEAD").strip())
    _not_the_persons(mine)
