"""The trust boundary (DESIGN §7, issue 14): approved settings, no symlink followed, journals this
machine wrote, the tree of a fresh clone, MCP text that is not Unicode, and refusals exit 1.

Real git remotes and clones, real symlinks, a real HTTP server standing in for a peer's
"embedding service", the real CLI in process and the real MCP server process.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from conftest import ROOT, at_terminal, cli, git, new_vault, publish, published_copy

from vault_mem.platform import settle
from vault_mem import Vault
from vault_mem.errors import LinkError, UnsafeTreeError
from vault_mem.sync.remote import sync

# -- helpers ---------------------------------------------------------------------------------


class Recorder(ThreadingHTTPServer):
    """An OpenAI-compatible /v1/embeddings server that records every request it gets."""

    def __init__(self):
        self.requests: list[dict] = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(inner):
                length = int(inner.headers.get("Content-Length", 0))
                body = json.loads(inner.rfile.read(length) or b"{}")
                self.requests.append({"path": inner.path, "auth": inner.headers.get("Authorization"),
                                      "body": body})
                data = [{"index": i, "embedding": [1.0, 0.5, 0.25, float(i)]}
                        for i, _ in enumerate(body.get("input", []))]
                out = json.dumps({"data": data, "model": "peer"}).encode()
                inner.send_response(200)
                inner.send_header("Content-Type", "application/json")
                inner.send_header("Content-Length", str(len(out)))
                inner.end_headers()
                inner.wfile.write(out)

        super().__init__(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def recorder():
    srv = Recorder()
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def pair(tmp_path):
    """A bare remote, this machine's vault ``mine`` (made by init, pushed) and a peer's clone
    (made once per worker and copied: conftest's ``published_copy``)."""
    mine = published_copy(tmp_path, "trust-pair", _make_pair, vault="mine")
    yield tmp_path / "remote.git", mine, tmp_path / "peer"
    mine.close()


def _make_pair(tmp_path: Path):
    mine = new_vault(tmp_path / "mine")
    publish(mine.root, tmp_path)
    return mine


def peer_push(peer: Path, message: str = "peer change", *, add: bool = True) -> None:
    if add:
        git(peer, "add", "-A")
    git(peer, "commit", "-q", "--no-verify", "-m", message)
    git(peer, "push", "-q", "origin", "main")


def snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


# -- 1. approved settings --------------------------------------------------------------------


def test_a_peers_embedder_url_is_not_used_until_this_machine_approves_it(pair, recorder, monkeypatch):
    """A peer's vault.toml sends recall to its own server with a variable of ours as the key:
    after sync, recall contacts nothing and every command names what is pending; after
    the person's `vault-mem trust` the approved server is used, with the key."""
    bare, mine, peer = pair  # noqa: RUF059 - one fixture, three parts
    monkeypatch.delenv("VAULT_MEM_EMBEDDER")  # the settings of vault.toml, not the tests' override
    monkeypatch.setenv("VICTIM_SECRET", "s3cr3t-value-of-this-machine")
    toml = mine.root / "vault.toml"
    toml.write_text(toml.read_text().replace('provider = "local"', 'provider = "none"'))
    git(mine.root, "commit", "-qam", "keyword search only")  # offline: in force without approval
    git(mine.root, "push", "-q", "origin", "main")
    mine.remember("deploy", "How we deploy", "blue-green through the staging cluster")
    git(peer, "pull", "-q", "origin", "main")
    ptoml = peer / "vault.toml"
    ptoml.write_text(ptoml.read_text().replace(
        'provider = "none"',
        f'provider = "openai"\nurl = "{recorder.url}"\napi_key_env = "VICTIM_SECRET"\nmodel = "m"'))
    peer_push(peer, "tune the embedder")
    sync(mine)
    assert 'api_key_env = "VICTIM_SECRET"' in toml.read_text()  # the peer's file arrived

    r = cli("--vault", str(mine.root), "recall", "deploy")
    assert r.returncode == 0, r.stderr
    assert "deploy" in r.stdout
    assert recorder.requests == []  # never contacted
    notes = [ln for ln in r.stderr.splitlines() if "not approved" in ln]
    # a new text is named by its length: a notice reaches agents, and a name can be a sentence
    assert len(notes) == 1 and "url: ''" in notes[0] and "api_key_env: '' -> a new text of 13 characters" in notes[0]
    assert "vault-mem trust" in notes[0] and "s3cr3t" not in r.stderr
    for args in (["list"], ["doctor"], ["log"]):  # every command says it
        assert "vault-mem trust" in cli("--vault", str(mine.root), *args).stderr

    shown = cli("--vault", str(mine.root), "trust", "--json")
    data = json.loads(shown.stdout)
    assert shown.returncode == 0 and not data["approved"]
    # with no terminal (an agent's shell) a new text is named by its length, in the JSON as in the
    # text; the person reads the value itself at their terminal
    assert data["pending"]["embedder.url"] == ["", f"a new text of {len(recorder.url)} characters "
                                                   "(`vault-mem trust` shows it)"]
    assert recorder.url in at_terminal("--vault", str(mine.root), "trust", answer=None).stdout
    assert data["in_force"]["embedder.provider"] == "none"  # the person's own commit (its pre-commit hook)
    assert recorder.requests == []

    ok = at_terminal("--vault", str(mine.root), "trust")
    assert ok.returncode == 0 and "approved" in ok.stdout, ok.stdout
    trust_file = Path(os.environ["XDG_CONFIG_HOME"]) / "vault-mem/trusted.json"
    assert trust_file.stat().st_mode & 0o077 == 0
    assert not (mine.root / "trusted.json").exists() and "trusted" not in git(mine.root, "ls-files")

    r = cli("--vault", str(mine.root), "recall", "deploy")
    assert r.returncode == 0 and "not approved" not in r.stderr, r.stderr
    assert recorder.requests and all(q["auth"] == "Bearer s3cr3t-value-of-this-machine"
                                     for q in recorder.requests)


def test_an_approval_is_the_persons_answer_on_the_terminal_never_stdin_or_yes(pair, tmp_path):
    """A peer's text can tell an agent to run `vault-mem trust --yes`, or to pipe `y` into it: an
    agent's shell gives the command its own pipes, never the person's terminal. Only a y typed on
    the controlling terminal approves (settings and authors alike); the real CLI, under a real
    pseudo-terminal where a terminal is the point."""
    _bare, mine, peer = pair
    git(peer, "pull", "-q", "origin", "main")
    ptoml = peer / "vault.toml"
    ptoml.write_text(ptoml.read_text().replace("k = 5", "k = 9"))
    peer_push(peer, "more hits")
    sync(mine)

    def k_in_force() -> int:
        v = Vault(mine.root, embedder=None)
        try:
            return v.config.recall_k
        finally:
            v.close()

    refused = cli("--vault", str(mine.root), "trust", "--yes")
    assert refused.returncode == 2 and "answer on a terminal" in refused.stderr, refused.stderr
    env = {**os.environ, "VAULT_MEM_EMBEDDER": "none"}
    for args in (["trust"], ["trust", "--author", "mallory@example.com"]):  # an agent's shell: no terminal
        piped = subprocess.run([sys.executable, "-m", "vault_mem", "--vault", str(mine.root), *args], input="y\n",
                               capture_output=True, text=True, env=env, timeout=120, start_new_session=True)
        assert piped.returncode == 0 and "not approved" in piped.stdout, piped.stdout + piped.stderr
        assert "no terminal to ask the person on" in piped.stdout, piped.stdout
    assert k_in_force() == 5
    # a terminal, but y on standard input and n typed by the person: the person's answer counts
    said_no = at_terminal("--vault", str(mine.root), "trust", answer="n", stdin="y\n")
    assert "/N]" in said_no.stdout and "k: 5 -> 9" in said_no.stdout, said_no.stdout
    assert "not approved (the person did not type the word shown)" in said_no.stdout and k_in_force() == 5
    assert "not approved" in at_terminal("--vault", str(mine.root), "trust", answer=None).stdout  # Ctrl-D
    assert k_in_force() == 5
    # the terminal raw, as Claude Code's interface keeps it: Enter (a carriage return) still ends
    # the answer, what is typed is shown, and the terminal is raw again afterwards
    ok = at_terminal("--vault", str(mine.root), "trust", raw=True)
    assert ok.returncode == 0 and "approved for" in ok.stdout and k_in_force() == 9, ok.stdout
    assert re.search(r"Type ([a-z]{4}) to approve \[\1/N\] \1", ok.stdout) and ok.raw_after
    trusted = Path(os.environ["XDG_CONFIG_HOME"]) / "vault-mem/trusted.json"
    assert "mallory@example.com" not in trusted.read_text()
    ok = at_terminal("--vault", str(mine.root), "trust", "--author", "mallory@example.com")
    assert "their memories may now reach an agent unasked" in ok.stdout, ok.stdout
    assert "mallory@example.com" in trusted.read_text()


def test_a_fresh_clone_starts_offline_and_a_move_fails_safe(pair, recorder, monkeypatch, tmp_path):
    bare, mine, peer = pair  # noqa: RUF059 - one fixture, three parts
    monkeypatch.delenv("VAULT_MEM_EMBEDDER")
    ptoml = peer / "vault.toml"
    ptoml.write_text(ptoml.read_text() + "\n[sync]\nremote = \"exfil\"\ninterval_s = 5\n")
    ptoml.write_text(ptoml.read_text().replace('provider = "local"',
                                               f'provider = "ollama"\nurl = "{recorder.url}"'))
    peer_push(peer)
    git(tmp_path, "clone", "-q", str(bare), str(tmp_path / "fresh"))
    v = Vault(tmp_path / "fresh", embedder=None)
    assert v.config.embedder.provider == "local" and v.config.embedder.url == ""
    assert v.config.sync_remote == "" and v.config.sync_interval_s == 0
    assert any("remote: '' -> a new text of 5 characters" in n and "the defaults stay in force" in n for n in v.notices)
    v.ws.approve_settings()
    v.close()
    v = Vault(tmp_path / "fresh", embedder=None)
    assert v.config.embedder.url == recorder.url and v.config.sync_remote == "exfil" and not v.notices
    v.close()
    # moved: the approval was for the old path; the offline defaults again, with the notice
    os.rename(tmp_path / "fresh", tmp_path / "moved")
    v = Vault(tmp_path / "moved", embedder=None)
    assert v.config.embedder.provider == "local" and v.ws.pending
    v.close()
    # approved values, not a yes/no: a changed url at an approved path is pending again
    ptoml = tmp_path / "moved/vault.toml"
    v = Vault(tmp_path / "moved", embedder=None)
    v.ws.approve_settings()
    v.close()
    ptoml.write_text(ptoml.read_text().replace(recorder.url, "http://127.0.0.1:9"))
    # committed past the hook, as a peer's commit arrives: not an edit made here
    git(tmp_path / "moved", "commit", "-q", "--no-verify", "-am", "another url")
    v = Vault(tmp_path / "moved", embedder=None)
    assert v.config.embedder.url == recorder.url
    assert "url: " in v.notices[0] and "-> a new text of 18 characters" in v.notices[0]  # by its length
    v.close()
    assert recorder.requests == []


def test_the_pending_notice_reaches_tools_and_mcp_callers(pair, tmp_path):
    from vault_mem.adapters.tools import call_tool

    bare, mine, peer = pair  # noqa: RUF059 - one fixture, three parts
    ptoml = peer / "vault.toml"
    ptoml.write_text(ptoml.read_text() + "\n[sync]\nafter_write = true\n")
    peer_push(peer)
    sync(mine)
    v = Vault(mine.root)
    result = call_tool(v, "list", {})
    assert not result.is_error and any("vault-mem trust" in n for n in result.data["notices"])
    # the approval is the person's: an agent reading the notice is told so, not told to approve
    assert any("an agent never approves them" in n for n in result.data["notices"]), result.data["notices"]
    v.close()


# -- 2. no symlink followed ------------------------------------------------------------------


@pytest.mark.parametrize("name", ["write.lock", "index.db", "index.db-wal", "pending.json", "sync.json",
                                  "checked-head"])
def test_a_link_in_the_state_folder_is_never_followed(vault, tmp_path, name):
    target = tmp_path / "precious.txt"
    target.write_bytes(b"do not touch\n")
    before = snapshot(target)
    root = vault.root
    vault.close()
    link = root / ".vault-mem" / name
    link.unlink(missing_ok=True)
    link.symlink_to(target)
    r = cli("--vault", str(root), "remember", "k1", "-d", "a fact")
    r2 = cli("--vault", str(root), "list")
    assert snapshot(target) == before
    assert "Traceback" not in r.stderr + r2.stderr
    if name in ("write.lock", "index.db", "index.db-wal"):
        assert r.returncode == 1 and str(link) in r.stderr and "symlink" in r.stderr, r.stderr
        assert not (root / "facts/k1.md").exists()
    else:  # a journal or record that is a link: not this machine's; ignored, and the command works
        assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", ["local-commits", "replayed-from"])
def test_a_link_for_the_record_of_commits_made_here_is_refused_by_name(vault, tmp_path, name):
    """The record of the commits made here (``.git/vault-mem/``) was written without following a
    link (a bare "Too many levels of symbolic links" error) but read through one: a link there
    made another file the record of this machine's commits (the authors every read trusts).
    Both ways refuse it by name now, as every file of vault-mem's own (DESIGN §7)."""
    from vault_mem.store import provenance

    common = vault.repo.common_dir
    path = common / "vault-mem" / name
    target = tmp_path / "elsewhere"
    target.write_text(path.read_text() if path.exists() else "", encoding="ascii")
    path.unlink(missing_ok=True)
    path.parent.mkdir(exist_ok=True)
    path.symlink_to(target)
    read = provenance.recorded if name == "local-commits" else provenance.replayed_from
    with pytest.raises(LinkError, match=f"{name} is a symlink"):
        read(common)
    if name == "local-commits":
        with pytest.raises(LinkError, match=f"{name} is a symlink"):
            provenance.record_local(common, ["0" * 40])
    assert target.read_text(encoding="ascii").count("0" * 40) == 0


def test_the_state_folder_itself_and_vault_toml_are_never_followed(vault, tmp_path):
    root = vault.root
    vault.close()
    elsewhere = tmp_path / "elsewhere"
    os.rename(root / ".vault-mem", elsewhere)
    (root / ".vault-mem").symlink_to(elsewhere, target_is_directory=True)
    listing = sorted(p.name for p in elsewhere.iterdir())
    r = cli("--vault", str(root), "list")
    assert r.returncode == 1 and ".vault-mem is a symlink" in r.stderr, r.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == listing
    (root / ".vault-mem").unlink()
    real = tmp_path / "real.toml"
    os.rename(root / "vault.toml", real)
    (root / "vault.toml").symlink_to(real)
    with pytest.raises(LinkError, match="vault.toml is a symlink"):
        Vault(root)


def test_a_symlinked_index_md_is_refused_by_the_mcp_resource_and_the_session_hook(vault, tmp_path):
    from vault_mem.adapters.hooks import run_hook
    from vault_mem.adapters.tools import context_index

    secret = tmp_path / "outside.txt"
    secret.write_text("OUTSIDE FILE CONTENT\n")
    before = snapshot(secret)
    (vault.root / "INDEX.md").unlink()
    (vault.root / "INDEX.md").symlink_to(secret)
    with pytest.raises(LinkError, match="INDEX.md is a symlink"):
        context_index(vault)
    code, out, err = run_hook("session-start", "{}", vault=str(vault.root))
    assert code == 1 and "OUTSIDE" not in out and "INDEX.md is a symlink" in err
    r = cli("--vault", str(vault.root), "index", "--write")
    assert r.returncode == 1 and "OUTSIDE" not in r.stdout
    assert snapshot(secret) == before


def test_the_daemon_log_is_never_followed(vault, tmp_path):
    from vault_mem.daemon.main import run_daemon

    target = tmp_path / "target.log"
    target.write_bytes(b"x")
    (vault.state_dir / "daemon.log").symlink_to(target)
    with pytest.raises(LinkError):
        run_daemon(vault.root)
    assert target.read_bytes() == b"x"


# -- 3. journals this machine wrote; nothing under .vault-mem/ tracked -----------------------


def test_init_never_tracks_the_state_folder(tmp_path):
    for where in (tmp_path / "alone", tmp_path / "repo/memory"):
        if where.parent.name == "repo":
            where.parent.mkdir()
            git(where.parent, "init", "-q")
        v = Vault.init(where)
        v.remember("x", "a fact")
        assert ".vault-mem" not in git(v.repo.toplevel, "ls-files")
        assert git(v.root, "check-ignore", ".vault-mem/pending.json").strip()
        v.close()


def test_a_journal_from_another_machine_is_ignored(vault, tmp_path, monkeypatch):
    """Two machines (two config folders): a journal one wrote is not accepted by the other."""
    vault.remember("fact-01", "a fact", "body")
    from vault_mem.store.trust import seal

    journal = {"key": "fact-01", "message": "m", "agent": "x",
               "files": {"facts/fact-01.md": "---\ndescription: from elsewhere\n---\n"}}
    ours = os.environ["XDG_CONFIG_HOME"]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "other-machine"))
    raw = seal(vault.root, "pending.json", journal)
    monkeypatch.setenv("XDG_CONFIG_HOME", ours)
    (vault.state_dir / "pending.json").write_bytes(raw)
    vault.reconcile()
    assert any("did not write it" in n for n in vault.take_notices())
    assert "from elsewhere" not in (vault.root / "facts/fact-01.md").read_text()


