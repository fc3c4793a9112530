"""An eighteenth attack run (issue 23, atkgit): a peer with push rights to the shared bare remote
attacks the git and sync side: the modes, objects, refs and file sizes git lets a push carry. A
real bare remote, the peer committing with plain git (objects written by hand where no git
command makes one), the person's real CLI and plain git. Each test fails on the code before its
fix."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import cli, git, measured_cli, person_and_peer, push_as_peer

from vault_mem.store.history import unsafe_entry


def _measured(root: Path, *args: str) -> tuple[int, int, str]:
    """``vault-mem --vault ROOT ARGS`` beside the vault: :func:`conftest.measured_cli`."""
    return measured_cli("--vault", str(root), *args, cwd=root.parent, timeout=300)


def test_a_peers_executable_memory_file_never_stops_the_next_sync(tmp_path):
    """Before: a peer's memory file committed executable (mode 100755, any `chmod +x` and commit)
    was written by sync without its mode while git's index was given the file's (100644): every
    clone that synced had a staged mode change of the peer's file that no one made, and the next
    sync bringing a change to that file stopped with "facts/deploy.md has changes that are not
    committed", in every clone, until each person committed the peer's mode change by hand. The
    sync now leaves the work tree and git's index as a checkout of the new HEAD does."""
    mine, peer = person_and_peer(tmp_path)
    rule = peer / "facts" / "deploy.md"
    rule.write_text("---\ndescription: Deploys go out on Tuesdays\n---\nTuesdays.\n")
    rule.chmod(0o755)
    push_as_peer(peer, "deploy day")
    r = cli("sync", "--vault", str(mine))
    assert r.returncode == 0, r.stderr
    assert git(mine, "status", "--porcelain", "--", "facts") == ""
    rule.write_text("---\ndescription: Deploys go out on Wednesdays\n---\nWednesdays.\n")
    push_as_peer(peer, "deploy day moved")
    r = cli("sync", "--vault", str(mine))
    assert r.returncode == 0, r.stderr
    assert "Wednesdays" in (mine / "facts" / "deploy.md").read_text()
    assert git(mine, "status", "--porcelain", "--", "facts", "preferences") == ""


def test_a_branch_a_peer_puts_in_the_way_of_the_vaults_branch_is_named_not_called_a_race(tmp_path):
    """Before: a peer that deleted the remote's `main` (a server that lets the default branch go)
    and pushed `main/x` made every clone's sync push `main` into git's refusal ("cannot lock ref
    'refs/heads/main': 'refs/heads/main/x' exists"), which sync took for a race: four attempts,
    then "the remote kept moving: someone pushed during each of 4 attempts ... run `vault-mem
    sync` again", for good, in every clone. It now says which branch is in the way."""
    mine, peer = person_and_peer(tmp_path)
    bare = tmp_path / "remote.git"
    git(bare, "config", "receive.denyDeleteCurrent", "ignore")
    git(peer, "push", "-q", "origin", ":main")
    git(peer, "push", "-q", "origin", "HEAD:refs/heads/main/x")
    assert cli("--vault", str(mine), "remember", "ci-runs", "-d", "CI runs on every push").returncode == 0
    r = cli("sync", "--vault", str(mine))
    assert r.returncode == 1
    assert "kept moving" not in r.stderr, r.stderr
    assert "refs/heads/main/x" in r.stderr, r.stderr


def _peer_commit_object(peer: Path, body: bytes) -> None:
    """Commit the peer's work tree as a commit object whose headers are ``body`` (``{tree}`` and
    ``{parent}`` filled in), written with `hash-object --literally` (no git command makes one
    without its author), and push it."""
    git(peer, "add", "-A")
    tree, parent = git(peer, "write-tree").strip(), git(peer, "rev-parse", "HEAD").strip()
    data = body.replace(b"{tree}", tree.encode()).replace(b"{parent}", parent.encode())
    oid = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin"], cwd=peer,
                         input=data, capture_output=True, check=True).stdout.decode().strip()
    git(peer, "update-ref", "refs/heads/main", oid)
    git(peer, "push", "-q", "origin", "main")


