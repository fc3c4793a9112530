"""``vault-mem hook NAME``: what Claude Code's and git's hooks run.

Claude Code (JSON event on stdin, JSON on stdout, exit 0; see hooks/claude-code/README.md):

- ``session-start``: INDEX.md (and the write policy) as the session's additional context.
- ``user-prompt-submit``: the top recall hits for the prompt that are strong matches (a
  candidate is one of the closest memories and may not answer: the agent finds those with
  recall), each with its age and a "may be outdated" note when it is old; no output at all when
  nothing strong is found, so an unrelated prompt costs no context.

With no --vault, both use every vault of the event's working folder (the project vault and the
personal vault, DESIGN §8): session-start carries both INDEX.md files within the one context
budget (:func:`index_contexts`), the prompt hook the strong hits of both, each naming its vault.

Both answer with ``{"hookSpecificOutput": {"hookEventName": ..., "additionalContext": ...}}``.
A failure exits 1 with the reason on stderr: Claude Code shows it and carries on (exit 2 would
block the prompt, which a memory lookup must never do). When the vault's daemon runs, it builds
the context (its model and vectors are warm, :mod:`vault_mem.adapters.reads`); otherwise this
process opens the vault and builds it with the same function. Until then nothing heavier than
the standard library is imported: the vault, git and the index are imported only when needed.

git (installed by :mod:`vault_mem.store.hooks`):

- ``pre-commit``: every staged memory file in the vault must parse, have a valid key as its file
  name, sit in a type folder, fit the size limit and hold no credential; otherwise the commit is
  refused (exit 1) naming each file and the reason. Then INDEX.md is regenerated and staged, so
  a hand commit keeps it true.
- ``post-merge``, ``post-checkout``, ``post-rewrite``: bring the sidecar and INDEX.md up to date,
  and commit INDEX.md alone in the person's name when the commits the git command brought in
  left the committed one stale (a peer's hookless commit a pull fast-forwarded to), so the work
  tree stays clean (skipped while a daemon runs: it does that itself). They never fail the git
  command.
- ``post-commit`` is installed too, but is plain shell (it records the commit as made on this
  machine) and never starts vault-mem: it is no name here (:mod:`vault_mem.adapters.hook_names`).

:func:`run_hook` returns ``(exit code, stdout, stderr)``; only the CLI writes them out.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_mem.config import FOLDER_TYPES, STATE_DIR, is_state_dir_name
from vault_mem.errors import (
    LockTimeoutError,
    MalformedFileError,
    NotAVaultError,
    UnsafeTreeError,
    UsageError,
    VaultMemError,
    for_person,
)
from vault_mem.store.finder import resolve_vault_root
from vault_mem.model.names import after_name, quoted, shell_word, shown
from vault_mem.adapters.hook_event import event_of
from vault_mem.adapters.hook_names import CLAUDE_HOOKS, HOOK_NAMES, STOP_HOOK

if TYPE_CHECKING:
    from vault_mem.adapters.vaults import Vaults
    from vault_mem.vault.core import Vault

# The Claude Code hooks' modules (contexts, distill, read_here, vaults) are imported inside their
# functions: a git hook of a person's commit never loads them (tests/test_git_hook_startup.py).

__all__ = ["HOOK_NAMES", "run_hook"]
#: how long post-checkout/-merge/-rewrite wait for the vault's write lock before leaving the
#: sidecar to the agents (git waits for its hooks)
REFRESH_LOCK_WAIT_S = 2.0

HookOutput = tuple[int, str, str]


def run_hook(name: str, stdin_text: str, *, vault: str | None = None, extra: list[str] | None = None) -> HookOutput:
    """Run hook ``name`` with the event text ``stdin_text``; ``vault`` is the --vault path."""
    handler = _HANDLERS.get(name) if name in HOOK_NAMES else None
    if handler is None:
        raise UsageError(f"unknown hook '{name}': use one of {', '.join(HOOK_NAMES)}")
    code, out, err = handler(stdin_text or "", vault, list(extra or []))
    # stderr is the person's (git's terminal, Claude Code's transcript): the one place a hook's
    # lines render the names vault-mem's sentences mark (a notice said raw put U+E000.. there)
    return code, out, for_person(err)


# -- Claude Code -----------------------------------------------------------------------------
def _root(explicit: str | None, cwd: str | None = None) -> Path:
    """The vault a git hook or a one-vault read means (:func:`~vault_mem.store.finder.resolve_vault_root`,
    the one rule): --vault, else the vault writes go to from the event's cwd (or ours): its
    project vault, else the personal vault, else $VAULT_MEM_VAULT."""
    return resolve_vault_root(explicit, start=Path(cwd) if cwd else None)


def _open_vault(explicit: str | None, cwd: str | None = None) -> Vault:
    from vault_mem.vault.core import Vault  # lazy: a hook answered by the daemon never needs it

    return Vault(_root(explicit, cwd))


def _context_output(event_name: str, context: str) -> str:
    return json.dumps({"hookSpecificOutput": {"hookEventName": event_name, "additionalContext": context}},
                      ensure_ascii=False) + "\n"


def _claude_hook(name: str) -> Callable[..., HookOutput]:
    def run(stdin_text: str, vault_path: str | None, extra: list[str]) -> HookOutput:
        from vault_mem.adapters.read_here import read_here
        from vault_mem.adapters.vaults import Vaults
        from vault_mem.store.finder import resolve_vaults

        event = event_of(stdin_text)
        cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else None
        try:
            vaults = Vaults(resolve_vaults(vault_path, start=Path(cwd) if cwd else None), here=read_here)
            try:
                if vaults.several:
                    build = several_session_context if name == "session-start" else several_prompt_context
                    context = build(vaults, event)
                else:  # the vault's daemon answers when one runs, else this process (adapters/reads.py)
                    reply = vaults.read(vaults.names[0], "hook", {"name": name, "event": event})
                    context = reply.get("context") if isinstance(reply, dict) else None
                notices = [*vaults.found.passed_notices, *vaults.take_notices()]
            finally:
                vaults.close()
        except NotAVaultError as exc:
            return 1, "", f"vault-mem: {exc}; set --vault in the hook's command\n"
        except VaultMemError as exc:  # a hostile tree, a symlinked vault.toml, ...: refused by name
            return 1, "", f"vault-mem: {exc}\n"
        notes = "".join(f"vault-mem: note: {n}\n" for n in notices)
        if not context:
            return 0, "", notes
        return 0, _context_output(CLAUDE_HOOKS[name], _fit(context)), notes
    return run


def _fit(text: str) -> str:
    from vault_mem.adapters.contexts import MAX_CONTEXT_CHARS
    from vault_mem.model.render import cut  # lazy: the hooks' start-up time

    return cut(text, MAX_CONTEXT_CHARS, "(more memories than fit here: use recall to search them)")


def several_prompt_context(vaults: Vaults, event: dict[str, Any]) -> str | None:
    """:func:`prompt_context` over every vault: each vault's strong hits (by its own verdict,
    :mod:`vault_mem.model.fusion`), merged, each naming its vault."""
    from vault_mem.adapters.contexts import PROMPT_HITS, person_prompt, prompt_hits_context

    prompt = event.get("prompt")
    if not isinstance(prompt, str) or not person_prompt(prompt):
        return None
    from vault_mem.model.fusion import merge_recall  # lazy: the hooks' start-up time

    params = {"query": person_prompt(prompt), "k": PROMPT_HITS, "full": True, "trusted_only": True}
    named = vaults.each(lambda n: vaults.read(n, "recall", params))
    return prompt_hits_context(merge_recall(named, PROMPT_HITS * len(named))["hits"])


#: what separates the vaults' INDEX.md in the session-start context
_BETWEEN = "\n\n"


def index_contexts(vaults: Vaults, room: int) -> list[str]:
    """Each vault's INDEX.md as the agent's context carries it, all within ``room`` characters:
    each vault gets an equal share, and the room one leaves unused goes to the others, so
    neither is starved by the other's size. Each is rendered within its share (never cut)."""
    from vault_mem.adapters.contexts import INDEX_CONTEXT

    names = vaults.names
    room -= len(_BETWEEN) * (len(names) - 1)

    def render(name: str, chars: int) -> str:
        heading = (f"INDEX.md of the {name} vault ({vaults.root(name)}), what is remembered there now "
                   "(recall searches everything):")
        reply = vaults.read(name, "hook", {"name": INDEX_CONTEXT, "event": {"max_chars": max(0, chars),
                                                                          "heading": heading}})
        return str(reply.get("context") or "")

    share = room // len(names)
    # a vault that refuses is skipped, named (Vaults.each): its share goes to the others below
    texts = dict(vaults.each(lambda n: render(n, share)))
    names = tuple(texts)
    # the largest is re-rendered within what the others left: a small personal INDEX.md leaves
    # its unused share to a large project one, and the other way round
    largest = max(names, key=lambda n: len(texts[n]))
    left = room - sum(len(t) for n, t in texts.items() if n != largest)
    if left > share:
        texts[largest] = render(largest, left)
    return [texts[name] for name in names]


