"""dos33: a fresh resource-exhaustion run against issue 23's bounds, as a peer pushing through a
real bare remote to the victim's real ``vault-mem sync``.

A frontmatter's cost to read is bounded by its number of values, not only by its bytes and its
depth: PyYAML's Python loader pays for each value in proportion to how deeply flow lists nest
around it, so a peer's 73 KB frontmatter (under every size bound) of 36,000 lists nested 40 deep
took ~1 s of CPU per read, each synced file was read twice, and 100 such files (7 MB) held every
clone's sync for 13 minutes (789 s on 2 shared cores; a push under the 64 MB sync bound holds ~800).
"""

from __future__ import annotations

import pytest
from conftest import git
from test_sync_limits import MEMORY, push_tree, sync_cli

from vault_mem import Vault
from vault_mem.errors import VaultMemError
from vault_mem.model.frontmatter_handler import MAX_YAML_NODES, load_yaml


def nested_lists(count: int, depth: int = 40) -> str:
    """Frontmatter holding ``count`` empty lists, each nested ``depth`` deep (``depth`` values each)."""
    return (
        "description: a peer's note\ncreated: 2026-01-01\nupdated: 2026-01-01\nsource: user\n"
        "z: [" + ",".join(["[" * (depth - 1) + "]" * (depth - 1)] * count) + "]\n"
    )


def test_a_frontmatter_with_more_values_than_the_bound_is_refused_by_the_reader():
    """36,000 values nested 40 deep (73 KB), 26,000 in one list (78 KB), 100 lists nested 40 deep (8 KB):
    refused by name (before: read, ~1 s of CPU for the first); a memory's largest fields are read,
    by the C loader (short, no comment) and by the Python one (a comment) alike."""
    for text in (
        nested_lists(900),
        nested_lists(100),
        "description: x\ntags: [" + ", ".join(["a"] * 26_000) + "]\n",
        "t: " + "[" * 45 + ",".join(["a"] * 1900) + "]" * 45 + "\n",
    ):  # the last under 4,096 characters and 48 indicators: what the C loader reads
        with pytest.raises(VaultMemError, match=f"more than {MAX_YAML_NODES} values") as refused:
            load_yaml(text)
        assert "not valid YAML" not in str(refused.value)  # it is valid: too much of it, said so
    lists = "".join(
        f"{name}:\n" + "".join(f"  - item-{name}-{i}\n" for i in range(64))
        for name in ("tags", "refs", "supersedes")
    )
    fields = "".join(f"field{i}: {{a: [1, 2, {{b: c}}]}}\n" for i in range(40))
    for text in (
        f"description: x\n{lists}{fields}",
        f"# a comment\ndescription: x\n{lists}{fields}",
        "t: [" + ",".join(["a"] * 1300) + "]\n",
    ):
        assert load_yaml(text)


def test_a_peers_costly_frontmatter_is_malformed_after_sync_and_recall_still_works(pair):
    """Through the real remote: the peer's three costly memories are malformed by name (before:
    taken, 2 reads of ~1 s of CPU each per file), its good memory is found."""
    _, a, peer = pair
    good = MEMORY.replace("a peer's note", "Uses Helix as the editor")
    costly = {f"facts/costly-{i}.md": f"---\n{nested_lists(900)}---\nbody {i}\n" for i in range(3)}
    push_tree(peer, {"facts/editor.md": good, **costly})
    assert sync_cli(a).returncode == 0
    git(peer, "pull", "-q", "--ff-only", "origin", "main")
    with Vault(a) as v:
        problems = {p.path: p.reason for p in v.sidecar.problems()}
        assert set(problems) == set(costly), problems
        assert all(f"more than {MAX_YAML_NODES} values" in r for r in problems.values()), problems
        assert [h.key for h in v.recall("helix editor").hits][:1] == ["editor"]
