import datetime as dt
import difflib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import git

from vault_mem import Vault
from vault_mem.errors import (
    InvalidKeyError,
    InvalidMemoryError,
    MemoryNotFoundError,
    NotAVaultError,
    VaultMemError,
)
from vault_mem.model.memory import parse_memory
from vault_mem.store.hooks import LAUNCH


def head(v):
    return git(v.root, "rev-parse", "HEAD").strip()


def commit_count(v):
    return int(git(v.root, "rev-list", "--count", "HEAD"))


def test_init_creates_template_and_one_commit(vault):
    root = vault.root
    for name in ("INDEX.md", "README.md", "vault.toml", ".gitignore", ".gitattributes"):
        assert (root / name).is_file(), name
    for folder in ("preferences", "facts", "decisions", "procedures", "notes"):
        assert (root / folder).is_dir()
    assert commit_count(vault) == 1
    assert ".vault-mem/" in (root / ".gitignore").read_text()
    assert git(root, "status", "--porcelain") == ""
    assert (root / "INDEX.md").read_text() == vault.render_index()
    hook = root / ".git" / "hooks" / "pre-commit"
    assert hook.is_file() and LAUNCH in hook.read_text()  # init installs the git hooks


def test_remember_is_one_commit_with_the_file_and_index_only(vault):
    r = vault.remember("editor-choice", "Uses Helix as the main editor", "Switched from Neovim.",
                       type="preference", tags=["editor", "tools"])
    assert r.action == "create" and r.commit == head(vault)
    files = git(vault.root, "show", "--name-only", "--format=", "HEAD").split()
    assert files == ["INDEX.md", "preferences/editor-choice.md"]
    msg = git(vault.root, "log", "-1", "--format=%B")
    assert msg.startswith("remember: editor-choice — Uses Helix as the main editor\n")
    for trailer in ("Memory-Key: editor-choice", "Memory-Action: create", "Memory-Type: preference",
                    "Agent: vault-mem agent"):
        assert trailer in msg
    assert git(vault.root, "log", "-1", "--format=%an").strip() == "vault-mem agent"
    assert git(vault.root, "status", "--porcelain") == ""
    mem = parse_memory((vault.root / "preferences/editor-choice.md").read_text(), "preferences/editor-choice.md")
    assert mem.created == dt.date.today() and mem.source == "agent" and mem.tags == ["editor", "tools"]
    assert (vault.root / "INDEX.md").read_text() == vault.render_index()


def test_identical_write_makes_no_commit(vault):
    vault.remember("k", "desc", "body")
    n = commit_count(vault)
    assert vault.remember("k", "desc", "body").action == "unchanged"
    assert commit_count(vault) == n


def test_update_keeps_person_fields_and_type_change_moves(vault):
    vault.remember("k", "first", "body")
    path = vault.root / "facts/k.md"
    text = path.read_text().replace("source: agent\n", "source: agent\nreviewer: Ada\n")
    path.write_text(text)
    git(vault.root, "commit", "-qam", "person adds a field")
    r = vault.remember("k", "second", "new body", type="decision")
    assert r.action == "move"
    assert not path.exists()
    moved = (vault.root / "decisions/k.md").read_text()
    assert "reviewer: Ada" in moved and "second" in moved
    assert sorted(git(vault.root, "show", "--no-renames", "--name-only", "--format=", "HEAD").split()) == \
        ["INDEX.md", "decisions/k.md", "facts/k.md"]
    assert git(vault.root, "log", "-1", "--format=%s").startswith("move: k")


def test_adding_one_memory_changes_exactly_one_index_line(vault):
    vault.remember("a", "first memory")
    before = (vault.root / "INDEX.md").read_text().splitlines()
    vault.remember("b", "second memory")
    after = (vault.root / "INDEX.md").read_text().splitlines()
    changed = [d for d in difflib.ndiff(before, after) if d[:1] in "+-"]
    assert len(changed) == 1 and changed[0].startswith("+ - b (")


