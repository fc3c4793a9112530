"""The remote branch a vault syncs with, as the last fetch left it: whether its history is still
this vault's (issue 23, trust24).

A peer with push rights can replace the remote's branch with a history of its own (``git push
--force`` of another line): every clone's sync then stops, since integrating it would take the
peer's tree for the vault's. What the person is told, wherever they look (``vault-mem sync``, the
daemon's log, ``vault-mem doctor``), is one text (:func:`replaced_history`) naming the one command
that puts this vault's history back. Read from the refs a fetch wrote, never from the network.

Nor does a clone take the remote's choice of branch unsaid (atk24). A new ``git clone`` checks
out the branch the remote's HEAD names: on a bare remote made by a plain ``git init --bare`` that
is ``master`` (git's default), a branch the vault, on ``main``, never pushed. The clone then
holds no commit, and ``vault-mem init`` made a second, empty vault there, which its first sync
published as ``master``: every later clone got it, with the person's memories on ``main`` unseen
and nothing said; a peer who pushes ``master`` first chooses what every new clone syncs the same
way. Which branch is the vault's is the person's to say (a fresh clone knows nothing more than the
remote tells it): :func:`unborn_clone` and :func:`other_lines` name the remote's branches that
hold the vault, other than the one sync takes, from the refs the clone or the last fetch wrote
(:func:`vault_branches`); the sync that publishes the branch names a remote HEAD that is not it
(:func:`remote_head_notice`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from vault_mem.config import CONFIG_FILE, DEFAULT_REMOTE
from vault_mem.errors import VaultMemError
from vault_mem.model.names import quoted, shell_word
from vault_mem.store.files import PRIVATE_FILE, read_own, replace_file
from vault_mem.store.git import GitRepo
from vault_mem.store.history import current_branch, merge_base, resolve_commit
from vault_mem.store.worktree import config_values

__all__ = ["STOPPED", "OtherLines", "note_stopped", "other_lines", "remote_head_notice", "replaced_history",
           "replaced_upstream", "stopped_notice", "synced_branch", "unborn_clone", "vault_branches"]


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
    synced = _synced_ref(repo, branch, remote)
    rbranch = synced[len(f"refs/remotes/{remote}/"):]
    tip = resolve_commit(repo, synced)
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


#: the most remote branches one notice names (a peer can push thousands)
NAMED_BRANCHES = 5


def vault_branches(repo: GitRepo, prefix: str, synced: str | None = None, remote: str | None = None) -> list[str]:
    """The remote-tracking branches (``origin/main``) of ``remote`` (None: of every remote), as
    the clone or the last fetch left them, whose tip holds the vault (a ``vault.toml`` at
    ``prefix``), but for ``synced`` (a full ref name: the branch sync takes). One ``git
    for-each-ref`` and, when it lists any, one ``git cat-file --batch-check``, whatever the
    number of branches."""
    where = f"refs/remotes/{remote}/" if remote else "refs/remotes/"
    proc = repo.run("for-each-ref", "--format=%(refname)%00%(symref)", where, check=False)
    if proc.returncode != 0:
        return []
    refs = [name for name, _, link in (line.partition("\0") for line in
                                        proc.stdout.decode("utf-8", "surrogateescape").splitlines())
            if name and not link and name != synced]  # origin/HEAD names one of them
    if not refs:
        return []
    # a ref name holds no ':', space or control character (git check-ref-format)
    kinds = repo.run("cat-file", "--batch-check=%(objecttype)",
                     input="".join(f"{ref}:{prefix}{CONFIG_FILE}\n" for ref in refs).encode("utf-8", "surrogateescape"),
                     check=False)
    answers = kinds.stdout.decode("utf-8", "replace").splitlines() if kinds.returncode == 0 else []
    return [ref.removeprefix("refs/remotes/") for ref, kind in zip(refs, answers) if kind == "blob"]


def synced_branch(branch: str, remote: str, merge: str, up: str) -> str:
    """The branch of ``remote`` that sync takes for the local ``branch`` whose upstream git config
    holds ``merge`` (``branch.B.merge``) and ``up`` (``branch.B.remote``): that upstream when it is
    on ``remote``, else the branch of the same name. The one home of that rule (sync, doctor,
    init and the check of incoming git files ask it); sync lands it at
    ``refs/remotes/REMOTE/BRANCH``."""
    return merge[len("refs/heads/"):] if merge.startswith("refs/heads/") and up == remote else branch


def _synced_ref(repo: GitRepo, branch: str, remote: str) -> str:
    """The remote-tracking ref of :func:`synced_branch` for ``branch`` from ``remote`` (one git
    process)."""
    found = config_values(repo, f"branch.{branch}.merge", f"branch.{branch}.remote")
    return f"refs/remotes/{remote}/{synced_branch(branch, remote, *found.values())}"


def _listed(branches: list[str]) -> str:
    shown_ = ", ".join(quoted(b) for b in branches[:NAMED_BRANCHES])
    return shown_ + (f" and {len(branches) - NAMED_BRANCHES} more" if len(branches) > NAMED_BRANCHES else "")


def _checkout(branch: str) -> str:
    """The command that checks out a branch following ``branch`` (``origin/main``), made by git
    when there is none yet. The remote's name stands first in the word: a branch is anyone's to
    name, and a peer's ``-f`` made a bare ``git checkout -f``, which discards the person's
    uncommitted edits."""
    return f"git checkout --track {shell_word(branch)}"


def unborn_clone(repo: GitRepo, prefix: str) -> str | None:
    """Why ``vault-mem init`` makes no new vault at ``prefix`` of ``repo``, or None: a branch of
    the remote holds the vault while nothing is checked out (a clone of a remote whose HEAD names
    a branch it does not have), or, in a repository of its own (``prefix`` ""), while the branch
    checked out holds none (a peer's ``master`` of another tree, which that HEAD named). A new
    vault there, published by its first sync under the remote's HEAD, is what every later clone
    gets instead of the person's. A project's other branches are its work: not asked there once
    a commit is checked out."""
    head = repo.head()
    if head is not None and prefix:
        return None
    found = vault_branches(repo, prefix)
    if not found:
        return None
    where = f"{quoted(prefix.rstrip('/'))} of " if prefix else ""
    # what is checked: nothing checked out, or a branch without the vault; not why (the remote's
    # HEAD is the usual cause: a clone checks out what it names), which git does not record
    here = ("has no commit checked out (as a clone is left when the remote's HEAD names a branch the remote does "
            "not have)" if head is None
            else f"has checked out {quoted(current_branch(repo) or 'HEAD')}, which holds no vault (a clone checks "
            "out the branch the remote's HEAD names, whatever it holds)")
    return (f"{repo.toplevel} {here}, but the remote's {'branch' if len(found) == 1 else 'branches'} "
            f"{_listed(found)} {'holds' if len(found) == 1 else 'hold'} {where}this vault: check out the vault's "
            f"branch (`{_checkout(found[0])}`{', or another of them' if len(found) > 1 else ''}), then run "
            "`vault-mem init` again; nothing was created. So that new clones check out that branch, make it the "
            "remote's HEAD (on a bare repository `git symbolic-ref HEAD refs/heads/BRANCH` there; on a hosting "
            "service its default branch)")


class OtherLines(NamedTuple):
    """:func:`other_lines`' answer: the branches (``origin/master``) and what to say of them."""

    branches: list[str]
    text: str


def other_lines(repo: GitRepo, prefix: str, remote: str = DEFAULT_REMOTE) -> OtherLines | None:
    """What to say of the remote's branches other than the one sync takes that hold this vault
    (a vault of its own repository: ``prefix`` ""), or None. A clone checks out the branch the
    remote's HEAD names, anyone's push: a peer's ``master`` on a remote whose HEAD names it,
    while the person's machines sync ``main``, made the new clone sync the peer's line, its
    writes never reaching the person's other machines and theirs never arriving, unsaid. Which
    line is the vault's is the person's to say: both are named, with how to look. A project's
    vault (``prefix`` set) is left out: its repository's other branches are the project's work.
    Read from the refs the clone or the last fetch left, never from the network: sync fetches
    the vault's branch alone and prunes nothing, so a branch deleted on the remote stays named
    until a ``git fetch --prune REMOTE``, which the text names (review of atk24)."""
    branch = current_branch(repo)
    if prefix or branch is None or repo.head() is None:
        return None
    synced = _synced_ref(repo, branch, remote)
    found = vault_branches(repo, prefix, synced, remote)  # another remote is the person's own choice
    if not found:
        return None
    one, ours = found[0], synced.removeprefix("refs/remotes/")
    return OtherLines(found, f"the remote's {'branch' if len(found) == 1 else 'branches'} {_listed(found)} "
            f"{'holds' if len(found) == 1 else 'hold'} this vault too, while this clone syncs {quoted(ours)} "
            f"alone (the branch checked out here, {quoted(branch)}): what is written on "
            f"{'that branch' if len(found) == 1 else 'those'} never arrives here, nor this clone's writes there. "
            f"Look at both (`git log --oneline --left-right {shell_word(branch)}...{shell_word(one)}`) and keep "
            f"working on the vault's branch (`{_checkout(one)}` if it is that one and not here yet; then "
            "`vault-mem sync`); a new "
            "clone checks out the branch the remote's HEAD names, which anyone who can push may have chosen. "
            f"Named from this clone's last fetch, so this may be stale: once {'it is' if len(found) == 1 else 'they are'} "
            f"deleted on the remote, run `git fetch --prune {shell_word(remote)}` to forget "
            f"{'it' if len(found) == 1 else 'them'} here (sync fetches the vault's branch alone)")


def remote_head_notice(repo: GitRepo, name: str, url: str, branch: str, timeout_s: float) -> str | None:
    """What to say when the remote's HEAD, which every new ``git clone`` checks out, names no
    branch the remote has or another than ``branch``, the vault's, which a sync has just
    published there; None when it names ``branch`` (or git cannot say). One ``git ls-remote``,
    run by the sync that creates the branch on the remote, once: a plain ``git init --bare``
    names ``master``, and the vault's ``main`` pushed beside it left every new clone with nothing
    checked out, or with whatever someone pushes as ``master`` first."""
    # lazy: init and every write import this module, and the network one brings `socket` and more
    from vault_mem.store.network import run_remote, upload_pack_args

    try:
        proc = run_remote(repo, timeout_s, "ls-remote", "--symref", *upload_pack_args(repo.toplevel, url), name, "HEAD")
    except VaultMemError:
        return None
    if proc.returncode != 0:
        return None
    names = [line[len("ref: "):].split("\t")[0] for line in proc.stdout.splitlines() if line.startswith("ref: ")]
    if names == [f"refs/heads/{branch}"]:
        return None
    if names:
        other = quoted(names[0].removeprefix("refs/heads/"))
        said = (f"names {other}, not {quoted(branch)}: a new `git clone` checks out {other}, not this vault's "
                "branch, and whoever can push there chooses what it holds")
    else:
        said = ("names no branch the remote has: a new `git clone` checks out nothing, and whoever first pushes "
                "the branch it names chooses what every new clone holds")
    return (f"the HEAD of the remote {quoted(name)} {said}. Make {quoted(branch)} the remote's HEAD: "
            f"on a bare repository, `git symbolic-ref HEAD refs/heads/{shell_word(branch)}` there; on a hosting "
            "service, its default branch")
