"""The docs against the code: what a person reads in README.md and docs/ is what the code does.

Each test reads the code's own list of a thing (the settings :func:`vault_mem.config.parse_config`
reads, the environment variables the code names, the argparse parser, the MCP tools, what
``vault-mem connect`` writes) and the Markdown (README.md, docs/, RELIABILITY.md, the Claude Code
hooks' README), and fails naming every place where they part: a setting missing from
docs/configuration.md or with another default there, a command no page mentions, a command line
on a page that the parser refuses, a tool parameter named one way in MCP and another in the
Python API or the CLI, an agent's file or hook its page does not name, a link to a file or heading
that is not there, a module or test a page cites that is gone. Nothing here starts a process or
loads the model.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from vault_mem import config
from vault_mem.adapters import cli_parser, connect, tools
from vault_mem.adapters.hooks import HOOK_NAMES
from vault_mem.adapters.mcp_server import INDEX_URI, MEMORY_TEMPLATE, PROMPTS
from vault_mem.vault.core import Vault

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
CONFIGURATION = DOCS / "configuration.md"
PAGES = (README, *sorted(DOCS.rglob("*.md")), ROOT / "RELIABILITY.md", ROOT / "hooks" / "claude-code" / "README.md")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The body of the Markdown section ``heading`` (a ``## `` line), up to the next ``## ``."""
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def _table_rows(section: str) -> list[list[str]]:
    """The cells of each row of the Markdown tables in ``section``, header and rule left out."""
    rows = []
    for line in section.splitlines():
        if not line.startswith("|") or re.match(r"^\|[-| ]+\|$", line):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] in ("key", "variable", "where", "page", "set", "system", "scope", "agent"):
            continue  # a header
        rows.append(cells)
    return rows


# -- vault.toml and config.toml --------------------------------------------------------------
def _keys_parse_config_reads() -> set[str]:
    """``section.key`` for every key :func:`config.parse_config` (and the helpers it
    hands a section to) reads by name, found in its source: the tables it unpacks (``agent, index,
    ... = (_table(data, name) for name in ("agent", "index", ...))``) and each ``_get``/``_text``
    call or ``.get("key")`` on one of them. A key read some other way is missed here, and then
    the comparison with :func:`config.setting_values` below fails, so the scan cannot go stale."""
    tree = ast.parse(inspect.getsource(config))
    functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    parse = functions["parse_config"]
    sections: dict[str, str] = {}
    for node in ast.walk(parse):
        if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple)
                and isinstance(node.value, ast.GeneratorExp)
                and isinstance(node.value.generators[0].iter, ast.Tuple)):
            names = [t.id for t in node.targets[0].elts]
            tables = [c.value for c in node.value.generators[0].iter.elts]
            sections.update(zip(names, tables, strict=True))
    assert "agent" in sections.values(), "parse_config no longer unpacks its sections as this test reads them"
    helpers = {c.func.id for c in ast.walk(parse) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)
               and c.func.id in functions and c.func.id not in ("_get", "_text", "_table")}
    found: set[str] = set()
    for fn in (parse, *(functions[h] for h in helpers)):
        # a helper's parameter named for its section (``_min_similarity(recall)``) is that section
        params = {a.arg: a.arg for a in fn.args.args if a.arg in sections.values()}
        for call in ast.walk(fn):
            if not isinstance(call, ast.Call) or not call.args:
                continue
            if (isinstance(call.func, ast.Name) and call.func.id in ("_get", "_text") and len(call.args) >= 2
                    and isinstance(call.args[0], ast.Name)):
                table = sections.get(call.args[0].id) or params.get(call.args[0].id)
                key_node = call.args[1]
            elif isinstance(call.func, ast.Attribute) and call.func.attr == "get" and isinstance(call.func.value, ast.Name):
                table = sections.get(call.func.value.id) or params.get(call.func.value.id)
                key_node = call.args[0]
            else:
                continue
            if table and isinstance(key_node, ast.Constant):
                found.add(f"{table}.{key_node.value}")
    return found


