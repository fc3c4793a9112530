"""How every write ends: the commit message, INDEX.md on disk, and sidecar + INDEX.md + commit.

Shared by the write transaction (:mod:`vault_mem.vault.transaction`) and crash recovery
(:mod:`vault_mem.vault.recovery`), which finishes a journaled write the same way.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Callable
from dataclasses import dataclass

from vault_mem.config import CONFIG_FILE, FOLDER_TYPES
from vault_mem.errors import GitError, VaultMemError, WriteFailedError
from vault_mem.index import committed as committed_view
from vault_mem.index.sidecar import Sidecar
from vault_mem.model.indexmd import INDEX_FILE, forms, older_forms, same_listing
from vault_mem.model.memory import is_memory_path
from vault_mem.model.trailers import memory_trailers
from vault_mem.store.files import PRIVATE_FILE, atomic_write, checkpoint, current_bytes, holds, read_own, refuse_link
from vault_mem.store.history import changed_entries, merge_base
from vault_mem.store.trust import seal, unseal
from vault_mem.store.workspace import Workspace
from vault_mem.store.worktree import dirty_paths
from vault_mem.vault import committed

#: under .vault-mem/: the intent of the write under way (see vault_mem.vault.transaction)
JOURNAL = "pending.json"
#: under .vault-mem/: the journal of a write whose caller was told it failed (renamed from
#: JOURNAL, which needs no free space): the next writer rolls its files back, never finishes it
ROLLBACK = "pending.failed.json"
#: what :func:`read_journal` returns for a journal this machine did not write
FOREIGN = object()
#: under .vault-mem/: the blob ids of the files of the last writes whose callers were told they
#: failed (one a line): a `git stash` taken while such a write was on disk brings its bytes
#: back with its pop (or an autostash), after the write put back what it found
FAILED_BLOBS = "failed-writes"
#: how many of those ids are kept
FAILED_BLOBS_KEPT = 256


def note_failed_write(ws: Workspace, blobs: list[str]) -> None:
    """Record the blob ids of a failed write's files (best effort: on a full disk the rollback
    journal alone says what to put back)."""
    path = ws.state_dir / FAILED_BLOBS
    try:
        kept = [b for b in failed_writes(ws) if b not in blobs]
        lines = [*kept, *blobs][-FAILED_BLOBS_KEPT:]
        atomic_write(path, ("\n".join(lines) + "\n").encode(), mode=PRIVATE_FILE)
    except (OSError, VaultMemError):
        pass


def failed_writes(ws: Workspace) -> list[str]:
    """The blob ids :func:`note_failed_write` recorded, oldest first."""
    try:
        raw = read_own(ws.state_dir / FAILED_BLOBS)
    except (OSError, VaultMemError):
        return []
    if raw is None:
        return []
    return [line for line in raw.decode("ascii", "replace").split() if len(line) == 40]


def write_journal(ws: Workspace, name: str, entry: dict) -> None:
    """Journal ``entry`` as ``.vault-mem/<name>``, signed with this machine's key. A journal
    that cannot be written (a full or read-only disk) refuses the write before anything
    changed, as a :class:`WriteFailedError` (a bare OSError reached API and MCP callers as an
    internal error: found by bench/chaos.py)."""
    try:
        atomic_write(ws.state_dir / name, seal(ws.root, name, entry), mode=PRIVATE_FILE)
    except OSError as exc:
        raise WriteFailedError(f"nothing was written: the journal {ws.state_dir / name} could not be written "
                               f"({exc.strerror or exc}); check the free disk space and that the vault is "
                               "writable, then retry") from exc


def read_journal(ws: Workspace, name: str, *, sealed_as: str | None = None) -> dict | object | None:
    """The journal ``.vault-mem/<name>`` when this machine wrote it for this vault; None when
    there is none; :data:`FOREIGN` for anything else (planted through a commit, copied from
    another vault or machine, damaged, a symlink): it is removed, never applied or committed.
    ``sealed_as``: the name it was written under (a journal renamed since, :data:`ROLLBACK`)."""
    path = ws.state_dir / name
    if not os.path.lexists(path):
        return None
    try:
        raw = read_own(path)
    except VaultMemError:
        raw = None
    entry = unseal(ws.root, sealed_as or name, raw) if raw else None
    if entry is None:
        path.unlink(missing_ok=True)
        return FOREIGN
    return entry


def files_in_flight(ws: Workspace) -> frozenset[str] | None:
    """The files of the write whose journal is on disk (vault-relative): the daemon's work beside
    a write that waits for git leaves them to it. None when no journal of this machine's can be
    read (that work then waits for the whole lock)."""
    try:  # read as read_journal does, but never removed: a foreign one is that write's to see
        raw = read_own(ws.state_dir / JOURNAL)
        journal = unseal(ws.root, JOURNAL, raw) if raw else None
    except (OSError, VaultMemError):
        return None
    if not isinstance(journal, dict) or not isinstance(journal.get("files"), dict):
        return None
    return frozenset(rel for rel in journal["files"] if isinstance(rel, str))


def commit_message(subject: str, *, key: str, action: str, type_: str, agent: str,
                   extra_trailers: str = "") -> str:
    """The message of an agent commit: the subject, then the Memory-* and Agent trailers (the
    commit escapes what could drive a terminal: :meth:`~vault_mem.store.git.GitRepo.commit_paths`)."""
    return f"{subject}\n\n{memory_trailers(key=key, action=action, type_=type_, agent=agent)}{extra_trailers}"


#: under .vault-mem/: INDEX.md was held back by a person's git operation and is owed (its words
#: inside); the next command of any kind writes it once the operation is over
INDEX_OWED = "index-owed"


@dataclass(frozen=True)
class IndexWrite:
    """What :func:`write_index` did. ``new``: INDEX.md's new bytes when they changed (None: it
    was current already, or was not written). ``held_back``: the person's git operation under way
    that kept INDEX.md from being written, in words (None: it was not held back); INDEX.md may
    then be stale, and is owed (:func:`index_owed`) until written. ``was_owed``: this write paid
    what an earlier one had held back."""

    new: bytes | None = None
    held_back: str | None = None
    was_owed: bool = False


def write_index(ws: Workspace, sidecar: Sidecar, *, in_git_hook: bool = False,
                keep_committed: bool = True, held: frozenset[str] = frozenset()) -> IndexWrite:
    """Regenerate INDEX.md on disk from the sidecar (the caller holds the write lock). Not while
    a person's git operation is under way (a rebase, pull, checkout or stash finds INDEX.md
    changed and stops half-way; an autostash rebase then leaves the person's edits in a stash),
    nor while git's ``index.lock`` is held (a git command between its steps would find the work
    tree changed); ``in_git_hook``: that lock is the running git's own (a pre-commit hook).

    The answer says it was held back, and INDEX.md is then owed (``.vault-mem/index-owed``):
    the next command of any process (a read finding no file changed, the daemon's retry, an
    MCP server's timer) writes it once git is done, instead of taking it for current. The one
    place INDEX.md on disk is regenerated outside a write, so every caller (a read that finds
    files changed, the daemon, recovery, the post-checkout hook) asks here, under the lock.

    ``keep_committed``: HEAD's INDEX.md stays on disk when the files' INDEX.md differs from it by
    vault-mem's own catching up alone (:func:`committed_index_kept`: a memory that expired);
    False for a commit that carries it (the pre-commit hook) and ``vault-mem index --write``.

    ``held``: the files of a write in flight that waits for git (the daemon working beside it,
    :meth:`~vault_mem.store.locks.WriteLock.acquire_or_beside`): listed as HEAD holds them, as
    INDEX.md on disk shows a write only once its commit has landed."""
    busy = ws.repo.person_operation()
    if busy is None and not in_git_hook and ws.repo.index_locked():
        busy = "git's index.lock is held"
    if busy is not None:
        _owe_index(ws, busy)
        return IndexWrite(held_back=busy)
    replaced = replace_index(ws, sidecar, keep_committed=keep_committed, held=held)
    return IndexWrite(new=replaced, was_owed=_paid_index(ws))


def index_owed(ws: Workspace) -> bool:
    """Whether a person's git operation held back an INDEX.md that is still owed."""
    return os.path.lexists(ws.state_dir / INDEX_OWED)


def _owe_index(ws: Workspace, why: str) -> None:
    try:  # best effort: on a full or read-only disk, the next change of a file rewrites it too
        atomic_write(ws.state_dir / INDEX_OWED, why.encode(), mode=PRIVATE_FILE)
    except (OSError, VaultMemError):
        pass


def _paid_index(ws: Workspace) -> bool:
    try:
        os.unlink(ws.state_dir / INDEX_OWED)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # still marked: written again next time (it is current: a no-op)
    return True


def align_index(ws: Workspace, sidecar: Sidecar) -> IndexWrite:
    """Bring the sidecar in line with every file, then INDEX.md on disk with the sidecar unless a
    person's git operation is under way (:func:`write_index`, whose answer this is; the caller
    holds the write lock). A checkout whose post-checkout hook found the lock taken leaves this
    to the agents ("they bring INDEX.md up to date"): an INDEX.md left from another tree would
    make the person's next checkout refuse."""
    sidecar.reconcile(embed=False)
    return write_index(ws, sidecar)


def index_due(ws: Workspace, sidecar: Sidecar, *, keep_committed: bool = True,
              held: frozenset[str] = frozenset()) -> bytes:
    """The INDEX.md that belongs on disk now: rendered from the sidecar, or HEAD's where the two
    differ by vault-mem's own catching up alone (``keep_committed``, :func:`committed_index_kept`).
    One answer for the writer (:func:`replace_index`) and for ``doctor``'s check of the file.
    ``held``: memory files of a write in flight, shown as HEAD holds them (see :func:`write_index`)."""
    held_memories = sorted(rel for rel in held if is_memory_path(rel))
    if held_memories:
        head = ws.repo.head()

        def version(top: str) -> bytes | None:
            oid = ws.repo.blob_at(head, top) if head else None
            return ws.repo.read_object(oid)[1] if oid else None
        new = index_of(ws, sidecar, version, changed=lambda: held_memories)
    else:
        new = sidecar.render_index(budget_tokens=ws.config.index_budget_tokens).encode()
    if keep_committed:
        new = committed_index_kept(ws, sidecar, new) or new
    return new


def replace_index(ws: Workspace, sidecar: Sidecar, *, keep_committed: bool = False,
                  held: frozenset[str] = frozenset()) -> bytes | None:
    """INDEX.md on disk rendered from the sidecar, with no check of git (:func:`write_index`
    makes them; a write, after its commit landed, needs none); the new bytes when they changed. ``keep_committed``: HEAD's INDEX.md instead when
    the difference is vault-mem's own catching up (:func:`committed_index_kept`)."""
    new = index_due(ws, sidecar, keep_committed=keep_committed, held=held)
    path = ws.root / INDEX_FILE
    # never through a link (a symlinked INDEX.md is refused by name), never read whole: a
    # peer's INDEX.md of any size is written over unread
    if holds(path, new):
        return None
    atomic_write(path, new)
    return new


def committed_index_kept(ws: Workspace, sidecar: Sidecar, new: bytes) -> bytes | None:
    """HEAD's INDEX.md, to stay on disk in place of ``new`` (the files' INDEX.md today), when
    the two differ by vault-mem's own catching up alone: every memory file in the work tree is
    HEAD's (the committed view), vault.toml is HEAD's, and no person's commit left HEAD's
    INDEX.md stale (:func:`stale_by_persons_commits`: that one
    is shown on disk, and committed alone in the person's name where the one rule may). What is left is a memory whose
    ``expires:`` passed, or the secret gate now holding one back: nobody's change, carried by
    the next agent commit (as the one rule says). Written to disk, it stood modified in the
    person's work tree until then: ``git status`` showed it, and a ``git checkout`` of a
    branch whose INDEX.md differs was refused for it. HEAD's is kept only when it is what these
    files gave on the day of HEAD's commit (not a hand-made or a peer's INDEX.md committed
    without the hook), by this code or an older one (without the note to agents,
    :func:`~vault_mem.model.indexmd.older_forms`: a vault upgraded keeps its INDEX.md until
    its next write). None: write ``new``."""
    repo = ws.repo
    head = repo.head()
    oid = repo.blob_at(head, ws.top(INDEX_FILE)) if head else None
    if oid is None or oid == repo.blob_id(new):
        return None
    if oid in {repo.blob_id(older) for older in older_forms(new)}:
        return repo.read_object(oid)[1]  # an older vault-mem's INDEX.md of these very lines: the next write adds the note
    if committed.differing(ws, sidecar, head):
        return None  # a person's edit, a new file: INDEX.md on disk reflects every file
    config = repo.blob_at(head, ws.top(CONFIG_FILE))
    on_disk = current_bytes(ws.root / CONFIG_FILE)
    if (config is None) != (on_disk is None) or (on_disk is not None and config != repo.blob_id(on_disk)):
        return None  # a setting not committed (a budget): the person's change, shown as it is
    if stale_by_persons_commits(ws, sidecar) is not None:
        return None
    # only an INDEX.md these very files gave on the day it was committed: one edited by hand or
    # crafted by a peer and committed without the hook is no catching up, and is written over
    when = repo.committed_at(head)
    if when is None:
        return None
    then = sidecar.render_index(budget_tokens=ws.config.index_budget_tokens,
                                today=dt.date.fromtimestamp(when)).encode()
    header = repo.object_header(oid)
    if header not in {("blob", len(form)) for form in forms(then)}:
        return None  # read only when it can be that one: a peer's INDEX.md of any size stays unread
    data = repo.read_object(oid)[1]
    return data if same_listing(data, then) else None


def stale_by_persons_commits(ws: Workspace, sidecar: Sidecar) -> str | None:
    """HEAD, when a person's commits made HEAD and changed what INDEX.md is made of (memory
    files, vault.toml's budget) while leaving INDEX.md as it was; else None. The first condition
    of :func:`~vault_mem.vault.person.commit_persons_index` (which commits it in the person's
    name where the one rule may), whatever the vault's commit mode; INDEX.md on disk then shows
    the catching up (:func:`committed_index_kept` does not keep HEAD's)."""
    repo = ws.repo
    head, seen = repo.head(), sidecar.get_meta("head")
    if head is None or not seen or head == seen:
        return None  # seen None (a fresh clone, a rebuilt index): the agent commit carries it, as before
    # the commits HEAD has that the one last seen has not: after a checkout of a branch that
    # forked off before it, those of that branch since the fork, not the other branch's too
    base = merge_base(repo, seen, head)
    if not base:
        return None  # the commit last seen is gone (a gc), or damaged history: as above
    try:
        changed = changed_entries(repo, base, head, ws.prefix or ".")
    except GitError:
        return None  # damaged history (store.gitdamage): as above
    if not any(_shapes_index(ws, p) for p in changed):
        return None
    if ws.top(INDEX_FILE) in changed and _index_as_committed(ws, sidecar, head):
        return None
    return head


def _index_as_committed(ws: Workspace, sidecar: Sidecar, head: str) -> bool:
    """Whether HEAD's INDEX.md is the one HEAD's memory files gave on the day of HEAD's commit:
    a commit through the pre-commit hook (or vault-mem's own) made it so. A rebase or a
    cherry-pick replays an agent commit's INDEX.md as a textual diff onto another tree (a
    peer's memory that a hookless commit brought in): INDEX.md changed, yet it does not list
    what HEAD holds; the one rule catches that up in the person's name too (it used to say no,
    and the next agent commit carried the peer's line: tests/test_reliability_pull_index.py)."""
    repo = ws.repo
    oid = repo.blob_at(head, ws.top(INDEX_FILE))
    when = repo.committed_at(head)
    if oid is None or when is None:
        return True  # no INDEX.md committed, or no date to render it for: as before
    then = commit_index(ws, sidecar, [], head, today=dt.date.fromtimestamp(when))
    return oid in {repo.blob_id(form) for form in forms(then)}


def _shapes_index(ws: Workspace, top: str) -> bool:
    """Whether the top-level path ``top`` is one INDEX.md is made of: a memory file, or
    vault.toml (its ``[index] budget_tokens``)."""
    return top == ws.top(CONFIG_FILE) or is_memory_path(top.removeprefix(ws.prefix))


def commit_index(ws: Workspace, sidecar: Sidecar, rels: list[str], parent: str | None, *,
                 today: dt.date | None = None) -> bytes:
    """INDEX.md for a commit of ``rels`` on ``parent``: generated from the tree being committed
    (``parent``'s tree plus this write), never from the work tree: every row that holds a
    version ``parent`` does not (the committed view, :mod:`vault_mem.vault.committed`: a
    person's uncommitted edit, or one a read indexed and the person undid since) is swapped
    for ``parent``'s version (see :func:`index_of`)."""
    def version(top: str) -> bytes | None:
        oid = ws.repo.blob_at(parent, top)
        return ws.repo.read_object(oid)[1] if oid else None
    committed.bring_to(ws, sidecar, parent)  # its git diff and blob fill before the render's transaction
    # inside it, only the table the triggers keep is read again (a read that indexed a file
    # meanwhile gave its row a blob id, and the triggers listed it)
    return index_of(ws, sidecar, version, skip=set(rels), changed=lambda: committed_view.differing(sidecar.db),
                    today=today)


def index_of(ws: Workspace, sidecar: Sidecar, version: Callable[[str], bytes | None], *,
             skip: set[str] = frozenset(), changed: Callable[[], list[str]] | None = None,  # type: ignore[assignment]
             today: dt.date | None = None) -> bytes:
    """INDEX.md of a tree that holds what the work tree does, except for the memory files
    ``changed()`` names (default: those ``git status`` reports: a person's uncommitted, staged
    or new files): for those, ``version(top-level path)`` gives the tree's bytes (None: not in
    it). The sidecar holds the work tree's files; the differences are applied in a view it
    rolls back. ``skip``: the vault-relative paths whose work-tree version is the tree's (the
    write being committed). ``today``: the day to render it for (the list's expiries and ages).

    ``changed()`` is asked again inside the render's transaction: another process's read may
    index a file between the first answer and the render (issue 25 item 6: a failed write's
    bytes a stash pop brought back, listed in the next agent commit's INDEX.md). A path on
    the first list only is harmless (the tree's version over a row that already holds it)."""
    if changed is None:
        paths = changed_memory_paths(ws)
        changed = lambda: paths  # noqa: E731 - git status is asked once
    # the tree's versions read before the transaction (git processes), more inside if needed
    known = {rel: version(ws.top(rel)) for rel in changed() if rel not in skip}
    checkpoint("index-overrides", ws.state_dir)

    def overrides() -> dict[str, bytes | None]:
        for rel in changed():
            if rel not in skip and rel not in known:
                known[rel] = version(ws.top(rel))
        return known
    return sidecar.render_index_with(overrides, budget_tokens=ws.config.index_budget_tokens, today=today).encode()


def changed_memory_paths(ws: Workspace) -> list[str]:
    """The vault-relative memory files ``git status`` reports (differing from HEAD, staged, or
    new and not ignored)."""
    out = []
    for top in dirty_paths(ws.repo, [ws.top(f) for f in FOLDER_TYPES]):
        rel = top[len(ws.prefix):] if top.startswith(ws.prefix) else None
        if rel is not None and is_memory_path(rel):
            out.append(rel)
    return sorted(out)


def finish_write(ws: Workspace, sidecar: Sidecar, files: dict[str, bytes | None], message: str, who: str,
                 *, branch: str | None = None, warnings: list[str] | None = None,
                 caught_up: bool = False, changed: list[str] | None = None,
                 aside: Callable[[], contextlib.AbstractContextManager] | None = None) -> str | None:
    """Sidecar + commit + INDEX.md for files already on disk; clears the journal.

    The commit holds ``files`` as given (the bytes the write checked and wrote, never re-read
    from disk, where a checkout or an editor may have changed them meanwhile) and INDEX.md as
    :func:`commit_index` makes it. INDEX.md on disk, which reflects every file, is written once
    the commit has landed: written before, it stood changed in the work tree for as long as the
    commit took, and a person's ``git checkout`` of a branch whose INDEX.md differs was refused
    by git ("your local changes to INDEX.md would be overwritten": issue 25 item 4, 6 of 7
    checkouts while agents wrote). A write that fails before landing has not touched it.

    ``caught_up``: a watcher's exact catch-up (an MCP server's ``Keeper``) brought the sidecar
    up to every change made before the write began, so no ``git status`` is asked (the one
    step that checks every file); a change made during the write is the watcher's to apply, as
    one made just after ``git status`` ran is the next read's.

    ``changed``: what ``git status`` said, asked by the caller before the files landed (a
    write); None asks it here (recovery, whose files are on disk already).

    ``aside``: the write lock's :meth:`~vault_mem.store.locks.WriteLock.stepped_aside`, for a
    commit that waits for a person's git command (the write's journal names its files)."""
    rels = list(files)
    checkpoint("during-index", ws.state_dir)
    head = ws.repo.head()
    if caught_up:
        others: set[str] = set()  # the watcher brought every other file's row up to date
    else:
        # So that INDEX.md on disk reflects every file: what a person changed since the sidecar
        # last looked (git status), and every row that holds a version HEAD does not (the
        # committed view: an uncommitted edit, or one undone since a read indexed it, which
        # git status no longer reports)
        status = changed if changed is not None else changed_memory_paths(ws)
        others = {*status, *committed.differing(ws, sidecar, head)}
    # no vectors here: made once the commit has landed (the last step below). Made here, with
    # the model at hand (an MCP server, an API caller), they took about a quarter of the time
    # the write's file stood changed on disk before its commit, and a person's `git checkout`
    # of a branch holding another version of it was refused by git for that long
    sidecar.refresh_paths([*rels, *sorted(p for p in others if p not in files)], embed=False)
    refuse_link(ws.root / INDEX_FILE)  # refused before the commit, as a write of it would be
    parents: list[str | None] = []

    def index_for(parent: str | None) -> bytes:
        parents.append(parent)
        return commit_index(ws, sidecar, rels, parent)
    index_written: list[bool] = []

    def index_on_disk() -> None:  # the moment the commit lands: git sees INDEX.md changed until then
        if not index_written:
            index_written.append(True)
            _index_after_commit(ws, sidecar)
    commit = ws.repo.commit_paths(
        {ws.top(rel): data for rel, data in files.items()}, message, author=ws.identity(who),
        branch=branch, derived=(ws.top(INDEX_FILE), index_for), warnings=warnings, landed=index_on_disk,
        aside=aside)
    # From here on the write has landed (or had nothing to commit): nothing may fail it any more,
    # or a caller told "failed" would find it committed; what goes wrong is a warning.
    steps = [index_on_disk,  # when nothing was committed (a recovered write that had landed)
             lambda: _refresh_staging(ws, rels, commit, warnings),
             lambda: committed.after_commit(ws, sidecar, commit, parents[-1], files) if commit and parents else None,
             # what the next command would ask git about HEAD (its tree's check, its vault.toml)
             lambda: ws.own_commit_landed(parents[-1], commit, {**{r: d is not None for r, d in files.items()},
                                                                INDEX_FILE: True}) if commit and parents else None,
             lambda: checkpoint("after-commit", ws.state_dir),
             lambda: sidecar.set_meta("head", commit) if commit else None,
             lambda: (ws.state_dir / JOURNAL).unlink(missing_ok=True),
             # the vectors the refresh above left owed, when the model is at hand already (as
             # refresh_paths would have made them): a recall right after finds them
             lambda: sidecar.vectors.make_owed(None)]
    for step in steps:
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - a full disk, a read-only index: the commit stands
            if warnings is not None:
                warnings.append(f"committed, but tidying up after the commit failed ({exc}); "
                                "the next command finishes it")
    return commit


def _index_after_commit(ws: Workspace, sidecar: Sidecar) -> None:
    """INDEX.md on disk after a write's commit; one that cannot be written (a full disk) is owed
    to the next command (:func:`index_owed`): the sidecar is in line, so nothing else would."""
    try:
        replace_index(ws, sidecar)
    except BaseException:
        _owe_index(ws, "a write could not write it")
        raise


def _refresh_staging(ws: Workspace, rels: list[str], commit: str | None, warnings: list[str] | None) -> None:
    if commit is None:
        # Nothing new to commit: a recovered write whose commit landed before the crash, maybe
        # before git's staging area was refreshed (commit_paths skips that when there is no
        # commit); refresh it, or `git status` shows the file deleted and untracked.
        try:
            ws.repo.sync_index([ws.top(rel) for rel in [*rels, INDEX_FILE]])
        except VaultMemError as exc:  # the files are committed: this is only git's staging area
            if warnings is not None:
                warnings.append(f"git's staging area was not refreshed ({exc})")
