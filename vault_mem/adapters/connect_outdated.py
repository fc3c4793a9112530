"""Which of vault-mem's entries in the agents' configurations an older ``vault-mem connect``
wrote in a form this one does not (``vault-mem doctor`` names each, with the ``connect`` command
that rewrites it). Read only: a file that cannot be read is skipped (``connect`` names it).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vault_mem.adapters.connect import OUR_HOOK, SERVER, THEN, parse_toml, read_config
from vault_mem.errors import ConfigError, UnreadableJSONError
from vault_mem.model.names import shown
from vault_mem.store.agentfiles import project_top
from vault_mem.store.jsonfiles import read_json

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
    found: list[Outdated] = _claude_committed(user, Path(project)) if len(bases) > 1 else []
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
                if why:
                    vault, note = _repeatable_pin(scope, base, argv[2] if len(argv) > 2 and argv[1] == "mcp" else "")
                    found.append(Outdated(agent, scope, base / rel, f"the MCP server {why}{note}", vault))
    return [o for i, o in enumerate(found) if all(p.path != o.path for p in found[:i])]  # one finding per file


def _claude_committed(home: Path, project: Path) -> list[Outdated]:
    """What an older ``connect claude-code --scope project`` left in the project's committed files
    (or a person's answer in Claude Code's dialog left in ``~/.claude.json``): the project's
    server named ``vault-mem`` approved by name, vault-mem's server in ``.mcp.json``, its hooks in
    ``.claude/settings.json``. A teammate's commit chooses what those run. Read only."""
    mcp, settings, local = project / ".mcp.json", project / ".claude" / "settings.json", \
        project / ".claude" / "settings.local.json"
    server, hooks = _our_server(mcp), _our_hook_commands(settings)
    approved = [path for path, data in ((local, _json_or_none(local)), (home / ".claude.json", _local_entry(home, project)))
                if isinstance(data, dict) and isinstance(data.get("enabledMcpjsonServers"), list)
                and SERVER in data["enabledMcpjsonServers"]]
    if not (server or hooks or approved):
        return []
    argv = [str(a) for a in (server or {}).get("args") or []]
    vault = argv[1] if len(argv) > 1 and argv[0] == "mcp" else next(
        (_pinned(_split(c)) for c in hooks + _our_hook_commands(local) if _pinned(_split(c))), "")
    vault, note = _repeatable_pin("project", project, vault)
    run = "whatever command a teammate's commit gives it runs as you"
    found = [Outdated("claude-code", "project", path, f"approves the project's committed MCP server 'vault-mem' by "
                      f"name (enabledMcpjsonServers): {run}, unasked{note}", vault) for path in approved]
    if server:
        found.append(Outdated("claude-code", "project", mcp, f"the MCP server is in the project's committed .mcp.json: {run}"
                              f"{note}", vault))
    if hooks:
        found.append(Outdated("claude-code", "project", settings, "the hooks are in the project's committed "
                              ".claude/settings.json: whatever commands a teammate's commit gives them run as you"
                              f"{note}", vault))
    return found


def _local_entry(home: Path, project: Path) -> Any:
    """The project's entry in Claude Code's ``~/.claude.json`` (None when none or unreadable)."""
    data = _json_or_none(home / ".claude.json")
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects.get(str(project_top(project))) if isinstance(projects, dict) else None


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
                if isinstance(command, str) and OUR_HOOK.search(command):
                    out.append(command)
    return out


def _our_server(path: Path) -> dict[str, Any] | None:
    if path.suffix == ".toml":
        try:
            data = parse_toml(path, read_config(path) or "")
        except ConfigError:
            return None
        entry = (data.get("mcp_servers") or {}).get(SERVER) if isinstance(data.get("mcp_servers"), dict) else None
    else:
        data = _json_or_none(path)
        servers = data.get("mcpServers") if isinstance(data, dict) else None
        entry = servers.get(SERVER) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def _json_or_none(path: Path) -> Any:
    """``path``'s JSON, None when absent or not JSON it can read (:func:`~vault_mem.store.jsonfiles.read_json`)."""
    try:
        return read_json(path, then=THEN)
    except UnreadableJSONError:
        return None