def _doc_default(cell: str) -> object:
    """The value a table's default cell starts with: a backticked TOML value (`` `"auto"` ``), a
    bare number or boolean (``65536``, ``0 (the model's)``, ``false``); None for words
    ("calibrated", "none")."""
    m = re.match(r"`([^`]*)`", cell) or re.match(r"(-?[\d][\d,_.]*|true|false)\b", cell)
    if not m:
        return None
    return tomllib.loads(f"v = {m.group(1).replace(',', '')}")["v"]


def _same(doc: object, code: object) -> bool:
    if code is None or code == "" and doc is None:
        return doc is None or doc == ""
    if isinstance(code, bool) or isinstance(doc, bool):
        return doc is code
    if isinstance(code, (int, float)) and isinstance(doc, (int, float)):
        return float(doc) == float(code)
    return doc == code


def _vault_toml_rows() -> dict[str, str]:
    """``{"section.key": default cell}`` from the vault.toml table of docs/configuration.md."""
    rows = {}
    for cells in _table_rows(_section(_text(CONFIGURATION), "vault.toml")):
        m = re.fullmatch(r"`\[(\w+)\] (\w+)`", cells[0])
        assert m, f"docs/configuration.md: a vault.toml row names no `[section] key`: {cells[0]!r}"
        rows[f"{m.group(1)}.{m.group(2)}"] = cells[1]
    return rows


def test_every_vault_toml_key_is_in_the_configuration_table_with_the_codes_default():
    defaults = config.setting_values(config.parse_config(None))  # no file: every default
    read = _keys_parse_config_reads()
    per_type = {k for k in defaults if k.startswith("stale_after_days.")}
    # the scan and the code's own list of settings agree (the stale days are read in a loop)
    assert set(read) == set(defaults) - per_type, (
        "parse_config reads keys setting_values does not list, or the reverse: "
        f"{sorted(set(read) ^ (set(defaults) - per_type))}")
    rows = _vault_toml_rows()
    missing = sorted(set(defaults) - set(rows))
    unknown = sorted(set(rows) - set(defaults))
    assert not missing, f"vault.toml keys the code reads that docs/configuration.md does not list: {missing}"
    assert not unknown, f"docs/configuration.md lists vault.toml keys the code does not read: {unknown}"
    wrong = {k: (rows[k], defaults[k]) for k in defaults if not _same(_doc_default(rows[k]), defaults[k])}
    assert not wrong, f"docs/configuration.md's default differs from the code's (doc cell, code): {wrong}"


def test_the_configuration_tables_default_parser_reads_what_it_should():
    # the reading of a default cell above, on the cell shapes the table uses
    assert _doc_default('`"vault-mem agent"`') == "vault-mem agent"
    assert _doc_default("65536") == 65536 and _doc_default("1,000") == 1000
    assert _doc_default("0 (the model's)") == 0 and _doc_default("false") is False
    assert _doc_default("calibrated") is None and _doc_default('`""` (origin)') == ""
    assert not _same(_doc_default("30"), 20) and not _same(_doc_default("calibrated"), 0.3)
    assert not _same(_doc_default("false"), 0)


def _user_config_keys() -> dict[str, object]:
    """``{key: default}`` for what the code reads from config.toml: every ``.get("key",
    default)`` in a function of vault_mem/config.py that opens :func:`config.user_config_file`."""
    tree = ast.parse(inspect.getsource(config))
    keys: dict[str, object] = {}
    for fn in (f for f in tree.body if isinstance(f, ast.FunctionDef)):
        opens = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "user_config_file"
                    for c in ast.walk(fn))
        if not opens:
            continue
        for call in ast.walk(fn):
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "get"
                    and isinstance(call.func.value, ast.Name) and call.func.value.id == "data"
                    and call.args and isinstance(call.args[0], ast.Constant)):
                keys[call.args[0].value] = call.args[1].value if len(call.args) > 1 else None
    return keys


