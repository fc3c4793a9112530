"""Share a vault through any git remote: fetch, integrate, push, with no memory lost to conflicts.

**Integration.** Local commits the remote has not seen are *replayed* onto the remote's branch
tip, one new commit per original commit (same author, author date and message; the syncing
agent is the committer), so history stays linear, keeps one commit per write, and shows no merge
commits. The replay is done here, not by ``git rebase``, because: (1) a vault may be a folder in a
larger repository, and rebase would rewrite and check out files outside it; (2) a conflicting
rebase stops half-way and leaves the repository in a rebase state, while our conflicts are decided
per *key* (a type change is a move between folders, which git sees as unrelated delete + add);
(3) each replayed commit gets an INDEX.md regenerated from its own files (the work tree walks
through each replayed state under the write lock, so the sidecar renders it), as every agent
commit must. The new commits are plain objects until a single compare-and-swap ``update-ref``
moves the branch; on any failure before or at that step the touched files are restored from the
old HEAD, so HEAD, files, git's index and the sidecar are left as they were. A journal
(``.vault-mem/sync.json``) lets the next sync or resolve do the same after a crash
(:func:`vault_mem.vault.recovery.recover_sync`).

**Conflict rule** (per key; "changed" = created, edited, moved to another type or deleted):

* changed on one side only: that side's change is applied.
* changed on both sides to the same result: nothing to decide.
* deleted on one side, edited on the other: the edit is kept (a deletion loses nothing that git
  history does not keep). The sync report lists it as ``kept-edit``.
* otherwise (both edited, both created, moved vs edited): the **remote's version keeps the key**
  (it is already published, other machines may hold it) and the local version becomes the
  conflict memory ``<key>.conflict-<7 hex of its blob id>`` in the local version's type folder,
  with frontmatter ``conflict_of: <key>``, ``conflict_author`` (who wrote it) and
  ``conflict_date`` (when the sync found it). :func:`list_conflicts` lists them;
  :func:`resolve` settles one in one commit. Replayed commits that lost their change to the
  remote carry a ``Sync-Conflict:`` trailer saying where it went.

Non-memory files (vault.toml, README.md, ...) changed differently on both sides stop the sync
before anything changes: merge them by hand. INDEX.md never conflicts: it is regenerated; a
fast-forward over a peer's commit made without vault-mem's hooks (INDEX.md left as it was) commits
INDEX.md alone in the person's name by the one rule (:func:`vault_mem.vault.person.commit_persons_index`)
and pushes it: a second clone's identical commit is dropped by its replay (the same tree).

**Vault inside a larger repository.** Sync integrates only when every commit to integrate, on
both sides since the common ancestor, changes paths inside the vault folder alone; otherwise it
refuses (nothing changed) and says to integrate with ``git pull --rebase`` / ``git push`` by hand.
It never writes, stages or checks out anything outside the vault.

Local commits are pushed as an explicit commit id, so the push runs outside the write lock: a
write that lands meanwhile is simply pushed by the next sync.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from vault_mem.config import DEFAULT_REMOTE
from vault_mem.errors import IdentityError, SyncError, VaultMemError
from vault_mem.model.conflicts import copied_from
from vault_mem.model.memory import is_memory_path
from vault_mem.model.names import shell_word, shown
from vault_mem.model.policy import describe_secrets, published_already
from vault_mem.store.attributes import protect
from vault_mem.store.git import GitRepo, damage_in, damaged_history_message
from vault_mem.store.history import (
    changes_outside,
    commits_with_parents,
    count_commits,
    current_branch,
    held_at,
    incoming_commits,
    is_ancestor,
    merge_base,
    paths_by_commit,
    remembered,
    remote_url,
    update_ref,
)
from vault_mem.store.network import (
    FETCH_MEMORY_BYTES,
    FetchQuarantine,
    SetAside,
    checked_part,
    local_git_dir,
    out_of_memory,
    receive_pack_args,
    refused_object,
    run_remote,
    upload_pack_args,
)
from vault_mem.store.upstream import note_stopped, remote_head_notice, replaced_history, synced_branch
from vault_mem.store.worktree import ensure_upstream
from vault_mem.sync.replay import MAX_COMMIT_BYTES, Replay, check_incoming_count
from vault_mem.sync.report import SyncReport
from vault_mem.vault.authors import displaced_by_peers
from vault_mem.vault.core import Vault
from vault_mem.vault.person import commit_persons_index

log = logging.getLogger(__name__)

#: the body of INDEX.md committed alone after a sync took a peer's commits made without vault-mem's hooks
SYNCED_INDEX_WHY = ("A sync took a peer's commits made without vault-mem's hooks (a plain `git commit` of memory "
                    "files), which left INDEX.md as it was; regenerated from the committed memory files by vault-mem.")
ATTEMPTS = 4  # the remote moved between our fetch and our push: fetch, integrate, push again
NET_TIMEOUT_S = 120.0

_AUTH = ("authentication failed", "permission denied", "could not read username",
         "could not read password", "terminal prompts disabled", "access denied", "error: 403",
         "error: 401")
#: git's refusal of a branch whose name another branch holds as a folder (``main`` beside ``main/x``)
_IN_THE_WAY = re.compile(r"cannot lock ref '[^']*': '(refs/[^']*)' exists; cannot create")
_RACE = ("non-fast-forward", "fetch first", "failed to update ref", "cannot lock ref", "stale info")
#: git received the remote's pack but could not keep it: a person's `git prune --expire=now` (or
#: `gc --prune=now`) deletes the temporary pack a fetch is writing, a race in git itself (its
#: "No such file or directory" is no network trouble). Fetching again works.
_PACK_LOST = ("unable to rename temporary", "invalid index-pack output", "index-pack failed",
              "unable to write file", "did not receive expected object")
FETCH_TRIES = 3
_UNREACHABLE = ("could not resolve", "connection refused", "timed out", "network is unreachable",
                "does not appear to be a git repository", "no such file or directory",
                "unable to access", "failed to connect", "could not read from remote")


# -- sync ------------------------------------------------------------------------------------

def sync(vault: Vault, *, remote: str | None = None, timeout_s: float = NET_TIMEOUT_S) -> SyncReport:
    """Fetch ``remote`` (default: vault.toml ``[sync] remote``, else ``origin``), integrate its
    commits with the local ones, push, and bring the sidecar and INDEX.md up to date."""
    repo = vault.repo
    name = vault.config.sync_remote_name(remote)
    branch = current_branch(repo)
    if branch is None:
        raise SyncError("unsafe", "HEAD is detached (not on a branch); check out your branch "
                        "(e.g. `git checkout main`) and sync again")
    url = remote_url(repo, name)
    if url is None:
        raise SyncError("unreachable", f"the vault's repository has no git remote '{name}'; add one with "
                        f"`git remote add {name} URL` (any URL git accepts: a path, ssh or https), or "
                        "pass --remote NAME")
    # a fresh clone lacks the driver and attributes; a peer's may steer git. The branch's
    # upstream is read with the driver's settings (one git process)
    merge, up = protect(repo, vault.prefix, f"branch.{branch}.merge", f"branch.{branch}.remote").values()
    rbranch = synced_branch(branch, name, merge, up)
    # an upstream set before this sync is never changed: ensure_upstream (which reads again) is
    # asked only when there was none
    had_upstream = bool(merge or up)
    tracking = f"refs/remotes/{name}/{rbranch}"
    report = SyncReport(remote=name, branch=rbranch)
    # the checks ask git the same questions of the same commits (what changed, their merge
    # base, the commits of each side): one git process per question for the whole sync
    with remembered(repo):
        report = _attempts(vault, name, url, branch, rbranch, tracking, had_upstream, report, timeout_s)
    note_stopped(vault.state_dir, None)
    return report


def _attempts(vault: Vault, name: str, url: str, branch: str, rbranch: str, tracking: str, had_upstream: bool,
              report: SyncReport, timeout_s: float) -> SyncReport:
    """:func:`sync`'s fetch, integrate and push, again while the remote moves meanwhile."""
    repo = vault.repo
    for attempt in range(1, ATTEMPTS + 1):
        report.attempts = attempt
        seen = repo.ref_in_files(tracking)  # the remote's tip as this clone last saw it
        remote_tip, aside = _fetch(repo, name, url, rbranch, tracking, timeout_s)
        # the write transaction's first steps: lock, finish a crashed write or sync, git state;
        # the replay then writes each file through the same WritePolicy (sync/replay.py)
        with vault.transaction():
            before = repo.head()
            check_outgoing(vault, remote_tip, before, name)
            head, index = _integrate(vault, remote_tip, report, seen)
            indexed = None
            if head != before:  # the remote's files came in: stat the vault once for them
                vault.reconcile(force=True, recover=False)
                if head == remote_tip:
                    # a fast-forward over commits a peer made without vault-mem's hooks left
                    # INDEX.md stale: committed alone in the person's name, as a plain `git pull`'s
                    # post-merge hook does (the one rule), and pushed with the rest; a replayed
                    # commit carries INDEX.md regenerated already
                    try:
                        indexed = commit_persons_index(vault.ws, vault.sidecar, SYNCED_INDEX_WHY, rendered=index)
                    except IdentityError as exc:  # the peer's commits are in: said, never a failed sync
                        log.warning("vault-mem sync: INDEX.md is not committed (%s); the next agent commit "
                                    "carries it", exc)
                    head = indexed or head
            if head:
                vault.sidecar.set_meta("head", head)
        report.head = head
        if aside is not None:
            # the remote's branch goes on past what was taken: nothing can be pushed onto it
            # until the commits set aside leave it (the person's commits stay here, committed)
            report.set_aside = _set_aside_info(aside, count_commits(repo, head, remote_tip) if head else 0)
            return report
        if head is None or head == remote_tip:
            if remote_tip is not None:  # the branch is on the remote: a plain `git pull` works now
                report.upstream_set = not had_upstream and ensure_upstream(repo, branch, name, rbranch)
            return report
        # every commit this push publishes, the sync's own too, through the one check; but the
        # INDEX.md commit alone on the remote's tip, which carries nothing the check refuses (a
        # fixed message, INDEX.md rendered from the index, which holds no quarantined file)
        if head != before and not indexed:
            check_outgoing(vault, remote_tip, head, name, before=before or remote_tip)
        # the INDEX.md commit on the remote's tip is the one commit to push: git is not asked
        count = 1 if indexed else count_commits(repo, head, remote_tip)
        try:
            err = _push(repo, name, url, head, rbranch, timeout_s)
        except SyncError as exc:
            if not report.displaced:
                raise
            # the remote's commits are in: what they took from the person is said now or never
            raise SyncError(exc.reason, f"{exc}. Received meanwhile: {'; '.join(report.displaced_lines())}") from exc
        if err is None:
            update_ref(repo, tracking, head)
            report.pushed = int(count)
            if remote_tip is None:  # the branch is new there: is it what a new clone checks out?
                report.remote_head = remote_head_notice(repo, name, url, rbranch, timeout_s)
            report.upstream_set = not had_upstream and ensure_upstream(repo, branch, name, rbranch)
            return report
    raise SyncError("race", f"the remote '{name}' kept moving: someone pushed during each of {ATTEMPTS} "
                    "attempts. Your writes are committed locally and integrated; run `vault-mem sync` again")


