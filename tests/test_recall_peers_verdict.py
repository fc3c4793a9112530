"""Recall's verdict in a vault some of whose memories a peer wrote (an author not approved here),
as a person asks for them: a peer's answer asked for keeps its place among the person's own
memories, and a vault whose every memory is a peer's keeps a relevance floor. The real bundled
model, a real bare remote and the peer's plain git clone."""

from __future__ import annotations

from conftest import cli, person_and_peer, push_as_peer, real_embedder

#: the person's own memories (none about a cache)
OWN = ["The staging database is Postgres 15 on db-stg-2", "Deploys go out on Tuesdays after the standup",
       "The CI pipeline runs on GitHub Actions with a self-hosted runner", "Uses tabs set to 4 spaces in Python files",
       "The API gateway is Kong behind Cloudflare", "Releases are tagged vX.Y.Z and signed with the release key",
       "The data warehouse is BigQuery in the eu-west region", "On-call rotation changes every Monday at 9:00",
       "Error tracking goes to Sentry, project web-prod", "Payments go through Stripe in test mode on staging"]
PEERS = "The staging cache is Redis 7 on cache-stg-1, listening on port 6380"
ASKED = "which port does the staging cache listen on"


def _peer_writes(mine, peer, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (peer / rel).parent.mkdir(parents=True, exist_ok=True)
        (peer / rel).write_text(text)
    push_as_peer(peer, "the peer's notes")
    assert cli("--vault", str(mine), "sync").returncode == 0


def test_a_peers_answer_asked_for_is_not_pushed_out_by_the_persons_unrelated_memories(tmp_path):
    """Before: a recall whose hits held a peer's was asked again without the peers, and every
    memory of the person's that second search found took a place from the peers' hits: with
    ``k`` of the person's over the hit bar (any vault of a few dozen), a recall asked for kept
    none of the peer's, its answer ranked first included (a vault half of whose memories were a
    teammate's kept no peer's hit in 64 of 83 recalls of the developer set). The peers' best now
    keep up to half of the places they won; the person's own still take the rest."""
    from vault_mem import Vault

    mine, peer = person_and_peer(tmp_path)
    _peer_writes(mine, peer, {"facts/staging-cache.md": f"---\ndescription: {PEERS}\n---\n"})
    v = Vault(mine, embedder=real_embedder())
    try:
        for i, text in enumerate(OWN):
            v.remember(f"own-{i}", text, type="fact")
        alone = v.recall(ASKED, trusted_only=True)
        assert len(alone.hits) == 5  # the person's own fill a search without the peers
        for k in (None, 3, 10):
            hits = v.recall(ASKED, k=k).hits
            assert ("staging-cache", False) in [(h.key, h.trusted) for h in hits], (k, [(h.key, h.match) for h in hits])
            assert sum(h.trusted for h in hits) >= len(hits) - len(hits) // 2, hits  # the person's still hold half
        # one place: the person's alone, as before
        assert [h.trusted for h in v.recall(ASKED, k=1).hits] == [True]
    finally:
        v.close()


def test_a_vault_whose_every_memory_is_a_peers_keeps_a_floor_for_a_model_with_no_prior(tmp_path):
    """Before: the floor's calibration counts the memories whose authors are trusted here; where
    none is (a clone of a team's vault the person has not written to yet), every probe's best
    cosine was -1, the floor -1.0 and every hit of a model with no prior (an HTTP or Ollama model
    the priors do not name) strong, an off-topic question's included. A calibration that counted
    no vector is now no calibration: the prior, as in an empty vault."""
    from vault_mem import Vault

    mine, peer = person_and_peer(tmp_path)
    notes = {f"facts/team-{i}.md": f"---\ndescription: {text}\n---\n" for i, text in enumerate(OWN)}
    # the peer's edit of the person's one memory makes it the peer's too
    notes["preferences/editor-choice.md"] = "---\ndescription: Uses Helix as the main editor, and Zed\n---\n"
    _peer_writes(mine, peer, notes)
    emb = real_embedder()
    emb.model_id = "openai:minilm@http://127.0.0.1:9"  # the bundled model served by a name no prior holds
    v = Vault(mine, embedder=emb)
    try:
        assert len(v.peer_memories()) == len(notes)
        # a peer's hit is never strong (atk25: vault/core._trusted_kept); what the floor made of
        # each before that is the stage it names (levels.PEERS: strong but a peer's)
        from vault_mem.index.levels import PEERS

        res = v.recall("what is the capital of Mongolia")
        assert res.floor["source"] == "prior" and res.floor["base"] > 0, res.floor
        assert PEERS not in res.demoted.values(), [(h.key, h.match, res.demoted.get(h.key)) for h in res.hits]
        res = v.recall("which day do deploys go out")
        assert res.hits[0].key == "team-1" and res.demoted.get("team-1") == PEERS, [(h.key, h.match) for h in res.hits]
        assert res.verdict == "candidate" and not res.hits[0].trusted
    finally:
        v.close()
