"""The YAML frontmatter of a memory file: a strict python-frontmatter handler and in-place edits.

:class:`StrictYAMLHandler` is the one reader and writer of frontmatter. It is strict where a
silent guess would hide data: exactly one leading ``---`` block (a second block at the top of the
body is refused), safe YAML without aliases or anchors, bounded nesting, dates kept as dates.
Every refusal is a :class:`MalformedFileError` (not a ``ValueError``), so even
``frontmatter.loads(text, handler=HANDLER)``, which swallows ``ValueError`` into "no metadata",
refuses a bad file instead of treating it as body text.

:func:`edit_fields` rewrites the frontmatter of an existing file field by field: a field whose
value did not change keeps its bytes (a person's comments, blank lines, list style, quoting and
order); a changed field is re-emitted in place; a removed field's lines go; a new field is
appended at the end. It answers None when the frontmatter has a shape it cannot edit safely.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import re
from typing import Any

import frontmatter
import yaml
from frontmatter.default_handlers import YAMLHandler

from vault_mem.errors import MalformedFileError
from vault_mem.model.lazy_patterns import lazy

FENCE = "---"
MAX_YAML_DEPTH = 50
#: Most values one frontmatter may hold, each scalar, list and map counted once per level of
#: nesting it sits at (a top-level field's value 1, an item of its list 2). PyYAML's Python loader
#: pays for each value in proportion to how deeply lists nest around it, so a peer's 73 KB
#: frontmatter (under every size bound) of 36,000 lists nested 40 deep cost ~1 s of CPU per
#: read, and a synced file is read four times (dos33); at this bound a read costs at most ~0.1 s.
#: A memory's fields weigh a few hundred (each list at most ``MAX_LIST_ITEMS``, whose own message
#: names a longer list up to ~5,000 items); past this the file is malformed, read no further.
MAX_YAML_NODES = 16384
_BOM = "\ufeff"
# the line breaks PyYAML knows (str.splitlines knows a few more, which YAML reads as text)
_LINE_BREAK = re.compile(r"\r\n|[\n\r\x85\u2028\u2029]")
_COMMENT = re.compile(r"#[^\r\n\x85\u2028\u2029]*")


class _TooManyValues(yaml.YAMLError):
    """Valid YAML with more values than :data:`MAX_YAML_NODES`: said as that, not as bad YAML."""


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses aliases (no billion-laughs) and keeps dates as dates, and notes
    the comments its scanner skips (``comments``: offset and text), so reading them costs no
    second pass."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.comments: list[tuple[int, str]] = []

    def compose_node(self, parent, index):  # type: ignore[override]
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("YAML aliases (*name) are not allowed in frontmatter")
        event = self.peek_event()
        if getattr(event, "anchor", None):
            raise yaml.YAMLError("YAML anchors (&name) are not allowed in frontmatter")
        # PyYAML composes and constructs recursively: refuse deep nesting with a fixed message,
        # before Python's recursion limit turns it into an error that depends on the call stack
        self._depth = getattr(self, "_depth", 0) + 1
        self._nodes = getattr(self, "_nodes", 0) + self._depth
        try:
            if self._nodes > MAX_YAML_NODES:
                raise _TooManyValues(f"frontmatter holds more than {MAX_YAML_NODES} values (scalars, lists "
                                     "and maps, each counted once per level it is nested at): keep the "
                                     "fields that matter")
            if self._depth > MAX_YAML_DEPTH:
                raise yaml.YAMLError(f"frontmatter is nested more than {MAX_YAML_DEPTH} levels deep")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    # The scanner skips comments in exactly these two places (between tokens, and after a block
    # scalar's '|'/'>' header); what they step over is whitespace, line breaks and comments.
    def scan_to_next_token(self) -> None:
        start = self.pointer
        super().scan_to_next_token()
        self._note_comments(start)

    def scan_block_scalar_ignored_line(self, start_mark):  # type: ignore[override]
        start = self.pointer
        try:
            return super().scan_block_scalar_ignored_line(start_mark)
        finally:
            self._note_comments(start)

    def _note_comments(self, start: int) -> None:
        skipped = self.buffer[start:self.pointer]  # a str stream is held whole in ``buffer``
        if "#" in skipped:
            self.comments.extend((start + m.start(), m.group().rstrip()) for m in _COMMENT.finditer(skipped))


class _Dumper(yaml.SafeDumper):
    """Block style for mappings, flow style for short scalar lists (``tags: [a, b]``); never
    anchors (``created`` and ``updated`` are often the same date object)."""

    def ignore_aliases(self, data) -> bool:  # type: ignore[override]
        return True


class _BlockListDumper(_Dumper):
    """Every list in block style, items indented under their field (``tags:\\n  - a``): how a
    person's block list is re-emitted when its value changes, so the style they chose stays."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        super().increase_indent(flow, False)


