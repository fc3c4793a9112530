"""A peer's commit that gives a path back the very text this machine last left there (issue 23,
the hole pinned by test_peer_attacks13): a memory's author is the last commit that changed its
path, so the peer's delete then re-add (a move away and back, a re-add across a merge) made
the person's memory the peer's: out of the session context, and the sync, which compares net
changes, named nothing. The rule (``vault/authors._given_back``): a peer's commit that puts at
a path the text this machine's own last commit at that path left there adds nothing; the text
stays that commit's. Where this machine's last word at the path was something else (the
person's ``forget`` or ``git rm``, the person's later edit the peer reverts), or the bytes
differ by one, or the text moves to another key, the peer's commit is the peer's, and the sync
names the person's memory it took. Each case: a real bare remote, a peer clone committing with
raw git, the person's real ``vault-mem sync``."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from conftest import PEER_EMAIL, agent_hook, cli, git, person_and_peer, trusted_by_key

PEER = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": PEER_EMAIL,
        "GIT_COMMITTER_NAME": "Mallory", "GIT_COMMITTER_EMAIL": PEER_EMAIL}
PATH = "preferences/editor-choice.md"
DESCRIPTION = "Uses Helix as the main editor"


def _peer_git(peer, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=peer, env={**os.environ, **PEER}, check=True,
                          capture_output=True, text=True).stdout


def _peer_commit(peer, message: str) -> None:
    _peer_git(peer, "add", "-A")
    _peer_git(peer, "commit", "-q", "--no-verify", "-m", message)


def _sync(mine) -> str:
    r = cli("sync", "--vault", str(mine))
    assert r.returncode == 0, r.stderr
    return r.stdout


def _assert_the_persons(mine, person: bytes) -> None:
    assert (mine / PATH).read_bytes() == person
    assert trusted_by_key(mine)["editor-choice"] is True
    assert "editor-choice" in agent_hook(mine, "session-start", source="startup")
    hits = json.loads(cli("recall", "--vault", str(mine), "--json", "Helix", "editor").stdout)["hits"]
    assert next(h for h in hits if h["key"] == "editor-choice")["trusted"] is True


def _assert_the_peers(mine) -> None:
    assert trusted_by_key(mine)["editor-choice"] is False
    assert "editor-choice" not in agent_hook(mine, "session-start", source="startup")


def _move_away_and_back(peer) -> None:
    _peer_git(peer, "mv", PATH, "preferences/editor.md")
    _peer_commit(peer, "rename")
    _peer_git(peer, "mv", "preferences/editor.md", PATH)
    _peer_commit(peer, "rename back")


def _delete_then_put_back(peer) -> None:
    person = (peer / PATH).read_bytes()
    _peer_git(peer, "rm", "-q", PATH)
    _peer_commit(peer, "tidy")
    (peer / PATH).write_bytes(person)
    _peer_commit(peer, "put back")


def _make_executable(peer) -> None:
    """A commit that changes the file's mode only: git counts it as a change of the path."""
    _peer_git(peer, "update-index", "--chmod=+x", PATH)
    _peer_git(peer, "commit", "-q", "--no-verify", "-m", "mode")


def _put_back_in_a_merge(peer) -> None:
    """Deleted on one line of the peer's, given back by the peer's merge of another line."""
    _peer_git(peer, "checkout", "-q", "-b", "side")
    (peer / "notes").mkdir(exist_ok=True)
    (peer / "notes" / "side.md").write_text("---\ndescription: Side note\n---\n")
    _peer_commit(peer, "side")
    _peer_git(peer, "checkout", "-q", "main")
    _peer_git(peer, "rm", "-q", PATH)
    _peer_commit(peer, "tidy")
    _peer_git(peer, "merge", "-q", "--no-commit", "--no-ff", "side")
    _peer_git(peer, "checkout", "side", "--", PATH)
    _peer_git(peer, "commit", "-q", "--no-verify", "-m", "merge side")


@pytest.mark.parametrize("attack", [_delete_then_put_back, _move_away_and_back, _make_executable, _put_back_in_a_merge])
def test_a_peer_giving_back_the_persons_text_at_its_path_takes_nothing(tmp_path, attack):
    """Before: the delete then put back, the move away then back, and a commit changing the
    file's mode alone made the pinned memory the peer's (its last commit), so it left the
    session context and the sync named nothing. (The
    put back in the peer's merge was held already: git's path history skips a merge that kept
    one side's file, a guard here.)"""
    mine, peer = person_and_peer(tmp_path)
    person = (mine / PATH).read_bytes()
    attack(peer)
    _peer_git(peer, "push", "-q", "origin", "main")
    _sync(mine)
    _assert_the_persons(mine, person)


