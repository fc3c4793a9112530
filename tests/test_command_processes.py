"""How many git processes an everyday vault-mem command starts: contracts on the product, not
timings (issues 28 and 29: each git start is ~1-3 ms of CPU and an exec, paid by every command
and by the suite thousands of times).

Counted through a ``git`` first on PATH that logs each start and runs the real one (every git
vault-mem starts is found on PATH at its start: ``platform.programs.program``): conftest.py's
``logged_git``, as in tests/test_sync_processes.py. The answers that stopped costing a process are checked against
git's own: an ancestry, a commit's files and the config read in process or from one reading give
what git gives, for loose and packed objects alike. Real repositories, real git.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import cli, git, git_starts

from vault_mem.platform import settle
from vault_mem.store import history
from vault_mem.store.git import GitRepo
from vault_mem.store.worktree import _bool_setting, config_value, config_values

#: a new key remembered in one process: the repository found (one rev-parse), the memory files git
#: ignores where a type folder changed in the last 2 s (one ls-files: the write before, moments
#: ago), what differs from HEAD among the memory files (one status), git's index for the paths
#: written (one update-index)
REMEMBER = 4
#: a recall after agent writes: the repository found, the ls-files above, the config read once
#: (the person's email), the authors brought up to HEAD (one diff, one log: what the writes
#: changed), the peers' check of the index and the work tree (diff-index, ls-files, status)
RECALL_AFTER_WRITES = 8
#: a person's ``git commit`` of a new memory in a new vault: the commit (and git's own
#: ``maintenance run --auto``); pre-commit's shell (one rev-parse: the top folder and the git
#: folder) and its Python (the repository found, the ignored files of a type folder changed
#: moments ago, the staged files read, the new HEAD's tree checked, INDEX.md staged: 9);
#: prepare-commit-msg's marks (one rev-parse); post-commit's shell (one rev-parse: the folders,
#: HEAD and its parents; the reflog's last line). It was 19 (four rev-parses more in the hooks' shell).
PERSON_COMMIT = 15


@pytest.fixture
def logged_git_and_hooks(logged_git, monkeypatch) -> Path:
    """conftest.py's ``logged_git``, its shim also first in git's own folder of programs
    (``GIT_EXEC_PATH``, the rest of it linked), which git puts first on its hooks' PATH: the gits a
    hook starts are logged too (and git's own, such as a commit's ``maintenance run --auto``)."""
    real = shutil.which("git")
    assert real is not None
    shim = logged_git.parent / "shim"
    own = Path(subprocess.run([real, "--exec-path"], capture_output=True, text=True, check=True).stdout.strip())
    for program in own.iterdir():
        if program.name != "git":
            (shim / program.name).symlink_to(program)
    monkeypatch.setenv("GIT_EXEC_PATH", str(shim))
    return logged_git


def command(line: str) -> str:
    """The git command of a logged start, past git's own options (``-c x=y``, ``--literal-pathspecs``)."""
    words = line.split()
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-c", "-C") else 1
    return " ".join(words[i:i + 3])


def remember(root: Path, key: str, text: str) -> None:
    done = cli("remember", key, "--type", "fact", "--description", text, "--body", f"{text}, in full",
               "--vault", str(root))
    assert done.returncode == 0, done.stderr


def test_a_remember_starts_a_few_git_processes(vault, logged_git_and_hooks):
    remember(vault.root, "first-note", "the staging database restarts at noon")
    git_starts(logged_git_and_hooks)
    remember(vault.root, "second-note", "deploys wait for the nightly backup")
    found = git_starts(logged_git_and_hooks)
    assert len(found) <= REMEMBER, "\n".join(found)