def test_every_user_config_key_is_in_the_configuration_table_with_the_codes_default():
    keys = _user_config_keys()
    assert "personal" in keys, "the scan of config.toml's keys found none: read the code again"
    section = _section(_text(CONFIGURATION), "This person's settings: config.toml")
    rows = {cells[0].strip("`"): cells[1] for cells in _table_rows(section)}
    assert set(rows) == set(keys), f"config.toml keys: the code reads {sorted(keys)}, the table lists {sorted(rows)}"
    wrong = {k: (rows[k], keys[k]) for k in keys if not _same(_doc_default(rows[k]), keys[k])}
    assert not wrong, f"docs/configuration.md's config.toml default differs from the code's: {wrong}"


#: names that look like environment variables but are not read from the environment
NOT_ENVIRONMENT = {
    "VAULT_MEM_HOME": "a shell variable the git hook script sets itself (store/hooks.py, hooks/git/hook.in)",
}


def test_every_environment_variable_the_code_names_is_documented_and_no_other():
    named = set()
    for path in (*(ROOT / "vault_mem").rglob("*.py"), *(ROOT / "hooks").rglob("*")):
        if path.is_file():
            named |= set(re.findall(r"\bVAULT_MEM_[A-Z0-9_]*[A-Z0-9]\b", path.read_text(encoding="utf-8", errors="replace")))
    named -= set(NOT_ENVIRONMENT)
    documented = set(re.findall(r"`(VAULT_MEM_[A-Z0-9_]+)`", _section(_text(CONFIGURATION), "Environment variables")))
    assert named - documented == set(), f"variables the code reads that docs/configuration.md does not list: {sorted(named - documented)}"
    assert documented - named == set(), f"docs/configuration.md lists variables the code never names: {sorted(documented - named)}"


# -- the command line -------------------------------------------------------------------------
def _subparsers() -> dict[str, object]:
    return _subparsers_of(cli_parser.build_parser())


#: ``vault-mem`` with its options before the command (``--vault PATH``, ``--agent NAME``, ``--json``)
_PREFIX = r"vault-mem((?:\s+(?:--(?:vault|agent)(?:=|\s+)\S+|--json))*)"


def _code(text: str) -> list[str]:
    """The code of a Markdown text: each fenced block, and each `inline` span outside them."""
    rest = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M)
    return _blocks(text) + re.findall(r"`([^`\n]+)`", rest)


def test_every_command_is_shown_in_the_readme_or_docs():
    shown = set()
    for page in PAGES:
        text = _text(page)
        blocks = set(_blocks(text))
        inline = [c for c in _code(text) if c not in blocks and c.startswith("vault-mem ")]
        for line in (*_command_lines(text), *inline):
            shown |= {m[1] for m in re.findall("^" + _PREFIX + r"\s+([a-z][a-z-]*)", line)}
    commands = set(_subparsers())
    assert commands == set(cli_parser.COMMAND_NAMES)
    assert commands - shown == set(), f"commands no page of README.md or docs/ shows: {sorted(commands - shown)}"
    assert shown - commands == set(), f"`vault-mem WORD` in the docs where WORD is no command: {sorted(shown - commands)}"


def _blocks(text: str) -> list[str]:
    """The fenced code blocks of a Markdown text."""
    return re.findall(r"^```[^\n]*\n(.*?)^```", text, re.S | re.M)


