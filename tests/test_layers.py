"""The package's layer rules (DESIGN §6) read from the source, and the adapters' error boundary.

Import direction: adapters > daemon > sync | ops > vault > index > store > embed > model > config
> platform > errors, for every import (a function-level one too). Git is run only by the store
layer, SQL only in the index layer, only the CLI prints or exits, no module uses another's
``_private`` names, the model layer does no I/O, and no module outside ``platform/`` uses an
OS-specific mechanism (``/proc``, leases, ``renameat2``, peer credentials, ``malloc_trim``,
``fcntl``, ctypes).

vault/ and sync/ are being restructured (a workspace object, one write transaction) and still
run git themselves and reach into the Vault's private helpers; the import, git and private-name
rules are checked here for every other package, and cover those two once that work lands.
"""

from __future__ import annotations

import ast
import functools
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from vault_mem.adapters import cli
from vault_mem.adapters.tools import call_tool

PACKAGE = Path(__file__).resolve().parent.parent / "vault_mem"
LAYERS = ("errors", "platform", "config", "model", "embed", "store", "index", "vault", ("sync", "ops"), "daemon", "adapters")
BEING_RESTRUCTURED: set[str] = set()
#: The modules that may print or exit: the command line and its ``python -m`` shims.
PRINTERS = {"adapters/cli.py", "cli.py", "__main__.py"}
_SQL = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|WITH)\b")


def _rank(name: str) -> int:
    for i, layer in enumerate(LAYERS):
        if name == layer or (isinstance(layer, tuple) and name in layer):
            return i
    raise AssertionError(f"{name} is not a layer of DESIGN §6: add it to LAYERS")


