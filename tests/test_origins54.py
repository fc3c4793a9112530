"""The replay check (post-commit's ``replayed``) and the texts' origins (vault/authors.Origins)
read one set of commits (store/history.shared_tips): a text counts as existing before a pick or
revert only in a commit the origins read too, whichever worktree the pick, the earlier commit and
the reader are in. Each case through a real bare remote, a peer's clone, real worktrees and the
person's real git with vault-mem's hooks installed."""

from __future__ import annotations

import subprocess

from conftest import PEERS_MARK, PINNED, PINNED_PROMPT, agent_hook, git, peer_appends_to_the_pinned_memory, \
    person_and_peer, persons_edit_on_a_side_branch, recalled


def _recorded(mine, commit: str) -> bool:
    return commit in (mine / ".git" / "vault-mem" / "local-commits").read_text()


def _merged_in(root) -> bool:
    text = (root / PINNED).read_text()
    return PEERS_MARK in text and "default keymap" in text


def _first_pick_in_another_worktree(tmp_path, branch: str | None = None):
    """The person's edit of the pinned memory on `side`, the peer's appended line pulled into
    main, and the person's `git cherry-pick -n side` in a second worktree (on a new ``branch``,
    detached when None): git merges the peer's line into the person's text, and that commit is
    refused (not recorded)."""
    mine, peer = person_and_peer(tmp_path)
    peer_appends_to_the_pinned_memory(peer)
    persons_edit_on_a_side_branch(mine)
    other = tmp_path / "other"
    git(mine, "worktree", "add", "-q", *(["-b", branch] if branch else ["--detach"]), str(other), "main")
    git(other, "cherry-pick", "--no-commit", "side")
    assert _merged_in(other)
    git(other, "commit", "-q", "-m", "tried in the other worktree")
    first = git(other, "rev-parse", "HEAD").strip()
    assert not _recorded(mine, first)
    return mine, other, first


def _not_the_persons(mine) -> None:
    assert _merged_in(mine)
    assert recalled(mine, "Helix main editor", "editor-choice")["trusted"] is False
    assert PEERS_MARK not in agent_hook(mine, "user-prompt-submit", prompt=PINNED_PROMPT)


def test_a_merged_text_only_another_worktrees_head_held_is_not_the_persons(tmp_path):
    """Before: the pick again in the main worktree was recorded as made here, because `git log
    --all --reflog` found the refused pick through the other worktree's HEAD, which the texts'
    origins never read: the merged text was first seen in the recorded pick, the person's, and
    the peer's instruction reached the prompt hook."""
    mine, other, _first = _first_pick_in_another_worktree(tmp_path)
    git(mine, "cherry-pick", "side")
    assert not _recorded(mine, git(mine, "rev-parse", "HEAD").strip())
    _not_the_persons(mine)
    git(mine, "worktree", "remove", "--force", str(other))  # its HEAD and log gone: the same
    _not_the_persons(mine)


def test_a_pick_after_the_other_worktree_was_deleted_and_pruned_is_not_the_persons(tmp_path):
    """The other worktree's folder deleted by hand and `git worktree prune`d before the pick
    again: nothing names the first pick any more, for the check as for the origins."""
    import shutil

    mine, other, _first = _first_pick_in_another_worktree(tmp_path)
    shutil.rmtree(other)
    git(mine, "worktree", "prune")
    git(mine, "cherry-pick", "side")
    assert not _recorded(mine, git(mine, "rev-parse", "HEAD").strip())
    _not_the_persons(mine)


def test_a_merged_text_the_main_worktrees_head_held_is_not_the_persons_read_from_a_linked_worktree(tmp_path):
    """Before: read from a linked worktree, the origins read that worktree's log of HEAD alone,
    not the main worktree's, where the person's refused `cherry-pick -n` on a detached HEAD
    was; the pick again in the linked worktree was recorded (`--reflog` found the first), so
    the merged text was first seen there, the person's. The origins now read the main
    worktree's HEAD and its log from every worktree, as the check does."""
    mine, peer = person_and_peer(tmp_path)
    peer_appends_to_the_pinned_memory(peer)
    persons_edit_on_a_side_branch(mine)
    linked = tmp_path / "linked"
    git(mine, "worktree", "add", "-q", "-b", "work", str(linked), "main")
    git(mine, "checkout", "-q", "--detach")
    git(mine, "cherry-pick", "--no-commit", "side")
    git(mine, "commit", "-q", "-m", "tried on a detached HEAD")
    assert not _recorded(mine, git(mine, "rev-parse", "HEAD").strip())
    git(mine, "checkout", "-q", "main")
    git(linked, "cherry-pick", "side")
    _not_the_persons(linked)


