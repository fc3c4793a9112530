"""Sources that are folders of Markdown files: Claude Code auto-memory, Basic Memory, plain notes.

One file is one memory in all three; they differ in where the description, type and key come
from:

- **claude-code** (``~/.claude/projects/<project>/memory/``): ``MEMORY.md`` is the index, one
  line per topic file (``- [Title](file.md) — hook``); each topic file has ``name``,
  ``description`` and ``type`` frontmatter. Types: ``user`` and ``feedback`` -> preference
  (who the user is and how they want the work done), ``project`` -> fact (the state of the
  work), or decision when its text is one ("we chose ... because"), ``reference`` -> fact
  (pointers to where things live); another vault-mem type is kept, anything else -> note. The
  key is the file's name without Claude Code's type prefix (``feedback_testing.md`` ->
  ``testing``, underscores -> hyphens; two files that then share a name get ``-2``); the
  description its ``description``, else the index line's hook, else ``name``. MEMORY.md's own
  text is not imported: its headings, its lead-ins ("Topic files in this folder:"), its links
  (a link to a topic file that is gone is listed as skipped). Its other lines (older
  auto-memory kept notes there) are each one memory, typed by what they say.
- **basic-memory**: frontmatter ``title``/``type``/``tags``/``permalink``. The key is the
  permalink (else the path); the description the title; tags add the ``#tags`` of observation
  lines (``- [category] text #tag``); the targets of relations and wiki links
  (``- relates_to [[Target]]``) become ``related:``, the keys those notes get. The type, first
  that holds (:func:`basic_memory_type`): ``type`` when it is a vault-mem type other than note
  (Basic Memory's default); note for an episodic note (``type`` meeting, journal, daily, log...,
  or a folder of those, or a file named by its date); the type most of its observations'
  categories name (``[preference]``, ``[decision]``, ``[fact]``, ``[procedure]``); its folder's
  (``decisions/``); else fact (a person, a project, a concept: what INDEX.md lists). The body
  is kept whole.
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
from vault_mem.model.classify import classify
from vault_mem.model.memory import as_date, suggest_key
from vault_mem.ops.importers import claude_md
from vault_mem.ops.importers.sources import (
    Candidate,
    Found,
    Problem,
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
_CATEGORY = re.compile(r"^\s*[-*]\s+\[([^\]]+)\]\s+\S", re.MULTILINE)
_CLAUDE_PREFIX = re.compile(r"^(?:user|feedback|project|reference)[_-](?=[A-Za-z0-9])")
_EPISODIC = frozenset({"meeting", "meetings", "journal", "journals", "daily", "dailies", "log", "logs",
                       "diary", "standup", "standups", "conversation", "conversations", "session",
                       "sessions", "chat", "chats", "episode", "episodes", "event", "events"})
_DATED = re.compile(r"^\d{4}-\d{2}-\d{2}")
_CATEGORY_TYPES = {"preference": "preference", "preferences": "preference", "decision": "decision",
                   "decisions": "decision", "fact": "fact", "facts": "fact", "procedure": "procedure",
                   "procedures": "procedure", "steps": "procedure", "how-to": "procedure", "howto": "procedure"}


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
        for number, line in enumerate(index.text.splitlines(), 1):
            m = _INDEX_LINK.match(line)
            if not m:
                continue
            target = m.group(2).removeprefix("./")
            if target in present:
                hooks[target] = (m.group(3) or m.group(1)).strip()
            else:
                found.append(Problem(f"{index.path}:{number}", f"points to {target}, which is not in the "
                                     "folder (deleted?): an index line, not a memory", skipped=True))
        # the index's own lines (headings, lead-ins, links) are never memories; the rest are
        for item in claude_md.parse(index.text, str(index.path), tag="claude-code", line_by_line=True,
                                    skip_line=lambda line: bool(_INDEX_LINK.match(line))):
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
        if cc_type == "project" and classify(f"{desc}\n{body}") == "decision":
            type_ = "decision"
        created, updated = _dates(meta, file)
        tags = ["claude-code", *([cc_type] if cc_type else []), *as_tags(meta.get("tags"))]
        found.append(Candidate(str(file.path), claude_code_key(file.rel), type_, desc, body,
                               list(dict.fromkeys(tags)), carried(meta), created, updated))
    return [*found, *problems]


def claude_code_key(rel: str) -> str:
    """A topic file's key: its path without Claude Code's type prefix, underscores as hyphens
    (``feedback_testing.md`` -> ``testing``); uniqueness is the import plan's (``-2``)."""
    folder, _, name = rel.rpartition("/")
    name = _CLAUDE_PREFIX.sub("", name).replace("_", "-")
    return key_from_path(f"{folder}/{name}" if folder else name)


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
        found.append(Candidate(str(file.path), hint, basic_memory_type(meta.get("type"), file.rel, body),
                               desc, body, [t[:64] for t in tags], extra, created, updated))
    return [*found, *problems]