def _set_aside_info(aside: SetAside, unpushed: int) -> dict:
    """What :attr:`SyncReport.set_aside` says of ``aside``: the commit by its id, never its
    subject or author's name, text its writer chose (the commit is one written by hand), which
    the sync's line and ``--json`` gave an agent outside any statement that it is data
    (mendinj33)."""
    return {"commit": aside.commit, "count": aside.count, "refused": aside.said, "unpushed": unpushed}


def _classify(stage: str, name: str, url: str, err: str, root) -> SyncError:
    low = err.lower()
    lines = [ln.strip() for ln in err.splitlines() if ln.strip() and not ln.startswith("hint:")]
    key_lines = [ln for ln in lines if ln.startswith(("fatal:", "error:", "remote:", "!"))] or lines
    said = "; ".join(re.sub(r"^(fatal|error): ", "", ln) for ln in key_lines[:2]).rstrip(".") or "no message"
    after = ("nothing local changed" if stage == "fetch" else
             "your writes are committed locally and integrated; the next sync pushes them")
    if any(s in low for s in _AUTH):
        return SyncError("auth", f"remote '{name}' ({url}) refused our credentials ({said}). vault-mem never "
                         "prompts for a password: set up an SSH key or a git credential helper, check it "
                         f"with `git fetch {name}`, then sync again; {after}")
    if damage_in("\n".join(ln for ln in lines if not ln.startswith("remote:"))):
        # this repository's own history cannot be read (pack-objects met a damaged object), not
        # the remote's refusal
        return SyncError("damaged", f"git {stage} with '{name}' failed: {damaged_history_message(root, said)}; "
                         f"{after}")
    if stage == "push" and "refusing to update checked out branch" in low:
        # a remote with a work tree on this machine: sync's receive-pack runs none of its settings
        # (receive_pack_args), so its `receive.denyCurrentBranch=updateInstead` does not apply
        return SyncError("rejected", f"remote '{name}' ({url}) is a repository with a work tree whose "
                         "checked-out branch is the one sync pushes to; vault-mem pushes to a repository on "
                         "this machine without running its settings or hooks, so git refuses to change the "
                         "files checked out there. Use a bare repository as the remote (`git clone --bare "
                         f"{url} PATH.git`, then `git remote set-url {name} PATH.git` in both vaults), or "
                         "push by hand (`git push`); your writes are committed locally and integrated, and no "
                         "sync pushes them until the remote is changed")
    if stage == "push" and "rejected" in low:
        return SyncError("rejected", f"remote '{name}' rejected the push ({said}); check the branch's "
                         f"protection or the server's hooks; {after}")
    if any(s in low for s in _UNREACHABLE):
        return SyncError("unreachable", f"cannot reach remote '{name}' ({url}): {said}. Check the URL "
                         f"(`git remote -v`) and the network, then sync again; {after}")
    return SyncError("rejected", f"git {stage} to '{name}' ({url}) failed: {said}; {after}")