def test_a_read_after_agent_writes_asks_git_no_ancestry_and_lists_no_tree(vault, logged_git_and_hooks):
    """The authors kept in the sidecar are brought up to HEAD after agent writes: whether the
    commit they reflect is an ancestor, and the files HEAD holds where the writes changed them,
    are read from the writes' own loose objects (it was a rev-parse, a merge-base and an
    ls-tree of every memory file each time)."""
    remember(vault.root, "first-note", "the staging database restarts at noon")
    assert cli("recall", "staging database", "--vault", str(vault.root)).returncode == 0
    remember(vault.root, "second-note", "deploys wait for the nightly backup")
    remember(vault.root, "third-note", "the cache is flushed on Mondays")
    git_starts(logged_git_and_hooks)
    done = cli("recall", "nightly backup", "--vault", str(vault.root))
    assert done.returncode == 0, done.stderr
    found = git_starts(logged_git_and_hooks)
    assert not [line for line in found if command(line).startswith(("merge-base", "ls-tree", "rev-parse -q --verify"))], found
    assert len(found) <= RECALL_AFTER_WRITES, "\n".join(found)


def test_a_persons_commit_starts_few_git_processes_in_vault_mems_hooks(vault, logged_git_and_hooks):
    root = vault.root
    (root / "facts" / "by-hand.md").write_text("---\ndescription: By hand\n---\nA note.\n")
    git(root, "add", "facts/by-hand.md")
    git_starts(logged_git_and_hooks)
    git(root, "commit", "-q", "-m", "by hand")
    found = git_starts(logged_git_and_hooks)
    assert len(found) <= PERSON_COMMIT, "\n".join(found)
    assert sum(command(line).startswith("rev-parse") for line in found) <= 4, "\n".join(found)
    common = root / ".git"
    assert git(root, "rev-parse", "HEAD").strip() in (common / "vault-mem" / "local-commits").read_text().split()


def test_doctor_reads_git_config_once(vault, logged_git_and_hooks):
    git_starts(logged_git_and_hooks)
    cli("doctor", "--vault", str(vault.root))
    found = git_starts(logged_git_and_hooks)
    # one reading answers the command's questions for CONFIG_REUSE_S (2 s); a doctor slowed past
    # that by a loaded machine reads once more: the code before read four times
    assert sum(command(line).startswith("config") for line in found) <= 2, "\n".join(found)


# -- the answers without a process are git's answers ---------------------------------------------
def _commits(root: Path) -> list[str]:
    return git(root, "rev-list", "--all").split()


def test_ancestry_and_commits_read_in_process_are_gits_loose_or_packed(vault):
    for i in range(4):
        vault.remember(f"note-{i}", f"note number {i} about the build", f"body {i}")
    git(vault.root, "branch", "side", "HEAD~2")
    git(vault.root, "checkout", "-q", "side")
    vault.remember("side-note", "a note on the side branch", "side body")
    git(vault.root, "checkout", "-q", "main")
    for packed in (False, True):
        if packed:
            git(vault.root, "repack", "-q", "-a", "-d")
            git(vault.root, "prune-packed")
        with GitRepo(vault.root) as repo:
            commits = _commits(vault.root)
            assert len(commits) >= 6
            for a in commits:
                assert history.resolve_commit(repo, a) == a
                for b in commits:
                    said = subprocess.run(["git", "merge-base", "--is-ancestor", a, b], cwd=vault.root).returncode == 0
                    assert history.is_ancestor(repo, a, b) == said, (packed, a, b)
            blob = git(vault.root, "rev-parse", "HEAD:facts/note-0.md").strip()
            assert history.resolve_commit(repo, blob) is None  # a blob is no commit


def test_ancestry_in_a_shallow_clone_is_gits(tmp_path, vault):
    """A shallow clone's first commit has no parents to git (its ``shallow`` file): git answers."""
    for i in range(3):
        vault.remember(f"note-{i}", f"note number {i} about the build", f"body {i}")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{vault.root}", str(clone))
    commits = _commits(clone)
    with GitRepo(clone) as repo:
        for a in commits:
            for b in commits:
                said = subprocess.run(["git", "merge-base", "--is-ancestor", a, b], cwd=clone).returncode == 0
                assert history.is_ancestor(repo, a, b) == said


