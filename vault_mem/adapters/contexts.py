"""The context the agent hooks add, built from one vault: what a vault's daemon answers for them.

``session-start``: the memory preamble and INDEX.md (:func:`session_context`); ``user-prompt-submit``:
the memories that strongly match the prompt (:func:`prompt_context`); and, when several vaults
are in use, the piece one vault gives of the session context (:func:`index_context`).
:data:`READ_BUILDERS` names them for :mod:`vault_mem.adapters.reads` (the daemon runs them);
:mod:`vault_mem.adapters.hooks` runs the hooks and puts several vaults' pieces together.

Kept apart from the hooks so that the reads, which the several-vaults code calls back, do not
import the hooks that call it (no import cycle). Light to import, like the hooks: the tools and
the renderer are imported only when a context is built.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vault_mem.errors import UsageError
from vault_mem.model.verdict import STRONG

if TYPE_CHECKING:
    from vault_mem.vault.core import Vault

#: Claude Code keeps additionalContext inline up to about 10,000 characters; stay under it.
MAX_CONTEXT_CHARS = 9000
PROMPT_HITS = 3
#: Recall hits whose bodies together stay under this are shown whole; otherwise descriptions only
#: (a body is never cut: a procedure is read whole or not at all).
PROMPT_BODY_CHARS = 4000

def session_context(vault: Vault, event: dict[str, Any]) -> str:
    """The memory preamble (with the write policy), then INDEX.md as the agent's context carries
    it (fenced, authors named, unapproved peers left out), rendered within the room the preamble
    leaves under :data:`MAX_CONTEXT_CHARS`: built from the budget, never cut from the end, so
    every section keeps its newest lines or at least its "+N more" line."""
    from vault_mem.adapters.tools import context_index, memory_preamble  # lazy: the hooks' start-up time

    head = memory_preamble(vault.root, tools="vault-mem MCP tools") + "\n\n"
    return head + context_index(vault, max_chars=MAX_CONTEXT_CHARS - len(head))


#: other hooks' context an agent prepends to the prompt it hands a prompt hook (Gemini CLI, in
#: non-interactive mode, puts the session-start context there, INDEX.md included)
_HOOK_CONTEXT = re.compile(r"<hook_context>.*?</hook_context>", re.DOTALL)


def person_prompt(prompt: str) -> str:
    """What the person typed: ``prompt`` without the hook context an agent wrapped around it.
    Searched with INDEX.md and the write policy in it, every prompt matched the same things."""
    return _HOOK_CONTEXT.sub(" ", prompt).strip()


def prompt_context(vault: Vault, event: dict[str, Any]) -> str | None:
    """The memories that strongly match the prompt, or None when none does."""
    prompt = event.get("prompt")
    if not isinstance(prompt, str) or not person_prompt(prompt):
        return None
    prompt = person_prompt(prompt)
    # a peer's memories are left out of the search, not only of its hits: look-alikes of theirs
    # would otherwise take every place and keep the person's own memory out of the prompt
    hits = vault.recall(prompt, k=PROMPT_HITS, full=True, trusted_only=True).hits
    return prompt_hits_context([h.to_dict() for h in hits])


def prompt_hits_context(hits: list[dict[str, Any]]) -> str | None:
    """The prompt hook's context from recall hits (JSON, whole bodies): the strong hits of
    approved authors, fenced, each naming its vault when it has one; None when there is none.

    Whole, or a pointer: decided here; a peer's memory (an author not approved here) is never
    injected unasked, however close (recall on request still finds it, marked)."""
    from vault_mem.model.render import fence, memory_quote  # lazy: the hooks' start-up time

    hits = [h for h in hits if h.get("match") == STRONG and h.get("trusted", True)][:PROMPT_HITS]
    if not hits:
        return None
    whole = sum(len(h["body"]) for h in hits) <= PROMPT_BODY_CHARS
    quotes = []
    for h in hits:
        body = h["body"].strip()
        more = None if whole or not body else f"get {h['key']}"
        text = f"{h['description']}\n\n{body if whole else ''}".strip()
        quotes.append(memory_quote(key=h["key"], type_=h["type"], text=text, vault=h.get("vault"),
                                   author=h.get("author"), trusted=h.get("trusted", True),
                                   updated=h.get("date") or "undated", age_days=h.get("age_days"),
                                   note=h.get("note"), details=more))
    return fence(quotes, heading="Memories that may be relevant to this prompt (vault-mem recall):")


def index_context(vault: Vault, event: dict[str, Any]) -> str:
    """One vault's INDEX.md as the context carries it, within ``event["max_chars"]`` under
    ``event["heading"]``: the piece :func:`vault_mem.adapters.hooks.index_contexts` asks each vault (or its daemon) for."""
    from vault_mem.adapters.tools import context_index  # lazy: the hooks' start-up time

    chars, heading = event.get("max_chars"), event.get("heading")
    if not isinstance(chars, int) or isinstance(chars, bool) or not isinstance(heading, str):
        raise UsageError("index-context needs max_chars (a whole number) and heading (text)")
    return context_index(vault, max_chars=chars, heading=heading)


#: what each Claude Code hook adds to the context, by hook name (the daemon runs these too)
CONTEXT_BUILDERS: dict[str, Callable[[Vault, dict[str, Any]], str | None]] = {
    "session-start": session_context,
    "user-prompt-submit": prompt_context,
}
#: the piece of the session-start context one vault gives when several are in use
INDEX_CONTEXT = "index-context"
#: what a vault (or its daemon) answers for the hooks: the hooks' context, and that piece
READ_BUILDERS = {**CONTEXT_BUILDERS, INDEX_CONTEXT: index_context}