def _fetch(repo, name: str, url: str, rbranch: str, tracking: str, timeout_s: float
           ) -> tuple[str | None, SetAside | None]:
    """The remote's tip of ``rbranch``, its objects in the repository and ``tracking`` on it
    (None: the remote has no such branch). Fetched through a :class:`FetchQuarantine`: a
    person's prune or repack running meanwhile, even in a loop, cannot take what it brings.
    Where git's check refuses an object of it, the part that passes instead, and what was set
    aside (:func:`_fetch_checked_part`); None for a branch fetched whole."""
    def point(ref: str, new: str, until: float) -> None:
        # within the fetch's time-out, as git's own fetch moved it: a hook may hold a ref update
        done = run_remote(repo, max(1.0, until - time.monotonic()), "update-ref", "-m", f"sync: fetch {name}",
                          ref, new, refs=(ref,))
        if done.returncode != 0:
            raise SyncError("race", f"git fetch from '{name}' could not move {ref} ({done.stderr.strip()[:200]}); "
                            "nothing local changed: sync again")

    for attempt in range(1, FETCH_TRIES + 1):
        until = time.monotonic() + timeout_s
        with FetchQuarantine(repo) as quarantine:
            proc = run_remote(repo, timeout_s, "fetch", "--quiet", "--no-tags", "--refmap=",
                              *upload_pack_args(repo.toplevel, url), name, f"+refs/heads/{rbranch}",
                              env=quarantine.env)
            tip = quarantine.fetched(rbranch) if proc.returncode == 0 else None
            if tip is not None:
                warnings: list[str] = []
                quarantine.land(tip, tracking, lambda ref, new: point(ref, new, until), warnings)
                for line in warnings:
                    log.warning("vault-mem: sync: keeping the fetched objects: %s", line)
                return tip, None
        if proc.returncode == 0:  # FETCH_HEAD rewritten by another fetch meanwhile: fetch again
            log.info("vault-mem: sync: the fetched commit could not be told (try %d of %d)", attempt, FETCH_TRIES)
            continue
        if "couldn't find remote ref" in proc.stderr:
            return None, None  # an empty remote, or the branch is not there yet: push creates it
        if refused_object(proc.stderr) is not None:
            return _fetch_checked_part(repo, name, url, rbranch, tracking, timeout_s, proc.stderr, point)
        if out_of_memory(proc.stderr):
            raise SyncError("rejected", f"the commits on '{name}' ({url}) {rbranch} need more than "
                            f"{FETCH_MEMORY_BYTES >> 20} MB of memory for git to receive (the bound a sync "
                            "gives git fetch: a push of a few hundred bytes can ask for any amount, with an "
                            "object that expands or a tree thousands of folders deep); no vault's memories "
                            "need that. Nothing local changed. Revert the commit that brought it on the "
                            "remote (find it with `git log` there), or fetch it by hand once "
                            "(`git fetch`) if it is wanted; then sync again")
        if not any(s in proc.stderr.lower() for s in _PACK_LOST):
            raise _classify("fetch", name, url, proc.stderr, repo.toplevel)
        log.info("vault-mem: sync: the fetched pack was lost while git wrote it (try %d of %d): %s",
                 attempt, FETCH_TRIES, proc.stderr.strip())
        time.sleep(0.2 * attempt)
    said = "; ".join(ln.strip() for ln in proc.stderr.splitlines() if ln.strip())[:300]
    raise SyncError("race", f"git fetch from '{name}' received the remote's commits {FETCH_TRIES} times but could "
                    f"not keep them in this repository ({said}): a `git gc`/`git prune` running meanwhile "
                    "removes the pack git is writing, or the disk is full. Nothing local changed; sync again "
                    "once it is done (or free disk space)")