# -- 4. the tree of a fresh clone; a peer's symlinked type folder -----------------------------


def hostile_commit(peer: Path, kind: str, outside: Path) -> str:
    if kind == "symlink-file":
        (peer / "facts/evil.md").symlink_to(outside)
    elif kind == "symlink-folder":
        git(peer, "rm", "-rq", "--ignore-unmatch", "facts")
        (peer / "facts").mkdir(exist_ok=True)
        os.rmdir(peer / "facts") if not any((peer / "facts").iterdir()) else None
        (peer / "facts").symlink_to(outside.parent, target_is_directory=True)
    elif kind == "state-lock":
        (peer / ".vault-mem").mkdir(exist_ok=True)
        (peer / ".vault-mem/write.lock").symlink_to(outside)
        git(peer, "add", "-f", ".vault-mem/write.lock")
    elif kind == "state-journal":
        (peer / ".vault-mem").mkdir(exist_ok=True)
        (peer / ".vault-mem/pending.json").write_text('{"files": {}, "message": "m"}')
        git(peer, "add", "-f", ".vault-mem/pending.json")
    elif kind == "index-db":
        (peer / ".vault-mem").mkdir(exist_ok=True)
        (peer / ".vault-mem/index.db").symlink_to(outside)
        git(peer, "add", "-f", ".vault-mem/index.db")
    elif kind == "submodule":
        sha = git(peer, "rev-parse", "HEAD").strip()
        git(peer, "update-index", "--add", "--cacheinfo", f"160000,{sha},notes/sub")
    peer_push(peer, f"hostile: {kind}", add=kind != "submodule")
    return git(peer, "rev-parse", "HEAD").strip()


