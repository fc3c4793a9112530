import os
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from conftest import git, prune_when_found
from stress import sized

from vault_mem.errors import HistoryDamagedError
from vault_mem.store.git import GitRepo, Identity

AGENT = Identity("agent smith", "agent@example.com")


def _git_bytes(cwd: Path, *args: str, input_bytes: bytes | None = None) -> bytes:
    """Real git's stdout as bytes (for binary objects and names that are not UTF-8)."""
    return subprocess.run(["git", *args], cwd=cwd, input=input_bytes, capture_output=True, check=True).stdout


def _repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "README.md").write_text("hello\n")
    git(tmp_path, "add", "README.md")
    git(tmp_path, "commit", "-qm", "first")
    return tmp_path


def test_commit_paths_makes_one_clean_commit_git_agrees_with(tmp_path):
    root = _repo(tmp_path)
    repo = GitRepo(root)
    (root / "facts").mkdir()
    (root / "facts" / "a.md").write_bytes(b"---\ndescription: a\n---\n")
    (root / "INDEX.md").write_bytes(b"index\n")
    commit = repo.commit_paths({"facts/a.md": (root / "facts/a.md").read_bytes(),
                                "INDEX.md": b"index\n"}, "remember: a", author=AGENT)
    assert commit and git(root, "rev-parse", "HEAD").strip() == commit
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == ["INDEX.md", "facts/a.md"]
    assert git(root, "log", "-1", "--format=%an <%ae>|%s").strip() == "agent smith <agent@example.com>|remember: a"
    git(root, "fsck", "--strict")
    # identical content: no commit
    assert repo.commit_paths({"facts/a.md": (root / "facts/a.md").read_bytes()}, "again", author=AGENT) is None


def test_a_write_and_its_index_md_are_staged_by_one_git_process(tmp_path, monkeypatch):
    """A write stages its file from disk (git keeps its stat data: ``git status`` reads it
    without hashing) and INDEX.md as the committed blob (the one on disk is the work tree's):
    two ``git update-index`` runs per write before, one now. The staging area then holds
    exactly the commit, also for a name that starts with a dash, and git agrees."""
    root = _repo(tmp_path)
    repo = GitRepo(root)
    (root / "facts").mkdir()
    (root / "facts" / "-dash.md").write_bytes(b"---\ndescription: a\n---\n")
    (root / "INDEX.md").write_bytes(b"index with a person's uncommitted line\n")
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    commit = repo.commit_paths({"facts/-dash.md": (root / "facts/-dash.md").read_bytes(),
                                "INDEX.md": b"index\n"}, "remember: dash", author=AGENT)
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    names = [line.split('"name":"', 1)[1].split('"', 1)[0] for line in trace.read_text().splitlines()
             if '"event":"cmd_name"' in line]
    assert names.count("update-index") == 1, names
    staged = git(root, "ls-files", "-s", "INDEX.md", "facts/-dash.md").split("\n")
    assert [line.split()[1] for line in staged if line] == [git(root, "rev-parse", f"{commit}:{p}").strip()
                                                             for p in ("INDEX.md", "facts/-dash.md")]
    assert "mtime: 0:0" not in git(root, "ls-files", "--debug", "facts/-dash.md")  # staged from the file
    assert git(root, "status", "--porcelain", "--", "INDEX.md", "facts") == " M INDEX.md\n"  # the work tree's own
    assert git(root, "diff", "--cached", "--name-only") == ""


def test_delete_and_packed_objects(tmp_path):
    root = _repo(tmp_path)
    repo = GitRepo(root)
    (root / "facts").mkdir()
    for i in range(5):
        p = root / "facts" / f"k{i}.md"
        p.write_text(f"memory {i}\n")
        repo.commit_paths({f"facts/k{i}.md": p.read_bytes()}, f"add {i}", author=AGENT)
    git(root, "gc", "-q", "--prune=now")
    repo = GitRepo(root)  # fresh process cache: trees now come from the pack
    (root / "facts" / "k0.md").unlink()
    assert repo.commit_paths({"facts/k0.md": None}, "forget k0", author=AGENT)
    assert "k0.md" not in git(root, "ls-tree", "-r", "--name-only", "HEAD")
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--strict")



def _persons_work_in_progress(tmp_path):
    """:func:`_repo` with the person's work under way outside the vault's files: ``src.py``
    committed, then a change staged, another unstaged on top, and an untracked ``new.txt``."""
    root = _repo(tmp_path)
    (root / "src.py").write_text("v1\n")
    git(root, "add", "src.py")
    git(root, "commit", "-qm", "src")
    (root / "src.py").write_text("staged v2\n")
    git(root, "add", "src.py")
    (root / "src.py").write_text("unstaged v3\n")
    (root / "new.txt").write_text("untracked\n")
    return root

def test_user_staged_and_unstaged_work_elsewhere_is_untouched(tmp_path):
    root = _persons_work_in_progress(tmp_path)
    before = (git(root, "diff", "--cached"), git(root, "diff"), git(root, "status", "--porcelain"))
    repo = GitRepo(root / ".")
    (root / "mem").mkdir()
    (root / "mem" / "x.md").write_text("x\n")
    repo.commit_paths({"mem/x.md": b"x\n"}, "remember: x", author=AGENT)
    after = (git(root, "diff", "--cached"), git(root, "diff"), git(root, "status", "--porcelain"))
    assert before == after
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == ["mem/x.md"]


def _no_hard_links(monkeypatch) -> None:
    """A file system without hard links (some network and FAT ones): the index is copied (and
    git's locks are made without links: store/gitlocks.py)."""
    import errno

    from vault_mem.store import gitindex, gitlocks

    def refuse(*a, **kw):
        raise OSError(errno.EPERM, "Operation not permitted")
    monkeypatch.setattr(gitindex.os, "link", refuse)
    # gitlocks warns once per process of a file system without links: put back after the test
    # (which locks were made without links is kept per lock, gitlocks._made_exclusive)
    monkeypatch.setattr(gitlocks, "_no_links_said", gitlocks._no_links_said)


@pytest.mark.parametrize("links", [True, False], ids=["linked", "copied"])
def test_a_memory_rewritten_in_place_within_a_second_is_staged_as_its_new_bytes(tmp_path, monkeypatch, links):
    """git (built here without nanosecond times) trusts an index entry whose file has the size,
    inode and times, to the second, that it recorded, unless the entry is "racy": not older
    than the index file itself. The write's index copy was stamped with the time it was made:
    a memory rewritten in place to the same size within the second of its last commit, then
    committed after a second boundary, kept its older blob in the staging area under the new
    file's times, and `git commit -a` would have put the older memory back. The same with the
    index's second name (a hard link, the usual case) and with a copy (no hard links)."""
    import time

    if not links:
        _no_hard_links(monkeypatch)
    root = _repo(tmp_path)
    repo = GitRepo(root)
    path = root / "facts" / "x.md"
    path.parent.mkdir()
    for _ in range(5):  # the first commit and the rewrite within one second (retried if not)
        time.sleep(1.02 - time.time() % 1)
        start = int(time.time())
        path.write_bytes(b"15\n")
        repo.commit_paths({"facts/x.md": b"15\n"}, "remember: x 15", author=AGENT)
        path.write_bytes(b"36\n")  # same size, same inode, same second
        if int(os.stat(path).st_ctime) == start == int(os.stat(root / ".git" / "index").st_mtime):
            break
        repo.commit_paths({"facts/x.md": None}, "forget: x", author=AGENT)
    else:
        pytest.skip("could not write twice within one second on this machine")
    time.sleep(1.02 - time.time() % 1)  # the copy of the index is made in a later second
    repo.commit_paths({"facts/x.md": b"36\n"}, "remember: x 36", author=AGENT)
    blob = git(root, "rev-parse", "HEAD:facts/x.md").strip()
    assert git(root, "ls-files", "-s", "facts/x.md").split()[1] == blob  # the staging area holds HEAD's blob
    assert git(root, "status", "--porcelain") == ""
    git(root, "commit", "-qa", "--allow-empty", "-m", "a person's commit -a")  # it undoes no memory
    assert git(root, "show", "HEAD:facts/x.md") == "36\n"


