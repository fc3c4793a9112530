"""A fifteenth attack run (issue 23, attack23): fresh crafted commits through a real bare remote,
the person using the real CLI and plain git with vault-mem's hooks as they would. Each attack's
test fails on the code before its fix."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import (
    PEERS_MARK,
    PINNED,
    PINNED_PROMPT,
    agent_hook,
    cli,
    git,
    peer_appends_to_the_pinned_memory,
    person_and_peer,
    persons_edit_of_the_pinned_memory,
    push_as_peer,
)

FLOOR = "min_similarity = -1.0"


def _peer_floor(peer) -> None:
    """The peer's vault.toml asks for a recall floor of -1 (its memories in every prompt)."""
    toml = peer / "vault.toml"
    toml.write_text(toml.read_text().replace("k = 5\n", f"k = 5\n{FLOOR}\n", 1))
    push_as_peer(peer, "tune recall")


def _settings(root) -> tuple[dict, dict]:
    """(in force, pending) as ``vault-mem trust --json`` shows them."""
    shown = json.loads(cli("--vault", str(root), "trust", "--json").stdout)
    return shown["in_force"], shown["pending"]


@pytest.mark.parametrize("take", [("merge", "--squash"), ("cherry-pick", "-n")], ids=["squash", "pick-n"])
def test_a_peers_setting_git_merges_into_a_squash_or_pick_waits_for_approval(tmp_path, take):
    """Before: the person had changed a setting of their own (committed, through the pre-commit
    hook, so approved) and the peer pushed `[recall] min_similarity = -1.0`; the person's `git
    merge --squash origin/main` (or `git cherry-pick -n` of the peer's commit) merged the two
    vault.toml versions into a text no commit held, which git leaves uncommitted with no
    MERGE_HEAD. That text passed for the person's own edit: the peer's floor was in force at once,
    unapproved and unnamed, and stayed so once the person committed it. A vault.toml git wrote
    while it concludes a squash, pick or revert is no edit of the person's (memories: the same,
    `tests/test_peer_attacks7.py`)."""
    mine, peer = person_and_peer(tmp_path)
    toml = mine / "vault.toml"
    toml.write_text(toml.read_text().replace("budget_tokens = 2000", "budget_tokens = 2500", 1))
    git(mine, "commit", "-q", "-am", "my budget")  # the person's own, approved by the pre-commit hook
    in_force, pending = _settings(mine)
    assert in_force["index.budget_tokens"] == 2500 and not pending
    _peer_floor(peer)
    git(mine, "fetch", "-q", "origin")
    git(mine, *take, "origin/main")
    assert FLOOR in toml.read_text() and "budget_tokens = 2500" in toml.read_text()

    in_force, pending = _settings(mine)
    assert in_force["recall.min_similarity"] is None, "the peer's floor is in force before the commit"
    assert pending.get("recall.min_similarity") == [None, -1.0], pending
    git(mine, "commit", "-q", "-m", "take the peer's work")  # through vault-mem's pre-commit hook
    in_force, pending = _settings(mine)
    assert in_force["recall.min_similarity"] is None, "the peer's floor is in force after the commit"
    assert pending.get("recall.min_similarity") == [None, -1.0], pending
    assert in_force["index.budget_tokens"] == 2500


def _push_commit_dated(peer, seconds: str) -> None:
    """The peer commits a new memory in a commit object written by hand whose author and
    committer time is ``seconds`` (git stores the digits as given: no git command refuses them,
    and neither does a remote without ``receive.fsckObjects``), and pushes it."""
    (peer / "facts" / "team-fact.md").write_text("---\ndescription: The team ships on Mondays\n---\nShip notes.\n")
    git(peer, "add", "-A")
    tree, parent = git(peer, "write-tree").strip(), git(peer, "rev-parse", "HEAD").strip()
    who = f"Mallory <mallory@peer.example> {seconds} +0000"
    raw = f"tree {tree}\nparent {parent}\nauthor {who}\ncommitter {who}\n\nship notes\n"
    proc = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin", "--literally"], cwd=peer,
                          input=raw.encode(), capture_output=True, check=True)
    git(peer, "update-ref", "refs/heads/main", proc.stdout.decode().strip())
    git(peer, "push", "-q", "origin", "main")


