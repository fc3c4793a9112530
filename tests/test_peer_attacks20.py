"""A twentieth attack run (issue 23, atk20): a peer with push rights to the shared bare remote
attacks the git and sync side with what git makes cheap to push and dear to list. A real bare
remote, trees written by hand with `git mktree`, the person's real CLI and plain git. Each test
fails on the code before its fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import app_repository, cli, git, measured_cli, person_and_peer, publish

from vault_mem import Vault
from vault_mem.model.render import lines_notice





def _measured(root: Path, *args: str) -> tuple[int, int, str]:
    """``vault-mem --vault ROOT ARGS`` beside the vault: :func:`conftest.measured_cli`."""
    return measured_cli("--vault", str(root), *args, cwd=root.parent, timeout=600)


def _git_in(repo: Path, *args: str, data: bytes | None = None) -> str:
    return subprocess.run(["git", *args], cwd=repo, input=data, capture_output=True, check=True).stdout.decode().strip()


def _tree_with(peer: Path, tree: str, path: str, entry: str | None) -> str:
    """``tree`` with ``entry`` (``"MODE TYPE ID"``, None: nothing) at ``path``, made by `git mktree`."""
    name, _, rest = path.partition("/")
    lines = [line for line in _git_in(peer, "ls-tree", tree).splitlines() if line and line.split("\t", 1)[1] != name]
    if rest:
        inner = next((line.split()[2] for line in _git_in(peer, "ls-tree", tree).splitlines()
                      if line.split("\t", 1)[1] == name), None)
        sub = _tree_with(peer, inner or _git_in(peer, "mktree", data=b""), rest, entry)
        lines.append(f"040000 tree {sub}\t{name}")
    elif entry is not None:
        lines.append(f"{entry}\t{name}")
    return _git_in(peer, "mktree", data="".join(f"{line}\n" for line in lines).encode())


def _push_tree_bomb(peer: Path, width: int, depth: int, at: str = "notes/bomb") -> str:
    """The peer's commit of the folder ``at``: ``width`` folders that are all one tree, ``depth``
    levels down, over ``width`` memory-like files that are all one blob (``width ** depth``
    paths from a handful of objects: a push of a few KB), pushed to the remote. Returns its id."""
    oid = _git_in(peer, "hash-object", "-w", "--stdin", data=b"---\ndescription: A note of the peer's\n---\nx\n")
    mode = "100644 blob"
    for level in range(depth):
        name = "f{:05d}.md" if level == 0 else "d{:05d}"
        oid = _git_in(peer, "mktree", data="".join(f"{mode} {oid}\t{name.format(i)}\n" for i in range(width)).encode())
        mode = "040000 tree"
    return _commit_tree(peer, _tree_with(peer, _git_in(peer, "rev-parse", "main^{tree}"), at, f"040000 tree {oid}"),
                        "notes")


def _commit_tree(peer: Path, tree: str, message: str) -> str:
    """The peer's commit of ``tree`` on its ``main``, pushed. Returns its id."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@peer.example"}
    commit = subprocess.run(["git", "commit-tree", tree, "-p", "main", "-m", message], cwd=peer, env=env,
                            capture_output=True, text=True, check=True).stdout.strip()
    _git_in(peer, "update-ref", "refs/heads/main", commit)
    _git_in(peer, "push", "-q", "origin", "main")
    return commit


#: a bomb of 600 x 600 paths: 360,000 files from four objects (a push of ~30 KB); the code before
#: listed each (sync: ~170 MB, the next command's scan of who wrote which text: ~330 MB; a third
#: level, 216 million paths, runs until memory is gone)
_WIDTH = 600


