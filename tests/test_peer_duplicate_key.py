"""A peer cannot take the person's memory out of use with a second file of its key (DESIGN §7).

One key, one file: of two files with one key, all but one are unusable. A peer not approved here
pushed ``facts/editor-choice.md`` beside the person's pinned ``preferences/editor-choice.md``:
after `vault-mem sync` the person's memory was "unusable: duplicate key", gone from recall and the
session context, and recall answered with the peer's text under the person's key. Sync now
refuses such a tree by name, before anything changes; a type change (the old file deleted in the
same commits) still comes in. Real bare remote, a peer's clone pushing, the real CLI.
"""

from __future__ import annotations

import json

from conftest import cli, git, person_and_peer, push_as_peer

PEER_FILE = ("---\ndescription: Uses Notepad as the main editor\ncreated: 2026-11-01\nupdated: 2026-11-01\n"
             "---\nNotepad.\n")


def test_a_second_file_of_a_persons_key_is_refused_by_name(tmp_path):
    mine, peer = person_and_peer(tmp_path)
    (peer / "facts" / "editor-choice.md").write_text(PEER_FILE)
    push_as_peer(peer, "a second editor-choice")
    head = git(mine, "rev-parse", "HEAD")

    r = cli("sync", str(mine))
    assert r.returncode != 0 and "facts/editor-choice.md" in r.stderr and "editor-choice" in r.stderr, r.stderr
    assert git(mine, "rev-parse", "HEAD") == head and not (mine / "facts" / "editor-choice.md").exists()
    r = cli("--vault", str(mine), "recall", "main editor", "--json")
    hits = json.loads(r.stdout)["hits"]
    assert [(h["key"], h["type"]) for h in hits] == [("editor-choice", "preference")]

    # the peer makes it a type change instead (the old file goes): that comes in
    git(peer, "rm", "-q", "preferences/editor-choice.md")
    push_as_peer(peer, "editor-choice is a fact")
    r = cli("sync", str(mine))
    assert r.returncode == 0, r.stderr
    assert (mine / "facts" / "editor-choice.md").exists() and not (mine / "preferences" / "editor-choice.md").exists()
