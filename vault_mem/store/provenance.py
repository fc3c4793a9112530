"""Which commits were made on this machine: the record that tells a peer's commit from our own.

An email in a commit is whatever its author typed, so a peer can commit under this machine's
person's email or vault-mem's default agent email. What a peer cannot do is make a commit *here*.
So every commit made on this machine is recorded when it is made, and a commit that is not in
the record (fetched by a sync or a ``git pull``, present in a clone) counts as a peer's whatever
its email, unless its author is approved with ``vault-mem trust --author``
(:mod:`vault_mem.vault.authors`).

Commits made here, and where they are recorded:

- vault-mem's own (agent writes, the daemon's commits of hand edits, a new vault's first commit,
  sync's replays of local commits): :meth:`vault_mem.store.git.GitRepo.write_commit`, the one
  place vault-mem writes a commit object; a replay is recorded only when its original was;
- the person's ``git commit`` (and a merge concluded with ``git commit``): the ``post-commit``
  git hook (plain shell, no process). git runs no post-commit for a merge commit it makes
  itself (a clean ``git merge``/``git pull``): that commit stays unrecorded, and a text it makes
  (an automatic merge of a memory both sides changed) is judged a peer's
  (:class:`vault_mem.vault.authors.Origins`) until edited here;
- a ``cherry-pick`` or ``revert``: ``post-commit`` records it only when every text it leaves
  existed before at its path: a text git merged (the person's change replayed onto a peer's
  edit of the same memory) is no text made here. A ``git am`` is not recorded (its patch is
  someone's);
- the person's amend or rebase: the ``post-rewrite`` hook records each new commit whose old ones
  were recorded, a rebased one only when it holds no text git merged (each text it leaves is
  one an old commit left, or the text it started from at that path is the old one's).

- a ``git merge --squash`` concluded with ``git commit``: as a cherry-pick (``pre-commit`` sees
  ``SQUASH_MSG`` and leaves ``vault-mem-squash`` in the git folder for ``post-commit``). A pick or
  revert is told by git's state, never by its message: git's own commits by the log line's exact
  start, a ``git commit`` concluding one by ``pre-commit``'s ``vault-mem-replay``; each mark counts
  only for the ``git commit`` process that left it, and an amend concluding one is checked by
  ``post-rewrite`` (``store/hooks.RECORD``).

Not told apart here: a text git merges with no trace left (``git stash pop``, ``--autostash`` over
a peer's edit of a memory the person also changed, ``checkout -m``, a squash committed with
``--no-verify``) is an edit made here, and its commit one made here. Who it is by is decided where
authors are (:func:`vault_mem.vault.authors._adopted`): a change made here adopts only what it
changes, so while the lines the peer's change added survive in it, the memory stays the peer's.
What that rule cannot see (a peer's commit absent from the path's history, as a squash's) is in
RELIABILITY.md's known limits.

The record is ``vault-mem/local-commits`` in the repository's git folder (one id a line,
appended): nothing a commit, a checkout or a clone brings can write there. A repository without
a record yet is given one the first time it is read: for a repository made here before the record
existed (git's log of HEAD begins with a commit made here: :func:`made_here`), every commit of its
history whose author is one of this machine's trusted emails; empty for any other (a clone, a
``git init`` then ``git pull``, a log that is gone) (what counted before, so upgrading
changes nothing that was already there; see RELIABILITY.md for what that leaves).

Known limit: a peer who forges the email of an author the person approved with ``vault-mem trust
--author`` passes as that author; only signed commits (checked against keys the person holds)
would tell them apart.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from vault_mem.platform import settle  # a file's stat stamp
from vault_mem.store.files import ensure_own_dir, open_nofollow, read_own

__all__ = ["GIVEN_ELSEWHERE", "LOCAL_COMMITS", "REPLAYED_FROM", "given_recorded", "ids_in", "record_given", "local_commits", "made_here", "record_file", "record_local", "recorded", "replayed_file", "replayed_from"]

LOCAL_COMMITS = "local-commits"
#: the commits not made here whose texts a pick or revert recorded as made here left (post-commit's
#: replay check appends them): they stay named for the texts' origins whatever refs go
REPLAYED_FROM = "replayed-from"
#: what :func:`~vault_mem.store.history.given_elsewhere` found: ``COMMIT BLOB "PATH"`` a line, a
#: commit not made here that gave the top-level path those bytes. Kept whatever refs go (a peer
#: deletes its branch and the person's `git fetch --prune` drops it, FETCH_HEAD moves on, a gc
#: prunes the commit): once found, such bytes stay the peer's until the person approves them
#: (mendatk33)
GIVEN_ELSEWHERE = "given-elsewhere"
_FOLDER = "vault-mem"
#: per record file: (size, mtime) and the ids read then (a recall reads it without re-parsing)
_CACHE: dict[str, tuple[tuple[int, int], tuple[bool, frozenset[str]]]] = {}


def record_file(common_dir: Path) -> Path:
    """Where the record of the repository whose (common) git folder is ``common_dir`` lives."""
    return Path(common_dir) / _FOLDER / LOCAL_COMMITS


def replayed_file(common_dir: Path) -> Path:
    """Where :data:`REPLAYED_FROM` lives (beside the record)."""
    return Path(common_dir) / _FOLDER / REPLAYED_FROM


def replayed_from(common_dir: Path) -> list[str]:
    """The commits :data:`REPLAYED_FROM` names (what the replay check found the texts of a pick
    or revert it recorded in, not made here), one id a line as written. Read as the record is
    (:func:`_read`): a link there is refused by name."""
    try:
        data = _read(replayed_file(common_dir))
    except OSError:
        return []
    return [line.strip() for line in data.splitlines()]


def _read(path: Path) -> str:
    """The text of one of the records (:data:`LOCAL_COMMITS`, :data:`REPLAYED_FROM`), "" when there
    is none. vault-mem's own files, read as every one of them is
    (:func:`~vault_mem.store.files.read_own`): never through a link (a
    :class:`~vault_mem.errors.LinkError` names it), which :func:`record_local` never writes
    through either. Only this machine's user (or a group sharing the git folder) can put one
    there: no commit, checkout or clone writes in the git folder."""
    data = read_own(path)
    return data.decode("ascii", errors="replace") if data is not None else ""


def record_local(common_dir: Path, commits: Iterable[str]) -> None:
    """Add ``commits`` (full ids) to the record: they were made on this machine."""
    ids = [c for c in commits if c]  # (and the seeded mark)
    if not ids:
        return
    path = record_file(common_dir)
    ensure_own_dir(path.parent)
    fd = open_nofollow(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, "".join(f"{c}\n" for c in ids).encode("ascii"))  # one write: appends do not interleave
    finally:
        os.close(fd)


def given_recorded(common_dir: Path) -> list[tuple[str, str, str]] | None:
    """The ``(commit, top-level path, blob)`` :data:`GIVEN_ELSEWHERE` names (a line of another
    shape skipped; a vault's prefix for the path: any path of that vault). Read as the record is
    (a link there is refused by name). None when the record is past :data:`_GIVEN_MAX_BYTES`:
    callers then hold every file (the safe side)."""
    data = _given_data(common_dir)
    return None if data is None else _given_lines(data)


def _given_lines(data: bytes) -> list[tuple[str, str, str]]:
    """The ``(commit, top-level path, blob)`` lines of the record's bytes ``data``."""
    found = []
    for line in data.decode("utf-8", "surrogateescape").splitlines():
        commit, _, rest = line.partition(" ")
        blob, _, path = rest.partition(" ")
        try:
            top = json.loads(path)
        except ValueError:
            continue
        if isinstance(top, str) and len(commit) >= 40 and len(blob) >= 40:
            found.append((commit, top, blob))
    return found


#: the largest :data:`GIVEN_ELSEWHERE` read (read whole per check). It grows by at most
#: :data:`_GIVERS_KEPT` lines per path (or vault) and bytes found from elsewhere: past it (some
#: 40,000 such), every file is held until the person removes the record (the walk then finds
#: again what the refs still name)
_GIVEN_MAX_BYTES = 1 << 22
#: the commits kept per (path, bytes): one suffices to hold them; a second in case one is made here
_GIVERS_KEPT = 2


def _given_data(common_dir: Path) -> bytes | None:
    """:data:`GIVEN_ELSEWHERE`'s bytes (b"" when there is none), None past :data:`_GIVEN_MAX_BYTES`."""
    try:
        data = read_own(Path(common_dir) / _FOLDER / GIVEN_ELSEWHERE, max_bytes=_GIVEN_MAX_BYTES + 1)
    except OSError:
        return b""
    data = data or b""
    return None if len(data) > _GIVEN_MAX_BYTES else data


def record_given(common_dir: Path, found: Iterable[tuple[str, str, str]]) -> None:
    """Add ``found`` (``(commit, top-level path, blob)``, those not named yet) to :data:`GIVEN_ELSEWHERE`:
    at most :data:`_GIVERS_KEPT` commits per path and blob (a peer's 100,000 commits of the same
    bytes add two lines). A line a crash tore stays alone: a record not ending in a newline gets
    one first (the torn line is skipped as a line of another shape, never joined to a new one)."""
    data = _given_data(common_dir)
    if data is None:
        return  # past its cap: every file is held already
    have = _given_lines(data)  # the bytes read above: one read of the record
    per: dict[tuple[str, str], int] = {}
    for _c, t, b in have:
        per[(t, b)] = per.get((t, b), 0) + 1
    new = []
    for c, t, b in sorted(set(found) - set(have)):
        if per.get((t, b), 0) < _GIVERS_KEPT:
            per[(t, b)] = per.get((t, b), 0) + 1
            new.append((c, t, b))
    if not new:
        return
    path = Path(common_dir) / _FOLDER / GIVEN_ELSEWHERE
    ensure_own_dir(path.parent)
    fd = open_nofollow(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:  # one write: appends do not interleave
        lead = "\n" if data and not data.endswith(b"\n") else ""
        os.write(fd, (lead + "".join(f"{c} {b} {json.dumps(t)}\n" for c, t, b in new)).encode("ascii"))
    finally:
        os.close(fd)


_SEEDED = "seeded"  # the line that says the first record was made (it may be empty)


def ids_in(text: str) -> frozenset[str]:
    """The commit ids the record's ``text`` names (one a line; the seeding line is none)."""
    return frozenset(x for x in (line.strip() for line in text.splitlines()) if len(x) >= 40)


def recorded(common_dir: Path) -> tuple[bool, frozenset[str]]:
    """(whether the first record was made, the ids recorded so far), without seeding."""
    path = record_file(common_dir)
    try:
        st = path.lstat()  # a link's own stamp: it is refused below, never cached as the record
    except FileNotFoundError:
        return False, frozenset()
    stamp = settle.stamp(st)
    cached = _CACHE.get(str(path))
    if cached is not None and cached[0] == stamp:
        return cached[1]
    text = _read(path)
    found = (_SEEDED in {line.strip() for line in text.splitlines()}, ids_in(text))
    _CACHE[str(path)] = (stamp, found)
    return found


def local_commits(common_dir: Path, seed: Callable[[], Iterable[str]]) -> frozenset[str]:
    """The ids of the commits made on this machine. ``seed`` gives the first record of a
    repository that has none yet (see the module docstring); it is asked once. Commits recorded
    before that (a write made before any read) stay recorded."""
    seeded, ids = recorded(common_dir)
    if seeded:
        return ids
    record_local(common_dir, [*seed(), _SEEDED])
    return recorded(common_dir)[1]


def made_here(common_dir: Path) -> bool:
    """Was this repository's history begun on this machine: does git's log of HEAD begin with a
    commit made here (``commit (initial): ``, or ``commit: `` as vault-mem's own writes log it)?
    ``common_dir``: the main worktree's log, where the repository began (a linked worktree's
    begins with ``reset: moving to HEAD``, whatever the repository's origin).
    Only then is a repository without a record one made here before the record existed.
    Positive evidence, not the absence of ``clone:``: a repository joined with ``git init`` and
    ``git pull`` (``initial pull``), a fetch and a ``reset`` or ``checkout``, or one whose log is
    gone, holds a history that came from elsewhere, and seeding it by email took a peer's commit
    under vault-mem's default agent email for this machine's agent (tests/test_peer_attacks8.py)."""
    try:
        with open(Path(common_dir) / "logs" / "HEAD", encoding="utf-8", errors="replace") as fh:
            first = fh.readline()
    except OSError:
        return False
    message = first.partition("\t")[2]
    return message.startswith(("commit: ", "commit (initial): "))