def _fetch_checked_part(repo, name: str, url: str, rbranch: str, tracking: str, timeout_s: float, said: str,
                        point: Callable[[str, str, float], None]) -> tuple[str | None, SetAside]:
    """The remote's branch holds an object git's check refuses (a checked fetch said ``said``):
    fetched again unchecked into a quarantine whose objects never reach the repository, the
    part of it that passes the check is landed (``tracking`` on its last commit) and the rest
    set aside (:func:`~vault_mem.store.network.checked_part`), within a time-out of its own
    (``timeout_s`` again: what is left of the first fetch's could be too little to fetch the
    same commits twice, and every sync would time out; such a sync takes up to twice the
    time-out). The commit to integrate (the repository holds it; None: nothing of the
    remote's) and what was set aside."""
    until = time.monotonic() + timeout_s
    try:
        with FetchQuarantine(repo) as unchecked:
            proc = run_remote(repo, timeout_s, "fetch", "--quiet", "--no-tags", "--refmap=",
                              *upload_pack_args(repo.toplevel, url), name, f"+refs/heads/{rbranch}",
                              env=unchecked.env, checked=False)
            tip = unchecked.fetched(rbranch) if proc.returncode == 0 else None
            if tip is None:  # the remote moved or went meanwhile: said as the first fetch's refusal
                raise _classify("fetch", name, url, said if proc.returncode == 0 else proc.stderr, repo.toplevel)
            good, take, aside = checked_part(repo, unchecked, tip, said, until)
    finally:
        # FETCH_HEAD names the remote's tip, whose objects were not kept: a `git merge
        # FETCH_HEAD` would meet a commit this repository lacks (on every way out: a refusal, a
        # time-out of the check)
        (repo.git_dir / "FETCH_HEAD").unlink(missing_ok=True)
    if good is None:
        return take or repo.ref_value(tracking), aside
    with good:
        warnings: list[str] = []
        good.land(take, tracking, lambda ref, new: point(ref, new, until), warnings)
        for line in warnings:
            log.warning("vault-mem: sync: keeping the fetched objects: %s", line)
    return take, aside