@pytest.mark.parametrize("where", ["standalone", "project"])
def test_a_commits_authors_read_from_loose_objects_are_those_git_lists(where, vault, project):
    """The walk's files of the tip, read from the loose objects of agent writes, give the same
    answer as git's listing of every file (the same commits once packed), for a vault that is
    its repository and one in a project's folder (``memory/``)."""
    from vault_mem import Vault

    mine = vault if where == "standalone" else Vault(project[0] / "memory")
    top, spec = (mine.root, ".") if where == "standalone" else (project[0], "memory/")
    for i in range(3):
        mine.remember(f"note-{i}", f"note number {i} about the build", f"body {i}")
    base = git(top, "rev-parse", "HEAD").strip()
    mine.remember("note-1", "note number 1 about the build, again", "body 1 changed")
    mine.forget("note-2")
    mine.remember("link-note", "a fresh note", "fresh body")
    head = git(top, "rev-parse", "HEAD").strip()
    answers = []
    for packed in (False, True):
        if packed:
            git(top, "repack", "-q", "-a", "-d")
            git(top, "prune-packed")
        with GitRepo(top) as repo:
            touched: dict = {}
            moves: dict = {}
            answers.append((history.last_authors(repo, head, base, [spec], given_only=True, touched=touched, moves=moves),
                            touched, moves, history.last_authors(repo, head, None, [spec])))
    if mine is not vault:
        mine.close()
    assert answers[0] == answers[1]
    at = "" if spec == "." else spec
    assert {f"{at}facts/note-1.md", f"{at}facts/link-note.md"} <= set(answers[0][0])
    assert f"{at}facts/note-2.md" not in answers[0][0] and f"{at}facts/note-0.md" in answers[0][3]


def test_config_read_once_answers_as_git_config_get(vault):
    root = vault.root
    for args in (("user.email", "first@example.invalid"), ("--add", "user.email", "second@example.invalid"),
                 ("Branch.Feature-X.remote", "origin"), ("core.splitIndex", "yes"), ("feature.manyFiles", "0"),
                 ("index.version", "4"), ("vault-mem.someNumber", "0x10"), ("vault-mem.notBool", "maybe")):
        git(root, "config", *args)
    (root / ".git" / "config").write_text((root / ".git" / "config").read_text() + "[vault-mem]\n\tbare\n")
    names = ["user.email", "USER.Email", "branch.Feature-X.remote", "branch.feature-x.remote", "core.splitIndex",
             "feature.manyFiles", "index.version", "vault-mem.bare", "vault-mem.someNumber", "vault-mem.notBool",
             "not.set"]
    with GitRepo(root) as repo:
        for name in names:
            got = subprocess.run(["git", "config", "--get", name], cwd=root, capture_output=True, text=True)
            assert config_value(repo, name) == (got.stdout.strip() if got.returncode == 0 else ""), name
            as_bool = subprocess.run(["git", "config", "--bool", "--get", name], cwd=root, capture_output=True, text=True)
            assert _bool_setting(repo, name) == (as_bool.returncode == 0 and as_bool.stdout.strip() == "true"), name
        assert config_values(repo, "user.email", "not.set") == {"user.email": "second@example.invalid", "not.set": ""}
        git(root, "config", "user.email", "changed@example.invalid", "--replace-all")
        # a config file changed: read again (its version moved, and within the settle time nothing is kept)
        assert config_value(repo, "user.email") == "changed@example.invalid"


# -- git's discovery, once for a command's opens ---------------------------------------------------
def test_opening_a_vault_again_in_one_process_asks_git_once(vault, logged_git_and_hooks, monkeypatch):
    from vault_mem import Vault
    from vault_mem.store import gitfind

    monkeypatch.setattr(gitfind, "REUSE_S", 600.0)  # the opens' own pace on a loaded machine is not the point
    git_starts(logged_git_and_hooks)
    for _ in range(3):
        Vault(vault.root).close()
    found = [line for line in git_starts(logged_git_and_hooks) if command(line).startswith("rev-parse --show-toplevel")]
    assert len(found) == 1, found