class _IndentlessListDumper(_Dumper):
    """Every list in block style, items at the field's own column (``tags:\\n- a``)."""


def _represent_str(dumper: yaml.SafeDumper, data: str):
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


def _flow_list(data: list) -> bool:
    """Whether the house format writes ``data`` in flow style (``[a, b]``): every item a
    one-line scalar (text, number, boolean, date)."""
    return all(isinstance(x, (str, int, float, bool, dt.date)) and "\n" not in str(x) for x in data)


def _represent_list(dumper: yaml.SafeDumper, data: list):
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=_flow_list(data))


class _QuotedStr(str):
    """Text to be written in the quotes a person used for the value it replaces."""

    style: str = '"'


def _represent_quoted(dumper: yaml.SafeDumper, data: _QuotedStr):
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(data), style=data.style)


def _represent_block_list(dumper: yaml.SafeDumper, data: list):
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=False)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(list, _represent_list)
_Dumper.add_representer(_QuotedStr, _represent_quoted)
_BlockListDumper.add_representer(list, _represent_block_list)
_IndentlessListDumper.add_representer(list, _represent_block_list)


def dump_yaml(meta: dict[str, Any], *, dumper: type[yaml.SafeDumper] = _Dumper, indent: int = 2) -> str:
    """``meta`` as block-mapping YAML in the house format, ending in a newline. The house format
    is the pure-Python writer's: libyaml's writes it where :func:`_c_dumpable` says the two give
    the same bytes (a memory file is committed: a changed byte would show in a person's diff)."""
    if dumper is _Dumper and indent == 2 and _CDumper is not None and _c_dumpable(meta):
        dumper = _CDumper
    return _dump(meta, dumper, indent)


def _dump(meta: dict[str, Any], dumper: type, indent: int) -> str:
    return yaml.dump(meta, Dumper=dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=10_000, indent=indent)


#: libyaml's emitter (CSafeDumper: its C emitter behind PyYAML's own Python representers and
#: resolver, so the same style choices reach it), when PyYAML was built with it: ~4x faster than
#: the pure-Python writer, which was ~8% of a profile of the test suite and a share of every
#: write. Used only for :func:`_c_dumpable` values, where the two write the same bytes.
_CDumper: type | None = None
if getattr(yaml, "__with_libyaml__", False):
    class _CHouseDumper(yaml.CSafeDumper):  # type: ignore[misc,name-defined]
        """:class:`_Dumper`'s representers on libyaml's emitter."""

        def ignore_aliases(self, data) -> bool:  # type: ignore[override]
            return True

    _CHouseDumper.add_representer(str, _represent_str)
    _CHouseDumper.add_representer(list, _represent_list)
    _CDumper = _CHouseDumper

