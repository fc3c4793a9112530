"""INDEX.md after a person's ``git pull`` (or checkout) brings a peer's commit made without
vault-mem's hooks, with no daemon running (issue 25: "the committed INDEX.md always matches the
committed tree after a person's own git operations"; "no vault needing hand repair").

A peer's plain ``git commit`` of a new memory leaves INDEX.md as it was. The post-merge hook of
a fast-forward pull wrote INDEX.md on disk from the new files and committed nothing, so INDEX.md
stood modified until the next agent write: ``git status`` showed it, and the person's ``git
revert`` of a commit that changed INDEX.md, or ``git checkout`` of a branch whose INDEX.md differs,
was refused by git ("your local changes would be overwritten"). Now the hook commits INDEX.md
alone in the person's name right there (the one rule, ``vault.person.commit_persons_index``);
where git's own operation is still under way when its hook runs (a merge commit's post-merge, a
rebase's post-rewrite), INDEX.md is held back as HEAD's, so the work tree stays clean, and the
next command commits it in the person's name.

Each case: a real bare remote, the person's vault made by ``vault-mem init`` (hooks installed),
a peer's plain git clone, real git pulls.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import cli, git, git_status, person_and_peer, push_as_peer

PERSON = "Test Person"
PEER_FACT = "facts/peer-fact.md"


def _peer_adds_a_memory(peer: Path) -> str:
    """The peer's plain commit (no hooks) of a new memory, pushed: its id."""
    git(peer, "pull", "-q", "origin", "main")
    (peer / "facts").mkdir(exist_ok=True)
    (peer / PEER_FACT).write_text("---\ndescription: The staging database is pg-stage-2\n---\n\nbody\n")
    push_as_peer(peer, "peer: the staging database")
    return git(peer, "rev-parse", "HEAD").strip()


def _pull(mine: Path, how: str) -> None:
    if how == "fast-forward":
        git(mine, "pull", "-q", "--ff-only", "origin", "main")
    elif how == "merge":
        git(mine, "-c", "pull.rebase=false", "pull", "-q", "--no-edit", "origin", "main")
    elif how == "rebase":
        git(mine, "pull", "-q", "--rebase", "origin", "main")
    else:  # the person's uncommitted edit of another memory, stashed and put back by git
        git(mine, "pull", "-q", "--rebase", "--autostash", "origin", "main")


@pytest.mark.parametrize("how", ["fast-forward", "merge", "rebase", "rebase-autostash"])
def test_a_pull_of_a_peers_hookless_memory_leaves_the_work_tree_clean_and_index_md_in_the_persons_name(tmp_path, how):
    mine, peer = person_and_peer(tmp_path)
    assert cli("--vault", str(mine), "remember", "agent-fact", "-d", "The CI runs on Buildkite").returncode == 0
    git(mine, "branch", "side", "HEAD~1")  # INDEX.md there lacks agent-fact: a checkout rewrites it
    git(mine, "push", "-q", "origin", "main")
    peer_commit = _peer_adds_a_memory(peer)
    if how != "fast-forward":  # an agent writes here meanwhile: the pull merges or rebases
        assert cli("--vault", str(mine), "remember", "local-fact", "-d", "Deploys go out on Tuesdays").returncode == 0
    edit = mine / "preferences" / "editor-choice.md"
    if how == "rebase-autostash":
        edit.write_text(edit.read_text() + "\nThe person's line, not committed yet.\n")
    _pull(mine, how)
    status = git(mine, "status", "--porcelain")
    assert status == ("" if how != "rebase-autostash" else " M preferences/editor-choice.md\n"), \
        (status, git(mine, "log", "-3", "--format=%h %an: %s"))
    # the person's next git command is not refused for INDEX.md
    if how == "rebase-autostash":
        git(mine, "stash", "-q")
    co = subprocess.run(["git", "checkout", "-q", "side"], cwd=mine, capture_output=True, text=True)
    assert co.returncode == 0, co.stderr
    git(mine, "checkout", "-q", "main")
    if how == "rebase-autostash":
        git(mine, "stash", "pop", "-q")
    if how in ("fast-forward",):
        # committed by the pull's own hook, before any vault-mem command ran
        assert git(mine, "rev-parse", "HEAD~1").strip() == peer_commit, git(mine, "log", "-3", "--format=%an: %s")
    else:
        assert cli("--vault", str(mine), "list").returncode == 0  # the next command
    assert git(mine, "log", "-1", "--format=%an %s").strip() == f"{PERSON} index: regenerate INDEX.md", \
        git(mine, "log", "-3", "--format=%an: %s")
    assert git(mine, "show", "--name-only", "--format=", "HEAD").split() == ["INDEX.md"]
    assert "peer-fact" in git(mine, "show", "HEAD:INDEX.md")
    # the next agent commit changes its own line of INDEX.md only
    assert cli("--vault", str(mine), "remember", "later-fact", "-d", "Backups run nightly").returncode == 0
    added = [line for line in git(mine, "show", "--format=", "HEAD", "--", "INDEX.md").splitlines()
             if line.startswith("+") and not line.startswith("+++")]
    assert len(added) == 1 and "later-fact" in added[0], added


