"""Reads of a repository's history, refs and objects for the layers above the store.

Every function takes a :class:`~vault_mem.store.git.GitRepo` and runs git only through
``repo.run``, so the store layer stays the one place git is run (DESIGN §6). They read: none of
them moves a ref, writes an object the history points at, or touches the work tree.
"""

from __future__ import annotations

from collections.abc import Iterator

from vault_mem.errors import GitError
from vault_mem.store.git import GitRepo

__all__ = ["all_commits", "blob_versions", "commit_messages", "head_branch", "head_ref", "read_blobs"]

#: Commits per ``git show`` when reading messages: well under any command-line length limit.
_MESSAGES_PER_CALL = 500
_ZERO_OID = "0" * 40  # the blob side of a path that does not exist (deleted)


def blob_versions(repo: GitRepo, pathspec: str) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """Every commit reachable from any ref or the reflog that touches ``pathspec`` (relative to
    the top level), newest first, as ``(commit, [(blob id, top-level path), ...])``: the blob
    each changed path holds after that commit. Deleted paths are left out; a merge is diffed
    against each parent (git's ``-m``), so it may come once per parent. An unborn branch (no
    commit yet) has no history: nothing is yielded."""
    try:
        raw = repo.run("log", "--all", "--reflog", "--topo-order", "-m", "--no-renames", "--raw",
                       "--no-abbrev", "--format=%x1e%H", "--", pathspec, cwd=repo.toplevel)
    except GitError as exc:
        if "does not have any commits" in str(exc) or "bad default revision" in str(exc):
            return
        raise
    for block in raw.split("\x1e"):
        lines = block.strip("\n").split("\n")
        if not lines or not lines[0]:
            continue
        changes: list[tuple[str, str]] = []
        for line in lines[1:]:
            if not line.startswith(":"):
                continue
            meta, _, path = line.partition("\t")
            parts = meta.split()  # :old-mode new-mode old-blob new-blob status
            if len(parts) < 5 or parts[3] == _ZERO_OID:
                continue
            changes.append((parts[3], path))
        yield lines[0].strip(), changes


def all_commits(repo: GitRepo) -> list[str]:
    """Every commit reachable from any ref or the reflog (``git rev-list --all --reflog``)."""
    return repo.run("rev-list", "--all", "--reflog", cwd=repo.toplevel).split()


def commit_messages(repo: GitRepo, commits: list[str]) -> Iterator[tuple[str, str]]:
    """``(commit, full message)`` for each of ``commits``, a few hundred per git process."""
    for i in range(0, len(commits), _MESSAGES_PER_CALL):
        part = commits[i:i + _MESSAGES_PER_CALL]
        raw = repo.run("show", "-s", "--format=%x1e%H%x1f%B", *part, cwd=repo.toplevel)
        for rec in raw.split("\x1e"):
            commit, sep, message = rec.partition("\x1f")
            if sep:
                yield commit.strip(), message


def read_blobs(repo: GitRepo, oids: list[str]) -> dict[str, bytes]:
    """Contents of many blobs through one ``git cat-file --batch``; a missing one is left out."""
    if not oids:
        return {}
    data = repo.run("cat-file", "--batch", input=("\n".join(oids) + "\n").encode(), binary=True,
                    cwd=repo.toplevel)
    out: dict[str, bytes] = {}
    pos = 0
    for oid in oids:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) != 3:  # "<oid> missing"
            continue
        size = int(header[2])
        out[oid] = data[pos:pos + size]
        pos += size + 1
    return out


def head_branch(repo: GitRepo) -> str | None:
    """The branch HEAD points at (``refs/heads/...``), or None while HEAD is detached."""
    proc = repo.run("symbolic-ref", "-q", "HEAD", check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", "replace").strip() or None


def head_ref(repo: GitRepo) -> str:
    """What HEAD says, as written (``ref: refs/heads/main``, or a commit id while detached); ""
    when it cannot be read. Read from the file, without a git process: the daemon asks on every
    git event, to tell a branch switch from a commit."""
    try:
        return (repo.git_dir / "HEAD").read_text().strip()
    except OSError:
        return ""
