"""git's index patched in process (vault_mem/store/gitindexfile.py): byte for byte what real
``git update-index`` writes for the same change, or left to git; and a warm process's writes
that use it leave git's staging area as git's own would (real git reads it back)."""

import os
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from conftest import git

from vault_mem.store.git import GitRepo, Identity
from vault_mem.store import gitindexfile
from vault_mem.store.gitindexfile import IndexFile

AGENT = Identity("agent smith", "agent@example.com")


def _git_bytes(cwd: Path, *args: str, env: dict | None = None, input_bytes: bytes | None = None) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, input=input_bytes, capture_output=True, check=True,
                          env={**os.environ, **(env or {})}).stdout


def _repo(root: Path, n: int = 40) -> Path:
    root.mkdir()
    git(root, "init", "-q")
    for folder in ("facts", "notes", "facts/deep"):
        (root / folder).mkdir()
    for i in range(n):
        (root / "facts" / f"k{i:02d}.md").write_text(f"fact {i}\n")
        (root / "notes" / f"n{i:02d}.md").write_text(f"note {i}\n")
    (root / "facts" / "deep" / "d.md").write_text("deep\n")
    (root / "INDEX.md").write_text("index\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")  # git writes a cache tree (TREE) here
    return root


def _both(root: Path, changes: dict[str, bytes | None], *, as_blob: tuple[str, ...] = ()) -> tuple[bytes, bytes | None]:
    """(git update-index's index, this module's) for ``changes`` made on disk ({path: bytes,
    or None: deleted}); ``as_blob`` paths are staged as their blob (``--cacheinfo``)."""
    for path, data in changes.items():
        if data is None:
            (root / path).unlink()
        elif path not in as_blob:
            (root / path).write_bytes(data)
    index = root / ".git" / "index"
    st = os.stat(index)
    theirs = root / ".git" / "index-by-git"
    shutil.copyfile(index, theirs)
    os.utime(theirs, ns=(st.st_mtime_ns, st.st_mtime_ns))  # git's racy check reads the index's own time
    oids = {p: (_git_bytes(root, "hash-object", "-w", "--stdin", input_bytes=d).decode().strip() if d is not None
                else None) for p, d in changes.items()}
    args = [a for p in as_blob for a in ("--cacheinfo", f"100644,{oids[p]},{p}")]
    _git_bytes(root, "update-index", "--add", "--remove", *args, "--", *[p for p in changes if p not in as_blob],
               env={"GIT_INDEX_FILE": str(theirs)})
    parsed = IndexFile.parse(index.read_bytes(), int(st.st_mtime))
    assert parsed is not None
    new = parsed.staged({p: (oids[p], os.lstat(root / p) if oids[p] and p not in as_blob else None) for p in changes},
                        os.fsencode(root), int(st.st_mtime))
    return theirs.read_bytes(), None if new is None else new.to_bytes()


def test_an_update_a_new_file_a_deletion_and_a_blob_are_staged_as_git_stages_them(tmp_path):
    """The same bytes as `git update-index --add --remove` (stat data, order, the cache tree with
    the changed folders invalidated, the trailing SHA-1), for a file changed, a new one sorted
    into the middle, one in a sub-folder, a deletion and INDEX.md staged as a blob; git reads it
    back as it reads its own, and `git fsck` finds nothing wrong."""
    root = _repo(tmp_path / "r")
    time.sleep(1.1)  # no entry racy: that case has its own test
    theirs, mine = _both(root, {"facts/k03.md": b"fact 3, changed\n", "facts/k10b.md": b"new\n",
                                "facts/deep/e.md": b"new deep\n", "notes/n07.md": None, "INDEX.md": b"new index\n"},
                         as_blob=("INDEX.md",))
    assert mine == theirs
    (root / ".git" / "index").write_bytes(mine)
    assert git(root, "status", "--porcelain") == ("MM INDEX.md\nA  facts/deep/e.md\nM  facts/k03.md\n"
                                                 "A  facts/k10b.md\nD  notes/n07.md\n")
    git(root, "fsck", "--strict")
    git(root, "commit", "-qm", "a person's commit of what was staged")  # the cache tree: rebuilt where invalid
    assert git(root, "show", "HEAD:facts/deep/e.md") == "new deep\n"


