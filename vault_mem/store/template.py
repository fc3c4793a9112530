"""vault-mem's own template vault (template_vault/): where it is installed, and the blob id of each
file ``vault-mem init`` writes from it. A clone's copy of one of those is vault-mem's, whoever
committed it (:func:`vault_mem.store.gitfiles.held_unapproved`)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from vault_mem.errors import VaultMemError
from vault_mem.store.git import GitRepo


def template_dir() -> Path:
    """template_vault/: inside the installed package, or at the repository root (editable)."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "template_vault", package.parent / "template_vault"):
        if (candidate / "vault.toml").is_file():
            return candidate
    raise VaultMemError("vault-mem's template_vault is missing from the installation; reinstall vault-mem")


def vault_name(rel: Path) -> Path:
    """Where the template's file ``rel`` goes in a vault: its ``dot-NAME`` files as ``.NAME``
    (they ship so, that packaging never drops them)."""
    return rel.parent / (("." + rel.name[4:]) if rel.name.startswith("dot-") else rel.name)


def template_files() -> list[tuple[Path, Path]]:
    """``(source, vault-relative destination)`` of each entry of template_vault/ that ``vault-mem
    init`` writes (folders too), in path order; compiled Python left out."""
    template = template_dir()
    return [(src, vault_name(src.relative_to(template))) for src in sorted(template.rglob("*"))
            if src.suffix != ".pyc"]


@cache
def template_blobs() -> dict[str, str]:
    """``{vault-relative path: blob id}`` of the files ``vault-mem init`` writes from
    template_vault/ (its ``dot-NAME`` files as ``.NAME``). Read once per process (a few small
    files: the key of every command's check of what HEAD holds unapproved)."""
    return {dest.as_posix(): GitRepo.blob_id(src.read_bytes())
            for src, dest in template_files() if src.is_file() and not src.is_symlink()}
