"""A project vault (``memory/`` in a project's repository) whose repository runs its git hooks
from a folder the project owns (``core.hooksPath``: husky's ``.husky/_``, a ``.githooks/``).

vault-mem writes nothing there: its hooks go to the git folder and the person adds one line per
hook to the project's hook files, which init, ``hooks install`` and ``doctor`` print. These run
real git, whose real hook runners (a husky 9 layout, a plain folder) run the pasted lines.
"""

from __future__ import annotations

import os
import random
import string
import subprocess
import sys
from pathlib import Path

from conftest import app_repository, cli, git
from fakes import write_memory

from vault_mem.store import provenance
from vault_mem.store.hooks import CHAINED_SUFFIX, HOOK_NAMES, MARKER, project_line, render

#: husky 9's runner, as `husky` writes it to .husky/_/h (each .husky/_/NAME sources it)
HUSKY_H = """#!/usr/bin/env sh
[ "$HUSKY" = "2" ] && set -x
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n

[ ! -f "$s" ] && exit 0

i="${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"
[ -f "$i" ] && . "$i"

[ "${HUSKY-}" = "0" ] && exit 0

export PATH="node_modules/.bin:$PATH"
sh -e "$s" "$@"
c=$?

[ $c != 0 ] && echo "husky - $n script failed (code $c)"
[ $c = 127 ] && echo "husky - command not found in PATH=$PATH"
exit $c
"""
#: the project's own pre-commit: it leaves a trace in the git folder each time it runs
PROJECT_PRE_COMMIT = '#!/usr/bin/env sh\necho ran >> "$(git rev-parse --git-dir)/project-pre-commit-ran"\n'


def fake_token() -> str:
    rng = random.Random(7)  # built at run time: no literal for secret scanners to flag
    return "gh" + "p_" + "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(36))


def project(tmp_path: Path) -> Path:
    return app_repository(tmp_path / "project")


def husky(root: Path) -> Path:
    """husky 9 as `npx husky init` leaves it: .husky/pre-commit tracked, .husky/_ generated and
    ignored, core.hooksPath = .husky/_."""
    runners = root / ".husky" / "_"
    runners.mkdir(parents=True)
    (runners / "h").write_text(HUSKY_H)
    (runners / ".gitignore").write_text("*\n")
    for name in (*HOOK_NAMES, "pre-push", "commit-msg"):
        (runners / name).write_text('#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n')
        (runners / name).chmod(0o755)
    (root / ".husky" / "pre-commit").write_text(PROJECT_PRE_COMMIT)
    git(root, "add", ".husky/pre-commit")
    git(root, "commit", "-qm", "husky", "--no-verify")
    git(root, "config", "core.hooksPath", ".husky/_")
    return root / ".husky"


def githooks(root: Path) -> Path:
    """A .githooks/ folder of the work tree, not tracked, with a pre-commit of the person's."""
    folder = root / ".githooks"
    folder.mkdir()
    (folder / "pre-commit").write_text(PROJECT_PRE_COMMIT)
    (folder / "pre-commit").chmod(0o755)
    git(root, "config", "core.hooksPath", ".githooks")
    return folder


def work_tree(root: Path) -> dict[str, bytes]:
    """Every file of the work tree outside .git and the vault, by path, with its bytes."""
    files = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if rel.parts[0] in (".git", "memory") or path.is_dir():
            continue
        files[rel.as_posix()] = path.read_bytes()
    return files


def paste(folder: Path) -> None:
    """What the person does with the printed lines: append them to each hook file (created when missing)."""
    for name in HOOK_NAMES:
        path = folder / name
        text = path.read_text() if path.exists() else "#!/bin/sh\n"
        path.write_text(text + f"# vault-mem: {name}\n{project_line(name)}\n")
        path.chmod(0o755)


def commit(root: Path, *paths: str, message: str) -> tuple[subprocess.CompletedProcess, int]:
    git(root, "add", "--", *paths)
    proc = subprocess.Popen(["git", "commit", "-m", message], cwd=root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), proc.pid


