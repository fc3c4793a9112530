"""Attacks on git's index made in process (vault_mem/store/gitindexfile.py, gitindex.py): a
person's git commands between two warm writes, entries this writer must not rewrite, and an
index replaced by one with the same inode, mtime and size. Real git, real files; each test
failed before its fix (revindex, 2026-12-05)."""

import os
import time
from pathlib import Path

import pytest
from conftest import git
from test_gitindexfile import AGENT, _both, _repo

from vault_mem.store.git import GitRepo
from vault_mem.store.gitindexfile import IndexFile


def _take_lower_inodes(folder: Path, ino: int) -> list[Path]:
    """Files made in ``folder`` until one gets the free inode ``ino`` (removed again): ext4 gives
    a new file the lowest free inode of its folder's group, so the next file made there gets
    ``ino``, as it would had those lower ones been taken by any file made meanwhile. Returns the
    files, to remove once that next file is made."""
    spare = []
    for n in range(20000):
        spare.append(folder / f"spare{n}")
        spare[-1].touch()
        if os.stat(spare[-1]).st_ino == ino:
            spare.pop().unlink()
            break
    return spare


def _gives_inodes_back(folder: Path) -> bool:
    """Whether a file made in ``folder`` right after one is removed gets the inode freed (ext4
    does; tmpfs, where CI's temporary folder lives, numbers inodes on and never gives one back)."""
    first, second = folder / ".inode-probe-1", folder / ".inode-probe-2"
    first.touch()
    ino = os.stat(first).st_ino
    first.unlink()
    second.touch()
    try:
        return os.stat(second).st_ino == ino
    finally:
        second.unlink()


@pytest.fixture
def reusing_tmp(tmp_path):
    """A folder on a file system that gives freed inodes back: ``tmp_path`` when its does, else
    one under /var/tmp (on disk), removed after; the attacks below need that reuse, and CI's
    ``tmp_path`` (tmpfs) never gives it, so they were skipped where they matter most."""
    import shutil
    import tempfile

    if _gives_inodes_back(tmp_path):
        yield tmp_path
        return
    for base in ("/var/tmp", os.path.expanduser("~")):
        if not os.path.isdir(base) or not os.access(base, os.W_OK):
            continue
        folder = Path(tempfile.mkdtemp(prefix="vm-inodes-", dir=base))
        try:
            if _gives_inodes_back(folder):
                yield folder
                return
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    yield tmp_path


def _write(repo: GitRepo, root: Path, path: str, text: str) -> None:
    (root / path).write_text(text)
    assert repo.commit_paths({path: text.encode(), "INDEX.md": f"index {path}\n".encode()},
                             f"remember: {path}", author=AGENT)


def test_an_index_replaced_by_one_with_the_same_inode_mtime_and_size_is_read_again(reusing_tmp):
    """The parse a warm process keeps was keyed by the index file's inode, mtime and size. A
    person's two `git add`s of same-size changes after a warm write: the second one's index
    gets the inode the first one freed (ext4 hands the lowest free one back), and on a file
    system whose mtimes are coarse (a second: ext4 with 128-byte inodes, FAT, some network file
    systems; a kernel tick elsewhere) the same mtime: same inode, mtime and size, other entries.
    The write after took the kept parse for it and installed an index without the person's
    staged changes (they were gone from `git diff --cached`, shown as unstaged). The trailing
    SHA-1 (the content's own hash) is part of the key now."""
    root = _repo(reusing_tmp / "r")
    repo = GitRepo(root)
    index = root / ".git" / "index"
    _write(repo, root, "facts/w0.md", "first write\n")  # git update-index: the process's first
    _write(repo, root, "facts/w1.md", "warm write\n")  # in process: its parse kept
    kept = os.stat(index)
    edits = [f"facts/k{i}.md" for i in range(10, 20)]  # same-size edits: "fact 10\n" -> "FACT 10\n"
    for i, path in enumerate(edits, 10):
        (root / path).write_text(f"FACT {i}\n")
        git(root, "hash-object", "-w", path)  # stored before: the adds create no object file
    staged = []
    for path in edits:  # the person's `git add`s
        # the first add frees the kept inode; before the next ones, the lower free inodes of
        # the folder's group are taken (as files made there meanwhile take them)
        spare = _take_lower_inodes(root / ".git", kept.st_ino) if staged else []
        git(root, "add", path)
        staged.append(path)
        for made in spare:
            made.unlink()
        if os.stat(index).st_ino == kept.st_ino:
            break
    else:
        pytest.skip("this file system gave the freed inode to no new index")
    assert os.stat(index).st_size == kept.st_size
    os.utime(index, ns=(kept.st_mtime_ns, kept.st_mtime_ns))  # a coarse clock: the same mtime
    _write(repo, root, "notes/w2.md", "the next warm write\n")
    assert git(root, "diff", "--cached", "--name-only").split() == staged
    assert git(root, "diff", "--name-only").split() == ["INDEX.md", *edits[len(staged):]]  # not added yet
    git(root, "fsck", "--strict")
    repo.close()


def test_an_entry_of_another_mode_is_left_to_git_when_the_file_stays_a_plain_one(tmp_path):
    """With `core.fileMode false` (a checkout on a file system without an executable bit, set
    by `git init` there), git keeps an entry's mode when it stages the file again: a person's
    `git update-index --chmod=+x` stays staged through the agent's update of that memory. The
    writer gave it 100644 (the person's staged mode change lost, not git's bytes); an entry of
    a mode other than 100644 (executable, a link with `core.symlinks false`) is git's now."""
    root = _repo(tmp_path / "r")
    git(root, "config", "core.fileMode", "false")
    git(root, "update-index", "--chmod=+x", "facts/k01.md")
    time.sleep(1.1)
    theirs, mine = _both(root, {"facts/k01.md": b"fact 1, updated by the agent\n"})
    assert "100755" in git(root, "ls-files", "-s", "facts/k01.md")
    assert mine is None or mine == theirs


