"""After ``vault-mem sync`` a plain ``git pull`` works: sync sets the branch's upstream when it
has none (a real bare remote, real git)."""

from __future__ import annotations

from conftest import cli, git, new_vault

from vault_mem import Vault


def test_sync_sets_the_upstream_so_git_pull_works(tmp_path):
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    a = tmp_path / "a"
    new_vault(a).close()
    git(a, "remote", "add", "origin", str(bare))  # no -u: no upstream yet
    r = cli("--vault", a, "sync")
    assert r.returncode == 0, r.stderr
    assert "upstream" in r.stdout
    assert git(a, "config", "--get", "branch.main.remote").strip() == "origin"
    assert git(a, "config", "--get", "branch.main.merge").strip() == "refs/heads/main"
    git(tmp_path, "clone", "-q", str(bare), str(tmp_path / "b"))
    b = Vault(tmp_path / "b")
    try:
        b.remember("editor", "Uses Helix as the main editor")
    finally:
        b.close()
    git(tmp_path / "b", "push", "-q")
    git(a, "pull", "-q", "--ff-only")  # a plain pull: it needs the upstream
    assert (a / "facts" / "editor.md").is_file()
    r = cli("--vault", a, "sync")
    assert r.returncode == 0 and "upstream" not in r.stdout  # set once, and said once


def test_sync_never_changes_an_upstream_a_person_set(tmp_path):
    bare = tmp_path / "remote.git"
    other = tmp_path / "other.git"
    for repo in (bare, other):
        git(tmp_path, "init", "-q", "--bare", str(repo))
    a = tmp_path / "a"
    new_vault(a).close()
    git(a, "remote", "add", "origin", str(bare))
    git(a, "remote", "add", "mirror", str(other))
    git(a, "push", "-q", "-u", "mirror", "main")
    r = cli("--vault", a, "sync")
    assert r.returncode == 0, r.stderr
    assert git(a, "config", "--get", "branch.main.remote").strip() == "mirror"
