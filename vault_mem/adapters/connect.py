"""``vault-mem connect AGENT``: write an agent's MCP configuration and hooks for a vault.

Each agent keeps its configuration in its own files; this merges vault-mem's entries into them
and leaves everything else as it was (a person's other servers, settings and hooks survive), so
a second run changes nothing. What each agent gets:

| agent | scope user | scope project | hooks |
|---|---|---|---|
| claude-code | ``~/.claude.json`` ``mcpServers``, ``~/.claude/settings.json`` hooks | ``~/.claude.json`` ``projects[<top of the repository>].mcpServers`` (Claude Code's local scope), ``.claude/settings.local.json`` hooks (kept out of commits); nothing in ``.mcp.json``, no server approved by name | SessionStart, UserPromptSubmit, Stop |
| codex | ``~/.codex/config.toml`` ``[mcp_servers.vault-mem]``, ``~/.codex/hooks.json`` (hooks are on by default since Codex 0.1xx's ``hooks`` feature) | ``.codex/config.toml``, ``.codex/hooks.json`` | SessionStart, UserPromptSubmit, Stop |
| gemini | ``~/.gemini/settings.json`` ``mcpServers`` and ``hooks`` | ``.gemini/settings.json`` | SessionStart, BeforeAgent, AfterAgent |
| cursor | ``~/.cursor/mcp.json`` | ``.cursor/mcp.json`` | none (Cursor's prompt hook cannot add context) |

Commands name vault-mem by its absolute path (an agent's PATH often lacks the virtual
environment). A vault given (``--vault``) is named by its absolute path and is then the only one
the agent uses; without one, the commands name none, and each session uses the vaults of its
working folder (the project vault and the personal vault, DESIGN §8): one user-scope connection
serves every project. Claude Code's project scope writes nothing a commit carries: a committed
``.mcp.json`` server approved by its name ran whatever command a teammate's later commit gave
that name (issue 23); Codex trusts a project hook by its content's hash, Gemini CLI warns of a
project hook whose name or command is new, and neither is given an approval by connect. A file
that is not what its agent expects (JSON
that does not parse, a TOML table of the wrong shape) is never overwritten: the call fails naming
the file. :func:`connect` only plans and writes; the CLI prints what it returns.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_mem.errors import ConfigError, UnreadableJSONError, UsageError
from vault_mem.model.names import shell_word, shown
from vault_mem.platform.programs import which
from vault_mem.store.agentfiles import committed, keep_out_of_commits, project_top
from vault_mem.store.files import atomic_write
from vault_mem.store.jsonfiles import parse_json, read_text
from vault_mem.store.workspace import committed_link_on

SERVER = "vault-mem"
AGENTS = ("claude-code", "codex", "gemini", "cursor")
SCOPES = ("user", "project")
#: vault-mem's hook names, by each agent's name for the event
_CLAUDE_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "Stop": "stop"}
_GEMINI_EVENTS = {"SessionStart": "session-start", "BeforeAgent": "user-prompt-submit", "AfterAgent": "stop"}
#: a hook command is vault-mem's when it runs ``... hook session-start`` etc. through vault-mem
OUR_HOOK = re.compile(r"vault-mem\S*\s.*\bhook (session-start|user-prompt-submit|stop)\b")


@dataclass(frozen=True)
class Change:
    """One file ``connect`` wrote (or would write): ``action`` is created, updated or unchanged."""

    path: Path
    action: str
    what: str

    def to_dict(self) -> dict[str, str]:
        return {"path": str(self.path), "action": self.action, "what": self.what}


def executable() -> str:
    """vault-mem's entry point by absolute path: beside this Python (a virtual environment),
    else on PATH's absolute folders (:func:`~vault_mem.platform.programs.which`: a relative
    entry would find a teammate's ``vault-mem`` in the project), else the one running now."""
    beside = Path(sys.executable).parent / "vault-mem"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = which("vault-mem")
    if found:
        return str(Path(found).resolve())
    argv0 = Path(sys.argv[0]).resolve()
    if argv0.name == "vault-mem" and argv0.is_file():
        return str(argv0)
    raise UsageError("cannot find the vault-mem command to write into the agent's configuration; "
                     "install vault-mem from its source folder (`pip install .` there, as README says) and run "
                     "`vault-mem connect` from that install")