@pytest.mark.parametrize("links", [True, False], ids=["linked", "copied"])
def test_the_index_is_never_changed_through_the_name_a_write_gives_it(tmp_path, monkeypatch, links):
    """A write has `git update-index` work on a second name of git's index (a hard link, not a
    13 MB copy at 100k memories): git writes a new file and renames it over that name, so the
    index in place is never changed through it, bytes nor times (a copy's time is set on the
    copy alone), until the new one replaces it under index.lock. None of the names is left."""
    root = _repo(tmp_path)
    repo = GitRepo(root)
    (root / "facts").mkdir()
    (root / "facts" / "a.md").write_bytes(b"---\ndescription: a\n---\n")
    index = root / ".git" / "index"
    old = root / "index-as-it-was"
    os.link(index, old)  # the file that was in place, whatever happens to its name
    if not links:
        _no_hard_links(monkeypatch)  # from here on (git's locks are made without links too)
    before, st = old.read_bytes(), os.stat(old)
    commit = repo.commit_paths({"facts/a.md": (root / "facts/a.md").read_bytes()}, "remember: a", author=AGENT)
    assert commit and old.read_bytes() == before
    assert (os.stat(old).st_mtime_ns, os.stat(old).st_size) == (st.st_mtime_ns, st.st_size)
    assert os.stat(index).st_ino != st.st_ino  # the new index replaced it
    assert git(root, "ls-files", "facts").split() == ["facts/a.md"] and git(root, "status", "--porcelain") == "?? index-as-it-was\n"
    assert not [n for n in os.listdir(root / ".git") if n.startswith("vault-mem-index.")]
    repo.sync_index(["facts/a.md", "README.md"])  # the other user of the second name
    assert old.read_bytes() == before and not [n for n in os.listdir(root / ".git") if n.startswith("vault-mem-index.")]
    assert git(root, "status", "--porcelain") == "?? index-as-it-was\n"


@pytest.mark.parametrize("links", [True, False], ids=["linked", "copied"])
def test_a_write_git_cannot_stage_leaves_no_second_name_of_the_index(tmp_path, monkeypatch, links):
    """A write whose `git update-index` fails (here a corrupt index; a full disk does the same)
    fails, and removes the name it gave the index: left, a long-lived process (a daemon retrying,
    an MCP server) kept one per failed write, each a second name of an index that the person's
    repair replaces, holding its bytes on disk until the process ended."""
    from vault_mem.errors import GitError

    root = _repo(tmp_path)
    repo = GitRepo(root)
    (root / "facts").mkdir()
    (root / "facts" / "a.md").write_bytes(b"a\n")
    if not links:
        _no_hard_links(monkeypatch)
    (root / ".git" / "index").write_bytes(b"DIRC" + b"\xff" * 60)  # git: "bad index version", "index file corrupt"
    with pytest.raises(GitError, match="index file corrupt"):
        repo.commit_paths({"facts/a.md": b"a\n"}, "remember: a", author=AGENT)
    assert not [n for n in os.listdir(root / ".git") if n.startswith("vault-mem-index.")]
    assert git(root, "rev-list", "--count", "HEAD").strip() == "1"


def test_spliced_trees_equal_what_git_itself_builds(tmp_path):
    import random

    root = _repo(tmp_path)
    repo = GitRepo(root)
    rng = random.Random(7)
    names = ["a", "a.b", "a-b", "a_b", "ab", "a0", "b", "z", "x.md", "x-md", "x"]
    live: dict[str, bytes] = {}
    for step in range(60):
        folder = rng.choice(["facts", "facts/sub", "notes", "a", "a.b"])
        path = f"{folder}/{rng.choice(names)}"
        if any(p.startswith(path + "/") or path.startswith(p + "/") for p in live):
            continue  # a name cannot be both a file and a folder
        if path in live and rng.random() < 0.4:
            (root / path).unlink()
            del live[path]
            repo.commit_paths({path: None}, f"rm {step}", author=AGENT)
        else:
            data = f"{step}\n".encode()
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(data)
            live[path] = data
            repo.commit_paths({path: data}, f"put {step}", author=AGENT)
    git(root, "fsck", "--strict")
    ours = git(root, "rev-parse", "HEAD^{tree}").strip()
    git(root, "add", "-A")
    assert git(root, "write-tree").strip() == ours


def test_a_commit_made_by_someone_else_mid_write_is_kept_not_overwritten(tmp_path):
    """HEAD moves between our read of it and our update-ref: the compare-and-swap fails and the
    agent commit is rebuilt on top of the other commit instead of silently dropping it."""
    root = _repo(tmp_path)
    repo = GitRepo(root)
    real_edit_tree = repo.edit_tree
    raced: list[str] = []

    def edit_tree_while_a_person_commits(tree, changes):
        if not raced:  # first call only: after commit_paths read HEAD, before its update-ref
            (root / "other.txt").write_text("a person's work\n")
            git(root, "add", "other.txt")
            git(root, "commit", "-qm", "person: other")
            raced.append(git(root, "rev-parse", "HEAD").strip())
        return real_edit_tree(tree, changes)

    repo.edit_tree = edit_tree_while_a_person_commits
    (root / "facts").mkdir()
    (root / "facts" / "a.md").write_bytes(b"a\n")
    commit = repo.commit_paths({"facts/a.md": b"a\n"}, "remember: a", author=AGENT)

    assert raced and commit == git(root, "rev-parse", "HEAD").strip()
    assert git(root, "log", "--format=%s").splitlines() == ["remember: a", "person: other", "first"]
    assert git(root, "rev-parse", "HEAD~1").strip() == raced[0]
    assert git(root, "ls-tree", "-r", "--name-only", "HEAD").split() == ["README.md", "facts/a.md", "other.txt"]
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--strict")


