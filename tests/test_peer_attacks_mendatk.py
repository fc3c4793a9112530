"""The review of atk32's fixes (mendatk): six ways past them, each a peer's or the network's.

Real bare remote, this machine's vault (``mine``) and a peer's plain git clone (the fixture of
tests/test_peer_attacks_atk32.py); the victim is driven through the real CLI and plain git.
"""

from __future__ import annotations

from test_peer_attacks_atk32 import (
    PEERS_TOKEN,
    _append,
    _published,
    git,
    in_force,
    pair,
    peer_push,
    subprocess_pull,
    vm,
)

from vault_mem import Vault
from vault_mem.model.policy import published_already

__all__ = ["pair"]


def test_merge_commit_hides_a_peers_put_back_file_from_seen_elsewhere(pair):
    """atk32's attack again, the peer's put-back of the person's older vault.toml made by a merge
    commit (parents: HEAD, and the person's old commit that held it) instead of a plain commit.
    `git log --find-object` computes no diff for merges, so seen_elsewhere finds only the person's
    own commits and the file is approved as 'put back here', no `vault-mem trust`."""
    _bare, mine, peer = pair
    toml = mine / "vault.toml"
    older = toml.read_text()
    toml.write_text(older.replace("k = 5", "k = 8"))
    assert in_force(mine)[0].recall_k == 8
    git(mine, "commit", "-q", "-am", "more hits")
    git(mine, "push", "-q", "origin", "main")

    git(peer, "pull", "-q", "origin", "main")
    old = git(peer, "rev-parse", "HEAD~1").strip()  # the person's commit before "more hits": older file
    git(peer, "checkout", "-q", old, "--", "vault.toml")
    tree = git(peer, "write-tree").strip()
    merge = git(peer, "commit-tree", tree, "-p", "HEAD", "-p", old, "-m", "Merge branch 'tidy'").strip()
    git(peer, "reset", "-q", "--hard", merge)
    # the deletion is a merge too (git log computes no diff for it either): its first parent is
    # the merge holding the older file, what the notice's DELETION~1 names
    git(peer, "rm", "-q", "vault.toml")
    tree = git(peer, "write-tree").strip()
    drop = git(
        peer, "commit-tree", tree, "-p", "HEAD", "-p", "HEAD^1", "-m", "Merge: drop vault.toml"
    ).strip()
    git(peer, "reset", "-q", "--hard", drop)
    git(peer, "push", "-q", "origin", "main")  # no pull --rebase: it would flatten the merges

    pulled = subprocess_pull(mine)
    assert pulled.returncode == 0, pulled.stderr
    cfg, notes = in_force(mine)
    assert cfg.recall_k == 8
    advice = next(n for n in notes if "is missing" in n)
    deletion = git(mine, "log", "-1", "--format=%H", "--", "vault.toml").strip()
    assert f"git checkout {deletion[:10]}~1 -- vault.toml" in advice, advice
    git(mine, "checkout", f"{deletion[:10]}~1", "--", "vault.toml")  # the advice, word for word
    cfg, notes = in_force(mine)
    assert cfg.recall_k == 8, "a peer's put-back file (via a merge) came into force with no `vault-mem trust`"


def _take_out_setup(pair):
    """The shipped take-out scenario: a peer's token file published long ago (quarantined in the
    person's HEAD), then replaced by a symlink: the sync's take-out commit puts the token file back."""
    bare, mine, peer = pair
    (peer / "facts" / "leak.md").write_text(
        f"---\ndescription: the peer's leaked token\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n{PEERS_TOKEN}\n"
    )
    peer_push(peer, "a token")
    assert vm(mine, "sync").returncode == 0
    git(peer, "pull", "-q", "origin", "main")
    (peer / "facts" / "leak.md").unlink()
    (peer / "facts" / "leak.md").symlink_to("/etc/passwd")
    peer_push(peer, "a link over it")
    return bare, mine, peer


