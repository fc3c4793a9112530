"""How many git processes one ``vault-mem sync`` starts: a contract on the product, not a timing.

A sync asked git the same questions of the same commits from several checks, re-opened the
repository for its notices and made a round trip to git per incoming file (31 git processes for
one file that arrives; issue 28: the suite's syncs paid them all). Counted here through a ``git``
on PATH that logs each start and runs the real one: every git that vault-mem starts goes through
it (``platform.programs.program`` finds git on PATH at each start; the fetch's ``upload-pack`` is
started by that path too). Real remote, real clones, real git.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from conftest import cli, git, git_starts, new_vault

from vault_mem import Vault

#: what a sync that finds nothing new starts: the repository found (rev-parse), its object
#: reader, the remote's URL, the settings read once, the fetch and its upload-pack (it was 7);
#: and, where a type folder changed since the last command or in the last 2 s (here: the sync
#: before, moments ago), the memory files git ignores there (one ls-files, attack24: a peer's
#: ignore rule no probe name matched hid the person's hand-written memory in silence)
NOTHING_NEW = 7
#: and with one commit of the peer (its memory and INDEX.md) to take: the fetch's commit checked
#: and its ref moved, one merge base, one commit list, one diff, the new tip's names (case
#: clashes), what is staged, the object reader, HEAD moved, git's index (it was 31); the ls-files
#: above
ONE_COMMIT = 18
#: and with 200 files in that commit: the files stream through one reader of their own and
#: their sizes come from one more, the folders' trees are parsed (the same key in two type
#: folders), INDEX.md staged as committed; nothing per file (it was 31); the ls-files above
MANY_FILES = 21
#: what a sync that fast-forwards over a peer's commit made without vault-mem's hooks adds:
#: INDEX.md committed alone in the person's name (the one rule, as a plain `git pull`'s hook
#: does) and published: git's index refreshed and INDEX.md staged (2), the push, its
#: receive-pack and the tracking ref (3). The rule's own checks ask nothing new: the merge base
#: and the diff are the sync's, the commit and the count of commits to push are made in process
INDEX_COMMIT = 5
#: and where the committed view was never built (a fresh sidecar, the case of the 200-file test:
#: its vault made no agent write), INDEX.md from HEAD's files needs HEAD's whole listing once
NO_VIEW_YET = 1


def peer_writes(peer: Vault, count: int) -> None:
    """The peer commits ``count`` memories in one commit and pushes it (its own sync)."""
    if count == 1:
        peer.remember("peer-note", "a peer's note", "deploys go through staging")
    else:
        for i in range(count):
            (peer.root / "facts" / f"bulk-{i:04d}.md").write_text(
                f"---\ndescription: bulk note {i}\ncreated: 2026-01-01\nupdated: 2026-01-01\nsource: user\n"
                f"---\nbody {i}\n")
        git(peer.root, "add", "facts")
        git(peer.root, "commit", "-q", "--no-verify", "-m", "bulk import")
    git(peer.root, "push", "-q", "origin", "HEAD:main")


@pytest.fixture
def pair(tmp_path):
    """A vault published to a bare remote (its upstream set by a first sync), and a peer's clone."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    mine = new_vault(tmp_path / "mine", agent="agent-mine")
    git(mine.root, "remote", "add", "origin", str(bare))
    assert cli("sync", "--vault", str(mine.root)).returncode == 0
    git(tmp_path, "clone", "-q", str(bare), str(tmp_path / "peer"))
    peer = Vault(tmp_path / "peer", agent="agent-peer")
    yield mine, peer
    for v in (mine, peer):
        v.close()


def synced(mine: Vault, log: Path) -> list[str]:
    result = cli("sync", "--vault", str(mine.root))
    assert result.returncode == 0, result.stderr
    return git_starts(log)


def test_a_sync_with_nothing_new_starts_few_git_processes(pair, logged_git):
    mine, _ = pair
    synced(mine, logged_git)  # the first sync after the vault's own: its checks recorded
    found = synced(mine, logged_git)
    assert len(found) <= NOTHING_NEW, "\n".join(found)
    assert not any(line.startswith(("update-ref", "diff-tree", "ls-tree")) for line in found), found


def test_a_sync_that_takes_one_commit_starts_a_bounded_number_of_git_processes(pair, logged_git):
    mine, peer = pair
    synced(mine, logged_git)
    peer_writes(peer, 1)
    git_starts(logged_git)  # the peer's own
    found = synced(mine, logged_git)
    assert (mine.root / "facts" / "peer-note.md").exists()
    assert len(found) <= ONE_COMMIT, "\n".join(found)
    # each question once: the same diff, merge base or commit list is never asked twice
    for kind in ("diff-tree", "merge-base", "rev-list", "rev-parse"):
        assert sum(line.startswith(kind) for line in found) <= 1, "\n".join(found)
    assert git(mine.root, "status", "--porcelain") == ""
    git_starts(logged_git)
    # the new HEAD's tree passed the sync's checks: the next command asks git nothing about it
    assert cli("list", "--vault", str(mine.root)).returncode == 0
    after = git_starts(logged_git)
    assert not any(line.startswith("diff-tree") for line in after), "\n".join(after)


