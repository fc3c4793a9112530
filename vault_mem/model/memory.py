"""The memory file: key rules, frontmatter parsing and rendering.

A memory is ``<type folder>/<key>.md``: YAML frontmatter between ``---`` lines, then a free
Markdown body. Parsing is strict where a silent guess would hide data (a second frontmatter
block, YAML aliases, non-UTF-8 bytes) and lenient about fields it does not know, which are kept
in order on every rewrite.

The YAML reader (python-frontmatter, PyYAML, :mod:`~vault_mem.model.frontmatter_handler`) is
imported by the first parse or render, not with this module: a read without a daemon that finds
no file changed parses none, and at ~20 ms of start-up it was a share of every one-shot read
(issue 29, perf45 in docs/benchmarks.md).
"""

from __future__ import annotations

import datetime as dt
import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from vault_mem.config import FOLDER_TYPES, TYPE_FOLDERS
from vault_mem.errors import InvalidKeyError, InvalidMemoryError, MalformedFileError
from vault_mem.model.names import windows_device
from vault_mem.model.names import shown as shown_name

KEY_RE = re.compile(r"[a-z0-9][a-z0-9._-]*")
MAX_KEY_LEN = 80
RESERVED_KEYS = frozenset({"index", "readme", "vault", "con", "nul", "prn", "aux"})
SOURCES = ("user", "agent", "inferred", "imported")


def suggest_key(text: str) -> str:
    """A valid key made from any text (lowercase, dashes, trimmed to the length limit)."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", text.strip().lower().removesuffix(".md"))
    slug = re.sub(r"\.{2,}", ".", slug)
    slug = re.sub(r"-{2,}", "-", slug).strip("-._")[:MAX_KEY_LEN].strip("-._")
    if not slug or slug in RESERVED_KEYS or windows_device(slug):
        slug = f"memory-{slug}"[:MAX_KEY_LEN].strip("-._") if slug else "memory"
    return slug


def validate_key(key: object) -> str:
    """Return ``key`` if it is a valid memory key, else raise with a suggestion."""
    if not isinstance(key, str) or not key:
        raise InvalidKeyError("key is empty: give a short name like 'editor-choice'")
    problem = None
    if len(key) > MAX_KEY_LEN:
        problem = f"is {len(key)} characters long (at most {MAX_KEY_LEN})"
    elif "\x00" in key or "/" in key or "\\" in key:
        problem = "contains a path separator or NUL (a key is a file name, not a path)"
    elif ".." in key:
        problem = "contains '..'"
    elif not KEY_RE.fullmatch(key):
        problem = "must be lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
    elif key in RESERVED_KEYS or key.removesuffix(".md") in RESERVED_KEYS:
        problem = f"clashes with the vault's own file names ({', '.join(sorted(RESERVED_KEYS))})"
    elif windows_device(key):
        problem = "is a Windows device name (com1, lpt1, aux.notes, ...): no Windows clone could check it out"
    elif key.endswith(".md"):
        problem = "must not end in '.md' (the file extension is added for you)"
    if problem:
        # escaped whole, its quotes too: a file name (a peer's sentence) is quoted here, and a
        # quote in it ended the quotation early (atk23)
        shown = key[:100].encode("unicode_escape").decode("ascii").replace("'", "\\'")
        raise InvalidKeyError(f"invalid key '{shown}': it {problem}; try '{suggest_key(key.replace(chr(0), ''))}'")
    return key


def validate_type(type_: object) -> str:
    """Return ``type_`` if it is one of the memory types, else raise naming the valid ones."""
    if type_ in TYPE_FOLDERS:
        return type_  # type: ignore[return-value]
    if isinstance(type_, str) and type_ in FOLDER_TYPES:  # "facts" -> "fact"
        return FOLDER_TYPES[type_]
    import difflib  # lazy: only a wrong type needs it (start-up time, issue 29)

    close = difflib.get_close_matches(str(type_), list(TYPE_FOLDERS), n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise InvalidMemoryError(f"unknown type '{type_}'{hint}: use one of {', '.join(TYPE_FOLDERS)}")


def validate_description(description: object) -> str:
    """A description is required, one line, and not blank."""
    if not isinstance(description, str) or not description.strip():
        raise InvalidMemoryError("description is missing: give one line saying what this memory is")
    # every line break str.splitlines knows (NEL, U+2028...): YAML folds some of them into spaces
    if "\n" in description or "\r" in description or len(description.strip().splitlines()) > 1:
        raise InvalidMemoryError("description must be one line: put the details in the body")
    if "\x00" in description:
        raise InvalidMemoryError("description contains a NUL byte")
    return description.strip()


def rel_path_for(key: str, type_: str) -> str:
    """Vault-relative path of a memory (always POSIX)."""
    return f"{TYPE_FOLDERS[type_]}/{key}.md"


#: Editors' swap, lock, backup and temp files (vim, emacs, nano, JetBrains, VS Code/macOS), as
#: .gitignore patterns: the one list that a vault's .gitignore holds (``vault-mem init`` adds what
#: is missing) and that :func:`is_memory_name` refuses, so ``git status``, the scan and the
#: daemon's watcher agree that these files are not memories.
EDITOR_FILES = (
    ".*.swp", ".*.swo", ".*.swx", "*~", ".*.un~", "4913",  # vim (and nano's .swp)
    "\\#*#", ".#*",  # emacs auto-save and lock files (a leading # would be a comment)
    "*.save",  # nano's save on exit or on a signal
    ".idea/", "*___jb_tmp___", "*___jb_old___",  # JetBrains
    ".DS_Store",  # macOS Finder (VS Code on macOS)
)
#: the heading of the block that lists them in .gitignore
EDITOR_FILES_HEADING = "# editors' swap, lock and backup files (never memories)"


def missing_editor_patterns(gitignore: str) -> list[str]:
    """The patterns of :data:`EDITOR_FILES` that a .gitignore's text does not hold as a line."""
    have = {line.strip() for line in gitignore.splitlines()}
    return [p for p in EDITOR_FILES if p not in have]


