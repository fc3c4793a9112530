"""The vault's derived state is this user's alone, whatever the umask; ``doctor`` says when the
memory itself is readable by other users; the state folder's name is matched as a
case-insensitive file system matches it; and every command names git hooks of an older,
unsafe form (DESIGN §7)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import cli, daemon_ready, git, spawn_daemon, wait_for

from vault_mem.store.history import first_unsafe_entry, unsafe_entry
from vault_mem.store.hooks import HOOK_NAMES, hooks_dir


@contextlib.contextmanager
def umask(value: int):
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


def modes(folder: Path) -> dict[str, int]:
    """``{path relative to folder: permission bits}`` of the folder and everything in it."""
    out = {".": stat.S_IMODE(folder.lstat().st_mode)}
    for path in sorted(folder.rglob("*")):
        out[path.relative_to(folder).as_posix()] = stat.S_IMODE(path.lstat().st_mode)
    return out


def test_state_is_private_whatever_the_umask(tmp_path):
    root = tmp_path / "v"
    with umask(0o022):
        assert cli("init", root).returncode == 0
        r = cli("--vault", root, "remember", "editor", "--description", "Uses Helix", "--body", "since October")
        assert r.returncode == 0, r.stderr
        r = cli("--vault", root, "recall", "which editor")
        assert r.returncode == 0 and "editor" in r.stdout
        assert cli("--vault", root, "doctor").returncode == 0
    found = modes(root / ".vault-mem")
    assert "index.db" in found and "write.lock" in found
    assert found.pop(".") == 0o700
    assert {name: mode for name, mode in found.items() if mode != 0o600} == {}


@pytest.mark.slow
def test_the_daemons_files_are_private_too(tmp_path):
    """The daemon's log (it names memory files), status, socket and lock, the log made before the
    rule included (opened by the daemon, never created)."""
    root = tmp_path / "v"
    with umask(0o022):
        assert cli("init", root).returncode == 0
        (root / ".vault-mem" / "daemon.log").write_text("an older daemon's line\n")
        (root / ".vault-mem" / "daemon.log").chmod(0o644)
        proc = spawn_daemon(root, {**os.environ, "VAULT_MEM_EMBEDDER": "none"}, tmp_path / "daemon.err")
    try:
        wait_for(lambda: daemon_ready(root, proc.pid), timeout=60, what="the daemon to start")
        found = modes(root / ".vault-mem")
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert {"daemon.log", "daemon.json", "daemon.lock"} <= set(found)
    assert found.pop(".") == 0o700
    assert {name: mode for name, mode in found.items() if mode != 0o600} == {}


def test_an_existing_open_state_folder_is_closed_on_open(tmp_path):
    root = tmp_path / "v"
    with umask(0o022):
        assert cli("init", root).returncode == 0
        state = root / ".vault-mem"
        state.chmod(0o755)  # as an older vault-mem left it
        (state / "index.db").chmod(0o644)
        assert cli("--vault", root, "list").returncode == 0
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE((state / "index.db").stat().st_mode) == 0o600


def _open_to_others(folder: Path) -> dict[str, int]:
    """What in ``folder`` (itself included) grants group or other users any access."""
    return {name: mode for name, mode in modes(folder).items()
            if mode & 0o077 and not (folder / name).is_symlink()}


def test_init_makes_the_vault_private_whatever_the_umask(tmp_path):
    """`init` under the usual umask made the vault folder 0755 and its files 0644, and `doctor`
    then warned that other users can read the memory (issue 23 item 7). Now the vault that init
    makes, and a clone it takes on, are this user's alone by the rule doctor checks, and stay so
    as memories and hooks are added."""
    root = tmp_path / "v"
    with umask(0o022):
        assert cli("init", root).returncode == 0
    assert _open_to_others(root) == {}
    with umask(0o022):  # a later write's files follow the umask, behind the closed folder
        assert cli("--vault", root, "remember", "editor", "--description", "Uses Helix").returncode == 0
        assert cli("hooks", "install", root).returncode == 0
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert json.loads(cli("--vault", root, "doctor", "--json").stdout)["warnings"] == []
    # a clone that `init` takes on: git made it under the umask; init closes it and says so
    clone = tmp_path / "clone"
    with umask(0o022):
        git(tmp_path, "clone", "-q", str(root), str(clone))
        assert stat.S_IMODE(clone.stat().st_mode) == 0o755
        r = cli("init", clone)
    assert r.returncode == 0 and f"chmod go-rwx {clone} {clone / '.git'};" in r.stdout, r.stdout
    assert json.loads(cli("init", clone, "--json").stdout)["made_private"] == []  # nothing left to close
    assert stat.S_IMODE(clone.stat().st_mode) == 0o700 and stat.S_IMODE((clone / ".git").stat().st_mode) == 0o700
    # what git made in it stays as git made it, behind the closed folder
    assert stat.S_IMODE((clone / "facts" / "editor.md").stat().st_mode) == 0o644
    assert json.loads(cli("--vault", clone, "doctor", "--json").stdout)["warnings"] == []
    with umask(0o022):
        r = cli("init", clone)
    assert r.returncode == 0 and r.stdout.strip().endswith("nothing changed"), r.stdout
    # a vault folder in a project: the folder is closed, the project's own files are not touched
    project = tmp_path / "project"
    with umask(0o022):
        project.mkdir()
        git(project, "init", "-q")
        (project / "README").write_text("the project\n")
        assert cli("init", project / "memory").returncode == 0
    assert _open_to_others(project / "memory") == {}
    assert stat.S_IMODE((project / "README").stat().st_mode) == 0o644
    assert stat.S_IMODE(project.stat().st_mode) == 0o755


@pytest.mark.parametrize("where", ["site", "project", "home"])
def test_init_in_a_folder_that_holds_files_closes_only_what_it_made(tmp_path, where):
    """`init` in a folder that already held the person's files (a site whose public/ a web
    server reads, the top of a project's repository, a home folder) ran `chmod -R go-rwx` over
    all of it, silently. Now it closes the folder itself (which keeps the memory from other
    users: doctor's rule), the repository's folder when it is the vault's own, its state folder
    and the files it made; never what was there, and it says what it closed, in --json too."""
    root = tmp_path / where
    (root / "public").mkdir(parents=True)
    (root / "public" / "index.html").write_text("hi\n")
    (root / "public" / "index.html").chmod(0o644)
    (root / "public").chmod(0o755)
    if where == "project":
        git(root, "init", "-q")
        (root / ".git" / "description").chmod(0o644)
    before = {name: mode for name, mode in modes(root).items() if name.split("/")[0] != ".git"}
    with umask(0o022):
        r = cli("init", root, "--json")
    assert r.returncode == 0, r.stderr
    closed = json.loads(r.stdout)["made_private"]
    assert str(root) in closed and str(root / ".git") in closed  # .vault-mem is made private
    assert str(root / "vault.toml") in closed and str(root / "INDEX.md") in closed
    assert not [p for p in closed if "public" in p]
    after = modes(root)
    assert after["."] == 0o700 and after[".git"] == 0o700 and after[".vault-mem"] == 0o700
    assert {name: after[name] for name in before if name != "."} == {n: m for n, m in before.items() if n != "."}
    if where == "project":  # a repository that was there: its folder is closed, what is in it is git's
        assert after[".git/description"] == 0o644
    assert json.loads(cli("--vault", root, "doctor", "--json").stdout)["warnings"] == []
    # said in words too, and the same answer from `init` on the vault it now is
    root.chmod(0o755)
    r = cli("init", root)
    assert r.returncode == 0 and "made it private to you" in r.stdout and f"chmod go-rwx {root}" in r.stdout, r.stdout
    assert json.loads(cli("init", root, "--json").stdout)["made_private"] == []
    assert stat.S_IMODE((root / "public" / "index.html").stat().st_mode) == 0o644


def test_doctor_warns_when_other_users_can_read_the_memory(tmp_path):
    root = tmp_path / "v"
    with umask(0o022):
        assert cli("init", root).returncode == 0
        assert cli("--vault", root, "remember", "editor", "--description", "Uses Helix").returncode == 0
    root.chmod(0o755)
    r = cli("--vault", root, "doctor")
    assert r.returncode == 0, r.stdout + r.stderr
    [line] = [x for x in r.stdout.splitlines() if "readable by other users" in x]
    assert line.startswith("warning: ") and f"run `chmod go-rwx '{root}'`" in line
    data = json.loads(cli("--vault", root, "doctor", "--json").stdout)
    assert data["ok"] and any("readable by other users" in w for w in data["warnings"])
    # the advice works: after it, nothing to say
    subprocess.run(["chmod", "go-rwx", str(root)], check=True)
    assert "readable by other users" not in cli("--vault", root, "doctor").stdout
    # a memory written later under the usual umask stays unreachable: the vault folder is closed
    with umask(0o022):
        assert cli("--vault", root, "remember", "shell", "--description", "Uses fish").returncode == 0
    assert json.loads(cli("--vault", root, "doctor", "--json").stdout)["warnings"] == []


def test_doctor_judges_a_vault_folder_in_a_shared_project(tmp_path):
    """A vault in a project's memory/ folder: the repository's objects (outside the vault) hold
    the memory too, so the fix names the git folder as well."""
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    with umask(0o022):
        assert cli("init", project / "memory").returncode == 0
    project.chmod(0o755)
    data = json.loads(cli("--vault", project / "memory", "doctor", "--json").stdout)
    [warning] = [w for w in data["warnings"] if "readable by other users" in w]
    assert f"chmod go-rwx '{project / 'memory'}' '{project / '.git'}'" in warning


@pytest.mark.parametrize("name", [".vault-mem", ".Vault-Mem", ".VAULT-MEM", ".vault-mem.", ".vault-mem ",
                                  ".vault\u200c-mem", "VAULT-~1"])
def test_the_state_folder_name_is_refused_in_any_case(name):
    assert "this machine's own state" in (unsafe_entry(f"{name}/index.db", "100644") or "")
    assert first_unsafe_entry({f"memory/{name}/x": "100644", "memory/facts/a.md": "100644"}, "memory/") == \
        (f"{name}/x", unsafe_entry(f"{name}/x", "100644"))


@pytest.mark.parametrize("name", ["vault-mem", ".vault-memo", "facts", "notes"])
def test_names_near_the_state_folder_are_not(name):
    assert unsafe_entry(f"{name}/a.md", "100644") is None


def test_a_fresh_clone_with_the_state_folder_in_another_case_is_refused(tmp_path):
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    assert cli("init", tmp_path / "a").returncode == 0
    a = tmp_path / "a"
    (a / ".VAULT-MEM").mkdir()
    (a / ".VAULT-MEM" / "index.db").write_text("planted")
    git(a, "add", "-f", ".VAULT-MEM/index.db")
    git(a, "commit", "-q", "--no-verify", "-m", "planted")
    git(a, "remote", "add", "origin", str(bare))
    git(a, "push", "-q", "origin", "main")
    git(tmp_path, "clone", "-q", str(bare), str(tmp_path / "b"))
    r = cli("--vault", tmp_path / "b", "list")
    assert r.returncode == 1 and ".VAULT-MEM/index.db" in r.stderr and "own state" in r.stderr


OLD_HOOKS = {
    "0.1": '#!/bin/sh\n# vault-mem hook: pre-commit (installed by `vault-mem init`)\nPYTHON=/usr/bin/python3\n'
           'VAULT=/somewhere\nexec "$PYTHON" -m vault_mem.cli --vault "$VAULT" hook pre-commit "$@"\n',
    "0.2": '#!/bin/sh\n# vault-mem hook: pre-commit (installed by `vault-mem hooks install`, which also repairs it)\n'
           'PYTHON=/usr/bin/python3\nVAULT_PREFIX=\nTOP=$(git rev-parse --show-toplevel)\n'
           'exec "$PYTHON" -m vault_mem --vault "$TOP" hook pre-commit "$@"\n',
}


@pytest.mark.parametrize("form", sorted(OLD_HOOKS))
def test_hooks_of_an_older_unsafe_form_are_named_by_every_command_and_rewritten(vault, form):
    root = vault.root
    hook = hooks_dir(vault) / "pre-commit"
    hook.write_text(OLD_HOOKS[form])
    r = cli("--vault", root, "list")
    assert r.returncode == 0
    [line] = [x for x in r.stderr.splitlines() if "older vault-mem" in x]
    assert f"git hooks pre-commit in {hook.parent}" in line and "`vault-mem hooks install`" in line
    data = json.loads(cli("--vault", root, "doctor", "--json").stdout)
    assert any("older vault-mem" in w for w in data["warnings"])
    r = cli("--vault", root, "doctor")
    assert (r.stdout + r.stderr).count("older vault-mem") == 1  # said once, as doctor's warning
    r = cli("--vault", root, "hooks", "install")
    assert r.returncode == 0 and f"pre-commit: updated {hook}" in r.stdout
    assert [n for n in HOOK_NAMES if "-m vault_mem" in (hooks_dir(vault) / n).read_text()] == []
    r = cli("--vault", root, "list")
    assert "older vault-mem" not in r.stderr
    warnings = json.loads(cli("--vault", root, "doctor", "--json").stdout)["warnings"]
    assert [w for w in warnings if "older vault-mem" in w] == []


def test_a_clone_without_the_git_hooks_is_told_so_by_any_command(tmp_path):
    """git does not clone hooks: a fresh clone's hand commits skip the secret gate, and every
    command says so in one line until `vault-mem init CLONE` (issue 28), the command the docs give
    for a clone: the line names it with the clone's path, and it does what the line says."""
    from conftest import cli, git

    origin = tmp_path / "origin"
    assert cli("init", str(origin)).returncode == 0
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    r = cli("--vault", str(clone), "list")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("no vault-mem git hooks") == 1, r.stderr
    fix = re.search(r"install them with `([^`]+)`", r.stderr)
    assert fix and shlex.split(fix.group(1)) == ["vault-mem", "init", str(clone.resolve())], r.stderr
    assert "no vault-mem git hooks" in cli("--vault", str(clone), "doctor").stdout
    assert cli(*shlex.split(fix.group(1))[1:], cwd=tmp_path).returncode == 0  # the fix it names, as named
    assert "no vault-mem git hooks" not in cli("--vault", str(clone), "list").stderr
    assert stat.S_IMODE(clone.stat().st_mode) & 0o077 == 0  # and the clone is private, as init makes it