def test_a_race_during_the_take_out_push_leaves_the_sync_stuck(pair, monkeypatch):
    """Someone pushes between the sync's fetch and its push (an ordinary race, or the peer pushing
    in a loop). Attempt 2's first check (before=None) compares only with the remote's tip, never
    the merge base, so the sync's own take-out commit (putting back the peer's published file) is
    refused as 'would publish'. Expected: the retry pushes, as attempt 1 would have."""
    import vault_mem.sync.remote as remote

    bare, mine, peer = _take_out_setup(pair)
    real, calls = remote._push, []

    def racing(*a, **k):
        if not calls:
            calls.append(1)
            git(peer, "pull", "-q", "origin", "main")
            (peer / "facts" / "lunch.md").write_text(_ci("where we eat", "the place on the corner"))
            peer_push(peer, "an unrelated push meanwhile")
        return real(*a, **k)

    monkeypatch.setattr(remote, "_push", racing)
    r = vm(mine, "sync")
    assert r.returncode == 0, r.stderr


def test_a_failed_push_after_the_take_out_refuses_every_later_sync(pair, monkeypatch):
    """The take-out commit is made, the push fails once (network, auth, a server hook): 'your writes
    are committed locally and integrated; the next sync pushes them'. The next sync's first check
    sees the take-out commit with only the remote's tip (a symlink there) and refuses it for good."""
    from vault_mem.errors import SyncError
    import vault_mem.sync.remote as remote

    bare, mine, peer = _take_out_setup(pair)
    real = remote._push

    def down(*a, **k):
        raise SyncError("unreachable", "cannot reach remote (simulated)")

    monkeypatch.setattr(remote, "_push", down)
    assert vm(mine, "sync").returncode != 0
    monkeypatch.setattr(remote, "_push", real)
    r = vm(mine, "sync")
    assert r.returncode == 0, r.stderr


def test_the_persons_own_file_put_back_after_a_peers_commit_replaced_it_waits_for_trust(pair):
    """seen_elsewhere counts a commit that *removed* the bytes (`git log --find-object` lists
    commits that change the number of occurrences either way). The person's own original
    vault.toml (made here at init, approved), replaced once by a peer's commit, can no longer be
    put back by the person's hand without `vault-mem trust` (which needs a terminal)."""
    _bare, mine, peer = pair
    toml = mine / "vault.toml"
    original = toml.read_text()
    init = git(mine, "log", "--format=%H", "--", "vault.toml").split()[-1]
    git(peer, "pull", "-q", "origin", "main")
    (peer / "vault.toml").write_text(original.replace("k = 5", "k = 7"))
    peer_push(peer, "peer: k 7")
    assert subprocess_pull(mine).returncode == 0
    assert in_force(mine)[0].recall_k == 5  # the peer's file waits for trust
    toml.write_text(original.replace("k = 5", "k = 9"))  # the person's own edit
    assert in_force(mine)[0].recall_k == 9
    git(mine, "commit", "-q", "-am", "k 9")
    # the person goes back to their own first file, by hand
    git(mine, "checkout", init, "--", "vault.toml")
    assert toml.read_text() == original
    cfg, notes = in_force(mine)
    assert cfg.recall_k == 5, ("the person's own file, put back by hand, waits for `vault-mem trust`", notes)


SEED = "legal winner thank year wave sausage worth useful legal winner thank yellow".split()
PEERS_TOKEN_2 = "ghp_M4nB7vC1xZ9lK2jH5gF8dS3aP6oI0uY7tR4e"


def _ci(desc: str, body: str) -> str:
    return f"---\ndescription: {desc}\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n{body}\n"


def test_a_split_seed_phrase_passes_as_published_beside_two_peer_tokens(pair):
    """published_already counts distinct (field, kind) findings against whole-text spans: the
    peer's two GitHub tokens give 2 spans but 1 (body, GitHub token); the person's seed phrase,
    split between description and body (a finding with no span), makes the 2nd. 2 >= 2 and both
    spans are the peer's: the sync pushes the person's seed phrase."""
    bare, mine, peer = pair
    peers = f"github {PEERS_TOKEN}\ngithub2 {PEERS_TOKEN_2}"
    (peer / "facts" / "ci.md").write_text(_ci("ci tokens", peers))
    peer_push(peer, "ci tokens")
    git(mine, "pull", "-q", "--no-rebase", "--no-verify", "origin", "main")
    (mine / "facts" / "ci.md").write_text(
        _ci("ci tokens " + " ".join(SEED[:6]), " ".join(SEED[6:]) + "\n" + peers)
    )
    git(mine, "commit", "-q", "--no-verify", "-am", "my note beside the peer's")
    r = vm(mine, "sync")
    assert not _published(bare, " ".join(SEED[6:])), "the person's seed phrase was pushed"
    assert r.returncode != 0, r.stderr


