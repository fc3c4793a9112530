"""Of two files of one key, the owner follows the person's approvals (RELIABILITY.md's Known
limits, atkagent: "keeps the person's as its owner after the person approves that peer, until
one of the two files changes"). The owner is worked out when the key's files are indexed; an
approval changes none of them, so the index kept answering with the owner a rebuild from
scratch would not choose (DESIGN §4: a rebuild returns the same results as the kept index).
A real bare remote, the peer's plain `git pull`-ed file, the person's real CLI and approval at
a terminal."""

from __future__ import annotations

import json

from conftest import PEER_EMAIL, at_terminal, cli, git, person_and_peer, push_as_peer


def _owner(mine) -> str:
    listed = {m["key"]: m for m in json.loads(cli("--vault", str(mine), "list", "--json").stdout)}
    return listed["editor-choice"]["path"]


def test_approving_the_peer_who_holds_the_persons_key_gives_the_owner_a_rebuild_gives(tmp_path):
    mine, peer = person_and_peer(tmp_path)
    (peer / "decisions" / "editor-choice.md").write_text(
        "---\ndescription: Uses Notepad as the main editor\n---\nNotepad.\n")
    push_as_peer(peer, "a second editor-choice")
    git(mine, "pull", "-q", "--no-rebase", "origin", "main")
    assert _owner(mine) == "preferences/editor-choice.md"  # the peer's is not approved: the person's
    assert at_terminal("trust", "--author", PEER_EMAIL, "--vault", str(mine)).returncode == 0
    kept = _owner(mine)
    (mine / ".vault-mem" / "index.db").unlink()
    for extra in ("index.db-wal", "index.db-shm"):
        (mine / ".vault-mem" / extra).unlink(missing_ok=True)
    rebuilt = _owner(mine)
    assert kept == rebuilt, (kept, rebuilt)
    # an approved peer's second file does not take the person's own key either (issue 23: the
    # person's file is never replaced); before, both trusted fell to the first by path, the peer's
    assert rebuilt == "preferences/editor-choice.md"