def test_the_git_processes_of_a_sync_do_not_grow_with_the_files_it_takes(pair, logged_git):
    mine, peer = pair
    synced(mine, logged_git)
    peer_writes(peer, 200)
    git_starts(logged_git)
    found = synced(mine, logged_git)
    assert len(list((mine.root / "facts").glob("bulk-*.md"))) == 200
    # the commit is made without the hook: its INDEX.md commit costs what it costs
    assert len(found) <= MANY_FILES + INDEX_COMMIT + NO_VIEW_YET, "\n".join(found)
    assert sum(line.startswith("cat-file") for line in found) <= 5, "\n".join(found)
    assert git(mine.root, "status", "--porcelain") == ""
    assert git(mine.root, "log", "-1", "--format=%s").strip() == "index: regenerate INDEX.md"


def test_a_sync_over_a_hookless_commit_starts_only_its_index_md_commits_own_processes(pair, logged_git):
    """The same peer commit as above, made without vault-mem's hooks, one file, taken by a vault
    that writes as agents do (its committed view is HEAD's): beyond what the sync of an agent's
    commit starts, only the INDEX.md commit's own processes; each question still asked once."""
    mine, peer = pair
    mine.remember("mine-note", "a note of mine", "the build runs nightly")
    synced(mine, logged_git)
    git(peer.root, "pull", "-q", "origin", "main")
    (peer.root / "facts" / "hookless.md").write_text(
        "---\ndescription: a peer's hookless note\ncreated: 2026-01-01\nupdated: 2026-01-01\nsource: user\n---\nbody\n")
    git(peer.root, "add", "facts")
    git(peer.root, "commit", "-q", "--no-verify", "-m", "hookless note")
    git(peer.root, "push", "-q", "origin", "HEAD:main")
    git_starts(logged_git)
    found = synced(mine, logged_git)
    assert len(found) <= ONE_COMMIT + INDEX_COMMIT, "\n".join(found)
    for kind in ("diff-tree", "merge-base", "rev-list", "rev-parse"):
        assert sum(line.startswith(kind) for line in found) <= 1, "\n".join(found)
    assert git(mine.root, "status", "--porcelain") == ""
    assert git(mine.root, "log", "-1", "--format=%s").strip() == "index: regenerate INDEX.md"
    assert git(mine.root, "rev-parse", "HEAD").strip() == git(mine.root, "rev-parse", "origin/main").strip()
    git_starts(logged_git)
    # the INDEX.md commit passed the sync's checks: the next command asks git nothing about it
    assert cli("list", "--vault", str(mine.root)).returncode == 0
    after = git_starts(logged_git)
    assert not any(line.startswith("diff-tree") for line in after), "\n".join(after)


def test_a_sync_never_moves_the_branch_under_a_persons_git_commit(pair, tmp_path):
    """A sync moves HEAD once, at its end, by a compare-and-swap: a person's `git commit` that
    read HEAD before (here at its message editor, holding git's index.lock) died at its own ref
    update with "cannot lock ref 'HEAD'" when the sync moved the branch under it. The sync now
    moves it as an agent commit does: not while a person's git command that moves the branch
    runs, under index.lock; the person's commit lands, and the sync says HEAD moved."""
    import subprocess
    import threading

    mine, peer = pair
    peer_writes(peer, 1)
    note = mine.root / "notes" / "hand.md"
    note.parent.mkdir(exist_ok=True)
    note.write_text("---\ndescription: my hand note\ncreated: 2026-01-01\nupdated: 2026-01-01\nsource: user\n---\nmine\n")
    git(mine.root, "add", "notes/hand.md")
    go = tmp_path / "go"
    editor = f"sh -c 'while [ ! -e {go} ]; do sleep 0.05; done; echo \"hand note\" > \"$1\"' -"
    proc = subprocess.Popen(["git", "-c", "core.hooksPath=/dev/null", "-c", f"core.editor={editor}", "commit"],
                            cwd=mine.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(1.5, go.touch)
    try:
        for _ in range(2400):
            if (mine.root / ".git" / "COMMIT_EDITMSG").exists():
                break
            time.sleep(0.025)
        timer.start()
        result = cli("sync", "--vault", str(mine.root))
        _out, err = proc.communicate(timeout=60)
    finally:
        timer.cancel()
        go.touch()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "hand note" in git(mine.root, "log", "--format=%s")
    assert result.returncode == 0 or "sync again" in result.stderr, result.stderr