def basic_memory_type(bm_type: Any, rel: str, body: str) -> str:
    """The vault-mem type of a Basic Memory note (see the module docstring): what INDEX.md
    lists unless the note is episodic."""
    given = memory_type(bm_type, "")
    if given and given != "note":
        return given
    parts = rel.lower().split("/")
    label = str(bm_type or "").strip().lower()
    if label in _EPISODIC or any(p in _EPISODIC for p in parts[:-1]) or _DATED.match(parts[-1]):
        return "note"
    categories = [c.strip().lower() for c in _CATEGORY.findall(body)]
    named = [_CATEGORY_TYPES[c] for c in categories if c in _CATEGORY_TYPES]
    if named and len(named) * 2 > len(categories):
        return max(dict.fromkeys(named), key=named.count)
    folder = next((FOLDER_TYPES[p] for p in reversed(parts[:-1]) if p in FOLDER_TYPES), None)
    return folder if folder and folder != "note" else "fact"


# -- a plain folder (or one file) of Markdown ---------------------------------------------------


def markdown(root: Path, *, max_bytes: int) -> Found:
    """A folder of Markdown files, or one file (see the module docstring)."""
    if root.is_file():
        read = read_file(root, root.name, max_bytes=max_bytes)
        files, problems = ([read], []) if isinstance(read, SourceFile) else ([], [read])
    else:
        files, problems = walk(root, suffixes=(".md",), max_bytes=max_bytes)
        files = [f for f in files if _in_vault(root, f.rel) not in _VAULT_GENERATED]
    found: Found = []
    for file, meta, body in _with_frontmatter(files, found):
        parts = (_in_vault(root, file.rel) or file.rel).split("/")
        folder_type = FOLDER_TYPES.get(parts[0]) if len(parts) == 2 else None
        hint = key_from_path(parts[1]) if folder_type else key_from_path(file.rel)
        desc = _describe(meta.get("description"), meta.get("title"), first_heading(body), body,
                         Path(file.rel).stem)
        created, updated = _dates(meta, file)
        found.append(Candidate(str(file.path), hint, memory_type(meta.get("type"), folder_type or "note"),
                               desc, body, as_tags(meta.get("tags")), carried(meta), created, updated))
    return [*found, *problems]


#: the files a vault holds that are no memory: its generated index and its README
_VAULT_GENERATED = frozenset({"INDEX.md", "README.md"})


def _in_vault(root: Path, rel: str) -> str | None:
    """``rel``'s path inside the nearest vault (a folder holding vault.toml) at or under ``root``
    that holds it, or None: a project's ``memory/`` read as its own vault, so its type folders
    give the type and its INDEX.md and README.md are not imported as notes."""
    parts = rel.split("/")
    for depth in range(len(parts) - 1, -1, -1):
        if (root.joinpath(*parts[:depth]) / "vault.toml").is_file():
            return "/".join(parts[depth:])
    return None
