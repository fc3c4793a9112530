"""Who is at the other end of the daemon's Unix socket, and the socket's address.

- Linux: ``SO_PEERCRED``;
- macOS and the BSDs: ``getpeereid`` (through ctypes);
- portable: the kernel is not asked (None); the socket is then trusted by where it lives: made
  0600 inside this user's 0700 folder, so no other user can reach it (the callers check both).
"""

from __future__ import annotations

import os
import socket
import stat
import struct
from pathlib import Path

from vault_mem.platform.kind import BSD, LINUX, flavour

_UCRED = struct.Struct("3i")
_getpeereid: list = []


def _bsd_getpeereid():
    import ctypes  # lazy: the BSDs' only (start-up time of a command asking the daemon)

    if not _getpeereid:
        try:
            fn = ctypes.CDLL(None, use_errno=True).getpeereid
            fn.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint32)]
            fn.restype = ctypes.c_int
        except (AttributeError, OSError):
            fn = None
        _getpeereid.append(fn)
    return _getpeereid[0]


def peer_check_native() -> bool:
    """Whether the kernel says who a socket's peer is here (else the folder's modes must)."""
    if flavour() == LINUX:
        return hasattr(socket, "SO_PEERCRED")
    if flavour() == BSD:
        return _bsd_getpeereid() is not None
    return False


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of ``sock``; None where the kernel cannot say."""
    if not peer_check_native():
        return None
    if flavour() == LINUX:
        _pid, uid, _gid = _UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size))
        return uid
    import ctypes  # lazy: as _bsd_getpeereid

    uid, gid = ctypes.c_uint32(), ctypes.c_uint32()
    if _bsd_getpeereid()(sock.fileno(), ctypes.byref(uid), ctypes.byref(gid)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return uid.value


def private_folder(dir_fd: int) -> bool:
    """Whether the folder open as ``dir_fd`` is this user's alone (owned, mode 0700 or
    narrower): a socket inside it can be reached by this user only."""
    st = os.fstat(dir_fd)
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def socket_address(dir_fd: int, folder: Path, name: str) -> str:
    """The address to bind or connect to for the socket ``name`` in the folder open as
    ``dir_fd`` (at ``folder``): through the descriptor on Linux (no link on the way is followed,
    and a deep folder does not run into the ~104-byte limit of a socket address); the plain
    path elsewhere."""
    if flavour() == LINUX:
        return f"/proc/self/fd/{dir_fd}/{name}"
    return str(Path(folder) / name)


def own_umask() -> int:
    """This process's umask (the mode of the files a write makes: a write the daemon makes for a
    command must be made under the command's), read without changing it where
    the system says (``/proc/self/status``), else set and put back."""
    try:
        with open("/proc/self/status", "rb") as f:
            for line in f:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask
