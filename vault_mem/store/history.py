"""Reads of a repository's history, refs and objects for the layers above the store.

Every function takes a :class:`~vault_mem.store.git.GitRepo` and runs git only through
``repo.run``, so the store layer stays the one place git is run (DESIGN §6). They read, except
:func:`update_ref`: none of the others moves a ref, writes an object the history points at, or
touches the work tree.
"""

from __future__ import annotations

from collections.abc import Iterator

from vault_mem.config import STATE_DIR
from vault_mem.errors import GitError
from vault_mem.store.git import GitRepo

__all__ = [
    "all_commits",
    "blob_versions",
    "changed_paths",
    "commit_messages",
    "commit_trailers",
    "commits_with_parents",
    "count_commits",
    "current_branch",
    "entry_modes",
    "first_unsafe_entry",
    "head_branch",
    "head_ref",
    "log_entries",
    "merge_base",
    "paths_in_range",
    "read_blobs",
    "remote_url",
    "resolve_commit",
    "staged_against",
    "tree_entries",
    "unsafe_entry",
    "update_ref",
]

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
    """The branch HEAD points at (``refs/heads/...``), or None while HEAD is detached (see
    :meth:`GitRepo.head_branch`, the one reading)."""
    return repo.head_branch()


def head_ref(repo: GitRepo) -> str:
    """What HEAD says, as written (``ref: refs/heads/main``, or a commit id while detached); ""
    when it cannot be read. Read from the file, without a git process: the daemon asks on every
    git event, to tell a branch switch from a commit."""
    return repo.head_said()


def log_entries(repo: GitRepo, paths: list[str], *, limit: int) -> list[tuple[str, str, str, str, str]]:
    """``(commit, date, author, subject, trailers)`` of the last ``limit`` commits that touched
    ``paths`` (top-level relative), newest first; ``trailers`` is git's unfolded trailer block."""
    fmt = "%H%x1f%as%x1f%an%x1f%s%x1f%(trailers:only,unfold)%x1e"
    out = repo.run("log", f"-n{int(limit)}", f"--format={fmt}", "--", *paths, cwd=repo.toplevel)
    entries = []
    for rec in out.split("\x1e"):
        rec = rec.strip("\n")
        if rec:
            commit, date, author, subject, trailers = (rec.split("\x1f") + [""] * 5)[:5]
            entries.append((commit, date, author, subject, trailers))
    return entries


def changed_paths(repo: GitRepo, old: str | None, new: str, pathspec: str) -> list[str]:
    """Top-level paths under ``pathspec`` that differ between commits ``old`` and ``new`` (no
    rename detection); ``old`` None: every path ``new`` holds (a root commit)."""
    out = repo.run("diff-tree", "-r", "--no-commit-id", "--no-renames", "--name-only", "-z",
                   *([old] if old else ["--root"]), new, "--", pathspec, cwd=repo.toplevel)
    return [p for p in out.split("\x00") if p]


def resolve_commit(repo: GitRepo, rev: str) -> str | None:
    """The commit id ``rev`` names, or None when it names no commit."""
    proc = repo.run("rev-parse", "-q", "--verify", f"{rev}^{{commit}}", check=False)
    return (proc.stdout.decode().strip() or None) if proc.returncode == 0 else None


def commit_trailers(repo: GitRepo, commit: str) -> str:
    """The unfolded trailer block of ``commit``'s message (``Name: value`` lines)."""
    return repo.run("log", "-1", "--format=%(trailers:only,unfold)", commit)


