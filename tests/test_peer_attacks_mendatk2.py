"""The review of mendatk's fixes (mendatk2): ways past them, each a peer's or an odd name's.

Real bare remote, this machine's vault (``mine``) and a peer's plain git clone (the fixture of
tests/test_peer_attacks_atk32.py); the victim is driven through the real CLI and plain git.
"""

from __future__ import annotations

import subprocess

import pytest
from conftest import new_vault
from test_peer_attacks_mendatk import _take_out_setup
from test_peer_attacks_atk32 import PEERS_TOKEN, PERSONS_TOKEN, _published, git, pair, peer_push, vm

import vault_mem.sync.remote as remote
from vault_mem import Vault
from vault_mem.errors import SyncError
from vault_mem.model.policy import file_secrets, published_already
from vault_mem.store.git import git_path
from vault_mem.store.history import SEEN_ELSEWHERE, seen_elsewhere
from vault_mem.store.provenance import replayed_file

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


def _token_file(body: str) -> str:
    return f"---\ndescription: my ci token\ncreated: 2026-11-01\nupdated: 2026-11-01\n---\n{body}\n"


@pytest.mark.parametrize("name", ['q"uote.md', "caf\u00e9.md", "tab\there.md"])
def test_sync_checks_a_memory_whose_name_git_quotes(pair, name):
    """paths_by_commit read `git log --name-only` without -z: git C-quotes such a name, the
    quoted text was no memory path, and check_outgoing never checked its credential."""
    bare, mine, _peer = pair
    (mine / "facts" / name).write_text(_token_file(f"token {PERSONS_TOKEN}"))
    git(mine, "add", "-A")
    git(mine, "commit", "-q", "--no-verify", "-m", "note")
    r = vm(mine, "sync")
    assert not _published(bare, PERSONS_TOKEN), ("the person's token was pushed", r.returncode, r.stderr[-300:])
    assert r.returncode != 0


def test_git_path_gives_back_what_git_quotes():
    assert git_path('"facts/caf\\303\\251.md"') == "facts/caf\u00e9.md"
    assert git_path('"facts/q\\"uote\\\\.md"') == 'facts/q"uote\\.md'
    assert git_path('"facts/tab\\there.md"') == "facts/tab\there.md"
    assert git_path("facts/plain.md") == "facts/plain.md"


def test_an_odd_seen_elsewhere_record_is_no_record(tmp_path):
    """_seen_kept caught OSError and ValueError only: a record nested too deep for the parser
    raised RecursionError out of every Vault open; a link there was read and written through."""
    new_vault(tmp_path / "v").close()
    v = Vault(tmp_path / "v", embedder=None)
    try:
        path = replayed_file(v.repo.common_dir).with_name(SEEN_ELSEWHERE)
        path.parent.mkdir(exist_ok=True)
        path.write_text("[" * 200000)
        seen_elsewhere(v.repo, "0" * 40, v.prefix)  # the record ignored, an answer
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_text("{}")
        path.unlink()
        path.symlink_to(elsewhere)
        seen_elsewhere(v.repo, "0" * 40, v.prefix)
        assert elsewhere.read_text() == "{}", "the record was written through a link"
    finally:
        v.close()


def _relink_many(peer, n: int) -> None:
    head = git(peer, "rev-parse", "HEAD").strip()
    lines = []
    for i in range(n):
        target = f"/etc/passwd{'/' * (i % 2 + 1)}".encode()
        lines.append(b"commit refs/heads/main\ncommitter M <m@peer.example> 1700000000 +0000\ndata 6\nrelink\n"
                     + (f"from {head}\n".encode() if i == 0 else b"")
                     + f"M 120000 inline facts/leak.md\ndata {len(target)}\n".encode() + target + b"\n")
    subprocess.run(["git", "fast-import", "--quiet", "--force"], cwd=peer, input=b"".join(lines), check=True)
    git(peer, "reset", "-q", "--hard", "main")
    git(peer, "push", "-q", "origin", "main")


def test_a_peers_thousand_relinks_never_leave_a_failed_push_stuck(pair, monkeypatch):
    """held_at read the last 1,000 commits that changed the path: a peer's symlink over the
    published file followed by 1,001 commits re-pointing it hid the commit that held the bytes,
    and after one failed push the take-out commit was refused by every later sync."""
    bare, mine, peer = _take_out_setup(pair)
    _relink_many(peer, 1001)
    real = remote._push

    def down(*a, **k):
        raise SyncError("unreachable", "cannot reach remote (simulated)")

    monkeypatch.setattr(remote, "_push", down)
    assert vm(mine, "sync").returncode != 0
    monkeypatch.setattr(remote, "_push", real)
    r = vm(mine, "sync")
    assert r.returncode == 0, r.stderr


def test_the_history_look_is_one_walk_after_the_tip_comparison(tmp_path, monkeypatch):
    """held_at ran per flagged file before the tip and base comparison: two git processes and a
    history walk each (300 files at 10,000 commits: 45 s a check). Files at the remote's tip never
    ask the history; what is left asks it once."""
    new_vault(tmp_path / "v").close()
    root = tmp_path / "v"
    for i in range(3):
        (root / "facts" / f"t{i}.md").write_text(_token_file(f"token {PEERS_TOKEN[:-1]}{i}"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", "peer tokens")
    local = git(root, "rev-parse", "HEAD").strip()
    tree = git(root, "rev-parse", "HEAD^{tree}").strip()
    rewritten = git(root, "commit-tree", tree, "-p", "HEAD~1", "-m", "peer tokens (rebased)").strip()
    asked: list[list] = []
    real = remote.held_at
    monkeypatch.setattr(remote, "held_at", lambda repo, tip, *a: asked.append([tip, *a]) or real(repo, tip, *a))
    v = Vault(root, embedder=None)
    try:
        remote.check_outgoing(v, rewritten, local)  # every file at the remote's tip: passes
        assert asked == []
        parent = git(root, "rev-parse", "HEAD~1").strip()
        with pytest.raises(SyncError):
            remote.check_outgoing(v, parent, local)  # none on the remote: one walk for all three
        assert len(asked) == 1
    finally:
        v.close()
