"""Reads of a repository's history, refs and objects for the layers above the store.

Every function takes a :class:`~vault_mem.store.git.GitRepo` and runs git only through
``repo.run``, so the store layer stays the one place git is run (DESIGN §6). They read, except
:func:`update_ref`: none of the others moves a ref, writes an object the history points at, or
touches the work tree.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import re
import threading
from collections.abc import Callable, Container, Iterable, Iterator
from pathlib import Path
from typing import NamedTuple, TypeVar

from vault_mem.config import CONFIG_FILE, STATE_DIR, TYPE_FOLDERS, disk_name, is_state_dir_name
from vault_mem.errors import GitError, HistoryDamagedError, VaultMemError
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import is_memory_path
from vault_mem.model.names import MAX_PATH_BYTES, email_key, fold, name_trouble, shown
from vault_mem.store.arrivals import PER_WORKTREE, log_files, shared_log_files
from vault_mem.store.files import PRIVATE_FILE, atomic_write, ensure_own_dir, read_own
from vault_mem.store.git import GitRepo, files_in, git_path
from vault_mem.store.gitobjects import STREAM_FROM
from vault_mem.store.provenance import given_recorded, record_given, recorded, replayed_file, replayed_from
from vault_mem.store.tree import iter_tree, tree_names

__all__ = [
    "commits_by",
    "holding_order",
    "newest_touch",
    "all_commits",
    "blob_sizes",
    "blob_versions",
    "case_collision",
    "case_twins",
    "LEAVES",
    "edit_tree_entries",
    "tree_entry",
    "changed_count",
    "MAX_INCOMING_PATHS",
    "changes_outside",
    "changed_entries",
    "changed_paths",
    "commit_messages",
    "commit_trailers",
    "commits_between",
    "commits_by_id",
    "version_commit",
    "incoming_commits",
    "commits_with_parents",
    "count_commits",
    "current_branch",
    "entry_modes",
    "first_unsafe_entry",
    "HEAD_FILES",
    "existing_commits",
    "introductions",
    "LISTED_CHANGES",
    "memory_pathspecs",
    "WideCommitError",
    "reached_first",
    "known_tips",
    "head_branch",
    "held_beside",
    "head_ref",
    "is_ancestor",
    "last_authors",
    "merge_changes",
    "log_entries",
    "merge_base",
    "read_blobs",
    "remembered",
    "remote_url",
    "resolve_commit",
    "seen_elsewhere",
    "shared_tips",
    "staged_against",
    "tree_blobs",
    "tree_entries",
    "unsafe_entry",
    "update_ref",
]

#: Commits per ``git show`` when reading messages: well under any command-line length limit.
_MESSAGES_PER_CALL = 500
#: Bytes of paths per ``git ls-tree`` command line: a tree of 100k changed paths must never
#: make one argv (Linux refuses past ~2 MB in all, 128 KB per argument: "Argument list too long")
_PATH_BYTES_PER_CALL = 64 * 1024
#: Files vault-mem keeps at the vault's top, and its folders: a peer's entry of the other kind
#: under one of these names (a folder INDEX.md, a file facts) breaks every write
_TOP_FILES = frozenset({INDEX_FILE, "vault.toml"})
_TOP_FOLDERS = frozenset(TYPE_FOLDERS.values())
_ZERO_OID = "0" * 40  # the blob side of a path that does not exist (deleted)
#: the mode :func:`changed_entries` and :func:`tree_entries` give a path that a tree names twice
#: (a malformed tree, which ``git fsck`` refuses and no git command makes): git's index takes one
#: entry and a checkout another, so the check of one (a regular file) let the other (a symlink)
#: in, and the person's git status showed a change for good
DUPLICATE = "duplicate"

_T = TypeVar("_T")
_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


@contextlib.contextmanager
def remembered(repo: GitRepo) -> Iterator[None]:
    """Within the block, answer each question about fixed commits (named by their full ids) once:
    what changed between two commits, their merge base, the commits of one not in the other.
    Such an answer never changes (the objects are content-addressed), so a sync that asks the
    same question from several checks starts one git process for it, not one per check. Shared
    by the repository's threads meanwhile (it holds only those answers); nested blocks share
    the outer one's, and blocks of several threads at once (a daemon's sync and an answer's
    opening) share one kept until the last of them ends."""
    with _MEMO_LOCK:
        repo.history_memo_users += 1
        if repo.history_memo is None:
            repo.history_memo = {}
    try:
        yield
    finally:
        with _MEMO_LOCK:
            repo.history_memo_users -= 1
            if not repo.history_memo_users:
                repo.history_memo = None


#: guards :func:`remembered`'s count of the blocks that use a repository's memo
_MEMO_LOCK = threading.Lock()


def _once(repo: GitRepo, key: tuple, ids: tuple[str | None, ...], answer: Callable[[], _T]) -> _T:
    """``answer()``, kept within :func:`remembered` when every one of ``ids`` is a full commit id."""
    memo = repo.history_memo
    if memo is None or not all(i is None or _OID.fullmatch(i) for i in ids):
        return answer()
    if key not in memo:
        memo[key] = answer()
    return memo[key]



def separators() -> tuple[str, str]:
    """A record and a field separator for one ``git log --format``, never the same twice: ASCII
    RS and US each followed by random hex. What git prints for a commit's author, email and
    message is whatever its maker wrote, RS and US included (git keeps them inside a name):
    with fixed separators a peer's author name ``M<RS><a commit of this machine><US>
    person@example.com<US>Person`` made a record of its own, and the peer's pinned memory
    passed as the person's (the sixth attack run). A peer cannot write what it cannot guess."""
    nonce = os.urandom(8).hex()  # secrets.token_hex's own source, without importing secrets (start-up time)
    return f"\x1e{nonce}", f"\x1f{nonce}"


def _walk(repo: GitRepo, *args: str, **kwargs) -> str:
    """A history read (``git log``) that answers from what is there: when it meets a missing or
    corrupt object of an older commit, what git printed up to it (newest first), the damage kept
    in :attr:`GitRepo.damage` for the notice a read gives (writes that need the whole history
    raise :class:`~vault_mem.errors.HistoryDamagedError` instead)."""
    try:
        return repo.run(*args, **kwargs)
    except HistoryDamagedError as exc:
        return repo.answer_from_what_is_there(exc)


class _RawChange(NamedTuple):
    """One path a commit changed, as ``git log --raw`` prints it (``:old-mode new-mode old-blob
    new-blob status<TAB>path``; the blobs in full with ``--no-abbrev``)."""

    old_blob: str
    new_blob: str
    status: str
    path: str


def _raw_log(out: str, rs: str, fs: str, fields: int) -> Iterator[tuple[list[str], list[_RawChange]]]:
    """Each commit's record in the output of a ``git log --raw`` whose ``--format`` starts every
    record with ``rs`` (:func:`separators`) and writes ``fields`` fields separated by ``fs``: (those
    fields, the paths it changed). A record of another shape, and a line that is no raw change,
    are passed over. The one reader of that output."""
    for rec in out.split(rs):
        lines = rec.strip("\n").split("\n")
        head = lines[0].split(fs)
        if not lines[0] or len(head) != fields:
            continue
        changes = []
        for line in lines[1:]:
            if not line.startswith(":"):
                continue
            meta, _, path = line.partition("\t")
            path = git_path(path)
            parts = meta.split()  # :old-mode new-mode old-blob new-blob status
            if len(parts) >= 5:
                changes.append(_RawChange(parts[2], parts[3], parts[4], path))
        yield head, changes


def blob_versions(repo: GitRepo, pathspec: str) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """Every commit reachable from any ref or the reflog that touches ``pathspec`` (relative to
    the top level), newest first, as ``(commit, [(blob id, top-level path), ...])``: the blob
    each changed path holds after that commit. Deleted paths are left out; a merge is diffed
    against each parent (git's ``-m``), so it may come once per parent. An unborn branch (no
    commit yet) has no history: nothing is yielded."""
    rs, fs = separators()
    try:
        raw = repo.run("log", "--all", "--reflog", "--topo-order", "-m", "--no-renames", "--raw",
                       "--no-abbrev", f"--format={rs}%H", "--", pathspec, cwd=repo.toplevel)
    except GitError as exc:
        if "does not have any commits" in str(exc) or "bad default revision" in str(exc):
            return
        raise
    for head, changes in _raw_log(raw, rs, fs, 1):
        yield head[0].strip(), [(c.new_blob, c.path) for c in changes if c.new_blob != _ZERO_OID]


def all_commits(repo: GitRepo) -> list[str]:
    """Every commit reachable from any ref or the reflog (``git rev-list --all --reflog``)."""
    return repo.run("rev-list", "--all", "--reflog", cwd=repo.toplevel).split()


def commit_messages(repo: GitRepo, commits: list[str]) -> Iterator[tuple[str, str]]:
    """``(commit, full message)`` for each of ``commits``, a few hundred per git process."""
    for i in range(0, len(commits), _MESSAGES_PER_CALL):
        part = commits[i:i + _MESSAGES_PER_CALL]
        rs, fs = separators()
        raw = repo.run("show", "-s", f"--format={rs}%H{fs}%B", *part, cwd=repo.toplevel)
        for rec in raw.split(rs):
            commit, sep, message = rec.partition(fs)
            if sep:
                yield commit.strip(), message


def read_blobs(repo: GitRepo, oids: list[str], *, each: int | None = None,
               most: int | None = None, sizes: dict[str, int] | None = None) -> dict[str, bytes]:
    """Contents of many blobs through one ``git cat-file --batch``; a missing one is left out.
    ``each``: a blob over that many bytes is left out too; ``most``: one that would take the
    contents read past that many bytes in all (in ``oids``' order). With either, the sizes are
    asked first (:func:`blob_sizes`: nothing loaded) and only what fits is read: what history's
    texts a caller reads grows with what a peer pushed, and sync's limits see only the net
    change. ``sizes``: :func:`blob_sizes` of ``oids`` when the caller asked them already (not
    asked twice)."""
    if each is not None or most is not None:
        sizes = blob_sizes(repo, oids) if sizes is None else sizes
        fits, total = [], 0
        for oid in oids:
            size = sizes.get(oid)
            if size is None or (each is not None and size > each) or (most is not None and total + size > most):
                continue
            fits.append(oid)
            total += size
        oids = fits
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


def last_commit(repo: GitRepo, paths: list[str]) -> str | None:
    """The id of the last commit that touched ``paths`` (top-level relative), or None: its id
    alone, never its message (a peer's may be megabytes, and this is asked by every command)."""
    out = _walk(repo, "log", "-n1", "--format=%H", "--", *paths, cwd=repo.toplevel).strip()
    return out or None


def last_change_by(repo: GitRepo, rev: str, paths: list[str], *, since: str | None = None,
                   full_history: bool = False) -> tuple[str, str, str] | None:
    """``(commit id, author name, author email)`` of the last commit reachable from ``rev`` (and
    not from ``since``) that changed ``paths`` (top-level relative, taken literally: a name is
    text a peer chose, and ``[ab]`` read as a pattern named another file's commit), or None:
    whose change ``vault-mem trust`` asks about. ``full_history``: on any line of history (a
    merge that took one parent's text there counts, which git's simplified history skips).
    Name and email are cut at :data:`AUTHOR_CHARS` (a peer's may be megabytes). The one read of
    who changed a path last."""
    out = _walk(repo, "--literal-pathspecs", "log", *(["--full-history"] if full_history else []), "-n1",
                f"--format=%H%x00{_who('%an')}%x00{_who('%ae')}", rev, *([f"^{since}"] if since else []),
                "--", *paths, cwd=repo.toplevel).strip("\n")
    parts = out.split("\0")
    if len(parts) != 3 or not parts[0]:
        return None
    return parts[0], parts[1].rstrip(" "), parts[2].rstrip(" ")


def newest_touch(repo: GitRepo, new: str, old: str, path: str) -> tuple[str, str] | None:
    """``(commit, author email)`` of the newest commit of ``new`` not in ``old`` that changed the
    file ``path`` on any line of history (:func:`last_change_by`), or None."""
    got = last_change_by(repo, new, [path], since=old, full_history=True)
    return (got[0], got[2]) if got else None


#: the most characters of a commit's subject a history listing reads (git cuts it, ending in
#: ".."): a peer's subject is one line of up to a commit's size (1 MiB), and `vault-mem log`
#: read, masked and printed twenty of them whole (20 MB, 16 s of CPU)
LOG_FIELD_CHARS = 1000
#: ... and of its trailer block (vault-mem's own trailers take a few hundred)
LOG_TRAILER_CHARS = 4000
#: the most characters of an author's name or email any read of history takes (the longest
#: address RFC 5321 allows): a peer's commit holds up to 1 MiB of either, and 200 such commits
#: made the authors' scan of every command hold 1 GB (``list`` after a sync)
AUTHOR_CHARS = 254


def _who(placeholder: str) -> str:
    """An author's name or email (``%an``, ``%ae``) in a git format, cut at :data:`AUTHOR_CHARS`
    by git, which pads it to that width: its reader takes the padding off (``rstrip(" ")``)."""
    return f"%<({AUTHOR_CHARS},trunc){placeholder}"


