"""Creating a vault: copy template_vault/, ``git init`` when needed, install the git hooks and
make the first commit (:meth:`vault_mem.Vault.init`).

Kept apart from core.py, which holds what an open vault does; this runs once per vault.
"""

from __future__ import annotations

import os
from pathlib import Path

from vault_mem.config import CONFIG_FILE
from vault_mem.errors import GitError, LinkError, UsageError
from vault_mem.index.sidecar import Sidecar
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import EDITOR_FILES_HEADING, missing_editor_patterns
from vault_mem.store.attributes import protect
from vault_mem.store.files import atomic_write, current_bytes, refuse_link
from vault_mem.store.git import GitRepo, refuse_control_characters
from vault_mem.store.hooks import install, unsafe_hooks_notice
from vault_mem.store.template import template_files
from vault_mem.store.upstream import unborn_clone
from vault_mem.store.workspace import Workspace, committed_link, init_repository


def create_files(path: str | Path) -> tuple[Path, list[Path]]:
    """Make ``path`` a vault on disk: ``git init`` unless it is inside a repository already, then
    the template's files (none that exists is overwritten). Returns the root and the files made."""
    refuse_control_characters(Path(path).expanduser())  # before anything is made
    linked = committed_link(Path(path).expanduser())
    if linked:  # a teammate's `memory -> ..` would have had init make a repository where they chose
        raise LinkError(linked)
    root = Path(path).expanduser().resolve()
    refuse_control_characters(root)  # reached through a link
    if (root / CONFIG_FILE).exists():
        raise UsageError(f"{root} is already a vault ({CONFIG_FILE} exists)")
    # mkdir says only "[Errno 17] File exists" of a file on the way, which a person reads as a retry
    for folder in (root, *root.parents):
        if folder.exists() and not folder.is_dir():
            raise UsageError(f"{folder} is a file, not a folder: give `vault-mem init` a folder for the vault "
                             "(it is made when missing)")
    refuse_link(root / CONFIG_FILE)  # a dangling one: the template was copied through it, outside the vault
    root.mkdir(parents=True, exist_ok=True)
    try:
        repo = GitRepo(root)
    except GitError:
        init_repository(root)
    else:  # a clone that checked out nothing while the remote holds the vault: no second vault
        top = repo.toplevel.resolve()
        prefix = root.relative_to(top).as_posix() + "/" if root != top and root.is_relative_to(top) else ""
        refused = unborn_clone(repo, prefix)
        repo.close()
        if refused:
            raise UsageError(refused)
    import shutil  # lazy: only init copies files (start-up time of every write, issue 29)

    created: list[Path] = []
    for src, rel in template_files():
        dest = root / rel
        # a link, even dangling, on the way or at the name is left as it is: its target is not the vault's
        if any(os.path.islink(p) for p in (*dest.parents, dest) if p.is_relative_to(root) and p != root):
            continue
        if src.is_dir():
            dest.mkdir(exist_ok=True)
        elif not os.path.exists(dest):
            shutil.copyfile(src, dest)
            created.append(dest)
    return root, created


def first_commit(ws: Workspace, sidecar: Sidecar, created: list[Path]) -> list[str]:
    """Index the new vault, write INDEX.md, commit exactly the created files (in a folder inside
    an existing repository only that folder's files), install the git hooks; returns notices."""
    protect(ws.repo, ws.prefix)
    # the record of commits made here starts now, empty: no commit before this one wrote a memory
    ws.repo.local_commits(list)
    with ws.lock:
        sidecar.reconcile()
        index_bytes = sidecar.render_index(budget_tokens=ws.config.index_budget_tokens).encode()
        atomic_write(ws.root / INDEX_FILE, index_bytes)
        files = {ws.top(p.relative_to(ws.root).as_posix()): p.read_bytes() for p in created}
        files[ws.top(INDEX_FILE)] = index_bytes
        msg = "init: vault-mem vault\n\nCreated by `vault-mem init`."
        author = ws.identity()
        ws.policy.check_message(msg, identity=(author.name, author.email))  # `init --agent` chose it
        commit = ws.repo.commit_paths(files, msg, author=author)
        sidecar.set_meta("head", commit or "")
    return install(ws)


def install_hooks(ws: Workspace) -> list[str]:
    """The git hooks, the INDEX.md merge driver and the vault's attributes of an existing vault (a
    clone has none of them). A notice about the hooks said when the vault was opened is dropped:
    it said what this repairs."""
    protect(ws.repo, ws.prefix)
    said = unsafe_hooks_notice(ws.repo.hooks_dir, ws.root, ws.repo.common_dir, ws.repo.toplevel)
    notes = install(ws)
    if said in ws.notices:
        ws.notices.remove(said)
    return notes


GITIGNORE = ".gitignore"


def ensure_gitignore(root: Path) -> list[str]:
    """Add to an existing vault's .gitignore the editor-file patterns it lacks (a vault made
    before they were in the template); returns the lines added (none: nothing changed). Only
    appends: a person's own lines stay as they are. Not committed: the person reviews it."""
    path = Path(root) / GITIGNORE
    data = current_bytes(path)  # never through a link
    text = data.decode("utf-8", "replace") if data is not None else ""
    missing = missing_editor_patterns(text)
    if not missing:
        return []
    block = ("" if not text or text.endswith("\n") else "\n") + ("\n" if text.strip() else "")
    heading = [EDITOR_FILES_HEADING] if EDITOR_FILES_HEADING not in text else []
    atomic_write(path, (text + block + "\n".join([*heading, *missing]) + "\n").encode("utf-8"))
    return missing