def test_a_put_back_the_person_synced_in_between_stays_the_persons(tmp_path):
    """The peer's deletion arrives first (the sync names it, and the person goes on: a memory of
    their own, synced, a merge or replay made here); the peer's put back of the same bytes then
    gives the person's text back, not the peer's."""
    mine, peer = person_and_peer(tmp_path)
    person = (mine / PATH).read_bytes()
    _peer_git(peer, "rm", "-q", PATH)
    _peer_commit(peer, "tidy")
    _peer_git(peer, "push", "-q", "origin", "main")
    assert cli("--vault", str(mine), "remember", "shell-choice", "--type", "preference",
               "-d", "Uses fish as the shell").returncode == 0
    said = _sync(mine)
    assert f"{PATH}, a memory of this machine's, was deleted by {PEER_EMAIL}" in said
    _peer_git(peer, "pull", "-q", "--no-rebase", "origin", "main")
    (peer / PATH).write_bytes(person)
    _peer_commit(peer, "put back")
    _peer_git(peer, "push", "-q", "origin", "main")
    _sync(mine)
    _assert_the_persons(mine, person)


@pytest.mark.parametrize("how", ["forget", "git rm"])
def test_a_text_the_person_deleted_does_not_come_back_as_theirs_through_a_peer(tmp_path, how):
    """Guard (held before; a rule that trusted any blob the person once committed would break
    it): the person deleted the memory (``vault-mem forget``, or their own ``git rm`` and
    commit); the peer's commit of the same bytes at the same path is the peer's, out of the
    session context."""
    mine, peer = person_and_peer(tmp_path)
    person = (mine / PATH).read_bytes()
    if how == "forget":
        assert cli("--vault", str(mine), "forget", "editor-choice").returncode == 0
    else:
        git(mine, "rm", "-q", PATH)
        git(mine, "commit", "-q", "-m", "drop the editor note")
    _sync(mine)
    _peer_git(peer, "pull", "-q", "origin", "main")
    (peer / PATH).write_bytes(person)
    _peer_commit(peer, "put back")
    _peer_git(peer, "push", "-q", "origin", "main")
    _sync(mine)
    assert (mine / PATH).read_bytes() == person
    _assert_the_peers(mine)


def test_a_peers_revert_of_the_persons_edit_is_the_peers_and_named(tmp_path):
    """Guard: the person edited the memory and synced; the peer's ``git revert`` puts back the
    person's older text. The person's last word at the path is the edit: the reverted text is
    the peer's choice, out of the context, and the sync names the change with the way back."""
    mine, peer = person_and_peer(tmp_path)
    assert cli("--vault", str(mine), "remember", "editor-choice", "--type", "preference", "--pinned",
               "-d", "Uses Helix with the default keymap").returncode == 0
    _sync(mine)
    _peer_git(peer, "pull", "-q", "origin", "main")
    _peer_git(peer, "revert", "--no-edit", "HEAD")
    _peer_git(peer, "push", "-q", "origin", "main")
    said = _sync(mine)
    assert DESCRIPTION in (mine / PATH).read_text()
    _assert_the_peers(mine)
    assert f"{PATH}, a memory of this machine's, was changed by {PEER_EMAIL}" in said


def test_a_put_back_with_one_byte_changed_is_the_peers_and_named(tmp_path):
    """Guard: deleted, then put back one byte different: the peer's text (the peer wrote that
    byte); the sync names the person's memory it replaced, with the way back to it."""
    mine, peer = person_and_peer(tmp_path)
    person = (mine / PATH).read_bytes()
    _peer_git(peer, "rm", "-q", PATH)
    _peer_commit(peer, "tidy")
    (peer / PATH).write_bytes(person.replace(b"Helix", b"Helyx"))
    _peer_commit(peer, "put back")
    _peer_git(peer, "push", "-q", "origin", "main")
    said = _sync(mine)
    assert trusted_by_key(mine)["editor-choice"] is False
    assert "editor-choice" not in agent_hook(mine, "session-start", source="startup")
    assert f"{PATH}, a memory of this machine's, was changed by {PEER_EMAIL}" in said
    back = said.split(f"{PATH}, a memory of this machine's")[1].split("git checkout ")[1].split(" ")[0]
    assert git(mine, "show", f"{back}:{PATH}").encode() == person