def log_entries(repo: GitRepo, paths: list[str], *, limit: int) -> list[tuple[str, str, str, str, str, str]]:
    """``(commit, date, author, subject, trailers, author email)`` of the last ``limit`` commits
    that touched ``paths`` (top-level relative), newest first; ``trailers`` is git's unfolded
    trailer block. Each text is cut by git: the subject at :data:`LOG_FIELD_CHARS`, the trailers at
    :data:`LOG_TRAILER_CHARS`, the author and email at :data:`AUTHOR_CHARS`."""
    rs, fs = separators()
    n, t = LOG_FIELD_CHARS, LOG_TRAILER_CHARS
    fmt = (f"%H{fs}%as{fs}{_who('%an')}{fs}%<({n},trunc)%s{fs}%<({t},trunc)%(trailers:only,unfold)"
           f"{fs}{_who('%ae')}{rs}")
    out = _walk(repo, "log", f"-n{int(limit)}", f"--format={fmt}", "--", *paths, cwd=repo.toplevel)
    entries = []
    for rec in out.split(rs):
        rec = rec.strip("\n")
        if rec:
            commit, date, author, subject, trailers, email = (rec.split(fs) + [""] * 6)[:6]
            # git pads what it may cut to that width: the padding goes
            entries.append((commit, date, author.rstrip(" "), subject.rstrip(" "), trailers.rstrip(" "),
                            email.rstrip(" ")))
    return entries


def last_authors(repo: GitRepo, new: str, old: str | None, paths: list[str], *, given_only: bool = False,
                 touched: dict[str, set[str]] | None = None,
                 moves: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]] | None] | None = None,
                 local: frozenset[str] | None = None) -> dict[str, tuple[str, str, str, str]]:
    """``{top-level path: (commit, author email, author name, blob)}`` for each file under ``paths``
    (folders or files, taken literally) that ``new`` holds and the commits of ``new`` not in
    ``old`` (all, when ``old`` is None) changed: the newest of those commits that gave the path
    the blob ``new`` holds (a merge brings no authorship of its own: the commit on the merged
    side that wrote the blob is found), else the newest that touched the path at all. One
    ``git log`` for the range (per 2,000 paths) and one ``git ls-tree`` per 2,000 files. With an
    older commit's object missing or corrupt, from the commits git read before it: a path whose
    last change lies beyond the damage is left out (:attr:`GitRepo.damage` says so).
    ``given_only``: a path whose blob no commit gave, or whose newest giver is not the newest
    commit that touched it (a merge brought back a text a later commit had deleted or changed),
    gets ``("", "", "", blob)``: no commit vouches for it. ``touched`` (filled in when given):
    ``{top-level path: the ids of every commit of the range that changed it}``, from the same walk.
    ``moves`` (filled in when given): ``{commit: ([(path, blob) it added], [(path, old blob) it
    deleted])}`` for each commit of the range (not a merge) that added or deleted a file, newest
    first, from the same walk (moves, seen without git's guess of renames, in one commit or split
    over two); a merge of the range is named with ``None`` (git's walk diffs no merge:
    :func:`merge_changes` says what one added and deleted). ``local`` (the commits made here),
    when given, keeps both to what a caller asks of them: ``touched`` holds per path at most one
    commit not in ``local`` (did one change it?), ``moves`` the commits in ``local``, the merges,
    and the peers' moves :class:`PeerMoves` keeps (a peer's move in one commit: its new path's
    history goes on at the old one's), their memory files alone.

    Memory: git's output is read as it comes (:meth:`~vault_mem.store.git.GitRepo.stream`), and
    what is kept per path is kept for the files ``new`` holds (one ``git ls-tree``, at the first commit):
    with ``local``, nothing grows with the number of commits of the range, only with the paths
    (a peer's push of 100,000 commits to one file held ~2.3 KB per commit before)."""
    by_blob: dict[tuple[str, str], tuple[str, str, str]] = {}
    newest: dict[str, tuple[str, str, str]] = {}
    tree: _FilesAt | None = None  # made at the walk's first commit: none, no tree asked (as before)
    # a whole vault (its folder, or "." for the repository) is asked by its memory files' pathspecs:
    # git lists a commit's changes whole before printing one, and a peer's commit adding a folder
    # that names one folder 600 times (then one deleting it: no tree checked out holds it) made
    # the next command after a sync list 360,000 paths (~600 MB)
    folder = len(paths) == 1 and (paths[0] == "." or paths[0].endswith("/"))
    if not folder and touched is None and moves is None and (own_change := repo.own_change(new)) is not None:
        # a file a commit this process made deleted: ``new`` holds nothing there, so no answer
        # (asked after an agent's ``forget``: a walk of that path's whole history for nothing)
        deleted = {path for path, _before, after in own_change[1] if after is None}
        paths = [p for p in paths if p not in deleted]
        if not paths:
            return {}
    # the peers' moves ``moves`` may still keep (a whole vault's walk: the memory files of its folder)
    peers = PeerMoves("" if not folder or paths[0] == "." else paths[0])
    own = _own_commits(repo, new, old, paths, folder)
    for record in own or ():  # commits this process made since ``old``: their records, as git's walk gives them
        if record[1]:
            tree = _FilesAt(repo, new, paths) if tree is None else tree
            _last_authors_record(*record, tree, newest, by_blob, touched, moves, local, peers)
    for i in range(0, len(paths), 2000) if own is None else ():
        if folder:
            # every commit, as with no pathspec (--full-history --sparse: none simplified away)
            magic = []
            spec = ["--full-history", "--sparse", "--", *memory_pathspecs("" if paths[0] == "." else paths[0])]
        else:
            magic, spec = ["--literal-pathspecs"], ["--", *paths[i:i + 2000]]
        rs, fs = separators()
        # a whole vault's walk reads a root commit's trees itself (root_changes: a peer's roots
        # sharing one folder, each folder once when ``local`` keeps ``touched`` to one peer's commit)
        out = repo.stream(*magic, "-c", "core.quotePath=false", "-c", f"log.showRoot={str(not folder).lower()}",
                          "log", "--no-renames", "--raw", "--no-abbrev",
                          f"--format={rs}%H{fs}{_who('%ae')}{fs}{_who('%an')}{fs}%P{fs}%T", new,
                          *([f"^{old}"] if old else []), *spec, cwd=repo.toplevel)
        listed: set[tuple[str, str]] = set()  # the folders a peer's root gave in this walk
        try:
            for text in _records(out, rs):
                for head, changes in _raw_log(text, rs, fs, 5):
                    tree = _FilesAt(repo, new, paths) if tree is None else tree
                    if folder and not head[3].split():
                        changes = root_changes(repo, head[4], "" if paths[0] == "." else paths[0],
                                               listed if local is not None and head[0] not in local else None)
                    _last_authors_record(head[:4], changes, tree, newest, by_blob, touched, moves, local, peers)
        except HistoryDamagedError as exc:  # what git read before the damage stands (as _walk's)
            repo.answer_from_what_is_there(exc)
    if not newest or tree is None:
        return {}
    held = {path: tree[path] for path in sorted(newest)}
    if given_only:
        return {path: (*by_blob[(path, blob)], blob) if by_blob.get((path, blob)) == newest[path] else ("", "", "", blob)
                for path, blob in held.items()}
    return {path: (*by_blob.get((path, blob), newest[path]), blob) for path, blob in held.items()}


def _own_chain(repo: GitRepo, new: str, old: str | None
               ) -> list[tuple[str, str, tuple[tuple[str, str | None, str | None], ...]]] | None:
    """``[(commit, parent, its changes), ...]`` newest first, from ``new`` back to ``old``, when
    every commit of the range ``old..new`` is one this process made, each on the one before
    (:meth:`~vault_mem.store.gitobjects.GitObjects.own_change`); None otherwise (git answers)."""
    if old is None:
        return None
    chain = []
    at = new
    while at != old:
        kept = repo.own_change(at)
        if kept is None or len(chain) > 64:
            return None
        chain.append((at, *kept))
        at = kept[0]
    return chain or None


def _own_commits(repo: GitRepo, new: str, old: str | None, paths: list[str], folder: bool
                 ) -> list[tuple[list[str], list[_RawChange]]] | None:
    """The records :func:`last_authors`' ``git log`` of ``new ^old`` under ``paths`` would read
    (each commit's fields and changes, newest first) when the range is commits this process
    made (:func:`_own_chain`: the authors refresh after agent writes, which read the changed
    folder's whole tree twice in git processes, ~120 ms of CPU at 100k memories, 9 at 10k);
    None when git's walk must answer: another range, or a path or an author git's output would
    print otherwise than as they are (quoted, cut)."""
    chain = _own_chain(repo, new, old)
    if chain is None:
        return None
    out = []
    for commit, parent, changes in chain:
        record = _own_record(repo, commit, parent, changes, paths, folder)
        if record is None:
            return None
        out.append(record)
    return out


def _own_record(repo: GitRepo, new: str, old: str, kept: tuple[tuple[str, str | None, str | None], ...],
                paths: list[str], folder: bool) -> tuple[list[str], list[_RawChange]] | None:
    """One commit's record for :func:`_own_commits` (None: git must print it)."""
    who = _plain_author(repo, new)
    if who is None:
        return None
    if folder:  # memory_pathspecs: the files of the folder and of the folders one below it
        top = "" if paths[0] == "." else paths[0]
        inside: Callable[[str], bool] = lambda path: path.startswith(top) and path.count("/", len(top)) <= 1  # noqa: E731
    else:
        wanted = {p.rstrip("/") or "." for p in paths}
        inside = lambda path: _under(path, wanted)  # noqa: E731
    changes = []
    for path, before, after in kept:
        if not inside(path):
            continue
        if not path.isprintable() or '"' in path or "\\" in path:
            return None  # git quotes such a name in --raw output
        changes.append(_RawChange(before or _ZERO_OID, after or _ZERO_OID,
                                  "A" if before is None else "D" if after is None else "M", path))
    return [new, *who, old], changes


#: a commit's author line, its name and email plain (:func:`_plain_author`)
_AUTHOR_LINE = re.compile(rb"author ([^<>\n]*) <([^<>\n]*)> [0-9]+ [-+][0-9]{4}")


def _plain_author(repo: GitRepo, commit: str) -> tuple[str, str] | None:
    """``(email, name)`` of ``commit``'s author as :func:`last_authors`' walk reads them (``%ae``,
    ``%an`` padded to :data:`AUTHOR_CHARS`, the padding taken off), read from the commit object;
    None when git must print them: a name or email not plain (long enough to be cut, with a
    control character or spaces around it), a commit with an ``encoding`` header."""
    try:
        kind, data = repo.read_object(commit)
    except (GitError, OSError):
        return None
    if kind != "commit":
        return None
    for line in data.split(b"\n"):
        if not line or line.startswith(b"encoding "):
            return None  # the headers ended before an author line, or git would re-encode it
        if line.startswith(b"author "):
            found = _AUTHOR_LINE.fullmatch(line)
            if found is None:
                return None
            try:
                name, email = found.group(1).decode("utf-8"), found.group(2).decode("utf-8")
            except UnicodeDecodeError:
                return None
            if any(len(x) >= AUTHOR_CHARS // 2 or not x.isprintable() or x != x.strip() or not x
                   for x in (name, email)):
                return None
            return email, name
    return None


class _FilesAt:
    """``{top-level path: blob id}`` of the files ``commit`` holds under ``paths`` (folders or
    files, literally; ``["."]``: all), for :func:`last_authors`' walk, which asks it only of the
    paths its commits changed: each answered from the commit's loose objects while they hold it
    (:meth:`~vault_mem.store.gitobjects.GitObjects.loose_blob_at`: the range of one agent write,
    which a one-shot command after it reads, listed no tree), else every file read once
    (:func:`_files_at`), as before."""

    def __init__(self, repo: GitRepo, commit: str, paths: list[str]) -> None:
        self.repo, self.commit, self.paths = repo, commit, paths
        # a folder as git's pathspec names it ("memory/") is the folder _under finds ("memory")
        self.wanted = {p.rstrip("/") or "." for p in paths}
        self.asked: dict[str, str | None] = {}
        self.every: dict[str, str] | None = None

    def get(self, path: str) -> str | None:
        if self.every is None and path not in self.asked:
            if not _under(path, self.wanted):
                self.asked[path] = None
            else:
                # a name git's words gave in another form than its bytes: git's own listing
                read, blob = (False, None) if "\ufffd" in path else self.repo.loose_blob_at(self.commit, path)
                if read:
                    self.asked[path] = blob
                else:
                    self.every = _files_at(self.repo, self.commit, self.paths)
        return self.asked[path] if self.every is None else self.every.get(path)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.get(path) is not None

    def __getitem__(self, path: str) -> str:
        blob = self.get(path)
        if blob is None:
            raise KeyError(path)
        return blob


def _files_at(repo: GitRepo, commit: str, paths: list[str]) -> dict[str, str]:
    """``{top-level path: blob id}`` of every file ``commit`` holds under ``paths`` (folders or
    files, literally; ``["."]``: all): one ``git ls-tree`` per 2,000 paths."""
    wanted = set(paths)
    # many literal paths in one ls-tree cost time in their product with the tree's size: past a
    # few, their folders are asked (as tree_blobs does) and the answer kept to what is under them
    literal = len(wanted) <= 100 or "." in wanted
    asked = sorted(wanted) if literal else sorted({p.rsplit("/", 1)[0] if "/" in p else "." for p in wanted})
    return _ls_blobs(repo, commit, asked, lambda path: literal or _under(path, wanted))


