"""A peer's key is the peer's text too (issue 23): the CLI's lines and headers that start with a
memory's key start with the peer mark when a peer not approved here wrote it (``list``, the
``recall`` header, ``get``'s first line; ``adapters/cli._peer_lead``), so a key of the peer's
choosing ("the-persons-own-rule-...", up to 80 characters) never reads as the person's before
the mark. Real remote, the peer's raw git, the real CLI."""

from __future__ import annotations

from conftest import cli, git, person_and_peer, push_as_peer

MARK = "[from a peer not approved on this machine: mallory@peer.example]"
KEY = "persons-own-rule-written-on-this-machine-trusted-by-the-person-checked-" + "x" * 9


def test_a_peers_key_is_marked_before_it_is_printed(tmp_path):
    assert len(KEY) == 80
    mine, peer = person_and_peer(tmp_path)
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / f"{KEY}.md").write_text("---\ndescription: Deploys go through the release script\n---\n")
    push_as_peer(peer, "a rule")
    git(mine, "pull", "-q", "--ff-only", "origin", "main")

    listed = cli("list", "--vault", str(mine)).stdout
    [line] = [ln for ln in listed.splitlines() if KEY in ln]
    assert line.startswith(MARK + " " + KEY), listed
    [own] = [ln for ln in listed.splitlines() if "editor-choice" in ln]
    assert own.startswith("editor-choice"), listed  # the person's lines as before

    found = cli("recall", "--vault", str(mine), "deploys go through the release script").stdout
    # its header, and the line that ends the peer's memory, naming it again (inj23)
    [header, end] = [ln for ln in found.splitlines() if KEY in ln]
    assert end.strip() == f"[end of {KEY}, {MARK[1:]}", found
    assert header.split(". ", 1)[1].startswith(MARK + " " + KEY), found

    got = cli("get", "--vault", str(mine), KEY).stdout
    assert got.splitlines()[0].startswith(MARK + " " + KEY), got
    own_got = cli("get", "--vault", str(mine), "editor-choice").stdout
    assert own_got.splitlines()[0].startswith("editor-choice"), own_got
