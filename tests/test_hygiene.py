"""Vault hygiene (vault_mem.ops.review): review, scan [--history], check-refs, with real vaults and git.

Credential-shaped strings are built at run time from split prefixes and a seeded generator, so
this file holds no literal that a secret scanner would flag; no test prints a value.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from conftest import cli, git
from fakes import aws_key, github_token, random_token, write_memory

from vault_mem.errors import UsageError
from vault_mem.ops import review as hygiene
from vault_mem.vault.core import Vault

TODAY = dt.date(2026, 11, 29)


def commit_all(root: Path, message: str) -> str:
    """Commit everything, past the pre-commit secret gate (history from before it existed)."""
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


# -- review ------------------------------------------------------------------------------------
def test_review_lists_each_kind_with_what_to_do(vault):
    root = vault.root
    write_memory(root, "fresh", "A fresh fact", updated=dt.date(2026, 11, 1))
    write_memory(root, "old-laptop", "Laptop is a ThinkPad", updated=dt.date(2025, 1, 1))
    write_memory(root, "old-pref", "Prefers dark mode", type_="preference", updated=dt.date(2026, 1, 1))
    write_memory(root, "visa", "Visa for the Japan trip", expires=dt.date(2026, 2, 1), updated=dt.date(2026, 1, 5))
    write_memory(root, "neovim", "Uses Neovim", updated=dt.date(2026, 11, 1))
    write_memory(root, "helix", "Uses Helix", supersedes=["neovim"], updated=dt.date(2026, 11, 1))
    write_memory(root, "editor", "Editor setup", updated=dt.date(2026, 11, 1))
    write_memory(root, "editor.conflict-abc1234", "Editor setup (the other machine's)",
                 updated=dt.date(2026, 11, 1), conflict_of="editor", conflict_author="laptop")
    (root / "facts/broken.md").write_text("no frontmatter here\n")

    items = hygiene.review(vault, today=TODAY)
    by_key = {i["key"]: i for i in items}
    assert [i["flag"] for i in items] == ["conflict", "problem", "expired", "superseded", "stale"]
    assert set(by_key) == {"editor", "broken", "visa", "neovim", "old-laptop"}

    assert "vault-mem resolve editor" in by_key["editor"]["detail"]
    assert by_key["broken"]["path"] == "facts/broken.md" and "frontmatter" in by_key["broken"]["detail"]
    visa = by_key["visa"]
    assert "expired on 2026-02-01" in visa["detail"] and "vault-mem forget visa" in visa["detail"]
    assert visa["flags"] == ["expired", "stale"] and "(also stale)" in visa["detail"]
    assert "superseded by helix" in by_key["neovim"]["detail"] and "forget neovim" in by_key["neovim"]["detail"]
    stale = by_key["old-laptop"]
    assert stale["age_days"] == (TODAY - dt.date(2025, 1, 1)).days and stale["type"] == "fact"
    assert "stale after 180 days" in stale["detail"] and "vault-mem remember old-laptop" in stale["detail"]
    assert stale["path"] == "facts/old-laptop.md" and stale["date"] == "2025-01-01"


def test_review_of_a_clean_vault_is_empty_and_honours_vault_toml(vault):
    write_memory(vault.root, "fact", "Something", updated=dt.date(2026, 10, 1))
    assert hygiene.review(vault, today=TODAY) == []
    cfg = vault.root / "vault.toml"
    text = cfg.read_text()
    assert "\nfact = 180\n" in text
    cfg.write_text(text.replace("\nfact = 180\n", "\nfact = 30\n"))
    v = Vault(vault.root)
    try:
        (item,) = hygiene.review(v, today=TODAY)
        assert item["key"] == "fact" and item["flag"] == "stale" and "stale after 30 days" in item["detail"]
    finally:
        v.close()


def test_review_superseded_returns_when_its_successor_expires(vault):
    write_memory(vault.root, "old", "Old office address", updated=dt.date(2026, 11, 1))
    write_memory(vault.root, "new", "New office address (temporary)", supersedes=["old"],
                 expires=dt.date(2026, 6, 1), updated=dt.date(2026, 11, 1))
    assert [(i["key"], i["flag"]) for i in hygiene.review(vault, today=TODAY)] == [("new", "expired")]


def test_cli_review(tmp_path):
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    r = cli("--vault", str(root), "review")
    assert r.returncode == 0 and "nothing to review" in r.stdout
    write_memory(root, "visa", "Visa for the Japan trip", expires=dt.date(2020, 2, 1))
    r = cli("--vault", str(root), "review", "--json")
    assert r.returncode == 0, r.stderr
    (item,) = json.loads(r.stdout)
    assert item["key"] == "visa" and item["flag"] == "expired"
    r = cli("--vault", str(root), "review")
    assert r.stdout.splitlines()[1].startswith("expired") and "visa" in r.stdout  # under the data line and "vault-mem forget visa" in r.stdout


def test_review_filters_by_type_and_flag_and_the_cli_limits_with_a_count_of_the_rest(tmp_path):
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    for i in range(5):
        write_memory(root, f"old-fact-{i}", f"Old fact {i}", updated=dt.date(2020, 1, 1))
    write_memory(root, "old-pref", "Prefers tabs", type_="preference", updated=dt.date(2020, 1, 1))
    write_memory(root, "visa", "Visa for the Japan trip", expires=dt.date(2020, 2, 1), updated=dt.date(2020, 1, 1))
    (root / "preferences/broken.md").write_text("no frontmatter here\n")
    v = Vault(root)
    try:
        assert [i["key"] for i in hygiene.review(v, type="preference")] == ["broken", "old-pref"]
        assert {i["key"] for i in hygiene.review(v, flag="stale")} == {*(f"old-fact-{i}" for i in range(5)),
                                                                      "old-pref", "visa"}
        assert [i["key"] for i in hygiene.review(v, flag="expired", type="fact")] == ["visa"]
        with pytest.raises(UsageError, match="unknown review flag"):
            hygiene.review(v, flag="dusty")
        with pytest.raises(UsageError):
            hygiene.review(v, type="recipe")
    finally:
        v.close()
    r = cli("--vault", str(root), "review", "--stale", "--type", "fact", "--limit", "2")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 4 and lines[-1].startswith("(+4 more")  # the data line, 2 items, the rest counted
    r = cli("--vault", str(root), "review", "--stale", "--type", "fact", "--limit", "2", "--json")
    assert len(json.loads(r.stdout)) == 2
    assert cli("--vault", str(root), "review", "--limit", "0").returncode == 2


# -- scan --------------------------------------------------------------------------------------
def test_scan_working_tree_reports_kind_field_and_file_never_the_value(vault):
    key_value, token = aws_key(), github_token()
    write_memory(vault.root, "build-box", "How the build box is reached",
                 f"Line one.\nCI uses {key_value} for uploads.\n")
    write_memory(vault.root, "bot", "Release bot settings", "Nothing secret here.", api=token)
    write_memory(vault.root, "clean", "Uses Helix", "Nothing to see.")

    findings = hygiene.scan(vault)
    got = {(f["where"], f["field"], f["kind"], f["line"]) for f in findings}
    # lines are the file's (frontmatter included), so a person can jump to them in an editor
    lines = (vault.root / "facts/build-box.md").read_text().splitlines()
    body_line = next(i for i, ln in enumerate(lines, 1) if "CI uses" in ln)
    api_line = next(i for i, ln in enumerate((vault.root / "facts/bot.md").read_text().splitlines(), 1)
                    if ln.startswith("api:"))
    assert got == {("facts/build-box.md", "body", "AWS access key", body_line),
                   ("facts/bot.md", "frontmatter field 'api'", "GitHub token", api_line)}
    text = json.dumps(findings)
    assert key_value not in text and token not in text
    purge = findings[0]["how_to_purge"]
    assert "rotate" in purge and "leaked" in purge and "--history" in purge


def test_scan_never_reads_through_a_linked_file_or_type_folder(vault, tmp_path):
    """DESIGN §7: what a link points at (outside the vault, a person's other files) is not read."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.md").write_text(f"---\ndescription: not in the vault\n---\n{aws_key()}\n")
    (vault.root / "notes").rename(tmp_path / "notes.real")  # the template's folder (it has a .gitkeep)
    (vault.root / "notes").symlink_to(outside, target_is_directory=True)
    (vault.root / "facts" / "link.md").symlink_to(outside / "x.md")
    assert hygiene.scan(vault) == []


def test_scan_history_finds_what_the_working_tree_no_longer_has(vault):
    root = vault.root
    token = github_token()
    write_memory(root, "ci", "CI notes", f"deploy with {token}\n")
    bad = commit_all(root, "add ci notes")
    write_memory(root, "ci", "CI notes", "deploy with the token in 1Password item 'CI'\n")
    commit_all(root, "remove the token")
    database_url = "postgres://app:" + random_token(12) + "@db.internal/prod"
    git(root, "commit", "-q", "--allow-empty", "--no-verify", "-m", f"note: {database_url}")

    assert hygiene.scan(vault) == []
    findings = hygiene.scan(vault, history=True)
    files = [f for f in findings if f["field"] != "commit message"]
    assert [(f["commit"], f["path"], f["field"], f["kind"]) for f in files] == [
        (bad, "facts/ci.md", "body", "GitHub token")]
    assert files[0]["where"] == f"{bad[:10]} facts/ci.md"
    assert "git filter-repo --path facts/ci.md --invert-paths" in files[0]["how_to_purge"]
    assert "rotate" in files[0]["how_to_purge"] and "force-push" in files[0]["how_to_purge"]
    (msg,) = [f for f in findings if f["field"] == "commit message"]
    assert msg["kind"] == "database URL with password" and "--replace-message" in msg["how_to_purge"]
    assert token not in json.dumps(findings) and database_url not in json.dumps(findings)


def test_scan_history_reports_a_blob_once_at_the_commit_that_introduced_it(vault):
    root = vault.root
    write_memory(root, "keys", "Key notes", f"aws {aws_key()}\n")
    first = commit_all(root, "add")
    for i in range(3):  # unrelated later commits keep the same blob in the tree
        write_memory(root, f"other-{i}", f"Other fact {i}")
        commit_all(root, f"other {i}")
    hist = [f for f in hygiene.scan(vault, history=True) if f["commit"]]
    assert [(f["commit"], f["path"]) for f in hist] == [(first, "facts/keys.md")]


def test_scan_in_a_vault_inside_a_larger_repository_stays_in_the_vault(tmp_path):
    repo = tmp_path / "project"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "app.env").write_text(f"TOKEN={github_token()}\n")  # the project's problem, not ours
    commit_all(repo, "app")
    v = Vault.init(repo / "memory")
    try:
        write_memory(v.root, "deploy", "Deploy notes", f"key {aws_key()}\n")
        commit_all(repo, "memory: deploy notes")
        hist = [f for f in hygiene.scan(v, history=True) if f["commit"]]
        assert [f["path"] for f in hist] == ["memory/facts/deploy.md"]
        assert "--path memory/facts/deploy.md" in hist[0]["how_to_purge"]
        assert [f["where"] for f in hygiene.scan(v)] == ["facts/deploy.md"]
    finally:
        v.close()