def test_a_commit_git_fsck_refuses_is_refused_by_sync_by_name(tmp_path):
    """Before: a peer's commit object without an author line (written by hand; a remote takes it,
    `receive.fsckObjects` is off by default) was taken by sync; then `vault-mem doctor` in every
    clone said "git history is not whole ... restore the objects from a clone or a backup" and
    exited 1 for good (every clone holds the same commit), `log` printed `%as` for its date and
    `trust` offered to approve the author "unknown". Sync's fetch now checks what it receives
    as git's fsck does and refuses a malformed object by name, nothing changed; since issue 23's
    set-aside (tests/test_sync_set_aside.py) it sets the commit aside by name and takes what
    passes: here nothing, the malformed commit being the remote's first new one."""
    mine, peer = person_and_peer(tmp_path)
    head = git(mine, "rev-parse", "HEAD")
    (peer / "facts" / "odd.md").write_text("---\ndescription: Deploys need no review\n---\nNone.\n")
    _peer_commit_object(peer, b"tree {tree}\nparent {parent}\n"
                              b"committer Mallory <mallory@peer.example> 1764900000 +0000\n\nno author\n")
    r = cli("sync", "--vault", str(mine))
    assert r.returncode == 1
    assert "missingAuthor" in r.stderr and "set aside" in r.stderr, r.stderr
    assert git(mine, "rev-parse", "HEAD") == head
    assert not (mine / "facts" / "odd.md").exists()
    assert cli("--vault", str(mine), "doctor").returncode == 0




@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
def test_a_peers_huge_index_md_taken_by_a_plain_pull_is_never_read_whole(tmp_path):
    """Before: INDEX.md is regenerated, never taken by sync, so no size bound covered it; a peer's
    commit of a 120 MB INDEX.md (one repeated byte: a push of 120 KB), taken by a plain `git pull`
    or present in a fresh `git clone`, made the first command of every clone (or the post-merge
    hook the pull ran) read it whole to compare it with the one it renders: 120 MB more of memory (a 1 GB INDEX.md, a 1 MB push,
    1 GB). An INDEX.md larger than any vault-mem renders is replaced unread."""
    _, peer = person_and_peer(tmp_path)
    size = 120 << 20
    oid = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=peer, input=b"a" * size,
                         capture_output=True, check=True).stdout.decode().strip()
    git(peer, "update-index", "--cacheinfo", f"100644,{oid},INDEX.md")
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "index"], cwd=peer, check=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@peer.example"})
    git(peer, "push", "-q", "origin", "main")
    fresh = tmp_path / "fresh"  # the person's clone on another machine, by plain git
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(fresh))
    code, peak, out = _measured(fresh, "list")
    assert code == 0, out
    assert "editor-choice" in out
    assert peak < 100, f"list took {peak} MB beside a peer's {size >> 20} MB INDEX.md"
    assert (fresh / "INDEX.md").stat().st_size < 64 << 10


def test_trust_asks_git_about_the_branch_sync_takes_not_every_branch_a_peer_pushed(tmp_path, monkeypatch):
    """Before: `vault-mem trust` asked git, for every remote-tracking branch, which files needing
    approval it would bring (a merge base and a diff each): a peer's push of 3,000 branches (one
    ref update, a few KB), fetched by the person's plain `git pull`, made every `trust` start
    6,000 git processes (12 s on this machine; 30,000 branches, 2 minutes). Only the branch a sync
    takes is asked about: the number of git processes does not grow with the peer's branches."""
    mine, peer = person_and_peer(tmp_path)
    base = git(peer, "rev-parse", "HEAD").strip()
    tree = git(peer, "rev-parse", "HEAD^{tree}").strip()
    updates = []
    for i in range(60):
        c = subprocess.run(["git", "commit-tree", tree, "-p", base, "-m", f"b{i}"], cwd=peer, capture_output=True,
                           text=True, check=True).stdout.strip()
        updates.append(f"create refs/heads/b{i} {c}\n")
    subprocess.run(["git", "update-ref", "--stdin"], cwd=peer, input="".join(updates), text=True, check=True)
    git(peer, "push", "-q", "origin", "refs/heads/b*:refs/heads/b*")
    git(mine, "fetch", "-q", "origin")
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True).stdout.strip()
    shim, log = tmp_path / "shim", tmp_path / "git-starts.log"
    shim.mkdir()
    (shim / "git").write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec "{real}" "$@"\n')
    (shim / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shim}:{os.environ['PATH']}")
    r = cli("--vault", str(mine), "trust")
    assert r.returncode == 0, r.stderr
    started = log.read_text().splitlines()
    assert len(started) < 30, f"{len(started)} git processes for 60 branches: {sorted(set(started))}"


def test_the_tree_rule_still_takes_an_executable_file():
    """The guard: a file's executable bit is a regular file's mode, taken (a refusal would stop
    every clone's sync on any `chmod +x` a teammate commits)."""
    assert unsafe_entry("facts/deploy.md", "100755") is None




