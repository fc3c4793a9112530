"""git's object ids, computed without git or GitPython: the one home of the rule, used by the git
store (:class:`~vault_mem.store.gitobjects.GitObjects`) and by the sidecar's scan, which loads
no GitPython (a read that only checks files stays light)."""

from __future__ import annotations

import hashlib


def blob_id(data: bytes) -> str:
    """The id git gives a blob holding ``data`` (``git hash-object``; nothing is written)."""
    sha = hashlib.sha1(b"blob %d\0" % len(data))  # noqa: S324 - git's object id, not a security hash
    sha.update(data)
    return sha.hexdigest()
