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
each vault (a handful of ``stat`` calls, whatever the vault's size). While the server watches the
vault itself (no daemon: :class:`~vault_mem.daemon.keeper.Keeper`), its watcher's counts say what
changed (:class:`~vault_mem.daemon.watcher.Activity`): any change is an update, and a folder's
names are listed only when a memory file was added, removed or renamed there. A folder's time is
no guide then: each call's fence makes and removes a marker in every folder, and listing 100k
names after every call took ~150 ms of CPU on the server's one thread, the tail of warm recall.
Without a watch of its own (a daemon keeps the index), a memory file written the way vault-mem and
most editors write (a new file renamed into place), added or removed changes its folder; only
then are the folder's names listed, to tell an added or removed memory (list changed) from a
rewritten one. INDEX.md changes with every commit and every reconcile. A file rewritten in place,
with no watch of the server's own, shows once INDEX.md is regenerated. The looking and listing
run on a worker thread, never holding up a call on the server's thread.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_mem.config import TYPE_FOLDERS
from vault_mem.model.indexmd import INDEX_FILE
from vault_mem.model.memory import is_memory_name
from vault_mem.platform import settle  # a file's stat stamp

if TYPE_CHECKING:
    from vault_mem.daemon.watcher import Activity, Seen

log = logging.getLogger(__name__)

#: how often the vaults are looked at (seconds)
POLL_S = 0.5


def _stat(path: Path) -> settle.Stamp | None:
    return settle.stamp_at(path, follow=False)


def _names(folder: Path) -> frozenset[str]:
    try:
        return frozenset(n for n in os.listdir(folder) if is_memory_name(n))
    except OSError:
        return frozenset()


class ChangeNotifier:
    """Watches the vaults at ``roots`` for the server and tells its clients (see the module).
    ``index_uri``: the resource whose subscribers hear of every change. ``activity``: per root,
    what the server's own watcher has seen (None while it does not watch)."""

    def __init__(self, roots: list[Path], index_uri: str, *, poll_s: float = POLL_S,
                 activity: dict[Path, Callable[[], Activity | None]] | None = None) -> None:
        from mcp.server.subscriptions import InMemorySubscriptionBus  # the SDK only when serving

        self.roots = list(roots)
        self.index_uri = index_uri
        self.poll_s = poll_s
        self.activity = activity or {}
        self.bus = InMemorySubscriptionBus()
        self.session: Any = None  # a handshake-era client's session (from notifications/initialized)
        self.subscribed: set[str] = set()
        self.folders = {self._key(r, f): _stat(r / f) for r in self.roots for f in TYPE_FOLDERS.values()}
        self.names: dict[str, frozenset[str]] = {}  # listed by the first look (:meth:`run`), off the call path
        self.index = {r: _stat(r / INDEX_FILE) for r in self.roots}
        #: per root: the watcher's Activity and its counts at the last look (None, None: no watch)
        self.seen: dict[Path, tuple[Activity | None, Seen | None]] = {}
        self._owed = False  # a change while the first look listed the folders (see start)

    @staticmethod
    def _key(root: Path, folder: str) -> str:
        return str(root / folder)

    def start(self) -> None:
        """The first look, off the call path: every folder's names (what later looks are
        compared with) and what each watcher has seen so far. A folder changed since the
        notifier was made may have its change in these names already: its clients hear of a
        change then (maybe none), never miss one."""
        for root in self.roots:
            act = self._activity(root)
            self.seen[root] = (act, act.snapshot() if act is not None else None)
        for key, made in self.folders.items():
            self.names[key] = _names(Path(key))
            if _stat(Path(key)) != made:
                self._owed = True

    def _activity(self, root: Path) -> Activity | None:
        source = self.activity.get(root)
        return source() if source is not None else None

    def changes(self) -> tuple[bool, bool]:
        """``(memories added or removed, anything changed)`` since the last look."""
        listed = changed = self._owed
        self._owed = False
        for root in self.roots:
            act = self._activity(root)
            now_seen = act.snapshot() if act is not None else None
            before, seen_before = self.seen.get(root, (None, None))
            self.seen[root] = (act, now_seen)
            steady = act is not None and act is before  # the same watch since the last look
            if steady and now_seen.changes != seen_before.changes:
                changed = True
            for folder in TYPE_FOLDERS.values():
                key = self._key(root, folder)
                now = _stat(root / folder)
                moved, self.folders[key] = now != self.folders[key], now
                if steady:  # the watcher's counts, not the folder's time (fences move it)
                    relist = now_seen.lost != seen_before.lost or now_seen.names.get(folder) != seen_before.names.get(folder)
                else:  # no watch: the folder's time; a watch that ended may not have told everything
                    changed |= moved
                    relist = moved or before is not None
                if relist:
                    names = _names(Path(key))
                    if names != self.names.get(key):
                        self.names[key], listed, changed = names, True, True
        for root, before_index in self.index.items():
            now = _stat(root / INDEX_FILE)
            if now != before_index:
                self.index[root], changed = now, True
        return listed, changed

    async def check(self) -> None:
        """Look once, and notify what changed."""
        from mcp.server.subscriptions import ResourcesListChanged, ResourceUpdated

        import anyio

        # a worker thread: a listing of a big folder must not hold up the calls on this one
        listed, changed = await anyio.to_thread.run_sync(self.changes)
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

        await anyio.to_thread.run_sync(self.start)
        while True:
            await anyio.sleep(self.poll_s)
            try:
                await self.check()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the client is gone
            except Exception as exc:  # noqa: BLE001 - a notification must never end the server
                log.warning("could not send a change notification: %s: %s", type(exc).__name__, exc)
