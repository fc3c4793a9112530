"""``vault-mem mcp PATH``: the vault as an MCP server over stdio (official MCP Python SDK).

Tools are :data:`vault_mem.adapters.tools.TOOLS` (``remember``, ``recall``, ``forget``, ``get``,
``list``) with the same schemas the OpenAI-style adapters use; INDEX.md is the resource
``vault://index``. The server's instructions carry the write policy.

``vault-mem mcp`` with no PATH serves every vault of its working folder (the project vault and
the personal vault, DESIGN §8; :mod:`vault_mem.adapters.vaults`): recall and list read both, each
hit naming its vault; remember writes to the project vault unless its ``vault`` argument says
``personal``; get, forget and ``vault://memory/personal:KEY`` take a vault prefix; ``vault://index``
carries both INDEX.md files. Each vault has its own watcher and warm-up (:class:`Startup`).

A tool call that fails (bad arguments, unknown key, a refused secret, ...) comes back as a tool
result with ``isError: true`` and a message saying what to do next; the server itself never dies
on a bad call. Built on the SDK's low-level ``Server`` rather than ``MCPServer`` because the
schemas come from :mod:`vault_mem.adapters.tools`, not from Python signatures.

A request whose strings hold an unpaired UTF-16 surrogate (``"\\ud800"``: valid JSON, not valid
Unicode) is refused by the SDK's JSON parser before any handler sees it, and the SDK then answers
nothing: the client waits forever. :func:`screen_line` turns such a request, before the SDK reads
it, into one the handlers below answer with an error naming where the bad text is.

Vault calls run on the event loop's thread, one at a time: the vault's SQLite connection belongs
to that thread, and an stdio client sends one request at a time in practice anyway.

A server lives as long as its client's session, so it keeps itself current instead of
reconciling the vault on every call (1.3 s at 100k memories): while no daemon runs, its own
watcher (:class:`vault_mem.daemon.keeper.Keeper`) applies the changes before each call, so a
call right after a hand edit sees it; while a daemon runs, it leaves that to the daemon, and it
watches again if the daemon stops.

Start-up (:class:`Startup`): the model (:class:`~vault_mem.daemon.warmup.Warmup`) begins
loading as soon as the vault is open (:meth:`Startup.preload`), while the MCP SDK is imported and
``initialize`` answered: that import is ~0.5 s of one core (the lean import of :mod:`vault_mem.adapters.mcp_sdk`; ~0.6 s whole) holding the interpreter's lock, and the
model's load runs mostly outside that lock (onnxruntime), so on two cores they overlap instead of
following each other. The in-memory vectors, on the same thread, wait for ``initialize`` to be
answered: the first recall does not need them (see below), and loaded during the SDK's import
they took a core and the lock from it (docs/benchmarks.md, mcp39). The watch
and the first reconcile (:class:`~vault_mem.daemon.keeper.Keeper`) begin only once
``initialize`` is answered (on the client's ``notifications/initialized``, or its first call)
and the loads are in: run together with them on 2 cores, each took about twice as long.
The peers' memories (which a recall whose hits are a peer's leaves out when it asks again) are
judged at :meth:`Startup.preload` too, on a thread and a vault of their own, and the judgement is
kept in the sidecar (:class:`~vault_mem.vault.peers.KeptPeers`): the first recall brings it along
what changed since instead of judging every memory while the client waits (~1.9 s of CPU at
100k peers' memories); a recall that comes before it is done waits for it as for the model.
A recall that comes before the model is in waits for it until
:data:`~vault_mem.daemon.warmup.MODEL_WAIT_S` (10 s) after ``initialize``: a keyword-only answer
can miss a paraphrase of what is stored, so the first recall of a session is a full one. It
does not wait for the in-memory vectors: until they are in, it searches the vector table as a
one-shot command does (:class:`~vault_mem.daemon.warmup.Warmup`). Only when the model is still
not in is it answered with keyword results (``keyword_only`` with the
reason; never the verdict ``none``, see :mod:`vault_mem.model.verdict`). A call waits for the
start-up check of the files until :data:`READY_WAIT_S` after ``initialize`` (until
:data:`~vault_mem.daemon.warmup.MODEL_WAIT_S` when the index holds no memory yet while the type
folders hold memory files: a fresh clone's or a deleted sidecar's, which has nothing to answer
from; a new vault with no memory file waits no longer than usual; waited on a worker thread, as the
model is, so a close meanwhile ends the server at once), then is answered
from the index with the notice :data:`~vault_mem.daemon.keeper.CHECKING` (it may miss a change
made before the start); a recall searches during that wait, and again if the check ended in it
(:meth:`~vault_mem.daemon.keeper.Keeper.catch_up_meanwhile`); a recall answered before the
check that finds nothing has the verdict ``incomplete``, never ``none`` (the files may hold what
the index does not yet). Never silently worse or stale.

The server ends when its client closes stdin, at any moment, loads included: :func:`serve`
returns with the vault closed, the start-up work perhaps still running on its threads (a model
load cannot be stopped half-way), and ``vault-mem mcp`` ends the process without the
interpreter's teardown then (see ``cli.end_process``).
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vault_mem.adapters.mcp_notify import ChangeNotifier
from vault_mem.adapters.mcp_sdk import lean_import
from vault_mem.adapters.mcp_wire import LineReader, Wire, check_line
from vault_mem.adapters.tools import call_tool, context_index, memory_preamble, schemas
from vault_mem.store.gitfiles import held_agent_note
from vault_mem.adapters.vaults import Vaults
from vault_mem.config import PROJECT, VERSION, Config, NamedVault, VaultSet, usable_agent_text
from vault_mem.daemon.keeper import INDEX_RETRY_S, Keeper
from vault_mem.daemon.warmup import MODEL_WAIT_S, Warmup
from vault_mem.errors import UsageError, VaultMemError, for_person, marked_text
from vault_mem.model import render
from vault_mem.index.folderscan import holds_memory_files
from vault_mem.vault.core import Vault
from vault_mem.vault.history import memory_file

log = logging.getLogger(__name__)

INDEX_URI = "vault://index"
#: one memory file by key (``@REV`` for a committed version: a commit id, HEAD~2, a branch)
MEMORY_TEMPLATE = "vault://memory/{key}"
MEMORY_PREFIX = "vault://memory/"

SERVER_NAME = "vault-mem"
#: what :func:`screen_line` rewrites a request holding an unpaired surrogate into
BAD_TEXT_TOOL = "vault-mem.invalid-text"
BAD_TEXT_URI = "vault://invalid-text"
#: how long after the start-up work began a call waits for the start-up check of the files (then
#: answers from the index as it is, saying so); a recall waits for the model up to MODEL_WAIT_S
READY_WAIT_S = 0.25
READY_WAIT_ENV = "VAULT_MEM_MCP_READY_WAIT_S"


def _surrogate_at(value: Any, where: str) -> str | None:
    """Where in a parsed JSON value a string holds an unpaired surrogate (paired escapes are
    joined by the JSON parser, so any surrogate left is unpaired), or None."""
    if isinstance(value, str):
        return where if any("\ud800" <= c <= "\udfff" for c in value) else None
    if isinstance(value, dict):
        for k, v in value.items():
            found = _surrogate_at(k, f"{where} (a name)") or _surrogate_at(v, f"{where}.{k}")
            if found:
                return found.encode("ascii", "backslashreplace").decode()
    if isinstance(value, list):
        for i, v in enumerate(value):
            found = _surrogate_at(v, f"{where}[{i}]")
            if found:
                return found
    return None


def screen_line(line: str) -> str:
    """One line of the client's stdin, as the SDK should read it: unchanged, unless it is a
    request holding an unpaired surrogate, which becomes a request for :data:`BAD_TEXT_TOOL`
    (a tool call) or :data:`BAD_TEXT_URI` (anything else) with the same id, so the client gets
    an error saying what is wrong instead of no answer at all."""
    try:
        msg = json.loads(line)
    except ValueError:
        return line
    if not isinstance(msg, dict) or "method" not in msg or "id" not in msg:
        return line
    where = _surrogate_at(msg.get("params"), "params")
    if where is None:
        return line
    text = (f"the request's {where} holds an unpaired UTF-16 surrogate (a \\ud800-\\udfff escape "
            "without its pair), which is not Unicode text; nothing was done: send valid UTF-8 text")
    rid = msg["id"] if _surrogate_at(msg["id"], "id") is None else "invalid-id"
    if msg["method"] == "tools/call":
        params = {"name": BAD_TEXT_TOOL, "arguments": {"error": text}}
    else:
        params = {"uri": f"{BAD_TEXT_URI}?{msg['method']!s}".encode("ascii", "replace").decode(),
                  "_meta": {"error": text}}
        return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "resources/read", "params": params})
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params})


def instructions(vault: Vault | Vaults) -> str:
    """What an MCP client shows the model about this server (``vault``: one, or several)."""
    members = _members(vault)
    pending = ("\n\nNote for the person: vault.toml asks for settings not approved on this machine "
               "(they are not in force); they can review them with `vault-mem trust`.") \
        if any(v.ws.pending for v in members.values()) else ""
    if any(v.ws.held_count() for v in members.values()):
        pending += "\n\n" + held_agent_note()  # a peer's agent files HEAD holds unapproved (inj32, atk32)
    if isinstance(vault, Vaults) and vault.several:
        where = " and ".join(f"{name} vault {v.root}" for name, v in members.items())
        pending += ("\n\nremember writes to the project vault; pass vault: personal for what holds across "
                    "projects. Hits name their vault; get and forget take personal:KEY where both vaults "
                    "have the key.")
    else:
        where = next(iter(members.values())).root
    return (memory_preamble(where)
            + f"\n\nRead the resource {INDEX_URI} (INDEX.md) for what is remembered; recall searches "
            "everything." + pending)


#: the server's prompts: name -> (title, description, the text the client sends as the user)
PROMPTS = {
    "save-what-we-learned": (
        "Save what we learned",
        "Ask the agent to save this session's durable decisions, fixes and constraints as memories",
        ("Look back over this session. For each decision we settled (with its reason), each bug we "
        "found the cause and fix of, and each constraint or preference that will matter in later "
        "sessions, save one short memory with the `remember` tool: a one-line description in the "
        "present tense, the reason and today's date in the body. Use `recall` first and update an "
        "existing memory by its key instead of adding a near-duplicate. Do not save transcripts, "
        "command output, secrets or what the repository already says. Then list what you saved.")),
    "session-handoff": (
        "Session handoff",
        "Ask the agent to leave a dated handoff note for the next session",
        ("Write a handoff note for whoever continues this work in a later session: what we were "
        "doing, what is done, what is left, and anything surprising we found. Save it with the "
        "`remember` tool as type note, key `handoff-` followed by today's date (YYYY-MM-DD) and a "
        "short topic, a one-line description, and the details in the body.")),
}


def ready_wait() -> float:
    """:data:`READY_WAIT_S`, or ``$VAULT_MEM_MCP_READY_WAIT_S`` (seconds, 0 for no wait)."""
    raw = os.environ.get(READY_WAIT_ENV)
    if not raw:
        return READY_WAIT_S
    try:
        value = float(raw)
    except ValueError:
        raise UsageError(f"{READY_WAIT_ENV}={raw!r} must be a number of seconds; fix or unset it") from None
    if not value >= 0:
        raise UsageError(f"{READY_WAIT_ENV}={raw!r} must be 0 or more seconds; fix or unset it")
    return value


class Startup:
    """The server's start-up work on ``vault`` (see the module): its own watcher and first
    reconcile (:class:`Keeper`, installed as ``vault.kept_current``), the model and the vectors
    (:class:`Warmup`). :meth:`begin` starts them (once); calls then wait for the check of the
    files until ``wait_s`` after that, recalls for the model until ``model_wait_s``
    (default :data:`MODEL_WAIT_S`)."""

    def __init__(self, vault: Vault, open_vault: Callable[[], Vault], *, wait_s: float | None = None,
                 model_wait_s: float = MODEL_WAIT_S) -> None:
        self.vault = vault
        self.open_vault = open_vault
        self.wait_s = ready_wait() if wait_s is None else wait_s
        self.model_wait_s = model_wait_s
        self.keeper = Keeper(vault)
        vault.kept_current = self.keeper.catch_up
        vault.kept_exactly = self.keeper.caught_up_exactly
        vault.kept_meanwhile = self.keeper.catch_up_meanwhile
        self.warmup = Warmup(vault)
        #: the peers' memories judged at start-up (:meth:`_judge`), or that failed
        self.judged = threading.Event()
        self.begun: float | None = None
        #: the index held no memory, and the type folders some, when the start-up began (:meth:`begin`)
        self.empty_index = False

    def preload(self) -> None:
        """Begin loading the model and the vectors now, before ``initialize`` is answered: the
        MCP SDK's import before it (~0.5 s of one core, holding the interpreter's lock) leaves
        the other core idle, and the loads run mostly outside that lock (SQLite, numpy,
        onnxruntime), so the first full answer comes that much sooner. The check of the files
        still waits for :meth:`begin` and for the loads. The vectors wait for :meth:`begin`
        too (:meth:`Warmup.start`'s ``hold_vectors``): the first recall searches the vector
        table, and loading them meanwhile slowed the SDK's import."""
        self.warmup.start(hold_vectors=True)
        threading.Thread(target=self._judge, name="vault-mem-judge", daemon=True).start()

    def _judge(self) -> None:
        """Judge the peers' memories on a vault of this thread's own (its connection) and keep
        the judgement in the sidecar (:meth:`Vault.judge_peers`): the served vault's first read
        that needs it (a recall whose hits are a peer's, asked again without them) brings that
        along what changed since instead of judging every memory (~1.9 s of CPU at 100k
        peers' memories, which the first full answer paid). The served vault is handed the
        judgement itself and :attr:`judged` set before it is written to the sidecar, which
        then waits for another writer holding the lock (the next process brings it along).
        Nothing kept when it fails: the first read judges itself."""
        t0 = time.perf_counter()
        try:
            with self.open_vault() as vault:
                n = vault.judge_peers(to=self.vault, judged=self.judged.set)
            log.info("vault-mem: the peers' memories judged at start-up in %.0f ms (%d)", (time.perf_counter() - t0) * 1000, n)
        except Exception as exc:  # noqa: BLE001 - a cache: the first read judges itself
            log.warning("vault-mem: judging the peers' memories at start-up failed (%s); the first read judges them", exc)
        finally:
            self.judged.set()

    def wait_judged(self) -> bool:
        """Wait for the start-up judgement (:meth:`_judge`) until :data:`MODEL_WAIT_S` after
        :meth:`begin`, as a recall waits for the model: a read meanwhile would judge every
        memory itself, beside it. True when it is done."""
        if self.judged.is_set() or self.begun is None:
            return self.judged.is_set()
        return self.judged.wait(max(0.0, self.begun + self.model_wait_s - time.monotonic()))

    def begin(self) -> None:
        if self.begun is not None:
            return
        self.begun = time.monotonic()
        # an index that holds no memory yet (a fresh clone, a deleted sidecar) has nothing to
        # answer from before the check: a call waits for that as a recall waits for the model
        # (a vault with no memory file at all, as `vault-mem init` leaves it, lacks nothing: it
        # keeps the usual wait, not the model's, which its check waits for)
        self.empty_index = not self.vault.sidecar.holds_memories() and holds_memory_files(self.vault.root)
        wait_s = max(self.wait_s, self.model_wait_s) if self.empty_index else self.wait_s
        self.keeper.ready_by = self.begun + wait_s
        self.warmup.ready_by = self.begun + max(self.wait_s, self.model_wait_s)
        self.warmup.start()
        # the check of the files after the loads: run together on 2 cores, each took twice as
        # long (vectors 2.7 s instead of ~1.2 s at 100k); a change made meanwhile is still
        # found, by that check itself
        self.keeper.start_in_background(self.open_vault, after=self.warmup.ready)

    def close(self) -> None:
        self.keeper.close()


def _members(served: Vault | Vaults) -> dict[str, Vault]:
    """The open vaults a server serves, by name."""
    if isinstance(served, Vaults):  # a vault that refuses is left out, named (Vaults.each)
        return dict(served.each(served.vault))
    return {PROJECT: served}


def build_server(served: Vault | Vaults, startup: Startup | list[Startup] | None = None,
                 notifier: ChangeNotifier | None = None):
    """A low-level MCP ``Server`` serving the tools and INDEX.md of ``served``: one vault, or
    several (:class:`~vault_mem.adapters.vaults.Vaults`, opened; ``startup``: one per vault).
    ``notifier`` tells the clients of changes (:mod:`vault_mem.adapters.mcp_notify`): it learns
    the handshake-era client's session and subscriptions here, and serves ``subscriptions/listen``.

    A server lives as long as its client's session, so the vault's vectors are searched from an
    in-memory copy (loaded once, ~4 ms per search at 100k) rather than from ``vec0`` each time;
    ``startup`` loads it and the model in the background once ``initialize`` is answered."""
    # the MCP SDK is imported here, not at the top: importing it takes about half a second on
    # this machine, which importing this module (for `instructions`, or in tests) should not
    # cost; and only the parts a stdio server uses (mcp_sdk.lean_import)
    lean_import()
    from mcp import types
    from mcp.server.lowlevel import Server
    from mcp.server.subscriptions import ListenHandler
    from mcp.shared.exceptions import MCPError

    members = _members(served)
    several = isinstance(served, Vaults) and served.several
    vault = served if several else next(iter(members.values()))  # what the tools act on
    startups = [] if startup is None else list(startup) if isinstance(startup, list) else [startup]
    for member in members.values():
        member.sidecar.vectors.keep_vectors_in_memory = True

    def begin() -> None:
        for each in startups:
            each.begin()

    async def checked() -> None:
        # an index that held no memory waits for the start-up check of the files up to
        # MODEL_WAIT_S before a read: on a worker thread, so the loop still reads the client
        # meanwhile (a close while the check runs ends the server at once). The usual wait (a
        # quarter of a second) stays the read's own, which searches meanwhile (Keeper.catch_up_meanwhile)
        for each in startups:
            if each.empty_index and not each.keeper.checked():
                import anyio  # comes with the MCP SDK

                await anyio.to_thread.run_sync(each.keeper.wait_checked, abandon_on_cancel=True)

    tools = [types.Tool.model_validate(t) for t in schemas("mcp")]

    async def on_initialized(ctx, params) -> None:
        if notifier is not None:
            notifier.session = ctx.session  # a handshake-era client: notified on its session
        begin()  # initialize has been answered: the slow start-up work may begin now

    async def on_subscribe_resource(ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
        if notifier is not None:
            notifier.session = ctx.session
            notifier.subscribed.add(str(params.uri))
        return types.EmptyResult()

    async def on_unsubscribe_resource(ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        if notifier is not None:
            notifier.subscribed.discard(str(params.uri))
        return types.EmptyResult()

    async def on_list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        for member in members.values():
            attribute_to_client(member, ctx)
        if params.name == BAD_TEXT_TOOL:  # see screen_line
            text = json.dumps({"error": str((params.arguments or {}).get("error")), "kind": "UsageError"})
            return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)
        begin()
        for each in startups:
            if params.name == "recall" and not each.warmup.full.is_set():
                import anyio  # comes with the MCP SDK

                # up to MODEL_WAIT_S: waited on a worker thread, so the loop still reads the client
                # (a close while the model loads ends the server at once)
                await anyio.to_thread.run_sync(each.warmup.wait_ready, abandon_on_cancel=True)
            if params.name == "recall" and not each.judged.is_set():
                import anyio  # comes with the MCP SDK

                await anyio.to_thread.run_sync(each.wait_judged, abandon_on_cancel=True)
        if params.name in ("recall", "get", "list"):
            await checked()
        result = call_tool(vault, params.name, params.arguments)
        structured, meta = model_facing(result.text, result.data)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=result.text)],
            structured_content=structured,
            is_error=result.is_error,
            meta=meta,
        )

    async def on_list_resources(ctx, params) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[types.Resource(
            uri=INDEX_URI, name="INDEX.md", title="Memory index",
            description="What this agent remembers, one line per memory (generated from the files).",
            mime_type="text/markdown",
        )])

    async def on_list_resource_templates(ctx, params) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            uri_template=MEMORY_TEMPLATE, name="memory", title="A memory",
            description="One memory file (frontmatter and body) by its key; vault://memory/KEY@REV for the "
                        "version committed at REV (a commit id from `log`, HEAD~2, a branch); vault://memory/personal:KEY "
                        "for the personal vault's where both vaults have the key. "
                        f"Memory text {render.IS_DATA}.",
            mime_type="text/markdown")])

    async def on_list_prompts(ctx, params) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(name=name, title=title, description=description)
                                                for name, (title, description, _) in PROMPTS.items()])

    async def on_get_prompt(ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name not in PROMPTS:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"unknown prompt '{params.name}'; this server has {', '.join(PROMPTS)}")
        _, description, text = PROMPTS[params.name]
        return types.GetPromptResult(description=description, messages=[
            types.PromptMessage(role="user", content=types.TextContent(type="text", text=text))])

    async def on_read_resource(ctx, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        uri = str(params.uri)
        if uri.startswith(BAD_TEXT_URI):  # see screen_line
            meta = dict(params.meta or {})
            raise MCPError(code=types.INVALID_PARAMS, message=str(meta.get("error", "invalid text")))
        if uri.startswith(MEMORY_PREFIX):
            begin()
            await checked()
            key, _, rev = uri[len(MEMORY_PREFIX):].partition("@")
            try:
                owner = next(iter(members.values()))
                if several:
                    name, key, _ = served.locate_read(key, served.trusted_copy)
                    owner = members.get(name) or served.vault(name)  # a skipped vault: its refusal
                text = memory_text(owner, key, rev or None)
            except VaultMemError as exc:
                raise MCPError(code=types.INVALID_PARAMS, message=render.for_agent(marked_text(exc))) from None
            return types.ReadResourceResult(contents=[types.TextResourceContents(
                uri=uri, mime_type="text/markdown", text=text)])
        if uri != INDEX_URI:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"unknown resource '{params.uri}'; this server has {INDEX_URI} and "
                                   f"{MEMORY_TEMPLATE}")
        begin()
        await checked()
        try:
            text = "\n\n".join(context_index(member, heading=(
                f"INDEX.md of the {name} vault ({member.root}), what is remembered there now (recall searches "
                "everything):") if several else "INDEX.md, what is remembered now (recall searches everything):")
                for name, member in members.items())
        except Exception as exc:
            # the client gets the reason; the stack trace only at debug level, never at a user
            log.error("reading INDEX.md failed: %s: %s", type(exc).__name__, exc)
            log.debug("reading INDEX.md failed", exc_info=True)
            raise MCPError(code=types.INTERNAL_ERROR, message=f"cannot read INDEX.md: {exc}") from exc
        return types.ReadResourceResult(contents=[types.TextResourceContents(
            uri=INDEX_URI, mime_type="text/markdown", text=text)])

    server = Server(
        SERVER_NAME,
        version=VERSION,
        title="vault-mem",
        description="Long-term memory as Markdown files in git",
        instructions=instructions(served),
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        on_list_resources=on_list_resources,
        on_list_resource_templates=on_list_resource_templates,
        on_read_resource=on_read_resource,
        on_list_prompts=on_list_prompts,
        on_get_prompt=on_get_prompt,
        **({} if notifier is None else {
            "on_subscribe_resource": on_subscribe_resource, "on_unsubscribe_resource": on_unsubscribe_resource,
            "on_subscriptions_listen": ListenHandler(notifier.bus)}),
    )
    server.add_notification_handler("notifications/initialized", types.NotificationParams, on_initialized)

    return server


