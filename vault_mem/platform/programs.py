"""How vault-mem starts another program (git, ps, lsof): found on PATH's absolute folders only,
and run with a PATH of those alone.

An empty PATH entry (what ``PATH=$PATH:/x`` leaves when PATH was empty, or ``PATH=:$PATH``), ``.``
or any relative entry names the working folder, and vault-mem runs git with a vault as the
working folder (the agent hooks and the MCP server run there too). A peer's executable ``git``,
``ssh`` or ``ps`` committed to the vault (a fresh clone keeps its mode) would then run as the
person, whatever folder the person started vault-mem from (DESIGN §7: nothing in a vault is
ever run). Git starts programs of its own (``ssh`` for a remote, a credential helper, the pager)
from the PATH it is given, so that PATH is cleaned as well. The one home of that rule.
"""

from __future__ import annotations

import os

__all__ = ["program", "program_env", "safe_path", "which", "with_data_limit"]


def safe_path(path: str | None = None) -> str:
    """``path`` (default: this process's PATH) without its relative entries."""
    raw = os.environ.get("PATH", os.defpath) if path is None else path
    return os.pathsep.join(p for p in raw.split(os.pathsep) if os.path.isabs(p))


def which(name: str) -> str | None:
    """The absolute path of ``name`` on PATH's absolute folders, or None: ``shutil.which``'s
    rule on POSIX (the first executable file, not a folder; a name with a ``/`` taken as it
    is), without importing ``shutil``, which brings ``bz2``, ``lzma`` and ``fnmatch`` into every
    command that starts a program (start-up time, issue 29)."""
    if os.path.dirname(name):
        return name if os.path.isabs(name) and _executable(name) else None
    seen: set[str] = set()
    for folder in safe_path().split(os.pathsep):
        if not folder or folder in seen:  # "" (no absolute entry at all) is no folder: never the cwd
            continue
        seen.add(folder)
        candidate = os.path.join(folder, name)
        if _executable(candidate):
            return candidate
    return None


def _executable(path: str) -> bool:
    return os.path.exists(path) and os.access(path, os.F_OK | os.X_OK) and not os.path.isdir(path)


def program(name: str) -> str:
    """:func:`which`, or :class:`FileNotFoundError` (as starting a missing program raises)."""
    found = which(name)
    if found is None:
        raise FileNotFoundError(2, f"{name} not found on PATH", name)
    return found


def program_env(env: dict[str, str] | None = None) -> dict[str, str] | None:
    """The environment to start a program with: ``env`` (None: this process's), with PATH's
    relative entries dropped; None (inherit as is) when there is nothing to drop."""
    base = os.environ if env is None else env
    raw = base.get("PATH")
    if raw is None or raw == safe_path(raw):
        return env
    return {**base, "PATH": safe_path(raw)}


def with_data_limit(argv: list[str], limit_bytes: int) -> list[str]:
    """``argv`` run with its data segment (and its children's: the limit is inherited) bounded to
    ``limit_bytes`` (``RLIMIT_DATA``). POSIX: through ``sh``'s ``ulimit -d``, which, unlike a
    ``preexec_fn``, is safe in a process with threads; ``exec`` keeps the process id. Where the
    shell cannot set it, ``argv`` runs unbounded; elsewhere than POSIX it runs as it is."""
    if os.name != "posix":
        return argv
    return [program("sh"), "-c", f'ulimit -d {limit_bytes // 1024} 2>/dev/null; exec "$@"',
            os.path.basename(argv[0]), *argv]
