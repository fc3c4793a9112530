"""Reading an import source safely, and the shapes every source parser returns.

A source is a folder or a file the person named on the command line: data, never instructions
(DESIGN §7). It is read with these rules, the same for every kind of source:

- the named path itself is resolved (the person chose it, link or not), unless a link on its way
  is one a commit holds (a teammate's, pointing where its author chose: refused by name,
  :func:`vault_mem.ops.importers.plan.import_source`); inside a folder nothing is followed: a
  symlinked file or folder, or a file whose folder is reached through one (a committed
  ``.claude -> ~/.claude``), is listed as skipped, wherever it points, so an import never reads
  outside the folder it was given;
- hidden entries (``.git``, ``.obsidian``, ``.basic-memory``, ``.vault-mem``, editor swap files)
  are not read; only regular files with the kind's suffixes are;
- a file over the size limit is refused before it is read; a file that is not UTF-8 text, or
  holds NUL bytes, is refused with the offset of the bad byte; either way the rest is imported;
- at most :data:`MAX_FILES` files: pointing the import at a home folder stops with a message.
"""

from __future__ import annotations

import datetime as dt
import errno
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vault_mem.errors import MalformedFileError, UsageError
from vault_mem.model.frontmatter_handler import load_yaml, split_exact
from vault_mem.model.memory import MAX_KEY_LEN, suggest_key
from vault_mem.model.policy import MAX_DESCRIPTION_CHARS

#: more files than this in one source is a mistake (a home folder), not an import
MAX_FILES = 20_000

#: keys made from text (a bullet, a mem0 record) keep this many characters, cut at a word
TEXT_KEY_CHARS = 48


@dataclass
class Candidate:
    """One memory a source parser found, before it has a final key or passed the write policy.

    ``key_hint`` is the text the key is made from; ``restore`` holds the whole frontmatter of a
    record from ``vault-mem export``, which is written back as it was (see records.py)."""

    origin: str
    key_hint: str
    type: str
    description: str
    body: str = ""
    tags: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    created: dt.date | None = None
    updated: dt.date | None = None
    restore: dict[str, Any] | None = None
    #: the author an export named for a peer's memory not approved where it was exported
    peer: str | None = None


@dataclass
class Problem:
    """Something in the source that is not imported, with why (``skipped`` when nothing in it
    was refused, only left alone: a symlink, a generated index)."""

    origin: str
    reason: str
    skipped: bool = False


@dataclass
class SourceFile:
    """A file of the source, read: its absolute path, its path inside the source, its text."""

    path: Path
    rel: str
    text: str
    modified: dt.date


Found = list[Candidate | Problem]


def read_file(path: Path, rel: str, *, max_bytes: int) -> SourceFile | Problem:
    """Read one source file: never through a link (nor a linked folder above it, below the
    resolved path the person named), a regular file, within ``max_bytes``, UTF-8
    (a leading BOM dropped), no NUL bytes."""
    origin = str(path)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.realpath(folder) != folder:  # O_NOFOLLOW guards the last part only (attack25)
        return Problem(origin, "is reached through a symlinked folder: not followed", skipped=True)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return Problem(origin, "is a symlink: not followed", skipped=True)
        return Problem(origin, f"cannot be read ({exc.strerror or exc})")
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            return Problem(origin, "is not a regular file", skipped=True)
        if st.st_size > max_bytes:
            return Problem(origin, f"is {st.st_size} bytes, over the import limit of {max_bytes} "
                           "([limits] max_body_bytes in vault.toml); split it or store a summary")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        return Problem(origin, f"grew over the import limit of {max_bytes} bytes while being read")
    if b"\x00" in data:
        return Problem(origin, "contains NUL bytes (a binary file?)")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        return Problem(origin, f"is not UTF-8 text (bad byte at offset {exc.start}); re-save it as "
                       "UTF-8 and import again")
    return SourceFile(path, rel, text, dt.date.fromtimestamp(st.st_mtime))