#: The characters of text libyaml writes as the pure writer does (tests/test_frontmatter.py
#: compares the two on many values): printable BMP characters. Left to the pure writer: line
#: breaks (a block scalar kept with ``|+`` ends libyaml's document with ``...``), tabs and other
#: control characters, U+0085/U+2028/U+2029 and a BOM (quoted differently), and characters
#: outside the BMP (libyaml escapes an emoji as ``"\U0001F600"``, the pure writer writes it).
_C_WRITABLE = lazy(r"[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*")
#: A mapping key is written as a simple key (``key: value``) below a length the two writers
#: measure differently (the pure one writes ``? key`` from 126 characters, libyaml past 128 UTF-8
#: bytes): a key of more bytes than this, or an empty one (``? ''`` in the pure writer), goes
#: the pure way.
_C_KEY_BYTES = 100
_C_SCALARS = (int, float, bool, type(None), dt.date)  # datetime is a date; bool an int


def _c_writable_text(text: str) -> bool:
    if text.isascii():
        return text.isprintable()  # for ASCII: exactly \x20-\x7e
    return _C_WRITABLE.fullmatch(text) is not None


def _c_dumpable(value: Any) -> bool:
    """Whether libyaml writes ``value`` (a frontmatter mapping, or a value inside one) byte for
    byte as the pure writer does: text of :data:`_C_WRITABLE`'s characters (exactly ``str``:
    a subclass, such as the quoted text of an in-place edit, has its own representer), numbers,
    booleans, None, dates, and lists and mappings of those whose keys are text of 1 to
    :data:`_C_KEY_BYTES` UTF-8 bytes; no date-time in a list written in flow style."""
    kind = type(value)
    if kind is str:
        return _c_writable_text(value)
    if kind is list:
        # a date-time in a flow list is quoted there (its ':'), and a quoted value that is not
        # text carries its tag: the pure writer spells it `!!timestamp`, libyaml `!`
        return all(_c_dumpable(v) for v in value) and not (
            _flow_list(value) and any(isinstance(v, dt.datetime) for v in value))
    if kind is dict:
        return all(type(k) is str and 0 < len(k.encode()) <= _C_KEY_BYTES and _c_writable_text(k)
                   and _c_dumpable(v) for k, v in value.items())
    return isinstance(value, _C_SCALARS)


def split_exact(text: str) -> tuple[str, str, str, str]:
    """``text`` (a leading BOM removed) as (opening fence line, frontmatter YAML, closing fence
    line, rest), which concatenate back to it. The fences keep their own line ending.

    Raises :class:`MalformedFileError` (without a path) for no, an unclosed, or a second block.
    """
    text = text.removeprefix(_BOM)
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n") != FENCE:
        raise MalformedFileError("no frontmatter (the file must start with a '---' line)")
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") == FENCE:
            rest = "".join(lines[i + 1:])
            if _has_second_frontmatter(rest):
                raise MalformedFileError("a second frontmatter block follows the first; merge them into one")
            return lines[0], "".join(lines[1:i]), lines[i], rest
    raise MalformedFileError("frontmatter is not closed (add a '---' line after it)")


def _has_second_frontmatter(body: str) -> bool:
    stripped = body.lstrip("\r\n")
    if not stripped.startswith(FENCE + "\n") and not stripped.startswith(FENCE + "\r\n"):
        return False
    rest = stripped.split("\n", 1)[1] if "\n" in stripped else ""
    end = rest.find("\n---")
    block = rest[: end if end >= 0 else len(rest)]
    return end >= 0 and bool(re.search(r"^[A-Za-z_][\w-]*:", block, re.MULTILINE))


def load_yaml(yaml_text: str) -> dict[str, Any]:
    """The frontmatter mapping, read with the strict loader; raises :class:`MalformedFileError`
    (without a path) for bad YAML, aliases, anchors, deep nesting, a non-mapping, non-text keys."""
    return load_yaml_and_comments(yaml_text)[0]