def test_forget_and_unknown_key_suggests(vault):
    vault.remember("editor-choice", "Uses Helix")
    with pytest.raises(MemoryNotFoundError, match="editor-choice"):
        vault.forget("editor-choise")
    r = vault.forget("editor-choice")
    assert r.commit == head(vault)
    assert not (vault.root / "facts/editor-choice.md").exists()
    assert "editor-choice" not in (vault.root / "INDEX.md").read_text()
    assert git(vault.root, "log", "-1", "--format=%s").startswith("forget: editor-choice")


def test_undo_restores_memory_and_index(vault):
    vault.remember("k", "version one", "v1 body")
    v1 = (vault.root / "facts/k.md").read_text()
    index_v1 = (vault.root / "INDEX.md").read_text()
    vault.remember("k", "version two", "v2 body")
    r = vault.undo("k")
    assert r.action == "undo" and r.commit == head(vault)
    assert (vault.root / "facts/k.md").read_text() == v1
    assert (vault.root / "INDEX.md").read_text() == index_v1
    assert "Reverts: " in git(vault.root, "log", "-1", "--format=%B")
    assert git(vault.root, "status", "--porcelain") == ""


def test_undo_of_create_and_of_forget(vault):
    vault.remember("a", "kept")
    vault.remember("bad", "a wrong memory")
    vault.undo("bad")
    assert not (vault.root / "facts/bad.md").exists()
    vault.forget("a")
    vault.undo("a")
    assert (vault.root / "facts/a.md").exists()


def test_undo_by_commit_and_refuses_when_file_changed_since(vault):
    c1 = vault.remember("k", "one").commit
    vault.remember("k", "two")
    with pytest.raises(VaultMemError, match="changed after"):
        vault.undo(c1)


@pytest.mark.parametrize("key", ["../../etc/passwd", "/abs/path", "Upper", "has space", "", "x" * 81,
                                 "index", "readme"])
def test_invalid_keys_write_nothing(vault, key):
    n = commit_count(vault)
    with pytest.raises(InvalidKeyError):
        vault.remember(key, "desc")
    assert commit_count(vault) == n
    assert git(vault.root, "status", "--porcelain") == ""


@pytest.mark.parametrize("kwargs", [
    {"description": ""}, {"description": "two\nlines"}, {"description": "ok", "type": "memo"},
    {"description": "ok", "body": "x" * (64 * 1024 + 1)},
])
def test_invalid_content_writes_nothing(vault, kwargs):
    n = commit_count(vault)
    with pytest.raises(InvalidMemoryError):
        vault.remember("k", **kwargs)
    assert commit_count(vault) == n
    assert git(vault.root, "status", "--porcelain") == ""


def test_not_a_vault(tmp_path):
    with pytest.raises(NotAVaultError, match="vault-mem init"):
        Vault(tmp_path)


def test_agent_identity_override(vault, monkeypatch):
    vault.remember("a", "by default agent")
    Vault(vault.root, agent="claude-code").remember("b", "by named agent")
    assert git(vault.root, "log", "-1", "--format=%an").strip() == "claude-code"
    monkeypatch.setenv("VAULT_MEM_AGENT", "ollama-loop")
    Vault(vault.root).remember("c", "by env agent")
    assert git(vault.root, "log", "-1", "--format=%an").strip() == "ollama-loop"
    assert "Agent: ollama-loop" in git(vault.root, "log", "-1", "--format=%B")


def test_uncommitted_person_edit_is_never_overwritten(vault):
    vault.remember("k", "agent wrote this")
    path = vault.root / "facts/k.md"
    path.write_text(path.read_text() + "\nA person's unsaved thought.\n")
    with pytest.raises(VaultMemError, match="uncommitted edits"):
        vault.remember("k", "agent overwrites")
    assert "unsaved thought" in path.read_text()


def test_reindex_rebuilds_the_sidecar_and_index_md_from_the_files(vault):
    """``Vault.reindex`` (what ``vault-mem reindex`` runs): the index is rebuilt from the files,
    a file nothing indexed yet included, and INDEX.md regenerated over a damaged one."""
    from fakes import write_memory

    vault.remember("alpha", "Alpha is the first fact", "one\n")
    write_memory(vault.root, "beta", "Beta was written by hand", "two\n")
    (vault.root / "INDEX.md").write_text("damaged\n")
    report = vault.reindex()
    assert (report.added + report.updated + report.unchanged, report.problems) == (2, [])
    index = (vault.root / "INDEX.md").read_text()
    assert index == vault.render_index() and "beta" in index and "alpha" in index
    assert sorted(m["key"] for m in vault.list()) == ["alpha", "beta"]


