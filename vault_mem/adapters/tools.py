"""The memory tools every agent adapter shares: schemas and dispatch.

One vocabulary everywhere (DESIGN §2): the tools ``remember``, ``recall``, ``forget``, ``get`` and
``list`` take the parameter names of the Python API (:class:`vault_mem.Vault`). The MCP server,
the agent loop and ``vault-mem tools`` all build on :data:`TOOLS`; nothing here knows about a
transport.

:func:`call_tool` (and :func:`dispatch`, its text alone) never raises: malformed JSON, missing or
unknown arguments, and every :class:`~vault_mem.errors.VaultMemError` come back as an error result
whose text says what to do next, so a model can correct its call and the agent loop keeps going.
A successful result also carries the vault's notices not reported yet (e.g. an interrupted write
that was recovered), each once.

Tool descriptions carry the write policy at the moment of use (recall before remember, reuse a
key to update, one present-tense line, reasons and dates for decisions, nothing secret, no
transcripts, no command output, nothing that can be re-read from the repository).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vault_mem.adapters.vaults import Vaults
from vault_mem.adapters.vaults import get_view as several_get_view
from vault_mem.config import TYPE_FOLDERS
from vault_mem.errors import UnreadableJSONError, UsageError, VaultMemError, marked_text
from vault_mem.index import queries
from vault_mem.model import render, verdict, views
from vault_mem.model.indexmd import CHARS_PER_TOKEN
from vault_mem.model.fusion import merge_recall
from vault_mem.model.memory import SOURCES, as_date
from vault_mem.model.terms import MAX_QUERIES
from vault_mem.store.gitfiles import held_agent_note
from vault_mem.store.jsonfiles import parse_json

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

log = logging.getLogger(__name__)

TYPES = list(TYPE_FOLDERS)
MAX_RECALL_K = 20

#: The write policy, as the agent should read it before writing (system prompt, MCP
#: instructions, Claude Code session context).
WRITE_POLICY = """\
Memory write policy:
- recall before remember: if a memory on the topic exists, update it by reusing its key; do not
  create a near-duplicate.
- One memory is one lasting fact, preference, decision or procedure. The description is one line
  in the present tense ("Uses Helix as the main editor"); details go in the body.
- A decision carries its reason and its date ("Use Postgres for the ledger (2026-11-29)" with
  "because ..." in the body). A procedure's body is the whole ordered procedure.
- Never store credentials or secrets (store where they live instead), conversation transcripts,
  command output or logs, or anything that can be re-read from the repository or its files.
