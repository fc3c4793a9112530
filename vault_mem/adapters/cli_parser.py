"""The ``vault-mem`` command line's argparse definition: every command, its arguments and help.

Kept apart from cli.py, which holds what each command does (and is the only module that prints
or exits); this only describes the command line, so it is read and tested on its own (every
command has help).
"""

from __future__ import annotations

import argparse
import os
import sys

from vault_mem.adapters.hook_names import HOOK_NAMES
from vault_mem.config import VERSION

# What shtab (``vault-mem completion``) completes a path argument with: shtab.DIRECTORY and
# shtab.FILE as of shtab 1.13, written out because importing shtab costs ~0.4 s at every start.
DIRECTORY = {"bash": "_shtab_compgen_dirs", "zsh": "_files -/", "tcsh": "d",
             "fish": "(__fish_complete_directories)", "powershell": "_shtab_powershell_compgen_dirs"}
FILE = {"bash": "_shtab_compgen_files", "zsh": "_files", "tcsh": "f",
        "fish": "(__fish_complete_path (commandline -ct))", "powershell": "_shtab_powershell_compgen_files"}


#: every command's name, in the order of the help (tests/test_cli.py checks it against the parser)
COMMAND_NAMES = ("init", "remember", "edit", "forget", "get", "list", "log", "undo", "index",
                 "recall", "reindex", "doctor", "eval", "daemon", "mcp", "tools", "agent", "sync",
                 "trust", "resolve", "review", "scan", "check-refs", "dupes", "completion", "hooks",
                 "connect", "import", "export", "hook")


def _completes(action: argparse.Action, kind: dict[str, str]) -> argparse.Action:
    action.complete = kind  # type: ignore[attr-defined]  # read by shtab only
    return action


class _Skipped:
    """What :func:`build_parser` hands a command it leaves out: its arguments are declared on
    this and go nowhere (the line that declares them runs, so the one list stays the one list)."""

    def add_argument(self, *args, **kw) -> argparse.Namespace:
        return argparse.Namespace()  # _completes sets an attribute on it; nothing reads it


#: the options given before the command name that take a value (``--vault PATH``)
_VALUED = ("--vault", "--agent")
#: the options before the command name that end the parse there, or print the whole list
_STOPS = ("--help", "--version")


def command_named(argv: list[str]) -> str | None:
    """The command ``argv`` names before anything else could be read: the first word that is not
    an option or an option's value, when it is exactly a command's name and no ``-h``/``--help``
    (or any abbreviation argparse takes for it) comes before it; else None (then the whole parser
    is built, so every message argparse gives is the same)."""
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--" or word.startswith("-h") and not word.startswith("--"):
            return None
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if len(name) > 2 and any(s.startswith(name) for s in _STOPS):
                return None
            matches = [v for v in _VALUED if len(name) > 2 and v.startswith(name)]
            if matches and "=" not in word:
                i += 1  # its value follows
        elif word.startswith("-") and len(word) > 1:
            return None  # a short option the top level does not define: argparse's own message
        else:
            return word if word in COMMAND_NAMES else None
        i += 1
    return None


