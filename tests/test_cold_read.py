"""A read without a daemon (a one-shot command): it stats every memory file, so an edit made in
place before it (no folder's mtime moves) is in its answer; and a recall loads the model on a
thread while its reconcile stats the files. Real files, real SQLite, real git."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import cli, git, new_vault
from fakes import FakeEmbedder, write_memory


def edit_in_place(path: Path, old: bytes, new: bytes) -> None:
    """Rewrite ``path`` in place, same size, one nanosecond later: no folder's mtime moves."""
    data = path.read_bytes()
    assert len(old) == len(new) and old in data
    st = path.stat()
    with open(path, "r+b") as fh:
        fh.write(data.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))


@pytest.mark.parametrize("op", ["recall", "list", "get"])
def test_a_one_shot_read_sees_an_edit_in_place_made_before_it(tmp_path: Path, op: str, monkeypatch) -> None:
    """The CLI's read without a daemon, a big folder stat'ed by two threads: an edit in place
    made just before it (the folder's mtime unmoved, the size the same) is in its answer."""
    from vault_mem.platform import folders

    monkeypatch.setattr(folders, "stat_threads", lambda count: 2)
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
    assert json.loads(got.stdout)


@pytest.mark.parametrize("change", ["delete", "rename", "checkout", "new file"])
def test_a_one_shot_read_finds_a_change_made_while_nothing_ran(tmp_path: Path, change: str) -> None:
    """A delete, a rename, a new file or a ``git checkout`` of another branch made while no
    vault-mem process ran, after a read recorded the scan sum (index/scansum.py): the next
    one-shot read answers from the files as they are now, not from the rows."""
    root = tmp_path / "vault"
    new_vault(root).close()
    for key, desc in (("editor", "Uses Helix as the main editor"), ("shell", "Uses fish as the login shell")):
        assert cli("--vault", str(root), "remember", key, "--description", desc, "--body", "b").returncode == 0
    if change == "checkout":
        git(root, "checkout", "-q", "-b", "other")
        assert cli("--vault", str(root), "remember", "editor", "--description", "Uses Kakoune as the main editor",
                   "--body", "b").returncode == 0
        git(root, "checkout", "-q", "-")
    assert "Helix" in cli("--vault", str(root), "list", "--json").stdout  # the scan sum is recorded
    facts = root / "facts"
    if change == "delete":
        (facts / "editor.md").unlink()
    elif change == "rename":
        (facts / "editor.md").rename(facts / "editing.md")
    elif change == "checkout":
        git(root, "checkout", "-q", "other")
    else:
        (facts / "pager.md").write_text("---\ndescription: Uses less as the pager\n---\n\nb\n")
    got = cli("--vault", str(root), "list", "--json")
    assert got.returncode == 0, got.stderr
    keys = {m["key"]: m["description"] for m in json.loads(got.stdout)}
    want = {"delete": {"shell"}, "rename": {"editing", "shell"}, "checkout": {"editor", "shell"},
            "new file": {"editor", "pager", "shell"}}[change]
    assert set(keys) == want, keys
    if change == "checkout":
        assert keys["editor"] == "Uses Kakoune as the main editor"


def test_a_read_that_finds_no_file_changed_imports_no_yaml_and_no_secret_rules(tmp_path: Path) -> None:
    """A one-shot read with nothing changed parses no file and checks no text, so it imports no
    YAML at all (python-frontmatter and vault-mem's handler: ~20 ms of a cold read's start-up,
    issue 29; PyYAML itself, which the write policy named at its top: ~11 ms more) and none of
    the secret gate's rules (~20 ms: index/scan.py imported them all for their fingerprint); nor
    does the post-checkout hook git runs after a checkout that changed no memory (every command
    and git hook that opens a vault paid both, issue 28). A read after an edit in place imports
    them, parses the file and checks it. Checked in ``sys.modules`` of a fresh process, not by
    timing."""
    root = tmp_path / "vault"
    new_vault(root).close()
    assert cli("--vault", str(root), "remember", "editor", "--description", "Uses Helix as the main editor",
               "--body", "Switched from Neovim last spring.").returncode == 0
    assert cli("--vault", str(root), "list", "--json").returncode == 0  # the scan sum is recorded
    yaml_modules = "('yaml', 'frontmatter', 'vault_mem.model.frontmatter_handler')"
    code = ("import sys\n"
            "from vault_mem.adapters import cli\n"
            f"assert cli.main(['--vault', {str(root)!r}, *sys.argv[1:]]) == 0\n"
            # the secret gate's rules (~20 ms more): imported by the first text checked, and
            # checked here by its ``secrets`` module, the one every check goes through
            "print('GATE', 'vault_mem.model.secrets' in sys.modules)\n"
            f"print('YAML', [m for m in {yaml_modules} if m in sys.modules])\n")
    env = {**os.environ, "VAULT_MEM_DAEMON": "off", "VAULT_MEM_EMBEDDER": "none"}

    gate: list[str] = []

    def run(*args: str) -> tuple[str, str]:
        done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                              timeout=120, cwd=root)
        assert done.returncode == 0, done.stderr
        answer, _, rest = done.stdout.partition("GATE ")
        gate.append(rest.split()[0])
        return answer, done.stdout.split("YAML ")[1].strip()

    answer, loaded = run("recall", "Helix", "--json")
    assert "Helix" in answer and loaded == "[]"
    answer, loaded = run("list", "--json")
    assert "Helix" in answer and loaded == "[]"
    head = git(root, "rev-parse", "HEAD").strip()
    assert run("hook", "post-checkout", head, head, "1")[1] == "[]"
    assert gate == ["False", "False", "False"]  # nothing read, no text checked
    edit_in_place(root / "facts" / "editor.md", b"Helix", b"Xelih")
    answer, loaded = run("recall", "Xelih", "--json")
    assert "Xelih" in answer and "Helix" not in answer
    assert loaded == "['yaml', 'frontmatter', 'vault_mem.model.frontmatter_handler']"
    assert gate[-1] == "True"  # the edited file was read, and checked