def test_a_racily_clean_entry_is_smudged_as_git_smudges_it(tmp_path):
    """An entry whose file changed within the second the index was written, to the same size
    and mtime (git's "racy git" case), is given the size 0 when a newer index is written, as
    git does, so git hashes it again instead of trusting it; an unchanged racy one is not."""
    root = _repo(tmp_path / "r")
    git(root, "config", "core.trustctime", "false")  # a rewrite in place keeps all else git compares
    index = root / ".git" / "index"
    when = int(time.time()) - 5
    for name in ("facts/k05.md", "facts/k06.md"):
        os.utime(root / name, (when, when))
    git(root, "update-index", "facts/k05.md", "facts/k06.md")  # their stat data, the second `when`
    (root / "facts" / "k05.md").write_bytes(b"fact X\n")  # in place: same inode and size as "fact 5\n"
    os.utime(root / "facts" / "k05.md", (when, when))
    os.utime(index, (when, when))  # the index written within that second: both entries racy
    theirs, mine = _both(root, {"notes/n01.md": b"note 1, changed\n"})
    assert mine == theirs
    smudged = git(root, "ls-files", "--debug", "facts/k05.md")
    index.write_bytes(mine)
    assert "size: 0" in git(root, "ls-files", "--debug", "facts/k05.md") and "size: 0" not in smudged
    assert "size: 0" not in git(root, "ls-files", "--debug", "facts/k06.md")
    assert " M facts/k05.md" in git(root, "status", "--porcelain")


def test_many_writes_in_small_blocks_stay_what_git_writes(tmp_path, monkeypatch):
    """Writes one after another on the index this module kept from the last one (as a warm
    process does, never parsed again), in blocks of 3 entries (blocks emptied, split, a name at
    a block's edge): random creations, updates and deletions across folders, each batch
    compared byte for byte with what `git update-index` makes of the same index."""
    monkeypatch.setattr(gitindexfile, "_BLOCK", 3)
    root = _repo(tmp_path / "r", n=12)
    time.sleep(1.1)
    rng = random.Random(29)
    index, theirs = root / ".git" / "index", root / ".git" / "index-by-git"
    kept = IndexFile.parse(index.read_bytes(), int(os.stat(index).st_mtime))
    assert kept is not None and len(kept.blocks) > 5
    splits = 0
    for step in range(40):
        tracked = git(root, "ls-files").split()
        changes: dict[str, bytes | None] = {}
        for _ in range(rng.randint(1, 5)):
            kind = rng.random()
            if kind < 0.2 and tracked:
                changes[rng.choice(tracked)] = f"updated {step}\n".encode()
            elif kind < 0.3 and len(tracked) > 5:
                changes[rng.choice(tracked)] = None
            else:
                folder = rng.choice(["facts", "facts", "notes", "facts/deep", "a", "z"])
                (root / folder).mkdir(exist_ok=True)
                changes[f"{folder}/{rng.choice('abkmnz')}{rng.randint(0, 40)}.md"] = f"new {step}\n".encode()
        changes = {p: d for p, d in changes.items() if d is not None or (root / p).exists()}
        for path, data in changes.items():
            if data is None:
                (root / path).unlink()
            else:
                (root / path).write_bytes(data)
        st = os.stat(index)
        shutil.copyfile(index, theirs)
        os.utime(theirs, ns=(st.st_mtime_ns, st.st_mtime_ns))
        _git_bytes(root, "update-index", "--add", "--remove", "--", *changes, env={"GIT_INDEX_FILE": str(theirs)})
        oids = {p: git(root, "hash-object", "-w", p).strip() if d is not None else None for p, d in changes.items()}
        new = kept.staged({p: (oids[p], os.lstat(root / p) if oids[p] else None) for p in changes},
                          os.fsencode(root), int(st.st_mtime))
        assert new is not None and new.to_bytes() == theirs.read_bytes(), step
        # the same index read back after another writer: parsed again, or from the blocks kept
        again = IndexFile.parse(theirs.read_bytes(), int(st.st_mtime), like=kept)
        whole = IndexFile.parse(theirs.read_bytes(), int(st.st_mtime))
        assert again is not None and whole is not None and again.to_bytes() == whole.to_bytes()
        assert [n for b in again.names for n in b] == [n for b in whole.names for n in b]
        assert again.racy == whole.racy and sum(b in kept.blocks for b in again.blocks) > 0
        index.write_bytes(new.to_bytes())
        new.after_written(int(os.stat(index).st_mtime))
        splits += len(new.blocks) > len(kept.blocks)
        kept = new
    assert splits and max(len(n) for n in kept.names) <= 4 * 3 and len(kept) == len(git(root, "ls-files").split())
    git(root, "fsck", "--strict")


@pytest.mark.parametrize("setup", ["split-index", "index-v4", "untracked-cache", "conflict", "skip-worktree",
                                   "executable"])