def test_a_file_whose_folder_name_sorts_after_a_sibling_is_left_to_git(tmp_path):
    """A path that is a folder in the index (`facts/x.md/inner.md`) with a sibling between them
    in git's order (`facts/x.md.bak`: '.' sorts before '/'): the writer looked at the next entry
    only and added `facts/x.md` beside the folder, an index git refuses to write (a file and a
    folder of one name); `git update-index --add` refuses it. Left to git now."""
    root = _repo(tmp_path / "r")
    (root / "facts" / "x.md").mkdir()
    (root / "facts" / "x.md" / "inner.md").write_text("inner\n")
    (root / "facts" / "x.md.bak").write_text("bak\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "a folder named like a memory")
    (root / "facts" / "x.md" / "inner.md").unlink()
    (root / "facts" / "x.md").rmdir()  # gone from the disk, still in the index
    (root / "facts" / "x.md").write_text("a memory\n")
    index = root / ".git" / "index"
    parsed = IndexFile.parse(index.read_bytes(), int(os.stat(index).st_mtime))
    assert parsed is not None
    oid = git(root, "hash-object", "facts/x.md").strip()
    assert parsed.staged({"facts/x.md": (oid, os.lstat(root / "facts/x.md"))}, os.fsencode(root), 0) is None
    assert parsed.staged({"facts/x.md": (oid, None)}, os.fsencode(root), 0) is None


def test_a_racy_entry_whose_file_is_gone_is_not_smudged_as_git_does_not(tmp_path):
    """A racy entry whose file is gone from the disk (a person's `rm` not staged yet, an entry
    `git sparse-checkout` marked skip-worktree and removed within the second the index was
    written): git's smudging finds no file and leaves the entry; the writer gave it the size 0
    (not git's bytes: every such entry of a sparse checkout differed)."""
    root = _repo(tmp_path / "r")
    index = root / ".git" / "index"
    when = int(time.time()) - 5
    for name in ("facts/k05.md", "facts/k06.md"):
        os.utime(root / name, (when, when))
    git(root, "update-index", "facts/k05.md", "facts/k06.md")
    (root / "facts" / "k05.md").unlink()  # gone, not staged
    os.utime(index, (when, when))  # both entries racy
    theirs, mine = _both(root, {"notes/n01.md": b"note 1, changed\n"})
    assert mine == theirs


@pytest.mark.parametrize("how", ["assume-unchanged", "core.ignoreStat"])
def test_a_memory_git_assumes_unchanged_is_staged_as_the_write_made_it(tmp_path, how):
    """A memory whose entry is marked assume-unchanged (a person's `git update-index
    --assume-unchanged`; every file git stages under `core.ignoreStat`, the agent's own writes
    included): `git update-index --add` keeps such an entry whatever the file holds, so after
    the agent's update (a one-shot command's, git's staging) the staging area held the older
    text under the new commit, and the person's next commit of anything put it back: the
    acknowledged write undone. A warm process's write (in process) and a one-shot one both
    stage the write's blob now."""
    root = _repo(tmp_path / "r")
    path = "facts/k01.md"
    if how == "assume-unchanged":
        git(root, "update-index", "--assume-unchanged", path)
    else:
        git(root, "config", "core.ignoreStat", "true")
        GitRepo(root).commit_paths({path: b"the agent's first text\n"}, "remember", author=AGENT)
    for n, warm in enumerate((False, True, False)):
        text = f"the agent's update {n}\n"
        (root / path).write_text(text)
        if warm:
            repo = GitRepo(root)
            _write(repo, root, "notes/w.md", "a write first: the next one is warm\n")
            assert repo.commit_paths({path: text.encode()}, "remember", author=AGENT)
            repo.close()
        else:
            assert GitRepo(root).commit_paths({path: text.encode()}, "remember", author=AGENT)
        assert path not in git(root, "diff", "--cached", "--name-only"), (n, warm)
    git(root, "commit", "-qm", "the person's commit of other work", "--allow-empty")
    assert git(root, "show", f"HEAD:{path}") == "the agent's update 2\n"


def test_a_racily_clean_link_is_smudged_as_git_smudges_it(reusing_tmp):
    """A link in the repository (a person's, in a type folder) pointed elsewhere within the
    second the index was written, to a target of the same length, under the same inode (ext4
    gives the freed one back): git's smudging compares the link's target with its blob and
    gives the entry the size 0; the writer looked at plain files only, so the entry, no longer
    racy under the newer index, was trusted by its stat data and the new target never seen."""
    root = _repo(reusing_tmp / "r")
    git(root, "config", "core.trustctime", "false")
    link, index = root / "facts" / "link.md", root / ".git" / "index"
    os.symlink("k01.md", link)
    when = int(time.time()) - 5
    os.utime(link, (when, when), follow_symlinks=False)
    git(root, "add", "facts/link.md")
    ino = os.lstat(link).st_ino
    link.unlink()
    spare = _take_lower_inodes(root / "facts", ino)
    os.symlink("k02.md", link)  # the same length
    for path in spare:
        path.unlink()
    if os.lstat(link).st_ino != ino:
        pytest.skip("this file system gave the link another inode")
    os.utime(link, (when, when), follow_symlinks=False)
    os.utime(index, (when, when))
    theirs, mine = _both(root, {"notes/n01.md": b"note 1, changed\n"})
    assert mine == theirs