def test_the_persons_pick_from_a_branch_checked_out_only_in_another_worktree_stays_theirs(tmp_path):
    """A branch checked out only in another worktree is a shared ref: the person's clean pick
    of their own commit there is recorded and theirs; a merged text committed there (refused)
    still makes the pick again no one's but the peer's, also once the worktree and the branch
    are gone."""
    mine, peer = person_and_peer(tmp_path)
    other = tmp_path / "other"
    git(mine, "worktree", "add", "-q", "-b", "mine-there", str(other), "main")
    (other / "notes").mkdir(exist_ok=True)
    (other / "notes" / "shell.md").write_text("---\ndescription: Uses fish as the login shell\ntype: note\n---\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "my shell")
    git(mine, "cherry-pick", "mine-there")
    assert _recorded(mine, git(mine, "rev-parse", "HEAD").strip())
    assert recalled(mine, "fish login shell", "shell")["trusted"] is True
    # the merged text, on a branch of the other worktree
    peer_appends_to_the_pinned_memory(peer)
    persons_edit_on_a_side_branch(mine, "--no-rebase", "--no-edit")
    git(other, "checkout", "-q", "-b", "tried", "main")
    git(other, "cherry-pick", "--no-commit", "side")
    git(other, "commit", "-q", "-m", "tried in the other worktree")
    assert not _recorded(mine, git(other, "rev-parse", "HEAD").strip())
    git(mine, "cherry-pick", "side")
    _not_the_persons(mine)
    git(mine, "worktree", "remove", "--force", str(other))
    git(mine, "branch", "-D", "tried")
    _not_the_persons(mine)


def test_the_replay_check_reads_the_commits_the_origins_read(tmp_path):
    """The one set, both ways: the check's `tips` (the shell post-commit runs) lists exactly
    store/history.shared_tips, from the main worktree and from linked ones, and every worktree's
    origins (known_tips) read all of it. What a linked worktree alone names (its detached HEAD
    and log, its bisect refs, its FETCH_HEAD) and the stash are in neither."""
    from vault_mem.store import history
    from vault_mem.store.git import GitRepo
    from vault_mem.store.hooks import RECORD

    script = RECORD["post-commit"]
    tips = script[script.index("tips() {"):script.index("\n}\n", script.index("tips() {")) + 3]
    main = tmp_path / "main"
    git(tmp_path, "init", "-q", "-b", "main", str(main))

    def commit(root, name: str) -> str:
        (root / name).write_text(name)
        git(root, "add", name)
        git(root, "commit", "-q", "--no-verify", "-m", name)
        return git(root, "rev-parse", "HEAD").strip()

    base = commit(main, "a")
    branch, detached = tmp_path / "branch", tmp_path / "detached"
    git(main, "worktree", "add", "-q", "-b", "there", str(branch))
    on_branch = commit(branch, "b")
    git(main, "worktree", "add", "-q", "--detach", str(detached))
    alone = commit(detached, "c")
    git(detached, "update-ref", "refs/bisect/bad", alone)
    (detached / "d").write_text("stashed")
    git(detached, "add", "d")
    git(detached, "stash", "-q")
    stash = git(main, "rev-parse", "refs/stash").strip()
    subprocess.run(["git", "update-ref", "FETCH_HEAD", alone], cwd=detached, check=True)
    git(main, "tag", "a-tree", f"{base}^{{tree}}")
    git(main, "tag", "-a", "-m", "v1", "v1", base)
    main_detached = commit(main, "e")
    git(main, "checkout", "-q", "--detach")
    on_main_head = commit(main, "f")
    for root in (main, branch, detached):
        proc = subprocess.run(["sh", "-c", f"{tips}\ntips"], cwd=root, capture_output=True, text=True, check=True)
        listed = set(proc.stdout.split())
        repo = GitRepo(root)
        assert listed == set(history.shared_tips(repo)), root
        assert listed <= set(history.known_tips(repo)), root
        assert {base, on_branch, main_detached, on_main_head} <= listed
        assert alone not in listed and stash not in listed
    assert alone in history.known_tips(GitRepo(detached))  # what the vault read there sees
    # a commit the check found a recorded pick's texts in stays in both, whatever named it then
    (main / ".git" / "vault-mem").mkdir(exist_ok=True)
    (main / ".git" / "vault-mem" / "replayed-from").write_text(f"{alone}\n")
    proc = subprocess.run(["sh", "-c", f"{tips}\ntips"], cwd=branch, capture_output=True, text=True, check=True)
    assert alone in proc.stdout.split()
    assert set(proc.stdout.split()) == set(history.shared_tips(GitRepo(branch)))


def test_a_merged_text_whose_branch_went_before_any_read_is_not_the_persons(tmp_path):
    """The first pick committed on a branch of another worktree (a shared ref: the check counts
    it), the pick again in the main worktree recorded, then the worktree removed and the branch
    deleted before anything of vault-mem read the repository: nothing names the first pick any
    more, and the merged text would be first seen in the recorded pick."""
    mine, other, _first = _first_pick_in_another_worktree(tmp_path, branch="tried")
    git(mine, "cherry-pick", "side")
    git(mine, "worktree", "remove", "--force", str(other))
    git(mine, "branch", "-D", "tried")
    _not_the_persons(mine)
