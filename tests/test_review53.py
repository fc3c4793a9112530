"""Review of the post-commit replay check's one `git log` (dd647fc): each case through a real
bare remote, a peer's clone pushing with raw git, and the person's real `git revert` with
vault-mem's hooks installed."""

from __future__ import annotations

import os
import subprocess

from conftest import PEERS_MARK, PINNED, PINNED_PROMPT, agent_hook, git, peer_appends_to_the_pinned_memory, \
    person_and_peer, persons_edit_on_a_side_branch, recalled

PEER = {**os.environ, "GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@peer.example",
        "GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": "mallory@peer.example"}


def _note(root, name: str, body: str) -> None:
    (root / "notes").mkdir(exist_ok=True)
    (root / "notes" / f"{name}.md").write_text(f"---\ndescription: note {name}\ntype: note\n---\n{body}\n")


def _peer_commit(peer, message: str) -> str:
    for args in (["add", "-A"], ["commit", "-q", "--no-verify", "-m", message]):
        subprocess.run(["git", *args], cwd=peer, check=True, env=PEER, capture_output=True)
    return git(peer, "rev-parse", "HEAD").strip()


def test_a_revert_whose_texts_a_merged_side_held_is_recorded_whatever_parent_the_walk_follows(tmp_path):
    """Before: the one `git log` over every path the revert changes simplified history with all
    of them at once: at a merge that leaves p.md as both parents do and q.md as its second
    parent does, it followed the second parent only, so the first parent's commits, the only
    ones holding the text the revert brings back to p.md, were never looked at, and the
    person's revert of two commits (`git revert -n L2 R2`), whose every text existed before at
    its path, was refused (the path by path walk followed the first parent for p.md and found
    them). The walk now keeps every commit (--full-history): any commit at that path counts."""
    mine, peer = person_and_peer(tmp_path)
    _note(peer, "p", "p0")
    _note(peer, "q", "q0")
    _peer_commit(peer, "base")
    git(peer, "checkout", "-q", "-b", "left")
    _note(peer, "p", "B")
    _peer_commit(peer, "L1")
    _note(peer, "p", "p0")
    left2 = _peer_commit(peer, "L2")
    git(peer, "checkout", "-q", "main")
    _note(peer, "q", "q2")
    _peer_commit(peer, "R1")
    _note(peer, "q", "q3")
    right2 = _peer_commit(peer, "R2")
    git(peer, "checkout", "-q", "left")
    subprocess.run(["git", "merge", "-q", "--no-edit", "main"], cwd=peer, check=True, env=PEER, capture_output=True)
    git(peer, "push", "-q", "origin", "HEAD:main")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    git(mine, "revert", "--no-commit", left2, right2)
    git(mine, "commit", "-q", "-m", "back to B and q2")
    assert (mine / "notes" / "p.md").read_text().endswith("\nB\n")
    assert (mine / "notes" / "q.md").read_text().endswith("\nq2\n")
    revert = git(mine, "rev-parse", "HEAD").strip()
    assert revert in (mine / ".git" / "vault-mem" / "local-commits").read_text()


def test_a_text_only_another_path_held_is_refused_with_the_persons_log_follow(tmp_path):
    """Before: with `log.follow = true` in the person's git configuration (a common setting),
    the one `git log` given one path followed renames despite --no-renames, and its raw line for
    the peer's rename (`R\tS\tQ`, the new text at the old path's column) read as that text at S:
    the person's revert of the rename, with Q's text then put at S by hand, passed as every text
    existing before at its path, which only Q ever held (the path by path walk did the same).
    The check's walk is now the same whatever the person's configuration."""
    mine, peer = person_and_peer(tmp_path)
    _note(peer, "s", "e1\ne2\ne3\ne4\ne5\ne6")
    _peer_commit(peer, "s")
    git(peer, "mv", "notes/s.md", "notes/q.md")
    (peer / "notes" / "q.md").write_text((peer / "notes" / "q.md").read_text().replace("e6", "peer line"))
    rename = _peer_commit(peer, "s to q")
    git(peer, "push", "-q", "origin", "main")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")
    git(mine, "config", "log.follow", "true")
    git(mine, "revert", "--no-commit", rename)
    (mine / "notes" / "s.md").write_text(git(mine, "show", f"{rename}:notes/q.md"))
    git(mine, "add", "notes/s.md")
    git(mine, "commit", "-q", "-m", "q's text back at s")
    changed = git(mine, "diff-tree", "-r", "--no-commit-id", "--name-status", "HEAD").split("\n")
    assert "A\tnotes/s.md" in changed and "D\tnotes/q.md" in changed  # one text left, at s
    commit = git(mine, "rev-parse", "HEAD").strip()
    assert commit not in (mine / ".git" / "vault-mem" / "local-commits").read_text()


