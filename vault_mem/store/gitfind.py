"""Where a repository is, as git's own discovery says it (``git rev-parse``: ceiling directories,
``safe.directory``, ``GIT_DIR``, worktrees, ``core.hooksPath``), kept for the opens one process
makes of the same folder in a row.

An in-process command, a test, the MCP server and its keeper each open a vault several times
within moments (the MCP server twice at its start); each open asked git again (issue 28: the
suite's most started git command). An answer is reused only while nothing discovery reads can
have changed: within :data:`REUSE_S`, the same folder and ``GIT_*``/``HOME``/``XDG_CONFIG_HOME``
variables, no ``.git`` come or gone in a folder from the asked one up to the top folder, the
top folder's ``.git`` the same (a folder of the same inode, a link file unchanged), the git
folders still there, and git's config files (``core.hooksPath``, ``safe.directory``) unchanged,
each stamped before git is asked (:func:`_before`), so a change made while git answers is never
stamped as seen. Anything else is asked of git; nothing is kept across processes.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from vault_mem.platform import settle  # the stamps; a config file stamped after git answered, changed since

#: how long an answer of git's discovery is reused in one process (the opens of one command)
REUSE_S = 2.0
#: the folders whose answers are kept at once
_KEPT = 64
_found: OrderedDict[tuple, tuple[float, tuple, list[str]]] = OrderedDict()
_lock = threading.Lock()


def discovered(cwd: Path, ask: Callable[[], list[str]]) -> list[str]:
    """The lines of ``git rev-parse --show-toplevel --git-dir --git-common-dir --git-path hooks
    --git-path info/attributes`` run in ``cwd`` (``ask`` runs it; its failure is raised, never
    kept), reused as the module says."""
    key = (os.path.abspath(cwd), tuple(sorted((k, v) for k, v in os.environ.items()
                                              if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME"))))
    now = time.monotonic()
    with _lock:
        kept = _found.get(key)
    if kept is not None and now - kept[0] < REUSE_S and _stamps(key[0], kept[2]) == kept[1]:
        return kept[2]
    # stamped before git is asked: a ``.git`` made while git answers is not stamped as seen
    # (stamped after, it was, and the old top folder answered for up to REUSE_S)
    before = _before(key[0])
    lines = ask()
    stamps = _stamps(key[0], lines, before)
    if stamps is not None:
        with _lock:
            _found[key] = (now, stamps, lines)
            _found.move_to_end(key)
            while len(_found) > _KEPT:
                _found.popitem(last=False)
    return lines


class _Folder(NamedTuple):
    """A folder's identity (a ``.git`` folder, the git folders): the same folder while these
    hold (its own size and times move with every entry git writes in it)."""

    dev: int
    ino: int


def _folder(path: str) -> _Folder | None:
    """The identity of the folder at ``path``, None when there is no folder there."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return _Folder(st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def _dotgit(folder: str) -> _Folder | settle.Stamp | None:
    """The stamp of ``folder``'s ``.git``: None when there is none, a folder's identity, a link
    file's text ("gitdir: ...") by its content's stamp."""
    dotgit = os.path.join(folder, ".git")
    return _folder(dotgit) or settle.stamp_at(dotgit, follow=False)


def _dotgits(cwd: str, top: str | None = None) -> dict[str, tuple | None]:
    """``{folder: its .git's stamp}`` from ``cwd`` up to ``top`` (included; None: up to the root
    folder, as before git has said which folder is the top)."""
    found = {}
    folder = cwd
    while True:
        found[folder] = _dotgit(folder)
        parent = os.path.dirname(folder)
        if folder == top or parent == folder:
            return found
        folder = parent


class _Before(NamedTuple):
    """What discovery reads, stamped before git is asked: every ``.git`` from the asked folder
    up to the root (:func:`_dotgits`), the config files git would read for the nearest ``.git``
    folder and their stamps, and when."""

    dotgits: dict[str, tuple | None]
    configs: list[str]
    stamps: tuple
    started: int