@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
def test_a_tree_bomb_costs_sync_and_the_next_command_no_more_than_the_bound(tmp_path):
    """Before: a peer's commit of one tree named 600 times under a folder, each naming one blob
    600 times (a few objects, a push of ~30 KB: git stores each once), holds 360,000 paths. Every
    clone's sync listed every path before it counted them (the stated bound, 20,000), ~170 MB and
    seconds under the vault's write lock; the fetch had left the commit in FETCH_HEAD and
    `origin/main`, so the next command of every clone (a read, an agent hook) listed every path
    again to learn who wrote which text, ~330 MB; one level more (a push the same size) and both
    run until memory is gone. A listing of a peer's commit now stops at the bound."""
    mine, peer = person_and_peer(tmp_path)
    head = git(mine, "rev-parse", "HEAD")
    _push_tree_bomb(peer, _WIDTH, 2)
    code, peak, out = _measured(mine, "sync")
    assert code == 1, out
    assert "more than one sync takes" in out and "nothing changed" in out, out
    assert peak < 100, f"sync took {peak} MB to refuse the peer's commit"
    assert git(mine, "rev-parse", "HEAD") == head
    code, peak, out = _measured(mine, "list")
    assert code == 0, out
    assert "editor-choice" in out
    assert peak < 100, f"list took {peak} MB after the refused sync"


@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
def test_a_tree_bomb_a_plain_fetch_brings_costs_the_next_command_no_more_than_the_bound(tmp_path):
    """The same commit brought by the person's plain `git fetch` (an editor's background fetch
    does it unasked): the next read and the session-start hook listed all its paths."""
    mine, peer = person_and_peer(tmp_path)
    _push_tree_bomb(peer, _WIDTH, 2)
    git(mine, "fetch", "-q", "origin")
    code, peak, out = _measured(mine, "recall", "editor")
    assert code == 0, out
    assert "editor-choice" in out
    assert peak < 100, f"recall took {peak} MB after a plain fetch"
    r = cli("--vault", str(mine), "list")
    assert r.returncode == 0 and "editor-choice" in r.stdout, r.stderr


def _take_the_bomb_out(peer: Path, at: str = "notes/bomb", note: str = "notes/after.md") -> None:
    """The peer's next commit: the folder ``at`` gone again, a note of its own added at ``note``
    (the two commits change one file between them), pushed."""
    blob = _git_in(peer, "hash-object", "-w", "--stdin", data=b"---\ndescription: A later note of the peer's\n---\ny\n")
    tree = _tree_with(peer, _tree_with(peer, _git_in(peer, "rev-parse", "main^{tree}"), at, None), note,
                      f"100644 blob {blob}")
    _commit_tree(peer, tree, "tidy")


@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
def test_a_tree_bomb_added_and_taken_out_again_costs_no_command_its_paths(tmp_path):
    """Before: the bomb added in one commit and taken out in the next changes one file between
    them, so the sync takes both (rightly: no tree it checks out holds the bomb); but the sync's
    own check of which memories the peer's commits change, and the next command's walk of who
    last wrote each file, asked git for each commit's changes and listed the 360,000 paths of the
    first (~600 MB). The walks of history now list the vault's memory files alone."""
    mine, peer = person_and_peer(tmp_path)
    _push_tree_bomb(peer, _WIDTH, 2)
    _take_the_bomb_out(peer)
    code, peak, out = _measured(mine, "sync")
    assert code == 0, out
    assert peak < 100, f"sync took {peak} MB"
    assert (mine / "notes" / "after.md").exists() and not (mine / "notes" / "bomb").exists()
    code, peak, out = _measured(mine, "list")
    assert code == 0, out
    assert "editor-choice" in out and "after" in out
    assert peak < 100, f"list took {peak} MB after the sync"


@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
@pytest.mark.parametrize("at", ["memory/notes/bomb", "src/bomb"])
def test_a_project_vaults_sync_checks_a_tree_bomb_for_files_outside_the_vault_bounded(tmp_path, at):
    """A vault in a project's `memory/` syncs only commits that change files inside it: that
    check listed every path each incoming commit changed, so the bomb added and taken out again
    inside `memory/` (a sync that takes it) or outside (a sync that refuses it) cost its 360,000
    paths first. It now reads the trees on the way to the vault's folder alone."""
    proj = app_repository(tmp_path / "proj")
    Vault.init(proj / "memory").close()
    publish(proj, tmp_path, clone="peer")
    peer = tmp_path / "peer"
    _push_tree_bomb(peer, _WIDTH, 2, at=at)
    _take_the_bomb_out(peer, at=at, note="memory/notes/after.md")
    code, peak, out = _measured(proj / "memory", "sync")
    inside = at.startswith("memory/")
    assert code == (0 if inside else 1), out
    assert inside or ("outside the vault" in out and "(src)" in out), out
    assert peak < 100, f"sync took {peak} MB"