HOSTILE = ["symlink-file", "symlink-folder", "state-lock", "state-journal", "index-db", "submodule"]


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_fresh_clone_of_a_hostile_tree_is_refused_changing_nothing(pair, tmp_path, kind):
    bare, mine, peer = pair  # noqa: RUF059 - one fixture, three parts
    outside = tmp_path / "outside/target.txt"
    outside.parent.mkdir()
    outside.write_bytes(b"outside\n")
    before = snapshot(outside)
    commit = hostile_commit(peer, kind, outside)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    status = git(clone, "status", "--porcelain")
    for _ in range(2):  # refused every time: no verdict is remembered for a bad tree
        r = cli("--vault", str(clone), "list")
        assert r.returncode == 1, r.stderr
        assert commit[:10] in r.stderr and "git rm" in r.stderr and "nothing was changed" in r.stderr
    assert snapshot(outside) == before
    assert git(clone, "status", "--porcelain") == status
    assert not (clone / ".vault-mem/index.db").is_file() or (clone / ".vault-mem/index.db").is_symlink()
    with pytest.raises(UnsafeTreeError):
        Vault(clone)


def test_a_planted_verdict_does_not_pass_a_hostile_tree(pair, tmp_path):
    bare, mine, peer = pair  # noqa: RUF059 - one fixture, three parts
    commit = hostile_commit(peer, "symlink-file", tmp_path / "x")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    (clone / ".vault-mem").mkdir()
    (clone / ".vault-mem/checked-head").write_text(json.dumps({"payload": json.dumps({"commit": commit}),
                                                               "mac": "0" * 64}))
    assert cli("--vault", str(clone), "list").returncode == 1