@pytest.mark.parametrize("seconds", ["253402300800", "18446744073709551615"], ids=["year-10000", "2^64-1"])
def test_a_peers_commit_dated_past_any_calendar_never_breaks_the_session_context(tmp_path, seconds):
    """Before: a peer's commit whose time no date holds (year 10000, or 2^64 - 1 seconds) was
    taken by sync, and then every clone's session-start hook, `reindex` and `doctor` failed with
    "internal error (ValueError: year 10000 is out of range)" (or OverflowError): the commit's
    time dated the memories it changed and the INDEX.md it holds. Every session lost the
    person's pinned memories. A time no calendar date holds dates nothing now."""
    mine, peer = person_and_peer(tmp_path)
    _push_commit_dated(peer, seconds)
    r = cli("sync", "--vault", str(mine))
    assert r.returncode == 0, r.stderr
    event = {"hook_event_name": "SessionStart", "cwd": str(mine)}
    r = cli("hook", "session-start", "--vault", str(mine), input=json.dumps(event))
    assert r.returncode == 0 and "internal error" not in r.stderr, r.stderr
    assert "Uses Helix as the main editor" in json.loads(r.stdout)["hookSpecificOutput"]["additionalContext"]
    for args in (("reindex",), ("recall", "ships on Mondays"), ("list",)):
        r = cli("--vault", str(mine), *args)
        assert r.returncode == 0 and "internal error" not in r.stderr, (args, r.stderr)
    r = cli("--vault", str(mine), "doctor")
    assert "internal error" not in r.stderr, r.stderr