def test_a_repository_made_or_changed_meanwhile_is_found_again(tmp_path):
    """What git's discovery reads changed: the kept answer is not used."""
    outer = tmp_path / "outer"
    (outer / "inner" / "deep").mkdir(parents=True)
    git(outer, "init", "-q")
    assert GitRepo(outer / "inner" / "deep").toplevel == outer
    git(outer / "inner", "init", "-q")  # a repository below: git finds it first now
    repo = GitRepo(outer / "inner" / "deep")
    assert repo.toplevel == outer / "inner"
    hooks = outer / "inner" / "my-hooks"
    git(outer / "inner", "config", "core.hooksPath", str(hooks))  # the config changed
    assert GitRepo(outer / "inner" / "deep").hooks_dir == hooks
    shutil.rmtree(outer / "inner" / ".git")
    assert GitRepo(outer / "inner" / "deep").toplevel == outer  # gone again
    (outer / "inner" / ".git").write_text(f"gitdir: {outer / '.git'}\n")  # a link file in its place
    assert GitRepo(outer / "inner" / "deep").toplevel == outer / "inner"


def _asked_then(cwd: Path, meanwhile) -> list[str]:
    """git's discovery answer for ``cwd`` as GitRepo asks it, kept through ``gitfind``, with
    ``meanwhile`` run after git answered and before the answer is stamped: a change made while
    git was being asked."""
    from vault_mem.store import gitfind

    def ask() -> list[str]:
        out = git(cwd, "rev-parse", "--show-toplevel", "--git-dir", "--git-common-dir",
                  "--git-path", "hooks", "--git-path", "info/attributes").split("\n")
        meanwhile()
        return out

    return gitfind.discovered(cwd, ask)


def test_a_repository_made_while_git_is_asked_is_found_by_the_next_discovery(tmp_path):
    """Review: the kept discovery stamped the folders it watches after git's answer, so a
    ``.git`` made in between (a ``git init`` below, while the first open asked) was stamped as
    seen, and the old top folder was answered for up to 2 s. The ``.git`` entries are stamped
    before git is asked."""
    outer = tmp_path / "outer"
    deep = outer / "inner" / "deep"
    deep.mkdir(parents=True)
    git(outer, "init", "-q")
    assert _asked_then(deep, lambda: git(outer / "inner", "init", "-q"))[0] == str(outer)
    assert GitRepo(deep).toplevel == outer / "inner"


def test_a_config_edited_while_git_is_asked_is_read_by_the_next_discovery(tmp_path):
    """As above for git's config files (``core.hooksPath``): one changed while git was asked,
    after git read it, is not stamped as the version git answered from."""
    root = tmp_path / "r"
    (root / "sub").mkdir(parents=True)
    git(root, "init", "-q")
    hooks = tmp_path / "shared-hooks"
    assert _asked_then(root / "sub", lambda: git(root, "config", "core.hooksPath", str(hooks)))[3] != str(hooks)
    assert GitRepo(root / "sub").hooks_dir == hooks


def test_an_edit_of_a_linked_global_config_is_seen_by_the_next_discovery(tmp_path, monkeypatch):
    """Last read: the kept discovery stamped git's config files through lstat, so an edit of a
    ~/.gitconfig that is a link (a dotfile manager's) left its stamp as it was, and a hooks
    folder set there went unseen for up to 2 s. The files git reads are stamped as git reads
    them: through the link."""
    real, link = tmp_path / "dotfiles" / "gitconfig", tmp_path / "gitconfig-link"
    real.parent.mkdir()
    real.write_text("", encoding="utf-8")
    link.symlink_to(real)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(link))
    root = tmp_path / "r"
    git(tmp_path, "init", "-q", str(root))
    assert GitRepo(root).hooks_dir == root / ".git" / "hooks"
    hooks = tmp_path / "shared-hooks"
    real.write_text(f"[core]\n\thooksPath = {hooks}\n", encoding="utf-8")  # the link's own stat unchanged
    assert GitRepo(root).hooks_dir == hooks