@functools.cache
def _parsed() -> tuple[tuple[str, str, ast.Module, tuple[ast.AST, ...]], ...]:
    """Every module parsed once for this file's tests, with its nodes walked once: each test
    reads them (a walk of the whole package is ~0.2 s of CPU, and each test walked it again)."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        layer = rel.split("/", 1)[0].removesuffix(".py") if "/" in rel or rel[:-3] in ("errors", "config") else ""
        tree = ast.parse(path.read_text(encoding="utf-8"), rel)
        nodes = tuple(ast.walk(tree))
        _DEFINED[id(tree)] = frozenset(n.name for n in nodes if isinstance(n, ast.ClassDef | ast.FunctionDef))
        out.append((rel, layer, tree, nodes))
    return tuple(out)


#: the names of the classes and functions each parsed module defines (by ``id`` of its tree)
_DEFINED: dict[int, frozenset[str]] = {}


@pytest.fixture(scope="module", autouse=True)
def _parsed_only_for_this_file() -> Iterator[None]:
    """The parsed package (~1.3 million objects) is let go after this file's last test: kept, it
    stayed in the worker for the rest of the suite, and every full garbage collection there
    (pytest's own at the end among them, ~0.8 s of CPU) went through it again."""
    yield
    _parsed.cache_clear()
    _DEFINED.clear()


def _modules(*, skip: set[str] = frozenset()) -> list[tuple[str, str, ast.Module, tuple[ast.AST, ...]]]:
    """(path relative to vault_mem/, layer or "" for the package root, syntax tree, its nodes as
    ``ast.walk`` gives them) of each module."""
    return [(rel, layer, tree, nodes) for rel, layer, tree, nodes in _parsed() if layer not in skip]


def _imported(node: ast.AST) -> list[str]:
    if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
        if node.module == "vault_mem":
            return [f"vault_mem.{a.name}" for a in node.names]
        return [node.module]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    return []


def test_every_import_goes_down_the_layers():
    wrong = []
    for rel, layer, tree, nodes in _modules(skip=BEING_RESTRUCTURED | {""}):
        for node in nodes:
            for module in _imported(node):
                parts = module.split(".")
                if parts[0] != "vault_mem" or len(parts) < 2 or parts[1] == layer or parts[1] == "__version__":
                    continue
                if _rank(parts[1]) >= _rank(layer):
                    wrong.append(f"{rel}:{node.lineno} imports {module}")
    assert wrong == []


def test_git_is_run_only_by_the_store_layer():
    wrong = []
    for rel, layer, tree, nodes in _modules(skip=BEING_RESTRUCTURED | {"store"}):
        for node in nodes:
            # platform runs ps and lsof (never git: the command-line check below holds for it)
            if "subprocess" in _imported(node) and layer != "platform":
                wrong.append(f"{rel}:{node.lineno} imports subprocess")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("run", "run_index_locked") \
                    and re.search(r"(^|\.)repo$", ast.unparse(node.func.value)):
                wrong.append(f"{rel}:{node.lineno} {ast.unparse(node.func)}(...)")
            if isinstance(node, ast.Call):  # subprocess.run(["git", ...]) by any other name
                wrong += [f"{rel}:{node.lineno} passes a git command line" for arg in node.args
                          if isinstance(arg, (ast.List, ast.Tuple)) and arg.elts
                          and isinstance(arg.elts[0], ast.Constant) and arg.elts[0].value == "git"]
    assert wrong == []


def test_sql_lives_only_in_the_index_layer():
    wrong = []
    for rel, _, tree, nodes in _modules(skip={"index"}):
        for node in nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr in ("execute", "executemany", "executescript"):
                wrong.append(f"{rel}:{node.lineno} {ast.unparse(node.func)}(...)")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL.match(node.value):
                wrong.append(f"{rel}:{node.lineno} SQL text {node.value[:40]!r}")
    assert wrong == []


def test_no_module_uses_another_modules_private_names():
    wrong = []
    for rel, _, tree, nodes in _modules(skip=BEING_RESTRUCTURED):
        for node in nodes:
            if isinstance(node, ast.ImportFrom):
                wrong += [f"{rel}:{node.lineno} imports {a.name}" for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
            elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = ast.unparse(node.value)
                # self._x and cls._x are a class's own; a name in the module is the module's own;
                # os._exit is the standard library's public API (only the CLI may call it, below)
                if owner.split(".")[0] not in ("self", "cls") and not _defines(tree, owner) \
                        and ast.unparse(node) != "os._exit":
                    wrong.append(f"{rel}:{node.lineno} {ast.unparse(node)}")
            elif isinstance(node, ast.Call):
                wrong += [f"{rel}:{node.lineno} passes {k.arg}=" for k in node.keywords
                          if k.arg and k.arg.startswith("_") and not _defines(tree, ast.unparse(node.func))]
    assert wrong == []


#: what only vault_mem/platform/ may touch: OS-specific modules, system calls and /proc
_OS_MODULES = ("fcntl", "ctypes", "msvcrt", "termios", "resource")
_OS_NAMES = ("SO_PEERCRED", "LOCAL_PEERCRED", "getpeereid", "F_SETLEASE", "F_GETLEASE", "F_FULLFSYNC",
             "renameat2", "renamex_np", "RENAME_EXCHANGE", "RENAME_SWAP", "malloc_trim", "flock", "lockf")
_PROC = re.compile(r"(^|[^\w])/proc(/|$)")


def test_os_specific_mechanisms_live_only_in_the_platform_layer():
    """One home per OS-specific mechanism (DESIGN §6, issue 27): nothing else imports fcntl or
    ctypes, names a lease, a peer-credential option, renameat2 or malloc_trim, reads /proc, or
    calls os.fsync (durability is the platform's: F_FULLFSYNC on macOS)."""
    wrong = []
    for rel, layer, tree, nodes in _modules():
        if layer == "platform":
            continue
        for node in nodes:
            wrong += [f"{rel}:{node.lineno} imports {m}" for m in _imported(node)
                      if m.split(".")[0] in _OS_MODULES]
            if isinstance(node, ast.Attribute) and node.attr in _OS_NAMES + ("fsync", "fdatasync") \
                    and ast.unparse(node.value) in ("os", "socket", "fcntl", "libc"):
                wrong.append(f"{rel}:{node.lineno} {ast.unparse(node)}")
            if isinstance(node, ast.Name) and node.id in _OS_NAMES:
                wrong.append(f"{rel}:{node.lineno} {node.id}")
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _PROC.search(node.value):
                wrong.append(f"{rel}:{node.lineno} reads {node.value!r}")
            if isinstance(node, ast.JoinedStr):
                text = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
                if _PROC.search(text):
                    wrong.append(f"{rel}:{node.lineno} reads {ast.unparse(node)}")
    assert wrong == []


def _defines(tree: ast.Module, name: str) -> bool:
    """Whether ``name`` is a class or function this module defines (its private parts are its own)."""
    return name in _DEFINED[id(tree)]


def test_only_the_cli_prints_or_exits():
    wrong = []
    for rel, _, tree, nodes in _modules():
        if rel in PRINTERS:
            continue
        for node in nodes:
            if isinstance(node, ast.Call):
                name = ast.unparse(node.func)
                if name in ("print", "exit", "quit", "sys.exit", "os._exit", "sys.stdout.write", "sys.stderr.write",
                            "traceback.print_exc", "traceback.print_exception", "traceback.print_stack"):
                    wrong.append(f"{rel}:{node.lineno} {name}(...)")
    assert wrong == []


def test_the_model_layer_does_no_io():
    io_calls = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "unlink", "mkdir", "replace",
                "rename", "listdir", "scandir", "stat", "lstat", "walk", "glob", "iterdir", "execute"}
    wrong = []
    for rel, layer, tree, nodes in _modules():
        if layer != "model":
            continue
        for node in nodes:
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                # str.replace is text work; a file rename would be os.replace / Path.replace
                if name in io_calls and not (name == "replace" and len(node.args) == 2) \
                        and not (isinstance(fn, ast.Name) and _defines(tree, name)):
                    wrong.append(f"{rel}:{node.lineno} {ast.unparse(fn)}(...)")
            for module in _imported(node):
                if module.split(".")[0] in ("subprocess", "sqlite3", "sqlean", "socket", "httpx", "shutil"):
                    wrong.append(f"{rel}:{node.lineno} imports {module}")
    assert wrong == []


# -- the error boundary: no stack trace reaches a user or a model -------------------------------------
def _boom(args):
    raise RuntimeError("something nobody expected")


def test_cli_reports_an_unexpected_error_in_one_line(monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMANDS, "list", _boom)
    monkeypatch.delenv(cli.LOG_LEVEL_ENV, raising=False)
    assert cli.main(["list"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: internal error in vault-mem (RuntimeError: something nobody expected)")
    assert "report it" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1

    assert cli.main(["list", "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["kind"] == "InternalError" and "Traceback" not in err


def test_cli_shows_the_stack_trace_only_when_asked(monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMANDS, "list", _boom)
    monkeypatch.setenv(cli.LOG_LEVEL_ENV, "debug")
    assert cli.main(["list"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: internal error") and "Traceback" in err and "_boom" in err


def test_cli_reports_an_os_error_with_what_to_check(tmp_path, monkeypatch, capsys):
    def denied(args):
        raise PermissionError(13, "Permission denied", str(tmp_path / "facts"))

    monkeypatch.setitem(cli.COMMANDS, "list", denied)
    monkeypatch.delenv(cli.LOG_LEVEL_ENV, raising=False)
    assert cli.main(["list"]) == 1
    err = capsys.readouterr().err
    assert "Permission denied" in err and "permissions" in err and "Traceback" not in err


def test_a_tool_that_breaks_returns_an_error_result_and_logs_no_stack_trace(vault, monkeypatch, caplog):
    def broken(*args, **kwargs):
        raise RuntimeError("index on fire")

    monkeypatch.setattr(vault, "list", broken)
    caplog.set_level(logging.DEBUG, logger="vault_mem")
    result = call_tool(vault, "list", {})
    assert result.is_error and result.data["kind"] == "InternalError" and "index on fire" in result.text
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors and all(r.exc_info is None for r in errors)  # the trace is for debug logs only
    assert any(r.exc_info for r in caplog.records if r.levelno == logging.DEBUG)


@pytest.mark.parametrize("name", ["history", "worktree", "workspace"])
def test_store_git_modules_run_git_only_through_the_repo(name):
    """The store's read/staging modules and the workspace call ``repo.run`` or
    ``store.git.run_git`` (the one way to run git, with its environment rules), never
    subprocess: the git layer can change how it runs git in one place."""
    tree = ast.parse((PACKAGE / "store" / f"{name}.py").read_text(encoding="utf-8"))
    assert not any("subprocess" in _imported(n) for n in ast.walk(tree))


def test_vault_parameters_are_typed():
    """A parameter that takes a vault or its workspace says which (``Vault``, ``Workspace``, or a
    narrower protocol), never ``Any`` nor nothing: a checker then sees every call into them."""
    names = {"vault", "ws", "workspace"}
    bad = []
    for rel, _layer, tree, nodes in _modules():
        for node in nodes:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                continue
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.arg not in names or isinstance(node, ast.Lambda):
                    continue
                shown = ast.unparse(arg.annotation) if arg.annotation is not None else ""
                if shown in ("", "Any", "object", "typing.Any"):
                    bad.append(f"{rel}:{node.lineno}: {node.name}({arg.arg}: {shown or 'no annotation'})")
    assert not bad, "untyped vault/workspace parameters:\n" + "\n".join(bad)
