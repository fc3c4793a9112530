"""The MCP SDK's stdio server without the rest of the SDK: its packages' ``__init__`` run on demand.

A stdio server needs ``mcp.types``, ``mcp.server.lowlevel``, ``mcp.server.stdio`` and a few
helpers. But importing any of them first runs ``mcp/__init__.py``, which imports the SDK's client
(``Client``, ``ClientSession``, ``stdio_client``, and through them its HTTP client), and
``mcp/server/__init__.py``, which imports ``MCPServer`` (the decorator API with its resource
templates, prompts and HTTP app). None of that serves a request here; it was ~15% of the SDK's
import, which every ``vault-mem mcp`` (every agent session, and each server the test suite
starts) paid before its first answer (bench/bench_mcp_spawn.py, issues 28 and 29).

:func:`lean_import` puts those two packages in ``sys.modules`` as their real module objects
(``importlib.util.module_from_spec``: the same spec, ``__path__`` and file) without running their
``__init__``; their submodules import as usual, each bound on its package as an import binds
it. The first lookup of a name such a package does not hold (``from mcp import Client``,
``mcp.ClientSession``, ``from mcp.server import MCPServer``, ``from mcp import *``) runs the
package's real ``__init__`` in that module, once, and answers from it: code in the same process
that wants the whole SDK (the tests' client, a bench) gets exactly what a plain ``import mcp``
gives. Where the SDK is already imported, or laid out otherwise, it does nothing.
"""

from __future__ import annotations

import importlib.util
import sys
from importlib.machinery import PathFinder
import threading
from types import ModuleType

__all__ = ["LAZY_PACKAGES", "lean_import"]

#: The SDK's packages whose ``__init__`` imports far more than a stdio server uses.
LAZY_PACKAGES = ("mcp", "mcp.server")

_lock = threading.RLock()


def lean_import() -> None:
    """Make :data:`LAZY_PACKAGES` importable without running their ``__init__`` until a name
    they alone define is looked up (see the module's docstring). Call it before importing from
    the SDK; calling it again, or after the SDK was imported, changes nothing."""
    with _lock:
        for name in LAZY_PACKAGES:
            if name in sys.modules:
                continue
            spec = importlib.util.find_spec(name)  # imports the parent package, lazily too
            if spec is None or spec.loader is None or spec.submodule_search_locations is None:
                return  # not a package here: the SDK imports as usual
            module = importlib.util.module_from_spec(spec)
            module.__getattr__ = _run_init_on_demand(module)  # type: ignore[attr-defined]
            sys.modules[name] = module
            parent, _, child = name.rpartition(".")
            if parent:
                setattr(sys.modules[parent], child, module)


def _run_init_on_demand(module: ModuleType):
    """The package's ``__getattr__`` (PEP 562): its real ``__init__``, run at the first lookup
    of a name it does not hold, then the answer from what that defined. A submodule not yet
    imported is not such a name: ``from mcp import types`` asks the package for ``types`` first,
    and imports ``mcp.types`` when it has none."""
    state = {"ran": False}

    def __getattr__(attr: str):
        if not state["ran"] and PathFinder.find_spec(f"{module.__name__}.{attr}", module.__path__) is not None:
            raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}")
        with _lock:  # another thread waits for the whole __init__, as for an import in progress
            if not state["ran"]:
                state["ran"] = True
                module.__spec__.loader.exec_module(module)  # type: ignore[union-attr]
        try:
            return module.__dict__[attr]
        except KeyError:
            raise AttributeError(f"module {module.__name__!r} has no attribute {attr!r}") from None

    return __getattr__
