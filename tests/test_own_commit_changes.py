"""What a commit this process made changed, answered without git (issue 29: work proportional to
the change). The authors refresh after an agent write (a ``remember`` that finds a look-alike asks
who wrote it) ran ``git diff-tree`` and ``git log --raw`` of that one commit, each reading the
changed folder's whole tree: ~120 ms of CPU at 100k memories. The answers from the process's own
record must be git's, field for field."""

from __future__ import annotations

import subprocess

from conftest import git

from vault_mem.index import authors as rows
from vault_mem.store import history
from vault_mem.store.git import GitRepo
from vault_mem.vault import authors


def _both(repo: GitRepo, fresh: GitRepo, new: str, old: str, paths: list[str], local: frozenset[str]):
    """last_authors and changed_paths from the writer's record and from git (a GitRepo with none)."""
    answers = []
    for r in (repo, fresh):
        touched: dict = {}
        moves: dict = {}
        found = history.last_authors(r, new, old, paths, given_only=True, touched=touched, moves=moves, local=local)
        plain = history.last_authors(r, new, old, paths)
        answers.append((found, touched, moves, plain, sorted(history.changed_paths(r, old, new, paths[0]))))
    return answers


def _git_processes(monkeypatch) -> list[list[str]]:
    started: list[list[str]] = []
    real = subprocess.Popen.__init__

    def counted(self, args, *a, **kw):
        if str(list(args)[0]).endswith("git"):
            started.append([str(x) for x in args])
        return real(self, args, *a, **kw)
    monkeypatch.setattr(subprocess.Popen, "__init__", counted)
    return started


def test_an_agent_writes_own_commit_is_read_as_git_reads_it_and_without_git(tmp_path, monkeypatch):
    """Each kind of write (a new memory, an update, a forget that deletes the file, a move to
    another type, in a vault at a repository's top and in a project's subfolder) is followed by
    the questions the authors refresh asks of that commit, then of all four at once: the answers from the process's record equal git's (a GitRepo
    that made none of them), the touched paths and the moves (added, deleted) included, for the
    whole vault and for a file named literally; and the refresh inside the process starts no git
    process. On main it started ``git diff-tree`` and ``git log`` after every agent write."""
    from vault_mem import Vault
    from vault_mem.store.provenance import recorded

    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text("x = 1\n")
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "project")
    for root in (Vault.init(tmp_path / "vault").root, Vault.init(project / "memory").root):
        with Vault(root) as vault:
            vault.remember("editor", "Uses Helix as the main editor", "b")
            vault.authors([vault.find_file("editor")[1]])  # the rows brought up to HEAD once, by git
            base = vault.repo.head()
            steps = [lambda: vault.remember("tabs", "Prefers tabs over spaces", "b"),
                     lambda: vault.remember("editor", "Uses Helix as the main editor, daily", "b2"),
                     lambda: vault.forget("tabs"),
                     lambda: vault.remember("editor", "Uses Zed now", "b3", type="preference")]
            spec = vault.prefix or "."
            for step in steps:
                old = vault.repo.head()
                step()
                new = vault.repo.head()
                assert new != old and vault.repo.own_change(new) is not None
                local = recorded(vault.repo.common_dir)[1]
                fresh = GitRepo(root)
                try:
                    for paths in ([spec], [vault.prefix + "facts/editor.md", vault.prefix + "INDEX.md"]):
                        ours, gits = _both(vault.repo, fresh, new, old, paths, local)
                        assert ours == gits
                        assert ours[4] or paths != [spec]  # the commit changed something in the vault
                finally:
                    fresh.close()
                started = _git_processes(monkeypatch)
                who = vault.authors([vault.find_file("editor")[1]])
                monkeypatch.undo()
                assert [a for a in started if "diff-tree" in a or "log" in a] == [], started
                assert all(a.trusted for a in who.values())
            # the four commits as one range (the rows lagging HEAD by more than one agent write)
            fresh = GitRepo(root)
            try:
                local = recorded(vault.repo.common_dir)[1]
                for paths in ([spec], [vault.prefix + "facts/editor.md", vault.prefix + "facts/tabs.md"]):
                    ours, gits = _both(vault.repo, fresh, vault.repo.head(), base, paths, local)
                    assert ours == gits
                assert "facts/tabs.md" not in "".join(ours[4])  # added and deleted again: no difference
            finally:
                fresh.close()
            # the rows the record brought up to date are the ones a refresh by git makes of the
            # same commits (another process: no record; the rows set back to before the steps)
            kept = history_rows(vault)
        with Vault(root) as again:
            rows.update(again.sidecar.db, base, {}, [])
            authors.refresh(again.ws, again.sidecar)
            assert history_rows(again) == kept


def history_rows(vault):
    db = vault.sidecar.db
    return (rows.stored_head(db), rows.all_authors(db), rows.lineage_paths(db), rows.moved_from(db))


def test_a_commit_made_elsewhere_or_on_another_parent_is_asked_of_git(tmp_path):
    """The record answers only for the commit this process made and its own parent: a person's
    commit after it, a range of two commits, or the same commit asked against another parent go
    to git as before (the answers still git's)."""
    from vault_mem import Vault

    root = Vault.init(tmp_path / "vault").root
    with Vault(root) as vault:
        vault.remember("editor", "Uses Helix", "b")
        first = vault.repo.head()
        vault.remember("tabs", "Prefers tabs", "b")
        second = vault.repo.head()
        (root / "facts" / "editor.md").write_text((root / "facts" / "editor.md").read_text() + "more\n")
        git(root, "commit", "-qam", "person")
        person = git(root, "rev-parse", "HEAD").strip()
        assert vault.repo.own_change(person) is None
        fresh = GitRepo(root)
        try:
            for new, old in ((person, second), (second, first), (person, first)):
                assert sorted(history.changed_paths(vault.repo, old, new, ".")) == \
                    sorted(history.changed_paths(fresh, old, new, "."))
                assert history.last_authors(vault.repo, new, old, ["."]) == history.last_authors(fresh, new, old, ["."])
        finally:
            fresh.close()