#: the key of a tool result's ``_meta`` that carries its data when its text is memory text
DATA_META = "vault-mem/data"


def model_facing(text: str, data: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """``(structuredContent, _meta)`` of a tool result whose text is ``text`` and data ``data``.

    A client may hand the model the structured content in place of the text: Claude Code 2.1
    gives it ``JSON.stringify(structuredContent)`` whenever there is one. So the structured
    content is the data only when the text says exactly that data (a write's result, as JSON);
    when the text is memory text (recall, get, list: fenced, DESIGN §7), the data, whose
    descriptions and bodies are that text bare, goes in ``_meta`` under :data:`DATA_META`, which
    no client shows a model, and the model reads the fenced text whichever field its client takes."""
    if not data:
        return None, None
    try:
        same = json.loads(text) == data
    except ValueError:
        same = False
    return (data, None) if same else (None, {DATA_META: data})


def memory_text(vault: Vault, key: str, rev: str | None) -> str:
    """Memory ``key``'s file, now or as committed at ``rev``, as an agent is shown memory text:
    the one fenced rendering, naming its author (:mod:`vault_mem.model.render`). Read through the
    vault's reads: a quarantined or malformed file is refused by name. A version from history
    is marked as one whose author is not checked (not trusted), whoever wrote it."""
    from vault_mem.model.render import fence, memory_quote

    if rev:
        rel, text = memory_file(vault.ws, key, rev)
        email, trusted = None, False
    else:
        vault.get(key)  # not found, quarantined, malformed: refused here, by name
        found = vault.find_file(key)
        data = vault.ws.disk_bytes(found[1]) if found else None
        if data is None:
            raise UsageError(f"memory '{key}' changed while it was read; read it again")
        rel, text = found[1], data.decode("utf-8")
        who = vault.authors([rel])[rel]
        email, trusted = who.email, who.trusted
    quote = memory_quote(key=key, type_=rel.split("/", 1)[0], text=text, author=email, trusted=trusted,
                         file=rel, version=rev)
    return fence([quote])


def attribute_to_client(vault: Vault, ctx) -> None:
    """Writes name the connecting client (its ``clientInfo`` name) as their agent when no agent
    name is configured (``--agent``, ``$VAULT_MEM_AGENT``, vault.toml ``[agent] name``)."""
    if vault.agent != Config.agent_name or os.environ.get("VAULT_MEM_AGENT"):
        return
    params = getattr(ctx.session, "client_params", None)
    info = getattr(params, "client_info", None)
    name = str(getattr(info, "name", "") or "").strip()
    if name and usable_agent_text(name[:64]):
        vault.ws.agent = name[:64]


async def serve_async(vault: Vault | Vaults, startup: Startup | list[Startup] | None = None) -> None:
    """Serve ``vault`` over this process's stdin and stdout until the client closes them.

    Every line passes :func:`vault_mem.adapters.mcp_wire.check_line` (a malformed one gets its
    JSON-RPC error, never silence or a crash) and then :func:`screen_line`, before the SDK
    reads it."""
    import anyio

    lean_import()
    from mcp.server.lowlevel import NotificationOptions
    from mcp.server.stdio import stdio_server  # the SDK only when serving (see build_server)

    keepers = [s.keeper for s in (startup if isinstance(startup, list) else [startup] if startup else [])]
    notifier = ChangeNotifier([v.root for v in _members(vault).values()], INDEX_URI,
                              activity={k.vault.root: k.activity for k in keepers})
    server = build_server(vault, startup, notifier)
    options = server.create_initialization_options(NotificationOptions(resources_changed=True))
    # the protocol's descriptors are kept private; fd 0 then reads /dev/null and fd 1 writes to
    # stderr, so that no child process (git) can read the protocol's bytes or write into it
    wire_in, wire_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    wire = Wire(wire_out)
    try:
        async with stdio_server(stdin=_CheckedLines(LineReader(wire_in), wire),  # type: ignore[arg-type]
                                stdout=wire) as (read_stream, write_stream):  # type: ignore[arg-type]
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(notifier.run)
                tasks.start_soon(_retry_owed_index, startup)
                await server.run(read_stream, write_stream, options)
                tasks.cancel_scope.cancel()
    finally:
        # fd 1 is the wire again; wire_in stays open: a worker thread may still be blocked
        # reading it, and a closed descriptor's number could be reused under it
        os.dup2(wire_out, 1)
        os.close(wire_out)


async def _retry_owed_index(startup: Startup | list[Startup] | None) -> None:
    """Every :data:`INDEX_RETRY_S`, on the event loop's thread (the one the vaults belong to): an
    INDEX.md that a person's git operation held back is written once the operation is over,
    not at the next call of an agent (:meth:`Keeper.retry_index`)."""
    import anyio

    keepers = [s.keeper for s in (startup if isinstance(startup, list) else [startup] if startup else [])]
    while keepers:
        await anyio.sleep(INDEX_RETRY_S)
        for keeper in keepers:
            try:
                keeper.retry_index()
            except Exception as exc:  # noqa: BLE001 - a retry must never end the server
                log.warning("vault-mem: writing INDEX.md again failed: %s: %s", type(exc).__name__, exc)


class _CheckedLines:
    """The client's lines as the SDK's stdio transport iterates over them: each read in bounded
    pieces, answered on ``wire`` when malformed, screened by :func:`screen_line` otherwise."""

    def __init__(self, reader: LineReader, wire: Wire):
        self.reader = reader
        self.wire = wire

    async def __aiter__(self):
        import anyio

        while True:
            # abandoned, not waited for, when the session is cancelled: the read may never return
            raw = await anyio.to_thread.run_sync(self.reader.next_line, abandon_on_cancel=True)
            if raw is None:
                return
            line, answer = check_line(raw)
            if answer is not None:
                await self.wire.write(answer)
            if line is not None:
                yield screen_line(line)


def serve(found: VaultSet | Path, agent: str | None = None, *, embedder: Any = None) -> None:
    """Open the vaults ``found`` (:func:`vault_mem.config.resolve_vaults`; a Path: that vault
    alone) and serve them over stdio (blocks until stdin closes).

    The start-up work (:class:`Startup`) begins once ``initialize`` is answered.
    ``embedder``: instead of vault.toml's (benches and tests).

    stdout carries the protocol and nothing else may be written there: whoever configures
    logging (the CLI, ``vault-mem mcp``) sends it to stderr. It returns when the client has
    closed, the start-up work perhaps still running (see the module)."""
    if isinstance(found, Path):
        found = VaultSet((NamedVault(PROJECT, found, "PATH"),))

    def opener(root: Path) -> Callable[[], Vault]:
        return lambda: Vault(root, agent=agent, embedder=embedder)

    # several: a vault that refuses to open (a teammate's symlink a `git pull` brought into the
    # project's memory/) is skipped, named, and the others are served (Vaults.each)
    probe = Vaults(found, agent=agent, daemon=False)
    opened = dict(probe.each(lambda name: opener(found.named(name).root)()))
    skipped = probe.take_notices()
    for note in skipped:
        log.warning("%s", for_person(note))
    startups = [Startup(opened[v.name], opener(v.root)) for v in found.vaults if v.name in opened]
    served: Vault | Vaults = (Vaults(found, agent=agent, daemon=False, opened=opened) if found.several
                              else opened[found.vaults[0].name])
    served.notices.extend(found.passed_notices)  # a teammate's vault.toml passed over in finding them
    if isinstance(served, Vaults):
        served.notices += skipped  # the first tool result says it too
    try:
        for startup in startups:
            startup.preload()  # while the SDK is imported (see Startup.preload)
        import anyio  # comes with the MCP SDK; only serving needs it (see build_server)

        anyio.run(serve_async, served, startups)
    finally:
        for startup in startups:
            startup.close()
        for vault in opened.values():
            vault.close()
