"""The scan begun early (vault_mem/index/folderscan.py): a one-shot read without a daemon stats
the memory files on a thread while it imports the vault's code, and its first reconcile takes
that scan, once. Every edit made before the command is in it (an edit in place included); one
made after it began is seen by the next read. Real files, real SQLite, real git."""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import cli, new_vault
from fakes import FakeEmbedder, write_memory

from vault_mem.config import Config
from vault_mem.index import folderscan
from vault_mem.index.folderscan import begin_scan, drop_scan, scan_folders, take_scan
from vault_mem.index.sidecar import Sidecar


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    root.mkdir()
    write_memory(root, "editor", "Uses Helix as the main editor", "Switched from Neovim.")
    write_memory(root, "coffee", "Takes oat milk in coffee", type_="preference")
    return root


@pytest.fixture(autouse=True)
def no_scan_left():
    yield
    drop_scan()  # a test's scan is never taken by another test's reconcile


def begun_and_done(root: Path) -> None:
    """:func:`begin_scan`, then wait until its thread has stat'ed every file."""
    begin_scan(root)
    early = folderscan._early
    assert early is not None and early.thread is not None
    early.thread.join()


def open_sidecar(root: Path) -> Sidecar:
    return Sidecar(root, Config(), embedder=FakeEmbedder())


def description(sc: Sidecar, key: str) -> str:
    return sc.db.execute("SELECT description FROM files WHERE key = ?", (key,)).fetchone()[0]


def edit_in_place(path: Path, old: bytes, new: bytes) -> None:
    """Rewrite ``path`` in place, same size, one nanosecond later: no folder's mtime moves."""
    data = path.read_bytes()
    assert len(old) == len(new) and old in data
    st = path.stat()
    with open(path, "r+b") as fh:
        fh.write(data.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))


def test_the_first_reconcile_takes_the_early_scan_and_the_next_scans_again(vault: Path) -> None:
    sc = open_sidecar(vault)
    sc.reconcile()
    begun_and_done(vault)
    write_memory(vault, "late", "Written after the scan began")
    assert sc.reconcile().added == 0  # the early scan's answer: it began before the file was there
    assert folderscan._early is None  # taken once
    r = sc.reconcile()  # the next read scans the folders itself
    assert r.added == 1 and sc.keys() == ["coffee", "editor", "late"]
    sc.close()


def test_an_edit_in_place_made_before_the_early_scan_is_seen(vault: Path) -> None:
    sc = open_sidecar(vault)
    sc.reconcile()
    sc.reconcile()  # the scan sum is recorded: a read with nothing changed reads no row
    edit_in_place(vault / "facts" / "editor.md", b"Helix", b"Xelih")
    begun_and_done(vault)
    r = sc.reconcile()
    assert r.updated == 1 and description(sc, "editor") == "Uses Xelih as the main editor"
    sc.close()


def test_another_vaults_early_scan_is_not_taken(vault: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    write_memory(other, "elsewhere", "A memory of the other vault")
    sc = open_sidecar(vault)
    sc.reconcile()
    begun_and_done(other)
    write_memory(vault, "late", "Written after the other vault's scan began")
    assert sc.reconcile().added == 1
    assert take_scan(other).as_dict() == scan_folders(other)  # still there for its own vault, once
    assert take_scan(other) is None
    sc.close()


def test_a_dropped_early_scan_is_not_taken(vault: Path) -> None:
    """What the recovery of an interrupted write does when it changed files (vault/core.py)."""
    sc = open_sidecar(vault)
    sc.reconcile()
    begun_and_done(vault)
    (vault / "facts" / "editor.md").unlink()
    drop_scan()
    r = sc.reconcile()
    assert r.removed == 1 and sc.keys() == ["coffee"]
    sc.close()


def test_an_early_scan_of_a_vault_without_its_folders_answers_as_a_scan_at_the_reconcile(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    begun_and_done(root)
    assert take_scan(root).as_dict() == {} == scan_folders(root)


@pytest.mark.parametrize("op", ["recall", "list", "get"])
def test_a_one_shot_read_sees_an_edit_in_place_made_before_it(tmp_path: Path, op: str, monkeypatch) -> None:
    """The CLI's read without a daemon: the scan it begins early holds an edit in place made
    just before it (the folder's mtime unmoved, the size the same), and is taken by its read."""
    begun: list[Path] = []
    real = folderscan.begin_scan
    monkeypatch.setattr(folderscan, "begin_scan", lambda root: (begun.append(Path(root)), real(root)))
    root = tmp_path / "vault"
    new_vault(root).close()
    assert cli("--vault", str(root), "remember", "editor", "--description", "Uses Helix as the main editor",
               "--body", "Switched from Neovim last spring.").returncode == 0
    assert cli("--vault", str(root), "list", "--json").returncode == 0  # the scan sum is recorded
    edit_in_place(root / "facts" / "editor.md", b"Helix", b"Xelih")
    args = {"recall": ["recall", "which editor", "--json"], "list": ["list", "--json"],
            "get": ["get", "editor", "--json"]}[op]
    got = cli("--vault", str(root), *args)
    assert got.returncode == 0, got.stderr
    assert "Xelih" in got.stdout and "Helix" not in got.stdout
    assert [p.resolve() for p in begun] == [root.resolve()] * 2  # by the list before, and by this read
    assert folderscan._early is None  # taken by the read
    assert json.loads(got.stdout)


class LoadingEmbedder(FakeEmbedder):
    """A model that must be loaded before its first embed (as the local one): says on which
    thread it was loaded, and refuses to embed before."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded_on: list[threading.Thread] = []
        self.lock = threading.Lock()

    def load(self) -> None:
        with self.lock:
            if not self.loaded_on:
                self.loaded_on.append(threading.current_thread())

    def embed_batch(self, texts, *, kind="document"):
        self.load()  # what the local model does on its first use
        return super().embed_batch(texts, kind=kind)


def test_a_one_shot_recall_loads_the_model_on_a_thread_while_it_reconciles(tmp_path: Path) -> None:
    """A recall without a watcher of its own (a one-shot command) begins the model's load on a
    thread before its reconcile stats the files, and answers in full once it is in."""
    from vault_mem.vault.core import Vault

    root = tmp_path / "vault"
    new_vault(root).close()
    write_memory(root, "editor", "Uses Helix as the main editor")
    embedder = LoadingEmbedder()
    with Vault(root, embedder=embedder) as vault:
        got = vault.recall("which editor")
    assert [h.key for h in got.hits][:1] == ["editor"] and not got.keyword_only
    assert len(embedder.loaded_on) == 1 and embedder.loaded_on[0] is not threading.main_thread()


def test_a_model_that_fails_to_load_on_the_thread_is_reported_by_the_recall(tmp_path: Path) -> None:
    """The thread's failure is not lost nor raised there: the recall meets it on its own
    thread, as without the early load, and answers keyword-only saying why."""
    from vault_mem.errors import EmbedderError
    from vault_mem.vault.core import Vault

    class Broken(LoadingEmbedder):
        def load(self) -> None:
            self.loaded_on.append(threading.current_thread())
            raise EmbedderError("the model file is damaged")

    root = tmp_path / "vault"
    new_vault(root).close()
    write_memory(root, "editor", "Uses Helix as the main editor")
    embedder = Broken()
    with Vault(root, embedder=embedder) as vault:
        got = vault.recall("which editor")
    assert got.keyword_only and "the model file is damaged" in (got.reason or "")
    assert [h.key for h in got.hits][:1] == ["editor"]
    assert embedder.loaded_on[0] is not threading.main_thread() and len(embedder.loaded_on) >= 2