def _push(repo, name: str, url: str, head: str, rbranch: str, timeout_s: float) -> str | None:
    """None when pushed; the error text when the remote moved meanwhile (retry); raises otherwise."""
    local = local_git_dir(repo.toplevel, url)
    proc = run_remote(repo, timeout_s, "push", "--quiet", "--porcelain", *receive_pack_args(repo.toplevel, url),
                      name, f"{head}:refs/heads/{rbranch}",
                      remote_refs=(local, ((f"refs/heads/{rbranch}", head),)) if local is not None else None)
    if proc.returncode == 0:
        return None
    err = proc.stderr + proc.stdout
    blocker = _IN_THE_WAY.search(err)
    if blocker:
        # no race: git keeps no branch inside another's name, and pushing again never helps (a
        # peer deleted the branch and pushed `main/x`: every clone's sync said "kept moving")
        raise SyncError("rejected", f"remote '{name}' ({url}) holds the branch '{shown(blocker.group(1))}', where "
                        f"sync pushes refs/heads/{rbranch} (git keeps no branch inside another's name): "
                        "someone deleted the branch and pushed one in its place. Look at it there (`git "
                        f"fetch {name} {shell_word(blocker.group(1))}`, `git log FETCH_HEAD`), take what it "
                        f"holds into the vault by hand if it is wanted, remove it (`git push {name} "
                        f":{shell_word(blocker.group(1))}`), then sync again; your writes are committed "
                        "locally, nothing was pushed")
    if any(s in err.lower() for s in _RACE):
        return err
    raise _classify("push", name, url, err, repo.toplevel)


