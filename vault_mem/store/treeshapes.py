"""The shape of the big folder trees this vault's writes made, so the next process need not parse them.

A write splices one entry into its type folder's tree (:class:`~vault_mem.store.tree.ParsedTree`).
A warm process keeps the parsed tree; a one-shot command (``vault-mem remember`` without a
daemon) parsed the whole folder every time to find where one entry goes: ~2 ms of CPU at 4.4k
entries, ~20 at 44k (issue 29: "the type folder's tree is not re-parsed per process"). What the
splice needs is each entry's length; with those, :meth:`ParsedTree.from_sizes` reads only the
entries a binary search visits.

So each write that makes a folder tree of :data:`MIN_ENTRIES` or more records that tree's entry
lengths under its object id, in ``.vault-mem/trees/<folder>`` (one record per folder: the last
tree written there), signed with this machine's key (:func:`~vault_mem.store.trust.seal`): a
record is used only for the very tree it names, and one planted, copied from elsewhere or
damaged counts as none (the tree is parsed, as before). The records are a cache, written
without fsync; losing one costs the next write one parse.
"""

from __future__ import annotations

import array
import re
import sys
from pathlib import Path

from vault_mem.errors import VaultMemError
from vault_mem.store.files import PRIVATE_FILE, ensure_own_dir, read_own, replace_file
from vault_mem.store.trust import seal, unseal

#: under .vault-mem/: one record per folder
SHAPES_DIR = "trees"
#: a smaller tree is parsed, not recorded (a folder of 1k entries parses in ~0.4 ms)
MIN_ENTRIES = 1000
#: the seal's kind: a record of another kind does not pass for one of these
KIND = "tree-shape"
#: a folder recorded: the plain names of a vault's folders (a project vault's "memory/facts")
_FOLDER = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)*")
_OID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
#: entry lengths as unsigned 16-bit numbers, little-endian (a plain entry is at most ~300 bytes)
_ITEM = "H"


class TreeShapes:
    """The records of the vault at ``root`` (``state_dir``: its ``.vault-mem``)."""

    def __init__(self, root: Path, state_dir: Path):
        self.root = root
        self.folder = state_dir / SHAPES_DIR

    def _path(self, folder: str) -> Path | None:
        folder = folder.strip("/")
        return self.folder / folder.replace("/", "--") if _FOLDER.fullmatch(folder) else None

    def sizes(self, folder: str, oid: str) -> list[int] | None:
        """The entry lengths recorded for the tree ``oid`` at ``folder``, or None (no record,
        one for another tree, one not signed here)."""
        path = self._path(folder)
        if path is None:
            return None
        try:
            raw = read_own(path)
        except (OSError, VaultMemError):
            return None
        payload = unseal(self.root, KIND, raw) if raw else None
        if not payload or payload.get("folder") != folder.strip("/") or payload.get("tree") != oid:
            return None
        try:
            items = array.array(_ITEM, bytes.fromhex(payload["sizes"]))
        except (KeyError, TypeError, ValueError):
            return None
        if sys.byteorder != "little":
            items.byteswap()
        return items.tolist()

    def record(self, folder: str, oid: str, sizes: list[int]) -> None:
        """Keep ``sizes`` as the shape of the tree ``oid`` at ``folder`` (when it is big enough
        to be worth it); best effort: a full or read-only disk leaves the record as it was."""
        path = self._path(folder)
        if path is None or len(sizes) < MIN_ENTRIES or not _OID.fullmatch(oid):
            return
        try:
            items = array.array(_ITEM, sizes)
        except OverflowError:
            return
        if sys.byteorder != "little":
            items.byteswap()
        data = seal(self.root, KIND, {"folder": folder.strip("/"), "tree": oid, "sizes": items.tobytes().hex()})
        try:
            ensure_own_dir(self.folder)
            replace_file(path, data, mode=PRIVATE_FILE)
        except (OSError, VaultMemError):
            pass
