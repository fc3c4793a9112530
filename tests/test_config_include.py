"""A person's git configuration that reads a file of the vault's work tree (issue 23, "nothing in a
vault is ever run"): ``include.path = ../.gitconfig`` in the vault's ``.git/config``, an
``includeIf`` naming a file there, or a config file git reads itself that lies there
(``GIT_CONFIG_GLOBAL``). A peer's pushed ``.gitconfig`` waits for approval in ``vault-mem sync``,
but a plain ``git pull`` brings it and git itself runs its ``core.fsmonitor`` (its
``core.sshCommand``, its aliases) as the person. vault-mem cannot stop git; it names such a
configuration on every command, in doctor and in init, as it names a ``core.hooksPath`` in the
vault, with the fix. Before: nothing was said anywhere.

Real vaults, a real bare remote, a peer's plain git clone, real git.
"""

from __future__ import annotations

import os

import pytest
from conftest import cli, git, person_and_peer, push_as_peer

#: what every command says of a config file git reads from the vault
SAID = "in the vault: a peer's commit that changes it sets what git runs as you"


def _fsmonitor(peer, marker) -> None:
    """The peer commits a ``.gitconfig`` whose ``core.fsmonitor`` runs a script that leaves ``marker``."""
    script = peer / "tools" / "watch.sh"
    script.parent.mkdir(exist_ok=True)
    script.write_text(f"#!/bin/sh\necho ran >> '{marker}'\n")
    script.chmod(0o755)
    (peer / ".gitconfig").write_text("[core]\n\tfsmonitor = tools/watch.sh\n")
    push_as_peer(peer, "editor settings")


def test_an_include_of_the_vaults_gitconfig_is_named_by_every_command_doctor_and_init(tmp_path):
    """The attack as it ran: the person's ``.git/config`` includes ``../.gitconfig`` (relative to
    the including file: the work tree's top), before any such file exists; the peer pushes one
    whose ``core.fsmonitor`` runs a script. The person's plain ``git pull`` runs it (git, not
    vault-mem). Every vault-mem command named the include beforehand, with the fix."""
    mine, peer = person_and_peer(tmp_path)
    git(mine, "config", "include.path", "../.gitconfig")
    for args in (("list",), ("doctor",), ("init", str(mine))):
        done = cli("--vault", str(mine), *args)
        said = done.stdout + done.stderr
        assert SAID in said, (args, said)
        assert f"remove the include of {mine.resolve() / '.gitconfig'} from {mine.resolve() / '.git' / 'config'}" \
            in said, said
        assert "vault-mem never makes one" in said
    doctor = cli("--vault", str(mine), "doctor")
    assert (doctor.stdout + doctor.stderr).count(SAID) == 1, doctor  # a warning of doctor's, not also a notice
    marker = tmp_path / "ran"
    _fsmonitor(peer, marker)
    git(mine, "pull", "-q", "--no-rebase", "origin", "main")
    git(mine, "status")
    assert marker.exists()  # what the notice warns of: git ran the peer's setting, vault-mem could not stop it
    git(mine, "config", "--unset", "include.path")
    assert SAID not in cli("--vault", str(mine), "list").stderr


def test_doctor_looks_for_a_config_file_in_the_vault_once(tmp_path, monkeypatch):
    """The vault's opening looks for one (its notice) and doctor looked again for its warning,
    the same answer: each a ``git config --list --show-origin`` and a read of every include."""
    from vault_mem.store import worktree

    mine, _peer = person_and_peer(tmp_path)
    git(mine, "config", "include.path", "../.gitconfig")
    looked = []
    real = worktree.config_files_in_vault
    monkeypatch.setattr(worktree, "config_files_in_vault", lambda *a: looked.append(a) or real(*a))
    doctor = cli("--vault", str(mine), "doctor")
    assert (doctor.stdout + doctor.stderr).count(SAID) == 1, doctor
    assert len(looked) == 1


@pytest.mark.parametrize("key", ["include.path", "includeIf.gitdir:{git_dir}/.path"])
@pytest.mark.parametrize("where", ["relative", "absolute", "through a link outside"])
def test_includes_of_a_vault_file_are_named_whatever_their_form(tmp_path, key, where):
    mine, _ = person_and_peer(tmp_path)
    target = mine.resolve() / "settings" / "team.cfg"
    if where == "relative":
        value = "../settings/team.cfg"
    elif where == "absolute":
        value = str(target)
    else:
        link = tmp_path / "looks-outside.cfg"
        link.symlink_to(target)
        value = str(link)
    git(mine, "config", key.format(git_dir=(mine / ".git").resolve()), value)
    listed = cli("--vault", str(mine), "list")
    assert SAID in listed.stderr and str(target) in listed.stderr, listed.stderr


def test_a_config_file_git_reads_itself_from_the_vault_is_named(tmp_path):
    """``GIT_CONFIG_GLOBAL`` naming a file of the work tree: no include, the file git reads."""
    mine, _ = person_and_peer(tmp_path)
    own = mine / "my.gitconfig"
    own.write_text(f"[user]\n\tname = Me\n\temail = {git(mine, 'config', 'user.email').strip()}\n")
    listed = cli("--vault", str(mine), "list", env={**os.environ, "GIT_CONFIG_GLOBAL": str(own)})
    assert SAID in listed.stderr and str(own.resolve()) in listed.stderr, listed.stderr


def test_includes_outside_the_work_tree_or_in_the_git_folder_are_not_named(tmp_path):
    mine, _ = person_and_peer(tmp_path)
    outside = tmp_path / "elsewhere.cfg"
    outside.write_text("[core]\n\tquotePath = false\n")
    (mine / ".git" / "extra.cfg").write_text("[core]\n\tquotePath = false\n")
    git(mine, "config", "--add", "include.path", str(outside))
    git(mine, "config", "--add", "include.path", "extra.cfg")  # relative to .git/config: in the git folder
    listed = cli("--vault", str(mine), "list")
    assert listed.returncode == 0 and SAID not in listed.stderr, listed.stderr