def test_a_good_clone_is_checked_once_per_head_then_on_what_changed(pair, tmp_path):
    bare, mine, peer = pair  # noqa: RUF059 - one fixture, three parts
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    assert cli("--vault", str(clone), "list").returncode == 0
    record = clone / ".vault-mem/checked-head"
    assert record.is_file()
    # a later HEAD brought in by git (not by vault-mem's sync) is checked too
    (clone / "facts/link.md").symlink_to("/etc/hostname")
    git(clone, "add", "facts/link.md")
    git(clone, "commit", "-q", "--no-verify", "-m", "a link")
    r = cli("--vault", str(clone), "list")
    assert r.returncode == 1 and "facts/link.md" in r.stderr
    git(clone, "rm", "-q", "--cached", "facts/link.md")
    (clone / "facts/link.md").unlink()
    git(clone, "commit", "-q", "-m", "remove the link")
    assert cli("--vault", str(clone), "list").returncode == 0


def test_the_check_after_a_head_moved_is_one_git_process_and_a_gone_verdict_checks_the_whole_tree(tmp_path, monkeypatch):
    """Every command checks the tree HEAD moved to since the last verdict: a ``rev-parse`` of the
    verdict's commit, then a ``diff-tree``, two git processes for each one-shot command after a
    commit; now the diff-tree alone (after a commit made by git: one made by vault-mem's own write
    is checked as it lands, next test). A verdict whose commit is gone (reset away, then pruned)
    makes the diff-tree fail: the whole tree is checked, and a link in it is still refused."""
    vault = new_vault(tmp_path / "vault")
    root = vault.root
    vault.remember("first", "a first fact")
    vault.close()
    Vault(root).close()  # the verdict is for HEAD now
    with (root / "README.md").open("a", encoding="utf-8") as fh:
        fh.write("\nA line a person added.\n")
    git(root, "commit", "-qam", "a person's commit")
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    Vault(root).close()
    monkeypatch.delenv("GIT_TRACE2_EVENT")
    names = [line.split('"name":"', 1)[1].split('"', 1)[0] for line in trace.read_text().splitlines()
             if '"event":"cmd_name"' in line]
    assert "diff-tree" in names and "rev-parse" not in names[1:], names  # the first: finding the repository
    # the verdict's commit gone: reset away and pruned, then a link committed by hand
    seen = git(root, "rev-parse", "HEAD").strip()
    git(root, "reset", "-q", "--hard", "HEAD~1")
    git(root, "reflog", "expire", "--expire=now", "--all")
    git(root, "gc", "-q", "--prune=now")
    assert subprocess.run(["git", "cat-file", "-e", seen], cwd=root).returncode != 0
    (root / "facts/link.md").symlink_to("/etc/hostname")
    git(root, "add", "facts/link.md")
    git(root, "commit", "-q", "--no-verify", "-m", "a link")
    with pytest.raises(UnsafeTreeError):
        Vault(root)