def _ls_blobs(repo: GitRepo, commit: str, asked: list[str], keep: Callable[[str], bool]) -> dict[str, str]:
    """``{top-level path: blob id}`` of the files ``commit`` holds under ``asked`` (literal
    paths or folders) that ``keep`` keeps: one ``git ls-tree`` per 2,000 of them."""
    found: dict[str, str] = {}
    for i in range(0, len(asked), 2000):
        out = repo.run("--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", commit, "--",
                       *asked[i:i + 2000], cwd=repo.toplevel)
        for entry in out.split("\x00"):
            meta, _, path = entry.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == "blob" and keep(path):
                found[path] = parts[2]
    return found


def _under(path: str, wanted: set[str]) -> bool:
    """Is ``path`` one of ``wanted`` or inside a folder of them?"""
    if "." in wanted or path in wanted:
        return True
    parts = path.split("/")
    return any("/".join(parts[:i]) in wanted for i in range(1, len(parts)))


def _last_authors_record(head: list[str], changes: Iterable[_RawChange], tree: _FilesAt,
                         newest: dict[str, tuple[str, str, str]], by_blob: dict[tuple[str, str], tuple[str, str, str]],
                         touched: dict[str, set[str]] | None,
                         moves: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]] | None] | None,
                         local: frozenset[str] | None, peers: PeerMoves) -> None:
    """One commit of :func:`last_authors`' walk (newest first) taken in."""
    who = (head[0], head[1].rstrip(" "), head[2].rstrip(" "))
    if moves is not None and len(head[3].split()) > 1:
        moves.setdefault(who[0], None)  # a merge: its changes are asked apart
    mine = local is None or who[0] in local
    keep_moves = moves is not None and (mine or peers.room())
    added: list[tuple[str, str]] = []
    deleted: list[tuple[str, str]] = []
    for c in changes:
        if c.path in tree:  # only a file the tip holds gets an answer: nothing kept for the rest
            newest.setdefault(c.path, who)
            if tree[c.path] == c.new_blob:
                by_blob.setdefault((c.path, c.new_blob), who)
        if touched is not None:
            if local is None:
                touched.setdefault(c.path, set()).add(who[0])
            elif who[0] not in local and not touched.get(c.path):
                touched[c.path] = {who[0]}
        if not keep_moves or not (mine or peers.counts(c.path)):
            continue
        if c.status[:1] == "A":
            added.append((c.path, c.new_blob))
        elif c.status[:1] == "D":
            deleted.append((c.path, c.old_blob))
        if not mine and not peers.fits(added, deleted, some=False):
            keep_moves, added, deleted = False, [], []  # a peer's commit moving more: not followed
    if moves is not None and (peers.take(added, deleted) if not mine else added or deleted):
        moves[who[0]] = (added, deleted)


#: how many peers' moves (:class:`PeerMoves`) are followed, the newest: memory stays bounded
#: whatever a peer pushes, and a move older than that is not followed (its new path's history
#: starts at the peer's commit: every line there the peer's, the safe side)
PEER_MOVES_WALKED = 32
#: a peer's commit that adds or deletes more memory files than this is not followed as a move
#: (the safe side): what refresh pairs (each added text against each deleted one, by their
#: lines) and the texts it reads stay bounded (at most 32 commits of 16 and 16 texts) whatever a
#: peer pushes
PEER_MOVE_FILES = 16


class PeerMoves:
    """The one home of the bound on the peers' moves followed, and of what it counts: a peer's
    move is a commit not made here (or a peer's merge, against its first parent) that deleted at
    least one memory file of the vault at ``prefix`` and added at least one, at most
    :data:`PEER_MOVE_FILES` of each (other files, INDEX.md, vault.toml, notes beside the memories,
    count for nothing); of those, the newest :data:`PEER_MOVES_WALKED` are followed.

    Asked in walk order, newest first, by :func:`last_authors`' walk (what ``moves`` holds of
    the commits it diffs: its memory stays bounded) and again by the refresh that pairs the
    texts (:func:`vault_mem.vault.authors._moved`), over the walk's moves and the merges' (which
    git's walk does not diff: :func:`merge_changes`): the same rule, so a move the walk did not
    keep had :data:`PEER_MOVES_WALKED` newer ones and is not followed either way. A commit that
    moved nothing a memory used up no room (32 peer's commits renaming a note after a move left
    the move unfollowed before)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.left = PEER_MOVES_WALKED

    def counts(self, path: str) -> bool:
        """Whether ``path`` (top-level) is a memory file of the vault: what a move is counted in."""
        return path.startswith(self.prefix) and is_memory_path(path[len(self.prefix):])

    def room(self) -> bool:
        """Whether a peer's move may still be followed."""
        return self.left > 0

    @staticmethod
    def fits(added: list, deleted: list, *, some: bool = True) -> bool:
        """Whether a commit adding ``added`` and deleting ``deleted`` (memory files) is within
        :data:`PEER_MOVE_FILES` of each (``some``: and a move, both non-empty)."""
        return len(added) <= PEER_MOVE_FILES and len(deleted) <= PEER_MOVE_FILES and (not some or bool(added and deleted))

    def take(self, added: list, deleted: list) -> bool:
        """Whether a peer's commit adding ``added`` and deleting ``deleted`` (its memory files)
        is a move followed; it then takes one of the room's places."""
        if self.left <= 0 or not self.fits(added, deleted):
            return False
        self.left -= 1
        return True


def merge_changes(repo: GitRepo, merges: list[str], pathspec: str
                  ) -> dict[str, tuple[tuple[str, str, str], list[tuple[str, str]], list[tuple[str, str]]]]:
    """``{merge: ((commit, author email, author name), [(path, blob) it added], [(path, old blob)
    it deleted])}`` against its first parent, of the memory files of the vault folder ``pathspec``
    (``.``: the top; :func:`memory_pathspecs`), for each of ``merges`` (what
    :func:`last_authors`' walk diffs for no merge: a file a merge commit itself added, or a move
    made inside one): one ``git diff-tree --stdin`` for all of them."""
    if not merges:
        return {}
    rs, fs = separators()
    out = _walk(repo, "-c", "core.quotePath=false", "diff-tree", "--stdin", "-r", "--raw", "--no-renames",
                "--no-abbrev", "--diff-merges=first-parent", f"--format={rs}%H{fs}{_who('%ae')}{fs}{_who('%an')}",
                "--", *memory_pathspecs("" if pathspec == "." else pathspec),
                input="".join(f"{m}\n" for m in merges).encode("ascii"), cwd=repo.toplevel)
    found: dict[str, tuple[tuple[str, str, str], list[tuple[str, str]], list[tuple[str, str]]]] = {}
    for head, changes in _raw_log(out, rs, fs, 3):
        added = [(c.path, c.new_blob) for c in changes if c.status[:1] == "A"]
        deleted = [(c.path, c.old_blob) for c in changes if c.status[:1] == "D"]
        found[head[0]] = ((head[0], head[1].rstrip(" "), head[2].rstrip(" ")), added, deleted)
    return found


def path_histories(repo: GitRepo, tip: str, paths: list[str]) -> tuple[dict[str, list[tuple[str, str, str, str]]],
                                                                         dict[str, list[str]]]:
    """Every commit of ``tip``'s whole history that changed one of the files ``paths`` (top-level,
    literally): ``({path: [(commit, author email, author name, blob or "" where it deleted the
    file), ...]}, {commit: parents})``, each path's commits children before parents
    (``--topo-order``: the commits' dates, which their authors write, order nothing). A merge
    counts only where it differs from every one of its parents: a merge that kept one side's file
    wrote nothing there, that side's commits did (a person's merge of a peer's revert of their
    edit, concluded with ``git commit``, is no word of the person's at the path: counted, it
    gave the peer's revert back as the person's). The parents are the nearest commits of the
    answer (git's parent rewriting), so which of them descends from which is read from the
    answer alone. One ``git log`` (``-m``: once per rewritten parent a merge differs from); from
    what is there when an older object is missing (:func:`_walk`)."""
    rs, fs = separators()
    out = _walk(repo, "--literal-pathspecs", "-c", "core.quotePath=false", "log", "--full-history", "--topo-order",
                "--parents", "-m", "--no-renames", "--raw", "--no-abbrev",
                f"--format={rs}%H %P{fs}{_who('%ae')}{fs}{_who('%an')}", tip, "--", *paths, cwd=repo.toplevel)
    wanted = set(paths)
    found: dict[str, list[tuple[str, str, str, str]]] = {}
    parents: dict[str, list[str]] = {}
    differs: dict[tuple[str, str], int] = {}  # (commit, path): how many of its parents it differs from
    for head, changes in _raw_log(out, rs, fs, 3):
        ids = head[0].split()
        if not ids:
            continue
        commit = ids[0]
        parents[commit] = ids[1:]
        for c in changes:
            if c.path in wanted:
                differs[(commit, c.path)] = differs.get((commit, c.path), 0) + 1
                if differs[(commit, c.path)] == 1:  # a merge: once, whichever parent it differs from
                    blob = "" if c.status.startswith("D") else c.new_blob
                    found.setdefault(c.path, []).append((commit, head[1].rstrip(" "), head[2].rstrip(" "), blob))
    # git diffs a merge against its rewritten parents (two that rewrite to one commit: once; a
    # line that never had the file: none): one that differs from fewer kept a parent's text
    found = {name: [e for e in walk if differs[(e[0], name)] >= len(parents.get(e[0], []))] for name, walk in found.items()}
    return found, parents


def holding_order(repo: GitRepo, tip: str, groups: list[list[str]]) -> dict[str, int]:
    """``{top-level path: rank}`` of the files of each group of ``groups`` (the files of one key,
    literally; ranks compare within a group) by when ``tip``'s history gave each the file it
    holds now: its last addition (``--diff-filter=A``, on the line git follows to ``tip``'s
    file), in ``--topo-order`` from the oldest (a parent before its children: the commits'
    dates, which their authors write, order nothing). Lower came first; a path no commit added
    (not committed yet, or given by a merge alone) is left out: it comes after every committed
    one. The tie-break of which file of a key is in use (:func:`vault_mem.vault.core.key_owners`):
    the one that held the key first keeps it, a second file arriving later never displaces it.
    One ``git log`` per 2,000 paths (asked only for the keys two files hold: rare); from what is
    there when an older object is missing (:func:`_walk`)."""
    rs, _fs = separators()
    order: dict[str, int] = {}
    chunk: list[str] = []
    for n, group in enumerate(groups):
        chunk += group
        if n + 1 < len(groups) and len(chunk) + len(groups[n + 1]) <= 2000:
            continue
        out = _walk(repo, "--literal-pathspecs", "-c", "core.quotePath=false", "-c", "log.showRoot=true", "log",
                    "--topo-order", "--reverse", "--no-renames", "--diff-filter=A", "--name-only",
                    f"--format={rs}%H", tip, "--", *chunk, cwd=repo.toplevel)
        wanted, chunk = set(chunk), []
        for at, rec in enumerate(out.split(rs)):
            for path in map(git_path, rec.split("\n")[1:]):
                if path in wanted:
                    order[path] = at  # the last addition: the file the path holds now
    return order


def touched_since(repo: GitRepo, old: str, new: str, paths: list[str]) -> bool:
    """True unless ``old`` is ``new``'s ancestor and no commit of ``new`` since changed any of
    the files ``paths`` (top-level, literally; every line of history, ``--full-history``)."""
    if not is_ancestor(repo, old, new):
        return True
    out = repo.run("--literal-pathspecs", "rev-list", "--full-history", "-n1", new, f"^{old}", "--", *paths,
                   cwd=repo.toplevel)
    return bool(out.strip())


def deleted_by(repo: GitRepo, new: str, old: str, paths: list[str]) -> dict[str, tuple[str, str]]:
    """``{top-level path: (commit, author email)}``: for each of ``paths`` (files, literally) that
    ``new`` lacks, the newest commit of ``new`` not in ``old`` that deleted it. One ``git log``
    per 2,000 paths."""
    found: dict[str, tuple[str, str]] = {}
    for i in range(0, len(paths), 2000):
        rs, fs = separators()
        out = repo.run("--literal-pathspecs", "-c", "core.quotePath=false", "log", "--no-renames", "--diff-filter=D",
                       "--name-only", f"--format={rs}%H{fs}{_who('%ae')}", new, f"^{old}", "--", *paths[i:i + 2000],
                       cwd=repo.toplevel)
        for rec in out.split(rs):
            lines = rec.strip("\n").split("\n")
            head = lines[0].split(fs)
            if len(head) == 2:
                for path in map(git_path, lines[1:]):
                    if path:
                        found.setdefault(path, (head[0], head[1].rstrip(" ")))
    return found


def tree_blobs(repo: GitRepo, commit: str, paths: list[str]) -> dict[str, str]:
    """``{top-level path: blob id}`` of the files ``commit`` holds at ``paths``: a few asked by
    name, many by the folders they sit in (memory files sit in a handful of type folders; many
    literal paths in one ls-tree cost time in their product with the tree's size)."""
    wanted = set(paths)
    folders = sorted({p.rsplit("/", 1)[0] + "/" if "/" in p else p for p in wanted})
    asked = sorted(wanted) if len(wanted) <= 100 else folders  # a few files: by name
    return _ls_blobs(repo, commit, asked, wanted.__contains__)


