"""The person's editor on one file: ``$VISUAL``, else ``$EDITOR``, else ``vi``.

Kept in the store layer with the other processes vault-mem starts (git): the command line is
split as a shell would (``EDITOR="code --wait"``), the file comes last, and the editor inherits
the terminal.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from vault_mem.errors import UsageError
from vault_mem.platform.programs import program, program_env


def editor_command() -> str:
    """The editor a person chose, as a command line."""
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"


def run_editor(path: Path) -> None:
    """Open ``path`` in the person's editor and wait for it; a failed start or a non-zero exit is
    a :class:`UsageError` that says what to do."""
    editor = editor_command()
    try:
        argv = shlex.split(editor)
    except ValueError as exc:
        raise UsageError(f"cannot read the editor command '{editor}' ({exc}); fix $VISUAL or $EDITOR") from None
    try:
        if argv and os.sep not in argv[0]:  # found on PATH's absolute folders only, as every program
            argv[0] = program(argv[0])  # (an executable `vi` in a relative PATH entry is a vault's file)
        status = subprocess.run([*argv, str(path)], check=False, env=program_env()).returncode
    except OSError as exc:
        raise UsageError(f"cannot start the editor '{editor}' ({exc.strerror}); set $VISUAL or $EDITOR") from None
    if status != 0:
        raise UsageError(f"the editor '{editor}' exited with status {status}; nothing was committed "
                         f"(your changes to {path.name}, if any, are on disk)")