def _before(cwd: str) -> _Before:
    started = time.time_ns()
    dotgits = _dotgits(cwd)
    nearest = next((f for f, st in dotgits.items() if isinstance(st, _Folder)), None)
    configs = base_config_files(os.path.join(nearest, ".git"), os.path.join(nearest, ".git")) if nearest else []
    # a config file by the file a link names, as git reads it (a dotfile manager's linked
    # ~/.gitconfig, edited, kept its link's stamp)
    return _Before(dotgits, configs, tuple(settle.stamp_at(p) for p in configs), started)


def _stamps(cwd: str, lines: list[str], before: _Before | None = None) -> tuple | None:
    """What the answer ``lines`` for ``cwd`` rests on; None when it is not kept (``cwd`` outside
    the top folder it names: a git folder, a bare repository; an answer that is not whole).
    ``before`` (:func:`_before`, taken before git was asked): the ``.git`` entries, and the
    config files where git's answer names the ones guessed then (a repository's own ``.git``
    folder), are stamped as they were then; config files stamped only now (a worktree's, a
    ``GIT_DIR``'s) keep the answer only when none changed less than :data:`~vault_mem.platform.settle.SETTLE_NS` before git
    was asked. Nothing that changed while git answered is stamped as the version git read."""
    if len(lines) < 5:
        return None
    top = os.path.abspath(lines[0])
    if os.path.commonpath([cwd, top]) != top:
        return None
    try:
        chain = before.dotgits if before is not None else _dotgits(cwd, top)
        below, folder = [], cwd
        while folder != top:
            below.append(chain[folder] is not None)
            parent = os.path.dirname(folder)
            if parent == folder:
                return None
            folder = parent
        git_dir = os.path.normpath(os.path.join(cwd, lines[1]))
        common = os.path.normpath(os.path.join(cwd, lines[2]))
        files = base_config_files(common, git_dir)
        if before is not None and files == before.configs:
            configs = before.stamps
        else:
            configs = tuple(settle.stamp_at(p) for p in files)
            if before is not None and any(st is not None and st.changed_ns >= before.started - settle.SETTLE_NS
                                          for st in configs):
                return None  # changed a moment before git was asked, or while it answered: asked again
        return (tuple(below), chain[top], _folder(git_dir), _folder(common), configs)
    except (OSError, ValueError, KeyError):
        return None


def base_config_files(common_dir: str | os.PathLike, git_dir: str | os.PathLike) -> list[str]:
    """The config files git reads for the repository of ``common_dir`` and ``git_dir`` before any
    include (the one list: a kept reading of the config, a kept discovery and the notice of a
    config file in the vault stamp or read these): the system's
    (``GIT_CONFIG_SYSTEM``, none under ``GIT_CONFIG_NOSYSTEM``), the person's
    (``GIT_CONFIG_GLOBAL``, else ``$XDG_CONFIG_HOME/git/config`` and ``~/.gitconfig``), the
    repository's and the work tree's. A git built with another prefix reads its system file from
    elsewhere (``$(prefix)/etc/gitconfig``): that one is not known without asking git."""
    files = []
    if os.environ.get("GIT_CONFIG_NOSYSTEM", "").strip().lower() in ("", "0", "false", "no", "off"):
        system = os.environ.get("GIT_CONFIG_SYSTEM", "/etc/gitconfig")
        if system:  # set and empty: git reads no system file
            files.append(system)
    if "GIT_CONFIG_GLOBAL" in os.environ:
        if os.environ["GIT_CONFIG_GLOBAL"]:  # set and empty: git reads no global file (the top folder was named)
            files.append(os.environ["GIT_CONFIG_GLOBAL"])
    else:
        home = os.path.expanduser("~")
        files += [os.path.join(os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"), "git", "config"),
                  os.path.join(home, ".gitconfig")]
    return [*files, os.path.join(common_dir, "config"), os.path.join(git_dir, "config.worktree")]