def commits_by(repo: GitRepo, tip: str, emails: set[str]) -> list[str]:
    """The commits of ``tip``'s history whose author email is one of ``emails`` (lowercase)."""
    out = repo.run("log", f"--format=%H%x1f{_who('%ae')}", tip, cwd=repo.toplevel)
    return [c for c, _, e in (line.partition("\x1f") for line in out.splitlines()) if email_key(e.rstrip(" ")) in emails]


#: the files that hold a commit id outside refs (what a fetch, merge, cherry-pick or revert left)
HEAD_FILES = ("FETCH_HEAD", "ORIG_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD")


def refs_stamp(repo: GitRepo) -> str:
    """What the commits a repository names are read from, as one value that changes when any
    of them does (a ref, a reflog, ``FETCH_HEAD``, ...), except the branch checked out and
    HEAD's log: a commit made here moves those alone, and its new texts are nobody else's, so an
    agent's write costs no scan. A commit made here from a peer's text takes that text from a
    commit that arrived by a fetch or a clone, which moved the rest (and the scan then walks the
    branch's commits too, parents first). No git process."""
    try:
        with open(os.path.join(repo.git_dir, "HEAD"), encoding="utf-8", errors="replace") as fh:
            head = fh.read().strip()
    except OSError:
        head = ""
    branch = head[len("ref: "):] if head.startswith("ref: refs/") else None
    # a stash is never a first author (:func:`known_tips`): its moves need no scan
    skip = {os.path.join(repo.git_dir, "logs", "HEAD"), os.path.join(repo.common_dir, "refs", "stash"),
            os.path.join(repo.common_dir, "logs", "refs", "stash")}
    if branch:
        skip |= {os.path.join(repo.common_dir, *branch.split("/")),
                 os.path.join(repo.common_dir, "logs", *branch.split("/"))}
    parts: list[str] = [head]
    with contextlib.suppress(OSError):  # the commits the replay check kept named (shared_tips)
        st = os.stat(replayed_file(repo.common_dir))
        parts.append(f"{replayed_file(repo.common_dir)}:{st.st_mtime_ns}:{st.st_size}")
    for base in dict.fromkeys([repo.git_dir, repo.common_dir]):
        for name in ("packed-refs", *HEAD_FILES):
            try:
                st = os.stat(os.path.join(base, name))
                parts.append(f"{base}/{name}:{st.st_mtime_ns}:{st.st_size}")
            except OSError:
                continue
        for top in ("refs", "logs"):
            for folder, _dirs, files in os.walk(os.path.join(base, top)):
                for name in files:
                    if os.path.join(folder, name) in skip:
                        continue
                    try:
                        st = os.stat(os.path.join(folder, name))
                    except OSError:
                        continue
                    parts.append(f"{folder}/{name}:{st.st_mtime_ns}:{st.st_size}")
    return hashlib.sha256("\n".join(sorted(parts)).encode("utf-8", "surrogateescape")).hexdigest()


def _logged(paths: list[str]) -> list[str]:
    """Every commit id the ref logs ``paths`` name (each entry's old and new value)."""
    names: list[str] = []
    for path in paths:
        try:
            with open(path, encoding="ascii", errors="replace") as fh:
                for line in fh:
                    names += [w for w in line.split(" ", 2)[:2] if w.strip("0")]
        except OSError:
            continue
    return names


def _commits(repo: GitRepo, names: list[str]) -> list[str]:
    """The commits ``names`` are (tags peeled; ids of anything else, or of nothing here, left out)."""
    wanted = [n for n in dict.fromkeys(names) if len(n) in (40, 64) and all(c in "0123456789abcdef" for c in n)]
    if not wanted:
        return []
    out = repo.run("cat-file", "--batch-check=%(objectname) %(objecttype)", cwd=repo.toplevel,
                   input="".join(f"{n}^{{commit}}\n" for n in wanted).encode("ascii"))
    return list(dict.fromkeys(w[0] for w in (line.split() for line in out.splitlines())
                              if len(w) == 2 and w[1] == "commit"))


def _refs(repo: GitRepo) -> tuple[list[str], list[str]]:
    """The refs' commits (or tags): (the shared refs', this worktree's own refs'); never the stash's."""
    shared: list[str] = []
    own: list[str] = []
    for line in repo.run("for-each-ref", "--format=%(objectname) %(refname)", cwd=repo.toplevel).splitlines():
        oid, _, ref = line.partition(" ")
        if ref != "refs/stash":
            (own if ref.startswith(tuple(f"refs/{name}/" for name in PER_WORKTREE)) else shared).append(oid)
    return shared, own


def _main_head(repo: GitRepo) -> list[str]:
    """The main worktree's HEAD when it names a commit itself (detached)."""
    try:
        with open(os.path.join(repo.common_dir, "HEAD"), encoding="ascii", errors="replace") as fh:
            head = fh.read().strip()
    except OSError:
        return []
    return [head]


def _tip_names(repo: GitRepo, *, own: bool) -> list[str]:
    """What :func:`shared_tips` (``own=False``) and :func:`known_tips` (``own=True``: this
    worktree's own refs, logs and head files too) read, in that order: the names, not yet commits."""
    shared, mine = _refs(repo)
    names = shared + (mine if own else []) + _main_head(repo) + \
        _logged(log_files(repo) if own else shared_log_files(repo)) + replayed_from(repo.common_dir)
    return names + (repo.head_files(*HEAD_FILES) if own else [])


def shared_tips(repo: GitRepo) -> list[str]:
    """The commits every worktree names alike: the shared refs (remote-tracking ones included,
    tags peeled; not ``refs/stash``, nor a worktree's own ``refs/bisect/``...), the main
    worktree's HEAD, and the logs of both (:func:`~vault_mem.store.arrivals.shared_log_files`).
    And the commits the replay check found a recorded pick's texts in, not made here
    (:data:`~vault_mem.store.provenance.REPLAYED_FROM`): a branch deleted, or a worktree removed,
    before the origins read the repository would otherwise leave those texts first seen in the
    pick. The one home of "a commit whose texts existed before": post-commit's replay check
    (:data:`vault_mem.store.hooks.RECORD`) counts a text a pick or revert leaves as existing
    before it only in these commits, and the texts' origins (:func:`known_tips`) read every one
    of them, from whichever worktree the vault is read. A linked worktree's HEAD, its log and
    its ``FETCH_HEAD`` are not among them: the origins read a linked worktree's only when the
    vault is read there, and ``git worktree remove`` deletes them, so a text only they held
    would be no one's first there and become the pick's, made here."""
    return _commits(repo, _tip_names(repo, own=False))


def known_tips(repo: GitRepo) -> list[str]:
    """Every commit this repository names, read from this worktree: :func:`shared_tips`, and this
    worktree's own (its log of HEAD, its ``refs/bisect/``... and their logs, what a fetch or an
    operation under way left in its git folder: ``FETCH_HEAD``, ...): the commits a person can
    take text from with git. Not ``refs/stash`` and its log: a stash holds the person's own
    edits in commits no hook records, which would then pass for someone else's. Anything that
    is not a commit (a tag of a tree or a blob) is left out."""
    return _commits(repo, _tip_names(repo, own=True))


#: under the repository's vault-mem folder: what :func:`seen_elsewhere` walked, per blob
SEEN_ELSEWHERE = "seen-elsewhere.json"
_SEEN_MAX_BYTES = 1 << 24  # the record's largest size read: four blobs' walked tips and holders
_SEEN_KEPT = 4  # the blobs it keeps (one file waits at a time; the person's edits are new blobs)


def seen_elsewhere(repo: GitRepo, blob: str, prefix: str) -> bool:
    """Did a commit not made on this machine (:mod:`vault_mem.store.provenance`'s record) ever
    give ``blob`` to a path of the vault at ``prefix`` (its top files, its memory files:
    :func:`memory_pathspecs`, which git lists of any commit in bounded memory), among the commits
    this repository names (:func:`known_tips`), or as :func:`given_elsewhere` found before? Then
    those bytes arrived from elsewhere, whoever puts them in the work tree. What gives bytes is
    :func:`_givers`' one rule (a commit that takes them away, a peer's change from the person's
    file, is no source of them: mendatk; a merge that takes them over a parent's change, a
    peer's put-back made as a merge, is). Asked only for a file that is not approved yet; the
    commits walked are kept per blob (:data:`SEEN_ELSEWHERE`), so each Vault open while the file
    waits walks only the commits that came since (a 100,000-commit history: once); what was
    found is kept in :data:`~vault_mem.store.provenance.GIVEN_ELSEWHERE`, whatever refs go."""
    local = recorded(repo.common_dir)[1]
    given = given_recorded(repo.common_dir)
    if given is None or any(b == blob and t.startswith(prefix) and c not in local for c, t, b in given):
        return True  # (a record past its cap holds every file: the safe side)
    path = replayed_file(repo.common_dir).with_name(SEEN_ELSEWHERE)
    kept = _seen_kept(path)
    entry = kept.get(f"{prefix}\0{blob}") or {}
    # the code before mendatk33b kept what it found in "holders" (and walked past it since): carried
    # into the record, or an upgrade forgot a peer's put-back held before it
    held = [c for c in entry.get("holders", []) if c not in local]
    if held:
        with contextlib.suppress(OSError, VaultMemError):
            record_given(repo.common_dir, [(c, prefix, blob) for c in held])
        return True
    tips = known_tips(repo)
    if not tips:
        return False
    walked = _commits(repo, entry.get("walked", []))
    if not set(tips) - set(walked):
        return False
    givers, guessed = _givers(repo, tips, walked, memory_pathspecs(prefix), blob=blob)
    # one line per commit and blob under the vault (the vault's prefix stands for the path): a
    # commit naming the bytes at 100,000 paths adds one line, not 100,000 (mendatk33b)
    found = list(dict.fromkeys((c, prefix, b) for c, t, b in givers if c not in local and (c, t, b) not in guessed))
    sure = list(found)
    found += [(c, prefix, b) for c, _t, b in guessed if c not in local]
    try:  # kept before the walk's record, which counts on it: what was found stays named
        record_given(repo.common_dir, sure)
    except (OSError, VaultMemError):
        return bool(found)  # and the walk is not kept: the next open walks again
    if len(found) > len(sure):  # a guess past the cap is held for this walk only: nor is the walk kept
        return True
    kept.pop(f"{prefix}\0{blob}", None)
    kept[f"{prefix}\0{blob}"] = {"walked": tips, "holders": []}
    with contextlib.suppress(OSError, VaultMemError):  # a record is a cache: the walk stands without it
        ensure_own_dir(path.parent)
        atomic_write(path, json.dumps(dict(list(kept.items())[-_SEEN_KEPT:])).encode("utf-8"), mode=PRIVATE_FILE)
    return bool(found)


def given_elsewhere(repo: GitRepo, files: dict[str, str]) -> set[str]:
    """Those of ``files`` (``{top-level path: blob}``) whose bytes a commit not made on this
    machine gave that path (:func:`_givers`' rule), among the commits this repository names
    (:func:`known_tips`) or as found before (:data:`~vault_mem.store.provenance.GIVEN_ELSEWHERE`,
    where each one found is kept): the bytes arrived from elsewhere, whoever committed them
    since. A person's `git checkout origin/main -- .` and `git commit -a` made a peer's
    `.claude/settings.json` a commit made here (atk33); once found, a peer's deleting its branch
    and the person's `git fetch --prune`, or a `git fetch URL` whose FETCH_HEAD the next fetch
    replaced, no longer makes it so (mendatk33). One ``git log`` of the paths named, literally,
    per 2,000 paths (asked only for the few files a commit made here left that take approval,
    when HEAD's listing puts them to the rule again)."""
    if not files:
        return set()
    local = recorded(repo.common_dir)[1]
    given = given_recorded(repo.common_dir)
    if given is None:
        return set(files)  # a record past its cap holds every file: the safe side
    found = {t for c, t, b in given if c not in local and files.get(t) == b}
    tips = known_tips(repo)
    rest = sorted(set(files) - found)
    if not tips or not rest:
        return found
    new: list[tuple[str, str, str]] = []
    guessed: set[tuple[str, str, str]] = set()
    for i in range(0, len(rest), 2000):
        givers, past_cap = _givers(repo, tips, [], rest[i:i + 2000], files=files)
        new += [g for g in givers if g[0] not in local]
        guessed |= past_cap
    with contextlib.suppress(OSError, VaultMemError):  # what the walk found stands without its record
        record_given(repo.common_dir, [g for g in new if g not in guessed])  # a guess held for this walk only
    return found | {t for _, t, _ in new}


def _seen_kept(path: Path) -> dict:
    """:func:`seen_elsewhere`'s record (empty when there is none or it is not its shape: a link
    there, a file too big, one nested too deep for the parser). Read as vault-mem's own records
    are (:func:`~vault_mem.store.files.read_own`: never through a link); it is a cache, so
    anything odd is no record, never an error of every Vault open."""
    try:
        data = read_own(path, max_bytes=_SEEN_MAX_BYTES + 1)
        if data is None or len(data) > _SEEN_MAX_BYTES:
            return {}
        kept = json.loads(data)
    except (OSError, ValueError, RecursionError, VaultMemError):
        return {}
    if not isinstance(kept, dict):
        return {}
    return {k: v for k, v in kept.items() if isinstance(k, str) and isinstance(v, dict)
            and all(isinstance(v.get(f), list) and all(isinstance(c, str) for c in v[f]) for f in ("walked", "holders"))}


