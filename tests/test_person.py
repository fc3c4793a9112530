"""What vault-mem commits in the person's name (vault/person.py, vault/hand_edits.py) on a machine
with no git identity: no ``user.name``/``user.email`` in any git config and no ``GIT_AUTHOR_*``,
as a newcomer's fresh account has.

Each test takes the identity away after the vault was made: a HOME of its own with no
``.gitconfig``, no ``GIT_AUTHOR_*``/``GIT_COMMITTER_*`` variables (``GIT_CONFIG_NOSYSTEM=1`` and
an ``XDG_CONFIG_HOME`` without ``git/config`` come from conftest). Real git, a real editor
process (a shell script), the real CLI.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import cli, git, new_vault

IDENTITY_VARS = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")


@pytest.fixture
def vdir(tmp_path):
    """A fresh vault's folder: what `vault-mem init` makes there (:func:`conftest.new_vault`: a copy
    of one made once per worker; the tests of `init` itself run it)."""
    new_vault(tmp_path / "v").close()
    assert cli("--vault", str(tmp_path / "v"), "remember", "ci", "-d", "CI runs on Jenkins").returncode == 0
    return tmp_path / "v"


@pytest.fixture
def no_identity(tmp_path, monkeypatch):
    """No git identity anywhere from here on (checked with git itself)."""
    home = tmp_path / "fresh-home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in IDENTITY_VARS:
        monkeypatch.delenv(name, raising=False)
    xdg = Path(__import__("os").environ["XDG_CONFIG_HOME"])
    assert not (xdg / "git" / "config").exists()
    assert git(tmp_path, "config", "user.email", check=False) == ""


def _editor(tmp_path: Path, script: str, name: str = "editor.sh") -> str:
    """A real editor process: a shell script that edits the file it is given, as a person would;
    it leaves ``ran`` beside itself each time it runs."""
    exe = tmp_path / name
    exe.write_text(f"#!/bin/sh\necho ran >> '{tmp_path / 'ran'}'\n{script}\n")
    exe.chmod(0o755)
    return str(exe)


def _says_how_to_set_an_identity(text: str, root: Path, *, refused: bool = False) -> None:
    """... and what happens next only where something was refused: "then retry" beside a write
    that succeeded told the person to retry what needed no retrying."""
    assert "no git identity" in text, text
    assert "git's user.name and user.email are not set (set them for this vault with" in text, text
    assert ("run `vault-mem edit` again" in text) == refused and "retry" not in text, text
    assert f"git -C {root} config user.name" in text and f"git -C {root} config user.email" in text, text
    assert "git config --global user.name" in text and "git config --global user.email" in text, text


def test_edit_with_no_git_identity_says_how_to_set_one_before_the_editor_opens(vdir, tmp_path, no_identity):
    head = git(vdir, "rev-parse", "HEAD").strip()
    editor = _editor(tmp_path, 'sed -i "s/Jenkins/GitHub Actions/" "$1"')
    r = cli("--vault", str(vdir), "edit", "ci", env={"EDITOR": editor, "VISUAL": ""})
    assert r.returncode == 1, r.stdout + r.stderr
    _says_how_to_set_an_identity(r.stderr, vdir, refused=True)
    assert not (tmp_path / "ran").exists(), "the editor opened though the edit could not be committed"
    assert "Jenkins" in (vdir / "facts" / "ci.md").read_text()
    assert git(vdir, "rev-parse", "HEAD").strip() == head and git(vdir, "status", "--porcelain") == ""


def test_edit_commits_what_an_earlier_session_left_uncommitted(vdir, tmp_path, no_identity):
    """An edit left on disk by an earlier `edit` that could not commit (or an editor that crashed
    after saving): the next `edit`, its editor changing nothing, commits it in the person's name
    instead of saying "not changed" and leaving it uncommitted."""
    fact = vdir / "facts" / "ci.md"
    fact.write_text(fact.read_text().replace("Jenkins", "GitHub Actions"))  # what the earlier session left
    git(vdir, "config", "user.name", "Fresh Person")
    git(vdir, "config", "user.email", "fresh@example.com")
    r = cli("--vault", str(vdir), "edit", "ci", env={"EDITOR": _editor(tmp_path, "true"), "VISUAL": ""})
    assert r.returncode == 0, r.stdout + r.stderr
    assert "committed the uncommitted changes it held from before" in r.stdout, r.stdout
    assert git(vdir, "log", "-1", "--format=%an <%ae>|%s").strip() == \
        "Fresh Person <fresh@example.com>|edit: ci — CI runs on GitHub Actions"
    assert git(vdir, "status", "--porcelain") == ""
    assert "GitHub Actions" in git(vdir, "show", "HEAD:INDEX.md")
    r = cli("--vault", str(vdir), "edit", "ci", env={"EDITOR": _editor(tmp_path, "true"), "VISUAL": ""})
    assert r.returncode == 0 and r.stdout.strip() == "facts/ci.md: not changed", r.stdout


def test_the_index_md_commit_in_the_persons_name_says_why_it_was_not_made(vdir, tmp_path, no_identity):
    """A person's `git commit --no-verify` of a hand edit (no pre-commit hook ran) left the
    committed INDEX.md stale; the next agent write first commits INDEX.md alone in the person's
    name. With no identity that was skipped in silence and the agent's commit carried the
    person's change; now the write says why, with how to set an identity."""
    fact = vdir / "facts" / "ci.md"
    fact.write_text(fact.read_text().replace("Jenkins", "Buildkite"))
    git(vdir, "-c", "user.name=Some Person", "-c", "user.email=some@example.com", "commit", "-q", "--no-verify",
        "-am", "ci moved")
    assert "CI runs on Jenkins" in git(vdir, "show", "HEAD:INDEX.md")  # stale
    r = cli("--vault", str(vdir), "remember", "other", "-d", "Another fact")
    assert r.returncode == 0, r.stderr
    _says_how_to_set_an_identity(r.stderr, vdir)
    assert "INDEX.md" in r.stderr


def test_agent_commits_need_no_person_identity(vdir, no_identity):
    """remember, forget and undo are commits in the agent's name (vault.toml): they work on a
    machine with no git identity, and never ask for one."""
    for args in (["remember", "other", "-d", "Another fact"], ["forget", "other"], ["undo", "HEAD"]):
        r = cli("--vault", str(vdir), *args)
        assert r.returncode == 0, (args, r.stderr)
        assert "no git identity" not in r.stderr
    assert git(vdir, "log", "-3", "--format=%an").split("\n")[:3] == ["vault-mem agent"] * 3


def test_one_missing_half_of_the_identity_is_named_alone(vdir, no_identity):
    from vault_mem.errors import IdentityError
    from vault_mem.store.git import GitRepo
    from vault_mem.vault.person import user_identity

    git(vdir, "config", "user.name", "Fresh Person")
    with pytest.raises(IdentityError, match=r"git's user\.email is not set \(set it for this vault with"):
        user_identity(GitRepo(vdir))