def _columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` says it (``COLUMNS``, else the
    terminal of stdout, else 80), without importing ``shutil``."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, its width found without ``shutil``: argparse makes one for
    every argument added, and its own imports ``shutil`` (with ``bz2``, ``lzma`` and
    ``fnmatch``) into every command for the terminal's width (start-up time, issue 29)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position,
                         _columns() - 2 if width is None else width)  # argparse's own "- 2"


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``vault-mem`` parser; with ``command`` (a name :func:`command_named` found), only that
    command's sub-parser is built (a one-shot command spends ~8 ms on the ~30 others' ~200
    arguments otherwise): it parses that command's line exactly as the whole parser does, since
    a sub-parser's arguments, help and errors are its own. ``--help``, an unknown command and
    shell completion (shtab) build the whole."""
    def common_options(suppress: bool) -> argparse.ArgumentParser:
        # Given before or after the command name; after it, an absent option must not reset the
        # value given before it, hence SUPPRESS on the sub-commands' copies.
        kw = {"default": argparse.SUPPRESS} if suppress else {}
        common = argparse.ArgumentParser(add_help=False, formatter_class=_Formatter)
        _completes(common.add_argument("--vault", help="this vault alone (default: the project vault, the nearest "
                                       "folder holding vault.toml or the git repository's memory/, with "
                                       "the personal vault; else $VAULT_MEM_VAULT)", **kw), DIRECTORY)
        common.add_argument("--json", action="store_true", help="print one JSON document", **kw)
        common.add_argument("--agent", help="agent name for commit authorship (default: "
                            "$VAULT_MEM_AGENT or vault.toml)", **kw)
        return common

    common = common_options(True)
    parser = argparse.ArgumentParser(
        prog="vault-mem", parents=[common_options(False)], formatter_class=_Formatter,
        description="Long-term memory for AI agents: Markdown files in git, searchable, reviewable.")
    parser.add_argument("--version", action="version", version=f"vault-mem {VERSION}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help: str) -> argparse.ArgumentParser:
        if command is not None and name != command:
            return _Skipped()  # type: ignore[return-value]
        return sub.add_parser(name, parents=[common], help=help, description=help, formatter_class=_Formatter)

    p = add("init", "create a vault (its own repository, or a folder in an existing one)")
    _completes(p.add_argument("path", nargs="?"), DIRECTORY)
    p = add("remember", "create or update a memory (one git commit)")
    p.add_argument("key")
    p.add_argument("--description", "-d", required=True, help="one line: what this memory is")
    p.add_argument("--body", "-b", help="the body; '-' reads it from stdin (without --body, stdin is "
                   "read only when it is not a terminal and already has data)")
    _completes(p.add_argument("--body-file", help="read the body from this file ('-': stdin)"), FILE)
    p.add_argument("--type", "-t", default="fact", help="preference, fact, decision, procedure or note")
    p.add_argument("--tags", help="comma-separated tags")
    p.add_argument("--source", default="agent", help="user, agent, inferred or imported")
    p.add_argument("--pinned", action=argparse.BooleanOptionalAction, default=None,
                   help="list first in INDEX.md (--no-pinned unpins; default: keep as is)")
    p.add_argument("--expires", help="YYYY-MM-DD after which recall and INDEX.md hide it")
    p.add_argument("--supersedes", help="comma-separated keys this memory replaces")
    p.add_argument("--scope", help="agent or project this memory is for")
    p.add_argument("--refs", help="comma-separated repository paths this memory is about")
    p.add_argument("--personal", action="store_true", help="write to the personal vault ($VAULT_MEM_PERSONAL "
                   "or personal in ~/.config/vault-mem/config.toml), not the project's")
    p = add("edit", "open a memory in $VISUAL or $EDITOR, then commit it in your name when it differs from the "
            "last commit (your edit, or one left uncommitted before), through the same checks as an agent's "
            "write; your git identity (user.name, user.email) is checked before the editor opens")
    p.add_argument("key")
    p = add("forget", "delete a memory (one git commit; history keeps it)")
    p.add_argument("key")
    p = add("get", "show a whole memory")
    p.add_argument("key")
    p = add("list", "list keys and descriptions")
    p.add_argument("--type", "-t")
    p.add_argument("--tags")
    p = add("log", "history of the vault or of one key, from git")
    p.add_argument("key", nargs="?")
    p.add_argument("--limit", "-n", type=int, default=20)
    p = add("undo", "revert the last agent commit for a key, or a given commit")
    p.add_argument("target", help="a key or a commit id")
    p.add_argument("--commit", action="store_true",
                   help="TARGET is a commit id, never a key (where a key is named like a commit's id)")
    p = add("index", "print INDEX.md as an agent is shown it: fenced, each line's author named, unapproved "
                     "peers' memories left out (--write also regenerates the file)")
    p.add_argument("--write", action="store_true", help="regenerate the INDEX.md file from the memory files first")
    p = add("recall", "search memories by meaning and words")
    p.add_argument("query", nargs="+")
    p.add_argument("--queries", action="append", metavar="TEXT",
                   help="another phrasing of the same question, searched with it (repeat, up to 5)")
    p.add_argument("-k", type=int, default=None, help="how many hits at most (default 5)")
    p.add_argument("--type", "-t")
    p.add_argument("--tags")
    p.add_argument("--scope")
    p.add_argument("--include-expired", action="store_true")
    p.add_argument("--full", action="store_true", help="whole bodies (default: a bounded excerpt; "
                   "a procedure whole or as a pointer)")
    add("reindex", "rebuild the sidecar (the SQLite search index) from the files")
    add("doctor", "check the sidecar and INDEX.md against the files; exit 1 on any difference")
    p = add("eval", "measure recall quality: a JSON benchmark, or your own 'question → key' file "
            "against the vault")
    _completes(p.add_argument("file", help="a benchmark JSON (run with --vault's embedder), or a text file of "
                   "'question → expected-key' / 'question → nothing' lines (run against the vault)"), FILE)
    p = add("daemon", "keep the sidecar and INDEX.md in line with the files (foreground)")
    _completes(p.add_argument("path", nargs="?"), DIRECTORY)
    p.add_argument("--status", action="store_true", help="tell whether a daemon runs for the vault")
    p = add("mcp", "serve the vault to MCP clients over stdio")
    _completes(p.add_argument("path", nargs="?"), DIRECTORY)
    p = add("tools", "print the tool schemas (OpenAI-style or MCP)")
    p.add_argument("--format", choices=["openai", "mcp"], default="openai")
    p = add("agent", "a minimal tool-calling agent loop against an OpenAI-compatible chat endpoint")
    p.add_argument("message", nargs="+")
    p.add_argument("--url", default=os.environ.get("VAULT_MEM_CHAT_URL", "http://127.0.0.1:8080"),
                   help="base URL of the /v1/chat/completions server (llama.cpp, Ollama, ...)")
    p.add_argument("--model", default=os.environ.get("VAULT_MEM_CHAT_MODEL", "local"))
    p.add_argument("--api-key-env", default="OPENAI_API_KEY")
    p.add_argument("--max-rounds", type=int, default=6)
    p = add("sync", "fetch, integrate and push the vault through a git remote")
    _completes(p.add_argument("path", nargs="?"), DIRECTORY)
    p.add_argument("--remote", default=None, help="git remote name (default: vault.toml [sync] remote, else origin)")
    p = add("trust", "show each change that waits for approval on this machine (a vault.toml changed elsewhere, "
            "key by key; .gitattributes, .gitignore ... a sync refused; a vault.toml that would make its folder "
            "the vault) and ask the person, on the terminal, about each one")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="approve only these pending files (vault.toml, .gitattributes, ...; a vault.toml outside "
                        "the vault: its folder as a vault), asked once; a folder: the vault (as --vault)")
    p.add_argument("--all", action="store_true", dest="approve_all",
                   help="ask once about every pending file, listing each, instead of one by one")
    # gone: an approval is the person's answer on the terminal; kept to say so rather than "unrecognized"
    p.add_argument("--yes", "-y", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--author", action="append", default=[], metavar="EMAIL",
                   help="approve a commit author's memories for the agent's context (repeatable); "
                        "without it, the authors pending approval are listed")
    p = add("resolve", "settle a sync conflict on a key")
    p.add_argument("key")
    p.add_argument("--keep", choices=["mine", "theirs", "both"], required=True)
    p = add("review", "list stale, expired, superseded and conflicting memories")
    p.add_argument("--type", "-t", help="only memories of this type (preference, fact, decision, procedure, note)")
    p.add_argument("--flag", choices=["secret", "conflict", "problem", "expired", "superseded", "stale"],
                   help="only memories with this flag")
    p.add_argument("--stale", dest="flag", action="store_const", const="stale", help="the same as --flag stale")
    p.add_argument("--limit", "-n", type=int, default=None, help="at most this many (the text says how many more)")
    p = add("scan", "look for credentials in the memory files (or the whole git history)")
    p.add_argument("--history", action="store_true")
    p = add("check-refs", "list memories naming repository paths that no longer exist; exit 1 if any")
    _completes(p.add_argument("--repo", required=True, help="the project checkout to check against"), DIRECTORY)
    add("dupes", "list likely duplicate memories")
    p = add("completion", "print a shell completion script (bash, zsh or fish)")
    p.add_argument("shell", choices=["bash", "zsh", "fish"])
    p = add("hooks", "add or repair the vault's git hooks (they find the vault wherever the repository is)")
    p.add_argument("action", choices=["install"])
    _completes(p.add_argument("path", nargs="?", help="the vault (default: --vault, else found from here)"),
               DIRECTORY)
    p = add("connect", "write an agent's MCP configuration and hooks (merged into its files: your other "
            "settings and hooks stay); prints what it wrote where. Without --vault, sessions use the project "
            "vault of their working folder and the personal vault")
    p.add_argument("agent", choices=["claude-code", "codex", "gemini", "cursor"])
    p.add_argument("--scope", choices=["user", "project"], default="user",
                   help="user: your home's configuration (every project); project: the working folder's "
                        "project only, on this machine (Claude Code: its local scope in ~/.claude.json and "
                        ".claude/settings.local.json; nothing a commit carries, no server approved by name)")
    p.add_argument("--dry-run", action="store_true", help="say what would change; write nothing")
    p = add("import", "import memories from Claude Code, Codex, CLAUDE.md, Basic Memory, Markdown or "
            "JSON/JSONL (one git commit)")
    _completes(p.add_argument("source", help="the folder or file to import"), FILE)
    p.add_argument("--from", dest="source_kind", metavar="KIND",
                   choices=["claude-code", "codex", "claude-md", "basic-memory", "markdown", "jsonl"],
                   help="claude-code, codex, claude-md, basic-memory, markdown or jsonl (default: detected)")
    p.add_argument("--dry-run", action="store_true", help="write nothing; print what would happen")
    p = add("export", "write every memory as JSON (--json) or JSON Lines (--jsonl, the default)")
    p.add_argument("--jsonl", action="store_true", help="one memory per line (the default)")
    p.add_argument("--type", "-t", help="only memories of this type")
    _completes(p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout"), FILE)
    p = add("hook", "entry points for the agents' hooks and vault-mem's git hooks (reads the event on stdin)")
    p.add_argument("name", help="one of " + ", ".join(HOOK_NAMES))
    p.add_argument("hook_args", nargs="*")
    return parser