def connect(agent: str, vault_root: Path | None, *, scope: str = "user", project: Path | None = None,
            home: Path | None = None, dry_run: bool = False, exe: str | None = None) -> list[Change]:
    """Merge vault-mem's MCP server and hooks for ``vault_root`` (None: the vaults of each
    session's working folder) into ``agent``'s configuration.

    ``scope`` ``user`` writes under ``home`` (default ``~``), ``project`` under ``project``
    (default: the working folder). ``dry_run`` computes the same changes and writes nothing."""
    if agent not in AGENTS:
        raise UsageError(f"unknown agent '{agent}': use one of {', '.join(AGENTS)}")
    if scope not in SCOPES:
        raise UsageError(f"unknown scope '{scope}': use user or project")
    home_dir = Path(home or Path.home())
    base = home_dir if scope == "user" else Path(project or Path.cwd())
    ctx = _Context(base=base.resolve(), scope=scope, vault=str(Path(vault_root).resolve()) if vault_root else "",
                   exe=exe or executable(), home=home_dir)
    plan = _PLANS[agent](ctx)
    if scope == "project":  # a clone's committed link never decides where connect writes (attack25)
        _refuse_committed_links(base.resolve(), [path for path, *_ in plan if path.is_relative_to(base.resolve())])
    changes = []
    for path, old, new, what in plan:
        action = "unchanged" if old == new else ("updated" if old is not None else "created")
        if action != "unchanged" and not dry_run:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, new.encode("utf-8"), expect=old.encode("utf-8") if old is not None else None,
                         mode=0o600 if path.name.startswith(".claude.json") else 0o644)
            if path.name in _LOCAL_FILES and scope == "project":
                keep_out_of_commits(path)  # this machine's: never offered to the person's commits
        changes.append(Change(path, action, what))
    return changes


def _refuse_committed_links(base: Path, paths: list[Path]) -> None:
    """Refuse, before anything is written, a file of the project's whose way from ``base`` passes
    a symlink the repository holds (a teammate's ``.claude -> ~/.claude`` would have connect write
    the person's own settings outside the project, printed as the project's):
    :func:`~vault_mem.store.workspace.committed_link_on`. A link of the person's own is followed."""
    for path in paths:
        link = committed_link_on(path)
        if link is not None and link.is_relative_to(base) and link != base:
            raise UsageError(f"{shown(str(link))} is a symlink that the repository holds: a commit made it, so "
                             "where it points is anyone's choice, and connect writes nothing through it; "
                             f"nothing was written. See whose commit made it (`git log -- {shell_word(str(link))}`), "
                             "or connect with --scope user")


@dataclass(frozen=True)
class _Context:
    base: Path
    scope: str
    vault: str  # "": none pinned
    exe: str
    home: Path  # the person's home: Claude Code's local scope is in it whatever the scope

    def command(self, *args: str) -> str:
        """A hook's command line. An agent CLI runs it in the project (the vault, whose files a
        peer's commits fill) with the person's environment: an empty ``PYTHONPATH`` entry
        would put that folder ahead of Python's own modules, and a peer's ``encodings/`` or
        ``json.py`` would run at start-up, before vault-mem can do anything (DESIGN §7). So the
        command drops ``PYTHONPATH`` first, as the git hooks do (``env`` by absolute path)."""
        pinned = ("--vault", self.vault) if self.vault else ()
        env = which("env")
        clean = (env, "-u", "PYTHONPATH") if env else ()
        return " ".join(shlex.quote(a) for a in (*clean, self.exe, *pinned, *args))

    def server(self, *, env_in_args: bool = False) -> dict[str, Any]:
        """The MCP server's entry. An empty ``PYTHONPATH`` is Python's "unset": whatever the
        agent passes on, no entry of it can name the working folder (see :meth:`command`).
        ``env_in_args``: the agent ignores a server's ``PYTHONPATH`` (Gemini CLI drops it as a
        "dangerous environment variable override" and passes the person's own on), so the
        server starts through ``env -u PYTHONPATH`` as the hooks do."""
        args = ["mcp", self.vault] if self.vault else ["mcp"]
        env = which("env")
        if env_in_args and env:
            return {"command": env, "args": ["-u", "PYTHONPATH", self.exe, *args]}
        return {"command": self.exe, "args": args, "env": {"PYTHONPATH": ""}}


