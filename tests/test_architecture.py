"""The import rules of DESIGN.md §6, checked on the source.

- the layers contract in ``pyproject.toml`` (``[tool.importlinter]``) holds: ``lint-imports``;
- no function-level import reaches a higher layer (the usual way to dodge a cycle);
- no module imports another module's ``_private`` name, nor reads one through an imported module;
- no module inside the layers imports the package root (``vault_mem/__init__.py`` re-exports
  ``Vault`` lazily, so a ``from vault_mem import ...`` below vault hides an upward dependency).

The ast checks read every ``vault_mem/**/*.py`` file; a failure lists every offending line, so
one run gives the whole to-do list.
"""

from __future__ import annotations

import ast
import functools
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "vault_mem"

# DESIGN.md §6, top to bottom. The package root, ``__main__`` and the ``cli`` and ``tools`` shims are entry
# points above the adapters. Layers of the same rank (sync, ops) must not import each other.
RANK = {
    "<top>": 11,
    "adapters": 10,
    "daemon": 9,
    "sync": 8,
    "ops": 8,
    "vault": 7,
    "index": 6,
    "store": 5,
    "embed": 4,
    "model": 3,
    "config": 2,
    "platform": 1,
    "errors": 0,
}
TOP = {"vault_mem", "vault_mem.__main__", "vault_mem.cli", "vault_mem.tools"}


@dataclass(frozen=True)
class Source:
    """One module of the package: its dotted name, whether it is a package, and its tree."""

    name: str
    path: Path
    is_package: bool
    tree: ast.Module

    @property
    def package(self) -> str:
        return self.name if self.is_package else self.name.rpartition(".")[0]

    def where(self, node: ast.AST) -> str:
        return f"{self.path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"


@functools.cache
def _sources() -> tuple[Source, ...]:
    """Every module of the package, parsed once, at the first test that reads them: at import it
    was parsed by every xdist worker collecting this file (~0.8 s of CPU each), run here or not."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out.append(Source(".".join(parts), path, is_package, ast.parse(path.read_text(), str(path))))
    return tuple(out)


@functools.cache
def _module_names() -> frozenset[str]:
    return frozenset(s.name for s in _sources())


@functools.cache
def _walked(src: Source) -> tuple[ast.AST, ...]:
    """``ast.walk(src.tree)``, once for this file's tests (each walked the package again)."""
    return tuple(ast.walk(src.tree))


@pytest.fixture(scope="module", autouse=True)
def _parsed_only_for_this_file() -> Iterator[None]:
    """The parsed package and what is read from it (~1.3 million objects) are let go after this
    file's last test: kept, they stayed in the worker for the rest of the suite, and every full
    garbage collection there (pytest's own at the end among them, ~1 s of CPU) went through them."""
    yield
    for cached in (_sources, _module_names, _walked, _imports, _module_bindings):
        cached.cache_clear()


def layer(module: str) -> str:
    """The layer a ``vault_mem`` module belongs to (``<top>`` for the entry points)."""
    if module in TOP:
        return "<top>"
    return module.split(".")[1]


def goes_up(importer: str, imported: str) -> bool:
    """Whether ``importer`` importing ``imported`` breaks the layer order."""
    a, b = layer(importer), layer(imported)
    return a != b and (RANK[b] > RANK[a] or RANK[b] == RANK[a])