def test_the_daemon_commits_index_md_a_rebase_over_a_peers_hookless_memory_left_stale(tmp_path):
    """With the daemon running, a person's `git pull --rebase` of a peer's hookless memory over an
    agent commit of their own (bench/chaos.py's pull): the replayed agent commit carries INDEX.md
    as a textual diff, without the peer's line. The one rule said no (INDEX.md changed in the
    commits since vault-mem's last), so the daemon wrote the files' INDEX.md on disk and committed
    nothing: it stood modified until the next agent write, and the person's `git checkout` was
    refused for it meanwhile (bench/chaos.py: one checkout refused 8 times in a row, INDEX.md
    alone for the last). It is committed at once in the person's name."""
    from conftest import wait_for
    from test_daemon import start_daemon, stop

    mine, peer = person_and_peer(tmp_path)
    git(mine, "branch", "side")
    _peer_adds_a_memory(peer)
    assert cli("--vault", str(mine), "remember", "local-fact", "-d", "Deploys go out on Tuesdays").returncode == 0
    daemon = start_daemon(mine, VAULT_MEM_QUIET_SECONDS="600", VAULT_MEM_DEBOUNCE_MS="20")
    try:
        git(mine, "pull", "-q", "--rebase", "origin", "main")
        wait_for(lambda: git(mine, "log", "-1", "--format=%s").strip() == "index: regenerate INDEX.md", 60,
                 "INDEX.md committed alone in the person's name")  # a bound for a loaded machine
        wait_for(lambda: git_status(mine) == "", 60, "a clean work tree")
        co = subprocess.run(["git", "checkout", "-q", "side"], cwd=mine, capture_output=True, text=True)
        assert co.returncode == 0, co.stderr
    finally:
        rc, log = stop(daemon)
    assert rc == 0 and "Traceback" not in log, log[-2000:]
    assert git(mine, "log", "-1", "--format=%an", "main").strip() == PERSON
    assert "peer-fact" in git(mine, "show", "main:INDEX.md") and "local-fact" in git(mine, "show", "main:INDEX.md")


