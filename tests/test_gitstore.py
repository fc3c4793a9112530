from pathlib import Path

from conftest import git

from vault_mem.store.git import GitRepo, Identity

AGENT = Identity("agent smith", "agent@example.com")


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


def test_user_staged_and_unstaged_work_elsewhere_is_untouched(tmp_path):
    root = _repo(tmp_path)
    (root / "src.py").write_text("v1\n")
    git(root, "add", "src.py")
    git(root, "commit", "-qm", "src")
    (root / "src.py").write_text("staged v2\n")
    git(root, "add", "src.py")
    (root / "src.py").write_text("unstaged v3\n")
    (root / "new.txt").write_text("untracked\n")
    before = (git(root, "diff", "--cached"), git(root, "diff"), git(root, "status", "--porcelain"))
    repo = GitRepo(root / ".")
    (root / "mem").mkdir()
    (root / "mem" / "x.md").write_text("x\n")
    repo.commit_paths({"mem/x.md": b"x\n"}, "remember: x", author=AGENT)
    after = (git(root, "diff", "--cached"), git(root, "diff"), git(root, "status", "--porcelain"))
    assert before == after
    assert git(root, "show", "--name-only", "--format=", "HEAD").split() == ["mem/x.md"]


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
