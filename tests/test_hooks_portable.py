"""Git hooks that find their vault from the repository they run in: a vault moved (``mv``),
copied (``cp -r``) or cloned keeps hooks that check that very vault, and ``vault-mem hooks
install`` (also run by ``init`` on an existing vault or a clone) adds or repairs them. Every
test commits through the real hooks with real git."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import app_repository, cli, git
from fakes import write_memory

from vault_mem import Vault
from vault_mem.store.attributes import MERGE_DRIVER
from vault_mem.store.hooks import HOOK_NAMES

pytestmark = pytest.mark.slow


def commit(root: Path, *paths: str, message: str = "hand edit") -> subprocess.CompletedProcess:
    git(root, "add", "--", *paths)
    return subprocess.run(["git", "commit", "-m", message], cwd=root, capture_output=True, text=True, check=False)


def make_vault(path: Path) -> Path:
    Vault.init(path).close()  # init installs the hooks
    return path


def check_hooks_guard(root: Path, repo: Path | None = None, prefix: str = "") -> None:
    """A good memory commits with INDEX.md regenerated in it; a broken one is refused."""
    repo = repo or root
    key = f"fact-{root.name}"
    write_memory(root, key, f"A fact written in {root.name}")
    proc = commit(repo, f"{prefix}facts/{key}.md")
    assert proc.returncode == 0, proc.stderr
    assert key in git(repo, "show", f"HEAD:{prefix}INDEX.md")
    (root / "facts" / "broken.md").write_text("no frontmatter\n")
    proc = commit(repo, f"{prefix}facts/broken.md")
    assert proc.returncode == 1 and "commit refused" in proc.stderr and f"{prefix}facts/broken.md" in proc.stderr
    git(repo, "reset", "-q", "--", f"{prefix}facts/broken.md")
    (root / "facts" / "broken.md").unlink()


def test_a_moved_vault_keeps_working_hooks(tmp_path):
    """After `mv`, every hand commit was refused (the hook named the old path)."""
    old = make_vault(tmp_path / "old")
    new = tmp_path / "new"
    shutil.move(old, new)
    check_hooks_guard(new)


def test_a_copied_vault_checks_the_copy(tmp_path):
    """After `cp -r`, the copy's hooks checked the original (so the copy's broken file got in)."""
    original = make_vault(tmp_path / "original")
    copy = tmp_path / "copy"
    shutil.copytree(original, copy, symlinks=True)
    check_hooks_guard(copy)
    assert "fact-copy" not in git(original, "log", "--format=%s")  # nothing happened to the original
    check_hooks_guard(original)


def test_a_clone_gets_its_hooks_from_init(tmp_path):
    """A clone has no hooks (git does not clone them); `vault-mem init` on it installs them and
    the INDEX.md merge driver (it once said "nothing changed")."""
    origin = make_vault(tmp_path / "origin")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    hooks = clone / ".git" / "hooks"
    assert not (hooks / "pre-commit").exists()
    r = cli("init", clone)
    assert r.returncode == 0, r.stderr
    assert "already a vault" in r.stdout and "pre-commit: installed" in r.stdout
    assert all((hooks / name).is_file() for name in HOOK_NAMES)
    assert git(clone, "config", "--get", "merge.vault-mem-index.driver").strip() == MERGE_DRIVER
    assert "merge=vault-mem-index" in (clone / ".git" / "info" / "attributes").read_text()
    check_hooks_guard(clone)
    r = cli("init", clone)  # again: nothing to do, and it says so
    assert r.returncode == 0 and "nothing changed" in r.stdout


def test_a_vault_folder_of_a_moved_project_repository(tmp_path):
    project = app_repository(tmp_path / "project")
    make_vault(project / "memory")
    moved = tmp_path / "moved-project"
    shutil.move(project, moved)
    check_hooks_guard(moved / "memory", moved, "memory/")
    (moved / "app.py").write_text("print('hello')\n")
    assert commit(moved, "app.py").returncode == 0


def test_hooks_install_repairs_an_old_absolute_path_hook_and_reports(tmp_path):
    root = make_vault(tmp_path / "v")
    hook = root / ".git" / "hooks" / "pre-commit"
    # what vault-mem 0.1 installed: the vault's absolute path baked in (here a path that is gone)
    hook.write_text("#!/bin/sh\n# vault-mem hook: pre-commit (installed by `vault-mem init`)\n"
                    "PYTHON=/nowhere/python\nVAULT=/nowhere/vault\nexec \"$PYTHON\" -m vault_mem --vault "
                    "\"$VAULT\" hook pre-commit \"$@\"\n")
    r = cli("--vault", root, "hooks", "install")
    assert r.returncode == 0, r.stderr
    assert f"pre-commit: updated {hook}" in r.stdout
    assert all(f"{name}: already installed" in r.stdout for name in HOOK_NAMES if name != "pre-commit")
    check_hooks_guard(root)
    r = cli("hooks", "install", cwd=root, env={"VAULT_MEM_VAULT": ""})
    assert r.returncode == 0 and r.stdout.count("already installed") == len(HOOK_NAMES), r.stdout


def test_without_vault_mem_a_project_commit_outside_the_vault_still_goes_through(tmp_path, monkeypatch):
    """The pre-commit gate refuses only commits that stage something inside the vault."""
    import sys

    project = app_repository(tmp_path / "project")
    with monkeypatch.context() as m:
        m.setattr(sys, "executable", str(tmp_path / "gone" / "python3"))
        make_vault(project / "memory")
    env_path = ":".join(dict.fromkeys([str(Path(shutil.which("git")).parent), "/usr/bin", "/bin"]))
    (project / "app.py").write_text("print('hello')\n")
    git(project, "add", "app.py")
    proc = subprocess.run(["git", "commit", "-m", "app"], cwd=project, capture_output=True, text=True,
                          check=False, env={**os.environ, "PATH": env_path})
    assert proc.returncode == 0, proc.stderr
    write_memory(project / "memory", "lint-rule", "The project lints with ruff")
    git(project, "add", "memory/facts/lint-rule.md")
    proc = subprocess.run(["git", "commit", "-m", "memory"], cwd=project, capture_output=True, text=True,
                          check=False, env={**os.environ, "PATH": env_path})
    assert proc.returncode == 1 and "vault-mem hooks install" in proc.stderr
