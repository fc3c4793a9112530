"""How many git processes an open of a vault, and a person's commit through vault-mem's hooks,
start: counts, not times (issue 28: the suite spends two thirds of its CPU in the processes the
tests start, most of them git; each is ~1-3 ms of CPU and an exec, paid by every command).

Counted through conftest.py's ``logged_git`` (a ``git`` first on PATH that logs each start and
runs the real one), as tests/test_command_processes.py does. Real repositories, real git.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import git, git_starts


def _command(line: str) -> str:
    """The git command of a logged start, past git's own options (``-c x=y``)."""
    words = line.split()
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-c", "-C") else 1
    return words[i] if i < len(words) else ""


def _persons_commit(root: Path, name: str) -> None:
    (root / "facts" / f"{name}.md").write_text(f"---\ndescription: {name} by hand\n---\nA note.\n")
    git(root, "add", f"facts/{name}.md")
    git(root, "commit", "-q", "--no-verify", "-m", f"{name} by hand")


def test_an_open_after_head_moved_reads_what_changed_once(vault, logged_git):
    """After a person's commit moved HEAD, the open checks the paths changed since the commit it
    checked last (the tree's shapes) and names the agent files HEAD holds unapproved since then:
    both are the one ``diff-tree`` between the same two commits. It ran twice in every command,
    hook and server start after a commit, a pull or a checkout."""
    from vault_mem import Vault

    _persons_commit(vault.root, "by-hand")
    git_starts(logged_git)
    Vault(vault.root).close()
    found = git_starts(logged_git)
    assert sum(_command(line) == "diff-tree" for line in found) == 1, "\n".join(found)


def test_an_open_after_a_persons_commit_starts_no_cat_file(vault, logged_git):
    """The settings' check reads HEAD's vault.toml blob after HEAD moved: from the person's
    commit and its top tree, loose objects a commit leaves, read here as the store reads its
    own (it started a ``git cat-file --batch-check`` for that one question)."""
    from vault_mem import Vault

    _persons_commit(vault.root, "by-hand")
    git_starts(logged_git)
    Vault(vault.root).close()
    found = git_starts(logged_git)
    assert not [line for line in found if _command(line) == "cat-file"], "\n".join(found)


def _gits_blob(root: Path, commit: str, path: str) -> str | None:
    done = subprocess.run(
        ["git", "cat-file", "--batch-check"],
        cwd=root,
        input=f"{commit}:{path}\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return None if done[-1] == "missing" or done[1] == "tree" else done[0]


def test_a_blob_looked_up_in_loose_trees_is_the_one_git_names(tmp_path):
    """blob_at answers from a loose commit's small trees without git: the same answer as git's
    ``<commit>:<path>`` for a file, a nested file, a folder, a link, a submodule's entry, a
    missing name and a path through a file, loose and then packed, and through ``git replace``
    of a tree (git's answer: the replacement)."""
    from vault_mem.store.git import GitRepo

    root = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(root))
    (root / "memory" / "facts").mkdir(parents=True)
    (root / "memory" / "vault.toml").write_text("[vault]\n")
    (root / "memory" / "facts" / "a.md").write_text("a\n")
    (root / "top.txt").write_text("top\n")
    (root / "link").symlink_to("top.txt")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "first")
    first = git(root, "rev-parse", "HEAD").strip()
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{first},sub")  # a submodule's entry
    (root / "memory" / "facts" / "b.md").write_text("b\n")
    (root / "memory" / "notes").mkdir()
    for i in range(
        1200
    ):  # a tree past the size parsed here (~24 bytes an entry): git looks the path up in it
        (root / "memory" / "notes" / f"n{i}.md").write_text(f"{i}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "second")
    head = git(root, "rev-parse", "HEAD").strip()
    paths = [
        "memory/vault.toml",
        "memory/facts/a.md",
        "memory/facts/b.md",
        "memory/facts",
        "memory",
        "link",
        "sub",
        "sub/x",
        "top.txt",
        "nothing",
        "memory/nothing.md",
        "top.txt/below",
        "memory/facts/a.md/below",
        "memory//vault.toml",
        "memory/./vault.toml",
        "memory/notes/n7.md",
        "memory/notes/none.md",
    ]
    facts = git(root, "rev-parse", "HEAD:memory/facts").strip()
    for step in ("loose", "replaced", "packed"):
        if step == "replaced":  # the memory folder's tree stands for the facts folder's
            git(root, "replace", facts, git(root, "rev-parse", "HEAD:memory").strip())
        if step == "packed":
            git(root, "replace", "-d", facts)
            git(root, "repack", "-q", "-a", "-d")
            git(root, "prune-packed")
        with GitRepo(root) as repo:
            for path in paths:
                assert repo.blob_at(head, path) == _gits_blob(root, head, path), (step, path)


def test_the_memo_of_fixed_commits_stays_while_any_block_of_any_thread_uses_it(vault):
    """A daemon's sync keeps one memo of fixed commits' answers while an answer's opening, in
    another thread, uses it too (the opening's block is new here): when the opening's block
    began first, its end dropped the memo under the sync, whose questions asked git again."""
    import threading

    from vault_mem.store import history

    repo = vault.ws.repo
    sync_in, opening_done = threading.Event(), threading.Event()
    seen: list = []

    def sync() -> None:
        with history.remembered(repo):
            sync_in.set()
            opening_done.wait(30)
            seen.append(repo.history_memo)  # the memo, after the opening's block ended

    worker = threading.Thread(target=sync)
    with history.remembered(repo):  # the opening's block, first
        repo.history_memo["asked"] = "answer"
        worker.start()
        assert sync_in.wait(30)
    opening_done.set()
    worker.join(30)
    assert seen == [{"asked": "answer"}]
    assert repo.history_memo is None  # the last block out drops it
