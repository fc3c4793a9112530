"""``vault-mem export``: every memory as JSON, for a backup, another tool, or a fresh vault.

One record per memory: ``key``, ``type``, ``path``, ``description``, ``created``, ``updated``,
``source``, ``tags``, ``meta`` (every frontmatter field, in file order, dates as ISO text) and
``body`` (:meth:`Memory.to_dict`), and who wrote it: ``author`` (the email) and ``trusted``
(whether that author's memories reach an agent unasked here). ``vault-mem import`` reads these records back as they were
(see :mod:`vault_mem.ops.importers.records`), so export then import into a fresh vault gives
the same memories. Memories are in INDEX.md order (type, then key); expired ones are included.
A file the index cannot use (it does not parse, or it is quarantined: a hand edit holding a
credential) is not exported: it is named in the problems, so a
credential never leaves the vault through an export.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_mem.errors import UsageError, VaultMemError
from vault_mem.model.names import after_name, quoted, visible_json
from vault_mem.store.files import atomic_write

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

FORMATS = ("json", "jsonl")


def export_memories(vault: Vault, *, type: str | None = None) -> tuple[list[dict[str, Any]], list[str]]:
    """(records, problems): every usable memory (optionally of one type) as a record, and one
    line per memory file that was left out, with why."""
    out: list[dict[str, Any]] = []
    problems: list[str] = []
    entries = vault.list(type=type)  # reconciles first: the records are the files now
    who = vault.authors([e["path"] for e in entries])
    for entry in entries:
        rel = entry["path"]
        try:
            # the vault's reader refuses a file holding a credential (quarantined): it stays home
            # who wrote it goes with it: restored elsewhere, a peer's pinned memory would be the
            # person's (the import's commit is that machine's), pinned, with no trace of whose
            out.append({**vault.read_memory(rel).to_dict(), "author": who[rel].email, "trusted": who[rel].trusted})
        except VaultMemError as exc:
            problems.append(f"{quoted(rel)}: {after_name(str(exc), rel)}")
    problems.extend(f"{quoted(p.path)}: {p.reason}" for p in vault.sidecar.problems())
    return out, problems


def render(records: list[dict[str, Any]], fmt: str) -> str:
    """The export's text: one JSON array (``json``), or one record a line (``jsonl``)."""
    if fmt not in FORMATS:
        raise UsageError(f"unknown export format '{fmt}': use json or jsonl")
    if fmt == "json":
        return visible_json(json.dumps(records, ensure_ascii=False, indent=2)) + "\n"
    return "".join(visible_json(json.dumps(r, ensure_ascii=False)) + "\n" for r in records)


def write_export(text: str, dest: str | Path) -> Path:
    """Write the export to ``dest`` atomically (a reader never sees half of it), readable by
    this user alone whatever the umask: it holds every memory's text, which the vault keeps in a
    folder closed to other users (``init``), and ``-o /tmp/backup.jsonl`` under the usual umask
    let any local user read it. Returns the path."""
    path = Path(dest).expanduser()
    if path.is_dir():
        raise UsageError(f"{dest} is a folder; give a file name for the export (-o FILE)")
    atomic_write(path, text.encode("utf-8"), mode=0o600)
    return path.resolve()