def test_a_commit_of_vault_mems_own_write_is_checked_as_it_lands(tmp_path, monkeypatch):
    """A write's commit, made on the HEAD this process checked, is checked in process as it lands
    (its paths, by the rule the next command's ``diff-tree`` would apply to them), and its
    vault.toml is its parent's: the next command starts no git process to check HEAD or to find
    its vault.toml, after a write through the API or the CLI. A HEAD
    moved by anyone else after it is still checked (a link committed by hand is refused), and
    so is one moved under the write."""
    vault = new_vault(tmp_path / "vault")
    root = vault.root
    vault.remember("first", "a first fact")
    vault.close()
    trace = tmp_path / "trace"
    trace.mkdir()

    def checks_after(write) -> list[str]:
        write()
        for f in trace.iterdir():
            f.unlink()
        monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
        try:
            Vault(root).close()  # what every command opens with
        finally:
            monkeypatch.delenv("GIT_TRACE2_EVENT")
        return [json.loads(line)["name"] for f in trace.iterdir()
                for line in f.read_text(encoding="utf-8").splitlines() if '"event":"cmd_name"' in line]

    def api_write():
        with Vault(root) as v:
            v.remember("second", "a second fact")
            v.forget("first")

    def cli_write():
        assert cli("--vault", str(root), "remember", "third", "--description", "a third fact").returncode == 0

    for write in (api_write, cli_write):
        names = checks_after(write)
        # git is asked only where HEAD is: not for its tree's check, nor for its vault.toml's blob
        assert names and not {"diff-tree", "ls-tree", "cat-file"} & set(names), (write.__name__, names)

    def hand_commit():
        with (root / "README.md").open("a", encoding="utf-8") as fh:
            fh.write("\nA line a person added.\n")
        git(root, "commit", "-qam", "a person's commit")

    # the tree's check asks git what changed; HEAD's vault.toml is read from the commit's small
    # loose objects in process (GitObjects.blob_at), so no cat-file is needed for it
    assert "diff-tree" in set(checks_after(hand_commit))
    # a write whose commit lands on a HEAD this process did not check leaves the check to the next
    with Vault(root) as v:
        (root / "facts/link.md").symlink_to("/etc/hostname")
        git(root, "add", "facts/link.md")
        git(root, "commit", "-q", "--no-verify", "-m", "a link")
        v.remember("fourth", "a fourth fact")
        (root / "facts/link.md").unlink()  # so that only the check of HEAD can refuse it
    r = cli("--vault", str(root), "list")
    assert r.returncode == 1 and "facts/link.md" in r.stderr, r.stderr


