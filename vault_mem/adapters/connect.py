"""``vault-mem connect AGENT``: write an agent's MCP configuration and hooks for a vault.

Each agent keeps its configuration in its own files; this merges vault-mem's entries into them
and leaves everything else as it was (a person's other servers, settings and hooks survive), so
a second run changes nothing. What each agent gets:

| agent | scope user | scope project | hooks |
|---|---|---|---|
| claude-code | ``~/.claude.json`` ``mcpServers``, ``~/.claude/settings.json`` hooks | ``.mcp.json``, ``.claude/settings.json`` hooks, ``.claude/settings.local.json`` ``enabledMcpjsonServers`` (no approval prompt) | SessionStart, UserPromptSubmit, Stop |
| codex | ``~/.codex/config.toml`` ``[mcp_servers.vault-mem]``, ``~/.codex/hooks.json`` (hooks are on by default since Codex 0.1xx's ``hooks`` feature) | ``.codex/config.toml``, ``.codex/hooks.json`` | SessionStart, UserPromptSubmit, Stop |
| gemini | ``~/.gemini/settings.json`` ``mcpServers`` and ``hooks`` | ``.gemini/settings.json`` | SessionStart, BeforeAgent, AfterAgent |
| cursor | ``~/.cursor/mcp.json`` | ``.cursor/mcp.json`` | none (Cursor's prompt hook cannot add context) |

Commands name vault-mem by its absolute path (an agent's PATH often lacks the virtual
environment). A vault given (``--vault``) is named by its absolute path and is then the only one
the agent uses; without one, the commands name none, and each session uses the vaults of its
working folder (the project vault and the personal vault, DESIGN §8): one user-scope connection
serves every project. A file that is not what its agent expects (JSON
that does not parse, a TOML table of the wrong shape) is never overwritten: the call fails naming
the file. :func:`connect` only plans and writes; the CLI prints what it returns.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_mem.errors import ConfigError, UsageError
from vault_mem.model.names import shell_word, shown
from vault_mem.platform.programs import which
from vault_mem.store.files import atomic_write
from vault_mem.store.workspace import committed_link_on

SERVER = "vault-mem"
AGENTS = ("claude-code", "codex", "gemini", "cursor")
SCOPES = ("user", "project")
#: vault-mem's hook names, by each agent's name for the event
_CLAUDE_EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "user-prompt-submit", "Stop": "stop"}
_GEMINI_EVENTS = {"SessionStart": "session-start", "BeforeAgent": "user-prompt-submit", "AfterAgent": "stop"}
#: a hook command is vault-mem's when it runs ``... hook session-start`` etc. through vault-mem
_OURS = re.compile(r"vault-mem\S*\s.*\bhook (session-start|user-prompt-submit|stop)\b")


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
    base = Path(home or Path.home()) if scope == "user" else Path(project or Path.cwd())
    plan = _PLANS[agent](_Context(base=base.resolve(), scope=scope, vault=str(Path(vault_root).resolve()) if vault_root else "",
                                  exe=exe or executable()))
    if scope == "project":  # a clone's committed link never decides where connect writes (attack25)
        _refuse_committed_links(base.resolve(), [path for path, *_ in plan])
    changes = []
    for path, old, new, what in plan:
        action = "unchanged" if old == new else ("updated" if old is not None else "created")
        if action != "unchanged" and not dry_run:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write(path, new.encode("utf-8"), expect=old.encode("utf-8") if old is not None else None,
                         mode=0o600 if path.name.startswith(".claude.json") else 0o644)
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


#: the most of an agent's configuration file read (``~/.claude.json`` keeps every project's state)
MAX_AGENT_CONFIG_BYTES = 64 << 20


def _read(path: Path) -> str | None:
    """An agent configuration's text, None when there is none. A regular file only (through a
    link: a person's dotfiles link theirs), never blocking, at most
    :data:`MAX_AGENT_CONFIG_BYTES`: the working folder's files are a clone's, and a teammate's
    committed ``.mcp.json -> /dev/zero`` made connect and doctor read until memory ran out
    (attack25). A committed link is refused before anything is written
    (:func:`_refuse_committed_links`)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path} ({exc}); fix or move it aside, then run connect again") from None
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ConfigError(f"cannot read {shown(str(path))}: not a regular file (a link to a device, a pipe "
                              "or a folder?); move it aside, then run connect again (nothing was written)")
        data = b"" if st.st_size > MAX_AGENT_CONFIG_BYTES else fh.read(MAX_AGENT_CONFIG_BYTES + 1)
    if st.st_size > MAX_AGENT_CONFIG_BYTES or len(data) > MAX_AGENT_CONFIG_BYTES:
        raise ConfigError(f"cannot read {shown(str(path))}: over {MAX_AGENT_CONFIG_BYTES >> 20} MB; "
                          "move it aside, then run connect again (nothing was written)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read {path} ({exc}); fix or move it aside, then run connect again") from None