def _included_identity(tmp_path: Path) -> tuple[GitRepo, Path]:
    """A repository whose config includes ``identity.conf`` (user.email first@example.com)."""
    root = tmp_path / "r"
    git(tmp_path, "init", "-q", str(root))
    extra = tmp_path / "identity.conf"
    extra.write_text("[user]\n\temail = first@example.com\n", encoding="utf-8")
    git(root, "config", "include.path", str(extra))
    return GitRepo(root), extra


def test_an_edit_of_an_included_config_file_is_seen_by_the_next_question(tmp_path):
    """Review of proc28: a reading of git's config was kept while the five files git reads
    before any include kept their stat, so an edit of an included file (``include.path``: a
    person's identity kept in another file) went unseen for up to 2 s in one process (the MCP
    server, the daemon). The files a reading names are stamped as well, before the next reading."""
    from vault_mem.store import worktree

    repo, extra = _included_identity(tmp_path)
    assert worktree.config_value(repo, "user.email") == "first@example.com"
    assert worktree.config_value(repo, "user.email") == "first@example.com"  # a kept reading now
    for n, email in enumerate(("second@example.com", "third-one@example.com")):
        extra.write_text(f"[user]\n\temail = {email}\n", encoding="utf-8")
        assert worktree.config_value(repo, "user.email") == email, n


def test_an_include_on_a_branch_follows_a_checkout(tmp_path, monkeypatch):
    """Review: a kept reading of git's config was stamped by the config files alone, so with an
    ``includeIf "onbranch:..."`` (a work email on a work branch) a checkout left the other
    branch's answer for up to 2 s in one process (the MCP server, the daemon). A reading that
    holds an onbranch include is stamped by HEAD too."""
    from vault_mem.store import worktree

    monkeypatch.setattr(settle, "SETTLE_NS", 0)  # the files are written a moment before; settled here
    root = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    git(root, "commit", "-q", "--allow-empty", "-m", "first")
    extra = tmp_path / "work.conf"
    extra.write_text("[user]\n\temail = work@example.com\n", encoding="utf-8")
    git(root, "config", "user.email", "home@example.com")
    git(root, "config", "includeIf.onbranch:work.path", str(extra))  # after it: the include's value wins
    repo = GitRepo(root)
    assert worktree.config_value(repo, "user.email") == "home@example.com"
    assert worktree.config_value(repo, "user.email") == "home@example.com"  # a kept reading now
    git(root, "checkout", "-q", "-b", "work")
    assert worktree.config_value(repo, "user.email") == "work@example.com"
    git(root, "checkout", "-q", "main")
    assert worktree.config_value(repo, "user.email") == "home@example.com"


def test_a_boolean_setting_is_what_git_says_for_every_form(tmp_path):
    """Review of proc28: the in-process reading of ``--bool`` said True for ``08``, ``1_0``,
    ``0x_1``, a quoted ``"true "`` and numbers past git's range (git refuses them), and False
    for ``1k`` (git: true). Plain forms are read in process; every other is git's to say."""
    from vault_mem.store import worktree

    root = tmp_path / "r"
    git(tmp_path, "init", "-q", str(root))
    repo = GitRepo(root)
    for value in ("true", "TRUE", "yes", "On", "1", "false", "no", "OFF", "0", "", "1k", "08", "1_0", "0x_1",
                  "0x10", "2", "-1", "true ", "9999999999999999999999", "\u0661", "bogus"):
        git(root, "config", "core.splitIndex", value)
        worktree.forget_config(repo)
        proc = subprocess.run(["git", "-C", str(root), "config", "--bool", "--get", "core.splitIndex"],
                              capture_output=True, text=True, check=False)
        expected = proc.returncode == 0 and proc.stdout.strip() == "true"
        assert worktree._bool_setting(repo, "core.splitIndex") is expected, repr(value)
    git(root, "config", "--add", "core.splitIndex", "true")  # an earlier value git refuses: git fails
    worktree.forget_config(repo)
    assert worktree._bool_setting(repo, "core.splitIndex") is False