#: :data:`EDITOR_FILES`' file patterns as one expression: a scan of 100k files tested each name
#: against each pattern with fnmatch (1.2M calls, ~2-4 s of every full reconcile at 100k)
_EDITOR_NAME = re.compile("|".join(fnmatch.translate(p.removeprefix("\\")) for p in EDITOR_FILES
                                   if not p.endswith("/")))


#: a name the rule below always takes, tested first as one match: ASCII letters, digits and
#: ``._-``, not starting with ``.``, ending in ``.md`` (no pattern of :data:`EDITOR_FILES` ends
#: so). Every key's file; a 100k scan tested each name with the whole rule (~70 ms CPU, ~35 now)
_PLAIN_MEMORY_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*\.md\Z")


def is_memory_name(name: str) -> bool:
    """A file name taken for a memory: ``*.md`` but not an editor's swap, lock or backup file
    (names starting with ``.``, ``#`` or ``~``, or any of :data:`EDITOR_FILES`), and UTF-8 (a
    name of other bytes, as Python gives it, cannot be stored, written in git's UTF-8 output or
    be a key: it crashed every command's scan). The one rule for the scan, the watcher, the
    daemon's commits and path refreshes."""
    return _PLAIN_MEMORY_NAME.match(name) is not None or (
        name.endswith(".md") and not name.startswith((".", "#", "~")) and _EDITOR_NAME.match(name) is None
        and (name.isascii() or _utf8(name)))


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # bytes that were not UTF-8, held as surrogates (os.fsdecode)
        return False
    return True


def is_memory_path(rel: str) -> bool:
    """``<type folder>/<memory name>`` (vault-relative, POSIX); the key may still be invalid."""
    parts = rel.split("/")
    return len(parts) == 2 and parts[0] in FOLDER_TYPES and is_memory_name(parts[1])


def key_type_from_path(rel_path: str) -> tuple[str, str]:
    """``facts/foo.md`` -> (``foo``, ``fact``); raises if the path is not a memory file's."""
    p = PurePosixPath(rel_path)
    # spelt as git writes it: pathlib reads `./facts/x.md` and `facts//x.md` as facts/x.md, but an
    # open relative to the type folder (store/files.read_memory_bytes) would not
    if len(p.parts) != 2 or p.suffix != ".md" or p.parts[0] not in FOLDER_TYPES or p.as_posix() != rel_path:
        raise MalformedFileError(f"{shown_name(rel_path)}: not a memory path (<type folder>/<key>.md)")
    validate_key(p.stem)
    return p.stem, FOLDER_TYPES[p.parts[0]]