def test_what_this_writer_does_not_know_is_left_to_git(tmp_path, setup):
    """A split index, a version 4 index, an untracked cache, a path in conflict, a
    skip-worktree entry, an executable file: None (the caller runs git instead)."""
    root = _repo(tmp_path / "r")
    path = "facts/k01.md"
    if setup == "split-index":
        git(root, "update-index", "--split-index")
    elif setup == "index-v4":
        git(root, "update-index", "--index-version", "4")
    elif setup == "untracked-cache":
        git(root, "update-index", "--untracked-cache")
        git(root, "status", "--porcelain")
    elif setup == "conflict":
        blob = git(root, "rev-parse", f"HEAD:{path}").strip()
        _git_bytes(root, "update-index", "--index-info", input_bytes=(
            f"0 {'0' * 40}\t{path}\n100644 {blob} 1\t{path}\n100644 {blob} 2\t{path}\n").encode())
    elif setup == "skip-worktree":
        git(root, "update-index", "--skip-worktree", path)
    elif setup == "executable":
        (root / path).chmod(0o755)
    index = root / ".git" / "index"
    parsed = IndexFile.parse(index.read_bytes(), int(os.stat(index).st_mtime))
    if setup in ("split-index", "index-v4", "untracked-cache"):
        assert parsed is None
        return
    assert parsed is not None
    oid = git(root, "hash-object", path).strip()
    assert parsed.staged({path: (oid, os.lstat(root / path))}, os.fsencode(root), 0) is None


def test_a_warm_processs_writes_stage_in_process_as_git_would(tmp_path, monkeypatch):
    """A process's first write stages through `git update-index` (a one-shot command parses no
    index); its next ones patch the index it keeps: no `git update-index` runs, and git's
    staging area is what git's own would be: the commits' blobs, the files' stat data (no
    change shown, none staged), a person's staged change kept staged, a cache tree git accepts;
    after a person's own git command rewrote the index, the next write reads the new one."""
    root = _repo(tmp_path / "r")
    repo = GitRepo(root)
    (root / "README.md").write_text("the person's staged change\n")
    git(root, "add", "README.md")

    def write(path: str, text: str) -> str:
        (root / path).write_text(text)
        commit = repo.commit_paths({path: text.encode(), "INDEX.md": f"index {path}\n".encode()},
                                   f"remember: {path}", author=AGENT)
        assert commit
        return commit

    write("facts/w0.md", "first write\n")
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    for i in range(1, 4):
        write(f"facts/w{i}.md", f"write {i}\n")
    write("facts/k02.md", "an update\n")
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    names = [line.split('"name":"', 1)[1].split('"', 1)[0] for line in trace.read_text().splitlines()
             if '"event":"cmd_name"' in line] if trace.exists() else []
    assert "update-index" not in names, names
    assert git(root, "status", "--porcelain") == " M INDEX.md\nA  README.md\n"
    assert git(root, "diff", "--cached", "--name-only") == "README.md\n"
    for path in ("facts/w1.md", "facts/w3.md", "facts/k02.md"):
        assert "mtime: 0:0" not in git(root, "ls-files", "--debug", path)  # staged from the file
        assert git(root, "ls-files", "-s", path).split()[1] == git(root, "rev-parse", f"HEAD:{path}").strip()
    git(root, "fsck", "--strict")
    git(root, "commit", "-qm", "the person's commit")  # git's cache tree, invalidated where it changed
    assert git(root, "show", "--name-only", "--format=", "HEAD") == "README.md\n"
    write("facts/w4.md", "after the person's commit\n")  # the index git rewrote is read again
    assert git(root, "status", "--porcelain") == " M INDEX.md\n"
    assert git(root, "ls-files", "-s", "facts/w4.md").split()[1] == git(root, "rev-parse", "HEAD:facts/w4.md").strip()
    (root / "notes" / "n03.md").write_text("the person's edit\n")
    git(root, "commit", "-qam", "the person's commit -a")  # its tree from the cache tree vault-mem's write left
    assert git(root, "show", "--name-only", "--format=", "HEAD") == "INDEX.md\nnotes/n03.md\n"
    assert git(root, "status", "--porcelain") == ""
    repo.close()


def test_two_writers_of_one_repository_in_a_process_share_the_index_they_keep(tmp_path, monkeypatch):
    """Two GitRepo objects of one repository in one process (two vaults of a project, a Vault
    and a keeper) writing in turn: each one's write finds the index the other made and stages
    in process from it (the parse they share) without `git update-index` after each one's first
    write; git's status, fsck and ls-files agree."""
    root = _repo(tmp_path / "r")
    one, two = GitRepo(root), GitRepo(root)

    def write(repo: GitRepo, path: str) -> None:
        (root / path).write_text(f"{path}\n")
        assert repo.commit_paths({path: f"{path}\n".encode()}, f"remember: {path}", author=AGENT)

    write(one, "facts/one-0.md")
    write(two, "facts/two-0.md")
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    for i in range(1, 4):
        write(one, f"facts/one-{i}.md")
        write(two, f"notes/two-{i}.md")
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    names = [line.split('"name":"', 1)[1].split('"', 1)[0] for line in trace.read_text().splitlines()
             if '"event":"cmd_name"' in line] if trace.exists() else []
    assert "update-index" not in names, names
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--strict")
    one.close()
    two.close()


