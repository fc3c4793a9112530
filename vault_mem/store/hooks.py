"""Install vault-mem's git hooks into the vault's repository.

Each hook is a small ``sh`` script, rendered from the one template ``hooks/git/hook.in``, calling
``"<this Python>" -m vault_mem.adapters.cli hook NAME --vault <root>`` (falling back to ``vault-mem`` on
PATH, and doing nothing, loudly, when neither exists, so an uninstalled tool never blocks a
commit). A hook file that is not vault-mem's is never overwritten: it is skipped and the returned
notes say how to chain ours from it. Installing again rewrites only our own hooks, so
:func:`install` is idempotent.
"""

from __future__ import annotations

import os
import re
import shlex
import site
import sys
from pathlib import Path
from typing import Any

from vault_mem.errors import VaultMemError

MARKER = "# vault-mem hook:"
#: Each git hook vault-mem installs, and what it does (the comment at the top of the script).
HOOK_PURPOSES = {
    "pre-commit": "refuses broken memory files (file and reason) and regenerates and stages INDEX.md\n"
                  "# (`git commit --no-verify` skips it once)",
    "post-merge": "brings the search index and INDEX.md up to date after a merge or pull",
    "post-checkout": "brings the search index and INDEX.md up to date after a checkout",
    "post-rewrite": "brings the search index and INDEX.md up to date after an amend or rebase",
}
HOOK_NAMES = tuple(HOOK_PURPOSES)
TEMPLATE = "hook.in"
#: First thing in pre-commit, before Python starts: tell agent writers which ``git commit``
#: (the hook's parent) is under way, so that none moves the branch under it (see
#: ``GitRepo.person_commit``); git re-reads HEAD only at its very end.
#: Plain shell, no process started: it is what stands between git reading HEAD and agents
#: knowing a commit is under way.
_MARK_LINE = ('if [ -n "$GIT_DIR" ]; then D=$GIT_DIR; elif [ -d .git ]; then D=.git; '
              'else read -r _ D < .git 2>/dev/null; fi; '
              '[ -n "$D" ] && echo "$PPID" > "$D/vault-mem-commit" 2>/dev/null')
_PLACEHOLDER = re.compile(r"@([A-Z_]+)@")


def template_path() -> Path:
    """``hooks/git/hook.in``: inside the installed package, or at the repository root (editable)."""
    package = Path(__file__).resolve().parent.parent
    for base in (package, package.parent):
        candidate = base / "hooks" / "git" / TEMPLATE
        if candidate.is_file():
            return candidate
    raise VaultMemError("vault-mem's git hook template (hooks/git/hook.in) is missing from the installation; "
                        "reinstall vault-mem")


def hooks_dir(vault: Any) -> Path:
    """Where git looks for this repository's hooks (honours ``core.hooksPath`` and worktrees)."""
    out = vault.repo.run("rev-parse", "--git-path", "hooks", cwd=vault.root)
    path = Path(out.strip())
    return path if path.is_absolute() else (Path(vault.root) / path).resolve()


def _pythonpath_line() -> str:
    """Make the hook find this vault_mem when it is run from a source checkout, not installed."""
    pkg_parent = str(Path(__file__).resolve().parent.parent.parent)
    installed = {str(Path(p).resolve()) for p in [*site.getsitepackages(), site.getusersitepackages()]}
    if pkg_parent in installed:
        return ""
    return f'PYTHONPATH={shlex.quote(pkg_parent)}"${{PYTHONPATH:+:$PYTHONPATH}}"; export PYTHONPATH'


def render(name: str, vault_root: Path) -> str:
    """The text of hook ``name`` (one of :data:`HOOK_NAMES`) for the vault at ``vault_root``."""
    values = {
        "HOOK": name,
        "PURPOSE": HOOK_PURPOSES[name],
        "PYTHON": shlex.quote(sys.executable),
        "VAULT": shlex.quote(str(vault_root)),
        "PYTHONPATH_LINE": _pythonpath_line(),
        "MARK_LINE": _MARK_LINE if name == "pre-commit" else "",
    }
    text = template_path().read_text(encoding="utf-8")
    # one pass: a path holding "@HOOK@" or the like is not expanded again
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def install(vault: Any) -> list[str]:
    """Write the hooks into the repository's hooks folder; returns one note per hook."""
    target = hooks_dir(vault)
    target.mkdir(parents=True, exist_ok=True)
    root = Path(vault.root)
    vault_line = f"VAULT={shlex.quote(str(root))}"
    notes: list[str] = []
    for name in HOOK_NAMES:
        path = target / name
        text = render(name, root)
        if path.exists() or path.is_symlink():
            try:
                old = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                old = ""
            if MARKER not in old:
                notes.append(
                    f"skipped {name}: {path} already exists and is not vault-mem's; to add ours, call "
                    f"`vault-mem --vault {shlex.quote(str(root))} hook {name} \"$@\"` from it"
                )
                continue
            if vault_line not in old.splitlines():
                notes.append(f"skipped {name}: {path} is vault-mem's hook for another vault in this repository")
                continue
            if old == text:
                notes.append(f"{name}: already installed")
                _make_executable(path)
                continue
            verb = "updated"
        else:
            verb = "installed"
        tmp = path.with_name(f".{name}.vault-mem-tmp")
        tmp.write_text(text, encoding="utf-8")
        _make_executable(tmp)
        os.replace(tmp, path)
        notes.append(f"{name}: {verb} {path}")
    return notes


def _make_executable(path: Path) -> None:
    mode = path.stat().st_mode
    path.chmod(mode | 0o755)


def ensure_index_merge_driver(repo: Any) -> None:
    """Define the merge driver the template's .gitattributes names for INDEX.md (keep either
    side: INDEX.md is regenerated after every merge). Git config is not cloned, so init and every
    sync make sure of it."""
    if repo.run("config", "--get", "merge.vault-mem-index.driver", check=False).returncode != 0:
        repo.run("config", "merge.vault-mem-index.name", "vault-mem: keep INDEX.md, it is regenerated")
        repo.run("config", "merge.vault-mem-index.driver", "true")