#: (path, old text or None, new text, what it holds)
_Plan = list[tuple[Path, str | None, str, str]]


#: what a message about a file connect cannot read ends with
THEN = "run connect again (nothing was written)"


def read_config(path: Path) -> str | None:
    """An agent configuration's text, None when there is none: the one reader
    (:func:`~vault_mem.store.jsonfiles.read_text`: a regular file only, never blocking, bounded).
    The working folder's files are a clone's: a teammate's committed ``.mcp.json -> /dev/zero``
    made connect and doctor read until memory ran out (attack25). A committed link is refused
    before anything is written (:func:`_refuse_committed_links`)."""
    return read_text(path, then=THEN)


def _json_edit(path: Path, edit: Callable[[dict[str, Any]], None], what: str) -> tuple[Path, str | None, str, str]:
    old = read_config(path)
    data = parse_json(old, what=str(path), then=f"fix it or move it aside, then {THEN}") if old and old.strip() else {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; fix it or move it aside (nothing was written)")
    edit(data)
    new = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if old is not None and _same_json(old, data):
        new = old  # a file whose content already matches keeps its bytes (formatting, key order)
    return path, old, new, what


def _same_json(old: str, data: dict[str, Any]) -> bool:
    try:
        return parse_json(old, what="") == data
    except UnreadableJSONError:
        return False


def _table(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: '{key}' is not an object; fix it or move the file aside (nothing was written)")
    return value


def _merge_hooks(data: dict[str, Any], path: Path, events: dict[str, str], ctx: _Context, *,
                 matcher: dict[str, str], extra: dict[str, Any]) -> None:
    """Claude Code's hook shape (Codex and Gemini CLI use it too): ``hooks.EVENT`` is a list of
    ``{matcher?, hooks: [{type, command, ...}]}``. Our entries are replaced in place; a person's
    entries (in the same groups too) are kept."""
    hooks = _table(data, "hooks", path)
    for event, name in events.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise ConfigError(f"{path}: hooks.{event} is not a list; fix it or move the file aside")
        entry = {"type": "command", "command": ctx.command("hook", name), **extra}
        placed = False
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(inner, list):
                continue
            for i, hook in enumerate(inner):
                if isinstance(hook, dict) and OUR_HOOK.search(str(hook.get("command", ""))) \
                        and str(hook.get("command", "")).endswith(f"hook {name}"):
                    if placed:
                        inner[i] = None  # a duplicate of ours: dropped below
                    else:
                        inner[i] = entry
                        if event in matcher:
                            group["matcher"] = matcher[event]
                        placed = True
            group["hooks"] = [h for h in inner if h is not None]
        hooks[event] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not placed:
            group = {"matcher": matcher[event]} if event in matcher else {}
            hooks[event].append({**group, "hooks": [entry]})


# -- Claude Code -------------------------------------------------------------------------------
def _claude(ctx: _Context) -> _Plan:
    def server(data: dict[str, Any], path: Path) -> None:
        _table(data, "mcpServers", path)[SERVER] = {"type": "stdio", **ctx.server()}

    def hooks(path: Path):
        return lambda data: _merge_hooks(data, path, _CLAUDE_EVENTS, ctx,
                                         matcher={"SessionStart": "startup|resume|clear|compact"},
                                         extra={"timeout": 30})

    if ctx.scope == "user":
        mcp, settings = ctx.base / ".claude.json", ctx.base / ".claude" / "settings.json"
        return [_json_edit(mcp, lambda d: server(d, mcp), "MCP server (user scope)"),
                _json_edit(settings, hooks(settings), "SessionStart, UserPromptSubmit and Stop hooks")]
    # project scope: nothing of it in a file a commit carries. The server goes in Claude Code's
    # local scope (~/.claude.json projects[<top of the repository>], what `claude mcp add --scope
    # local` writes), which outranks a committed .mcp.json entry of the same name; the hooks in
    # .claude/settings.local.json, kept out of commits. A committed server approved by its name
    # (enabledMcpjsonServers) ran whatever command a teammate's later commit gave that name
    # (issue 23): no name is approved, and the approval and entries an older connect wrote go.
    claude_json, local = ctx.home / ".claude.json", ctx.base / ".claude" / "settings.local.json"
    if committed(local):
        raise UsageError(f"{shown(str(local))} is a file a commit holds: it is meant to be this machine's alone, and "
                         "the hooks in it run as you whoever wrote them, so connect writes nothing into it (nothing "
                         f"was written). See whose commit added it (`git log -- {shell_word(str(local))}`) and "
                         "remove it from the repository (`git rm --cached`), or connect with --scope user")
    key = str(project_top(ctx.base))

    def register(data: dict[str, Any]) -> None:
        entry = _table(_table(data, "projects", claude_json), key, claude_json)
        _table(entry, "mcpServers", claude_json)[SERVER] = {"type": "stdio", **ctx.server()}
        _unapprove(entry, claude_json)

    def local_hooks(data: dict[str, Any]) -> None:
        hooks(local)(data)
        _unapprove(data, local)

    plan = [_json_edit(claude_json, register, "MCP server for this project only, on this machine "
                       "(Claude Code's local scope)"),
            _json_edit(local, local_hooks, "SessionStart, UserPromptSubmit and Stop hooks (this machine's, "
                       "kept out of commits)")]
    # what an older connect put in the project's committed files: taken out (commit that change)
    # (read as strictly as the files connect writes: one it cannot read is named, nothing written)
    mcp, settings = ctx.base / ".mcp.json", ctx.base / ".claude" / "settings.json"
    for path, edit, what in (
            (mcp, _drop_server, "vault-mem's server taken out of this committed file (it runs "
             "from the local scope now; commit this change)"),
            (settings, lambda d: _drop_hooks(d, settings), "vault-mem's hooks taken out of this committed file "
             "(they are in settings.local.json now; commit this change)")):
        if os.path.lexists(path):
            step = _json_edit(path, edit, what)
            if step[1] != step[2]:
                plan.append(step)
    return plan


#: the files connect writes that are this machine's alone (kept out of the person's commits)
_LOCAL_FILES = frozenset({"settings.local.json"})


def _unapprove(data: dict[str, Any], path: Path) -> None:
    """Withdraw an approval by name of a committed server called vault-mem (an older connect's,
    or the answer to Claude Code's dialog): with it, whatever command a teammate's commit gives
    that name runs unasked. The person's approvals of other servers stay."""
    enabled = data.get("enabledMcpjsonServers")
    if enabled is None:
        return
    if not isinstance(enabled, list):
        raise ConfigError(f"{path}: enabledMcpjsonServers is not a list; fix it or move the file aside")
    if SERVER in enabled:
        data["enabledMcpjsonServers"] = [name for name in enabled if name != SERVER]


def _drop_server(data: dict[str, Any]) -> None:
    servers = data.get("mcpServers")
    if isinstance(servers, dict):
        servers.pop(SERVER, None)


def _drop_hooks(data: dict[str, Any], path: Path) -> None:
    """Take vault-mem's hook entries out of ``data`` (a Claude Code settings file); a person's
    entries, in the same groups too, stay; a group or event left empty goes."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event, groups in list(hooks.items()):
        if not isinstance(groups, list):
            continue
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(inner, list):
                group["hooks"] = [h for h in inner if not (isinstance(h, dict) and OUR_HOOK.search(str(h.get("command", ""))))]
        hooks[event] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
        if not hooks[event]:
            del hooks[event]
    if not hooks:
        del data["hooks"]


# -- Codex -------------------------------------------------------------------------------------
def _codex(ctx: _Context) -> _Plan:
    folder = ctx.base / ".codex"
    config, hooks_file = folder / "config.toml", folder / "hooks.json"
    old = read_config(config)
    text = old or ""
    parse_toml(config, text)
    entry = ctx.server()  # the one entry every agent gets: its command, args and env
    env = ", ".join(f"{_toml_str(k)} = {_toml_str(v)}" for k, v in entry["env"].items())
    server = (f"[mcp_servers.{SERVER}]\ncommand = {_toml_str(entry['command'])}\n"
              f"args = [{', '.join(_toml_str(a) for a in entry['args'])}]\nenv = {{ {env} }}\n")
    text = _toml_set_table(text, f"mcp_servers.{SERVER}", server)
    new = text
    if old is not None and tomllib.loads(old) == tomllib.loads(new):
        new = old
    return [(config, old, new, "MCP server"),
            _json_edit(hooks_file, lambda d: _merge_hooks(
                d, hooks_file, _CLAUDE_EVENTS, ctx, matcher={"SessionStart": "startup|resume|clear"},
                extra={"timeout": 30}), "SessionStart, UserPromptSubmit and Stop hooks")]


def parse_toml(path: Path, text: str) -> dict[str, Any]:
    """Codex's ``config.toml`` parsed; ConfigError naming it when it is not TOML it can read."""
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:  # nested past the parser's depth (attack25)
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix it or move it aside (nothing was written)") from None


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def _toml_set_table(text: str, name: str, block: str) -> str:
    """``text`` with table ``name`` (and its sub-tables) replaced by ``block``, else appended."""
    lines = text.splitlines(keepends=True)
    out: list[str] = []
    skipping = False
    placed = False
    for line in lines:
        m = _HEADER.match(line)
        if m:
            header = m.group(1).replace('"', "").replace(" ", "")
            skipping = header == name or header.startswith(name + ".")
            if skipping and not placed:
                out.append(block)
                placed = True
        if not skipping:
            out.append(line)
    if not placed:
        if out and not out[-1].endswith("\n"):
            out.append("\n")
        if out and out[-1].strip():
            out.append("\n")
        out.append(block)
    return "".join(out)


# -- Gemini CLI --------------------------------------------------------------------------------
#: the server entry's ``timeout`` (ms): Gemini's for connecting, listing and each tool call
GEMINI_TIMEOUT_MS = 60000


def _gemini(ctx: _Context) -> _Plan:
    settings = ctx.base / ".gemini" / "settings.json"

    def edit(data: dict[str, Any]) -> None:
        # timeout: Gemini gives a server 5 s to answer `gemini mcp list` unless its entry says
        # (a start on a loaded machine showed "Disconnected"); tool calls get this long too, more
        # than a write's 30 s wait for a person's git command
        _table(data, "mcpServers", settings)[SERVER] = {**ctx.server(env_in_args=True), "timeout": GEMINI_TIMEOUT_MS}
        _merge_hooks(data, settings, _GEMINI_EVENTS, ctx, matcher={},
                     extra={"name": "vault-mem", "timeout": 30000})

    return [_json_edit(settings, edit, "MCP server, SessionStart, BeforeAgent and AfterAgent hooks")]


# -- Cursor ------------------------------------------------------------------------------------
def _cursor(ctx: _Context) -> _Plan:
    mcp = ctx.base / ".cursor" / "mcp.json"
    return [_json_edit(mcp, lambda d: _table(d, "mcpServers", mcp).__setitem__(SERVER, ctx.server()),
                       "MCP server")]


_PLANS: dict[str, Callable[[_Context], _Plan]] = {
    "claude-code": _claude, "codex": _codex, "gemini": _gemini, "cursor": _cursor}
