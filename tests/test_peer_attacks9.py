"""A ninth attack run by a sync peer (issue 23): each through a real bare remote, a peer clone
pushing with raw git, and the person using the real CLI and plain git with vault-mem's hooks as
they would. Each test fails on the code before its fix."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import cli, git, person_and_peer, push_as_peer

FLOOR = "min_similarity = -1.0"


def _peer_floor(peer) -> None:
    """The peer's vault.toml asks for a recall floor of -1 (its memories in every prompt)."""
    toml = peer / "vault.toml"
    toml.write_text(toml.read_text().replace("k = 5\n", f"k = 5\n{FLOOR}\n", 1))
    push_as_peer(peer, "tune recall")


def _floor_in_force(root) -> tuple[object, dict]:
    shown = json.loads(cli("--vault", str(root), "trust", "--json").stdout)
    return shown["in_force"]["recall.min_similarity"], shown["pending"]


def _append_comment(mine) -> None:
    with open(mine / "vault.toml", "a") as f:
        f.write("# checked the settings\n")


def _raise_budget(mine) -> None:
    toml = mine / "vault.toml"
    toml.write_text(toml.read_text().replace("budget_tokens = 2000", "budget_tokens = 2500", 1))


@pytest.mark.parametrize("edit", [_append_comment, _raise_budget], ids=["comment", "other-setting"])
def test_the_persons_edit_of_another_line_approves_none_of_a_peers_pending_settings(tmp_path, edit):
    """Before: a peer's `[recall] min_similarity = -1.0` arrived by sync and waited for `vault-mem
    trust`; the person (or an agent a peer's text asked to) then appended a comment to vault.toml,
    or changed another setting, and the whole file was taken as the person's own edit: the
    peer's floor was in force with no note, and stayed so after the edit was undone or committed.
    The person's edit vouches for what it changes, not for HEAD's lines it leaves as they were."""
    mine, peer = person_and_peer(tmp_path)
    _peer_floor(peer)
    assert cli("sync", "--vault", str(mine)).returncode == 0
    assert _floor_in_force(mine) == (None, {"recall.min_similarity": [None, -1.0]})
    edit(mine)
    floor, pending = _floor_in_force(mine)
    assert floor is None and pending.get("recall.min_similarity") == [None, -1.0], pending
    git(mine, "commit", "-q", "-am", "my settings")  # through vault-mem's pre-commit hook
    floor, pending = _floor_in_force(mine)
    assert floor is None and pending.get("recall.min_similarity") == [None, -1.0], pending


def test_a_peers_setting_git_merges_into_the_persons_uncommitted_edit_waits(tmp_path):
    """Before: the person's `git pull --rebase --autostash` with an uncommitted edit of
    vault.toml merged the peer's floor into it; the merged file is in no commit, so it passed
    for the person's own edit and the floor was in force unapproved."""
    mine, peer = person_and_peer(tmp_path)
    _peer_floor(peer)
    _raise_budget(mine)
    git(mine, "pull", "-q", "--rebase", "--autostash", "origin", "main")
    assert FLOOR in (mine / "vault.toml").read_text()
    floor, pending = _floor_in_force(mine)
    assert floor is None and pending.get("recall.min_similarity") == [None, -1.0], pending


def test_the_persons_own_edits_of_vault_toml_stay_in_force_at_once(tmp_path):
    """The rule leaves the person alone: an edit of an approved file is in force as read, and
    an edit that undoes the peer's pending change leaves nothing pending."""
    mine, peer = person_and_peer(tmp_path)
    _raise_budget(mine)
    shown = json.loads(cli("--vault", str(mine), "trust", "--json").stdout)
    assert shown["in_force"]["index.budget_tokens"] == 2500 and not shown["pending"]
    git(mine, "commit", "-q", "-am", "budget")
    _peer_floor(peer)
    git(mine, "pull", "-q", "--rebase", "origin", "main")
    toml = mine / "vault.toml"
    toml.write_text(toml.read_text().replace(FLOOR, "min_similarity = 0.5", 1))
    floor, pending = _floor_in_force(mine)
    assert floor == 0.5 and not pending


