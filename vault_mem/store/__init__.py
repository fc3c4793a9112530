"""The store layer: git (the only code that runs git), files, the workspace, git hooks.

GitPython runs ``git version`` when it is first imported, by name, in the working folder: an
agent hook or the MCP server runs in the vault, where a relative PATH entry would find a peer's
``git`` (DESIGN §7; :mod:`vault_mem.platform.programs`). So before any module here imports it,
GitPython is told git's absolute path.
"""

import os

from vault_mem.platform.programs import which

_git = which("git")
if _git is not None:
    os.environ["GIT_PYTHON_GIT_EXECUTABLE"] = _git