# -- integration ----------------------------------------------------------------------------

def _integrate(vault: Vault, remote_tip: str | None, report: SyncReport,
               seen: str | None = None) -> tuple[str | None, bytes | None]:
    """Bring the remote's commits into the local branch (caller holds the lock): the new HEAD,
    and INDEX.md as the replay rendered it last into the work tree (None: no replay ran).
    ``seen``: the remote's tip as this clone saw it before the fetch (its tracking ref)."""
    repo = vault.repo
    local = repo.head()
    if local is None:
        raise SyncError("unsafe", "this repository has no commit yet; clone the remote instead")
    if local == remote_tip:
        return local, None
    base = None
    if remote_tip is not None:
        base = merge_base(repo, local, remote_tip)
        if not base:
            note_stopped(vault.state_dir, report.remote, report.branch)  # every command says so
            raise SyncError("unsafe", replaced_history(report.remote, report.branch, remote_tip, vault.root))
    if remote_tip is not None and base != remote_tip:
        # first: what git is asked next lists every path the remote's commits change
        check_incoming_count(repo, local, remote_tip)
        # the tip seen last is the merge base whenever the remote only went on from it (no git
        # asked); else a force-push took commits the remote held: their copies here are
        # replayed, and a peer's text put under a key meanwhile is a conflict, said as one
        if seen is not None and seen != base and not is_ancestor(repo, seen, remote_tip):
            report.rewritten = count_commits(repo, seen, remote_tip)
    if vault.prefix:
        # inside a larger repository: integrate and publish vault-only history, nothing else
        outside = _outside(repo, vault.prefix, base, local)
        if remote_tip is not None:
            outside += _outside(repo, vault.prefix, base, remote_tip)
        if outside:
            raise SyncError("unsafe", f"commits to integrate or push change files outside the vault "
                            f"({', '.join(shown(p) for p in sorted(set(outside))[:3])}); vault-mem only syncs vault-only "
                            "history. Integrate by hand (`git pull --rebase`, then `git push`) and sync "
                            "again; nothing changed")
    if remote_tip is None or base == remote_tip:
        return local, None  # only local commits: nothing to integrate
    # counted from the list the size check reads too (one streamed rev-list, nothing per commit kept)
    report.received = incoming_commits(repo, remote_tip, local, MAX_COMMIT_BYTES)[0] if local else \
        count_commits(repo, remote_tip, local)
    commits = []
    for ids in commits_with_parents(repo, local, base):
        if len(ids) > 2:
            raise SyncError("unsafe", f"local history has a merge commit ({ids[0][:10]}) the remote lacks; "
                            "integrate by hand (`git pull`, then `git push`) and sync again; nothing changed")
        if ids:
            commits.append((ids[0], ids[1]))
    # before the replay moves HEAD: who made each memory is judged as of this side's branch
    try:
        report.add_displaced(displaced_by_peers(vault.ws, vault.sidecar, base, local, remote_tip))
    except VaultMemError as exc:  # a warning's check: it never stops the sync itself
        log.warning("vault-mem sync: could not check which of your memories the remote's commits "
                    "delete or change (%s); `vault-mem log` and `git log -p` show them", exc)
    replay = Replay(vault, base, local, remote_tip, commits, report)
    return replay.run(), replay.index


