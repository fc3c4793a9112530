"""What a git hook's Python loads and runs for a person's own git command: only what that hook
needs (issues 28/29; bench/bench_git_hooks.py has the figures). Checked in the process's
``sys.modules``, the parsed arguments and GIT_TRACE's list of git processes, never by timing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git

from vault_mem.adapters import cli
from vault_mem.adapters.cli_parser import build_parser, command_named

#: argument lines exactly as the installed hooks write them (hooks/git/hook.in)
HOOK_LINES = (
    ["--vault", "/v", "hook", "pre-commit"],
    ["--vault", "/v/memory", "hook", "post-checkout", "a" * 40, "b" * 40, "1"],
    ["--vault", "/v", "hook", "post-merge", "0"],
    ["--vault", "/v", "hook", "post-rewrite", "amend"],
    ["--vault", "/a folder/v", "hook", "post-rewrite", "rebase"],
)


@pytest.mark.parametrize("argv", HOOK_LINES)
def test_a_git_hooks_line_parses_without_argparse_to_what_the_parser_gives(argv):
    """The lean reading of a git hook's line gives the very namespace the parser does."""
    lean = cli.git_hook_args(argv)
    assert lean is not None
    assert vars(lean) == vars(build_parser(command_named(argv)).parse_args(argv))


@pytest.mark.parametrize("argv", [
    ["--vault", "/v", "hook", "pre-commit", "--help"],  # an option: argparse's to answer
    ["--vault", "/v", "hook", "pre-commit", "--"],
    ["--vault", "--json", "hook", "pre-commit"],
    ["--vault", "", "hook", "pre-commit"],
    ["--vault", "/v", "hook", "no-such-hook"],  # argparse's message names the hooks
    ["--vault", "/v", "--json", "hook", "pre-commit"],
    ["--vault=/v", "hook", "pre-commit"],
    ["hook", "pre-commit"],
    ["--vault", "/v", "recall", "pre-commit"],
])
def test_any_other_line_is_read_by_the_parser(argv):
    assert cli.git_hook_args(argv) is None


#: what only other commands (or the Claude Code hooks) use: a git hook never imports them
NOT_FOR_GIT_HOOKS = ("argparse", "vault_mem.adapters.cli_parser", "numpy", "vault_mem.index.search",
                     "vault_mem.store.daemon_socket", "vault_mem.adapters.contexts",
                     "vault_mem.adapters.read_here", "vault_mem.adapters.distill")


def _hook_modules(root: Path, name: str, *extra: str) -> tuple[int, list[str], str]:
    """Run ``vault-mem --vault ROOT hook NAME`` as the installed hook does (main() of the CLI in a
    process of its own, the vault's top as the working folder); the modules of
    :data:`NOT_FOR_GIT_HOOKS` it imported."""
    code = ("import sys\nfrom vault_mem.adapters.cli import main\n"
            f"code = main(['--vault', {str(root)!r}, 'hook', {name!r}, *{list(extra)!r}])\n"
            f"print('LOADED', [m for m in {NOT_FOR_GIT_HOOKS!r} if m in sys.modules])\n"
            "sys.exit(code)\n")
    done = subprocess.run([sys.executable, "-E", "-P", "-c", code], cwd=root, capture_output=True, text=True,
                          env={**os.environ, "VAULT_MEM_DAEMON": "off"}, timeout=120,
                          check=False)
    loaded = [line for line in done.stdout.splitlines() if line.startswith("LOADED ")]
    assert loaded, done.stderr
    return done.returncode, eval(loaded[0].split(" ", 1)[1]), done.stderr  # noqa: S307 - our own print


def test_the_git_hooks_import_nothing_only_other_commands_use(vault):
    """pre-commit with a staged memory, with a staged file that is no memory, post-checkout,
    post-merge and post-rewrite: none imports argparse and the command parser (its line is read
    by :func:`~vault_mem.adapters.cli.git_hook_args`), the search, the daemon's protocol or the
    Claude Code hooks' modules; and each still does its work (the staged memory passes the gate,
    a broken one is refused)."""
    root = vault.root
    (root / "facts" / "build-host.md").write_text("---\ndescription: the build host is ares\n---\nares.\n")
    git(root, "add", "facts/build-host.md")
    code, loaded, err = _hook_modules(root, "pre-commit")
    assert code == 0 and loaded == [], (loaded, err)
    (root / "notes.txt").write_text("not a memory\n")
    git(root, "add", "notes.txt")
    code, loaded, err = _hook_modules(root, "pre-commit")
    assert code == 0 and loaded == [], (loaded, err)
    (root / "facts" / "broken.md").write_text("---\ndescription: [unclosed\n---\nBody.\n")
    git(root, "add", "facts/broken.md")
    code, loaded, err = _hook_modules(root, "pre-commit")
    assert code == 1 and "broken.md" in err and loaded == [], (loaded, err)
    git(root, "rm", "-q", "--cached", "facts/broken.md")
    (root / "facts" / "broken.md").unlink()
    git(root, "commit", "-q", "-m", "hand commit")  # the real hook, through git
    head = git(root, "rev-parse", "HEAD").strip()
    for name, extra in (("post-checkout", (head, head, "1")), ("post-merge", ("0",)), ("post-rewrite", ("amend",))):
        code, loaded, err = _hook_modules(root, name, *extra)
        assert code == 0 and loaded == [], (name, loaded, err)


def test_pre_commit_reads_each_staged_memory_once(vault, tmp_path):
    """The gate's read of the staged memory files is the one the commit's INDEX.md is built from,
    and its listing of the type folders gives both the keys in use and the blobs to read: one
    ``git ls-files`` and one ``git cat-file --batch`` per hand commit of a memory (they were three
    and two). Counted from GIT_TRACE; the commit's INDEX.md still lists the staged version, not
    the one on disk, and a key staged twice is still refused."""
    root = vault.root
    (root / "facts" / "build-host.md").write_text("---\ndescription: the build host is ares\n---\nares.\n")
    git(root, "add", "facts/build-host.md")
    # the work tree moves on after `git add`: the commit holds the staged text
    (root / "facts" / "build-host.md").write_text("---\ndescription: the build host is zeus\n---\nzeus.\n")
    trace = tmp_path / "trace.txt"
    subprocess.run(["git", "commit", "-q", "-m", "hand"], cwd=root, env={**os.environ, "GIT_TRACE": str(trace)},
                   check=True, capture_output=True)
    lines = trace.read_text().splitlines()
    # one listing of the type folders: the keys in use and the staged blobs (was three)
    # (besides the names git ignores in a memory folder that changed in the last seconds: the
    # check of a peer's ignore rule, `--others --ignored`, attack24)
    assert sum("built-in: git ls-files" in line and "--others" not in line for line in lines) == 1, lines
    assert sum("built-in: git cat-file --batch" in line and "--batch-check" not in line for line in lines) == 1, lines
    index = git(root, "show", "HEAD:INDEX.md")
    assert "the build host is ares" in index and "zeus" not in index
    (root / "notes" / "build-host.md").write_text("---\ndescription: a second build host note\n---\nx.\n")
    git(root, "add", "notes/build-host.md")
    proc = subprocess.run(["git", "commit", "-q", "-m", "twice"], cwd=root, capture_output=True, text=True)
    assert proc.returncode == 1 and "its key is also used by facts/build-host.md" in proc.stderr, proc.stderr