def _command_lines(text: str) -> list[str]:
    """Each ``vault-mem ...`` command line in the fenced blocks of ``text``: a line (joined with
    the next after a trailing backslash, or while a quote is open), cut at a comment, a pipe,
    ``&&`` or ``;``. In a block that shows a session (``$ command`` lines), only those lines are
    commands; the rest is what they printed."""
    lines = []
    for block in _blocks(text):
        rows = block.replace("\\\n", " ").splitlines()
        session = any(r.startswith("$ ") for r in rows)
        i = 0
        while i < len(rows):
            line, i = rows[i], i + 1
            if session and not line.startswith("$ "):
                continue
            while i < len(rows) and _open_quote(line):
                line, i = line + "\n" + rows[i], i + 1
            line = re.sub(r"^\$\s+", "", line)
            inner = re.findall(r"[<$]\(([^()]*)\)", line)  # <(vault-mem completion bash), $(...)
            line = re.sub(r"[<$]\(([^()]*)\)", "X", line)
            for part in (p for piece in (line, *inner) for p in re.split(r"\s(?:\||&&|;|\|\|)(?:\s|$)", piece)):
                part = re.sub(r"\s+#\s.*$", "", part).strip()
                m = re.search(_PREFIX + r"\s+[a-z].*$", part, re.S)
                # the set-up's .venv/bin/vault-mem is the same command
                if m and (m.start() == 0 or part[m.start() - 1] in " (\"'" or part[:m.start()].endswith(" .venv/bin/")
                          or part[:m.start()] == ".venv/bin/"):
                    lines.append(m.group(0))
    return lines


def _open_quote(line: str) -> bool:
    try:
        shlex.split(line, comments=True)
    except ValueError:
        return True
    return False


def test_every_command_line_in_the_docs_parses():
    """Each ``vault-mem ...`` line a page shows is one the parser accepts: an option renamed or
    gone, a command renamed, a missing required argument all fail here, naming the page."""
    failed, hooks_named, readme_lines = [], set(), len(_command_lines(_text(README)))
    assert readme_lines >= 15, f"only {readme_lines} command lines found in README.md: the extraction broke"
    parser = cli_parser.build_parser()  # parse_args keeps no state from one line to the next
    for p in (parser, *_subparsers_of(parser).values()):
        p.error = _refuse  # type: ignore[method-assign]  # argparse would print and exit
    for page in PAGES:
        for line in _command_lines(_text(page)):
            try:
                argv = shlex.split(line)[1:]
            except ValueError:
                failed.append(f"{page.relative_to(ROOT)}: cannot split {line!r}")
                continue
            try:
                args = parser.parse_args(argv)
            except _ParseError as exc:
                failed.append(f"{page.relative_to(ROOT)}: {line!r}: {exc}")
            except SystemExit:  # --help, --version: printed, and fine
                continue
            else:
                if args.command == "hook":
                    hooks_named.add(args.name)
    assert not failed, "command lines the parser refuses:\n" + "\n".join(failed)
    # `vault-mem hook NAME` takes any word; the pages name only hooks there are
    assert hooks_named and hooks_named <= set(HOOK_NAMES), sorted(hooks_named - set(HOOK_NAMES))


class _ParseError(Exception):
    pass


def _refuse(message: str):
    raise _ParseError(message)


def _subparsers_of(parser) -> dict[str, object]:
    [action] = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    return dict(action.choices)


# -- the MCP server and the tools ---------------------------------------------------------------
def test_every_mcp_tool_prompt_and_resource_is_documented():
    page = _text(DOCS / "integrations" / "mcp.md")
    names = [*tools.TOOL_NAMES, *PROMPTS, INDEX_URI, MEMORY_TEMPLATE]
    missing = [n for n in names if f"`{n}`" not in page]
    assert not missing, f"MCP names docs/integrations/mcp.md does not give: {missing}"


#: an MCP parameter the Python API or the CLI spells otherwise, and how (the one exception:
#: which vault a write goes to is a choice among Vault objects, not a parameter of one)
MCP_ONLY = {("remember", "vault"): "--personal"}


