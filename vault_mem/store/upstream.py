"""The remote branch a vault syncs with, as the last fetch left it: whether its history is still
this vault's (issue 23, trust24).

A peer with push rights can replace the remote's branch with a history of its own (``git push
--force`` of another line): every clone's sync then stops, since integrating it would take the
peer's tree for the vault's. What the person is told, wherever they look (``vault-mem sync``, the
daemon's log, ``vault-mem doctor``), is one text (:func:`replaced_history`) naming the one command
that puts this vault's history back. Read from the refs a fetch wrote, never from the network.
"""

from __future__ import annotations

import os
from pathlib import Path

from vault_mem.errors import VaultMemError
from vault_mem.store.files import PRIVATE_FILE, read_own, replace_file
from vault_mem.store.git import GitRepo
from vault_mem.store.history import current_branch, merge_base, resolve_commit
from vault_mem.store.worktree import config_values

__all__ = ["STOPPED", "note_stopped", "replaced_history", "replaced_upstream", "stopped_notice"]


def replaced_history(remote: str, branch: str, tip: str, root: Path) -> str:
    """What to say of ``remote``/``branch`` whose tip ``tip`` shares no history with this vault
    (at ``root``): never "clone it instead" (a clone holds none of this vault's memories; a peer's
    force-push made that advice lose the person's work), and the command that pushes this vault's
    history back over exactly the tip seen (``--force-with-lease``: nothing newer is overwritten)."""
    return (f"'{remote}/{branch}' shares no history with this vault: its history was replaced (a force-push) "
            f"or it is another vault's; nothing changed here and every memory stays, but sync stops in every "
            f"clone until it is put back. Look with `git log {remote}/{branch}`. To put this vault's history "
            f"back: `git push --force-with-lease={branch}:{tip} {remote} HEAD:{branch}`; to bring these "
            f"memories into the other vault instead: clone it elsewhere, then `vault-mem --vault CLONE "
            f"import {root}`")


def replaced_upstream(repo: GitRepo, remote: str, root: Path) -> str | None:
    """:func:`replaced_history`'s text when the branch this vault syncs with on ``remote`` (the
    current branch's upstream there, else the branch of the same name), as the last fetch left
    it, shares no history with HEAD; None otherwise (no such fetched branch, HEAD detached or
    unborn). Three small git processes (``vault-mem doctor``)."""
    branch = current_branch(repo)
    head = repo.head()
    if branch is None or head is None:
        return None
    found = config_values(repo, f"branch.{branch}.merge", f"branch.{branch}.remote")
    merge, up = found[f"branch.{branch}.merge"], found[f"branch.{branch}.remote"]
    rbranch = merge[len("refs/heads/"):] if merge.startswith("refs/heads/") and up == remote else branch
    tip = resolve_commit(repo, f"refs/remotes/{remote}/{rbranch}")
    if tip is None or tip == head or merge_base(repo, head, tip):
        return None
    return replaced_history(remote, rbranch, tip, root)


#: the file in ``.vault-mem/`` a sync that met a replaced history leaves, until a sync succeeds
STOPPED = "sync-stopped"


def note_stopped(state_dir: Path, remote: str | None, branch: str = "") -> None:
    """Keep (``remote``/``branch``) or drop (None: a sync worked) the mark that sync stopped on a
    replaced history, which every command then names (:func:`stopped_notice`): a daemon syncing
    in the background says it only in its log, so the person, and the agent they work with,
    heard nothing while nothing written here reached any other clone."""
    path = state_dir / STOPPED
    if remote is None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        return
    replace_file(path, f"{remote}/{branch}".encode(), mode=PRIVATE_FILE)


def stopped_notice(state_dir: Path) -> str | None:
    """What every command says while :func:`note_stopped`'s mark is there (one failed open when
    it is not). It names no command that rewrites the remote: an agent reads it too, and putting
    the history back is the person's choice, which `vault-mem doctor` and `vault-mem sync` state."""
    try:
        data = read_own(state_dir / STOPPED, max_bytes=4096)
    except (OSError, VaultMemError):
        return None
    if not data:
        return None
    where = data.decode("utf-8", "replace").strip()
    return (f"sync has stopped: '{where}' shares no history with this vault (a force-push replaced it, or "
            "it is another vault's); nothing here is lost, but nothing written here reaches any other clone "
            "until the person puts it back: `vault-mem doctor` names the one command")
