"""Which implementation each OS-specific mechanism uses here, and where a guarantee is weaker
for it (for ``vault-mem doctor``)."""

from __future__ import annotations

import sys

from vault_mem.platform.durable import full_fsync_native
from vault_mem.platform.events import close_events_native
from vault_mem.platform.folders import folder_stats_native
from vault_mem.platform.heap import trim_native
from vault_mem.platform.kind import LINUX, PORTABLE_ENV, flavour, portable
from vault_mem.platform.locking import available
from vault_mem.platform.peers import peer_check_native
from vault_mem.platform.procs import cwd_native, proc_native
from vault_mem.platform.rename import exchange_native
from vault_mem.platform.writers import leases_native, lsof_available

NATIVE, PORTABLE = "native", "portable"

#: mechanism -> what the portable implementation gives up (said by doctor when it is in use)
WEAKER = {
    "checked_rename": "the checked write swaps files by rename-aside and hard link: a save by rename "
                      "is still never overwritten, but the file's name is missing for two system calls",
    "write_leases": "an editor's in-place save that starts while an agent write swaps the file is not "
                    "seen; the compare of the bytes alone protects it",
    "process_scan": "running git commands and process start times come from ps (and lsof for working "
                    "folders): slower, and without lsof a git command anywhere counts as one here",
    "peer_credentials": "the daemon socket's peer is not checked by the kernel: only its 0600 mode "
                        "inside this user's 0700 folder keeps other users out",
    "close_events": "a hand edit is noticed from modified events once they settle, not when the file "
                    "is closed",
    "malloc_trim": "memory freed after the model load is not handed back to the system at once",
    "full_fsync": "on macOS a plain fsync reaches only the drive's cache: a power cut can lose the "
                  "last writes",
    "folder_stats": "a read without a daemon stats each memory file by its full path, not relative to "
                    "its open folder: the same answers, slower in a big vault",
}
#: said when this system has no file locks at all (Windows)
NO_LOCKS = "no file locks on this system: vault-mem's commands need a POSIX system (use WSL on Windows)"


def mechanisms() -> dict[str, str]:
    """Each OS-specific mechanism -> :data:`NATIVE` or :data:`PORTABLE`, as used right now."""
    native = {
        "checked_rename": exchange_native(),
        "write_leases": leases_native(),
        "process_scan": proc_native(),
        "peer_credentials": peer_check_native(),
        "close_events": close_events_native(),
        "malloc_trim": trim_native(),
        "full_fsync": full_fsync_native() or flavour() == LINUX,
        "folder_stats": folder_stats_native(),
    }
    if portable():
        native = dict.fromkeys(native, False)
    return {name: NATIVE if ok else PORTABLE for name, ok in native.items()}


def summary() -> dict[str, object]:
    """What ``doctor --json`` shows: the implementations in use and where guarantees are weaker."""
    mech = mechanisms()
    weaker = [f"{name}: {WEAKER[name]}" for name, how in mech.items() if how == PORTABLE
              and (name != "full_fsync" or sys.platform == "darwin")
              and (name != "process_scan" or not cwd_native())
              and (name != "write_leases" or not lsof_available())]
    if mech["write_leases"] == PORTABLE and lsof_available():
        weaker.append("write_leases: an in-place save under way is found with lsof (slower than a lease)")
    if mech["process_scan"] == PORTABLE and cwd_native():
        weaker.append("process_scan: running git commands and process start times come from ps and lsof "
                      "(slower than /proc)")
    if not available():
        weaker.append(f"file_locks: {NO_LOCKS}")
    return {"flavour": flavour(), "forced_portable": portable(), "switch": PORTABLE_ENV,
            "mechanisms": mech, "weaker": weaker}