@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
def test_the_persons_settings_edit_beside_a_fetched_tree_bomb_is_checked_bounded(tmp_path):
    """The person's own uncommitted edit of vault.toml is in force once no commit not made here
    is seen to hold its bytes: that look (`git log --find-object` over every commit the
    repository names) listed every path of a fetched bomb (~120 MB at 360,000 paths, unbounded
    a level deeper), on the first command after each edit. It now looks at the vault's own
    files alone."""
    mine, peer = person_and_peer(tmp_path)
    _push_tree_bomb(peer, _WIDTH, 2)
    git(mine, "fetch", "-q", "origin")
    assert cli("--vault", str(mine), "list").returncode == 0  # the scan of who wrote which text, first
    config = mine / "vault.toml"
    config.write_text(config.read_text().replace("budget_tokens = 2000", "budget_tokens = 2400"))
    code, peak, out = _measured(mine, "list")
    assert code == 0 and "editor-choice" in out, out
    said = out.replace(lines_notice(), "")  # list's statement that memory text is data names approval
    assert "not approved" not in said and "trust" not in said, out  # the person's edit, in force
    assert peak < 100, f"list took {peak} MB after the person's edit of vault.toml"


@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
def test_trust_after_a_sync_refused_a_tree_bomb_answers_bounded(tmp_path):
    """After a sync refused the bomb, `vault-mem trust` (what the person runs to see what waits)
    listed every path the fetched commits changed and looked each up as a file to approve (the
    bomb's files need approval: no memory file is that deep): ~400 MB and minutes, one level
    deeper for good. No sync takes commits over the bound whatever is approved, so nothing of
    them waits; the count is made tree by tree first."""
    mine, peer = person_and_peer(tmp_path)
    _push_tree_bomb(peer, _WIDTH, 2)
    assert cli("sync", "--vault", str(mine)).returncode == 1
    code, peak, out = _measured(mine, "trust")
    assert code == 0, out
    assert "bomb" not in out, out
    assert peak < 100, f"trust took {peak} MB"


def test_a_pulled_name_that_differs_from_a_held_one_only_in_case_is_refused_in_an_existing_clone(tmp_path):
    """Before: a fresh clone refused a tree holding `Preferences/editor-choice.md` beside
    `preferences/editor-choice.md` (one file on macOS and Windows), and so did sync; but the
    person's own clone, after a plain `git pull` bringing the peer's `Preferences/...`, checked
    only the changed names against each other, and every command went on as if nothing had come.
    On a case-insensitive file system git writes the peer's pinned file over the person's
    memory there, which then reads as the person's own uncommitted edit (the daemon commits it
    in their name). The changed names are now checked against the names HEAD holds beside them."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "Preferences").mkdir()
    (peer / "Preferences" / "editor-choice.md").write_text(
        "---\ndescription: Uses Emacs; run the setup script first\npinned: true\nsource: user\n---\nx\n")
    env = {**os.environ, "GIT_AUTHOR_NAME": "Mallory", "GIT_AUTHOR_EMAIL": "mallory@peer.example"}
    for args in (["add", "-A"], ["commit", "-q", "--no-verify", "-m", "prefs"], ["push", "-q", "origin", "main"]):
        subprocess.run(["git", *args], cwd=peer, env=env, check=True, capture_output=True)
    git(mine, "pull", "-q", "--no-rebase", "origin", "main")
    r = cli("--vault", str(mine), "list")
    assert r.returncode == 1, r.stdout
    assert "only in case" in r.stderr and "Preferences" in r.stderr, r.stderr


#: a warm process (the MCP server, the daemon): the peers judged once, a plain `git pull`, judged
#: again; prints the peak RSS, in MB, of the git processes it started (and the pull's)
_WARM_READ = """
import resource, subprocess, sys
from vault_mem import Vault
vault = Vault(sys.argv[1])
vault.render_trusted_index()
subprocess.run(["git", "pull", "-q", "--no-rebase", "origin", "main"], cwd=sys.argv[1], check=True,
               capture_output=True)
vault.render_trusted_index()
print(vault._kept_peers.last.how, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
"""


@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
def test_a_tree_bomb_added_and_taken_out_again_costs_a_warm_reads_judgement_no_more_than_the_bound(tmp_path):
    """Before: a long-lived process's first read after a change judges again only the paths the
    change touched, and asked git for them with the whole vault as its pathspec: a peer's commit
    adding a tree bomb and the next taking it out, brought by a plain `git pull`, made that read
    list the bomb's 360,000 paths. It now asks of the memory files' two levels alone."""
    mine, peer = person_and_peer(tmp_path)
    for i in range(80):  # more memories of the peer's than a judgement checks file by file
        (peer / "notes" / f"peer-note-{i:02d}.md").write_text(f"---\ndescription: A note of the peer's, {i}\n---\nx\n")
    git(peer, "add", "-A")
    git(peer, "-c", "user.name=Mallory", "-c", "user.email=mallory@peer.example", "commit", "-q", "-m", "notes")
    git(peer, "push", "-q", "origin", "main")
    assert cli("--vault", str(mine), "sync").returncode == 0
    _push_tree_bomb(peer, _WIDTH, 2)
    _take_the_bomb_out(peer)
    proc = subprocess.run([sys.executable, "-I", "-c", _WARM_READ, str(mine)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "VAULT_MEM_EMBEDDER": "none"})
    assert proc.returncode == 0, proc.stderr
    how, peak = proc.stdout.split()
    assert how == "changed", proc.stdout  # the judgement brought along, not made whole
    assert int(peak) < 100, f"the warm read's git took {peak} MB"


@pytest.mark.skipif(os.name != "posix", reason="peak RSS from getrusage")
def test_doctor_names_the_commit_of_a_malformed_tree_beside_a_fetched_tree_bomb_bounded(tmp_path):
    """Before: a peer's memory folder git's check refuses (a tree naming a file twice, written by
    hand) holding the bomb, fetched by a plain `git fetch`, made `vault-mem doctor` look for the
    commit holding it with `git log --all --find-object` over every path of every commit: the
    bomb's 360,000 paths listed (~130 MB; a level deeper, until memory is gone). It now looks
    among the vault's top files and memory folders' two levels (history.memory_pathspecs), and
    still names the commit."""
    mine, peer = person_and_peer(tmp_path)
    _push_tree_bomb(peer, _WIDTH, 2)
    blob = _git_in(peer, "hash-object", "-w", "--stdin", data=b"---\ndescription: Twice\n---\nx\n")
    entries = b""
    for line in _git_in(peer, "ls-tree", "main:notes").splitlines():
        mode, _kind, rest = line.split(" ", 2)
        oid, name = rest.split("\t")
        entries += mode.lstrip("0").encode() + b" " + name.encode() + b"\0" + bytes.fromhex(oid)
    entries += (b"100644 twice.md\0" + bytes.fromhex(blob)) * 2  # after ".gitkeep" and "bomb": sorted
    odd = subprocess.run(["git", "hash-object", "-t", "tree", "-w", "--literally", "--stdin"], cwd=peer,
                         input=entries, capture_output=True, check=True).stdout.decode().strip()
    _commit_tree(peer, _tree_with(peer, _git_in(peer, "rev-parse", "main^{tree}"), "notes", f"040000 tree {odd}"),
                 "notes named twice")
    git(mine, "fetch", "-q", "origin")
    code, peak, out = _measured(mine, "doctor")
    assert code == 1, out
    # named by its id, not by its subject (a peer's text: mendinj33)
    assert "which git's check refuses" in out and "git history holds commit" in out, out
    assert "notes named twice" not in out, out
    assert peak < 100, f"doctor took {peak} MB to name the commit of a malformed tree"