def _json_edit(path: Path, edit: Callable[[dict[str, Any]], None], what: str) -> tuple[Path, str | None, str, str]:
    old = _read(path)
    try:
        data = json.loads(old) if old and old.strip() else {}
    except (ValueError, RecursionError) as exc:  # nested past the parser's depth too (attack25)
        raise ConfigError(f"{path} is not valid JSON ({exc}); fix it or move it aside, then run connect "
                         "again (nothing was written)") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} does not hold a JSON object; fix it or move it aside (nothing was written)")
    edit(data)
    new = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if old is not None and _same_json(old, data):
        new = old  # a file whose content already matches keeps its bytes (formatting, key order)
    return path, old, new, what


def _same_json(old: str, data: dict[str, Any]) -> bool:
    try:
        return json.loads(old) == data
    except (ValueError, RecursionError):
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
                if isinstance(hook, dict) and _OURS.search(str(hook.get("command", ""))) \
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
    mcp = ctx.base / ".mcp.json"
    settings = ctx.base / ".claude" / "settings.json"
    local = ctx.base / ".claude" / "settings.local.json"

    def enable(data: dict[str, Any]) -> None:
        enabled = data.setdefault("enabledMcpjsonServers", [])
        if not isinstance(enabled, list):
            raise ConfigError(f"{local}: enabledMcpjsonServers is not a list; fix it or move the file aside")
        if SERVER not in enabled:
            enabled.append(SERVER)

    return [_json_edit(mcp, lambda d: server(d, mcp), "MCP server (project scope)"),
            _json_edit(settings, hooks(settings), "SessionStart, UserPromptSubmit and Stop hooks"),
            _json_edit(local, enable, "the project's MCP server enabled without a prompt")]


# -- Codex -------------------------------------------------------------------------------------
def _codex(ctx: _Context) -> _Plan:
    folder = ctx.base / ".codex"
    config, hooks_file = folder / "config.toml", folder / "hooks.json"
    old = _read(config)
    text = old or ""
    try:
        tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:  # nested past the parser's depth (attack25)
        raise ConfigError(f"{config} is not valid TOML ({exc}); fix it or move it aside (nothing was written)") from None
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


# -- configurations written by an older vault-mem ---------------------------------------------
#: where each agent keeps vault-mem's entries, relative to the scope's base: (hook files, MCP files)
_FILES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "claude-code": ((".claude/settings.json",), (".claude.json", ".mcp.json")),
    "codex": ((".codex/hooks.json",), (".codex/config.toml",)),
    "gemini": ((".gemini/settings.json",), (".gemini/settings.json",)),
    "cursor": ((), (".cursor/mcp.json",)),
}


#: agents that ignore an MCP server's ``env`` setting of ``PYTHONPATH`` (:meth:`_Context.server`)
_ENV_IGNORED = frozenset({"gemini"})


@dataclass(frozen=True)
class Outdated:
    """An agent's entry for vault-mem, written by an older vault-mem, that this one writes
    differently: ``why`` says what is wrong with it, :attr:`fix` is the command that rewrites it."""

    agent: str
    scope: str
    path: Path
    why: str
    vault: str  # the vault the entry pins, "" for none

    @property
    def fix(self) -> str:
        pinned = f" --vault {shlex.quote(self.vault)}" if self.vault else ""
        return f"vault-mem connect {self.agent}{pinned}" + (" --scope project" if self.scope == "project" else "")


