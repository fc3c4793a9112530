"""Reading memory files for the sidecar: which files a vault holds, and what one file gives.

Separate from :mod:`vault_mem.index.sidecar` because it touches only the file system (never the
database): a scan is one ``scandir`` per type folder with (mtime_ns, size) per file; a read
checks, in order, that the file stays inside the vault, its name, its size, NUL bytes, UTF-8
and the frontmatter, and says which check failed.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from vault_mem.config import FOLDER_TYPES
from vault_mem.errors import VaultMemError
from vault_mem.model.memory import is_memory_name, key_type_from_path, memory_from_bytes


@dataclass
class FileState:
    """What reading one file gave: a parsed memory or a problem."""

    path: str
    key: str
    type: str
    mtime_ns: int
    size: int
    sha256: str = ""
    problem: str | None = None
    memory: object | None = None


def stat_sig(st: os.stat_result) -> tuple[int, int]:
    """The (mtime_ns, size) pair reconcile compares with the stored row."""
    return st.st_mtime_ns, st.st_size


def path_sig(path) -> tuple[int, int] | None:
    """(mtime_ns, size) following symlinks; the link's own for a dangling one; None if gone."""
    try:
        return stat_sig(os.stat(path))
    except FileNotFoundError:
        try:
            return stat_sig(os.lstat(path))
        except FileNotFoundError:
            return None


def scan_folders(root: Path) -> dict[str, tuple[int, int]]:
    """rel path -> (mtime_ns, size) for every candidate memory file (non-recursive)."""
    found: dict[str, tuple[int, int]] = {}
    for folder in FOLDER_TYPES:
        try:
            it = os.scandir(root / folder)
        except (FileNotFoundError, NotADirectoryError):
            continue
        with it:
            for entry in it:
                name = entry.name
                if not is_memory_name(name):
                    continue  # editor temp/swap/lock files are not memories
                try:
                    if entry.is_symlink():
                        sig = path_sig(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        sig = stat_sig(entry.stat(follow_symlinks=False))
                    else:
                        continue
                except FileNotFoundError:
                    continue  # vanished while scanning
                if sig is not None:
                    found[f"{folder}/{name}"] = sig
    return found


def read_file(root: Path, real_root: str, rel: str, *, max_bytes: int) -> FileState | None:
    """Read and parse one memory file (``rel`` is vault-relative); None if it no longer exists.

    ``real_root`` is the vault's realpath: a file (or type folder) that resolves outside it is
    a problem, never read."""
    folder, name = rel.split("/", 1)
    stem = name[:-3]
    state = FileState(path=rel, key=stem, type=FOLDER_TYPES[folder], mtime_ns=-1, size=-1)
    abs_path = root / rel
    sig = path_sig(abs_path)
    if sig is None:
        return None
    state.mtime_ns, state.size = sig
    # the file, or its type folder, may be a symlink: never read what lies outside the vault
    target = os.path.realpath(abs_path)
    if os.path.commonpath([target, real_root]) != real_root:
        via = "is a symlink to" if abs_path.is_symlink() else "lies (through a symlinked folder) at"
        state.problem = f"{via} {target}, outside the vault; vault-mem refuses to read it"
        return state
    if abs_path.is_symlink() and not os.path.exists(abs_path):
        state.problem = "is a dangling symlink"
        return state
    try:
        st = os.stat(abs_path)
    except OSError:
        return None
    state.mtime_ns, state.size = stat_sig(st)
    try:
        key_type_from_path(rel)
    except VaultMemError as exc:
        state.problem = _strip_path(str(exc), rel) + " (rename the file)"
        return state
    limit = max_bytes
    if st.st_size > limit:
        state.problem = f"is {st.st_size} bytes, over the limit of {limit} (max_body_bytes in vault.toml)"
        return state
    try:
        with open(abs_path, "rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        state.problem = f"cannot be read ({exc.strerror or exc})"
        return state
    state.sha256 = hashlib.sha256(data).hexdigest()
    try:
        state.memory = memory_from_bytes(data, rel, max_bytes=limit)
    except VaultMemError as exc:
        state.problem = _strip_path(str(exc), rel)
    return state


def _strip_path(message: str, rel: str) -> str:
    return message[len(rel) + 2:] if message.startswith(rel + ": ") else message
