"""``vault-mem import``: which kind of source, which key for each memory, and one commit.

What happens to each memory a source holds, in source order (sorted paths, then lines):

1. **Key**: the source's own name for it (file path, permalink, ``key``), else words of its
   text, made valid by the key rules of :mod:`vault_mem.model.memory` (``suggest_key``).
2. **Collisions**: a key already taken, in this import or in the vault (any type folder), by a
   memory with the same type, description and body means the memory is already there: it is
   skipped, with the reason. Taken by different content, the next free ``KEY-2``, ``KEY-3``...
   is used: an import never overwrites a memory (the vault's version may hold an agent's later
   update), and importing the same source twice changes nothing the second time.
3. **Policy**: the memory goes through the vault's one :class:`~vault_mem.model.policy.WritePolicy`
   (``check_request`` then ``file_bytes``: key, fields, size, secret gate, a file that reads
   back as written). A refusal is listed with its reason; the others are imported.
4. **Provenance**: ``source: imported`` and ``origin: <file>``, ``<file>:<line>`` or
   ``<file>#<id>`` in the frontmatter (a record of ``vault-mem export`` is restored as it was).
5. **Standing**: an import brings text, never standing over the vault (:func:`_standing`). The
   import's commit is this machine's, so whatever it writes is the person's, in front of the
   agent; the source is a file from elsewhere (a repository's notes, a teammate's folder). A
   source's ``pinned: true`` (every session's context, unasked) is dropped, except in a record
   of ``vault-mem export`` (a backup coming home) that the export did not mark as a peer's,
   where it is kept and named; a ``supersedes``
   item naming any key but one this import writes is dropped in every source (a key the vault
   holds would be hidden from recall and INDEX.md at once, one it does not hold yet as soon as it
   is written); nothing imported is a sync conflict copy (``.conflict-`` in a key becomes
   ``-conflict-``, the ``conflict_*`` fields are dropped). Each is named in the report.

Steps 1, 3 and 4 run first, without the write lock (the policy is most of an import's time, and
an agent's write must not wait behind it); step 2 runs under the write lock, which is held until
:meth:`Vault.import_memories` has written them all as ONE commit, so nothing can take a chosen
key meanwhile (a memory that gets a suffixed key passes the policy again under its new key). ``dry_run`` stops before the write
and reports exactly the same list.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_mem.errors import MalformedFileError, SecretError, UsageError, VaultMemError
from vault_mem.model.conflicts import CONFLICT_FIELDS, COPY_MARK
from vault_mem.model.memory import MAX_KEY_LEN, Memory, as_str_list, build_meta, suggest_key, validate_key
from vault_mem.model.names import shell_word, shown, shown_email
from vault_mem.model.trailers import memory_trailers
from vault_mem.ops.importers import claude_md, codex, markdown, records
from vault_mem.ops.importers.sources import Candidate, Found, Problem, SourceFile, read_file
from vault_mem.store.workspace import committed_link_on

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

KINDS = ("claude-code", "codex", "claude-md", "basic-memory", "markdown", "jsonl")

#: a CLAUDE.md is cut into many memories, so it may be larger than one memory file
CLAUDE_MD_MAX_BYTES = 4 * 1024 * 1024
_CLAUDE_MD_NAMES = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md")
_RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson")
_MAX_SUFFIX = 1000


@dataclass
class ImportItem:
    """What the import does with one thing of the source: ``import``, ``skip`` or ``refuse``."""

    origin: str
    action: str
    key: str | None = None
    type: str | None = None
    path: str | None = None
    reason: str | None = None
    warnings: list[str] = field(default_factory=list)
    #: what the source asked of the vault that the import did not do, or did and names (step 5)
    standing: list[str] = field(default_factory=list)
    #: a record of ``vault-mem export``, restored as it was
    restored: bool = field(default=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in (None, []) and k != "restored"}


@dataclass
class ImportReport:
    """The whole import: the source, its kind, every item, and the commit (None: dry run or
    nothing to write)."""

    source: str
    kind: str
    dry_run: bool
    items: list[ImportItem]
    commit: str | None = None

    def of(self, action: str) -> list[ImportItem]:
        return [i for i in self.items if i.action == action]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "kind": self.kind, "dry_run": self.dry_run, "commit": self.commit,
                **{name: [i.to_dict() for i in self.of(action)]
                   for name, action in (("imported", "import"), ("skipped", "skip"), ("refused", "refuse"))}}

    def lines(self) -> list[str]:
        """The report for a person, one line each."""
        verb = "would import" if self.dry_run else "imported"
        new = self.of("import")
        head = f"{verb} {len(new)} memor{'y' if len(new) == 1 else 'ies'} from {self.kind} {self.source}"
        if self.commit:
            head += f" (commit {self.commit[:10]})"
        elif self.dry_run:
            head += " (dry run: nothing written)"
        out = [head]
        for i in new:
            out.append(f"  + {i.path}  <- {shown(i.origin)}")
            out.extend(f"      note: {n}" for n in i.standing)
        for action, label, mark in (("skip", "skipped", "="), ("refuse", "refused", "!")):
            group = self.of(action)
            if group:
                out.append(f"{label} {len(group)}:")
                out.extend(f"  {mark} {shown(i.origin)}: {i.reason}" for i in group)
        return out


def detect(path: Path) -> tuple[str, Path]:
    """The kind of source at ``path`` and the folder or file to read. The rules, first match:

    a ``.json``/``.jsonl``/``.ndjson`` file -> jsonl; a file named CLAUDE.md or CLAUDE.local.md
    -> claude-md; Codex's memories folder (it holds ``memory_summary.md``, ``raw_memories.md`` or
    ``rollout_summaries/``, or is ``.codex/memories`` or ``.codex/memories_v2``), a file in it, or
    a folder whose ``memories/`` (else ``memories_v2/``) is one (``~/.codex``) -> codex; a file named MEMORY.md, a folder holding one, or
    a folder whose ``memory/`` holds one -> claude-code; a folder holding CLAUDE.md (or .claude/CLAUDE.md) -> claude-md
    (its CLAUDE.md files only, not the project's other Markdown); a folder where any Markdown
    file's frontmatter has ``permalink:`` -> basic-memory; any other folder or ``.md`` file ->
    markdown."""
    name = path.name.lower()
    if path.is_file():
        if name.endswith(_RECORD_SUFFIXES):
            return "jsonl", path
        if name in ("claude.md", "claude.local.md"):
            return "claude-md", path
        if name in ("memory.md", codex.SUMMARY.lower(), "raw_memories.md") and codex.is_codex_folder(path.parent):
            return "codex", path.parent
        if name == "memory.md":
            return "claude-code", path.parent
        if name.endswith(".md"):
            return "markdown", path
        raise UsageError(f"{path}: not a kind of file vault-mem imports (.md, .json, .jsonl); "
                         "pass --from to say what it is")
    if codex.is_codex_folder(path):
        return "codex", path
    if codex.memories_in(path) is not None:
        return "codex", codex.memories_in(path)
    if (path / markdown.MEMORY_INDEX).is_file():
        return "claude-code", path
    if (path / "memory" / markdown.MEMORY_INDEX).is_file():
        return "claude-code", path / "memory"
    if any((path / n).is_file() for n in _CLAUDE_MD_NAMES):
        return "claude-md", path
    if _has_permalinks(path):
        return "basic-memory", path
    return "markdown", path


def _has_permalinks(root: Path, *, sample: int = 50) -> bool:
    seen = 0
    for top, dirs, files in os.walk(root):
        folder = Path(top)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not (folder / d).is_symlink())
        for f in sorted(files):
            p = folder / f
            if not f.endswith(".md") or f.startswith(".") or p.is_symlink():
                continue
            seen += 1
            read = read_file(p, f, max_bytes=1 << 20)
            if isinstance(read, SourceFile) and read.text.startswith("---") and \
                    "\npermalink:" in read.text[:4096].split("\n---", 2)[0]:
                return True
            if seen >= sample:
                return False
    return False


def read_source(path: Path, kind: str, *, max_bytes: int) -> Found:
    """What the source ``path`` of ``kind`` holds (see each parser's module)."""
    if kind == "jsonl":
        if not path.is_file():
            raise UsageError(f"{path}: --from jsonl takes a .json or .jsonl file, not a folder")
        return records.records(path)
    if kind == "claude-md":
        files = [path] if path.is_file() else [path / n for n in _CLAUDE_MD_NAMES if (path / n).is_file()]
        if not files:
            raise UsageError(f"{path}: no CLAUDE.md here; give the file's path")
        found: Found = []
        for f in files:
            read = read_file(f, f.name, max_bytes=CLAUDE_MD_MAX_BYTES)
            if isinstance(read, Problem):
                found.append(read)
                continue
            for item in claude_md.parse(read.text, str(f)):
                if isinstance(item, Candidate):
                    item.created = item.updated = read.modified
                found.append(item)
        return found
    if kind == "claude-code":
        if path.is_file():
            path = path.parent
        return markdown.claude_code(path, max_bytes=max_bytes)
    if kind == "codex":
        if path.is_file():
            path = path.parent
        return codex.codex(path, max_bytes=max_bytes)
    if kind == "basic-memory":
        if not path.is_dir():
            raise UsageError(f"{path}: --from basic-memory takes the project's folder")
        return markdown.basic_memory(path, max_bytes=max_bytes)
    return markdown.markdown(path, max_bytes=max_bytes)


def import_source(vault: Vault, source: str | Path, *, kind: str | None = None, dry_run: bool = False,
                  progress: Callable[[int, int], None] | None = None) -> ImportReport:
    """Import the memories of ``source`` into ``vault`` as one commit (see the module docstring).
    ``kind``: one of :data:`KINDS`, else detected (:func:`detect`)."""
    path = Path(source).expanduser()
    if not path.exists():
        raise UsageError(f"{source}: no such file or folder; give the path of the notes to import")
    link = committed_link_on(path)
    if link is not None:  # a teammate's link in the project: where it points is its author's choice
        raise UsageError(f"{shown(str(link))} is a symlink that its git repository holds: a commit made it, "
                         "so where it points is anyone's choice (a file of yours outside the project, "
                         "imported here, would go to everyone the vault syncs with); nothing was read. "
                         f"See whose commit made it (`git log -- {shell_word(str(link))}`); to import the "
                         "file it points to, name that file by its own path")
    path = path.resolve()  # the named path itself may be a link of the person's own: their choice
    if kind is None:
        kind, path = detect(path)
    elif kind not in KINDS:
        raise UsageError(f"unknown source kind '{kind}': use one of {', '.join(KINDS)}")
    found = read_source(path, kind, max_bytes=vault.config.max_file_bytes)
    vetted = _vet(vault, found, dt.date.today(), progress)
    with vault.lock:
        items, memories = _assign(vault, vetted)
        report = ImportReport(str(path), kind, dry_run, items)
        if memories and not dry_run:
            noun = "memory" if len(memories) == 1 else "memories"
            message = (f"import: {len(memories)} {noun} from {kind} {path.name}\n\n"
                       f"{memory_trailers(action='import', agent=vault.agent)}")
            report.commit = vault.import_memories(memories, message=message)
    return report


def _vet(vault: Vault, found: Found, today: dt.date, progress: Callable[[int, int], None] | None) -> list:
    """Step 1, 3 and 4 for every memory, without the write lock (the policy is the slow part):
    (Problem, None) for what the source could not give, (ImportItem refused, None), or
    (ImportItem to import, Memory) under its base key."""
    out: list[tuple[ImportItem, Memory | None]] = []
    for n, c in enumerate(found, 1):
        if progress:
            progress(n, len(found))
        if isinstance(c, Problem):
            out.append((ImportItem(c.origin, "skip" if c.skipped else "refuse", reason=c.reason), None))
            continue
        try:
            mem = _memory(c, _base_key(c), today)
            warnings = _check(vault, mem)
        except VaultMemError as exc:
            out.append((ImportItem(c.origin, "refuse", reason=str(exc)), None))
            continue
        item = ImportItem(c.origin, "import", mem.key, mem.type, mem.path, warnings=warnings,
                          restored=c.restore is not None and c.peer is None)
        if c.peer is not None:
            item.standing.append(f"written by {shown_email(c.peer)}, a peer not approved where it was exported; "
                                 "imported as yours")
        out.append((item, mem))
    return out


def _check(vault: Vault, mem: Memory) -> list[str]:
    """The vault's write policy on ``mem``: the request's checks (returning the lint
    warnings), then the file it makes."""
    policy = vault.ws.policy
    extra = {k: v for k, v in mem.meta.items() if k not in ("description", "created", "updated", "tags")}
    warnings = policy.check_request(key=mem.key, type=mem.type, description=mem.description, body=mem.body,
                                    tags=mem.tags or None, extra=extra)
    policy.file_bytes(mem)
    return warnings


def _assign(vault: Vault, vetted: list) -> tuple[list[ImportItem], list[Memory]]:
    """Step 2, with the write lock held: each vetted memory's free key, or why it is skipped."""
    items: list[ImportItem] = []
    memories: list[Memory] = []
    taken: dict[str, tuple[Memory, str]] = {}
    for item, mem in vetted:
        if mem is None:
            items.append(item)
            continue
        try:
            key, why = _free_key(vault, mem, item.origin, taken)
            if key is None:
                items.append(ImportItem(item.origin, "skip", mem.key, mem.type, reason=why))
                continue
            if key != mem.key:
                mem.key = key
                item.warnings = _check(vault, mem)  # the key is part of what the gate reads
            item.standing += _standing(mem, restored=item.restored)
        except VaultMemError as exc:
            items.append(ImportItem(item.origin, "refuse", reason=str(exc)))
            continue
        item.key, item.path = key, mem.path
        taken[key] = (mem, item.origin)
        memories.append(mem)
        items.append(item)
    brought = set(taken)
    for item in items:
        if item.action == "import":
            item.standing += _supersedes_brought(taken[item.key][0], brought)
    return items, memories


def _standing(mem: Memory, *, restored: bool) -> list[str]:
    """Step 5 (module docstring): ``mem`` without the standing its source asked for, and what
    was dropped or kept, said for the report (its ``supersedes``: :func:`_supersedes_brought`,
    once every key is known). Run under the write lock, with ``mem``'s final
    key: a source's ``pinned``, and ``supersedes`` naming a memory already here, made a
    teammate's file imported from a repository the person's pinned memory (in every session's
    context) hiding the person's own ``deploy-rule`` from recall, and the report said neither; a
    file named ``KEY.conflict-1234567.md`` with ``conflict_of: KEY`` became "this machine's
    version" of the person's KEY, which ``resolve KEY --keep mine`` replaced with its text."""
    notes: list[str] = []
    claimed = [f for f in CONFLICT_FIELDS if f in mem.meta]
    if claimed:  # only a sync makes a conflict copy, of the person's own version
        for f in claimed:
            mem.meta.pop(f)
        notes.append(f"the source marked it a sync conflict copy ({', '.join(claimed)}): imported as a memory of its own")
    if mem.pinned:
        if restored:
            notes.append(f"pinned, as exported: in every session's context (unpin: `vault-mem edit {mem.key}`)")
        else:
            mem.meta.pop("pinned", None)
            notes.append(f"the source pinned it; not pinned here (pin it: `vault-mem edit {mem.key}`)")
    return notes


def _supersedes_brought(mem: Memory, brought: set[str]) -> list[str]:
    """Step 5's ``supersedes``: ``mem``'s items naming a key this import writes (``brought``,
    final keys) are kept, the rest dropped and said. A superseded key is hidden from recall and
    INDEX.md whenever it exists, so an item naming a key the vault held was dropped at once, and
    one naming a key it did not hold yet lay in wait: the person's ``deploy-rule`` written after a
    teammate's note naming it was hidden by the import's commit, which is this machine's."""
    named = as_str_list(mem.meta.get("supersedes"))
    dropped = [k for k in named if k.strip() not in brought or k.strip() == mem.key]
    if not dropped:
        return []
    kept = [k for k in named if k not in dropped]
    if kept:
        mem.meta["supersedes"] = kept
    else:
        mem.meta.pop("supersedes", None)
    return [f"the source said it supersedes {', '.join(shown(k) for k in dropped[:5])}, which this import does not "
            f"bring: not done (nothing is hidden; `vault-mem edit {mem.key}` to add it)"]


def _base_key(c: Candidate) -> str:
    """The key ``c`` asks for, made valid; never a sync conflict copy's (``KEY.conflict-...``):
    a copy is what a sync made here of the person's version, and ``resolve KEY --keep mine``
    puts its text in KEY's place (step 5)."""
    try:
        validate_key(c.key_hint)
        key = c.key_hint if c.restore is not None else c.key_hint[:MAX_KEY_LEN - 4].rstrip("-._") or "memory"
    except VaultMemError:
        key = suggest_key(c.key_hint)[:MAX_KEY_LEN - 4].rstrip("-._") or "memory"
    return key.replace(COPY_MARK, "-conflict-")


def _memory(c: Candidate, key: str, today: dt.date) -> Memory:
    if c.restore is not None:
        return Memory(key, c.type, dict(c.restore), c.body)
    meta = build_meta(None, description=c.description, today=today, source="imported",
                      tags=c.tags or None, extra={**c.extra, "origin": c.origin})
    created = c.created or today
    meta["created"] = created
    meta["updated"] = max(c.updated or created, created)
    return Memory(key, c.type, meta, c.body)


def _same(a: Memory, b: Memory) -> bool:
    return (a.type, a.description, a.body.rstrip("\n")) == (b.type, b.description, b.body.rstrip("\n"))


def _free_key(vault: Vault, mem: Memory, origin: str,
              taken: dict[str, tuple[Memory, str]]) -> tuple[str | None, str | None]:
    """The key ``mem`` gets, or (None, why it is skipped): see the module docstring, step 2."""
    for n in range(1, _MAX_SUFFIX):
        key = mem.key if n == 1 else f"{mem.key}-{n}"
        if key in taken:
            other, origin = taken[key]
            if _same(other, mem):
                return None, f"the same memory as {origin} in this import"
            continue
        on_disk = vault.find_file(key)
        if on_disk is None:
            return key, None
        try:
            old = vault.read_memory(on_disk[1])
        except (MalformedFileError, SecretError):  # a broken or quarantined file: never the same
            continue
        if _same(old, mem):
            return None, f"already in the vault as {on_disk[1]} (same content)"
    raise UsageError(f"{origin}: no free key like '{mem.key}' (tried {_MAX_SUFFIX}); rename it")
