"""Which vault.toml is in force on this machine: the last one its person approved (DESIGN §7).

vault.toml is committed, so a peer's commit (through ``vault-mem sync``, a plain ``git pull`` or
a fresh clone) can change any setting: the recall floor (its memories in every prompt), the
agent's commit identity, the limits every write is checked against. So no file is in force
because it is in the work tree; it is in force because this machine approved it:

- **approved**: the work tree's bytes are the ones approved last, or one of the few versions
  approved before put back by this machine (the person's own revert needs no second approval;
  a peer's commit putting back an old file does: :func:`_put_back_here`). The approval is kept outside the vault
  (:mod:`vault_mem.store.trust`), as the approved bytes themselves.
- **the person's own edit**: a work-tree file that differs from HEAD's (an uncommitted edit made
  on this machine) is the person's word: it is approved as it is read (recorded, so it stays in
  force once committed; vault-mem's pre-commit hook reads it, so `git commit vault.toml` records
  it too, `--no-verify` does not: then `vault-mem trust` asks). Not while git or a sync is writing the work tree (``index.lock``, a
  merge or rebase under way, sync's journal), and never the bytes a remote-tracking branch holds
  or any commit not made here ever held (:func:`vault_mem.store.history.seen_elsewhere`): those
  arrived from elsewhere, and a person's `git checkout origin/main~1 -- vault.toml`, `git
  cherry-pick -n` or `git merge --squash` of a peer's commit takes the peer's file, not theirs.
- **a change from elsewhere** (the work tree equals HEAD, and HEAD's file was never approved
  here): pending. The last approved file stays in force (nothing approved yet: the defaults) and
  every command's notice names each changed setting, old -> new, and ``vault-mem trust``. A file
  whose settings equal those in force (comments only) is approved silently: nothing changes. A
  key this version does not read counts as a setting (``Config.unknown_settings``): a later
  version may read it.

A file that does not parse, holds a value out of range, or is missing never stops a read, a
write or a sync: the last approved settings apply, and the notice says why and what to do. That
holds for the person's own broken edit too: vault-mem keeps working on the settings approved
before, and every command names the bad line until it is fixed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from vault_mem.config import (
    CONFIG_FILE,
    MAX_CONFIG_BYTES,
    Config,
    describe_changes,
    parse_config,
    setting_changes,
)
from vault_mem.errors import ConfigError, GitError, VaultMemError
from vault_mem.store.files import PRIVATE_FILE, atomic_write, read_own, replace_file
from vault_mem.store.git import GitRepo
from vault_mem.store.history import last_commit, seen_elsewhere
from vault_mem.store.provenance import recorded
from vault_mem.store.trust import approve_config, approved_config, legacy_settings, seal, unseal
from vault_mem.store.worktree import same_as_committed

#: the sync's journal in the state folder (vault_mem.vault.recovery.SYNC_JOURNAL): while it exists
#: the work tree holds the remote's files ahead of HEAD, and a changed vault.toml is not an edit
SYNC_JOURNAL_NAME = "sync.json"
#: under the state folder: HEAD's vault.toml blob id, per HEAD (:func:`_committed_blob`)
SETTINGS_CHECKED = "checked-settings"


@dataclass
class Settings:
    """What vault.toml asks for and what is in force on this machine."""

    #: the settings in force (before ``$VAULT_MEM_EMBEDDER``)
    config: Config
    #: what the work tree's vault.toml asks for; None when it does not parse or is missing
    requested: Config | None = None
    #: the work tree's bytes and blob id when they wait for approval (``vault-mem trust``)
    pending_raw: bytes | None = None
    pending_blob: str | None = None
    #: ``{"section.key": (in force, asked for)}`` of a pending file
    changes: dict[str, tuple[object, object]] = field(default_factory=dict)
    #: why the work tree's file is not in force (it does not parse, a bad value, missing)
    problem: str | None = None
    notices: list[str] = field(default_factory=list)


def settings_in_force(root: Path, repo: GitRepo, prefix: str, raw: bytes | None, state_dir: Path) -> Settings:
    """Decide which settings are in force for the vault at ``root`` whose work-tree vault.toml
    holds ``raw`` (None: no file), recording the person's own edit as approved (module doc)."""
    approved = approved_config(root)
    fallback, fallback_blob, history = Config(), None, []
    if approved is not None:
        try:
            fallback, fallback_blob, history = parse_config(approved[0]), GitRepo.blob_id(approved[0]), approved[1]
        except ConfigError:
            pass  # approved under older rules and no longer valid: the defaults
    if raw is not None and fallback_blob == GitRepo.blob_id(raw):
        # the usual case, the approved file: parsed once; HEAD's blob from a signed record
        head = repo.head()
        committed = _committed_blob(root, repo, prefix, head, state_dir)
        out = Settings(config=fallback, requested=fallback)
        if head is not None and committed is None and _last_change(repo, prefix) != "in no commit":
            out.notices.append(_deleted_notice())
        return out
    said = ("the settings approved on this machine before stay in force" if fallback_blob else
            "the defaults stay in force (nothing approved on this machine yet)")
    out = Settings(config=fallback)
    if raw is None:
        out.problem = f"{CONFIG_FILE} is missing"
        last, head = _last_change(repo, prefix), repo.head()
        if _committed_blob(root, repo, prefix, head, state_dir):
            how = f"`git checkout -- {CONFIG_FILE}` restores the committed one"
        elif last.startswith("commit "):
            how = (f"`git checkout {last.split()[1]}~1 -- {CONFIG_FILE}` brings back the version before "
                   f"{last}, which deleted it (a version not approved here then waits for `vault-mem trust`); "
                   "commit it")
        else:
            how = "write one (template_vault/vault.toml holds the defaults) and commit it"
        out.notices.append(f"{root / CONFIG_FILE} is missing; {said}. Put it back: {how}")
        return out
    blob = GitRepo.blob_id(raw)
    try:
        out.requested = parse_config(raw, root / CONFIG_FILE)
    except ConfigError as exc:
        out.problem = str(exc)
    head = repo.head()
    committed = _committed_blob(root, repo, prefix, head, state_dir)
    if head is not None and committed is None and _last_change(repo, prefix) != "in no commit":
        out.notices.append(_deleted_notice())
    if blob in history and out.requested is not None and _put_back_here(repo, prefix, blob, committed, state_dir):
        approve_config(root, raw, blob, how="approved before", defaults=out.requested == Config())
        out.config = out.requested
        return out
    if approved is None and committed == blob and out.requested is not None and _legacy_approved(root, out.requested):
        approve_config(root, raw, blob, how="approved before (its outbound settings)",
                       defaults=out.requested == Config())
        out.config = out.requested
        return out
    if len(raw) > MAX_CONFIG_BYTES:  # read no further (Workspace): whose it is is not asked
        out.notices.append(f"{CONFIG_FILE} is not used: {out.problem}; {said} until it is fixed")
        return out
    # HEAD's file as a checkout converted it (line ends a peer's .gitattributes asked for) is
    # HEAD's file, not an edit made here
    own = (committed != blob and not same_as_committed(repo, raw, committed)
           and _own_edit(repo, prefix, blob, state_dir))
    if own and out.requested is not None and _keeps_unapproved(repo, committed, fallback, fallback_blob,
                                                               history, out.requested):
        own = False  # the edit vouches for the lines it changed, not for HEAD's it left as they were
    if out.requested is None:
        whose = "your uncommitted edit of it" if own else "as committed"
        why = out.problem if own else _named_problem(out.problem or "")
        out.notices.append(f"{CONFIG_FILE} ({whose}) is not used: {why}; {said} until it is fixed"
                           + ("" if own else f" (edit it, `git commit {CONFIG_FILE}`)"))
        return out
    changes = setting_changes(fallback, out.requested)
    if own or not changes:
        approve_config(root, raw, blob, how="own edit" if own else "no change", defaults=out.requested == Config())
        out.config = out.requested
        return out
    out.pending_raw, out.pending_blob, out.changes = raw, blob, changes
    out.notices.append(f"{CONFIG_FILE} has changes this machine has not approved ({_last_change(repo, prefix)}): "
                       f"{describe_changes(changes, new_text=False)}. Until the person approves them {said}; "
                       # every MCP result carries this notice: the approval is the person's, and
                       # an agent told "approve with ..." by a peer's push could run it itself
                       "the person reviews and approves them by running `vault-mem trust` in a terminal "
                       "(an agent never approves them)")
    return out