def several_session_context(vaults: Vaults, event: dict[str, Any]) -> str:
    """:func:`session_context` over every vault: the preamble naming them, then each vault's
    INDEX.md within the one budget (:func:`index_contexts`)."""
    from vault_mem.adapters.contexts import MAX_CONTEXT_CHARS
    from vault_mem.adapters.tools import memory_preamble  # lazy: the hooks' start-up time

    where = " and ".join(f"{name} vault {vaults.root(name)}" for name in vaults.names)
    head = (memory_preamble(where, tools="vault-mem MCP tools")
            + "\n\nremember writes to the project vault; pass vault: personal for what holds across "
            "projects (the person's own preferences). get and forget take personal:KEY where both vaults "
            "have the key.\n\n")
    indexes = index_contexts(vaults, MAX_CONTEXT_CHARS - len(head))
    # a skipped vault is said here too: on exit 0 Claude Code shows the person no stderr, so the
    # refusal (a teammate's hostile tree in memory/, the personal vault's own) reached no one.
    # Fixed words only: the refusal's text names files a teammate chose
    skipped = "".join(f"The {name} vault ({vaults.root(name)}) was skipped: it refuses to be read, so its "
                      "memories are not here. Tell the person; `vault-mem doctor` there says why.\n\n"
                      for name in vaults.skipped)
    return head + skipped + _BETWEEN.join(indexes)


