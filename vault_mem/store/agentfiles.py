"""What git says about a project's agent configuration files, for ``vault-mem connect``.

An agent keeps some of its settings in the project (Claude Code's ``.claude/settings.local.json``)
and some in the person's home keyed by the project (``~/.claude.json`` ``projects[<top of the
repository>]``). connect writes only where no commit decides what runs: these answer which
folder the agent keys a project by, whether a commit holds a file, and keep a file of this
machine's out of the person's commits.
"""

from __future__ import annotations

import os
from pathlib import Path

from vault_mem.errors import GitError
from vault_mem.store.files import atomic_write, current_bytes
from vault_mem.store.git import run_git


def project_top(folder: Path) -> Path:
    """The top of the git repository holding ``folder`` (resolved), else ``folder`` resolved:
    the key Claude Code files a project's local settings under (``claude mcp add --scope local``
    run in a subfolder writes them under the repository's top)."""
    folder = Path(folder).resolve()
    try:
        proc = run_git("rev-parse", "--show-toplevel", cwd=folder)
    except (GitError, OSError):
        return folder
    top = proc.stdout.decode("utf-8", "surrogateescape").strip()
    return Path(top).resolve() if proc.returncode == 0 and top else folder


def committed(path: Path) -> bool:
    """Whether the git repository holding ``path`` has it in its index (a commit's file, or one
    staged to be). False outside a repository."""
    path = Path(os.path.abspath(path))
    if not path.parent.is_dir():
        return False
    try:
        proc = run_git("ls-files", "-z", "--", path.name, cwd=path.parent)
    except (GitError, OSError):
        return False
    return proc.returncode == 0 and bool(proc.stdout.strip(b"\0"))


def keep_out_of_commits(path: Path) -> bool:
    """Add ``path`` (a file of this machine's inside a repository) to the repository's
    ``info/exclude`` unless git ignores it already, so the person's ``git add -A`` never offers
    it (Claude Code puts ``**/.claude/settings.local.json`` in the person's global ignore file
    when it writes that file; one connect writes first gets the same). True when a line was added."""
    path = Path(os.path.abspath(path))
    top = project_top(path.parent)
    try:
        rel = path.relative_to(top).as_posix()
        ignored = run_git("check-ignore", "-q", "--no-index", "--", rel, cwd=top)
        where = run_git("rev-parse", "--git-path", "info/exclude", cwd=top)
    except (ValueError, GitError, OSError):
        return False
    if ignored.returncode != 1 or where.returncode != 0 or any(c in rel for c in "\n\r\\*?[!#"):
        return False  # ignored already (0), or no repository / git cannot say (128)
    exclude = Path(where.stdout.decode("utf-8", "surrogateescape").strip())
    exclude = exclude if exclude.is_absolute() else top / exclude
    old = current_bytes(exclude)
    text = old or b""
    atomic_write(exclude, text + (b"" if not text or text.endswith(b"\n") else b"\n") + f"/{rel}\n".encode(),
                 expect=old)
    return True