def test_the_conflict_copy_of_a_hand_merge_keeping_the_peers_token_sticks(pair):
    """The shipped exception's own case (the person's hand merge past the hooks keeps the peer's
    published token, and adds a line), but the peer edits the same file once more meanwhile. The
    replay puts the person's version in a conflict copy: a new path, which the remote holds at
    neither its tip nor the base, so the second pass refuses the peer's own published token there
    after HEAD has moved, and every later sync's first pass refuses the replayed commit."""
    bare, mine, peer = pair
    _append(peer / "facts" / "deploy-steps.md", f"ci token: {PEERS_TOKEN}")
    peer_push(peer, "peer token")
    git(mine, "pull", "-q", "--no-rebase", "--no-verify", "origin", "main")
    _append(mine / "facts" / "deploy-steps.md", "deploys go out on Tuesdays")
    git(mine, "commit", "-q", "--no-verify", "-am", "my note beside the peer's")
    _append(peer / "facts" / "deploy-steps.md", "rollbacks through the same pipeline")
    peer_push(peer, "peer edits it again")
    r = vm(mine, "sync")
    assert r.returncode == 0, r.stderr


# -- published_already, the value rule itself ---------------------------------------------------

T1 = "ghp_R8xT2mQ9vL4kW7nB3cZ6yF1hJ5pD0sA8eG2u"


def test_a_split_seed_phrase_is_no_published_value_beside_two_peer_tokens_of_one_kind():
    """Two of the peer's GitHub tokens (two spans, one (field, kind)) made room for the person's
    seed phrase split between description and body (a finding with no span)."""
    peers = f"github {T1}\ngithub2 {PEERS_TOKEN_2}"
    public = _ci("ci tokens", peers).encode()
    data = _ci("ci tokens " + " ".join(SEED[:6]), " ".join(SEED[6:]) + "\n" + peers).encode()
    assert not published_already("facts/ci.md", data, public)
    assert published_already("facts/ci.md", _ci("ci tokens", peers + "\nmore prose").encode(), public)


def test_a_password_named_in_the_peers_prose_is_no_published_credential():
    """`span in theirs` let the person's password out because the peer's file lists it as a
    word in prose ("passwords we must never use"): only the remote's credentials count."""
    words = ["correcthorsebatterystaple", "Summer2026!", "hunter2hunter2", "Tr0ub4dor&3"]
    listed = f"ci {T1}\nnever use: " + ", ".join(words)
    public = _ci("passwords we must never use", listed).encode()
    data = _ci("passwords we must never use", listed + "\n\nmy password: correcthorsebatterystaple").encode()
    assert not published_already("facts/pw.md", data, public)


def test_seen_elsewhere_walks_the_commits_that_came_since_its_kept_walk(pair):
    """The walk is kept per blob (a Vault open while the file waits walks only new commits): a
    peer's commit fetched after the first answer, holding those bytes, still counts."""
    from vault_mem.store.history import seen_elsewhere

    _bare, mine, peer = pair
    wanted = (mine / "vault.toml").read_text().replace("k = 5", "k = 6")
    v = Vault(mine, embedder=None)
    try:
        blob = v.repo.blob_id(wanted.encode())
        assert not seen_elsewhere(v.repo, blob, v.prefix)
        assert not seen_elsewhere(v.repo, blob, v.prefix)  # the kept walk's answer
        git(peer, "pull", "-q", "origin", "main")
        (peer / "vault.toml").write_text(wanted)
        peer_push(peer, "peer: k 6")
        git(mine, "fetch", "-q", "origin")
        assert seen_elsewhere(v.repo, blob, v.prefix)
    finally:
        v.close()
