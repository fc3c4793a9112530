"""`vault-mem edit` and an agent's write while a squash or `cherry-pick -n` of a peer's commit waits
for the person's commit (issue 23, trust24). git merged the peer's instruction into the person's
pinned memory and left it uncommitted (SQUASH_MSG, or MERGE_MSG alone): until that commit, the
merged text is no one's vouched text and the daemon waits (`GitRepo.concluding_replay`). A commit
vault-mem makes of that file meanwhile, in the person's name or the agent's and recorded as made
here, must not launder the peer's line into a text of this machine's."""

from __future__ import annotations

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
)

TAKES = pytest.mark.parametrize("take", [("merge", "--squash"), ("cherry-pick", "-n")], ids=["squash", "pick-n"])


def _replay_of_the_peers_line(tmp_path, take):
    mine, peer = person_and_peer(tmp_path)
    persons_edit_of_the_pinned_memory(mine)
    peer_appends_to_the_pinned_memory(peer)
    git(mine, "fetch", "-q", "origin")
    git(mine, *take, "origin/main")
    assert PEERS_MARK in (mine / PINNED).read_text()
    return mine


@TAKES
def test_vault_mem_edit_during_a_squash_or_pick_n_never_commits_the_peers_line_as_the_persons(tmp_path, take):
    """Before: `vault-mem edit editor-choice` (the person fixing a word of the description) asked
    only for git states with a head (a merge, a pick with CHERRY_PICK_HEAD), so it opened the
    editor and committed the file git had merged, peer's instruction and all, as the person's own
    edit, recorded as made here: the peer's line went into every prompt about editors. It now
    refuses before the editor opens, names the state and the one command that ends it, and
    changes nothing."""
    mine = _replay_of_the_peers_line(tmp_path, take)
    head = git(mine, "rev-parse", "HEAD").strip()
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/default keymap/default keymap, no mouse/' \"$1\"\n")
    editor.chmod(0o755)
    r = cli("--vault", str(mine), "edit", "editor-choice", env={"VISUAL": str(editor), "EDITOR": str(editor)})
    assert git(mine, "rev-parse", "HEAD").strip() == head, git(mine, "log", "-1", "--stat")
    assert PEERS_MARK not in agent_hook(mine, "user-prompt-submit", prompt=PINNED_PROMPT)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "no mouse" not in (mine / PINNED).read_text(), "the editor opened"
    assert "git commit" in r.stderr and "git reset --merge" in r.stderr, r.stderr
    # the person concludes it: the hooks judge that commit, the memory stays the peer's
    git(mine, "commit", "-q", "-m", "take the peer's notes")
    assert PEERS_MARK not in agent_hook(mine, "user-prompt-submit", prompt=PINNED_PROMPT)


@TAKES
def test_an_agents_write_during_a_squash_or_pick_n_never_commits_the_peers_line_as_the_agents(tmp_path, take):
    """The guard beside it (held before: an agent's write over a file that differs from HEAD is
    refused, whoever changed it): the agent's `remember` of the same key meanwhile, changing the
    description only, commits nothing, and the peer's line reaches no prompt."""
    mine = _replay_of_the_peers_line(tmp_path, take)
    head = git(mine, "rev-parse", "HEAD").strip()
    r = cli("--vault", str(mine), "remember", "editor-choice", "--type", "preference", "--pinned",
            "-d", "Uses Helix as the main editor, default keymap, agent noted")
    assert r.returncode == 1 and "uncommitted edits" in r.stderr, r.stdout + r.stderr
    assert git(mine, "rev-parse", "HEAD").strip() == head
    assert PEERS_MARK not in agent_hook(mine, "user-prompt-submit", prompt=PINNED_PROMPT)
