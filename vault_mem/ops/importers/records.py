"""JSON and JSONL sources: mem0-style records, generic records, and vault-mem's own export.

The file is one JSON document (an array of records, or an object holding one under
``results``/``memories``/``items``, or a single record), else JSON Lines (one record a line; a
line that is not JSON is refused with its number, the others imported). A record is:

- **vault-mem's export** (``key``, ``type``, ``meta`` with ``description``, ``body``): restored
  as it was, every frontmatter field included (text that is exactly ``YYYY-MM-DD`` becomes a
  date again, as YAML wrote it). It is a backup coming home, so no ``source``/``origin`` is
  added: export, then import into a fresh vault, gives the same memories. A record the export
  marked ``"trusted": false`` (a peer's memory, not approved where it was exported) is read as
  any other tool's record: its author is named and its ``pinned`` dropped (plan.py, step 5).
- **mem0-style** or generic: the text is ``memory`` (else ``text``, ``content``, ``body``); the
  description is ``description``/``title``/``name``, else the text's first line (the whole
  text becomes the body when it does not fit in one description line); the type is ``type``
  or ``metadata.type`` when it is a vault-mem type, else fact; tags from ``tags``,
  ``metadata.tags`` and ``categories``; dates from ``created_at``/``updated_at`` (or
  ``created``/``updated``); ``user_id``, ``agent_id``, ``run_id`` and the plain fields of
  ``metadata`` are kept as frontmatter fields; the origin is ``<file>#<id>`` when the record has
  an ``id``, else ``<file>:<line>``. The key is ``key`` when given, else made from the text.
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

from vault_mem.errors import UnreadableJSONError
from vault_mem.model.memory import as_date
from vault_mem.ops.importers.markdown import carried, memory_type
from vault_mem.ops.importers.sources import (
    Candidate,
    Found,
    Problem,
    SourceFile,
    as_tags,
    key_from_text,
    one_line,
    read_file,
)
from vault_mem.store.jsonfiles import parse_json

#: a JSON export is read whole: larger files are refused (split them, or use JSONL per part)
MAX_RECORDS_BYTES = 64 * 1024 * 1024
_TEXT_FIELDS = ("memory", "text", "content", "body")
_LIST_KEYS = ("results", "memories", "items", "data")
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def records(path: Path) -> Found:
    """The memories in a JSON or JSONL file (see the module docstring)."""
    read = read_file(path, path.name, max_bytes=MAX_RECORDS_BYTES)
    if isinstance(read, Problem):
        return [read]
    found: Found = []
    for where, record in _records(read, found):
        found.append(record_candidate(record, f"{path}{where}") if isinstance(record, dict) else
                     Problem(f"{path}{where}", "is not a JSON object (a record needs 'memory' or 'text')"))
    return found


def _records(file: SourceFile, found: Found):
    text = file.text.strip()
    if text[:1] in "[{":
        try:  # the one reader of JSON another program wrote (nested past the parser's depth too)
            doc = parse_json(text, what=str(file.path))
        except UnreadableJSONError:
            doc = None  # JSON Lines whose first record is an object
        else:
            if isinstance(doc, dict):
                inner = next((doc[k] for k in _LIST_KEYS if isinstance(doc.get(k), list)), None)
                doc = inner if inner is not None else [doc]
            if isinstance(doc, list):
                yield from ((f"[{i}]", r) for i, r in enumerate(doc))
                return
    for number, line in enumerate(file.text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = parse_json(line, what="it", then="fix that line")
        except UnreadableJSONError as exc:  # "it is not valid JSON (...); fix that line"
            found.append(Problem(f"{file.path}:{number}", f"is not JSON{str(exc).removeprefix('it is not valid JSON')[:160]}"))
            continue
        yield f":{number}", record


def record_candidate(rec: dict[str, Any], origin: str) -> Candidate | Problem:
    """One record as a memory, or the reason it cannot be one."""
    meta = rec.get("meta")
    if isinstance(rec.get("key"), str) and isinstance(meta, dict) and isinstance(meta.get("description"), str):
        restored = {str(k): _restore_dates(v) for k, v in meta.items()}
        peer = rec.get("trusted") is False
        return Candidate(origin, rec["key"], memory_type(rec.get("type"), "note"), restored["description"],
                         str(rec.get("body") or ""), restore=restored,
                         peer=(str(rec.get("author") or "unknown")[:254] if peer else None))
    text = next((rec[k] for k in _TEXT_FIELDS if isinstance(rec.get(k), str) and rec[k].strip()), None)
    given = next((rec[k] for k in ("description", "title", "name") if isinstance(rec.get(k), str)
                  and rec[k].strip()), None)
    if text is None and given is None:
        return Problem(origin, "has no text ('memory', 'text' or 'content'); nothing to import")
    metadata = rec.get("metadata") if isinstance(rec.get("metadata"), dict) else {}
    desc = one_line(given or text or "")
    body = text or ""
    if given is None and body.strip() == desc:
        body = ""  # the whole text is the description
    if isinstance(rec.get("id"), (str, int)) and str(rec["id"]).strip():
        origin = f"{_file_of(origin)}#{rec['id']}"
    extra = {**carried(metadata, drop=frozenset({"title", "name", "categories"})),
             **{k: rec[k] for k in ("user_id", "agent_id", "run_id") if isinstance(rec.get(k), str) and rec[k]}}
    tags = as_tags(rec.get("tags")) + as_tags(metadata.get("tags")) + as_tags(rec.get("categories"))
    created = as_date(rec.get("created_at")) or as_date(rec.get("created"))
    updated = as_date(rec.get("updated_at")) or as_date(rec.get("updated"))
    key = rec.get("key") if isinstance(rec.get("key"), str) and rec["key"].strip() else key_from_text(desc)
    return Candidate(origin, key, memory_type(rec.get("type") or metadata.get("type"), "fact"), desc, body,
                     list(dict.fromkeys(tags)), extra, created, updated)


def _file_of(origin: str) -> str:
    """``/a/b.jsonl`` from ``/a/b.jsonl:3`` or ``/a/b.json[3]``."""
    return re.sub(r"(?::\d+|\[\d+\])$", "", origin)


def _restore_dates(value: Any) -> Any:
    if isinstance(value, str) and _ISO_DAY.fullmatch(value):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            return value
    if isinstance(value, list):
        return [_restore_dates(v) for v in value]
    return value