def check_project_folder(tmp_path: Path, make) -> None:
    root = project(tmp_path)
    folder = make(root)
    before = work_tree(root)
    memory = root / "memory"
    made = cli("init", str(memory))
    assert made.returncode == 0, made.stderr
    said = made.stdout + made.stderr
    assert "vault-mem writes nothing there" in said and project_line("pre-commit") in said, said
    assert work_tree(root) == before  # every project file byte for byte, and not one more
    installed = cli("--vault", str(memory), "hooks", "install")
    assert installed.returncode == 0, installed.stderr
    for name in HOOK_NAMES:
        assert f"{folder / name}:\n" in installed.stdout and project_line(name) in installed.stdout
    assert work_tree(root) == before
    assert git(root, "status", "--porcelain").strip() == ("" if folder.name == ".husky" else "?? .githooks/")
    # every command names the case and where the lines are; doctor prints them
    listed = cli("--vault", str(memory), "list")
    assert "the project's own folder (core.hooksPath)" in listed.stderr, listed.stderr
    assert "`vault-mem hooks install` or `vault-mem doctor` prints the lines" in listed.stderr
    doctor = cli("--vault", str(memory), "doctor")
    assert project_line("post-commit") in doctor.stdout + doctor.stderr

    paste(folder)
    if folder.name == ".githooks":  # a hook file git would not run (not executable) does not count
        (folder / "post-merge").chmod(0o644)
        assert "do not run vault-mem's post-merge:" in cli("--vault", str(memory), "list").stderr
        (folder / "post-merge").chmod(0o755)
    assert "hooks" not in cli("--vault", str(memory), "list").stderr
    again = cli("init", str(memory))  # all in place: a repeated init has nothing to say of the hooks
    assert again.returncode == 0 and "nothing changed" in again.stdout and "core.hooksPath" not in again.stderr, again
    doctor = cli("--vault", str(memory), "doctor")
    assert "core.hooksPath" not in doctor.stdout + doctor.stderr
    common = root / ".git"
    # the pre-commit gate: a memory holding a credential is refused (the project's hook still runs)
    (memory / "facts" / "ci-token.md").write_text(f"---\ndescription: CI bot access\n---\ntoken: {fake_token()}\n")
    refused, _ = commit(root, "memory/facts/ci-token.md", message="token")
    assert refused.returncode != 0 and "looks like a" in refused.stderr, refused.stderr
    assert (common / "project-pre-commit-ran").read_text() == "ran\n"
    git(root, "rm", "-q", "--cached", "memory/facts/ci-token.md")
    (memory / "facts" / "ci-token.md").unlink()
    # a person's commit: INDEX.md regenerated by pre-commit, the commit recorded as made here
    write_memory(memory, "lint-rule", "The project lints with ruff")
    done, pid = commit(root, "memory/facts/lint-rule.md", message="a memory by hand")
    assert done.returncode == 0, done.stderr
    assert "lint-rule" in git(root, "show", "HEAD:memory/INDEX.md")
    assert git(root, "rev-parse", "HEAD").strip() in provenance.recorded(common)[1]
    # what pre-commit told agents: the very `git commit` under way, found above the project's runner
    assert (common / "vault-mem-commit").read_text().strip() == str(pid)
    # an amend: post-rewrite, run through its pasted line, records the new commit as well
    git(root, "commit", "-q", "--amend", "-m", "a memory by hand, reworded")
    assert git(root, "rev-parse", "HEAD").strip() in provenance.recorded(common)[1]


def test_a_husky_folder_is_left_as_it_is_and_its_pasted_lines_run_vault_mems_hooks(tmp_path):
    """Before: init and `hooks install` wrote vault-mem's five hooks into husky's folder and moved
    the project's tracked pre-commit aside (a `git commit -a` published them with this machine's
    Python path). Now they stay byte for byte; the hooks go to the git folder and the lines the
    person pastes into .husky/NAME run them: the credential gate, INDEX.md, the record."""
    check_project_folder(tmp_path, husky)


def test_an_untracked_githooks_folder_of_the_work_tree_is_the_projects_too(tmp_path):
    check_project_folder(tmp_path, githooks)


