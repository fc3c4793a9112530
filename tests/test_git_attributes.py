"""A peer's ``.gitattributes`` never steers git on the vault's files (DESIGN §7): vault-mem's
INDEX.md merge driver applies to INDEX.md alone, and no filter, driver or encoding a peer names
runs or rewrites a memory. Real git throughout: a bare remote, a peer's clone, the person's own
``git pull --rebase``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import cli, git
from fakes import write_memory

from vault_mem import Vault
from vault_mem.store.attributes import MERGE_DRIVER, attributes_block


#: the INDEX.md merge driver vault-mem wrote before it named each vault's INDEX.md by path
OLDER_DRIVER = ("case %P in INDEX.md|*/INDEX.md) exit 0;; esac; "
                "exec git merge-file --marker-size=%L -L ours -L base -L theirs %A %O %B")


def run_git(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120)


@pytest.fixture
def pair(tmp_path):
    """The person's vault (``victim``, pushed to a bare remote, holding fact k) and a peer's clone."""
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    v = Vault.init(tmp_path / "victim")
    v.remember("k", "the build command", "make all")
    v.close()
    victim = tmp_path / "victim"
    git(victim, "remote", "add", "origin", str(bare))
    git(victim, "push", "-q", "-u", "origin", "main")
    peer = tmp_path / "peer"
    git(tmp_path, "clone", "-q", str(bare), str(peer))
    return victim, peer


def peer_pushes(peer: Path, attributes: str, edits: dict[str, str]) -> None:
    # the peer commits the bytes as they are (its own attributes do not apply to its own commit)
    (peer / ".git" / "info").mkdir(exist_ok=True)
    (peer / ".git" / "info" / "attributes").write_text("* !filter !working-tree-encoding !eol !text\n")
    (peer / ".gitattributes").write_text(attributes)
    for rel, text in edits.items():
        (peer / rel).write_text(text)
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "--no-verify", "-m", "peer")
    git(peer, "push", "-q", "origin", "main")


def person_edits(victim: Path, rel: str, text: str) -> None:
    (victim / rel).write_text(text)
    git(victim, "add", "--", rel)
    proc = run_git(victim, "commit", "-q", "-m", "my own fix")
    assert proc.returncode == 0, proc.stderr


def k_text(root: Path, body: str) -> str:
    """facts/k.md with another body (its description and dates kept: INDEX.md does not change)."""
    return (root / "facts/k.md").read_text().replace("make all", body)


@pytest.mark.parametrize("layer", ["attributes", "driver"])
def test_a_peers_merge_attribute_never_drops_the_persons_conflicting_commit(pair, layer):
    """``* merge=vault-mem-index`` from a peer: the person's own conflicting commit is flagged as a
    conflict, never silently dropped. ``driver``: without vault-mem's info/attributes block (an
    older clone), the driver alone merges anything but INDEX.md as git does."""
    victim, peer = pair
    if layer == "driver":
        (victim / ".git" / "info" / "attributes").unlink()
    peer_pushes(peer, "* merge=vault-mem-index\n", {"facts/k.md": k_text(peer, "make peer")})
    mine = k_text(victim, "make mine")
    person_edits(victim, "facts/k.md", mine)
    proc = run_git(victim, "pull", "--rebase", "origin", "main")
    assert proc.returncode != 0, proc.stdout + proc.stderr
    assert "CONFLICT" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    text = (victim / "facts/k.md").read_text()
    assert "make mine" in text and "make peer" in text and "<<<<<<<" in text
    assert run_git(victim, "rebase", "--abort").returncode == 0
    assert (victim / "facts/k.md").read_text() == mine


def test_index_md_still_merges_by_keeping_a_side(pair):
    """INDEX.md is regenerated after a merge: both sides changing it is no conflict."""
    victim, peer = pair
    write_memory(peer, "p", "from the peer")
    (peer / "INDEX.md").write_text("peer's index\n")
    git(peer, "add", "-A")
    git(peer, "commit", "-q", "--no-verify", "-m", "peer")
    git(peer, "push", "-q", "origin", "main")
    write_memory(victim, "m", "from the person")
    (victim / "INDEX.md").write_text("my index\n")
    git(victim, "add", "-A")
    assert run_git(victim, "commit", "-q", "--no-verify", "-m", "mine").returncode == 0
    proc = run_git(victim, "pull", "--no-rebase", "--no-edit", "origin", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (victim / "facts/p.md").is_file() and (victim / "facts/m.md").is_file()


def test_a_peers_filter_and_encoding_attributes_take_no_effect(pair, tmp_path):
    victim, peer = pair
    marker = tmp_path / "filter-ran"
    for kind in ("clean", "smudge"):  # the person's own filter, which the peer names
        git(victim, "config", "--global", f"filter.x.{kind}", f"touch '{marker}'; cat")
    git(victim, "config", "--global", "diff.x.textconv", f"touch '{marker}'; cat")
    theirs = k_text(peer, "make peer")
    peer_pushes(peer, "* filter=x working-tree-encoding=UTF-16LE diff=x eol=crlf\n", {"facts/k.md": theirs})
    person_edits(victim, "notes/mine.md", "---\ndescription: my note\n---\nmine\n")
    assert run_git(victim, "status", "--porcelain").stdout == ""
    proc = run_git(victim, "pull", "--rebase", "origin", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (victim / "facts/k.md").read_bytes() == theirs.encode()  # UTF-8, LF: as committed
    assert run_git(victim, "diff", "HEAD~1").returncode == 0
    assert run_git(victim, "status", "--porcelain").stdout == ""
    r = cli("--vault", victim, "list")
    assert r.returncode == 0 and "k" in r.stdout and "mine" in r.stdout, r.stderr
    r = cli("--vault", victim, "get", "k")
    assert r.returncode == 0 and "make peer" in r.stdout, r.stderr
    r = cli("--vault", victim, "remember", "later", "--description", "written after the pull")
    assert r.returncode == 0, r.stderr
    assert not marker.exists()


def test_only_the_vault_folder_of_a_bigger_repository_is_affected(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    git(project, "init", "-q")
    (project / ".gitattributes").write_text("* filter=lfs merge=union\n")
    (project / ".git" / "info").mkdir(exist_ok=True)
    (project / ".git" / "info" / "attributes").write_text("*.png binary\n")  # the person's own
    (project / "app.txt").write_text("app\n")
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "app")
    assert cli("init", project / "memory").returncode == 0
    attrs = run_git(project, "check-attr", "merge", "filter", "--", "app.txt", "memory/facts/a.md",
                    "memory/INDEX.md", "memoryx/a.md").stdout.splitlines()
    assert attrs == ["app.txt: merge: union", "app.txt: filter: lfs",
                     "memory/facts/a.md: merge: unspecified", "memory/facts/a.md: filter: unspecified",
                     "memory/INDEX.md: merge: vault-mem-index", "memory/INDEX.md: filter: unspecified",
                     "memoryx/a.md: merge: union", "memoryx/a.md: filter: lfs"]
    info = project / ".git" / "info" / "attributes"
    assert info.read_text() == "*.png binary\n" + attributes_block("memory/")
    before = info.read_bytes()
    r = cli("--vault", project / "memory", "hooks", "install")  # idempotent: the same bytes
    assert r.returncode == 0 and info.read_bytes() == before


def test_a_teammates_merge_attribute_never_drops_the_persons_commit_to_a_project_file_named_index_md(tmp_path):
    """Before: vault-mem's driver kept one side of any file named INDEX.md, and its block in
    ``info/attributes`` covers the vault's folder alone. In a project whose own top-level
    INDEX.md (a table of contents) a teammate named in ``.gitattributes``
    (``INDEX.md merge=vault-mem-index``), the person's ``git pull --rebase`` of their conflicting
    change said "dropping ... patch contents already upstream" and exited 0: their line gone, no
    conflict shown. The driver now keeps a side of each vault's INDEX.md alone, by exact path;
    the vault's INDEX.md still merges by keeping a side."""
    proj = tmp_path / "proj"
    proj.mkdir()
    git(proj, "init", "-q", "-b", "main")
    (proj / "INDEX.md").write_text("# Project index\n\n- one\n")
    git(proj, "add", "-A")
    git(proj, "commit", "-q", "-m", "app")
    assert cli("init", proj / "memory").returncode == 0  # commits the vault's files
    # a clone set up by an earlier vault-mem: its driver is rewritten by the next git operation
    # that runs vault-mem's hooks (here a checkout's post-checkout), not by every command's
    # opening of the vault (trust23: a read of .git/config per opening)
    git(proj, "config", "merge.vault-mem-index.driver", OLDER_DRIVER)
    git(proj, "checkout", "-q", "main")
    assert git(proj, "config", "merge.vault-mem-index.driver").strip() != OLDER_DRIVER
    bare = tmp_path / "project.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(proj, "remote", "add", "origin", str(bare))
    git(proj, "push", "-q", "-u", "origin", "main")
    mate = tmp_path / "mate"
    git(tmp_path, "clone", "-q", str(bare), str(mate))
    (mate / ".gitattributes").write_text("INDEX.md merge=vault-mem-index\n")
    (mate / "INDEX.md").write_text("# Project index\n\n- one\n- the teammate's line\n")
    (mate / "memory" / "INDEX.md").write_text("the teammate's index\n")
    git(mate, "add", "-A")
    git(mate, "commit", "-q", "--no-verify", "-m", "team")
    git(mate, "push", "-q", "origin", "main")
    (proj / "INDEX.md").write_text("# Project index\n\n- one\n- the person's line\n")
    git(proj, "commit", "-q", "-am", "my own line")

    proc = run_git(proj, "pull", "--rebase", "origin", "main")
    assert proc.returncode != 0 and "CONFLICT" in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert "the person's line" in (proj / "INDEX.md").read_text()
    assert run_git(proj, "rebase", "--abort").returncode == 0
    # the vault's own INDEX.md, changed on both sides, still merges by keeping a side
    (proj / "INDEX.md").write_text("# Project index\n\n- one\n")
    (proj / "memory" / "INDEX.md").write_text("my index\n")
    git(proj, "add", "-A")
    assert run_git(proj, "commit", "-q", "--no-verify", "-m", "mine").returncode == 0
    proc = run_git(proj, "pull", "--no-rebase", "--no-edit", "origin", "main")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_an_older_driver_is_rewritten_where_hooks_are_checked_and_never_read_per_opening(tmp_path):
    """trust23: the older INDEX.md driver was looked for in ``.git/config``'s text on every opening
    of the vault (and rewritten there). Now a plain command (``list``) leaves it as it is, and
    ``doctor``, ``hooks install`` and the git hooks (a person's merge: post-merge) rewrite it."""
    proj = tmp_path / "proj"
    assert cli("init", proj).returncode == 0
    for rewrite in (("doctor",), ("hooks", "install"), None):
        git(proj, "config", "merge.vault-mem-index.driver", OLDER_DRIVER)
        assert cli("--vault", proj, "list").returncode == 0
        assert git(proj, "config", "merge.vault-mem-index.driver").strip() == OLDER_DRIVER
        if rewrite is None:  # a person's merge: post-merge
            git(proj, "checkout", "-q", "-b", "side")
            git(proj, "commit", "-q", "--allow-empty", "-m", "side")
            git(proj, "checkout", "-q", "-")
            git(proj, "config", "merge.vault-mem-index.driver", OLDER_DRIVER)
            git(proj, "merge", "-q", "--no-edit", "side")
        else:
            cli("--vault", proj, *rewrite)
        assert git(proj, "config", "merge.vault-mem-index.driver").strip() == MERGE_DRIVER, rewrite