def test_sync_takes_out_a_peers_type_folder_replaced_by_a_symlink(pair, tmp_path):
    bare, mine, peer = pair  # noqa: RUF059 - one fixture, three parts
    mine.remember("keep", "a fact of mine")
    git(mine.root, "push", "-q", "origin", "main")
    git(peer, "pull", "-q", "origin", "main")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "planted.md").write_text("---\ndescription: planted\n---\n")
    # raw git: the peer replaces facts/ with a link to a folder outside the vault
    git(peer, "rm", "-rq", "facts")
    if (peer / "facts").exists():
        subprocess.run(["rm", "-rf", str(peer / "facts")], check=True)
    (peer / "facts").symlink_to(outside, target_is_directory=True)
    git(peer, "add", "facts")
    peer_push(peer, "facts is a link now")
    held = git(mine.root, "rev-parse", "HEAD:facts").strip()
    # taken out (issue 23), not the whole tree refused: the link never reaches the disk, and the
    # person's folder, which the peer deleted to make way for it, is put back whole
    report = sync(mine)
    assert [(d["path"], d["why"]) for d in report.removed] == [("facts", "a symlink")]
    assert git(mine.root, "rev-parse", "HEAD:facts").strip() == held
    assert (mine.root / "facts").is_dir() and not (mine.root / "facts").is_symlink()
    assert (mine.root / "facts" / "keep.md").exists() and not (mine.root / "facts" / "planted.md").exists()
    assert git(mine.root, "status", "--porcelain") == ""
    r = cli("--vault", str(mine.root), "sync")
    assert r.returncode == 0, r.stderr
    r = cli("--vault", str(mine.root), "list")  # the local vault keeps working
    assert r.returncode == 0 and "keep" in r.stdout


# -- 5. MCP: unpaired surrogates get an error, never silence ---------------------------------