#: libyaml's loader (C scanner and parser, PyYAML's own Python constructor and resolver), when
#: PyYAML was built with it. It parses a typical memory's frontmatter ~10x faster than the Python
#: loader, which was ~9% of a first index. It knows none of _StrictLoader's rules, so it is used
#: only where they cannot apply (see :func:`_c_loadable`); anything else goes the Python way.
_CLoader: type | None = getattr(yaml, "CSafeLoader", None)
#: Characters the C path takes: printable text and "\n". Left to the Python loader: "#" (its
#: comments are read by _StrictLoader's scanner hooks, which libyaml has not), "&" and "*"
#: (anchors and aliases are refused), "!" (tags) and "%" (directives), "\\" (the escapes of
#: the two differ at the edges), tabs, "\r" and every other control character, a BOM, the
#: Unicode line breaks U+0085/U+2028/U+2029 and non-BMP characters.
#: Its ASCII part is the whole test for ASCII text (most frontmatters): compiled at the first
#: use, the full class costs ~1.5 ms of CPU (its ranges' table), a share of a one-shot write.
_C_TEXT = lazy(r"[\n\x20\x22\x24\x27-\x29\x2b-\x5b\x5d-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*")
_C_ASCII_TEXT = re.compile(r"[\n\x20\x22\x24\x27-\x29\x2b-\x5b\x5d-\x7e]*")
#: Most frontmatters are short: a longer one (or one with many ":" "-" "[" "{" "?", see below)
#: is read the Python way, so libyaml's recursive composer never sees deep nesting.
_C_MAX_CHARS = 4096


def _c_loadable(yaml_text: str) -> bool:
    """True when the C loader gives what _StrictLoader gives for ``yaml_text`` (the differential
    test in tests/test_frontmatter.py checks that on many samples): no comments, anchors,
    aliases, tags or directives can occur in it, and it cannot nest more than MAX_YAML_DEPTH
    levels, as every level of nesting needs one of ``:-?[{`` (a key, an entry or a flow opener)."""
    if _CLoader is None or len(yaml_text) > _C_MAX_CHARS:
        return False
    if (_C_ASCII_TEXT if yaml_text.isascii() else _C_TEXT).fullmatch(yaml_text) is None:
        return False
    indicators = sum(yaml_text.count(c) for c in ":-?[{")
    return indicators < MAX_YAML_DEPTH - 2


def _c_load(yaml_text: str) -> Any:
    """``yaml_text`` read by libyaml, or None when it refuses it (the Python loader then reads it
    again, for its own message: the two word their errors differently)."""
    try:
        loader = _CLoader(yaml_text)  # type: ignore[misc]
    except Exception:  # noqa: BLE001 - any refusal goes the Python way
        return None
    try:
        return loader.get_single_data()
    except Exception:  # noqa: BLE001 - any refusal goes the Python way
        return None
    finally:
        loader.dispose()


def load_yaml_and_comments(yaml_text: str) -> tuple[dict[str, Any], str]:
    """:func:`load_yaml`, plus the frontmatter's ``# comments`` (one per line) from the same pass."""
    if not yaml_text.strip():
        return {}, ""
    if _c_loadable(yaml_text):
        meta = _c_load(yaml_text)
        if isinstance(meta, dict) and all(isinstance(k, str) for k in meta) and _plain_data(meta) \
                and _weight(meta) <= MAX_YAML_NODES:
            return meta, ""  # no '#' in the text: no comments
    return _python_load(yaml_text)