- A memory flagged "may be outdated" is old: confirm it before relying on it, then update it.
""" + verdict.POLICY_LINE

_KEY_SCHEMA = {
    "type": "string",
    "description": "The memory's key and file name: lowercase words joined by '-', e.g. 'editor-choice'.",
    "pattern": "^[a-z0-9][a-z0-9._-]*$",
    "maxLength": 80,
}
#: get and forget also take ``personal:KEY`` / ``project:KEY`` (several vaults, DESIGN §8)
_NAMED_KEY_SCHEMA = {**_KEY_SCHEMA, "pattern": "^((project|personal):)?[a-z0-9][a-z0-9._-]*$", "maxLength": 89,
                     "description": _KEY_SCHEMA["description"] + " personal:KEY or project:KEY names its vault."}
_TYPE_SCHEMA = {"type": "string", "enum": TYPES}
_TAGS_SCHEMA = {"type": "array", "items": {"type": "string"}}


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, the description a model reads, and its JSON Schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]
    read_only: bool = True
    destructive: bool = False


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "remember",
        "Save one lasting memory, or update one by reusing its key (one git commit; the old version "
        "stays in history). Call recall first and reuse the key of an existing memory on the same "
        "topic. The description is one line in the present tense; a decision states its reason and "
        "date. Never store credentials, conversation transcripts, command output, or what can be "
        "re-read from the repository.",
        {
            "type": "object",
            "properties": {
                "key": _KEY_SCHEMA,
                "description": {"type": "string", "maxLength": 200,
                                "description": "One line, present tense: what this memory says."},
                "body": {"type": "string",
                         "description": "Optional details: the reason for a decision, the whole "
                                        "ordered steps of a procedure."},
                "type": {**_TYPE_SCHEMA, "default": "fact",
                         "description": "preference, fact, decision, procedure or note (default fact)."},
                "tags": {**_TAGS_SCHEMA, "description": "Optional short tags."},
                "source": {"type": "string", "enum": list(SOURCES), "default": "agent",
                           "description": "Who said so: 'user' when the user stated it, 'inferred' "
                                          "when you concluded it (default 'agent')."},
                "supersedes": {**_TAGS_SCHEMA, "description": "Keys of memories this one replaces."},
                "expires": {"type": "string", "format": "date",
                            "description": "YYYY-MM-DD after which this memory no longer holds."},
                "scope": {"type": "string", "description": "Agent or project this memory is for."},
                "refs": {**_TAGS_SCHEMA, "description": "Repository paths this memory is about."},
                "pinned": {"type": "boolean",
                           "description": "List it first in INDEX.md (only for what every session needs)."},
                "vault": {"type": "string", "enum": ["project", "personal"],
                          "description": "Where to write: 'project' (default: this project's vault) or "
                                         "'personal' (the person's own vault, for what holds across projects)."},
            },
            "required": ["key", "description"],
            "additionalProperties": False,
        },
        read_only=False,
    ),
    ToolSpec(
        "recall",
        verdict.RECALL_TOOL,
        {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What to look for, in plain words."},
                "queries": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_QUERIES,
                            "description": f"Optional: up to {MAX_QUERIES} other phrasings of the same "
                                           "question, in the words a stored memory might use (synonyms, "
                                           "the likely answer's terms); each memory counts by its best "
                                           "match among query and queries."},
                "k": {"type": "integer", "minimum": 1, "maximum": MAX_RECALL_K,
                      "description": "Most hits to return (default 5)."},
                "type": {**_TYPE_SCHEMA, "description": "Only memories of this type."},
                "tags": {**_TAGS_SCHEMA, "description": "Only memories carrying all these tags."},
                "scope": {"type": "string", "description": "Only memories for this agent or project."},
                "include_expired": {"type": "boolean",
                                    "description": "Also return expired and superseded memories."},
                "full": {"type": "boolean",
                         "description": "Whole bodies instead of excerpts (default false: a long "
                                        "body is cut with a marker; get KEY reads one whole)."},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "forget",
        "Delete a memory by key because it is wrong or no longer true (a git commit; a person can "
        "undo it). To correct a memory, prefer remember with the same key. personal:KEY or project:KEY "
        "where both vaults have the key.",
        {
            "type": "object",
            "properties": {"key": _NAMED_KEY_SCHEMA},
            "required": ["key"],
            "additionalProperties": False,
        },
        read_only=False,
        destructive=True,
    ),
    ToolSpec(
        "get",
        "Read one whole memory by key (a procedure comes back whole), with its age. Keys come from "
        "INDEX.md, recall or list; personal:KEY or project:KEY where both vaults have the key.",
        {
            "type": "object",
            "properties": {"key": _NAMED_KEY_SCHEMA},
            "required": ["key"],
            "additionalProperties": False,
        },
    ),
    ToolSpec(
        "list",
        "List memory keys with their one-line descriptions, optionally of one type or with all the "
        "given tags. To search by meaning use recall.",
        {
            "type": "object",
            "properties": {
                "type": {**_TYPE_SCHEMA, "description": "Only memories of this type."},
                "tags": {**_TAGS_SCHEMA, "description": "Only memories carrying all these tags."},
            },
            "additionalProperties": False,
        },
    ),
)
TOOL_NAMES = tuple(t.name for t in TOOLS)
_BY_NAME = {t.name: t for t in TOOLS}


def memory_preamble(root: Any = None, *, tools: str = "tools") -> str:
    """What every adapter tells a model first: what the memory is, its tools (from
    :data:`TOOL_NAMES`) and :data:`WRITE_POLICY`. ``root`` names the vault; ``tools`` is how the
    adapter's model sees them (``"vault-mem MCP tools"``). Each adapter adds its own tail: INDEX.md
    inline, or where to read it."""
    where = f" ({root})" if root else ""
    names = f"{', '.join(TOOL_NAMES[:-1])} and {TOOL_NAMES[-1]}"
    return (
        f"Long-term memory{where}: small Markdown files in a git repository, read and changed "
        f"through the {tools} {names}. Use recall when earlier knowledge could matter and get to "
        "read one memory whole; use remember only for what is worth keeping for later sessions.\n\n"
        + WRITE_POLICY
    )


#: what the fence around INDEX.md adds to it at most (heading, open and close lines, the tail)
_CONTEXT_FENCE_CHARS = 800


def context_index(vault: Vault, *, heading: str = "INDEX.md, what is remembered now (recall searches everything):",
                  max_chars: int | None = None, reconciled: bool = False) -> str:
    """INDEX.md as an agent's context carries it (session start, the agent's system prompt, the
    MCP resource, ``vault-mem index``): rendered from the sidecar, never read from disk (the file
    may be a peer's, from a ``git pull`` that changed no memory file, listing one that holds a
    credential, which the sidecar quarantines), without the memories of peers not
    approved on this machine (:meth:`~vault_mem.Vault.peer_memories`; recall still finds them,
    marked), fenced as data (:func:`vault_mem.model.render.fence`). The committed INDEX.md may
    list them: it is a file for people and git; what reaches the agent unasked is this.
    ``max_chars`` (a context of fixed size): rendered within the smaller of the vault's budget and
    that room, the fence's own lines counted, so every section keeps its lines or its "+N more"
    (never cut off the end). ``reconciled``: the caller has just brought the sidecar in line
    (``index --write``'s regeneration): not done again."""
    if not reconciled:
        vault.reconcile()
    vault.index_md(max_bytes=0)  # a symlinked INDEX.md is refused by name (LinkError), never served
    budget = None
    if max_chars is not None:
        room = max(0, max_chars - _CONTEXT_FENCE_CHARS) // CHARS_PER_TOKEN
        budget = min(vault.config.index_budget_tokens, room)
    while True:
        out = _fenced_index(vault, heading, budget)
        if max_chars is None or len(out) <= max_chars or not budget:
            return out
        # the fence took more than its allowance (a long heading naming a deep vault path, many
        # authors): render again within what is left, never cut the end (a section would go)
        budget = max(0, budget - ((len(out) - max_chars) // CHARS_PER_TOKEN + 1))


def _fenced_index(vault: Vault, heading: str, budget: int | None) -> str:
    text, legend, peers = vault.render_trusted_index(budget_tokens=budget)
    tail = ""
    if peers:  # counted, not named: an email is text its writer chose, and this line is outside the fence
        n, m = len(peers), len({a.email for a in peers.values()})
        tail = (f"Left out above: {n} memor{'y' if n == 1 else 'ies'} last changed by {m} author{'' if m == 1 else 's'} "
                "not approved on this machine; recall finds them, marked. The person reviews and approves "
                "authors with `vault-mem trust`.")
    held = vault.ws.held_count()
    if held:  # counted, never named nor quoted: their names and text are a peer's (inj32, atk32)
        tail = (tail + "\n" if tail else "") + held_agent_note(held)
    quote = render.Quote(text, (("file", "INDEX.md"), ("authors", legend.text() or "none")))
    return render.fence([quote], heading=heading, tail=tail)


def recall_text(data: dict[str, Any]) -> str:
    """A recall result (the data of the ``recall`` tool) as text for a model: what the data says
    about the search, then each hit fenced, naming its author (:mod:`vault_mem.model.render`)."""
    head = [str(data[k]) for k in ("note",) if data.get(k)]
    if data.get("keyword_only"):
        head.append(f"keyword results only: {data.get('reason')}")
    head += [f"notice: {n}" for n in data.get("notices", [])]
    hits = data.get("hits") or []
    if not hits:
        return "\n".join(head or ["nothing relevant is stored for this query"]) + "\n"
    quotes = [render.memory_quote(
        key=h["key"], type_=h["type"], text=f"{h['description']}\n\n{h['body']}".strip(),
        author=h.get("author"), trusted=h.get("trusted", True), vault=h.get("vault"), date=h.get("date"),
        age_days=h.get("age_days"), match=h.get("match"), score=h.get("score"), flags=h.get("flags"),
        note=h.get("note"), excerpt="cut: get KEY reads it whole" if h.get("excerpt") else None) for h in hits]
    return render.fence(quotes, heading="\n".join(head))


def get_text(view: dict[str, Any]) -> str:
    """A memory from ``get`` as text for a model: fenced, naming its author; our notes after it."""
    quote = render.memory_quote(
        key=view["key"], type_=view["type"], text=f"{view['description']}\n\n{view.get('body') or ''}".strip(),
        vault=view.get("vault"), author=view.get("author"), trusted=view.get("trusted", True),
        updated=view.get("updated"),
        age_days=view.get("age_days"), flags=view.get("flags"), tags=view.get("tags"))
    notes = [f"note: {n}" for n in view.get("notes", [])] + [f"notice: {n}" for n in view.get("notices", [])]
    return render.fence([quote], tail="\n".join(notes))


def list_rows(vault: Vault, *, type: str | None = None, tags: list[str] | None = None) -> list[dict[str, Any]]:
    """``list`` as every reader shows it (tools, MCP, ``list --json``): each row with its
    ``author`` and whether that author is ``trusted`` here (the committed author: a listing
    reads no file). The memories of authors trusted here come first, each part by type and
    key: a peer's 3,000 facts keyed ``aaa-N`` came before the person's own facts, 640 KB of
    them ahead in the MCP result, past what a client gives its model of one (atk23)."""
    rows = vault.list(type=type, tags=tags)
    who = vault.authors([r["path"] for r in rows], check_disk=False)
    for r in rows:
        r["author"], r["trusted"] = who[r["path"]].email, who[r["path"]].trusted
        # a file is read as it is: no length a peer chose makes a row longer than a written one,
        # so the person's rows stay within what a client hands its model of one result (atk25)
        r["description"] = views.description_excerpt(r["key"], r["description"])[0]
        if r.get("tags"):
            r["tags"] = views.tags_excerpt(r["tags"])
    return trusted_first(rows)


def trusted_first(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with the memories of authors trusted here first, the order kept within each part
    (type and key; vault by vault when several are read): one vault's peers' memories came before
    another vault's of the person's own (review of atk23)."""
    return sorted(rows, key=lambda r: not r.get("trusted", True))


def list_text(data: dict[str, Any]) -> str:
    """A ``list`` result as text for a model: each memory's description fenced, naming its author."""
    rows = data.get("memories") or []
    notices = "\n".join(f"notice: {n}" for n in data.get("notices", []))
    if not rows:
        return "no memories" + (f"\n{notices}" if notices else "") + "\n"
    quotes = [render.memory_quote(key=r["key"], type_=r["type"], text=r["description"], vault=r.get("vault"),
                                  author=r.get("author"),
                                  trusted=r.get("trusted", True), date=r.get("date"),
                                  # a peer's pinned: true pins nothing here: not said as ours
                                  pinned="yes" if r.get("pinned") and r.get("trusted", True) else None,
                                  tags=r.get("tags"))
              for r in rows]
    return render.fence(quotes, heading=f"{len(rows)} memories:", tail=notices)


def get_view(vault: Vault, key: str, *, today: dt.date | None = None) -> dict[str, Any]:
    """The memory ``key`` as ``get`` shows it everywhere (CLI, tools, MCP): the whole memory with
    its age, flags, reading notes and supersession (:func:`vault_mem.model.views.memory_view`)."""
    mem = vault.get(key)
    today = today or dt.date.today()
    distrusted = vault.untrusted_superseders()  # a peer's supersedes marks nothing superseded
    direct = queries.superseded_by(vault.sidecar.db, mem.key, today=today, distrusted=distrusted)
    chain = queries.supersession_chain(vault.sidecar.db, mem.key, today=today, distrusted=distrusted) if direct else []
    dated = as_date(queries.memory_date(vault.sidecar.db, mem.path))
    found = vault.find_file(mem.key)
    who = vault.authors([found[1]])[found[1]] if found else render.Author(None, "local")
    view = views.memory_view(mem, stale_after=vault.config.stale_after_days, superseded_by=direct,
                             chain=chain, today=today, dated=dated, trusted=who.trusted)
    view["author"], view["trusted"] = who.email, who.trusted
    return view


def schemas(format: str = "openai") -> list[dict[str, Any]]:
    """The tools as OpenAI ``tools=[...]`` entries (``openai``) or MCP ``Tool`` objects (``mcp``)."""
    if format == "openai":
        return [{"type": "function",
                 "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
                for t in TOOLS]
    if format == "mcp":
        return [{"name": t.name, "description": t.description, "inputSchema": t.parameters,
                 "annotations": {"readOnlyHint": t.read_only, "destructiveHint": t.destructive,
                                 "idempotentHint": t.read_only or t.name == "forget",
                                 "openWorldHint": False}}
                for t in TOOLS]
    raise UsageError(f"unknown schema format '{format}': use openai or mcp")


@dataclass
class ToolResult:
    """What a tool call produced: ``text`` for the model, ``data`` for structured clients."""

    text: str
    is_error: bool = False
    data: dict[str, Any] = field(default_factory=dict)


def dispatch(vault: Vault | Vaults, name: str, arguments_json: str | dict | None) -> str:
    """Run the tool ``name`` with JSON ``arguments_json`` on ``vault``; always a string, never raises."""
    return call_tool(vault, name, arguments_json).text


def call_tool(vault: Vault | Vaults, name: str, arguments: str | dict | None) -> ToolResult:
    """Like :func:`dispatch` but tells errors apart (the MCP server sets ``isError`` from it).

    A successful result's ``data`` carries ``notices``: the vault's state as it is now (a
    vault.toml waiting for approval, a peer's agent files HEAD holds: said in every result while
    it lasts, as every command says it) and the events noticed since the last report, each once
    (:meth:`~vault_mem.Vault.notices_now`)."""
    try:
        spec = _BY_NAME.get(name)
        if spec is None:
            raise UsageError(f"unknown tool '{name}': the tools are {', '.join(TOOL_NAMES)}")
        args = _check_arguments(spec, parse_arguments(arguments, name))
        several = isinstance(vault, Vaults) and vault.several and name in _SEVERAL
        where, args, vault_name = (vault, args, None) if several else _target(vault, name, args)
        data = (_SEVERAL if several else _HANDLERS)[name](where, args)
        if vault_name and name in ("remember", "forget"):
            data["vault_name"] = vault_name  # every write names its vault and file (DESIGN §8)
        if isinstance(data, dict):
            notices = vault.notices_now()  # the state as it is now: a session lasts for hours
            if notices:
                data["notices"] = [render.for_agent(n) for n in notices]
        text = _TEXT[name](data) if name in _TEXT else json.dumps(data, ensure_ascii=False, default=str)
    except VaultMemError as exc:
        return _error(render.for_agent(marked_text(exc)), type(exc).__name__)
    except Exception as exc:  # a bug must come back as a tool error, not kill the agent's loop
        # one line for the log; the stack trace only at debug level: it never reaches a user or model
        log.error("tool %s failed: %s: %s", name, type(exc).__name__, exc)
        log.debug("tool %s failed", name, exc_info=True)
        return _error(f"internal error in vault-mem ({type(exc).__name__}: {exc}); the memory vault "
                      "was not changed by this call unless a commit is listed by `vault-mem log`",
                      "InternalError")
    return ToolResult(text, False, data)


def _error(message: str, kind: str) -> ToolResult:
    data = {"error": message, "kind": kind}
    return ToolResult(json.dumps(data, ensure_ascii=False), True, data)


# -- arguments -----------------------------------------------------------------------------
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def parse_arguments(arguments: str | dict | None, name: str = "") -> dict[str, Any]:
    """The arguments object from what a model sent: a dict, a JSON text, a doubly encoded JSON
    text, or JSON inside a code fence. Anything else raises :class:`UsageError`."""
    if arguments is None:
        return {}
    if isinstance(arguments, dict):
        return arguments
    if not isinstance(arguments, str):
        raise UsageError(f"arguments for {name or 'the tool'} must be a JSON object, "
                         f"got {type(arguments).__name__}")
    text = arguments.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    if not text:
        return {}
    value: Any = text
    for _ in range(2):  # small models sometimes JSON-encode the arguments twice
        try:  # the one reader (not valid, nested past the parser's depth: attack25, too large)
            value = parse_json(value, what=f"arguments for {name or 'the tool'}",
                               then=f"send one JSON object, e.g. {_example(name)}")
        except UnreadableJSONError as exc:
            raise UsageError(str(exc)) from None
        if not isinstance(value, str):
            break
    if not isinstance(value, dict):
        raise UsageError(f"arguments for {name or 'the tool'} must be a JSON object, e.g. {_example(name)}")
    return value


def _example(name: str) -> str:
    return {
        "remember": '{"key": "editor-choice", "description": "Uses Helix as the main editor", "type": "preference"}',
        "recall": '{"query": "which editor does the user use"}',
        "forget": '{"key": "editor-choice"}',
        "get": '{"key": "editor-choice"}',
        "list": '{"type": "decision"}',
    }.get(name, "{}")


def _check_arguments(spec: ToolSpec, args: dict[str, Any]) -> dict[str, Any]:
    """Check ``args`` against the tool's declared JSON Schema: every parameter known (an unknown one
    is refused rather than dropped, so a body sent as ``content`` is not silently lost), every
    required one given, and every value of its declared JSON type, a list's items too
    (:func:`_type_problem`). A value of another type is refused, not converted: ``{"key": 5}``
    stored a memory keyed ``5`` and ``"k": "5"`` was read as 5 (issue 23), so what a client sent
    was not what the tool declares. ``null`` for an optional parameter means "not given" (its
    default): clients in OpenAI's strict function-calling mode must send every parameter and send
    ``null`` for the ones they leave out, and small local models do the same; for a required one it
    is refused like any other wrong type. What a value must be beyond its type (a key's form, a
    type's name, a date, a length) is the vault's own check, with its own message."""
    props: dict[str, Any] = spec.parameters["properties"]
    unknown = [k for k in args if k not in props]
    if unknown:
        raise UsageError(f"{spec.name} has no parameter {', '.join(repr(u) for u in unknown)}; "
                         f"its parameters are {', '.join(props)}")
    missing = [k for k in spec.parameters.get("required", []) if k not in args]
    if missing:
        raise UsageError(f"{spec.name} needs {', '.join(repr(m) for m in missing)}; e.g. {_example(spec.name)}")
    required = spec.parameters.get("required", [])
    out: dict[str, Any] = {}
    for k, v in args.items():
        if v is None and k not in required:
            continue  # not given: the default
        problem = _type_problem(props[k], v)
        if problem:
            raise UsageError(f"{spec.name}: '{k}' must be {problem}")
        if props[k]["type"] == "integer":
            v = int(v)  # 3.0 is an integer in JSON Schema
            lo, hi = props[k].get("minimum"), props[k].get("maximum")
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                raise UsageError(f"{spec.name}: '{k}' must be from {lo} to {hi}")
        out[k] = v
    return out


#: how the error names what a declared JSON type takes
_TAKES = {"string": "a string", "integer": "a whole number (a JSON integer, e.g. 3)", "boolean": "true or false",
          "array": 'a list of strings, e.g. ["a", "b"]', "number": "a number", "object": "a JSON object"}


def _type_problem(schema: dict[str, Any], value: Any) -> str | None:
    """What ``value`` must be and what it is, when it is not of ``schema``'s JSON type (the
    types the tool schemas declare: string, integer, number, boolean, array of a type, object);
    None when it is."""
    kind = schema["type"]
    if _json_type(value) in (("integer", "number") if kind == "number" else (kind,)):
        if kind != "array":
            return None
        items = schema.get("items", {}).get("type")
        odd = next((x for x in value if items and _json_type(x) != items), _NOTHING)
        if odd is _NOTHING:
            return None
        return f"{_TAKES[kind]}, got a list holding {_shown_type(odd)}"
    return f"{_TAKES[kind]}, got {_shown_type(value)}"


_NOTHING = object()


def _json_type(value: Any) -> str:
    """``value``'s JSON Schema type (an integral float is an integer, as JSON Schema counts it)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _shown_type(value: Any) -> str:
    """``value``'s JSON type for an error, with a short number or boolean: ``a number (5)``."""
    kind = _json_type(value)
    if kind in ("integer", "number"):
        text = repr(value)
        return f"a number ({text if len(text) <= 20 else text[:20] + '...'})"
    return {"null": "null", "boolean": "true" if value is True else "false", "string": "a string",
            "array": "a list", "object": "a JSON object"}.get(kind, kind)


# -- handlers ------------------------------------------------------------------------------
def _target(vault: Vault | Vaults, name: str, args: dict[str, Any]) -> tuple[Vault, dict[str, Any], str | None]:
    """The one vault a call acts on, its arguments and that vault's name: ``vault`` itself, or,
    for :class:`~vault_mem.adapters.vaults.Vaults`, the one the ``vault`` argument (remember)
    or the key's prefix (get, forget) names; a bare key, the vault holding it."""
    if not isinstance(vault, Vaults):
        if args.get("vault") not in (None, "project") or ":" in str(args.get("key", "")):
            raise UsageError(f"only one vault is served here ({vault.root}): leave out vault and give bare keys")
        return vault, {k: v for k, v in args.items() if k != "vault"}, None
    if name == "remember":
        target = vault.for_write_key(str(args.get("key", "")), args.get("vault")).name
        return vault.vault(target), {k: v for k, v in args.items() if k != "vault"}, target
    if name in ("get", "forget"):
        target, key, _ = vault.locate(args["key"], strict=name == "forget")
        return vault.vault(target), {**args, "key": key}, target
    return vault.vault(vault.names[0]), args, vault.names[0]


def _several_get(vaults: Vaults, a: dict[str, Any]) -> dict[str, Any]:
    return several_get_view(vaults, a["key"], lambda name, key: _get(vaults.vault(name), {"key": key}))


def _several_recall(vaults: Vaults, a: dict[str, Any]) -> dict[str, Any]:
    named = vaults.each(lambda n: _recall(vaults.vault(n), a))
    data = merge_recall(named, a.get("k") or max(vaults.vault(n).config.recall_k for n, _ in named))
    data["note"] = verdict.guidance(data["verdict"], keyword_only=bool(data.get("keyword_only")),
                                    reason=data.get("reason"), unembedded=data.get("unembedded", 0),
                                    unchecked=bool(data.get("unchecked")))
    return data


def several_list_rows(vaults: Vaults, rows_of: Callable[[str], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """``list`` of every vault in use as the MCP tool and ``vault-mem list`` show it: each row
    naming its vault, the memories of authors trusted here first across the vaults
    (:func:`trusted_first`). ``rows_of(name)``: one vault's :func:`list_rows` (read in this
    process, or its daemon's answer)."""
    return trusted_first([{**r, "vault": name} for name, got in vaults.each(rows_of) for r in got])


def _several_list(vaults: Vaults, a: dict[str, Any]) -> dict[str, Any]:
    rows = several_list_rows(vaults, lambda n: list_rows(vaults.vault(n), type=a.get("type"), tags=a.get("tags")))
    return {"memories": rows, "count": len(rows)}


#: the tools that read every vault when several are in use
_SEVERAL: dict[str, Callable[[Vaults, dict[str, Any]], dict[str, Any]]] = {
    "recall": _several_recall, "list": _several_list, "get": _several_get}


def _named_write(vault: Vault, data: dict[str, Any]) -> dict[str, Any]:
    """Every write names its file and its vault (DESIGN §8): ``vault``, the vault's folder
    (``vault_name`` is added by :func:`call_tool` when it chose among vaults)."""
    data["vault"] = str(vault.root)
    return data


def _remember(vault: Vault, a: dict[str, Any]) -> dict[str, Any]:
    # the frontmatter fields are Vault.remember's own keyword arguments, checked there
    fields = {name: a[name] for name in ("pinned", "expires", "supersedes", "scope", "refs") if name in a}
    result = vault.remember(a["key"], a["description"], a.get("body", ""), type=a.get("type", "fact"),
                            tags=a.get("tags"), source=a.get("source", "agent"), **fields)
    data = _named_write(vault, result.for_agent())
    if result.action == "unchanged":
        data["note"] = "identical to the stored memory: nothing changed, no commit"
    return data


def _recall(vault: Vault, a: dict[str, Any]) -> dict[str, Any]:
    result = vault.recall(a["query"], k=a.get("k"), type=a.get("type"), tags=a.get("tags"),
                          scope=a.get("scope"), include_expired=a.get("include_expired", False),
                          full=a.get("full", False), queries=a.get("queries"))
    hits = []
    for h in result.hits:  # whether the result is keyword-only is said once, below
        hit = {k: v for k, v in h.to_dict().items()
               if k != "keyword_only" and not (k == "note" and v is None) and not (k == "excerpt" and not v)}
        hit["score"] = round(h.score, 3)
        hits.append(hit)
    data: dict[str, Any] = {"hits": hits, "verdict": result.verdict,
                            "note": verdict.guidance(result.verdict, keyword_only=result.keyword_only,
                                                     reason=result.reason, unembedded=result.unembedded,
                                                     unchecked=result.unchecked)
                            + (f" ({result.note})" if result.note else "")}
    if result.unembedded:
        data["unembedded"] = result.unembedded
    if result.unchecked:
        data["unchecked"] = True
    if result.keyword_only:
        data["keyword_only"] = True
        data["reason"] = result.reason
    return data


def _forget(vault: Vault, a: dict[str, Any]) -> dict[str, Any]:
    data = _named_write(vault, vault.forget(a["key"]).for_agent())
    if not data["warnings"]:  # what went wrong after its commit landed, said as remember's are
        del data["warnings"]
    return data


def _get(vault: Vault, a: dict[str, Any]) -> dict[str, Any]:
    view = get_view(vault, a["key"])
    if not _has_extra_meta(view):
        view.pop("meta", None)  # everything in it is already shown; keep the result short
    return view


def _has_extra_meta(view: dict[str, Any]) -> bool:
    """True when the frontmatter holds fields beyond the ones the view already shows."""
    shown = {"description", "created", "updated", "source", "tags"}
    return any(k not in shown for k in (view.get("meta") or {}))


def _list(vault: Vault, a: dict[str, Any]) -> dict[str, Any]:
    rows = list_rows(vault, type=a.get("type"), tags=a.get("tags"))
    return {"memories": rows, "count": len(rows)}


#: the tools whose text for a model is memory text, fenced (the rest answer JSON text)
_TEXT: dict[str, Callable[[dict[str, Any]], str]] = {"recall": recall_text, "get": get_text, "list": list_text}

_HANDLERS: dict[str, Callable[[Vault, dict[str, Any]], dict[str, Any]]] = {
    "remember": _remember,
    "recall": _recall,
    "forget": _forget,
    "get": _get,
    "list": _list,
}
