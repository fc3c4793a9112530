"""A fourth attack run by a sync peer (issue 23): each attack through a real bare remote, a peer
clone pushing with raw git as ``mallory@peer.example``, and the person using the real CLI, git
and its hooks, the MCP server process and the agent hooks as they would."""

from __future__ import annotations

from conftest import git, person_and_peer, push_as_peer, run_cli

#: explicit YAML tags PyYAML's own constructors crash on (KeyError, AttributeError, IndexError)
CRASHING_TAGS = ["!!bool IGNORE", "!!timestamp IGNORE ALL", "!!int ''", "!!float ''", "!!int '-'"]


def test_a_peers_explicit_yaml_tag_never_breaks_sync_or_a_clone(tmp_path):
    """`description: !!bool IGNORE` made PyYAML raise a KeyError (`!!timestamp x` an
    AttributeError, `!!int ''` an IndexError), which no reader caught: every later sync of
    every clone ended in "internal error", so the peer's own repair could not arrive either,
    and every command of a fresh clone failed."""
    mine, peer = person_and_peer(tmp_path)
    for n, tag in enumerate(CRASHING_TAGS):
        (peer / "facts" / f"deploy-notes-{n}.md").write_text(f"---\ndescription: {tag}\n---\nbody\n")
    push_as_peer(peer, "peer")
    synced = run_cli("sync", "--vault", str(mine))
    assert synced.returncode == 0, synced.stderr
    assert "facts/deploy-notes-0.md" in synced.stderr and "internal error" not in synced.stderr
    for args in (["list"], ["recall", "deploy notes"], ["sync"], ["doctor"]):
        r = run_cli("--vault", str(mine), *args)
        assert "internal error" not in r.stderr and (r.returncode == 0 or args == ["doctor"]), (args, r.stderr)
    git(tmp_path, "clone", "-q", str(tmp_path / "remote.git"), str(tmp_path / "fresh"))
    fresh = run_cli("--vault", str(tmp_path / "fresh"), "list")
    assert fresh.returncode == 0 and "editor-choice" in fresh.stdout, fresh.stderr
