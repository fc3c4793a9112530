"""The vaults a command, a hook or the MCP server uses together: the project vault and the
personal vault (DESIGN §8), as :func:`vault_mem.config.resolve_vaults` found them.

:class:`Vaults` opens each vault only when a command needs it, answers a read from that vault's
daemon when one runs (else in-process, with the same functions: :mod:`vault_mem.adapters.reads`),
and says where a key or a write goes:

- a read (recall, list) asks every vault and merges (:mod:`vault_mem.model.fusion`): each hit
  and row names its ``vault``;
- every command taking a key (``get``, ``forget``, ``edit``, ``log``, ``undo``, ``resolve``)
  takes ``personal:KEY`` (or ``project:KEY``) through :meth:`Vaults.locate`; a bare key is the
  vault that holds it; held by both, a read takes the project's (saying the other exists) unless
  the project's copy is an unapproved peer's and the other is not (:meth:`Vaults.locate_read`), and a
  write refuses until told which;
- ``remember`` writes to the project vault unless told ``personal``; with no project vault, to
  the personal one; a key both hold whose copy a bare read takes from the personal vault is
  refused until told which (:meth:`Vaults.for_write_key`).

Each vault stays separate: its own repository, sidecar, embedder, daemon and trust approvals.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from vault_mem.config import PERSONAL, PROJECT, TYPE_FOLDERS, NamedVault, VaultSet
from vault_mem.errors import MemoryNotFoundError, UsageError, VaultMemError, marked_text
from vault_mem.store.finder import resolve_vaults

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

VAULT_NAMES = (PROJECT, PERSONAL)
T = TypeVar("T")

#: ``here(vault, op, params)``: a read answered in this process (no daemon answered); the callers
#: pass :func:`vault_mem.adapters.read_here.read_here`, which this module must not import (the
#: reads use the tools and the hooks' contexts, which use this module: a cycle)
ReadHere = Callable[["Vault", str, dict[str, Any]], Any]


class Vaults:
    """The vaults of ``found``, opened lazily (``agent``: the commit author's name for writes).
    ``daemon``: ask each vault's daemon first (one-shot commands and hooks); a long-lived server
    keeps its own vaults current and reads them in-process. ``here``: how :meth:`read` answers
    in this process (:data:`ReadHere`); without it, only a daemon answers :meth:`read`."""

    def __init__(self, found: VaultSet, *, agent: str | None = None, daemon: bool = True,
                 opened: dict[str, Vault] | None = None, here: ReadHere | None = None) -> None:
        self.found = found
        self.agent = agent
        self.daemon = daemon
        self.here = here
        self.opened: dict[str, Vault] = dict(opened or {})
        #: what the vaults noticed (a daemon's notices, a vault skipped), for the next answer.
        #: Not the folders passed over in finding them (``found.passed_notices``): those are
        #: the finding's, said once by the adapter that reports to the person or the agent
        self.notices: list[str] = []
        #: the vaults :meth:`each` skipped because they refused, by name
        self.skipped: list[str] = []

    @classmethod
    def resolve(cls, explicit: str | Path | None = None, *, start: Path | None = None, **kw: Any) -> Vaults:
        """The vaults a command run in ``start`` means (``explicit``: --vault, that vault alone)."""
        return cls(resolve_vaults(explicit, start=start), **kw)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(v.name for v in self.found.vaults)

    @property
    def several(self) -> bool:
        return self.found.several

    def root(self, name: str) -> Path:
        return self.found.named(name).root

    def vault(self, name: str) -> Vault:
        """The vault called ``name``, opened once."""
        if name not in self.opened:
            from vault_mem.vault.core import Vault  # lazy: a read the daemon answers never opens one

            self.opened[name] = Vault(self.root(name), agent=self.agent)
        return self.opened[name]

    def read(self, name: str, op: str, params: dict[str, Any]) -> Any:
        """``op(params)`` (:data:`vault_mem.adapters.reads.READS`) on the vault ``name``: its
        daemon's answer when one answers, else worked out here."""
        if self.daemon and name not in self.opened:
            from vault_mem.store import daemon_socket as protocol  # lazy: a write asks no daemon (start-up time)

            answered = protocol.ask(self.root(name), op, params)
            if answered is not None:
                result, notices = answered
                self.notices += [self._named(name, n) for n in notices]
                return result
        if self.here is None:
            raise UsageError(f"no daemon answered {op} for the {name} vault, and this process reads no vault itself")
        return self.here(self.vault(name), op, params)

    def each(self, work: Callable[[str], T]) -> list[tuple[str, T]]:
        """``(name, work(name))`` for every vault in use. When several are, a vault that refuses
        (a tree its rule refuses, which a teammate's commit and a plain ``git pull`` put in a
        project's ``memory/``; a damaged repository) is skipped, named in a notice with why, and
        the others answer: one vault's refusal never hides the other's memories from a read or
        a hook. Every vault refusing: the first refusal."""
        out: list[tuple[str, T]] = []
        refused: list[VaultMemError] = []
        for name in self.names:
            try:
                out.append((name, work(name)))
            except VaultMemError as exc:
                if not self.several:
                    raise
                refused.append(exc)
                if name not in self.skipped:
                    self.skipped.append(name)
                note = f"the {name} vault is skipped: {marked_text(exc)}"
                if note not in self.notices:
                    self.notices.append(note)
        if refused and not out:
            self.notices.clear()
            raise refused[0]
        return out

    def _named(self, name: str, note: str) -> str:
        return f"{name} vault: {note}" if self.several else note

    def take_notices(self) -> list[str]:
        """What every vault noticed since the last call, each named by vault when several."""
        out, self.notices = self.notices, []
        for name, vault in self.opened.items():
            out += [self._named(name, n) for n in vault.take_notices()]
        return out

    def notices_now(self) -> list[str]:
        """:meth:`take_notices` with each vault's :meth:`~vault_mem.Vault.notices_now` (its state
        as it is now), for a process that answers for long."""
        out, self.notices = self.notices, []
        for name, vault in self.opened.items():
            out += [self._named(name, n) for n in vault.notices_now()]
        return out

    def for_write(self, name: str | None = None) -> NamedVault:
        """Where a write goes: the vault ``name`` (project or personal), else the first (the
        project vault, or the personal one outside any project)."""
        if name is None:
            return self.found.vaults[0]
        if name not in VAULT_NAMES:
            raise UsageError(f"vault must be {' or '.join(VAULT_NAMES)}, got {name!r}")
        if not self.several and name == PROJECT:
            return self.found.vaults[0]
        return self.found.named(name)

    def for_write_key(self, key: str, name: str | None = None) -> NamedVault:
        """:meth:`for_write` for a write of ``key`` (remember): a bare key both vaults hold whose
        copy a bare read takes elsewhere (:meth:`locate_read`: the project's copy is an
        unapproved peer's, the person's is in the personal vault) is refused until told which.
        The agent updating the memory ``get`` showed it would otherwise replace the teammate's
        file with the person's text, committed in the person's name into the project's shared
        repository, and leave the person's own copy as it was."""
        target = self.for_write(name)
        if name is not None or not self.several or len(self.holders(key)) < 2:
            return target
        read, _, _ = self.locate_read(key, self.trusted_copy)
        if read != target.name:
            raise UsageError(f"'{key}' is in the {target.name} and the {read} vault, and a bare get reads the {read} "
                             f"vault's (the {target.name} vault's copy is a peer's not approved here, or refused); say "
                             f"which: --personal (the MCP tool: vault: personal), or vault: {target.name} "
                             f"(--vault {self.root(target.name)})")
        return target

    def trusted_copy(self, name: str, key: str) -> bool:
        """Whether the vault ``name``'s memory ``key`` is by an author trusted here (True when it
        holds no such file: what reads it next says so)."""
        vault = self.vault(name)
        found = vault.find_file(key)
        return True if found is None else vault.authors([found[1]])[found[1]].trusted

    def holders(self, key: str) -> list[str]:
        """The vaults holding a memory file with ``key`` (a look at the type folders on disk). A
        text that is no valid key (:func:`~vault_mem.model.memory.validate_key`) is held by none,
        and never reaches the disk: the command refuses it, or reads it as what else it may be
        (``undo HEAD~2``). Before (attack25) a 300-character key came back as the file system's
        "File name too long", an internal error, where one vault refuses the key."""
        from vault_mem.errors import InvalidKeyError
        from vault_mem.model.memory import validate_key  # lazy: start-up time, as split_key

        try:
            validate_key(key)
        except InvalidKeyError:
            return []
        return [v.name for v in self.found.vaults
                if any((v.root / folder / f"{key}.md").is_file() for folder in TYPE_FOLDERS.values())]

    def locate(self, text: str, *, strict: bool = False) -> tuple[str, str, list[str]]:
        """``(vault name, key, other vaults holding the key)`` for ``KEY`` or ``personal:KEY``.
        A bare key held by several vaults is the project's, or refused when ``strict`` (a
        ``forget`` must name which)."""
        from vault_mem.model.fusion import split_key  # lazy: a write names no vault (start-up time)

        name, key = split_key(text, self.names)
        if name is not None:
            return name, key, []
        held = self.holders(key)
        if len(held) > 1 and strict:
            raise UsageError(f"'{key}' is in the {' and the '.join(held)} vault; say which: "
                             + " or ".join(f"{n}:{key}" for n in held))
        if not held:
            return self.names[0], key, []
        return held[0], key, held[1:]

    def locate_read(self, text: str, trusted: Callable[[str, str], bool]) -> tuple[str, str, list[str]]:
        """:meth:`locate` for a read (get, a memory resource): a bare key held by several vaults
        whose first holder's copy is an unapproved peer's (``trusted(name, key)`` False: a
        project teammate not approved here) is the first holder's whose copy is trusted. The
        session context lists the person's copy and leaves the teammate's out, so a teammate's
        memory cannot shadow a personal key by taking its name; nor can a copy that refuses
        (a project vault refused by name) keep the other from being read."""
        name, key, others = self.locate(text)

        def sure(vault_name: str) -> bool:
            try:
                return trusted(vault_name, key)
            except VaultMemError as exc:  # a vault that refuses (its tree, its copy quarantined): not this
                # one, but said: the refusal (a credential in the project's repository) is the person's to see
                note = f"the {vault_name} vault's '{key}' is not read: {marked_text(exc)}"
                if note not in self.notices:
                    self.notices.append(note)
                return False

        if others and not sure(name):
            for other in others:
                if sure(other):
                    return other, key, [name] + [o for o in others if o != other]
        return name, key, others

    def close(self) -> None:
        for vault in self.opened.values():
            vault.close()
        self.opened.clear()


def get_view(vaults: Vaults, text: str, read: Any) -> dict[str, Any]:
    """``get`` of ``KEY`` or ``personal:KEY`` through ``read(name, key)`` (a vault's get view),
    naming its vault when several are in use and saying when another vault has the key too."""
    views: dict[str, dict[str, Any]] = {}

    def trusted(name: str, key: str) -> bool:
        views[name] = views.get(name) or read(name, key)
        return bool(views[name].get("trusted", True))

    try:
        name, key, others = vaults.locate_read(text, trusted)
        view = views.get(name) or read(name, key)
    except MemoryNotFoundError as exc:
        if vaults.several:
            raise MemoryNotFoundError(f"{exc} (looked in the {' and the '.join(vaults.names)} vault)") from None
        raise
    if vaults.several:
        view["vault"] = name
        view.setdefault("notes", [])
        view["notes"] += [f"the {o} vault has a memory '{key}' too: get {o}:{key} reads it" for o in others]
    return view
