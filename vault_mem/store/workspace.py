"""The workspace: one vault's place on disk and in git, shared by everything above the store.

A :class:`Workspace` owns what every part of a vault needs and nothing else: the root, the
vault's path inside its repository (the prefix), the state folder, the git repository, the write
lock, the settings and the agent's identity. The modules of the vault layer (the write
transaction, recovery, history, creation) and the sync layer take a workspace, not the
:class:`~vault_mem.vault.core.Vault` facade, so that none of them imports the facade back.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from vault_mem.config import (
    CONFIG_FILE,
    MAX_CONFIG_BYTES,
    STATE_DIR,
    TYPE_FOLDERS,
    Config,
    config_home_notice,
    project_link,
    usable_agent_text,
    with_environment,
)
from vault_mem.errors import (
    ConfigError,
    GitError,
    LinkError,
    MalformedFileError,
    NotAVaultError,
    StateError,
    UnsafeTreeError,
    UsageError,
    VaultMemError,
)
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import Memory, key_type_from_path, memory_from_bytes
from vault_mem.model.names import REFUSED, named, shell_word, shown
from vault_mem.model.policy import WritePolicy
from vault_mem.platform import settle
from vault_mem.platform.logs import Logger
from vault_mem.store.files import (
    PRIVATE_FILE,
    atomic_write,
    check_type_folder,
    current_bytes,
    ensure_own_dir,
    read_memory_bytes,
    read_own,
    replace_file,
)
from vault_mem.store.git import GitRepo, Identity, run_git
from vault_mem.store.gitfiles import (
    UNSETTLED,
    ignore_files_signature,
    ignored_memory_folders,
    ignored_present_memories,
    Held,
    carry_held,
    held_notice,
    held_record,
    type_folder_stamps,
)
from vault_mem.store.gitindex import index_file_read, index_file_signature
from vault_mem.store.health import (
    close_to_others,
    exposed_to_others,
    history_problem,
    repository_problem,
    state_dir_problem,
)
from vault_mem.store.history import (
    changed_entries,
    first_unsafe_entry,
    held_beside,
    head_branch,
    prefix_twin,
    remembered,
    tree_entries,
)
from vault_mem.store.hooks import unsafe_hooks_notice
from vault_mem.store.locks import SAY_WAITING_AFTER_S, WRITE_LOCK, WriteLock, daemon_pid
from vault_mem.store.provenance import record_file
from vault_mem.store.settings import Settings, carry_committed_blob, settings_in_force
from vault_mem.store.trust import approve_config, approved_config, seal, trust_file, unseal
from vault_mem.store.treeshapes import TreeShapes
from vault_mem.store.upstream import STOPPED, stopped_notice
from vault_mem.store.worktree import config_in_vault_notice

#: under .vault-mem/: the last HEAD whose tree :meth:`Workspace.check_head_tree` found safe
HEAD_CHECKED = "checked-head"
#: under .vault-mem/: which type folders git ignored, and the ignore files' state it was read at
IGNORE_CHECKED = "checked-ignores"
log = Logger("vault_mem.store.workspace")  # logging imported at the first message (start-up time)
#: how long a write waits for a person's running git command (pull, checkout, ...) to end
PERSON_GIT_WAIT_S = 5.0


#: a new vault's branch when the person set no ``init.defaultBranch`` (git's own default is still
#: ``master``, with a hint; the remotes people sync through, and these docs, name ``main``)
DEFAULT_BRANCH = "main"


def init_repository(root: Path) -> None:
    """``git init`` a new repository at ``root``: on the person's ``init.defaultBranch``, else
    :data:`DEFAULT_BRANCH`."""
    chosen = run_git("config", "--get", "init.defaultBranch").stdout.strip()
    branch = () if chosen else (f"--initial-branch={DEFAULT_BRANCH}",)
    proc = run_git("init", "-q", *branch, str(root))
    if proc.returncode != 0:
        err = proc.stderr.decode("utf-8", "replace").strip()
        raise GitError(f"git init failed: {err}; check that {root} is writable")


def committed_link(link: Path) -> str | None:
    """Why the vault named ``link`` (as named, not resolved) is refused, or None: a project's
    ``memory/`` that is a symlink its repository holds (:func:`vault_mem.config.project_link`),
    which any commit can point at a folder of its author's choosing. A link of this machine's
    own that no commit holds (``memory -> ../notes``) is followed as before."""
    link = Path(os.path.abspath(link))
    if not project_link(link) or not _link_in_index(link):
        return None
    try:  # text its committer chose, in a note an agent reads: escaped, and cut
        target = os.readlink(link)
        target = named(target if len(target) <= 60 else target[:60] + "...", "where a commit pointed it", word=True)
    except OSError:
        target = "?"
    return (f"{shown(str(link))} is a symlink (to {target}) that the repository holds: a commit made it, so "
            f"where it points is anyone's choice, and vault-mem never takes a committed link as the project's "
            f"vault; nothing was read or written through it. See whose commit made it (`git log -- "
            f"{shell_word(str(link))}`), then restore the folder (`git checkout <commit before> -- "
            f"{shell_word(link.name)}` in {shell_word(str(link.parent))}) or name a vault with --vault PATH")


def committed_link_on(path: Path) -> Path | None:
    """The first symlink on the way to ``path`` (``path`` itself or a folder above it, as named, not
    resolved) that the git repository holding it has in its index: a commit's, pointing where its
    author chose (a teammate's ``CLAUDE.md -> ~/notes/private.md``), or None. A link of this
    machine's own that no commit holds is not named: the person's choice. One ``git ls-files`` per
    link on the way, none where there is no link."""
    named = Path(os.path.abspath(path))
    for step in (named, *named.parents):
        if os.path.islink(step) and _link_in_index(step):
            return step
    return None


#: :func:`_link_in_index`'s answers, by the link's path and the index file git read
#: (:func:`~vault_mem.store.gitindex.index_file_signature`: its content's hash included)
_LINKS_IN_INDEX: dict[tuple, bool] = {}


def _link_in_index(named: Path) -> bool:
    """Whether git's index in the repository at ``named.parent`` holds a link at ``named.name``
    (a commit's, or one staged to be: :func:`committed_link`); True when git cannot say. One
    ``git ls-files`` per state of the index: the finder asks first, the vault asks again when it
    opens (and a command resolves its vaults more than once), so the answer is kept for as long
    as the index git reads is the same file with the same content."""
    key = _index_key(named)
    if key is not None and key in _LINKS_IN_INDEX:
        return _LINKS_IN_INDEX[key]
    try:
        proc = run_git("ls-files", "-s", "-z", "--", named.name, cwd=named.parent)
    except (GitError, OSError):
        return True  # git cannot say: refused, as a committed link would be
    # the link is a commit's only when git holds an entry at `memory` itself; files under
    # `memory/` are the folder the person moved away and linked back (nothing committed). A
    # git that fails lists nothing, as before: opening the vault names its error
    entries = (rec.partition(b"\t") for rec in proc.stdout.split(b"\0"))
    held = any(path == named.name.encode() and meta.startswith(b"120000 ") for meta, _, path in entries)
    if key is not None and proc.returncode == 0 and key == _index_key(named):  # not replaced meanwhile
        if len(_LINKS_IN_INDEX) >= 64:
            _LINKS_IN_INDEX.clear()
        _LINKS_IN_INDEX[key] = held
    return held


def _index_key(named: Path) -> tuple | None:
    """(``named``, the index file git reads for the repository at ``named.parent``, its
    signature), or None where that file is not found here (nothing is kept then): git's
    ``GIT_INDEX_FILE``, else ``index`` in ``GIT_DIR``, in ``.git`` or where a ``.git`` file
    (a worktree's, a submodule's) points."""
    top = named.parent
    path = index_file_read(top, None)  # GIT_INDEX_FILE, which needs no git folder found
    if path is None:
        git_dir = os.environ.get("GIT_DIR")
        if not git_dir:
            dot = top / ".git"
            if dot.is_dir():
                git_dir = str(dot)
            elif dot.is_file():  # a regular file, never a FIFO or device: read, and only its head
                try:
                    with open(dot, "rb") as fh:
                        text = fh.read(4096).decode("utf-8", "replace").strip()
                except OSError:
                    return None
                if not text.startswith("gitdir: "):
                    return None
                git_dir = text.removeprefix("gitdir: ")
            else:
                return None
        path = index_file_read(top, git_dir)  # a relative one is git's folder's, as git reads it (run in ``top``)
    try:
        sig = index_file_signature(path)
    except OSError:
        return None
    return None if sig is None else (str(named), str(path), sig)


class Workspace:
    """Root, prefix, state dir, repository, lock and settings of the vault at ``root``."""

    #: the commit whose tree :meth:`check_head_tree` passed (or this process made on one it
    #: passed: :meth:`own_commit_landed`), None before a check passed
    _checked_head: str | None = None

    def __init__(self, root: str | Path, *, agent: str | None = None, repo: GitRepo | None = None):
        linked = committed_link(Path(root).expanduser())
        if linked:
            raise LinkError(linked)
        root = Path(root).expanduser().resolve()
        # read no further than a settings file may hold: a longer one is refused as such
        raw = read_own(root / CONFIG_FILE, max_bytes=MAX_CONFIG_BYTES + 1) if os.path.lexists(root / CONFIG_FILE) \
            else None
        if raw is None and approved_config(root) is None:
            raise NotAVaultError(
                f"{root} is not a vault (no {CONFIG_FILE}); create one with `vault-mem init {root}`"
            )
        self.root = root
        self.state_dir = root / STATE_DIR
        problem = state_dir_problem(self.state_dir)
        if problem:
            raise StateError(problem)
        try:
            # ``repo``: the repository another Workspace of this vault opened (it answers the same)
            self.repo = repo if repo is not None else GitRepo(root)
        except GitError as exc:
            raise NotAVaultError(
                f"{root} has a {CONFIG_FILE} but is not in a git repository; run `git init` there "
                "or re-create it with `vault-mem init`"
            ) from exc
        if self.repo.tree_shapes is None:
            self.repo.tree_shapes = TreeShapes(root, self.state_dir)
        rel = os.path.relpath(root, self.repo.toplevel.resolve())
        #: the vault's folder inside its repository ("" at the top level, else "memory/")
        self.prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
        # the stamp of the state said at the opening, taken before any of it is read (see below)
        stamp = self._state_stamp()
        #: what vault.toml asks for and what is in force on this machine (DESIGN §7)
        self.settings: Settings = settings_in_force(root, self.repo, self.prefix, raw, self.state_dir)
        #: things the vault did on its own that a person should hear about (recovered writes,
        #: a vault.toml waiting for approval or not usable)
        self.notices: list[str] = list(self.settings.notices)
        self.config: Config = with_environment(self.settings.config)
        named = agent or os.environ.get("VAULT_MEM_AGENT")
        if named and not usable_agent_text(named):
            raise UsageError(f"the agent name {named[:80]!r} is not usable: printable text without '<' or '>', "
                             "at most 500 characters (--agent, $VAULT_MEM_AGENT)")
        self.agent = named or self.config.agent_name
        # the open's questions about fixed commits answered once: after HEAD moved, the tree's
        # check and the held files' record both read what changed since the commit each saw
        # last, the same one diff-tree (it ran twice in every command after a commit or a pull)
        with remembered(self.repo):
            self.check_head_tree()  # before anything is written: a fresh clone's tree is a peer's
            home_note = config_home_notice(once=True)  # a relative XDG_CONFIG_HOME, ignored: once per process
            try:
                ensure_own_dir(self.state_dir)
            except OSError as exc:
                raise StateError(f"cannot create {self.state_dir} ({exc.strerror}); make {root} writable "
                                 "for you, or create that folder, and retry") from exc
            self.lock = WriteLock(self.state_dir / WRITE_LOCK)
            state = self._state_list(self.settings)
        self.notices.extend(n for n in state if n not in self.notices)
        #: the notices of the vault's state said at the opening (:meth:`state_notices` says them
        #: as they are now); kept as :meth:`state_notices`' first answer when vault.toml still
        #: holds the bytes read above, taken before the stamp was (an opening's state notices
        #: cost ~0.25 s: a long-lived process's first result would pay them twice)
        self.opening_state = frozenset(state)
        if raw == (read_own(root / CONFIG_FILE, max_bytes=MAX_CONFIG_BYTES + 1)
                   if os.path.lexists(root / CONFIG_FILE) else None):
            self._state_said, self._state_config = (stamp, state), self.settings.config
        if home_note:
            self.notices.append(home_note)
        #: the checks every write makes (key, format, size, secrets, lint)
        self.policy = WritePolicy(max_body_bytes=self.config.max_body_bytes,
                                  max_file_bytes=self.config.max_file_bytes)

    #: (stamp, notices) of :meth:`state_notices`' last answer
    _state_said: tuple[list, list[str]] | None = None
    #: the settings in force as :meth:`state_notices` last worked them out
    _state_config: Config | None = None

    def _state_notes(self) -> list[str]:
        """The notices that say a condition of the vault as it is (not an event): the git hooks
        that run unsafely, a config file git reads from the vault, a sync stopped, the folders git
        ignores, the agent, editor and git files HEAD holds unapproved. One home for the opening of a workspace
        and for :meth:`state_notices` (a long-lived process's every answer)."""
        notes = []
        hooks_note = unsafe_hooks_notice(self.repo.hooks_dir, self.root, self.repo.common_dir, self.repo.toplevel)
        if hooks_note:
            notes.append(hooks_note)
        #: the line naming a config file git reads from the vault, which a peer's commit changes
        #: (None: none), looked for once per opening (doctor says it as a warning)
        self.config_note = config_in_vault_notice(self.repo, self.root)
        if self.config_note:
            notes.append(self.config_note)
        stopped = stopped_notice(self.state_dir)  # a sync that met a replaced history (store/upstream)
        if stopped:
            notes.append(stopped)
        ignored = self.ignored_folders()
        if ignored:
            notes.append(
                f"git ignores new memory files in {', '.join(ignored)} of {self.root} (a .gitignore or exclude "
                "rule): they would be in no commit and no sync while `git status` looks clean; find the "
                f"rule with `git check-ignore -v --no-index {ignored[0]}new-memory.md {ignored[0]}*.md` and remove it")
        #: the line naming what HEAD holds unapproved (None: nothing), said by every command
        self.held_note = self._held_note()
        if self.held_note:
            notes.append(self.held_note)
        return notes

    def _state_stamp(self) -> list:
        """A cheap key (``stat`` calls, no git process) of what :meth:`state_notices` derives
        from: vault.toml, this machine's approvals, HEAD and the refs, git's configuration, the
        hooks folder, the ignore files, the record of a sync stopped in the state folder (not the
        folder itself: every read writes a cache there), and the record of the commits made here
        (what HEAD holds unapproved depends on it: a post-commit hook recording the person's
        commit after a read had named their file a peer's)."""
        git_dir, common = self.repo.git_dir, self.repo.common_dir
        approvals = trust_file()
        paths = [self.root / CONFIG_FILE, *([approvals] if approvals else []), git_dir / "HEAD", common / "packed-refs",
                 common / "config", git_dir / "config.worktree", self.state_dir / STOPPED,
                 record_file(common), self.repo.hooks_dir]
        try:
            with open(git_dir / "HEAD", "rb") as fh:
                ref = fh.read(4096).decode("utf-8", "replace").strip()
        except OSError:
            ref = ""
        if ref.startswith("ref: "):
            paths += [git_dir / ref[5:], common / ref[5:]]
        try:
            with os.scandir(self.repo.hooks_dir) as entries:
                paths += sorted(Path(e.path) for e in entries)
        except OSError:
            pass
        out: list = [ref]
        for path in paths:
            try:
                st = os.stat(path)
            except OSError:
                out.append(None)
                continue
            out.append([settle.stamp(st), st.st_mode])  # the mode: a hook made executable or not
        out.append(ignore_files_signature(self.repo, self.root))
        return out

    def _state_list(self, settings: Settings) -> list[str]:
        """The state notices, each once: the settings' (``settings``, as read at the opening or
        now), then :meth:`_state_notes`'. The one list of the opening and :meth:`state_notices`."""
        return list(dict.fromkeys([*settings.notices, *self._state_notes()]))

    def state_notices(self) -> list[str]:
        """The notices of the vault's state as it is now, for a process that answers for long
        (the daemon attaches them to every read: frozen at its start, a read said a notice the
        person had resolved, and nothing of a peer's file a pull took after it started). The
        settings' notices (vault.toml waiting for approval, missing, not usable) are read again
        beside :meth:`_state_notes`; all of it only when :meth:`_state_stamp` changed, so a
        read pays some ``stat`` calls."""
        stamp = self._state_stamp()
        if self._state_said is not None and self._state_said[0] == stamp:
            return list(self._state_said[1])
        raw = (read_own(self.root / CONFIG_FILE, max_bytes=MAX_CONFIG_BYTES + 1)
               if os.path.lexists(self.root / CONFIG_FILE) else None)
        settings = settings_in_force(self.root, self.repo, self.prefix, raw, self.state_dir)
        with remembered(self.repo):  # as at the open
            notes = self._state_list(settings)
        self._state_said, self._state_config = (stamp, notes), settings.config
        return list(notes)

    def settings_moved(self) -> bool:
        """Whether the settings in force now differ from those this workspace opened with
        (:meth:`state_notices`' check, as cheap: ``stat`` calls while nothing changed). A process
        that answers for long (the daemon) opens the vault again then: the person's `vault-mem
        trust` changes no file of the vault, only this machine's approvals, and a daemon kept
        answering with the settings the person had just replaced (atk33)."""
        try:
            self.state_notices()
        except (VaultMemError, OSError):  # what stops it stops the read too, which says so
            return False
        return self._state_config is not None and self._state_config != self.settings.config

    def held(self) -> Held:
        """The files HEAD holds that take approval in versions not approved here nor committed here
        (:func:`~vault_mem.store.gitfiles.held_record`: whatever took them in, a plain pull, a fresh
        clone, a reset), kept in the vault's state: the one answer every command's notice, `doctor`,
        `init` and the agent's context read."""
        from vault_mem.store.template import template_blobs  # read once per process

        return held_record(self.root, self.repo, self.prefix, self.state_dir, template_blobs())

    def held_count(self) -> int:
        """How many files :meth:`held` finds (0 when it cannot tell: the notice says why)."""
        try:
            return self.held().count
        except VaultMemError:
            return 0

    def _held_note(self) -> str | None:
        try:
            held = self.held()
        except VaultMemError as exc:
            return f"could not check the vault's agent, editor and git files ({exc})"
        return held_notice(held) if held else None

    @property
    def pending(self) -> dict[str, tuple[object, object]]:
        """The settings a vault.toml waiting for approval would change: ``{key: (now, asked)}``."""
        return self.settings.changes

    def approve_settings(self) -> Path | None:
        """Approve, on this machine, the vault.toml this workspace read (the exact bytes shown
        to the person: ``vault-mem trust``, answered on the terminal; ``vault-mem init``), in force from the next
        opening of the vault. Returns the file the approval is kept in; None when there was
        nothing to approve (the file is in force already). A file that does not parse is never
        approved (:class:`ConfigError`)."""
        s = self.settings
        if s.pending_raw is None:
            if s.requested is None and s.problem:
                raise ConfigError(f"{s.problem}; nothing approved")
            return None
        return approve_config(self.root, s.pending_raw, s.pending_blob or "", how="trust",
                              defaults=s.requested == Config())

    def ignored_folders(self, *, fresh: bool = False) -> list[str]:
        """The type folders where git ignores a new memory file
        (:func:`~vault_mem.store.gitfiles.ignored_memory_folders`); the answer is kept until an
        ignore file changes, so most commands pay a few ``stat`` calls, not a git process. A type
        folder that changed since (a file written there) adds one ``git ls-files`` for the memory
        files git ignores there now (:func:`~vault_mem.store.gitfiles.ignored_present_memories`):
        a name no probe matched is still named once the person writes it.
        ``fresh``: asked of git now (``doctor``: the memory files written since count)."""
        sig = ignore_files_signature(self.repo, self.root)
        folders = type_folder_stamps(self.root)
        record = self.state_dir / IGNORE_CHECKED
        try:
            raw = read_own(record)
        except VaultMemError:
            raw = None
        seen = unseal(self.root, "ignore-checked", raw) if raw and not fresh else None
        rules = seen.get("rules") if seen and seen.get("sig") == sig else None
        if isinstance(rules, list) and seen is not None and isinstance(seen.get("ignored"), list):
            if seen.get("folders") == folders and UNSETTLED not in folders:
                return [str(x) for x in seen["ignored"]]
            # the rules are as they were, a type folder changed: a file written there since (by
            # hand, under a name no probe matched: a peer's `*-*-*-*.md`) may be one git ignores,
            # which the rules' answer alone left unsaid until an ignore file changed (attack24)
            ignored = sorted({str(x) for x in rules} | set(ignored_present_memories(self.repo, self.prefix)))
        else:
            rules = ignored = ignored_memory_folders(self.repo, self.prefix, self.root)
        try:
            atomic_write(record, seal(self.root, "ignore-checked",
                                      {"sig": sig, "folders": folders, "rules": rules, "ignored": ignored}),
                         mode=PRIVATE_FILE)
        except OSError:
            pass  # a cache: a read-only or full state folder only means asking git again next time
        return ignored

    def check_head_tree(self) -> None:
        """Refuse a vault whose checked-out commit holds what sync would refuse from a peer
        (:func:`~vault_mem.store.history.unsafe_entry`): a fresh clone, a checkout or a pull
        brings a peer's tree as surely as a sync does. The verdict is kept per HEAD (signed with
        this machine's key, so a planted record does not count); a later HEAD is checked on the
        paths that changed since, so a command pays one ``diff-tree`` after HEAD moved."""
        head = self.repo.head()
        if head is None:
            return
        record = self.state_dir / HEAD_CHECKED
        try:
            raw = read_own(record) if os.path.isdir(self.state_dir) else None
        except VaultMemError:
            raw = None  # a link there: checked from scratch (and refused with the tree)
        seen = (unseal(self.root, "checked-head", raw) or {}).get("commit") if raw else None
        if seen == head:
            self._checked_head = head
            return
        if not self.repo.has_object(head):
            # removed by a gc: nothing of it can be checked out or read; reads answer from the
            # files, and writes and doctor refuse with the fix (repository_problem)
            self.notices.append(self.repository_problem() or f"HEAD's commit {head[:10]} is missing")
            return
        pathspec = self.prefix or "."
        modes: dict[str, str | None] | None = None
        incremental = False
        if isinstance(seen, str) and len(seen) in (40, 64) and all(c in "0123456789abcdef" for c in seen):
            # the paths changed since, with their modes: one diff-tree, whatever their number (it
            # fails when that commit is gone, a gc's, and the whole tree is checked instead: a
            # rev-parse first cost every command after a write one more git process)
            try:
                modes = {p: e[0] for p, e in changed_entries(self.repo, seen, head, pathspec).items()
                         if e is not None}
                incremental = True
            except GitError:
                modes = None
        if modes is None:
            try:
                modes = dict(tree_entries(self.repo, head, pathspec))
            except GitError as exc:
                # a damaged object (a corrupt loose file, a truncated pack): git cannot read the
                # tree, nor check it out; reads answer from the files, writes refuse with this
                said = str(exc).splitlines()
                self._head_problem = (
                    f"git cannot read the tree of HEAD's commit {head[:10]} in {self.repo.toplevel} "
                    f"({said[-1].strip() if said else exc}): an object of the repository is damaged; "
                    "`git fsck` names it: restore it from a clone or a backup (or re-clone), then retry")
                self.notices.append(self._head_problem)
                return
        # the changed names against the names HEAD holds beside them (a checkout of the whole tree
        # compares them all already): a plain `git pull` of a peer's `Preferences/editor-choice.md`
        # beside the person's `preferences/` passed here, and on macOS or Windows git writes the
        # peer's file over the person's, which then reads as the person's own uncommitted edit
        found = first_unsafe_entry(modes, self.prefix, held_beside(self.repo, head, modes) if incremental else ())
        if found:
            rel, why = found
            # the entry as git holds it: the vault's own folder (a teammate's gitlink at `memory`)
            # is named by its top-level path, which is no path inside the vault
            held = self.prefix + rel if self.prefix + rel in modes else rel
            removed = self._drop_committed_state(modes)
            said = (f"; git wrote that commit's {', '.join(shown(r) for r in removed[:3])} over this machine's "
                    "own state, which vault-mem removed (rebuilt from the memory files once the entry is gone)"
                    if removed else "; nothing was changed")
            raise UnsafeTreeError(
                f"the commit checked out in {self.root} ({head[:10]}) holds {named(rel, REFUSED)}: {why}. vault-mem "
                f"takes only regular files inside the vault from a commit; inspect it (git show --stat "
                f"{head[:10]}) and remove that entry with git (GIT_LITERAL_PATHSPECS=1 git rm -r --cached -- {named(held, REFUSED, word=True)}, "
                f"delete it, git commit), then retry{said}")
        twin = prefix_twin(self.repo, head, self.prefix) if self.prefix else None
        if twin:
            other, folder = twin
            raise UnsafeTreeError(
                f"the commit checked out in {self.repo.toplevel} ({head[:10]}) holds {named(other, REFUSED)} beside "
                f"the vault's folder {shown(folder)}, a name that differs from it only in case: on macOS and "
                f"Windows git writes what it holds into the vault, where it passes for this machine's own "
                f"files. Inspect it (git show --stat {head[:10]}) and remove it with git (GIT_LITERAL_PATHSPECS=1 git rm -r --cached -- "
                f"{named(other, REFUSED, word=True)}, delete it, git commit), then retry; nothing was changed")
        self._checked_head = head
        self._record_checked_head(head, durable=True)

    #: the search index's file in the state folder (index/sidecar.py), and SQLite's beside it
    SIDECAR_FILE = "index.db"

    def _drop_committed_state(self, modes: dict[str, str | None]) -> list[str]:
        """Remove the search index files of the state folder (``.vault-mem/index.db`` and its
        ``-wal``, ``-shm``, ``-journal``) that HEAD's commit holds and git wrote on the disk (the
        vault-relative paths removed; the other state files are signed with this machine's key,
        or ignored when another machine wrote them). git overwrites ignored files
        at a checkout, a pull or a merge, so a teammate's commit of a ``.vault-mem/index.db`` put
        their search index, its authors and origins rows of their choosing, in place of this
        machine's: once the person took the entry out of the commit, every read used it (the
        teammate's pinned memory in the session context as this machine's agent's). Nothing of
        it is read: the state is derived, rebuilt from the memory files. Never through a link."""
        removed = []
        for top in sorted(modes):
            if not top.startswith(self.prefix):
                continue
            rel = top[len(self.prefix):]
            parts = rel.split("/")
            if (len(parts) != 2 or parts[0] != STATE_DIR or not parts[1].startswith(self.SIDECAR_FILE)
                    or modes[top] not in ("100644", "100755")):
                continue
            path = self.root / rel
            try:
                if os.path.islink(self.state_dir) or not stat.S_ISREG(os.lstat(path).st_mode):
                    continue
                os.unlink(path)
            except OSError:
                continue
            removed.append(rel)
        return removed

    def _record_checked_head(self, head: str, *, durable: bool) -> None:
        record = self.state_dir / HEAD_CHECKED
        data = seal(self.root, "checked-head", {"commit": head})
        try:  # the verdict is a cache: on a full or read-only disk the next command checks again
            ensure_own_dir(self.state_dir)
            if durable:
                atomic_write(record, data, mode=PRIVATE_FILE)
            else:
                replace_file(record, data, mode=PRIVATE_FILE)
        except (OSError, StateError):
            pass

    def own_commit_landed(self, parent: str | None, commit: str, changes: dict[str, bool]) -> None:
        """Carry what the next command would ask git about HEAD over to ``commit``, which this
        process made on ``parent`` changing the vault-relative ``changes`` ({path: written, or
        False: deleted}; a written file is committed as a regular file, ``100644``):

        - the verdict of :meth:`check_head_tree`, when ``parent`` is the commit this process
          checked: the next command's check of the paths that changed since (one ``git
          diff-tree``) would find exactly these, so they are checked here, in process, by the same
          rule (the deleted paths need none);
        - HEAD's vault.toml blob (:func:`~vault_mem.store.settings.carry_committed_blob`): the
          same as ``parent``'s unless ``changes`` holds vault.toml;
        - what HEAD holds unapproved (:func:`~vault_mem.store.gitfiles.carry_held`): the same as
          ``parent``'s unless ``changes`` holds a file that takes approval.

        So a one-shot command after a write starts no git process for either. A commit on any
        other parent (HEAD moved under the write) is left to those checks. The records are
        written without fsync: a record lost to a crash only means the next command asks git
        (a record that does not unseal counts as none)."""
        if parent is None:
            return
        carry_committed_blob(self.root, self.state_dir, parent, commit, set(changes))
        from vault_mem.store.template import template_blobs  # read once per process

        # and what HEAD holds unapproved: a write changes no file that takes approval
        carry_held(self.root, self.repo, self.prefix, self.state_dir, template_blobs(), parent, commit, set(changes))
        if parent != self._checked_head:
            return
        if first_unsafe_entry({self.top(rel): "100644" for rel, written in changes.items() if written},
                              self.prefix):
            return  # the next command refuses HEAD with the reason, as it would have
        self._checked_head = commit
        self._record_checked_head(commit, durable=False)

    def exposure(self) -> str | None:
        """Whether other users of this machine can read this vault's memory (its folders and
        files, INDEX.md, the repository's objects): the line that says so and the fix, or None.
        For ``doctor``; a stat per file."""
        paths = [self.root, self.root / INDEX_FILE, self.repo.common_dir / "objects"]
        for folder in TYPE_FOLDERS.values():
            path = self.root / folder
            paths.append(path)
            try:
                paths += sorted(Path(e.path) for e in os.scandir(path) if e.name.endswith(".md"))
            except OSError:
                continue
        close = [self.root]
        if not self.repo.common_dir.is_relative_to(self.root):
            close.append(self.repo.common_dir)
        return exposed_to_others(self.repo.toplevel.resolve(), paths, close)

    def make_private(self, made: Iterable[Path] = ()) -> list[Path]:
        """What ``init`` does to a vault it makes or takes on (a clone): close to other users of
        this machine, whatever the umask, the vault folder (what keeps them from everything in
        it: the rule :meth:`exposure` checks), the repository's folder when it is the vault's own,
        vault-mem's state folder and everything in it, and ``made``: what ``init`` made (a folder
        of them is closed with everything in it). Never anything else the folder held: a
        person's own files (``init`` in a project or a site folder, or in ``~``) stay as they are.
        A repository outside the vault folder (a project's, holding the vault in a folder) is the
        person's and is left as it is; ``doctor`` names it. Returns the paths closed (that were
        open to others)."""
        root = self.root
        git_dir = self.repo.common_dir
        own_git = [git_dir] if git_dir.resolve().parent == root.resolve() else []
        return close_to_others([root, *own_git], into=[self.state_dir, *made])

    # -- names -----------------------------------------------------------------------------
    def top(self, rel: str) -> str:
        """The repository-relative path of the vault-relative ``rel``."""
        return self.prefix + rel

    def identity(self, agent: str | None = None) -> Identity:
        """The commit identity of ``agent`` (default: this workspace's agent)."""
        return Identity(agent or self.agent, self.config.agent_email)

    def daemon_running(self) -> bool:
        return daemon_pid(self.state_dir) is not None

    def daemon_fence(self) -> bool:
        """Whether the vault's daemon (another process) says its watcher has brought the sidecar
        up to every change made to the files before this call
        (:func:`~vault_mem.store.daemon_socket.fence`); False when none runs or it does not
        answer in time. Asked without the write lock: the daemon applies the changes under it
        (held here, as by a re-entrant caller, the daemon could not answer: not asked)."""
        pid = daemon_pid(self.state_dir)
        if pid is None or pid == os.getpid() or self.lock.held:
            return False
        from vault_mem.store import daemon_socket  # lazy: a write without a daemon imports no socket
        return daemon_socket.fence(self.root)

    # -- files -----------------------------------------------------------------------------
    def check_inside(self, rel: str) -> None:
        """Refuse ``rel`` unless it is a memory path in a real type folder of this vault."""
        key_type_from_path(rel)
        check_type_folder(self.root, rel)

    def find_file(self, key: str) -> tuple[str, str] | None:
        """(type, rel path) of ``key`` on disk, checking every type folder (a symlink to a file
        counts: it is found, then refused by whoever reads or writes it; a dangling one does
        not, and a write replaces it)."""
        for type_, folder in TYPE_FOLDERS.items():
            if (self.root / folder / f"{key}.md").exists():
                return type_, f"{folder}/{key}.md"
        return None

    def read_bytes(self, rel: str) -> bytes:
        """The bytes of the memory file ``rel`` through the one safe reader; a missing file
        is a :class:`MalformedFileError` too (it was found a moment ago)."""
        read = read_memory_bytes(self.root, rel, max_bytes=self.config.max_file_bytes)
        if read is None:
            raise MalformedFileError(f"{shown(rel)}: disappeared while it was being read; retry")
        return read[0]

    def read_memory(self, rel: str, *, quarantined: bool = False) -> Memory:
        """Parse the memory file ``rel`` (the one safe reader, then the file format). A file
        holding a credential is refused (:class:`~vault_mem.errors.QuarantinedFileError`) unless
        ``quarantined``: for a write that replaces it, whose result the write gate vets again."""
        data = self.read_bytes(rel)
        memory = memory_from_bytes(data, rel, max_bytes=self.config.max_file_bytes)
        if not quarantined:
            self.policy.check_readable(rel, data, memory)
        return memory

    def disk_bytes(self, rel: str) -> bytes | None:
        """What is at ``rel`` now, never through a symlink (None: no file)."""
        return current_bytes(self.root / rel)

    # -- git state -------------------------------------------------------------------------
    def check_git_state(self, *, running: bool = True) -> str:
        """Refuse to write while HEAD is detached or a merge, rebase, revert, ... is under way:
        an acknowledged write must be reachable from the branch. Returns the branch
        (``refs/heads/...``): the write commits to it only while HEAD still points there."""
        op = self.repo.operation_in_progress()
        if op:
            raise GitError(
                f"a git {op} is in progress in {self.repo.toplevel}; finish or abort it "
                f"(git {op} --continue / --abort) and retry"
            )
        busy = self.repo.person_git_command() if running else None  # a /proc scan: ~1-4 ms
        if busy:
            raise GitError(f"{busy} is under way in {self.repo.toplevel}; nothing was written: "
                           "retry when it is done")
        branch = head_branch(self.repo)
        if branch is None:
            raise GitError(
                f"HEAD is detached in {self.repo.toplevel} (a checkout of a commit, not a branch); "
                "a write there would be on no branch: `git switch <branch>` and retry"
            )
        if not branch.startswith("refs/heads/"):
            raise GitError(f"HEAD points at {branch}, not a branch in refs/heads/; `git switch <branch>` and retry")
        problem = self.repository_problem()
        if problem:
            raise GitError(f"nothing was written: {problem}")
        return branch

    def wait_for_person_git(self) -> None:
        """Wait (at most PERSON_GIT_WAIT_S) while a person's git command that changes the work
        tree runs here (a pull, a rebase, a checkout, a stash): a write started meanwhile would
        leave files that stop it half-way. Call it without the vault's write lock: git's hooks
        take that lock, so a command waited for under it could not end."""
        start = time.monotonic()
        said = False
        while (running := self.repo.person_git_command()) and time.monotonic() < start + PERSON_GIT_WAIT_S:
            if not said and time.monotonic() - start >= SAY_WAITING_AFTER_S:
                # every wait says what it waits for, within seconds (issue 25)
                log.warning("vault-mem: waiting for %s in %s to finish before writing (up to %.0f s)",
                            running, self.repo.toplevel, PERSON_GIT_WAIT_S)
                said = True
            time.sleep(0.02)

    def repository_problem(self) -> str | None:
        """A damaged branch ref, git index or HEAD tree that would make a commit fail, with its fix.

        A damaged HEAD tree found when the workspace opened is checked again here: a long-lived
        process (the MCP server, the daemon, an API caller) refused every write after the person
        restored the object or moved HEAD, while a new process wrote."""
        if getattr(self, "_head_problem", None) is not None:
            self._head_problem = None
            said = len(self.notices)
            try:
                self.check_head_tree()  # sets it again while the tree stays unreadable
            finally:
                del self.notices[said:]  # said once, when the workspace opened
        return getattr(self, "_head_problem", None) or repository_problem(self.repo)

    def history_problem(self) -> str | None:
        """An object missing or corrupt in git history (``git fsck``), with its fix."""
        return history_problem(self.repo, prefix=self.prefix)

    def check_not_dirty(self, rel: str) -> bytes:
        """Refuse to overwrite a person's uncommitted edit (it is in no commit, so it would be
        lost); returns the file's bytes, which the write then replaces only if unchanged. The
        file need not parse (a broken file can still be forgotten), but is never read through a
        symlink."""
        self.check_inside(rel)
        data = self.disk_bytes(rel)
        if data is None:
            raise MalformedFileError(f"{shown(rel)}: disappeared while it was being read; retry")
        committed = self.repo.blob_at(self.repo.head(), self.top(rel))
        if committed is None or GitRepo.blob_id(data) != committed:
            # the advice below is "commit it first": never for a file holding a credential
            self.policy.check_readable(rel, data)
        if committed is None:
            # never committed: a person's new file that only exists on disk
            raise VaultMemError(
                f"{shown(rel)} exists but was never committed; commit it first "
                f"(git add '{shown(rel)}' && git commit) so nothing of it can be lost, then retry"
            )
        if GitRepo.blob_id(data) != committed:
            raise VaultMemError(
                f"{shown(rel)} has uncommitted edits; commit them first (git commit '{shown(rel)}'), or wait "
                "for the daemon to commit them, then retry so nothing is lost"
            )
        return data