@dataclass
class Memory:
    """One memory: key and type come from the path, everything else from the file.

    ``meta`` holds every frontmatter field in file order, including the ones vault-mem does not
    know; the typed attributes are views of it. ``comments`` is the text of the ``# comments``
    in a parsed file's frontmatter (one per line; empty for a memory not read from a file): not
    part of the memory's value, but kept on a rewrite, so the secret gate reads it too.
    """

    key: str
    type: str
    meta: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    comments: str = field(default="", compare=False, repr=False)

    @property
    def path(self) -> str:
        return rel_path_for(self.key, self.type)

    @property
    def description(self) -> str:
        return str(self.meta.get("description") or "")

    @property
    def created(self) -> dt.date | None:
        return as_date(self.meta.get("created"))

    @property
    def updated(self) -> dt.date | None:
        return as_date(self.meta.get("updated")) or self.created

    @property
    def source(self) -> str | None:
        value = self.meta.get("source")
        return str(value) if value is not None else None

    @property
    def tags(self) -> list[str]:
        return as_str_list(self.meta.get("tags"))

    @property
    def pinned(self) -> bool:
        return self.meta.get("pinned") is True

    @property
    def expires(self) -> dt.date | None:
        return as_date(self.meta.get("expires"))

    @property
    def supersedes(self) -> list[str]:
        """The keys this memory replaces. An item that is no valid key names no memory, and is
        left out: it is text the file's writer chose (a peer's sentence), and every reader of
        this list (the index's relation, ``get``'s note, shown after the fenced memory as
        vault-mem's own words) takes it for keys."""
        out = []
        for item in as_str_list(self.meta.get("supersedes")):
            try:
                out.append(validate_key(item.strip()))
            except InvalidKeyError:
                continue
        return out

    @property
    def scope(self) -> str | None:
        value = self.meta.get("scope")
        return str(value) if value not in (None, "") else None

    @property
    def refs(self) -> list[str]:
        return as_str_list(self.meta.get("refs"))

    def to_dict(self, *, body: bool = True) -> dict[str, Any]:
        """JSON-ready view (dates as ISO strings)."""
        out: dict[str, Any] = {
            "key": self.key,
            "type": self.type,
            "path": self.path,
            "description": self.description,
            "created": iso(self.created),
            "updated": iso(self.updated),
            "source": self.source,
            "tags": self.tags,
            "meta": {k: _jsonable(v) for k, v in self.meta.items()},
        }
        if body:
            out["body"] = self.body
        return out


def as_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


#: Frontmatter fields that hold lists, and the most items each may hold. A memory names a few
#: tags, the few keys it replaces, the few files it is about; a list of thousands (a peer's
#: 4,050 ``supersedes`` keys made every recall fail) is a broken or hostile file, not a memory.
LIST_FIELDS = ("tags", "supersedes", "refs")
MAX_LIST_ITEMS = 64
#: the longest tag a write takes (a file's, a peer's above all, is read as it is: see
#: :func:`vault_mem.model.views.tags_excerpt`)
MAX_TAG_CHARS = 64


def check_list_length(name: str, items: list[str]) -> None:
    """Refuse a list field (``tags``, ``supersedes``, ``refs``) of more than
    :data:`MAX_LIST_ITEMS` items: the one home of that bound, for writes and for files read."""
    if len(items) > MAX_LIST_ITEMS:
        raise InvalidMemoryError(f"'{name}' lists {len(items)} items, at most {MAX_LIST_ITEMS}: keep the "
                                 f"{MAX_LIST_ITEMS} that matter (or split the memory)")


def as_str_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value if v is not None and str(v).strip()]
    return [str(value)]


def iso(value: dt.date | None) -> str | None:
    return value.isoformat() if value else None


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def memory_from_bytes(data: bytes, rel: str, *, max_bytes: int) -> Memory:
    """Parse a memory file's bytes, or raise MalformedFileError ``"<rel>: <what is wrong>"``:
    over ``max_bytes``, NUL bytes, not UTF-8, or its frontmatter. One wording for the index,
    ``get`` and the pre-commit hook."""
    if len(data) > max_bytes:
        raise MalformedFileError(f"{shown_name(rel)}: is over the limit of {max_bytes} bytes (max_body_bytes in "
                                 "vault.toml); store a summary and a pointer instead")
    if b"\x00" in data:
        raise MalformedFileError(f"{shown_name(rel)}: contains NUL bytes (binary file?)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedFileError(f"{shown_name(rel)}: is not UTF-8 text (bad byte at offset {exc.start}); "
                                 "re-save it as UTF-8") from None
    return parse_memory(text, rel)