def test_mcp_requests_with_unpaired_surrogates_get_an_error_result(vault):
    """The SDK's own ClientSession against the real server process. Its stdio transport cannot
    serialise a lone surrogate (pydantic refuses), so the test's transport writes each message
    with json.dumps, which escapes it as ``\\ud800``, as any non-Python client may send it."""
    import anyio
    import mcp_types as types
    from mcp.client.session import ClientSession
    from mcp.shared.exceptions import MCPError
    from mcp.shared.message import SessionMessage

    env = {**os.environ, "VAULT_MEM_EMBEDDER": "none", "PYTHONPATH": str(ROOT)}

    async def session():
        proc = await anyio.open_process([sys.executable, "-m", "vault_mem", "mcp", str(vault.root)],
                                        env=env, cwd=str(ROOT))
        to_client_w, to_client_r = anyio.create_memory_object_stream(16)
        from_client_w, from_client_r = anyio.create_memory_object_stream(16)

        async def writer():
            async for msg in from_client_r:
                data = msg.message.model_dump(by_alias=True, exclude_unset=True)
                await proc.stdin.send((json.dumps(data) + "\n").encode())

        async def reader():
            buf = b""
            async for chunk in proc.stdout:
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    await to_client_w.send(SessionMessage(types.jsonrpc_message_adapter.validate_json(line)))

        async with anyio.create_task_group() as tg:
            tg.start_soon(writer)
            tg.start_soon(reader)
            async with ClientSession(to_client_r, from_client_w, read_timeout_seconds=30) as client:
                await client.initialize()
                with anyio.fail_after(30):
                    r = await client.call_tool("get", {"key": "a\ud800"})
                    assert r.is_error and "unpaired UTF-16 surrogate" in r.content[0].text
                    assert "params.arguments.key" in r.content[0].text
                    r = await client.call_tool("remember", {"key": "k", "description": "x\udc00y"})
                    assert r.is_error and "arguments.description" in r.content[0].text
                    with pytest.raises(MCPError, match="unpaired UTF-16 surrogate"):
                        await client.read_resource("vault://index\ud800")
                    r = await client.call_tool("list", {})  # still serving
                    assert not r.is_error
            tg.cancel_scope.cancel()
        proc.terminate()
        await proc.wait()

    anyio.run(session)
    assert not (vault.root / "facts/k.md").exists()


# -- 6. refusals exit 1, usage errors 2 ------------------------------------------------------