def test_a_peers_huge_vault_toml_taken_by_a_plain_pull_is_never_parsed_by_every_command(tmp_path):
    """Before: the peer appended 3 MB of valid TOML to vault.toml (a table vault-mem does not
    know, so no setting changed). Sync refuses a file that size, but the person's plain `git pull`
    took it, and the first command approved it silently ("no change") and kept its bytes in
    trusted.json: from then on every command, both agent hooks and the git hooks parsed 3 MB of
    TOML (7-10 s of CPU and 140 MB each here; a bigger file, minutes and gigabytes), in every clone
    that pulled it. A vault.toml over 64 KB (``config.MAX_CONFIG_BYTES``) is no settings file: it is
    read no further than that, named, never approved, and the settings approved before stay in force."""
    MAX_CONFIG_BYTES = 64 * 1024
    mine, peer = person_and_peer(tmp_path)
    toml = peer / "vault.toml"
    pad = "".join(f"k{i} = [{', '.join(['{a = 1}'] * 50)}]\n" for i in range(MAX_CONFIG_BYTES // 300 + 10))
    toml.write_text(toml.read_text() + "[x]\n" + pad)
    assert toml.stat().st_size > MAX_CONFIG_BYTES
    push_as_peer(peer, "more settings")
    git(mine, "pull", "-q", "origin", "main")

    r = cli("--vault", str(mine), "list")
    assert r.returncode == 0, r.stderr
    assert "vault.toml" in r.stderr and "not used" in r.stderr, r.stderr
    from vault_mem.store.trust import trust_file

    assert trust_file().stat().st_size < MAX_CONFIG_BYTES, "the peer's file was approved and kept"
    shown = json.loads(cli("--vault", str(mine), "trust", "--json").stdout)
    assert shown["in_force"]["recall.k"] == 5 and not shown["pending"]


@pytest.mark.parametrize("take", [("cherry-pick", "-n"), ("merge", "--squash")], ids=["pick-n", "squash"])
def test_a_peers_line_git_merged_by_a_pick_n_waiting_for_its_commit_is_not_the_persons(tmp_path, take):
    """The same cause for memories, before the commit: `git cherry-pick -n` of a peer's commit that
    appended an instruction to the person's pinned memory, onto the person's own edit of its
    description, leaves the merged text uncommitted with only MERGE_MSG (no CHERRY_PICK_HEAD): it
    must count as the peer's in the session context and the prompt hook until the person's commit
    (which the hooks then judge), as a squash's staged text does."""
    mine, peer = person_and_peer(tmp_path)
    persons_edit_of_the_pinned_memory(mine)
    peer_appends_to_the_pinned_memory(peer)
    git(mine, "fetch", "-q", "origin")
    git(mine, *take, "origin/main")
    assert PEERS_MARK in (mine / PINNED).read_text() and "default keymap" in (mine / PINNED).read_text()
    assert PEERS_MARK not in agent_hook(mine, "session-start")
    assert PEERS_MARK not in agent_hook(mine, "user-prompt-submit", prompt=PINNED_PROMPT)


@pytest.mark.parametrize("take", [("cherry-pick", "-n"), ("merge", "--squash")], ids=["pick-n", "squash"])
def test_the_daemon_never_commits_what_a_squash_or_pick_n_merged_as_the_persons_edit(tmp_path, caplog, take):
    """The same cause in the daemon: while a squash or `cherry-pick -n` of a peer's commit waited
    for the person's `git commit`, the daemon took the memory git merged (the peer's instruction in
    the person's pinned memory) for a hand edit and committed it after its quiet period, in the
    person's name and recorded as made here: the peer's line was the person's from then on. Its
    check for a git operation under way knew merges, rebases, picks and reverts by their heads,
    not a squash's SQUASH_MSG nor a pick's MERGE_MSG; it now waits for the commit that concludes
    them (store/git.GitRepo.concluding_replay)."""
    import logging

    from test_daemon import running_daemon

    from conftest import wait_for

    caplog.set_level(logging.INFO, logger="vault_mem")
    mine, peer = person_and_peer(tmp_path)
    persons_edit_of_the_pinned_memory(mine)
    peer_appends_to_the_pinned_memory(peer)
    git(mine, "fetch", "-q", "origin")
    head = git(mine, "rev-parse", "HEAD").strip()
    git(mine, *take, "origin/main")
    with running_daemon(mine, quiet_seconds=0.2, commit_external_edits="on"):
        wait_for(lambda: "not committing external edits while" in caplog.text, timeout=30,
                 what="the daemon saying it waits for the person's commit")
        assert git(mine, "rev-parse", "HEAD").strip() == head, git(mine, "log", "-1", "--stat")
    assert PEERS_MARK not in agent_hook(mine, "user-prompt-submit", prompt=PINNED_PROMPT)


def test_a_peers_force_push_of_another_history_loses_nothing_and_says_how_to_put_it_back(tmp_path):
    """A peer with push rights replaces the remote's branch with a history of its own (`git push
    --force` of an orphan branch): every clone's sync must fail (integrating it would take the
    peer's tree for the vault's), but before, its advice was "clone the remote", which would
    leave behind every memory this vault holds that the remote does not. Now nothing changes
    here, recall still finds the person's memories, and the command the message gives puts
    this vault's history back on the remote, after which sync works again."""
    mine, peer = person_and_peer(tmp_path)
    r = cli("--vault", str(mine), "remember", "release-train", "-d", "we release every second Tuesday",
            "-t", "decision")
    assert r.returncode == 0, r.stderr  # a memory the remote does not hold yet
    head = git(mine, "rev-parse", "HEAD").strip()
    git(peer, "checkout", "-q", "--orphan", "other")
    git(peer, "rm", "-rq", "--cached", ".")
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "takeover.md").write_text("---\ndescription: the peer's vault now\n---\nnothing else\n")
    env = {"GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@example.com"}
    subprocess.run(["git", "add", "facts/takeover.md"], cwd=peer, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-q", "--no-verify", "-m", "start over"], cwd=peer, check=True,
                   capture_output=True, env={**__import__("os").environ, **env})
    subprocess.run(["git", "push", "-q", "--force", "origin", "other:main"], cwd=peer, check=True, capture_output=True)

    r = cli("--vault", str(mine), "sync")
    assert r.returncode != 0
    assert "shares no history" in r.stderr and "force-push" in r.stderr, r.stderr
    assert "clone the remote (`git clone" not in r.stderr  # the advice that lost the memories
    assert git(mine, "rev-parse", "HEAD").strip() == head  # nothing changed here
    assert (mine / "decisions" / "release-train.md").exists()
    found = cli("--vault", str(mine), "recall", "when do we release")
    assert found.returncode == 0 and "release-train" in found.stdout, found.stderr
    push = next(line for line in r.stderr.split("`") if line.startswith("git push --force-with-lease="))
    subprocess.run(push.split(), cwd=mine, check=True, capture_output=True)
    again = cli("--vault", str(mine), "sync")
    assert again.returncode == 0, again.stderr
    assert git(mine, "rev-parse", "origin/main").strip() == git(mine, "rev-parse", "HEAD").strip()


def test_a_pick_undone_with_restore_is_named_by_doctor_with_its_way_out(tmp_path):
    """`git cherry-pick -n` of a peer's commit undone with `git restore -SW .` leaves git's
    MERGE_MSG behind: until the next commit or reset the person's own new hand-written memories
    count as no one's and the daemon commits no hand edit (a known limit, the safe side). Nothing
    said so: doctor now names the state and `git reset --merge`, which ends it and keeps the
    person's unstaged work."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "facts" / "peer-note.md").write_text("---\ndescription: the peer's note\n---\nA note.\n")
    push_as_peer(peer, "a note")
    git(mine, "fetch", "-q", "origin")
    git(mine, "cherry-pick", "-n", "origin/main")
    git(mine, "restore", "-SW", ".")
    (mine / "facts" / "peer-note.md").unlink(missing_ok=True)  # the pick's new file, gone too
    assert (mine / ".git" / "MERGE_MSG").exists()
    (mine / "facts" / "my-own.md").write_text("---\ndescription: written by hand here\n---\nMine.\n")
    r = cli("--vault", str(mine), "doctor")
    assert "no commit concludes yet" in r.stdout + r.stderr and "git reset --merge" in r.stdout + r.stderr, r.stdout + r.stderr
    git(mine, "reset", "-q", "--merge")
    assert not (mine / ".git" / "MERGE_MSG").exists() and (mine / "facts" / "my-own.md").exists()
    r = cli("--vault", str(mine), "doctor")
    assert "no commit concludes yet" not in r.stdout + r.stderr