def test_each_tools_parameters_have_the_same_names_in_the_python_api_and_the_cli():
    """docs/integrations/mcp.md says the tools take "the same names and parameters as the
    Python API and the CLI": each tool is a method of Vault and a command, and each of its
    parameters a keyword of that method and an option (``--include-expired``) or argument of that
    command."""
    commands = _subparsers()
    wrong = []
    for spec in tools.TOOLS:
        method = getattr(Vault, spec.name, None)
        assert method is not None and spec.name in commands, f"tool {spec.name} is no Vault method or no command"
        keywords = inspect.signature(method).parameters
        sub = commands[spec.name]
        options = {s for a in sub._actions for s in a.option_strings}
        positional = {a.dest for a in sub._actions if not a.option_strings}
        for param in spec.parameters["properties"]:
            cli = "-k" if param == "k" else "--" + param.replace("_", "-")
            if (spec.name, param) in MCP_ONLY:
                assert MCP_ONLY[spec.name, param] in options
                continue
            if param not in keywords:
                wrong.append(f"{spec.name}({param}): no such keyword of Vault.{spec.name}")
            if cli not in options and param not in positional:
                wrong.append(f"{spec.name}({param}): no {cli} or argument {param} of `vault-mem {spec.name}`")
    assert not wrong, "names that differ between MCP, the Python API and the CLI:\n" + "\n".join(wrong)


# -- links --------------------------------------------------------------------------------------
def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", _text(path), flags=re.S | re.M)
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M):
        slug = _slug(heading)
        out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