def check_outgoing(vault: Vault, remote_tip: str | None, local: str | None, name: str = DEFAULT_REMOTE,
                   *, before: str | None = None) -> None:
    """Refuse to publish a commit holding a credential: one made past the pre-commit hook
    (``--no-verify``), in a memory file or in its message. The one home of the check on what a
    sync pushes: asked of the local commits before the integration (a refusal then changes
    nothing), and again (``before`` given) of every commit between the remote's tip and the new
    HEAD right before the push, so the commits the sync makes itself (the replayed ones, their
    conflict copies, the take-out commit that puts back this side's files, the INDEX.md commit)
    are seen as they go out (``before``: HEAD before the integration, given then; ``local`` is
    the new HEAD, on the remote's tip). A file the remote published already is not held against
    this machine's commits (:func:`_published`, the one exception: its bytes on a commit of the
    remote's, or each of its credentials one the remote's version of that file holds, at its tip
    or where ``before`` left it; a peer published them, it is quarantined here, and the take-out
    commit puts back this side's file as the base held it). A refusal of the first pass says this
    sync changed nothing, not that nothing changed: the commit it names may be an earlier
    sync's, whose push failed."""
    if local is None or local == remote_tip:
        return
    repo, prefix, policy = vault.repo, vault.prefix, vault.ws.policy
    if before is None and remote_tip is not None and merge_base(repo, local, remote_tip) == local:
        return  # the remote holds every local commit: nothing of this side is published
    after = ("nothing was pushed; the remote's commits are integrated here, yours on them" if before
             else "nothing was pushed, and this sync changed nothing")
    published: list[str] = []  # the remote's commits a file is compared with: asked once a file holds a credential

    def remotes() -> list[str]:
        if not published and remote_tip:
            base = merge_base(repo, before, remote_tip) if before and before != remote_tip else None
            published.extend(c for c in (remote_tip, base) if c)
        return published

    seen: set[str] = set()
    left: list[tuple[str, str, str, str, list]] = []  # (commit, top, rel, blob, findings) no comparison settled
    for commit, tops in paths_by_commit(repo, remote_tip, local, prefix or "."):
        message = repo.commit_message(commit)  # a damaged commit: HistoryDamagedError, with its fix
        try:
            policy.check_message(message)
        except VaultMemError as exc:
            raise SyncError("unsafe", f"the local commit {commit[:10]} would be published by this sync, and "
                            f"{str(exc).removeprefix('refused: ').split('. ')[0]}. Reword it first "
                            f"(`git rebase -i {name}/<branch>`), then sync again; {after}") from None
        for top in tops:
            rel = top[len(prefix):]
            blob = repo.blob_at(commit, top) if top.startswith(prefix) and is_memory_path(rel) else None
            if blob is None or blob in seen:
                continue
            seen.add(blob)
            data = repo.read_object(blob)[1]
            found = policy.file_secrets(rel, data)
            if found and not _published(repo, prefix, top, data, remotes()):
                left.append((commit, top, rel, blob, found))
    # the remote's tip and the merge base compared first, file by file; the history look, one
    # walk for all that is left (a commit of the remote's held those very bytes at that path)
    held = held_at(repo, remote_tip, [(top, blob) for _, top, _, blob, _ in left]) if left and remote_tip else set()
    for commit, top, rel, blob, found in left:
        if (top, blob) in held:
            continue  # the remote has these very bytes at this path already: a peer's
        raise SyncError("unsafe", f"the local commit {commit[:10]} would publish {rel}, which holds "
                        f"{describe_secrets(found)}. "
                        f"Take it out of the local history first (`git rebase -i {name}/<branch>` to edit "
                        f"that commit, or `git filter-repo --path {top} --invert-paths`), then sync "
                        f"again; {after}")