def _absolute(src: Source, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` reads from (relative imports resolved)."""
    if not node.level:
        return node.module or ""
    base = src.package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


@dataclass(frozen=True)
class Imported:
    """One name an import statement brings in: the module it resolves to and the name itself."""

    node: ast.Import | ast.ImportFrom
    module: str  # the vault_mem module imported (for `from m import x`: m.x when that is a module)
    name: str | None  # for `from m import x` where m.x is not a module: x; else None
    in_function: bool


@functools.cache
def _imports(src: Source) -> tuple[Imported, ...]:
    """Every import of a vault_mem module in ``src``, read once for this file's tests."""
    return tuple(_read_imports(src))


def _read_imports(src: Source) -> Iterator[Imported]:
    def visit(node: ast.AST, in_function: bool) -> Iterator[Imported]:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.split(".")[0] == "vault_mem":
                        yield Imported(child, alias.name, None, inside)
            elif isinstance(child, ast.ImportFrom):
                base = _absolute(src, child)
                if base.split(".")[0] == "vault_mem":
                    for alias in child.names:
                        sub = f"{base}.{alias.name}"
                        if sub in _module_names():
                            yield Imported(child, sub, None, inside)
                        else:
                            yield Imported(child, base, alias.name, inside)
            yield from visit(child, inside)

    yield from visit(src.tree, False)


def test_import_contracts_hold():
    """``lint-imports`` (import-linter) keeps every contract in pyproject.toml."""
    exe = Path(sys.executable).with_name("lint-imports")
    command = str(exe) if exe.exists() else shutil.which("lint-imports")
    assert command, "lint-imports is missing: pip install -e '.[test]' (import-linter is a test extra)"
    # a subprocess on purpose: this is the command CI and a person run, with its own report
    proc = subprocess.run([command, "--no-cache"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout[proc.stdout.find("Broken contracts"):] + proc.stderr


def test_no_function_level_import_reaches_a_higher_layer():
    """An import inside a function that goes up the layers is a cycle dodged, not removed."""
    bad = [
        f"{src.where(imp.node)}: {src.name} ({layer(src.name)}) imports {imp.module} ({layer(imp.module)})"
        for src in _sources()
        for imp in _imports(src)
        if imp.in_function and imp.module in _module_names() and goes_up(src.name, imp.module)
    ]
    assert not bad, "function-level imports of a higher layer:\n" + "\n".join(bad)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _dotted(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None for anything but names and attributes."""
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return None if head is None else [*head, node.attr]
    return None


@functools.cache
def _module_bindings(src: Source) -> dict[str, str]:
    """Local names bound to vault_mem modules by this file's imports (any scope). Read only."""
    bound: dict[str, str] = {}
    for node in _walked(src):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "vault_mem":
                    # `import a.b.c` binds a; `import a.b.c as x` binds x to a.b.c
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(src, node)
            for alias in node.names:
                if f"{base}.{alias.name}" in _module_names():
                    bound[alias.asname or alias.name] = f"{base}.{alias.name}"
    return bound


def test_no_module_uses_another_modules_private_names():
    """``from m import _x`` and ``m._x`` on an imported vault_mem module are both refused."""
    bad = []
    for src in _sources():
        for imp in _imports(src):
            if not isinstance(imp.node, ast.ImportFrom):
                continue
            if imp.name is not None and _is_private(imp.name):
                bad.append(f"{src.where(imp.node)}: imports {imp.module}.{imp.name}")
            elif imp.name is None:
                last = imp.module.rpartition(".")
                # a private submodule is for its own package (and that package's descendants)
                if _is_private(last[2]) and not src.name.startswith(last[0] + "."):
                    bad.append(f"{src.where(imp.node)}: imports the private module {imp.module}")
        bound = _module_bindings(src)
        for node in _walked(src):
            if not (isinstance(node, ast.Attribute) and _is_private(node.attr)):
                continue
            chain = _dotted(node.value)
            if not chain or chain[0] not in bound:
                continue
            module = ".".join([bound[chain[0]], *chain[1:]])
            if module in _module_names() and module != src.name:
                bad.append(f"{src.where(node)}: reads {module}.{node.attr}")
    assert not bad, "uses of another module's private names:\n" + "\n".join(sorted(set(bad)))


def _private_members(src: Source) -> set[str]:
    """Private names this module's classes define: ``def _x``, ``_x = ...``, ``self._x = ...``."""
    names: set[str] = set()
    for cls in (n for n in _walked(src) if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _is_private(node.name):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and _is_private(node.id):
                names.add(node.id)
            elif (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _is_private(node.attr)
                  and isinstance(node.value, ast.Name) and node.value.id == "self"):
                names.add(node.attr)
    return names


def test_no_module_reaches_into_another_modules_objects():
    """``obj._x`` where ``_x`` is a private member of a class of another module (say
    ``vault._top(...)`` outside vault/core.py): the same rule, on the objects' side.

    A name counts as another module's only when no class of this module defines it too (so a
    ``self._lock`` of this module's own classes never counts); ``self``/``cls`` never count."""
    members = {src.name: _private_members(src) for src in _sources()}
    bad = []
    for src in _sources():
        bound = _module_bindings(src)
        for node in _walked(src):
            if not (isinstance(node, ast.Attribute) and _is_private(node.attr)):
                continue
            if isinstance(node.value, ast.Name) and (node.value.id in ("self", "cls") or node.value.id in bound):
                continue  # own members, or module attributes (the test above)
            if node.attr in members[src.name]:
                continue
            owners = sorted(m for m, names in members.items() if node.attr in names)
            if owners:
                bad.append(f"{src.where(node)}: {ast.unparse(node)} (a private member in {', '.join(owners)})")
    assert not bad, "private members of another module's objects:\n" + "\n".join(sorted(set(bad)))


def test_no_module_inside_the_layers_imports_the_package_root():
    """The root re-exports Vault lazily (``__getattr__``): a module below vault that imports it
    depends on vault without saying so, and the adapters sit below the root. Import from the
    module that defines the name (``vault_mem.model.memory``, ``vault_mem.errors``, ...)."""
    bad = [
        f"{src.where(imp.node)}: {src.name} imports "
        + (f"{imp.name} from the package root" if imp.name else "the package root")
        for src in _sources()
        if src.name not in TOP
        for imp in _imports(src)
        if imp.module == "vault_mem"
    ]
    assert not bad, "imports of the package root from inside the layers:\n" + "\n".join(bad)


def test_every_module_is_in_a_known_layer():
    """A new package under vault_mem/ needs its place in RANK here and in pyproject.toml."""
    unknown = sorted({layer(m) for m in _module_names()} - set(RANK))
    assert not unknown, f"packages with no layer: {unknown}"


def test_the_version_is_said_once_per_file_and_agrees():
    """config.VERSION (what the MCP server reports) and pyproject.toml's version are the same."""
    import tomllib

    import vault_mem
    from vault_mem.config import VERSION

    with open(Path(__file__).resolve().parent.parent / "pyproject.toml", "rb") as fh:
        assert tomllib.load(fh)["project"]["version"] == VERSION == vault_mem.__version__


def test_a_files_stat_stamp_is_built_in_one_place():
    """What tells one version of a file from another by its stat (device, inode, size, both
    times) is :func:`vault_mem.platform.settle.stamp`: git's discovery, git's config reading,
    the model-check record, the approvals' parse and the staged file's check each built their
    own tuple, with fields of their own (the discovery's held the mode, the staged check no
    device), as did INDEX.md's version, the MCP server's poll, the replace refs' and the
    commits-made-here record's caches (no device, no change time). A tuple or list of a stat's
    modification time with its inode, size or change time anywhere else is a copy of that rule,
    but for the one that must differ, saying why in its docstring."""
    home = PACKAGE / "platform" / "settle.py"
    differ = {"index_file_signature"}  # git's index: no ctime, which a hard link made moves
    bad = []
    for src in _sources():
        if src.path == home:
            continue
        for func in ast.walk(src.tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or func.name in differ:
                continue
            for node in ast.walk(func):
                if isinstance(node, (ast.Tuple, ast.List)):
                    fields = {e.attr for e in node.elts if isinstance(e, ast.Attribute)}
                    if "st_mtime_ns" in fields and fields & {"st_ino", "st_size", "st_ctime_ns"}:
                        bad.append(src.where(node))
    assert not bad, "a stat stamp built outside platform/settle.py:\n" + "\n".join(sorted(set(bad)))


def test_the_0_1_import_paths_still_work():
    """Hooks installed by 0.1 run ``python -m vault_mem.cli``; 0.1's README imported the tool
    schemas and dispatch from ``vault_mem.tools``."""
    from vault_mem import cli, tools
    from vault_mem.adapters import cli as adapters_cli
    from vault_mem.adapters import tools as adapters_tools

    assert cli.main is adapters_cli.main
    assert tools.dispatch is adapters_tools.dispatch and tools.schemas is adapters_tools.schemas


def _all_imports(src: Source) -> set[str]:
    """Every vault_mem module ``src`` imports anywhere: at module level, under ``if
    TYPE_CHECKING:``, inside functions (an import moved into a function hides a cycle, it does
    not remove it)."""
    return {imp.module for imp in _imports(src) if imp.module in _module_names() and imp.module != src.name}


def test_no_import_cycle():
    """The import graph of the package has no cycle (DESIGN §6), within a layer too, where the
    layers contract does not look: no module imports itself back through others, counting the
    imports inside functions and under ``TYPE_CHECKING`` as well as those made when it loads."""
    graph = {s.name: _all_imports(s) for s in _sources()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt])
            elif nxt not in state:
                walk(nxt, [*path, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            walk(name, [name])
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)