def test_commit_info_reads_what_git_log_says(tmp_path):
    root = _repo(tmp_path)
    (root / "a.txt").write_text("a\n")
    git(root, "add", "a.txt")
    git(root, "-c", "user.name=Ada Lovelace", "commit", "-qm", "first line\nwrapped on\n\nbody text")
    git(root, "checkout", "-qb", "side")
    (root / "b.txt").write_text("b\n")
    git(root, "add", "b.txt")
    git(root, "commit", "-qm", "side work")
    git(root, "checkout", "-q", "-")
    (root / "c.txt").write_text("c\n")
    git(root, "add", "c.txt")
    git(root, "commit", "-qm", "main work")
    git(root, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    repo = GitRepo(root)
    for rev in ("HEAD", "HEAD~1", "HEAD~2"):
        oid = git(root, "rev-parse", rev).strip()
        info = repo.commit_info(oid)
        assert info.subject == git(root, "log", "-1", "--format=%s", oid).strip()
        assert info.author == git(root, "log", "-1", "--format=%an", oid).strip()
        assert info.tree == git(root, "log", "-1", "--format=%T", oid).strip()
        assert list(info.parents) == git(root, "log", "-1", "--format=%P", oid).split()
    assert len(repo.commit_info(git(root, "rev-parse", "HEAD").strip()).parents) == 2


# -- GitPython as the git layer ---------------------------------------------------------------

def test_a_blob_id_has_one_home_that_git_agrees_with_and_loads_no_gitpython(tmp_path):
    """The git store and the sidecar's scan give a file the same blob id from one function
    (two copies drift), real git agrees, and the scan's home loads no GitPython (reads stay light)."""
    import sys

    from vault_mem.index import scan
    from vault_mem.store import objectid

    assert GitRepo.blob_id is objectid.blob_id and scan.blob_id is objectid.blob_id
    root = _repo(tmp_path)
    for data in (b"", b"x\n", "é\0\n".encode() * 500):
        assert objectid.blob_id(data) == _git_bytes(root, "hash-object", "--stdin", input_bytes=data).decode().strip()
    code = "import sys, vault_mem.store.objectid, vault_mem.index.scan; print('git' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_one_shot_write_and_read_import_no_gitpython_and_no_numpy(tmp_path):
    """A one-shot ``vault-mem remember`` (create, update, move, forget) and a keyword recall, as
    the CLI runs them in a new process without a daemon, import neither GitPython (~170 ms of CPU
    at import, a third of such a write: issue 29) nor numpy: objects, trees, refs and the write
    go through git's own processes and vault-mem's code. A vault in a subfolder of a project
    (its top tree holds the project's own hidden folders) the same. Checked in the process's
    ``sys.modules``, not by timing."""
    from vault_mem import Vault

    project = tmp_path / "project"
    (project / ".github").mkdir(parents=True)
    (project / ".github" / "ci.yml").write_text("on: push\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "project")
    for root in (Vault.init(tmp_path / "vault").root, Vault.init(project / "memory").root):
        code = (
            "import sys\n"
            "from vault_mem.adapters.cli import main\n"
            f"v = {str(root)!r}\n"
            "for argv in (['remember', 'editor', '--description', 'Uses Helix', '--body', 'b'],\n"
            "             ['remember', 'editor', '--description', 'Uses Helix daily', '--body', 'b'],\n"
            "             ['remember', 'editor', '--type', 'preference', '--description', 'Helix', '--body', 'b'],\n"
            "             ['remember', 'other', '--description', 'Prefers tabs', '--body', 'c'],\n"
            "             ['forget', 'other'], ['recall', 'Helix']):\n"
            "    assert main(['--vault', v, *argv]) == 0, argv\n"
            "print(sorted(m for m in ('git', 'gitdb', 'numpy') if m in sys.modules))\n")
        env = {**os.environ, "VAULT_MEM_DAEMON": "off"}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
        assert git(root, "status", "--porcelain") == ""
        git(root, "fsck", "--strict", "--no-dangling")
        assert "Helix" in (root / "preferences" / "editor.md").read_text()


def test_a_one_shot_write_with_the_bundled_model_configured_loads_no_model_code(tmp_path):
    """With the vault's own embedder (``local``, the bundled model: the tests' ``none`` taken
    away), a one-shot ``vault-mem remember`` (create, then update) imports neither numpy nor
    onnxruntime, tokenizers, httpx or the sqlite_vec package: the write's vector is owed to the
    next reader that has the model at hand (``finish_write``), and its duplicate check is
    lexical. Checked in the process's ``sys.modules``, not by timing."""
    from vault_mem import Vault

    root = Vault.init(tmp_path / "vault").root
    assert 'provider = "local"' in (root / "vault.toml").read_text()
    env = {k: v for k, v in os.environ.items() if k != "VAULT_MEM_EMBEDDER"}
    assert _imported_by_two_one_shot_writes(root, ("numpy", "onnxruntime", "tokenizers", "httpx", "sqlite_vec",
                                                   "vault_mem.embed.local"), env) == "[]"


#: standard modules a one-shot write has no use for: ``shutil`` (``which``, ``copyfile``, and
#: argparse's help formatter for the terminal's width) brings ``bz2`` and ``lzma``; ``tempfile``
#: brings ``shutil`` and ``random``; ``secrets`` brings ``base64`` and ``random``; ``random``
#: (the secret rules' examples, for tests) and ``csv`` (a table's header row in a memory's text)
#: (a few ms of CPU per command: issue 29)
_NOT_FOR_A_WRITE = ("bz2", "csv", "lzma", "random", "secrets", "shutil", "tempfile")
#: vault-mem's own modules a one-shot write has no use for: the merging of recall hits and the
#: verdict's texts (with ``textwrap``), imported with the CLI's vault finder and the facade
_OWN_NOT_FOR_A_WRITE = ("textwrap", "vault_mem.model.fusion", "vault_mem.model.verdict")


def test_a_one_shot_write_imports_no_standard_module_it_does_not_use(tmp_path):
    """A one-shot ``vault-mem remember`` (create, then update) without a daemon finds git on
    PATH, writes its loose objects' temp files and reads this machine's key without ``shutil``,
    ``tempfile`` or ``secrets`` and what they bring (:data:`_NOT_FOR_A_WRITE`), nor the read
    side's merging and verdict (:data:`_OWN_NOT_FOR_A_WRITE`); the write is
    whole (``git fsck``, a clean status). The first command on a machine (its key made) included:
    a new config folder. Checked in the process's ``sys.modules``, not by timing."""
    from vault_mem import Vault

    root = Vault.init(tmp_path / "vault").root
    # the index was made under the test's machine key, which the new config folder does not hold:
    # a new machine has none (one made elsewhere is made again, said with a warning)
    for made in (root / ".vault-mem").glob("index.*"):
        made.unlink()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    assert _imported_by_two_one_shot_writes(root, (*_NOT_FOR_A_WRITE, *_OWN_NOT_FOR_A_WRITE), env) == "[]"


def _imported_by_two_one_shot_writes(root: Path, modules: tuple[str, ...], env: dict) -> str:
    """Which of ``modules`` a process holds after two one-shot ``remember`` commands (create, then
    update) into the vault ``root`` without a daemon, in ``env``: its ``sys.modules``, printed;
    the writes whole (a clean status, ``git fsck``, the new text in the file)."""
    code = (
        "import sys\n"
        "from vault_mem.adapters.cli import main\n"
        f"v = {str(root)!r}\n"
        "for argv in (['remember', 'editor', '--description', 'Uses Helix', '--body', 'b'],\n"
        "             ['remember', 'editor', '--description', 'Uses Helix daily', '--body', 'b']):\n"
        "    assert main(['--vault', v, *argv]) == 0, argv\n"
        f"print(sorted(m for m in {modules!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**env, "VAULT_MEM_DAEMON": "off"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--strict", "--no-dangling")
    assert "Helix daily" in (root / "facts" / "editor.md").read_text()
    return done.stdout.strip().splitlines()[-1]


def _recorded_inodes(root: Path, paths: list[str]) -> dict[str, int]:
    """The inode git's index records for each of ``paths`` (``git ls-files --debug``, which
    reads the index and writes nothing: no refresh in passing, as ``git status`` would make)."""
    out, inodes, path = git(root, "ls-files", "--debug", "--", *paths), {}, None
    for line in out.splitlines():
        if not line.startswith(" "):
            path = line
        elif "ino:" in line:
            inodes[path] = int(line.split("ino:")[1].split()[0])
    return inodes


def test_a_write_in_a_copied_vault_brings_gits_stat_data_up_to_date_and_stages_no_edit(tmp_path):
    """A vault copied with ``cp -a`` (a backup restored, a vault moved to another disk) has new
    inodes and change times under the same sizes and mtimes: every ``git status`` then re-reads
    and hashes every memory file, and a write's own (``GIT_OPTIONAL_LOCKS=0``) never writes the
    refreshed index back, so every write paid it again (~45 ms of CPU at 10k memories, perf29).
    The next write's staging step refreshes git's stat data (in its copy of the index, installed
    under its lock as ever): afterwards the index records the copies' inodes. A person's
    uncommitted edit in the copy stays exactly that: unstaged, nothing staged."""
    from vault_mem import Vault

    with Vault.init(tmp_path / "vault") as vault:
        for i in range(24):
            vault.remember(f"fact-{i:02d}", f"Fact number {i}", "body")
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(tmp_path / "vault"), str(copy)], check=True)
    paths = [f"facts/fact-{i:02d}.md" for i in range(24)]
    before = _recorded_inodes(copy, paths)
    assert all(before[p] != os.lstat(copy / p).st_ino for p in paths)  # the copy's stat data is stale
    edited = copy / "facts" / "fact-05.md"
    edited.write_text(edited.read_text() + "A person's line.\n")
    env = {**os.environ, "VAULT_MEM_DAEMON": "off"}
    done = subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(copy), "remember", "new-fact",
                           "--description", "Written in the copy", "--body", "b"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    after = _recorded_inodes(copy, paths)
    assert all(after[p] == os.lstat(copy / p).st_ino for p in paths if p != "facts/fact-05.md")
    assert git(copy, "diff", "--cached", "--name-only") == ""
    assert git(copy, "status", "--porcelain") == " M facts/fact-05.md\n"
    assert "A person's line." not in git(copy, "show", "HEAD:facts/fact-05.md")
    git(copy, "fsck", "--strict", "--no-dangling")