def test_the_persons_pick_of_a_memory_whose_name_starts_with_a_colon_is_theirs(tmp_path):
    """Before: the check handed git each path as a pathspec, and a top-level name starting
    with `:` reads as pathspec magic (`:x.md` is `x.md`, `:(glob)...` a pattern), so the commit
    that held the text at that very path was never listed and the person's clean cherry-pick of
    their own memory was refused (the path by path check did the same). Paths are now literal."""
    mine, _ = person_and_peer(tmp_path)
    git(mine, "checkout", "-q", "-b", "side")
    for name in (":shell.md", ":(glob)editor.md"):
        (mine / name).write_text(f"---\ndescription: my own {name}\ntype: note\n---\nmine\n")
    git(mine, "add", "-A")
    git(mine, "commit", "-q", "-m", "my notes")
    git(mine, "checkout", "-q", "main")
    _note(mine, "other", "main moves on")  # the pick is a commit of its own, never side's tip again
    git(mine, "add", "-A")
    git(mine, "commit", "-q", "-m", "other")
    git(mine, "cherry-pick", "side")
    assert (mine / ":shell.md").exists()
    pick = git(mine, "rev-parse", "HEAD").strip()
    assert pick != git(mine, "rev-parse", "side").strip()
    assert pick in (mine / ".git" / "vault-mem" / "local-commits").read_text()


def test_a_merged_text_only_a_stash_held_is_not_the_persons(tmp_path):
    """Before: the person's `git cherry-pick -n` merged the peer's appended line into their own
    edit of the pinned memory, and they stashed it (`git stash`); the later `git cherry-pick` of
    the same commit made that text again, and the replay check found it in the stash's index
    commit (`git log --all --reflog` walks refs/stash) and recorded the pick as made here. The
    texts' origins leave the stash out (it holds the person's edits in commits no hook
    records), so the merged text was first seen in the recorded pick: the person's, and the
    peer's instruction reached the prompt hook. The stash's commits no longer count as before."""
    mine, peer = person_and_peer(tmp_path)
    peer_appends_to_the_pinned_memory(peer)
    persons_edit_on_a_side_branch(mine)
    git(mine, "cherry-pick", "--no-commit", "side")
    assert PEERS_MARK in (mine / PINNED).read_text() and "default keymap" in (mine / PINNED).read_text()
    git(mine, "stash", "-q")
    git(mine, "cherry-pick", "side")
    assert PEERS_MARK in (mine / PINNED).read_text() and "default keymap" in (mine / PINNED).read_text()
    assert git(mine, "stash", "list").strip()
    assert recalled(mine, "Helix main editor", "editor-choice")["trusted"] is False
    assert PEERS_MARK not in agent_hook(mine, "user-prompt-submit", prompt=PINNED_PROMPT)
    pick = git(mine, "rev-parse", "HEAD").strip()
    assert pick not in (mine / ".git" / "vault-mem" / "local-commits").read_text()


def test_an_amend_that_concludes_a_pick_leaves_no_temporary_file_of_post_rewrite(tmp_path):
    """post-rewrite keeps git's list of rewritten commits in ``rewritten.PID`` and removes it at
    the end; an amend that concludes a cherry-pick runs the replay check, whose ``W`` (the shell
    has one scope) replaced the file's name: the files piled up in ``.git/vault-mem/`` (found by
    origins54). The person's pick (``-n``, conflicted, resolved by hand) concluded with
    ``--amend`` leaves none and is still checked."""
    mine, _ = person_and_peer(tmp_path)
    git(mine, "checkout", "-q", "-b", "side")
    _note(mine, "c", "side text")
    git(mine, "add", "-A")
    git(mine, "commit", "-q", "-m", "side")
    picked = git(mine, "rev-parse", "HEAD").strip()
    git(mine, "checkout", "-q", "main")
    _note(mine, "c", "main text")
    git(mine, "add", "-A")
    git(mine, "commit", "-q", "-m", "main")
    subprocess.run(["git", "cherry-pick", "-n", picked], cwd=mine, capture_output=True)  # conflicts
    _note(mine, "c", "both texts")
    git(mine, "add", "notes/c.md")
    git(mine, "commit", "-q", "--amend", "--no-edit")  # (git writes MERGE_MSG for a pick -n: a pick)
    state = mine / ".git" / "vault-mem"
    assert not list(state.glob("rewritten.*")), sorted(p.name for p in state.iterdir())
    # the merged text existed in no commit before: the amend is not recorded as made here
    assert git(mine, "rev-parse", "HEAD").strip() not in (state / "local-commits").read_text()
