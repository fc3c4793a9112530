"""The person's own ``git pull --rebase`` names a memory of theirs that a peer not approved here
deleted or changed, as a sync and a plain ``git pull`` do (issue 23, trust23). A rebase runs no
post-merge hook (git runs post-checkout when it checks out the upstream, then post-rewrite), so
the teammate's deletion the pull took went unsaid: the agent silently lost the person's
memory. Real git: a bare remote, the peer's clone committing with raw git, the person's plain
``git pull --rebase`` running the hooks ``vault-mem init`` installed."""

from __future__ import annotations

import subprocess

import pytest

from conftest import PEER_EMAIL, PINNED, cli, git, person_and_peer, push_as_peer


def _pull_rebase(mine, *more: str) -> subprocess.CompletedProcess:
    pull = subprocess.run(["git", "pull", "--rebase", *more, "origin", "main"], cwd=mine, capture_output=True,
                          text=True, timeout=300)
    assert pull.returncode == 0, pull.stdout + pull.stderr
    return pull


def _local_commit(mine) -> None:
    """A commit of the person's agent not yet pushed: the pull then replays it (a real rebase,
    not a fast-forward, which runs post-merge)."""
    r = cli("--vault", str(mine), "remember", "build-cmd", "--type", "fact", "-d", "Build with make")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("what", ["deleted", "changed"])
def test_a_rebase_pull_names_a_peers_deletion_or_change_of_the_persons_memory(tmp_path, what):
    mine, peer = person_and_peer(tmp_path)
    if what == "deleted":
        git(peer, "rm", "-q", PINNED)
    else:
        (peer / PINNED).write_text((peer / PINNED).read_text().replace("Uses Helix", "Uses Emacs"))
    push_as_peer(peer, "tidy")
    _local_commit(mine)
    pull = _pull_rebase(mine)
    assert (mine / "facts" / "build-cmd.md").is_file()  # the person's commit replayed
    said = [ln for ln in pull.stderr.splitlines() if "editor-choice.md" in ln]
    assert len(said) == 1, pull.stderr
    assert f"was {what} by {PEER_EMAIL}" in said[0] and "git checkout " in said[0], said[0]
    assert f"-- {PINNED}`" in said[0]


def test_a_rebase_pull_with_autostash_names_it_too(tmp_path):
    mine, peer = person_and_peer(tmp_path)
    git(peer, "rm", "-q", PINNED)
    push_as_peer(peer, "tidy")
    _local_commit(mine)
    (mine / "notes").mkdir(exist_ok=True)
    (mine / "notes" / "draft.md").write_text("---\ndescription: A draft\n---\n")  # uncommitted
    pull = _pull_rebase(mine, "--autostash")
    said = [ln for ln in pull.stderr.splitlines() if "editor-choice.md" in ln]
    assert len(said) == 1 and f"was deleted by {PEER_EMAIL}" in said[0], pull.stderr


def test_a_rebase_pull_that_displaces_nothing_of_the_persons_says_nothing_of_it(tmp_path):
    """The guard: a peer's new memory, and the person's own commits replayed, name nothing; nor
    does a rebase of the person's own commits onto their own (``git rebase -i``-like, here
    ``git rebase HEAD~1``)."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "ci.md").write_text("---\ndescription: CI runs on push\n---\n")
    push_as_peer(peer, "ci")
    _local_commit(mine)
    pull = _pull_rebase(mine)
    assert "a memory of this machine's" not in pull.stderr, pull.stderr
    r = subprocess.run(["git", "rebase", "--force-rebase", "HEAD~1"], cwd=mine, capture_output=True, text=True)
    assert r.returncode == 0 and "a memory of this machine's" not in r.stderr, r.stderr