def _python_load(yaml_text: str) -> tuple[dict[str, Any], str]:
    """:func:`load_yaml_and_comments` with _StrictLoader: every rule, every message."""
    loader = None
    try:
        # inside the try: the reader refuses a control character (a ReaderError) when it is made
        loader = _StrictLoader(yaml_text)
        meta = loader.get_single_data()
    except _TooManyValues as exc:  # valid YAML, too much of it to read
        raise MalformedFileError(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - whatever PyYAML raises on a file's text, the file is bad
        # PyYAML's constructors raise plain ValueError for an impossible date (2026-02-30), a bad
        # !!float or an int past Python's digit limit, RecursionError for deep nesting, and
        # KeyError (`!!bool x`), AttributeError (`!!timestamp x`) and IndexError (`!!int ''`) for
        # explicit tags on text they cannot read: a hand-edited or a peer's file must be reported
        # like any other bad YAML, not crash every reader (a sync and every command of a clone).
        raise MalformedFileError(f"frontmatter is not valid YAML ({_yaml_problem(exc)})") from exc
    finally:
        if loader is not None:
            loader.dispose()
    if not isinstance(meta, dict):
        raise MalformedFileError("frontmatter must be 'field: value' lines")
    if any(not isinstance(k, str) for k in meta):
        raise MalformedFileError("frontmatter field names must be text")
    if not _plain_data(meta):
        raise MalformedFileError("frontmatter values must be text, numbers, dates, lists and mappings with "
                                 "plain keys (no !!binary, !!set, !!omap or !!pairs)")
    return meta, "\n".join(text for _, text in loader.comments)


_SCALARS = (str, int, float, bool, dt.date, type(None))  # datetime is a date


def _plain_data(value: Any) -> bool:
    """Whether ``value`` is data every reader can carry (JSON with dates): YAML's explicit tags
    also make bytes (``!!binary``), sets and tuples (``!!set``, ``!!omap``, ``!!pairs``) and
    mappings keyed by dates, which once made ``export`` fail for the whole vault. Nesting is
    bounded by the loader (:data:`MAX_YAML_DEPTH`)."""
    if isinstance(value, _SCALARS):
        return True
    if isinstance(value, list):
        return all(_plain_data(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, (str, int, float, bool, type(None))) and _plain_data(v) for k, v in value.items())
    return False


def _weight(value: Any, depth: int = 1) -> int:
    """What _StrictLoader counts against :data:`MAX_YAML_NODES` for the data ``value`` read
    at ``depth`` (each value, a mapping's keys too, once per level it is nested at): the C
    loader's answer is taken only within the same bound, the Python loader's message past it."""
    if isinstance(value, list):
        return depth + sum(_weight(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return depth + sum(depth + 1 + _weight(v, depth + 1) for v in value.values())
    return depth


#: a quoted piece of PyYAML's message that names a token, not the file's text: ``'<scalar>'``,
#: ``','``, ``'\\t'``
_TOKEN_QUOTE = re.compile(r"""'(?:<[a-z ]+>|[^\w\s'"]{1,3}|\\[a-z0-9]{1,9})'""")


def _yaml_problem(exc: BaseException) -> str:
    """What is wrong with a frontmatter, from PyYAML's message and position, never quoting the
    file's own text. The message reaches agents (a tool's error, the notices of a sync) and the
    file may be a peer's: PyYAML quotes what it could not read (a tag, which ``%20`` escapes
    make any sentence; a ``!!float`` value), and an error line must not carry a peer's
    instructions outside the fence memory text is shown in (DESIGN §7). A quote of anything
    but a token's name ends the message; the line and column say where to look."""
    if isinstance(exc, RecursionError):
        return "nested too deeply"  # Python's wording varies with the call stack
    mark = None
    if isinstance(exc, yaml.MarkedYAMLError):
        words = exc.context or exc.problem or type(exc).__name__
        mark = exc.context_mark if exc.context else exc.problem_mark
    else:
        words = str(exc).split("\n", 1)[0] or type(exc).__name__
    pos = 0
    for found in re.finditer(r"['\"]", words):
        if found.start() < pos:
            continue
        token = _TOKEN_QUOTE.match(words, found.start())
        if not token:
            words = words[:found.start()]
            break
        pos = token.end()
    words = words.rstrip(" :,") or type(exc).__name__
    if mark is not None:  # the frontmatter's first line is the file's second
        words += f" at line {mark.line + 2}, column {mark.column + 1}"
    return words


class StrictYAMLHandler(YAMLHandler):
    """The python-frontmatter handler of memory files (see the module docstring).

    ``split`` keeps the body exactly (python-frontmatter's own ``loads`` strips it, so vault-mem
    calls ``split`` and ``load`` itself); ``format`` writes the house format: the YAML block, a
    blank line, the body ending in a newline.
    """

    FM_BOUNDARY = re.compile(r"^-{3}\r?$", re.MULTILINE)
    START_DELIMITER = END_DELIMITER = FENCE

    def detect(self, text: str) -> bool:
        first = text.removeprefix(_BOM).splitlines()[:1]
        return first == [FENCE]

    def split(self, text: str) -> tuple[str, str]:
        _, yaml_text, _, rest = split_exact(text)
        return yaml_text, rest

    def load(self, fm: str, **kwargs: object) -> dict[str, Any]:
        return load_yaml(fm)

    def load_with_comments(self, fm: str) -> tuple[dict[str, Any], str]:
        """:meth:`load`, plus the ``# comments`` of ``fm``, one per line, from the same pass."""
        return load_yaml_and_comments(fm)

    def export(self, metadata: dict[str, object], **kwargs: object) -> str:
        # one newline off, not strip(): a last value in '|+' style ends in meaningful newlines
        return dump_yaml(dict(metadata)).removesuffix("\n")

    def format(self, post: frontmatter.Post, **kwargs: object) -> str:
        body = post.content
        if body and not body.endswith("\n"):
            body += "\n"
        return f"{FENCE}\n{self.export(post.metadata)}\n{FENCE}\n" + (f"\n{body}" if body else "")


HANDLER = StrictYAMLHandler()


# --- in-place field edits ------------------------------------------------------------------


def _scan(yaml_text: str) -> tuple[list[yaml.Token], list[tuple[int, str]]] | None:
    """The tokens of ``yaml_text`` and its comments (offset, text), or None if it does not scan."""
    tokens: list[yaml.Token] = []
    try:
        loader = _StrictLoader(yaml_text)
    except yaml.YAMLError:
        return None
    try:
        while loader.check_token():
            tokens.append(loader.get_token())
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    return tokens, loader.comments


def same_value(a: Any, b: Any) -> bool:
    """Equal and of the same type, all the way down (``1``, ``1.0`` and ``True`` differ; so do a
    date and a datetime, and two mappings with their keys in another order): what decides
    whether a field's bytes may stay."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


class _Field:
    """One top-level field of a block mapping: its text is ``yaml_text[start:end]``, whole lines
    from its key to the end of the line its value ends on (a comment on that line included)."""

    def __init__(self, name: str, start: int, end: int, first_value: yaml.Token | None):
        self.name, self.start, self.end, self.first_value = name, start, end, first_value
        self.tail = ""  # what follows the value on its last line: spaces and a comment, or ""


_OPENERS = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
            yaml.FlowSequenceStartToken)
_FLOW_CLOSERS = (yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


def _fields(yaml_text: str, tokens: list[yaml.Token]) -> list[_Field] | None:
    """The top-level fields in file order, or None unless the frontmatter is one block mapping
    at column 0 whose keys are simple scalars (no directives, explicit ``?`` keys, flow mapping)."""
    fields: list[_Field] = []
    depth, seen, after_value = 0, False, False
    for i, tok in enumerate(tokens):
        if isinstance(tok, (yaml.StreamStartToken, yaml.StreamEndToken)):
            continue
        if isinstance(tok, (yaml.DirectiveToken, yaml.DocumentStartToken, yaml.DocumentEndToken)):
            return None
        if depth == 0:
            if seen or not isinstance(tok, yaml.BlockMappingStartToken) or tok.start_mark.column:
                return None
            seen, depth = True, 1
            continue
        if isinstance(tok, yaml.BlockEndToken):
            depth -= 1  # its mark sits at the next token: no part of the field's extent
            continue
        if depth == 1 and isinstance(tok, yaml.KeyToken):
            key = tokens[i + 1] if i + 1 < len(tokens) else None
            if not isinstance(key, yaml.ScalarToken) or key.start_mark.index != tok.start_mark.index \
                    or tok.start_mark.column:
                return None
            fields.append(_Field(key.value, tok.start_mark.index, key.end_mark.index, None))
            after_value = False
            continue
        if not fields:
            return None
        field = fields[-1]
        if after_value and field.first_value is None:
            field.first_value = tok
        if depth == 1 and isinstance(tok, yaml.ValueToken):
            after_value = True
        if isinstance(tok, _OPENERS):
            depth += 1
        elif isinstance(tok, _FLOW_CLOSERS):
            depth -= 1
        field.end = max(field.end, tok.end_mark.index)
    for f in fields:  # whole lines: up to and including the line break after the value
        if f.end and yaml_text[f.end - 1] not in "\n\r\x85\u2028\u2029":
            brk = _LINE_BREAK.search(yaml_text, f.end)
            value_end, f.end = f.end, brk.end() if brk else len(yaml_text)
            f.tail = yaml_text[value_end:brk.start() if brk else len(yaml_text)]
    if any(a.end > b.start for a, b in itertools.pairwise(fields)):
        return None
    return fields


def _emit(name: str, value: Any, old: _Field | None, comments: list[str]) -> str:
    """``name: value`` as YAML lines; a person's block list stays a block list at its column,
    quoted text keeps its quotes, and the comments that were inside the old field are kept (on
    its line, or just above it)."""
    dumper: type[yaml.SafeDumper] = _Dumper
    indent = 2
    first = old.first_value if old else None
    if type(value) is str and "\n" not in value and isinstance(first, yaml.ScalarToken) \
            and first.style in ("'", '"'):
        value = _QuotedStr(value)
        value.style = first.style
    if isinstance(value, list) and isinstance(first, (yaml.BlockSequenceStartToken, yaml.BlockEntryToken)):
        column = first.start_mark.column
        if column == 0:
            dumper = _IndentlessListDumper
        elif 2 <= column <= 9:  # the indents PyYAML can write
            dumper, indent = _BlockListDumper, column
    text = dump_yaml({name: value}, dumper=dumper, indent=indent)
    if not comments:
        return text
    if old and len(comments) == 1 and old.tail.strip() == comments[0] and text.count("\n") == 1:
        return f"{text[:-1]}{old.tail}\n"  # the comment where it was, aligned as it was
    if len(comments) == 1 and text.count("\n") == 1:
        return f"{text[:-1]}  {comments[0]}\n"
    return "".join(f"{c}\n" for c in comments) + text


def edit_fields(yaml_text: str, old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """``yaml_text`` (the frontmatter that parsed as ``old``) changed to hold ``new``, touching
    only the fields whose value changed (see the module docstring).

    Returns None when that cannot be done safely, for the caller to render the whole block:
    a shape :func:`_fields` does not take (flow mapping, directives, explicit keys, duplicate
    or merge keys: whatever makes the fields in the text differ from ``old``'s), or a ``new``
    whose fields are in another order than the edit would leave them. The caller still checks
    that the result reads back as ``new``.
    """
    scanned = _scan(yaml_text)
    if scanned is None:
        return None
    tokens, comments = scanned
    fields = _fields(yaml_text, tokens)
    if not fields or [f.name for f in fields] != list(old):
        return None
    kept = [f.name for f in fields if f.name in new]
    if kept + [k for k in new if k not in old] != list(new):
        return None
    newline = "\r\n" if "\r\n" in yaml_text else "\n"
    parts = [yaml_text[:fields[0].start]]
    for i, f in enumerate(fields):
        gap_end = fields[i + 1].start if i + 1 < len(fields) else len(yaml_text)
        if f.name in new and same_value(old[f.name], new[f.name]):
            parts.append(yaml_text[f.start:f.end])
        elif f.name in new:
            inside = [text for at, text in comments if f.start <= at < f.end]
            parts.append(_emit(f.name, new[f.name], f, inside).replace("\n", newline))
        parts.append(yaml_text[f.end:gap_end])
    added = [k for k in new if k not in old]
    if added and parts[-1] and parts[-1][-1] not in "\n\r\x85\u2028\u2029":
        parts.append(newline)  # the last line had no line break: the closing fence follows it
    parts.extend(_emit(k, new[k], None, []).replace("\n", newline) for k in added)
    return "".join(parts)
