"""Sources that are folders of Markdown files: Claude Code auto-memory, Basic Memory, plain notes.

One file is one memory in all three; they differ in where the description, type and key come
from:

- **claude-code** (``~/.claude/projects/<project>/memory/``): ``MEMORY.md`` is the index, one
  line per topic file (``- [Title](file.md) — hook``); each topic file has ``name``,
  ``description`` and ``type`` frontmatter. Types: ``user`` and ``feedback`` -> preference
  (who the user is and how they want the work done), ``project`` and ``reference`` -> fact
  (the state of the work, pointers to where things live); another vault-mem type is kept,
  anything else -> note. The key is the file's name; the description its ``description``, else
  the index line's hook, else ``name``. MEMORY.md lines that are not links to a topic file
  (older auto-memory kept notes there) are imported like CLAUDE.md lines.
- **basic-memory**: frontmatter ``title``/``type``/``tags``/``permalink``. The key is the
  permalink (else the path); the description the title; tags add the ``#tags`` of observation
  lines (``- [category] text #tag``); the targets of relations and wiki links
  (``- relates_to [[Target]]``) become ``related:``, the keys those notes get; the type is
  ``type`` when it is a vault-mem type, else note. The body is kept whole.
- **markdown**: the key is the path (``a/b.md`` -> ``a-b``), or the name alone inside a type
  folder (``facts/x.md`` -> fact ``x``, so another vault-mem vault imports as it was); the
  description is ``description``, else ``title``, else the first heading, else the first line;
  the type is ``type`` when valid, else the type folder, else note.

Everywhere: ``created``/``updated`` from the frontmatter when they are dates, else the file's
modification date; other frontmatter fields with plain names and values are kept.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from vault_mem.config import FOLDER_TYPES, TYPE_FOLDERS
from vault_mem.errors import MalformedFileError
from vault_mem.model.memory import as_date, suggest_key
from vault_mem.ops.importers import claude_md
from vault_mem.ops.importers.sources import (
    Candidate,
    Found,
    SourceFile,
    as_tags,
    first_heading,
    key_from_path,
    malformed,
    one_line,
    read_file,
    split_frontmatter,
    walk,
)

CLAUDE_TYPES = {"user": "preference", "feedback": "preference", "project": "fact", "reference": "fact"}
MEMORY_INDEX = "MEMORY.md"

#: fields every importer sets itself: a source's own values for them are not carried over
_OWN = frozenset({"description", "created", "updated", "source", "tags", "type", "origin"})
_FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_INDEX_LINK = re.compile(r"^\s*[-*+]\s+\[([^\]]+)\]\(([^)\s]+\.md)\)\s*(?:[—–:-]+\s*(.*))?$")
_WIKI_LINK = re.compile(r"\[\[([^\]|#]+)(?:[|#][^\]]*)?\]\]")
_OBS_TAG = re.compile(r"(?:^|\s)#([\w][\w/-]*)")
_OBSERVATION = re.compile(r"^\s*[-*]\s+\[[^\]]+\]\s+(.*)$", re.MULTILINE)


def memory_type(value: Any, default: str) -> str:
    """``value`` when it names a vault-mem type (``fact`` or ``facts``), else ``default``."""
    if isinstance(value, str):
        v = value.strip().lower()
        if v in TYPE_FOLDERS:
            return v
        if v in FOLDER_TYPES:
            return FOLDER_TYPES[v]
    return default


def carried(meta: dict[str, Any], drop: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The frontmatter fields kept as they are: plain names, plain values (text, numbers,
    booleans, dates, lists of those), none that an importer sets itself."""

    def plain(v: Any) -> bool:
        if isinstance(v, (list, tuple)):
            return all(isinstance(i, (str, int, float, bool, dt.date)) for i in v)
        return isinstance(v, (str, int, float, bool, dt.date))

    return {k: v for k, v in meta.items()
            if isinstance(k, str) and _FIELD_NAME.fullmatch(k) and k not in _OWN and k not in drop
            and v is not None and v != "" and plain(v)}


def _dates(meta: dict[str, Any], file: SourceFile) -> tuple[dt.date, dt.date]:
    created = as_date(meta.get("created")) or as_date(meta.get("date")) or file.modified
    updated = as_date(meta.get("updated")) or as_date(meta.get("modified")) or file.modified
    return created, max(created, updated)


def _describe(*choices: Any) -> str:
    for choice in choices:
        if isinstance(choice, str) and choice.strip():
            return one_line(choice)
    return ""


# -- claude-code --------------------------------------------------------------------------------