def test_a_peers_move_to_another_key_names_the_persons_memory_it_took(tmp_path):
    """The text moves to a key the peer chose (what ``supersedes`` and ``refs`` named now points
    nowhere): that memory is the peer's, and the sync names the person's it deleted. Only the
    same path gives a text back."""
    mine, peer = person_and_peer(tmp_path)
    _peer_git(peer, "mv", PATH, "preferences/editor.md")
    _peer_commit(peer, "rename")
    _peer_git(peer, "push", "-q", "origin", "main")
    said = _sync(mine)
    assert f"{PATH}, a memory of this machine's, was deleted by {PEER_EMAIL}" in said
    assert trusted_by_key(mine)["editor"] is False
    assert "Uses Helix as the main editor (" not in agent_hook(mine, "session-start", source="startup")


@pytest.mark.parametrize("put_back", [False, True])
def test_a_peers_merge_that_drops_the_persons_forget_gives_nothing_back_as_theirs(tmp_path, put_back):
    """The person forgot the memory and synced; the peer, on a line that never had the forget
    (and, ``put_back``, on which it deleted and put back the same bytes), merges the remote
    keeping its own tree (``git merge -s ours``): the memory is back at its path. git's path
    history skips a merge that kept one side's file, so the path's last change was the
    person's own first commit (or, put back, the newest commit of the peer's line, whose
    history never had the forget): before, the forgotten text came back as the person's, in
    the session context. The person's forget is their last word at the path: the text is the
    peer's."""
    mine, peer = person_and_peer(tmp_path)
    person = (mine / PATH).read_bytes()
    assert cli("--vault", str(mine), "forget", "editor-choice").returncode == 0
    _sync(mine)
    if put_back:
        _peer_git(peer, "rm", "-q", PATH)
        _peer_commit(peer, "tidy")
        (peer / PATH).write_bytes(person)
    (peer / "notes").mkdir(exist_ok=True)
    (peer / "notes" / "peer.md").write_text("---\ndescription: A note of the peer's\n---\n")
    _peer_commit(peer, "notes")
    _merge_ours_over_the_persons_side(mine, peer, person)
    _assert_the_peers(mine)


def _merge_ours_over_the_persons_side(mine: Path, peer: Path, person: bytes) -> None:
    """The peer merges the remote (the person's forget) with ``-s ours``, keeping its own side,
    and pushes; the person syncs: the person's text is back at the path."""
    _peer_git(peer, "fetch", "-q", "origin")
    _peer_git(peer, "merge", "-q", "-s", "ours", "-m", "merge", "origin/main")
    _peer_git(peer, "push", "-q", "origin", "main")
    _sync(mine)
    assert (mine / PATH).read_bytes() == person


def test_the_answers_stand_after_the_sidecar_is_rebuilt(tmp_path):
    """The authors a rebuilt sidecar works out from all of history at once (``vault-mem
    reindex``: one ``git log`` of every commit, not the commits a sync added) give the same
    answers: the text the peer put back is the person's; the text a peer's merge brought back
    over the person's ``forget`` is the peer's (before, the rebuild made it the person's first
    commit's, whatever the sync had found)."""
    mine, peer = person_and_peer(tmp_path)
    person = (mine / PATH).read_bytes()
    (mine / "notes").mkdir(exist_ok=True)
    (mine / "notes" / "kept.md").write_text("---\ndescription: Kept note of the person's\n---\n")
    git(mine, "add", "notes/kept.md")
    git(mine, "commit", "-q", "-m", "kept")
    _sync(mine)
    _peer_git(peer, "pull", "-q", "origin", "main")
    kept = (peer / "notes" / "kept.md").read_bytes()
    _peer_git(peer, "rm", "-q", "notes/kept.md")
    _peer_commit(peer, "tidy")
    (peer / "notes" / "kept.md").write_bytes(kept)
    _peer_commit(peer, "put back")
    assert cli("--vault", str(mine), "forget", "editor-choice").returncode == 0
    _sync(mine)
    _merge_ours_over_the_persons_side(mine, peer, person)
    for rebuilt in (False, True):
        if rebuilt:
            r = cli("--vault", str(mine), "reindex")
            assert r.returncode == 0, r.stderr
        trusted = trusted_by_key(mine)
        assert (trusted["kept"], trusted["editor-choice"]) == (True, False), rebuilt


@pytest.mark.parametrize("row", ['{"head": "%s", "paths": {"%s": [[1]]}}', '{"head": "%s", "paths": {"%s": 7}}',
                                 'not json %s %s'])