#: where a ConfigError says the trouble is: ``[section] key`` or TOML's ``(at line N, column M)``
_WHERE = re.compile(r"\[([a-z_]+)\](?: (?!must\b)([a-z_]+))?|\(at line \d+, column \d+\)")


def _named_problem(problem: str) -> str:
    """Why a vault.toml from elsewhere is not used, naming the setting or the line but quoting
    none of its values: a notice reaches agents (every MCP result carries it), and a value, like
    a commit's author name, is text its writer chose (``vault-mem trust`` shows the file)."""
    found = _WHERE.search(problem)
    if found is None:
        return "it is not a usable settings file"
    if found.group(0).startswith("("):
        return f"it is not valid TOML {found.group(0)}"
    return f"[{found.group(1)}]{' ' + found.group(2) if found.group(2) else ''} is not usable"


def _deleted_notice() -> str:
    return (f"{CONFIG_FILE} is in no commit of this branch (a commit from elsewhere deleted it?); the file "
            f"on disk is kept and in force: put it back for every clone with `git add {CONFIG_FILE} && git commit`")


def _committed_blob(root: Path, repo: GitRepo, prefix: str, head: str | None, state_dir: Path) -> str | None:
    """HEAD's vault.toml blob id, kept per HEAD in a record signed with this machine's key: a
    lookup costs a git process, and every command asks."""
    if head is None:
        return None
    record = state_dir / SETTINGS_CHECKED
    try:
        raw = read_own(record) if state_dir.is_dir() else None
    except VaultMemError:
        raw = None  # a link there: looked up, and not kept
    seen = unseal(root, "checked-settings", raw) if raw else None
    if seen and seen.get("head") == head:
        blob = seen.get("blob")
        return blob if isinstance(blob, str) else None
    blob = repo.blob_at(head, prefix + CONFIG_FILE)
    if raw is not None or state_dir.is_dir():
        try:
            atomic_write(record, seal(root, "checked-settings", {"head": head, "blob": blob}), mode=PRIVATE_FILE)
        except (OSError, VaultMemError):
            pass  # a read-only state folder: looked up again next time
    return blob