def claude_code(root: Path, *, max_bytes: int) -> Found:
    """Claude Code's auto-memory folder (see the module docstring)."""
    found: Found = []
    hooks: dict[str, str] = {}
    index = read_file(root / MEMORY_INDEX, MEMORY_INDEX, max_bytes=max_bytes) \
        if (root / MEMORY_INDEX).exists() else None
    files, problems = walk(root, suffixes=(".md",), max_bytes=max_bytes, skip_top=frozenset({MEMORY_INDEX}))
    present = {f.rel for f in files}
    if isinstance(index, SourceFile):
        for line in index.text.splitlines():
            m = _INDEX_LINK.match(line)
            if m and m.group(2).removeprefix("./") in present:
                hooks[m.group(2).removeprefix("./")] = (m.group(3) or m.group(1)).strip()

        def is_link(line: str) -> bool:
            m = _INDEX_LINK.match(line)
            return bool(m and m.group(2).removeprefix("./") in present)

        for item in claude_md.parse(index.text, str(index.path), default_type="preference", tag="claude-code",
                                    skip_line=is_link):
            if isinstance(item, Candidate):
                item.created = item.updated = index.modified
            found.append(item)
    elif index is not None:
        found.append(index)
    for file, meta, body in _with_frontmatter(files, found):
        cc_type = str(meta.get("type") or "").strip().lower()
        type_ = CLAUDE_TYPES.get(cc_type) or memory_type(cc_type, "note")
        desc = _describe(meta.get("description"), hooks.get(file.rel), meta.get("name"),
                         first_heading(body), body)
        created, updated = _dates(meta, file)
        tags = ["claude-code", *([cc_type] if cc_type else []), *as_tags(meta.get("tags"))]
        found.append(Candidate(str(file.path), key_from_path(file.rel), type_, desc, body,
                               list(dict.fromkeys(tags)), carried(meta), created, updated))
    return [*found, *problems]


def _with_frontmatter(files: list[SourceFile], found: Found) -> Iterator[tuple[SourceFile, dict[str, Any], str]]:
    """Each of ``files`` with its frontmatter and body; a file whose frontmatter is broken is
    added to ``found`` as a problem instead."""
    for file in files:
        try:
            meta, body = split_frontmatter(file.text)
        except MalformedFileError as exc:
            found.append(malformed(str(file.path), exc))
            continue
        yield file, meta, body


# -- basic-memory -------------------------------------------------------------------------------


def basic_memory(root: Path, *, max_bytes: int) -> Found:
    """A Basic Memory project folder (see the module docstring)."""
    files, problems = walk(root, suffixes=(".md",), max_bytes=max_bytes)
    found: Found = []
    parsed: list[tuple[SourceFile, dict[str, Any], str, str]] = []
    by_title: dict[str, str] = {}
    for file, meta, body in _with_frontmatter(files, found):
        permalink = meta.get("permalink")
        hint = suggest_key(permalink.replace("/", "-")) if isinstance(permalink, str) and permalink.strip() \
            else key_from_path(file.rel)
        title = str(meta.get("title") or Path(file.rel).stem)
        by_title.setdefault(title.strip().lower(), hint)
        parsed.append((file, meta, body, hint))
    for file, meta, body, hint in parsed:
        tags = as_tags(meta.get("tags"))
        for obs in _OBSERVATION.findall(body):
            tags.extend(t for t in _OBS_TAG.findall(obs) if t not in tags)
        related = []
        for target in _WIKI_LINK.findall(body):
            key = by_title.get(target.strip().lower()) or suggest_key(target)
            if key != hint and key not in related:
                related.append(key)
        extra = carried(meta, drop=frozenset({"title"}))
        if related:
            extra["related"] = related
        created, updated = _dates(meta, file)
        desc = _describe(meta.get("title"), first_heading(body), body, Path(file.rel).stem)
        found.append(Candidate(str(file.path), hint, memory_type(meta.get("type"), "note"), desc, body,
                               [t[:64] for t in tags], extra, created, updated))
    return [*found, *problems]


# -- a plain folder (or one file) of Markdown ---------------------------------------------------


def markdown(root: Path, *, max_bytes: int) -> Found:
    """A folder of Markdown files, or one file (see the module docstring)."""
    if root.is_file():
        read = read_file(root, root.name, max_bytes=max_bytes)
        files, problems = ([read], []) if isinstance(read, SourceFile) else ([], [read])
    else:
        is_vault = (root / "vault.toml").is_file()
        files, problems = walk(root, suffixes=(".md",), max_bytes=max_bytes,
                               skip_top=frozenset({"INDEX.md", "README.md"}) if is_vault else frozenset())
    found: Found = []
    for file, meta, body in _with_frontmatter(files, found):
        parts = file.rel.split("/")
        folder_type = FOLDER_TYPES.get(parts[0]) if len(parts) == 2 else None
        hint = key_from_path(parts[1]) if folder_type else key_from_path(file.rel)
        desc = _describe(meta.get("description"), meta.get("title"), first_heading(body), body,
                         Path(file.rel).stem)
        created, updated = _dates(meta, file)
        found.append(Candidate(str(file.path), hint, memory_type(meta.get("type"), folder_type or "note"),
                               desc, body, as_tags(meta.get("tags")), carried(meta), created, updated))
    return [*found, *problems]