def walk(root: Path, *, suffixes: tuple[str, ...], max_bytes: int,
         skip_top: frozenset[str] = frozenset()) -> tuple[list[SourceFile], list[Problem]]:
    """Every file under ``root`` ending in one of ``suffixes``, in sorted path order, read by
    :func:`read_file`; symlinks and unreadable files come back as problems. ``skip_top``: names
    at the top level that are not read (a generated index)."""
    files: list[SourceFile] = []
    problems: list[Problem] = []
    count = 0

    def visit(folder: Path, rel: str) -> None:
        nonlocal count
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            problems.append(Problem(str(folder), f"cannot be listed ({exc.strerror or exc})"))
            return
        for entry in entries:
            name = entry.name
            if name.startswith((".", "#", "~")) or (not rel and name in skip_top):
                continue
            sub = f"{rel}{name}"
            if entry.is_symlink():
                if entry.is_dir() or name.lower().endswith(suffixes):
                    problems.append(Problem(entry.path, _link_reason(root, Path(entry.path)), skipped=True))
                continue
            if entry.is_dir(follow_symlinks=False):
                visit(Path(entry.path), f"{sub}/")
            elif name.lower().endswith(suffixes):
                count += 1
                if count > MAX_FILES:
                    raise UsageError(f"{root} holds more than {MAX_FILES} files to import; point the "
                                     "import at the folder of the notes themselves")
                read = read_file(Path(entry.path), sub, max_bytes=max_bytes)
                (files if isinstance(read, SourceFile) else problems).append(read)  # type: ignore[arg-type]

    visit(root, "")
    return files, problems


def _link_reason(root: Path, path: Path) -> str:
    target = os.path.realpath(path)
    real_root = os.path.realpath(root)
    where = "inside" if os.path.commonpath([target, real_root]) == real_root else "outside"
    return f"is a symlink to {target} ({where} the source): links are not followed"


# -- text helpers the parsers share ------------------------------------------------------------


def split_frontmatter(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter mapping, body) of a Markdown file; a file without a ``---`` block is all
    body. Read with vault-mem's strict YAML loader (safe, no aliases); a broken block raises
    :class:`MalformedFileError`."""
    if not re.match(r"---\r?\n", text):
        return {}, text
    _, yaml_text, _, rest = split_exact(text)
    return load_yaml(yaml_text), rest.removeprefix("\r\n").removeprefix("\n")


_MARKUP = re.compile(r"^\s*(?:#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?|\d+[.)]\s+|>\s*)")


def one_line(text: str, *, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """``text`` as a description: its first non-blank line without heading, list or quote
    markers, whitespace collapsed, cut at a word to at most ``limit`` characters (with '…')."""
    line = next((ln for ln in text.splitlines() if ln.strip() and ln.strip() != "---"), "")
    line = " ".join(_MARKUP.sub("", line).split())
    if len(line) <= limit:
        return line
    cut = line[:limit - 1].rsplit(" ", 1)[0] if " " in line[:limit - 1] else line[:limit - 1]
    return cut.rstrip(" ,;:.-") + "…"


def first_heading(text: str) -> str | None:
    """The text of the first Markdown heading in ``text``, if any."""
    m = re.search(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", text, re.MULTILINE)
    return m.group(1).strip() if m else None


def key_from_text(text: str, *, limit: int = TEXT_KEY_CHARS) -> str:
    """A key made from a sentence: its first words, slugged, cut at a dash to ``limit``."""
    slug = suggest_key(" ".join(text.split()[:10]))
    if len(slug) > limit:
        slug = slug[:limit].rsplit("-", 1)[0] or slug[:limit]
    return suggest_key(slug)


def key_from_path(rel: str) -> str:
    """A key made from a file's path inside the source (``a/b.md`` -> ``a-b``), leaving room
    for a ``-N`` suffix."""
    return suggest_key(rel.removesuffix(".md").replace("/", "-"))[:MAX_KEY_LEN - 4].strip("-._") or "memory"


def as_tags(value: Any) -> list[str]:
    """Tags from a list or comma-separated text, each one short line, without repeats."""
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, (list, tuple)) else []
    out: list[str] = []
    for item in items:
        if isinstance(item, (str, int, float)) and not isinstance(item, bool):
            tag = " ".join(str(item).strip().lstrip("#").split())[:64]
            if tag and tag not in out:
                out.append(tag)
    return out


def malformed(origin: str, exc: MalformedFileError) -> Problem:
    return Problem(origin, f"{exc}; fix it and import again")
