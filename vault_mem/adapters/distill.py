"""``vault-mem hook stop``: at the end of a session that did real work, ask the agent to save
what is worth keeping.

A memory is worth most as "a short, dated note tied to one decision", written while the session
still knows why. Agents rarely stop to write one, so when the agent is about to finish (Claude
Code's and Codex's ``Stop``, Gemini CLI's ``AfterAgent``), this hook reads the session's
transcript and, once per session and only when the session changed things (at least
:data:`MIN_CHANGES` edits, writes or commands), answers ``{"decision": "block", "reason": ...}``:
the agent goes on with the reason as its next instruction, saves durable decisions, fixes and
constraints through ``remember`` (under the write policy, like any write) or says there is
nothing to keep, and stops. It stays quiet for a trivial session, a session that already called
``remember``, a second stop of the same session, and when the transcript cannot be read: it
never nags without evidence, and never blocks a stop twice.

Which sessions were asked is kept as hashes of their ids in ``.vault-mem/asked-sessions`` (0600).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from vault_mem.config import STATE_DIR
from vault_mem.adapters.hook_event import event_of
from vault_mem.errors import NotAVaultError, UnreadableJSONError, VaultMemError
from vault_mem.store.files import ensure_own_dir, open_nofollow
from vault_mem.store.finder import resolve_vault_root
from vault_mem.store.jsonfiles import parse_json, read_text

#: edits, writes and commands a session must have made before it is asked to save anything
MIN_CHANGES = 3
#: the tools that change things, by each agent's name for them
CHANGING_TOOLS = frozenset({
    "Edit", "MultiEdit", "Write", "NotebookEdit", "Bash",  # Claude Code
    "apply_patch", "exec_command", "shell", "local_shell",  # Codex
    "replace", "write_file", "run_shell_command",  # Gemini CLI
})
ASKED_FILE = "asked-sessions"
#: a transcript larger than this is read from its end only (the work is what counts, not all of it)
MAX_TRANSCRIPT_BYTES = 8 * 1024 * 1024

REASON = (
    "Before you finish: this session changed things ({changes}). If it settled a decision, found "
    "the cause of a bug and its fix, or learned a constraint or preference that will matter in "
    "later sessions, save each as one short memory with the vault-mem `remember` tool: one "
    "lasting point per memory, a one-line description in the present tense, the reason and "
    "today's date in the body, and `recall` first so you update an existing memory instead of "
    "adding a near-duplicate. Do not save transcripts, command output, secrets or what the "
    "repository already says. If nothing durable came out of this session, say so in one line "
    "and finish."
)


def stop_hook(stdin_text: str, vault_path: str | None, extra: list[str]) -> tuple[int, str, str]:
    """The hook: ``(exit code, stdout, stderr)``; stdout is empty unless the agent is asked."""
    event = event_of(stdin_text)  # unreadable (not valid, nested past the parser's depth): empty
    if not event or event.get("stop_hook_active"):
        return 0, "", ""  # the agent is already going on because of a stop hook
    session = event.get("session_id")
    transcript = event.get("transcript_path")
    if not isinstance(session, str) or not session or not isinstance(transcript, str):
        return 0, "", ""
    cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else None
    try:
        root = resolve_vault_root(vault_path, start=Path(cwd) if cwd else None)
    except NotAVaultError as exc:
        return 1, "", f"vault-mem: {exc}; set --vault in the hook's command\n"
    counts = caught_up_tool_uses(Path(transcript))
    if counts is None or _remembered(counts):
        return 0, "", ""
    changes = _changes(counts)
    if sum(changes.values()) < MIN_CHANGES:
        return 0, "", ""
    try:
        if not first_ask(root / STATE_DIR, session):
            return 0, "", ""
    except (OSError, VaultMemError) as exc:
        return 0, "", f"vault-mem: not asking to save memories: {exc}\n"
    shown = ", ".join(f"{n} {name}" for name, n in sorted(changes.items(), key=lambda kv: -kv[1]))
    reply = {"decision": "block", "reason": REASON.format(changes=shown)}
    return 0, json.dumps(reply, ensure_ascii=False) + "\n", ""


def _remembered(counts: dict[str, int]) -> bool:
    return any(name.endswith("remember") for name in counts)


def _changes(counts: dict[str, int]) -> dict[str, int]:
    return {name: n for name, n in counts.items() if name in CHANGING_TOOLS}


#: how long the hook waits for the session's last lines to reach its transcript, at most (the
#: agent's hook time-out, 30 s as connect writes it, leaves room; the wait is normally ~0.1 s)
CATCH_UP_MAX_S = 10.0
#: a transcript whose format does not show where the session ended has caught up once its size
#: stays put this long (Codex's rollout, Gemini CLI's session file) ...
SETTLE_QUIET_S = 0.6
#: ... waiting at most this long in all
SETTLE_MAX_S = 3.0


def caught_up_tool_uses(transcript: Path) -> dict[str, int] | None:
    """:func:`tool_uses` of ``transcript`` once the agent has written the session's end to it.

    Claude Code starts its Stop hook before the session's last lines reach the transcript: it
    queues each line and appends the queue on a 100 ms timer (2.1.197, its session storage's
    ``FLUSH_INTERVAL_MS``; ``appendEntry`` does not wait for the write), and flushes nothing
    before a Stop hook, so with a quick last reply the session's last tool calls and its final
    reply land while the hook runs (anthropics/claude-code#15812, #40655). Its lines are written
    in order, so the transcript holds the whole session once its last conversation line is the
    assistant's final reply, an assistant message calling no tool. The hook waits for that,
    re-reading only when the file grew, at most :data:`CATCH_UP_MAX_S`; a wait that a quiet spell ended
    (0.6 s, and 0.3 s before it) missed a write landing later under load, and the size compared
    was taken after the read, so a line landing between the two was never read. A transcript
    whose format does not mark the end (no Claude Code lines) is read again until its size stays
    put :data:`SETTLE_QUIET_S` (at most :data:`SETTLE_MAX_S`), and only when it could change the
    answer. None when the transcript cannot be read."""
    import time  # lazy: the hook's start-up time

    size = _size(transcript)  # before the read: a line landing after it makes the file grow
    read = _read(transcript)
    if read is None:
        return None
    counts, ended = read
    if _remembered(counts) or (ended is None and not _changes(counts)):
        return counts  # saved already: nothing later changes the answer
    start = last_change = time.monotonic()
    limit = CATCH_UP_MAX_S if ended is not None else SETTLE_MAX_S
    while not ended and not _remembered(counts) and time.monotonic() - start < limit:
        time.sleep(0.05)
        now, current = time.monotonic(), _size(transcript)
        if current == size:
            if ended is None and now - last_change >= SETTLE_QUIET_S:
                break
            continue
        size, last_change = current, now
        read = _read(transcript)
        if read is None:
            return counts
        counts, ended = read
    return counts


def _size(transcript: Path) -> int:
    try:
        return os.stat(transcript).st_size
    except OSError:
        return -1


def _read(transcript: Path) -> tuple[dict[str, int], bool | None] | None:
    documents = _documents(transcript)
    if documents is None:
        return None
    counts: dict[str, int] = {}
    for doc in documents:
        _count(doc, counts, depth=0)
    return counts, _claude_end(documents)


#: the line Claude Code writes as the person's when they stop a turn (Esc): the turn ended there
_INTERRUPTED = "[Request interrupted by user"
#: lines of the main conversation's transcript that are not its turns: Claude Code's own
#: (reminders, hook feedback), a sub-agent's (older versions wrote them into the main file), the
#: summary a compaction writes as the person's
_NOT_A_TURN = ("isMeta", "isSidechain", "isCompactSummary")


def _claude_end(documents: list[Any]) -> bool | None:
    """Whether a Claude Code transcript holds the session's end: False while its last
    conversation line is the person's or a tool result (a reply is still to come) or a tool call,
    True once it is the assistant's reply calling no tool (an API error's too: Claude Code writes
    it as one) or the person's interruption of the turn; None for another format.

    The person's prompt, tool results and the assistant's messages are lines
    ``{"type": "user" | "assistant", "message": {"role": ..., "content": ...}}``; lines that are
    not the conversation's turns (:data:`_NOT_A_TURN`) and other entries do not count, so none of
    them keeps the hook waiting for a reply that is not coming."""
    last = None
    for doc in documents:
        if (isinstance(doc, dict) and doc.get("type") in ("user", "assistant")
                and not any(doc.get(flag) for flag in _NOT_A_TURN)
                and isinstance(doc.get("message"), dict) and "content" in doc["message"]):
            last = doc
    if last is None:
        return None
    content = last["message"]["content"]
    blocks = content if isinstance(content, list) else [content]
    if last["type"] == "user":
        return any(_INTERRUPTED in (block if isinstance(block, str) else str(block.get("text", "")))
                   for block in blocks if isinstance(block, (str, dict)))
    return not any(isinstance(block, dict) and block.get("type") == "tool_use" for block in blocks)


def tool_uses(transcript: Path) -> dict[str, int] | None:
    """Tool name -> how many times the session called it, from a transcript of JSON lines (or
    one JSON document); None when it cannot be read."""
    read = _read(transcript)
    return None if read is None else read[0]


def _documents(transcript: Path) -> list[Any] | None:
    """The transcript's JSON document, or its lines' (a line that is not JSON skipped: one the
    agent is still writing, one nested past the parser's depth); None when it cannot be read."""
    try:  # the one reader: a regular file only, never blocking (a FIFO there), its end when long
        text = read_text(transcript, then="", max_bytes=MAX_TRANSCRIPT_BYTES, tail=True)
    except UnreadableJSONError:
        return None
    if text is None:
        return None
    try:
        return [parse_json(text, what="the transcript")]
    except UnreadableJSONError:  # JSON lines; a line nested past the parser's depth (a tool's
        documents = []            # structured result) is unreadable, not an error (attack25)
        for line in text.splitlines():
            try:
                documents.append(parse_json(line, what="a transcript line"))
            except UnreadableJSONError:
                continue
        return documents


def _count(node: Any, counts: dict[str, int], *, depth: int) -> None:
    """Count tool calls anywhere in ``node``: Claude's ``tool_use`` blocks, Codex's
    ``function_call`` items, Gemini's ``functionCall`` parts and ``toolCalls`` entries."""
    if depth > 12:
        return
    if isinstance(node, dict):
        name = None
        if node.get("type") in ("tool_use", "function_call", "custom_tool_call"):
            name = node.get("name")
        elif isinstance(node.get("functionCall"), dict):
            name = node["functionCall"].get("name")
        if isinstance(name, str):
            counts[name] = counts.get(name, 0) + 1
        for key, value in node.items():
            if key == "toolCalls" and isinstance(value, list):  # Gemini CLI's recorded calls
                for call in value:
                    if isinstance(call, dict) and isinstance(call.get("name"), str):
                        counts[call["name"]] = counts.get(call["name"], 0) + 1
            elif key != "functionCall":
                _count(value, counts, depth=depth + 1)
    elif isinstance(node, list):
        for item in node:
            _count(item, counts, depth=depth + 1)


def first_ask(state_dir: Path, session: str) -> bool:
    """Record that ``session`` was asked; False when it had been already."""
    digest = hashlib.sha256(session.encode()).hexdigest()[:32]
    # never through a link (DESIGN §7): this hook opens no Workspace, whose check refuses one, and
    # a teammate's commit of a `.vault-mem` symlink reaches a fresh clone before any command ran
    ensure_own_dir(state_dir)
    fd = open_nofollow(state_dir / ASKED_FILE, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "r+", encoding="ascii", errors="replace") as f:
        if digest in f.read().split():
            return False
        f.write(digest + "\n")
    return True