# -- git -------------------------------------------------------------------------------------
def check_staged_file(vault: Vault, rel: str, mode: str, data: bytes) -> str | None:
    """Why the staged memory file ``rel`` (vault-relative) may not be committed, or None."""
    from vault_mem.model.memory import key_type_from_path, validate_key  # lazy: the hooks' start-up time

    name = rel.rsplit("/", 1)[-1]
    if "/" in rel.split("/", 1)[1]:
        return "memory files sit directly in a type folder (<type folder>/<key>.md), not in a subfolder"
    try:
        validate_key(name[:-3])
        key_type_from_path(rel)
    except VaultMemError as exc:
        return f"the file name is not a valid key: {exc}"
    if mode == "120000":
        return "it is a symlink; vault-mem only reads regular files"
    try:
        vault.ws.policy.check_file(rel, data)  # the one WritePolicy every write path calls
    except MalformedFileError as exc:
        return after_name(str(exc), rel)
    except VaultMemError as exc:
        return str(exc)
    return None


def _only_deletions(folder: Path) -> bool:
    """Whether the commit being made changes nothing in the vault at ``folder`` but deletions,
    read from git's index: a commit that writes no file. One that changes nothing in a project
    vault's folder counts when it changes nothing anywhere but deletions (the teammate's entry
    refused may be beside the vault: a ``Memory/`` beside ``memory/``)."""
    from vault_mem.store import worktree
    from vault_mem.store.git import GitRepo

    try:
        repo = GitRepo(folder)
        prefix = os.path.relpath(folder, repo.toplevel)
        prefix = "" if prefix == "." else prefix.replace(os.sep, "/") + "/"
        changes = worktree.staged_changes(repo, prefix or ".")
        if not changes and prefix:
            changes = worktree.staged_changes(repo, ".")
    except (VaultMemError, OSError, ValueError):
        return False
    return bool(changes) and all(status == "D" for status, _, _path in changes)


