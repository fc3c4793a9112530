"""A damaged object in HEAD's history, not in HEAD's tree (issue 25): reads answer from what is
there, writes go on or refuse naming the problem and its fix (``git fsck``), ``doctor`` names it
and exits 1.

A real repository, damaged the ways a `git gc` racing a writer, a disk fault or a hand leaves
it: an older version's blob or an older commit's tree deleted, an older commit deleted, a loose
object overwritten, a pack entry of an older commit corrupted. The index is dropped first, so
every history read (who wrote each memory, which commit first brought each text) runs again.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import cli, git, new_vault, run_cli

from vault_mem import Vault
from vault_mem.vault.authors import authors_of

KINDS = ("blob-missing", "tree-missing", "commit-missing", "loose-corrupt", "pack-entry-corrupt")
#: damage that every history walk meets (a blob is never read by `git log --raw`)
WALKED = {"tree-missing", "commit-missing", "pack-entry-corrupt"}


def _history(root: Path) -> str:
    """Five agent commits; returns the second, which the tests damage: ``old-fact`` was last
    changed before it, so its author lies beyond the damage."""
    for args in (("old-fact", "-d", "A fact older than the damage", "--body", "old"),
                 ("alpha", "-d", "Alpha fact one", "--body", "first version"),
                 ("beta", "-d", "Beta fact", "--body", "beta body"),
                 ("alpha", "-d", "Alpha fact two", "--body", "second version"),
                 ("gamma", "-d", "Gamma fact", "--body", "gamma body")):
        r = cli("--vault", str(root), "remember", *args)
        assert r.returncode == 0, r.stderr
    return git(root, "rev-parse", "HEAD~3").strip()


def _damage(root: Path, kind: str, commit: str) -> None:
    def loose(oid: str) -> Path:
        path = root / ".git" / "objects" / oid[:2] / oid[2:]
        assert path.exists(), f"expected {oid} as a loose object"
        return path

    if kind == "pack-entry-corrupt":
        git(root, "gc", "-q", "--prune=now")
        pack = next((root / ".git" / "objects" / "pack").glob("*.pack"))
        with open(pack.with_suffix(".idx"), "rb") as idx:
            listed = subprocess.run(["git", "show-index"], stdin=idx, capture_output=True, text=True,
                                    check=True).stdout
        offset = next(int(line.split()[0]) for line in listed.splitlines() if line.split()[1] == commit)
        pack.chmod(0o644)
        data = bytearray(pack.read_bytes())
        for i in range(offset + 4, offset + 14):  # inside its compressed data, past its header
            data[i] ^= 0xFF
        pack.write_bytes(bytes(data))
        return
    oid = {"blob-missing": f"{commit}:facts/alpha.md", "loose-corrupt": f"{commit}:facts/alpha.md",
           "tree-missing": f"{commit}^{{tree}}", "commit-missing": commit}[kind]
    path = loose(git(root, "rev-parse", oid).strip())
    if kind == "loose-corrupt":
        path.chmod(0o644)
        path.write_bytes(b"not zlib at all " * 4)
    else:
        path.unlink()


def _says_fsck(text: str) -> bool:
    return "`git fsck`" in text and "missing or corrupt" in text


@pytest.mark.parametrize("kind", KINDS)
def test_damaged_history_reads_answer_writes_say_the_fix_and_doctor_fails(tmp_path, kind):
    vault = new_vault(tmp_path / "vault")
    root = vault.root
    vault.close()
    bare = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    git(root, "remote", "add", "origin", str(bare))
    damaged = _history(root)
    _damage(root, kind, damaged)
    for path in (root / ".vault-mem").glob("index.db*"):
        path.unlink()  # every history read runs again (a fresh clone's first read does the same)

    # reads, as real processes: every memory, no error
    listed = run_cli("list", cwd=root)
    assert listed.returncode == 0, listed.stderr
    for key in ("old-fact", "alpha", "beta", "gamma"):
        assert key in listed.stdout, listed.stdout
    if kind in WALKED:  # answered from what could be read, and said so with the fix
        assert _says_fsck(listed.stderr), listed.stderr
    recalled = run_cli("recall", "Alpha fact", cwd=root)
    assert recalled.returncode == 0 and "alpha" in recalled.stdout, recalled.stderr
    got = cli("--vault", str(root), "get", "alpha")
    assert got.returncode == 0 and "Alpha fact two" in got.stdout, got.stderr
    older = cli("--vault", str(root), "get", "old-fact")  # its change date lies beyond the damage
    assert older.returncode == 0 and "A fact older than the damage" in older.stdout, older.stderr
    logged = cli("--vault", str(root), "log")
    assert logged.returncode == 0 and "gamma" in logged.stdout, logged.stderr
    keyed = cli("--vault", str(root), "log", "alpha")
    assert keyed.returncode == 0, keyed.stderr
    # a pack stores commits as deltas of one another: the corrupt entry may be the base of newer ones
    assert "Alpha fact two" in keyed.stdout or (kind == "pack-entry-corrupt" and _says_fsck(keyed.stderr)), keyed
    assert cli("--vault", str(root), "review").returncode == 0

    # a memory whose last change git cannot reach is nobody's it can vouch for: never this
    # machine's person (a peer's text would pass for the person's)
    with Vault(root) as v:
        standing = authors_of(v.ws, v.sidecar, ["facts/old-fact.md", "facts/gamma.md"])
        assert standing["facts/old-fact.md"].standing in (("agent",) if kind not in WALKED else ("agent", "peer"))
        assert standing["facts/gamma.md"].standing == "agent"
        assert [h.key for h in v.recall("Gamma fact", k=3).hits][:1] == ["gamma"]

    # doctor names it and exits 1
    doctor = cli("--vault", str(root), "doctor")
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    assert "missing or corrupt" in doctor.stdout + doctor.stderr and "git fsck" in doctor.stdout + doctor.stderr

    # writes: done, or refused with the problem and its fix
    wrote = cli("--vault", str(root), "remember", "delta", "-d", "A write after the damage", "--body", "d")
    assert wrote.returncode == 0 or _says_fsck(wrote.stderr), wrote.stderr
    undone = cli("--vault", str(root), "undo", "gamma")
    assert undone.returncode == 0 or _says_fsck(undone.stderr), undone.stderr
    synced = cli("--vault", str(root), "sync")  # the push needs every object of history
    assert synced.returncode == 1 and _says_fsck(synced.stderr), synced.stderr
    assert "rejected" not in synced.stderr and "Reword" not in synced.stderr, synced.stderr
    assert cli("--vault", str(root), "list").returncode == 0


def test_doctor_reads_every_object_not_only_the_links(tmp_path):
    """``git fsck --connectivity-only`` never reads a blob: an older version of a memory whose
    loose object no longer inflates passed ``doctor``."""
    vault = new_vault(tmp_path / "vault")
    root = vault.root
    vault.close()
    damaged = _history(root)
    assert cli("--vault", str(root), "doctor").returncode == 0
    _damage(root, "loose-corrupt", damaged)
    doctor = cli("--vault", str(root), "doctor")
    assert doctor.returncode == 1, doctor.stdout
    assert git(root, "rev-parse", f"{damaged}:facts/alpha.md").strip()[:10] in doctor.stdout + doctor.stderr
