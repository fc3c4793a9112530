"""git commands that talk to a remote (fetch, push): bounded in time, never prompting.

Kept apart from :mod:`vault_mem.store.git` (local objects and refs) because these wait on the
network: each gets a timeout, no standard input and ``GIT_TERMINAL_PROMPT=0``, since a daemon
or an agent has nobody to type a password.
"""

from __future__ import annotations

import os
import subprocess

from vault_mem.errors import GitError, SyncError
from vault_mem.platform.programs import program, program_env
from vault_mem.store.git import GitRepo

#: Objects before refs for what a fetch brings: below ``fetch.unpackLimit`` (100 objects by
#: default) git unpacks a fetched pack into loose objects, which a person's ``git prune
#: --expire=now`` (or ``gc --prune=now``) running meanwhile may delete before the fetch writes the
#: ref that names them, leaving ``refs/remotes/<remote>/<branch>`` on a missing commit. A limit of 1
#: keeps every fetch as a pack with a ``.keep`` file, which no repack or prune touches, and which
#: git removes only after the ref is written.
_KEEP_FETCHED_PACKS = ("-c", "fetch.unpackLimit=1")


def run_remote(repo: GitRepo, timeout_s: float, *args: str) -> subprocess.CompletedProcess:
    """Run ``git ARGS`` at the repository's top level; returns the finished process (text
    output) whatever its exit code. Raises :class:`SyncError` ``unreachable`` on time-out."""
    env = program_env({**os.environ, "GIT_TERMINAL_PROMPT": "0"})
    try:
        return subprocess.run([program("git"), *_KEEP_FETCHED_PACKS, *args], check=False, cwd=repo.toplevel, env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise SyncError("unreachable", f"git {args[0]} gave no answer in {timeout_s:.0f} s; check the "
                        "network and the remote, then sync again (nothing local changed)") from exc
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH; install git and retry") from exc