def carry_committed_blob(root: Path, state_dir: Path, parent: str, commit: str, changed: set[str]) -> None:
    """After a commit this process made on ``parent`` changing only the vault-relative paths
    ``changed``: when the record of :func:`_committed_blob` is ``parent``'s and ``commit`` left
    vault.toml alone, the same blob is ``commit``'s, so the record is moved to it and the next
    command asks git nothing (a ``cat-file`` process and the record's two fsyncs). Written
    without fsync: a record lost to a crash is looked up again."""
    if CONFIG_FILE in changed:
        return
    record = state_dir / SETTINGS_CHECKED
    try:
        raw = read_own(record)
    except VaultMemError:
        return  # a link there: left to the next lookup
    seen = unseal(root, "checked-settings", raw) if raw else None
    if not seen or seen.get("head") != parent:
        return
    blob = seen.get("blob")
    try:
        replace_file(record, seal(root, "checked-settings", {"head": commit,
                                                            "blob": blob if isinstance(blob, str) else None}),
                     mode=PRIVATE_FILE)
    except (OSError, VaultMemError):
        pass  # a read-only state folder: looked up again next time


def _legacy_approved(root: Path, cfg: Config) -> bool:
    """Whether an earlier vault-mem, which approved only the settings that send data off the
    machine, approved exactly those of ``cfg`` here: the file was in force then, so it stays in
    force after the upgrade (and every later change waits for approval)."""
    legacy = legacy_settings(root)
    if legacy is None:
        return False
    e = cfg.embedder
    remote = e.provider in ("ollama", "openai")
    wanted: dict[str, object] = {
        "embedder.provider": e.provider, "embedder.url": e.url, "embedder.api_key_env": e.api_key_env,
        "sync.remote": cfg.sync_remote, "sync.interval_s": float(cfg.sync_interval_s),
        "sync.after_write": cfg.sync_after_write, **({"embedder.model": e.model} if remote else {})}
    offline = not remote and not cfg.sync_remote and not cfg.sync_interval_s and not cfg.sync_after_write
    return offline or all(legacy.get(k) == v for k, v in wanted.items())


