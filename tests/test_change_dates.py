"""A memory fixed by hand dates from when it changed, not from the ``updated:`` it kept.

Its age (and so "may be outdated") counts from the later of ``updated:`` and its last change:
the commit that last changed the file, or the file's own time while the edit is uncommitted.
A checkout or a clone rewrites files, so a file as HEAD holds it is never dated by its time.
Reading never writes to the memory file.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess

from conftest import git
from fakes import write_memory

from vault_mem import Vault
from vault_mem.adapters.tools import get_view
from vault_mem.ops.review import review

OLD = dt.date(2024, 1, 1)
OLD_TS = dt.datetime(2024, 1, 1, 12, 0).timestamp()


def _old_memory(root) -> str:
    """A fact written and committed on 2024-01-01 (its file time too, as a real old file has)."""
    rel = write_memory(root, "deploy-steps", "Deploy with the old release script", "Run old.sh\n",
                       updated=OLD, created=OLD)
    os.utime(root / rel, (OLD_TS, OLD_TS))
    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-01-01T12:00:00", "GIT_COMMITTER_DATE": "2024-01-01T12:00:00"}
    subprocess.run(["git", "add", rel], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "the old fact"], cwd=root, check=True, env=env, capture_output=True)
    return rel


def _hit(vault):
    hits = [h for h in vault.recall("release script deploy").hits if h.key == "deploy-steps"]
    assert hits, "not found"
    return hits[0]


def test_a_memory_fixed_by_hand_is_not_called_old(tmp_path):
    root = tmp_path / "vault"
    Vault.init(root).close()
    rel = _old_memory(root)
    with Vault(root) as vault:
        hit = _hit(vault)
        assert hit.age_days > 700 and "stale" in hit.flags  # really old: said so

    path = root / rel
    fixed = path.read_text().replace("Run old.sh", "Run ./release.sh --prod")
    path.write_text(fixed)  # a person's editor; `updated:` still says 2024-01-01

    with Vault(root) as vault:  # no daemon: the read reconciles, then answers
        hit = _hit(vault)
        assert hit.age_days == 0 and "stale" not in hit.flags, (hit.date, hit.age_days, hit.flags)
        view = get_view(vault, "deploy-steps")
        assert view["age_days"] == 0 and "stale" not in view["flags"]
        assert not [i for i in review(vault) if i["key"] == "deploy-steps"]
    assert path.read_text() == fixed  # reading never writes to the memory file

    git(root, "commit", "-qam", "fix the deploy steps")  # committed today: dated by its commit
    (root / ".vault-mem" / "index.db").unlink()
    with Vault(root) as vault:
        hit = _hit(vault)
        assert hit.age_days == 0 and "stale" not in hit.flags


def test_a_clone_keeps_an_old_memory_old(tmp_path):
    """A clone writes every file now: an untouched memory still dates from its commit."""
    root = tmp_path / "vault"
    Vault.init(root).close()
    _old_memory(root)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    with Vault(clone) as vault:
        hit = _hit(vault)
        assert hit.age_days > 700 and "stale" in hit.flags, (hit.date, hit.age_days)


def test_a_clone_of_many_old_memories_keeps_them_old_and_dates_an_edit(tmp_path, monkeypatch):
    """A clone's first index asks about every file at once (each is newer than its
    ``updated:``): the folder's tree is read once for them all, with the same answers as one
    lookup per file; a file changed after that is dated by its change."""
    root = tmp_path / "vault"
    Vault.init(root).close()
    rels = [write_memory(root, f"old-{i:02d}", f"Old fact number {i} about the release", f"Body {i}\n",
                         updated=OLD, created=OLD) for i in range(40)]
    env = {**os.environ, "GIT_AUTHOR_DATE": "2024-01-01T12:00:00", "GIT_COMMITTER_DATE": "2024-01-01T12:00:00"}
    subprocess.run(["git", "add", *rels], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "old facts"], cwd=root, check=True, env=env, capture_output=True)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    with Vault(clone) as vault:
        lookups: list[str] = []
        one_by_one = type(vault.repo)._lookup
        monkeypatch.setattr(type(vault.repo), "_lookup", lambda self, spec: lookups.append(spec) or one_by_one(self, spec))
        held = vault.repo.blobs_at(vault.repo.head(), [*rels, "facts/missing.md", "facts", "nowhere/x.md"])
        assert not [spec for spec in lookups if "facts/" in spec]  # one parse of facts/, no lookup per file
        monkeypatch.setattr(type(vault.repo), "_lookup", one_by_one)  # (undo() would put back the machine's key too)
        assert held == {**{r: vault.repo.blob_at(vault.repo.head(), r) for r in rels},
                        "facts/missing.md": None, "facts": None, "nowhere/x.md": None}
        assert all(held[r] for r in rels)
        views = [get_view(vault, f"old-{i:02d}") for i in range(40)]
        assert all(v["age_days"] > 700 and "stale" in v["flags"] for v in views)
    path = clone / rels[7]
    path.write_text(path.read_text().replace("Body 7", "Body seven, fixed"))
    with Vault(clone) as vault:
        assert get_view(vault, "old-07")["age_days"] == 0
        assert get_view(vault, "old-08")["age_days"] > 700


def test_an_import_keeps_the_dates_it_brought(tmp_path):
    """vault-mem's own writes date themselves: an imported memory dated 2024 is 2024's, though
    its file and its commit are today's (the commit carries an Agent: trailer)."""
    from vault_mem.model.memory import Memory

    root = tmp_path / "vault"
    with Vault.init(root) as vault:
        old = Memory(key="deploy-steps", type="fact", body="Run old.sh\n",
                     meta={"description": "Deploy with the old release script", "created": OLD, "updated": OLD})
        vault.import_memories([old], message="import: 1 memory\n\nMemory-Action: import\nAgent: importer\n")
    with Vault(root) as vault:
        hit = _hit(vault)
        assert hit.age_days > 700 and "stale" in hit.flags, (hit.date, hit.age_days)
    (root / ".vault-mem" / "index.db").unlink()  # a rebuild from the files and git says the same
    with Vault(root) as vault:
        hit = _hit(vault)
        assert hit.age_days > 700 and "stale" in hit.flags, (hit.date, hit.age_days)
