"""The pinned model file read with its sha256 checked once per version of the file, not once per
process.

Hashing the 23 MB model cost 35-39 ms of every cold read that loads it (the prompt hook without
a daemon, a one-shot ``recall``). The check is now made when the file's stamp (device, inode,
size, modification and change time: :class:`~vault_mem.platform.settle.Stamp`) is not the one recorded at the last check
that passed, and the stamp is recorded only after a check passed on bytes read while the stamp
stayed as it was (taken before and after the read, on the open file). The record is
``model-checked.json`` in ``$XDG_CONFIG_HOME/vault-mem/`` (default ``~/.config/vault-mem``, the
folder 0700 where the approvals and the machine key are kept: no commit, clone or peer writes
there), 0600, owned by this user, written through no link; a record that is anything else (a
link, another owner's, writable by others, damaged) is ignored: the file is hashed.

What the stamp catches: any write to the file, in place or by replacing it (a new file has a new
inode, or, reusing a freed one, a change time of its own: the kernel sets a file's change time
at every write, rename and ``utime``, and no call sets it back, so ``touch -r`` restoring the
modification time moves it). A file changed less than :data:`~vault_mem.platform.settle.SETTLE_NS` before its check is
not recorded (hashed again at the next read), so a replacement would have to share the change
time of a version at least that old. The limits, honestly: such a replacement on the same
inode number, with the same size (a clock set back: root); a file system that keeps no change time or
coarse ones (FAT: 2 s); a clock set back (root); writes to the block device under the file
system. And the record is this user's: whoever can write in this user's configuration folder
can also replace vault-mem itself; the check is against damage and mistakes (a partial
download, a wrong version put in place), as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from pathlib import Path

from vault_mem.config import user_config_dir
from vault_mem.platform import settle  # a file changed since is not recorded

__all__ = ["RECORD", "read_checked"]

RECORD = "model-checked.json"


def _own(fd: int) -> bool:
    st = os.fstat(fd)
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def _recorded() -> dict:
    """The record (``{path: [sha256, stamp]}``), {} when there is none or it is not this user's own."""
    folder = user_config_dir()  # None: no home to keep the record in
    try:
        if folder is None or not stat.S_ISDIR(os.lstat(folder).st_mode):
            return {}  # no home, or a link: believed no more than written through
        fd = os.open(folder / RECORD, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return {}
    try:
        if not _own(fd):
            return {}
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = json.loads(fh.read(1 << 20))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}
    finally:
        os.close(fd)


def _record(path: str, sha256: str, st: list[int]) -> None:
    """Record that ``path`` at stamp ``st`` passed its check against ``sha256`` (best effort:
    a folder that cannot be written means the next process hashes again)."""
    folder = user_config_dir()  # None: no home to keep the record in
    if folder is None or time.time_ns() - st[4] < settle.SETTLE_NS:
        return  # no home to keep it in; or changed a moment ago (see settle.SETTLE_NS): hashed next time
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return  # a link: vault-mem writes none of its own files through one
        entries = _recorded()
        entries[path] = [sha256, st]
        tmp = folder / f".{RECORD}.{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            os.write(fd, json.dumps(entries, sort_keys=True).encode())
        finally:
            os.close(fd)
        os.replace(tmp, folder / RECORD)
    except OSError:
        try:
            (folder / f".{RECORD}.{os.getpid()}").unlink(missing_ok=True)
        except OSError:
            pass


def read_checked(path: Path, sha256: str) -> tuple[bytes, bool]:
    """``(the bytes of path, whether they match sha256)``: hashed unless the file's stamp, the
    same before and after the read, is the one recorded at a check against ``sha256`` that
    passed (then they match by that record). Raises OSError when the file cannot be read."""
    fd = os.open(path, os.O_RDONLY)
    try:
        before = list(settle.stamp(os.fstat(fd)))  # a list: as the record's JSON holds it
        with os.fdopen(os.dup(fd), "rb") as fh:
            data = fh.read()
        after = list(settle.stamp(os.fstat(fd)))
    finally:
        os.close(fd)
    key = str(Path(path).resolve())
    if before == after and _recorded().get(key) == [sha256, before]:
        return data, True
    good = hashlib.sha256(data).hexdigest() == sha256
    if good and before == after:
        _record(key, sha256, before)
    return data, good