def test_slugs_are_githubs():
    assert _slug("The write: one transaction for every path") == "the-write-one-transaction-for-every-path"
    assert _slug("This person's settings: config.toml") == "this-persons-settings-configtoml"
    assert _slug("`vault-mem trust`, step by step") == "vault-mem-trust-step-by-step"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path):
    text = re.sub(r"^```.*?^```", "", _text(page), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and (path.is_dir() or anchor not in _anchors(path)):
            broken.append(f"{target}: no heading with the anchor #{anchor}")
    assert not broken, f"{page.relative_to(ROOT)}: links that go nowhere: {broken}"


# -- the code the docs point into --------------------------------------------------------------
#: a file of the repository a page names in backticks: ``vault_mem/daemon/keeper.py``,
#: ``index/levels.py`` (inside the package), ``tests/test_connect.py::test_name``, ``bench/x.py``
_CODE_PATH = re.compile(r"`((?:[\w.-]+/)+[\w.-]+\.(?:py|json|in))(?:::(\w+))?`")
_TOP = ("vault_mem", "tests", "bench", "hooks", "template_vault", ".ci")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_code_file_a_page_names_exists(page: Path):
    """A page's ``vault_mem/...``, ``<layer>/...``, ``tests/...``, ``bench/...`` file (and a test
    named as ``FILE::test``) is in the repository: a module split or renamed, a test renamed,
    fails here naming the page. Paths inside a vault (``facts/x.md``) or a home are not the
    repository's and are not read."""
    layers = {p.name for p in (ROOT / "vault_mem").iterdir() if p.is_dir() and not p.name.startswith("_")}
    gone = []
    for rel, test in _CODE_PATH.findall(_text(page)):
        top = rel.split("/", 1)[0]
        if top in _TOP:
            path = ROOT / rel
        elif top in layers:
            path = ROOT / "vault_mem" / rel
        else:
            continue
        if not path.is_file():
            gone.append(rel)
        elif test and not re.search(rf"^(?:async )?def {test}\(", _text(path), re.M):
            gone.append(f"{rel}::{test}")
    assert not gone, f"{page.relative_to(ROOT)} names files or tests that are not there: {gone}"


def _bench_commands(text: str) -> list[str]:
    """Each ``python bench/....py ARGS`` command of a page: a fenced or indented code line (a fenced
    one joined with the next after a trailing backslash; cut at a comment) or an inline code span
    (which may wrap)."""
    found = []
    for block in _blocks(text):
        for line in block.replace("\\\n", " ").splitlines():
            m = re.search(r"python3? bench/\S+\.py.*$", line)
            if m:
                found.append(re.sub(r"\s+#\s.*$", "", m.group(0)))
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    found += [" ".join(m.split()) for m in re.findall(r"`(python3? bench/[^`]+\.py(?:\s[^`]*)?)`", prose)]
    # an indented code block's lines (RELIABILITY.md's opening commands)
    found += [re.sub(r"\s+#\s.*$", "", m) for m in re.findall(r"^ {4}(python3? bench/\S+\.py.*)$", prose, re.M)]
    return found


def _script_options(script: Path) -> tuple[set[str], set[str]]:
    """The ``--options`` ``script`` knows (every ``"--x"`` string in it and in the modules of its
    own folder it imports, as ``make_curated16.py`` hands its arguments to ``make_curated.py``)
    and those its parser requires (``add_argument(..., required=True)``)."""
    known: set[str] = set()
    required: set[str] = set()
    todo, seen = [script], set()
    while todo:
        path = todo.pop()
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        tree = ast.parse(_text(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"--[a-z][\w-]*", node.value):
                known.add(node.value)
            elif isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument" and any(
                    k.arg == "required" and isinstance(k.value, ast.Constant) and k.value.value is True
                    for k in node.keywords):
                required.update(a.value for a in node.args if isinstance(a, ast.Constant) and a.value.startswith("--"))
            elif isinstance(node, ast.Import):
                todo += [path.parent / f"{a.name}.py" for a in node.names]
    return known, required


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bench_command_a_page_shows_has_the_scripts_options(page: Path):
    """A ``python bench/X.py ...`` command a page shows names a script that is there, only options
    that script reads, and every option its parser requires (hand-edits-and-daemon.md showed
    ``bench_oneshot.py --daemon``, which its parser refuses without ``--vault`` and ``--old``).
    Words in capitals (``--vault V``) and ``[--optional ...]`` are the page's placeholders."""
    wrong = []
    for command in _bench_commands(_text(page)):
        script = ROOT / command.split()[1]
        if not script.is_file():
            wrong.append(f"{command!r}: no {script.relative_to(ROOT)}")
            continue
        known, required = _script_options(script)
        given = set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", command))
        if given - known:
            wrong.append(f"{command!r}: {script.name} has no {sorted(given - known)}")
        if required - given and "--help" not in given:
            wrong.append(f"{command!r}: {script.name} requires {sorted(required - given)}")
    assert not wrong, f"{page.relative_to(ROOT)}: bench commands the scripts refuse:\n" + "\n".join(wrong)


# -- the agent integrations ---------------------------------------------------------------------
@pytest.mark.parametrize("agent", connect.AGENTS)
def test_each_agents_page_names_the_files_and_hooks_connect_writes(agent: str, tmp_path: Path):
    """docs/integrations/AGENT.md shows `vault-mem connect AGENT` and names, for both scopes,
    every file `connect` writes (``~/...`` for the user's, relative for a project's) and every
    hook event it adds: connect run for real into a scratch home and project, no process."""
    page_path = DOCS / "integrations" / f"{agent}.md"
    assert page_path.is_file(), f"no page for `vault-mem connect {agent}`: {page_path.relative_to(ROOT)}"
    page = _text(page_path)
    assert re.search(rf"vault-mem (?:--vault \S+ )?connect {agent}\b", page)
    missing = []
    for scope in connect.SCOPES:
        base, home = tmp_path / scope, tmp_path / f"{scope}-home"  # a project scope may write in the home too
        base.mkdir()
        home.mkdir()
        changes = connect.connect(agent, None, scope=scope, home=home if scope == "project" else base, project=base,
                                  exe="vault-mem")
        assert changes and all(c.action == "created" for c in changes)
        for change in changes:
            in_home = change.path.is_relative_to(home) or scope == "user"
            rel = change.path.relative_to(home if change.path.is_relative_to(home) else base).as_posix()
            shown = f"~/{rel}" if in_home else rel
            if not re.search(rf"(?<![\w./~-]){re.escape(shown)}(?![\w/-])", page):
                missing.append(f"{scope} scope: {shown}")
            if change.path.suffix == ".json":
                events = json.loads(change.path.read_text(encoding="utf-8")).get("hooks", {})
                missing += [f"the {event} hook" for event in events if f"`{event}`" not in page]
    assert not missing, f"{page_path.relative_to(ROOT)} does not name what connect writes: {sorted(set(missing))}"


def test_the_template_vault_toml_shows_the_defaults_it_says_it_shows():
    """template_vault/vault.toml, copied into every new vault, says "the values shown are the
    defaults": each value it sets is the code's default, and it parses."""
    raw = (ROOT / "template_vault" / "vault.toml").read_bytes()
    assert b"the values shown are the defaults" in raw
    shown, defaults = config.setting_values(config.parse_config(raw)), config.setting_values(config.parse_config(None))
    assert shown == defaults, {k: (shown[k], defaults[k]) for k in shown if shown[k] != defaults[k]}


def _help_texts() -> dict[str, str]:
    """Every command's description and every argument's help, by where it is shown."""
    parser = cli_parser.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    out = {"vault-mem": parser.description or ""}
    for name, p in sub.choices.items():
        out[name] = p.description or ""
        for action in p._actions:
            if action.help:
                out[f"{name} {'/'.join(action.option_strings) or action.dest}"] = action.help
    return out


def test_the_cli_help_has_one_name_for_the_sidecar_and_one_for_index_md():
    """The help said "rebuild the search index", "check the index" and "keep the index and
    INDEX.md in line": the SQLite sidecar and the INDEX.md file, both "index". The sidecar is
    "sidecar" (explained once as the SQLite search index), INDEX.md is "INDEX.md"."""
    bare = re.compile(r"(?<!search )\bindex\b(?!\.md)")
    found = {where: text for where, text in _help_texts().items() if bare.search(text)}
    assert found == {}


def test_docstrings_that_name_the_vault_order_or_the_providers_say_all_of_it():
    """Stale docstrings: one said a hook's vault is "$VAULT_MEM_VAULT, else cwd" (the project and
    personal vaults come first: $VAULT_MEM_VAULT is the last fallback), EmbedderConfig's left out
    ``multilingual``. Every docstring naming $VAULT_MEM_VAULT names the personal vault before it,
    and EmbedderConfig's names every provider."""
    stale = []
    for path in sorted((ROOT / "vault_mem").rglob("*.py")):
        for node in ast.walk(ast.parse(_text(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
                continue
            doc = ast.get_docstring(node) or ""
            at = doc.find("VAULT_MEM_VAULT")
            if at >= 0 and "personal" not in doc[:at]:
                stale.append(f"{path.relative_to(ROOT)}: {getattr(node, 'name', '(module)')}")
    assert stale == []
    doc = inspect.getdoc(config.EmbedderConfig) or ""
    assert [p for p in config.PROVIDERS if f"``{p}``" not in doc] == []


def test_the_python_sdk_example_of_the_mcp_page_prints_what_it_says(tmp_path):
    """The page's client example, run against a real server (this checkout's, on a vault that
    holds its memory): it prints the lines its comments show. Written when recall's text was
    JSON, it showed `{"hits": ...` long after the text became the fenced memories and the data
    moved to the result's `_meta`."""
    import os
    import subprocess
    import sys

    from conftest import cli

    page = _text(DOCS / "integrations" / "mcp.md")
    code = page.split("With the official Python SDK:\n\n```python\n", 1)[1].split("```", 1)[0]
    expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
    program = "\n".join(line for line in code.splitlines() if not line.startswith("# "))
    vault = tmp_path / "agent-memory"
    assert cli("init", str(vault)).returncode == 0
    assert cli("--vault", str(vault), "remember", "editor-choice", "--type", "preference",
               "-d", "Uses Helix as the main editor").returncode == 0
    env = {"PYTHONPATH": str(ROOT), "VAULT_MEM_EMBEDDER": "none", "XDG_CONFIG_HOME": os.environ["XDG_CONFIG_HOME"]}
    for old, new in (('command="vault-mem", args=["mcp", ', f'command={sys.executable!r}, args=["-m", "vault_mem", "mcp", '),
                     ('os.path.expanduser("~/agent-memory")', repr(str(vault))),
                     ('env={"PYTHONPATH": ""}', f"env={env!r}")):
        assert old in program, old
        program = program.replace(old, new)
    proc = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[:len(expected)] == expected, proc.stdout
