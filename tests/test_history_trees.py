"""The history's readers of git trees (:mod:`vault_mem.store.history`: the count of what a peer's
commits change, a commit's changes outside the vault's folder) read each tree once, through the
one parser of a tree's entries (:func:`vault_mem.store.tree.tree_names`). Real git; the
repository's object reads counted by wrapping the real reader."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from conftest import app_repository, git

from vault_mem.store import history
from vault_mem.store.git import GitRepo


def _counting(repo: GitRepo) -> Counter:
    reads: Counter = Counter()
    real = repo.read_object

    def read_object(oid):
        reads[oid] += 1
        return real(oid)

    repo.read_object = read_object  # type: ignore[method-assign]
    return reads


def _line_of_commits(root: Path, folder: str, n: int) -> list[str]:
    """``n`` commits, each changing one file under ``folder``; returns their ids, oldest first."""
    made = []
    for i in range(n):
        path = root / folder / f"m{i % 3}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"version {i}\n")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", f"change {i}")
        made.append(git(root, "rev-parse", "HEAD").strip())
    return made


def test_changes_outside_reads_each_tree_once_along_a_line_of_commits(tmp_path: Path) -> None:
    """Each commit's trees on the way to the vault's folder are its parent's child's: read once
    (before, twice: each commit read as the new side, then as the next commit's parent); a vault
    two folders down is read on the way (before, the second level was asked of a (mode, id) pair)."""
    root = app_repository(tmp_path / "proj")
    start = git(root, "rev-parse", "HEAD").strip()
    made = _line_of_commits(root, "docs/memory", 12)
    repo = GitRepo(root)
    reads = _counting(repo)
    for prefix in ("docs/", "docs/memory/"):
        reads.clear()
        assert history.changes_outside(repo, start, made[-1], prefix) == []
        trees = {oid: n for oid, n in dict(reads).items() if repo.read_object(oid)[0] == "tree"}
        assert len(trees) >= 13 and max(trees.values()) == 1, (prefix, trees)
    (root / "app.py").write_text("print('bye')\n")
    git(root, "commit", "-q", "-am", "outside")
    assert history.changes_outside(repo, start, git(root, "rev-parse", "HEAD").strip(), "docs/memory/") == ["app.py"]


def test_changed_count_is_walked_once_for_the_same_commits_within_one_sync(tmp_path: Path) -> None:
    """A sync's two checks (its own count of what the remote's commits change, then the approval
    of git's files' count from the merge base: the same commits when the local branch has none of
    its own) walk the trees once; a second count from another base reuses the subtrees counted."""
    root = app_repository(tmp_path / "proj")
    start = git(root, "rev-parse", "HEAD").strip()
    made = _line_of_commits(root, "memory/notes", 5)
    repo = GitRepo(root)
    reads = _counting(repo)
    with history.remembered(repo):
        first = history.changed_count(repo, start, made[-1], 100)
        walked = sum(reads.values())
        assert history.changed_count(repo, start, made[-1], 100) == first == 3
        assert sum(reads.values()) == walked  # the same question: answered from the first walk
        history.changed_count(repo, made[0], made[-1], 100)
    trees = {oid: n for oid, n in dict(reads).items() if repo.read_object(oid)[0] == "tree"}
    assert max(trees.values()) <= 2, trees  # the new tip's trees again, against another base's
    reads.clear()
    assert history.changed_count(repo, start, made[-1], 100) == 3  # outside a sync: asked anew
    assert sum(reads.values()) > 0


def test_a_sync_walks_what_the_remotes_commits_change_once(tmp_path: Path) -> None:
    """A sync that takes a peer's commit counted what it changes twice, tree by tree (its own
    check, then the approval of git's files: the same commits when this side has none of its
    own): now once; the remote tip's root tree is read once by the two."""
    from conftest import person_and_peer

    from vault_mem import Vault
    from vault_mem.store.gitobjects import GitObjects
    from vault_mem.sync.remote import sync

    mine, peer = person_and_peer(tmp_path)
    (peer / "notes").mkdir(exist_ok=True)
    (peer / "notes" / "from-peer.md").write_text("---\ndescription: A peer's note\n---\nx\n")
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "-m", "note")
    git(peer, "push", "-q", "origin", "main")
    tip_tree = git(peer, "rev-parse", "HEAD^{tree}").strip()
    reads: Counter = Counter()
    real = GitObjects.read_object

    def read_object(self, oid):
        reads[oid] += 1
        return real(self, oid)

    GitObjects.read_object = read_object  # type: ignore[method-assign]
    try:
        with Vault(mine) as vault:
            report = sync(vault)
    finally:
        GitObjects.read_object = real  # type: ignore[method-assign]
    assert report.received == 1, report
    assert reads[tip_tree] == 1, reads[tip_tree]


def test_editing_a_tree_keeps_a_folder_stored_with_a_zero_padded_mode(tmp_path):
    """A tree may store a folder's mode as ``040000`` (old tools wrote it; a peer can): the sync's
    take-out edit (``history.edit_tree_entries``) parsed trees itself and took that entry for a
    file, so removing one entry under it dropped the whole folder, the person's files in it too.
    It reads trees with the history's one parser now (``store.tree.iter_tree``)."""
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    repo = GitRepo(root)

    def blob(text: str) -> str:
        return repo.write_object("blob", text.encode())

    def raw_tree(entries: list[tuple[bytes, bytes, str]]) -> str:
        data = b"".join(mode + b" " + name + b"\x00" + bytes.fromhex(oid) for mode, name, oid in entries)
        return repo.write_object("tree", data)

    facts = raw_tree([(b"100644", b"keep.md", blob("mine")), (b"100644", b"link.md", blob("theirs"))])
    top = raw_tree([(b"040000", b"facts", facts)])
    edited = history.edit_tree_entries(repo, top, {"facts/link.md": None})
    listed = git(root, "ls-tree", "-r", "--name-only", edited).split()
    assert listed == ["facts/keep.md"], listed
