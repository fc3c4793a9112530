"""Codex's memories folder (``~/.codex/memories/``): what its memory pipeline writes, mapped.

``~/.codex/memories_v2/`` (newer versions) has the same layout. The layout, as the Codex CLI
writes it (``codex-rs/memories/write``: the consolidation prompt's
formats, ``storage.rs``, the ad-hoc notes extension; checked against the 0.171 binary's prompts):

- ``memory_summary.md``: first line ``v1``, then ``## User Profile`` (prose) -> ONE preference
  ``user-profile``; ``## User preferences`` -> one preference per bullet; ``## General Tips``
  (and any other section) -> one memory per bullet, typed by what it says, else fact;
  ``## What's in Memory`` is Codex's index of its own files: not imported.
- ``MEMORY.md``: blocks ``# Task Group: <name>`` (``scope:``, ``applies_to:``), ``## Task <n>``
  sections of routing (rollout files, keywords: not imported), then ``## User preferences`` ->
  preference per bullet, ``## Reusable knowledge`` and ``## Failures and how to do
  differently`` -> one memory per bullet, typed by what it says, else fact. The group's name
  becomes a tag; the ``[Task 1]`` references are dropped.
- ``rollout_summaries/<timestamp>-<hash>-<slug>.md``: ``thread_id:``, ``updated_at:``,
  ``rollout_path:``, ``cwd:``, ``git_branch:`` lines, a blank line, then the recap of one session
  -> one note (episodic: searchable, not in INDEX.md), key ``<date>-<slug>``, the header lines
  kept as fields, dated by ``updated_at``.
- ``skills/<name>/SKILL.md`` (``name``, ``description`` frontmatter) -> one procedure, whole;
  the skill's other files are listed as skipped.
- ``extensions/ad_hoc/notes/<YYYY-MM-DDTHH-MM-SS>-<slug>.md``: what the user asked Codex to
  remember -> one memory each, key the slug, dated by the name, typed by what it says, else
  fact. A note asking to forget something is listed as skipped (use ``vault-mem forget``).
- ``raw_memories.md``, ``phase2_workspace_diff.md`` and ``extensions/*/instructions.md`` are
  Codex's own working files (their content reaches ``MEMORY.md`` and the rollout summaries):
  listed as skipped; so is another extension's input. Any other Markdown file is a note.
"""

from __future__ import annotations

import re
from pathlib import Path

from vault_mem.errors import MalformedFileError
from vault_mem.model.classify import classify
from vault_mem.model.memory import as_date, suggest_key
from vault_mem.ops.importers.sources import (
    Candidate,
    Found,
    Problem,
    SourceFile,
    first_heading,
    key_from_path,
    key_from_text,
    malformed,
    one_line,
    split_frontmatter,
    walk,
)

SUMMARY = "memory_summary.md"
HANDBOOK = "MEMORY.md"
#: files Codex writes for its own consolidation step: what they hold is in MEMORY.md already
GENERATED = {"raw_memories.md": "Codex's merged input for its consolidation (the content is in MEMORY.md "
                                "and rollout_summaries/)",
             "phase2_workspace_diff.md": "Codex's diff for its consolidation run"}

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_BULLET = re.compile(r"^[-*+][ \t]+\S")
_TASK_REFS = re.compile(r"(?:\s*\[Task \d+\])+\s*$")
_ROLLOUT_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})T\d{2}-\d{2}-\d{2}-(?:[A-Za-z0-9]{4}-)?(.+)$")
_NOTE_NAME = re.compile(r"^(\d{4}-\d{2}-\d{2})T\d{2}-\d{2}-\d{2}-(.+)$")
_HEADER_LINE = re.compile(r"^([a-z_]+):[ \t]*(.*)$")
_FORGET = re.compile(r"^\W*(forget|delete|remove|drop|unlearn|stop remembering|no longer remember)\b", re.IGNORECASE)
_REMEMBER = re.compile(r"^\W*remember(?:\s+that)?\s*:?\s*", re.IGNORECASE)


