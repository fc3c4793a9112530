"""The review of mendatk's fixes (mendatk2): ways past them, each a peer's or an odd name's.

Real bare remote, this machine's vault (``mine``) and a peer's plain git clone (the fixture of
tests/test_peer_attacks_atk32.py); the victim is driven through the real CLI and plain git.
"""

from __future__ import annotations

from test_peer_attacks_atk32 import PEERS_TOKEN, _published, git, pair, peer_push, vm

from vault_mem.model.policy import file_secrets, published_already

__all__ = ["pair"]

PW = "Xk29vLq8Zr"


def _f(desc: str, body: str) -> str:
    return f"---\ndescription: {desc}\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n{body}\n"


def test_peers_token_in_the_label_never_passes_the_body_value_as_published():
    """published_already blanked the remote's token out and ran the gate again: the label rule
    then read other words. Each finding must be matched by its own evidence; the body's
    password is in no version of the remote's file."""
    for desc in (f"staging db password {PEERS_TOKEN}", f"no password {PEERS_TOKEN}"):
        public = _f(desc, "ask ops").encode()
        data = _f(desc, PW).encode()
        assert any(label == "body" for label, _, _ in file_secrets("facts/db.md", data))
        assert not published_already("facts/db.md", data, public), desc


def test_peers_token_as_the_whole_description_never_drops_the_key_rule():
    """Blanked, a description that is the token alone no longer parsed and the plain-text scan
    dropped the key's label rule ('staging-db-password' names the body's value)."""
    rel = "facts/staging-db-password.md"
    public = _f(PEERS_TOKEN, "ask ops").encode()
    data = _f(PEERS_TOKEN, PW).encode()
    assert any(label == "body" for label, _, _ in file_secrets(rel, data))
    assert not published_already(rel, data, public)


def test_a_labelled_value_the_remote_holds_in_the_same_field_is_published():
    """The control: the peer's file names its own body value; the person kept that body and
    changed another line. Nothing of theirs leaves."""
    desc = f"staging db password {PEERS_TOKEN}"
    public = _f(desc, PW).encode()
    data = _f(desc, PW).replace("updated: 2026-11-01", "updated: 2026-11-02").encode()
    assert file_secrets("facts/db.md", data)
    assert published_already("facts/db.md", data, public)
    assert not published_already("facts/db.md", _f(desc, PW + "x").encode(), public)


def test_sync_never_pushes_the_body_under_the_peers_no_password_token(pair):
    bare, mine, peer = pair
    git(peer, "pull", "-q", "origin", "main")
    (peer / "facts" / "db.md").write_text(_f(f"no password {PEERS_TOKEN}", "ask ops"))
    peer_push(peer, "db note")
    git(mine, "pull", "-q", "--no-rebase", "--no-verify", "origin", "main")
    (mine / "facts" / "db.md").write_text(_f(f"no password {PEERS_TOKEN}", PW))
    git(mine, "commit", "-q", "--no-verify", "-am", "the real one")
    r = vm(mine, "sync")
    assert not _published(bare, PW), "the person's password was pushed"
    assert r.returncode != 0, r.stderr