def _givers(repo: GitRepo, tips: list[str], walked: list[str], pathspecs: list[str], *, blob: str | None = None,
            files: dict[str, str] | None = None) -> tuple[list[tuple[str, str, str]], set[tuple[str, str, str]]]:
    """``(commit, top-level path, blob)`` for each commit reachable from ``tips``, not from
    ``walked``, that gave a path of ``pathspecs`` the bytes ``blob`` (or, ``files``: the path
    named there (literally) its blob): the one home of "which commit gave these bytes" for
    :func:`given_elsewhere` and :func:`seen_elsewhere`. A commit gives the bytes its change
    leaves at a path; a merge gives them when they are in none of its parents (a peer's "evil
    merge"), or when it takes them over a parent's change (a parent whose version is neither
    those bytes nor the merge base's: a peer's put-back of the person's older vault.toml made as
    a merge, mendatk), never when it carries them from the parent that changed them (a peer's
    plain `git pull` merging the person's own file into its line: atk33). A merge of more than two
    parents that carries them from some parents while others differ there gives them (its merge
    base, the common ancestor of all, hides one parent's change: a peer's octopus put-back of the
    person's deleted hooks, mendatk33b; git makes no octopus merge of two changes to one path, so
    the person's own rarely meet it). Second: those counted as giving only because past
    :data:`_MOST_BASES` lookups (a guess on the safe side, which callers never keep). git's own options
    fixed whatever the person's configuration (``log.showRoot``, ``log.diffMerges``:
    :data:`~vault_mem.store.git.FIXED_CONFIG`)."""
    rs, fs = separators()
    literal = ["--literal-pathspecs"] if files is not None else []
    out = repo.run(*literal, "-c", "core.quotePath=false", "log", "--stdin", "--no-renames", "-m", "--raw",
                   "--no-abbrev", f"--format={rs}%H{fs}%P", "--full-history",
                   *([f"--find-object={blob}"] if blob else []), "--", *pathspecs,
                   input="".join([*(f"{c}\n" for c in tips), *(f"^{c}\n" for c in walked)]).encode("ascii"),
                   cwd=repo.toplevel)
    # per commit: its parents, and per (path, bytes after) the versions of the parents it differs from
    seen: dict[str, tuple[list[str], dict[tuple[str, str], list[str]]]] = {}
    for record in out.split(rs)[1:]:
        lines = record.splitlines()
        commit, _, parents = lines[0].partition(fs)
        entry = seen.setdefault(commit.strip(), (parents.split(), {}))
        for line in lines[1:]:
            meta, tab, name = line.partition("\t")
            words = meta.split()  # ":old-mode new-mode old-blob new-blob status"
            if not tab or len(words) < 4 or not words[0].startswith(":"):
                continue
            top = git_path(name)
            if (blob is not None and words[3] == blob) or (files is not None and files.get(top) == words[3]):
                entry[1].setdefault((top, words[3]), []).append(words[2])
    found: list[tuple[str, str, str]] = []
    guessed: set[tuple[str, str, str]] = set()
    asked = 0
    for commit, (parents, changed) in seen.items():
        for (top, new), olds in changed.items():
            if len(parents) != 2 or len(olds) >= len(parents):
                found.append((commit, top, new))
                continue
            # a merge base per merge that carried the bytes from one side: past _MOST_BASES of
            # them (a peer's thousands of merges of the person's file), the rest count as giving
            asked += 1
            if asked > _MOST_BASES:
                guessed.add((commit, top, new))
                found.append((commit, top, new))
            elif _over_a_change(repo, parents, top, olds):
                found.append((commit, top, new))
    return list(dict.fromkeys(found)), guessed


#: merges whose merge base :func:`_givers` asks for in one walk (one git process each); past
#: them a merge that carried the bytes from one side counts as giving them for that walk only
#: (the safe side; never written to the record, so a false alarm lasts while the walk meets it)
_MOST_BASES = 64


def _over_a_change(repo: GitRepo, parents: list[str], top: str, olds: list[str]) -> bool:
    """Whether a merge of two ``parents`` that left at ``top`` one parent's bytes, not the other's
    ``olds``, took them over a change of that other parent: one of ``olds`` is not what a merge
    base held there (no merge base: none held it)."""
    try:
        bases = repo.run("merge-base", "--all", *parents,
                         cwd=repo.toplevel, check=False)
        bases = bases.stdout.decode("ascii", "replace").split() if bases.returncode == 0 else []
    except GitError:
        return True
    held = {_blob_or_none(repo, b, top) or _ZERO_OID for b in bases} or {_ZERO_OID}
    return any(old not in held or len(held) > 1 for old in olds)


def _blob_or_none(repo: GitRepo, commit: str, top: str) -> str | None:
    """The blob at ``top`` in ``commit``, None when there is none (or it cannot be told)."""
    try:
        return repo.blob_at(commit, top)
    except GitError:
        return None


def existing_commits(repo: GitRepo, ids: list[str]) -> list[str]:
    """Those of ``ids`` that are commits in the repository (a pruned reflog's are gone)."""
    if not ids:
        return []
    present = repo.run("cat-file", "--batch-check=%(objectname) %(objecttype)", input="".join(
        f"{c}\n" for c in ids).encode("ascii"), cwd=repo.toplevel)
    return [w[0] for w in (line.split() for line in present.splitlines()) if len(w) == 2 and w[1] == "commit"]


def _records(pieces: Iterable[bytes], rs: str, max_lines: int | None = None) -> Iterator[str]:
    """The text of ``pieces`` (a git output read as it comes) cut into runs of whole records:
    each run ends before a record separator ``rs``, so a record is never split. Where git stops
    at damaged history, what it printed is yielded before the error is raised.

    With ``max_lines``, a record is never held whole past that many lines (and one piece of
    git's output): once the text since the last cut holds more, it is yielded up to its last
    line end, and what follows goes on as a record of its own under the same first line (the
    record's head: its separator and fields). A wide record (a commit listing any number of
    changes) comes as several, each with the head, each change in one of them whole."""
    sep = rs.encode("ascii")
    held: list[bytes] = []  # the pieces since the last cut (a long record: many, joined once)
    lines = 0  # line ends in ``held``, counted only with ``max_lines``
    tail = b""  # the output's last bytes, fewer than a separator's: one may start there
    try:
        for piece in pieces:
            window = tail + piece
            tail = window[max(0, len(window) + 1 - len(sep)):]
            held.append(piece)
            cut = window.rfind(sep)
            if cut < 0:
                if max_lines is not None:
                    lines += piece.count(b"\n")
                    if lines > max_lines:
                        text, held = _split_wide(b"".join(held))
                        yield text
                        lines = held[0].count(b"\n")
                continue
            joined = b"".join(held)
            at = len(joined) - len(window) + cut
            if at > 0:
                yield joined[:at].decode("utf-8", "replace")
            held = [joined[at:]]
            if max_lines is not None:
                lines = held[0].count(b"\n")
                if lines > max_lines:
                    text, held = _split_wide(held[0])
                    yield text
                    lines = held[0].count(b"\n")
    except HistoryDamagedError:
        # git stopped at damage: what it printed before is an answer (as _walk's ``partial``)
        if held:
            yield b"".join(held).decode("utf-8", "replace")
        raise
    if held:
        yield b"".join(held).decode("utf-8", "replace")


def _split_wide(text: bytes) -> tuple[str, list[bytes]]:
    """One record's text (its head line first, more than :func:`_records`' ``max_lines`` lines,
    no record separator after its start) cut at its last line end: (the part before, to yield;
    [its head line and the partial line after, held as a record of its own])."""
    head = text[:text.index(b"\n") + 1]
    end = text.rindex(b"\n")
    return text[:end].decode("utf-8", "replace"), [head + text[end + 1:]]


#: Most changes a history read holds of one commit at once: :func:`introductions` (the origins
#: scan) takes a wider commit in parts of this many; :func:`changes_of` gives up past this many
#: in all (:class:`WideCommitError`)
LISTED_CHANGES = 50_000


class WideCommitError(GitError):
    """A listing of commits' changes under :func:`memory_pathspecs` that passed its bound
    (:func:`changes_of`)."""


def memory_pathspecs(prefix: str) -> list[str]:
    """Pathspecs of the files at the top of the vault at ``prefix`` and one folder below it (the
    memory files, vault.toml, INDEX.md): git lists them reading the trees of those two levels
    alone, whatever deeper folders hold. git lists a commit's changes path by path, and queues
    them all before it prints one: a tree that names one subtree many times holds any number
    of paths for the few objects a push carries (a peer's 30 KB push of a folder naming one
    folder 600 times, each naming one file 600 times: 360,000 paths, ~100 MB of git's; a
    third level runs until memory is gone)."""
    top = files_in(prefix.rstrip("/"))  # ":(glob)FOLDER/*": its files; then those of each folder in it
    return [top, top.removesuffix("*") + "*/*"]


def introductions(repo: GitRepo, tips: list[str], seen: list[str], prefix: str, *,
                  own: Container[str] = frozenset()
                  ) -> Iterator[tuple[str, str, str, int, list[str], list[str]]]:
    """``(commit, author email, author name, committer time, parents, blobs)`` for each commit
    reachable from ``tips`` and not from ``seen``, parents before children: the blobs it gives
    the files of the vault at ``prefix`` (:func:`memory_pathspecs`: what git can list of any
    commit in bounded memory; a merge: compared with its first parent; INDEX.md, which is
    generated, left out). One ``git log``, read as it comes
    (:meth:`~vault_mem.store.git.GitRepo.stream`): held a few records at a time, whatever the
    number of commits, and at most :data:`LISTED_CHANGES` of a commit's changes (and one piece
    of git's output): a wider commit comes as several tuples of the same commit, same fields,
    each with its share of the blobs, in git's order (a peer's commit adding 60,000 files of
    one tiny blob and the next taking them out: sync sees no net change and takes both; a
    person's import of a large export, one commit). Giving up there instead left every later
    text's first giver unknown for good (the scan starts again from the same place each time).
    A blob two paths of one commit hold may come in two of its parts. Ids of ``seen`` no longer
    in the repository are dropped (a pruned reflog). git's failure raises once its output is
    read.

    A root commit gives everything its tree holds: read from its trees here
    (:func:`root_changes`), each folder once per scan for the roots not in ``own`` (the commits
    made here): a peer's merge of 600 roots sharing one tree of 3,000 files had git list
    1.8 million additions (~22 s a sync, RELIABILITY.md), now 3,000 and the roots. A root of
    ``own`` always gives all its tree holds (this machine's text is never left to a peer's
    root that came first in the scan)."""
    if not tips:
        return
    seen = existing_commits(repo, seen)
    revs = "".join(f"{c}\n" for c in tips) + "".join(f"^{c}\n" for c in seen)
    rs, fs = separators()
    # --full-history --sparse: every commit, whatever the pathspecs (their parents and arrivals
    # count); log.showRoot=false: a root commit's tree is read by root_changes, each folder once
    out = repo.stream("-c", "core.quotePath=false", "-c", "log.showRoot=false", "log", "--stdin", "--reverse",
                      "--topo-order", "--no-renames", "--raw", "--no-abbrev", "--diff-merges=first-parent", "--full-history",
                      "--sparse", f"--format={rs}%H{fs}{_who('%ae')}{fs}%ct{fs}%P{fs}{_who('%an')}{fs}%T",
                      "--", *memory_pathspecs(prefix), input=revs.encode("ascii"), cwd=repo.toplevel)
    listed: set[tuple[str, str]] = set()  # the folders a peer's root gave in this scan
    for text in _records(out, rs, max_lines=LISTED_CHANGES):
        for head, changes in _raw_log(text, rs, fs, 6):
            fields = (head[0], head[1].rstrip(" "), head[4].rstrip(" "), int(head[2]) if head[2].isdigit() else 0,
                      head[3].split())
            if not fields[4]:  # a root: what its trees hold, a peer's folders once a scan
                changes = root_changes(repo, head[5], prefix, None if head[0] in own else listed)
            blobs: list[str] = []
            given = False
            for c in changes:  # a chunk at a time: a root's changes come one by one
                if c.status[:1] in "AMT" and c.path.rsplit("/", 1)[-1] != INDEX_FILE:
                    blobs.append(c.new_blob)
                    if len(blobs) == LISTED_CHANGES:
                        yield (*fields, blobs)
                        blobs, given = [], True
            if blobs or not given:
                yield (*fields, blobs)