def merge_base(repo: GitRepo, a: str, b: str) -> str:
    """The best common ancestor of ``a`` and ``b``; "" when they share no history."""
    proc = repo.run("merge-base", a, b, check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else ""


def count_commits(repo: GitRepo, tip: str, exclude: str | None = None) -> int:
    """How many commits ``tip`` has that ``exclude`` (when given) does not."""
    return int(repo.run("rev-list", "--count", tip, *([f"^{exclude}"] if exclude else [])))


def commits_with_parents(repo: GitRepo, tip: str, base: str) -> list[list[str]]:
    """``[commit, parent, ...]`` for each commit of ``tip`` not in ``base``, oldest first."""
    out = repo.run("rev-list", "--reverse", "--topo-order", "--parents", tip, f"^{base}")
    return [line.split() for line in out.split("\n") if line.split()]


def paths_by_commit(repo: GitRepo, old: str | None, new: str, pathspec: str) -> list[tuple[str, list[str]]]:
    """``(commit, top-level paths it changed under pathspec)`` for each commit of ``new`` not in
    ``old`` (first parents; no rename detection), newest first: one git process for the range."""
    out = repo.run("log", "--format=%x1e%H", "--name-only", "--no-renames", "--diff-merges=first-parent",
                   new, *([f"^{old}"] if old else []), "--", pathspec, cwd=repo.toplevel)
    found = []
    for rec in out.split("\x1e"):
        lines = [ln for ln in rec.split("\n") if ln]
        if lines:
            found.append((lines[0], lines[1:]))
    return found


def paths_in_range(repo: GitRepo, old: str | None, new: str) -> list[str]:
    """Every top-level path that the commits of ``new`` not in ``old`` touch (first parents)."""
    out = repo.run("log", "--format=", "--name-only", "--no-renames", "--diff-merges=first-parent",
                   new, *([f"^{old}"] if old else []), cwd=repo.toplevel)
    return [p for p in out.split("\n") if p]


def current_branch(repo: GitRepo) -> str | None:
    """The short name of the branch HEAD is on (``main``), or None while HEAD is detached."""
    full = head_branch(repo)
    return full.removeprefix("refs/heads/") if full else None


def remote_url(repo: GitRepo, name: str) -> str | None:
    """The URL of the remote ``name``, or None when there is no such remote."""
    proc = repo.run("remote", "get-url", name, check=False)
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def staged_against(repo: GitRepo, commit: str, pathspec: str) -> set[str]:
    """Top-level paths under ``pathspec`` whose staged version differs from ``commit``'s."""
    out = repo.run("diff-index", "--cached", "--name-only", "-z", commit, "--", pathspec, cwd=repo.toplevel)
    return {p for p in out.split("\x00") if p}


def update_ref(repo: GitRepo, ref: str, new: str, old: str | None = None, *, message: str | None = None) -> bool:
    """Point ``ref`` at ``new``; with ``old``, only if it still points there (a compare-and-swap:
    False when it moved). The one history function that writes (a ref)."""
    args = [*(["-m", message] if message else []), ref, new, *([old] if old else [])]
    proc = repo.run("update-ref", *args, check=False)
    if proc.returncode != 0 and old is None:
        raise GitError(f"git update-ref {ref} failed: {proc.stderr.decode('utf-8', 'replace').strip()}")
    return proc.returncode == 0


def entry_modes(repo: GitRepo, commit: str, paths: list[str]) -> dict[str, str]:
    """``{top-level path: mode}`` of the entries ``commit`` holds at ``paths`` (a path it does
    not hold is left out). Paths are taken literally, never as patterns."""
    if not paths:
        return {}
    out = repo.run("--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--", *paths,
                   cwd=repo.toplevel)
    return _ls_tree_modes(out)


def tree_entries(repo: GitRepo, commit: str, pathspec: str) -> dict[str, str]:
    """``{top-level path: mode}`` of every entry ``commit`` holds under ``pathspec`` (files,
    symlinks and submodules; folders are implied by their entries)."""
    out = repo.run("--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", commit, "--", pathspec,
                   cwd=repo.toplevel)
    return _ls_tree_modes(out)


def _ls_tree_modes(out: str) -> dict[str, str]:
    """``{path: mode}`` from ``git ls-tree -z`` output."""
    modes: dict[str, str] = {}
    for rec in out.split("\x00"):
        meta, sep, path = rec.partition("\t")
        if sep:
            modes[path] = meta.split(" ", 1)[0]
    return modes


def unsafe_entry(rel: str, mode: str | None) -> str | None:
    """Why the vault-relative tree entry ``rel`` (of ``mode``) must not be taken from a commit
    vault-mem did not make, or None when it may (DESIGN §7): only regular files inside the vault,
    no ``..``/``.git``/absolute names, no symlinks or submodules, nothing under ``.vault-mem/``.
    The one home of that rule: sync's incoming trees and the tree of a fresh clone use it."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return "a path that leaves the vault"
    if any(p.lower() == ".git" for p in parts):
        return "a .git entry"
    if parts[0] == STATE_DIR:
        return f"a file in {STATE_DIR}/, which holds this machine's own state"
    if mode is not None and mode not in ("100644", "100755"):
        return {"120000": "a symlink", "160000": "a submodule"}.get(mode, f"an entry of mode {mode}")
    return None


def first_unsafe_entry(modes: dict[str, str | None], prefix: str) -> tuple[str, str] | None:
    """(vault-relative path, why) of the first entry of ``modes`` (``{top-level path: mode}``)
    that :func:`unsafe_entry` refuses, in path order, or None."""
    for top in sorted(modes):
        rel = top[len(prefix):] if prefix and top.startswith(prefix) else top
        why = unsafe_entry(rel, modes[top])
        if why:
            return rel, why
    return None


def earlier_versions(repo: GitRepo, head: str, path: str, depth: int = 100) -> dict[str, str]:
    """{blob id: commit id} of the versions ``path`` had before ``head``'s, from the last
    ``depth`` commits of ``head``'s history that changed it (``head``'s own version excluded)."""
    proc = repo.run("rev-list", f"-n{depth + 1}", head, "--", path, check=False, cwd=repo.toplevel)
    if proc.returncode != 0:
        return {}
    current = repo.blob_at(head, path)
    out: dict[str, str] = {}
    for commit in proc.stdout.decode().split():
        blob = repo.blob_at(commit, path)
        if blob is not None and blob != current:
            out.setdefault(blob, commit)
    return out