def test_vault_inside_larger_repo_leaves_user_work_alone(tmp_path):
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.py").write_text("v1\n")
    (repo / "lib.py").write_text("lib v1\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "project")
    (repo / "app.py").write_text("staged change\n")
    git(repo, "add", "app.py")
    (repo / "lib.py").write_text("unstaged change\n")
    (repo / "scratch.txt").write_text("untracked\n")
    state = lambda: (git(repo, "diff", "--cached", "--", "app.py", "lib.py"),
                     git(repo, "diff", "--", "app.py", "lib.py"), (repo / "scratch.txt").read_text())
    before = state()
    v = Vault.init(repo / "memory")
    assert v.prefix == "memory/"
    assert all(p.startswith("memory/") for p in git(repo, "show", "--name-only", "--format=", "HEAD").split())
    v.remember("k", "a project fact")
    v.forget("k")
    v.undo("k")
    assert state() == before
    for c in git(repo, "rev-list", "HEAD~4..HEAD").split():
        assert all(p.startswith("memory/") for p in git(repo, "show", "--name-only", "--format=", c).split())
    assert (repo / "memory/facts/k.md").exists()


WRITER = """
import sys
from vault_mem import Vault
v = Vault(sys.argv[1], agent=f"writer-{sys.argv[2]}")
for i in range(int(sys.argv[3])):
    key = f"shared-{i % 3}" if i % 2 else f"w{sys.argv[2]}-{i}"
    v.remember(key, f"written by {sys.argv[2]} round {i}", f"body {sys.argv[2]} {i}")
"""


def test_concurrent_writers_from_processes_lose_nothing(vault):
    start = commit_count(vault)
    n, per = 4, 12
    # subprocesses on purpose: the write lock must hold between processes, not only threads
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(vault.root), str(w), str(per)],
                              stderr=subprocess.PIPE, text=True, env=os.environ.copy()) for w in range(n)]
    for p in procs:
        _, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
    # every distinct-key write is a commit; shared keys may be identical no-ops only if same text
    assert commit_count(vault) - start == n * per
    for w in range(n):
        for i in range(0, per, 2):
            assert (vault.root / f"facts/w{w}-{i}.md").exists()
    assert git(vault.root, "status", "--porcelain") == ""
    assert (vault.root / "INDEX.md").read_text() == vault.render_index()
    git(vault.root, "fsck", "--strict")


def test_regenerate_index_says_whether_index_md_changed(vault):
    assert vault.regenerate_index() is False  # nothing new since init
    (vault.root / "facts" / "by-hand.md").write_text("---\ndescription: Added by hand\n---\n")
    assert vault.regenerate_index() is True
    assert "by-hand: Added by hand" in (vault.root / "INDEX.md").read_text()
    assert vault.regenerate_index() is False


# -- editors' swap and backup files ------------------------------------------------------------

#: a file each editor leaves next to facts/editor.md (or in the vault's root)
EDITOR_LEFTOVERS = [
    "facts/.editor.md.swp", "facts/.editor.md.swo", "facts/.editor.md.swx", "facts/editor.md~",
    "facts/.editor.md.un~", "facts/4913",  # vim (nano's swap is .swp too)
    "facts/#editor.md#", "facts/.#editor.md",  # emacs
    "facts/editor.md.save",  # nano
    ".idea/workspace.xml", "facts/editor.md___jb_tmp___", "facts/editor.md___jb_old___",  # JetBrains
    ".DS_Store", "facts/.DS_Store",  # macOS (VS Code on macOS)
]


def test_template_gitignore_holds_the_one_list_of_editor_files():
    from vault_mem.model.memory import EDITOR_FILES, missing_editor_patterns
    text = (Path(__file__).resolve().parent.parent / "template_vault" / "dot-gitignore").read_text()
    assert missing_editor_patterns(text) == []
    assert {line for line in text.splitlines() if line and not line.startswith("#")} == {".vault-mem/", *EDITOR_FILES}