@pytest.mark.parametrize("local_write", [False, True], ids=["fast-forward", "replayed"])
def test_a_sync_of_a_peers_hookless_memory_leaves_the_work_tree_clean_and_index_md_in_the_persons_name(
        tmp_path, local_write):
    """`vault-mem sync` of the same peer's commit as the pulls above: it wrote the files' INDEX.md
    on disk and committed nothing, so ` M INDEX.md` stood until the next agent write (atkagent's
    finding), where a plain `git pull` commits INDEX.md alone. A sync that replays a commit of
    this machine's over the peer's regenerates INDEX.md in it; a fast-forward now commits INDEX.md
    alone in the person's name by the pull's one rule and pushes it with the rest."""
    mine, peer = person_and_peer(tmp_path)
    assert cli("--vault", str(mine), "sync").returncode == 0
    _peer_adds_a_memory(peer)
    if local_write:  # an agent commit of this machine's is replayed over the peer's
        assert cli("--vault", str(mine), "remember", "local-fact", "-d", "Deploys go out on Tuesdays").returncode == 0
    r = cli("--vault", str(mine), "sync")
    assert r.returncode == 0, r.stderr
    assert git(mine, "status", "--porcelain") == "", git(mine, "log", "-3", "--format=%an: %s")
    assert "peer-fact" in git(mine, "show", "HEAD:INDEX.md")
    if not local_write:
        assert git(mine, "log", "-1", "--format=%an %s").strip() == f"{PERSON} index: regenerate INDEX.md", \
            git(mine, "log", "-3", "--format=%an: %s")
        assert git(mine, "show", "--name-only", "--format=", "HEAD").split() == ["INDEX.md"]
    assert git(mine, "rev-parse", "HEAD").strip() == git(mine, "rev-parse", "origin/main").strip()  # pushed


def test_two_clones_that_sync_the_same_hookless_commit_publish_one_index_md_commit(tmp_path):
    """The team case: two of the person's clones each take the peer's hookless commit and each
    commit INDEX.md alone before seeing the other's (here the second syncs first through a copy
    of the remote, as it would when the first's push had not landed yet). The first pushes its
    INDEX.md commit; the second's sync replays its own over it: the same tree, so the replay
    drops it. No conflict, no second INDEX.md commit, nothing pushed, a clean work tree."""
    mine, peer = person_and_peer(tmp_path)
    bare, mate, stage = tmp_path / "remote.git", tmp_path / "mate", tmp_path / "stage.git"
    git(tmp_path, "clone", "-q", str(bare), str(mate))
    for clone in (mine, mate):
        assert cli("--vault", str(clone), "sync").returncode == 0
    peer_commit = _peer_adds_a_memory(peer)
    git(tmp_path, "clone", "-q", "--bare", str(bare), str(stage))  # the remote as the second clone saw it
    git(mate, "remote", "add", "stage", str(stage))
    # the person's laptop: another email, so another commit than the first's whatever its second
    laptop = {"GIT_AUTHOR_EMAIL": "person@laptop.example", "GIT_COMMITTER_EMAIL": "person@laptop.example"}
    r = cli("--vault", str(mate), "sync", "--remote", "stage", env=laptop)
    assert r.returncode == 0, r.stderr
    mates = git(mate, "rev-parse", "HEAD").strip()
    assert git(mate, "rev-parse", "HEAD~1").strip() == peer_commit  # its own INDEX.md commit, unpublished
    r = cli("--vault", str(mine), "sync")
    assert r.returncode == 0, r.stderr
    mines = git(mine, "rev-parse", "HEAD").strip()
    assert mines != mates and git(mine, "rev-parse", "HEAD~1").strip() == peer_commit
    assert git(bare, "rev-parse", "main").strip() == mines  # the first's is published
    r = cli("--vault", str(mate), "sync")
    assert r.returncode == 0, r.stderr
    assert git(mate, "status", "--porcelain") == ""
    assert git(mate, "rev-parse", "HEAD").strip() == mines, git(mate, "log", "-3", "--format=%h %an: %s")
    assert git(bare, "rev-parse", "main").strip() == mines  # nothing of the second's pushed
    assert git(mate, "log", "--format=%s", f"{peer_commit}..HEAD").splitlines() == ["index: regenerate INDEX.md"]
    assert not list(mate.glob("*/*.conflict-*"))
    assert "peer-fact" in git(mate, "show", "HEAD:INDEX.md")