def test_a_damaged_kept_history_is_read_again_from_git(tmp_path, row):
    """The path histories kept in the sidecar (one ``meta`` row, for HEAD) are derived state: a
    damaged row is read again from git, never an error and never another answer."""
    import sqlite3

    mine, peer = person_and_peer(tmp_path)
    person = (mine / PATH).read_bytes()
    _delete_then_put_back(peer)
    _peer_git(peer, "push", "-q", "origin", "main")
    _sync(mine)
    assert trusted_by_key(mine)["editor-choice"] is True
    head = git(mine, "rev-parse", "HEAD").strip()
    with sqlite3.connect(mine / ".vault-mem" / "index.db") as db:
        assert db.execute("SELECT count(*) FROM meta WHERE name = 'path_histories'").fetchone()[0] == 1
        db.execute("UPDATE meta SET value = ? WHERE name = 'path_histories'", (row % (head, PATH),))
    _assert_the_persons(mine, person)


def _kept_for(mine) -> str:
    import sqlite3

    with sqlite3.connect(mine / ".vault-mem" / "index.db") as db:
        return json.loads(db.execute("SELECT value FROM meta WHERE name = 'path_histories'").fetchone()[0])["head"]


def test_a_kept_history_outlives_commits_that_leave_its_path_alone_and_no_other(tmp_path):
    """The path histories are kept for HEAD: an agent's write elsewhere keeps them (no walk of
    all history on the next read: the first read after each write paid it, ~2.4 s of CPU over
    20,000 commits); a commit that changes the path does not (the person's ``forget``, then a
    peer's merge over it: with the history kept from before, the forgotten text came back as
    the person's)."""
    mine, peer = person_and_peer(tmp_path)
    person = (mine / PATH).read_bytes()
    _delete_then_put_back(peer)
    _peer_git(peer, "push", "-q", "origin", "main")
    _sync(mine)
    _assert_the_persons(mine, person)
    assert cli("--vault", str(mine), "remember", "shell-choice", "--type", "preference",
               "-d", "Uses fish as the shell").returncode == 0
    trace = tmp_path / "trace.txt"
    listed = cli("--vault", str(mine), "list", "--json", env={**os.environ, "GIT_TRACE": str(trace)})
    assert {m["key"]: m["trusted"] for m in json.loads(listed.stdout)}["editor-choice"] is True
    assert "rev-list --full-history" in trace.read_text()  # asked whether the path changed since
    assert "log --full-history" not in trace.read_text()  # not walked again
    assert _kept_for(mine) == git(mine, "rev-parse", "HEAD").strip()

    assert cli("--vault", str(mine), "forget", "editor-choice").returncode == 0
    _sync(mine)
    _merge_ours_over_the_persons_side(mine, peer, person)
    _assert_the_peers(mine)


def test_the_persons_git_pull_of_a_peers_revert_does_not_make_the_old_text_theirs(tmp_path):
    """The person edited the memory and synced; the peer's ``git revert`` puts back the person's
    older text; the person, with a commit of their own the remote lacks, integrates with ``git
    pull`` (a merge, as the sync itself advises after a refusal), concluded with ``git commit``. The merge takes the peer's side
    at the path without writing anything there; its diff against the person's parent changes
    the path, so it was counted as the person's own commit leaving the old text after the
    edit: the peer's revert came back as the person's, in the session context (before the
    rule, the side that wrote the blob was its author: the peer's). A merge that keeps one of
    its parents' text at a path is no author there: that parent's line is."""
    mine, peer = person_and_peer(tmp_path)
    assert cli("--vault", str(mine), "remember", "editor-choice", "--type", "preference", "--pinned",
               "-d", "Uses Helix with the default keymap").returncode == 0
    _sync(mine)
    edited = (mine / PATH).read_bytes()
    _peer_git(peer, "pull", "-q", "origin", "main")
    _peer_git(peer, "revert", "--no-edit", "HEAD")
    _peer_git(peer, "push", "-q", "origin", "main")
    assert cli("--vault", str(mine), "remember", "shell-choice", "--type", "preference",
               "-d", "Uses fish as the shell").returncode == 0
    # concluded with the person's `git commit` (as after settling a conflict in another file):
    # recorded as made here by post-commit, which a merge git commits itself is not
    git(mine, "pull", "-q", "--no-rebase", "--no-commit", "origin", "main")
    git(mine, "commit", "-q", "--no-edit")
    assert len(git(mine, "rev-parse", "HEAD^@").split()) == 2  # a merge made here, by the person
    assert git(mine, "rev-parse", "HEAD").strip() in (mine / ".git" / "vault-mem" / "local-commits").read_text()
    assert DESCRIPTION in (mine / PATH).read_text() and (mine / PATH).read_bytes() != edited
    _sync(mine)
    _assert_the_peers(mine)


