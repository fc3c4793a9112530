"""The peers' memories a read leaves out are judged once per state of what the judgement reads
(:mod:`vault_mem.vault.peers`), and judged again when any of it changes: an approval, a peer's
commit, a hand edit over a peer's memory, an agent's write. One warm :class:`Vault` (as the MCP
server and the daemon keep one) is compared at each step with a vault opened anew, which keeps
nothing. Real git (a peer's commits made without vault-mem's hooks: not made here), real
SQLite, the real trust file."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import count_standing, new_vault

from vault_mem import Vault
from vault_mem.store.trust import approve_authors
from vault_mem.vault import authors

PEER, OTHER = "mallory@peer.example", "trent@other.example"
N_PEER = 80


def memory(description: str, body: str) -> str:
    return f"---\ndescription: {description}\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n{body}\n"


def peer_commit(root: Path, email: str, files: dict[str, str]) -> None:
    """``files`` committed by ``email`` with plain git and no hooks: as a pull brings a peer's."""
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_NAME": "Peer", "GIT_AUTHOR_EMAIL": email,
           "GIT_COMMITTER_NAME": "Peer", "GIT_COMMITTER_EMAIL": email}
    subprocess.run(["git", "add", "--", *files], cwd=root, env=env, check=True)
    subprocess.run(["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", "peer"],
                   cwd=root, env=env, check=True)


@pytest.fixture
def team(tmp_path):
    """The person's vault: one memory of the agent's, and ``N_PEER`` memories of a peer's about
    the same deploys (every one a look-alike of the person's)."""
    vault = new_vault(tmp_path / "v")
    vault.remember("deploy-window", "Deploys to staging happen on Tuesdays", "Never on Fridays.")
    peer_commit(vault.root, PEER, {f"facts/peer-deploy-{i:03d}.md": memory(
        f"Deploys to staging happen on day {i}", f"Peer note {i} about staging deploys.") for i in range(N_PEER)})
    yield vault
    vault.close()


def answers(vault: Vault) -> tuple[set[str], list[str], set[str]]:
    """What reaches an agent unasked: the peers' memories by path, a prompt's trusted-only
    recall (keys), and a recall on request's hits (keys) after the peers' made room."""
    vault.reconcile()
    _text, _legend, peers = vault.render_trusted_index()
    hook = [h.key for h in vault.recall("deploys to staging", k=5, trusted_only=True).hits]
    asked = {h.key for h in vault.recall("deploys to staging", k=5).hits if h.trusted}
    return set(peers), hook, asked


def fresh(root: Path) -> tuple[set[str], list[str], set[str]]:
    with Vault(root) as vault:
        return answers(vault)


def test_a_read_asked_again_in_an_unchanged_vault_judges_no_memory_again(team, monkeypatch) -> None:
    """A prompt's recall, a recall its peers' hits reach and the session context, asked again
    with nothing changed, judge no memory's author again: the cost was every peer memory's
    judgement on every read (~1.8 s of CPU at 100k, issue 29), now it is the hits'."""
    first = answers(team)
    assert len(first[0]) == N_PEER and first[1] == ["deploy-window"] and "deploy-window" in first[2]
    calls = count_standing(monkeypatch)
    assert answers(team) == first
    # the hits' own authors (a handful per recall), never the N_PEER memories again
    assert len(calls) < N_PEER // 4, len(calls)


def test_the_kept_judgement_follows_every_change_a_fresh_read_sees(team) -> None:
    """Each change that moves who wrote what is seen by the warm vault as by a fresh one."""
    root = team.root
    assert answers(team) == fresh(root)
    # a peer's new commit: its memory left out too
    peer_commit(root, OTHER, {"facts/other-deploy.md": memory("Deploys to staging happen at night", "Other.")})
    now = answers(team)
    assert "facts/other-deploy.md" in now[0] and now == fresh(root)
    # the person's hand edit rewriting a peer's memory whole: the person's now
    (root / "facts" / "peer-deploy-000.md").write_text(
        memory("Deploys to staging happen after the person's check", "The person's own words."), encoding="utf-8")
    now = answers(team)
    assert "facts/peer-deploy-000.md" not in now[0] and now == fresh(root)
    # a hand edit keeping a peer's line: still the peer's
    (root / "facts" / "peer-deploy-001.md").write_text(
        memory("Deploys to staging happen on day 1", "Peer note 1 about staging deploys.\nAnd one more line."),
        encoding="utf-8")
    now = answers(team)
    assert "facts/peer-deploy-001.md" in now[0] and now == fresh(root)
    # an agent's write (HEAD moves; nothing of the peers' changes)
    team.remember("deploy-owner", "Deploys to staging are run by the on-call person", "Rotation.")
    now = answers(team)
    assert "deploy-owner" in now[1] + sorted(now[2]) and now == fresh(root)
    # the peer approved here: its memories may reach the agent
    approve_authors(root, [PEER])
    now = answers(team)
    assert now[0] == {"facts/other-deploy.md"} and now == fresh(root)
    assert any(k.startswith("peer-deploy-") for k in now[1])
    # the approval taken back (the trust file rewritten): left out again
    from vault_mem.store.trust import trust_file

    data = Path(trust_file()).read_text(encoding="utf-8")
    Path(trust_file()).write_text(data.replace(f'"{PEER}"', '"nobody@example.invalid"'), encoding="utf-8")
    now = answers(team)
    assert "facts/peer-deploy-002.md" in now[0] and now == fresh(root)


