"""The store layer's reads for the layers above (vault_mem.store.history, vault_mem.store.worktree),
on real repositories."""

from __future__ import annotations

import subprocess

from conftest import git

from vault_mem.store import history, worktree
from vault_mem.store.git import GitRepo


def _repo(tmp_path):
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root, GitRepo(root)


def test_blob_versions_messages_and_blobs(tmp_path):
    root, repo = _repo(tmp_path)
    assert list(history.blob_versions(repo, ".")) == [] and history.all_commits(repo) == []
    (root / "a.md").write_text("one\n")
    git(root, "add", "a.md")
    git(root, "commit", "-q", "-m", "first\n\nwith a body")
    first = git(root, "rev-parse", "HEAD").strip()
    (root / "a.md").write_text("two\n")
    git(root, "commit", "-q", "-am", "second")
    git(root, "rm", "-q", "a.md")
    git(root, "commit", "-q", "-m", "third")
    versions = list(history.blob_versions(repo, "."))
    assert [len(changes) for _, changes in versions] == [0, 1, 1]  # newest first; a delete holds no blob
    (_, [(blob_two, path)]), (commit_one, [(blob_one, _)]) = versions[1], versions[2]
    assert path == "a.md" and commit_one == first
    missing = "0123456789" * 4
    assert history.read_blobs(repo, [blob_one, missing, blob_two]) == {blob_one: b"one\n", blob_two: b"two\n"}
    messages = dict(history.commit_messages(repo, history.all_commits(repo)))
    assert messages[first].rstrip("\n") == "first\n\nwith a body" and len(messages) == 3


def test_head_branch_is_none_on_a_detached_head(tmp_path):
    root, repo = _repo(tmp_path)
    git(root, "commit", "-q", "--allow-empty", "-m", "one")
    assert history.head_branch(repo) == "refs/heads/main" and history.head_ref(repo) == "ref: refs/heads/main"
    git(root, "checkout", "-q", "--detach")
    assert history.head_branch(repo) is None and history.head_ref(repo) == git(root, "rev-parse", "HEAD").strip()