def test_refusals_exit_1_and_usage_errors_2(vault, tmp_path):
    root = str(vault.root)
    r = cli("--vault", root, "remember", "tok", "-d", "a token",
            "--body", "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
    assert r.returncode == 1 and "refused" in r.stderr, r.stderr
    big = "x" * (vault.config.max_body_bytes + 10)
    r = cli("--vault", root, "remember", "big", "-d", "too big", input=big)
    assert r.returncode == 1 and "limit" in r.stderr, r.stderr
    r = cli("--vault", root, "remember", "big", "-d", "too big", "--body", big)
    assert r.returncode == 1 and "limit" in r.stderr, r.stderr
    (vault.root / "INDEX.md").unlink()
    (vault.root / "INDEX.md").symlink_to(tmp_path / "nowhere")
    r = cli("--vault", root, "index", "--write")
    assert r.returncode == 1 and "symlink" in r.stderr
    (vault.root / "INDEX.md").unlink()
    r = cli("--vault", root, "remember", "../x", "-d", "bad key")  # a malformed call: usage
    assert r.returncode == 2
    r = cli("--vault", root, "trust", "--bogus")
    assert r.returncode == 2


def test_threads_making_the_machine_key_at_once_all_get_the_one_key(tmp_path, monkeypatch):
    """A long-lived reader opens its vault on a start-up thread while its first read opens it
    too: both may make the machine key at the same moment (they once shared one temp file,
    and the second's link found it unlinked)."""
    from vault_mem.store import trust

    for round_ in range(20):
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / f"config-{round_}"))
        start = threading.Barrier(6)
        keys, errors = [], []

        def make(start=start, keys=keys, errors=errors) -> None:
            start.wait()
            try:
                keys.append(trust.machine_key())
            except Exception as exc:  # noqa: BLE001 - the test reports it
                errors.append(exc)

        threads = [threading.Thread(target=make) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert errors == [] and len(keys) == 6 and len(set(keys)) == 1


def test_the_approvals_file_is_parsed_once_per_version_and_every_change_is_seen(tmp_path: Path, monkeypatch) -> None:
    """A command asks for its vault's approvals several times; trusted.json (every vault ever
    approved on the machine) is parsed once per version of the file in the process. An approval
    written by this process, the file replaced by another (a new inode) or edited in place by
    hand, and the file removed, are each seen by the next read."""
    from vault_mem.store import trust

    parses: list[int] = []
    real = trust._load
    monkeypatch.setattr(trust, "_load", lambda raw: parses.append(1) or real(raw))
    monkeypatch.setattr(trust, "_parsed", None)
    a, b = tmp_path / "a", tmp_path / "b"
    trust.approve_authors(a, ["ann@example.org"])
    trust.approve_authors(b, ["bob@example.org"])
    time.sleep(settle.SETTLE_NS / 1e9 + 0.1)  # a file changed just now is parsed at every read
    parses.clear()
    for _ in range(3):
        assert trust.approved_authors(a) == {"ann@example.org"}
        assert trust.approved_authors(b) == {"bob@example.org"}
    assert len(parses) == 1
    trust.approve_authors(a, ["ann@example.org", "amy@example.org"])  # this process's write
    assert trust.approved_authors(a) == {"ann@example.org", "amy@example.org"}
    path = trust.trust_file()
    data = json.loads(path.read_text())
    data["vaults"][str(b.resolve())]["authors"] = ["bea@example.org"]
    other = path.with_name("other.json")
    other.write_text(json.dumps(data))
    os.replace(other, path)  # another process's write
    assert trust.approved_authors(b) == {"bea@example.org"}
    time.sleep(settle.SETTLE_NS / 1e9 + 0.1)
    parses.clear()
    assert trust.approved_authors(b) == trust.approved_authors(b) == {"bea@example.org"}
    assert len(parses) == 1  # kept
    st = path.stat()
    text = path.read_text().replace("bea@example.org", "bee@example.org")
    with open(path, "r+", encoding="utf-8") as fh:  # by hand, in place, the same size and mtime
        fh.write(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert trust.approved_authors(b) == {"bee@example.org"}  # its ctime moved
    path.unlink()
    assert trust.approved_authors(a) == set() and trust.approved_authors(b) == set()


def test_the_approvals_of_gone_temporary_vaults_are_dropped_and_a_persons_are_kept(tmp_path: Path) -> None:
    """Every vault's first command records its vault.toml as approved: ``vault-mem eval`` and
    benchmarks make and remove such vaults by the thousand, and trusted.json (parsed by every
    command) grew to 2,135 entries on the bench machine, 100 of them live. The next write drops
    the entries of gone folders whose file asked for the defaults alone; an approval of other
    settings, of authors, and any entry of a folder still there stays."""
    import shutil

    from vault_mem.store import trust

    gone, live, edited = tmp_path / "gone", tmp_path / "live", tmp_path / "edited"
    for root in (gone, live, edited):
        Vault.init(root, agent="t").close()
    toml = edited / "vault.toml"
    toml.write_text(toml.read_text().replace("budget_tokens = 2000", "budget_tokens = 3000"))
    Vault(edited).close()  # the person's own edit, approved as theirs
    persons = tmp_path / "persons"
    trust.approve_authors(persons, ["ann@example.org"])
    entries = json.loads(trust.trust_file().read_text())["vaults"]
    assert entries[str(gone.resolve())]["config"]["defaults"] is True
    assert "defaults" not in entries[str(edited.resolve())]["config"]
    shutil.rmtree(gone)
    shutil.rmtree(edited)
    trust.approve_authors(tmp_path / "other", ["bob@example.org"])  # any later write
    entries = json.loads(trust.trust_file().read_text())["vaults"]
    assert str(gone.resolve()) not in entries
    assert {str(p.resolve()) for p in (live, edited, persons)} <= set(entries)
    assert trust.approved_authors(persons) == {"ann@example.org"}
    Vault.init(gone, agent="t").close()  # a vault made there again gets its approval back
    assert json.loads(trust.trust_file().read_text())["vaults"][str(gone.resolve())]["config"]["defaults"] is True


def test_trust_with_a_vault_toml_not_in_force_does_not_say_it_is_what_is_in_force(tmp_path) -> None:
    """A vault.toml that is not in force (over 64 KB here, or not TOML): `vault-mem trust` says so,
    and its "nothing to approve" line does not then claim the settings in force are what the file
    asks for (the two lines contradicted each other)."""
    vault = new_vault(tmp_path / "v")
    root = vault.root
    vault.close()
    with open(root / "vault.toml", "a", encoding="utf-8") as fh:
        fh.write("\n# " + "x" * 70_000 + "\n")
    out = cli("--vault", str(root), "trust")
    assert out.returncode == 0
    assert "vault.toml is not in force" in out.stdout
    assert "the settings in force are what vault.toml asks for" not in out.stdout
    assert "nothing else to approve" in out.stdout


def test_vault_mems_own_folder_follows_one_rule_never_a_relative_one(tmp_path, monkeypatch):
    """Review: where vault-mem keeps this person's own files (the approvals, the machine key,
    config.toml, the model-check record) was written in three places that disagreed on an
    XDG_CONFIG_HOME that is not absolute: the model-check record refused it, the approvals and
    config.toml took it relative to the working folder, so a project's
    ``rel-config/vault-mem/trusted.json`` was read as this machine's approvals. One rule
    (``config.user_config_dir``): a relative XDG_CONFIG_HOME is ignored, as the XDG spec says."""
    from vault_mem import config
    from vault_mem.store import trust

    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", "rel-config")
    monkeypatch.chdir(project)
    own = home / ".config" / "vault-mem"
    assert trust.trust_file() == own / "trusted.json"
    assert config.user_config_file() == own / "config.toml"
    assert trust.config_dir() == own and not (project / "rel-config").exists()
    assert config.user_config_dir() == own
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert trust.trust_file() == tmp_path / "xdg" / "vault-mem" / "trusted.json"