#: the memory roots Codex keeps under ``~/.codex`` (``memories_v2`` has the same layout)
ROOTS = ("memories", "memories_v2")


def is_codex_folder(path: Path) -> bool:
    """True for a folder laid out as Codex's memories (see the module docstring)."""
    return (path / SUMMARY).is_file() or (path / "raw_memories.md").is_file() \
        or (path / "rollout_summaries").is_dir() or (path.name in ROOTS and path.parent.name == ".codex")


def memories_in(path: Path) -> Path | None:
    """The Codex memories folder inside ``path`` (``~/.codex``), if there is one."""
    return next((path / n for n in ROOTS if (path / n).is_dir() and is_codex_folder(path / n)), None)


def codex(root: Path, *, max_bytes: int) -> Found:
    """The memories in Codex's memories folder ``root`` (see the module docstring)."""
    files, problems = walk(root, suffixes=(".md",), max_bytes=max_bytes)
    found: Found = []
    for file in files:
        rel = file.rel
        parts = rel.split("/")
        if rel == SUMMARY:
            found.extend(_summary(file))
        elif rel == HANDBOOK:
            found.extend(_handbook(file))
        elif rel in GENERATED:
            found.append(Problem(str(file.path), f"is {GENERATED[rel]}: not imported", skipped=True))
        elif parts[0] == "rollout_summaries" and len(parts) == 2:
            found.append(_rollout(file))
        elif parts[0] == "skills" and len(parts) > 2:
            found.append(_skill(file) if len(parts) == 3 and parts[2] == "SKILL.md" else
                         Problem(str(file.path), f"is a file of the skill '{parts[1]}': only its SKILL.md "
                                 "is imported", skipped=True))
        elif parts[0] == "extensions" and len(parts) == 4 and parts[1] == "ad_hoc" and parts[2] == "notes":
            found.append(_ad_hoc(file))
        elif parts[0] == "extensions":
            found.append(Problem(str(file.path), "is a Codex memory extension's instructions or input, not a "
                                 "memory: not imported", skipped=True))
        else:
            found.append(_other(file))
    return [*found, *problems]


def _items(text: str) -> list[tuple[str, str, int, str]]:
    """(``#`` heading, ``##`` heading, line number, text) of each bullet (with its indented
    continuation) and each paragraph of running text."""
    out: list[tuple[str, str, int, str]] = []
    h1 = h2 = ""
    current: list[str] | None = None
    for number, line in enumerate(text.splitlines(), 1):
        m = _HEADING.match(line)
        if m:
            current = None
            if len(m.group(1)) == 1:
                h1, h2 = m.group(2).strip(), ""
            elif len(m.group(1)) == 2:
                h2 = m.group(2).strip()
            continue
        if not line.strip():
            current = None
        elif _BULLET.match(line) or current is None:
            current = [line]
            out.append((h1, h2, number, ""))
        else:
            current.append(line)
        if current is not None:
            out[-1] = (*out[-1][:3], "\n".join(current))
    return out


def _candidate(file: SourceFile, number: int, text: str, type_: str, tags: list[str]) -> Candidate:
    text = _TASK_REFS.sub("", text.rstrip())
    desc = one_line(text)
    plain = " ".join(text.split()).lstrip("-*+ ")
    body = text.strip() + "\n" if "\n" in text.strip() or len(desc) < len(plain) else ""
    return Candidate(f"{file.path}:{number}", key_from_text(desc), type_, desc, body, tags,
                     created=file.modified, updated=file.modified)


def _summary(file: SourceFile) -> Found:
    found: Found = []
    profile: list[tuple[int, str]] = []
    for _, section, number, text in _items(file.text):
        name = section.lower()
        if not section and text.strip() == "v1":
            continue
        if name == "user profile":
            profile.append((number, text))
        elif name.startswith(("what's in memory", "what’s in memory")):
            continue  # Codex's index of its own rollout summaries
        elif name == "user preferences":
            found.append(_candidate(file, number, text, "preference", ["codex"]))
        else:
            found.append(_candidate(file, number, text, classify(text) or "fact", ["codex"]))
    if profile:
        body = "\n".join(text for _, text in profile).strip() + "\n"
        found.insert(0, Candidate(f"{file.path}:{profile[0][0]}", "user-profile", "preference",
                                  one_line(body), body, ["codex", "user-profile"],
                                  created=file.modified, updated=file.modified))
    return found


