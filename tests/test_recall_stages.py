"""The recall pipeline reads the sidecar only through its protocol (index/search.py).

``run_recall(sc, ...)`` is given an object holding nothing but what ``RecallSource`` names (the
database, the settings and a vector half with only ``RecallVectors``' methods, each the real
sidecar's): it answers exactly as ``Sidecar.recall`` does. A pipeline that reached for anything
else of the sidecar (or of its vectors) fails here with an AttributeError.
"""

from __future__ import annotations

import datetime as dt
import inspect
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fakes import FakeEmbedder, write_memory

from vault_mem.config import Config
from vault_mem.index import search
from vault_mem.index.sidecar import Sidecar

TODAY = dt.date(2026, 3, 1)


def _members(protocol: type) -> list[str]:
    """The names a Protocol class declares itself (methods, properties, annotated attributes)."""
    names = set(getattr(protocol, "__annotations__", {}))
    names |= {n for n, v in vars(protocol).items()
              if not n.startswith("_") and (inspect.isfunction(v) or isinstance(v, property))}
    return sorted(names)


def _only_the_protocol(sc: Sidecar) -> SimpleNamespace:
    vectors = SimpleNamespace(**{n: getattr(sc.vectors, n) for n in _members(search.RecallVectors)})
    held = {"db": sc.db, "config": sc.config, "vectors": vectors}
    assert sorted(held) == _members(search.RecallSource)
    return SimpleNamespace(**held)


@pytest.fixture(params=["vectors", "vectors-in-memory", "keywords"])
def sidecar(request, tmp_path: Path, monkeypatch) -> Sidecar:
    if request.param == "keywords":
        monkeypatch.setenv("VAULT_MEM_DISABLE_VEC", "1")
    root = tmp_path / "v"
    write_memory(root, "editor", "Uses Helix as the main editor", "Switched from Neovim for the LSP support.",
                 tags=["tools"], scope="laptop", supersedes=["vim"])
    write_memory(root, "coffee", "Takes oat milk in coffee", type_="preference", tags=["food"])
    write_memory(root, "p2p", "Peer-to-peer sync uses Syncthing", tags=["tools"])
    write_memory(root, "deploy", "How to deploy the blog", "1. build\n2. rsync to the host", type_="procedure")
    write_memory(root, "vim", "Uses Vim as the editor", "Before Helix.")
    write_memory(root, "trial", "Trying the Zed editor this month", expires=dt.date(2026, 2, 1))
    sc = Sidecar(root, Config(), embedder=FakeEmbedder())
    sc.vectors.keep_vectors_in_memory = request.param == "vectors-in-memory"
    sc.reconcile()
    yield sc
    sc.close()


@pytest.mark.parametrize("query, kw", [
    ("which editor do I use", {}),
    ("which editor do I use", {"include_expired": True}),
    ("coffee", {"type": "preference"}),
    ("sync", {"tags": ["tools"]}),
    ("deploy the blog", {"queries": ["publish the website", "rsync to the host"]}),
    ("quantum chromodynamics lecture", {}),
    ("", {}),
])
def test_run_recall_reads_nothing_of_the_sidecar_but_its_protocol(sidecar: Sidecar, query: str, kw: dict) -> None:
    whole = sidecar.recall(query, today=TODAY, **kw)
    args = {"k": 5, "type": None, "tags": None, "scope": None, "include_expired": False, "queries": (), **kw}
    narrow = search.run_recall(_only_the_protocol(sidecar), query, today=TODAY, **args)
    assert narrow.to_dict() == whole.to_dict()
    assert (narrow.demoted, narrow.stored) == (whole.demoted, whole.stored)