def parse_memory(text: str, rel_path: str) -> Memory:
    """Parse a memory file's text; ``rel_path`` gives the key and type.

    Raises :class:`MalformedFileError` (never touching the file) for anything that would make a
    silent guess: no or unclosed frontmatter, a second frontmatter block at the top of the body,
    invalid YAML, aliases or anchors, a non-mapping, a missing description. Reading goes
    through python-frontmatter's ``split``/``load`` with :data:`HANDLER` (not ``frontmatter.loads``,
    which strips the body's leading and trailing whitespace).
    """
    key, type_ = key_type_from_path(rel_path)
    if "\x00" in text:
        raise MalformedFileError(f"{shown_name(rel_path)}: contains NUL bytes (binary file?)")
    from vault_mem.model.frontmatter_handler import HANDLER  # YAML: see the note on the imports

    try:
        yaml_text, body = HANDLER.split(text)
        meta, comments = HANDLER.load_with_comments(yaml_text)
    except MalformedFileError as exc:
        raise MalformedFileError(f"{shown_name(rel_path)}: {exc}") from exc.__cause__
    desc = meta.get("description")
    if not isinstance(desc, str) or not desc.strip() or "\n" in desc.strip():
        raise MalformedFileError(f"{shown_name(rel_path)}: 'description:' must be one non-empty line of text")
    for name in LIST_FIELDS:
        try:
            check_list_length(name, as_str_list(meta.get(name)))
        except InvalidMemoryError as exc:
            raise MalformedFileError(f"{shown_name(rel_path)}: {exc}") from None
    body = body.removeprefix("\n")  # the blank line we write after the closing fence
    return Memory(key=key, type=type_, meta=meta, body=body, comments=comments)


def render_memory(memory: Memory) -> str:
    """The file text for a new ``memory``: frontmatter in ``meta`` order (block mapping, short
    lists as ``[a, b]``, multi-line text as ``|``, no anchors), a blank line, the body."""
    import frontmatter

    from vault_mem.model.frontmatter_handler import HANDLER

    post = frontmatter.Post(memory.body, handler=HANDLER)
    post.metadata = dict(memory.meta)  # not Post(**meta): a field named 'content' would clash
    return frontmatter.dumps(post)


def _file_body(body: str) -> str:
    """The body as a file holds it (and parsing gives it back): ending in a newline."""
    return body + "\n" if body and not body.endswith("\n") else body


def rewrite_in_place(old_text: str, new: Memory) -> str | None:
    """``old_text`` (an existing memory file) changed to hold ``new``, or None when that cannot
    be done safely.

    Only what the write changes is touched: a field whose value is unchanged keeps its bytes
    (a person's comments, blank lines, list style, quoting and field order); a changed field is
    re-emitted where it was; a removed field's lines go; a new field goes before the closing
    ``---``; the body is replaced only if it changed (a leading BOM and CRLF line ends stay).
    The result is parsed back and must give exactly ``new.meta`` (types and order included) and
    ``new.body``; None if not, if ``old_text`` does not parse, or if its frontmatter has a shape
    the field edit does not take (see :func:`frontmatter_handler.edit_fields`). A value YAML
    cannot represent raises ``yaml.YAMLError``, as in :func:`render_memory`.
    """
    from vault_mem.model.frontmatter_handler import edit_fields, same_value, split_exact

    try:
        old = parse_memory(old_text, new.path)
        opening, yaml_text, closing, rest = split_exact(old_text)
    except MalformedFileError:
        return None
    new_yaml = edit_fields(yaml_text, old.meta, new.meta)
    if new_yaml is None:
        return None
    body = _file_body(new.body)
    if body != old.body:
        rest = f"\n{body}" if body else ""
    bom = "\ufeff" if old_text.startswith("\ufeff") else ""
    text = f"{bom}{opening}{new_yaml}{closing}{rest}"
    try:
        back = parse_memory(text, new.path)
    except MalformedFileError:
        return None
    if not same_value(back.meta, new.meta) or back.body != body:
        return None
    return text


