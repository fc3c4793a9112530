"""Nothing in a vault is ever run (DESIGN §7): a peer's Python files that would shadow
vault-mem's modules or Python's own (``vault_mem/``, ``yaml.py``, ``sitecustomize.py``, ...) reach
the victim through a real bare remote, and then every way a person or an agent starts vault-mem
in that vault runs: sync, ``git commit``/``checkout``/``merge``/``rebase``/``pull`` (the git
hooks) and the agent hooks with the vault as the working folder. No planted file may run, and the
pre-commit secret gate must still refuse a staged credential."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git, person_and_peer
from fakes import aws_key, write_memory

pytestmark = pytest.mark.slow

#: Module files a peer plants, each of which would shadow something vault-mem imports (itself,
#: its dependencies, Python's start-up hooks) if the vault's folder were on ``sys.path``.
PLANTED = ("vault_mem/__main__.py", "vault_mem/__init__.py", "yaml.py", "git/__init__.py",
           "sitecustomize.py", "usercustomize.py", "frontmatter.py")


def vault_mem_cmd() -> list[str]:
    """How a person runs vault-mem: the installed console script next to this Python."""
    script = Path(sys.executable).with_name("vault-mem")
    assert script.is_file(), "vault-mem is not installed in this environment (pip install -e .)"
    return [str(script)]


#: The person's environment for their git commands: an empty ``PYTHONPATH`` entry (what
#: ``export PYTHONPATH=$PYTHONPATH:/x`` leaves when it was unset) means the working folder.
GIT_ENV = {"PYTHONPATH": os.pathsep}


def run(cwd: Path, *args: str, input: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    full.update(env or {})
    return subprocess.run(list(args), cwd=cwd, input=input, capture_output=True, text=True, env=full,
                          timeout=180, check=False)


def vm(cwd: Path, *args: str, input: str | None = None) -> subprocess.CompletedProcess:
    return run(cwd, *vault_mem_cmd(), *args, input=input)


def plant(root: Path, markers: Path) -> None:
    """Each planted module, if ever imported, leaves a file named after itself in ``markers``;
    so does an executable ``vault-mem`` at the top (found through an empty PATH entry)."""
    for rel in PLANTED:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        name = rel.replace("/", "_")
        path.write_text(f"import pathlib\npathlib.Path({str(markers)!r}, {name!r}).write_text('ran')\n")
    (root / "vault-mem").write_text(f"#!/bin/sh\ntouch '{markers}/vault-mem'\n")
    (root / "vault-mem").chmod(0o755)


def assert_nothing_ran(markers: Path) -> None:
    assert sorted(p.name for p in markers.iterdir()) == []


def person_commit(root: Path, rel: str, text: str, message: str, env: dict | None = None
                  ) -> subprocess.CompletedProcess:
    (root / rel).write_text(text)
    git(root, "add", "--", rel)
    return run(root, "git", "commit", "-m", message, env=env)


def note(key: str) -> str:
    return f"---\ndescription: a note about {key}\n---\n{key}\n"


def exercise(root: Path, markers: Path, *, path: str | None = None) -> None:
    """A person's git commands (each runs one of the hooks) and the agent hooks, in ``root``;
    ``path``: the PATH the git commands see."""
    env = {**GIT_ENV, **({"PATH": path} if path else {})}

    def person(*args: str) -> None:
        proc = run(root, "git", *args, env=env)
        assert proc.returncode == 0, proc.stderr

    rel = write_memory(root, "editor", "Uses Helix as the main editor")
    git(root, "add", "--", rel)
    person("commit", "-m", "hand edit")  # pre-commit (the format and secret gate)
    assert_nothing_ran(markers)
    person("checkout", "-q", "-b", "side")  # post-checkout
    assert person_commit(root, "notes/side.md", note("side"), "side", env).returncode == 0
    person("checkout", "-q", "main")
    assert person_commit(root, "notes/main.md", note("main"), "main", env).returncode == 0
    person("merge", "--no-ff", "-m", "merge side", "side")  # post-merge
    person("checkout", "-q", "-b", "other", "HEAD~1")
    assert person_commit(root, "notes/other.md", note("other"), "other", env).returncode == 0
    person("rebase", "-q", "main")  # post-rewrite
    person("checkout", "-q", "main")
    person("pull", "-q", "--no-rebase", "origin", "main")  # post-merge
    assert_nothing_ran(markers)
    # the agent hooks, started as Claude Code starts them: the project (the vault) as working folder
    event = {"hook_event_name": "SessionStart", "cwd": str(root)}
    proc = vm(root, "hook", "session-start", input=json.dumps(event))
    assert proc.returncode == 0, proc.stderr
    event = {"hook_event_name": "UserPromptSubmit", "prompt": "which editor do I use", "cwd": str(root)}
    proc = vm(root, "hook", "user-prompt-submit", input=json.dumps(event))
    assert proc.returncode == 0, proc.stderr
    vm(root, "doctor")
    assert_nothing_ran(markers)
    # the pre-commit secret gate is vault-mem's own, still in force
    proc = person_commit(root, "facts/aws.md", f"---\ndescription: the deploy key\n---\nkey {aws_key()}\n",
                         "add a key", env)
    assert proc.returncode != 0 and "facts/aws.md" in proc.stderr, proc.stderr
    assert git(root, "log", "-1", "--format=%s").strip() != "add a key"
    assert_nothing_ran(markers)


@pytest.fixture
def peer_net(tmp_path):
    """A bare remote, the victim's vault (made by `vault-mem init`, hooks installed, pushed) and a
    peer's clone that has pushed a commit planting :data:`PLANTED` at the vault's top."""
    markers = tmp_path / "markers"
    markers.mkdir()
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    victim = tmp_path / "victim"
    proc = vm(tmp_path, "init", str(victim))
    assert proc.returncode == 0, proc.stderr
    git(victim, "remote", "add", "origin", str(bare))
    git(victim, "push", "-q", "-u", "origin", "main")
    peer = tmp_path / "peer"
    git(tmp_path, "clone", "-q", str(bare), str(peer))
    plant(peer, markers)
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "--no-verify", "-m", "helpful scripts")
    git(peer, "push", "-q", "origin", "main")
    return bare, victim, peer, markers


def test_files_a_peer_syncs_in_never_run(peer_net):
    _, victim, peer, markers = peer_net
    proc = vm(victim, "sync")  # the person's own command, in the vault
    assert_nothing_ran(markers)
    if proc.returncode == 0:  # taken in (a later check may refuse such files instead)
        assert (victim / "yaml.py").is_file()
    # one more peer commit for the victim's `git pull`
    person_commit(peer, "notes/later.md", note("later"), "later")
    git(peer, "push", "-q", "origin", "main")
    exercise(victim, markers)


def test_files_in_a_fresh_clone_never_run(peer_net, tmp_path):
    """However sync treats them, a clone of the peer's repository holds the files: the person
    installs the hooks there and works."""
    bare, _, peer, markers = peer_net
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    assert (clone / "sitecustomize.py").is_file()
    proc = vm(clone, "hooks", "install")
    assert_nothing_ran(markers)
    assert proc.returncode == 0, proc.stderr
    person_commit(peer, "notes/later.md", note("later"), "later")
    git(peer, "push", "-q", "origin", "main")
    exercise(clone, markers)


def test_the_hooks_fallback_to_vault_mem_on_path_runs_nothing_either(peer_net, tmp_path, monkeypatch):
    """The hooks' Python is gone (a moved virtual environment): they run ``vault-mem`` from PATH,
    whose own folder, not the working folder, is on ``sys.path``; and never a ``vault-mem`` that
    PATH finds in the working folder (a fresh clone keeps the peer's file executable)."""
    from vault_mem import Vault
    from vault_mem.store.hooks import install

    bare, _, peer, markers = peer_net
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    assert os.access(clone / "vault-mem", os.X_OK)
    with monkeypatch.context() as m:
        m.setattr(sys, "executable", str(tmp_path / "gone" / "bin" / "python3"))
        with Vault(clone) as v:
            install(v)
    person_commit(peer, "notes/later.md", note("later"), "later")
    git(peer, "push", "-q", "origin", "main")
    # an empty PATH entry (the working folder) ahead of the real one, as `PATH=:$PATH` leaves it
    exercise(clone, markers, path=os.pathsep.join(["", str(Path(sys.executable).parent), os.environ["PATH"]]))


#: programs vault-mem starts (git; ps and lsof to see who runs git; the person's editor for
#: `vault-mem edit`, ``vi`` when neither $VISUAL nor $EDITOR names one), and a program git starts
#: itself (ssh for an ssh remote during sync): a peer commits each, executable, at the vault's top.
#: No pager: vault-mem captures every git output, and git pages only to a terminal.
PROGRAMS = ("git", "ssh", "ps", "lsof", "vi")


def good_programs(bin_dir: Path, used: Path) -> None:
    """The person's own ``ssh`` and ``vi`` in ``bin_dir`` (an absolute PATH folder), each leaving
    a file named after itself in ``used`` when it runs: an ``ssh`` that runs git's remote command
    on this machine (so an ``ssh://`` remote needs no server) and a ``vi`` that adds a line to the
    file it is given, as a person's edit."""
    bin_dir.mkdir()
    (bin_dir / "ssh").write_text(
        f"#!/bin/sh\ntouch '{used}/ssh'\n"
        "while [ $# -gt 0 ]; do case \"$1\" in -o|-p|-i|-l) shift 2 ;; -*) shift ;; *) break ;; esac; done\n"
        "shift\nexec sh -c \"$*\"\n")  # past the options, the host; then git's command
    (bin_dir / "vi").write_text(f"#!/bin/sh\ntouch '{used}/vi'\nfor f; do :; done\nprintf 'Edited on the laptop.\\n' >> \"$f\"\n")
    for name in ("ssh", "vi"):
        (bin_dir / name).chmod(0o755)


def test_a_peers_executable_named_like_a_program_never_runs_through_a_relative_path_entry(tmp_path):
    """An empty PATH entry (``PATH=:$PATH``) or ``.`` names the working folder, and vault-mem runs
    git with the vault as its working folder (the agent hooks and the MCP server run there as
    well): a fresh clone's executable ``git`` ran on every command, even one started elsewhere
    with ``--vault``, and GitPython's first ``git version`` ran it from the agent hooks. Programs
    are now found on PATH's absolute folders, and git is given only those. Each planted name is
    started for real here: sync goes to an ``ssh://`` remote (git starts ``ssh``, by name or
    through ``core.sshCommand``) and `vault-mem edit` opens the default editor; the person's own
    ``ssh`` and ``vi`` (on an absolute PATH folder) must be the ones that ran."""
    markers, used = tmp_path / "markers", tmp_path / "used"
    markers.mkdir()
    used.mkdir()
    bin_dir = tmp_path / "bin"
    good_programs(bin_dir, used)
    _victim, peer = person_and_peer(tmp_path)
    bare = tmp_path / "remote.git"
    for name in PROGRAMS:
        real = str(bin_dir / name) if (bin_dir / name).exists() else shutil.which(name) or "/bin/true"
        (peer / name).write_text(f"#!/bin/sh\ntouch '{markers}/{name}'\nexec {real} \"$@\"\n")
        (peer / name).chmod(0o755)
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "--no-verify", "-m", "helpers")
    git(peer, "push", "-q", "origin", "main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    assert os.access(clone / "git", os.X_OK) and os.access(clone / "ssh", os.X_OK)
    git(clone, "remote", "set-url", "origin", f"ssh://vault-host{bare}")  # sync starts ssh

    real_path = os.pathsep.join([str(bin_dir), os.environ["PATH"]])
    for path in (os.pathsep + real_path, "." + os.pathsep + real_path):
        env = {"PATH": path, "VISUAL": "", "EDITOR": ""}
        for cwd, args in ((tmp_path, ("--vault", str(clone), "list")), (clone, ("list",)),
                          (clone, ("remember", "editor", "-d", "Uses Helix")), (clone, ("doctor",)),
                          (clone, ("edit", "editor")), (tmp_path, ("--vault", str(clone), "sync"))):
            proc = run(cwd, *vault_mem_cmd(), *args, env=env)
            assert "Traceback" not in proc.stderr, proc.stderr
            assert_nothing_ran(markers)
            if "sync" in args or "edit" in args:  # the paths that start ssh and the editor
                assert proc.returncode == 0, proc.stderr
        for name, event in (("session-start", {"hook_event_name": "SessionStart"}),
                            ("user-prompt-submit", {"hook_event_name": "UserPromptSubmit", "prompt": "editor"})):
            proc = run(clone, *vault_mem_cmd(), "hook", name, input=json.dumps({**event, "cwd": str(clone)}), env=env)
            assert proc.returncode == 0, proc.stderr
            assert_nothing_ran(markers)
    # the person's own ssh command, named without a folder, as `core.sshCommand` usually is
    git(clone, "config", "core.sshCommand", "ssh -o BatchMode=yes")
    proc = run(tmp_path, *vault_mem_cmd(), "--vault", str(clone), "sync", env={"PATH": os.pathsep + real_path})
    assert proc.returncode == 0, proc.stderr
    assert_nothing_ran(markers)
    assert sorted(p.name for p in used.iterdir()) == ["ssh", "vi"]  # each path was taken, by the person's own
    assert "Edited on the laptop." in git(bare, "show", "main:facts/editor.md")  # edited, committed, pushed over ssh


def test_the_agent_hook_command_connect_writes_runs_nothing_of_the_vault_under_an_empty_pythonpath_entry(tmp_path):
    """An agent CLI runs the hook command `vault-mem connect` wrote with the person's environment,
    in the project (here the vault). With an empty PYTHONPATH entry, Python put the vault ahead of
    its own modules and a fresh clone's `encodings/__init__.py` ran at start-up, before any line
    of vault-mem (the git hooks start Python with -E; the agent hooks did not)."""
    from vault_mem.adapters.connect import connect

    markers = tmp_path / "markers"
    markers.mkdir()
    victim, _peer = person_and_peer(tmp_path)
    bare = tmp_path / "remote.git"
    for rel in ("encodings/__init__.py", "json/__init__.py", "re.py", "sitecustomize.py"):
        (victim / rel).parent.mkdir(parents=True, exist_ok=True)
        # only the built-in posix module: `encodings` runs before `open` exists
        (victim / rel).write_text(f"import posix\nposix.close(posix.open({str(markers / rel.split('/')[0])!r}, "
                                  "posix.O_CREAT | posix.O_WRONLY, 0o644))\n")
    git(victim, "add", "-A")
    git(victim, "commit", "-q", "--no-verify", "-m", "a peer's modules")
    git(victim, "push", "-q", str(bare), "main")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    home = tmp_path / "agent-home"
    connect("claude-code", None, scope="user", home=home, exe=vault_mem_cmd()[0])
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    for event, name in (("SessionStart", "session-start"), ("UserPromptSubmit", "user-prompt-submit")):
        command = next(h["command"] for g in settings["hooks"][event] for h in g["hooks"]
                       if h["command"].endswith(f"hook {name}"))
        payload = {"hook_event_name": event, "cwd": str(clone), "prompt": "which editor"}
        proc = run(clone, "sh", "-c", command, input=json.dumps(payload), env={"PYTHONPATH": os.pathsep})
        assert_nothing_ran(markers)
        assert proc.returncode == 0, proc.stderr
    # the MCP server as configured, started in the vault by an agent that passes its whole
    # environment on (the entry's `env` over it)
    server = json.loads((home / ".claude.json").read_text())["mcpServers"]["vault-mem"]
    proc = run(clone, server["command"], *server["args"], input="",
               env={"PYTHONPATH": os.pathsep, **server.get("env", {})})
    assert_nothing_ran(markers)
