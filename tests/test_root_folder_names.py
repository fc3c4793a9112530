"""One folder tree under two names in a peer's roots: each name's files keep their author.

The whole-vault history walks read a peer's root commit's folders once per walk
(``history.root_changes``, the saving against a merge of many roots sharing one folder). The
folders already read were kept by tree id alone, so a second root holding the same folder tree
under another name (``facts/`` beside ``preferences/``) gave its files to no one: the whole walk
(``last_authors`` of every file, what the index keeps) found no author for them while the walk of
those paths did, and a file read as no one's. Now a folder read is kept by its path and tree id.
Real git.
"""

from __future__ import annotations

import os
import subprocess

from conftest import git

from vault_mem.store import history
from vault_mem.store.git import GitRepo


def _commit(repo, tree, who, when, *parents):
    env = {**os.environ, "GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": f"{who}@x", "GIT_COMMITTER_NAME": who,
           "GIT_COMMITTER_EMAIL": f"{who}@x", "GIT_AUTHOR_DATE": f"{when} +0000", "GIT_COMMITTER_DATE": f"{when} +0000"}
    return subprocess.run(["git", "commit-tree", tree, *(a for p in parents for a in ("-p", p)), "-m", who],
                          cwd=repo, env=env, check=True, capture_output=True, text=True).stdout.strip()


def _mktree(repo, rows):
    return subprocess.run(["git", "mktree"], cwd=repo, input=rows, text=True, check=True,
                          capture_output=True).stdout.strip()


def _blob(repo, text):
    return subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo, input=text, text=True, check=True,
                          capture_output=True).stdout.strip()


def test_the_whole_walk_gives_each_name_of_one_folder_tree_its_author(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    blob = _blob(tmp_path, "---\ndescription: d\n---\nx\n")
    folder = _mktree(tmp_path, f"100644 blob {blob}\ta.md\n")
    alice = _commit(tmp_path, _mktree(tmp_path, f"040000 tree {folder}\tpreferences\n"), "alice", 1_790_000_000)
    mallory = _commit(tmp_path, _mktree(tmp_path, f"040000 tree {folder}\tfacts\n"), "mallory", 1_790_000_100)
    both = _mktree(tmp_path, f"040000 tree {folder}\tfacts\n040000 tree {folder}\tpreferences\n")
    merge = _commit(tmp_path, both, "mallory", 1_790_000_200, alice, mallory)
    git(tmp_path, "update-ref", "refs/heads/main", merge)
    repo = GitRepo(tmp_path)
    whole = history.last_authors(repo, merge, None, ["."], touched={}, moves={}, local=frozenset())
    per_path = history.last_authors(repo, merge, None, ["preferences/a.md", "facts/a.md"])
    assert per_path["preferences/a.md"][0] == alice and per_path["facts/a.md"][0] == mallory
    assert {p: v[0] for p, v in whole.items()} == {"preferences/a.md": alice, "facts/a.md": mallory}