def test_the_persons_identity_kept_in_an_included_file_follows_its_edit(vault, tmp_path, monkeypatch):
    """Review of proc28: the identities a long-lived process keeps (whose memories reach the
    agent unasked) were read again when one of git's own config files changed, not an included
    one: a person's user.email kept in an included file, once changed, left the old email as
    this machine's person until the process ended."""
    from vault_mem.vault import authors

    monkeypatch.setattr(settle, "SETTLE_NS", 0)  # files written a moment ago count as settled here
    extra = tmp_path / "identity.conf"
    extra.write_text("[user]\n\temail = first@example.com\n", encoding="utf-8")
    git(vault.root, "config", "include.path", str(extra))
    assert "first@example.com" in authors.identities(vault.ws).person
    assert "first@example.com" in authors.identities(vault.ws).person
    extra.write_text("[user]\n\temail = second-one@example.com\n", encoding="utf-8")
    person = authors.identities(vault.ws).person
    assert "second-one@example.com" in person and "first@example.com" not in person, person


def test_a_config_with_a_settled_include_is_read_once_for_a_commands_questions(tmp_path, logged_git_and_hooks, monkeypatch):
    """Review of the include stamping: a reading that named an include not stamped before it was
    never kept, so every command of a person whose ~/.gitconfig has an `includeIf` (a work email)
    started one more `git config`. A file named anew that had settled before the reading began
    is stamped after it and the reading kept."""
    from vault_mem.store import worktree

    monkeypatch.setattr(settle, "SETTLE_NS", 0)  # the include is written a moment before; settled here
    repo, extra = _included_identity(tmp_path)
    git_starts(logged_git_and_hooks)
    for name in ("user.email", "user.name", "core.bare", "user.email"):
        worktree.config_value(repo, name)
    assert sum(command(line).startswith("config") for line in git_starts(logged_git_and_hooks)) == 1


def test_a_commands_check_for_config_in_the_vault_reads_no_unchanged_config_file(vault, tmp_path, monkeypatch):
    """Review of include23: the check for a config file in the vault read each of git's base
    config files (up to 1 MB each) for the word "include" at every command of a process (the
    MCP server, the daemon). The answer is kept by the files' stat: a command whose config files
    did not change reads none of them; an edited one is read again."""
    import builtins

    from vault_mem.store import worktree

    monkeypatch.setattr(settle, "SETTLE_NS", 0)  # the files are written a moment before; settled here
    opened: list[str] = []

    def counted_open(file, *args, **kwargs):
        opened.append(str(file))
        return builtins.open(file, *args, **kwargs)

    monkeypatch.setattr(worktree, "open", counted_open, raising=False)
    base = worktree._base_config_files(vault.repo)
    assert worktree.config_in_vault_notice(vault.repo, vault.root) is None
    assert {p for p in base if os.path.exists(p)} <= set(opened)
    opened.clear()
    assert worktree.config_in_vault_notice(vault.repo, vault.root) is None
    assert not set(opened) & set(base), opened
    inside = vault.root / "shared.gitconfig"
    inside.write_text("[core]\n", encoding="utf-8")
    git(vault.root, "config", "include.path", str(inside))  # the repository's config edited: read again
    notice = worktree.config_in_vault_notice(vault.repo, vault.root)
    assert notice is not None and "shared.gitconfig" in notice
    assert str(vault.repo.common_dir / "config") in opened


def test_an_empty_git_config_global_names_no_config_file_in_the_vault(vault, monkeypatch):
    """Review of include23: GIT_CONFIG_GLOBAL set and empty (git reads no global file) was taken
    for a file named "", which resolved to the top folder: every command said git reads its
    configuration from the vault."""
    from vault_mem.store import worktree

    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "")
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", "")
    worktree.forget_config(vault.repo)
    assert worktree.config_in_vault_notice(vault.repo, vault.root) is None
    assert worktree.config_value(vault.repo, "user.email") == ""  # git read no global file either
