"""History from git: ``log`` of the vault or one key, and ``undo`` of an agent write.

``undo`` is ``git revert`` of that commit restricted to the files of the key it names, with
INDEX.md regenerated rather than patched (so it never conflicts: every write changes INDEX.md).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_mem.config import FOLDER_TYPES, TYPE_FOLDERS
from vault_mem.errors import MemoryNotFoundError, UsageError, VaultMemError
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import rel_path_for, validate_key
from vault_mem.model.policy import check_text, mask_secrets
from vault_mem.model.conflicts import CONFLICT_RE, copy_of, memory_key
from vault_mem.model.names import shown, shown_email
from vault_mem.model.trailers import AGENT, MEMORY_ACTION, MEMORY_KEY, RESOLVES, REVERTS, parse_trailers, trailer
from vault_mem.store.git import GitRepo
from vault_mem.store.history import (
    changed_paths,
    commit_trailers,
    commits_by_id,
    log_entries,
    version_commit,
)
from vault_mem.store.workspace import Workspace
from vault_mem.vault.transaction import WriteResult, WriteTransaction


def change_dates(ws: Workspace, files: list[tuple[str, int, bool]]) -> dict[str, str | None]:
    """When the content of memory files last changed, where a hand edit may have left their
    ``updated:`` behind ({vault-relative path: ISO date, or None: ``updated:`` dates it}; a path
    left out keeps what was recorded), for ``files`` as (path, mtime_ns, seen: the sidecar
    indexed other content there before). Asked only for files whose time is later than their
    ``updated:`` date, so an agent's write, which dates itself, costs no git call here.

    - A file as HEAD holds it: the commit that last changed it, when that is a person's (or the
      daemon's commit of a hand edit); a vault-mem write's commit (``Agent:`` trailer) dated it
      itself (an import keeps the dates it brought). Its file time says nothing: a checkout or
      a clone rewrites files.
    - A file that differs from HEAD (an edit not committed yet): its own time, when it replaced
      content indexed before; a file first seen uncommitted keeps what was recorded (nothing,
      for a new file: it says its own date)."""
    out: dict[str, str | None] = {}
    head = ws.repo.head()
    committed: dict[str, str] = {}
    try:
        # one parse of a folder's tree for many files (a fresh clone's first index asks for all)
        held = ws.repo.blobs_at(head, [ws.top(rel) for rel, _, _ in files]) if head is not None else {}
    except VaultMemError:
        return out  # git cannot answer now: the next reconcile asks again
    for rel, mtime_ns, seen in files:
        try:
            data = ws.disk_bytes(rel)
            top = ws.top(rel)
            clean = head is not None and data is not None and held.get(top) == GitRepo.blob_id(data)
        except (OSError, VaultMemError):
            continue  # changed under us: the next reconcile asks again
        if clean:
            committed[top] = rel
        elif seen:
            out[rel] = dt.date.fromtimestamp(mtime_ns / 1e9).isoformat()
    if committed:
        try:
            last = ws.repo.last_changes(list(committed))
        except VaultMemError:
            last = {}
        for top, (seconds, by_vault_mem) in last.items():
            out[committed[top]] = None if by_vault_mem else dt.date.fromtimestamp(seconds).isoformat()
    return out


@dataclass
class LogEntry:
    """One commit that touched the vault."""

    commit: str
    date: str
    author: str
    subject: str
    key: str | None
    action: str | None
    agent: str | None
    #: the author's email, and whether the commit counts as this machine's (made here by its
    #: person or agents, or by an author approved here): a peer picks its name, its email and
    #: its subject, so ``log`` marks what it made (as recall and get mark its memories)
    email: str = ""
    trusted: bool = True

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _key_paths(ws: Workspace, key: str) -> list[str]:
    return [ws.top(rel_path_for(key, t)) for t in TYPE_FOLDERS]


def log(ws: Workspace, key: str | None = None, *, limit: int = 20) -> list[LogEntry]:
    """Commits that touched the vault (or one key's file in any type folder), newest first.
    A credential in a subject or an author (a peer's commit, one made past the pre-commit hook)
    is masked: ``log`` is shown to people and agents alike (``vault-mem scan --history`` finds it)."""
    if key is not None:
        validate_key(key)
    paths = _key_paths(ws, key) if key else [ws.prefix or "."]
    from vault_mem.vault.authors import identities  # lazy: log is the only reader here

    ids, entries = identities(ws), []
    for commit, date, author, subject, trailers, email in log_entries(ws.repo, paths, limit=limit):
        t = parse_trailers(trailers)
        agent = t.get(AGENT)
        entries.append(LogEntry(commit, date, mask_secrets(author), mask_secrets(subject), t.get(MEMORY_KEY),
                                t.get(MEMORY_ACTION), mask_secrets(agent) if agent else agent,
                                mask_secrets(email), ids.standing(email, commit) != "peer"))
    return entries

def undo(tx: WriteTransaction, target: str, *, agent: str | None = None, commit: bool = False) -> WriteResult:
    """Revert the last agent commit for key ``target`` (or the commit ``target``; ``commit``:
    always the commit whose id starts with ``target``), inside the open write transaction ``tx``.

    Like ``git revert`` of that commit, restricted to the files of the key its trailers name
    (:func:`_of_named_key`), with INDEX.md regenerated rather than patched (so it never
    conflicts). A file changed since that commit is not overwritten: the undo is refused and
    says so. What it restores passes the write policy like any write (an old version holding a
    credential is not put back)."""
    ws = tx.ws
    commit, trailers, peer = _undo_target(ws, target, commit_id=commit)
    info = ws.repo.commit_info(commit)
    parent = info.parents[0] if info.parents else None
    names = changed_paths(ws.repo, parent, commit, ws.prefix or ".")
    changes: dict[str, bytes | None] = {}
    left: list[str] = []
    for top in names:
        rel = top[len(ws.prefix):]
        if rel == INDEX_FILE:
            continue
        if not _of_named_key(rel, trailers):
            left.append(rel)
            continue
        before = ws.repo.blob_at(parent, top)
        after = ws.repo.blob_at(commit, top)
        now_bytes = ws.disk_bytes(rel)
        now = GitRepo.blob_id(now_bytes) if now_bytes is not None else None
        if now == before:
            continue
        if now != after:
            raise VaultMemError(
                f"cannot undo {commit[:10]}: {rel} changed after it; see `vault-mem log "
                f"{trailers.get(MEMORY_KEY) or ''}`".rstrip() + " and remember the version you want"
            )
        tx.expect(rel, now_bytes)
        changes[rel] = ws.repo.read_object(before)[1] if before else None
    if not changes and peer is not None:
        raise VaultMemError(f"nothing to undo: {_peers_commit(commit, peer, trailers)}, and changed no text of "
                            f"it{_own_write(trailers)}")
    if not changes:
        raise VaultMemError(f"nothing to undo: the files of {commit[:10]} are already as before it")
    key = trailers.get(MEMORY_KEY) or Path(next(iter(changes))).stem
    rel_new = next((r for r, d in changes.items() if d is not None), None)
    type_ = _type_of(rel_new or next(iter(changes)))
    action = "create" if all(d is not None for d in changes.values()) and \
        trailers.get(MEMORY_ACTION) == "forget" else \
        "forget" if all(d is None for d in changes.values()) else "update"
    subject = f'Revert "{info.subject}"'
    result = tx.commit(
        changes, subject, key=key, action=action, type_=type_, agent=agent,
        extra_trailers=trailer(REVERTS, commit),
    )
    warnings = [f"{commit[:10]} also changed {', '.join(shown(r) for r in left[:5])}"
                f"{f' and {len(left) - 5} more' if len(left) > 5 else ''}, not of '{key}': left as they are"] \
        if left else []
    if peer is not None:  # the person asked for the key's last write and got a peer's change undone
        warnings.append(f"the change undone is {_peers_commit(commit, peer, trailers)}{_own_write(trailers)}")
    return WriteResult(key, type_, rel_new, "undo", result, [*warnings, *tx.warnings])


def _peers_commit(commit: str, email: str, trailers: dict[str, str]) -> str:
    """``commit``, the last one naming the key asked for, as a peer's (``email``, an author not
    approved here): its trailers are text its author typed."""
    return (f"the last commit naming '{trailers.get(MEMORY_KEY) or ''}', {commit[:10]}, is by {shown_email(email)}, "
            "an author not approved here (a commit's trailers are text its author writes)")


def _own_write(trailers: dict[str, str]) -> str:
    key = trailers.get(MEMORY_KEY) or ""
    return (f"; to undo a write of this machine's instead, name its commit: `vault-mem undo --commit ID` "
            f"(see `vault-mem log {key}`)")


def _of_named_key(rel: str, trailers: dict[str, str]) -> bool:
    """True when ``rel`` is a file of the key the commit's trailers name (``Memory-Key``, and a
    resolve's ``Resolves`` copy), in any type folder, or a sync conflict copy of it: the only
    files a vault-mem write of that key changes. Trailers are text a commit's author writes, so a
    peer's commit claiming ``Memory-Key: notes-x`` that also deleted (or put back) the person's
    ``facts/deploy.md`` made the person's ``undo notes-x`` revert that file too, in a commit of
    this machine's, saying only "undone: notes-x"."""
    key = memory_key(rel)
    if key is None:
        return False
    named = trailers.get(MEMORY_KEY)
    settled = trailers.get(RESOLVES)  # a conflict copy, never a memory of its own: the trailer is text too
    return bool(named) and (key == named or copy_of(key, named)) or \
        bool(settled) and key == settled and CONFLICT_RE.search(settled) is not None


#: an abbreviated or full commit id (git takes one in capitals too), the only revision a target
#: that is also a valid key can be
_COMMIT_ID = re.compile(r"[0-9a-fA-F]{4,64}")


def _undo_target(ws: Workspace, target: str, *, commit_id: bool = False
                 ) -> tuple[str, dict[str, str], str | None]:
    """The commit ``undo`` reverts, its trailers, and its author's email when a key named it and
    that commit is a peer's (None: this machine's, an approved author's, or named by the person)."""
    check_text("undo's target", target)
    if not target or target.startswith("-"):
        raise UsageError("undo needs a key or a commit id")
    if commit_id and not _COMMIT_ID.fullmatch(target):
        raise UsageError(f"--commit takes a commit id (4 to 64 hex digits, as `vault-mem log` shows), "
                         f"not '{shown(target[:80])}'")
    is_key = not commit_id
    try:
        validate_key(target)
    except VaultMemError:
        is_key = False
    if is_key:
        for entry in log(ws, target, limit=200):
            if entry.key == target and entry.action:
                _not_also_a_commit(ws, target, entry.commit)
                return (entry.commit, parse_trailers(commit_trailers(ws.repo, entry.commit)),
                        None if entry.trusted else entry.email)
        # a key is never a ref name: a plain `git pull` brings a peer's tags, and a tag named
        # like the person's hand-written memory made `undo KEY` revert the peer's commit
        if not _COMMIT_ID.fullmatch(target):
            raise MemoryNotFoundError(f"'{target}' has no vault-mem commit to undo (a memory written by hand "
                                      f"is changed back with git); see `vault-mem log {target}`")
    # an id that is a valid key is looked up among objects alone: a ref of that name (a peer's
    # tag named like the id `log` shows) is never the commit of that id
    commit, shadowed = version_commit(ws.repo, target)
    if shadowed:
        raise UsageError(_shadowed(target, shadowed, target))
    if commit is None:
        raise MemoryNotFoundError(
            f"'{target}' is neither a key with agent commits nor a commit; see `vault-mem log`"
        )
    body = commit_trailers(ws.repo, commit)
    trailers = parse_trailers(body)
    if MEMORY_KEY not in trailers:
        raise UsageError(f"{commit[:10]} is not an agent write (it has no {MEMORY_KEY} trailer)")
    return commit, trailers, None


def _not_also_a_commit(ws: Workspace, target: str, key_commit: str) -> None:
    """Refuse ``target`` when it is a key with vault-mem commits and also the id of another
    commit. Every commit id is a valid key and a key is anyone's to choose: a peer that read the
    id ``remember`` and ``log`` show for the person's write pushed a memory of that key, and the
    person's ``undo ID`` reverted the peer's commit instead, saying "undone" with the id and
    leaving the write in place. Neither meaning is taken: the person says which with
    ``--commit`` (a key made of hex digits alone is rare; one git process then)."""
    if not _COMMIT_ID.fullmatch(target):
        return
    commits = commits_by_id(ws.repo, target)
    others = [c for c in commits if c != key_commit] if commits is not None else ["?" * 40]
    if not others:
        return
    # several commits of that prefix (one a peer's, brute-forced to share the person's id) are as
    # much another meaning as one: the lookup of one id answered None for them and the key was taken
    if len(others) == 1 and commits is not None and not key_commit.startswith(target.lower()):
        what, which = f"commit {others[0][:10]}", f"`vault-mem undo --commit {target}` reverts commit {others[0][:10]}"
    else:
        what, which = "other commits", "`vault-mem undo --commit ID` with a commit's id in full (`git log`) reverts it"
    raise VaultMemError(
        f"'{target}' is both a memory's key (its last vault-mem commit {key_commit[:10]}) and the id of "
        f"{what}; nothing was undone. Say which: {which}, `vault-mem undo --commit {key_commit[:12]}` the "
        f"key's last change (see `vault-mem log {target}`)")


def _type_of(rel: str) -> str:
    return FOLDER_TYPES.get(rel.split("/", 1)[0], "note")


def _shadowed(rev: str, shadowed: list[str], lead: str) -> str:
    """The refusal of a name that stands for more than one ref: a peer's tag named like the
    person's branch (``main``), which a plain pull follows, is what git would read; neither is
    taken."""
    full = next((r for r in shadowed if r.startswith("refs/heads/")), shadowed[0])
    example = f"{lead}{full}" if lead.endswith("@") else full
    return (f"'{mask_secrets(rev)[:80]}' names more than one ref ({', '.join(shown(r) for r in shadowed[:3])}): "
            f"name the one meant in full (e.g. {example})")


def memory_file(ws: Workspace, key: str, rev: str) -> tuple[str, str]:
    """(path, text) of memory ``key``'s file as committed at ``rev`` (a commit id, ``HEAD~2``,
    a branch), through the same secret gate as every read: a version holding a credential is
    refused, naming the file (history keeps what a scan must purge, never what a reader gets)."""
    validate_key(key)
    # an id (hex digits, as `log` shows) is looked up among objects alone, as undo's: rev-parse
    # takes a ref of that name first, and a peer's tag named like the id `log KEY` shows for the
    # person's older version (a `git pull --tags` brings it) served the peer's text for it
    commit, shadowed = version_commit(ws.repo, rev)
    if shadowed:
        raise UsageError(_shadowed(rev, shadowed, f"{key}@"))
    if commit is None:
        raise UsageError(f"unknown revision '{mask_secrets(rev)[:80]}': use a commit id from "
                         f"`vault-mem log {key}`, HEAD, HEAD~N or a branch")
    for folder in TYPE_FOLDERS.values():
        rel = f"{folder}/{key}.md"
        blob = ws.repo.blob_at(commit, ws.prefix + rel)
        if blob is None:
            continue
        data = ws.repo.read_object(blob)[1]
        ws.policy.check_file(rel, data)  # malformed or a credential: refused, by name
        return rel, data.decode("utf-8")
    raise MemoryNotFoundError(f"no memory '{key}' at {commit[:10]}; `vault-mem log {key}` lists its versions")