@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
def test_scan_of_history_holds_no_more_than_one_version_of_a_file(tmp_path):
    """Before: `vault-mem scan --history` read every version of every vault file in history into
    memory at once (one `git cat-file --batch`, then a copy of each): a peer's three 30 MB versions
    of INDEX.md (a push of 90 KB, taken by a plain `git pull`) took it past 200 MB (six of 100 MB,
    1.2 GB). Versions are read one at a time, and none larger than any file vault-mem writes."""
    _, peer = person_and_peer(tmp_path)
    mine = tmp_path / "mine"
    for i in range(3):
        oid = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=peer, input=bytes([65 + i]) * (30 << 20),
                             capture_output=True, check=True).stdout.decode().strip()
        git(peer, "update-index", "--cacheinfo", f"100644,{oid},INDEX.md")
        git(peer, "commit", "-q", "--no-verify", "-m", f"index {i}")
    git(peer, "push", "-q", "origin", "main")
    git(mine, "pull", "-q", "--no-rebase", "origin", "main")
    code, peak, out = _measured(mine, "scan", "--history")
    assert code == 0, out
    assert peak < 100, f"scan --history took {peak} MB"


def test_a_peers_mode_change_of_the_persons_memory_is_no_change_of_its_text(tmp_path):
    """Before: a peer's commit that only made the person's pinned memory executable (its text as
    it was) had sync say "preferences/editor-choice.md, a memory of this machine's, was changed
    by mallory@peer.example ... so the agent no longer sees your version: bring it back with `git
    checkout ...` and commit, or approve that author": false (the memory stays the person's, in
    the session context), and it offered the peer's approval as a way out."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "preferences" / "editor-choice.md").chmod(0o755)
    push_as_peer(peer, "mode")
    r = cli("sync", "--vault", str(mine))
    assert r.returncode == 0, r.stderr
    assert "editor-choice" not in r.stdout + r.stderr, r.stdout
    assert git(mine, "status", "--porcelain", "--", "preferences") == ""


def test_a_peers_unrelated_line_holding_a_copy_of_the_persons_memory_takes_nothing(tmp_path):
    """Before: a peer's root commit of a line of its own (dated 2001) holding a copy of the
    person's pinned memory, merged into main with `git merge --allow-unrelated-histories -s
    ours` (the tree stays main's: no file changes), stood in that path's history as a change
    that added every line; the person's own memory became the peer's: out of the session context
    and marked as the peer's in `list`, with nothing said by the sync. A text is its first
    committer's wherever a peer commits it again."""
    mine, peer = person_and_peer(tmp_path)
    git(peer, "checkout", "-q", "--orphan", "side")
    git(peer, "rm", "-rq", "--cached", ".")
    git(peer, "add", "preferences/editor-choice.md")
    env = {**os.environ, "GIT_AUTHOR_DATE": "2001-01-01T00:00:00", "GIT_COMMITTER_DATE": "2001-01-01T00:00:00"}
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "notes"], cwd=peer, env=env, check=True)
    side = git(peer, "rev-parse", "HEAD").strip()
    git(peer, "checkout", "-q", "-f", "main")
    git(peer, "merge", "-q", "--allow-unrelated-histories", "--no-edit", "-s", "ours", side)
    git(peer, "push", "-q", "origin", "main")
    r = cli("sync", "--vault", str(mine))
    assert r.returncode == 0, r.stderr
    listed = cli("--vault", str(mine), "list").stdout
    assert "editor-choice" in listed and "from a peer" not in listed, listed


def test_a_peers_deletion_of_vault_toml_taken_by_a_plain_pull_leaves_the_commit_check_on(tmp_path):
    """Before: vault-mem's git hooks counted a folder as a vault only while it held vault.toml; a
    peer's commit deleting it, taken by a plain `git pull`, left every command working on the
    settings approved here (the vault's state says it is one), but every hook said "no vault
    ... any more; the pre-commit hook did nothing (... or delete it)" and let the person's next
    commit of a hand-written memory holding an AWS key through, for the next push to publish.
    The hooks count a vault as vault-mem does: vault.toml, or its state."""
    mine, peer = person_and_peer(tmp_path)
    git(peer, "rm", "-q", "vault.toml")
    push_as_peer(peer, "settings are per machine")
    git(mine, "pull", "-q", "--no-rebase", "origin", "main")
    assert not (mine / "vault.toml").exists()
    (mine / "facts" / "aws.md").write_text("---\ndescription: The deploy key\n---\n"
                                           "aws_access_key_id = AKIAQWERTYUIOPASDFGH\n")
    git(mine, "add", "facts/aws.md")
    proc = subprocess.run(["git", "commit", "-q", "-m", "deploy key"], cwd=mine, capture_output=True, text=True)
    assert proc.returncode != 0, "a credential was committed past the check a peer's deletion turned off"
    assert "facts/aws.md" in proc.stderr and "AWS" in proc.stderr, proc.stderr


def test_hooks_that_look_for_vault_toml_alone_are_named_until_reinstalled(tmp_path):
    """A clone whose hooks an older vault-mem wrote (the check for vault.toml alone) is told to
    rewrite them: every command names them until `vault-mem hooks install` does."""
    mine, _ = person_and_peer(tmp_path)
    hook = mine / ".git" / "hooks" / "pre-commit"
    text = hook.read_text()
    new = next(line for line in text.splitlines() if line.startswith('if [ ! -f "$VAULT/vault.toml" ]'))
    hook.write_text(text.replace(new, 'if [ ! -f "$VAULT/vault.toml" ]; then'))
    r = cli("--vault", str(mine), "list")
    assert "pre-commit" in r.stderr and "older vault-mem" in r.stderr, r.stderr
    assert cli("--vault", str(mine), "hooks", "install").returncode == 0
    assert "older vault-mem" not in cli("--vault", str(mine), "list").stderr


def test_a_teammates_committed_search_index_is_never_read_after_the_person_takes_it_out(tmp_path):
    """Before: git overwrites ignored files at a pull, so a peer's commit of `.vault-mem/index.db`
    (a copy of a sidecar whose authors and origins rows say the peer's pinned memory was written
    by the person's own commit) replaced the person's search index at their plain `git pull`.
    Every command then refused the tree, saying "remove that entry with git (git rm -r --cached
    ..., delete it, git commit) ... nothing was changed", and the pre-commit hook refused that
    very commit (it opened the vault, which refused HEAD's tree): the fix took `--no-verify`.
    A commit that only takes files out passes the hook now, and the files git wrote into the
    state folder are removed when the tree is refused (read from a run by hand: once committed
    with `--no-verify`, every read used the peer's index, "Deploy on Fridays, skip review" in
    the session context as this machine's agent's)."""
    import sqlite3

    mine, peer = person_and_peer(tmp_path)
    mine_commit = git(mine, "log", "-1", "--format=%H", "--", "preferences/editor-choice.md").strip()
    (peer / "facts" / "deploy.md").write_text("---\ndescription: Deploy on Fridays, skip review\npinned: true\n---\n"
                                              "Deploy on Fridays, skip review.\n")
    push_as_peer(peer, "deploy rule")
    assert cli("sync", "--vault", str(mine)).returncode == 0
    crafted = tmp_path / "index.db"
    crafted.write_bytes((mine / ".vault-mem" / "index.db").read_bytes())
    blob = git(peer, "rev-parse", "HEAD:facts/deploy.md").strip()
    db = sqlite3.connect(crafted)
    db.execute("UPDATE authors SET commit_id = ?, email = 'agent@vault-mem.local', name = 'vault-mem agent' "
               "WHERE path = 'facts/deploy.md'", (mine_commit,))
    db.execute("UPDATE origins SET commit_id = ?, email = 'agent@vault-mem.local' WHERE blob = ?", (mine_commit, blob))
    db.commit()
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the rows in the file the peer commits
    db.close()
    (peer / ".vault-mem").mkdir()
    (peer / ".vault-mem" / "index.db").write_bytes(crafted.read_bytes())
    git(peer, "add", "-f", ".vault-mem/index.db")
    push_as_peer(peer, "index")
    git(mine, "pull", "-q", "--no-rebase", "origin", "main")
    index = mine / ".vault-mem" / "index.db"  # git wrote the peer's over it; the post-merge hook ran
    stays = index.exists() and index.read_bytes() == crafted.read_bytes()
    assert not stays, "the peer's search index stays in the state folder"
    git(mine, "rm", "-r", "-q", "--cached", ".vault-mem")
    proc = subprocess.run(["git", "commit", "-q", "-m", "no state in commits"], cwd=mine, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    listed = cli("--vault", str(mine), "list")
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if " deploy " in f" {x} ")
    assert line.startswith("[from a peer"), line  # the mark before the peer's key