def root_changes(repo: GitRepo, tree: str, folder: str, listed: set[tuple[str, str]] | None) -> Iterator[_RawChange]:
    """What a root commit of tree ``tree`` adds to the files :func:`memory_pathspecs` names for
    the vault at ``folder`` (its top and each folder in it), as ``git log --raw`` would list them
    (top-level paths, INDEX.md included), read from the trees: the vault's folder and each folder
    in it, those in ``listed`` (``(path, tree id)``: a folder tree a peer's root holds under two
    names gives the files of both) passed over (the others then added to it; None: every one read).
    The one reader of a root's tree for the history walks that read the whole vault
    (:func:`introductions`, :func:`last_authors`), which run git with ``log.showRoot=false``: a
    peer's merge of 600 roots sharing one tree of 3,000 memory files had git list 1.8 million
    additions per walk (~22 s a read, RELIABILITY.md); with ``listed``, 3,000 and the roots. Given
    one file at a time (a peer's root of a million files is never held as one list). A missing
    object raises (:class:`HistoryDamagedError`), as git's listing did."""
    base = folder.rstrip("/")
    try:
        for part in base.split("/") if base else []:
            entry = _tree_names(repo, tree).get(part.encode("utf-8", "surrogateescape"))
            if entry is None or entry[0] != "40000":
                return
            tree = entry[1]
        todo = [(tree, f"{base}/" if base else "")]
        while todo:  # the vault's folder, then the folders in it (one level: the pathspecs')
            at, path = todo.pop(0)
            if listed is not None:  # by path and tree: one folder tree under two names gives both
                if (path, at) in listed:
                    continue
                listed.add((path, at))
            kind, raw = repo.read_object(at)
            if kind != "tree":
                continue
            for name, mode, oid in iter_tree(raw, len(at) // 2):  # one at a time: a wide folder is never listed whole
                rel = path + name.decode("utf-8", "replace")
                if mode != "40000":
                    yield _RawChange(_ZERO_OID, oid, "A", rel)
                elif at == tree:
                    todo.append((oid, rel + "/"))
    except (GitError, ValueError):  # an entry that is no tree, a tree that does not parse: git lists nothing more of it
        return


def reached_first(repo: GitRepo, tips: list[str], seen: list[str],
                  parents: dict[str, list[str]] | None = None) -> Iterator[tuple[int, str]]:
    """``(k, commit)`` for each commit reachable from ``tips[k]`` and from none of ``tips[:k]``
    nor ``seen`` (each tip in turn: what it reached first). One ``git rev-list`` per tip, read as
    it comes: nothing is held per commit, however many. A tip whose ``parents`` (when known) are
    all earlier tips reaches itself alone: no git asked (a line of commits made here, one log
    entry each), and it is named even when an earlier tip reached it (the first naming is the
    answer). ``seen`` must be commits that are there (:func:`existing_commits`)."""
    negative = "".join(f"^{c}\n" for c in seen)
    done: set[str] = set()
    for k, tip in enumerate(tips):
        above = (parents or {}).get(tip)
        if above is not None and all(p in done for p in above):
            yield k, tip
        else:
            for text in _records(repo.stream("rev-list", "--stdin", input=f"{tip}\n{negative}".encode("ascii"),
                                             cwd=repo.toplevel), "\n"):
                for commit in text.split():
                    yield k, commit
        negative += f"^{tip}\n"
        done.add(tip)


#: how many loose commits :func:`is_ancestor` walks back from ``new`` before asking git
LOOSE_WALK = 64


def _loose_ancestor(repo: GitRepo, old: str, new: str) -> bool:
    """Whether commit ``old`` (itself a loose commit) is ``new`` or is reached from it through
    loose commits alone, at most :data:`LOOSE_WALK` of them: the agent writes made since the
    sidecar last looked (False: git is asked)."""
    if repo.loose_commit_parents(old) is None:
        return False
    todo, seen = [new], set()
    while todo and len(seen) < LOOSE_WALK:
        commit = todo.pop()
        if commit == old:
            return True
        if commit in seen:
            continue
        seen.add(commit)
        parents = repo.loose_commit_parents(commit)
        if parents is None:
            continue  # packed or beyond: git's walk decides
        todo.extend(parents)
    return False


def is_ancestor(repo: GitRepo, old: str, new: str) -> bool:
    """True when commit ``old`` is reachable from ``new`` (or is ``new``). The steps agent writes
    make (``old`` reached from ``new`` through loose commits: :func:`_loose_ancestor`) are
    answered from the objects, without git (a one-shot command after an agent write asked a
    process each time); anything else is asked of git."""
    if _loose_ancestor(repo, old, new):
        return True
    return repo.run("merge-base", "--is-ancestor", old, new, check=False).returncode == 0


def changed_paths(repo: GitRepo, old: str | None, new: str, pathspec: str) -> list[str]:
    """Top-level paths under ``pathspec`` that differ between commits ``old`` and ``new`` (no
    rename detection); ``old`` None: every path ``new`` holds (a root commit)."""
    if repo.history_memo is not None and _OID.fullmatch(new) and (old is None or _OID.fullmatch(old)):
        # within a sync: the paths of the one raw diff that changed_entries reads too
        return [path.decode("utf-8", "replace") for _, path in _raw_diff(repo, old, new, pathspec)]
    chain = _own_chain(repo, new, old)
    if chain is not None:
        # commits this process made, one on the other from ``old`` (agent writes): what they
        # changed is known; a path changed and changed back is no difference
        named = pathspec.rstrip("/")
        first: dict[str, str | None] = {}
        last: dict[str, str | None] = {}
        for _commit, _parent, changes in chain:  # newest first
            for path, before, after in changes:
                first[path] = before
                last.setdefault(path, after)
        return [path for path in sorted(first) if first[path] != last[path]
                and (pathspec == "." or path == named or path.startswith(named + "/"))]
    out = repo.run("diff-tree", "-r", "--no-commit-id", "--no-renames", "--name-only", "-z",
                   *([old] if old else ["--root"]), new, "--", pathspec, cwd=repo.toplevel)
    return [p for p in out.split("\x00") if p]


def _raw_diff(repo: GitRepo, old: str | None, new: str, pathspec: str) -> Iterator[tuple[bytes, bytes]]:
    """``(meta, path)`` of each record of ``git diff-tree --raw`` between ``old`` and ``new``
    (its output is what a sync keeps: one bytes object, not a list of 40,000)."""
    out = _once(repo, ("diff", old, new, pathspec), (old, new), lambda: repo.run(
        "diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-commit-id", "--no-abbrev",
        *([old] if old else ["--root"]), new, "--", pathspec, binary=True, cwd=repo.toplevel))
    parts = out.split(b"\x00")
    return ((parts[i], parts[i + 1]) for i in range(0, len(parts) - 1, 2))


def changes_of(repo: GitRepo, revs: list[str], prefix: str, most: int = LISTED_CHANGES) -> tuple[set[str], set[str]]:
    """``(top-level paths, blob ids)`` that the commits ``revs`` name (``git log`` arguments: a
    range such as ``A...B``, or commit ids with ``--no-walk=unsorted``) changed among the files
    of the vault at ``prefix`` (``""``: the top; :func:`memory_pathspecs`, so a peer's commit
    adding a tree bomb and the next deleting it costs git two levels of trees, not every path):
    each commit against each of its parents (``-m``: a merge's own changes too), the blobs they
    gave. :class:`vault_mem.vault.peers.KeptPeers` judges these paths again.

    Read as git gives it, and given up once it lists more than ``most`` changes
    (:class:`WideCommitError`): a merge is listed against each of its parents, and a peer's
    merge of the branch with 20,000 root commits whose one shared tree holds the files (a
    commit of 1 MB, a pack of a few hundred KB, one memory of net change: sync took it) listed
    4.6 million changes, which a read held whole (64 s and 1.9 GB in a vault of 200 memories)."""
    paths: set[str] = set()
    blobs: set[str] = set()
    listed = 0
    meta: bytes | None = None  # a change's ``:modes ids status``, its path next
    rest = b""
    out = repo.stream("log", "--format=", "--full-history", "-m", "-r", "--raw", "--no-renames", "--no-abbrev",
                      "-z", *revs, "--", *memory_pathspecs(prefix), cwd=repo.toplevel)
    try:
        for piece in out:
            parts = (rest + piece).split(b"\x00")
            rest = parts.pop()
            for part in parts:
                if meta is not None:
                    fields = meta.split()
                    if len(fields) >= 4 and fields[3].strip(b"0"):  # a deletion gives no blob
                        blobs.add(fields[3].decode("ascii", "replace"))
                    paths.add(part.decode("utf-8", "replace"))
                    meta = None
                    continue
                part = part.strip(b"\n")
                if part.startswith(b":"):
                    meta = part
                    listed += 1
                    if listed > most:
                        raise WideCommitError(f"the commits list more than {most} changes of the vault's files")
    finally:
        out.close()  # stops git when the listing is given up
    return paths, blobs


def resolve_commit(repo: GitRepo, rev: str) -> str | None:
    """The commit id ``rev`` names, or None when it names no commit. A loose commit's own id is
    answered without git (:meth:`~vault_mem.store.gitobjects.GitObjects.loose_commit_parents`)."""
    if repo.loose_commit_parents(rev) is not None:
        return rev
    proc = repo.run("rev-parse", "-q", "--verify", f"{rev}^{{commit}}", check=False)
    return (proc.stdout.decode().strip() or None) if proc.returncode == 0 else None


def shadowed_refs(repo: GitRepo, rev: str) -> list[str]:
    """The refs the name that ``rev`` starts with (``main`` of ``main~2``) stands for in more
    than one of git's places (``refs/``, ``refs/tags/``, ``refs/heads/``, ``refs/remotes/``,
    ``refs/remotes/NAME/HEAD``), in git's order, or [] when it names one at most, or a ref at
    the top of the git folder (:func:`_root_ref`: ``HEAD``, ``ORIG_HEAD``; git reads that first,
    and no fetch writes it). git takes the first without a word (``rev-parse main^{commit}``
    warns of nothing), and a plain ``git pull`` follows a peer's tags: a tag named ``main`` stood
    for the person's branch. One ``git for-each-ref``; a full ``refs/...`` name is one ref."""
    name = re.match(r"[^~^@:]*", rev).group(0)  # type: ignore[union-attr]
    if not name or name.startswith("refs/"):
        return []
    if "/" not in name and _root_ref(repo, name):
        return []  # HEAD, ORIG_HEAD ...
    wanted = [f"refs/{name}", f"refs/tags/{name}", f"refs/heads/{name}", f"refs/remotes/{name}",
              f"refs/remotes/{name}/HEAD"]
    proc = repo.run("for-each-ref", "--format=%(refname)", "--", *wanted, check=False)
    held = set(proc.stdout.decode("utf-8", "surrogateescape").split()) if proc.returncode == 0 else set()
    found = [w for w in wanted if w in held]
    return found if len(found) > 1 else []


#: what git reads as a ref in a file of its own (parse_loose_ref_contents): a symbolic ref, or
#: an object id (SHA-1 or SHA-256) ending the line or followed by blanks (FETCH_HEAD's lines)
_REF_TEXT = re.compile(rb"ref:|[0-9a-f]{40}(?:[0-9a-f]{24})?(?:\s|$)")


def _root_ref(repo: GitRepo, name: str) -> bool:
    """Whether git takes ``name`` as a ref at the top of the git folder (``HEAD``, ``ORIG_HEAD``,
    ``FETCH_HEAD``, any pseudo-ref a tool wrote), as its first rule of a short name does: a file
    there that holds a ref. git's other files there (``config``, ``description``, ``index``,
    ``COMMIT_EDITMSG``) are no refs: git goes on to ``refs/tags/NAME`` and the rest, so a tag and
    a branch named ``config`` are two refs of one name."""
    try:
        with open(os.path.join(repo.git_dir, name), "rb") as fh:
            return _REF_TEXT.match(fh.read(128)) is not None
    except OSError:  # none there, a folder (``hooks``, ``info``), unreadable: not one git reads
        return False


#: the most objects one id prefix is looked up among (:func:`commits_by_id`)
PREFIX_OBJECTS = 64


def commits_by_id(repo: GitRepo, prefix: str) -> list[str] | None:
    """The commits whose id starts with the hex ``prefix`` (any case), looked up among objects
    only; None when more than :data:`PREFIX_OBJECTS` objects share it (too short to say).
    ``rev-parse PREFIX`` takes a ref of that name first, and a plain ``git pull`` brings a peer's
    tags: one named like the id ``vault-mem log`` shows made ``undo ID`` refuse the person's own
    commit."""
    proc = repo.run("rev-parse", f"--disambiguate={prefix.lower()}", check=False)
    ids = proc.stdout.decode().split() if proc.returncode == 0 else []
    if len(ids) > PREFIX_OBJECTS:
        return None
    if not ids:
        return []
    kinds = repo.run("cat-file", "--batch-check=%(objectname) %(objecttype)",
                     input="".join(f"{i}\n" for i in ids).encode("ascii")).split("\n")
    return [line.split()[0] for line in kinds if line.endswith(" commit")]


def version_commit(repo: GitRepo, rev: str) -> tuple[str | None, list[str]]:
    """The commit a name a person gives for a version stands for (an id as ``vault-mem log``
    shows it, in any case, ``ID~2``, ``HEAD^``, a branch), and the refs its name is shadowed by
    (:func:`shadowed_refs`; then the commit is not to be taken). A name that starts with hex
    digits is an id, looked up among objects alone (:func:`commits_by_id`), then its suffix
    applied to the full id (git takes a full id as the object, never a ref): ``rev-parse`` takes
    a ref first, and a peer's tag named like the person's id (brought by ``git pull --tags``)
    stood for it, also as ``ID~0``, ``ID^0`` or the id in capitals."""
    name, suffix = re.match(r"([^~^@:]*)(.*)", rev, re.S).groups()  # type: ignore[union-attr]
    commits = commits_by_id(repo, name) if re.fullmatch(r"[0-9a-fA-F]{4,64}", name) else []
    if commits is None or commits:
        commit = commits[0] if commits and len(commits) == 1 else None  # several: none is taken
        if commit is None or not suffix:
            return commit, []
        return resolve_commit(repo, commit + suffix), []
    # no commit has that id: a name (a branch `cafe` is all hex digits), read as refs are
    commit = resolve_commit(repo, rev)
    return commit, shadowed_refs(repo, rev) if commit is not None else []


def commit_trailers(repo: GitRepo, commit: str) -> str:
    """The unfolded trailer block of ``commit``'s message (``Name: value`` lines)."""
    return repo.run("log", "-1", "--format=%(trailers:only,unfold)", commit)


def held_at(repo: GitRepo, tip: str, wanted: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """Those of ``wanted`` (top-level path, blob) that a commit reachable from ``tip`` held: the
    blob at that path. The first commit to hold a blob at a path is a root, or differs there from
    each of its parents (a merge too: ``-m --full-history``), so one ``git log --raw`` of ``tip``'s
    history, its diffs limited to those paths (``-z``: every name as it is; one per 2,000 paths),
    finds each; it stops once all are found. No count of commits bounds it: a peer's 1,001 commits
    re-pointing a link at the path after the one that held the bytes hid them from a walk of the
    last 1,000 (mendatk2); the walk is linear in ``tip``'s history and asked only for the files
    no cheaper comparison settled."""
    left = set(wanted)
    found: set[tuple[str, str]] = set()
    paths = sorted({p for p, _ in left})
    for i in range(0, len(paths), 2000):
        if not left:
            break
        out = repo.stream("--literal-pathspecs", "log", "-z", "--format=%H", "--raw", "--no-abbrev", "--no-renames",
                          "-m", "--root", "--full-history", tip, "--", *paths[i:i + 2000], cwd=repo.toplevel)
        meta: list[str] | None = None
        rest = b""
        try:
            for piece in out:
                tokens = (rest + piece).split(b"\0")
                rest = tokens.pop()
                for raw in tokens:
                    token = raw.decode("utf-8", "replace")  # as every listing is read (GitRepo.run)
                    if meta is not None:  # the path of the change just read, whatever it starts with
                        key = (token, meta[3]) if len(meta) >= 4 else None
                        if key in left:
                            left.discard(key)
                            found.add(key)
                        meta = None
                    elif token.lstrip("\n").startswith(":"):
                        meta = token.lstrip("\n").split()  # :old-mode new-mode old-blob new-blob status
                if not left:
                    break
        finally:
            close = getattr(out, "close", None)
            if close:
                close()
    return found


def merge_base(repo: GitRepo, a: str, b: str) -> str:
    """The best common ancestor of ``a`` and ``b``; "" when they share no history."""
    def answer() -> str:
        proc = repo.run("merge-base", a, b, check=False)
        return proc.stdout.decode().strip() if proc.returncode == 0 else ""
    return _once(repo, ("merge-base", a, b), (a, b), answer)


def count_commits(repo: GitRepo, tip: str, exclude: str | None = None) -> int:
    """How many commits ``tip`` has that ``exclude`` (when given) does not (git counts: nothing
    is held per commit here)."""
    return int(repo.run("rev-list", "--count", tip, *([f"^{exclude}"] if exclude else [])))


def incoming_commits(repo: GitRepo, tip: str, exclude: str, over: int) -> tuple[int, list[tuple[str, int]]]:
    """``(how many commits tip has that exclude does not, [(commit, size) of those over ``over``
    bytes]``): one streamed ``git rev-list``, the sizes read from object headers 2,000 commits at
    a time; nothing held per commit. Kept within :func:`remembered` (a sync counts them and checks
    their sizes from one list)."""
    def answer() -> tuple[int, list[tuple[str, int]]]:
        count, big = 0, []
        commits = commits_between(repo, tip, exclude)
        while part := list(itertools.islice(commits, 2000)):
            count += len(part)
            big += [(c, size) for c, size in blob_sizes(repo, part).items() if size > over]
        return count, big
    return _once(repo, ("incoming", tip, exclude, over), (tip, exclude), answer)


def commits_between(repo: GitRepo, tip: str, exclude: str | None = None) -> Iterator[str]:
    """Each commit ``tip`` has that ``exclude`` (when given) does not, newest first (``git
    rev-list``), read as it comes: a peer's push of any number of commits is never held whole."""
    for text in _records(repo.stream("rev-list", tip, *([f"^{exclude}"] if exclude else []), cwd=repo.toplevel), "\n"):
        yield from text.split()


def commits_with_parents(repo: GitRepo, tip: str, base: str) -> list[list[str]]:
    """``[commit, parent, ...]`` for each commit of ``tip`` not in ``base``, oldest first."""
    if tip == base:
        return []

    def answer() -> list[list[str]]:
        out = repo.run("rev-list", "--reverse", "--topo-order", "--parents", tip, f"^{base}")
        return [line.split() for line in out.split("\n") if line.split()]
    return [list(ids) for ids in _once(repo, ("rev-list", tip, base), (tip, base), answer)]


def paths_by_commit(repo: GitRepo, old: str | None, new: str, pathspec: str) -> list[tuple[str, list[str]]]:
    """``(commit, top-level paths it changed under pathspec)`` for each commit of ``new`` not in
    ``old`` (first parents; no rename detection), newest first: one git process for the range.
    ``-z``: every name as it is (a quoted ``facts/caf\\303\\251.md`` was no memory path, and
    the sync never checked the credential it held)."""
    rs, _ = separators()
    out = repo.run("log", "-z", f"--format={rs}%H", "--name-only", "--no-renames", "--diff-merges=first-parent",
                   new, *([f"^{old}"] if old else []), "--", pathspec, cwd=repo.toplevel)
    found = []
    for rec in out.split(rs):
        fields = rec.split("\0")
        if fields[0].strip():
            found.append((fields[0].strip(), [f.removeprefix("\n") for f in fields[1:] if f.removeprefix("\n")]))
    return found


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


def _path_batches(paths: list[str]) -> Iterator[list[str]]:
    """``paths`` in runs whose command line stays well under the system's limits."""
    part: list[str] = []
    size = 0
    for p in paths:
        if part and size + len(p) > _PATH_BYTES_PER_CALL:
            yield part
            part, size = [], 0
        part.append(p)
        size += len(p) + 1
    if part:
        yield part


def _ls_tree(repo: GitRepo, commit: str, paths: list[str]) -> str:
    # a name git resolves against the folder ("..", ".", "a//b") is no entry it can list, and
    # makes ls-tree fail: left out (unsafe_entry refuses it by its name)
    plain = [p for p in paths if p and not p.startswith("/") and not any(c in ("", ".", "..") for c in p.split("/"))]
    out = []
    for part in _path_batches(plain):
        out.append(repo.run("--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--", *part,
                            cwd=repo.toplevel))
    return "\x00".join(out)


def entry_modes(repo: GitRepo, commit: str, paths: list[str]) -> dict[str, str]:
    """``{top-level path: mode}`` of the entries ``commit`` holds at ``paths`` (a path it does
    not hold is left out). Paths are taken literally, never as patterns; any number of them
    (a few hundred per git process, never one command line of them all)."""
    if not paths:
        return {}
    return _ls_tree_modes(_ls_tree(repo, commit, paths))


#: Most paths one sync takes from the remote. The files are written and indexed one at a time
#: (memory stays bounded whatever comes), but each costs a write, a stat and an index row, and
#: a peer's 100k-file commit would hold every clone's sync (and its disk: up to this many times
#: the file size limit) for as long as it runs. A vault that really changes this much at once
#: (a large import) is integrated by hand with git, once.
MAX_INCOMING_PATHS = 20_000

#: a folder's mode in a tree object (as :func:`~vault_mem.store.tree.tree_names` reads it)
_TREE_MODE = "40000"
#: the deepest folder a path of :data:`MAX_PATH_BYTES` can be in
_DEEPEST = MAX_PATH_BYTES // 2


def changed_count(repo: GitRepo, old: str | None, new: str, stop: int) -> int:
    """How many paths (files, links, submodules) differ between commits ``old`` and ``new``
    (``old`` None: every path ``new`` holds), counted up to ``stop`` + 1: once past ``stop`` the
    count ends there. Read tree by tree, never asking git for the list: git queues every path
    of a diff before it prints one, and a tree that names one subtree many times holds any
    number of paths for a few objects (a peer's push of a few KB: a folder naming one folder 600
    times, each naming one file 600 times, made every clone's sync list 360,000 paths, ~170 MB;
    a third level runs until memory is gone). Each tree is read once, a subtree's path count
    kept by its id: the work grows with the distinct trees read, never with the paths. Folders
    nested deeper than any path may go (:data:`MAX_PATH_BYTES`: a name and a slash each) count
    as past ``stop``. Within :func:`remembered` (a sync) the answer is kept, and the subtrees'
    counts too: the sync's two checks (its own count from the local tip, the approval of git's
    files' from the merge base) walk the trees they share once."""
    memo = repo.history_memo
    kept = _OID.fullmatch(new) is not None and (old is None or _OID.fullmatch(old) is not None)
    sizes: dict[str, int] = memo.setdefault(("changed_count_sizes", stop), {}) if memo is not None and kept else {}

    def entries(tree: str) -> dict[bytes, tuple[str, str]]:
        return _tree_names(repo, tree, strict=True)

    def size(tree: str, depth: int) -> int:
        if depth > _DEEPEST:
            return stop + 1
        if tree not in sizes:
            total = 0
            for mode, oid in entries(tree).values():
                total += size(oid, depth + 1) if mode == _TREE_MODE else 1
                if total > stop:
                    break
            sizes[tree] = min(total, stop + 1)
        return sizes[tree]

    def one(entry: tuple[str, str] | None, depth: int) -> int:
        if entry is None:
            return 0
        return size(entry[1], depth) if entry[0] == _TREE_MODE else 1

    def differ(a: str | None, b: str, depth: int = 0) -> int:
        if a == b:
            return 0
        if a is None:
            return size(b, depth)
        if depth > _DEEPEST:
            return stop + 1
        olds, news = entries(a), entries(b)
        total = 0
        for name in {*olds, *news}:
            was, now = olds.get(name), news.get(name)
            if was == now:
                continue
            if was is not None and now is not None and was[0] != _TREE_MODE != now[0]:
                total += 1  # a file changed (or made a link): one path
            elif was is not None and now is not None and was[0] == now[0] == _TREE_MODE:
                total += differ(was[1], now[1], depth + 1)
            else:
                total += one(was, depth + 1) + one(now, depth + 1)
            if total > stop:
                return stop + 1
        return total

    return _once(repo, ("changed_count", old, new, stop), (old, new),
                 lambda: min(differ(repo.commit_tree(old), repo.commit_tree(new)), stop + 1))


def changes_outside(repo: GitRepo, old: str | None, new: str, prefix: str, most: int = 3) -> list[str]:
    """Up to ``most`` paths outside the folder ``prefix`` (``sub/``) that a commit of ``new`` not
    in ``old`` changed against its first parent (a folder is named where a whole one came or
    went), read tree by tree along ``prefix``: each commit costs the trees on the way to the
    folder, never a listing of what it changed (git queues a commit's every path before it
    prints one, and a peer's folder naming one folder many times holds any number of them).
    Along a line of commits a commit's trees are its parent's child's: each is read once (the
    last commit's are kept for the next)."""
    parts = [p.encode("utf-8", "surrogateescape") for p in prefix.strip("/").split("/")]
    found: list[str] = []
    last: dict[str | None, dict[bytes, tuple[str, str]]] = {}  # the trees the last commit read
    for text in _records(repo.stream("rev-list", "--parents", new, *([f"^{old}"] if old else []),
                                     cwd=repo.toplevel), "\n"):
        for line in text.split("\n"):
            ids = line.split()
            if not ids:
                continue
            a, b = (repo.commit_tree(ids[1]) if len(ids) > 1 else None), repo.commit_tree(ids[0])
            read: dict[str | None, dict[bytes, tuple[str, str]]] = {}
            at = ""
            for part in parts:
                for tree in (a, b):
                    if tree not in read:
                        read[tree] = last[tree] if tree in last else _tree_names(repo, tree)
                olds, news = read[a], read[b]
                found += [at + name.decode("utf-8", "replace") for name in sorted({*olds, *news})
                          if name != part and olds.get(name) != news.get(name)][:most - len(found)]
                a, b, at = olds.get(part, (None, None))[1], news.get(part, (None, None))[1], \
                    at + part.decode("utf-8", "replace") + "/"
                if len(found) >= most or a == b:
                    break
            if len(found) >= most:
                return found
            last = read
    return found


def held_beside(repo: GitRepo, commit: str, paths: Iterable[str]) -> list[str]:
    """The top-level paths of the entries ``commit`` holds beside each of ``paths`` (top-level)
    and beside each folder on the way to it: what a name among ``paths`` could be taken for on
    a case-insensitive file system (:func:`case_collision`'s ``among``). Read tree by tree, each
    folder once: the trees on the way, never the whole tree."""
    trees: dict[str, str | None] = {"": repo.commit_tree(commit)}  # folder ("" or "a/b/"): its tree
    listed: set[str] = set()
    held: list[str] = []
    for path in paths:
        folder = ""
        for part in [*path.split("/")[:-1], None]:
            if folder not in listed:
                listed.add(folder)
                tree = trees.get(folder)
                for raw, (mode, oid) in (_tree_names(repo, tree) if tree else {}).items():
                    name = folder + raw.decode("utf-8", "surrogateescape")
                    held.append(name)
                    if mode == _TREE_MODE:
                        trees[name + "/"] = oid
            if part is None:
                break
            folder = f"{folder}{part}/"
    return held


def _tree_names(repo: GitRepo, tree: str | None, *, strict: bool = False) -> dict[bytes, tuple[str, str]]:
    """``{name: (mode, id)}`` of the tree object ``tree`` (:func:`~vault_mem.store.tree.tree_names`);
    None, or an object that is no tree: empty (``strict``: GitError)."""
    if tree is None:
        return {}
    kind, raw = repo.read_object(tree)
    if kind != "tree":
        if strict:
            raise GitError(f"{tree} is a {kind}, not a tree")
        return {}
    try:
        return tree_names(raw, len(tree) // 2)
    except ValueError:
        raise GitError(f"cannot read tree {tree}; check it with `git fsck`") from None


def changed_entries(repo: GitRepo, old: str | None, new: str, pathspec: str) -> dict[str, tuple[str, str] | None]:
    """``{top-level path: (mode, object id) in new, or None where new deleted it}`` for every
    path under ``pathspec`` that differs between commits ``old`` and ``new`` (``old`` None:
    everything ``new`` holds). One ``git diff-tree`` for any number of paths: linear, where
    asking ``ls-tree`` about each path matched every pathspec against every entry."""
    found: dict[str, tuple[str, str] | None] = {}
    for raw_meta, raw_path in _raw_diff(repo, old, new, pathspec):
        meta, path = raw_meta.decode("utf-8", "surrogateescape"), raw_path.decode("utf-8", "surrogateescape")
        fields = meta.lstrip(":").split()  # old-mode new-mode old-id new-id status
        if len(fields) == 5:
            seen = path in found
            found[path] = None if fields[4].startswith("D") else (fields[1], fields[3])
            if seen:
                found[path] = (DUPLICATE, fields[3])
    return found


def blob_sizes(repo: GitRepo, oids: list[str]) -> dict[str, int]:
    """``{object id: size in bytes}`` from the objects' headers (``git cat-file --batch-check``,
    ids on stdin): nothing is loaded, however big; a missing object is left out."""
    if not oids:
        return {}
    if len(oids) < STREAM_FROM:  # a few: asked of the running reader, no git started
        heads = {oid: repo.object_header(oid) for oid in oids}
        return {oid: h[1] for oid, h in heads.items() if h is not None}
    out = repo.run("cat-file", "--batch-check=%(objectname) %(objectsize)", input="\n".join(oids).encode() + b"\n",
                   cwd=repo.toplevel)
    sizes: dict[str, int] = {}
    for line in out.splitlines():
        oid, _, size = line.partition(" ")
        if size.isdigit():
            sizes[oid] = int(size)
    return sizes


def tree_entries(repo: GitRepo, commit: str, pathspec: str) -> dict[str, str]:
    """``{top-level path: mode}`` of every entry ``commit`` holds under ``pathspec`` (files,
    symlinks and submodules; folders are implied by their entries)."""
    out = repo.run("--literal-pathspecs", "ls-tree", "-r", "-z", "--full-tree", commit, "--", pathspec,
                   cwd=repo.toplevel)
    return _ls_tree_modes(out)


def edit_tree_entries(repo: GitRepo, tree: str, changes: dict[str, tuple[str, str] | None]) -> str:
    """``tree`` with each ``{top-level path: (mode, object id), or None to remove}`` of
    ``changes`` applied, never a checkout: each tree on the changed paths is read as git stored
    it (through the one running ``cat-file``), its entries spliced and written in process, so
    any number of changes at any depth costs no git process each (two per folder took 55 s for
    2,000 links ten folders deep). Unlike :meth:`GitObjects.edit_tree`, which parses only trees
    vault-mem would use, it keeps a peer's entries beside the changed ones byte for byte,
    whatever names or modes they hold (a ``.GIT.``, a device name, a symlink, a submodule: a
    temporary index would refuse some of those names), so a sync can take such entries out
    (:meth:`vault_mem.sync.replay.Replay._take_out`). A folder left empty goes."""
    return _edit_entries(repo, tree, {tuple(p.encode("utf-8", "surrogateescape").split(b"/")): c
                                      for p, c in changes.items()}) or repo.empty_tree()


def _edit_entries(repo: GitRepo, tree: str | None, changes: dict[tuple[bytes, ...], tuple[str, str] | None]
                  ) -> str | None:
    # name: (mode as git writes it, raw id), read by the history's one tree parser: its own
    # parse here took a folder stored as ``040000`` for a file (one removal under it dropped the
    # whole folder) and knew only SHA-1's ids
    entries: dict[bytes, tuple[bytes, bytes]] = {}
    if tree is not None:
        entries = {name: (mode.encode(), bytes.fromhex(oid))
                   for name, mode, oid in iter_tree(repo.read_object(tree)[1], len(tree) // 2)}
    nested: dict[bytes, dict[tuple[bytes, ...], tuple[str, str] | None]] = {}
    for parts, change in changes.items():
        if len(parts) > 1:
            nested.setdefault(parts[0], {})[parts[1:]] = change
        elif change is None:
            entries.pop(parts[0], None)
        else:
            entries[parts[0]] = (change[0].lstrip("0").encode(), bytes.fromhex(change[1]))
    for name, sub in nested.items():
        old = entries.get(name)
        new = _edit_entries(repo, old[1].hex() if old and old[0] == _TREE else None, sub)
        if new is None:
            entries.pop(name, None)
        else:
            entries[name] = (_TREE, bytes.fromhex(new))
    if not entries:
        return None
    # git's order: a folder's name sorts as if it ended in "/"
    order = sorted(entries, key=lambda name: name + b"/" if entries[name][0] == _TREE else name)
    return repo.write_object("tree", b"".join(entries[n][0] + b" " + n + b"\x00" + entries[n][1] for n in order))


_TREE = b"40000"


def tree_entry(repo: GitRepo, commit: str, top: str) -> tuple[str, str] | None:
    """(mode, object id) of the entry ``commit`` holds at the top-level path ``top`` (a file, a
    folder, a link), or None."""
    out = repo.run("--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--", top,
                   binary=True, cwd=repo.toplevel)
    for rec in out.split(b"\x00"):
        meta, sep, name = rec.partition(b"\t")
        if sep and name == top.encode("utf-8", "surrogateescape"):
            mode, _, oid = meta.decode().split(" ")
            return mode, oid
    return None



def _ls_tree_modes(out: str) -> dict[str, str]:
    """``{path: mode}`` from ``git ls-tree -z`` output."""
    modes: dict[str, str] = {}
    for rec in out.split("\x00"):
        meta, sep, path = rec.partition("\t")
        if sep:
            modes[path] = DUPLICATE if path in modes else meta.split(" ", 1)[0]
    return modes


#: :func:`unsafe_entry`'s word for a ``..``, ``.``, empty or absolute name: a tree no git command makes
LEAVES = "a path that leaves the vault"


def unsafe_entry(rel: str, mode: str | None) -> str | None:
    """Why the vault-relative tree entry ``rel`` (of ``mode``) must not be taken from a commit
    vault-mem did not make, or None when it may (DESIGN §7): only regular files inside the vault,
    no ``..``/``.git``/absolute names, no symlinks, submodules or names a tree holds twice, nothing under ``.vault-mem/``,
    no folder where vault-mem keeps a file (INDEX.md, vault.toml) nor a file where it keeps a
    folder (``facts``, ...), no ``vault.toml`` below the top (a vault of its own there), no name over :data:`~vault_mem.model.names.MAX_NAME_BYTES` or
    holding control characters, backslashes or Windows' trailing dots and spaces. The one home
    of that rule: sync's incoming trees and the tree of a fresh clone use it."""
    parts = rel.split("/")
    if rel.startswith("/") or any(p in ("", ".", "..") for p in parts):
        return LEAVES
    if any(disk_name(p) in (".git", "git~1") for p in parts):
        return "a .git entry"
    if is_state_dir_name(parts[0]):  # in any case: one folder on macOS and Windows
        return f"a file in {STATE_DIR}/ (as {shown(parts[0])}), which holds this machine's own state"
    for p in parts:
        trouble = name_trouble(p)
        if trouble:
            return trouble
    size = len(rel.encode("utf-8", "surrogatepass"))
    if size > MAX_PATH_BYTES:
        return f"a path of {size} bytes (at most {MAX_PATH_BYTES})"
    if mode is not None and mode not in ("100644", "100755"):
        return {"120000": "a symlink", "160000": "a submodule",
                DUPLICATE: "two entries of this name in one folder, or names out of git's order (a malformed "
                           "tree, which `git fsck` refuses)"
                }.get(mode, f"an entry of mode {mode}")
    if len(parts) > 1 and parts[0] in _TOP_FILES:
        return f"a folder named {parts[0]}, where vault-mem keeps a file"
    if len(parts) > 1 and disk_name(parts[-1]) == CONFIG_FILE:
        # vault-mem finds a vault by the nearest vault.toml: run in that folder (a person's shell,
        # an agent's hook), it would open an empty vault of the peer's in place of this one
        return f"a {CONFIG_FILE} below the vault's top, which would make {shown(parts[-2])}/ a vault of its own"
    if len(parts) == 1 and parts[0] in _TOP_FOLDERS:
        return f"a file named {parts[0]}, where vault-mem keeps a folder of memories"
    return None


def case_collision(paths: Iterable[str], among: Iterable[str] = ()) -> tuple[str, str] | None:
    """The first two distinct paths, one of ``paths`` and one of ``paths`` or ``among``, that a
    case-insensitive file system (macOS, Windows) would take for one file (``facts/A.md`` and
    ``facts/a.md``; also a folder against a file), or None. A clone there would lose one."""
    for path, other in case_twins(sorted(paths), among):
        return other, path
    return None


def case_twins(paths: Iterable[str], among: Iterable[str] = ()) -> Iterator[tuple[str, str]]:
    """(path, the name it is one file with) for each of ``paths``, in the order given, that a
    case-insensitive, normalising file system takes for one of ``among`` or for one of ``paths``
    before it (on the way, as folder or file: :func:`~vault_mem.model.names.fold`). A path so
    found is left out of what the next ones are compared with: the earlier name keeps its place
    (sync takes the later ones out, :meth:`vault_mem.sync.replay.Replay.check_incoming`)."""
    spellings: dict[str, set[str]] = {}
    for p in among:
        parts = p.split("/")
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            spellings.setdefault(fold(sub), set()).add(sub)
    for p in paths:
        parts = p.split("/")
        subs = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
        other = next((n for sub in subs for n in sorted(spellings.get(fold(sub), ())) if n != sub), None)
        if other is not None:
            yield p, other
            continue
        for sub in subs:
            spellings.setdefault(fold(sub), set()).add(sub)


def first_unsafe_entry(modes: dict[str, str | None], prefix: str,
                       among: Iterable[str] = ()) -> tuple[str, str] | None:
    """(vault-relative path, why) of the first entry of ``modes`` (``{top-level path: mode}``)
    that :func:`unsafe_entry` refuses, in path order, or of two entries that differ only in
    case, or of one that differs only in case from one of ``among`` (top-level paths a commit
    holds beside them: :func:`held_beside`; :func:`case_collision`); None when all may be taken."""
    rels = {}
    for top in sorted(modes):
        rel = top[len(prefix):] if prefix and top.startswith(prefix) else top
        why = unsafe_entry(rel, modes[top])
        if why:
            return rel, why
        rels[rel] = top
    clash = case_collision(rels, [top[len(prefix):] for top in among if top.startswith(prefix)])
    if clash:
        return clash[1], f"a name that differs from '{shown(clash[0])}' only in case (one file on macOS and Windows)"
    return None


def prefix_twin(repo: GitRepo, commit: str, prefix: str) -> tuple[str, str] | None:
    """(the top-level path ``commit`` holds, the folder on the way to the vault it differs from
    only in case) for the first entry beside a folder of ``prefix`` (a project vault's
    ``memory/``, ``docs/memory/``) that a case-insensitive file system takes for that folder, or
    None. The vault's own checks read its folder alone, and a teammate's ``Memory/preferences/
    rule.md`` beside ``memory/``, which a plain ``git pull`` brings and no check named, is
    written by git on macOS and Windows into the vault's folder, where git shows it as no change
    and no untracked file: the teammate's pinned text read as the person's own new memory. Reads
    the trees on the way to the vault's folder (one for ``memory/``), never the vault's."""
    parts = prefix.rstrip("/").split("/") if prefix else []
    if not parts:
        return None
    held = held_beside(repo, commit, ["/".join(parts)])  # the folders on the way, not the vault's
    for depth in range(1, len(parts) + 1):
        folder = "/".join(parts[:depth])
        twin = next((name for name in held if name.count("/") == depth - 1 and name != folder
                     and fold(name) == fold(folder)), None)
        if twin is not None:
            return twin, folder
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