def rewrite_memory(old_text: str, new: Memory) -> str:
    """The file text for ``new`` as an update of the file whose text is ``old_text``: the
    in-place edit of :func:`rewrite_in_place`, falling back to a full :func:`render_memory`
    (which keeps every field and its order, but not comments or the person's layout) only when
    the in-place edit cannot be made safely."""
    text = rewrite_in_place(old_text, new)
    return text if text is not None else render_memory(new)


def build_meta(
    existing: dict[str, Any] | None,
    *,
    description: str,
    today: dt.date,
    source: str | None,
    tags: list[str] | None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Frontmatter for a write: known fields first on a new file; on an update every existing
    field keeps its place, ``created`` is kept and ``updated`` moves to ``today``."""
    meta: dict[str, Any] = dict(existing) if existing else {}
    if not existing:
        meta = {"description": description, "created": today, "updated": today}
    meta["description"] = description
    meta.setdefault("created", today)
    meta["updated"] = today
    if source is not None:
        if source not in SOURCES:
            raise InvalidMemoryError(f"unknown source '{source}': use one of {', '.join(SOURCES)}")
        meta["source"] = source
    if tags is not None:
        clean = [t.strip() for t in tags if t and t.strip()]
        for t in clean:
            if "\n" in t or len(t) > MAX_TAG_CHARS:
                raise InvalidMemoryError(f"tag '{t[:40]}' must be one short line (at most {MAX_TAG_CHARS} characters)")
        check_list_length("tags", clean)
        if clean:
            meta["tags"] = clean
        else:
            meta.pop("tags", None)
    for k, v in (extra or {}).items():
        if k in ("description", "created", "updated"):
            raise InvalidMemoryError(f"field '{k}' is set by vault-mem; pass it as its own argument")
        if not isinstance(k, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]{0,63}", k):
            raise InvalidMemoryError(f"field name '{str(k)[:40]}' must be a short identifier")
        v = known_field_value(k, v)
        if v is None:
            meta.pop(k, None)
        else:
            meta[k] = v
    return meta


def known_field_value(name: str, value: Any) -> Any:
    """The value a write stores for the frontmatter field ``name`` (DESIGN §1), checked: the one
    rule for ``Vault.remember``'s keyword arguments, ``extra=`` and the tools. ``None`` (and
    ``pinned`` false) removes the field; a field vault-mem does not know is kept as given."""
    if value is None:
        return None
    if name == "expires":
        return _expiry_date(value)
    if name == "pinned":
        if not isinstance(value, bool):
            raise InvalidMemoryError(f"pinned must be true or false, got '{str(value)[:40]}'")
        return True if value else None
    if name in ("supersedes", "refs"):
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(isinstance(x, str) for x in items):
            raise InvalidMemoryError(f"{name} must be a list of {'keys' if name == 'supersedes' else 'paths'}")
        clean = [x.strip() for x in items if x.strip()]
        check_list_length(name, clean)
        for x in clean:
            if name == "supersedes":
                validate_key(x)
            elif "\n" in x or "\r" in x or len(x) > 300:
                raise InvalidMemoryError(f"ref '{x[:40]}' must be one path of at most 300 characters")
        return clean or None
    if name == "tags":
        check_list_length(name, as_str_list(value))
        return value
    if name == "scope":
        if not isinstance(value, str) or "\n" in value or "\r" in value or len(value.strip()) > 100:
            raise InvalidMemoryError("scope must be one short line (an agent or project name)")
        return value.strip() or None
    return value


def _expiry_date(value: Any) -> dt.date:
    """``expires`` as a date: a string that is not YYYY-MM-DD would be written, read back as no
    date, and the memory would silently never expire."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value).strip())
    except ValueError:
        raise InvalidMemoryError(f"expires must be a date as YYYY-MM-DD, got '{str(value)[:40]}'") from None


def same_content(a: Memory, b: Memory) -> bool:
    """True when a write would change nothing but ``updated``."""
    strip = lambda m: {k: v for k, v in m.meta.items() if k != "updated"}
    return a.type == b.type and strip(a) == strip(b) and a.body.rstrip("\n") == b.body.rstrip("\n")