def test_editor_files_are_ignored_by_git_the_index_and_the_daemon(vault):
    from vault_mem.daemon.watcher import Batch, Classifier

    vault.remember("editor", "Uses Helix as the main editor", "Body.\n", type="fact")
    root = vault.root
    for rel in EDITOR_LEFTOVERS:
        (root / rel).parent.mkdir(exist_ok=True)
        (root / rel).write_bytes(b"\x00editor state")
    assert git(root, "status", "--porcelain", "--untracked-files=all") == ""
    report = vault.reconcile(force=True)
    assert report.problems == [] and [e["key"] for e in vault.list()] == ["editor"]
    classifier = Classifier(str(root), [str(root / ".git")])
    for rel in EDITOR_LEFTOVERS:
        batch = Batch()
        assert not classifier.classify(str(root / rel), is_directory=False, into=batch) and not batch, rel


@pytest.mark.skipif(shutil.which("vim") is None, reason="vim is not installed")
def test_real_vim_swap_backup_and_undo_files_stay_out_of_git_status(vault):
    vault.remember("editor", "Uses Helix as the main editor", "Body.\n", type="fact")
    root = vault.root
    # a person editing the memory in vim, with backups and an undo file, still inside the editor
    vim = subprocess.Popen(["vim", "-u", "NONE", "-N", "--not-a-term", "-c", "set backup undofile",
                            "-c", "normal Goedited in vim", "-c", "w", "-c", "sleep 300", "facts/editor.md"],
                           cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        from conftest import wait_for

        # the swap file exists while vim runs; the write (after its backup and undo files) is done
        # once the file holds the new line (a deadline only: a loaded machine may be slow)
        wait_for(lambda: (root / "facts/.editor.md.swp").exists()
                 and "edited in vim" in (root / "facts/editor.md").read_text(), 120, "vim's swap file and write")
        assert (root / "facts/.editor.md.swp").exists()
        assert git(root, "status", "--porcelain", "--untracked-files=all") == " M facts/editor.md\n"
        report = vault.reconcile(force=True)
        assert report.problems == [] and [e["key"] for e in vault.list()] == ["editor"]
    finally:
        vim.send_signal(signal.SIGKILL)
        vim.wait()


def test_init_on_an_existing_vault_adds_the_missing_editor_patterns(vault):
    from conftest import cli

    from vault_mem.model.memory import EDITOR_FILES

    gitignore = vault.root / ".gitignore"
    gitignore.write_text(".vault-mem/\n*.swp\nmy-own-notes.txt")  # a vault from before, a person's lines
    git(vault.root, "commit", "-qam", "older .gitignore", "--no-verify")
    r = cli("init", str(vault.root))
    assert r.returncode == 0, r.stderr
    assert "added to its .gitignore what editors leave behind" in r.stdout and ".*.swp" in r.stdout
    text = gitignore.read_text()
    assert text.startswith(".vault-mem/\n*.swp\nmy-own-notes.txt\n")  # kept, only appended to
    assert all(p in text.splitlines() for p in EDITOR_FILES)
    again = cli("init", str(vault.root), "--json")
    assert again.returncode == 0 and '"gitignore_added": []' in again.stdout
    for rel in EDITOR_LEFTOVERS:
        (vault.root / rel).parent.mkdir(exist_ok=True)
        (vault.root / rel).write_bytes(b"x")
    assert git(vault.root, "status", "--porcelain", "--untracked-files=all") == " M .gitignore\n"


@pytest.mark.parametrize("configured", [None, "trunk"])
def test_a_new_vault_is_on_main_unless_the_person_chose_a_default_branch(tmp_path, configured):
    """git's own default without `init.defaultBranch` is still `master`; a new vault is on `main`
    then (the branch remotes and the docs name), and on the person's choice when they made one."""
    gitconfig = Path(os.environ["HOME"]) / ".gitconfig"
    text = gitconfig.read_text().replace("\tdefaultBranch = main\n", f"\tdefaultBranch = {configured}\n"
                                         if configured else "")
    gitconfig.write_text(text)
    Vault.init(tmp_path / "v").close()
    assert git(tmp_path / "v", "symbolic-ref", "--short", "HEAD").strip() == (configured or "main")
