"""What the file watcher can be told: Linux's inotify reports "closed after write", the moment a
save is complete; macOS's FSEvents and the BSDs' kqueue report only "modified", so there a
modified file counts as changed once its events settle (the watcher's debounce)."""

from __future__ import annotations

from vault_mem.platform.kind import LINUX, flavour


def close_events_native() -> bool:
    """Whether the file watcher is told when a file written to is closed (else it acts on
    modified events, after they settle)."""
    return flavour() == LINUX
