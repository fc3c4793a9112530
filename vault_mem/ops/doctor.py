"""``vault-mem doctor``: whether the sidecar, INDEX.md and the repository hold what the files say.

:func:`diagnose` computes it (it brings the sidecar up to the files first, and repairs what a
rebuild can); the CLI only prints the :class:`Diagnosis`. A vault is not healthy while the
sidecar differs from a fresh rebuild, INDEX.md is stale, a file is unusable or holds a
credential, writes are refused, an acknowledged commit is missing, or git ignores new memory
files. Warnings (git hooks missing or in an older, unsafe form; memory other users can read; git's
index split or in version 4, which libgit2, GitPython or isomorphic-git do not read; a relative
``XDG_CONFIG_HOME``, ignored) are said but do not fail the check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vault_mem.config import config_home_notice
from vault_mem.errors import VaultMemError
from vault_mem.index import authors as author_rows
from vault_mem.index.sidecar import Problem, Progress
from vault_mem.ops.review import quarantined
from vault_mem.store.attributes import replace_older_driver
from vault_mem.store.hooks import missing_hooks_notice, unsafe_hooks_notice
from vault_mem.store.locks import daemon_pid
from vault_mem.store.upstream import other_lines, replaced_upstream
from vault_mem.store.worktree import index_format_notice

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

__all__ = ["REPAIRED", "Diagnosis", "diagnose"]

#: how a difference the check repaired itself ends (the sidecar's own wording)
REPAIRED = "rebuilt it from the indexed memories"


@dataclass
class Diagnosis:
    """What :func:`diagnose` found in one vault."""

    #: the sidecar against a fresh rebuild from the files (those ending in :data:`REPAIRED` were fixed)
    differences: list[str] = field(default_factory=list)
    #: memory files the index cannot use (quarantined ones are in ``quarantined``)
    problems: list[Problem] = field(default_factory=list)
    #: files holding a credential (:func:`vault_mem.ops.review.quarantined` items)
    quarantined: list[dict[str, Any]] = field(default_factory=list)
    #: states outside the index that stop writes, each saying its fix
    blockers: list[str] = field(default_factory=list)
    #: an acknowledged commit, or an object it needs, missing
    history: str | None = None
    index_md_current: bool = True
    #: folders where git ignores new memory files (they would be in no commit and no sync)
    ignored_folders: list[str] = field(default_factory=list)
    #: files HEAD holds that agents, editors or git read, in versions not approved nor committed
    #: here, however they came (:func:`~vault_mem.store.gitfiles.held_record`; the first 200 by
    #: name), and the sentence naming them
    unapproved_files: list[str] = field(default_factory=list)
    unapproved_note: str | None = None
    #: said, but the vault is still healthy
    warnings: list[str] = field(default_factory=list)
    daemon_pid: int | None = None

    @property
    def repaired(self) -> list[str]:
        """The differences the check repaired itself."""
        return [d for d in self.differences if d.endswith(REPAIRED)]

    @property
    def ok(self) -> bool:
        """Whether the vault holds what its files say (warnings aside)."""
        return (not self.differences and self.index_md_current and not self.quarantined and not self.problems
                and not self.blockers and not self.ignored_folders and not self.history and not self.unapproved_files)

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` object of ``vault-mem doctor``."""
        return {"ok": self.ok, "history": self.history, "differences": self.differences,
                "blockers": self.blockers, "ignored_folders": self.ignored_folders,
                "unapproved_files": self.unapproved_files,
                "problems": [{"path": p.path, "reason": p.reason} for p in self.problems],
                "quarantined": self.quarantined, "index_md_current": self.index_md_current,
                "daemon_pid": self.daemon_pid, "warnings": self.warnings}


def _replay_notice(vault: Vault) -> str | None:
    """A squash, pick or revert git merged and no commit concludes (:meth:`GitRepo.concluding_replay`),
    said with its effect and its way out: the files it changed are no one's edit and neither the
    daemon nor `vault-mem edit` commits a hand edit meanwhile; one undone with `git restore` leaves git's MERGE_MSG behind,
    and that state lasts until the person's next commit or reset (lastread)."""
    if not vault.repo.concluding_replay():
        return None
    return ("git holds a squash, cherry-pick or revert that no commit concludes yet (SQUASH_MSG, "
            "CHERRY_PICK_HEAD, REVERT_HEAD or MERGE_MSG in the git folder): the memory files it changed "
            "count as no one's edit, and neither the daemon nor `vault-mem edit` commits a hand edit until "
            "it ends. Conclude it with `git commit`, or, if you undid it, `git reset --merge` (it keeps "
            "your unstaged edits)")


