"""Which file of a key is in use: one rule, the same for a sync's set-aside and for the index.

A sync set aside a peer's second file of a key keeping the file this side held, but the index
decided the key's owner by the author's standing and then by path. Where the person's file ranked
as a peer's (a peer once changed a line of it; a fresh clone where no commit was made on this
machine), a peer's new ``decisions/KEY.md`` (sorting before ``preferences/``) took the key: the
person's memory went out of use, INDEX.md was left stale (doctor failed), the next agent write
committed the switch, and a rebuild gave the same wrong answer. Now the rule
(``vault_mem.vault.core.key_owners``) is the author's standing, then the file that held the key
first in history, then the path: a second file arriving later never displaces the one in use,
and a rebuild of the index gives the same answer. Real bare remote, a peer's clone, the real CLI.
"""

from __future__ import annotations

import json

from conftest import cli, git, person_and_peer, push_as_peer

PEER = "---\ndescription: Uses Notepad as the main editor\n---\nNotepad.\n"


def _owners(root) -> dict[str, str]:
    return {m["key"]: m["path"] for m in json.loads(cli("list", "--vault", str(root), "--json").stdout)}


def _rebuilt_owners(root) -> dict[str, str]:
    """The owners after the index is made again from the files and history alone."""
    r = cli("reindex", "--vault", str(root))
    assert r.returncode == 0, r.stderr
    return _owners(root)


def _doctor_clean(root) -> None:
    """The index and INDEX.md (on disk and in HEAD) as a rebuild gives them; the duplicate itself
    stays a problem doctor names (the person renames or deletes one file)."""
    d = cli("doctor", "--vault", str(root))
    assert "the sidecar and INDEX.md match the files" in d.stdout, d.stdout + d.stderr
    assert "differs" not in d.stdout and "INDEX.md does not match" not in d.stdout, d.stdout
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "show", "HEAD:INDEX.md").strip() == (root / "INDEX.md").read_text().strip()


def _peer_edits_persons_memory(peer) -> None:
    p = peer / "preferences" / "editor-choice.md"
    p.write_text(p.read_text() + "Also vim keys.\n")


def test_a_peers_later_file_never_takes_a_key_whose_file_a_peer_once_edited(tmp_path):
    mine, peer = person_and_peer(tmp_path)
    _peer_edits_persons_memory(peer)
    push_as_peer(peer, "edit")
    assert cli("sync", str(mine)).returncode == 0
    (peer / "decisions").mkdir(exist_ok=True)
    (peer / "decisions" / "editor-choice.md").write_text(PEER)
    push_as_peer(peer, "a second editor-choice")
    r = cli("sync", str(mine), "--json")
    assert r.returncode == 0, r.stderr
    assert [(d["path"], d["owner"]) for d in json.loads(r.stdout)["duplicates"]] == [
        ("decisions/editor-choice.md", "preferences/editor-choice.md")]
    assert _owners(mine)["editor-choice"] == "preferences/editor-choice.md"
    _doctor_clean(mine)

    # the next agent write commits no switch of the key to the peer's file
    assert cli("--vault", str(mine), "remember", "lunch", "-d", "Lunch at noon").returncode == 0
    head_index = git(mine, "show", "HEAD:INDEX.md")
    assert "Uses Helix as the main editor" in head_index and "Notepad" not in head_index, head_index
    assert _rebuilt_owners(mine)["editor-choice"] == "preferences/editor-choice.md"
    _doctor_clean(mine)


def test_an_edit_and_a_second_file_in_one_push_leave_index_md_right(tmp_path):
    mine, peer = person_and_peer(tmp_path)
    _peer_edits_persons_memory(peer)
    (peer / "decisions").mkdir(exist_ok=True)
    (peer / "decisions" / "editor-choice.md").write_text(PEER)
    push_as_peer(peer, "edit and a second file in one push")
    r = cli("sync", str(mine), "--json")
    assert r.returncode == 0, r.stderr
    assert [d["path"] for d in json.loads(r.stdout)["duplicates"]] == ["decisions/editor-choice.md"]
    assert _owners(mine)["editor-choice"] == "preferences/editor-choice.md"
    assert "Notepad" not in (mine / "INDEX.md").read_text()
    _doctor_clean(mine)
    assert _rebuilt_owners(mine)["editor-choice"] == "preferences/editor-choice.md"


def test_a_fresh_clone_keeps_the_key_with_the_file_that_held_it(tmp_path):
    """No commit made on the second machine: every file stands as a peer's there."""
    mine, peer = person_and_peer(tmp_path)
    laptop = tmp_path / "laptop"
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(laptop))
    assert cli("init", str(laptop)).returncode == 0
    (peer / "decisions").mkdir(exist_ok=True)
    (peer / "decisions" / "editor-choice.md").write_text(PEER)
    push_as_peer(peer, "a second editor-choice")
    r = cli("sync", str(laptop), "--json")
    assert r.returncode == 0, r.stderr
    assert _owners(laptop)["editor-choice"] == "preferences/editor-choice.md"
    assert _rebuilt_owners(laptop)["editor-choice"] == "preferences/editor-choice.md"
    _doctor_clean(laptop)


def test_of_two_peers_files_the_one_synced_first_keeps_the_key(tmp_path):
    mine, peer = person_and_peer(tmp_path)
    (peer / "notes").mkdir(exist_ok=True)
    (peer / "notes" / "ci.md").write_text("---\ndescription: CI runs nightly\n---\nNightly.\n")
    push_as_peer(peer, "ci")
    assert cli("sync", str(mine)).returncode == 0
    (peer / "decisions").mkdir(exist_ok=True)
    (peer / "decisions" / "ci.md").write_text("---\ndescription: CI never runs\n---\nNever.\n")
    push_as_peer(peer, "ci twice")
    r = cli("sync", str(mine), "--json")
    assert r.returncode == 0, r.stderr
    dups = json.loads(r.stdout)["duplicates"]
    assert [(d["path"], d["owner"]) for d in dups] == [("decisions/ci.md", "notes/ci.md")]
    assert _owners(mine)["ci"] == "notes/ci.md"
    _doctor_clean(mine)
    assert _rebuilt_owners(mine)["ci"] == "notes/ci.md"