class LoadingEmbedder(FakeEmbedder):
    """A model that must be loaded before its first embed (as the local one): says on which
    thread it was loaded, and refuses to embed before."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded_on: list[threading.Thread] = []
        self.asked_on: list[threading.Thread] = []
        self.lock = threading.Lock()

    def load(self) -> None:
        with self.lock:
            self.asked_on.append(threading.current_thread())
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
        again = vault.recall("which editor do I use")
    assert [h.key for h in got.hits][:1] == [h.key for h in again.hits][:1] == ["editor"]
    assert not got.keyword_only and not again.keyword_only
    assert len(embedder.loaded_on) == 1 and embedder.loaded_on[0] is not threading.main_thread()
    # one thread for the process's first recall, none for the next: the model is in
    assert [t for t in embedder.asked_on if t is not threading.main_thread()] == embedder.loaded_on


def test_a_one_shot_recall_builds_its_embedder_on_the_load_thread(tmp_path: Path, monkeypatch) -> None:
    """The embedder ``[embedder]`` names is built on the model's thread, not before the reconcile
    on the caller's (building the local one imports numpy and onnxruntime: ~70 ms of CPU that
    held back the stat of every file). The recall asking for it meanwhile waits for it: built
    slowly, it still answers in full (a recall that saw "no embedder" mid-build would answer
    keyword-only)."""
    from vault_mem.embed import registry
    from vault_mem.vault.core import Vault

    root = tmp_path / "vault"
    new_vault(root).close()
    write_memory(root, "editor", "Uses Helix as the main editor")
    monkeypatch.setenv("VAULT_MEM_EMBEDDER", "local")
    embedder = LoadingEmbedder()
    built_on: list[threading.Thread] = []
    asked = threading.Event()

    def get_embedder(settings):
        built_on.append(threading.current_thread())
        asked.wait(10)  # the build outlasts the reconcile: the recall asks meanwhile
        return embedder

    monkeypatch.setattr(registry, "get_embedder", get_embedder)
    with Vault(root) as vault:
        vectors = vault.sidecar.vectors
        for name in ("vectors_reason", "get_embedder"):  # the recall's first questions for it
            def asking(*a, _ask=getattr(vectors, name), **kw):
                asked.set()
                return _ask(*a, **kw)
            monkeypatch.setattr(vectors, name, asking)
        got = vault.recall("which editor")
    assert built_on and built_on[0] is not threading.main_thread() and len(built_on) == 1
    assert not got.keyword_only and [h.key for h in got.hits][:1] == ["editor"]
    assert embedder.loaded_on and embedder.loaded_on[0] is built_on[0]


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


def test_a_lock_file_says_exactly_its_last_holder_after_a_longer_one(tmp_path: Path, monkeypatch) -> None:
    """Every command that reconciles takes the write lock and writes its pid and name into the
    lock file: written over the old text, then cut to its own length (never cut to nothing
    first: ext4 then flushes the file's blocks, 1-8 ms of waiting per command here), so no tail
    of a longer name is left."""
    from vault_mem.store import locks

    path = tmp_path / "write.lock"
    for command in ("a-very-long-command-name-of-32ch", "recall", "remember-longer", "get"):
        monkeypatch.setattr(locks, "_command", command)
        with locks.FileLock(path):
            assert path.read_bytes() == f"{os.getpid()}\n{command}\n".encode()
            assert locks.read_holder(path) == (os.getpid(), command)
        assert locks.read_holder(path) == (os.getpid(), command)


@pytest.mark.parametrize("when_s", [99_999_999_999_999, -99_999_999_999], ids=["year-3e6", "year-1200"])
def test_a_file_time_past_what_sqlite_holds_breaks_no_read(tmp_path: Path, when_s: int) -> None:
    """A memory file's mtime set past 2262 or before 1677 (a person's `touch -d`, a restore tool):
    its time in ns is past SQLite's 64-bit INTEGER, and the reconcile's row write failed with an
    OverflowError, so every read (list, recall, doctor) and write of the vault failed. The
    listing holds the time at the bound (`platform.folders.held_ns`), through GNU find's listing
    (the CLI) and a scan of the folders (a Vault in a process)."""
    from vault_mem import Vault

    root = tmp_path / "vault"
    new_vault(root).close()
    assert cli("--vault", str(root), "remember", "editor-choice", "-t", "preference",
               "-d", "uses neovim for editing").returncode == 0
    path = root / "preferences" / "editor-choice.md"
    try:
        os.utime(path, (when_s, when_s))
    except (OverflowError, OSError) as exc:
        pytest.skip(f"this file system holds no such time: {exc}")
    for args in (["list"], ["recall", "which editor"], ["doctor"], ["remember", "after", "-d", "a later fact"]):
        r = cli("--vault", str(root), *args)
        assert r.returncode == 0 and "internal error" not in r.stderr, (args, r.stderr)
        if args[0] in ("list", "recall"):
            assert "editor-choice" in r.stdout, (args, r.stdout)
    os.utime(path, (when_s, when_s))
    vault = Vault(root, embedder=FakeEmbedder())
    try:
        vault.reconcile(force=True)
        assert "editor-choice" in [m["key"] for m in vault.list()]
    finally:
        vault.close()