def _copy_rule_notice(vault: Vault) -> str | None:
    """The copy rule's lines (``peer_lines``) still of the earlier rule: their refill failed on a
    damaged history (:meth:`vault_mem.vault.authors.Origins._fill_peer_lines`), tried again once
    the refs change."""
    try:
        failed = author_rows.peer_lines_refill_failed(vault.sidecar.db)
    except Exception:  # noqa: BLE001 - a sidecar without the table or unreadable: nothing to say here
        return None
    if not failed:
        return None
    return ("the record of who said each memory line first could not be brought up to the current rule: "
            "an old commit's object is missing from git's history. The earlier record stands (a line a "
            "peer repeated from this vault may count as the peer's); repair the history (see the history "
            "line above) or delete .vault-mem/index.db to rebuild it from the history that remains")


def diagnose(vault: Vault, *, progress: Progress | None = None) -> Diagnosis:
    """Bring the sidecar up to the files, then check the vault (see the module docstring)."""
    vault.reconcile(progress=progress)
    diffs = vault.sidecar.doctor()
    problems = [p for p in vault.sidecar.problems() if not p.quarantined]
    held = quarantined(vault)  # a file holding a credential fails the check until it is fixed
    # states outside the index that stop writes: each line says its fix
    blockers = [b for b in (vault.sidecar.read_only, vault.ws.repository_problem()) if b]
    history = vault.ws.history_problem()  # an acknowledged commit, or an object it needs, missing
    index_ok = vault.index_md_current()
    ignored = vault.ws.ignored_folders(fresh=True)  # new memories there would be in no commit and no sync
    # what the person should hear but does not make the index wrong: the git hooks in an older,
    # unsafe form (said here once, not also as a note) and memory other users can read
    repo = vault.repo
    try:  # an earlier vault-mem's INDEX.md merge driver, rewritten (checked here, not per opening)
        replace_older_driver(repo, vault.prefix)
    except (OSError, VaultMemError):
        pass  # a read-only git folder: `vault-mem hooks install` says what fails
    hooks_note = (unsafe_hooks_notice(repo.hooks_dir, vault.root, repo.common_dir, repo.toplevel)
                  or missing_hooks_notice(repo.hooks_dir, vault.root, repo.toplevel, repo.common_dir, full=True))
    # and a config file git reads from the vault, where a peer's commit sets what git runs (as
    # the vault's opening found it: a `git config --list` and a read of every include)
    config_note = vault.ws.config_note
    # and a relative XDG_CONFIG_HOME, ignored: this person's approvals and settings are elsewhere
    home_note = config_home_notice()
    # and a peer's agent settings, instructions or git rules HEAD holds, not approved here, however
    # they came in (every command names them; doctor fails on them, said here once: inj32, atk32)
    try:
        unapproved = [f.path for f in vault.ws.held().files]
    except VaultMemError:
        unapproved = []  # the note says what failed
    held_note = vault.ws.held_note
    for said in (hooks_note, config_note, home_note, held_note):
        if said in vault.notices:
            vault.notices.remove(said)
    # and git's index in a format other programs that read the vault cannot read (its fix said)
    # and memories the embedder refused (too long for its model): found by keywords only
    # and a remote branch whose history a peer replaced: sync stops in every clone (its one step);
    # the remote's other lines of the vault, which a clone on the remote's HEAD never syncs
    remote = vault.config.sync_remote_name()
    elsewhere = other_lines(repo, vault.prefix, remote)
    warnings = [w for w in (hooks_note, config_note, home_note, vault.ws.exposure(), index_format_notice(vault.repo),
                            vault.sidecar.vectors.refused_notice(), _replay_notice(vault), _copy_rule_notice(vault),
                            replaced_upstream(repo, remote, vault.root), elsewhere and elsewhere.text) if w]
    return Diagnosis(differences=diffs, problems=problems, quarantined=held, blockers=blockers, history=history,
                     index_md_current=index_ok, ignored_folders=ignored, warnings=warnings,
                     unapproved_files=unapproved, unapproved_note=held_note,
                     daemon_pid=daemon_pid(vault.state_dir))