def test_a_write_after_vault_mems_own_reads_its_loose_objects_without_git_cat_file(tmp_path):
    """vault-mem's own last commit is stored loose (its commit, trees, blobs): the next write,
    from a new process's view (nothing cached), reads HEAD's commit and trees in process and
    starts no ``git cat-file`` (one git process fewer per one-shot write, issue 29); each object
    read so is git's (``git cat-file``). Once ``git gc`` packed them, ``git cat-file`` answers,
    and a loose object cut short or longer than its header says is left to it too."""
    from vault_mem import Vault

    root = Vault.init(tmp_path / "vault").root
    with Vault(root) as vault:
        vault.remember("editor", "Uses Helix", "b")
    with Vault(root) as vault:
        vault.remember("tabs", "Prefers tabs", "b")
        assert vault.repo._cat.running() == []
        head = vault.repo.head()
        tree = vault.repo.commit_tree(head)
        for oid in (head, tree, vault.repo.blob_at(head, "facts/editor.md")):
            kind = git(root, "cat-file", "-t", oid).strip()
            assert vault.repo._read_loose(oid) == (kind, subprocess.run(
                ["git", "cat-file", kind, oid], cwd=root, capture_output=True, check=True).stdout)
    loose = root / ".git" / "objects" / tree[:2] / tree[2:]
    whole = loose.read_bytes()
    body = zlib.decompress(whole)
    for damaged in (whole[:len(whole) // 2], zlib.compress(body + b"more")):
        loose.chmod(0o644)
        loose.write_bytes(damaged)
        with Vault(root) as vault:
            assert vault.repo._read_loose(tree) is None
    loose.write_bytes(whole)
    git(root, "gc", "-q", "--prune=now")
    assert not loose.exists()
    with Vault(root) as vault:
        vault.remember("spaces", "Not spaces", "b")
        assert vault.repo._cat.running() != []  # packed: git answers
    git(root, "fsck", "--strict", "--no-dangling")
    assert git(root, "status", "--porcelain") == ""


def test_head_and_branches_are_read_from_git_files_as_git_reads_them(tmp_path):
    """HEAD and a branch, read from git's files without GitPython, agree with ``git rev-parse``:
    a loose branch, a packed one (``git pack-refs``), a symbolic ref, a linked worktree's own
    HEAD (its branch in the common dir), an unborn branch (None); and a vault in the linked
    worktree writes to that worktree's branch."""
    from vault_mem import Vault

    (tmp_path / "main").mkdir()
    root = _repo(tmp_path / "main")
    repo = GitRepo(root)
    assert repo.head() == git(root, "rev-parse", "HEAD").strip()
    git(root, "pack-refs", "--all")
    assert not (root / ".git" / "refs" / "heads" / "main").exists()
    assert repo.head() == repo.ref_value("refs/heads/main") == git(root, "rev-parse", "HEAD").strip()
    git(root, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    assert repo.ref_value("refs/heads/alias") == git(root, "rev-parse", "HEAD").strip()
    git(root, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = tmp_path / "side"
    with Vault.init(side / "memory") as vault:
        vault.remember("editor", "Uses Helix", "body")
        assert vault.repo.head() == git(side, "rev-parse", "HEAD").strip() != git(root, "rev-parse", "HEAD").strip()
    assert git(root, "rev-parse", "side").strip() == git(side, "rev-parse", "HEAD").strip()
    assert GitRepo(root).head() == git(root, "rev-parse", "main").strip()
    unborn = tmp_path / "unborn"
    unborn.mkdir()
    git(unborn, "init", "-q")
    assert GitRepo(unborn).head() is None


def test_objects_written_through_the_odb_read_back_with_git_cat_file(tmp_path):
    root = _repo(tmp_path)
    repo = GitRepo(root)
    small = b"a small memory\n"
    big = bytes(range(256)) * 600  # above the deflate limit: stored uncompressed, still valid
    for data in (small, big, b""):
        oid = repo.write_object("blob", data)
        assert oid == GitRepo.blob_id(data) == _git_bytes(root, "hash-object", "--stdin", input_bytes=data).decode().strip()
        assert git(root, "cat-file", "-t", oid).strip() == "blob"
        assert _git_bytes(root, "cat-file", "blob", oid) == data
        assert repo.read_object(oid) == ("blob", data)
        assert repo.write_object("blob", data) == oid  # an existing object is left alone
    tree = repo.edit_tree(None, {"facts/a.md": GitRepo.blob_id(small), "big.bin": GitRepo.blob_id(big)})
    assert git(root, "ls-tree", "-r", "--name-only", tree).split() == ["big.bin", "facts/a.md"]
    commit = repo.write_commit(tree, git(root, "rev-parse", "HEAD").strip(), "m: x\n\nKey: v\n",
                               author=AGENT)
    assert git(root, "cat-file", "-t", commit).strip() == "commit"
    assert repo.commit_info(commit).tree == tree
    # and what git writes, GitPython reads
    theirs = _git_bytes(root, "hash-object", "-w", "--stdin", input_bytes=b"from git\n").decode().strip()
    assert repo.read_object(theirs) == ("blob", b"from git\n")
    assert repo.empty_tree() == _git_bytes(root, "hash-object", "-t", "tree", "--stdin", input_bytes=b"").decode().strip()
    git(root, "fsck", "--strict", "--no-dangling")


def test_an_object_is_stored_when_git_prune_removes_its_empty_folder_as_it_is_found(tmp_path, monkeypatch):
    """The fan-out folder a loose object goes in exists, empty, when the write makes it, and a
    real ``git prune`` removes it (empty) that instant: the write stores the object all the same.
    os.makedirs(exist_ok=True) raised FileExistsError there (it checks the folder after mkdir
    failed), taken for an unwritable folder: found in CI by test_reliability_gc's sync under a
    looping ``git gc`` / ``git prune``."""
    root = _repo(tmp_path)
    repo = GitRepo(root)
    data = b"a memory written while git prunes\n"
    oid = GitRepo.blob_id(data)
    pruned = prune_when_found(monkeypatch, root, root / ".git" / "objects" / oid[:2])
    assert repo.write_object("blob", data) == oid
    monkeypatch.undo()
    assert pruned == [False], "git prune did not remove the empty folder: the race never happened"
    assert _git_bytes(root, "cat-file", "blob", oid) == data
    git(root, "fsck", "--strict", "--no-dangling")


def test_commits_succeed_while_another_process_packs_the_repo(tmp_path):
    import threading

    root = _repo(tmp_path)
    repo = GitRepo(root)
    (root / "facts").mkdir()
    stop = threading.Event()
    packs = []

    def pack_in_a_loop():
        while not stop.is_set():
            # default expiry: `--prune=now` deletes objects a writer made but has not yet
            # referenced, which git documents as unsafe next to any concurrent writer
            proc = subprocess.run(["git", "gc", "-q"], cwd=root, capture_output=True, check=False)
            packs.append(proc.returncode)

    # 25 commits at full size; 8 everyday, each of which waits for the gc under way when it lands
    # (RELIABILITY.md 9), so each meets a running gc: no failure of this test on record names a count
    n = sized(25, 8)
    packer = threading.Thread(target=pack_in_a_loop)
    packer.start()
    try:
        commits = []
        for i in range(n):
            p = root / "facts" / f"k{i}.md"
            p.write_text(f"memory {i}\n")
            commits.append(repo.commit_paths({f"facts/k{i}.md": p.read_bytes()}, f"add {i}", author=AGENT))
            assert repo.commit_info(commits[-1]).subject == f"add {i}"
            assert repo.blob_at(commits[-1], f"facts/k{i}.md") == GitRepo.blob_id(p.read_bytes())
    finally:
        stop.set()
        packer.join()
    assert packs and all(commits)
    assert git(root, "rev-list", "--count", "HEAD").strip() == str(n + 1)
    assert len(git(root, "ls-tree", "--name-only", "HEAD", "facts/").split()) == n
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--strict")


def test_a_new_pack_written_by_another_git_is_seen_by_an_open_repo(tmp_path):
    root = _repo(tmp_path)
    repo = GitRepo(root)
    assert repo.commit_info(repo.head()).subject == "first"  # the cat-file process is running
    (root / "b.txt").write_text("b\n")
    git(root, "add", "b.txt")
    git(root, "commit", "-qm", "second")
    git(root, "gc", "-q", "--prune=now")  # the new commit, tree and blob exist only in a new pack
    assert not list((root / ".git" / "objects").glob("??/*"))
    head = git(root, "rev-parse", "HEAD").strip()
    assert repo.head() == head
    assert repo.commit_info(head).subject == "second"
    blob = repo.blob_at(head, "b.txt")
    assert blob and repo.read_object(blob) == ("blob", b"b\n")


def test_the_compare_and_swap_on_head_refuses_a_moved_head(tmp_path):
    root = _repo(tmp_path)
    repo = GitRepo(root)
    first = repo.head()
    tree = repo.commit_tree(first)
    a = repo.write_commit(tree, first, "a", author=AGENT)
    b = repo.write_commit(tree, first, "b", author=AGENT)
    assert repo.move_head(a, first, message="a")
    assert repo.move_head(b, first, message="b") is False  # HEAD is at a now, not first
    assert repo.move_head(b, None, message="b") is False  # nor unborn
    assert git(root, "rev-parse", "HEAD").strip() == a == repo.head()
    assert git(root, "log", "-g", "-1", "--format=%gs", "HEAD").strip() == "a"


def test_author_committer_and_trailers_are_written_as_git_would(tmp_path, monkeypatch):
    import time

    monkeypatch.setenv("TZ", "Asia/Kolkata")  # +0530: minutes in the offset
    time.tzset()
    try:
        root = _repo(tmp_path)
        repo = GitRepo(root)
        (root / "facts").mkdir()
        (root / "facts" / "a.md").write_bytes(b"a\n")
        message = ("remember: a \u2014 caf\u00e9 description\n\nMemory-Key: a\nMemory-Action: create\n"
                   "Memory-Type: fact\nAgent: smith\n")
        commit = repo.commit_paths({"facts/a.md": b"a\n"}, message,
                                   author=Identity("agent <smith>\n", "agent@example.com\n"),
                                   committer=Identity("Vault Keeper", "keeper@example.com"))
        fmt = "%an|%ae|%cn|%ce|%ai|%ci"
        an, ae, cn, ce, ai, ci = git(root, "log", "-1", f"--format={fmt}", commit).strip().split("|")
        assert (an, ae, cn, ce) == ("agent smith", "agent@example.com", "Vault Keeper", "keeper@example.com")
        assert ai.endswith("+0530") and ci.endswith("+0530")
        assert git(root, "log", "-1", "--format=%B", commit) == message + "\n"
        trailers = git(root, "log", "-1", "--format=%(trailers:only,unfold)", commit).strip().splitlines()
        assert trailers == ["Memory-Key: a", "Memory-Action: create", "Memory-Type: fact", "Agent: smith"]
        info = repo.commit_info(commit)
        assert (info.author, info.subject) == ("agent smith", "remember: a \u2014 caf\u00e9 description")
        # the signature line replay writes by hand says the same
        sig = Identity("agent <smith>\n", "agent@example.com\n").signature(1_700_000_000)
        assert sig == b"agent smith <agent@example.com> 1700000000 +0530"
        git(root, "fsck", "--strict")
    finally:
        monkeypatch.undo()
        time.tzset()


def test_a_vault_in_a_subfolder_never_stages_or_commits_outside_it(tmp_path):
    from vault_mem import Vault

    root = _persons_work_in_progress(tmp_path)
    (root / "README.md").unlink()  # an unstaged delete outside the vault
    outside = lambda: (git(root, "diff", "--cached", "--", ":!memory"), git(root, "diff", "--", ":!memory"),
                       git(root, "status", "--porcelain", "--", ":!memory"))
    before = outside()
    start = git(root, "rev-parse", "HEAD").strip()
    with Vault.init(root / "memory") as vault:
        vault.remember("editor", "Uses Helix", "body")
        vault.remember("editor", "Uses Helix daily", "body 2")
        vault.forget("editor")
    assert outside() == before
    assert git(root, "status", "--porcelain", "--", "memory") == ""
    touched = git(root, "log", "--format=", "--name-only", f"{start}..HEAD").split()
    assert touched and all(p.startswith("memory/") for p in touched)
    assert git(root, "diff", "--name-only", start, "HEAD", "--", ":!memory") == ""


def test_close_stops_the_git_processes_and_the_repo_stays_usable(tmp_path):
    root = _repo(tmp_path)
    git(root, "gc", "-q")  # packed: a loose object is read in process, without cat-file
    repo = GitRepo(root)
    head = repo.head()
    assert repo.commit_info(head).subject == "first"
    assert repo.blob_at("HEAD", "README.md")  # a --batch-check lookup (no tree cached for "HEAD")
    assert repo.read_object(repo.commit_tree(head))[0] == "tree"  # a --batch read
    procs = [*repo._cat.running(), repo.repo.git.cat_file_all.proc]  # ours, and GitPython's (commit_info)
    assert len(procs) == 3 and all(p.poll() is None for p in procs)
    repo.close()
    assert all(p.wait(timeout=10) is not None for p in procs)
    assert repo.commit_info(head).subject == "first"  # restarted on demand
    assert repo.blob_at("HEAD", "README.md")
    with GitRepo(root) as again:
        assert again.read_object(repo.blob_at(head, "README.md")) == ("blob", b"hello\n")


def test_blob_at_answers_the_same_from_a_cold_and_a_warm_cache(tmp_path):
    root = _repo(tmp_path)
    for rel in ("facts/a.md", "facts/sub/b.md", ".hidden/c.md", "notes/d e.md", "caf\u00e9/x.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(rel + "\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "files")
    head = git(root, "rev-parse", "HEAD").strip()
    asks = ["facts/a.md", "facts/sub/b.md", ".hidden/c.md", "notes/d e.md", "caf\u00e9/x.md", "README.md",
            "facts", "facts/sub", "facts/none.md", "facts/a.md/x", "nope/x.md", "./README.md"]

    def truth(path):
        if path.startswith("./"):
            return None
        out = git(root, "ls-tree", head, "--", path).split()
        return out[2] if out and out[1] == "blob" else None

    cold = GitRepo(root)
    assert [cold.blob_at(head, p) for p in asks] == [truth(p) for p in asks]
    warm = GitRepo(root)
    warm.edit_tree(warm.commit_tree(head), {"facts/sub/b.md": None, "caf\u00e9/x.md": None})  # parses them
    assert [warm.blob_at(head, p) for p in asks] == [truth(p) for p in asks]
    assert cold.blob_at(None, "README.md") is None


def test_git_and_gitpython_failures_are_git_errors_that_say_what_to_do(tmp_path):
    import pytest

    from vault_mem.errors import GitError

    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError, match="not a git repository"):
        GitRepo(tmp_path / "plain")
    (tmp_path / "r").mkdir()
    root = _repo(tmp_path / "r")
    repo = GitRepo(root)
    blob = repo.blob_at(repo.head(), "README.md")
    with pytest.raises(GitError, match="git fsck"):
        repo.read_object("0" * 40)
    with pytest.raises(GitError, match="not a commit"):
        repo.commit_info(blob)
    with pytest.raises(GitError, match="not a tree"):
        repo.edit_tree(blob, {"x": blob})
    with pytest.raises(GitError, match="git update-ref failed"):
        repo.move_head("1" * 40, repo.head(), message="bad")  # git refuses a missing object
    assert repo.commit_info(repo.head()).subject == "first"  # and the repo still works


def test_entries_the_agent_does_not_touch_keep_their_exact_bytes(tmp_path):
    """A name that is not UTF-8 elsewhere in a tree the agent edits survives byte for byte."""

    root = _repo(tmp_path)
    blob = _git_bytes(root, "hash-object", "-w", "--stdin", input_bytes=b"odd\n").decode().strip()
    subprocess.run([b"git", b"update-index", b"--add", b"--cacheinfo", b"100644," + blob.encode() + b",caf\xe9.txt"],
                   cwd=root, check=True)
    git(root, "commit", "-qm", "odd name")
    before = _git_bytes(root, "ls-tree", "-z", "HEAD")
    repo = GitRepo(root)
    (root / "INDEX.md").write_bytes(b"index\n")
    assert repo.commit_paths({"INDEX.md": b"index\n"}, "remember: x", author=AGENT)
    after = _git_bytes(root, "ls-tree", "-z", "HEAD")
    assert b"caf\xe9.txt" in after and set(before.split(b"\0")) < set(after.split(b"\0"))
    git(root, "fsck", "--strict")


def test_a_big_flat_folder_edited_in_place_equals_what_git_builds(tmp_path):
    root = _repo(tmp_path)
    facts = root / "facts"
    facts.mkdir()
    for i in range(3000):  # a ~100 KB tree: past the deflate limit
        (facts / f"bulk-{i:05d}.md").write_text(f"memory {i}\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "bulk")
    repo = GitRepo(root)
    edits = {"facts/bulk-00000.md": b"changed\n", "facts/bulk-01500.md": None, "facts/a-first.md": b"a\n",
             "facts/zz-last.md": b"z\n", "facts/bulk-01500.mda": b"after\n", "facts/bulk-02999.md": b"last\n"}
    for rel, data in edits.items():
        if data is None:
            (root / rel).unlink()
        else:
            (root / rel).write_bytes(data)
    for rel, data in edits.items():  # one commit each: every one starts from the cached tree
        assert repo.commit_paths({rel: data}, f"edit {rel}", author=AGENT)
    ours = git(root, "rev-parse", "HEAD^{tree}").strip()
    git(root, "add", "-A")
    assert git(root, "write-tree").strip() == ours
    git(root, "fsck", "--strict")


def test_threads_sharing_one_repo_read_their_own_objects(tmp_path):
    """The daemon's threads share a GitRepo: cat-file's pipe protocol must not interleave."""
    import threading

    root = _repo(tmp_path)
    repo = GitRepo(root)
    blobs = {repo.write_object("blob", f"thread data {i}\n".encode() * (i + 1)): i for i in range(40)}
    wrong: list[str] = []

    def read_all():
        for _ in range(5):
            for oid, i in blobs.items():
                if repo.read_object(oid) != ("blob", f"thread data {i}\n".encode() * (i + 1)):
                    wrong.append(oid)
                if repo.blob_at(repo.head(), "README.md") is None:
                    wrong.append("README.md")

    threads = [threading.Thread(target=read_all) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []


def test_a_commit_waits_for_another_gits_index_lock(tmp_path):
    import threading

    root = _repo(tmp_path)
    repo = GitRepo(root)
    lock = root / ".git" / "index.lock"
    lock.write_bytes(b"")  # another git is mid-command
    releaser = threading.Timer(0.5, lock.unlink)
    releaser.start()
    (root / "a.md").write_bytes(b"a\n")
    try:
        assert repo.commit_paths({"a.md": b"a\n"}, "remember: a", author=AGENT)
    finally:
        releaser.join()
    assert git(root, "status", "--porcelain") == ""


def test_a_tree_with_a_zero_padded_mode_from_an_old_tool_is_rewritten_as_git_writes_it(tmp_path):
    root = _repo(tmp_path)
    readme = git(root, "rev-parse", "HEAD:README.md").strip()
    inner = _git_bytes(root, "mktree", input_bytes=f"100644 blob {readme}\tx.md\n".encode()).decode().strip()
    raw = (b"100644 README.md\0" + bytes.fromhex(readme) + b"040000 old\0" + bytes.fromhex(inner))
    tree = _git_bytes(root, "hash-object", "-t", "tree", "--literally", "-w", "--stdin", input_bytes=raw).decode().strip()
    commit = _git_bytes(root, "commit-tree", "-p", "HEAD", "-m", "old tool", tree).decode().strip()
    git(root, "update-ref", "HEAD", commit)
    git(root, "reset", "-q", "--hard")
    repo = GitRepo(root)
    (root / "new.md").write_bytes(b"n\n")
    assert repo.commit_paths({"new.md": b"n\n"}, "remember: n", author=AGENT)
    assert sorted(git(root, "ls-tree", "-r", "--name-only", "HEAD").split()) == ["README.md", "new.md", "old/x.md"]
    assert b"40000 old\0" in _git_bytes(root, "cat-file", "tree", "HEAD^{tree}")
    assert b"040000" not in _git_bytes(root, "cat-file", "tree", "HEAD^{tree}")
    assert git(root, "status", "--porcelain") == ""


def test_a_big_folder_another_git_changed_is_read_right_by_an_open_repo(tmp_path):
    """After a person's own commits in a big folder, the agent's next commit (which parses the
    new folder tree as a difference from the one it held) still equals what git builds."""
    root = _repo(tmp_path)
    facts = root / "facts"
    facts.mkdir()
    for i in range(2500):
        (facts / f"bulk-{i:05d}.md").write_text(f"memory {i}\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "bulk")
    repo = GitRepo(root)
    person = [("change", "bulk-01000.md"), ("add", "bulk-01000.mda"), ("delete", "bulk-00000.md"),
              ("add", "zz.md"), ("change", "bulk-02499.md"), ("delete", "bulk-01777.md"), ("add", "a.md")]
    for step, (what, name) in enumerate(person):
        if what == "delete":
            (facts / name).unlink()
        else:
            (facts / name).write_text(f"person {step}\n")
        git(root, "add", "-A")
        git(root, "commit", "-qm", f"person {step}")
        (facts / f"agent-{step}.md").write_bytes(b"agent %d\n" % step)
        assert repo.commit_paths({f"facts/agent-{step}.md": b"agent %d\n" % step}, f"agent {step}", author=AGENT)
        ours = git(root, "rev-parse", "HEAD^{tree}").strip()
        git(root, "add", "-A")
        assert git(root, "write-tree").strip() == ours, (what, name)
        assert repo.blob_at(repo.head(), f"facts/{name}") == (
            None if what == "delete" else GitRepo.blob_id(f"person {step}\n".encode()))
    git(root, "fsck", "--strict")


def test_a_tree_parses_as_gitpython_parses_it_and_a_bad_name_is_still_refused(tmp_path):
    """The fast path of ParsedTree.parse (plain names not run through GitPython's checks one by
    one) gives GitPython's entries exactly, names it does not take go through GitPython's checks,
    and a name that aliases .git or climbs out is refused as before. Trees made by real git."""
    import pytest
    from git.objects.fun import tree_entries_from_data, tree_to_stream

    from vault_mem.store.tree import ParsedTree, _entry_bytes

    git(tmp_path, "init", "-q")
    blob = _git_bytes(tmp_path, "hash-object", "-w", "--stdin", input_bytes=b"x\n").decode().strip()
    inner = _git_bytes(tmp_path, "mktree", input_bytes=f"100644 blob {blob}\tx.md\n".encode()).decode().strip()
    names = ["plain-key.md", ".gitkeep", "Upper_Case.md", "café.md", "with space.md", "0lead.md", "a.b-c_d.md",
             ".gitignore", ".github", ".git_x", ".gitx.", "._"]
    lines = [f"100644 blob {blob}\t{n}" for n in names]
    lines += [f"100755 blob {blob}\trun.sh", f"120000 blob {blob}\tlink.md", f"040000 tree {inner}\tsub"]
    tree = _git_bytes(tmp_path, "mktree", input_bytes=("\n".join(lines) + "\n").encode()).decode().strip()
    raw = _git_bytes(tmp_path, "cat-file", "tree", tree)
    assert ParsedTree.parse(raw).entries == tree_entries_from_data(raw)
    assert {e[2] for e in ParsedTree.parse(raw).entries} == {*names, "run.sh", "link.md", "sub"}
    for entry in ParsedTree.parse(raw).entries:  # serialised here or by GitPython: the same bytes
        chunks: list[bytes] = []
        tree_to_stream([entry], chunks.append)
        assert _entry_bytes(entry) == b"".join(chunks)
    assert b"".join(_entry_bytes(e) for e in ParsedTree.parse(raw).entries) == raw
    for bad, mode in [(n, "100644") for n in (".git", "..", ".GIT", "git~1", ".git.", ".Git..", ".git. ")] + \
            [(".gitmodules", "120000")]:
        hostile = _git_bytes(tmp_path, "mktree", input_bytes=(
            "\n".join([*lines, f"{mode} blob {blob}\t{bad}"]) + "\n").encode()).decode().strip()
        with pytest.raises(ValueError):
            ParsedTree.parse(_git_bytes(tmp_path, "cat-file", "tree", hostile))


def test_a_folder_of_plain_names_parses_in_one_pass_as_entry_by_entry(tmp_path):
    """A tree whose every name is plain (a type folder's: ``_plain_entries``, one regular
    expression run in C) parses to the entries, git-order keys and sizes of the entry-by-entry
    parse and of GitPython, whatever bytes the object ids hold (a NUL, a space, digits); a hidden
    name that aliases .git, or a link named .gitmodules, among plain ones is still refused.
    Trees made by real git."""
    import stat

    from git.objects.fun import tree_entries_from_data

    from vault_mem.store import tree as treemod

    git(tmp_path, "init", "-q")
    files = []
    for i in range(400):  # 400 ids: their bytes hold NULs, spaces and digits somewhere
        files.append(tmp_path / f"b{i}")
        files[-1].write_bytes(b"%d 100644 a\0 \n" % i)
    blobs = _git_bytes(tmp_path, "hash-object", "-w", "--stdin-paths",
                       input_bytes="".join(f"{f}\n" for f in files).encode()).decode().split()
    inner = _git_bytes(tmp_path, "mktree", input_bytes=f"100644 blob {blobs[0]}\tx.md\n".encode()).decode().strip()
    lines = [f"100644 blob {b}\tkey-{i}.md" for i, b in enumerate(blobs)]
    lines += [f"100644 blob {blobs[1]}\t.gitkeep", f"100755 blob {blobs[2]}\trun.sh", f"040000 tree {inner}\tsub",
              f"040000 tree {inner}\tsub.d", f"120000 blob {blobs[3]}\tlink", f"100644 blob {blobs[4]}\t.github_x"]
    tree = _git_bytes(tmp_path, "mktree", input_bytes=("\n".join(lines) + "\n").encode()).decode().strip()
    raw = _git_bytes(tmp_path, "cat-file", "tree", tree)
    fast = treemod._plain_entries(raw)
    assert fast is not None
    entries, keys, sizes = fast
    assert entries == treemod._entries(raw) == tree_entries_from_data(raw)
    assert keys == [treemod._name_bytes(n) + (b"/" if stat.S_ISDIR(m) else b"") for _, m, n in entries]
    assert keys == sorted(keys) and sum(sizes) == len(raw)
    assert sizes == [len(b"%o" % m) + len(n) + 22 for _, m, n in entries]
    parsed = treemod.ParsedTree.parse(raw)
    assert (parsed.entries, parsed.keys, parsed.sizes) == (entries, keys, sizes)
    for bad, mode in ((".git.", "100644"), (".GIT", "100644"), (".gitmodules", "120000")):
        hostile = _git_bytes(tmp_path, "mktree", input_bytes=(
            "\n".join([*lines, f"{mode} blob {blobs[5]}\t{bad}"]) + "\n").encode()).decode().strip()
        hostile_raw = _git_bytes(tmp_path, "cat-file", "tree", hostile)
        assert treemod._plain_entries(hostile_raw) is None
        with pytest.raises(ValueError):
            treemod.ParsedTree.parse(hostile_raw)
    assert treemod._plain_entries(raw[:-1]) is None  # not whole entries


@pytest.mark.parametrize("settings", [
    [("core.splitIndex", "true")],
    [("index.version", "4")],
    [("feature.manyFiles", "true"), ("core.untrackedCache", "true")],
])
def test_writes_keep_git_settings_for_big_repositories(tmp_path, settings):
    """docs/benchmarks.md tells a person with a big vault that a split index makes each write's
    update of git's staging area cheap: a vault under any of git's settings for big repositories
    writes, updates and forgets as under the defaults, git sees a clean work tree after each, a
    person's staged change stays staged, and the index keeps the format the person chose."""
    from vault_mem import Vault

    v = Vault.init(tmp_path / "vault")
    root = v.root
    try:
        for name, value in settings:
            git(root, "config", name, value)
        git(root, "update-index", "--index-version", "4" if ("index.version", "4") in settings else "2")
        if ("core.splitIndex", "true") in settings:
            git(root, "update-index", "--split-index")
        (root / "README.md").write_text("the person's staged change\n")
        git(root, "add", "README.md")
        for i in range(30):  # past splitIndex.maxPercentChange: git writes a new shared index meanwhile
            v.remember(f"big-{i}", f"Memory {i} of a vault under {settings[0][0]}", f"Body {i}.")
        v.remember("big-0", "Memory 0, updated", "New body.")
        v.forget("big-1")
        assert git(root, "status", "--porcelain") == "M  README.md\n"
        tracked = git(root, "ls-files").split()
        assert "facts/big-0.md" in tracked and "facts/big-29.md" in tracked
        assert "facts/big-1.md" not in tracked
        assert git(root, "show", "HEAD:facts/big-0.md") == (root / "facts" / "big-0.md").read_text()
        if ("core.splitIndex", "true") in settings:
            assert (root / git(root, "rev-parse", "--shared-index-path").strip()).exists()
        header = (root / ".git" / "index").read_bytes()[:8]
        assert header[4:8] == (4 if ("index.version", "4") in settings else 2).to_bytes(4, "big")
        git(root, "fsck", "--strict")
    finally:
        v.close()


def test_writes_leave_git_index_in_a_format_other_readers_read(tmp_path):
    """vault-mem sets none of git's settings for big repositories itself (docs/benchmarks.md,
    "git's settings"): a split index (its mandatory ``link`` extension) is refused by libgit2 and
    GitPython and misread by isomorphic-git, which then rewrites the index with every memory
    staged for deletion; a version 4 index is refused by GitPython and isomorphic-git
    (bench/bench_index_readers.py). After writes, an update and a forget under the defaults, the
    index is still version 2 and whole, none of those settings is in the vault's config, and
    GitPython's index reader reads every entry git lists."""
    import git as gitpython

    from vault_mem import Vault

    v = Vault.init(tmp_path / "vault")
    root = v.root
    try:
        for i in range(30):
            v.remember(f"plain-{i}", f"Memory {i} of a vault under git's defaults", f"Body {i}.")
        v.remember("plain-0", "Memory 0, updated", "New body.")
        v.forget("plain-1")
    finally:
        v.close()
    config = git(root, "config", "--local", "--list")
    for name in ("core.splitindex", "index.version", "feature.manyfiles", "index.skiphash"):
        assert name not in config.lower()
    assert git(root, "rev-parse", "--shared-index-path").strip() == ""
    assert not [n for n in os.listdir(root / ".git") if n.startswith("sharedindex.")]
    assert (root / ".git" / "index").read_bytes()[4:8] == (2).to_bytes(4, "big")
    tracked = git(root, "ls-files", "-z").split("\0")[:-1]
    read = sorted(path for path, _stage in gitpython.Repo(root).index.entries)
    assert read == sorted(tracked) and "facts/plain-0.md" in read and "facts/plain-1.md" not in read


def test_a_rebase_stopped_with_a_cherry_pick_inside_is_named_a_rebase(tmp_path):
    """A person's interactive rebase stopped at an `edit`, where they cherry-pick a commit that
    conflicts: git holds both markers. Writes are refused while it runs, and the refusal named "a
    git cherry-pick" (found by bench/chaos.py), not the rebase the person has to finish."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for branch, text in (("main", "a"), ("side", "b"), ("other", "d")):
        if branch != "main":
            git(root, "checkout", "-q", "-b", branch, "main")
        (root / "f").write_text(text + "\n")
        git(root, "add", "f")
        git(root, "commit", "-qm", text)
    git(root, "checkout", "-q", "side")
    repo = GitRepo(root)
    assert repo.operation_in_progress() is None
    env = {**os.environ, "GIT_SEQUENCE_EDITOR": "sed -i s/^pick/edit/"}
    subprocess.run(["git", "rebase", "-i", "HEAD~1"], cwd=root, env=env, capture_output=True, check=True)
    assert repo.operation_in_progress() == "rebase"
    assert subprocess.run(["git", "cherry-pick", "other"], cwd=root, capture_output=True).returncode != 0
    assert (root / ".git" / "CHERRY_PICK_HEAD").exists()
    assert repo.operation_in_progress() == "rebase"
    git(root, "cherry-pick", "--abort")
    git(root, "rebase", "--abort")
    assert repo.operation_in_progress() is None


def test_git_update_index_is_tried_again_when_a_gc_removed_the_object_folder_under_it(tmp_path, monkeypatch):
    """A ``git gc``/``prune`` can remove the empty object folder (``objects/ab/``) ``git
    update-index`` is writing into, between its mkdir and its temp file: git fails with "unable
    to create temporary file: No such file or directory ... failed to insert into database",
    and vault-mem runs it again instead of failing the write (seen under a looping gc).

    The race made exact with real git: the folder is a link to a folder that does not exist yet
    (git's mkdir finds the name taken, its temp file finds no folder: git's words for the race),
    and the folder appears once the first ``update-index`` has failed, before the repository
    starts the next git process (``repo.run`` wrapped). It was made with git's own trace
    (``GIT_TRACE2_EVENT``) to a pipe the test read, each git process waiting at its open: under
    load the reader had not closed its end when the retry opened it, the retry went on without
    waiting, and all five tries failed (the suite at load 20, once).

    ``update-index`` runs on an index copy here, as a commit's staging runs it: ``sync_index``
    stages only HEAD's blobs since the sixth round (objects before names), so it writes no new
    object any more and cannot meet the race."""
    (tmp_path / "repo").mkdir()
    root = _repo(tmp_path / "repo")
    data = b"a memory written while a gc removes folders\n"
    (root / "facts").mkdir()
    (root / "facts" / "a.md").write_bytes(data)
    blob = GitRepo.blob_id(data)
    later = tmp_path / "folder-back"
    (root / ".git" / "objects" / blob[:2]).symlink_to(later)
    repo = GitRepo(root)
    runs: list[tuple[str, int]] = []  # (git command, exit code), one per git process
    real_run = repo.run

    def run(*args, **kwargs):
        proc = real_run(*args, **kwargs)
        runs.append((args[0], proc.returncode))
        if args[0] == "update-index" and proc.returncode != 0:
            later.mkdir(exist_ok=True)  # the folder back before the next git process starts
        return proc

    monkeypatch.setattr(repo, "run", run)
    copy = tmp_path / "index-copy"
    try:
        repo._update_index("--add", "--", "facts/a.md", input=b"", index=copy)
    finally:
        repo.close()
    update_runs = [code for name, code in runs if name == "update-index"]
    assert update_runs[0] != 0, f"the first update-index did not meet the removed folder: {runs}"
    assert update_runs[-1] == 0 and len(update_runs) == 2, runs
    monkeypatch.setenv("GIT_INDEX_FILE", str(copy))
    assert git(root, "ls-files", "-s", "facts/a.md").split()[1] == blob
    assert git(root, "cat-file", "blob", blob) == data.decode()
    assert git(root, "diff", "--name-only") == "", "staged from the file: the work tree matches it"


def test_config_values_reads_what_config_get_reads(tmp_path):
    """One ``git config --list`` answers as ``git config --get`` would, name by name: a
    subsection's case kept, section and variable names in any case, the last of repeated
    values, a value-less boolean, an included file, and "" for what is unset."""
    from vault_mem.store.worktree import config_value, config_values

    (tmp_path / "r").mkdir()
    root = _repo(tmp_path / "r")
    (tmp_path / "inc.cfg").write_text('[Remote "Up"]\n\turl = /elsewhere\n')
    with open(root / ".git" / "config", "a") as f:
        f.write('[Branch "Main"]\n\tRemote = x\n[merge]\n\tff\n[foo "a.b"]\n\tc = 1\n\tc = 2 \n'
                f'[include]\n\tpath = {tmp_path / "inc.cfg"}\n')
    repo = GitRepo(root)
    names = ["branch.Main.remote", "BRANCH.Main.REMOTE", "branch.main.remote", "merge.ff", "foo.a.b.c",
             "remote.Up.url", "remote.up.url", "core.bare", "no.such"]
    assert config_values(repo, *names) == {n: config_value(repo, n) for n in names}
    assert config_values(repo, *names)["foo.a.b.c"] == "2"


def test_merge_driver_settings_are_written_only_when_they_differ(tmp_path):
    """A sync or an init asks for the INDEX.md merge driver each time: git's config file is
    rewritten only when a setting is missing or changed, and then set right again."""
    from vault_mem.store.attributes import DRIVER, MERGE_DRIVER, ensure_index_merge_driver

    root = _repo(tmp_path)
    repo = GitRepo(root)
    cfg = root / ".git" / "config"
    assert ensure_index_merge_driver(repo, "core.bare") == {"core.bare": "false"}
    assert git(root, "config", "--get", f"merge.{DRIVER}.driver").strip() == MERGE_DRIVER
    before = (cfg.stat().st_ino, cfg.stat().st_mtime_ns, cfg.read_bytes())
    ensure_index_merge_driver(repo)
    assert (cfg.stat().st_ino, cfg.stat().st_mtime_ns, cfg.read_bytes()) == before
    git(root, "config", f"merge.{DRIVER}.driver", "true")
    ensure_index_merge_driver(repo)
    assert git(root, "config", "--get", f"merge.{DRIVER}.driver").strip() == MERGE_DRIVER


def _plant_loose(root: Path, inflated: bytes, name: str | None = None, tail: bytes = b"") -> str:
    """A loose object whose inflated stream is ``inflated`` (header and all, as a damaged disk or
    a hand-made file may hold it) at ``name`` (default: the hash of those bytes)."""
    import hashlib

    name = name or hashlib.sha1(inflated).hexdigest()
    folder = root / ".git" / "objects" / name[:2]
    folder.mkdir(exist_ok=True)
    path = folder / name[2:]
    if path.exists():
        path.chmod(0o644)
    path.write_bytes(zlib.compress(inflated) + tail)
    return name


def _git_batch(root: Path, oid: str) -> tuple[str, bytes] | None:
    """What ``git cat-file --batch`` answers for ``oid``: (type, content), or None when git
    refuses it (missing, cannot parse, dies)."""
    proc = subprocess.run(["git", "cat-file", "--batch"], cwd=root, input=oid.encode() + b"\n",
                          capture_output=True)
    head, _, rest = proc.stdout.partition(b"\n")
    words = head.split()
    if proc.returncode or len(words) != 3 or not words[2].isdigit() or len(rest) != int(words[2]) + 1:
        return None
    return words[1].decode(), rest[:-1]


def test_a_loose_object_is_read_in_process_only_as_git_reads_it(tmp_path):
    """The in-process reader of loose objects (_read_loose) agrees with ``git cat-file --batch``
    on every object git accepts (empty, big, any compression level another git wrote, a graft
    that git cat-file ignores), and answers None, leaving it to git, for anything git refuses or
    reads otherwise: a size with a leading zero (git: "unable to parse header"; it was read
    here), a size past what a size_t holds (git dies; it raised OverflowError here), a
    header's wrong type, cut short, trailing bytes; an object in an alternate is git's."""
    root = _repo(tmp_path)
    repo = GitRepo(root)
    datas = [b"", b"x", b"hello\n" * 1000, os.urandom(300_000)]
    for level in ("0", "1", "9", "-1"):
        for data in datas:
            oid = subprocess.run(["git", "-c", f"core.looseCompression={level}", "hash-object", "-w", "--stdin"],
                                 cwd=root, input=data + level.encode(), capture_output=True,
                                 check=True).stdout.decode().strip()
            assert repo._read_loose(oid) == _git_batch(root, oid) == ("blob", data + level.encode())
    head = git(root, "rev-parse", "HEAD").strip()
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "grafts").write_text(f"{head}\n")
    assert repo._read_loose(head) == _git_batch(root, head) is not None
    refused = [b"blob 05\0hello", b"blob  5\0hello", b"blob +5\0hello", b"blob 5 \0hello",
               b"blob 99999999999999999999\0x", b"blob 9223372036854775808\0x",
               b"blob 18446744073709551615\0x", b"blobs 5\0hello", b"Blob 5\0hello",
               b"blob 5\0hello!", b"blob 5", b""]
    for inflated in refused:
        oid = _plant_loose(root, inflated)
        assert repo._read_loose(oid) is None, inflated
        if inflated != b"blob 9223372036854775808\0x":  # git prints a header it cannot keep to
            assert _git_batch(root, oid) is None, inflated
    short = _plant_loose(root, b"blob 5\0hell")  # whole, less than its header: damage (next test)
    with pytest.raises(HistoryDamagedError):
        repo._read_loose(short)
    garbage = _plant_loose(root, b"blob 5\0hello", tail=b"garbage")
    # bytes past the stream's end: git's --batch streams the blob and ignores them, so it answers
    assert repo._read_loose(garbage) is None
    assert repo.read_object(garbage) == _git_batch(root, garbage) == ("blob", b"hello")
    # an object in an alternate is git's to read
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", str(other))
    elsewhere = _git_bytes(other, "hash-object", "-w", "--stdin", input_bytes=b"elsewhere\n").decode().strip()
    (root / ".git" / "objects" / "info" / "alternates").write_text(f"{other / '.git' / 'objects'}\n")
    assert repo._read_loose(elsewhere) is None
    assert repo.read_object(elsewhere) == _git_batch(root, elsewhere) == ("blob", b"elsewhere\n")


def test_a_replaced_object_reads_as_git_reads_it(tmp_path):
    """``git replace`` (refs/replace/<id>, loose or packed): git's reads give the replacement,
    and so must vault-mem's, whose in-process reader of loose objects read the original."""
    root = _repo(tmp_path)
    repo = GitRepo(root)
    old = _git_bytes(root, "hash-object", "-w", "--stdin", input_bytes=b"old\n").decode().strip()
    new = _git_bytes(root, "hash-object", "-w", "--stdin", input_bytes=b"new\n").decode().strip()
    head = git(root, "rev-parse", "HEAD").strip()
    git(root, "commit", "-q", "--allow-empty", "-m", "second")
    second = git(root, "rev-parse", "HEAD").strip()
    git(root, "replace", old, new)
    git(root, "replace", head, second)
    assert repo.read_object(old) == _git_batch(root, old) == ("blob", b"new\n")
    git(root, "pack-refs", "--all")
    assert not (root / ".git" / "refs" / "replace" / head).exists()
    assert repo.read_object(head) == _git_batch(root, head)
    assert repo.commit_tree(head) == git(root, "rev-parse", f"{head}^{{tree}}").strip()
    git(root, "replace", "-d", old)
    assert repo.read_object(old) == _git_batch(root, old) == ("blob", b"old\n")


def test_the_refresh_of_a_copys_stat_data_stages_no_edit_that_keeps_size_and_mtime(tmp_path):
    """The attack on the copy's refresh (perf29): in a ``cp -a`` copy a person's edit that keeps
    the file's size and mtime (``touch -r``, an editor within the second) looks exactly like a
    copied file to the staleness check, and a person's ``git add`` of another edit is in the
    index. After a write: the first is still an unstaged change (git re-hashed it and kept its
    entry), the second still staged and not committed, and the write's commit holds neither."""
    from vault_mem import Vault

    with Vault.init(tmp_path / "vault") as vault:
        for i in range(24):
            vault.remember(f"fact-{i:02d}", f"Fact number {i}", "body")
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(tmp_path / "vault"), str(copy)], check=True)
    same = copy / "facts" / "fact-01.md"
    st = same.stat()
    text = same.read_text()
    same.write_text(text.replace("Fact number 1", "Fact number X"))
    os.utime(same, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert same.stat().st_size == st.st_size
    staged = copy / "facts" / "fact-02.md"
    staged.write_text(staged.read_text() + "Staged by a person.\n")
    git(copy, "add", "facts/fact-02.md")
    env = {**os.environ, "VAULT_MEM_DAEMON": "off"}
    done = subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(copy), "remember", "new-fact",
                           "--description", "Written in the copy", "--body", "b"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    untouched = "facts/fact-03.md"
    assert _recorded_inodes(copy, [untouched])[untouched] == os.lstat(copy / untouched).st_ino  # refreshed
    assert git(copy, "diff", "--cached", "--name-only") == "facts/fact-02.md\n"
    # (INDEX.md lists the person's uncommitted descriptions: unstaged too, by design)
    assert git(copy, "diff", "--name-only").split() == ["INDEX.md", "facts/fact-01.md"]
    assert "Fact number X" not in git(copy, "show", ":facts/fact-01.md")
    assert "Fact number X" not in git(copy, "show", "HEAD:facts/fact-01.md")
    assert "Staged by a person." not in git(copy, "show", "HEAD:facts/fact-02.md")
    git(copy, "fsck", "--strict", "--no-dangling")


def test_a_loose_blob_shorter_than_its_header_is_damage_not_a_hang(tmp_path):
    """A whole zlib stream that holds less than its header's size: ``git cat-file --batch``
    streams such a blob, announcing the header's size and sending what there is, then waits for
    its next question, so a read through it waited for ever (before perf29's reader and after
    it, which left the object to git). The loose reader names the damage instead. (A subprocess
    with a time-out, so that a hang fails the test rather than the run.)"""
    root = _repo(tmp_path)
    oid = _plant_loose(root, b"blob 1000\0only a few bytes")
    code = ("import sys; from vault_mem.store.git import GitRepo; from vault_mem.errors import HistoryDamagedError\n"
            "try:\n    GitRepo(sys.argv[1]).read_object(sys.argv[2])\n"
            "except HistoryDamagedError as exc:\n    print('damaged:', exc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(root), oid], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("damaged:") and oid in done.stdout and "git fsck" in done.stdout


def test_a_big_object_stored_uncompressed_is_read_by_git_as_written(tmp_path):
    """Objects of 64 KiB and more (a type folder's tree at 100k memories is ~3 MB) are stored
    as zlib's stored blocks, written in pieces (no copy of the whole object per write): real git
    reads each back byte for byte, at a block's edge too, and `git fsck --strict` finds nothing."""
    root = _repo(tmp_path)
    repo = GitRepo(root)
    for size in (65536, 65535 * 3, 65535 * 3 + 1, 1_000_003):
        data = os.urandom(size)
        oid = repo.write_object("blob", data)
        assert oid == _git_bytes(root, "hash-object", "--stdin", input_bytes=data).decode().strip()
        assert _git_bytes(root, "cat-file", "blob", oid) == data
    git(root, "fsck", "--strict", "--unreachable")
    repo.close()