def pre_commit(stdin_text: str, vault_path: str | None, extra: list[str]) -> HookOutput:
    """Refuse broken memory files; regenerate and stage INDEX.md."""
    from vault_mem.model.indexmd import INDEX_FILE  # lazy: the Claude Code hooks' start-up time
    from vault_mem.store import worktree
    from vault_mem.vault.steps import failed_writes

    from vault_mem.store.workspace import committed_link

    linked = committed_link(Path(vault_path)) if vault_path else None
    if linked:  # git stages nothing beyond a link: the commit holds nothing of a vault to check
        return 0, "", f"vault-mem pre-commit: no vault checked: {linked}\n"
    try:
        vault = _open_vault(vault_path)
    except NotAVaultError as exc:
        return 1, "", f"vault-mem pre-commit: {exc}\n(the hook was installed for a vault; reinstall or delete it)\n"
    except UnsafeTreeError as exc:
        # HEAD holds an entry vault-mem takes from no commit (a teammate's), and every command
        # says to take it out with git: the commit that does must pass. One that only deletes
        # writes nothing to check; it was refused, so the fix took `--no-verify`
        if vault_path and _only_deletions(Path(vault_path)):
            return 0, "", f"vault-mem pre-commit: this commit only takes files out; HEAD's: {exc}\n"
        raise
    try:
        changes = worktree.staged_changes(vault.repo, vault.prefix or ".")
        if not changes:
            return 0, "", ""  # nothing of the vault in this commit (a project's own files)
        # a merge under way (a `git pull` stopped at a conflict, `git merge --no-commit`) stages
        # every file the merged commits changed: those are already in history, another's work,
        # and the sidecar quarantines or skips them as it would after a sync. The gate is for what
        # this commit writes (a conflict's resolution, the person's own edits), so a peer's broken
        # or credential-holding file cannot refuse the person's merge for ever.
        # vault-mem's derived state (index.db holds every memory's text) is never committed,
        # whatever an ignore file says: a teammate's commit deleting memory/.gitignore made the
        # person's next `git add -A && git commit` publish it (and every clone then refused the
        # vault: a committed state folder is a hostile tree)
        state = sorted({p for status, _, p in changes if status != "D" and any(
            is_state_dir_name(part) for part in p[len(vault.prefix):].split("/")[:-1])})
        if state:
            shown_state = ", ".join(shown(p) for p in state[:5]) + (f" and {len(state) - 5} more" if len(state) > 5 else "")
            top = shell_word(f"{vault.prefix}{STATE_DIR}") if vault.prefix else STATE_DIR
            return 1, "", (f"vault-mem: commit refused: {shown_state} {'is' if len(state) == 1 else 'are'} vault-mem's "
                           f"own state (the search index holds every memory's text), never committed; take "
                           f"{'it' if len(state) == 1 else 'them'} out with `git rm -r -q --cached {top}` and "
                           f"commit again (an ignore file that stopped ignoring {STATE_DIR}/ is named by "
                           "`git log -p -- '*.gitignore'`)\n")
        staged = {path for _, _, path in changes}
        theirs: set[str] = set()
        for head in vault.repo.merge_heads():
            theirs |= staged - worktree.staged_differs_from(vault.repo, vault.prefix or ".", head)
        memory_changes = [c for c in changes if c[2][len(vault.prefix):] != INDEX_FILE and c[2] not in theirs]
        problems = []
        # one listing of the type folders' staged files: the keys in use, and the blob of each
        # memory file to check, read in one batch (not a git process a file: a merge or an
        # import stages thousands)
        listed, ids = worktree.staged_listing(vault.repo, [f"{vault.prefix}{f}" for f in FOLDER_TYPES])
        keys = _staged_keys(vault, listed)
        failed = set(failed_writes(vault.ws))
        checked = [(mode, path) for status, mode, path in memory_changes
                   if status != "D" and _is_memory_file(path[len(vault.prefix):])]
        contents = worktree.read_staged(vault.repo, {p: ids[p] for m, p in checked if m != "120000" and p in ids})
        for mode, path in checked:
            rel = path[len(vault.prefix):]
            data = (contents[path] if path in contents else worktree.staged_blob(vault.repo, path)) \
                if mode != "120000" else b""
            reason = check_staged_file(vault, rel, mode, data)
            others = [p for p in keys.get(rel.rsplit("/", 1)[-1][:-3], []) if p != path]
            if not reason and others:
                reason = (f"its key is also used by {', '.join(others)}; a key is unique across the vault, "
                          "so rename or remove one of them")
            if not reason and failed and vault.repo.blob_id(data) in failed:
                # a failed write's bytes that a stash pop or an autostash brought back: the daemon
                # puts them back on its next round (recovery.put_back_failed); until then, a
                # `git commit -a` would land a write whose caller was told it never happened
                reason = (f"it holds the text of an agent write that vault-mem reported as not written (brought "
                          f"back by a git stash pop or an autostash?); put the committed version back with "
                          f"`git checkout HEAD -- {shell_word(path)}`, or edit it and add it again")
            if reason:
                problems.append(f"  {quoted(path)}: {reason}")
        if problems:
            return 1, "", ("vault-mem: commit refused, these memory files cannot be committed as they are:\n" + "\n".join(problems)
                           + "\nFix them and `git add` them again (or commit with --no-verify to skip this check).\n")
        _stage_index(vault, {p: contents[p] for p in contents})
        return 0, "", ""
    except VaultMemError as exc:
        return 1, "", f"vault-mem pre-commit: {exc}\n"
    finally:
        vault.close()