def _handbook(file: SourceFile) -> Found:
    found: Found = []
    for group, section, number, text in _items(file.text):
        name = section.lower()
        if not section or name.startswith("task ") or re.match(r"^(scope|applies_to):", text.strip()):
            continue  # the block's header lines and its task routing (rollout files, keywords)
        tags = ["codex", *([suggest_key(group.split(":", 1)[-1])[:64]] if group else [])]
        type_ = "preference" if name == "user preferences" else classify(_TASK_REFS.sub("", text)) or "fact"
        found.append(_candidate(file, number, text, type_, tags))
    return found


def _header(text: str) -> tuple[dict[str, str], str]:
    """The ``name: value`` lines that open a Codex file, and the rest (after the blank line)."""
    fields: dict[str, str] = {}
    lines = text.splitlines(keepends=True)
    start = 0
    for start, line in enumerate(lines):
        m = _HEADER_LINE.match(line.rstrip("\r\n"))
        if not (m and m.group(2)):
            break
        fields[m.group(1)] = m.group(2).strip()
    else:
        start = len(lines)
    if start < len(lines) and not lines[start].strip():
        start += 1
    return fields, "".join(lines[start:]) if fields else text


def _rollout(file: SourceFile) -> Candidate:
    fields, body = _header(file.text)
    stem = Path(file.rel).stem
    m = _ROLLOUT_NAME.match(stem)
    key = suggest_key(f"{m.group(1)}-{m.group(2)}") if m else key_from_path(stem)
    day = as_date(fields.get("updated_at")) or (as_date(m.group(1)) if m else None) or file.modified
    extra = {k: v for k, v in fields.items() if k != "updated_at"}
    desc = one_line(first_heading(body) or body or stem)
    return Candidate(str(file.path), key, "note", desc, body, ["codex", "rollout"], extra, day, day)


def _skill(file: SourceFile) -> Candidate | Problem:
    try:
        meta, body = split_frontmatter(file.text)
    except MalformedFileError as exc:
        return malformed(str(file.path), exc)
    name = meta.get("name") if isinstance(meta.get("name"), str) else file.rel.split("/")[1]
    desc = next((one_line(v) for v in (meta.get("description"), name) if isinstance(v, str) and v.strip()), name)
    return Candidate(str(file.path), suggest_key(name), "procedure", desc, body, ["codex", "skill"],
                     created=file.modified, updated=file.modified)


def _ad_hoc(file: SourceFile) -> Candidate | Problem:
    stem = Path(file.rel).stem
    text = file.text.strip()
    if _FORGET.match(text):
        return Problem(str(file.path), f"asks Codex to forget something ('{one_line(text, limit=60)}'): not a "
                       "memory; if the vault holds it, take it out with `vault-mem forget KEY`", skipped=True)
    said = _REMEMBER.sub("", text, count=1)
    said = said[:1].upper() + said[1:]
    m = _NOTE_NAME.match(stem)
    day = as_date(m.group(1)) if m else file.modified
    desc = one_line(said)
    body = said + "\n" if "\n" in said or len(desc) < len(" ".join(said.split())) else ""
    return Candidate(str(file.path), suggest_key(m.group(2)) if m else key_from_path(file.rel),
                     classify(said) or "fact", desc, body, ["codex", "ad-hoc"], created=day, updated=day)


def _other(file: SourceFile) -> Candidate | Problem:
    try:
        meta, body = split_frontmatter(file.text)
    except MalformedFileError as exc:
        return malformed(str(file.path), exc)
    desc = next((one_line(v) for v in (meta.get("description"), first_heading(body), body)
                 if isinstance(v, str) and v.strip()), Path(file.rel).stem)
    return Candidate(str(file.path), key_from_path(file.rel), "note", desc, body, ["codex"],
                     created=file.modified, updated=file.modified)