def outdated(*, home: Path | None = None, project: Path | None = None) -> list[Outdated]:
    """vault-mem's entries in the agents' configurations (user scope under ``home``, project scope
    under ``project``) that an older vault-mem wrote in a form this one does not: a hook or server
    started without dropping ``PYTHONPATH`` (an empty entry of it puts the session's working
    folder, a vault a peer's commits fill, ahead of Python's own modules: :meth:`_Context.command`),
    through ``python -m``, or naming a vault-mem program that is gone. Read only; a file that does
    not parse is skipped (``connect`` names it when run). One finding per file."""
    user = Path(home or Path.home())
    bases = [("user", user)] + ([("project", Path(project))] if project is not None
                                and Path(project).resolve() != user.resolve() else [])
    found: list[Outdated] = []
    for scope, base in bases:
        for agent, (hook_files, mcp_files) in _FILES.items():
            for rel in hook_files:
                for command in _our_hook_commands(base / rel):
                    argv = _split(command)
                    why = _command_problem(argv)
                    if why:
                        vault, note = _repeatable_pin(scope, base, _pinned(argv))
                        found.append(Outdated(agent, scope, base / rel, f"a hook {why}{note}", vault))
                        break
            for rel in mcp_files:
                entry = _our_server(base / rel)
                if entry is None:
                    continue
                argv = [str(entry.get("command", ""))] + [str(a) for a in entry.get("args") or []]
                env = entry.get("env") if isinstance(entry.get("env"), dict) else {}
                dropped = Path(argv[0]).name == "env" and argv[1:3] == ["-u", "PYTHONPATH"]
                argv = argv[3:] if dropped else argv
                why = _command_problem(argv, server=True)
                if why is None and not dropped and (agent in _ENV_IGNORED or env.get("PYTHONPATH") != ""):
                    why = ("starts vault-mem with the person's PYTHONPATH (Gemini CLI ignores a server's "
                           "PYTHONPATH setting)" if agent in _ENV_IGNORED
                           else "starts vault-mem without emptying PYTHONPATH")
                if why and not any(o.path == base / rel for o in found):
                    vault, note = _repeatable_pin(scope, base, argv[2] if len(argv) > 2 and argv[1] == "mcp" else "")
                    found.append(Outdated(agent, scope, base / rel, f"the MCP server {why}{note}", vault))
    return found


def _repeatable_pin(scope: str, base: Path, vault: str) -> tuple[str, str]:
    """The vault an entry pins as :attr:`Outdated.fix` may repeat it, and what is said of one it
    may not. A project's files are a clone's, whatever a commit put there: a teammate's entry
    pinning a vault outside the project made `doctor` tell the person to connect the project to
    that vault (their agent's memories read and written where the teammate chose). Such a pin is
    named, and the fix pins none (each session's project vault, found from its folder)."""
    if not vault or scope != "project":
        return vault, ""
    try:
        inside = (base / vault).resolve().is_relative_to(base.resolve())
    except (OSError, RuntimeError, ValueError):
        inside = False
    if inside:
        return vault, ""
    return "", (f"; it pins the vault {shown(vault)}, outside this project, which a file the repository holds "
                "chose: the command below pins none")


def _pinned(argv: list[str]) -> str:
    return argv[argv.index("--vault") + 1] if "--vault" in argv[:-1] else ""


def _split(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _command_problem(argv: list[str], *, server: bool = False) -> str | None:
    """What is wrong with how ``argv`` starts vault-mem, or None: the form :class:`_Context` writes
    is ``[env -u PYTHONPATH] /abs/vault-mem ...`` (a server's environment empties PYTHONPATH)."""
    if not server:
        if len(argv) < 3 or Path(argv[0]).name != "env" or argv[1:3] != ["-u", "PYTHONPATH"]:
            return "starts vault-mem without dropping PYTHONPATH first"
        argv = argv[3:]
    if not argv:
        return "has no command"
    exe = argv[0]
    if Path(exe).name.startswith("python") or "-m" in argv[1:3]:
        return f"starts vault-mem through {Path(exe).name} -m (the working folder joins Python's module path)"
    if os.sep in exe and not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        return f"names {exe}, which is no longer there"
    return None


def _our_hook_commands(path: Path) -> list[str]:
    data = _json_or_none(path)
    hooks = data.get("hooks") if isinstance(data, dict) else None
    out: list[str] = []
    for groups in (hooks.values() if isinstance(hooks, dict) else ()):
        for group in groups if isinstance(groups, list) else ():
            for hook in (group.get("hooks") or []) if isinstance(group, dict) else ():
                command = hook.get("command") if isinstance(hook, dict) else None
                if isinstance(command, str) and _OURS.search(command):
                    out.append(command)
    return out


def _our_server(path: Path) -> dict[str, Any] | None:
    if path.suffix == ".toml":
        try:
            data = tomllib.loads(_read(path) or "")
        except (ConfigError, tomllib.TOMLDecodeError, RecursionError):
            return None
        entry = (data.get("mcp_servers") or {}).get(SERVER) if isinstance(data.get("mcp_servers"), dict) else None
    else:
        data = _json_or_none(path)
        servers = data.get("mcpServers") if isinstance(data, dict) else None
        entry = servers.get(SERVER) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def _json_or_none(path: Path) -> Any:
    """``path``'s JSON, None when absent or unreadable (:func:`_read`), or not JSON it can read."""
    try:
        text = _read(path)
        return None if text is None else json.loads(text)
    except (ConfigError, ValueError, RecursionError):
        return None


_PLANS: dict[str, Callable[[_Context], _Plan]] = {
    "claude-code": _claude, "codex": _codex, "gemini": _gemini, "cursor": _cursor}