def _is_memory_file(rel: str) -> bool:
    """Whether the vault-relative ``rel`` is a memory file the gate checks: in a type folder, a
    ``.md`` file, not hidden or an editor's (the sidecar ignores those too)."""
    return ("/" in rel and rel.split("/", 1)[0] in FOLDER_TYPES and rel.endswith(".md")
            and not rel.rsplit("/", 1)[-1].startswith((".", "#", "~")))


def _staged_keys(vault: Vault, listed: list[str]) -> dict[str, list[str]]:
    """key -> staged paths of memory files with that key, of ``listed`` (every staged file of
    the type folders, :func:`~vault_mem.store.worktree.staged_listing`)."""
    keys: dict[str, list[str]] = {}
    for path in listed:
        rel = path[len(vault.prefix):]
        if rel.endswith(".md") and rel.count("/") == 1:
            keys.setdefault(rel.rsplit("/", 1)[-1][:-3], []).append(path)
    return keys


def _stage_index(vault: Vault, read: dict[str, bytes] | None = None) -> None:
    """Regenerate INDEX.md and put it in the commit being made, without waiting on agents.

    git holds index.lock while this hook runs, and an agent write holds the vault's write lock
    while it waits for index.lock: so this never waits for the write lock (the lock order is
    the vault's write lock, then index.lock). The commit's INDEX.md is generated from the staged
    files (the sidecar's view of the work tree, with each file ``git status`` reports swapped for
    its staged version, read-only) and staged; INDEX.md on disk is rewritten from the files on
    disk only when the write lock is free right now (else the agent holding it does that).

    Known limit: after ``git commit PATH`` with other changes staged, git's real index keeps its
    older INDEX.md (a hook can only change the temporary index git commits from); the next commit
    or agent write brings it back in line.

    ``read``: staged versions the gate already read (top path -> bytes), not read again (one
    ``git ls-files`` and one ``git cat-file`` process fewer per commit)."""
    from vault_mem.model.indexmd import INDEX_FILE  # lazy: the Claude Code hooks' start-up time
    from vault_mem.store import worktree
    from vault_mem.vault.steps import changed_memory_paths, index_of

    repo = vault.repo
    if vault.lock.acquire(blocking=False):
        try:
            vault.regenerate_index(recover=False)
        finally:
            vault.lock.release()

    # the files git status reports, their staged versions read in one batch (index_of asks for each)
    changed = changed_memory_paths(vault.ws)
    tops = [vault.ws.top(rel) for rel in changed]
    read = read or {}
    unread = [top for top in tops if top not in read]
    batch = {**(worktree.staged_blobs(repo, unread) if unread else {}), **{t: read[t] for t in tops if t in read}}
    asked = set(tops)

    def staged(top: str) -> bytes | None:
        if top in batch:
            return batch[top]
        if top in asked:
            return None  # not staged: not in the commit
        try:
            return worktree.staged_blob(repo, top)
        except VaultMemError:
            return None
    worktree.stage_bytes(repo, f"{vault.prefix}{INDEX_FILE}",
                         index_of(vault.ws, vault.sidecar, staged, changed=lambda: changed))