def test_hooks_an_earlier_vault_mem_wrote_into_the_projects_folder_are_taken_out(tmp_path):
    """An install of before left its hooks in .husky/ and the project's pre-commit moved aside:
    every command says so, and `hooks install` puts the project's files back as they were."""
    root = project(tmp_path)
    folder = githooks(root)
    git(root, "add", ".githooks")
    git(root, "commit", "-qm", "hooks", "--no-verify")
    before = work_tree(root)
    memory = root / "memory"
    assert cli("init", str(memory)).returncode == 0
    # as the earlier install left it
    os.replace(folder / "pre-commit", folder / ("pre-commit" + CHAINED_SUFFIX))
    for name in HOOK_NAMES:
        (folder / name).write_text(render(name, "memory/"))
    listed = cli("--vault", str(memory), "list")
    assert "an earlier vault-mem wrote its git hooks" in listed.stderr, listed.stderr
    installed = cli("--vault", str(memory), "hooks", "install")
    assert installed.returncode == 0, installed.stderr
    assert "the project's hook put back" in installed.stdout
    assert work_tree(root) == before
    assert git(root, "status", "--porcelain").strip() == ""
    assert "an earlier vault-mem" not in cli("--vault", str(memory), "list").stderr


def test_a_committed_project_hook_holding_vault_mems_mark_is_named_not_deleted(tmp_path):
    """Last read: vault-mem's mark in a hook file was all `hooks install` needed to delete it from
    the project's folder; a teammate's committed hook holding that text (a copied comment, an
    earlier vault-mem's hook someone published) vanished from each person's work tree at their
    next install, a deletion their next `git commit -a` published. A committed file with nothing
    moved aside beside it is now named and left; an untracked one of ours still goes."""
    root = project(tmp_path)
    folder = githooks(root)
    (folder / "pre-commit").write_text(PROJECT_PRE_COMMIT + f"# {MARKER}\n")
    git(root, "add", ".githooks")
    git(root, "commit", "-qm", "the team's hooks", "--no-verify")
    (folder / "post-commit").write_text(render("post-commit", "memory/"))  # an earlier install's, untracked
    memory = root / "memory"
    assert cli("init", str(memory)).returncode == 0
    installed = cli("--vault", str(memory), "hooks", "install")
    assert installed.returncode == 0, installed.stderr
    assert (folder / "pre-commit").read_text() == PROJECT_PRE_COMMIT + f"# {MARKER}\n"
    assert "is the project's committed file and holds vault-mem's mark; left as it is" in installed.stdout
    assert not (folder / "post-commit").exists()
    assert git(root, "status", "--porcelain", "--", ".githooks").strip() == ""


def test_a_hooks_folder_outside_the_work_tree_is_left_as_it_is(tmp_path):
    """A hooks folder outside the repository (core.hooksPath naming the person's folder) runs for
    every repository of theirs: vault-mem writes nothing there (hooks54 wrote its hooks there, a
    hook already there moved aside; review56: a second vault's init rewrote them for its own
    folder, test_a_global_hooks_folder_keeps_each_repositorys_gate). Its hooks go to the git
    folder, and the person's hook keeps running, with the pasted lines."""
    root = project(tmp_path)
    outside = tmp_path / "global-hooks"
    outside.mkdir()
    (outside / "pre-commit").write_text(PROJECT_PRE_COMMIT)
    (outside / "pre-commit").chmod(0o755)
    git(root, "config", "core.hooksPath", str(outside))
    made = cli("init", str(root / "memory"))
    assert made.returncode == 0, made.stderr
    assert "a folder your other repositories run too" in made.stdout + made.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["pre-commit"]
    assert (outside / "pre-commit").read_text() == PROJECT_PRE_COMMIT
    assert all(MARKER in (root / ".git" / "vault-mem" / "hooks" / name).read_text() for name in HOOK_NAMES)
    assert "pre-commit" in cli("--vault", str(root / "memory"), "list").stderr
    paste(outside)
    assert "hooks" not in cli("--vault", str(root / "memory"), "list").stderr
    write_memory(root / "memory", "lint-rule", "The project lints with ruff")
    done, _ = commit(root, "memory/facts/lint-rule.md", message="a memory by hand")
    assert done.returncode == 0, done.stderr
    assert (root / ".git" / "project-pre-commit-ran").read_text() == "ran\n"
    assert "lint-rule" in git(root, "show", "HEAD:memory/INDEX.md")


