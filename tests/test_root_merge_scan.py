"""A peer's merge of many root commits sharing one tree costs the history walks the tree once,
not once per root (issue 23: no push makes a read cost beyond a stated bound).

Before: the scan of who gave each text (``history.introductions``) and the walk of each file's
last author (``history.last_authors``) had git list every root commit's whole tree as additions
(``git log --raw`` shows a root as a big creation event): a peer's merge of 600 roots sharing
one tree of 3,000 memory files (a pack of ~150 KB) cost 1.8 million listed changes per walk, the
next command after the sync ~26 s (``bench/bench_root_merge.py``). Now a root's trees are read by
vault-mem (``history.root_changes``), each of a peer's folders once per walk; a root made on this
machine is always read whole (its texts are never left to a peer's root). Counted here in the
changes each walk hands on, never timed. Real git, a real remote, the real CLI.
"""

from __future__ import annotations

from conftest import cli, git, person_and_peer
from test_peer_attacks26 import _octopus, _peer_git

from vault_mem.store import history
from vault_mem.store.git import GitRepo
from vault_mem.vault.authors import identities
from vault_mem.vault.core import Vault

ROOTS, FILES = 40, 500


def test_a_peers_roots_sharing_one_tree_are_read_once_by_each_walk(tmp_path, monkeypatch):
    mine, peer = person_and_peer(tmp_path)
    merge = _octopus(peer, ROOTS, FILES)
    _peer_git(peer, "push", "-q", "origin", f"{merge}:refs/heads/main")
    r = cli("--vault", str(mine), "sync")
    assert r.returncode == 0 and f"received {ROOTS + 1} commit(s)" in r.stdout, r.stdout + r.stderr

    repo = GitRepo(mine)
    with Vault(mine) as vault:
        own = identities(vault.ws).local
    given = list(history.introductions(repo, history.known_tips(repo), [], "", own=own))
    roots = [g for g in given if not g[4]]
    assert len(roots) == ROOTS + 1  # the person's first commit and the peer's roots, each named
    # the peer's shared folder once (one text under FILES names), not once per root
    assert sum(len(g[5]) for g in roots) < FILES + 50, sum(len(g[5]) for g in roots)
    first = git(mine, "rev-list", "--max-parents=0", "HEAD").split()
    persons = [g for g in roots if g[0] in own]
    assert persons and all(g[5] for g in persons), persons  # this machine's root: read whole

    listed = []
    record = history._last_authors_record
    monkeypatch.setattr(history, "_last_authors_record",
                        lambda head, changes, *rest: (listed.append(len(c := list(changes))), record(head, c, *rest)))
    found = history.last_authors(repo, git(mine, "rev-parse", "HEAD").strip(), None, ["."], touched={},
                                 moves={}, local=own)
    assert sum(listed) < 2 * FILES + 100, sum(listed)
    assert "preferences/editor-choice.md" in found and "facts/note-0.md" not in found  # the tip's files alone
    assert len(first) == ROOTS + 1