def _published(repo: GitRepo, prefix: str, top: str, data: bytes, commits: list[str]) -> bool:
    """:func:`check_outgoing`'s exception, its cheap half: the file at ``top`` (holding ``data``),
    one with a credential, is the remote's already when ``commits`` (the remote's tip, the merge
    base) hold each of its credentials in that file, or its very bytes
    (:func:`~vault_mem.model.policy.published_already`). A conflict copy is compared with the
    remote's versions of the file it copies (its path is on no remote commit). What this leaves
    is asked of the remote's history in one walk (:func:`~vault_mem.store.history.held_at`: the
    take-out commit putting back a peer's file published long ago, in a sync whose push failed
    before, whose first check has no merge base to compare with)."""
    rel = top[len(prefix):]
    copied = copied_from(rel, data)
    paths = [top, *([prefix + copied] if copied else [])]
    public = {(p, repo.blob_at(c, p)) for c in commits for p in paths} - {(p, None) for p in paths}
    return any(published_already(rel, data, repo.read_object(b)[1], p[len(prefix):]) for p, b in sorted(public))


def _outside(repo, prefix: str, a: str | None, b: str) -> list[str]:
    return changes_outside(repo, a, b, prefix)


# -- the daemon's schedule ------------------------------------------------------------------

@dataclass
class SyncState:
    """The daemon's sync schedule for one vault (monotonic seconds)."""

    next_due: float = 0.0
    backoff_until: float = 0.0
    failures: int = 0
    wrote: bool = False
    last_error: str | None = None

    def note_write(self) -> None:
        """Call after a local write when ``[sync] after_write`` is on."""
        self.wrote = True


MAX_BACKOFF_S = 3600.0


def sync_if_due(vault: Vault, state: SyncState, *, now: float | None = None,
                timeout_s: float = 60.0) -> SyncReport | None:
    """Sync when the schedule says so; never raises a VaultMemError (it lands in
    ``state.last_error`` and the next try backs off exponentially, up to an hour)."""
    cfg = vault.config
    now = time.monotonic() if now is None else now
    interval = cfg.sync_interval_s
    if now < state.backoff_until:
        return None
    due = (interval > 0 and now >= state.next_due) or (cfg.sync_after_write and state.wrote)
    if not due:
        return None
    state.wrote = False
    def back_off(error: str) -> None:
        state.failures += 1
        state.last_error = error
        delay = min(MAX_BACKOFF_S, max(interval, 30.0) * 2 ** (state.failures - 1))
        state.backoff_until = state.next_due = now + delay
        state.wrote = state.wrote or cfg.sync_after_write  # the write is still to be pushed

    try:
        report = sync(vault, remote=cfg.sync_remote or None, timeout_s=timeout_s)
    except VaultMemError as exc:
        back_off(str(exc))
        return None
    if report.set_aside is not None:  # what could be taken was; the push waits for the remote's fix
        back_off(report.summary())
        return report
    state.failures, state.last_error = 0, None
    state.next_due = now + interval if interval > 0 else float("inf")
    return report


def run_schedule(root, stop: threading.Event, *, tick_s: float = 5.0) -> None:
    """The daemon's sync thread: ``sync_if_due`` every few seconds until ``stop`` is set.

    It opens its own Vault (the write lock is re-entrant per object, so sharing the daemon's
    would give no mutual exclusion). A local write is noticed as a HEAD the thread did not make;
    failures back off inside :func:`sync_if_due` and are logged once per new error."""
    log = logging.getLogger("vault_mem.sync.remote")
    vault = Vault(root)
    state = SyncState()
    cfg = vault.config
    period = min(tick_s, cfg.sync_interval_s) if cfg.sync_interval_s > 0 else tick_s
    seen_head = vault.repo.head()
    last_error = None
    try:
        while not stop.wait(period):
            head = vault.repo.head()
            if head != seen_head:
                state.note_write()
            report = sync_if_due(vault, state)
            # what this sync pushed, not HEAD now: a write landing while the push ran (outside
            # the write lock) is a HEAD not seen yet, pushed at the next tick
            seen_head = report.head if report is not None and report.head else head
            if report is not None:
                log.info("vault-mem sync: %s", report.summary())
            if state.last_error != last_error and state.last_error:
                log.warning("vault-mem sync failed (will retry with back-off): %s", state.last_error)
            last_error = state.last_error
    finally:
        vault.close()