def _refresh(name: str) -> Callable[..., HookOutput]:
    def run(stdin_text: str, vault_path: str | None, extra: list[str]) -> HookOutput:
        try:
            vault = _open_vault(vault_path)
        except NotAVaultError as exc:
            return 0, "", f"vault-mem {name}: {exc}\n"
        _replace_older_driver(vault)
        vault.lock.timeout = REFRESH_LOCK_WAIT_S  # never hold up a person's git command for long
        vault.repo.in_post_hook = True  # its git command is done, and waits for this hook
        # before the reconcile, whose authors would be the merged HEAD's
        displaced = _displaced_by_merge(vault, name, extra) if name in ("post-merge", "post-checkout") else ""
        opened = len(vault.notices)  # the opening's notices: the lines above say this hook's part of them
        try:
            # skipped while a daemon runs (it commits INDEX.md at once itself); INDEX.md compared
            # even when the sidecar is in line: after a checkout it must match the files (or the
            # next refuses); no interrupted agent write finished from a git hook
            if vault.reconcile(recover=False, whole_index=True) is None:
                # a daemon runs (it brings INDEX.md up to date), or the read was given up (another
                # process held the index's write lock past the busy timeout): said, never silent.
                # Only what the reconcile noted: the opening's notices (a peer's file the pull
                # took, named with vault-mem's marks) were said here as INDEX.md's reason, marks
                # and all, whenever a daemon ran (inj32 review)
                return 0, "", displaced + "".join(
                    f"vault-mem {name}: INDEX.md may still list what was checked out before ({note}); "
                    "`vault-mem index --write` brings it up to date\n" for note in vault.notices[opened:])
            note = _commit_persons_index(vault, name)
        except LockTimeoutError:
            return 0, "", displaced + f"vault-mem {name}: agents are writing; they bring INDEX.md up to date\n"
        except VaultMemError as exc:
            return 0, "", displaced + f"vault-mem {name}: could not update the search index: {exc}\n"
        finally:
            vault.close()
        return 0, "", displaced + note
    return run


def _replace_older_driver(vault: Vault) -> None:
    """An earlier vault-mem's INDEX.md merge driver (which kept a side of any file named INDEX.md)
    rewritten as this version writes it: checked where git operations that merge happen (a
    checkout, a pull, a rebase), not on every opening of the vault."""
    from vault_mem.store.attributes import replace_older_driver

    try:
        replace_older_driver(vault.repo, vault.prefix)
    except (OSError, VaultMemError):
        pass  # a read-only git folder: `vault-mem hooks install` says what fails


#: a commit id as git passes one to post-checkout (SHA-1 or SHA-256)
_HEX_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _displaced_by_merge(vault: Vault, name: str, extra: list[str]) -> str:
    """The lines naming the memories of this machine's that the commits a merge brought in (a
    plain ``git pull``: HEAD moved on from ``ORIG_HEAD``) deleted or changed, by authors not
    approved here: what a sync names (:func:`~vault_mem.vault.authors.displaced_by_peers`), so a
    teammate's deletion never passes unsaid because it came by git ("" when there is none).

    A rebase (``git pull --rebase``, ``git rebase origin/main``) runs no post-merge: git runs
    post-checkout as it checks out the commits it replays onto (``extra``: the HEAD before, the
    one checked out), its state folder present, then post-rewrite. That post-checkout names what
    the commits checked out since the fork point deleted or changed of the person's (trust23: a
    rebase pull took a teammate's deletion unsaid); any other checkout (a branch switched to,
    which holds other memories by the person's choice) says nothing of the kind, and
    post-rewrite nothing again."""
    from vault_mem.store.history import merge_base, resolve_commit
    from vault_mem.sync.report import displaced_line
    from vault_mem.vault.authors import displaced_by_peers

    try:
        if name == "post-checkout":
            if len(extra) < 2 or not all(_HEX_ID.fullmatch(c) for c in extra[:2]) \
                    or vault.repo.operation_in_progress() != "rebase":
                return ""
            before, head = resolve_commit(vault.repo, extra[0]), resolve_commit(vault.repo, extra[1])
            if before is None or head is None or before == head:
                return ""
            base = merge_base(vault.repo, before, head)
            if not base or base == head:
                return ""  # onto a commit of the person's own line (`git rebase -i`): nothing came in
        else:
            before, head = resolve_commit(vault.repo, "ORIG_HEAD"), vault.repo.head()
            if before is None or head is None or before == head:
                return ""  # a squash merge (HEAD unmoved), or no record of where HEAD was
            base = before
        found = displaced_by_peers(vault.ws, vault.sidecar, base, before, head)
    except VaultMemError as exc:  # a warning's check: it never fails the person's git command
        return f"vault-mem {name}: could not check which of your memories the merged commits delete or change ({exc})\n"
    return "".join(f"vault-mem {name}: {displaced_line(d, vault.ws.top(d['path']))}\n" for d in found) + \
        _unapproved_by_merge(vault, name, before, head)