def test_an_entry_whose_name_is_4095_bytes_or_more_is_read_to_its_nul(tmp_path):
    """git stores a name of 4095 bytes or more with the length 0xFFF in its flags, the name then
    ending at its NUL: such an entry (staged as a blob, as a deep path) is read whole, the
    entries after it too, and a write beside it is what `git update-index` writes."""
    root = _repo(tmp_path / "r")
    long_path = "/".join(["d" * 200] * 21) + "/long.md"  # 4,228 bytes
    blob = _git_bytes(root, "hash-object", "-w", "--stdin", input_bytes=b"long\n").decode().strip()
    git(root, "update-index", "--add", "--cacheinfo", f"100644,{blob},{long_path}")
    index = root / ".git" / "index"
    parsed = IndexFile.parse(index.read_bytes(), int(os.stat(index).st_mtime))
    assert parsed is not None
    names = [n for block in parsed.names for n in block]
    assert names == [n.encode() for n in git(root, "ls-files").split("\n") if n]
    time.sleep(1.1)  # no entry racy
    theirs, mine = _both(root, {"z-after.md": b"after the long one\n", "a-before.md": b"before\n"})
    assert mine == theirs


def test_the_stat_data_sample_walks_extended_link_and_conflict_entries(tmp_path):
    """git's stat data is found stale in a ``cp -a`` copy (the inodes moved under the same sizes
    and mtimes) from a sample of the index's first entries, which steps over an extended entry
    (intent-to-add: two more flag bytes, a version 3 index), a link and a path in conflict
    (neither sampled), and is not found stale in the original; an index of another version says
    no."""
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q")
    for i in range(5):
        (root / f"f{i}.md").write_text(f"file {i}\n")
    os.symlink("f0.md", root / "b-link")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    (root / "a-new.md").write_text("intended\n")
    git(root, "add", "-N", "a-new.md")  # first in the index, extended flags
    blob = git(root, "rev-parse", "HEAD:f0.md").strip()
    _git_bytes(root, "update-index", "--index-info", input_bytes=(
        f"0 {'0' * 40}\tc-conflict.md\n100644 {blob} 1\tc-conflict.md\n100644 {blob} 2\tc-conflict.md\n").encode())
    assert (root / ".git" / "index").read_bytes()[4:8] == (3).to_bytes(4, "big")
    copy = tmp_path / "copy"
    subprocess.run(["cp", "-a", str(root), str(copy)], check=True)
    assert GitRepo(root)._stat_data_stale() is False
    assert GitRepo(copy)._stat_data_stale() is True
    git(copy, "update-index", "--index-version", "4")
    assert GitRepo(copy)._stat_data_stale() is False


def test_the_index_a_write_made_in_process_is_kept_as_its_parse(tmp_path, monkeypatch):
    """A warm process's write installs the index it made in process and keeps that very index as
    its parse of the file now in place: its next writes parse no index (only the first write
    after git's own rewrote it reads one), and git reads what they made as its own."""
    root = _repo(tmp_path / "r")
    repo = GitRepo(root)
    parses = []
    real = IndexFile.parse.__func__

    def counted(cls, data, mtime_s, *, like=None):
        parses.append(len(data))
        return real(cls, data, mtime_s, like=like)

    monkeypatch.setattr(IndexFile, "parse", classmethod(counted))
    for i in range(5):
        (root / f"facts/w{i}.md").write_text(f"write {i}\n")
        assert repo.commit_paths({f"facts/w{i}.md": f"write {i}\n".encode()}, f"remember: w{i}", author=AGENT)
    assert len(parses) == 1  # the first write is git's; the second parses what git wrote; then none
    git(root, "rm", "-q", "--cached", "facts/w0.md")  # a person's git rewrites the index (twice: as it was)
    git(root, "add", "facts/w0.md")
    (root / "facts/w5.md").write_text("write 5\n")
    assert repo.commit_paths({"facts/w5.md": b"write 5\n"}, "remember: w5", author=AGENT)
    assert len(parses) == 2
    assert git(root, "status", "--porcelain") == ""
    git(root, "fsck", "--strict")
    repo.close()
