"""A peer's choice of a memory's standing fields is the peer's change (issue 23, trust23;
``vault/authors._lines``): "a change made here adopts only what it changes" left the front
matter's bookkeeping out of a peer's contribution, ``pinned`` and ``source`` among it, so a
peer's ``pinned: true`` (or ``source: user``) added to the person's memory, which the person
then edited, counted as the person's: the text was theirs, but its prominence (a pinned memory
leads the session context) and its claim to be the person's word were the peer's choice. Now a
``pinned`` line that pins and a ``source: user`` line count as lines the peer's change added;
dates, the type and the other sources stay bookkeeping. Each case: a real bare remote, the
peer's clone committing with raw git, ``vault-mem sync``, the person's plain git with
vault-mem's hooks, the real CLI and agent hooks."""

from __future__ import annotations

import pytest

from conftest import PEER_EMAIL, agent_hook, at_terminal, cli, git, person_and_peer, push_as_peer, trusted_by_key

NOTE = "facts/ci-runner.md"
PROMPT = "which runner does CI run on, the blue runner"
MINE = "WORDS-5c2e"  # the person's own words, added by hand after the peer's change


def _persons_memory_the_peer_promotes(tmp_path, old: str, new: str):
    """The person's agent writes ``ci-runner`` (not pinned, ``source: agent``); a sync pushes it;
    the peer replaces the front-matter line ``old`` with ``new`` and pushes; the person's sync
    takes it and the person adds a line of their own by hand and commits it."""
    mine, peer = person_and_peer(tmp_path)
    r = cli("--vault", str(mine), "remember", "ci-runner", "--type", "fact",
            "-d", "CI runs on the blue runner", "--body", "The blue runner builds every push.")
    assert r.returncode == 0, r.stderr
    assert cli("sync", "--vault", str(mine)).returncode == 0
    git(peer, "pull", "-q", "origin", "main")
    path = peer / NOTE
    text = path.read_text()
    assert old in text, text
    path.write_text(text.replace(old, new, 1))
    push_as_peer(peer, "ci notes")
    r = cli("sync", "--vault", str(mine))
    assert r.returncode == 0, r.stdout + r.stderr
    path = mine / NOTE
    assert new in path.read_text()
    path.write_text(path.read_text() + f"Checked by me: {MINE}.\n")
    git(mine, "commit", "-q", "-am", "my ci note")
    return mine, peer


def _kept_out(mine) -> None:
    """The memory is the peer's: not in the session context, not in the prompt hook, marked."""
    assert MINE not in agent_hook(mine, "session-start", source="startup")
    assert "CI runs on the blue runner" not in agent_hook(mine, "session-start", source="startup")
    assert MINE not in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)
    assert trusted_by_key(mine)["ci-runner"] is False


@pytest.mark.parametrize(("old", "new"), [
    ("source: agent\n", "source: agent\npinned: true\n"),
    ("source: agent\n", "source: user\n"),
], ids=["pinned", "source-user"])
def test_a_peers_pinned_or_source_user_kept_by_the_persons_edit_stays_the_peers(tmp_path, old, new):
    """The peer's one-line change of the person's memory is its choice of standing; the person's
    later edit of the body keeps that line: the memory is the peer's (out of the session context
    and the prompt hook) until the person removes the line or approves the author. Setting it
    again themselves, in a later commit of their own, is theirs."""
    mine, _peer = _persons_memory_the_peer_promotes(tmp_path, old, new)
    _kept_out(mine)
    path = mine / NOTE
    path.write_text(path.read_text().replace(new, old, 1))
    git(mine, "commit", "-q", "-am", "not pinned by a peer")
    assert trusted_by_key(mine)["ci-runner"] is True
    assert MINE in agent_hook(mine, "session-start", source="startup") or \
        "CI runs on the blue runner" in agent_hook(mine, "session-start", source="startup")
    path.write_text(path.read_text().replace(old, new, 1))
    git(mine, "commit", "-q", "-am", "mine, set by me")
    assert trusted_by_key(mine)["ci-runner"] is True
    assert MINE in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)


def test_approving_the_peer_that_pinned_the_persons_memory_makes_it_trusted(tmp_path):
    mine, _peer = _persons_memory_the_peer_promotes(tmp_path, "source: agent\n", "source: agent\npinned: true\n")
    _kept_out(mine)
    assert at_terminal("trust", "--vault", str(mine), "--author", PEER_EMAIL).returncode == 0
    assert trusted_by_key(mine)["ci-runner"] is True
    assert MINE in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)


def test_a_peers_unpinning_or_other_source_is_no_line_of_the_peers(tmp_path):
    """The guard: what lowers a memory's standing (``pinned: false``) or claims no person's word
    (``source: inferred``) stays bookkeeping: the person's edit over it is the person's."""
    mine, _peer = _persons_memory_the_peer_promotes(tmp_path, "source: agent\n", "source: inferred\npinned: false\n")
    assert trusted_by_key(mine)["ci-runner"] is True
    assert MINE in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)


def test_a_peers_new_memory_the_person_rewrites_is_theirs_whatever_its_source(tmp_path):
    """A peer creates a memory with ``source: agent`` and dates; the person rewrites its
    description and body and commits: nothing the peer chose stands, so it is the person's."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "ci-runner.md").write_text(
        "---\ndescription: CI runs on the red runner\ncreated: 2026-12-01\nupdated: 2026-12-01\n"
        "source: agent\n---\nThe red runner. MARK-peer\n")
    push_as_peer(peer, "ci")
    assert cli("sync", "--vault", str(mine)).returncode == 0
    path = mine / NOTE
    path.write_text("---\ndescription: CI runs on the blue runner\ncreated: 2026-12-01\nupdated: 2026-12-05\n"
                    f"source: agent\n---\nThe blue runner builds every push. {MINE}\n")
    git(mine, "commit", "-q", "-am", "mine")
    assert trusted_by_key(mine)["ci-runner"] is True
    assert MINE in agent_hook(mine, "user-prompt-submit", prompt=PROMPT)