def _unapproved_by_merge(vault: Vault, name: str, before: str, head: str) -> str:
    """The lines naming each file that takes approval (an agent's settings or hooks, an
    instruction file, a ``.gitattributes``: ``store/gitfiles.needs_approval``) that the commits a
    plain ``git pull`` brought in (``before``..``head``, the range :func:`_displaced_by_merge`
    worked out) changed to a version not approved here. A sync stops on such a file until the
    person approves it; a plain pull took it unsaid, and the next agent session in the vault ran
    the peer's hook and read the peer's instructions unmarked (atk28). ("" when there is none.)"""
    from vault_mem.store.gitfiles import is_git_file, unapproved_git_files
    from vault_mem.sync.report import unapproved_line

    try:
        found = unapproved_git_files(vault.root, vault.repo, vault.prefix, before, head)
    except VaultMemError as exc:
        return f"vault-mem {name}: could not check which files the merged commits brought need approval ({exc})\n"
    # said here once, at the pull; every later command and session names them while HEAD holds
    # them unapproved (store/gitfiles.held_record: the rule needs no record of the hook's)
    lines = [f"vault-mem {name}: {unapproved_line(vault.ws.top(f.path), _change(f.ours, f.theirs), before, is_git_file(f.path))}\n"
             for f in found[:UNAPPROVED_NAMED]]
    if len(found) > UNAPPROVED_NAMED:  # as a sync names them: a peer's 19,000 files are no 19,000 lines
        lines.append(f"vault-mem {name}: and {len(found) - UNAPPROVED_NAMED} more such files: "
                     f"`git diff --stat {before[:10]} HEAD` lists them\n")
    return "".join(lines)


#: how many files :func:`_unapproved_by_merge` names one by one
UNAPPROVED_NAMED = 5


def _change(ours: str | None, theirs: str | None) -> str:
    return "added" if ours is None else "deleted" if theirs is None else "changed"


def _commit_persons_index(vault: Vault, name: str) -> str:
    """INDEX.md committed alone in the person's name, right in the hook, when the commits the
    person's git command brought in (a peer's hookless commit a pull fast-forwarded to, a
    branch checked out) left the committed one stale: the one rule,
    :func:`~vault_mem.vault.person.commit_persons_index`, which says no while git's own
    operation is still under way (a merge commit's post-merge still sees ``MERGE_HEAD``, a
    rebase's post-rewrite its state folder: INDEX.md is then held back as HEAD's and the next
    command commits it) or HEAD is detached. Written on disk and left uncommitted, it stood
    modified until the next agent write, and git refused the person's `git revert` or `git
    checkout` over it. What to say on stderr ("" when nothing was committed)."""
    from vault_mem.errors import IdentityError
    from vault_mem.vault.person import commit_persons_index

    try:
        with vault.lock:
            commit = commit_persons_index(vault.ws, vault.sidecar)
    except IdentityError as exc:
        return f"vault-mem {name}: INDEX.md is left uncommitted: {exc}\n"
    if not commit:
        return ""
    return (f"vault-mem {name}: committed INDEX.md alone in your name ({commit[:10]}): the commits this brought "
            "in changed memory files without vault-mem's hook\n")


def _stop_hook(stdin_text: str, vault_path: str | None, extra: list[str]) -> HookOutput:
    from vault_mem.adapters.distill import stop_hook

    return stop_hook(stdin_text, vault_path, extra)


#: a handler per name of :data:`HOOK_NAMES` (the one list), no other (tests/test_hooks.py checks)
_HANDLERS: dict[str, Callable[[str, str | None, list[str]], HookOutput]] = {
    **{name: _claude_hook(name) for name in CLAUDE_HOOKS},
    STOP_HOOK: _stop_hook,
    "pre-commit": pre_commit,
    **{name: _refresh(name) for name in ("post-merge", "post-checkout", "post-rewrite")},
}
