"""The MCP server's change notifications: ``notifications/resources/list_changed`` when memory
files are added or removed, ``notifications/resources/updated`` for ``vault://index`` when the
vault changes, whoever changed it (another agent's ``remember``, a person's editor, ``git pull``).

Both protocol eras of the MCP SDK are served:

- a client of the initialize handshake (most hosts today) gets list_changed always (the server
  declares ``resources.listChanged``) and ``updated`` for the URIs it sent ``resources/subscribe``
  for, on its session;
- a 2026-07-28 client opens a ``subscriptions/listen`` stream; events go through the SDK's
  :class:`~mcp.server.subscriptions.InMemorySubscriptionBus`, which sends each stream what it
  asked for.

How a change is seen: every :data:`POLL_S` the notifier looks at INDEX.md and the type folders of
each vault (a handful of ``stat`` calls, whatever the vault's size). A memory file written the
way vault-mem and most editors write (a new file renamed into place), added or removed changes
its folder; only then are the folder's names listed, to tell an added or removed memory (list
changed) from a rewritten one. INDEX.md changes with every commit and every reconcile. A file
rewritten in place, with no daemon running, shows once INDEX.md is regenerated (the next call).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from vault_mem.config import TYPE_FOLDERS
from vault_mem.model.indexmd import INDEX_FILE

log = logging.getLogger(__name__)

#: how often the vaults are looked at (seconds)
POLL_S = 0.5


def _stat(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


def _names(folder: Path) -> frozenset[str]:
    try:
        return frozenset(n for n in os.listdir(folder) if n.endswith(".md") and not n.startswith((".", "#", "~")))
    except OSError:
        return frozenset()


class ChangeNotifier:
    """Watches the vaults at ``roots`` for the server and tells its clients (see the module).
    ``index_uri``: the resource whose subscribers hear of every change."""

    def __init__(self, roots: list[Path], index_uri: str, *, poll_s: float = POLL_S) -> None:
        from mcp.server.subscriptions import InMemorySubscriptionBus  # the SDK only when serving

        self.roots = list(roots)
        self.index_uri = index_uri
        self.poll_s = poll_s
        self.bus = InMemorySubscriptionBus()
        self.session: Any = None  # a handshake-era client's session (from notifications/initialized)
        self.subscribed: set[str] = set()
        self.folders = {self._key(r, f): _stat(r / f) for r in self.roots for f in TYPE_FOLDERS.values()}
        self.names = {k: _names(Path(k)) for k in self.folders}
        self.index = {r: _stat(r / INDEX_FILE) for r in self.roots}

    @staticmethod
    def _key(root: Path, folder: str) -> str:
        return str(root / folder)

    def changes(self) -> tuple[bool, bool]:
        """``(memories added or removed, anything changed)`` since the last look."""
        listed = changed = False
        for key, before in self.folders.items():
            now = _stat(Path(key))
            if now != before:
                self.folders[key] = now
                changed = True
                names = _names(Path(key))
                if names != self.names[key]:
                    self.names[key], listed = names, True
        for root, before in self.index.items():
            now = _stat(root / INDEX_FILE)
            if now != before:
                self.index[root], changed = now, True
        return listed, changed

    async def check(self) -> None:
        """Look once, and notify what changed."""
        from mcp.server.subscriptions import ResourcesListChanged, ResourceUpdated

        listed, changed = self.changes()
        if listed:
            await self.bus.publish(ResourcesListChanged())
            if self.session is not None:
                await self.session.send_resource_list_changed()
        if changed:
            await self.bus.publish(ResourceUpdated(uri=self.index_uri))
            if self.session is not None and self.index_uri in self.subscribed:
                await self.session.send_resource_updated(self.index_uri)

    async def run(self) -> None:
        """Look every :attr:`poll_s` until cancelled; a failure to send is logged, never fatal."""
        import anyio

        while True:
            await anyio.sleep(self.poll_s)
            try:
                await self.check()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the client is gone
            except Exception as exc:  # noqa: BLE001 - a notification must never end the server
                log.warning("could not send a change notification: %s: %s", type(exc).__name__, exc)
