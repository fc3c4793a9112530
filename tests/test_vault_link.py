"""A person's own link to a vault, or into one, is followed to the vault's top (trust23): a
project's ``memory`` that the person linked by hand (no commit holds it) to a folder of a vault
(``memory -> ~/notes/facts``) made ``--vault TOP/memory`` say "not a vault" and suggest a
``vault-mem init`` of the vault's own ``facts/`` folder (a vault inside a vault), while
``--vault ~/notes/facts`` named directly meant ``~/notes``. A link the person made is theirs and
means what naming its target means; a link a commit holds is a teammate's choice and still
refused by name (``store/workspace.committed_link``). Real git, the real CLI."""

from __future__ import annotations

import os

from conftest import cli, git


def _vault_and_project(tmp_path):
    vault = tmp_path / "notes"
    assert cli("init", vault).returncode == 0
    r = cli("--vault", vault, "remember", "ci-runner", "--type", "fact", "-d", "CI runs on the blue runner")
    assert r.returncode == 0, r.stderr
    proj = tmp_path / "proj"
    proj.mkdir()
    git(proj, "init", "-q", "-b", "main")
    (proj / "app.py").write_text("print('app')\n")
    git(proj, "add", "-A")
    git(proj, "commit", "-q", "-m", "app")
    return vault, proj


def test_the_persons_own_link_into_a_vault_is_followed_to_its_top(tmp_path):
    vault, proj = _vault_and_project(tmp_path)
    os.symlink(vault / "facts", proj / "memory")
    for named in (proj / "memory", "memory"):
        r = cli("--vault", named, "list", cwd=proj)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "ci-runner" in r.stdout
    r = cli("--vault", proj / "memory", "remember", "build-cmd", "--type", "fact", "-d", "Build with make")
    assert r.returncode == 0, r.stderr
    assert (vault / "facts" / "build-cmd.md").is_file()
    assert not (vault / "facts" / "vault.toml").exists()


def test_the_persons_own_link_to_a_vault_top_is_the_vault(tmp_path):
    vault, proj = _vault_and_project(tmp_path)
    os.symlink(vault, proj / "memory")
    r = cli("--vault", proj / "memory", "list")
    assert r.returncode == 0 and "ci-runner" in r.stdout, r.stdout + r.stderr


def test_a_committed_link_into_a_vault_is_still_refused_by_name(tmp_path):
    """The guard: a link the repository holds is a commit's choice, never followed."""
    vault, proj = _vault_and_project(tmp_path)
    os.symlink(vault / "facts", proj / "memory")
    git(proj, "add", "memory")
    git(proj, "commit", "-q", "-m", "memory link")
    r = cli("--vault", proj / "memory", "list")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "symlink" in r.stderr and "the repository holds" in r.stderr, r.stderr
    assert "ci-runner" not in r.stdout


def _git_commands(trace) -> list[str]:
    return [line.split('"name":"', 1)[1].split('"', 1)[0] for line in trace.read_text().splitlines()
            if '"event":"cmd_name"' in line] if trace.exists() else []


def test_whether_a_link_is_committed_is_asked_of_git_once_per_command(tmp_path, monkeypatch):
    """The vault finder asks git whether the project's ``memory`` link is a commit's, and the
    vault refuses it by name when it opens: one ``git ls-files`` between them, not one each. A
    change to git's index (the link committed, then removed from the index) is seen at once."""
    vault, proj = _vault_and_project(tmp_path)
    os.symlink(vault / "facts", proj / "memory")
    git(proj, "add", "memory")
    git(proj, "commit", "-q", "-m", "memory link")
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    r = cli("--vault", proj / "memory", "list")
    assert r.returncode == 1 and "the repository holds" in r.stderr, r.stdout + r.stderr
    assert _git_commands(trace).count("ls-files") == 1, _git_commands(trace)
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    git(proj, "rm", "-q", "--cached", "memory")  # the person's own link now: followed
    r = cli("--vault", proj / "memory", "list")
    assert r.returncode == 0 and "ci-runner" in r.stdout, r.stdout + r.stderr
    git(proj, "add", "memory")  # a commit's again: refused again
    r = cli("--vault", proj / "memory", "list")
    assert r.returncode == 1 and "the repository holds" in r.stderr, r.stdout + r.stderr


def test_a_committed_link_in_a_worktree_is_refused_and_the_persons_own_followed(tmp_path):
    """In a ``git worktree`` (its ``.git`` a file naming its git folder, where its own index is)
    the same rule holds, and the answer follows that index: a link its index holds is refused,
    and once removed from it the link is the person's own."""
    vault, proj = _vault_and_project(tmp_path)
    other = tmp_path / "other"
    git(proj, "worktree", "add", "-q", "-b", "other", str(other))
    assert (other / ".git").is_file()
    os.symlink(vault / "facts", other / "memory")
    git(other, "add", "memory")
    r = cli("--vault", other / "memory", "list")
    assert r.returncode == 1 and "the repository holds" in r.stderr, r.stdout + r.stderr
    git(other, "rm", "-q", "--cached", "memory")
    r = cli("--vault", other / "memory", "list")
    assert r.returncode == 0 and "ci-runner" in r.stdout, r.stdout + r.stderr
