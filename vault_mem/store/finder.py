"""Which vaults a command means: :func:`vault_mem.config.resolve_vaults` decided by this machine's
records (DESIGN §7, §8).

The config layer finds the candidates and chooses among them (:func:`vault_mem.config.choose_vault`),
but which of them are this machine's vaults is in the approvals (trusted.json,
:mod:`vault_mem.store.trust`), which that layer, below the store, cannot read: so it asks the
function it is given, and every command, hook and server finds its vaults here. The approvals
are read only where there is a choice (a teammate's vault.toml beside the vault), so a read its
daemon answers parses nothing more.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from vault_mem import config
from vault_mem.config import CONFIG_FILE, PROJECT, STATE_DIR, VaultSet, holds_config
from vault_mem.errors import VaultMemError


def _standing(root: Path) -> int:
    from vault_mem.store.trust import vault_standing  # lazy: read only where there is a choice (start-up time)

    return vault_standing(root)


def passed_over_notice(folder: Path, chosen: Path) -> str:
    """What a command says about a vault folder :func:`vault_mem.config.choose_vault` passed over:
    its vault.toml would have made ``folder`` the vault in place of ``chosen``, and nothing of this
    machine approved it. Paths escaped: a folder's name is text whoever committed it chose."""
    from vault_mem.model.names import named, shown  # lazy: said only when a folder is passed over

    # a folder's name is its committer's: an agent reads its kind alone (model/render.for_agent)
    there = named(str(folder), "a folder in the repository", quoted=False)
    toml = folder / CONFIG_FILE
    if not holds_config(folder):  # only a vault's state (a committed .vault-mem/index.db): nothing to approve
        state = folder / STATE_DIR
        return (f"{named(str(state), 'a state folder in the repository', quoted=False)} is ignored: it holds a "
                f"vault's state with no {CONFIG_FILE} beside it, which would make {there} the vault in place of "
                f"{shown(str(chosen))}, which stays the vault; this machine never used {there} as a vault. If it "
                f"is not yours, remove it (`git log -- {named(str(state), 'its path', word=True)}` shows whether "
                "a commit added it)")
    word = named(str(toml), "its path", word=True)
    return (f"{named(str(toml), 'a vault.toml in the repository', quoted=False)} is ignored: this machine never "
            f"approved {there} as a vault, and a vault.toml there (anyone who commits to the repository can put "
            f"one) would make it the vault in place of {shown(str(chosen))}, which stays the vault. If the person "
            f"wants {there} as the vault here, they run `vault-mem trust {word}` in a terminal; if not, remove the "
            f"file (`git log -- {word}` shows whose commit added it)")


def _with_passed_over(found: VaultSet) -> VaultSet:
    """``found`` with its first-used vaults recorded and its passed-over folders said."""
    notes: list[str] = []
    for v in found.vaults:
        if v.first and v.name == PROJECT:
            from vault_mem.store.trust import record_vault  # lazy, as _standing

            try:
                record_vault(v.root, "first use")
            except (OSError, VaultMemError):
                pass  # a read-only config folder: chosen the same way next time, nothing recorded
        notes += [passed_over_notice(f, v.root) for f in v.passed_over]
    return replace(found, passed_notices=tuple(notes)) if notes else found


def resolve_vaults(explicit: str | Path | None = None, *, start: Path | None = None) -> VaultSet:
    """:func:`vault_mem.config.resolve_vaults` decided by this machine's records
    (:func:`vault_mem.store.trust.vault_standing`): the one way every command, hook and server finds its vaults."""
    return _with_passed_over(config.resolve_vaults(explicit, start=start, known=_standing, committed=_committed))


def _committed(named: Path) -> bool:
    """Whether the project's ``memory`` link ``named`` is one a commit holds (refused when the
    vault opens) rather than the person's own (followed): :func:`~vault_mem.store.workspace.committed_link`."""
    from vault_mem.store.workspace import committed_link  # lazy: asked only of a project's memory link

    return committed_link(named) is not None


def resolve_vault_root(explicit: str | Path | None = None, *, start: Path | None = None) -> Path:
    """The first vault of :func:`resolve_vaults`: the one a one-vault command means (``explicit``,
    else the vault writes go to from ``start``: its project vault, else the personal vault, else
    $VAULT_MEM_VAULT, which never overrides the vault you stand in: DESIGN §8)."""
    return resolve_vaults(explicit, start=start).vaults[0].root


def find_vault_root(start: str | Path | None = None) -> Path:
    """The vault the folder ``start`` (default: the working folder) names, as --vault does."""
    return resolve_vault_root(Path(start) if start else Path.cwd())