PROMPT = "which editor do I use as the main editor"


def _prompt_context(root) -> str:
    event = {"hook_event_name": "UserPromptSubmit", "prompt": PROMPT, "cwd": str(root)}
    proc = cli("hook", "user-prompt-submit", "--vault", str(root), input=json.dumps(event))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"] if proc.stdout.strip() else ""


def test_a_peers_look_alike_memories_never_push_the_persons_own_out_of_the_prompt(tmp_path):
    """Before: the prompt hook took recall's top three and then dropped a peer's hits. A peer
    who pushed 30 memories worded like the prompt took all three places: the person's own pinned
    `editor-choice`, injected before the push, was injected no more, and nothing said so (the
    person's file was never touched). A peer's memories are now left out of the search itself."""
    mine, peer = person_and_peer(tmp_path)
    assert "editor-choice" in _prompt_context(mine)
    for i in range(30):
        (peer / "preferences" / f"editor-{i:02d}.md").write_text(
            f"---\ndescription: Uses which editor as the main editor {i}\n---\n"
            "which editor do I use as the main editor: main editor editor editor\n")
    push_as_peer(peer, "editor notes")
    assert cli("sync", "--vault", str(mine)).returncode == 0
    context = _prompt_context(mine)
    assert "editor-choice" in context and "editor-0" not in context, context


def _tree(peer, entries: list[tuple[str, str, str]]) -> str:
    """A tree object written as given (``(mode, name, object id)``, in that order, names
    repeated if so): what a peer's own tool can push, and no git command makes."""
    raw = b"".join(f"{mode} {name}".encode() + b"\0" + bytes.fromhex(oid) for mode, name, oid in entries)
    return subprocess.run(["git", "hash-object", "-w", "-t", "tree", "--literally", "--stdin"], cwd=peer,
                          input=raw, capture_output=True, check=True).stdout.decode().strip()


def _push_twice_named_memory(peer) -> None:
    """The peer's commit whose ``preferences`` folder names ``editor-choice.md`` twice: a
    symlink to a file outside the vault, then the person's own blob."""
    link = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=peer, input=b"/etc/hostname",
                          capture_output=True, check=True).stdout.decode().strip()
    mine = git(peer, "rev-parse", "HEAD:preferences/editor-choice.md").strip()
    prefs = _tree(peer, [("120000", "editor-choice.md", link), ("100644", "editor-choice.md", mine)])
    top = [(meta.split(), name) for meta, name in (line.split("\t") for line in git(peer, "ls-tree", "HEAD").splitlines())]
    root = _tree(peer, [(meta[0].lstrip("0"), name, prefs if name == "preferences" else meta[2]) for meta, name in top])
    commit = git(peer, "commit-tree", root, "-p", "HEAD", "-m", "editor notes").strip()
    git(peer, "push", "-q", "origin", f"{commit}:refs/heads/main")


def test_a_tree_naming_a_file_twice_is_refused_by_sync_and_in_a_clone(tmp_path):
    """Before: git lists both entries of a malformed tree, and the check kept the last one it
    read (the person's regular file) while sync wrote the first (the symlink's target as the
    memory's text) and git's index took the symlink: sync said only that the peer changed the
    memory, `git status` showed a change for good, and `git reset --hard` then dropped
    vault.toml from git's index. Now sync refuses it by name, changing nothing, and a clone's
    first command refuses it as it refuses a symlink."""
    mine, peer = person_and_peer(tmp_path)
    head = git(mine, "rev-parse", "HEAD").strip()
    _push_twice_named_memory(peer)
    r = cli("sync", "--vault", str(mine))
    assert r.returncode != 0 and "preferences/editor-choice.md" in r.stderr, r.stderr
    assert "two entries of this name" in r.stderr, r.stderr
    assert git(mine, "rev-parse", "HEAD").strip() == head and git(mine, "status", "--porcelain") == ""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(clone))
    r = cli("--vault", str(clone), "list")
    assert r.returncode == 1 and "two entries of this name" in r.stderr, r.stderr