def test_scan_reads_unparseable_files_whole(vault):
    (vault.root / "notes/pasted.md").write_text(f"no frontmatter, just {aws_key()}\n")
    (f,) = hygiene.scan(vault)
    assert (f["where"], f["field"], f["line"]) == ("notes/pasted.md", "file", 1)


def test_cli_scan_exit_codes(tmp_path):
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    r = cli("--vault", str(root), "scan")
    assert r.returncode == 0 and "no secrets found" in r.stdout
    r = cli("--vault", str(root), "scan", "--history")
    assert r.returncode == 0, r.stderr
    token = github_token()
    write_memory(root, "bot", "Bot notes", f"token {token}\n")
    commit_all(root, "bot")
    (root / "facts/bot.md").unlink()
    commit_all(root, "drop bot")
    r = cli("--vault", str(root), "scan")
    assert r.returncode == 0
    r = cli("--vault", str(root), "scan", "--history")
    assert r.returncode == 1 and "GitHub token in body" in r.stdout and "filter-repo" in r.stdout
    assert token not in r.stdout + r.stderr
    r = cli("--vault", str(root), "scan", "--history", "--json")
    assert r.returncode == 1 and json.loads(r.stdout)[0]["path"] == "facts/bot.md"


# -- check-refs ----------------------------------------------------------------------------------
@pytest.fixture
def checkout(tmp_path) -> Path:
    repo = tmp_path / "checkout"
    for rel in ("src/app.py", "src/util.py", "docs/setup.md", "sub/config.toml", "lib/config/env.dart"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x\n")
    return repo


BODY = """Settings: `lib/config/env.dart:42`, `config.toml` and `config/env.dart`.
Gone: `lib/missing.dart` and `missing.toml`; a folder `src/` and `tools/`.
Not paths: `os.path`, `process.env`, `origin/main`, `https://example.com/a.md`, `v1.2.3`,
`make deploy ENV=prod`, `--flag=x.py`, `/etc/hosts`, `example.com`.
```
cat `fenced/only.md`
```
"""


def test_check_refs_lists_every_missing_path(vault, checkout):
    write_memory(vault.root, "app", "App layout", BODY,
                 refs=["src/app.py", "./docs/setup.md#L3", "src/*.py", "docs/", "src/gone.py", "sub/gone/",
                       "https://example.com/x.md", "/etc/hosts", "../other/x.py"])
    write_memory(vault.root, "ok", "All present", "See `src/util.py`.", refs="src/app.py, docs/setup.md")
    missing = hygiene.check_refs(vault, checkout)
    assert [(m["key"], m["ref"], m["source"]) for m in missing] == [
        ("app", "src/gone.py", "refs"), ("app", "sub/gone/", "refs"),
        ("app", "lib/missing.dart", "body"), ("app", "missing.toml", "body"), ("app", "tools/", "body"),
    ]
    assert all(m["path"] == "facts/app.md" for m in missing)


def test_check_refs_reads_glob_refs_as_path_glob_does(vault, checkout):
    """``**`` takes any number of folders, none included; ``*`` stays within one folder (the
    linear matcher that replaced ``Path.glob`` had ``src/**/app.py`` miss ``src/app.py`` and
    ``*.toml`` find ``sub/config.toml``)."""
    write_memory(vault.root, "globs", "Glob refs", "Layout.",
                 refs=["src/**/app.py", "**/env.dart", "lib/**", "src/[au]*.py", "*.toml", "src/*/app.py", "**/**/gone.py"])
    missing = [m["ref"] for m in hygiene.check_refs(vault, checkout)]
    assert missing == ["*.toml", "src/*/app.py", "**/**/gone.py"]


def test_check_refs_uses_git_file_list_in_a_git_checkout(vault, checkout):
    git(checkout, "init", "-q")
    (checkout / ".gitignore").write_text("build/\n")
    (checkout / "build").mkdir()
    (checkout / "build/out.js").write_text("x\n")
    write_memory(vault.root, "b", "Build output", "Bundle is `out.js`; source `util.py`.")
    assert [m["ref"] for m in hygiene.check_refs(vault, checkout)] == ["out.js"]  # ignored files don't count


def test_check_refs_bad_repo_is_a_usage_error(vault, tmp_path):
    with pytest.raises(UsageError, match="no such directory"):
        hygiene.check_refs(vault, tmp_path / "nope")


def test_cli_check_refs_exit_codes(tmp_path, checkout):
    root = tmp_path / "v"
    assert cli("init", str(root)).returncode == 0
    write_memory(root, "ok", "Present", refs=["src/app.py"])
    r = cli("--vault", str(root), "check-refs", "--repo", str(checkout))
    assert r.returncode == 0 and "every referenced path exists" in r.stdout
    write_memory(root, "gone", "Missing", "Lives in `src/removed.py`.")
    r = cli("--vault", str(root), "check-refs", "--repo", str(checkout))
    assert r.returncode == 1 and "gone: 'src/removed.py' does not exist" in r.stdout
    r = cli("--vault", str(root), "check-refs", "--repo", str(tmp_path / "nope"))
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_body_paths_heuristic():
    assert hygiene.body_paths(BODY) == ["lib/config/env.dart", "config.toml", "config/env.dart",
                                        "lib/missing.dart", "missing.toml", "src/", "tools/"]
    assert hygiene.body_paths("`.env`, `.github/workflows/ci.yml`, `Dockerfile`, `threading.Lock`") == [
        ".env", ".github/workflows/ci.yml", "Dockerfile"]


def test_scan_covers_descriptions_and_the_generated_index(vault):
    token = github_token()
    write_memory(vault.root, "ci", f"CI uses {token}", "Body is clean.")
    vault.regenerate_index()  # the file is quarantined: INDEX.md does not list it
    assert token not in (vault.root / "INDEX.md").read_text()
    got = {(f["where"], f["field"], f["kind"]) for f in hygiene.scan(vault)}
    assert got == {("facts/ci.md", "description", "GitHub token")}
    # an INDEX.md that holds one anyway (written by an older vault-mem, or by hand) is found too
    index = vault.root / "INDEX.md"
    index.write_text(index.read_text() + f"- ci: CI uses {token}\n")
    got = {(f["where"], f["field"], f["kind"]): f["how_to_purge"] for f in hygiene.scan(vault)}
    assert set(got) == {("facts/ci.md", "description", "GitHub token"), ("INDEX.md", "file", "GitHub token")}
    assert "vault-mem remember ci" in got[("facts/ci.md", "description", "GitHub token")]
    assert "INDEX.md is generated" in got[("INDEX.md", "file", "GitHub token")]
