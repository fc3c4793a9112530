"""Objects before names (issue 25 item 1): git's index never names a blob that a person's
``git prune --expire=now`` (or ``git gc --prune=now``) running at the same moment can remove.

``git prune`` keeps what a ref, a reflog or ``.git/index`` names; a blob written loose and
named by nothing yet (by an index copy git's prune never reads, say) is removed by a prune
with ``--expire=now``. The prune runs at the exact moment through a ``git`` on PATH that runs
the real ``git prune --expire=now`` before and after every ``git update-index`` (the command
that names blobs in an index), so each test is deterministic and uses the real git throughout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import cli, git, person_and_peer, push_as_peer, run_cli

REAL_GIT = shutil.which("git")


@pytest.fixture
def pruning_git(tmp_path, monkeypatch) -> Path:
    """A folder, first on PATH, whose ``git`` runs ``git prune --expire=now`` (on the
    repository's own index: ``GIT_INDEX_FILE`` unset, as a person's prune in a terminal) right
    before and right after each ``git update-index``; every other command is the real git.
    It is git's exec path too (``GIT_EXEC_PATH``, with git's own helpers linked in), since git
    puts its exec path first on PATH for the hooks it runs. Returns the file that counts the
    prunes."""
    exec_path = Path(subprocess.run([REAL_GIT, "--exec-path"], capture_output=True, text=True,
                                    check=True).stdout.strip())
    folder = tmp_path / "pruning-git"
    folder.mkdir()
    for helper in exec_path.iterdir():
        if helper.name != "git":
            (folder / helper.name).symlink_to(helper)
    ran = tmp_path / "prunes-run"
    prune = f'env -u GIT_INDEX_FILE "{REAL_GIT}" prune --expire=now && echo prune >> "{ran}"'
    (folder / "git").write_text(
        "#!/bin/sh\n"
        'if [ "$1" = update-index ]; then\n'
        f"    {prune}\n"
        f'    "{REAL_GIT}" "$@"; rc=$?\n'
        f"    {prune}\n"
        "    exit $rc\n"
        "fi\n"
        f'exec "{REAL_GIT}" "$@"\n')
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("GIT_EXEC_PATH", str(folder))
    return ran


def _index_blobs_missing(root: Path) -> list[str]:
    """Entries of git's index whose blob is not in the object database."""
    missing = []
    for line in git(root, "ls-files", "-s").splitlines():
        meta, path = line.split("\t", 1)
        oid = meta.split()[1]
        if subprocess.run([REAL_GIT, "cat-file", "-e", oid], cwd=root).returncode != 0:
            missing.append(path)
    return missing


def test_a_sync_never_leaves_the_index_naming_a_blob_a_prune_removed(tmp_path, pruning_git):
    """Found after the fourth round (a sync under a prune loop left INDEX.md staged as a
    missing blob): a sync refreshed git's index for the paths it changed from the work tree
    (``git update-index`` on a copy of the index), so INDEX.md on disk, which lists a person's
    uncommitted memory, went into the index as a blob no commit holds; a prune between that
    ``update-index`` and the copy's install removed it, and the index named a missing blob
    (`git commit` then fails on it). Now a path whose work-tree bytes are not HEAD's is staged
    as HEAD's blob (what `git status` expects of an unstaged change): reachable, so no prune at
    any moment can take it."""
    mine, peer = person_and_peer(tmp_path)
    (peer / "facts").mkdir(exist_ok=True)
    (peer / "facts" / "peer-note.md").write_text("---\ndescription: A peer's note about the build\n---\n\nb\n")
    push_as_peer(peer, "peer note")
    # a person's memory, not committed: INDEX.md on disk lists it, HEAD's INDEX.md does not
    (mine / "facts" / "hand-note.md").write_text("---\ndescription: A person's uncommitted note\n---\n\nh\n")
    assert cli("list", cwd=mine).returncode == 0
    assert "hand-note" in (mine / "INDEX.md").read_text()
    r = run_cli("sync", cwd=mine)
    assert r.returncode == 0, r.stderr
    assert pruning_git.exists(), "no update-index ran under the pruning git: the test proves nothing"
    assert (mine / "facts" / "peer-note.md").exists()
    assert _index_blobs_missing(mine) == []
    # what the index names for the sync's paths is HEAD's: reachable, whatever prune runs later
    assert git(mine, "diff", "--cached", "--name-only", "HEAD") == ""
    subprocess.run([REAL_GIT, "prune", "--expire=now"], cwd=mine, check=True)
    fsck = subprocess.run([REAL_GIT, "fsck", "--no-progress", "--no-dangling"], cwd=mine,
                          capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    # the person's uncommitted note and INDEX.md on disk are unstaged changes, as before the sync
    assert "?? facts/hand-note.md" in git(mine, "status", "--porcelain")
    assert "hand-note" in (mine / "INDEX.md").read_text()


def test_a_persons_commit_survives_a_prune_between_the_hooks_index_md_blob_and_its_staging(
        tmp_path, pruning_git):
    """Issue 25 (a person's commit under a prune): the pre-commit hook regenerated INDEX.md and
    staged it in two steps, ``git hash-object -w`` then ``git update-index --cacheinfo``; a
    prune between them removed the new blob (named by nothing yet), and the person's commit
    failed ("invalid object ... for 'INDEX.md'"), or left the index naming a missing blob.
    The blob is now written and staged, then kept: once every prune running meanwhile is over,
    whatever it removed is stored again, and from then on the index names it."""
    root = tmp_path / "vault"
    assert cli("init", str(root)).returncode == 0
    assert cli("remember", "build-tool", "-d", "The build runs with make", "--body", "m", cwd=root).returncode == 0
    (root / "facts" / "hand-made.md").write_text("---\ndescription: A hand-made memory about the CI\n---\n\nci\n")
    git(root, "add", "facts/hand-made.md")
    commit = subprocess.run([REAL_GIT, "commit", "-q", "-m", "a hand-made memory"], cwd=root,
                            capture_output=True, text=True)
    assert pruning_git.exists(), "no update-index ran under the pruning git: the test proves nothing"
    assert commit.returncode == 0, commit.stdout + commit.stderr
    assert "hand-made" in git(root, "show", "HEAD:INDEX.md")
    assert _index_blobs_missing(root) == []
    fsck = subprocess.run([REAL_GIT, "fsck", "--no-progress", "--no-dangling"], cwd=root,
                          capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert git(root, "status", "--porcelain") == ""