def test_work_tree_status_ignores_and_checkout_files(tmp_path):
    root, repo = _repo(tmp_path)
    (root / "facts").mkdir()
    (root / ".gitignore").write_text("*.secret\n")
    (root / "facts" / "kept.md").write_text("kept\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    (root / "facts" / "kept.md").write_text("changed\n")
    (root / "facts" / "new.md").write_text("new\n")
    (root / "facts" / "x.secret").write_text("no\n")
    assert worktree.dirty_paths(repo, ["facts"]) == {"facts/kept.md", "facts/new.md"}
    assert worktree.ignored_paths(repo, ["facts/new.md", "facts/x.secret"]) == {"facts/x.secret"}
    assert worktree.ignored_paths(repo, []) == set()
    assert sorted(worktree.checkout_files(root / "facts")) == ["kept.md", "new.md"]
    plain = tmp_path / "plain"
    plain.mkdir()
    assert worktree.checkout_files(plain) is None  # not a git checkout: the caller walks the folder


def test_staging_area(tmp_path):
    root, repo = _repo(tmp_path)
    (root / "facts").mkdir()
    (root / "facts" / "a.md").write_text("a\n")
    worktree.stage_paths(repo, ["facts/a.md"])
    assert worktree.staged_changes(repo, ".") == [("A", "100644", "facts/a.md")]
    assert worktree.staged_files(repo, ["facts"]) == ["facts/a.md"]
    assert worktree.staged_blob(repo, "facts/a.md") == b"a\n"
    (root / "facts" / "a.md").write_text("a, edited\n")
    (root / "facts" / "b.md").write_text("b\n")
    assert worktree.unstaged_paths(repo, ["facts"]) == ["facts/a.md"]
    assert worktree.untracked_paths(repo, ["facts"]) == ["facts/b.md"]
    worktree.stage_bytes(repo, "INDEX.md", b"generated\n")
    assert worktree.staged_blob(repo, "INDEX.md") == b"generated\n" and not (root / "INDEX.md").exists()
    dest = tmp_path / "scratch"
    worktree.checkout_staged(repo, worktree.staged_files(repo, ["facts"]), dest)
    assert (dest / "facts" / "a.md").read_text() == "a\n"  # the staged version, not the work tree's


def test_config_value_and_gc(tmp_path):
    root, repo = _repo(tmp_path)
    git(root, "config", "user.name", "Ada")
    assert worktree.config_value(repo, "user.name") == "Ada"
    assert worktree.config_value(repo, "vault-mem.unset") == ""
    git(root, "commit", "-q", "--allow-empty", "-m", "one")
    assert worktree.gc_auto(repo) is None


def test_names_from_a_peer_are_shown_escaped_and_checked():
    from vault_mem.model.names import MAX_NAME_BYTES, name_trouble, shown

    assert shown("facts/editor.md") == "facts/editor.md"
    assert shown("café/日本.md") == "café/日本.md"  # printable text of any script is kept
    assert shown("\x1b[31mred\nx\u202e\\") == "\\x1b[31mred\\x0ax\\u202e\\\\"
    assert name_trouble("n" * MAX_NAME_BYTES) is None and "201 bytes" in name_trouble("n" * 201)
    assert "control" in name_trouble("a\tb") and "backslash" in name_trouble("a\\b")
    assert "dot" in name_trouble("notes.") and name_trouble("notes.md") is None


def test_case_collisions_are_found_among_and_against_paths():
    assert history.case_collision(["facts/A.md", "facts/a.md"]) == ("facts/A.md", "facts/a.md")
    # the path that would be lost, whole (sync takes that entry out), against the name it folds onto
    assert history.case_collision(["Facts/x.md"], ["facts/y.md"]) == ("facts", "Facts/x.md")
    assert history.case_collision(["caf\u00e9.md"], ["cafe\u0301.md"]) is not None  # NFC vs NFD
    assert history.case_collision(["facts/a.md", "facts/b.md"], ["facts/a.md", "facts/c.md"]) is None


def test_entry_modes_takes_any_number_of_paths(tmp_path):
    """Paths go to ls-tree in batches: 40,000 of them (~2.4 MB) would be one argv past Linux's limit."""
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.md").write_text("a")
    git(root, "add", "a.md")
    git(root, "commit", "-qm", "a")
    repo = GitRepo(root)
    paths = [f"missing/{'p' * 50}-{i}.md" for i in range(40_000)] + ["a.md", "../x"]
    assert history.entry_modes(repo, "HEAD", paths) == {"a.md": "100644"}
    (root / "b.md").write_text("bb")
    git(root, "rm", "-q", "a.md")
    git(root, "add", "b.md")
    git(root, "commit", "-qm", "b")
    entries = history.changed_entries(repo, "HEAD~1", "HEAD", ".")
    assert entries["a.md"] is None and entries["b.md"][0] == "100644"
    assert history.blob_sizes(repo, [entries["b.md"][1], "0" * 40]) == {entries["b.md"][1]: 2}


def test_whose_change_reads_the_path_literally(tmp_path):
    """``trust`` names the commit that last changed a file a peer sent (``last_change_by``); a
    name is text the peer chose, and git read ``facts/[ab].gitignore`` as a pattern, so the
    commit named for it was the later one of ``facts/a.gitignore``, a file nobody asked about.
    The one history read of "who changed this path last" (``newest_touch`` is that read over a
    range of commits, on every line of history) takes paths literally."""
    root, repo = _repo(tmp_path)
    (root / "facts").mkdir()
    (root / "facts" / "[ab].gitignore").write_text("*.tmp\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--author=Pat Peer <pat@example.com>", "-m", "bracketed")
    bracketed = git(root, "rev-parse", "HEAD").strip()
    (root / "facts" / "a.gitignore").write_text("*.bak\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--author=Other One <other@example.com>", "-m", "plain")
    assert history.last_change_by(repo, "HEAD", ["facts/[ab].gitignore"]) == (bracketed, "Pat Peer", "pat@example.com")
    assert history.newest_touch(repo, "HEAD", bracketed, "facts/[ab].gitignore") is None  # not since then


def test_the_raw_log_readers_on_adds_changes_moves_deletions_and_a_merge(tmp_path):
    """The readers of ``git log --raw`` output (blob_versions, last_authors, merge_changes,
    path_histories, introductions) on one history: a file added, changed, moved (added and deleted in one commit),
    deleted, INDEX.md changed beside them, and a merge that differs from both of its parents."""
    root, repo = _repo(tmp_path)

    def commit(message: str, email: str) -> str:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", message, f"--author=N {email[0]} <{email}>")
        return git(root, "rev-parse", "HEAD").strip()

    def blob(rev: str, path: str) -> str:
        return git(root, "rev-parse", f"{rev}:{path}").strip()

    (root / "a.md").write_text("a\n")
    (root / "INDEX.md").write_text("i1\n")
    c1 = commit("add a", "x@e")
    (root / "a.md").write_text("a2\n")
    (root / "b.md").write_text("b\n")
    (root / "INDEX.md").write_text("i2\n")
    c2 = commit("change a, add b", "y@e")
    (root / "b.md").rename(root / "c.md")
    c3 = commit("move b to c", "x@e")
    git(root, "switch", "-q", "-c", "side", c2)
    (root / "a.md").write_text("side\n")
    c4 = commit("side edit", "z@e")
    git(root, "switch", "-q", "main")
    git(root, "merge", "-q", "--no-ff", "--no-commit", "side", check=False)
    (root / "a.md").write_text("merged\n")
    c5 = commit("merge side", "y@e")
    (root / "c.md").unlink()
    c6 = commit("delete c", "z@e")

    versions = dict(history.blob_versions(repo, "."))
    assert versions[c6] == [] and versions[c3] == [(blob(c3, "c.md"), "c.md")]
    assert sorted(versions[c2]) == sorted([(blob(c2, "INDEX.md"), "INDEX.md"), (blob(c2, "a.md"), "a.md"),
                                           (blob(c2, "b.md"), "b.md")])

    touched: dict = {}
    moves: dict = {}
    found = history.last_authors(repo, c6, None, ["."], touched=touched, moves=moves)
    # the merge's own text: no commit gave it, so the newest commit that touched it stands
    assert found["a.md"] == (c4, "z@e", "N z", blob(c5, "a.md"))
    assert found["INDEX.md"] == (c2, "y@e", "N y", blob(c2, "INDEX.md")) and "c.md" not in found
    assert touched["c.md"] == {c3, c6} and touched["b.md"] == {c2, c3}
    # every commit that added or deleted a file, newest first; a merge named apart (its diff is
    # merge_changes')
    assert moves == {c1: ([("INDEX.md", blob(c1, "INDEX.md")), ("a.md", blob(c1, "a.md"))], []),
                     c2: ([("b.md", blob(c2, "b.md"))], []),
                     c3: ([("c.md", blob(c3, "c.md"))], [("b.md", blob(c2, "b.md"))]),
                     c5: None,
                     c6: ([], [("c.md", blob(c3, "c.md"))])}
    assert list(moves) == [c6, c5, c3, c2, c1]
    # the merge against its first parent: a.md changed, nothing added or deleted
    assert history.merge_changes(repo, [c5], ".") == {c5: ((c5, "y@e", "N y"), [], [])}
    since = history.last_authors(repo, c6, c3, ["a.md"], given_only=True)
    assert since == {"a.md": ("", "", "", blob(c5, "a.md"))}  # no commit vouches for the merge's text

    walks, parents = history.path_histories(repo, c6, ["a.md", "b.md"])
    assert parents[c5] == [c3, c4]
    assert [e[0] for e in walks["a.md"]] == [c5, c4, c2, c1]
    assert walks["b.md"][0] == (c3, "x@e", "N x", "") and walks["b.md"][1][3] == blob(c2, "b.md")

    intro = list(history.introductions(repo, [c6], [c1], ""))  # read as it comes
    assert [i[0] for i in intro][0] == c2 and [i[0] for i in intro][-1] == c6
    by = {i[0]: i for i in intro}
    assert sorted(by[c2][5]) == sorted([blob(c2, "a.md"), blob(c2, "b.md")])  # INDEX.md left out
    assert by[c5][5] == [blob(c5, "a.md")] and by[c5][4] == [c3, c4] and by[c6][5] == []
    assert by[c3][1:3] == ("x@e", "N x")
    repo.close()


def test_a_name_is_shadowed_unless_git_reads_a_ref_of_it_at_the_top_of_the_git_folder(tmp_path):
    """Any file of the git folder counted as a ref git takes first: a tag and a branch named
    ``config`` or ``description`` (git's own files there, no refs) were one ref, while git
    warns the name is ambiguous and takes the tag. A pseudo-ref (``ORIG_HEAD``, a symbolic
    one a tool writes) is the ref git takes: one, whatever branch or tag has its name."""
    root, repo = _repo(tmp_path)
    (root / "a.md").write_text("one\n")
    git(root, "add", "a.md")
    git(root, "commit", "-q", "-m", "first")
    first = git(root, "rev-parse", "HEAD").strip()
    for name in ("config", "description", "ORIG_HEAD", "TOOL_HEAD"):
        git(root, "branch", name)
        git(root, "tag", name)
    for stray in ("config", "description"):  # files of the git folder that hold no ref
        assert (root / ".git" / stray).is_file()
        assert history.shadowed_refs(repo, f"{stray}~0") == [f"refs/tags/{stray}", f"refs/heads/{stray}"]
        assert "ambiguous" in subprocess.run(["git", "rev-parse", stray], cwd=root, capture_output=True,
                                             text=True).stderr  # as git says it
    (root / ".git" / "ORIG_HEAD").write_text(first + "\n")
    (root / ".git" / "TOOL_HEAD").write_text("ref: refs/heads/main\n")
    assert history.shadowed_refs(repo, "ORIG_HEAD") == [] and history.shadowed_refs(repo, "TOOL_HEAD^") == []
    assert history.shadowed_refs(repo, "HEAD") == []
