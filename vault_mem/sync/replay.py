"""The local half of a sync: replay local commits onto the remote's tip, and put files back.

:class:`Replay` rebuilds the local commits on the remote branch tip, one new commit per original,
walking the work tree through each replayed state and deciding conflicts per key (the rules are in
:mod:`vault_mem.sync.remote`'s docstring). Its journal (``.vault-mem/sync.json``) lets
:func:`vault_mem.vault.recovery.recover_sync` finish or roll back a sync that a crash interrupted.

Kept apart from remote.py, which talks to the remote (fetch, push, their errors), checks that the
histories can be integrated and schedules the daemon's syncs; nothing here uses the network.

A memory file from the remote that holds a credential is taken, and quarantined like a person's
hand edit (``model/policy.py``): not listed in INDEX.md (the work tree's nor any replayed
commit's), not searchable, not shown, and named in :attr:`SyncReport.quarantined` with the purge
recipe. Refusing it would protect nothing: the peer's commit is already on the remote and its
objects are already fetched into this repository; it would only stop every clone from syncing
until history is rewritten.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from vault_mem.config import CONFIG_FILE, TYPE_FOLDERS
from vault_mem.errors import SyncError, VaultMemError
from vault_mem.model.conflicts import conflict_key, mark_conflict, memory_key
from vault_mem.model.indexmd import INDEX_FILE, older_forms
from vault_mem.model.memory import is_memory_path
from vault_mem.model.names import REFUSED, named, quoted, shell_word, shown
from vault_mem.model.policy import fix_recipe, mask_secrets
from vault_mem.model.trailers import SYNC_CONFLICT, add_trailers, trailer
from vault_mem.store.files import atomic_write, checkpoint, current_bytes, fsync_dir
from vault_mem.store.gitfiles import unapproved_git_files
from vault_mem.store.history import (
    DUPLICATE,
    LEAVES,
    MAX_INCOMING_PATHS,
    edit_tree_entries,
    holding_order,
    blob_sizes,
    case_twins,
    changed_count,
    changed_entries,
    changed_paths,
    incoming_commits,
    log_entries,
    staged_against,
    tree_entries,
    tree_entry,
    unsafe_entry,
)
from vault_mem.store.trust import approved_config
from vault_mem.sync.report import SyncReport
from vault_mem.vault.authors import keep_peers_lines
from vault_mem.vault.core import Vault
from vault_mem.vault.recovery import SYNC_JOURNAL, put_back
from vault_mem.vault.steps import write_journal

log = logging.getLogger("vault_mem.sync.replay")

#: Most bytes of files one sync writes (the sum over the incoming paths, each counted). Git stores
#: a blob once however many paths name it, so a push of one 80 KB blob under 20,000 names (a
#: pack of ~300 KB) had every clone write 1.6 GB and index it for as long as that took; this
#: bounds what one push makes a clone write to what a large real change needs (16,000 memories
#: of 4 KB).
MAX_INCOMING_BYTES = 64 * 1024 * 1024
#: Largest commit object one sync takes (its message and author are nearly all of it). A peer's
#: commit of a 19 MB message made every command read it while it was the last to change
#: vault.toml (the pending-settings notice names that commit) and `vault-mem log` take 12 s of
#: CPU and 373 MB; git would fetch one of up to the fetch's memory bound (512 MB). A person's
#: commit message is a few KB; a squash of a long branch, a few hundred.
MAX_COMMIT_BYTES = 1024 * 1024
#: most entries a sync's commit that takes them out names one by one (its message stays far
#: under :data:`MAX_COMMIT_BYTES`, which every other clone's sync checks it against)
TAKEN_OUT_NAMED = 50
#: a tree's mode of a file committed executable (a regular file all the same: taken)
EXECUTABLE = "100755"


def check_incoming_count(repo, local: str, remote_tip: str) -> None:
    """Refuse, before any listing of them, the remote's commits when they change more than
    :data:`MAX_INCOMING_PATHS` paths of the repository against ``local``: counted tree by tree
    and stopped there (:func:`~vault_mem.store.history.changed_count`), so a peer's tree that
    names one folder many times (a few KB pushed, any number of paths) costs its distinct
    trees, not its paths. Called first, before anything asks git what the commits change."""
    if changed_count(repo, local, remote_tip, MAX_INCOMING_PATHS) > MAX_INCOMING_PATHS:
        raise _too_many(remote_tip, f"more than {MAX_INCOMING_PATHS}")


def _too_many(remote_tip: str, count: str) -> SyncError:
    return SyncError("unsafe", f"the remote's commits (tip {remote_tip[:10]}) change {count} files, more than one "
                     f"sync takes ({MAX_INCOMING_PATHS}); if that change is wanted (a large import), integrate "
                     "it by hand once (`git pull --rebase`, then `vault-mem doctor`), else revert it on the "
                     "remote; then sync again; nothing changed")


class Replay:
    """Rebuild local commits on the remote tip, walking the work tree through each state."""

    def __init__(self, vault: Vault, base: str, local: str, remote_tip: str,
                 commits: list[tuple[str, str]], report: SyncReport):
        self.vault, self.repo, self.prefix = vault, vault.repo, vault.prefix
        self.base, self.local, self.remote_tip, self.commits = base, local, remote_tip, commits
        self.report = report
        self.touched: set[str] = set()
        #: ``{top-level path: (mode, id) or None}`` of what the remote's commits changed (check_incoming)
        self.entries: dict[str, tuple[str, str] | None] = {}
        self.today = dt.date.today()
        #: INDEX.md as rendered last into the work tree (the new HEAD's files): the one rule's
        #: check after a fast-forward compares it with HEAD's (sync/remote.py)
        self.index: bytes | None = None
        #: ``{top-level path: (mode, id)}`` this side held where the remote's commits hold an entry
        #: taken out (check_incoming): what the sync's own commit puts back (_take_out)
        self.ours: dict[str, tuple[str, str]] = {}
        #: ``{top-level path: why}`` of the remote's entries taken out (check_incoming)
        self.removed: dict[str, str] = {}

    def changed(self, a: str, b: str) -> list[str]:
        return [p[len(self.prefix):] for p in changed_paths(self.repo, a, b, self.prefix or ".")]

    def blob(self, commit: str, rel: str, void: str | None = None) -> str | None:
        """The blob id at ``rel`` in ``commit``; in the remote's tip, as the tip will be after the
        sync's take-out (:meth:`_taken_out_at`): what this side held there, else none. Every
        read of the remote tip goes through here, so nothing taken out is planned, copied or
        written (a peer's symlink or over-limit file under a key this side edits was written to
        disk as a regular file; one over the person's edited file made a conflict). ``void``:
        the commit a taken-out path reads from instead (the plan asks what the remote changed,
        and a change taken out is none: the base's; the replay then gives this side's)."""
        if commit == self.remote_tip and (cut := self._taken_out_at(self.prefix + rel)) is not None:
            if void is not None:
                return self.repo.blob_at(void, self.prefix + rel)
            return self.repo.blob_at(self.local, self.prefix + rel) if cut in self.ours else None
        return self.repo.blob_at(commit, self.prefix + rel)

    def _taken_out_at(self, top: str) -> str | None:
        """The path check_incoming took out that is ``top`` or one of its folders, else None."""
        if not self.removed:
            return None
        if top in self.removed:
            return top
        cut = top.rfind("/")
        while cut > 0:
            if top[:cut] in self.removed:
                return top[:cut]
            cut = top.rfind("/", 0, cut)
        return None

    def key_state(self, commit: str, key: str, void: str | None = None) -> tuple[str, str] | None:
        for folder in TYPE_FOLDERS.values():
            oid = self.blob(commit, f"{folder}/{key}.md", void)
            if oid:
                return f"{folder}/{key}.md", oid
        return None

    def plan(self, ours: set[str]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """Modes per key (``copy`` for the contested ones) and per plain path (``skip``), and the
        conflict copy names. ``ours``: every path a local commit touched (not just the net
        change: a local edit-then-undo must not be replayed over the remote's edit)."""
        # the remote's changes, each one taken out void (read as the base held it): the replay of
        # this side's commits over it gives what the take-out puts back, this side's
        theirs = {rel for rel in self.changed(self.base, self.remote_tip) if self._taken_out_at(self.prefix + rel) is None}
        modes: dict[str, str] = {}
        copies: dict[str, str] = {}
        for key in sorted({k for p in ours if (k := memory_key(p))}):
            b, mine, other = (self.key_state(c, key, self.base) for c in (self.base, self.local, self.remote_tip))
            if other == b or mine == other:
                continue
            if other is None and mine is not None and mine != b:
                self._conflict(key, "kept-edit", "deleted on the remote, edited here: the edit is kept")
                continue
            # the remote's version keeps the key; each local version goes to the conflict copy,
            # which the replay removes again where the local side deleted or restored the key
            modes[key] = "copy"
            copies[key] = conflict_key(key, (mine or b or other)[1])  # type: ignore[index]
            if mine is None:
                self._conflict(key, "kept-edit", "deleted here, edited on the remote: the edit is kept")
            elif mine != b:
                self._conflict(key, "copy", f"changed on both sides: the remote's version keeps the key, "
                               f"this machine's is now '{copies[key]}'", copy=copies[key])
        plain: dict[str, str] = {}
        for rel in ours & theirs:
            if memory_key(rel) or rel == INDEX_FILE:
                continue
            b, mine, other = (self.blob(c, rel) for c in (self.base, self.local, self.remote_tip))
            if mine == other:
                continue
            if mine != b:
                raise SyncError("unsafe", f"{shown(rel)} was changed both here and on the remote; merge it by hand "
                                "(`git pull --rebase`, fix, `git push`) and sync again; nothing changed")
            plain[rel] = "skip"
        return modes, copies, plain

    def _conflict(self, key: str, kind: str, detail: str, copy: str | None = None) -> None:
        self.report.conflicts.append({"key": key, "kind": kind, "detail": detail, "conflict_key": copy})

    def check_incoming(self, incoming: list[str]) -> dict[str, str]:
        """``{top-level path: why}`` of each remote tree entry that vault-mem must not take from a
        peer (DESIGN §7): anything but a regular file, a path that leaves the vault or names
        ``.git``, anything under the vault's state folder, a name a file system or another clone
        cannot hold (``history.unsafe_entry``), a name another one differs from only in case or
        normalisation, a file over the vault's size limit (:meth:`check_limits`). Each is taken
        out, not the whole tree (refusing the tree stopped every clone's sync, for one entry):
        never written here, and removed from the branch by one commit of this sync
        (:meth:`_take_out`) that is pushed with the rest. Refused whole, before anything touches
        the work tree, is only what no new commit repairs: more paths, bytes or a larger commit
        than one sync takes (history itself), and a malformed tree (a name it holds twice). A
        second file of a key is no reason to refuse either: it is set aside (:meth:`collisions`)."""
        if len(incoming) > MAX_INCOMING_PATHS:
            raise _too_many(self.remote_tip, str(len(incoming)))
        entries = self.entries = changed_entries(self.repo, self.local, self.remote_tip, self.prefix or ".")
        # every entry of the listing too, its name with its bytes kept: a name that is not UTF-8
        # is in ``incoming`` as U+FFFD (a printable character) and matched no entry, so a peer's
        # symlink under it passed as a deletion, into HEAD
        modes = {**{self.prefix + rel: (e := entries.get(self.prefix + rel)) and e[0] for rel in incoming},
                 **{top: e and e[0] for top, e in entries.items()}}
        bad: dict[str, str] = {}
        for top in sorted(modes):
            why = unsafe_entry(top[len(self.prefix):], modes[top])
            if why and (modes[top] == DUPLICATE or why == LEAVES):
                # a malformed tree no git command makes (git's fsck refuses it: a name twice, a
                # `..`): no reader here edits it, so it stays refused whole, by name
                raise SyncError("unsafe", f"the remote's commits hold {named(top[len(self.prefix):], REFUSED)} (tip "
                                f"{self.remote_tip[:10]}): {why}, in a tree no git command makes (`git fsck` "
                                "refuses it). Remove that entry on the remote (or integrate by hand) and sync "
                                "again; nothing changed")
            if why:
                bad[top] = why
        # the names that differ only in case or normalisation (one file on macOS and Windows):
        # the name this side holds keeps its place, then the remote's unchanged ones, then of
        # the arriving ones the one the remote's history held first (holding_order, the one
        # rule's "held first": by path, a second clone took out the person's docs/notes.md for
        # a peer's later docs/Notes.md), then its memory files, then the rest, by path; each
        # later twin is taken out
        arriving = [top for top, e in entries.items() if e and top not in bad]
        held = set(tree_entries(self.repo, self.remote_tip, self.prefix or ".")) - set(entries)
        rank: dict[str, int] = {}

        def order(top: str) -> tuple:
            return (self.repo.blob_at(self.local, top) is None, rank.get(top, 1 << 62),
                    memory_key(top[len(self.prefix):]) is None, top)

        twins = list(case_twins(sorted(arriving, key=order), held))
        # asked of history only where two arriving names are twins (rare): one git log
        both = sorted({name for pair in twins for name in pair if name in entries})
        if len(both) > 1:
            rank = holding_order(self.repo, self.remote_tip, [both])
            twins = list(case_twins(sorted(arriving, key=order), held))
        for top, other in twins:
            bad[top] = (f"a name that differs from '{shown(other[len(self.prefix):])}' only in case or "
                        "normalisation (one file on macOS and Windows)")
        bad.update(self.check_limits({top: e[1] for top, e in entries.items()
                                      if e and top != self.prefix + INDEX_FILE and top not in bad}))
        return bad

    def collisions(self, incoming: list[str]) -> dict[str, str]:
        """``{incoming path: the path that keeps the key}`` of each memory file the remote's
        commits bring whose key the remote's tip holds in another type folder too, or this
        machine's work tree does in a file not committed yet, where this side did not hold the
        key twice already. Of two files of one key all but one are unusable, and which one is in
        use is the one rule's (:func:`vault_mem.vault.core.key_owners`: the nearest author, then
        the file that held the key first, then the path); this side applies its second step
        here, where it is known without history: the file this side holds was there first
        (committed, else only written by hand: the person's, not the remote's to move); where
        this side holds none, the first by path. Each other one is set aside: taken with the
        rest of the tree (refusing the tree stopped every clone's sync, for one file), written
        only once HEAD holds it (so the index judges it as the commit's author's, never as a
        change made here), and named in :attr:`SyncReport.duplicates` when the index keeps it
        out of use (:meth:`_report_duplicates`; INDEX.md is rendered again after it,
        :meth:`_write_aside`). (A type change moves the file: the old one is deleted in the same
        commits, and a committed file is the remote's to move.)"""
        root = str(self.vault.root)
        aside: dict[str, str] = {}
        done: set[str] = set()
        for rel in sorted(incoming):
            key = memory_key(rel)
            if key is None or key in done or self._incoming_blob(rel) is None:
                continue
            done.add(key)
            paths = [f"{folder}/{key}.md" for folder in TYPE_FOLDERS.values()]
            # a file on disk that this side never committed: the person's, not the remote's to move
            # (the disk asked first: most keys are in no other folder, and a stat costs less)
            unsaved = [p for p in paths if os.path.lexists(os.path.join(root, p))
                       and self.blob(self.local, p) is None and self._incoming_blob(p) is None]
            theirs = [p for p in paths if self.blob(self.remote_tip, p)] + unsaved
            ours = [p for p in theirs if self.blob(self.local, p)] + unsaved
            if len(theirs) > 1 and len(ours) < 2:  # a duplication this side did not have already
                keeper = (ours or sorted(theirs))[0]
                aside.update({p: keeper for p in theirs if p != keeper and p not in unsaved})
        return aside

    def check_limits(self, blobs: dict[str, str]) -> dict[str, str]:
        """Refuse a commit over :data:`MAX_COMMIT_BYTES` and files (``{top-level path: blob id}``)
        over :data:`MAX_INCOMING_BYTES` in all; ``{top-level path: why}`` of each file over the
        vault's file size limit (``[limits] max_body_bytes`` plus room for the frontmatter), which
        the sync takes out (:meth:`check_incoming`). Sizes are read from git's object headers, so
        nothing over it is loaded."""
        # the commits' sizes a chunk at a time, as git lists them: a peer's push of any number of
        # commits is never held whole (the first over the limit by id is named, as ever)
        big = incoming_commits(self.repo, self.remote_tip, self.local, MAX_COMMIT_BYTES)[1]
        over = min(big) if big else None
        sizes = blob_sizes(self.repo, sorted(set(blobs.values())))
        if over is not None:
            commit, size = over
            # a commit stays in the remote's history: removing it is a rewrite every clone must
            # follow, so each clone is told what it can do alone (as for a large import)
            raise SyncError("unsafe", f"the remote's commit {commit[:10]} (tip {self.remote_tip[:10]}) is "
                            f"{size} bytes, more than a commit one sync takes ({MAX_COMMIT_BYTES} bytes; "
                            "nearly all of it is its message); if that commit is wanted (a squash with a long "
                            "message), integrate it by hand once (`git pull --rebase`, then `vault-mem "
                            "doctor`), else remove it from the remote's history; then sync again; nothing changed")
        limit = self.vault.config.max_file_bytes
        # a file over the limit is taken out, never written: not counted in what the sync writes
        total = sum(size for blob in blobs.values() if (size := sizes.get(blob, 0)) <= limit)
        if total > MAX_INCOMING_BYTES:
            raise SyncError("unsafe", f"the remote's commits (tip {self.remote_tip[:10]}) bring {len(blobs)} files "
                            f"of {total} bytes in all, more than one sync writes ({MAX_INCOMING_BYTES} bytes; "
                            f"{len(set(blobs.values()))} distinct contents); if that change is wanted (a large "
                            "import), integrate it by hand once (`git pull --rebase`, then `vault-mem doctor`), "
                            "else revert it on the remote; then sync again; nothing changed")
        return {top: (f"a file of {sizes[blobs[top]]} bytes, over this vault's file size limit of {limit} bytes "
                      "([limits] max_body_bytes in vault.toml, plus 16 KB for the frontmatter)")
                for top in sorted(blobs) if sizes.get(blobs[top], 0) > limit}

    def check_git_files(self, gone: set[str] = frozenset()) -> None:
        """Refuse, before anything touches the work tree, a change to a file git itself
        interprets (.gitattributes, .gitmodules, .mailmap, .gitignore, in any folder) or to any
        other file vault-mem does not read (an agent's or editor's settings, a script) unless this
        machine's person approved that exact version (DESIGN §7, :mod:`vault_mem.store.gitfiles`)."""
        waiting = [f for f in unapproved_git_files(self.vault.root, self.repo, self.prefix, self.local, self.remote_tip)
                   if f.path not in gone]  # taken out: never taken, nothing to approve
        if waiting:
            names = ", ".join(repr(shown(f.path)) for f in waiting[:5]) + (f" and {len(waiting) - 5} more"
                                                                          if len(waiting) > 5 else "")
            raise SyncError("unsafe", f"the remote's commits change {names} (tip {self.remote_tip[:10]}): "
                            "files git itself interprets (attributes, filters and merge drivers, submodules, "
                            "ignore rules, the author map) or that vault-mem does not read but other programs "
                            "may (agent and editor settings, hooks, instructions, scripts), not approved on this "
                            "machine. The person reads them and approves them by running `vault-mem trust` in "
                            "a terminal (an agent never approves them), then syncs again; nothing changed")

    def check_clean(self, paths: set[str]) -> None:
        staged = staged_against(self.repo, self.local, self.prefix or ".")
        for rel in sorted(paths - {INDEX_FILE}):
            try:
                data = self.vault.ws.disk_bytes(rel)  # never through a link
            except VaultMemError:
                raise SyncError("dirty", f"{shown(rel)} is a symlink and the sync would replace it; vault-mem "
                                "never follows links: replace it with the file itself (or delete it) and "
                                "sync again; nothing changed") from None
            disk = self.repo.blob_id(data) if data is not None else None
            if rel == CONFIG_FILE and self.blob(self.local, rel) is None and data is not None \
                    and data == (approved_config(self.vault.root) or (None,))[0]:
                continue  # the approved copy a sync kept when a peer deleted it (_replay): no edit lost
            if disk != self.blob(self.local, rel) or self.prefix + rel in staged:
                raise SyncError("dirty", f"{shown(rel)} has changes that are not committed and the sync would "
                                f"overwrite it; commit them (git commit -- '{shown(rel)}') or wait for the daemon "
                                "to, then sync again; nothing changed")

    def run(self) -> str:
        per_commit = [(c, p, self.changed(p, c)) for c, p in self.commits]
        incoming = self.changed(self.local, self.remote_tip)  # what the remote's commits changed
        # decided before the plan: the plan reads the remote tip as it will be after the take-out
        removed = self.check_incoming(incoming)
        # an entry taken out is never written, checked against the disk, journaled or indexed:
        # nothing of it reaches the work tree (a symlink never on disk, a submodule never fetched)
        # what this side held at each such path (a file, or a folder a peer made a link or a
        # file): put back by the sync's commit, and the peer's deletions under it not taken
        # (asked of git only where this side may hold one: a file it holds, a folder holding a
        # path the remote's commits changed; a push of many such names costs no git process each)
        folders_here = {self.prefix + rel[:i] for rel in incoming for i, ch in enumerate(rel) if ch == "/"}
        self.ours = {top: entry for top in removed
                     if (top in folders_here or self.repo.blob_at(self.local, top) is not None)
                     and (entry := tree_entry(self.repo, self.local, top))}
        folders = tuple(top[len(self.prefix):] + "/" for top, (mode, _) in self.ours.items() if mode == "040000")
        gone = {top[len(self.prefix):] for top in removed} | {rel for rel in incoming if rel.startswith(folders)}
        self.removed = removed
        modes, copies, plain = self.plan({r for *_, ch in per_commit for r in ch})
        self.check_git_files(gone)
        incoming = [rel for rel in incoming if rel not in gone]
        aside = self.collisions(incoming)
        paths = set(incoming) | {r for *_, ch in per_commit for r in ch}
        paths |= {f"{folder}/{ck}.md" for ck in copies.values() for folder in TYPE_FOLDERS.values()}
        self.check_clean(paths)
        journal = self.vault.state_dir / SYNC_JOURNAL
        paths |= {INDEX_FILE}
        entry = {"old": self.local, "new": None, "paths": sorted(paths)}
        write_journal(self.vault.ws, SYNC_JOURNAL, entry)
        # objects before refs, as for an agent write: the replayed commits are unreachable until
        # HEAD moves, and a `git gc --prune=now` running meanwhile may remove them
        with self.repo.objects_before_refs() as keep_objects:
            try:
                head = self._replay([rel for rel in incoming if rel not in aside], modes, copies, plain, per_commit)
                head = self._take_out(head, removed)
                write_journal(self.vault.ws, SYNC_JOURNAL, {**entry, "new": head})
                checkpoint("sync-before-ref", self.vault.state_dir)
                # as an agent commit lands: never under a person's git commit (it read HEAD)
                if not self.repo.land_ref(head, self.local, reflog="vault-mem sync", who=self.vault.ws.identity()):
                    raise SyncError("dirty", "HEAD moved during the sync (a commit made by hand?); "
                                    "sync again; nothing changed")
            except BaseException:
                put_back(self.vault.ws, self.vault.sidecar, self.local, self.touched)
                journal.unlink(missing_ok=True)
                raise
            # HEAD holds them now: the index judges each as its commit's author's (the recovery
            # of a sync that stops before this line writes them from HEAD, as every path it names)
            self._write_aside(aside, head)
            warnings: list[str] = []
            keep_objects(warnings)
            for line in warnings:
                log.warning("vault-mem: sync %s", line)
        # every entry the new HEAD holds beyond the local one's passed check_incoming (by the
        # same rule: marked False, as a deletion, so it is not checked twice) or was written
        # here: the next command's check of HEAD's tree needs no git process
        taken = set(incoming)
        self.vault.ws.own_commit_landed(self.local, head, {rel: rel not in taken for rel in paths})
        self.repo.sync_index(sorted(self.prefix + rel for rel in paths))
        journal.unlink(missing_ok=True)
        self._report_quarantined(incoming)
        self._report_duplicates(aside)
        return head

    def _take_out(self, head: str, removed: dict[str, str]) -> str:
        """``head``, or one commit on it whose tree is its tree without the entries
        :meth:`check_incoming` took out (``{top-level path: why}``): each put back as this side
        held it before the sync (the person's file is never removed or replaced), else removed.
        Made from git objects alone (nothing of them is checked out), committed as this
        machine's sync (its agent, made here), with INDEX.md as the sync rendered it, and
        pushed with the rest: the remote's branch is repaired for every clone, whose next sync
        has nothing to take out. Its message names each entry, why, and how to see it again
        (the remote's tip keeps it: ``git show TIP:PATH``); it is made before HEAD moves and
        the journal names it, so a crash leaves the sync finished or rolled back, never half."""
        if not removed:
            return head
        repo, tip = self.repo, self.remote_tip
        held = [top for top in sorted(removed) if self.entries.get(top)]
        # named up to TAKEN_OUT_NAMED, the rest counted (as in the commit's message): a push of
        # 10,000 such entries printed a report of 1.5 MB. Each attempt says it all again.
        self.report.removed = [{"path": top[len(self.prefix):], "why": removed[top], "commit": tip,
                                "show": f"git show {shell_word(tip[:10] + ':' + top)}"}
                               for top in held[:TAKEN_OUT_NAMED]]
        self.report.removed_more = max(0, len(held) - TAKEN_OUT_NAMED)
        # each put back as this side held it (a regular file, checked when it came), else removed
        changes = {top: self.ours.get(top) for top in removed}
        head_tree = repo.commit_tree(head)
        tree = edit_tree_entries(repo, head_tree, changes)
        if self.index is not None:  # INDEX.md as the sync wrote it into the work tree
            tree = edit_tree_entries(repo, tree, {self.prefix + INDEX_FILE:
                                                  ("100644", repo.write_object("blob", self.index))})
        if tree == head_tree:
            return head
        # the peer chose these names: each line masked as every vault-mem commit message is
        # gated (this commit is in this machine's agent's name, pushed to every clone)
        lines = [mask_secrets(f"- {quoted(top[len(self.prefix):])}: {removed[top]}") for top in held[:TAKEN_OUT_NAMED]]
        if len(held) > TAKEN_OUT_NAMED:
            lines.append(f"- and {len(held) - TAKEN_OUT_NAMED} more (`git show --stat HEAD` where this commit is HEAD)")
        message = (f"sync: take out {len(held)} entr{'y' if len(held) == 1 else 'ies'} of the remote's commits "
                   "no clone can take\n\n"
                   f"The remote's commits (tip {tip[:10]}) hold entries vault-mem takes from no peer: a name a "
                   "file system cannot hold, anything but a regular file, a file over the size limit. The sync "
                   "took the rest and this commit removes these from the branch, so that no clone's sync stops "
                   "at them. Each is still in git: see it with `git show "
                   f"{tip[:10]}:PATH`.\n\n" + "\n".join(lines))
        return repo.write_commit(tree, head, message, author=self.vault.identity())

    def _write_aside(self, aside: dict[str, str], head: str) -> None:
        """Write the files :meth:`collisions` set aside, as the remote's tip holds them."""
        if not aside:
            return
        executable = {top[len(self.prefix):] for top, e in self.entries.items() if e and e[0] == EXECUTABLE}
        with contextlib.closing(self._theirs(sorted(aside))) as theirs:
            self._write(theirs, executable)
        # the index works out each key's owner again, with the files of those keys not indexed
        # yet (the person's hand-written memory): each of its other folders read too
        keys = {memory_key(rel) for rel in aside}
        self.vault.sidecar.refresh_paths(f"{folder}/{key}.md" for key in sorted(keys)
                                         for folder in TYPE_FOLDERS.values())
        # INDEX.md from the index as it stands now: the one rule decides each key's file with
        # every file of it indexed (the same INDEX.md as the new HEAD's, unless a file set aside
        # is the rule's, an author approved here over a file a peer last wrote: then the sync's
        # commit of INDEX.md after a fast-forward carries it, else the next agent commit)
        self._final_index(head)

    def _report_duplicates(self, aside: dict[str, str]) -> None:
        """Name each file of a key two files now hold that the index keeps out of use (the key's
        owner as the index decided it: a file whose author is trusted here owns it before one
        whose author is not, :attr:`~vault_mem.index.sidecar.Sidecar.key_owner`), with what to do."""
        if not aside:
            return
        keys = {memory_key(rel) for rel in aside}
        paths = sorted({f"{folder}/{key}.md" for key in keys for folder in TYPE_FOLDERS.values()})
        for path, owner in sorted(self.vault.sidecar.duplicates_of(paths).items()):
            self.report.duplicates.append({"path": path, "key": memory_key(path), "owner": owner})

    def _report_quarantined(self, incoming: list[str]) -> None:
        """Name each memory file from the remote that holds a credential, with the purge recipe
        (it is in the remote's history: rotate it, rewrite, force-push, re-clone)."""
        wanted = {rel for rel in incoming if is_memory_path(rel)}
        for p in self.vault.sidecar.problems():
            if p.path not in wanted or not p.quarantined:
                continue
            top = self.prefix + p.path
            last = log_entries(self.repo, [top], limit=1)
            commit, author = (last[0][0], mask_secrets(last[0][2])) if last else (None, None)
            self.report.quarantined.append({
                "path": p.path, "commit": commit, "author": author,
                "reason": p.reason.removeprefix("quarantined: "),
                "how_to_purge": fix_recipe(p.path, top=top, in_history=True)})

    def _replay(self, incoming, modes, copies, plain, per_commit) -> str:
        repo = self.repo
        # one file at a time: a peer's files are never all held in memory at once. A peer's
        # deletion of vault.toml is taken in git but not on disk: without the file the folder is
        # no vault at all, and the settings approved here stay in force from the copy kept
        # (vault_mem.store.settings says so at every command until it is committed back)
        # with the modes of the remote's tree: a file committed executable is written so, as a
        # checkout writes it, or git's index (which takes the mode from the disk) would stage a
        # mode change no one made, and the next sync bringing that file stop as "not committed"
        executable = {top[len(self.prefix):] for top, e in self.entries.items() if e and e[0] == EXECUTABLE}
        with contextlib.closing(self._theirs([rel for rel in incoming if rel != INDEX_FILE])) as theirs:
            self._write(self._keeping_config(theirs), executable)
        parent, tree = self.remote_tip, repo.commit_tree(self.remote_tip)
        for commit, _parent, changed in per_commit:
            edits: dict[str, bytes | None] = {}
            notes: list[str] = []
            contested: set[str] = set()
            for rel in changed:
                key = memory_key(rel)
                mode = modes.get(key, "apply") if key else plain.get(rel, "apply")
                if rel == INDEX_FILE or mode == "skip":
                    continue
                if mode == "apply":
                    edits[rel] = self._bytes(self.blob(commit, rel))
                elif key not in contested:
                    contested.add(key)
                    kept, edit = self._copy_edits(commit, key, copies[key])
                    edits.update(edit)
                    notes.append(trailer(SYNC_CONFLICT, f"{key} was changed on the remote too; its version was kept"
                                         + (f", this one is {copies[key]}" if kept else "")))
            self._write(edits.items())
            index = self.vault.render_index().encode()
            self._write([(INDEX_FILE, index)])
            top = {self.prefix + rel: (repo.write_object("blob", d) if d is not None else None)
                   for rel, d in {**edits, INDEX_FILE: index}.items()}
            new_tree = repo.edit_tree(tree, top) or repo.empty_tree()
            if new_tree == tree and not notes:
                self.report.dropped.append(repo.commit_info(commit).subject)
                continue
            parent, tree = self._recommit(commit, new_tree, parent, notes), new_tree
            self.report.replayed += 1
        self._final_index(parent)
        return parent

    def _final_index(self, head: str) -> None:
        """Render INDEX.md for the new HEAD ``head`` into the work tree (:attr:`index`)."""
        self.index = self.vault.render_index().encode()
        if head == self.remote_tip:
            # no commit of ours on it: the remote's INDEX.md stays when it lists these very lines
            # as an older vault-mem wrote them (no note), as HEAD's does for a read; written over,
            # it stood modified in the work tree, and a clone on older code and one on this took
            # turns committing the note (tests/test_index_note.py)
            theirs = self.blob(head, INDEX_FILE)
            self.index = next((f for f in older_forms(self.index) if self.repo.blob_id(f) == theirs), self.index)
        self._write([(INDEX_FILE, self.index)])

    def _copy_edits(self, commit: str, key: str, ck: str) -> tuple[bool, dict[str, bytes | None]]:
        """The conflict copy as of ``commit``: the local version, or none where the local side
        deleted the key or put it back as it was at the common base."""
        edits: dict[str, bytes | None] = {}
        for folder in TYPE_FOLDERS.values():
            if (self.vault.root / folder / f"{ck}.md").exists():
                edits[f"{folder}/{ck}.md"] = None
        state = self.key_state(commit, key)
        if state is None or state == self.key_state(self.base, key):
            return False, edits
        rel = f"{state[0].split('/')[0]}/{ck}.md"
        who = self.repo.commit_info(commit).author
        edits[rel] = mark_conflict(self.repo.read_object(state[1])[1], rel, key=key, who=who,
                                   today=self.today)
        # a new text of a commit made here, as any write of vault-mem's: a line a peer gave first
        # keeps it the peer's (first23: the agent's copy of a peer's order, the peer's, became
        # this machine's agent's in its conflict copy and reached the prompt hook unasked)
        keep_peers_lines(self.vault.ws, self.vault.sidecar, {rel: edits[rel]}, {})
        return True, edits

    def _incoming_blob(self, rel: str) -> str | None:
        """The remote tip's blob at ``rel``, one of the paths its commits changed: from
        check_incoming's listing (a name it spelled otherwise is looked up)."""
        top = self.prefix + rel
        if top in self.entries and self._taken_out_at(top) is None:
            entry = self.entries[top]
            return entry[1] if entry is not None else None
        return self.blob(self.remote_tip, rel)

    def _theirs(self, rels: list[str]) -> Iterator[tuple[str, bytes | None]]:
        """``(path, the remote tip's bytes or None)`` for each of ``rels``, read one at a time
        through one reader that reads ahead (:meth:`GitObjects.read_objects`); the ids are the
        ones check_incoming listed (no lookup per file)."""
        ids = {rel: self._incoming_blob(rel) for rel in rels}
        wanted = [oid for oid in (ids[rel] for rel in rels) if oid is not None]
        with contextlib.closing(self.repo.read_objects(wanted)) as contents:
            for rel in rels:
                yield rel, (next(contents)[1] if ids[rel] is not None else None)

    def _bytes(self, oid: str | None) -> bytes | None:
        return self.repo.read_object(oid)[1] if oid else None

    def _keeping_config(self, theirs: Iterable[tuple[str, bytes | None]]) -> Iterator[tuple[str, bytes | None]]:
        """``theirs`` with a peer's deletion of vault.toml made the approved copy (kept on disk,
        uncommitted: :meth:`check_clean` lets it through, ``store/settings`` names it). The copy
        kept was whatever the disk held, so after a peer's vault.toml (synced, waiting for
        approval) and its deletion, it was the peer's file: every command called it "kept and in
        force" and said to `git add` and commit it, and the peer's next vault.toml stopped each
        later sync as "not committed" (atk28). With nothing approved (a fresh clone on the
        defaults) the file stays as it is."""
        kept = None
        for rel, data in theirs:
            if data is None and rel == CONFIG_FILE:
                kept = kept or approved_config(self.vault.root)
                if kept is not None:
                    yield rel, kept[0]
                continue
            yield rel, data

    def _write(self, files: Iterable[tuple[str, bytes | None]], executable: frozenset[str] | set[str] = frozenset()) -> None:
        """Write (or delete, for None) each ``(path, bytes)`` as it comes, then index them:
        ``files`` may be a generator, so only one file's bytes are held at a time. The paths in
        ``executable`` are written with the executable bit, the others without (what the tree of
        the commit they come from says: vault-mem's own commits hold every file as 100644)."""
        # a memory file holding a credential is written and quarantined by the sidecar's
        # refresh below (the write gate's rule): INDEX.md, rendered from the sidecar, leaves it out
        written: list[str] = []
        folders: set[Path] = set()
        for rel, data in files:
            written.append(rel)
            path = self.vault.root / rel
            self.touched.add(rel)
            if data is None:
                try:
                    path.unlink()
                    folders.add(path.parent)  # a deletion is made durable with the new names
                except FileNotFoundError:
                    pass
            elif _bytes_at(path) != data or _executable(path) != (rel in executable):
                # replaces a link itself, never writes through it; each file's bytes are on disk
                # before its rename, the new names and the deletions once per folder below
                # (before HEAD can move: a file a power loss brought back beside a HEAD without it
                # was the person's new memory to the next command)
                atomic_write(path, data, sync_folder=False, mode=0o755 if rel in executable else 0o644)
                folders.add(path.parent)
        for folder in sorted(folders):
            fsync_dir(folder)
        if set(written) - {INDEX_FILE}:
            self.vault.sidecar.refresh_paths(written)

    def _recommit(self, original: str, tree: str, parent: str, notes: list[str]) -> str:
        """The local commit ``original`` rebuilt on ``parent`` with ``tree``: its author and
        author date kept, this machine's agent as committer, ``notes`` added to its trailers."""
        message = self.repo.commit_message(original)
        if notes:  # added to the trailer block (vault-mem's messages end in one)
            message = add_trailers(message, notes)
        return self.repo.replay_commit(original, tree, parent, message, committer=self.vault.identity())


def _executable(path) -> bool:
    """Whether the file at ``path`` (never a link's target) has its owner's executable bit."""
    try:
        return bool(os.lstat(path).st_mode & stat.S_IXUSR)
    except OSError:
        return False


def _bytes_at(path) -> bytes | None:
    """What ``path`` holds, never read through a link (a link counts as different content)."""
    try:
        return current_bytes(path)
    except VaultMemError:
        return None
