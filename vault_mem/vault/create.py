"""Creating a vault: copy template_vault/, ``git init`` when needed, install the git hooks and
make the first commit (:meth:`vault_mem.Vault.init`).

Kept apart from vault.py, which holds what an open vault does; this runs once per vault.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from vault_mem.config import CONFIG_FILE
from vault_mem.errors import GitError, UsageError, VaultMemError
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.store.git import GitRepo
from vault_mem.store.hooks import ensure_index_merge_driver, install
from vault_mem.vault.transaction import atomic_write

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault


def _template_dir() -> Path:
    """template_vault/: inside the installed package, or at the repository root (editable)."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "template_vault", package.parent / "template_vault"):
        if (candidate / "vault.toml").is_file():
            return candidate
    raise VaultMemError("vault-mem's template_vault is missing from the installation; reinstall vault-mem")


def init_vault(cls: type[Vault], path: str | Path, *, agent: str | None = None) -> Vault:
    """Create a vault from the template and make its first commit.

    In a folder inside an existing repository only that folder's files are committed."""
    root = Path(path).expanduser().resolve()
    if (root / CONFIG_FILE).exists():
        raise UsageError(f"{root} is already a vault ({CONFIG_FILE} exists)")
    root.mkdir(parents=True, exist_ok=True)
    try:
        inside = GitRepo(root)
    except GitError:
        inside = None
    if inside is None:
        _git_init(root)
    created: list[Path] = []
    template = _template_dir()
    for src in sorted(template.rglob("*")):
        rel = src.relative_to(template)
        # dot-files ship as dot-NAME so that packaging never drops them
        dest = root / rel.parent / (("." + rel.name[4:]) if rel.name.startswith("dot-") else rel.name)
        if src.is_dir():
            dest.mkdir(exist_ok=True)
        elif src.suffix != ".pyc" and not dest.exists():
            shutil.copyfile(src, dest)
            created.append(dest)
    vault = cls(root, agent=agent)
    ensure_index_merge_driver(vault.repo)
    with vault.lock:
        vault.sidecar.reconcile()
        index_bytes = vault.render_index().encode()
        atomic_write(root / INDEX_FILE, index_bytes)
        files = {vault._top(p.relative_to(root).as_posix()): p.read_bytes() for p in created}
        files[vault._top(INDEX_FILE)] = index_bytes
        msg = "init: vault-mem vault\n\nCreated by `vault-mem init`."
        commit = vault.repo.commit_paths(files, msg, author=vault.identity())
        vault.sidecar.set_meta("head", commit or "")
    vault.notices.extend(install(vault))
    return vault


def _git_init(root: Path) -> None:
    import subprocess

    proc = subprocess.run(["git", "init", "-q", str(root)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise GitError(f"git init failed: {proc.stderr.strip()}")