def test_a_peers_many_commits_at_one_path_keep_a_history_that_grows_with_them_not_their_square(tmp_path):
    """A peer pushes 1,500 commits that each change the person's memory, the last one putting
    back the person's text (one ``git fast-import``, one push). Each commit of the path's kept
    history listed every commit of it that it descends from: 1,500 commits kept ~1.1 million
    indexes (~13 MB in the sidecar's one row, ~75 MB at 5,000 commits), worked out with a walk of
    the graph per commit, and every session start and prompt hook after parsed it again (~2.3 s
    of CPU each at 5,000, quadratic: one push of the peer's slowed every read of the person's).
    Each keeps its nearest ones only: as many indexes as the history has parents."""
    mine, peer = person_and_peer(tmp_path)
    person = (mine / PATH).read_bytes()
    n, stream = 1500, []
    for i in range(n):
        text = person if i == n - 1 else person + f"edit {i}\n".encode()
        stream.append(f"commit refs/heads/main\nauthor Mallory <{PEER_EMAIL}> {1_700_000_000 + i} +0000\n"
                      f"committer Mallory <{PEER_EMAIL}> {1_700_000_000 + i} +0000\ndata 5\nedit\n".encode())
        if i == 0:
            stream.append(b"from refs/heads/main^0\n")
        stream.append(f"M 100644 inline {PATH}\ndata {len(text)}\n".encode() + text + b"\n")
    subprocess.run(["git", "fast-import", "--quiet", "--force"], cwd=peer, input=b"".join(stream), check=True,
                   capture_output=True)
    _peer_git(peer, "reset", "-q", "--hard")
    _peer_git(peer, "push", "-q", "origin", "main")
    _sync(mine)
    _assert_the_persons(mine, person)  # the rule's answer stands: the person's last word is this text
    import sqlite3

    with sqlite3.connect(mine / ".vault-mem" / "index.db") as db:
        kept = json.loads(db.execute("SELECT value FROM meta WHERE name = 'path_histories'").fetchone()[0])["paths"][PATH]
    assert len(kept) == n + 1  # the peer's commits and the person's first
    assert sum(len(entry[4]) for entry in kept) <= len(kept)


def test_a_peers_merge_of_the_persons_old_commit_does_not_bring_its_text_back_as_theirs(tmp_path):
    """The person edited the memory and synced; the peer makes a merge (``git commit-tree``: any
    parents it likes) of the tip and the person's first commit, holding that commit's text at
    the path. git's simplified path history follows the parent the merge is the same as there:
    the person's first commit, past their edit."""
    mine, peer = person_and_peer(tmp_path)
    first = git(mine, "log", "-1", "--format=%H", "--", PATH).strip()
    assert cli("--vault", str(mine), "remember", "editor-choice", "--type", "preference", "--pinned",
               "-d", "Uses Helix with the default keymap").returncode == 0
    _sync(mine)
    _peer_git(peer, "pull", "-q", "origin", "main")
    _peer_git(peer, "checkout", "-q", first, "--", PATH)
    tree = _peer_git(peer, "write-tree").strip()
    merge = _peer_git(peer, "commit-tree", tree, "-p", "HEAD", "-p", first, "-m", "merge").strip()
    _peer_git(peer, "reset", "-q", "--hard", merge)
    _peer_git(peer, "push", "-q", "origin", "main")
    said = _sync(mine)
    assert DESCRIPTION in (mine / PATH).read_text()
    _assert_the_peers(mine)
    assert f"{PATH}, a memory of this machine's, was changed by {PEER_EMAIL}" in said


def test_a_put_back_descending_from_the_persons_commit_is_never_first_whatever_the_clock(tmp_path):
    """Which commit first gave a text weighed the peer's commit's arrival (the ref log, this
    machine's clock, in seconds) against the person's commit's time: a peer's commit that
    arrived in the same second as the person's commit was made, or before it by a clock set
    back since, counted as first, so the put back the rule holds was the peer's text (this
    file's first cases failed about one run in three, on a machine that made the person's
    vault the same second). A commit that descends from the person's was made after it,
    whatever any clock says. Here the person's commit is dated an hour ahead."""
    mine, peer = person_and_peer(tmp_path)
    path = mine / PATH
    path.write_text(path.read_text().replace(DESCRIPTION, DESCRIPTION + ", always"))
    git(mine, "add", PATH)
    subprocess.run(["git", "commit", "-q", "-m", "editor"], cwd=mine, check=True, capture_output=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": f"{int(time.time()) + 3600} +0000"})
    person = path.read_bytes()
    _sync(mine)
    _peer_git(peer, "pull", "-q", "origin", "main")
    _delete_then_put_back(peer)
    _peer_git(peer, "push", "-q", "origin", "main")
    _sync(mine)
    _assert_the_persons(mine, person)