def test_an_approval_withdrawn_by_hand_in_the_same_tick_is_seen(team) -> None:
    """The approvals file edited in place by hand (the person removes a peer's approval), its
    modification time the one the last read saw (a file system of 1-second times, or an edit
    within the same tick): the peer's memories are left out again. The identities were kept while
    each source's mtime alone stayed, so a long-lived process (the MCP server) kept putting the
    withdrawn peer's memories in front of the agent."""
    approve_authors(team.root, [PEER])
    assert answers(team)[0] == set()
    path = authors.trust_file()
    st = os.stat(path)
    text = path.read_text(encoding="utf-8")
    assert PEER in text
    with open(path, "w", encoding="utf-8") as fh:  # in place: the same inode
        fh.write(text.replace(f'"{PEER}"', '"nobody@else.example"'))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    peers, hook, _asked = answers(team)
    assert len(peers) == N_PEER and hook == ["deploy-window"]


def peer_put_back(root: Path, rel: str) -> None:
    """The peer deletes ``rel`` and puts the same bytes back, in two commits made with plain git:
    the path's last commit is the peer's, its text first seen in the person's commit."""
    text = (root / rel).read_text(encoding="utf-8")
    env = {**os.environ, "GIT_AUTHOR_NAME": "Peer", "GIT_AUTHOR_EMAIL": PEER,
           "GIT_COMMITTER_NAME": "Peer", "GIT_COMMITTER_EMAIL": PEER}
    subprocess.run(["git", "rm", "-q", "--", rel], cwd=root, env=env, check=True)
    subprocess.run(["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "--no-verify", "-m", "peer: away"],
                   cwd=root, env=env, check=True)
    peer_commit(root, PEER, {rel: text})


def test_what_a_judgement_keeps_for_itself_does_not_make_the_next_read_judge_again(team) -> None:
    """A judgement that works out a path's history (a peer's put-back of the person's text:
    ``authors._given_back``) keeps it in the sidecar for the next process; that row, written by
    the judgement itself, moved the rows' stamp the judgement was kept under, so the next read
    judged the whole vault again (~1.8 s of CPU at 100k) with nothing changed: a warm MCP
    server's second recall, or its first after any change. What the judgement writes is a cache
    of git's answers for this HEAD: the reads after it judge nothing, and answer as a fresh
    vault does."""
    peer_put_back(team.root, "facts/deploy-window.md")
    team.reconcile()
    peers = team.render_trusted_index()[2]
    assert team._kept_peers.judgements == 1
    assert "facts/deploy-window.md" not in peers and len(peers) == N_PEER
    now = answers(team)
    assert team._kept_peers.judgements == 1, team._kept_peers.last
    assert now == fresh(team.root) and now[1] == ["deploy-window"]


def test_vectors_made_by_reads_do_not_make_the_next_read_judge_again(team, monkeypatch) -> None:
    """Vectors owed (a fresh clone, a new embedder: at 100k ~15 minutes of them) are made a share
    per recall; each share moved the rows' stamp, so every recall judged the peers' memories
    again until the last vector was in (the MCP bench at 100k: 7 judgements, ~1.8 s of CPU each).
    So did a recall's new words, whose vectors the answer check caches: nearly every prompt in a
    session judged again the whole vault. Vectors are read by searches alone: the judgement is
    made once, and the answers are a fresh vault.s."""
    from fakes import FakeEmbedder

    from vault_mem.index import vectors

    monkeypatch.setattr(vectors, "OWED_EMBED_S", 0.0)  # one group of vectors per recall
    embedder = FakeEmbedder()
    embedder.batch_size = 2  # a group of 8 vectors
    with Vault(team.root, embedder=embedder) as vault:
        owed = vault.sidecar.vectors.vectors_missing()
        assert owed > 0
        asked = [answers(vault) for _ in range(3)]
        assert vault.sidecar.vectors.vectors_missing() < owed
        assert vault._kept_peers.judgements == 1, vault._kept_peers.last
        assert asked[0] == asked[-1] and asked[0][1] == ["deploy-window"]
        # a recall's words never asked before: the answer check caches their vectors
        for words in ("when are staging deploys scheduled", "which weekday suits a rollout"):
            vault.recall(words)
        assert answers(vault) == asked[0] == fresh(team.root)
        assert vault._kept_peers.judgements == 1, vault._kept_peers.last
