"""``vault-mem doctor``'s check lives in ops/doctor.py; the command only prints what it found.

Real vaults: a healthy one, then one with an unusable file, a stale INDEX.md and a git hook
removed, checked through :func:`diagnose` and through the real command line, which must report
exactly what the check computed.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import cli, git

from vault_mem.ops.doctor import Diagnosis, diagnose
from vault_mem.store.hooks import hooks_dir


def test_a_healthy_vault_is_ok(vault):
    vault.remember("alpha", "Alpha is the first fact", "one\n")
    found = diagnose(vault)
    assert isinstance(found, Diagnosis) and found.ok and found.to_dict()["ok"] is True
    assert (found.differences, found.problems, found.quarantined, found.blockers, found.history,
            found.ignored_folders) == ([], [], [], [], None, [])
    assert found.index_md_current


def test_a_relative_xdg_config_home_is_said_in_one_line_by_doctor_and_once_per_process(vault, monkeypatch, tmp_path):
    """A relative ``$XDG_CONFIG_HOME`` is ignored (config.user_config_dir, as the XDG spec says),
    and nothing said so: the approvals and the personal vault of ``~/.config/vault-mem`` stood
    for those of the folder named. A vault's opening says it once per process; doctor always."""
    vault.remember("alpha", "Alpha is the first fact", "one\n")
    monkeypatch.chdir(tmp_path)
    said = "XDG_CONFIG_HOME is a relative path"
    monkeypatch.setenv("XDG_CONFIG_HOME", "cfg-listed")
    listed = cli("--vault", str(vault.root), "list")
    assert listed.stderr.count(said) == 1 and "'cfg-listed'" in listed.stderr, listed
    assert str(tmp_path / "home" / ".config" / "vault-mem") in listed.stderr or ".config/vault-mem" in listed.stderr
    assert said not in cli("--vault", str(vault.root), "list").stderr  # once per process
    doctor = cli("--vault", str(vault.root), "doctor")
    assert (doctor.stdout + doctor.stderr).count(said) == 1, doctor  # always, as a warning, not also a notice
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    doctor = cli("--vault", str(vault.root), "doctor")
    assert said not in doctor.stdout + doctor.stderr


def test_what_is_wrong_is_found_and_the_command_prints_it(vault):
    vault.remember("alpha", "Alpha is the first fact", "one\n")
    (vault.root / "facts/broken.md").write_text("---\ndescription: [unclosed\n---\nbody\n")
    vault.reconcile()  # the broken file is seen; INDEX.md is then made stale by hand
    (vault.root / "INDEX.md").write_text("stale\n")
    (hooks_dir(vault) / "pre-commit").unlink()
    found = diagnose(vault)
    assert not found.ok
    assert [p.path for p in found.problems] == ["facts/broken.md"]
    assert found.index_md_current is False
    assert any("pre-commit" in w for w in found.warnings), found.warnings
    data = found.to_dict()
    assert list(data) == ["ok", "history", "differences", "blockers", "ignored_folders", "unapproved_files", "problems",
                          "quarantined", "index_md_current", "daemon_pid", "warnings"]
    r = cli("--vault", str(vault.root), "doctor", "--json")
    assert r.returncode == 1
    shown = json.loads(r.stdout)
    assert {k: shown[k] for k in data} == data
    text = cli("--vault", str(vault.root), "doctor").stdout
    assert "unusable file 'facts/broken.md'" in text and "INDEX.md does not match the files" in text


@pytest.mark.parametrize("settings, made_by, said", [
    ([("core.splitIndex", "true")], ["--split-index"], "split (core.splitIndex)"),
    ([("feature.manyFiles", "true")], ["--index-version", "4"], "version 4"),
    ([("index.version", "4")], ["--index-version", "4"], "version 4"),
    ([("index.version", "4")], None, "version 4"),  # set for an index git makes anew: said too
    ([("feature.manyFiles", "true"), ("core.splitIndex", "true")], ["--split-index"], "split (core.splitIndex) and version 4"),
])
def test_an_index_other_readers_cannot_read_is_warned_about_and_its_fix_works(vault, monkeypatch, settings, made_by,
                                                                              said):
    """A split or version 4 index (git's settings for big repositories, which a person may set
    and vault-mem keeps) is what libgit2, GitPython or isomorphic-git cannot read
    (bench/bench_index_readers.py): doctor says so as a warning (the vault stays healthy), with
    the commands that undo it; run as said, they leave a version 2 index that GitPython reads."""
    import git as gitpython

    vault.remember("alpha", "Alpha is the first fact", "one\n")
    assert not [w for w in diagnose(vault).warnings if "git's index" in w]
    # a person's global settings hold for every vault: the fix must hold against them too
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(vault.root.parent / "global.gitconfig"))
    for name, value in settings:
        git(vault.root, "config", "--global" if name == "feature.manyFiles" else "--local", name, value)
    if made_by:
        git(vault.root, "update-index", *made_by)
    vault.remember("beta", "Beta is written under the setting", "two\n")  # git rewrites the index under it
    found = diagnose(vault)
    notes = [w for w in found.warnings if "git's index" in w]
    assert len(notes) == 1 and said in notes[0] and found.ok, found.warnings
    if made_by:
        with pytest.raises(Exception):  # the reader the warning names refuses this index
            gitpython.Repo(vault.root).index.entries  # noqa: B018
    fix = notes[0].split("`")[1]
    subprocess.run(["sh", "-c", fix], cwd=vault.root, check=True, capture_output=True)
    assert not [w for w in diagnose(vault).warnings if "git's index" in w]
    assert (vault.root / ".git" / "index").read_bytes()[4:8] == (2).to_bytes(4, "big")
    assert {p for p, _ in gitpython.Repo(vault.root).index.entries} >= {"facts/alpha.md", "facts/beta.md"}
    assert git(vault.root, "status", "--porcelain") == ""