def pasted_githooks(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project with a .githooks/ folder, its vault in memory/ and vault-mem's lines pasted
    into every hook file: (the project, .githooks/, memory/)."""
    root = project(tmp_path)
    folder = githooks(root)
    memory = root / "memory"
    assert cli("init", str(memory)).returncode == 0
    paste(folder)
    return root, folder, memory


def test_a_line_pasted_below_the_end_of_a_hook_counts_as_missing(tmp_path):
    """review56: a line pasted below a hook's ``exit 0`` (or ``exec npx lint-staged``) never runs,
    yet counted as there: commands stopped naming the hook and a credential went into a commit
    by hand with nothing said. It counts only above such a line (``exec < /dev/tty`` only
    redirects: a line after it runs)."""
    root, folder, memory = pasted_githooks(tmp_path)
    body = PROJECT_PRE_COMMIT + "exit 0\n"
    (folder / "pre-commit").write_text(body + f"# vault-mem: pre-commit\n{project_line('pre-commit')}\n")
    said = cli("--vault", str(memory), "list").stderr
    assert "do not run vault-mem's pre-commit, so a hand commit skips the check" in said, said
    (memory / "facts" / "ci-token.md").write_text(f"---\ndescription: CI bot access\n---\ntoken: {fake_token()}\n")
    passed, _ = commit(root, "memory/facts/ci-token.md", message="token")
    assert passed.returncode == 0  # what the warning is about: git never reached the line
    git(root, "reset", "-q", "--hard", "HEAD~1")
    for head in (PROJECT_PRE_COMMIT + "exec < /dev/tty\n", PROJECT_PRE_COMMIT + "if false; then\n    exit 1\nfi\n"):
        (folder / "pre-commit").write_text(head + f"{project_line('pre-commit')}\n")
        assert "hooks" not in cli("--vault", str(memory), "list").stderr
    (memory / "facts" / "ci-token.md").write_text(f"---\ndescription: CI bot access\n---\ntoken: {fake_token()}\n")
    refused, _ = commit(root, "memory/facts/ci-token.md", message="token")
    assert refused.returncode != 0 and "looks like a" in refused.stderr, refused.stderr


def test_the_documented_line_is_the_one_vault_mem_prints():
    page = (Path(__file__).resolve().parent.parent / "docs" / "hand-edits-and-daemon.md").read_text()
    assert f"```\n{project_line('pre-commit')}\n```" in page


def test_a_global_hooks_folder_keeps_each_repositorys_gate(tmp_path):
    """review56: a hooks folder outside the work tree (``core.hooksPath`` in the person's global
    configuration) serves every repository of the person. vault-mem wrote its hooks there with
    the first vault's folder baked in; a second project's init rewrote them for its own folder,
    and the first project's pre-commit then found "no vault" and let a credential in, while every
    command there said nothing was missing (the hooks held vault-mem's mark). Such a folder is
    treated as a project's: each repository's hooks go to its own git folder, and the one line
    per hook pasted into the shared folder runs them where they are, and nothing elsewhere."""
    shared = tmp_path / "global-hooks"
    shared.mkdir()
    git(tmp_path, "config", "--global", "core.hooksPath", str(shared))
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
    first, second, other = (project(tmp_path / name) for name in ("a", "b", "c"))
    for vault in (first / "memory", second / "notes"):
        made = cli("init", str(vault))
        assert made.returncode == 0, made.stderr
        assert project_line("pre-commit") in made.stdout + made.stderr
    assert sorted(p.name for p in shared.iterdir()) == []  # nothing written into the person's folder
    paste(shared)
    for root, folder in ((first, "memory"), (second, "notes")):
        assert "hooks" not in cli("--vault", str(root / folder), "list").stderr
        (root / folder / "facts" / "ci-token.md").write_text(
            f"---\ndescription: CI bot access\n---\ntoken: {fake_token()}\n")
        refused, _ = commit(root, f"{folder}/facts/ci-token.md", message="token")
        assert refused.returncode != 0 and "looks like a" in refused.stderr, (root, refused.stderr)
    # a repository with no vault: its commits go through, and nothing is said
    (other / "app.py").write_text("print('bye')\n")
    done, _ = commit(other, "app.py", message="bye")
    assert done.returncode == 0 and "vault-mem" not in done.stderr, done.stderr


def test_the_pasted_post_rewrite_line_leaves_the_rewritten_list_to_the_projects_hook(tmp_path):
    """review56: git gives post-rewrite the rewritten commits on its input, once. The pasted line
    ran vault-mem's hook on it, which read it all: a project's own post-rewrite below the line
    read nothing (and above it, vault-mem's record read nothing, so the person's amended commit
    was a peer's). The line keeps a copy and gives the rest of the script the same input."""
    root, folder, memory = pasted_githooks(tmp_path)
    hook = folder / "post-rewrite"
    hook.write_text(hook.read_text() + 'cat > "$(git rev-parse --git-dir)/project-rewritten"\n')
    write_memory(memory, "lint-rule", "The project lints with ruff")
    done, _ = commit(root, "memory/facts/lint-rule.md", message="a memory by hand")
    assert done.returncode == 0, done.stderr
    old = git(root, "rev-parse", "HEAD").strip()
    git(root, "commit", "-q", "--amend", "-m", "a memory by hand, reworded")
    new = git(root, "rev-parse", "HEAD").strip()
    assert (root / ".git" / "project-rewritten").read_text().split() == [old, new]
    assert new in provenance.recorded(root / ".git")[1]


def test_a_linked_hook_file_in_the_projects_folder_is_not_read(tmp_path):
    """Every command reads the project's hook files (are vault-mem's lines in them?), and read
    them through links: a teammate's committed ``.githooks/post-rewrite`` linking to
    ``/dev/zero`` or ``/dev/stdin`` made every vault-mem command in the project read forever or
    wait for input (here: a FIFO nobody writes). The hook files are read as vault-mem reads its
    own (:func:`vault_mem.store.files.read_own`: no link, no FIFO or device, bounded): a link
    counts as a hook without vault-mem's line, and the command answers."""
    root, folder, memory = pasted_githooks(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (folder / "post-rewrite").unlink()
    (folder / "post-rewrite").symlink_to(fifo)
    env = {**os.environ, "VAULT_MEM_EMBEDDER": "none"}
    # the timeout only ends the hang of the old reader; the command itself takes a second
    done = subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(memory), "list"], cwd=root, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "do not run vault-mem's post-rewrite" in done.stderr, done.stderr


def test_a_hook_file_linked_to_a_script_of_the_project_counts_with_its_lines(tmp_path):
    """A common set-up: the hook files are links to scripts the project keeps elsewhere
    (``.githooks/pre-commit -> ../scripts/pre-commit``), and the person pasted vault-mem's lines
    into those scripts. git follows the links and runs vault-mem's hooks; before, vault-mem read
    no link at all (the guard against a link to ``/dev/zero`` or a FIFO, above), so every command
    in the project said the hooks "do not run vault-mem's" hooks: untrue, and the person was told
    to change hooks that work. A link to a regular file is read (bounded, never blocking); only a
    link to anything else counts as a hook without vault-mem's line."""
    root, folder, memory = pasted_githooks(tmp_path)
    scripts = root / "scripts"
    scripts.mkdir()
    for name in HOOK_NAMES:
        os.replace(folder / name, scripts / name)
        (folder / name).symlink_to(Path("..") / "scripts" / name)
    said = cli("--vault", str(memory), "list").stderr
    assert "do not run vault-mem" not in said, said
    # a link to a folder or a FIFO still counts as a hook without the line, and the command answers
    os.mkfifo(tmp_path / "fifo")
    (folder / "post-merge").unlink()
    (folder / "post-merge").symlink_to(tmp_path / "fifo")
    (folder / "post-rewrite").unlink()
    (folder / "post-rewrite").symlink_to(scripts)
    said = cli("--vault", str(memory), "list").stderr
    assert "do not run vault-mem's post-merge, post-rewrite" in said, said