def _keeps_unapproved(repo: GitRepo, committed: str | None, fallback: Config, fallback_blob: str | None,
                      history: list[str], requested: Config) -> bool:
    """Whether the person's edit (``requested``) of HEAD's vault.toml (blob ``committed``) keeps a
    setting of HEAD's that was never approved here: one that differs from the settings in force
    (``fallback``) and that the edit left as HEAD has it. A peer's pending change stays pending
    when the person edits another line (a comment, another setting) or git merges it into the
    person's uncommitted edit (``git pull --autostash``): the edit is the person's word for what
    it changes only. HEAD's file approved here (now or before) keeps nothing unapproved; one that
    does not parse is not told apart line by line, so every change from the settings in force
    counts as kept."""
    if committed is None or committed == fallback_blob or committed in history:
        return False
    changes = setting_changes(fallback, requested)
    if not changes:
        return False
    try:
        head = parse_config(repo.read_object(committed)[1])
    except (ConfigError, GitError, VaultMemError):
        return True
    edited = setting_changes(head, requested)
    return any(key not in edited for key in changes)


def _put_back_here(repo: GitRepo, prefix: str, blob: str, committed: str | None, state_dir: Path) -> bool:
    """Whether a vault.toml (``blob``) that this machine approved before, but not last, was put
    back by this machine: HEAD's file, when the last commit that changed it was made here (the
    person's `git revert` of their own change, a checkout or reset to a commit of their own); an
    uncommitted file, when no git command or sync is writing the work tree (the person wrote it
    back: git leaves a peer's file uncommitted only in a squash, pick or revert, which
    :func:`_git_writing` tells). A peer's commit putting back an old approved file (the person had replaced
    it, and the peer undoes that) is a change like any other: it waits for `vault-mem trust`
    (issue 23, attack24: "a revert needs no second approval" let any peer undo the person's
    settings by pushing the bytes of a file approved once). Either way never bytes a commit not
    made here ever held (:func:`seen_elsewhere`): a person's `git checkout PEER~1 -- vault.toml`
    (what the "vault.toml is missing" notice advised when a peer deleted it after putting back
    an old file), committed or not, is the peer's file written by the person's hand (atk32)."""
    if committed == blob:
        try:
            last = last_commit(repo, [prefix + CONFIG_FILE])
        except GitError:
            return False
        if last is None or last not in recorded(repo.common_dir)[1]:
            return False
    elif _git_writing(repo, state_dir):
        return False
    try:
        return not seen_elsewhere(repo, blob, prefix)
    except GitError:
        return False


def _git_writing(repo: GitRepo, state_dir: Path) -> bool:
    """Whether the work tree's vault.toml may be git's or a sync's writing, not the person's edit:
    git holds index.lock while it writes the work tree ahead of HEAD (a checkout, a pull); a
    commit holds it too, and runs its pre-commit hook (vault-mem's, which opens the vault) with
    GIT_INDEX_FILE set: the person's `git commit vault.toml` is their edit. Nor while a squash,
    pick or revert git merged waits for its commit (`git merge --squash`, `cherry-pick -n`: no
    MERGE_HEAD): the text git merged holds the other commit's settings, and the commit that
    concludes it (this hook's own) is no edit either."""
    in_commit_hook = bool(os.environ.get("GIT_INDEX_FILE"))
    return bool((repo.index_locked() and not in_commit_hook) or repo.operation_in_progress()
                or repo.concluding_replay() or (state_dir / SYNC_JOURNAL_NAME).exists())


def _own_edit(repo: GitRepo, prefix: str, blob: str, state_dir: Path) -> bool:
    """Whether a work-tree vault.toml (``blob``) that differs from HEAD's is this machine's
    person's edit, not the remote's file on its way in (module doc)."""
    if _git_writing(repo, state_dir):
        return False
    try:
        tips = repo.run("for-each-ref", "--format=%(objectname)", "refs/remotes").split()
    except GitError:
        return False
    if any(repo.blob_at(tip, prefix + CONFIG_FILE) == blob for tip in tips):
        return False
    try:
        return not seen_elsewhere(repo, blob, prefix)
    except GitError:
        return False


def _last_change(repo: GitRepo, prefix: str) -> str:
    """``commit abc1234567 by NAME`` of the last commit that changed vault.toml, for the notice."""
    try:
        last = last_commit(repo, [prefix + CONFIG_FILE])
    except GitError:
        last = None
    if not last:
        return "in no commit"
    # the commit only, not its author's name: the notice reaches agents, and that name is text
    # its writer chose (`git show` names them to the person)
    return f"commit {last[:10]}"
